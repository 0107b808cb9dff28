//! Reanalysis, after MuZero Reanalyse (Schrittwieser et al., 2021): positions kept from earlier
//! self-play games are searched again by the newest network, and their targets replaced by what
//! that search finds. The network that played a game some iterations ago knew less than today's,
//! and its visits would go on teaching today's policy what it has since unlearnt. A new search
//! gives a new policy target and a new search value; the game's result, the other part of the
//! value target, stays as it was played.
//!
//! Position `k` of a reanalysis in iteration `i` draws from
//! [`stream`]`(seed, REANALYSE, i, k)`, so its new targets do not depend on the positions it is
//! searched beside, nor on the worker that searches it.

use super::self_play::{search_group, stream, visit_policy};
use super::{BatchSearch, SearchSpec};
use crate::evaluator::Evaluation;
use rand_chacha::ChaCha8Rng;
use sowing_env::State;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// The purpose of reanalysis's streams (self-play's is [`super::self_play::SELF_PLAY`]).
pub const REANALYSE: u64 = 5;

/// A position's new targets.
#[derive(Clone, Debug, PartialEq)]
pub struct Reanalysed {
    /// The search's policy target over the `n` actions (sums to one): the visits of a PUCT
    /// root, the improved policy of a Gumbel root.
    pub policy: Vec<f32>,
    /// The root's mean value for the player to move, in `[-1, 1]`.
    pub root_value: f32,
}

/// Search `positions` again, `slots` at a time with their leaves valued together by `evaluate`;
/// `lanes[k]` numbers position `k`'s random stream in iteration `iteration`. Returns the new
/// targets in the order of `positions`, and whether a search ran out of memory (see
/// [`BatchSearch::out_of_memory`]; the targets are then those of the positions searched until
/// then). Positions that are over have nothing to search and must not be given.
#[allow(clippy::too_many_arguments)]
pub fn reanalyse<X>(
    positions: &[State],
    lanes: &[u32],
    spec: &SearchSpec,
    seed: u64,
    iteration: u32,
    slots: u32,
    done: &AtomicU32,
    mut evaluate: impl FnMut(&[State], &mut [Evaluation]) -> Result<(), X>,
) -> Result<(Vec<Reanalysed>, bool), X> {
    assert_eq!(positions.len(), lanes.len(), "one lane per position");
    // Targets are counted searches: a time would make them depend on the clock.
    let spec = SearchSpec {
        time: None,
        ..*spec
    };
    let mut search = BatchSearch::new();
    let mut out = Vec::with_capacity(positions.len());
    let group = slots.max(1) as usize;
    for (roots, lanes) in positions.chunks(group).zip(lanes.chunks(group)) {
        let mut rngs: Vec<ChaCha8Rng> = lanes
            .iter()
            .map(|&k| stream(seed, REANALYSE, iteration, k))
            .collect();
        let found = search_group(&mut search, roots, &spec, 0, &mut rngs, &mut evaluate)?;
        if search.out_of_memory() {
            return Ok((out, true));
        }
        for ((result, gumbel), root) in found.into_iter().zip(roots) {
            let policy = match gumbel {
                Some((_, improved)) => improved,
                None => visit_policy(&result, root.holes()),
            };
            out.push(Reanalysed {
                policy,
                root_value: result.value,
            });
        }
        done.fetch_add(roots.len() as u32, Ordering::Relaxed);
    }
    Ok((out, false))
}

/// [`reanalyse`] on one thread per evaluator: position `k` goes to worker `k % workers`, each
/// worker searches `slots` at a time with its own evaluator, and the targets are put back in the
/// order of `positions`, so they do not depend on timing. `waiting` hears the number of
/// positions searched while they are, on the calling thread, every 20 ms. The first error, in
/// worker order, is returned; the flag says a search ran out of memory (the targets are then
/// fewer than the positions, and must not be used).
pub fn reanalyse_dealt<X: Send, F>(
    positions: &[State],
    spec: &SearchSpec,
    seed: u64,
    iteration: u32,
    slots: u32,
    evaluators: Vec<F>,
    waiting: &mut dyn FnMut(u32),
) -> Result<(Vec<Reanalysed>, bool), X>
where
    F: FnMut(&[State], &mut [Evaluation]) -> Result<(), X> + Send,
{
    let workers = evaluators.len().max(1);
    let done = AtomicU32::new(0);
    let outputs: Vec<Result<(Vec<Reanalysed>, bool), X>> = std::thread::scope(|scope| {
        let handles: Vec<_> = evaluators
            .into_iter()
            .enumerate()
            .map(|(w, evaluate)| {
                let lanes: Vec<u32> = (w..positions.len())
                    .step_by(workers)
                    .map(|k| k as u32)
                    .collect();
                let mine: Vec<State> = lanes.iter().map(|&k| positions[k as usize]).collect();
                let done = &done;
                scope.spawn(move || {
                    reanalyse(&mine, &lanes, spec, seed, iteration, slots, done, evaluate)
                })
            })
            .collect();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(20));
            waiting(done.load(Ordering::Relaxed));
        }
        handles
            .into_iter()
            .map(|h| h.join().expect("a reanalysis worker panicked"))
            .collect()
    });
    let mut by_worker = Vec::with_capacity(workers);
    let mut out_of_memory = false;
    for out in outputs {
        let (targets, oom) = out?;
        out_of_memory |= oom;
        by_worker.push(targets.into_iter());
    }
    if out_of_memory {
        return Ok((Vec::new(), true));
    }
    let targets = (0..positions.len())
        .map(|k| {
            by_worker[k % workers]
                .next()
                .expect("each worker searched each of its positions")
        })
        .collect();
    Ok((targets, false))
}
