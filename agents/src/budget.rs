//! How much a search may do per move, in the words of the agent specs: a count or a time.
//!
//! A leaf of the crate: the searches take a [`Budget`], and the specs (`spec.rs`) parse one, so
//! neither depends on the other for it.

use std::time::Duration;

/// How much a search may do per move: a count (depth for alpha-beta, simulations for MCTS) or a
/// time. A count is reproducible; a time is not, since how far a search gets in it depends on
/// the machine and its load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Search depth (alpha-beta) or simulations (MCTS).
    Count(u32),
    /// Wall-clock time per move.
    Time(Duration),
}

impl Budget {
    /// The budget as written in a spec: `6`, `500ms`, `2s`.
    pub fn spec(&self) -> String {
        match self {
            Budget::Count(n) => n.to_string(),
            Budget::Time(t) if t.as_millis() % 1000 == 0 => format!("{}s", t.as_secs()),
            Budget::Time(t) => format!("{}ms", t.as_millis()),
        }
    }
}

/// The longest time budget accepted, per move.
pub const MAX_TIME: Duration = Duration::from_secs(3600);
