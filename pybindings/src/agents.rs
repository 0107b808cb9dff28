//! `sowing.Agent`: the one class of every agent in Python. Made from a spec (its text, or its
//! fields: see [`crate::spec`]) it is a search agent of `sowing-agents` (random, greedy,
//! alpha-beta, MCTS); the network agent `sowing.search.NetworkAgent` is a subclass that chooses
//! its own moves. The search is a long call (see [`crate::long_call`]): the GIL released, a
//! Ctrl-C honoured, a stack deep enough. The agent sits behind a mutex so that the class is
//! shareable between Python threads (a second caller waits).

use crate::args;
use crate::error::{GameOverError, guard};
use crate::long_call;
use crate::spec::{spec_arg, spec_error};
use crate::state::PyState;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, AgentSpec, AlphaBeta};
use sowing_env::State;
use sowing_exact::Stop;
use std::sync::{Mutex, MutexGuard};

/// Stack an agent's search may need: alpha-beta recurses one frame (well under a kilobyte) per
/// ply, to [`AlphaBeta::MAX_DEPTH`]; the others do not recurse.
const SEARCH_STACK: usize = (AlphaBeta::MAX_DEPTH as usize + 1) * 16 * 1024;

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

/// An agent. From a spec such as `"alphabeta:6"`, `"alphabeta:500ms"`, `"mcts:1000"`,
/// `"greedy"` or `"random"` (or its fields), a search agent; seeded: the same seed and the same
/// positions give the same moves (for count budgets; a time budget depends on the machine).
#[pyclass(name = "Agent", module = "sowing", frozen, subclass)]
#[derive(Debug)]
pub struct PyAgent {
    name: String,
    /// The search agent; `None` in a subclass that chooses its own moves (`NetworkAgent`),
    /// whose methods stand in for those that need it.
    player: Option<(AgentSpec, Mutex<Player>)>,
}

impl PyAgent {
    /// The base of a subclass named `name` that chooses its own moves.
    pub(crate) fn base(name: &str) -> PyAgent {
        PyAgent {
            name: name.to_string(),
            player: None,
        }
    }

    /// The search agent's spec and its player, for the methods that need them.
    fn search(&self) -> PyResult<&(AgentSpec, Mutex<Player>)> {
        self.player.as_ref().ok_or_else(|| {
            PyNotImplementedError::new_err(format!(
                "{} is an agent subclass that must define this method itself",
                self.name
            ))
        })
    }

    /// The agent of `spec`, seeded with `seed`.
    fn made(spec: AgentSpec, seed: u64) -> PyResult<PyAgent> {
        if let AgentSpec::Az { .. } = spec {
            return Err(PyValueError::new_err(format!(
                "{spec} is a trained network: sowing.agents.from_spec or sowing.nn.agent plays \
                 it (sowing.Agent makes the search agents itself)"
            )));
        }
        let agent = guard(|| spec.build())?.map_err(spec_error)?;
        Ok(PyAgent {
            name: agent.name(),
            player: Some((
                spec,
                Mutex::new(Player {
                    agent,
                    rng: ChaCha8Rng::seed_from_u64(seed),
                    seed,
                }),
            )),
        })
    }

    /// The agent, for a thread without the GIL: a search holding the lock takes the GIL back
    /// now and then to look for a Ctrl-C, so waiting for the lock with the GIL held could wait
    /// for ever. Calls made with the GIL go through [`PyAgent::with`].
    fn lock(player: &Mutex<Player>) -> MutexGuard<'_, Player> {
        // A panic inside a search is reported as an error (see `guard`); the agent is still
        // usable after it, so a poisoned lock is taken over rather than refused.
        player.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `f` on the agent, the GIL released while waiting for it.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Player) -> T + Send,
    ) -> PyResult<T> {
        let (_, player) = self.search()?;
        Ok(py.detach(|| f(&mut PyAgent::lock(player))))
    }
}

#[pymethods]
impl PyAgent {
    #[new]
    #[pyo3(signature = (spec, seed = None))]
    fn new(spec: &Bound<'_, PyAny>, seed: Option<&Bound<'_, PyAny>>) -> PyResult<PyAgent> {
        let seed = seed.map(args::seed).transpose()?.unwrap_or(0);
        PyAgent::made(spec_arg(spec)?, seed)
    }

    /// The legal action this agent plays in `state`. Raises `GameOverError` on a finished game.
    /// A Ctrl-C stops the search and raises `KeyboardInterrupt` with the agent's random stream
    /// as it was before the call (its search tables may keep what the search completed).
    fn choose(&self, py: Python<'_>, state: &PyState) -> PyResult<usize> {
        let state = state.0;
        let (_, player) = self.search()?;
        game_goes_on(&state)?;
        let action = long_call::run(py, SEARCH_STACK, |stop| {
            let mut p = PyAgent::lock(player);
            let Player { agent, rng, .. } = &mut *p;
            let before = rng.clone();
            agent.set_stop(stop.clone());
            let action = agent.choose(&state, rng);
            agent.set_stop(Stop::never());
            if stop.requested() {
                *rng = before;
            }
            action
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
    fn seed(&self, py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let seed = args::seed(seed)?;
        self.with(py, |p| {
            p.rng = ChaCha8Rng::seed_from_u64(seed);
            p.seed = seed;
        })
    }

    /// The seed its random stream last started from.
    #[getter]
    fn current_seed(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |p| p.seed)
    }

    /// Forget what was kept from earlier moves (search tables) before a new game.
    fn new_game(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |p| guard(|| p.agent.new_game()))?
    }

    /// The spec that makes this agent again, e.g. `alphabeta:6`.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The agent's move in `state`: its `choose`, whichever class defines it.
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        state: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        slf.call_method1("choose", (state,))
    }

    fn __repr__(&self) -> String {
        format!("Agent({:?})", self.name)
    }

    /// A deep copy goes on from where this agent's random stream is, on a stream of its own (an
    /// environment copied mid-game plays on as the original would); search tables are not
    /// copied.
    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> PyResult<PyAgent> {
        let (rng, seed) = self.with(py, |p| (p.rng.clone(), p.seed))?;
        let (spec, _) = self.search()?;
        let agent = guard(|| spec.build())?.map_err(spec_error)?;
        Ok(PyAgent {
            name: self.name.clone(),
            player: Some((spec.clone(), Mutex::new(Player { agent, rng, seed }))),
        })
    }

    /// A copy, as deep as [`PyAgent::__deepcopy__`]'s: agents share nothing they change.
    fn __copy__(&self, py: Python<'_>) -> PyResult<PyAgent> {
        self.__deepcopy__(py, &py.None().into_bound(py))
    }

    /// Pickled as its spec and seed: a copy is a fresh agent whose stream starts from the seed
    /// (search tables are not kept).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, pyo3::types::PyType>, (String, u64))> {
        Ok((
            py.get_type::<PyAgent>(),
            (self.name.clone(), self.with(py, |p| p.seed)?),
        ))
    }
}

/// The forms an agent spec may take.
#[pyfunction]
pub fn agent_forms() -> Vec<&'static str> {
    sowing_agents::FORMS.to_vec()
}

/// Refuse to choose a move in a finished game, with `GameOverError` naming its outcome.
pub(crate) fn game_goes_on(state: &State) -> PyResult<()> {
    if state.is_over() {
        return Err(GameOverError::new_err(format!(
            "the game is over ({}); an agent can only move in a game that goes on",
            state.outcome()
        )));
    }
    Ok(())
}
