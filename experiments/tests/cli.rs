//! The `sowing` command as a user runs it: `replay` (moves, records, rules files, illegal moves
//! and their exit code), `solve`, `random --json`, `bench --json`, `variants`, and output into a
//! closed pipe.

mod common;

use common::{sowing, stderr, stdout};
use serde_json::Value;
use sowing_env::{GameRecord, Outcome, Player, Rules};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A file in the temporary directory, unique to this test process.
fn temp_file(name: &str, contents: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("sowing-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, contents).unwrap();
    path
}

/// The numbers on the rows of the last board printed that start with `row`.
fn last_row(text: &str, row: &str) -> Vec<u32> {
    let line = text.lines().rfind(|l| l.starts_with(row)).unwrap();
    line.split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect()
}

#[test]
fn replay_prints_every_position() {
    let o = sowing(&["replay", "--variant", "en-dodoi-8", "--moves", "7"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("move 1: South plays action 7 (hole 7): 5 laps, 25 seeds sown, 7 captured"),
        "{out}"
    );
    // RULES.md's worked example: North's row as South sees it, then South's, then the captures.
    assert_eq!(last_row(&out, "North"), vec![0, 6, 6, 6, 1, 0, 6, 6, 0]);
    assert_eq!(last_row(&out, "South"), vec![0, 5, 5, 5, 5, 0, 5, 1, 7]);
    assert!(out.contains("North to move"), "{out}");
}

#[test]
fn replay_stops_at_an_illegal_move_with_a_failure_code() {
    let o = sowing(&["replay", "--variant", "en-dodoi-6", "--moves", "0,0,0,0"]);
    assert_eq!(o.status.code(), Some(1));
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(err.contains("move 4 (North, action 0)"), "{err}");
    assert!(err.contains("its hole is empty"), "{err}");
    assert!(err.contains("legal actions: [1, 2, 3, 4]"), "{err}");
    // The three moves before it were printed.
    assert!(out.contains("move 3:") && !out.contains("move 4:"), "{out}");

    let o = sowing(&["replay", "--variant", "en-dodoi-6", "--moves", "2,-1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("move 2 (North, action -1): action -1 is out of range"));

    let o = sowing(&["replay", "--variant", "oware", "--moves", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("valid variants: en-dodoi-6"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn solve_proves_a_win_or_says_how_far_it_looked() {
    let won = "2,0,3,3,5,0,2,1,0,0,2,0,1,2";
    let o = sowing(&["solve", "--variant", "en-dodoi-6", "--moves", won]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ply 14: South to move"), "{out}");
    assert!(
        out.contains("South to move forces a win within 21 plies, starting with action 2"),
        "{out}"
    );

    let o = sowing(&[
        "solve",
        "--variant",
        "en-dodoi-6",
        "--moves",
        "2,0",
        "--nodes",
        "5000",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("South to move has no forced win within"),
        "{out}"
    );
    assert!(out.contains("the budget ran out"), "{out}");

    let o = sowing(&["solve", "--variant", "en-dodoi-6", "--moves", "0,0,0,0"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("move 4 (North, action 0)") && err.contains("its hole is empty"),
        "{err}"
    );

    let o = sowing(&["solve", "--variant", "en-dodoi-6", "--depth", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("1..=999"), "{}", stderr(&o));
}

#[test]
fn replay_checks_a_record_and_its_result() {
    let rules = Rules::preset("sadeqa-91").unwrap();
    let record = GameRecord::from_moves(&rules, &[0, 1, 3]).unwrap();
    let path = temp_file("record.json", &record.to_json());
    let o = sowing(&["replay", "--record", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("move 3:"));
    assert!(stdout(&o).contains("the record's result matches: ongoing"));

    let mut wrong = record.clone();
    wrong.outcome = Outcome::Won(Player::North);
    std::fs::write(&path, wrong.to_json()).unwrap();
    let o = sowing(&["replay", "--record", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("record does not replay"),
        "{}",
        stderr(&o)
    );

    std::fs::write(&path, "{\"rules\": ").unwrap();
    let o = sowing(&["replay", "--record", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("invalid JSON"), "{}", stderr(&o));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn replay_takes_a_rules_file() {
    let path = temp_file("tiny.toml", "holes = 3\nseeds = 2\ntrigger = \"leave\"\n");
    let o = sowing(&["replay", "--rules", path.to_str().unwrap(), "--moves", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("2x3, 2 seeds, leave, ccw"));

    std::fs::write(&path, "holes = 3\nseeds = 200\n").unwrap();
    let o = sowing(&["replay", "--rules", path.to_str().unwrap(), "--moves", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("seeds = 200"), "{}", stderr(&o));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn random_json_is_reproducible_whatever_the_threads() {
    let args = |threads| {
        [
            "random",
            "--variant",
            "en-dodoi-6",
            "--games",
            "300",
            "--seed",
            "5",
            "--json",
            "--threads",
            threads,
        ]
    };
    let one = sowing(&args("1"));
    let two = sowing(&args("2"));
    assert!(one.status.success(), "{}", stderr(&one));
    assert_eq!(stdout(&one), stdout(&two));
    let out = stdout(&one);
    assert_eq!(out.lines().count(), 1);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["variant"], "en-dodoi-6");
    assert_eq!(v["games"], 300);
    let rate = |k: &str| v[k].as_f64().unwrap();
    let total = rate("first_player_win_rate")
        + rate("second_player_win_rate")
        + rate("draw_rate")
        + rate("truncated_rate");
    assert!((total - 1.0).abs() < 1e-9);
    assert!(rate("plies_mean") > 0.0 && rate("laps_per_move") >= 1.0);
    assert!(rate("seeds_sown_per_move") >= 1.0);
    assert!(v["endless_positions"].is_u64());
}

#[test]
fn random_all_gives_a_line_per_distinct_preset() {
    let o = sowing(&["random", "--variant", "all", "--games", "20", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let names: Vec<String> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["variant"].to_string())
        .collect();
    assert_eq!(names.len(), 8, "every preset but the alias: {names:?}");

    let o = sowing(&["random", "--games", "0"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn bench_json_has_the_documented_fields() {
    let o = sowing(&[
        "bench",
        "--variant",
        "en-dodoi-6",
        "--seconds",
        "0.05",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["variant"], "en-dodoi-6");
    assert!(v["moves_per_sec_1_thread"].as_f64().unwrap() > 0.0);
    assert!(v["vec_steps_per_sec_all_threads"].as_f64().unwrap() > 0.0);
}

#[test]
fn variants_lists_every_preset() {
    let o = sowing(&["variants", "--json"]);
    assert!(o.status.success());
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), sowing_env::PRESETS.len());
    assert_eq!(lines[0]["variant"], "en-dodoi-6");
    assert_eq!(lines[0]["holes"], 6);
    let table = stdout(&sowing(&["variants"]));
    assert!(table.contains("cross-endodoi") && table.contains("Troyka 2002"));
}

#[test]
fn output_into_a_closed_pipe_does_not_panic() {
    for args in [
        &["variants", "--json"][..],
        &["random", "--variant", "en-dodoi-6", "--games", "50"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sowing"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end at once, as `| head -0` would.
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // Either all was written before the pipe closed, or SIGPIPE ended the command quietly.
        assert!(
            status.success() || status.code().is_none(),
            "{args:?}: {status}"
        );
    }
}
