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
    /// A position that its rules cannot hold: a board of another size, seeds that do not add
    /// up to the rules' total, a ply past `max_plies`.
    InvalidPosition {
        /// The part of the position (`board`, `ply`).
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
    /// The most characters of someone's input that a message repeats: a longer input is cut to
    /// this many, with its length.
    pub const ECHO_CHARS: usize = 200;

    pub(crate) fn parse(format: &'static str, e: impl fmt::Display) -> Error {
        Error::Parse {
            format,
            message: Error::cut_lines(e.to_string().trim()),
        }
    }

    /// A parser's message, which may repeat the input (a string value, the line of a TOML
    /// error), with each line longer than twice [`Error::ECHO_CHARS`] cut: its start and its
    /// length, then its end, where the parser says what it expected and where.
    pub fn cut_lines(message: &str) -> String {
        message
            .lines()
            .map(|line| {
                let chars = line.chars().count();
                if chars <= 2 * Error::ECHO_CHARS {
                    return line.to_string();
                }
                let tail: String = line.chars().skip(chars - Error::ECHO_CHARS / 2).collect();
                format!("{}...{tail}", Error::cut(line))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `input` as a message repeats it: whole when at most [`Error::ECHO_CHARS`] characters, else its
    /// first [`Error::ECHO_CHARS`] characters and its length (`xxxx... (52428800 bytes)`), so that a
    /// huge input (a 50 MB line, a 10 MB rules file) is not echoed back whole.
    pub fn cut(input: &str) -> std::borrow::Cow<'_, str> {
        match input.char_indices().nth(Error::ECHO_CHARS) {
            None => std::borrow::Cow::Borrowed(input),
            Some((end, _)) => {
                std::borrow::Cow::Owned(format!("{}... ({} bytes)", &input[..end], input.len()))
            }
        }
    }

    /// `input` quoted for a message, its escapes shown, and cut as [`Error::cut`] cuts it:
    /// `"banana"`, or `"xxxx"... (52428800 bytes)`.
    pub fn quote(input: &str) -> String {
        match input.char_indices().nth(Error::ECHO_CHARS) {
            None => format!("{input:?}"),
            Some((end, _)) => format!("{:?}... ({} bytes)", &input[..end], input.len()),
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
            Error::InvalidPosition {
                field,
                value,
                allowed,
            } => {
                write!(f, "invalid position: {field} = {value}; allowed: {allowed}")
            }
            Error::UnknownVariant { name } => {
                write!(
                    f,
                    "unknown variant {}; valid variants: {}",
                    Error::quote(name),
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
