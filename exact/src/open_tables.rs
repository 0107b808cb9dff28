//! One copy of each tablebase per process. A table is large (226 MB of values at K = 20, 1.25 GB
//! at K = 24) and agents are made per thread, by [`crate::from_spec`]: every agent that names
//! the same file shares the table read the first time, through an [`Arc`].
//!
//! Tables stay open until the process ends; a program opens a handful at most.

use crate::tablebase::{Tablebase, TablebaseError};
use sowing_env::Rules;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The tables opened so far, by canonical path.
fn registry() -> &'static Mutex<HashMap<PathBuf, Arc<Tablebase>>> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Arc<Tablebase>>>> = OnceLock::new();
    OPEN.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The table in `path`, read and checked the first time it is asked for in this process, shared
/// afterwards (two spellings of one file, `a.tb` and `./a.tb`, are one table). Errors are those
/// of [`Tablebase::open`]; nothing is kept of a file that could not be read, so a later call
/// tries again.
pub fn shared_tablebase(path: impl AsRef<Path>) -> Result<Arc<Tablebase>, TablebaseError> {
    let path = path.as_ref();
    let key = std::fs::canonicalize(path).map_err(|e| TablebaseError::io(path, "open", e))?;
    // The lock is held while the file is read, so that threads asking at once read it once.
    let mut open = registry()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(table) = open.get(&key) {
        return Ok(Arc::clone(table));
    }
    let table = Arc::new(Tablebase::open(path)?);
    open.insert(key, Arc::clone(&table));
    Ok(table)
}

/// [`shared_tablebase`], checked to serve `rules` (a table of other rules is refused, saying
/// which field differs): what every labelling and search that takes a table path opens.
pub fn shared_tablebase_for(
    path: impl AsRef<Path>,
    rules: &Rules,
) -> Result<Arc<Tablebase>, String> {
    let table = shared_tablebase(path).map_err(|e| e.to_string())?;
    table.check_rules(rules).map_err(|e| e.to_string())?;
    Ok(table)
}
