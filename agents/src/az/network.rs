//! The policy-value network, one definition for every board size (the sizes of the first and
//! last layers follow the number of holes), with one of two bodies ([`Body`]):
//!
//! - `mlp`: a residual MLP over the whole input vector;
//! - `ring`: a residual 1-D convolution over the `2n` holes as the ring they are (circular
//!   padding, the mover's row first, in sowing order): each hole carries its seeds and, for the
//!   mover's holes, what its move does (the look-ahead features) and whether it is legal; the
//!   stores are broadcast to every hole. The same weights serve every hole, as the sowing does.
//!
//! Input: [`encode_input`] of [`crate::features`], which the Python network of `sowing.nn`
//! reads too (the ring body rearranges it into channels itself). Output: policy logits over the
//! `n` actions, illegal ones masked out, and a value in `[-1, 1]` for the player to move. The
//! Python module defines the same layers under the same names, and loads the
//! `weights.safetensors` of a checkpoint.

pub use crate::az::shape::{Body, NetConfig};
use crate::evaluator::{Evaluation, Evaluator};
pub use crate::features::encode_input;
use rand_chacha::ChaCha8Rng;
use sowing_env::{MAX_HOLES, State};
use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

/// Logit given to illegal actions: low enough that softmax gives them exactly zero, finite so that
/// a zero target times its log-probability stays zero rather than NaN.
const MASKED_LOGIT: f64 = -1.0e9;

/// An MLP's layers, for [`Inference`](crate::az::inference::Inference) to copy out of libtorch.
pub(crate) struct MlpLayers<'a> {
    pub(crate) input: &'a nn::Linear,
    /// Each block's norm and two linear layers.
    pub(crate) blocks: Vec<(&'a nn::LayerNorm, &'a nn::Linear, &'a nn::Linear)>,
    pub(crate) norm: &'a nn::LayerNorm,
    pub(crate) policy: &'a nn::Linear,
    pub(crate) value_hidden: &'a nn::Linear,
    pub(crate) value: &'a nn::Linear,
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

/// One pre-norm residual block of the ring body: `h + conv2 relu(conv1 norm(h))`, each
/// convolution over three neighbouring holes with circular padding.
#[derive(Debug)]
struct RingBlock {
    norm: nn::GroupNorm,
    conv1: nn::Conv1D,
    conv2: nn::Conv1D,
}

/// A convolution over three neighbouring holes of the ring (the last hole's neighbour is the
/// first), from `from` channels to `to`.
fn ring_conv(p: nn::Path, from: i64, to: i64) -> nn::Conv1D {
    let config = nn::ConvConfig {
        padding: 1,
        padding_mode: nn::PaddingMode::Circular,
        ..Default::default()
    };
    nn::conv1d(p, from, to, 3, config)
}

impl RingBlock {
    fn new(p: &nn::Path, hidden: i64) -> RingBlock {
        RingBlock {
            // One group: the norm spans every channel of every hole, a layer norm of the ring.
            norm: nn::group_norm(p / "norm", 1, hidden, Default::default()),
            conv1: ring_conv(p / "conv1", hidden, hidden),
            conv2: ring_conv(p / "conv2", hidden, hidden),
        }
    }

    fn forward(&self, h: &Tensor) -> Tensor {
        h + self
            .conv2
            .forward(&self.conv1.forward(&self.norm.forward(h)).relu())
    }
}

/// The layers of a body. One per network, so the size of its larger variant costs nothing.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Layers {
    Mlp {
        input: nn::Linear,
        blocks: Vec<Block>,
        norm: nn::LayerNorm,
        policy: nn::Linear,
    },
    Ring {
        input: nn::Conv1D,
        blocks: Vec<RingBlock>,
        norm: nn::GroupNorm,
        /// A 1x1 convolution: each of the mover's holes gives its move's logit.
        policy: nn::Conv1D,
    },
}

/// The policy-value network. Build it on a `VarStore`'s root path; variable names are stable so
/// checkpoints load: `input`, `block{i}/{norm,fc1,fc2}` (MLP) or `block{i}/{norm,conv1,conv2}`
/// (ring), `norm`, `policy`, `value_hidden`, `value`.
#[derive(Debug)]
pub struct PolicyValueNet {
    config: NetConfig,
    device: Device,
    layers: Layers,
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
        let (layers, value_in) = match config.body {
            Body::Mlp => (
                Layers::Mlp {
                    // The blocks are made first, as before there were two bodies, so that a seed
                    // gives an MLP the initial weights it always gave.
                    blocks: (0..config.blocks)
                        .map(|i| Block::new(&(p / format!("block{i}")), hidden))
                        .collect(),
                    input: nn::linear(
                        p / "input",
                        config.layer_input_len() as i64,
                        hidden,
                        Default::default(),
                    ),
                    norm: nn::layer_norm(p / "norm", vec![hidden], Default::default()),
                    policy: nn::linear(
                        p / "policy",
                        hidden,
                        config.width() as i64,
                        Default::default(),
                    ),
                },
                hidden,
            ),
            Body::Ring => (
                Layers::Ring {
                    input: ring_conv(p / "input", config.ring_channels() as i64, hidden),
                    blocks: (0..config.blocks)
                        .map(|i| RingBlock::new(&(p / format!("block{i}")), hidden))
                        .collect(),
                    norm: nn::group_norm(p / "norm", 1, hidden, Default::default()),
                    policy: nn::conv1d(p / "policy", hidden, 1, 1, Default::default()),
                },
                // The value head reads every hole's channels.
                hidden * 2 * config.holes as i64,
            ),
        };
        PolicyValueNet {
            config,
            device: p.device(),
            layers,
            value_hidden: nn::linear(p / "value_hidden", value_in, hidden / 2, Default::default()),
            value: nn::linear(p / "value", hidden / 2, 1, Default::default()),
        }
    }

    /// The ring body's input: `[B, channels, 2n]` from the input vectors `x` (`[B, input_len]`):
    /// per hole its seeds, 1 on the mover's row, the two stores, and on the mover's holes the
    /// legal flag and the look-ahead features (0 on the opponent's). Channels in that order.
    pub fn ring_input(&self, x: &Tensor) -> Tensor {
        let n = self.config.holes as i64;
        let len = self.config.input_len() as i64;
        let batch = x.size()[0];
        let zeros = Tensor::zeros([batch, n], (x.kind(), x.device()));
        let own_row = |t: Tensor| Tensor::cat(&[t, zeros.shallow_clone()], 1);
        let store = |i: i64| x.narrow(1, 2 * n + i, 1).expand([batch, 2 * n], false);
        let mut channels = vec![
            x.narrow(1, 0, 2 * n),
            own_row(Tensor::ones([batch, n], (x.kind(), x.device()))),
            store(0),
            store(1),
            own_row(x.narrow(1, len - n, n)),
        ];
        if self.config.lookahead {
            for k in 0..3 {
                channels.push(own_row(x.narrow(1, 2 * n + 2 + k * n, n)));
            }
        }
        Tensor::stack(&channels, 1)
    }

    /// A network with a span: the input vectors `x` (`[B, input_len]`, of this board's `n`
    /// holes) spread into the layout of `span` holes (`[B, layer_input_len]`): each block of
    /// `n` values (the mover's row, the opponent's, each look-ahead feature, the legal mask)
    /// padded with zeros to `span`, the stores as they are, and last the board size as a
    /// one-hot over `span` (1 at `n - 1`). A hole past the board reads like an empty, illegal
    /// one, and the one-hot says where the ring closes.
    pub fn spread(&self, x: &Tensor) -> Tensor {
        let n = self.board_holes(x);
        let span = self.config.width() as i64;
        let batch = x.size()[0];
        let options = (x.kind(), x.device());
        let pad = Tensor::zeros([batch, span - n], options);
        let block = |at: i64| Tensor::cat(&[x.narrow(1, at, n), pad.shallow_clone()], 1);
        let mut parts = vec![block(0), block(n), x.narrow(1, 2 * n, 2)];
        let features = if self.config.lookahead { 3 } else { 0 };
        for k in 0..=features {
            // The look-ahead blocks, then the legal mask.
            parts.push(block(2 * n + 2 + k * n));
        }
        let mut size = vec![0.0f32; span as usize];
        size[n as usize - 1] = 1.0;
        parts.push(
            Tensor::from_slice(&size)
                .to_kind(x.kind())
                .to_device(x.device())
                .expand([batch, span], false),
        );
        Tensor::cat(&parts, 1)
    }

    /// Holes per row of the board whose input vectors are `x`: with a span, whatever board up
    /// to it the input is of (read off its length); without, the network's own.
    fn board_holes(&self, x: &Tensor) -> i64 {
        match self.config.span {
            Some(_) => {
                let per_hole = if self.config.lookahead { 6 } else { 3 };
                (x.size()[1] - 2) / per_hole
            }
            None => self.config.holes as i64,
        }
    }

    /// Whether it plays boards of `holes` holes per row: its own, or any up to its span.
    pub fn plays(&self, holes: usize) -> bool {
        self.config.plays(holes)
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
    /// `[-1, 1]`) for inputs `x` (`[B, input_len]`) whose last `n` columns are the legal mask:
    /// inputs of its board's `n`, or with a span of any board up to it.
    pub fn forward(&self, x: &Tensor) -> (Tensor, Tensor) {
        let n = self.board_holes(x);
        let legal = x.narrow(1, x.size()[1] - n, n).gt(0.5);
        let (logits, h) = match &self.layers {
            Layers::Mlp {
                input,
                blocks,
                norm,
                policy,
            } => {
                let mut h = match self.config.span {
                    Some(_) => input.forward(&self.spread(x)),
                    None => input.forward(x),
                }
                .relu();
                for block in blocks {
                    h = block.forward(&h);
                }
                let h = norm.forward(&h).relu();
                // With a span, the logits of the holes past the board are dropped.
                (policy.forward(&h).narrow(1, 0, n), h)
            }
            Layers::Ring {
                input,
                blocks,
                norm,
                policy,
            } => {
                let mut h = input.forward(&self.ring_input(x)).relu();
                for block in blocks {
                    h = block.forward(&h);
                }
                let h = norm.forward(&h).relu();
                // The mover's holes come first on the ring.
                let logits = policy.forward(&h).squeeze_dim(1).narrow(1, 0, n);
                (logits, h.flatten(1, 2))
            }
        };
        let logits = logits.masked_fill(&legal.logical_not(), MASKED_LOGIT);
        let value = self
            .value
            .forward(&self.value_hidden.forward(&h).relu())
            .tanh()
            .squeeze_dim(1);
        (logits, value)
    }

    /// An MLP's layers; `None` for a ring body.
    pub(crate) fn mlp_layers(&self) -> Option<MlpLayers<'_>> {
        let Layers::Mlp {
            input,
            blocks,
            norm,
            policy,
        } = &self.layers
        else {
            return None;
        };
        Some(MlpLayers {
            input,
            blocks: blocks.iter().map(|b| (&b.norm, &b.fc1, &b.fc2)).collect(),
            norm,
            policy,
            value_hidden: &self.value_hidden,
            value: &self.value,
        })
    }

    /// Evaluate many states in one forward pass, without gradients. The states must be of one
    /// board that it [`plays`](PolicyValueNet::plays), and none over.
    pub fn evaluate_states(&self, states: &[State], out: &mut [Evaluation]) {
        if states.is_empty() {
            return;
        }
        let n = states[0].holes();
        debug_assert!(self.plays(n) && states.iter().all(|s| s.holes() == n));
        let len = crate::features::input_len(n, self.config.lookahead);
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
