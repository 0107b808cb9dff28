//! The statistics of the workspace, in one place: rates with Wilson intervals, means with normal
//! intervals, histograms, and Bradley-Terry ratings (reported as Elo) fitted by
//! minorisation-maximisation, with bootstrap intervals, or against opponents of known rating.
//! The arena, the trainer's rating of its network and `sowing compare` all draw on these.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval of a rate of `successes` in `n` trials; `(0, 1)` when `n` is 0.
/// A draw may count as half a success.
pub fn wilson(successes: f64, n: f64) -> (f64, f64) {
    wilson_at(Z95, successes, n)
}

/// The Wilson score interval with normal quantile `z`: unlike the normal interval it stays inside
/// [0, 1] and is not empty when every trial went the same way. `(0, 1)` when `n` is 0.
pub fn wilson_at(z: f64, successes: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = successes / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A rate `hits / n` measured over `n` trials (games, positions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Trials in which the event happened; a draw counted as half a win makes this fractional.
    pub hits: f64,
    /// Trials.
    pub n: u64,
}

impl Rate {
    /// `hits` of `n`.
    pub fn new(hits: f64, n: u64) -> Rate {
        Rate { hits, n }
    }

    /// The point estimate; `None` with no trials, since nothing was measured.
    pub fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.hits / self.n as f64)
    }

    /// The 95% Wilson interval; `None` with no trials.
    pub fn wilson(&self) -> Option<(f64, f64)> {
        (self.n > 0).then(|| wilson(self.hits, self.n as f64))
    }
}

/// A running mean of a quantity (plies per game, laps per move), with its spread. Mergeable, so
/// parts measured apart add up to the same figure in any order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Mean {
    /// Values added.
    pub n: u64,
    /// Their sum.
    pub sum: f64,
    /// The sum of their squares.
    pub sum_sq: f64,
}

impl Mean {
    /// Add one value.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// Add the values of `other`.
    pub fn merge(&mut self, other: &Mean) {
        self.n += other.n;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    /// The mean; `None` with no values.
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

/// Counts of a whole-number quantity (game length in plies), by value. Mergeable.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// `counts[v]`: how often `v` was added.
    pub counts: Vec<u64>,
}

impl Histogram {
    /// Count one `value`.
    pub fn add(&mut self, value: usize) {
        if self.counts.len() <= value {
            self.counts.resize(value + 1, 0);
        }
        self.counts[value] += 1;
    }

    /// Add the counts of `other`.
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

/// The Elo rating of a player from its scores against opponents of known rating, `(opponent's
/// Elo, score)` with the score a [`Rate`] over the games (a draw half a point), and the
/// half-width of its interval at normal quantile `z`. Each opponent also gets one virtual draw,
/// so both are finite for any results, a clean sweep included: the virtual draw bounds the
/// likelihood's maximum.
pub fn rate_against(opponents: &[(f64, Rate)], z: f64) -> (f64, f64) {
    // Half a virtual game's points per opponent, so that no score is 0 or 1.
    let regularised = |score: &Rate| {
        let n = score.n as f64 + 1.0;
        ((score.hits + 0.5) / n, n)
    };
    let scale = 400.0 / std::f64::consts::LN_10;
    let information = |rating: f64| {
        opponents
            .iter()
            .map(|(r, score)| {
                let e = expected(rating - r);
                regularised(score).1 * e * (1.0 - e)
            })
            .sum::<f64>()
    };
    let mut rating = opponents
        .iter()
        .map(|(r, score)| r + logistic_elo(regularised(score).0))
        .sum::<f64>()
        / opponents.len().max(1) as f64;
    for _ in 0..500 {
        let grad: f64 = opponents
            .iter()
            .map(|(r, score)| {
                let (s, n) = regularised(score);
                n * (s - expected(rating - r))
            })
            .sum();
        let curv = information(rating);
        if curv <= 0.0 {
            break;
        }
        // Newton's step, capped: far from the maximum the curvature is nearly zero, and an
        // uncapped step overshoots by millions of Elo (it did, after a clean sweep of the
        // baselines, and the learning-curve plot then never finished).
        let step = (grad / curv * scale).clamp(-MAX_NEWTON_STEP, MAX_NEWTON_STEP);
        rating += step;
        if step.abs() < 1e-6 {
            break;
        }
    }
    let info = information(rating);
    let half = if info > 0.0 {
        z * scale / info.sqrt()
    } else {
        f64::INFINITY
    };
    (rating, half)
}

/// The largest change of rating one Newton step of [`rate_against`] may make, in Elo.
const MAX_NEWTON_STEP: f64 = 100.0;

/// The Elo difference at which the stronger side expects `score` (a rate in `(0, 1)`), clamped to
/// stay finite.
fn logistic_elo(score: f64) -> f64 {
    let s = score.clamp(1e-3, 1.0 - 1e-3);
    400.0 * (s / (1.0 - s)).log10()
}

/// The score expected by a player `diff` Elo above its opponent.
fn expected(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
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

    /// The score of `wins`, `draws` and `losses`.
    fn result(wins: u32, draws: u32, losses: u32) -> Rate {
        Rate::new(
            f64::from(wins) + 0.5 * f64::from(draws),
            u64::from(wins + draws + losses),
        )
    }

    /// The real score minus the expected one at `rating`, virtual draws included: zero at the
    /// fitted rating.
    fn score_gap(rating: f64, opponents: &[(f64, Rate)]) -> f64 {
        opponents
            .iter()
            .map(|(r, score)| score.hits + 0.5 - (score.n as f64 + 1.0) * expected(rating - r))
            .sum()
    }

    #[test]
    fn a_clean_sweep_rates_finitely_above_every_opponent() {
        // Baselines as `sowing compare`'s learning runs rate them, 10 games each: uncapped
        // Newton steps sent such ratings to 210,858 and -7,533,242.
        let (random, greedy, mcts) = (result(10, 0, 0), result(10, 0, 0), result(10, 0, 0));
        let opponents = [(0.0, random), (400.0, greedy), (1500.0, mcts)];
        let (rating, half) = rate_against(&opponents, Z95);
        assert!(rating.is_finite() && half.is_finite(), "{rating} ± {half}");
        assert!(rating > 1500.0 && rating < 2500.0, "{rating}");
        assert!(score_gap(rating, &opponents).abs() < 1e-6);
        let even = result(5, 0, 5);
        let opponents = [(0.0, random), (800.0, greedy), (2500.0, even)];
        let (rating, half) = rate_against(&opponents, Z95);
        assert!(rating.is_finite() && half.is_finite(), "{rating} ± {half}");
        assert!(rating > 800.0 && rating < 2500.0, "{rating}");
        assert!(score_gap(rating, &opponents).abs() < 1e-6);

        let (lost, lost_too) = (result(0, 0, 10), result(0, 0, 10));
        let opponents = [(250.0, lost), (900.0, lost_too)];
        let (rating, half) = rate_against(&opponents, Z95);
        assert!(rating.is_finite() && half.is_finite());
        assert!(rating < 250.0 && rating > -1500.0, "{rating}");
        assert!(score_gap(rating, &opponents).abs() < 1e-6);
    }

    #[test]
    fn an_even_match_rates_at_the_opponent_with_a_shrinking_interval() {
        let few = result(5, 2, 5);
        let many = result(50, 20, 50);
        let (rating, half) = rate_against(&[(300.0, few)], Z95);
        assert!((rating - 300.0).abs() < 1e-6);
        let (rating_many, half_many) = rate_against(&[(300.0, many)], Z95);
        assert!((rating_many - 300.0).abs() < 1e-6);
        assert!(half_many < half / 2.0, "{half_many} vs {half}");
        // 3 wins in 4 against a 0-rated player: 3.5 of 5 with the virtual draw, about 147 Elo.
        let won = result(3, 0, 1);
        let (rating, _) = rate_against(&[(0.0, won)], Z95);
        let expected_elo = 400.0 * (3.5f64 / 1.5).log10();
        assert!(
            (rating - expected_elo).abs() < 1e-6,
            "{rating} vs {expected_elo}"
        );
    }

    #[test]
    fn a_round_robin_fit_agrees_with_rating_each_player_against_the_others() {
        // The fit of all players at once is the fixed point of rating each against the rest:
        // the trainer anchors the first at 0 and rates its network against them this way.
        let counts = [
            PairCount {
                a: 0,
                b: 1,
                wins: 3,
                draws: 2,
                losses: 15,
            },
            PairCount {
                a: 0,
                b: 2,
                wins: 1,
                draws: 0,
                losses: 19,
            },
            PairCount {
                a: 1,
                b: 2,
                wins: 7,
                draws: 1,
                losses: 12,
            },
        ];
        let elo = bradley_terry(3, &counts);
        let points = |c: &PairCount| f64::from(c.wins) + 0.5 * f64::from(c.draws);
        let games = |c: &PairCount| u64::from(c.wins + c.draws + c.losses);
        let (one, _) = rate_against(
            &[
                (
                    elo[0],
                    Rate::new(games(&counts[0]) as f64 - points(&counts[0]), 20),
                ),
                (elo[2], Rate::new(points(&counts[2]), games(&counts[2]))),
            ],
            Z95,
        );
        assert!((one - elo[1]).abs() < 1e-6, "{one} vs {}", elo[1]);
    }
}
