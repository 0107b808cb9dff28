//! The exact result search's settings, shared by the commands that label positions with it
//! (`sowing positions`, `sowing review`): its budget per position, its threads and their
//! transposition tables, checked against the machine before anything runs.

use sowing_exact::ResultSearch;
use sowing_exact::memory;
use sowing_exact::tablebase::Tablebase;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Stack of each searching thread: a proof's line can be hundreds of plies deep, a frame each.
const SEARCH_STACK: usize = 256 << 20;

/// The exact search's flags.
#[derive(Debug, clap::Args)]
pub struct ExactSearchArgs {
    /// Positions the exact search may make to settle one position (all its moves together).
    #[arg(long, default_value_t = 2_000_000)]
    pub nodes: u64,
    /// Threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// The search's transposition table: 2^BITS slots of 16 bytes per thread.
    #[arg(long, default_value_t = 22, value_parser = clap::value_parser!(u32).range(10..=30))]
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
        let threads = memory::threads(self.threads)?.min(work.max(1));
        // Each thread's search holds its own transposition table of 16-byte slots.
        memory::check(
            &format!("{threads} searches' tables of 2^{} slots", self.table_bits),
            threads as u64 * (1u64 << self.table_bits),
            16,
            0,
            "slots",
        )
        .map_err(|e| format!("{e}: give a smaller --table-bits or fewer --threads"))?;
        Ok(threads)
    }

    /// `f(i, item, search)` for every item, on `threads` threads, each with its own search (and
    /// `table` at its leaves, if given) and a stack deep enough for long lines; items are dealt
    /// by a shared counter, so a busy core does not hold the others back, and the results come
    /// back in the items' order.
    pub fn map<T: Sync, R: Send>(
        &self,
        threads: usize,
        table: Option<&Arc<Tablebase>>,
        items: &[T],
        f: impl Fn(usize, &T, &mut ResultSearch) -> R + Sync,
    ) -> Vec<R> {
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
        std::thread::scope(|scope| {
            for _ in 0..threads.min(items.len()).max(1) {
                std::thread::Builder::new()
                    .stack_size(SEARCH_STACK)
                    .spawn_scoped(scope, || {
                        let mut search = ResultSearch::new(self.table_bits);
                        if let Some(t) = table {
                            search = search.with_tablebase(Arc::clone(t));
                        }
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(item) = items.get(i) else { return };
                            let out = f(i, item, &mut search);
                            done.lock().expect("no worker panics holding it")[i] = Some(out);
                        }
                    })
                    .expect("a thread");
            }
        });
        done.into_inner()
            .expect("workers have ended")
            .into_iter()
            .map(|d| d.expect("every item was done"))
            .collect()
    }
}
