//! The `az:` agent's endgame solver: it plays the wins it proves and never a move it proves to
//! lose while another is not proven to; `solver=0` turns it off, and bad budgets are refused.
#![cfg(feature = "torch")]

mod common;

use common::{endgames, tiny_args};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::az::{SOLVER_NODES, Trainer};
use sowing_agents::{Solver, from_spec};
use std::path::PathBuf;

/// A run directory with one tiny iteration: a network that plays legal moves, and little else.
fn tiny_run() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sowing-azagent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Trainer::new(tiny_args(&dir))
        .unwrap()
        .iterate(&mut |_| {})
        .unwrap();
    dir
}

#[test]
fn the_solver_plays_proven_wins_and_spares_proven_losses() {
    let dir = tiny_run();
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
fn spec_errors_list_the_az_forms() {
    let message = |spec: &str| match from_spec(spec) {
        Ok(_) => panic!("{spec} must be refused"),
        Err(e) => e.to_string(),
    };
    for spec in ["wizard", "az", "az:"] {
        let msg = message(spec);
        assert!(msg.contains("az:PATH[:SIMS]:solver=NODES"), "{msg}");
    }
    let msg = message("az");
    assert!(
        msg.contains("az needs a checkpoint path after the colon"),
        "{msg}"
    );
}
