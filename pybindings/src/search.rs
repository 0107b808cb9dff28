//! The native half of `sowing.search`: the batched PUCT search of `sowing-agents` driven from
//! Python, its leaves valued by a Python function (or a Rust evaluator given from Python).
//!
//! The function is `evaluate(obs: float32[B, D], mask: bool[B, n]) -> (logits: float32[B, n],
//! value: float32[B])`, called once per batch of leaves (one leaf from each tree searched). The
//! trees, the encoding of the leaves and the softmax of the logits are Rust, run with the GIL
//! released; it is taken only for the call. An exception raised by the function ends the search
//! and reaches the caller as itself: the searched trees are forgotten, and no game has moved.
//!
//! Every call here is a long call ([`crate::long_call`]): a Ctrl-C stops it. With a Python
//! function, Python raises `KeyboardInterrupt` inside it; with a Rust evaluator and while worker
//! threads play, the leaf function asks the long call's [`Stop`] before every batch.

use crate::agents::game_goes_on;
use crate::args;
use crate::error::GameOverError;
use crate::long_call;
use crate::memory;
use crate::reentry::{self, Owner};
use crate::rules::{from_keywords, rules_arg, type_name};
use crate::state::PyState;
use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::features::{encode_input, input_len};
use sowing_agents::puct::self_play::{SelfPlayConfig, play_dealt};
use sowing_agents::puct::{
    BatchSearch, EXPLAINED_PLIES, Linear, MAX_SIMULATIONS, PuctConfig, Root, RootOutput,
    SearchSpec, Trees, search_bytes,
};
use sowing_agents::{Agent, AgentSpec, Evaluation, Evaluator, stream};
use sowing_env::{MAX_HOLES, State};
use sowing_eval::matches::{self, BatchPlayer, Match, Pairing, Salts, Seat};
use sowing_eval::stats::{Rate, rate_against};
use sowing_exact::{MAX_SOLVER_NODES, SOLVER_DEPTH, SOLVER_SEEDS, SOLVER_TABLE_BITS, Solver, Stop};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The most games of one batch or one self-play call.
const MAX_GAMES: i128 = 1 << 20;

/// The most worker threads of a self-play call.
const MAX_THREADS: i128 = 256;

/// The most random plies an opening may have, as for `SelfPlayVec` and self-play.
const MAX_OPENING: i128 = sowing_agents::puct::self_play::MAX_OPENING_PLIES as i128;

/// Plies of a self-play game reckoned when checking the memory its samples need: twice the
/// usual length.
const TYPICAL_PLIES: usize = 120;

/// Stack a search needs: it does not recurse, but the Python function it calls may.
const SEARCH_STACK: usize = 1 << 20;

/// The salt of the root-noise streams of [`PySearch::run`]: root `i` draws from stream `i`.
const SEARCH_NOISE: u64 = 0x5ea7_c400_0000_0001;

/// What [`PyLinear::__reduce__`] gives pickle: the class and the constructor's arguments.
type LinearReduce<'py> = (
    Bound<'py, PyAny>,
    (Bound<'py, PyAny>, Bound<'py, PyAny>, bool),
);

/// A linear policy and value over the network input, evaluated in Rust.
#[pyclass(name = "LinearEvaluator", module = "sowing.search", frozen)]
#[derive(Debug)]
pub struct PyLinear(Linear);

#[pymethods]
impl PyLinear {
    /// Weights `policy` (`[D, n]`) and `value` (`[D]`), float32 or anything numpy turns into it,
    /// for boards of `n` holes per row, `D` the input length with `lookahead` or without.
    #[new]
    #[pyo3(signature = (policy, value, lookahead = true))]
    fn new(
        py: Python<'_>,
        policy: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        lookahead: bool,
    ) -> PyResult<PyLinear> {
        let policy = float_array(py, policy, "policy")?;
        let value = float_array(py, value, "value")?;
        let [len, holes] = policy.shape()[..] else {
            return Err(PyValueError::new_err(format!(
                "policy must be a 2-D array [input length, actions], got shape {:?}",
                policy.shape()
            )));
        };
        if len != input_len(holes, lookahead) {
            return Err(PyValueError::new_err(format!(
                "policy has {len} rows, but the input of a {holes}-hole board is {} long{}",
                input_len(holes, lookahead),
                if lookahead {
                    " with the look-ahead features"
                } else {
                    ""
                }
            )));
        }
        let policy = policy.to_vec()?;
        let value = value.to_vec()?;
        Linear::new(holes, lookahead, policy, value)
            .map(PyLinear)
            .map_err(PyValueError::new_err)
    }

    /// Holes per row of the boards it evaluates.
    #[getter]
    fn holes(&self) -> usize {
        self.0.holes()
    }

    /// Whether its input has the look-ahead features.
    #[getter]
    fn lookahead(&self) -> bool {
        self.0.lookahead()
    }

    /// A copy of the policy weights, float32 `[D, n]`.
    #[getter]
    fn policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let holes = self.0.holes();
        let rows = self.0.policy().len() / holes;
        let array = Array2::from_shape_vec((rows, holes), self.0.policy().to_vec())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// A copy of the value weights, float32 `[D]`.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        Array1::from(self.0.value().to_vec()).into_pyarray(py)
    }

    /// Pickled (and copied) by its weights.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<LinearReduce<'py>> {
        let py = slf.py();
        let me = slf.get();
        Ok((
            slf.get_type().into_any(),
            (
                me.policy(py)?.into_any(),
                me.value(py).into_any(),
                me.0.lookahead(),
            ),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "LinearEvaluator(holes={}, lookahead={})",
            self.0.holes(),
            if self.0.lookahead() { "True" } else { "False" }
        )
    }
}

/// `numpy.ascontiguousarray` and `numpy.float32`, looked up once.
static CONTIGUOUS: PyOnceLock<(Py<PyAny>, Py<PyAny>)> = PyOnceLock::new();

/// `value` as a C-contiguous float32 numpy array (a numpy array as it is, a CPU tensor of torch
/// or JAX through `__array__`, a list); `what` names it in the error.
fn float_array<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    if let Ok(array) = value.cast::<PyArrayDyn<f32>>()
        && array.is_c_contiguous()
    {
        return Ok(array.clone());
    }
    let (contiguous, float32) = CONTIGUOUS.get_or_try_init(py, || {
        let numpy = py.import("numpy")?;
        PyResult::Ok((
            numpy.getattr("ascontiguousarray")?.unbind(),
            numpy.getattr("float32")?.unbind(),
        ))
    })?;
    let array = contiguous
        .bind(py)
        .call1((value, float32.bind(py)))
        .map_err(|e| {
            PyTypeError::new_err(format!(
                "{what} must be float32 numbers (a numpy array, or anything numpy turns into \
                 one); {} gave: {e}",
                type_name(value)
            ))
        })?;
    Ok(array.cast_into::<PyArrayDyn<f32>>()?)
}

/// Who values the leaves.
#[derive(Debug)]
pub enum Valuer {
    /// A Python function `evaluate(obs, mask) -> (logits, value)`.
    Python(Py<PyAny>),
    /// A Rust evaluator.
    Linear(Linear),
}

impl Valuer {
    /// What `evaluate` is: a `LinearEvaluator`, or any callable.
    pub fn from_arg(evaluate: &Bound<'_, PyAny>) -> PyResult<Valuer> {
        if let Ok(linear) = evaluate.cast::<PyLinear>() {
            return Ok(Valuer::Linear(linear.get().0.clone()));
        }
        if evaluate.is_callable() {
            return Ok(Valuer::Python(evaluate.clone().unbind()));
        }
        Err(PyTypeError::new_err(format!(
            "evaluate must be a function evaluate(obs, mask) -> (logits, value) or a \
             sowing.search.LinearEvaluator; got {}",
            type_name(evaluate)
        )))
    }

    /// Refuse a game this valuer cannot value: a Rust evaluator made for another board.
    fn check(&self, holes: usize, lookahead: bool) -> PyResult<()> {
        match self {
            Valuer::Linear(l) if l.holes() != holes || l.lookahead() != lookahead => {
                Err(PyValueError::new_err(format!(
                    "the LinearEvaluator is for {} holes per row{}, the games have {holes}{}",
                    l.holes(),
                    if l.lookahead() {
                        " with look-ahead"
                    } else {
                        ""
                    },
                    if lookahead { " with look-ahead" } else { "" }
                )))
            }
            _ => Ok(()),
        }
    }

    /// The leaf function of one search: values a batch of leaves of `holes`-hole games, or fails
    /// with the Python error; `owner` is the object searching, refused if the function calls
    /// it ([`crate::reentry`]). It gives up when `stop` says so or another worker has failed
    /// (`failed`), with a placeholder error that the caller replaces.
    fn leaves<'a>(
        &'a self,
        owner: Owner,
        holes: usize,
        lookahead: bool,
        stop: &'a Stop,
        failed: &'a Failure,
    ) -> impl FnMut(&[State], &mut [Evaluation]) -> Result<(), PyErr> + Send + 'a {
        let mut linear = match self {
            Valuer::Linear(l) => Some(l.clone()),
            Valuer::Python(_) => None,
        };
        // A Rust evaluator draws nothing from it; it is there for the trait.
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        move |states, out| {
            if failed.happened() || stop.requested() {
                return Err(PyKeyboardInterrupt::new_err("the search was stopped"));
            }
            let result = match (self, &mut linear) {
                (_, Some(linear)) => {
                    linear.evaluate_batch(states, &mut rng, out);
                    Ok(())
                }
                (Valuer::Python(function), None) => {
                    call_python(function, owner, holes, lookahead, states, out)
                }
                (Valuer::Linear(_), None) => unreachable!("a linear valuer has its evaluator"),
            };
            result.map_err(|e| failed.record(e))
        }
    }
}

/// The first error among the workers of one call; the others stop at their next batch.
#[derive(Debug, Default)]
struct Failure {
    happened: AtomicBool,
    error: Mutex<Option<PyErr>>,
}

impl Failure {
    fn happened(&self) -> bool {
        self.happened.load(Ordering::Relaxed)
    }

    /// Keep `e` if it is the first; returns a placeholder to pass up.
    fn record(&self, e: PyErr) -> PyErr {
        let mut kept = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if kept.is_none() {
            *kept = Some(e);
        }
        self.happened.store(true, Ordering::Relaxed);
        PyKeyboardInterrupt::new_err("another worker failed")
    }

    /// The first error, if any, else `fallback`.
    fn take_or(&self, fallback: PyErr) -> PyErr {
        self.error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or(fallback)
    }
}

/// Value `states` (none over, all with `holes` holes) with the Python `function`: encode them
/// (without the GIL), call it once, check and read what it returned.
fn call_python(
    function: &Py<PyAny>,
    owner: Owner,
    holes: usize,
    lookahead: bool,
    states: &[State],
    out: &mut [Evaluation],
) -> PyResult<()> {
    let b = states.len();
    let len = input_len(holes, lookahead);
    let mut obs = Array2::<f32>::zeros((b, len));
    let mut mask = Array2::<bool>::from_elem((b, holes), false);
    for (i, s) in states.iter().enumerate() {
        let row = obs
            .row_mut(i)
            .into_slice()
            .expect("a row of a standard array");
        encode_input(s, lookahead, row);
        let m = mask
            .row_mut(i)
            .into_slice()
            .expect("a row of a standard array");
        s.write_mask(m);
    }
    Python::attach(|py| {
        let result = {
            let _inside = reentry::enter(owner);
            function
                .bind(py)
                .call1((obs.into_pyarray(py), mask.into_pyarray(py)))?
        };
        let pair = result.cast::<PyTuple>().ok().filter(|t| t.len() == 2);
        let Some(pair) = pair else {
            return Err(PyTypeError::new_err(format!(
                "evaluate must return a pair (logits, value), got {}",
                type_name(&result)
            )));
        };
        let logits = float_array(py, &pair.get_item(0)?, "the logits evaluate returned")?;
        let values = float_array(py, &pair.get_item(1)?, "the value evaluate returned")?;
        if logits.shape() != [b, holes] {
            return Err(PyValueError::new_err(format!(
                "evaluate returned logits of shape {:?}; they must be [B, n] = [{b}, {holes}], a \
                 row per observation, a column per action",
                logits.shape()
            )));
        }
        if values.shape() != [b] && values.shape() != [b, 1] {
            return Err(PyValueError::new_err(format!(
                "evaluate returned values of shape {:?}; they must be [B] = [{b}], one per \
                 observation",
                values.shape()
            )));
        }
        let logits = logits.readonly();
        let values = values.readonly();
        let logits = logits.as_slice()?;
        let values = values.as_slice()?;
        for (i, (s, slot)) in states.iter().zip(out.iter_mut()).enumerate() {
            let row = &logits[i * holes..(i + 1) * holes];
            let legal = s.legal_mask();
            let bad = (0..holes).find(|&a| legal >> a & 1 == 1 && !row[a].is_finite());
            if let Some(a) = bad {
                return Err(PyValueError::new_err(format!(
                    "evaluate returned logit {} for legal action {a} of observation {i}; the \
                     logits of legal actions must be finite (illegal ones may be anything)",
                    row[a]
                )));
            }
            let v = values[i];
            if !(-1.0..=1.0).contains(&v) {
                return Err(PyValueError::new_err(format!(
                    "evaluate returned value {v} for observation {i}; values are the expected \
                     result for the player to move, -1 to 1"
                )));
            }
            *slot = Evaluation::from_logits(row, legal, v);
        }
        Ok(())
    })
}

/// `value` (a serde struct of the core) as a Python dict, the form its keywords take.
fn as_dict<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyDict>> {
    let json = serde_json::to_string(value).expect("a config serialises");
    Ok(py
        .import("json")?
        .call_method1("loads", (json,))?
        .cast_into::<PyDict>()?)
}

/// The search's keywords and their defaults (`SearchSpec::default`): what a keyword left out
/// of `Search`, `search` and `NetworkAgent` means. `time` is seconds per move, `None` for none.
#[pyfunction]
pub fn search_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    as_dict(py, &SearchSpec::default())
}

/// Self-play's keywords and their defaults (`SelfPlayConfig::default`), the search's among them
/// (its root noise on): what a keyword left out of `self_play` means.
#[pyfunction]
pub fn self_play_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let all = as_dict(py, &SelfPlayConfig::default())?;
    let search = all.get_item("search")?.expect("the config has a search");
    all.del_item("search")?;
    all.update(search.cast::<PyDict>()?.as_mapping())?;
    Ok(all)
}

/// The search spec of keyword arguments `search`, checked by the core; with `time` and no
/// `simulations`, the simulations are capped only by the most a move may have.
fn search_spec(py: Python<'_>, search: Option<&Bound<'_, PyDict>>) -> PyResult<SearchSpec> {
    let mut spec: SearchSpec = from_keywords(py, search, "invalid search")?;
    let given = |key: &str| search.is_some_and(|d| d.get_item(key).ok().flatten().is_some());
    if spec.time.is_some() && !given("simulations") {
        spec.puct.simulations = MAX_SIMULATIONS;
    }
    Ok(spec)
}

/// The `MemoryError` of a search whose trees could not grow: the estimate checked first fell
/// short (kept trees that outgrew it), and the allocator refused.
fn out_of_memory(trees: usize) -> PyErr {
    PyMemoryError::new_err(format!(
        "searching {trees} trees ran out of memory: the allocator refused the trees room to \
         grow; search fewer states or simulations at once (or clear() kept trees)"
    ))
}

/// Bytes a search of `trees` roots of `holes` holes per row with `config` takes: the trees
/// (`sowing_agents::puct::search_bytes`, `kept` when they are kept from call to call), and on
/// this side, per leaf of a round the network's input and mask and what it returns, per root the
/// arrays returned.
fn search_memory(
    trees: usize,
    holes: usize,
    config: &PuctConfig,
    kept: bool,
    lookahead: bool,
) -> u128 {
    let leaves = u128::from(config.leaf_batch.max(1));
    let per_leaf = (4 * input_len(holes, lookahead) + holes + 4 * holes + 4) as u128;
    let per_root = (12 * holes + 12) as u128;
    search_bytes(trees, holes, config, kept) + trees as u128 * (leaves * per_leaf + per_root)
}

/// Refuse, with `MemoryError`, a search of `trees` roots that memory cannot hold (see
/// [`search_memory`]).
fn check_search_memory(
    trees: usize,
    holes: usize,
    config: &PuctConfig,
    kept: bool,
    lookahead: bool,
) -> PyResult<()> {
    memory::check(
        search_memory(trees, holes, config, kept, lookahead),
        &format!(
            "searching {trees} trees of {} simulations",
            config.simulations
        ),
    )
}

/// What [`PySearch::run`] returns: visits, priors, values, the actions to play, and with a
/// Gumbel root the improved policy.
type SearchArrays<'py> = (
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<i64>>,
    Option<Bound<'py, PyArray2<f32>>>,
);

/// The batched search with its trees, kept between calls.
#[pyclass(name = "Search", module = "sowing._sowing", frozen)]
#[derive(Debug)]
pub struct PySearch {
    valuer: Valuer,
    spec: SearchSpec,
    lookahead: bool,
    search: Mutex<BatchSearch>,
}

impl PySearch {
    /// The searcher, for a thread without the GIL (see `PyAgent::lock`).
    fn lock(&self) -> MutexGuard<'_, BatchSearch> {
        self.search.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl PySearch {
    /// The search of `evaluate` with the settings of keywords `search` (see `search_defaults`).
    #[new]
    #[pyo3(signature = (evaluate, lookahead, **search))]
    fn new(
        py: Python<'_>,
        evaluate: &Bound<'_, PyAny>,
        lookahead: bool,
        search: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PySearch> {
        Ok(PySearch {
            valuer: Valuer::from_arg(evaluate)?,
            spec: search_spec(py, search)?,
            lookahead,
            search: Mutex::new(BatchSearch::new()),
        })
    }

    /// Search `states` (none over, all of one board size), root `i` in tree `trees[i]` kept
    /// from its last search when given, else in fresh trees; root `i`'s noise is stream `i`
    /// of `seed`. Returns visits `[B, n]`, priors `[B, n]`, root values `[B]` and the most
    /// visited actions `[B]`.
    #[pyo3(signature = (states, seed, trees = None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        states: Vec<PyRef<'py, PyState>>,
        seed: &Bound<'py, PyAny>,
        trees: Option<Vec<usize>>,
    ) -> PyResult<SearchArrays<'py>> {
        reentry::refuse(Owner::of(self), "this Search")?;
        let seed = args::seed(seed)?;
        let roots: Vec<State> = states.iter().map(|s| s.0).collect();
        let Some(first) = roots.first() else {
            return Err(PyValueError::new_err("search needs at least one state"));
        };
        let holes = first.holes();
        if roots.len() as i128 > MAX_GAMES {
            return Err(PyValueError::new_err(format!(
                "at most {MAX_GAMES} states are searched together, got {}",
                roots.len()
            )));
        }
        for (i, s) in roots.iter().enumerate() {
            if s.is_over() {
                return Err(GameOverError::new_err(format!(
                    "state {i} is over ({}); only games that go on can be searched",
                    s.outcome()
                )));
            }
            if s.holes() != holes {
                return Err(PyValueError::new_err(format!(
                    "state {i} has {} holes per row and state 0 has {holes}; one search takes one \
                     board size",
                    s.holes()
                )));
            }
        }
        if let Some(trees) = &trees {
            if trees.len() != roots.len() {
                return Err(PyValueError::new_err(format!(
                    "trees must name one tree per state: {} states, {} trees",
                    roots.len(),
                    trees.len()
                )));
            }
            let mut sorted = trees.clone();
            sorted.sort_unstable();
            if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(PyValueError::new_err(format!(
                    "tree {} is named twice; each state is searched in a tree of its own",
                    w[0]
                )));
            }
            if sorted.last().is_some_and(|&t| t as i128 >= MAX_GAMES) {
                return Err(PyValueError::new_err(format!(
                    "trees are numbered 0 to {}",
                    MAX_GAMES - 1
                )));
            }
        }
        let gumbel = matches!(self.spec.root, Root::Gumbel(_));
        if gumbel && trees.is_some() {
            return Err(PyValueError::new_err(
                "a Gumbel root searches every state afresh; trees= keeps PUCT trees from search to \
                 search (root='puct')",
            ));
        }
        self.valuer.check(holes, self.lookahead)?;
        check_search_memory(
            roots.len(),
            holes,
            &self.spec.puct,
            trees.is_some(),
            self.lookahead,
        )?;
        let failure = Failure::default();
        let results = long_call::run(py, SEARCH_STACK, |stop| {
            let mut rngs: Vec<ChaCha8Rng> = (0..roots.len() as u64)
                .map(|i| stream(seed, SEARCH_NOISE, i))
                .collect();
            let leaves =
                self.valuer
                    .leaves(Owner::of(self), holes, self.lookahead, &stop, &failure);
            let mut search = self.lock();
            let kept = match &trees {
                Some(trees) => Trees::Kept(trees),
                None => Trees::Fresh,
            };
            let found = search.run(&roots, kept, &self.spec, &mut rngs, leaves);
            if search.out_of_memory() {
                search.clear();
                return Err(out_of_memory(roots.len()));
            }
            found
        })?
        .map_err(|e| failure.take_or(e))?;
        let b = results.len();
        let mut visits = Array2::<i64>::zeros((b, holes));
        let mut priors = Array2::<f32>::zeros((b, holes));
        let mut values = Array1::<f32>::zeros(b);
        let mut actions = Array1::<i64>::zeros(b);
        let mut improved = gumbel.then(|| Array2::<f32>::zeros((b, holes)));
        for (i, RootOutput { search: r, gumbel }) in results.iter().enumerate() {
            for a in 0..holes {
                visits[[i, a]] = i64::from(r.visits[a]);
                priors[[i, a]] = r.priors[a];
            }
            values[i] = r.value;
            // With a Gumbel root the halving's winner, as self-play explores.
            let action = gumbel.map_or_else(|| r.best_action(), |g| g.action);
            actions[i] = action as i64;
            if let (Some(improved), Some(g)) = (&mut improved, gumbel) {
                for a in 0..holes {
                    improved[[i, a]] = g.policy[a];
                }
            }
        }
        Ok((
            visits.into_pyarray(py),
            priors.into_pyarray(py),
            values.into_pyarray(py),
            actions.into_pyarray(py),
            improved.map(|p| p.into_pyarray(py)),
        ))
    }

    /// Forget every tree, so that the next search starts afresh.
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        reentry::refuse(Owner::of(self), "this Search")?;
        py.detach(|| self.lock().clear());
        Ok(())
    }
}

/// What [`self_play`] returns: observations, masks, visit distributions, value targets, players,
/// and the number of games South won.
type SampleArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<i64>>,
    u32,
);

/// Play self-play games `first_game..first_game + games` of `variant` (see
/// `sowing_agents::puct::self_play`), on `threads` workers, `parallel_games` at a time in all,
/// as keywords `config` say (`self_play_defaults`: the search's keywords and self-play's own,
/// read into a `SelfPlayConfig` and checked by it); returns their positions as arrays.
#[pyfunction]
#[pyo3(signature = (variant, evaluate, games, first_game, seed, iteration, parallel_games, threads, **config))]
#[allow(clippy::too_many_arguments)]
pub fn self_play<'py>(
    py: Python<'py>,
    variant: &Bound<'py, PyAny>,
    evaluate: &Bound<'py, PyAny>,
    games: &Bound<'py, PyAny>,
    first_game: &Bound<'py, PyAny>,
    seed: &Bound<'py, PyAny>,
    iteration: &Bound<'py, PyAny>,
    parallel_games: &Bound<'py, PyAny>,
    threads: &Bound<'py, PyAny>,
    config: Option<&Bound<'py, PyDict>>,
) -> PyResult<SampleArrays<'py>> {
    let rules = rules_arg(variant)?;
    let valuer = Valuer::from_arg(evaluate)?;
    let games = args::int_in(games, "games", 1, MAX_GAMES, "1 to 2**20")? as u32;
    let first_game = args::int_in(
        first_game,
        "first_game",
        0,
        i128::from(u32::MAX - games),
        "0 or more, the last game numbered below 2**32",
    )? as u32;
    let seed = args::seed(seed)?;
    let iteration = args::int_in(iteration, "iteration", 0, u32::MAX.into(), "0 to 2**32 - 1")?;
    let parallel_games =
        args::int_in(parallel_games, "parallel_games", 1, MAX_GAMES, "1 to 2**20")? as u32;
    let threads = match args::int_in(threads, "threads", 0, MAX_THREADS, "0 (every core) to 256")? {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        t => t as u32,
    };
    // The search's keywords go to the config's `search`, the others beside it.
    let searched = as_dict(py, &SearchSpec::default())?;
    let (search, play) = (PyDict::new(py), PyDict::new(py));
    for (key, value) in config.map(|c| c.iter()).into_iter().flatten() {
        let to = if searched.contains(&key)? {
            &search
        } else {
            &play
        };
        to.set_item(key, value)?;
    }
    let noise = SelfPlayConfig::default().search.puct.noise_fraction;
    if !search.contains("noise_fraction")? {
        search.set_item("noise_fraction", noise)?;
    }
    play.set_item("search", search)?;
    let config: SelfPlayConfig = from_keywords(py, Some(&play), "invalid self-play")?;
    let lookahead = config.lookahead;
    let puct = config.search.puct;
    let holes = rules.holes();
    valuer.check(holes, lookahead)?;
    // The trees of the games played at once, and the samples of every game, reckoning
    // `TYPICAL_PLIES` positions per game: each as a sample (input, policy, value, player) and
    // as a row of the arrays returned.
    let row = 4 * (input_len(holes, lookahead) + holes + 2) + holes + 8;
    let samples = u128::from(games) * (TYPICAL_PLIES * 2 * row) as u128;
    memory::check(
        search_memory(parallel_games as usize, holes, &puct, false, lookahead) + samples,
        &format!(
            "self-play searching {parallel_games} trees of {} simulations, with the samples of \
             {games} games",
            puct.simulations
        ),
    )?;
    let failure = Failure::default();
    let played = long_call::run(py, SEARCH_STACK, |stop| {
        let workers = threads.min(games) as usize;
        let evaluators = (0..workers)
            .map(|_| valuer.leaves(Owner::NONE, holes, lookahead, &stop, &failure))
            .collect();
        play_dealt(
            &rules,
            &config,
            seed,
            iteration as u32,
            first_game,
            games,
            parallel_games,
            evaluators,
            &mut |_| {
                // Here, on the calling thread, Python's signal handlers can run (the workers'
                // threads never run them); a Ctrl-C stops every worker at its next batch.
                if stop.requested() {
                    let _ = failure.record(PyKeyboardInterrupt::new_err("stopped"));
                }
            },
        )
    })?
    .map_err(|e| failure.take_or(e))?;
    if played.out_of_memory {
        return Err(out_of_memory(parallel_games as usize));
    }
    let n = played.samples.len();
    let len = input_len(holes, lookahead);
    let mut obs = Array2::<f32>::zeros((n, len));
    let mut mask = Array2::<bool>::from_elem((n, holes), false);
    let mut policy = Array2::<f32>::zeros((n, holes));
    let mut value = Array1::<f32>::zeros(n);
    let mut player = Array1::<i64>::zeros(n);
    for (i, s) in played.samples.iter().enumerate() {
        for (d, &x) in s.input.iter().enumerate() {
            obs[[i, d]] = x;
        }
        for a in 0..holes {
            // The last `n` values of the input are the legal mask.
            mask[[i, a]] = s.input[len - holes + a] > 0.5;
            policy[[i, a]] = s.policy[a];
        }
        value[i] = s.value;
        player[i] = s.player.index() as i64;
    }
    Ok((
        obs.into_pyarray(py),
        mask.into_pyarray(py),
        policy.into_pyarray(py),
        value.into_pyarray(py),
        player.into_pyarray(py),
        played.south_wins,
    ))
}

/// What [`PyNetworkAgent::explain`] returns: the move, the root's value, the principal line and
/// the root's visits.
type Explained = (usize, f32, Vec<usize>, Vec<u32>);

/// A player that searches with a Python network (or a Rust evaluator) and plays the most visited
/// move, without noise, keeping its tree from move to move; in the endgame an exact solver first,
/// as the agent `az:` does.
#[pyclass(name = "NetworkAgent", module = "sowing._sowing", frozen, subclass, extends = crate::agents::PyAgent)]
#[derive(Debug)]
pub struct PyNetworkAgent {
    name: String,
    valuer: Valuer,
    /// Its search, without noise; a time covers the whole move, the solver's search included.
    spec: SearchSpec,
    lookahead: bool,
    holes: usize,
    solver_nodes: u64,
    player: Mutex<NetworkPlayer>,
}

/// What a network agent keeps from move to move.
#[derive(Debug)]
struct NetworkPlayer {
    search: BatchSearch,
    solver: Solver,
    rng: ChaCha8Rng,
    seed: u64,
}

impl PyNetworkAgent {
    fn lock(&self) -> MutexGuard<'_, NetworkPlayer> {
        self.player.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refuse a call from inside this agent's own network ([`crate::reentry`]).
    fn refuse_reentry(&self) -> PyResult<()> {
        reentry::refuse(Owner::of(self), &format!("NetworkAgent {:?}", self.name))
    }
}

#[pymethods]
impl PyNetworkAgent {
    /// The agent of `evaluate` for boards of `holes` holes, searching as keywords `search` say
    /// (see `search_defaults`; with `time` and no `simulations`, as many simulations as the time
    /// allows); named `name`, or `network:SIMS` / `network:TIMEs`.
    #[new]
    #[pyo3(signature = (name, evaluate, holes, lookahead, solver_nodes, seed, **search))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        name: Option<String>,
        evaluate: &Bound<'_, PyAny>,
        holes: &Bound<'_, PyAny>,
        lookahead: bool,
        solver_nodes: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        search: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyClassInitializer<PyNetworkAgent>> {
        let holes = args::int_in(holes, "holes", 1, MAX_HOLES as i128, "1 to 16")? as usize;
        let spec = search_spec(py, search)?.without_noise();
        let solver_nodes = args::int_in(
            solver_nodes,
            "solver_nodes",
            0,
            MAX_SOLVER_NODES.into(),
            "0 (no solver) to 1000000000 positions per move",
        )? as u64;
        let seed = args::seed(seed)?;
        let valuer = Valuer::from_arg(evaluate)?;
        valuer.check(holes, lookahead)?;
        let name = name.unwrap_or_else(|| match spec.time {
            Some(t) => format!("network:{}s", t.as_secs_f64()),
            None => format!("network:{}", spec.puct.simulations),
        });
        let base = PyClassInitializer::from(crate::agents::PyAgent::base(&name));
        Ok(base.add_subclass(PyNetworkAgent {
            name,
            valuer,
            spec,
            lookahead,
            holes,
            solver_nodes,
            player: Mutex::new(NetworkPlayer {
                search: BatchSearch::new(),
                solver: Solver::new(SOLVER_TABLE_BITS),
                rng: ChaCha8Rng::seed_from_u64(seed),
                seed,
            }),
        }))
    }

    /// The legal action this agent plays in `state`. Raises `GameOverError` on a finished game
    /// and `ValueError` on a board of another size; an exception of its network is raised as it
    /// is, the agent's tree then forgotten.
    fn choose(&self, py: Python<'_>, state: &PyState) -> PyResult<usize> {
        Ok(self.explain(py, state)?.0)
    }

    /// The move `choose` plays, with why: `(action, value, line, visits)`, the root's mean value
    /// for the mover (-1 to 1), the principal line (the most visited move at each node, from
    /// the move played) and the root's visits per action; a move the solver proved wins has
    /// the value 1, the line of that move alone and no visits. Moves as `choose` does (the
    /// tree and the random stream go on).
    fn explain(&self, py: Python<'_>, state: &PyState) -> PyResult<Explained> {
        self.refuse_reentry()?;
        let state = state.0;
        game_goes_on(&state)?;
        if state.holes() != self.holes {
            return Err(PyValueError::new_err(format!(
                "{} plays boards of {} holes per row and cannot play a {}-hole game",
                self.name,
                self.holes,
                state.holes()
            )));
        }
        // A time covers the whole move, the solver's search included.
        let deadline = self.spec.time.map(|t| Instant::now() + t);
        let failure = Failure::default();
        long_call::run(py, SEARCH_STACK, |stop| {
            let mut p = self.lock();
            let NetworkPlayer {
                search,
                solver,
                rng,
                ..
            } = &mut *p;
            let mut losing = 0u16;
            let on_board = state.board().sum(0, 2 * state.holes());
            if self.solver_nodes > 0 && on_board <= SOLVER_SEEDS {
                solver.set_stop(stop.clone());
                let proof = solver.prove(&state, self.solver_nodes, SOLVER_DEPTH);
                solver.set_stop(Stop::never());
                if let Some((a, _)) = proof.winning {
                    return Ok((a, 1.0, vec![a], vec![0; self.holes]));
                }
                losing = proof.losing;
            }
            let mut noise = [rng.clone()];
            let leaves =
                self.valuer
                    .leaves(Owner::of(self), self.holes, self.lookahead, &stop, &failure);
            let spec = SearchSpec {
                // What the solver left of the clock; a round of simulations at least.
                time: deadline.map(|d| {
                    d.saturating_duration_since(Instant::now())
                        .max(Duration::from_nanos(1))
                }),
                ..self.spec
            };
            let found = search.run(
                std::slice::from_ref(&state),
                Trees::Kept(&[0]),
                &spec,
                &mut noise,
                leaves,
            )?;
            if search.out_of_memory() {
                search.clear();
                return Err(out_of_memory(1));
            }
            let r = &found[0];
            let action = match &r.gumbel {
                Some(g) if losing >> g.best & 1 == 0 => g.best,
                _ => r.search.best_action_among(!losing),
            };
            let mut line = search.principal_line(0, EXPLAINED_PLIES);
            if line.first() != Some(&action) {
                line = vec![action];
            }
            let visits = r.search.visits[..self.holes].to_vec();
            Ok((action, r.search.value, line, visits))
        })?
        .map_err(|e: PyErr| failure.take_or(e))
    }

    /// The search's settings, as the keywords that made it (noise off).
    #[getter]
    fn search<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        as_dict(py, &self.spec)
    }

    /// Restart the agent's random stream from `seed`.
    fn seed(&self, py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        self.refuse_reentry()?;
        let seed = args::seed(seed)?;
        py.detach(|| {
            let mut p = self.lock();
            p.rng = ChaCha8Rng::seed_from_u64(seed);
            p.seed = seed;
        });
        Ok(())
    }

    /// The seed its random stream last started from.
    #[getter]
    fn current_seed(&self, py: Python<'_>) -> PyResult<u64> {
        self.refuse_reentry()?;
        Ok(py.detach(|| self.lock().seed))
    }

    /// Forget the tree and the solver's table before a new game.
    fn new_game(&self, py: Python<'_>) -> PyResult<()> {
        self.refuse_reentry()?;
        py.detach(|| {
            let mut p = self.lock();
            p.search.clear();
            p.solver.clear();
        });
        Ok(())
    }

    /// The agent's name, e.g. `az:runs/x:64`.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    fn __call__(&self, py: Python<'_>, state: &PyState) -> PyResult<usize> {
        self.choose(py, state)
    }

    fn __repr__(&self) -> String {
        format!("NetworkAgent({:?})", self.name)
    }
}

/// A network agent as the batch player of a match: its moves in every game searched together,
/// game `g` in tree `g`. After an error it plays the first legal move until the match ends (which
/// the stopped opponents make quick), and the error is raised.
struct BatchNetwork<'a> {
    agent: &'a PyNetworkAgent,
    search: BatchSearch,
    stop: &'a Stop,
    failure: &'a Failure,
}

impl BatchPlayer for BatchNetwork<'_> {
    fn name(&self) -> String {
        self.agent.name.clone()
    }

    fn choose_batch(
        &mut self,
        slots: &[usize],
        states: &[State],
        rngs: &mut [ChaCha8Rng],
    ) -> Vec<usize> {
        let first_legal = |s: &State| s.legal_actions().next().unwrap_or(0);
        if self.failure.happened() {
            return states.iter().map(first_legal).collect();
        }
        let a = self.agent;
        let leaves = a
            .valuer
            .leaves(Owner::of(a), a.holes, a.lookahead, self.stop, self.failure);
        // A Gumbel root searches afresh; a time is the time of this batch of moves.
        let chosen = self
            .search
            .run(states, Trees::Kept(slots), &a.spec, rngs, leaves)
            .map(|rs| rs.iter().map(RootOutput::best_action).collect());
        if self.search.out_of_memory() {
            self.search.clear();
            let _ = self.failure.record(out_of_memory(states.len()));
        }
        chosen.unwrap_or_else(|_| states.iter().map(first_legal).collect())
    }
}

/// The results of a match, from the first player's side: wins, draws (truncated games
/// included), losses.
type MatchCounts = (u32, u32, u32);

/// Play `games` games of `variant` between `agent` (South in even games) and the agent of spec
/// `opponent`, each opening `opening` random plies shared by a side-swapped pair, seeded by
/// `seed` as the trainer's rating matches are; the opponent's moves on `threads` threads. The
/// agent plays without its endgame solver, as the trainer's network does.
#[pyfunction]
#[pyo3(signature = (variant, agent, opponent, games, seed, opening, threads))]
#[allow(clippy::too_many_arguments)]
pub fn network_match(
    py: Python<'_>,
    variant: &Bound<'_, PyAny>,
    agent: &PyNetworkAgent,
    opponent: &str,
    games: &Bound<'_, PyAny>,
    seed: &Bound<'_, PyAny>,
    opening: &Bound<'_, PyAny>,
    threads: &Bound<'_, PyAny>,
) -> PyResult<MatchCounts> {
    agent.refuse_reentry()?;
    let rules = rules_arg(variant)?;
    let games = args::int_in(games, "games", 1, MAX_GAMES, "1 to 2**20")? as u64;
    let seed = args::seed(seed)?;
    let opening = args::int_in(opening, "opening", 0, MAX_OPENING, "0 to 100")? as u32;
    let threads = args::int_in(threads, "threads", 0, MAX_THREADS, "0 (every core) to 256")?;
    if rules.holes() != agent.holes {
        return Err(PyValueError::new_err(format!(
            "{} plays boards of {} holes per row and cannot play {} holes",
            agent.name,
            agent.holes,
            rules.holes()
        )));
    }
    let opponent: AgentSpec = opponent.parse().map_err(crate::spec::spec_error)?;
    opponent.build().map_err(crate::spec::spec_error)?;
    check_search_memory(
        games as usize,
        agent.holes,
        &agent.spec.puct,
        true,
        agent.lookahead,
    )?;
    let failure = Arc::new(Failure::default());
    let played = long_call::run(py, SEARCH_STACK, |stop| {
        let mut network = BatchNetwork {
            agent,
            search: BatchSearch::new(),
            stop: &stop,
            failure: &failure,
        };
        let m = Match {
            rules,
            seed,
            salts: Salts::RATING,
            opening_plies: opening,
            openings: matches::Openings::Random,
            pairings: vec![Pairing {
                a: 0,
                b: 1,
                games: 0..games,
            }],
            threads: threads as usize,
            keep_records: false,
        };
        let stopping = stopping_factory(&stop, &failure);
        let mut seats = [
            Seat::Batch(&mut network),
            Seat::Agent {
                spec: opponent.clone(),
                factory: &stopping,
            },
        ];
        matches::play(&m, &mut seats, &mut |_| {})
    })?;
    if failure.happened() {
        return Err(failure.take_or(PyKeyboardInterrupt::new_err("the match was stopped")));
    }
    let played = played.map_err(|e| PyValueError::new_err(e.to_string()))?;
    let count = played.tallies[0].pair_count(0, 1);
    Ok((count.wins, count.draws, count.losses))
}

/// Agents from specs that give up when the call is stopped or the network has failed.
fn stopping_factory(
    stop: &Stop,
    failure: &Arc<Failure>,
) -> impl Fn(&AgentSpec) -> Result<Box<dyn Agent>, sowing_agents::SpecError> + Sync + use<> {
    let (stop, failure) = (stop.clone(), Arc::clone(failure));
    move |spec: &AgentSpec| {
        let mut agent = spec.build()?;
        let (stop, failure) = (stop.clone(), Arc::clone(&failure));
        agent.set_stop(Stop::when(move || failure.happened() || stop.requested()));
        Ok(agent)
    }
}

/// Rate `names` (agent specs) by a round robin of `games` games per pair on `variant`, each side
/// of each opening of `opening` plies; their Elo ratings, `names[0]` anchored at 0.
#[pyfunction]
#[pyo3(signature = (variant, names, games, seed, opening, threads))]
pub fn rate_round_robin(
    py: Python<'_>,
    variant: &Bound<'_, PyAny>,
    names: Vec<String>,
    games: &Bound<'_, PyAny>,
    seed: &Bound<'_, PyAny>,
    opening: &Bound<'_, PyAny>,
    threads: &Bound<'_, PyAny>,
) -> PyResult<Vec<f64>> {
    let rules = rules_arg(variant)?;
    let games = args::int_in(games, "games", 1, MAX_GAMES, "1 to 2**20")? as u64;
    let seed = args::seed(seed)?;
    let opening = args::int_in(opening, "opening", 0, MAX_OPENING, "0 to 100")? as u32;
    let threads = args::int_in(threads, "threads", 0, MAX_THREADS, "0 (every core) to 256")?;
    if names.len() < 2 {
        return Err(PyValueError::new_err(
            "a round robin needs at least two agents",
        ));
    }
    let names: Vec<AgentSpec> = names
        .iter()
        .map(|name| name.parse().map_err(crate::spec::spec_error))
        .collect::<PyResult<_>>()?;
    for name in &names {
        name.build().map_err(crate::spec::spec_error)?;
    }
    let failure = Arc::new(Failure::default());
    long_call::run(py, SEARCH_STACK, |stop| {
        let stopping = stopping_factory(&stop, &failure);
        matches::rate_round_robin(
            &rules,
            &names,
            &stopping,
            games,
            seed,
            opening,
            threads as usize,
            &mut |_| {},
        )
    })?
    .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The Elo rating, and the half-width of its interval at normal quantile `z`, of a player with
/// `results`: for each opponent its rating, the player's points (wins plus half the draws) and
/// games.
#[pyfunction]
#[pyo3(signature = (results, z))]
pub fn elo_against(results: Vec<(f64, f64, u64)>, z: f64) -> PyResult<(f64, f64)> {
    if results.is_empty() {
        return Err(PyValueError::new_err(
            "a rating needs results against someone",
        ));
    }
    for &(elo, points, games) in &results {
        if !elo.is_finite() || !(0.0..=games as f64).contains(&points) || games == 0 {
            return Err(PyValueError::new_err(format!(
                "each result is (opponent's Elo, points 0 to games, games > 0); got ({elo}, \
                 {points}, {games})"
            )));
        }
    }
    if !(z.is_finite() && z > 0.0) {
        return Err(PyValueError::new_err(format!(
            "z must be positive, got {z}"
        )));
    }
    let rated: Vec<(f64, Rate)> = results
        .iter()
        .map(|&(elo, points, games)| (elo, Rate::new(points, games)))
        .collect();
    Ok(rate_against(&rated, z))
}
