//! A position's result cut into independent searches at a depth: combined from its frontier's
//! results, it equals the result search on the whole position (every move's result too) and,
//! on a rule set whose whole game a table holds, the truth; a frontier settled only in part
//! gives only what follows from it; bad requests are refused with the reason.

mod common;

use common::{endgames, rules};
use sowing_env::{Rules, State};
use sowing_exact::split::{MAX_DEPTH, Split};
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use sowing_exact::{ResultSearch, Wdl};
use std::sync::Arc;

#[test]
fn a_split_gives_the_whole_search_s_results_at_every_depth() {
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let table = Arc::new(Tablebase::build(&rules, 10, &BuildOptions::default()).unwrap());
    let mut whole = ResultSearch::new(18).with_tablebase(Arc::clone(&table));
    let mut compared = 0;
    for state in endgames("en-dodoi-6", 13..=18, 12, 3) {
        whole.clear();
        let Some(want) = whole.move_results(&state, 5_000_000) else {
            continue;
        };
        for depth in 1..=3 {
            let split = Split::new(&state, depth).unwrap();
            let results = split.settle_all(2, 16, Some(&table), 5_000_000);
            let got = split.combine(&results).unwrap();
            assert_eq!(got.settled, got.frontier, "{state:?} at depth {depth}");
            let moves: Vec<(usize, Wdl)> =
                got.moves.iter().map(|&(a, r)| (a, r.unwrap())).collect();
            assert_eq!(moves, want, "{state:?} at depth {depth}");
            let best = want.iter().map(|&(_, r)| r).max().unwrap();
            assert_eq!(got.result, Some(best));
        }
        compared += 1;
    }
    assert!(compared >= 8, "{compared}");
}

#[test]
fn a_split_of_a_whole_game_equals_its_table() {
    let rules = rules(3, 2, |_| {});
    let table = Tablebase::build(&rules, 12, &BuildOptions::default()).unwrap();
    let start = State::initial(&rules);
    for depth in 1..=MAX_DEPTH {
        let split = Split::new(&start, depth).unwrap();
        let results = split.settle_all(1, 14, None, u64::MAX);
        let got = split.combine(&results).unwrap();
        let want: Vec<(usize, Option<Wdl>)> = table
            .move_values(&start)
            .unwrap()
            .into_iter()
            .map(|(a, p)| (a, Some(p.result(&start))))
            .collect();
        assert_eq!(got.moves, want, "depth {depth}");
        assert_eq!(
            got.result,
            Some(table.probe(&start).unwrap().result(&start))
        );
    }
}

#[test]
fn an_unsettled_frontier_leaves_unsettled_only_what_depends_on_it() {
    let state = endgames("en-dodoi-6", 20..=24, 1, 9)[0];
    let split = Split::new(&state, 2).unwrap();
    let mut search = ResultSearch::new(16);
    let full: Vec<Option<Wdl>> = (0..split.frontier().len())
        .map(|i| split.settle(i, &mut search, 50_000_000))
        .collect();
    let truth = split.combine(&full).unwrap();
    assert!(truth.result.is_some(), "{state:?}");
    // Each frontier position left out in turn: whatever is still given is the truth.
    for hole in 0..full.len() {
        let mut part = full.clone();
        part[hole] = None;
        let got = split.combine(&part).unwrap();
        assert_eq!(got.settled, full.len() - 1);
        for (m, t) in got.moves.iter().zip(&truth.moves) {
            assert!(m.1.is_none() || m.1 == t.1, "{m:?} against {t:?}");
        }
        assert!(got.result.is_none() || got.result == truth.result);
    }
    // Nothing settled: only moves that end the game have a result.
    let none = split.combine(&vec![None; full.len()]).unwrap();
    assert_eq!(none.settled, 0);
    for (a, r) in none.moves {
        assert_eq!(r.is_some(), state.play(a).unwrap().is_over(), "action {a}");
    }
}

#[test]
fn bad_splits_are_refused_with_the_reason() {
    let rules = Rules::preset("en-dodoi-8").unwrap();
    let start = State::initial(&rules);
    for depth in [0, MAX_DEPTH + 1] {
        let e = Split::new(&start, depth).unwrap_err();
        assert!(e.contains("1 to 6 plies"), "{e}");
    }
    let split = Split::new(&start, 1).unwrap();
    assert_eq!(split.frontier().len(), 8);
    let e = split.combine(&[None; 3]).unwrap_err();
    assert!(e.contains("3 results for a frontier of 8 positions"), "{e}");
}
