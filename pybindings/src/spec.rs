//! Agent specs across the boundary: Python gives a spec as its text (`"az:runs/x:50ms"`, read by
//! the core's one grammar) or as its fields in a dict (`{"kind": "alphabeta", "depth": 6}`, what
//! the keyword classes `AlphaBeta(depth=6)` pass), and `parse_agent_spec` gives the fields of a
//! text, so that Python reads no spec itself. Either way the core checks the spec
//! ([`AgentSpec::validate`]) with the messages of a spec string.
//!
//! The fields: `kind` (`random`, `greedy`, `alphabeta`, `mcts`, `az`), then those the kind
//! has: `depth` (alphabeta) or `simulations` (mcts, az) or `time` (seconds per move, to the
//! millisecond); `tablebase` (a file, alphabeta, mcts, az); `network` (a trained network's run
//! or checkpoint, alphabeta: a hybrid search); `path`, `solver` and `leaves` (az).

use crate::args::{self, Int};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};
use sowing_agents::{AgentSpec, Budget, Kind, MAX_TIME, az_default_leaves, az_default_solver};
use std::path::PathBuf;
use std::time::Duration;

pub use crate::error::spec as spec_error;

/// A spec from Python: its text or its fields (a dict).
pub fn spec_arg(value: &Bound<'_, PyAny>) -> PyResult<AgentSpec> {
    if let Ok(text) = value.cast::<PyString>() {
        return text.to_str()?.parse().map_err(spec_error);
    }
    if let Ok(fields) = value.cast::<PyDict>() {
        return from_fields(fields);
    }
    Err(PyTypeError::new_err(format!(
        "an agent spec is a string such as 'mcts:1000' or a dict of its fields, got {}",
        value.get_type().name()?
    )))
}

/// The fields of the spec `spec` (see the module documentation); a malformed spec raises
/// `ValueError` listing the forms. An `az` spec's also say what the network agent needs to play
/// it as `sowing arena` does: `budget`, the budget as written (`"50ms"`, `"64"`, `None`), and
/// `default_solver` and `default_leaves`, the budget's defaults for `solver` and `leaves`.
#[pyfunction]
pub fn parse_agent_spec<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyDict>> {
    let spec: AgentSpec = spec.parse().map_err(spec_error)?;
    let d = fields(py, &spec)?;
    if spec.kind() == Kind::Az {
        let budget = spec.budget();
        d.set_item("budget", budget.map(|b| b.spec()))?;
        d.set_item("default_solver", az_default_solver(budget))?;
        d.set_item("default_leaves", az_default_leaves(budget))?;
    }
    Ok(d)
}

/// The fields of `spec`, every field its kind has, `None` where the spec leaves it out.
pub fn fields<'py>(py: Python<'py>, spec: &AgentSpec) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("kind", spec.kind().word())?;
    let count_key = count_key(spec.kind());
    if let Some(key) = count_key {
        let (count, time) = match spec.budget() {
            Some(Budget::Count(n)) => (Some(n), None),
            Some(Budget::Time(t)) => (None, Some(t.as_secs_f64())),
            None => (None, None),
        };
        d.set_item(key, count)?;
        d.set_item("time", time)?;
        d.set_item(
            "tablebase",
            spec.tablebase().map(|p| p.display().to_string()),
        )?;
    }
    if let AgentSpec::AlphaBeta { network, .. } = spec {
        d.set_item("network", network.as_ref().map(|p| p.display().to_string()))?;
    }
    if let AgentSpec::Az {
        path,
        solver,
        leaves,
        ..
    } = spec
    {
        d.set_item("path", path.display().to_string())?;
        d.set_item("solver", *solver)?;
        d.set_item("leaves", *leaves)?;
    }
    Ok(d)
}

/// The key of a kind's count budget, `None` for the kinds without a budget.
fn count_key(kind: Kind) -> Option<&'static str> {
    kind.count_limit().map(|(what, _)| what)
}

/// The keys a kind's fields may have besides `kind`.
fn keys(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Random | Kind::Greedy => &[],
        Kind::AlphaBeta => &["depth", "time", "network", "tablebase"],
        Kind::Mcts => &["simulations", "time", "tablebase"],
        Kind::Az => &[
            "path",
            "simulations",
            "time",
            "solver",
            "leaves",
            "tablebase",
        ],
    }
}

/// The spec of `fields`, checked as a parsed one is.
fn from_fields(fields: &Bound<'_, PyDict>) -> PyResult<AgentSpec> {
    let kind_value = fields
        .get_item("kind")?
        .ok_or_else(|| PyValueError::new_err("an agent spec's fields need its kind"))?;
    let word: String = kind_value.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "an agent's kind is a string, got {}",
            args::repr(&kind_value)
        ))
    })?;
    let words: Vec<&str> = Kind::ALL.iter().map(|k| k.word()).collect();
    let kind = Kind::from_word(&word).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown agent kind {:?}: the kinds are {}",
            args::cut(&word),
            words.join(", ")
        ))
    })?;
    for (key, _) in fields.iter() {
        let key: String = key.extract()?;
        if key != "kind" && !keys(kind).contains(&key.as_str()) {
            return Err(PyValueError::new_err(format!(
                "{word} takes no {}= (it takes: {})",
                args::cut(&key),
                if keys(kind).is_empty() {
                    "nothing".to_string()
                } else {
                    keys(kind).join(", ")
                }
            )));
        }
    }
    // A field given as None is left out.
    let get = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(fields.get_item(key)?.filter(|v| !v.is_none()))
    };
    let budget = match count_key(kind) {
        None => None,
        Some(count_name) => {
            let count = get(count_name)?;
            let time = get("time")?;
            match (count, time) {
                (Some(count), None) => Some(Budget::Count(count_arg(&count, count_name, kind)?)),
                (None, Some(time)) => Some(Budget::Time(time_arg(&time)?)),
                (None, None) if kind == Kind::Az => None,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "{word} takes either {count_name}= or time= (seconds per move), not both \
                         or neither"
                    )));
                }
            }
        }
    };
    let file = |key: &str| -> PyResult<Option<PathBuf>> {
        get(key)?
            .map(|v| {
                v.extract::<PathBuf>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "{key} must be a file name, got {}",
                        args::repr(&v)
                    ))
                })
            })
            .transpose()
    };
    let tablebase = file("tablebase")?;
    let spec = match kind {
        Kind::Random => AgentSpec::Random,
        Kind::Greedy => AgentSpec::Greedy,
        Kind::AlphaBeta | Kind::Mcts => {
            let budget = budget.expect("a search has a budget");
            if kind == Kind::AlphaBeta {
                AgentSpec::AlphaBeta {
                    budget,
                    network: file("network")?,
                    tablebase,
                }
            } else {
                AgentSpec::Mcts { budget, tablebase }
            }
        }
        Kind::Az => AgentSpec::Az {
            path: file("path")?.ok_or_else(|| {
                PyValueError::new_err("az needs path=, its checkpoint or run directory")
            })?,
            budget,
            solver: get("solver")?
                .map(|v| whole(&v, "solver", u64::MAX.into()))
                .transpose()?
                .map(|n| n as u64),
            leaves: get("leaves")?
                .map(|v| whole(&v, "leaves", u32::MAX.into()))
                .transpose()?
                .map(|n| n as u32),
            tablebase,
        },
    };
    spec.validate().map_err(spec_error)?;
    Ok(spec)
}

/// A count budget, its range checked by [`AgentSpec::validate`] beyond what fits a `u32`.
fn count_arg(value: &Bound<'_, PyAny>, name: &str, kind: Kind) -> PyResult<u32> {
    let (_, max) = kind.count_limit().unwrap_or((name, u32::MAX));
    match Int::of(value) {
        Int::Fits(n) if (0..=i128::from(u32::MAX)).contains(&n) => Ok(n as u32),
        Int::Fits(_) | Int::Huge => Err(PyValueError::new_err(format!(
            "{name} {} is out of range: 1 to {max}",
            args::repr(value)
        ))),
        Int::Not => Err(PyTypeError::new_err(format!(
            "{name} must be an integer, got {} {}",
            value.get_type().name()?,
            args::repr(value)
        ))),
    }
}

/// A whole number `0..=max` for the field `name`; its range within that is the core's to check.
fn whole(value: &Bound<'_, PyAny>, name: &str, max: i128) -> PyResult<i128> {
    args::int_in(value, name, 0, max, "a whole number")
}

/// A time per move in seconds, more than 0 and at most [`MAX_TIME`], to the millisecond (at
/// least one), as `AlphaBeta(time=0.25)` always gave `alphabeta:250ms`.
fn time_arg(value: &Bound<'_, PyAny>) -> PyResult<Duration> {
    let seconds = if value.is_instance_of::<PyBool>() {
        None
    } else {
        value.extract::<f64>().ok()
    };
    let Some(seconds) = seconds else {
        return Err(PyTypeError::new_err(format!(
            "time must be a number of seconds, got {}",
            value.get_type().name()?
        )));
    };
    let max = MAX_TIME.as_secs_f64();
    if !(seconds > 0.0 && seconds <= max) {
        return Err(PyValueError::new_err(format!(
            "time must be more than 0 and at most {max} seconds, got {}",
            args::repr(value)
        )));
    }
    // Python's round (half to even), as the keyword classes rounded before Rust did.
    let ms = (seconds * 1000.0).round_ties_even().max(1.0);
    Ok(Duration::from_millis(ms as u64))
}
