//! Accuracy on exact positions: a player that reads the tablebase keeps every result, random play
//! keeps what counting the keeping moves predicts, moves do not depend on the threads or on the
//! part of the set measured, a batch player and an agent drawing the same streams agree, and a
//! player that cannot play or plays an illegal move is a clear error.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, AgentSpec, SpecError};
use sowing_env::{Rules, State, random_action};
use sowing_eval::accuracy::{self, Accuracy, BAND_SEEDS, Trial};
use sowing_eval::matches::{BatchPlayer, Factory, MatchError, Seat};
use sowing_exact::positions::ExactPosition;
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use std::sync::{Arc, OnceLock};

/// A 2x3 game of 2 seeds a hole, and its table of every position (12 seeds at most).
fn tiny() -> &'static (Rules, Arc<Tablebase>) {
    static TINY: OnceLock<(Rules, Arc<Tablebase>)> = OnceLock::new();
    TINY.get_or_init(|| {
        let rules = Rules::from_json(r#"{"holes": 3, "seeds": 2}"#).unwrap();
        let table = Tablebase::build(&rules, 12, &BuildOptions::default()).unwrap();
        (rules, Arc::new(table))
    })
}

/// `count` positions of random games, each labelled by the table: every position of a game is
/// taken with probability one half.
fn labelled(count: usize, seed: u64) -> Vec<ExactPosition> {
    let (rules, table) = tiny();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut s = State::initial(rules);
        while let Some(a) = random_action(&s, &mut rng) {
            if rng.random_bool(0.5)
                && let Some(p) = ExactPosition::from_tablebase(&s, table)
            {
                out.push(p);
                if out.len() == count {
                    break;
                }
            }
            s = s.play_unchecked(a);
        }
    }
    out
}

/// Plays perfectly: the move with the best result, and among those the best margin (or, with
/// `margin_first`, the best margin, and among those the best result).
struct TablePlayer {
    table: Arc<Tablebase>,
    margin_first: bool,
}

impl Agent for TablePlayer {
    fn name(&self) -> String {
        "table".to_string()
    }

    fn choose(&mut self, state: &State, _: &mut ChaCha8Rng) -> usize {
        let moves = self
            .table
            .move_values(state)
            .expect("the table holds every position");
        moves
            .iter()
            .max_by_key(|(_, p)| {
                let result = p.result(state);
                if self.margin_first {
                    (p.value, result as i32)
                } else {
                    (result as i32, p.value)
                }
            })
            .expect("a position not over has moves")
            .0
    }
}

/// Always the lowest legal action.
struct FirstMove;

impl Agent for FirstMove {
    fn name(&self) -> String {
        "first".to_string()
    }

    fn choose(&mut self, state: &State, _: &mut ChaCha8Rng) -> usize {
        state.legal_actions().next().expect("a legal move")
    }
}

/// Chooses hole 0 whatever the position (illegal where it is empty).
struct HoleZero;

impl Agent for HoleZero {
    fn name(&self) -> String {
        "hole-zero".to_string()
    }

    fn choose(&mut self, _: &State, _: &mut ChaCha8Rng) -> usize {
        0
    }
}

/// A network trained on another board, say.
struct Refuses;

impl Agent for Refuses {
    fn name(&self) -> String {
        "refuses".to_string()
    }

    fn choose(&mut self, _: &State, _: &mut ChaCha8Rng) -> usize {
        unreachable!("never asked to play")
    }

    fn can_play(&self, rules: &Rules) -> Result<(), String> {
        Err(format!("refuses {}", rules.summary()))
    }
}

/// The agents of these tests, which no spec names: each stands in as the spec `az:NAME`.
const TEST_AGENTS: [&str; 5] = ["table", "table-margin", "first", "hole-zero", "refuses"];

/// The agents of these tests by their stand-in specs, the baselines by their specs.
fn factory(spec: &AgentSpec) -> Result<Box<dyn Agent>, SpecError> {
    let name = match spec {
        AgentSpec::Az { path, .. } => path.to_str().unwrap_or(""),
        _ => "",
    };
    match name {
        "table" | "table-margin" => Ok(Box::new(TablePlayer {
            table: tiny().1.clone(),
            margin_first: name == "table-margin",
        })),
        "first" => Ok(Box::new(FirstMove)),
        "hole-zero" => Ok(Box::new(HoleZero)),
        "refuses" => Ok(Box::new(Refuses)),
        _ => spec.build(),
    }
}

fn measure_with(
    positions: &[ExactPosition],
    spec: &str,
    seed: u64,
    threads: usize,
    first: u64,
) -> Result<Accuracy, MatchError> {
    let trial = Trial {
        rules: tiny().0,
        positions,
        first,
        seed,
        threads,
    };
    let spec: AgentSpec = if TEST_AGENTS.contains(&spec) {
        format!("az:{spec}").parse()?
    } else {
        spec.parse()?
    };
    let factory: &Factory = &factory;
    let mut seat = Seat::Agent { spec, factory };
    accuracy::measure(&trial, &mut seat, &mut |_| {})
}

fn measure(positions: &[ExactPosition], spec: &str, seed: u64, threads: usize) -> Accuracy {
    measure_with(positions, spec, seed, threads, 0).unwrap()
}

#[test]
fn players_that_read_the_table_keep_every_result_or_every_best_margin() {
    let positions = labelled(1500, 1);
    let a = measure(&positions, "table", 0, 2);
    assert_eq!(a.positions(), 1500);
    assert_eq!(a.kept.result.hits, 1500.0);
    assert_eq!(a.kept.critical.hits, a.kept.critical.n as f64);
    assert!(a.kept.critical.n > 100 && a.kept.critical.n < 1500);
    let (low, high) = a.kept.result.wilson().unwrap();
    assert!(low > 0.99 && high == 1.0);
    assert!(
        a.bands()
            .all(|b| b.kept.result.hits == b.kept.result.n as f64)
    );
    // Where endless play is within reach, the move of the best margin may lose a game that
    // another move holds in a cycle: perfect play for the result then gives up the margin.
    let both = positions
        .iter()
        .filter(|p| p.keeps_result() & p.keeps_margin().unwrap() != 0)
        .count();
    assert!(both < 1500, "the set has no position where they differ");
    assert_eq!(a.kept.margin.n, 1500);
    assert_eq!(a.kept.margin.hits, both as f64);
    let m = measure(&positions, "table-margin", 0, 2);
    assert_eq!(m.kept.margin.hits, 1500.0);
    assert_eq!(m.kept.result.hits, both as f64);
}

#[test]
fn a_paired_comparison_counts_the_positions_where_only_one_kept_it() {
    let positions = labelled(1500, 3);
    let table = measure(&positions, "table", 0, 2);
    let first = measure(&positions, "first", 0, 2);
    let critical = accuracy::Paired::critical(&positions, &table, &first);
    assert_eq!(critical.n, table.kept.critical.n);
    assert_eq!(critical.only_second, 0);
    assert_eq!(
        critical.only_first as f64,
        table.kept.critical.hits - first.kept.critical.hits
    );
    assert!(critical.only_first > 20 && critical.p_value() < 1e-6);
    // Turned round, the same split the other way; a player against itself differs nowhere.
    let back = accuracy::Paired::critical(&positions, &first, &table);
    assert_eq!(
        (back.only_first, back.only_second),
        (0, critical.only_first)
    );
    assert_eq!(back.difference(), critical.difference().map(|d| -d));
    let same = accuracy::Paired::margin(&positions, &first, &first);
    assert_eq!((same.n, same.only_first, same.only_second), (1500, 0, 0));
    assert_eq!(same.p_value(), 1.0);
}

#[test]
fn random_play_keeps_the_share_of_keeping_moves_on_average() {
    let positions = labelled(10_000, 2);
    // Random play keeps the result in a position with probability (keeping moves) / (legal moves):
    // the expected count is the sum of these, with variance the sum of p (1 - p).
    let share = |bits: u16, p: &ExactPosition| bits.count_ones() as f64 / p.moves.len() as f64;
    let expected = |chances: &[f64]| -> (f64, f64, f64) {
        let mean: f64 = chances.iter().sum();
        let var: f64 = chances.iter().map(|q| q * (1.0 - q)).sum();
        (mean, var.sqrt(), chances.len() as f64)
    };
    let result: Vec<f64> = positions
        .iter()
        .map(|p| share(p.keeps_result(), p))
        .collect();
    let critical: Vec<f64> = result.iter().copied().filter(|&q| q < 1.0).collect();
    let margin: Vec<f64> = positions
        .iter()
        .map(|p| share(p.keeps_margin().unwrap(), p))
        .collect();
    let a = measure(&positions, "random", 3, 2);
    assert_eq!(a.kept.critical.n, critical.len() as u64);
    for (what, got, (mean, sd, n)) in [
        ("result", a.kept.result.hits, expected(&result)),
        ("critical", a.kept.critical.hits, expected(&critical)),
        ("margin", a.kept.margin.hits, expected(&margin)),
    ] {
        // Four standard deviations: a correct count fails this once in 15,000 runs, and the band
        // is narrow (under 3% of the positions), far from perfect play's count.
        assert!(
            (got - mean).abs() < 4.0 * sd,
            "{what}: random kept {got}, expected {mean:.1} ± {sd:.1}"
        );
        assert!(4.0 * sd < 0.03 * n, "{what}: the band is too wide to tell");
        assert!(
            n - mean > 20.0 * sd,
            "{what}: random is too close to perfect"
        );
    }
}

#[test]
fn phases_count_each_position_in_the_band_of_its_seeds() {
    let positions = labelled(800, 4);
    let a = measure(&positions, "first", 0, 1);
    let mut want = [0u64; 2];
    for p in &positions {
        want[(p.seeds() / BAND_SEEDS) as usize] += 1;
    }
    let bands: Vec<(u32, u32, u64)> = a
        .bands()
        .map(|b| (b.low, b.high, b.kept.result.n))
        .collect();
    let expected: Vec<(u32, u32, u64)> = want
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(b, &n)| (b as u32 * 8, b as u32 * 8 + 7, n))
        .collect();
    assert_eq!(bands, expected);
    // The lowest move keeps the result where it is one of the keeping moves.
    for b in a.bands() {
        let kept = positions
            .iter()
            .filter(|p| (b.low..=b.high).contains(&p.seeds()))
            .filter(|p| p.keeps_result() & 1 << p.moves[0].action != 0)
            .count();
        assert_eq!(b.kept.result.hits, kept as f64);
    }
}

#[test]
fn moves_depend_on_the_seed_and_position_but_not_on_threads_or_parts() {
    let positions = labelled(400, 5);
    for spec in ["random", "greedy", "mcts:30", "alphabeta:3"] {
        let one = measure(&positions, spec, 7, 1);
        for threads in [2, 3] {
            let many = measure(&positions, spec, 7, threads);
            assert_eq!(many.moves, one.moves, "{spec} on {threads} threads");
            assert_eq!(many.kept, one.kept, "{spec} on {threads} threads");
        }
        // Measured in two parts, each position numbered in the whole set: the same moves, and
        // the same figures once merged.
        let mut first = measure_with(&positions[..150], spec, 7, 2, 0).unwrap();
        let second = measure_with(&positions[150..], spec, 7, 2, 150).unwrap();
        first.merge(&second);
        assert_eq!(first.moves, one.moves, "{spec} in parts");
        assert_eq!((first.kept, &first.phases), (one.kept, &one.phases));
        assert_eq!(first.seconds_per_move.n, 400);
    }
    let other_seed = measure(&positions, "random", 8, 1);
    assert_ne!(other_seed.moves, measure(&positions, "random", 7, 1).moves);
}

/// Plays as the random agent does, for many positions at once.
struct RandomBatch {
    calls: Vec<usize>,
}

impl BatchPlayer for RandomBatch {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn choose_batch(
        &mut self,
        slots: &[usize],
        states: &[State],
        rngs: &mut [ChaCha8Rng],
    ) -> Vec<usize> {
        self.calls.push(slots.len());
        states
            .iter()
            .zip(rngs)
            .map(|(s, rng)| random_action(s, rng).unwrap())
            .collect()
    }
}

#[test]
fn a_batch_player_draws_the_streams_an_agent_of_its_name_draws() {
    let positions = labelled(600, 6);
    let mut player = RandomBatch { calls: Vec::new() };
    let trial = Trial {
        rules: tiny().0,
        positions: &positions,
        first: 0,
        seed: 9,
        threads: 2,
    };
    let mut done = Vec::new();
    let batch =
        accuracy::measure(&trial, &mut Seat::Batch(&mut player), &mut |n| done.push(n)).unwrap();
    assert_eq!(player.calls, vec![256, 256, 88]);
    assert_eq!(done, vec![256, 512, 600]);
    let agent = measure(&positions, "random", 9, 2);
    assert_eq!(batch.moves, agent.moves);
    assert_eq!(batch.kept, agent.kept);
    assert_eq!(batch.player, "random");
}

#[test]
fn players_that_cannot_play_or_play_illegal_moves_are_clear_errors() {
    let positions = labelled(300, 7);
    let e = measure_with(&positions, "hole-zero", 0, 2, 10).unwrap_err();
    let MatchError::IllegalMove { agent, message } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(agent, "az:hole-zero");
    let at = positions
        .iter()
        .position(|p| !p.state.is_legal(0))
        .expect("some position has hole 0 empty");
    assert!(
        message.contains(&format!("position {} of the set", 10 + at)),
        "{message}"
    );
    let e = measure_with(&positions, "refuses", 0, 2, 0).unwrap_err();
    assert_eq!(
        e,
        MatchError::Config(format!("refuses {}", tiny().0.summary()))
    );
    let e = measure_with(&positions, "alphabeta:0", 0, 2, 0).unwrap_err();
    assert!(matches!(e, MatchError::Spec(_)), "{e:?}");
    assert!(e.to_string().contains("alphabeta:0"), "{e}");
}

#[test]
fn an_empty_trial_measures_nothing() {
    let a = measure(&[], "random", 0, 2);
    assert_eq!(a.positions(), 0);
    assert_eq!(a.kept.result.value(), None);
    assert_eq!(a.bands().count(), 0);
}

/// An alias is measured on the set of the preset it names, and told how to make that one.
#[test]
fn an_alias_names_the_committed_set_of_its_preset() {
    assert_eq!(
        sowing_eval::accuracy::committed_set("en-dodoi"),
        sowing_eval::accuracy::committed_set("en-dodoi-8")
    );
    assert_eq!(sowing_eval::accuracy::preset_name("en-dodoi"), "en-dodoi-8");
    assert_eq!(
        sowing_eval::accuracy::preset_name("en-dodoi-6"),
        "en-dodoi-6"
    );
    assert!(sowing_eval::accuracy::how_to_make("en-dodoi").contains("--variant en-dodoi-8 "));
}
