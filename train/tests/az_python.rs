//! One network on both sides: the PyTorch network of the Python package (`sowing.nn`) loads a
//! checkpoint of this trainer from its `weights.safetensors` and gives the tch network's outputs
//! to 1e-5, and `az:PATH` plays from Python. Runs the interpreter of the project's environment
//! (`$VIRTUAL_ENV/bin/python`, as `make test` sets it, after `make python` has installed the
//! package).
#![cfg(feature = "torch")]

mod common;

use common::tiny_args;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::az::Body;
use sowing_agents::features::encode_input;
use sowing_env::{Rules, State, random_action};
use sowing_train::Trainer;
use std::process::Command;
use tch::Tensor;

/// What the Python side does: load the checkpoint, run the inputs through the network, and let
/// the agent `az:` choose a move in the initial position.
const SCRIPT: &str = r#"
import json, sys
import numpy as np
import torch
import sowing
from sowing import nn
from sowing.agents import from_spec

run, inputs = sys.argv[1], json.load(open(sys.argv[2]))
net, meta = nn.load(run)
with torch.no_grad():
    logits, value = net(torch.tensor(np.array(inputs, dtype=np.float32)))
agent = from_spec(f"az:{run}:8")
state = sowing.State.initial("en-dodoi-6")
print(json.dumps({
    "logits": logits.tolist(),
    "value": value.tolist(),
    "iteration": meta["iteration"],
    "move": agent.choose(state),
    "legal": state.legal_moves(),
    "name": agent.name,
}))
"#;

fn python() -> String {
    match std::env::var("VIRTUAL_ENV") {
        Ok(venv) => format!("{venv}/bin/python"),
        Err(_) => "python3".to_string(),
    }
}

#[test]
fn the_python_network_gives_the_outputs_of_the_rust_network() {
    python_agrees(Body::Mlp, None);
}

#[test]
fn the_python_ring_network_gives_the_outputs_of_the_rust_one() {
    python_agrees(Body::Ring, None);
}

/// A network laid out for boards of up to 10 holes, playing 2x6: the spread input alike.
#[test]
fn the_python_network_with_a_span_gives_the_outputs_of_the_rust_one() {
    python_agrees(Body::Mlp, Some(10));
}

fn python_agrees(body: Body, span: Option<usize>) {
    let dir = std::env::temp_dir().join(format!(
        "sowing-azpy-{body}-{}-{}",
        span.unwrap_or(0),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = tiny_args(&dir);
    args.hidden = 32;
    args.blocks = 2;
    args.net = body;
    args.span = span;
    let mut trainer = Trainer::new(args).unwrap();
    trainer.iterate(&mut |_| {}).unwrap();

    // Positions of random games, some deep in the game.
    let rules = Rules::preset("en-dodoi-6").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut states = Vec::new();
    while states.len() < 48 {
        let mut s = State::initial(&rules);
        for _ in 0..states.len() {
            match random_action(&s, &mut rng) {
                Some(a) if !s.play_unchecked(a).is_over() => s = s.play_unchecked(a),
                _ => break,
            }
        }
        states.push(s);
    }
    let config = trainer.net().config();
    let len = config.input_len();
    let inputs: Vec<Vec<f32>> = states
        .iter()
        .map(|s| {
            let mut x = vec![0.0; len];
            encode_input(s, config.lookahead, &mut x);
            x
        })
        .collect();
    let flat: Vec<f32> = inputs.concat();
    let x = Tensor::from_slice(&flat).view([states.len() as i64, len as i64]);
    let (logits, value) = tch::no_grad(|| trainer.net().forward(&x));
    let logits: Vec<Vec<f32>> = Vec::try_from(logits).unwrap();
    let value: Vec<f32> = Vec::try_from(value).unwrap();

    let input_file = dir.join("inputs.json");
    std::fs::write(&input_file, serde_json::to_string(&inputs).unwrap()).unwrap();
    let out = Command::new(python())
        .args(["-c", SCRIPT])
        .arg(&dir)
        .arg(&input_file)
        .output()
        .expect("the project's Python runs (make venv)");
    assert!(
        out.status.success(),
        "the Python side failed (is the package installed? make python):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["iteration"], 1);
    let mut worst = 0.0f32;
    for (i, (row, v)) in logits.iter().zip(&value).enumerate() {
        for (a, &l) in row.iter().enumerate() {
            let p = got["logits"][i][a].as_f64().unwrap() as f32;
            // Illegal actions are -1e9 on both sides; legal ones are compared.
            worst = worst.max((p - l).abs() / l.abs().max(1.0));
        }
        let pv = got["value"][i].as_f64().unwrap() as f32;
        worst = worst.max((pv - v).abs());
    }
    assert!(worst < 1e-5, "outputs differ by {worst}");
    let legal: Vec<u64> = got["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_u64().unwrap())
        .collect();
    assert!(legal.contains(&got["move"].as_u64().unwrap()));
    assert_eq!(
        got["name"].as_str().unwrap(),
        format!("az:{}:8", dir.display())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The Python side of the other direction: a network made in PyTorch, saved as a checkpoint by
/// `sowing.nn.save` (safetensors alone), and its outputs on the inputs given.
const SAVE_SCRIPT: &str = r#"
import json, sys
import numpy as np
import torch
from sowing import nn

run, inputs, body = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
torch.manual_seed(4)
net = nn.PolicyValueNet(6, hidden=16, blocks=2, body=body)
nn.save(net, run, "en-dodoi-6", simulations=8)
with torch.no_grad():
    logits, value = net(torch.tensor(np.array(inputs, dtype=np.float32)))
print(json.dumps({"logits": logits.tolist(), "value": value.tolist()}))
"#;

#[test]
fn a_network_saved_from_python_loads_and_plays_in_rust() {
    for body in [Body::Mlp, Body::Ring] {
        let dir = std::env::temp_dir().join(format!("sowing-pysave-{body}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let rules = Rules::preset("en-dodoi-6").unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let mut states = vec![State::initial(&rules)];
        while states.len() < 16 {
            let s = *states.last().unwrap();
            match random_action(&s, &mut rng) {
                Some(a) if !s.play_unchecked(a).is_over() => states.push(s.play_unchecked(a)),
                _ => states.push(State::initial(&rules)),
            }
        }
        let len = sowing_agents::features::input_len(6, true);
        let inputs: Vec<Vec<f32>> = states
            .iter()
            .map(|s| {
                let mut x = vec![0.0; len];
                encode_input(s, true, &mut x);
                x
            })
            .collect();
        let input_file = dir.join("inputs.json");
        std::fs::write(&input_file, serde_json::to_string(&inputs).unwrap()).unwrap();
        let run = dir.join("run");
        let out = Command::new(python())
            .args(["-c", SAVE_SCRIPT])
            .arg(&run)
            .arg(&input_file)
            .arg(body.to_string())
            .output()
            .expect("the project's Python runs (make venv)");
        assert!(
            out.status.success(),
            "the Python side failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let loaded = sowing_agents::az::load_checkpoint(&run).unwrap();
        let flat: Vec<f32> = inputs.concat();
        let x = Tensor::from_slice(&flat)
            .view([states.len() as i64, len as i64])
            .to_device(loaded.vs.device());
        let (logits, value) = tch::no_grad(|| loaded.net.forward(&x));
        let logits: Vec<Vec<f32>> = Vec::try_from(logits.to_device(tch::Device::Cpu)).unwrap();
        let value: Vec<f32> = Vec::try_from(value.to_device(tch::Device::Cpu)).unwrap();
        let mut worst = 0.0f32;
        for (i, (row, v)) in logits.iter().zip(&value).enumerate() {
            for (a, &l) in row.iter().enumerate() {
                let p = got["logits"][i][a].as_f64().unwrap() as f32;
                worst = worst.max((p - l).abs() / l.abs().max(1.0));
            }
            worst = worst.max((got["value"][i].as_f64().unwrap() as f32 - v).abs());
        }
        assert!(worst < 1e-5, "{body}: outputs differ by {worst}");
        // And the agent az:RUN of the command line plays it.
        let mut agent = sowing_agents::from_spec(&format!("az:{}:8", run.display())).unwrap();
        let start = State::initial(&rules);
        let mut move_rng = ChaCha8Rng::seed_from_u64(0);
        assert!(start.is_legal(agent.choose(&start, &mut move_rng)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
