//! `sowing.agents.solve`: the exact endgame solver of `sowing-agents` on a `State`, as a long
//! call (see [`crate::long_call`]): the GIL released, a Ctrl-C honoured, and a stack as deep as
//! the search may go. It answers what a position is worth under best play (a forced win and its
//! first move, or the moves that lose), as far as its budget reaches.

use crate::args;
use crate::error::GameOverError;
use crate::long_call;
use crate::memory;
use crate::state::PyState;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sowing_exact::Solver;

/// Stack the solver needs per ply of depth: two frames (a position's children are made on the
/// stack, about 1.2 KB each) with room to spare.
const STACK_PER_PLY: usize = 8 * 1024;

/// The deepest search allowed, in plies: deeper than any game lasts under the default
/// `max_plies`.
const MAX_DEPTH: i128 = 999;

/// Bytes per slot of the solver's table.
const SLOT_BYTES: usize = 16;

/// What the solver proved about a position, for the player to move.
#[pyclass(name = "Proof", module = "sowing.agents", frozen, get_all)]
#[derive(Clone, Debug)]
pub struct PyProof {
    /// An action that forces a win, or None when none was found within the budget and depth.
    winning_action: Option<usize>,
    /// The plies within which `winning_action` wins (it included), or None.
    win_within: Option<u32>,
    /// The actions proven to lose: after each, the opponent forces a win.
    losing_actions: Vec<usize>,
    /// True when every legal action is proven to lose.
    lost: bool,
    /// The deepest search completed, in plies.
    depth: u32,
    /// Positions made.
    nodes: u64,
}

/// What [`PyProof::__reduce__`] gives pickle: the class and the constructor's arguments.
type ProofReduce<'py> = (
    Bound<'py, PyAny>,
    (Option<usize>, Option<u32>, Vec<usize>, bool, u32, u64),
);

#[pymethods]
impl PyProof {
    /// A proof from its fields, as `repr` and pickle give them.
    #[new]
    #[pyo3(signature = (winning_action, win_within, losing_actions, lost, depth, nodes))]
    fn new(
        winning_action: Option<usize>,
        win_within: Option<u32>,
        losing_actions: Vec<usize>,
        lost: bool,
        depth: u32,
        nodes: u64,
    ) -> PyResult<PyProof> {
        if winning_action.is_some() != win_within.is_some() {
            return Err(PyValueError::new_err(format!(
                "winning_action and win_within go together (both None or both given), got {} \
                 and {}",
                opt(winning_action.map(|a| a as u64)),
                opt(win_within.map(u64::from))
            )));
        }
        Ok(PyProof {
            winning_action,
            win_within,
            losing_actions,
            lost,
            depth,
            nodes,
        })
    }

    /// Pickled (and copied) by its fields.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> ProofReduce<'py> {
        let p = slf.get();
        (
            slf.get_type().into_any(),
            (
                p.winning_action,
                p.win_within,
                p.losing_actions.clone(),
                p.lost,
                p.depth,
                p.nodes,
            ),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Proof(winning_action={}, win_within={}, losing_actions={:?}, lost={}, depth={}, \
             nodes={})",
            opt(self.winning_action.map(|a| a as u64)),
            opt(self.win_within.map(u64::from)),
            self.losing_actions,
            if self.lost { "True" } else { "False" },
            self.depth,
            self.nodes
        )
    }
}

/// `v` as Python writes it.
fn opt(v: Option<u64>) -> String {
    v.map_or("None".to_string(), |v| v.to_string())
}

/// Prove by exact search what `state` is worth to the player to move: a forced win within
/// `depth` plies, or the actions that lose, searching at most `nodes` positions. A Ctrl-C stops
/// the search and raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (state, nodes = None, depth = None, table_bits = None))]
pub fn solve(
    py: Python<'_>,
    state: &PyState,
    nodes: Option<&Bound<'_, PyAny>>,
    depth: Option<&Bound<'_, PyAny>>,
    table_bits: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyProof> {
    let state = state.0;
    let nodes = match nodes {
        Some(n) => args::int_in(
            n,
            "nodes",
            1,
            u64::MAX.into(),
            "a positive number of positions",
        )? as u64,
        None => 1_000_000,
    };
    let depth = match depth {
        Some(d) => args::int_in(d, "depth", 1, MAX_DEPTH, "1 to 999 plies")? as u32,
        None => 61,
    };
    let table_bits = match table_bits {
        Some(b) => args::int_in(
            b,
            "table_bits",
            10,
            30,
            "10 to 30 (a table of 2^bits positions, 16 bytes each)",
        )? as u32,
        None => 20,
    };
    if state.is_over() {
        return Err(GameOverError::new_err(format!(
            "the game is over ({}); there is nothing left to solve",
            state.outcome()
        )));
    }
    memory::check(
        (SLOT_BYTES as u128) << table_bits,
        &format!("a solver table of 2^{table_bits} positions"),
    )?;
    let stack = depth as usize * STACK_PER_PLY;
    let proof = long_call::run(py, stack, |stop| {
        let mut solver = Solver::new(table_bits);
        solver.set_stop(stop);
        solver.prove(&state, nodes, depth)
    })?;
    Ok(PyProof {
        winning_action: proof.winning.map(|(a, _)| a),
        win_within: proof.winning.map(|(_, plies)| plies),
        losing_actions: state
            .legal_actions()
            .filter(|&a| proof.losing >> a & 1 == 1)
            .collect(),
        lost: proof.lost(&state),
        depth: proof.depth,
        nodes: proof.nodes,
    })
}
