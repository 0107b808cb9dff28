//! Large allocations asked for from Python (a batch of games, a solver's table) are checked
//! against the memory the process can have before they are made. Rust aborts the process when an
//! allocation fails, and Linux, which promises more memory than it has, kills it later instead;
//! either way the interpreter dies. Checked first, a request too large raises `MemoryError`.

use pyo3::prelude::*;

/// Refuse with `MemoryError` to allocate `bytes` for `what` when the process cannot have them:
/// more than the memory available (Linux's `MemAvailable`, or what is left under a cgroup's
/// limit), or more than the allocator grants right now (an address-space limit, `ulimit -v`).
/// The check is the command line's (`sowing_exact::memory`), so both refuse alike.
pub fn check(bytes: u128, what: &str) -> PyResult<()> {
    let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
    sowing_exact::memory::check(what, 1, bytes, 0, "").map_err(crate::error::memory)
}

/// `sowing._sowing.check_memory(bytes, what)`: the same check for what the Python side
/// allocates in proportion to an argument (a `VecEnv`'s games, each a Python environment), so
/// that Python raises the one `MemoryError` Rust's checks raise, with the same headroom.
#[pyfunction]
#[pyo3(signature = (bytes, what))]
pub fn check_memory(bytes: u128, what: &str) -> PyResult<()> {
    check(bytes, what)
}
