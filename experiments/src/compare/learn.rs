//! Learnability: how fast the AlphaZero trainer improves on each variant under the same budget,
//! as its Elo against the fixed baselines over training time.

use super::Variant;
use serde::Serialize;
use std::path::Path;

/// One evaluation of the trainer's agent during training.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    pub iteration: u64,
    /// Training time when this evaluation was made.
    pub seconds: f64,
    pub elo: f64,
    pub elo_lo: f64,
    pub elo_hi: f64,
}

/// The learning figure of one variant.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
// Without the `torch` feature no curve can be made, but the report still has to show one.
#[allow(dead_code)]
pub enum Learning {
    /// Not measured, and why.
    NotMeasured(String),
    /// The learning curve, in training order.
    Curve(Vec<CurvePoint>),
}

/// Whether this build can train; the error says why not.
pub fn availability() -> Result<(), String> {
    Err("this build of `sowing` has no trainer (the `torch` feature, which needs libtorch)".into())
}

/// Train on `variant` for `seconds` and return its learning curve.
pub fn measure(_variant: &Variant, _seconds: f64, _seed: u64, _out: &Path) -> Learning {
    Learning::NotMeasured(availability().expect_err("measure is only called when available"))
}
