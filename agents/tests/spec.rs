//! Agent specs as a type: each kind, option and limit parsed into its fields, the text written
//! back reading as the same spec (over generated specs), and generated garbage refused without
//! a panic.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::{AgentSpec, Budget, FORMS, Kind, SpecOption};
use std::path::PathBuf;
use std::time::Duration;

fn parse(spec: &str) -> AgentSpec {
    spec.parse()
        .unwrap_or_else(|e| panic!("{spec} must parse: {e}"))
}

fn refused(spec: &str) -> String {
    match spec.parse::<AgentSpec>() {
        Ok(s) => panic!("{spec} must be refused, parsed as {s:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn each_kind_parses_into_its_fields() {
    let ms = |n| Budget::Time(Duration::from_millis(n));
    let cases = [
        ("random", AgentSpec::Random),
        ("greedy", AgentSpec::Greedy),
        (
            "alphabeta:6",
            AgentSpec::AlphaBeta {
                budget: Budget::Count(6),
                network: None,
                tablebase: None,
            },
        ),
        (
            "alphabeta:50ms:tb=t.tb:net=runs/x",
            AgentSpec::AlphaBeta {
                budget: ms(50),
                network: Some(PathBuf::from("runs/x")),
                tablebase: Some(PathBuf::from("t.tb")),
            },
        ),
        (
            "alphabeta:500ms:tb=t.tb",
            AgentSpec::AlphaBeta {
                budget: ms(500),
                network: None,
                tablebase: Some(PathBuf::from("t.tb")),
            },
        ),
        (
            "mcts:1.5s",
            AgentSpec::Mcts {
                budget: ms(1500),
                tablebase: None,
            },
        ),
        (
            "az:runs/x",
            AgentSpec::Az {
                path: PathBuf::from("runs/x"),
                budget: None,
                solver: None,
                leaves: None,
                tablebase: None,
            },
        ),
        (
            "az:runs/x:50ms:tb=t.tb:leaves=8:solver=0",
            AgentSpec::Az {
                path: PathBuf::from("runs/x"),
                budget: Some(ms(50)),
                solver: Some(0),
                leaves: Some(8),
                tablebase: Some(PathBuf::from("t.tb")),
            },
        ),
        (
            // A colon inside the path: the last part is the budget only when it reads as one.
            "az:c:/runs/x:64",
            AgentSpec::Az {
                path: PathBuf::from("c:/runs/x"),
                budget: Some(Budget::Count(64)),
                solver: None,
                leaves: None,
                tablebase: None,
            },
        ),
        (
            "az:runs/v2:best",
            AgentSpec::Az {
                path: PathBuf::from("runs/v2:best"),
                budget: None,
                solver: None,
                leaves: None,
                tablebase: None,
            },
        ),
    ];
    for (text, want) in cases {
        let got = parse(text);
        assert_eq!(got, want, "{text}");
        assert_eq!(got.kind().word(), text.split(':').next().unwrap());
    }
}

#[test]
fn the_written_spec_is_the_given_one_in_its_usual_spelling() {
    for (given, written) in [
        ("alphabeta:6", "alphabeta:6"),
        ("alphabeta:2s", "alphabeta:2s"),
        ("mcts:1.5s", "mcts:1500ms"),
        ("mcts:1000ms", "mcts:1s"),
        ("mcts:0.0005s", "mcts:0.0005s"),
        ("az:r:8:tb=t.tb:solver=5", "az:r:8:solver=5:tb=t.tb"),
        ("az:r:leaves=4", "az:r:leaves=4"),
    ] {
        assert_eq!(parse(given).to_string(), written, "{given}");
    }
}

#[test]
fn limits_are_the_agents_constants() {
    assert_eq!(
        Kind::AlphaBeta.count_limit(),
        Some(("depth", sowing_agents::AlphaBeta::MAX_DEPTH))
    );
    parse("alphabeta:64");
    assert!(refused("alphabeta:65").contains("depth 65 is out of range: 1 to 64"));
    parse("mcts:10000000");
    assert!(refused("mcts:10000001").contains("1 to 10000000"));
    parse("az:r:1000000");
    assert!(refused("az:r:1000001").contains("simulations 1000001 is out of range: 1 to 1000000"));
    parse("az:r:solver=1000000000");
    assert!(
        refused("az:r:solver=1000000001")
            .contains("solver= takes a number of positions, 0 to 1000000000")
    );
    parse("az:r:leaves=256");
    for leaves in ["0", "257", "x"] {
        let msg = refused(&format!("az:r:leaves={leaves}"));
        assert!(
            msg.contains("leaves= takes a number of leaves per forward pass, 1 to 256"),
            "{msg}"
        );
    }
    parse("mcts:3600s");
    assert!(refused("mcts:3601s").contains("out of range"));
    assert!(refused("alphabeta:0ms").contains("out of range: 1ms to 3600s"));
}

#[test]
fn options_go_only_to_the_kinds_that_take_them() {
    for kind in Kind::ALL {
        for option in SpecOption::ALL {
            let takes = kind.takes(option);
            assert_eq!(option.takers().split(", ").any(|k| k == kind.word()), takes);
            let value = if option == SpecOption::Tablebase {
                "t.tb"
            } else {
                "4"
            };
            let spec = match kind {
                Kind::Random | Kind::Greedy => format!("{}:{}={value}", kind.word(), option.key()),
                Kind::Az => format!("az:r:{}={value}", option.key()),
                _ => format!("{}:4:{}={value}", kind.word(), option.key()),
            };
            match spec.parse::<AgentSpec>() {
                Ok(_) => assert!(takes, "{spec} must be refused"),
                Err(e) => {
                    assert!(!takes, "{spec}: {e}");
                    let want = format!("{} takes no option {}=", kind.word(), option.key());
                    assert!(e.to_string().contains(&want), "{e}");
                }
            }
        }
    }
    assert_eq!(SpecOption::Tablebase.takers(), "alphabeta, mcts, az");
    assert_eq!(SpecOption::Network.takers(), "alphabeta");
    assert!(refused("alphabeta:4:net=").contains("net= needs the network's run directory"));
    assert!(refused("az:r:depth=3").contains("unknown option \"depth\""));
    assert!(refused("az:r:leaves=2:leaves=2").contains("option leaves= is given twice"));
}

#[test]
fn an_az_spec_without_a_checkpoint_is_refused_with_the_forms() {
    for spec in ["az", "az:", "az::64", "az::tb=t.tb"] {
        let msg = refused(spec);
        assert!(msg.contains("az needs a checkpoint path"), "{spec}: {msg}");
        for form in FORMS {
            assert!(msg.contains(form), "{msg}");
        }
    }
}

#[test]
fn a_spec_made_from_fields_is_checked_as_a_parsed_one() {
    let bad = [
        (
            AgentSpec::AlphaBeta {
                budget: Budget::Count(0),
                network: None,
                tablebase: None,
            },
            "depth 0 is out of range: 1 to 64",
        ),
        (
            AgentSpec::Mcts {
                budget: Budget::Time(Duration::from_secs(4000)),
                tablebase: None,
            },
            "out of range: 1ms to 3600s",
        ),
        (
            AgentSpec::Mcts {
                budget: Budget::Count(5),
                tablebase: Some(PathBuf::new()),
            },
            "tb= needs the tablebase file",
        ),
        (az("", None, None), "az needs a checkpoint path"),
        (az("r", Some(0), None), "1 to 256"),
        (az("r", None, Some(2_000_000_000)), "0 to 1000000000"),
        (az("r:5", None, None), "cannot be written in a spec"),
        (az("r:x=5", None, None), "cannot be written in a spec"),
    ];
    for (spec, want) in bad {
        let e = spec.validate().expect_err(want).to_string();
        assert!(e.contains(want), "{spec:?}: {e}");
    }
    az("runs/a", Some(8), Some(0)).validate().unwrap();
}

fn az(path: &str, leaves: Option<u32>, solver: Option<u64>) -> AgentSpec {
    AgentSpec::Az {
        path: PathBuf::from(path),
        budget: None,
        solver,
        leaves,
        tablebase: None,
    }
}

/// A budget that a spec may hold: a count within `max` or a time up to an hour, in ms or not.
fn any_budget(rng: &mut ChaCha8Rng, max: u32) -> Budget {
    match rng.random_range(0..4) {
        0 => Budget::Count(rng.random_range(1..=max)),
        1 => Budget::Count(*[1, max].get(rng.random_range(0..2)).unwrap()),
        2 => Budget::Time(Duration::from_millis(rng.random_range(1..=3_600_000))),
        _ => Budget::Time(Duration::from_nanos(
            rng.random_range(1..=3_600_000_000_000),
        )),
    }
}

/// A file name the grammar can hold: no part after a colon that has `=` or reads as a budget.
fn any_file(rng: &mut ChaCha8Rng) -> PathBuf {
    const PARTS: &[&str] = &[
        "runs", "demo-6", "x", "a b", "é", "v2", ".", "..", "tb.tb", "9x",
    ];
    let n = rng.random_range(1..4);
    let parts: Vec<&str> = (0..n)
        .map(|_| PARTS[rng.random_range(0..PARTS.len())])
        .collect();
    PathBuf::from(parts.join("/"))
}

fn any_spec(rng: &mut ChaCha8Rng) -> AgentSpec {
    let table = |rng: &mut ChaCha8Rng| rng.random_bool(0.5).then(|| any_file(rng));
    match rng.random_range(0..5) {
        0 => AgentSpec::Random,
        1 => AgentSpec::Greedy,
        2 => AgentSpec::AlphaBeta {
            budget: any_budget(rng, 64),
            network: rng.random_bool(0.3).then(|| any_file(rng)),
            tablebase: table(rng),
        },
        3 => AgentSpec::Mcts {
            budget: any_budget(rng, 10_000_000),
            tablebase: table(rng),
        },
        _ => AgentSpec::Az {
            path: any_file(rng),
            budget: rng.random_bool(0.7).then(|| any_budget(rng, 1_000_000)),
            solver: rng
                .random_bool(0.5)
                .then(|| rng.random_range(0..=1_000_000_000)),
            leaves: rng.random_bool(0.5).then(|| rng.random_range(1..=256)),
            tablebase: table(rng),
        },
    }
}

#[test]
fn every_generated_spec_reads_back_as_itself() {
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    for _ in 0..20_000 {
        let spec = any_spec(&mut rng);
        spec.validate().unwrap_or_else(|e| panic!("{spec:?}: {e}"));
        let text = spec.to_string();
        let back: AgentSpec = text
            .parse()
            .unwrap_or_else(|e| panic!("{spec:?} written as {text}: {e}"));
        assert_eq!(back, spec, "{text}");
        assert_eq!(back.to_string(), text);
    }
}

#[test]
fn generated_garbage_is_refused_or_read_never_a_panic() {
    const PIECES: &[&str] = &[
        "random",
        "greedy",
        "alphabeta",
        "mcts",
        "az",
        ":",
        ":",
        "=",
        "tb=",
        "solver=",
        "leaves=",
        "0",
        "1",
        "64",
        "99999999999999999999",
        "-3",
        "1.5",
        "s",
        "ms",
        "e9",
        "inf",
        "NaN",
        " ",
        "é",
        "\0",
        "x",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    for _ in 0..50_000 {
        let n = rng.random_range(0..8);
        let text: String = (0..n)
            .map(|_| PIECES[rng.random_range(0..PIECES.len())])
            .collect();
        if let Ok(spec) = text.parse::<AgentSpec>() {
            // Whatever parses is a valid spec, and its writing reads back as itself.
            spec.validate().unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!(
                spec.to_string().parse::<AgentSpec>().as_ref(),
                Ok(&spec),
                "{text:?}"
            );
        }
    }
}
