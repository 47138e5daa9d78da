//! What the library tells beside a value, for Python: errors as
//! `serde_llm.DecodeError` (a `ValueError`) with attributes, and the
//! `Report` of what was repaired, with offsets counted in characters (the
//! indexes of the `str` the caller passed).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use serde_llm::ErrorKind;

/// Byte offsets in `text` as character offsets, read in one pass when they
/// come in order (as the library lists repairs).
pub struct Chars<'t> {
    text: &'t str,
    ascii: bool,
    byte: usize,
    chars: usize,
}

impl<'t> Chars<'t> {
    pub fn new(text: &'t str) -> Chars<'t> {
        Chars {
            text,
            ascii: text.is_ascii(),
            byte: 0,
            chars: 0,
        }
    }

    /// The character offset of byte `at` (the end of the text past it).
    pub fn of(&mut self, at: usize) -> usize {
        let at = at.min(self.text.len());
        if self.ascii {
            return at;
        }
        if at < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        let mut end = at;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        self.chars += self.text[self.byte..end].chars().count();
        self.byte = end;
        self.chars
    }
}

/// The snake_case name of an error kind, as `DecodeError.kind` gives it.
pub fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::NoJson => "no_json",
        ErrorKind::Syntax => "syntax",
        ErrorKind::Truncated => "truncated",
        ErrorKind::Depth => "depth",
        ErrorKind::InvalidUtf8 => "invalid_utf8",
        ErrorKind::Number => "number",
        ErrorKind::Data => "data",
        ErrorKind::Denied => "denied",
        ErrorKind::Rejected => "rejected",
        ErrorKind::Contract => "contract",
        ErrorKind::Borrowed => "borrowed",
        _ => "other",
    }
}

/// `serde_llm.errors`' three classes, imported once.
static CLASSES: PyOnceLock<[Py<PyType>; 3]> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&[Py<PyType>; 3]> {
    CLASSES.get_or_try_init(py, || {
        let m = py.import("serde_llm.errors")?;
        let get = |name: &str| -> PyResult<Py<PyType>> {
            Ok(m.getattr(name)?.cast_into::<PyType>()?.unbind())
        };
        Ok([
            get("DecodeError")?,
            get("NoJsonError")?,
            get("TruncatedError")?,
        ])
    })
}

/// The library's error about `text` as the Python exception to raise:
/// `NoJsonError` or `TruncatedError` for those kinds, `DecodeError` for the
/// rest, each with `kind`, `line`, `column`, `offset` (in characters),
/// `path`, `feedback` and `snippet`.
pub fn error(py: Python<'_>, e: &serde_llm::Error, text: &str) -> PyErr {
    match build_error(py, e, text) {
        Ok(err) => err,
        Err(err) => err,
    }
}

fn build_error(py: Python<'_>, e: &serde_llm::Error, text: &str) -> PyResult<PyErr> {
    let [decode, no_json, truncated] = classes(py)?;
    let class = match e.kind() {
        ErrorKind::NoJson => no_json,
        ErrorKind::Truncated => truncated,
        _ => decode,
    };
    let kwargs = PyDict::new(py);
    kwargs.set_item("kind", kind_name(e.kind()))?;
    kwargs.set_item("line", e.line())?;
    kwargs.set_item("column", e.column())?;
    kwargs.set_item("offset", e.offset().map(|at| Chars::new(text).of(at)))?;
    kwargs.set_item("path", e.path())?;
    kwargs.set_item("feedback", e.feedback())?;
    kwargs.set_item("snippet", e.snippet())?;
    let exc = class.bind(py).call((e.to_string(),), Some(&kwargs))?;
    Ok(PyErr::from_value(exc))
}

/// One repair the decoder made (`Report.repairs`).
#[pyclass(frozen, get_all, module = "serde_llm._native")]
pub struct Repair {
    /// The kind, in snake_case: `"trailing_comma"`.
    kind: &'static str,
    /// Where, as a character offset in the text passed in.
    offset: usize,
    /// The problem in words: `"a trailing comma"`.
    problem: &'static str,
}

#[pymethods]
impl Repair {
    fn __repr__(&self) -> String {
        format!("Repair(kind='{}', offset={})", self.kind, self.offset)
    }
}

/// One coercion toward the target type (`Report.coercions`).
#[pyclass(frozen, get_all, module = "serde_llm._native")]
pub struct Coercion {
    /// The kind, in snake_case: `"string_to_number"`.
    kind: &'static str,
    /// The JSON path of the value: `$.items[0].price`.
    path: String,
    /// Where, as a character offset in the text passed in.
    offset: usize,
    /// What the reply wrote.
    written: String,
    /// What was used.
    used: String,
}

#[pymethods]
impl Coercion {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let repr = |s: &str| -> PyResult<String> { Ok(PyString::new(py, s).repr()?.to_string()) };
        Ok(format!(
            "Coercion(kind='{}', path={}, offset={}, written={}, used={})",
            self.kind,
            repr(&self.path)?,
            self.offset,
            repr(&self.written)?,
            repr(&self.used)?
        ))
    }
}

/// What decoding a reply took: how the value was found, every repair and
/// coercion, and whether it was cut off.
#[pyclass(frozen, get_all, module = "serde_llm._native")]
pub struct Report {
    /// How the value was found: `"whole"`, `"fence"`, `"tag"`,
    /// `"balanced"`, `"trailing"`, `"gathered"` or `"prose"`.
    strategy: String,
    /// The span of the text that was decoded, in characters: `(start, end)`.
    span: (usize, usize),
    /// Every repair, in the order they were made.
    repairs: Py<PyTuple>,
    /// Every coercion, in the order the values were decoded.
    coercions: Py<PyTuple>,
    /// Whether the value was cut off and completed.
    truncated: bool,
}

#[pymethods]
impl Report {
    /// True when the value was taken as written: no repair, no coercion,
    /// not cut off.
    #[getter]
    fn is_clean(&self, py: Python<'_>) -> bool {
        self.repairs.bind(py).is_empty() && self.coercions.bind(py).is_empty() && !self.truncated
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Report(strategy='{}', span={:?}, repairs={}, coercions={}, truncated={})",
            self.strategy,
            self.span,
            self.repairs.bind(py).repr()?,
            self.coercions.bind(py).repr()?,
            if self.truncated { "True" } else { "False" }
        ))
    }
}

/// The library's report about `text` for Python.
pub fn report(py: Python<'_>, r: &serde_llm::Report, text: &str) -> PyResult<Py<Report>> {
    let mut chars = Chars::new(text);
    let span = (chars.of(r.span.start), chars.of(r.span.end));
    let repairs = r
        .repairs
        .iter()
        .map(|x| {
            Py::new(
                py,
                Repair {
                    kind: x.kind.name(),
                    offset: chars.of(x.offset),
                    problem: x.kind.problem(),
                },
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    let coercions = r
        .coercions
        .iter()
        .map(|c| {
            Py::new(
                py,
                Coercion {
                    kind: c.kind.name(),
                    path: c.path.clone(),
                    offset: chars.of(c.offset),
                    written: c.written.clone(),
                    used: c.used.clone(),
                },
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    let strategy = serde_json::to_value(r.strategy)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    Py::new(
        py,
        Report {
            strategy,
            span,
            repairs: PyTuple::new(py, repairs)?.unbind(),
            coercions: PyTuple::new(py, coercions)?.unbind(),
            truncated: r.truncated,
        },
    )
}

/// The report as json_repair's `logging=True` gives its log: one
/// `{"text": ..., "context": ...}` per repair, the context being up to ten
/// characters either side of where it was made.
pub fn log<'py>(
    py: Python<'py>,
    r: &serde_llm::Report,
    text: &str,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for x in &r.repairs {
        let entry = PyDict::new(py);
        entry.set_item("text", x.kind.problem())?;
        entry.set_item("context", window(text, x.offset, 10))?;
        list.append(entry)?;
    }
    Ok(list)
}

/// Up to `n` characters of `text` on either side of byte `at`.
fn window(text: &str, at: usize, n: usize) -> &str {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let start = text[..at]
        .char_indices()
        .rev()
        .take(n)
        .last()
        .map_or(at, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .nth(n)
        .map_or(text.len(), |(i, _)| at + i);
    &text[start..end]
}
