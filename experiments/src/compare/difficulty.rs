//! The difficulty score that ranks the variants, and whether neighbours in the ranking are
//! separated.
//!
//! A variant's score is measured on the critical positions of its committed set (those where
//! some legal move gives the exact result away): in each, the share of the fixed agent ladder
//! whose move gives it away; the score is the mean over the critical positions, in points (0:
//! every agent always keeps the result; 100: none ever does). Every agent's budget is counted
//! (depths, simulations), so any machine gives the same score. The agents' moves in one
//! position are measured together, so the interval comes from the spread of the per-position
//! shares (a paired measure: the same ladder on every position), normal, 95%.
//!
//! Two variants' sets hold different positions, drawn independently, so the difference of
//! their scores has the variance of both: neighbours are **separated** when its 95% interval
//! excludes 0, **equal** when the interval lies within ±[`EQUAL_POINTS`], and otherwise not
//! separated yet (with the factor of positions that would separate a difference that large).
//!
//! The learning measurement ranks the variants the same way, by how often the trained network
//! keeps the result on each set ([`Separation::of_rates`]): Newcombe's interval for the
//! difference of two independent rates, from their Wilson intervals.

use serde::Serialize;
use sowing_eval::accuracy::Accuracy;
use sowing_eval::stats::Rate;
use sowing_exact::positions::PositionSet;

/// Two scores are shown equal when the 95% interval of their difference lies within this many
/// points of 0.
pub const EQUAL_POINTS: f64 = 3.0;

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_964;

/// Fewer critical positions than this give no score.
pub const MIN_CRITICAL: u64 = 30;

/// A variant's difficulty score.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Difficulty {
    /// Critical positions among those measured.
    pub critical: u64,
    /// The mean share of the ladder giving the result away, in points.
    pub points: f64,
    /// The standard error of `points`.
    pub standard_error: f64,
    /// The 95% interval of `points`.
    pub lo95: f64,
    pub hi95: f64,
}

impl Difficulty {
    /// The score of the ladder `agents` (one measurement each, of the first `positions`
    /// positions of `set`, moves in position order); `None` with fewer than [`MIN_CRITICAL`]
    /// critical positions or an agent whose moves do not cover them.
    pub fn measure(set: &PositionSet, positions: u64, agents: &[Accuracy]) -> Option<Difficulty> {
        let n = positions as usize;
        if agents.is_empty() || agents.iter().any(|a| a.moves.len() < n) || set.positions.len() < n
        {
            return None;
        }
        let shares: Vec<f64> = set.positions[..n]
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let keeps = p.keeps_result();
                if keeps == p.state.legal_mask() {
                    return None;
                }
                let lost = agents
                    .iter()
                    .filter(|a| keeps >> a.moves[i] & 1 == 0)
                    .count();
                Some(100.0 * lost as f64 / agents.len() as f64)
            })
            .collect();
        Difficulty::of_shares(&shares)
    }

    /// The score of per-position shares (points), if there are enough.
    pub fn of_shares(shares: &[f64]) -> Option<Difficulty> {
        let k = shares.len();
        if (k as u64) < MIN_CRITICAL {
            return None;
        }
        let mean = shares.iter().sum::<f64>() / k as f64;
        let var = shares.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
        let se = (var / k as f64).sqrt();
        Some(Difficulty {
            critical: k as u64,
            points: mean,
            standard_error: se,
            lo95: mean - Z95 * se,
            hi95: mean + Z95 * se,
        })
    }
}

/// What the ranking says of two neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The harder one is harder, at 95%.
    Separated,
    /// Their difference is within ±[`EQUAL_POINTS`] at 95%.
    Equal,
    /// Neither yet.
    NotSeparated,
}

/// A neighbour pair of the ranking, the harder first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Separation {
    pub harder: String,
    pub easier: String,
    /// The harder's score less the easier's, in points, with its 95% interval.
    pub difference: f64,
    pub lo95: f64,
    pub hi95: f64,
    pub verdict: Verdict,
    /// For a pair not yet separated: how many times the positions of both sets would make an
    /// interval as wide as the difference (the difference is the same, the interval narrower).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions_factor: Option<f64>,
}

impl Separation {
    /// The pair `harder`, `easier` with their scores.
    pub fn of(harder: (&str, &Difficulty), easier: (&str, &Difficulty)) -> Separation {
        let (h, e) = (harder.1, easier.1);
        let difference = h.points - e.points;
        let se = (h.standard_error.powi(2) + e.standard_error.powi(2)).sqrt();
        let half = Z95 * se;
        Separation::judged(
            harder.0,
            easier.0,
            (difference, difference - half, difference + half),
        )
    }

    /// The pair `harder`, `easier` by how often a player keeps the result in each, on
    /// independent samples (two variants' sets): the difference is the easier's rate less the
    /// harder's, in points (the harder's moves that give the result away less the easier's), with
    /// Newcombe's hybrid score interval from the two Wilson intervals (his method 10); `None`
    /// when either rate has no trials.
    pub fn of_rates(harder: (&str, Rate), easier: (&str, Rate)) -> Option<Separation> {
        let (h, (h_lo, h_hi)) = (harder.1.value()?, harder.1.wilson()?);
        let (e, (e_lo, e_hi)) = (easier.1.value()?, easier.1.wilson()?);
        let difference = e - h;
        let lo = difference - ((e - e_lo).powi(2) + (h_hi - h).powi(2)).sqrt();
        let hi = difference + ((e_hi - e).powi(2) + (h - h_lo).powi(2)).sqrt();
        Some(Separation::judged(
            harder.0,
            easier.0,
            (100.0 * difference, 100.0 * lo, 100.0 * hi),
        ))
    }

    /// The pair whose difference is `(difference, lo95, hi95)`, in points, with its verdict.
    fn judged(harder: &str, easier: &str, (difference, lo95, hi95): (f64, f64, f64)) -> Separation {
        let verdict = if lo95 > 0.0 {
            Verdict::Separated
        } else if lo95 > -EQUAL_POINTS && hi95 < EQUAL_POINTS {
            Verdict::Equal
        } else {
            Verdict::NotSeparated
        };
        // The interval shrinks as the square root of the positions.
        let positions_factor = (verdict == Verdict::NotSeparated && difference > 0.0)
            .then(|| ((difference - lo95) / difference).powi(2));
        Separation {
            harder: harder.to_string(),
            easier: easier.to_string(),
            difference,
            lo95,
            hi95,
            verdict,
            positions_factor,
        }
    }
}

/// The variants with a score, hardest first (ties by name), and each neighbour pair.
pub fn rank<'a>(
    scores: impl IntoIterator<Item = (&'a str, &'a Difficulty)>,
) -> (Vec<(&'a str, &'a Difficulty)>, Vec<Separation>) {
    let mut ranked: Vec<(&str, &Difficulty)> = scores.into_iter().collect();
    ranked.sort_by(|a, b| b.1.points.total_cmp(&a.1.points).then(a.0.cmp(b.0)));
    let pairs = ranked
        .windows(2)
        .map(|w| Separation::of(w[0], w[1]))
        .collect();
    (ranked, pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(points: &[f64]) -> Difficulty {
        Difficulty::of_shares(points).unwrap()
    }

    #[test]
    fn the_score_is_the_mean_share_with_a_normal_interval() {
        // 40 positions: half where every agent errs, half where none does: mean 50, sd about
        // 50.6, so the standard error is 50.6 / sqrt(40).
        let shares: Vec<f64> = (0..40)
            .map(|i| if i % 2 == 0 { 100.0 } else { 0.0 })
            .collect();
        let d = score(&shares);
        assert_eq!(d.critical, 40);
        assert!((d.points - 50.0).abs() < 1e-9);
        let sd = (40.0 * 2500.0 / 39.0f64).sqrt();
        assert!((d.standard_error - sd / 40f64.sqrt()).abs() < 1e-9);
        assert!((d.hi95 - d.points - Z95 * d.standard_error).abs() < 1e-9);
        assert!(Difficulty::of_shares(&shares[..29]).is_none(), "too few");
    }

    #[test]
    fn neighbours_are_separated_equal_or_not_yet() {
        let ones = |v: f64, n: usize, spread: f64| -> Vec<f64> {
            (0..n)
                .map(|i| v + if i % 2 == 0 { spread } else { -spread })
                .collect()
        };
        let hard = score(&ones(30.0, 400, 20.0));
        let easy = score(&ones(10.0, 400, 20.0));
        let same = score(&ones(10.0, 4000, 6.0));
        let same2 = score(&ones(10.0, 4000, 5.0));
        let vague = score(&ones(12.0, 40, 30.0));
        let (ranked, pairs) = rank([("b", &easy), ("a", &hard)]);
        assert_eq!(ranked[0].0, "a");
        assert_eq!(pairs[0].verdict, Verdict::Separated);
        assert!((pairs[0].difference - 20.0).abs() < 1e-9);
        let (_, pairs) = rank([("x", &same), ("y", &same2)]);
        assert_eq!(pairs[0].verdict, Verdict::Equal, "{:?}", pairs[0]);
        let (_, pairs) = rank([("v", &vague), ("e", &easy)]);
        assert_eq!(pairs[0].verdict, Verdict::NotSeparated, "{:?}", pairs[0]);
        let factor = pairs[0].positions_factor.unwrap();
        assert!(factor > 1.0, "{factor}");
    }

    #[test]
    fn rates_on_independent_sets_separate_by_newcombes_interval() {
        // Newcombe (1998), table II, example (a): 56/70 against 48/80, method 10 gives
        // 0.0524 to 0.3339 for the difference 0.2.
        let s =
            Separation::of_rates(("b", Rate::new(48.0, 80)), ("a", Rate::new(56.0, 70))).unwrap();
        assert!((s.difference - 20.0).abs() < 1e-9, "{s:?}");
        assert!(
            (s.lo95 - 5.24).abs() < 0.01 && (s.hi95 - 33.39).abs() < 0.01,
            "{s:?}"
        );
        assert_eq!(s.verdict, Verdict::Separated);
        // The same rates, 95% on both sets: equal within three points.
        let same = Separation::of_rates(
            ("x", Rate::new(1900.0, 2000)),
            ("y", Rate::new(1900.0, 2000)),
        )
        .unwrap();
        assert_eq!(same.verdict, Verdict::Equal, "{same:?}");
        // 94% against 95% on 200 positions each: not yet.
        let vague =
            Separation::of_rates(("x", Rate::new(188.0, 200)), ("y", Rate::new(190.0, 200)))
                .unwrap();
        assert_eq!(vague.verdict, Verdict::NotSeparated, "{vague:?}");
        assert!(vague.positions_factor.unwrap() > 1.0);
        assert!(Separation::of_rates(("x", Rate::new(0.0, 0)), ("y", Rate::new(1.0, 2))).is_none());
    }
}
