//! Large allocations asked for from Python (a batch of games, a solver's table) are checked
//! against the memory the process can have before they are made. Rust aborts the process when an
//! allocation fails, and Linux, which promises more memory than it has, kills it later instead;
//! either way the interpreter dies. Checked first, a request too large raises `MemoryError`.

use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;

/// Refuse with `MemoryError` to allocate `bytes` for `what` when the process cannot have them:
/// more than the memory available (Linux's `MemAvailable`, or what is left under a cgroup's
/// limit), or more than the allocator grants right now (an address-space limit, `ulimit -v`).
pub fn check(bytes: usize, what: &str) -> PyResult<()> {
    if let Some(free) = available()
        && bytes > free
    {
        return Err(PyMemoryError::new_err(format!(
            "{what} needs {} of memory, and {} is available",
            size(bytes),
            size(free)
        )));
    }
    // Reserved and given back at once: untouched, it costs address space, not memory.
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).map_err(|_| {
        PyMemoryError::new_err(format!(
            "{what} needs {} of memory, which the allocator refuses",
            size(bytes)
        ))
    })
}

/// `bytes` for people: `1.5 GiB`, `12.0 MiB`.
fn size(bytes: usize) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    }
}

/// Bytes this process can still have, where the system says.
#[cfg(target_os = "linux")]
fn available() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let free_kib: usize = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    let free = free_kib.saturating_mul(1024);
    // A container's limit (cgroup v2, seen at the root of its own cgroup namespace).
    let read = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok();
    let limit = read("memory.max").and_then(|v| v.trim().parse::<usize>().ok());
    let used = read("memory.current").and_then(|v| v.trim().parse::<usize>().ok());
    Some(match (limit, used) {
        (Some(limit), Some(used)) => free.min(limit.saturating_sub(used)),
        _ => free,
    })
}

#[cfg(not(target_os = "linux"))]
fn available() -> Option<usize> {
    None
}
