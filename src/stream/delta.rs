//! What changed in a streaming reply's value: [`Delta`]s, each at a [`Path`].

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::error::is_plain_key;

/// One step of a JSON path: a member's key or an element's index.
///
/// A key is an `Arc<str>`: a streaming decoder reports the same keys over
/// and over, so each delta's path shares them rather than copying.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// An object member.
    Key(Arc<str>),
    /// An array element.
    Index(usize),
}

/// A JSON path, outermost step first. `Display` writes it as
/// `$.items[3].name` (a key that is not a plain word as `["a key"]`).
///
/// A path is shared, not copied, when cloned (every delta about one string
/// holds the same one).
///
/// ```
/// use serde_llm::{Path, Segment};
///
/// let p = Path::root().key("items").index(3).key("first name");
/// assert_eq!(p.to_string(), r#"$.items[3]["first name"]"#);
/// assert_eq!(p.segments()[1], Segment::Index(3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path(Arc<[Segment]>);

impl Default for Path {
    fn default() -> Path {
        Path::root()
    }
}

impl Path {
    /// `$`, the whole value.
    pub fn root() -> Path {
        Path(Arc::new([]))
    }

    /// This path, then the member `key`.
    pub fn key(self, key: impl AsRef<str>) -> Path {
        self.then(Segment::Key(key.as_ref().into()))
    }

    /// This path, then the element at `index`.
    pub fn index(self, index: usize) -> Path {
        self.then(Segment::Index(index))
    }

    /// The steps, outermost first.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// Whether this path is `other` or inside it.
    pub fn starts_with(&self, other: &Path) -> bool {
        self.0.starts_with(&other.0)
    }

    /// The path of `outer` then `last`.
    pub(crate) fn of(outer: &[Segment], last: Option<Segment>) -> Path {
        Path(outer.iter().cloned().chain(last).collect())
    }

    fn then(self, seg: Segment) -> Path {
        Path::of(&self.0, Some(seg))
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for seg in self.0.iter() {
            match seg {
                Segment::Index(i) => write!(f, "[{i}]")?,
                Segment::Key(k) if is_plain_key(k) => write!(f, ".{k}")?,
                Segment::Key(k) => write!(f, "[{}]", Value::String(k.to_string()))?,
            }
        }
        Ok(())
    }
}

impl serde::Serialize for Path {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A change to the untyped view of a streaming reply (see
/// [`StreamDecoder::push_deltas`](crate::StreamDecoder::push_deltas)).
///
/// The untyped view is the reply's value as `serde_json::Value` so far, with
/// objects, arrays and strings shown as far as they have arrived and numbers
/// and literals once complete. Nothing shown is ever taken back, and
/// nothing said complete changes, but after a [`Reset`](Delta::Reset),
/// which the view as it is then follows: a key written twice resets the
/// view when its second value starts, a string whose shown end was not its
/// end (a closer or a fence it seemed to hold) when later text says so, a
/// root said complete when later text extends it (a repaired reply,
/// several values gathered). Applying every delta in order to
/// `Value::Null` gives that view; [`apply`](Delta::apply) does it.
///
/// ```
/// use serde_llm::{Delta, Path, StreamDecoder};
/// use serde_json::{json, Value};
///
/// let mut dec = StreamDecoder::<Value>::new();
/// let mut deltas = dec.push_deltas(r#"{"name": "Ad"#)?;
/// deltas.extend(dec.push_deltas(r#"a", "n": 2}"#)?);
/// assert_eq!(deltas, [
///     Delta::Started { path: Path::root(), value: json!({}) },
///     Delta::Started { path: Path::root().key("name"), value: json!("") },
///     Delta::Appended { path: Path::root().key("name"), text: "Ad".into() },
///     Delta::Appended { path: Path::root().key("name"), text: "a".into() },
///     Delta::Completed { path: Path::root().key("name"), value: json!("Ada") },
///     Delta::Completed { path: Path::root().key("n"), value: json!(2) },
///     Delta::Completed { path: Path::root(), value: json!({"name": "Ada", "n": 2}) },
/// ]);
/// let mut view = Value::Null;
/// deltas.iter().for_each(|d| d.apply(&mut view));
/// assert_eq!(view, json!({"name": "Ada", "n": 2}));
/// # Ok::<(), serde_llm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    /// A value appeared at `path` — the root, a member, or an element (the
    /// path ends with its index) — shown as far as it has arrived: an empty
    /// or partial object, array or string.
    Started {
        /// Where.
        path: Path,
        /// The value so far.
        value: Value,
    },
    /// The string at `path` grew by `text`.
    Appended {
        /// Where.
        path: Path,
        /// The characters that arrived.
        text: String,
    },
    /// The value at `path` is complete: `value` is all of it (a number or
    /// literal first shows up here). At `$`, the reply's value is complete.
    /// A string's comes once what follows its closing quote says the quote
    /// closes it: the next value or closer, or the next member's key and
    /// colon (in `"say "hi"`, the quote after `say ` turns out to be inside).
    /// The string's whole text has been given (`Started`, `Appended`)
    /// before.
    Completed {
        /// Where.
        path: Path,
        /// The complete value.
        value: Value,
    },
    /// What was shown is not the reply's value after all (a placeholder such
    /// as `{name}` that turned out not to fit, or a later value that wins):
    /// forget it. The deltas after it build the view again.
    Reset,
}

impl Delta {
    /// Applies this change to `view`: `Started` and `Completed` put their
    /// value at the path (a new member goes into its object, a new element
    /// at the end of its array), `Appended` extends the string there, `Reset`
    /// sets `Value::Null`. A path that does not fit `view` changes nothing.
    pub fn apply(&self, view: &mut Value) {
        match self {
            Delta::Reset => *view = Value::Null,
            Delta::Started { path, value } | Delta::Completed { path, value } => {
                if let Some(slot) = slot(view, path.segments()) {
                    *slot = value.clone();
                }
            }
            Delta::Appended { path, text } => {
                if let Some(Value::String(s)) = slot(view, path.segments()) {
                    s.push_str(text);
                }
            }
        }
    }

    /// The path this delta is about (`None` for `Reset`).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Delta::Started { path, .. }
            | Delta::Appended { path, .. }
            | Delta::Completed { path, .. } => Some(path),
            Delta::Reset => None,
        }
    }
}

/// Keeps [`Delta`]'s promise over a stream's deltas: nothing shown is taken
/// back, but by a `Reset`. It knows what the deltas showed and said
/// complete; a batch whose delta would change a value said complete (a
/// root that later text extends, a member the whole text reads otherwise)
/// or start again a value already shown (a string whose shown end was not
/// its end) is cut there, and ends with a `Reset` and the view as it is.
#[derive(Debug, Default)]
pub(crate) struct Promise {
    /// The paths said complete since the last `Reset`.
    done: HashSet<Arc<[Segment]>, Quick>,
    /// The paths shown and not said complete since the last `Reset`
    /// (started, or inside a value started whole): while the reply is read
    /// as written, the values still open.
    open: HashSet<Arc<[Segment]>, Quick>,
    /// The path of the last delta checked, while nothing was said complete
    /// since: a string's deltas share one path, and it is still open.
    last: Option<Arc<[Segment]>>,
    /// A path none of whose outer paths was said complete: the next
    /// delta's path (most often a sibling or a child) is checked from
    /// where it parts from this one.
    clear: Option<Arc<[Segment]>>,
}

/// The hasher of [`Promise`]'s sets: paths of a reply, not chosen to
/// collide (a multiply-and-rotate hash, as rustc's own `FxHasher`; the
/// default SipHash took 40% of a stream with deltas).
#[derive(Clone, Copy, Debug, Default)]
struct Quick;

impl std::hash::BuildHasher for Quick {
    type Hasher = QuickHasher;

    fn build_hasher(&self) -> QuickHasher {
        QuickHasher(0)
    }
}

struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Promise {
    /// Checks `deltas`, the next batch: from the first that takes back
    /// what was shown they are replaced by a `Reset` and `view` (the
    /// untyped view after them), said complete if `complete` says so (asked
    /// only then).
    pub(crate) fn keep(
        &mut self,
        deltas: &mut Vec<Delta>,
        view: &Value,
        complete: impl FnOnce() -> bool,
    ) {
        let broken = deltas.iter().position(|d| match d {
            Delta::Reset => {
                self.forget();
                false
            }
            Delta::Started { path, value } => {
                let again = self.sealed(&path.0) || self.open.contains(&path.0);
                self.show(&path.0, value);
                self.last = Some(path.0.clone());
                again
            }
            // The string the last delta was about, still open.
            Delta::Appended { path, .. }
                if self.last.as_ref().is_some_and(|p| Arc::ptr_eq(p, &path.0)) =>
            {
                false
            }
            Delta::Appended { path, .. } => {
                let sealed = self.sealed(&path.0);
                self.last = Some(path.0.clone());
                sealed
            }
            Delta::Completed { path, .. } => {
                let sealed = self.sealed(&path.0);
                self.complete(&path.0);
                sealed
            }
        });
        let Some(at) = broken else {
            return;
        };
        deltas.truncate(at);
        deltas.push(Delta::Reset);
        self.forget();
        if view.is_null() {
            return;
        }
        let root = Path::root();
        self.show(&root.0, view);
        deltas.push(Delta::Started {
            path: root.clone(),
            value: view.clone(),
        });
        if complete() {
            self.complete(&root.0);
            deltas.push(Delta::Completed {
                path: root,
                value: view.clone(),
            });
        }
    }

    /// After a `Reset`: nothing is shown.
    fn forget(&mut self) {
        self.done.clear();
        self.open.clear();
        self.last = None;
        self.clear = None;
    }

    /// `path` said complete.
    fn complete(&mut self, path: &Arc<[Segment]>) {
        self.open.remove(path);
        self.done.insert(path.clone());
        self.last = None;
        if self
            .clear
            .as_ref()
            .is_some_and(|c| c.len() > path.len() && c.starts_with(path))
        {
            self.clear = None;
        }
    }

    /// Whether `path` is a value said complete or inside one.
    fn sealed(&mut self, path: &Arc<[Segment]>) -> bool {
        if self.done.is_empty() {
            return false;
        }
        // The outer paths it shares with `clear`'s were not said complete.
        let from = match &self.clear {
            Some(c) if !c.is_empty() => {
                let shared = c
                    .iter()
                    .zip(path.iter())
                    .take_while(|(a, b)| a == b)
                    .count();
                shared.min(c.len() - 1) + 1
            }
            _ => 0,
        };
        let from = from.min(path.len());
        if (from..=path.len()).any(|d| self.done.contains(&path[..d])) {
            return true;
        }
        self.clear = Some(path.clone());
        false
    }

    /// `value`, shown at `path`: it and every part of it.
    fn show(&mut self, path: &Arc<[Segment]>, value: &Value) {
        self.open.insert(path.clone());
        let parts: Vec<(Segment, &Value)> = match value {
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, v)| (Segment::Index(i), v))
                .collect(),
            Value::Object(m) => m
                .iter()
                .map(|(k, v)| (Segment::Key(k.as_str().into()), v))
                .collect(),
            _ => return,
        };
        for (seg, v) in parts {
            let inner: Arc<[Segment]> = path.iter().cloned().chain([seg]).collect();
            self.show(&inner, v);
        }
    }
}

/// The place `path` names in `view`, made if it is the next member or element
/// of its container.
fn slot<'v>(view: &'v mut Value, path: &[Segment]) -> Option<&'v mut Value> {
    let Some((last, outer)) = path.split_last() else {
        return Some(view);
    };
    match (last, slot_in(view, outer)?) {
        (Segment::Key(k), Value::Object(m)) => Some(m.entry(&**k).or_insert(Value::Null)),
        (Segment::Index(i), Value::Array(a)) => {
            if *i == a.len() {
                a.push(Value::Null);
            }
            a.get_mut(*i)
        }
        _ => None,
    }
}

/// The value at the path `segs` in `value`, if it holds one.
pub(crate) fn slot_in<'v>(value: &'v mut Value, segs: &[Segment]) -> Option<&'v mut Value> {
    let mut at = value;
    for seg in segs {
        at = match (seg, at) {
            (Segment::Key(k), Value::Object(m)) => m.get_mut(&**k)?,
            (Segment::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(at)
}

/// The deltas that turn `old` into `new`, both views of the same stream at
/// `path`; `done`: `new` is complete. Only what is new or grew is reported;
/// a change that is not growth restarts the view at the root.
pub(crate) fn diff(old: &Value, new: &Value, done: bool, out: &mut Vec<Delta>) {
    let mut path = Vec::new();
    let mut grown = Vec::new();
    if !old.is_null() && grows(old, new, &mut path, &mut grown) {
        out.append(&mut grown);
    } else if old != new {
        if !old.is_null() {
            out.push(Delta::Reset);
        }
        if !new.is_null() {
            out.push(Delta::Started {
                path: Path::root(),
                value: new.clone(),
            });
        }
    }
    if done && !new.is_null() {
        out.push(Delta::Completed {
            path: Path::root(),
            value: new.clone(),
        });
    }
}

/// Whether `new` is `old` grown, both the values at `at` in views of the
/// same stream; the deltas of the growth go to `out` (nothing if not).
pub(crate) fn grown_at(old: &Value, new: &Value, at: &[Segment], out: &mut Vec<Delta>) -> bool {
    let mut grown = Vec::new();
    let ok = grows(old, new, &mut at.to_vec(), &mut grown);
    if ok {
        out.append(&mut grown);
    }
    ok
}

/// Whether `new` is `old` grown; the deltas of the growth go to `out`.
fn grows(old: &Value, new: &Value, path: &mut Vec<Segment>, out: &mut Vec<Delta>) -> bool {
    match (old, new) {
        _ if old == new => true,
        (Value::String(a), Value::String(b)) if b.starts_with(a.as_str()) => {
            out.push(Delta::Appended {
                path: Path::of(path, None),
                text: b[a.len()..].to_owned(),
            });
            true
        }
        (Value::Array(a), Value::Array(b)) if a.len() <= b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                path.push(Segment::Index(i));
                let ok = grows(x, y, path, out);
                path.pop();
                if !ok {
                    return false;
                }
            }
            for (i, y) in b.iter().enumerate().skip(a.len()) {
                out.push(Delta::Started {
                    path: Path::of(path, Some(Segment::Index(i))),
                    value: y.clone(),
                });
            }
            true
        }
        (Value::Object(a), Value::Object(b)) if a.keys().all(|k| b.contains_key(k)) => {
            for (k, y) in b {
                path.push(Segment::Key(k.as_str().into()));
                let ok = match a.get(k) {
                    Some(x) => grows(x, y, path, out),
                    None => {
                        out.push(Delta::Started {
                            path: Path::of(path, None),
                            value: y.clone(),
                        });
                        true
                    }
                };
                path.pop();
                if !ok {
                    return false;
                }
            }
            true
        }
        _ => false,
    }
}
