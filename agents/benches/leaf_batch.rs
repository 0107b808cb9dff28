//! Simulations per second of one game's search, as the agent `az:PATH:50ms` searches it, for
//! several leaves per forward pass (`leaves=N`, virtual losses between the walks of a batch):
//! en-dodoi-6, `make demo`'s network shape (a 128 x 4 MLP, seeded weights), 40 middle-game
//! positions (24 seeds or more on the board) of random games, 2,000 simulations each, one
//! thread; then the search of the agent's default (`TIMED_LEAVES`, 64) again beside a busy
//! neighbour (one more thread spinning).
//! Each through libtorch and without it (`az::Inference`, the forward pass the `az:` agent
//! plays with).
//! Run with `make bench` or `cargo bench -p sowing-agents --features torch --bench leaf_batch`.
//!
//! The settings alternate round by round, and the figure is the median over rounds, so that a
//! change in the machine's load touches all of them alike. A count of simulations rather than
//! a time keeps each setting's work fixed; simulations per second times 50 ms is what a 50 ms
//! move gets.

mod common;

use common::{beside_neighbour, median};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::az::{Body, Inference, NetConfig, PolicyValueNet};
use sowing_agents::puct::{BatchSearch, PuctConfig, SearchSpec, Trees, with_evaluator};
use sowing_agents::{Evaluator, TIMED_LEAVES};
use sowing_env::{Rules, State};
use std::time::Instant;
use tch::{Device, nn};

const ROUNDS: usize = 5;
const POSITIONS: usize = 40;
const SIMULATIONS: u32 = 2_000;
const LEAVES: [u32; 5] = [1, 4, 16, 32, 64];

/// The first position with at least 24 seeds on the board after 6 or more random plies, of
/// `count` random games.
fn middle_games(rules: &Rules, count: usize) -> Vec<State> {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut found = Vec::new();
    while found.len() < count {
        let mut state = State::initial(rules);
        let plies = rng.random_range(6..20);
        for _ in 0..plies {
            if state.is_over() {
                break;
            }
            let actions: Vec<usize> = state.legal_actions().collect();
            state = state
                .play(actions[rng.random_range(0..actions.len())])
                .unwrap();
        }
        if !state.is_over() && state.board().sum(0, 2 * state.holes()) >= 24 {
            found.push(state);
        }
    }
    found
}

/// Simulations per second of searching every position afresh with `leaves` leaves a pass.
fn rate(net: &mut dyn Evaluator, positions: &[State], leaves: u32) -> f64 {
    let spec = SearchSpec::from(PuctConfig {
        simulations: SIMULATIONS,
        c_puct: 0.5,
        dirichlet_alpha: 1.0,
        noise_fraction: 0.0,
        leaf_batch: leaves,
    });
    let mut search = BatchSearch::new();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let started = Instant::now();
    let mut simulations = 0u64;
    for state in positions {
        search.clear();
        let mut noise = [rng.clone()];
        let Ok(found) = search.run(
            std::slice::from_ref(state),
            Trees::Kept(&[0]),
            &spec,
            &mut noise,
            with_evaluator(net, &mut rng),
        );
        simulations += u64::from(found[0].search.visits.iter().sum::<u32>()) + 1;
    }
    simulations as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    tch::set_num_threads(1);
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let config = NetConfig {
        holes: 6,
        hidden: 128,
        blocks: 4,
        lookahead: true,
        body: Body::Mlp,
        span: None,
    };
    let vs = nn::VarStore::new(Device::Cpu);
    let mut net = PolicyValueNet::seeded(&vs.root(), config, 0);
    let positions = middle_games(&rules, POSITIONS);
    println!(
        "one game's search, en-dodoi-6, 128 x 4 network, {POSITIONS} middle-game positions, \
         {SIMULATIONS} simulations each, {ROUNDS} rounds, 1 thread"
    );
    let mut fast = Inference::of(&net).expect("an MLP on the CPU");
    rate(&mut net, &positions[..4], 16);
    rate(&mut fast, &positions[..4], 16);
    // The settings: each leaf count idle, then the default beside a busy neighbour; each through
    // libtorch and without it (`az::Inference`, what the `az:` agent plays with).
    let settings: Vec<(u32, bool, bool)> = [false, true]
        .into_iter()
        .flat_map(|without| {
            LEAVES
                .iter()
                .map(move |&l| (l, false, without))
                .chain([(TIMED_LEAVES, true, without)])
        })
        .collect();
    let mut rates = vec![Vec::new(); settings.len()];
    for _ in 0..ROUNDS {
        for (s, &(leaves, busy, without)) in settings.iter().enumerate() {
            rates[s].push(beside_neighbour(busy, || {
                let evaluator: &mut dyn Evaluator = if without { &mut fast } else { &mut net };
                rate(evaluator, &positions, leaves)
            }));
        }
    }
    let one = median(rates[0].clone());
    for (s, &(leaves, busy, without)) in settings.iter().enumerate() {
        let r = median(rates[s].clone());
        let beside = if busy { ", busy neighbour" } else { "" };
        let plural = if leaves == 1 { "leaf" } else { "leaves" };
        let how = if without {
            "without libtorch"
        } else {
            "libtorch"
        };
        let libtorch = median(rates[s % (LEAVES.len() + 1)].clone());
        println!(
            "{how}, {leaves:>2} {plural} a pass{beside}: {r:.0} simulations/s ({:.0} in 50 ms), \
             {:.1}x libtorch's one leaf, {:.2}x libtorch's",
            r * 0.05,
            r / one,
            r / libtorch
        );
    }
}
