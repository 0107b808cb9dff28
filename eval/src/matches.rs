//! Matches: the one loop that plays games between players, for the arena, the trainer's rating of
//! its network and its baselines, and `sowing compare`.
//!
//! A [`Match`] is a list of [`Pairing`]s of seats, each playing a range of numbered games. Game
//! `g` starts from a random opening drawn from stream `g / 2`, so games `2k` and `2k + 1` share
//! it, with the pairing's first seat South in even games and North in odd ones: both sides of
//! every opening, so that an opening favours neither seat, and deterministic players meet in more
//! than two distinct games. The players then draw from stream `g`. Every game is thus fixed by the
//! seed and its number, wherever and on whichever thread it is played (agents with a time budget
//! aside: how far they search depends on the machine).
//!
//! A [`Seat`] is an agent, made by a factory on each thread that plays it (an agent is `Send` but
//! not `Sync`) and told [`Agent::new_game`] before every game, or a [`BatchPlayer`], which chooses
//! the moves of many games at once on the calling thread (a network searching their positions in
//! one batch). Without a batch player the games are dealt whole to the threads; with one, they all
//! advance together, one move each per round: the batch players move in every game where one of
//! them is to move, then the agents in the others, spread over the threads.

use crate::stats::{PairCount, Rate, bradley_terry};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_agents::stream;
use sowing_agents::{Agent, AgentSpec, SpecError};
use sowing_env::{GameRecord, Outcome, Player, Rules, State, random_action};
use sowing_exact::memory;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Makes an agent from its spec; [`build`] (the spec's own agent) is the usual one.
pub type Factory = dyn Fn(&AgentSpec) -> Result<Box<dyn Agent>, SpecError> + Sync;

/// The usual [`Factory`]: the agent the spec names ([`AgentSpec::build`]).
pub fn build(spec: &AgentSpec) -> Result<Box<dyn Agent>, SpecError> {
    spec.build()
}

/// The salts of a match's two kinds of random stream: the openings' and the players'. The three
/// callers drew their streams with their own salts before they shared this loop; each keeps its
/// own, so that its figures for a seed stay what they were.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Salts {
    /// Mixed into the seed of the openings' streams.
    pub openings: u64,
    /// Mixed into the seed of the players' streams.
    pub games: u64,
}

impl Salts {
    /// The arena's (`sowing arena`).
    pub const ARENA: Salts = Salts {
        openings: 0x6f70_656e_696e_6773,
        games: 0,
    };
    /// The trainer's, when it rates its network and its baselines.
    pub const RATING: Salts = Salts {
        openings: 0x6f70_656e,
        games: 0,
    };
    /// `sowing compare`'s.
    pub const COMPARE: Salts = Salts {
        openings: 0,
        games: 0x5eed_a9e7,
    };
    /// The shuffle of a dealt list of openings ([`Openings::distinct`]).
    const DEALT: u64 = 0x0064_6561_6c74;
}

/// A player that chooses the moves of many games at once, on the calling thread: a network that
/// searches their positions in one batch, or a player driven from outside Rust.
pub trait BatchPlayer {
    /// The name that records and tables give this player.
    fn name(&self) -> String;

    /// A legal move for each position of `states`, none of which is over. `slots[i]` names the
    /// game of `states[i]` for the whole match, so a player may keep a search tree per game from
    /// move to move; `rngs[i]` is that game's random stream, the only randomness it may use.
    fn choose_batch(
        &mut self,
        slots: &[usize],
        states: &[State],
        rngs: &mut [ChaCha8Rng],
    ) -> Vec<usize>;
}

/// Who plays a seat of a match.
pub enum Seat<'a> {
    /// An agent: `factory(spec)` makes it, on each thread that plays it (for each game, when
    /// the games advance together).
    Agent {
        /// Its spec, also (written out) its name in records and tables.
        spec: AgentSpec,
        /// What makes it.
        factory: &'a Factory,
    },
    /// A player of many games at once.
    Batch(&'a mut dyn BatchPlayer),
}

impl<'a> Seat<'a> {
    /// A seat for each of `specs`, each agent made by `factory`.
    pub fn agents(specs: &[AgentSpec], factory: &'a Factory) -> Vec<Seat<'a>> {
        specs
            .iter()
            .map(|spec| Seat::Agent {
                spec: spec.clone(),
                factory,
            })
            .collect()
    }

    /// The seat's name in records and tables.
    pub fn name(&self) -> String {
        match self {
            Seat::Agent { spec, .. } => spec.to_string(),
            Seat::Batch(player) => player.name(),
        }
    }
}

impl fmt::Debug for Seat<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seat::Agent { spec, .. } => f.debug_struct("Agent").field("spec", spec).finish(),
            Seat::Batch(player) => f.debug_tuple("Batch").field(&player.name()).finish(),
        }
    }
}

/// Seats `a` and `b` (indices into the seats of the match) play the games numbered `games`; `a`
/// is South in the even ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The first seat.
    pub a: usize,
    /// The second seat.
    pub b: usize,
    /// The games' numbers, which fix their openings and streams.
    pub games: Range<u64>,
}

/// Where a match's openings come from.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Openings {
    /// [`Match::opening_plies`] random moves, drawn from the stream of each pair of games:
    /// openings may repeat where the rules have few.
    #[default]
    Random,
    /// The openings' moves, one per pair of games in turn (pair `j` plays entry `j` modulo
    /// their number), each [`Match::opening_plies`] long and leaving the game going: made by
    /// [`Openings::distinct`].
    Dealt(Arc<[Vec<usize>]>),
}

impl Openings {
    /// Every distinct opening of `plies` plies of `rules`, in an order `seed` shuffles
    /// ([`crate::openings::distinct_openings`]); an error when there are none or too many.
    pub fn distinct(rules: &Rules, plies: u32, seed: u64) -> Result<Openings, MatchError> {
        let mut rng = stream(seed, Salts::DEALT, 0);
        crate::openings::distinct_openings(rules, plies, &mut rng)
            .map(|list| Openings::Dealt(list.into()))
            .map_err(MatchError::Config)
    }

    /// Openings a dealt list holds (`None` for random draws).
    pub fn dealt(&self) -> Option<usize> {
        match self {
            Openings::Random => None,
            Openings::Dealt(list) => Some(list.len()),
        }
    }
}

/// What to play.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// The rules of every game.
    pub rules: Rules,
    /// Seed of every random choice.
    pub seed: u64,
    /// The salts of its streams.
    pub salts: Salts,
    /// Uniformly random moves played before the players take over. An opening that ends the game
    /// is drawn again (up to 64 times; then it is cut to the longest start of the last draw that
    /// leaves the game going). [`check_openings`] refuses a match where that would happen.
    pub opening_plies: u32,
    /// Where the openings come from: drawn at random (the default), or dealt from a list.
    pub openings: Openings,
    /// Who meets whom, in which games.
    pub pairings: Vec<Pairing>,
    /// Threads for the agents' moves; 0 means one per core.
    pub threads: usize,
    /// Keep every game's record.
    pub keep_records: bool,
}

/// Why a match could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// An agent spec names no agent.
    Spec(SpecError),
    /// The match asks for something impossible.
    Config(String),
    /// The match asks for more memory than there is.
    TooLarge(memory::TooLarge),
    /// A player chose a move the rules refuse (a bug in that player).
    IllegalMove {
        /// The player's name.
        agent: String,
        /// What the engine said.
        message: String,
    },
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::Spec(e) => e.fmt(f),
            MatchError::Config(m) => f.write_str(m),
            MatchError::TooLarge(e) => e.fmt(f),
            MatchError::IllegalMove { agent, message } => {
                write!(f, "agent {agent} chose an illegal move: {message}")
            }
        }
    }
}

impl std::error::Error for MatchError {}

impl From<SpecError> for MatchError {
    fn from(e: SpecError) -> Self {
        MatchError::Spec(e)
    }
}

/// One game played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// The game's number.
    pub game: u64,
    /// Index of its pairing in [`Match::pairings`].
    pub pairing: usize,
    /// Seat of South.
    pub south: usize,
    /// Seat of North.
    pub north: usize,
    /// How it ended.
    pub outcome: Outcome,
    /// Moves played, the opening included.
    pub plies: u32,
    /// The record, when asked for.
    pub record: Option<GameRecord>,
}

/// The games of one pairing added up, from the side of its first seat `a`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games played.
    pub games: u64,
    /// Games the first seat won.
    pub a_wins: u64,
    /// Games the second seat won.
    pub b_wins: u64,
    /// Games drawn by the rules.
    pub draws: u64,
    /// Games cut off at the ply cap: no winner, scored as draws.
    pub truncated: u64,
    /// Games South won.
    pub south_wins: u64,
    /// Games North won.
    pub north_wins: u64,
    /// Moves played in all, openings included.
    pub plies: u64,
}

impl Tally {
    /// Count game `result`, whose pairing's first seat is `a`.
    pub fn add(&mut self, result: &GameResult, a: usize) {
        self.games += 1;
        self.plies += u64::from(result.plies);
        match result.outcome {
            Outcome::Won(winner) => {
                let seat = if winner == Player::South {
                    self.south_wins += 1;
                    result.south
                } else {
                    self.north_wins += 1;
                    result.north
                };
                if seat == a {
                    self.a_wins += 1;
                } else {
                    self.b_wins += 1;
                }
            }
            Outcome::Draw => self.draws += 1,
            Outcome::Truncated => self.truncated += 1,
            Outcome::Ongoing => unreachable!("a match plays every game to its end"),
        }
    }

    /// Add the games of `other`.
    pub fn merge(&mut self, other: &Tally) {
        self.games += other.games;
        self.a_wins += other.a_wins;
        self.b_wins += other.b_wins;
        self.draws += other.draws;
        self.truncated += other.truncated;
        self.south_wins += other.south_wins;
        self.north_wins += other.north_wins;
        self.plies += other.plies;
    }

    /// The first seat's score: a win 1, a draw or truncation one half.
    pub fn a_score(&self) -> Rate {
        Rate::new(
            self.a_wins as f64 + 0.5 * (self.draws + self.truncated) as f64,
            self.games,
        )
    }

    /// The games as the ratings count them: seat `a` (the first) against `b`, truncated games
    /// as draws.
    pub fn pair_count(&self, a: usize, b: usize) -> PairCount {
        PairCount {
            a,
            b,
            wins: self.a_wins as u32,
            draws: (self.draws + self.truncated) as u32,
            losses: self.b_wins as u32,
        }
    }

    /// South's wins among all games.
    pub fn first_player_wins(&self) -> Rate {
        Rate::new(self.south_wins as f64, self.games)
    }

    /// Draws by the rules among all games.
    pub fn draw_rate(&self) -> Rate {
        Rate::new(self.draws as f64, self.games)
    }
}

/// What a match played.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// Every game, pairing by pairing, in the order of their numbers.
    pub games: Vec<GameResult>,
    /// One per pairing, in [`Match::pairings`] order.
    pub tallies: Vec<Tally>,
}

/// Play match `m` with `seats`. `on_game` hears each game as it ends, on the calling thread.
pub fn play(
    m: &Match,
    seats: &mut [Seat],
    on_game: &mut dyn FnMut(&GameResult),
) -> Result<Played, MatchError> {
    check(m, seats)?;
    let names: Vec<String> = seats.iter().map(Seat::name).collect();
    let list: Vec<(usize, u64)> = m
        .pairings
        .iter()
        .enumerate()
        .flat_map(|(p, pairing)| pairing.games.clone().map(move |g| (p, g)))
        .collect();
    let games = if seats.iter().any(|s| matches!(s, Seat::Batch(_))) {
        together(m, seats, &list, &names, on_game)?
    } else {
        dealt(m, seats, &list, &names, on_game)?
    };
    let mut tallies = vec![Tally::default(); m.pairings.len()];
    for g in &games {
        tallies[g.pairing].add(g, m.pairings[g.pairing].a);
    }
    Ok(Played { games, tallies })
}

/// Elo ratings of `names` from a round robin of `games` games per pair (each side of each
/// opening of `opening` plies), anchored at `names[0]` = 0, each agent made by `factory`.
/// `progress` hears the number of pairs finished.
#[allow(clippy::too_many_arguments)]
pub fn rate_round_robin(
    rules: &Rules,
    names: &[AgentSpec],
    factory: &Factory,
    games: u64,
    seed: u64,
    opening: u32,
    threads: usize,
    progress: &mut dyn FnMut(u32),
) -> Result<Vec<f64>, MatchError> {
    let pairs: Vec<(usize, usize)> = (0..names.len())
        .flat_map(|i| (i + 1..names.len()).map(move |j| (i, j)))
        .collect();
    let m = Match {
        rules: *rules,
        seed,
        salts: Salts::RATING,
        opening_plies: opening,
        openings: Openings::Random,
        pairings: pairs
            .iter()
            .map(|&(a, b)| Pairing {
                a,
                b,
                games: 0..games,
            })
            .collect(),
        threads,
        keep_records: false,
    };
    let mut seats = Seat::agents(names, factory);
    let mut left = vec![games; pairs.len()];
    let mut finished = 0;
    let played = play(&m, &mut seats, &mut |g| {
        left[g.pairing] -= 1;
        if left[g.pairing] == 0 {
            finished += 1;
            progress(finished);
        }
    })?;
    let counts: Vec<PairCount> = pairs
        .iter()
        .zip(&played.tallies)
        .map(|(&(a, b), t)| t.pair_count(a, b))
        .collect();
    let elo = bradley_terry(names.len(), &counts);
    Ok(elo.iter().map(|e| e - elo[0]).collect())
}

/// Refuse `rules` whose start has no legal move: every game would be over before it began,
/// and its result (the seeds go to North, as if North had moved last) would say nothing of the
/// players. The error says why no move is legal.
pub fn playable(rules: &Rules) -> Result<(), String> {
    let start = State::initial(rules);
    if !start.is_over() {
        return Ok(());
    }
    let endless = start.endless_mask().count_ones();
    let why = if endless > 0 {
        format!(
            "each of South's {endless} moves is endless (its sowing goes on past max_laps = {} laps)",
            rules.max_laps()
        )
    } else {
        "South's row is empty".to_string()
    };
    Err(format!(
        "the start of {} has no legal move: {why}, so there is no game to play",
        rules.summary()
    ))
}

/// The moves a kept record is counted at when the memory of a match is worked out: a long game
/// (random games last under 150 plies, games between agents fewer).
const RECORD_PLIES: u64 = 256;

/// Bytes a match holds for each game while it plays: the list of games, each one's result, with
/// `keep_records` its record, and with a batch player (the games advance together) the game in
/// progress.
pub fn bytes_per_game(keep_records: bool, batch: bool) -> u64 {
    let mut bytes = size_of::<(usize, u64)>() + size_of::<Option<GameResult>>();
    if keep_records {
        // The moves, and the five tags with their keys and map nodes.
        bytes += size_of::<GameRecord>() + RECORD_PLIES as usize * size_of::<usize>() + 5 * 96;
    }
    if batch {
        bytes += size_of::<Game>() + size_of::<Option<usize>>() + 2 * size_of::<usize>();
    }
    bytes as u64
}

/// Refuse a match that cannot be played, before any game starts.
fn check(m: &Match, seats: &[Seat]) -> Result<(), MatchError> {
    playable(&m.rules).map_err(MatchError::Config)?;
    memory::threads(m.threads).map_err(MatchError::Config)?;
    let games: u64 = m
        .pairings
        .iter()
        .map(|p| p.games.end.saturating_sub(p.games.start))
        .sum();
    let batch = seats.iter().any(|s| matches!(s, Seat::Batch(_)));
    memory::check(
        &format!("a match of {games} games"),
        games,
        bytes_per_game(m.keep_records, batch),
        0,
        "games",
    )
    .map_err(MatchError::TooLarge)?;
    for p in &m.pairings {
        if p.a == p.b || p.a.max(p.b) >= seats.len() {
            return Err(MatchError::Config(format!(
                "a pairing needs two different seats of the {}, got {} and {}",
                seats.len(),
                p.a,
                p.b
            )));
        }
    }
    for seat in seats {
        if let Seat::Agent { spec, factory } = seat {
            factory(spec)?
                .can_play(&m.rules)
                .map_err(MatchError::Config)?;
        }
    }
    Ok(())
}

/// `threads` (0: one per core), no more than there are games.
pub(crate) fn thread_count(threads: usize, games: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    }
    .min(games.max(1))
}

/// Deal the games whole to the threads, each with its own agents.
fn dealt(
    m: &Match,
    seats: &[Seat],
    list: &[(usize, u64)],
    names: &[String],
    on_game: &mut dyn FnMut(&GameResult),
) -> Result<Vec<GameResult>, MatchError> {
    let makers: Vec<(&AgentSpec, &Factory)> = seats
        .iter()
        .map(|seat| match seat {
            Seat::Agent { spec, factory } => (spec, *factory),
            Seat::Batch(_) => unreachable!("games are dealt only when every seat is an agent"),
        })
        .collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<Result<(usize, GameResult), MatchError>>();
    std::thread::scope(|scope| {
        for _ in 0..thread_count(m.threads, list.len()) {
            let send = send.clone();
            let (next, failed, makers) = (&next, &failed, &makers);
            scope.spawn(move || {
                let fail = |e: MatchError| {
                    failed.store(true, Ordering::Relaxed);
                    let _ = send.send(Err(e));
                };
                let made: Result<Vec<Box<dyn Agent>>, SpecError> =
                    makers.iter().map(|(spec, factory)| factory(spec)).collect();
                let mut agents = match made {
                    Ok(agents) => agents,
                    Err(e) => return fail(e.into()),
                };
                loop {
                    let slot = next.fetch_add(1, Ordering::Relaxed);
                    if slot >= list.len() || failed.load(Ordering::Relaxed) {
                        return;
                    }
                    let (pairing, number) = list[slot];
                    match play_whole(m, pairing, number, &mut agents, names) {
                        Ok(result) => {
                            if send.send(Ok((slot, result))).is_err() {
                                return;
                            }
                        }
                        Err(e) => return fail(e),
                    }
                }
            });
        }
        drop(send);
        let mut results: Vec<Option<GameResult>> = vec![None; list.len()];
        let mut error = None;
        for received in receive {
            match received {
                Ok((slot, result)) => {
                    on_game(&result);
                    results[slot] = Some(result);
                }
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(results
                .into_iter()
                .map(|r| r.expect("every game was played"))
                .collect()),
        }
    })
}

/// Play one game to its end with `agents`, one per seat.
fn play_whole(
    m: &Match,
    pairing: usize,
    number: u64,
    agents: &mut [Box<dyn Agent>],
    names: &[String],
) -> Result<GameResult, MatchError> {
    let mut game = Game::start(m, pairing, number);
    agents[game.south].new_game();
    agents[game.north].new_game();
    while !game.state.is_over() {
        let seat = game.mover();
        let action = agents[seat].choose(&game.state, &mut game.rng);
        game.play(action, &names[seat])?;
    }
    Ok(game.result(m, names))
}

/// Play every game at once, one move each per round: the batch players first, in seat order, in
/// the games where they are to move; then the agents in the games where they were to move when
/// the round began, spread over the threads. Each game has agents of its own.
fn together(
    m: &Match,
    seats: &mut [Seat],
    list: &[(usize, u64)],
    names: &[String],
    on_game: &mut dyn FnMut(&GameResult),
) -> Result<Vec<GameResult>, MatchError> {
    let mut games: Vec<Game> = list.iter().map(|&(p, g)| Game::start(m, p, g)).collect();
    // Each game's agents, by seat; `None` for a batch player's seat.
    let mut agents: Vec<Vec<Option<Box<dyn Agent>>>> = Vec::with_capacity(games.len());
    for game in &games {
        let mut own: Vec<Option<Box<dyn Agent>>> = seats.iter().map(|_| None).collect();
        for seat in [game.south, game.north] {
            if let Seat::Agent { spec, factory } = &seats[seat] {
                own[seat] = Some(factory(spec)?);
            }
        }
        agents.push(own);
    }
    let threads = thread_count(m.threads, games.len());
    let mut results: Vec<Option<GameResult>> = vec![None; games.len()];
    loop {
        let movers: Vec<Option<usize>> = games
            .iter()
            .map(|g| (!g.state.is_over()).then(|| g.mover()))
            .collect();
        if movers.iter().all(Option::is_none) {
            break;
        }
        for (seat, player) in seats.iter_mut().enumerate() {
            let Seat::Batch(player) = player else {
                continue;
            };
            let slots: Vec<usize> = (0..games.len())
                .filter(|&i| movers[i] == Some(seat))
                .collect();
            if slots.is_empty() {
                continue;
            }
            let states: Vec<State> = slots.iter().map(|&i| games[i].state).collect();
            let mut rngs: Vec<ChaCha8Rng> = slots.iter().map(|&i| games[i].rng.clone()).collect();
            let actions = player.choose_batch(&slots, &states, &mut rngs);
            for ((&i, action), rng) in slots.iter().zip(actions).zip(rngs) {
                games[i].rng = rng;
                games[i].play(action, &names[seat])?;
            }
        }
        let mut turns: Vec<(&mut Game, &mut Box<dyn Agent>)> = games
            .iter_mut()
            .zip(agents.iter_mut())
            .zip(&movers)
            .filter_map(|((game, own), mover)| Some((game, own[(*mover)?].as_mut()?)))
            .collect();
        let chunk = turns.len().div_ceil(threads).max(1);
        let moved: Vec<Result<(), MatchError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = turns
                .chunks_mut(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter_mut()
                            .map(|(game, agent)| {
                                let seat = game.mover();
                                let action = agent.choose(&game.state, &mut game.rng);
                                game.play(action, &names[seat])
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("an agent panicked"))
                .collect()
        });
        moved.into_iter().collect::<Result<(), _>>()?;
        for (i, game) in games.iter().enumerate() {
            if results[i].is_none() && game.state.is_over() {
                let result = game.clone().result(m, names);
                on_game(&result);
                results[i] = Some(result);
            }
        }
    }
    Ok(results
        .into_iter()
        .map(|r| r.expect("every game has ended"))
        .collect())
}

/// A game in progress.
#[derive(Clone)]
struct Game {
    pairing: usize,
    number: u64,
    south: usize,
    north: usize,
    state: State,
    /// Every move so far, the opening's included.
    moves: Vec<usize>,
    rng: ChaCha8Rng,
}

impl Game {
    /// Game `number` of `pairing`, after its opening.
    fn start(m: &Match, pairing: usize, number: u64) -> Game {
        let p = &m.pairings[pairing];
        let (south, north) = if number.is_multiple_of(2) {
            (p.a, p.b)
        } else {
            (p.b, p.a)
        };
        let (state, moves) = opening(m, number);
        Game {
            pairing,
            number,
            south,
            north,
            state,
            moves,
            rng: stream(m.seed, m.salts.games, number),
        }
    }

    /// The seat to move.
    fn mover(&self) -> usize {
        if self.state.to_move() == Player::South {
            self.south
        } else {
            self.north
        }
    }

    /// Play `action`, chosen by the player `name`.
    fn play(&mut self, action: usize, name: &str) -> Result<(), MatchError> {
        self.state = self
            .state
            .play(action)
            .map_err(|e| MatchError::IllegalMove {
                agent: name.to_string(),
                message: e.to_string(),
            })?;
        self.moves.push(action);
        Ok(())
    }

    /// The result of the game, which is over.
    fn result(self, m: &Match, names: &[String]) -> GameResult {
        let record = m.keep_records.then(|| {
            let tags = [
                ("south", names[self.south].clone()),
                ("north", names[self.north].clone()),
                ("seed", m.seed.to_string()),
                ("game", self.number.to_string()),
                ("opening_plies", m.opening_plies.to_string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
            GameRecord {
                rules: m.rules,
                moves: self.moves,
                outcome: self.state.outcome(),
                captured: self.state.captures(),
                tags,
            }
        });
        GameResult {
            game: self.number,
            pairing: self.pairing,
            south: self.south,
            north: self.north,
            outcome: self.state.outcome(),
            plies: self.state.ply(),
            record,
        }
    }
}

/// Draws of an opening before it is cut short (see [`Match::opening_plies`]).
const OPENING_DRAWS: usize = 64;

/// The start of game `number`: the initial position after the opening its side-swapped pair
/// shares, and the opening's moves.
fn opening(m: &Match, number: u64) -> (State, Vec<usize>) {
    let mut state = State::initial(&m.rules);
    // Reserved up to a typical game's length: the opening may be asked to be far longer than
    // random games last.
    let mut moves = Vec::with_capacity(m.opening_plies.min(256) as usize);
    if m.opening_plies == 0 {
        return (state, moves);
    }
    if let Openings::Dealt(list) = &m.openings {
        // `check_openings` refused an empty list; a list is never longer than u64.
        let moves = list[((number / 2) % list.len() as u64) as usize].clone();
        let state = moves.iter().fold(state, |s, &a| s.play_unchecked(a));
        return (state, moves);
    }
    let mut rng = stream(m.seed, m.salts.openings, number / 2);
    for _ in 0..OPENING_DRAWS {
        state = State::initial(&m.rules);
        moves.clear();
        for _ in 0..m.opening_plies {
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
            .fold(State::initial(&m.rules), |s, &a| s.play_unchecked(a));
    }
    (state, moves)
}

/// Refuse a match whose openings do not all last [`Match::opening_plies`] plies, before any
/// game is played: an opening longer than the ply cap, or one that random play seldom reaches
/// (every draw of some game's opening ended the game). Cut short, such an opening would leave
/// the players the last move or two of a game random play decided, and credit them with its
/// result. The arena and match play call this, where the user chose the length; `sowing
/// compare` lets its two-ply openings be cut in games that end sooner.
pub fn check_openings(m: &Match) -> Result<(), MatchError> {
    let k = m.opening_plies;
    if k == 0 {
        return Ok(());
    }
    if let Openings::Dealt(list) = &m.openings {
        let initial = State::initial(&m.rules);
        let fits = |moves: &Vec<usize>| {
            moves.len() == k as usize
                && moves
                    .iter()
                    .try_fold(initial, |s, &a| s.play(a).ok())
                    .is_some_and(|s| !s.is_over())
        };
        if list.is_empty() || !list.iter().all(fits) {
            return Err(MatchError::Config(format!(
                "the dealt openings must be {k} legal plies each, leaving the game going, and \
                 there must be at least one"
            )));
        }
        return Ok(());
    }
    if k >= m.rules.max_plies() {
        return Err(MatchError::Config(format!(
            "an opening of {k} random plies is as long as a game may last (max_plies = {}); \
             give at most {}",
            m.rules.max_plies(),
            m.rules.max_plies() - 1
        )));
    }
    for p in &m.pairings {
        // Games 2j and 2j + 1 share an opening: one look per pair.
        for number in (p.games.start & !1..p.games.end).step_by(2) {
            let (_, moves) = opening(m, number);
            if moves.len() < k as usize {
                return Err(MatchError::Config(format!(
                    "an opening of {k} random plies: random play seldom lasts that long in \
                     these rules (each of the {OPENING_DRAWS} openings drawn for game {number} \
                     ended the game); give a shorter opening"
                )));
            }
        }
    }
    Ok(())
}
