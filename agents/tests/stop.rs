//! Stopping a search from outside: alpha-beta, MCTS and the solver ask their `Stop` at a fixed
//! cadence, give up as soon as it says so, and still answer with a legal move; without a `Stop`
//! they search to their budget as before.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, AlphaBeta, Budget, Mcts, from_spec};
use sowing_env::{Rules, State};
use sowing_exact::{Solver, Stop};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// A `Stop` that says no `k - 1` times and yes from the `k`-th question on, and the count of
/// questions asked.
fn stop_at_question(k: u32) -> (Stop, Arc<AtomicU32>) {
    let asked = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&asked);
    let stop = Stop::when(move || counter.fetch_add(1, Ordering::Relaxed) + 1 >= k);
    (stop, asked)
}

fn start(variant: &str) -> State {
    State::initial(&Rules::preset(variant).unwrap())
}

#[test]
fn alphabeta_gives_up_when_told_and_still_plays_a_legal_move() {
    let state = start("en-dodoi-10");
    let mut agent = AlphaBeta::new(Budget::Count(AlphaBeta::MAX_DEPTH));
    let (stop, asked) = stop_at_question(3);
    agent.set_stop(stop);
    let action = agent.choose(&state, &mut ChaCha8Rng::seed_from_u64(0));
    assert!(state.is_legal(action));
    assert_eq!(
        asked.load(Ordering::Relaxed),
        3,
        "asked until it said yes, then no more"
    );
    // Asked every 1,024 nodes or a few more (a node's children are counted together): the
    // third question comes before node 3,072.
    assert!(
        agent.last_search().nodes < 3072,
        "{:?}",
        agent.last_search()
    );
}

#[test]
fn mcts_gives_up_when_told_after_whole_rounds_of_simulations() {
    let state = start("en-dodoi-8");
    let mut agent = Mcts::new(Budget::Count(sowing_agents::MAX_SIMULATIONS));
    let (stop, asked) = stop_at_question(2);
    agent.set_stop(stop);
    let action = agent.choose(&state, &mut ChaCha8Rng::seed_from_u64(0));
    assert!(state.is_legal(action));
    assert_eq!(asked.load(Ordering::Relaxed), 2);
    assert_eq!(
        agent.last_search().simulations,
        32,
        "asked after every 16 simulations"
    );
}

#[test]
fn a_stop_asked_at_once_still_leaves_one_simulation_to_choose_from() {
    let state = start("sadeqa-iii");
    let mut agent = Mcts::new(Budget::Count(1000));
    agent.set_stop(Stop::when(|| true));
    let action = agent.choose(&state, &mut ChaCha8Rng::seed_from_u64(1));
    assert!(state.is_legal(action));
    assert_eq!(agent.last_search().simulations, 16);
}

#[test]
fn solver_stops_as_if_its_budget_were_spent() {
    let state = start("en-dodoi-6");
    let mut solver = Solver::new(16);
    let (stop, asked) = stop_at_question(2);
    solver.set_stop(stop);
    let proof = solver.prove(&state, u64::MAX, 61);
    assert_eq!(asked.load(Ordering::Relaxed), 2);
    // Asked at the first position and again 4,096 positions later, where it stops.
    assert_eq!(proof.nodes, 4097);
    assert_eq!(proof.winning, None);
    let unbounded = Solver::new(16).prove(&state, 4096, 61);
    assert_eq!(
        (proof.winning, proof.losing, proof.depth),
        (unbounded.winning, unbounded.losing, unbounded.depth),
        "stopping keeps what a budget of the same size proves"
    );
}

#[test]
fn a_stop_that_never_says_yes_changes_nothing() {
    let state = start("en-dodoi-8").play(3).unwrap();
    for spec in ["alphabeta:5", "mcts:300"] {
        let plain = from_spec(spec)
            .unwrap()
            .choose(&state, &mut ChaCha8Rng::seed_from_u64(7));
        let mut asked = from_spec(spec).unwrap();
        asked.set_stop(Stop::when(|| false));
        let action = asked.choose(&state, &mut ChaCha8Rng::seed_from_u64(7));
        assert_eq!(action, plain, "{spec}");
    }
}

#[test]
fn agents_that_answer_at_once_ignore_their_stop() {
    let state = start("en-dodoi-8");
    let mut greedy = from_spec("greedy").unwrap();
    greedy.set_stop(Stop::when(|| true));
    assert_eq!(greedy.choose(&state, &mut ChaCha8Rng::seed_from_u64(0)), 7);
}
