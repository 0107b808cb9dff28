//! `sowing arena`: a round robin between agents on a preset or a rules file, every pairing played
//! from both sides on all cores; prints results per pairing and Elo ratings, as a table, JSON or
//! CSV, and saves the games on request.

use crate::output::{out, outln};
use crate::select::VariantArgs;
use indicatif::{ProgressBar, ProgressStyle};
use sowing_agents::{AgentSpec, SpecError};
use sowing_eval::arena::{self, ArenaConfig};
use sowing_exact::output_file;
use std::path::{Path, PathBuf};

/// Arguments of `sowing arena`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rules: `--variant` (default en-dodoi-8) or `--rules FILE`.
    #[command(flatten)]
    variant: VariantArgs,
    /// Agents, comma-separated specs: random, greedy, alphabeta:DEPTH, alphabeta:TIMEms,
    /// mcts:SIMULATIONS, mcts:TIMEms. Every pair of them meets.
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = agent_arg,
        default_value = "random,greedy,alphabeta:4,mcts:1000"
    )]
    agents: Vec<AgentSpec>,
    /// Games per pairing, an even number: each agent plays South (who moves first) in half.
    #[arg(long, default_value_t = 200)]
    games: u32,
    /// Seed of every random choice; the same seed gives the same games whatever the threads
    /// (agents with a time budget aside).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Threads to play on (default: one per core), at most 1024.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Random moves before the agents take over; both games of a side-swapped pair share them.
    #[arg(long, default_value_t = 0)]
    opening: u32,
    /// Deal the openings without repeats: every distinct position --opening plies from the
    /// start, shuffled by the seed, one per side-swapped pair in turn (random draws repeat the
    /// few short openings a small board has: en-dodoi-8 has 58 distinct positions 2 plies in,
    /// so --games 116 plays each once from both sides). Refused when there are more than
    /// 100000.
    #[arg(long)]
    distinct_openings: bool,
    /// Print the report as JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Also write one CSV row per pairing to this file.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Save every game as a JSON record in this directory: a new or empty one (created if
    /// missing), so that `sowing review` reads these games and no others.
    #[arg(long)]
    records: Option<PathBuf>,
}

/// An agent spec on the command line, where specs are read (every command that takes agents
/// parses them with this); spaces around it are ignored, as in `--agents "random, greedy"`.
pub fn agent_arg(text: &str) -> Result<AgentSpec, SpecError> {
    text.trim().parse()
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let rules = args.variant.one("en-dodoi-8")?.playable()?.rules;
    // Where the results go is checked before any game is played.
    if let Some(path) = &args.csv {
        output_file::check_apart(path, &[("--rules", args.variant.rules.as_deref())])?;
    }
    if let Some(dir) = &args.records {
        check_records_dir(dir)?;
    }
    let config = ArenaConfig {
        rules,
        agents: args.agents,
        games: args.games,
        seed: args.seed,
        threads: args.threads,
        opening_plies: args.opening,
        distinct_openings: args.distinct_openings,
        keep_records: args.records.is_some(),
    };
    let bar = ProgressBar::new(config.total_games() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {elapsed} elapsed, ~{eta} left")
            .expect("a valid template"),
    );
    let report = arena::play(&config, &|_| bar.inc(1));
    bar.finish_and_clear();
    let report = report?;

    if let Some(dir) = &args.records {
        for (i, record) in report.records.iter().enumerate() {
            let name = |side: &str| {
                record
                    .tags
                    .get(side)
                    .map_or("agent", |s| s.as_str())
                    // Specs like `az:runs/x:64` hold path separators: keep file names flat.
                    .replace(
                        |c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'),
                        "-",
                    )
            };
            let path = dir.join(format!(
                "game-{i:05}-{}-vs-{}.json",
                name("south"),
                name("north")
            ));
            output_file::write(&path, record.to_json().as_bytes())?;
        }
    }
    if let Some(path) = &args.csv {
        output_file::write(path, report.csv().as_bytes())?;
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", report.table())?;
        if let Some(dir) = &args.records {
            outln!(
                "{} game records saved in {}",
                report.records.len(),
                dir.display()
            )?;
        }
    }
    Ok(())
}

/// Make the records directory `dir` if it is missing, and refuse one that already holds game
/// records (`*.json`): `sowing review` would read the old games with the new ones.
fn check_records_dir(dir: &Path) -> Result<(), String> {
    output_file::prepare_dir(dir).map_err(|e| format!("--records: {e}"))?;
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read records directory {}: {e}", dir.display()))?;
    let mut records: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|name| crate::review::is_record_name(name))
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    if records.is_empty() {
        return Ok(());
    }
    records.sort();
    Err(format!(
        "records directory {} already holds {} game record{} ({}{}): `sowing review` would \
         count them with the new games; give a new or empty directory, or remove them first",
        dir.display(),
        records.len(),
        if records.len() == 1 { "" } else { "s" },
        records[0],
        if records.len() > 1 { ", ..." } else { "" }
    ))
}
