//! Self-play positions per second on 1 thread and on 2, as `sowing train` plays them (en-dodoi-6,
//! a 64 x 2 MLP and the trainer's search: 64 simulations, 256 games of an iteration, dealt to one
//! worker per thread with a copy of the network each, 128 at once per worker), and the same with
//! a busy neighbour: one more thread spinning for the whole round, as another program would.
//! Each through libtorch, as self-play played before, and without it (`az::Inference`, as the
//! trainer plays now).
//! Run with `make bench` or `cargo bench -p sowing-agents --features torch --bench self_play`;
//! target: 2 threads at least 1.7 times 1 thread on an idle 2-core machine.
//!
//! The settings alternate round by round (1 thread, 2 threads, each with and without the
//! neighbour), every setting playing the same games in a round, so that a change in the machine's
//! load touches all of them alike; the figure is the median over rounds. Beside wall-clock rates
//! the idle settings give positions per CPU-second of the process (`getrusage`), which shows
//! whether threads lose work to each other (a lower figure on 2 threads) or only wait for a core.

mod common;

use common::{beside_neighbour, median};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::Evaluator;
use sowing_agents::az::{Body, Inference, NetConfig, PolicyValueNet};
use sowing_agents::puct::self_play::{self, SelfPlayConfig};
use sowing_agents::puct::{PuctConfig, SearchSpec};
use sowing_env::{Rules, State};
use std::convert::Infallible;
use std::time::Instant;
use tch::{Device, nn};

/// Rounds of the four settings.
const ROUNDS: u32 = 5;
/// Games of each setting in a round: one iteration of the trainer's defaults.
const GAMES: u32 = 256;
const PARALLEL: u32 = 128;

/// CPU seconds this process has used, user and system.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given and touches nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Positions per wall-clock second and per CPU-second of one round of `threads` workers
/// playing the games of iteration `round`.
fn round(
    net: &nn::VarStore,
    config: NetConfig,
    threads: usize,
    parallel: u32,
    round: u32,
    fast: bool,
) -> (f64, f64) {
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let play = SelfPlayConfig {
        search: SearchSpec::from(PuctConfig {
            simulations: 64,
            c_puct: 0.5,
            dirichlet_alpha: 1.0,
            noise_fraction: 0.25,
            leaf_batch: 1,
        }),
        temperature_plies: 12,
        opening_plies: 4,
        value_mix: 0.5,
        margin_weight: 0.0,
        lookahead: true,
        playout_cap: None,
    };
    // Copies made before the clock starts, as the trainer's are a negligible part of its
    // iteration.
    let evaluators: Vec<_> = (0..threads)
        .map(|_| {
            let mut vs = nn::VarStore::new(Device::Cpu);
            let mut copy = PolicyValueNet::new(&vs.root(), config);
            vs.copy(net).expect("same shape");
            let mut inference = Inference::of(&copy).filter(|_| fast);
            let mut rng = ChaCha8Rng::seed_from_u64(0);
            move |states: &[State], out: &mut [_]| {
                let _variables = &vs;
                match &mut inference {
                    Some(inference) => inference.evaluate_batch(states, &mut rng, out),
                    None => copy.evaluate_batch(states, &mut rng, out),
                }
                Ok::<(), Infallible>(())
            }
        })
        .collect();
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let Ok(played) = self_play::play_dealt(
        &rules,
        &play,
        7,
        round,
        0,
        GAMES,
        parallel * threads as u32,
        evaluators,
        &mut |_| {},
    );
    let positions = played.samples.len() as f64;
    (
        positions / wall.elapsed().as_secs_f64(),
        positions / (cpu_seconds() - cpu),
    )
}

fn main() {
    tch::set_num_threads(1);
    let config = NetConfig {
        holes: 6,
        hidden: 64,
        blocks: 2,
        lookahead: true,
        body: Body::Mlp,
        span: None,
    };
    let vs = nn::VarStore::new(Device::Cpu);
    let _net = PolicyValueNet::seeded(&vs.root(), config, 0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "self-play, en-dodoi-6, 64 simulations, {GAMES} games ({PARALLEL} at once per worker), \
         {ROUNDS} rounds, {cores} cores"
    );
    // Warm up: the first forward passes allocate.
    round(&vs, config, 2, PARALLEL, 0, false);
    round(&vs, config, 2, PARALLEL, 0, true);
    // Each setting: threads, a busy neighbour, the forward pass without libtorch
    // (`az::Inference`, as the trainer plays), and the games at once per worker. The fifth is one
    // thread with half the games at once, the batch each of two workers had when the trainer
    // shared --parallel-games among them: beside the first, it shows what the smaller batch
    // alone costs. The first five go through libtorch, as self-play did before `Inference`.
    let settings = [
        (1, false, false, PARALLEL),
        (2, false, false, PARALLEL),
        (1, true, false, PARALLEL),
        (2, true, false, PARALLEL),
        (1, false, false, PARALLEL / 2),
        (1, false, true, PARALLEL),
        (2, false, true, PARALLEL),
        (1, true, true, PARALLEL),
        (2, true, true, PARALLEL),
    ];
    let mut rates = vec![(Vec::new(), Vec::new()); settings.len()];
    for r in 1..=ROUNDS {
        for (s, &(threads, busy, fast, parallel)) in settings.iter().enumerate() {
            let (wall, cpu) =
                beside_neighbour(busy, || round(&vs, config, threads, parallel, r, fast));
            rates[s].0.push(wall);
            rates[s].1.push(cpu);
        }
    }
    let medians: Vec<(f64, f64)> = rates
        .into_iter()
        .map(|(wall, cpu)| (median(wall), median(cpu)))
        .collect();
    for (s, &(threads, busy, fast, parallel)) in settings.iter().enumerate() {
        let (wall, cpu) = medians[s];
        let how = if fast { "without libtorch" } else { "libtorch" };
        let plural = if threads == 1 { "" } else { "s" };
        if parallel != PARALLEL {
            println!(
                "{how}, 1 thread, {parallel} games at once: {wall:.0} positions/s ({cpu:.0} per CPU-second)"
            );
        } else if busy {
            // The neighbour's spinning counts in the process's CPU time: no per-CPU figure there.
            println!("{how}, {threads} thread{plural}, busy neighbour: {wall:.0} positions/s");
        } else {
            println!(
                "{how}, {threads} thread{plural}: {wall:.0} positions/s ({cpu:.0} per CPU-second)"
            );
        }
    }
    println!(
        "without libtorch / libtorch: {:.2}x on 1 thread, {:.2}x on 2, {:.2}x on 2 beside a busy neighbour",
        medians[5].0 / medians[0].0,
        medians[6].0 / medians[1].0,
        medians[8].0 / medians[3].0
    );
    println!(
        "2 threads / 1 thread: {:.2}x idle (target 1.7x), {:.2}x beside a busy neighbour; \
         without libtorch {:.2}x idle, {:.2}x beside it",
        medians[1].0 / medians[0].0,
        medians[3].0 / medians[2].0,
        medians[6].0 / medians[5].0,
        medians[8].0 / medians[7].0
    );
}
