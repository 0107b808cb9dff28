//! # sowing-exact
//!
//! What a position of the sowing games is worth under perfect play, found exactly, and the sets
//! of positions labelled with it:
//!
//! - [`tablebase`]: endgame tables, the value of every position with up to `K` seeds on the
//!   board, built by retrograde analysis, written and read back checked;
//! - [`prove`]: the win prover ([`Solver`]): does the mover force a win within a depth, and
//!   which moves lose;
//! - [`value`]: the exact value search ([`ResultSearch`]): a position's perfect-play result
//!   and forced margin, from the tables and the prover; [`searches`] runs it on many threads;
//! - [`positions`]: exactly labelled test positions, their file format, and how they are drawn
//!   from strong play;
//! - [`proven`]: the starts proven so far (`data/proven.json`), shipped with the code.
//!
//! Beside them, what every crate above shares: [`Stop`] (a search asked to stop), [`memory`]
//! (sizes a user asks for, checked before they are allocated), [`output_file`] (files written
//! beside their target, never over a device) and [`hash`] (keys of positions).
//!
//! Layer: it imports only `sowing-env`. The players (`sowing-agents`), their measurement
//! (`sowing-eval`) and the trainer (`sowing-train`) build on it; it knows none of them.

pub mod hash;
pub mod memory;
mod open_tables;
pub mod output_file;
pub mod positions;
pub mod prove;
pub mod proven;
pub mod searches;
pub mod split;
mod stop;
pub mod tablebase;
pub mod value;
mod wdl;

pub use open_tables::{shared_tablebase, shared_tablebase_for};
pub use prove::{
    MAX_SOLVER_NODES, Proof, SOLVER_DEPTH, SOLVER_NODES, SOLVER_SEEDS, SOLVER_TABLE_BITS, Solver,
};
pub use stop::Stop;
pub use value::{MAX_LINE, ResultSearch};
pub use wdl::Wdl;
