//! Search speed on one thread, on en-dodoi-8, from positions of random games: alpha-beta nodes
//! per second (nodes are positions made) and MCTS simulations per second (random rollouts).
//! Run with `cargo bench -p sowing-agents`; targets: 2,000,000 nodes/s and 40,000 simulations/s.
//!
//! Each figure is given per second of wall-clock time and, on Linux, per second this thread
//! spent on a CPU (from `/proc/thread-self/schedstat`), which other work on a busy machine does
//! not dilute.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::{AlphaBeta, Budget, Mcts};
use sowing_env::{Rules, State, random_action};
use std::time::Instant;

/// Positions to search: one from each of this many random games.
const POSITIONS: usize = 40;

/// Seconds this thread has spent on a CPU, where the kernel tells.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// A clock for one measurement: wall time and, where known, CPU time.
struct Clock(Instant, Option<f64>);

impl Clock {
    fn start() -> Clock {
        Clock(Instant::now(), cpu_seconds())
    }
    /// "`count / wall` unit/s (`count / cpu` per CPU-second)".
    fn rate(&self, count: f64, scale: f64, unit: &str) -> String {
        let wall = self.0.elapsed().as_secs_f64();
        let mut s = format!("{:.2} {unit}/s", count / wall / scale);
        if let (Some(a), Some(b)) = (self.1, cpu_seconds()) {
            s.push_str(&format!(
                " ({:.2} {unit} per CPU-second)",
                count / (b - a) / scale
            ));
        }
        s
    }
}

/// One position from each random game, at a uniformly chosen ply before its end.
fn positions(rules: &Rules, count: usize, seed: u64) -> Vec<State> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut game = vec![State::initial(rules)];
        while let Some(a) = random_action(game.last().expect("not empty"), &mut rng) {
            let next = game.last().expect("not empty").play_unchecked(a);
            game.push(next);
        }
        let playable: Vec<State> = game.into_iter().filter(|s| s.legal_count() > 1).collect();
        if !playable.is_empty() {
            out.push(playable[rng.random_range(0..playable.len())]);
        }
    }
    out
}

fn main() {
    let rules = Rules::preset("en-dodoi-8").expect("a preset");
    let start = positions(&rules, POSITIONS, 1);

    let depth = 9;
    let mut ab = AlphaBeta::new(Budget::Count(depth));
    let mut nodes = 0u64;
    let clock = Clock::start();
    for s in &start {
        sowing_agents::Agent::new_game(&mut ab);
        ab.search(s, depth);
        nodes += ab.last_search().nodes;
    }
    println!(
        "alphabeta depth {depth}, {POSITIONS} positions, {nodes} nodes: {} (target 2 M)",
        clock.rate(nodes as f64, 1e6, "M nodes")
    );

    let sims = 4000;
    let mut mcts = Mcts::new(Budget::Count(sims));
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let clock = Clock::start();
    for s in &start {
        mcts.search(s, &mut rng);
    }
    let total = sims as f64 * POSITIONS as f64;
    println!(
        "mcts {sims} simulations, {POSITIONS} positions: {} (target 40 k)",
        clock.rate(total, 1e3, "k simulations")
    );
}
