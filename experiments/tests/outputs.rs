//! What the commands write: every output path is checked before the work that fills it (so a
//! mistyped directory costs no games and no build), a device or FIFO is never replaced by a
//! regular file, no file of the user's beside the target is touched, old game records are not
//! mixed with new ones, and `sowing play` saves the game played so far however it ends.

mod common;

use common::{sowing, stderr, stdout};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// An empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-outputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn fifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path)
        .unwrap()
        .file_type()
        .is_fifo()
}

/// `sowing args` given `input` on standard input.
fn sowing_with_input(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that refuses before reading its input closes it: that is not a failure here.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

/// A refusal: exit code 1 and one error line that contains `what`.
fn assert_refused(o: &Output, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(what), "{err}");
}

const POSITIONS: [&str; 14] = [
    "positions",
    "--variant",
    "en-dodoi-6",
    "--count",
    "2",
    "--agents",
    "random,greedy",
    "--nodes",
    "20000",
    "--threads",
    "1",
    "--table-bits",
    "12",
    "--out",
];

#[test]
fn an_output_in_a_missing_directory_is_refused_before_any_work() {
    let dir = scratch("missing");
    let missing = dir.join("missing");
    let file = |name: &str| missing.join(name).to_str().unwrap().to_string();
    let said = format!("its directory {} does not exist", missing.display());

    let tb = file("x.tb");
    let o = sowing(&[
        "tablebase",
        "build",
        "--variant",
        "en-dodoi-6",
        "--max-seeds",
        "12",
        "--out",
        &tb,
    ]);
    assert_refused(&o, &format!("cannot write {tb}: {said}"));
    assert!(!stderr(&o).contains("building"), "{}", stderr(&o));

    let jsonl = file("x.jsonl");
    let o = sowing(&[&POSITIONS[..], &[jsonl.as_str()]].concat());
    assert_refused(&o, &format!("cannot write {jsonl}: {said}"));

    let csv = file("x.csv");
    let o = sowing(&[
        "arena",
        "--variant",
        "en-dodoi-6",
        "--agents",
        "random,greedy",
        "--games",
        "2",
        "--csv",
        &csv,
    ]);
    assert_refused(&o, &format!("cannot write {csv}: {said}"));
    assert_eq!(stdout(&o), "", "no games were played");

    let json = file("x.json");
    let o = sowing_with_input(
        &[
            "play",
            "--variant",
            "en-dodoi-6",
            "--opponent",
            "random",
            "--save",
            &json,
        ],
        b"2\n",
    );
    assert_refused(&o, &format!("--save: cannot write {json}: {said}"));
    assert!(!stdout(&o).contains("You play"), "the game did not start");
    assert_eq!(names(&dir), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_or_a_directory_is_never_replaced() {
    let dir = scratch("fifo");
    let pipe = dir.join("pipe");
    fifo(&pipe);
    let p = pipe.to_str().unwrap();
    let not_regular = "is not a regular file (a device, FIFO or socket)";
    let o = sowing(&[
        "tablebase",
        "build",
        "--variant",
        "en-dodoi-6",
        "--max-seeds",
        "4",
        "--out",
        p,
    ]);
    assert_refused(&o, not_regular);
    assert!(is_fifo(&pipe), "tablebase build replaced the FIFO");
    let o = sowing(&[&POSITIONS[..], &[p]].concat());
    assert_refused(&o, not_regular);
    assert!(is_fifo(&pipe), "positions replaced the FIFO");
    let o = sowing(&[
        "arena",
        "--variant",
        "en-dodoi-6",
        "--agents",
        "random,greedy",
        "--games",
        "2",
        "--csv",
        p,
    ]);
    assert_refused(&o, not_regular);
    // A directory as the file, and a file as the directory.
    let d = dir.to_str().unwrap();
    let o = sowing(&[
        "tablebase",
        "build",
        "--variant",
        "en-dodoi-6",
        "--max-seeds",
        "4",
        "--out",
        d,
    ]);
    assert_refused(&o, "is a directory: give a file name");
    let o = sowing(&[
        "arena",
        "--variant",
        "en-dodoi-6",
        "--agents",
        "random,greedy",
        "--games",
        "2",
        "--records",
        p,
    ]);
    assert_refused(&o, "--records: cannot write");
    assert!(
        stderr(&o).contains("it is not a directory"),
        "{}",
        stderr(&o)
    );
    assert!(is_fifo(&pipe));
    assert_eq!(names(&dir), ["pipe"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn files_beside_the_output_are_left_alone_and_no_temporary_is_left() {
    let dir = scratch("beside");
    let tb = dir.join("x.tb");
    let jsonl = dir.join("x.jsonl");
    for name in ["x.tb.tmp", ".x.tb.tmp", "x.jsonl.tmp"] {
        std::fs::write(dir.join(name), "mine").unwrap();
    }
    let o = sowing(&[
        "tablebase",
        "build",
        "--variant",
        "en-dodoi-6",
        "--max-seeds",
        "4",
        "--out",
        tb.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sowing(&[&POSITIONS[..], &[jsonl.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    for name in ["x.tb.tmp", ".x.tb.tmp", "x.jsonl.tmp"] {
        assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), "mine");
    }
    assert_eq!(
        names(&dir),
        [".x.tb.tmp", "x.jsonl", "x.jsonl.tmp", "x.tb", "x.tb.tmp"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_records_directory_that_holds_records_is_refused() {
    let dir = scratch("records");
    let records = dir.join("games");
    let r = records.to_str().unwrap();
    let arena = |records: &str| {
        sowing(&[
            "arena",
            "--variant",
            "en-dodoi-6",
            "--agents",
            "random,greedy",
            "--games",
            "2",
            "--records",
            records,
        ])
    };
    // A new directory is made; an empty one, or one of other files, is taken.
    let o = arena(r);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(names(&records).len(), 2);
    let o = arena(r);
    assert_refused(
        &o,
        &format!("records directory {r} already holds 2 game records (game-00000-"),
    );
    assert!(
        stderr(&o).contains("give a new or empty directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "", "no games were played");
    let other = dir.join("notes");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("README.txt"), "mine").unwrap();
    let o = arena(other.to_str().unwrap());
    assert!(o.status.success(), "{}", stderr(&o));
    // `review` reads the directory's games, and only those.
    let o = sowing(&["review", "--records", r, "--nodes", "20000", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["games"], 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn review_writes_the_critical_positions_for_accuracy() {
    let dir = scratch("review-positions");
    let records = dir.join("games");
    let o = sowing(&[
        "arena",
        "--variant",
        "en-dodoi-6",
        "--agents",
        "random,greedy",
        "--games",
        "6",
        "--records",
        records.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.join("critical.jsonl");
    let review = |out: &std::path::Path| {
        sowing(&[
            "review",
            "--records",
            records.to_str().unwrap(),
            "--nodes",
            "200000",
            "--json",
            "--positions-out",
            out.to_str().unwrap(),
        ])
    };
    let o = review(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let critical: u64 = report["agents"]
        .as_object()
        .unwrap()
        .values()
        .map(|a| a["critical_moves"].as_u64().unwrap())
        .sum();
    let text = std::fs::read_to_string(&out).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let count = header["count"].as_u64().unwrap();
    let duplicates = header["made_by"]["duplicates"].as_u64().unwrap();
    // Every critical move's position, each once.
    assert!(count > 0, "random play reaches critical positions");
    assert_eq!(count + duplicates, critical, "{}", stderr(&o));
    assert_eq!(text.lines().count() as u64, count + 1);
    assert!(stderr(&o).contains(&format!("{count} critical positions written to")));
    // `accuracy` measures agents on them; every one is critical.
    let o = sowing(&[
        "accuracy",
        "--variant",
        "en-dodoi-6",
        "--positions",
        out.to_str().unwrap(),
        "--agents",
        "greedy",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let measured: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let greedy = &measured["agents"][0];
    assert_eq!(greedy["positions"], count);
    assert_eq!(greedy["keeps_result_critical"]["n"], count);
    // A directory as the file is refused before any game is reviewed.
    let o = review(&dir);
    assert_refused(&o, "it is a directory");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn play_saves_the_game_so_far_however_it_ends() {
    let dir = scratch("play");
    let save = dir.join("game.json");
    let s = save.to_str().unwrap();
    // Bytes that are not text after a move: refused and asked again; then input ends.
    let o = sowing_with_input(
        &[
            "play",
            "--variant",
            "en-dodoi-6",
            "--opponent",
            "random",
            "--save",
            s,
        ],
        b"2\n\xff\xfe garbage\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("that line is not text (it is not valid UTF-8)"),
        "{out}"
    );
    assert!(
        out.contains("end of input: the game is left unfinished"),
        "{out}"
    );
    assert!(out.contains(&format!("record saved to {s}")), "{out}");
    let record =
        sowing_env::GameRecord::from_json(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert_eq!(record.moves.len(), 2, "the person's move and the reply");
    assert_eq!(record.moves[0], 2);

    // Input that cannot be read at all (a directory): an error, and the agent's opening move
    // is saved.
    std::fs::remove_file(&save).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args([
            "play",
            "--variant",
            "en-dodoi-6",
            "--opponent",
            "greedy",
            "--side",
            "north",
            "--save",
            s,
        ])
        .stdin(std::fs::File::open(&dir).unwrap())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("record saved to {s}")), "{err}");
    assert!(
        err.contains("error: cannot read standard input: Is a directory"),
        "{err}"
    );
    let record =
        sowing_env::GameRecord::from_json(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert_eq!(record.moves.len(), 1, "greedy's opening move");

    // A reader of the output that goes away (`| head`): an error, and the game is saved.
    std::fs::remove_file(&save).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args([
            "play",
            "--variant",
            "en-dodoi-6",
            "--opponent",
            "random",
            "--save",
            s,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    std::io::Read::read_exact(&mut child.stdout.take().unwrap(), &mut first).unwrap();
    let script: String = (0..400).map(|_| "0\n1\n2\n3\n4\n5\n").collect();
    let _ = child.stdin.take().unwrap().write_all(script.as_bytes());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: cannot write to standard output: Broken pipe"),
        "{err}"
    );
    assert!(err.contains(&format!("record saved to {s}")), "{err}");
    let record =
        sowing_env::GameRecord::from_json(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert!(record.replay().is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An output that is also the command's input is refused: `positions --tablebase T --out T`
/// would replace the table it labels from.
#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = scratch("apart");
    let tb = dir.join("t.tb");
    let t = tb.to_str().unwrap();
    let o = sowing(&[
        "tablebase",
        "build",
        "--variant",
        "en-dodoi-6",
        "--max-seeds",
        "4",
        "--out",
        t,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = std::fs::read(&tb).unwrap();
    let o = sowing(&[&POSITIONS[..], &[t, "--tablebase", t]].concat());
    assert_refused(&o, &format!("it is also the file of --tablebase {t}"));
    let rules = dir.join("rules.json");
    std::fs::write(&rules, r#"{"holes": 3, "seeds": 2}"#).unwrap();
    let r = rules.to_str().unwrap();
    let o = sowing(&[
        "tablebase",
        "build",
        "--rules",
        r,
        "--max-seeds",
        "4",
        "--out",
        r,
    ]);
    assert_refused(&o, &format!("it is also the file of --rules {r}"));
    assert_eq!(std::fs::read(&tb).unwrap(), table);
    assert_eq!(
        std::fs::read_to_string(&rules).unwrap(),
        r#"{"holes": 3, "seeds": 2}"#
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
