//! # sowing-train
//!
//! AlphaZero-style self-play training of the sowing network: the run's settings, their defaults,
//! checks and config file ([`config`], always built: the Python package's Ray driver reads them
//! too), and (feature `torch`, tch) one training iteration, start and resume ([`trainer`]), the replay buffer and
//! AdamW, both checkpointable ([`replay`], [`adam`]), and the network's matches against its
//! baselines and its Elo rating ([`rating`]).
//!
//! Layer: it imports `sowing-env`, `sowing-exact`, `sowing-agents` (the network, its
//! checkpoints and the search it plays with: `sowing_agents::az`) and `sowing-eval` (the match
//! loop, accuracy); only the command and the Python package build on it.

#[cfg(feature = "torch")]
pub mod adam;
pub mod config;
#[cfg(feature = "torch")]
pub mod rating;
#[cfg(feature = "torch")]
pub mod replay;
#[cfg(feature = "torch")]
pub mod trainer;

pub use config::{ConfigError, RESUME_CHANGES, RootSearch, TrainConfig};
#[cfg(feature = "torch")]
pub use trainer::{IterationMetrics, Progress, TrainError, Trainer};
