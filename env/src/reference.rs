//! The rules of `RULES.md` as plain code, to be read top to bottom beside it: a move lifts a
//! hole, sows it seed by seed, relays from where the last seed falls, is endless when it has not
//! ended after `max_laps` laps, captures by the trigger, and the game ends with the sweep of the
//! seeds left on the board.
//!
//! It is slow on purpose: a `Vec` of holes, one seed dropped at a time, laps counted to the cap.
//! The engine ([`State`](crate::State)) packs the board into words, looks laps up in tables and
//! detects endless moves by their cycles; the tests play both side by side over many random games
//! and scattered positions (`env/tests/reference.rs`) and require them to agree on everything.

use crate::outcome::Outcome;
use crate::player::{ByPlayer, Player};
use crate::rules::Rules;
use crate::switches::{Direction, Trigger};

/// A position as the rules describe it, with what they say about it: the legal and endless
/// moves of the player to move, and how the game stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The rules the game is played by.
    pub rules: Rules,
    /// Seeds in holes `0..2n`: South's row `0..n`, North's `n..2n`, in sowing order.
    pub board: Vec<u8>,
    /// Seeds each player has captured.
    pub captured: ByPlayer<u8>,
    /// The player to move.
    pub to_move: Player,
    /// Moves played since the start.
    pub ply: u32,
    /// Bit `a` set when action `a` is legal.
    pub legal: u16,
    /// Bit `a` set when action `a` has seeds but its sowing is endless.
    pub endless: u16,
    /// How the game stands.
    pub outcome: Outcome,
}

/// A sowing that ended: the board after it (before any capture), where the last seed fell, and
/// the laps and seeds it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sown {
    /// The board after the last lap.
    pub board: Vec<u8>,
    /// The hole the last seed fell into: it was empty.
    pub last: usize,
    /// Laps sown, the first included.
    pub laps: u32,
    /// Seeds sown over all laps.
    pub sown: u32,
}

/// What a move did, as [`MoveInfo`](crate::MoveInfo) tells it for the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// Laps sown, the first included.
    pub laps: u32,
    /// Seeds sown over all laps.
    pub sown: u32,
    /// Seeds captured, the capturing seed included under `take`.
    pub captured: u32,
    /// The hole the last seed fell into.
    pub last: usize,
}

/// A move, steps 1 to 4: lift every seed of hole `origin`, sow them one by one into the
/// following holes, and relay while the last seed falls into a hole that held seeds. `None`
/// when the sowing has not ended after `max_laps` laps: the move is endless.
pub fn sow(board: &[u8], origin: usize, rules: &Rules) -> Option<Sown> {
    let ring = board.len();
    let mut board = board.to_vec();
    let mut hole = origin;
    let (mut laps, mut sown) = (0, 0);
    loop {
        // Lift.
        let mut hand = board[hole];
        board[hole] = 0;
        laps += 1;
        sown += u32::from(hand);
        // Cross-Endodoi sows a lap of an odd number of seeds clockwise.
        let clockwise = rules.direction() == Direction::Parity && hand % 2 == 1;
        // Sow: one seed into each following hole, passing over the emptied hole when
        // `skip_origin` is set and the lap goes all the way round.
        let mut at = hole;
        while hand > 0 {
            at = if clockwise {
                (at + ring - 1) % ring
            } else {
                (at + 1) % ring
            };
            if rules.skip_origin() && at == hole {
                continue;
            }
            board[at] += 1;
            hand -= 1;
        }
        // The move ends when the last seed falls into a hole that was empty.
        if board[at] == 1 {
            return Some(Sown {
                board,
                last: at,
                laps,
                sown,
            });
        }
        // Endless moves: a sowing that has not ended after `max_laps` laps never does.
        if laps >= rules.max_laps() {
            return None;
        }
        // Relay: a new lap lifts the hole the last seed fell into, that seed included.
        hole = at;
    }
}

/// Step 5, capture: if the last seed fell into the mover's own row and the facing hole holds
/// seeds, they are captured, and under `take` the capturing seed with them. Returns the seeds
/// taken off `board`.
pub fn capture(board: &mut [u8], last: usize, mover: Player, rules: &Rules) -> u32 {
    let n = rules.holes();
    let facing = 2 * n - 1 - last;
    let in_own_row = last / n == mover.index();
    if !in_own_row || board[facing] == 0 {
        return 0;
    }
    let mut taken = u32::from(board[facing]);
    board[facing] = 0;
    if rules.trigger() == Trigger::Take {
        // The capturing seed, alone in its hole, goes with them.
        taken += 1;
        board[last] = 0;
    }
    taken
}

impl Position {
    /// The start: every hole holds `rules.seeds()`, South to move.
    pub fn initial(rules: &Rules) -> Position {
        let board = vec![rules.seeds() as u8; 2 * rules.holes()];
        Position::new(rules, board, ByPlayer::new(0, 0), Player::South, 0)
    }

    /// The position with `to_move` to move after `ply` moves, with its legal moves worked out
    /// and the end of the game applied. `board` must hold `2n` holes.
    pub fn new(
        rules: &Rules,
        mut board: Vec<u8>,
        mut captured: ByPlayer<u8>,
        to_move: Player,
        ply: u32,
    ) -> Position {
        // A move is legal when its hole holds seeds and its sowing ends.
        let n = rules.holes();
        let (mut legal, mut endless) = (0u16, 0u16);
        for a in 0..n {
            let hole = to_move.index() * n + a;
            if board[hole] > 0 {
                match sow(&board, hole, rules) {
                    Some(_) => legal |= 1 << a,
                    None => endless |= 1 << a,
                }
            }
        }
        let outcome = if legal == 0 {
            // End of the game: the seeds left go to the player who made the last move, and the
            // one with more captured seeds wins.
            let left: u32 = board.iter().map(|&c| u32::from(c)).sum();
            captured[!to_move] += left as u8;
            board.iter_mut().for_each(|c| *c = 0);
            match captured.south.cmp(&captured.north) {
                std::cmp::Ordering::Greater => Outcome::Won(Player::South),
                std::cmp::Ordering::Less => Outcome::Won(Player::North),
                std::cmp::Ordering::Equal => Outcome::Draw,
            }
        } else if ply >= rules.max_plies() {
            // Truncation: no winner, and no move left to play.
            legal = 0;
            Outcome::Truncated
        } else {
            Outcome::Ongoing
        };
        Position {
            rules: *rules,
            board,
            captured,
            to_move,
            ply,
            legal,
            endless,
            outcome,
        }
    }

    /// Play `action` (the mover's hole counted from their left): sow, capture, and pass the turn.
    /// `None` when the action is not legal.
    pub fn play(&self, action: usize) -> Option<(Position, Played)> {
        if action >= 16 || self.legal >> action & 1 == 0 {
            return None;
        }
        let rules = &self.rules;
        let origin = self.to_move.index() * rules.holes() + action;
        let sown = sow(&self.board, origin, rules)?;
        let mut board = sown.board;
        let mut captured = self.captured;
        let taken = capture(&mut board, sown.last, self.to_move, rules);
        captured[self.to_move] += taken as u8;
        let next = Position::new(rules, board, captured, !self.to_move, self.ply + 1);
        let played = Played {
            laps: sown.laps,
            sown: sown.sown,
            captured: taken,
            last: sown.last,
        };
        Some((next, played))
    }
}
