//! Strength floors on en-dodoi-8, 200 games per pairing, each agent South in half of them:
//! greedy beats random, and alpha-beta at depth 4 and MCTS with 1000 simulations each beat
//! greedy, in at least 80% of the games. Games run in parallel; the crate is optimised in test
//! builds (see the workspace Cargo.toml), so this takes seconds.

use sowing_env::Rules;
use sowing_eval::arena::{self, ArenaConfig};

fn win_rate(agent: &str, opponent: &str) -> f64 {
    let mut config = ArenaConfig::new(
        Rules::preset("en-dodoi-8").expect("a preset"),
        vec![agent.parse().unwrap(), opponent.parse().unwrap()],
        200,
    );
    config.seed = 2026;
    let report = arena::play(&config, &|_| {}).expect("plays");
    let p = &report.pairings[0];
    assert_eq!(p.games, 200);
    p.wins as f64 / p.games as f64
}

#[test]
fn greedy_beats_random() {
    let rate = win_rate("greedy", "random");
    assert!(
        rate >= 0.8,
        "greedy won {:.1}% against random",
        100.0 * rate
    );
}

#[test]
fn alphabeta_4_beats_greedy() {
    let rate = win_rate("alphabeta:4", "greedy");
    assert!(
        rate >= 0.8,
        "alphabeta:4 won {:.1}% against greedy",
        100.0 * rate
    );
}

#[test]
fn mcts_1000_beats_greedy() {
    let rate = win_rate("mcts:1000", "greedy");
    assert!(
        rate >= 0.8,
        "mcts:1000 won {:.1}% against greedy",
        100.0 * rate
    );
}
