//! `sowing play` against a trained network: a tiny run made by `sowing train`, then a game with
//! `--opponent az:RUN:TIME` and `--explain`, which prints the network's value and principal line
//! after each of its moves; and `sowing summary` of such a run and an arena it played.
#![cfg(feature = "torch")]

use std::io::Write;
use std::process::{Command, Stdio};

fn sowing() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sowing"))
}

/// A run of one tiny iteration in `dir`.
fn train_tiny(dir: &std::path::Path) {
    let _ = std::fs::remove_dir_all(dir);
    let trained = sowing()
        .args([
            "train",
            "--variant",
            "en-dodoi-6",
            "--iterations",
            "1",
            "--hidden",
            "8",
        ])
        .args([
            "--blocks",
            "1",
            "--simulations",
            "4",
            "--games-per-iteration",
            "2",
        ])
        .args([
            "--batch-size",
            "16",
            "--replay-capacity",
            "500",
            "--eval-games",
            "0",
        ])
        .args(["--threads", "1", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(trained.status.success(), "{trained:?}");
}

#[test]
fn a_summary_says_what_was_trained_and_how_its_matches_went() {
    let dir = std::env::temp_dir().join(format!("sowing-summary-az-{}", std::process::id()));
    train_tiny(&dir);
    let csv = dir.join("arena.csv");
    let arena = sowing()
        .args([
            "arena",
            "--variant",
            "en-dodoi-6",
            "--games",
            "4",
            "--threads",
            "1",
        ])
        .arg("--agents")
        .arg(format!("random,az:{}:4", dir.display()))
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(arena.status.success(), "{arena:?}");
    let out = sowing()
        .arg("summary")
        .arg("--run")
        .arg(&dir)
        .arg("--match")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("trained   en-dodoi-6: a 8 x 1 mlp network by self-play, 1 iteration in "),
        "{text}"
    );
    // The arena had the network second; the summary reads it from the network's side.
    let line = text.lines().find(|l| l.contains("  match ")).unwrap();
    assert!(
        line.contains(&format!("az:{}:4 against random: ", dir.display()))
            && line.contains(" of 4 games ("),
        "{line}"
    );
    assert!(
        text.contains("metrics.csv (one row per iteration"),
        "{text}"
    );
    // A file that is not an arena's CSV is refused, naming it and its line.
    std::fs::write(&csv, "not,a,csv\n").unwrap();
    let refused = sowing()
        .arg("summary")
        .arg("--run")
        .arg(&dir)
        .arg("--match")
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8(refused.stderr).unwrap();
    assert!(
        !refused.status.success()
            && stderr.contains(&csv.display().to_string())
            && stderr.contains("line 1 is not an arena's CSV header"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_network_opponent_with_a_time_explains_its_moves() {
    let dir = std::env::temp_dir().join(format!("sowing-play-az-{}", std::process::id()));
    train_tiny(&dir);
    let play = |explain: bool| {
        let mut command = sowing();
        command
            .args([
                "play",
                "--variant",
                "en-dodoi-6",
                "--side",
                "north",
                "--opponent",
            ])
            .arg(format!("az:{}:100ms", dir.display()));
        if explain {
            command.arg("--explain");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The network opens; one reply of ours, its answer, then input ends.
        child.stdin.take().unwrap().write_all(b"0\n1\n").unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let explained = play(true);
    let name = format!("az:{}:100ms", dir.display());
    let lines: Vec<&str> = explained
        .lines()
        .filter(|l| l.contains("principal line:"))
        .collect();
    assert!(lines.len() >= 2, "{explained}");
    for line in &lines {
        assert!(line.contains(&format!("{name}'s value ")), "{line}");
        // The line opens with the move just played, which the line above names.
        let moves = line.split("principal line: ").nth(1).unwrap();
        let first: usize = moves.split(' ').next().unwrap().parse().unwrap();
        let played = explained
            .lines()
            .take_while(|l| l != line)
            .filter(|l| l.starts_with(&format!("{name} plays ")))
            .last()
            .unwrap();
        assert!(
            played.starts_with(&format!("{name} plays {first} ")),
            "{played} / {line}"
        );
        let after = line.split(" after ").nth(1).unwrap();
        let visits: u32 = after.split(' ').next().unwrap().parse().unwrap();
        assert!(visits > 0, "{line}");
    }
    // Without --explain, none of it.
    assert!(!play(false).contains("principal line"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn positions_guided_by_a_network_have_the_labels_of_the_unguided_ones() {
    let dir = std::env::temp_dir().join(format!("sowing-guide-run-{}", std::process::id()));
    train_tiny(&dir);
    let table = dir.join("en-dodoi-6-12.tb");
    let built = sowing()
        .args([
            "tablebase",
            "build",
            "--variant",
            "en-dodoi-6",
            "--max-seeds",
            "12",
        ])
        .arg("--out")
        .arg(&table)
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    let label = |name: &str, guide: &[&str]| {
        let out = dir.join(name);
        let o = sowing()
            .args(["positions", "--variant", "en-dodoi-6", "--count", "30"])
            .args([
                "--seed",
                "4",
                "--threads",
                "2",
                "--agents",
                "greedy,alphabeta:2",
            ])
            .arg("--tablebase")
            .arg(&table)
            .arg("--out")
            .arg(&out)
            .args(guide)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        std::fs::read_to_string(out).unwrap()
    };
    let plain = label("plain.jsonl", &[]);
    let run = dir.to_str().unwrap().to_string();
    let guided = label("guided.jsonl", &["--guide", &run, "--guide-depth", "3"]);
    assert_eq!(plain.lines().count(), 31, "{plain}");
    // The same positions and labels; the header names the guide.
    assert_eq!(
        guided.lines().skip(1).collect::<Vec<_>>(),
        plain.lines().skip(1).collect::<Vec<_>>()
    );
    let header: serde_json::Value = serde_json::from_str(guided.lines().next().unwrap()).unwrap();
    assert_eq!(header["made_by"]["guide"]["run"], run.as_str());
    assert_eq!(header["made_by"]["guide"]["depth"], 3);
    let header: serde_json::Value = serde_json::from_str(plain.lines().next().unwrap()).unwrap();
    assert!(header["made_by"].get("guide").is_none(), "{header}");
    // A network of other rules is refused before a game is played, naming both.
    let o = sowing()
        .args(["positions", "--variant", "en-dodoi-7", "--count", "3"])
        .arg("--out")
        .arg(dir.join("other.jsonl"))
        .args(["--guide", &run])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("--guide") && err.contains("trained on"),
        "{err}"
    );
    assert!(!dir.join("other.jsonl").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
