//! Games between agents, the raw material of the balance, skill-chain and sensitivity figures.
//!
//! A unit plays games `first .. first + count` of one pairing through the match loop of
//! `sowing_eval::matches`: game `g` opens with [`OPENING_PLIES`] random plies drawn from stream
//! `g / 2`, so games `2k` and `2k + 1` share an opening and differ only in who plays South; the
//! agents then draw from stream `g`. Every game is thus fixed by the seed and its number, wherever
//! it is played.

use super::cache::{Checked, UnitKey, unless};
use super::plan::OPENING_PLIES;
use sowing_agents::AgentSpec;
use sowing_env::Rules;
use sowing_eval::matches::{self, Match, Pairing, Salts, Seat, Tally};

/// Play games `first .. first + count` of `a` against `b` on this thread; `a` plays South in
/// even games.
pub fn play_unit(
    rules: &Rules,
    a: &str,
    b: &str,
    seed: u64,
    first: u64,
    count: u64,
) -> Result<Tally, String> {
    let m = Match {
        rules: *rules,
        seed,
        salts: Salts::COMPARE,
        opening_plies: OPENING_PLIES,
        openings: matches::Openings::Random,
        pairings: vec![Pairing {
            a: 0,
            b: 1,
            games: first..first + count,
        }],
        threads: 1,
        keep_records: false,
    };
    // The plan names its agents in the grammar (they key its cache); read here, once a unit.
    let spec = |text: &str| text.parse::<AgentSpec>().map_err(|e| e.to_string());
    let mut seats = [spec(a)?, spec(b)?].map(|spec| Seat::Agent {
        spec,
        factory: &matches::build,
    });
    let played = matches::play(&m, &mut seats, &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(played.tallies[0])
}

impl Checked for Tally {
    fn inconsistency(&self, key: &UnitKey) -> Option<String> {
        let decided = self.a_wins + self.b_wins;
        unless(self.games == key.games, || {
            format!("{} games where the unit plays {}", self.games, key.games)
        })
        .or_else(|| {
            unless(
                decided.checked_add(self.draws + self.truncated) == Some(self.games),
                || {
                    format!(
                        "wins {} + {}, draws {} and truncated games {} are not its {} games",
                        self.a_wins, self.b_wins, self.draws, self.truncated, self.games
                    )
                },
            )
        })
        .or_else(|| {
            unless(
                self.south_wins.checked_add(self.north_wins) == Some(decided),
                || {
                    format!(
                        "South's {} and North's {} wins are not the {decided} games won",
                        self.south_wins, self.north_wins
                    )
                },
            )
        })
        .or_else(|| {
            let most = u64::from(key.rules.max_plies()).saturating_mul(self.games);
            unless(self.plies >= self.games && self.plies <= most, || {
                format!("{} plies in {} games", self.plies, self.games)
            })
        })
    }
}
