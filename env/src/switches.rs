//! The two rule switches a variant names besides its size: what happens to the seed that makes a
//! capture ([`Trigger`]) and which way each lap is sown ([`Direction`]). Words of `RULES.md`,
//! spelled in files and dicts as they are there (`take`/`leave`, `ccw`/`parity`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// What happens to the seed that makes a capture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// The capturing seed is captured too (En Dodoi, Cross-Endodoi).
    #[default]
    Take,
    /// The capturing seed stays in its hole (Sadeqa).
    Leave,
}

/// Which way each lap is sown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Every lap counter-clockwise, towards higher hole numbers.
    #[default]
    Ccw,
    /// Cross-Endodoi: a lap of an odd number of seeds goes clockwise, an even one counter-clockwise.
    Parity,
}

impl Trigger {
    /// The word of `RULES.md`: `take` or `leave`.
    pub fn name(self) -> &'static str {
        match self {
            Trigger::Take => "take",
            Trigger::Leave => "leave",
        }
    }
}

impl Direction {
    /// The word of `RULES.md`: `ccw` or `parity`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Ccw => "ccw",
            Direction::Parity => "parity",
        }
    }
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
