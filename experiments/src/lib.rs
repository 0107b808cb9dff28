//! # sowing-experiments
//!
//! The library half of the `sowing` command: code that the command and `cargo bench` share.
//! The command itself (`src/main.rs`) keeps one module per subcommand.

pub mod throughput;
