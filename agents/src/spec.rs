//! Agent specs: the strings that name an agent wherever one is chosen (`random`, `greedy`,
//! `alphabeta:6`, `alphabeta:500ms`, `mcts:1000`, `mcts:200ms`), and [`from_spec`], which makes the
//! agent. A new kind of agent is one arm in [`from_spec`] and one line in [`FORMS`]; the agents
//! themselves know nothing of specs.

use crate::agent::Agent;
use crate::alphabeta::AlphaBeta;
use crate::budget::{Budget, MAX_TIME};
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
        ("az", Some(arg)) => Ok(Box::new(az_agent(spec, arg)?)),
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

/// The trained-network agent of the spec argument after `az:`: `PATH`, `PATH:SIMS`,
/// `PATH:solver=NODES` or `PATH:SIMS:solver=NODES`.
#[cfg(feature = "torch")]
fn az_agent(spec: &str, arg: &str) -> Result<crate::az::AzAgent, SpecError> {
    use crate::az::{AzAgent, MAX_SOLVER_NODES, SOLVER_NODES};
    let (arg, solver) = match arg.rsplit_once(':') {
        Some((rest, option)) if option.starts_with("solver=") => {
            let nodes = option["solver=".len()..]
                .parse::<u64>()
                .ok()
                .filter(|&n| n <= MAX_SOLVER_NODES)
                .ok_or_else(|| {
                    SpecError::new(
                        spec,
                        format!("solver= takes a number of positions, 0 to {MAX_SOLVER_NODES}"),
                    )
                })?;
            (rest, nodes)
        }
        _ => (arg, SOLVER_NODES),
    };
    let (path, sims) = match arg.rsplit_once(':') {
        Some((path, sims)) if !sims.is_empty() && sims.bytes().all(|b| b.is_ascii_digit()) => {
            let sims: u32 = sims
                .parse()
                .ok()
                .filter(|&s| (1..=1_000_000).contains(&s))
                .ok_or_else(|| SpecError::new(spec, "simulations must be 1 to 1000000"))?;
            (path, Some(sims))
        }
        _ => (arg, None),
    };
    if path.is_empty() {
        return Err(SpecError::new(
            spec,
            "az needs a checkpoint path after the colon",
        ));
    }
    let agent = AzAgent::load(std::path::Path::new(path), sims)
        .map_err(|e| SpecError::new(spec, e.to_string()))?;
    Ok(agent.with_solver(solver))
}
