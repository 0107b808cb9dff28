//! `sowing train`: its flags ([`TrainArgs`]: each setting of `sowing_train::TrainConfig` as an
//! optional override of a `--config FILE` or the defaults), then the trainer run until the
//! budget is spent, with progress bars and a one-line summary per
//! iteration, and after every iteration rewrites the run's report: `metrics.csv` (win rates
//! against each baseline with 95% intervals, Elo, accuracy on exact positions) and the learning
//! curves `learning-curve.png` and `.svg` (Elo), `win-rates.png` and `.svg`, and `accuracy.png`
//! and `.svg` (when the run has evaluation positions).

use crate::output::note;
use crate::plot::{self, LineChart, Point, Series};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sowing_agents::az::checkpoint;
use sowing_eval::accuracy::Kept;
use sowing_eval::stats::Rate;
use sowing_train::{IterationMetrics, Progress, TrainConfig, Trainer};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `sowing train`: AlphaZero-style self-play training of a policy-value network.
///
/// Each iteration plays `--games-per-iteration` self-play games (PUCT with
/// `--simulations` per move, Dirichlet noise at the root, moves drawn in proportion to visits for
/// the first `--temperature-plies` plies and the most visited after), adds their positions to the
/// replay buffer, trains on it with AdamW, plays the baselines, measures the network's accuracy
/// on exact positions (`--eval-positions`), and writes a checkpoint to `--out`. The settings come
/// from `--config FILE` (TOML or JSON, the keys named as the flags with `_` for `-`; the run's
/// own is written as `config.json` in its directory) or the defaults, and the flags given
/// override them. `--resume DIR` continues a run exactly; it takes every setting from the
/// checkpoint except the budget (`--iterations`, `--minutes`), `--threads`, `--keep-last` and
/// `--keep-every`, and refuses any other setting given with it that is not the run's own.
///
/// Each flag's documentation is that of its setting (`sowing_train::TrainConfig`); its default,
/// shown by `--help`, is read from `TrainConfig::default()`.
#[derive(Clone, Debug, Default, PartialEq, clap::Args, Serialize)]
pub struct TrainArgs {
    /// Settings to start from (TOML when the name ends in .toml, JSON otherwise), which the
    /// flags given override; default: the defaults shown.
    #[arg(long, value_name = "FILE")]
    #[serde(skip)]
    pub config: Option<PathBuf>,
    /// Continue the run in this directory from its newest checkpoint.
    #[arg(long)]
    #[serde(skip)]
    pub resume: Option<PathBuf>,
    /// Preset to train on (see `sowing variants`); required unless --resume.
    #[arg(long)]
    pub variant: Option<String>,
    /// Stop after this many iterations in all (counting those of a resumed run).
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Stop starting new iterations once this many minutes of this session have passed.
    #[arg(long)]
    pub minutes: Option<f64>,
    /// Seed of every random choice of the run.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run directory for checkpoints, metrics.csv and the learning-curve plots
    /// (default runs/az-VARIANT-sSEED).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Checkpoint folders kept: the newest N (at least 1), besides those --keep-every keeps.
    #[arg(long, value_name = "N")]
    pub keep_last: Option<u32>,
    /// Also keep every M-th iteration's checkpoint; 0 keeps none this way.
    #[arg(long, value_name = "M")]
    pub keep_every: Option<u32>,
    /// Width of the network's hidden layers.
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Residual blocks of the network.
    #[arg(long)]
    pub blocks: Option<usize>,
    /// The network's body: `mlp`, a residual MLP over the whole input, or `ring`, a residual
    /// convolution over the ring of holes.
    #[arg(long, value_parser = ["mlp", "ring"])]
    pub net: Option<String>,
    /// Give the network the one-move look-ahead features: `--lookahead false` for the board alone.
    #[arg(long, action = clap::ArgAction::Set)]
    pub lookahead: Option<bool>,
    /// Lay the network out for boards of up to this many holes per row (mlp only), the board
    /// size an input: one network's weights then serve every board up to it.
    #[arg(long, value_name = "HOLES")]
    pub span: Option<usize>,
    /// Start from the weights of this checkpoint (a run directory or an iter-NNNNNN folder): a
    /// network of the same shape, of this variant or, with a --span covering both, another's.
    #[arg(long, value_name = "CHECKPOINT")]
    pub init_from: Option<PathBuf>,
    /// PUCT simulations per self-play move.
    #[arg(long)]
    pub simulations: Option<u32>,
    /// How self-play searches the root: `puct` (AlphaZero's) or `gumbel` (Gumbel AlphaZero's
    /// sequential halving, the improved policy as the target).
    #[arg(long, value_parser = ["puct", "gumbel"])]
    pub root: Option<String>,
    /// With `--root gumbel`: the most actions sequential halving considers.
    #[arg(long)]
    pub considered: Option<u32>,
    /// Playout-cap randomisation: the chance that a self-play move is searched in full and
    /// becomes a sample.
    #[arg(long, value_name = "P")]
    pub full_fraction: Option<f64>,
    /// With --full-fraction below 1: the simulations of a fast search.
    #[arg(long, value_name = "N")]
    pub fast_simulations: Option<u32>,
    /// Reanalysis: older positions of the replay buffer searched again by the newest network
    /// after each iteration's self-play, per new position, and given the new targets; 0: none.
    #[arg(long, value_name = "R")]
    pub reanalyse: Option<f64>,
    /// Simulations of a reanalysis search (default: --simulations).
    #[arg(long, value_name = "N")]
    pub reanalyse_simulations: Option<u32>,
    /// Self-play games per iteration.
    #[arg(long)]
    pub games_per_iteration: Option<u32>,
    /// Self-play games each worker plays at once (their leaves are evaluated in one batch).
    #[arg(long)]
    pub parallel_games: Option<u32>,
    /// PUCT exploration constant, in self-play and when the network plays.
    #[arg(long)]
    pub c_puct: Option<f32>,
    /// Dirichlet concentration of the root noise.
    #[arg(long)]
    pub dirichlet_alpha: Option<f32>,
    /// Weight of the root noise in the priors.
    #[arg(long)]
    pub noise_fraction: Option<f32>,
    /// Plies at the start of each self-play game whose move is drawn in proportion to visits.
    #[arg(long)]
    pub temperature_plies: Option<u32>,
    /// Each self-play game starts after 0 to this many uniformly random plies.
    #[arg(long)]
    pub opening_plies: Option<u32>,
    /// Value target = (1 - m) * game result + m * root search value, for each position.
    #[arg(long)]
    pub value_mix: Option<f32>,
    /// How much of the game result is its margin: (1 - w) * (+1, 0 or -1) + w * the mover's
    /// captures less the opponent's, over the seeds in play (below 1; not with --reanalyse).
    #[arg(long)]
    pub margin_weight: Option<f32>,
    /// Positions the replay buffer holds.
    #[arg(long)]
    pub replay_capacity: Option<usize>,
    /// Training batch size.
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Times each new position is sampled for training, on average.
    #[arg(long)]
    pub sample_reuse: Option<f64>,
    /// Learn while self-play plays (on the buffer as it was before the iteration's games).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub overlap: Option<bool>,
    /// AdamW learning rate.
    #[arg(long)]
    pub lr: Option<f64>,
    /// AdamW decoupled weight decay.
    #[arg(long)]
    pub weight_decay: Option<f64>,
    /// Baselines played after every iteration, comma-separated agent specs.
    #[arg(long)]
    pub baselines: Option<String>,
    /// Games against each baseline per evaluation (half from each side); 0 skips the games.
    #[arg(long)]
    pub eval_games: Option<u32>,
    /// Evaluate after the first iteration and every this many iterations.
    #[arg(long)]
    pub eval_every: Option<u32>,
    /// Uniformly random plies that open each evaluation game.
    #[arg(long)]
    pub eval_opening: Option<u32>,
    /// PUCT simulations per move of the network in evaluation games and positions.
    #[arg(long)]
    pub eval_simulations: Option<u32>,
    /// Exact positions (a `sowing positions` file) the evaluations measure accuracy on
    /// (default: data/positions/VARIANT.jsonl when it exists).
    #[arg(long, value_name = "FILE")]
    pub eval_positions: Option<PathBuf>,
    /// A tablebase of the variant, used by self-play for exact values and perfect priors.
    #[arg(long, value_name = "FILE")]
    pub tablebase: Option<PathBuf>,
    /// Self-play workers and threads for the baselines' moves (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

impl TrainArgs {
    /// The settings: the config file's (or the defaults), the flags given over them; and the
    /// names of the settings given (by the file or the flags), which a resumed run checks.
    pub fn settings(&self) -> Result<(TrainConfig, Vec<String>), String> {
        let mut settings = match &self.config {
            Some(path) => TrainConfig::read_settings(path).map_err(|e| e.to_string())?,
            None => serde_json::Map::new(),
        };
        let flags = serde_json::to_value(self).expect("flags serialise");
        for (name, value) in flags.as_object().into_iter().flatten() {
            if !value.is_null() {
                settings.insert(name.clone(), value.clone());
            }
        }
        let given = settings.keys().cloned().collect();
        let config = TrainConfig::from_settings(serde_json::Value::Object(settings))
            .map_err(|e| e.to_string())?;
        Ok((config, given))
    }
}

/// `sowing train`'s command with each flag's default, read from `TrainConfig::default()`,
/// shown in its help (the flags are optional overrides, so clap has no default of its own).
pub fn with_defaults(command: clap::Command) -> clap::Command {
    let defaults = serde_json::to_value(TrainConfig::default()).expect("settings serialise");
    let ids: Vec<String> = command
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    ids.into_iter().fold(command, |command, id| {
        let shown = match defaults.get(&id) {
            Some(serde_json::Value::Null) | None => return command,
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        command.mut_arg(id, |arg| {
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            arg.help(format!("{help} [default: {shown}]"))
        })
    })
}

/// Train until the budget is spent; `typed` names the flags given on the command line.
pub fn run(args: TrainArgs, typed: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let (config, mut given) = args.settings()?;
    given.extend(typed.iter().cloned());
    given.sort();
    given.dedup();
    let mut trainer = match &args.resume {
        Some(dir) => {
            let given: Vec<&str> = given.iter().map(String::as_str).collect();
            Trainer::resume_given(dir, &config, &given)?
        }
        None => Trainer::new(config)?,
    };
    let device = if tch::Cuda::is_available() {
        "cuda"
    } else {
        "cpu"
    };
    note!(
        "training {} on {device} into {} (iteration {} so far)",
        trainer.args().variant.as_deref().unwrap_or("?"),
        trainer.dir().display(),
        trainer.iteration()
    );
    let session = Instant::now();
    let first = trainer.iteration();
    let mut last = 0.0;
    while trainer.wants_more(session.elapsed().as_secs_f64(), last) {
        let started = Instant::now();
        let bar = ProgressBar::new(1);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg} ({eta})")
                .expect("progress template is valid")
                .progress_chars("=> "),
        );
        bar.set_prefix(format!("iter {}", trainer.iteration() + 1));
        let metrics = trainer.iterate(&mut |p| {
            let (what, done, total) = match p {
                Progress::RatingBaselines(d, t) => ("rating baselines (pairs)", d, t),
                Progress::SelfPlay(d, t) => ("self-play games", d, t),
                Progress::Reanalysis(d, t) => ("reanalysed positions", d, t),
                Progress::Training(d, t) => ("training steps", d, t),
                Progress::Evaluation(d, t) => ("evaluation games", d, t),
                Progress::Accuracy(d, t) => ("evaluation positions", d, t),
            };
            bar.set_message(what);
            bar.set_length(u64::from(total));
            bar.set_position(u64::from(done));
        })?;
        bar.finish_and_clear();
        last = started.elapsed().as_secs_f64();
        note!("{}", summary(&metrics));
        if let Err(e) = write_report(trainer.dir(), trainer.history(), trainer.baseline_elo()) {
            note!(
                "warning: the report of {} was not written: {e}",
                trainer.dir().display()
            );
        }
    }
    note!("{}", finished(&trainer, first));
    Ok(())
}

/// The last line: how many iterations ran, and the files of the run that are there (the report
/// is not written when it fails, nor the plots before an evaluation).
fn finished(trainer: &Trainer, first: u32) -> String {
    let (dir, now) = (trainer.dir(), trainer.iteration());
    if now == first {
        return format!(
            "done: no iteration to run (the run in {} has {now}, its budget allows no more); \
             nothing written",
            dir.display()
        );
    }
    let files: Vec<String> = [
        checkpoint::iteration_dir(dir, now),
        dir.join("metrics.csv"),
        dir.join("learning-curve.png"),
        dir.join("learning-curve.svg"),
        dir.join("win-rates.png"),
        dir.join("win-rates.svg"),
        dir.join("accuracy.png"),
        dir.join("accuracy.svg"),
    ]
    .into_iter()
    .filter(|p| p.exists())
    .map(|p| p.display().to_string())
    .collect();
    format!(
        "done: {} iterations ({now} in all); written: {}",
        now - first,
        files.join(", ")
    )
}

/// One line per iteration: time, self-play speed, losses, win rates, Elo. An iteration whose
/// games ended after `--minutes` took no training step: it says so rather than show losses of 0.
fn summary(m: &IterationMetrics) -> String {
    let losses = if m.steps == 0 {
        "no training step (time was up)".to_string()
    } else {
        format!("loss p {:.3} v {:.3}", m.policy_loss, m.value_loss)
    };
    let mut line = format!(
        "iter {:>3} {:>6.0}s | {:>4} games {:>6.0} pos/s |",
        m.iteration, m.seconds, m.games, m.positions_per_sec
    );
    if m.reanalysed > 0 {
        let _ = write!(line, " {} reanalysed |", m.reanalysed);
    }
    let _ = write!(line, " {losses} |");
    for r in &m.eval {
        let _ = write!(line, " {} {:.0}%", r.opponent, 100.0 * r.win_rate());
    }
    if let (Some(elo), Some(half)) = (m.elo, m.elo_interval) {
        let _ = write!(line, " | Elo {elo:.0} ± {half:.0}");
    }
    if let Some(kept) = &m.accuracy {
        let percent = |r: Rate| {
            r.value()
                .map_or("-".into(), |v| format!("{:.1}%", 100.0 * v))
        };
        let _ = write!(
            line,
            " | keeps result {} (critical {}), margin {}",
            percent(kept.result),
            percent(kept.critical),
            percent(kept.margin)
        );
        if let Some(policy) = &m.policy_accuracy {
            let _ = write!(
                line,
                "; policy alone: critical {}, margin {}",
                percent(policy.critical),
                percent(policy.margin)
            );
        }
    }
    line
}

/// A rate's columns in metrics.csv: trials, value, and the ends of its Wilson 95% interval;
/// empty when not measured.
fn rate_columns(rate: Option<Rate>) -> String {
    match rate.and_then(|r| Some((r.n, r.value()?, r.wilson()?))) {
        Some((n, v, (lo, hi))) => format!("{n},{v:.4},{lo:.4},{hi:.4}"),
        None => ",,,".to_string(),
    }
}

/// Rewrite `metrics.csv` and the plots from the whole history.
fn write_report(
    dir: &Path,
    history: &[IterationMetrics],
    baseline_elo: &std::collections::BTreeMap<String, f64>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut csv = String::from(
        "iteration,seconds,games,positions,positions_per_sec,south_win_rate,buffer,steps,\
         policy_loss,value_loss,opponent,opponent_elo,wins,draws,losses,win_rate,win_low,\
         win_high,elo,elo_low,elo_high,accuracy_n,accuracy,accuracy_low,accuracy_high,\
         critical_n,critical_accuracy,critical_low,critical_high,margin_n,margin_accuracy,\
         margin_low,margin_high,policy_n,policy_accuracy,policy_low,policy_high,\
         policy_critical_n,policy_critical_accuracy,policy_critical_low,policy_critical_high,\
         policy_margin_n,policy_margin_accuracy,policy_margin_low,policy_margin_high\n",
    );
    for m in history {
        let head = format!(
            "{},{:.1},{},{},{:.1},{:.4},{},{},{:.5},{:.5}",
            m.iteration,
            m.seconds,
            m.games,
            m.positions,
            m.positions_per_sec,
            m.south_win_rate,
            m.buffer,
            m.steps,
            m.policy_loss,
            m.value_loss
        );
        let elo = match (m.elo, m.elo_interval) {
            (Some(e), Some(h)) => format!("{e:.1},{:.1},{:.1}", e - h, e + h),
            _ => ",,".to_string(),
        };
        let (kept, policy) = (m.accuracy.as_ref(), m.policy_accuracy.as_ref());
        let elo = format!(
            "{elo},{},{},{},{},{},{}",
            rate_columns(kept.map(|k| k.result)),
            rate_columns(kept.map(|k| k.critical)),
            rate_columns(kept.map(|k| k.margin)),
            rate_columns(policy.map(|k| k.result)),
            rate_columns(policy.map(|k| k.critical)),
            rate_columns(policy.map(|k| k.margin))
        );
        if m.eval.is_empty() {
            let _ = writeln!(csv, "{head},,,,,,,,,{elo}");
        }
        for r in &m.eval {
            let (lo, hi) = r.win_interval();
            let rating = baseline_elo.get(&r.opponent).copied().unwrap_or(f64::NAN);
            let _ = writeln!(
                csv,
                "{head},{},{rating:.1},{},{},{},{:.4},{lo:.4},{hi:.4},{elo}",
                r.opponent,
                r.wins,
                r.draws,
                r.losses,
                r.win_rate()
            );
        }
    }
    sowing_exact::output_file::write(&dir.join("metrics.csv"), csv.as_bytes())?;
    let minutes = |m: &IterationMetrics| m.seconds / 60.0;
    if history.iter().any(|m| m.accuracy.is_some()) {
        let positions = history
            .iter()
            .find_map(|m| m.accuracy.map(|k| k.result.n))
            .unwrap_or(0);
        let series = |label: &str, policy: bool, rate: fn(&Kept) -> Rate| Series {
            label: label.to_string(),
            points: history
                .iter()
                .filter_map(|m| {
                    let kept = if policy {
                        m.policy_accuracy.as_ref()
                    } else {
                        m.accuracy.as_ref()
                    };
                    let r = rate(kept?);
                    Some(Point {
                        x: minutes(m),
                        y: r.value()?,
                        interval: r.wilson(),
                    })
                })
                .collect(),
        };
        let chart = LineChart {
            title: format!("Accuracy of the network on {positions} exact positions"),
            x_label: "training time (minutes)".to_string(),
            y_label: "share of positions (95% interval)".to_string(),
            y_range: None,
            series: vec![
                series("keeps the result", false, |k| k.result),
                series("keeps the result, critical positions", false, |k| {
                    k.critical
                }),
                series("keeps the best margin", false, |k| k.margin),
                series("policy alone: critical positions", true, |k| k.critical),
                series("policy alone: best margin", true, |k| k.margin),
            ],
        };
        plot::write_line_chart(&chart, &dir.join("accuracy"))?;
    }
    if history.iter().all(|m| m.eval.is_empty()) {
        return Ok(());
    }
    let elo = LineChart {
        title: "Elo of the network against the baselines".to_string(),
        x_label: "training time (minutes)".to_string(),
        y_label: "Elo (random = 0)".to_string(),
        y_range: None,
        series: vec![Series {
            label: "network".to_string(),
            points: history
                .iter()
                .filter_map(|m| {
                    let (e, h) = (m.elo?, m.elo_interval?);
                    Some(Point {
                        x: minutes(m),
                        y: e,
                        interval: Some((e - h, e + h)),
                    })
                })
                .collect(),
        }],
    };
    let opponents: Vec<String> = history
        .iter()
        .flat_map(|m| m.eval.iter().map(|r| r.opponent.clone()))
        .fold(Vec::new(), |mut acc, o| {
            if !acc.contains(&o) {
                acc.push(o);
            }
            acc
        });
    let rates = LineChart {
        title: "Win rate of the network against each baseline".to_string(),
        x_label: "training time (minutes)".to_string(),
        y_label: "win rate (95% interval)".to_string(),
        y_range: Some((0.0, 1.0)),
        series: opponents
            .iter()
            .map(|o| Series {
                label: format!("vs {o}"),
                points: history
                    .iter()
                    .filter_map(|m| {
                        let r = m.eval.iter().find(|r| &r.opponent == o)?;
                        Some(Point {
                            x: minutes(m),
                            y: r.win_rate(),
                            interval: Some(r.win_interval()),
                        })
                    })
                    .collect(),
            })
            .collect(),
    };
    plot::write_line_chart(&elo, &dir.join("learning-curve"))?;
    plot::write_line_chart(&rates, &dir.join("win-rates"))?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use sowing_train::rating::MatchResult;

    /// An iteration's metrics for tests (the summary's too): 200 positions at 1,000 a second.
    pub(crate) fn metrics(iteration: u32, evaluated: bool, accuracy: bool) -> IterationMetrics {
        let kept = Kept {
            result: Rate::new(90.0, 120),
            critical: Rate::new(10.0, 26),
            margin: Rate::new(60.0, 120),
        };
        IterationMetrics {
            iteration,
            seconds: 30.0 * f64::from(iteration),
            games: 6,
            positions: 200,
            positions_per_sec: 1000.0,
            south_win_rate: 0.5,
            buffer: 200,
            steps: 20,
            policy_loss: 1.0,
            value_loss: 0.2,
            reanalysed: 0,
            eval: if evaluated {
                vec![MatchResult {
                    opponent: "random".to_string(),
                    wins: 3,
                    draws: 0,
                    losses: 1,
                }]
            } else {
                Vec::new()
            },
            elo: evaluated.then_some(100.0),
            elo_interval: evaluated.then_some(50.0),
            accuracy: accuracy.then_some(kept),
            policy_accuracy: accuracy.then_some(Kept {
                critical: Rate::new(5.0, 26),
                ..kept
            }),
        }
    }

    #[test]
    fn metrics_rows_keep_their_columns_with_or_without_accuracy_and_games() {
        let dir = std::env::temp_dir().join(format!("sowing-train-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let history = [
            metrics(1, true, true),
            metrics(2, false, false),
            metrics(3, false, true),
            metrics(4, true, false),
        ];
        let elo = [("random".to_string(), 0.0)].into_iter().collect();
        write_report(&dir, &history, &elo).unwrap();
        let csv = std::fs::read_to_string(dir.join("metrics.csv")).unwrap();
        let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
        let head = &rows[0];
        assert_eq!(rows.len(), 5);
        assert!(rows.iter().all(|r| r.len() == head.len()), "{csv}");
        let column = |row: &[&str], name: &str| -> String {
            row[head.iter().position(|h| *h == name).unwrap()].to_string()
        };
        assert_eq!(column(&rows[1], "accuracy_n"), "120");
        assert_eq!(column(&rows[1], "accuracy"), "0.7500");
        assert_eq!(column(&rows[1], "critical_accuracy"), "0.3846");
        assert_eq!(column(&rows[1], "margin_accuracy"), "0.5000");
        assert_eq!(column(&rows[1], "policy_critical_n"), "26");
        assert_eq!(column(&rows[1], "policy_critical_accuracy"), "0.1923");
        assert_eq!(column(&rows[1], "policy_margin_accuracy"), "0.5000");
        assert_eq!(column(&rows[2], "policy_accuracy"), "");
        let (lo, hi) = Rate::new(90.0, 120).wilson().unwrap();
        assert_eq!(column(&rows[1], "accuracy_low"), format!("{lo:.4}"));
        assert_eq!(column(&rows[1], "accuracy_high"), format!("{hi:.4}"));
        assert_eq!(column(&rows[2], "accuracy"), "");
        assert_eq!(column(&rows[3], "accuracy"), "0.7500");
        assert_eq!(column(&rows[3], "opponent"), "");
        assert_eq!(column(&rows[4], "opponent"), "random");
        assert_eq!(column(&rows[4], "margin_n"), "");
        if dir.join("learning-curve.png").exists() {
            // A font was found: the accuracy curve is drawn beside the others.
            assert!(dir.join("accuracy.png").is_file() && dir.join("accuracy.svg").is_file());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_summary_line_gives_the_accuracy_when_measured() {
        let line = summary(&metrics(1, true, true));
        assert!(
            line.contains(
                "keeps result 75.0% (critical 38.5%), margin 50.0%; policy alone: critical 19.2%, \
                 margin 50.0%"
            ),
            "{line}"
        );
        assert!(!summary(&metrics(2, false, false)).contains("keeps result"));
        assert!(line.contains("| loss p 1.000 v 0.200 |"), "{line}");
        let late = IterationMetrics {
            steps: 0,
            policy_loss: 0.0,
            value_loss: 0.0,
            reanalysed: 0,
            ..metrics(3, false, false)
        };
        let line = summary(&late);
        assert!(
            line.contains("| no training step (time was up) |"),
            "{line}"
        );
        assert!(!line.contains("loss p"), "{line}");
    }

    /// The flags lie over a config file's settings, which lie over the defaults; the settings
    /// given are those of both; `--help` shows the defaults of `TrainConfig::default()`.
    #[test]
    fn flags_override_the_config_file_and_help_shows_the_defaults() {
        use clap::{CommandFactory, FromArgMatches};
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: TrainArgs,
        }
        let file = std::env::temp_dir().join(format!("sowing-train-{}.Toml", std::process::id()));
        std::fs::write(&file, "\u{feff}hidden = 32\nlr = 0.01\n").unwrap();
        let command = with_defaults(Cli::command());
        let matches = command
            .clone()
            .try_get_matches_from([
                "train",
                "--config",
                file.to_str().unwrap(),
                "--hidden",
                "48",
                "--overlap",
            ])
            .unwrap();
        let args = Cli::from_arg_matches(&matches).unwrap().args;
        let (config, given) = args.settings().unwrap();
        assert_eq!((config.hidden, config.lr, config.overlap), (48, 0.01, true));
        assert_eq!(config.blocks, TrainConfig::default().blocks);
        assert_eq!(given, ["hidden", "lr", "overlap"]);
        let help = command.clone().render_long_help().to_string();
        assert!(help.contains("[default: 64]") && help.contains("[default: random,greedy"));
        std::fs::write(&file, "hiden = 3").unwrap();
        let e = args.settings().unwrap_err();
        assert!(e.contains("unknown setting \"hiden\""), "{e}");
        std::fs::remove_file(&file).unwrap();
    }
}
