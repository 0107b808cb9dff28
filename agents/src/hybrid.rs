//! The network's part in a hybrid alpha-beta search (`alphabeta:TIME:net=RUN`): it values the
//! leaves in place of the static count of seeds, and its policy orders the moves where the
//! transposition table has none.
//!
//! A network is costly beside the static value (tens of microseconds a forward pass against a
//! few nanoseconds), and costs little more for a handful of positions than for one; so the
//! search values every child of a node one ply above the leaves in one forward pass
//! ([`NetworkLeaves::value_children`]), and keeps each evaluation, priors with it, in a cache.
//! The priors come free: a node two plies above the leaves of one iteration of deepening was a
//! leaf of the one before, so its policy is in the cache when its moves are ordered.
//!
//! The cache holds one game's positions: it is forgotten between games, so that a game of a
//! depth budget plays the same whatever was played before it (a forward pass of another batch
//! may round a value differently).

use crate::evaluator::{Evaluation, Evaluator};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_env::{MAX_HOLES, State};
use sowing_exact::hash::state_key;

/// A network value `v` in `[-1, 1]` scores `v * NETWORK_SCALE` on the alpha-beta scale: far below
/// a proven result, and fine enough that values a network tells apart stay apart.
pub const NETWORK_SCALE: f32 = 10_000.0;

/// Evaluations kept: 2^16 positions, about 3 MiB.
const CACHE_BITS: u32 = 16;

/// One kept evaluation.
#[derive(Clone, Copy)]
struct Cached {
    key: u64,
    generation: u32,
    value: i32,
    priors: [f32; MAX_HOLES],
}

/// A network valuing the leaves of an alpha-beta search and ordering its moves.
pub struct NetworkLeaves {
    evaluator: Box<dyn Evaluator>,
    /// The board size the network was trained on: it plays no other.
    holes: usize,
    cache: Vec<Cached>,
    generation: u32,
    /// The evaluator's randomness (a network has none; a rollout would).
    rng: ChaCha8Rng,
    batch: Vec<State>,
    slots: Vec<usize>,
    out: Vec<Evaluation>,
    /// Positions the network valued (not found in the cache), since the agent was made.
    evaluated: u64,
}

impl std::fmt::Debug for NetworkLeaves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkLeaves")
            .field("holes", &self.holes)
            .field("evaluated", &self.evaluated)
            .finish()
    }
}

impl NetworkLeaves {
    /// Leaves valued by `evaluator`, which plays boards of `holes` holes a row.
    pub fn new(evaluator: Box<dyn Evaluator>, holes: usize) -> NetworkLeaves {
        NetworkLeaves {
            evaluator,
            holes,
            cache: vec![
                Cached {
                    key: 0,
                    generation: 0,
                    value: 0,
                    priors: [0.0; MAX_HOLES],
                };
                1 << CACHE_BITS
            ],
            generation: 1,
            rng: ChaCha8Rng::seed_from_u64(0),
            batch: Vec::with_capacity(MAX_HOLES),
            slots: Vec::with_capacity(MAX_HOLES),
            out: Vec::with_capacity(MAX_HOLES),
            evaluated: 0,
        }
    }

    /// The board size the network plays.
    pub fn holes(&self) -> usize {
        self.holes
    }

    /// Positions the network has valued so far (cache hits aside).
    pub fn evaluated(&self) -> u64 {
        self.evaluated
    }

    /// Forget the kept evaluations (a new game), in O(1).
    pub fn new_game(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
    }

    /// The score of a network value on the alpha-beta scale.
    pub fn score(value: f32) -> i32 {
        (value.clamp(-1.0, 1.0) * NETWORK_SCALE).round() as i32
    }

    fn slot(key: u64) -> usize {
        (key & ((1 << CACHE_BITS) - 1)) as usize
    }

    fn lookup(&self, key: u64) -> Option<&Cached> {
        let c = &self.cache[Self::slot(key)];
        (c.key == key && c.generation == self.generation).then_some(c)
    }

    /// The network's priors of `state`, if it valued the position in this game.
    pub fn priors(&self, state: &State) -> Option<[f32; MAX_HOLES]> {
        self.lookup(state_key(state)).map(|c| c.priors)
    }

    /// Fill each `None` of `values` with the network's score of the child at the same index,
    /// for the player to move in that child: the kept ones from the cache, the others in one
    /// forward pass. The children must not be over.
    pub fn value_children(&mut self, children: &[State], values: &mut [Option<i32>]) {
        self.batch.clear();
        self.slots.clear();
        for (i, (child, value)) in children.iter().zip(values.iter_mut()).enumerate() {
            if value.is_some() {
                continue;
            }
            match self.lookup(state_key(child)) {
                Some(c) => *value = Some(c.value),
                None => {
                    self.batch.push(*child);
                    self.slots.push(i);
                }
            }
        }
        if self.batch.is_empty() {
            return;
        }
        let blank = Evaluation {
            priors: [0.0; MAX_HOLES],
            value: 0.0,
        };
        self.out.clear();
        self.out.resize(self.batch.len(), blank);
        self.evaluator
            .evaluate_batch(&self.batch, &mut self.rng, &mut self.out);
        self.evaluated += self.batch.len() as u64;
        for ((state, eval), &i) in self.batch.iter().zip(&self.out).zip(&self.slots) {
            let key = state_key(state);
            let value = Self::score(eval.value);
            values[i] = Some(value);
            self.cache[Self::slot(key)] = Cached {
                key,
                generation: self.generation,
                value,
                priors: eval.priors,
            };
        }
    }
}
