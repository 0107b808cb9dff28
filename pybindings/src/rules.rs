//! `sowing.Rules`: a variant as data, and `sowing.variants()`. A thin wrapper over
//! `sowing_env::Rules`; building one from Python values checks each field's type here and leaves
//! the ranges to the engine's validation, so every message names the field at fault. A field of
//! the wrong type is a `ValueError` like any other invalid field: rules are configuration data.

use crate::error::to_py;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};
use sowing_env::{Direction, Error, PRESETS, Rules, RulesSpec, Trigger, preset_source};

/// The rules of one game. `Rules("en-dodoi-8")` is a preset; `Rules(holes=8, seeds=4,
/// trigger="leave")` sets fields (the rest take the defaults of RULES.md).
#[pyclass(name = "Rules", module = "sowing", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PyRules(pub Rules);

#[pymethods]
impl PyRules {
    #[new]
    #[pyo3(signature = (variant = None, **fields))]
    fn new(variant: Option<&str>, fields: Option<&Bound<'_, PyDict>>) -> PyResult<PyRules> {
        let fields = fields.filter(|f| !f.is_empty());
        match (variant, fields) {
            (Some(name), None) => Rules::preset(name).map(PyRules).map_err(to_py),
            (None, Some(fields)) => PyRules::from_dict(fields),
            (None, None) => Err(PyValueError::new_err(
                "Rules needs a preset name, e.g. Rules(\"en-dodoi-8\"), or fields, e.g. Rules(holes=8, seeds=4)",
            )),
            (Some(_), Some(_)) => Err(PyValueError::new_err(
                "Rules takes a preset name or fields, not both; to change a preset use Rules(name).replace(field=value)",
            )),
        }
    }

    /// A preset by name; the error lists the valid names.
    #[staticmethod]
    fn preset(name: &str) -> PyResult<PyRules> {
        Rules::preset(name).map(PyRules).map_err(to_py)
    }

    /// Rules from a dict of fields; `holes` and `seeds` are required.
    #[staticmethod]
    fn from_dict(fields: &Bound<'_, PyDict>) -> PyResult<PyRules> {
        let mut spec = RulesSpec {
            holes: 0,
            seeds: 0,
            trigger: Trigger::Take,
            direction: Direction::Ccw,
            skip_origin: false,
            max_laps: Rules::DEFAULT_MAX_LAPS,
            max_plies: Rules::DEFAULT_MAX_PLIES,
        };
        let (mut holes, mut seeds) = (false, false);
        let mut given = Vec::new();
        for (key, value) in fields.iter() {
            let key: String = key.extract().map_err(|_| {
                PyValueError::new_err(format!("rules field names are strings, got {key:?}"))
            })?;
            match key.as_str() {
                "holes" => (spec.holes, holes) = (field_u32("holes", &value, &mut given)?, true),
                "seeds" => (spec.seeds, seeds) = (field_u32("seeds", &value, &mut given)?, true),
                "max_laps" => spec.max_laps = field_u32("max_laps", &value, &mut given)?,
                "max_plies" => spec.max_plies = field_u32("max_plies", &value, &mut given)?,
                "skip_origin" => {
                    spec.skip_origin = value.extract().map_err(|_| {
                        PyValueError::new_err(format!(
                            "rules field skip_origin must be True or False, got {value:?}"
                        ))
                    })?
                }
                "trigger" => {
                    spec.trigger = match field_str("trigger", &value)?.as_str() {
                        "take" => Trigger::Take,
                        "leave" => Trigger::Leave,
                        other => return Err(bad_choice("trigger", other, "\"take\" or \"leave\"")),
                    }
                }
                "direction" => {
                    spec.direction = match field_str("direction", &value)?.as_str() {
                        "ccw" => Direction::Ccw,
                        "parity" => Direction::Parity,
                        other => {
                            return Err(bad_choice("direction", other, "\"ccw\" or \"parity\""));
                        }
                    }
                }
                other => {
                    return Err(PyValueError::new_err(format!(
                        "unknown rules field {other:?}; fields: {}",
                        RulesSpec::FIELDS.join(", ")
                    )));
                }
            }
        }
        for (given, name) in [(holes, "holes"), (seeds, "seeds")] {
            if !given {
                return Err(PyValueError::new_err(format!(
                    "rules field {name} is required (holes and seeds have no default)"
                )));
            }
        }
        Rules::new(spec)
            .map(PyRules)
            .map_err(|e| match e {
                Error::InvalidRules {
                    field,
                    value,
                    allowed,
                } => Error::InvalidRules {
                    field,
                    value: given
                        .iter()
                        .find(|(name, _)| *name == field)
                        .map_or(value, |(_, v)| v.clone()),
                    allowed,
                },
                e => e,
            })
            .map_err(to_py)
    }

    /// Rules from JSON, e.g. `{"holes": 8, "seeds": 4, "trigger": "leave"}`.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<PyRules> {
        Rules::from_json(text).map(PyRules).map_err(to_py)
    }

    /// Rules from TOML, e.g. `holes = 8` and `seeds = 4` on two lines.
    #[staticmethod]
    fn from_toml(text: &str) -> PyResult<PyRules> {
        Rules::from_toml(text).map(PyRules).map_err(to_py)
    }

    /// A copy with some fields changed, validated again.
    #[pyo3(signature = (**fields))]
    fn replace(&self, py: Python<'_>, fields: Option<&Bound<'_, PyDict>>) -> PyResult<PyRules> {
        let all = self.to_dict(py)?;
        if let Some(fields) = fields {
            all.update(fields.as_mapping())?;
        }
        PyRules::from_dict(&all)
    }

    /// The fields as a dict (the form `from_dict` takes).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.0.spec();
        let d = PyDict::new(py);
        d.set_item("holes", s.holes)?;
        d.set_item("seeds", s.seeds)?;
        d.set_item("trigger", self.trigger())?;
        d.set_item("direction", self.direction())?;
        d.set_item("skip_origin", s.skip_origin)?;
        d.set_item("max_laps", s.max_laps)?;
        d.set_item("max_plies", s.max_plies)?;
        Ok(d)
    }

    /// The rules as JSON.
    fn to_json(&self) -> String {
        self.0.to_json()
    }

    /// The rules as TOML.
    fn to_toml(&self) -> String {
        self.0.to_toml()
    }

    /// Holes per row, `n`; actions are `0..n`.
    #[getter]
    fn holes(&self) -> usize {
        self.0.holes()
    }
    /// Seeds per hole at the start.
    #[getter]
    fn seeds(&self) -> usize {
        self.0.seeds()
    }
    /// `"take"` or `"leave"`: what happens to the capturing seed.
    #[getter]
    fn trigger(&self) -> &'static str {
        match self.0.trigger() {
            Trigger::Take => "take",
            Trigger::Leave => "leave",
        }
    }
    /// `"ccw"` or `"parity"`: which way laps are sown.
    #[getter]
    fn direction(&self) -> &'static str {
        match self.0.direction() {
            Direction::Ccw => "ccw",
            Direction::Parity => "parity",
        }
    }
    /// Whether a lap that goes all the way round skips its own emptied hole.
    #[getter]
    fn skip_origin(&self) -> bool {
        self.0.skip_origin()
    }
    /// Laps after which an unfinished move is endless (and so illegal).
    #[getter]
    fn max_laps(&self) -> u32 {
        self.0.max_laps()
    }
    /// Moves after which an unfinished game is truncated.
    #[getter]
    fn max_plies(&self) -> u32 {
        self.0.max_plies()
    }
    /// Seeds in play for the whole game, `2 * holes * seeds`.
    #[getter]
    fn total_seeds(&self) -> usize {
        self.0.total_seeds()
    }
    /// Length of the observation vector, `2 * holes + 2`.
    #[getter]
    fn observation_len(&self) -> usize {
        self.0.observation_len()
    }
    /// A short description, e.g. `2x8, 4 seeds, take, ccw`.
    #[getter]
    fn summary(&self) -> String {
        self.0.summary()
    }

    fn __repr__(&self) -> String {
        let s = self.0.spec();
        format!(
            "Rules(holes={}, seeds={}, trigger={:?}, direction={:?}, skip_origin={}, max_laps={}, max_plies={})",
            s.holes,
            s.seeds,
            self.trigger(),
            self.direction(),
            if s.skip_origin { "True" } else { "False" },
            s.max_laps,
            s.max_plies
        )
    }

    fn __str__(&self) -> String {
        self.0.summary()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (slf.get().0.to_json(),)))
    }
}

/// An integer rules field, saturated into `u32`. Every integer field's range starts at 1 and ends
/// far below `u32::MAX`, so a saturated value is refused by the engine's validation; the value as
/// given is kept in `given` for that message.
fn field_u32(
    name: &'static str,
    value: &Bound<'_, PyAny>,
    given: &mut Vec<(&'static str, String)>,
) -> PyResult<u32> {
    // Any integer, numpy's included (`__index__`), but not a bool.
    let int = if value.is_instance_of::<PyBool>() {
        None
    } else {
        value.call_method0("__index__").ok()
    }
    .ok_or_else(|| {
        PyValueError::new_err(format!(
            "invalid rules: {name} must be an integer, got {}",
            type_name(value)
        ))
    })?;
    let saturated = match int.extract::<u32>() {
        Ok(v) => return Ok(v),
        Err(_) if int.lt(0)? => 0,
        Err(_) => u32::MAX,
    };
    given.push((name, int.str()?.to_string()));
    Ok(saturated)
}

fn field_str(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    value.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "rules field {name} must be a string, got {}",
            type_name(value)
        ))
    })
}

fn bad_choice(name: &str, value: &str, allowed: &str) -> PyErr {
    PyValueError::new_err(format!(
        "invalid rules: {name} = {value:?}; allowed: {allowed}"
    ))
}

/// The Python type name of `value`, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an object".to_string())
}

/// A variant given as a preset name or a `Rules` object.
pub fn rules_arg(variant: &Bound<'_, PyAny>) -> PyResult<Rules> {
    if let Ok(rules) = variant.cast::<PyRules>() {
        return Ok(rules.get().0);
    }
    if let Ok(name) = variant.cast::<PyString>() {
        return Rules::preset(name.to_str()?).map_err(to_py);
    }
    Err(PyTypeError::new_err(format!(
        "a variant is a preset name (one of {}) or a sowing.Rules, got {}",
        PRESETS.join(", "),
        type_name(variant)
    )))
}

/// The preset names, in the order `sowing variants` lists them.
#[pyfunction]
pub fn variants() -> Vec<&'static str> {
    PRESETS.to_vec()
}

/// Where a preset's rules come from (a published source), or `None` for an unknown name.
#[pyfunction]
pub fn variant_source(name: &str) -> Option<&'static str> {
    preset_source(name)
}
