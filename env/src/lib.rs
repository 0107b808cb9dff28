//! # sowing-env
//!
//! The rules of the relay-sowing mancala games of East Africa (En Dodoi, Sadeqa III,
//! Cross-Endodoi), exactly as `RULES.md` states them, as a fast, deterministic, Gym-style
//! environment.
//!
//! - [`Rules`]: a variant as data, with the presets by name ([`PRESETS`]).
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

mod board;
mod env;
mod error;
mod lap;
mod legal_mask;
pub mod observation;
mod player;
mod pool;
mod record;
mod rules;
mod sow;
mod state;
mod vec_env;

pub use board::Board;
pub use env::{Env, Step, random_action, random_opening};
pub use error::{Error, IllegalReason};
pub use legal_mask::SownMoves;
pub use player::{ByPlayer, Player};
pub use record::GameRecord;
pub use rules::{
    Direction, MAX_HOLES, MAX_TOTAL_SEEDS, PRESETS, Rules, RulesSpec, Trigger, preset_source,
};
pub use sow::{Sowing, sow};
pub use state::{LegalActions, MoveInfo, Outcome, State};
pub use vec_env::{ActionIndex, AutoReset, VecConfig, VecEnv};
