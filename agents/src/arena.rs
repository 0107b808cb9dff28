//! The arena: matches between agents on any rules, every pairing played from both sides, games
//! spread over all cores. Each game draws from its own random stream, fixed by the seed and the
//! game's index, so results do not depend on the number of threads (agents with a time budget
//! aside: how far they search depends on the machine).
//!
//! Agents are made on each thread from their specs (an agent is `Send` but not `Sync`) and told
//! [`Agent::new_game`] before every game, so no game depends on which games a thread played
//! before it.

use crate::agent::Agent;
use crate::spec::{SpecError, from_spec};
use crate::stats::{PairCount, Rating, ratings, wilson};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use sowing_env::{GameRecord, Outcome, Player, Rules, State, random_action};
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Makes an agent from its spec; [`from_spec`] is the usual one.
pub type Factory = dyn Fn(&str) -> Result<Box<dyn Agent>, SpecError> + Sync;

/// Bootstrap resamples behind the rating intervals.
const BOOTSTRAP: usize = 1000;

/// Mixed into the seed for the random openings, so that they do not share a stream with games.
const OPENING_SALT: u64 = 0x6f70_656e_696e_6773;

/// What to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaConfig {
    /// The rules of every game.
    pub rules: Rules,
    /// Agent specs, at least two and all different; every pair of them meets.
    pub agents: Vec<String>,
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
    /// Keep every game's record in the report.
    pub keep_records: bool,
}

impl ArenaConfig {
    /// A round robin of `agents` on `rules`, `games` per pairing, seed 0, all cores, no openings,
    /// no records.
    pub fn new(rules: Rules, agents: Vec<String>, games: u32) -> ArenaConfig {
        ArenaConfig {
            rules,
            agents,
            games,
            seed: 0,
            threads: 0,
            opening_plies: 0,
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

/// Why an arena could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArenaError {
    /// An agent spec names no agent.
    Spec(SpecError),
    /// The configuration asks for something impossible.
    Config(String),
    /// An agent chose a move the rules refuse (a bug in that agent).
    IllegalMove {
        /// The agent's spec.
        agent: String,
        /// What the engine said.
        message: String,
    },
}

impl fmt::Display for ArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaError::Spec(e) => e.fmt(f),
            ArenaError::Config(m) => f.write_str(m),
            ArenaError::IllegalMove { agent, message } => {
                write!(f, "agent {agent} chose an illegal move: {message}")
            }
        }
    }
}

impl std::error::Error for ArenaError {}

impl From<SpecError> for ArenaError {
    fn from(e: SpecError) -> Self {
        ArenaError::Spec(e)
    }
}

/// One game played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// Index of the game over the whole arena.
    pub index: usize,
    /// Index of its pairing in [`ArenaConfig::pairings`].
    pub pairing: usize,
    /// Agent indices of South and North.
    pub south: usize,
    /// See `south`.
    pub north: usize,
    /// How it ended.
    pub outcome: Outcome,
    /// Moves played, the opening included.
    pub plies: u32,
    /// The record, when asked for.
    pub record: Option<GameRecord>,
}

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

/// Play the arena with agents made by [`from_spec`]. `on_game` is called (from any thread) after
/// each game, e.g. to move a progress bar.
pub fn play(
    config: &ArenaConfig,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<ArenaReport, ArenaError> {
    play_with(config, &from_spec, on_game)
}

/// [`play`] with agents made by `factory`.
pub fn play_with(
    config: &ArenaConfig,
    factory: &Factory,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<ArenaReport, ArenaError> {
    check(config, factory)?;
    let pairings = config.pairings();
    let total = config.total_games();
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    }
    .min(total.max(1));

    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<GameResult>> = Mutex::new(Vec::with_capacity(total));
    let first_error: Mutex<Option<ArenaError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let fail = |e: ArenaError| {
                    failed.store(true, Ordering::Relaxed);
                    first_error
                        .lock()
                        .expect("no thread panics holding it")
                        .get_or_insert(e);
                };
                let mut agents = Vec::with_capacity(config.agents.len());
                for spec in &config.agents {
                    match factory(spec) {
                        Ok(a) => agents.push(a),
                        Err(e) => return fail(e.into()),
                    }
                }
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= total || failed.load(Ordering::Relaxed) {
                        return;
                    }
                    match play_game(config, &pairings, index, &mut agents) {
                        Ok(result) => {
                            on_game(&result);
                            results
                                .lock()
                                .expect("no thread panics holding it")
                                .push(result);
                        }
                        Err(e) => return fail(e),
                    }
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().expect("threads have ended") {
        return Err(e);
    }
    let mut results = results.into_inner().expect("threads have ended");
    results.sort_by_key(|r| r.index);
    Ok(summarise(config, &pairings, results))
}

/// Refuse a configuration that cannot be played, before any game starts.
fn check(config: &ArenaConfig, factory: &Factory) -> Result<(), ArenaError> {
    if config.agents.len() < 2 {
        return Err(ArenaError::Config(format!(
            "an arena needs at least two agents, got {}",
            config.agents.len()
        )));
    }
    for (i, spec) in config.agents.iter().enumerate() {
        if config.agents[..i].contains(spec) {
            return Err(ArenaError::Config(format!(
                "agent {spec} is listed twice; list each agent once"
            )));
        }
        factory(spec)?
            .can_play(&config.rules)
            .map_err(ArenaError::Config)?;
    }
    if config.games == 0 || config.games % 2 == 1 {
        return Err(ArenaError::Config(format!(
            "games per pairing must be a positive even number (each agent plays South in half), got {}",
            config.games
        )));
    }
    Ok(())
}

/// The start of game `index`: the initial position after the opening its side-swapped pair
/// shares.
fn opening(config: &ArenaConfig, index: usize) -> (State, Vec<usize>) {
    let mut state = State::initial(&config.rules);
    let mut moves = Vec::with_capacity(config.opening_plies as usize);
    if config.opening_plies == 0 {
        return (state, moves);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ OPENING_SALT);
    rng.set_stream((index / 2) as u64);
    // An opening that ends the game is drawn again (a few times; then a shorter one is kept).
    for _ in 0..64 {
        state = State::initial(&config.rules);
        moves.clear();
        for _ in 0..config.opening_plies {
            let Some(a) = random_action(&state, &mut rng) else {
                break;
            };
            state = state.play_unchecked(a);
            moves.push(a);
        }
        if !state.is_over() {
            break;
        }
    }
    while state.is_over() && !moves.is_empty() {
        moves.pop();
        state = moves
            .iter()
            .fold(State::initial(&config.rules), |s, &a| s.play_unchecked(a));
    }
    (state, moves)
}

/// Play game `index`: pairing `index / games`; in even games the pairing's first agent is South.
fn play_game(
    config: &ArenaConfig,
    pairings: &[(usize, usize)],
    index: usize,
    agents: &mut [Box<dyn Agent>],
) -> Result<GameResult, ArenaError> {
    let pairing = index / config.games as usize;
    let (i, j) = pairings[pairing];
    let (south, north) = if index % 2 == 0 { (i, j) } else { (j, i) };
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    rng.set_stream(index as u64);
    let (mut state, mut moves) = opening(config, index);
    agents[south].new_game();
    agents[north].new_game();
    while !state.is_over() {
        let who = if state.to_move() == Player::South {
            south
        } else {
            north
        };
        let action = agents[who].choose(&state, &mut rng);
        state = state.play(action).map_err(|e| ArenaError::IllegalMove {
            agent: config.agents[who].clone(),
            message: e.to_string(),
        })?;
        moves.push(action);
    }
    let record = config.keep_records.then(|| {
        let mut tags = std::collections::BTreeMap::new();
        tags.insert("south".to_string(), config.agents[south].clone());
        tags.insert("north".to_string(), config.agents[north].clone());
        tags.insert("seed".to_string(), config.seed.to_string());
        tags.insert("game".to_string(), index.to_string());
        tags.insert(
            "opening_plies".to_string(),
            config.opening_plies.to_string(),
        );
        GameRecord {
            rules: config.rules,
            moves: moves.clone(),
            outcome: state.outcome(),
            captured: state.captures(),
            tags,
        }
    });
    Ok(GameResult {
        index,
        pairing,
        south,
        north,
        outcome: state.outcome(),
        plies: state.ply(),
        record,
    })
}

fn summarise(
    config: &ArenaConfig,
    pairings: &[(usize, usize)],
    results: Vec<GameResult>,
) -> ArenaReport {
    let mut counts: Vec<PairCount> = pairings
        .iter()
        .map(|&(a, b)| PairCount {
            a,
            b,
            wins: 0,
            draws: 0,
            losses: 0,
        })
        .collect();
    let mut truncated = vec![0u32; pairings.len()];
    let mut plies = 0u64;
    let mut records = Vec::new();
    for r in results {
        let c = &mut counts[r.pairing];
        let first_side = if r.south == c.a {
            Player::South
        } else {
            Player::North
        };
        match r.outcome {
            Outcome::Won(p) if p == first_side => c.wins += 1,
            Outcome::Won(_) => c.losses += 1,
            Outcome::Truncated => {
                c.draws += 1;
                truncated[r.pairing] += 1;
            }
            Outcome::Draw | Outcome::Ongoing => c.draws += 1,
        }
        plies += r.plies as u64;
        records.extend(r.record);
    }
    let k = config.agents.len();
    let fitted = ratings(k, &counts, BOOTSTRAP, config.seed);
    let pairing_results = counts
        .iter()
        .zip(&truncated)
        .map(|(c, &t)| {
            let games = c.wins + c.draws + c.losses;
            let points = c.wins as f64 + 0.5 * c.draws as f64;
            let (low, high) = wilson(points, games as f64);
            PairingResult {
                agent: config.agents[c.a].clone(),
                opponent: config.agents[c.b].clone(),
                games,
                wins: c.wins,
                draws: c.draws,
                losses: c.losses,
                truncated: t,
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
            for c in &counts {
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
                agent: config.agents[i].clone(),
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
        let mut s = format!(
            "{} ({}), {} games per pairing, seed {}, opening {} random plies, {:.1} plies per game\n\n",
            rules_name(&self.rules),
            self.rules.summary(),
            self.games_per_pairing,
            self.seed,
            self.opening_plies,
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
        let mut s = String::from(
            "agent,opponent,games,wins,draws,losses,truncated,score,score_low,score_high,agent_elo,opponent_elo\n",
        );
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

/// The preset name of `rules`, or `custom`.
fn rules_name(rules: &Rules) -> &'static str {
    sowing_env::PRESETS
        .iter()
        .find(|name| Rules::preset(name).is_ok_and(|r| r == *rules))
        .copied()
        .unwrap_or("custom")
}
