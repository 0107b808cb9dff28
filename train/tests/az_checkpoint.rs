//! Damaged and mismatched checkpoints are refused with messages that say what is wrong.
#![cfg(feature = "torch")]

mod common;

use common::tiny_args;
use sowing_agents::az::checkpoint::{self, WEIGHTS};
use sowing_agents::az::{Body, load_checkpoint};
use sowing_agents::from_spec;
use sowing_env::Rules;
use sowing_eval::arena::ArenaConfig;
use sowing_train::Trainer;
use std::path::PathBuf;

/// A run directory with one finished iteration.
fn one_iteration(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-azck-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut trainer = Trainer::new(tiny_args(&dir)).unwrap();
    trainer.iterate(&mut |_| {}).unwrap();
    dir
}

fn error_text<T, E: std::fmt::Display>(r: Result<T, E>) -> String {
    match r {
        Ok(_) => panic!("must be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_truncated_weights_file_is_refused() {
    let dir = one_iteration("truncated");
    let weights = checkpoint::iteration_dir(&dir, 1).join(WEIGHTS);
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
    let msg = error_text(load_checkpoint(&dir));
    assert!(
        msg.contains("corrupt") && msg.contains("truncated"),
        "{msg}"
    );
    assert!(msg.contains(WEIGHTS), "{msg}");
    let msg = error_text(from_spec(&format!("az:{}", dir.display())));
    assert!(msg.contains("truncated"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn altered_metadata_is_refused() {
    let dir = one_iteration("meta");
    let meta = checkpoint::iteration_dir(&dir, 1).join(checkpoint::META);
    std::fs::write(&meta, "{\"format\": \"something else\"}").unwrap();
    let msg = error_text(load_checkpoint(&dir));
    assert!(msg.contains("not a sowing-az-checkpoint"), "{msg}");
    std::fs::write(&meta, "{ not json").unwrap();
    let msg = error_text(load_checkpoint(&dir));
    assert!(msg.contains("not valid JSON"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resuming_on_another_variant_is_refused() {
    let dir = one_iteration("variant");
    let mut budget = tiny_args(&dir);
    budget.variant = Some("en-dodoi-8".to_string());
    budget.iterations = Some(2);
    let msg = error_text(Trainer::resume(&dir, &budget));
    assert!(
        msg.contains("trained on en-dodoi-6, not en-dodoi-8"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_new_run_does_not_overwrite_an_old_one() {
    let dir = one_iteration("overwrite");
    let msg = error_text(Trainer::new(tiny_args(&dir)));
    assert!(
        msg.contains("already holds a run") && msg.contains("--resume"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_checkpoint_is_reported() {
    let dir = std::env::temp_dir().join(format!("sowing-azck-{}-none", std::process::id()));
    let msg = error_text(from_spec(&format!("az:{}", dir.display())));
    assert!(msg.contains("no checkpoint"), "{msg}");
    assert!(from_spec("az:").is_err());
}

#[test]
fn an_agent_refuses_a_board_it_was_not_trained_on() {
    let dir = one_iteration("other-board");
    let agent = from_spec(&format!("az:{}:4", dir.display())).expect("the checkpoint loads");
    let trained = Rules::preset("en-dodoi-6").unwrap();
    assert!(agent.can_play(&trained).is_ok());
    let msg = error_text(agent.can_play(&Rules::preset("en-dodoi-8").unwrap()));
    assert!(
        msg.contains("trained on 6 holes") && msg.contains("8-hole"),
        "{msg}"
    );
    let config = ArenaConfig::new(
        Rules::preset("en-dodoi-8").unwrap(),
        vec![
            format!("az:{}:4", dir.display()).parse().unwrap(),
            sowing_agents::AgentSpec::Random,
        ],
        2,
    );
    let msg = error_text(sowing_eval::arena::play(&config, &|_| {}));
    assert!(msg.contains("trained on 6 holes"), "{msg}");
}

/// A ring network's checkpoint loads as a ring and plays; its `meta.json` made to say "mlp" is
/// refused, naming the body the weights hold.
#[test]
fn a_ring_checkpoint_loads_and_a_wrong_body_is_refused() {
    let dir = std::env::temp_dir().join(format!("sowing-azck-{}-ring", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = tiny_args(&dir);
    args.net = Body::Ring;
    let mut trainer = Trainer::new(args).unwrap();
    trainer.iterate(&mut |_| {}).unwrap();
    let loaded = load_checkpoint(&dir).unwrap();
    assert_eq!(loaded.net.config().body, Body::Ring);
    let mut agent = from_spec(&format!("az:{}:4", dir.display())).unwrap();
    let state = sowing_env::State::initial(&Rules::preset("en-dodoi-6").unwrap());
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
    assert!(state.is_legal(agent.choose(&state, &mut rng)));

    let meta = checkpoint::iteration_dir(&dir, 1).join(checkpoint::META);
    let text = std::fs::read_to_string(&meta).unwrap();
    assert!(text.contains("\"body\": \"ring\""), "{text}");
    std::fs::write(
        &meta,
        text.replace("\"body\": \"ring\"", "\"body\": \"mlp\""),
    )
    .unwrap();
    let msg = error_text(load_checkpoint(&dir));
    assert!(
        msg.contains("mlp body") && msg.contains("ring body"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn another_format_version_is_named_in_words() {
    let dir = one_iteration("version");
    let meta = checkpoint::iteration_dir(&dir, 1).join(checkpoint::META);
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
    value["version"] = 7.into();
    std::fs::write(&meta, value.to_string()).unwrap();
    let msg = error_text(load_checkpoint(&dir));
    assert!(msg.contains("format version 7, this build reads"), "{msg}");
    value["version"] = "seven".into();
    std::fs::write(&meta, value.to_string()).unwrap();
    let msg = error_text(load_checkpoint(&dir));
    assert!(msg.contains("no format version (a number)"), "{msg}");
    assert!(!msg.contains("Some(") && !msg.contains("None"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Settings given with --resume: those a run may change (its budget, threads, retention) are
/// taken; any other that differs from the run's own is refused, naming the flag and what the
/// run has, rather than dropped; one given with the run's own value is accepted.
#[test]
fn settings_given_on_resuming_are_taken_or_refused_never_dropped() {
    let dir = one_iteration("resume-settings");
    let mut budget = tiny_args(&dir);
    budget.iterations = Some(2);
    let refused = |budget: &sowing_train::TrainConfig, given: &[&str]| {
        error_text(Trainer::resume_given(&dir, budget, given))
    };
    let mut wider = budget.clone();
    wider.hidden = 128;
    let msg = refused(&wider, &["hidden", "iterations"]);
    assert!(
        msg.contains("--hidden 128 was given with --resume")
            && msg.contains(&format!("the run in {} has --hidden 8", dir.display())),
        "{msg}"
    );
    let mut faster = budget.clone();
    faster.lr = 0.01;
    let msg = refused(&faster, &["lr"]);
    assert!(
        msg.contains("--lr 0.01 was given") && msg.contains("has --lr 0.002,"),
        "{msg}"
    );
    let mut table = budget.clone();
    table.tablebase = Some(dir.join("other.tb"));
    let msg = refused(&table, &["tablebase"]);
    assert!(msg.contains("has no --tablebase"), "{msg}");
    let mut elsewhere = budget.clone();
    elsewhere.out = Some(dir.join("elsewhere"));
    let msg = refused(&elsewhere, &["out"]);
    assert!(
        msg.contains(&format!(
            "the run is in {} and goes on there",
            dir.display()
        )),
        "{msg}"
    );
    // The run's own values, and the settings a resumed run may change, are taken.
    let mut same = budget.clone();
    same.keep_last = 1;
    same.minutes = Some(5.0);
    let trainer = Trainer::resume_given(
        &dir,
        &same,
        &["hidden", "lr", "out", "keep_last", "minutes", "iterations"],
    )
    .unwrap();
    assert_eq!(trainer.args().keep_last, 1);
    assert_eq!(trainer.args().minutes, Some(5.0));
    assert_eq!(trainer.args().hidden, 8);
    drop(trainer);
    // Without a list of what was typed (the library's resume) nothing is refused.
    assert!(Trainer::resume(&dir, &wider).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn metadata_of_a_huge_string_is_not_repeated_whole() {
    let dir = one_iteration("huge-meta");
    let meta = checkpoint::iteration_dir(&dir, 1).join(checkpoint::META);
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
    value["iteration"] = "x".repeat(1 << 20).into();
    std::fs::write(&meta, value.to_string()).unwrap();
    let msg = error_text(load_checkpoint(&dir));
    assert!(msg.len() < 1000, "{} bytes", msg.len());
    assert!(
        msg.contains("bad metadata") && msg.contains("xxx... ("),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
