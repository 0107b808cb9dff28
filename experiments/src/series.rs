//! `sowing match`: match play, a series of games between two agents until one has won `--to`
//! of them, the start alternating and draws counting for neither (see
//! `sowing_eval::series`). Prints each game as it is counted, the series' result, and the
//! probability that the first agent wins such a series, from a separate sample of games.

use crate::output::outln;
use crate::select::VariantArgs;
use sowing_agents::AgentSpec;
use sowing_eval::series::{self, MAX_TO, SeriesConfig};

/// Arguments of `sowing match`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rules: `--variant` (default en-dodoi-8) or `--rules FILE`.
    #[command(flatten)]
    variant: VariantArgs,
    /// The two agents, A,B (as `sowing arena` takes them): A is South in the first game, and
    /// the start alternates.
    #[arg(long, value_delimiter = ',', required = true, value_parser = crate::arena::agent_arg)]
    agents: Vec<AgentSpec>,
    /// Wins that take the series, 1 to 10000.
    #[arg(long)]
    to: u32,
    /// Seed of every random choice; the same seed gives the same series whatever the threads
    /// (agents with a time budget aside).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Random plies that open each game (each game its own; the estimate's games share theirs
    /// in side-swapped pairs, as the arena's do).
    #[arg(long, default_value_t = 0)]
    opening: u32,
    /// Games that measure each agent's chances, an even number (A South in half), for the
    /// series' probability: those `sowing arena --games G` plays with the same seed and opening.
    /// 0 leaves the probability out.
    #[arg(long, default_value_t = 200)]
    games_per_estimate: u32,
    /// Give up a series still undecided after this many games (default: 100 times --to).
    #[arg(long)]
    max_games: Option<u64>,
    /// Threads to play on (default: one per core), at most 1024.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print the whole series as one JSON object instead of lines for people.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let rules = args.variant.one("en-dodoi-8")?.playable()?.rules;
    let [a, b] = <[AgentSpec; 2]>::try_from(args.agents.clone()).map_err(|given| {
        let given: Vec<String> = given.iter().map(AgentSpec::to_string).collect();
        format!(
            "--agents takes two agents, A,B; got {}: {}",
            given.len(),
            given.join(",")
        )
    })?;
    if !(1..=MAX_TO).contains(&args.to) {
        return Err(format!("--to must be 1 to {MAX_TO}, not {}", args.to).into());
    }
    let config = SeriesConfig {
        rules,
        agents: [a, b],
        to: args.to,
        seed: args.seed,
        opening_plies: args.opening,
        games_per_estimate: args.games_per_estimate,
        max_games: args.max_games.unwrap_or(100 * u64::from(args.to)),
        threads: args.threads,
    };
    series::check(&config)?;
    for spec in &config.agents {
        spec.build()?.can_play(&rules)?;
    }
    if !args.json {
        outln!(
            "{} ({}): a series to {} wins between {} and {}, seed {}, opening {} random plies",
            sowing_eval::arena::rules_name(&rules),
            rules.summary(),
            config.to,
            config.agents[0],
            config.agents[1],
            config.seed,
            config.opening_plies
        )?;
    }
    // The games are printed as they are counted; a failed write stops the series.
    let report_names = config.agents.clone().map(|a| a.to_string());
    let mut written = Ok(());
    let report = series::play(&config, &mut |game| {
        if written.is_ok() && !args.json {
            written = outln!("{}", game.line(&report_names));
        }
    })?;
    written?;
    if args.json {
        outln!("{}", serde_json::to_string(&report)?)?;
    } else {
        outln!()?;
        crate::output::out!("{}", report.summary())?;
    }
    Ok(())
}
