//! A variant is data: the [`Rules`] of one game, its presets by name, and the validation that
//! refuses a rule set the engine cannot hold.
//!
//! Every field is the one named in `RULES.md`. A `Rules` value is always valid: the only ways to
//! get one are the presets, [`Rules::builder`]-style construction through [`Rules::new`], and
//! deserialisation, and all of them validate.

use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The most holes a row may have; the board is stored in 32 bytes.
pub const MAX_HOLES: usize = 16;
/// The most seeds the whole board may hold: every hole and both captured totals are `u8`.
pub const MAX_TOTAL_SEEDS: u32 = 255;
/// The largest lap cap accepted.
pub const MAX_LAPS_LIMIT: u32 = 100_000_000;
/// The largest ply cap accepted.
pub const MAX_PLIES_LIMIT: u32 = 100_000_000;

/// What happens to the seed that makes a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// The capturing seed is captured too (En Dodoi, Cross-Endodoi).
    Take,
    /// The capturing seed stays in its hole (Sadeqa).
    Leave,
}

/// Which way each lap is sown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Every lap counter-clockwise, towards higher hole numbers.
    Ccw,
    /// Cross-Endodoi: a lap of an odd number of seeds goes clockwise, an even one counter-clockwise.
    Parity,
}

/// The rules of one game: every field of `RULES.md`.
///
/// Construct with [`Rules::preset`], [`Rules::new`] or by deserialising (JSON or TOML); all
/// validate, so a `Rules` value can always be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RulesSpec", into = "RulesSpec")]
pub struct Rules {
    holes: u8,
    seeds: u8,
    trigger: Trigger,
    direction: Direction,
    skip_origin: bool,
    max_laps: u32,
    max_plies: u32,
}

/// The unvalidated form of [`Rules`], as written in a JSON or TOML file. Only `holes` and `seeds`
/// are required; the rest take the defaults of `RULES.md`. Reading one refuses unknown fields,
/// and every error names the field it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RulesSpec {
    /// Holes per row, 1 to 16.
    pub holes: u32,
    /// Seeds per hole at the start; the board may hold at most 255 seeds in all.
    pub seeds: u32,
    /// `take` (default) or `leave`.
    pub trigger: Trigger,
    /// `ccw` (default) or `parity`.
    pub direction: Direction,
    /// Whether a lap that goes all the way round skips the hole it was lifted from (default false).
    pub skip_origin: bool,
    /// Laps after which a move that has not ended is endless (default 10,000).
    pub max_laps: u32,
    /// Moves after which a game still going is truncated (default 1,000).
    pub max_plies: u32,
}

impl RulesSpec {
    /// The field names, in the order of `RULES.md`, as files and dicts spell them.
    pub const FIELDS: [&'static str; 7] = [
        "holes",
        "seeds",
        "trigger",
        "direction",
        "skip_origin",
        "max_laps",
        "max_plies",
    ];
}

impl<'de> Deserialize<'de> for RulesSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RulesSpec, D::Error> {
        deserializer.deserialize_map(SpecVisitor)
    }
}

/// Reads a rule set field by field, so that a value of the wrong type is reported with its field
/// (serde's derived messages say only what was expected, not where).
struct SpecVisitor;

/// Reads one field's value. The value is first read as plain data, then as the field's type, so
/// that the second error carries no position of its own and the message is the field's name and
/// what was wrong with it.
fn spec_field<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    slot: &mut Option<T>,
    name: &'static str,
    value: serde_json::Value,
) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    let parsed =
        serde_json::from_value(value).map_err(|e| E::custom(format_args!("{name}: {e}")))?;
    *slot = Some(parsed);
    Ok(())
}

impl<'de> serde::de::Visitor<'de> for SpecVisitor {
    type Value = RulesSpec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a rule set: holes, seeds and optionally trigger, direction, skip_origin, max_laps, \
             max_plies",
        )
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RulesSpec, A::Error> {
        use serde::de::Error as _;
        let mut holes = None;
        let mut seeds = None;
        let mut trigger = None;
        let mut direction = None;
        let mut skip_origin = None;
        let mut max_laps = None;
        let mut max_plies = None;
        while let Some(key) = map.next_key::<String>()? {
            let value: serde_json::Value = map.next_value()?;
            match key.as_str() {
                "holes" => spec_field(&mut holes, "holes", value)?,
                "seeds" => spec_field(&mut seeds, "seeds", value)?,
                "trigger" => spec_field(&mut trigger, "trigger", value)?,
                "direction" => spec_field(&mut direction, "direction", value)?,
                "skip_origin" => spec_field(&mut skip_origin, "skip_origin", value)?,
                "max_laps" => spec_field(&mut max_laps, "max_laps", value)?,
                "max_plies" => spec_field(&mut max_plies, "max_plies", value)?,
                other => return Err(A::Error::unknown_field(other, &RulesSpec::FIELDS)),
            }
        }
        Ok(RulesSpec {
            holes: holes.ok_or_else(|| A::Error::missing_field("holes"))?,
            seeds: seeds.ok_or_else(|| A::Error::missing_field("seeds"))?,
            trigger: trigger.unwrap_or(Trigger::Take),
            direction: direction.unwrap_or(Direction::Ccw),
            skip_origin: skip_origin.unwrap_or(false),
            max_laps: max_laps.unwrap_or(Rules::DEFAULT_MAX_LAPS),
            max_plies: max_plies.unwrap_or(Rules::DEFAULT_MAX_PLIES),
        })
    }
}

/// The presets of `RULES.md`, by name, in the order `sowing variants` lists them.
pub const PRESETS: [&str; 9] = [
    "en-dodoi-6",
    "en-dodoi-7",
    "en-dodoi-8",
    "en-dodoi-9",
    "en-dodoi-10",
    "en-dodoi",
    "sadeqa-iii",
    "sadeqa-91",
    "cross-endodoi",
];

/// Where each preset's rules come from.
pub fn preset_source(name: &str) -> Option<&'static str> {
    Some(match name {
        "en-dodoi-6" | "en-dodoi-7" | "en-dodoi-8" | "en-dodoi-9" | "en-dodoi-10" => "Merker 1904",
        "en-dodoi" => "Merker 1904 (alias of en-dodoi-8)",
        "sadeqa-iii" => "Pankhurst 1971, game 92",
        "sadeqa-91" => "Pankhurst 1971, game 91",
        "cross-endodoi" => "Troyka 2002",
        _ => return None,
    })
}

impl Rules {
    /// The default lap cap of `RULES.md`.
    pub const DEFAULT_MAX_LAPS: u32 = 10_000;
    /// The default ply cap of `RULES.md`.
    pub const DEFAULT_MAX_PLIES: u32 = 1_000;

    /// Rules from their fields, validated.
    pub fn new(spec: RulesSpec) -> Result<Rules, Error> {
        Rules::try_from(spec)
    }

    /// A preset by name (see [`PRESETS`]); the error lists the valid names.
    pub fn preset(name: &str) -> Result<Rules, Error> {
        let (holes, seeds, trigger, direction) = match name {
            "en-dodoi-6" => (6, 4, Trigger::Take, Direction::Ccw),
            "en-dodoi-7" => (7, 4, Trigger::Take, Direction::Ccw),
            "en-dodoi-8" | "en-dodoi" => (8, 4, Trigger::Take, Direction::Ccw),
            "en-dodoi-9" => (9, 4, Trigger::Take, Direction::Ccw),
            "en-dodoi-10" => (10, 4, Trigger::Take, Direction::Ccw),
            "sadeqa-iii" => (8, 6, Trigger::Leave, Direction::Ccw),
            "sadeqa-91" => (8, 4, Trigger::Leave, Direction::Ccw),
            "cross-endodoi" => (6, 3, Trigger::Take, Direction::Parity),
            _ => {
                return Err(Error::UnknownVariant {
                    name: name.to_string(),
                });
            }
        };
        Rules::new(RulesSpec {
            holes,
            seeds,
            trigger,
            direction,
            skip_origin: false,
            max_laps: Rules::DEFAULT_MAX_LAPS,
            max_plies: Rules::DEFAULT_MAX_PLIES,
        })
    }

    /// The rules from JSON, e.g. `{"holes": 8, "seeds": 4, "trigger": "leave"}`. Text that does not
    /// read as a rule set is [`Error::Parse`]; a rule set the engine cannot hold is
    /// [`Error::InvalidRules`].
    pub fn from_json(text: &str) -> Result<Rules, Error> {
        let spec: RulesSpec = serde_json::from_str(text).map_err(|e| Error::parse("JSON", e))?;
        Rules::new(spec)
    }

    /// The rules from TOML, e.g. `holes = 8` and `seeds = 4` on two lines; errors as
    /// [`Rules::from_json`].
    pub fn from_toml(text: &str) -> Result<Rules, Error> {
        // Syntax first, with the position of the error; then the fields, whose errors name the
        // field (a position there would point at the table, not the value).
        let table: toml::Table = toml::from_str(text).map_err(|e| Error::parse("TOML", e))?;
        let spec: RulesSpec = toml::Value::Table(table)
            .try_into()
            .map_err(|e| Error::parse("TOML", e))?;
        Rules::new(spec)
    }

    /// The rules as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("rules always serialise")
    }

    /// The rules as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("rules always serialise")
    }

    /// A copy with other fields, validated again.
    pub fn with(&self, change: impl FnOnce(&mut RulesSpec)) -> Result<Rules, Error> {
        let mut spec = self.spec();
        change(&mut spec);
        Rules::new(spec)
    }

    /// The fields as a plain struct.
    pub fn spec(&self) -> RulesSpec {
        RulesSpec::from(*self)
    }

    /// Holes per row, `n`.
    #[inline]
    pub fn holes(&self) -> usize {
        self.holes as usize
    }
    /// Seeds per hole at the start.
    #[inline]
    pub fn seeds(&self) -> usize {
        self.seeds as usize
    }
    /// Seeds on the board at the start, and in play for the whole game.
    #[inline]
    pub fn total_seeds(&self) -> usize {
        2 * self.holes() * self.seeds()
    }
    /// What happens to the capturing seed.
    #[inline]
    pub fn trigger(&self) -> Trigger {
        self.trigger
    }
    /// Which way laps are sown.
    #[inline]
    pub fn direction(&self) -> Direction {
        self.direction
    }
    /// Whether a lap that goes all the way round skips its own emptied hole.
    #[inline]
    pub fn skip_origin(&self) -> bool {
        self.skip_origin
    }
    /// Laps after which an unfinished move is endless.
    #[inline]
    pub fn max_laps(&self) -> u32 {
        self.max_laps
    }
    /// Moves after which an unfinished game is truncated.
    #[inline]
    pub fn max_plies(&self) -> u32 {
        self.max_plies
    }
    /// Length of the observation vector: `2n + 2`.
    #[inline]
    pub fn observation_len(&self) -> usize {
        2 * self.holes() + 2
    }
    /// A short description, e.g. `2x8, 4 seeds, take, ccw`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "2x{}, {} seeds, {}, {}",
            self.holes,
            self.seeds,
            match self.trigger {
                Trigger::Take => "take",
                Trigger::Leave => "leave",
            },
            match self.direction {
                Direction::Ccw => "ccw",
                Direction::Parity => "parity",
            }
        );
        if self.skip_origin {
            s.push_str(", skip origin");
        }
        s
    }
}

impl TryFrom<RulesSpec> for Rules {
    type Error = Error;

    fn try_from(s: RulesSpec) -> Result<Rules, Error> {
        let invalid = |field: &'static str, value: u32, allowed: String| Error::InvalidRules {
            field,
            value: value.to_string(),
            allowed,
        };
        if s.holes == 0 || s.holes as usize > MAX_HOLES {
            return Err(invalid(
                "holes",
                s.holes,
                format!("1 to {MAX_HOLES} holes per row"),
            ));
        }
        let max_seeds = MAX_TOTAL_SEEDS / (2 * s.holes);
        if s.seeds == 0 || s.seeds > max_seeds {
            return Err(invalid(
                "seeds",
                s.seeds,
                format!(
                    "1 to {max_seeds} seeds per hole with {} holes per row (at most {MAX_TOTAL_SEEDS} seeds on the board)",
                    s.holes
                ),
            ));
        }
        if s.max_laps == 0 || s.max_laps > MAX_LAPS_LIMIT {
            return Err(invalid(
                "max_laps",
                s.max_laps,
                format!("1 to {MAX_LAPS_LIMIT}"),
            ));
        }
        if s.max_plies == 0 || s.max_plies > MAX_PLIES_LIMIT {
            return Err(invalid(
                "max_plies",
                s.max_plies,
                format!("1 to {MAX_PLIES_LIMIT}"),
            ));
        }
        Ok(Rules {
            holes: s.holes as u8,
            seeds: s.seeds as u8,
            trigger: s.trigger,
            direction: s.direction,
            skip_origin: s.skip_origin,
            max_laps: s.max_laps,
            max_plies: s.max_plies,
        })
    }
}

impl From<Rules> for RulesSpec {
    fn from(r: Rules) -> RulesSpec {
        RulesSpec {
            holes: r.holes as u32,
            seeds: r.seeds as u32,
            trigger: r.trigger,
            direction: r.direction,
            skip_origin: r.skip_origin,
            max_laps: r.max_laps,
            max_plies: r.max_plies,
        }
    }
}

impl FromStr for Rules {
    type Err = Error;
    /// A preset name.
    fn from_str(name: &str) -> Result<Rules, Error> {
        Rules::preset(name)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())
    }
}
