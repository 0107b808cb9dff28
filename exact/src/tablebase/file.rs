//! The tablebase file: a fixed start, a JSON header, one byte per position, then the bounds of
//! the few positions whose bounds differ from their value.
//!
//! ```text
//! bytes 0..8     magic "SOWINGTB"
//! bytes 8..12    format version, u32 little-endian (2)
//! bytes 12..16   header length h, u32 little-endian
//! bytes 16..24   checksum, u64 little-endian, of bytes 8..16, the header, the values and the
//!                bounds
//! bytes 24..24+h header, UTF-8 JSON: {"rules": {...}, "max_seeds": K, "positions": N}
//! then N bytes   the value of each position, in index order, as i8; 0x80 for a position whose
//!                bounds follow
//! then 8 bytes   C, the number of such positions, u64 little-endian
//! then C x 12    for each, in increasing index: the index (u64 little-endian), the value (i8),
//!                1 if perfect play never ends else 0, L and H (i8; -128 is minus infinity,
//!                127 plus infinity)
//! ```
//!
//! The checksum is our own word hash: for each of the parts in turn, every 8-byte
//! little-endian word `w` (the last one padded with zeros), then the part's length, does
//! `h = rotate_left((h ^ w) * P, 29)`. Each step is a bijection of `h` and one-to-one in `w`, so
//! any change of a single word, and so any flipped byte, changes the checksum.

use super::error::TablebaseError;
use super::index::count;
#[cfg(unix)]
use super::values::Mapping;
use super::values::{Load, Values};
use super::{CYCLIC, Cyclic, NEG_INF, POS_INF, memory, widen};
use serde::{Deserialize, Serialize};
use sowing_env::Rules;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The first bytes of every tablebase file.
pub const MAGIC: &[u8; 8] = b"SOWINGTB";
/// The format version this build writes and reads.
pub const VERSION: u32 = 2;
/// Bytes before the header: magic, version, header length, checksum.
const FIXED: usize = 24;
/// The longest header accepted: a rules JSON is a few hundred bytes.
const MAX_HEADER: u32 = 1 << 16;
/// The most seeds a table may hold: values are stored in a signed byte, whose ends mark the
/// cyclic positions and the infinite bounds.
pub const MAX_SEEDS: u32 = 126;
/// Bytes of one cyclic entry: index, value, endless, `L`, `H`.
const ENTRY: usize = 12;

/// The header: what the values are of.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Header {
    pub rules: Rules,
    pub max_seeds: u32,
    pub positions: u64,
}

const SEED: u64 = 0x736f_7769_6e67_7462;
const PRIME: u64 = 0x9e37_79b9_7f4a_7c15;

/// The checksum of `parts`, as the module describes.
pub(crate) fn checksum(parts: &[&[u8]]) -> u64 {
    let mix = |h: u64, w: u64| (h ^ w).wrapping_mul(PRIME).rotate_left(29);
    let mut h = SEED;
    for part in parts {
        let mut words = part.chunks_exact(8);
        for w in &mut words {
            h = mix(h, u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            h = mix(h, u64::from_le_bytes(last));
        }
        h = mix(h, part.len() as u64);
    }
    h
}

/// Write a table to `path` through [`crate::output_file`]: into a temporary file beside it, then
/// renamed over it, so that a reader never sees half a file and no device is replaced.
pub(crate) fn write(
    path: &Path,
    header: &Header,
    values: &[u8],
    cyclic: &[Cyclic],
) -> Result<(), TablebaseError> {
    let json = serde_json::to_vec(header).expect("a header always serialises");
    let mut tail = Vec::with_capacity(8 + ENTRY * cyclic.len());
    tail.extend_from_slice(&(cyclic.len() as u64).to_le_bytes());
    for c in cyclic {
        tail.extend_from_slice(&c.index.to_le_bytes());
        tail.extend_from_slice(&[
            c.value as u8,
            u8::from(c.endless),
            c.low as u8,
            c.high as u8,
        ]);
    }
    let mut lengths = [0u8; 8];
    lengths[..4].copy_from_slice(&VERSION.to_le_bytes());
    lengths[4..].copy_from_slice(&(json.len() as u32).to_le_bytes());
    let sum = checksum(&[&lengths, &json, values, &tail]);
    crate::output_file::write_with(path, 1 << 20, |out| {
        out.write_all(MAGIC)?;
        out.write_all(&lengths)?;
        out.write_all(&sum.to_le_bytes())?;
        out.write_all(&json)?;
        out.write_all(values)?;
        out.write_all(&tail)
    })
    .map_err(|e| TablebaseError::io(path, "write", e.source))
}

/// Read and check a table: its header, then its values (mapped or read, as `load` says, after
/// checking the memory they need) and the bounds of its cyclic positions. Every byte is checked
/// either way: a mapped table is read through once by the checksum.
pub(crate) fn read(
    path: &Path,
    load: Load,
) -> Result<(Header, Values, Vec<Cyclic>), TablebaseError> {
    let io = |e| TablebaseError::io(path, "read", e);
    let damaged = |what: String| TablebaseError::damaged(path, what);
    let mut file = File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    if size < FIXED as u64 {
        return Err(damaged(format!(
            "{size} bytes, shorter than the {FIXED} bytes every tablebase starts with"
        )));
    }
    let mut fixed = [0u8; FIXED];
    file.read_exact(&mut fixed).map_err(io)?;
    if &fixed[..8] != MAGIC {
        return Err(damaged(format!(
            "it does not start with {:?}, as sowing tablebases do",
            String::from_utf8_lossy(MAGIC)
        )));
    }
    let word = |at: usize| u32::from_le_bytes(fixed[at..at + 4].try_into().expect("4 bytes"));
    let version = word(8);
    if version != VERSION {
        return Err(damaged(format!(
            "format version {version}; this build reads version {VERSION}"
        )));
    }
    let header_len = word(12);
    if header_len > MAX_HEADER || FIXED as u64 + u64::from(header_len) > size {
        return Err(damaged(format!(
            "a header of {header_len} bytes, beyond the file's {size} bytes or the {MAX_HEADER} \
             a header may take"
        )));
    }
    let stored_sum = u64::from_le_bytes(fixed[16..24].try_into().expect("8 bytes"));
    let mut json = vec![0u8; header_len as usize];
    file.read_exact(&mut json).map_err(io)?;
    let header: Header =
        serde_json::from_slice(&json).map_err(|e| damaged(format!("its header: {e}")))?;
    if header.max_seeds > MAX_SEEDS {
        return Err(damaged(format!(
            "its header says max_seeds {}; tables hold at most {MAX_SEEDS}",
            header.max_seeds
        )));
    }
    let ring = 2 * header.rules.holes();
    let positions = count(ring, header.max_seeds as usize).unwrap_or(u128::MAX);
    if u128::from(header.positions) != positions {
        return Err(damaged(format!(
            "its header says {} positions, but boards of {ring} holes with at most {} seeds are \
             {positions}",
            header.positions, header.max_seeds
        )));
    }
    let values_start = FIXED as u64 + u64::from(header_len);
    let values_end = values_start + header.positions;
    // The memory first, as a table too large to hold is refused whatever else is wrong.
    let what = format!("opening tablebase {}", path.display());
    match load {
        #[cfg(unix)]
        Load::Map => memory::check_map(&what, u128::from(values_end))?,
        _ => memory::check_open(&what, positions)?,
    }
    if size < values_end + 8 {
        return Err(damaged(format!(
            "{size} bytes, but its header makes {} before the count of cyclic positions: it is \
             truncated",
            values_end + 8
        )));
    }
    let values = match load {
        #[cfg(unix)]
        Load::Map => {
            let map = Mapping::new(&file, values_start as usize, header.positions as usize)
                .map_err(|e| TablebaseError::io(path, "map", e))?;
            file.seek(SeekFrom::Start(values_end)).map_err(io)?;
            Values::Mapped(map)
        }
        _ => {
            let mut values = vec![0u8; header.positions as usize];
            file.read_exact(&mut values).map_err(io)?;
            Values::Owned(values)
        }
    };
    let mut count = [0u8; 8];
    file.read_exact(&mut count).map_err(io)?;
    let cyclic_count = u64::from_le_bytes(count);
    let expected = u128::from(values_end + 8) + u128::from(cyclic_count) * ENTRY as u128;
    if u128::from(size) != expected {
        return Err(damaged(format!(
            "{size} bytes, but its header and its {cyclic_count} cyclic positions make \
             {expected}: {}",
            if u128::from(size) < expected {
                "it is truncated"
            } else {
                "there are bytes after its bounds"
            }
        )));
    }
    let mut entries = vec![0u8; cyclic_count as usize * ENTRY];
    file.read_exact(&mut entries).map_err(io)?;
    let mut tail = count.to_vec();
    tail.extend_from_slice(&entries);
    let sum = checksum(&[&fixed[8..16], &json, &values, &tail]);
    if sum != stored_sum {
        return Err(damaged(format!(
            "its checksum is {stored_sum:016x} but its contents give {sum:016x}"
        )));
    }
    let cyclic: Vec<Cyclic> = entries
        .chunks_exact(ENTRY)
        .map(|e| Cyclic {
            index: u64::from_le_bytes(e[..8].try_into().expect("8 bytes")),
            value: e[8] as i8,
            endless: e[9] != 0,
            low: e[10] as i8,
            high: e[11] as i8,
        })
        .collect();
    if let Some(bad) = entries.chunks_exact(ENTRY).position(|e| e[9] > 1) {
        return Err(damaged(format!(
            "the endless flag of its cyclic position {bad} is {}, not 0 or 1",
            entries[bad * ENTRY + 9]
        )));
    }
    check_values(path, &header, &values, &cyclic)?;
    Ok((header, values, cyclic))
}

/// Every value of the layer of `k` seeds is within `-k..=k`, or cyclic; the cyclic positions are
/// exactly those listed, in increasing index, with `L < H` and finite bounds within `-k..=k`.
fn check_values(
    path: &Path,
    header: &Header,
    values: &[u8],
    cyclic: &[Cyclic],
) -> Result<(), TablebaseError> {
    let damaged = |what: String| TablebaseError::damaged(path, what);
    let ring = 2 * header.rules.holes();
    let index = super::index::PositionIndex::new(ring, header.max_seeds as usize)
        .expect("the count was checked");
    let mut entries = cyclic.iter().peekable();
    let mut previous = None;
    for k in 0..=header.max_seeds as usize {
        let layer = index.layer(k);
        let within = |b: i8| b.unsigned_abs() as usize <= k;
        for at in layer {
            let byte = values[at as usize];
            if byte != CYCLIC {
                if !within(byte as i8) {
                    return Err(damaged(format!(
                        "position {at} of {k} seeds has value {}, beyond the {k} seeds on its \
                         board",
                        byte as i8
                    )));
                }
                continue;
            }
            let Some(entry) = entries.next() else {
                return Err(damaged(format!(
                    "position {at} is marked cyclic but has no bounds"
                )));
            };
            if entry.index != at || previous.is_some_and(|p| p >= entry.index) {
                return Err(damaged(format!(
                    "the bounds of position {} stand where position {at}'s belong",
                    entry.index
                )));
            }
            previous = Some(entry.index);
            let low_ok = entry.low == NEG_INF || within(entry.low);
            let high_ok = entry.high == POS_INF || within(entry.high);
            let value = i32::from(entry.value);
            let inside = (widen(entry.low)..=widen(entry.high)).contains(&value);
            if !low_ok || !high_ok || entry.low >= entry.high || !inside {
                return Err(damaged(format!(
                    "position {at} of {k} seeds has value {value} and bounds {} and {}, not two \
                     different bounds about its value within its {k} seeds",
                    entry.low, entry.high
                )));
            }
        }
    }
    if let Some(extra) = entries.next() {
        return Err(damaged(format!(
            "bounds for position {}, which is not marked cyclic",
            extra.index
        )));
    }
    Ok(())
}
