//! `sowing train`: runs the AlphaZero-style trainer of `sowing_agents::az` (its `Args` are the
//! command's flags) until the budget is spent, with progress bars and a one-line summary per
//! iteration, and after every iteration rewrites the run's report: `metrics.csv` (win rates
//! against each baseline with 95% intervals, Elo, accuracy on exact positions) and the learning
//! curves `learning-curve.png` and `.svg` (Elo), `win-rates.png` and `.svg`, and `accuracy.png`
//! and `.svg` (when the run has evaluation positions).

use crate::output::note;
use crate::plot::{self, LineChart, Point, Series};
use indicatif::{ProgressBar, ProgressStyle};
use sowing_agents::az::checkpoint;
use sowing_eval::accuracy::Kept;
use sowing_eval::stats::Rate;
use sowing_train::{Args, IterationMetrics, Progress, Trainer};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// Train until the budget is spent; `typed` names the settings given on the command line.
pub fn run(args: Args, typed: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut trainer = match &args.resume {
        Some(dir) => {
            let given: Vec<&str> = typed.iter().map(String::as_str).collect();
            Trainer::resume_given(dir, &args, &given)?
        }
        None => Trainer::new(args)?,
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

/// One line per iteration: time, self-play speed, losses, win rates, Elo.
fn summary(m: &IterationMetrics) -> String {
    let mut line = format!(
        "iter {:>3} {:>6.0}s | {:>4} games {:>6.0} pos/s | loss p {:.3} v {:.3} |",
        m.iteration, m.seconds, m.games, m.positions_per_sec, m.policy_loss, m.value_loss
    );
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
mod tests {
    use super::*;
    use sowing_train::rating::MatchResult;

    fn metrics(iteration: u32, evaluated: bool, accuracy: bool) -> IterationMetrics {
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
    }
}
