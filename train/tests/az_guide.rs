//! The trained network guiding the exact proof-number search: it loads from a run of its own
//! rules and is refused, naming both rule sets, for others; with it the search gives the same
//! results as without, asking the network about leaves near the root only; it plays the network
//! without libtorch, as the `az:` agent does, judging as libtorch's network does.
#![cfg(feature = "torch")]

mod common;

use common::{endgames, tiny_args};
use sowing_agents::Evaluation;
use sowing_agents::az::{NetworkGuide, load_checkpoint};
use sowing_env::{MAX_HOLES, Rules};
use sowing_exact::ResultSearch;
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use sowing_exact::value::{Guidance, Guide, Lean};
use sowing_train::Trainer;
use std::sync::Arc;

#[test]
fn a_guided_search_gives_the_same_results_and_other_rules_are_refused() {
    let dir = std::env::temp_dir().join(format!("sowing-azguide-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Trainer::new(tiny_args(&dir))
        .unwrap()
        .iterate(&mut |_| {})
        .unwrap();
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let other = Rules::preset("en-dodoi-7").unwrap();
    let e = NetworkGuide::load(&dir, &other).unwrap_err().to_string();
    assert!(
        e.contains(&rules.summary()) && e.contains(&other.summary()) && e.contains("trained on"),
        "{e}"
    );
    // The guide plays the network as the az: agent does: without libtorch (an MLP on the CPU),
    // judging as libtorch's network does to within float rounding.
    let mut guide = NetworkGuide::load(&dir, &rules).unwrap();
    assert!(guide.is_fast());
    let states = endgames("en-dodoi-6", 9..=16, 20, 5);
    let mut leans = vec![Lean::default(); states.len()];
    guide.lean(&states, &mut leans);
    let loaded = load_checkpoint(&dir).unwrap();
    let mut want = vec![
        Evaluation {
            priors: [0.0; MAX_HOLES],
            value: 0.0
        };
        states.len()
    ];
    loaded.net.evaluate_states(&states, &mut want);
    for (lean, e) in leans.iter().zip(&want) {
        assert!((lean.value - e.value).abs() < 2e-5, "{lean:?} {e:?}");
        for (p, q) in lean.priors.iter().zip(&e.priors) {
            assert!((p - q).abs() < 2e-5, "{lean:?} {e:?}");
        }
    }
    let table = Arc::new(Tablebase::build(&rules, 8, &BuildOptions::default()).unwrap());
    let mut guided = ResultSearch::new(18)
        .with_tablebase(Arc::clone(&table))
        .with_guide(Box::new(guide), Guidance { depth: 4 });
    let mut plain = ResultSearch::new(18).with_tablebase(table);
    let (mut settled, mut judged) = (0, 0);
    for s in endgames("en-dodoi-6", 9..=16, 40, 3) {
        plain.clear();
        guided.clear();
        let want = plain.result(&s, 5_000_000);
        let got = guided.result(&s, 5_000_000);
        if want.is_some() && got.is_some() {
            assert_eq!(got, want, "{s:?}");
            settled += 1;
        }
        judged += guided.judged();
    }
    assert!(
        settled > 30 && judged > 0,
        "{settled} settled, {judged} judged"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
