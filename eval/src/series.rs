//! Match play, as the Maasai played it: a series of games between two players until one of them
//! has won an agreed number `N`. The start (South) alternates, the first player (`A`) South in
//! the first game; a draw, or a game cut off at the ply cap, counts for neither and the series
//! goes on.
//!
//! Beside the series itself this module works out, exactly, the probability that `A` wins a
//! series to `N` from `A`'s chances in one game as South and as North (win, draw, loss): a small
//! dynamic program over the score and who starts next ([`series_odds`]). Those chances are
//! measured by a separate sample of games between the two, the arena's games for the same seed,
//! and the probability is given with an interval from the intervals of the four rates behind it.
//!
//! The games of a series are numbered from 0 and played through the match loop
//! ([`crate::matches`]): game `g` has `A` South when `g` is even, and each game is fixed by the
//! seed and its number, so a series is the same whatever the threads (agents with a time budget
//! aside). Each game has a random opening of its own (as the loop's game `2g`), unlike the
//! arena's side-swapped pairs: games that shared an opening would not be independent (an
//! opening good for South helps whoever has South in both), and the probability above assumes
//! that they are.

use crate::matches::{self, Factory, Match, MatchError, Pairing, Salts, Seat};
use crate::stats::wilson_at;
use serde::Serialize;
use sowing_agents::AgentSpec;
use sowing_env::{ByPlayer, Outcome, Player, Rules};
use sowing_exact::Stop;
use sowing_exact::memory;

/// The most wins a series may be played to.
pub const MAX_TO: u32 = 10_000;

/// The normal quantile that makes each of the four rates' intervals (A's wins and losses as
/// South and as North) a 98.75% interval, so that all four hold together with 95% confidence
/// (Bonferroni): the series probability's interval is then a 95% one.
pub const Z_FOUR_RATES: f64 = 2.497_705_474_412_374;

/// Salts of the series' games, apart from the estimate's (the arena's), so that the series is
/// not one of the games its probability was measured on.
const SALTS: Salts = Salts {
    openings: 0x7365_7269_6573_6f70,
    games: 0x7365_7269_6573,
};

/// `A`'s chances in one game from one side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Odds {
    /// `A` wins.
    pub win: f64,
    /// Neither wins (a draw or a truncated game).
    pub draw: f64,
    /// `B` wins.
    pub loss: f64,
}

impl Odds {
    /// Odds from the chances of a win and a loss; a draw is the rest. `None` unless both are in
    /// `[0, 1]` and their sum at most 1.
    pub fn new(win: f64, loss: f64) -> Option<Odds> {
        let ok = |p: f64| (0.0..=1.0).contains(&p);
        // A sum a rounding error above 1 is 1.
        (ok(win) && ok(loss) && win + loss <= 1.0 + 1e-12).then(|| Odds {
            win,
            loss,
            draw: (1.0 - win - loss).max(0.0),
        })
    }
}

/// How a series to `N` ends, from `A`'s side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SeriesOdds {
    /// Probability that `A` wins the series.
    pub a_wins: f64,
    /// Probability that `B` wins the series.
    pub b_wins: f64,
    /// Probability that it never ends: every game from some score on is drawn, which happens
    /// only when a draw is certain from both sides.
    pub never_ends: f64,
    /// Expected games, `None` (infinite) when the series may never end.
    pub expected_games: Option<f64>,
}

/// The exact odds of a series to `to` wins, `A` South in the first game, with `A`'s chances as
/// South `south` and as North `north`.
///
/// The state is the score `(a, b)` and who starts next. From a score, the two states (A to
/// start, B to start) lead to each other by a draw and to higher scores otherwise:
///
/// ```text
/// x_S = w_S y_N(a+1, b) + l_S y_N(a, b+1) + d_S x_N
/// x_N = w_N y_S(a+1, b) + l_N y_S(a, b+1) + d_N x_S
/// ```
///
/// two linear equations solved at once for each score, from the highest down; the same with a
/// 1 added on the right gives the expected games. Time `O(to^2)`, memory `O(to)`.
pub fn series_odds(to: u32, south: Odds, north: Odds) -> SeriesOdds {
    let a_wins = solve(to, south, north, Value::AWins);
    let b_wins = solve(to, south, north, Value::BWins);
    let never_ends = (1.0 - a_wins - b_wins).max(0.0);
    SeriesOdds {
        a_wins,
        b_wins,
        never_ends,
        expected_games: (south.draw * north.draw < 1.0)
            .then(|| solve(to, south, north, Value::Games)),
    }
}

/// What [`solve`] works out.
#[derive(Clone, Copy, PartialEq)]
enum Value {
    AWins,
    BWins,
    Games,
}

/// The value `what` of the series' start by the recurrence of [`series_odds`].
fn solve(to: u32, south: Odds, north: Odds, what: Value) -> f64 {
    let n = to as usize;
    // The value at a finished score: A has won, B has won.
    let (a_done, b_done) = match what {
        Value::AWins => (1.0, 0.0),
        Value::BWins => (0.0, 1.0),
        Value::Games => (0.0, 0.0),
    };
    let step = if what == Value::Games { 1.0 } else { 0.0 };
    let both_draw = south.draw * north.draw;
    // Row a + 1 (A has one more win), by B's wins, each with (A to start, B to start); the
    // last entry is B's finished score.
    let mut above: Vec<(f64, f64)> = vec![(a_done, a_done); n + 1];
    above[n] = (b_done, b_done);
    let mut row = vec![(0.0, 0.0); n + 1];
    for _a in (0..n).rev() {
        row[n] = (b_done, b_done);
        for b in (0..n).rev() {
            // After a game the other player starts.
            let r_s = step + south.win * above[b].1 + south.loss * row[b + 1].1;
            let r_n = step + north.win * above[b].0 + north.loss * row[b + 1].0;
            row[b] = if both_draw < 1.0 {
                (
                    (r_s + south.draw * r_n) / (1.0 - both_draw),
                    (r_n + north.draw * r_s) / (1.0 - both_draw),
                )
            } else {
                // Every game from here is a draw: no one ever wins.
                (0.0, 0.0)
            };
        }
        std::mem::swap(&mut above, &mut row);
    }
    above[0].0
}

/// `A`'s games from one side: wins, draws (truncated games among them), losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SideCount {
    /// Games `A` won.
    pub wins: u32,
    /// Games neither won.
    pub draws: u32,
    /// Games `B` won.
    pub losses: u32,
}

impl SideCount {
    /// Games in all.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    fn add(&mut self, outcome: Outcome, a_side: Player) {
        match outcome {
            Outcome::Won(p) if p == a_side => self.wins += 1,
            Outcome::Won(_) => self.losses += 1,
            _ => self.draws += 1,
        }
    }

    /// The measured odds; `None` without games.
    pub fn odds(&self) -> Option<Odds> {
        let n = f64::from(self.games());
        (n > 0.0).then(|| Odds {
            win: f64::from(self.wins) / n,
            draw: f64::from(self.draws) / n,
            loss: f64::from(self.losses) / n,
        })
    }

    /// The odds least and most favourable to `A` within the wins' and losses' Wilson
    /// intervals at quantile `z`: fewest wins with most losses, most wins with fewest losses.
    /// Wilson's interval is symmetric (the low end for `k` wins is one minus the high end for
    /// `n - k`), so each pair sums to at most 1.
    pub fn odds_bounds(&self, z: f64) -> (Odds, Odds) {
        let n = f64::from(self.games());
        let (win_low, win_high) = wilson_at(z, f64::from(self.wins), n);
        let (loss_low, loss_high) = wilson_at(z, f64::from(self.losses), n);
        let pair = |win: f64, loss: f64| {
            Odds::new(win, loss.min(1.0 - win)).expect("Wilson bounds are rates in [0, 1]")
        };
        (pair(win_low, loss_high), pair(win_high, loss_low))
    }
}

/// The sample that measures `A`'s chances from each side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Games played, half with `A` South.
    pub games: u32,
    /// `A`'s results as South.
    pub a_south: SideCount,
    /// `A`'s results as North.
    pub a_north: SideCount,
    /// The series' odds at the measured rates.
    pub odds: SeriesOdds,
    /// Lower end of the 95% interval of `A`'s chance to win the series.
    pub a_wins_low: f64,
    /// Upper end of that interval.
    pub a_wins_high: f64,
}

impl Estimate {
    /// The estimate from `A`'s results on each side, for a series to `to`.
    ///
    /// The interval: the series probability rises with `A`'s wins and falls with `A`'s losses
    /// on either side (turning a draw into a win can only help `A`), so over every set of rates
    /// within the four intervals it is least at the fewest wins and most losses and greatest
    /// at the reverse. Each interval is at [`Z_FOUR_RATES`], so that all four hold together
    /// with 95% confidence.
    pub fn new(to: u32, a_south: SideCount, a_north: SideCount) -> Option<Estimate> {
        let odds = series_odds(to, a_south.odds()?, a_north.odds()?);
        let (south_low, south_high) = a_south.odds_bounds(Z_FOUR_RATES);
        let (north_low, north_high) = a_north.odds_bounds(Z_FOUR_RATES);
        Some(Estimate {
            games: a_south.games() + a_north.games(),
            a_south,
            a_north,
            odds,
            a_wins_low: series_odds(to, south_low, north_low).a_wins,
            a_wins_high: series_odds(to, south_high, north_high).a_wins,
        })
    }
}

/// What to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeriesConfig {
    /// The rules of every game.
    pub rules: Rules,
    /// The two agents' specs, `A` then `B`; `A` is South in the first game.
    pub agents: [AgentSpec; 2],
    /// Wins that take the series, 1 to [`MAX_TO`].
    pub to: u32,
    /// Seed of every random choice.
    pub seed: u64,
    /// Random plies that open each game, each game its own.
    pub opening_plies: u32,
    /// Games of the estimate, an even number (half with `A` South); 0 measures nothing.
    pub games_per_estimate: u32,
    /// Games after which a series still undecided is given up (every game drawn, say); at
    /// least the `2 to - 1` a series may need without a draw.
    pub max_games: u64,
    /// Threads to play on; 0 means one per core.
    pub threads: usize,
}

impl SeriesConfig {
    /// A series to `to` between `a` and `b` on `rules`: seed 0, no opening, 200 games of
    /// estimate, up to `100 * to` games, every core.
    pub fn new(rules: Rules, a: AgentSpec, b: AgentSpec, to: u32) -> SeriesConfig {
        SeriesConfig {
            rules,
            agents: [a, b],
            to,
            seed: 0,
            opening_plies: 0,
            games_per_estimate: 200,
            max_games: 100 * u64::from(to),
            threads: 0,
        }
    }
}

/// One game of the series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeriesGame {
    /// Its number in the series, from 0 (`A` South in even ones).
    pub number: u64,
    /// Which agent was South: 0 for `A`, 1 for `B`.
    pub south: usize,
    /// How it ended.
    pub outcome: Outcome,
    /// Seeds each side captured.
    pub captured: ByPlayer<u8>,
    /// The moves, the opening's included.
    pub moves: Vec<usize>,
    /// Wins of `A` and `B` after it.
    pub score: [u32; 2],
}

impl SeriesGame {
    /// The game for people, between `agents` (`A`, `B`): its number from 1, who was South, the
    /// result with the captures, and the score after it.
    pub fn line(&self, agents: &[String; 2]) -> String {
        let result = match self.winner() {
            Some(w) => format!("{} wins", agents[w]),
            None => self.outcome.to_string(),
        };
        format!(
            "game {:>3}: {} South, {} North: {result} {}-{} ({} plies); {} {}-{} {}",
            self.number + 1,
            agents[self.south],
            agents[1 - self.south],
            self.captured.south,
            self.captured.north,
            self.moves.len(),
            agents[0],
            self.score[0],
            self.score[1],
            agents[1]
        )
    }

    /// The agent (0 or 1) that won it, if any.
    pub fn winner(&self) -> Option<usize> {
        match self.outcome {
            Outcome::Won(Player::South) => Some(self.south),
            Outcome::Won(Player::North) => Some(1 - self.south),
            _ => None,
        }
    }
}

/// A series played.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesReport {
    /// The rules played.
    pub rules: Rules,
    /// `A` and `B`.
    pub agents: [String; 2],
    /// Wins that take the series.
    pub to: u32,
    /// The seed.
    pub seed: u64,
    /// Random plies that opened each game.
    pub opening_plies: u32,
    /// Every game, in order.
    pub games: Vec<SeriesGame>,
    /// Wins of `A` and `B` at the end.
    pub score: [u32; 2],
    /// Games neither won.
    pub draws: u32,
    /// The agent (0 or 1) that won the series; `None` if it was given up at `max_games`.
    pub winner: Option<usize>,
    /// The measured chances and the series' probability; `None` without an estimate.
    pub estimate: Option<Estimate>,
}

/// Refuse a series that cannot be played, before any game ([`play`] calls it first).
pub fn check(config: &SeriesConfig) -> Result<(), MatchError> {
    let bad = |m: String| Err(MatchError::Config(m));
    if config.agents[0] == config.agents[1] {
        return bad(format!(
            "a series needs two different agents, got {} twice (an agent against itself: \
             give its search a different budget, e.g. mcts:1000 and mcts:1001)",
            config.agents[0]
        ));
    }
    if !(1..=MAX_TO).contains(&config.to) {
        return bad(format!(
            "a series is played to 1 to {MAX_TO} wins, not {}",
            config.to
        ));
    }
    let least = 2 * u64::from(config.to) - 1;
    if config.max_games < least {
        return bad(format!(
            "a series to {} may need {least} games; --max-games {} is fewer",
            config.to, config.max_games
        ));
    }
    if config.games_per_estimate % 2 == 1 {
        return bad(format!(
            "games per estimate must be even (half with each agent South), got {}",
            config.games_per_estimate
        ));
    }
    memory::check(
        &format!("a series of up to {} games (--max-games)", config.max_games),
        config.max_games,
        (size_of::<SeriesGame>() + 256 * size_of::<usize>()) as u64
            + matches::bytes_per_game(true, false),
        0,
        "games",
    )
    .map_err(MatchError::TooLarge)?;
    Ok(())
}

/// Play the series of `config` with the agents its specs name ([`AgentSpec::build`]): the estimate first, then
/// the series. `on_game` hears each game of the series as it is counted.
pub fn play(
    config: &SeriesConfig,
    on_game: &mut dyn FnMut(&SeriesGame),
) -> Result<SeriesReport, MatchError> {
    play_with(config, &matches::build, &Stop::never(), on_game)
}

/// [`play`] with agents made by `factory`, given up between two rounds of games once `stop`
/// says so (the factory may hand the agents the same [`Stop`], so that their searches end at
/// once); the report is then of the games counted so far, without a winner.
pub fn play_with(
    config: &SeriesConfig,
    factory: &Factory,
    stop: &Stop,
    on_game: &mut dyn FnMut(&SeriesGame),
) -> Result<SeriesReport, MatchError> {
    check(config)?;
    let mut seats = Seat::agents(&config.agents, factory);
    let a_match = |salts: Salts, pairings: Vec<Pairing>, keep_records: bool| Match {
        rules: config.rules,
        seed: config.seed,
        salts,
        opening_plies: config.opening_plies,
        openings: matches::Openings::Random,
        pairings,
        threads: config.threads,
        keep_records,
    };

    let estimate = if config.games_per_estimate > 0 {
        let games = 0..u64::from(config.games_per_estimate);
        let m = a_match(Salts::ARENA, vec![Pairing { a: 0, b: 1, games }], false);
        matches::check_openings(&m)?;
        let played = matches::play(&m, &mut seats, &mut |_| {})?;
        let (mut south, mut north) = (SideCount::default(), SideCount::default());
        for g in &played.games {
            if g.south == 0 {
                south.add(g.outcome, Player::South);
            } else {
                north.add(g.outcome, Player::North);
            }
        }
        Estimate::new(config.to, south, north)
    } else {
        None
    };

    let mut games = Vec::new();
    let mut score = [0u32; 2];
    let mut draws = 0u32;
    let mut next = 0u64;
    let threads = memory::threads(config.threads).map_err(MatchError::Config)? as u64;
    'series: while score[0] < config.to
        && score[1] < config.to
        && next < config.max_games
        && !stop.requested()
    {
        // At least the games the series still needs, and a game for every thread: the games
        // past its end are played for nothing, but each is fixed by its number, so the series
        // does not depend on how many are played at once.
        let needed = u64::from(config.to - score[0].max(score[1]));
        let batch = needed.max(threads).min(config.max_games - next);
        // Series game `g` is the loop's game `2g`, whose pairing's first seat is South: A in
        // even games, B in odd ones. Being even, no two of them share an opening.
        let pairings = (next..next + batch)
            .map(|g| Pairing {
                a: (g % 2) as usize,
                b: 1 - (g % 2) as usize,
                games: 2 * g..2 * g + 1,
            })
            .collect();
        let m = a_match(SALTS, pairings, true);
        matches::check_openings(&m)?;
        let played = matches::play(&m, &mut seats, &mut |_| {})?;
        for g in played.games {
            let record = g.record.expect("the series keeps its records");
            let mut game = SeriesGame {
                number: g.game / 2,
                south: g.south,
                outcome: g.outcome,
                captured: record.captured,
                moves: record.moves,
                score,
            };
            match game.winner() {
                Some(w) => score[w] += 1,
                None => draws += 1,
            }
            game.score = score;
            on_game(&game);
            games.push(game);
            if score[0] == config.to || score[1] == config.to {
                break 'series;
            }
        }
        next += batch;
    }
    let winner = (0..2).find(|&i| score[i] == config.to);
    Ok(SeriesReport {
        rules: config.rules,
        agents: config.agents.clone().map(|a| a.to_string()),
        to: config.to,
        seed: config.seed,
        opening_plies: config.opening_plies,
        games,
        score,
        draws,
        winner,
        estimate,
    })
}

impl SeriesReport {
    /// The result and the probability, for people.
    pub fn summary(&self) -> String {
        let names = &self.agents;
        let played = self.games.len();
        let mut s = match self.winner {
            Some(w) => format!(
                "{} wins the series to {} by {}-{} after {played} games ({} drawn or truncated).\n",
                names[w],
                self.to,
                self.score[w],
                self.score[1 - w],
                self.draws
            ),
            None => format!(
                "no winner after {played} games (--max-games): {} {}-{} {}, {} drawn or truncated.\n",
                names[0], self.score[0], self.score[1], names[1], self.draws
            ),
        };
        let Some(e) = &self.estimate else {
            return s;
        };
        let side = |c: &SideCount, as_side: &str| {
            format!(
                "  {} as {as_side}: {} games, {} won, {} drawn, {} lost\n",
                names[0],
                c.games(),
                c.wins,
                c.draws,
                c.losses
            )
        };
        s.push_str(&format!(
            "\nOne game, measured by {} other games ({} South in half; the games of `sowing arena \
             --agents {},{} --games {} --seed {} --opening {}`):\n",
            e.games, names[0], names[0], names[1], e.games, self.seed, self.opening_plies
        ));
        s.push_str(&side(&e.a_south, "South"));
        s.push_str(&side(&e.a_north, "North"));
        s.push_str(&format!(
            "Probability that {} wins a series to {}, starting as South: {:.3} (95% interval {:.3} \
             to {:.3}); {} {:.3}",
            names[0], self.to, e.odds.a_wins, e.a_wins_low, e.a_wins_high, names[1], e.odds.b_wins
        ));
        if e.odds.never_ends > 1e-9 {
            s.push_str(&format!(", never ending {:.3}", e.odds.never_ends));
        }
        match e.odds.expected_games {
            Some(g) => s.push_str(&format!("; {g:.1} games expected.\n")),
            None => s.push_str(".\n"),
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odds(win: f64, loss: f64) -> Odds {
        Odds::new(win, loss).unwrap()
    }

    /// The series' odds by enumerating every sequence of games up to `depth` games; the
    /// sequences still undecided by then are returned apart.
    fn enumerate(to: u32, south: Odds, north: Odds, depth: u32) -> (f64, f64, f64) {
        fn go(
            to: u32,
            sides: [Odds; 2],
            score: [u32; 2],
            game: u32,
            p: f64,
            depth: u32,
        ) -> [f64; 3] {
            if score[0] == to {
                return [p, 0.0, 0.0];
            }
            if score[1] == to {
                return [0.0, p, 0.0];
            }
            if game == depth {
                return [0.0, 0.0, p];
            }
            let o = sides[(game % 2) as usize];
            let [a, b] = score;
            let mut sum = [0.0; 3];
            for (next, q) in [([a + 1, b], o.win), ([a, b + 1], o.loss), (score, o.draw)] {
                for (s, x) in sum
                    .iter_mut()
                    .zip(go(to, sides, next, game + 1, p * q, depth))
                {
                    *s += x;
                }
            }
            sum
        }
        let [a, b, open] = go(to, [south, north], [0, 0], 0, 1.0, depth);
        (a, b, open)
    }

    /// The same, game after game over the probabilities of each score (who starts follows
    /// from the game's number), to `depth` games: the sequences summed by where they stand.
    fn forward(to: u32, south: Odds, north: Odds, depth: u32) -> (f64, f64, f64) {
        let n = to as usize;
        let mut at = vec![vec![0.0; n]; n];
        at[0][0] = 1.0;
        let (mut a_won, mut b_won) = (0.0, 0.0);
        for game in 0..depth {
            let o = if game % 2 == 0 { south } else { north };
            let mut next = vec![vec![0.0; n]; n];
            for a in 0..n {
                for b in 0..n {
                    let p = at[a][b];
                    next[a][b] += p * o.draw;
                    if a + 1 == n {
                        a_won += p * o.win
                    } else {
                        next[a + 1][b] += p * o.win
                    }
                    if b + 1 == n {
                        b_won += p * o.loss
                    } else {
                        next[a][b + 1] += p * o.loss
                    }
                }
            }
            at = next;
        }
        (a_won, b_won, at.iter().flatten().sum())
    }

    #[test]
    fn the_dynamic_program_agrees_with_every_sequence_of_games() {
        let mut cases = vec![
            (odds(0.6, 0.3), odds(0.35, 0.5)),
            (odds(1.0, 0.0), odds(0.0, 1.0)),
            (odds(0.2, 0.2), odds(0.5, 0.1)),
            (odds(0.9, 0.05), odds(0.1, 0.7)),
            (odds(0.3, 0.5), odds(0.0, 1.0)),
        ];
        // And odds drawn at random, draws at most a quarter so that 16 games leave little open.
        let mut rng = sowing_agents::stream(7, 0, 0);
        let mut draw_odds = || {
            let draw = rand::RngExt::random_range(&mut rng, 0.0..0.25);
            let win = rand::RngExt::random_range(&mut rng, 0.0..1.0) * (1.0 - draw);
            odds(win, 1.0 - draw - win)
        };
        for _ in 0..40 {
            cases.push((draw_odds(), draw_odds()));
        }
        for (south, north) in cases {
            for to in 1..=4 {
                let exact = series_odds(to, south, north);
                assert!((exact.a_wins + exact.b_wins + exact.never_ends - 1.0).abs() < 1e-12);
                // Every sequence of up to 12 games: those still open after them hold the only
                // difference.
                let (a, b, open) = enumerate(to, south, north, 12);
                assert!(a <= exact.a_wins + 1e-12 && exact.a_wins <= a + open + 1e-12);
                assert!(b <= exact.b_wins + 1e-12 && exact.b_wins <= b + open + 1e-12);
                // And summed by score over 400 games, when almost nothing is left open.
                let (a, b, open) = forward(to, south, north, 400);
                assert!(open < 1e-12, "{open}");
                assert!((a - exact.a_wins).abs() < 1e-12 && (b - exact.b_wins).abs() < 1e-12);
            }
        }
        // Without draws every series ends within 2N - 1 games: the enumeration is exact.
        let (south, north) = (odds(0.75, 0.25), odds(0.375, 0.625));
        for to in 1..=6 {
            let (a, b, open) = enumerate(to, south, north, 2 * to - 1);
            let exact = series_odds(to, south, north);
            assert_eq!(open, 0.0);
            assert!((a - exact.a_wins).abs() < 1e-14 && (b - exact.b_wins).abs() < 1e-14);
        }
    }

    #[test]
    fn perfect_players_who_always_win_as_south_give_the_series_to_the_first_starter() {
        for to in 1..=50 {
            let o = series_odds(to, odds(1.0, 0.0), odds(0.0, 1.0));
            assert_eq!((o.a_wins, o.b_wins, o.never_ends), (1.0, 0.0, 0.0));
            assert_eq!(o.expected_games, Some(f64::from(2 * to - 1)));
        }
    }

    #[test]
    fn series_of_certain_draws_never_end_and_expected_games_count_draws() {
        let o = series_odds(3, odds(0.0, 0.0), odds(0.0, 0.0));
        assert_eq!((o.a_wins, o.b_wins, o.never_ends), (0.0, 0.0, 1.0));
        assert_eq!(o.expected_games, None);
        // A coin with draws half the time: a series to 1 takes 2 games on average.
        let o = series_odds(1, odds(0.25, 0.25), odds(0.25, 0.25));
        assert!((o.a_wins - 0.5).abs() < 1e-15);
        assert!((o.expected_games.unwrap() - 2.0).abs() < 1e-12);
    }

    #[test]
    fn the_interval_holds_the_point_and_narrows_with_games() {
        let few = Estimate::new(
            3,
            SideCount {
                wins: 6,
                draws: 1,
                losses: 3,
            },
            SideCount {
                wins: 4,
                draws: 1,
                losses: 5,
            },
        )
        .unwrap();
        let many = Estimate::new(
            3,
            SideCount {
                wins: 600,
                draws: 100,
                losses: 300,
            },
            SideCount {
                wins: 400,
                draws: 100,
                losses: 500,
            },
        )
        .unwrap();
        for e in [&few, &many] {
            assert!(
                e.a_wins_low <= e.odds.a_wins && e.odds.a_wins <= e.a_wins_high,
                "{e:?}"
            );
        }
        assert!(many.a_wins_high - many.a_wins_low < (few.a_wins_high - few.a_wins_low) / 3.0);
        // Every rate certain: the interval still has width, as the rates' intervals do.
        let sure = Estimate::new(
            2,
            SideCount {
                wins: 50,
                draws: 0,
                losses: 0,
            },
            SideCount {
                wins: 0,
                draws: 0,
                losses: 50,
            },
        )
        .unwrap();
        assert_eq!(sure.odds.a_wins, 1.0);
        assert!(sure.a_wins_low < 1.0 && sure.a_wins_high == 1.0);
    }
}
