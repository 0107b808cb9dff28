//! The two players and a pair of values, one for each.
//!
//! Player 0 (South) owns holes `0..n` and moves first; player 1 (North) owns `n..2n`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Index, IndexMut, Not};

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// Player 0, the near row, holes `0..n`; moves first.
    South = 0,
    /// Player 1, the far row, holes `n..2n`.
    North = 1,
}

impl Player {
    /// Both players, South first.
    pub const BOTH: [Player; 2] = [Player::South, Player::North];

    /// The player with this index (0 is South, 1 is North); `None` for any other number.
    pub fn from_index(index: usize) -> Option<Player> {
        match index {
            0 => Some(Player::South),
            1 => Some(Player::North),
            _ => None,
        }
    }

    /// 0 for South, 1 for North.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The other player.
    #[inline]
    pub fn opponent(self) -> Player {
        !self
    }
}

impl Not for Player {
    type Output = Player;
    #[inline]
    fn not(self) -> Player {
        match self {
            Player::South => Player::North,
            Player::North => Player::South,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::South => "South",
            Player::North => "North",
        })
    }
}

/// A value for each player, indexed by [`Player`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ByPlayer<T> {
    /// South's value (player 0).
    pub south: T,
    /// North's value (player 1).
    pub north: T,
}

impl<T> ByPlayer<T> {
    /// A pair from South's and North's values.
    pub fn new(south: T, north: T) -> Self {
        ByPlayer { south, north }
    }
}

impl<T> Index<Player> for ByPlayer<T> {
    type Output = T;
    #[inline]
    fn index(&self, player: Player) -> &T {
        match player {
            Player::South => &self.south,
            Player::North => &self.north,
        }
    }
}

impl<T> IndexMut<Player> for ByPlayer<T> {
    #[inline]
    fn index_mut(&mut self, player: Player) -> &mut T {
        match player {
            Player::South => &mut self.south,
            Player::North => &mut self.north,
        }
    }
}
