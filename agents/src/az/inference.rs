//! The MLP network's forward pass without libtorch, for play: self-play, reanalysis, the trainer's
//! evaluation and the `az:` agent value their leaves with it. libtorch runs each of the forward
//! pass's thirty-odd operations as its own call with a fresh tensor; on the small batches of a
//! search (16 to 128 positions) those calls and allocations cost as much as the matrix products
//! themselves. Here the products go to [`super::dense`], whose weights are packed once, and the
//! rest is done in place in buffers kept from call to call, so a forward pass allocates nothing
//! once warm.
//!
//! [`Inference::of`] copies a network's weights as they are: a snapshot, which does not follow
//! later training steps (the trainer takes a new one per iteration, as it took a copy of the
//! network before). It computes what [`PolicyValueNet::forward`] does, the ring body aside
//! (which stays with libtorch): `tests/az_inference.rs` holds the two to within float rounding.

use crate::az::checkpoint::{CheckpointError, LoadedNet, PlayMeta, load_checkpoint};
use crate::az::dense::{Dense, Kernel, Output};
use crate::az::network::{MlpLayers, PolicyValueNet};
use crate::az::shape::NetConfig;
use crate::evaluator::{Evaluation, Evaluator};
use crate::features::{encode_input, input_len};
use rand_chacha::ChaCha8Rng;
use sowing_env::State;
use std::path::Path;
use tch::{Device, Kind, Tensor, nn};

/// A tensor's values, on the CPU, flattened.
fn floats(t: &Tensor) -> Vec<f32> {
    let t = t.to_device(Device::Cpu).to_kind(Kind::Float).contiguous();
    let len = t.numel();
    let mut v = vec![0.0f32; len];
    t.copy_data(&mut v, len);
    v
}

/// A copy of libtorch's linear layer, its weights packed for the product ([`Dense`]).
fn dense(layer: &nn::Linear) -> Dense {
    let size = layer.ws.size();
    let (outputs, inputs) = (size[0] as usize, size[1] as usize);
    let bias = layer.bs.as_ref().map_or_else(|| vec![0.0; outputs], floats);
    Dense::new(&floats(&layer.ws), &bias, inputs, outputs)
}

/// A layer norm over each row of `width` values: `(x - mean) / sqrt(var + eps) * gain + bias`.
#[derive(Clone, Debug)]
struct Norm {
    gain: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

/// The sum of `v - shift`, or of its square, over `row`, in eight lanes: a plain float
/// sum is one long chain of dependent additions the compiler may not reorder, eight lanes are
/// a vector's.
fn lane_sum(row: &[f32], shift: f32, square: bool) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = row.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &v) in lanes.iter_mut().zip(chunk) {
            let d = v - shift;
            *lane += if square { d * d } else { d };
        }
    }
    let mut total: f32 = lanes.iter().sum();
    for &v in rest {
        let d = v - shift;
        total += if square { d * d } else { d };
    }
    total
}

impl Norm {
    /// A copy of libtorch's layer.
    fn of(layer: &nn::LayerNorm) -> Norm {
        let width = layer.normalized_shape.iter().product::<i64>() as usize;
        Norm {
            gain: layer.ws.as_ref().map_or_else(|| vec![1.0; width], floats),
            bias: layer.bs.as_ref().map_or_else(|| vec![0.0; width], floats),
            // The network builds its norms with the default config, whose eps libtorch keeps
            // private in the layer.
            eps: nn::LayerNormConfig::default().eps as f32,
        }
    }

    fn apply(&self, x: &[f32], out: &mut [f32]) {
        let width = self.gain.len();
        for (row, dst) in x.chunks_exact(width).zip(out.chunks_exact_mut(width)) {
            let mean = lane_sum(row, 0.0, false) / width as f32;
            let var = lane_sum(row, mean, true) / width as f32;
            let inv = 1.0 / (var + self.eps).sqrt();
            for (((d, &v), &g), &b) in dst.iter_mut().zip(row).zip(&self.gain).zip(&self.bias) {
                *d = (v - mean) * inv * g + b;
            }
        }
    }
}

fn relu(x: &mut [f32]) {
    for v in x {
        *v = v.max(0.0);
    }
}

/// One residual block's layers: `h + fc2 relu(fc1 norm(h))`.
#[derive(Clone, Debug)]
struct Block {
    norm: Norm,
    fc1: Dense,
    fc2: Dense,
}

/// Scratch space for one batch, kept from call to call.
#[derive(Clone, Debug, Default)]
struct Buffers {
    encoded: Vec<f32>,
    input: Vec<f32>,
    h: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    logits: Vec<f32>,
    value_hidden: Vec<f32>,
    values: Vec<f32>,
}

/// A snapshot of an MLP network's weights, and its forward pass.
#[derive(Clone)]
pub struct Inference {
    config: NetConfig,
    input: Dense,
    blocks: Vec<Block>,
    norm: Norm,
    policy: Dense,
    value_hidden: Dense,
    value: Dense,
    buffers: Buffers,
}

impl std::fmt::Debug for Inference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The weights are tens of thousands of floats: the shape says which network it is.
        f.debug_struct("Inference")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Grow `v` to at least `len` values (never shrinks, so a warm buffer is not reallocated).
fn room(v: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if v.len() < len {
        v.resize(len, 0.0);
    }
    &mut v[..len]
}

impl Inference {
    /// A snapshot of `net`'s weights as they are now, or `None` for a ring body and for a
    /// network on a GPU (which play through libtorch: a GPU's batches are its own to speed).
    pub fn of(net: &PolicyValueNet) -> Option<Inference> {
        if net.device() != Device::Cpu {
            return None;
        }
        let MlpLayers {
            input,
            blocks,
            norm,
            policy,
            value_hidden,
            value,
        } = net.mlp_layers()?;
        Some(Inference {
            config: net.config(),
            input: dense(input),
            blocks: blocks
                .into_iter()
                .map(|(norm, fc1, fc2)| Block {
                    norm: Norm::of(norm),
                    fc1: dense(fc1),
                    fc2: dense(fc2),
                })
                .collect(),
            norm: Norm::of(norm),
            policy: dense(policy),
            value_hidden: dense(value_hidden),
            value: dense(value),
            buffers: Buffers::default(),
        })
    }

    /// Its shape.
    pub fn config(&self) -> NetConfig {
        self.config
    }

    /// The code its products run on (the same for every layer: [`Kernel::best`]).
    pub fn kernel(&self) -> Kernel {
        self.input.kernel()
    }

    /// Whether it plays boards of `holes` holes per row: its own, or any up to its span.
    pub fn plays(&self, holes: usize) -> bool {
        self.config.plays(holes)
    }

    /// The raw outputs for `rows` encoded inputs of a board of `n` holes (each
    /// [`input_len`]`(n, lookahead)` values): the policy logits (`[rows, n]`, illegal actions
    /// included, unmasked) and the values (`[rows]`, in `[-1, 1]`), in its buffers.
    pub fn forward(&mut self, encoded: &[f32], rows: usize, n: usize) -> (&[f32], &[f32]) {
        let len = input_len(n, self.config.lookahead);
        assert_eq!(
            encoded.len(),
            rows * len,
            "{rows} inputs of {len} values each"
        );
        assert!(self.plays(n), "a network of this shape does not play 2x{n}");
        let hidden = self.config.hidden;
        let b = &mut self.buffers;
        let layer_in = self.input.inputs();
        let x: &[f32] = if self.config.span.is_some() {
            let spread = room(&mut b.input, rows * layer_in);
            for (row, out) in encoded
                .chunks_exact(len)
                .zip(spread.chunks_exact_mut(layer_in))
            {
                spread_row(row, n, self.config.width(), self.config.lookahead, out);
            }
            &b.input[..rows * layer_in]
        } else {
            encoded
        };
        let h = room(&mut b.h, rows * hidden);
        self.input.apply(x, rows, h, Output::Relu);
        for block in &self.blocks {
            let a = room(&mut b.a, rows * hidden);
            block.norm.apply(&b.h[..rows * hidden], a);
            let c = room(&mut b.b, rows * hidden);
            block.fc1.apply(a, rows, c, Output::Relu);
            // The residual connection: fc2's result is added to h where it lies.
            block
                .fc2
                .apply(&b.b[..rows * hidden], rows, &mut b.h, Output::Add);
        }
        let a = room(&mut b.a, rows * hidden);
        self.norm.apply(&b.h[..rows * hidden], a);
        relu(a);
        let width = self.policy.outputs();
        let logits = room(&mut b.logits, rows * width);
        self.policy
            .apply(&b.a[..rows * hidden], rows, logits, Output::Write);
        let vh = room(&mut b.value_hidden, rows * self.value_hidden.outputs());
        self.value_hidden
            .apply(&b.a[..rows * hidden], rows, vh, Output::Relu);
        let values = room(&mut b.values, rows);
        self.value.apply(vh, rows, values, Output::Write);
        for v in values.iter_mut() {
            *v = v.tanh();
        }
        if width != n {
            // A span's logits past the board are dropped: rows of `n`, packed.
            for r in 1..rows {
                b.logits.copy_within(r * width..r * width + n, r * n);
            }
        }
        (&b.logits[..rows * n], &b.values[..rows])
    }

    /// Evaluate many states of one board in one forward pass: priors the softmax of the legal
    /// actions' logits (zero for the others), and values.
    pub fn evaluate_states(&mut self, states: &[State], out: &mut [Evaluation]) {
        if states.is_empty() {
            return;
        }
        let n = states[0].holes();
        debug_assert!(states.iter().all(|s| s.holes() == n));
        let len = input_len(n, self.config.lookahead);
        let mut encoded = std::mem::take(&mut self.buffers.encoded);
        let rows = room(&mut encoded, states.len() * len);
        for (s, row) in states.iter().zip(rows.chunks_exact_mut(len)) {
            encode_input(s, self.config.lookahead, row);
        }
        let (logits, values) = self.forward(&encoded[..states.len() * len], states.len(), n);
        for (((slot, logits), &value), row) in out
            .iter_mut()
            .zip(logits.chunks_exact(n))
            .zip(values)
            .zip(encoded.chunks_exact(len))
        {
            // The legal mask is the input's last n values.
            let legal = row[len - n..]
                .iter()
                .enumerate()
                .fold(0u16, |m, (a, &v)| if v > 0.5 { m | 1 << a } else { m });
            *slot = Evaluation::from_logits(logits, legal, value);
        }
        self.buffers.encoded = encoded;
    }
}

/// One input row of a board of `n` holes spread into the layout of a network of `span` holes
/// (as [`PolicyValueNet::spread`] does): each block of `n` values padded with zeros to `span`,
/// the stores as they are, and last the board size as a one-hot over `span`.
fn spread_row(row: &[f32], n: usize, span: usize, lookahead: bool, out: &mut [f32]) {
    out.fill(0.0);
    let blocks_before_stores = 2;
    let blocks_after = if lookahead { 4 } else { 1 };
    for k in 0..blocks_before_stores {
        out[k * span..k * span + n].copy_from_slice(&row[k * n..(k + 1) * n]);
    }
    out[2 * span..2 * span + 2].copy_from_slice(&row[2 * n..2 * n + 2]);
    for k in 0..blocks_after {
        let from = 2 * n + 2 + k * n;
        let to = 2 * span + 2 + k * span;
        out[to..to + n].copy_from_slice(&row[from..from + n]);
    }
    let size = 2 * span + 2 + blocks_after * span;
    out[size + n - 1] = 1.0;
}

/// A network to play with: its [`Inference`] where it has one, else the libtorch network with
/// its own variables. Everything that plays a network goes through this (the
/// `az:` agent, a hybrid's leaves, the proof search's guide, self-play and the trainer's
/// matches and accuracy), so which forward pass plays is decided here only.
#[derive(Debug)]
pub enum Playing {
    /// The forward pass without libtorch.
    Fast(Inference),
    /// A ring body's, or a network's on a GPU.
    Torch(PolicyValueNet, nn::VarStore),
}

impl Playing {
    /// A loaded checkpoint's network (whose variables are `vs`), to play with.
    pub fn loaded(net: PolicyValueNet, vs: nn::VarStore) -> Playing {
        match Inference::of(&net) {
            Some(fast) => Playing::Fast(fast),
            None => Playing::Torch(net, vs),
        }
    }

    /// The network of checkpoint `path` (a run directory or a checkpoint folder), loaded to play
    /// (the `az:` agent's, a hybrid alpha-beta's, the proof search's guide), with the
    /// checkpoint's metadata. Where libtorch plays it (a ring body, a GPU), on one thread: a
    /// move's forward passes are of a few positions, whose worker threads would only spin, and
    /// players already run on a thread each.
    pub fn load(path: &Path) -> Result<(Playing, PlayMeta), CheckpointError> {
        let LoadedNet { net, vs, meta } = load_checkpoint(path)?;
        let net = Playing::loaded(net, vs);
        if !net.is_fast() {
            tch::set_num_threads(1);
        }
        Ok((net, meta))
    }

    /// A copy of `net` (whose variables are `vs`) as it is now, for a worker of its own: later
    /// training does not reach it.
    pub fn copy(vs: &nn::VarStore, net: &PolicyValueNet) -> Playing {
        if let Some(fast) = Inference::of(net) {
            return Playing::Fast(fast);
        }
        let mut own = nn::VarStore::new(vs.device());
        let copy = PolicyValueNet::new(&own.root(), net.config());
        own.copy(vs)
            .expect("a network copies into one of its own shape");
        Playing::Torch(copy, own)
    }

    /// Its shape.
    pub fn config(&self) -> NetConfig {
        match self {
            Playing::Fast(fast) => fast.config(),
            Playing::Torch(net, _) => net.config(),
        }
    }

    /// Whether it plays boards of `holes` holes per row: its own, or any up to its span.
    pub fn plays(&self, holes: usize) -> bool {
        self.config().plays(holes)
    }

    /// Whether it plays without libtorch (see [`Inference`]).
    pub fn is_fast(&self) -> bool {
        matches!(self, Playing::Fast(_))
    }

    /// Evaluate many states of one board that it [`plays`](Playing::plays) in one forward pass.
    pub fn evaluate_states(&mut self, states: &[State], out: &mut [Evaluation]) {
        match self {
            Playing::Fast(fast) => fast.evaluate_states(states, out),
            Playing::Torch(net, _) => net.evaluate_states(states, out),
        }
    }
}

impl Evaluator for Playing {
    fn evaluate(&mut self, state: &State, rng: &mut ChaCha8Rng) -> Evaluation {
        match self {
            Playing::Fast(fast) => fast.evaluate(state, rng),
            Playing::Torch(net, _) => net.evaluate(state, rng),
        }
    }

    fn evaluate_batch(&mut self, states: &[State], _rng: &mut ChaCha8Rng, out: &mut [Evaluation]) {
        self.evaluate_states(states, out);
    }
}

impl Evaluator for Inference {
    fn evaluate(&mut self, state: &State, _rng: &mut ChaCha8Rng) -> Evaluation {
        let mut out = [Evaluation {
            priors: [0.0; sowing_env::MAX_HOLES],
            value: 0.0,
        }];
        self.evaluate_states(std::slice::from_ref(state), &mut out);
        out[0]
    }

    fn evaluate_batch(&mut self, states: &[State], _rng: &mut ChaCha8Rng, out: &mut [Evaluation]) {
        self.evaluate_states(states, out);
    }
}
