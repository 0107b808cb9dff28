//! The result search on a committed set's positions that a table does not hold, by phase of 8
//! seeds: how many it settles within a budget, the positions it makes, and whether its labels
//! equal the committed ones. `TB=FILE` (a table of the set's rules), `SET` (default
//! `data/positions/en-dodoi-6.jsonl`), `NODES` (default 2,000,000), `LO` (the lowest phase,
//! default 24), `PER` (positions per phase, default 20), `DFS=1` for the depth-first order:
//!
//! `TB=en-dodoi-6-16.tb cargo run --release -p sowing-exact --example settle`
use sowing_exact::positions::PositionSet;
use sowing_exact::tablebase::Tablebase;
use sowing_exact::value::ResultSearch;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let tb = std::env::var("TB").expect("TB=table file");
    let budget: u64 = std::env::var("NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let lo: u32 = std::env::var("LO")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let per: usize = std::env::var("PER")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let set_path = std::env::var("SET").unwrap_or("data/positions/en-dodoi-6.jsonl".into());
    let table = Arc::new(Tablebase::open(&tb).expect("table"));
    let set = PositionSet::read(&set_path).expect("set");
    let order = if std::env::var("DFS").is_ok() {
        sowing_exact::value::Order::DepthFirst
    } else {
        sowing_exact::value::Order::ProofNumber
    };
    let mut search = ResultSearch::new(22)
        .with_tablebase(Arc::clone(&table))
        .with_order(order);
    let mut phase = lo / 8 * 8;
    while phase < 72 {
        let picked: Vec<_> = set
            .positions
            .iter()
            .filter(|p| {
                p.state.board().sum(0, 2 * p.state.holes()) / 8 * 8 == phase
                    && table.value(&p.state).is_none()
            })
            .take(per)
            .collect();
        if picked.is_empty() {
            phase += 8;
            continue;
        }
        let t = Instant::now();
        let (mut nodes, mut settled, mut wrong) = (0u64, 0, 0);
        for p in &picked {
            search.clear();
            let r = search.move_results(&p.state, budget);
            nodes += search.nodes();
            if let Some(r) = r {
                settled += 1;
                let same = r
                    .iter()
                    .zip(&p.moves)
                    .all(|((a, w), m)| *a == m.action && *w == m.result);
                if !same || r.len() != p.moves.len() {
                    wrong += 1;
                }
            }
        }
        println!(
            "{:2}-{:2}: {:3} positions, {:3} settled, {} disagree, {:.0} k nodes/position, {:.2} s",
            phase,
            phase + 7,
            picked.len(),
            settled,
            wrong,
            nodes as f64 / picked.len() as f64 / 1e3,
            t.elapsed().as_secs_f64()
        );
        phase += 8;
    }
}
