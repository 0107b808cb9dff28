//! The exact tools as a user runs them: `solve --tablebase` (and `--margin`) against the table
//! of the whole game, `positions` (labels, dropped counts, refusals) and `solved`.

mod common;

use common::{sowing, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A path in the temporary directory, unique to this test process and `name`.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sowing-exact-cli-{}-{name}", std::process::id()))
}

/// A 2x3 game with three seeds a hole (18 in all), as a rules file.
fn rules_file(name: &str) -> PathBuf {
    let path = temp(&format!("{name}.json"));
    std::fs::write(&path, r#"{"holes": 3, "seeds": 3}"#).unwrap();
    path
}

/// A table of the rules in `rules` up to `max_seeds`, written to `name`.
fn build(rules: &Path, max_seeds: u32, name: &str) -> PathBuf {
    let out = temp(name);
    let o = sowing(&[
        "tablebase",
        "build",
        "--rules",
        rules.to_str().unwrap(),
        "--max-seeds",
        &max_seeds.to_string(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

#[test]
fn solve_with_a_small_table_brackets_the_margin_the_whole_table_gives() {
    let rules = rules_file("margin");
    let whole = build(&rules, 18, "margin-18.tb");
    let part = build(&rules, 10, "margin-10.tb");
    let o = sowing(&[
        "tablebase",
        "probe",
        "--rules",
        rules.to_str().unwrap(),
        "--tablebase",
        whole.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let probe: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let margin = probe["final_margin"].as_i64().unwrap();
    assert!(margin > 0, "South wins this game: {probe}");

    let o = sowing(&[
        "solve",
        "--rules",
        rules.to_str().unwrap(),
        "--tablebase",
        part.to_str().unwrap(),
        "--margin",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(&format!("at least {margin:+}; at most {margin:+} (proven")),
        "{out}"
    );
    // The whole table decides the start itself.
    let o = sowing(&[
        "solve",
        "--rules",
        rules.to_str().unwrap(),
        "--tablebase",
        whole.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert!(
        out.contains("South to move forces a win (the tablebase holds the position)"),
        "{out}"
    );
    // The result search settles the start and each position after a first move as the whole
    // table says (a win for South), with the small table at its leaves.
    let o = sowing(&[
        "solve",
        "--rules",
        rules.to_str().unwrap(),
        "--tablebase",
        part.to_str().unwrap(),
        "--result",
    ]);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("South to move: a win under perfect play ("),
        "{out}"
    );
    for (extra, want) in [
        (vec!["--guide", "/no/such/run"], "give it with --result"),
        (vec!["--result", "--margin"], "cannot be used with"),
        (
            vec!["--result", "--nodes", "1"],
            "not settled within 1 positions",
        ),
        // solve has no --threads: its advice names only what it has.
        (
            vec!["--result", "--nodes", "4611686018427387904"],
            "fit: give a smaller --nodes or --table-bits\n",
        ),
    ] {
        let mut args = vec!["solve", "--rules", rules.to_str().unwrap()];
        args.extend(extra.iter().copied());
        let o = sowing(&args);
        let said = format!("{}{}", stdout(&o), stderr(&o));
        assert!(said.contains(want), "{args:?}: {said}");
    }
    // A table of other rules is refused, naming the file and the field.
    let o = sowing(&[
        "solve",
        "--variant",
        "en-dodoi-6",
        "--tablebase",
        whole.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains(whole.to_str().unwrap()) && err.contains("holes"),
        "{err}"
    );
    for f in [rules, whole, part] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn positions_are_labelled_as_the_whole_game_table_labels_them_whatever_the_threads() {
    use sowing_exact::positions::{ExactPosition, LabelSource, PositionSet};
    use sowing_exact::tablebase::Tablebase;
    let rules = rules_file("positions");
    let whole = build(&rules, 18, "positions-18.tb");
    let part = build(&rules, 6, "positions-6.tb");
    let make = |threads: &str, name: &str| {
        let out = temp(name);
        let o = sowing(&[
            "positions",
            "--rules",
            rules.to_str().unwrap(),
            "--count",
            "40",
            "--seed",
            "3",
            "--agents",
            "alphabeta:2,greedy",
            "--opening",
            "2",
            "--tablebase",
            part.to_str().unwrap(),
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        (out, serde_json::from_str::<Value>(&stdout(&o)).unwrap())
    };
    let (one, summary) = make("1", "positions-1.jsonl");
    let (two, _) = make("2", "positions-2.jsonl");
    assert_eq!(
        std::fs::read_to_string(&one).unwrap(),
        std::fs::read_to_string(&two).unwrap(),
        "the same set whatever the threads"
    );
    let set = PositionSet::read(&one).unwrap();
    assert_eq!(set.positions.len(), 40);
    assert_eq!(summary["count"], 40);
    assert_eq!(set.header.made_by["seed"], 3);
    let table = Tablebase::open(&whole).unwrap();
    let mut by_search = 0;
    for p in &set.positions {
        let truth = ExactPosition::from_tablebase(&p.state, &table).unwrap();
        let results = |e: &ExactPosition| e.moves.iter().map(|m| m.result).collect::<Vec<_>>();
        assert_eq!(results(p), results(&truth), "{:?}", p.state);
        assert_eq!(p.result, truth.result);
        by_search += usize::from(p.source == LabelSource::Solver);
        if p.source == LabelSource::Tablebase {
            assert!(p.seeds() <= 6 && p.margin == truth.margin);
        }
    }
    assert!(by_search > 10, "{by_search} labelled by the search");
    // The summary's phases add up.
    let phases = summary["phases"].as_array().unwrap();
    let sum = |key: &str| phases.iter().map(|p| p[key].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("tablebase") + sum("search"), 40);
    assert_eq!(sum("dropped"), summary["dropped"].as_u64().unwrap());
    for f in [rules, whole, part, one, two] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn positions_not_settled_are_dropped_and_counted() {
    let out = temp("dropped.jsonl");
    let o = sowing(&[
        "positions",
        "--variant",
        "en-dodoi-6",
        "--count",
        "10",
        "--agents",
        "greedy,greedy",
        "--nodes",
        "2000",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let set = sowing_exact::positions::PositionSet::read(&out).unwrap();
    assert_eq!(set.positions.len(), 10);
    assert!(set.header.dropped > 0, "{text}");
    assert!(
        text.contains(&format!("{} dropped unsettled", set.header.dropped)),
        "{text}"
    );
    // Few positions settle in 2,000 positions of search: only the last few seeds.
    assert!(set.positions.iter().all(|p| p.seeds() < 24), "{text}");
    let _ = std::fs::remove_file(out);
}

#[test]
fn positions_refuses_bad_requests_clearly() {
    let out = temp("refused.jsonl");
    let rules = rules_file("refused");
    let small = build(&rules, 6, "refused-6.tb");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--agents", "greedy"], "--agents takes two agents"),
        (
            vec!["--agents", "greedy,wizard"],
            "unknown agent \"wizard\"",
        ),
        (vec!["--nodes", "0"], "--nodes must be at least 1"),
        (
            vec!["--nodes", "4611686018427387904"],
            "give a smaller --nodes or --table-bits, or fewer --threads",
        ),
        (vec!["--tablebase", small.to_str().unwrap()], "holes"),
        (vec!["--tablebase", "/no/such.tb"], "/no/such.tb"),
        // Without the feature torch it needs it; with it, there is no run there.
        (vec!["--guide", "/no/such/run"], "/no/such/run"),
        (vec!["--guide-depth", "601"], "--guide-depth"),
        // The library's refusal, its setting named by the command's flag.
        (
            vec!["--mid-game", "101"],
            "--mid-game must be a share of the games in percent, 0 to 100, got 101",
        ),
        (
            vec!["--count", "0"],
            "--count must be at least 1 position, got 0",
        ),
        (vec!["--phases", "40-10"], "is not a window of phases"),
        (
            vec!["--phases", "10-40", "--mid-game", "5"],
            "--phases must be left out when a mid-game share is given",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["positions", "--variant", "en-dodoi-6", "--out"];
        args.push(out.to_str().unwrap());
        // Five positions, unless the case gives its own count.
        if !extra.contains(&"--count") {
            args.extend(["--count", "5"]);
        }
        args.extend(extra.iter().copied());
        let o = sowing(&args);
        assert!(!o.status.success(), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    assert!(!out.exists());
    for f in [rules, small] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn solved_starts_agree_with_an_exact_search_and_the_solver() {
    use sowing_env::{Direction, Rules, RulesSpec, State, Trigger};
    use sowing_exact::{ResultSearch, Solver, Wdl};
    let o = sowing(&["solved", "--holes", "2..3", "--seeds", "1..2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(rows.len(), 2 * 2 * 2 * 2);
    let mut decided = 0;
    for row in &rows {
        let mut spec = RulesSpec::new(
            row["holes"].as_u64().unwrap() as u32,
            row["seeds"].as_u64().unwrap() as u32,
        );
        spec.trigger = serde_json::from_value::<Trigger>(row["trigger"].clone()).unwrap();
        spec.direction = serde_json::from_value::<Direction>(row["direction"].clone()).unwrap();
        let rules = Rules::new(spec).unwrap();
        let start = State::initial(&rules);
        let value = &row["start"];
        let want = match value["result"].as_str().unwrap() {
            "South" => Wdl::Win,
            "North" => Wdl::Loss,
            _ => Wdl::Draw,
        };
        let exact = ResultSearch::new(16).result(&start, u64::MAX);
        assert_eq!(exact, Some(want), "{row}");
        if want == Wdl::Win {
            // South forces exactly this lead: at least it, and no more (by the parity, 2 more).
            let margin = value["margin"].as_i64().unwrap() as i32;
            let mut solver = Solver::new(16);
            let at_least = solver.prove_margin(&start, margin, u64::MAX, 99, false);
            assert!(at_least.winning.is_some(), "{row}");
            let above = solver.prove_margin(&start, margin + 1, u64::MAX, 99, true);
            assert!(above.lost(&start), "{row}");
            decided += 1;
        }
    }
    assert!(decided > 4, "{decided}");
    // Bad ranges and words are refused with what is allowed; large sets are skipped, not built.
    for (args, want) in [
        (vec!["--holes", "0..2"], "from 1 up"),
        (vec!["--holes", "4..3"], "low end first"),
        (vec!["--seeds", "x"], "inclusive range such as 3..5"),
        (vec!["--trigger", "grab"], "not one of take, leave"),
        (vec!["--direction", "cw"], "not one of ccw, parity"),
    ] {
        let mut all = vec!["solved"];
        all.extend(args.iter().copied());
        let o = sowing(&all);
        assert!(!o.status.success(), "{args:?}");
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
    let o = sowing(&[
        "solved",
        "--holes",
        "6",
        "--seeds",
        "4",
        "--trigger",
        "take",
        "--direction",
        "ccw",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("skipped: 1399358844975 positions, more than --max-positions"),
        "{}",
        stdout(&o)
    );
}

/// `solved --proven` lists the shipped proven starts, with the command that proves each again;
/// `--json` gives the file's entries.
#[test]
fn solved_proven_lists_the_shipped_starts() {
    let o = sowing(&["solved", "--proven"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let line = text
        .lines()
        .find(|l| l.starts_with("en-dodoi-6 "))
        .expect("en-dodoi-6 is proven");
    assert!(line.contains("South wins by 8"), "{line}");
    assert!(text.contains("proven again by: sowing tablebase build --variant en-dodoi-6"));
    let o = sowing(&["solved", "--proven", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let six = v
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "en-dodoi-6")
        .unwrap();
    assert_eq!(six["margin"], 8);
    assert_eq!(six["first_move"], 2);
}

/// A build killed part-way goes on from its checkpoint when run again, and writes the same file
/// as a build run through; the checkpoint is gone once the table is written.
#[test]
fn a_killed_tablebase_build_goes_on_from_its_checkpoint_to_the_same_file() {
    let build_args = |out: &Path, minutes: &str| -> Vec<String> {
        [
            "tablebase",
            "build",
            "--variant",
            "en-dodoi-6",
            "--max-seeds",
            "13",
            "--threads",
            "1",
            "--checkpoint-minutes",
            minutes,
            "--out",
            out.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let through = temp("through-13.tb");
    let args = build_args(&through, "1440");
    let o = sowing(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", stderr(&o));
    let killed = temp("killed-13.tb");
    let partial = PathBuf::from(format!("{}.partial", killed.display()));
    let args = build_args(&killed, "0");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args(&args)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once a checkpoint of at least 8 seeds is there (or let it finish on a fast machine).
    let started = std::time::Instant::now();
    loop {
        let layers = sowing_exact::tablebase::Tablebase::open(&partial)
            .map(|t| t.max_seeds())
            .unwrap_or(0);
        if layers >= 8 || started.elapsed().as_secs() > 120 {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    child.wait().unwrap();
    if partial.exists() {
        let o = sowing(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("resumed: the layers to"),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(
        std::fs::read(&killed).unwrap(),
        std::fs::read(&through).unwrap()
    );
    assert!(!partial.exists(), "the checkpoint is removed");
}

/// Bad checkpoint settings are refused before any work.
#[test]
fn bad_checkpoint_minutes_are_refused() {
    for bad in ["-1", "1e9", "NaN", "ten"] {
        let out = temp("never.tb");
        let o = sowing(&[
            "tablebase",
            "build",
            "--variant",
            "en-dodoi-6",
            "--max-seeds",
            "4",
            &format!("--checkpoint-minutes={bad}"),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("is not a number of minutes from 0 to 1440"),
            "{}",
            stderr(&o)
        );
        assert!(!out.exists());
    }
}
