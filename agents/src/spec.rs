//! Agent specs: the strings that name an agent wherever one is chosen (`random`, `greedy`,
//! `alphabeta:6`, `alphabeta:500ms`, `mcts:1000`, `mcts:200ms`), and [`from_spec`], which makes the
//! agent. A new kind of agent is one arm in [`from_spec`] and one line in [`FORMS`].

use crate::agent::Agent;
use crate::alphabeta::AlphaBeta;
use crate::greedy::Greedy;
use crate::mcts::Mcts;
use crate::random::RandomAgent;
use std::fmt;
use std::time::Duration;

/// The forms a spec may take, shown by every [`SpecError`].
pub const FORMS: &[&str] = &[
    "random",
    "greedy",
    "alphabeta:DEPTH (e.g. alphabeta:6, depth 1 to 64)",
    "alphabeta:TIME (e.g. alphabeta:500ms or alphabeta:2s, per move)",
    "mcts:SIMULATIONS (e.g. mcts:1000, 1 to 10000000)",
    "mcts:TIME (e.g. mcts:200ms or mcts:1s, per move)",
    #[cfg(feature = "torch")]
    "az:PATH, az:PATH:SIMS, az:PATH[:SIMS]:solver=NODES (a trained network)",
];

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

/// A spec that names no agent. Its message says what was wrong and lists [`FORMS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The spec given.
    pub spec: String,
    /// What was wrong with it.
    pub reason: String,
}

impl SpecError {
    /// An error about `spec`, saying `reason`.
    pub fn new(spec: &str, reason: impl Into<String>) -> SpecError {
        SpecError {
            spec: spec.to_string(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid agent spec {:?}: {}; valid forms: {}",
            self.spec,
            self.reason,
            FORMS.join(", ")
        )
    }
}

impl std::error::Error for SpecError {}

/// The agent that `spec` names (see [`FORMS`]). Agents are not `Sync`: code that plays on several
/// threads calls this once per thread.
///
/// ```
/// let agent = sowing_agents::from_spec("alphabeta:4")?;
/// assert_eq!(agent.name(), "alphabeta:4");
/// assert!(sowing_agents::from_spec("alphabeta").is_err()); // the depth or time is required
/// # Ok::<(), sowing_agents::SpecError>(())
/// ```
pub fn from_spec(spec: &str) -> Result<Box<dyn Agent>, SpecError> {
    let (kind, arg) = match spec.split_once(':') {
        Some((kind, arg)) => (kind, Some(arg)),
        None => (spec, None),
    };
    match (kind, arg) {
        ("random", None) => Ok(Box::new(RandomAgent)),
        ("greedy", None) => Ok(Box::new(Greedy)),
        ("random" | "greedy", Some(_)) => {
            Err(SpecError::new(spec, format!("{kind} takes no budget")))
        }
        ("alphabeta", Some(arg)) => {
            let budget = parse_budget(spec, arg, AlphaBeta::MAX_DEPTH, "depth")?;
            Ok(Box::new(AlphaBeta::new(budget)))
        }
        ("mcts", Some(arg)) => {
            let budget = parse_budget(spec, arg, crate::mcts::MAX_SIMULATIONS, "simulations")?;
            Ok(Box::new(Mcts::new(budget)))
        }
        #[cfg(feature = "torch")]
        ("az", Some(arg)) => Ok(Box::new(crate::az::agent::from_spec_arg(spec, arg)?)),
        #[cfg(feature = "torch")]
        ("az", None) => Err(SpecError::new(
            spec,
            "az needs a checkpoint path after the colon",
        )),
        ("alphabeta" | "mcts", None) => Err(SpecError::new(
            spec,
            format!("{kind} needs a budget after a colon, a count or a time"),
        )),
        _ => Err(SpecError::new(spec, format!("unknown agent {kind:?}"))),
    }
}

/// A budget: a count `1..=max_count`, or a time `<integer>ms` or `<number>s` up to [`MAX_TIME`].
pub fn parse_budget(
    spec: &str,
    arg: &str,
    max_count: u32,
    what: &str,
) -> Result<Budget, SpecError> {
    let time = if let Some(ms) = arg.strip_suffix("ms") {
        let ms: u64 = ms.parse().map_err(|_| {
            SpecError::new(
                spec,
                format!("{arg:?} is not a whole number of milliseconds"),
            )
        })?;
        Some(Duration::from_millis(ms))
    } else if let Some(s) = arg.strip_suffix('s') {
        let secs: f64 = s
            .parse()
            .map_err(|_| SpecError::new(spec, format!("{arg:?} is not a number of seconds")))?;
        if !secs.is_finite() || secs < 0.0 || secs > MAX_TIME.as_secs_f64() {
            return Err(SpecError::new(
                spec,
                format!("time {arg:?} is out of range"),
            ));
        }
        Some(Duration::from_secs_f64(secs))
    } else {
        None
    };
    if let Some(t) = time {
        if t.is_zero() || t > MAX_TIME {
            return Err(SpecError::new(
                spec,
                format!(
                    "time {arg:?} is out of range: 1ms to {}s",
                    MAX_TIME.as_secs()
                ),
            ));
        }
        return Ok(Budget::Time(t));
    }
    match arg.parse::<u32>() {
        Ok(n) if (1..=max_count).contains(&n) => Ok(Budget::Count(n)),
        Ok(n) => Err(SpecError::new(
            spec,
            format!("{what} {n} is out of range: 1 to {max_count}"),
        )),
        Err(_) => Err(SpecError::new(
            spec,
            format!("{arg:?} is neither a {what} count nor a time such as 500ms"),
        )),
    }
}
