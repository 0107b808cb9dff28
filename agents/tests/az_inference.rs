//! The forward pass without libtorch (`az::Inference`) computes what the libtorch network does:
//! the same priors and values to within float rounding, for every board size, with and without
//! the look-ahead input and a span, through every layer (weights drawn at random, the norms'
//! gains and biases too, so that none is left at its identity); its buffers kept from call to
//! call change nothing; it is a snapshot that later training does not touch; a ring body has
//! none. `Playing`, through which everything plays a network, takes it for an MLP and libtorch
//! for a ring body, and either way plays a copy that later training does not touch.
#![cfg(feature = "torch")]

mod common;

use common::positions;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::az::{Body, Inference, NetConfig, Playing, PolicyValueNet};
use sowing_agents::{Evaluation, Evaluator};
use sowing_env::{MAX_HOLES, Rules, State};
use tch::{Device, Tensor, nn};

/// A network of `config` whose every variable is drawn at random (seeded), so that the norms'
/// gains and biases are not their initial ones and a layer left out would show.
fn scrambled(vs: &nn::VarStore, config: NetConfig, seed: i64) -> PolicyValueNet {
    let net = PolicyValueNet::seeded(&vs.root(), config, seed as u64);
    tch::manual_seed(seed);
    tch::no_grad(|| {
        for (_, mut v) in vs.variables() {
            let scale = 1.0 / (v.size().last().copied().unwrap_or(1) as f64).sqrt();
            let r = Tensor::randn(v.size(), (v.kind(), v.device())) * (2.0 * scale) + 0.1;
            v.copy_(&r);
        }
    });
    net
}

/// What a training step does, as far as a snapshot can tell: every weight of `vs` moves.
fn move_every_weight(vs: &nn::VarStore) {
    tch::no_grad(|| {
        for (_, mut v) in vs.variables() {
            let moved = &v * 1.5 + 0.05;
            v.copy_(&moved);
        }
    });
}

/// An MLP of that shape.
fn mlp(
    holes: usize,
    hidden: usize,
    blocks: usize,
    lookahead: bool,
    span: Option<usize>,
) -> NetConfig {
    NetConfig {
        holes,
        hidden,
        blocks,
        lookahead,
        body: Body::Mlp,
        span,
    }
}

fn zero() -> Evaluation {
    Evaluation {
        priors: [0.0; MAX_HOLES],
        value: 0.0,
    }
}

/// The largest difference between two evaluations' priors and values.
fn gap(a: &[Evaluation], b: &[Evaluation]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let p = x
                .priors
                .iter()
                .zip(&y.priors)
                .map(|(p, q)| (p - q).abs())
                .fold(0.0f32, f32::max);
            p.max((x.value - y.value).abs())
        })
        .fold(0.0f32, f32::max)
}

fn both(net: &mut PolicyValueNet, fast: &mut Inference, states: &[State]) -> f32 {
    let mut want = vec![zero(); states.len()];
    net.evaluate_states(states, &mut want);
    let mut got = vec![zero(); states.len()];
    fast.evaluate_states(states, &mut got);
    // Illegal actions get exactly zero either way.
    for (s, e) in states.iter().zip(&got) {
        for a in 0..s.holes() {
            if !s.is_legal(a) {
                assert_eq!(e.priors[a], 0.0, "an illegal action's prior");
            }
        }
        let total: f32 = e.priors[..s.holes()].iter().sum();
        assert!((total - 1.0).abs() < 1e-5, "priors sum to {total}");
    }
    gap(&want, &got)
}

#[test]
fn it_computes_what_the_libtorch_network_does() {
    for (preset, holes) in [("en-dodoi-6", 6), ("en-dodoi-8", 8), ("en-dodoi-10", 10)] {
        let rules = Rules::preset(preset).unwrap();
        for lookahead in [true, false] {
            for (hidden, blocks) in [(128, 4), (24, 1), (16, 0)] {
                let config = mlp(holes, hidden, blocks, lookahead, None);
                let vs = nn::VarStore::new(Device::Cpu);
                let mut net = scrambled(&vs, config, holes as i64 + hidden as i64);
                let mut fast = Inference::of(&net).expect("an MLP has one");
                let states = positions(&rules, 200, 1);
                let worst = both(&mut net, &mut fast, &states);
                assert!(
                    worst < 2e-5,
                    "{preset}, {hidden} x {blocks}, lookahead {lookahead}: differs by {worst}"
                );
            }
        }
    }
}

#[test]
fn a_span_network_plays_each_board_as_libtorch_does() {
    for lookahead in [true, false] {
        let config = mlp(10, 32, 2, lookahead, Some(10));
        let vs = nn::VarStore::new(Device::Cpu);
        let mut net = scrambled(&vs, config, 7);
        let mut fast = Inference::of(&net).unwrap();
        for preset in [
            "en-dodoi-6",
            "en-dodoi-8",
            "sadeqa-iii",
            "en-dodoi-9",
            "en-dodoi-10",
        ] {
            let rules = Rules::preset(preset).unwrap();
            assert!(fast.plays(rules.holes()));
            let states = positions(&rules, 100, 2);
            let worst = both(&mut net, &mut fast, &states);
            assert!(worst < 2e-5, "{preset} in a span of 10: differs by {worst}");
        }
    }
}

#[test]
fn its_kept_buffers_change_nothing() {
    // Batches of 1 to 128 in turn, a smaller after a larger: each as a fresh snapshot gives.
    let rules = Rules::preset("en-dodoi-8").unwrap();
    let config = mlp(8, 48, 2, true, None);
    let vs = nn::VarStore::new(Device::Cpu);
    let net = scrambled(&vs, config, 3);
    let mut warm = Inference::of(&net).unwrap();
    let states = positions(&rules, 300, 4);
    let mut at = 0;
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    for size in [128, 1, 16, 100, 3, 52] {
        let batch = &states[at..at + size];
        at += size;
        let mut got = vec![zero(); size];
        warm.evaluate_batch(batch, &mut rng, &mut got);
        let mut want = vec![zero(); size];
        Inference::of(&net)
            .unwrap()
            .evaluate_batch(batch, &mut rng, &mut want);
        assert_eq!(got, want, "a batch of {size} after others");
        // One at a time gives the same, to rounding (the products' blocking depends on the rows).
        for (s, e) in batch.iter().zip(&want) {
            let one = warm.evaluate(s, &mut rng);
            assert!(gap(&[one], std::slice::from_ref(e)) < 1e-5);
        }
    }
}

#[test]
fn it_is_a_snapshot_of_the_weights_as_they_were() {
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let config = mlp(6, 16, 1, true, None);
    let vs = nn::VarStore::new(Device::Cpu);
    let mut net = scrambled(&vs, config, 5);
    let mut before = Inference::of(&net).unwrap();
    let states = positions(&rules, 50, 6);
    let mut then = vec![zero(); states.len()];
    before.evaluate_states(&states, &mut then);
    // A training step, as it were: every weight moves.
    move_every_weight(&vs);
    let mut still = vec![zero(); states.len()];
    before.evaluate_states(&states, &mut still);
    assert_eq!(then, still, "the snapshot does not follow the weights");
    let mut after = Inference::of(&net).unwrap();
    assert!(both(&mut net, &mut after, &states) < 2e-5);
    assert!(
        gap(&then, &still) == 0.0
            && gap(&then, &{
                let mut now = vec![zero(); states.len()];
                after.evaluate_states(&states, &mut now);
                now
            }) > 1e-3
    );
}

#[test]
fn a_ring_body_has_none() {
    let config = NetConfig {
        holes: 6,
        hidden: 8,
        blocks: 1,
        lookahead: true,
        body: Body::Ring,
        span: None,
    };
    let vs = nn::VarStore::new(Device::Cpu);
    let net = PolicyValueNet::seeded(&vs.root(), config, 0);
    assert!(Inference::of(&net).is_none());
}

#[test]
fn playing_takes_the_fast_pass_for_an_mlp_and_libtorch_for_a_ring() {
    let rules = Rules::preset("en-dodoi-7").unwrap();
    let states = positions(&rules, 40, 8);
    for body in [Body::Mlp, Body::Ring] {
        let config = NetConfig {
            body,
            ..mlp(7, 16, 1, true, None)
        };
        let vs = nn::VarStore::new(Device::Cpu);
        let net = scrambled(&vs, config, 9);
        let mut want = vec![zero(); states.len()];
        net.evaluate_states(&states, &mut want);
        let mut copy = Playing::copy(&vs, &net);
        assert_eq!(copy.is_fast(), body == Body::Mlp, "{body:?}");
        assert_eq!(copy.config(), config);
        assert!(copy.plays(7) && !copy.plays(8));
        let mut got = vec![zero(); states.len()];
        copy.evaluate_states(&states, &mut got);
        let limit = if body == Body::Mlp { 2e-5 } else { 0.0 };
        assert!(gap(&want, &got) <= limit, "{body:?}: {}", gap(&want, &got));
        // Its batches are those of the Evaluator the searches call.
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut batched = vec![zero(); states.len()];
        copy.evaluate_batch(&states, &mut rng, &mut batched);
        assert_eq!(got, batched);
        // Training moves the network's weights; the copy plays on as it was.
        move_every_weight(&vs);
        let mut still = vec![zero(); states.len()];
        copy.evaluate_states(&states, &mut still);
        assert_eq!(got, still, "{body:?}: the copy follows the training");
        let mut moved = vec![zero(); states.len()];
        net.evaluate_states(&states, &mut moved);
        assert!(
            gap(&moved, &got) > 1e-3,
            "{body:?}: the weights did not move"
        );
        // A loaded network plays as its copy would.
        let mut loaded = Playing::loaded(net, vs);
        assert_eq!(loaded.is_fast(), body == Body::Mlp);
        let mut now = vec![zero(); states.len()];
        loaded.evaluate_states(&states, &mut now);
        assert!(
            gap(&moved, &now) <= limit,
            "{body:?}: {}",
            gap(&moved, &now)
        );
    }
}
