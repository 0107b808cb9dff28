//! The exact result search's settings, shared by the commands that label positions with it
//! (`sowing positions`, `sowing review`): its budget per position, its threads and their
//! transposition tables, checked against the machine before anything runs. The threads and
//! their defaults are `sowing_exact::searches`'; and the trained network that may guide it.

use sowing_env::Rules;
use sowing_exact::ResultSearch;
use sowing_exact::searches::{self, DEFAULT_NODES, DEFAULT_TABLE_BITS};
use sowing_exact::tablebase::Tablebase;
use sowing_exact::value::{Guidance, Guide, guide};
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
            .map_err(|e| format!("{e}: give a smaller --nodes or --table-bits, or fewer --threads"))
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

/// The trained network guiding the exact search's proof numbers (`--guide RUN`).
#[derive(Debug, Default, clap::Args)]
pub struct GuideArgs {
    /// A training run (or checkpoint folder) of these rules whose network judges the
    /// proof-number search's leaves near the root; labels are the same with it, the positions
    /// spent on them are not (needs sowing built with the feature torch).
    #[arg(long, value_name = "RUN")]
    pub guide: Option<std::path::PathBuf>,
    /// Leaves at most this many plies below the searched position are judged by the network.
    #[arg(long, default_value_t = guide::DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(0..=guide::MAX_DEPTH as i64))]
    pub guide_depth: u32,
}

impl GuideArgs {
    /// The guidance of `--guide-depth`.
    pub fn guidance(&self) -> Guidance {
        Guidance {
            depth: self.guide_depth,
        }
    }

    /// One guide for each of `threads` searching threads (none without `--guide`), each its own
    /// copy of the network, refused with the reason when the checkpoint cannot be read or is of
    /// other rules.
    pub fn guides(&self, rules: &Rules, threads: usize) -> Result<Vec<Box<dyn Guide>>, String> {
        let Some(run) = &self.guide else {
            return Ok(Vec::new());
        };
        load_guides(run, rules, threads)
    }
}

#[cfg(feature = "torch")]
fn load_guides(
    run: &std::path::Path,
    rules: &Rules,
    threads: usize,
) -> Result<Vec<Box<dyn Guide>>, String> {
    use sowing_agents::az::NetworkGuide;
    (0..threads.max(1))
        .map(|_| {
            NetworkGuide::load(run, rules)
                .map(|g| Box::new(g) as Box<dyn Guide>)
                .map_err(|e| format!("--guide: {e}"))
        })
        .collect()
}

#[cfg(not(feature = "torch"))]
fn load_guides(
    run: &std::path::Path,
    _rules: &Rules,
    _threads: usize,
) -> Result<Vec<Box<dyn Guide>>, String> {
    Err(format!(
        "--guide {}: a network guide needs sowing built with the feature torch (make build)",
        run.display()
    ))
}
