//! `sowing.agents.Agent`: the search agents of `sowing-agents` (random, greedy, alpha-beta,
//! MCTS), made from a spec string. The search runs with the GIL released; the agent sits behind
//! a mutex so that the class is shareable between Python threads (a second caller waits).

use crate::error::{GameOverError, guard};
use crate::state::PyState;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, from_spec};
use std::sync::{Mutex, MutexGuard};

/// An agent and the random stream it draws from.
struct Player {
    agent: Box<dyn Agent>,
    rng: ChaCha8Rng,
    /// The seed the stream last started from, for pickling.
    seed: u64,
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player")
            .field("agent", &self.agent.name())
            .finish()
    }
}

/// A search agent, from a spec such as `"alphabeta:6"`, `"alphabeta:500ms"`, `"mcts:1000"`,
/// `"greedy"` or `"random"`. Seeded: the same seed and the same positions give the same moves
/// (for count budgets; a time budget depends on the machine).
#[pyclass(name = "Agent", module = "sowing.agents", frozen, subclass)]
#[derive(Debug)]
pub struct PyAgent {
    name: String,
    player: Mutex<Player>,
}

impl PyAgent {
    fn lock(&self) -> MutexGuard<'_, Player> {
        // A panic inside a search is reported as an error (see `guard`); the agent is still
        // usable after it, so a poisoned lock is taken over rather than refused.
        self.player.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl PyAgent {
    #[new]
    #[pyo3(signature = (spec, seed = 0))]
    fn new(spec: &str, seed: u64) -> PyResult<PyAgent> {
        let agent = guard(|| from_spec(spec))?.map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyAgent {
            name: agent.name(),
            player: Mutex::new(Player {
                agent,
                rng: ChaCha8Rng::seed_from_u64(seed),
                seed,
            }),
        })
    }

    /// The legal action this agent plays in `state`. Raises `GameOverError` on a finished game.
    fn choose(&self, py: Python<'_>, state: &PyState) -> PyResult<usize> {
        let state = state.0;
        if state.is_over() {
            return Err(GameOverError::new_err(format!(
                "the game is over ({}); an agent can only move in a game that goes on",
                state.outcome()
            )));
        }
        let action = py.detach(|| {
            guard(|| {
                let mut p = self.lock();
                let Player { agent, rng, .. } = &mut *p;
                agent.choose(&state, rng)
            })
        })?;
        if !state.is_legal(action) {
            return Err(PyRuntimeError::new_err(format!(
                "internal error: agent {} chose illegal action {action} (please report it)",
                self.name
            )));
        }
        Ok(action)
    }

    /// Restart the agent's random stream from `seed`.
    fn seed(&self, seed: u64) {
        let mut p = self.lock();
        p.rng = ChaCha8Rng::seed_from_u64(seed);
        p.seed = seed;
    }

    /// Forget what was kept from earlier moves (search tables) before a new game.
    fn new_game(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| guard(|| self.lock().agent.new_game()))
    }

    /// The spec that makes this agent again, e.g. `alphabeta:6`.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    fn __call__(&self, py: Python<'_>, state: &PyState) -> PyResult<usize> {
        self.choose(py, state)
    }

    fn __repr__(&self) -> String {
        format!("Agent({:?})", self.name)
    }

    /// Pickled as its spec and seed: a copy is a fresh agent whose stream starts from the seed
    /// (search tables are not kept).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, pyo3::types::PyType>, (String, u64))> {
        Ok((
            py.get_type::<PyAgent>(),
            (self.name.clone(), self.lock().seed),
        ))
    }
}

/// The forms an agent spec may take.
#[pyfunction]
pub fn agent_forms() -> Vec<&'static str> {
    sowing_agents::FORMS.to_vec()
}
