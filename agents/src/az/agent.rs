//! The trained network as an [`Agent`]: the spec `az:PATH` or `az:PATH:SIMS`, where `PATH` is a
//! run directory (its newest checkpoint) or one `iter-NNNNNN` checkpoint folder, and `SIMS` the
//! PUCT simulations per move (default: those the run trained with). It plays the most visited
//! move, without noise.

use crate::agent::Agent;
use crate::az::checkpoint::{self, CheckpointError};
use crate::az::network::PolicyValueNet;
use crate::az::puct::{BatchSearch, PuctConfig};
use crate::az::trainer::{TrainMeta, load_weights};
use crate::spec::SpecError;
use rand_chacha::ChaCha8Rng;
use sowing_env::{Rules, State};
use std::path::Path;
use tch::{Device, nn};

/// A network loaded from a checkpoint, with its metadata.
#[derive(Debug)]
pub struct LoadedNet {
    /// The network.
    pub net: PolicyValueNet,
    /// Its variables (kept alive with it).
    pub vs: nn::VarStore,
    /// The checkpoint's metadata.
    pub meta: TrainMeta,
}

/// Load the network of the checkpoint at `path` (a run directory or a checkpoint folder).
pub fn load_checkpoint(path: &Path) -> Result<LoadedNet, CheckpointError> {
    let dir = checkpoint::resolve(path)?;
    let meta: TrainMeta = checkpoint::read_meta(&dir)?;
    let mut vs = nn::VarStore::new(Device::cuda_if_available());
    let net = PolicyValueNet::new(&vs.root(), meta.net);
    load_weights(&mut vs, &dir, &meta)?;
    Ok(LoadedNet { net, vs, meta })
}

/// A player that searches with a trained network.
#[derive(Debug)]
pub struct AzAgent {
    name: String,
    loaded: LoadedNet,
    config: PuctConfig,
    search: BatchSearch,
    eval_rng: ChaCha8Rng,
}

impl AzAgent {
    /// The agent of checkpoint `path`, searching `simulations` per move (default: the run's).
    pub fn load(path: &Path, simulations: Option<u32>) -> Result<AzAgent, CheckpointError> {
        let loaded = load_checkpoint(path)?;
        // One position per forward pass: libtorch's worker threads would only spin, and agents
        // already play on a thread each in the arena.
        tch::set_num_threads(1);
        let args = &loaded.meta.args;
        let simulations = simulations.unwrap_or(args.simulations);
        let config = PuctConfig {
            simulations,
            c_puct: args.c_puct,
            dirichlet_alpha: args.dirichlet_alpha,
            noise_fraction: 0.0,
        };
        Ok(AzAgent {
            name: format!("az:{}:{simulations}", path.display()),
            loaded,
            config,
            search: BatchSearch::new(),
            eval_rng: rand::SeedableRng::seed_from_u64(0),
        })
    }

    /// The rules the network was trained on; it plays only games with as many holes.
    pub fn rules(&self) -> &Rules {
        &self.loaded.meta.rules
    }
}

impl Agent for AzAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        self.search.clear();
    }

    fn can_play(&self, rules: &Rules) -> Result<(), String> {
        let trained = self.loaded.meta.rules.holes();
        if rules.holes() != trained {
            return Err(format!(
                "{} was trained on {trained} holes per row and cannot play a {}-hole game",
                self.name,
                rules.holes()
            ));
        }
        Ok(())
    }

    fn choose(&mut self, state: &State, rng: &mut ChaCha8Rng) -> usize {
        // Callers check `can_play` before a game; a state of another size is a caller's bug.
        debug_assert!(self.can_play(state.rules()).is_ok());
        let mut noise = [rng.clone()];
        // The tree is kept from move to move: the part below this position grew while the last
        // move was searched.
        let result = self.search.search_continuing(
            &[0],
            std::slice::from_ref(state),
            &self.config,
            &mut self.loaded.net,
            &mut noise,
            &mut self.eval_rng,
        );
        result[0].best_action()
    }
}

/// The agent of the spec argument after `az:`: `PATH` or `PATH:SIMS`.
pub fn from_spec_arg(spec: &str, arg: &str) -> Result<AzAgent, SpecError> {
    let (path, sims) = match arg.rsplit_once(':') {
        Some((path, sims)) if !sims.is_empty() && sims.bytes().all(|b| b.is_ascii_digit()) => {
            let sims: u32 = sims
                .parse()
                .ok()
                .filter(|&s| (1..=1_000_000).contains(&s))
                .ok_or_else(|| SpecError::new(spec, "simulations must be 1 to 1000000"))?;
            (path, Some(sims))
        }
        _ => (arg, None),
    };
    if path.is_empty() {
        return Err(SpecError::new(
            spec,
            "az needs a checkpoint path after the colon",
        ));
    }
    AzAgent::load(Path::new(path), sims).map_err(|e| SpecError::new(spec, e.to_string()))
}
