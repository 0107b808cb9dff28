//! Perfect play inside a tablebase, for the agents that are given one (`...:tb=FILE`): the move
//! to play where the table holds the position, and [`TablebaseEvaluator`], which values a search's
//! leaves exactly where it can.
//!
//! A perfect move keeps the position's result (win, draw or loss for the mover, from the table's
//! bounds, so endless play counts as a draw: [`Probe::result`](sowing_exact::tablebase::Probe::result))
//! and, among those, its margin. Keeping the result is not enough to win: a table holds no
//! distance to the end, and a winner who only keeps the result can go round a cycle for ever
//! with an opponent glad of the draw (in 2x3 and 2x4 games between two such players from random
//! positions the tables hold, 0.2% to 4% of the won games were truncated). So a winning player
//! ([`PerfectPlay`]) plays the first move of the shortest line that forces the next capture, or
//! the end, keeping the most it can force ([`Solver::converting_move`]); every capture leaves
//! the layer for good, so such play ends, and wins.
//!
//! Tables ignore the ply cap, and so does this: near `max_plies` a won position may still be
//! truncated.

use crate::evaluator::{Evaluation, Evaluator};
use rand_chacha::ChaCha8Rng;
use sowing_env::{MAX_HOLES, Outcome, State};
use sowing_exact::Wdl;
use sowing_exact::prove::Solver;
use sowing_exact::tablebase::Tablebase;
use std::sync::Arc;

/// One legal move as the table values it.
#[derive(Clone, Copy, Debug)]
struct Valued {
    action: usize,
    /// The mover's result after the move and perfect play.
    result: Wdl,
    /// The seeds the mover captures from the position on, minus the opponent's, after the move.
    margin: i32,
    /// The seeds the move itself captures (the sweep included, if it ends the game).
    gained: i32,
}

/// The legal moves of `state` as the table values them, best first: result, then margin, then
/// seeds gained by the move itself, then the lower action; `None` when the table does not hold
/// the position or the game is over. Allocates nothing: a search calls this at every leaf.
fn ranked(table: &Tablebase, state: &State) -> Option<([Valued; MAX_HOLES], usize)> {
    table.probe(state)?;
    let me = state.to_move();
    let lead = |s: &State| i32::from(s.captured(me)) - i32::from(s.captured(!me));
    let mut moves = [Valued {
        action: 0,
        result: Wdl::Loss,
        margin: 0,
        gained: 0,
    }; MAX_HOLES];
    let mut count = 0;
    for action in state.legal_actions() {
        let child = state.play_unchecked(action);
        let gained = lead(&child) - lead(state);
        let (result, margin) = match child.outcome() {
            Outcome::Won(p) => (if p == me { Wdl::Win } else { Wdl::Loss }, gained),
            Outcome::Draw => (Wdl::Draw, gained),
            // A truncated child is probed as if the game went on: tables ignore the ply cap.
            Outcome::Ongoing | Outcome::Truncated => {
                let after = table
                    .probe_board(child.board(), child.to_move())
                    .expect("a move never adds seeds to the board");
                (
                    after.result_with(-lead(&child)).flip(),
                    gained - after.value,
                )
            }
        };
        let valued = Valued {
            action,
            result,
            margin,
            gained,
        };
        // Insertion sort, best first: at most ten moves.
        let key = |v: &Valued| (v.result, v.margin, v.gained);
        let mut at = count;
        while at > 0 && key(&moves[at - 1]) < key(&valued) {
            moves[at] = moves[at - 1];
            at -= 1;
        }
        moves[at] = valued;
        count += 1;
    }
    (count > 0).then_some((moves, count))
}

/// How many of the ranked `moves` keep the best one's result and margin.
fn perfect_count(moves: &[Valued]) -> usize {
    moves
        .iter()
        .take_while(|m| m.result == moves[0].result && m.margin == moves[0].margin)
        .count()
}

/// Positions a winning [`PerfectPlay`] may search for the line that converts its win; in the
/// layers of en-dodoi-6 up to 20 seeds such a line is a few plies long and found in a few
/// hundred positions.
const CONVERT_NODES: u64 = 1_000_000;

/// The solver's table of a [`PerfectPlay`]: 2^16 slots, 1 MiB.
const CONVERT_TABLE_BITS: u32 = 16;

/// A player that plays perfectly where its tablebase holds the position (see the module
/// documentation).
#[derive(Debug)]
pub struct PerfectPlay {
    table: Arc<Tablebase>,
    solver: Solver,
}

impl PerfectPlay {
    /// Perfect play inside `table`.
    pub fn new(table: Arc<Tablebase>) -> PerfectPlay {
        let solver = Solver::new(CONVERT_TABLE_BITS).with_tablebase(Arc::clone(&table));
        PerfectPlay { table, solver }
    }

    /// The table.
    pub fn table(&self) -> &Arc<Tablebase> {
        &self.table
    }

    /// The perfect move of `state`, or `None` when the table does not hold the position or the
    /// game is over. A won position gets the move that converts the win (when the solver finds
    /// it within its budget, as it always has in the tests; else the best-ranked move).
    pub fn choose(&mut self, state: &State) -> Option<usize> {
        let (moves, _) = ranked(&self.table, state)?;
        if moves[0].result == Wdl::Win
            && let Some(a) = self.solver.converting_move(state, CONVERT_NODES)
        {
            return Some(a);
        }
        Some(moves[0].action)
    }

    /// Forget the solver's stored proofs (they stay true; this only frees the slots).
    pub fn new_game(&mut self) {
        self.solver.clear();
    }
}

/// Bit `a` set for every move of `state` that keeps both its result and its margin; `None` when
/// the table does not hold the position or the game is over.
pub fn perfect_moves(table: &Tablebase, state: &State) -> Option<u16> {
    let (moves, count) = ranked(table, state)?;
    let perfect = &moves[..perfect_count(&moves[..count])];
    Some(perfect.iter().fold(0, |bits, m| bits | 1 << m.action))
}

/// The exact value of a result for a search that values a win +1 and a loss -1.
fn result_value(result: Wdl) -> f32 {
    match result {
        Wdl::Win => 1.0,
        Wdl::Draw => 0.0,
        Wdl::Loss => -1.0,
    }
}

/// An [`Evaluator`] that values the positions a tablebase holds exactly (the mover's result as
/// +1, 0 or -1, priors spread evenly over the perfect moves) and hands the others to `inner` (a
/// random rollout, a network), in one batch.
#[derive(Debug)]
pub struct TablebaseEvaluator<E> {
    table: Arc<Tablebase>,
    inner: E,
    /// The states of a batch the table does not hold, and where their evaluations go.
    rest: Vec<State>,
    rest_at: Vec<usize>,
    rest_out: Vec<Evaluation>,
}

impl<E: Evaluator> TablebaseEvaluator<E> {
    /// `inner` where `table` does not hold the position.
    pub fn new(table: Arc<Tablebase>, inner: E) -> TablebaseEvaluator<E> {
        TablebaseEvaluator {
            table,
            inner,
            rest: Vec::new(),
            rest_at: Vec::new(),
            rest_out: Vec::new(),
        }
    }

    /// The evaluator of the positions the table does not hold, given back.
    pub fn into_inner(self) -> E {
        self.inner
    }

    /// The exact evaluation of `state`, if the table holds it.
    fn exact(&self, state: &State) -> Option<Evaluation> {
        let (moves, count) = ranked(&self.table, state)?;
        let perfect = &moves[..perfect_count(&moves[..count])];
        let mut priors = [0.0; MAX_HOLES];
        for m in perfect {
            priors[m.action] = 1.0 / perfect.len() as f32;
        }
        Some(Evaluation {
            priors,
            value: result_value(moves[0].result),
        })
    }
}

impl<E: Evaluator> Evaluator for TablebaseEvaluator<E> {
    fn evaluate(&mut self, state: &State, rng: &mut ChaCha8Rng) -> Evaluation {
        match self.exact(state) {
            Some(e) => e,
            None => self.inner.evaluate(state, rng),
        }
    }

    fn evaluate_batch(&mut self, states: &[State], rng: &mut ChaCha8Rng, out: &mut [Evaluation]) {
        self.rest.clear();
        self.rest_at.clear();
        for (i, (s, slot)) in states.iter().zip(out.iter_mut()).enumerate() {
            match self.exact(s) {
                Some(e) => *slot = e,
                None => {
                    self.rest.push(*s);
                    self.rest_at.push(i);
                }
            }
        }
        if self.rest.is_empty() {
            return;
        }
        self.rest_out.clear();
        self.rest_out.resize(self.rest.len(), out[self.rest_at[0]]);
        self.inner
            .evaluate_batch(&self.rest, rng, &mut self.rest_out);
        for (&i, e) in self.rest_at.iter().zip(&self.rest_out) {
            out[i] = *e;
        }
    }
}

/// The spec option that names `table` (`:tb=FILE`), for agent names; empty without a table.
pub(crate) fn table_option(table: Option<&Tablebase>) -> String {
    match table {
        Some(t) => format!(
            ":tb={}",
            t.path()
                .map_or_else(|| "(in memory)".into(), |p| p.display().to_string())
        ),
        None => String::new(),
    }
}

/// Whether an agent with `table` can play games of `rules`: a table of another game tree is
/// refused before the game starts, with the field that differs.
pub(crate) fn table_serves(
    table: Option<&Tablebase>,
    rules: &sowing_env::Rules,
) -> Result<(), String> {
    match table {
        Some(t) => t.check_rules(rules).map_err(|e| e.to_string()),
        None => Ok(()),
    }
}
