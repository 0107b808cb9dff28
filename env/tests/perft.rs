//! Golden "perft" counts: the number of legal move sequences of each length 1 to 6 from the start
//! of every preset, kept in `tests/data/perft.txt`. A game that ends before the length counts as
//! one sequence (a leaf). They pin the rules down: any change to what is legal, or to where a move
//! ends, changes some count.
//!
//! After a deliberate change to RULES.md, regenerate the file with
//! `SOWING_UPDATE_GOLDEN=1 cargo test -p sowing-env --test perft` and review the diff.

use sowing_env::{PRESETS, Rules, State};
use std::collections::BTreeMap;
use std::path::PathBuf;

const MAX_DEPTH: u32 = 6;

fn perft(s: &State, depth: u32) -> u64 {
    if s.is_over() {
        return 1;
    }
    if depth == 1 {
        return s.legal_count() as u64;
    }
    s.legal_actions()
        .map(|a| perft(&s.play(a).unwrap(), depth - 1))
        .sum()
}

fn data_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft.txt")
}

/// Every (preset, depth) and its count, computed now.
fn computed() -> BTreeMap<(String, u32), u64> {
    let mut counts = BTreeMap::new();
    for name in PRESETS {
        let start = State::initial(&Rules::preset(name).unwrap());
        for depth in 1..=MAX_DEPTH {
            counts.insert((name.to_string(), depth), perft(&start, depth));
        }
    }
    counts
}

fn render(counts: &BTreeMap<(String, u32), u64>) -> String {
    let mut text = String::from(
        "# Golden perft counts of sowing-env: legal move sequences of each length from the start of\n\
         # each preset; a game that ends before the length counts as one sequence.\n\
         # Regenerate after a deliberate rules change, and review the diff:\n\
         #   SOWING_UPDATE_GOLDEN=1 cargo test -p sowing-env --test perft\n\
         # variant depth sequences\n",
    );
    for name in PRESETS {
        for depth in 1..=MAX_DEPTH {
            let count = counts[&(name.to_string(), depth)];
            text.push_str(&format!("{name} {depth} {count}\n"));
        }
    }
    text
}

fn parse(text: &str) -> BTreeMap<(String, u32), u64> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(fields.len(), 3, "malformed line in perft.txt: {l:?}");
            (
                (fields[0].to_string(), fields[1].parse().unwrap()),
                fields[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn perft_counts_match_the_golden_file() {
    let now = computed();
    if std::env::var_os("SOWING_UPDATE_GOLDEN").is_some() {
        std::fs::write(data_file(), render(&now)).unwrap();
        return;
    }
    let golden = parse(&std::fs::read_to_string(data_file()).unwrap());
    for ((name, depth), count) in &now {
        assert_eq!(
            golden.get(&(name.clone(), *depth)),
            Some(count),
            "perft({depth}) of {name}: the golden file says {:?}, the engine gives {count}",
            golden.get(&(name.clone(), *depth))
        );
    }
    assert_eq!(
        golden.len(),
        now.len(),
        "the golden file lists other presets"
    );
}

#[test]
fn perft_of_the_first_move_is_the_number_of_holes() {
    // Every hole holds seeds at the start, and no first move of a preset is endless.
    for name in PRESETS {
        let rules = Rules::preset(name).unwrap();
        assert_eq!(perft(&State::initial(&rules), 1), rules.holes() as u64);
    }
}

#[test]
fn finished_games_count_as_leaves() {
    // Truncated after 2 plies: deeper counts stay at the 2-ply count.
    let rules = Rules::preset("en-dodoi-6")
        .unwrap()
        .with(|r| r.max_plies = 2)
        .unwrap();
    let start = State::initial(&rules);
    let two = perft(&start, 2);
    assert_eq!(perft(&start, 3), two);
    assert_eq!(perft(&start, 5), two);
}
