//! Checkpoints carry their weights as safetensors too, by the names and values of the network's
//! variables, and listed with their digest in `meta.json` like the other files.
#![cfg(feature = "torch")]

mod common;

use common::tiny_args;
use sowing_agents::az::checkpoint::{self, SAFETENSORS};
use sowing_train::Trainer;
use tch::Tensor;

#[test]
fn the_safetensors_weights_are_the_network_variables() {
    let dir = std::env::temp_dir().join(format!("sowing-azst-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut trainer = Trainer::new(tiny_args(&dir)).unwrap();
    trainer.iterate(&mut |_| {}).unwrap();
    let folder = checkpoint::iteration_dir(&dir, 1);
    let path = folder.join(SAFETENSORS);
    let saved: Vec<(String, Tensor)> = Tensor::read_safetensors(&path).unwrap();
    let variables = trainer.variables();
    assert_eq!(saved.len(), variables.len());
    for (name, tensor) in &saved {
        let want = &variables[name];
        assert!(tensor.equal(want), "{name} differs");
    }
    for name in [
        "input.weight",
        "block0.fc1.weight",
        "block0.norm.bias",
        "policy.bias",
    ] {
        assert!(variables.contains_key(name), "{name} is not a variable");
    }
    let meta: checkpoint::Meta<serde_json::Value, serde_json::Value> =
        checkpoint::read_meta(&folder).unwrap();
    assert_eq!(meta.files[SAFETENSORS], checkpoint::digest(&path).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}
