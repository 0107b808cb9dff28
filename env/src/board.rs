//! The board: up to 32 holes of at most 255 seeds, packed eight to a `u64`.
//!
//! Sowing a lap adds one seed to a run of consecutive holes and, when the lap goes round, the
//! same number to every hole. Packed this way, both are a handful of word additions whatever the
//! number of seeds (SWAR: no byte can carry into its neighbour, since the whole board holds at
//! most 255 seeds).

use std::fmt;

/// Bytes `0..k` set to one, for `k` in `0..=32`: a run `a..b` is `PREFIX[b] - PREFIX[a]`.
const PREFIX: [[u64; 4]; 33] = {
    let mut table = [[0u64; 4]; 33];
    let mut k = 0;
    while k <= 32 {
        let mut w = 0;
        while w < 4 {
            let lo = w * 8;
            let set = if k <= lo {
                0
            } else if k >= lo + 8 {
                8
            } else {
                k - lo
            };
            table[k][w] = if set == 8 {
                0x0101_0101_0101_0101
            } else {
                (1u64 << (8 * set)) / 255
            };
            w += 1;
        }
        k += 1;
    }
    table
};

/// Seeds in each hole, holes numbered as in `RULES.md` (`0..2n`, South's row first).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    words: [u64; 4],
}

impl Board {
    /// A board of `holes` holes per row with `seeds` in each.
    pub fn uniform(holes: usize, seeds: u8) -> Board {
        let mut b = Board::default();
        b.add_all(seeds as u64, 2 * holes);
        b
    }

    /// A board from the seeds in holes `0..cells.len()`; the rest are empty.
    ///
    /// # Panics
    /// If more than 32 holes are given.
    pub fn from_cells(cells: &[u8]) -> Board {
        assert!(cells.len() <= 32, "a board has at most 32 holes");
        let mut b = Board::default();
        for (i, &c) in cells.iter().enumerate() {
            b.set(i, c);
        }
        b
    }

    /// Seeds in hole `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> u8 {
        (self.words[i >> 3] >> ((i & 7) * 8)) as u8
    }

    /// Put `v` seeds in hole `i`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, v: u8) {
        let shift = (i & 7) * 8;
        let w = &mut self.words[i >> 3];
        *w = (*w & !(0xFF << shift)) | ((v as u64) << shift);
    }

    /// Add `q` seeds to every hole `0..len`.
    #[inline(always)]
    pub(crate) fn add_all(&mut self, q: u64, len: usize) {
        for (w, one) in self.words.iter_mut().zip(&PREFIX[len]) {
            *w += one * q;
        }
    }

    /// The packed words: hole `i` is byte `i % 8` (from the low end) of word `i / 8`.
    #[inline(always)]
    pub(crate) fn words(&self) -> [u64; 4] {
        self.words
    }

    /// Replace the packed words (as from [`Board::words`]).
    #[inline(always)]
    pub(crate) fn set_words(&mut self, words: [u64; 4]) {
        self.words = words;
    }

    /// Seeds in every hole `0..32`, in one go (cheaper than 32 calls of [`Board::get`]).
    #[inline]
    pub fn bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, w) in out.chunks_exact_mut(8).zip(self.words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Seeds in holes `a..b`.
    pub fn sum(&self, a: usize, b: usize) -> u32 {
        let (hi, lo) = (&PREFIX[b], &PREFIX[a]);
        let mut total = 0u32;
        for w in 0..4 {
            let bytes = self.words[w] & ((hi[w] - lo[w]) * 0xFF);
            // Sum the eight bytes of a word with one multiplication; at most 255 seeds in all.
            total += (bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32;
        }
        total
    }

    /// Whether holes `a..b` are all empty.
    #[inline]
    pub fn is_empty(&self, a: usize, b: usize) -> bool {
        let (hi, lo) = (&PREFIX[b], &PREFIX[a]);
        (0..4).all(|w| self.words[w] & ((hi[w] - lo[w]) * 0xFF) == 0)
    }

    /// Bit `i - a` set for every hole `i` of `a..b` (at most 16 holes) that holds seeds.
    #[inline(always)]
    pub(crate) fn nonempty(&self, a: usize, b: usize) -> u16 {
        const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
        let mut all = 0u32;
        for (k, &x) in self.words.iter().enumerate() {
            // The top bit of each byte: set when the byte is not zero (no carry between bytes).
            let top = (x | ((x & LOW7) + LOW7)) & !LOW7;
            // Gather the eight top bits into one byte.
            let bits = ((top >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
            all |= bits << (8 * k);
        }
        ((all >> a) & ((1u32 << (b - a)) - 1)) as u16
    }

    /// Empty every hole `a..b`.
    pub fn clear(&mut self, a: usize, b: usize) {
        let (hi, lo) = (&PREFIX[b], &PREFIX[a]);
        for w in 0..4 {
            self.words[w] &= !((hi[w] - lo[w]) * 0xFF);
        }
    }

    /// The seeds of holes `0..len`.
    pub fn cells(&self, len: usize) -> Vec<u8> {
        (0..len).map(|i| self.get(i)).collect()
    }

    /// The board turned by `by` holes within a ring of `len`: hole `(i + by) % len` becomes `i`.
    pub fn rotated(&self, by: usize, len: usize) -> Board {
        let mut b = Board::default();
        for i in 0..len {
            b.set(i, self.get((i + by) % len));
        }
        b
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = (0..32)
            .rev()
            .find(|&i| self.get(i) != 0)
            .map_or(0, |i| i + 1);
        f.debug_list()
            .entries((0..last).map(|i| self.get(i)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonempty_bits_match_the_holes() {
        // Every hole count that matters: empty, one, a top-bit byte, the most a hole can hold.
        let values = [0u8, 1, 2, 127, 128, 200, 255];
        let mut seed = 7u64;
        for _ in 0..2000 {
            let mut cells = [0u8; 32];
            for c in cells.iter_mut() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *c = values[(seed >> 33) as usize % values.len()];
            }
            let board = Board::from_cells(&cells);
            for a in [0, 3, 8, 10, 16] {
                for len in 1..=16 {
                    if a + len > 32 {
                        continue;
                    }
                    let expected = (0..len)
                        .filter(|&i| cells[a + i] != 0)
                        .fold(0u16, |m, i| m | 1 << i);
                    assert_eq!(
                        board.nonempty(a, a + len),
                        expected,
                        "{cells:?} {a}..{}",
                        a + len
                    );
                }
            }
        }
    }
}
