//! The raw CSV files beside the report, one typed row per line, serialised from the figures by
//! the `csv` crate: `shape.csv`, `lengths.csv`, `balance.csv`, `matches.csv`, `accuracy.csv`,
//! `learning.csv`.
//! Every rate comes with its count and Wilson interval, whatever the count.

use crate::compare::figures::{AccuracyFigures, Chain, Figures, KeptFigures};
use serde::{Serialize, Serializer};
use sowing_eval::stats::Rate;
use std::path::Path;

/// A number written as Rust writes it (`33`, `0.5`, `0.0000001`): the form these files have
/// always had, where the `csv` crate would write `33.0` and `1e-7`. Empty when absent.
#[derive(Clone, Copy, Debug, Default)]
struct Number(Option<f64>);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(v) => s.collect_str(&v),
            None => s.serialize_none(),
        }
    }
}

/// A rate's columns: trials, value, and the ends of its Wilson interval.
fn rate_columns(r: Rate) -> (u64, Number, Number, Number) {
    let (lo, hi) = r.wilson().unzip();
    (r.n, Number(r.value()), Number(lo), Number(hi))
}

#[derive(Default, Serialize)]
struct ShapeRow<'a> {
    variant: &'a str,
    games: u64,
    plies_mean: Number,
    plies_sd: Number,
    branching_mean: Number,
    laps_mean: Number,
    sown_mean: Number,
    endless_positions_n: u64,
    endless_positions_rate: Number,
    endless_positions_lo95: Number,
    endless_positions_hi95: Number,
    truncated_n: u64,
    truncated_rate: Number,
    truncated_lo95: Number,
    truncated_hi95: Number,
    log10_game_tree: Number,
    log10_paths_mean: Number,
    distinct_positions: Number,
}

#[derive(Default, Serialize)]
struct LengthRow<'a> {
    variant: &'a str,
    plies: usize,
    games: u64,
}

#[derive(Default, Serialize)]
struct BalanceRow<'a> {
    variant: &'a str,
    agent: &'a str,
    games: u64,
    south_wins: u64,
    north_wins: u64,
    draws: u64,
    truncated: u64,
    first_player_n: u64,
    first_player_rate: Number,
    first_player_lo95: Number,
    first_player_hi95: Number,
}

#[derive(Default, Serialize)]
struct MatchRow<'a> {
    variant: &'a str,
    family: &'a str,
    stronger: &'a str,
    weaker: &'a str,
    games: u64,
    wins: u64,
    draws: u64,
    truncated: u64,
    losses: u64,
    score_n: u64,
    score: Number,
    score_lo95: Number,
    score_hi95: Number,
}

#[derive(Default, Serialize)]
struct AccuracyRow<'a> {
    variant: &'a str,
    agent: &'a str,
    /// `all`, or the seeds on the board of a phase band, e.g. `8-15`.
    phase: String,
    result_n: u64,
    result: Number,
    result_lo95: Number,
    result_hi95: Number,
    critical_n: u64,
    critical: Number,
    critical_lo95: Number,
    critical_hi95: Number,
    margin_n: u64,
    margin: Number,
    margin_lo95: Number,
    margin_hi95: Number,
}

impl<'a> AccuracyRow<'a> {
    fn new(variant: &'a str, agent: &'a str, phase: String, k: &KeptFigures) -> AccuracyRow<'a> {
        let (result_n, result, result_lo95, result_hi95) = rate_columns(k.keeps_result);
        let (critical_n, critical, critical_lo95, critical_hi95) =
            rate_columns(k.keeps_result_critical);
        let (margin_n, margin, margin_lo95, margin_hi95) = rate_columns(k.keeps_margin);
        AccuracyRow {
            variant,
            agent,
            phase,
            result_n,
            result,
            result_lo95,
            result_hi95,
            critical_n,
            critical,
            critical_lo95,
            critical_hi95,
            margin_n,
            margin,
            margin_lo95,
            margin_hi95,
        }
    }
}

/// The network's accuracy after one iteration of a learning run: with its search, then its
/// policy alone.
#[derive(Default, Serialize)]
struct LearningRow<'a> {
    variant: &'a str,
    iteration: u64,
    result_n: u64,
    result: Number,
    result_lo95: Number,
    result_hi95: Number,
    critical_n: u64,
    critical: Number,
    critical_lo95: Number,
    critical_hi95: Number,
    margin_n: u64,
    margin: Number,
    margin_lo95: Number,
    margin_hi95: Number,
    policy_result_n: u64,
    policy_result: Number,
    policy_result_lo95: Number,
    policy_result_hi95: Number,
    policy_critical_n: u64,
    policy_critical: Number,
    policy_critical_lo95: Number,
    policy_critical_hi95: Number,
    policy_margin_n: u64,
    policy_margin: Number,
    policy_margin_lo95: Number,
    policy_margin_hi95: Number,
}

impl<'a> LearningRow<'a> {
    fn new(
        variant: &'a str,
        iteration: u64,
        search: &KeptFigures,
        policy: &KeptFigures,
    ) -> LearningRow<'a> {
        let (result_n, result, result_lo95, result_hi95) = rate_columns(search.keeps_result);
        let (critical_n, critical, critical_lo95, critical_hi95) =
            rate_columns(search.keeps_result_critical);
        let (margin_n, margin, margin_lo95, margin_hi95) = rate_columns(search.keeps_margin);
        let (policy_result_n, policy_result, policy_result_lo95, policy_result_hi95) =
            rate_columns(policy.keeps_result);
        let (policy_critical_n, policy_critical, policy_critical_lo95, policy_critical_hi95) =
            rate_columns(policy.keeps_result_critical);
        let (policy_margin_n, policy_margin, policy_margin_lo95, policy_margin_hi95) =
            rate_columns(policy.keeps_margin);
        LearningRow {
            variant,
            iteration,
            result_n,
            result,
            result_lo95,
            result_hi95,
            critical_n,
            critical,
            critical_lo95,
            critical_hi95,
            margin_n,
            margin,
            margin_lo95,
            margin_hi95,
            policy_result_n,
            policy_result,
            policy_result_lo95,
            policy_result_hi95,
            policy_critical_n,
            policy_critical,
            policy_critical_lo95,
            policy_critical_hi95,
            policy_margin_n,
            policy_margin,
            policy_margin_lo95,
            policy_margin_hi95,
        }
    }
}

/// Write the raw CSV files into `dir`.
pub fn write(dir: &Path, figures: &Figures) -> Result<(), String> {
    let (mut shape, mut lengths, mut balance, mut matches, mut learning) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut accuracy = Vec::new();
    for d in &figures.variants {
        let s = &d.shape;
        let variant = d.variant.as_str();
        let (endless_n, endless_rate, endless_lo, endless_hi) = rate_columns(s.endless_positions);
        let (truncated_n, truncated_rate, truncated_lo, truncated_hi) = rate_columns(s.truncated);
        shape.push(ShapeRow {
            variant,
            games: s.games,
            plies_mean: Number(s.plies.value()),
            plies_sd: Number(s.plies.sd()),
            branching_mean: Number(s.branching.value()),
            laps_mean: Number(s.laps.value()),
            sown_mean: Number(s.sown.value()),
            endless_positions_n: endless_n,
            endless_positions_rate: endless_rate,
            endless_positions_lo95: endless_lo,
            endless_positions_hi95: endless_hi,
            truncated_n,
            truncated_rate,
            truncated_lo95: truncated_lo,
            truncated_hi95: truncated_hi,
            log10_game_tree: Number(s.log10_game_tree),
            log10_paths_mean: Number(s.log_paths.value()),
            distinct_positions: Number(s.distinct_positions),
        });
        lengths.extend(
            s.lengths
                .counts
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(plies, &games)| LengthRow {
                    variant,
                    plies,
                    games,
                }),
        );
        let o = &s.outcomes;
        let (n, rate, lo, hi) = rate_columns(s.first_player_wins);
        balance.push(BalanceRow {
            variant,
            agent: "random",
            games: s.games,
            south_wins: o.south_wins,
            north_wins: o.north_wins,
            draws: o.draws,
            truncated: o.truncated,
            first_player_n: n,
            first_player_rate: rate,
            first_player_lo95: lo,
            first_player_hi95: hi,
        });
        for b in &d.balance {
            let Some(t) = b.tally() else { continue };
            let (n, rate, lo, hi) = rate_columns(t.first_player_wins());
            balance.push(BalanceRow {
                variant,
                agent: b.agent(),
                games: t.games,
                south_wins: t.south_wins,
                north_wins: t.north_wins,
                draws: t.draws,
                truncated: t.truncated,
                first_player_n: n,
                first_player_rate: rate,
                first_player_lo95: lo,
                first_player_hi95: hi,
            });
        }
        for c in &d.chains {
            let Chain::Measured { family, pairs, .. } = c else {
                continue;
            };
            for p in pairs {
                let t = &p.tally;
                let (score_n, score, score_lo95, score_hi95) = rate_columns(p.score);
                matches.push(MatchRow {
                    variant,
                    family,
                    stronger: &p.stronger,
                    weaker: &p.weaker,
                    games: t.games,
                    wins: t.a_wins,
                    draws: t.draws,
                    truncated: t.truncated,
                    losses: t.b_wins,
                    score_n,
                    score,
                    score_lo95,
                    score_hi95,
                });
            }
        }
        if let AccuracyFigures::Measured { agents, .. } = &d.accuracy {
            for a in agents {
                accuracy.push(AccuracyRow::new(variant, &a.agent, "all".into(), &a.kept));
                accuracy.extend(a.phases.iter().map(|p| {
                    let phase = format!("{}-{}", p.seeds_low, p.seeds_high);
                    AccuracyRow::new(variant, &a.agent, phase, &p.kept)
                }));
            }
        }
        learning.extend(
            d.learning
                .curve()
                .iter()
                .map(|p| LearningRow::new(variant, p.iteration, &p.search, &p.policy_alone)),
        );
    }
    write_rows(&dir.join("shape.csv"), &shape)?;
    write_rows(&dir.join("lengths.csv"), &lengths)?;
    write_rows(&dir.join("balance.csv"), &balance)?;
    write_rows(&dir.join("matches.csv"), &matches)?;
    write_rows(&dir.join("accuracy.csv"), &accuracy)?;
    write_rows(&dir.join("learning.csv"), &learning)
}

/// Write `rows` to `path` under a header of their field names, which a file with no rows has
/// too: it is the header of an empty row's serialisation.
fn write_rows<R: Serialize + Default>(path: &Path, rows: &[R]) -> Result<(), String> {
    let failed = |e: csv::Error| format!("cannot write {}: {e}", path.display());
    let mut out = csv::Writer::from_writer(Vec::new());
    if rows.is_empty() {
        out.serialize(R::default()).map_err(failed)?;
    }
    for row in rows {
        out.serialize(row).map_err(failed)?;
    }
    let mut text = out
        .into_inner()
        .map_err(|e| failed(e.into_error().into()))?;
    if rows.is_empty() {
        let header = text.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
        text.truncate(header);
    }
    sowing_exact::output_file::write(path, &text).map_err(|e| e.to_string())
}
