//! Retrograde analysis, layer by layer: the value of every position of 0, 1, ..., K seeds on
//! the board, each layer solved once the smaller ones are.
//!
//! A move that captures `c` seeds leads to the layer of `k - c` seeds, already solved; a move
//! that captures nothing stays in the layer, and those moves can cycle. For each position `P`
//! (mover's row first) two values are worked out:
//!
//! - `L(P)`: the margin the mover forces when endless play counts as the worst for them,
//! - `H(P)`: the same when endless play counts as the best for them,
//!
//! with `L(P) = max over moves of (c - H(child))` and `H(P) = max over moves of (c - L(child))`
//! (`c = 0` for the in-layer children; a child's mover is the opponent, for whom the count of
//! endless play is the other way round). A position with no legal move has `L = H = -k`: the game
//! is over and the opponent took the sweep. The value with endless play worth 0 is
//! `median(L, 0, H)`; play is endless under perfect play when `L < 0 < H`. The bounds, not only
//! the value, go through the captures to the layers above, since who wins a game that may be
//! truncated depends on them (see [`super::Probe::result`]).
//!
//! Within a layer, `L` and `H` are the two sides of one game between Max (the mover at `L`
//! nodes) and Min (the mover at `H` nodes), in which endless play is lost for Max. A threshold
//! sweep solves it in one pass: for `t` from `k` down to `-k`, Max wins an `L` node at `t` when its
//! best capture is worth `t` or more or one of its children's `H` nodes is won; an `H` node is won
//! when every one of its moves is: its captures (`t <= -exit`) and each child's `L` node, counted
//! down by a counter per node. A node's value is the first `t` at which it is won (`L = t`,
//! `H = -t`); a node never won is `L = -inf` or `H = +inf`. Wins propagate backwards along
//! in-layer moves, so each layer first sows every move of every position (both cores) into a
//! reverse graph of in-layer predecessors.

use super::error::TablebaseError;
use super::index::{PositionIndex, next_in_layer};
use super::{CYCLIC, Cyclic, NEG_INF, POS_INF, bounds, value_of};
use sowing_env::{Board, ByPlayer, MAX_TOTAL_SEEDS, Player, Rules, Sowing, State, sow};
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// How a build runs.
#[derive(Clone, Copy, Default)]
pub struct BuildOptions<'a> {
    /// Threads sowing the moves; 0 for one per core.
    pub threads: usize,
    /// Called now and then with how far the build has got, from any of its threads.
    pub progress: Option<&'a (dyn Fn(&BuildProgress) + Sync)>,
}

impl fmt::Debug for BuildOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuildOptions")
            .field("threads", &self.threads)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// What a layer's solving is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Sowing every move: exits valued, in-layer moves counted.
    Moves,
    /// Sowing the in-layer moves again, recording each under its child.
    Predecessors,
    /// The threshold sweep.
    Values,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Moves => "sowing moves",
            Stage::Predecessors => "linking predecessors",
            Stage::Values => "valuing",
        })
    }
}

/// How far a build has got: `done` of `total` units of work, three per position (one per stage).
#[derive(Clone, Copy, Debug)]
pub struct BuildProgress {
    /// Seeds on the board in the layer being solved.
    pub seeds: u32,
    /// The largest layer, the table's `max_seeds`.
    pub max_seeds: u32,
    /// What the layer's solving is doing.
    pub stage: Stage,
    /// Units of work done.
    pub done: u64,
    /// Units of work in the whole build.
    pub total: u64,
}

/// A best exit that does not exist: the position has legal moves, none of which captures (for
/// `L`, also: every capture leads where the opponent can hold the game endless).
const NO_EXIT: i8 = i8::MIN;
/// A best exit for `H` worth plus infinity: a capture leads where the opponent cannot force an
/// end, so the mover's `H` node is never won.
const BLOCKED: i8 = i8::MAX;
/// A node not won (yet): values are in `-127..=127`.
const NOT_WON: i8 = i8::MIN;
/// Positions per job handed to a thread.
const CHUNK: usize = 1 << 15;

/// Layers solved before, to go on from: the values of the layers of `0..=seeds` seeds (a table
/// of `seeds` seeds, which is a prefix of any larger one) and their cyclic positions.
pub(crate) struct Solved {
    pub seeds: usize,
    pub values: Vec<u8>,
    pub cyclic: Vec<Cyclic>,
}

/// Called after each layer `k` with the values of layers `0..=k` and their cyclic positions, to
/// save them where a killed build can go on from.
pub(crate) type SaveLayers<'a> =
    &'a mut dyn FnMut(usize, &[u8], &[Cyclic]) -> Result<(), TablebaseError>;

/// The values of every position of up to `max_seeds` seeds, one byte each in index order, and
/// the bounds of the positions whose bounds differ (see [`super::Tablebase`] for the encoding);
/// from the layers of `from` on, when given. The caller has checked the memory. Each layer's
/// values depend only on the layers below, so a build resumed from any layer gives the same
/// table as one run through.
pub(crate) fn build(
    rules: &Rules,
    index: &PositionIndex,
    options: &BuildOptions<'_>,
    from: Option<Solved>,
    save: SaveLayers<'_>,
) -> Result<(Vec<u8>, Vec<Cyclic>), TablebaseError> {
    let holes = rules.holes();
    let max_seeds = index.max_seeds();
    // Positions of any number of seeds up to K are built as States of a rule set whose seed
    // count leaves room for them; seeds per hole change nothing of the game tree.
    let roomy = rules
        .with(|s| s.seeds = MAX_TOTAL_SEEDS / (2 * s.holes))
        .map_err(|e| TablebaseError::Unsupported {
            message: e.to_string(),
        })?;
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    };
    let mut values = vec![0u8; index.len() as usize];
    let mut cyclic = Vec::new();
    let total = 3 * index.len();
    let first = match from {
        Some(solved) => {
            values[..solved.values.len()].copy_from_slice(&solved.values);
            cyclic = solved.cyclic;
            solved.seeds + 1
        }
        None => 0,
    };
    for k in first..=max_seeds {
        let layer = index.layer(k);
        let (lower, rest) = values.split_at_mut(layer.start as usize);
        let out = &mut rest[..(layer.end - layer.start) as usize];
        let report = |stage: Stage, done_in_stage: u64| {
            if let Some(progress) = options.progress {
                let stage_index = match stage {
                    Stage::Moves => 0,
                    Stage::Predecessors => 1,
                    Stage::Values => 2,
                };
                progress(&BuildProgress {
                    seeds: k as u32,
                    max_seeds: max_seeds as u32,
                    stage,
                    done: 3 * layer.start + stage_index * out_len(&layer) + done_in_stage,
                    total,
                });
            }
        };
        let solver = Layer {
            rules: roomy,
            index,
            seeds: k,
            start: layer.start,
            holes,
            captured: ByPlayer::new((roomy.total_seeds() - k) as u8, 0),
        };
        solver.solve(lower, &mut cyclic, out, threads, &report)?;
        save(k, &values[..layer.end as usize], &cyclic)?;
    }
    Ok((values, cyclic))
}

fn out_len(layer: &std::ops::Range<u64>) -> u64 {
    layer.end - layer.start
}

/// One layer being solved.
struct Layer<'a> {
    rules: Rules,
    index: &'a PositionIndex,
    seeds: usize,
    start: u64,
    holes: usize,
    captured: ByPlayer<u8>,
}

impl Layer<'_> {
    /// The position of `cells` (mover's row first), South to move.
    fn position(&self, cells: &[u8]) -> State {
        State::new(&self.rules, cells, self.captured, Player::South, 0)
            .expect("a board of at most the rules' seeds, with the rest captured, is a position")
    }

    /// Each legal move of `state`: the action, the index of the child (turned to put its mover
    /// first) and the seeds captured.
    #[inline]
    fn moves(&self, state: &State, mut each: impl FnMut(usize, u64, u32)) {
        for a in state.legal_actions() {
            let (board, captured) = state.play_board(a);
            each(
                a,
                self.index.index_rotated(&board.bytes(), self.holes),
                captured,
            );
        }
    }

    /// The index of the child of each action in `actions` (bits), moves of `cells` (South to
    /// move) known to be legal and to capture nothing: the board after one is the board its
    /// sowing leaves, so the engine's sowing alone gives it, without settling a `State`.
    #[inline]
    fn quiet_moves(&self, cells: &[u8], mut actions: u16, mut each: impl FnMut(u64)) {
        let board = Board::from_cells(cells);
        while actions != 0 {
            let a = actions.trailing_zeros() as usize;
            actions &= actions - 1;
            let mut sown = board;
            match sow(&mut sown, a, &self.rules) {
                Sowing::Ended { .. } => {}
                Sowing::Endless { .. } => unreachable!("a legal move ends"),
            }
            each(self.index.index_rotated(&sown.bytes(), self.holes));
        }
    }

    /// Walk the boards of the layer `first..first + len` (layer ranks), in order, mover's row
    /// first.
    fn walk(&self, first: usize, len: usize, mut each: impl FnMut(usize, &[u8])) {
        let ring = 2 * self.holes;
        let mut cells = [0u8; 32];
        self.index
            .cells(self.start + first as u64, &mut cells[..ring])
            .expect("a rank inside the layer");
        for i in 0..len {
            if i > 0 {
                next_in_layer(&mut cells[..ring]);
            }
            each(first + i, &cells[..ring]);
        }
    }

    fn solve(
        &self,
        lower: &[u8],
        cyclic: &mut Vec<Cyclic>,
        out: &mut [u8],
        threads: usize,
        report: &(dyn Fn(Stage, u64) + Sync),
    ) -> Result<(), TablebaseError> {
        let len = out.len();
        let k = self.seeds as i32;
        // Stage 1: the best capture of each position for its `L` node and for its `H` node, its
        // in-layer moves (as bits), and each child's count of in-layer predecessors (in `links`,
        // turned into where they end by a prefix sum).
        let mut exit_value = vec![NO_EXIT; len];
        let mut exit_low = vec![NO_EXIT; len];
        let mut exit_high = vec![NO_EXIT; len];
        let mut inside = vec![0u16; len];
        let links: Vec<AtomicU32> = (0..=len).map(|_| AtomicU32::new(0)).collect();
        let known: &[Cyclic] = cyclic;
        let jobs: Vec<_> = exit_value
            .chunks_mut(CHUNK)
            .zip(exit_low.chunks_mut(CHUNK))
            .zip(exit_high.chunks_mut(CHUNK))
            .zip(inside.chunks_mut(CHUNK))
            .enumerate()
            .collect();
        let done = AtomicU64::new(0);
        run_parallel(
            threads,
            jobs,
            |(job, (((exit_value, exit_low), exit_high), inside))| {
                self.walk(job * CHUNK, exit_low.len(), |p, cells| {
                    let at = p - job * CHUNK;
                    let state = self.position(cells);
                    if state.legal_mask() == 0 {
                        exit_value[at] = (-k) as i8;
                        exit_low[at] = (-k) as i8;
                        exit_high[at] = (-k) as i8;
                        return;
                    }
                    let mut best_value = i32::MIN;
                    let (mut best_low, mut best_high) = (i32::MIN, i32::MIN);
                    self.moves(&state, |action, child, captured| {
                        if captured == 0 {
                            links[(child - self.start) as usize].fetch_add(1, Relaxed);
                            inside[at] |= 1 << action;
                        } else {
                            let c = captured as i32;
                            best_value = best_value.max(c - value_of(lower, known, child));
                            let (low, high) = bounds(lower, known, child);
                            if high != i32::MAX {
                                best_low = best_low.max(c - high);
                            }
                            best_high =
                                best_high.max(if low == i32::MIN { i32::MAX } else { c - low });
                        }
                    });
                    if best_value != i32::MIN {
                        exit_value[at] = best_value as i8;
                    }
                    if best_low != i32::MIN {
                        exit_low[at] = best_low as i8;
                    }
                    exit_high[at] = match best_high {
                        i32::MIN => NO_EXIT,
                        i32::MAX => BLOCKED,
                        v => v as i8,
                    };
                });
                report(
                    Stage::Moves,
                    done.fetch_add(exit_value.len() as u64, Relaxed) + exit_value.len() as u64,
                );
            },
        );

        // Stage 2: the predecessors of each position, in one array, each position's run ending
        // where `links` says; filling them from the end leaves `links` at where each run starts.
        let mut edges = 0u64;
        for link in &links {
            edges += u64::from(link.load(Relaxed));
            let end = u32::try_from(edges).map_err(|_| TablebaseError::Unsupported {
                message: format!(
                    "the layer of {k} seeds has more than 2^32 moves within the layer, more \
                     than this builder indexes; build to fewer seeds"
                ),
            })?;
            link.store(end, Relaxed);
        }
        let predecessors: Vec<AtomicU32> = (0..edges).map(|_| AtomicU32::new(0)).collect();
        let jobs: Vec<(usize, usize)> = (0..len)
            .step_by(CHUNK)
            .map(|first| (first, CHUNK.min(len - first)))
            .collect();
        let done = AtomicU64::new(0);
        run_parallel(threads, jobs, |(first, count)| {
            self.walk(first, count, |p, cells| {
                self.quiet_moves(cells, inside[p], |child| {
                    let slot = links[(child - self.start) as usize].fetch_sub(1, Relaxed) - 1;
                    predecessors[slot as usize].store(p as u32, Relaxed);
                });
            });
            report(
                Stage::Predecessors,
                done.fetch_add(count as u64, Relaxed) + count as u64,
            );
        });

        // Stage 3: the threshold sweeps. The value counts the captures made before endless play
        // (exits worth `c - value(child)`); the bounds that decide results count endless play as
        // a draw wherever it starts (exits worth `c - H(child)` and `c - L(child)`). Where no
        // exit of the layer leads to a position whose bounds differ, one sweep serves both.
        let moves_inside: Vec<u8> = inside.iter().map(|m| m.count_ones() as u8).collect();
        drop(inside);
        let runs = |q: usize| {
            let (a, b) = (links[q].load(Relaxed), links[q + 1].load(Relaxed));
            predecessors[a as usize..b as usize]
                .iter()
                .map(|p| p.load(Relaxed) as usize)
        };
        let same = exit_low == exit_value && exit_high == exit_value;
        let sweeps = if same { 1 } else { 2 };
        let thresholds = 2 * k as u64 + 1;
        let report_sweep = |sweep: u64, done: u64| {
            report(
                Stage::Values,
                len as u64 * (sweep * thresholds + done) / (sweeps * thresholds),
            );
        };
        let (value_low, value_high) =
            sweep(k, &exit_value, &exit_value, &moves_inside, &runs, &|part| {
                report_sweep(0, part)
            });
        drop(exit_value);
        let (result_low, result_high) = if same {
            (value_low.clone(), value_high.clone())
        } else {
            sweep(k, &exit_low, &exit_high, &moves_inside, &runs, &|part| {
                report_sweep(1, part)
            })
        };
        for p in 0..len {
            // L = the threshold its node was won at, or -inf; H = minus its node's, or +inf.
            let bound_low = |won: i8| if won == NOT_WON { NEG_INF } else { won };
            let bound_high = |won: i8| if won == NOT_WON { POS_INF } else { -won };
            let (low, high) = (bound_low(result_low[p]), bound_high(result_high[p]));
            if low == high {
                out[p] = low as u8;
                continue;
            }
            let (value_low, value_high) = (bound_low(value_low[p]), bound_high(value_high[p]));
            out[p] = CYCLIC;
            cyclic.push(Cyclic {
                index: self.start + p as u64,
                value: value_low.max(0).min(value_high),
                endless: value_low < 0 && value_high > 0,
                low,
                high,
            });
        }
        Ok(())
    }
}

/// One threshold sweep over a layer of `k` seeds (see the module documentation): for each
/// position, the threshold at which its `L` node and its `H` node were won, or [`NOT_WON`].
/// `exit_low` is each position's best exit for its `L` node ([`NO_EXIT`] for none), `exit_high`
/// for its `H` node ([`NO_EXIT`] for none, [`BLOCKED`] for one never won), `moves_inside` its
/// in-layer moves, `runs(q)` the in-layer predecessors of `q`. `progress` is told how many of the
/// `2k + 1` thresholds are done.
fn sweep<I: Iterator<Item = usize>>(
    k: i32,
    exit_low: &[i8],
    exit_high: &[i8],
    moves_inside: &[u8],
    runs: &impl Fn(usize) -> I,
    progress: &dyn Fn(u64),
) -> (Vec<i8>, Vec<i8>) {
    let len = exit_low.len();
    // Moves left to win at each H node: every in-layer move, and its exits as one more.
    let mut left: Vec<u8> = moves_inside
        .iter()
        .zip(exit_high)
        .map(|(&m, &e)| m + u8::from(e != NO_EXIT))
        .collect();
    let mut low = vec![NOT_WON; len];
    let mut high = vec![NOT_WON; len];
    let mut stack: Vec<u32> = Vec::new();
    for (step, t) in (-k..=k).rev().enumerate() {
        let t8 = t as i8;
        for (p, (&el, &eh)) in exit_low.iter().zip(exit_high).enumerate() {
            if el == t8 && el != NO_EXIT && low[p] == NOT_WON {
                low[p] = t8;
                stack.push((p as u32) << 1);
            }
            // A BLOCKED exit is never won; NO_EXIT is no exit at all.
            if eh != NO_EXIT && eh != BLOCKED && i32::from(eh) == -t {
                left[p] -= 1;
                if left[p] == 0 {
                    high[p] = t8;
                    stack.push((p as u32) << 1 | 1);
                }
            }
        }
        while let Some(node) = stack.pop() {
            let q = (node >> 1) as usize;
            if node & 1 == 0 {
                // L(q) won: one more move of each parent's H node is won.
                for p in runs(q) {
                    if high[p] == NOT_WON {
                        left[p] -= 1;
                        if left[p] == 0 {
                            high[p] = t8;
                            stack.push((p as u32) << 1 | 1);
                        }
                    }
                }
            } else {
                // H(q) won: each parent's L node wins by moving there.
                for p in runs(q) {
                    if low[p] == NOT_WON {
                        low[p] = t8;
                        stack.push((p as u32) << 1);
                    }
                }
            }
        }
        progress(step as u64 + 1);
    }
    (low, high)
}

/// Run `work` on every job, on `threads` threads (no more than there are jobs) taking jobs in
/// turn.
fn run_parallel<T: Send>(threads: usize, jobs: Vec<T>, work: impl Fn(T) + Sync) {
    let threads = threads.clamp(1, jobs.len().max(1));
    let queue = Mutex::new(jobs.into_iter());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let job = queue
                        .lock()
                        .expect("no job panics holding the queue")
                        .next();
                    match job {
                        Some(job) => work(job),
                        None => break,
                    }
                }
            });
        }
    });
}
