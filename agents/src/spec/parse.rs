//! Reading a spec string: [`AgentSpec`]'s `FromStr`, the one grammar of `random`, `greedy`,
//! `alphabeta:DEPTH|TIME`, `mcts:SIMULATIONS|TIME` and `az:PATH[:SIMS|:TIME]`, each followed by
//! the options its kind takes. Everything is checked here but that the files exist: a table or
//! a checkpoint is read when the agent is built.

use super::{AgentSpec, Kind, SpecError, SpecOption};
use crate::budget::{Budget, MAX_TIME};
use sowing_exact::prove::MAX_SOLVER_NODES;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

impl FromStr for AgentSpec {
    type Err = SpecError;

    /// The spec `spec` names (see [`FORMS`](super::FORMS) and [`SpecOption`]); an error says what
    /// was wrong and lists the forms.
    fn from_str(spec: &str) -> Result<AgentSpec, SpecError> {
        let (head, options) = split_options(spec)?;
        let (word, arg) = match head.split_once(':') {
            Some((word, arg)) => (word, Some(arg)),
            None => (head, None),
        };
        let Some(kind) = Kind::from_word(word) else {
            return Err(SpecError::new(spec, format!("unknown agent {word:?}")));
        };
        let tablebase = options.tablebase.map(PathBuf::from);
        match (kind, arg) {
            (Kind::Random, None) => Ok(AgentSpec::Random),
            (Kind::Greedy, None) => Ok(AgentSpec::Greedy),
            (Kind::Random | Kind::Greedy, Some(_)) => {
                Err(SpecError::new(spec, format!("{word} takes no budget")))
            }
            (Kind::AlphaBeta, Some(arg)) => Ok(AgentSpec::AlphaBeta {
                budget: kind_budget(spec, arg, kind)?,
                network: options.network.map(PathBuf::from),
                tablebase,
            }),
            (Kind::Mcts, Some(arg)) => Ok(AgentSpec::Mcts {
                budget: kind_budget(spec, arg, kind)?,
                tablebase,
            }),
            (Kind::AlphaBeta | Kind::Mcts, None) => Err(SpecError::new(
                spec,
                format!("{word} needs a budget after a colon, a count or a time"),
            )),
            (Kind::Az, Some(arg)) => az(spec, arg, options, tablebase),
            (Kind::Az, None) => Err(SpecError::new(spec, NO_CHECKPOINT)),
        }
    }
}

/// Why an `az` spec without a path is refused.
pub(super) const NO_CHECKPOINT: &str = "az needs a checkpoint path after the colon";

/// Why an empty `net=` is refused.
pub(super) const NO_NETWORK: &str = "net= needs the network's run directory or checkpoint";

/// The `KEY=VALUE` options at the end of a spec, as given.
#[derive(Debug, Default)]
struct Options<'a> {
    /// `tb=FILE`.
    tablebase: Option<&'a str>,
    /// `solver=NODES`.
    solver: Option<&'a str>,
    /// `leaves=N`.
    leaves: Option<&'a str>,
    /// `net=PATH`.
    network: Option<&'a str>,
}

/// Split `spec` into its head (`kind[:ARG]`) and its options: the trailing colon-separated parts
/// that hold an `=`. Each option is checked against the kind, which must take it.
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
    let word = head.split(':').next().unwrap_or(head);
    let kind = Kind::from_word(word);
    let mut options = Options::default();
    let mut seen: Vec<SpecOption> = Vec::new();
    for (key, value) in given {
        let Some(option) = SpecOption::ALL.into_iter().find(|o| o.key() == key) else {
            return Err(SpecError::new(spec, format!("unknown option {key:?}")));
        };
        if !kind.is_some_and(|k| k.takes(option)) {
            return Err(SpecError::new(spec, {
                let takers = option.takers();
                // "only az does", "only alphabeta, mcts, az do".
                let verb = if takers.contains(',') { "do" } else { "does" };
                format!("{word} takes no option {key}= (only {takers} {verb})")
            }));
        }
        if seen.contains(&option) {
            return Err(SpecError::new(
                spec,
                format!("option {key}= is given twice"),
            ));
        }
        seen.push(option);
        match option {
            SpecOption::Tablebase => {
                if value.is_empty() {
                    return Err(SpecError::new(spec, "tb= needs the tablebase file"));
                }
                options.tablebase = Some(value);
            }
            SpecOption::Solver => options.solver = Some(value),
            SpecOption::Leaves => options.leaves = Some(value),
            SpecOption::Network => {
                if value.is_empty() {
                    return Err(SpecError::new(spec, NO_NETWORK));
                }
                options.network = Some(value);
            }
        }
    }
    Ok((head, options))
}

/// The budget `arg` of a spec of `kind`, within the kind's count limit.
fn kind_budget(spec: &str, arg: &str, kind: Kind) -> Result<Budget, SpecError> {
    let (what, max) = kind.count_limit().unwrap_or(("count", u32::MAX));
    parse_budget(spec, arg, max, what)
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

/// The allowed `solver=` values, in the words of its error.
pub(super) fn solver_range() -> (&'static str, RangeInclusive<u64>) {
    ("solver= takes a number of positions", 0..=MAX_SOLVER_NODES)
}

/// The allowed `leaves=` values, in the words of its error.
pub(super) fn leaves_range() -> (&'static str, RangeInclusive<u64>) {
    (
        "leaves= takes a number of leaves per forward pass",
        1..=u64::from(crate::puct::MAX_LEAF_BATCH),
    )
}

/// The error of a count option out of `range`.
pub(super) fn range_error((what, range): (&str, RangeInclusive<u64>)) -> String {
    format!("{what}, {} to {}", range.start(), range.end())
}

/// The trained-network spec of the argument after `az:` (`PATH`, `PATH:SIMS` or `PATH:TIME`),
/// with the spec's options. The last part is a budget when it starts with a digit and ends with
/// one, `ms` or `s`; otherwise it belongs to the path.
fn az(
    spec: &str,
    arg: &str,
    options: Options<'_>,
    tablebase: Option<PathBuf>,
) -> Result<AgentSpec, SpecError> {
    let (path, budget) = match arg.rsplit_once(':') {
        Some((path, last)) if looks_like_budget(last) => {
            (path, Some(kind_budget(spec, last, Kind::Az)?))
        }
        _ => (arg, None),
    };
    let solver = options
        .solver
        .map(|value| count_option(spec, value, solver_range()))
        .transpose()?;
    let leaves = options
        .leaves
        .map(|value| count_option(spec, value, leaves_range()))
        .transpose()?
        .map(|n| n as u32);
    if path.is_empty() {
        return Err(SpecError::new(spec, NO_CHECKPOINT));
    }
    Ok(AgentSpec::Az {
        path: PathBuf::from(path),
        budget,
        solver,
        leaves,
        tablebase,
    })
}

/// The count an option `KEY=VALUE` gives, within the range of `allowed`; otherwise an error
/// saying what the option takes and the range.
fn count_option(
    spec: &str,
    value: &str,
    allowed: (&str, RangeInclusive<u64>),
) -> Result<u64, SpecError> {
    match value.parse::<u64>() {
        Ok(n) if allowed.1.contains(&n) => Ok(n),
        _ => Err(SpecError::new(spec, range_error(allowed))),
    }
}

/// Whether the last part of an `az:` spec is meant as its budget (`64`, `50ms`, `1.5s`, or a bad
/// one such as `0` or `9x9s` that [`parse_budget`] then refuses by name), not a part of the path.
pub(super) fn looks_like_budget(last: &str) -> bool {
    let starts = last.bytes().next().is_some_and(|b| b.is_ascii_digit());
    let ends = last.bytes().last().is_some_and(|b| b.is_ascii_digit()) || last.ends_with('s');
    starts && ends
}
