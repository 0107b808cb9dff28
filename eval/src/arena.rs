//! The arena: a round robin between agents on any rules, every pairing played from both sides of
//! each opening on all cores (by the match loop, [`crate::matches`]), with results per pairing
//! and Bradley-Terry ratings as Elo. Results are fixed by the seed whatever the threads.

use crate::matches::{self, Factory, GameResult, Match, MatchError, Pairing, Salts, Seat};
use crate::stats::{PairCount, Rating, ratings, wilson};
use serde::Serialize;
use sowing_agents::AgentSpec;
use sowing_env::{GameRecord, Rules};
use sowing_exact::memory::{self, TooLarge};

/// The most agents in one arena: every pair of them meets.
pub const MAX_AGENTS: usize = 100;

/// Bootstrap resamples behind the rating intervals.
const BOOTSTRAP: usize = 1000;

/// What to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaConfig {
    /// The rules of every game.
    pub rules: Rules,
    /// Agent specs, at least two and all different; every pair of them meets.
    pub agents: Vec<AgentSpec>,
    /// Games per pairing, an even number: each agent has South (who moves first) in half.
    pub games: u32,
    /// Seed of every random choice.
    pub seed: u64,
    /// Threads to play on; 0 means one per core.
    pub threads: usize,
    /// Uniformly random moves played before the agents take over. Games `2k` and `2k + 1` of a
    /// pairing share an opening with the sides swapped, so an opening favours neither agent.
    /// Without openings, two agents that never use randomness play the same two games again and
    /// again.
    pub opening_plies: u32,
    /// Deal the openings without repeats instead of drawing them: every distinct position
    /// `opening_plies` plies from the start, in an order the seed shuffles, one per pair of
    /// games in turn ([`matches::Openings::distinct`]). A pairing of twice as many games as
    /// there are openings plays each once from both sides.
    pub distinct_openings: bool,
    /// Keep every game's record in the report.
    pub keep_records: bool,
}

impl ArenaConfig {
    /// A round robin of `agents` on `rules`, `games` per pairing, seed 0, all cores, no openings,
    /// no records.
    pub fn new(rules: Rules, agents: Vec<AgentSpec>, games: u32) -> ArenaConfig {
        ArenaConfig {
            rules,
            agents,
            games,
            seed: 0,
            threads: 0,
            opening_plies: 0,
            distinct_openings: false,
            keep_records: false,
        }
    }

    /// The pairings `(i, j)`, `i < j`, in the order they are played and reported.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let k = self.agents.len();
        (0..k)
            .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
            .collect()
    }

    /// Games in all.
    pub fn total_games(&self) -> usize {
        self.pairings().len() * self.games as usize
    }
}

/// Why an arena could not be played: the match loop's errors.
pub type ArenaError = MatchError;

/// The result of one pairing, from the first agent's side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairingResult {
    /// The first agent's spec.
    pub agent: String,
    /// The second agent's spec.
    pub opponent: String,
    /// Games played.
    pub games: u32,
    /// Games the first agent won.
    pub wins: u32,
    /// Games drawn, truncated ones included.
    pub draws: u32,
    /// Games the first agent lost.
    pub losses: u32,
    /// Of the draws, games cut off at `max_plies`.
    pub truncated: u32,
    /// The first agent's score: (wins + draws / 2) / games.
    pub score: f64,
    /// Lower end of the score's 95% Wilson interval.
    pub score_low: f64,
    /// Upper end of the score's 95% Wilson interval.
    pub score_high: f64,
}

/// One agent's rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgentRating {
    /// The agent's spec.
    pub agent: String,
    /// Bradley-Terry rating as Elo, the agents' mean at 0.
    pub elo: f64,
    /// Lower end of the 95% bootstrap interval.
    pub elo_low: f64,
    /// Upper end of the 95% bootstrap interval.
    pub elo_high: f64,
    /// Games played.
    pub games: u32,
    /// Score over all its games: (wins + draws / 2) / games.
    pub score: f64,
}

/// Everything an arena found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArenaReport {
    /// The rules played.
    pub rules: Rules,
    /// The seed.
    pub seed: u64,
    /// Games per pairing.
    pub games_per_pairing: u32,
    /// Random opening moves before the agents played.
    pub opening_plies: u32,
    /// The distinct openings dealt in turn, when they were dealt rather than drawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_openings: Option<usize>,
    /// Mean moves per game, openings included.
    pub mean_plies: f64,
    /// One per pairing, in [`ArenaConfig::pairings`] order.
    pub pairings: Vec<PairingResult>,
    /// One per agent, in the order given.
    pub ratings: Vec<AgentRating>,
    /// Every game's record when asked for, in game order.
    #[serde(skip)]
    pub records: Vec<GameRecord>,
}

/// Play the arena with the agents its specs name ([`AgentSpec::build`]). `on_game` is called (from any thread) after
/// each game, e.g. to move a progress bar.
pub fn play(
    config: &ArenaConfig,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<ArenaReport, ArenaError> {
    play_with(config, &matches::build, on_game)
}

/// [`play`] with agents made by `factory`.
pub fn play_with(
    config: &ArenaConfig,
    factory: &Factory,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<ArenaReport, ArenaError> {
    check(config)?;
    let games = u64::from(config.games);
    let openings = if config.distinct_openings {
        if config.opening_plies == 0 {
            return Err(ArenaError::Config(
                "distinct openings need an opening of at least one ply (--opening K)".into(),
            ));
        }
        matches::Openings::distinct(&config.rules, config.opening_plies, config.seed)?
    } else {
        matches::Openings::Random
    };
    let m = Match {
        rules: config.rules,
        seed: config.seed,
        salts: Salts::ARENA,
        opening_plies: config.opening_plies,
        openings,
        pairings: config
            .pairings()
            .into_iter()
            .zip(0..)
            .map(|((a, b), p)| Pairing {
                a,
                b,
                games: p * games..(p + 1) * games,
            })
            .collect(),
        threads: config.threads,
        keep_records: config.keep_records,
    };
    let mut seats = Seat::agents(&config.agents, factory);
    matches::check_openings(&m)?;
    let played = matches::play(&m, &mut seats, &mut |g| on_game(g))?;
    let plies: u64 = played.tallies.iter().map(|t| t.plies).sum();
    let counts: Vec<(PairCount, u32)> = m
        .pairings
        .iter()
        .zip(&played.tallies)
        .map(|(p, t)| (t.pair_count(p.a, p.b), t.truncated as u32))
        .collect();
    let records = played.games.into_iter().filter_map(|g| g.record).collect();
    Ok(summarise(
        config,
        &counts,
        plies,
        m.openings.dealt(),
        records,
    ))
}

/// Refuse an arena that cannot be played, before any game starts.
fn check(config: &ArenaConfig) -> Result<(), ArenaError> {
    if config.agents.len() < 2 {
        return Err(ArenaError::Config(format!(
            "an arena needs at least two agents, got {}",
            config.agents.len()
        )));
    }
    check_agents(&config.agents)?;
    check_games(
        config.games,
        config.pairings().len() as u64,
        config.keep_records,
    )
}

/// Refuse agents that cannot meet in one round robin: more than [`MAX_AGENTS`], or one listed
/// twice. The arena's limits, which the trainer's baselines share.
pub fn check_agents(agents: &[AgentSpec]) -> Result<(), ArenaError> {
    if agents.len() > MAX_AGENTS {
        return Err(ArenaError::Config(format!(
            "an arena of {} agents is too large: at most {MAX_AGENTS} ({} pairings)",
            agents.len(),
            MAX_AGENTS * (MAX_AGENTS - 1) / 2
        )));
    }
    for (i, spec) in agents.iter().enumerate() {
        if agents[..i].contains(spec) {
            return Err(ArenaError::Config(format!(
                "agent {spec} is listed twice; list each agent once"
            )));
        }
    }
    Ok(())
}

/// Refuse `games` per pairing over `pairings` pairings: not a positive even number (each agent
/// plays South in half), or more than the memory holds. The arena's limits, which the trainer's
/// evaluation shares.
pub fn check_games(games: u32, pairings: u64, keep_records: bool) -> Result<(), ArenaError> {
    if games == 0 || games % 2 == 1 {
        return Err(ArenaError::Config(format!(
            "games per pairing must be a positive even number (each agent plays South in half), got {games}"
        )));
    }
    memory::check(
        &format!(
            "{games} games per pairing ({} games in all)",
            pairings * u64::from(games)
        ),
        pairings * u64::from(games),
        matches::bytes_per_game(keep_records, false),
        0,
        "games per pairing",
    )
    .map_err(|e| {
        ArenaError::TooLarge(TooLarge {
            // Games per pairing, an even number.
            largest_fit: e.largest_fit.map(|f| f / pairings.max(1) / 2 * 2),
            ..e
        })
    })?;
    Ok(())
}

/// The report of the pairings' `counts` (with their truncated games), `plies` played in all,
/// and the number of distinct openings dealt (`None` when openings were drawn at random).
fn summarise(
    config: &ArenaConfig,
    counts: &[(PairCount, u32)],
    plies: u64,
    distinct_openings: Option<usize>,
    records: Vec<GameRecord>,
) -> ArenaReport {
    let k = config.agents.len();
    let pairs: Vec<PairCount> = counts.iter().map(|(c, _)| *c).collect();
    let fitted = ratings(k, &pairs, BOOTSTRAP, config.seed);
    let pairing_results = counts
        .iter()
        .map(|&(c, truncated)| {
            let games = c.wins + c.draws + c.losses;
            let points = c.wins as f64 + 0.5 * c.draws as f64;
            let (low, high) = wilson(points, games as f64);
            PairingResult {
                agent: config.agents[c.a].to_string(),
                opponent: config.agents[c.b].to_string(),
                games,
                wins: c.wins,
                draws: c.draws,
                losses: c.losses,
                truncated,
                score: points / games.max(1) as f64,
                score_low: low,
                score_high: high,
            }
        })
        .collect();
    let agent_ratings = fitted
        .iter()
        .enumerate()
        .map(|(i, &Rating { elo, low, high })| {
            let (mut games, mut points) = (0u32, 0.0f64);
            for c in &pairs {
                let n = c.wins + c.draws + c.losses;
                let half = 0.5 * c.draws as f64;
                if c.a == i {
                    games += n;
                    points += c.wins as f64 + half;
                } else if c.b == i {
                    games += n;
                    points += c.losses as f64 + half;
                }
            }
            AgentRating {
                agent: config.agents[i].to_string(),
                elo,
                elo_low: low,
                elo_high: high,
                games,
                score: points / games.max(1) as f64,
            }
        })
        .collect();
    let total = config.total_games().max(1);
    ArenaReport {
        rules: config.rules,
        seed: config.seed,
        games_per_pairing: config.games,
        opening_plies: config.opening_plies,
        distinct_openings,
        mean_plies: plies as f64 / total as f64,
        pairings: pairing_results,
        ratings: agent_ratings,
        records,
    }
}

impl ArenaReport {
    /// The report as tables for people: pairings, then ratings from strongest.
    pub fn table(&self) -> String {
        let width = self
            .ratings
            .iter()
            .map(|r| r.agent.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let openings = match self.distinct_openings {
            Some(n) => format!(
                "each of {n} distinct {}-ply openings in turn",
                self.opening_plies
            ),
            None => format!("opening {} random plies", self.opening_plies),
        };
        let mut s = format!(
            "{} ({}), {} games per pairing, seed {}, {openings}, {:.1} plies per game\n\n",
            rules_name(&self.rules),
            self.rules.summary(),
            self.games_per_pairing,
            self.seed,
            self.mean_plies
        );
        s.push_str(&format!(
            "{:<width$}  {:<width$}  {:>5}  {:>5}  {:>5}  {:>5}  {:>6}  {:>15}\n",
            "agent", "opponent", "games", "wins", "draws", "losses", "score", "95% interval"
        ));
        for p in &self.pairings {
            let trunc = if p.truncated > 0 {
                format!("  ({} truncated)", p.truncated)
            } else {
                String::new()
            };
            s.push_str(&format!(
                "{:<width$}  {:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>5.1}%  {:>6.1}-{:.1}%{trunc}\n",
                p.agent,
                p.opponent,
                p.games,
                p.wins,
                p.draws,
                p.losses,
                100.0 * p.score,
                100.0 * p.score_low,
                100.0 * p.score_high
            ));
        }
        s.push_str(&format!(
            "\n{:<width$}  {:>6}  {:>17}  {:>5}  {:>6}\n",
            "agent", "Elo", "95% interval", "games", "score"
        ));
        let mut order: Vec<&AgentRating> = self.ratings.iter().collect();
        order.sort_by(|a, b| b.elo.total_cmp(&a.elo));
        for r in order {
            s.push_str(&format!(
                "{:<width$}  {:>6.0}  {:>7.0} to {:<6.0}  {:>5}  {:>5.1}%\n",
                r.agent,
                r.elo,
                r.elo_low,
                r.elo_high,
                r.games,
                100.0 * r.score
            ));
        }
        s.push_str(
            "\nElo: Bradley-Terry fit, mean 0, a draw counts half; intervals from 1000 bootstrap resamples.\n",
        );
        s
    }

    /// One CSV row per pairing, from the first agent's side, with both agents' Elo.
    pub fn csv(&self) -> String {
        let mut s = format!("{}\n", CSV_HEADER.join(","));
        let elo = |name: &str| {
            self.ratings
                .iter()
                .find(|r| r.agent == name)
                .map_or(f64::NAN, |r| r.elo)
        };
        for p in &self.pairings {
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{:.4},{:.4},{:.4},{:.1},{:.1}\n",
                p.agent,
                p.opponent,
                p.games,
                p.wins,
                p.draws,
                p.losses,
                p.truncated,
                p.score,
                p.score_low,
                p.score_high,
                elo(&p.agent),
                elo(&p.opponent)
            ));
        }
        s
    }
}

/// The columns of an arena's CSV file ([`ArenaReport::csv`]).
pub const CSV_HEADER: [&str; 12] = [
    "agent",
    "opponent",
    "games",
    "wins",
    "draws",
    "losses",
    "truncated",
    "score",
    "score_low",
    "score_high",
    "agent_elo",
    "opponent_elo",
];

/// The pairings of an arena's CSV file, as [`ArenaReport::csv`] writes them; an error names the
/// line and column that is not what that writes.
pub fn read_csv(text: &str) -> Result<Vec<PairingResult>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, head)) if head.split(',').eq(CSV_HEADER) => {}
        _ => {
            return Err(format!(
                "line 1 is not an arena's CSV header (expected {})",
                CSV_HEADER.join(",")
            ));
        }
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != CSV_HEADER.len() {
            return Err(format!(
                "line {}: {} columns, expected {}",
                i + 1,
                cells.len(),
                CSV_HEADER.len()
            ));
        }
        let count = |k: usize| {
            cells[k].parse::<u32>().map_err(|_| {
                format!(
                    "line {}: {} is {}, not a count",
                    i + 1,
                    CSV_HEADER[k],
                    sowing_env::Error::quote(cells[k])
                )
            })
        };
        let share = |k: usize| match cells[k].parse::<f64>() {
            Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
            _ => Err(format!(
                "line {}: {} is {}, not a share from 0 to 1",
                i + 1,
                CSV_HEADER[k],
                sowing_env::Error::quote(cells[k])
            )),
        };
        let p = PairingResult {
            agent: cells[0].to_string(),
            opponent: cells[1].to_string(),
            games: count(2)?,
            wins: count(3)?,
            draws: count(4)?,
            losses: count(5)?,
            truncated: count(6)?,
            score: share(7)?,
            score_low: share(8)?,
            score_high: share(9)?,
        };
        if u64::from(p.wins) + u64::from(p.draws) + u64::from(p.losses) != u64::from(p.games) {
            return Err(format!(
                "line {}: {} wins, {} draws and {} losses are not its {} games",
                i + 1,
                p.wins,
                p.draws,
                p.losses,
                p.games
            ));
        }
        out.push(p);
    }
    Ok(out)
}

/// The preset name of `rules`, or `custom`.
pub fn rules_name(rules: &Rules) -> &'static str {
    sowing_env::PRESETS
        .iter()
        .find(|name| Rules::preset(name).is_ok_and(|r| r == *rules))
        .copied()
        .unwrap_or("custom")
}
