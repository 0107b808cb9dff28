//! Search speed on one thread, on en-dodoi-8, from positions of random games: alpha-beta nodes
//! per second (nodes are positions made) and MCTS simulations per second (random rollouts).
//! Run with `cargo bench -p sowing-agents`; targets: 2,000,000 nodes/s and 40,000 simulations/s.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::{AlphaBeta, Budget, Mcts};
use sowing_env::{Rules, State, random_action};
use std::time::Instant;

/// Positions to search: one from each of this many random games.
const POSITIONS: usize = 40;

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
    let (mut nodes, mut seconds) = (0u64, 0.0f64);
    for s in &start {
        sowing_agents::Agent::new_game(&mut ab);
        let t = Instant::now();
        ab.search(s, depth);
        seconds += t.elapsed().as_secs_f64();
        nodes += ab.last_search().nodes;
    }
    println!(
        "alphabeta depth {depth}: {nodes} nodes in {seconds:.2} s over {POSITIONS} positions: {:.2} M nodes/s (target 2 M)",
        nodes as f64 / seconds / 1e6
    );

    let sims = 4000;
    let mut mcts = Mcts::new(Budget::Count(sims));
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let t = Instant::now();
    for s in &start {
        mcts.search(s, &mut rng);
    }
    let seconds = t.elapsed().as_secs_f64();
    let total = sims as f64 * POSITIONS as f64;
    println!(
        "mcts {sims} simulations: {total} simulations in {seconds:.2} s over {POSITIONS} positions: {:.0} k simulations/s (target 40 k)",
        total / seconds / 1e3
    );
}
