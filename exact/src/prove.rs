//! An exact solver: proves, by AND-OR search to the end of the game, that the player to move can
//! force a win and with which move, or that a move loses whatever the mover does after it.
//!
//! Relay sowing makes the endgame chaotic: where a move's last seed lands depends on every hole,
//! so a network or a static evaluation misjudges positions that a search to the end settles. Few
//! seeds are left there and games are short, so proofs are cheap. The search is iterative
//! deepening on the number of plies (a win found within `d` plies is a proof at any depth); it
//! stops when its node budget is spent, keeping every proof it completed.
//!
//! Proofs ignore nothing: a truncated game is a draw, never a win, and the transposition table's
//! key is the whole [`State`], ply included, so a proof holds for exactly the position stored.
//!
//! **Margins.** A win is a final lead of at least one seed; [`Solver::prove_margin`] asks the
//! same of any lead, `at_least` seeds (captured by the mover minus the opponent's at the end of
//! the game, from the start of the game, not from the position), which brackets the margin a
//! player forces.
//!
//! **With a tablebase** ([`Solver::with_tablebase`]), a position the table holds is decided at
//! once, at any depth: the mover forces a lead of `t` exactly when the table's bound `low` (play
//! that never ends counting against them) plus the lead so far reaches `t`. Such a decision holds
//! at every depth, so it is never stored with one: the transposition table keeps only what was
//! searched, and a proof "within `d` plies" then means within `d` plies of positions the table
//! decides. Like the table, those decisions ignore the ply cap.

use crate::hash::state_key;
use crate::stop::Stop;
use crate::tablebase::{Probe, Tablebase};
use sowing_env::{MAX_HOLES, Outcome, Player, State};
use std::sync::Arc;

/// Positions in the default transposition table: 2^20 slots of 16 bytes, 16 MiB.
pub const DEFAULT_TABLE_BITS: u32 = 20;

/// A searching player's endgame solver (the agent `az:` and the Python network agents):
/// its default budget per move, in positions.
pub const SOLVER_NODES: u64 = 200_000;

/// The solver runs when at most this many seeds are on the board. With [`SOLVER_NODES`] it proves
/// a win or a lost move in 92% of en-dodoi-6 positions with 8 to 15 seeds left, 40% with 16 to
/// 23, 13% with 24 to 31 and none with more; above, it would only cost time.
pub const SOLVER_SEEDS: u32 = 24;

/// The largest solver budget a player accepts, per move.
pub const MAX_SOLVER_NODES: u64 = 1_000_000_000;

/// A player's solver table: 2^18 slots, 4 MiB, kept through a game (its proofs stay true).
pub const SOLVER_TABLE_BITS: u32 = 18;

/// The deepest a player's solver searches, in plies: far beyond any endgame its budget can prove.
pub const SOLVER_DEPTH: u32 = 999;

/// What a bounded search proved about a position. For [`Solver::prove_margin`], "win" reads "a
/// final lead of at least `at_least`", and "lose" "a final lead below it".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    /// A move that forces a win, and within how many plies (the move included; with a tablebase,
    /// plies to a position it decides, 0 when it decides the position itself).
    pub winning: Option<(usize, u32)>,
    /// Bit `a` set when action `a` is proven to lose: after it, the opponent forces a win.
    pub losing: u16,
    /// The deepest search completed, in plies.
    pub depth: u32,
    /// Positions made.
    pub nodes: u64,
}

impl Proof {
    /// True when every legal move of `state` is proven to lose.
    pub fn lost(&self, state: &State) -> bool {
        let legal = state.legal_mask();
        legal != 0 && self.losing & legal == legal
    }
}

/// One slot of the table: what is known of the mover's chances to force a win.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    /// The mover forces a win within this many plies (`u16::MAX`: not proven).
    win_within: u16,
    /// The mover cannot force a win within this many plies (0: nothing known).
    no_win_within: u16,
    /// The winning move, when `win_within` holds one.
    action: u8,
}

/// Out of budget, or told to stop: the search stopped before settling the question.
struct Stopped;

/// Positions between two questions to the [`Stop`].
const ASK_EVERY: u64 = 4096;

/// The solver: a transposition table kept between searches, and a node budget per search.
pub struct Solver {
    table: Vec<Slot>,
    mask: usize,
    nodes: u64,
    budget: u64,
    /// Node count at which the search next asks `stop`.
    next_ask: u64,
    stop: Stop,
    /// Decides the positions it holds.
    tablebase: Option<Arc<Tablebase>>,
    /// The table decides only positions with fewer seeds on the board (`u32::MAX`: all it
    /// holds); [`Solver::converting_move`] sets it to search the root's layer.
    decide_below: u32,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("table_slots", &self.table.len())
            .finish_non_exhaustive()
    }
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new(DEFAULT_TABLE_BITS)
    }
}

impl Solver {
    /// A solver with a table of `2^table_bits` slots (16 bytes each).
    pub fn new(table_bits: u32) -> Solver {
        let size = 1usize << table_bits.clamp(4, 32);
        Solver {
            table: vec![Slot::default(); size],
            mask: size - 1,
            nodes: 0,
            budget: 0,
            next_ask: 0,
            stop: Stop::never(),
            tablebase: None,
            decide_below: u32::MAX,
        }
    }

    /// The same solver deciding every position `table` holds at once (see the module
    /// documentation). Positions of rules whose game tree differs from the table's are searched
    /// as without it.
    pub fn with_tablebase(mut self, table: Arc<Tablebase>) -> Solver {
        self.clear();
        self.tablebase = Some(table);
        self
    }

    /// Ask `stop` during every later search, and end the search when it says so, as when its
    /// budget is spent: the proof keeps what was completed before.
    pub fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }

    /// Forget every stored result (they stay true; this only frees the slots).
    pub fn clear(&mut self) {
        self.table.fill(Slot::default());
    }

    /// Search `state` with iterative deepening until `max_depth` plies or `budget` positions:
    /// a winning move if one is found, and the moves proven to lose.
    pub fn prove(&mut self, state: &State, budget: u64, max_depth: u32) -> Proof {
        self.deepen(state, 1, Some(1), budget, max_depth)
    }

    /// As [`Solver::prove`], but only looking for a win: each depth costs about a sixth of what
    /// it costs `prove`, which also searches every move's refutations one depth further.
    pub fn prove_win(&mut self, state: &State, budget: u64, max_depth: u32) -> Proof {
        self.deepen(state, 1, None, budget, max_depth)
    }

    /// As [`Solver::prove`] for a final lead of at least `at_least` seeds in place of a win (1):
    /// a move that forces it, and the moves after which the opponent holds the mover below it.
    /// With `refutations` false, only the forcing move is looked for, as by
    /// [`Solver::prove_win`].
    pub fn prove_margin(
        &mut self,
        state: &State,
        at_least: i32,
        budget: u64,
        max_depth: u32,
        refutations: bool,
    ) -> Proof {
        // The opponent's lead of 1 - at_least is the mover's of at_least - 1.
        let refute = refutations.then_some(1 - at_least);
        self.deepen(state, at_least, refute, budget, max_depth)
    }

    /// Iterative deepening: a move that forces a lead of `target`, and, given `refute`, the
    /// moves after which the opponent forces a lead of `refute`.
    fn deepen(
        &mut self,
        state: &State,
        target: i32,
        refute: Option<i32>,
        budget: u64,
        max_depth: u32,
    ) -> Proof {
        self.nodes = 0;
        self.next_ask = 0;
        self.budget = budget;
        let mut proof = Proof {
            winning: None,
            losing: 0,
            depth: 0,
            nodes: 0,
        };
        if state.is_over() {
            return proof;
        }
        if let Some(decided) = self.decide_root(state, target, refute) {
            return decided;
        }
        let legal = state.legal_mask();
        // The mover's wins end on the mover's own moves (odd plies), the opponent's on theirs.
        let mut depth = 1;
        'deepen: while depth <= max_depth {
            match self.wins(state, depth, target) {
                Err(Stopped) => break,
                Ok(true) => {
                    let slot = self.table[self.index(self.slot_key(state, target))];
                    proof.winning = Some((usize::from(slot.action), u32::from(slot.win_within)));
                    proof.depth = depth;
                    break;
                }
                Ok(false) => {}
            }
            if let Some(refute) = refute {
                for a in state.legal_actions() {
                    if proof.losing >> a & 1 == 1 {
                        continue;
                    }
                    let child = state.play_unchecked(a);
                    let lost = match child.outcome() {
                        Outcome::Ongoing => match self.wins(&child, depth + 1, refute) {
                            Ok(lost) => lost,
                            Err(Stopped) => break 'deepen,
                        },
                        _ => ended_with(&child, child.to_move(), refute),
                    };
                    if lost {
                        proof.losing |= 1 << a;
                    }
                }
            }
            proof.depth = depth;
            if proof.losing & legal == legal {
                break;
            }
            depth += 2;
        }
        proof.nodes = self.nodes;
        proof
    }

    /// Count one position made; stop when the budget is spent or `stop` says so.
    #[inline]
    fn count_node(&mut self) -> Result<(), Stopped> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(Stopped);
        }
        if self.nodes >= self.next_ask {
            self.next_ask = self.nodes + ASK_EVERY;
            if self.stop.requested() {
                return Err(Stopped);
            }
        }
        Ok(())
    }

    /// The transposition-table key of "the mover at `state` forces a lead of `target`" (with the
    /// table deciding below `decide_below` seeds).
    fn slot_key(&self, state: &State, target: i32) -> u64 {
        state_key(state)
            ^ (target as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ u64::from(self.decide_below).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
    }

    fn index(&self, key: u64) -> usize {
        key as usize & self.mask
    }

    /// In a position the tablebase holds and gives as won, the first move of the shortest line
    /// that forces play out of the position's layer (a capture, by either player, or the end of
    /// the game) with the mover still winning by the most they can force: `low` plus the lead so
    /// far. `None` for a position not held or not won, or when `budget` positions do not find
    /// the line.
    ///
    /// A table holds no distance to the end, so a player who only keeps the result may go round
    /// a cycle for ever with an opponent who is glad of it (a truncated game has no winner). Each
    /// move of this line shortens the next one, and each capture leaves the layer for good: play
    /// that follows it wins.
    pub fn converting_move(&mut self, state: &State, budget: u64) -> Option<usize> {
        let (probe, so_far) = self.probe(state)?;
        if state.is_over() || probe.low == Probe::UNBOUNDED_LOW || probe.low + so_far <= 0 {
            return None;
        }
        self.decide_below = state.board().sum(0, 2 * state.holes());
        let proof = self.deepen(state, probe.low + so_far, None, budget, CONVERT_DEPTH);
        self.decide_below = u32::MAX;
        proof.winning.map(|(a, _)| a)
    }

    /// What the tablebase decides of `state` (not over), if it holds it: its probe, and the lead
    /// its mover has so far.
    #[inline]
    fn probe(&self, state: &State) -> Option<(Probe, i32)> {
        let table = self.tablebase.as_ref()?;
        if state.board().sum(0, 2 * state.holes()) >= self.decide_below {
            return None;
        }
        let probe = table.probe(state)?;
        Some((probe, lead(state, state.to_move())))
    }

    /// The whole proof of a root the tablebase holds: each move decided by the table.
    fn decide_root(&mut self, state: &State, target: i32, refute: Option<i32>) -> Option<Proof> {
        self.probe(state)?;
        let me = state.to_move();
        let mut proof = Proof {
            winning: None,
            losing: 0,
            depth: 0,
            nodes: 0,
        };
        let mut best_margin = i32::MIN;
        for a in state.legal_actions() {
            let child = state.play_unchecked(a);
            proof.nodes += 1;
            let (forces, refuted, margin) = match child.outcome() {
                Outcome::Ongoing => {
                    let (after, theirs) = self.probe(&child).expect("a move adds no seeds");
                    (
                        forces_against(after, theirs, target),
                        refute.is_some_and(|r| forces(after, theirs, r)),
                        -theirs - after.value,
                    )
                }
                _ => (
                    ended_with(&child, me, target),
                    refute.is_some_and(|r| ended_with(&child, !me, r)),
                    lead(&child, me),
                ),
            };
            if forces && margin > best_margin {
                best_margin = margin;
                proof.winning = Some((a, 0));
            }
            if refuted {
                proof.losing |= 1 << a;
            }
        }
        Some(proof)
    }

    /// Whether the player to move at `state` (a game not over) forces a final lead of `target`
    /// within `depth` plies.
    fn wins(&mut self, state: &State, depth: u32, target: i32) -> Result<bool, Stopped> {
        if let Some((probe, so_far)) = self.probe(state) {
            return Ok(forces(probe, so_far, target));
        }
        if depth == 0 {
            return Ok(false);
        }
        let key = self.slot_key(state, target);
        let at = self.index(key);
        let slot = self.table[at];
        if slot.key == key {
            if u32::from(slot.win_within) <= depth {
                return Ok(true);
            }
            if u32::from(slot.no_win_within) >= depth {
                return Ok(false);
            }
        }
        let me = state.to_move();
        let (children, count) = ordered_children(state, slot.key == key, slot.action);
        let mut winning = None;
        for &(a, child) in &children[..count] {
            self.count_node()?;
            let win = match child.outcome() {
                Outcome::Ongoing => self.all_lose(&child, depth - 1, target)?,
                _ => ended_with(&child, me, target),
            };
            if win {
                winning = Some(a);
                break;
            }
        }
        let stored = &mut self.table[at];
        if stored.key != key {
            *stored = Slot {
                key,
                win_within: u16::MAX,
                no_win_within: 0,
                action: 0,
            };
        }
        let depth16 = depth.min(u32::from(u16::MAX - 1)) as u16;
        match winning {
            Some(a) => {
                if depth16 < stored.win_within {
                    stored.win_within = depth16;
                    stored.action = a as u8;
                }
            }
            None => stored.no_win_within = stored.no_win_within.max(depth16),
        }
        Ok(winning.is_some())
    }

    /// Whether every move of the player to move at `state` (a game not over) lets the opponent
    /// force a final lead of `target` within `depth` plies of `state`.
    fn all_lose(&mut self, state: &State, depth: u32, target: i32) -> Result<bool, Stopped> {
        if let Some((probe, so_far)) = self.probe(state) {
            return Ok(forces_against(probe, so_far, target));
        }
        if depth == 0 {
            return Ok(false);
        }
        let opponent = !state.to_move();
        let (children, count) = ordered_children(state, false, 0);
        for &(_, child) in &children[..count] {
            self.count_node()?;
            let lost = match child.outcome() {
                Outcome::Ongoing => self.wins(&child, depth - 1, target)?,
                _ => ended_with(&child, opponent, target),
            };
            if !lost {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The seeds `player` has captured more than the opponent in `state`.
fn lead(state: &State, player: Player) -> i32 {
    i32::from(state.captured(player)) - i32::from(state.captured(!player))
}

/// Whether the game `state`, which is over, gave `player` a final lead of `target`: a truncated
/// game gives nobody anything.
fn ended_with(state: &State, player: Player, target: i32) -> bool {
    state.is_terminal() && lead(state, player) >= target
}

/// Whether the mover of a position the table values `probe`, `so_far` seeds ahead, forces an end
/// with a lead of `target`: the bound that counts endless play against them must reach it.
fn forces(probe: Probe, so_far: i32, target: i32) -> bool {
    probe.low != Probe::UNBOUNDED_LOW && probe.low + so_far >= target
}

/// Whether the opponent of that mover forces an end with a lead of `target`: the mover's bound
/// that counts endless play for them must stay at `-target` or below.
fn forces_against(probe: Probe, so_far: i32, target: i32) -> bool {
    probe.high != Probe::UNBOUNDED_HIGH && probe.high + so_far <= -target
}

/// The longest line [`Solver::converting_move`] looks for, in plies.
const CONVERT_DEPTH: u32 = 199;

/// The children of `state`, most promising for its mover first: the stored best move, then
/// moves that win at once, then by captures gained.
fn ordered_children(
    state: &State,
    has_hint: bool,
    hint: u8,
) -> ([(usize, State); MAX_HOLES], usize) {
    let me = state.to_move();
    children_by(state, |a, child| {
        let mut score = match child.outcome() {
            Outcome::Won(p) if p == me => 1_000_000,
            Outcome::Won(_) => -1_000_000,
            _ => 0,
        } + i32::from(child.captured(me))
            - i32::from(state.captured(me));
        if has_hint && usize::from(hint) == a {
            score += 2_000_000;
        }
        score
    })
}

/// The children of `state` with their actions, the highest `score(action, child)` first (ties
/// in action order), and how many there are: the move ordering of the exact searches.
pub(crate) fn children_by(
    state: &State,
    score: impl Fn(usize, &State) -> i32,
) -> ([(usize, State); MAX_HOLES], usize) {
    let mut children = [(0usize, *state); MAX_HOLES];
    let mut scores = [0i32; MAX_HOLES];
    let mut count = 0;
    for a in state.legal_actions() {
        let child = state.play_unchecked(a);
        let value = score(a, &child);
        // Insertion sort: at most ten children.
        let mut at = count;
        while at > 0 && scores[at - 1] < value {
            scores[at] = scores[at - 1];
            children[at] = children[at - 1];
            at -= 1;
        }
        scores[at] = value;
        children[at] = (a, child);
        count += 1;
    }
    (children, count)
}
