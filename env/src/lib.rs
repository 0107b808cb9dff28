//! # sowing-env
//!
//! The rules of the relay-sowing mancala games of East Africa (En Dodoi, Sadeqa III,
//! Cross-Endodoi), exactly as `RULES.md` states them, as a fast, deterministic, Gym-style
//! environment.
//!
//! - [`reference`](mod@reference): the rules as plain code, to read beside `RULES.md`; the tests' oracle.
//! - [`Rules`]: a variant as data ([`RulesSpec`] names its fields), with the presets by name
//!   ([`Preset::ALL`], one table).
//! - [`State`]: a `Copy` position with its exact legal-move mask; [`State::play`] is checked.
//! - [`observation`]: the fixed-length encoding relative to the player to move.
//! - [`Env`]: one game with Gymnasium's `reset` / `step`; [`VecEnv`]: many games into ndarray
//!   buffers on several threads.
//! - [`GameRecord`]: a game as JSON, replayable.
//!
//! ```
//! use sowing_env::{Rules, State};
//!
//! let rules = Rules::preset("en-dodoi-8")?;
//! let start = State::initial(&rules);
//! let next = start.play(7)?;
//! assert_eq!(next.captured(sowing_env::Player::South), 7);
//! assert!(start.play(8).is_err()); // out of range: actions are 0..8
//! # Ok::<(), sowing_env::Error>(())
//! ```
//!
//! ## Layers
//!
//! Each module uses only modules of the layers above it, so none imports one that imports it
//! back (`env/tests/layers.rs` checks this):
//!
//! 1. Vocabulary, importing nothing of the crate: `player` ([`Player`], [`ByPlayer`]), `board`
//!    ([`Board`]), `switches` ([`Trigger`], [`Direction`]), `pool` (the threads of a `VecEnv`).
//! 2. `outcome` ([`Outcome`]), `preset` (the table), `lap` (the lap tables).
//! 3. `error` ([`Error`]), then `rules` ([`Rules`]).
//! 4. The rules as plain code: `reference`. The fast engine: `sow`, then `legal_mask`, then
//!    `state` ([`State`]), then `observation`.
//! 5. Games: `env` ([`Env`]), `record` ([`GameRecord`]), then `vec_env` ([`VecEnv`]).

mod board;
mod env;
mod error;
mod lap;
mod legal_mask;
pub mod observation;
mod outcome;
mod player;
mod pool;
mod preset;
mod record;
pub mod reference;
mod rules;
mod rules_file;
mod sow;
mod state;
mod switches;
mod vec_env;

pub use board::Board;
pub use env::{Env, Step, random_action, random_opening};
pub use error::{Error, IllegalReason};
pub use legal_mask::SownMoves;
pub use outcome::Outcome;
pub use player::{ByPlayer, Player};
pub use preset::{PRESETS, Preset, preset_source};
pub use record::GameRecord;
pub use rules::{MAX_HOLES, MAX_TOTAL_SEEDS, OUTSIDE_TREE_FIELDS, Rules, RulesSpec, TREE_FIELDS};
pub use rules_file::{read_rules_file, rules_of_file};
pub use sow::{Sowing, sow};
pub use state::{LegalActions, MoveInfo, State};
pub use switches::{Direction, Trigger};
pub use vec_env::{ActionIndex, AutoReset, VecConfig, VecEnv};
