//! Helpers of the trainer's tests: the arguments of a tiny training run, and (from
//! `exact/tests/common`) endgame positions of random games.
#![allow(dead_code)]

#[path = "../../../exact/tests/common/mod.rs"]
mod shared;
#[allow(unused_imports)]
pub use shared::*;

/// The arguments of a tiny one-iteration run on en-dodoi-6 into `out`: a network that plays legal
/// moves in seconds, and little else.
pub fn tiny_args(out: &std::path::Path) -> sowing_train::Args {
    use clap::Parser;
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: sowing_train::Args,
    }
    Cli::parse_from([
        "train",
        "--variant",
        "en-dodoi-6",
        "--iterations",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--hidden",
        "8",
        "--blocks",
        "1",
        "--simulations",
        "4",
        "--games-per-iteration",
        "2",
        "--batch-size",
        "16",
        "--replay-capacity",
        "500",
        "--eval-games",
        "0",
        "--threads",
        "1",
    ])
    .args
}
