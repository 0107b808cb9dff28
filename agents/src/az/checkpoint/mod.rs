//! Checkpoints of a training run. A run directory holds one folder per iteration,
//! `iter-000001/` ..., each with:
//!
//! - `meta.json`: format and version, the iteration, the rules, the network shape, the run's
//!   arguments, the metrics of every iteration so far, and the size and FNV-1a hash of each file;
//! - `weights.ot`: the network's variables (`VarStore::save`);
//! - `weights.safetensors`: the same variables as safetensors, by the same names, for readers
//!   without libtorch's C++ format (the Python package's `sowing.nn`);
//! - `trainer.ot`: what resuming needs beyond the weights (optimiser moments, replay buffer);
//!   only the newest iteration keeps it (`trainer.pt`, PyTorch's, in a run of the Ray trainer).
//!
//! This module is the one implementation of the layout, for both trainers and both languages:
//! it builds without libtorch (the Python package `sowing` reads and writes checkpoints through
//! it, [`safetensors`] being its codec of the weights), and only [`Weights`] and
//! [`load_checkpoint`], which make a tch network of a checkpoint, need the feature `torch`.
//!
//! A checkpoint is written into a temporary folder and renamed into place, so a crash never leaves
//! a half-written one; every file is written by Rust from bytes serialised in memory (libtorch,
//! writing a file itself, aborts the process when the disk fills), so a full disk is an error
//! that names the file. Loading checks sizes and hashes before handing a file to libtorch, so a
//! truncated or altered file is refused with a message that names it; then what `meta.json`
//! says (the network's shape, the rules, the search settings) is checked against itself and
//! against the tensors of the weights before a network is built from it.
//!
//! The metadata is generic over the run's arguments and metrics, so that this module, and the
//! agent that plays a checkpoint ([`load_checkpoint`]), do not depend on the trainer: a player
//! reads only the [`SearchSettings`] of the arguments.

use crate::az::shape::{Body, NetConfig};
use safetensors::Tensor32;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use sowing_env::Rules;
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

pub mod safetensors;
#[cfg(feature = "torch")]
mod weights;
#[cfg(feature = "torch")]
pub use weights::{LoadedNet, Weights, load_checkpoint, save_safetensors, save_tensors};

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
/// The optimiser and replay state of a checkpoint of the Ray trainer (`sowing.ray`): PyTorch's
/// own file, which only that trainer reads.
pub const RAY_TRAINER: &str = "trainer.pt";
/// What resuming needs beyond the weights, for either trainer: only the newest iteration keeps it.
pub const TRAINER_FILES: [&str; 2] = [TRAINER, RAY_TRAINER];
/// The data files a checkpoint folder may hold beside its `meta.json`.
pub const DATA_FILES: [&str; 4] = [WEIGHTS, SAFETENSORS, TRAINER, RAY_TRAINER];
/// The lock file of a run directory (see [`RunLock`]).
pub const LOCK: &str = ".lock";

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
    /// Which trainer wrote it, where not `sowing train`: `sowing.ray` (whose runs resume only
    /// there) or `python` (a network saved by `sowing.nn.save`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trainer: Option<String>,
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
    /// Another process is writing the run directory; what its lock file says of it.
    Locked(PathBuf, String),
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
            CheckpointError::Locked(p, holder) => write!(
                f,
                "run directory {} is being written by another trainer ({holder}); wait for it to \
                 end, or give another --out",
                p.display()
            ),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// The lock of a run directory, held while a trainer writes it, so that two trainings never
/// write into one directory. `RUN/.lock` names the process that holds it (its pid), and the
/// lock itself is an advisory lock (`flock`) on that file, which the system releases when the
/// process ends, however it ends: a lock file left by a process that died is taken over at
/// once, and one whose process lives is refused. The file stays when the lock is released. (On
/// systems without `flock` nothing is locked.)
#[derive(Debug)]
pub struct RunLock {
    /// Open while the lock is held; closing it releases the lock.
    _file: fs::File,
}

impl RunLock {
    /// Take the lock of run directory `run` (created if missing), or say who holds it.
    pub fn acquire(run: &Path) -> Result<RunLock, CheckpointError> {
        fs::create_dir_all(run).map_err(|e| CheckpointError::Io(run.to_owned(), e))?;
        let path = run.join(LOCK);
        let io = |e| CheckpointError::Io(path.clone(), e);
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        if !try_lock(&file).map_err(io)? {
            let holder = fs::read_to_string(&path).unwrap_or_default();
            let holder = match holder.trim() {
                "" => "a process that has not yet written its pid".to_string(),
                text => text.to_string(),
            };
            return Err(CheckpointError::Locked(run.to_owned(), holder));
        }
        file.set_len(0).map_err(io)?;
        std::io::Write::write_all(
            &mut file,
            format!("pid {}\n", std::process::id()).as_bytes(),
        )
        .map_err(io)?;
        Ok(RunLock { _file: file })
    }
}

/// Take an exclusive `flock` on `file` without waiting: `false` when another process holds it.
#[cfg(unix)]
fn try_lock(file: &fs::File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this function borrows open; it touches no memory.
    let done = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if done == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.kind() == std::io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(e)
    }
}

#[cfg(not(unix))]
fn try_lock(_: &fs::File) -> std::io::Result<bool> {
    Ok(true)
}

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
    let folders = match iteration_folders(run) {
        Err(CheckpointError::Io(_, e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        folders => folders?,
    };
    Ok(folders
        .into_iter()
        .filter(|(_, dir)| dir.join(META).is_file())
        .max_by_key(|(i, _)| *i)
        .map(|(_, dir)| dir))
}

/// The `iter-N` folders of run directory `run` (any number of digits), with their iterations,
/// in no particular order.
fn iteration_folders(run: &Path) -> Result<Vec<(u32, PathBuf)>, CheckpointError> {
    let entries = fs::read_dir(run).map_err(|e| CheckpointError::Io(run.to_owned(), e))?;
    let mut folders = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| CheckpointError::Io(run.to_owned(), e))?;
        let iteration = entry
            .file_name()
            .to_str()
            .and_then(|n| n.strip_prefix("iter-"))
            .and_then(|n| n.parse::<u32>().ok());
        if let Some(i) = iteration {
            folders.push((i, entry.path()));
        }
    }
    Ok(folders)
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
            match version {
                Some(v) => format!("format version {v}, this build reads version {VERSION}"),
                None => format!("no format version (a number), this build reads version {VERSION}"),
            },
        ));
    }
    let meta: Meta<A, M> = serde_json::from_value(value).map_err(|e| {
        let e = sowing_env::Error::cut_lines(&e.to_string());
        CheckpointError::Corrupt(path.clone(), format!("bad metadata: {e}"))
    })?;
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
    // The network's weights: libtorch's file, or (a checkpoint written from Python by
    // `sowing.nn.save` or the Ray trainer) the safetensors alone.
    let present = |name: &str| meta.files.contains_key(name) && dir.join(name).is_file();
    if !present(WEIGHTS) && !present(SAFETENSORS) {
        return Err(CheckpointError::Corrupt(
            dir.to_owned(),
            format!("{WEIGHTS} is missing (and it has no {SAFETENSORS} to read instead)"),
        ));
    }
    Ok(meta)
}

/// Write `bytes` to a new file at `path` and flush it to the disk, so that a full disk shows here
/// rather than when the file is closed (where the error would be lost).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    let io = |e| CheckpointError::Io(path.to_owned(), e);
    let mut file = fs::File::create(path).map_err(io)?;
    std::io::Write::write_all(&mut file, bytes).map_err(io)?;
    file.sync_all().map_err(io)
}

/// Write a checkpoint folder atomically: `write_files` fills a temporary folder, the digests of
/// what it wrote go into `meta.json`, and the folder is renamed to `iter-NNNNNN`. The previous
/// iteration's `trainer.ot` (or `trainer.pt`) is then removed (only the newest is needed to resume). When a write
/// fails (a full disk), the temporary folder is removed and the iterations before stay whole.
pub fn write<A: Serialize, M: Serialize>(
    run: &Path,
    meta: &mut Meta<A, M>,
    write_files: impl FnOnce(&Path) -> Result<(), CheckpointError>,
) -> Result<PathBuf, CheckpointError> {
    fs::create_dir_all(run).map_err(|e| CheckpointError::Io(run.to_owned(), e))?;
    let target = iteration_dir(run, meta.iteration);
    let tmp = run.join(format!(".tmp-iter-{:06}", meta.iteration));
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(|e| CheckpointError::Io(tmp.clone(), e))?;
    }
    fs::create_dir_all(&tmp).map_err(|e| CheckpointError::Io(tmp.clone(), e))?;
    let written = fill(&tmp, meta, write_files);
    if written.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    written?;
    if target.exists() {
        fs::remove_dir_all(&target).map_err(|e| CheckpointError::Io(target.clone(), e))?;
    }
    fs::rename(&tmp, &target).map_err(|e| CheckpointError::Io(target.clone(), e))?;
    if meta.iteration > 0 {
        for name in TRAINER_FILES {
            let previous = iteration_dir(run, meta.iteration - 1).join(name);
            if previous.is_file() {
                fs::remove_file(&previous).map_err(|e| CheckpointError::Io(previous, e))?;
            }
        }
    }
    Ok(target)
}

/// Remove the checkpoint folders of run `run` that retention does not keep, once iteration
/// `newest` is written: kept are the newest `keep_last` iterations (`newest - keep_last + 1` to
/// `newest`) and every multiple of `keep_every` (none when 0). Only `iter-NNNNNN` folders older
/// than `newest` are touched; the newest is always kept, since resuming reads it. Returns the
/// folders removed, oldest first.
pub fn prune(
    run: &Path,
    newest: u32,
    keep_last: u32,
    keep_every: u32,
) -> Result<Vec<PathBuf>, CheckpointError> {
    let kept = |i: u32| {
        i >= newest
            || newest - i < keep_last.max(1)
            || (keep_every > 0 && i.is_multiple_of(keep_every))
    };
    let mut removed: Vec<(u32, PathBuf)> = iteration_folders(run)?
        .into_iter()
        // Only the trainer's own names: a folder the user named alike is left alone.
        .filter(|(i, dir)| iteration_dir(run, *i).file_name() == dir.file_name() && !kept(*i))
        .collect();
    removed.sort();
    for (_, dir) in &removed {
        fs::remove_dir_all(dir).map_err(|e| CheckpointError::Io(dir.clone(), e))?;
    }
    Ok(removed.into_iter().map(|(_, dir)| dir).collect())
}

/// The files of checkpoint folder `tmp`: those of `write_files`, then `meta.json` with their
/// digests.
fn fill<A: Serialize, M: Serialize>(
    tmp: &Path,
    meta: &mut Meta<A, M>,
    write_files: impl FnOnce(&Path) -> Result<(), CheckpointError>,
) -> Result<(), CheckpointError> {
    write_files(tmp)?;
    meta.files.clear();
    // Every file written is listed with its digest (the trainers write those of
    // [`DATA_FILES`]; a file of another name is refused, so that readers know them all).
    for entry in fs::read_dir(tmp).map_err(|e| CheckpointError::Io(tmp.to_owned(), e))? {
        let entry = entry.map_err(|e| CheckpointError::Io(tmp.to_owned(), e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !DATA_FILES.contains(&name.as_str()) {
            return Err(CheckpointError::Io(
                entry.path(),
                std::io::Error::other(format!("a checkpoint holds only {}", DATA_FILES.join(", "))),
            ));
        }
        meta.files.insert(name, digest(&entry.path())?);
    }
    let json = serde_json::to_string_pretty(meta).expect("checkpoint metadata serialises");
    write_file(&tmp.join(META), json.as_bytes())
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

impl SearchSettings {
    /// Refuse settings a search cannot run with (`meta` names the file).
    pub fn check(&self, meta: &Path) -> Result<(), CheckpointError> {
        let bad = |why: String| Err(CheckpointError::Corrupt(meta.to_owned(), why));
        if !(1..=MAX_SIMULATIONS).contains(&self.simulations) {
            return bad(format!(
                "args.simulations is {}; a search runs 1 to {MAX_SIMULATIONS}",
                self.simulations
            ));
        }
        for (name, x) in [
            ("c_puct", self.c_puct),
            ("dirichlet_alpha", self.dirichlet_alpha),
        ] {
            if !(x.is_finite() && x > 0.0) {
                return bad(format!("args.{name} is {x}; it must be a positive number"));
            }
        }
        Ok(())
    }
}

/// The most PUCT simulations per move a checkpoint's settings may ask for, as an `az:` spec may.
pub use crate::budget::MAX_NETWORK_SIMULATIONS as MAX_SIMULATIONS;

/// The largest network a checkpoint may describe: the trainer's limits on `--hidden` and
/// `--blocks`.
pub const MAX_HIDDEN: usize = 4096;
/// See [`MAX_HIDDEN`].
pub const MAX_BLOCKS: usize = 64;

/// Refuse the network `net` that checkpoint `meta` (its `meta.json`) says plays `rules`, when
/// it does not fit the rules or is larger than any the trainer makes.
pub fn check_net(meta: &Path, rules: &Rules, net: &NetConfig) -> Result<(), CheckpointError> {
    let mismatch = |why: String| Err(CheckpointError::Mismatch(meta.to_owned(), why));
    if net.holes != rules.holes() {
        return mismatch(format!(
            "its rules have {} holes per row, its network {}",
            rules.holes(),
            net.holes
        ));
    }
    net.check_span()
        .map_err(|why| CheckpointError::Mismatch(meta.to_owned(), why))?;
    if !(2..=MAX_HIDDEN).contains(&net.hidden) || net.blocks > MAX_BLOCKS {
        return mismatch(format!(
            "its network ({}) is beyond what the trainer makes: hidden 2 to {MAX_HIDDEN}, at \
             most {MAX_BLOCKS} blocks",
            describe(net)
        ));
    }
    Ok(())
}

/// The tensors of the safetensors file `path`, its size checked against the memory first.
pub fn read_safetensors(path: &Path) -> Result<BTreeMap<String, Tensor32>, CheckpointError> {
    let bytes = fs::metadata(path)
        .map_err(|e| CheckpointError::Io(path.to_owned(), e))?
        .len();
    sowing_exact::memory::check(&format!("loading {}", path.display()), 2, bytes, 0, "")
        .map_err(|e| CheckpointError::Io(path.to_owned(), std::io::Error::other(e)))?;
    let data = fs::read(path).map_err(|e| CheckpointError::Io(path.to_owned(), e))?;
    safetensors::decode(&data).map_err(|why| {
        CheckpointError::Corrupt(
            path.to_owned(),
            format!("not a valid safetensors file: {why}"),
        )
    })
}

/// Write `tensors` to the file `path` as safetensors ([`safetensors::encode`]).
pub fn write_safetensors(
    path: &Path,
    tensors: &BTreeMap<String, Tensor32>,
) -> Result<(), CheckpointError> {
    let bytes = safetensors::encode(tensors)
        .map_err(|why| CheckpointError::Io(path.to_owned(), std::io::Error::other(why)))?;
    write_file(path, &bytes)
}

/// The weights of checkpoint folder `dir` as its `weights.safetensors` holds them, checked
/// against the network its `meta.json` describes (the reader of those without libtorch: the
/// Python package). A checkpoint written before checkpoints carried safetensors is refused,
/// saying how to get one.
pub fn read_plain_weights(
    dir: &Path,
    rules: &Rules,
    net: &NetConfig,
    files: &BTreeMap<String, FileDigest>,
) -> Result<BTreeMap<String, Tensor32>, CheckpointError> {
    let path = dir.join(SAFETENSORS);
    if !files.contains_key(SAFETENSORS) || !path.is_file() {
        return Err(CheckpointError::Missing(
            dir.to_owned(),
            format!(
                "it has no {SAFETENSORS}: it was written before checkpoints carried safetensors \
                 weights; train it on with this version of sowing train to get one"
            ),
        ));
    }
    check_net(&dir.join(META), rules, net)?;
    let tensors = read_safetensors(&path)?;
    let shapes = tensors
        .iter()
        .map(|(n, t)| (n.clone(), t.shape.iter().map(|&d| d as i64).collect()))
        .collect();
    let held = held_network(&shapes).map_err(|why| CheckpointError::Corrupt(path.clone(), why))?;
    if held != net.weights_shape() {
        return Err(CheckpointError::Mismatch(
            dir.join(META),
            format!(
                "it describes a network of {}, but {SAFETENSORS} holds one of {}",
                describe(net),
                describe(&held)
            ),
        ));
    }
    Ok(tensors)
}

/// The shape of the network whose tensors have the shapes `tensors` (by name), from the sizes of its first and last
/// layers and the number of its blocks (names as `network.rs` gives them): an MLP's input layer
/// is a matrix, a ring's a convolution over three holes.
pub fn held_network(tensors: &BTreeMap<String, Vec<i64>>) -> Result<NetConfig, String> {
    let dims = |name: &str| -> Result<Vec<i64>, String> {
        let t = tensors.get(name).ok_or_else(|| {
            format!("it has no tensor {name}: not the weights of a network of this project")
        })?;
        Ok(t.clone())
    };
    let (input, policy) = (dims("input.weight")?, dims("policy.weight")?);
    let count_blocks = |layer: &str| {
        (0..)
            .take_while(|i| tensors.contains_key(&format!("block{i}.{layer}.weight")))
            .count()
    };
    let (body, hidden, holes, blocks, lookahead, span) = match (input.as_slice(), policy.as_slice())
    {
        (&[hidden, input_len], &[holes, _]) => {
            // With a span, one more value per hole: the board size's one-hot.
            let (lookahead, span) = match input_len {
                n if n == 6 * holes + 2 => (true, None),
                n if n == 3 * holes + 2 => (false, None),
                n if n == 7 * holes + 2 => (true, Some(holes as usize)),
                n if n == 4 * holes + 2 => (false, Some(holes as usize)),
                n => {
                    return Err(format!(
                        "its input takes {n} values, none of 3, 4, 6 or 7 * {holes} + 2"
                    ));
                }
            };
            (
                Body::Mlp,
                hidden,
                holes,
                count_blocks("fc1"),
                lookahead,
                span,
            )
        }
        (&[hidden, channels, 3], &[1, _, 1]) if hidden > 0 => {
            // The value head reads every hole's channels: 2n * hidden values.
            let value_in = dims("value_hidden.weight")?.get(1).copied().unwrap_or(0);
            if value_in <= 0 || value_in % (2 * hidden) != 0 {
                return Err(format!(
                    "its value_hidden reads {value_in} values, not 2 * holes * {hidden}"
                ));
            }
            let lookahead = match channels {
                8 => true,
                5 => false,
                c => {
                    return Err(format!(
                        "its input has {c} channels per hole, neither 5 nor 8"
                    ));
                }
            };
            let holes = value_in / (2 * hidden);
            (
                Body::Ring,
                hidden,
                holes,
                count_blocks("conv1"),
                lookahead,
                None,
            )
        }
        _ => {
            return Err(format!(
                "its input.weight has shape {input:?} and policy.weight {policy:?}: neither an \
                 MLP's two matrices nor a ring's convolutions"
            ));
        }
    };
    Ok(NetConfig {
        holes: holes as usize,
        hidden: hidden as usize,
        blocks,
        lookahead,
        body,
        span,
    })
}

/// A network's shape in words.
pub fn describe(net: &NetConfig) -> String {
    let span = match net.span {
        Some(span) => format!(", spanning boards of up to {span} holes"),
        None => String::new(),
    };
    format!(
        "{} body, {} holes, hidden width {}, {} blocks, {}{span}",
        net.body,
        net.holes,
        net.hidden,
        net.blocks,
        if net.lookahead {
            "with look-ahead"
        } else {
            "without look-ahead"
        }
    )
}
