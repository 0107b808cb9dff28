//! The work plan: how the time budget becomes game counts, decided before any game is played.
//!
//! The plan is a function of the budget, the number of threads and figures that are themselves
//! deterministic (the shape of random games), never of the clock: so an interrupted run, resumed,
//! does exactly the work an uninterrupted one would, and gives the same report. The price is that
//! the budget is nominal: costs come from a model calibrated on the reference 2-core machine
//! (below), and a faster machine finishes sooner.
//!
//! The budget is split, for every variant alike, as:
//! - game shape (random play): 10%;
//! - balance (self-play of greedy, alpha-beta, MCTS, a third each): 30%;
//! - skill chains (MCTS 60%, alpha-beta 40%; the MCTS chain's neighbours also give the search
//!   sensitivity): 40%;
//! - learnability (the trainer, with the `torch` feature): 20%, as a count of training
//!   iterations (see [`learning_plan`]). Without it, or when that share pays for fewer than
//!   [`MIN_ITERATIONS`], that fifth is shared out over the others in the same proportions.
//!
//! When a variant has a committed set of exact positions, accuracy (the [`ACCURACY_AGENTS`] on
//! its first positions) takes 15% of every variant's share, the others keeping their proportions
//! in the rest; a variant without a set leaves that part unspent.

use super::shape::Shape;
use std::fmt;
use std::time::Duration;

/// The smallest unit of random games. A unit is this times a power of two, the smallest that costs
/// [`MIN_UNIT_US`]: fixed by the game's cost alone, never by the budget, so that a longer budget
/// reuses every finished unit.
pub const SHAPE_UNIT: u64 = 100;
/// The smallest unit of agent games: an even number, so each random opening is played from both
/// sides within one unit.
pub const AGENT_UNIT: u64 = 10;
/// The least nominal cost of a unit, core-microseconds: cheaper units would spend more time on
/// their cache files than on their games.
pub const MIN_UNIT_US: f64 = 10_000.0;
/// The fewest games behind a rate: below this a figure is "not measured".
pub const MIN_GAMES: u64 = 20;
/// Random plies that open each game between searching agents, so deterministic agents do not
/// repeat one game; one move each keeps the first player's advantage.
pub const OPENING_PLIES: u32 = 2;
/// The score above which a stronger agent counts as beating the one before in a skill chain.
pub const CHAIN_THRESHOLD: f64 = 0.6;
/// The most levels tried in a chain: MCTS 10 .. 10 * 2^9 simulations, alpha-beta depth 1 .. 10.
pub const MAX_LEVELS: usize = 10;
/// The agents whose self-play measures balance, besides random play.
pub const BALANCE_AGENTS: [&str; 3] = ["greedy", "alphabeta:4", "mcts:200"];
/// The ladder of agents whose accuracy is measured on each variant's exact positions: the same
/// agents everywhere, so that a variant where they play less accurately is the harder one.
pub const ACCURACY_AGENTS: [&str; 10] = [
    "random",
    "greedy",
    "alphabeta:1",
    "alphabeta:2",
    "alphabeta:3",
    "alphabeta:4",
    "mcts:100",
    "mcts:200",
    "mcts:500",
    "mcts:1000",
];
/// Positions per unit of the accuracy measurement; the positions measured are whole units.
pub const ACCURACY_UNIT: u64 = 100;

/// The fewest training iterations behind a learning curve: below this learning is not measured.
pub const MIN_ITERATIONS: u64 = 4;
/// Evaluations a learning curve aims at after its first (the first iteration is always
/// evaluated): the plan evaluates every `iterations / LEARNING_EVALUATIONS` iterations.
pub const LEARNING_EVALUATIONS: u64 = 8;
/// The positions an evaluation is charged for: every committed set holds 2,000 (a larger one
/// costs more than charged).
pub const LEARNING_POSITIONS: f64 = 2000.0;

/// Budget shares (shape, balance, chains, learnability), with and without learnability.
const SHARES_WITH_LEARNING: [f64; 4] = [0.10, 0.30, 0.40, 0.20];
const SHARES_WITHOUT_LEARNING: [f64; 4] = [0.125, 0.375, 0.50, 0.0];
/// The MCTS chain's part of the chain share; alpha-beta gets the rest.
const MCTS_CHAIN_SHARE: f64 = 0.6;
/// Accuracy's share of the budget, when a variant has exact positions.
const ACCURACY_SHARE: f64 = 0.15;

/// The time for a whole comparison, as given on the command line: `90s`, `30m`, `2h`, `1h30m`
/// (not an agent's `Budget` per move).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeBudget(pub Duration);

impl std::str::FromStr for TimeBudget {
    type Err = String;
    fn from_str(text: &str) -> Result<TimeBudget, String> {
        let bad = || {
            format!(
                "invalid budget {}: give a number with a unit, s, m or h, or several (e.g. 90s, \
                 30m, 2h, 1h30m)",
                sowing_env::Error::quote(text)
            )
        };
        let mut secs = 0.0;
        let mut number = String::new();
        for c in text.trim().chars() {
            if c.is_ascii_digit() || c == '.' {
                number.push(c);
                continue;
            }
            let scale = match c {
                's' => 1.0,
                'm' => 60.0,
                'h' => 3600.0,
                _ => return Err(bad()),
            };
            let value: f64 = number.parse().map_err(|_| bad())?;
            secs += value * scale;
            number.clear();
        }
        if !number.is_empty() || secs <= 0.0 || !secs.is_finite() || secs > 30.0 * 86400.0 {
            return Err(bad());
        }
        Ok(TimeBudget(Duration::from_secs_f64(secs)))
    }
}

impl fmt::Display for TimeBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0.as_secs_f64();
        if s >= 3600.0 && s % 3600.0 == 0.0 {
            write!(f, "{}h", s / 3600.0)
        } else if s >= 60.0 && s % 60.0 == 0.0 {
            write!(f, "{}m", s / 60.0)
        } else {
            write!(f, "{s}s")
        }
    }
}

/// The nominal cost model, in microseconds of one core of the reference machine (the 2-core
/// machine the project is built on, measured with other work running beside it; `timing.csv` in
/// every output directory records actual against nominal times, for checking it elsewhere).
///
/// A move costs a fixed part plus a part per lap sown for every candidate move (the legal mask
/// sows them all). Random play adds its bookkeeping (statistics, position hashes). MCTS spends,
/// per simulation, a tree step plus a random rollout of about half a game. Alpha-beta's cost
/// grows by about b^0.3 per ply of depth with its move ordering and table. Each game between
/// searching agents pays a fixed part (their tables and trees are cleared).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Plies per random game.
    pub plies: f64,
    /// Legal moves per position.
    pub branching: f64,
    /// Laps per move.
    pub laps: f64,
}

const MOVE_FIXED_US: f64 = 0.05;
const MOVE_PER_LAP_US: f64 = 0.004;
/// Random play's cost per move over the bare move: statistics and hashing.
const RANDOM_PLAY_FACTOR: f64 = 4.5;
const MCTS_TREE_US: f64 = 0.4;
const MCTS_ROLLOUT_FACTOR: f64 = 1.3;
const ALPHABETA_STEP_US: f64 = 12.0;
const AGENT_GAME_US: f64 = 2000.0;
const GREEDY_GAME_US: f64 = 8.0;
/// One training iteration of the learning measurement (32 self-play games of 32 simulations a
/// move, their training steps and the checkpoint; `learn.rs` has the settings), the same for
/// every variant so that each is trained for the same number of iterations. Calibrated on the
/// reference machine (3 December 2026, other work beside it) with `sowing train --threads 1
/// --iterations 20` at those settings, evaluating every iteration and once only: an iteration
/// took 0.25 s (en-dodoi-6), 0.32 (en-dodoi-7, en-dodoi-8), 0.39 (sadeqa-91), 0.47 (en-dodoi-9,
/// en-dodoi-10), 0.55 (sadeqa-iii) and 0.74 (cross-endodoi, whose look-ahead sows long laps):
/// about their mean. A longer game's iterations cost more than charged, a shorter one's less.
const LEARNING_ITERATION_US: f64 = 450_000.0;
/// One evaluation of the network, per position: its move with 32 simulations and with its
/// policy alone. The same runs: 0.11 to 0.22 s for the 2,000 positions of a committed set.
const LEARNING_POSITION_US: f64 = 90.0;

impl CostModel {
    pub fn from_shape(shape: &Shape) -> Option<CostModel> {
        Some(CostModel {
            plies: shape.plies.value()?.max(1.0),
            branching: shape.branching.value()?.max(1.0),
            laps: shape.laps.value()?.max(1.0),
        })
    }

    /// A guess before any game is played, from the size of the board alone: used only to size
    /// the random-play measurement.
    pub fn prior(holes: usize, seeds: usize) -> CostModel {
        CostModel {
            plies: 20.0 + 6.0 * holes as f64,
            branching: holes as f64 * 0.6,
            laps: 1.0 + seeds as f64 / 2.0,
        }
    }

    /// One move played, the next position's legal mask included.
    pub fn play_us(&self) -> f64 {
        MOVE_FIXED_US + MOVE_PER_LAP_US * (self.branching + 1.0) * self.laps
    }

    pub fn random_game_us(&self) -> f64 {
        self.plies * self.play_us() * RANDOM_PLAY_FACTOR
    }

    /// One move chosen by the agent `spec`.
    pub fn move_us(&self, spec: &str) -> f64 {
        if spec == "greedy" {
            return 2.0 * self.branching * self.play_us() * RANDOM_PLAY_FACTOR;
        }
        match spec.split_once(':') {
            Some(("mcts", sims)) => {
                let sims: f64 = sims.parse().unwrap_or(1.0);
                sims * (MCTS_TREE_US + self.plies / 2.0 * MCTS_ROLLOUT_FACTOR * self.play_us())
            }
            Some(("alphabeta", depth)) => {
                let depth: i32 = depth.parse().unwrap_or(1);
                let step = self.branching.powf(0.3);
                ALPHABETA_STEP_US * (1..=depth).map(|d| step.powi(d)).sum::<f64>()
            }
            _ => self.play_us() * RANDOM_PLAY_FACTOR,
        }
    }

    /// One game between `a` and `b`, each making half the moves.
    pub fn game_us(&self, a: &str, b: &str) -> f64 {
        // Greedy players keep no tables, but every game still seeds its streams and draws an
        // opening.
        let fixed = if a == "greedy" && b == "greedy" {
            GREEDY_GAME_US
        } else {
            AGENT_GAME_US
        };
        fixed + self.plies / 2.0 * (self.move_us(a) + self.move_us(b))
    }
}

/// The nominal time of each measurement for one variant, in core-microseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Allowance {
    pub shape: f64,
    pub balance: f64,
    pub chains: f64,
    pub learning: f64,
    pub accuracy: f64,
}

impl Allowance {
    /// Split `budget` (wall time, `threads` cores) over `variants` variants; `accuracy` when
    /// some variant has exact positions.
    pub fn split(
        budget: TimeBudget,
        threads: usize,
        variants: usize,
        learning: bool,
        accuracy: bool,
    ) -> Allowance {
        let core_us = budget.0.as_secs_f64() * 1e6 * threads as f64 / variants.max(1) as f64;
        let s = if learning {
            SHARES_WITH_LEARNING
        } else {
            SHARES_WITHOUT_LEARNING
        };
        let (accuracy, rest) = if accuracy {
            (ACCURACY_SHARE, 1.0 - ACCURACY_SHARE)
        } else {
            (0.0, 1.0)
        };
        Allowance {
            shape: core_us * rest * s[0],
            balance: core_us * rest * s[1],
            chains: core_us * rest * s[2],
            learning: core_us * rest * s[3],
            accuracy: core_us * accuracy,
        }
    }
}

/// Games per unit for games of `game_us` each: `base` times the smallest power of two (up to
/// 2^12) that makes the unit cost [`MIN_UNIT_US`].
pub fn unit_games(base: u64, game_us: f64) -> u64 {
    let mut games = base;
    while (games as f64) * game_us < MIN_UNIT_US && games < base << 12 {
        games *= 2;
    }
    games
}

/// Random games per unit of the shape measurement, the same for every variant: sized so that a
/// unit of the costliest variant costs [`MIN_UNIT_US`].
pub fn shape_unit(priors: &[CostModel]) -> u64 {
    let costliest = priors
        .iter()
        .map(CostModel::random_game_us)
        .fold(0.0, f64::max);
    unit_games(SHAPE_UNIT, costliest)
}

/// Random games for the shape of each variant: whole units that fit the allowance. Every variant
/// gets the same count (the smallest), so distinct-position counts compare like with like.
pub fn shape_games(allowance_us: f64, priors: &[CostModel]) -> u64 {
    let unit = shape_unit(priors);
    priors
        .iter()
        .map(|m| whole_units(allowance_us / m.random_game_us(), unit))
        .min()
        .unwrap_or(0)
}

/// Self-play games of each balance agent.
pub fn balance_games(allowance_us: f64, model: &CostModel) -> Vec<(String, u64)> {
    let each = allowance_us / BALANCE_AGENTS.len() as f64;
    BALANCE_AGENTS
        .iter()
        .map(|&spec| {
            let cost = model.game_us(spec, spec);
            let games = whole_units(each / cost, unit_games(AGENT_UNIT, cost));
            (spec.to_string(), if games >= MIN_GAMES { games } else { 0 })
        })
        .collect()
}

/// A family of agents of rising budget, and which pairs of them play.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainPlan {
    /// `mcts` or `alphabeta`.
    pub family: String,
    /// Agent specs, weakest (smallest budget) first.
    pub levels: Vec<String>,
    /// Pairs `(weaker, stronger)` by level index: each level plays the next two above it.
    pub pairs: Vec<(usize, usize)>,
    pub games_per_pair: u64,
}

/// The spec of level `i` of a family: MCTS 10 * 2^i simulations, alpha-beta depth i + 1.
pub fn level_spec(family: &str, i: usize) -> String {
    match family {
        "mcts" => format!("mcts:{}", 10u64 << i),
        _ => format!("alphabeta:{}", i + 1),
    }
}

/// Pairs between `levels` levels: each with the next one and the one after.
pub fn chain_pairs(levels: usize) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for i in 0..levels {
        for j in i + 1..levels.min(i + 3) {
            pairs.push((i, j));
        }
    }
    pairs
}

/// As many levels as the allowance pays for at [`MIN_GAMES`] games per pair (at least two, or
/// the chain is not measured), then as many games per pair as the rest pays for.
pub fn chain_plan(family: &str, allowance_us: f64, model: &CostModel) -> Option<ChainPlan> {
    let cost_of = |levels: usize| -> f64 {
        chain_pairs(levels)
            .iter()
            .map(|&(i, j)| model.game_us(&level_spec(family, i), &level_spec(family, j)))
            .sum()
    };
    let mut levels = 1;
    while levels < MAX_LEVELS && cost_of(levels + 1) * MIN_GAMES as f64 <= allowance_us {
        levels += 1;
    }
    if levels < 2 {
        return None;
    }
    let unit = chain_pairs(levels)
        .iter()
        .map(|&(i, j)| {
            let cost = model.game_us(&level_spec(family, i), &level_spec(family, j));
            unit_games(AGENT_UNIT, cost)
        })
        .max()
        .unwrap_or(AGENT_UNIT);
    let games = whole_units(allowance_us / cost_of(levels), unit).max(unit.max(MIN_GAMES));
    Some(ChainPlan {
        family: family.to_string(),
        levels: (0..levels).map(|i| level_spec(family, i)).collect(),
        pairs: chain_pairs(levels),
        games_per_pair: games,
    })
}

/// The chains of one variant: MCTS and alpha-beta, each with its part of the allowance.
pub fn chain_plans(allowance_us: f64, model: &CostModel) -> Vec<(String, Option<ChainPlan>)> {
    [
        ("mcts", MCTS_CHAIN_SHARE),
        ("alphabeta", 1.0 - MCTS_CHAIN_SHARE),
    ]
    .iter()
    .map(|&(family, share)| {
        (
            family.to_string(),
            chain_plan(family, allowance_us * share, model),
        )
    })
    .collect()
}

/// Positions on which the [`ACCURACY_AGENTS`] are measured: whole units of [`ACCURACY_UNIT`]
/// that the allowance pays for, at most the `available` positions of the set; 0 when not one unit
/// fits. A position costs each agent one move.
pub fn accuracy_positions(allowance_us: f64, model: &CostModel, available: u64) -> u64 {
    let per_position: f64 = ACCURACY_AGENTS.iter().map(|a| model.move_us(a)).sum();
    whole_units(allowance_us / per_position, ACCURACY_UNIT)
        .min(available / ACCURACY_UNIT * ACCURACY_UNIT)
}

/// How the learning measurement trains each variant: a fresh run of `iterations` iterations,
/// evaluated after the first and every `eval_every`-th.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LearningPlan {
    pub iterations: u64,
    /// A divisor of `iterations`, so that the last iteration is evaluated.
    pub eval_every: u64,
}

impl LearningPlan {
    /// The plan of `iterations` iterations: evaluated every `iterations / LEARNING_EVALUATIONS`
    /// (at least every one), `None` when that does not divide `iterations`.
    fn of(iterations: u64) -> Option<LearningPlan> {
        let eval_every = (iterations / LEARNING_EVALUATIONS).max(1);
        (iterations > 0 && iterations.is_multiple_of(eval_every)).then_some(LearningPlan {
            iterations,
            eval_every,
        })
    }

    /// The iterations that end with an evaluation, in order: the first, and every
    /// `eval_every`-th (the trainer's `--eval-every`).
    pub fn evaluated(&self) -> impl Iterator<Item = u64> + '_ {
        (1..=self.iterations).filter(|&i| i == 1 || i % self.eval_every == 0)
    }

    /// The nominal cost of the run, core-microseconds.
    pub fn cost_us(&self) -> f64 {
        let evaluations = self.evaluated().count() as f64;
        self.iterations as f64 * LEARNING_ITERATION_US
            + evaluations * LEARNING_POSITIONS * LEARNING_POSITION_US
    }
}

/// The learning run that `allowance_us` pays for: the most iterations whose plan (with its
/// evaluations) costs no more, the same for every variant; `None` below [`MIN_ITERATIONS`].
/// A larger allowance never plans fewer iterations.
pub fn learning_plan(allowance_us: f64) -> Option<LearningPlan> {
    if !(allowance_us.is_finite() && allowance_us > 0.0) {
        return None;
    }
    // Down from the iterations the allowance would pay for without evaluations, through every
    // count that has a plan: the first that fits is the largest that does.
    let mut iterations = (allowance_us / LEARNING_ITERATION_US) as u64;
    while iterations >= MIN_ITERATIONS {
        let every = (iterations / LEARNING_EVALUATIONS).max(1);
        let plan = LearningPlan::of(iterations / every * every)
            .expect("a multiple of its interval is planned with that interval");
        if plan.cost_us() <= allowance_us {
            return Some(plan);
        }
        iterations = plan.iterations - 1;
    }
    None
}

/// `count` rounded down to whole units of `unit`.
fn whole_units(count: f64, unit: u64) -> u64 {
    if !count.is_finite() || count < 0.0 {
        return 0;
    }
    (count as u64 / unit) * unit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_in_every_form_and_bad_ones_say_why() {
        assert_eq!(
            "30m".parse::<TimeBudget>().unwrap().0,
            Duration::from_secs(1800)
        );
        assert_eq!(
            "1h30m".parse::<TimeBudget>().unwrap().0,
            Duration::from_secs(5400)
        );
        assert_eq!(
            "90s".parse::<TimeBudget>().unwrap().0,
            Duration::from_secs(90)
        );
        assert_eq!(
            "0.5s".parse::<TimeBudget>().unwrap().0,
            Duration::from_millis(500)
        );
        for bad in ["", "30", "m", "30x", "0s", "-5m"] {
            let e = bad.parse::<TimeBudget>().unwrap_err();
            assert!(e.contains("30m"), "{e}");
        }
        assert_eq!("1h30m".parse::<TimeBudget>().unwrap().to_string(), "90m");
    }

    #[test]
    fn the_split_uses_the_whole_budget() {
        let a = Allowance::split(TimeBudget(Duration::from_secs(100)), 2, 4, true, false);
        let total = a.shape + a.balance + a.chains + a.learning;
        assert!((total - 50e6).abs() < 1.0);
        assert_eq!(a.accuracy, 0.0);
        let b = Allowance::split(TimeBudget(Duration::from_secs(100)), 2, 4, false, false);
        assert_eq!(b.learning, 0.0);
        assert!((b.shape + b.balance + b.chains - 50e6).abs() < 1.0);
        // Accuracy takes its share; the others keep their proportions.
        let c = Allowance::split(TimeBudget(Duration::from_secs(100)), 2, 4, true, true);
        let total = c.shape + c.balance + c.chains + c.learning + c.accuracy;
        assert!((total - 50e6).abs() < 1.0);
        assert!((c.accuracy - 0.15 * 50e6).abs() < 1.0);
        assert!((c.balance / c.chains - a.balance / a.chains).abs() < 1e-12);
    }

    #[test]
    fn accuracy_measures_whole_units_the_budget_and_the_set_allow() {
        let model = CostModel::prior(6, 4);
        let per_position: f64 = ACCURACY_AGENTS.iter().map(|a| model.move_us(a)).sum();
        assert_eq!(accuracy_positions(99.0 * per_position, &model, 2000), 0);
        assert_eq!(accuracy_positions(250.0 * per_position, &model, 2000), 200);
        assert_eq!(accuracy_positions(1e15, &model, 2000), 2000);
        assert_eq!(accuracy_positions(1e15, &model, 1999), 1900);
        assert_eq!(accuracy_positions(1e15, &model, 99), 0);
    }

    #[test]
    fn pairs_join_each_level_to_the_next_two() {
        assert_eq!(chain_pairs(1), vec![]);
        assert_eq!(chain_pairs(3), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(chain_pairs(4).len(), 5);
        assert_eq!(level_spec("mcts", 3), "mcts:80");
        assert_eq!(level_spec("alphabeta", 0), "alphabeta:1");
    }

    #[test]
    fn a_small_allowance_measures_nothing_rather_than_zero() {
        let model = CostModel::prior(8, 4);
        assert_eq!(chain_plan("mcts", 1.0, &model), None);
        assert!(balance_games(1.0, &model).iter().all(|(_, g)| *g == 0));
        let big = chain_plan("mcts", 1e12, &model).unwrap();
        assert_eq!(big.levels.len(), MAX_LEVELS);
        assert!(big.games_per_pair >= MIN_GAMES);
        assert_eq!(big.games_per_pair % AGENT_UNIT, 0);
        // Units grow for cheap games, never below their base size.
        assert_eq!(unit_games(AGENT_UNIT, 1e6), AGENT_UNIT);
        assert_eq!(unit_games(SHAPE_UNIT, 50.0), 200);
        assert_eq!(unit_games(SHAPE_UNIT, 0.0), SHAPE_UNIT << 12);
        // More budget never means fewer levels or games.
        let mut last = (0, 0);
        for e in 4..12 {
            if let Some(p) = chain_plan("alphabeta", 10f64.powi(e), &model) {
                let now = (p.levels.len(), p.games_per_pair);
                assert!(now.0 >= last.0);
                last = now;
            }
        }
    }

    #[test]
    fn learning_iterations_are_a_function_of_the_budget_alone() {
        let at = |seconds: u64, threads: usize, variants: usize| {
            let budget = TimeBudget(Duration::from_secs(seconds));
            learning_plan(Allowance::split(budget, threads, variants, true, true).learning)
        };
        // 2 minutes for two variants on one thread: 10.2 core-seconds each.
        let plan = at(120, 1, 2).unwrap();
        assert_eq!(plan, at(120, 1, 2).unwrap());
        assert_eq!(
            plan,
            LearningPlan {
                iterations: 18,
                eval_every: 2
            }
        );
        assert_eq!(
            plan.evaluated().collect::<Vec<_>>(),
            [1, 2, 4, 6, 8, 10, 12, 14, 16, 18]
        );
        assert!(plan.cost_us() <= 10.2e6 && plan.cost_us() > 9e6, "{plan:?}");
        // The same core-seconds, however they come, plan the same run.
        assert_eq!(at(240, 1, 4), at(120, 2, 4));
        // Too little for MIN_ITERATIONS: not measured.
        assert_eq!(at(10, 1, 1), None);
        assert_eq!(learning_plan(0.0), None);
        assert_eq!(learning_plan(f64::NAN), None);
        // More budget, never fewer iterations; the last is always evaluated, and the plan
        // always fits its allowance.
        let mut last = 0;
        for tenth_seconds in 1..20_000u64 {
            let allowance = tenth_seconds as f64 * 1e5;
            let Some(p) = learning_plan(allowance) else {
                assert_eq!(last, 0, "planned below {allowance}, not at it");
                continue;
            };
            assert!(
                p.iterations >= last.max(MIN_ITERATIONS),
                "{p:?} after {last}"
            );
            assert!(p.cost_us() <= allowance, "{p:?}");
            assert_eq!(p.evaluated().last(), Some(p.iterations));
            assert!(
                p.evaluated().count() as u64 <= 2 * LEARNING_EVALUATIONS,
                "{p:?}"
            );
            last = p.iterations;
        }
        assert!(last > 3000, "{last}");
    }
}
