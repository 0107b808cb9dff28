//! # sowing-agents
//!
//! Players for the sowing games, built on `sowing-env`: the [`Agent`] trait and the search
//! baselines, and the [`Evaluator`] trait that lets a network replace random rollouts.

mod agent;
mod evaluator;

pub use agent::Agent;
pub use evaluator::{Evaluation, Evaluator};
