//! The `Evaluator` trait: how a tree search values a leaf. Random rollouts and a neural network
//! both implement it, so one search serves both.

use rand_chacha::ChaCha8Rng;
use sowing_env::{MAX_HOLES, State};

/// A leaf's evaluation, from the point of view of the player to move there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each action (relative to the mover); zero for illegal actions, the
    /// legal ones summing to one. Only the first `holes` entries are used.
    pub priors: [f32; MAX_HOLES],
    /// Expected result for the player to move, in `[-1, 1]`.
    pub value: f32,
}

/// Values leaves for a search.
pub trait Evaluator: Send {
    /// Evaluate `state`, which is not over.
    fn evaluate(&mut self, state: &State, rng: &mut ChaCha8Rng) -> Evaluation;

    /// Evaluate many states at once (a network does this in one forward pass). `out` has one slot
    /// per state.
    fn evaluate_batch(&mut self, states: &[State], rng: &mut ChaCha8Rng, out: &mut [Evaluation]) {
        for (s, slot) in states.iter().zip(out.iter_mut()) {
            *slot = self.evaluate(s, rng);
        }
    }
}
