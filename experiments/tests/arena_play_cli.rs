//! The `sowing arena`, `sowing play` and `sowing match` commands end to end: the binary run with
//! arguments and standard input, its output and the files it writes checked.

use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn sowing() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sowing"))
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

#[test]
fn play_reads_moves_from_standard_input_and_saves_the_record() {
    let dir = scratch("play");
    let save = dir.join("game.json");
    let mut child = sowing()
        .args([
            "play",
            "--variant",
            "en-dodoi-6",
            "--opponent",
            "greedy",
            "--seed",
            "1",
        ])
        .arg("--save")
        .arg(&save)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A malformed line, an out-of-range action, one legal move, then the input ends.
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(b"hello\n7\n3\n")
        .expect("written");
    let out = child.wait_with_output().expect("it ends");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("\"hello\" is not a move"), "{text}");
    assert!(text.contains("action 7 is out of range"), "{text}");
    assert!(text.contains("you play 3 (hole 3)"), "{text}");
    assert!(text.contains("greedy plays"), "{text}");
    assert!(text.contains("end of input"), "{text}");
    let record = sowing_env::GameRecord::from_json(&std::fs::read_to_string(&save).expect("saved"))
        .expect("a record");
    assert_eq!(record.moves[0], 3);
    assert_eq!(record.moves.len(), 2);
    assert_eq!(record.tags["north"], "greedy");
    record.replay().expect("it replays");
}

#[test]
fn play_refuses_a_bad_opponent_spec_with_the_forms() {
    let out = sowing()
        .args(["play", "--opponent", "alphabeta:deep"])
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("valid forms: random, greedy"), "{err}");
}

#[test]
fn arena_writes_json_csv_and_records() {
    let dir = scratch("arena");
    let csv = dir.join("results.csv");
    let records = dir.join("games");
    let out = sowing()
        .args([
            "arena",
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random,greedy,alphabeta:2",
        ])
        .args([
            "--games",
            "4",
            "--seed",
            "9",
            "--threads",
            "2",
            "--json",
            "--csv",
        ])
        .arg(&csv)
        .arg("--records")
        .arg(&records)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["pairings"].as_array().expect("pairings").len(), 3);
    assert_eq!(report["ratings"].as_array().expect("ratings").len(), 3);
    assert_eq!(report["seed"], 9);
    let csv = std::fs::read_to_string(&csv).expect("a CSV file");
    assert_eq!(csv.lines().count(), 4);
    assert!(csv.starts_with("agent,opponent,games,wins,draws,losses"));
    let saved: Vec<_> = std::fs::read_dir(&records).expect("records").collect();
    assert_eq!(saved.len(), 12);

    let table = sowing()
        .args([
            "arena",
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random,greedy",
            "--games",
            "2",
        ])
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("Elo") && text.contains("greedy"), "{text}");

    let odd = sowing()
        .args(["arena", "--agents", "random,greedy", "--games", "3"])
        .output()
        .expect("the binary runs");
    assert!(!odd.status.success());
    assert!(String::from_utf8_lossy(&odd.stderr).contains("positive even number"));
}

#[test]
fn match_prints_each_game_the_result_and_its_probability() {
    let run = |threads: &str, json: bool| {
        let mut args = vec![
            "match",
            "--variant",
            "en-dodoi-6",
            "--agents",
            "greedy,mcts:30",
            "--to",
            "3",
            "--seed",
            "2",
            "--opening",
            "2",
            "--games-per-estimate",
            "20",
            "--threads",
            threads,
        ];
        if json {
            args.push("--json");
        }
        let out = sowing().args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run("1", false);
    assert!(
        text.starts_with("en-dodoi-6 (2x6, 4 seeds, take, ccw): a series to 3 wins between greedy and mcts:30, seed 2, opening 2 random plies\ngame   1: greedy South, mcts:30 North: "),
        "{text}"
    );
    assert!(
        text.contains("game   2: mcts:30 South, greedy North: "),
        "{text}"
    );
    assert!(text.contains(" wins the series to 3 by 3-"), "{text}");
    assert!(
        text.contains(
            "the games of `sowing arena --agents greedy,mcts:30 --games 20 --seed 2 --opening 2`"
        ),
        "{text}"
    );
    assert!(
        text.contains("Probability that greedy wins a series to 3, starting as South: "),
        "{text}"
    );
    // The JSON holds the same series, whatever the threads.
    let json: Value = serde_json::from_str(&run("2", true)).unwrap();
    let games = json["games"].as_array().unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("game ")).count(),
        games.len()
    );
    let score = &json["score"];
    let winner = json["winner"].as_u64().unwrap() as usize;
    assert_eq!(score[winner], 3);
    let e = &json["estimate"];
    assert_eq!(e["games"], 20);
    let p = e["odds"]["a_wins"].as_f64().unwrap();
    assert!(e["a_wins_low"].as_f64().unwrap() <= p && p <= e["a_wins_high"].as_f64().unwrap());
}
