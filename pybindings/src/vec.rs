//! The native half of `sowing.vector.SelfPlayVec`: a `sowing_env::VecEnv` whose buffers are
//! copied into fresh numpy arrays after each call, with the GIL released while Rust steps.
//!
//! Actions arrive as a 1-D int64 or int32 numpy array (or a sequence of ints) and are copied into
//! a buffer owned by this object before the GIL is released, so no Python thread can change them
//! while the games move.

use crate::error::{guard, to_py};
use crate::rules::{PyRules, rules_arg, type_name};
use crate::state::PyState;
use numpy::{PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray};
use numpy::{PyUntypedArrayMethods, dtype};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use sowing_env::{AutoReset, VecConfig, VecEnv};

/// The most games one batch may hold; far beyond what fits a step in cache, and small enough
/// that the buffers' sizes cannot overflow.
const MAX_NUM_ENVS: usize = 1 << 24;

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
    env: VecEnv,
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

impl PySelfPlayVec {
    /// Copy `actions` into `self.actions`, checking type and shape.
    fn read_actions(&mut self, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.env.num_envs();
        let Ok(array) = actions.cast::<PyUntypedArray>() else {
            let values: Vec<i64> = actions.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "actions must be a 1-D numpy array of int64 or int32 (or a sequence of ints), one per game; got {}",
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
        } else if kind.is_equiv_to(&dtype::<i32>(py)) {
            let a = actions.cast::<PyArray1<i32>>()?.try_readonly()?;
            self.actions
                .iter_mut()
                .zip(a.as_array())
                .for_each(|(d, &s)| *d = s as i64);
        } else {
            return Err(PyTypeError::new_err(format!(
                "actions must be int64 or int32, got dtype {}; use actions.astype(numpy.int64)",
                kind.str()?
            )));
        }
        Ok(())
    }

    fn to_move_array<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_iter(py, self.env.to_move().iter().map(|&p| p as i64))
    }
}

#[pymethods]
impl PySelfPlayVec {
    #[new]
    #[pyo3(signature = (variant, num_envs, seed = 0, autoreset = "same-step", threads = 0, random_opening = 0))]
    fn new(
        variant: &Bound<'_, PyAny>,
        num_envs: usize,
        seed: u64,
        autoreset: &str,
        threads: usize,
        random_opening: u32,
    ) -> PyResult<PySelfPlayVec> {
        let rules = rules_arg(variant)?;
        if num_envs == 0 || num_envs > MAX_NUM_ENVS {
            return Err(PyValueError::new_err(format!(
                "num_envs = {num_envs}; allowed: 1 to {MAX_NUM_ENVS}"
            )));
        }
        let config = VecConfig {
            autoreset: autoreset_arg(autoreset)?,
            threads,
            random_opening,
        };
        let env = guard(|| VecEnv::new(&rules, num_envs, seed, config))?.map_err(to_py)?;
        Ok(PySelfPlayVec {
            env,
            actions: vec![0; num_envs],
        })
    }

    /// Start every game again; `seed` restarts every game's random stream (game `i` on stream
    /// `i`), `None` goes on with the current streams. Returns (observations, masks, to_move).
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<ResetArrays<'py>> {
        let env = &mut self.env;
        py.detach(|| guard(|| env.reset(seed)))?;
        Ok((
            PyArray2::from_array(py, &self.env.observations()),
            PyArray2::from_array(py, &self.env.masks()),
            self.to_move_array(py),
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
        let (env, actions) = (&mut self.env, &self.actions);
        py.detach(|| guard(|| env.step(actions)))?.map_err(to_py)?;
        let e = &self.env;
        Ok((
            PyArray2::from_array(py, &e.observations()),
            PyArray2::from_array(py, &e.masks()),
            PyArray1::from_array(py, &e.rewards()),
            PyArray1::from_array(py, &e.terminated()),
            PyArray1::from_array(py, &e.truncated()),
            self.to_move_array(py),
        ))
    }

    /// Under "same-step" autoreset: the observation of each game's final state, for the games
    /// that ended in the last step (other rows are stale).
    fn final_observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        PyArray2::from_array(py, &self.env.final_observations())
    }

    /// A uniformly random legal action for every game from its own random stream (0 for a game
    /// with no legal move).
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let mut out = vec![0usize; self.env.num_envs()];
        self.env.sample_actions(&mut out).map_err(to_py)?;
        Ok(PyArray1::from_iter(py, out.into_iter().map(|a| a as i64)))
    }

    /// The state of game `index`.
    fn state(&self, index: isize) -> PyResult<PyState> {
        let n = self.env.num_envs();
        let i = if index < 0 { index + n as isize } else { index };
        usize::try_from(i)
            .ok()
            .filter(|&i| i < n)
            .map(|i| PyState(*self.env.state(i)))
            .ok_or_else(|| {
                PyIndexError::new_err(format!(
                    "game {index} does not exist; games are 0 to {}",
                    n - 1
                ))
            })
    }

    /// Number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.env.num_envs()
    }
    /// The rules every game is played by.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules(*self.env.rules())
    }
    /// What happens to a game that ends: "same-step", "next-step" or "off".
    #[getter]
    fn autoreset(&self) -> &'static str {
        autoreset_name(self.env.config().autoreset)
    }

    fn __len__(&self) -> usize {
        self.env.num_envs()
    }

    fn __repr__(&self) -> String {
        format!(
            "SelfPlayVec({:?}, num_envs={}, autoreset={:?})",
            self.env.rules().summary(),
            self.env.num_envs(),
            self.autoreset()
        )
    }
}
