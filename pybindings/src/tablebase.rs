//! `sowing.Tablebase`: endgame tablebases of `sowing-agents` in Python. Opening, building and
//! writing release the GIL; probing is one look-up and keeps it. A position not in the
//! table gives `None`; a state of rules whose game tree differs from the table's is a
//! `ValueError` naming the field, as are damaged files (which name the file).

use crate::args;
use crate::error::guard;
use crate::rules::{PyRules, rules_arg};
use crate::state::PyState;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sowing_env::State;
use sowing_exact::tablebase::{BuildOptions, LayerPart, Load, Probe, Tablebase};
use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::error::tablebase as to_py;

/// What a table knows of a position, for the player to move.
#[pyclass(name = "Probe", module = "sowing", frozen, get_all, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyProbe {
    /// The perfect-play margin: seeds the mover captures from here on minus the opponent's.
    value: i32,
    /// Perfect play never ends (the value is then 0).
    endless: bool,
    /// The mover's captures minus the opponent's at the end of perfect play, earlier captures
    /// included (where play never ends, the difference it stays at).
    final_margin: i32,
    /// The perfect-play result for the mover, endless play counted as a draw: "win", "draw"
    /// or "loss".
    result: String,
    /// The margin the mover forces when endless play counts as the worst for them; `None` when
    /// they cannot force an end.
    low: Option<i32>,
    /// The margin the mover forces when endless play counts as the best for them; `None` when
    /// the opponent cannot force an end.
    high: Option<i32>,
}

/// What [`PyProbe::__reduce__`] gives pickle: the class and the constructor's arguments.
type ProbeReduce<'py> = (
    Bound<'py, PyAny>,
    (i32, bool, i32, String, Option<i32>, Option<i32>),
);

#[pymethods]
impl PyProbe {
    /// A probe's answer from its fields, as `repr` and pickle give them; `result` is "win",
    /// "draw" or "loss".
    #[new]
    #[pyo3(signature = (value, endless, final_margin, result, low = None, high = None))]
    fn new(
        value: i32,
        endless: bool,
        final_margin: i32,
        result: String,
        low: Option<i32>,
        high: Option<i32>,
    ) -> PyResult<PyProbe> {
        if !["win", "draw", "loss"].contains(&result.as_str()) {
            return Err(PyValueError::new_err(format!(
                "result must be \"win\", \"draw\" or \"loss\", got {:?}",
                crate::args::cut(&result)
            )));
        }
        Ok(PyProbe {
            value,
            endless,
            final_margin,
            result,
            low,
            high,
        })
    }

    /// Pickled (and copied) by its fields.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> ProbeReduce<'py> {
        let p = slf.get();
        (
            slf.get_type().into_any(),
            (
                p.value,
                p.endless,
                p.final_margin,
                p.result.clone(),
                p.low,
                p.high,
            ),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Probe(value={}, endless={}, final_margin={}, result={:?})",
            self.value,
            if self.endless { "True" } else { "False" },
            self.final_margin,
            self.result
        )
    }
}

/// The exact value of every position with at most `max_seeds` seeds on the board.
#[pyclass(name = "Tablebase", module = "sowing")]
#[derive(Debug)]
pub struct PyTablebase(Tablebase);

impl PyTablebase {
    /// Refuse a state of rules whose game tree differs from the table's.
    fn check(&self, state: &State) -> PyResult<()> {
        self.0.check_rules(state.rules()).map_err(to_py)
    }
}

#[pymethods]
impl PyTablebase {
    /// Read a tablebase file, checking all of it; with `rules`, also refuse a table of rules
    /// whose game tree differs. With `mmap` (the default) the file is mapped read-only, so that
    /// every process that opens it (Ray workers, a `multiprocessing` pool) shares one copy;
    /// `mmap=False` reads it into memory of this process's own.
    #[new]
    #[pyo3(signature = (path, rules = None, mmap = true))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        rules: Option<&Bound<'_, PyAny>>,
        mmap: bool,
    ) -> PyResult<Self> {
        let rules = rules.map(rules_arg).transpose()?;
        let load = if mmap { Load::Map } else { Load::Copy };
        let table = py.detach(|| {
            guard(|| {
                let table = Tablebase::open_with(&path, load)?;
                if let Some(rules) = rules {
                    table.check_rules(&rules)?;
                }
                Ok(table)
            })
        })?;
        table.map(PyTablebase).map_err(to_py)
    }

    /// Whether the table's values are its file mapped read-only (shared with every process
    /// that maps it) rather than a copy of this process's own.
    #[getter]
    fn mapped(&self) -> bool {
        self.0.is_mapped()
    }

    /// Solve every position of `variant` (a preset name or Rules) with at most `max_seeds`
    /// seeds on the board, on `threads` threads (0: one per core), and write it to `path` if
    /// given. The memory needed is checked first (`MemoryError`).
    #[staticmethod]
    #[pyo3(signature = (variant, max_seeds, path = None, threads = None))]
    fn build(
        py: Python<'_>,
        variant: &Bound<'_, PyAny>,
        max_seeds: &Bound<'_, PyAny>,
        path: Option<PathBuf>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let rules = rules_arg(variant)?;
        // Beyond MAX_SEEDS the build says why (values held in a signed byte).
        let max_seeds = args::int_in(
            max_seeds,
            "max_seeds",
            0,
            u32::MAX.into(),
            "0 or more seeds",
        )? as u32;
        let threads = args::threads(threads, 0)?;
        let built = py.detach(|| {
            guard(|| {
                let options = BuildOptions {
                    threads,
                    progress: None,
                };
                let mut table = Tablebase::build(&rules, max_seeds, &options)?;
                if let Some(path) = &path {
                    table.write(path)?;
                }
                Ok(table)
            })
        })?;
        built.map(PyTablebase).map_err(to_py)
    }

    /// The positions of the next layer, the one of `max_seeds + 1` seeds that `layer_part` and
    /// `extend` build.
    fn next_layer_len(&self) -> PyResult<u64> {
        self.0.next_layer_len().map_err(to_py)
    }

    /// The moves of positions `first .. first + count` of the next layer, sown and their
    /// captures valued from this table, on this thread, as bytes for `extend`: the part of a
    /// layer's build that a worker does (`python -m sowing.ray.tablebase`).
    fn layer_part<'py>(
        &self,
        py: Python<'py>,
        first: &Bound<'_, PyAny>,
        count: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let len = self.next_layer_len()?;
        let first = args::int_in(first, "first", 0, len.into(), "0 to the layer's length")? as u64;
        let count = args::int_in(
            count,
            "count",
            0,
            (len - first).into(),
            "0 to the positions left in the layer after first",
        )? as u64;
        let table = &self.0;
        let bytes = py
            .detach(|| guard(|| table.layer_part(first, count).map(|p| p.to_bytes())))?
            .map_err(to_py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// This table with its next layer, joined from the parts of `layer_part` (bytes) that
    /// cover it in order, on `threads` threads (0: one per core): the table a build to one more
    /// seed makes, byte for byte. Damaged parts, parts of another table, gaps and overlaps are
    /// refused (`ValueError`), a table beyond the memory too (`MemoryError`).
    #[pyo3(signature = (parts, threads = None))]
    fn extend(
        &self,
        py: Python<'_>,
        parts: Vec<Bound<'_, PyBytes>>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTablebase> {
        let threads = args::threads(threads, 0)?;
        // Read while the bytes are Python's; each read copies what it keeps.
        let parts = guard(|| {
            parts
                .iter()
                .enumerate()
                .map(|(i, bytes)| {
                    LayerPart::from_bytes(bytes.as_bytes())
                        .map_err(|e| PyValueError::new_err(format!("part {i}: {e}")))
                })
                .collect::<PyResult<Vec<_>>>()
        })??;
        let table = &self.0;
        let extended = py.detach(|| guard(|| table.extend(&parts, threads)))?;
        extended.map(PyTablebase).map_err(to_py)
    }

    /// Write the table to `path`, atomically (a temporary file beside it, then renamed).
    fn write(&mut self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let table = &mut self.0;
        py.detach(|| guard(|| table.write(&path)))?.map_err(to_py)
    }

    /// The value of `state` for the player to move: the seeds they capture from here on minus
    /// the opponent's, under perfect play; 0 for a game that is over; `None` for a position with
    /// more than `max_seeds` seeds on the board.
    fn value(&self, state: &PyState) -> PyResult<Option<i32>> {
        self.check(&state.0)?;
        Ok(self.0.value(&state.0))
    }

    /// `value`, with whether perfect play never ends and the final margin; `None` as `value`.
    fn probe(&self, state: &PyState) -> PyResult<Option<PyProbe>> {
        self.check(&state.0)?;
        Ok(self.0.probe(&state.0).map(|p| PyProbe {
            value: p.value,
            endless: p.endless,
            final_margin: p.final_margin(&state.0),
            result: p.result(&state.0).to_string(),
            low: (p.low != Probe::UNBOUNDED_LOW).then_some(p.low),
            high: (p.high != Probe::UNBOUNDED_HIGH).then_some(p.high),
        }))
    }

    /// Each legal action's value for the mover (what it gains, minus the value of the position
    /// it leads to): the best of them is `value(state)`. Empty for a game that is over; `None`
    /// as `value`.
    fn move_values(&self, state: &PyState) -> PyResult<Option<BTreeMap<usize, i32>>> {
        self.check(&state.0)?;
        Ok(self
            .0
            .move_values(&state.0)
            .map(|moves| moves.into_iter().map(|(a, p)| (a, p.value)).collect()))
    }

    /// A copy: the same values, in memory of its own (checked first, `MemoryError`).
    fn __copy__(&self, py: Python<'_>) -> PyResult<PyTablebase> {
        crate::memory::check(
            u128::from(self.0.len()),
            &format!("a copy of a table of {} positions", self.0.len()),
        )?;
        Ok(PyTablebase(py.detach(|| self.0.clone())))
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> PyResult<PyTablebase> {
        self.__copy__(py)
    }

    /// Pickled by its file: the copy opens the same file, checked whole and refused if it no
    /// longer holds this table (other rules or seeds). A table built in memory and never
    /// written has no file to name, and is refused with `TypeError`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (PathBuf, PyRules, u32))> {
        let me = slf.borrow();
        let Some(path) = me.0.path() else {
            return Err(PyTypeError::new_err(
                "a Tablebase is pickled by its file, and this one was built in memory and never \
                 written: call write(path) first (the copy then opens that file)",
            ));
        };
        let reopen = slf.get_type().getattr("_reopen")?;
        Ok((
            reopen,
            (path.to_path_buf(), PyRules(*me.0.rules()), me.0.max_seeds()),
        ))
    }

    /// The table of file `path` for pickle: opened for `rules` and refused unless it holds
    /// `max_seeds` seeds, as the pickled table did.
    #[staticmethod]
    fn _reopen(
        py: Python<'_>,
        path: PathBuf,
        rules: PyRef<'_, PyRules>,
        max_seeds: u32,
    ) -> PyResult<PyTablebase> {
        let rules = rules.0;
        let table = py
            .detach(|| guard(|| Tablebase::open_for(&path, &rules)))?
            .map_err(to_py)?;
        if table.max_seeds() != max_seeds {
            return Err(PyValueError::new_err(format!(
                "tablebase {} now holds positions of up to {} seeds, not the {max_seeds} of the \
                 table pickled from it: the file was replaced",
                path.display(),
                table.max_seeds()
            )));
        }
        Ok(PyTablebase(table))
    }

    /// The most seeds on the board of a position in the table.
    #[getter]
    fn max_seeds(&self) -> u32 {
        self.0.max_seeds()
    }

    /// The rules the table was built for.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules(*self.0.rules())
    }

    /// The file the table was read from or last written to, or None.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.0.path().map(|p| p.to_path_buf())
    }

    /// Positions in the table.
    fn __len__(&self) -> usize {
        self.0.len() as usize
    }

    fn __repr__(&self) -> String {
        format!(
            "Tablebase({}, max_seeds={}, positions={}{})",
            self.0.rules().summary(),
            self.0.max_seeds(),
            self.0.len(),
            self.0.path().map_or(String::new(), |p| format!(
                ", path={:?}",
                p.display().to_string()
            ))
        )
    }
}
