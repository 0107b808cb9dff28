//! The replay buffer: the most recent self-play positions with their search policy and value
//! targets, sampled uniformly for training, and the position and game result each came from, so
//! that reanalysis can search it again and replace its targets. Saved whole in checkpoints, so a
//! resumed run trains on exactly the positions it would have.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use sowing_env::{ByPlayer, Player, Rules, State};
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
    /// Where it came from; `None` for samples of checkpoints written before buffers kept it.
    pub origin: Option<Origin>,
}

/// The position a sample was searched in, and how its game ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Origin {
    /// The position.
    pub state: State,
    /// The game's result for the player to move: 1, 0 or -1.
    pub result: f32,
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
    origins: Vec<Option<Origin>>,
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
            origins: Vec::new(),
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
            self.origins.push(sample.origin);
        } else {
            self.inputs[slot * self.input_len..(slot + 1) * self.input_len]
                .copy_from_slice(&sample.input);
            self.policies[slot * self.actions..(slot + 1) * self.actions]
                .copy_from_slice(&sample.policy);
            self.values[slot] = sample.value;
            self.origins[slot] = sample.origin;
        }
        self.pushed += 1;
    }

    /// The slot of the sample pushed `age` pushes before the newest (age 0: the newest), if it
    /// is still held.
    pub fn slot_of_age(&self, age: usize) -> Option<usize> {
        (age < self.len()).then(|| ((self.pushed - 1 - age as u64) % self.capacity as u64) as usize)
    }

    /// Where the sample in `slot` came from, if known.
    pub fn origin(&self, slot: usize) -> Option<Origin> {
        self.origins.get(slot).copied().flatten()
    }

    /// Replace the targets of the sample in `slot` (reanalysis).
    pub fn retarget(&mut self, slot: usize, policy: &[f32], value: f32) {
        assert_eq!(policy.len(), self.actions, "sample policy length");
        self.policies[slot * self.actions..(slot + 1) * self.actions].copy_from_slice(policy);
        self.values[slot] = value;
    }

    /// The policy and value targets of the sample in `slot`.
    pub fn targets(&self, slot: usize) -> (&[f32], f32) {
        (
            &self.policies[slot * self.actions..(slot + 1) * self.actions],
            self.values[slot],
        )
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
            (
                "replay.positions".to_string(),
                Tensor::from_slice(&self.position_rows()),
            ),
        ]
    }

    /// The samples' origins as rows of `2n + `[`ORIGIN_FIELDS`] integers: the board's holes,
    /// the seeds each player captured, the mover (0 South, 1 North), the ply, the result (-1, 0
    /// or 1); a row of -2s where the origin is not known.
    fn position_rows(&self) -> Vec<i64> {
        let mut rows = Vec::new();
        for origin in &self.origins {
            let Some(Origin { state, result }) = origin else {
                rows.extend(std::iter::repeat_n(
                    UNKNOWN,
                    2 * self.actions + ORIGIN_FIELDS,
                ));
                continue;
            };
            rows.extend(state.cells().iter().map(|&c| i64::from(c)));
            let captured = state.captures();
            rows.push(i64::from(captured.south));
            rows.push(i64::from(captured.north));
            rows.push(state.to_move().index() as i64);
            rows.push(i64::from(state.ply()));
            rows.push(*result as i64);
        }
        rows
    }

    /// Rebuild a buffer from what [`ReplayBuffer::state`] saved, its positions those of `rules`;
    /// `Err` says what does not fit. A checkpoint written before buffers kept the positions
    /// gives samples without an origin.
    pub fn from_state(
        saved: &std::collections::BTreeMap<String, Tensor>,
        rules: &Rules,
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
        let mut buffer = ReplayBuffer {
            input_len: input_len as usize,
            actions: actions as usize,
            capacity: capacity as usize,
            pushed: pushed as u64,
            inputs: floats("replay.inputs")?,
            policies: floats("replay.policies")?,
            values: floats("replay.values")?,
            origins: Vec::new(),
        };
        let held = buffer.values.len();
        if held > buffer.capacity
            || buffer.inputs.len() != held * buffer.input_len
            || buffer.policies.len() != held * buffer.actions
        {
            return Err("replay buffer arrays do not agree in length".to_string());
        }
        buffer.origins = match saved.get("replay.positions") {
            None => vec![None; held],
            Some(rows) => {
                let rows: Vec<i64> = Vec::try_from(rows)
                    .map_err(|e| format!("replay buffer field replay.positions: {e}"))?;
                origins_of(&rows, held, rules)?
            }
        };
        Ok(buffer)
    }
}

/// The fields of a saved origin beside the board's holes: two captures, the mover, the ply,
/// the result.
const ORIGIN_FIELDS: usize = 5;

/// What a saved row holds where a sample's origin is not known.
const UNKNOWN: i64 = -2;

/// The origins of `held` samples from their saved rows (see [`ReplayBuffer::position_rows`]),
/// each position checked as `rules` check one.
fn origins_of(rows: &[i64], held: usize, rules: &Rules) -> Result<Vec<Option<Origin>>, String> {
    let width = 2 * rules.holes() + ORIGIN_FIELDS;
    if rows.len() != held * width {
        return Err(format!(
            "replay buffer field replay.positions holds {} values, not {held} rows of {width} \
             (the board's {} holes and {ORIGIN_FIELDS} more)",
            rows.len(),
            2 * rules.holes()
        ));
    }
    let n2 = 2 * rules.holes();
    rows.chunks(width)
        .enumerate()
        .map(|(i, row)| {
            if row.iter().all(|&x| x == UNKNOWN) {
                return Ok(None);
            }
            let bad = |what: &str| format!("replay buffer position {i}: {what}");
            let byte = |x: i64| u8::try_from(x).map_err(|_| bad(&format!("{x} seeds")));
            let cells = row[..n2]
                .iter()
                .map(|&x| byte(x))
                .collect::<Result<Vec<u8>, _>>()?;
            let captured = ByPlayer {
                south: byte(row[n2])?,
                north: byte(row[n2 + 1])?,
            };
            let to_move = match row[n2 + 2] {
                0 => Player::South,
                1 => Player::North,
                other => return Err(bad(&format!("mover {other}, not 0 or 1"))),
            };
            let ply = u32::try_from(row[n2 + 3]).map_err(|_| bad("a negative ply"))?;
            let result = match row[n2 + 4] {
                r @ -1..=1 => r as f32,
                other => return Err(bad(&format!("result {other}, not -1, 0 or 1"))),
            };
            let state = State::new(rules, &cells, captured, to_move, ply)
                .map_err(|e| bad(&e.to_string()))?;
            Ok(Some(Origin { state, result }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn rules() -> Rules {
        Rules::preset("en-dodoi-6").unwrap()
    }

    /// A buffer of capacity 3 that was pushed 4 samples: three positions of a game, one without
    /// a known origin.
    fn buffer() -> ReplayBuffer {
        let mut buffer = ReplayBuffer::new(2, 6, 3);
        let mut state = State::initial(&rules());
        for i in 0..4 {
            let origin = (i != 2).then_some(Origin {
                state,
                result: [1.0, -1.0, 0.0, 1.0][i],
            });
            buffer.push(&Sample {
                input: vec![i as f32; 2],
                policy: vec![1.0 / 6.0; 6],
                value: 0.5,
                origin,
            });
            state = state.play(state.legal_actions().next().unwrap()).unwrap();
        }
        buffer
    }

    fn saved(buffer: &ReplayBuffer) -> BTreeMap<String, Tensor> {
        buffer.state().into_iter().collect()
    }

    #[test]
    fn origins_survive_a_checkpoint_and_ages_find_their_slots() {
        let buffer = buffer();
        // Four pushed into three slots: the newest (age 0) is in slot 0, ages 1 and 2 before it.
        assert_eq!(buffer.slot_of_age(0), Some(0));
        assert_eq!(buffer.slot_of_age(1), Some(2));
        assert_eq!(buffer.slot_of_age(2), Some(1));
        assert_eq!(buffer.slot_of_age(3), None);
        assert_eq!(buffer.origin(2), None, "pushed without one");
        assert_eq!(buffer.origin(0).unwrap().state.ply(), 3);
        let back = ReplayBuffer::from_state(&saved(&buffer), &rules()).unwrap();
        assert_eq!(back, buffer);
    }

    #[test]
    fn a_buffer_saved_before_origins_loads_without_them() {
        let mut old = saved(&buffer());
        old.remove("replay.positions");
        let back = ReplayBuffer::from_state(&old, &rules()).unwrap();
        assert_eq!(back.len(), 3);
        assert!((0..3).all(|slot| back.origin(slot).is_none()));
    }

    #[test]
    fn retargeting_replaces_only_that_samples_targets() {
        let mut buffer = buffer();
        let policy = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        buffer.retarget(1, &policy, -0.25);
        assert_eq!(buffer.targets(1), (&policy[..], -0.25));
        assert_eq!(buffer.targets(0), (&[1.0 / 6.0; 6][..], 0.5));
    }

    /// Saved positions that no game holds are refused, saying which and why.
    #[test]
    fn corrupt_positions_are_refused_with_the_reason() {
        let buffer = buffer();
        let rows = buffer.position_rows();
        let width = 2 * 6 + ORIGIN_FIELDS;
        let cases: [(usize, i64, &str); 5] = [
            (12 + 2, 7, "mover 7, not 0 or 1"),
            (12 + 4, 3, "result 3, not -1, 0 or 1"),
            (0, 300, "300 seeds"),
            (0, 5, "replay buffer position 0"),
            (12 + 3, -4, "a negative ply"),
        ];
        for (at, value, wanted) in cases {
            let mut bad = rows.clone();
            bad[at] = value;
            let mut saved = saved(&buffer);
            saved.insert("replay.positions".into(), Tensor::from_slice(&bad));
            let e = ReplayBuffer::from_state(&saved, &rules()).unwrap_err();
            assert!(e.contains(wanted), "{e}");
        }
        let mut saved = saved(&buffer);
        saved.insert(
            "replay.positions".into(),
            Tensor::from_slice(&rows[..2 * width]),
        );
        let e = ReplayBuffer::from_state(&saved, &rules()).unwrap_err();
        assert!(e.contains("not 3 rows of 17"), "{e}");
        // Another board's positions: rows of another width.
        let e =
            ReplayBuffer::from_state(&self::saved(&buffer), &Rules::preset("en-dodoi-8").unwrap())
                .unwrap_err();
        assert!(e.contains("not 3 rows of 21"), "{e}");
    }
}
