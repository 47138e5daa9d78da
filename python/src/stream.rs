//! `StreamParser`: the library's `StreamDecoder` for Python. Each chunk goes
//! to the decoder, and the deltas it returns are applied in place to a tree
//! of Python objects, so `value` costs nothing to read and a feed costs what
//! changed, never the whole value again.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyFloat, PyList, PyString, PyTuple};
use serde_json::Value;
use serde_llm::{Decoder, Path, SchemaStream, Segment, StreamDecoder};

use crate::schema::Schema;
use crate::{keys, report};

/// A JSON value as Python objects (member order kept).
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py).expect("infallible").into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py).expect("infallible").into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(keys::key(py, k), to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A path as a tuple of keys (`str`) and indexes (`int`).
fn path_tuple<'py>(py: Python<'py>, path: &Path) -> PyResult<Bound<'py, PyTuple>> {
    let items = path
        .segments()
        .iter()
        .map(|s| match s {
            Segment::Key(k) => Ok(PyString::new(py, k).into_any()),
            Segment::Index(i) => Ok(i.into_pyobject(py)?.into_any()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// One change to a `StreamParser`'s value: `kind` is `"started"` (a value
/// appeared at `path`, as far as it has arrived), `"appended"` (the string
/// at `path` grew by `text`), `"completed"` (the value at `path` is all
/// there: `value`) or `"reset"` (forget what was shown; the deltas after it
/// build the value again). `path` is a tuple of keys and indexes, `()` for
/// the whole value.
#[pyclass(frozen, module = "serde_llm._native")]
pub struct Delta {
    inner: serde_llm::Delta,
    /// A completed container: the object in the parser's value that the
    /// deltas before built (the library's delta then carries no copy).
    built: Option<Py<PyAny>>,
}

#[pymethods]
impl Delta {
    /// `"started"`, `"appended"`, `"completed"` or `"reset"`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner {
            serde_llm::Delta::Started { .. } => "started",
            serde_llm::Delta::Appended { .. } => "appended",
            serde_llm::Delta::Completed { .. } => "completed",
            _ => "reset",
        }
    }

    /// Where: a tuple of keys and indexes (`()` for a reset).
    #[getter]
    fn path<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        match self.inner.path() {
            Some(p) => path_tuple(py, p),
            None => Ok(PyTuple::empty(py)),
        }
    }

    /// The value started or completed (a new object each time it is read);
    /// `None` for the other kinds.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.inner {
            serde_llm::Delta::Completed { .. } if self.built.is_some() => {
                Ok(copy_tree(self.built.as_ref().expect("built").bind(py))?)
            }
            serde_llm::Delta::Started { value, .. } | serde_llm::Delta::Completed { value, .. } => {
                to_py(py, value)
            }
            _ => Ok(py.None().into_bound(py)),
        }
    }

    /// The characters appended; `None` for the other kinds.
    #[getter]
    fn text(&self) -> Option<&str> {
        match &self.inner {
            serde_llm::Delta::Appended { text, .. } => Some(text),
            _ => None,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let path = self.path(py)?.repr()?.to_string();
        Ok(match &self.inner {
            serde_llm::Delta::Appended { text, .. } => format!(
                "Delta(kind='appended', path={path}, text={})",
                PyString::new(py, text).repr()?
            ),
            serde_llm::Delta::Started { .. } | serde_llm::Delta::Completed { .. } => format!(
                "Delta(kind='{}', path={path}, value={})",
                self.kind(),
                self.value(py)?.repr()?
            ),
            _ => "Delta(kind='reset')".to_owned(),
        })
    }
}

/// Where the deltas come from.
enum Source {
    /// The library's `StreamDecoder` of `serde_json::Value`: its own
    /// deltas, in time linear in the reply.
    Untyped(Box<StreamDecoder<Value>>),
    /// The library's `SchemaStream`, on the same engine: the deltas of its
    /// view, in time linear in the reply too.
    Schema {
        stream: Box<SchemaStream>,
        schema: Py<Schema>,
    },
}

/// A copy of `obj`'s dicts and lists (the rest is immutable and shared).
fn copy_tree<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    if let Ok(d) = obj.cast::<PyDict>() {
        let out = PyDict::new(py);
        for (k, v) in d.iter() {
            out.set_item(k, copy_tree(&v)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(l) = obj.cast::<PyList>() {
        let items = l
            .iter()
            .map(|x| copy_tree(&x))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(PyList::new(py, items)?.into_any());
    }
    Ok(obj.clone())
}

/// What one feed changed: a sequence of `Delta`s, each made when it is
/// read (a feed that nobody asks about costs one object).
#[pyclass(frozen, sequence, module = "serde_llm._native")]
pub struct Deltas {
    items: Vec<serde_llm::Delta>,
    /// The completed containers among them, by index, with the objects
    /// that hold their values (see [`Delta::built`]).
    built: Vec<(usize, Py<PyAny>)>,
}

impl Deltas {
    fn delta(&self, py: Python<'_>, i: usize) -> Delta {
        let built = self
            .built
            .iter()
            .find(|(j, _)| *j == i)
            .map(|(_, b)| b.clone_ref(py));
        Delta {
            inner: self.items[i].clone(),
            built,
        }
    }
}

#[pymethods]
impl Deltas {
    fn __len__(&self) -> usize {
        self.items.len()
    }

    fn __getitem__(&self, py: Python<'_>, index: isize) -> PyResult<Delta> {
        let n = self.items.len() as isize;
        let i = if index < 0 { index + n } else { index };
        if !(0..n).contains(&i) {
            return Err(pyo3::exceptions::PyIndexError::new_err(
                "delta index out of range",
            ));
        }
        Ok(self.delta(py, i as usize))
    }

    fn __bool__(&self) -> bool {
        !self.items.is_empty()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let items = (0..self.items.len())
            .map(|i| Py::new(py, self.delta(py, i)))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)?.try_iter().map(Bound::into_any)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let parts = (0..self.items.len() as isize)
            .map(|i| {
                let d = Bound::new(py, self.__getitem__(py, i)?)?;
                Ok(d.repr()?.to_string())
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(format!("[{}]", parts.join(", ")))
    }
}

/// Decodes a reply as it arrives, chunk by chunk (see the package's
/// `StreamParser`).
#[pyclass(module = "serde_llm._native")]
pub struct StreamParser {
    source: Source,
    strict: bool,
    /// The value so far, as Python objects: what the deltas so far build,
    /// but `pending`.
    root: Option<Py<PyAny>>,
    /// Text appended to the string at this path and not yet put in `root`:
    /// a Python string cannot grow, so each append would copy it whole
    /// (quadratic in a long string fed chunk by chunk); the appends to one
    /// string are gathered here and put in once, when another delta comes
    /// or `value` is read (`pending_text`: the text, its buffer kept).
    pending: Option<Path>,
    pending_text: String,
    /// Deltas from a feed that ended in an error: the next feed that
    /// succeeds returns them first.
    owed: Vec<serde_llm::Delta>,
    /// The completed containers among `owed` (see [`Deltas::built`]).
    built: Vec<(usize, Py<PyAny>)>,
    /// The containers on the path of the last delta applied, outermost
    /// first, each with its step from the one before (the root is `root`):
    /// the next delta is about a place near it, so only the steps that
    /// differ are looked up.
    spine: Vec<(Segment, Py<PyAny>)>,
    /// The keys met, as Python strings, by the library's shared key (its
    /// paths share one `Arc` per key): found by pointer, not hashed.
    keys: Vec<(Arc<str>, Py<PyString>)>,
}

impl StreamParser {
    /// A stream parser decoding against `schema`.
    pub fn with_schema(schema: Py<Schema>) -> PyResult<StreamParser> {
        let stream = Box::new(schema.get().dec.stream());
        Ok(StreamParser {
            source: Source::Schema { stream, schema },
            strict: false,
            root: None,
            pending: None,
            pending_text: String::new(),
            owed: Vec::new(),
            built: Vec::new(),
            spine: Vec::new(),
            keys: Vec::new(),
        })
    }

    fn push(
        &mut self,
        py: Python<'_>,
        chunk: &Bound<'_, PyAny>,
    ) -> PyResult<serde_llm::Result<()>> {
        let owned;
        let bytes: &[u8] = if let Ok(s) = chunk.cast::<PyString>() {
            s.to_str()?.as_bytes()
        } else if let Ok(b) = chunk.cast::<PyBytes>() {
            b.as_bytes()
        } else if let Ok(b) = chunk.cast::<PyByteArray>() {
            owned = b.to_vec();
            &owned
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "a chunk is str, bytes or bytearray, not {}",
                chunk.get_type().name()?
            )));
        };
        let got = match &mut self.source {
            Source::Untyped(dec) => dec.push_deltas(bytes),
            Source::Schema { stream, .. } => stream.push_deltas(bytes),
        };
        Ok(match got {
            Ok(deltas) => {
                for (i, d) in deltas.iter().enumerate() {
                    if let Some(b) = self.apply(py, d)? {
                        self.built.push((self.owed.len() + i, b));
                    }
                }
                if self.owed.is_empty() {
                    self.owed = deltas;
                } else {
                    self.owed.extend(deltas);
                }
                Ok(())
            }
            Err(e) => Err(e),
        })
    }

    /// Applies one delta to the Python value, as `Delta::apply` does to a
    /// `serde_json::Value`. A container that completes is already what its
    /// members' deltas built, so it is left as it is, and returned (the
    /// untyped stream's delta carries no copy of it).
    fn apply(&mut self, py: Python<'_>, d: &serde_llm::Delta) -> PyResult<Option<Py<PyAny>>> {
        if let serde_llm::Delta::Appended { path, text } = d {
            if self.pending.as_ref() != Some(path) {
                self.flush(py)?;
                self.pending = Some(path.clone());
            }
            self.pending_text.push_str(text);
            return Ok(None);
        }
        self.flush(py)?;
        let (path, value, done) = match d {
            serde_llm::Delta::Started { path, value } => (path, value, false),
            serde_llm::Delta::Completed { path, value } => (path, value, true),
            _ => {
                self.root = None;
                self.spine.clear();
                return Ok(None);
            }
        };
        let Some((last, outer)) = path.segments().split_last() else {
            if let Some(r) = self
                .root
                .as_ref()
                .filter(|r| done && in_place(r.bind(py), value))
            {
                return Ok(container(r.bind(py)));
            }
            self.root = Some(to_py(py, value)?.unbind());
            self.spine.clear();
            return Ok(None);
        };
        let Some(parent) = self.parent(py, outer)? else {
            return Ok(None);
        };
        match last {
            Segment::Key(k) => {
                let Ok(dict) = parent.cast::<PyDict>() else {
                    return Ok(None);
                };
                let key = self.key(py, k);
                // Only a container or string completing can be in place.
                let grows = matches!(value, Value::Array(_) | Value::Object(_) | Value::String(_));
                if done && grows {
                    if let Some(old) = dict.get_item(&key)? {
                        if in_place(&old, value) {
                            return Ok(container(&old));
                        }
                    }
                }
                self.replaced(path.segments());
                dict.set_item(key, to_py(py, value)?)?;
            }
            Segment::Index(i) => {
                let Ok(list) = parent.cast::<PyList>() else {
                    return Ok(None);
                };
                if *i == list.len() {
                    list.append(to_py(py, value)?)?;
                } else if *i < list.len() {
                    let old = list.get_item(*i)?;
                    if done && in_place(&old, value) {
                        return Ok(container(&old));
                    }
                    self.replaced(path.segments());
                    list.set_item(*i, to_py(py, value)?)?;
                }
            }
        }
        Ok(None)
    }

    /// `k` as a Python string: the one made for the same shared key before
    /// (the first 64 keys are kept), else from the key cache.
    fn key<'py>(&mut self, py: Python<'py>, k: &Arc<str>) -> Bound<'py, PyString> {
        if let Some((_, s)) = self.keys.iter().find(|(a, _)| Arc::ptr_eq(a, k)) {
            return s.bind(py).clone();
        }
        let s = keys::key(py, k);
        if self.keys.len() < 64 {
            self.keys.push((k.clone(), s.clone().unbind()));
        }
        s
    }

    /// The container at `outer`: the steps it shares with the spine are
    /// not looked up again; the spine becomes its path.
    fn parent<'py>(
        &mut self,
        py: Python<'py>,
        outer: &[Segment],
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(root) = &self.root else {
            return Ok(None);
        };
        let same = self
            .spine
            .iter()
            .zip(outer)
            .take_while(|((a, _), b)| a == *b)
            .count();
        self.spine.truncate(same);
        let mut at = match self.spine.last() {
            Some((_, c)) => c.bind(py).clone(),
            None => root.bind(py).clone(),
        };
        for seg in &outer[same..] {
            let next = match seg {
                Segment::Key(k) => match at.cast::<PyDict>() {
                    Ok(d) => d.get_item(self.key(py, k))?,
                    Err(_) => None,
                },
                Segment::Index(i) => match at.cast::<PyList>() {
                    Ok(l) if *i < l.len() => Some(l.get_item(*i)?),
                    _ => None,
                },
            };
            match next {
                Some(n) => {
                    self.spine.push((seg.clone(), n.clone().unbind()));
                    at = n;
                }
                None => return Ok(None),
            }
        }
        Ok(Some(at))
    }

    /// The value at `path` is being replaced: the spine forgets it and what
    /// is inside it.
    fn replaced(&mut self, path: &[Segment]) {
        let n = path.len();
        if self.spine.len() >= n && self.spine.iter().zip(path).all(|((a, _), b)| a == b) {
            self.spine.truncate(n - 1);
        }
    }

    /// Puts the text gathered in `pending` into its string.
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(path) = self.pending.take() else {
            return Ok(());
        };
        let mut text = std::mem::take(&mut self.pending_text);
        let put = self.append(py, &path, &text);
        text.clear();
        self.pending_text = text;
        put
    }

    fn append(&mut self, py: Python<'_>, path: &Path, text: &str) -> PyResult<()> {
        let Some((last, outer)) = path.segments().split_last() else {
            if let Some(root) = self.root.take() {
                self.root = Some(match root.into_bound(py).cast_into::<PyString>() {
                    Ok(s) => grow(s, text)?.unbind(),
                    Err(e) => e.into_inner().unbind(),
                });
            }
            return Ok(());
        };
        let Some(parent) = self.parent(py, outer)? else {
            return Ok(());
        };
        match last {
            Segment::Key(k) => {
                let Ok(dict) = parent.cast::<PyDict>() else {
                    return Ok(());
                };
                let key = self.key(py, k);
                if let Some(old) = dict.get_item(&key)? {
                    if let Ok(s) = old.cast_into::<PyString>() {
                        // (The slot lets go of a long string: see `grow`.)
                        if s.len()? >= IN_PLACE {
                            dict.set_item(&key, py.None())?;
                        }
                        dict.set_item(key, grow(s, text)?)?;
                    }
                }
            }
            Segment::Index(i) => {
                let Ok(list) = parent.cast::<PyList>() else {
                    return Ok(());
                };
                if *i < list.len() {
                    let old = list.get_item(*i)?;
                    if let Ok(s) = old.cast_into::<PyString>() {
                        if s.len()? >= IN_PLACE {
                            list.set_item(*i, py.None())?;
                        }
                        list.set_item(*i, grow(s, text)?)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The deltas owed, as `Delta` objects.
    fn take_deltas(&mut self, py: Python<'_>) -> PyResult<Py<Deltas>> {
        Py::new(
            py,
            Deltas {
                items: std::mem::take(&mut self.owed),
                built: std::mem::take(&mut self.built),
            },
        )
    }
}

/// `obj` when it is a dict or a list (a completed container in place).
fn container(obj: &Bound<'_, PyAny>) -> Option<Py<PyAny>> {
    (obj.cast::<PyDict>().is_ok() || obj.cast::<PyList>().is_ok()).then(|| obj.clone().unbind())
}

/// Strings shorter than this grow by a copy, their slot kept (the copy
/// costs less than letting go of the slot and taking it again).
const IN_PLACE: usize = 256;

/// `old` followed by `text`. CPython grows a string in place when nothing
/// else holds it, so the caller first lets go of the slot's reference: a
/// string that grows a chunk at a time, the value read after each, then
/// costs what was added, not its whole length again (it was a copy of the
/// whole string per chunk: 51x the time for 8x a 100 KB string). Where
/// something else holds it (a value the caller kept), `PyUnicode_Append`
/// makes a new string, as `+` does, and what was kept does not change.
fn grow<'py>(old: Bound<'py, PyString>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = old.py();
    let add = PyString::new(py, text);
    let mut p = old.into_ptr();
    // SAFETY: the GIL is held (`py`). `p` is a strong reference this
    // function owns (`into_ptr`), which `PyUnicode_Append` consumes, leaving
    // in `p` a strong reference to the result, or null with an exception
    // set; `add` is a live str for the whole call.
    unsafe { pyo3::ffi::PyUnicode_Append(&mut p, add.as_ptr()) };
    if p.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `p` is a non-null strong reference, now owned by the result.
    Ok(unsafe { Bound::from_owned_ptr(py, p) })
}

/// Whether a completed value is already in place as `old`: a container of
/// its kind (its members' deltas built it), or the string that grew to it.
fn in_place(old: &Bound<'_, PyAny>, new: &Value) -> bool {
    match new {
        Value::Object(_) => old.cast::<PyDict>().is_ok(),
        Value::Array(_) => old.cast::<PyList>().is_ok(),
        Value::String(s) => old
            .cast::<PyString>()
            .is_ok_and(|o| o.to_str().is_ok_and(|o| o == s)),
        _ => false,
    }
}

/// A path from Python: a tuple or list of keys (`str`) and indexes (`int`),
/// or a string such as `"$.items[0].name"`.
fn path_of(arg: &Bound<'_, PyAny>) -> PyResult<Path> {
    if let Ok(s) = arg.cast::<PyString>() {
        return parse_path(s.to_str()?).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!("not a JSON path: {s}"))
        });
    }
    let mut path = Path::root();
    for seg in arg.try_iter()? {
        let seg = seg?;
        path = match seg.extract::<usize>() {
            Ok(i) if seg.cast::<PyString>().is_err() => path.index(i),
            _ => path.key(seg.extract::<String>()?),
        };
    }
    Ok(path)
}

/// `$`, then `.key`, `[3]` or `["any key"]` steps.
fn parse_path(s: &str) -> Option<Path> {
    let mut rest = s.strip_prefix('$')?;
    let mut path = Path::root();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            path = path.key(&r[..end]);
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("[\"") {
            // A quoted key: JSON string syntax up to its closing quote.
            let mut de = serde_json::Deserializer::from_str(&rest[1..]).into_iter::<String>();
            let key = de.next()?.ok()?;
            let used = de.byte_offset();
            let r = r.get(used - 1..)?.strip_prefix(']')?;
            path = path.key(key);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            path = path.index(r[..end].parse().ok()?);
            rest = &r[end + 1..];
        } else {
            return None;
        }
    }
    Some(path)
}

#[pymethods]
impl StreamParser {
    /// A parser for one reply. `strict`: no repair or coercion (as
    /// `parse(..., strict=True)`).
    #[new]
    #[pyo3(signature = (schema = None, *, strict = false))]
    fn new(schema: Option<&Bound<'_, PyAny>>, strict: bool) -> PyResult<StreamParser> {
        if let Some(schema) = schema.filter(|s| !s.is_none()) {
            let compiled = match schema.cast::<Schema>() {
                Ok(s) => s.clone().unbind(),
                Err(_) => schema
                    .py()
                    .import("serde_llm._schema")?
                    .call_method1("compile", (schema, strict))?
                    .cast_into::<Schema>()?
                    .unbind(),
            };
            return StreamParser::with_schema(compiled);
        }
        let decoder = match strict {
            true => Decoder::strict(),
            false => Decoder::new(),
        };
        Ok(StreamParser {
            source: Source::Untyped(Box::new(decoder.stream::<Value>().__untyped_only())),
            strict,
            root: None,
            pending: None,
            pending_text: String::new(),
            owed: Vec::new(),
            built: Vec::new(),
            spine: Vec::new(),
            keys: Vec::new(),
        })
    }

    /// Adds the next chunk (`str` or `bytes`, split anywhere, even inside a
    /// character), or every chunk of an iterable of them in one call, and
    /// returns what changed, as a list of `Delta`s. Raises `DecodeError`
    /// when the text so far cannot be a value (its deltas then come with the
    /// next feed that succeeds).
    fn feed<'py>(&mut self, py: Python<'py>, chunk: &Bound<'py, PyAny>) -> PyResult<Py<Deltas>> {
        let result = if chunk.cast::<PyString>().is_ok()
            || chunk.cast::<PyBytes>().is_ok()
            || chunk.cast::<PyByteArray>().is_ok()
        {
            self.push(py, chunk)?
        } else {
            let mut last = Ok(());
            for c in chunk.try_iter()? {
                last = self.push(py, &c?)?;
            }
            last
        };
        match result {
            Ok(()) => self.take_deltas(py),
            Err(e) => Err(report::error(py, &e, self.text())),
        }
    }

    /// The value so far (`None` until one starts): objects, arrays and
    /// strings as far as they have arrived, numbers and literals once
    /// complete. It is updated in place by each feed; copy it to keep a
    /// snapshot.
    #[getter]
    fn value(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.flush(py)?;
        Ok(match &self.root {
            Some(v) => v.clone_ref(py),
            None => py.None(),
        })
    }

    /// The text received so far.
    #[getter]
    fn text(&self) -> &str {
        match &self.source {
            Source::Untyped(dec) => dec.text(),
            Source::Schema { stream, .. } => stream.text(),
        }
    }

    /// Whether the value at `path` (a tuple of keys and indexes, or a string
    /// such as `"$.items[0]"`; `()` or `"$"` for the whole value) is
    /// complete: it will not change any more. `False` for a path not in the
    /// value yet.
    #[pyo3(signature = (path = None))]
    fn is_complete(&self, path: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let path = match path {
            Some(p) => path_of(p)?,
            None => Path::root(),
        };
        Ok(match &self.source {
            Source::Untyped(dec) => dec.is_complete(&path),
            Source::Schema { stream, .. } => stream.is_complete(&path),
        })
    }

    /// The whole reply's value: what `serde_llm.parse` gives for all the
    /// text fed (raising `DecodeError` as it does), validated when there is
    /// a schema.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.source {
            Source::Untyped(dec) => crate::untyped(py, dec.text(), self.strict, false, false),
            Source::Schema { stream, schema, .. } => {
                schema.get().decode(py, stream.text(), false, false)
            }
        }
    }
}
