//! Every way building, reading or probing a tablebase is refused. Each message says which file
//! (or which build), what was wrong, and what would be accepted.

use sowing_env::{OUTSIDE_TREE_FIELDS, TREE_FIELDS};
use std::fmt;
use std::path::{Path, PathBuf};

/// An error from a tablebase.
#[derive(Debug)]
pub enum TablebaseError {
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done: "read", "write", ...
        doing: &'static str,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file that is not a tablebase of this format, or a damaged one.
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// Bytes that are not a layer part ([`super::LayerPart::from_bytes`]), or a damaged one.
    BadPart {
        /// What is wrong with them.
        what: String,
    },
    /// A tablebase of rules whose game tree differs from the rules asked for.
    OtherRules {
        /// The file, or `None` for a table built in memory.
        path: Option<PathBuf>,
        /// The first rules field that differs.
        field: &'static str,
        /// Its value in the table's rules.
        table: String,
        /// Its value in the rules asked for.
        asked: String,
    },
    /// More memory than the machine has available.
    OutOfMemory {
        /// What needed it: a build or opening a file.
        what: String,
        /// Bytes needed.
        needed: u128,
        /// Bytes the process can have ([`crate::memory::usable`]).
        available: u64,
        /// For a build: the largest number of seeds whose build fits.
        largest_fit: Option<u32>,
    },
    /// A request outside what tablebases can hold.
    Unsupported {
        /// What was asked and what is allowed.
        message: String,
    },
}

impl TablebaseError {
    pub(crate) fn io(path: &Path, doing: &'static str, source: std::io::Error) -> Self {
        TablebaseError::Io {
            path: path.to_path_buf(),
            doing,
            source,
        }
    }

    pub(crate) fn damaged(path: &Path, what: impl Into<String>) -> Self {
        TablebaseError::Damaged {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}

/// Bytes in the units people read: `1.3 GB`, `512.0 MB`.
pub(crate) fn bytes(n: u128) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.1} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1} MB", n / 1e6)
    } else {
        format!("{:.0} kB", (n / 1e3).ceil())
    }
}

impl fmt::Display for TablebaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TablebaseError::Io {
                path,
                doing,
                source,
            } => write!(f, "cannot {doing} tablebase {}: {source}", path.display()),
            TablebaseError::Damaged { path, what } => {
                write!(
                    f,
                    "tablebase {} is damaged or not a tablebase: {what}",
                    path.display()
                )
            }
            TablebaseError::BadPart { what } => {
                write!(f, "not a layer part of a tablebase: {what}")
            }
            TablebaseError::OtherRules {
                path,
                field,
                table,
                asked,
            } => {
                let which = match path {
                    Some(p) => format!("tablebase {}", p.display()),
                    None => "this tablebase".to_string(),
                };
                let (last, rest) = TREE_FIELDS.split_last().expect("fields shape the tree");
                write!(
                    f,
                    "{which} was built for other rules: {field} is {table} there, {asked} here \
                     ({} and {last} must match; {} may differ)",
                    rest.join(", "),
                    OUTSIDE_TREE_FIELDS.join(" and ")
                )
            }
            TablebaseError::OutOfMemory {
                what,
                needed,
                available,
                largest_fit,
            } => {
                write!(
                    f,
                    "{what} needs up to {} of memory, but this process can have {}",
                    bytes(*needed),
                    bytes(u128::from(*available))
                )?;
                match largest_fit {
                    Some(k) => write!(f, "; the most seeds a table that fits holds is {k}"),
                    None => Ok(()),
                }
            }
            TablebaseError::Unsupported { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for TablebaseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TablebaseError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
