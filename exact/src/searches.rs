//! The exact result search on many threads: how many fit the machine with their transposition
//! tables, and a map of items over them, each thread with its own search (and the tablebase at
//! its leaves). `sowing positions`, `sowing review` and the position labelling of
//! `sowing_eval::labelling` (which Python and Ray call) share it, and the defaults of its
//! budget and table size.

use crate::memory;
use crate::tablebase::Tablebase;
use crate::value::{Guidance, Guide, NODE_BYTES, ResultSearch};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Positions the search may make to settle one position, unless told otherwise.
pub const DEFAULT_NODES: u64 = 2_000_000;
/// The transposition table of each search: 2^BITS slots of 16 bytes, unless told otherwise.
pub const DEFAULT_TABLE_BITS: u32 = 22;
/// The table sizes a caller may ask for.
pub const TABLE_BITS: std::ops::RangeInclusive<u32> = 10..=30;

/// Stack of each searching thread: a proof's line can be hundreds of plies deep, a frame each.
const SEARCH_STACK: usize = 256 << 20;

/// The threads to search on (`asked`, 0 for one per core), at most `work` (the items to share
/// out): refused with the reason when the threads are too many or their memory does not fit:
/// each a transposition table of `2^table_bits` slots and a proof tree of up to `nodes` nodes.
/// The reason names no flag or keyword: each caller adds the advice in its own words.
pub fn threads(asked: usize, table_bits: u32, nodes: u64, work: usize) -> Result<usize, String> {
    let threads = memory::threads(asked)?.min(work.max(1));
    // Each thread's search holds its own transposition table of 16-byte slots, and a tree that
    // grows to at most about the budget's positions.
    let each = (16u64 << table_bits).saturating_add(nodes.saturating_mul(NODE_BYTES));
    memory::check(
        &format!(
            "{threads} searches, each with a table of 2^{table_bits} slots and a proof tree of \
             up to {nodes} positions"
        ),
        threads as u64,
        each,
        0,
        "searches",
    )
    .map_err(|e| e.to_string())?;
    Ok(threads)
}

/// `f(i, item, search)` for every item, on `threads` threads, each with its own search of
/// `2^table_bits` slots (and `table` at its leaves, if given) and a stack deep enough for long
/// lines; items are dealt by a shared counter, so a busy core does not hold the others back, and
/// the results come back in the items' order.
pub fn map<T: Sync, R: Send>(
    threads: usize,
    table_bits: u32,
    table: Option<&Arc<Tablebase>>,
    items: &[T],
    f: impl Fn(usize, &T, &mut ResultSearch) -> R + Sync,
) -> Vec<R> {
    map_guided(
        threads,
        table_bits,
        table,
        &mut Vec::new(),
        Guidance::default(),
        items,
        f,
    )
}

/// [`map`] with a guide for each thread's proof-number search (`guides` empty: none; otherwise
/// one per thread, and the threads are at most as many as the guides). The guides are lent:
/// they are all back in `guides` when it returns, for the next call.
pub fn map_guided<T: Sync, R: Send>(
    threads: usize,
    table_bits: u32,
    table: Option<&Arc<Tablebase>>,
    guides: &mut Vec<Box<dyn Guide>>,
    guidance: Guidance,
    items: &[T],
    f: impl Fn(usize, &T, &mut ResultSearch) -> R + Sync,
) -> Vec<R> {
    let threads = if guides.is_empty() {
        threads
    } else {
        threads.min(guides.len())
    };
    let lent = Mutex::new(std::mem::take(guides));
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(items.len()).max(1) {
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK)
                .spawn_scoped(scope, || {
                    let mut search = ResultSearch::new(table_bits);
                    if let Some(t) = table {
                        search = search.with_tablebase(Arc::clone(t));
                    }
                    let guide = lent.lock().expect("no worker panics holding it").pop();
                    if let Some(guide) = guide {
                        search = search.with_guide(guide, guidance);
                    }
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            if let Some(guide) = search.take_guide() {
                                lent.lock()
                                    .expect("no worker panics holding it")
                                    .push(guide);
                            }
                            return;
                        };
                        let out = f(i, item, &mut search);
                        done.lock().expect("no worker panics holding it")[i] = Some(out);
                    }
                })
                .expect("a thread");
        }
    });
    *guides = lent.into_inner().expect("workers have ended");
    done.into_inner()
        .expect("workers have ended")
        .into_iter()
        .map(|d| d.expect("every item was done"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_whose_proof_trees_do_not_fit_is_refused_before_a_search() {
        assert_eq!(threads(1, 10, 1000, 5), Ok(1));
        // 2^40 positions of 96 bytes: no machine has the memory for the tree.
        let e = threads(1, 10, 1 << 40, 5).unwrap_err();
        assert!(
            e.contains("proof tree of up to 1099511627776 positions") && e.contains("at most 0"),
            "{e}"
        );
        // The reason names no flag: each caller (a command, Python) gives its own advice.
        assert!(!e.contains("--") && !e.contains("give"), "{e}");
    }
}
