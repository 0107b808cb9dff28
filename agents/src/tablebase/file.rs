//! The tablebase file: a fixed start, a JSON header, then one byte per position.
//!
//! ```text
//! bytes 0..8     magic "SOWINGTB"
//! bytes 8..12    format version, u32 little-endian (1)
//! bytes 12..16   header length h, u32 little-endian
//! bytes 16..24   checksum, u64 little-endian, of bytes 8..16, the header and the values
//! bytes 24..24+h header, UTF-8 JSON: {"rules": {...}, "max_seeds": K, "positions": N}
//! then N bytes   the value of each position, in index order
//! ```
//!
//! The checksum is our own word hash: for each of the three parts in turn, every 8-byte
//! little-endian word `w` (the last one padded with zeros), then the part's length, does
//! `h = rotate_left((h ^ w) * P, 29)`. Each step is a bijection of `h` and one-to-one in `w`, so
//! any change of a single word, and so any flipped byte, changes the checksum.

use super::error::TablebaseError;
use super::index::count;
use super::{ENDLESS, memory};
use serde::{Deserialize, Serialize};
use sowing_env::Rules;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The first bytes of every tablebase file.
pub const MAGIC: &[u8; 8] = b"SOWINGTB";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Bytes before the header: magic, version, header length, checksum.
const FIXED: usize = 24;
/// The longest header accepted: a rules JSON is a few hundred bytes.
const MAX_HEADER: u32 = 1 << 16;
/// The most seeds a table may hold: values are stored in a signed byte.
pub const MAX_SEEDS: u32 = 127;

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

/// Write a table to `path` atomically: into a temporary file beside it, then renamed over it,
/// so that a reader never sees half a file.
pub(crate) fn write(path: &Path, header: &Header, values: &[u8]) -> Result<(), TablebaseError> {
    let json = serde_json::to_vec(header).expect("a header always serialises");
    let mut lengths = [0u8; 8];
    lengths[..4].copy_from_slice(&VERSION.to_le_bytes());
    lengths[4..].copy_from_slice(&(json.len() as u32).to_le_bytes());
    let sum = checksum(&[&lengths, &json, values]);
    let name = path
        .file_name()
        .ok_or_else(|| TablebaseError::Unsupported {
            message: format!(
                "cannot write a tablebase to {}: not a file name",
                path.display()
            ),
        })?
        .to_string_lossy();
    let temp: PathBuf = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&temp)?);
        out.write_all(MAGIC)?;
        out.write_all(&lengths)?;
        out.write_all(&sum.to_le_bytes())?;
        out.write_all(&json)?;
        out.write_all(values)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    written.map_err(|e| {
        // The temporary file may not exist; nothing else to do about a failed clean-up.
        let _ = std::fs::remove_file(&temp);
        TablebaseError::io(path, "write", e)
    })
}

/// Read and check a table: its header, then its values (after checking the memory they need).
pub(crate) fn read(path: &Path) -> Result<(Header, Vec<u8>), TablebaseError> {
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
    memory::check_open(&format!("opening tablebase {}", path.display()), positions)?;
    let expected = FIXED as u64 + u64::from(header_len) + header.positions;
    if size != expected {
        return Err(damaged(format!(
            "{size} bytes, but its header makes {expected}: {}",
            if size < expected {
                "it is truncated"
            } else {
                "there are bytes after its values"
            }
        )));
    }
    let mut values = vec![0u8; header.positions as usize];
    file.read_exact(&mut values).map_err(io)?;
    let sum = checksum(&[&fixed[8..16], &json, &values]);
    if sum != stored_sum {
        return Err(damaged(format!(
            "its checksum is {stored_sum:016x} but its contents give {sum:016x}"
        )));
    }
    check_values(path, &header, &values)?;
    Ok((header, values))
}

/// Every value of the layer of `k` seeds is within `-k..=k`, or endless.
fn check_values(path: &Path, header: &Header, values: &[u8]) -> Result<(), TablebaseError> {
    let ring = 2 * header.rules.holes();
    let index = super::index::PositionIndex::new(ring, header.max_seeds as usize)
        .expect("the count was checked");
    for k in 0..=header.max_seeds as usize {
        let layer = index.layer(k);
        let bad = values[layer.start as usize..layer.end as usize]
            .iter()
            .position(|&b| b != ENDLESS && (b as i8).unsigned_abs() as usize > k);
        if let Some(at) = bad {
            return Err(TablebaseError::damaged(
                path,
                format!(
                    "position {} of {k} seeds has value {}, beyond the {k} seeds on its board",
                    layer.start + at as u64,
                    values[layer.start as usize + at] as i8
                ),
            ));
        }
    }
    Ok(())
}
