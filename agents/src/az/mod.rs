//! The trained network as a player; all but its shape and checkpoints behind the `torch`
//! feature (tch, libtorch).
//!
//! - [`shape`]: the network's shape, as checkpoints record it (always built).
//! - [`network`]: the policy-value network, one definition for every board size.
//! - [`dense`]: a dense layer's product with its weights packed once, for the forward pass.
//! - [`inference`]: its MLP's forward pass without libtorch, for play (a snapshot of the weights),
//!   and [`Playing`], through which everything that plays a network loads and evaluates it.
//! - [`puct`]: PUCT search with any [`Evaluator`](crate::Evaluator), many positions batched, and
//!   self-play (outside this feature: the Python binding searches with it too).
//! - [`checkpoint`]: the on-disk layout of a training run, written atomically and checked when
//!   read (always built: the Python package reads and writes it too); loading a network to
//!   play it (feature `torch`).
//! - [`agent`]: a trained network as the agent `az:PATH[:SIMS][:solver=NODES]`.
//! - [`guide`]: a trained network guiding the exact proof-number search (`--guide RUN`).
//!
//! Playing does not depend on training: the trainer (`sowing-train`) builds on this module, and
//! nothing here knows it.

#[cfg(feature = "torch")]
pub mod agent;
pub mod checkpoint;
pub mod dense;
#[cfg(feature = "torch")]
pub mod guide;
#[cfg(feature = "torch")]
pub mod inference;
#[cfg(feature = "torch")]
pub mod network;
pub mod shape;
pub use crate::puct;

#[cfg(feature = "torch")]
pub use agent::{AzAgent, MAX_SOLVER_NODES, SOLVER_NODES, SOLVER_SEEDS};
#[cfg(feature = "torch")]
pub use checkpoint::{LoadedNet, load_checkpoint};
#[cfg(feature = "torch")]
pub use guide::NetworkGuide;
#[cfg(feature = "torch")]
pub use inference::{Inference, Playing};
#[cfg(feature = "torch")]
pub use network::PolicyValueNet;
pub use puct::{BatchSearch, PuctConfig, SearchResult};
pub use shape::{Body, NetConfig};
