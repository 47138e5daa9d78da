//! The one error type: what went wrong, where in the caller's text, and at which
//! JSON path.

use std::fmt::{self, Display};

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text holds no value to decode: it is empty or only whitespace, or
    /// (for a target that wants an object or an array) it holds no candidate
    /// of that shape. For an untyped target, prose alone is read as a string.
    NoJson,
    /// The text could not be repaired into a value at this point.
    Syntax,
    /// The value ended before a required part of it was written (the reply was
    /// cut off).
    Truncated,
    /// The value nests deeper than the decoder's depth limit.
    Depth,
    /// The input bytes are not valid UTF-8.
    InvalidUtf8,
    /// A number beyond `f64`, `i128` or `u128`. (A number that does not fit
    /// a smaller type, like `300` for a `u8`, is a [`Data`](ErrorKind::Data)
    /// error, as in serde_json.)
    Number,
    /// The value does not have the shape the target type wants: a wrong type,
    /// a missing field, an unknown variant, or a message from a `Deserialize` impl.
    Data,
}

impl ErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::NoJson => "no JSON value found",
            ErrorKind::Syntax => "syntax error",
            ErrorKind::Truncated => "truncated value",
            ErrorKind::Depth => "nesting too deep",
            ErrorKind::InvalidUtf8 => "invalid UTF-8",
            ErrorKind::Number => "number out of range",
            ErrorKind::Data => "data error",
        }
    }
}

/// One step of a JSON path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// An error from decoding or repairing a model's reply.
///
/// It carries the [`ErrorKind`], the byte offset, line and column in the text
/// the caller passed in (not in an extracted slice), a short snippet of the text
/// around the fault, and the JSON path being decoded. `Display` puts these on
/// one line, plain enough to send back to the model as retry feedback:
///
/// ```
/// #[derive(Debug, serde::Deserialize)]
/// struct Verdict { score: f64 }
///
/// let err = serde_llm::from_llm_str::<Verdict>(r#"{"score": "high"}"#).unwrap_err();
/// assert_eq!(err.kind(), serde_llm::ErrorKind::Data);
/// assert_eq!(err.path(), "$.score");
/// assert_eq!(
///     err.to_string(),
///     r#"invalid type: string "high", expected f64 at $.score (line 1, column 11)"#
/// );
/// assert_eq!(
///     format!("{err:#}"),
///     "invalid type: string \"high\", expected f64 at $.score (line 1, column 11)\n  near: {\"score\": \"high\"}"
/// );
/// ```
///
/// The alternate form (`{:#}`) adds a second line with the snippet.
#[derive(thiserror::Error)]
#[error(transparent)]
pub struct Error {
    // One pointer wide, like serde_json's error: results stay small on the hot
    // path. `transparent` forwards the formatter, so `{:#}` reaches ErrorImpl.
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    kind: ErrorKind,
    message: String,
    offset: Option<usize>,
    line: usize,
    column: usize,
    snippet: String,
    /// Innermost segment first: segments are pushed while the error unwinds.
    path: Vec<Segment>,
    /// For an internal restart: the containers found open at the end.
    spine: Option<Vec<usize>>,
    /// A cut-off value refused at its start (nothing of it was read).
    rejected: bool,
    /// The error came from decoding a reply that was cut off.
    cut: bool,
}

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind, message: impl Display) -> Error {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                message: message.to_string(),
                offset: None,
                line: 0,
                column: 0,
                snippet: String::new(),
                path: Vec::new(),
                spine: None,
                rejected: false,
                cut: false,
            }),
        }
    }

    /// The reply turned out to be cut off inside containers that were taken
    /// as complete: the decode must start again knowing the spine.
    #[cold]
    pub(crate) fn restart(spine: Vec<usize>, end: usize) -> Error {
        let mut e = Error::at(ErrorKind::Truncated, "the reply was cut off", end);
        e.inner.spine = Some(spine);
        e
    }

    /// The spine of a restart error.
    pub(crate) fn spine(&self) -> Option<&[usize]> {
        self.inner.spine.as_deref()
    }

    /// A value cut off at the end where only a complete one may stand,
    /// refused before any of it was read.
    #[cold]
    pub(crate) fn rejected(offset: usize) -> Error {
        let mut e = Error::truncated(offset);
        e.inner.rejected = true;
        e
    }

    /// Where a value was refused at its start (see [`rejected`](Self::rejected)).
    pub(crate) fn rejected_at(&self) -> Option<usize> {
        self.inner.rejected.then_some(self.inner.offset).flatten()
    }

    /// Marks an error as coming from a reply that was cut off.
    pub(crate) fn in_cut_reply(mut self) -> Error {
        self.inner.cut = true;
        self
    }

    /// Whether the error came from a reply that was cut off.
    pub(crate) fn is_in_cut_reply(&self) -> bool {
        self.inner.cut
    }

    /// A value cut off at the end where only a complete one may stand.
    #[cold]
    pub(crate) fn truncated(offset: usize) -> Error {
        Error::at(
            ErrorKind::Truncated,
            "the reply was cut off before this value was complete",
            offset,
        )
    }

    #[cold]
    pub(crate) fn at(kind: ErrorKind, message: impl Display, offset: usize) -> Error {
        let mut e = Error::new(kind, message);
        e.inner.offset = Some(offset);
        e
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The message without location or path, e.g. `missing field `score``.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// Byte offset of the fault in the text that was passed in, when known.
    pub fn offset(&self) -> Option<usize> {
        self.inner.offset
    }

    /// 1-based line of the fault, or 0 when the position is unknown.
    pub fn line(&self) -> usize {
        self.inner.line
    }

    /// 1-based column (in characters) of the fault, or 0 when unknown.
    pub fn column(&self) -> usize {
        self.inner.column
    }

    /// Up to about 40 characters of the input around the fault (empty when the
    /// position is unknown).
    pub fn snippet(&self) -> &str {
        &self.inner.snippet
    }

    /// The JSON path of the value being decoded when the error happened, such as
    /// `$.items[3].name`; `$` for the root.
    pub fn path(&self) -> String {
        format_path(&self.inner.path)
    }

    #[cold]
    pub(crate) fn in_key(mut self, key: &str) -> Error {
        self.inner.path.push(Segment::Key(key.to_owned()));
        self
    }

    #[cold]
    pub(crate) fn in_index(mut self, index: usize) -> Error {
        self.inner.path.push(Segment::Index(index));
        self
    }

    /// Gives a position to an error that has none yet (errors raised by a
    /// visitor know nothing of the input).
    #[cold]
    pub(crate) fn or_at(mut self, offset: usize) -> Error {
        if self.inner.offset.is_none() {
            self.inner.offset = Some(offset);
        }
        self
    }

    /// Fills in line, column and snippet from the caller's full text.
    #[cold]
    pub(crate) fn locate(mut self, text: &str) -> Error {
        if let Some(offset) = self.inner.offset {
            let offset = floor_char_boundary(text, offset.min(text.len()));
            let before = &text[..offset];
            self.inner.line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            self.inner.column = text[line_start..offset].chars().count() + 1;
            self.inner.snippet = snippet(text, offset);
        }
        self
    }
}

fn format_path(path: &[Segment]) -> String {
    let mut out = String::from("$");
    // A very deep path (a depth error) shows its innermost steps.
    let shown = if path.len() > 16 {
        out.push('…');
        &path[..12]
    } else {
        path
    };
    for seg in shown.iter().rev() {
        match seg {
            Segment::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
            Segment::Key(k) if is_plain_key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Segment::Key(k) => {
                out.push('[');
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(']');
            }
        }
    }
    out
}

fn is_plain_key(k: &str) -> bool {
    !k.is_empty()
        && !k.starts_with(|c: char| c.is_ascii_digit())
        && k.chars().all(|c| c.is_alphanumeric() || c == '_')
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// About 20 characters either side of `offset`, on one line.
fn snippet(text: &str, offset: usize) -> String {
    let start = text[..offset]
        .char_indices()
        .rev()
        .nth(19)
        .map_or(0, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .nth(20)
        .map_or(text.len(), |(i, _)| offset + i);
    text[start..end]
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl Display for ErrorImpl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.write_str(self.kind.describe())?;
        } else {
            f.write_str(&self.message)?;
        }
        if !self.path.is_empty() {
            write!(f, " at {}", format_path(&self.path))?;
        }
        if self.line > 0 {
            write!(f, " (line {}, column {})", self.line, self.column)?;
        }
        if f.alternate() && !self.snippet.trim().is_empty() {
            write!(f, "\n  near: {}", self.snippet)?;
        }
        Ok(())
    }
}

impl fmt::Debug for ErrorImpl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ErrorImpl")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .finish_non_exhaustive()
    }
}

impl std::error::Error for ErrorImpl {}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("message", &self.inner.message)
            .field("offset", &self.inner.offset)
            .field("line", &self.inner.line)
            .field("column", &self.inner.column)
            .field("path", &self.path())
            .field("snippet", &self.inner.snippet)
            .finish()
    }
}

impl serde::de::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Data, msg)
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
