//! A network with a span (`sowing train --span`): laid out for boards of up to `span` holes per
//! row, with the board size as an input, so that one set of weights plays every board up to it.
//! The spread input puts each block where the span's layout has it; holes past the board never
//! reach the output, the board size does; the weights of one board load into the network of
//! another and play it; a span that cannot serve is refused, saying why.
#![cfg(feature = "torch")]

mod common;

use common::positions;
use sowing_agents::az::network::{Body, NetConfig, PolicyValueNet, encode_input};
use sowing_env::{MAX_HOLES, PRESETS, Rules, State};
use tch::{Device, Kind, Tensor, nn};

fn config(holes: usize, lookahead: bool, span: Option<usize>) -> NetConfig {
    NetConfig {
        holes,
        hidden: 24,
        blocks: 1,
        lookahead,
        body: Body::Mlp,
        span,
    }
}

fn inputs(states: &[State], lookahead: bool) -> Tensor {
    let len = NetConfig::input_len(&config(states[0].holes(), lookahead, None));
    let mut x = vec![0.0f32; states.len() * len];
    for (s, row) in states.iter().zip(x.chunks_exact_mut(len)) {
        encode_input(s, lookahead, row);
    }
    Tensor::from_slice(&x).view([states.len() as i64, len as i64])
}

#[test]
fn the_spread_input_lays_each_block_out_for_the_span() {
    // En Dodoi 2x6 in a span of 8, one position after a move:
    //   input (n = 6):  own 6 | theirs 6 | stores 2 | captures 6 | reply 6 | ends 6 | legal 6
    //   spread (8):     own 6 0 0 | theirs 6 0 0 | stores 2 | captures 6 0 0 | reply 6 0 0 |
    //                   ends 6 0 0 | legal 6 0 0 | size 0 0 0 0 0 1 0 0
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let s = State::initial(&rules).play(2).unwrap();
    let vs = nn::VarStore::new(Device::Cpu);
    let net = PolicyValueNet::seeded(&vs.root(), config(6, true, Some(8)), 1);
    let x = inputs(&[s], true);
    let got: Vec<f32> = Vec::try_from(net.spread(&x).view([-1])).unwrap();
    let plain: Vec<f32> = Vec::try_from(x.view([-1])).unwrap();
    assert_eq!(got.len(), net.config().layer_input_len());
    assert_eq!(got.len(), 7 * 8 + 2);
    let block = |from: usize| {
        let mut b = plain[from..from + 6].to_vec();
        b.extend([0.0, 0.0]);
        b
    };
    let mut want = Vec::new();
    want.extend(block(0));
    want.extend(block(6));
    want.extend(&plain[12..14]);
    for k in 0..4 {
        want.extend(block(14 + 6 * k));
    }
    want.extend([0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    assert_eq!(got, want);
    // The seeds are there, not zeros: the position has seeds in both rows.
    assert!(got[..6].iter().any(|&v| v > 0.0) && got[8..14].iter().any(|&v| v > 0.0));
}

#[test]
fn holes_past_the_board_never_reach_the_output_and_the_board_size_does() {
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let states = positions(&rules, 60, 3);
    let x = inputs(&states, true);
    let vs = nn::VarStore::new(Device::Cpu);
    let net = PolicyValueNet::seeded(&vs.root(), config(6, true, Some(10)), 2);
    let (logits, value) = tch::no_grad(|| net.forward(&x));
    assert_eq!(logits.size(), [60, 6]);
    // The input layer's columns of holes 7 to 10 in each block of the span's layout.
    let blocks = [0, 10, 22, 32, 42, 52];
    let input = vs.variables()["input.weight"].shallow_clone();
    tch::no_grad(|| {
        for start in blocks {
            let _ = input.narrow(1, start + 6, 4).fill_(123.0);
        }
    });
    let (logits2, value2) = tch::no_grad(|| net.forward(&x));
    assert!(logits.allclose(&logits2, 1e-6, 1e-6, false));
    assert!(value.allclose(&value2, 1e-6, 1e-6, false));
    // The column of "6 holes" in the one-hot changes every output.
    tch::no_grad(|| {
        let _ = input.narrow(1, 62 + 5, 1).fill_(5.0);
    });
    let (_, value3) = tch::no_grad(|| net.forward(&x));
    assert!(!value.allclose(&value3, 1e-3, 1e-3, false));
}

#[test]
fn one_set_of_weights_plays_every_board_up_to_the_span() {
    let vs6 = nn::VarStore::new(Device::Cpu);
    let net6 = PolicyValueNet::seeded(&vs6.root(), config(6, true, Some(10)), 4);
    let mut played = 0;
    for rules in PRESETS.iter().map(|p| Rules::preset(p).unwrap()) {
        if rules.holes() > 10 {
            continue;
        }
        let mut vs = nn::VarStore::new(Device::Cpu);
        let net = PolicyValueNet::new(&vs.root(), config(rules.holes(), true, Some(10)));
        vs.copy(&vs6)
            .expect("the weights of one board fit another's");
        let states = positions(&rules, 30, 3);
        let (logits, value) = tch::no_grad(|| net.forward(&inputs(&states, true)));
        let n = rules.holes();
        assert_eq!(logits.size(), [30, n as i64]);
        let priors = logits.softmax(-1, Kind::Float);
        let sums: Vec<f32> = Vec::try_from(priors.sum_dim_intlist(1, false, Kind::Float)).unwrap();
        assert!(sums.iter().all(|s| (s - 1.0).abs() < 1e-5), "{sums:?}");
        for (s, row) in states
            .iter()
            .zip(Vec::<Vec<f32>>::try_from(priors).unwrap())
        {
            for (a, p) in row.iter().enumerate() {
                assert!(
                    s.is_legal(a) || *p == 0.0,
                    "illegal action {a} has prior {p}"
                );
            }
        }
        let values: Vec<f32> = Vec::try_from(value).unwrap();
        assert!(values.iter().all(|v| v.abs() <= 1.0));
        // The network of 2x6 reads this board's input itself, and gives the same.
        let (logits6, value6) = tch::no_grad(|| net6.forward(&inputs(&states, true)));
        assert!(logits6.allclose(&logits, 1e-6, 1e-6, false));
        let values6: Vec<f32> = Vec::try_from(value6).unwrap();
        assert_eq!(values6, values);
        assert!(net6.plays(n));
        played += 1;
    }
    assert!(played >= 5, "only {played} presets of up to 10 holes");
    assert!(!net6.plays(11) && !net6.plays(MAX_HOLES));
}

#[test]
fn a_span_that_cannot_serve_is_refused_saying_why() {
    assert!(config(8, true, None).check_span().is_ok());
    assert!(config(8, true, Some(8)).check_span().is_ok());
    assert!(config(8, true, Some(MAX_HOLES)).check_span().is_ok());
    let narrow = config(8, true, Some(7)).check_span().unwrap_err();
    assert!(
        narrow.contains("span 7") && narrow.contains("8 to 16"),
        "{narrow}"
    );
    let wide = config(8, true, Some(MAX_HOLES + 1))
        .check_span()
        .unwrap_err();
    assert!(wide.contains("8 to 16"), "{wide}");
    let ring = NetConfig {
        body: Body::Ring,
        ..config(8, true, Some(10))
    };
    let e = ring.check_span().unwrap_err();
    assert!(e.contains("ring body"), "{e}");
}
