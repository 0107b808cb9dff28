//! `VecEnv::reset_games`: the flagged games start again exactly as a whole reset starts them,
//! on any number of threads, and the others keep their states, rows and random streams; and
//! `VecEnv::bytes_per_game` counts at least every buffer row a game has.

use sowing_env::{AutoReset, Rules, State, VecConfig, VecEnv};

const GAMES: usize = 600;

fn batch(autoreset: AutoReset, threads: usize) -> VecEnv {
    let config = VecConfig {
        autoreset,
        threads,
        random_opening: 2,
    };
    VecEnv::new(&Rules::preset("en-dodoi-6").unwrap(), GAMES, 5, config).unwrap()
}

/// Step every game 40 times with its own random legal actions.
fn play_on(v: &mut VecEnv) {
    let mut actions = vec![0usize; v.num_envs()];
    for _ in 0..40 {
        v.sample_actions(&mut actions).unwrap();
        v.step(&actions).unwrap();
    }
}

fn states(v: &VecEnv) -> Vec<State> {
    (0..v.num_envs()).map(|i| *v.state(i)).collect()
}

#[test]
fn flagged_games_restart_and_the_others_go_on_untouched() {
    for threads in [1, 3] {
        let mut v = batch(AutoReset::NextStep, threads);
        play_on(&mut v);
        let before = states(&v);
        let rows_before = (v.observations().to_owned(), v.masks().to_owned());
        let flags: Vec<bool> = (0..GAMES).map(|i| i % 7 == 3).collect();
        v.reset_games(&flags, Some(5)).unwrap();

        let fresh = batch(AutoReset::NextStep, 1);
        for (i, &flag) in flags.iter().enumerate() {
            if flag {
                assert_eq!(
                    v.state(i),
                    fresh.state(i),
                    "game {i} starts as a seeded reset does"
                );
                assert_eq!(v.observations().row(i), fresh.observations().row(i));
                assert_eq!(v.masks().row(i), fresh.masks().row(i));
                assert!(!v.terminated()[i] && !v.truncated()[i] && v.rewards()[i] == 0.0);
            } else {
                assert_eq!(*v.state(i), before[i], "game {i} is not flagged");
                assert_eq!(v.observations().row(i), rows_before.0.row(i));
                assert_eq!(v.masks().row(i), rows_before.1.row(i));
            }
        }
    }
}

#[test]
fn an_unseeded_reset_of_some_games_draws_from_their_own_streams_only() {
    let mut v = batch(AutoReset::SameStep, 2);
    let mut twin = batch(AutoReset::SameStep, 1);
    play_on(&mut v);
    play_on(&mut twin);
    let before = *v.state(18);
    let mut flags = vec![false; GAMES];
    flags[17] = true;
    v.reset_games(&flags, None).unwrap();
    twin.reset(None);
    assert_eq!(
        v.state(17),
        twin.state(17),
        "game 17 drew as a whole reset draws"
    );
    assert_eq!(*v.state(18), before, "game 18 was not flagged");
    // Game 18's stream was not drawn from: its next opening is the twin's first.
    let first_of_18 = *twin.state(18);
    v.reset(None);
    twin.reset(None);
    assert_eq!(*v.state(18), first_of_18);
    assert_eq!(v.state(17), twin.state(17));
}

#[test]
fn next_step_reset_of_an_ended_game_cancels_its_pending_reset() {
    let mut v = batch(AutoReset::NextStep, 1);
    let mut actions = vec![0usize; GAMES];
    let ended = loop {
        v.sample_actions(&mut actions).unwrap();
        v.step(&actions).unwrap();
        if let Some(i) = (0..GAMES).find(|&i| v.terminated()[i] || v.truncated()[i]) {
            break i;
        }
    };
    let mut flags = vec![false; GAMES];
    flags[ended] = true;
    v.reset_games(&flags, None).unwrap();
    let started = *v.state(ended);
    assert!(!started.is_over());
    // The next step plays the given action in the new game instead of resetting it again.
    v.sample_actions(&mut actions).unwrap();
    v.step(&actions).unwrap();
    assert_eq!(*v.state(ended), started.play(actions[ended]).unwrap());
}

#[test]
fn reset_flags_must_be_one_per_game() {
    let mut v = batch(AutoReset::Off, 1);
    let err = v.reset_games(&[true; 3], None).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("expected {GAMES} reset flags, one per game, got 3")
    );
}

#[test]
fn bytes_per_game_counts_every_row() {
    for name in ["en-dodoi-6", "en-dodoi-10"] {
        let rules = Rules::preset(name).unwrap();
        let rows = 2 * rules.observation_len() * 4 + rules.holes() + 4 + 4;
        let state = size_of::<State>();
        assert!(VecEnv::bytes_per_game(&rules) >= rows + state, "{name}");
    }
    let small = VecEnv::bytes_per_game(&Rules::preset("en-dodoi-6").unwrap());
    let large = VecEnv::bytes_per_game(&Rules::preset("en-dodoi-10").unwrap());
    assert!(large > small);
}
