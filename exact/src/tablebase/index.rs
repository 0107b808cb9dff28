//! The perfect index of positions: every way of spreading at most `K` seeds over a ring of `m`
//! holes gets its own number, `0..C(K + m, m)`, with no gaps, ordered by the seeds on the board.
//!
//! This is the combinatorial number system ("stars and bars"). A board of `k` seeds is a row of
//! `k` seeds with `m - 1` bars between the holes; with prefix sums `s_j = x_0 + ... + x_j`, bar
//! `j` stands at place `c_j = s_j + j`, and the places increase. The index is
//!
//! ```text
//! sum over j in 0..m of C(s_j + j, j + 1)
//! ```
//!
//! The terms `j < m - 1` rank the bars among the `C(k + m - 1, m - 1)` boards of `k` seeds
//! (colexicographic order of the places); the last, `C(k + m - 1, m)`, counts the boards of fewer
//! seeds, so the layers of 0, 1, 2, ... seeds follow one another. Indexing a board costs `m`
//! additions and look-ups in a small table.

use std::ops::Range;

/// Numbers the boards of a ring of holes with at most `max_seeds` seeds, as the module explains.
#[derive(Clone, Debug)]
pub struct PositionIndex {
    ring: usize,
    max_seeds: usize,
    /// `terms[s * ring + j]` is `C(s + j, j + 1)`, for `s` in `0..=max_seeds`.
    terms: Vec<u64>,
}

/// `C(n, r)`, exactly, or `None` beyond `u128`.
pub(crate) fn binomial(n: u64, r: u64) -> Option<u128> {
    if r > n {
        return Some(0);
    }
    let r = r.min(n - r);
    let mut c: u128 = 1;
    for i in 1..=r {
        // Exact at every step: c * (n - r + i) / i is C(n - r + i, i).
        c = c.checked_mul(u128::from(n - r + i))? / u128::from(i);
    }
    Some(c)
}

/// Boards of exactly `seeds` seeds on a ring of `ring` holes: `C(seeds + ring - 1, ring - 1)`.
pub(crate) fn layer_len(ring: usize, seeds: usize) -> Option<u128> {
    binomial((seeds + ring - 1) as u64, (ring - 1) as u64)
}

/// Boards of at most `max_seeds` seeds on a ring of `ring` holes: `C(max_seeds + ring, ring)`.
pub(crate) fn count(ring: usize, max_seeds: usize) -> Option<u128> {
    binomial((max_seeds + ring) as u64, ring as u64)
}

impl PositionIndex {
    /// The index of the boards of `ring` holes (2 to 32) with at most `max_seeds` seeds; `None`
    /// when there are more than `u64` can number.
    pub fn new(ring: usize, max_seeds: usize) -> Option<PositionIndex> {
        if !(2..=32).contains(&ring) {
            return None;
        }
        let total = count(ring, max_seeds)?;
        if total > u128::from(u64::MAX) {
            return None;
        }
        let mut terms = Vec::with_capacity((max_seeds + 1) * ring);
        for s in 0..=max_seeds {
            for j in 0..ring {
                // At most C(max_seeds + ring, ring), which fits.
                let c = binomial((s + j) as u64, (j + 1) as u64)?;
                terms.push(c as u64);
            }
        }
        Some(PositionIndex {
            ring,
            max_seeds,
            terms,
        })
    }

    /// Holes in the ring, `m`.
    pub fn ring(&self) -> usize {
        self.ring
    }

    /// The most seeds a board indexed here holds.
    pub fn max_seeds(&self) -> usize {
        self.max_seeds
    }

    /// Boards indexed: `C(max_seeds + m, m)`.
    pub fn len(&self) -> u64 {
        self.layer(self.max_seeds).end
    }

    /// Never empty: the empty board always has index 0.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The indices of the boards of exactly `seeds` seeds (at most `max_seeds`).
    pub fn layer(&self, seeds: usize) -> Range<u64> {
        let last = self.ring - 1;
        let start = self.terms[seeds * self.ring + last];
        let end = if seeds < self.max_seeds {
            self.terms[(seeds + 1) * self.ring + last]
        } else {
            // C(max_seeds + m, m) = C(max_seeds + m - 1, m) + C(max_seeds + m - 1, m - 1).
            start + layer_len(self.ring, seeds).expect("fits, as the total does") as u64
        };
        start..end
    }

    /// The index of the board whose hole `j` holds `cells[j]`; `None` when `cells` is not `m`
    /// holes or holds more than `max_seeds` seeds.
    pub fn index(&self, cells: &[u8]) -> Option<u64> {
        if cells.len() != self.ring {
            return None;
        }
        let seeds: usize = cells.iter().map(|&c| c as usize).sum();
        if seeds > self.max_seeds {
            return None;
        }
        let mut bytes = [0u8; 32];
        bytes[..self.ring].copy_from_slice(cells);
        Some(self.index_rotated(&bytes, 0))
    }

    /// The index of the board whose hole `j` holds `bytes[(j + by) % m]`: the board turned by
    /// `by` holes, as a position is turned to put the mover's row first. The board must hold at
    /// most `max_seeds` seeds in its first `m` bytes.
    #[inline(always)]
    pub(crate) fn index_rotated(&self, bytes: &[u8; 32], by: usize) -> u64 {
        let ring = self.ring;
        let mut seeds = 0usize;
        let mut index = 0u64;
        for j in 0..ring {
            let hole = if j + by < ring { j + by } else { j + by - ring };
            seeds += bytes[hole] as usize;
            index += self.terms[seeds * ring + j];
        }
        index
    }

    /// The board of index `index` (below [`PositionIndex::len`]), hole `j` in `cells[j]`;
    /// `None` for an index out of range. `cells` must hold `m` holes.
    pub fn cells(&self, index: u64, cells: &mut [u8]) -> Option<()> {
        if index >= self.len() || cells.len() != self.ring {
            return None;
        }
        let ring = self.ring;
        let last = ring - 1;
        let seeds = (0..=self.max_seeds)
            .rev()
            .find(|&k| self.terms[k * ring + last] <= index)
            .expect("layer 0 starts at 0");
        let mut rest = index - self.terms[seeds * ring + last];
        // Place the bars from the last down: the largest prefix sum whose term still fits.
        let mut above = seeds;
        for j in (0..last).rev() {
            let s = (0..=above)
                .rev()
                .find(|&s| self.terms[s * ring + j] <= rest)
                .expect("C(j, j + 1) = 0 always fits");
            rest -= self.terms[s * ring + j];
            cells[j + 1] = (above - s) as u8;
            above = s;
        }
        cells[0] = above as u8;
        Some(())
    }
}

/// Step `cells` (the `m` holes of a board of `k` seeds) to the board of the next index within
/// its layer; the last board of a layer, all seeds in hole 0, has none and stays.
///
/// In colex order the next set of bar places raises the lowest bar `j` that has room (hole
/// `j + 1` is not empty) and sets every bar below it as low as it goes: holes `0..j` empty, hole
/// `j` takes their seeds and one from hole `j + 1`.
#[inline]
pub(crate) fn next_in_layer(cells: &mut [u8]) {
    let mut below = 0u8;
    for j in 0..cells.len() - 1 {
        if cells[j + 1] > 0 {
            below += cells[j];
            cells[..j].fill(0);
            cells[j] = below + 1;
            cells[j + 1] -= 1;
            return;
        }
        below += cells[j];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_of_small_rings_round_trips_in_order() {
        for ring in [2, 3, 4, 6] {
            let index = PositionIndex::new(ring, 7).unwrap();
            let mut cells = vec![0u8; ring];
            for k in 0..=7 {
                let layer = index.layer(k);
                assert_eq!(
                    u128::from(layer.end - layer.start),
                    layer_len(ring, k).unwrap()
                );
                // The first board of a layer has its seeds in the last hole.
                cells.fill(0);
                cells[ring - 1] = k as u8;
                for i in layer.clone() {
                    assert_eq!(index.index(&cells), Some(i), "{cells:?}");
                    let mut back = vec![0u8; ring];
                    index.cells(i, &mut back).unwrap();
                    assert_eq!(back, cells);
                    next_in_layer(&mut cells);
                }
            }
            assert_eq!(u128::from(index.len()), count(ring, 7).unwrap());
            assert_eq!(index.cells(index.len(), &mut cells), None);
        }
    }

    #[test]
    fn binomials_are_exact() {
        assert_eq!(binomial(32, 12), Some(225_792_840));
        assert_eq!(binomial(5, 7), Some(0));
        assert_eq!(count(12, 20), Some(225_792_840));
        assert_eq!(layer_len(12, 20), Some(84_672_315));
    }
}
