//! A position's exact result cut into independent searches: the game tree is unrolled a few
//! plies from the root, the distinct positions at that depth (the frontier) are settled each on
//! its own, anywhere (threads here, Ray tasks from Python), and the root's result and each root
//! move's result follow by minimax over the frontier's results.
//!
//! **Why the combination is exact.** A position's perfect-play result is the best, for its mover,
//! of its children's results; this holds of the game's values whatever cycles lie below, since
//! each child's result is that of the child as a position of its own (the result search settles
//! every frontier position from an empty line). The unrolled part is a tree, not a graph, so a
//! position met twice above the frontier is just unrolled twice. A frontier position the budget
//! does not settle leaves unsettled exactly the ancestors whose result depends on it: a mover
//! with a winning child wins whatever their other children are.
//!
//! Every frontier position is settled by a search cleared before it, so its result, and the
//! combined one, are the same however the frontier is dealt out.

use crate::searches;
use crate::tablebase::Tablebase;
use crate::value::ResultSearch;
use crate::wdl::Wdl;
use sowing_env::{Board, Player, State};
use std::collections::HashMap;
use std::sync::Arc;

/// The deepest a split unrolls the tree.
pub const MAX_DEPTH: u32 = 6;

/// The most frontier positions a split holds.
pub const MAX_FRONTIER: usize = 1 << 20;

/// A root position unrolled to a depth, and the distinct positions there still to settle.
#[derive(Clone, Debug)]
pub struct Split {
    root: State,
    depth: u32,
    frontier: Vec<State>,
    /// The frontier index of each position by its key.
    index: HashMap<Key, usize>,
}

/// What a split's frontier results give: the root's result for its mover and each legal root
/// move's result for the same player (`None`: not settled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combined {
    pub result: Option<Wdl>,
    pub moves: Vec<(usize, Option<Wdl>)>,
    /// Frontier positions settled, of all.
    pub settled: usize,
    pub frontier: usize,
}

/// What a frontier position is known by: board, captures and mover (what a result depends on;
/// not the ply).
type Key = (Board, u8, u8, Player);

fn key(state: &State) -> Key {
    let c = state.captures();
    (*state.board(), c.south, c.north, state.to_move())
}

impl Split {
    /// `root` unrolled `depth` plies (1 to [`MAX_DEPTH`]); refused, with the reason, when the
    /// game is over at the root or the frontier would hold more than [`MAX_FRONTIER`] positions.
    pub fn new(root: &State, depth: u32) -> Result<Split, String> {
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(format!(
                "a split unrolls 1 to {MAX_DEPTH} plies, not {depth}"
            ));
        }
        if root.is_over() {
            return Err(format!("the game is over at the root ({})", root.outcome()));
        }
        let mut split = Split {
            root: *root,
            depth,
            frontier: Vec::new(),
            index: HashMap::new(),
        };
        split.unroll(root, depth)?;
        Ok(split)
    }

    fn unroll(&mut self, state: &State, left: u32) -> Result<(), String> {
        if state.is_over() {
            return Ok(());
        }
        if left == 0 {
            let k = key(state);
            if !self.index.contains_key(&k) {
                if self.frontier.len() == MAX_FRONTIER {
                    return Err(format!(
                        "more than {MAX_FRONTIER} positions {} plies deep: unroll fewer",
                        self.depth
                    ));
                }
                self.index.insert(k, self.frontier.len());
                self.frontier.push(*state);
            }
            return Ok(());
        }
        for a in state.legal_actions() {
            self.unroll(&state.play_unchecked(a), left - 1)?;
        }
        Ok(())
    }

    /// The root.
    pub fn root(&self) -> &State {
        &self.root
    }

    /// The plies unrolled.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The distinct positions to settle, in a fixed order (the unrolling's, lowest action first).
    pub fn frontier(&self) -> &[State] {
        &self.frontier
    }

    /// The result of frontier position `i` for its mover, by a search cleared first, within
    /// `budget` positions (`None`: not settled).
    pub fn settle(&self, i: usize, search: &mut ResultSearch, budget: u64) -> Option<Wdl> {
        search.clear();
        search.result(&self.frontier[i], budget)
    }

    /// Settle the whole frontier here, on `threads` threads, each search with `2^table_bits`
    /// slots and `table` at its leaves: the same results as any other dealing of the frontier.
    pub fn settle_all(
        &self,
        threads: usize,
        table_bits: u32,
        table: Option<&Arc<Tablebase>>,
        budget: u64,
    ) -> Vec<Option<Wdl>> {
        let order: Vec<usize> = (0..self.frontier.len()).collect();
        searches::map(threads, table_bits, table, &order, |_, &i, search| {
            self.settle(i, search, budget)
        })
    }

    /// The root's result and its moves' from the frontier's `results` (one per frontier position,
    /// in order); refused when their count is not the frontier's.
    pub fn combine(&self, results: &[Option<Wdl>]) -> Result<Combined, String> {
        if results.len() != self.frontier.len() {
            return Err(format!(
                "{} results for a frontier of {} positions",
                results.len(),
                self.frontier.len()
            ));
        }
        let moves: Vec<(usize, Option<Wdl>)> = self
            .root
            .legal_actions()
            .map(|a| {
                let child = self.root.play_unchecked(a);
                (
                    a,
                    self.value(&child, self.depth - 1, results).map(Wdl::flip),
                )
            })
            .collect();
        Ok(Combined {
            result: best(moves.iter().map(|&(_, r)| r)),
            moves,
            settled: results.iter().filter(|r| r.is_some()).count(),
            frontier: self.frontier.len(),
        })
    }

    /// The result of `state` for its mover, `left` plies above the frontier.
    fn value(&self, state: &State, left: u32, results: &[Option<Wdl>]) -> Option<Wdl> {
        if state.is_over() {
            return Some(over(state));
        }
        if left == 0 {
            return results[self.index[&key(state)]];
        }
        best(state.legal_actions().map(|a| {
            self.value(&state.play_unchecked(a), left - 1, results)
                .map(Wdl::flip)
        }))
    }
}

/// The result of a game that is over for the player to move (a truncated one is a draw).
fn over(state: &State) -> Wdl {
    match state.winner() {
        Some(p) if p == state.to_move() => Wdl::Win,
        Some(_) => Wdl::Loss,
        None => Wdl::Draw,
    }
}

/// The mover's result from their moves' results: a win if any move wins; otherwise unsettled if
/// any move is; otherwise the best of them.
fn best(results: impl Iterator<Item = Option<Wdl>>) -> Option<Wdl> {
    let mut best = Some(Wdl::Loss);
    let mut any = false;
    for r in results {
        any = true;
        match r {
            Some(Wdl::Win) => return Some(Wdl::Win),
            None => best = None,
            Some(r) => {
                if let Some(b) = best {
                    best = Some(if rank(r) > rank(b) { r } else { b });
                }
            }
        }
    }
    if any { best } else { None }
}

fn rank(r: Wdl) -> u8 {
    match r {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}
