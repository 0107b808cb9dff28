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
    /// The budget as written in a spec: `6`, `500ms`, `2s`; a time that is not a whole number
    /// of milliseconds (`0.0005s` as given) in seconds with every digit it has, so that the spec
    /// reads back as the same budget.
    pub fn spec(&self) -> String {
        match self {
            Budget::Count(n) => n.to_string(),
            Budget::Time(t) if t.subsec_nanos() == 0 => format!("{}s", t.as_secs()),
            Budget::Time(t) if t.subsec_nanos() % 1_000_000 == 0 => format!("{}ms", t.as_millis()),
            Budget::Time(t) => {
                let fraction = format!("{:09}", t.subsec_nanos());
                format!("{}.{}s", t.as_secs(), fraction.trim_end_matches('0'))
            }
        }
    }
}

/// The longest time budget accepted, per move.
pub const MAX_TIME: Duration = Duration::from_secs(3600);

/// The most PUCT simulations per move a network's search may be given, by an `az:` spec or by
/// the settings a checkpoint was trained with.
pub const MAX_NETWORK_SIMULATIONS: u32 = 1_000_000;
