//! The endgame solver: every proof it gives agrees with brute force (every line played out, no
//! table), and given the budget it finds every win and every lost move within its depth.

mod common;

use common::endgames;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_env::{ByPlayer, Outcome, Player, Rules, State, random_action};
use sowing_exact::Solver;

/// Whether the player to move forces a win within `depth` plies, by trying every line.
fn wins_within(state: &State, depth: u32) -> bool {
    let me = state.to_move();
    depth > 0
        && state.legal_actions().any(|a| {
            let child = state.play_unchecked(a);
            match child.outcome() {
                Outcome::Won(p) => p == me,
                Outcome::Draw | Outcome::Truncated => false,
                Outcome::Ongoing => loses_within(&child, depth - 1),
            }
        })
}

/// Whether every move of the player to move lets the opponent force a win within `depth` plies.
fn loses_within(state: &State, depth: u32) -> bool {
    let me = state.to_move();
    depth > 0
        && state.legal_actions().all(|a| {
            let child = state.play_unchecked(a);
            match child.outcome() {
                Outcome::Won(p) => p != me,
                Outcome::Draw | Outcome::Truncated => false,
                Outcome::Ongoing => wins_within(&child, depth - 1),
            }
        })
}

/// Whether the move into `child` by `mover` wins: the opponent, to move there, loses within
/// `depth` plies.
fn move_wins_within(child: &State, mover: Player, depth: u32) -> bool {
    match child.outcome() {
        Outcome::Won(p) => p == mover,
        Outcome::Draw | Outcome::Truncated => false,
        Outcome::Ongoing => loses_within(child, depth),
    }
}

/// Whether the move into `child` by `mover` loses: the opponent, to move there, forces a win
/// within `depth` plies.
fn move_loses_within(child: &State, mover: Player, depth: u32) -> bool {
    match child.outcome() {
        Outcome::Won(p) => p != mover,
        Outcome::Draw | Outcome::Truncated => false,
        Outcome::Ongoing => wins_within(child, depth),
    }
}

#[test]
fn a_win_in_one_is_found_and_its_length_given() {
    // South's only move sows hole 4's seed into hole 5, empty, facing hole 6's 3 seeds: 4 taken,
    // North's row is empty, and South ends 26 to 22.
    //            11 10  9  8  7  6
    //   North     0  0  0  0  0  3    captured 22
    //   South     0  0  0  0  1  0    captured 22
    //             0  1  2  3  4  5
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let mut board = [0u8; 12];
    board[4] = 1;
    board[6] = 3;
    let captured = ByPlayer {
        south: 22,
        north: 22,
    };
    let s = State::new(&rules, &board, captured, Player::South, 40).expect("a position");
    let proof = Solver::new(10).prove(&s, 1_000, 99);
    assert_eq!(proof.winning, Some((4, 1)));
    assert_eq!(proof.losing, 0);
    assert_eq!(proof.depth, 1);
}

#[test]
fn proofs_agree_with_brute_force_and_miss_nothing_within_their_depth() {
    // Depth 7: the mover's wins within 7 plies, the opponent's within 8 after each move.
    const DEPTH: u32 = 7;
    let (mut wins, mut lost_moves, mut lost_positions) = (0, 0, 0);
    for variant in ["en-dodoi-6", "sadeqa-iii", "cross-endodoi"] {
        let mut solver = Solver::new(16);
        for s in endgames(variant, 0..=12, 150, 3) {
            let me = s.to_move();
            let proof = solver.prove(&s, u64::MAX, DEPTH);
            assert!(proof.depth <= DEPTH);
            match proof.winning {
                Some((a, plies)) => {
                    assert!(plies >= 1 && plies <= proof.depth, "{proof:?}");
                    assert!(move_wins_within(&s.play_unchecked(a), me, plies - 1));
                    assert!(wins_within(&s, plies));
                    wins += 1;
                }
                None => {
                    assert!(!wins_within(&s, DEPTH), "a win missed in {s:?}: {proof:?}");
                    let lost = s
                        .legal_actions()
                        .filter(|&a| move_loses_within(&s.play_unchecked(a), me, DEPTH + 1))
                        .fold(0u16, |m, a| m | 1 << a);
                    assert_eq!(proof.losing, lost, "{s:?}");
                    lost_moves += lost.count_ones();
                    if proof.lost(&s) {
                        assert!(loses_within(&s, DEPTH + 1));
                        lost_positions += 1;
                    }
                }
            }
        }
    }
    // The sample holds every kind of verdict.
    assert!(
        wins > 10 && lost_moves > 10 && lost_positions > 2,
        "{wins} {lost_moves} {lost_positions}"
    );
}

#[test]
fn a_small_budget_proves_less_but_never_wrongly() {
    let mut solver = Solver::new(12);
    let mut proved = 0;
    for s in endgames("en-dodoi-8", 0..=16, 60, 5) {
        let me = s.to_move();
        solver.clear();
        let proof = solver.prove(&s, 300, 99);
        assert!(proof.nodes <= 301);
        if let Some((a, plies)) = proof.winning {
            assert!(move_wins_within(&s.play_unchecked(a), me, plies - 1));
            proved += 1;
        }
        for a in s.legal_actions().filter(|&a| proof.losing >> a & 1 == 1) {
            assert!(move_loses_within(&s.play_unchecked(a), me, proof.depth + 1));
            proved += 1;
        }
    }
    assert!(proved > 0);
}

#[test]
fn a_finished_game_has_nothing_to_prove() {
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut s = State::initial(&rules);
    while let Some(a) = random_action(&s, &mut rng) {
        s = s.play_unchecked(a);
    }
    let proof = Solver::new(8).prove(&s, 1_000, 99);
    assert_eq!((proof.winning, proof.losing, proof.nodes), (None, 0, 0));
}
