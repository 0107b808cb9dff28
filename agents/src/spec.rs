//! Agent specs: the strings that name an agent wherever one is chosen (`random`, `greedy`,
//! `alphabeta:6`, `alphabeta:500ms`, `mcts:1000`, `mcts:200ms`, `az:PATH:64`, `az:PATH:50ms`),
//! and [`from_spec`], which makes the agent. After the budget come options, `KEY=VALUE`, one
//! per colon, in any order: `alphabeta:6:tb=FILE` gives the agent a tablebase,
//! `az:PATH:64:solver=0` turns the network's endgame solver off. A new kind of agent is one arm in [`from_spec`] and one line in
//! [`FORMS`]; a new option one line in [`OPTIONS`]; the agents themselves know nothing of specs.

use crate::agent::Agent;
use crate::alphabeta::AlphaBeta;
use crate::budget::{Budget, MAX_TIME};
use crate::greedy::Greedy;
use crate::mcts::Mcts;
use crate::random::RandomAgent;
use sowing_exact::shared_tablebase;
use sowing_exact::tablebase::Tablebase;
use std::fmt;
use std::sync::Arc;
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
    "az:PATH, az:PATH:SIMS, az:PATH:TIME (e.g. az:runs/demo:50ms, per move), \
     az:PATH[:SIMS|:TIME]:solver=NODES:leaves=N (a trained network)",
    "then options KEY=VALUE, each after a colon (e.g. alphabeta:6:tb=en-dodoi-6-20.tb)",
];

/// The options a spec may end with: the key, the agents that take it, what it does.
pub const OPTIONS: &[(&str, &str, &str)] = &[
    (
        "tb",
        "alphabeta, mcts, az",
        "tb=FILE: a tablebase; the agent plays perfectly where it holds the position and values \
         its search's leaves exactly where it can",
    ),
    (
        "solver",
        "az",
        "solver=NODES: the endgame solver's positions per move, 0 to 1000000000 (0: none)",
    ),
    (
        "leaves",
        "az",
        "leaves=N: leaves the search values per forward pass, 1 to 256 (default 16 with a time \
         per move, 1 with a count)",
    ),
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
        let options: Vec<String> = OPTIONS
            .iter()
            .map(|(_, agents, what)| format!("{what} ({agents})"))
            .collect();
        // The spec and the reason (which may quote part of it) cut as every message cuts
        // what it was given.
        write!(
            f,
            "invalid agent spec {}: {}; valid forms: {}; options: {}",
            sowing_env::Error::quote(&self.spec),
            sowing_env::Error::cut_lines(&self.reason),
            FORMS.join(", "),
            options.join("; ")
        )
    }
}

impl std::error::Error for SpecError {}

/// The `KEY=VALUE` options at the end of a spec, checked but for the table file, which is read
/// only once the rest of the spec is known to be good ([`Options::tablebase`]).
#[derive(Debug, Default)]
struct Options<'a> {
    /// `tb=FILE`.
    tablebase: Option<&'a str>,
    /// `solver=NODES`, read by the agent that takes it.
    solver: Option<&'a str>,
    /// `leaves=N`, read by the agent that takes it.
    leaves: Option<&'a str>,
}

impl Options<'_> {
    /// The table of `tb=FILE`, if given: read the first time, shared by every agent of this
    /// process that names it afterwards.
    fn tablebase(&self, spec: &str) -> Result<Option<Arc<Tablebase>>, SpecError> {
        self.tablebase
            .map(|file| {
                shared_tablebase(file).map_err(|e| SpecError::new(spec, format!("tb={file}: {e}")))
            })
            .transpose()
    }
}

/// Split `spec` into its head (`kind[:ARG]`) and its options: the trailing colon-separated parts
/// that hold an `=`. Each option is checked against [`OPTIONS`] and the agents that take it.
fn split_options(spec: &str) -> Result<(&str, Options<'_>), SpecError> {
    let mut head = spec;
    let mut given: Vec<(&str, &str)> = Vec::new();
    while let Some((rest, last)) = head.rsplit_once(':') {
        let Some(option) = last.split_once('=') else {
            break;
        };
        given.push(option);
        head = rest;
    }
    given.reverse();
    let kind = head.split(':').next().unwrap_or(head);
    let mut options = Options::default();
    let mut seen: Vec<&str> = Vec::new();
    for (key, value) in given {
        let Some(&(_, takers, _)) = OPTIONS.iter().find(|(k, _, _)| *k == key) else {
            return Err(SpecError::new(spec, format!("unknown option {key:?}")));
        };
        if !takers.split(", ").any(|t| t == kind) {
            return Err(SpecError::new(
                spec,
                format!("{kind} takes no option {key}= (only {takers} do)"),
            ));
        }
        if seen.contains(&key) {
            return Err(SpecError::new(
                spec,
                format!("option {key}= is given twice"),
            ));
        }
        seen.push(key);
        match key {
            "tb" => {
                if value.is_empty() {
                    return Err(SpecError::new(spec, "tb= needs the tablebase file"));
                }
                options.tablebase = Some(value);
            }
            "solver" => options.solver = Some(value),
            "leaves" => options.leaves = Some(value),
            _ => unreachable!("every key of OPTIONS is handled"),
        }
    }
    Ok((head, options))
}

/// The agent that `spec` names (see [`FORMS`] and [`OPTIONS`]). Agents are not `Sync`: code that
/// plays on several threads calls this once per thread; a tablebase named by several is read
/// once per process.
///
/// ```
/// let agent = sowing_agents::from_spec("alphabeta:4")?;
/// assert_eq!(agent.name(), "alphabeta:4");
/// assert!(sowing_agents::from_spec("alphabeta").is_err()); // the depth or time is required
/// assert!(sowing_agents::from_spec("greedy:tb=x.tb").is_err()); // greedy takes no table
/// # Ok::<(), sowing_agents::SpecError>(())
/// ```
pub fn from_spec(spec: &str) -> Result<Box<dyn Agent>, SpecError> {
    let (head, options) = split_options(spec)?;
    let (kind, arg) = match head.split_once(':') {
        Some((kind, arg)) => (kind, Some(arg)),
        None => (head, None),
    };
    match (kind, arg) {
        ("random", None) => Ok(Box::new(RandomAgent)),
        ("greedy", None) => Ok(Box::new(Greedy)),
        ("random" | "greedy", Some(_)) => {
            Err(SpecError::new(spec, format!("{kind} takes no budget")))
        }
        ("alphabeta", Some(arg)) => {
            let budget = parse_budget(spec, arg, AlphaBeta::MAX_DEPTH, "depth")?;
            let agent = AlphaBeta::new(budget);
            Ok(match options.tablebase(spec)? {
                Some(table) => Box::new(agent.with_tablebase(table)),
                None => Box::new(agent),
            })
        }
        ("mcts", Some(arg)) => {
            let budget = parse_budget(spec, arg, crate::mcts::MAX_SIMULATIONS, "simulations")?;
            let agent = Mcts::new(budget);
            Ok(match options.tablebase(spec)? {
                Some(table) => Box::new(agent.with_tablebase(table)),
                None => Box::new(agent),
            })
        }
        #[cfg(feature = "torch")]
        ("az", Some(arg)) => Ok(Box::new(az_agent(spec, arg, options)?)),
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

/// The trained-network agent of the spec argument after `az:` (`PATH`, `PATH:SIMS` or
/// `PATH:TIME`), with the spec's options. The last part is a budget when it starts with a digit
/// and ends with one, `ms` or `s`; otherwise it belongs to the path.
#[cfg(feature = "torch")]
fn az_agent(spec: &str, arg: &str, options: Options<'_>) -> Result<crate::az::AzAgent, SpecError> {
    use crate::az::{AzAgent, MAX_SOLVER_NODES};
    use crate::puct::MAX_LEAF_BATCH;
    let (path, budget) = match arg.rsplit_once(':') {
        Some((path, last)) if looks_like_budget(last) => {
            let max = crate::az::checkpoint::MAX_SIMULATIONS;
            (path, Some(parse_budget(spec, last, max, "simulations")?))
        }
        _ => (arg, None),
    };
    let solver = match options.solver {
        None => AzAgent::default_solver(budget),
        Some(value) => count_option(
            spec,
            value,
            0..=MAX_SOLVER_NODES,
            "solver= takes a number of positions",
        )?,
    };
    let leaves = match options.leaves {
        None => AzAgent::default_leaves(budget),
        Some(value) => count_option(
            spec,
            value,
            1..=u64::from(MAX_LEAF_BATCH),
            "leaves= takes a number of leaves per forward pass",
        )? as u32,
    };
    if path.is_empty() {
        return Err(SpecError::new(
            spec,
            "az needs a checkpoint path after the colon",
        ));
    }
    let table = options.tablebase(spec)?;
    let agent = AzAgent::load(std::path::Path::new(path), budget)
        .map_err(|e| SpecError::new(spec, e.to_string()))?
        .with_solver(solver)
        .with_leaves(leaves);
    Ok(match table {
        Some(table) => agent.with_tablebase(table),
        None => agent,
    })
}

/// The count an option `KEY=VALUE` gives, within `allowed`; otherwise an error saying `what` the
/// option takes and the range.
#[cfg(feature = "torch")]
fn count_option(
    spec: &str,
    value: &str,
    allowed: std::ops::RangeInclusive<u64>,
    what: &str,
) -> Result<u64, SpecError> {
    value
        .parse::<u64>()
        .ok()
        .filter(|n| allowed.contains(n))
        .ok_or_else(|| {
            SpecError::new(
                spec,
                format!("{what}, {} to {}", allowed.start(), allowed.end()),
            )
        })
}

/// Whether the last part of an `az:` spec is meant as its budget (`64`, `50ms`, `1.5s`, or a bad
/// one such as `0` or `9x9s` that [`parse_budget`] then refuses by name), not a part of the path.
#[cfg(feature = "torch")]
fn looks_like_budget(last: &str) -> bool {
    let starts = last.bytes().next().is_some_and(|b| b.is_ascii_digit());
    let ends = last.bytes().last().is_some_and(|b| b.is_ascii_digit()) || last.ends_with('s');
    starts && ends
}
