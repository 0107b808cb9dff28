//! What a network guide buys the exact result search, measured: the first `N` positions of a
//! set with `LO..=HI` seeds on the board, settled within `NODES` positions each (default 2
//! million) with the table `TB` at the leaves, unguided (depth -1) and guided by the network of
//! `RUN` to each depth of `DEPTHS`; per depth the positions settled, positions made, leaves
//! judged and seconds, per position. The guide plays the network as `sowing` does
//! ([`NetworkGuide`], without libtorch for an MLP); with `TORCH=1` each depth is searched again
//! with the same network through libtorch, as the guide did before 7 December 2026, so that the
//! two forward passes' costs compare on one machine. Figures in docs/exact.md.
//!
//! ```sh
//! git show a8f531e:data/positions/en-dodoi-8.jsonl > en-dodoi-8-a8f531e.jsonl
//! SET=en-dodoi-8-a8f531e.jsonl TB=en-dodoi-8-16.tb LO=30 HI=38 N=12 \
//!     RUN=runs/guide-en-dodoi-8 DEPTHS=-1,6,12 TORCH=1 \
//!     cargo run --release -p sowing-train --features torch --example guided_search
//! ```
use sowing_agents::az::{LoadedNet, NetworkGuide, Playing, load_checkpoint};
use sowing_exact::ResultSearch;
use sowing_exact::positions::PositionSet;
use sowing_exact::tablebase::Tablebase;
use sowing_exact::value::{Guidance, Guide};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("set {name} (see the file's opening lines)"))
}

fn main() {
    let set = PositionSet::read(var("SET")).unwrap();
    let table = Arc::new(Tablebase::open_for(var("TB"), set.rules()).unwrap());
    let lo: u32 = var("LO").parse().unwrap();
    let hi: u32 = var("HI").parse().unwrap();
    let n: usize = var("N").parse().unwrap();
    let budget: u64 = std::env::var("NODES")
        .map(|v| v.parse().unwrap())
        .unwrap_or(2_000_000);
    let holes = 2 * set.rules().holes();
    let states: Vec<_> = set
        .positions
        .iter()
        .map(|p| p.state)
        .filter(|s| (lo..=hi).contains(&s.board().sum(0, holes)))
        .take(n)
        .collect();
    let run = std::env::var("RUN").ok();
    let torch = std::env::var("TORCH").is_ok_and(|v| v == "1");
    for depth in var("DEPTHS").split(',') {
        let depth: i64 = depth.parse().unwrap();
        let passes: &[&str] = match (depth >= 0, torch) {
            (false, _) => &["none"],
            (true, false) => &["fast"],
            (true, true) => &["fast", "libtorch"],
        };
        for &pass in passes {
            let mut search = ResultSearch::new(22).with_tablebase(Arc::clone(&table));
            if depth >= 0 {
                let path = Path::new(run.as_ref().expect("set RUN for a guided depth"));
                let guide: Box<dyn Guide> = if pass == "fast" {
                    let g = NetworkGuide::load(path, set.rules()).unwrap();
                    assert!(g.is_fast(), "an MLP network plays without libtorch");
                    Box::new(g)
                } else {
                    // Through libtorch on one thread, as the guide played before 7 December.
                    tch::set_num_threads(1);
                    let LoadedNet { net, vs, .. } = load_checkpoint(path).unwrap();
                    Box::new(NetworkGuide::new(Playing::Torch(net, vs)))
                };
                search = search.with_guide(
                    guide,
                    Guidance {
                        depth: depth as u32,
                    },
                );
            }
            let (mut settled, mut nodes, mut judged) = (0, 0u64, 0u64);
            let t = Instant::now();
            for s in &states {
                search.clear();
                settled += usize::from(search.result(s, budget).is_some());
                nodes += search.nodes();
                judged += search.judged();
            }
            println!(
                "depth {depth:>3} ({pass}): {settled}/{} settled, {:.0} nodes/position, {:.0} judged/position, {:.2} s/position",
                states.len(),
                nodes as f64 / states.len() as f64,
                judged as f64 / states.len() as f64,
                t.elapsed().as_secs_f64() / states.len() as f64
            );
        }
    }
}
