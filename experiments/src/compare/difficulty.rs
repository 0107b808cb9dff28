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
//! Sets reach different phases (a set of the larger boards holds endgames only, where tables
//! and search reach), and the ladder errs more as more seeds are on the board, so the scores of
//! two sets rank their phases as much as their games. The **phase-matched** score
//! ([`phase_matched`]) compares like with like: a position's phase is the tenth of the start's
//! seeds on its board ([`phase_of`]); only the phases in which every ranked variant has
//! [`MIN_PHASE_CRITICAL`] critical positions count, and each variant's mean share in each of
//! them is weighted by the same weight for every variant (the phase's share of all their
//! critical positions in those phases): direct standardisation, so a difference of two scores
//! is a difference of the games in the same phases. Its variance is the sum over the phases of
//! the weight squared times the phase's variance of the mean.
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

/// Phases of the game for the phase-matched score: phase `k` holds the positions with `k` to
/// `k + 1` tenths of the start's seeds on the board (the last takes the start itself).
pub const PHASES: usize = 10;

/// A phase counts in the phase-matched score only when every ranked variant has at least this
/// many critical positions in it: fewer make its mean too loose to weigh.
pub const MIN_PHASE_CRITICAL: usize = 20;

/// The phase of a position with `seeds` on the board, of `start` at the start.
pub fn phase_of(seeds: u32, start: u32) -> usize {
    (PHASES * seeds as usize / start.max(1) as usize).min(PHASES - 1)
}

/// One critical position: its phase and the share of the ladder that gives its result away, in
/// points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CriticalShare {
    pub phase: usize,
    pub points: f64,
}

/// The share of the ladder `agents` (one measurement each, of the first `positions` positions
/// of `set`, moves in position order) that gives the result away in each critical position, in
/// position order; `None` when an agent's moves do not cover the positions.
pub fn critical_shares(
    set: &PositionSet,
    positions: u64,
    agents: &[Accuracy],
) -> Option<Vec<CriticalShare>> {
    let n = positions as usize;
    if agents.is_empty() || agents.iter().any(|a| a.moves.len() < n) || set.positions.len() < n {
        return None;
    }
    let start = set.rules().total_seeds() as u32;
    let shares = set.positions[..n]
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
            Some(CriticalShare {
                phase: phase_of(p.seeds(), start),
                points: 100.0 * lost as f64 / agents.len() as f64,
            })
        })
        .collect();
    Some(shares)
}

impl Difficulty {
    /// The score of critical positions' shares, if there are at least [`MIN_CRITICAL`].
    pub fn of_critical(shares: &[CriticalShare]) -> Option<Difficulty> {
        let points: Vec<f64> = shares.iter().map(|s| s.points).collect();
        Difficulty::of_shares(&points)
    }

    /// The score of per-position shares (points), if there are enough.
    pub fn of_shares(shares: &[f64]) -> Option<Difficulty> {
        let k = shares.len();
        if (k as u64) < MIN_CRITICAL {
            return None;
        }
        let (mean, var) = mean_and_variance(shares);
        let se = (var / k as f64).sqrt();
        Some(Difficulty::with_error(k as u64, mean, se))
    }

    fn with_error(critical: u64, points: f64, standard_error: f64) -> Difficulty {
        Difficulty {
            critical,
            points,
            standard_error,
            lo95: points - Z95 * standard_error,
            hi95: points + Z95 * standard_error,
        }
    }
}

/// The mean of `xs` and their sample variance (0 for a single value).
fn mean_and_variance(xs: &[f64]) -> (f64, f64) {
    let k = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / k;
    let var = if xs.len() > 1 {
        xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0)
    } else {
        0.0
    };
    (mean, var)
}

/// A phase of the phase-matched score and its weight.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PhaseWeight {
    /// Seeds on the board, in percent of the start's: `low_percent` up to, not including,
    /// `high_percent`.
    pub low_percent: u32,
    pub high_percent: u32,
    /// Its share of the score, the same for every variant.
    pub weight: f64,
    /// The critical positions of all the ranked variants in it.
    pub critical: u64,
}

/// Variants scored on the phases they share.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseMatched<'a> {
    /// The phases every variant has [`MIN_PHASE_CRITICAL`] critical positions in, fewest
    /// seeds first, with their common weights.
    pub phases: Vec<PhaseWeight>,
    /// Each variant's standardised score over them, in the order given.
    pub scores: Vec<(&'a str, Difficulty)>,
}

/// The phase-matched scores of `variants` (each with its critical positions' shares); `None`
/// when fewer than two variants are given or no phase qualifies.
pub fn phase_matched<'a>(variants: &[(&'a str, &[CriticalShare])]) -> Option<PhaseMatched<'a>> {
    if variants.len() < 2 {
        return None;
    }
    // by_phase[v][k]: variant v's shares in phase k.
    let by_phase: Vec<Vec<Vec<f64>>> = variants
        .iter()
        .map(|(_, shares)| {
            let mut phases = vec![Vec::new(); PHASES];
            for s in *shares {
                phases[s.phase].push(s.points);
            }
            phases
        })
        .collect();
    let kept: Vec<usize> = (0..PHASES)
        .filter(|&k| by_phase.iter().all(|p| p[k].len() >= MIN_PHASE_CRITICAL))
        .collect();
    if kept.is_empty() {
        return None;
    }
    let counts: Vec<u64> = kept
        .iter()
        .map(|&k| by_phase.iter().map(|p| p[k].len() as u64).sum())
        .collect();
    let all: u64 = counts.iter().sum();
    let weights: Vec<PhaseWeight> = kept
        .iter()
        .zip(&counts)
        .map(|(&k, &n)| PhaseWeight {
            low_percent: (100 * k / PHASES) as u32,
            high_percent: (100 * (k + 1) / PHASES) as u32,
            weight: n as f64 / all as f64,
            critical: n,
        })
        .collect();
    let scores = variants
        .iter()
        .zip(&by_phase)
        .map(|((name, _), phases)| {
            let (mut points, mut variance, mut critical) = (0.0, 0.0, 0);
            for (&k, w) in kept.iter().zip(&weights) {
                let xs = &phases[k];
                let (mean, var) = mean_and_variance(xs);
                points += w.weight * mean;
                variance += w.weight.powi(2) * var / xs.len() as f64;
                critical += xs.len() as u64;
            }
            (
                *name,
                Difficulty::with_error(critical, points, variance.sqrt()),
            )
        })
        .collect();
    Some(PhaseMatched {
        phases: weights,
        scores,
    })
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

    /// `n` critical positions in `phase`, half at `v - spread`, half at `v + spread`.
    fn in_phase(phase: usize, v: f64, n: usize, spread: f64) -> Vec<CriticalShare> {
        (0..n)
            .map(|i| CriticalShare {
                phase,
                points: v + if i % 2 == 0 { spread } else { -spread },
            })
            .collect()
    }

    #[test]
    fn phases_are_tenths_of_the_starts_seeds() {
        assert_eq!(phase_of(0, 64), 0);
        assert_eq!(phase_of(6, 64), 0);
        assert_eq!(phase_of(7, 64), 1);
        assert_eq!(phase_of(32, 64), 5);
        assert_eq!(phase_of(63, 64), 9);
        assert_eq!(phase_of(64, 64), 9, "the start is in the last phase");
        assert_eq!(phase_of(48, 96), 5);
    }

    #[test]
    fn the_same_game_in_other_phases_scores_alike_once_the_phases_are_matched() {
        // Both games: 10 points in phase 1, 40 in phase 4. One set holds mostly phase 1, the
        // other mostly phase 4: their plain scores are far apart, their matched ones equal.
        let early: Vec<CriticalShare> =
            [in_phase(1, 10.0, 2000, 5.0), in_phase(4, 40.0, 400, 5.0)].concat();
        let late: Vec<CriticalShare> =
            [in_phase(1, 10.0, 400, 5.0), in_phase(4, 40.0, 2000, 5.0)].concat();
        let (plain_e, plain_l) = (
            Difficulty::of_critical(&early).unwrap(),
            Difficulty::of_critical(&late).unwrap(),
        );
        let (_, plain) = rank([("early", &plain_e), ("late", &plain_l)]);
        assert_eq!(plain[0].verdict, Verdict::Separated, "{plain:?}");

        let PhaseMatched { phases, scores } =
            phase_matched(&[("early", &early), ("late", &late)]).unwrap();
        assert_eq!(phases.len(), 2);
        assert_eq!((phases[0].low_percent, phases[0].high_percent), (10, 20));
        assert_eq!((phases[1].low_percent, phases[1].high_percent), (40, 50));
        assert!(
            (phases[0].weight - 0.5).abs() < 1e-12,
            "2,400 of 4,800 in each"
        );
        assert_eq!(phases[0].critical, 2400);
        for (_, d) in &scores {
            assert!((d.points - 25.0).abs() < 1e-9, "{d:?}");
            assert_eq!(d.critical, 2400);
        }
        let (_, matched) = rank(scores.iter().map(|(v, d)| (*v, d)));
        assert_eq!(matched[0].verdict, Verdict::Equal, "{matched:?}");
    }

    #[test]
    fn a_phase_counts_only_where_every_set_has_enough_critical_positions() {
        let a: Vec<CriticalShare> = [
            in_phase(0, 90.0, MIN_PHASE_CRITICAL - 1, 0.0),
            in_phase(2, 20.0, 100, 10.0),
            in_phase(3, 30.0, 300, 10.0),
        ]
        .concat();
        let b: Vec<CriticalShare> = [
            in_phase(0, 0.0, 500, 0.0),
            in_phase(2, 30.0, 300, 10.0),
            in_phase(3, 50.0, 100, 10.0),
            in_phase(5, 70.0, 500, 10.0),
        ]
        .concat();
        let PhaseMatched { phases, scores } = phase_matched(&[("a", &a), ("b", &b)]).unwrap();
        let kept: Vec<u32> = phases.iter().map(|p| p.low_percent).collect();
        assert_eq!(
            kept,
            [20, 30],
            "phase 0 is too thin in a, phase 5 absent from a"
        );
        // Each phase holds 400 of the 800 critical positions: equal weights.
        assert!(phases.iter().all(|p| (p.weight - 0.5).abs() < 1e-12));
        let (a_score, b_score) = (&scores[0].1, &scores[1].1);
        assert!((a_score.points - 25.0).abs() < 1e-9, "{a_score:?}");
        assert!((b_score.points - 40.0).abs() < 1e-9, "{b_score:?}");
        // The variance of a weighted sum of independent phase means.
        let var = |n: f64| 100.0 * n / (n - 1.0) / n;
        let expected = (0.25 * var(100.0) + 0.25 * var(300.0)).sqrt();
        assert!(
            (a_score.standard_error - expected).abs() < 1e-9,
            "{a_score:?}"
        );
        assert_eq!(a_score.critical, 400);
        // One variant, or none in common: nothing to match.
        assert!(phase_matched(&[("a", &a)]).is_none());
        let c = in_phase(7, 10.0, 100, 1.0);
        assert!(phase_matched(&[("a", &a), ("c", &c)]).is_none());
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
