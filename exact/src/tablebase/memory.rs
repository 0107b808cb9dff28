//! What a build or an opened file needs in memory, worked out before anything large is
//! allocated, against what the process can have ([`crate::memory::usable`]: the memory
//! available, or less under an address-space limit; where neither limits it, nothing is
//! refused).

use super::error::TablebaseError;
use super::index::{count, layer_len};
use crate::memory::{addressable, fits, usable};

/// Bytes of working memory per position of the layer being solved, at most: its best exits for
/// the value, `L` and `H` (3 bytes), its in-layer moves as bits (2) and as a count (1), its two
/// nodes in each of the two threshold sweeps (3 a sweep: thresholds won and moves left), where
/// its predecessors start (4), the predecessors themselves (4 per move, at most `holes` moves),
/// the sweep's queue (two nodes of 4 bytes) and its exits sorted by threshold (two of 4 bytes).
fn per_layer_position(holes: usize) -> u128 {
    3 + 2 + 1 + 2 * 3 + 4 + 4 * holes as u128 + 8 + 8
}

/// Bytes each thread of a build holds besides, at most: a job's moves sown before they are
/// valued and linked (a capture 16 bytes, an in-layer move 4, at most `holes` moves a position).
pub(crate) fn per_thread(holes: usize) -> u128 {
    (super::build::CHUNK as u128) * holes as u128 * (16 + 4)
}

/// Bytes a build of a ring of `2 * holes` holes up to `max_seeds` seeds on `threads` threads
/// needs at its peak, the top layer: one byte for every position, plus the top layer's working
/// memory and each thread's. `None` beyond `u128`.
pub fn build_bytes(holes: usize, max_seeds: usize, threads: usize) -> Option<u128> {
    let ring = 2 * holes;
    let all = count(ring, max_seeds)?;
    let top = layer_len(ring, max_seeds)?;
    top.checked_mul(per_layer_position(holes))?
        .checked_add(all)?
        .checked_add(per_thread(holes).checked_mul(threads.max(1) as u128)?)
}

/// Refuse a build that needs more memory than the machine has, naming the largest number of
/// seeds that would fit.
pub(crate) fn check_build(
    what: &str,
    holes: usize,
    max_seeds: usize,
    threads: usize,
) -> Result<(), TablebaseError> {
    let needed = build_bytes(holes, max_seeds, threads).unwrap_or(u128::MAX);
    if fits(needed) {
        return Ok(());
    }
    let available = usable().unwrap_or(u64::MAX);
    let largest_fit = (0..max_seeds)
        .rev()
        .find(|&k| build_bytes(holes, k, threads).is_some_and(|b| b <= u128::from(available)))
        .map(|k| k as u32);
    Err(TablebaseError::OutOfMemory {
        what: what.to_string(),
        needed,
        available,
        largest_fit,
    })
}

/// Refuse to read `needed` bytes into memory when the machine has less available.
pub(crate) fn check_open(what: &str, needed: u128) -> Result<(), TablebaseError> {
    refuse_unless(fits(needed), what, needed)
}

/// Refuse to map `needed` bytes of a file where the address space (`ulimit -v`) has no room
/// for them. A mapping takes no memory of the process's own: its pages are the file's, in the
/// page cache, read as probed and given back under pressure, so the memory available is not
/// asked.
#[cfg(unix)]
pub(crate) fn check_map(what: &str, needed: u128) -> Result<(), TablebaseError> {
    refuse_unless(addressable(needed), what, needed)
}

/// Nothing when `room`; else the error of a file that needs `needed` bytes for `what`.
fn refuse_unless(room: bool, what: &str, needed: u128) -> Result<(), TablebaseError> {
    if room {
        return Ok(());
    }
    Err(TablebaseError::OutOfMemory {
        what: what.to_string(),
        needed,
        available: usable().unwrap_or(u64::MAX),
        largest_fit: None,
    })
}
