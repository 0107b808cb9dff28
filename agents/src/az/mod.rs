//! AlphaZero-style self-play training with tch (libtorch), behind the `torch` feature.
//!
//! - [`network`]: the policy-value network, one definition for every board size.
//! - [`puct`]: PUCT search with any [`Evaluator`](crate::Evaluator), many positions batched, and
//!   self-play (outside this feature: the Python binding searches with it too).
//! - [`replay`], [`adam`]: the replay buffer and AdamW, both checkpointable.
//! - [`trainer`]: the run's `Args` and one training iteration, start and resume.
//! - [`checkpoint`]: the on-disk layout, written atomically and checked when read; loading a
//!   network to play it.
//! - [`rating`]: the network's matches against the baselines, and its Elo rating.
//! - [`agent`]: a trained network as the agent `az:PATH[:SIMS][:solver=NODES]`.
//!
//! Playing does not depend on training: [`agent`] reads a checkpoint through [`checkpoint`]
//! alone, and the trainer builds on both.

pub mod adam;
pub mod agent;
pub mod checkpoint;
pub mod network;
pub use crate::puct;
pub mod rating;
pub mod replay;
pub mod trainer;

pub use agent::{AzAgent, MAX_SOLVER_NODES, SOLVER_NODES, SOLVER_SEEDS};
pub use checkpoint::{LoadedNet, load_checkpoint};
pub use network::{Body, NetConfig, PolicyValueNet};
pub use puct::{BatchSearch, PuctConfig, SearchResult};
pub use trainer::{Args, IterationMetrics, Progress, RootSearch, TrainError, Trainer};
