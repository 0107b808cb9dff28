//! The one place where engine errors become Python exceptions, and where a Rust panic is caught
//! before it can reach Python.
//!
//! Every `sowing_env::Error` is bad input, so every one is a `ValueError`; the two that a game
//! loop meets have their own subclasses so that callers can tell them apart:
//! `IllegalActionError` (an out-of-range action, an empty hole, an endless move) and
//! `GameOverError` (a move after the end without a reset). The message is the engine's, which
//! says what was wrong and what is allowed.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use sowing_env::Error;
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
