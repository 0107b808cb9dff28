//! The exact result search's settings, shared by the commands that label positions with it
//! (`sowing positions`, `sowing review`): its budget per position, its threads and their
//! transposition tables, checked against the machine before anything runs. The threads and
//! their defaults are `sowing_exact::searches`'.

use sowing_exact::ResultSearch;
use sowing_exact::searches::{self, DEFAULT_NODES, DEFAULT_TABLE_BITS};
use sowing_exact::tablebase::Tablebase;
use std::sync::Arc;

/// The exact search's flags.
#[derive(Debug, clap::Args)]
pub struct ExactSearchArgs {
    /// Positions the exact search may make to settle one position (all its moves together).
    #[arg(long, default_value_t = DEFAULT_NODES)]
    pub nodes: u64,
    /// Threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// The search's transposition table: 2^BITS slots of 16 bytes per thread.
    #[arg(long, default_value_t = DEFAULT_TABLE_BITS, value_parser = clap::value_parser!(u32).range(10..=30))]
    pub table_bits: u32,
}

impl ExactSearchArgs {
    /// The threads to search on, at most `work` (the items to share out): refused with the
    /// reason when the budget is zero, the threads too many, or their tables do not fit.
    pub fn threads(&self, work: usize) -> Result<usize, String> {
        if self.nodes == 0 {
            return Err(
                "--nodes must be at least 1 (positions the search may make per position)".into(),
            );
        }
        searches::threads(self.threads, self.table_bits, self.nodes, work)
    }

    /// [`searches::map`] with these tables.
    pub fn map<T: Sync, R: Send>(
        &self,
        threads: usize,
        table: Option<&Arc<Tablebase>>,
        items: &[T],
        f: impl Fn(usize, &T, &mut ResultSearch) -> R + Sync,
    ) -> Vec<R> {
        searches::map(threads, self.table_bits, table, items, f)
    }
}
