//! `sowing.agents.solve`: the exact endgame solver of `sowing-agents` on a `State`, with the GIL
//! released while it searches. It answers what a position is worth under best play (a forced win
//! and its first move, or the moves that lose), as far as its budget reaches.

use crate::error::{GameOverError, guard};
use crate::state::PyState;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sowing_agents::Solver;

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

#[pymethods]
impl PyProof {
    fn __repr__(&self) -> String {
        let opt = |v: Option<usize>| v.map_or("None".to_string(), |v| v.to_string());
        format!(
            "Proof(winning_action={}, win_within={}, losing_actions={:?}, lost={}, depth={}, \
             nodes={})",
            opt(self.winning_action),
            opt(self.win_within.map(|v| v as usize)),
            self.losing_actions,
            if self.lost { "True" } else { "False" },
            self.depth,
            self.nodes
        )
    }
}

/// Prove by exact search what `state` is worth to the player to move: a forced win within
/// `depth` plies, or the actions that lose, searching at most `nodes` positions.
#[pyfunction]
#[pyo3(signature = (state, nodes = 1_000_000, depth = 61, table_bits = 20))]
pub fn solve(
    py: Python<'_>,
    state: &PyState,
    nodes: i64,
    depth: i64,
    table_bits: i64,
) -> PyResult<PyProof> {
    let state = state.0;
    if nodes < 1 {
        return Err(PyValueError::new_err(format!(
            "nodes must be a positive number of positions, got {nodes}"
        )));
    }
    if !(1..=999).contains(&depth) {
        return Err(PyValueError::new_err(format!(
            "depth must be 1 to 999 plies, got {depth}"
        )));
    }
    if !(10..=30).contains(&table_bits) {
        return Err(PyValueError::new_err(format!(
            "table_bits must be 10 to 30 (a table of 2^bits positions, 16 bytes each), got \
             {table_bits}"
        )));
    }
    if state.is_over() {
        return Err(GameOverError::new_err(format!(
            "the game is over ({}); there is nothing left to solve",
            state.outcome()
        )));
    }
    let proof = py.detach(|| {
        guard(|| Solver::new(table_bits as u32).prove(&state, nodes as u64, depth as u32))
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
