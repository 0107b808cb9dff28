//! A position's exact result cut into independent searches, from Python
//! (`sowing_exact::split`): `SubtreeSplit(state, depth)` unrolls the tree and holds the frontier,
//! `settle(start, end)` settles a range of it (the work of one Ray task: any process makes the
//! same split from the same state and settles the same positions alike), and `combine(results)`
//! gives the root's result and each root move's. `python -m sowing.ray.solve` deals the ranges
//! to Ray tasks.
//!
//! Settling is a long call (see [`crate::long_call`]): the GIL released, a Ctrl-C honoured
//! between positions.

use crate::args;
use crate::long_call;
use crate::state::PyState;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sowing_exact::Wdl;
use sowing_exact::searches::{self, DEFAULT_NODES, DEFAULT_TABLE_BITS, TABLE_BITS};
use sowing_exact::split::{MAX_DEPTH, Split};
use sowing_exact::tablebase::Tablebase;
use std::path::PathBuf;
use std::sync::Arc;

/// Stack of the thread that runs a call: it deals the positions to the searches' threads, each
/// with a stack of its own.
const CALL_STACK: usize = 1 << 20;

/// A position's tree unrolled a few plies, its frontier to be settled anywhere (see
/// `sowing.SubtreeSplit` in `_sowing.pyi`).
#[derive(Debug)]
#[pyclass(name = "SubtreeSplit", module = "sowing._sowing", frozen)]
pub struct PySplit {
    split: Split,
    nodes: u64,
    table_bits: u32,
    tablebase: Option<PathBuf>,
}

impl PySplit {
    /// The tablebase, if given: opened once per process and shared (`shared_tablebase_for`).
    fn table(&self) -> PyResult<Option<Arc<Tablebase>>> {
        self.tablebase
            .as_ref()
            .map(|path| sowing_exact::shared_tablebase_for(path, self.split.root().rules()))
            .transpose()
            .map_err(PyValueError::new_err)
    }
}

fn wdl_name(r: Option<Wdl>) -> Option<&'static str> {
    r.map(|r| match r {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    })
}

fn wdl_arg(value: &Bound<'_, PyAny>, i: usize) -> PyResult<Option<Wdl>> {
    if value.is_none() {
        return Ok(None);
    }
    let text: String = value.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "results[{i}] is {}: a result is 'win', 'draw', 'loss' or None (not settled)",
            args::repr(value)
        ))
    })?;
    match text.as_str() {
        "win" => Ok(Some(Wdl::Win)),
        "draw" => Ok(Some(Wdl::Draw)),
        "loss" => Ok(Some(Wdl::Loss)),
        _ => Err(PyValueError::new_err(format!(
            "results[{i}] is {}: a result is 'win', 'draw', 'loss' or None (not settled)",
            args::cut(&format!("{text:?}"))
        ))),
    }
}

#[pymethods]
impl PySplit {
    #[new]
    #[pyo3(signature = (state, depth = None, *, nodes = None, table_bits = None, tablebase = None))]
    fn new(
        state: &PyState,
        depth: Option<&Bound<'_, PyAny>>,
        nodes: Option<&Bound<'_, PyAny>>,
        table_bits: Option<&Bound<'_, PyAny>>,
        tablebase: Option<PathBuf>,
    ) -> PyResult<PySplit> {
        let depth = match depth {
            Some(d) => args::int_in(d, "depth", 1, MAX_DEPTH.into(), "1 to 6 plies")? as u32,
            None => 2,
        };
        let nodes = match nodes {
            Some(n) => args::int_in(
                n,
                "nodes",
                1,
                u64::MAX.into(),
                "at least 1 (positions the search may make per frontier position)",
            )? as u64,
            None => DEFAULT_NODES,
        };
        let table_bits = match table_bits {
            Some(b) => args::int_in(
                b,
                "table_bits",
                (*TABLE_BITS.start()).into(),
                (*TABLE_BITS.end()).into(),
                "10 to 30 (2^BITS slots of 16 bytes per search)",
            )? as u32,
            None => DEFAULT_TABLE_BITS,
        };
        let split = Split::new(&state.0, depth).map_err(PyValueError::new_err)?;
        Ok(PySplit {
            split,
            nodes,
            table_bits,
            tablebase,
        })
    }

    /// Positions on the frontier.
    fn __len__(&self) -> usize {
        self.split.frontier().len()
    }

    /// The plies unrolled.
    #[getter]
    fn depth(&self) -> u32 {
        self.split.depth()
    }

    /// The search budget per frontier position.
    #[getter]
    fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Frontier positions `start..end`, as `State`s.
    fn positions(
        &self,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<PyState>> {
        let (start, end) = self.range(start, end)?;
        Ok(self.split.frontier()[start..end]
            .iter()
            .map(|s| PyState(*s))
            .collect())
    }

    /// Settle frontier positions `start..end` on `threads` threads (0: one per core; default 1):
    /// each one's result for its mover, 'win', 'draw', 'loss', or None where the budget did not
    /// settle it.
    #[pyo3(signature = (start, end, threads = None))]
    fn settle(
        &self,
        py: Python<'_>,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Option<&'static str>>> {
        let (start, end) = self.range(start, end)?;
        let threads = args::threads(threads, 1)?;
        let threads = args::search_threads(threads, self.table_bits, self.nodes, end - start)?;
        let table = self.table()?;
        let (split, nodes, bits) = (&self.split, self.nodes, self.table_bits);
        let order: Vec<usize> = (start..end).collect();
        let results = long_call::run_apart(py, CALL_STACK, |stop| {
            searches::map(threads, bits, table.as_ref(), &order, |_, &i, search| {
                (!stop.requested()).then(|| split.settle(i, search, nodes))
            })
        })?;
        if results.iter().any(Option::is_none) {
            return Err(PyRuntimeError::new_err(
                "stopped before the positions were settled",
            ));
        }
        Ok(results.into_iter().map(|r| wdl_name(r.flatten())).collect())
    }

    /// The root's result and each legal root move's, for the root's mover, from the frontier's
    /// results (one per position, in order; None where not settled): a dict with `result`,
    /// `moves` (a list of `{"action", "result"}`), `settled` and `frontier`.
    fn combine<'py>(
        &self,
        py: Python<'py>,
        results: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let list = results.cast::<PyList>().map_err(|_| {
            PyTypeError::new_err(format!(
                "results is {}: a list of 'win', 'draw', 'loss' or None, one per frontier \
                 position",
                args::repr(results)
            ))
        })?;
        let results = list
            .iter()
            .enumerate()
            .map(|(i, r)| wdl_arg(&r, i))
            .collect::<PyResult<Vec<_>>>()?;
        let combined = self
            .split
            .combine(&results)
            .map_err(PyValueError::new_err)?;
        let out = PyDict::new(py);
        out.set_item("result", wdl_name(combined.result))?;
        let moves = PyList::empty(py);
        for (a, r) in combined.moves {
            let m = PyDict::new(py);
            m.set_item("action", a)?;
            m.set_item("result", wdl_name(r))?;
            moves.append(m)?;
        }
        out.set_item("moves", moves)?;
        out.set_item("settled", combined.settled)?;
        out.set_item("frontier", combined.frontier)?;
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!(
            "SubtreeSplit(depth={}, frontier={}, nodes={}, table_bits={}, tablebase={:?})",
            self.split.depth(),
            self.split.frontier().len(),
            self.nodes,
            self.table_bits,
            self.tablebase
        )
    }
}

impl PySplit {
    /// `start..end` checked against the frontier.
    fn range(&self, start: &Bound<'_, PyAny>, end: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
        let len = self.split.frontier().len();
        let start = args::int_in(
            start,
            "start",
            0,
            len as i128,
            &format!("0 to {len} (the frontier's positions)"),
        )? as usize;
        let end = args::int_in(
            end,
            "end",
            start as i128,
            len as i128,
            &format!("{start} to {len} (the frontier's positions)"),
        )? as usize;
        Ok((start, end))
    }
}
