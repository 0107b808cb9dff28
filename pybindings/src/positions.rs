//! Exact test positions from Python, as `sowing positions` makes them: `PositionsLabelling`
//! holds the settings (checked when made) and labels any range of games
//! (`sowing_eval::labelling`), and `PositionsCollector` deals the game numbers in batches and
//! merges the outcomes, in game order, into the file, written by the Rust writer of the format.
//! The Ray driver (`python -m sowing.ray.positions`) deals the ranges to Ray tasks, each making
//! its own `PositionsLabelling` and handing back the outcomes as text; the file is the one
//! `sowing positions` writes, byte for byte.
//!
//! Labelling is a long call (see [`crate::long_call`]): the GIL released, and a Ctrl-C ends the
//! agents' searches, and the labelling at its next position, at once. The games are played on
//! threads of the match loop, so the work runs on a thread apart while the caller waits.

use crate::args;
use crate::long_call;
use crate::rules::{rules_arg, type_name};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use sowing_agents::AgentSpec;
use sowing_eval::labelling::{
    self, Collector, DEFAULT_AGENTS, DEFAULT_OPENING, DEFAULT_VARIANT, MAX_MID_GAME,
};
use sowing_exact::searches::{DEFAULT_NODES, DEFAULT_TABLE_BITS, TABLE_BITS};
use sowing_exact::tablebase::Tablebase;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Stack of the thread that runs a call: it deals the games to the match loop's threads and the
/// positions to the searches' threads, each with a stack of its own, and plays none itself.
const CALL_STACK: usize = 1 << 20;

/// The most games one call labels: a Ray task takes a part of a batch of at most 4,096.
const MAX_GAMES: u64 = 1_000_000;

/// A refusal as Python's ValueError. The labelling's ([`labelling::Refused`]) name its settings
/// by their fields, which are the keyword arguments' names.
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

use crate::error::labelling as to_py;

/// How exact positions are drawn from games between two agents and labelled (see
/// `sowing.PositionsLabelling` in `_sowing.pyi`).
#[derive(Debug)]
#[pyclass(name = "PositionsLabelling", module = "sowing._sowing", frozen)]
pub struct PyLabelling {
    labelling: labelling::Labelling,
    /// The rules file the rules were read from, which the output must not replace.
    rules_file: Option<PathBuf>,
    /// The tablebase, opened on the first call that needs it (once per process).
    table: OnceLock<Option<Arc<Tablebase>>>,
}

impl PyLabelling {
    fn table(&self) -> PyResult<Option<Arc<Tablebase>>> {
        if let Some(t) = self.table.get() {
            return Ok(t.clone());
        }
        let t = self.labelling.open_table().map_err(value_error)?;
        Ok(self.table.get_or_init(|| t).clone())
    }
}

#[pymethods]
impl PyLabelling {
    #[new]
    #[pyo3(signature = (
        variant = None, *, rules_file = None, seed = None, agents = None, opening = None,
        nodes = None, table_bits = None, tablebase = None, mid_game = None, phases = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        variant: Option<&Bound<'_, PyAny>>,
        rules_file: Option<PathBuf>,
        seed: Option<&Bound<'_, PyAny>>,
        agents: Option<Vec<String>>,
        opening: Option<&Bound<'_, PyAny>>,
        nodes: Option<&Bound<'_, PyAny>>,
        table_bits: Option<&Bound<'_, PyAny>>,
        tablebase: Option<PathBuf>,
        mid_game: Option<&Bound<'_, PyAny>>,
        phases: Option<&str>,
    ) -> PyResult<PyLabelling> {
        let (name, rules) = match (variant, &rules_file) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "give a variant or a rules_file, not both",
                ));
            }
            (None, Some(path)) => sowing_env::read_rules_file(path).map_err(value_error)?,
            (Some(v), None) => {
                let name = match v.cast::<PyString>() {
                    Ok(s) => s.to_str()?.to_string(),
                    Err(_) => "custom".to_string(),
                };
                (name, rules_arg(v)?)
            }
            (None, None) => (
                DEFAULT_VARIANT.to_string(),
                sowing_env::Rules::preset(DEFAULT_VARIANT).map_err(crate::error::to_py)?,
            ),
        };
        let agents = agents.unwrap_or_else(|| DEFAULT_AGENTS.map(String::from).to_vec());
        let count = agents.len();
        let agents = agents
            .iter()
            .map(|a| a.trim().parse().map_err(crate::spec::spec_error))
            .collect::<PyResult<Vec<AgentSpec>>>()?;
        let Ok(agents) = <[AgentSpec; 2]>::try_from(agents) else {
            return Err(PyValueError::new_err(format!(
                "agents takes two agent specs (the same one twice is allowed), got {count}"
            )));
        };
        let int = |v: Option<&Bound<'_, PyAny>>,
                   name: &str,
                   min: i128,
                   max: i128,
                   allowed: &str,
                   default: i128| match v {
            Some(v) => args::int_in(v, name, min, max, allowed),
            None => Ok(default),
        };
        let labelling = labelling::Labelling {
            rules,
            variant: name,
            seed: match seed {
                Some(s) => args::seed(s)?,
                None => 0,
            },
            agents,
            opening: int(
                opening,
                "opening",
                0,
                u32::MAX.into(),
                "0 to 2**32 - 1 random plies",
                DEFAULT_OPENING.into(),
            )? as u32,
            nodes: int(
                nodes,
                "nodes",
                1,
                u64::MAX.into(),
                "at least 1 (positions the search may make per position)",
                DEFAULT_NODES.into(),
            )? as u64,
            table_bits: int(
                table_bits,
                "table_bits",
                (*TABLE_BITS.start()).into(),
                (*TABLE_BITS.end()).into(),
                "10 to 30 (2^BITS slots of 16 bytes per search)",
                DEFAULT_TABLE_BITS.into(),
            )? as u32,
            tablebase,
            mid_game: int(
                mid_game,
                "mid_game",
                0,
                MAX_MID_GAME.into(),
                "a share of the games in percent, 0 to 100",
                0,
            )? as u32,
            // The window's grammar is the library's, as `sowing positions --phases` reads it.
            phases: phases
                .map(|w| w.parse::<labelling::PhaseWindow>())
                .transpose()
                .map_err(|e| PyValueError::new_err(format!("phases: {e}")))?,
        };
        labelling.check().map_err(value_error)?;
        Ok(PyLabelling {
            labelling,
            rules_file,
            table: OnceLock::new(),
        })
    }

    /// Play games `start..end` on `threads` threads (0: one per core), draw a position from
    /// each and label it: the outcomes as text, for `PositionsCollector.add`.
    #[pyo3(signature = (start, end, threads = None))]
    fn label(
        &self,
        py: Python<'_>,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let start = args::int_in(
            start,
            "start",
            0,
            u64::MAX.into(),
            "a game number, 0 to 2**64 - 1",
        )? as u64;
        let end = args::int_in(
            end,
            "end",
            start.into(),
            u64::MAX.into(),
            "a game number from start on",
        )? as u64;
        if end - start > MAX_GAMES {
            return Err(PyValueError::new_err(format!(
                "games {start}..{end} are {} games, more than the {MAX_GAMES} one call labels",
                end - start
            )));
        }
        let threads = args::threads(threads, 1)?;
        let threads = args::search_threads(
            threads,
            self.labelling.table_bits,
            self.labelling.nodes,
            usize::MAX,
        )?;
        let table = self.table()?;
        let labelling = &self.labelling;
        let drawn = long_call::run_apart(py, CALL_STACK, |stop| {
            labelling.label_games(table.as_ref(), start..end, threads, &stop, &|_| {})
        })?
        .map_err(to_py)?;
        Ok(labelling::encode(&drawn))
    }

    /// A collector of `count` positions to be written to `out` (checked now: not the
    /// tablebase, nor `rules_file`).
    #[pyo3(signature = (count, out))]
    fn collector(&self, count: &Bound<'_, PyAny>, out: PathBuf) -> PyResult<PyCollector> {
        let count =
            args::int_in(count, "count", 1, u32::MAX.into(), "at least 1 position")? as usize;
        let l = &self.labelling;
        sowing_exact::output_file::check_apart(
            &out,
            &[
                ("--tablebase", l.tablebase.as_deref()),
                ("--rules", self.rules_file.as_deref()),
            ],
        )
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let table = self.table()?;
        let collector = Collector::new(l, table.as_deref(), count).map_err(value_error)?;
        Ok(PyCollector {
            rules: l.rules,
            out,
            collector: Some(collector),
        })
    }

    fn __repr__(&self) -> String {
        let l = &self.labelling;
        format!(
            "PositionsLabelling({:?}, seed={}, agents={:?}, opening={}, nodes={}, table_bits={}, tablebase={:?})",
            l.variant,
            l.seed,
            l.agents,
            l.opening,
            l.nodes,
            l.table_bits,
            l.tablebase.as_ref().map(|p| p.display().to_string())
        )
    }
}

/// Deals game numbers and merges the labelled games, in game order, into a positions file.
#[derive(Debug)]
#[pyclass(name = "PositionsCollector", module = "sowing._sowing")]
pub struct PyCollector {
    rules: sowing_env::Rules,
    out: PathBuf,
    /// `None` once finished.
    collector: Option<Collector>,
}

impl PyCollector {
    fn get(&mut self) -> PyResult<&mut Collector> {
        self.collector
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("this collector has finished: make another"))
    }
}

#[pymethods]
impl PyCollector {
    /// The next batch of games to label, `(start, end)`, or `None` once the set is full; a
    /// `ValueError` saying what to give when too few positions settle.
    fn next_games(&mut self) -> PyResult<Option<(u64, u64)>> {
        let games = self.get()?.next_games().map_err(value_error)?;
        Ok(games.map(|g| (g.start, g.end)))
    }

    /// Take the outcomes `PositionsLabelling.label` gave, in game order.
    fn add(&mut self, outcomes: &Bound<'_, PyAny>) -> PyResult<()> {
        let Ok(text) = outcomes.cast::<PyString>() else {
            return Err(PyTypeError::new_err(format!(
                "outcomes are the text PositionsLabelling.label returns, got {}",
                type_name(outcomes)
            )));
        };
        let drawn = labelling::decode(&self.rules, text.to_str()?).map_err(value_error)?;
        self.get()?.add(drawn).map_err(value_error)
    }

    /// Positions labelled so far.
    #[getter]
    fn kept(&mut self) -> PyResult<usize> {
        Ok(self.get()?.kept())
    }

    /// Whether the set holds its count.
    #[getter]
    fn full(&mut self) -> PyResult<bool> {
        Ok(self.get()?.is_full())
    }

    /// Games dealt so far.
    #[getter]
    fn games(&mut self) -> PyResult<u64> {
        Ok(self.get()?.games())
    }

    /// Write the set to `out` and return the figures (as `sowing positions --json` gives them,
    /// without the file and the time) as JSON.
    fn finish(&mut self) -> PyResult<String> {
        let collector = self
            .collector
            .take()
            .ok_or_else(|| PyValueError::new_err("this collector has finished: make another"))?;
        if !collector.is_full() {
            let kept = collector.kept();
            self.collector = Some(collector);
            return Err(PyValueError::new_err(format!(
                "the set holds {kept} positions, fewer than its count: add the games \
                 next_games deals until it is full"
            )));
        }
        let (set, report) = collector.finish();
        set.write(&self.out)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        serde_json::to_string(&report).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }
}

/// The defaults of `sowing positions`, for the Python drivers' help: agents, opening, nodes,
/// table_bits.
#[pyfunction]
pub fn positions_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("agents", DEFAULT_AGENTS.join(","))?;
    d.set_item("opening", DEFAULT_OPENING)?;
    d.set_item("nodes", DEFAULT_NODES)?;
    d.set_item("table_bits", DEFAULT_TABLE_BITS)?;
    d.set_item("seed", 0)?;
    d.set_item("variant", DEFAULT_VARIANT)?;
    Ok(d)
}
