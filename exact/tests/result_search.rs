//! The exact result search against the truth: on rule sets small enough for a tablebase to hold
//! the whole game, every position (board, captures, player to move) is compared with the
//! table's result, with one transposition table shared by all of them in a shuffled order (where
//! a stored answer that depended on a repetition would show), with a tiny table (collisions),
//! and with a small tablebase at the leaves; and against the solver on endgames of en-dodoi-6.
//! Each in both orders of the search: depth first and by proof numbers.

mod common;

use common::{boards, rules};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_env::{ByPlayer, Direction, Player, Rules, State, Trigger};
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use sowing_exact::value::{Guidance, Guide, Lean, Order};
use sowing_exact::{MAX_LINE, ResultSearch, Solver, Wdl};
use std::sync::Arc;

/// Every game state of `rules` that is not over: each board, each split of the captured seeds,
/// each player to move.
fn every_state(rules: &Rules) -> Vec<State> {
    let total = rules.total_seeds();
    let mut out = Vec::new();
    for seeds in 0..=total {
        for cells in boards(2 * rules.holes(), seeds) {
            for south in 0..=total - seeds {
                let captured = ByPlayer::new(south as u8, (total - seeds - south) as u8);
                for mover in Player::BOTH {
                    let s = State::new(rules, &cells, captured, mover, 0).unwrap();
                    if !s.is_over() {
                        out.push(s);
                    }
                }
            }
        }
    }
    out
}

/// Both orders the search grows its proofs in.
const ORDERS: [Order; 2] = [Order::DepthFirst, Order::ProofNumber];

/// Rule sets whose whole game a table holds: both triggers, both directions, a lap cap that
/// makes many moves endless.
fn whole_games() -> Vec<(&'static str, Rules)> {
    vec![
        ("2x3 take ccw", rules(3, 2, |_| {})),
        ("2x3 leave ccw", rules(3, 2, |s| s.trigger = Trigger::Leave)),
        (
            "2x3 take parity",
            rules(3, 2, |s| s.direction = Direction::Parity),
        ),
        (
            "2x3 leave parity skip_origin",
            rules(3, 2, |s| {
                s.trigger = Trigger::Leave;
                s.direction = Direction::Parity;
                s.skip_origin = true;
            }),
        ),
        ("2x3 take max_laps 3", rules(3, 2, |s| s.max_laps = 3)),
        ("2x4 take ccw", rules(4, 1, |_| {})),
        (
            "2x4 leave parity",
            rules(4, 1, |s| {
                s.trigger = Trigger::Leave;
                s.direction = Direction::Parity;
            }),
        ),
    ]
}

#[test]
fn every_result_equals_the_whole_game_table_with_a_shared_transposition_table() {
    let mut counts = [0usize; 3];
    for (name, rules) in whole_games() {
        let table =
            Tablebase::build(&rules, rules.total_seeds() as u32, &BuildOptions::default()).unwrap();
        let mut states = every_state(&rules);
        states.shuffle(&mut ChaCha8Rng::seed_from_u64(1));
        for (table_bits, order) in [20, 13].into_iter().flat_map(|b| ORDERS.map(|o| (b, o))) {
            let mut search = ResultSearch::new(table_bits).with_order(order);
            for s in &states {
                let want = table.probe(s).unwrap().result(s);
                let got = search.result(s, u64::MAX);
                assert_eq!(
                    got,
                    Some(want),
                    "{name}, 2^{table_bits} slots, {order:?}: {s:?}"
                );
                counts[want as usize] += 1;
            }
        }
    }
    // Every result is there in numbers, draws of endless play among them.
    assert!(counts.iter().all(|&n| n > 1000), "{counts:?}");
}

#[test]
fn move_results_equal_the_table_and_a_small_table_at_the_leaves_changes_nothing() {
    for ((name, rules), order) in whole_games()
        .into_iter()
        .step_by(2)
        .flat_map(|g| ORDERS.map(|o| (g, o)))
    {
        let whole =
            Tablebase::build(&rules, rules.total_seeds() as u32, &BuildOptions::default()).unwrap();
        let small = Arc::new(Tablebase::build(&rules, 5, &BuildOptions::default()).unwrap());
        let mut plain = ResultSearch::new(16).with_order(order);
        let mut tabled = ResultSearch::new(16)
            .with_tablebase(Arc::clone(&small))
            .with_order(order);
        let mut states = every_state(&rules);
        states.shuffle(&mut ChaCha8Rng::seed_from_u64(2));
        for s in states.iter().take(3000) {
            let want: Vec<(usize, Wdl)> = whole
                .move_values(s)
                .unwrap()
                .into_iter()
                .map(|(a, p)| (a, p.result(s)))
                .collect();
            assert_eq!(
                plain.move_results(s, u64::MAX).as_ref(),
                Some(&want),
                "{name}, {order:?}: {s:?}"
            );
            assert_eq!(
                tabled.move_results(s, u64::MAX).as_ref(),
                Some(&want),
                "{name}, {order:?}, a small table: {s:?}"
            );
        }
    }
}

#[test]
fn a_budget_too_small_settles_nothing_wrongly_and_says_so() {
    let rules = rules(3, 2, |_| {});
    let table = Tablebase::build(&rules, 12, &BuildOptions::default()).unwrap();
    for order in ORDERS {
        let (mut settled, mut unsettled) = (0, 0);
        let mut search = ResultSearch::new(12).with_order(order);
        for s in every_state(&rules).iter().step_by(7) {
            search.clear();
            match search.result(s, 40) {
                Some(r) => {
                    assert_eq!(r, table.probe(s).unwrap().result(s), "{s:?}");
                    settled += 1;
                }
                None => unsettled += 1,
            }
            assert!(search.nodes() <= 41);
        }
        assert!(
            settled > 100 && unsettled > 100,
            "{order:?}: {settled} {unsettled}"
        );
    }
}

#[test]
fn results_agree_with_the_solver_on_endgames_of_en_dodoi_6() {
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let table = Arc::new(Tablebase::build(&rules, 8, &BuildOptions::default()).unwrap());
    for order in ORDERS {
        let mut search = ResultSearch::new(20)
            .with_tablebase(Arc::clone(&table))
            .with_order(order);
        let mut solver = Solver::new(18);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut wins, mut losses, mut compared) = (0, 0, 0);
        while compared < 60 {
            let mut s = State::initial(&rules);
            let stop = rng.random_range(9..=14);
            while !s.is_over() && s.board().sum(0, 12) > stop {
                let a = sowing_env::random_action(&s, &mut rng).unwrap();
                s = s.play(a).unwrap();
            }
            if s.is_over() {
                continue;
            }
            let Some(result) = search.result(&s, 20_000_000) else {
                continue;
            };
            compared += 1;
            let proof = solver.prove(&s, 2_000_000, 99);
            // The solver proves nothing the search contradicts, and finds the wins it settles.
            if proof.winning.is_some() {
                assert_eq!(result, Wdl::Win, "{s:?}");
            }
            if proof.lost(&s) {
                assert_eq!(result, Wdl::Loss, "{s:?}");
            }
            if result == Wdl::Win {
                assert!(proof.winning.is_some(), "a win the solver misses: {s:?}");
                wins += 1;
            }
            losses += usize::from(result == Wdl::Loss);
        }
        assert!(wins > 10 && losses > 5, "{order:?}: {wins} {losses}");
    }
}

/// A guide that judges from a whole-game table: the truth, or (`lying`) its opposite.
struct TableGuide {
    table: Arc<Tablebase>,
    lying: bool,
}

impl Guide for TableGuide {
    fn lean(&mut self, states: &[State], out: &mut [Lean]) {
        for (s, slot) in states.iter().zip(out.iter_mut()) {
            let value = match self.table.probe(s).unwrap().result(s) {
                Wdl::Win => 1.0,
                Wdl::Draw => 0.0,
                Wdl::Loss => -1.0,
            };
            slot.value = if self.lying { -value } else { value };
        }
    }
}

/// A guide whose judgements are noise, NaN and values out of range among them.
struct NoiseGuide(ChaCha8Rng);

impl Guide for NoiseGuide {
    fn lean(&mut self, states: &[State], out: &mut [Lean]) {
        for slot in out.iter_mut().take(states.len()) {
            slot.value = match self.0.random_range(0..10) {
                0 => f32::NAN,
                1 => 5.0,
                _ => self.0.random_range(-1.0..=1.0),
            };
        }
    }
}

#[test]
fn a_guide_true_lying_or_noise_changes_no_result_only_the_positions_spent() {
    for (name, rules) in whole_games().into_iter().step_by(3) {
        let table = Arc::new(
            Tablebase::build(&rules, rules.total_seeds() as u32, &BuildOptions::default()).unwrap(),
        );
        let mut states = every_state(&rules);
        states.shuffle(&mut ChaCha8Rng::seed_from_u64(3));
        states.truncate(1500);
        let guidance = Guidance {
            depth: MAX_LINE as u32,
        };
        let mut plain = ResultSearch::new(16);
        let guides: [(&str, Box<dyn Guide>); 3] = [
            (
                "true",
                Box::new(TableGuide {
                    table: Arc::clone(&table),
                    lying: false,
                }),
            ),
            (
                "lying",
                Box::new(TableGuide {
                    table: Arc::clone(&table),
                    lying: true,
                }),
            ),
            ("noise", Box::new(NoiseGuide(ChaCha8Rng::seed_from_u64(4)))),
        ];
        let mut spent = Vec::new();
        let plain_spent: u64 = states
            .iter()
            .map(|s| {
                plain.clear();
                assert_eq!(
                    plain.result(s, u64::MAX),
                    Some(table.probe(s).unwrap().result(s))
                );
                plain.nodes()
            })
            .sum();
        for (kind, guide) in guides {
            let mut search = ResultSearch::new(16).with_guide(guide, guidance);
            let mut positions = 0;
            let mut judged = 0;
            for s in &states {
                search.clear();
                let want = table.probe(s).unwrap().result(s);
                assert_eq!(
                    search.result(s, u64::MAX),
                    Some(want),
                    "{name}, {kind}: {s:?}"
                );
                positions += search.nodes();
                judged += search.judged();
            }
            assert!(judged > 0, "{name}, {kind}: the guide was never asked");
            spent.push((kind, positions));
        }
        // The truth spends fewer positions than no guide, and its opposite more than either.
        let [(_, truth), (_, lies), _] = spent[..] else {
            unreachable!()
        };
        assert!(
            truth < plain_spent && plain_spent < lies,
            "{name}: true {truth}, none {plain_spent}, lying {lies}"
        );
    }
}

#[test]
fn only_leaves_within_the_guidance_depth_are_judged() {
    let rules = rules(3, 2, |_| {});
    let table = Arc::new(Tablebase::build(&rules, 12, &BuildOptions::default()).unwrap());
    let states = every_state(&rules);
    let mut judged = Vec::new();
    for depth in [0, 1, 3, MAX_LINE as u32] {
        let guide = TableGuide {
            table: Arc::clone(&table),
            lying: false,
        };
        let mut search = ResultSearch::new(14).with_guide(Box::new(guide), Guidance { depth });
        let mut total = 0;
        for s in states.iter().step_by(11) {
            search.clear();
            search.result(s, u64::MAX).unwrap();
            // The root, once per proof at most (the player ahead's proof, then the other's).
            if depth == 0 {
                assert!(search.judged() <= 2, "{s:?}: {}", search.judged());
            }
            total += search.judged();
        }
        judged.push(total);
    }
    assert!(judged.windows(2).all(|w| w[0] < w[1]), "{judged:?}");
    // The depth-first order takes no guide.
    let guide = TableGuide {
        table,
        lying: false,
    };
    let mut search = ResultSearch::new(14)
        .with_order(Order::DepthFirst)
        .with_guide(Box::new(guide), Guidance { depth: 9 });
    search.result(&states[100], u64::MAX).unwrap();
    assert_eq!(search.judged(), 0);
}
