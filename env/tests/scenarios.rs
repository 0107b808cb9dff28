//! Scenario tests: every worked example of RULES.md, and a hand-worked position for each rule the
//! examples do not reach (captures under both triggers, the empty facing hole, the end of the
//! game, truncation, `skip_origin`, the lap cap). Each test draws the board as South sees it,
//! plays one move, and checks the whole board, what the move did, and who moves next.

use sowing_env::{
    ByPlayer, Error, IllegalReason, MoveInfo, Outcome, Player, Rules, RulesSpec, State, Trigger,
};

/// A board drawn as in RULES.md: the first line is North's row as South sees it (holes `2n-1`
/// down to `n`, left to right), the second South's row (holes `0` to `n-1`). Returns holes
/// `0..2n` in the numbering of RULES.md.
fn drawn(picture: &str) -> Vec<u8> {
    let rows: Vec<Vec<u8>> = picture
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 2, "a board is drawn as two rows");
    assert_eq!(rows[0].len(), rows[1].len(), "both rows have n holes");
    let mut cells = rows[1].clone();
    cells.extend(rows[0].iter().rev());
    cells
}

fn preset(name: &str) -> Rules {
    Rules::preset(name).unwrap()
}

fn rules(holes: u32, seeds: u32, change: impl FnOnce(&mut RulesSpec)) -> Rules {
    let mut spec = Rules::preset("en-dodoi-6").unwrap().spec();
    spec.holes = holes;
    spec.seeds = seeds;
    change(&mut spec);
    Rules::new(spec).unwrap()
}

fn position(rules: &Rules, picture: &str, captured: (u8, u8), to_move: Player, ply: u32) -> State {
    State::new(
        rules,
        &drawn(picture),
        ByPlayer::new(captured.0, captured.1),
        to_move,
        ply,
    )
    .unwrap()
}

/// Plays `action` and checks laps, seeds sown and seeds captured by the move.
fn play(state: &State, action: usize, laps: u32, sown: u32, captured: u32) -> State {
    let (next, info) = state.play_with_info(action).unwrap();
    assert_eq!(
        (info.laps, info.sown, info.captured),
        (laps, sown, captured),
        "laps, seeds sown and captured by action {action}"
    );
    next
}

fn legal(state: &State) -> Vec<usize> {
    state.legal_actions().collect()
}

#[test]
fn drawing_follows_the_numbering_of_the_rules() {
    assert_eq!(
        drawn(
            "11 10 9 8 7 6
              0  1 2 3 4 5"
        ),
        vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    );
}

#[test]
fn en_dodoi_8_first_move_action_0() {
    let start = State::initial(&preset("en-dodoi-8"));
    let next = play(&start, 0, 5, 25, 0);
    assert_eq!(
        next.cells(),
        drawn(
            "5 0 5 5 5 5 1 6
             1 6 6 0 1 6 6 6"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(0, 0));
    assert_eq!((next.to_move(), next.ply()), (Player::North, 1));
    assert_eq!(next.outcome(), Outcome::Ongoing);
}

#[test]
fn en_dodoi_8_first_move_action_3() {
    let start = State::initial(&preset("en-dodoi-8"));
    let next = play(&start, 3, 5, 25, 0);
    assert_eq!(
        next.cells(),
        drawn(
            "5 5 5 1 6 6 6 6
             5 0 5 1 6 6 0 1"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(0, 0));
    assert_eq!(next.to_move(), Player::North);
}

#[test]
fn en_dodoi_8_first_move_action_7_captures_seven() {
    let start = State::initial(&preset("en-dodoi-8"));
    let next = play(&start, 7, 5, 25, 7);
    assert_eq!(
        next.cells(),
        drawn(
            "0 6 6 6 1 0 6 6
             0 5 5 5 5 0 5 1"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(7, 0));
    assert_eq!(next.to_move(), Player::North);
}

#[test]
fn en_dodoi_alias_is_en_dodoi_8() {
    assert_eq!(preset("en-dodoi"), preset("en-dodoi-8"));
}

#[test]
fn sadeqa_iii_first_move_action_0_leaves_the_capturing_seed() {
    let start = State::initial(&preset("sadeqa-iii"));
    let next = play(&start, 0, 5, 36, 8);
    assert_eq!(
        next.cells(),
        drawn(
            "8 8 1 0 0 8 8 8
             2 9 9 9 1 8 1 8"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(8, 0));
    assert_eq!(next.to_move(), Player::North);
}

#[test]
fn sadeqa_iii_first_move_action_4() {
    let start = State::initial(&preset("sadeqa-iii"));
    let next = play(&start, 4, 5, 36, 0);
    assert_eq!(
        next.cells(),
        drawn(
            "8 8 8 8 8 1 8 1
             0 1 8 8 2 9 9 9"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(0, 0));
}

#[test]
fn cross_endodoi_first_move_sows_each_lap_by_parity() {
    // Lifts 3 (odd: clockwise) into 11, 10, 9; 4 from 9 into 10, 11, 0, 1; 4 from 1 into 2..5;
    // 4 from 5 into 6..9, where hole 9 was empty: 4 laps, 15 seeds, no capture in North's row.
    let start = State::initial(&preset("cross-endodoi"));
    let next = play(&start, 0, 4, 15, 0);
    assert_eq!(
        next.cells(),
        drawn(
            "5 5 1 4 4 4
             1 0 4 4 4 0"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(0, 0));
    assert_eq!(next.to_move(), Player::North);
}

/// The endless example of RULES.md: En Dodoi 2x6, North to move.
fn endless_example() -> State {
    position(
        &preset("en-dodoi-6"),
        "4 1 2 3 4 1
         5 1 0 2 1 0",
        (12, 12),
        Player::North,
        30,
    )
}

#[test]
fn endless_move_is_masked_out() {
    let s = endless_example();
    assert_eq!(s.endless_mask(), 1 << 5, "action 5 (hole 11) is endless");
    assert_eq!(s.legal_mask() & 1 << 5, 0);
    // Every other North hole holds seeds and its sowing ends.
    assert_eq!(legal(&s), vec![0, 1, 2, 3, 4]);
    match s.play(5) {
        Err(Error::IllegalAction {
            action: 5,
            reason: IllegalReason::Endless,
            legal,
        }) => assert_eq!(legal, vec![0, 1, 2, 3, 4]),
        other => panic!("expected an endless-move error, got {other:?}"),
    }
    let message = s.play(5).unwrap_err().to_string();
    assert!(message.contains("endless"), "{message}");
}

#[test]
fn endless_move_comes_back_to_its_start_after_39_laps() {
    // Sow North's action 5 seed by seed and record every lap start (board after the lift, hole,
    // seeds in hand): the 40th lap starts exactly as the first did, lifting 4 seeds from hole 11.
    let s = endless_example();
    let mut board = s.cells();
    let ring = board.len();
    let mut hole = 11;
    let mut starts = Vec::new();
    for _ in 0..40 {
        let hand = board[hole];
        board[hole] = 0;
        starts.push((board.clone(), hole, hand));
        let mut at = hole;
        for _ in 0..hand {
            at = (at + 1) % ring;
            board[at] += 1;
        }
        assert!(board[at] > 1, "the example never ends");
        hole = at;
    }
    assert_eq!(starts[39], starts[0]);
    assert_eq!((starts[0].1, starts[0].2), (11, 4));
    assert!(starts[1..39].iter().all(|st| *st != starts[0]));
}

#[test]
fn lap_cap_decides_endless_exactly() {
    // From the start of En Dodoi 2x8, actions 0, 3 and 7 end after exactly 5 laps: legal with a
    // cap of 5 laps, endless with a cap of 4.
    let five = preset("en-dodoi-8").with(|r| r.max_laps = 5).unwrap();
    let four = preset("en-dodoi-8").with(|r| r.max_laps = 4).unwrap();
    let (s5, s4) = (State::initial(&five), State::initial(&four));
    for a in [0, 3, 7] {
        assert!(s5.is_legal(a), "action {a} ends at the cap");
        assert!(!s4.is_legal(a), "action {a} passes the cap");
        assert_ne!(s4.endless_mask() & 1 << a, 0);
    }
    // Moves that end within the cap are unaffected, and a hole is endless or legal, never both.
    assert_eq!(s4.legal_mask() & s4.endless_mask(), 0);
    assert_eq!(s4.legal_mask() | s4.endless_mask(), 0xFF);
}

#[test]
fn single_seed_into_empty_hole_with_empty_facing_captures_nothing() {
    // South lifts the single seed of hole 0 into hole 1, which is empty; hole 10 opposite is empty
    // too, so nothing is captured and the seed stays.
    let r = preset("en-dodoi-6");
    let s = position(
        &r,
        "0 0 0 0 0 3
         1 0 0 0 0 2",
        (20, 22),
        Player::South,
        4,
    );
    let next = play(&s, 0, 1, 1, 0);
    assert_eq!(
        next.cells(),
        drawn(
            "0 0 0 0 0 3
             0 1 0 0 0 2"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(20, 22));
    assert_eq!((next.to_move(), next.ply()), (Player::North, 5));
    assert_eq!(legal(&next), vec![0]);
}

/// South's last seed falls into its empty hole 1, facing hole 10 with 3 seeds.
fn capture_position(trigger: Trigger) -> State {
    let r = rules(6, 4, |s| s.trigger = trigger);
    position(
        &r,
        "0 3 0 0 0 1
         1 0 0 0 0 2",
        (20, 21),
        Player::South,
        0,
    )
}

#[test]
fn capture_under_take_includes_the_capturing_seed() {
    let next = play(&capture_position(Trigger::Take), 0, 1, 1, 4);
    assert_eq!(
        next.cells(),
        drawn(
            "0 0 0 0 0 1
             0 0 0 0 0 2"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(24, 21));
}

#[test]
fn capture_under_leave_keeps_the_capturing_seed() {
    let next = play(&capture_position(Trigger::Leave), 0, 1, 1, 3);
    assert_eq!(
        next.cells(),
        drawn(
            "0 0 0 0 0 1
             0 1 0 0 0 2"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(23, 21));
}

#[test]
fn no_capture_when_the_move_ends_in_the_opponents_row() {
    // South's 2 seeds from hole 4 go into 5 and 6; hole 6 was empty but is North's.
    let s = position(
        &preset("en-dodoi-6"),
        "3 0 0 0 0 0
         0 0 0 0 2 1",
        (20, 22),
        Player::South,
        0,
    );
    let (next, info) = s.play_with_info(4).unwrap();
    assert_eq!(
        info,
        MoveInfo {
            laps: 1,
            sown: 2,
            captured: 0,
            last: 6
        }
    );
    assert_eq!(
        next.cells(),
        drawn(
            "3 0 0 0 0 1
             0 0 0 0 0 2"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(20, 22));
    // North's actions are relative: action 0 is hole 6, action 5 is hole 11.
    assert_eq!(legal(&next), vec![0, 5]);
}

#[test]
fn game_ends_when_the_mover_has_no_move_and_the_last_mover_takes_the_rest() {
    // South sows hole 0 into empty hole 1 (hole 10 opposite is empty): North's row is empty, so the
    // game ends and the 2 seeds left go to South, who made the last move.
    let s = position(
        &preset("en-dodoi-6"),
        "0 0 0 0 0 0
         1 0 0 0 0 1",
        (20, 26),
        Player::South,
        9,
    );
    let next = play(&s, 0, 1, 1, 0);
    assert_eq!(next.cells(), vec![0; 12]);
    assert_eq!(next.captures(), ByPlayer::new(22, 26));
    assert_eq!(next.outcome(), Outcome::Won(Player::North));
    assert!(next.is_terminal() && !next.is_truncated() && next.is_over());
    assert_eq!(next.legal_mask(), 0);
    assert_eq!(next.winner(), Some(Player::North));
    assert!(matches!(next.play(0), Err(Error::GameOver { .. })));
}

#[test]
fn equal_captures_at_the_end_are_a_draw() {
    let s = position(
        &preset("en-dodoi-6"),
        "0 0 0 0 0 0
         1 0 0 0 0 1",
        (22, 24),
        Player::South,
        9,
    );
    let next = s.play(0).unwrap();
    assert_eq!(next.captures(), ByPlayer::new(24, 24));
    assert_eq!(next.outcome(), Outcome::Draw);
    assert_eq!(next.winner(), None);
}

#[test]
fn position_without_a_move_for_the_mover_is_already_over() {
    // State::new settles the position: North to move with an empty row ends the game at once.
    let s = position(
        &preset("en-dodoi-6"),
        "0 0 0 0 0 0
         0 1 0 0 0 1",
        (20, 26),
        Player::North,
        10,
    );
    assert_eq!(s.cells(), vec![0; 12]);
    assert_eq!(s.captures(), ByPlayer::new(22, 26));
    assert!(s.is_terminal());
}

#[test]
fn game_still_going_at_max_plies_is_truncated() {
    let r = preset("en-dodoi-6").with(|s| s.max_plies = 2).unwrap();
    let s = State::initial(&r).play(0).unwrap();
    assert_eq!(s.outcome(), Outcome::Ongoing);
    let a = s.legal_actions().next().unwrap();
    let end = s.play(a).unwrap();
    assert_eq!(end.outcome(), Outcome::Truncated);
    assert!(end.is_truncated() && !end.is_terminal() && end.is_over());
    assert_eq!(end.legal_mask(), 0);
    assert_eq!(end.winner(), None);
    assert_eq!(end.ply(), 2);
    assert!(matches!(
        end.play(0),
        Err(Error::GameOver {
            outcome: Outcome::Truncated
        })
    ));
}

#[test]
fn game_that_ends_at_max_plies_is_terminated_not_truncated() {
    let r = preset("en-dodoi-6").with(|s| s.max_plies = 10).unwrap();
    let s = position(
        &r,
        "0 0 0 0 0 0
         1 0 0 0 0 1",
        (20, 26),
        Player::South,
        9,
    );
    let next = s.play(0).unwrap();
    assert_eq!(next.ply(), 10);
    assert!(next.is_terminal());
    assert_eq!(next.outcome(), Outcome::Won(Player::North));
}

/// 2x2 with one seed per hole; South's 4 seeds in hole 0 go all the way round.
fn round_position(skip_origin: bool) -> State {
    let r = rules(2, 1, |s| s.skip_origin = skip_origin);
    position(
        &r,
        "0 0
         4 0",
        (0, 0),
        Player::South,
        0,
    )
}

#[test]
fn full_lap_sows_its_emptied_hole_by_default() {
    // 4 seeds into 1, 2, 3 and back into 0, emptied by the lift: the move ends there, in South's
    // row, and captures hole 3 opposite (1 seed) with the capturing seed.
    let next = play(&round_position(false), 0, 1, 4, 2);
    assert_eq!(
        next.cells(),
        drawn(
            "0 1
             0 1"
        )
    );
    assert_eq!(next.captures(), ByPlayer::new(2, 0));
    assert_eq!(legal(&next), vec![0]);
}

#[test]
fn full_lap_skips_its_emptied_hole_with_skip_origin() {
    // 4 seeds into 1, 2, 3, (not 0) 1: hole 1 already held the lap's first seed, so 2 are lifted
    // into 2 and 3; hole 3 held 1, so 2 are lifted into 0 and 1, and hole 1 was empty: 3 laps,
    // 8 seeds, and hole 2 opposite (2 seeds) is captured with the capturing seed. North's row is
    // then empty: the seed left in hole 0 goes to South.
    let next = play(&round_position(true), 0, 3, 8, 3);
    assert_eq!(next.cells(), vec![0; 4]);
    assert_eq!(next.captures(), ByPlayer::new(4, 0));
    assert_eq!(next.outcome(), Outcome::Won(Player::South));
}

/// The observation in seeds: each value times the seeds in play, checked to be a whole number.
fn in_seeds(obs: &[f32], total: f32) -> Vec<u32> {
    obs.iter()
        .map(|&x| {
            let seeds = x * total;
            assert!(
                (seeds - seeds.round()).abs() < 1e-4,
                "{x} is not a count over {total}"
            );
            seeds.round() as u32
        })
        .collect()
}

#[test]
fn observation_is_relative_to_the_mover() {
    // North to move: its own row first from its own left (hole 6 up), then South's row in North's
    // sowing order (hole 0 up), then North's captures, then South's; all over the 48 seeds.
    let north = endless_example().observation();
    assert_eq!(
        in_seeds(&north, 48.0),
        vec![1, 4, 3, 2, 1, 4, 5, 1, 0, 2, 1, 0, 12, 12]
    );

    let south = position(
        &preset("en-dodoi-6"),
        "0 3 0 0 0 1
         1 0 0 0 0 2",
        (20, 21),
        Player::South,
        0,
    );
    assert_eq!(
        in_seeds(&south.observation(), 48.0),
        vec![1, 0, 0, 0, 0, 2, 1, 0, 0, 0, 3, 0, 20, 21]
    );
}

#[test]
fn render_draws_north_on_top_read_right_to_left() {
    let text = endless_example().render();
    let lines: Vec<&str> = text.lines().collect();
    let numbers = |l: &str| -> Vec<u32> {
        l.split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect()
    };
    assert_eq!(numbers(lines[0]), vec![11, 10, 9, 8, 7, 6]);
    assert_eq!(numbers(lines[1]), vec![4, 1, 2, 3, 4, 1, 12]);
    assert_eq!(numbers(lines[2]), vec![5, 1, 0, 2, 1, 0, 12]);
    assert_eq!(numbers(lines[3]), vec![0, 1, 2, 3, 4, 5]);
    assert!(lines[4].contains("North to move"), "{text}");
}
