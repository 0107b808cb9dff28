//! The `solved` column: the perfect-play result of each variant's start, where it is proven.
//!
//! A start proven before and shipped in `data/proven.json` ([`sowing_exact::proven`]) is read
//! from there, at any budget and at no cost. A variant small enough (a table of every seed of at most [`WHOLE_TABLE_POSITIONS`] positions,
//! seconds to build) is solved whole: winner and margin exact. Any other start goes to the
//! solver, with a tablebase given by `--tablebase` whose rules match, within a budget of
//! positions fixed by the comparison's budget ([`nodes_for`]), never by the clock: a win for
//! South, and then the margin it forces (bracketed upwards by two seeds, the parity of a game
//! that ends); failing that, a win for North (every South move refuted). A draw needs more than
//! these proofs and reads "not proven", as does anything the budget does not reach.

use super::cache::{Checked, UnitKey, unless};
use crate::solved::{StartValue, solve_whole, table_positions};
use serde::{Deserialize, Serialize};
use sowing_env::{Rules, State};
use sowing_exact::tablebase::Tablebase;
use sowing_exact::{Solver, proven};
use std::sync::Arc;

/// The largest variant solved whole by a table of every seed, in positions.
pub const WHOLE_TABLE_POSITIONS: u128 = 3_000_000;

/// The solver's share of the budget, on top of the measurements' (which it does not change).
const SOLVE_SHARE: f64 = 0.02;

/// The solver's nominal speed on one core of the reference machine, positions per second (1.27
/// billion positions in 18 minutes for en-dodoi-6's start, under load).
const NODES_PER_SECOND: f64 = 1.2e6;

/// The solver's transposition table: 2^22 slots, 64 MiB.
const TABLE_BITS: u32 = 22;

/// The longest proof looked for, in plies.
const MAX_DEPTH: u32 = 199;

/// What is known of a variant's start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Solved {
    /// Solved: the winner (`South`, `North`, or `draw`), and South's final lead when the
    /// winner forces the end: exact, or at least `margin` when `margin_exact` is false.
    Proven {
        winner: String,
        margin: Option<i32>,
        margin_exact: bool,
        /// How: "whole table" or "solver" (with a tablebase of `K` seeds, if any).
        by: String,
        /// Positions the solver made (0 for a whole table).
        positions: u64,
    },
    /// Not settled within the budget.
    NotProven { positions: u64 },
}

impl Solved {
    /// The summary table's cell: "South wins by 8", "South wins by 8 or more", "not proven".
    pub fn cell(&self) -> String {
        match self {
            Solved::Proven {
                winner,
                margin,
                margin_exact,
                ..
            } => match (winner.as_str(), margin) {
                ("draw", _) => "draw".to_string(),
                (w, Some(m)) if *margin_exact => format!("{w} wins by {}", m.abs()),
                (w, Some(m)) => format!("{w} wins by {} or more", m.abs()),
                (w, None) => format!("{w} wins"),
            },
            Solved::NotProven { .. } => "not proven".to_string(),
        }
    }
}

impl Checked for Solved {
    fn inconsistency(&self, _: &UnitKey) -> Option<String> {
        let Solved::Proven { winner, margin, .. } = self else {
            return None;
        };
        let lead_ok = match (winner.as_str(), margin) {
            ("South", Some(m)) => *m > 0,
            ("North", Some(m)) => *m < 0,
            ("draw", None) | ("South" | "North", None) => true,
            _ => false,
        };
        unless(lead_ok, || {
            format!(
                "winner {winner:?} with South's lead {}",
                margin.map_or("not given".to_string(), |m| m.to_string())
            )
        })
    }
}

/// The solver's positions for one variant: a fixed share of the budget's core-seconds per
/// variant, at the nominal speed.
pub fn nodes_for(budget_seconds: f64, threads: usize, variants: usize) -> u64 {
    let core_seconds = budget_seconds * threads as f64 / variants.max(1) as f64;
    (core_seconds * SOLVE_SHARE * NODES_PER_SECOND) as u64
}

/// The nominal cost of a solver job of `nodes` positions for `rules`, core-microseconds: none
/// for a shipped proof.
pub fn cost_us(rules: &Rules, nodes: u64) -> f64 {
    if proven::lookup(rules).is_some() {
        return 0.0;
    }
    nodes as f64 / NODES_PER_SECOND * 1e6
}

/// The measurement's name in the cache: what the answer depends on.
pub fn measurement(rules: &Rules, nodes: u64, table: Option<&Tablebase>) -> String {
    if proven::lookup(rules).is_some() {
        return "start value, shipped proof".to_string();
    }
    match table {
        Some(t) => format!(
            "solve start, {nodes} positions, tablebase of {} seeds",
            t.max_seeds()
        ),
        None => format!("solve start, {nodes} positions"),
    }
}

/// The start of `rules`, solved as far as `nodes` positions allow (see the module
/// documentation).
pub fn solve(rules: &Rules, nodes: u64, table: Option<Arc<Tablebase>>) -> Result<Solved, String> {
    if let Some(known) = proven::lookup(rules) {
        return Ok(Solved::Proven {
            winner: known.winner.name().to_string(),
            margin: known.margin,
            margin_exact: known.margin_exact,
            by: format!("shipped proof ({})", known.by),
            positions: 0,
        });
    }
    let total = rules.total_seeds() as u32;
    if table_positions(rules.holes() as u32, total) <= WHOLE_TABLE_POSITIONS {
        let StartValue { result, margin, .. } = solve_whole(rules, 1).map_err(|e| e.to_string())?;
        return Ok(Solved::Proven {
            margin: (result != "draw").then_some(margin),
            winner: result,
            margin_exact: true,
            by: "whole table".to_string(),
            positions: 0,
        });
    }
    let by = match &table {
        Some(t) => format!("solver with a tablebase of {} seeds", t.max_seeds()),
        None => "solver".to_string(),
    };
    let mut solver = Solver::new(TABLE_BITS);
    if let Some(t) = table {
        solver = solver.with_tablebase(t);
    }
    let start = State::initial(rules);
    let mut spent = 0;
    let win = solver.prove_win(&start, nodes, MAX_DEPTH);
    spent += win.nodes;
    if win.winning.is_none() {
        let refuted = solver.prove(&start, nodes.saturating_sub(spent), MAX_DEPTH);
        spent += refuted.nodes;
        return Ok(if refuted.lost(&start) {
            Solved::Proven {
                winner: "North".to_string(),
                margin: None,
                margin_exact: false,
                by,
                positions: spent,
            }
        } else {
            Solved::NotProven { positions: spent }
        });
    }
    // South wins: by how much, two seeds at a time (a game that ends has captured every seed, so
    // the lead has the parity of the total).
    let step = 2;
    let mut at_least = if total.is_multiple_of(2) { 2 } else { 1 };
    while at_least + step <= total as i32 {
        let proof = solver.prove_margin(
            &start,
            at_least + step,
            nodes.saturating_sub(spent),
            MAX_DEPTH,
            false,
        );
        spent += proof.nodes;
        if proof.winning.is_none() {
            break;
        }
        at_least += step;
    }
    let above = solver.prove_margin(
        &start,
        at_least + step,
        nodes.saturating_sub(spent),
        MAX_DEPTH,
        true,
    );
    spent += above.nodes;
    Ok(Solved::Proven {
        winner: "South".to_string(),
        margin: Some(at_least),
        margin_exact: above.lost(&start),
        by,
        positions: spent,
    })
}
