//! Checkpoints and the run's settings for Python: the one implementation of the checkpoint
//! layout (`sowing_agents::az::checkpoint`: `meta.json`, digests, iteration folders, retention,
//! safetensors) and of the training settings (`sowing_train::TrainConfig`: defaults, checks,
//! config files), so that `sowing.nn.load`/`save` and the Ray driver (`sowing.ray.train`) read
//! and write what `sowing train` does. Metadata crosses as Python dicts (through `json`),
//! tensors as float32 numpy arrays. Every failure is a `CheckpointError` (a `ValueError`) or a
//! `ValueError` naming the file and what is wrong.

use crate::error::guard;
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde_json::Value;
use sowing_agents::az::checkpoint::{
    self, CheckpointError, Meta, SAFETENSORS, SearchSettings, safetensors::Tensor32,
};
use sowing_train::TrainConfig;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{PyCheckpointError, checkpoint as raise};

/// A JSON value as a Python object (by `json.loads`).
fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (value.to_string(),))
}

/// A Python object as a JSON value (by `json.dumps`); `what` names it in the error.
fn from_python(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let text: String = value
        .py()
        .import("json")?
        .call_method1("dumps", (value,))
        .and_then(|t| t.extract())
        .map_err(|e| PyValueError::new_err(format!("{what} is not JSON data: {e}")))?;
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// `read_checkpoint(path)`: the checkpoint at `path` (a run directory, its newest iteration, or
/// an `iter-NNNNNN` folder), checked as `sowing train` checks it (format, version, every
/// file's size and hash, the network against the rules, the weights against the network):
/// `(folder, meta, weights)`, the weights as float32 numpy arrays by name.
#[pyfunction]
pub fn read_checkpoint<'py>(
    py: Python<'py>,
    path: PathBuf,
) -> PyResult<(String, Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let (folder, meta, tensors) = guard(|| read(&path))?.map_err(raise)?;
    let weights = PyDict::new(py);
    for (name, t) in tensors {
        let array = t.data.into_pyarray(py).reshape(t.shape)?;
        weights.set_item(name, array)?;
    }
    let meta = to_python(py, &meta)?;
    Ok((folder.display().to_string(), meta, weights))
}

/// What [`read_checkpoint`] reads, in Rust.
fn read(path: &Path) -> Result<(PathBuf, Value, BTreeMap<String, Tensor32>), CheckpointError> {
    let folder = checkpoint::resolve(path)?;
    let meta: Meta<Value, Value> = checkpoint::read_meta(&folder)?;
    let file = folder.join(checkpoint::META);
    let settings: SearchSettings = serde_json::from_value(meta.args.clone())
        .map_err(|e| CheckpointError::Corrupt(file.clone(), format!("bad metadata: args: {e}")))?;
    settings.check(&file)?;
    let tensors = checkpoint::read_plain_weights(&folder, &meta.rules, &meta.net, &meta.files)?;
    let value = serde_json::to_value(&meta).expect("metadata serialises");
    Ok((folder, value, tensors))
}

/// `write_checkpoint(run, meta, weights, files=None, keep_last=None, keep_every=0)`: checkpoint
/// `iter-NNNNNN` (`meta["iteration"]`) of run directory `run`, written atomically as `sowing
/// train` writes it: `weights` (numpy arrays by name, as float32) as `weights.safetensors`,
/// `files` (bytes by name: `trainer.pt` of the Ray trainer) beside it, and `meta.json` (the
/// dict `meta`: iteration, rules, net, args, history, baseline_elo, seconds, trainer) with the
/// format, version and every file's digest. The previous iteration's trainer state is removed;
/// with `keep_last`, the folders retention does not keep (the newest `keep_last`, and every
/// `keep_every`-th). Returns the folder.
#[pyfunction]
#[pyo3(signature = (run, meta, weights, files = None, keep_last = None, keep_every = 0))]
pub fn write_checkpoint(
    run: PathBuf,
    meta: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyDict>,
    files: Option<&Bound<'_, PyDict>>,
    keep_last: Option<u32>,
    keep_every: u32,
) -> PyResult<String> {
    let mut value = from_python(meta, "meta")?;
    let Some(map) = value.as_object_mut() else {
        return Err(PyValueError::new_err("meta must be a dict"));
    };
    map.insert("format".into(), Value::from(checkpoint::FORMAT));
    map.insert("version".into(), Value::from(checkpoint::VERSION));
    map.insert("files".into(), Value::Object(Default::default()));
    let mut meta: Meta<Value, Value> = serde_json::from_value(value)
        .map_err(|e| PyValueError::new_err(format!("meta does not describe a checkpoint: {e}")))?;
    let mut tensors = BTreeMap::new();
    for (name, array) in weights.iter() {
        let name: String = name.extract()?;
        let array = float32(&array, &name)?;
        let array = array.readonly();
        let shape = array.shape().to_vec();
        let data = array.as_slice()?.to_vec();
        tensors.insert(name, Tensor32 { shape, data });
    }
    let shapes = tensors
        .iter()
        .map(|(n, t)| (n.clone(), t.shape.iter().map(|&d| d as i64).collect()))
        .collect();
    let held = checkpoint::held_network(&shapes)
        .map_err(|why| PyValueError::new_err(format!("the weights: {why}")))?;
    if held != meta.net.weights_shape() {
        return Err(PyValueError::new_err(format!(
            "meta describes a network of {}, but the weights are one of {}",
            checkpoint::describe(&meta.net),
            checkpoint::describe(&held)
        )));
    }
    checkpoint::check_net(Path::new("meta"), &meta.rules, &meta.net).map_err(raise)?;
    let mut extra: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, data) in files.into_iter().flat_map(|f| f.iter()) {
        let name: String = name.extract()?;
        if name == SAFETENSORS || !checkpoint::DATA_FILES.contains(&name.as_str()) {
            return Err(PyValueError::new_err(format!(
                "files may hold {}, not {name:?}",
                checkpoint::RAY_TRAINER
            )));
        }
        let data = data.cast::<PyBytes>()?.as_bytes().to_vec();
        extra.push((name, data));
    }
    if keep_last == Some(0) {
        return Err(PyValueError::new_err(
            "keep_last must be at least 1 (the newest checkpoint is the run's state)",
        ));
    }
    let folder = guard(|| {
        let folder = checkpoint::write(&run, &mut meta, |tmp| {
            checkpoint::write_safetensors(&tmp.join(SAFETENSORS), &tensors)?;
            for (name, data) in &extra {
                checkpoint::write_file(&tmp.join(name), data)?;
            }
            Ok(())
        })?;
        if let Some(keep_last) = keep_last {
            checkpoint::prune(&run, meta.iteration, keep_last, keep_every)?;
        }
        Ok::<_, CheckpointError>(folder)
    })?
    .map_err(raise)?;
    Ok(folder.display().to_string())
}

/// `value` as a float32 numpy array, converted by numpy where it is not one.
fn float32<'py>(value: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let py = value.py();
    let numpy = py.import("numpy")?;
    let array = numpy
        .call_method1("ascontiguousarray", (value, numpy.getattr("float32")?))
        .map_err(|e| PyValueError::new_err(format!("tensor {name} is not numbers: {e}")))?;
    Ok(array.cast_into::<PyArrayDyn<f32>>()?)
}

/// `newest_checkpoint(run)`: the newest `iter-NNNNNN` folder with a `meta.json` of run
/// directory `run`, or None.
#[pyfunction]
pub fn newest_checkpoint(run: PathBuf) -> PyResult<Option<String>> {
    let found = guard(|| checkpoint::newest(&run))?.map_err(raise)?;
    Ok(found.map(|p| p.display().to_string()))
}

/// `resolve_checkpoint(path)`: `path` when it is a checkpoint folder, else the newest one of the
/// run directory `path`.
#[pyfunction]
pub fn resolve_checkpoint(path: PathBuf) -> PyResult<String> {
    let found = guard(|| checkpoint::resolve(&path))?.map_err(raise)?;
    Ok(found.display().to_string())
}

/// `train_config(settings=None, file=None)`: the settings of a training run as a dict, every
/// one of them: the defaults, under those of config `file` (TOML or JSON, as `sowing train
/// --config` reads it), under `settings` (a dict of some of them). Not validated (see
/// [`validate_train_config`]). An unknown or ill-typed setting is a `ValueError` naming it.
#[pyfunction]
#[pyo3(signature = (settings = None, file = None))]
pub fn train_config<'py>(
    py: Python<'py>,
    settings: Option<&Bound<'py, PyAny>>,
    file: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let config = merged(settings, file.as_deref())?;
    to_python(
        py,
        &serde_json::to_value(&config).expect("settings serialise"),
    )
}

/// The settings of `file` under `settings`.
fn merged(settings: Option<&Bound<'_, PyAny>>, file: Option<&Path>) -> PyResult<TrainConfig> {
    let mut all = match file {
        Some(path) => guard(|| TrainConfig::read_settings(path))?
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
        None => Default::default(),
    };
    if let Some(settings) = settings {
        match from_python(settings, "settings")? {
            Value::Object(map) => all.extend(map.into_iter().filter(|(_, v)| !v.is_null())),
            _ => return Err(PyValueError::new_err("settings must be a dict")),
        }
    }
    guard(|| TrainConfig::from_settings(Value::Object(all)))?
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `train_config_names_in(file)`: the names of the settings config `file` gives.
#[pyfunction]
pub fn train_config_names_in(file: PathBuf) -> PyResult<Vec<String>> {
    let settings = guard(|| TrainConfig::read_settings(&file))?
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(settings.keys().cloned().collect())
}

/// `validate_train_config(settings)`: raise a `ValueError` naming the first setting that cannot
/// train (the checks of `sowing train`, with its messages).
#[pyfunction]
pub fn validate_train_config(settings: &Bound<'_, PyAny>) -> PyResult<()> {
    let config = merged(Some(settings), None)?;
    guard(|| config.validate())?.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `run_train_config(args)`: the settings of a run as its `meta.json` records them (`args`),
/// old runs' included (what they lack takes what runs did before the setting existed).
#[pyfunction]
pub fn run_train_config<'py>(
    py: Python<'py>,
    args: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let value = from_python(args, "args")?;
    let config = guard(|| TrainConfig::from_run(&value))?.map_err(PyValueError::new_err)?;
    to_python(
        py,
        &serde_json::to_value(&config).expect("settings serialise"),
    )
}

/// Register this module's functions and its exception.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CheckpointError", m.py().get_type::<PyCheckpointError>())?;
    m.add("RESUME_CHANGES", sowing_train::RESUME_CHANGES.to_vec())?;
    m.add("CHECKPOINT_TRAINER", checkpoint::RAY_TRAINER)?;
    m.add_function(wrap_pyfunction!(read_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(write_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(newest_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(train_config, m)?)?;
    m.add_function(wrap_pyfunction!(train_config_names_in, m)?)?;
    m.add_function(wrap_pyfunction!(validate_train_config, m)?)?;
    m.add_function(wrap_pyfunction!(run_train_config, m)?)?;
    Ok(())
}
