//! # sowing-agents
//!
//! Players for the sowing games, built on `sowing-env`: the [`Agent`] trait, the search
//! baselines (random, greedy, alpha-beta, MCTS), agent specs ([`from_spec`]), the [`Evaluator`]
//! trait that lets a network replace random rollouts, the batched PUCT search and self-play of
//! [`puct`] with the network input of [`features`] (any evaluator: the tch network of the
//! trainer, or a Python one), an exact endgame [`Solver`], the [`arena`] that plays them against
//! each other, their [`accuracy`] on exactly labelled positions, and match play ([`series`]): a
//! series of games to `N` wins, with its probability worked out exactly from the players' chances
//! in one game.

pub mod accuracy;
mod agent;
mod alphabeta;
pub mod arena;
#[cfg(feature = "torch")]
pub mod az;
mod budget;
mod evaluator;
pub mod features;
mod greedy;
mod hash;
pub mod matches;
mod mcts;
pub mod memory;
mod open_tables;
pub mod output_file;
mod perfect;
pub mod positions;
pub mod puct;
mod random;
mod result_search;
pub mod review;
pub mod series;
mod solver;
mod spec;
pub mod stats;
mod stop;
mod streams;
pub mod tablebase;
mod wdl;

pub use agent::Agent;
pub use alphabeta::{AlphaBeta, CAPTURE_WEIGHT, SearchInfo, WIN};
pub use budget::{Budget, MAX_TIME};
pub use evaluator::{Evaluation, Evaluator, Rollout};
pub use greedy::Greedy;
pub use mcts::{EXPLORATION, MAX_SIMULATIONS, Mcts, MctsInfo};
pub use open_tables::shared_tablebase;
pub use perfect::{PerfectPlay, TablebaseEvaluator, perfect_moves};
pub use random::RandomAgent;
pub use result_search::{MAX_LINE, ResultSearch};
pub use solver::{
    MAX_SOLVER_NODES, Proof, SOLVER_DEPTH, SOLVER_NODES, SOLVER_SEEDS, SOLVER_TABLE_BITS, Solver,
};
pub use spec::{FORMS, OPTIONS, SpecError, from_spec, parse_budget};
pub use stop::Stop;
pub use streams::stream;
pub use wdl::Wdl;
