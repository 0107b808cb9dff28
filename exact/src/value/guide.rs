//! A guide for the proof-number search: an outside judge of positions (a trained network, in
//! `sowing-agents`) whose values set the proof and disproof numbers a new leaf starts from. The
//! unguided search starts a leaf from mobility plus the seeds each side still lacks; a guide
//! adds as much again, shared out by how likely the prover is to win there, so that the search
//! goes first where the judge believes the proof lies (Kishimoto et al.'s deep proof-number
//! search initialises leaves from a value network in the same spirit).
//!
//! **Exactness is untouched.** A guide changes which leaf is expanded next, never what a leaf is
//! decided as: settled leaves (the end, the table, the transposition table, a repetition) are
//! decided before the guide is asked, and proof and disproof numbers only order the work. A guide
//! that is wrong, or adversarial, costs positions, not correctness (tested with one).
//!
//! **Where it pays.** A judgement costs a forward pass, thousands of times a plain node, so only
//! leaves at most [`Guidance::depth`] plies below the root are judged, in one batch per
//! expansion; deeper leaves start from the plain numbers, which have the same scale.

use sowing_env::{MAX_HOLES, Player, State};

/// What a guide says of a position, for the player to move there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lean {
    /// Expected result for the player to move, in `[-1, 1]` (a win +1, a loss -1).
    pub value: f32,
    /// Prior of each action (unused by the search today; a network gives it for free).
    pub priors: [f32; MAX_HOLES],
}

impl Default for Lean {
    fn default() -> Lean {
        Lean {
            value: 0.0,
            priors: [0.0; MAX_HOLES],
        }
    }
}

/// Judges positions for the proof-number search; one per searching thread.
pub trait Guide: Send {
    /// What the guide says of each of `states` (none is over), one slot of `out` each.
    fn lean(&mut self, states: &[State], out: &mut [Lean]);
}

/// Which leaves a guide judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guidance {
    /// Leaves at most this many plies below the searched position are judged.
    pub depth: u32,
}

impl Default for Guidance {
    fn default() -> Guidance {
        Guidance {
            depth: DEFAULT_DEPTH,
        }
    }
}

/// Leaves judged by default: the plies below the root where a forward pass pays (measured in
/// docs/exact.md).
pub const DEFAULT_DEPTH: u32 = 10;

/// The deepest [`Guidance::depth`] allowed (deeper is every leaf of any line the search grows).
pub const MAX_DEPTH: u32 = 600;

/// The (proof, disproof) numbers' evaluation part for a leaf the guide judged: the unguided
/// part (`to_win`, the seeds the prover lacks to pass half; `to_hold`, those the defender lacks
/// to reach half) plus their sum again, shared out by the prover's chance to win, `(1 + value)
/// / 2` seen from the prover. The seeds stay in: replacing them by the judgement alone spent
/// more positions than no guide (docs/exact.md).
pub(crate) fn shares(
    lean: &Lean,
    mover: Player,
    prover: Player,
    to_win: u32,
    to_hold: u32,
) -> (u32, u32) {
    let value = if lean.value.is_finite() {
        lean.value.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let win = if mover == prover { value } else { -value };
    let chance = (1.0 + win) / 2.0;
    let total = (to_win + to_hold) as f32;
    let proof = to_win + (total * (1.0 - chance)).round() as u32;
    let disproof = to_hold + (total * chance).round() as u32;
    (proof, disproof)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lean(value: f32) -> Lean {
        Lean {
            value,
            ..Lean::default()
        }
    }

    #[test]
    fn a_sure_win_for_the_prover_makes_the_proof_cheap_and_the_disproof_dear() {
        let s = Player::South;
        let n = Player::North;
        assert_eq!(shares(&lean(1.0), s, s, 10, 30), (10, 70));
        // The same position seen from the defender: the mover's loss is the prover's win.
        assert_eq!(shares(&lean(-1.0), n, s, 10, 30), (10, 70));
        assert_eq!(shares(&lean(-1.0), s, s, 10, 30), (50, 30));
        assert_eq!(shares(&lean(0.0), s, s, 10, 30), (30, 50));
        assert_eq!(shares(&lean(0.5), s, s, 20, 20), (30, 50));
    }

    #[test]
    fn values_out_of_range_or_not_numbers_are_read_safely() {
        let s = Player::South;
        assert_eq!(shares(&lean(f32::NAN), s, s, 4, 6), (9, 11));
        assert_eq!(shares(&lean(f32::INFINITY), s, s, 4, 6), (9, 11));
        assert_eq!(shares(&lean(7.0), s, s, 4, 6), (4, 16));
        assert_eq!(shares(&lean(-7.0), s, s, 0, 0), (0, 0));
    }
}
