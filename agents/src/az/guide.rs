//! The trained network as the proof-number search's guide ([`sowing_exact::value::Guide`]):
//! its value judges the leaves near the root, so that the exact search tries first where the
//! network believes the proof lies. The labels stay exact whatever the network says; only the
//! positions spent on them change.

use super::checkpoint::{CheckpointError, resolve};
use super::inference::Playing;
use crate::evaluator::Evaluation;
use sowing_env::{MAX_HOLES, Rules, State};
use sowing_exact::value::{Guide, Lean};
use std::path::Path;

/// A checkpoint's network judging positions of its own rules.
#[derive(Debug)]
pub struct NetworkGuide {
    net: Playing,
    evaluations: Vec<Evaluation>,
}

impl NetworkGuide {
    /// The network of the checkpoint at `path` (a run directory or a checkpoint folder), which
    /// must have been trained on `rules`: refused, naming both, otherwise. It plays as the `az:`
    /// agent does (without libtorch where it can), one small batch per expansion on the
    /// searching thread.
    pub fn load(path: &Path, rules: &Rules) -> Result<NetworkGuide, CheckpointError> {
        let (net, meta) = Playing::load(path)?;
        if meta.rules != *rules {
            return Err(CheckpointError::Mismatch(
                resolve(path)?,
                format!(
                    "its network was trained on {}, the search is of {}",
                    meta.rules.summary(),
                    rules.summary()
                ),
            ));
        }
        Ok(NetworkGuide::new(net))
    }

    /// `net` as a guide, whatever rules it was trained on (the caller's to check).
    pub fn new(net: Playing) -> NetworkGuide {
        NetworkGuide {
            net,
            evaluations: Vec::new(),
        }
    }

    /// Whether it plays without libtorch (see [`Playing`]).
    pub fn is_fast(&self) -> bool {
        self.net.is_fast()
    }
}

impl Guide for NetworkGuide {
    fn lean(&mut self, states: &[State], out: &mut [Lean]) {
        self.evaluations.resize(
            states.len(),
            Evaluation {
                priors: [0.0; MAX_HOLES],
                value: 0.0,
            },
        );
        self.net
            .evaluate_states(states, &mut self.evaluations[..states.len()]);
        for (e, slot) in self.evaluations.iter().zip(out.iter_mut()) {
            *slot = Lean {
                value: e.value,
                priors: e.priors,
            };
        }
    }
}
