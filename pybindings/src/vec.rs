//! The native half of `sowing.vector.SelfPlayVec`: a `sowing_env::VecEnv` whose buffers are
//! copied into fresh numpy arrays after each call, with the GIL released while Rust steps.
//!
//! Actions arrive as a 1-D numpy array of any integer type (or a sequence of ints) and are copied into
//! a buffer owned by this object before the GIL is released, so no Python thread can change them
//! while the games move.

use crate::args::{self, Int, repr};
use crate::error::{GameOverError, IllegalActionError, guard, to_py};
use crate::memory;
use crate::rules::{PyRules, rules_arg, type_name};
use crate::state::PyState;
use numpy::{PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray};
use numpy::{PyUntypedArrayMethods, dtype};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use sowing_env::{AutoReset, Error, VecConfig, VecEnv};

/// The most games one batch may hold. A step is never cut short (stopping it halfway would leave
/// some games moved and others not), so a Ctrl-C waits for the step under way; at this size one
/// takes about a quarter of a second on two cores.
const MAX_NUM_ENVS: i128 = 1 << 20;

/// The most threads a batch may be given: beyond any core count, and small enough that asking
/// for more by mistake cannot exhaust the system's threads.
const MAX_THREADS: i128 = 256;

/// The most random plies an opening may have. An opening that ends the game is drawn again, up
/// to 64 times, so a long one costs many moves per game at every reset.
const MAX_OPENING: i128 = 100;

/// What `reset` returns: observations, masks, player to move.
type ResetArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<i64>>,
);

/// What `step` returns: observations, masks, rewards, terminated, truncated, player to move.
type StepArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<i64>>,
);

/// Many games of self-play stepped together in Rust.
#[pyclass(name = "SelfPlayVec", module = "sowing._sowing")]
#[derive(Debug)]
pub struct PySelfPlayVec {
    /// The games; `None` once closed.
    env: Option<VecEnv>,
    /// The last actions given, one per game.
    actions: Vec<i64>,
}

fn autoreset_arg(mode: &str) -> PyResult<AutoReset> {
    match mode {
        "same-step" => Ok(AutoReset::SameStep),
        "next-step" => Ok(AutoReset::NextStep),
        "off" => Ok(AutoReset::Off),
        other => Err(PyValueError::new_err(format!(
            "unknown autoreset mode {other:?}; modes: \"same-step\", \"next-step\", \"off\""
        ))),
    }
}

fn autoreset_name(mode: AutoReset) -> &'static str {
    match mode {
        AutoReset::SameStep => "same-step",
        AutoReset::NextStep => "next-step",
        AutoReset::Off => "off",
    }
}

/// The bytes of the arrays one call returns, per game: observations, masks, rewards, the two
/// flags, players to move.
fn returned_bytes_per_game(observation_len: usize, holes: usize) -> usize {
    observation_len * 4 + holes + 4 + 2 + 8
}

fn closed() -> PyErr {
    PyValueError::new_err("this SelfPlayVec is closed")
}

/// The typed exception for a step the engine refused. The engine names the first game at fault
/// in a plain batch error; the same check on that game tells which kind of fault it is, so that
/// an illegal action is an `IllegalActionError` and a move in a finished game a `GameOverError`,
/// as they are for one game.
fn step_error(env: &VecEnv, actions: &[i64], e: Error) -> PyErr {
    let Error::Batch { message } = e else {
        return to_py(e);
    };
    // Under next-step autoreset a finished game is reset by the step, whatever its action.
    let resets = env.config().autoreset == AutoReset::NextStep;
    for (i, &action) in actions.iter().enumerate() {
        let state = env.state(i);
        if resets && state.is_over() {
            continue;
        }
        let fault = crate::state::action_arg(state, action).and_then(|a| state.check(a));
        match fault {
            Ok(()) => {}
            Err(Error::GameOver { .. }) => return GameOverError::new_err(message),
            Err(_) => return IllegalActionError::new_err(message),
        }
    }
    PyValueError::new_err(message)
}

impl PySelfPlayVec {
    fn env(&self) -> PyResult<&VecEnv> {
        self.env.as_ref().ok_or_else(closed)
    }

    /// Copy `actions` into `self.actions`, checking type and shape.
    fn read_actions(&mut self, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.env()?.num_envs();
        let Ok(array) = actions.cast::<PyUntypedArray>() else {
            let values: Vec<i64> = actions.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "actions must be a 1-D numpy array of integers (or a sequence of ints), one per game; got {}",
                    type_name(actions)
                ))
            })?;
            if values.len() != n {
                return Err(PyValueError::new_err(format!(
                    "expected {n} actions, one per game, got {}",
                    values.len()
                )));
            }
            self.actions.copy_from_slice(&values);
            return Ok(());
        };
        if array.shape() != [n] {
            return Err(PyValueError::new_err(format!(
                "actions must have shape ({n},), one per game; got shape {:?}",
                array.shape()
            )));
        }
        let py = actions.py();
        let kind = array.dtype();
        // Any integer type; a value beyond i64 (a huge uint64) reads as i64::MAX, out of range.
        macro_rules! read_as {
            ($($t:ty),*) => {
                $(if kind.is_equiv_to(&dtype::<$t>(py)) {
                    let a = actions.cast::<PyArray1<$t>>()?.try_readonly()?;
                    self.actions
                        .iter_mut()
                        .zip(a.as_array())
                        .for_each(|(d, &s)| *d = i64::try_from(s).unwrap_or(i64::MAX));
                    return Ok(());
                })*
            };
        }
        if kind.is_equiv_to(&dtype::<i64>(py)) {
            let a = actions.cast::<PyArray1<i64>>()?.try_readonly()?;
            match a.as_slice() {
                Ok(s) => self.actions.copy_from_slice(s),
                Err(_) => self
                    .actions
                    .iter_mut()
                    .zip(a.as_array())
                    .for_each(|(d, &s)| *d = s),
            }
            return Ok(());
        }
        read_as!(i32, i16, i8, u64, u32, u16, u8);
        Err(PyTypeError::new_err(format!(
            "actions must be integers, got dtype {}; use actions.astype(numpy.int64)",
            kind.str()?
        )))
    }

    /// Gymnasium's `reset_mask`: a bool numpy array with one flag per game, at least one set.
    fn read_reset_mask(&self, mask: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let n = self.env()?.num_envs();
        let Ok(array) = mask.cast::<PyArray1<bool>>() else {
            let shape = mask
                .cast::<PyUntypedArray>()
                .map(|a| format!("{}-D array of dtype {}", a.ndim(), a.dtype()))
                .unwrap_or_else(|_| type_name(mask));
            return Err(PyTypeError::new_err(format!(
                "reset_mask must be a 1-D numpy array of dtype bool, one flag per game; got {shape}"
            )));
        };
        let flags = array.to_vec()?;
        if flags.len() != n {
            return Err(PyValueError::new_err(format!(
                "reset_mask must have shape ({n},), one flag per game; got ({},)",
                flags.len()
            )));
        }
        if !flags.contains(&true) {
            return Err(PyValueError::new_err(
                "reset_mask must flag at least one game (Gymnasium's rule); got no True value",
            ));
        }
        Ok(flags)
    }

    fn to_move_array<'py>(env: &VecEnv, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_iter(py, env.to_move().iter().map(|&p| p as i64))
    }
}

#[pymethods]
impl PySelfPlayVec {
    #[new]
    #[pyo3(signature = (variant, num_envs, seed = None, autoreset = "same-step", threads = None, random_opening = None))]
    fn new(
        py: Python<'_>,
        variant: &Bound<'_, PyAny>,
        num_envs: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
        autoreset: &str,
        threads: Option<&Bound<'_, PyAny>>,
        random_opening: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PySelfPlayVec> {
        let rules = rules_arg(variant)?;
        let num_envs = args::int_in(
            num_envs,
            "num_envs",
            1,
            MAX_NUM_ENVS,
            &format!("1 to {MAX_NUM_ENVS}"),
        )? as usize;
        let seed = seed.map(args::seed).transpose()?.unwrap_or(0);
        let threads = match threads {
            Some(t) => args::int_in(
                t,
                "threads",
                0,
                MAX_THREADS,
                &format!("0 (every core) to {MAX_THREADS}"),
            )? as usize,
            None => 0,
        };
        let longest = MAX_OPENING.min(i128::from(rules.max_plies()) - 1);
        let random_opening = match random_opening {
            Some(k) => args::int_in(
                k,
                "random_opening",
                0,
                longest,
                &format!("0 to {longest} plies"),
            )? as u32,
            None => 0,
        };
        let config = VecConfig {
            autoreset: autoreset_arg(autoreset)?,
            threads,
            random_opening,
        };
        let per_game = VecEnv::bytes_per_game(&rules)
            + returned_bytes_per_game(rules.observation_len(), rules.holes());
        memory::check(
            per_game as u128 * num_envs as u128,
            &format!("a batch of {num_envs} games of {}", rules.summary()),
        )?;
        let env = py
            .detach(|| guard(|| VecEnv::new(&rules, num_envs, seed, config)))?
            .map_err(to_py)?;
        Ok(PySelfPlayVec {
            env: Some(env),
            actions: vec![0; num_envs],
        })
    }

    /// Start games again: every game, or those flagged by `reset_mask` (a bool array, one flag
    /// per game). `seed` restarts the random streams of the games started (game `i` on stream
    /// `i`); `None` goes on with their current streams. Returns (observations, masks, to_move)
    /// of every game.
    #[pyo3(signature = (seed = None, reset_mask = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
        reset_mask: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<ResetArrays<'py>> {
        let seed = seed.map(args::seed).transpose()?;
        let flags = reset_mask.map(|m| self.read_reset_mask(m)).transpose()?;
        let env = self.env.as_mut().ok_or_else(closed)?;
        match flags {
            Some(flags) => py
                .detach(|| guard(|| env.reset_games(&flags, seed)))?
                .map_err(to_py)?,
            None => py.detach(|| guard(|| env.reset(seed)))?,
        }
        Ok((
            PyArray2::from_array(py, &env.observations()),
            PyArray2::from_array(py, &env.masks()),
            Self::to_move_array(env, py),
        ))
    }

    /// Play `actions[i]` in game `i`. Returns (observations, masks, rewards, terminated,
    /// truncated, to_move); `rewards[i]` is for the player who just moved in game `i`.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<StepArrays<'py>> {
        self.read_actions(actions)?;
        let PySelfPlayVec { env, actions } = self;
        let env = env.as_mut().ok_or_else(closed)?;
        let stepped = py.detach(|| guard(|| env.step(actions.as_slice())))?;
        if let Err(e) = stepped {
            return Err(step_error(env, actions, e));
        }
        Ok((
            PyArray2::from_array(py, &env.observations()),
            PyArray2::from_array(py, &env.masks()),
            PyArray1::from_array(py, &env.rewards()),
            PyArray1::from_array(py, &env.terminated()),
            PyArray1::from_array(py, &env.truncated()),
            Self::to_move_array(env, py),
        ))
    }

    /// Under "same-step" autoreset: the observation of each game's final state, for the games
    /// that ended in the last step (other rows are stale).
    fn final_observations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        Ok(PyArray2::from_array(py, &self.env()?.final_observations()))
    }

    /// A uniformly random legal action for every game from its own random stream (0 for a game
    /// with no legal move).
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let env = self.env.as_mut().ok_or_else(closed)?;
        let mut out = vec![0usize; env.num_envs()];
        env.sample_actions(&mut out).map_err(to_py)?;
        Ok(PyArray1::from_iter(py, out.into_iter().map(|a| a as i64)))
    }

    /// The state of game `index` (negative counts from the end).
    fn state(&self, index: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let env = self.env()?;
        let n = env.num_envs() as i128;
        let missing = || {
            PyIndexError::new_err(format!(
                "game {} does not exist; games are 0 to {} (or -{n} to -1)",
                repr(index),
                n - 1
            ))
        };
        let i = match Int::of(index) {
            Int::Fits(i) if (-n..n).contains(&i) => i.rem_euclid(n) as usize,
            Int::Fits(_) | Int::Huge => return Err(missing()),
            Int::Not => {
                return Err(PyTypeError::new_err(format!(
                    "a game index is an integer, got {}",
                    type_name(index)
                )));
            }
        };
        Ok(PyState(*env.state(i)))
    }

    /// Free the games and the threads now; any later call but `close` raises `ValueError`.
    fn close(&mut self) {
        self.env = None;
        self.actions = Vec::new();
    }

    /// Whether `close` has been called.
    #[getter]
    fn closed(&self) -> bool {
        self.env.is_none()
    }
    /// Number of games.
    #[getter]
    fn num_envs(&self) -> PyResult<usize> {
        Ok(self.env()?.num_envs())
    }
    /// The rules every game is played by.
    #[getter]
    fn rules(&self) -> PyResult<PyRules> {
        Ok(PyRules(*self.env()?.rules()))
    }
    /// What happens to a game that ends: "same-step", "next-step" or "off".
    #[getter]
    fn autoreset(&self) -> PyResult<&'static str> {
        Ok(autoreset_name(self.env()?.config().autoreset))
    }

    fn __len__(&self) -> PyResult<usize> {
        self.num_envs()
    }

    fn __repr__(&self) -> String {
        match &self.env {
            Some(env) => format!(
                "SelfPlayVec({:?}, num_envs={}, autoreset={:?})",
                env.rules().summary(),
                env.num_envs(),
                autoreset_name(env.config().autoreset)
            ),
            None => "SelfPlayVec(closed)".to_string(),
        }
    }
}
