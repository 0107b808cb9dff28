//! Finished units of work, kept in the output directory so that an interrupted or extended run
//! picks up where it stopped.
//!
//! A unit's result is stored beside the full description of the unit (seed, rules, measurement,
//! index, games), and is only taken back when that description matches exactly: a cached figure
//! can never be mixed into a run it does not belong to, and only when its figures add up (see
//! [`Checked`]). Files are written to a temporary name and renamed, so an interrupted write
//! leaves no half file.

use crate::output::note;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use sowing_env::Rules;
use sowing_eval::stats::{Mean, Rate};
use sowing_exact::output_file;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Bumped when what a unit computes changes, so older cached results are not reused.
const FORMAT: u32 = 1;

/// Everything a unit's result depends on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitKey {
    pub format: u32,
    pub seed: u64,
    pub variant: String,
    pub rules: Rules,
    /// What is measured, e.g. `shape` or `balance mcts:200`.
    pub measurement: String,
    /// The unit's place in its measurement: its games are numbered from `index * games`.
    pub index: u64,
    pub games: u64,
}

impl UnitKey {
    pub fn new(
        seed: u64,
        variant: &str,
        rules: &Rules,
        measurement: &str,
        index: u64,
        games: u64,
    ) -> UnitKey {
        UnitKey {
            format: FORMAT,
            seed,
            variant: variant.to_string(),
            rules: *rules,
            measurement: measurement.to_string(),
            index,
            games,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Entry<T> {
    key: UnitKey,
    result: T,
}

/// The cache under `DIR/cache`.
#[derive(Clone, Debug)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    pub fn new(out: &Path) -> Cache {
        Cache {
            root: out.join("cache"),
        }
    }

    fn path(&self, key: &UnitKey) -> PathBuf {
        self.root
            .join(format!("seed-{}", key.seed))
            .join(slug(&key.variant))
            .join(slug(&key.measurement))
            .join(format!("{}x{}.json", key.index, key.games))
    }

    /// The cached result of `key`, if there is one made for exactly this unit. An unreadable or
    /// foreign file counts as absent: the unit is simply computed again. So does a result whose
    /// figures do not add up (an edited or damaged file), with a warning that names the file:
    /// a figure the unit could not have measured never reaches the report.
    pub fn load<T: DeserializeOwned + Checked>(&self, key: &UnitKey) -> Option<T> {
        let path = self.path(key);
        let text = fs::read_to_string(&path).ok()?;
        let entry: Entry<T> = serde_json::from_str(&text).ok()?;
        if entry.key != *key {
            return None;
        }
        match entry.result.inconsistency(key) {
            None => Some(entry.result),
            Some(why) => {
                note!(
                    "warning: cached unit {} does not add up ({why}): measuring it again",
                    path.display()
                );
                None
            }
        }
    }

    pub fn store<T: Serialize>(&self, key: &UnitKey, result: &T) -> io::Result<()> {
        let path = self.path(key);
        let dir = path.parent().expect("a cache path has a parent");
        fs::create_dir_all(dir)?;
        let text = serde_json::to_string(&Entry {
            key: key.clone(),
            result,
        })
        .map_err(io::Error::other)?;
        Ok(output_file::write(&path, text.as_bytes())?)
    }
}

/// A unit's result as the cache keeps it, checked when it is read back.
pub trait Checked {
    /// Why this cannot be what the unit `key` measured (its counts do not add up to its games,
    /// a rate is outside 0 to 1, a figure is not a number), or `None`.
    fn inconsistency(&self, key: &UnitKey) -> Option<String>;
}

/// `why` when `bad`.
pub fn unless(ok: bool, why: impl FnOnce() -> String) -> Option<String> {
    (!ok).then(why)
}

/// Why `rate` (named `what`) is not a count of hits of at most `n` trials, if it is not.
pub fn rate_inconsistency(what: &str, rate: Rate) -> Option<String> {
    unless(
        rate.hits.is_finite() && rate.hits >= 0.0 && rate.hits <= rate.n as f64,
        || format!("{what}: {} hits of {} trials", rate.hits, rate.n),
    )
}

/// Why `mean` (named `what`) is not a mean of `n` values, if it is not.
pub fn mean_inconsistency(what: &str, mean: &Mean, n: u64) -> Option<String> {
    unless(mean.n == n, || {
        format!("{what} counts {} values where there are {n}", mean.n)
    })
    .or_else(|| {
        unless(
            mean.sum.is_finite() && mean.sum_sq.is_finite() && mean.sum_sq >= 0.0,
            || format!("{what}: its sums are not finite numbers"),
        )
    })
}

/// A file-name-safe form of a name: letters, digits and `-` kept, the rest `_` (so no name can
/// climb out of the cache with `..`).
pub fn slug(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Checked for Vec<u32> {
        fn inconsistency(&self, key: &UnitKey) -> Option<String> {
            unless(self.len() as u64 <= key.games, || "too long".to_string())
        }
    }

    #[test]
    fn stores_and_loads_only_the_matching_unit() {
        let dir = std::env::temp_dir().join(format!("sowing-cache-test-{}", std::process::id()));
        let cache = Cache::new(&dir);
        let rules = Rules::preset("en-dodoi-6").unwrap();
        let key = UnitKey::new(1, "en-dodoi-6", &rules, "balance mcts:20", 3, 10);
        assert_eq!(cache.load::<Vec<u32>>(&key), None);
        cache.store(&key, &vec![1u32, 2, 3]).unwrap();
        assert_eq!(cache.load::<Vec<u32>>(&key), Some(vec![1, 2, 3]));
        // Same file name, other rules: not reused.
        let other = UnitKey::new(
            1,
            "en-dodoi-6",
            &Rules::preset("en-dodoi-7").unwrap(),
            "balance mcts:20",
            3,
            10,
        );
        assert_eq!(cache.load::<Vec<u32>>(&other), None);
        let other_seed = UnitKey::new(2, "en-dodoi-6", &rules, "balance mcts:20", 3, 10);
        assert_eq!(cache.load::<Vec<u32>>(&other_seed), None);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn slugs_are_safe_file_names() {
        assert_eq!(slug("chain mcts:20 vs mcts:10"), "chain_mcts_20_vs_mcts_10");
        assert_eq!(slug("../x"), "___x");
    }
}
