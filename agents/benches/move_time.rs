//! Where a timed move's search spends its time, as the agent `az:RUN:50ms` searches it (64
//! leaves a pass, its run's c_puct, no noise, a fresh tree each position, one thread): by phase
//! (seeds on the board), the simulations a move, the leaves the network valued (the other walks
//! end in a finished game), the leaves a forward pass, and the share of the time in the forward
//! pass; then the forward pass alone, per position, for passes of 1 to 128 positions, idle and
//! beside a busy neighbour, on the machine's fastest kernel (`az::dense`). `docs/strength.md`
//! ("Where a 50 ms move's time goes", "The forward pass with its weights packed once") reads it.
//!
//! The network is `SOWING_BENCH_NET` (a run directory or checkpoint of an MLP), else a seeded
//! 128 x 4 MLP of `make demo`'s shape, whose flat priors give a shallower tree than a trained
//! network's; the positions are `SOWING_BENCH_POSITIONS` (a positions file of en-dodoi-8, such as
//! `sowing review --positions-out` writes), else the committed set of en-dodoi-8; at most 100 of
//! each phase.
//! Run with `make bench` or `cargo bench -p sowing-agents --features torch --bench move_time`.

mod common;

use common::{beside_neighbour, median};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::az::{Body, Inference, NetConfig, Playing, PolicyValueNet};
use sowing_agents::puct::{BatchSearch, PuctConfig, SearchSpec, Trees};
use sowing_agents::{Evaluation, Evaluator, MAX_NETWORK_SIMULATIONS, TIMED_LEAVES};
use sowing_env::{MAX_HOLES, Rules, State};
use sowing_exact::positions::PositionSet;
use std::convert::Infallible;
use std::path::Path;
use std::time::{Duration, Instant};
use tch::{Device, nn};

const MOVE: Duration = Duration::from_millis(50);
const PER_PHASE: usize = 100;
/// Phases by seeds on the board: at least the first bound, below the second.
const PHASES: [(u32, u32); 3] = [(8, 16), (16, 24), (24, u32::MAX)];
const ROWS: [usize; 6] = [1, 8, 16, 32, 64, 128];
const ROUNDS: usize = 5;

/// Floating-point operations of one position's forward pass through an MLP of `config`: the
/// products of its layers (input, two per block, the policy and the value's two), as wide as
/// the layers are laid out (a span's), two operations per multiply-add.
fn flops(config: &NetConfig) -> f64 {
    let h = config.hidden;
    let layers = config.layer_input_len() * h
        + config.blocks * 2 * h * h
        + h * config.width()
        + h * (h / 2)
        + h / 2;
    2.0 * layers as f64
}

fn seeds_on_board(state: &State) -> u32 {
    state.board().sum(0, 2 * state.holes())
}

/// The network to measure and the c_puct it plays with.
fn network() -> (Inference, f32, String) {
    if let Some(path) = std::env::var_os("SOWING_BENCH_NET") {
        let path = Path::new(&path);
        let (net, meta) = Playing::load(path).unwrap_or_else(|e| panic!("{e}"));
        let Playing::Fast(fast) = net else {
            panic!("{} is not an MLP on the CPU", path.display());
        };
        return (fast, meta.args.c_puct, path.display().to_string());
    }
    let config = NetConfig {
        holes: 8,
        hidden: 128,
        blocks: 4,
        lookahead: true,
        body: Body::Mlp,
        span: None,
    };
    let vs = nn::VarStore::new(Device::Cpu);
    let net = PolicyValueNet::seeded(&vs.root(), config, 0);
    let fast = Inference::of(&net).expect("an MLP on the CPU");
    (fast, 0.5, "a seeded 128 x 4 MLP".to_owned())
}

/// The positions of each phase, at most [`PER_PHASE`] each, in the file's order.
fn positions() -> (Vec<Vec<State>>, String) {
    let (path, name) = match std::env::var_os("SOWING_BENCH_POSITIONS") {
        Some(p) => (Path::new(&p).to_owned(), p.to_string_lossy().into_owned()),
        None => {
            let p =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/positions/en-dodoi-8.jsonl");
            (p, "the committed set of en-dodoi-8".to_owned())
        }
    };
    let set = PositionSet::read(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        *set.rules(),
        Rules::preset("en-dodoi-8").expect("a preset"),
        "the positions are of en-dodoi-8"
    );
    let phases = PHASES
        .iter()
        .map(|&(lo, hi)| {
            set.positions
                .iter()
                .map(|p| p.state)
                .filter(|s| (lo..hi).contains(&seeds_on_board(s)) && !s.is_over())
                .take(PER_PHASE)
                .collect()
        })
        .collect();
    (phases, name)
}

/// What the searches of one phase did, summed over its positions.
#[derive(Default)]
struct Spent {
    positions: usize,
    simulations: u64,
    valued: u64,
    passes: u64,
    in_network: Duration,
    total: Duration,
}

fn search_phase(net: &mut Inference, c_puct: f32, states: &[State]) -> Spent {
    let spec = SearchSpec {
        time: Some(MOVE),
        ..SearchSpec::from(PuctConfig {
            simulations: MAX_NETWORK_SIMULATIONS,
            c_puct,
            dirichlet_alpha: 1.0,
            noise_fraction: 0.0,
            leaf_batch: TIMED_LEAVES,
        })
    };
    let mut search = BatchSearch::new();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut spent = Spent::default();
    for state in states {
        let mut noise = [rng.clone()];
        let started = Instant::now();
        let Ok::<_, Infallible>(found) = search.run(
            std::slice::from_ref(state),
            Trees::Fresh,
            &spec,
            &mut noise,
            |leaves: &[State], out: &mut [Evaluation]| {
                let t = Instant::now();
                net.evaluate_batch(leaves, &mut rng, out);
                spent.in_network += t.elapsed();
                spent.valued += leaves.len() as u64;
                spent.passes += 1;
                Ok(())
            },
        );
        spent.total += started.elapsed();
        spent.positions += 1;
        // The root's own evaluation is a simulation too.
        spent.simulations += u64::from(found[0].search.visits.iter().sum::<u32>()) + 1;
    }
    spent
}

/// Microseconds a position of the forward pass (input encoding and priors' softmax included)
/// in passes of `rows` positions.
fn forward_us(net: &mut Inference, states: &[State], rows: usize) -> f64 {
    let batch: Vec<State> = states.iter().cycle().take(rows).copied().collect();
    let neutral = Evaluation {
        priors: [0.0; MAX_HOLES],
        value: 0.0,
    };
    let mut out = vec![neutral; rows];
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let passes = (20_000 / rows).max(1);
    let started = Instant::now();
    for _ in 0..passes {
        net.evaluate_batch(&batch, &mut rng, &mut out);
    }
    started.elapsed().as_secs_f64() * 1e6 / (passes * rows) as f64
}

fn main() {
    let (mut net, c_puct, net_name) = network();
    let (phases, positions_name) = positions();
    println!(
        "a 50 ms move's search, {net_name}, positions of {positions_name}, {TIMED_LEAVES} leaves \
         a pass, c_puct {c_puct}, one thread, the {:?} kernel",
        net.kernel()
    );
    for (&(lo, hi), states) in PHASES.iter().zip(&phases) {
        let label = if hi == u32::MAX {
            format!("{lo}+ seeds")
        } else {
            format!("{lo}-{} seeds", hi - 1)
        };
        if states.is_empty() {
            println!("{label}: no positions");
            continue;
        }
        let s = search_phase(&mut net, c_puct, states);
        let n = s.positions as f64;
        println!(
            "{label} ({} positions): {:.0} simulations a move, {:.0} leaves valued ({:.0}%), \
             {:.1} leaves a pass, {:.0}% of the time in the forward pass",
            s.positions,
            s.simulations as f64 / n,
            s.valued as f64 / n,
            100.0 * s.valued as f64 / s.simulations as f64,
            s.valued as f64 / s.passes.max(1) as f64,
            100.0 * s.in_network.as_secs_f64() / s.total.as_secs_f64()
        );
    }
    let sample: Vec<State> = phases.iter().flatten().copied().collect();
    let flops = flops(&net.config());
    for busy in [false, true] {
        let beside = if busy { ", busy neighbour" } else { "" };
        for rows in ROWS {
            let us = median(
                (0..ROUNDS)
                    .map(|_| beside_neighbour(busy, || forward_us(&mut net, &sample, rows)))
                    .collect(),
            );
            println!(
                "forward pass, passes of {rows:>3}{beside}: {us:.2} us a position ({:.1} GFLOP/s)",
                flops / us / 1e3
            );
        }
    }
}
