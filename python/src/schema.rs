//! `Schema`: a JSON Schema compiled once by the library's `SchemaDecoder`,
//! with the validator that turns its values into Python types (pydantic's,
//! for a model); what `serde_llm.parse(text, schema)` and
//! `StreamParser(schema)` decode through.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use serde_json::Value;
use serde_llm::{Decoder, SchemaDecoder, SchemaOptions};

use crate::{report, stream};

/// A Python value (dicts with string keys, lists, strings, numbers,
/// booleans, None) as JSON: a JSON Schema handed over from Python.
pub fn to_value(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    Ok(if v.is_none() {
        Value::Null
    } else if let Ok(b) = v.cast::<PyBool>() {
        Value::Bool(b.is_true())
    } else if let Ok(i) = v.cast::<PyInt>() {
        match i.extract::<i64>() {
            Ok(n) => Value::from(n),
            Err(_) => match i.extract::<u64>() {
                Ok(n) => Value::from(n),
                Err(_) => Value::from(i.extract::<f64>()?),
            },
        }
    } else if let Ok(f) = v.cast::<PyFloat>() {
        serde_json::Number::from_f64(f.value()).map_or(Value::Null, Value::Number)
    } else if let Ok(s) = v.cast::<PyString>() {
        Value::String(s.to_str()?.to_owned())
    } else if let Ok(d) = v.cast::<PyDict>() {
        let mut m = serde_json::Map::new();
        for (k, x) in d.iter() {
            m.insert(k.str()?.to_str()?.to_owned(), to_value(&x)?);
        }
        Value::Object(m)
    } else if let Ok(l) = v.cast::<PyList>() {
        Value::Array(l.iter().map(|x| to_value(&x)).collect::<PyResult<_>>()?)
    } else if let Ok(t) = v.cast::<PyTuple>() {
        Value::Array(t.iter().map(|x| to_value(&x)).collect::<PyResult<_>>()?)
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a JSON Schema holds dicts, lists, strings, numbers, booleans and None, not {}",
            v.get_type().name()?
        )));
    })
}

/// `serde_llm.errors.SchemaError`, imported once.
static SCHEMA_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn schema_error(py: Python<'_>, e: &serde_llm::SchemaError) -> PyErr {
    let class = SCHEMA_ERROR.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        Ok(py
            .import("serde_llm.errors")?
            .getattr("SchemaError")?
            .cast_into::<PyType>()?
            .unbind())
    });
    let class = match class {
        Ok(c) => c.bind(py),
        Err(err) => return err,
    };
    let kwargs = PyDict::new(py);
    let built = kwargs
        .set_item("path", e.path())
        .and_then(|()| class.call((e.to_string(),), Some(&kwargs)));
    match built {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}

/// A JSON Schema compiled for decoding (see the package's `Schema`).
#[pyclass(frozen, module = "serde_llm._native")]
pub struct Schema {
    pub(crate) dec: SchemaDecoder,
    /// Turns a decoded value into the Python type (pydantic's
    /// `validate_python`); `None` for a plain JSON Schema.
    validate: Option<Py<PyAny>>,
    strict: bool,
}

impl Schema {
    /// The value decoded, validated.
    pub(crate) fn validated(&self, py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
        let v = stream::to_py(py, v)?;
        match &self.validate {
            Some(f) => Ok(f.bind(py).call1((v,))?.unbind()),
            None => Ok(v.unbind()),
        }
    }

    pub(crate) fn decode(
        &self,
        py: Python<'_>,
        text: &str,
        with_report: bool,
        partial: bool,
    ) -> PyResult<Py<PyAny>> {
        if partial {
            let view = self
                .dec
                .decode_partial(text)
                .map_err(|e| report::error(py, &e, text))?;
            let v = match view {
                Some(v) => stream::to_py(py, &v)?.unbind(),
                None => py.None(),
            };
            return match with_report {
                true => Ok(PyTuple::new(py, [v, py.None()])?.into_any().unbind()),
                false => Ok(v),
            };
        }
        if !with_report {
            let v = self
                .dec
                .decode(text)
                .map_err(|e| report::error(py, &e, text))?;
            return self.validated(py, &v);
        }
        let (v, r) = self
            .dec
            .decode_with_report(text)
            .map_err(|e| report::error(py, &e, text))?;
        let v = self.validated(py, &v)?;
        let r = report::report(py, &r, text)?.into_any();
        Ok(PyTuple::new(py, [v, r])?.into_any().unbind())
    }
}

#[pymethods]
impl Schema {
    /// Compiles `schema` (a JSON Schema as a dict). `validate`, if given, is
    /// called with each decoded value and its result returned (pydantic's
    /// `validate_python`). `strict`: no repair and no coercion.
    /// `ignore_unknown_keywords`: leave out the keywords the decoder does
    /// not follow instead of refusing the schema (`SchemaError`).
    #[new]
    #[pyo3(signature = (schema, validate = None, *, strict = false, ignore_unknown_keywords = false))]
    fn new(
        py: Python<'_>,
        schema: &Bound<'_, PyAny>,
        validate: Option<Py<PyAny>>,
        strict: bool,
        ignore_unknown_keywords: bool,
    ) -> PyResult<Schema> {
        let value = to_value(schema)?;
        let mut options = SchemaOptions::new();
        if ignore_unknown_keywords {
            options = options.ignore_unknown_keywords();
        }
        let mut dec =
            SchemaDecoder::with_options(&value, options).map_err(|e| schema_error(py, &e))?;
        if strict {
            dec = dec.with_decoder(Decoder::strict());
        }
        Ok(Schema {
            dec,
            validate: validate.filter(|v| !v.is_none(py)),
            strict,
        })
    }

    /// Decodes the value in `text` against the schema (coerced toward it,
    /// bounds checked), then validates it; `(value, report)` with `report`.
    /// With `partial`, the view of a reply still being written, not
    /// validated: the fields complete so far and those marked `x-partial`
    /// as far as they go (`None` while there is nothing to show).
    #[pyo3(signature = (text, *, report = false, partial = false))]
    fn parse(&self, text: &Bound<'_, PyAny>, report: bool, partial: bool) -> PyResult<Py<PyAny>> {
        let py = text.py();
        crate::with_text(text, false, |t| self.decode(py, t, report, partial))
    }

    /// Whether the schema decodes with no repair and no coercion.
    #[getter]
    fn strict(&self) -> bool {
        self.strict
    }

    /// A `StreamParser` decoding against this schema.
    fn stream(slf: Bound<'_, Self>) -> PyResult<stream::StreamParser> {
        stream::StreamParser::with_schema(slf.unbind())
    }

    fn __repr__(&self) -> String {
        format!(
            "Schema(strict={}, validated={})",
            if self.strict { "True" } else { "False" },
            if self.validate.is_some() {
                "True"
            } else {
                "False"
            }
        )
    }
}
