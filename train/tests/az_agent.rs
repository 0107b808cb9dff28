//! The `az:` agent's endgame solver: it plays the wins it proves and never a move it proves to
//! lose while another is not proven to; `solver=0` turns it off, and bad budgets are refused.
//! With `tb=FILE` it plays perfectly where the table holds the position.
#![cfg(feature = "torch")]

mod common;

use common::{endgames, tiny_args};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::az::SOLVER_NODES;
use sowing_agents::from_spec;
use sowing_env::Rules;
use sowing_exact::tablebase::{BuildOptions, Tablebase};
use sowing_exact::{Solver, Wdl};
use sowing_train::Trainer;
use std::path::PathBuf;

/// A run directory (`name`, for this test alone) with one tiny iteration: a network that plays
/// legal moves, and little else.
fn tiny_run(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-azagent-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Trainer::new(tiny_args(&dir))
        .unwrap()
        .iterate(&mut |_| {})
        .unwrap();
    dir
}

#[test]
fn the_solver_plays_proven_wins_and_spares_proven_losses() {
    let dir = tiny_run("solver");
    let mut with = from_spec(&format!("az:{}:4", dir.display())).unwrap();
    let mut without = from_spec(&format!("az:{}:4:solver=0", dir.display())).unwrap();
    assert_eq!(without.name(), format!("az:{}:4:solver=0", dir.display()));
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let (mut wins, mut spared, mut missed_without) = (0, 0, 0);
    for s in endgames("en-dodoi-6", 10..=20, 150, 4) {
        let proof = Solver::new(18).prove(&s, SOLVER_NODES, 999);
        with.new_game();
        without.new_game();
        let choice = with.choose(&s, &mut rng);
        let plain = without.choose(&s, &mut rng);
        if let Some((a, _)) = proof.winning {
            assert_eq!(choice, a, "{s:?}");
            wins += 1;
            missed_without += usize::from(plain != a);
        } else if proof.losing != 0 && !proof.lost(&s) {
            assert_eq!(proof.losing >> choice & 1, 0, "{s:?}: {proof:?}");
            spared += 1;
            missed_without += usize::from(proof.losing >> plain & 1 == 1);
        }
    }
    assert!(wins > 10 && spared > 10, "{wins} {spared}");
    // Without the solver the tiny network goes wrong in some of them: the test has teeth.
    assert!(missed_without > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_solver_budget_is_refused_with_the_allowed_range() {
    for bad in ["solver=x", "solver=-1", "solver=1000000001", "solver="] {
        let spec = format!("az:/nowhere:4:{bad}");
        let msg = match from_spec(&spec) {
            Ok(_) => panic!("{spec} must be refused"),
            Err(e) => e.to_string(),
        };
        assert!(
            msg.contains("solver= takes a number of positions, 0 to 1000000000"),
            "{msg}"
        );
    }
}

#[test]
fn a_bad_leaf_count_is_refused_with_the_allowed_range() {
    for bad in [
        "leaves=x",
        "leaves=0",
        "leaves=-1",
        "leaves=257",
        "leaves=",
        "leaves=1.5",
    ] {
        let spec = format!("az:/nowhere:50ms:{bad}");
        let msg = match from_spec(&spec) {
            Ok(_) => panic!("{spec} must be refused"),
            Err(e) => e.to_string(),
        };
        assert!(
            msg.contains("leaves= takes a number of leaves per forward pass, 1 to 256"),
            "{msg}"
        );
    }
    let msg = match from_spec("alphabeta:4:leaves=8") {
        Ok(_) => panic!("alpha-beta has no leaves to batch"),
        Err(e) => e.to_string(),
    };
    assert!(msg.contains("alphabeta takes no option leaves="), "{msg}");
}

#[test]
fn spec_errors_list_the_az_forms() {
    let message = |spec: &str| match from_spec(spec) {
        Ok(_) => panic!("{spec} must be refused"),
        Err(e) => e.to_string(),
    };
    for spec in ["wizard", "az", "az:"] {
        let msg = message(spec);
        assert!(msg.contains("az:PATH[:SIMS|:TIME]:solver=NODES"), "{msg}");
        assert!(
            msg.contains("az:PATH:TIME (e.g. az:runs/demo:50ms"),
            "{msg}"
        );
    }
    let msg = message("az");
    assert!(
        msg.contains("az needs a checkpoint path after the colon"),
        "{msg}"
    );
}

#[test]
fn a_time_budget_names_the_agent_and_plays_whole_games() {
    let dir = tiny_run("time");
    let rules = Rules::preset("en-dodoi-6").unwrap();
    for (budget, name) in [("20ms", "20ms"), ("0.02s", "20ms"), ("1s", "1s")] {
        let agent = from_spec(&format!("az:{}:{budget}", dir.display())).unwrap();
        assert_eq!(agent.name(), format!("az:{}:{name}", dir.display()));
    }
    // With a time the solver is off unless asked for; with a count it is on unless turned off.
    let named = |spec: &str| {
        from_spec(&format!("az:{}:{spec}", dir.display()))
            .unwrap()
            .name()
    };
    let d = dir.display();
    assert_eq!(named("20ms:solver=0"), format!("az:{d}:20ms"));
    assert_eq!(named("20ms:solver=500"), format!("az:{d}:20ms:solver=500"));
    assert_eq!(
        named(&format!("4:solver={SOLVER_NODES}")),
        format!("az:{d}:4")
    );
    assert_eq!(named("4:solver=0"), format!("az:{d}:4:solver=0"));
    // With a time 64 leaves a forward pass unless told; with a count one.
    assert_eq!(named("20ms:leaves=64"), format!("az:{d}:20ms"));
    assert_eq!(named("20ms:leaves=16"), format!("az:{d}:20ms:leaves=16"));
    assert_eq!(named("20ms:leaves=1"), format!("az:{d}:20ms:leaves=1"));
    assert_eq!(named("4:leaves=1"), format!("az:{d}:4"));
    assert_eq!(
        named("4:solver=0:leaves=8"),
        format!("az:{d}:4:solver=0:leaves=8")
    );
    // A count of simulations with batched leaves plays whole games too.
    let mut batched = from_spec(&format!("az:{}:64:leaves=8", dir.display())).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut state = sowing_env::State::initial(&rules);
    batched.new_game();
    while !state.is_over() {
        state = state.play(batched.choose(&state, &mut rng)).unwrap();
    }
    // Every move of a game within the time: legal, and the game ends.
    let mut agent = from_spec(&format!("az:{}:5ms:solver=0", dir.display())).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut state = sowing_env::State::initial(&rules);
    agent.new_game();
    while !state.is_over() {
        let action = agent.choose(&state, &mut rng);
        assert!(
            state.legal_mask() & (1 << action) != 0,
            "{action} is illegal"
        );
        state = state.play(action).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_az_budget_is_refused_with_the_allowed_range() {
    for (budget, wanted) in [
        ("0", "simulations 0 is out of range: 1 to 1000000"),
        (
            "1000001",
            "simulations 1000001 is out of range: 1 to 1000000",
        ),
        ("0ms", "time \"0ms\" is out of range: 1ms to 3600s"),
        ("3601s", "time \"3601s\" is out of range"),
        ("5xs", "\"5xs\" is not a number of seconds"),
        ("1.5ms", "\"1.5ms\" is not a whole number of milliseconds"),
    ] {
        let spec = format!("az:/nowhere:{budget}");
        let msg = match from_spec(&spec) {
            Ok(_) => panic!("{spec} must be refused"),
            Err(e) => e.to_string(),
        };
        assert!(msg.contains(wanted), "{spec}: {msg}");
    }
}

#[test]
fn with_a_tablebase_it_plays_perfectly_inside_it() {
    let dir = tiny_run("tablebase");
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let mut table = Tablebase::build(&rules, 8, &BuildOptions::default()).unwrap();
    let file = dir.join("en-dodoi-6-8.tb");
    table.write(&file).unwrap();
    let spec = format!("az:{}:4:solver=0:tb={}", dir.display(), file.display());
    let mut agent = from_spec(&spec).unwrap();
    assert_eq!(agent.name(), spec);
    agent.can_play(&rules).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut decided = 0;
    for s in endgames("en-dodoi-6", 1..=8, 60, 8)
        .into_iter()
        .chain(endgames("en-dodoi-6", 9..=12, 20, 9))
    {
        let a = agent.choose(&s, &mut rng);
        assert!(s.is_legal(a));
        if let Some(moves) = table.move_values(&s) {
            let best = moves.iter().map(|(_, p)| p.result(&s)).max().unwrap();
            let (_, chosen) = moves.iter().find(|(m, _)| *m == a).unwrap();
            assert_eq!(chosen.result(&s), best, "{s:?}");
            decided += usize::from(best != Wdl::Draw);
        }
    }
    assert!(decided > 20, "{decided}");
    let _ = std::fs::remove_dir_all(&dir);
}
