//! The replay buffer: the most recent self-play positions with their search policy and value
//! targets, sampled uniformly for training. Saved whole in checkpoints, so a resumed run trains on
//! exactly the positions it would have.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tch::Tensor;

/// One training example.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Network input (see `network::encode_input`).
    pub input: Vec<f32>,
    /// Search policy target over the `n` actions (sums to one).
    pub policy: Vec<f32>,
    /// Value target for the player to move, in `[-1, 1]`.
    pub value: f32,
}

/// A ring buffer of samples stored flat, oldest overwritten first.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayBuffer {
    input_len: usize,
    actions: usize,
    capacity: usize,
    /// Samples ever pushed; the next one goes to `pushed % capacity`.
    pushed: u64,
    inputs: Vec<f32>,
    policies: Vec<f32>,
    values: Vec<f32>,
}

/// A training batch as tensors (on the CPU).
#[derive(Debug)]
pub struct Batch {
    /// `[B, input_len]`.
    pub inputs: Tensor,
    /// `[B, n]`.
    pub policies: Tensor,
    /// `[B]`.
    pub values: Tensor,
}

impl ReplayBuffer {
    /// An empty buffer for inputs of `input_len` values and `actions` actions, holding at most
    /// `capacity` samples.
    pub fn new(input_len: usize, actions: usize, capacity: usize) -> ReplayBuffer {
        ReplayBuffer {
            input_len,
            actions,
            capacity: capacity.max(1),
            pushed: 0,
            inputs: Vec::new(),
            policies: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Samples held now.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Add a sample, overwriting the oldest when full.
    pub fn push(&mut self, sample: &Sample) {
        assert_eq!(sample.input.len(), self.input_len, "sample input length");
        assert_eq!(sample.policy.len(), self.actions, "sample policy length");
        let slot = (self.pushed % self.capacity as u64) as usize;
        if self.values.len() < self.capacity {
            self.inputs.extend_from_slice(&sample.input);
            self.policies.extend_from_slice(&sample.policy);
            self.values.push(sample.value);
        } else {
            self.inputs[slot * self.input_len..(slot + 1) * self.input_len]
                .copy_from_slice(&sample.input);
            self.policies[slot * self.actions..(slot + 1) * self.actions]
                .copy_from_slice(&sample.policy);
            self.values[slot] = sample.value;
        }
        self.pushed += 1;
    }

    /// `size` samples drawn uniformly with replacement.
    pub fn sample(&self, size: usize, rng: &mut ChaCha8Rng) -> Batch {
        let mut inputs = Vec::with_capacity(size * self.input_len);
        let mut policies = Vec::with_capacity(size * self.actions);
        let mut values = Vec::with_capacity(size);
        for _ in 0..size {
            let i = rng.random_range(0..self.len());
            inputs.extend_from_slice(&self.inputs[i * self.input_len..(i + 1) * self.input_len]);
            policies.extend_from_slice(&self.policies[i * self.actions..(i + 1) * self.actions]);
            values.push(self.values[i]);
        }
        Batch {
            inputs: Tensor::from_slice(&inputs).view([size as i64, self.input_len as i64]),
            policies: Tensor::from_slice(&policies).view([size as i64, self.actions as i64]),
            values: Tensor::from_slice(&values),
        }
    }

    /// The buffer as named tensors, for a checkpoint.
    pub fn state(&self) -> Vec<(String, Tensor)> {
        vec![
            (
                "replay.shape".to_string(),
                Tensor::from_slice(&[
                    self.input_len as i64,
                    self.actions as i64,
                    self.capacity as i64,
                    self.pushed as i64,
                ]),
            ),
            (
                "replay.inputs".to_string(),
                Tensor::from_slice(&self.inputs),
            ),
            (
                "replay.policies".to_string(),
                Tensor::from_slice(&self.policies),
            ),
            (
                "replay.values".to_string(),
                Tensor::from_slice(&self.values),
            ),
        ]
    }

    /// Rebuild a buffer from what [`ReplayBuffer::state`] saved; `Err` says what does not fit.
    pub fn from_state(
        saved: &std::collections::BTreeMap<String, Tensor>,
    ) -> Result<ReplayBuffer, String> {
        let get = |name: &str| {
            saved
                .get(name)
                .ok_or_else(|| format!("replay buffer field {name} is missing"))
        };
        let shape: Vec<i64> =
            Vec::try_from(get("replay.shape")?).map_err(|e: tch::TchError| e.to_string())?;
        let [input_len, actions, capacity, pushed] = shape[..] else {
            return Err(format!(
                "replay buffer shape has {} fields, not 4",
                shape.len()
            ));
        };
        let floats = |name: &str| -> Result<Vec<f32>, String> {
            Vec::try_from(get(name)?)
                .map_err(|e: tch::TchError| format!("replay buffer field {name}: {e}"))
        };
        let buffer = ReplayBuffer {
            input_len: input_len as usize,
            actions: actions as usize,
            capacity: capacity as usize,
            pushed: pushed as u64,
            inputs: floats("replay.inputs")?,
            policies: floats("replay.policies")?,
            values: floats("replay.values")?,
        };
        let held = buffer.values.len();
        if held > buffer.capacity
            || buffer.inputs.len() != held * buffer.input_len
            || buffer.policies.len() != held * buffer.actions
        {
            return Err("replay buffer arrays do not agree in length".to_string());
        }
        Ok(buffer)
    }
}
