//! Checkpoints of a training run. A run directory holds one folder per iteration,
//! `iter-000001/` ..., each with:
//!
//! - `meta.json`: format and version, the iteration, the rules, the network shape, the run's
//!   arguments, the metrics of every iteration so far, and the size and FNV-1a hash of each file;
//! - `weights.ot`: the network's variables (`VarStore::save`);
//! - `weights.safetensors`: the same variables as safetensors, by the same names, for readers
//!   without libtorch's C++ format (the Python package's `sowing.nn`);
//! - `trainer.ot`: what resuming needs beyond the weights (optimiser moments, replay buffer);
//!   only the newest iteration keeps it.
//!
//! A checkpoint is written into a temporary folder and renamed into place, so a crash never leaves
//! a half-written one. Loading checks sizes and hashes before handing a file to libtorch, so a
//! truncated or altered file is refused with a message that names it.
//!
//! The metadata is generic over the run's arguments and metrics, so that this module, and the
//! agent that plays a checkpoint ([`load_checkpoint`]), do not depend on the trainer: a player
//! reads only the [`SearchSettings`] of the arguments.

use crate::az::network::{NetConfig, PolicyValueNet};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use sowing_env::Rules;
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use tch::{Device, nn};

/// Written in every `meta.json`, so other JSON files are not mistaken for checkpoints.
pub const FORMAT: &str = "sowing-az-checkpoint";
/// Bumped when the layout changes; older versions are refused.
pub const VERSION: u32 = 1;
/// The metadata file of a checkpoint.
pub const META: &str = "meta.json";
/// The weights file of a checkpoint.
pub const WEIGHTS: &str = "weights.ot";
/// The weights of a checkpoint as safetensors.
pub const SAFETENSORS: &str = "weights.safetensors";
/// The optimiser and replay state of a checkpoint.
pub const TRAINER: &str = "trainer.ot";

/// Size and hash of one file of a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    /// Length in bytes.
    pub bytes: u64,
    /// FNV-1a 64-bit hash of the contents, in hex.
    pub fnv1a: u64,
}

/// `meta.json`. `A` is the run's argument type, `M` its per-iteration metrics.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Meta<A, M> {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// Iterations completed.
    pub iteration: u32,
    /// The rules the network was trained on.
    pub rules: Rules,
    /// The network's shape.
    pub net: NetConfig,
    /// The arguments of the run.
    pub args: A,
    /// Metrics of every iteration so far, oldest first.
    pub history: Vec<M>,
    /// Ratings of the evaluation baselines (anchored at `random` = 0), measured once per run.
    pub baseline_elo: BTreeMap<String, f64>,
    /// Training time so far, over all sessions, in seconds.
    pub seconds: f64,
    /// The data files beside it.
    pub files: BTreeMap<String, FileDigest>,
}

/// Why a checkpoint could not be used.
#[derive(Debug)]
pub enum CheckpointError {
    /// Reading or writing failed.
    Io(PathBuf, std::io::Error),
    /// No checkpoint where one was expected.
    Missing(PathBuf, String),
    /// A file is damaged: truncated, altered, or not a checkpoint at all.
    Corrupt(PathBuf, String),
    /// A sound checkpoint that does not fit what it is asked to do (other rules, other network).
    Mismatch(PathBuf, String),
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Io(p, e) => write!(f, "checkpoint {}: {e}", p.display()),
            CheckpointError::Missing(p, why) => {
                write!(f, "no checkpoint at {}: {why}", p.display())
            }
            CheckpointError::Corrupt(p, why) => write!(
                f,
                "checkpoint {} is corrupt ({why}); delete it to fall back to the previous iteration",
                p.display()
            ),
            CheckpointError::Mismatch(p, why) => {
                write!(f, "checkpoint {} does not fit: {why}", p.display())
            }
        }
    }
}

impl std::error::Error for CheckpointError {}

/// The FNV-1a hash and size of a file.
pub fn digest(path: &Path) -> Result<FileDigest, CheckpointError> {
    let mut file = fs::File::open(path).map_err(|e| CheckpointError::Io(path.to_owned(), e))?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut bytes = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| CheckpointError::Io(path.to_owned(), e))?;
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        bytes += n as u64;
    }
    Ok(FileDigest { bytes, fnv1a: hash })
}

/// The folder name of iteration `i`.
pub fn iteration_dir(run: &Path, iteration: u32) -> PathBuf {
    run.join(format!("iter-{iteration:06}"))
}

/// The newest complete checkpoint folder of a run directory, or `path` itself when it is a
/// checkpoint folder (holds `meta.json`).
pub fn resolve(path: &Path) -> Result<PathBuf, CheckpointError> {
    if path.join(META).is_file() {
        return Ok(path.to_owned());
    }
    if !path.is_dir() {
        return Err(CheckpointError::Missing(
            path.to_owned(),
            "not a directory".to_string(),
        ));
    }
    newest(path)?.ok_or_else(|| {
        CheckpointError::Missing(
            path.to_owned(),
            format!("it holds no iter-NNNNNN folder with a {META}"),
        )
    })
}

/// The newest `iter-NNNNNN` folder with a `meta.json` in a run directory, if any.
pub fn newest(run: &Path) -> Result<Option<PathBuf>, CheckpointError> {
    let entries = match fs::read_dir(run) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CheckpointError::Io(run.to_owned(), e)),
    };
    let mut best: Option<(u32, PathBuf)> = None;
    for entry in entries {
        let entry = entry.map_err(|e| CheckpointError::Io(run.to_owned(), e))?;
        let name = entry.file_name();
        let Some(i) = name
            .to_str()
            .and_then(|n| n.strip_prefix("iter-"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if entry.path().join(META).is_file() && best.as_ref().is_none_or(|(b, _)| i > *b) {
            best = Some((i, entry.path()));
        }
    }
    Ok(best.map(|(_, p)| p))
}

/// Read and check `meta.json` of checkpoint folder `dir`, and check that every file it lists is
/// there with its recorded size and hash.
pub fn read_meta<A: serde::de::DeserializeOwned, M: serde::de::DeserializeOwned>(
    dir: &Path,
) -> Result<Meta<A, M>, CheckpointError> {
    let path = dir.join(META);
    let text = fs::read_to_string(&path).map_err(|e| CheckpointError::Io(path.clone(), e))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| CheckpointError::Corrupt(path.clone(), format!("not valid JSON: {e}")))?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(CheckpointError::Corrupt(
            path,
            format!("it is not a {FORMAT} file"),
        ));
    }
    let version = value.get("version").and_then(|v| v.as_u64());
    if version != Some(u64::from(VERSION)) {
        return Err(CheckpointError::Mismatch(
            path,
            format!("format version {version:?}, this build reads version {VERSION}"),
        ));
    }
    let meta: Meta<A, M> = serde_json::from_value(value)
        .map_err(|e| CheckpointError::Corrupt(path.clone(), format!("bad metadata: {e}")))?;
    for (name, want) in &meta.files {
        let file = dir.join(name);
        if !file.is_file() {
            continue;
        }
        let got = digest(&file)?;
        if got.bytes != want.bytes {
            return Err(CheckpointError::Corrupt(
                file,
                format!(
                    "{} bytes where {} were written; truncated?",
                    got.bytes, want.bytes
                ),
            ));
        }
        if got != *want {
            return Err(CheckpointError::Corrupt(
                file,
                "its contents differ from what was written".to_string(),
            ));
        }
    }
    if !meta.files.contains_key(WEIGHTS) || !dir.join(WEIGHTS).is_file() {
        return Err(CheckpointError::Corrupt(
            dir.to_owned(),
            format!("{WEIGHTS} is missing"),
        ));
    }
    Ok(meta)
}

/// Write a checkpoint folder atomically: `write_files` fills a temporary folder, the digests of
/// what it wrote go into `meta.json`, and the folder is renamed to `iter-NNNNNN`. The previous
/// iteration's `trainer.ot` is then removed (only the newest is needed to resume).
pub fn write<A: Serialize, M: Serialize>(
    run: &Path,
    meta: &mut Meta<A, M>,
    write_files: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<PathBuf, CheckpointError> {
    fs::create_dir_all(run).map_err(|e| CheckpointError::Io(run.to_owned(), e))?;
    let target = iteration_dir(run, meta.iteration);
    let tmp = run.join(format!(".tmp-iter-{:06}", meta.iteration));
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(|e| CheckpointError::Io(tmp.clone(), e))?;
    }
    fs::create_dir_all(&tmp).map_err(|e| CheckpointError::Io(tmp.clone(), e))?;
    write_files(&tmp).map_err(|e| CheckpointError::Corrupt(tmp.clone(), e))?;
    meta.files.clear();
    for name in [WEIGHTS, SAFETENSORS, TRAINER] {
        let file = tmp.join(name);
        if file.is_file() {
            meta.files.insert(name.to_string(), digest(&file)?);
        }
    }
    let json = serde_json::to_string_pretty(meta).expect("checkpoint metadata serialises");
    let meta_path = tmp.join(META);
    fs::write(&meta_path, json).map_err(|e| CheckpointError::Io(meta_path, e))?;
    if target.exists() {
        fs::remove_dir_all(&target).map_err(|e| CheckpointError::Io(target.clone(), e))?;
    }
    fs::rename(&tmp, &target).map_err(|e| CheckpointError::Io(target.clone(), e))?;
    if meta.iteration > 0 {
        let previous = iteration_dir(run, meta.iteration - 1).join(TRAINER);
        if previous.is_file() {
            fs::remove_file(&previous).map_err(|e| CheckpointError::Io(previous, e))?;
        }
    }
    Ok(target)
}

/// What playing a run's network needs of the run's arguments: the search it trained with. The
/// trainer's `Args` hold these fields among others, which a player does not read.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct SearchSettings {
    /// PUCT simulations per self-play move.
    pub simulations: u32,
    /// PUCT exploration constant.
    pub c_puct: f32,
    /// Dirichlet concentration of the root noise.
    pub dirichlet_alpha: f32,
}

/// `meta.json` as a player reads it: the run's search settings, its metrics left unread.
pub type PlayMeta = Meta<SearchSettings, IgnoredAny>;

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
    let mut vs = nn::VarStore::new(Device::cuda_if_available());
    let net = PolicyValueNet::new(&vs.root(), meta.net);
    load_weights(&mut vs, &dir, meta.net)?;
    Ok(LoadedNet { net, vs, meta })
}

/// Load the weights of checkpoint folder `dir` into `vs` (built for a `net` network).
pub fn load_weights(
    vs: &mut nn::VarStore,
    dir: &Path,
    net: NetConfig,
) -> Result<(), CheckpointError> {
    let path = dir.join(WEIGHTS);
    vs.load(&path).map_err(|e| {
        CheckpointError::Corrupt(
            path,
            format!("its tensors do not load into a {net:?} network: {e}"),
        )
    })
}
