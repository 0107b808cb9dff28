//! The observation: what a policy sees of a state, relative to the player to move, so that one
//! network serves both sides.
//!
//! For `n` holes per row the vector has `2n + 2` values (`f32`), each divided by the seeds in
//! play (`2n * seeds`), so every value lies in `[0, 1]`:
//!
//! | index        | value                                                               |
//! |--------------|---------------------------------------------------------------------|
//! | `0..n`       | the mover's row, from the mover's left: index `a` is action `a`'s hole |
//! | `n..2n`      | the opponent's row in the mover's sowing order (opponent's left first) |
//! | `2n`         | seeds captured by the mover                                         |
//! | `2n + 1`     | seeds captured by the opponent                                      |
//!
//! The board part is the absolute board turned by `mover * n` holes: for South it is holes
//! `0..2n` as they are, for North holes `n..2n` then `0..n`.

use crate::state::State;

/// Write `state`'s observation into `out`.
///
/// # Panics
/// If `out.len()` is not `state.rules().observation_len()`.
#[inline]
pub fn encode(state: &State, out: &mut [f32]) {
    let rules = state.rules();
    let n = rules.holes();
    let ring = 2 * n;
    assert_eq!(
        out.len(),
        ring + 2,
        "observation buffer must hold 2n + 2 = {} values",
        ring + 2
    );
    let scale = 1.0 / rules.total_seeds() as f32;
    let mover = state.to_move();
    let offset = mover.index() * n;
    let cells = state.board().bytes();
    // The mover's row first: holes offset..ring, then 0..offset.
    let (own, rest) = out[..ring].split_at_mut(ring - offset);
    for (slot, &c) in own.iter_mut().zip(&cells[offset..ring]) {
        *slot = c as f32 * scale;
    }
    for (slot, &c) in rest.iter_mut().zip(&cells[..offset]) {
        *slot = c as f32 * scale;
    }
    out[ring] = state.captured(mover) as f32 * scale;
    out[ring + 1] = state.captured(!mover) as f32 * scale;
}

/// The observation of a state, here beside its encoding so that the state needs nothing from it.
impl State {
    /// The observation, relative to the player to move (see [the module docs](crate::observation)).
    pub fn observation(&self) -> Vec<f32> {
        let mut out = vec![0.0; self.rules().observation_len()];
        self.write_observation(&mut out);
        out
    }

    /// Write the observation into `out`, which must hold `rules().observation_len()` values.
    ///
    /// # Panics
    /// If `out` has another length.
    #[inline]
    pub fn write_observation(&self, out: &mut [f32]) {
        encode(self, out);
    }
}
