//! The report's plots, drawn from the figures into `DIR/plots`: balance per agent, skill chains,
//! search sensitivity, game lengths, accuracy per agent level and learning curves.

use crate::compare::figures::{Figures, measured};
use crate::compare::learn::Learning;
use crate::compare::plan::{ACCURACY_AGENTS, BALANCE_AGENTS};
use crate::plot::{
    Bar, BarChart, BarSeries, LineChart, PlotError, Point, Series, write_bar_chart,
    write_line_chart,
};
use sowing_eval::stats::Rate;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Draw the plots into `DIR/plots` and return the Markdown that shows them (or says why not).
pub fn draw(out: &Path, figures: &Figures) -> String {
    let data = &figures.variants;
    let dir = out.join("plots");
    if let Err(e) = fs::create_dir_all(&dir) {
        return format!("Plots not drawn: cannot create {}: {e}.\n\n", dir.display());
    }
    let groups: Vec<String> = data.iter().map(|d| d.variant.clone()).collect();
    let bar = |r: Rate| -> Option<Bar> {
        measured(r).map(|interval| (r.value().expect("n > 0"), Some(interval)))
    };
    let point = |x: f64, r: Rate| -> Option<Point> {
        measured(r).map(|interval| Point {
            x,
            y: r.value().expect("n > 0"),
            interval: Some(interval),
        })
    };
    let mut balance_series = vec![BarSeries {
        label: "random".to_string(),
        values: data
            .iter()
            .map(|d| bar(d.shape.first_player_wins))
            .collect(),
    }];
    for spec in BALANCE_AGENTS {
        balance_series.push(BarSeries {
            label: spec.to_string(),
            values: data
                .iter()
                .map(|d| bar(d.balance_of(spec)?.first_player_wins()))
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
                    .map(|d| match d.chain_of(family)? {
                        crate::compare::figures::Chain::Measured {
                            chain, sure_chain, ..
                        } => {
                            let len = if sure { sure_chain.len() } else { chain.len() };
                            Some((len as f64, None))
                        }
                        crate::compare::figures::Chain::NotMeasured { .. } => None,
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
    let sensitivity = LineChart {
        title: "Search sensitivity: MCTS 2k against k simulations".to_string(),
        x_label: "log2(k / 10)".to_string(),
        y_label: "score of 2k".to_string(),
        y_range: Some((0.0, 1.0)),
        series: data
            .iter()
            .map(|d| Series {
                label: d.variant.clone(),
                points: d
                    .sensitivity
                    .iter()
                    .filter_map(|s| point((s.k as f64 / 10.0).log2(), s.score))
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
                label: d.variant.clone(),
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
    let accuracy = BarChart {
        title: "Critical positions where each agent keeps the result (95% intervals)".to_string(),
        y_label: "share of critical positions".to_string(),
        y_range: None,
        groups: groups.clone(),
        series: ACCURACY_AGENTS
            .iter()
            .map(|spec| BarSeries {
                label: spec.to_string(),
                values: data
                    .iter()
                    .map(|d| bar(d.accuracy.of(spec)?.kept.keeps_result_critical))
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
                    label: d.variant.clone(),
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
        has_lines(&sensitivity).then(|| write_line_chart(&sensitivity, &dir.join("sensitivity"))),
    );
    show(
        "lengths",
        "Game-length distributions",
        has_lines(&lengths).then(|| write_line_chart(&lengths, &dir.join("lengths"))),
    );
    show(
        "accuracy",
        "Accuracy per agent level",
        has_bars(&accuracy).then(|| write_bar_chart(&accuracy, &dir.join("accuracy"))),
    );
    show(
        "learning",
        "Learning curves",
        has_lines(&learning).then(|| write_line_chart(&learning, &dir.join("learning"))),
    );
    md
}
