//! The one place where Rust errors become Python exceptions, and where a Rust panic is caught
//! before it can reach Python: which exception each error type of the core becomes (the
//! engine's, the tables', the match loop's, the agent specs', labelling's, checkpoints', memory
//! refusals) is decided here; the modules of the binding raise through these functions.
//!
//! Every `sowing_env::Error` is bad input, so every one is a `ValueError`; the two that a game
//! loop meets have their own subclasses so that callers can tell them apart:
//! `IllegalActionError` (an out-of-range action, an empty hole, an endless move) and
//! `GameOverError` (a move after the end without a reset). The message is the engine's, which
//! says what was wrong and what is allowed.

use pyo3::create_exception;
use pyo3::exceptions::{
    PyFileNotFoundError, PyMemoryError, PyOSError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use sowing_agents::SpecError;
use sowing_agents::az::checkpoint::CheckpointError;
use sowing_env::Error;
use sowing_eval::labelling::LabelError;
use sowing_eval::matches::MatchError;
use sowing_exact::memory::TooLarge;
use sowing_exact::tablebase::TablebaseError;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

create_exception!(
    sowing,
    IllegalActionError,
    PyValueError,
    "An action that cannot be played now: out of range, an empty hole, or an endless move. The message lists the legal actions."
);
create_exception!(
    sowing,
    GameOverError,
    PyValueError,
    "A move asked for after the game has ended or been truncated, without a reset."
);

create_exception!(
    sowing,
    PyCheckpointError,
    PyValueError,
    "A checkpoint that is missing, damaged, or does not fit (a ValueError); the message names the file."
);

/// A checkpoint error as `CheckpointError` (a `ValueError`), naming the file.
pub fn checkpoint(e: CheckpointError) -> PyErr {
    PyCheckpointError::new_err(e.to_string())
}

/// A tablebase error: `FileNotFoundError` or `OSError` for files that cannot be read or written,
/// `MemoryError` beyond the machine's memory, `ValueError` for damaged files, other rules and
/// requests beyond what tables hold.
pub fn tablebase(e: TablebaseError) -> PyErr {
    let message = e.to_string();
    match &e {
        TablebaseError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(message)
        }
        TablebaseError::Io { .. } => PyOSError::new_err(message),
        TablebaseError::OutOfMemory { .. } => PyMemoryError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// A match loop's failure (a series, a round robin): bad specs and settings are `ValueError`,
/// too large a plan `MemoryError`, an illegal move from an agent a bug (`RuntimeError`).
pub fn matches(e: MatchError) -> PyErr {
    match e {
        MatchError::Spec(_) | MatchError::Config(_) => PyValueError::new_err(e.to_string()),
        MatchError::TooLarge(_) => PyMemoryError::new_err(e.to_string()),
        MatchError::IllegalMove { .. } => {
            PyRuntimeError::new_err(format!("internal error: {e} (please report it)"))
        }
    }
}

/// Labelling's failure: its match loop's as [`matches`] has it, anything else a bug.
pub fn labelling(e: LabelError) -> PyErr {
    match e {
        LabelError::Match(
            e @ (MatchError::TooLarge(_) | MatchError::Spec(_) | MatchError::Config(_)),
        ) => matches(e),
        _ => PyRuntimeError::new_err(format!("internal error: {e} (please report it)")),
    }
}

/// An agent spec's error as `ValueError`, its message the core's (which lists the forms).
pub fn spec(e: SpecError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A size refused before allocating it: `MemoryError`.
pub fn memory(e: TooLarge) -> PyErr {
    PyMemoryError::new_err(e.to_string())
}

/// The Python exception for an engine error.
pub fn to_py(e: Error) -> PyErr {
    let message = e.to_string();
    match e {
        Error::ActionOutOfRange { .. } | Error::IllegalAction { .. } => {
            IllegalActionError::new_err(message)
        }
        Error::GameOver { .. } => GameOverError::new_err(message),
        Error::InvalidRules { .. }
        | Error::InvalidPosition { .. }
        | Error::UnknownVariant { .. }
        | Error::Parse { .. }
        | Error::Batch { .. }
        | Error::RecordMismatch { .. } => PyValueError::new_err(message),
    }
}

/// Run engine code that must not panic, turning a panic (a bug in the engine, never bad input,
/// which is checked first) into a `RuntimeError` instead of PyO3's `PanicException`, which
/// derives from `BaseException` and slips past `except Exception`.
pub fn guard<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(panic_error)
}

/// The `RuntimeError` for a panic caught with its `payload`.
pub fn panic_error(payload: Box<dyn Any + Send>) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    PyRuntimeError::new_err(format!(
        "internal error in the sowing engine (please report it): {what}"
    ))
}
