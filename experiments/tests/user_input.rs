//! Nothing a user gives the `sowing` command crashes it: every refusal is an error message and
//! exit code 1 (or clap's 2 for a malformed command line), never a panic (exit 101), an abort or a
//! signal. Output into a full disk, rules whose start has no legal move, and sizes from the
//! command line, generated at random for every subcommand, are each tried here on the binary.

mod common;

use common::{sowing, stderr};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

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

/// How a command given a time limit ended.
enum Ended {
    /// By itself, with this exit code (`None`: a signal) and standard error.
    Exited(Option<i32>, String),
    /// Still running at the limit (it accepted its input and was at work): stopped.
    Running,
}

/// Run `sowing args` with standard input closed, for at most `limit`.
fn run_for(args: &[String], limit: Duration, dir: &Path) -> Ended {
    let err_path = dir.join("stderr");
    let err_file = std::fs::File::create(&err_path).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err_file)
        .spawn()
        .unwrap();
    let began = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let err = std::fs::read_to_string(&err_path).unwrap_or_default();
            return Ended::Exited(status.code(), err);
        }
        if began.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            return Ended::Running;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `args` ended by itself with success or an error message (codes 0 to 2), or was still at work
/// at the limit: never a panic, an abort or a signal.
fn assert_no_crash_within(args: &[String], limit: Duration, dir: &Path) {
    if let Ended::Exited(code, err) = run_for(args, limit, dir) {
        assert!(
            matches!(code, Some(0..=2)),
            "{args:?} ended with {code:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        if code != Some(0) {
            assert!(
                err.contains("error"),
                "{args:?} failed without saying why: {err}"
            );
        }
    }
}

/// A number as a user might type one: edges of every integer type, zero, negatives, fractions,
/// exponents, huge digit strings, words and nothing.
fn any_number(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..14) {
        0 => "0".into(),
        1 => "1".into(),
        2 => rng.random_range(2..100u32).to_string(),
        3 => rng.random_range(100..100_000u32).to_string(),
        4 => u32::MAX.to_string(),
        5 => (u32::MAX - 1).to_string(),
        6 => u64::MAX.to_string(),
        7 => rng.random::<u64>().to_string(),
        8 => format!("-{}", rng.random_range(1..1000u32)),
        9 => format!("{:.3}", rng.random_range(0.0..10.0f64)),
        10 => ["1e300", "NaN", "inf", "-0"][rng.random_range(0..4)].into(),
        11 => "123456789012345678901234567890".into(),
        12 => "seven".into(),
        _ => String::new(),
    }
}

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-input-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A subcommand with its fixed arguments, and the flags that take numbers with small values.
type Subcommand<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>);

/// Every number a subcommand takes, given generated values one flag at a time (the others
/// small): each run ends with a result or an error message within a second, or is at work then.
#[test]
fn generated_numbers_for_every_flag_never_crash_a_command() {
    let dir = scratch("numbers");
    let six = ["--variant", "en-dodoi-6"];
    let commands: Vec<Subcommand> = vec![
        (
            [&["random"][..], &six].concat(),
            vec![("--games", "10"), ("--seed", "0"), ("--threads", "1")],
        ),
        ([&["bench"][..], &six].concat(), vec![("--seconds", "0.01")]),
        (
            [&["arena", "--agents", "random,greedy"][..], &six].concat(),
            vec![
                ("--games", "2"),
                ("--seed", "0"),
                ("--threads", "1"),
                ("--opening", "0"),
            ],
        ),
        (
            [&["match", "--agents", "random,greedy"][..], &six].concat(),
            vec![
                ("--to", "2"),
                ("--seed", "0"),
                ("--opening", "0"),
                ("--games-per-estimate", "4"),
                ("--max-games", "20"),
                ("--threads", "1"),
            ],
        ),
        (
            [&["solve", "--moves", "0,2,1,0,3"][..], &six].concat(),
            vec![
                ("--nodes", "1000"),
                ("--depth", "5"),
                ("--table-bits", "12"),
            ],
        ),
        (
            [&["tablebase", "build", "--out", "table.bin"][..], &six].concat(),
            vec![("--max-seeds", "4"), ("--threads", "1")],
        ),
        (
            vec!["compare", "--variants", "en-dodoi-6", "--out", "compare"],
            vec![
                ("--budget", "1s"),
                ("--seed", "0"),
                ("--threads", "1"),
                ("--max-units", "1"),
            ],
        ),
        (
            [&["play", "--opponent", "random"][..], &six].concat(),
            vec![("--seed", "0")],
        ),
        ([&["replay", "--moves", "1"][..], &six].concat(), vec![]),
        (
            [&["positions", "--out", "positions.jsonl"][..], &six].concat(),
            vec![
                ("--count", "2"),
                ("--seed", "0"),
                ("--opening", "4"),
                ("--nodes", "1000"),
                ("--threads", "1"),
                ("--table-bits", "12"),
            ],
        ),
        (
            vec!["solved", "--trigger", "take", "--direction", "ccw"],
            vec![
                ("--holes", "2"),
                ("--seeds", "1"),
                ("--max-positions", "1000"),
                ("--threads", "1"),
            ],
        ),
        (
            [&["accuracy", "--agents", "random"][..], &six].concat(),
            vec![("--positions", "5"), ("--seed", "0"), ("--threads", "1")],
        ),
        (
            vec!["review", "--records", "records"],
            vec![
                ("--opening", "2"),
                ("--nodes", "1000"),
                ("--threads", "1"),
                ("--table-bits", "12"),
            ],
        ),
    ];
    // One game for `review` to read.
    std::fs::create_dir_all(dir.join("records")).unwrap();
    let rules = sowing_env::Rules::preset("en-dodoi-6").unwrap();
    let game = sowing_env::GameRecord::from_moves(&rules, &[2, 0, 3, 1, 4, 0]).unwrap();
    std::fs::write(dir.join("records/game.json"), game.to_json()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    for (base, flags) in &commands {
        let tries = if flags.is_empty() { 0 } else { 6 };
        for (i, (flag, _)) in flags.iter().enumerate() {
            for _ in 0..tries {
                let mut args: Vec<String> = base.iter().map(|s| s.to_string()).collect();
                for (j, (other, small)) in flags.iter().enumerate() {
                    args.push(other.to_string());
                    args.push(if i == j {
                        let n = any_number(&mut rng);
                        // The budget takes a unit.
                        if *flag == "--budget" {
                            format!("{n}s")
                        } else {
                            n
                        }
                    } else {
                        small.to_string()
                    });
                }
                assert_no_crash_within(&args, Duration::from_secs(1), &dir);
            }
        }
    }
    // The moves of a replay, generated whole.
    for _ in 0..30 {
        let moves: Vec<String> = (0..rng.random_range(0..12))
            .map(|_| any_number(&mut rng))
            .collect();
        let args: Vec<String> = [
            "replay",
            "--variant",
            "en-dodoi-6",
            "--moves",
            &moves.join(","),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_no_crash_within(&args, Duration::from_secs(1), &dir);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Agent specs, generated: every kind with every sort of budget, and junk.
#[test]
fn generated_agent_specs_never_crash_a_command() {
    let dir = scratch("specs");
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let kinds = [
        "random",
        "greedy",
        "alphabeta",
        "mcts",
        "az",
        "wizard",
        "",
        "mcts:",
    ];
    for _ in 0..80 {
        let kind = kinds[rng.random_range(0..kinds.len())];
        let spec = match rng.random_range(0..5) {
            0 => kind.to_string(),
            1 => format!("{kind}:{}", any_number(&mut rng)),
            2 => format!("{kind}:{}ms", any_number(&mut rng)),
            3 => format!("{kind}:{}s", any_number(&mut rng)),
            _ => format!("{kind}:{}:{}", any_number(&mut rng), any_number(&mut rng)),
        };
        for command in [
            &["arena", "--games", "2"][..],
            &["match", "--to", "1", "--games-per-estimate", "2"],
        ] {
            let mut args: Vec<String> = command.iter().map(|s| s.to_string()).collect();
            args.extend(
                ["--variant", "en-dodoi-6", "--threads", "1", "--agents"].map(String::from),
            );
            args.push(format!("{spec},random"));
            assert_no_crash_within(&args, Duration::from_secs(1), &dir);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Game records for `sowing replay --record` and `sowing review --records`: a real one, then the
/// same with a field changed to a generated value, its text cut short, or bytes changed. The
/// real one replays; every other ends with the result or an error message.
#[test]
fn generated_game_records_never_crash_replay() {
    let dir = scratch("records");
    let rules = sowing_env::Rules::preset("en-dodoi-6").unwrap();
    let moves = [2, 0, 3, 1, 4, 0, 5, 2];
    let record = sowing_env::GameRecord::from_moves(&rules, &moves).unwrap();
    let text = record.to_json();
    let path = dir.join("record.json");
    let args: Vec<String> = ["replay", "--record", "record.json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    std::fs::write(&path, &text).unwrap();
    assert!(matches!(
        run_for(&args, Duration::from_secs(5), &dir),
        Ended::Exited(Some(0), _)
    ));
    std::fs::create_dir_all(dir.join("records")).unwrap();
    let reviewed = dir.join("records/record.json");
    let review: Vec<String> = ["review", "--records", "records", "--nodes", "20000"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    std::fs::write(&reviewed, &text).unwrap();
    assert!(matches!(
        run_for(&review, Duration::from_secs(5), &dir),
        Ended::Exited(Some(0), _)
    ));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let fields: [&[&str]; 9] = [
        &["moves"],
        &["outcome"],
        &["captured", "south"],
        &["rules", "holes"],
        &["rules", "seeds"],
        &["rules", "max_laps"],
        &["rules", "max_plies"],
        &["rules", "trigger"],
        &["tags"],
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for round in 0..120 {
        let changed = match round % 3 {
            0 => {
                let path = fields[rng.random_range(0..fields.len())];
                let mut v = value.clone();
                let (last, parents) = path.split_last().unwrap();
                let mut at = &mut v;
                for p in parents {
                    at = &mut at[*p];
                }
                at[*last] = match rng.random_range(0..4) {
                    0 => serde_json::Value::String(any_number(&mut rng)),
                    1 => serde_json::from_str(&any_number(&mut rng))
                        .unwrap_or(serde_json::Value::Null),
                    2 => serde_json::json!(
                        (0..rng.random_range(0..2000))
                            .map(|_| rng.random_range(0..8))
                            .collect::<Vec<u32>>()
                    ),
                    _ => serde_json::json!({"result": "won", "winner": "north"}),
                };
                serde_json::to_string(&v).unwrap()
            }
            1 => text[..rng.random_range(0..text.len())].to_string(),
            _ => {
                let mut bytes = text.clone().into_bytes();
                for _ in 0..rng.random_range(1..6) {
                    let at = rng.random_range(0..bytes.len());
                    bytes[at] = rng.random();
                }
                String::from_utf8_lossy(&bytes).into_owned()
            }
        };
        std::fs::write(&path, &changed).unwrap();
        assert_no_crash_within(&args, Duration::from_secs(2), &dir);
        std::fs::write(&reviewed, &changed).unwrap();
        assert_no_crash_within(&review, Duration::from_secs(2), &dir);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The repository's root, where the committed positions sets are found.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A rules file with a byte order mark before it, as editors on Windows write one, and a TOML
/// file whose extension is in capitals: both read as the rules they hold.
#[test]
fn a_byte_order_mark_and_a_capital_extension_are_read() {
    let dir = scratch("bom");
    let files = [
        ("bom.json", "\u{feff}{\"holes\": 3, \"seeds\": 2}"),
        ("bom.toml", "\u{feff}holes = 3\nseeds = 2\n"),
        ("capital.TOML", "holes = 3\nseeds = 2\n"),
        ("capital.Json", "{\"holes\": 3, \"seeds\": 2}"),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let o = sowing(&["replay", "--rules", path.to_str().unwrap(), "--moves", "0"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(common::stdout(&o).contains("2x3, 2 seeds"), "{name}");
    }
    // A record with a byte order mark replays.
    let rules = sowing_env::Rules::preset("en-dodoi-6").unwrap();
    let record = sowing_env::GameRecord::from_moves(&rules, &[2, 0]).unwrap();
    let path = dir.join("record.json");
    std::fs::write(&path, format!("\u{feff}{}", record.to_json())).unwrap();
    let o = sowing(&["replay", "--record", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A huge input is never echoed whole in an error: a rules file of one long string, a game
/// record of one, a line typed into `play`.
#[test]
fn huge_input_is_cut_in_error_messages() {
    let dir = scratch("huge");
    let long = "x".repeat(3 << 20);
    let rules = dir.join("rules.json");
    std::fs::write(&rules, format!("{{\"holes\": \"{long}\", \"seeds\": 4}}")).unwrap();
    let toml = dir.join("rules.toml");
    std::fs::write(&toml, format!("holes = 6 seeds = 4 {long}")).unwrap();
    let record = dir.join("record.json");
    std::fs::write(&record, format!("{{\"moves\": \"{long}\"}}")).unwrap();
    let cases: [&[&str]; 3] = [
        &["random", "--rules", rules.to_str().unwrap(), "--games", "2"],
        &["random", "--rules", toml.to_str().unwrap(), "--games", "2"],
        &["replay", "--record", record.to_str().unwrap()],
    ];
    for args in cases {
        let o = sowing(args);
        assert_no_crash(args, &o);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(err.len() < 1500, "{args:?}: {} bytes of error", err.len());
        assert!(err.contains("xxxx... ("), "{args:?}: {err}");
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args(["play", "--variant", "en-dodoi-6", "--opponent", "random"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut input, format!("{long}\nquit\n").as_bytes()).unwrap();
    drop(input);
    let o = child.wait_with_output().unwrap();
    let out = common::stdout(&o);
    assert!(o.status.success());
    assert!(out.len() < 5000, "{} bytes of output", out.len());
    assert!(
        out.contains(&format!("a line of {} bytes (\"xxx", long.len() + 1)),
        "{}",
        &out[..out.len().min(3000)]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `review` names the file of a record it cannot use, not its place in the directory.
#[test]
fn review_names_the_file_of_a_bad_record() {
    let dir = scratch("review-names");
    let rules = sowing_env::Rules::preset("en-dodoi-6").unwrap();
    let mut game = sowing_env::GameRecord::from_moves(&rules, &[2, 0, 3, 1]).unwrap();
    std::fs::write(dir.join("a.json"), game.to_json()).unwrap();
    game.tags
        .insert("opening_plies".to_string(), "two".to_string());
    let bad = dir.join("b.json");
    std::fs::write(&bad, game.to_json()).unwrap();
    let o = sowing(&[
        "review",
        "--records",
        dir.to_str().unwrap(),
        "--nodes",
        "2000",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "record {}: its opening_plies tag \"two\" is not a number",
            bad.display()
        )),
        "{err}"
    );
    assert!(!err.contains("game 1"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `accuracy` takes an alias as every command does, and caps its threads as they do.
#[test]
fn accuracy_resolves_aliases_and_caps_threads() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sowing"))
            .args(args)
            .current_dir(root())
            .output()
            .unwrap()
    };
    let o = run(&[
        "accuracy",
        "--variant",
        "en-dodoi",
        "--agents",
        "random",
        "--positions",
        "3",
        "--threads",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&common::stdout(&o)).unwrap();
    assert_eq!(report["variant"], "en-dodoi-8");
    assert_eq!(report["positions"], 3);
    let o = run(&[
        "accuracy",
        "--variant",
        "en-dodoi-6",
        "--agents",
        "random",
        "--positions",
        "3",
        "--threads",
        "100000",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--threads 100000 is too many: at most 1024"),
        "{}",
        stderr(&o)
    );
}

/// `bench --seconds` is bounded below as well as above: a measurement too short to time is
/// refused rather than reported as "NaNx".
#[test]
fn bench_refuses_a_measurement_too_short_to_time() {
    for seconds in ["1e-300", "0.001", "0", "1e9"] {
        let o = sowing(&["bench", "--variant", "en-dodoi-6", "--seconds", seconds]);
        assert_eq!(o.status.code(), Some(1), "{seconds}");
        assert!(
            stderr(&o).contains("--seconds must be at least 0.01 and at most 3600"),
            "{seconds}: {}",
            stderr(&o)
        );
    }
    let o = sowing(&["bench", "--variant", "en-dodoi-6", "--seconds", "0.01"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !common::stdout(&o).contains("NaN"),
        "{}",
        common::stdout(&o)
    );
}

/// When the positions drawn seldom settle, `positions` says what would settle more: with a
/// table given, not "a --tablebase" but one of more seeds.
#[test]
fn positions_that_do_not_settle_name_the_real_cause() {
    let dir = scratch("unsettled");
    let table = dir.join("small.tb");
    let o = sowing(&[
        "tablebase",
        "build",
        "--variant",
        "en-dodoi-10",
        "--max-seeds",
        "1",
        "--out",
        table.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.join("p.jsonl");
    let base = [
        "positions",
        "--variant",
        "en-dodoi-10",
        "--count",
        "100",
        "--agents",
        "random,random",
        "--opening",
        "0",
        "--nodes",
        "1",
        "--threads",
        "1",
        "--table-bits",
        "10",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = sowing(&[&base[..], &["--tablebase", table.to_str().unwrap()]].concat());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "give a larger --nodes, or a --tablebase of more seeds ({} holds positions of at \
             most 1)",
            table.display()
        )),
        "{err}"
    );
    let o = sowing(&base);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("give a larger --nodes, or a --tablebase") && !err.contains("more seeds"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A FIFO named like a record in a records directory is passed over, not read (which would
/// wait for a writer forever).
#[test]
fn review_passes_over_a_fifo_named_like_a_record() {
    let dir = scratch("review-fifo");
    std::fs::create_dir_all(dir.join("records")).unwrap();
    let made = Command::new("mkfifo")
        .arg(dir.join("records/game.json"))
        .status()
        .unwrap();
    assert!(made.success());
    let args: Vec<String> = ["review", "--records", "records"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    match run_for(&args, Duration::from_secs(20), &dir) {
        Ended::Exited(code, err) => {
            assert_eq!(code, Some(1), "{err}");
            assert!(err.contains("no game records (*.json) in records"), "{err}");
        }
        Ended::Running => panic!("review waited on the FIFO"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
