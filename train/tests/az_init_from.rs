//! Starting a run from another run's weights (`--init-from`), with a span (`--span`) from a run
//! of another board: the new run's first weights are the checkpoint's, its args record where
//! they came from, the network it saves plays its own board, and a checkpoint of another shape,
//! of another board without a span, or missing is refused before anything is written.
#![cfg(feature = "torch")]

mod common;

use common::tiny_args;
use sowing_agents::az::checkpoint;
use sowing_train::{TrainConfig, Trainer};
use std::path::{Path, PathBuf};
use tch::Tensor;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-init-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A one-iteration run of `variant` into `out`, laid out for `span`.
fn args(out: &Path, variant: &str, span: Option<usize>) -> TrainConfig {
    TrainConfig {
        variant: Some(variant.to_string()),
        span,
        ..tiny_args(out)
    }
}

fn trained(out: &Path, variant: &str, span: Option<usize>) {
    let mut trainer = Trainer::new(args(out, variant, span)).unwrap();
    trainer.iterate(&mut |_| {}).unwrap();
}

fn same_weights(a: &std::collections::BTreeMap<String, Tensor>, b: &[(String, Tensor)]) -> bool {
    a.len() == b.len()
        && b.iter()
            .all(|(name, t)| a.get(name).is_some_and(|s| s.equal(t)))
}

#[test]
fn a_run_of_one_board_starts_from_the_weights_of_another() {
    let dir = scratch("board");
    let six = dir.join("six");
    trained(&six, "en-dodoi-6", Some(10));
    let saved = checkpoint::load_checkpoint(&six).unwrap();
    let saved: Vec<(String, Tensor)> = saved.vs.variables().into_iter().collect();

    let eight = dir.join("eight");
    let mut trainer = Trainer::new(TrainConfig {
        init_from: Some(six.clone()),
        ..args(&eight, "en-dodoi-8", Some(10))
    })
    .unwrap();
    assert!(same_weights(&trainer.variables(), &saved));
    let digest = trainer
        .args()
        .init_from_digest
        .expect("the digest is recorded");
    assert_eq!(
        digest,
        checkpoint::digest(&six.join("iter-000001").join(checkpoint::META)).unwrap()
    );
    trainer.iterate(&mut |_| {}).unwrap();
    assert!(!same_weights(&trainer.variables(), &saved), "it trained on");
    drop(trainer);
    // What it saved plays en-dodoi-8, and records its start.
    let loaded = checkpoint::load_checkpoint(&eight).unwrap();
    assert_eq!(loaded.meta.rules.holes(), 8);
    assert_eq!(loaded.meta.net.span, Some(10));
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(eight.join("iter-000001").join(checkpoint::META)).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["args"]["init_from"], six.to_str().unwrap());

    // Resuming keeps it; a resume that names another start is refused.
    let mut budget = args(&eight, "en-dodoi-8", Some(10));
    budget.iterations = Some(2);
    budget.init_from = Some(dir.join("elsewhere"));
    let e = Trainer::resume_given(&eight, &budget, &["init_from"]).unwrap_err();
    assert!(e.to_string().contains("--init-from"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn weights_of_the_same_board_start_a_run_without_a_span() {
    let dir = scratch("same");
    let first = dir.join("first");
    trained(&first, "en-dodoi-6", None);
    let saved = checkpoint::load_checkpoint(&first).unwrap();
    let saved: Vec<(String, Tensor)> = saved.vs.variables().into_iter().collect();
    let trainer = Trainer::new(TrainConfig {
        init_from: Some(first.join("iter-000001")),
        seed: 9,
        ..args(&dir.join("second"), "en-dodoi-6", None)
    })
    .unwrap();
    assert!(same_weights(&trainer.variables(), &saved));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn weights_that_cannot_start_the_run_are_refused_before_anything_is_written() {
    let dir = scratch("refused");
    let six = dir.join("six");
    trained(&six, "en-dodoi-6", None);
    let spanned = dir.join("spanned");
    trained(&spanned, "en-dodoi-6", Some(10));
    let cases: [(TrainConfig, &[&str]); 5] = [
        // Another board, no span.
        (
            TrainConfig {
                init_from: Some(six.clone()),
                ..args(&dir.join("a"), "en-dodoi-8", None)
            },
            &["6 holes", "8 holes", "the same --span"],
        ),
        // Another width.
        (
            TrainConfig {
                init_from: Some(six.clone()),
                hidden: 16,
                ..args(&dir.join("b"), "en-dodoi-6", None)
            },
            &["hidden width 8", "hidden width 16"],
        ),
        // Another span.
        (
            TrainConfig {
                init_from: Some(spanned.clone()),
                ..args(&dir.join("c"), "en-dodoi-8", Some(12))
            },
            &["up to 10 holes", "up to 12 holes"],
        ),
        // A span on one side only.
        (
            TrainConfig {
                init_from: Some(spanned.clone()),
                ..args(&dir.join("d"), "en-dodoi-6", None)
            },
            &["spanning boards of up to 10"],
        ),
        // Nothing there.
        (
            TrainConfig {
                init_from: Some(dir.join("missing")),
                ..args(&dir.join("e"), "en-dodoi-6", None)
            },
            &["missing"],
        ),
    ];
    for (config, words) in cases {
        let out = config.out.clone().unwrap();
        let e = Trainer::new(config).unwrap_err().to_string();
        assert!(e.contains("--init-from"), "{e}");
        for w in words {
            assert!(e.contains(w), "{e:?} lacks {w:?}");
        }
        assert!(
            !out.join("config.json").exists(),
            "{} was written before the refusal",
            out.display()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_span_narrower_than_the_board_or_on_the_ring_is_refused() {
    let dir = scratch("span");
    let e = Trainer::new(args(&dir.join("a"), "en-dodoi-8", Some(6)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("--span") && e.contains("8 to 16"), "{e}");
    let ring = TrainConfig {
        net: sowing_agents::az::network::Body::Ring,
        ..args(&dir.join("b"), "en-dodoi-6", Some(10))
    };
    let e = Trainer::new(ring).unwrap_err().to_string();
    assert!(e.contains("--span") && e.contains("mlp body only"), "{e}");
    for span in [0, 17, usize::MAX] {
        let e = Trainer::new(args(&dir.join("c"), "en-dodoi-6", Some(span)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--span must be 1 to 16"), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_network_with_a_span_plays_every_board_up_to_it_and_others_are_refused() {
    let dir = scratch("play");
    let six = dir.join("six");
    trained(&six, "en-dodoi-6", Some(10));
    let plain = dir.join("plain");
    trained(&plain, "en-dodoi-6", None);
    let mut agent = sowing_agents::from_spec(&format!("az:{}:4", six.display())).unwrap();
    for variant in ["en-dodoi-6", "en-dodoi-8", "en-dodoi-10", "sadeqa-iii"] {
        let rules = sowing_env::Rules::preset(variant).unwrap();
        agent.can_play(&rules).unwrap();
        // The first 60 plies of a game against itself, every move legal.
        agent.new_game();
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        let mut s = sowing_env::State::initial(&rules);
        for _ in 0..60 {
            if s.is_over() {
                break;
            }
            let a = agent.choose(&s, &mut rng);
            s = s
                .play(a)
                .expect("the network plays legal moves on every board");
        }
    }
    let wide = sowing_env::Rules::preset("en-dodoi-6")
        .unwrap()
        .with(|s| s.holes = 12)
        .unwrap();
    let e = agent.can_play(&wide).unwrap_err();
    assert!(e.contains("spans boards of up to 10"), "{e}");
    let other = sowing_agents::from_spec(&format!("az:{}:4", plain.display())).unwrap();
    let e = other
        .can_play(&sowing_env::Rules::preset("en-dodoi-8").unwrap())
        .unwrap_err();
    assert!(
        e.contains("trained on 6 holes") && e.contains("8-hole"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
