//! Nothing a user gives the `sowing` command crashes it: every refusal is an error message and
//! exit code 1 (or clap's 2 for a malformed command line), never a panic (exit 101), an abort or a
//! signal. Output into a full disk, rules whose start has no legal move, and sizes from the
//! command line, generated at random for every subcommand, are each tried here on the binary.

use std::path::PathBuf;
use std::process::{Command, Output};

fn sowing(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args(args)
        .output()
        .expect("run sowing")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A file in the temporary directory, unique to this test process.
fn temp_file(name: &str, contents: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("sowing-input-{}-{name}", std::process::id()));
    std::fs::write(&path, contents).unwrap();
    path
}

/// The command ended by itself with success, or with an error message and code 1 or 2: no
/// panic, abort or signal.
fn assert_no_crash(args: &[&str], o: &Output) {
    let err = stderr(o);
    assert!(
        matches!(o.status.code(), Some(0..=2)),
        "{args:?} ended with {}: {err}",
        o.status
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    if !o.status.success() {
        assert!(
            err.starts_with("error") || err.contains("\nerror"),
            "{args:?} failed without saying why: {err}"
        );
    }
}

/// Every command that prints, with its output into a full disk (`/dev/full`): an error that
/// names standard output, exit code 1.
#[test]
fn output_into_a_full_disk_is_an_error_not_a_panic() {
    let record = temp_file(
        "record.json",
        &sowing_env::GameRecord::from_moves(
            &sowing_env::Rules::preset("en-dodoi-6").unwrap(),
            &[2],
        )
        .unwrap()
        .to_json(),
    );
    let record = record.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["variants"],
        &["variants", "--json"],
        &["replay", "--variant", "en-dodoi-6", "--moves", "2,0"],
        &["replay", "--record", record],
        &["random", "--variant", "en-dodoi-6", "--games", "20"],
        &[
            "random",
            "--variant",
            "en-dodoi-6",
            "--games",
            "20",
            "--json",
        ],
        &["bench", "--variant", "en-dodoi-6", "--seconds", "0.02"],
        &[
            "arena",
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random,greedy",
            "--games",
            "2",
        ],
        &[
            "match",
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random,greedy",
            "--to",
            "2",
            "--games-per-estimate",
            "10",
        ],
    ];
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full is there on Linux");
    for args in cases {
        let o = Command::new(env!("CARGO_BIN_EXE_sowing"))
            .args(*args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output: No space left on device"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    std::fs::remove_file(record).unwrap();
}

/// Rules whose start has no legal move (every first move is endless at `max_laps = 3`): each
/// command that plays games from the start refuses them and says why.
#[test]
fn a_start_without_a_legal_move_is_refused_by_every_command_that_plays_it() {
    let rules = temp_file("no-move.json", r#"{"holes":6,"seeds":4,"max_laps":3}"#);
    let rules = rules.to_str().unwrap();
    let out = std::env::temp_dir().join(format!("sowing-input-{}-compare", std::process::id()));
    let cases: &[&[&str]] = &[
        &["bench", "--seconds", "0.05"],
        &["random", "--games", "10"],
        &["arena", "--agents", "random,greedy", "--games", "2"],
        &["play", "--opponent", "random"],
        &["compare", "--budget", "2s", "--out", out.to_str().unwrap()],
        &["match", "--agents", "random,greedy", "--to", "2"],
    ];
    for args in cases {
        let mut all = args.to_vec();
        all.extend(["--rules", rules]);
        let o = sowing(&all);
        assert_no_crash(&all, &o);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{all:?}: {err}");
        assert!(
            err.contains("has no legal move: each of South's 6 moves is endless")
                && err.contains("max_laps = 3"),
            "{all:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(out);
    std::fs::remove_file(rules).unwrap();
}
