//! `sowing accuracy`: how often each agent's move keeps the exact result of a position, and how
//! often it keeps the best margin, over a set of exactly labelled positions (`sowing positions`
//! makes them; the presets' sets are committed in `data/positions/`). Rates with Wilson 95%
//! intervals, by phase (seeds on the board), and the mean time per move; with two agents or more,
//! every pair compared position by position (McNemar); a table for people, or JSON. The
//! measurement is `sowing_eval::accuracy`.

use crate::output::{out, outln};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sowing_agents::AgentSpec;
use sowing_env::Rules;
use sowing_eval::accuracy::{self, Accuracy, Paired, Trial, committed_set, how_to_make, read_set};
use sowing_eval::matches::Seat;
use sowing_eval::stats::Rate;
use sowing_exact::positions::PositionSet;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `sowing accuracy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Preset the positions are of (see `sowing variants`).
    #[arg(long)]
    variant: String,
    /// Agents to measure, comma-separated specs (e.g. random,greedy,alphabeta:4,mcts:1000).
    #[arg(long)]
    agents: String,
    /// A positions file, or a number N: the first N positions of the variant's committed set,
    /// data/positions/VARIANT.jsonl (write ./N for a file named N).
    #[arg(long, value_name = "FILE|N")]
    positions: String,
    /// Print the figures as JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Seed of every random choice: each position draws from a stream of the seed, the agent and
    /// the position, so the figures do not depend on the threads (time budgets aside).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Threads to play on (default, or 0: one per core), at most 1024.
    #[arg(long)]
    threads: Option<usize>,
}

/// The figures of a run, as `--json` prints them.
#[derive(Debug, Serialize)]
struct Report {
    variant: String,
    rules: Rules,
    /// The positions file.
    file: PathBuf,
    /// Positions measured (the first of the file).
    positions: usize,
    seed: u64,
    agents: Vec<AgentFigures>,
    /// Every pair of agents compared position by position.
    paired: Vec<PairFigures>,
}

/// Two agents compared on the same positions (see `sowing_eval::accuracy::Paired`).
#[derive(Debug, Serialize)]
struct PairFigures {
    first: String,
    second: String,
    /// Keeping the result, over the critical positions.
    critical: PairedFigures,
    /// Keeping the best margin, over the positions whose margins are known.
    margin: PairedFigures,
}

/// Where only one of two agents kept it, the difference of their rates and McNemar's p.
#[derive(Debug, Serialize)]
struct PairedFigures {
    n: u64,
    only_first: u64,
    only_second: u64,
    difference: Option<f64>,
    p_value: f64,
}

impl PairedFigures {
    fn new(p: Paired) -> PairedFigures {
        PairedFigures {
            n: p.n,
            only_first: p.only_first,
            only_second: p.only_second,
            difference: p.difference(),
            p_value: p.p_value(),
        }
    }
}

/// One agent's figures.
#[derive(Debug, Serialize)]
struct AgentFigures {
    agent: String,
    positions: u64,
    keeps_result: RateFigures,
    /// Over the critical positions: those where some move does not keep the result.
    keeps_result_critical: RateFigures,
    /// Over the positions whose margins are known.
    keeps_margin: RateFigures,
    /// Mean milliseconds per move (clock time: it depends on the machine and its load).
    ms_per_move: Option<f64>,
    phases: Vec<PhaseFigures>,
}

/// The positions of one band of seeds on the board.
#[derive(Debug, Serialize)]
struct PhaseFigures {
    seeds_low: u32,
    seeds_high: u32,
    keeps_result: RateFigures,
    keeps_result_critical: RateFigures,
    keeps_margin: RateFigures,
}

/// A rate with its Wilson 95% interval.
#[derive(Debug, Serialize)]
struct RateFigures {
    hits: f64,
    n: u64,
    value: Option<f64>,
    lo95: Option<f64>,
    hi95: Option<f64>,
}

impl RateFigures {
    fn new(rate: Rate) -> RateFigures {
        let (lo95, hi95) = rate.wilson().unzip();
        RateFigures {
            hits: rate.hits,
            n: rate.n,
            value: rate.value(),
            lo95,
            hi95,
        }
    }
}

impl AgentFigures {
    fn new(a: &Accuracy) -> AgentFigures {
        AgentFigures {
            agent: a.player.clone(),
            positions: a.positions(),
            keeps_result: RateFigures::new(a.kept.result),
            keeps_result_critical: RateFigures::new(a.kept.critical),
            keeps_margin: RateFigures::new(a.kept.margin),
            ms_per_move: a.seconds_per_move.value().map(|s| 1000.0 * s),
            phases: a
                .bands()
                .map(|b| PhaseFigures {
                    seeds_low: b.low,
                    seeds_high: b.high,
                    keeps_result: RateFigures::new(b.kept.result),
                    keeps_result_critical: RateFigures::new(b.kept.critical),
                    keeps_margin: RateFigures::new(b.kept.margin),
                })
                .collect(),
        }
    }
}

/// The positions `--positions` names: a file's, or the first N of the committed set.
fn positions(arg: &str, variant: &str, rules: &Rules) -> Result<(PathBuf, PositionSet), String> {
    let Ok(count) = arg.parse::<usize>() else {
        let path = PathBuf::from(arg);
        let set = read_set(&path, variant, rules)?;
        return Ok((path, set));
    };
    if count == 0 {
        return Err("--positions 0 measures nothing: give a file or a count of 1 or more".into());
    }
    let path = committed_set(variant);
    if !path.exists() {
        return Err(format!(
            "--positions {count} takes the first {count} positions of {variant}'s committed set, \
             {}, which does not exist here (run from the repository's root, or give a positions \
             file); {}",
            path.display(),
            how_to_make(variant)
        ));
    }
    let mut set = read_set(&path, variant, rules)?;
    if set.positions.len() < count {
        return Err(format!(
            "--positions {count}: {} holds only {} positions",
            path.display(),
            set.positions.len()
        ));
    }
    set.positions.truncate(count);
    Ok((path, set))
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let rules = Rules::preset(&args.variant).map_err(|e| format!("--variant: {e}"))?;
    // An alias (en-dodoi) is measured as the preset it names, on that preset's committed set.
    let variant = accuracy::preset_name(&args.variant).to_string();
    let specs: Vec<AgentSpec> = args
        .agents
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(crate::arena::agent_arg)
        .collect::<Result<_, _>>()?;
    if specs.is_empty() {
        return Err(
            "--agents names no agent: give comma-separated specs, e.g. random,greedy".into(),
        );
    }
    for spec in &specs {
        spec.build()?.can_play(&rules)?;
    }
    // 0, or none given, is one per core (the trial's 0).
    let threads = match args.threads {
        Some(t) => sowing_exact::memory::threads(t)?,
        None => 0,
    };
    let (file, set) = positions(&args.positions, &variant, &rules)?;
    let trial = Trial {
        rules,
        positions: &set.positions,
        first: 0,
        seed: args.seed,
        threads,
    };
    let mut measured = Vec::new();
    for spec in &specs {
        let bar = ProgressBar::new(set.positions.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>16} [{bar:30}] {pos}/{len} positions  {elapsed} elapsed, ~{eta} left",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix(spec.to_string());
        let mut seat = Seat::Agent {
            spec: spec.clone(),
            factory: &sowing_eval::matches::build,
        };
        let result = accuracy::measure(&trial, &mut seat, &mut |done| bar.set_position(done));
        bar.finish_and_clear();
        measured.push(result?);
    }
    let mut paired = Vec::new();
    for (i, a) in measured.iter().enumerate() {
        for b in &measured[i + 1..] {
            paired.push(PairFigures {
                first: a.player.clone(),
                second: b.player.clone(),
                critical: PairedFigures::new(Paired::critical(&set.positions, a, b)),
                margin: PairedFigures::new(Paired::margin(&set.positions, a, b)),
            });
        }
    }
    let report = Report {
        variant,
        rules,
        file,
        positions: set.positions.len(),
        seed: args.seed,
        agents: measured.iter().map(AgentFigures::new).collect(),
        paired,
    };
    if args.json {
        outln!("{}", serde_json::to_string(&report)?)?;
    } else {
        out!("{}", table(&report))?;
    }
    Ok(())
}

/// A rate as `61.2% [59.0, 63.3]`; `-` with no positions.
fn cell(r: &RateFigures) -> String {
    match (r.value, r.lo95, r.hi95) {
        (Some(v), Some(lo), Some(hi)) => {
            format!("{:.1}% [{:.1}, {:.1}]", 100.0 * v, 100.0 * lo, 100.0 * hi)
        }
        _ => "-".to_string(),
    }
}

/// A paired comparison as `31 / 12, +3.4, p 0.005`.
fn paired_cell(p: &PairedFigures) -> String {
    match p.difference {
        Some(d) => format!(
            "{} / {}, {:+.1}, p {:.3}",
            p.only_first,
            p.only_second,
            100.0 * d,
            p.p_value
        ),
        None => "-".to_string(),
    }
}

/// Rows of cells in columns as wide as their widest cell, the first left-aligned.
fn columns(rows: &[Vec<String>]) -> String {
    let width = |c: usize| {
        rows.iter()
            .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
            .max()
    };
    let widths: Vec<usize> = (0..rows[0].len()).map(|c| width(c).unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        for (c, cell) in row.iter().enumerate() {
            let w = widths[c];
            if c == 0 {
                let _ = write!(out, "{cell:<w$}");
            } else {
                let _ = write!(out, "  {cell:>w$}");
            }
        }
        out.push('\n');
    }
    out
}

/// The report for people: the agents' figures, then their results by phase.
fn table(report: &Report) -> String {
    let mut out = format!(
        "{} ({}): {} positions of {}, seed {}; rates with Wilson 95% intervals\n\n",
        report.variant,
        report.rules.summary(),
        report.positions,
        report.file.display(),
        report.seed
    );
    let Some(first) = report.agents.first() else {
        return out;
    };
    let mut rows = vec![vec![
        "agent".to_string(),
        "keeps the result".to_string(),
        format!("critical ({})", first.keeps_result_critical.n),
        format!("keeps the best margin ({})", first.keeps_margin.n),
        "ms per move".to_string(),
    ]];
    for a in &report.agents {
        rows.push(vec![
            a.agent.clone(),
            cell(&a.keeps_result),
            cell(&a.keeps_result_critical),
            cell(&a.keeps_margin),
            a.ms_per_move.map_or("-".into(), |ms| format!("{ms:.2}")),
        ]);
    }
    out += &columns(&rows);
    let by_phase = |title: &str, n: fn(&PhaseFigures) -> &RateFigures| {
        let mut head = vec![title.to_string()];
        head.extend(
            first
                .phases
                .iter()
                .map(|p| format!("{}-{} ({})", p.seeds_low, p.seeds_high, n(p).n)),
        );
        let mut rows = vec![head];
        for a in &report.agents {
            let mut row = vec![a.agent.clone()];
            row.extend(a.phases.iter().map(|p| cell(n(p))));
            rows.push(row);
        }
        columns(&rows)
    };
    out += "\nBy phase, seeds on the board (positions in brackets):\n";
    out += &by_phase("keeps the result", |p| &p.keeps_result);
    out.push('\n');
    out += &by_phase("critical", |p| &p.keeps_result_critical);
    if !report.paired.is_empty() {
        out += "\nPaired, position by position (only A / only B: positions where only that \
                agent kept it; difference A - B in points; McNemar's exact p):\n";
        let mut rows = vec![vec![
            "A vs B".to_string(),
            format!("critical ({})", first.keeps_result_critical.n),
            format!("best margin ({})", first.keeps_margin.n),
        ]];
        for pair in &report.paired {
            rows.push(vec![
                format!("{} vs {}", pair.first, pair.second),
                paired_cell(&pair.critical),
                paired_cell(&pair.margin),
            ]);
        }
        out += &columns(&rows);
    }
    out += "\nA move keeps the result when its exact result (win, draw or loss, with best play \
            after it) is the position's. Critical positions are those where some move does not \
            keep it (in the others every move does). A move keeps the best margin when it leads \
            to the best margin of seeds captured from here on, where the margins are known; \
            where endless play is within reach the two can differ (the move of the best margin \
            may lose a game that another move holds in a cycle).\n";
    out
}
