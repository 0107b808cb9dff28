//! What a comparison is asked to do: the variants to compare and the run's settings. Vocabulary
//! of the `compare` module, shared by the run, the learning measurement and the figures, so that
//! none of them imports another that imports it back.

use super::plan::TimeBudget;
use sowing_env::Rules;
use std::path::PathBuf;

/// A game to compare: its name in the report and its rules.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub name: String,
    pub rules: Rules,
}

/// What `sowing compare` was asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    pub variants: Vec<Variant>,
    pub budget: TimeBudget,
    pub out: PathBuf,
    pub seed: u64,
    pub threads: usize,
    pub max_units: Option<u64>,
    /// The command line as given, for the top of the report.
    pub command: Vec<String>,
}
