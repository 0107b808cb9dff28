//! The run directory and its checkpoints against what a user may do to them: `meta.json` edited
//! at random (every change is refused or harmless, never a panic), the weights cut or altered at
//! random, a disk that fills during a checkpoint, resuming from an iteration folder, and two
//! trainers on one directory.
#![cfg(feature = "torch")]

mod common;

use common::tiny_args;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use sowing_agents::az::checkpoint::{self, LOCK, META, RunLock, TRAINER, WEIGHTS};
use sowing_agents::az::load_checkpoint;
use sowing_train::{TrainError, Trainer};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-azrun-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A run directory with `iterations` finished iterations.
fn run(name: &str, iterations: u32) -> PathBuf {
    run_spanning(name, iterations, None)
}

/// [`run`] with a network laid out for boards of up to `span` holes.
fn run_spanning(name: &str, iterations: u32, span: Option<usize>) -> PathBuf {
    let dir = scratch(name);
    let mut args = tiny_args(&dir);
    args.iterations = Some(iterations);
    args.span = span;
    let mut trainer = Trainer::new(args).unwrap();
    for _ in 0..iterations {
        trainer.iterate(&mut |_| {}).unwrap();
    }
    dir
}

/// Load `dir`'s checkpoint, a panic caught and reported as the test's failure with `what` was
/// done to it.
fn load(dir: &Path, what: &str) -> Result<(), String> {
    std::panic::catch_unwind(|| load_checkpoint(dir).map(|_| ()).map_err(|e| e.to_string()))
        .unwrap_or_else(|_| panic!("loading a checkpoint with {what} panicked"))
}

/// A JSON value of a random kind: numbers small, huge, negative and fractional, strings,
/// booleans, null, lists and objects.
fn any_value(rng: &mut ChaCha8Rng) -> Value {
    match rng.random_range(0..10) {
        0 => json!(rng.random_range(0..20)),
        1 => json!(rng.random_range(0..u64::MAX)),
        2 => json!(-rng.random_range(1..1_000_000i64)),
        3 => json!(rng.random_range(-1e12..1e12)),
        4 => json!("en-dodoi-6"),
        5 => json!(rng.random_bool(0.5)),
        6 => Value::Null,
        7 => json!([1, 2, 3]),
        8 => json!({"holes": 6}),
        _ => json!(0),
    }
}

/// `meta.json` with one field of the network, the rules or the search settings changed to a
/// random value or removed, 300 times: each is loaded or refused with a message, and whenever
/// the network's shape or its rules change it is refused.
#[test]
fn meta_json_edited_at_random_is_refused_or_harmless() {
    meta_json_fuzzed("meta-fuzz", None);
}

/// The same for a network with a span, whose weights are those of every board up to it.
#[test]
fn meta_json_of_a_network_with_a_span_edited_at_random_is_refused_or_harmless() {
    meta_json_fuzzed("meta-fuzz-span", Some(10));
}

fn meta_json_fuzzed(name: &str, span: Option<usize>) {
    let dir = run_spanning(name, 1, span);
    let folder = checkpoint::iteration_dir(&dir, 1);
    let meta_path = folder.join(META);
    let original: Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    assert_eq!(load(&dir, "nothing changed"), Ok(()));
    let fields: [&[&str]; 14] = [
        &["net", "holes"],
        &["net", "span"],
        &["net", "hidden"],
        &["net", "blocks"],
        &["net", "lookahead"],
        &["net", "body"],
        &["rules", "holes"],
        &["rules", "seeds"],
        &["rules", "max_plies"],
        &["args", "simulations"],
        &["args", "c_puct"],
        &["args", "dirichlet_alpha"],
        &["iteration"],
        &["files"],
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut refused = 0;
    for _ in 0..300 {
        let path = fields[rng.random_range(0..fields.len())];
        let mut meta = original.clone();
        let (last, parents) = path.split_last().unwrap();
        let mut at = &mut meta;
        for p in parents {
            at = &mut at[*p];
        }
        let before = at[*last].clone();
        let after = if rng.random_bool(0.1) {
            at.as_object_mut().unwrap().remove(*last);
            None
        } else {
            let v = any_value(&mut rng);
            at[*last] = v.clone();
            Some(v)
        };
        std::fs::write(&meta_path, serde_json::to_string(&meta).unwrap()).unwrap();
        let what = format!("{path:?} = {after:?} (was {before})");
        match load(&dir, &what) {
            Ok(()) => {
                // A missing body reads as the MLP, which this run has; a missing span as
                // none, which is what a run without one has.
                let shape_changed = matches!(path[0], "net" | "rules")
                    && after.as_ref() != Some(&before)
                    && !(path[1] == "body" && after.is_none())
                    && !(path[1] == "span" && after.is_none() && before.is_null());
                assert!(
                    !shape_changed || path[1] == "max_plies" || path[1] == "seeds",
                    "{what} was loaded"
                );
            }
            Err(message) => {
                refused += 1;
                assert!(
                    message.contains(&folder.display().to_string()),
                    "{what}: {message}"
                );
            }
        }
    }
    assert!(refused > 200, "only {refused} of 300 refused");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The weights cut at random lengths, or with random bytes changed, and `meta.json`'s digest
/// made to match so that libtorch reads them: refused with a message, never a crash.
#[test]
fn weights_damaged_at_random_are_refused() {
    let dir = run("weights-fuzz", 1);
    let folder = checkpoint::iteration_dir(&dir, 1);
    let (weights, meta_path) = (folder.join(WEIGHTS), folder.join(META));
    let bytes = std::fs::read(&weights).unwrap();
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for round in 0..60 {
        let mut damaged = bytes.clone();
        let what = if round % 2 == 0 {
            let len = rng.random_range(0..bytes.len());
            damaged.truncate(len);
            format!("weights cut to {len} of {} bytes", bytes.len())
        } else {
            for _ in 0..rng.random_range(1..8) {
                let at = rng.random_range(0..damaged.len());
                damaged[at] = rng.random();
            }
            "weights with bytes changed".to_string()
        };
        std::fs::write(&weights, &damaged).unwrap();
        // Untouched, the digest check refuses the file first.
        let message = load(&dir, &what).unwrap_err();
        assert!(message.contains("corrupt"), "{what}: {message}");
        // With the digest made to match, libtorch reads the file.
        let digest = checkpoint::digest(&weights).unwrap();
        let mut forged = meta.clone();
        forged["files"][WEIGHTS] = serde_json::to_value(digest).unwrap();
        std::fs::write(&meta_path, serde_json::to_string(&forged).unwrap()).unwrap();
        if let Err(message) = load(&dir, &what) {
            assert!(message.contains(WEIGHTS), "{what}: {message}");
        }
        std::fs::write(&meta_path, serde_json::to_string(&meta).unwrap()).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The child half of [`a_full_disk_during_a_checkpoint_is_an_error`]: resume the run in
/// `SOWING_RUN` for one iteration and print how its checkpoint went.
#[test]
fn child_resumes_one_iteration() {
    let Some(dir) = std::env::var_os("SOWING_RUN") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let mut budget = tiny_args(&dir);
    budget.iterations = Some(2);
    let mut trainer = Trainer::resume(&dir, &budget).unwrap();
    match trainer.iterate(&mut |_| {}) {
        Ok(_) => println!("checkpoint written"),
        Err(e) => println!("refused: {e}"),
    }
}

/// A file-size limit (`ulimit -f`, with SIGXFSZ ignored so that a write past it fails as on a
/// full disk) on a trainer writing its second checkpoint: an error that names the file, no
/// temporary folder left, and the first checkpoint still whole.
#[test]
fn a_full_disk_during_a_checkpoint_is_an_error() {
    let dir = run("full-disk", 1);
    let out = Command::new("sh")
        .args(["-c", "ulimit -f 4; trap '' XFSZ; exec \"$0\" \"$@\""])
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_resumes_one_iteration",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("SOWING_RUN", &dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("refused: checkpoint "), "{stdout}");
    assert!(stdout.contains("File too large"), "{stdout}");
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.iter().all(|n| !n.starts_with(".tmp")), "{left:?}");
    assert!(!checkpoint::iteration_dir(&dir, 2).exists());
    assert_eq!(load(&dir, "nothing"), Ok(()));
    assert!(checkpoint::iteration_dir(&dir, 1).join(TRAINER).is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resuming_from_an_iteration_folder_writes_into_its_run() {
    let dir = run("resume-folder", 2);
    let mut budget = tiny_args(&dir);
    budget.iterations = Some(3);
    let mut trainer = Trainer::resume(&checkpoint::iteration_dir(&dir, 2), &budget).unwrap();
    assert_eq!(trainer.dir(), dir);
    trainer.iterate(&mut |_| {}).unwrap();
    drop(trainer);
    assert!(checkpoint::iteration_dir(&dir, 3).join(META).is_file());
    let inside: Vec<_> = std::fs::read_dir(checkpoint::iteration_dir(&dir, 2))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    // Its weights (as weights.ot and as safetensors) and meta.json: no new folder inside.
    assert_eq!(inside.len(), 3, "{inside:?}");
    // An older iteration is not the run's to go on from.
    budget.iterations = Some(4);
    let e = Trainer::resume(&checkpoint::iteration_dir(&dir, 2), &budget).unwrap_err();
    assert!(e.to_string().contains("not the newest checkpoint"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_trainer_at_a_time_writes_a_run_directory() {
    let dir = scratch("lock");
    let first = Trainer::new(tiny_args(&dir)).unwrap();
    let e = Trainer::new(tiny_args(&dir)).unwrap_err();
    let message = e.to_string();
    assert!(matches!(e, TrainError::Checkpoint(_)), "{message}");
    assert!(
        message.contains("being written by another trainer")
            && message.contains(&format!("pid {}", std::process::id())),
        "{message}"
    );
    drop(first);
    // Released with the trainer, and taken again.
    let again = RunLock::acquire(&dir).unwrap();
    drop(again);
    // A lock file a dead process left is taken over.
    std::fs::write(dir.join(LOCK), "pid 999999999\n").unwrap();
    let _taken = RunLock::acquire(&dir).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join(LOCK)).unwrap(),
        format!("pid {}\n", std::process::id())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_larger_than_the_memory_is_refused_before_it_starts() {
    if sowing_exact::memory::available().is_none() {
        return;
    }
    let dir = scratch("huge");
    let mut args = tiny_args(&dir);
    args.replay_capacity = 1 << 40;
    let e = Trainer::new(args).unwrap_err().to_string();
    assert!(
        e.contains("--replay-capacity") && e.contains("is available"),
        "{e}"
    );
    assert!(!dir.exists());
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_inputs_are_read() {
    // --out is a file, and the positions and table do not exist: the error names --out, the
    // one thing to fix first, before anything is read.
    let dir = scratch("out-first");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("a-file");
    std::fs::write(&out, "mine").unwrap();
    let mut args = tiny_args(&out);
    args.eval_positions = Some(dir.join("missing.jsonl"));
    args.tablebase = Some(dir.join("missing.tb"));
    let e = Trainer::new(args).unwrap_err().to_string();
    assert!(
        e.starts_with("--out: ") && e.contains("not a directory"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
    std::fs::remove_dir_all(&dir).unwrap();
}
