//! MCTS: reproducible from its random stream, and its evaluator pluggable.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, AlphaBeta, Budget, Evaluation, Evaluator, Mcts, Rollout, WIN};
use sowing_env::{MAX_HOLES, Player, Rules, State, random_action};

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
    // Positions of random games where neither side has half the seeds yet, some move wins at
    // once, and every other move is, to alpha-beta at depth 6, not a forced win.
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut found = 0;
    let mut judge = AlphaBeta::new(Budget::Count(6));
    for _ in 0..2000 {
        let mut s = State::initial(&rules);
        while let Some(a) = random_action(&s, &mut rng) {
            let me = s.to_move();
            let wins = |a: usize| s.play_unchecked(a).winner() == Some(me);
            let winning: Vec<usize> = s.legal_actions().filter(|&a| wins(a)).collect();
            let mut forced = |a: usize| -judge.search(&s.play_unchecked(a), 6).1 > WIN / 2;
            let undecided = Player::BOTH
                .iter()
                .all(|&p| 2 * s.captured(p) as usize <= rules.total_seeds());
            if undecided
                && !winning.is_empty()
                && winning.len() < s.legal_count()
                && s.legal_actions()
                    .all(|a| winning.contains(&a) || !forced(a))
            {
                let mut agent = Mcts::new(Budget::Count(200));
                let choice = agent.choose(&s, &mut rng);
                assert!(
                    winning.contains(&choice),
                    "chose {choice}, winning {winning:?} at {s}"
                );
                found += 1;
                break;
            }
            s = s.play_unchecked(a);
        }
        if found == 20 {
            break;
        }
    }
    assert_eq!(found, 20, "enough positions with a win in one");
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
