//! The trainer end to end on a tiny budget: two iterations write two checkpoints that load as an
//! agent, a run resumed after its first iteration repeats the second iteration of an
//! uninterrupted run exactly (CPU, one thread), and every evaluation measures the network's
//! accuracy on the same exact positions.
#![cfg(feature = "torch")]

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::az::checkpoint::{self, TRAINER};
use sowing_agents::az::load_checkpoint;
use sowing_agents::from_spec;
use sowing_env::{Rules, State};
use sowing_exact::positions::{ExactPosition, PositionSet};
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use sowing_train::trainer::TrainMeta;
use sowing_train::{IterationMetrics, RootSearch, TrainConfig as Args, Trainer};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod common;
use common::settings_of;

/// Tiny settings: a small network, few simulations and games, quick baselines.
fn tiny(out: &Path, iterations: u32) -> Args {
    settings_of(&tiny_command(out, iterations)).unwrap()
}

/// The command line of [`tiny`].
fn tiny_command(out: &Path, iterations: u32) -> Vec<String> {
    let out = out.to_str().unwrap();
    let iterations = iterations.to_string();
    [
        "train",
        "--variant",
        "en-dodoi-6",
        "--iterations",
        &iterations,
        "--seed",
        "5",
        "--out",
        out,
        "--hidden",
        "16",
        "--blocks",
        "1",
        "--simulations",
        "8",
        "--games-per-iteration",
        "6",
        "--parallel-games",
        "4",
        "--batch-size",
        "32",
        "--replay-capacity",
        "2000",
        "--baselines",
        "random,greedy",
        "--eval-games",
        "2",
        "--eval-simulations",
        "4",
        "--threads",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-az-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// 120 en-dodoi-6 positions with at most 10 seeds on the board, labelled by a table of 10 seeds:
/// the first such position of random games.
fn endgames() -> &'static PositionSet {
    static SET: OnceLock<PositionSet> = OnceLock::new();
    SET.get_or_init(|| {
        let rules = Rules::preset("en-dodoi-6").unwrap();
        let table = Tablebase::build(&rules, 10, &BuildOptions::default()).unwrap();
        let positions =
            ExactPosition::first_in_random_games(&table, 120, &mut ChaCha8Rng::seed_from_u64(2));
        PositionSet::new(rules, serde_json::json!(null), 0, positions)
    })
}

/// `tiny` settings that measure accuracy on the positions written to `DIR.positions.jsonl`.
fn with_positions(dir: &Path, iterations: u32) -> Args {
    let file = dir.with_extension("positions.jsonl");
    endgames().write(&file).unwrap();
    let mut args = tiny(dir, iterations);
    args.eval_positions = Some(file);
    args
}

fn train(args: Args) -> Trainer {
    let mut trainer = Trainer::new(args).expect("tiny settings are valid");
    while trainer.wants_more(0.0, 0.0) {
        trainer.iterate(&mut |_| {}).expect("an iteration runs");
    }
    trainer
}

#[test]
fn two_tiny_iterations_checkpoint_and_reload() {
    let dir = scratch("smoke");
    let trainer = train(tiny(&dir, 2));
    assert_eq!(trainer.iteration(), 2);
    let history = trainer.history();
    assert_eq!(history.len(), 2);
    for (i, m) in history.iter().enumerate() {
        assert_eq!(m.iteration, i as u32 + 1);
        assert_eq!(m.games, 6);
        assert!(m.positions > 0 && m.steps > 0);
        assert!(m.policy_loss.is_finite() && m.value_loss.is_finite());
        assert_eq!(m.eval.len(), 2);
        assert!(m.eval.iter().all(|r| r.games() == 2));
        assert!(m.elo.is_some());
    }
    assert!(
        checkpoint::iteration_dir(&dir, 1)
            .join("weights.ot")
            .is_file()
    );
    assert!(!checkpoint::iteration_dir(&dir, 1).join(TRAINER).exists());
    assert!(checkpoint::iteration_dir(&dir, 2).join(TRAINER).is_file());

    let loaded = load_checkpoint(&dir).expect("the newest checkpoint loads");
    assert_eq!(loaded.meta.iteration, 2);
    assert_eq!(loaded.meta.rules, Rules::preset("en-dodoi-6").unwrap());
    let same: bool = trainer
        .variables()
        .iter()
        .all(|(name, t)| loaded.vs.variables()[name].equal(t));
    assert!(same, "reloaded weights differ from the trained ones");

    let spec = format!("az:{}:4", dir.display());
    let mut agent = from_spec(&spec).expect("az spec loads");
    assert_eq!(agent.name(), spec);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut state = State::initial(&Rules::preset("en-dodoi-6").unwrap());
    while !state.is_over() {
        let a = agent.choose(&state, &mut rng);
        state = state.play(a).expect("the az agent plays legal moves");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resume_repeats_the_uninterrupted_run() {
    let straight_dir = scratch("straight");
    let straight = train(with_positions(&straight_dir, 2));

    let split_dir = scratch("split");
    let first = train(with_positions(&split_dir, 1));
    assert_eq!(first.iteration(), 1);
    drop(first);
    // Only the budget is given again: the evaluation positions come from the checkpoint.
    let budget = tiny(&split_dir, 2);
    let mut resumed = Trainer::resume(&split_dir, &budget).expect("the run resumes");
    assert_eq!(resumed.iteration(), 1);
    assert!(resumed.wants_more(0.0, 0.0));
    resumed
        .iterate(&mut |_| {})
        .expect("the resumed iteration runs");
    assert!(!resumed.wants_more(0.0, 0.0));

    let (a, b) = (&straight.history()[1], &resumed.history()[1]);
    assert_eq!(a.positions, b.positions);
    assert_eq!(a.policy_loss, b.policy_loss);
    assert_eq!(a.value_loss, b.value_loss);
    assert_eq!(a.eval, b.eval);
    assert_eq!(a.accuracy, b.accuracy);
    assert_eq!(a.accuracy.unwrap().result.n, 120);
    let theirs = resumed.variables();
    for (name, t) in straight.variables() {
        assert!(
            theirs[&name].equal(&t),
            "variable {name} differs after resuming"
        );
    }
    for dir in [straight_dir, split_dir] {
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_file(dir.with_extension("positions.jsonl")).unwrap();
    }
}

/// The iterations whose checkpoint folders are in run `dir`, in order.
fn folders(dir: &Path) -> Vec<u32> {
    let mut found: Vec<u32> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_prefix("iter-")?.parse().ok()
        })
        .collect();
    found.sort();
    found
}

#[test]
fn retention_keeps_the_newest_and_every_mth_and_resume_stays_exact() {
    let keep = |mut args: Args| {
        args.keep_last = 2;
        args.keep_every = 3;
        args.eval_games = 0;
        args
    };
    let straight_dir = scratch("keep-straight");
    let straight = train(keep(tiny(&straight_dir, 7)));
    assert_eq!(folders(&straight_dir), [3, 6, 7]);
    // `az:RUN` plays the newest; an older kept folder still loads on its own.
    let spec = format!("az:{}:4", straight_dir.display());
    assert_eq!(load_checkpoint(&straight_dir).unwrap().meta.iteration, 7);
    assert!(from_spec(&spec).is_ok());
    assert_eq!(
        load_checkpoint(&checkpoint::iteration_dir(&straight_dir, 3))
            .unwrap()
            .meta
            .iteration,
        3
    );
    // The history stays whole though folders go.
    assert_eq!(straight.history().len(), 7);

    let split_dir = scratch("keep-split");
    drop(train(keep(tiny(&split_dir, 4))));
    assert_eq!(folders(&split_dir), [3, 4]);
    let budget = tiny(&split_dir, 7);
    let mut resumed = Trainer::resume(&split_dir, &budget).unwrap();
    assert_eq!(
        (resumed.args().keep_last, resumed.args().keep_every),
        (2, 3)
    );
    while resumed.wants_more(0.0, 0.0) {
        resumed.iterate(&mut |_| {}).unwrap();
    }
    assert_eq!(folders(&split_dir), [3, 6, 7]);
    let theirs = resumed.variables();
    for (name, t) in straight.variables() {
        assert!(theirs[&name].equal(&t), "variable {name} differs");
    }
    for dir in [straight_dir, split_dir] {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_tablebase_gives_self_play_exact_endgames_and_resume_stays_exact() {
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let file = scratch("table").with_extension("tb");
    Tablebase::build(&rules, 10, &BuildOptions::default())
        .unwrap()
        .write(&file)
        .unwrap();
    let with_table = |dir: &Path, iterations: u32| {
        let mut args = tiny(dir, iterations);
        args.eval_games = 0;
        args.tablebase = Some(file.clone());
        args
    };
    let plain_dir = scratch("table-none");
    let mut plain = tiny(&plain_dir, 2);
    plain.eval_games = 0;
    let plain = train(plain);
    let straight_dir = scratch("table-straight");
    let straight = train(with_table(&straight_dir, 2));
    // The endgame's leaves and targets are the table's: the run learns from other samples.
    assert_ne!(
        plain.history()[1].policy_loss,
        straight.history()[1].policy_loss
    );
    let split_dir = scratch("table-split");
    drop(train(with_table(&split_dir, 1)));
    let budget = tiny(&split_dir, 2);
    let mut resumed = Trainer::resume(&split_dir, &budget).unwrap();
    assert_eq!(resumed.args().tablebase.as_ref(), Some(&file));
    resumed.iterate(&mut |_| {}).unwrap();
    let (a, b) = (&straight.history()[1], &resumed.history()[1]);
    assert_eq!(
        (a.positions, a.policy_loss, a.value_loss),
        (b.positions, b.policy_loss, b.value_loss)
    );
    let theirs = resumed.variables();
    for (name, t) in straight.variables() {
        assert!(theirs[&name].equal(&t), "variable {name} differs");
    }
    // A table of other rules, or no file, is refused before the run starts, naming it.
    let mut other = tiny(&scratch("table-other"), 1);
    let small = scratch("table-small").with_extension("tb");
    let rules_2x3 = Rules::from_json(r#"{"holes": 3, "seeds": 2}"#).unwrap();
    Tablebase::build(&rules_2x3, 6, &BuildOptions::default())
        .unwrap()
        .write(&small)
        .unwrap();
    other.tablebase = Some(small.clone());
    let msg = Trainer::new(other.clone()).unwrap_err().to_string();
    assert!(msg.starts_with("--tablebase: "), "{msg}");
    other.tablebase = Some(scratch("no-such").with_extension("tb"));
    let msg = Trainer::new(other).unwrap_err().to_string();
    assert!(
        msg.contains("--tablebase: ") && msg.contains("no-such"),
        "{msg}"
    );
    for dir in [plain_dir, straight_dir, split_dir] {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    for f in [file, small] {
        std::fs::remove_file(f).unwrap();
    }
}

#[test]
fn a_keep_last_of_zero_is_refused() {
    let dir = scratch("keep-zero");
    let mut args = tiny(&dir, 1);
    args.keep_last = 0;
    let msg = Trainer::new(args).unwrap_err().to_string();
    assert!(msg.contains("--keep-last must be at least 1"), "{msg}");
}

/// Every number `sowing train` takes, given generated values one flag at a time (the others
/// tiny): the parser refuses it, or the trainer refuses it with a message that names what to
/// change, or accepts it; never a panic.
#[test]
fn generated_numbers_for_every_training_flag_never_crash_the_trainer() {
    let flags = [
        "--iterations",
        "--minutes",
        "--keep-last",
        "--keep-every",
        "--hidden",
        "--blocks",
        "--simulations",
        "--considered",
        "--full-fraction",
        "--fast-simulations",
        "--reanalyse",
        "--reanalyse-simulations",
        "--games-per-iteration",
        "--parallel-games",
        "--c-puct",
        "--dirichlet-alpha",
        "--noise-fraction",
        "--temperature-plies",
        "--opening-plies",
        "--value-mix",
        "--replay-capacity",
        "--batch-size",
        "--sample-reuse",
        "--lr",
        "--weight-decay",
        "--eval-games",
        "--eval-every",
        "--eval-simulations",
        "--threads",
    ];
    let values = [
        "0",
        "1",
        "3",
        "-1",
        "0.5",
        "1e9",
        "nan",
        "inf",
        "4294967295",
        "18446744073709551615",
        "x",
        "",
    ];
    let dir = scratch("generated-flags");
    let (mut parsed, mut refused) = (0, 0);
    for flag in flags {
        // The tiny command without this flag (if it has it), then the flag with each value.
        let mut base = tiny_command(&dir, 1);
        if let Some(at) = base.iter().position(|a| a == flag) {
            base.drain(at..at + 2);
        }
        for value in values {
            let mut argv = base.clone();
            argv.extend([flag.to_string(), value.to_string()]);
            let Ok(settings) = settings_of(&argv) else {
                continue;
            };
            parsed += 1;
            let made = std::panic::catch_unwind(|| {
                Trainer::new(settings)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
            match made {
                Err(_) => panic!("{flag} {value:?} panicked"),
                Ok(Err(message)) => {
                    refused += 1;
                    assert!(
                        message.contains("--") || message.contains("memory"),
                        "{flag} {value:?}: {message}"
                    );
                }
                Ok(Ok(())) => {}
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    assert!(
        parsed > 100 && refused > 40,
        "{parsed} parsed, {refused} refused"
    );
}

#[test]
fn playout_cap_settings_out_of_range_are_refused() {
    let dir = scratch("cap-bad");
    for (fraction, fast, wanted) in [
        (0.0, 2, "--full-fraction must be above 0 and at most 1"),
        (1.5, 2, "--full-fraction must be above 0 and at most 1"),
        (f64::NAN, 2, "--full-fraction must be above 0"),
        (
            0.5,
            0,
            "--fast-simulations must be at least 1 and at most --simulations",
        ),
        (
            0.5,
            1000,
            "--fast-simulations must be at least 1 and at most --simulations",
        ),
    ] {
        let mut args = tiny(&dir, 1);
        args.full_fraction = fraction;
        args.fast_simulations = fast;
        let msg = Trainer::new(args).unwrap_err().to_string();
        assert!(msg.contains(wanted), "{fraction} {fast}: {msg}");
    }
    // Without a cap the fast simulations are not read.
    let mut args = tiny(&dir, 1);
    args.fast_simulations = 1000;
    let trainer = train(args);
    assert_eq!(trainer.iteration(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A capped run trains and records its cap in every checkpoint.
#[test]
fn a_playout_capped_run_trains_and_keeps_its_cap() {
    let dir = scratch("cap");
    let mut args = tiny(&dir, 1);
    args.full_fraction = 0.5;
    args.fast_simulations = 2;
    let trainer = train(args);
    let m = &trainer.history()[0];
    assert!(m.positions > 0 && m.steps > 0);
    let meta = checkpoint::iteration_dir(&dir, 1).join(checkpoint::META);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(meta).unwrap()).unwrap();
    assert_eq!(meta["args"]["full_fraction"], 0.5);
    assert_eq!(meta["args"]["fast_simulations"], 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_evaluation_measures_accuracy_on_the_same_positions() {
    let dir = scratch("accuracy");
    let mut args = with_positions(&dir, 3);
    args.eval_every = 2;
    args.eval_games = 0;
    let trainer = train(args);
    let measured: Vec<Option<u64>> = trainer
        .history()
        .iter()
        .map(|m| m.accuracy.map(|k| k.result.n))
        .collect();
    assert_eq!(measured, vec![Some(120), Some(120), None]);
    let critical = endgames()
        .positions
        .iter()
        .filter(|p| p.keeps_result() != p.state.legal_mask())
        .count() as u64;
    for kept in trainer.history().iter().filter_map(|m| m.accuracy) {
        assert_eq!(kept.critical.n, critical);
        assert_eq!(kept.margin.n, 120);
        assert!(kept.result.hits >= kept.critical.hits);
    }
    // The figures are in the checkpoint's history, and the file in its arguments.
    let newest = checkpoint::resolve(&dir).unwrap();
    let meta: TrainMeta = sowing_train::trainer::read_run(&newest).unwrap();
    let accuracy =
        |history: &[IterationMetrics]| history.iter().map(|m| m.accuracy).collect::<Vec<_>>();
    assert_eq!(accuracy(&meta.history), accuracy(trainer.history()));
    assert_eq!(
        meta.args.eval_positions,
        Some(dir.with_extension("positions.jsonl"))
    );

    // A positions file changed since the run began is refused on resuming (once this trainer,
    // which holds the run's lock, is gone).
    drop(trainer);
    let file = dir.with_extension("positions.jsonl");
    let mut fewer = endgames().clone();
    fewer.positions.truncate(100);
    fewer.header.count = 100;
    fewer.write(&file).unwrap();
    let budget = tiny(&dir, 4);
    let e = Trainer::resume(&dir, &budget).unwrap_err().to_string();
    assert!(e.contains("changed since the run began"), "{e}");
    assert!(e.contains(file.to_str().unwrap()), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn evaluation_positions_of_other_rules_or_missing_are_refused() {
    let dir = scratch("bad-positions");
    let mut args = with_positions(&dir, 1);
    args.variant = Some("en-dodoi-8".to_string());
    let e = Trainer::new(args).unwrap_err().to_string();
    assert!(
        e.contains("--eval-positions") && e.contains("not of en-dodoi-8"),
        "{e}"
    );
    let mut args = tiny(&dir, 1);
    args.eval_positions = Some(dir.join("missing.jsonl"));
    let e = Trainer::new(args).unwrap_err().to_string();
    assert!(e.contains("missing.jsonl"), "{e}");
    std::fs::remove_file(dir.with_extension("positions.jsonl")).unwrap();
}

#[test]
fn evaluation_runs_after_the_first_and_every_kth_iteration() {
    let dir = scratch("every");
    let mut args = tiny(&dir, 4);
    args.eval_every = 3;
    let trainer = train(args);
    let evaluated: Vec<bool> = trainer
        .history()
        .iter()
        .map(|m| !m.eval.is_empty() && m.elo.is_some())
        .collect();
    assert_eq!(evaluated, vec![true, false, true, false]);
    // Iterations without evaluation still train.
    assert!(trainer.history().iter().all(|m| m.steps > 0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn self_play_openings_vary_the_start_and_keep_runs_reproducible() {
    let (a_dir, b_dir, c_dir) = (scratch("open-a"), scratch("open-b"), scratch("open-c"));
    let with_openings = |dir: &Path, plies: u32| {
        let mut args = tiny(dir, 1);
        args.opening_plies = plies;
        args.eval_games = 0;
        train(args)
    };
    let a = with_openings(&a_dir, 6);
    let b = with_openings(&b_dir, 6);
    let c = with_openings(&c_dir, 0);
    assert_eq!(a.history()[0].positions, b.history()[0].positions);
    assert_eq!(a.history()[0].policy_loss, b.history()[0].policy_loss);
    // Random plies before the first searched move change the games played.
    assert_ne!(
        (a.history()[0].positions, a.history()[0].policy_loss),
        (c.history()[0].positions, c.history()[0].policy_loss)
    );
    for dir in [a_dir, b_dir, c_dir] {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_gumbel_root_run_resumes_exactly_and_keeps_its_root() {
    let gumbel = |dir: &Path, iterations| {
        let mut args = tiny(dir, iterations);
        args.root = RootSearch::Gumbel;
        args.considered = 4;
        args
    };
    let straight_dir = scratch("gumbel-straight");
    let straight = train(gumbel(&straight_dir, 2));
    // The same run with PUCT's root learns from other targets.
    let puct_dir = scratch("gumbel-puct");
    let puct = train(tiny(&puct_dir, 2));
    assert_ne!(
        straight.history()[0].policy_loss,
        puct.history()[0].policy_loss
    );

    let split_dir = scratch("gumbel-split");
    drop(train(gumbel(&split_dir, 1)));
    // The budget alone is given again (with PUCT's defaults): the root comes from the checkpoint.
    let budget = tiny(&split_dir, 2);
    let mut resumed = Trainer::resume(&split_dir, &budget).expect("the run resumes");
    resumed
        .iterate(&mut |_| {})
        .expect("the resumed iteration runs");
    let (a, b) = (&straight.history()[1], &resumed.history()[1]);
    assert_eq!(a.positions, b.positions);
    assert_eq!(a.policy_loss, b.policy_loss);
    let meta: TrainMeta =
        sowing_train::trainer::read_run(&checkpoint::iteration_dir(&split_dir, 2)).unwrap();
    assert_eq!(meta.args.root, RootSearch::Gumbel);
    assert_eq!(meta.args.considered, 4);
    for dir in [straight_dir, puct_dir, split_dir] {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn an_overlapped_run_learns_one_iteration_behind_and_resumes_exactly() {
    let overlapped = |dir: &Path, iterations| {
        let mut args = tiny(dir, iterations);
        args.overlap = true;
        args
    };
    let straight_dir = scratch("overlap-straight");
    let straight = train(overlapped(&straight_dir, 3));
    let history = straight.history();
    // Nothing to learn from while the first games play; then each iteration takes the steps
    // for the positions the one before it played (tiny: reuse 4, batches of 32).
    assert_eq!(history[0].steps, 0);
    for k in 1..3 {
        let want = (history[k - 1].positions as f64 * 4.0 / 32.0).ceil() as u32;
        assert_eq!(history[k].steps, want, "iteration {}", k + 1);
        assert!(history[k].policy_loss > 0.0 && history[k].value_loss > 0.0);
    }
    let played: u64 = history.iter().map(|m| m.positions).sum();
    assert_eq!(history[2].buffer as u64, played);

    // Stopped after two iterations and resumed for the third, it learns what it learnt straight.
    let split_dir = scratch("overlap-split");
    drop(train(overlapped(&split_dir, 2)));
    let budget = tiny(&split_dir, 3);
    let mut resumed = Trainer::resume(&split_dir, &budget).expect("the run resumes");
    assert!(resumed.args().overlap, "the checkpoint keeps --overlap");
    resumed
        .iterate(&mut |_| {})
        .expect("the resumed iteration runs");
    let (a, b) = (&history[2], &resumed.history()[2]);
    assert_eq!(
        (a.positions, a.steps, a.policy_loss, a.value_loss),
        (b.positions, b.steps, b.policy_loss, b.value_loss)
    );
    let theirs = resumed.variables();
    for (name, t) in straight.variables() {
        assert!(
            theirs[&name].equal(&t),
            "variable {name} differs after resuming"
        );
    }

    // Without --overlap the first iteration learns from its own games: another run.
    let plain_dir = scratch("overlap-plain");
    let plain = train(tiny(&plain_dir, 1));
    assert!(plain.history()[0].steps > 0);
    assert_eq!(plain.history()[0].positions, history[0].positions);
    for dir in [straight_dir, split_dir, plain_dir] {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A change to the arguments, and what its refusal says.
type Refused = (fn(&mut Args), &'static str);

/// The refusal of `args`, which must be refused.
fn refusal(args: Args) -> String {
    match Trainer::new(args) {
        Ok(_) => panic!("must be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn sample_reuse_and_learning_rates_past_any_use_are_refused() {
    let dir = scratch("bounds");
    let cases: [Refused; 4] = [
        (
            |a| a.sample_reuse = 1e9,
            "--sample-reuse must be at most 1000",
        ),
        (|a| a.lr = 1e30, "--lr must be at most 1"),
        (|a| a.lr = 1.5, "--lr must be at most 1"),
        (|a| a.weight_decay = 2.0, "--weight-decay must be at most 1"),
    ];
    for (change, wanted) in cases {
        let mut args = tiny(&dir, 1);
        change(&mut args);
        let e = refusal(args);
        assert!(e.contains(wanted), "{e}");
    }
    assert!(!dir.exists(), "nothing is written for refused settings");
}

/// The evaluation refuses what `sowing arena` refuses, by the arena's own checks.
#[test]
fn evaluation_settings_the_arena_refuses_are_refused() {
    let dir = scratch("eval-bad");
    let cases: [Refused; 4] = [
        (
            |a| a.baselines = "random,greedy,random".into(),
            "--baselines: agent random is listed twice",
        ),
        (
            |a| a.eval_games = 3,
            "--eval-games: games per pairing must be a positive even number",
        ),
        (
            |a| a.eval_opening = 5000,
            "--eval-opening: an opening of 5000 random plies is as long as a game may last",
        ),
        (
            |a| a.eval_opening = 500,
            "--eval-opening: an opening of 500 random plies: random play seldom lasts that long",
        ),
    ];
    for (change, wanted) in cases {
        let mut args = tiny(&dir, 1);
        change(&mut args);
        let e = refusal(args);
        assert!(e.contains(wanted), "{e}");
    }
    // No games, no checks: an odd count is moot when evaluation plays none.
    let mut none = tiny(&dir, 1);
    none.eval_games = 0;
    none.eval_opening = 5000;
    assert!(Trainer::new(none).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--minutes` is honoured inside an iteration's training: no step is begun past it, however
/// many `--sample-reuse` asks for.
#[test]
fn no_training_step_is_begun_past_the_time_budget() {
    let dir = scratch("deadline");
    let mut args = tiny(&dir, 1);
    args.eval_games = 0;
    args.sample_reuse = 1000.0;
    // A budget over before the first step.
    args.minutes = Some(1e-9);
    let mut trainer = Trainer::new(args).unwrap();
    let metrics = trainer.iterate(&mut |_| {}).unwrap();
    assert!(metrics.positions > 0);
    assert_eq!(metrics.steps, 0);
    assert!(!trainer.wants_more(0.0, 0.0) || trainer.iteration() == 1);
    drop(trainer);
    std::fs::remove_dir_all(&dir).unwrap();
    // The same without the budget takes every step.
    let mut args = tiny(&dir, 1);
    args.eval_games = 0;
    let mut trainer = Trainer::new(args).unwrap();
    assert!(trainer.iterate(&mut |_| {}).unwrap().steps > 0);
    drop(trainer);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Training that leaves weights that are not numbers stops with an error before anything is
/// written: the run's checkpoints stay as they were.
#[test]
fn a_diverged_network_is_refused_and_never_checkpointed() {
    let dir = scratch("diverged");
    let mut args = tiny(&dir, 3);
    args.eval_games = 0;
    let mut trainer = Trainer::new(args).unwrap();
    trainer.iterate(&mut |_| {}).unwrap();
    // What a learning rate far too high does, at once: a weight that is not a number.
    let (_, weight) = trainer.variables().into_iter().next().unwrap();
    tch::no_grad(|| {
        let _ = weight.shallow_clone().fill_(f64::NAN);
    });
    let e = trainer.iterate(&mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("training diverged in iteration 2"), "{e}");
    assert!(e.contains("the network's weights ("), "{e}");
    assert!(
        e.contains("the run's checkpoints end at iteration 1"),
        "{e}"
    );
    assert!(e.contains("smaller --lr"), "{e}");
    drop(trainer);
    assert!(!checkpoint::iteration_dir(&dir, 2).exists());
    let loaded = load_checkpoint(&dir).unwrap();
    assert_eq!(loaded.meta.iteration, 1);
    let finite = loaded
        .vs
        .variables()
        .values()
        .all(|t| t.isfinite().all().int64_value(&[]) == 1);
    assert!(finite);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Reanalysis: from the second iteration on, older positions are searched again and given new
/// targets (the first has none older), which changes what the network learns but not the games
/// it played; the buffer keeps its positions in the checkpoint, so a resumed run reanalyses as
/// an uninterrupted one does.
#[test]
fn a_reanalysed_run_retargets_older_positions_and_resumes_exactly() {
    let reanalysed = |dir: &Path, iterations| {
        let mut args = tiny(dir, iterations);
        args.reanalyse = 0.5;
        args.reanalyse_simulations = Some(16);
        args
    };
    let straight_dir = scratch("reanalyse-straight");
    let straight = train(reanalysed(&straight_dir, 3));
    let history = straight.history();
    assert_eq!(history[0].reanalysed, 0, "nothing older to search again");
    for k in 1..3 {
        let older: u64 = history[..k].iter().map(|m| m.positions).sum();
        let wanted = (0.5 * history[k].positions as f64).round() as u64;
        assert!(wanted > 0);
        assert_eq!(
            history[k].reanalysed,
            wanted.min(older),
            "iteration {}",
            k + 1
        );
    }

    // Without it: the same first iteration and the same games in the second, other learning.
    let plain_dir = scratch("reanalyse-plain");
    let plain = train(tiny(&plain_dir, 2));
    let (a, b) = (&plain.history()[0], &history[0]);
    assert_eq!((a.positions, a.policy_loss), (b.positions, b.policy_loss));
    let (a, b) = (&plain.history()[1], &history[1]);
    assert_eq!(a.positions, b.positions);
    assert_eq!(a.reanalysed, 0);
    assert_ne!(a.policy_loss, b.policy_loss, "new targets, other losses");

    // Stopped after two iterations and resumed for the third: the same third iteration.
    let split_dir = scratch("reanalyse-split");
    drop(train(reanalysed(&split_dir, 2)));
    let mut resumed = Trainer::resume(&split_dir, &tiny(&split_dir, 3)).expect("it resumes");
    assert_eq!(resumed.args().reanalyse, 0.5);
    assert_eq!(resumed.args().reanalyse_simulations, Some(16));
    resumed
        .iterate(&mut |_| {})
        .expect("the resumed iteration runs");
    let (a, b) = (&history[2], &resumed.history()[2]);
    assert_eq!(
        (a.positions, a.reanalysed, a.policy_loss, a.value_loss),
        (b.positions, b.reanalysed, b.policy_loss, b.value_loss)
    );
    let theirs = resumed.variables();
    for (name, t) in straight.variables() {
        assert!(
            theirs[&name].equal(&t),
            "variable {name} differs after resuming"
        );
    }
    for dir in [straight_dir, plain_dir, split_dir] {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn reanalysis_settings_out_of_range_are_refused() {
    let dir = scratch("reanalyse-bad");
    let cases: [Refused; 5] = [
        (
            |a| a.reanalyse = -0.5,
            "--reanalyse must be between 0 and 16",
        ),
        (
            |a| a.reanalyse = f64::NAN,
            "--reanalyse must be between 0 and 16",
        ),
        (
            |a| a.reanalyse = 17.0,
            "--reanalyse must be between 0 and 16",
        ),
        (
            |a| a.reanalyse_simulations = Some(0),
            "--reanalyse-simulations must be between 1 and",
        ),
        (
            |a| a.reanalyse_simulations = Some(u32::MAX),
            "--reanalyse-simulations must be between 1 and",
        ),
    ];
    for (change, wanted) in cases {
        let mut args = tiny(&dir, 1);
        change(&mut args);
        let e = refusal(args);
        assert!(e.contains(wanted), "{e}");
    }
    assert!(!dir.exists(), "nothing is written for refused settings");
}
