//! The hybrid alpha-beta (`alphabeta:...:net=RUN`) against plain minimax over the same leaf
//! values: with a network's scores at the leaves, batched a node at a time and kept in a cache,
//! and its policy ordering the moves, the value at depth d must still be exactly minimax's.
//! The network here is a stand-in evaluator, a fixed function of the position, so that the test
//! needs no libtorch.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, AlphaBeta, Budget, Evaluation, Evaluator, NetworkLeaves};
use sowing_env::{MAX_HOLES, Rules, State, random_action};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A fixed, bumpy value of a position (not monotone in the static value, so that the move
/// ordering and the cache are put to work), and priors that favour the last holes. It counts
/// the positions it is asked to value.
struct StandIn {
    calls: Arc<AtomicU64>,
}

fn stand_in_value(state: &State) -> f32 {
    let v = AlphaBeta::static_value(state) as i64 * 7 + state.ply() as i64 * 3;
    (v.rem_euclid(13) - 6) as f32 / 6.5
}

impl Evaluator for StandIn {
    fn evaluate(&mut self, state: &State, _rng: &mut ChaCha8Rng) -> Evaluation {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let mut priors = [0.0f32; MAX_HOLES];
        let mut total = 0.0;
        for a in state.legal_actions() {
            priors[a] = (a + 1) as f32;
            total += priors[a];
        }
        for p in &mut priors {
            *p /= total;
        }
        Evaluation {
            priors,
            value: stand_in_value(state),
        }
    }
}

fn hybrid(rules: &Rules, budget: Budget) -> (AlphaBeta, Arc<AtomicU64>) {
    let calls = Arc::new(AtomicU64::new(0));
    let leaves = NetworkLeaves::new(
        Box::new(StandIn {
            calls: Arc::clone(&calls),
        }),
        rules.holes(),
    );
    (
        AlphaBeta::new(budget).with_network(leaves, "stand-in"),
        calls,
    )
}

fn minimax(state: &State, depth: u32) -> i32 {
    if state.is_over() {
        return AlphaBeta::static_value(state);
    }
    if depth == 0 {
        return NetworkLeaves::score(stand_in_value(state));
    }
    state
        .legal_actions()
        .map(|a| -minimax(&state.play_unchecked(a), depth - 1))
        .max()
        .expect("a game not over has a legal move")
}

/// Positions of random games, every `step`-th one not over.
fn positions(rules: &Rules, games: usize, step: usize, seed: u64) -> Vec<State> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut s = State::initial(rules);
        let mut i = 0;
        while let Some(a) = random_action(&s, &mut rng) {
            if i % step == 0 {
                out.push(s);
            }
            s = s.play_unchecked(a);
            i += 1;
        }
    }
    out
}

#[test]
fn a_hybrid_equals_minimax_over_the_network_scores_at_every_depth() {
    for (name, games, max_depth) in [("en-dodoi-6", 3, 5), ("sadeqa-iii", 2, 3)] {
        let rules = Rules::preset(name).expect("a preset");
        let (mut agent, _) = hybrid(&rules, Budget::Count(1));
        for state in positions(&rules, games, 9, 3) {
            agent.new_game();
            // One game's cache serves every depth: what it keeps must not change a value.
            for depth in 1..=max_depth {
                let (best, value) = agent.search(&state, depth);
                assert_eq!(
                    value,
                    minimax(&state, depth),
                    "{name} depth {depth} {state:?}"
                );
                let best = best.expect("a move");
                assert_eq!(-minimax(&state.play_unchecked(best), depth - 1), value);
            }
        }
    }
}

#[test]
fn a_hybrid_values_each_position_once_a_game_and_names_its_network() {
    let rules = Rules::preset("en-dodoi-8").expect("a preset");
    let start = State::initial(&rules);
    let (mut agent, calls) = hybrid(&rules, Budget::Count(3));
    assert_eq!(agent.name(), "alphabeta:3:net=stand-in");
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let first = agent.choose(&start, &mut rng);
    let valued = calls.load(Ordering::Relaxed);
    assert!(valued > 8, "{valued}");
    assert_eq!(agent.network_evaluations(), valued);
    // The same search again within the game finds every leaf in the cache.
    assert_eq!(agent.choose(&start, &mut rng), first);
    assert_eq!(calls.load(Ordering::Relaxed), valued);
    // A new game forgets them, and plays the same.
    agent.new_game();
    assert_eq!(agent.choose(&start, &mut rng), first);
    assert_eq!(calls.load(Ordering::Relaxed), 2 * valued);
    // The static search makes no use of a network.
    assert_eq!(AlphaBeta::new(Budget::Count(3)).network_evaluations(), 0);
}

#[test]
fn a_hybrid_refuses_a_board_its_network_was_not_trained_on() {
    let (agent, _) = hybrid(
        &Rules::preset("en-dodoi-8").expect("a preset"),
        Budget::Count(2),
    );
    let six = Rules::preset("en-dodoi-6").expect("a preset");
    let err = agent.can_play(&six).expect_err("8 holes against 6");
    assert!(
        err.contains("trained on 8 holes per row and cannot value a 6-hole game"),
        "{err}"
    );
    assert!(
        agent
            .can_play(&Rules::preset("sadeqa-iii").expect("a preset"))
            .is_ok()
    );
}

#[test]
fn a_timed_hybrid_stops_on_time_with_a_legal_move() {
    let rules = Rules::preset("en-dodoi-8").expect("a preset");
    let (mut agent, _) = hybrid(&rules, Budget::Time(std::time::Duration::from_millis(20)));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut s = State::initial(&rules);
    for _ in 0..6 {
        let t = std::time::Instant::now();
        let a = agent.choose(&s, &mut rng);
        assert!(s.is_legal(a));
        assert!(t.elapsed() < std::time::Duration::from_secs(2));
        assert!(agent.last_search().depth >= 1);
        s = s.play_unchecked(a);
    }
}
