//! The shipped proven starts (`data/proven.json`): the file reads and is consistent, every entry
//! is found from its preset, bad files are refused by name, and the cheapest entry is proven again
//! here with the solver and a table built by this test, so the file cannot drift from the code.

use sowing_env::{Rules, State};
use sowing_exact::Solver;
use sowing_exact::proven::{self, Winner, parse};
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use std::sync::Arc;

#[test]
fn the_shipped_file_reads_and_each_preset_entry_is_found_from_its_preset() {
    let starts = proven::shipped();
    assert!(!starts.is_empty());
    for start in starts {
        let rules = start.rules().unwrap();
        assert_eq!(proven::lookup(&rules), Some(start), "{}", start.name);
        if let Ok(preset) = Rules::preset(&start.name) {
            assert_eq!(
                preset, rules,
                "entry {} holds its preset's rules",
                start.name
            );
        }
    }
    let six = proven::lookup(&Rules::preset("en-dodoi-6").unwrap()).unwrap();
    assert_eq!(six.cell(), "South wins by 8");
    let cross = proven::lookup(&Rules::preset("cross-endodoi").unwrap()).unwrap();
    assert_eq!(cross.cell(), "South wins by 6");
    // Another ply cap plays the same tree: the value holds (exact play ignores the cap).
    let capped = Rules::preset("en-dodoi-6")
        .unwrap()
        .with(|s| s.max_plies = 300)
        .unwrap();
    assert_eq!(proven::lookup(&capped), Some(six));
    // Other seeds, another board or trigger: another game.
    for other in [
        Rules::preset("en-dodoi-6")
            .unwrap()
            .with(|s| s.seeds = 5)
            .unwrap(),
        Rules::preset("sadeqa-iii").unwrap(),
    ] {
        assert!(proven::lookup(&other).is_none(), "{}", other.summary());
    }
}

fn entry(rules: &str, winner: &str, margin: &str, first: &str) -> String {
    format!(
        r#"{{"about": "x", "starts": [{{"name": "t", "rules": {rules}, "winner": "{winner}",
        "margin": {margin}, "margin_exact": true, "first_move": {first}, "by": "b",
        "command": "c"}}]}}"#
    )
}

#[test]
fn inconsistent_entries_are_refused_naming_the_entry_and_what_is_wrong() {
    let six = r#"{"holes": 6, "seeds": 4}"#;
    assert!(parse(&entry(six, "South", "8", "2")).is_ok());
    for (text, says) in [
        (
            entry(six, "South", "-8", "2"),
            "South wins but South's lead is -8",
        ),
        (
            entry(six, "North", "8", "null"),
            "North wins but South's lead is 8",
        ),
        (
            entry(six, "South", "7", "2"),
            "cannot end a game of 48 seeds",
        ),
        (
            entry(six, "South", "50", "2"),
            "cannot end a game of 48 seeds",
        ),
        (
            entry(six, "South", "8", "6"),
            "first move 6 is not a hole of South's row (0 to 5)",
        ),
        (
            entry(six, "North", "-8", "1"),
            "a first move is recorded only for a South win",
        ),
        (
            entry(r#"{"holes": 0, "seeds": 4}"#, "South", "8", "2"),
            "holes",
        ),
        (entry(six, "Both", "8", "2"), "unknown variant `Both`"),
        ("[]".to_string(), "expected {\"about\": TEXT"),
        (String::new(), "EOF"),
    ] {
        let err = parse(&text).expect_err(says).to_string();
        assert!(err.starts_with("proven starts: "), "{err}");
        assert!(err.contains(says), "{err:?} should say {says:?}");
    }
    // The same game twice.
    let one = r#"{"name": "a", "rules": {"holes": 6, "seeds": 4}, "winner": "draw", "margin": null,
        "margin_exact": false, "first_move": null, "by": "b", "command": "c"}"#;
    let twice = format!(r#"{{"about": "x", "starts": [{one}, {one}]}}"#);
    let err = parse(&twice).unwrap_err().to_string();
    assert!(
        err.contains("entry 2") && err.contains("the same game as entry 1"),
        "{err}"
    );
    // A byte-order mark is skipped, as in rules files.
    assert!(parse(&format!("\u{feff}{}", entry(six, "South", "8", "2"))).is_ok());
}

#[test]
fn generated_garbage_never_panics_and_every_error_is_short() {
    let shipped = include_str!("../../data/proven.json");
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..2000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut bytes = shipped.as_bytes().to_vec();
        let cut = (seed as usize) % bytes.len();
        match seed % 3 {
            0 => bytes.truncate(cut),
            1 => bytes[cut] = (seed >> 32) as u8,
            _ => {
                bytes.insert(cut, b'"');
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = parse(&text) {
            assert!(e.to_string().len() < 400, "{e}");
        }
    }
}

/// `preset`'s entry, proven again: South forces the recorded lead starting with the recorded
/// move, and no move forces two seeds more, with a table of 14 seeds built here (about 10
/// million positions, seconds).
fn prove_again(preset: &str) {
    let rules = Rules::preset(preset).unwrap();
    let entry = proven::lookup(&rules).unwrap();
    assert_eq!(entry.winner, Winner::South);
    assert!(entry.margin_exact);
    let margin = entry.margin.unwrap();
    let table = Arc::new(Tablebase::build(&rules, 14, &BuildOptions::default()).unwrap());
    let mut solver = Solver::new(22).with_tablebase(table);
    let start = State::initial(&rules);
    let at_least = solver.prove_margin(&start, margin, 100_000_000, 199, false);
    let (action, _) = at_least.winning.expect("South forces the recorded lead");
    assert_eq!(Some(action), entry.first_move);
    let above = solver.prove_margin(&start, margin + 2, 100_000_000, 199, true);
    assert!(
        above.lost(&start),
        "no move forces {} in {preset}",
        margin + 2
    );
}

#[test]
fn the_en_dodoi_6_entry_is_proven_again_by_the_solver() {
    prove_again("en-dodoi-6");
}

#[test]
fn the_cross_endodoi_entry_is_proven_again_by_the_solver() {
    prove_again("cross-endodoi");
}
