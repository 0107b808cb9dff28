//! `report.md`, rendered from the figures: the command and seed, the difficulty ranking, the
//! summary table, a paragraph and a detail table per finding, and the plots.

use super::Table;
use crate::compare::difficulty::Separation;
use crate::compare::difficulty::{EQUAL_POINTS, MIN_CRITICAL, MIN_PHASE_CRITICAL, Verdict};
use crate::compare::figures::{
    AccuracyFigures, Chain, Figures, LearningFigures, PhaseMatchedRanking, RankedVariant,
    VariantFigures, measured,
};
use crate::compare::learn::{GAMES_PER_ITERATION, SIMULATIONS};
use crate::compare::plan::{
    ACCURACY_AGENTS, ACCURACY_UNIT, AGENT_UNIT, BALANCE_AGENTS, CHAIN_THRESHOLD, MIN_GAMES,
    MIN_UNIT_US, OPENING_PLIES, SHAPE_UNIT,
};
use crate::compare::sketch::Sketch;
use sowing_eval::matches::Tally;
use sowing_eval::stats::{Mean, Rate};
use std::fmt::Write as _;

pub const NOT_MEASURED: &str = "not measured";

/// The whole report; `plots` is the Markdown that shows the plots.
pub fn report(figures: &Figures, summary: &Table, plots: &str) -> String {
    let data = &figures.variants;
    let mut md = String::new();
    let _ = writeln!(md, "# Comparing variants\n");
    let _ = writeln!(md, "```\n{}\n```\n", figures.command.join(" "));
    let _ = writeln!(
        md,
        "Seed {}, budget {} on {} threads (game counts and training iterations are fixed by the \
         budget, the threads and the seed, so this command gives these figures again; learning's \
         training repeats exactly on the CPU). Rates are given with Wilson 95% intervals in brackets, means with the \
         half-width of their 95% interval. A figure the budget could not pay for (fewer than \
         {MIN_GAMES} games) is \"not measured\", never zero.\n",
        figures.seed, figures.budget, figures.threads
    );
    let a = &figures.allowance;
    let _ = writeln!(
        md,
        "The budget was split, for each variant, into core-seconds: game shape {:.1}, balance \
         {:.1}, skill chains {:.1}, accuracy {:.1}, learning {:.1} (a fixed cost model turns \
         these into whole units of work, {SHAPE_UNIT} x 2^k random games, {AGENT_UNIT} x 2^k \
         agent games or {ACCURACY_UNIT} positions, each costing at least {} ms).\n",
        a.shape,
        a.balance,
        a.chains,
        a.accuracy,
        a.learning,
        MIN_UNIT_US / 1000.0
    );
    ranking_section(figures, &mut md);
    md.push_str("## Summary\n\n");
    md.push_str(&summary.markdown());
    md.push_str("\nSkill chains: levels in the chain of the levels tried (in brackets: the chain every step of which is sure at 95%).\n\n## Findings\n\n");
    shape_finding(data, &mut md);
    complexity_finding(data, &mut md);
    balance_finding(data, &mut md);
    chain_finding(data, &mut md);
    sensitivity_finding(data, &mut md);
    accuracy_finding(data, &mut md);
    learning_finding(figures, &mut md);
    md.push_str("## Plots\n\n");
    md.push_str(plots);
    md.push_str("## Raw data\n\n`summary.csv` (the table above), `shape.csv`, `lengths.csv` (game-length counts), `balance.csv`, `matches.csv` (every skill-chain pair), `accuracy.csv` (every agent level, overall and by phase), `learning.csv`, and `results.json` (all of it, with the command and seed).\n");
    md
}

/// The summary table: one row per variant.
pub fn summary(figures: &Figures) -> Table {
    let mut head: Vec<String> = [
        "variant",
        "rules",
        "solved (perfect play)",
        "plies per game",
        "branching",
        "log10 game tree",
        "distinct positions",
        "truncated",
        "1st player wins: random",
    ]
    .map(String::from)
    .to_vec();
    head.extend(
        BALANCE_AGENTS
            .iter()
            .map(|a| format!("1st player wins: {a}")),
    );
    head.extend(["skill chain: MCTS", "skill chain: alpha-beta"].map(String::from));
    head.push(format!("critical accuracy: {}", strongest()));
    head.push(learning_head(figures.learning_plan.map(|p| p.iterations)));
    let rows = figures
        .variants
        .iter()
        .map(|d| {
            let s = &d.shape;
            let mut row = vec![
                d.variant.clone(),
                d.rules.summary(),
                d.solved.cell(),
                mean_cell(&s.plies, 1),
                s.branching
                    .value()
                    .map_or(NOT_MEASURED.into(), |b| format!("{b:.2}")),
                s.log10_game_tree
                    .map_or(NOT_MEASURED.into(), |g| format!("{g:.1}")),
                s.distinct_positions
                    .map_or(NOT_MEASURED.into(), |p| format!("{p:.3e}")),
                rate_cell(s.truncated),
                rate_cell(s.first_player_wins),
            ];
            for spec in BALANCE_AGENTS {
                row.push(
                    d.balance_of(spec)
                        .map_or(NOT_MEASURED.into(), |t| rate_cell(t.first_player_wins())),
                );
            }
            for family in ["mcts", "alphabeta"] {
                row.push(d.chain_of(family).map_or(NOT_MEASURED.into(), chain_cell));
            }
            row.push(d.accuracy.of(strongest()).map_or(NOT_MEASURED.into(), |a| {
                rate_cell(a.kept.keeps_result_critical)
            }));
            row.push(learning_cell(&d.learning));
            row
        })
        .collect();
    Table { head, rows }
}

/// The strongest agent of the accuracy ladder, which the summary shows.
fn strongest() -> &'static str {
    ACCURACY_AGENTS[ACCURACY_AGENTS.len() - 1]
}

/// A rate and its interval, e.g. `52.0% [48.9, 55.1]`; "not measured" below [`MIN_GAMES`].
pub fn rate_cell(rate: Rate) -> String {
    match measured(rate) {
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

fn chain_cell(chain: &Chain) -> String {
    match chain {
        Chain::Measured {
            levels,
            chain,
            sure_chain,
            ..
        } => format!(
            "{} of {} (sure: {})",
            chain.len(),
            levels.len(),
            sure_chain.len()
        ),
        Chain::NotMeasured { .. } => NOT_MEASURED.to_string(),
    }
}

/// The summary's learning column: the network's policy's accuracy on the critical positions
/// after the iterations every variant trains.
fn learning_head(iterations: Option<u64>) -> String {
    match iterations {
        Some(n) => format!("learning: policy's critical accuracy after {n} iterations"),
        None => "learning: policy's critical accuracy".to_string(),
    }
}

/// How often the network's policy alone kept the result in the critical positions after the
/// last iteration.
fn learning_cell(learning: &LearningFigures) -> String {
    learning.last().map_or(NOT_MEASURED.into(), |p| {
        rate_cell(p.policy_alone.keeps_result_critical)
    })
}

/// Whether an interval excludes one half, in words.
fn verdict(rate: Rate) -> &'static str {
    match measured(rate) {
        Some((lo, _)) if lo > 0.5 => "favours the first player",
        Some((_, hi)) if hi < 0.5 => "favours the second player",
        Some(_) => "no significant edge",
        None => NOT_MEASURED,
    }
}

/// Variants sorted by a figure, with the figure, for the findings' sentences.
fn ranked(
    data: &[VariantFigures],
    figure: impl Fn(&VariantFigures) -> Option<f64>,
) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = data
        .iter()
        .filter_map(|d| Some((d.variant.clone(), figure(d)?)))
        .collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// Rows of text cells under `head`, as a Markdown table followed by a blank line.
fn table(out: &mut String, head: &[&str], rows: Vec<Vec<String>>) {
    let head = head.iter().map(|h| h.to_string()).collect();
    out.push_str(&Table { head, rows }.markdown());
    out.push('\n');
}

fn shape_finding(data: &[VariantFigures], out: &mut String) {
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
    let rows = data
        .iter()
        .map(|d| {
            let s = &d.shape;
            let q = |p: f64| {
                s.lengths
                    .quantile(p)
                    .map_or(NOT_MEASURED.into(), |v| v.to_string())
            };
            vec![
                d.variant.clone(),
                s.games.to_string(),
                mean_cell(&s.plies, 1),
                q(0.5),
                q(0.9),
                mean_cell(&s.branching, 2),
                mean_cell(&s.laps, 2),
                mean_cell(&s.sown, 1),
                rate_cell(s.endless_positions),
                rate_cell(s.endless_games),
                rate_cell(s.truncated),
            ]
        })
        .collect();
    table(
        out,
        &[
            "variant",
            "games",
            "plies per game",
            "median",
            "90th percentile",
            "branching",
            "laps per move",
            "seeds sown per move",
            "positions with an endless move",
            "games meeting one",
            "truncated",
        ],
        rows,
    );
}

fn complexity_finding(data: &[VariantFigures], out: &mut String) {
    out.push_str("### Complexity estimates\n\n");
    let trees = ranked(data, |d| d.shape.log10_game_tree);
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
    let rows = data
        .iter()
        .map(|d| {
            let s = &d.shape;
            vec![
                d.variant.clone(),
                s.log10_game_tree
                    .map_or(NOT_MEASURED.into(), |g| format!("{g:.1}")),
                mean_cell(&s.log_paths, 1),
                s.distinct_positions
                    .map_or(NOT_MEASURED.into(), |p| format!("{p:.0}")),
                (s.games + s.branching.n).to_string(),
            ]
        })
        .collect();
    table(
        out,
        &[
            "variant",
            "log10 game tree (b^d)",
            "mean log10 paths per game",
            "distinct positions",
            "positions visited",
        ],
        rows,
    );
}

fn balance_finding(data: &[VariantFigures], out: &mut String) {
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
    let measured_row =
        |variant: &str, agent: &str, games: u64, wins: Rate, draws: Rate, decisive| {
            vec![
                variant.to_string(),
                agent.to_string(),
                games.to_string(),
                rate_cell(wins),
                rate_cell(draws),
                rate_cell(decisive),
                verdict(decisive).to_string(),
            ]
        };
    let mut rows = Vec::new();
    for d in data {
        let s = &d.shape;
        rows.push(measured_row(
            &d.variant,
            "random",
            s.games,
            s.first_player_wins,
            s.draws,
            s.outcomes.decisive_first(),
        ));
        for b in &d.balance {
            match b.tally() {
                Some(t) => rows.push(measured_row(
                    &d.variant,
                    b.agent(),
                    t.games,
                    t.first_player_wins(),
                    t.draw_rate(),
                    decisive_first(t),
                )),
                None => rows.push(vec![
                    d.variant.clone(),
                    b.agent().to_string(),
                    "0".to_string(),
                    format!("{NOT_MEASURED} (budget too small for {MIN_GAMES} games)"),
                    String::new(),
                    String::new(),
                    String::new(),
                ]),
            }
        }
    }
    table(
        out,
        &[
            "variant",
            "agent",
            "games",
            "1st player wins",
            "draws",
            "1st player's share of decisive games",
            "verdict",
        ],
        rows,
    );
}

/// The first player's wins among the games of `t` someone won.
fn decisive_first(t: &Tally) -> Rate {
    crate::compare::figures::decisive_first(t.south_wins, t.north_wins)
}

fn chain_finding(data: &[VariantFigures], out: &mut String) {
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
    let mut chains = Vec::new();
    let mut pairs = Vec::new();
    for d in data {
        for c in &d.chains {
            match c {
                Chain::Measured {
                    levels,
                    games_per_pair,
                    chain,
                    sure_chain,
                    pairs: played,
                    ..
                } => {
                    chains.push(vec![
                        d.variant.clone(),
                        c.label().to_string(),
                        levels.len().to_string(),
                        games_per_pair.to_string(),
                        format!("{} ({})", chain.len(), chain.join(" → ")),
                        sure_chain.len().to_string(),
                    ]);
                    pairs.extend(played.iter().map(|p| {
                        let t = &p.tally;
                        vec![
                            d.variant.clone(),
                            p.stronger.clone(),
                            p.weaker.clone(),
                            t.games.to_string(),
                            t.a_wins.to_string(),
                            (t.draws + t.truncated).to_string(),
                            t.b_wins.to_string(),
                            rate_cell(p.score),
                        ]
                    }));
                }
                Chain::NotMeasured { .. } => chains.push(vec![
                    d.variant.clone(),
                    c.label().to_string(),
                    "0".to_string(),
                    "0".to_string(),
                    format!(
                        "{NOT_MEASURED} (budget too small for two levels at {MIN_GAMES} games)"
                    ),
                    String::new(),
                ]),
            }
        }
    }
    table(
        out,
        &[
            "variant",
            "family",
            "levels tried",
            "games per pair",
            "chain",
            "sure chain",
        ],
        chains,
    );
    out.push_str("Every pair played, with the stronger agent's score:\n\n");
    table(
        out,
        &[
            "variant",
            "stronger",
            "weaker",
            "games",
            "wins",
            "draws",
            "losses",
            "score [95%]",
        ],
        pairs,
    );
}

fn sensitivity_finding(data: &[VariantFigures], out: &mut String) {
    out.push_str("### Search sensitivity\n\n");
    let mut ks: Vec<u64> = data
        .iter()
        .flat_map(|d| d.sensitivity.iter().map(|s| s.k))
        .collect();
    ks.sort_unstable();
    ks.dedup();
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
    let mut head = vec!["variant".to_string()];
    head.extend(ks.iter().map(|k| format!("{} vs {k}", 2 * k)));
    let rows = data
        .iter()
        .map(|d| {
            let mut row = vec![d.variant.clone()];
            row.extend(ks.iter().map(|k| {
                d.sensitivity
                    .iter()
                    .find(|s| s.k == *k)
                    .map_or(NOT_MEASURED.into(), |s| rate_cell(s.score))
            }));
            row
        })
        .collect();
    out.push_str(&Table { head, rows }.markdown());
    out.push('\n');
}

fn accuracy_finding(data: &[VariantFigures], out: &mut String) {
    out.push_str("### Accuracy against exact positions\n\n");
    let measured: Vec<&VariantFigures> = data
        .iter()
        .filter(|d| matches!(d.accuracy, AccuracyFigures::Measured { .. }))
        .collect();
    if measured.is_empty() {
        let reasons: Vec<String> = data
            .iter()
            .filter_map(|d| match &d.accuracy {
                AccuracyFigures::NotMeasured { not_measured } => {
                    Some(format!("{}: {not_measured}", d.variant))
                }
                AccuracyFigures::Measured { .. } => None,
            })
            .collect();
        let _ = writeln!(out, "Not measured ({}).\n", reasons.join("; "));
        return;
    }
    let _ = writeln!(
        out,
        "Each agent of a fixed ladder ({}) chose a move in each of the first positions of the \
         variant's committed set of exact positions (`data/positions/VARIANT.jsonl`, every move \
         labelled with its perfect-play result by a tablebase or an exact search), each position \
         a fresh game. A move keeps the result when its exact result (win, draw or loss, with \
         best play after it) is the position's. Critical positions are those where some move \
         does not keep it: in the others every move does, and random play does as well as \
         perfect play. A move keeps the best margin when no other move leads to a better \
         margin (the seeds the mover captures from here on less those the opponent captures). \
         Rates with Wilson 95% intervals. The same search playing less \
         accurately marks a harder variant: {} The sets of different variants hold different \
         positions (their phases, how many are critical), so the critical column, and the order \
         of the agents within a variant, compare better than single figures.\n",
        ACCURACY_AGENTS.join(", "),
        hardest_sentence(&measured),
    );
    let mut rows = Vec::new();
    for d in data {
        match &d.accuracy {
            AccuracyFigures::Measured {
                positions, agents, ..
            } => rows.extend(agents.iter().map(|a| {
                vec![
                    d.variant.clone(),
                    a.agent.clone(),
                    positions.to_string(),
                    rate_cell(a.kept.keeps_result),
                    format!(
                        "{} ({})",
                        rate_cell(a.kept.keeps_result_critical),
                        a.kept.keeps_result_critical.n
                    ),
                    rate_cell(a.kept.keeps_margin),
                ]
            })),
            AccuracyFigures::NotMeasured { not_measured } => rows.push(vec![
                d.variant.clone(),
                String::new(),
                "0".to_string(),
                format!("{NOT_MEASURED} ({not_measured})"),
                String::new(),
                String::new(),
            ]),
        }
    }
    table(
        out,
        &[
            "variant",
            "agent",
            "positions",
            "keeps the result",
            "critical positions (n)",
            "keeps the best margin",
        ],
        rows,
    );
}

/// Which measured variant the strongest agent of the ladder plays least accurately in, in words.
fn hardest_sentence(measured: &[&VariantFigures]) -> String {
    let spec = strongest();
    let critical = |d: &VariantFigures| {
        let rate = d.accuracy.of(spec)?.kept.keeps_result_critical;
        measured_value(rate)
    };
    let ranked: Vec<(String, f64)> = {
        let mut v: Vec<(String, f64)> = measured
            .iter()
            .filter_map(|d| Some((d.variant.clone(), critical(d)?)))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    };
    match ranked.as_slice() {
        [] => format!(
            "{spec} met too few critical positions (fewer than {MIN_GAMES}) to say which variant \
             is harder."
        ),
        [(only, _)] => format!(
            "only {only} has enough exact positions measured, so no variant can be compared with \
             another yet."
        ),
        [(easiest, high), .., (hardest, low)] => format!(
            "{spec} keeps the result in {:.1}% of the critical positions of {easiest} and {:.1}% \
             of those of {hardest}, the hardest variant for it by this measure (the intervals \
             below say whether the difference is sure).",
            100.0 * high,
            100.0 * low
        ),
    }
}

/// A rate's value when it rests on enough trials to be reported.
fn measured_value(rate: Rate) -> Option<f64> {
    measured(rate).and(rate.value())
}

fn learning_finding(figures: &Figures, out: &mut String) {
    out.push_str("### Learnability\n\n");
    let data = &figures.variants;
    let reasons: Vec<&str> = data
        .iter()
        .filter_map(|d| match &d.learning {
            LearningFigures::NotMeasured { not_measured } => Some(not_measured.as_str()),
            LearningFigures::Measured { .. } => None,
        })
        .collect();
    let Some(plan) = figures.learning_plan.filter(|_| reasons.len() < data.len()) else {
        let _ = writeln!(
            out,
            "Not measured: {}.\n",
            reasons.first().copied().unwrap_or("no variant")
        );
        return;
    };
    let _ = writeln!(
        out,
        "The AlphaZero trainer (`sowing train`) ran afresh on every preset for the same \
         {} iterations, a count the plan fixes from the learning share of the budget \
         (never the clock): {GAMES_PER_ITERATION} self-play games an iteration of \
         {SIMULATIONS} PUCT simulations a move, the trainer's defaults otherwise, no games \
         against baselines. {}, the network chose a move in every position of the preset's committed set of exact \
         positions, with {SIMULATIONS} simulations and with its policy alone: how often the \
         move keeps the exact result, with Wilson 95% intervals. On the CPU the same seed and \
         threads train the same network again (a GPU, or another processor's libtorch kernels, \
         may round differently). A preset where the network's policy alone keeps the result \
         less often in the critical positions (where some move gives it away) after the same \
         training is harder to learn, by this measure (over all positions every preset scores \
         within a few points of the top): {} The sets of different presets hold different positions (phases, critical shares), so the gain \
         from the first evaluation to the last, on the same set, says as much as the final \
         figure. Rules files are not trained (the trainer takes presets).\n",
        plan.iterations,
        match plan.eval_every {
            1 => "After every iteration".to_string(),
            k => format!("After the first iteration and every {k} iterations"),
        },
        learning_sentence(&figures.learning_ranking.neighbours),
    );
    let iterations = plan.iterations;
    if !figures.learning_ranking.neighbours.is_empty() {
        for n in &figures.learning_ranking.neighbours {
            let _ = writeln!(
                out,
                "- {}",
                separation_line(n, "harder to learn", "less accurate than")
            );
        }
        out.push('\n');
    }
    let rows = data
        .iter()
        .map(|d| match &d.learning {
            LearningFigures::Measured {
                positions, curve, ..
            } => {
                let first = curve.first().expect("a measured curve has evaluations");
                let last = curve.last().expect("a measured curve has evaluations");
                vec![
                    d.variant.clone(),
                    positions.to_string(),
                    curve.len().to_string(),
                    rate_cell(first.search.keeps_result),
                    rate_cell(last.search.keeps_result),
                    format!(
                        "{} ({})",
                        rate_cell(last.search.keeps_result_critical),
                        last.search.keeps_result_critical.n
                    ),
                    rate_cell(first.policy_alone.keeps_result),
                    rate_cell(last.policy_alone.keeps_result),
                    rate_cell(first.policy_alone.keeps_result_critical),
                    rate_cell(last.policy_alone.keeps_result_critical),
                ]
            }
            LearningFigures::NotMeasured { not_measured } => vec![
                d.variant.clone(),
                "0".to_string(),
                "0".to_string(),
                format!("{NOT_MEASURED} ({not_measured})"),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ],
        })
        .collect();
    let after = format!("after {iterations}");
    table(
        out,
        &[
            "variant",
            "positions",
            "evaluations",
            "keeps the result: after 1",
            &format!("keeps the result: {after}"),
            &format!("critical positions, {after} (n)"),
            "policy alone: after 1",
            &format!("policy alone: {after}"),
            "policy alone, critical: after 1",
            &format!("policy alone, critical: {after}"),
        ],
        rows,
    );
}

/// What the learning ranking says, in words.
fn learning_sentence(neighbours: &[Separation]) -> String {
    match neighbours {
        [] => "only one preset was measured, so none can be compared with another yet.".into(),
        _ => {
            let separated = neighbours
                .iter()
                .filter(|n| n.verdict == Verdict::Separated)
                .count();
            format!(
                "from the least accurate, below, each preset against the next, the difference in \
                 points of accuracy with Newcombe's 95% interval (the two sets are independent \
                 samples); neighbouring pairs separated at 95%: {separated} of {}.",
                neighbours.len()
            )
        }
    }
}

/// One neighbour pair of a ranking, in words: the first `harder` (`harder`, `harder to learn`)
/// than the second, or `above` it while not separated.
fn separation_line(n: &Separation, harder: &str, above: &str) -> String {
    let interval = format!("{:+.1} [{:+.1}, {:+.1}]", n.difference, n.lo95, n.hi95);
    match n.verdict {
        Verdict::Separated => format!(
            "{} is {harder} than {}: {interval} points, separated at 95%.",
            n.harder, n.easier
        ),
        Verdict::Equal => format!(
            "{} and {} are equal within {EQUAL_POINTS:.0} points: {interval}.",
            n.harder, n.easier
        ),
        Verdict::NotSeparated => format!(
            "{} {above} {}: {interval} points, not separated yet{}.",
            n.harder,
            n.easier,
            n.positions_factor.map_or(String::new(), |f| format!(
                " (about {f:.1} times the positions of both sets would separate a difference \
                 this large)"
            ))
        ),
    }
}

/// The report's opening answer: the variants ranked by the difficulty score, what separates
/// each from the next, and which variants have no score and why.
fn ranking_section(figures: &Figures, out: &mut String) {
    out.push_str("## Which variant is hardest\n\n");
    let ranking = &figures.ranking;
    let _ = writeln!(
        out,
        "Ranked by the difficulty score: in each critical position of the variant's committed \
         set of exact positions (one where some move gives the exact result away), the share of \
         the fixed agent ladder ({}) whose move gives it away, averaged over the critical \
         positions, in points (0: the ladder never errs), with its 95% interval. The budgets are \
         counted, so any machine gives these figures. Neighbours are separated when the 95% \
         interval of their difference excludes 0, and shown equal when it lies within \
         ±{EQUAL_POINTS:.0} points. Each set comes from strong play, labelled exactly where \
         tables and search reach: a set without the mid-game (see its phases under accuracy) \
         scores the endgame.\n",
        ACCURACY_AGENTS.join(", ")
    );
    if ranking.variants.is_empty() {
        out.push_str("No variant has a score yet.\n\n");
    } else {
        ranked_table(
            out,
            &ranking.variants,
            &ranking.neighbours,
            ["difficulty (points)", "critical positions"],
        );
        if let Some(matched) = &ranking.phase_matched {
            phase_matched_section(matched, out);
        }
    }
    let unranked: Vec<String> = figures
        .variants
        .iter()
        .filter(|v| !ranking.variants.iter().any(|r| r.variant == v.variant))
        .map(|v| match &v.accuracy {
            AccuracyFigures::NotMeasured { not_measured } => {
                format!("{}: {not_measured}", v.variant)
            }
            AccuracyFigures::Measured { .. } => format!(
                "{}: fewer than {MIN_CRITICAL} critical positions measured",
                v.variant
            ),
        })
        .collect();
    if !unranked.is_empty() {
        let _ = writeln!(out, "Not ranked: {}.\n", unranked.join("; "));
    }
}

/// A ranking's table (rank, variant, score with its interval, critical positions, under the
/// heads `score`) and a line for each neighbour pair.
fn ranked_table(
    out: &mut String,
    variants: &[RankedVariant],
    neighbours: &[Separation],
    score: [&str; 2],
) {
    let rows = variants
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let d = &r.difficulty;
            vec![
                (i + 1).to_string(),
                r.variant.clone(),
                format!("{:.1} [{:.1}, {:.1}]", d.points, d.lo95, d.hi95),
                d.critical.to_string(),
            ]
        })
        .collect();
    table(out, &["rank", "variant", score[0], score[1]], rows);
    for n in neighbours {
        let _ = writeln!(out, "- {}", separation_line(n, "harder", "above"));
    }
    if !neighbours.is_empty() {
        out.push('\n');
    }
}

/// The ranking again on the phases every ranked set reaches, each phase weighted alike for
/// every variant, so that sets of different phases compare like with like.
fn phase_matched_section(matched: &PhaseMatchedRanking, out: &mut String) {
    let phases: Vec<String> = matched
        .phases
        .iter()
        .map(|p| {
            format!(
                "{}-{}% ({:.0}%)",
                p.low_percent,
                p.high_percent,
                100.0 * p.weight
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "### On the same phases\n\n\
         The sets reach different phases, and the ladder errs more with more seeds on the \
         board, so the ranking above ranks the sets' phases as much as the games. Here each \
         variant is scored on the phases every ranked set holds at least {MIN_PHASE_CRITICAL} \
         critical positions of (seeds on the board in percent of the start's, with the weight \
         each phase has in every variant's score): {}. A variant's score is its mean share in \
         each phase, weighted alike for all, with its 95% interval; neighbours as above.\n",
        phases.join(", ")
    );
    ranked_table(
        out,
        &matched.variants,
        &matched.neighbours,
        [
            "difficulty on the same phases (points)",
            "critical positions in them",
        ],
    );
    if !matched.phase_sets.is_empty() {
        let sets: Vec<String> = matched
            .phase_sets
            .iter()
            .map(|p| format!("{}: {} positions of {}", p.variant, p.positions, p.file))
            .collect();
        let _ = writeln!(
            out,
            "Counted here beside the committed sets' positions, from phase sets (positions \
             drawn from chosen phases only, `sowing positions --phases`): {}.\n",
            sets.join("; ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::config::{Config, Variant};
    use crate::compare::difficulty::{CriticalShare, Difficulty};
    use crate::compare::figures::{AccuracyData, VariantData};
    use crate::compare::learn::{CurvePoint, Learning};
    use crate::compare::plan::{Allowance, LearningPlan};
    use crate::compare::solved::Solved;
    use sowing_env::Rules;
    use sowing_eval::accuracy::Kept;

    /// A variant whose network kept the result in `first` then `last` of 2,000 positions.
    fn trained(name: &str, first: f64, last: f64) -> VariantData {
        let kept = |result: f64| Kept {
            result: Rate::new(result, 2000),
            critical: Rate::new(result - 1500.0, 500),
            margin: Rate::new(700.0, 1000),
        };
        let point = |iteration, result| CurvePoint {
            iteration,
            search: kept(result),
            policy: kept(result - 100.0),
        };
        VariantData {
            variant: Variant {
                name: name.to_string(),
                rules: Rules::preset(name).unwrap(),
            },
            shape: Default::default(),
            balance: Vec::new(),
            chains: Vec::new(),
            accuracy: AccuracyData::NotMeasured("not here".to_string()),
            learning: Learning::Curve {
                iterations: 8,
                file: format!("data/positions/{name}.jsonl"),
                points: vec![point(1, first), point(8, last)],
            },
            solved: Solved::NotProven { positions: 0 },
        }
    }

    fn figures(data: &[VariantData]) -> Figures {
        let config = Config {
            variants: data.iter().map(|d| d.variant.clone()).collect(),
            budget: "2m".parse().unwrap(),
            out: "out".into(),
            seed: 0,
            threads: 1,
            max_units: None,
            command: vec!["sowing".to_string(), "compare".to_string()],
            tablebases: Vec::new(),
        };
        let allowance = Allowance::split(config.budget, 1, data.len(), true, true);
        let plan = LearningPlan {
            iterations: 8,
            eval_every: 1,
        };
        Figures::new(&config, &allowance, Some(&plan), data)
    }

    #[test]
    fn learning_is_the_accuracy_after_the_planned_iterations() {
        let mut rules_file = trained("en-dodoi-7", 0.0, 0.0);
        rules_file.learning = Learning::NotMeasured("a rules file".to_string());
        let f = figures(&[
            trained("en-dodoi-6", 1700.0, 1900.0),
            trained("cross-endodoi", 1600.0, 1700.0),
            trained("en-dodoi-8", 1600.0, 1880.0),
            rules_file,
        ]);
        let summary = summary(&f);
        assert_eq!(
            summary.head.last().unwrap(),
            "learning: policy's critical accuracy after 8 iterations"
        );
        let column: Vec<&str> = summary
            .rows
            .iter()
            .map(|r| r.last().unwrap().as_str())
            .collect();
        // The policy alone on the 500 critical positions: 100 fewer kept than with search.
        assert_eq!(
            column,
            [
                "60.0% [55.6, 64.2]",
                "20.0% [16.7, 23.7]",
                "56.0% [51.6, 60.3]",
                NOT_MEASURED
            ]
        );
        // Least accurate first: cross-endodoi well below, en-dodoi-8 and en-dodoi-6 four
        // points apart on 500 critical positions each, not separated.
        let ranked: Vec<&str> = f
            .learning_ranking
            .variants
            .iter()
            .map(|v| v.variant.as_str())
            .collect();
        assert_eq!(ranked, ["cross-endodoi", "en-dodoi-8", "en-dodoi-6"]);
        let mut md = String::new();
        learning_finding(&f, &mut md);
        assert!(md.contains("the same 8 iterations"), "{md}");
        assert!(md.contains("pairs separated at 95%: 1 of 2."), "{md}");
        assert!(
            md.contains("- cross-endodoi is harder to learn than en-dodoi-8: +36.0 ["),
            "{md}"
        );
        assert!(
            md.contains("- en-dodoi-8 less accurate than en-dodoi-6: +4.0 ["),
            "{md}"
        );
        // The table: positions, evaluations, first and last, critical with its count, policy.
        assert!(
            md.contains(
                "| en-dodoi-6 | 2000 | 2 | 85.0% [83.4, 86.5] | 95.0% [94.0, 95.9] | \
                 80.0% [76.3, 83.3] (500) | 80.0% [78.2, 81.7] | 90.0% [88.6, 91.2] | \
                 20.0% [16.7, 23.7] | 60.0% [55.6, 64.2] |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| en-dodoi-7 | 0 | 0 | not measured (a rules file) |"),
            "{md}"
        );
    }

    /// `trained(name)` with a ladder measured: `early` critical positions in phase 1 where the
    /// ladder errs `early_points`, `late` in phase 6 at `late_points` (half of each 10 points
    /// above, half below).
    fn laddered(
        name: &str,
        (early, early_points): (usize, f64),
        (late, late_points): (usize, f64),
    ) -> VariantData {
        let mut d = trained(name, 0.0, 0.0);
        let mut critical = Vec::new();
        for (phase, n, points) in [(1, early, early_points), (6, late, late_points)] {
            critical.extend((0..n).map(|i| CriticalShare {
                phase,
                points: points + if i % 2 == 0 { 10.0 } else { -10.0 },
            }));
        }
        d.accuracy = AccuracyData::Measured {
            file: format!("data/positions/{name}.jsonl"),
            positions: 2000,
            agents: Vec::new(),
            difficulty: Difficulty::of_critical(&critical),
            critical,
            phase_set: None,
        };
        d
    }

    #[test]
    fn the_ranking_is_given_again_on_the_phases_every_set_reaches() {
        // The same game (20 points early, 50 late), one set mostly early, one mostly late; a
        // third set easier early and without the late phase.
        let f = figures(&[
            laddered("en-dodoi-6", (900, 20.0), (100, 50.0)),
            laddered("en-dodoi-8", (100, 20.0), (900, 50.0)),
            laddered("en-dodoi-10", (400, 10.0), (0, 0.0)),
        ]);
        let plain: Vec<&str> = f
            .ranking
            .variants
            .iter()
            .map(|v| v.variant.as_str())
            .collect();
        assert_eq!(plain, ["en-dodoi-8", "en-dodoi-6", "en-dodoi-10"]);
        let matched = f.ranking.phase_matched.as_ref().expect("a phase in common");
        assert_eq!(matched.phases.len(), 1, "only 10-20% is in every set");
        let mut md = String::new();
        ranking_section(&f, &mut md);
        assert!(
            md.contains("### On the same phases\n\nThe sets reach"),
            "{md}"
        );
        assert!(md.contains(": 10-20% (100%). A variant's score"), "{md}");
        // On the phase they share, en-dodoi-6 and en-dodoi-8 score alike and en-dodoi-10 below.
        assert!(
            md.contains("- en-dodoi-8 is harder than en-dodoi-6: +24.0 ["),
            "the plain ranking ranks the phases: {md}"
        );
        let after = md.split("### On the same phases").nth(1).unwrap();
        assert!(
            after.contains("| 3 | en-dodoi-10 | 10.0 [9.0, 11.0] | 400 |"),
            "{after}"
        );
        assert!(
            after.contains("and en-dodoi-6 are equal within 3 points: +0.0 [")
                || after.contains("and en-dodoi-8 are equal within 3 points: +0.0 ["),
            "{after}"
        );
    }

    #[test]
    fn learning_not_measured_says_why() {
        let mut d = trained("en-dodoi-6", 0.0, 0.0);
        d.learning = Learning::NotMeasured("this build has no trainer".to_string());
        let mut f = figures(&[d]);
        f.learning_plan = None;
        assert_eq!(
            summary(&f).head.last().unwrap(),
            "learning: policy's critical accuracy"
        );
        let mut md = String::new();
        learning_finding(&f, &mut md);
        assert_eq!(
            md,
            "### Learnability\n\nNot measured: this build has no trainer.\n\n"
        );
    }
}
