//! The `sowing` command: the rules, random play, benchmarks, and (as they land) training,
//! tournaments and variant comparison. Each subcommand lives in its own module with its own
//! `Args`; this file only dispatches.

mod accuracy;
mod arena;
mod bench;
mod compare;
mod exact_search;
mod output;
mod play;
mod plot;
mod positions;
mod random;
mod replay;
mod review;
mod select;
mod series;
mod signals;
mod solve;
mod solved;
#[cfg(feature = "torch")]
mod summary;
mod tablebase;
#[cfg(feature = "torch")]
mod train;
mod variants;

use clap::{CommandFactory, FromArgMatches, Subcommand};
use std::process::ExitCode;

/// Sowing: an RL environment and training harness for the relay-sowing mancala games.
#[derive(Debug, clap::Parser)]
#[command(name = "sowing", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the presets and their rules.
    Variants(variants::Args),
    /// Replay moves or a game record, printing every position.
    Replay(replay::Args),
    /// Statistics of uniformly random play: game length, laps, seeds sown, endless moves, results.
    Random(random::Args),
    /// Engine throughput: random-play moves/s on one thread, VecEnv steps/s on every core.
    Bench(bench::Args),
    /// Play agents against each other: every pairing from both sides, results and Elo ratings.
    Arena(arena::Args),
    /// Match play: a series of games between two agents until one has won --to of them, the
    /// start alternating; with the probability of the result from their measured chances.
    Match(series::Args),
    /// Play a game in the terminal against an agent.
    Play(play::Args),
    /// Prove who wins a position by exact search: a forced win and its first move, or lost moves.
    Solve(solve::Args),
    /// Endgame tablebases: build one (every position of at most K seeds solved), probe, describe.
    Tablebase(tablebase::Args),
    /// The perfect-play value of the start of small rule sets (2xN holes, few seeds), each solved
    /// whole by a tablebase.
    Solved(solved::Args),
    /// Exact test positions from games between strong agents, each labelled with every move's
    /// perfect-play result (a tablebase, else an exact search within a budget).
    Positions(positions::Args),
    /// Accuracy against exact positions: how often each agent keeps the result and the best
    /// margin, by phase.
    Accuracy(accuracy::Args),
    /// Where an arena's games were decided: every move of its records labelled against perfect
    /// play; per agent its score, the score the openings give, and the moves that gave a result
    /// away.
    Review(review::Args),
    /// Compare variants: game shape, balance, skill depth, search sensitivity, learnability.
    Compare(compare::Args),
    /// Train a policy-value network by self-play (AlphaZero-style PUCT, tch).
    #[cfg(feature = "torch")]
    Train(Box<train::TrainArgs>),
    /// What a training run made and how strong it is: its training, its last measurement on
    /// exact positions, the arenas it played, where the plots are.
    #[cfg(feature = "torch")]
    Summary(summary::Args),
}

fn main() -> ExitCode {
    // Die quietly of SIGPIPE, as command-line tools do, when the reader of our output goes away
    // (`sowing variants --json | head -1`); Rust ignores it by default, so printing would panic.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Ctrl-C while a file is written leaves no temporary beside it.
    signals::clean_up_on_signals();
    let matches = cli_command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Variants(args) => variants::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Random(args) => random::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Arena(args) => arena::run(args),
        Command::Match(args) => series::run(args),
        Command::Play(args) => play::run(args),
        #[cfg(feature = "torch")]
        Command::Train(args) => train::run(*args, &typed(&matches, "train")),
        #[cfg(feature = "torch")]
        Command::Summary(args) => summary::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Tablebase(args) => tablebase::run(args),
        Command::Positions(args) => positions::run(args),
        Command::Solved(args) => solved::run(args),
        Command::Accuracy(args) => accuracy::run(args),
        Command::Review(args) => review::run(args),
    };
    // What a last line without its end left in the buffer is written now, where a failure can
    // still be reported.
    match result.and_then(|()| Ok(output::flush()?)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            output::note!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The command line's grammar: clap's, with `sowing train`'s defaults shown from its settings.
fn cli_command() -> clap::Command {
    #[cfg(feature = "torch")]
    return Cli::command().mut_subcommand("train", train::with_defaults);
    #[cfg(not(feature = "torch"))]
    Cli::command()
}

/// The arguments of subcommand `name` that were typed on the command line (not defaults), by
/// clap's names (the fields of the subcommand's `Args`): `sowing train --resume` refuses a
/// setting typed that the run cannot change, where a default says nothing.
#[cfg(feature = "torch")]
fn typed(matches: &clap::ArgMatches, name: &str) -> Vec<String> {
    let Some(sub) = matches.subcommand_matches(name) else {
        return Vec::new();
    };
    // Arguments only: the matches also hold the groups that `flatten` makes.
    let command = Cli::command();
    let arguments: Vec<String> = command
        .find_subcommand(name)
        .map(|c| c.get_arguments().map(|a| a.get_id().to_string()).collect())
        .unwrap_or_default();
    sub.ids()
        .filter(|id| arguments.iter().any(|a| a == id.as_str()))
        .filter(|id| sub.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine))
        .map(|id| id.as_str().to_string())
        .collect()
}

#[cfg(all(test, feature = "torch"))]
mod tests {
    use super::*;

    /// What `sowing train --resume` is told was typed: the flags given, never their defaults.
    #[test]
    fn typed_names_the_flags_given_not_the_defaults() {
        let matches = Cli::command()
            .try_get_matches_from([
                "sowing",
                "train",
                "--resume",
                "runs/x",
                "--hidden",
                "64",
                "--minutes",
                "2",
            ])
            .unwrap();
        let mut train = typed(&matches, "train");
        train.sort();
        assert_eq!(train, ["hidden", "minutes", "resume"]);
        assert!(typed(&matches, "arena").is_empty());
    }
}

/// Every command line of the README and docs/ parses with the grammar above.
#[cfg(all(test, feature = "torch"))]
mod documented_commands;
