//! Endgame positions labelled by a tablebase, for measuring accuracy (docs/accuracy.md) before
//! the committed sets of `sowing positions` (issue 15, item 4) reach every phase: games between
//! two strong agents from random openings, a few positions of each game that the table holds (at
//! most K seeds on the board), every move labelled by the table.
//!
//! `cargo run --release -p sowing-experiments --example endgame_positions -- --variant
//! en-dodoi-6 --tablebase en-dodoi-6-20.tb --count 2000 --seed 0 --out endgames.jsonl`

use clap::Parser;
use rand::seq::SliceRandom;
use sowing_agents::from_spec;
use sowing_agents::matches::{self, Match, Pairing, Salts, Seat};
use sowing_agents::positions::{ExactPosition, PositionSet};
use sowing_agents::stream;
use sowing_agents::tablebase::Tablebase;
use sowing_env::{Rules, State};
use std::path::PathBuf;

#[derive(Debug, Parser)]
struct Args {
    /// Preset of the games.
    #[arg(long)]
    variant: String,
    /// The tablebase that labels the positions (of the variant's rules).
    #[arg(long)]
    tablebase: PathBuf,
    /// Positions to write.
    #[arg(long)]
    count: usize,
    /// Seed of the games and of the choice of positions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The two agents that play the games, each half of them as South.
    #[arg(long, default_value = "alphabeta:6,mcts:1000")]
    agents: String,
    /// Random plies that open each game.
    #[arg(long, default_value_t = 2)]
    opening: u32,
    /// The most positions taken from one game, drawn at random among those the table holds.
    #[arg(long, default_value_t = 4)]
    per_game: usize,
    /// Threads to play on (default: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// The file to write.
    #[arg(long)]
    out: PathBuf,
}

/// Games are played in rounds of this many, until the positions are found.
const ROUND: u64 = 100;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let rules = Rules::preset(&args.variant)?;
    let table = Tablebase::open_for(&args.tablebase, &rules)?;
    let agents: Vec<&str> = args.agents.split(',').map(str::trim).collect();
    let [a, b] = agents[..] else {
        return Err("--agents takes two specs".into());
    };
    let mut found: Vec<ExactPosition> = Vec::new();
    let mut games = 0;
    while found.len() < args.count {
        let m = Match {
            rules,
            seed: args.seed,
            salts: Salts::ARENA,
            opening_plies: args.opening,
            pairings: vec![Pairing {
                a: 0,
                b: 1,
                games: games..games + ROUND,
            }],
            threads: args.threads,
            keep_records: true,
        };
        let mut seats = [a, b].map(|spec| Seat::Agent {
            spec: spec.to_string(),
            factory: &from_spec,
        });
        let played = matches::play(&m, &mut seats, &mut |_| {})?;
        for game in &played.games {
            let record = game.record.as_ref().expect("records were kept");
            let mut state = State::initial(&rules);
            let mut held = Vec::new();
            for &action in &record.moves {
                if let Some(p) = ExactPosition::from_tablebase(&state, &table) {
                    held.push(p);
                }
                state = state.play(action)?;
            }
            held.shuffle(&mut stream(args.seed, 0x656e_6467_616d_6573, game.game));
            held.truncate(args.per_game.min(args.count - found.len()));
            // In the order they were played, so that a prefix of the file is a set of its own.
            held.sort_by_key(|p| p.state.ply());
            found.extend(held);
        }
        games += ROUND;
        eprintln!("{games} games: {} positions", found.len());
    }
    let made_by = serde_json::json!({
        "tool": "cargo run --example endgame_positions",
        "variant": args.variant,
        "tablebase": args.tablebase,
        "max_seeds": table.max_seeds(),
        "agents": args.agents,
        "opening": args.opening,
        "per_game": args.per_game,
        "seed": args.seed,
        "games": games,
    });
    PositionSet::new(rules, made_by, 0, found).write(&args.out)?;
    eprintln!("wrote {} positions to {}", args.count, args.out.display());
    Ok(())
}
