//! # sowing-eval
//!
//! How strong a sowing player is, measured: the one match loop every game between players goes
//! through ([`matches`]: paired openings, games fixed by the seed whatever the threads), round
//! robins with Elo ratings ([`arena`]), match play to `N` wins with its odds worked out exactly
//! ([`series`]), the accuracy of players on exactly labelled positions ([`accuracy`]), games
//! reviewed move by move against perfect play ([`review`]), and the intervals and ratings all of
//! them report ([`stats`]); and the exact test positions drawn from strong play and labelled,
//! game by game ([`labelling`]), which `sowing positions` and the Ray driver share.
//!
//! Layer: it imports `sowing-env`, `sowing-exact` and `sowing-agents`; the trainer
//! (`sowing-train`) and the command (`sowing-experiments`) build on it.

pub mod accuracy;
pub mod arena;
pub mod labelling;
pub mod matches;
pub mod openings;
pub mod review;
pub mod series;
pub mod stats;
