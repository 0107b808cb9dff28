//! Tablebase files: a table written and read back is the same table; every damaged file (a
//! flipped byte anywhere, a truncation at any length, bytes added, another magic or version), a
//! file of other rules, and a table beyond the machine's memory is a clear error that names the
//! file and what was wrong, never a panic. The same holds for a table mapped and one read into
//! memory: every damaged file is opened both ways.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_env::{Board, Player, Rules, RulesSpec, Trigger};
use sowing_exact::tablebase::{
    BuildOptions, Load, MAGIC, PositionIndex, Tablebase, TablebaseError, VERSION, build_bytes,
};
use std::path::PathBuf;

/// A path in the temporary directory, unique to this test process and `name`.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sowing-tb-{}-{name}", std::process::id()))
}

/// 2x3 take, counter-clockwise.
fn small_rules() -> Rules {
    let mut spec = Rules::preset("en-dodoi-6").unwrap().spec();
    spec.holes = 3;
    Rules::new(spec).unwrap()
}

/// A small table, written to `name`; the file's bytes.
fn written(name: &str) -> (Tablebase, PathBuf, Vec<u8>) {
    let mut table = Tablebase::build(&small_rules(), 5, &BuildOptions::default()).unwrap();
    // The file's list of cyclic positions is not empty, so its damage is tested too.
    assert!(table.layer_stats().iter().map(|l| l.cyclic).sum::<u64>() > 10);
    let path = temp(name);
    table.write(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (table, path, bytes)
}

/// Every position's probe, in index order.
fn all_probes(table: &Tablebase) -> Vec<(i32, bool)> {
    let ring = 2 * table.rules().holes();
    let index = PositionIndex::new(ring, table.max_seeds() as usize).unwrap();
    let mut cells = vec![0u8; ring];
    (0..index.len())
        .flat_map(|i| {
            index.cells(i, &mut cells).unwrap();
            let board = Board::from_cells(&cells);
            Player::BOTH.map(|p| {
                let probe = table.probe_board(&board, p).unwrap();
                (probe.value, probe.endless)
            })
        })
        .collect()
}

/// Open `bytes` written to `path`, mapped and read: it must be refused as damaged both ways,
/// with the same message, naming the file.
fn assert_refused(path: &PathBuf, bytes: &[u8], what: &str) -> String {
    std::fs::write(path, bytes).unwrap();
    let [mapped, read] =
        [Load::Map, Load::Copy].map(|load| match Tablebase::open_with(path, load) {
            Err(e @ TablebaseError::Damaged { .. }) => {
                let message = e.to_string();
                assert!(
                    message.contains(&path.display().to_string()),
                    "{what}: {message}"
                );
                message
            }
            Err(other) => panic!("{what} ({load:?}): expected a damaged file, got {other}"),
            Ok(_) => panic!("{what} ({load:?}): a damaged file was accepted"),
        });
    assert_eq!(mapped, read, "{what}");
    mapped
}

#[test]
fn a_table_written_and_read_back_is_the_same() {
    let (table, path, bytes) = written("round-trip");
    assert_eq!(&bytes[..8], MAGIC);
    let back = Tablebase::open(&path).unwrap();
    assert_eq!(back.rules(), table.rules());
    assert_eq!((back.max_seeds(), back.len()), (5, table.len()));
    assert_eq!(back.path(), Some(path.as_path()));
    assert_eq!(all_probes(&back), all_probes(&table));
    // No temporary file is left beside it, and writing again replaces it.
    let dir = path.parent().unwrap();
    let stem = path.file_name().unwrap().to_string_lossy().to_string();
    let leftovers = std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            let name = e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .to_string();
            name.contains(&stem) && name != stem
        })
        .count();
    assert_eq!(leftovers, 0);
    let mut again = back;
    again.write(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_mapped_table_is_the_file_shared_and_probes_as_one_read_into_memory() {
    let (table, path, _) = written("mapped");
    let mapped = Tablebase::open(&path).unwrap();
    let read = Tablebase::open_with(&path, Load::Copy).unwrap();
    assert!(mapped.is_mapped() && !read.is_mapped() && !table.is_mapped());
    assert_eq!(all_probes(&mapped), all_probes(&table));
    assert_eq!(all_probes(&read), all_probes(&table));
    // The values are the file's pages, not a copy: the process's map lists the file.
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        let name = std::fs::canonicalize(&path).unwrap().display().to_string();
        assert!(
            maps.lines().any(|l| l.ends_with(&name)),
            "{name} not in\n{maps}"
        );
    }
    // A clone holds bytes of its own and probes the same.
    let copy = mapped.clone();
    assert!(!copy.is_mapped());
    assert_eq!(all_probes(&copy), all_probes(&table));
    // Replacing the file, as every writer here does (a temporary renamed over it), leaves the
    // mapped table as it was checked: it still probes the old values.
    let mut smaller = Tablebase::build(&small_rules(), 3, &BuildOptions::default()).unwrap();
    smaller.write(&path).unwrap();
    assert_eq!(Tablebase::open(&path).unwrap().max_seeds(), 3);
    assert_eq!(all_probes(&mapped), all_probes(&table));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn every_flipped_byte_is_refused() {
    let (_, path, bytes) = written("flips");
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= rng.random_range(1..=255u8);
        assert_refused(&path, &damaged, &format!("byte {at} flipped"));
    }
    // Several bytes at once.
    for round in 0..300 {
        let mut damaged = bytes.clone();
        for _ in 0..rng.random_range(2..=6) {
            let at = rng.random_range(0..bytes.len());
            damaged[at] ^= rng.random_range(1..=255u8);
        }
        if damaged != bytes {
            assert_refused(&path, &damaged, &format!("round {round}"));
        }
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn every_truncation_and_added_bytes_are_refused() {
    let (_, path, bytes) = written("truncations");
    for len in 0..bytes.len() {
        assert_refused(&path, &bytes[..len], &format!("cut to {len} bytes"));
    }
    let message = assert_refused(&path, &bytes[..bytes.len() - 1], "one byte short");
    assert!(message.contains("truncated"), "{message}");
    let mut longer = bytes.clone();
    longer.push(0);
    let message = assert_refused(&path, &longer, "a byte more");
    assert!(message.contains("after its bounds"), "{message}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn another_magic_or_version_is_named() {
    let (_, path, bytes) = written("magic");
    let mut other = bytes.clone();
    other[..8].copy_from_slice(b"NOTATBL!");
    let message = assert_refused(&path, &other, "magic");
    assert!(message.contains("SOWINGTB"), "{message}");
    let mut newer = bytes.clone();
    newer[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
    let message = assert_refused(&path, &newer, "version");
    assert!(
        message.contains(&format!("format version {}", VERSION + 1)),
        "{message}"
    );
    // A file that is not a tablebase at all.
    let message = assert_refused(&path, b"holes = 6\nseeds = 4\n", "a rules file");
    assert!(message.contains("shorter"), "{message}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn files_of_other_rules_are_refused_naming_the_field() {
    let (_, path, _) = written("other-rules");
    let rules = small_rules();
    let change = |f: fn(&mut RulesSpec)| rules.with(f).unwrap();
    let cases: [(&str, Rules); 5] = [
        ("holes", Rules::preset("en-dodoi-6").unwrap()),
        ("trigger", change(|s| s.trigger = Trigger::Leave)),
        (
            "direction",
            change(|s| s.direction = sowing_env::Direction::Parity),
        ),
        ("skip_origin", change(|s| s.skip_origin = true)),
        ("max_laps", change(|s| s.max_laps = 99)),
    ];
    for (field, other) in cases {
        let e = Tablebase::open_for(&path, &other).unwrap_err();
        assert!(matches!(e, TablebaseError::OtherRules { .. }), "{e}");
        let message = e.to_string();
        assert!(message.contains(field), "{message}");
        assert!(message.contains(&path.display().to_string()), "{message}");
    }
    // Seeds per hole and the ply cap do not shape the game tree.
    let same_tree = change(|s| {
        s.seeds = 7;
        s.max_plies = 40;
    });
    assert!(Tablebase::open_for(&path, &same_tree).is_ok());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn tables_beyond_memory_are_refused_before_anything_is_allocated() {
    let rules = Rules::preset("en-dodoi-6").unwrap();
    // 100 seeds on 12 holes: about 10^15 positions, more than any machine holds.
    let e = Tablebase::build(&rules, 100, &BuildOptions::default()).unwrap_err();
    let TablebaseError::OutOfMemory {
        needed,
        available,
        largest_fit: Some(fits),
        ..
    } = e
    else {
        panic!("expected out of memory, got {e}");
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(Some(needed), build_bytes(6, 100, threads));
    assert!(build_bytes(6, fits as usize, threads).unwrap() <= u128::from(available));
    assert!(build_bytes(6, fits as usize + 1, threads).unwrap() > u128::from(available));
    let message = e.to_string();
    assert!(message.contains("this process can have"), "{message}");
    assert!(
        message.contains(&format!("the most seeds a table that fits holds is {fits}")),
        "{message}"
    );

    // A file whose header promises as many.
    let positions = PositionIndex::new(12, 100).unwrap().len();
    let header = format!(
        "{{\"rules\":{},\"max_seeds\":100,\"positions\":{positions}}}",
        serde_json::to_string(&rules).unwrap()
    );
    let mut bytes = MAGIC.to_vec();
    bytes.extend(VERSION.to_le_bytes());
    bytes.extend((header.len() as u32).to_le_bytes());
    bytes.extend([0u8; 8]);
    bytes.extend(header.as_bytes());
    let path = temp("huge");
    std::fs::write(&path, &bytes).unwrap();
    let e = Tablebase::open(&path).unwrap_err();
    assert!(matches!(e, TablebaseError::OutOfMemory { .. }), "{e}");
    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
    std::fs::remove_file(&path).unwrap();

    // Beyond what a byte per position holds.
    let e = Tablebase::build(&rules, 127, &BuildOptions::default()).unwrap_err();
    assert!(e.to_string().contains("0 to 126"), "{e}");
}

#[test]
fn files_that_cannot_be_read_or_written_are_named() {
    let missing = temp("missing");
    let e = Tablebase::open(&missing).unwrap_err();
    assert!(matches!(e, TablebaseError::Io { .. }), "{e}");
    assert!(
        e.to_string().contains(&missing.display().to_string()),
        "{e}"
    );
    let mut table = Tablebase::build(&small_rules(), 2, &BuildOptions::default()).unwrap();
    let nowhere = temp("no-such-dir").join("table.tb");
    let e = table.write(&nowhere).unwrap_err();
    assert!(e.to_string().contains("cannot write"), "{e}");
    assert!(
        e.to_string().contains(&nowhere.display().to_string()),
        "{e}"
    );
}
