//! Games between agents, the raw material of the balance, skill-chain and sensitivity figures.
//!
//! A unit plays games `first .. first + count` of one pairing. Game `g` opens with
//! [`OPENING_PLIES`] random plies drawn from stream `g / 2`, so games `2k` and `2k + 1` share an
//! opening and differ only in who plays South; the agents then draw from stream `g` of a second
//! generator. Every game is thus fixed by the seed and its number, wherever it is played.

use super::plan::OPENING_PLIES;
use super::stats::Rate;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_agents::{Agent, from_spec};
use sowing_env::{Outcome, Player, Rules, random_opening};

/// Results of games between agent `a` and agent `b` (the same spec for self-play).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub games: u64,
    pub a_wins: u64,
    pub b_wins: u64,
    pub draws: u64,
    /// Games cut off at the ply cap: no winner, scored as draws.
    pub truncated: u64,
    pub south_wins: u64,
    pub north_wins: u64,
    pub plies: u64,
}

impl Tally {
    pub fn merge(&mut self, other: &Tally) {
        self.games += other.games;
        self.a_wins += other.a_wins;
        self.b_wins += other.b_wins;
        self.draws += other.draws;
        self.truncated += other.truncated;
        self.south_wins += other.south_wins;
        self.north_wins += other.north_wins;
        self.plies += other.plies;
    }

    /// Agent `a`'s score: a win 1, a draw or truncation one half.
    pub fn a_score(&self) -> Rate {
        Rate::new(
            self.a_wins as f64 + 0.5 * (self.draws + self.truncated) as f64,
            self.games,
        )
    }

    pub fn first_player_wins(&self) -> Rate {
        Rate::new(self.south_wins as f64, self.games)
    }

    pub fn draw_rate(&self) -> Rate {
        Rate::new(self.draws as f64, self.games)
    }
}

/// Play games `first .. first + count` of `a` against `b`; `a` plays South in even games.
pub fn play_unit(
    rules: &Rules,
    a: &str,
    b: &str,
    seed: u64,
    first: u64,
    count: u64,
) -> Result<Tally, String> {
    let make = |spec: &str| -> Result<Box<dyn Agent>, String> {
        from_spec(spec).map_err(|e| e.to_string())
    };
    let (mut agent_a, mut agent_b) = (make(a)?, make(b)?);
    let mut tally = Tally::default();
    for g in first..first + count {
        let mut opening_rng = ChaCha8Rng::seed_from_u64(seed);
        opening_rng.set_stream(g / 2);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_a9e7);
        rng.set_stream(g);
        agent_a.new_game();
        agent_b.new_game();
        let a_side = if g % 2 == 0 {
            Player::South
        } else {
            Player::North
        };
        let mut state = random_opening(rules, OPENING_PLIES, &mut opening_rng);
        while !state.is_over() {
            let mover: &mut Box<dyn Agent> = if state.to_move() == a_side {
                &mut agent_a
            } else {
                &mut agent_b
            };
            let action = mover.choose(&state, &mut rng);
            state = state.play(action).map_err(|e| {
                format!("agent {} chose a move the rules refuse: {e}", mover.name())
            })?;
        }
        tally.games += 1;
        tally.plies += state.ply() as u64;
        match state.outcome() {
            Outcome::Won(p) => {
                if p == Player::South {
                    tally.south_wins += 1;
                } else {
                    tally.north_wins += 1;
                }
                if p == a_side {
                    tally.a_wins += 1;
                } else {
                    tally.b_wins += 1;
                }
            }
            Outcome::Draw => tally.draws += 1,
            Outcome::Truncated => tally.truncated += 1,
            Outcome::Ongoing => unreachable!("the loop runs until the game is over"),
        }
    }
    Ok(tally)
}
