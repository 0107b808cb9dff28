//! A variant is data: the [`Rules`] of one game, read from a preset, a file or a dict, and the
//! validation that refuses a rule set the engine cannot hold.
//!
//! Every field is the one named in `RULES.md`, defined once in [`RulesSpec`]. A `Rules` value is
//! always valid: the only ways to get one are the presets, [`Rules::new`] from a `RulesSpec`, and
//! deserialisation, and all of them validate.

use crate::error::Error;
use crate::preset::Preset;
use crate::switches::{Direction, Trigger};
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

/// The unvalidated form of [`Rules`], as written in a JSON or TOML file or a Python dict: the one
/// definition of the rules fields, their spelling and their defaults. Only `holes` and `seeds` are
/// required; the rest take the defaults of `RULES.md`. Reading one refuses unknown fields, and
/// through [`Rules::from_json`] and [`Rules::from_toml`] every error names the field it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a rule set, an object of fields such as holes and seeds"
)]
pub struct RulesSpec {
    /// Holes per row, 1 to 16.
    pub holes: u32,
    /// Seeds per hole at the start; the board may hold at most 255 seeds in all.
    pub seeds: u32,
    /// `take` (default) or `leave`.
    #[serde(default)]
    pub trigger: Trigger,
    /// `ccw` (default) or `parity`.
    #[serde(default)]
    pub direction: Direction,
    /// Whether a lap that goes all the way round skips the hole it was lifted from (default false).
    #[serde(default)]
    pub skip_origin: bool,
    /// Laps after which a move that has not ended is endless (default 10,000).
    #[serde(default = "default_max_laps")]
    pub max_laps: u32,
    /// Moves after which a game still going is truncated (default 1,000).
    #[serde(default = "default_max_plies")]
    pub max_plies: u32,
}

fn default_max_laps() -> u32 {
    Rules::DEFAULT_MAX_LAPS
}

fn default_max_plies() -> u32 {
    Rules::DEFAULT_MAX_PLIES
}

impl RulesSpec {
    /// `holes` and `seeds`, every other field at its default.
    pub fn new(holes: u32, seeds: u32) -> RulesSpec {
        RulesSpec {
            holes,
            seeds,
            trigger: Trigger::default(),
            direction: Direction::default(),
            skip_origin: false,
            max_laps: default_max_laps(),
            max_plies: default_max_plies(),
        }
    }
}

/// The rules fields that shape the game tree (which moves there are and where they lead), in
/// the order a difference is reported: tables and the exact searches serve any rules that agree
/// on them. `seeds` (a table's positions hold any number) and `max_plies` (the exact searches
/// ignore the cap) do not. A new rule switch that changes the moves belongs here; a test fails
/// when a field of [`RulesSpec`] is in neither list.
pub const TREE_FIELDS: &[&str] = &["holes", "trigger", "direction", "skip_origin", "max_laps"];

/// The rules fields that leave the game tree as it is (see [`TREE_FIELDS`]).
pub const OUTSIDE_TREE_FIELDS: &[&str] = &["seeds", "max_plies"];

impl Rules {
    /// The default lap cap of `RULES.md`.
    pub const DEFAULT_MAX_LAPS: u32 = 10_000;
    /// The default ply cap of `RULES.md`.
    pub const DEFAULT_MAX_PLIES: u32 = 1_000;

    /// Rules from their fields, validated.
    pub fn new(spec: RulesSpec) -> Result<Rules, Error> {
        Rules::try_from(spec)
    }

    /// A preset by name (see [`Preset::ALL`]); the error lists the valid names.
    pub fn preset(name: &str) -> Result<Rules, Error> {
        let p = Preset::find(name).ok_or_else(|| Error::UnknownVariant {
            name: name.to_string(),
        })?;
        Rules::new(RulesSpec {
            trigger: p.trigger,
            direction: p.direction,
            ..RulesSpec::new(p.holes.into(), p.seeds.into())
        })
    }

    /// The rules from JSON, e.g. `{"holes": 8, "seeds": 4, "trigger": "leave"}`, after a UTF-8
    /// byte order mark if there is one (editors on Windows write it). Text that does not read as
    /// a rule set is [`Error::Parse`]; a rule set the engine cannot hold is
    /// [`Error::InvalidRules`].
    pub fn from_json(text: &str) -> Result<Rules, Error> {
        let text = without_bom(text);
        let mut reader = serde_json::Deserializer::from_str(text);
        let spec: RulesSpec = serde_path_to_error::deserialize(ObjectOnly(&mut reader))
            .map_err(|e| Error::parse("JSON", e))?;
        reader.end().map_err(|e| Error::parse("JSON", e))?;
        Rules::new(spec)
    }

    /// The rules from TOML, e.g. `holes = 8` and `seeds = 4` on two lines; errors as
    /// [`Rules::from_json`].
    pub fn from_toml(text: &str) -> Result<Rules, Error> {
        // Syntax first, with the position of the error; then the fields, read as JSON values so
        // that their errors read as JSON's do, naming the field.
        let table: toml::Table =
            toml::from_str(without_bom(text)).map_err(|e| Error::parse("TOML", e))?;
        let fields = serde_json::to_value(table).map_err(|e| Error::parse("TOML", e))?;
        let spec: RulesSpec =
            serde_path_to_error::deserialize(fields).map_err(|e| Error::parse("TOML", e))?;
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
    /// Whether `self` and `other` have the same game tree: they agree on every field of
    /// [`TREE_FIELDS`]. For the hot path of a table's probe: one comparison of the rules with
    /// the other fields set aside.
    #[inline]
    pub fn same_tree(&self, other: &Rules) -> bool {
        let bare = |r: &Rules| Rules {
            seeds: 0,
            max_plies: 0,
            ..*r
        };
        bare(self) == bare(other)
    }

    /// The first field of [`TREE_FIELDS`] in which `self` and `other` differ, with the two
    /// values as rules files write them; `None` for the same game tree.
    pub fn tree_difference(&self, other: &Rules) -> Option<(&'static str, String, String)> {
        let (a, b) = (
            serde_json::to_value(self.spec()).expect("rules serialise"),
            serde_json::to_value(other.spec()).expect("rules serialise"),
        );
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        TREE_FIELDS
            .iter()
            .find(|f| a[**f] != b[**f])
            .map(|f| (*f, text(&a[*f]), text(&b[*f])))
    }

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
            self.holes, self.seeds, self.trigger, self.direction
        );
        if self.skip_origin {
            s.push_str(", skip origin");
        }
        s
    }
}

/// `text` without the UTF-8 byte order mark it may start with: editors on Windows write one, and
/// JSON and TOML parsers take it for a stray character.
pub(crate) fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// A reader that offers a struct only as an object of named fields: a derived struct would also
/// take a list of its fields' values, which no rules file means.
struct ObjectOnly<D>(D);

impl<'de, D: serde::Deserializer<'de>> serde::Deserializer<'de> for ObjectOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(visitor)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rules_field_is_in_the_game_tree_or_outside_it() {
        let spec = Rules::preset("en-dodoi-6").unwrap().spec();
        let fields: Vec<String> = match serde_json::to_value(spec).unwrap() {
            serde_json::Value::Object(map) => map.keys().cloned().collect(),
            other => panic!("rules serialise as an object, got {other}"),
        };
        for field in &fields {
            let inside = TREE_FIELDS.contains(&field.as_str());
            let outside = OUTSIDE_TREE_FIELDS.contains(&field.as_str());
            assert!(
                inside != outside,
                "{field}: list it in TREE_FIELDS (it changes the moves) or in OUTSIDE_TREE_FIELDS"
            );
        }
        assert_eq!(fields.len(), TREE_FIELDS.len() + OUTSIDE_TREE_FIELDS.len());
    }

    #[test]
    fn the_game_tree_is_compared_field_by_field() {
        let base = Rules::preset("en-dodoi-6").unwrap();
        let with = |change: &dyn Fn(&mut RulesSpec)| {
            let mut spec = base.spec();
            change(&mut spec);
            Rules::new(spec).unwrap()
        };
        let more_seeds = with(&|s| s.seeds = 3);
        let longer = with(&|s| s.max_plies = 50);
        assert!(base.same_tree(&more_seeds) && base.same_tree(&longer));
        assert_eq!(base.tree_difference(&more_seeds), None);
        for (rules, field, a, b) in [
            (with(&|s| s.holes = 7), "holes", "6", "7"),
            (
                with(&|s| s.trigger = Trigger::Leave),
                "trigger",
                "take",
                "leave",
            ),
            (
                with(&|s| s.direction = Direction::Parity),
                "direction",
                "ccw",
                "parity",
            ),
            (
                with(&|s| s.skip_origin = true),
                "skip_origin",
                "false",
                "true",
            ),
            (with(&|s| s.max_laps = 9), "max_laps", "10000", "9"),
        ] {
            assert!(!base.same_tree(&rules), "{field}");
            assert_eq!(
                base.tree_difference(&rules),
                Some((field, a.to_string(), b.to_string()))
            );
        }
    }
}
