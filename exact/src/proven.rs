//! Proven starts: the perfect-play value of rule sets whose start has been solved, shipped with
//! the project in `data/proven.json` so that every tool can say what is known at any budget (the
//! solved column of `sowing compare`, `sowing solved --proven`), instead of proving it again.
//!
//! Each entry holds the rules, the winner, South's forced final lead (exact, or a lower bound),
//! the first move that keeps it, how it was proven and the command that proves it again. The
//! file is read once and checked: a winner agrees with the sign of its lead, a lead has the
//! parity of the seeds, a first move is a hole of the board, and no two entries play the same game
//! tree. A test proves the cheapest entries again with the solver and an independently built
//! table, so the file cannot drift from what the code proves.

use serde::{Deserialize, Serialize};
use sowing_env::{Error, Rules, RulesSpec};
use std::sync::OnceLock;

/// The shipped file, compiled in so that an installed binary needs no data folder.
const SHIPPED: &str = include_str!("../../data/proven.json");

/// Who wins the start under perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Winner {
    South,
    North,
    #[serde(rename = "draw")]
    Draw,
}

impl Winner {
    /// `South`, `North` or `draw`, as the reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Winner::South => "South",
            Winner::North => "North",
            Winner::Draw => "draw",
        }
    }
}

/// One proven start, as written in the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvenStart {
    /// The preset's name, or a short name for a rules file (`cross-endodoi-6`).
    pub name: String,
    /// The rules whose start this is (fields left out take their defaults).
    pub rules: RulesSpec,
    /// Who wins.
    pub winner: Winner,
    /// South's final lead under perfect play when the winner forces the end (negative: North
    /// ahead); `None` when only the winner is proven.
    pub margin: Option<i32>,
    /// Whether `margin` is exact; otherwise it is a lower bound of the winner's lead.
    pub margin_exact: bool,
    /// A first move (hole 0 to holes - 1 of South's row) that keeps the value, if recorded.
    pub first_move: Option<usize>,
    /// How it was proven, e.g. "solver with a tablebase of 14 seeds".
    pub by: String,
    /// The command that proves it again.
    pub command: String,
}

impl ProvenStart {
    /// The validated rules of the entry.
    pub fn rules(&self) -> Result<Rules, Error> {
        Rules::new(self.rules)
    }

    /// The summary's cell: "South wins by 8", "South wins by 8 or more", "draw".
    pub fn cell(&self) -> String {
        match (self.winner, self.margin) {
            (Winner::Draw, _) => "draw".to_string(),
            (w, Some(m)) if self.margin_exact => format!("{} wins by {}", w.name(), m.abs()),
            (w, Some(m)) => format!("{} wins by {} or more", w.name(), m.abs()),
            (w, None) => format!("{} wins", w.name()),
        }
    }

    /// What is wrong with the entry, if anything.
    fn inconsistency(&self) -> Option<String> {
        let rules = match self.rules() {
            Ok(r) => r,
            Err(e) => return Some(e.to_string()),
        };
        let total = rules.total_seeds() as i32;
        match (self.winner, self.margin) {
            (Winner::South, Some(m)) if m <= 0 => {
                return Some(format!("South wins but South's lead is {m}"));
            }
            (Winner::North, Some(m)) if m >= 0 => {
                return Some(format!("North wins but South's lead is {m}"));
            }
            (Winner::Draw, Some(m)) if m != 0 => {
                return Some(format!("a draw with South's lead {m}"));
            }
            _ => {}
        }
        if let Some(m) = self.margin
            && (m.abs() > total || (m - total).rem_euclid(2) != 0)
        {
            return Some(format!(
                "a lead of {m} cannot end a game of {total} seeds (at most {total}, with the \
                     parity of the seeds)"
            ));
        }
        if self.margin.is_none() && self.margin_exact {
            return Some("margin_exact is true but no margin is given".to_string());
        }
        match self.first_move {
            Some(a) if a >= rules.holes() => Some(format!(
                "first move {a} is not a hole of South's row (0 to {})",
                rules.holes() - 1
            )),
            Some(_) if self.winner != Winner::South => {
                Some("a first move is recorded only for a South win".to_string())
            }
            _ => None,
        }
    }
}

/// The file's form: a note for readers and the entries.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    about: String,
    starts: Vec<ProvenStart>,
}

/// A file of proven starts that cannot be read: what was wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvenError(pub String);

impl std::fmt::Display for ProvenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "proven starts: {}", self.0)
    }
}

impl std::error::Error for ProvenError {}

/// Read and check a file of proven starts (the shipped one's form). Errors name the entry and
/// what is wrong with it.
pub fn parse(text: &str) -> Result<Vec<ProvenStart>, ProvenError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let file: File = serde_json::from_str(text).map_err(|e| {
        ProvenError(format!(
            "{} (expected {{\"about\": TEXT, \"starts\": [ENTRY, ...]}})",
            Error::cut(&e.to_string())
        ))
    })?;
    let mut seen: Vec<(usize, Rules)> = Vec::new();
    for (i, start) in file.starts.iter().enumerate() {
        let bad = |what: String| {
            ProvenError(format!(
                "entry {} ({}): {what}",
                i + 1,
                Error::quote(&start.name)
            ))
        };
        if let Some(what) = start.inconsistency() {
            return Err(bad(what));
        }
        let rules = start.rules().map_err(|e| bad(e.to_string()))?;
        if let Some((j, _)) = seen
            .iter()
            .find(|(_, r)| r.same_tree(&rules) && r.total_seeds() == rules.total_seeds())
        {
            return Err(bad(format!("the same game as entry {}", j + 1)));
        }
        seen.push((i, rules));
    }
    Ok(file.starts)
}

/// The shipped proven starts.
pub fn shipped() -> &'static [ProvenStart] {
    static STARTS: OnceLock<Vec<ProvenStart>> = OnceLock::new();
    STARTS.get_or_init(|| {
        // The file is part of the source and checked by the tests; a bad edit fails them.
        parse(SHIPPED).unwrap_or_else(|e| panic!("data/proven.json: {e}"))
    })
}

/// The proven value of the start of `rules`, if shipped: an entry playing the same game tree
/// from the same seeds (the ply cap aside, which exact play ignores).
pub fn lookup(rules: &Rules) -> Option<&'static ProvenStart> {
    shipped().iter().find(|p| {
        p.rules()
            .is_ok_and(|r| r.same_tree(rules) && r.seeds() == rules.seeds())
    })
}
