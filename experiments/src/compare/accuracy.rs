//! Accuracy per agent level: the agents of [`ACCURACY_AGENTS`](super::plan::ACCURACY_AGENTS)
//! measured on the first positions of
//! each variant's committed set of exact positions (`data/positions/VARIANT.jsonl`), by
//! `sowing_eval::accuracy`. The same agents on every variant: a search that plays less
//! accurately on one variant than on another marks the harder game.
//!
//! Positions are measured in units of [`ACCURACY_UNIT`](super::plan::ACCURACY_UNIT), one agent each, cached like every other
//! unit; a unit's key names the set by a hash of its file, so a changed set is measured afresh.
//! Position `i` of the set is numbered `i` in every unit, so the figures do not depend on how the
//! units were cut.

use super::cache::{Checked, UnitKey, mean_inconsistency, rate_inconsistency, unless};
use super::config::Variant;
use super::sketch::hash_bytes;
use sowing_agents::AgentSpec;
use sowing_env::Rules;
use sowing_eval::accuracy::{
    self, Accuracy, Trial, committed_set, how_to_make, phase_set, read_set,
};
use sowing_eval::matches::Seat;
use sowing_exact::positions::PositionSet;
use std::path::PathBuf;

/// A set of exact positions read from a file.
#[derive(Clone, Debug)]
pub struct SetFile {
    /// Its file, relative to the working directory.
    pub file: PathBuf,
    pub set: PositionSet,
    /// A hash of the file's bytes, which names the set in the cache.
    pub hash: u64,
}

impl SetFile {
    /// The set in `file`, of `variant`'s rules; `None` when there is no such file.
    fn read(file: PathBuf, variant: &Variant) -> Result<Option<SetFile>, String> {
        let bytes = match std::fs::read(&file) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
        };
        let set = read_set(&file, &variant.name, &variant.rules)?;
        Ok(Some(SetFile {
            file,
            set,
            hash: hash_bytes(&bytes),
        }))
    }

    /// The measurement name of agent `spec` on this set, unique to the set's contents.
    pub fn measurement(&self, spec: &str) -> String {
        measurement(spec, self.hash)
    }
}

/// The measurement name of agent `spec` on the set whose file hashes to `hash`: the one form of
/// an accuracy unit's name in the cache, for committed and phase sets alike.
fn measurement(spec: &str, hash: u64) -> String {
    format!("accuracy {spec} on set {hash:016x}")
}

/// A variant's committed set of exact positions, and its phase set when it has one.
#[derive(Clone, Debug)]
pub struct Committed {
    /// Its file, relative to the working directory.
    pub file: PathBuf,
    pub set: PositionSet,
    /// A hash of the file's bytes, which names the set in the cache.
    pub hash: u64,
    /// Positions drawn from chosen phases (`data/positions/phases/VARIANT.jsonl`), which only
    /// the ranking on the same phases counts, beside the committed set's; those the committed
    /// set holds too are left out.
    pub phases: Option<SetFile>,
}

impl Committed {
    /// The committed set of `variant`, or why it has none (in words for the report).
    pub fn of(variant: &Variant) -> Result<Committed, String> {
        if Rules::preset(&variant.name).ok() != Some(variant.rules) {
            return Err(format!(
                "no committed set of exact positions: {} is a rules file, and only presets have \
                 sets",
                variant.name
            ));
        }
        let file = committed_set(&variant.name);
        let Some(SetFile { file, set, hash }) = SetFile::read(file.clone(), variant)? else {
            return Err(format!(
                "no committed set of exact positions ({} does not exist; {})",
                file.display(),
                how_to_make(&variant.name)
            ));
        };
        // A position both sets hold (two games can meet in the endgame) counts once.
        let mut phases = SetFile::read(phase_set(&variant.name), variant)?;
        if let Some(p) = &mut phases {
            let own: std::collections::HashSet<_> = set.positions.iter().map(|p| p.state).collect();
            p.set.positions.retain(|p| !own.contains(&p.state));
        }
        Ok(Committed {
            file,
            set,
            hash,
            phases,
        })
    }

    /// The measurement name of agent `spec` on this set, unique to the set's contents.
    pub fn measurement(&self, spec: &str) -> String {
        measurement(spec, self.hash)
    }
}

/// Measure agent `spec` on positions `first .. first + count` of `set` on this thread.
pub fn measure_unit(
    set: &PositionSet,
    spec: &str,
    seed: u64,
    first: u64,
    count: u64,
) -> Result<Accuracy, String> {
    let positions = &set.positions[first as usize..(first + count) as usize];
    let trial = Trial {
        rules: *set.rules(),
        positions,
        first,
        seed,
        threads: 1,
    };
    // The plan names its agents in the grammar (they key its cache); read here, once a unit.
    let mut seat = Seat::Agent {
        spec: spec.parse::<AgentSpec>().map_err(|e| e.to_string())?,
        factory: &sowing_eval::matches::build,
    };
    accuracy::measure(&trial, &mut seat, &mut |_| {}).map_err(|e| e.to_string())
}

impl Checked for Accuracy {
    fn inconsistency(&self, key: &UnitKey) -> Option<String> {
        let kept = &self.kept;
        let n = kept.result.n;
        let mut summed = sowing_eval::accuracy::Kept::default();
        for phase in &self.phases {
            summed.merge(phase);
        }
        unless(n == key.games && self.moves.len() as u64 == n, || {
            format!(
                "{n} positions and {} moves where the unit measures {}",
                self.moves.len(),
                key.games
            )
        })
        .or_else(|| rate_inconsistency("keeps the result", kept.result))
        .or_else(|| rate_inconsistency("critical", kept.critical))
        .or_else(|| rate_inconsistency("keeps the margin", kept.margin))
        .or_else(|| {
            unless(kept.critical.n <= n && kept.margin.n <= n, || {
                "more critical or margin positions than positions".to_string()
            })
        })
        .or_else(|| {
            unless(summed == *kept, || {
                "its phases do not add up to its positions".to_string()
            })
        })
        .or_else(|| mean_inconsistency("seconds_per_move", &self.seconds_per_move, n))
    }
}
