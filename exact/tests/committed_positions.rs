//! The fixed sets of exact test positions in `data/positions/`, which the trainer and the
//! accuracy command measure against: each is read whole (every label checked against the legal
//! moves as it is read), holds the positions its header counts, of its preset's rules, with no
//! position twice and every phase of the game present. With `SOWING_TB_FILE` naming a table of
//! a preset's rules (and `SOWING_SET` the preset, en-dodoi-6 by default), an ignored test also
//! checks the searched labels of that set against the solver, a search independent of the one
//! that labelled them (`cargo test --release -p sowing-exact --test committed_positions --
//! --ignored`).

use sowing_env::{Rules, State};
use sowing_exact::positions::{LabelSource, PositionSet};
use sowing_exact::tablebase::Tablebase;
use sowing_exact::{Solver, Wdl};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

fn set(preset: &str) -> PositionSet {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data/positions")
        .join(format!("{preset}.jsonl"));
    PositionSet::read(&path).unwrap()
}

#[test]
fn the_committed_sets_are_whole_and_span_the_game() {
    // Each set reaches from the endgame to at least this many seeds on the board, and holds at
    // least this share of its positions with more than half the start's seeds on the board (the
    // mid-game): en-dodoi-6's, en-dodoi-7's and Cross-Endodoi's with a table and the search
    // settling nearly every position drawn; en-dodoi-8's (a 16-seed table, the proof-number
    // search and 35% of the games drawn just past half: 32% past half, up to 46 seeds); en-dodoi-9's, en-dodoi-10's and the two Sadeqas'
    // endgame sets (tables of 12, 11 and 14 seeds; the search settles few positions above 24 to
    // 32).
    for (preset, reaches, mid_game) in [
        ("en-dodoi-6", 25, 0.25),
        ("en-dodoi-7", 40, 0.25),
        ("cross-endodoi", 30, 0.25),
        ("en-dodoi-8", 40, 0.25),
        ("en-dodoi-9", 40, 0.0),
        ("en-dodoi-10", 40, 0.0),
        ("sadeqa-91", 32, 0.0),
        ("sadeqa-iii", 32, 0.0),
    ] {
        let set = set(preset);
        assert_eq!(set.rules(), &Rules::preset(preset).unwrap(), "{preset}");
        assert_eq!(set.positions.len(), 2000, "{preset}");
        assert_eq!(set.header.made_by["variant"], preset);
        let distinct: HashSet<State> = set.positions.iter().map(|p| p.state).collect();
        assert_eq!(
            distinct.len(),
            set.positions.len(),
            "{preset}: a position twice"
        );
        assert!(set.positions.iter().any(|p| p.seeds() < 8), "{preset}");
        assert!(
            set.positions.iter().any(|p| p.seeds() >= reaches),
            "{preset}"
        );
        let half = set.rules().total_seeds() as u32 / 2;
        let above = set.positions.iter().filter(|p| p.seeds() > half).count();
        assert!(
            above as f64 >= mid_game * set.positions.len() as f64,
            "{preset}: {above} positions above {half} seeds"
        );
        for result in [Wdl::Win, Wdl::Draw, Wdl::Loss] {
            assert!(
                set.positions.iter().any(|p| p.result == result),
                "{preset}: no {result}"
            );
        }
    }
}

#[test]
fn the_phase_sets_hold_their_phases_only() {
    // data/positions/phases/PRESET.jsonl: positions drawn from a window of phases
    // (`sowing positions --phases LOW-HIGH`), which `sowing compare` adds to the committed
    // set's on the same phases.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/positions/phases");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let preset = path.file_stem().unwrap().to_str().unwrap().to_string();
        let phase_set = PositionSet::read(&path).unwrap();
        assert_eq!(
            phase_set.rules(),
            &Rules::preset(&preset).unwrap(),
            "{preset}"
        );
        assert_eq!(phase_set.header.made_by["variant"], preset.as_str());
        let window = phase_set.header.made_by["phases"].as_str().unwrap();
        let (low, high) = window.split_once('-').unwrap();
        let (low, high): (u32, u32) = (low.parse().unwrap(), high.parse().unwrap());
        let start = phase_set.rules().total_seeds() as u32;
        for p in &phase_set.positions {
            let percent = 100 * p.seeds();
            assert!(
                low * start <= percent && percent < high * start,
                "{preset}: {} seeds outside {window}%",
                p.seeds()
            );
        }
        let distinct: HashSet<State> = phase_set.positions.iter().map(|p| p.state).collect();
        assert_eq!(distinct.len(), phase_set.positions.len(), "{preset}");
        // From other games than the committed set's: few positions in common (games meet more
        // often in a small board's endgame; `sowing compare` counts such a position once).
        let committed: HashSet<State> = set(&preset).positions.iter().map(|p| p.state).collect();
        let shared = distinct.intersection(&committed).count();
        assert!(shared * 20 < distinct.len(), "{preset}: {shared} shared");
        seen += 1;
    }
    assert!(seen >= 2, "{}", dir.display());
}

#[test]
#[ignore = "needs a table of the set's rules in SOWING_TB_FILE"]
fn the_searched_labels_of_a_set_agree_with_the_solver() {
    let file = std::env::var("SOWING_TB_FILE").expect("SOWING_TB_FILE names a table");
    let preset = std::env::var("SOWING_SET").unwrap_or_else(|_| "en-dodoi-6".into());
    let table = Arc::new(Tablebase::open(file).unwrap());
    let mut solver = Solver::new(22).with_tablebase(table);
    let (mut confirmed, mut open) = (0, 0);
    for p in set(&preset)
        .positions
        .iter()
        .filter(|p| p.source == LabelSource::Solver)
    {
        let s = &p.state;
        solver.clear();
        let proof = solver.prove(s, 50_000_000, 199);
        // What the solver proves, the labels say: its winning move wins, its lost moves lose.
        if let Some((a, _)) = proof.winning {
            assert_eq!(p.result, Wdl::Win, "{s:?}");
            assert!(
                p.moves
                    .iter()
                    .any(|m| m.action == a && m.result == Wdl::Win)
            );
        }
        for m in &p.moves {
            if proof.losing >> m.action & 1 == 1 {
                assert_eq!(m.result, Wdl::Loss, "{s:?}");
            }
        }
        let settled = proof.winning.is_some() || proof.lost(s);
        if settled {
            confirmed += 1;
        } else {
            // A draw, which the solver cannot prove.
            open += 1;
        }
    }
    println!("{preset}: {confirmed} searched labels confirmed by the solver, {open} open");
    assert!(confirmed > 10 * open, "{confirmed} confirmed, {open} open");
}
