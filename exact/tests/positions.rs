//! Exact positions files: labels from a tablebase are consistent with the table, a set survives
//! a round trip through its file, and every damaged line is refused with its line number.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_env::{Rules, State, random_action};
use sowing_exact::positions::{ExactPosition, LabelSource, MoveLabel, PositionSet};
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use std::path::Path;

fn tiny() -> (Rules, Tablebase) {
    let rules = Rules::from_json(r#"{"holes": 3, "seeds": 2}"#).unwrap();
    let table = Tablebase::build(&rules, 12, &BuildOptions::default()).unwrap();
    (rules, table)
}

/// Positions of random games, each labelled by the table.
fn labelled(rules: &Rules, table: &Tablebase, count: usize, seed: u64) -> Vec<ExactPosition> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut s = State::initial(rules);
        let stop = rng.random_range(0..12);
        for _ in 0..stop {
            match random_action(&s, &mut rng) {
                Some(a) => s = s.play_unchecked(a),
                None => break,
            }
        }
        if let Some(p) = ExactPosition::from_tablebase(&s, table) {
            out.push(p);
        }
    }
    out
}

#[test]
fn tablebase_labels_keep_the_tables_values() {
    let (rules, table) = tiny();
    for p in labelled(&rules, &table, 300, 1) {
        let probe = table.probe(&p.state).unwrap();
        assert_eq!(p.margin, Some(probe.value), "{p:?}");
        assert_eq!(p.result, probe.result(&p.state), "{p:?}");
        assert_ne!(p.keeps_margin().unwrap(), 0);
        // A move keeps the result exactly when its own result is the position's.
        for m in &p.moves {
            assert_eq!(p.keeps_result() >> m.action & 1 == 1, m.result == p.result);
        }
    }
}

#[test]
fn a_set_round_trips_through_its_file() {
    let (rules, table) = tiny();
    let set = PositionSet::new(
        rules,
        serde_json::json!({"seed": 1}),
        7,
        labelled(&rules, &table, 50, 2),
    );
    let dir = std::env::temp_dir().join(format!("sowing-positions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("set.jsonl");
    set.write(&path).unwrap();
    let back = PositionSet::read(&path).unwrap();
    assert_eq!(back, set);
    assert_eq!(back.header.dropped, 7);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn labels_that_are_not_the_legal_moves_or_not_their_best_are_refused() {
    let (rules, table) = tiny();
    let p = &labelled(&rules, &table, 1, 3)[0];
    let mut missing = p.moves.clone();
    missing.pop();
    assert!(ExactPosition::new(p.state, missing, LabelSource::Solver).is_err());
    let mut doubled = p.moves.clone();
    doubled.push(p.moves[0]);
    assert!(ExactPosition::new(p.state, doubled, LabelSource::Solver).is_err());
    let no_moves: Vec<MoveLabel> = Vec::new();
    assert!(ExactPosition::new(p.state, no_moves, LabelSource::Solver).is_err());
}

#[test]
fn every_damaged_line_is_refused_with_its_number() {
    let (rules, table) = tiny();
    let set = PositionSet::new(
        rules,
        serde_json::json!(null),
        0,
        labelled(&rules, &table, 20, 4),
    );
    let mut text = Vec::new();
    set.write_to(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let path = Path::new("set.jsonl");
    assert!(PositionSet::read_from(text.as_bytes(), path).is_ok());
    let lines: Vec<&str> = text.lines().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut refused = 0;
    for _ in 0..400 {
        let at = rng.random_range(0..lines.len());
        let mut bytes = lines[at].as_bytes().to_vec();
        let i = rng.random_range(0..bytes.len());
        bytes[i] = b"0123456789{}[],:\"xyz-"[rng.random_range(0..21)];
        let Ok(changed) = String::from_utf8(bytes) else {
            continue;
        };
        if changed == lines[at] {
            continue;
        }
        let mut damaged = lines.clone();
        damaged[at] = &changed;
        let damaged = damaged.join("\n");
        match PositionSet::read_from(damaged.as_bytes(), path) {
            // A change that keeps a consistent position (another ply, say) may still read.
            Ok(read) => assert_eq!(read.positions.len(), set.positions.len()),
            Err(e) => {
                refused += 1;
                let message = e.to_string();
                assert!(message.contains("set.jsonl"), "{message}");
                assert!(
                    !message.contains("Some(") && !message.contains("None"),
                    "Rust's debug text in {message}"
                );
            }
        }
    }
    assert!(refused > 200, "only {refused} of 400 damaged files refused");
    // Truncated files: the count in the header no longer matches.
    let cut = lines[..lines.len() - 1].join("\n");
    let e = PositionSet::read_from(cut.as_bytes(), path).unwrap_err();
    assert!(e.to_string().contains("counts 20 positions"), "{e}");
    assert!(PositionSet::read_from(&b""[..], path).is_err());
}

/// A margin that does not match its moves' is said in words: a number, or "not known".
#[test]
fn a_wrong_margin_is_named_in_words() {
    let (rules, table) = tiny();
    let set = PositionSet::new(
        rules,
        serde_json::json!(null),
        0,
        labelled(&rules, &table, 1, 4),
    );
    let mut text = Vec::new();
    set.write_to(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let (header, line) = text.trim_end().split_once('\n').unwrap();
    let mut position: serde_json::Value = serde_json::from_str(line).unwrap();
    let margin = position["margin"]
        .as_i64()
        .expect("a table's position has a margin");
    position["margin"] = serde_json::Value::Null;
    let damaged = format!("{header}\n{position}\n");
    let e = PositionSet::read_from(damaged.as_bytes(), Path::new("set.jsonl"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(margin not known) is not the best of its moves'"),
        "{e}"
    );
    assert!(e.contains(&format!("margin {margin:+})")), "{e}");
    assert!(!e.contains("None") && !e.contains("Some("), "{e}");
}

/// A line of one huge string is named by its start and its length, not repeated whole.
#[test]
fn a_huge_line_is_not_repeated_whole() {
    let (rules, table) = tiny();
    let set = PositionSet::new(
        rules,
        serde_json::json!(null),
        0,
        labelled(&rules, &table, 1, 4),
    );
    let mut text = Vec::new();
    set.write_to(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let (header, line) = text.trim_end().split_once('\n').unwrap();
    let mut position: serde_json::Value = serde_json::from_str(line).unwrap();
    position["result"] = "x".repeat(1 << 20).into();
    let damaged = format!("{header}\n{position}\n");
    let e = PositionSet::read_from(damaged.as_bytes(), Path::new("set.jsonl"))
        .unwrap_err()
        .to_string();
    assert!(e.len() < 1000, "{} bytes", e.len());
    assert!(e.contains("line 2: not a position"), "{e}");
    assert!(e.contains("xxx... ("), "{e}");
}
