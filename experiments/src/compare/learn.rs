//! Learnability: how accurate the AlphaZero trainer's network gets on each preset for the same
//! counted training budget, measured on the preset's committed set of exact positions.
//!
//! Built with the `torch` feature, every preset gets a fresh training run of the same number of
//! iterations, which the plan fixes from the learning share of the budget through a nominal cost
//! per iteration ([`learning_plan`](super::plan::learning_plan)): small iterations
//! ([`GAMES_PER_ITERATION`] self-play games of [`SIMULATIONS`] PUCT simulations a move, the
//! trainer's defaults otherwise) and no games against baselines. After the
//! first iteration and every `eval_every`-th (about [`LEARNING_EVALUATIONS`] in all, so that the
//! share is mostly spent learning: an evaluation of 2,000 positions costs under half an
//! iteration), the network is measured on the whole committed set (`data/positions/VARIANT.jsonl`):
//! how often its move, with 32 simulations and with its policy alone, keeps the exact result (of
//! all positions and of the critical ones) and the best margin.
//!
//! Nothing depends on the clock, and every random choice of the trainer comes from the seed, so
//! on the CPU the same seed and `--threads` (self-play deals its games to one worker per thread)
//! give the same curve on any machine. The finished curve is cached like every other unit, under
//! a key that names the iterations, the threads and the set's hash.
//!
//! [`LEARNING_EVALUATIONS`]: super::plan::LEARNING_EVALUATIONS

use super::accuracy::Committed;
use super::cache::{Checked, UnitKey, rate_inconsistency, unless};
use super::config::{Config, Variant};
use super::plan::LearningPlan;
use serde::{Deserialize, Serialize};
use sowing_eval::accuracy::Kept;

/// One evaluation of the network during training, on every position of the committed set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The iteration it followed, from 1.
    pub iteration: u64,
    /// The network's moves with its search ([`SIMULATIONS`] a move).
    pub search: Kept,
    /// Its policy's moves alone (one simulation).
    pub policy: Kept,
}

impl Checked for Vec<CurvePoint> {
    /// `key.games` is the number of positions of the set.
    fn inconsistency(&self, key: &UnitKey) -> Option<String> {
        let Some(first) = self.first() else {
            return Some("it has no evaluation".to_string());
        };
        // Which positions are critical, and which have known margins, is the set's: the same at
        // every evaluation, with search or without.
        let (critical, margins) = (first.search.critical.n, first.search.margin.n);
        self.iter()
            .flat_map(|p| [("with search", &p.search), ("policy alone", &p.policy)])
            .find_map(|(what, kept)| {
                rate_inconsistency(&format!("keeps the result ({what})"), kept.result)
                    .or_else(|| rate_inconsistency(&format!("critical ({what})"), kept.critical))
                    .or_else(|| rate_inconsistency(&format!("margin ({what})"), kept.margin))
                    .or_else(|| {
                        unless(kept.result.n == key.games, || {
                            format!(
                                "an evaluation ({what}) of {} positions where the set has {}",
                                kept.result.n, key.games
                            )
                        })
                    })
                    .or_else(|| {
                        unless(
                            kept.critical.n == critical && kept.margin.n == margins,
                            || {
                                format!(
                                    "its evaluations ({what}) do not agree on which positions \
                                     are critical or have known margins"
                                )
                            },
                        )
                    })
            })
            .or_else(|| {
                unless(critical <= key.games && margins <= key.games, || {
                    "more critical or margin positions than positions".to_string()
                })
            })
            .or_else(|| {
                let ordered = self.windows(2).all(|w| w[0].iteration < w[1].iteration);
                unless(first.iteration == 1 && ordered, || {
                    "its evaluations are not in training order from the first iteration".to_string()
                })
            })
    }
}

/// The learning figures of one variant.
#[derive(Clone, Debug, PartialEq)]
// Without the `torch` feature no curve can be made, but the report still has to show one.
#[cfg_attr(not(feature = "torch"), allow(dead_code))]
pub enum Learning {
    /// Not measured, and why.
    NotMeasured(String),
    /// The network's accuracy after each evaluated iteration, in training order.
    Curve {
        /// Iterations trained: the plan's, the last of `points`.
        iterations: u64,
        /// The positions file (the variant's committed set).
        file: String,
        points: Vec<CurvePoint>,
    },
}

/// Self-play games per iteration: small iterations, so that even a short share gives a curve
/// of several evaluations.
pub const GAMES_PER_ITERATION: u32 = 32;
/// PUCT simulations per move, in self-play and when the network is evaluated.
pub const SIMULATIONS: u32 = 32;

/// The trainer's settings besides the budget; one checkpoint kept (a run is not resumed: its
/// curve is cached whole).
#[cfg(feature = "torch")]
fn settings() -> sowing_train::TrainConfig {
    sowing_train::TrainConfig {
        games_per_iteration: GAMES_PER_ITERATION,
        parallel_games: GAMES_PER_ITERATION,
        simulations: SIMULATIONS,
        eval_games: 0,
        eval_simulations: SIMULATIONS,
        baselines: String::new(),
        keep_last: 1,
        keep_every: 0,
        ..sowing_train::TrainConfig::default()
    }
}

/// The measurement name of learning on `set` by `plan` on `threads` threads: self-play depends
/// on the threads, so a curve of other threads is not reused.
#[cfg(feature = "torch")]
fn measurement(plan: &LearningPlan, threads: usize, set: &Committed) -> String {
    format!(
        "learning {} iterations on {threads} threads, set {:016x}",
        plan.iterations, set.hash
    )
}

/// Whether this build can train; the error says why not.
#[cfg(not(feature = "torch"))]
pub fn availability() -> Result<(), String> {
    Err(
        "this build of `sowing` has no trainer (the `torch` feature, which needs libtorch; \
         `make build` makes one)"
            .into(),
    )
}

/// Without the trainer nothing is measured.
#[cfg(not(feature = "torch"))]
pub fn measure(
    _: &Variant,
    _: &Result<Committed, String>,
    _: &LearningPlan,
    _: &Config,
    _: &super::cache::Cache,
) -> Learning {
    Learning::NotMeasured(availability().expect_err("this build has no trainer"))
}

#[cfg(feature = "torch")]
pub fn availability() -> Result<(), String> {
    Ok(())
}

/// Train on `variant` for the iterations of `plan` (self-play on `config.threads` workers) and
/// return the network's accuracy on the committed set after each evaluated iteration, from the
/// cache when this unit was done before.
#[cfg(feature = "torch")]
pub fn measure(
    variant: &Variant,
    committed: &Result<Committed, String>,
    plan: &LearningPlan,
    config: &Config,
    cache: &super::cache::Cache,
) -> Learning {
    use super::cache::slug;
    use sowing_env::Rules;
    use sowing_train::{TrainConfig, Trainer};

    if Rules::preset(&variant.name).ok() != Some(variant.rules) {
        return Learning::NotMeasured(format!(
            "the trainer trains on presets only, and {} is a rules file",
            variant.name
        ));
    }
    let set = match committed {
        Ok(set) => set,
        Err(reason) => return Learning::NotMeasured(reason.clone()),
    };
    let Ok(iterations) = u32::try_from(plan.iterations) else {
        return Learning::NotMeasured(format!(
            "{} iterations are more than the trainer counts",
            plan.iterations
        ));
    };
    let eval_every = u32::try_from(plan.eval_every).expect("at most the iterations");
    let curve = |points| Learning::Curve {
        iterations: plan.iterations,
        file: set.file.display().to_string(),
        points,
    };
    let key = UnitKey::new(
        config.seed,
        &variant.name,
        &variant.rules,
        &measurement(plan, config.threads, set),
        0,
        set.set.positions.len() as u64,
    );
    if let Some(points) = cache.load::<Vec<CurvePoint>>(&key) {
        return curve(points);
    }

    let run_dir =
        config
            .out
            .join("learning")
            .join(format!("{}-s{}", slug(&variant.name), config.seed));
    // A run cut off part way is started again: its curve is cached only whole.
    let _ = std::fs::remove_dir_all(&run_dir);
    let args = TrainConfig {
        variant: Some(variant.name.clone()),
        iterations: Some(iterations),
        minutes: None,
        seed: config.seed,
        out: Some(run_dir),
        threads: Some(config.threads),
        eval_every,
        eval_positions: Some(set.file.clone()),
        ..settings()
    };
    let mut trainer = match Trainer::new(args) {
        Ok(t) => t,
        Err(e) => return Learning::NotMeasured(format!("the trainer could not start: {e}")),
    };
    crate::output::note!(
        "learning: training on {} for {iterations} iterations",
        variant.name
    );
    let mut points = Vec::new();
    while trainer.wants_more(0.0, 0.0) {
        let metrics = match trainer.iterate(&mut |_| {}) {
            Ok(m) => m,
            Err(e) => return Learning::NotMeasured(format!("training failed: {e}")),
        };
        if let (Some(search), Some(policy)) = (metrics.accuracy, metrics.policy_accuracy) {
            points.push(CurvePoint {
                iteration: u64::from(metrics.iteration),
                search,
                policy,
            });
        }
    }
    let evaluated: Vec<u64> = points.iter().map(|p| p.iteration).collect();
    if !evaluated.iter().copied().eq(plan.evaluated()) {
        return Learning::NotMeasured(format!(
            "the trainer evaluated after iterations {evaluated:?}, not as planned"
        ));
    }
    if let Err(e) = cache.store(&key, &points) {
        crate::output::note!(
            "warning: cannot cache the learning curve of {}: {e}",
            variant.name
        );
    }
    curve(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sowing_env::Rules;
    use sowing_eval::stats::Rate;

    fn kept(result: f64, critical: f64) -> Kept {
        Kept {
            result: Rate::new(result, 100),
            critical: Rate::new(critical, 40),
            margin: Rate::new(30.0, 60),
        }
    }

    fn point(iteration: u64, result: f64) -> CurvePoint {
        CurvePoint {
            iteration,
            search: kept(result, result - 60.0),
            policy: kept(result - 10.0, result - 70.0),
        }
    }

    #[test]
    fn only_a_curve_of_the_sets_positions_in_training_order_is_taken_back() {
        let rules = Rules::preset("en-dodoi-6").unwrap();
        let key = UnitKey::new(0, "en-dodoi-6", &rules, "learning", 0, 100);
        let curve = vec![point(1, 80.0), point(2, 85.0), point(4, 90.0)];
        assert_eq!(curve.inconsistency(&key), None);
        let why = |curve: Vec<CurvePoint>| curve.inconsistency(&key).unwrap();
        // Accuracy above one: more kept than positions.
        let mut above = curve.clone();
        above[1].search.result.hits = 101.0;
        assert!(why(above).contains("keeps the result (with search)"));
        let mut negative = curve.clone();
        negative[2].policy.critical.hits = -1.0;
        assert!(why(negative).contains("critical (policy alone)"));
        // An evaluation of fewer positions than the set's.
        let mut fewer = curve.clone();
        fewer[0].policy.result.n = 99;
        assert!(why(fewer).contains("of 99 positions where the set has 100"));
        // The critical positions are the set's: the same at every evaluation.
        let mut moved = curve.clone();
        moved[2].search.critical.n = 41;
        assert!(why(moved).contains("critical"));
        for order in [
            vec![point(1, 80.0), point(4, 90.0), point(2, 85.0)],
            vec![point(2, 85.0), point(4, 90.0)],
            vec![point(1, 80.0), point(1, 80.0)],
        ] {
            assert!(why(order).contains("training order"));
        }
        assert!(why(Vec::new()).contains("no evaluation"));
    }

    /// Two runs of the same seed and threads, each from a fresh output directory, give the same
    /// curve; on the first 200 positions of en-dodoi-6's committed set, two iterations.
    #[cfg(feature = "torch")]
    #[test]
    fn the_same_seed_and_threads_learn_the_same_curve() {
        use super::super::cache::Cache;
        use super::super::sketch::hash_bytes;
        use sowing_eval::accuracy::read_set;
        use sowing_exact::positions::PositionSet;

        let rules = Rules::preset("en-dodoi-6").unwrap();
        let committed = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/positions/en-dodoi-6.jsonl"
        );
        let whole = read_set(committed.as_ref(), "en-dodoi-6", &rules).unwrap();
        let dir = std::env::temp_dir().join(format!("sowing-learn-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("positions.jsonl");
        let part = PositionSet::new(
            rules,
            serde_json::json!(null),
            0,
            whole.positions[..200].to_vec(),
        );
        part.write(&file).unwrap();
        let set = Committed {
            hash: hash_bytes(&std::fs::read(&file).unwrap()),
            file,
            set: part,
            phases: None,
        };
        let variant = Variant {
            name: "en-dodoi-6".to_string(),
            rules,
        };
        let plan = LearningPlan {
            iterations: 2,
            eval_every: 1,
        };
        let run = |out: &str| {
            let config = Config {
                variants: vec![variant.clone()],
                budget: "1m".parse().unwrap(),
                out: dir.join(out),
                seed: 5,
                threads: 2,
                max_units: None,
                command: Vec::new(),
                tablebases: Vec::new(),
            };
            measure(
                &variant,
                &Ok(set.clone()),
                &plan,
                &config,
                &Cache::new(&config.out),
            )
        };
        let first = run("a");
        let Learning::Curve {
            iterations, points, ..
        } = &first
        else {
            panic!("not measured: {first:?}");
        };
        assert_eq!(*iterations, 2);
        assert_eq!(
            points.iter().map(|p| p.iteration).collect::<Vec<_>>(),
            [1, 2]
        );
        assert!(
            points
                .iter()
                .all(|p| p.search.result.n == 200 && p.policy.result.n == 200)
        );
        assert_eq!(run("b"), first, "a second run from a fresh directory");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
