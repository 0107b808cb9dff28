//! Every way the engine refuses input. Each message says what was wrong and what is allowed.

use crate::outcome::Outcome;
use crate::preset::PRESETS;
use std::fmt;

/// Why a move cannot be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    /// The mover's hole for this action holds no seeds.
    EmptyHole,
    /// Its sowing never ends (see "Endless moves" in `RULES.md`).
    Endless,
}

/// An error from the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A rules field outside what the engine can hold.
    InvalidRules {
        /// The field, as named in `RULES.md`.
        field: &'static str,
        /// The value given.
        value: String,
        /// The values allowed.
        allowed: String,
    },
    /// A variant name that is not a preset.
    UnknownVariant {
        /// The name given.
        name: String,
    },
    /// Text that is not valid JSON or TOML for what was expected.
    Parse {
        /// `JSON` or `TOML`.
        format: &'static str,
        /// The parser's message, with its position.
        message: String,
    },
    /// An action outside `0..holes`.
    ActionOutOfRange {
        /// The action given.
        action: i128,
        /// Holes per row: actions are `0..holes`.
        holes: usize,
    },
    /// An action in range that the rules do not allow now.
    IllegalAction {
        /// The action given.
        action: usize,
        /// Why it is illegal.
        reason: IllegalReason,
        /// The actions that are legal now.
        legal: Vec<usize>,
    },
    /// A move asked for after the game has ended or been truncated.
    GameOver {
        /// How it ended.
        outcome: Outcome,
    },
    /// A batched call whose arguments do not fit the batch.
    Batch {
        /// What was wrong.
        message: String,
    },
    /// A record whose stored result differs from what replaying its moves gives.
    RecordMismatch {
        /// What differs.
        message: String,
    },
}

impl Error {
    pub(crate) fn parse(format: &'static str, e: impl fmt::Display) -> Error {
        Error::Parse {
            format,
            message: e.to_string().trim().to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidRules {
                field,
                value,
                allowed,
            } => {
                write!(f, "invalid rules: {field} = {value}; allowed: {allowed}")
            }
            Error::UnknownVariant { name } => {
                write!(
                    f,
                    "unknown variant {name:?}; valid variants: {}",
                    PRESETS.join(", ")
                )
            }
            Error::Parse { format, message } => write!(f, "invalid {format}: {message}"),
            Error::ActionOutOfRange { action, holes } => write!(
                f,
                "action {action} is out of range; actions are 0 to {} (the mover's holes, from their left)",
                holes - 1
            ),
            Error::IllegalAction {
                action,
                reason,
                legal,
            } => {
                let why = match reason {
                    IllegalReason::EmptyHole => "its hole is empty",
                    IllegalReason::Endless => "its sowing never ends (an endless move)",
                };
                write!(
                    f,
                    "action {action} is illegal: {why}; legal actions: {legal:?}"
                )
            }
            Error::GameOver { outcome } => {
                write!(f, "the game is over ({outcome}); reset or start a new game")
            }
            Error::Batch { message } => f.write_str(message),
            Error::RecordMismatch { message } => write!(f, "record does not replay: {message}"),
        }
    }
}

impl std::error::Error for Error {}
