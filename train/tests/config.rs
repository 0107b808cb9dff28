//! The run's settings without libtorch: the defaults, the config file reader (TOML and JSON,
//! a byte order mark, the extension in any case, unknown and ill-typed settings named), the
//! settings of old runs' `meta.json`, and generated files that never panic the reader.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_train::{RootSearch, TrainConfig};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-config-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_file_gives_some_settings_and_the_rest_are_the_defaults() {
    let dir = scratch("files");
    let toml = dir.join("run.TOML");
    std::fs::write(
        &toml,
        "\u{feff}variant = \"en-dodoi-6\"\nhidden = 32\nroot = \"gumbel\"\n",
    )
    .unwrap();
    let json = dir.join("run.json");
    std::fs::write(
        &json,
        "\u{feff}{\"variant\": \"en-dodoi-6\", \"hidden\": 32, \"root\": \"gumbel\"}",
    )
    .unwrap();
    for path in [&toml, &json] {
        let config = TrainConfig::read(path).unwrap();
        let expected = TrainConfig {
            variant: Some("en-dodoi-6".to_string()),
            hidden: 32,
            root: RootSearch::Gumbel,
            ..TrainConfig::default()
        };
        assert_eq!(config, expected, "{}", path.display());
    }
    // What a run writes reads back as itself.
    let written = dir.join("config.json");
    let config = TrainConfig {
        iterations: Some(3),
        threads: Some(2),
        ..TrainConfig::read(&toml).unwrap()
    };
    std::fs::write(&written, config.to_json()).unwrap();
    let back = TrainConfig::read(&written).unwrap();
    assert_eq!(
        back,
        TrainConfig {
            threads: None,
            ..config
        }
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_files_are_refused_naming_the_file_and_the_setting() {
    let dir = scratch("bad");
    let cases = [
        ("a.toml", "hiden = 3", "unknown setting \"hiden\""),
        ("b.json", "{\"hidden\": \"wide\"}", "setting hidden"),
        ("c.json", "[1, 2]", "must be a table"),
        ("d.toml", "hidden = ", "not valid TOML"),
        ("e.json", "{", "not valid JSON"),
        (
            "f.json",
            "{\"eval_positions_digest\": null}",
            "recorded by the trainer",
        ),
        ("g.json", "{\"root\": \"mcts\"}", "setting root"),
    ];
    for (name, text, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let e = TrainConfig::read(&path).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains(name), "{name}: {e}");
    }
    let e = TrainConfig::read(&dir.join("missing.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cannot read config file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A change of settings, and what its refusal says.
type Change = (fn(&mut TrainConfig), &'static str);

#[test]
fn validate_refuses_what_cannot_train_naming_the_flag() {
    let ok = TrainConfig {
        variant: Some("en-dodoi-6".to_string()),
        iterations: Some(1),
        ..TrainConfig::default()
    };
    assert_eq!(ok.validate(), Ok(()));
    let cases: [Change; 9] = [
        (
            |c| c.iterations = None,
            "--iterations or --minutes must be given",
        ),
        (|c| c.hidden = 1, "--hidden must be between 2 and 4096"),
        (|c| c.keep_last = 0, "--keep-last must be at least 1"),
        (|c| c.lr = 2.0, "--lr must be at most 1"),
        (
            |c| c.batch_size = 70_000,
            "--batch-size must be at least 1 and at most",
        ),
        (|c| c.baselines = "random,nonsense".to_string(), "nonsense"),
        (
            |c| c.margin_weight = 1.0,
            "--margin-weight must be at least 0 and below 1",
        ),
        (
            |c| c.margin_weight = f32::NAN,
            "--margin-weight must be at least 0 and below 1",
        ),
        (
            |c| {
                c.margin_weight = 0.3;
                c.reanalyse = 1.0;
            },
            "--margin-weight must be 0 with --reanalyse",
        ),
    ];
    for (change, want) in cases {
        let mut c = ok.clone();
        change(&mut c);
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains(want), "{want}: {e}");
    }
}

/// The `args` of a `meta.json` from before retention, look-ahead, random openings and
/// periodic evaluation existed: those settings take what such runs did, not today's defaults.
#[test]
fn old_runs_settings_read_as_those_runs_had_them() {
    let old = serde_json::json!({
        "variant": "en-dodoi-8", "iterations": 10, "minutes": null, "seed": 3, "out": "runs/x",
        "hidden": 64, "blocks": 2, "simulations": 64, "games_per_iteration": 256,
        "parallel_games": 128, "c_puct": 0.5, "dirichlet_alpha": 1.0, "noise_fraction": 0.25,
        "temperature_plies": 12, "value_mix": 0.5, "replay_capacity": 60000, "batch_size": 256,
        "sample_reuse": 4.0, "lr": 0.002, "weight_decay": 0.0001,
        "baselines": "random,greedy,alphabeta:4,mcts:1000", "eval_games": 20,
        "eval_opening": 2, "eval_simulations": 64,
        "trainer_of_another_kind": "ignored"
    });
    let config = TrainConfig::from_run(&old).unwrap();
    assert_eq!(config.keep_last, u32::MAX);
    assert_eq!(config.keep_every, 0);
    assert!(!config.lookahead);
    assert_eq!(config.opening_plies, 0);
    assert_eq!(config.eval_every, 1);
    assert_eq!(config.reanalyse, 0.0);
    assert_eq!(config.reanalyse_simulations, None);
    assert_eq!(config.margin_weight, 0.0);
    assert_eq!(config.seed, 3);
    assert_eq!(config.variant.as_deref(), Some("en-dodoi-8"));
    // Today's runs write every setting, so they read back as written.
    let now = TrainConfig {
        variant: Some("en-dodoi-6".to_string()),
        iterations: Some(4),
        ..TrainConfig::default()
    };
    let written: serde_json::Value = serde_json::from_str(&now.to_json()).unwrap();
    assert_eq!(TrainConfig::from_run(&written).unwrap(), now);
    // `meta.json` keeps the names the trainer's clap `Args` wrote before `TrainConfig` held them.
    let args_wrote = [
        "baselines",
        "batch_size",
        "blocks",
        "c_puct",
        "considered",
        "dirichlet_alpha",
        "eval_every",
        "eval_games",
        "eval_opening",
        "eval_positions",
        "eval_positions_digest",
        "eval_simulations",
        "fast_simulations",
        "full_fraction",
        "games_per_iteration",
        "hidden",
        "init_from",
        "init_from_digest",
        "iterations",
        "keep_every",
        "keep_last",
        "lookahead",
        "lr",
        "margin_weight",
        "minutes",
        "net",
        "noise_fraction",
        "opening_plies",
        "out",
        "overlap",
        "parallel_games",
        "reanalyse",
        "reanalyse_simulations",
        "replay_capacity",
        "root",
        "sample_reuse",
        "seed",
        "simulations",
        "span",
        "tablebase",
        "temperature_plies",
        "value_mix",
        "variant",
        "weight_decay",
    ];
    let mut keys: Vec<String> = serde_json::to_value(&now)
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    keys.sort();
    assert_eq!(keys, args_wrote);
    let e = TrainConfig::from_run(&serde_json::json!({"hidden": -1})).unwrap_err();
    assert!(e.contains("args.hidden"), "{e}");
}

/// Generated files: a valid file cut, bytes flipped, random bytes, and settings of every kind
/// of wrong value. None panics; each is read or refused with a message naming the file.
#[test]
fn generated_files_never_panic_the_reader() {
    let dir = scratch("generated");
    let valid_json = TrainConfig {
        variant: Some("en-dodoi-6".to_string()),
        ..TrainConfig::default()
    }
    .to_json();
    let valid_toml = "variant = \"en-dodoi-6\"\nhidden = 16\nlr = 0.01\nnet = \"ring\"\n";
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let mut texts: Vec<(String, Vec<u8>)> = Vec::new();
    for (ext, valid) in [
        ("json", valid_json.as_bytes()),
        ("toml", valid_toml.as_bytes()),
    ] {
        for cut in (0..valid.len()).step_by(7) {
            texts.push((ext.to_string(), valid[..cut].to_vec()));
        }
        for _ in 0..200 {
            let mut bytes = valid.to_vec();
            let at = rng.random_range(0..bytes.len());
            bytes[at] = rng.random();
            texts.push((ext.to_string(), bytes));
        }
        for _ in 0..50 {
            let len = rng.random_range(0..64);
            texts.push((ext.to_string(), (0..len).map(|_| rng.random()).collect()));
        }
    }
    let values = [
        "-1",
        "1e400",
        "\"x\"",
        "[]",
        "{}",
        "true",
        "null",
        "18446744073709551616",
    ];
    for name in TrainConfig::names() {
        for v in values {
            texts.push((
                "json".to_string(),
                format!("{{\"{name}\": {v}}}").into_bytes(),
            ));
        }
    }
    let (mut read, mut refused) = (0, 0);
    for (i, (ext, bytes)) in texts.iter().enumerate() {
        let path = dir.join(format!("c{i}.{ext}"));
        std::fs::write(&path, bytes).unwrap();
        let got = std::panic::catch_unwind(|| TrainConfig::read(&path));
        match got {
            Err(_) => panic!("{} panicked the reader", path.display()),
            Ok(Ok(config)) => {
                read += 1;
                let _ = config.validate();
            }
            Ok(Err(e)) => {
                refused += 1;
                let file = format!("c{i}.{ext}");
                assert!(e.to_string().contains(&file), "{e}");
            }
        }
    }
    assert!(read > 10 && refused > 300, "{read} read, {refused} refused");
    std::fs::remove_dir_all(&dir).unwrap();
}
