//! The figures of a comparison as one typed value, [`Figures`], computed once from what was
//! measured: `results.json` is its serialisation, and the report's prose, tables, plots and CSV
//! files are rendered from it (see `report/`), so no figure is computed twice and nothing is
//! parsed back.
//!
//! In `results.json` a rate shows its Wilson interval only from [`MIN_GAMES`] trials on and is
//! "not measured" below; the CSV files give every rate with its count and interval, for readers
//! who set their own bar.

use super::chain::{Scores, chains};
use super::config::{Config, Variant};
use super::difficulty::{self, CriticalShare, Difficulty, PhaseWeight, Separation};
use super::learn::{CurvePoint, Learning};
use super::plan::{Allowance, CHAIN_THRESHOLD, ChainPlan, LearningPlan, MIN_GAMES};
use super::shape::Shape;
use super::solved::Solved;
use serde::{Serialize, Serializer};
use sowing_env::Rules;
use sowing_eval::accuracy::Accuracy;
use sowing_eval::matches::Tally;
use sowing_eval::stats::{Histogram, Mean, Rate};

/// What was measured of one family of agents for a skill chain.
#[derive(Clone, Debug)]
pub struct FamilyData {
    pub family: String,
    /// `None` when the budget could not pay for two levels.
    pub plan: Option<ChainPlan>,
    /// `(weaker, stronger, tally with the stronger as agent a)` for every pair played.
    pub pairs: Vec<(usize, usize, Tally)>,
}

/// What was measured of the agents' accuracy on a variant's exact positions.
#[derive(Clone, Debug)]
pub enum AccuracyData {
    /// Not measured, and why.
    NotMeasured(String),
    Measured {
        /// The positions file.
        file: String,
        /// Positions measured, the first of the file.
        positions: u64,
        /// One per agent of the ladder, in its order.
        agents: Vec<Accuracy>,
        /// The ladder's difficulty score on the critical positions, if there are enough.
        difficulty: Option<Difficulty>,
        /// Each critical position's phase and ladder share, for the phase-matched ranking:
        /// the committed set's, then the phase set's.
        critical: Vec<CriticalShare>,
        /// The phase set and its positions measured, when it has one and the budget reached it.
        phase_set: Option<(String, u64)>,
    },
}

/// Everything measured on one variant.
#[derive(Clone, Debug)]
pub struct VariantData {
    pub variant: Variant,
    pub shape: Shape,
    /// Self-play of each balance agent; `None` when not measured.
    pub balance: Vec<(String, Option<Tally>)>,
    pub chains: Vec<FamilyData>,
    pub accuracy: AccuracyData,
    pub learning: Learning,
    /// What is proven of the start.
    pub solved: Solved,
}

/// Every figure of a comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Figures {
    /// The command line as given.
    pub command: Vec<String>,
    pub seed: u64,
    /// The budget as given, e.g. `30m`.
    pub budget: String,
    pub threads: usize,
    /// How the budget was split, for each variant.
    #[serde(rename = "allowance_core_seconds_per_variant")]
    pub allowance: CoreSeconds,
    /// The variants with a difficulty score, hardest first, and what separates neighbours.
    pub ranking: Ranking,
    /// How every variant's learning run trains (its iterations, evaluated every `eval_every`),
    /// when learning is measured.
    pub learning_plan: Option<LearningPlan>,
    /// The variants whose learning was measured, by the network's accuracy after those
    /// iterations, least accurate (hardest to learn) first, and what separates neighbours.
    pub learning_ranking: LearningRanking,
    pub variants: Vec<VariantFigures>,
}

/// The learning ranking: by how often the trained network's policy alone keeps the result in the
/// critical positions of the preset's set (where some move gives it away), after the same counted
/// training: the yardstick sharp where games are decided, and free of the search's help.
#[derive(Clone, Debug, Serialize)]
pub struct LearningRanking {
    /// Least accurate first.
    pub variants: Vec<LearnedVariant>,
    /// Each neighbour pair, the less accurate (harder) first; the difference in points of
    /// accuracy, with Newcombe's interval.
    pub neighbours: Vec<Separation>,
}

/// A variant's place in the learning ranking.
#[derive(Clone, Debug, Serialize)]
pub struct LearnedVariant {
    pub variant: String,
    /// After the last iteration, the policy alone, on the critical positions.
    #[serde(serialize_with = "positions_rate_json")]
    pub policy_keeps_result_critical: Rate,
}

/// The difficulty ranking (see [`difficulty`](super::difficulty)).
#[derive(Clone, Debug, Serialize)]
pub struct Ranking {
    /// Hardest first.
    pub variants: Vec<RankedVariant>,
    /// Each neighbour pair, the harder first.
    pub neighbours: Vec<Separation>,
    /// The same variants scored on the phases they all reach, with the same weights; `None`
    /// with fewer than two ranked variants or no phase they share.
    pub phase_matched: Option<PhaseMatchedRanking>,
}

/// The difficulty ranking on the phases every ranked variant's set reaches (see
/// [`phase_matched`](super::difficulty::phase_matched)).
#[derive(Clone, Debug, Serialize)]
pub struct PhaseMatchedRanking {
    /// The phases scored, fewest seeds first, with their common weights.
    pub phases: Vec<PhaseWeight>,
    /// Hardest first; `critical` counts the variant's critical positions in those phases.
    pub variants: Vec<RankedVariant>,
    /// Each neighbour pair, the harder first.
    pub neighbours: Vec<Separation>,
    /// The phase sets whose positions were counted beside the committed sets'.
    pub phase_sets: Vec<PhaseSetUsed>,
}

/// A variant's phase set (positions drawn from chosen phases), counted on the same phases.
#[derive(Clone, Debug, Serialize)]
pub struct PhaseSetUsed {
    pub variant: String,
    pub file: String,
    /// Its first positions measured.
    pub positions: u64,
}

/// A variant's place in the ranking.
#[derive(Clone, Debug, Serialize)]
pub struct RankedVariant {
    pub variant: String,
    #[serde(flatten)]
    pub difficulty: Difficulty,
}

/// The budget of each measurement of a variant, in core-seconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CoreSeconds {
    pub shape: f64,
    pub balance: f64,
    pub chains: f64,
    pub learning: f64,
    pub accuracy: f64,
}

/// The figures of one variant.
#[derive(Clone, Debug, Serialize)]
pub struct VariantFigures {
    /// Its name in the report.
    pub variant: String,
    pub rules: Rules,
    pub shape: ShapeFigures,
    /// Self-play of each balance agent.
    pub balance: Vec<Balance>,
    /// One per family of agents.
    pub chains: Vec<Chain>,
    /// MCTS at 2k simulations against k, for the neighbouring levels of the MCTS chain.
    pub sensitivity: Vec<Sensitivity>,
    /// Each agent level's accuracy on the variant's exact positions.
    pub accuracy: AccuracyFigures,
    /// The trained network's accuracy on them, after each evaluated iteration.
    pub learning: LearningFigures,
    /// The perfect-play result of the start, where it is proven.
    pub solved: Solved,
}

/// The agents' accuracy on a variant's exact positions.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum AccuracyFigures {
    Measured {
        /// The positions file (the variant's committed set).
        positions_file: String,
        /// Positions measured: the first of the file.
        positions: u64,
        /// One per agent, weakest family and budget first.
        agents: Vec<AgentAccuracy>,
        /// The ladder's difficulty score, when enough positions are critical.
        difficulty: Option<Difficulty>,
    },
    NotMeasured {
        not_measured: String,
    },
}

impl AccuracyFigures {
    /// The figures of agent `spec`, when measured.
    pub fn of(&self, spec: &str) -> Option<&AgentAccuracy> {
        match self {
            AccuracyFigures::Measured { agents, .. } => agents.iter().find(|a| a.agent == spec),
            AccuracyFigures::NotMeasured { .. } => None,
        }
    }
}

/// The learning figures of a variant: the network's accuracy on its exact positions as it
/// trains.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum LearningFigures {
    Measured {
        /// Iterations trained.
        iterations: u64,
        /// The positions file (the variant's committed set), every position of which is
        /// measured.
        positions_file: String,
        positions: u64,
        /// After the first iteration and every `eval_every`-th, in training order.
        curve: Vec<LearningPoint>,
    },
    NotMeasured {
        not_measured: String,
    },
}

impl LearningFigures {
    /// The evaluations, in training order; empty when not measured.
    pub fn curve(&self) -> &[LearningPoint] {
        match self {
            LearningFigures::Measured { curve, .. } => curve,
            LearningFigures::NotMeasured { .. } => &[],
        }
    }

    /// The evaluation after the last iteration, when measured.
    pub fn last(&self) -> Option<&LearningPoint> {
        self.curve().last()
    }
}

/// The network's accuracy after one iteration: with its search, and its policy alone.
#[derive(Clone, Debug, Serialize)]
pub struct LearningPoint {
    pub iteration: u64,
    #[serde(flatten)]
    pub search: KeptFigures,
    pub policy_alone: KeptFigures,
}

/// How often one agent's move kept the result and the best margin.
#[derive(Clone, Debug, Serialize)]
pub struct AgentAccuracy {
    pub agent: String,
    #[serde(flatten)]
    pub kept: KeptFigures,
    /// By phase: seeds on the board, in bands.
    pub phases: Vec<PhaseAccuracy>,
}

/// The shares of positions where a move kept the result (of all, and of the critical ones, where
/// some move does not) and the best margin.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct KeptFigures {
    #[serde(serialize_with = "positions_rate_json")]
    pub keeps_result: Rate,
    #[serde(serialize_with = "positions_rate_json")]
    pub keeps_result_critical: Rate,
    #[serde(serialize_with = "positions_rate_json")]
    pub keeps_margin: Rate,
}

/// An agent's accuracy on the positions of one band of seeds on the board.
#[derive(Clone, Debug, Serialize)]
pub struct PhaseAccuracy {
    pub seeds_low: u32,
    pub seeds_high: u32,
    #[serde(flatten)]
    pub kept: KeptFigures,
}

/// Game shape and complexity under random play.
#[derive(Clone, Debug, Serialize)]
pub struct ShapeFigures {
    pub games: u64,
    /// Plies per game.
    #[serde(serialize_with = "mean_json")]
    pub plies: Mean,
    /// Legal moves per position.
    #[serde(serialize_with = "mean_json")]
    pub branching: Mean,
    #[serde(rename = "laps_per_move", serialize_with = "mean_json")]
    pub laps: Mean,
    #[serde(rename = "sown_per_move", serialize_with = "mean_json")]
    pub sown: Mean,
    /// Positions with an endless move, of the positions where a move was chosen.
    #[serde(serialize_with = "rate_json")]
    pub endless_positions: Rate,
    /// Games that met an endless move.
    #[serde(serialize_with = "rate_json")]
    pub endless_games: Rate,
    #[serde(serialize_with = "rate_json")]
    pub truncated: Rate,
    #[serde(serialize_with = "rate_json")]
    pub first_player_wins: Rate,
    #[serde(serialize_with = "rate_json")]
    pub draws: Rate,
    /// Allis's game-tree complexity, log10(b^d).
    pub log10_game_tree: Option<f64>,
    /// Knuth's path estimator: the mean of log10 of the branching factors' product, per game.
    #[serde(rename = "log10_paths_per_game", serialize_with = "mean_json")]
    pub log_paths: Mean,
    /// Distinct positions reached (a HyperLogLog estimate).
    pub distinct_positions: Option<f64>,
    /// Game length in plies, by length.
    #[serde(rename = "length_counts", serialize_with = "counts_json")]
    pub lengths: Histogram,
    /// The games' results, which `results.json` gives as rates (`first_player_wins` and the
    /// others) as it always has; `balance.csv` and the balance table count them.
    #[serde(skip)]
    pub outcomes: Outcomes,
}

/// How the random games ended.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcomes {
    pub south_wins: u64,
    pub north_wins: u64,
    pub draws: u64,
    pub truncated: u64,
}

/// The balance figures of one agent's self-play.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Balance {
    Measured {
        agent: String,
        games: u64,
        #[serde(serialize_with = "rate_json")]
        first_player_wins: Rate,
        #[serde(serialize_with = "rate_json")]
        draws: Rate,
        tally: Tally,
    },
    NotMeasured {
        agent: String,
        /// Always 0.
        games: u64,
        not_measured: String,
    },
}

impl Balance {
    pub fn agent(&self) -> &str {
        match self {
            Balance::Measured { agent, .. } | Balance::NotMeasured { agent, .. } => agent,
        }
    }

    /// The games, when measured.
    pub fn tally(&self) -> Option<&Tally> {
        match self {
            Balance::Measured { tally, .. } => Some(tally),
            Balance::NotMeasured { .. } => None,
        }
    }
}

/// The skill chain of one family of agents.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Chain {
    Measured {
        family: String,
        /// The agents tried, weakest first.
        levels: Vec<String>,
        games_per_pair: u64,
        /// The longest chain on the point estimates, weakest first.
        chain: Vec<String>,
        /// The longest chain every step of which is sure at 95%.
        sure_chain: Vec<String>,
        /// Every pair played.
        pairs: Vec<ChainPair>,
    },
    NotMeasured {
        family: String,
        not_measured: String,
    },
}

impl Chain {
    pub fn family(&self) -> &str {
        match self {
            Chain::Measured { family, .. } | Chain::NotMeasured { family, .. } => family,
        }
    }

    /// The family's name in prose.
    pub fn label(&self) -> &'static str {
        if self.family() == "mcts" {
            "MCTS"
        } else {
            "alpha-beta"
        }
    }
}

/// One pair of a skill chain's family: the stronger agent's games against the weaker.
#[derive(Clone, Debug, Serialize)]
pub struct ChainPair {
    pub weaker: String,
    pub stronger: String,
    /// The stronger agent is agent a.
    pub tally: Tally,
    /// The stronger agent's score.
    #[serde(serialize_with = "rate_json")]
    pub score: Rate,
}

/// The score of MCTS with 2k simulations per move against MCTS with k.
#[derive(Clone, Debug, Serialize)]
pub struct Sensitivity {
    pub k: u64,
    #[serde(rename = "score_2k_vs_k", serialize_with = "rate_json")]
    pub score: Rate,
}

impl Figures {
    /// The figures of a comparison run as `config` says, its budget split as `allowance`, its
    /// learning trained by `learning` (when measured), that measured `data`.
    pub fn new(
        config: &Config,
        allowance: &Allowance,
        learning: Option<&LearningPlan>,
        data: &[VariantData],
    ) -> Figures {
        let variants: Vec<VariantFigures> = data.iter().map(VariantFigures::new).collect();
        Figures {
            command: config.command.clone(),
            seed: config.seed,
            budget: config.budget.to_string(),
            threads: config.threads,
            allowance: CoreSeconds {
                shape: allowance.shape / 1e6,
                balance: allowance.balance / 1e6,
                chains: allowance.chains / 1e6,
                learning: allowance.learning / 1e6,
                accuracy: allowance.accuracy / 1e6,
            },
            ranking: Ranking::new(data),
            learning_plan: learning.copied(),
            learning_ranking: LearningRanking::new(&variants),
            variants,
        }
    }
}

impl LearningRanking {
    fn new(variants: &[VariantFigures]) -> LearningRanking {
        let mut ranked: Vec<LearnedVariant> = variants
            .iter()
            .filter_map(|v| {
                Some(LearnedVariant {
                    variant: v.variant.clone(),
                    policy_keeps_result_critical: v
                        .learning
                        .last()?
                        .policy_alone
                        .keeps_result_critical,
                })
            })
            .collect();
        let accuracy = |v: &LearnedVariant| v.policy_keeps_result_critical.value().unwrap_or(0.0);
        ranked.sort_by(|a, b| {
            accuracy(a)
                .total_cmp(&accuracy(b))
                .then(a.variant.cmp(&b.variant))
        });
        let neighbours = ranked
            .windows(2)
            .filter_map(|w| {
                Separation::of_rates(
                    (&w[0].variant, w[0].policy_keeps_result_critical),
                    (&w[1].variant, w[1].policy_keeps_result_critical),
                )
            })
            .collect();
        LearningRanking {
            variants: ranked,
            neighbours,
        }
    }
}

impl Ranking {
    fn new(data: &[VariantData]) -> Ranking {
        let mut phase_sets = Vec::new();
        let scored: Vec<(&str, &Difficulty, &[CriticalShare])> = data
            .iter()
            .filter_map(|d| match &d.accuracy {
                AccuracyData::Measured {
                    difficulty: Some(s),
                    critical,
                    phase_set,
                    ..
                } => {
                    if let Some((file, positions)) = phase_set {
                        phase_sets.push(PhaseSetUsed {
                            variant: d.variant.name.clone(),
                            file: file.clone(),
                            positions: *positions,
                        });
                    }
                    Some((d.variant.name.as_str(), s, critical.as_slice()))
                }
                _ => None,
            })
            .collect();
        let (variants, neighbours) = ranked(scored.iter().map(|(v, d, _)| (*v, *d)));
        let shares: Vec<(&str, &[CriticalShare])> =
            scored.iter().map(|(v, _, c)| (*v, *c)).collect();
        let phase_matched = difficulty::phase_matched(&shares).map(|matched| {
            let (variants, neighbours) = ranked(matched.scores.iter().map(|(v, d)| (*v, d)));
            PhaseMatchedRanking {
                phases: matched.phases,
                variants,
                neighbours,
                phase_sets,
            }
        });
        Ranking {
            variants,
            neighbours,
            phase_matched,
        }
    }
}

/// `scores` ranked, hardest first, with each neighbour pair.
fn ranked<'a>(
    scores: impl IntoIterator<Item = (&'a str, &'a Difficulty)>,
) -> (Vec<RankedVariant>, Vec<Separation>) {
    let (ranked, neighbours) = difficulty::rank(scores);
    let variants = ranked
        .into_iter()
        .map(|(v, d)| RankedVariant {
            variant: v.to_string(),
            difficulty: *d,
        })
        .collect();
    (variants, neighbours)
}

impl VariantFigures {
    fn new(d: &VariantData) -> VariantFigures {
        let balance = d
            .balance
            .iter()
            .map(|(spec, tally)| match tally {
                Some(t) => Balance::Measured {
                    agent: spec.clone(),
                    games: t.games,
                    first_player_wins: t.first_player_wins(),
                    draws: t.draw_rate(),
                    tally: *t,
                },
                None => Balance::NotMeasured {
                    agent: spec.clone(),
                    games: 0,
                    not_measured: "budget too small".to_string(),
                },
            })
            .collect();
        VariantFigures {
            variant: d.variant.name.clone(),
            rules: d.variant.rules,
            shape: ShapeFigures::new(&d.shape),
            balance,
            chains: d.chains.iter().map(Chain::new).collect(),
            sensitivity: sensitivity(&d.chains),
            accuracy: AccuracyFigures::new(&d.accuracy),
            learning: LearningFigures::new(&d.learning),
            solved: d.solved.clone(),
        }
    }

    /// The balance figures of agent `spec`, if it was measured.
    pub fn balance_of(&self, spec: &str) -> Option<&Tally> {
        self.balance.iter().find(|b| b.agent() == spec)?.tally()
    }

    /// The skill chain of `family`.
    pub fn chain_of(&self, family: &str) -> Option<&Chain> {
        self.chains.iter().find(|c| c.family() == family)
    }
}

impl ShapeFigures {
    fn new(s: &Shape) -> ShapeFigures {
        ShapeFigures {
            games: s.games,
            plies: s.plies,
            branching: s.branching,
            laps: s.laps,
            sown: s.sown,
            endless_positions: s.endless_position_rate(),
            endless_games: s.endless_game_rate(),
            truncated: s.truncated_rate(),
            first_player_wins: s.first_player_wins(),
            draws: s.draw_rate(),
            log10_game_tree: s.log10_game_tree(),
            log_paths: s.log_paths,
            distinct_positions: s.distinct_positions(),
            lengths: s.lengths.clone(),
            outcomes: Outcomes {
                south_wins: s.south_wins,
                north_wins: s.north_wins,
                draws: s.draws,
                truncated: s.truncated,
            },
        }
    }
}

impl Outcomes {
    /// The first player's wins among the games someone won: 50% is balance.
    pub fn decisive_first(&self) -> Rate {
        decisive_first(self.south_wins, self.north_wins)
    }
}

/// The first player's wins among `south + north` decisive games.
pub fn decisive_first(south: u64, north: u64) -> Rate {
    Rate::new(south as f64, south + north)
}

impl Chain {
    fn new(f: &FamilyData) -> Chain {
        let Some(plan) = &f.plan else {
            return Chain::NotMeasured {
                family: f.family.clone(),
                not_measured: "budget too small for two levels".to_string(),
            };
        };
        let scores: Scores = f
            .pairs
            .iter()
            .map(|(w, s, t)| (*w, *s, t.a_score()))
            .collect();
        let (point, sure) = chains(plan.levels.len(), CHAIN_THRESHOLD, &scores);
        let names = |chain: Vec<usize>| chain.iter().map(|&i| plan.levels[i].clone()).collect();
        Chain::Measured {
            family: f.family.clone(),
            levels: plan.levels.clone(),
            games_per_pair: plan.games_per_pair,
            chain: names(point),
            sure_chain: names(sure),
            pairs: f
                .pairs
                .iter()
                .map(|(w, s, t)| ChainPair {
                    weaker: plan.levels[*w].clone(),
                    stronger: plan.levels[*s].clone(),
                    tally: *t,
                    score: t.a_score(),
                })
                .collect(),
        }
    }
}

impl KeptFigures {
    fn new(k: &sowing_eval::accuracy::Kept) -> KeptFigures {
        KeptFigures {
            keeps_result: k.result,
            keeps_result_critical: k.critical,
            keeps_margin: k.margin,
        }
    }
}

impl LearningFigures {
    fn new(data: &Learning) -> LearningFigures {
        match data {
            Learning::NotMeasured(reason) => LearningFigures::NotMeasured {
                not_measured: reason.clone(),
            },
            Learning::Curve {
                iterations,
                file,
                points,
            } => LearningFigures::Measured {
                iterations: *iterations,
                positions_file: file.clone(),
                positions: points.first().map_or(0, |p| p.search.result.n),
                curve: points
                    .iter()
                    .map(|p: &CurvePoint| LearningPoint {
                        iteration: p.iteration,
                        search: KeptFigures::new(&p.search),
                        policy_alone: KeptFigures::new(&p.policy),
                    })
                    .collect(),
            },
        }
    }
}

impl AccuracyFigures {
    fn new(data: &AccuracyData) -> AccuracyFigures {
        let kept = KeptFigures::new;
        match data {
            AccuracyData::NotMeasured(reason) => AccuracyFigures::NotMeasured {
                not_measured: reason.clone(),
            },
            AccuracyData::Measured {
                file,
                positions,
                agents,
                difficulty,
                ..
            } => AccuracyFigures::Measured {
                positions_file: file.clone(),
                positions: *positions,
                difficulty: *difficulty,
                agents: agents
                    .iter()
                    .map(|a| AgentAccuracy {
                        agent: a.player.clone(),
                        kept: kept(&a.kept),
                        phases: a
                            .bands()
                            .map(|b| PhaseAccuracy {
                                seeds_low: b.low,
                                seeds_high: b.high,
                                kept: kept(&b.kept),
                            })
                            .collect(),
                    })
                    .collect(),
            },
        }
    }
}

/// MCTS at 2k simulations against k, for each neighbouring pair of the MCTS family.
fn sensitivity(families: &[FamilyData]) -> Vec<Sensitivity> {
    let Some(f) = families.iter().find(|f| f.family == "mcts") else {
        return Vec::new();
    };
    let Some(plan) = &f.plan else {
        return Vec::new();
    };
    f.pairs
        .iter()
        .filter(|(w, s, _)| *s == *w + 1)
        .map(|(w, _, t)| Sensitivity {
            k: plan.levels[*w]
                .strip_prefix("mcts:")
                .and_then(|k| k.parse().ok())
                .unwrap_or(0),
            score: t.a_score(),
        })
        .collect()
}

/// A rate's 95% Wilson interval, when it rests on at least [`MIN_GAMES`] trials.
pub fn measured(rate: Rate) -> Option<(f64, f64)> {
    (rate.n >= MIN_GAMES).then(|| rate.wilson()).flatten()
}

/// A rate in `results.json`: its value, interval and count, or why it was not measured.
fn rate_json<S: Serializer>(rate: &Rate, s: S) -> Result<S::Ok, S::Error> {
    rate_form(rate, "games", s)
}

/// A rate over positions in `results.json`, as [`rate_json`] gives one over games.
fn positions_rate_json<S: Serializer>(rate: &Rate, s: S) -> Result<S::Ok, S::Error> {
    rate_form(rate, "positions", s)
}

/// A rate of `trials` (games, positions): its value, interval and count, or why it was not
/// measured.
fn rate_form<S: Serializer>(rate: &Rate, trials: &str, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(untagged)]
    enum Form {
        Measured {
            value: Option<f64>,
            lo95: f64,
            hi95: f64,
            n: u64,
        },
        NotMeasured {
            value: Option<f64>,
            not_measured: String,
            n: u64,
        },
    }
    match measured(*rate) {
        Some((lo95, hi95)) => Form::Measured {
            value: rate.value(),
            lo95,
            hi95,
            n: rate.n,
        },
        None => Form::NotMeasured {
            value: None,
            not_measured: format!("fewer than {MIN_GAMES} {trials}"),
            n: rate.n,
        },
    }
    .serialize(s)
}

/// A mean in `results.json`: with its standard deviation, half-width at 95% and count.
fn mean_json<S: Serializer>(mean: &Mean, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Form {
        mean: Option<f64>,
        sd: Option<f64>,
        half_width95: Option<f64>,
        n: u64,
    }
    Form {
        mean: mean.value(),
        sd: mean.sd(),
        half_width95: mean.half_width(),
        n: mean.n,
    }
    .serialize(s)
}

/// A histogram in `results.json`: its counts, by value.
fn counts_json<S: Serializer>(histogram: &Histogram, s: S) -> Result<S::Ok, S::Error> {
    histogram.counts.serialize(s)
}
