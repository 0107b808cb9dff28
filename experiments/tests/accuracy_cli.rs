//! `sowing accuracy` as a user runs it: on a positions file labelled by a small en-dodoi-6
//! tablebase, as a table and as JSON, the same figures on any number of threads; the first N
//! positions of the committed set; and the errors: no committed set, a count beyond the set, a
//! file of other rules, a damaged file, an agent that does not exist.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use sowing_env::Rules;
use sowing_exact::positions::{ExactPosition, PositionSet};
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn sowing_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sowing"))
        .arg("accuracy")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run sowing")
}

fn sowing(args: &[&str]) -> Output {
    sowing_in(&std::env::temp_dir(), args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The report of a run with `--json`: one object on one line.
fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// A directory unique to this test process and `name`, empty.
fn temp(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("sowing-accuracy-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 300 positions of random en-dodoi-6 games with at most 10 seeds on the board, labelled by a
/// table of 10 seeds: the first such position of each game.
fn set() -> &'static PositionSet {
    static SET: OnceLock<PositionSet> = OnceLock::new();
    SET.get_or_init(|| {
        let rules = Rules::preset("en-dodoi-6").unwrap();
        let table = Tablebase::build(&rules, 10, &BuildOptions::default()).unwrap();
        let positions =
            ExactPosition::first_in_random_games(&table, 300, &mut ChaCha8Rng::seed_from_u64(1));
        PositionSet::new(rules, serde_json::json!({"test": true}), 0, positions)
    })
}

/// The set written into `dir` as `name`.
fn write_set(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    set().write(&path).unwrap();
    path
}

/// The figures of `report` without the clock's.
fn without_times(mut report: Value) -> Value {
    for agent in report["agents"].as_array_mut().unwrap() {
        agent.as_object_mut().unwrap().remove("ms_per_move");
    }
    report
}

#[test]
fn json_figures_count_every_position_and_do_not_depend_on_threads() {
    let dir = temp("json");
    let file = write_set(&dir, "set.jsonl");
    let file = file.to_str().unwrap();
    let run = |threads: &str| {
        json(&sowing(&[
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random,greedy,mcts:20",
            "--positions",
            file,
            "--threads",
            threads,
            "--seed",
            "4",
            "--json",
        ]))
    };
    let one = run("1");
    assert_eq!(one["positions"], 300);
    assert_eq!(one["variant"], "en-dodoi-6");
    let agents = one["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 3);
    let critical = set()
        .positions
        .iter()
        .filter(|p| p.keeps_result() != p.state.legal_mask())
        .count();
    for a in agents {
        assert_eq!(a["positions"], 300);
        assert_eq!(a["keeps_result"]["n"], 300);
        assert_eq!(a["keeps_margin"]["n"], 300);
        assert_eq!(a["keeps_result_critical"]["n"], critical);
        let r = &a["keeps_result"];
        let value = r["value"].as_f64().unwrap();
        assert!(r["lo95"].as_f64().unwrap() <= value && value <= r["hi95"].as_f64().unwrap());
        let phases: u64 = a["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["keeps_result"]["n"].as_u64().unwrap())
            .sum();
        assert_eq!(phases, 300);
        assert!(a["ms_per_move"].as_f64().unwrap() >= 0.0);
    }
    // Every pair, position by position: the split agrees with the two rates.
    let pairs = one["paired"].as_array().unwrap();
    let names: Vec<(&str, &str)> = pairs
        .iter()
        .map(|p| (p["first"].as_str().unwrap(), p["second"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("random", "greedy"),
            ("random", "mcts:20"),
            ("greedy", "mcts:20")
        ]
    );
    for (pair, (i, j)) in pairs.iter().zip([(0, 1), (0, 2), (1, 2)]) {
        let c = &pair["critical"];
        assert_eq!(c["n"], critical);
        let hits = |k: usize| agents[k]["keeps_result_critical"]["hits"].as_f64().unwrap();
        let split = c["only_first"].as_f64().unwrap() - c["only_second"].as_f64().unwrap();
        assert_eq!(split, hits(i) - hits(j));
        let p = c["p_value"].as_f64().unwrap();
        assert!(p > 0.0 && p <= 1.0);
        assert_eq!(pair["margin"]["n"], 300);
    }
    let one = without_times(one);
    assert_eq!(without_times(run("2")), one);
    // 0 is one thread per core, as in every other command.
    assert_eq!(without_times(run("0")), one);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_table_names_every_agent_and_phase() {
    let dir = temp("table");
    let file = write_set(&dir, "set.jsonl");
    let o = sowing(&[
        "--variant",
        "en-dodoi-6",
        "--agents",
        "random, greedy",
        "--positions",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("300 positions of"), "{text}");
    assert!(
        text.contains("\nrandom ") && text.contains("\ngreedy "),
        "{text}"
    );
    assert!(text.contains("0-7 (") && text.contains("8-15 ("), "{text}");
    assert!(text.contains("\nrandom vs greedy "), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_count_takes_the_first_positions_of_the_committed_set() {
    let dir = temp("committed");
    write_set(&dir, "data/positions/en-dodoi-6.jsonl");
    let args = |n: &'static str| {
        [
            "--variant",
            "en-dodoi-6",
            "--agents",
            "greedy",
            "--positions",
            n,
            "--json",
        ]
    };
    let first = json(&sowing_in(&dir, &args("120")));
    assert_eq!(first["positions"], 120);
    assert_eq!(first["file"], "data/positions/en-dodoi-6.jsonl");
    // The first 120 of the file give what the file cut to 120 positions gives.
    let mut cut = set().clone();
    cut.positions.truncate(120);
    cut.header.count = 120;
    let cut_file = dir.join("cut.jsonl");
    cut.write(&cut_file).unwrap();
    let mut from_file = json(&sowing(&[
        "--variant",
        "en-dodoi-6",
        "--agents",
        "greedy",
        "--positions",
        cut_file.to_str().unwrap(),
        "--json",
    ]));
    from_file["file"] = first["file"].clone();
    assert_eq!(without_times(from_file), without_times(first));

    for (n, says) in [
        ("301", "holds only 300 positions"),
        ("0", "measures nothing"),
    ] {
        let o = sowing_in(&dir, &args(n));
        assert!(!o.status.success());
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
    let empty = temp("no-set");
    let o = sowing_in(&empty, &args("10"));
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("data/positions/en-dodoi-6.jsonl") && e.contains("does not exist"),
        "{e}"
    );
    assert!(e.contains("sowing positions --variant en-dodoi-6"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn files_of_other_rules_damaged_files_and_unknown_agents_are_refused() {
    let dir = temp("errors");
    let file = write_set(&dir, "set.jsonl");
    let path = file.to_str().unwrap();
    let refused = |args: &[&str], says: &[&str]| {
        let o = sowing(args);
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        for s in says {
            assert!(e.contains(s), "{args:?}: {e}");
        }
    };
    refused(
        &[
            "--variant",
            "en-dodoi-8",
            "--agents",
            "random",
            "--positions",
            path,
        ],
        &[path, "2x6", "not of en-dodoi-8 (2x8"],
    );
    refused(
        &[
            "--variant",
            "sadeqa-7",
            "--agents",
            "random",
            "--positions",
            path,
        ],
        &["sadeqa-7"],
    );
    let missing = dir.join("missing.jsonl");
    refused(
        &[
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random",
            "--positions",
            missing.to_str().unwrap(),
        ],
        &[missing.to_str().unwrap()],
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let damaged = dir.join("damaged.jsonl");
    std::fs::write(
        &damaged,
        text.replacen("\"result\":\"win\"", "\"result\":\"won\"", 1),
    )
    .unwrap();
    refused(
        &[
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random",
            "--positions",
            damaged.to_str().unwrap(),
        ],
        &[damaged.to_str().unwrap(), "line "],
    );
    refused(
        &[
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random,alphabeta",
            "--positions",
            path,
        ],
        &["alphabeta", "valid forms"],
    );
    refused(
        &[
            "--variant",
            "en-dodoi-6",
            "--agents",
            " , ",
            "--positions",
            path,
        ],
        &["--agents names no agent"],
    );
    refused(
        &[
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random",
            "--positions",
            path,
            "--threads",
            "100000",
        ],
        &["--threads 100000 is too many", "at most 1024"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
