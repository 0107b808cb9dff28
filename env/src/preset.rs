//! The presets of `RULES.md`, in one table: everything that names, lists, describes or builds a
//! preset reads this table, so a new preset is one new row.

use crate::switches::Direction::{self, Ccw, Parity};
use crate::switches::Trigger::{self, Leave, Take};

/// A named rule set: one row of the presets table of `RULES.md`. The fields it leaves out
/// (`skip_origin`, `max_laps`, `max_plies`) take their defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// The name, as `--variant` and `Rules("...")` take it.
    pub name: &'static str,
    /// Holes per row.
    pub holes: u8,
    /// Seeds per hole at the start.
    pub seeds: u8,
    /// What happens to the capturing seed.
    pub trigger: Trigger,
    /// Which way laps are sown.
    pub direction: Direction,
    /// Where the rules come from.
    pub source: &'static str,
    /// The preset this is another name for (its rules are the same), or `None`.
    pub alias_of: Option<&'static str>,
}

/// One row of the table, with its source, not an alias.
const fn row(
    name: &'static str,
    holes: u8,
    seeds: u8,
    trigger: Trigger,
    direction: Direction,
    source: &'static str,
) -> Preset {
    Preset {
        name,
        holes,
        seeds,
        trigger,
        direction,
        source,
        alias_of: None,
    }
}

const MERKER: &str = "Merker 1904";

impl Preset {
    /// Every preset, in the order `sowing variants` lists them.
    pub const ALL: [Preset; 9] = [
        row("en-dodoi-6", 6, 4, Take, Ccw, MERKER),
        row("en-dodoi-7", 7, 4, Take, Ccw, MERKER),
        row("en-dodoi-8", 8, 4, Take, Ccw, MERKER),
        row("en-dodoi-9", 9, 4, Take, Ccw, MERKER),
        row("en-dodoi-10", 10, 4, Take, Ccw, MERKER),
        Preset {
            alias_of: Some("en-dodoi-8"),
            ..row("en-dodoi", 8, 4, Take, Ccw, MERKER)
        },
        row("sadeqa-iii", 8, 6, Leave, Ccw, "Pankhurst 1971, game 92"),
        row("sadeqa-91", 8, 4, Leave, Ccw, "Pankhurst 1971, game 91"),
        row("cross-endodoi", 6, 3, Take, Parity, "Troyka 2002"),
    ];

    /// The preset of this name.
    pub fn find(name: &str) -> Option<&'static Preset> {
        Preset::ALL.iter().find(|p| p.name == name)
    }

    /// Where its rules come from, with the preset it stands for if it is an alias, e.g.
    /// `Merker 1904 (alias of en-dodoi-8)`.
    pub fn described_source(&self) -> String {
        match self.alias_of {
            Some(target) => format!("{} (alias of {target})", self.source),
            None => self.source.to_string(),
        }
    }
}

/// The preset names, in the order of [`Preset::ALL`].
pub const PRESETS: [&str; Preset::ALL.len()] = {
    let mut names = [""; Preset::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Preset::ALL[i].name;
        i += 1;
    }
    names
};

/// Where a preset's rules come from, e.g. `Troyka 2002`; an alias names the preset it stands
/// for. `None` for a name that is not a preset.
pub fn preset_source(name: &str) -> Option<String> {
    Preset::find(name).map(Preset::described_source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_aliases_name_a_preset_of_the_same_rules() {
        for (i, p) in Preset::ALL.iter().enumerate() {
            assert!(!PRESETS[..i].contains(&p.name), "{} twice", p.name);
            if let Some(target) = p.alias_of {
                let t = Preset::find(target).expect("an alias names a preset");
                assert_eq!(t.alias_of, None, "{}: an alias of an alias", p.name);
                let rules = |p: &Preset| (p.holes, p.seeds, p.trigger, p.direction, p.source);
                assert_eq!(rules(p), rules(t), "{} differs from {target}", p.name);
            }
        }
    }

    #[test]
    fn the_source_of_an_alias_says_what_it_stands_for() {
        assert_eq!(
            preset_source("sadeqa-iii").as_deref(),
            Some("Pankhurst 1971, game 92")
        );
        assert_eq!(
            preset_source("en-dodoi").as_deref(),
            Some("Merker 1904 (alias of en-dodoi-8)")
        );
        assert_eq!(preset_source("oware"), None);
    }
}
