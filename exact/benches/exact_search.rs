//! Exact search speed, in positions (nodes) per second, on one thread: the result search
//! labelling the mid-game and endgame positions of the committed en-dodoi-6 set (every move
//! of each, as `sowing positions` labels them) with a table of `SOWING_TB_SEEDS` seeds (default
//! 14), by proof numbers and depth first, and the win prover bracketing en-dodoi-6's start with the same table. Run with
//! `cargo bench -p sowing-exact --bench exact_search`. Nodes per CPU-second (from
//! `/proc/thread-self/schedstat`) are given beside the wall-clock rate, which a busy machine
//! dilutes.

use sowing_env::{Rules, State};
use sowing_exact::Solver;
use sowing_exact::positions::PositionSet;
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use sowing_exact::value::{Order, ResultSearch};
use std::sync::Arc;
use std::time::Instant;

/// Seconds this thread has spent on a CPU, where the kernel tells.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// "N M nodes/s (M per CPU-second)" for `nodes` made since `wall` and `cpu`.
fn rate(nodes: u64, wall: Instant, cpu: Option<f64>) -> String {
    let mut line = format!(
        "{nodes} nodes in {:.1} s, {:.2} M nodes/s",
        wall.elapsed().as_secs_f64(),
        nodes as f64 / wall.elapsed().as_secs_f64() / 1e6
    );
    if let (Some(a), Some(b)) = (cpu, cpu_seconds()) {
        line.push_str(&format!(
            " ({:.2} M per CPU-second)",
            nodes as f64 / (b - a) / 1e6
        ));
    }
    line
}

fn main() {
    let seeds: u32 = std::env::var("SOWING_TB_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(14);
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let table = Arc::new(
        Tablebase::build(&rules, seeds, &BuildOptions::default()).expect("a small table fits"),
    );
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/positions/en-dodoi-6.jsonl"
    );
    let set = PositionSet::read(path).expect("the committed set");

    // The result search on the set's positions the table does not hold, 2 million nodes each
    // at most (the default of `sowing positions`), the transposition table cleared before each,
    // in both orders: what each settles, and how fast it makes positions.
    let outside: Vec<&State> = set
        .positions
        .iter()
        .map(|p| &p.state)
        .filter(|s| table.value(s).is_none())
        .take(200)
        .collect();
    for order in [Order::ProofNumber, Order::DepthFirst] {
        let mut search = ResultSearch::new(22)
            .with_tablebase(Arc::clone(&table))
            .with_order(order);
        let (wall, cpu) = (Instant::now(), cpu_seconds());
        let (mut nodes, mut settled) = (0u64, 0usize);
        for state in &outside {
            search.clear();
            settled += usize::from(search.move_results(state, 2_000_000).is_some());
            nodes += search.nodes();
        }
        println!(
            "result search ({order:?}), {} positions of en-dodoi-6 beyond a {seeds}-seed table \
             ({settled} settled), one thread: {}",
            outside.len(),
            rate(nodes, wall, cpu)
        );
    }

    // The prover: en-dodoi-6's start, South's lead of 8 and the refutation of 10.
    let mut solver = Solver::new(22).with_tablebase(table);
    let start = State::initial(&rules);
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let at_least = solver.prove_margin(&start, 8, 200_000_000, 199, false);
    let above = solver.prove_margin(&start, 10, 200_000_000, 199, true);
    assert!(
        at_least.winning.is_some() && above.lost(&start),
        "the start's value"
    );
    println!(
        "win prover, en-dodoi-6's start bracketed at +8 with a {seeds}-seed table, one thread: {}",
        rate(at_least.nodes + above.nodes, wall, cpu)
    );
}
