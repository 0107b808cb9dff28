//! The report's plots, drawn from the figures into `DIR/plots`: balance per agent, skill chains,
//! search sensitivity, game lengths, accuracy per agent level and learning curves.

use crate::compare::figures::{Chain, Figures, VariantFigures, measured};
use crate::compare::plan::{ACCURACY_AGENTS, BALANCE_AGENTS};
use crate::plot::{
    Bar, BarChart, BarSeries, LineChart, PlotError, Point, Series, write_bar_chart,
    write_line_chart,
};
use sowing_eval::stats::Rate;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// A plot of the report: a bar chart (one bar per variant and series) or a line chart.
enum Plot {
    Bars(BarChart),
    Lines(LineChart),
}

impl Plot {
    /// Whether it shows anything.
    fn has_data(&self) -> bool {
        match self {
            Plot::Bars(c) => c
                .series
                .iter()
                .any(|s| s.values.iter().any(Option::is_some)),
            Plot::Lines(c) => c.series.iter().any(|s| !s.points.is_empty()),
        }
    }

    fn write(&self, base: &Path) -> Result<Vec<PathBuf>, PlotError> {
        match self {
            Plot::Bars(c) => write_bar_chart(c, base),
            Plot::Lines(c) => write_line_chart(c, base),
        }
    }
}

/// Draw the plots into `DIR/plots` and return the Markdown that shows them (or says why not).
pub fn draw(out: &Path, figures: &Figures) -> String {
    let dir = out.join("plots");
    if let Err(e) = fs::create_dir_all(&dir) {
        return format!("Plots not drawn: cannot create {}: {e}.\n\n", dir.display());
    }
    let data = &figures.variants;
    let plots = [
        ("balance", "Balance per agent", balance(data)),
        ("skill-chains", "Skill chains", chains(data)),
        ("sensitivity", "Search sensitivity", sensitivity(data)),
        ("lengths", "Game-length distributions", lengths(data)),
        ("accuracy", "Accuracy per agent level", accuracy(data)),
        ("learning", "Learning curves", learning(data)),
    ];
    let mut md = String::new();
    for (name, caption, plot) in plots {
        if !plot.has_data() {
            let _ = writeln!(md, "{caption}: not drawn (nothing measured).\n");
            continue;
        }
        match plot.write(&dir.join(name)) {
            Ok(_) => {
                let _ = writeln!(
                    md,
                    "![{caption}](plots/{name}.png) ([SVG](plots/{name}.svg))\n"
                );
            }
            Err(e) => {
                let _ = writeln!(md, "{caption}: not drawn ({e}).\n");
            }
        }
    }
    md
}

/// The variants' names, the groups of a bar chart.
fn groups(data: &[VariantFigures]) -> Vec<String> {
    data.iter().map(|d| d.variant.clone()).collect()
}

/// A measured rate as a bar with its interval.
fn bar(r: Rate) -> Option<Bar> {
    measured(r).map(|interval| (r.value().expect("n > 0"), Some(interval)))
}

/// A measured rate as a point at `x` with its interval.
fn point(x: f64, r: Rate) -> Option<Point> {
    measured(r).map(|interval| Point {
        x,
        y: r.value().expect("n > 0"),
        interval: Some(interval),
    })
}

fn balance(data: &[VariantFigures]) -> Plot {
    let mut series = vec![BarSeries {
        label: "random".to_string(),
        values: data
            .iter()
            .map(|d| bar(d.shape.first_player_wins))
            .collect(),
    }];
    for spec in BALANCE_AGENTS {
        series.push(BarSeries {
            label: spec.to_string(),
            values: data
                .iter()
                .map(|d| bar(d.balance_of(spec)?.first_player_wins()))
                .collect(),
        });
    }
    Plot::Bars(BarChart {
        title: "First player's wins in self-play (95% intervals)".to_string(),
        y_label: "share of games won by the first player".to_string(),
        y_range: Some((0.0, 1.0)),
        groups: groups(data),
        series,
    })
}

fn chains(data: &[VariantFigures]) -> Plot {
    let series = ["mcts", "alphabeta"]
        .iter()
        .flat_map(|family| {
            let name = if *family == "mcts" {
                "MCTS"
            } else {
                "alpha-beta"
            };
            let of = |sure: bool| BarSeries {
                label: format!("{name}{}", if sure { ", sure" } else { "" }),
                values: data
                    .iter()
                    .map(|d| match d.chain_of(family)? {
                        Chain::Measured {
                            chain, sure_chain, ..
                        } => {
                            let len = if sure { sure_chain.len() } else { chain.len() };
                            Some((len as f64, None))
                        }
                        Chain::NotMeasured { .. } => None,
                    })
                    .collect(),
            };
            [of(false), of(true)]
        })
        .collect();
    Plot::Bars(BarChart {
        title: "Skill chains: levels each beating the one before (60%)".to_string(),
        y_label: "levels in the chain".to_string(),
        y_range: None,
        groups: groups(data),
        series,
    })
}

fn sensitivity(data: &[VariantFigures]) -> Plot {
    Plot::Lines(LineChart {
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
    })
}

fn lengths(data: &[VariantFigures]) -> Plot {
    Plot::Lines(LineChart {
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
    })
}

fn accuracy(data: &[VariantFigures]) -> Plot {
    Plot::Bars(BarChart {
        title: "Critical positions where each agent keeps the result (95% intervals)".to_string(),
        y_label: "share of critical positions".to_string(),
        y_range: None,
        groups: groups(data),
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
    })
}

fn learning(data: &[VariantFigures]) -> Plot {
    Plot::Lines(LineChart {
        title: "Learning curves: positions where the network keeps the result (95% intervals)"
            .to_string(),
        x_label: "training iteration".to_string(),
        y_label: "share of positions".to_string(),
        y_range: None,
        series: data
            .iter()
            .map(|d| Series {
                label: d.variant.clone(),
                points: d
                    .learning
                    .curve()
                    .iter()
                    .filter_map(|p| point(p.iteration as f64, p.search.keeps_result))
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect(),
    })
}
