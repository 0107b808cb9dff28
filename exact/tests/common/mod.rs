//! Helpers shared by test files of several crates (the others include this file by its path):
//! small rule sets and all their boards, and endgame positions of random games. Each test file
//! uses only some of them.
#![allow(dead_code)]

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_env::{Rules, RulesSpec, State, random_action};
use std::ops::RangeInclusive;

/// `count` positions of random games of `variant` (stream `seed`), each the first of its game with
/// a number of seeds on the board in `seeds` and the game not over.
pub fn endgames(variant: &str, seeds: RangeInclusive<u32>, count: usize, seed: u64) -> Vec<State> {
    let rules = Rules::preset(variant).expect("a preset");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let mut s = State::initial(&rules);
        while let Some(a) = random_action(&s, &mut rng) {
            s = s.play_unchecked(a);
            if seeds.contains(&s.board().sum(0, 2 * s.holes())) && !s.is_over() {
                found.push(s);
                break;
            }
        }
    }
    found
}

/// En-dodoi-6's rules with `holes` per row and `seeds` per hole, changed by `change`.
pub fn rules(holes: u32, seeds: u32, change: impl FnOnce(&mut RulesSpec)) -> Rules {
    let mut spec = Rules::preset("en-dodoi-6").unwrap().spec();
    spec.holes = holes;
    spec.seeds = seeds;
    change(&mut spec);
    Rules::new(spec).unwrap()
}

/// Every board of `ring` holes with exactly `seeds` seeds.
pub fn boards(ring: usize, seeds: usize) -> Vec<Vec<u8>> {
    if ring == 1 {
        return vec![vec![seeds as u8]];
    }
    (0..=seeds)
        .flat_map(|first| {
            boards(ring - 1, seeds - first)
                .into_iter()
                .map(move |mut rest| {
                    rest.insert(0, first as u8);
                    rest
                })
        })
        .collect()
}
