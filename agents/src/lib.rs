//! # sowing-agents
//!
//! The players of the sowing games and their searches, built on `sowing-env` and
//! `sowing-exact`: the [`Agent`] trait, the search baselines (random, greedy, alpha-beta, MCTS),
//! perfect play inside a tablebase ([`PerfectPlay`]), agent specs ([`AgentSpec`]), the
//! [`Evaluator`] trait that lets a network replace random rollouts, the batched PUCT search and
//! self-play of [`puct`] with the network input of [`features`] (any evaluator: the tch network,
//! or a Python one), the hybrid alpha-beta whose leaves an evaluator values ([`NetworkLeaves`]),
//! and (feature `torch`) the trained network as a player ([`az`]).
//!
//! Layer: it imports `sowing-env` and `sowing-exact`. Measuring players (`sowing-eval`) and
//! training them (`sowing-train`) build on it; it knows neither.

mod agent;
mod alphabeta;
pub mod az;
mod budget;
mod evaluator;
pub mod features;
mod greedy;
mod hybrid;
mod mcts;
mod perfect;
pub mod puct;
mod random;
mod spec;
mod streams;

pub use agent::Agent;
pub use alphabeta::{AlphaBeta, CAPTURE_WEIGHT, SearchInfo, WIN};
pub use budget::{Budget, MAX_NETWORK_SIMULATIONS, MAX_TIME};
pub use evaluator::{Evaluation, Evaluator, Rollout};
pub use greedy::Greedy;
pub use hybrid::{NETWORK_SCALE, NetworkLeaves};
pub use mcts::{EXPLORATION, MAX_SIMULATIONS, Mcts, MctsInfo};
pub use perfect::{PerfectPlay, TablebaseEvaluator, perfect_moves};
pub use random::RandomAgent;
pub use spec::{
    AgentSpec, FORMS, Kind, SpecError, SpecOption, TIMED_LEAVES, az_default_leaves,
    az_default_solver, from_spec, parse_budget,
};
pub use streams::stream;
