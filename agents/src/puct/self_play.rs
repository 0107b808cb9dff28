//! Self-play: games played by the batched search against itself, each position searched kept as
//! a training sample (the network input, the search's visit distribution, a value target, the
//! mover). The trainer of `sowing train` plays its games here with its tch network, and the
//! Python binding with a Python network; one seed gives the same games either way.
//!
//! Game `g` of iteration `i` draws everything (its opening, its root noise, its moves) from
//! [`stream`]`(seed, SELF_PLAY, i, g)`, so a game does not depend on the games it shares a
//! batch with, nor on the worker that plays it.

use super::search_spec::{SpecError, check};
use super::{BatchSearch, PuctConfig, SearchResult, SearchSpec, Trees};
use crate::evaluator::Evaluation;
use crate::features::{encode_input, input_len};
use crate::streams;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_env::{Outcome, Player, Rules, State, random_opening};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// The purpose of self-play's streams.
pub const SELF_PLAY: u64 = 1;

/// The random stream of a training run for `purpose` in iteration `iteration`, lane `lane` (a
/// game, say).
pub fn stream(seed: u64, purpose: u64, iteration: u32, lane: u32) -> ChaCha8Rng {
    streams::stream(
        seed,
        purpose.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        u64::from(iteration) << 32 | u64::from(lane),
    )
}

/// The most random plies a self-play opening may have.
pub const MAX_OPENING_PLIES: u32 = 100;

/// How self-play searches and chooses its moves. Serialised as the search's fields (see
/// [`SearchSpec`]) under `search`, and `temperature_plies`, `opening_plies`, `value_mix`,
/// `margin_weight`, `lookahead`, `full_fraction` (1: no playout cap) and `fast_simulations`
/// beside it, each
/// optional ([`SelfPlayConfig::default`]), checked when read ([`SelfPlayConfig::validate`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PlayFields", into = "PlayFields")]
pub struct SelfPlayConfig {
    /// The search of every move, root noise included. With a Gumbel root ([`super::Root::Gumbel`])
    /// the halving's winner is played for `temperature_plies` (its Gumbel draws are the
    /// exploration), then the best without the draws, and the improved policy is taught; with
    /// PUCT's, root noise, moves by visits (drawn for `temperature_plies`, then the most
    /// visited), visits as the target. Its time, if any, is not used: self-play counts.
    pub search: SearchSpec,
    /// Plies at the start of each game whose move is drawn in proportion to visits; later moves
    /// take the most visited action.
    pub temperature_plies: u32,
    /// Each game starts after a number of uniformly random plies drawn from 0 to this (not kept
    /// as samples).
    pub opening_plies: u32,
    /// Value target = (1 - m) * game result + m * root search value.
    pub value_mix: f32,
    /// How much of the game's result is its margin: the result for the mover is
    /// `(1 - w) * (+1, 0 or -1) + w * (their captures - the opponent's) / the seeds in play`
    /// ([`game_result`]). 0 (the default): the result alone, as the exact labels' "keeps the
    /// result" scores; above 0 a larger won margin is worth more, as alpha-beta's seed count
    /// has it. Below 1, so that every win still counts above every draw and loss.
    pub margin_weight: f32,
    /// Whether the samples' inputs hold the look-ahead features.
    pub lookahead: bool,
    /// KataGo's playout-cap randomisation; `None`: every move searched in full and taught.
    pub playout_cap: Option<PlayoutCap>,
}

impl Default for SelfPlayConfig {
    /// `sowing train`'s: the default search with root noise of weight 0.25, 12 plies drawn by
    /// visits, openings of up to 4 random plies, value targets half result half search,
    /// look-ahead inputs, no playout cap.
    fn default() -> SelfPlayConfig {
        let search = SearchSpec::default();
        SelfPlayConfig {
            search: SearchSpec {
                puct: PuctConfig {
                    noise_fraction: 0.25,
                    ..search.puct
                },
                ..search
            },
            temperature_plies: 12,
            opening_plies: 4,
            value_mix: 0.5,
            margin_weight: 0.0,
            lookahead: true,
            playout_cap: None,
        }
    }
}

impl SelfPlayConfig {
    /// Refuse settings self-play cannot play, naming the setting and its range.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.search.validate()?;
        check(
            self.opening_plies <= MAX_OPENING_PLIES,
            "opening_plies",
            self.opening_plies,
            "0 to 100",
        )?;
        check(
            (0.0..=1.0).contains(&self.value_mix),
            "value_mix",
            self.value_mix,
            "0 to 1",
        )?;
        check(
            (0.0..1.0).contains(&self.margin_weight),
            "margin_weight",
            self.margin_weight,
            "0 up to (not including) 1",
        )?;
        if let Some(cap) = &self.playout_cap {
            check(
                cap.full_fraction > 0.0 && cap.full_fraction <= 1.0,
                "full_fraction",
                cap.full_fraction,
                "above 0 and at most 1",
            )?;
            check(
                (1..=self.search.puct.simulations).contains(&cap.fast_simulations),
                "fast_simulations",
                cap.fast_simulations,
                "1 to simulations, with full_fraction below 1",
            )?;
        }
        Ok(())
    }
}

/// The flat form of a [`SelfPlayConfig`].
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct PlayFields {
    search: SearchSpec,
    temperature_plies: u32,
    opening_plies: u32,
    value_mix: f32,
    margin_weight: f32,
    lookahead: bool,
    full_fraction: f64,
    fast_simulations: u32,
}

impl Default for PlayFields {
    fn default() -> PlayFields {
        SelfPlayConfig::default().into()
    }
}

impl From<SelfPlayConfig> for PlayFields {
    fn from(c: SelfPlayConfig) -> PlayFields {
        PlayFields {
            search: c.search,
            temperature_plies: c.temperature_plies,
            opening_plies: c.opening_plies,
            value_mix: c.value_mix,
            margin_weight: c.margin_weight,
            lookahead: c.lookahead,
            full_fraction: c.playout_cap.map_or(1.0, |p| p.full_fraction),
            fast_simulations: c.playout_cap.map_or(16, |p| p.fast_simulations),
        }
    }
}

impl TryFrom<PlayFields> for SelfPlayConfig {
    type Error = SpecError;

    fn try_from(f: PlayFields) -> Result<SelfPlayConfig, SpecError> {
        check(
            f.full_fraction > 0.0 && f.full_fraction <= 1.0,
            "full_fraction",
            f.full_fraction,
            "above 0 and at most 1",
        )?;
        let config = SelfPlayConfig {
            search: f.search,
            temperature_plies: f.temperature_plies,
            opening_plies: f.opening_plies,
            value_mix: f.value_mix,
            margin_weight: f.margin_weight,
            lookahead: f.lookahead,
            playout_cap: (f.full_fraction < 1.0).then_some(PlayoutCap {
                full_fraction: f.full_fraction,
                fast_simulations: f.fast_simulations,
            }),
        };
        config.validate()?;
        Ok(config)
    }
}

/// Playout-cap randomisation (Wu, 2019, KataGo): each move of a self-play game is searched in
/// full (`config.puct`, root noise, Gumbel if set) with probability `full_fraction`, and only
/// those moves become samples; the others get a fast search of `fast_simulations` without noise,
/// whose visits are too few to teach the policy and serve only to play the game on. So a game
/// costs less and more games give value targets, at the same number of full searches per
/// sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutCap {
    /// The chance that a move is searched in full, in `(0, 1]`.
    pub full_fraction: f64,
    /// Simulations of a fast search.
    pub fast_simulations: u32,
}

/// One searched position of a finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The network input of the position ([`encode_input`]).
    pub input: Vec<f32>,
    /// The search's visit distribution over the `n` actions (sums to one).
    pub policy: Vec<f32>,
    /// Value target for the player to move, in `[-1, 1]`.
    pub value: f32,
    /// The player to move.
    pub player: Player,
    /// The position searched, so that a later network can search it again (reanalysis, see
    /// [`super::reanalyse`]).
    pub state: State,
    /// The game's result for the player to move: 1, 0 or -1 (the part of `value` that a new
    /// search does not change).
    pub result: f32,
}

/// What a batch of games gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Played {
    /// The positions of the games, game by game in the order they ended.
    pub samples: Vec<Sample>,
    /// Games South won.
    pub south_wins: u32,
    /// Moves played, taught or not (with a playout cap, more than the samples).
    pub moves: u64,
    /// Play stopped early because a search could not grow its trees (see
    /// [`BatchSearch::out_of_memory`]): the samples are those of the games finished by then.
    pub out_of_memory: bool,
}

/// The move a Gumbel root chose, and its policy target over the `n` actions.
type Chosen = (usize, Vec<f32>);

/// One game in progress.
struct Game {
    state: State,
    rng: ChaCha8Rng,
    /// Per position: network input, search policy, root value, and the position.
    positions: Vec<(Vec<f32>, Vec<f32>, f32, State)>,
}

/// The policy target of a PUCT search: its visits over the `n` actions, as shares.
pub(super) fn visit_policy(result: &SearchResult, n: usize) -> Vec<f32> {
    let visits: u32 = result.visits.iter().sum();
    result.visits[..n]
        .iter()
        .map(|&v| v as f32 / visits.max(1) as f32)
        .collect()
}

/// Search `roots` together as `spec` says; with a Gumbel root its winner is played for
/// `temperature_plies`, then its best, and its improved policy kept.
pub(super) fn search_group<X>(
    search: &mut BatchSearch,
    roots: &[State],
    spec: &SearchSpec,
    temperature_plies: u32,
    rngs: &mut [ChaCha8Rng],
    evaluate: &mut impl FnMut(&[State], &mut [Evaluation]) -> Result<(), X>,
) -> Result<Vec<(SearchResult, Option<Chosen>)>, X> {
    Ok(search
        .run(roots, Trees::Fresh, spec, rngs, evaluate)?
        .into_iter()
        .zip(roots)
        .map(|(r, root)| {
            let chosen = r.gumbel.map(|g| {
                let explore = root.ply() < temperature_plies;
                let action = if explore { g.action } else { g.best };
                (action, g.policy[..root.holes()].to_vec())
            });
            (r.search, chosen)
        })
        .collect())
}

/// The result of a finished game for `player`, as self-play teaches it:
/// `(1 - weight) * reward + weight * margin / seeds`, the reward +1, 0 or -1 and the margin
/// `player`'s captures less the opponent's, over the seeds in play (0 for a game cut off by the
/// ply cap). Below a weight of 1 a win is worth more than 0 and a loss less, whatever the
/// margins.
pub fn game_result(end: &State, player: Player, weight: f32) -> f32 {
    let outcome = end.outcome();
    let reward = outcome.reward(player);
    if weight == 0.0 || !outcome.is_terminated() {
        return reward;
    }
    let margin = f32::from(end.captured(player)) - f32::from(end.captured(player.opponent()));
    (1.0 - weight) * reward + weight * margin / end.rules().total_seeds() as f32
}

/// The value target of a position: `(1 - mix) * result + mix * root_value`, the game's result
/// for the mover mixed with its search's value.
pub fn value_target(mix: f32, result: f32, root_value: f32) -> f32 {
    (1.0 - mix) * result + mix * root_value
}

/// Play games `games` of iteration `iteration` (numbers, which fix their random streams),
/// `slots` at a time with their leaves valued together by `evaluate` (see
/// [`BatchSearch::run`]), counting finished games in `finished`. The first error of
/// `evaluate` ends the play and is returned.
#[allow(clippy::too_many_arguments)]
pub fn play_games<X>(
    rules: &Rules,
    config: &SelfPlayConfig,
    seed: u64,
    iteration: u32,
    games: &[u32],
    slots: u32,
    finished: &AtomicU32,
    mut evaluate: impl FnMut(&[State], &mut [Evaluation]) -> Result<(), X>,
) -> Result<Played, X> {
    let n = rules.holes();
    let len = input_len(n, config.lookahead);
    let mut search = BatchSearch::new();
    let new_game = |g: u32| {
        let mut rng = stream(seed, SELF_PLAY, iteration, g);
        let plies = rng.random_range(0..=config.opening_plies);
        Game {
            state: random_opening(rules, plies, &mut rng),
            rng,
            positions: Vec::new(),
        }
    };
    let mut queue = games.iter().copied();
    let mut active: Vec<Game> = queue.by_ref().take(slots as usize).map(new_game).collect();
    let mut out = Played::default();
    while !active.is_empty() {
        // Which games search this move in full (all of them without a playout cap), drawn
        // before their search's own randomness.
        let full: Vec<bool> = active
            .iter_mut()
            .map(|g| {
                config
                    .playout_cap
                    .is_none_or(|cap| g.rng.random_bool(cap.full_fraction))
            })
            .collect();
        let mut results: Vec<Option<(SearchResult, Option<Chosen>)>> = vec![None; active.len()];
        // Self-play counts its simulations: a time would make the games depend on the clock.
        let full_search = SearchSpec {
            time: None,
            ..config.search
        };
        let fast = config.playout_cap.map(|cap| {
            SearchSpec::from(PuctConfig {
                simulations: cap.fast_simulations,
                noise_fraction: 0.0,
                ..config.search.puct
            })
        });
        let groups = [(true, Some(full_search)), (false, fast)];
        for (in_full, spec) in groups {
            let Some(spec) = spec else { continue };
            let members: Vec<usize> = (0..active.len()).filter(|&i| full[i] == in_full).collect();
            if members.is_empty() {
                continue;
            }
            let roots: Vec<State> = members.iter().map(|&i| active[i].state).collect();
            let mut rngs: Vec<ChaCha8Rng> =
                members.iter().map(|&i| active[i].rng.clone()).collect();
            let found = search_group(
                &mut search,
                &roots,
                &spec,
                config.temperature_plies,
                &mut rngs,
                &mut evaluate,
            )?;
            if search.out_of_memory() {
                out.out_of_memory = true;
                return Ok(out);
            }
            // Each game goes on with its stream where its search left it.
            for ((&i, found), rng) in members.iter().zip(found).zip(rngs) {
                results[i] = Some(found);
                active[i].rng = rng;
            }
        }
        let mut done = Vec::new();
        for (i, (game, searched)) in active.iter_mut().zip(results).enumerate() {
            let (result, gumbel) = searched.expect("every game was searched in one group");
            let mut input = vec![0.0f32; len];
            encode_input(&game.state, config.lookahead, &mut input);
            let (action, policy) = match gumbel {
                Some(chosen) => chosen,
                None => {
                    let policy = visit_policy(&result, n);
                    let action = if game.state.ply() < config.temperature_plies {
                        result.sample_action(&mut game.rng)
                    } else {
                        result.best_action()
                    };
                    (action, policy)
                }
            };
            out.moves += 1;
            if full[i] {
                game.positions
                    .push((input, policy, result.value, game.state));
            }
            game.state = game.state.play_unchecked(action);
            if !game.state.is_over() {
                continue;
            }
            let outcome = game.state.outcome();
            if outcome == Outcome::Won(Player::South) {
                out.south_wins += 1;
            }
            let mix = config.value_mix;
            // The game's result as taught, once per player (South's first).
            let taught_by = [Player::South, Player::North]
                .map(|p| game_result(&game.state, p, config.margin_weight));
            for (input, policy, root_value, state) in game.positions.drain(..) {
                let player = state.to_move();
                let z = outcome.reward(player);
                let taught = taught_by[player.index()];
                out.samples.push(Sample {
                    input,
                    policy,
                    value: value_target(mix, taught, root_value),
                    player,
                    state,
                    result: z,
                });
            }
            finished.fetch_add(1, Ordering::Relaxed);
            done.push(i);
        }
        // Finished games make room for new ones, in slot order; slots left over close.
        let mut closed = Vec::new();
        for i in done {
            match queue.next() {
                Some(g) => active[i] = new_game(g),
                None => closed.push(i),
            }
        }
        for i in closed.into_iter().rev() {
            active.remove(i);
        }
    }
    Ok(out)
}

/// Play games `first..first + total` of iteration `iteration` on one thread per evaluator: the
/// `k`-th of them goes to worker `k % workers`, each worker plays `parallel_games / workers` (rounded up) at a time
/// with its own evaluator, and their results are joined worker by worker, so they do not depend
/// on timing. `waiting` hears the number of games finished while they play, on the
/// calling thread, every 20 ms. The first error, in worker order, is returned.
///
/// The evaluators are as many as the workers wanted, `1..=total` of them.
#[allow(clippy::too_many_arguments)]
pub fn play_dealt<X: Send, F>(
    rules: &Rules,
    config: &SelfPlayConfig,
    seed: u64,
    iteration: u32,
    first: u32,
    total: u32,
    parallel_games: u32,
    evaluators: Vec<F>,
    waiting: &mut dyn FnMut(u32),
) -> Result<Played, X>
where
    F: FnMut(&[State], &mut [Evaluation]) -> Result<(), X> + Send,
{
    let workers = evaluators.len().max(1) as u32;
    let slots = parallel_games.div_ceil(workers).max(1);
    let finished = AtomicU32::new(0);
    let outputs: Vec<Result<Played, X>> = std::thread::scope(|scope| {
        let handles: Vec<_> = evaluators
            .into_iter()
            .enumerate()
            .map(|(w, evaluate)| {
                let games: Vec<u32> = (w as u32..total)
                    .step_by(workers as usize)
                    .map(|k| first + k)
                    .collect();
                let finished = &finished;
                scope.spawn(move || {
                    play_games(
                        rules, config, seed, iteration, &games, slots, finished, evaluate,
                    )
                })
            })
            .collect();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(20));
            waiting(finished.load(Ordering::Relaxed));
        }
        handles
            .into_iter()
            .map(|h| h.join().expect("a self-play worker panicked"))
            .collect()
    });
    let mut played = Played::default();
    for out in outputs {
        let out = out?;
        played.samples.extend(out.samples);
        played.south_wins += out.south_wins;
        played.moves += out.moves;
        played.out_of_memory |= out.out_of_memory;
    }
    Ok(played)
}
