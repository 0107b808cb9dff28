//! The greedy agent: the move that captures most seeds now, ties broken at random. One ply of
//! look-ahead and no thought for the reply.

use crate::agent::Agent;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use sowing_env::State;

/// Plays the move that captures most seeds this turn; among equals, one at random.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl Agent for Greedy {
    fn name(&self) -> String {
        "greedy".to_string()
    }

    /// On a finished game, which has no legal move, this gives 0, which `State::play` refuses.
    fn choose(&mut self, state: &State, rng: &mut ChaCha8Rng) -> usize {
        let mut best = 0;
        let mut best_captured = 0;
        let mut ties = 0u32;
        for action in state.legal_actions() {
            let captured = match state.play_with_info(action) {
                Ok((_, info)) => info.captured,
                Err(_) => continue,
            };
            if ties == 0 || captured > best_captured {
                best = action;
                best_captured = captured;
                ties = 1;
            } else if captured == best_captured {
                // Reservoir sampling: each of the k tied moves is kept with probability 1/k.
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    best = action;
                }
            }
        }
        best
    }
}
