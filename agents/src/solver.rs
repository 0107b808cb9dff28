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

use crate::hash::state_key;
use crate::stop::Stop;
use sowing_env::{MAX_HOLES, Outcome, State};

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

/// What a bounded search proved about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    /// A move that forces a win, and within how many plies (the move included).
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
        }
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
        self.deepen(state, budget, max_depth, true)
    }

    /// As [`Solver::prove`], but only looking for a win: each depth costs about a sixth of what
    /// it costs `prove`, which also searches every move's refutations one depth further.
    pub fn prove_win(&mut self, state: &State, budget: u64, max_depth: u32) -> Proof {
        self.deepen(state, budget, max_depth, false)
    }

    fn deepen(&mut self, state: &State, budget: u64, max_depth: u32, losing: bool) -> Proof {
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
        let legal = state.legal_mask();
        // The mover's wins end on the mover's own moves (odd plies), the opponent's on theirs.
        let mut depth = 1;
        'deepen: while depth <= max_depth {
            match self.wins(state, depth) {
                Err(Stopped) => break,
                Ok(true) => {
                    let slot = self.table[self.index(state_key(state))];
                    proof.winning = Some((usize::from(slot.action), u32::from(slot.win_within)));
                    proof.depth = depth;
                    break;
                }
                Ok(false) => {}
            }
            for a in state.legal_actions().filter(|_| losing) {
                if proof.losing >> a & 1 == 1 {
                    continue;
                }
                let child = state.play_unchecked(a);
                let lost = match child.outcome() {
                    Outcome::Won(p) => p != state.to_move(),
                    Outcome::Draw | Outcome::Truncated => false,
                    Outcome::Ongoing => match self.wins(&child, depth + 1) {
                        Ok(lost) => lost,
                        Err(Stopped) => break 'deepen,
                    },
                };
                if lost {
                    proof.losing |= 1 << a;
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

    fn index(&self, key: u64) -> usize {
        key as usize & self.mask
    }

    /// Whether the player to move at `state` (a game not over) forces a win within `depth` plies.
    fn wins(&mut self, state: &State, depth: u32) -> Result<bool, Stopped> {
        if depth == 0 {
            return Ok(false);
        }
        let key = state_key(state);
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
                Outcome::Won(p) => p == me,
                Outcome::Draw | Outcome::Truncated => false,
                Outcome::Ongoing => depth > 1 && self.all_lose(&child, depth - 1)?,
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
    /// force a win within `depth` plies of `state`.
    fn all_lose(&mut self, state: &State, depth: u32) -> Result<bool, Stopped> {
        let me = state.to_move();
        let (children, count) = ordered_children(state, false, 0);
        for &(_, child) in &children[..count] {
            self.count_node()?;
            let lost = match child.outcome() {
                Outcome::Won(p) => p != me,
                Outcome::Draw | Outcome::Truncated => false,
                Outcome::Ongoing => self.wins(&child, depth - 1)?,
            };
            if !lost {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The children of `state`, most promising for its mover first: the stored best move, then
/// moves that win at once, then by captures gained.
fn ordered_children(
    state: &State,
    has_hint: bool,
    hint: u8,
) -> ([(usize, State); MAX_HOLES], usize) {
    let me = state.to_move();
    let mut children = [(0usize, *state); MAX_HOLES];
    let mut scores = [0i32; MAX_HOLES];
    let mut count = 0;
    for a in state.legal_actions() {
        let child = state.play_unchecked(a);
        let mut score = match child.outcome() {
            Outcome::Won(p) if p == me => 1_000_000,
            Outcome::Won(_) => -1_000_000,
            _ => 0,
        } + i32::from(child.captured(me))
            - i32::from(state.captured(me));
        if has_hint && usize::from(hint) == a {
            score += 2_000_000;
        }
        // Insertion sort: at most ten children.
        let mut at = count;
        while at > 0 && scores[at - 1] < score {
            scores[at] = scores[at - 1];
            children[at] = children[at - 1];
            at -= 1;
        }
        scores[at] = score;
        children[at] = (a, child);
        count += 1;
    }
    (children, count)
}
