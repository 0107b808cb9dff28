//! Every agent, on every preset, from many random positions, chooses only legal moves; and agent
//! specs parse as documented.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::{FORMS, from_spec};
use sowing_env::{PRESETS, Rules, State, random_action};

const SPECS: [&str; 8] = [
    "random",
    "greedy",
    "alphabeta:1",
    "alphabeta:4",
    "alphabeta:3ms",
    "mcts:1",
    "mcts:64",
    "mcts:3ms",
];

#[test]
fn every_agent_plays_only_legal_moves_on_every_preset() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for name in PRESETS {
        let rules = Rules::preset(name).expect("a preset");
        let mut agents: Vec<_> = SPECS
            .iter()
            .map(|s| from_spec(s).expect("valid spec"))
            .collect();
        for _ in 0..30 {
            // A random position: a random number of random moves from the start.
            let plies = rng.random_range(0..60);
            let mut s = State::initial(&rules);
            for _ in 0..plies {
                match random_action(&s, &mut rng) {
                    Some(a) => s = s.play_unchecked(a),
                    None => break,
                }
            }
            if s.is_over() {
                continue;
            }
            for agent in &mut agents {
                agent.new_game();
                let a = agent.choose(&s, &mut rng);
                assert!(
                    s.is_legal(a),
                    "{} chose illegal {a} on {name} at {s:?}",
                    agent.name()
                );
            }
        }
        // And whole games between them, each agent answering the next.
        for (k, agent) in agents.iter_mut().enumerate() {
            let mut s = State::initial(&rules);
            agent.new_game();
            while !s.is_over() && s.ply() < 40 {
                let a = if s.ply().is_multiple_of(2) {
                    agent.choose(&s, &mut rng)
                } else {
                    random_action(&s, &mut rng).expect("not over")
                };
                s = s
                    .play(a)
                    .unwrap_or_else(|e| panic!("{} on {name}: {e}", SPECS[k]));
            }
        }
    }
}

#[test]
fn specs_name_their_agents() {
    for spec in SPECS {
        assert_eq!(from_spec(spec).expect("valid").name(), spec);
    }
    assert_eq!(
        from_spec("alphabeta:2s").expect("valid").name(),
        "alphabeta:2s"
    );
    assert_eq!(from_spec("mcts:1.5s").expect("valid").name(), "mcts:1500ms");
    assert_eq!(from_spec("mcts:1000ms").expect("valid").name(), "mcts:1s");
}

#[test]
fn a_malformed_spec_says_why_and_shows_the_forms() {
    for (spec, why) in [
        ("", "unknown agent"),
        ("minimax:3", "unknown agent \"minimax\""),
        ("alphabeta", "needs a budget"),
        ("mcts:", "neither a simulations count nor a time"),
        ("alphabeta:0", "depth 0 is out of range: 1 to 64"),
        ("alphabeta:65", "out of range"),
        ("mcts:-5", "neither"),
        ("mcts:0ms", "out of range"),
        ("mcts:5000s", "out of range"),
        ("mcts:fast", "neither"),
        ("alphabeta:1.5ms", "not a whole number of milliseconds"),
        ("random:3", "random takes no budget"),
        ("greedy:1", "greedy takes no budget"),
        ("mcts:20000000", "1 to 10000000"),
    ] {
        let err = from_spec(spec).map(|a| a.name()).expect_err(spec);
        let text = err.to_string();
        assert!(text.contains(why), "{spec:?}: {text}");
        for form in FORMS {
            assert!(text.contains(form), "{spec:?} lists {form:?}: {text}");
        }
    }
}

#[test]
fn a_huge_spec_is_not_echoed_whole() {
    for spec in [
        format!("mcts:{}", "9".repeat(1 << 20)),
        "x".repeat(1 << 20),
        format!("alphabeta:4:{}=1", "k".repeat(1 << 20)),
    ] {
        let text = from_spec(&spec)
            .map(|a| a.name())
            .expect_err("huge")
            .to_string();
        assert!(text.len() < 3_000, "{} bytes: {}", text.len(), &text[..300]);
        assert!(
            text.contains(&format!("({} bytes)", spec.len())),
            "{}",
            &text[..300]
        );
    }
}
