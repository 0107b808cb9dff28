//! The solver and the agents with a tablebase: their proofs and choices against a larger table
//! of the same rules (the truth), perfect play that converts every won position, the leaf
//! evaluator, the `tb=FILE` spec option and its errors, and one table per process.

#[path = "../../exact/tests/common/mod.rs"]
mod common;

use common::rules;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::{
    AlphaBeta, Budget, Evaluation, Evaluator, PerfectPlay, TablebaseEvaluator, WIN, from_spec,
    perfect_moves,
};
use sowing_env::{ByPlayer, Direction, MAX_HOLES, Outcome, Player, Rules, State, Trigger};
use sowing_exact::tablebase::{BuildOptions, Probe, Tablebase};
use sowing_exact::{Solver, Wdl, shared_tablebase};
use std::path::PathBuf;
use std::sync::Arc;

fn table(rules: &Rules, max_seeds: u32) -> Arc<Tablebase> {
    Arc::new(Tablebase::build(rules, max_seeds, &BuildOptions::default()).unwrap())
}

/// `count` random positions (not over) with `seeds` seeds on the board, the others captured in a
/// random split, either player to move.
fn positions(
    rules: &Rules,
    seeds: std::ops::RangeInclusive<usize>,
    count: usize,
    seed: u64,
) -> Vec<State> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ring = 2 * rules.holes();
    let total = rules.total_seeds();
    let mut out = Vec::new();
    while out.len() < count {
        let on_board = rng.random_range(seeds.clone()).min(total);
        let mut cells = vec![0u8; ring];
        for _ in 0..on_board {
            cells[rng.random_range(0..ring)] += 1;
        }
        let south = rng.random_range(0..=total - on_board);
        let captured = ByPlayer::new(south as u8, (total - on_board - south) as u8);
        let mover = if rng.random_bool(0.5) {
            Player::South
        } else {
            Player::North
        };
        let s = State::new(rules, &cells, captured, mover, 0).unwrap();
        if !s.is_over() {
            out.push(s);
        }
    }
    out
}

/// The result of `state`'s game for `player`, once it is over.
fn result_for(state: &State, player: Player) -> Wdl {
    match state.outcome() {
        Outcome::Won(p) if p == player => Wdl::Win,
        Outcome::Won(_) => Wdl::Loss,
        _ => Wdl::Draw,
    }
}

/// The lead of `player` in `state`.
fn lead(state: &State, player: Player) -> i32 {
    i32::from(state.captured(player)) - i32::from(state.captured(!player))
}

/// Small rule sets of both triggers and directions, and a table that holds all their positions.
fn small_sets() -> Vec<(&'static str, Rules, u32)> {
    vec![
        ("2x3 take ccw", rules(3, 2, |_| {}), 12),
        (
            "2x3 leave ccw",
            rules(3, 2, |s| s.trigger = Trigger::Leave),
            12,
        ),
        (
            "2x3 leave parity",
            rules(3, 2, |s| {
                s.trigger = Trigger::Leave;
                s.direction = Direction::Parity;
            }),
            12,
        ),
        ("2x4 take ccw", rules(4, 2, |_| {}), 16),
        (
            "2x4 take parity",
            rules(4, 2, |s| s.direction = Direction::Parity),
            16,
        ),
    ]
}

#[test]
fn perfect_play_wins_every_won_position_and_keeps_the_margin() {
    let (mut won, mut cyclic) = (0, 0);
    for (name, rules, k) in small_sets() {
        let table = table(&rules, k);
        let mut south = PerfectPlay::new(Arc::clone(&table));
        let mut north = PerfectPlay::new(Arc::clone(&table));
        for s in positions(&rules, 1..=k as usize, 1500, 7) {
            let probe = table.probe(&s).unwrap();
            let me = s.to_move();
            let mut game = s;
            while !game.is_over() {
                let player = if game.to_move() == Player::South {
                    &mut south
                } else {
                    &mut north
                };
                game = game.play(player.choose(&game).unwrap()).unwrap();
            }
            let want = probe.result(&s);
            // Two players who only kept the result would let some of these games be truncated.
            assert_eq!(
                result_for(&game, me),
                want,
                "{name}: {s:?} ended {:?}",
                game.outcome()
            );
            // Where nobody can force endless play, a decided game ends at the table's margin (a
            // draw may go round a cycle both sides are glad of).
            if probe.low == probe.high && want != Wdl::Draw {
                assert!(game.is_terminal(), "{name}: {s:?}");
                assert_eq!(lead(&game, me), probe.final_margin(&s), "{name}: {s:?}");
            } else {
                cyclic += 1;
            }
            won += usize::from(want == Wdl::Win);
        }
    }
    assert!(won > 1000 && cyclic > 10, "{won} won, {cyclic} cyclic");
}

#[test]
fn solver_proofs_with_a_small_table_agree_with_a_larger_one() {
    // The solver decides up to 8 seeds from a table; the truth is a table up to 14.
    let (mut proofs, mut margins) = (0, 0);
    for (name, rules, _) in small_sets().into_iter().take(4) {
        let truth = table(&rules, 14);
        let small = table(&rules, 8);
        let mut solver = Solver::new(16).with_tablebase(Arc::clone(&small));
        for s in positions(&rules, 9..=14, 150, 11) {
            let me = s.to_move();
            let exact = truth.probe(&s).unwrap();
            let so_far = lead(&s, me);
            for target in [1, so_far + exact.low.clamp(-30, 30), 3] {
                let proof = solver.prove_margin(&s, target, 2_000_000, 41, true);
                if let Some((a, _)) = proof.winning {
                    assert!(exact.low != Probe::UNBOUNDED_LOW && exact.low + so_far >= target);
                    let move_value = truth.move_values(&s).unwrap();
                    let (_, after) = move_value.iter().find(|(m, _)| *m == a).unwrap();
                    assert!(after.low + so_far >= target, "{name}: {s:?} move {a}");
                    proofs += 1;
                }
                for (a, after) in truth.move_values(&s).unwrap() {
                    if proof.losing >> a & 1 == 1 {
                        // The opponent holds the mover below the target after this move.
                        assert!(
                            after.high != Probe::UNBOUNDED_HIGH && after.high + so_far < target,
                            "{name}: {s:?} move {a} target {target}"
                        );
                        proofs += 1;
                    }
                }
                // The target the table says the mover forces is proven, lines permitting.
                if target == so_far + exact.low && exact.low != Probe::UNBOUNDED_LOW {
                    margins += usize::from(proof.winning.is_some());
                }
            }
        }
    }
    assert!(
        proofs > 500 && margins > 300,
        "{proofs} proofs, {margins} margins"
    );
}

#[test]
fn a_solver_with_a_table_proves_what_it_proves_without_one_with_fewer_positions() {
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let table = table(&rules, 10);
    let mut with = Solver::new(18).with_tablebase(Arc::clone(&table));
    let mut without = Solver::new(18);
    let (mut compared, mut nodes_with, mut nodes_without) = (0, 0, 0);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    while compared < 40 {
        // Positions of random games with 11 to 16 seeds on the board.
        let mut s = State::initial(&rules);
        while !s.is_over() && s.board().sum(0, 12) > 16 {
            let a = sowing_env::random_action(&s, &mut rng).unwrap();
            s = s.play(a).unwrap();
        }
        if s.is_over() || s.board().sum(0, 12) <= 10 {
            continue;
        }
        let plain = without.prove(&s, 5_000_000, 9);
        let tabled = with.prove(&s, 5_000_000, 9);
        if plain.winning.is_some() {
            assert!(tabled.winning.is_some(), "{s:?}");
        }
        // A search that found a win stops looking for lost moves.
        if tabled.winning.is_none() {
            assert_eq!(tabled.losing & plain.losing, plain.losing, "{s:?}");
        }
        compared += 1;
        nodes_with += tabled.nodes;
        nodes_without += plain.nodes;
    }
    assert!(
        nodes_with * 2 < nodes_without,
        "{nodes_with} vs {nodes_without}"
    );
}

#[test]
fn a_root_the_table_holds_is_decided_without_search() {
    let rules = rules(3, 2, |_| {});
    let table = table(&rules, 12);
    let mut solver = Solver::new(10).with_tablebase(Arc::clone(&table));
    for s in positions(&rules, 1..=12, 200, 5) {
        let probe = table.probe(&s).unwrap();
        let proof = solver.prove(&s, 1_000_000, 99);
        assert_eq!(proof.depth, 0);
        assert_eq!(
            proof.winning.is_some(),
            probe.result(&s) == Wdl::Win,
            "{s:?}"
        );
        let lost = table
            .move_values(&s)
            .unwrap()
            .iter()
            .filter(|(_, p)| p.result(&s) == Wdl::Loss)
            .fold(0u16, |m, (a, _)| m | 1 << a);
        assert_eq!(proof.losing, lost, "{s:?}");
    }
}

#[test]
fn alphabeta_with_a_table_proves_only_true_results() {
    // Its table holds up to 8 seeds; positions of 9 to 13 are judged by a table up to 13.
    let (mut proven, mut chosen) = (0, 0);
    for (name, rules, _) in small_sets().into_iter().take(4) {
        let truth = table(&rules, 13);
        let mut agent = AlphaBeta::new(Budget::Count(6)).with_tablebase(table(&rules, 8));
        for s in positions(&rules, 9..=13, 120, 2) {
            let exact = truth.probe(&s).unwrap().result(&s);
            let (best, value) = agent.search(&s, 6);
            if value.abs() >= WIN / 2 {
                let claimed = if value > 0 { Wdl::Win } else { Wdl::Loss };
                assert_eq!(claimed, exact, "{name}: {s:?} value {value}");
                proven += 1;
                if claimed == Wdl::Win {
                    // The move it found keeps the win.
                    let moves = truth.move_values(&s).unwrap();
                    let (_, after) = moves.iter().find(|(a, _)| Some(*a) == best).unwrap();
                    assert_eq!(after.result(&s), Wdl::Win, "{name}: {s:?}");
                    chosen += 1;
                }
            }
        }
    }
    assert!(
        proven > 100 && chosen > 50,
        "{proven} proven, {chosen} wins kept"
    );
}

#[test]
fn agents_with_a_table_play_perfect_moves_inside_it() {
    let rules = rules(4, 2, |_| {});
    let path = table_file(&rules, 10, "agents");
    let tb = path.display();
    let table = shared_tablebase(&path).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for spec in [format!("alphabeta:2:tb={tb}"), format!("mcts:20:tb={tb}")] {
        let mut agent = from_spec(&spec).unwrap();
        assert_eq!(agent.name(), spec);
        agent.can_play(&rules).unwrap();
        for s in positions(&rules, 1..=10, 300, 4) {
            let a = agent.choose(&s, &mut rng);
            let moves = table.move_values(&s).unwrap();
            let (_, after) = moves.iter().find(|(m, _)| *m == a).unwrap();
            let best = moves.iter().map(|(_, p)| p.result(&s)).max().unwrap();
            assert_eq!(after.result(&s), best, "{spec}: {s:?} move {a}");
            let probe = table.probe(&s).unwrap();
            if probe.low == probe.high {
                assert!(
                    perfect_moves(&table, &s).unwrap() >> a & 1 == 1,
                    "{spec}: {s:?}"
                );
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// An evaluator that counts the states it is asked about.
struct Counting(Vec<State>);

impl Evaluator for Counting {
    fn evaluate(&mut self, state: &State, _rng: &mut ChaCha8Rng) -> Evaluation {
        self.0.push(*state);
        Evaluation {
            priors: [0.0; MAX_HOLES],
            value: 0.5,
        }
    }
}

#[test]
fn the_evaluator_values_what_the_table_holds_exactly_and_passes_the_rest_on() {
    let rules = rules(3, 2, |_| {});
    let table = table(&rules, 8);
    let mut evaluator = TablebaseEvaluator::new(Arc::clone(&table), Counting(Vec::new()));
    let states = positions(&rules, 1..=12, 300, 9);
    let mut out = vec![
        Evaluation {
            priors: [0.0; MAX_HOLES],
            value: 9.0,
        };
        states.len()
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    evaluator.evaluate_batch(&states, &mut rng, &mut out);
    let mut passed = Vec::new();
    let mut results = [0; 3];
    for (s, e) in states.iter().zip(&out) {
        match table.probe(s) {
            Some(p) => {
                let want = match p.result(s) {
                    Wdl::Win => 1.0,
                    Wdl::Draw => 0.0,
                    Wdl::Loss => -1.0,
                };
                results[(want + 1.0) as usize] += 1;
                assert_eq!(e.value, want, "{s:?}");
                let perfect = perfect_moves(&table, s).unwrap();
                let total: f32 = e.priors.iter().sum();
                assert!((total - 1.0).abs() < 1e-5);
                for a in 0..MAX_HOLES {
                    assert_eq!(e.priors[a] > 0.0, perfect >> a & 1 == 1, "{s:?}");
                }
            }
            None => {
                assert_eq!(e.value, 0.5);
                passed.push(*s);
            }
        }
    }
    assert_eq!(
        evaluator_inner(evaluator),
        passed,
        "the rest, in order, once each"
    );
    assert!(
        results.iter().all(|&n| n > 10) && passed.len() > 10,
        "{results:?}"
    );
}

fn evaluator_inner(e: TablebaseEvaluator<Counting>) -> Vec<State> {
    e.into_inner().0
}

/// A table of `rules` up to `k` seeds written to a file unique to this test process.
fn table_file(rules: &Rules, k: u32, name: &str) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("sowing-tb-agents-{}-{name}.tb", std::process::id()));
    let mut t = Tablebase::build(rules, k, &BuildOptions::default()).unwrap();
    t.write(&path).unwrap();
    path
}

#[test]
fn a_table_file_is_read_once_per_process_however_it_is_spelled() {
    let rules = rules(3, 1, |_| {});
    let path = table_file(&rules, 6, "shared");
    let a = shared_tablebase(&path).unwrap();
    let dir = path.parent().unwrap();
    let spelled = dir.join(".").join(path.file_name().unwrap());
    let b = shared_tablebase(&spelled).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn bad_table_options_are_refused_with_what_is_allowed() {
    let rules = rules(3, 1, |_| {});
    let path = table_file(&rules, 6, "specs");
    let tb = path.display().to_string();
    let message = |spec: &str| match from_spec(spec) {
        Ok(_) => panic!("{spec} must be refused"),
        Err(e) => e.to_string(),
    };
    let cases = [
        (
            "alphabeta:4:tb=".to_string(),
            "tb= needs the tablebase file",
        ),
        ("greedy:tb=x.tb".to_string(), "greedy takes no option tb="),
        ("random:tb=x.tb".to_string(), "random takes no option tb="),
        (
            "mcts:100:solver=5".to_string(),
            "mcts takes no option solver=",
        ),
        (
            "alphabeta:4:depth=5".to_string(),
            "unknown option \"depth\"",
        ),
        (
            format!("alphabeta:4:tb={tb}:tb={tb}"),
            "option tb= is given twice",
        ),
        ("alphabeta:tb=x.tb".to_string(), "alphabeta needs a budget"),
        (
            "mcts:100:tb=/no/such/table.tb".to_string(),
            "/no/such/table.tb",
        ),
    ];
    for (spec, want) in cases {
        let msg = message(&spec);
        assert!(msg.contains(want), "{spec}: {msg}");
        assert!(msg.contains("tb=FILE"), "the options are listed: {msg}");
    }
    // A file that is not a table.
    let junk =
        std::env::temp_dir().join(format!("sowing-tb-agents-{}-junk.tb", std::process::id()));
    std::fs::write(&junk, b"not a table").unwrap();
    let msg = message(&format!("alphabeta:4:tb={}", junk.display()));
    assert!(
        msg.contains(&junk.display().to_string()) && msg.contains("tb="),
        "{msg}"
    );
    // A table of other rules: the agent is made, but refuses the game, naming the field.
    let agent = from_spec(&format!("alphabeta:4:tb={tb}")).unwrap();
    let other = Rules::preset("en-dodoi-8").unwrap();
    let refused = agent.can_play(&other).unwrap_err();
    assert!(
        refused.contains("holes") && refused.contains(&tb),
        "{refused}"
    );
    agent.can_play(&rules).unwrap();
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&junk);
}
