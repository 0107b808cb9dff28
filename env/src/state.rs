//! A position: the board, captured seeds, the player to move and the ply, with its legal-move
//! mask worked out once when the position is made, so that asking for it costs nothing.
//!
//! `State` is small and `Copy` (64 bytes) and carries its [`Rules`], so a state alone can be
//! played, compared, hashed and stored. The one way to move is [`State::play`], which checks the
//! action and returns the next state; [`State::play_unchecked`] skips the checks for search.

use crate::board::Board;
use crate::error::{Error, IllegalReason};
use crate::legal_mask::{Keep, SownMoves, legal_and_endless};
use crate::outcome::Outcome;
use crate::player::{ByPlayer, Player};
use crate::rules::{MAX_HOLES, Rules};
use crate::sow::{Sowing, sow};
use crate::switches::Trigger;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What one move did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveInfo {
    /// Laps sown, the first included.
    pub laps: u32,
    /// Seeds sown over all laps.
    pub sown: u32,
    /// Seeds captured by the move (the capturing seed included under `take`).
    pub captured: u32,
    /// The absolute hole where the last seed fell.
    pub last: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Status {
    Ongoing,
    Ended,
    Truncated,
}

/// A position of a game, with its rules.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    board: Board,
    rules: Rules,
    ply: u32,
    captured: [u8; 2],
    to_move: Player,
    status: Status,
    /// Bit `a` set when action `a` is legal.
    legal: u16,
    /// Bit `a` set when action `a` has seeds but its sowing is endless.
    endless: u16,
}

impl State {
    /// The start of a game: every hole holds `rules.seeds()`, South to move.
    pub fn initial(rules: &Rules) -> State {
        let board = Board::uniform(rules.holes(), rules.seeds() as u8);
        State::settled(*rules, board, [0, 0], Player::South, 0)
    }

    /// A position from its parts. `board` lists holes `0..2n` in the numbering of `RULES.md`.
    /// Seeds on the board plus captured must equal the rules' total. The mask, and whether the
    /// game has ended, are worked out as after a move: if `to_move` has no legal move the seeds
    /// left go to the other player and the game is over.
    pub fn new(
        rules: &Rules,
        board: &[u8],
        captured: ByPlayer<u8>,
        to_move: Player,
        ply: u32,
    ) -> Result<State, Error> {
        State::check_parts(rules, board, captured, ply)?;
        Ok(State::settled(
            *rules,
            Board::from_cells(board),
            [captured.south, captured.north],
            to_move,
            ply,
        ))
    }

    /// [`State::new`], keeping the sowings of the new position's legal moves in `sown`, for
    /// [`State::play_board_sown`] and [`State::play_sown`]: a tool that makes a position and then
    /// plays each of its moves sows each once instead of twice.
    pub fn new_sown(
        rules: &Rules,
        board: &[u8],
        captured: ByPlayer<u8>,
        to_move: Player,
        ply: u32,
        sown: &mut SownMoves,
    ) -> Result<State, Error> {
        State::check_parts(rules, board, captured, ply)?;
        Ok(State::settled_keeping(
            *rules,
            Board::from_cells(board),
            [captured.south, captured.north],
            to_move,
            ply,
            sown,
        ))
    }

    /// Whether the parts of [`State::new`] make a position of `rules`, and if not, why not.
    fn check_parts(
        rules: &Rules,
        board: &[u8],
        captured: ByPlayer<u8>,
        ply: u32,
    ) -> Result<(), Error> {
        let ring = 2 * rules.holes();
        if board.len() != ring {
            return Err(Error::InvalidPosition {
                field: "board",
                value: format!("{} holes", board.len()),
                allowed: format!("exactly {ring} holes (2 rows of {})", rules.holes()),
            });
        }
        let total: usize = board.iter().map(|&c| c as usize).sum::<usize>()
            + captured.south as usize
            + captured.north as usize;
        if total != rules.total_seeds() {
            return Err(Error::InvalidPosition {
                field: "board",
                value: format!("{total} seeds on the board and captured"),
                allowed: format!(
                    "exactly {} seeds in all, as the rules start with",
                    rules.total_seeds()
                ),
            });
        }
        if ply > rules.max_plies() {
            return Err(Error::InvalidPosition {
                field: "ply",
                value: ply.to_string(),
                allowed: format!("0 to max_plies = {}", rules.max_plies()),
            });
        }
        Ok(())
    }

    /// Work out the mask of a fresh position and whether the game is over there.
    // Out of line: inlined into `apply`, the legal-move mask made the move loop longer (about 3%
    // more instructions per random move on en-dodoi-10, counted with cachegrind).
    #[inline(never)]
    fn settled(rules: Rules, board: Board, captured: [u8; 2], to_move: Player, ply: u32) -> State {
        State::settled_keeping(rules, board, captured, to_move, ply, &mut ())
    }

    /// [`State::settled`], handing each legal sowing of the new position to `keep`.
    #[inline(always)]
    fn settled_keeping<K: Keep>(
        rules: Rules,
        board: Board,
        captured: [u8; 2],
        to_move: Player,
        ply: u32,
        keep: &mut K,
    ) -> State {
        // Every candidate move is sown to learn which are legal.
        let (legal, endless) = legal_and_endless(&board, to_move, &rules, keep);
        let mut s = State {
            board,
            rules,
            ply,
            captured,
            to_move,
            status: Status::Ongoing,
            legal,
            endless,
        };
        if s.legal == 0 {
            // No legal move: the seeds left go to the player who made the last move.
            let n = rules.holes();
            let left = s.board.sum(0, 2 * n);
            s.captured[(!to_move).index()] += left as u8;
            s.board.clear(0, 2 * n);
            s.status = Status::Ended;
        } else if ply >= rules.max_plies() {
            s.status = Status::Truncated;
            s.legal = 0;
        }
        s
    }

    /// The rules this game is played by.
    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// The board, holes numbered as in `RULES.md`.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// Seeds in each of the `2n` holes, South's row first, in the numbering of `RULES.md`.
    pub fn cells(&self) -> Vec<u8> {
        self.board.cells(2 * self.rules.holes())
    }
    /// Seeds in absolute hole `hole`.
    #[inline]
    pub fn seeds_in(&self, hole: usize) -> u8 {
        self.board.get(hole)
    }
    /// Seeds captured by `player`.
    #[inline]
    pub fn captured(&self, player: Player) -> u8 {
        self.captured[player.index()]
    }
    /// Seeds captured by both players.
    pub fn captures(&self) -> ByPlayer<u8> {
        ByPlayer::new(self.captured[0], self.captured[1])
    }
    /// The player to move (after the end: the one who would have moved next).
    #[inline]
    pub fn to_move(&self) -> Player {
        self.to_move
    }
    /// Moves played since the start.
    #[inline]
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// Holes per row: actions are `0..holes()`.
    #[inline]
    pub fn holes(&self) -> usize {
        self.rules.holes()
    }
    /// The absolute hole that action `action` of the player to move lifts.
    #[inline]
    pub fn hole_of(&self, action: usize) -> usize {
        self.to_move.index() * self.rules.holes() + action
    }

    /// The legal actions as bits: bit `a` is set when action `a` is legal. Empty exactly when the
    /// game is over (terminated or truncated). Endless moves are never legal.
    #[inline]
    pub fn legal_mask(&self) -> u16 {
        self.legal
    }
    /// Actions whose hole has seeds but whose sowing is endless, as bits.
    #[inline]
    pub fn endless_mask(&self) -> u16 {
        self.endless
    }
    /// Whether action `action` is legal now.
    #[inline]
    pub fn is_legal(&self, action: usize) -> bool {
        action < 16 && self.legal >> action & 1 == 1
    }
    /// The legal actions, lowest first.
    pub fn legal_actions(&self) -> LegalActions {
        LegalActions(self.legal)
    }
    /// The number of legal actions.
    #[inline]
    pub fn legal_count(&self) -> usize {
        self.legal.count_ones() as usize
    }
    /// Write the mask as one bool per action into `out` (length `holes()`).
    #[inline]
    pub fn write_mask(&self, out: &mut [bool]) {
        let legal = self.legal as u32;
        for (a, slot) in out.iter_mut().enumerate() {
            *slot = legal >> a & 1 == 1;
        }
    }

    /// How the game stands.
    pub fn outcome(&self) -> Outcome {
        match self.status {
            Status::Ongoing => Outcome::Ongoing,
            Status::Truncated => Outcome::Truncated,
            Status::Ended => match self.captured[0].cmp(&self.captured[1]) {
                std::cmp::Ordering::Greater => Outcome::Won(Player::South),
                std::cmp::Ordering::Less => Outcome::Won(Player::North),
                std::cmp::Ordering::Equal => Outcome::Draw,
            },
        }
    }
    /// Whether the game has ended by the rules (Gymnasium's `terminated`).
    #[inline]
    pub fn is_terminal(&self) -> bool {
        self.status == Status::Ended
    }
    /// Whether the game was cut off at `max_plies` (Gymnasium's `truncated`).
    #[inline]
    pub fn is_truncated(&self) -> bool {
        self.status == Status::Truncated
    }
    /// Whether no more moves can be played: terminal or truncated.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.status != Status::Ongoing
    }
    /// The winner of an ended game; `None` while it goes on, and on a draw or truncation.
    pub fn winner(&self) -> Option<Player> {
        match self.outcome() {
            Outcome::Won(p) => Some(p),
            _ => None,
        }
    }

    /// Play `action` (the mover's hole counted from their own left) and return the next state.
    ///
    /// Errors: [`Error::ActionOutOfRange`] outside `0..holes()`, [`Error::GameOver`] after the end
    /// or a truncation, [`Error::IllegalAction`] for an empty hole or an endless move. `self` is
    /// never changed.
    pub fn play(&self, action: usize) -> Result<State, Error> {
        self.play_with_info(action).map(|(s, _)| s)
    }

    /// [`State::play`], also telling what the move did.
    pub fn play_with_info(&self, action: usize) -> Result<(State, MoveInfo), Error> {
        self.check(action)?;
        Ok(self.apply(action))
    }

    /// Check `action` as [`State::play`] does, without playing it.
    pub fn check(&self, action: usize) -> Result<(), Error> {
        let n = self.rules.holes();
        if action >= n {
            return Err(Error::ActionOutOfRange {
                action: action as i128,
                holes: n,
            });
        }
        if self.is_over() {
            return Err(Error::GameOver {
                outcome: self.outcome(),
            });
        }
        if !self.is_legal(action) {
            let reason = if self.board.get(self.hole_of(action)) == 0 {
                IllegalReason::EmptyHole
            } else {
                IllegalReason::Endless
            };
            return Err(Error::IllegalAction {
                action,
                reason,
                legal: self.legal_actions().collect(),
            });
        }
        Ok(())
    }

    /// Play a legal action without checking it: for search loops that take actions from
    /// [`State::legal_mask`].
    ///
    /// # Panics
    /// In debug builds, if `action` is not legal. In release builds an illegal action gives a
    /// meaningless state.
    #[inline]
    pub fn play_unchecked(&self, action: usize) -> State {
        debug_assert!(
            self.is_legal(action),
            "play_unchecked with illegal action {action}"
        );
        self.apply(action).0
    }

    /// Play a legal `action`, using the sowing kept in `sown` when it is this state's, and refill
    /// `sown` with the sowings of the next state's legal moves. The next state is the same as
    /// [`State::play_unchecked`]'s; only the work differs: a move costs one sowing less.
    ///
    /// `sown` is checked against this state, so passing one filled for another state (or a new
    /// one) is safe: the move is then sown afresh. Fill it for a state with [`State::sow_legal`].
    ///
    /// # Panics
    /// In debug builds, if `action` is not legal. In release builds an illegal action gives a
    /// meaningless state.
    #[inline]
    pub fn play_sown(&self, action: usize, sown: &mut SownMoves) -> State {
        debug_assert!(
            self.is_legal(action),
            "play_sown with illegal action {action}"
        );
        let (board, last) = match sown.get(&self.board, self.to_move, &self.rules, action) {
            Some(kept) => kept,
            None => self.sow_move(action).0,
        };
        let (board, captured, _) = self.capture(board, last);
        State::settled_keeping(
            self.rules,
            board,
            captured,
            !self.to_move,
            self.ply + 1,
            sown,
        )
    }

    /// The seeds each legal action would capture now (0 for the others), from the sowings kept
    /// in `sown` where they are this state's, sowing afresh otherwise. With the `sown` that
    /// [`State::play_sown`] leaves, a one-move look-ahead costs no sowing at all.
    pub fn move_captures(&self, sown: &SownMoves) -> [u8; MAX_HOLES] {
        let mut out = [0u8; MAX_HOLES];
        for a in self.legal_actions() {
            let (board, last) = match sown.get(&self.board, self.to_move, &self.rules, a) {
                Some(kept) => kept,
                None => self.sow_move(a).0,
            };
            out[a] = self.capture(board, last).2 as u8;
        }
        out
    }

    /// The board after legal `action`, sown and captured, and the seeds it captured, without
    /// settling the next position: no mask is worked out for it and no end-of-game sweep made.
    /// For tools that visit positions by the million and settle them their own way (tablebases),
    /// for which [`State::play`] would also sow every move of the next position.
    ///
    /// # Panics
    /// In debug builds, if `action` is not legal. In release builds an illegal action gives a
    /// meaningless board.
    #[inline]
    pub fn play_board(&self, action: usize) -> (Board, u32) {
        debug_assert!(
            self.is_legal(action),
            "play_board with illegal action {action}"
        );
        let ((board, last), _, _) = self.sow_move(action);
        let (board, _, taken) = self.capture(board, last);
        (board, taken)
    }

    /// [`State::play_board`], taking the sowing from `sown` where it holds this state's (as
    /// [`State::new_sown`] and [`State::play_sown`] leave it), sowing afresh otherwise.
    ///
    /// # Panics
    /// In debug builds, if `action` is not legal.
    #[inline]
    pub fn play_board_sown(&self, action: usize, sown: &SownMoves) -> (Board, u32) {
        debug_assert!(
            self.is_legal(action),
            "play_board_sown with illegal action {action}"
        );
        let (board, last) = match sown.get(&self.board, self.to_move, &self.rules, action) {
            Some(kept) => kept,
            None => self.sow_move(action).0,
        };
        let (board, _, taken) = self.capture(board, last);
        (board, taken)
    }

    /// Fill `sown` with the sowings of this state's legal moves, for [`State::play_sown`].
    pub fn sow_legal(&self, sown: &mut SownMoves) {
        legal_and_endless(&self.board, self.to_move, &self.rules, sown);
    }

    /// Sow legal `action`: the board after sowing, the hole of the last seed, laps and seeds sown.
    #[inline(always)]
    fn sow_move(&self, action: usize) -> ((Board, usize), u32, u32) {
        let mut board = self.board;
        match sow(&mut board, self.hole_of(action), &self.rules) {
            Sowing::Ended { last, laps, sown } => ((board, last), laps, sown),
            Sowing::Endless { .. } => unreachable!("an endless move is never legal"),
        }
    }

    /// The capture of a move whose last seed fell into `last` of the sown `board`: the board and
    /// captures after it, and the seeds taken.
    #[inline(always)]
    fn capture(&self, mut board: Board, last: usize) -> (Board, [u8; 2], u32) {
        let n = self.rules.holes();
        let mover = self.to_move;
        let mut captured = self.captured;
        let mut taken = 0;
        let own = mover.index() * n;
        if last >= own && last < own + n {
            let facing = 2 * n - 1 - last;
            let prize = board.get(facing) as u32;
            if prize > 0 {
                board.set(facing, 0);
                taken = prize;
                if self.rules.trigger() == Trigger::Take {
                    board.set(last, 0);
                    taken += 1;
                }
                captured[mover.index()] += taken as u8;
            }
        }
        (board, captured, taken)
    }

    #[inline]
    fn apply(&self, action: usize) -> (State, MoveInfo) {
        let ((board, last), laps, sown) = self.sow_move(action);
        let (board, captured, taken) = self.capture(board, last);
        let next = State::settled(self.rules, board, captured, !self.to_move, self.ply + 1);
        (
            next,
            MoveInfo {
                laps,
                sown,
                captured: taken,
                last,
            },
        )
    }

    /// The board drawn for people, as in `RULES.md`: North's row on top, read right to left.
    pub fn render(&self) -> String {
        let n = self.rules.holes();
        let mut s = String::new();
        let numbers = |range: &mut dyn Iterator<Item = usize>| -> String {
            range.map(|i| format!("{i:>4}")).collect::<String>()
        };
        let seeds = |range: &mut dyn Iterator<Item = usize>| -> String {
            range
                .map(|i| format!("{:>4}", self.board.get(i)))
                .collect::<String>()
        };
        s.push_str(&format!("        {}\n", numbers(&mut (n..2 * n).rev())));
        s.push_str(&format!(
            "North  {}   captured {}\n",
            seeds(&mut (n..2 * n).rev()),
            self.captured[1]
        ));
        s.push_str(&format!(
            "South  {}   captured {}\n",
            seeds(&mut (0..n)),
            self.captured[0]
        ));
        s.push_str(&format!("        {}\n", numbers(&mut (0..n))));
        match self.outcome() {
            Outcome::Ongoing => {
                let legal: Vec<String> = self.legal_actions().map(|a| a.to_string()).collect();
                s.push_str(&format!(
                    "ply {}: {} to move (action a lifts hole {}+a); legal actions: {}\n",
                    self.ply,
                    self.to_move,
                    self.to_move.index() * n,
                    legal.join(" ")
                ));
            }
            outcome => s.push_str(&format!("ply {}: game over, {outcome}\n", self.ply)),
        }
        s
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("board", &self.cells())
            .field("captured", &self.captured)
            .field("to_move", &self.to_move)
            .field("ply", &self.ply)
            .field("outcome", &self.outcome())
            .field("legal", &self.legal_actions().collect::<Vec<_>>())
            .finish()
    }
}

/// The legal actions of a state, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct LegalActions(u16);

impl Iterator for LegalActions {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let a = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(a)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let k = self.0.count_ones() as usize;
        (k, Some(k))
    }
}

impl ExactSizeIterator for LegalActions {}

/// The serialised form of a state: its parts, from which the mask and the outcome are rebuilt.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateSpec {
    rules: Rules,
    board: Vec<u8>,
    captured: ByPlayer<u8>,
    to_move: Player,
    ply: u32,
}

impl Serialize for State {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        StateSpec {
            rules: self.rules,
            board: self.cells(),
            captured: self.captures(),
            to_move: self.to_move,
            ply: self.ply,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for State {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<State, D::Error> {
        let s = StateSpec::deserialize(deserializer)?;
        State::new(&s.rules, &s.board, s.captured, s.to_move, s.ply)
            .map_err(serde::de::Error::custom)
    }
}

impl State {
    /// The state as JSON (rules, board, captured, player to move, ply).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("states always serialise")
    }
    /// A state from [`State::to_json`]'s form, checked as [`State::new`] checks.
    pub fn from_json(text: &str) -> Result<State, Error> {
        serde_json::from_str(text).map_err(|e| Error::parse("JSON", e))
    }
}
