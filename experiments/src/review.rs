//! `sowing review`: where an arena's games were decided. Every move after the opening of every
//! record in a directory is labelled with the perfect-play result before and after it (a
//! tablebase where it holds the position, else the exact result search within a budget), and
//! per agent the command prints its score, the score perfect play from each game's opening would
//! have given it, its moves in critical positions and the ones that gave a result away.
//!
//! The score the openings give is the yardstick for a match score: against an opponent that
//! makes no error no agent can score more, so an agent's score above it is what the opponent's
//! errors gave away and its own did not.

use crate::exact_search::ExactSearchArgs;
use crate::output::{out, outln};
use serde::Serialize;
use sowing_env::{Error, GameRecord};
use sowing_eval::review::{AgentReview, GameReview, review_game_labelled, summarize};
use sowing_exact::output_file;
use sowing_exact::positions::{ExactPosition, PositionSet};
use sowing_exact::tablebase::Tablebase;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `sowing review`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A directory of game records (`sowing arena --records DIR`); every `*.json` file in it (the
    /// extension in any case) is read, and all must be games of the same rules.
    #[arg(long, value_name = "DIR")]
    records: PathBuf,
    /// A tablebase of the records' rules: positions it holds are decided at once, and the search
    /// takes its results at the leaves.
    #[arg(long, value_name = "FILE")]
    tablebase: Option<PathBuf>,
    /// Plies of each game not reviewed, from the start (default: the record's `opening_plies`
    /// tag, 0 without one).
    #[arg(long)]
    opening: Option<usize>,
    /// The exact search that labels the moves: --nodes, --threads, --table-bits.
    #[command(flatten)]
    search: ExactSearchArgs,
    /// Also write the critical positions the games went through (where some move gives the
    /// result away), each once, labelled with every move's result, as a positions file for
    /// `sowing accuracy --positions FILE`: a yardstick drawn from where these games were
    /// decided. Checked before any game is reviewed.
    #[arg(long, value_name = "FILE")]
    positions_out: Option<PathBuf>,
    /// Print the figures as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// What `sowing review` prints with `--json`.
#[derive(Debug, Serialize)]
struct Report {
    games: usize,
    agents: std::collections::BTreeMap<String, AgentReview>,
    reviews: Vec<GameReview>,
}

/// Whether a file of this name is read as a game record: `*.json`, in any case.
pub fn is_record_name(name: &std::ffi::OsStr) -> bool {
    Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// The records of `dir`, in file-name order, each with its file.
fn read_records(dir: &Path) -> Result<Vec<(PathBuf, GameRecord)>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read records directory {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        // Regular files only: a FIFO named like a record would hang the reading.
        .filter(|p| p.file_name().is_some_and(is_record_name) && p.is_file())
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!(
            "no game records (*.json) in {}: write some with `sowing arena --records DIR`",
            dir.display()
        ));
    }
    let mut records: Vec<(PathBuf, GameRecord)> = Vec::with_capacity(paths.len());
    for path in paths {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read record {}: {e}", path.display()))?;
        let record =
            GameRecord::from_json(&text).map_err(|e| format!("record {}: {e}", path.display()))?;
        if let Some((first_path, first)) = records.first()
            && first.rules != record.rules
        {
            return Err(format!(
                "record {} is of other rules ({}) than the first, {} ({}): review one rule set \
                 at a time",
                path.display(),
                record.rules.summary(),
                first_path.display(),
                first.rules.summary()
            ));
        }
        records.push((path, record));
    }
    Ok(records)
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(out) = &args.positions_out {
        output_file::check_apart(out, &[("--tablebase", args.tablebase.as_deref())])?;
    }
    let records = read_records(&args.records)?;
    let rules = records[0].1.rules;
    let table = match &args.tablebase {
        Some(path) => Some(Arc::new(Tablebase::open_for(path, &rules)?)),
        None => None,
    };
    let threads = args.search.threads(records.len())?;
    let opening_of = |r: &GameRecord| -> Result<usize, String> {
        match (args.opening, r.tags.get("opening_plies")) {
            (Some(k), _) => Ok(k),
            (None, Some(tag)) => tag.parse().map_err(|_| {
                format!(
                    "its opening_plies tag {} is not a number (give --opening K to say how many \
                     plies to leave out)",
                    Error::quote(tag)
                )
            }),
            (None, None) => Ok(0),
        }
    };
    let reviews = args
        .search
        .map(
            threads,
            table.as_ref(),
            &records,
            |_, (path, record), search| {
                opening_of(record)
                    .and_then(|k| {
                        review_game_labelled(record, k, search, args.search.nodes)
                            .map_err(|e| e.to_string())
                    })
                    .map_err(|e| format!("record {}: {e}", path.display()))
            },
        )
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let (reviews, positions): (Vec<GameReview>, Vec<Vec<ExactPosition>>) =
        reviews.into_iter().unzip();
    if let Some(out) = &args.positions_out {
        let (set, duplicates) = critical_set(&args, rules, reviews.len(), positions);
        set.write(out)?;
        eprintln!(
            "{} critical positions written to {} ({duplicates} duplicates left out)",
            set.positions.len(),
            out.display()
        );
    }
    let agents = summarize(&reviews);
    if args.json {
        let report = Report {
            games: reviews.len(),
            agents,
            reviews,
        };
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    out!("{}", table_of(&rules.summary(), reviews.len(), &agents))?;
    Ok(())
}

/// The critical positions of every game, each once (the first time it was reached, in record
/// order), as a set whose header says how it was made; and how many repeats were left out.
fn critical_set(
    args: &Args,
    rules: sowing_env::Rules,
    games: usize,
    positions: Vec<Vec<ExactPosition>>,
) -> (PositionSet, u64) {
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::new();
    let mut duplicates = 0;
    for p in positions.into_iter().flatten() {
        if seen.insert(p.state) {
            kept.push(p);
        } else {
            duplicates += 1;
        }
    }
    let made_by = serde_json::json!({
        "command": "sowing review",
        "records": args.records.display().to_string(),
        "games": games,
        "critical_only": true,
        "duplicates": duplicates,
        "nodes": args.search.nodes,
        "opening": args.opening,
        "tablebase": args.tablebase.as_ref().map(|p| p.display().to_string()),
    });
    // Positions the search did not settle are not critical and not here: none dropped.
    (PositionSet::new(rules, made_by, 0, kept), duplicates)
}

/// The per-agent table.
fn table_of(
    rules: &str,
    games: usize,
    agents: &std::collections::BTreeMap<String, AgentReview>,
) -> String {
    let width = agents.keys().map(String::len).max().unwrap_or(5).max(5);
    let mut s = format!(
        "{rules}: {games} games reviewed against perfect play\n\n{:<width$}  {:>5}  {:>6}  \
         {:>7}  {:>6}  {:>6}  {:>6}  {:>8}  {:>9}  {:>11}  {:>8}\n",
        "agent",
        "games",
        "score",
        "settled",
        "due",
        "gained",
        "lost",
        "critical",
        "gave away",
        "games erred",
        "accuracy"
    );
    let per_game = |x: f64, n: u32| {
        if n == 0 {
            "-".to_string()
        } else {
            format!("{:.1}%", 100.0 * x / f64::from(n))
        }
    };
    for (name, a) in agents {
        s += &format!(
            "{name:<width$}  {:>5}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>8}  {:>9}  {:>11}  {:>8}\n",
            a.games,
            per_game(a.score, a.games),
            a.settled_games,
            per_game(a.opening_score, a.settled_games),
            per_game(a.gained, a.settled_games),
            per_game(a.lost, a.settled_games),
            a.critical_moves,
            a.errors,
            a.games_with_errors,
            a.critical_accuracy()
                .map_or("-".to_string(), |x| format!("{:.1}%", 100.0 * x)),
        );
    }
    s += "\nscore: points per game (a draw a half). Of the games whose opening (the position where \
          the agents took over) was settled: due, the points perfect play by both from there \
          would have given (50% when every opening is played from both sides); gained and lost, \
          the points got above and below that (score = due + gained - lost in those games). \
          critical: the agent's moves in positions where some move gives the result away; gave \
          away: those that did (a win to a draw or a loss, a draw to a loss); games erred: games \
          with at least one; accuracy: critical moves that kept the result.\n";
    s
}
