//! A leaf of the crate: [`Wdl`], a game's result for one player under perfect play, which the
//! tablebase, the exact positions and the accuracy measures all speak of.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A perfect-play result for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Wdl {
    /// The player loses against best play.
    Loss,
    /// Best play by both draws, or never ends (a truncated game has no winner).
    Draw,
    /// The player forces a win.
    Win,
}

impl Wdl {
    /// The result of a game that ends with this final margin (captures of the player minus the
    /// opponent's).
    pub fn from_margin(final_margin: i32) -> Wdl {
        match final_margin.signum() {
            1 => Wdl::Win,
            0 => Wdl::Draw,
            _ => Wdl::Loss,
        }
    }

    /// The same result seen by the opponent.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        })
    }
}
