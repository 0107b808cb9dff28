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
use sowing_env::{Board, ByPlayer, MAX_TOTAL_SEEDS, Player, Rules, Sowing, SownMoves, State, sow};
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
pub(crate) const NO_EXIT: i8 = i8::MIN;
/// A best exit for `H` worth plus infinity: a capture leads where the opponent cannot force an
/// end, so the mover's `H` node is never won.
pub(crate) const BLOCKED: i8 = i8::MAX;
/// A node not won (yet): values are in `-127..=127`.
const NOT_WON: i8 = i8::MIN;
/// Positions per job handed to a thread.
pub(crate) const CHUNK: usize = 1 << 15;

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
    let max_seeds = index.max_seeds();
    let roomy = roomy(rules)?;
    let threads = threads(options.threads);
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
        let solver = Layer::new(&roomy, index, k);
        solver.solve(lower, &mut cyclic, out, threads, &report)?;
        save(k, &values[..layer.end as usize], &cyclic)?;
    }
    Ok((values, cyclic))
}

/// Positions of any number of seeds up to K are built as States of a rule set whose seed count
/// leaves room for them; seeds per hole change nothing of the game tree.
pub(crate) fn roomy(rules: &Rules) -> Result<Rules, TablebaseError> {
    rules
        .with(|s| s.seeds = MAX_TOTAL_SEEDS / (2 * s.holes))
        .map_err(|e| TablebaseError::Unsupported {
            message: e.to_string(),
        })
}

/// The threads a build asked for `asked` runs on: 0 is one per core.
pub(crate) fn threads(asked: usize) -> usize {
    match asked {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    }
}

fn out_len(layer: &std::ops::Range<u64>) -> u64 {
    layer.end - layer.start
}

/// A job's part of a layer's exits (see [`Layer::sow_job`]), one entry a position: its best
/// exit for the value, for `L` and for `H` ([`NO_EXIT`] for none, `H`'s [`BLOCKED`] for one
/// never won), and its in-layer moves as bits.
pub(crate) struct Exits<'a> {
    pub value: &'a mut [i8],
    pub low: &'a mut [i8],
    pub high: &'a mut [i8],
    pub inside: &'a mut [u16],
}

/// A move of the layer being solved that captures: into the layers below.
struct Exit {
    /// The child's index in the table.
    child: u64,
    /// The position moved from, within its job.
    at: u32,
    captured: u8,
}

/// One layer being solved.
pub(crate) struct Layer<'a> {
    rules: Rules,
    index: &'a PositionIndex,
    seeds: usize,
    start: u64,
    holes: usize,
    captured: ByPlayer<u8>,
}

impl<'a> Layer<'a> {
    /// The layer of `seeds` seeds of `index`, its positions made with `roomy` rules.
    pub(crate) fn new(roomy: &Rules, index: &'a PositionIndex, seeds: usize) -> Layer<'a> {
        Layer {
            rules: *roomy,
            index,
            seeds,
            start: index.layer(seeds).start,
            holes: roomy.holes(),
            captured: ByPlayer::new((roomy.total_seeds() - seeds) as u8, 0),
        }
    }

    /// The position of `cells` (mover's row first), South to move, the sowings of its legal
    /// moves kept in `sown` for [`Layer::moves`].
    fn position(&self, cells: &[u8], sown: &mut SownMoves) -> State {
        State::new_sown(&self.rules, cells, self.captured, Player::South, 0, sown)
            .expect("a board of at most the rules' seeds, with the rest captured, is a position")
    }

    /// Each legal move of `state` (made by [`Layer::position`] with `sown`): the action, the
    /// index of the child (turned to put its mover first) and the seeds captured.
    #[inline]
    fn moves(&self, state: &State, sown: &SownMoves, mut each: impl FnMut(usize, u64, u32)) {
        for a in state.legal_actions() {
            let (board, captured) = state.play_board_sown(a, sown);
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

    /// Sow every move of positions `first..first + exits.len()` of the layer (layer ranks):
    /// each position's best exits and in-layer moves into `exits`, and the child of each
    /// in-layer move (layer rank), by position and action, onto `quiet`.
    ///
    /// The moves are sown first, their captures valued after: a capture's child lies anywhere in
    /// the layers below, and a lookup waiting for each miss in turn was a third of this stage.
    pub(crate) fn sow_job(
        &self,
        lower: &[u8],
        known: &[Cyclic],
        first: usize,
        exits: Exits<'_>,
        quiet: &mut Vec<u32>,
    ) {
        let k = self.seeds as i32;
        let Exits {
            value: exit_value,
            low: exit_low,
            high: exit_high,
            inside,
        } = exits;
        // At most `holes` moves a position: the buffer never grows (see memory::per_thread).
        let mut captures: Vec<Exit> = Vec::with_capacity(exit_value.len() * self.holes);
        let mut sown = SownMoves::new();
        self.walk(first, exit_value.len(), |p, cells| {
            let at = p - first;
            let state = self.position(cells, &mut sown);
            if state.legal_mask() == 0 {
                exit_value[at] = (-k) as i8;
                exit_low[at] = (-k) as i8;
                exit_high[at] = (-k) as i8;
                return;
            }
            self.moves(&state, &sown, |action, child, captured| {
                if captured == 0 {
                    quiet.push((child - self.start) as u32);
                    inside[at] |= 1 << action;
                } else {
                    captures.push(Exit {
                        child,
                        at: at as u32,
                        captured: captured as u8,
                    });
                }
            });
        });
        // Each position's exits are together, in order: the best are written when the next
        // position's begin.
        let (mut best_value, mut best_low, mut best_high) = (i32::MIN, i32::MIN, i32::MIN);
        for (i, exit) in captures.iter().enumerate() {
            if let Some(ahead) = captures.get(i + AHEAD)
                && let Some(byte) = lower.get(ahead.child as usize)
            {
                prefetch(byte);
            }
            let c = i32::from(exit.captured);
            best_value = best_value.max(c - value_of(lower, known, exit.child));
            let (low, high) = bounds(lower, known, exit.child);
            if high != i32::MAX {
                best_low = best_low.max(c - high);
            }
            best_high = best_high.max(if low == i32::MIN { i32::MAX } else { c - low });
            if captures.get(i + 1).is_none_or(|next| next.at != exit.at) {
                let at = exit.at as usize;
                exit_value[at] = best_value as i8;
                if best_low != i32::MIN {
                    exit_low[at] = best_low as i8;
                }
                exit_high[at] = if best_high == i32::MAX {
                    BLOCKED
                } else {
                    best_high as i8
                };
                (best_value, best_low, best_high) = (i32::MIN, i32::MIN, i32::MIN);
            }
        }
    }

    /// Where each in-layer move's link ends, from the count of each child's in-layer
    /// predecessors in `links` (filling the runs from the end leaves `links` at where each run
    /// starts); the number of in-layer moves.
    pub(crate) fn run_ends(&self, links: &[AtomicU32]) -> Result<u64, TablebaseError> {
        let mut edges = 0u64;
        for link in links {
            edges += u64::from(link.load(Relaxed));
            let end = u32::try_from(edges).map_err(|_| TablebaseError::Unsupported {
                message: format!(
                    "the layer of {} seeds has more than 2^32 moves within the layer, more \
                     than this builder indexes; build to fewer seeds",
                    self.seeds
                ),
            })?;
            link.store(end, Relaxed);
        }
        Ok(edges)
    }

    /// Stage 3, from the layer's exits and in-layer predecessors: each position's value into
    /// `out` (layer ranks), those whose bounds differ onto `cyclic`.
    pub(crate) fn value(
        &self,
        exits: Exits<'_>,
        graph: &Predecessors<'_>,
        cyclic: &mut Vec<Cyclic>,
        out: &mut [u8],
        report: &(dyn Fn(Stage, u64) + Sync),
    ) {
        let len = out.len();
        let k = self.seeds as i32;
        let Exits {
            value: exit_value,
            low: exit_low,
            high: exit_high,
            inside,
        } = exits;
        // Stage 3: the threshold sweeps. The value counts the captures made before endless play
        // (exits worth `c - value(child)`); the bounds that decide results count endless play as
        // a draw wherever it starts (exits worth `c - H(child)` and `c - L(child)`). Where no
        // exit of the layer leads to a position whose bounds differ, one sweep serves both.
        let moves_inside: Vec<u8> = inside.iter().map(|m| m.count_ones() as u8).collect();
        let same = exit_low == exit_value && exit_high == exit_value;
        let sweeps = if same { 1 } else { 2 };
        let thresholds = 2 * k as u64 + 1;
        let report_sweep = |sweep: u64, done: u64| {
            report(
                Stage::Values,
                len as u64 * (sweep * thresholds + done) / (sweeps * thresholds),
            );
        };
        let value = sweep(k, exit_value, exit_value, &moves_inside, graph, &|part| {
            report_sweep(0, part)
        });
        let result = (!same).then(|| {
            sweep(k, exit_low, exit_high, &moves_inside, graph, &|part| {
                report_sweep(1, part)
            })
        });
        let result = result.as_ref().unwrap_or(&value);
        for p in 0..len {
            // L = the threshold its node was won at, or -inf; H = minus its node's, or +inf.
            let bound_low = |won: i8| if won == NOT_WON { NEG_INF } else { won };
            let bound_high = |won: i8| if won == NOT_WON { POS_INF } else { -won };
            let (low, high) = (bound_low(result[p].low), bound_high(result[p].high));
            if low == high {
                out[p] = low as u8;
                continue;
            }
            let (value_low, value_high) = (bound_low(value[p].low), bound_high(value[p].high));
            out[p] = CYCLIC;
            cyclic.push(Cyclic {
                index: self.start + p as u64,
                value: value_low.max(0).min(value_high),
                endless: value_low < 0 && value_high > 0,
                low,
                high,
            });
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
                let mut quiet = Vec::with_capacity(exit_value.len() * self.holes);
                self.sow_job(
                    lower,
                    known,
                    job * CHUNK,
                    Exits {
                        value: exit_value,
                        low: exit_low,
                        high: exit_high,
                        inside,
                    },
                    &mut quiet,
                );
                each_prefetched(&links, &quiet, |_, link| {
                    link.fetch_add(1, Relaxed);
                });
                report(
                    Stage::Moves,
                    done.fetch_add(exit_value.len() as u64, Relaxed) + exit_value.len() as u64,
                );
            },
        );

        // Stage 2: the predecessors of each position, in one array, each position's run ending
        // where `links` says; filling them from the end leaves `links` at where each run starts.
        let edges = self.run_ends(&links)?;
        let predecessors: Vec<AtomicU32> = (0..edges).map(|_| AtomicU32::new(0)).collect();
        let jobs: Vec<(usize, usize)> = (0..len)
            .step_by(CHUNK)
            .map(|first| (first, CHUNK.min(len - first)))
            .collect();
        let done = AtomicU64::new(0);
        run_parallel(threads, jobs, |(first, count)| {
            // The job's moves are sown first, then linked (see `link`).
            let moves = count * self.holes;
            let (mut parents, mut children) =
                (Vec::with_capacity(moves), Vec::with_capacity(moves));
            self.walk(first, count, |p, cells| {
                self.quiet_moves(cells, inside[p], |child| {
                    parents.push(p as u32);
                    children.push((child - self.start) as u32);
                });
            });
            link(&links, &predecessors, &parents, &children);
            report(
                Stage::Predecessors,
                done.fetch_add(count as u64, Relaxed) + count as u64,
            );
        });

        self.value(
            Exits {
                value: &mut exit_value,
                low: &mut exit_low,
                high: &mut exit_high,
                inside: &mut inside,
            },
            &Predecessors {
                starts: &links,
                of: &predecessors,
            },
            cyclic,
            out,
            report,
        );
        Ok(())
    }
}

/// The in-layer predecessors of each position of a layer: those of `q` are
/// `of[starts[q]..starts[q + 1]]`.
pub(crate) struct Predecessors<'a> {
    pub starts: &'a [AtomicU32],
    pub of: &'a [AtomicU32],
}

/// A position's two nodes in a threshold sweep: the threshold each was won at, or [`NOT_WON`],
/// and the moves of its `H` node not won yet. Kept together because a win is passed on to a
/// predecessor anywhere in the layer, and one cache miss there is cheaper than three.
#[derive(Clone, Copy)]
struct Node {
    low: i8,
    high: i8,
    left: u8,
}

/// Nodes whose wins are passed on at a time: their predecessors are fetched ahead together.
const BATCH: usize = 1 << 12;

/// One threshold sweep over a layer of `k` seeds (see the module documentation): for each
/// position, the threshold at which its `L` node and its `H` node were won, or [`NOT_WON`].
/// `exit_low` is each position's best exit for its `L` node ([`NO_EXIT`] for none), `exit_high`
/// for its `H` node ([`NO_EXIT`] for none, [`BLOCKED`] for one never won), `moves_inside` its
/// in-layer moves, `graph` the in-layer predecessors. `progress` is told how many of the
/// `2k + 1` thresholds are done.
///
/// The exits are sorted by the threshold they are won at before the sweep starts, so that each
/// threshold visits only its own exits (a scan of the whole layer at each of the `2k + 1`
/// thresholds cost more than the rest of the sweep). Wins are passed on in batches taken from a
/// queue, every place a batch touches fetched ahead: the predecessors of won nodes lie anywhere
/// in the layer, and fetched one at a time, the misses were most of the sweep's time. Within a
/// threshold the order does not matter: the nodes won by its end are the least fixed point of
/// the rules, whatever the order.
fn sweep(
    k: i32,
    exit_low: &[i8],
    exit_high: &[i8],
    moves_inside: &[u8],
    graph: &Predecessors<'_>,
    progress: &dyn Fn(u64),
) -> Vec<Node> {
    // Moves left to win at each H node: every in-layer move, and its exits as one more.
    let mut nodes: Vec<Node> = moves_inside
        .iter()
        .zip(exit_high)
        .map(|(&m, &e)| Node {
            low: NOT_WON,
            high: NOT_WON,
            left: m + u8::from(e != NO_EXIT),
        })
        .collect();
    // An L node's exit is won at the threshold of its value, an H node's at minus its value.
    let low_exits = ByThreshold::new(k, exit_low.iter().map(|&e| (e != NO_EXIT).then_some(e)));
    let high_exits = ByThreshold::new(
        k,
        exit_high
            .iter()
            .map(|&e| (e != NO_EXIT && e != BLOCKED).then(|| -e)),
    );
    // Won nodes whose wins are still to pass on, as `position << 1 | (1 for H)`; each node is
    // won once, so the queue never holds more than two entries a position.
    let mut queue: Vec<u32> = Vec::new();
    // A batch's predecessors: `position << 1 | (1 when an H node was won)`.
    let mut touched: Vec<u32> = Vec::new();
    let at = |node: u32| &graph.starts[(node >> 1) as usize];
    for (step, t) in (-k..=k).rev().enumerate() {
        let t8 = t as i8;
        for &p in low_exits.at(t) {
            let node = &mut nodes[p as usize];
            if node.low == NOT_WON {
                node.low = t8;
                queue.push(p << 1);
            }
        }
        for &p in high_exits.at(t) {
            let node = &mut nodes[p as usize];
            node.left -= 1;
            if node.left == 0 {
                node.high = t8;
                queue.push(p << 1 | 1);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let batch = head..queue.len().min(head + BATCH);
            head = batch.end;
            // Where each won node's predecessors start (fetched twice as far ahead), then the
            // predecessors themselves.
            let won = &queue[batch];
            for &node in won.iter().take(2 * AHEAD) {
                prefetch(at(node));
            }
            touched.clear();
            for (i, &node) in won.iter().enumerate() {
                if let Some(&ahead) = won.get(i + 2 * AHEAD) {
                    prefetch(at(ahead));
                }
                if let Some(&ahead) = won.get(i + AHEAD) {
                    let first = at(ahead).load(Relaxed) as usize;
                    if let Some(run) = graph.of.get(first) {
                        prefetch(run);
                    }
                }
                let q = (node >> 1) as usize;
                let (a, b) = (
                    graph.starts[q].load(Relaxed) as usize,
                    graph.starts[q + 1].load(Relaxed) as usize,
                );
                for p in &graph.of[a..b] {
                    touched.push(p.load(Relaxed) << 1 | (node & 1));
                }
            }
            for i in 0..touched.len() {
                if let Some(&ahead) = touched.get(i + AHEAD) {
                    prefetch(&nodes[(ahead >> 1) as usize]);
                }
                let (p, h_won) = (touched[i] >> 1, touched[i] & 1 == 1);
                let node = &mut nodes[p as usize];
                if !h_won {
                    // L(q) won: one more move of each parent's H node is won.
                    if node.high == NOT_WON {
                        node.left -= 1;
                        if node.left == 0 {
                            node.high = t8;
                            queue.push(p << 1 | 1);
                        }
                    }
                } else if node.low == NOT_WON {
                    // H(q) won: each parent's L node wins by moving there.
                    node.low = t8;
                    queue.push(p << 1);
                }
            }
        }
        queue.clear();
        progress(step as u64 + 1);
    }
    nodes
}

/// The positions of a layer of `k` seeds grouped by a threshold in `-k..=k` (a counting sort,
/// positions in index order within a threshold); a position without one is left out.
struct ByThreshold {
    k: i32,
    /// Where each threshold's positions start in `positions`, from `-k` up, and where the last
    /// ends.
    starts: Vec<usize>,
    positions: Vec<u32>,
}

impl ByThreshold {
    fn new(k: i32, thresholds: impl Iterator<Item = Option<i8>> + Clone) -> ByThreshold {
        let slot = |t: i8| (i32::from(t) + k) as usize;
        let mut starts = vec![0usize; 2 * k as usize + 2];
        for t in thresholds.clone().flatten() {
            starts[slot(t) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut positions = vec![0u32; starts[starts.len() - 1]];
        for (p, t) in thresholds.enumerate() {
            if let Some(t) = t {
                positions[next[slot(t)]] = p as u32;
                next[slot(t)] += 1;
            }
        }
        ByThreshold {
            k,
            starts,
            positions,
        }
    }

    /// The positions of threshold `t`.
    fn at(&self, t: i32) -> &[u32] {
        let slot = (t + self.k) as usize;
        &self.positions[self.starts[slot]..self.starts[slot + 1]]
    }
}

/// Link in-layer moves, the move from `parents[i]` to `children[i]` (layer ranks), into their
/// children's runs of predecessors, `links` holding where each run ends so far.
///
/// A link's slot is a locked read-modify-write of a place anywhere in the layer, and locked
/// operations wait for each other's cache misses unless the places are fetched ahead: so the
/// slots are taken first, then filled.
pub(crate) fn link(
    links: &[AtomicU32],
    predecessors: &[AtomicU32],
    parents: &[u32],
    children: &[u32],
) {
    let mut slots = Vec::with_capacity(children.len());
    each_prefetched(links, children, |_, link| {
        slots.push(link.fetch_sub(1, Relaxed) - 1);
    });
    each_prefetched(predecessors, &slots, |i, predecessor| {
        predecessor.store(parents[i], Relaxed);
    });
}

/// How far ahead [`each_prefetched`] fetches: enough misses in flight to hide memory's latency.
const AHEAD: usize = 16;

/// Call `each(i, &items[at[i]])` for each `i` in order, fetching the places a few ahead into
/// the cache first: places scattered over a large array would otherwise be fetched one miss at
/// a time.
#[inline]
pub(crate) fn each_prefetched<T>(items: &[T], at: &[u32], mut each: impl FnMut(usize, &T)) {
    for (i, &place) in at.iter().enumerate() {
        if let Some(&ahead) = at.get(i + AHEAD) {
            prefetch(&items[ahead as usize]);
        }
        each(i, &items[place as usize]);
    }
}

/// Ask for `place` to be brought into the cache; a hint, which changes no value.
#[inline(always)]
fn prefetch<T>(place: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault; `place` is a
    // reference, so the address is valid anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((place as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = place;
}

/// Run `work` on every job, on `threads` threads (no more than there are jobs) taking jobs in
/// turn.
pub(crate) fn run_parallel<T: Send>(threads: usize, jobs: Vec<T>, work: impl Fn(T) + Sync) {
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
