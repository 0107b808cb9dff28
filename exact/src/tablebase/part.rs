//! A table's next layer built in parts, for builds spread over processes or machines (Ray):
//! workers sow the moves of ranges of the layer's positions and value their captures from the
//! table below ([`Tablebase::layer_part`], the table memory-mapped and shared read-only), the
//! parts travel as bytes ([`LayerPart::to_bytes`], [`LayerPart::from_bytes`]), and one process
//! joins them into the layer ([`Tablebase::extend`]): the in-layer predecessors and the
//! threshold sweep, which need the whole layer at once. What a part holds depends only on the
//! table below and its range, so the table joined is the one a single build makes, byte for
//! byte.
//!
//! A part is a few bytes a position (5, and 4 for each move that captures nothing), so a layer
//! costs its size once more in transfers; sowing and valuing the moves is about half of a
//! layer's time (docs/tablebase.md), the half that spreads.

use super::build::{self, CHUNK, Exits, Layer, NO_EXIT, Predecessors, run_parallel};
use super::error::TablebaseError;
use super::file::checksum;
use super::index::{PositionIndex, layer_len};
use super::values::Values;
use super::{Cyclic, MAX_SEEDS, Tablebase};
use sowing_env::Rules;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The first bytes of a part.
pub const PART_MAGIC: &[u8; 8] = b"SOWPART\0";
/// The version of the part format.
pub const PART_VERSION: u32 = 1;
/// The longest rules JSON a part may carry.
const MAX_RULES_JSON: usize = 4096;

/// The moves of positions `first..first + len` of one layer (layer ranks), sown and their
/// captures valued from the layers below: each position's best exits and in-layer moves, and
/// each in-layer move's child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerPart {
    rules: Rules,
    seeds: u32,
    first: u64,
    exit_value: Vec<i8>,
    exit_low: Vec<i8>,
    exit_high: Vec<i8>,
    inside: Vec<u16>,
    /// The child (layer rank) of each in-layer move, by position and then by action.
    children: Vec<u32>,
}

impl LayerPart {
    /// The seeds of its layer.
    pub fn seeds(&self) -> u32 {
        self.seeds
    }

    /// Its first position (rank within the layer).
    pub fn first(&self) -> u64 {
        self.first
    }

    /// Its positions.
    pub fn len(&self) -> u64 {
        self.inside.len() as u64
    }

    /// Whether it holds no position.
    pub fn is_empty(&self) -> bool {
        self.inside.is_empty()
    }

    /// The part as bytes, for [`LayerPart::from_bytes`]: the magic, the version, the rules
    /// (JSON), the layer, the range and the arrays, little-endian, then the checksum of all of
    /// it (the tablebase file's word hash).
    pub fn to_bytes(&self) -> Vec<u8> {
        let rules = serde_json::to_vec(&self.rules).expect("rules serialise");
        let n = self.inside.len();
        let mut out = Vec::with_capacity(48 + rules.len() + 5 * n + 4 * self.children.len());
        out.extend_from_slice(PART_MAGIC);
        out.extend_from_slice(&PART_VERSION.to_le_bytes());
        out.extend_from_slice(&(rules.len() as u32).to_le_bytes());
        out.extend_from_slice(&rules);
        out.extend_from_slice(&self.seeds.to_le_bytes());
        out.extend_from_slice(&self.first.to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        out.extend_from_slice(&(self.children.len() as u64).to_le_bytes());
        for exits in [&self.exit_value, &self.exit_low, &self.exit_high] {
            out.extend(exits.iter().map(|&e| e as u8));
        }
        for m in &self.inside {
            out.extend_from_slice(&m.to_le_bytes());
        }
        for c in &self.children {
            out.extend_from_slice(&c.to_le_bytes());
        }
        let sum = checksum(&[&out]);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// A part from [`LayerPart::to_bytes`]; refused, saying what is wrong, when the bytes are not
    /// a whole part of this format, their checksum does not match, or they hold values no build
    /// makes (exits beyond the layer's
    /// seeds, moves beyond the row, children beyond the layer, a count of children that is not
    /// the count of in-layer moves).
    pub fn from_bytes(bytes: &[u8]) -> Result<LayerPart, TablebaseError> {
        if bytes.get(..8) != Some(PART_MAGIC) {
            return Err(bad("it does not start with the part magic \"SOWPART\\0\""));
        }
        // The checksum first: a part changed on its way is refused before it is read.
        let Some((bytes, sum)) = bytes.split_last_chunk::<8>() else {
            unreachable!("at least the magic's 8 bytes");
        };
        let (stored, found) = (u64::from_le_bytes(*sum), checksum(&[bytes]));
        if bytes.len() < 8 || stored != found {
            return Err(bad(format!(
                "its checksum is {stored:016x} but its contents give {found:016x} (a part cut \
                 short or changed on its way)"
            )));
        }
        let mut r = Reader { bytes, at: 8 };
        let version = r.u32()?;
        if version != PART_VERSION {
            return Err(bad(format!(
                "format version {version}, where this build reads {PART_VERSION}"
            )));
        }
        let rules_len = r.u32()? as usize;
        if rules_len > MAX_RULES_JSON {
            return Err(bad(format!(
                "{rules_len} bytes of rules, more than the {MAX_RULES_JSON} allowed"
            )));
        }
        let rules: Rules = serde_json::from_slice(r.take(rules_len)?)
            .map_err(|e| bad(format!("its rules are not rules: {e}")))?;
        let seeds = r.u32()?;
        if seeds > MAX_SEEDS {
            return Err(bad(format!(
                "a layer of {seeds} seeds, where tables hold 0 to {MAX_SEEDS}"
            )));
        }
        let first = r.u64()?;
        let n = r.u64()?;
        let children = r.u64()?;
        // The arrays must be exactly what is left: checked before anything is allocated.
        let want = n
            .checked_mul(5)
            .and_then(|a| children.checked_mul(4).and_then(|b| a.checked_add(b)));
        let left = (bytes.len() - r.at) as u64;
        if want != Some(left) {
            return Err(bad(format!(
                "{n} positions and {children} moves need {} bytes after the header, and {left} \
                 are there",
                want.map_or("more than 2^64".to_string(), |w| w.to_string())
            )));
        }
        let ring = 2 * rules.holes();
        let len = layer_len(ring, seeds as usize).unwrap_or(u128::MAX);
        if u128::from(first) + u128::from(n) > len {
            return Err(bad(format!(
                "positions {first} to {} of a layer of {len}",
                u128::from(first) + u128::from(n)
            )));
        }
        let (n, k) = (n as usize, seeds as i32);
        let exits = |r: &mut Reader<'_>, extra: &[i8]| -> Result<Vec<i8>, TablebaseError> {
            let exits: Vec<i8> = r.take(n)?.iter().map(|&b| b as i8).collect();
            match exits
                .iter()
                .find(|&&e| !(-k..=k).contains(&i32::from(e)) && !extra.contains(&e))
            {
                Some(e) => Err(bad(format!(
                    "an exit worth {e} in a layer of {k} seeds (allowed: -{k} to {k})"
                ))),
                None => Ok(exits),
            }
        };
        let exit_value = exits(&mut r, &[NO_EXIT])?;
        let exit_low = exits(&mut r, &[NO_EXIT])?;
        let exit_high = exits(&mut r, &[NO_EXIT, build::BLOCKED])?;
        let inside: Vec<u16> = r
            .take(2 * n)?
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        let row = (1u32 << rules.holes()) - 1;
        if let Some(m) = inside.iter().find(|&&m| u32::from(m) & !row != 0) {
            return Err(bad(format!(
                "in-layer moves {m:#b} on a row of {} holes",
                rules.holes()
            )));
        }
        let moves: u64 = inside.iter().map(|m| u64::from(m.count_ones())).sum();
        if moves != children {
            return Err(bad(format!(
                "{children} children for {moves} in-layer moves"
            )));
        }
        let children: Vec<u32> = r
            .take(4 * children as usize)?
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if let Some(c) = children.iter().find(|&&c| u128::from(c) >= len) {
            return Err(bad(format!("a child {c} beyond the layer of {len}")));
        }
        Ok(LayerPart {
            rules,
            seeds,
            first,
            exit_value,
            exit_low,
            exit_high,
            inside,
            children,
        })
    }
}

/// The error of bytes that are not a part.
fn bad(what: impl Into<String>) -> TablebaseError {
    TablebaseError::BadPart { what: what.into() }
}

/// Bytes read from the front, each read refused past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], TablebaseError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                bad(format!(
                    "it ends at byte {} where {n} more were to follow byte {}",
                    self.bytes.len(),
                    self.at
                ))
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, TablebaseError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, TablebaseError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
}

impl Tablebase {
    /// The positions of the next layer, the one of [`Tablebase::max_seeds`] + 1 seeds that
    /// [`Tablebase::layer_part`] and [`Tablebase::extend`] build.
    pub fn next_layer_len(&self) -> Result<u64, TablebaseError> {
        let (rules, k) = (self.rules, self.max_seeds() + 1);
        if k > MAX_SEEDS {
            return Err(TablebaseError::Unsupported {
                message: format!(
                    "this table holds {} seeds, and tables hold at most {MAX_SEEDS}",
                    k - 1
                ),
            });
        }
        let len = layer_len(2 * rules.holes(), k as usize).unwrap_or(u128::MAX);
        if len * rules.holes() as u128 > u128::from(u32::MAX) {
            return Err(TablebaseError::Unsupported {
                message: format!(
                    "the layer of {k} seeds has {len} positions, more than this builder indexes \
                     ({} with {} moves each)",
                    u32::MAX as usize / rules.holes(),
                    rules.holes()
                ),
            });
        }
        Ok(len as u64)
    }

    /// The moves of positions `first..first + count` of the next layer, sown and their
    /// captures valued from this table, on this thread. Refused for a range beyond the layer,
    /// and, before anything is allocated, when the part would not fit in memory.
    pub fn layer_part(&self, first: u64, count: u64) -> Result<LayerPart, TablebaseError> {
        let len = self.next_layer_len()?;
        if first.checked_add(count).is_none_or(|end| end > len) {
            return Err(TablebaseError::Unsupported {
                message: format!(
                    "positions {first} to {} of a layer of {len}: a part lies within 0 to {len}",
                    u128::from(first) + u128::from(count)
                ),
            });
        }
        let holes = self.rules.holes();
        let k = self.max_seeds() as usize + 1;
        let needed = u128::from(count) * (5 + 4 * holes as u128) + super::memory::per_thread(holes);
        super::memory::check_open(&format!("a part of {count} positions"), needed)?;
        let index = PositionIndex::new(2 * holes, k).expect("the next layer is indexed");
        let roomy = build::roomy(&self.rules)?;
        let layer = Layer::new(&roomy, &index, k);
        let n = count as usize;
        let mut part = LayerPart {
            rules: self.rules,
            seeds: k as u32,
            first,
            exit_value: vec![NO_EXIT; n],
            exit_low: vec![NO_EXIT; n],
            exit_high: vec![NO_EXIT; n],
            inside: vec![0; n],
            children: Vec::new(),
        };
        let lower = &self.values[..];
        for job in (0..n).step_by(CHUNK) {
            let end = (job + CHUNK).min(n);
            layer.sow_job(
                lower,
                &self.cyclic,
                first as usize + job,
                Exits {
                    value: &mut part.exit_value[job..end],
                    low: &mut part.exit_low[job..end],
                    high: &mut part.exit_high[job..end],
                    inside: &mut part.inside[job..end],
                },
                &mut part.children,
            );
        }
        Ok(part)
    }

    /// This table with its next layer, joined from `parts` that cover it, in order, on
    /// `threads` threads (0: one per core): the same table, byte for byte, as a build to one
    /// more seed. Refused when the parts are of other rules or another layer, leave a gap or
    /// overlap, or when the table would not fit in memory.
    pub fn extend(&self, parts: &[LayerPart], threads: usize) -> Result<Tablebase, TablebaseError> {
        let len = self.next_layer_len()?;
        let k = self.max_seeds() + 1;
        let mut at = 0u64;
        for (i, part) in parts.iter().enumerate() {
            if let Some((field, table, asked)) = self.rules.tree_difference(&part.rules) {
                return Err(TablebaseError::Unsupported {
                    message: format!(
                        "part {i} is of other rules: {field} is {asked} there, {table} in this \
                         table"
                    ),
                });
            }
            if part.seeds != k {
                return Err(TablebaseError::Unsupported {
                    message: format!(
                        "part {i} is of the layer of {} seeds, and this table's next layer has \
                         {k}",
                        part.seeds
                    ),
                });
            }
            if part.first != at {
                return Err(TablebaseError::Unsupported {
                    message: format!(
                        "part {i} starts at position {} where the parts before end at {at}: \
                         parts must cover the layer in order, without gaps or overlaps",
                        part.first
                    ),
                });
            }
            if let Some(c) = part.children.iter().find(|&&c| u64::from(c) >= len) {
                return Err(TablebaseError::Unsupported {
                    message: format!("part {i} has a child {c} beyond the layer of {len}"),
                });
            }
            at += part.len();
        }
        if at != len {
            return Err(TablebaseError::Unsupported {
                message: format!("the parts cover {at} of the layer's {len} positions"),
            });
        }
        let index = Tablebase::index_for(&self.rules, k, threads)?;
        let roomy = build::roomy(&self.rules)?;
        let layer = Layer::new(&roomy, &index, k as usize);
        let mut values = vec![0u8; index.len() as usize];
        let below = &self.values[..];
        values[..below.len()].copy_from_slice(below);
        let mut cyclic = self.cyclic.clone();
        solve_parts(
            &layer,
            parts,
            &mut cyclic,
            &mut values[below.len()..],
            build::threads(threads),
        )?;
        Ok(Tablebase {
            rules: self.rules,
            index,
            values: Values::Owned(values),
            cyclic,
            path: None,
        })
    }
}

/// Solve `layer` from its moves in `parts` (checked to cover it), its values into `out`.
fn solve_parts(
    layer: &Layer<'_>,
    parts: &[LayerPart],
    cyclic: &mut Vec<Cyclic>,
    out: &mut [u8],
    threads: usize,
) -> Result<(), TablebaseError> {
    let len = out.len();
    let join = |f: fn(&LayerPart) -> &Vec<i8>| -> Vec<i8> {
        parts.iter().flat_map(|p| f(p).iter().copied()).collect()
    };
    let mut exit_value = join(|p| &p.exit_value);
    let mut exit_low = join(|p| &p.exit_low);
    let mut exit_high = join(|p| &p.exit_high);
    let mut inside: Vec<u16> = parts
        .iter()
        .flat_map(|p| p.inside.iter().copied())
        .collect();
    // Each child's count of in-layer predecessors, then where their runs end, then the runs.
    let links: Vec<AtomicU32> = (0..=len).map(|_| AtomicU32::new(0)).collect();
    run_parallel(threads, parts.iter().collect(), |part| {
        build::each_prefetched(&links, &part.children, |_, link| {
            link.fetch_add(1, Relaxed);
        });
    });
    let edges = layer.run_ends(&links)?;
    let predecessors: Vec<AtomicU32> = (0..edges).map(|_| AtomicU32::new(0)).collect();
    run_parallel(threads, parts.iter().collect(), |part| {
        let parents: Vec<u32> = part
            .inside
            .iter()
            .enumerate()
            .flat_map(|(i, m)| {
                std::iter::repeat_n((part.first + i as u64) as u32, m.count_ones() as usize)
            })
            .collect();
        build::link(&links, &predecessors, &parents, &part.children);
    });
    layer.value(
        Exits {
            value: &mut exit_value,
            low: &mut exit_low,
            high: &mut exit_high,
            inside: &mut inside,
        },
        &Predecessors {
            starts: &links,
            of: &predecessors,
        },
        cyclic,
        out,
        &|_, _| {},
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::BuildOptions;

    fn rules() -> Rules {
        Rules::preset("en-dodoi-6").unwrap()
    }

    #[test]
    fn a_table_extended_from_parts_is_the_table_built_through() {
        let rules = rules();
        let whole = Tablebase::build(&rules, 9, &BuildOptions::default()).unwrap();
        let mut table = Tablebase::build(&rules, 5, &BuildOptions::default()).unwrap();
        while table.max_seeds() < 9 {
            let len = table.next_layer_len().unwrap();
            // Uneven parts, one of them empty, through bytes and back.
            let cuts = [0, len / 3, len / 3, len / 2 + 7, len];
            let parts: Vec<LayerPart> = cuts
                .windows(2)
                .map(|w| {
                    let part = table.layer_part(w[0], w[1] - w[0]).unwrap();
                    LayerPart::from_bytes(&part.to_bytes()).unwrap()
                })
                .collect();
            assert!(parts[1].is_empty());
            table = table.extend(&parts, 2).unwrap();
        }
        assert_eq!(table.values[..], whole.values[..]);
        assert_eq!(table.cyclic, whole.cyclic);
        assert!(
            !whole.cyclic.is_empty(),
            "the check covers positions whose bounds differ"
        );
    }

    #[test]
    fn parts_that_do_not_cover_the_layer_or_are_of_another_table_are_refused() {
        let rules = rules();
        let table = Tablebase::build(&rules, 4, &BuildOptions::default()).unwrap();
        let len = table.next_layer_len().unwrap();
        let a = table.layer_part(0, len / 2).unwrap();
        let b = table.layer_part(len / 2, len - len / 2).unwrap();
        let message = |parts: &[LayerPart]| table.extend(parts, 1).unwrap_err().to_string();
        let only_a = message(std::slice::from_ref(&a));
        assert!(only_a.contains("cover"), "{only_a}");
        assert!(message(&[b.clone(), a.clone()]).contains("in order"));
        assert!(message(&[a.clone(), a.clone(), b.clone()]).contains("in order"));
        let other = Tablebase::build(&rules, 3, &BuildOptions::default()).unwrap();
        let wrong_layer = other
            .layer_part(0, other.next_layer_len().unwrap())
            .unwrap();
        assert!(message(&[wrong_layer]).contains("layer of 4 seeds"));
        let seven = Rules::preset("en-dodoi-7").unwrap();
        let other = Tablebase::build(&seven, 4, &BuildOptions::default()).unwrap();
        let part = other.layer_part(0, 10).unwrap();
        assert!(message(&[part]).contains("other rules"));
        let e = table.layer_part(len - 1, 2).unwrap_err().to_string();
        assert!(e.contains(&format!("a part lies within 0 to {len}")), "{e}");
        assert_eq!(table.extend(&[a, b], 1).unwrap().max_seeds(), 5);
    }

    #[test]
    fn damaged_parts_are_refused_with_what_is_wrong_and_never_panic() {
        let table = Tablebase::build(&rules(), 6, &BuildOptions::default()).unwrap();
        let bytes = table.layer_part(100, 400).unwrap().to_bytes();
        // Every cut short is refused.
        for end in 0..bytes.len() {
            let e = LayerPart::from_bytes(&bytes[..end])
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("not a layer part of a tablebase: "), "{e}");
        }
        // Every byte changed, to a few values each, is refused: the checksum sees it.
        for at in 0..bytes.len() {
            for v in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut b = bytes.clone();
                if b[at] == v {
                    continue;
                }
                b[at] = v;
                let e = LayerPart::from_bytes(&b).unwrap_err().to_string();
                assert!(e.starts_with("not a layer part of a tablebase: "), "{e}");
            }
        }
        // What the checks behind the checksum refuse, with a checksum that matches.
        let sealed = |mut b: Vec<u8>| {
            b.truncate(b.len() - 8);
            let sum = checksum(&[&b]);
            b.extend_from_slice(&sum.to_le_bytes());
            b
        };
        let rules_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let arrays = 16 + rules_len + 4 + 8 + 8 + 8;
        let mut b = bytes.clone();
        b[arrays] = 100; // an exit worth 100 in a layer of 7 seeds
        let e = LayerPart::from_bytes(&sealed(b)).unwrap_err().to_string();
        assert!(e.contains("an exit worth 100"), "{e}");
        let mut b = bytes.clone();
        b[arrays + 3 * 400 + 1] = 0xff; // moves beyond a row of 6 holes
        let e = LayerPart::from_bytes(&sealed(b)).unwrap_err().to_string();
        assert!(e.contains("in-layer moves"), "{e}");
        let mut wrong = bytes.clone();
        wrong[8] = 2;
        let e = LayerPart::from_bytes(&sealed(wrong))
            .unwrap_err()
            .to_string();
        assert!(e.contains("format version 2"), "{e}");
        assert_eq!(
            LayerPart::from_bytes(&bytes).unwrap(),
            table.layer_part(100, 400).unwrap()
        );
    }
}
