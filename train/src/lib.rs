//! # sowing-train
//!
//! AlphaZero-style self-play training of the sowing network (feature `torch`, tch): the run's
//! settings and one training iteration, start and resume ([`trainer`]), the replay buffer and
//! AdamW, both checkpointable ([`replay`], [`adam`]), and the network's matches against its
//! baselines and its Elo rating ([`rating`]).
//!
//! Layer: it imports `sowing-env`, `sowing-exact`, `sowing-agents` (the network, its
//! checkpoints and the search it plays with: `sowing_agents::az`) and `sowing-eval` (the match
//! loop, accuracy); only the command and the Python package build on it.

#[cfg(feature = "torch")]
pub mod adam;
#[cfg(feature = "torch")]
pub mod rating;
#[cfg(feature = "torch")]
pub mod replay;
#[cfg(feature = "torch")]
pub mod trainer;

#[cfg(feature = "torch")]
pub use trainer::{Args, IterationMetrics, Progress, RootSearch, TrainError, Trainer};
