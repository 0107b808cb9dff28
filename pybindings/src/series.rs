//! Match play from Python: `sowing.agents.play_match`, a series of games between two agents to
//! `to` wins (see `sowing_eval::series`), and `sowing.agents.series_odds`, the exact
//! probability of each result from the chances of one game. The series is a long call (see
//! [`crate::long_call`]): the GIL released, and a Ctrl-C ends the agents' searches and the
//! series at once. Its report is the JSON that `sowing match --json` prints, so both give the
//! same result; the Python side reads it into a dict.
//!
//! The games are played on threads of the match loop, where no signal handler runs, so the
//! series runs on a thread apart while the caller looks for a Ctrl-C and stops it.

use crate::args;
use crate::long_call;
use crate::rules::rules_arg;
use crate::spec::spec_error;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use sowing_agents::{Agent, AgentSpec, SpecError};
use sowing_eval::series::{self, MAX_TO, Odds, SeriesConfig};

/// Stack of the thread that runs a series: it only deals out games to threads of the match loop
/// (each with the standard 2 MiB), and plays none itself.
const SERIES_STACK: usize = 1 << 20;

use crate::error::matches as to_py;

/// Play a series between agents `a` and `b` on `variant` (a preset name or `Rules`) to `to`
/// wins; the report as JSON (see `sowing.agents.play_match`).
#[pyfunction]
#[pyo3(signature = (variant, a, b, to, seed, opening, games_per_estimate, max_games, threads))]
#[allow(clippy::too_many_arguments)]
pub fn play_match(
    py: Python<'_>,
    variant: &Bound<'_, PyAny>,
    a: &str,
    b: &str,
    to: &Bound<'_, PyAny>,
    seed: &Bound<'_, PyAny>,
    opening: &Bound<'_, PyAny>,
    games_per_estimate: &Bound<'_, PyAny>,
    max_games: Option<&Bound<'_, PyAny>>,
    threads: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let rules = rules_arg(variant)?;
    let to = args::int_in(to, "to", 1, MAX_TO.into(), "1 to 10000 wins")? as u32;
    let config = SeriesConfig {
        rules,
        agents: [
            a.parse().map_err(spec_error)?,
            b.parse().map_err(spec_error)?,
        ],
        to,
        seed: args::seed(seed)?,
        opening_plies: args::int_in(
            opening,
            "opening",
            0,
            rules.max_plies().into(),
            "0 to the rules' max_plies random plies",
        )? as u32,
        games_per_estimate: args::int_in(
            games_per_estimate,
            "games_per_estimate",
            0,
            u32::MAX.into(),
            "an even number of games, 0 to 4294967294",
        )? as u32,
        max_games: match max_games {
            Some(m) => args::int_in(
                m,
                "max_games",
                1,
                u64::MAX.into(),
                "a positive number of games",
            )? as u64,
            None => 100 * u64::from(to),
        },
        threads: args::threads(Some(threads), 0)?,
    };
    let report = long_call::run_apart(py, SERIES_STACK, |stop| {
        let agents_stop = stop.clone();
        let factory = move |spec: &AgentSpec| -> Result<Box<dyn Agent>, SpecError> {
            let mut agent = spec.build()?;
            agent.set_stop(agents_stop.clone());
            Ok(agent)
        };
        series::play_with(&config, &factory, &stop, &mut |_| {})
    })?
    .map_err(to_py)?;
    serde_json::to_string(&report).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// `(win, draw, loss)` chances from Python, named `name` in errors.
fn odds(name: &str, value: (f64, f64, f64)) -> PyResult<Odds> {
    let (win, draw, loss) = value;
    let sum = win + draw + loss;
    if [win, draw, loss].iter().all(|p| (0.0..=1.0).contains(p))
        && (sum - 1.0).abs() < 1e-9
        && let Some(o) = Odds::new(win / sum, loss / sum)
    {
        return Ok(o);
    }
    Err(PyValueError::new_err(format!(
        "{name} must be the chances (win, draw, loss) of the first agent, each 0 to 1 and \
         summing to 1, got ({win}, {draw}, {loss})"
    )))
}

/// The exact odds of a series to `to` wins, the first agent South in the first game, from its
/// chances `(win, draw, loss)` as South and as North: `(a_wins, b_wins, never_ends,
/// expected_games)`, the last `None` when the series may never end.
#[pyfunction]
pub fn series_odds(
    to: &Bound<'_, PyAny>,
    a_south: (f64, f64, f64),
    a_north: (f64, f64, f64),
) -> PyResult<(f64, f64, f64, Option<f64>)> {
    let to = args::int_in(to, "to", 1, MAX_TO.into(), "1 to 10000 wins")? as u32;
    let o = series::series_odds(to, odds("a_south", a_south)?, odds("a_north", a_north)?);
    Ok((o.a_wins, o.b_wins, o.never_ends, o.expected_games))
}
