//! Measuring a network against the search baselines: many games at once, the network's moves
//! searched together in batches, the baselines' moves spread over threads; and Elo ratings from
//! the results (baselines rated once by a round robin, anchored at `random` = 0).

use crate::agent::Agent;
use crate::az::network::PolicyValueNet;
use crate::az::puct::{BatchSearch, PuctConfig};
use crate::spec::from_spec;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_env::{Outcome, Player, Rules, State, random_opening};

/// Results of one player against one opponent, from the player's side.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// The opponent's spec.
    pub opponent: String,
    /// Games won.
    pub wins: u32,
    /// Games drawn (truncated games count as draws).
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl MatchResult {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Score rate: wins plus half the draws, over games.
    pub fn score(&self) -> f64 {
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games().max(1))
    }

    /// Win rate.
    pub fn win_rate(&self) -> f64 {
        f64::from(self.wins) / f64::from(self.games().max(1))
    }

    /// Wilson 95% interval of the win rate.
    pub fn win_interval(&self) -> (f64, f64) {
        wilson(f64::from(self.wins), f64::from(self.games()))
    }
}

/// Wilson score interval at 95% for `k` successes in `n` trials.
pub fn wilson(k: f64, n: f64) -> (f64, f64) {
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.96f64;
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A match of the network against one agent.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSetup {
    /// The game.
    pub rules: Rules,
    /// The opponent's agent spec.
    pub opponent: String,
    /// Games to play; the network is South in even games and North in odd ones.
    pub games: u32,
    /// Game `g` draws from stream `g` of this seed.
    pub seed: u64,
    /// Threads for the opponent's moves.
    pub threads: usize,
    /// Uniformly random plies before the players take over.
    pub opening: u32,
}

/// Play the match `setup`: the network searches `config.simulations` per move, without noise,
/// and plays the most visited move; its moves in all games are searched together. `progress`
/// hears the number of games finished.
pub fn play_network_matches(
    net: &mut PolicyValueNet,
    config: &PuctConfig,
    setup: &MatchSetup,
    progress: &mut dyn FnMut(u32),
) -> Result<MatchResult, crate::spec::SpecError> {
    let MatchSetup {
        rules,
        opponent,
        games,
        seed,
        threads,
        opening,
    } = setup;
    let (games, seed, threads) = (*games, *seed, *threads);
    let mut agents = (0..games)
        .map(|_| from_spec(opponent))
        .collect::<Result<Vec<_>, _>>()?;
    // Games 2k and 2k + 1 start from the same random opening, the network on either side, so
    // that deterministic players meet in more than two distinct games.
    let mut states: Vec<State> = (0..games)
        .map(|g| {
            let mut r = ChaCha8Rng::seed_from_u64(seed ^ 0x6f70_656e);
            r.set_stream(u64::from(g / 2));
            random_opening(rules, *opening, &mut r)
        })
        .collect();
    let mut rngs: Vec<ChaCha8Rng> = (0..games)
        .map(|g| {
            let mut r = ChaCha8Rng::seed_from_u64(seed);
            r.set_stream(u64::from(g));
            r
        })
        .collect();
    let net_side = |g: usize| {
        if g % 2 == 0 {
            Player::South
        } else {
            Player::North
        }
    };
    let config = config.without_noise();
    let mut search = BatchSearch::new();
    let mut eval_rng = ChaCha8Rng::seed_from_u64(seed);
    let mut finished = 0;
    loop {
        let mut net_games = Vec::new();
        let mut agent_games = Vec::new();
        for (g, s) in states.iter().enumerate() {
            if s.is_over() {
                continue;
            }
            if s.to_move() == net_side(g) {
                net_games.push(g);
            } else {
                agent_games.push(g);
            }
        }
        if net_games.is_empty() && agent_games.is_empty() {
            break;
        }
        if !net_games.is_empty() {
            let roots: Vec<State> = net_games.iter().map(|&g| states[g]).collect();
            let mut noise: Vec<ChaCha8Rng> = net_games.iter().map(|&g| rngs[g].clone()).collect();
            // Game g keeps its tree g from move to move, as the agent `az:` does.
            let results = search.search_continuing(
                &net_games,
                &roots,
                &config,
                net,
                &mut noise,
                &mut eval_rng,
            );
            for (&g, r) in net_games.iter().zip(&results) {
                states[g] = states[g].play_unchecked(r.best_action());
            }
        }
        let mut turn = vec![false; states.len()];
        for &g in &agent_games {
            turn[g] = true;
        }
        let mut work: Vec<(usize, &mut Box<dyn Agent>, &mut ChaCha8Rng)> = agents
            .iter_mut()
            .zip(rngs.iter_mut())
            .enumerate()
            .filter(|(g, _)| turn[*g])
            .map(|(g, (agent, rng))| (g, agent, rng))
            .collect();
        let chunk = work.len().div_ceil(threads.max(1)).max(1);
        let states_now = &states;
        let moves: Vec<(usize, usize)> = std::thread::scope(|scope| {
            let handles: Vec<_> = work
                .chunks_mut(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter_mut()
                            .map(|(g, agent, rng)| (*g, agent.choose(&states_now[*g], rng)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("a baseline agent panicked"))
                .collect()
        });
        for (g, a) in moves {
            states[g] = states[g]
                .play(a)
                .unwrap_or_else(|e| panic!("baseline {opponent} chose an illegal move: {e}"));
        }
        let now = states.iter().filter(|s| s.is_over()).count() as u32;
        if now > finished {
            finished = now;
            progress(finished);
        }
    }
    let mut result = MatchResult {
        opponent: opponent.to_string(),
        ..MatchResult::default()
    };
    for (g, s) in states.iter().enumerate() {
        match s.outcome() {
            Outcome::Won(p) if p == net_side(g) => result.wins += 1,
            Outcome::Won(_) => result.losses += 1,
            _ => result.draws += 1,
        }
    }
    Ok(result)
}

/// Play `games` games between two agents (each side half the time, pairs of games from the same
/// random opening of `opening` plies) and return `a`'s result.
pub fn play_agent_matches(
    rules: &Rules,
    a: &str,
    b: &str,
    games: u32,
    seed: u64,
    opening: u32,
) -> Result<MatchResult, crate::spec::SpecError> {
    let mut first = from_spec(a)?;
    let mut second = from_spec(b)?;
    let mut result = MatchResult {
        opponent: b.to_string(),
        ..MatchResult::default()
    };
    for g in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(u64::from(g));
        first.new_game();
        second.new_game();
        let a_side = if g % 2 == 0 {
            Player::South
        } else {
            Player::North
        };
        let mut opening_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6f70_656e);
        opening_rng.set_stream(u64::from(g / 2));
        let mut state = random_opening(rules, opening, &mut opening_rng);
        while !state.is_over() {
            let agent = if state.to_move() == a_side {
                &mut first
            } else {
                &mut second
            };
            let action = agent.choose(&state, &mut rng);
            state = state
                .play(action)
                .unwrap_or_else(|e| panic!("agent {} chose an illegal move: {e}", agent.name()));
        }
        match state.outcome() {
            Outcome::Won(p) if p == a_side => result.wins += 1,
            Outcome::Won(_) => result.losses += 1,
            _ => result.draws += 1,
        }
    }
    Ok(result)
}

/// Elo difference of `score` (a rate in `(0, 1)`), clamped to stay finite.
fn logistic_elo(score: f64) -> f64 {
    let s = score.clamp(1e-3, 1.0 - 1e-3);
    400.0 * (s / (1.0 - s)).log10()
}

fn expected(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// Bradley-Terry ratings of `names` from pairwise results `(i, j, score of i, games)`, anchored at
/// `names[0]` = 0. One virtual draw per pair keeps ratings finite when a pair is one-sided.
pub fn rate_round_robin(names: &[String], results: &[(usize, usize, f64, f64)]) -> Vec<f64> {
    let mut r = vec![0.0f64; names.len()];
    for _ in 0..2000 {
        let mut next = r.clone();
        for (i, slot) in next.iter_mut().enumerate().skip(1) {
            let (mut grad, mut curv) = (0.0, 0.0);
            for &(a, b, score, games) in results {
                let (other, s) = if a == i {
                    (b, score)
                } else if b == i {
                    (a, 1.0 - score)
                } else {
                    continue;
                };
                let n = games + 1.0;
                let s = (s * games + 0.5) / n;
                let e = expected(r[i] - r[other]);
                grad += n * (s - e);
                curv += n * e * (1.0 - e);
            }
            if curv > 0.0 {
                *slot = r[i] + grad / curv * 400.0 / std::f64::consts::LN_10;
            }
        }
        let moved = next
            .iter()
            .zip(&r)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        r = next;
        if moved < 1e-6 {
            break;
        }
    }
    r
}

/// The Elo rating of a player from its results against rated opponents (with one virtual draw
/// per opponent), and the half-width of its 95% interval. Both are finite for any results, a
/// clean sweep included: the virtual draw bounds the likelihood's maximum.
pub fn rate_against(opponents: &[(f64, &MatchResult)]) -> (f64, f64) {
    // Half a virtual game's points per opponent, so that no score is 0 or 1.
    let regularised = |m: &MatchResult| {
        let n = f64::from(m.games()) + 1.0;
        ((m.score() * f64::from(m.games()) + 0.5) / n, n)
    };
    let scale = 400.0 / std::f64::consts::LN_10;
    let information = |rating: f64| {
        opponents
            .iter()
            .map(|(r, m)| {
                let e = expected(rating - r);
                regularised(m).1 * e * (1.0 - e)
            })
            .sum::<f64>()
    };
    let mut rating = opponents
        .iter()
        .map(|(r, m)| r + logistic_elo(regularised(m).0))
        .sum::<f64>()
        / opponents.len().max(1) as f64;
    for _ in 0..500 {
        let grad: f64 = opponents
            .iter()
            .map(|(r, m)| {
                let (s, n) = regularised(m);
                n * (s - expected(rating - r))
            })
            .sum();
        let curv = information(rating);
        if curv <= 0.0 {
            break;
        }
        // Newton's step, capped: far from the maximum the curvature is nearly zero, and an
        // uncapped step overshoots by millions of Elo (it did, after a clean sweep of the
        // baselines, and the learning-curve plot then never finished).
        let step = (grad / curv * scale).clamp(-MAX_NEWTON_STEP, MAX_NEWTON_STEP);
        rating += step;
        if step.abs() < 1e-6 {
            break;
        }
    }
    let info = information(rating);
    let half = if info > 0.0 {
        1.96 * scale / info.sqrt()
    } else {
        f64::INFINITY
    };
    (rating, half)
}

/// The largest change of rating one Newton step of [`rate_against`] may make, in Elo.
const MAX_NEWTON_STEP: f64 = 100.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn result(opponent: &str, wins: u32, draws: u32, losses: u32) -> MatchResult {
        MatchResult {
            opponent: opponent.to_string(),
            wins,
            draws,
            losses,
        }
    }

    /// The real score minus the expected one at `rating`, virtual draws included: zero at the
    /// fitted rating.
    fn score_gap(rating: f64, opponents: &[(f64, &MatchResult)]) -> f64 {
        opponents
            .iter()
            .map(|(r, m)| {
                let n = f64::from(m.games()) + 1.0;
                m.score() * f64::from(m.games()) + 0.5 - n * expected(rating - r)
            })
            .sum()
    }

    #[test]
    fn a_clean_sweep_rates_finitely_above_every_opponent() {
        // Baselines as `sowing compare`'s learning runs rate them, 10 games each: uncapped
        // Newton steps sent such ratings to 210,858 and -7,533,242.
        let (random, greedy, mcts) = (
            result("random", 10, 0, 0),
            result("greedy", 10, 0, 0),
            result("mcts:100", 10, 0, 0),
        );
        let opponents = [(0.0, &random), (400.0, &greedy), (1500.0, &mcts)];
        let (rating, half) = rate_against(&opponents);
        assert!(rating.is_finite() && half.is_finite(), "{rating} ± {half}");
        assert!(rating > 1500.0 && rating < 2500.0, "{rating}");
        assert!(score_gap(rating, &opponents).abs() < 1e-6);
        let even = result("mcts:100", 5, 0, 5);
        let opponents = [(0.0, &random), (800.0, &greedy), (2500.0, &even)];
        let (rating, half) = rate_against(&opponents);
        assert!(rating.is_finite() && half.is_finite(), "{rating} ± {half}");
        assert!(rating > 800.0 && rating < 2500.0, "{rating}");
        assert!(score_gap(rating, &opponents).abs() < 1e-6);

        let (lost, lost_too) = (result("greedy", 0, 0, 10), result("mcts:100", 0, 0, 10));
        let opponents = [(250.0, &lost), (900.0, &lost_too)];
        let (rating, half) = rate_against(&opponents);
        assert!(rating.is_finite() && half.is_finite());
        assert!(rating < 250.0 && rating > -1500.0, "{rating}");
        assert!(score_gap(rating, &opponents).abs() < 1e-6);
    }

    #[test]
    fn an_even_match_rates_at_the_opponent_with_a_shrinking_interval() {
        let few = result("a", 5, 2, 5);
        let many = result("a", 50, 20, 50);
        let (rating, half) = rate_against(&[(300.0, &few)]);
        assert!((rating - 300.0).abs() < 1e-6);
        let (rating_many, half_many) = rate_against(&[(300.0, &many)]);
        assert!((rating_many - 300.0).abs() < 1e-6);
        assert!(half_many < half / 2.0, "{half_many} vs {half}");
        // 3 wins in 4 against a 0-rated player: 3.5 of 5 with the virtual draw, about 147 Elo.
        let won = result("b", 3, 0, 1);
        let (rating, _) = rate_against(&[(0.0, &won)]);
        let expected_elo = 400.0 * (3.5f64 / 1.5).log10();
        assert!(
            (rating - expected_elo).abs() < 1e-6,
            "{rating} vs {expected_elo}"
        );
    }
}
