//! Resumable builds: a build that goes on from a checkpoint gives the same file, byte for byte,
//! as one built through; checkpoints of other rules, of more seeds or damaged are refused by
//! name and left as they were.

use sowing_env::Rules;
use sowing_exact::tablebase::{BuildOptions, Checkpoint, Tablebase, TablebaseError};
use std::path::PathBuf;
use std::time::Duration;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn rules(holes: u32, trigger: &str) -> Rules {
    Rules::from_json(&format!(
        r#"{{"holes": {holes}, "seeds": 3, "trigger": "{trigger}", "direction": "parity"}}"#
    ))
    .unwrap()
}

fn every_layer(path: &std::path::Path) -> Checkpoint<'_> {
    Checkpoint {
        path,
        every: Duration::ZERO,
    }
}

#[test]
fn a_build_resumed_from_any_layer_writes_the_same_file() {
    let rules = rules(4, "take");
    let whole = temp("whole.tb");
    Tablebase::build(&rules, 12, &BuildOptions::default())
        .unwrap()
        .write(&whole)
        .unwrap();
    let whole_bytes = std::fs::read(&whole).unwrap();
    for stopped_after in [0, 5, 11] {
        // A checkpoint after layer `stopped_after` is a table of that many seeds.
        let checkpoint = temp(&format!("from-{stopped_after}.partial"));
        Tablebase::build(&rules, stopped_after, &BuildOptions::default())
            .unwrap()
            .write(&checkpoint)
            .unwrap();
        let (mut table, resumed) = Tablebase::build_resumable(
            &rules,
            12,
            &BuildOptions::default(),
            &every_layer(&checkpoint),
        )
        .unwrap();
        assert_eq!(resumed, Some(stopped_after));
        // Saved after every layer but the last: the checkpoint holds 11 seeds now.
        assert_eq!(Tablebase::open(&checkpoint).unwrap().max_seeds(), 11);
        every_layer(&checkpoint).remove().unwrap();
        assert!(!checkpoint.exists());
        every_layer(&checkpoint).remove().unwrap();
        let out = temp(&format!("resumed-{stopped_after}.tb"));
        table.write(&out).unwrap();
        assert_eq!(
            std::fs::read(&out).unwrap(),
            whole_bytes,
            "from {stopped_after}"
        );
    }
    // Without a checkpoint: built through, the same.
    let checkpoint = temp("none.partial");
    let (mut table, resumed) = Tablebase::build_resumable(
        &rules,
        12,
        &BuildOptions::default(),
        &every_layer(&checkpoint),
    )
    .unwrap();
    assert_eq!(resumed, None);
    assert_eq!(Tablebase::open(&checkpoint).unwrap().max_seeds(), 11);
    let out = temp("through.tb");
    table.write(&out).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), whole_bytes);
}

#[test]
fn checkpoints_that_do_not_fit_are_refused_by_name_and_kept() {
    let rules = rules(3, "take");
    let other = temp("other.partial");
    Tablebase::build(&self::rules(3, "leave"), 4, &BuildOptions::default())
        .unwrap()
        .write(&other)
        .unwrap();
    let more = temp("more.partial");
    Tablebase::build(&rules, 9, &BuildOptions::default())
        .unwrap()
        .write(&more)
        .unwrap();
    let damaged = temp("damaged.partial");
    std::fs::write(&damaged, b"not a table at all, just some bytes of text").unwrap();
    for (path, says) in [
        (&other, "trigger"),
        (
            &more,
            "holds the layers to 9 seeds, more than the 8 asked for",
        ),
        (&damaged, "damaged.partial"),
    ] {
        let before = std::fs::read(path).unwrap();
        let err =
            Tablebase::build_resumable(&rules, 8, &BuildOptions::default(), &every_layer(path))
                .unwrap_err();
        let message = err.to_string();
        assert!(message.contains(says), "{message:?} should say {says:?}");
        assert!(
            matches!(
                err,
                TablebaseError::OtherRules { .. }
                    | TablebaseError::Unsupported { .. }
                    | TablebaseError::Damaged { .. }
            ),
            "{err:?}"
        );
        assert_eq!(std::fs::read(path).unwrap(), before, "left as it was");
    }
}
