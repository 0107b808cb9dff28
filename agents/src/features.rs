//! The input of a policy-value network, one definition for every board size and for both sides of
//! the language boundary: the tch network of the trainer reads it, and so does a Python network
//! that the batched search ([`crate::puct`]) hands it as a float32 array.
//!
//! For `n` holes per row: the observation of `sowing_env::observation` (`2n + 2` values) scaled
//! so that an average hole reads 1; with `lookahead`, three values per action from playing it
//! (see [`encode_input`]); last the legal mask (`n` values, 1 or 0), so the network sees which
//! moves are endless.

use sowing_env::{SownMoves, State};

/// Length of the input vector for `holes` holes per row: observation `2n + 2`, look-ahead `3n`
/// if any, legal mask `n`.
pub fn input_len(holes: usize, lookahead: bool) -> usize {
    let features = if lookahead { 3 } else { 0 };
    (3 + features) * holes + 2
}

/// Write the network input for `state` into `out` (length [`input_len`] of the state's holes,
/// with `lookahead` or without).
///
/// Where a relay sowing ends is a chaotic function of the whole board, which a small network
/// learns slowly while exact play sees it at once; so with `lookahead` each action `a` adds what
/// playing it does, read off the engine: the seeds it captures, the most the opponent can then
/// capture in one move, and, when it ends the game, the result for the mover (+1, 0 or -1).
/// Captures are scaled as the board is (an average hole's seeds read 1); an illegal action reads
/// 0 on all three.
pub fn encode_input(state: &State, lookahead: bool, out: &mut [f32]) {
    let n = state.holes();
    let obs_len = 2 * n + 2;
    state.write_observation(&mut out[..obs_len]);
    // The observation divides by all seeds in play; multiplying by the hole count makes an
    // average hole 1, a scale the first layer learns from more easily than 1/48.
    let scale = (2 * n) as f32;
    for x in &mut out[..obs_len] {
        *x *= scale;
    }
    let mut at = obs_len;
    if lookahead {
        let seeds = scale / state.rules().total_seeds() as f32;
        let features = &mut out[at..at + 3 * n];
        features.fill(0.0);
        let mut sown = SownMoves::new();
        state.sow_legal(&mut sown);
        let captures = state.move_captures(&sown);
        for a in state.legal_actions() {
            // Each child is played from the kept sowings, and its own sowings, kept in turn,
            // give the opponent's captures without sowing again.
            let mut after = sown;
            let child = state.play_sown(a, &mut after);
            features[a] = f32::from(captures[a]) * seeds;
            if child.is_over() {
                features[2 * n + a] = child.outcome().reward(state.to_move());
            } else {
                let reply = child.move_captures(&after).into_iter().max().unwrap_or(0);
                features[n + a] = f32::from(reply) * seeds;
            }
        }
        at += 3 * n;
    }
    let legal = state.legal_mask();
    for (a, x) in out[at..at + n].iter_mut().enumerate() {
        *x = f32::from(legal >> a & 1 == 1);
    }
}
