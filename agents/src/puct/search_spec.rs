//! What one search is asked to do, as data: the PUCT settings, the kind of root, a time per
//! move. [`BatchSearch::run`](super::BatchSearch::run) takes it, the self-play config holds one,
//! and the Python binding reads it from keyword arguments; its defaults are declared here once
//! ([`SearchSpec::default`]) and its limits checked here once ([`SearchSpec::validate`]).
//!
//! Serialised flat, one field per setting (`simulations`, `c_puct`, `dirichlet_alpha`,
//! `noise_fraction`, `leaf_batch`, `root` = `"puct"` or `"gumbel"`, `considered`, `c_visit`,
//! `c_scale`, `time` in seconds or none), every field optional and unknown fields refused, so that
//! a config file or Python's keywords name each setting as a user thinks of it.

use super::gumbel::GumbelConfig;
use super::{MAX_LEAF_BATCH, PuctConfig};
use crate::budget::MAX_TIME;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// The most simulations per move: as many as the agent `az:PATH:SIMS` accepts (one constant,
/// owned by the budgets).
pub use crate::budget::MAX_NETWORK_SIMULATIONS as MAX_SIMULATIONS;

/// The most actions a Gumbel root may consider.
pub const MAX_CONSIDERED: u32 = 64;

/// How the root's move is searched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Root {
    /// AlphaZero's: PUCT at the root too, with the config's Dirichlet noise.
    Puct,
    /// Gumbel AlphaZero's sequential halving over Gumbel-sampled actions (see
    /// [`super::gumbel`]); the trees are searched afresh, and no Dirichlet noise is used.
    Gumbel(GumbelConfig),
}

/// One search's settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "SpecFields", into = "SpecFields")]
pub struct SearchSpec {
    /// Simulations (a cap, with a time), exploration, root noise and leaves per evaluation.
    pub puct: PuctConfig,
    /// The root's search.
    pub root: Root,
    /// Stop after the first round of simulations that ends past this time from the call's start
    /// (at least one round is run, so the roots have children to choose from); `None`: run
    /// every simulation. The clock is read once per round, which costs little beside a batch's
    /// evaluation.
    pub time: Option<Duration>,
}

impl Default for SearchSpec {
    /// 64 simulations, c_puct 0.5 (low, because the look-ahead input makes the priors sharp: at
    /// 64 simulations 0.3-0.75 played best against mcts:1000, 1.5 and 3 worse), Dirichlet(1)
    /// noise of weight 0 (a player's search; self-play sets its own), one leaf per evaluation,
    /// a PUCT root, no time.
    fn default() -> SearchSpec {
        SearchSpec {
            puct: PuctConfig {
                simulations: 64,
                c_puct: 0.5,
                dirichlet_alpha: 1.0,
                noise_fraction: 0.0,
                leaf_batch: 1,
            },
            root: Root::Puct,
            time: None,
        }
    }
}

impl From<PuctConfig> for SearchSpec {
    /// A PUCT search of `puct`, without a time.
    fn from(puct: PuctConfig) -> SearchSpec {
        SearchSpec {
            puct,
            root: Root::Puct,
            time: None,
        }
    }
}

/// A setting out of its range: which, what it was, what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The setting, as serialised (a Python keyword).
    pub field: &'static str,
    /// The value given.
    pub value: String,
    /// What is allowed.
    pub allowed: &'static str,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} must be {}, got {}",
            self.field, self.allowed, self.value
        )
    }
}

impl std::error::Error for SpecError {}

/// `Err` naming `field` when `ok` is false.
pub(crate) fn check(
    ok: bool,
    field: &'static str,
    value: impl fmt::Display,
    allowed: &'static str,
) -> Result<(), SpecError> {
    match ok {
        true => Ok(()),
        false => Err(SpecError {
            field,
            value: value.to_string(),
            allowed,
        }),
    }
}

impl SearchSpec {
    /// Refuse settings no search can run, naming the setting and its range.
    pub fn validate(&self) -> Result<(), SpecError> {
        let p = &self.puct;
        check(
            (1..=MAX_SIMULATIONS).contains(&p.simulations),
            "simulations",
            p.simulations,
            "1 to 1000000",
        )?;
        check(
            p.c_puct.is_finite() && p.c_puct > 0.0,
            "c_puct",
            p.c_puct,
            "a positive number",
        )?;
        check(
            p.dirichlet_alpha.is_finite() && p.dirichlet_alpha > 0.0,
            "dirichlet_alpha",
            p.dirichlet_alpha,
            "a positive number",
        )?;
        check(
            (0.0..=1.0).contains(&p.noise_fraction),
            "noise_fraction",
            p.noise_fraction,
            "0 to 1",
        )?;
        check(
            (1..=MAX_LEAF_BATCH).contains(&p.leaf_batch),
            "leaf_batch",
            p.leaf_batch,
            "1 to 256 leaves per tree and evaluation",
        )?;
        if let Root::Gumbel(g) = &self.root {
            check(
                (1..=MAX_CONSIDERED).contains(&g.considered),
                "considered",
                g.considered,
                "1 to 64",
            )?;
            check(
                g.c_visit.is_finite() && g.c_visit >= 0.0,
                "c_visit",
                g.c_visit,
                "0 or more",
            )?;
            check(
                g.c_scale.is_finite() && g.c_scale > 0.0,
                "c_scale",
                g.c_scale,
                "a positive number",
            )?;
        }
        if let Some(t) = self.time {
            check(
                !t.is_zero() && t <= MAX_TIME,
                "time",
                format!("{}", t.as_secs_f64()),
                "above 0 and at most 3600 seconds per move",
            )?;
        }
        Ok(())
    }

    /// The same search without root noise, as used when playing to win rather than to learn.
    pub fn without_noise(self) -> SearchSpec {
        SearchSpec {
            puct: self.puct.without_noise(),
            ..self
        }
    }
}

/// The root's kind as a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RootKind {
    Puct,
    Gumbel,
}

/// The flat form of a [`SearchSpec`] (see the module documentation).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct SpecFields {
    simulations: u32,
    c_puct: f32,
    dirichlet_alpha: f32,
    noise_fraction: f32,
    leaf_batch: u32,
    root: RootKind,
    considered: u32,
    c_visit: f32,
    c_scale: f32,
    /// Seconds per move.
    time: Option<f64>,
}

impl Default for SpecFields {
    fn default() -> SpecFields {
        SearchSpec::default().into()
    }
}

impl From<SearchSpec> for SpecFields {
    fn from(spec: SearchSpec) -> SpecFields {
        let p = spec.puct;
        let (root, gumbel) = match spec.root {
            Root::Puct => (RootKind::Puct, GumbelConfig::default()),
            Root::Gumbel(g) => (RootKind::Gumbel, g),
        };
        SpecFields {
            simulations: p.simulations,
            c_puct: p.c_puct,
            dirichlet_alpha: p.dirichlet_alpha,
            noise_fraction: p.noise_fraction,
            leaf_batch: p.leaf_batch,
            root,
            considered: gumbel.considered,
            c_visit: gumbel.c_visit,
            c_scale: gumbel.c_scale,
            time: spec.time.map(|t| t.as_secs_f64()),
        }
    }
}

impl TryFrom<SpecFields> for SearchSpec {
    type Error = SpecError;

    /// The spec the fields give, validated: a spec read from a file or from Python is checked
    /// where it is read.
    fn try_from(f: SpecFields) -> Result<SearchSpec, SpecError> {
        let gumbel = GumbelConfig {
            considered: f.considered,
            c_visit: f.c_visit,
            c_scale: f.c_scale,
        };
        // The considered count is checked whatever the root, as a keyword given is read.
        check(
            (1..=MAX_CONSIDERED).contains(&f.considered),
            "considered",
            f.considered,
            "1 to 64",
        )?;
        let time = match f.time {
            None => None,
            Some(s) => {
                check(
                    s.is_finite() && s > 0.0 && s <= MAX_TIME.as_secs_f64(),
                    "time",
                    s,
                    "above 0 and at most 3600 seconds per move",
                )?;
                Some(Duration::from_secs_f64(s))
            }
        };
        let spec = SearchSpec {
            puct: PuctConfig {
                simulations: f.simulations,
                c_puct: f.c_puct,
                dirichlet_alpha: f.dirichlet_alpha,
                noise_fraction: f.noise_fraction,
                leaf_batch: f.leaf_batch,
            },
            root: match f.root {
                RootKind::Puct => Root::Puct,
                RootKind::Gumbel => Root::Gumbel(gumbel),
            },
            time,
        };
        spec.validate()?;
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flat_form_round_trips_and_omitted_fields_take_the_defaults() {
        let spec: SearchSpec = serde_json::from_str("{}").unwrap();
        assert_eq!(spec, SearchSpec::default());
        let given: SearchSpec =
            serde_json::from_str(r#"{"simulations": 200, "root": "gumbel", "time": 0.5}"#).unwrap();
        assert_eq!(given.puct.simulations, 200);
        assert_eq!(given.root, Root::Gumbel(GumbelConfig::default()));
        assert_eq!(given.time, Some(Duration::from_millis(500)));
        let text = serde_json::to_string(&given).unwrap();
        assert_eq!(serde_json::from_str::<SearchSpec>(&text).unwrap(), given);
    }

    #[test]
    fn bad_settings_are_refused_naming_the_field_and_its_range() {
        for (json, message) in [
            (
                r#"{"simulations": 0}"#,
                "simulations must be 1 to 1000000, got 0",
            ),
            (r#"{"c_puct": -1.0}"#, "c_puct must be a positive number"),
            (
                r#"{"noise_fraction": 2.0}"#,
                "noise_fraction must be 0 to 1",
            ),
            (r#"{"leaf_batch": 300}"#, "leaf_batch must be 1 to 256"),
            (r#"{"considered": 0}"#, "considered must be 1 to 64"),
            (r#"{"time": 0}"#, "time must be above 0"),
            (r#"{"time": 1e9}"#, "at most 3600 seconds"),
            (r#"{"simulation": 5}"#, "unknown field `simulation`"),
        ] {
            let e = serde_json::from_str::<SearchSpec>(json).unwrap_err();
            assert!(e.to_string().contains(message), "{json}: {e}");
        }
    }
}
