//! `sowing tablebase` as a user runs it: build a table from a rules file, describe it, probe
//! positions (by moves or as a state's JSON), and the errors: no rules given, a table beyond
//! memory, a position with more seeds than the table, a table of other rules, a damaged file.

mod common;

use common::{sowing, stderr, stdout};
use serde_json::Value;
use std::path::PathBuf;

/// A path in the temporary directory, unique to this test process and `name`.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sowing-tb-cli-{}-{name}", std::process::id()))
}

/// A 2x3 game with one seed a hole: its start, 6 seeds, is in a table of 6.
fn rules_file(name: &str) -> PathBuf {
    let path = temp(&format!("{name}.json"));
    std::fs::write(&path, r#"{"holes": 3, "seeds": 1}"#).unwrap();
    path
}

/// Build a table of the 2x3 game up to `max_seeds` into `name`; its JSON summary.
fn build(name: &str, max_seeds: u32) -> (PathBuf, Value) {
    let rules = rules_file(name);
    let out = temp(&format!("{name}.tb"));
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
    std::fs::remove_file(&rules).unwrap();
    (out, serde_json::from_str(&stdout(&o)).unwrap())
}

#[test]
fn build_then_info_describe_the_same_table() {
    let (file, summary) = build("info", 6);
    // C(12, 6) boards of 6 holes with at most 6 seeds.
    assert_eq!(summary["positions"], 924);
    assert_eq!(summary["max_seeds"], 6);
    assert_eq!(summary["rules"]["holes"], 3);
    let layers = summary["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 7);
    for layer in layers {
        let parts: u64 = ["won", "drawn", "lost", "endless"]
            .iter()
            .map(|k| layer[k].as_u64().unwrap())
            .sum();
        assert_eq!(parts, layer["positions"].as_u64().unwrap());
    }
    assert!(summary["seconds"].as_f64().unwrap() >= 0.0);

    let o = sowing(&["tablebase", "info", file.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(info["layers"], summary["layers"]);
    assert_eq!(info["bytes"], summary["bytes"]);
    let o = sowing(&["tablebase", "info", file.to_str().unwrap()]);
    let text = stdout(&o);
    assert!(text.contains("2x3, 1 seeds, take, ccw"), "{text}");
    assert!(text.contains("924 positions"), "{text}");
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn probe_prints_the_value_and_every_moves_value() {
    let (file, _) = build("probe", 6);
    let o = sowing(&[
        "tablebase",
        "probe",
        "--tablebase",
        file.to_str().unwrap(),
        "--moves",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["state"]["to_move"], "north");
    let moves = report["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    let best = moves.iter().map(|m| m["value"].as_i64().unwrap()).max();
    assert_eq!(best, report["value"].as_i64());
    assert!(moves.iter().any(|m| m["best"] == true));

    // The same position given as a state's JSON, and in words.
    let state = serde_json::to_string(&report["state"]).unwrap();
    let o = sowing(&[
        "tablebase",
        "probe",
        "--tablebase",
        file.to_str().unwrap(),
        "--state",
        &state,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let value = report["value"].as_i64().unwrap();
    assert!(
        text.contains(&format!("value for North to move: {value:+}")),
        "{text}"
    );
    assert!(text.contains("best"), "{text}");
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn refusals_say_what_was_wrong() {
    // No rules to build for.
    let o = sowing(&["tablebase", "build", "--max-seeds", "4", "--out", "x.tb"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--variant V or --rules FILE"),
        "{}",
        stderr(&o)
    );

    // Beyond the machine's memory: the largest that fits is named.
    let out = temp("huge.tb");
    let o = sowing(&[
        "tablebase",
        "build",
        "--variant",
        "en-dodoi-6",
        "--max-seeds",
        "100",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the most seeds a table that fits holds is"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());

    // The start has 6 seeds, more than a table of 3 holds.
    let (file, _) = build("small", 3);
    let tb = file.to_str().unwrap();
    let o = sowing(&["tablebase", "probe", "--tablebase", tb]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("6 seeds on the board"), "{err}");
    assert!(err.contains("at most 3"), "{err}");

    // A table of other rules.
    let o = sowing(&[
        "tablebase",
        "probe",
        "--variant",
        "en-dodoi-6",
        "--tablebase",
        tb,
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("holes is 3 there, 6 here") && err.contains(tb),
        "{err}"
    );

    // A damaged file.
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let o = sowing(&["tablebase", "info", tb]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("damaged") && err.contains(tb), "{err}");
    std::fs::remove_file(&file).unwrap();
}
