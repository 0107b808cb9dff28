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
//!
//! The games, their positions and the merge are `sowing_eval::labelling`'s, which the Python
//! package and its Ray driver (`python -m sowing.ray.positions`) call too, for the same file.

use crate::exact_search::{ExactSearchArgs, GuideArgs};
use crate::output::outln;
use crate::select::VariantArgs;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sowing_agents::AgentSpec;
use sowing_env::Rules;
use sowing_eval::labelling::{
    Collector, DEFAULT_OPENING, DEFAULT_VARIANT, Labelling, Phase, PhaseWindow, Refused, Setting,
};
use sowing_exact::{Stop, output_file};
use std::path::PathBuf;
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
        default_value = AGENTS
    )]
    agents: Vec<AgentSpec>,
    /// Uniformly random moves before the agents take over.
    #[arg(long, default_value_t = DEFAULT_OPENING)]
    opening: u32,
    /// The share of games, in percent (0 to 100), whose position is drawn from just past half
    /// the seeds (more than half on the board, by at most 8) instead of from a phase drawn
    /// uniformly: a set that reaches the mid-game where the search can still settle it.
    #[arg(long, default_value_t = 0)]
    mid_game: u32,
    /// Draw only from these phases: LOW-HIGH, percent of the start's seeds on the board (e.g.
    /// 10-40, the endgame every preset's set reaches); a game that never went through them
    /// gives none. Not with --mid-game.
    #[arg(long, value_name = "LOW-HIGH")]
    phases: Option<PhaseWindow>,
    /// The exact search that labels them: --nodes, --threads, --table-bits.
    #[command(flatten)]
    search: ExactSearchArgs,
    /// The network guiding the search: --guide, --guide-depth.
    #[command(flatten)]
    guide: GuideArgs,
    /// Print the summary as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The default of `--agents` as clap shows it: [`DEFAULT_AGENTS`], checked by a test.
const AGENTS: &str = "alphabeta:6,mcts:1000";

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
    let named = args.variant.one(DEFAULT_VARIANT)?;
    let rules = named.rules;
    let threads = args.search.threads(usize::MAX)?;
    output_file::check_apart(
        &args.out,
        &[
            ("--tablebase", args.tablebase.as_deref()),
            ("--rules", args.variant.rules.as_deref()),
        ],
    )?;
    let Ok(agents) = <[AgentSpec; 2]>::try_from(args.agents.clone()) else {
        return Err(format!(
            "--agents takes two agents, comma-separated (the same one twice is allowed), got {}",
            args.agents.len()
        )
        .into());
    };
    let labelling = Labelling {
        rules,
        variant: named.name,
        seed: args.seed,
        agents,
        opening: args.opening,
        nodes: args.search.nodes,
        table_bits: args.search.table_bits,
        tablebase: args.tablebase.clone(),
        mid_game: args.mid_game,
        phases: args.phases,
    };
    labelling.check().map_err(in_flags)?;
    let table = labelling.open_table()?;
    let guidance = args.guide.guidance();
    let mut guides = args.guide.guides(&rules, threads)?;
    let started = Instant::now();
    let bar = ProgressBar::new(args.count as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "labelled {pos}/{len} [{bar:30}] {elapsed_precise}, ~{eta_precise} left  {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let mut collector =
        Collector::new(&labelling, table.as_deref(), args.count).map_err(in_flags)?;
    if let Some(run) = &args.guide.guide {
        collector = collector.guided_by(run, guidance.depth);
    }
    // Games in batches, sized from the share labelled so far; positions in game order.
    while let Some(games) = collector.next_games().map_err(in_flags)? {
        let drawn = labelling.label_games_guided(
            table.as_ref(),
            games,
            threads,
            &mut guides,
            guidance,
            &Stop::never(),
            &|i| bar.set_message(format!("{} of this batch", i + 1)),
        )?;
        collector.add(drawn)?;
        bar.set_position(collector.kept() as u64);
    }
    bar.finish_and_clear();
    let (set, report) = collector.finish();
    set.write(&args.out)?;
    let summary = Summary {
        file: args.out.clone(),
        rules: report.rules,
        count: report.count,
        dropped: report.dropped,
        duplicates: report.duplicates,
        games: report.games,
        seconds: started.elapsed().as_secs_f64(),
        phases: report.phases,
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        print_summary(&summary)?;
    }
    Ok(())
}

/// A refusal of the labelling, its settings named by their flags.
fn in_flags(refused: Refused) -> String {
    refused.words(&|setting| match setting {
        Setting::Count => "--count",
        Setting::MidGame => "--mid-game",
        Setting::Phases => "--phases",
        Setting::Nodes => "--nodes",
        Setting::TableBits => "--table-bits",
        Setting::Tablebase => "--tablebase",
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_default_agents_are_the_librarys() {
        assert_eq!(
            super::AGENTS,
            sowing_eval::labelling::DEFAULT_AGENTS.join(",")
        );
    }
}
