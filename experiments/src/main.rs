//! The `sowing` command: the rules, random play, benchmarks, and (as they land) training,
//! tournaments and variant comparison. Each subcommand lives in its own module with its own
//! `Args`; this file only dispatches.

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Variants(args) => variants::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
