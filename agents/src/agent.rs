//! The `Agent` trait: anything that chooses a move for a position.
//!
//! Randomness is passed in, so a game between agents is fixed by the seeds of the streams it is
//! given.

use crate::puct::Explained;
use rand_chacha::ChaCha8Rng;
use sowing_env::{Rules, State};
use sowing_exact::Stop;

/// A player of the game.
pub trait Agent: Send {
    /// The spec that makes this agent again (e.g. `alphabeta:6`), used in tables and records.
    fn name(&self) -> String;

    /// A legal action for `state`, which is not over. `rng` is the only source of randomness the
    /// agent may use, so that games are reproducible.
    fn choose(&mut self, state: &State, rng: &mut ChaCha8Rng) -> usize;

    /// Forget what was kept from earlier moves (search trees, tables) before a new game.
    fn new_game(&mut self) {}

    /// Ask `stop` during every later search, and give up when it says so: `choose` then returns
    /// at once with the best action found so far (any legal one), which the caller that stopped
    /// it is expected to discard. Agents that answer at once (random, greedy) ignore it.
    fn set_stop(&mut self, stop: Stop) {
        let _ = stop;
    }

    /// What the search of its last move found (value, principal line), for a player that shows
    /// its reasons (`sowing play --explain`); `None` for agents that do not search so, or when
    /// the last move was not searched (a table's, a proven win's).
    fn explained(&self) -> Option<Explained> {
        None
    }

    /// Whether this agent can play games by `rules`; the error says why not. Agents that learned
    /// one board (a trained network) refuse others here, before a game starts, rather than
    /// failing in the middle of one.
    fn can_play(&self, rules: &Rules) -> Result<(), String> {
        let _ = rules;
        Ok(())
    }
}
