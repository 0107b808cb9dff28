//! A linear evaluator: policy logits `x W` and value `tanh(x · w)` over the network input `x` of
//! [`crate::features`]. The simplest evaluator that learns from the same input as the network,
//! and the one of the Python benchmark: a numpy `evaluate` computing the same two products costs
//! the same arithmetic, so the two searches differ only by the call into Python.

use crate::evaluator::{Evaluation, Evaluator};
use crate::features::{encode_input, input_len};
use rand_chacha::ChaCha8Rng;
use sowing_env::{MAX_HOLES, State};

/// The longest network input: every hole, with the look-ahead features.
const MAX_INPUT: usize = 6 * MAX_HOLES + 2;

/// Linear policy and value weights over the input of a board of `holes` holes per row.
#[derive(Clone, Debug, PartialEq)]
pub struct Linear {
    holes: usize,
    lookahead: bool,
    /// `[input_len, holes]`, row-major: the logit of action `a` is `sum_i x[i] policy[i][a]`.
    policy: Vec<f32>,
    /// `[input_len]`.
    value: Vec<f32>,
}

impl Linear {
    /// The evaluator with these weights: `policy` holds `input_len * holes` values (row `i`, the
    /// weights of input `i` for every action), `value` holds `input_len`, all finite, where
    /// `input_len` is [`input_len`]`(holes, lookahead)`. `Err` says which does not fit.
    pub fn new(
        holes: usize,
        lookahead: bool,
        policy: Vec<f32>,
        value: Vec<f32>,
    ) -> Result<Linear, String> {
        if !(1..=MAX_HOLES).contains(&holes) {
            return Err(format!("holes must be 1 to {MAX_HOLES}, got {holes}"));
        }
        let len = input_len(holes, lookahead);
        if policy.len() != len * holes {
            return Err(format!(
                "the policy weights must be {len} x {holes} (input length x actions), got {} values",
                policy.len()
            ));
        }
        if value.len() != len {
            return Err(format!(
                "the value weights must be {len} values (the input length), got {}",
                value.len()
            ));
        }
        if !policy.iter().chain(&value).all(|w| w.is_finite()) {
            return Err("the weights must be finite (no NaN or infinity)".to_string());
        }
        Ok(Linear {
            holes,
            lookahead,
            policy,
            value,
        })
    }

    /// Holes per row of the board it evaluates.
    pub fn holes(&self) -> usize {
        self.holes
    }

    /// Whether its input has the look-ahead features.
    pub fn lookahead(&self) -> bool {
        self.lookahead
    }

    /// The policy weights, `[input_len, holes]` row-major, as [`Linear::new`] takes them.
    pub fn policy(&self) -> &[f32] {
        &self.policy
    }

    /// The value weights, `[input_len]`.
    pub fn value(&self) -> &[f32] {
        &self.value
    }
}

impl Evaluator for Linear {
    /// Every state must have [`Linear::holes`] holes per row and must not be over.
    fn evaluate(&mut self, state: &State, _rng: &mut ChaCha8Rng) -> Evaluation {
        let n = self.holes;
        let len = input_len(n, self.lookahead);
        let mut x = [0.0f32; MAX_INPUT];
        encode_input(state, self.lookahead, &mut x[..len]);
        let mut logits = [0.0f32; MAX_HOLES];
        let mut value = 0.0f32;
        for (i, &xi) in x[..len].iter().enumerate() {
            for (l, &w) in logits[..n].iter_mut().zip(&self.policy[i * n..(i + 1) * n]) {
                *l += xi * w;
            }
            value += xi * self.value[i];
        }
        Evaluation::from_logits(&logits[..n], state.legal_mask(), value.tanh())
    }
}
