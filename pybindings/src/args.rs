//! Integer arguments from Python, checked here so that every bad value gets a message that
//! names the argument and what it may be. PyO3's own conversion raises `OverflowError` for a
//! negative or huge value, which is not a `ValueError` and says neither.
//!
//! An integer is a Python `int` or anything with `__index__` (numpy's integers); a `float` is
//! refused even when whole, as `operator.index` refuses it.

use crate::rules::type_name;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// A Python value read as an integer.
pub enum Int {
    /// It fits an `i128`.
    Fits(i128),
    /// An integer beyond `i128`: out of every range this module checks.
    Huge,
    /// Not an integer at all.
    Not,
}

impl Int {
    pub fn of(value: &Bound<'_, PyAny>) -> Int {
        // Through `__index__` first: PyO3 reads a 128-bit integer with shifts on the object
        // itself, which numpy 1's unsigned scalars refuse.
        let index;
        let int = if value.is_instance_of::<PyInt>() {
            value
        } else {
            match value.call_method0(intern!(value.py(), "__index__")) {
                Ok(i) => {
                    index = i;
                    &index
                }
                Err(_) => return Int::Not,
            }
        };
        match int.extract::<i128>() {
            Ok(v) => Int::Fits(v),
            Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => Int::Huge,
            Err(_) => Int::Not,
        }
    }
}

/// The `threads` argument: 0 (one per core) to [`MAX_THREADS`](sowing_exact::memory::MAX_THREADS),
/// `default` when not given.
pub fn threads(value: Option<&Bound<'_, PyAny>>, default: usize) -> PyResult<usize> {
    match value {
        Some(t) => Ok(int_in(
            t,
            "threads",
            0,
            sowing_exact::memory::MAX_THREADS as i128,
            "0 (one per core) to 1024",
        )? as usize),
        None => Ok(default),
    }
}

/// The exact searches' threads for `nodes` and `table_bits` ([`sowing_exact::searches::threads`]),
/// at most `work`: refused as a `MemoryError` whose advice names this call's keywords.
pub fn search_threads(threads: usize, table_bits: u32, nodes: u64, work: usize) -> PyResult<usize> {
    sowing_exact::searches::threads(threads, table_bits, nodes, work).map_err(|e| {
        pyo3::exceptions::PyMemoryError::new_err(format!(
            "{e}: give a smaller nodes= or table_bits=, or fewer threads="
        ))
    })
}

/// The integer argument `name`, which must be in `min..=max`; `allowed` says so in words, for
/// the error.
pub fn int_in(
    value: &Bound<'_, PyAny>,
    name: &str,
    min: i128,
    max: i128,
    allowed: &str,
) -> PyResult<i128> {
    match Int::of(value) {
        Int::Fits(v) if (min..=max).contains(&v) => Ok(v),
        Int::Fits(_) | Int::Huge => Err(PyValueError::new_err(format!(
            "{name} must be {allowed}, got {}",
            repr(value)
        ))),
        Int::Not => Err(PyTypeError::new_err(format!(
            "{name} must be an integer, {allowed}; got {} {}",
            type_name(value),
            repr(value)
        ))),
    }
}

/// A seed: any integer `0` to `2**64 - 1`.
pub fn seed(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    int_in(value, "seed", 0, u64::MAX.into(), "0 to 2**64 - 1").map(|v| v as u64)
}

/// `value` as Python shows it, cut short if long.
pub fn repr(value: &Bound<'_, PyAny>) -> String {
    let text = value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".to_string());
    cut(&text)
}

/// `text` cut to its first 57 characters and "..." when it is longer than 60: what a message
/// quotes of what it was given.
pub fn cut(text: &str) -> String {
    if text.chars().count() > 60 {
        let head: String = text.chars().take(57).collect();
        format!("{head}...")
    } else {
        text.to_string()
    }
}
