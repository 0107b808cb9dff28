//! MCTS: reproducible from its random stream, and its evaluator pluggable.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, Budget, Evaluation, Evaluator, Mcts, Rollout};
use sowing_env::{MAX_HOLES, Player, Rules, State};

#[test]
fn a_fixed_seed_gives_the_same_search_and_game() {
    let rules = Rules::preset("en-dodoi-8").expect("a preset");
    let play = |seed: u64| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut agent = Mcts::new(Budget::Count(300));
        let mut s = State::initial(&rules);
        let mut moves = Vec::new();
        let mut trees = Vec::new();
        while !s.is_over() && moves.len() < 30 {
            let a = agent.choose(&s, &mut rng);
            moves.push(a);
            trees.push(agent.root_children());
            s = s.play(a).expect("a legal move");
        }
        (moves, trees)
    };
    assert_eq!(play(7), play(7));
    let (moves, trees) = play(7);
    assert!(!moves.is_empty());
    // Every simulation passes through one root child (minus the one that expanded the root).
    let visits: u32 = trees[0].iter().map(|&(_, n, _)| n).sum();
    assert_eq!(visits, 299);
}

#[test]
fn it_takes_a_win_in_one() {
    // South to move on a 2x3 board: action 0 (hole 0, 1 seed) falls into empty hole 1 and
    // captures North's 4 seeds in hole 4, which ends the game with South ahead.
    let rules = Rules::preset("en-dodoi-6")
        .expect("a preset")
        .with(|r| {
            r.holes = 3;
            r.seeds = 1;
        })
        .expect("valid rules");
    let s = State::new(
        &rules,
        &[1, 0, 0, 0, 4, 0],
        sowing_env::ByPlayer::new(0, 1),
        Player::South,
        10,
    );
    let Ok(s) = s else {
        panic!("a valid position: {s:?}");
    };
    let winning: Vec<usize> = s
        .legal_actions()
        .filter(|&a| s.play_unchecked(a).winner() == Some(Player::South))
        .collect();
    assert!(!winning.is_empty(), "the position has a winning move: {s}");
    let mut agent = Mcts::new(Budget::Count(200));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    assert!(winning.contains(&agent.choose(&s, &mut rng)));
}

/// An evaluator that counts its calls and prefers nothing.
struct Counting(u32);

impl Evaluator for Counting {
    fn evaluate(&mut self, state: &State, _rng: &mut ChaCha8Rng) -> Evaluation {
        self.0 += 1;
        let mut priors = [0.0; MAX_HOLES];
        for a in state.legal_actions() {
            priors[a] = 1.0 / state.legal_count() as f32;
        }
        Evaluation { priors, value: 0.0 }
    }
}

#[test]
fn the_evaluator_is_pluggable() {
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let s = State::initial(&rules);
    let mut agent = Mcts::with_evaluator(Budget::Count(50), Counting(0), "counting".into());
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let a = agent.choose(&s, &mut rng);
    assert!(s.is_legal(a));
    assert_eq!(agent.name(), "counting");
    assert_eq!(agent.last_search().simulations, 50);
    // Rollouts are one evaluator; the search asks whichever it has for every new leaf.
    let mut rollout = Mcts::with_evaluator(Budget::Count(50), Rollout, "r".into());
    assert!(s.is_legal(rollout.choose(&s, &mut rng)));
}
