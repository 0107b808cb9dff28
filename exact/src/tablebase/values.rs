//! Where a table's values live: bytes of its own (a table built here, or read into memory), or
//! the file itself mapped read-only, so that every process probing one table (Ray workers,
//! `sowing` commands run side by side) shares the one copy in the page cache instead of each
//! holding its own, and a table larger than the memory can still be probed (paged in as read).
//!
//! A mapping shows the file as it is. This project never rewrites a table in place: it writes a
//! temporary beside it and renames it over ([`crate::output_file`]), so a mapped table keeps the
//! contents it was checked with when a new file replaces it. A file truncated in place by
//! another program would fault the reader (SIGBUS); [`Load::Copy`] reads into memory instead.

use std::fs::File;
use std::ops::Deref;

/// How [`super::Tablebase::open_with`] holds the values it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Load {
    /// Map the file read-only and share it through the page cache (the default). Where the
    /// system cannot map files, the values are read into memory.
    #[default]
    Map,
    /// Read the values into memory of the process's own.
    Copy,
}

/// A table's values: one byte per position, in index order.
pub(crate) enum Values {
    Owned(Vec<u8>),
    #[cfg(unix)]
    Mapped(Mapping),
}

impl Values {
    /// The values as bytes of their own, copied out of a mapping (a build going on from a
    /// checkpoint extends them).
    pub(crate) fn into_vec(self) -> Vec<u8> {
        match self {
            Values::Owned(bytes) => bytes,
            #[cfg(unix)]
            Values::Mapped(map) => map.to_vec(),
        }
    }

    pub(crate) fn is_mapped(&self) -> bool {
        !matches!(self, Values::Owned(_))
    }
}

impl Deref for Values {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Values::Owned(bytes) => bytes,
            #[cfg(unix)]
            Values::Mapped(map) => map,
        }
    }
}

/// A clone holds its own bytes: a copy made to be changed or kept apart from the file.
impl Clone for Values {
    fn clone(&self) -> Values {
        Values::Owned(self.to_vec())
    }
}

/// Part of a file mapped read-only: `len` bytes from byte `start` of the mapping of its first
/// `start + len` bytes.
#[cfg(unix)]
pub(crate) struct Mapping {
    base: std::ptr::NonNull<u8>,
    mapped: usize,
    start: usize,
    len: usize,
}

// The mapping is read-only and owned by this value alone: sharing references to it across
// threads is sharing immutable bytes.
#[cfg(unix)]
unsafe impl Send for Mapping {}
#[cfg(unix)]
unsafe impl Sync for Mapping {}

#[cfg(unix)]
impl Mapping {
    /// Map bytes `start..start + len` of `file` (the whole prefix to `start + len` is mapped,
    /// from offset 0, which every page size divides).
    pub(crate) fn new(file: &File, start: usize, len: usize) -> std::io::Result<Mapping> {
        use std::os::fd::AsRawFd;
        let mapped = start
            .checked_add(len)
            .filter(|&n| n > 0)
            .ok_or_else(|| std::io::Error::other("nothing or too much to map"))?;
        // SAFETY: a fresh read-only private mapping of an open file; the kernel checks the
        // descriptor and the length, and failure is reported, not assumed away.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Mapping {
            base: std::ptr::NonNull::new(base.cast()).expect("mmap never maps address 0"),
            mapped,
            start,
            len,
        })
    }
}

#[cfg(unix)]
impl Deref for Mapping {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: `start + len <= mapped` bytes from `base` stay mapped, read-only, until drop.
        unsafe { std::slice::from_raw_parts(self.base.as_ptr().add(self.start), self.len) }
    }
}

#[cfg(unix)]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped, once; no reference outlives `self`.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.mapped) };
    }
}
