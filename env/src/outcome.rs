//! How a game stands: going on, won, drawn, or cut off by the ply cap, and what that is worth to
//! each player.

use crate::player::Player;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "result", content = "winner")]
pub enum Outcome {
    /// The game goes on.
    Ongoing,
    /// The game has ended (terminated) and this player captured more seeds.
    Won(Player),
    /// The game has ended (terminated) with equal captures.
    Draw,
    /// The game reached `max_plies` moves without ending: no winner (an RL step reports
    /// `truncated`, not `terminated`).
    Truncated,
}

impl Outcome {
    /// Whether the game ended by the rules (won or drawn), as Gymnasium's `terminated`.
    pub fn is_terminated(self) -> bool {
        matches!(self, Outcome::Won(_) | Outcome::Draw)
    }

    /// The reward for `player` at this outcome: +1 win, -1 loss, 0 draw, truncation or ongoing.
    pub fn reward(self, player: Player) -> f32 {
        match self {
            Outcome::Won(w) if w == player => 1.0,
            Outcome::Won(_) => -1.0,
            _ => 0.0,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ongoing => f.write_str("ongoing"),
            Outcome::Won(p) => write!(f, "{p} wins"),
            Outcome::Draw => f.write_str("draw"),
            Outcome::Truncated => f.write_str("truncated"),
        }
    }
}
