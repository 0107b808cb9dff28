//! What the network tests share: positions of random games.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_env::{Rules, State, random_action};

/// Positions from random games of `rules` (seeded), none of them over, some with illegal actions.
pub fn positions(rules: &Rules, count: usize, seed: u64) -> Vec<State> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut s = State::initial(rules);
        while !s.is_over() && out.len() < count {
            out.push(s);
            let a = random_action(&s, &mut rng).expect("a game not over has a move");
            s = s.play(a).expect("random actions are legal");
        }
    }
    out
}
