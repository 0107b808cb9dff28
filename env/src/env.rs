//! One game with Gymnasium's semantics: `reset(seed)` and `step(action)`, rewards for both
//! players given at the end, `terminated` and `truncated` kept apart.
//!
//! The game has no chance in it; the environment's random stream only plays the optional random
//! opening (`random_opening` plies of uniform random moves at every reset, for varied starts) and
//! [`Env::sample_action`].

use crate::error::Error;
use crate::player::{ByPlayer, Player};
use crate::rules::Rules;
use crate::state::{MoveInfo, State};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A uniformly random legal action of `state`, or `None` when it has none.
#[inline]
pub fn random_action<R: rand::Rng + ?Sized>(state: &State, rng: &mut R) -> Option<usize> {
    let mask = state.legal_mask();
    if mask == 0 {
        return None;
    }
    let pick = rng.random_range(0..mask.count_ones());
    Some(nth_set_bit(mask, pick))
}

/// `SELECT[b][k]`: the place of the `k`-th set bit (from the lowest) of byte `b`.
const SELECT: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut k, mut bit) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 == 1 {
                table[b][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    table
};

/// The place of the `k`-th set bit (from the lowest) of `mask`, which has more than `k`: two
/// table look-ups rather than a loop whose length no branch predictor can guess.
#[inline]
fn nth_set_bit(mask: u16, k: u32) -> usize {
    let low = (mask & 0xFF) as usize;
    let in_low = low.count_ones();
    let (byte, k, base) = if k < in_low {
        (low, k, 0)
    } else {
        ((mask >> 8) as usize, k - in_low, 8)
    };
    base + SELECT[byte][k as usize] as usize
}

/// The start of a game after `plies` uniformly random moves drawn from `rng`. An opening that
/// happens to end the game is drawn again (at most 64 times; then the start itself is used).
pub fn random_opening<R: rand::Rng + ?Sized>(rules: &Rules, plies: u32, rng: &mut R) -> State {
    let start = State::initial(rules);
    if plies == 0 {
        return start;
    }
    for _ in 0..64 {
        let mut s = start;
        for _ in 0..plies {
            match random_action(&s, rng) {
                Some(a) => s = s.play_unchecked(a),
                None => break,
            }
        }
        if !s.is_over() {
            return s;
        }
    }
    start
}

/// What [`Env::step`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The observation of the new state, relative to the player now to move.
    pub observation: Vec<f32>,
    /// Legal actions of the player now to move; all false once the game is over.
    pub mask: Vec<bool>,
    /// Reward for each player: +1 win, -1 loss, 0 draw, given only when the game terminates.
    pub rewards: ByPlayer<f32>,
    /// The game ended by the rules.
    pub terminated: bool,
    /// The game was cut off at `max_plies`.
    pub truncated: bool,
    /// The player to move in the new state (once the game is over: the one who would move next).
    pub to_move: Player,
    /// What the move did: laps, seeds sown, seeds captured.
    pub info: MoveInfo,
}

/// A single game stepped one action at a time.
#[derive(Clone, Debug)]
pub struct Env {
    rules: Rules,
    state: State,
    rng: ChaCha8Rng,
    random_opening: u32,
}

impl Env {
    /// A game by `rules`, at its start, with random stream 0.
    pub fn new(rules: &Rules) -> Env {
        Env {
            rules: *rules,
            state: State::initial(rules),
            rng: ChaCha8Rng::seed_from_u64(0),
            random_opening: 0,
        }
    }

    /// Play `plies` uniformly random moves at every reset (default 0: the game's own start).
    pub fn with_random_opening(mut self, plies: u32) -> Env {
        self.random_opening = plies;
        self
    }

    /// Start a new game. `Some(seed)` restarts the random stream from `seed`; `None` goes on with
    /// the current stream, as Gymnasium does. Returns the first state.
    pub fn reset(&mut self, seed: Option<u64>) -> &State {
        if let Some(seed) = seed {
            self.rng = ChaCha8Rng::seed_from_u64(seed);
        }
        self.state = random_opening(&self.rules, self.random_opening, &mut self.rng);
        &self.state
    }

    /// Play `action` for the player to move.
    ///
    /// An illegal or out-of-range action, or a step after the game is over (terminated or
    /// truncated) without a reset, is an error and leaves the game as it was.
    pub fn step(&mut self, action: usize) -> Result<Step, Error> {
        let (next, info) = self.state.play_with_info(action)?;
        self.state = next;
        let outcome = next.outcome();
        let mut mask = vec![false; self.rules.holes()];
        next.write_mask(&mut mask);
        Ok(Step {
            observation: next.observation(),
            mask,
            rewards: ByPlayer::new(outcome.reward(Player::South), outcome.reward(Player::North)),
            terminated: next.is_terminal(),
            truncated: next.is_truncated(),
            to_move: next.to_move(),
            info,
        })
    }

    /// A uniformly random legal action from the environment's stream.
    pub fn sample_action(&mut self) -> Option<usize> {
        random_action(&self.state, &mut self.rng)
    }

    /// The current state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
}

#[cfg(test)]
mod tests {
    use super::nth_set_bit;

    #[test]
    fn nth_set_bit_walks_every_mask() {
        for mask in 1..=u16::MAX {
            let places: Vec<usize> = (0..16).filter(|&i| mask >> i & 1 == 1).collect();
            for (k, &place) in places.iter().enumerate() {
                assert_eq!(nth_set_bit(mask, k as u32), place, "mask {mask:#b}, k {k}");
            }
        }
    }
}
