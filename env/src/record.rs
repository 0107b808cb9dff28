//! A game record: the rules, the moves and the result, as JSON. Replaying a record plays every
//! move through the checked [`State::play`], so a record that replays is a legal game.

use crate::error::Error;
use crate::outcome::Outcome;
use crate::player::ByPlayer;
use crate::rules::Rules;
use crate::state::State;
use serde::{Deserialize, Serialize};

/// One game: enough to replay it and to check its result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The rules it was played by.
    pub rules: Rules,
    /// The actions, relative to each mover, in order.
    pub moves: Vec<usize>,
    /// How the game stood after the last move.
    pub outcome: Outcome,
    /// Seeds captured by each player at the end.
    pub captured: ByPlayer<u8>,
    /// Free-form labels: player names, agent specs, seeds, dates.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tags: std::collections::BTreeMap<String, String>,
}

impl GameRecord {
    /// A record of the game that `moves` make from the start of `rules`; fails on the first move
    /// that cannot be played.
    pub fn from_moves(rules: &Rules, moves: &[usize]) -> Result<GameRecord, Error> {
        let end = replay(rules, moves)?;
        Ok(GameRecord {
            rules: *rules,
            moves: moves.to_vec(),
            outcome: end.outcome(),
            captured: end.captures(),
            tags: Default::default(),
        })
    }

    /// Replay every move from the start, checking each, and check the stored result; gives the
    /// final state.
    pub fn replay(&self) -> Result<State, Error> {
        let end = replay(&self.rules, &self.moves)?;
        if end.outcome() != self.outcome || end.captures() != self.captured {
            return Err(Error::RecordMismatch {
                message: format!(
                    "the record says {} with captures {}-{}, replaying gives {} with {}-{}",
                    self.outcome,
                    self.captured.south,
                    self.captured.north,
                    end.outcome(),
                    end.captured(crate::Player::South),
                    end.captured(crate::Player::North)
                ),
            });
        }
        Ok(end)
    }

    /// Every state of the game, the start first and the final state last.
    pub fn states(&self) -> Result<Vec<State>, Error> {
        let mut states = vec![State::initial(&self.rules)];
        for (i, &a) in self.moves.iter().enumerate() {
            let next = states[i].play(a).map_err(|e| at_move(i, e))?;
            states.push(next);
        }
        Ok(states)
    }

    /// The record as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("records always serialise")
    }

    /// A record from JSON, after a UTF-8 byte order mark if there is one (not yet replayed: call
    /// [`GameRecord::replay`]).
    pub fn from_json(text: &str) -> Result<GameRecord, Error> {
        serde_json::from_str(crate::rules::without_bom(text)).map_err(|e| Error::parse("JSON", e))
    }
}

fn replay(rules: &Rules, moves: &[usize]) -> Result<State, Error> {
    let mut state = State::initial(rules);
    for (i, &a) in moves.iter().enumerate() {
        state = state.play(a).map_err(|e| at_move(i, e))?;
    }
    Ok(state)
}

fn at_move(index: usize, e: Error) -> Error {
    Error::RecordMismatch {
        message: format!("move {} (0-based {index}): {e}", index + 1),
    }
}
