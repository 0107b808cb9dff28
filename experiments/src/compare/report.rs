//! The report of a comparison: `report.md` (the command and seed, one summary table with the
//! variants as rows, a paragraph per finding, detail tables, plots), and the raw figures beside
//! it as CSV and JSON.
//!
//! Everything written here is a function of the figures alone (no clock, no paths of the
//! machine), so a resumed run writes the same files as an uninterrupted one.

use super::Variant;
use super::chain::{Scores, chains};
use super::learn::Learning;
use super::plan::{
    AGENT_UNIT, Allowance, BALANCE_AGENTS, CHAIN_THRESHOLD, ChainPlan, MIN_GAMES, MIN_UNIT_US,
    OPENING_PLIES, SHAPE_UNIT,
};
use super::run::Config;
use super::shape::Shape;
use super::sketch::Sketch;
use crate::plot::{
    Bar, BarChart, BarSeries, LineChart, PlotError, Point, Series, write_bar_chart,
    write_line_chart,
};
use serde_json::{Value, json};
use sowing_agents::matches::Tally;
use sowing_agents::stats::{Mean, Rate};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// The figures of one family of agents in a skill chain.
#[derive(Clone, Debug)]
pub struct FamilyData {
    pub family: String,
    /// `None` when the budget could not pay for two levels.
    pub plan: Option<ChainPlan>,
    /// `(weaker, stronger, tally with the stronger as agent a)` for every pair played.
    pub pairs: Vec<(usize, usize, Tally)>,
}

impl FamilyData {
    fn scores(&self) -> Scores {
        self.pairs
            .iter()
            .map(|(w, s, t)| (*w, *s, t.a_score()))
            .collect()
    }

    /// The chain on point estimates and the sure chain, as level indices.
    fn chains(&self) -> Option<(Vec<usize>, Vec<usize>)> {
        let plan = self.plan.as_ref()?;
        Some(chains(plan.levels.len(), CHAIN_THRESHOLD, &self.scores()))
    }

    fn label(&self) -> &str {
        if self.family == "mcts" {
            "MCTS"
        } else {
            "alpha-beta"
        }
    }
}

/// Everything measured on one variant.
#[derive(Clone, Debug)]
pub struct VariantData {
    pub variant: Variant,
    pub shape: Shape,
    /// Self-play of each balance agent; `None` when not measured.
    pub balance: Vec<(String, Option<Tally>)>,
    pub chains: Vec<FamilyData>,
    pub learning: Learning,
}

/// Where the report went, and its summary table for the terminal.
#[derive(Debug)]
pub struct Written {
    pub report: PathBuf,
    pub summary_table: String,
}

const NOT_MEASURED: &str = "not measured";

/// A rate and its interval, e.g. `52.0% [48.9, 55.1]`; "not measured" below [`MIN_GAMES`].
fn rate_cell(rate: Rate) -> String {
    match (rate.n >= MIN_GAMES).then(|| rate.wilson()).flatten() {
        Some((lo, hi)) => {
            // Rare events (endless moves, truncations) need more places to show their interval.
            // (One significant figure of the upper bound at least, up to six places.)
            let places = if hi >= 0.1 {
                1
            } else if hi <= 0.0 {
                6
            } else {
                ((-(hi * 100.0).log10()).ceil() as usize + 1).clamp(1, 6)
            };
            format!(
                "{:.places$}% [{:.places$}, {:.places$}]",
                100.0 * rate.value().expect("n > 0"),
                100.0 * lo,
                100.0 * hi
            )
        }
        None => NOT_MEASURED.to_string(),
    }
}

fn mean_cell(mean: &Mean, decimals: usize) -> String {
    match (mean.value(), mean.half_width()) {
        (Some(v), Some(h)) => format!("{v:.decimals$} ± {h:.decimals$}"),
        (Some(v), None) => format!("{v:.decimals$}"),
        _ => NOT_MEASURED.to_string(),
    }
}

fn rate_json(rate: Rate) -> Value {
    match (rate.n >= MIN_GAMES).then(|| rate.wilson()).flatten() {
        Some((lo, hi)) => json!({"value": rate.value(), "lo95": lo, "hi95": hi, "n": rate.n}),
        None => {
            json!({"value": null, "not_measured": format!("fewer than {MIN_GAMES} games"), "n": rate.n})
        }
    }
}

fn mean_json(mean: &Mean) -> Value {
    json!({"mean": mean.value(), "sd": mean.sd(), "half_width95": mean.half_width(), "n": mean.n})
}

fn opt_csv(x: Option<f64>) -> String {
    x.map_or_else(String::new, |v| format!("{v}"))
}

/// A skill chain as "4 levels: mcts:10 → mcts:20 → ...".
fn chain_text(plan: &ChainPlan, chain: &[usize]) -> String {
    chain
        .iter()
        .map(|&i| plan.levels[i].as_str())
        .collect::<Vec<_>>()
        .join(" → ")
}

fn chain_cell(family: &FamilyData) -> String {
    match (family.plan.as_ref(), family.chains()) {
        (Some(plan), Some((point, sure))) => format!(
            "{} of {} (sure: {})",
            point.len(),
            plan.levels.len(),
            sure.len()
        ),
        _ => NOT_MEASURED.to_string(),
    }
}

fn learning_cell(learning: &Learning) -> String {
    match learning {
        Learning::Curve(points) => match points.last() {
            Some(p) => format!("{:.0} [{:.0}, {:.0}]", p.elo, p.elo_lo, p.elo_hi),
            None => NOT_MEASURED.to_string(),
        },
        Learning::NotMeasured(_) => NOT_MEASURED.to_string(),
    }
}

/// The first player's win rate among games won by someone: 50% is balance.
fn decisive_first(south: u64, north: u64) -> Rate {
    Rate::new(south as f64, south + north)
}

/// Whether an interval excludes one half, in words.
fn verdict(rate: Rate) -> &'static str {
    match (rate.n >= MIN_GAMES).then(|| rate.wilson()).flatten() {
        Some((lo, _)) if lo > 0.5 => "favours the first player",
        Some((_, hi)) if hi < 0.5 => "favours the second player",
        Some(_) => "no significant edge",
        None => NOT_MEASURED,
    }
}

/// The Markdown summary table: one row per variant.
fn summary_table(data: &[VariantData]) -> String {
    let mut head = vec![
        "variant".to_string(),
        "rules".to_string(),
        "plies per game".to_string(),
        "branching".to_string(),
        "log10 game tree".to_string(),
        "distinct positions".to_string(),
        "truncated".to_string(),
        "1st player wins: random".to_string(),
    ];
    head.extend(
        BALANCE_AGENTS
            .iter()
            .map(|a| format!("1st player wins: {a}")),
    );
    head.extend([
        "skill chain: MCTS".to_string(),
        "skill chain: alpha-beta".to_string(),
        "learning: final Elo".to_string(),
    ]);
    let mut t = format!("| {} |\n", head.join(" | "));
    t += &format!("|{}\n", "---|".repeat(head.len()));
    for d in data {
        let s = &d.shape;
        let mut row = vec![
            d.variant.name.clone(),
            d.variant.rules.summary(),
            mean_cell(&s.plies, 1),
            s.branching
                .value()
                .map_or(NOT_MEASURED.into(), |b| format!("{b:.2}")),
            s.log10_game_tree()
                .map_or(NOT_MEASURED.into(), |g| format!("{g:.1}")),
            s.distinct_positions()
                .map_or(NOT_MEASURED.into(), |p| format!("{p:.3e}")),
            rate_cell(s.truncated_rate()),
            rate_cell(s.first_player_wins()),
        ];
        for spec in BALANCE_AGENTS {
            let tally = d
                .balance
                .iter()
                .find(|(a, _)| a == spec)
                .and_then(|(_, t)| *t);
            row.push(tally.map_or(NOT_MEASURED.into(), |t| rate_cell(t.first_player_wins())));
        }
        for family in ["mcts", "alphabeta"] {
            let f = d.chains.iter().find(|f| f.family == family);
            row.push(f.map_or(NOT_MEASURED.into(), chain_cell));
        }
        row.push(learning_cell(&d.learning));
        t += &format!("| {} |\n", row.join(" | "));
    }
    t
}

/// Variants sorted by a figure, with the figure, for the findings' sentences.
fn ranked(
    data: &[VariantData],
    figure: impl Fn(&VariantData) -> Option<f64>,
) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = data
        .iter()
        .filter_map(|d| Some((d.variant.name.clone(), figure(d)?)))
        .collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

fn shape_finding(data: &[VariantData], out: &mut String) {
    let games = data.iter().map(|d| d.shape.games).max().unwrap_or(0);
    out.push_str("### Game shape under random play\n\n");
    if games == 0 {
        out.push_str("Not measured: the budget did not pay for one unit of random games.\n\n");
        return;
    }
    let longest = ranked(data, |d| d.shape.plies.value());
    let widest = ranked(data, |d| d.shape.branching.value());
    let _ = writeln!(
        out,
        "Each variant played the same {games} games of uniformly random legal moves from the \
         start. Games are longest in {} ({:.1} plies on average) and shortest in {} ({:.1}); the \
         most moves per position are offered in {} ({:.2}), the fewest in {} ({:.2}). Means are \
         given with the half-width of their 95% interval, at most ±{widest_hw:.2} plies for the \
         length: two variants whose lengths differ by more than the sum of their half-widths \
         truly differ. Endless moves (a \
         sowing that never ends, illegal by the rules) and truncations at the ply cap are rates \
         with Wilson 95% intervals: a rate whose interval reaches 0 may simply be rare, not absent.\n",
        longest[0].0,
        longest[0].1,
        longest[longest.len() - 1].0,
        longest[longest.len() - 1].1,
        widest[0].0,
        widest[0].1,
        widest[widest.len() - 1].0,
        widest[widest.len() - 1].1,
        widest_hw = data
            .iter()
            .filter_map(|d| d.shape.plies.half_width())
            .fold(0.0, f64::max),
    );
    out.push_str(
        "| variant | games | plies per game | median | 90th percentile | branching | laps per move | seeds sown per move | positions with an endless move | games meeting one | truncated |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for d in data {
        let s = &d.shape;
        let q = |p: f64| {
            s.lengths
                .quantile(p)
                .map_or(NOT_MEASURED.into(), |v| v.to_string())
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            d.variant.name,
            s.games,
            mean_cell(&s.plies, 1),
            q(0.5),
            q(0.9),
            mean_cell(&s.branching, 2),
            mean_cell(&s.laps, 2),
            mean_cell(&s.sown, 1),
            rate_cell(s.endless_position_rate()),
            rate_cell(s.endless_game_rate()),
            rate_cell(s.truncated_rate()),
        );
    }
    out.push('\n');
}

fn complexity_finding(data: &[VariantData], out: &mut String) {
    out.push_str("### Complexity estimates\n\n");
    let trees = ranked(data, |d| d.shape.log10_game_tree());
    if trees.is_empty() {
        out.push_str("Not measured: no random games were played.\n\n");
        return;
    }
    let _ = writeln!(
        out,
        "The game-tree size is Allis's estimate b^d from the mean branching factor b and mean \
         length d of the random games, given as log10: it ranges from {:.1} ({}) to {:.1} ({}). \
         It inherits the uncertainty of both means and is an order-of-magnitude figure. Distinct \
         positions are those reached by the random games (board, captures and player to move), \
         counted with a HyperLogLog sketch (standard error {:.1}%); as every variant played the \
         same number of games, they compare the variants' breadth of play, and they are a lower \
         bound on the state space, not an estimate of it. The mean log10 of the product of \
         branching factors along each game (Knuth's path estimator) is given beside it: it \
         weights long games as they occur rather than through the mean length.\n",
        trees[0].1,
        trees[0].0,
        trees[trees.len() - 1].1,
        trees[trees.len() - 1].0,
        100.0 * Sketch::relative_error(),
    );
    out.push_str("| variant | log10 game tree (b^d) | mean log10 paths per game | distinct positions | positions visited |\n|---|---|---|---|---|\n");
    for d in data {
        let s = &d.shape;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            d.variant.name,
            s.log10_game_tree()
                .map_or(NOT_MEASURED.into(), |g| format!("{g:.1}")),
            mean_cell(&s.log_paths, 1),
            s.distinct_positions()
                .map_or(NOT_MEASURED.into(), |p| format!("{p:.0}")),
            s.games + s.branching.n,
        );
    }
    out.push('\n');
}

fn balance_finding(data: &[VariantData], out: &mut String) {
    out.push_str("### Balance\n\n");
    let _ = writeln!(
        out,
        "The first player's (South's) share of wins in self-play, with Wilson 95% intervals, under \
         random play (the random games above, from the start) and under {} (each game opening \
         with {OPENING_PLIES} random plies, one move each, so that searching agents do not repeat \
         one game). Draws are counted apart. A variant favours a player under an agent when the \
         95% interval of the first player's share of the decisive games excludes one half; \
         otherwise the figures show no significant edge, which is not proof of balance.\n",
        BALANCE_AGENTS.join(", "),
    );
    out.push_str("| variant | agent | games | 1st player wins | draws | 1st player's share of decisive games | verdict |\n|---|---|---|---|---|---|---|\n");
    for d in data {
        let s = &d.shape;
        let decisive = decisive_first(s.south_wins, s.north_wins);
        let _ = writeln!(
            out,
            "| {} | random | {} | {} | {} | {} | {} |",
            d.variant.name,
            s.games,
            rate_cell(s.first_player_wins()),
            rate_cell(s.draw_rate()),
            rate_cell(decisive),
            verdict(decisive)
        );
        for (spec, tally) in &d.balance {
            match tally {
                Some(t) => {
                    let decisive = decisive_first(t.south_wins, t.north_wins);
                    let _ = writeln!(
                        out,
                        "| {} | {spec} | {} | {} | {} | {} | {} |",
                        d.variant.name,
                        t.games,
                        rate_cell(t.first_player_wins()),
                        rate_cell(t.draw_rate()),
                        rate_cell(decisive),
                        verdict(decisive)
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "| {} | {spec} | 0 | {NOT_MEASURED} (budget too small for {MIN_GAMES} games) | | | |",
                        d.variant.name
                    );
                }
            }
        }
    }
    out.push('\n');
}

fn chain_finding(data: &[VariantData], out: &mut String) {
    out.push_str("### Skill depth\n\n");
    let _ = writeln!(
        out,
        "A skill chain is the longest sequence of agents of rising budget (MCTS with 10, 20, 40, \
         ... simulations per move; alpha-beta searching 1, 2, 3, ... plies) in which each agent \
         beats the one before it with a score of at least {:.0}% (a win 1, a draw or truncation \
         one half). Each level played the next two above it, every opening from both sides; the chain may skip a level that is no better than the one \
         below. More levels: more depth for search to find. \"Sure\" is the chain whose every \
         step's 95% Wilson interval lies above {:.0}% as well: the length the data proves, where \
         the first figure is the length it suggests. A chain that reaches the last level tried is \
         only a lower bound: a larger budget would try more levels.\n",
        100.0 * CHAIN_THRESHOLD,
        100.0 * CHAIN_THRESHOLD,
    );
    out.push_str("| variant | family | levels tried | games per pair | chain | sure chain |\n|---|---|---|---|---|---|\n");
    for d in data {
        for f in &d.chains {
            match (&f.plan, f.chains()) {
                (Some(plan), Some((point, sure))) => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {} | {} ({}) | {} |",
                        d.variant.name,
                        f.label(),
                        plan.levels.len(),
                        plan.games_per_pair,
                        point.len(),
                        chain_text(plan, &point),
                        sure.len(),
                    );
                }
                _ => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | 0 | 0 | {NOT_MEASURED} (budget too small for two levels at {MIN_GAMES} games) | |",
                        d.variant.name,
                        f.label()
                    );
                }
            }
        }
    }
    out.push_str("\nEvery pair played, with the stronger agent's score:\n\n| variant | stronger | weaker | games | wins | draws | losses | score [95%] |\n|---|---|---|---|---|---|---|---|\n");
    for d in data {
        for f in &d.chains {
            let Some(plan) = &f.plan else { continue };
            for (w, s, t) in &f.pairs {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} |",
                    d.variant.name,
                    plan.levels[*s],
                    plan.levels[*w],
                    t.games,
                    t.a_wins,
                    t.draws + t.truncated,
                    t.b_wins,
                    rate_cell(t.a_score())
                );
            }
        }
    }
    out.push('\n');
}

/// MCTS at 2k simulations against k: `(k, score)` for each neighbouring pair of the MCTS chain.
fn sensitivity(d: &VariantData) -> Vec<(u64, Rate)> {
    let Some(f) = d.chains.iter().find(|f| f.family == "mcts") else {
        return Vec::new();
    };
    let Some(plan) = &f.plan else {
        return Vec::new();
    };
    f.pairs
        .iter()
        .filter(|(w, s, _)| *s == *w + 1)
        .map(|(w, _, t)| {
            let k = plan.levels[*w]
                .strip_prefix("mcts:")
                .and_then(|k| k.parse().ok())
                .unwrap_or(0);
            (k, t.a_score())
        })
        .collect()
}

fn sensitivity_finding(data: &[VariantData], out: &mut String) {
    out.push_str("### Search sensitivity\n\n");
    let ks: Vec<u64> = {
        let mut ks: Vec<u64> = data
            .iter()
            .flat_map(|d| sensitivity(d).into_iter().map(|(k, _)| k))
            .collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    };
    if ks.is_empty() {
        out.push_str("Not measured: the budget did not pay for two MCTS levels.\n\n");
        return;
    }
    out.push_str(
        "The score of MCTS with 2k simulations per move against MCTS with k, as k grows (the \
         neighbouring pairs of the MCTS chain), with Wilson 95% intervals. In a game where search \
         keeps paying, the score stays well above 50% as k grows; where it falls to 50% early, \
         more search stops helping (the game is shallow for search, or rollouts mislead it).\n\n",
    );
    let _ = writeln!(
        out,
        "| variant | {} |\n|---|{}",
        ks.iter()
            .map(|k| format!("{} vs {k}", 2 * k))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(ks.len())
    );
    for d in data {
        let row = sensitivity(d);
        let cells: Vec<String> = ks
            .iter()
            .map(|k| {
                row.iter()
                    .find(|(rk, _)| rk == k)
                    .map_or(NOT_MEASURED.into(), |(_, r)| rate_cell(*r))
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", d.variant.name, cells.join(" | "));
    }
    out.push('\n');
}

fn learning_finding(data: &[VariantData], out: &mut String) {
    out.push_str("### Learnability\n\n");
    let reasons: Vec<&str> = data
        .iter()
        .filter_map(|d| match &d.learning {
            Learning::NotMeasured(r) => Some(r.as_str()),
            Learning::Curve(_) => None,
        })
        .collect();
    if reasons.len() == data.len() {
        let _ = writeln!(out, "Not measured: {}.\n", reasons[0]);
        return;
    }
    out.push_str(
        "The AlphaZero trainer (`sowing train`) ran afresh on every preset for the same \
         wall-clock share of the budget, with small iterations (32 self-play games of 32 PUCT \
         simulations per move), and after each iteration its agent (32 simulations) played 10 \
         games against each of random, greedy and mcts:100; its Elo is rated against those \
         baselines (random = 0) with a 95% interval. A variant whose curve rises faster and \
         higher is easier to learn under this budget. Training is budgeted by time, so the curve \
         depends on the machine and is not repeatable to the game; it is cached, so a resumed \
         comparison reports the same one. Rules files are not trained (the trainer takes \
         presets).\n\n\
         | variant | evaluations | first Elo [95%] | final Elo [95%] |\n|---|---|---|---|\n",
    );
    for d in data {
        match &d.learning {
            Learning::Curve(points) => {
                let first = points.first().map_or(NOT_MEASURED.into(), |p| {
                    format!("{:.0} [{:.0}, {:.0}]", p.elo, p.elo_lo, p.elo_hi)
                });
                let _ = writeln!(
                    out,
                    "| {} | {} | {first} | {} |",
                    d.variant.name,
                    points.len(),
                    learning_cell(&d.learning)
                );
            }
            Learning::NotMeasured(r) => {
                let _ = writeln!(out, "| {} | 0 | {NOT_MEASURED} ({r}) | |", d.variant.name);
            }
        }
    }
    out.push('\n');
}

/// Draw the plots into `DIR/plots` and return the Markdown that shows them (or says why not).
fn plots(out: &Path, data: &[VariantData]) -> String {
    let dir = out.join("plots");
    if let Err(e) = fs::create_dir_all(&dir) {
        return format!("Plots not drawn: cannot create {}: {e}.\n\n", dir.display());
    }
    let groups: Vec<String> = data.iter().map(|d| d.variant.name.clone()).collect();
    let bar = |r: Rate| -> Option<Bar> {
        (r.n >= MIN_GAMES).then(|| (r.value().expect("n > 0"), r.wilson()))
    };
    let point = |x: f64, r: Rate| -> Option<Point> {
        (r.n >= MIN_GAMES).then(|| Point {
            x,
            y: r.value().expect("n > 0"),
            interval: r.wilson(),
        })
    };
    let mut balance_series = vec![BarSeries {
        label: "random".to_string(),
        values: data
            .iter()
            .map(|d| bar(d.shape.first_player_wins()))
            .collect(),
    }];
    for spec in BALANCE_AGENTS {
        balance_series.push(BarSeries {
            label: spec.to_string(),
            values: data
                .iter()
                .map(|d| {
                    let t = d.balance.iter().find(|(a, _)| a == spec)?.1?;
                    bar(t.first_player_wins())
                })
                .collect(),
        });
    }
    let balance = BarChart {
        title: "First player's wins in self-play (95% intervals)".to_string(),
        y_label: "share of games won by the first player".to_string(),
        y_range: Some((0.0, 1.0)),
        groups: groups.clone(),
        series: balance_series,
    };
    let chain_series = ["mcts", "alphabeta"]
        .iter()
        .flat_map(|family| {
            let of = |sure: bool| BarSeries {
                label: format!(
                    "{}{}",
                    if *family == "mcts" {
                        "MCTS"
                    } else {
                        "alpha-beta"
                    },
                    if sure { ", sure" } else { "" }
                ),
                values: data
                    .iter()
                    .map(|d| {
                        let (point, sure_chain) =
                            d.chains.iter().find(|f| f.family == *family)?.chains()?;
                        let len = if sure { sure_chain.len() } else { point.len() };
                        Some((len as f64, None))
                    })
                    .collect(),
            };
            [of(false), of(true)]
        })
        .collect();
    let chains = BarChart {
        title: "Skill chains: levels each beating the one before (60%)".to_string(),
        y_label: "levels in the chain".to_string(),
        y_range: None,
        groups: groups.clone(),
        series: chain_series,
    };
    let sensitivity_chart = LineChart {
        title: "Search sensitivity: MCTS 2k against k simulations".to_string(),
        x_label: "log2(k / 10)".to_string(),
        y_label: "score of 2k".to_string(),
        y_range: Some((0.0, 1.0)),
        series: data
            .iter()
            .map(|d| Series {
                label: d.variant.name.clone(),
                points: sensitivity(d)
                    .iter()
                    .filter_map(|(k, r)| point((*k as f64 / 10.0).log2(), *r))
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect(),
    };
    let lengths = LineChart {
        title: "Game length under random play".to_string(),
        x_label: "plies".to_string(),
        y_label: "share of games".to_string(),
        y_range: None,
        series: data
            .iter()
            .filter(|d| d.shape.games > 0)
            .map(|d| Series {
                label: d.variant.name.clone(),
                points: d
                    .shape
                    .lengths
                    .counts
                    .iter()
                    .enumerate()
                    .map(|(plies, &c)| Point {
                        x: plies as f64,
                        y: c as f64 / d.shape.games as f64,
                        interval: None,
                    })
                    .collect(),
            })
            .collect(),
    };
    let learning = LineChart {
        title: "Learning curves: Elo against the baselines".to_string(),
        x_label: "training time (s)".to_string(),
        y_label: "Elo".to_string(),
        y_range: None,
        series: data
            .iter()
            .filter_map(|d| match &d.learning {
                Learning::Curve(points) => Some(Series {
                    label: d.variant.name.clone(),
                    points: points
                        .iter()
                        .map(|p| Point {
                            x: p.seconds,
                            y: p.elo,
                            interval: Some((p.elo_lo, p.elo_hi)),
                        })
                        .collect(),
                }),
                Learning::NotMeasured(_) => None,
            })
            .collect(),
    };
    let mut md = String::new();
    let mut show =
        |name: &str, caption: &str, written: Option<Result<Vec<PathBuf>, PlotError>>| match written
        {
            Some(Ok(_)) => {
                let _ = writeln!(
                    md,
                    "![{caption}](plots/{name}.png) ([SVG](plots/{name}.svg))\n"
                );
            }
            Some(Err(e)) => {
                let _ = writeln!(md, "{caption}: not drawn ({e}).\n");
            }
            None => {
                let _ = writeln!(md, "{caption}: not drawn (nothing measured).\n");
            }
        };
    let has_lines = |c: &LineChart| c.series.iter().any(|s| !s.points.is_empty());
    let has_bars = |c: &BarChart| {
        c.series
            .iter()
            .any(|s| s.values.iter().any(Option::is_some))
    };
    show(
        "balance",
        "Balance per agent",
        has_bars(&balance).then(|| write_bar_chart(&balance, &dir.join("balance"))),
    );
    show(
        "skill-chains",
        "Skill chains",
        has_bars(&chains).then(|| write_bar_chart(&chains, &dir.join("skill-chains"))),
    );
    show(
        "sensitivity",
        "Search sensitivity",
        has_lines(&sensitivity_chart)
            .then(|| write_line_chart(&sensitivity_chart, &dir.join("sensitivity"))),
    );
    show(
        "lengths",
        "Game-length distributions",
        has_lines(&lengths).then(|| write_line_chart(&lengths, &dir.join("lengths"))),
    );
    show(
        "learning",
        "Learning curves",
        has_lines(&learning).then(|| write_line_chart(&learning, &dir.join("learning"))),
    );
    md
}

/// The figures as one JSON document.
fn results_json(config: &Config, allowance: &Allowance, data: &[VariantData]) -> Value {
    let variants: Vec<Value> = data
        .iter()
        .map(|d| {
            let s = &d.shape;
            let balance: Vec<Value> = d
                .balance
                .iter()
                .map(|(spec, t)| match t {
                    Some(t) => json!({"agent": spec, "games": t.games, "first_player_wins": rate_json(t.first_player_wins()), "draws": rate_json(t.draw_rate()), "tally": t}),
                    None => json!({"agent": spec, "games": 0, "not_measured": "budget too small"}),
                })
                .collect();
            let chains: Vec<Value> = d
                .chains
                .iter()
                .map(|f| match (&f.plan, f.chains()) {
                    (Some(plan), Some((point, sure))) => json!({
                        "family": f.family,
                        "levels": plan.levels,
                        "games_per_pair": plan.games_per_pair,
                        "chain": point.iter().map(|&i| &plan.levels[i]).collect::<Vec<_>>(),
                        "sure_chain": sure.iter().map(|&i| &plan.levels[i]).collect::<Vec<_>>(),
                        "pairs": f.pairs.iter().map(|(w, st, t)| json!({"weaker": plan.levels[*w], "stronger": plan.levels[*st], "tally": t, "score": rate_json(t.a_score())})).collect::<Vec<_>>(),
                    }),
                    _ => json!({"family": f.family, "not_measured": "budget too small for two levels"}),
                })
                .collect();
            json!({
                "variant": d.variant.name,
                "rules": d.variant.rules,
                "shape": {
                    "games": s.games,
                    "plies": mean_json(&s.plies),
                    "branching": mean_json(&s.branching),
                    "laps_per_move": mean_json(&s.laps),
                    "sown_per_move": mean_json(&s.sown),
                    "endless_positions": rate_json(s.endless_position_rate()),
                    "endless_games": rate_json(s.endless_game_rate()),
                    "truncated": rate_json(s.truncated_rate()),
                    "first_player_wins": rate_json(s.first_player_wins()),
                    "draws": rate_json(s.draw_rate()),
                    "log10_game_tree": s.log10_game_tree(),
                    "log10_paths_per_game": mean_json(&s.log_paths),
                    "distinct_positions": s.distinct_positions(),
                    "length_counts": s.lengths.counts,
                },
                "balance": balance,
                "chains": chains,
                "sensitivity": sensitivity(d).iter().map(|(k, r)| json!({"k": k, "score_2k_vs_k": rate_json(*r)})).collect::<Vec<_>>(),
                "learning": d.learning,
            })
        })
        .collect();
    json!({
        "command": config.command,
        "seed": config.seed,
        "budget": config.budget.to_string(),
        "threads": config.threads,
        "allowance_core_seconds_per_variant": {
            "shape": allowance.shape / 1e6,
            "balance": allowance.balance / 1e6,
            "chains": allowance.chains / 1e6,
            "learning": allowance.learning / 1e6,
        },
        "variants": variants,
    })
}

fn csv_files(data: &[VariantData]) -> Vec<(&'static str, String)> {
    let rate_cols = |r: Rate| -> String {
        let (lo, hi) = r.wilson().map_or((None, None), |(l, h)| (Some(l), Some(h)));
        format!(
            "{},{},{},{}",
            r.n,
            opt_csv(r.value()),
            opt_csv(lo),
            opt_csv(hi)
        )
    };
    let mut shape = String::from(
        "variant,games,plies_mean,plies_sd,branching_mean,laps_mean,sown_mean,endless_positions_n,endless_positions_rate,endless_positions_lo95,endless_positions_hi95,truncated_n,truncated_rate,truncated_lo95,truncated_hi95,log10_game_tree,log10_paths_mean,distinct_positions\n",
    );
    let mut lengths = String::from("variant,plies,games\n");
    let mut balance = String::from(
        "variant,agent,games,south_wins,north_wins,draws,truncated,first_player_n,first_player_rate,first_player_lo95,first_player_hi95\n",
    );
    let mut matches = String::from(
        "variant,family,stronger,weaker,games,wins,draws,truncated,losses,score_n,score,score_lo95,score_hi95\n",
    );
    let mut learning = String::from("variant,iteration,seconds,elo,elo_lo95,elo_hi95\n");
    for d in data {
        let s = &d.shape;
        let name = &d.variant.name;
        let _ = writeln!(
            shape,
            "{name},{},{},{},{},{},{},{},{},{},{},{}",
            s.games,
            opt_csv(s.plies.value()),
            opt_csv(s.plies.sd()),
            opt_csv(s.branching.value()),
            opt_csv(s.laps.value()),
            opt_csv(s.sown.value()),
            rate_cols(s.endless_position_rate()),
            rate_cols(s.truncated_rate()),
            opt_csv(s.log10_game_tree()),
            opt_csv(s.log_paths.value()),
            opt_csv(s.distinct_positions()),
        );
        for (plies, count) in s.lengths.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            let _ = writeln!(lengths, "{name},{plies},{count}");
        }
        let _ = writeln!(
            balance,
            "{name},random,{},{},{},{},{},{}",
            s.games,
            s.south_wins,
            s.north_wins,
            s.draws,
            s.truncated,
            rate_cols(s.first_player_wins())
        );
        for (spec, t) in &d.balance {
            if let Some(t) = t {
                let _ = writeln!(
                    balance,
                    "{name},{spec},{},{},{},{},{},{}",
                    t.games,
                    t.south_wins,
                    t.north_wins,
                    t.draws,
                    t.truncated,
                    rate_cols(t.first_player_wins())
                );
            }
        }
        for f in &d.chains {
            let Some(plan) = &f.plan else { continue };
            for (w, st, t) in &f.pairs {
                let _ = writeln!(
                    matches,
                    "{name},{},{},{},{},{},{},{},{},{}",
                    f.family,
                    plan.levels[*st],
                    plan.levels[*w],
                    t.games,
                    t.a_wins,
                    t.draws,
                    t.truncated,
                    t.b_wins,
                    rate_cols(t.a_score())
                );
            }
        }
        if let Learning::Curve(points) = &d.learning {
            for p in points {
                let _ = writeln!(
                    learning,
                    "{name},{},{},{},{},{}",
                    p.iteration, p.seconds, p.elo, p.elo_lo, p.elo_hi
                );
            }
        }
    }
    vec![
        ("shape.csv", shape),
        ("lengths.csv", lengths),
        ("balance.csv", balance),
        ("matches.csv", matches),
        ("learning.csv", learning),
    ]
}

/// The summary table as CSV: the same rows and columns as in the report.
fn summary_csv(table: &str) -> String {
    table
        .lines()
        .filter(|l| !l.starts_with("|---"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| {
                    let c = c.trim();
                    if c.contains(',') || c.contains('"') {
                        format!("\"{}\"", c.replace('"', "\"\""))
                    } else {
                        c.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .map(|l| l + "\n")
        .collect()
}

fn write_file(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let path = dir.join(name);
    fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Write `report.md`, `summary.csv`, `results.json` and the raw CSVs into the output directory.
pub fn write(
    config: &Config,
    allowance: &Allowance,
    data: &[VariantData],
) -> Result<Written, String> {
    let table = summary_table(data);
    let mut md = String::new();
    let _ = writeln!(md, "# Comparing variants\n");
    let _ = writeln!(md, "```\n{}\n```\n", config.command.join(" "));
    let _ = writeln!(
        md,
        "Seed {}, budget {} on {} threads (game counts are fixed by the budget, the threads and \
         the seed, so this command gives these figures again, learning aside, which is budgeted \
         by time). Rates are given with Wilson 95% intervals in brackets, means with the \
         half-width of their 95% interval. A figure the budget could not pay for (fewer than \
         {MIN_GAMES} games) is \"not measured\", never zero.\n",
        config.seed, config.budget, config.threads
    );
    let _ = writeln!(
        md,
        "The budget was split, for each variant, into core-seconds: game shape {:.1}, balance \
         {:.1}, skill chains {:.1}, learning {:.1} (a fixed cost model turns these into whole \
         units of work, {SHAPE_UNIT} x 2^k random games or {AGENT_UNIT} x 2^k agent games, each \
         costing at least {} ms).\n",
        allowance.shape / 1e6,
        allowance.balance / 1e6,
        allowance.chains / 1e6,
        allowance.learning / 1e6,
        MIN_UNIT_US / 1000.0
    );
    md.push_str("## Summary\n\n");
    md.push_str(&table);
    md.push_str("\nSkill chains: levels in the chain of the levels tried (in brackets: the chain every step of which is sure at 95%).\n\n## Findings\n\n");
    shape_finding(data, &mut md);
    complexity_finding(data, &mut md);
    balance_finding(data, &mut md);
    chain_finding(data, &mut md);
    sensitivity_finding(data, &mut md);
    learning_finding(data, &mut md);
    md.push_str("## Plots\n\n");
    md.push_str(&plots(&config.out, data));
    md.push_str("## Raw data\n\n`summary.csv` (the table above), `shape.csv`, `lengths.csv` (game-length counts), `balance.csv`, `matches.csv` (every skill-chain pair), `learning.csv`, and `results.json` (all of it, with the command and seed).\n");

    write_file(&config.out, "report.md", &md)?;
    write_file(&config.out, "summary.csv", &summary_csv(&table))?;
    let json = results_json(config, allowance, data);
    write_file(
        &config.out,
        "results.json",
        &(serde_json::to_string_pretty(&json).expect("figures serialise") + "\n"),
    )?;
    for (name, text) in csv_files(data) {
        write_file(&config.out, name, &text)?;
    }
    Ok(Written {
        report: config.out.join("report.md"),
        summary_table: table,
    })
}
