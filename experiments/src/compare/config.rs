//! What a comparison is asked to do: the variants to compare and the run's settings. Vocabulary
//! of the `compare` module, shared by the run, the learning measurement and the figures, so that
//! none of them imports another that imports it back.

use super::plan::TimeBudget;
use sowing_env::Rules;
use sowing_exact::tablebase::Tablebase;
use std::path::PathBuf;
use std::sync::Arc;

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
    /// Tablebases for the `solved` column (`--tablebase`).
    pub tablebases: Vec<Arc<Tablebase>>,
}

impl Config {
    /// The first tablebase that serves `rules`, if any.
    pub fn tablebase_for(&self, rules: &Rules) -> Option<&Arc<Tablebase>> {
        self.tablebases
            .iter()
            .find(|t| t.check_rules(rules).is_ok())
    }
}
