//! `sowing summary`: what a training run made and how strong it is, in a few lines a newcomer
//! reads in a minute. It reads what the other commands wrote: the run's newest checkpoint (its
//! settings and every iteration's metrics) and the CSV files of the arenas played with it; it
//! plays and measures nothing itself. `make demo` ends with it.

use crate::output::outln;
use sowing_agents::az::checkpoint;
use sowing_eval::arena::{self, PairingResult};
use sowing_eval::stats::Rate;
use sowing_train::trainer::{IterationMetrics, read_run};
use std::path::{Path, PathBuf};

/// Arguments of `sowing summary`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run directory of `sowing train --out`.
    #[arg(long, value_name = "DIR")]
    run: PathBuf,
    /// An arena's CSV file (`sowing arena --csv`) of games the run's network played; repeat for
    /// more. Each pairing becomes one line: the score, its interval and the games.
    #[arg(long = "match", value_name = "CSV")]
    matches: Vec<PathBuf>,
}

/// Print the summary.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    for line in summary(&args.run, &args.matches)? {
        outln!("{line}")?;
    }
    Ok(())
}

/// The summary's lines.
pub fn summary(run: &Path, matches: &[PathBuf]) -> Result<Vec<String>, String> {
    let newest = checkpoint::newest(run)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{} holds no checkpoint of `sowing train`", run.display()))?;
    let meta = read_run(&newest).map_err(|e| e.to_string())?;
    let games: u64 = meta.history.iter().map(|m| u64::from(m.games)).sum();
    let positions: u64 = meta.history.iter().map(|m| m.positions).sum();
    let mut lines = vec![
        "Summary".to_string(),
        format!(
            "  trained   {}: a {} x {} {} network by self-play, {} iteration{} in {:.1} minutes \
             ({} games, {} positions at {} a second, seed {})",
            arena::rules_name(&meta.rules),
            meta.net.hidden,
            meta.net.blocks,
            meta.net.body,
            meta.iteration,
            if meta.iteration == 1 { "" } else { "s" },
            meta.seconds / 60.0,
            thousands(games),
            thousands(positions),
            thousands(median_rate(&meta.history).round() as u64),
            meta.args.seed
        ),
        format!("            run {}", run.display()),
    ];
    if let Some(m) = meta.history.iter().rev().find(|m| m.accuracy.is_some()) {
        lines.push(exact_line(m, meta.args.simulations));
    }
    for path in matches {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let pairings = arena::read_csv(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for p in &pairings {
            lines.push(match_line(p));
        }
    }
    let plots: Vec<String> = ["learning-curve.png", "win-rates.png", "accuracy.png"]
        .iter()
        .filter(|name| run.join(name).is_file())
        .map(|name| run.join(name).display().to_string())
        .collect();
    if !plots.is_empty() {
        lines.push(format!("  plots     {}", plots.join(", ")));
    }
    lines.push(format!(
        "  metrics   {} (one row per iteration and opponent)",
        run.join("metrics.csv").display()
    ));
    Ok(lines)
}

/// The median of the iterations' self-play speeds, in positions a second: the figure that says
/// why the same minutes make fewer iterations on a slower machine (0 for a run of none).
fn median_rate(history: &[IterationMetrics]) -> f64 {
    let mut rates: Vec<f64> = history.iter().map(|m| m.positions_per_sec).collect();
    rates.sort_by(f64::total_cmp);
    match rates.len() {
        0 => 0.0,
        n if n % 2 == 1 => rates[n / 2],
        n => (rates[n / 2 - 1] + rates[n / 2]) / 2.0,
    }
}

/// The run's last measurement on exact positions.
fn exact_line(m: &IterationMetrics, simulations: u32) -> String {
    let pct = |r: &Rate| format!("{:.1}%", 100.0 * r.hits / r.n.max(1) as f64);
    let kept = m.accuracy.as_ref().expect("the caller found it");
    let mut line = format!(
        "  exact     at iteration {}, {} simulations a move: kept the result in {} of {} critical \
         positions (where some move loses it)",
        m.iteration,
        simulations,
        pct(&kept.critical),
        kept.critical.n
    );
    if let Some(policy) = &m.policy_accuracy {
        line.push_str(&format!(", its policy alone {}", pct(&policy.critical)));
    }
    line
}

/// One pairing of an arena, from the network's side when it played second in the file.
fn match_line(p: &PairingResult) -> String {
    let (me, them, wins, losses, score, low, high) = if p.opponent.starts_with("az:") {
        (
            &p.opponent,
            &p.agent,
            p.losses,
            p.wins,
            1.0 - p.score,
            1.0 - p.score_high,
            1.0 - p.score_low,
        )
    } else {
        (
            &p.agent,
            &p.opponent,
            p.wins,
            p.losses,
            p.score,
            p.score_low,
            p.score_high,
        )
    };
    format!(
        "  match     {me} against {them}: {:.1}% [{:.1}, {:.1}] of {} games \
         ({wins} won, {} drawn, {losses} lost; a draw counts half)",
        100.0 * score,
        100.0 * low,
        100.0 * high,
        p.games,
        p.draws
    )
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_with_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    fn at_speed(positions_per_sec: f64) -> IterationMetrics {
        IterationMetrics {
            positions_per_sec,
            ..crate::train::tests::metrics(1, false, false)
        }
    }

    #[test]
    fn the_speed_is_the_median_iteration_s() {
        let run =
            |rates: &[f64]| median_rate(&rates.iter().map(|&r| at_speed(r)).collect::<Vec<_>>());
        assert_eq!(run(&[]), 0.0);
        assert_eq!(run(&[3900.0]), 3900.0);
        // One slow iteration (a neighbour's burst) does not move it.
        assert_eq!(run(&[5000.0, 100.0, 4000.0]), 4000.0);
        assert_eq!(run(&[5000.0, 3000.0, 100.0, 4000.0]), 3500.0);
    }

    #[test]
    fn a_match_reads_from_the_network_side() {
        let p = PairingResult {
            agent: "alphabeta:200ms".into(),
            opponent: "az:runs/x:50ms".into(),
            games: 200,
            wins: 70,
            draws: 10,
            losses: 120,
            truncated: 0,
            score: 0.375,
            score_low: 0.31,
            score_high: 0.44,
        };
        assert_eq!(
            match_line(&p),
            "  match     az:runs/x:50ms against alphabeta:200ms: 62.5% [56.0, 69.0] of 200 games \
             (120 won, 10 drawn, 70 lost; a draw counts half)"
        );
    }
}
