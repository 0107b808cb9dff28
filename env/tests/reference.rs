//! The engine against the rules as plain code ([`sowing_env::reference`]): seeds dropped one at a
//! time on a `Vec`, laps counted to the cap with no cycle detection, the end of the game and
//! truncation applied as the rules word them. Over random games of every preset and of unusual
//! custom rules, both must agree on every position: board, captures, player to move, legal and
//! endless moves, outcome, and what each move did.
//!
//! The engine packs the board into words and detects cycles early; this test is what lets it do
//! so safely.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_env::reference::Position;
use sowing_env::{
    ByPlayer, Direction, PRESETS, Player, Rules, SownMoves, State, Trigger, random_action,
};

fn assert_agree(engine: &State, naive: &Position) {
    assert_eq!(engine.cells(), naive.board, "board");
    assert_eq!(engine.captures(), naive.captured, "captures");
    assert_eq!(engine.to_move(), naive.to_move);
    assert_eq!(engine.ply(), naive.ply);
    assert_eq!(
        engine.legal_mask(),
        naive.legal,
        "legal moves of {engine:?}"
    );
    assert_eq!(
        engine.endless_mask(),
        naive.endless,
        "endless moves of {engine:?}"
    );
    assert_eq!(engine.outcome(), naive.outcome);
}

/// Every legal move of a position, played by both and compared; the engine also plays it from
/// the sowings its mask kept ([`State::play_sown`]), which must give the same position.
fn check_moves(rules: &Rules, engine: &State, naive: &Position) {
    assert_agree(engine, naive);
    let mut kept = SownMoves::new();
    let fresh = engine.move_captures(&kept);
    engine.sow_legal(&mut kept);
    assert_eq!(
        engine.move_captures(&kept),
        fresh,
        "captures from kept sowings"
    );
    for (a, &capture) in fresh.iter().enumerate().take(rules.holes()) {
        let expected = engine
            .play_with_info(a)
            .map_or(0, |(_, info)| info.captured);
        assert_eq!(u32::from(capture), expected, "capture of action {a}");
    }
    for a in engine.legal_actions() {
        let (next, info) = engine.play_with_info(a).unwrap();
        let mut sown = kept;
        assert_eq!(
            engine.play_sown(a, &mut sown),
            next,
            "action {a} from kept sowings"
        );
        let (naive_next, played) = naive.play(a).expect("legal for both");
        assert_agree(&next, &naive_next);
        assert_eq!(
            (info.laps, info.sown, info.captured, info.last),
            (played.laps, played.sown, played.captured, played.last),
            "what action {a} did from {engine:?}"
        );
    }
}

/// Random games of `rules`: at every position, every legal move is played by both and compared,
/// then one of them at random is followed.
fn compare_games(rules: &Rules, games: u32, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..games {
        let mut engine = State::initial(rules);
        let mut naive = Position::initial(rules);
        // Carried along the game, as the VecEnv does: each move refills it for the next.
        let mut sown = SownMoves::new();
        while let Some(chosen) = random_action(&engine, &mut rng) {
            check_moves(rules, &engine, &naive);
            let next = engine.play(chosen).unwrap();
            assert_eq!(engine.play_sown(chosen, &mut sown), next);
            engine = next;
            naive = naive.play(chosen).expect("legal for both").0;
        }
        assert_agree(&engine, &naive);
    }
}

/// Positions that random play seldom reaches: the seeds scattered over the board at random (so
/// holes of many seeds, and moves of many laps), the rest captured, either player to move.
fn compare_positions(rules: &Rules, positions: u32, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ring = 2 * rules.holes();
    let total = rules.total_seeds() as u32;
    for _ in 0..positions {
        let on_board = rng.random_range(1..=total);
        let mut cells = vec![0u8; ring];
        for _ in 0..on_board {
            cells[rng.random_range(0..ring)] += 1;
        }
        let south = rng.random_range(0..=total - on_board) as u8;
        let captured = ByPlayer::new(south, (total - on_board) as u8 - south);
        let to_move = Player::from_index(rng.random_range(0..2usize)).unwrap();
        let ply = rng.random_range(0..rules.max_plies());
        let engine = State::new(rules, &cells, captured, to_move, ply).unwrap();
        let naive = Position::new(rules, cells.clone(), captured, to_move, ply);
        check_moves(rules, &engine, &naive);
        // Made keeping its sowings, the same position, whose boards after each move are those
        // of the moves played (and so the naive engine's), from the kept sowings or afresh.
        let mut sown = SownMoves::new();
        let kept = State::new_sown(rules, &cells, captured, to_move, ply, &mut sown).unwrap();
        assert_eq!(kept, engine, "made keeping its sowings");
        for a in engine.legal_actions() {
            let board = engine.play_board(a);
            assert_eq!(kept.play_board_sown(a, &sown), board, "action {a}, kept");
            assert_eq!(
                engine.play_board_sown(a, &SownMoves::new()),
                board,
                "action {a}, nothing kept"
            );
            let (_, info) = engine.play_with_info(a).unwrap();
            assert_eq!(board.1, info.captured, "what action {a} captured");
        }
    }
}

/// Rules that stress what the presets do not: skipped origins, parity with `leave`, laps that go
/// round many times, the smallest and the largest boards, and lap caps on either side of where a
/// fast engine might switch strategies.
fn custom_rules() -> Vec<Rules> {
    let base = Rules::preset("en-dodoi-6").unwrap();
    let with = |change: &dyn Fn(&mut sowing_env::RulesSpec)| base.with(change).unwrap();
    vec![
        with(&|r| r.skip_origin = true),
        with(&|r| {
            r.seeds = 12;
            r.skip_origin = true;
        }),
        with(&|r| {
            r.direction = Direction::Parity;
            r.trigger = Trigger::Leave;
            r.skip_origin = true;
        }),
        with(&|r| {
            r.holes = 3;
            r.seeds = 20;
        }),
        with(&|r| {
            r.holes = 1;
            r.seeds = 3;
            r.direction = Direction::Parity;
        }),
        with(&|r| {
            r.holes = 16;
            r.seeds = 7;
        }),
        with(&|r| {
            r.holes = 11;
            r.seeds = 11;
            r.trigger = Trigger::Leave;
        }),
        with(&|r| {
            r.max_laps = 3;
            r.max_plies = 20;
        }),
        with(&|r| r.max_laps = 1),
        with(&|r| r.max_laps = 47),
        with(&|r| r.max_laps = 49),
        with(&|r| r.max_laps = 64),
        with(&|r| {
            r.holes = 8;
            r.seeds = 15;
            r.max_laps = 200;
        }),
    ]
}

/// Sowings kept for another position, another mover or other rules are never used: the move is
/// sown afresh and the result is still right.
#[test]
fn foreign_sowings_are_not_used() {
    let rules = Rules::preset("en-dodoi-8").unwrap();
    let start = State::initial(&rules);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut positions = vec![start];
    let mut s = start;
    while let Some(a) = random_action(&s, &mut rng) {
        s = s.play(a).unwrap();
        positions.push(s);
    }
    // Rules that differ only in how laps go, on the same boards.
    let others: Vec<Rules> = [Direction::Parity]
        .iter()
        .map(|&d| rules.with(|r| r.direction = d).unwrap())
        .chain([rules.with(|r| r.skip_origin = true).unwrap()])
        .collect();
    for (i, p) in positions.iter().enumerate() {
        let other = positions[(i * 7 + 3) % positions.len()];
        let mut sown = SownMoves::new();
        other.sow_legal(&mut sown);
        for a in p.legal_actions() {
            assert_eq!(p.play_sown(a, &mut sown.clone()), p.play(a).unwrap());
        }
        for rules in &others {
            let twin = State::new(rules, &p.cells(), p.captures(), p.to_move(), p.ply()).unwrap();
            let mut sown = SownMoves::new();
            twin.sow_legal(&mut sown);
            for a in p.legal_actions() {
                assert_eq!(p.play_sown(a, &mut sown.clone()), p.play(a).unwrap());
            }
        }
    }
}

#[test]
fn preset_games_agree_with_the_naive_rules() {
    for (i, name) in PRESETS.iter().enumerate() {
        compare_games(&Rules::preset(name).unwrap(), 300, i as u64);
    }
}

#[test]
fn custom_games_agree_with_the_naive_rules() {
    for (i, rules) in custom_rules().iter().enumerate() {
        compare_games(rules, 150, 100 + i as u64);
    }
}

#[test]
fn scattered_positions_agree_with_the_naive_rules() {
    let presets = PRESETS.iter().map(|name| Rules::preset(name).unwrap());
    for (i, rules) in presets.chain(custom_rules()).enumerate() {
        compare_positions(&rules, 2000, 200 + i as u64);
    }
}
