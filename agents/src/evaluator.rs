//! The `Evaluator` trait: how a tree search values a leaf. Random rollouts and a neural network
//! both implement it, so one search serves both.

use rand_chacha::ChaCha8Rng;
use sowing_env::{MAX_HOLES, SownMoves, State, random_action};

/// A leaf's evaluation, from the point of view of the player to move there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each action (relative to the mover); zero for illegal actions, the
    /// legal ones summing to one. Only the first `holes` entries are used.
    pub priors: [f32; MAX_HOLES],
    /// Expected result for the player to move, in `[-1, 1]`.
    pub value: f32,
}

impl Evaluation {
    /// The evaluation of a network's output: priors the softmax of `logits` over the actions
    /// whose bit is set in `legal` (the others get exactly zero, whatever their logit), and
    /// `value`. Logits of legal actions should be finite: an infinite or NaN one spoils them all.
    pub fn from_logits(logits: &[f32], legal: u16, value: f32) -> Evaluation {
        let mut priors = [0.0f32; MAX_HOLES];
        let is_legal = |a: usize| legal >> a & 1 == 1;
        let top = (0..logits.len().min(MAX_HOLES))
            .filter(|&a| is_legal(a))
            .map(|a| logits[a])
            .fold(f32::NEG_INFINITY, f32::max);
        let mut total = 0.0f32;
        for (a, p) in priors.iter_mut().enumerate().take(logits.len()) {
            if is_legal(a) {
                *p = (logits[a] - top).exp();
                total += *p;
            }
        }
        if total > 0.0 {
            for p in &mut priors {
                *p /= total;
            }
        }
        Evaluation { priors, value }
    }
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

/// A borrowed evaluator is one too, so that a wrapper ([`crate::TablebaseEvaluator`]) can lend
/// itself one for a single search.
impl<E: Evaluator + ?Sized> Evaluator for &mut E {
    fn evaluate(&mut self, state: &State, rng: &mut ChaCha8Rng) -> Evaluation {
        (**self).evaluate(state, rng)
    }

    fn evaluate_batch(&mut self, states: &[State], rng: &mut ChaCha8Rng, out: &mut [Evaluation]) {
        (**self).evaluate_batch(states, rng, out);
    }
}

/// Values a leaf by one uniformly random game played out from it: +1 if the player to move there
/// wins, -1 if they lose, 0 for a draw or a truncated game. Priors are uniform over the legal
/// actions.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rollout;

impl Evaluator for Rollout {
    fn evaluate(&mut self, state: &State, rng: &mut ChaCha8Rng) -> Evaluation {
        let mut priors = [0.0; MAX_HOLES];
        let mask = state.legal_mask();
        let share = 1.0 / mask.count_ones().max(1) as f32;
        for (a, p) in priors.iter_mut().enumerate() {
            if mask >> a & 1 == 1 {
                *p = share;
            }
        }
        // Each move is played from the sowings that the last one's mask kept (the first is sown
        // afresh), so a rollout sows every move once.
        let mut s = *state;
        let mut sown = SownMoves::new();
        while let Some(a) = random_action(&s, rng) {
            s = s.play_sown(a, &mut sown);
        }
        Evaluation {
            priors,
            value: s.outcome().reward(state.to_move()),
        }
    }
}
