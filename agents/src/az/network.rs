//! The policy-value network: a residual MLP over the relative observation, one definition for
//! every board size (the sizes of the first and last layers follow the number of holes).
//!
//! Input: [`encode_input`] of [`crate::features`], which the Python network of `sowing.nn`
//! reads too. Output: policy logits over the `n` actions, illegal ones masked out, and a value in
//! `[-1, 1]` for the player to move. The Python module defines the same layers under the same
//! names, and loads the `weights.safetensors` of a checkpoint.

use crate::evaluator::{Evaluation, Evaluator};
pub use crate::features::encode_input;
use crate::features::input_len;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_env::{MAX_HOLES, State};
use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

/// Logit given to illegal actions: low enough that softmax gives them exactly zero, finite so that
/// a zero target times its log-probability stays zero rather than NaN.
const MASKED_LOGIT: f64 = -1.0e9;

/// The shape of a network; saved with every checkpoint so the network can be rebuilt to load it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetConfig {
    /// Holes per row of the game it plays.
    pub holes: usize,
    /// Width of the hidden layers.
    pub hidden: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Whether the input holds the one-move look-ahead features (networks saved before they
    /// existed have none).
    #[serde(default)]
    pub lookahead: bool,
}

impl NetConfig {
    /// Length of the input vector: observation `2n + 2`, look-ahead `3n` if any, legal mask `n`.
    pub fn input_len(&self) -> usize {
        input_len(self.holes, self.lookahead)
    }
}

/// One pre-norm residual block: `h + W2 relu(W1 norm(h))`.
#[derive(Debug)]
struct Block {
    norm: nn::LayerNorm,
    fc1: nn::Linear,
    fc2: nn::Linear,
}

impl Block {
    fn new(p: &nn::Path, hidden: i64) -> Block {
        Block {
            norm: nn::layer_norm(p / "norm", vec![hidden], Default::default()),
            fc1: nn::linear(p / "fc1", hidden, hidden, Default::default()),
            fc2: nn::linear(p / "fc2", hidden, hidden, Default::default()),
        }
    }

    fn forward(&self, h: &Tensor) -> Tensor {
        h + self
            .fc2
            .forward(&self.fc1.forward(&self.norm.forward(h)).relu())
    }
}

/// The policy-value network. Build it on a `VarStore`'s root path; variable names are stable
/// (`input`, `block{i}/{norm,fc1,fc2}`, `policy`, `value_hidden`, `value`) so checkpoints load.
#[derive(Debug)]
pub struct PolicyValueNet {
    config: NetConfig,
    device: Device,
    input: nn::Linear,
    blocks: Vec<Block>,
    norm: nn::LayerNorm,
    policy: nn::Linear,
    value_hidden: nn::Linear,
    value: nn::Linear,
}

/// libtorch draws initial weights from one generator for the whole process: every network is
/// built holding this lock, so that a run seeded in one thread gets the weights of its seed
/// even while other threads build networks (of which they load the weights anyway).
static TORCH_RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl PolicyValueNet {
    /// A network of shape `config` under `p`, with initial weights drawn from libtorch's
    /// generator as it stands (for a network whose weights are then loaded or copied).
    pub fn new(p: &nn::Path, config: NetConfig) -> PolicyValueNet {
        let _guard = TORCH_RNG
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        PolicyValueNet::build(p, config)
    }

    /// A network of shape `config` under `p`, with initial weights fixed by `seed`.
    pub fn seeded(p: &nn::Path, config: NetConfig, seed: u64) -> PolicyValueNet {
        let _guard = TORCH_RNG
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        tch::manual_seed(seed as i64);
        PolicyValueNet::build(p, config)
    }

    fn build(p: &nn::Path, config: NetConfig) -> PolicyValueNet {
        let hidden = config.hidden as i64;
        let blocks = (0..config.blocks)
            .map(|i| Block::new(&(p / format!("block{i}")), hidden))
            .collect();
        PolicyValueNet {
            config,
            device: p.device(),
            input: nn::linear(
                p / "input",
                config.input_len() as i64,
                hidden,
                Default::default(),
            ),
            blocks,
            norm: nn::layer_norm(p / "norm", vec![hidden], Default::default()),
            policy: nn::linear(
                p / "policy",
                hidden,
                config.holes as i64,
                Default::default(),
            ),
            value_hidden: nn::linear(p / "value_hidden", hidden, hidden / 2, Default::default()),
            value: nn::linear(p / "value", hidden / 2, 1, Default::default()),
        }
    }

    /// Its shape.
    pub fn config(&self) -> NetConfig {
        self.config
    }

    /// The device its weights live on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Policy logits (`[B, n]`, illegal actions at a huge negative value) and values (`[B]`, in
    /// `[-1, 1]`) for inputs `x` (`[B, input_len]`) whose last `n` columns are the legal mask.
    pub fn forward(&self, x: &Tensor) -> (Tensor, Tensor) {
        let n = self.config.holes as i64;
        let legal = x.narrow(1, self.config.input_len() as i64 - n, n).gt(0.5);
        let mut h = self.input.forward(x).relu();
        for block in &self.blocks {
            h = block.forward(&h);
        }
        let h = self.norm.forward(&h).relu();
        let logits = self
            .policy
            .forward(&h)
            .masked_fill(&legal.logical_not(), MASKED_LOGIT);
        let value = self
            .value
            .forward(&self.value_hidden.forward(&h).relu())
            .tanh()
            .squeeze_dim(1);
        (logits, value)
    }

    /// Evaluate many states in one forward pass, without gradients. Every state must have this
    /// network's number of holes and must not be over.
    pub fn evaluate_states(&self, states: &[State], out: &mut [Evaluation]) {
        if states.is_empty() {
            return;
        }
        let n = self.config.holes;
        let len = self.config.input_len();
        let mut input = vec![0.0f32; states.len() * len];
        for (s, row) in states.iter().zip(input.chunks_exact_mut(len)) {
            encode_input(s, self.config.lookahead, row);
        }
        let (priors, values) = tch::no_grad(|| {
            let x = Tensor::from_slice(&input)
                .view([states.len() as i64, len as i64])
                .to_device(self.device);
            let (logits, value) = self.forward(&x);
            (
                logits.softmax(-1, Kind::Float).to_device(Device::Cpu),
                value.to_device(Device::Cpu),
            )
        });
        let mut p = vec![0.0f32; states.len() * n];
        priors.copy_data(&mut p, states.len() * n);
        let mut v = vec![0.0f32; states.len()];
        values.copy_data(&mut v, states.len());
        for ((slot, row), value) in out.iter_mut().zip(p.chunks_exact(n)).zip(v) {
            let mut priors = [0.0f32; MAX_HOLES];
            priors[..n].copy_from_slice(row);
            *slot = Evaluation { priors, value };
        }
    }
}

impl Evaluator for PolicyValueNet {
    fn evaluate(&mut self, state: &State, _rng: &mut ChaCha8Rng) -> Evaluation {
        let mut out = [Evaluation {
            priors: [0.0; MAX_HOLES],
            value: 0.0,
        }];
        self.evaluate_states(std::slice::from_ref(state), &mut out);
        out[0]
    }

    fn evaluate_batch(&mut self, states: &[State], _rng: &mut ChaCha8Rng, out: &mut [Evaluation]) {
        self.evaluate_states(states, out);
    }
}
