//! The trained network as a player, behind the `torch` feature (tch, libtorch).
//!
//! - [`network`]: the policy-value network, one definition for every board size.
//! - [`puct`]: PUCT search with any [`Evaluator`](crate::Evaluator), many positions batched, and
//!   self-play (outside this feature: the Python binding searches with it too).
//! - [`checkpoint`]: the on-disk layout of a training run, written atomically and checked when
//!   read; loading a network to play it.
//! - [`agent`]: a trained network as the agent `az:PATH[:SIMS][:solver=NODES]`.
//!
//! Playing does not depend on training: the trainer (`sowing-train`) builds on this module, and
//! nothing here knows it.

pub mod agent;
pub mod checkpoint;
pub mod network;
pub use crate::puct;

pub use agent::{AzAgent, MAX_SOLVER_NODES, SOLVER_NODES, SOLVER_SEEDS};
pub use checkpoint::{LoadedNet, load_checkpoint};
pub use network::{Body, NetConfig, PolicyValueNet};
pub use puct::{BatchSearch, PuctConfig, SearchResult};
