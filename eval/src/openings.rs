//! Openings dealt without repeats: every distinct position `K` plies from the start, in an order
//! the seed shuffles, for a match to hand out one per pair of games in turn.
//!
//! Why: a board of few moves has few short openings (en-dodoi-8 has 58 distinct positions 2
//! plies in), so pairs that draw theirs at random repeat them, and players that search by a
//! clock replay the same games: the demo's 200-game match against `alphabeta:200ms` held 47
//! distinct openings and 130 distinct games, so its interval, which counts 200 games, was too
//! narrow. Dealt in turn, 58 pairs play each opening once from both sides, and a match of any
//! length weighs them as evenly as its length allows.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use sowing_env::{Rules, State};
use std::collections::HashSet;

/// The most openings a list may hold; beyond it random draws seldom repeat anyway.
pub const MAX_OPENINGS: usize = 100_000;

/// Every distinct position reached by `plies` legal moves from the start of `rules` that leaves
/// the game going, as the moves of the first sequence (lowest actions first) that reaches it,
/// shuffled by `rng`. An error when there are more than [`MAX_OPENINGS`] or none.
pub fn distinct_openings(
    rules: &Rules,
    plies: u32,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Vec<usize>>, String> {
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    let mut moves = Vec::with_capacity(plies as usize);
    walk(
        &State::initial(rules),
        plies,
        &mut moves,
        &mut seen,
        &mut found,
    )?;
    if found.is_empty() {
        return Err(format!(
            "no opening of {plies} plies leaves the game going in these rules; give a shorter \
             opening"
        ));
    }
    // Fisher-Yates, from the last entry down.
    for i in (1..found.len()).rev() {
        let j = rng.random_range(0..=i);
        found.swap(i, j);
    }
    Ok(found)
}

/// Depth first from `state`, `left` plies to go, `moves` the way here.
fn walk(
    state: &State,
    left: u32,
    moves: &mut Vec<usize>,
    seen: &mut HashSet<State>,
    found: &mut Vec<Vec<usize>>,
) -> Result<(), String> {
    if state.is_over() {
        return Ok(());
    }
    if left == 0 {
        if seen.insert(*state) {
            if found.len() == MAX_OPENINGS {
                return Err(format!(
                    "these rules have more than {MAX_OPENINGS} distinct openings of {} plies, \
                     too many to deal without repeats (where random draws seldom repeat \
                     anyway): draw them at random, or give a shorter opening",
                    moves.len()
                ));
            }
            found.push(moves.clone());
        }
        return Ok(());
    }
    for a in state.legal_actions() {
        moves.push(a);
        walk(&state.play_unchecked(a), left - 1, moves, seen, found)?;
        moves.pop();
    }
    Ok(())
}
