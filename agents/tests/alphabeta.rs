//! Alpha-beta against plain minimax: with pruning, the transposition table and move ordering,
//! the value at depth d must be exactly minimax's over the same evaluation, on positions small
//! enough to search fully.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, AlphaBeta, Budget};
use sowing_env::{Rules, RulesSpec, State, random_action};

fn minimax(state: &State, depth: u32) -> i32 {
    if depth == 0 || state.is_over() {
        return AlphaBeta::static_value(state);
    }
    state
        .legal_actions()
        .map(|a| -minimax(&state.play_unchecked(a), depth - 1))
        .max()
        .expect("a game not over has a legal move")
}

/// Positions of random games on `rules`, `per_game` from each, not over.
fn positions(rules: &Rules, games: usize, seed: u64) -> Vec<State> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = vec![State::initial(rules)];
        while let Some(a) = random_action(game.last().expect("not empty"), &mut rng) {
            let s = game.last().expect("not empty").play_unchecked(a);
            game.push(s);
        }
        game.retain(|s| !s.is_over());
        // Near the end (small trees) and one anywhere.
        out.extend(game.iter().rev().take(3));
        out.push(game[rng.random_range(0..game.len())]);
    }
    out
}

fn tiny() -> Rules {
    Rules::new(RulesSpec {
        holes: 3,
        seeds: 1,
        ..Rules::preset("en-dodoi-6").expect("a preset").spec()
    })
    .expect("valid rules")
}

#[test]
fn alphabeta_equals_minimax_at_every_depth() {
    for (rules, games, max_depth) in [
        (tiny(), 10, 10),
        (Rules::preset("en-dodoi-6").expect("a preset"), 8, 5),
        (Rules::preset("en-dodoi-8").expect("a preset"), 6, 4),
        (Rules::preset("sadeqa-iii").expect("a preset"), 4, 4),
        (Rules::preset("cross-endodoi").expect("a preset"), 6, 5),
    ] {
        let mut agent = AlphaBeta::new(Budget::Count(1));
        for state in positions(&rules, games, 11) {
            for depth in 1..=max_depth {
                agent.new_game();
                let (best, value) = agent.search(&state, depth);
                assert_eq!(
                    value,
                    minimax(&state, depth),
                    "depth {depth} on {state:?} ({})",
                    rules.summary()
                );
                // The move it gives is one that reaches that value.
                let best = best.expect("a move");
                assert_eq!(-minimax(&state.play_unchecked(best), depth - 1), value);
            }
        }
    }
}

#[test]
fn a_finished_game_has_its_outcome_as_value() {
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut s = State::initial(&rules);
    while let Some(a) = random_action(&s, &mut rng) {
        s = s.play_unchecked(a);
    }
    let mut agent = AlphaBeta::new(Budget::Count(3));
    let (best, value) = agent.search(&s, 3);
    assert_eq!(best, None);
    assert_eq!(value, AlphaBeta::static_value(&s));
}

#[test]
fn a_depth_budget_is_reproducible_and_reports_its_search() {
    let rules = Rules::preset("en-dodoi-8").expect("a preset");
    let start = State::initial(&rules);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut a = AlphaBeta::new(Budget::Count(6));
    let mut b = AlphaBeta::new(Budget::Count(6));
    assert_eq!(a.choose(&start, &mut rng), b.choose(&start, &mut rng));
    assert_eq!(a.last_search(), b.last_search());
    assert_eq!(a.last_search().depth, 6);
    assert!(a.last_search().nodes > 100);
}

#[test]
fn a_time_budget_deepens_until_the_time_is_up() {
    let rules = Rules::preset("en-dodoi-8").expect("a preset");
    let start = State::initial(&rules);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut agent = AlphaBeta::new(Budget::Time(std::time::Duration::from_millis(30)));
    let t = std::time::Instant::now();
    let action = agent.choose(&start, &mut rng);
    assert!(start.is_legal(action));
    // Depth 1 always completes; the clock stops the deepening soon after the budget.
    assert!(agent.last_search().depth >= 1);
    assert!(t.elapsed() < std::time::Duration::from_secs(2));
}
