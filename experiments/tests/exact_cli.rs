//! The exact tools as a user runs them: `solve --tablebase` (and `--margin`) against the table
//! of the whole game, `positions` (labels, dropped counts, refusals) and `solved`.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn sowing(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args(args)
        .output()
        .expect("run sowing")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

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
fn build(rules: &PathBuf, max_seeds: u32, name: &str) -> PathBuf {
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
