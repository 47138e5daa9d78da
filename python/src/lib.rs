//! The native half of the Python package `serde_llm`: json_repair's API
//! (`repair_json`, `loads`, `load`, `from_file`), the untyped `parse`, and
//! the `StreamParser`, each a thin layer over the `serde_llm` crate that
//! builds Python objects straight from the decoder.
//!
//! The Python half (`serde_llm/__init__.py`) adds pydantic models and JSON
//! Schemas on top, and the error classes.

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString, PyTuple};
use serde_llm::{Allow, Decoder, ErrorKind};

mod dump;
mod fast;
mod keys;
mod report;
mod schema;
mod stream;
mod text;
mod value;

use value::Obj;

/// The text of a `str`, `bytes` or `bytearray` argument, for `f`. Bytes that
/// are not UTF-8 are read with replacement characters (as a lossy
/// `Decoder` reads them) where `lossy`, and are the library's
/// `invalid_utf8` error otherwise.
pub(crate) fn with_text<R>(
    arg: &Bound<'_, PyAny>,
    lossy: bool,
    f: impl FnOnce(&str) -> PyResult<R>,
) -> PyResult<R> {
    let py = arg.py();
    if let Ok(s) = arg.cast::<PyString>() {
        return f(s.to_str()?);
    }
    let owned;
    let bytes: &[u8] = if let Ok(b) = arg.cast::<PyBytes>() {
        b.as_bytes()
    } else if let Ok(b) = arg.cast::<PyByteArray>() {
        owned = b.to_vec();
        &owned
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected str, bytes or bytearray, not {}",
            arg.get_type().name()?
        )));
    };
    // The library's one reader: a character cut off at the end is dropped
    // (the reply was cut there), an invalid sequence refused at its offset
    // or, lossy, replaced.
    let decoder = match lossy {
        true => Decoder::new().lossy(),
        false => Decoder::new(),
    };
    match decoder.text_of(bytes) {
        Ok(read) => f(read.text()),
        Err(e) => Err(report::error(py, &e, &String::from_utf8_lossy(bytes))),
    }
}

/// The decoder for `strict`.
fn decoder(strict: bool) -> Decoder {
    match strict {
        true => Decoder::strict(),
        false => Decoder::new(),
    }
}

/// The decoder of json_repair's functions: as [`decoder`], and a `...`
/// between array elements removed, as json_repair removes it (serde_llm's
/// own `parse` refuses it: see `RepairKind::Elision`).
fn compat_decoder(strict: bool) -> Decoder {
    decoder(strict).allow(serde_llm::RepairKind::Elision)
}

/// What json_repair's functions return: the value, or `(value, log)` with
/// `logging`.
fn compat(
    py: Python<'_>,
    text: &str,
    skip_json_loads: bool,
    logging: bool,
    strict: bool,
) -> PyResult<(Py<PyAny>, Option<Py<PyAny>>)> {
    let empty = || PyString::new(py, "").into_any().unbind();
    if !skip_json_loads {
        if let Some(v) = fast::parse(py, text) {
            let log = logging.then(|| pyo3::types::PyList::empty(py).into_any().unbind());
            return Ok((v.unbind(), log));
        }
    }
    let d = compat_decoder(strict);
    let got = match logging {
        true => d.decode_with_report::<Obj>(text).map(|(v, r)| (v, Some(r))),
        false => d.decode::<Obj>(text).map(|v| (v, None)),
    };
    match got {
        Ok((Obj(v), r)) => {
            let log = match r {
                Some(r) => Some(report::log(py, &r, text)?.into_any().unbind()),
                None => None,
            };
            Ok((v, log))
        }
        // json_repair's answer for a reply it cannot make a value of.
        Err(e) if !strict || e.kind() == ErrorKind::NoJson => {
            let log = logging.then(|| pyo3::types::PyList::empty(py).into_any().unbind());
            Ok((empty(), log))
        }
        Err(e) => Err(report::error(py, &e, text)),
    }
}

/// `value`, or `(value, log)` as a tuple.
fn with_log(py: Python<'_>, (v, log): (Py<PyAny>, Option<Py<PyAny>>)) -> PyResult<Py<PyAny>> {
    match log {
        Some(log) => Ok(PyTuple::new(py, [v, log])?.into_any().unbind()),
        None => Ok(v),
    }
}

/// json_repair's `repair_json`: the value in `json_str`, repaired, as JSON
/// text written as `json.dumps(value, ensure_ascii=..., indent=...)` writes
/// it; the value itself with `return_objects`; `(value, log)` with
/// `logging`. `""` when the reply holds no JSON value (or its value is the
/// empty string), as json_repair returns.
#[pyfunction]
#[pyo3(signature = (
    json_str = None, return_objects = false, skip_json_loads = false, logging = false,
    ensure_ascii = true, indent = None, *, strict = false, stream_stable = false,
    chunk_length = 0, json_fd = None
))]
#[allow(clippy::too_many_arguments)]
fn repair_json(
    py: Python<'_>,
    json_str: Option<&Bound<'_, PyAny>>,
    return_objects: bool,
    skip_json_loads: bool,
    logging: bool,
    ensure_ascii: bool,
    indent: Option<&Bound<'_, PyAny>>,
    strict: bool,
    stream_stable: bool,
    chunk_length: usize,
    json_fd: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    // A string cut off at the end is kept as written so far whatever
    // `stream_stable` says, and files are read whole.
    let _ = (stream_stable, chunk_length);
    let read;
    let arg = match (json_fd, json_str) {
        (Some(fd), _) => {
            read = fd.call_method0("read")?;
            &read
        }
        (None, Some(s)) => s,
        (None, None) => &PyString::new(py, "").into_any(),
    };
    let indent = match indent {
        None => None,
        Some(i) if i.is_none() => None,
        Some(i) => match i.extract::<isize>() {
            Ok(n) => Some(" ".repeat(n.max(0) as usize)),
            Err(_) => Some(i.extract::<String>()?),
        },
    };
    let style = dump::Style {
        ascii: ensure_ascii,
        indent,
    };
    with_text(arg, true, |text| {
        if !(return_objects || logging) {
            if let Some(written) = write_text(py, text, skip_json_loads, strict, &style)? {
                return Ok(written);
            }
        }
        let (v, log) = compat(py, text, skip_json_loads, logging, strict)?;
        if return_objects || logging {
            return with_log(py, (v, log));
        }
        let v = v.bind(py);
        if v.cast::<PyString>()
            .is_ok_and(|s| s.is_empty().unwrap_or(false))
        {
            return Ok(PyString::new(py, "").into_any().unbind());
        }
        Ok(PyString::new(py, &dump::dumps(v, &style)?)
            .into_any()
            .unbind())
    })
}

/// `repair_json`'s text written straight from the decoder; `None` where the
/// value must be built as Python objects first: valid JSON whose numbers
/// serde_json (the library's fast lane) reads otherwise than `json.loads`
/// (an integer beyond 64 bits, `-0`), and an object with a key written
/// twice.
fn write_text(
    py: Python<'_>,
    text: &str,
    skip_json_loads: bool,
    strict: bool,
    style: &dump::Style,
) -> PyResult<Option<Py<PyAny>>> {
    if !skip_json_loads && fast::plausible(text.as_bytes()) && fast::numbers_differ(text.as_bytes())
    {
        return Ok(None);
    }
    match compat_decoder(strict).decode_seed(text, text::Writing(style)) {
        Ok(w) if w.dup => Ok(None),
        Ok(w) if w.text == "\"\"" => Ok(Some(PyString::new(py, "").into_any().unbind())),
        Ok(w) => Ok(Some(PyString::new(py, &w.text).into_any().unbind())),
        Err(e) if !strict || e.kind() == ErrorKind::NoJson => {
            Ok(Some(PyString::new(py, "").into_any().unbind()))
        }
        Err(e) => Err(report::error(py, &e, text)),
    }
}

/// json_repair's `loads`: like `json.loads`, repairing as needed; `""` when
/// the reply holds no JSON value.
#[pyfunction]
#[pyo3(signature = (json_str, skip_json_loads = false, logging = false, stream_stable = false, *, strict = false))]
fn loads(
    py: Python<'_>,
    json_str: &Bound<'_, PyAny>,
    skip_json_loads: bool,
    logging: bool,
    stream_stable: bool,
    strict: bool,
) -> PyResult<Py<PyAny>> {
    let _ = stream_stable;
    let got = with_text(json_str, true, |text| {
        compat(py, text, skip_json_loads, logging, strict)
    })?;
    with_log(py, got)
}

/// json_repair's `load`: `loads` of what `fd.read()` returns (`str` or
/// `bytes`).
#[pyfunction]
#[pyo3(signature = (fd, skip_json_loads = false, logging = false, chunk_length = 0, *, strict = false))]
fn load(
    py: Python<'_>,
    fd: &Bound<'_, PyAny>,
    skip_json_loads: bool,
    logging: bool,
    chunk_length: usize,
    strict: bool,
) -> PyResult<Py<PyAny>> {
    let _ = chunk_length;
    let text = fd.call_method0("read")?;
    let got = with_text(&text, true, |text| {
        compat(py, text, skip_json_loads, logging, strict)
    })?;
    with_log(py, got)
}

/// json_repair's `from_file`: `load` of the file at `filename`, read as
/// UTF-8.
#[pyfunction]
#[pyo3(signature = (filename, skip_json_loads = false, logging = false, chunk_length = 0, *, strict = false))]
fn from_file(
    py: Python<'_>,
    filename: std::path::PathBuf,
    skip_json_loads: bool,
    logging: bool,
    chunk_length: usize,
    strict: bool,
) -> PyResult<Py<PyAny>> {
    let _ = chunk_length;
    let bytes = std::fs::read(&filename)?;
    let text = String::from_utf8_lossy(&bytes);
    let got = compat(py, &text, skip_json_loads, logging, strict)?;
    with_log(py, got)
}

/// The flags of the untyped partial view: strings, arrays and objects as
/// far as they have arrived, numbers and literals once complete (what
/// `StreamParser.value` shows).
pub(crate) fn partial_flags() -> Allow {
    Allow::STR | Allow::ARR | Allow::OBJ
}

/// The untyped decode behind `serde_llm.parse(text)`: the value (or
/// `(value, report)`), raising `DecodeError`. With `partial`, the view of
/// a reply still being written: `None` while there is nothing to show.
#[pyfunction]
#[pyo3(signature = (text, strict = false, report = false, partial = false))]
fn parse(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    strict: bool,
    report: bool,
    partial: bool,
) -> PyResult<Py<PyAny>> {
    with_text(text, false, |text| {
        untyped(py, text, strict, report, partial)
    })
}

/// [`parse`] of `text`.
pub(crate) fn untyped(
    py: Python<'_>,
    text: &str,
    strict: bool,
    with_report: bool,
    partial: bool,
) -> PyResult<Py<PyAny>> {
    let mut d = decoder(strict);
    if partial && serde_llm::__private::in_open_reasoning_block(text) {
        // Inside a reasoning block still open nothing is the answer yet
        // (what `StreamParser.value` shows, as the Rust views do).
        let none = py.None();
        return match with_report {
            true => Ok(PyTuple::new(py, [none, py.None()])?.into_any().unbind()),
            false => Ok(none),
        };
    }
    if partial {
        d = d.allow_partial(partial_flags());
    } else if !with_report {
        if let Some(v) = fast::parse(py, text) {
            return Ok(v.unbind());
        }
    }
    let got = match with_report {
        true => d.decode_with_report::<Obj>(text).map(|(v, r)| (v, Some(r))),
        false => d.decode::<Obj>(text).map(|v| (v, None)),
    };
    let (Obj(v), r) = match got {
        Ok(got) => got,
        Err(e) if partial && matches!(e.kind(), ErrorKind::NoJson | ErrorKind::Truncated) => {
            let none = py.None();
            return match with_report {
                true => Ok(PyTuple::new(py, [none, py.None()])?.into_any().unbind()),
                false => Ok(none),
            };
        }
        Err(e) => return Err(report::error(py, &e, text)),
    };
    match r {
        Some(r) => {
            let r = report::report(py, &r, text)?.into_any();
            Ok(PyTuple::new(py, [v, r])?.into_any().unbind())
        }
        None => Ok(v),
    }
}

/// The native module, `serde_llm._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(repair_json, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(from_file, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_class::<report::Report>()?;
    m.add_class::<report::Repair>()?;
    m.add_class::<report::Coercion>()?;
    m.add_class::<stream::StreamParser>()?;
    m.add_class::<stream::Delta>()?;
    m.add_class::<stream::Deltas>()?;
    m.add_class::<schema::Schema>()?;
    Ok(())
}
