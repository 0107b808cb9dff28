//! Adam with decoupled weight decay (AdamW), written out so that its moments can be saved in a
//! checkpoint and a resumed run continues exactly (tch's own optimizers keep their state inside
//! libtorch, out of reach).

use std::collections::BTreeMap;
use tch::{Kind, Tensor, nn};

/// AdamW over the trainable variables of a `VarStore`, in name order.
#[derive(Debug)]
pub struct AdamW {
    params: Vec<(String, Tensor)>,
    first: Vec<Tensor>,
    second: Vec<Tensor>,
    step: i64,
    /// Learning rate.
    pub lr: f64,
    /// Decoupled weight decay per step, scaled by the learning rate.
    pub weight_decay: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
}

impl AdamW {
    /// An optimiser for every trainable variable of `vs`, with zero moments.
    pub fn new(vs: &nn::VarStore, lr: f64, weight_decay: f64) -> AdamW {
        let params: Vec<(String, Tensor)> = vs
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .collect();
        let first = params.iter().map(|(_, t)| t.zeros_like()).collect();
        let second = params.iter().map(|(_, t)| t.zeros_like()).collect();
        AdamW {
            params,
            first,
            second,
            step: 0,
            lr,
            weight_decay,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }

    /// Clear the gradients, back-propagate `loss`, and take one step.
    pub fn backward_step(&mut self, loss: &Tensor) {
        for (_, p) in &mut self.params {
            let mut grad = p.grad();
            if grad.defined() {
                let _ = grad.zero_();
            }
        }
        loss.backward();
        self.step += 1;
        let bias1 = 1.0 - self.beta1.powi(self.step as i32);
        let bias2 = 1.0 - self.beta2.powi(self.step as i32);
        tch::no_grad(|| {
            for ((_, p), (m, v)) in self
                .params
                .iter_mut()
                .zip(self.first.iter_mut().zip(self.second.iter_mut()))
            {
                let grad = p.grad();
                if !grad.defined() {
                    continue;
                }
                let _ = m
                    .g_mul_scalar_(self.beta1)
                    .g_add_(&(&grad * (1.0 - self.beta1)));
                let _ = v
                    .g_mul_scalar_(self.beta2)
                    .g_add_(&(&grad * &grad * (1.0 - self.beta2)));
                let update = (&*m / bias1) / ((&*v / bias2).sqrt() + self.eps);
                let _ = p.g_mul_scalar_(1.0 - self.lr * self.weight_decay);
                let _ = p.g_add_(&(update * -self.lr));
            }
        });
    }

    /// The moments and step count as named tensors, for a checkpoint.
    pub fn state(&self) -> Vec<(String, Tensor)> {
        let mut out = vec![("adam.step".to_string(), Tensor::from_slice(&[self.step]))];
        for ((name, _), (m, v)) in self.params.iter().zip(self.first.iter().zip(&self.second)) {
            out.push((format!("adam.m.{name}"), m.shallow_clone()));
            out.push((format!("adam.v.{name}"), v.shallow_clone()));
        }
        out
    }

    /// Restore what [`AdamW::state`] saved; `Err` names what is missing or misshapen.
    pub fn load_state(&mut self, saved: &BTreeMap<String, Tensor>) -> Result<(), String> {
        let step = saved
            .get("adam.step")
            .ok_or("the optimiser step is missing")?;
        self.step = step.int64_value(&[0]);
        for ((name, p), (m, v)) in self
            .params
            .iter()
            .zip(self.first.iter_mut().zip(self.second.iter_mut()))
        {
            for (prefix, slot) in [("adam.m", m), ("adam.v", v)] {
                let key = format!("{prefix}.{name}");
                let src = saved
                    .get(&key)
                    .ok_or_else(|| format!("optimiser moment {key} is missing"))?;
                if src.size() != p.size() || src.kind() != Kind::Float {
                    return Err(format!(
                        "optimiser moment {key} has shape {:?}, the network needs {:?}",
                        src.size(),
                        p.size()
                    ));
                }
                tch::no_grad(|| slot.copy_(&src.to_device(p.device())));
            }
        }
        Ok(())
    }
}
