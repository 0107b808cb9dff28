//! The statistics of the arena: Wilson intervals for a rate, and Bradley-Terry ratings (reported
//! as Elo) fitted by minorisation-maximisation, with bootstrap intervals.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval of a rate of `successes` in `n` trials; `(0, 1)` when `n` is 0.
/// A draw may count as half a success.
pub fn wilson(successes: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = successes / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The games between two players: `a` won `wins`, drew `draws`, lost `losses`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairCount {
    /// Index of the first player.
    pub a: usize,
    /// Index of the second player.
    pub b: usize,
    /// Games the first player won.
    pub wins: u32,
    /// Games drawn (truncated games included).
    pub draws: u32,
    /// Games the first player lost.
    pub losses: u32,
}

/// A rating with its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Elo, the players' mean at 0.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// Bradley-Terry strengths of `players` players from their games, as Elo (`400 log10` of the
/// strength) with the mean at 0. A draw counts half a win to each side. Every pairing also gets
/// one virtual draw, a weak prior that keeps the ratings finite when one player wins every game
/// (it moves a rating by a few Elo at 200 games).
pub fn bradley_terry(players: usize, counts: &[PairCount]) -> Vec<f64> {
    let mut score = vec![0.0f64; players];
    let mut pairs = Vec::with_capacity(counts.len());
    for c in counts {
        let n = (c.wins + c.draws + c.losses) as f64 + 1.0;
        let s = c.wins as f64 + 0.5 * c.draws as f64 + 0.5;
        score[c.a] += s;
        score[c.b] += n - s;
        pairs.push((c.a, c.b, n));
    }
    let mut strength = vec![1.0f64; players];
    for _ in 0..10_000 {
        let mut denom = vec![0.0f64; players];
        for &(a, b, n) in &pairs {
            let d = n / (strength[a] + strength[b]);
            denom[a] += d;
            denom[b] += d;
        }
        let mut next: Vec<f64> = (0..players)
            .map(|i| {
                if denom[i] > 0.0 {
                    score[i] / denom[i]
                } else {
                    strength[i]
                }
            })
            .collect();
        // Fix the scale: geometric mean 1, i.e. mean Elo 0.
        let log_mean = next.iter().map(|s| s.ln()).sum::<f64>() / players as f64;
        for s in &mut next {
            *s /= log_mean.exp();
        }
        let change = next
            .iter()
            .zip(&strength)
            .map(|(x, y)| (x.ln() - y.ln()).abs())
            .fold(0.0, f64::max);
        strength = next;
        if change < 1e-10 {
            break;
        }
    }
    strength.iter().map(|s| 400.0 * s.log10()).collect()
}

/// Bradley-Terry Elo with 95% intervals from `replicates` bootstrap resamples: each pairing's
/// games are drawn again with replacement, the ratings fitted again, and the 2.5% and 97.5%
/// quantiles kept. Reproducible by `seed`.
pub fn ratings(players: usize, counts: &[PairCount], replicates: usize, seed: u64) -> Vec<Rating> {
    let elo = bradley_terry(players, counts);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(replicates); players];
    let mut resampled = counts.to_vec();
    for _ in 0..replicates {
        for (c, r) in counts.iter().zip(resampled.iter_mut()) {
            let n = c.wins + c.draws + c.losses;
            let (mut w, mut d) = (0, 0);
            for _ in 0..n {
                let pick = rng.random_range(0..n);
                if pick < c.wins {
                    w += 1;
                } else if pick < c.wins + c.draws {
                    d += 1;
                }
            }
            *r = PairCount {
                wins: w,
                draws: d,
                losses: n - w - d,
                ..*c
            };
        }
        for (i, e) in bradley_terry(players, &resampled).into_iter().enumerate() {
            samples[i].push(e);
        }
    }
    elo.iter()
        .zip(samples.iter_mut())
        .map(|(&elo, s)| {
            s.sort_by(f64::total_cmp);
            let q = |p: f64| {
                if s.is_empty() {
                    elo
                } else {
                    s[((s.len() - 1) as f64 * p).round() as usize]
                }
            };
            Rating {
                elo,
                low: q(0.025),
                high: q(0.975),
            }
        })
        .collect()
}
