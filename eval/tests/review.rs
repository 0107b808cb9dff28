//! Reviews of games against perfect play: over many random games of small rule sets (where the
//! exact search settles every position), a game's result differs from its opening's perfect-play
//! value only through errors of the side that lost by it; and the per-agent sums add up.

#[path = "../../exact/tests/common/mod.rs"]
mod common;

use common::rules;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_env::{GameRecord, Player, Rules, State};
use sowing_eval::review::{review_game, review_game_labelled, summarize};
use sowing_exact::{ResultSearch, Wdl};

/// A random game of `rules` from the start, as a record with agent tags.
fn random_record(rules: &Rules, rng: &mut ChaCha8Rng, south: &str, north: &str) -> GameRecord {
    let mut state = State::initial(rules);
    let mut moves = Vec::new();
    while !state.is_over() {
        let actions: Vec<usize> = state.legal_actions().collect();
        let a = actions[rng.random_range(0..actions.len())];
        moves.push(a);
        state = state.play(a).unwrap();
    }
    let mut record = GameRecord::from_moves(rules, &moves).unwrap();
    record.tags.insert("south".into(), south.into());
    record.tags.insert("north".into(), north.into());
    record
}

#[test]
fn a_result_below_the_openings_value_is_the_losers_error() {
    let rules = rules(3, 2, |_| {});
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut search = ResultSearch::new(16);
    let mut reviews = Vec::new();
    let (mut swings, mut errors) = (0, 0);
    for g in 0..200 {
        let (south, north) = if g % 2 == 0 { ("a", "b") } else { ("b", "a") };
        let record = random_record(&rules, &mut rng, south, north);
        let opening = g % 3;
        if record.moves.len() <= opening {
            continue;
        }
        let review = review_game(&record, opening, &mut search, 1_000_000).unwrap();
        assert_eq!(review.moves.len(), record.moves.len() - opening);
        let opening_value = review.opening.expect("a small game settles");
        // Along the game the mover's result never rises by its own move, and the next position's
        // value (for its mover) is the opposite of the move's result.
        for pair in review.moves.windows(2) {
            let (m, next) = (pair[0], pair[1]);
            assert!(m.after.unwrap() <= m.before.unwrap());
            assert_eq!(m.after.unwrap().flip(), next.before.unwrap());
        }
        for m in &review.moves {
            assert!(!m.critical || m.before.is_some());
            assert!(
                m.error() != Some(true) || m.critical,
                "an error is in a critical position"
            );
        }
        let erred = |p: Player| {
            review
                .moves
                .iter()
                .any(|m| m.player == p && m.error() == Some(true))
        };
        // South's result below the opening's value: South erred; above it: North did.
        if review.result < opening_value {
            assert!(erred(Player::South), "game {g}: {review:?}");
        }
        if review.result > opening_value {
            assert!(erred(Player::North), "game {g}: {review:?}");
        }
        swings += usize::from(review.result != opening_value);
        errors += review
            .moves
            .iter()
            .filter(|m| m.error() == Some(true))
            .count();
        reviews.push(review);
    }
    // Random play errs often, and the results swing with it.
    assert!(
        swings > 20 && errors > swings,
        "{swings} swings, {errors} errors"
    );

    let agents = summarize(&reviews);
    assert_eq!(agents.len(), 2);
    let (a, b) = (&agents["a"], &agents["b"]);
    assert_eq!(a.games as usize, reviews.len());
    // Every game is settled, so score = due + gained - lost, and one side's gain is the other's loss.
    for x in [a, b] {
        assert_eq!(x.settled_games, x.games);
        assert!((x.score - (x.opening_score + x.gained - x.lost)).abs() < 1e-9);
        assert_eq!(x.settled_moves, x.moves);
        assert!(x.errors <= x.critical_moves);
    }
    assert!((a.gained - b.lost).abs() < 1e-9 && (a.lost - b.gained).abs() < 1e-9);
    assert!((a.score + b.score - a.games as f64).abs() < 1e-9);
}

#[test]
fn perfect_play_gives_away_nothing_and_scores_what_the_opening_gave() {
    // Both sides play a move that keeps the result; the game ends as its start says.
    let rules = rules(3, 2, |_| {});
    let mut search = ResultSearch::new(16);
    let mut state = State::initial(&rules);
    let mut moves = Vec::new();
    while !state.is_over() {
        let results = search.move_results(&state, 1_000_000).unwrap();
        let best = results.iter().map(|&(_, w)| w).max().unwrap();
        let (a, _) = *results.iter().find(|&&(_, w)| w == best).unwrap();
        moves.push(a);
        state = state.play(a).unwrap();
    }
    let record = GameRecord::from_moves(&rules, &moves).unwrap();
    let review = review_game(&record, 0, &mut search, 1_000_000).unwrap();
    assert!(review.moves.iter().all(|m| m.error() == Some(false)));
    assert_eq!(Some(review.result), review.opening);
    let agents = summarize(&[review]);
    assert_eq!(agents["South"].errors, 0);
    assert_eq!(agents["North"].lost, 0.0);
    // With a budget of one position the start is not settled (the last plies may be), and an
    // unsettled position is neither an error nor critical.
    let review = review_game(&record, 0, &mut ResultSearch::new(16), 1).unwrap();
    assert_eq!(review.opening, None::<Wdl>);
    assert_eq!(review.moves[0].error(), None);
    assert!(
        review
            .moves
            .iter()
            .all(|m| m.error().is_some() || !m.critical)
    );
}

#[test]
fn an_illegal_record_is_an_error() {
    let rules = rules(3, 2, |_| {});
    let mut record = GameRecord::from_moves(&rules, &[0]).unwrap();
    record.moves.push(7);
    let err = review_game(&record, 0, &mut ResultSearch::new(12), 1000).unwrap_err();
    assert!(err.to_string().contains("7"), "{err}");
}

#[test]
fn the_labelled_positions_are_the_critical_moves_positions() {
    // Random games of a small rule set: every position the review calls critical comes back
    // labelled, in the order played, with the result the review gave it and every legal move;
    // and an agent's error is a move the labels say gives the result away.
    let rules = rules(3, 2, |_| {});
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut search = ResultSearch::new(16);
    let mut total = 0;
    for _ in 0..60 {
        let record = random_record(&rules, &mut rng, "a", "b");
        let (review, positions) = review_game_labelled(&record, 0, &mut search, 1_000_000).unwrap();
        let critical: Vec<_> = review.moves.iter().filter(|m| m.critical).collect();
        assert_eq!(positions.len(), critical.len());
        let mut state = State::initial(&rules);
        let mut states = Vec::new();
        for &a in &record.moves {
            states.push(state);
            state = state.play(a).unwrap();
        }
        for (m, p) in critical.iter().zip(&positions) {
            assert_eq!(p.state, states[m.ply as usize]);
            assert_eq!(Some(p.result), m.before);
            let played = p.moves.iter().find(|l| l.action == m.action).unwrap();
            assert_eq!(Some(played.result), m.after);
            assert_eq!(m.error(), Some(p.keeps_result() >> m.action & 1 == 0));
            // Critical: some legal move gives the result away.
            let legal = p.moves.iter().fold(0u16, |bits, l| bits | 1 << l.action);
            assert_ne!(p.keeps_result(), legal);
        }
        // The same review as review_game's.
        assert_eq!(
            review,
            review_game(&record, 0, &mut search, 1_000_000).unwrap()
        );
        total += positions.len();
    }
    assert!(total > 30, "{total} critical positions in 60 random games");
}
