//! `VecEnv` against its documentation: each game is a plain `State` driven by its own ChaCha
//! stream (`seed_from_u64(seed)`, stream `i`), whatever the batch size and thread count, and the
//! three autoreset modes do exactly what the module docs say. A shadow model replays every game
//! with `State`, `random_opening` and `random_action` and checks every buffer row after every step.

use ndarray::Array2;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_env::{
    AutoReset, Env, Player, Rules, State, VecConfig, VecEnv, random_action, random_opening,
};

const OPENING: u32 = 3;

fn config(autoreset: AutoReset, threads: usize) -> VecConfig {
    VecConfig {
        autoreset,
        threads,
        random_opening: OPENING,
    }
}

/// One game as the docs describe it.
struct Shadow {
    state: State,
    rng: ChaCha8Rng,
    reset_next: bool,
}

impl Shadow {
    fn new(rules: &Rules, seed: u64, index: u64) -> Shadow {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(index);
        let state = random_opening(rules, OPENING, &mut rng);
        Shadow {
            state,
            rng,
            reset_next: false,
        }
    }
}

/// What one step should write into game `i`'s rows.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    observation: Vec<f32>,
    final_observation: Option<Vec<f32>>,
    mask: Vec<bool>,
    reward: f32,
    terminated: bool,
    truncated: bool,
    to_move: u8,
}

fn mask_of(s: &State) -> Vec<bool> {
    (0..s.holes()).map(|a| s.is_legal(a)).collect()
}

fn fresh_row(s: &State) -> Row {
    Row {
        observation: s.observation(),
        final_observation: None,
        mask: mask_of(s),
        reward: 0.0,
        terminated: false,
        truncated: false,
        to_move: s.to_move().index() as u8,
    }
}

/// The shadow's own random action, drawn as `sample_actions` draws it.
fn sample(shadow: &mut Shadow) -> usize {
    random_action(&shadow.state, &mut shadow.rng).unwrap_or(0)
}

/// Steps the shadow with `action` under `mode`, giving the row `VecEnv` should write.
fn shadow_step(rules: &Rules, mode: AutoReset, shadow: &mut Shadow, action: usize) -> Row {
    if shadow.reset_next {
        shadow.state = random_opening(rules, OPENING, &mut shadow.rng);
        shadow.reset_next = false;
        return fresh_row(&shadow.state);
    }
    let mover = shadow.state.to_move();
    let next = shadow.state.play(action).unwrap();
    shadow.state = next;
    if !next.is_over() {
        return fresh_row(&next);
    }
    let ended = Row {
        observation: next.observation(),
        final_observation: None,
        mask: vec![false; rules.holes()],
        reward: next.outcome().reward(mover),
        terminated: next.is_terminal(),
        truncated: next.is_truncated(),
        to_move: next.to_move().index() as u8,
    };
    match mode {
        AutoReset::SameStep => {
            shadow.state = random_opening(rules, OPENING, &mut shadow.rng);
            Row {
                final_observation: Some(ended.observation),
                reward: ended.reward,
                terminated: ended.terminated,
                truncated: ended.truncated,
                ..fresh_row(&shadow.state)
            }
        }
        AutoReset::NextStep => {
            shadow.reset_next = true;
            ended
        }
        AutoReset::Off => ended,
    }
}

fn row_of(v: &VecEnv, i: usize, with_final: bool) -> Row {
    Row {
        observation: v.observations().row(i).to_vec(),
        final_observation: with_final.then(|| v.final_observations().row(i).to_vec()),
        mask: v.masks().row(i).to_vec(),
        reward: v.rewards()[i],
        terminated: v.terminated()[i],
        truncated: v.truncated()[i],
        to_move: v.to_move()[i],
    }
}

/// Runs `steps` steps of random play through `VecEnv` and through shadows, checking every row of
/// every game; returns the rows of the first `keep` games, step by step.
fn run_checked(
    rules: &Rules,
    num_envs: usize,
    seed: u64,
    config: VecConfig,
    steps: usize,
    keep: usize,
) -> Vec<Vec<Row>> {
    let mut v = VecEnv::new(rules, num_envs, seed, config).unwrap();
    let mut shadows: Vec<Shadow> = (0..num_envs)
        .map(|i| Shadow::new(rules, seed, i as u64))
        .collect();
    for (i, sh) in shadows.iter().enumerate() {
        assert_eq!(
            row_of(&v, i, false),
            fresh_row(&sh.state),
            "reset of game {i}"
        );
        assert_eq!(*v.state(i), sh.state);
    }
    let mut actions = vec![0usize; num_envs];
    let mut kept = vec![Vec::new(); keep.min(num_envs)];
    for step in 0..steps {
        v.sample_actions(&mut actions).unwrap();
        let expected: Vec<Row> = shadows
            .iter_mut()
            .zip(&actions)
            .map(|(sh, &a)| {
                assert_eq!(a, sample(sh), "sampled action");
                shadow_step(rules, config.autoreset, sh, a)
            })
            .collect();
        v.step(&actions).unwrap();
        for (i, want) in expected.into_iter().enumerate() {
            let got = row_of(&v, i, want.final_observation.is_some());
            assert_eq!(got, want, "game {i} at step {step}");
            assert_eq!(*v.state(i), shadows[i].state, "state of game {i}");
            if i < kept.len() {
                kept[i].push(got);
            }
        }
        // Under `Off` a game that has ended cannot be stepped again (see the test below).
        if config.autoreset == AutoReset::Off && (0..num_envs).any(|i| v.state(i).is_over()) {
            break;
        }
    }
    kept
}

fn en_dodoi_6() -> Rules {
    Rules::preset("en-dodoi-6").unwrap()
}

#[test]
fn trajectories_do_not_depend_on_batch_size_or_threads() {
    let rules = en_dodoi_6();
    let steps = 300;
    let reference = run_checked(&rules, 1, 42, config(AutoReset::SameStep, 1), steps, 1);
    let seven = run_checked(&rules, 7, 42, config(AutoReset::SameStep, 1), steps, 7);
    for (num_envs, threads) in [(1, 2), (7, 1), (7, 2), (256, 1), (256, 2), (300, 2)] {
        let rows = run_checked(
            &rules,
            num_envs,
            42,
            config(AutoReset::SameStep, threads),
            steps,
            7,
        );
        assert_eq!(
            rows[0], reference[0],
            "{num_envs} games on {threads} threads"
        );
        if num_envs >= 7 {
            assert_eq!(rows, seven, "{num_envs} games on {threads} threads");
        }
    }
    // Over 300 steps of random play every game ends and starts again at least once.
    assert!(reference[0].iter().any(|r| r.terminated || r.truncated));
}

#[test]
fn other_seeds_give_other_trajectories() {
    let rules = en_dodoi_6();
    let a = run_checked(&rules, 7, 1, config(AutoReset::SameStep, 1), 50, 7);
    let b = run_checked(&rules, 7, 2, config(AutoReset::SameStep, 1), 50, 7);
    assert_ne!(a, b);
    // Games of one batch draw from different streams.
    assert_ne!(a[0], a[1]);
}

#[test]
fn same_step_autoreset_matches_the_docs() {
    // Short games (truncated at 12 plies, or ended) on every preset's board sizes.
    for name in ["en-dodoi-6", "sadeqa-iii", "cross-endodoi"] {
        let rules = Rules::preset(name).unwrap();
        run_checked(&rules, 9, 5, config(AutoReset::SameStep, 2), 400, 0);
        let short = rules.with(|r| r.max_plies = 12).unwrap();
        let rows = run_checked(&short, 9, 5, config(AutoReset::SameStep, 2), 60, 1);
        assert!(
            rows[0].iter().any(|r| r.truncated),
            "{name}: truncation met"
        );
    }
}

#[test]
fn next_step_autoreset_matches_the_docs() {
    let rules = en_dodoi_6();
    // 300 games: enough for both threads to step a share.
    let rows = run_checked(&rules, 300, 6, config(AutoReset::NextStep, 2), 400, 1);
    // The step after an end starts the next game: reward 0, flags down, a fresh mask.
    let ends: Vec<usize> = (0..rows[0].len())
        .filter(|&t| rows[0][t].terminated || rows[0][t].truncated)
        .collect();
    assert!(!ends.is_empty());
    for &t in &ends {
        assert!(
            rows[0][t].mask.iter().all(|&m| !m),
            "no legal move at the end"
        );
        if let Some(next) = rows[0].get(t + 1) {
            assert_eq!(next.reward, 0.0);
            assert!(!next.terminated && !next.truncated);
            assert!(next.mask.iter().any(|&m| m));
        }
    }
}

#[test]
fn next_step_ignores_the_action_of_a_game_being_reset() {
    let rules = en_dodoi_6().with(|r| r.max_plies = 1).unwrap();
    let config = VecConfig {
        autoreset: AutoReset::NextStep,
        threads: 1,
        random_opening: 0,
    };
    let mut v = VecEnv::new(&rules, 2, 3, config).unwrap();
    let mut actions = [0usize; 2];
    v.sample_actions(&mut actions).unwrap();
    v.step(&actions).unwrap();
    assert!(v.truncated().iter().all(|&t| t));
    // Both games reset now: any action is accepted, even one out of range.
    v.step(&[99i64, -5]).unwrap();
    assert!(v.truncated().iter().all(|&t| !t));
    assert!(v.masks().iter().any(|&m| m));
    assert_eq!(v.rewards().to_vec(), vec![0.0, 0.0]);
}

#[test]
fn off_autoreset_keeps_ended_games_until_reset() {
    let rules = en_dodoi_6().with(|r| r.max_plies = OPENING + 2).unwrap();
    let mut v = VecEnv::new(&rules, 3, 8, config(AutoReset::Off, 1)).unwrap();
    let mut actions = [0usize; 3];
    for _ in 0..2 {
        v.sample_actions(&mut actions).unwrap();
        v.step(&actions).unwrap();
    }
    assert!((0..3).all(|i| v.state(i).is_truncated()));
    assert!(v.truncated().iter().all(|&t| t));
    assert!(v.masks().iter().all(|&m| !m));
    let observations: Array2<f32> = v.observations().to_owned();
    let e = v.step(&[0usize, 0, 0]).unwrap_err();
    assert!(e.to_string().contains("game 0"), "{e}");
    assert!(e.to_string().contains("game is over"), "{e}");
    assert_eq!(v.observations(), observations);
    // sample_actions gives 0 for a game with no move.
    v.sample_actions(&mut actions).unwrap();
    assert_eq!(actions, [0, 0, 0]);

    v.reset(None);
    assert!((0..3).all(|i| !v.state(i).is_over() && v.state(i).ply() == OPENING));
    assert!(v.truncated().iter().all(|&t| !t));
    v.sample_actions(&mut actions).unwrap();
    v.step(&actions).unwrap();
}

#[test]
fn off_autoreset_matches_the_docs() {
    // Until the first game ends.
    let rows = run_checked(&en_dodoi_6(), 5, 9, config(AutoReset::Off, 1), 1000, 5);
    run_checked(&en_dodoi_6(), 300, 9, config(AutoReset::Off, 2), 1000, 0);
    assert!(rows.iter().any(|g| g.last().unwrap().terminated));
}

#[test]
fn reset_with_a_seed_starts_the_streams_again() {
    let rules = en_dodoi_6();
    let mut v = VecEnv::new(&rules, 4, 11, config(AutoReset::SameStep, 1)).unwrap();
    let first: Vec<State> = (0..4).map(|i| *v.state(i)).collect();
    let mut actions = [0usize; 4];
    for _ in 0..10 {
        v.sample_actions(&mut actions).unwrap();
        v.step(&actions).unwrap();
    }
    v.reset(Some(11));
    assert_eq!((0..4).map(|i| *v.state(i)).collect::<Vec<_>>(), first);
}

#[test]
fn rewards_are_for_the_player_who_moved() {
    let rules = en_dodoi_6();
    let mut v = VecEnv::new(&rules, 64, 12, config(AutoReset::SameStep, 1)).unwrap();
    let mut actions = vec![0usize; 64];
    let mut seen = 0;
    for _ in 0..300 {
        let movers: Vec<Player> = (0..64).map(|i| v.state(i).to_move()).collect();
        let before: Vec<State> = (0..64).map(|i| *v.state(i)).collect();
        v.sample_actions(&mut actions).unwrap();
        v.step(&actions).unwrap();
        for i in 0..64 {
            if v.terminated()[i] {
                let end = before[i].play(actions[i]).unwrap();
                assert_eq!(v.rewards()[i], end.outcome().reward(movers[i]));
                seen += 1;
            }
        }
    }
    assert!(seen > 0);
}

#[test]
fn env_reset_with_a_seed_is_reproducible() {
    let rules = en_dodoi_6();
    let play = |seed| {
        let mut env = Env::new(&rules).with_random_opening(4);
        let mut states = vec![*env.reset(Some(seed))];
        let mut rewards = None;
        while let Some(a) = env.sample_action() {
            let step = env.step(a).unwrap();
            assert_eq!(step.observation, env.state().observation());
            assert_eq!(step.mask, mask_of(env.state()));
            assert_eq!(step.to_move, env.state().to_move());
            if step.terminated || step.truncated {
                rewards = Some(step.rewards);
                assert!(step.mask.iter().all(|&m| !m));
            } else {
                assert_eq!((step.rewards.south, step.rewards.north), (0.0, 0.0));
            }
            states.push(*env.state());
        }
        (states, rewards.expect("the game ends"))
    };
    let (a, ra) = play(21);
    let (b, rb) = play(21);
    assert_eq!(a, b);
    assert_eq!(ra, rb);
    assert_eq!(ra.south, -ra.north);
    assert_eq!(a[0].ply(), 4);
    assert_ne!(play(22).0, a);
}
