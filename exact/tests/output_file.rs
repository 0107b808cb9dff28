//! Output files: written whole through a temporary of their own, or refused before any work when
//! they cannot be; a device or FIFO is never replaced by a regular file, no file of the user's but
//! the target is touched, and no temporary is left behind by a failed write.

use sowing_env::Rules;
use sowing_exact::output_file::{self, check, check_apart, prepare_dir, write, write_with};
use sowing_exact::positions::PositionSet;
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use std::io::Write;
use std::path::{Path, PathBuf};

/// An empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-out-{}-{name}", std::process::id()));
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

/// A FIFO at `path` (by `mkfifo`, there on every Unix).
fn fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path)
        .unwrap()
        .file_type()
        .is_fifo()
}

#[test]
fn a_file_is_replaced_whole_and_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("replace");
    let path = dir.join("out.txt");
    write(&path, b"first").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    write(&path, b"second").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"second");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    assert_eq!(names(&dir), ["out.txt"]);
    // A read-only file is the user's to keep: refused, not replaced.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let e = write(&path, b"third").unwrap_err().to_string();
    assert!(e.contains("it is read-only"), "{e}");
    assert!(check(&path).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), b"second");
    assert_eq!(names(&dir), ["out.txt"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_users_files_beside_the_target_are_left_alone() {
    let dir = scratch("beside");
    for name in ["out.tb.tmp", ".out.tb.tmp", "out.jsonl.tmp"] {
        std::fs::write(dir.join(name), "mine").unwrap();
    }
    let rules = Rules::from_json(r#"{"holes": 2, "seeds": 1}"#).unwrap();
    let mut table = Tablebase::build(&rules, 4, &BuildOptions::default()).unwrap();
    table.write(dir.join("out.tb")).unwrap();
    PositionSet::new(rules, serde_json::json!(null), 0, Vec::new())
        .write(dir.join("out.jsonl"))
        .unwrap();
    for name in ["out.tb.tmp", ".out.tb.tmp", "out.jsonl.tmp"] {
        assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), "mine");
    }
    assert_eq!(
        names(&dir),
        [
            ".out.tb.tmp",
            "out.jsonl",
            "out.jsonl.tmp",
            "out.tb",
            "out.tb.tmp"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_or_a_device_is_refused_and_never_replaced() {
    let dir = scratch("fifo");
    let pipe = dir.join("pipe");
    fifo(&pipe);
    let rules = Rules::from_json(r#"{"holes": 2, "seeds": 1}"#).unwrap();
    let mut table = Tablebase::build(&rules, 4, &BuildOptions::default()).unwrap();
    let e = table.write(&pipe).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    assert!(e.contains(&pipe.display().to_string()), "{e}");
    assert!(is_fifo(&pipe), "the FIFO was replaced");
    let set = PositionSet::new(rules, serde_json::json!(null), 0, Vec::new());
    let e = set.write(&pipe).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    assert!(is_fifo(&pipe), "the FIFO was replaced");
    for target in [pipe.as_path(), Path::new("/dev/null")] {
        let e = check(target).unwrap_err().to_string();
        assert!(
            e.contains("not a regular file (a device, FIFO or socket)"),
            "{e}"
        );
        assert!(write(target, b"x").is_err());
    }
    assert!(is_fifo(&pipe));
    assert_eq!(names(&dir), ["pipe"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_or_a_missing_directory_is_refused_before_any_work() {
    let dir = scratch("dirs");
    let e = check(&dir).unwrap_err().to_string();
    assert!(e.contains("is a directory: give a file name"), "{e}");
    let nowhere = dir.join("missing").join("x.tb");
    let e = check(&nowhere).unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            "its directory {} does not exist",
            dir.join("missing").display()
        )),
        "{e}"
    );
    assert!(
        e.starts_with(&format!("cannot write {}", nowhere.display())),
        "{e}"
    );
    let e = check(Path::new("/")).unwrap_err().to_string();
    assert!(e.contains("names no file"), "{e}");
    // A name that ends in a separator is a directory's, which the rename would refuse after
    // the work.
    let e = check(&dir.join("new/")).unwrap_err().to_string();
    assert!(e.contains("ends in a separator"), "{e}");
    // A file where a directory would be.
    std::fs::write(dir.join("plain"), "x").unwrap();
    let e = check(&dir.join("plain").join("x.tb"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not a directory"), "{e}");
    // A target that can be written is left as it was by the check.
    check(&dir.join("fine.tb")).unwrap();
    assert_eq!(names(&dir), ["plain"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_write_leaves_the_old_file_and_no_temporary() {
    let dir = scratch("failed");
    let path = dir.join("out.txt");
    write(&path, b"old").unwrap();
    let e = write_with(&path, 16, |out| {
        out.write_all(b"half of the new")?;
        Err(std::io::Error::other("the disk is full"))
    })
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("cannot write {}: the disk is full", path.display())
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    assert_eq!(names(&dir), ["out.txt"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The child half of [`temporaries_in_flight_are_removed_on_request`], alone in its process,
/// since the removal takes every temporary of the process: write into `SOWING_OUT_DIR`, and
/// remove the temporaries while the file is written, as a signal's handler does.
#[test]
fn child_removes_its_temporaries() {
    let Some(dir) = std::env::var_os("SOWING_OUT_DIR") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let e = write_with(&dir.join("out.txt"), 16, |out| {
        out.write_all(b"data")?;
        println!("while writing: {:?}", names(&dir));
        output_file::remove_temporaries();
        println!("after removing: {:?}", names(&dir));
        Ok(())
    });
    // The temporary is gone, so nothing is renamed into place.
    println!("write: {}", if e.is_err() { "failed" } else { "done" });
}

#[test]
fn temporaries_in_flight_are_removed_on_request() {
    let dir = scratch("signal");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_removes_its_temporaries",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("SOWING_OUT_DIR", &dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let line = |start: &str| {
        let at = stdout
            .find(start)
            .unwrap_or_else(|| panic!("no {start:?} in {stdout}"));
        stdout[at..].lines().next().unwrap().to_string()
    };
    let writing = line("while writing: ");
    assert!(
        writing.contains("\".out.txt.") && writing.ends_with(".tmp\"]"),
        "{writing}"
    );
    assert_eq!(line("after removing: "), "after removing: []");
    assert_eq!(line("write: "), "write: failed");
    assert!(names(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_directory_is_made_or_refused() {
    let dir = scratch("prepare");
    let made = dir.join("a").join("b");
    prepare_dir(&made).unwrap();
    assert!(made.is_dir());
    assert!(names(&made).is_empty(), "the check leaves nothing behind");
    std::fs::write(dir.join("file"), "x").unwrap();
    let e = prepare_dir(&dir.join("file")).unwrap_err().to_string();
    assert!(e.contains("it is not a directory"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_that_is_also_an_input_is_refused() {
    let dir = scratch("apart");
    let table = dir.join("t.tb");
    std::fs::write(&table, "a table").unwrap();
    let same = dir.join(".").join("t.tb");
    let e = check_apart(&same, &[("--rules", None), ("--tablebase", Some(&table))])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "it is also the file of --tablebase {}",
            table.display()
        )),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&table).unwrap(), "a table");
    check_apart(&dir.join("other.tb"), &[("--tablebase", Some(&table))]).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
