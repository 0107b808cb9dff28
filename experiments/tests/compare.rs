//! `sowing compare` end to end, on games small enough to check by hand: the figures of a game the
//! first player always wins, "not measured" where the budget is too small, the cache (a run
//! stopped part way and resumed writes the same report as one uninterrupted run), accuracy on a
//! committed set of exact positions, and bad input.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use sowing_env::Rules;
use sowing_exact::positions::{ExactPosition, PositionSet};
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn sowing(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sowing"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the sowing binary runs")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-compare-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn results(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "sowing failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// One hole a side, two seeds each: South's only move sows one seed into North's hole and the
/// other back into its own, now empty, hole, and captures all four seeds. Every game is one ply
/// long, with one legal move, won by the first player.
#[test]
fn a_game_the_first_player_always_wins() {
    let dir = scratch("first-wins");
    fs::write(dir.join("first.json"), r#"{"holes": 1, "seeds": 2}"#).unwrap();
    let out = sowing(
        &dir,
        &[
            "compare",
            "--rules",
            "first.json",
            "--budget",
            "2s",
            "--out",
            "out",
            "--threads",
            "2",
        ],
    );
    let stdout = ok(&out);
    assert!(stdout.contains("| first |"), "{stdout}");
    let r = results(&dir.join("out"));
    let v = &r["variants"][0];
    assert_eq!(v["variant"], "first");
    let shape = &v["shape"];
    assert!(shape["games"].as_u64().unwrap() >= 100);
    assert_eq!(shape["plies"]["mean"], 1.0);
    assert_eq!(shape["plies"]["sd"], 0.0);
    assert_eq!(shape["branching"]["mean"], 1.0);
    assert_eq!(shape["laps_per_move"]["mean"], 1.0);
    assert_eq!(shape["sown_per_move"]["mean"], 2.0);
    assert_eq!(shape["first_player_wins"]["value"], 1.0);
    assert_eq!(shape["first_player_wins"]["hi95"], 1.0);
    // Wilson's lower bound for n of n: n / (n + z^2).
    let n = shape["games"].as_f64().unwrap();
    let lo = shape["first_player_wins"]["lo95"].as_f64().unwrap();
    assert!((lo - n / (n + 1.959964f64.powi(2))).abs() < 1e-6, "{lo}");
    assert_eq!(shape["truncated"]["value"], 0.0);
    assert_eq!(shape["endless_games"]["value"], 0.0);
    // The start and the end: two positions; one path of one move: log10(1) = 0.
    assert_eq!(shape["distinct_positions"].as_f64().unwrap().round(), 2.0);
    assert_eq!(shape["log10_game_tree"], 0.0);
    // The whole game is solved by a table: South takes all four seeds.
    assert_eq!(v["solved"]["status"], "proven", "{}", v["solved"]);
    assert_eq!(v["solved"]["winner"], "South");
    assert_eq!(v["solved"]["margin"], 4);
    assert_eq!(v["solved"]["by"], "whole table");
    assert!(stdout.contains("| South wins by 4 |"), "{stdout}");
    // Every agent wins every game as South.
    for b in v["balance"].as_array().unwrap() {
        assert_eq!(b["first_player_wins"]["value"], 1.0, "{b}");
    }
    // Each agent of a pair wins exactly the games it plays as South: 50%, so no chain grows
    // beyond its first level.
    for c in v["chains"].as_array().unwrap() {
        assert_eq!(c["chain"].as_array().unwrap().len(), 1, "{c}");
        for p in c["pairs"].as_array().unwrap() {
            assert_eq!(p["score"]["value"], 0.5, "{p}");
        }
    }
    let why = v["accuracy"]["not_measured"].as_str().unwrap();
    assert!(why.contains("first is a rules file"), "{why}");
    let report = fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(report.contains("--rules first.json"));
    assert!(report.contains("favours the first player"));
    for file in [
        "summary.csv",
        "shape.csv",
        "lengths.csv",
        "balance.csv",
        "matches.csv",
        "accuracy.csv",
        "learning.csv",
    ] {
        assert!(dir.join("out").join(file).exists(), "{file}");
    }
    // A rules file is not trained; learning.csv has its header (the network's accuracy after
    // each evaluated iteration) and no rows.
    assert!(
        v["learning"]["not_measured"].is_string(),
        "{}",
        v["learning"]
    );
    let learning = fs::read_to_string(dir.join("out/learning.csv")).unwrap();
    assert!(
        learning.starts_with("variant,iteration,result_n,result,result_lo95,result_hi95,"),
        "{learning}"
    );
    assert_eq!(learning.lines().count(), 1, "{learning}");
    let lengths = fs::read_to_string(dir.join("out/lengths.csv")).unwrap();
    assert_eq!(
        lengths.lines().nth(1).unwrap(),
        format!("first,1,{}", n as u64)
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_budget_too_small_reports_not_measured_never_zero() {
    let dir = scratch("tiny");
    let out = sowing(
        &dir,
        &[
            "compare",
            "--variants",
            "en-dodoi-6",
            "--budget",
            "0.05s",
            "--out",
            "out",
            "--threads",
            "1",
        ],
    );
    let stdout = ok(&out);
    assert!(stdout.contains("not measured"), "{stdout}");
    let r = results(&dir.join("out"));
    let v = &r["variants"][0];
    for b in v["balance"].as_array().unwrap() {
        if b["agent"] == "mcts:200" {
            assert_eq!(b["games"], 0);
            assert!(b["not_measured"].is_string());
        }
    }
    let mcts = v["chains"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["family"] == "mcts")
        .unwrap();
    assert!(mcts["not_measured"].is_string(), "{mcts}");
    assert!(mcts.get("chain").is_none());
    let summary = fs::read_to_string(dir.join("out/summary.csv")).unwrap();
    let row = summary.lines().nth(1).unwrap();
    assert!(
        row.ends_with("not measured,not measured,not measured,not measured"),
        "{row}"
    );
    // The solver has a few thousand positions here, far too few for en-dodoi-6's start, but
    // the start is proven and shipped (data/proven.json): read, not searched.
    assert!(row.contains(",South wins by 8,"), "{row}");
    assert_eq!(v["solved"]["status"], "proven", "{}", v["solved"]);
    assert_eq!(v["solved"]["positions"], 0, "{}", v["solved"]);
    let by = v["solved"]["by"].as_str().unwrap();
    assert!(by.starts_with("shipped proof"), "{by}");
    // No committed set of exact positions where it ran: accuracy says so, and how to make one.
    let why = v["accuracy"]["not_measured"].as_str().unwrap();
    assert!(
        why.contains("data/positions/en-dodoi-6.jsonl") && why.contains("sowing positions"),
        "{why}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// 150 en-dodoi-6 positions with at most 10 seeds on the board, labelled by a table of 10 seeds
/// (the first such position of random games), written as the committed set under `dir`.
fn commit_endgames(dir: &Path) -> PositionSet {
    endgames(dir, "en-dodoi-6", 150, 3, "data/positions/en-dodoi-6.jsonl")
}

/// `count` positions of `preset` with at most 10 seeds on the board, labelled by a table of 10
/// seeds (the first such position of random games of `seed`), written to `file` under `dir`.
fn endgames(dir: &Path, preset: &str, count: usize, seed: u64, file: &str) -> PositionSet {
    let rules = Rules::preset(preset).unwrap();
    let table = Tablebase::build(&rules, 10, &BuildOptions::default()).unwrap();
    let positions =
        ExactPosition::first_in_random_games(&table, count, &mut ChaCha8Rng::seed_from_u64(seed));
    let set = PositionSet::new(rules, serde_json::json!(null), 0, positions);
    let path = dir.join(file);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    set.write(path).unwrap();
    set
}

#[test]
fn a_phase_set_counts_on_the_same_phases_only() {
    let dir = scratch("phase-set");
    for preset in ["en-dodoi-6", "cross-endodoi"] {
        endgames(
            &dir,
            preset,
            400,
            3,
            &format!("data/positions/{preset}.jsonl"),
        );
    }
    let args = [
        "compare",
        "--variants",
        "en-dodoi-6,cross-endodoi",
        "--budget",
        "20s",
        "--out",
        "out",
        "--threads",
        "2",
    ];
    let plain_critical = |r: &Value, variant: &str| -> u64 {
        let phase_matched = &r["ranking"]["phase_matched"];
        phase_matched["variants"]
            .as_array()
            .unwrap_or_else(|| panic!("no ranking on the same phases: {}", r["ranking"]))
            .iter()
            .find(|v| v["variant"] == variant)
            .unwrap()["critical"]
            .as_u64()
            .unwrap()
    };
    ok(&sowing(&dir, &args));
    let before = results(&dir.join("out"));
    assert_eq!(
        before["ranking"]["phase_matched"]["phase_sets"],
        serde_json::json!([])
    );
    // The same phases' positions, from other games, as en-dodoi-6's phase set.
    endgames(
        &dir,
        "en-dodoi-6",
        400,
        4,
        "data/positions/phases/en-dodoi-6.jsonl",
    );
    ok(&sowing(&dir, &args));
    let after = results(&dir.join("out"));
    let used = &after["ranking"]["phase_matched"]["phase_sets"];
    assert_eq!(used[0]["variant"], "en-dodoi-6", "{used}");
    assert_eq!(used[0]["file"], "data/positions/phases/en-dodoi-6.jsonl");
    let measured = used[0]["positions"].as_u64().unwrap();
    assert!(measured >= 100, "{used}");
    // Only the ranking on the same phases counts them: the plain ranking and the agents'
    // figures are the committed set's as before.
    assert_eq!(after["ranking"]["variants"], before["ranking"]["variants"]);
    for i in 0..2 {
        assert_eq!(
            after["variants"][i]["accuracy"], before["variants"][i]["accuracy"],
            "variant {i}"
        );
    }
    assert!(
        plain_critical(&after, "en-dodoi-6") > plain_critical(&before, "en-dodoi-6"),
        "{}",
        after["ranking"]["phase_matched"]
    );
    assert_eq!(
        plain_critical(&after, "cross-endodoi"),
        plain_critical(&before, "cross-endodoi")
    );
    let report = fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(
        report.contains(&format!(
            "from phase sets (positions drawn from chosen phases only, `sowing positions \
             --phases`): en-dodoi-6: {measured} positions of data/positions/phases/en-dodoi-6.jsonl."
        )),
        "{report}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_agent_level_is_measured_on_the_first_positions_of_the_committed_set() {
    let dir = scratch("accuracy");
    let set = commit_endgames(&dir);
    let args = [
        "compare",
        "--variants",
        "en-dodoi-6",
        "--budget",
        "4s",
        "--out",
        "out",
        "--threads",
        "2",
    ];
    let stdout = ok(&sowing(&dir, &args));
    assert!(stdout.contains("critical accuracy: mcts:1000"), "{stdout}");
    let r = results(&dir.join("out"));
    let accuracy = &r["variants"][0]["accuracy"];
    assert_eq!(
        accuracy["positions_file"], "data/positions/en-dodoi-6.jsonl",
        "{accuracy}"
    );
    // Whole units of 100 positions, at most the 150 of the set.
    assert_eq!(accuracy["positions"], 100);
    let critical = set.positions[..100]
        .iter()
        .filter(|p| p.keeps_result() != p.state.legal_mask())
        .count();
    let agents = accuracy["agents"].as_array().unwrap();
    let names: Vec<&str> = agents
        .iter()
        .map(|a| a["agent"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "random");
    assert_eq!(names[9], "mcts:1000");
    assert_eq!(names.len(), 10);
    for a in agents {
        assert_eq!(a["keeps_result"]["n"], 100, "{a}");
        assert_eq!(a["keeps_margin"]["n"], 100, "{a}");
        assert_eq!(a["keeps_result_critical"]["n"], critical, "{a}");
        let phases: u64 = a["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["keeps_result"]["n"].as_u64().unwrap())
            .sum();
        assert_eq!(phases, 100, "{a}");
    }
    let report = fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(report.contains("### Accuracy against exact positions"));
    assert!(
        report.contains("| en-dodoi-6 | mcts:1000 | 100 |"),
        "{report}"
    );
    // The report opens with the ranking: the difficulty score is the mean, over the critical
    // positions, of the share of the ladder giving the result away, which is the ladder's mean
    // error rate on them (every agent meets the same critical positions).
    assert!(report.contains("## Which variant is hardest"), "{report}");
    let ranked = r["ranking"]["variants"].as_array().unwrap();
    // One variant has no other to match phases with.
    assert!(r["ranking"]["phase_matched"].is_null(), "{}", r["ranking"]);
    assert!(!report.contains("### On the same phases"), "{report}");
    if critical >= 30 {
        assert_eq!(ranked.len(), 1, "{}", r["ranking"]);
        assert_eq!(ranked[0]["variant"], "en-dodoi-6");
        assert_eq!(ranked[0]["critical"], critical);
        let errors: f64 = agents
            .iter()
            .map(|a| 1.0 - a["keeps_result_critical"]["value"].as_f64().unwrap())
            .sum();
        let points = ranked[0]["points"].as_f64().unwrap();
        assert!((points - 100.0 * errors / 10.0).abs() < 1e-6, "{points}");
        let (lo, hi) = (
            ranked[0]["lo95"].as_f64().unwrap(),
            ranked[0]["hi95"].as_f64().unwrap(),
        );
        assert!(lo < points && points < hi, "{lo} {points} {hi}");
        assert!(report.contains("| 1 | en-dodoi-6 |"), "{report}");
    } else {
        assert!(ranked.is_empty());
        assert!(
            report.contains("Not ranked: en-dodoi-6: fewer than 30 critical"),
            "{report}"
        );
    }
    let csv = fs::read_to_string(dir.join("out/accuracy.csv")).unwrap();
    assert!(csv.starts_with("variant,agent,phase,result_n,"), "{csv}");
    assert!(csv.contains("\nen-dodoi-6,greedy,all,100,"), "{csv}");
    assert!(csv.contains("\nen-dodoi-6,greedy,0-7,"), "{csv}");

    // Run again: every unit comes from the cache, and the report is the same.
    let before = report_files(&dir.join("out"));
    ok(&sowing(&dir, &args));
    assert_eq!(report_files(&dir.join("out")), before);
    // A changed set is a new measurement, not the cached one.
    let mut fewer = set.clone();
    fewer.positions.truncate(120);
    fewer.header.count = 120;
    fewer
        .write(dir.join("data/positions/en-dodoi-6.jsonl"))
        .unwrap();
    ok(&sowing(&dir, &args));
    let timing = fs::read_to_string(dir.join("out/timing.csv")).unwrap();
    let sets: std::collections::BTreeSet<&str> = timing
        .lines()
        .filter_map(|l| l.split(',').nth(1)?.strip_prefix("accuracy random on set "))
        .collect();
    assert_eq!(sets.len(), 2, "{timing}");
    fs::remove_dir_all(&dir).unwrap();
}

/// The files of a report, by name, for comparing two runs.
fn report_files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().unwrap() != "timing.csv")
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                String::from_utf8_lossy(&fs::read(&p).unwrap()).into_owned(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_stopped_run_resumes_to_the_same_report_as_an_uninterrupted_one() {
    let whole = scratch("whole");
    let parts = scratch("parts");
    for dir in [&whole, &parts] {
        fs::write(dir.join("small.json"), r#"{"holes": 3, "seeds": 2}"#).unwrap();
        fs::write(dir.join("first.json"), r#"{"holes": 1, "seeds": 2}"#).unwrap();
    }
    let args = [
        "compare",
        "--rules",
        "small.json",
        "--rules",
        "first.json",
        "--budget",
        "0.4s",
        "--out",
        "out",
        "--seed",
        "11",
        "--threads",
        "2",
    ];
    ok(&sowing(&whole, &args));

    let mut stopped = args.to_vec();
    stopped.extend(["--max-units", "3"]);
    let first = ok(&sowing(&parts, &stopped));
    assert!(first.contains("stopped after 3 units"), "{first}");
    assert!(!parts.join("out/report.md").exists());
    let second = ok(&sowing(&parts, &stopped));
    assert!(second.contains("stopped after 3 units"), "{second}");
    ok(&sowing(&parts, &args));

    let a = report_files(&whole.join("out"));
    let b = report_files(&parts.join("out"));
    assert!(a.iter().any(|(name, _)| name == "report.md"));
    assert_eq!(a.len(), b.len());
    for ((name_a, text_a), (name_b, text_b)) in a.iter().zip(&b) {
        assert_eq!(name_a, name_b);
        assert!(text_a == text_b, "{name_a} differs");
    }
    // A third run finds everything cached (every figure read back from JSON) and writes the
    // same report again.
    ok(&sowing(&parts, &args));
    for ((name_b, text_b), (name_c, text_c)) in b.iter().zip(&report_files(&parts.join("out"))) {
        assert_eq!(name_b, name_c);
        assert!(
            text_b == text_c,
            "{name_b} differs when read from the cache"
        );
    }
    fs::remove_dir_all(&whole).unwrap();
    fs::remove_dir_all(&parts).unwrap();
}

/// Every cached unit's file under `dir`, recursively.
fn cached_units(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(cached_units(&path));
        } else if path.extension().is_some_and(|e| e == "json") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// Cached units edited by hand (a win count beyond the games, a sketch cut short, a curve
/// point outside its interval) are measured again, with a warning that names the file, and the
/// report is the one a clean run writes: an edited cache never prints a 1,250,000% win rate.
#[test]
fn cached_units_that_do_not_add_up_are_measured_again() {
    let dir = scratch("edited-cache");
    fs::write(dir.join("first.json"), r#"{"holes": 1, "seeds": 2}"#).unwrap();
    let args = [
        "compare",
        "--rules",
        "first.json",
        "--budget",
        "2s",
        "--out",
        "out",
        "--threads",
        "2",
    ];
    ok(&sowing(&dir, &args));
    let clean = report_files(&dir.join("out"));
    let mut edited = Vec::new();
    for path in cached_units(&dir.join("out/cache")) {
        let mut entry: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let games = entry["key"]["games"].as_u64().unwrap();
        let result = &mut entry["result"];
        if result.get("a_wins").is_some() {
            result["a_wins"] = (12_500 * games).into();
        } else if result.get("south_wins").is_some() {
            result["south_wins"] = (games + 1).into();
        } else {
            continue;
        }
        fs::write(&path, entry.to_string()).unwrap();
        edited.push(path);
    }
    assert!(edited.len() >= 2, "{edited:?}");
    let out = sowing(&dir, &args);
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for path in &edited {
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        assert!(
            stderr.contains(&format!("warning: cached unit {name} does not add up")),
            "{name}: {stderr}"
        );
    }
    assert!(stderr.contains("does not add up"), "{stderr}");
    assert!(stderr.contains("measuring it again"), "{stderr}");
    let again = report_files(&dir.join("out"));
    assert_eq!(clean.len(), again.len());
    for ((name_a, text_a), (name_b, text_b)) in clean.iter().zip(&again) {
        assert_eq!(name_a, name_b);
        assert!(text_a == text_b, "{name_a} differs after the edited units");
    }
    // Measured again, the units are whole once more: a third run reads them quietly.
    let out = sowing(&dir, &args);
    ok(&out);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let dir = scratch("bad");
    let cases: [(&[&str], &str); 4] = [
        (&["--variants", "en-dodoi-6", "--budget", "30"], "30m"),
        (&["--variants", "nope", "--budget", "1s"], "en-dodoi-6"),
        (
            &["--rules", "missing.json", "--budget", "1s"],
            "missing.json",
        ),
        (
            &[
                "--variants",
                "en-dodoi-6",
                "--budget",
                "1s",
                "--threads",
                "0",
            ],
            "--threads",
        ),
    ];
    for (args, expect) in cases {
        let mut all = vec!["compare", "--out", "out"];
        all.extend(args);
        let out = sowing(&dir, &all);
        assert!(!out.status.success(), "{args:?} succeeded");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
    }
    fs::remove_dir_all(&dir).unwrap();
}
