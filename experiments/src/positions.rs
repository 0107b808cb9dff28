//! `sowing positions`: a fixed set of exact test positions, drawn from games between strong agents
//! (from random openings) and labelled exactly: from a tablebase where it holds the position,
//! else by an exact result search within a budget of positions per position, with the table's
//! results at its leaves. Positions the budget does not settle are dropped and counted, per
//! phase (seeds on the board), in the summary and the file's header.
//!
//! One position is drawn from each game after the opening: a phase (8 seeds wide) among those the
//! game went through, uniformly, then a position of that phase, so that the mid-game, where games
//! are decided, is as present as the long endgames. Games are numbered; game `g` and its
//! position are fixed by the seed and `g`, and the set is the first `--count` labelled positions
//! in game order, so it is the same whatever the threads. Each position is labelled with the
//! search's transposition table cleared, so that what settles does not depend on what was
//! searched before either.

use crate::exact_search::ExactSearchArgs;
use crate::output::outln;
use crate::select::VariantArgs;
use indicatif::{ProgressBar, ProgressStyle};
use rand::RngExt;
use serde::Serialize;
use sowing_agents::{AgentSpec, stream};
use sowing_env::{Rules, State};
use sowing_eval::matches::{self, Match, Pairing, Salts, Seat};
use sowing_exact::output_file;
use sowing_exact::positions::{ExactPosition, LabelSource, PositionSet};
use sowing_exact::tablebase::Tablebase;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `sowing positions`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rules: `--variant` (default en-dodoi-6) or `--rules FILE`.
    #[command(flatten)]
    variant: VariantArgs,
    /// Labelled positions to write.
    #[arg(long)]
    count: usize,
    /// Seed of the games and of the plies drawn from them.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The file to write (JSON lines: a header, then one position a line); checked before any
    /// game is played.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// A tablebase of these rules: positions it holds are labelled from it (results and
    /// margins), and the search takes its results at the leaves.
    #[arg(long, value_name = "FILE")]
    tablebase: Option<PathBuf>,
    /// The two agents whose games the positions come from, comma-separated specs; each plays
    /// South in half the games.
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = crate::arena::agent_arg,
        default_value = "alphabeta:6,mcts:1000"
    )]
    agents: Vec<AgentSpec>,
    /// Uniformly random moves before the agents take over.
    #[arg(long, default_value_t = 4)]
    opening: u32,
    /// The exact search that labels them: --nodes, --threads, --table-bits.
    #[command(flatten)]
    search: ExactSearchArgs,
    /// Print the summary as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The salts of the games' streams, and of the ply drawn from each game.
const SALTS: Salts = Salts {
    openings: 0x706f_7369_7469_6f6e,
    games: 0x6578_6163_7450_6f73,
};
const PLY_SALT: u64 = 0x706c_7920_6472_6177;

/// Seeds on the board per phase of the summary.
const PHASE_WIDTH: u32 = 8;

/// How one position drawn from a game came out.
struct Drawn {
    state: State,
    label: Option<ExactPosition>,
    seconds: f64,
    nodes: u64,
}

/// The figures of one phase (seeds on the board `from..=to`).
#[derive(Clone, Debug, Default, Serialize)]
struct Phase {
    from: u32,
    to: u32,
    /// Positions drawn (duplicates left out).
    drawn: u64,
    /// Labelled from the tablebase.
    tablebase: u64,
    /// Labelled by the search.
    search: u64,
    /// Not settled within the budget.
    dropped: u64,
    /// Wall-clock seconds spent labelling them, all together.
    seconds: f64,
    /// Positions the search made for them.
    nodes: u64,
}

/// What `sowing positions` made, for the summary.
#[derive(Debug, Serialize)]
struct Summary {
    file: PathBuf,
    rules: Rules,
    count: usize,
    dropped: u64,
    duplicates: u64,
    games: u64,
    seconds: f64,
    phases: Vec<Phase>,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let named = args.variant.one("en-dodoi-6")?;
    let rules = named.rules;
    if args.count == 0 {
        return Err("--count must be at least 1".into());
    }
    let threads = args.search.threads(usize::MAX)?;
    output_file::check_apart(
        &args.out,
        &[
            ("--tablebase", args.tablebase.as_deref()),
            ("--rules", args.variant.rules.as_deref()),
        ],
    )?;
    let agents = &args.agents;
    if agents.len() != 2 {
        return Err(format!(
            "--agents takes two agents, comma-separated (the same one twice is allowed), got {}",
            agents.len()
        )
        .into());
    }
    for spec in agents {
        spec.build()?.can_play(&rules)?;
    }
    let table = match &args.tablebase {
        Some(path) => Some(Arc::new(Tablebase::open_for(path, &rules)?)),
        None => None,
    };
    let started = Instant::now();
    let bar = ProgressBar::new(args.count as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "labelled {pos}/{len} [{bar:30}] {elapsed_precise}, ~{eta_precise} left  {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let mut kept: Vec<ExactPosition> = Vec::new();
    let mut seen: HashSet<State> = HashSet::new();
    let mut phases: Vec<Phase> = Vec::new();
    let (mut dropped, mut duplicates, mut games) = (0u64, 0u64, 0u64);
    // Games in batches, sized from the share labelled so far; positions in game order.
    while kept.len() < args.count {
        if games >= 1000 && (kept.len() as u64) * 50 < games {
            let more = match (&table, &args.tablebase) {
                (Some(t), Some(path)) => format!(
                    "--nodes more positions, or a --tablebase of more seeds ({} holds positions \
                     of at most {})",
                    path.display(),
                    t.max_seeds()
                ),
                _ => "--nodes more positions or a --tablebase".to_string(),
            };
            return Err(format!(
                "only {} of {} positions settled in {games} games ({dropped} dropped): give {more}",
                kept.len(),
                args.count
            )
            .into());
        }
        let missing = (args.count - kept.len()) as f64;
        let share = if games == 0 {
            1.0
        } else {
            (kept.len() as f64 / games as f64).max(0.05)
        };
        let batch = ((1.1 * missing / share) as u64 + 1)
            .next_multiple_of(2)
            .min(4096);
        let drawn = draw(&rules, agents, &args, threads, games..games + batch)?;
        let labelled = label(&drawn, table.as_ref(), &args, threads, &bar);
        games += batch;
        for item in labelled {
            if kept.len() == args.count {
                break;
            }
            if !seen.insert(item.state) {
                duplicates += 1;
                continue;
            }
            let phase = phase_of(&mut phases, seeds(&item.state));
            phase.drawn += 1;
            phase.seconds += item.seconds;
            phase.nodes += item.nodes;
            match item.label {
                Some(position) => {
                    match position.source {
                        LabelSource::Tablebase => phase.tablebase += 1,
                        LabelSource::Solver => phase.search += 1,
                    }
                    kept.push(position);
                }
                None => {
                    phase.dropped += 1;
                    dropped += 1;
                }
            }
        }
        bar.set_position(kept.len() as u64);
    }
    bar.finish_and_clear();
    let made_by = serde_json::json!({
        "command": "sowing positions",
        "variant": named.name,
        "seed": args.seed,
        "agents": agents.iter().map(AgentSpec::to_string).collect::<Vec<_>>(),
        "opening": args.opening,
        "nodes": args.search.nodes,
        "tablebase": table.as_ref().map(|t| serde_json::json!({
            "file": args.tablebase.as_ref().map(|p| p.display().to_string()),
            "max_seeds": t.max_seeds(),
        })),
        "games": games,
    });
    let set = PositionSet::new(rules, made_by, dropped, kept);
    set.write(&args.out)?;
    let summary = Summary {
        file: args.out.clone(),
        rules,
        count: set.positions.len(),
        dropped,
        duplicates,
        games,
        seconds: started.elapsed().as_secs_f64(),
        phases,
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        print_summary(&summary)?;
    }
    Ok(())
}

/// Seeds on the board of `state`.
fn seeds(state: &State) -> u32 {
    state.board().sum(0, 2 * state.holes())
}

/// The phase of `seeds` in `phases`, made (with the phases below it) if missing.
fn phase_of(phases: &mut Vec<Phase>, seeds: u32) -> &mut Phase {
    let at = (seeds / PHASE_WIDTH) as usize;
    while phases.len() <= at {
        let from = phases.len() as u32 * PHASE_WIDTH;
        phases.push(Phase {
            from,
            to: from + PHASE_WIDTH - 1,
            ..Phase::default()
        });
    }
    &mut phases[at]
}

/// Play games `numbers` between the two agents and draw one position from each, in order.
fn draw(
    rules: &Rules,
    agents: &[AgentSpec],
    args: &Args,
    threads: usize,
    numbers: std::ops::Range<u64>,
) -> Result<Vec<State>, Box<dyn std::error::Error>> {
    let m = Match {
        rules: *rules,
        seed: args.seed,
        salts: SALTS,
        opening_plies: args.opening,
        pairings: vec![Pairing {
            a: 0,
            b: 1,
            games: numbers,
        }],
        threads,
        keep_records: true,
    };
    let mut seats: Vec<Seat> = agents
        .iter()
        .map(|spec| Seat::Agent {
            spec: spec.clone(),
            factory: &matches::build,
        })
        .collect();
    let played = matches::play(&m, &mut seats, &mut |_| {})?;
    let mut out = Vec::with_capacity(played.games.len());
    for game in &played.games {
        let record = game.record.as_ref().expect("records were asked for");
        let states = record.states()?;
        // The positions where a move was chosen after the opening, and their phases.
        let first = (args.opening as usize).min(states.len() - 1);
        let choices: Vec<&State> = states[first..].iter().filter(|s| !s.is_over()).collect();
        let mut phases: Vec<u32> = choices.iter().map(|s| seeds(s) / PHASE_WIDTH).collect();
        phases.dedup();
        if phases.is_empty() {
            continue;
        }
        let mut rng = stream(args.seed, PLY_SALT, game.game);
        let phase = phases[rng.random_range(0..phases.len())];
        let in_phase: Vec<&State> = choices
            .into_iter()
            .filter(|s| seeds(s) / PHASE_WIDTH == phase)
            .collect();
        out.push(*in_phase[rng.random_range(0..in_phase.len())]);
    }
    Ok(out)
}

/// Label `states` on `threads` threads, each with its own search; results in order.
fn label(
    states: &[State],
    table: Option<&Arc<Tablebase>>,
    args: &Args,
    threads: usize,
    bar: &ProgressBar,
) -> Vec<Drawn> {
    args.search.map(threads, table, states, |i, state, search| {
        search.clear();
        let started = Instant::now();
        let label = ExactPosition::label(state, search, args.search.nodes);
        bar.set_message(format!("{} of this batch", i + 1));
        Drawn {
            state: *state,
            label,
            seconds: started.elapsed().as_secs_f64(),
            nodes: search.nodes(),
        }
    })
}

fn print_summary(s: &Summary) -> std::io::Result<()> {
    outln!(
        "{} positions of {} written to {} ({} dropped unsettled, {} duplicates left out; {} \
         games, {:.1} s)",
        s.count,
        s.rules.summary(),
        s.file.display(),
        s.dropped,
        s.duplicates,
        s.games,
        s.seconds
    )?;
    outln!(
        "{:>7} {:>7} {:>9} {:>7} {:>7} {:>8} {:>12} {:>14}",
        "seeds",
        "drawn",
        "tablebase",
        "search",
        "dropped",
        "settled",
        "ms/position",
        "nodes/position"
    )?;
    for p in s.phases.iter().filter(|p| p.drawn > 0) {
        let n = p.drawn as f64;
        outln!(
            "{:>7} {:>7} {:>9} {:>7} {:>7} {:>7.1}% {:>12.1} {:>14.0}",
            format!("{}-{}", p.from, p.to),
            p.drawn,
            p.tablebase,
            p.search,
            p.dropped,
            100.0 * (p.tablebase + p.search) as f64 / n,
            1000.0 * p.seconds / n,
            p.nodes as f64 / n
        )?;
    }
    Ok(())
}
