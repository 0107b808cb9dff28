//! The random agent: a uniformly random legal move. The floor every other agent is measured from.

use crate::agent::Agent;
use rand_chacha::ChaCha8Rng;
use sowing_env::{State, random_action};

/// Plays a uniformly random legal move.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomAgent;

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".to_string()
    }

    /// On a finished game, which has no legal move, this gives 0, which `State::play` refuses.
    fn choose(&mut self, state: &State, rng: &mut ChaCha8Rng) -> usize {
        random_action(state, rng).unwrap_or(0)
    }
}
