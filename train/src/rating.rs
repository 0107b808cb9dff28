//! Rating the network during training: matches against the search baselines, played by the
//! match loop ([`sowing_eval::matches`]) with the network as a batch player (its moves in all games
//! searched together, the baselines' moves spread over threads); Elo ratings from the results
//! (the baselines rated once by a round robin, anchored at `random` = 0); and the network's
//! accuracy on exact positions ([`sowing_eval::accuracy`]), searched in batches the same way.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_agents::AgentSpec;
use sowing_agents::az::Playing;
use sowing_agents::az::puct::{BatchSearch, PuctConfig, SearchSpec, Trees, with_evaluator};
use sowing_env::{Rules, State};
use sowing_eval::accuracy::{self, Accuracy, Trial};
use sowing_eval::matches::{self, BatchPlayer, Match, MatchError, Pairing, Salts, Seat, Tally};
use sowing_eval::stats::wilson_at;
use sowing_exact::positions::ExactPosition;

/// The normal quantile of the trainer's 95% intervals, rounded as in the metrics of every run so
/// far (the rest of the workspace uses [`Z95`](sowing_eval::stats::Z95)), so that a resumed run's
/// figures go on as they began.
pub const Z95_ROUNDED: f64 = 1.96;

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
    /// The result of `tally`'s first seat against `opponent`.
    fn from_tally(opponent: &str, tally: &Tally) -> MatchResult {
        let count = tally.pair_count(0, 1);
        MatchResult {
            opponent: opponent.to_string(),
            wins: count.wins,
            draws: count.draws,
            losses: count.losses,
        }
    }

    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Score rate: wins plus half the draws, over games.
    pub fn score(&self) -> f64 {
        self.points() / f64::from(self.games().max(1))
    }

    /// Wins plus half the draws.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }

    /// Win rate.
    pub fn win_rate(&self) -> f64 {
        f64::from(self.wins) / f64::from(self.games().max(1))
    }

    /// Wilson 95% interval of the win rate.
    pub fn win_interval(&self) -> (f64, f64) {
        wilson_at(Z95_ROUNDED, f64::from(self.wins), f64::from(self.games()))
    }
}

/// A match of the network against one agent.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSetup {
    /// The game.
    pub rules: Rules,
    /// The opponent's agent spec.
    pub opponent: AgentSpec,
    /// Games to play; the network is South in even games and North in odd ones.
    pub games: u32,
    /// Game `g` draws from stream `g` of this seed.
    pub seed: u64,
    /// Threads for the opponent's moves.
    pub threads: usize,
    /// Uniformly random plies before the players take over.
    pub opening: u32,
}

/// The network as a player of many games at once: it searches `config.simulations` per move,
/// without noise, and plays the most visited move. Game `g` keeps its tree from move to move, as
/// the agent `az:` does.
struct Network<'a> {
    net: &'a mut Playing,
    config: PuctConfig,
    search: BatchSearch,
    eval_rng: ChaCha8Rng,
}

impl BatchPlayer for Network<'_> {
    fn name(&self) -> String {
        "network".to_string()
    }

    fn choose_batch(
        &mut self,
        slots: &[usize],
        states: &[State],
        rngs: &mut [ChaCha8Rng],
    ) -> Vec<usize> {
        let Ok(results) = self.search.run(
            states,
            Trees::Kept(slots),
            &SearchSpec::from(self.config),
            rngs,
            with_evaluator(self.net, &mut self.eval_rng),
        );
        results.iter().map(|r| r.search.best_action()).collect()
    }
}

/// Play the match `setup` between the network (searching as `config` says, without noise) and
/// the opponent. `progress` hears the number of games finished.
pub fn play_network_matches(
    net: &mut Playing,
    config: &PuctConfig,
    setup: &MatchSetup,
    progress: &mut dyn FnMut(u32),
) -> Result<MatchResult, MatchError> {
    let mut network = Network {
        net,
        config: config.without_noise(),
        search: BatchSearch::new(),
        eval_rng: ChaCha8Rng::seed_from_u64(setup.seed),
    };
    let m = Match {
        rules: setup.rules,
        seed: setup.seed,
        salts: Salts::RATING,
        opening_plies: setup.opening,
        openings: matches::Openings::Random,
        pairings: vec![Pairing {
            a: 0,
            b: 1,
            games: 0..u64::from(setup.games),
        }],
        threads: setup.threads,
        keep_records: false,
    };
    let mut seats = [
        Seat::Batch(&mut network),
        Seat::Agent {
            spec: setup.opponent.clone(),
            factory: &matches::build,
        },
    ];
    let mut finished = 0;
    let played = matches::play(&m, &mut seats, &mut |_| {
        finished += 1;
        progress(finished);
    })?;
    Ok(MatchResult::from_tally(
        &setup.opponent.to_string(),
        &played.tallies[0],
    ))
}

/// The accuracy of the network, searching as `config` says without noise, on `positions` (of
/// `rules`): each position searched in a tree of its own, [`accuracy::BATCH`] of them together,
/// on streams of `seed`. `progress` hears the number of positions done.
pub fn network_accuracy(
    net: &mut Playing,
    config: &PuctConfig,
    rules: &Rules,
    positions: &[ExactPosition],
    seed: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<Accuracy, MatchError> {
    let mut network = Network {
        net,
        config: config.without_noise(),
        search: BatchSearch::new(),
        eval_rng: ChaCha8Rng::seed_from_u64(seed),
    };
    let trial = Trial {
        rules: *rules,
        positions,
        first: 0,
        seed,
        threads: 1,
    };
    accuracy::measure(&trial, &mut Seat::Batch(&mut network), progress)
}
