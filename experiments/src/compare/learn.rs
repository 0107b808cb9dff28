//! Learnability: how fast the AlphaZero trainer improves on each variant under the same budget,
//! as its Elo against the fixed baselines over training time.
//!
//! Built with the `torch` feature, every preset gets the same wall-clock share of the budget for
//! a fresh training run (small self-play iterations, so that even a short share gives several
//! evaluations). Training is budgeted by time, so its curve is not repeatable to the game; the
//! finished curve is cached like every other unit, so a resumed comparison reports the same one.

use super::cache::{Checked, UnitKey, unless};
use super::config::Variant;
use serde::{Deserialize, Serialize};

/// One evaluation of the trainer's agent during training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub iteration: u64,
    /// Training time when this evaluation was made.
    pub seconds: f64,
    pub elo: f64,
    pub elo_lo: f64,
    pub elo_hi: f64,
}

impl Checked for Vec<CurvePoint> {
    fn inconsistency(&self, _: &UnitKey) -> Option<String> {
        let finite = self.iter().all(|p| {
            [p.seconds, p.elo, p.elo_lo, p.elo_hi]
                .iter()
                .all(|x| x.is_finite())
                && p.seconds >= 0.0
                && p.elo_lo <= p.elo
                && p.elo <= p.elo_hi
        });
        let ordered = self
            .windows(2)
            .all(|w| w[0].iteration < w[1].iteration && w[0].seconds <= w[1].seconds);
        unless(finite && ordered, || {
            "its points are not a learning curve (finite Elo within its interval, in training \
             order)"
                .to_string()
        })
    }
}

/// The learning figure of one variant.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
// Without the `torch` feature no curve can be made, but the report still has to show one.
#[cfg_attr(not(feature = "torch"), allow(dead_code))]
pub enum Learning {
    /// Not measured, and why.
    NotMeasured(String),
    /// The learning curve, in training order.
    Curve(Vec<CurvePoint>),
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
    _: f64,
    _: &super::config::Config,
    _: &super::cache::Cache,
) -> Learning {
    Learning::NotMeasured(availability().expect_err("this build has no trainer"))
}

#[cfg(feature = "torch")]
pub fn availability() -> Result<(), String> {
    Ok(())
}

/// The least training time worth a curve: a few iterations of the small settings of `measure`.
pub const MIN_SECONDS: f64 = 10.0;

/// Train on `variant` for `seconds` of wall-clock time (the trainer uses every thread) and return
/// its learning curve, from the cache when this unit was done before.
#[cfg(feature = "torch")]
pub fn measure(
    variant: &Variant,
    seconds: f64,
    config: &super::config::Config,
    cache: &super::cache::Cache,
) -> Learning {
    use super::cache::{UnitKey, slug};
    use sowing_env::Rules;
    use sowing_train::{TrainConfig, Trainer};

    if Rules::preset(&variant.name).ok() != Some(variant.rules) {
        return Learning::NotMeasured(format!(
            "the trainer trains on presets only, and {} is a rules file",
            variant.name
        ));
    }
    let measurement = format!("learning {seconds:.0}s");
    let key = UnitKey::new(
        config.seed,
        &variant.name,
        &variant.rules,
        &measurement,
        0,
        0,
    );
    if let Some(curve) = cache.load::<Vec<CurvePoint>>(&key) {
        return Learning::Curve(curve);
    }

    let run_dir =
        config
            .out
            .join("learning")
            .join(format!("{}-s{}", slug(&variant.name), config.seed));
    // A run cut off part way is started again: its budget is time, which a restart resets.
    let _ = std::fs::remove_dir_all(&run_dir);
    let args = TrainConfig {
        variant: Some(variant.name.clone()),
        minutes: Some(seconds / 60.0),
        seed: config.seed,
        out: Some(run_dir),
        threads: Some(config.threads),
        games_per_iteration: 32,
        parallel_games: 32,
        simulations: 32,
        eval_games: 10,
        eval_simulations: 32,
        baselines: "random,greedy,mcts:100".to_string(),
        ..TrainConfig::default()
    };
    let mut trainer = match Trainer::new(args) {
        Ok(t) => t,
        Err(e) => return Learning::NotMeasured(format!("the trainer could not start: {e}")),
    };
    crate::output::note!("learning: training on {} for {seconds:.0} s", variant.name);
    let session = std::time::Instant::now();
    let mut last = 0.0;
    let mut curve = Vec::new();
    while trainer.wants_more(session.elapsed().as_secs_f64(), last) {
        let started = std::time::Instant::now();
        let metrics = match trainer.iterate(&mut |_| {}) {
            Ok(m) => m,
            Err(e) => return Learning::NotMeasured(format!("training failed: {e}")),
        };
        last = started.elapsed().as_secs_f64();
        if let (Some(elo), Some(half)) = (metrics.elo, metrics.elo_interval) {
            curve.push(CurvePoint {
                iteration: u64::from(metrics.iteration),
                seconds: metrics.seconds,
                elo,
                elo_lo: elo - half,
                elo_hi: elo + half,
            });
        }
    }
    if curve.is_empty() {
        return Learning::NotMeasured(format!(
            "no training iteration finished with an evaluation in {seconds:.0} s"
        ));
    }
    if let Err(e) = cache.store(&key, &curve) {
        crate::output::note!(
            "warning: cannot cache the learning curve of {}: {e}",
            variant.name
        );
    }
    Learning::Curve(curve)
}
