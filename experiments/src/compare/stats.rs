//! The statistics behind every figure of a comparison: rates with Wilson 95% intervals, means
//! with normal 95% intervals, a histogram, and a HyperLogLog sketch for counting distinct
//! positions. Each is mergeable, so units of work computed apart (and cached) add up to the same
//! figure in any order.

use serde::{Deserialize, Serialize};

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A rate `hits / n` measured over `n` trials (games, positions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Trials in which the event happened; a draw counted as half a win makes this fractional.
    pub hits: f64,
    /// Trials.
    pub n: u64,
}

impl Rate {
    pub fn new(hits: f64, n: u64) -> Rate {
        Rate { hits, n }
    }

    /// The point estimate; `None` with no trials, since nothing was measured.
    pub fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.hits / self.n as f64)
    }

    /// The Wilson score interval at 95%: unlike the normal interval it stays inside [0, 1] and
    /// is not empty when every trial went the same way, which is common here (a rules file where
    /// the first player always wins).
    pub fn wilson(&self) -> Option<(f64, f64)> {
        let p = self.value()?;
        let n = self.n as f64;
        let z2 = Z95 * Z95;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        Some(((centre - half).max(0.0), (centre + half).min(1.0)))
    }
}

/// A running mean of a quantity (plies per game, laps per move), with its spread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Mean {
    pub n: u64,
    pub sum: f64,
    pub sum_sq: f64,
}

impl Mean {
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    pub fn merge(&mut self, other: &Mean) {
        self.n += other.n;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    pub fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }

    /// The sample standard deviation; `None` below two samples.
    pub fn sd(&self) -> Option<f64> {
        if self.n < 2 {
            return None;
        }
        let n = self.n as f64;
        let var = (self.sum_sq - self.sum * self.sum / n) / (n - 1.0);
        Some(var.max(0.0).sqrt())
    }

    /// Half the width of the normal 95% interval of the mean; `None` below two samples.
    pub fn half_width(&self) -> Option<f64> {
        Some(Z95 * self.sd()? / (self.n as f64).sqrt())
    }
}

/// Counts of a whole-number quantity (game length in plies), by value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    pub counts: Vec<u64>,
}

impl Histogram {
    pub fn add(&mut self, value: usize) {
        if self.counts.len() <= value {
            self.counts.resize(value + 1, 0);
        }
        self.counts[value] += 1;
    }

    pub fn merge(&mut self, other: &Histogram) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// The smallest value with at least `q` of the mass at or below it.
    pub fn quantile(&self, q: f64) -> Option<usize> {
        let total: u64 = self.counts.iter().sum();
        if total == 0 {
            return None;
        }
        let target = (q * total as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (v, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target {
                return Some(v);
            }
        }
        Some(self.counts.len() - 1)
    }
}

/// Registers of the sketch: 2^12, a standard error of about 1.04 / 64 = 1.6%.
const SKETCH_BITS: u32 = 12;
const SKETCH_REGISTERS: usize = 1 << SKETCH_BITS;

/// A HyperLogLog sketch of a set of 64-bit hashes: the distinct positions reached by thousands
/// of games in 4 KiB, mergeable across units. Small sets (below about 10,000) are counted by the
/// linear-counting correction, which is exact in practice for the tiny sets of a test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sketch {
    #[serde(with = "hex_bytes")]
    registers: Vec<u8>,
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch {
            registers: vec![0; SKETCH_REGISTERS],
        }
    }
}

impl Sketch {
    pub fn insert(&mut self, hash: u64) {
        let index = (hash >> (64 - SKETCH_BITS)) as usize;
        // The rank of the first set bit among the remaining bits, capped at their number + 1.
        let rest = hash << SKETCH_BITS;
        let rank = (rest.leading_zeros() + 1).min(64 - SKETCH_BITS + 1) as u8;
        if self.registers[index] < rank {
            self.registers[index] = rank;
        }
    }

    pub fn merge(&mut self, other: &Sketch) {
        for (a, &b) in self.registers.iter_mut().zip(&other.registers) {
            *a = (*a).max(b);
        }
    }

    /// The estimated number of distinct hashes inserted (Flajolet et al. 2007, with the
    /// linear-counting correction for small sets).
    pub fn estimate(&self) -> f64 {
        let m = SKETCH_REGISTERS as f64;
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let sum: f64 = self.registers.iter().map(|&r| 2f64.powi(-(r as i32))).sum();
        let raw = alpha * m * m / sum;
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        if raw <= 2.5 * m && zeros > 0 {
            m * (m / zeros as f64).ln()
        } else {
            raw
        }
    }

    /// The relative standard error of [`Sketch::estimate`] for large sets.
    pub fn relative_error() -> f64 {
        1.04 / (SKETCH_REGISTERS as f64).sqrt()
    }
}

/// Registers as one hex string, so a cached unit stays small and readable.
mod hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        let text: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        s.serialize_str(&text)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        if text.len() % 2 != 0 {
            return Err(D::Error::custom("hex string of odd length"));
        }
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(D::Error::custom))
            .collect()
    }
}

/// A 64-bit mix of a value (the finaliser of SplitMix64): a well-spread hash for the sketch and
/// for deriving seeds, fixed forever, unlike `std`'s hasher.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A stable hash of a byte string, built on [`mix64`].
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = 0x51_7cc1_b727_220a_u64 ^ bytes.len() as u64;
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = mix64(h ^ u64::from_le_bytes(word));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_hand_computation() {
        // 8 of 10: centre (0.8 + 1.92/10) / 1.384 = 0.7167, half 0.2202 (to 4 places).
        let (lo, hi) = Rate::new(8.0, 10).wilson().unwrap();
        assert!((lo - 0.4902).abs() < 1e-3, "{lo}");
        assert!((hi - 0.9433).abs() < 1e-3, "{hi}");
    }

    #[test]
    fn wilson_interval_of_all_wins_is_not_a_point() {
        let (lo, hi) = Rate::new(20.0, 20).wilson().unwrap();
        assert!((hi - 1.0).abs() < 1e-12);
        // 20 / (20 + z^2) = 0.8389: the lower bound of a perfect record over 20 games.
        assert!((lo - 0.8389).abs() < 1e-3, "{lo}");
        assert_eq!(Rate::new(0.0, 0).wilson(), None);
        assert_eq!(Rate::default().value(), None);
    }

    #[test]
    fn mean_sd_and_interval() {
        let mut m = Mean::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            m.add(x);
        }
        assert_eq!(m.value(), Some(5.0));
        // Sample variance 32 / 7.
        assert!((m.sd().unwrap() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let mut one = Mean::default();
        one.add(3.0);
        assert_eq!(one.half_width(), None);
        let mut merged = Mean::default();
        merged.merge(&m);
        merged.merge(&one);
        assert_eq!(merged.n, 9);
        assert_eq!(merged.value(), Some(43.0 / 9.0));
    }

    #[test]
    fn histogram_merges_and_gives_quantiles() {
        let mut a = Histogram::default();
        a.add(3);
        a.add(3);
        let mut b = Histogram::default();
        b.add(10);
        a.merge(&b);
        assert_eq!(a.counts[3], 2);
        assert_eq!(a.counts[10], 1);
        assert_eq!(a.quantile(0.5), Some(3));
        assert_eq!(a.quantile(1.0), Some(10));
        assert_eq!(Histogram::default().quantile(0.5), None);
    }

    #[test]
    fn sketch_counts_small_sets_exactly_and_large_ones_closely() {
        let mut s = Sketch::default();
        for v in [1u64, 2, 3, 2, 1] {
            s.insert(mix64(v));
        }
        assert_eq!(s.estimate().round(), 3.0);
        let mut big = Sketch::default();
        let mut half = Sketch::default();
        for v in 0..200_000u64 {
            big.insert(mix64(v));
            if v % 2 == 0 {
                half.insert(mix64(v));
            }
        }
        let e = big.estimate();
        assert!(
            (e / 200_000.0 - 1.0).abs() < 4.0 * Sketch::relative_error(),
            "{e}"
        );
        let mut merged = Sketch::default();
        merged.merge(&half);
        merged.merge(&big);
        assert_eq!(merged, big);
        let json = serde_json::to_string(&big).unwrap();
        assert_eq!(serde_json::from_str::<Sketch>(&json).unwrap(), big);
    }
}
