//! Sizes a user asks for (games, threads, positions, buffers) checked before anything is
//! allocated. Rust aborts the process when an allocation fails, and Linux, which promises more
//! memory than it has, kills it later instead; checked first, a request too large is an error
//! that says what it needs, what there is, and the largest request that fits.

use std::fmt;

/// The most threads any command or match runs: far above any machine's cores, low enough that
/// their stacks (2 MiB of address space each) and per-thread agents stay within reason.
pub const MAX_THREADS: usize = 1024;

/// Address space every request leaves free under an address-space limit: room for what the
/// caller allocates beside its request (results, small buffers), the stacks of the threads it
/// starts and the growth of the main thread's stack. A request that fits only by leaving less is
/// refused: at the limit, a stack that cannot grow is a segfault and a small allocation that
/// fails an abort, neither of which a caller can catch.
pub const HEADROOM: u64 = 64 << 20;

/// A request for more memory than the machine has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// What needed it, in the user's words (`--games 4294967294 per pairing`).
    pub what: String,
    /// Bytes it needs.
    pub needed: u128,
    /// Bytes available: the memory there is, or what the allocator grants when that is less.
    pub available: u64,
    /// The largest count of the request that fits, when the caller can say.
    pub largest_fit: Option<u64>,
    /// What that count counts (`games per pairing`).
    pub unit: String,
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} needs {} of memory, but {} is available",
            self.what,
            size(self.needed),
            size(u128::from(self.available))
        )?;
        if let Some(fit) = self.largest_fit {
            write!(f, "; at most {fit} {} fit", self.unit)?;
        }
        Ok(())
    }
}

impl std::error::Error for TooLarge {}

/// Bytes the process can still have: Linux's `MemAvailable`, or what is left under its cgroup's
/// limit if that is less. `None` where the system does not say (nothing is refused then).
pub fn available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    let free = kib.saturating_mul(1024);
    let read = |name: &str| {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{name}"))
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    Some(match (read("memory.max"), read("memory.current")) {
        (Some(limit), Some(used)) => free.min(limit.saturating_sub(used)),
        _ => free,
    })
}

/// Refuse `count` things of `each` bytes (plus `fixed`) when the machine has less memory
/// available, or the allocator grants less (an address-space limit); `what` names the request
/// in the error, which also gives the largest count of `unit` that fits (unless `unit` is empty:
/// a count of one thing).
pub fn check(what: &str, count: u64, each: u64, fixed: u64, unit: &str) -> Result<(), TooLarge> {
    let needed = u128::from(count) * u128::from(each) + u128::from(fixed);
    if fits(needed) {
        return Ok(());
    }
    let limit = usable().unwrap_or(u64::MAX);
    Err(TooLarge {
        what: what.to_string(),
        needed,
        available: limit,
        largest_fit: (each > 0 && !unit.is_empty()).then(|| limit.saturating_sub(fixed) / each),
        unit: unit.to_string(),
    })
}

/// Whether `bytes` more can be had now: no more than the memory available, and granted by the
/// allocator with [`HEADROOM`] to spare.
pub fn fits(bytes: u128) -> bool {
    available().is_none_or(|free| bytes <= u128::from(free)) && granted_with_room(bytes)
}

/// Room in `v` for `extra` more, as far as the allocator gives it without taking the last
/// [`HEADROOM`]: a tree or buffer that grows "as far as memory allows" stops short of the point
/// where the process could no longer go on. False, with `v`'s capacity as it was, where it
/// cannot have the room. Checks the headroom only when `v` grew by a MiB or more: smaller steps
/// cannot take much of it, and the check (a reservation made and given back) would cost more
/// than they do.
pub fn grow<T>(v: &mut Vec<T>, extra: usize) -> bool {
    grow_by(v, extra, false)
}

/// [`grow`], to room for exactly `extra` more (no amortised doubling beyond it): for a buffer
/// whose size was checked in advance.
pub fn grow_exact<T>(v: &mut Vec<T>, extra: usize) -> bool {
    grow_by(v, extra, true)
}

fn grow_by<T>(v: &mut Vec<T>, extra: usize, exact: bool) -> bool {
    let before = v.capacity();
    let reserved = if exact {
        v.try_reserve_exact(extra)
    } else {
        v.try_reserve(extra)
    };
    if reserved.is_err() {
        return false;
    }
    let grown = (v.capacity() - before).saturating_mul(std::mem::size_of::<T>());
    if grown < 1 << 20 || granted(u128::from(HEADROOM)) {
        return true;
    }
    v.shrink_to(before.max(v.len()));
    false
}

/// The most bytes that can be had now: the memory available, or less where the allocator
/// grants less (an address-space limit), to the nearest MiB. `None` where neither limits it.
pub fn usable() -> Option<u64> {
    let free = available();
    let mut limit = free.unwrap_or(u64::MAX);
    if !granted_with_room(u128::from(limit)) {
        let (mut low, mut high) = (0u64, limit);
        while high - low > 1 << 20 {
            let middle = low + (high - low) / 2;
            if granted_with_room(u128::from(middle)) {
                low = middle;
            } else {
                high = middle;
            }
        }
        limit = low;
    } else if free.is_none() {
        return None;
    }
    Some(limit)
}

/// Whether `bytes` more of address space can be had now with [`HEADROOM`] to spare, whatever
/// the memory available: what a file mapping needs.
pub fn addressable(bytes: u128) -> bool {
    granted_with_room(bytes)
}

/// Whether the allocator grants `bytes` and [`HEADROOM`] beside them now.
fn granted_with_room(bytes: u128) -> bool {
    granted(bytes.saturating_add(u128::from(HEADROOM)))
}

/// Whether the allocator grants `bytes` now: an address-space limit (`ulimit -v`) may hold it
/// below the memory there is. Reserved and given back at once, untouched, it costs no memory.
fn granted(bytes: u128) -> bool {
    usize::try_from(bytes).is_ok_and(|bytes| Vec::<u8>::new().try_reserve_exact(bytes).is_ok())
}

/// The threads to run for a `--threads` of `requested`: 0 means one per core; more than
/// [`MAX_THREADS`] is refused.
pub fn threads(requested: usize) -> Result<usize, String> {
    match requested {
        0 => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        t if t > MAX_THREADS => Err(format!(
            "--threads {t} is too many: at most {MAX_THREADS} (this machine has {} cores; 0 means \
             one per core)",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        )),
        t => Ok(t),
    }
}

/// Bytes for people: `481.0 GiB`, `12.0 MiB`, `96.0 KiB`.
pub fn size(bytes: u128) -> String {
    let b = bytes as f64;
    let (unit, scale) = match bytes {
        b if b >= 1 << 30 => ("GiB", (1u64 << 30) as f64),
        b if b >= 1 << 20 => ("MiB", (1u64 << 20) as f64),
        _ => ("KiB", 1024.0),
    };
    format!("{:.1} {unit}", b / scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_beyond_the_memory_is_refused_with_what_fits() {
        let Some(free) = available() else { return };
        assert!(check("a little", 1, 1024, 0, "things").is_ok());
        let e = check(
            "--games 1000000000000000",
            1_000_000_000_000_000,
            100,
            0,
            "games",
        )
        .unwrap_err();
        assert!(e.needed > u128::from(free));
        let fit = e.largest_fit.unwrap();
        assert!(u128::from(fit) * 100 <= u128::from(free));
        assert!(check("as much as fits", fit / 2, 100, 0, "games").is_ok());
        let text = e.to_string();
        assert!(
            text.starts_with("--games 1000000000000000 needs 93132257.5 GiB of memory, but ")
                && text.ends_with(&format!("is available; at most {fit} games fit")),
            "{text}"
        );
    }

    #[test]
    fn threads_beyond_the_limit_are_refused() {
        assert!(threads(0).unwrap() >= 1);
        assert_eq!(threads(3), Ok(3));
        assert_eq!(threads(MAX_THREADS), Ok(MAX_THREADS));
        let e = threads(100_000_000).unwrap_err();
        assert!(
            e.contains("--threads 100000000") && e.contains("at most 1024"),
            "{e}"
        );
    }

    #[test]
    fn growing_gives_room_or_leaves_the_vector_as_it_was() {
        let mut v: Vec<u64> = vec![1, 2, 3];
        assert!(grow(&mut v, 1 << 18));
        assert!(v.capacity() >= 3 + (1 << 18));
        let before = v.capacity();
        // More than any machine has: refused, the vector and its room unchanged.
        assert!(!grow(&mut v, usize::MAX / 16));
        assert_eq!((v.capacity(), v.as_slice()), (before, &[1, 2, 3][..]));
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(481 << 30), "481.0 GiB");
        assert_eq!(size(3 << 19), "1.5 MiB");
        assert_eq!(size(2048), "2.0 KiB");
    }
}
