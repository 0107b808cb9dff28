//! What needs libtorch of checkpoints (feature `torch`): writing tch tensors, and reading a
//! checkpoint's weights into a tch network to play or resume it.

use super::safetensors::Tensor32;
use super::{
    CheckpointError, META, PlayMeta, SAFETENSORS, WEIGHTS, check_net, describe, held_network,
    read_meta, read_safetensors, resolve, write_file, write_safetensors,
};
use crate::az::network::PolicyValueNet;
use crate::az::shape::NetConfig;
use sowing_env::Rules;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use tch::{Device, Tensor, nn};

/// Write named tensors to the file `path`, serialised by libtorch in memory and written by
/// [`write_file`]: libtorch writing the file itself throws from a destructor when the disk is
/// full, and the process aborts.
pub fn save_tensors(path: &Path, tensors: &[(&str, &Tensor)]) -> Result<(), CheckpointError> {
    let mut bytes = Vec::new();
    Tensor::save_multi_to_stream(tensors, &mut bytes).map_err(|e| {
        CheckpointError::Io(
            path.to_owned(),
            std::io::Error::other(format!("libtorch cannot serialise the tensors: {e}")),
        )
    })?;
    write_file(path, &bytes)
}

/// Write named tensors to the file `path` in the safetensors format ([`safetensors`], as
/// `f32`), so that readers without libtorch (the Python package) can load the weights.
pub fn save_safetensors(path: &Path, tensors: &[(&str, &Tensor)]) -> Result<(), CheckpointError> {
    let mut plain = BTreeMap::new();
    for (name, tensor) in tensors {
        let data: Vec<f32> = Vec::try_from(
            tensor
                .to_device(tch::Device::Cpu)
                .to_kind(tch::Kind::Float)
                .flatten(0, -1),
        )
        .map_err(|e| {
            CheckpointError::Io(
                path.to_owned(),
                std::io::Error::other(format!("tensor {name} cannot be read: {e}")),
            )
        })?;
        let shape = tensor.size().iter().map(|&d| d as usize).collect();
        plain.insert((*name).to_string(), Tensor32 { shape, data });
    }
    write_safetensors(path, &plain)
}

/// A network loaded from a checkpoint, with its metadata.
#[derive(Debug)]
pub struct LoadedNet {
    /// The network.
    pub net: PolicyValueNet,
    /// Its variables (kept alive with it).
    pub vs: nn::VarStore,
    /// The checkpoint's metadata.
    pub meta: PlayMeta,
}

/// Load the network of the checkpoint at `path` (a run directory or a checkpoint folder).
pub fn load_checkpoint(path: &Path) -> Result<LoadedNet, CheckpointError> {
    let dir = resolve(path)?;
    let meta: PlayMeta = read_meta(&dir)?;
    meta.args.check(&dir.join(META))?;
    let weights = Weights::read(&dir, &meta.rules, meta.net)?;
    let vs = nn::VarStore::new(Device::cuda_if_available());
    let net = PolicyValueNet::new(&vs.root(), meta.net);
    weights.copy_into(&vs)?;
    Ok(LoadedNet { net, vs, meta })
}

/// The tensors of a checkpoint's `weights.ot` (or, where it has none, its
/// `weights.safetensors`), read and checked against the network that `meta.json` describes,
/// ready to be copied into it.
#[derive(Debug)]
pub struct Weights {
    path: PathBuf,
    tensors: BTreeMap<String, Tensor>,
}

impl Weights {
    /// Read the weights of checkpoint folder `dir`, whose `meta.json` says the network `net`
    /// plays `rules`. Refused, naming what disagrees: a network that does not fit the rules or
    /// is larger than any the trainer makes, and weights of another shape than `net` (the
    /// shape they hold is worked out from the tensors and named).
    pub fn read(dir: &Path, rules: &Rules, net: NetConfig) -> Result<Weights, CheckpointError> {
        let meta = dir.join(META);
        let ot = dir.join(WEIGHTS);
        let path = if ot.is_file() {
            ot
        } else {
            dir.join(SAFETENSORS)
        };
        let name = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let mismatch = |why: String| Err(CheckpointError::Mismatch(meta.clone(), why));
        check_net(&meta, rules, &net)?;
        // The file's tensors, and the network's copy of them.
        let bytes = fs::metadata(&path)
            .map_err(|e| CheckpointError::Io(path.clone(), e))?
            .len();
        sowing_exact::memory::check(&format!("loading {}", path.display()), 2, bytes, 0, "")
            .map_err(|e| CheckpointError::Io(path.clone(), std::io::Error::other(e)))?;
        let tensors: BTreeMap<String, Tensor> = if name == SAFETENSORS {
            read_safetensors(&path)?
                .into_iter()
                .map(|(name, t)| {
                    let shape: Vec<i64> = t.shape.iter().map(|&d| d as i64).collect();
                    (name, Tensor::from_slice(&t.data).reshape(&shape))
                })
                .collect()
        } else {
            Tensor::load_multi(&path)
                .map_err(|e| {
                    CheckpointError::Corrupt(path.clone(), format!("libtorch cannot read it: {e}"))
                })?
                .into_iter()
                .collect()
        };
        let shapes = tensors.iter().map(|(n, t)| (n.clone(), t.size())).collect();
        let held =
            held_network(&shapes).map_err(|why| CheckpointError::Corrupt(path.clone(), why))?;
        if held != net.weights_shape() {
            return mismatch(format!(
                "it describes a network of {}, but {name} holds one of {}",
                describe(&net),
                describe(&held)
            ));
        }
        Ok(Weights { path, tensors })
    }

    /// Copy the weights into `vs`, whose variables are those of the network they were read
    /// for: each name must be there with its shape, and nothing else.
    pub fn copy_into(self, vs: &nn::VarStore) -> Result<(), CheckpointError> {
        let corrupt = |why: String| Err(CheckpointError::Corrupt(self.path.clone(), why));
        let variables = vs.variables();
        for (name, var) in &variables {
            let Some(saved) = self.tensors.get(name) else {
                return corrupt(format!("it lacks the network's tensor {name}"));
            };
            if saved.size() != var.size() {
                return corrupt(format!(
                    "its tensor {name} has shape {:?} where the network's has {:?}",
                    saved.size(),
                    var.size()
                ));
            }
        }
        if let Some(extra) = self.tensors.keys().find(|n| !variables.contains_key(*n)) {
            return corrupt(format!("it holds a tensor {extra} the network lacks"));
        }
        tch::no_grad(|| {
            for (name, mut var) in variables {
                var.f_copy_(&self.tensors[&name]).map_err(|e| {
                    CheckpointError::Corrupt(self.path.clone(), format!("{name}: {e}"))
                })?;
            }
            Ok(())
        })
    }
}
