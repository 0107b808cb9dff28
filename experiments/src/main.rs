//! The `sowing` command: the rules, random play, benchmarks, and (as they land) training,
//! tournaments and variant comparison. Each subcommand lives in its own module with its own
//! `Args`; this file only dispatches.

mod arena;
mod play;
mod variants;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Sowing: an RL environment and training harness for the relay-sowing mancala games.
#[derive(Debug, Parser)]
#[command(name = "sowing", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the presets and their rules.
    Variants(variants::Args),
    /// Play agents against each other: every pairing from both sides, results and Elo ratings.
    Arena(arena::Args),
    /// Play a game in the terminal against an agent.
    Play(play::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Variants(args) => variants::run(args),
        Command::Arena(args) => arena::run(args),
        Command::Play(args) => play::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
