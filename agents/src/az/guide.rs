//! The trained network as the proof-number search's guide ([`sowing_exact::value::Guide`]):
//! its value judges the leaves near the root, so that the exact search tries first where the
//! network believes the proof lies. The labels stay exact whatever the network says; only the
//! positions spent on them change.

use super::checkpoint::{CheckpointError, LoadedNet, load_checkpoint, resolve};
use crate::evaluator::Evaluation;
use sowing_env::{MAX_HOLES, Rules, State};
use sowing_exact::value::{Guide, Lean};
use std::path::Path;

/// A checkpoint's network judging positions of its own rules.
#[derive(Debug)]
pub struct NetworkGuide {
    loaded: LoadedNet,
    evaluations: Vec<Evaluation>,
}

impl NetworkGuide {
    /// The network of the checkpoint at `path` (a run directory or a checkpoint folder), which
    /// must have been trained on `rules`: refused, naming both, otherwise.
    pub fn load(path: &Path, rules: &Rules) -> Result<NetworkGuide, CheckpointError> {
        let loaded = load_checkpoint(path)?;
        if loaded.meta.rules != *rules {
            return Err(CheckpointError::Mismatch(
                resolve(path)?,
                format!(
                    "its network was trained on {}, the search is of {}",
                    loaded.meta.rules.summary(),
                    rules.summary()
                ),
            ));
        }
        // One small batch per expansion, on the searching thread: libtorch's own threads
        // would only spin beside the search's.
        tch::set_num_threads(1);
        Ok(NetworkGuide {
            loaded,
            evaluations: Vec::new(),
        })
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
        self.loaded
            .net
            .evaluate_states(states, &mut self.evaluations[..states.len()]);
        for (e, slot) in self.evaluations.iter().zip(out.iter_mut()) {
            *slot = Lean {
                value: e.value,
                priors: e.priors,
            };
        }
    }
}
