//! `sowing.Rules`: a variant as data, and `sowing.variants()`. A thin wrapper over
//! `sowing_env::Rules`.
//!
//! A dict of fields becomes a `RulesSpec` through serde, by the engine's own definition of the
//! fields (names, types, defaults, unknown fields refused): [`DictFields`] is a small serde
//! `Deserializer` over the dict, so no field is parsed here by name and a new rules field needs
//! nothing in this file. It reads Python values as they are (any integer, numpy's included, but
//! not a bool; a bool for a bool; a string for a choice), and every error names the field at
//! fault. The ranges are left to the engine's validation. A field of the wrong type is a
//! `ValueError` like any other invalid field: rules are configuration data.
//!
//! (A JSON round trip would be shorter but loses what Python says: `8.0` would pass as a number,
//! numpy integers do not serialise, and an integer past 64 bits has no JSON form.)
//!
//! The same reader takes the keyword arguments of the search and self-play ([`from_keywords`]):
//! any serde struct of the core, its defaults for the keywords left out, its own check of the
//! ranges; there a value of the wrong kind is a `TypeError`, as Python's keyword arguments have
//! it, and a nested struct is given as a dict.

use crate::error::to_py;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyDictMethods, PyFloat, PyInt, PyString};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use sowing_env::{Error, PRESETS, Rules, RulesSpec, preset_source, rules_of_file};
use std::fmt;
use std::path::PathBuf;

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
        let mut out_of_range = Vec::new();
        let spec = RulesSpec::deserialize(DictFields {
            dict: fields,
            out_of_range: &mut out_of_range,
        })
        .map_err(|e| PyValueError::new_err(format!("invalid rules: {}", e.message)))?;
        Rules::new(spec)
            .map(PyRules)
            .map_err(|e| match e {
                // The message shows the value as given, not the one it was saturated to.
                Error::InvalidRules {
                    field,
                    value,
                    allowed,
                } => Error::InvalidRules {
                    field,
                    value: out_of_range
                        .iter()
                        .find(|(name, _)| name == field)
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

    /// Rules from a rules file as `sowing --rules FILE` reads it: TOML when its name ends in
    /// `.toml` (in any case), JSON otherwise. A file that cannot be read is a
    /// `FileNotFoundError` or `OSError`, one that holds no rules a `ValueError`; each names the
    /// file.
    #[staticmethod]
    fn from_file(path: PathBuf) -> PyResult<PyRules> {
        let text = std::fs::read_to_string(&path).map_err(|e| {
            let message = format!("cannot read rules file {}: {e}", path.display());
            match e.kind() {
                std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
                _ => PyOSError::new_err(message),
            }
        })?;
        rules_of_file(&path, &text)
            .map(PyRules)
            .map_err(PyValueError::new_err)
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

    /// The fields as a dict (the form `from_dict` takes), in the order of `RULES.md`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // Through JSON, which writes the fields in their order (a `serde_json::Map` would sort
        // them); every value is a plain number, string or bool.
        let json = serde_json::to_string(&self.0.spec()).expect("a rule set serialises");
        let fields = py.import("json")?.call_method1("loads", (json,))?;
        Ok(fields.cast_into::<PyDict>()?)
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
        self.0.trigger().name()
    }
    /// `"ccw"` or `"parity"`: which way laps are sown.
    #[getter]
    fn direction(&self) -> &'static str {
        self.0.direction().name()
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

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut fields = Vec::new();
        for (name, value) in self.to_dict(py)?.iter() {
            let shown = match value.extract::<String>() {
                Ok(s) => format!("{s:?}"),
                Err(_) => value.repr()?.to_string(),
            };
            fields.push(format!("{name}={shown}"));
        }
        Ok(format!("Rules({})", fields.join(", ")))
    }

    fn __str__(&self) -> String {
        self.0.summary()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (slf.get().0.to_json(),)))
    }
}

/// `T` from the keyword arguments `fields` (none: every field its default), each read as its
/// field's type asks and the ranges checked by `T`'s own deserialisation; `what` opens a message
/// that does not name its field. A value of the wrong kind is a `TypeError`, any other invalid
/// value a `ValueError`; an integer past its field's `u32` is shown as given.
pub fn from_keywords<T: DeserializeOwned>(
    py: Python<'_>,
    fields: Option<&Bound<'_, PyDict>>,
    what: &str,
) -> PyResult<T> {
    let empty = PyDict::new(py);
    let mut out_of_range = Vec::new();
    T::deserialize(DictFields {
        dict: fields.unwrap_or(&empty),
        out_of_range: &mut out_of_range,
    })
    .map_err(|e| {
        let mut message = e.message;
        // A field saturated to fit its type is refused by the range check: show what was given.
        for (name, given) in &out_of_range {
            if message.starts_with(&format!("{name} ")) {
                for saturated in [u32::MAX.to_string(), "0".to_string()] {
                    let shown = format!("got {saturated}");
                    if message.ends_with(&shown) {
                        message = format!("{}got {given}", &message[..message.len() - shown.len()]);
                        break;
                    }
                }
            }
        }
        match (e.wrong_kind, e.named) {
            (true, _) => PyTypeError::new_err(message),
            (false, true) => PyValueError::new_err(message),
            (false, false) => PyValueError::new_err(format!("{what}: {message}")),
        }
    })
}

/// A serde error while reading a dict of fields: the message, whether it names its field yet,
/// and whether the value was of the wrong kind.
#[derive(Debug)]
struct FieldError {
    message: String,
    named: bool,
    wrong_kind: bool,
}

impl FieldError {
    /// An error about `field` whose message already names it.
    fn about(message: String) -> FieldError {
        FieldError {
            message,
            named: true,
            wrong_kind: false,
        }
    }
}

impl de::Error for FieldError {
    fn custom<T: fmt::Display>(message: T) -> FieldError {
        let message = message.to_string();
        // serde's own words for a misspelt keyword.
        let named = message.starts_with("unknown field");
        FieldError {
            message,
            named,
            wrong_kind: false,
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FieldError {}

/// The rules fields of a dict, offered to serde as a map. Integers too large for their `u32`
/// field are saturated (to 0 or `u32::MAX`), so that the engine's validation refuses them with
/// the range it allows, and kept here as given, for that message: every integer field's range
/// starts at 1 and ends far below `u32::MAX`.
struct DictFields<'a, 'py> {
    dict: &'a Bound<'py, PyDict>,
    out_of_range: &'a mut Vec<(String, String)>,
}

impl<'de> de::Deserializer<'de> for DictFields<'_, '_> {
    type Error = FieldError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        visitor.visit_map(Fields {
            items: self.dict.iter(),
            value: None,
            out_of_range: self.out_of_range,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

struct Fields<'a, 'py> {
    items: pyo3::types::iter::BoundDictIterator<'py>,
    /// The field whose key was just read, and its value.
    value: Option<(String, Bound<'py, PyAny>)>,
    out_of_range: &'a mut Vec<(String, String)>,
}

impl<'de> MapAccess<'de> for Fields<'_, '_> {
    type Error = FieldError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, FieldError> {
        let Some((key, value)) = self.items.next() else {
            return Ok(None);
        };
        let name: String = key
            .extract()
            .map_err(|_| FieldError::about(format!("field names are strings, got {key:?}")))?;
        let field = seed.deserialize(name.as_str().into_deserializer())?;
        self.value = Some((name, value));
        Ok(Some(field))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, FieldError> {
        let (name, value) = self
            .value
            .take()
            .expect("serde reads a value after its key");
        let field = FieldValue {
            name: &name,
            value: &value,
            out_of_range: self.out_of_range,
        };
        seed.deserialize(field).map_err(|e| match e.named {
            true => e,
            false => FieldError {
                message: format!("{name}: {}", e.message),
                named: true,
                wrong_kind: e.wrong_kind,
            },
        })
    }
}

/// The value of one field, read as the field's type asks.
struct FieldValue<'a, 'py> {
    name: &'a str,
    value: &'a Bound<'py, PyAny>,
    out_of_range: &'a mut Vec<(String, String)>,
}

impl<'py> FieldValue<'_, 'py> {
    fn wrong_kind(&self, expected: &str) -> FieldError {
        FieldError {
            wrong_kind: true,
            ..FieldError::about(format!(
                "{} must be {expected}, got {}",
                self.name,
                type_name(self.value)
            ))
        }
    }

    /// The value as a Python `int`: any integer, numpy's included (`__index__`), but not a bool.
    fn integer(&self) -> Result<Bound<'py, PyAny>, FieldError> {
        if self.value.is_instance_of::<PyBool>() {
            return Err(self.wrong_kind("an integer"));
        }
        self.value
            .call_method0("__index__")
            .map_err(|_| self.wrong_kind("an integer"))
    }
}

impl<'de> de::Deserializer<'de> for FieldValue<'_, '_> {
    type Error = FieldError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        let v = self.value;
        if v.is_none() {
            visitor.visit_none()
        } else if v.is_instance_of::<PyBool>() {
            self.deserialize_bool(visitor)
        } else if v.is_instance_of::<PyInt>() {
            match v.extract::<i64>() {
                Ok(i) => visitor.visit_i64(i),
                Err(_) => visitor.visit_u64(v.extract().map_err(|_| {
                    FieldError::about(format!("{} = {v} is out of range", self.name))
                })?),
            }
        } else if v.is_instance_of::<PyFloat>() {
            visitor.visit_f64(v.extract().map_err(|_| self.wrong_kind("a number"))?)
        } else if v.is_instance_of::<PyString>() {
            self.deserialize_string(visitor)
        } else {
            Err(self.wrong_kind("a number, a string or a bool"))
        }
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        let int = self.integer()?;
        if let Ok(v) = int.extract::<u32>() {
            return visitor.visit_u32(v);
        }
        let negative = int.lt(0).unwrap_or(false);
        let given = int
            .str()
            .map_or_else(|_| "?".to_string(), |s| s.to_string());
        self.out_of_range.push((self.name.to_string(), given));
        visitor.visit_u32(if negative { 0 } else { u32::MAX })
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        // Any number, numpy's included, but not a bool nor a string.
        let v = self.value;
        if v.is_instance_of::<PyBool>() || v.is_instance_of::<PyString>() {
            return Err(self.wrong_kind("a number"));
        }
        match v.extract::<f64>() {
            Ok(x) => visitor.visit_f64(x),
            Err(_) => Err(self.wrong_kind("a number")),
        }
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_f64(visitor)
    }

    /// A nested struct is a dict of its fields.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        let Ok(dict) = self.value.cast::<PyDict>() else {
            return Err(self.wrong_kind("a dict"));
        };
        visitor.visit_map(Fields {
            items: dict.iter(),
            value: None,
            out_of_range: self.out_of_range,
        })
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        // A bool, numpy's included, but not an integer.
        match self.value.extract::<bool>() {
            Ok(b) => visitor.visit_bool(b),
            Err(_) => Err(self.wrong_kind("True or False")),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.value.extract::<String>() {
            Ok(s) => visitor.visit_string(s),
            Err(_) => Err(self.wrong_kind("a string")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_string(visitor)
    }

    /// A choice (`trigger = "take"`) is a string naming it.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        match self.value.extract::<String>() {
            Ok(s) => visitor.visit_enum(s.into_deserializer()),
            Err(_) => Err(self.wrong_kind("a string")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.value.is_none() {
            true => visitor.visit_none(),
            false => visitor.visit_some(self),
        }
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u64 u128 char bytes byte_buf unit unit_struct
        newtype_struct seq tuple tuple_struct map identifier ignored_any
    }
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
pub fn variant_source(name: &str) -> Option<String> {
    preset_source(name)
}
