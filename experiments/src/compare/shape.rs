//! Game shape under uniformly random play: how long games last, how many moves a position
//! offers, how far a move sows, how often endless moves turn up, how often games are cut off,
//! and the complexity estimates built on these (distinct positions reached, game-tree size).
//!
//! A unit of this measurement is a fixed number of random games whose seeds depend only on the
//! run's seed, the variant and the unit's index, so a unit gives the same figures wherever and
//! whenever it runs.

use super::cache::{Checked, UnitKey, mean_inconsistency, unless};
use super::sketch::{Sketch, hash_bytes};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_agents::stream;
use sowing_env::{Outcome, Player, Rules, State, random_action};
use sowing_eval::stats::{Histogram, Mean, Rate};

/// What random games looked like, added up over games (mergeable across units).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    pub games: u64,
    /// Plies per game.
    pub plies: Mean,
    /// Game length in plies, by length.
    pub lengths: Histogram,
    /// Legal moves in each position where a move was chosen.
    pub branching: Mean,
    /// Laps sown by each move played.
    pub laps: Mean,
    /// Seeds sown by each move played.
    pub sown: Mean,
    /// Positions (where a move was chosen) in which at least one move was endless.
    pub endless_positions: u64,
    /// Games that met at least one endless move.
    pub endless_games: u64,
    pub truncated: u64,
    pub south_wins: u64,
    pub north_wins: u64,
    pub draws: u64,
    /// The base-10 logarithm of the product of the branching factors along each game: the
    /// number of move sequences that game's path stands for (Knuth's estimator, as a log).
    pub log_paths: Mean,
    /// Every position reached, the start and the final ones included.
    pub distinct: Sketch,
}

impl Shape {
    pub fn merge(&mut self, other: &Shape) {
        self.games += other.games;
        self.plies.merge(&other.plies);
        self.lengths.merge(&other.lengths);
        self.branching.merge(&other.branching);
        self.laps.merge(&other.laps);
        self.sown.merge(&other.sown);
        self.endless_positions += other.endless_positions;
        self.endless_games += other.endless_games;
        self.truncated += other.truncated;
        self.south_wins += other.south_wins;
        self.north_wins += other.north_wins;
        self.draws += other.draws;
        self.log_paths.merge(&other.log_paths);
        self.distinct.merge(&other.distinct);
    }

    /// First-player (South) wins among all games, truncated ones included in the count.
    pub fn first_player_wins(&self) -> Rate {
        Rate::new(self.south_wins as f64, self.games)
    }
    pub fn draw_rate(&self) -> Rate {
        Rate::new(self.draws as f64, self.games)
    }
    pub fn truncated_rate(&self) -> Rate {
        Rate::new(self.truncated as f64, self.games)
    }
    pub fn endless_game_rate(&self) -> Rate {
        Rate::new(self.endless_games as f64, self.games)
    }
    pub fn endless_position_rate(&self) -> Rate {
        Rate::new(self.endless_positions as f64, self.branching.n)
    }

    /// Allis's game-tree complexity, log10(b^d): the mean branching factor raised to the mean
    /// game length.
    pub fn log10_game_tree(&self) -> Option<f64> {
        let b = self.branching.value()?;
        let d = self.plies.value()?;
        (b > 0.0).then(|| d * b.log10())
    }

    /// Distinct positions reached over all games (a HyperLogLog estimate, about 1.6% error).
    pub fn distinct_positions(&self) -> Option<f64> {
        (self.games > 0).then(|| self.distinct.estimate())
    }
}

impl Checked for Shape {
    fn inconsistency(&self, key: &UnitKey) -> Option<String> {
        let moves = self.branching.n;
        let ended = [self.south_wins, self.north_wins, self.draws, self.truncated]
            .into_iter()
            .try_fold(0u64, u64::checked_add);
        unless(self.games == key.games, || {
            format!("{} games where the unit plays {}", self.games, key.games)
        })
        .or_else(|| {
            unless(ended == Some(self.games), || {
                format!(
                    "South's {} wins, North's {}, {} draws and {} truncated games are not its {} \
                     games",
                    self.south_wins, self.north_wins, self.draws, self.truncated, self.games
                )
            })
        })
        .or_else(|| {
            let lengths = self
                .lengths
                .counts
                .iter()
                .try_fold(0u64, |a, &c| a.checked_add(c));
            unless(lengths == Some(self.games), || {
                "its game lengths do not count its games".to_string()
            })
        })
        .or_else(|| mean_inconsistency("plies", &self.plies, self.games))
        .or_else(|| mean_inconsistency("log_paths", &self.log_paths, self.games))
        .or_else(|| mean_inconsistency("branching", &self.branching, moves))
        .or_else(|| mean_inconsistency("laps", &self.laps, moves))
        .or_else(|| mean_inconsistency("sown", &self.sown, moves))
        .or_else(|| {
            unless(
                self.endless_games <= self.games && self.endless_positions <= moves,
                || "more games or positions with endless moves than there are".to_string(),
            )
        })
        .or_else(|| unless(self.distinct.is_whole(), || "its sketch is damaged".into()))
    }
}

/// The hash of a position as a player sees it: the board, both captured totals and the player to
/// move. The ply is left out, so a position reached again later counts once.
pub fn position_hash(state: &State) -> u64 {
    let mut bytes = state.cells();
    bytes.push(state.captured(Player::South));
    bytes.push(state.captured(Player::North));
    bytes.push(state.to_move().index() as u8);
    hash_bytes(&bytes)
}

/// Play `games` uniformly random games from the start, game `i` on stream `first + i` of the
/// ChaCha8 generator seeded with `seed`.
pub fn random_games(rules: &Rules, seed: u64, first: u64, games: u64) -> Shape {
    let mut shape = Shape::default();
    for g in first..first + games {
        play_one(rules, &mut stream(seed, 0, g), &mut shape);
    }
    shape
}

fn play_one(rules: &Rules, rng: &mut ChaCha8Rng, shape: &mut Shape) {
    let mut state = State::initial(rules);
    shape.distinct.insert(position_hash(&state));
    let mut met_endless = false;
    let mut log_paths = 0.0;
    while let Some(action) = random_action(&state, rng) {
        let branching = state.legal_count();
        shape.branching.add(branching as f64);
        log_paths += (branching as f64).log10();
        if state.endless_mask() != 0 {
            shape.endless_positions += 1;
            met_endless = true;
        }
        let (next, info) = state
            .play_with_info(action)
            .expect("a move drawn from the legal mask plays");
        shape.laps.add(info.laps as f64);
        shape.sown.add(info.sown as f64);
        state = next;
        shape.distinct.insert(position_hash(&state));
    }
    shape.games += 1;
    shape.plies.add(state.ply() as f64);
    shape.lengths.add(state.ply() as usize);
    shape.log_paths.add(log_paths);
    shape.endless_games += met_endless as u64;
    match state.outcome() {
        Outcome::Won(Player::South) => shape.south_wins += 1,
        Outcome::Won(Player::North) => shape.north_wins += 1,
        Outcome::Draw => shape.draws += 1,
        Outcome::Truncated => shape.truncated += 1,
        Outcome::Ongoing => unreachable!("a game with no legal move is over"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sowing_env::RulesSpec;

    fn rules(holes: u32, seeds: u32) -> Rules {
        Rules::from_json(&format!(r#"{{"holes": {holes}, "seeds": {seeds}}}"#)).unwrap()
    }

    #[test]
    fn units_add_up_to_one_run() {
        let r = Rules::preset("en-dodoi-6").unwrap();
        let whole = random_games(&r, 7, 0, 40);
        let mut parts = random_games(&r, 7, 0, 25);
        parts.merge(&random_games(&r, 7, 25, 15));
        assert_eq!(parts, whole);
        assert_eq!(whole.games, 40);
        assert_eq!(
            whole.south_wins + whole.north_wins + whole.draws + whole.truncated,
            40
        );
    }

    /// One hole a side, two seeds each: South lifts 2, sows into 1 (North's, now 3) and 0 (its
    /// own, now empty, lifted from): the lap ends there, and the facing hole 1 holds 3, so South
    /// captures 3 + 1 and North, with nothing left, has no move. Every game: one ply, one legal
    /// move, South wins.
    #[test]
    fn one_hole_two_seeds_is_a_first_player_win_in_one() {
        let shape = random_games(&rules(1, 2), 1, 0, 10);
        assert_eq!(shape.games, 10);
        assert_eq!(shape.south_wins, 10);
        assert_eq!(shape.plies.value(), Some(1.0));
        assert_eq!(shape.branching.value(), Some(1.0));
        assert_eq!(shape.laps.value(), Some(1.0));
        assert_eq!(shape.sown.value(), Some(2.0));
        assert_eq!(shape.first_player_wins().value(), Some(1.0));
        assert_eq!(shape.truncated_rate().value(), Some(0.0));
        // Two positions: the start and the end.
        assert_eq!(shape.distinct_positions().unwrap().round(), 2.0);
        // One path of length one: log10(1^1) = 0.
        assert_eq!(shape.log10_game_tree(), Some(0.0));
    }

    #[test]
    fn a_ply_cap_truncates_every_long_game() {
        let capped = Rules::preset("en-dodoi-6")
            .unwrap()
            .with(|s: &mut RulesSpec| s.max_plies = 3)
            .unwrap();
        let shape = random_games(&capped, 3, 0, 20);
        assert_eq!(shape.truncated, 20);
        assert_eq!(shape.truncated_rate().value(), Some(1.0));
        assert_eq!(shape.plies.value(), Some(3.0));
        assert_eq!(shape.lengths.counts[3], 20);
        assert_eq!(shape.first_player_wins().value(), Some(0.0));
    }
}
