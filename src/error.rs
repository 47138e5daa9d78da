//! The one error type: what went wrong, where in the caller's text, and at which
//! JSON path.

use std::fmt::{self, Display};
use std::sync::OnceLock;

use serde::de::{Expected, Unexpected};

use crate::coerce::{match_name, NameMatch};
use crate::contract::{Violation, Violations};
use crate::report::{listed, Repair, Report};
use crate::text::{floor_char_boundary, line_column, snippet};

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text holds no value to decode: it is empty, only whitespace or
    /// reasoning, or prose (a refusal, an intro whose JSON has not arrived),
    /// or (for a target that wants an object or an array) it holds no
    /// candidate of that shape, or the sentence right after its value takes
    /// that value back and no other follows (`{…} Oops, my mistake.`).
    /// Prose is never read as a JSON string; only a scalar target reads a
    /// value out of short prose. The message says what was looked for.
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
    /// The text needed a repair of a kind the decoder does not allow
    /// ([`Decoder::strict`](crate::Decoder::strict),
    /// [`Decoder::deny`](crate::Decoder::deny)). [`Error::repair`] names it.
    Denied,
    /// The reply decoded, but needed more repair or coercion than the decoder
    /// accepts ([`Decoder::max_repairs`](crate::Decoder::max_repairs),
    /// [`Decoder::accept_if`](crate::Decoder::accept_if)).
    /// [`Error::report`] gives what was done.
    Rejected,
    /// The value decoded, but its [`Contract`](crate::Contract) check found
    /// violations; [`Error::violations`] lists them.
    Contract,
    /// The target type borrows a string (`&str`, `&[u8]`) where the reply's
    /// string was written with escapes (or repaired), so it cannot point into
    /// the text. This is the caller's type choice, not the model's mistake:
    /// use `String` or `Cow<'_, str>` (with `#[serde(borrow)]`) for that
    /// field. [`Error::feedback`] is empty for it: there is nothing for the
    /// model to fix.
    ///
    /// ```
    /// #[derive(Debug, serde::Deserialize)]
    /// struct Name<'a> {
    ///     name: &'a str,
    /// }
    ///
    /// let e = serde_llm::from_llm_str::<Name>(r#"{"name": "say \"hi\""}"#).unwrap_err();
    /// assert_eq!(e.kind(), serde_llm::ErrorKind::Borrowed);
    /// assert_eq!(e.path(), "$.name");
    /// assert!(e.to_string().contains("use `String` or `Cow<str>`"));
    /// assert_eq!(e.feedback(), "");
    /// // Borrowed where the text allows it:
    /// let v: Name = serde_llm::from_llm_str(r#"{"name": "plain"}"#).unwrap();
    /// assert_eq!(v.name, "plain");
    /// ```
    Borrowed,
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
            ErrorKind::Denied => "repair not allowed",
            ErrorKind::Rejected => "the reply needed too much repair",
            ErrorKind::Contract => "the value breaks its contract",
            ErrorKind::Borrowed => "the target type cannot borrow this string",
        }
    }
}

/// A value a visitor did not want, as an error keeps it for placing (see
/// [`ErrorImpl::found`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Found {
    Str(String),
    /// A string longer than [`QUOTED`], kept as its length and hash (an
    /// error holds no copy of a whole reply read as one string).
    Long(usize, u64),
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Null,
    /// An unknown key.
    Key(String),
}

impl Found {
    fn of(unexp: &Unexpected<'_>) -> Option<Found> {
        Some(match *unexp {
            Unexpected::Str(s) if s.len() > QUOTED => Found::Long(s.len(), Found::hash(s)),
            Unexpected::Str(s) => Found::Str(s.to_owned()),
            Unexpected::Char(c) => Found::Str(c.to_string()),
            Unexpected::Bool(b) => Found::Bool(b),
            Unexpected::Unsigned(u) => Found::Unsigned(u),
            Unexpected::Signed(i) => Found::Signed(i),
            Unexpected::Float(f) => Found::Float(f),
            Unexpected::Unit => Found::Null,
            _ => return None,
        })
    }

    /// Whether the string `s` is the one found.
    pub(crate) fn is_str(&self, s: &str) -> bool {
        match self {
            Found::Str(want) => s == want,
            Found::Long(len, hash) => s.len() == *len && Found::hash(s) == *hash,
            _ => false,
        }
    }

    fn hash(s: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    }
}

/// One step of a JSON path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
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
#[derive(thiserror::Error, Clone)]
#[error(transparent)]
pub struct Error {
    // One pointer wide, like serde_json's error: results stay small on the hot
    // path. `transparent` forwards the formatter, so `{:#}` reaches ErrorImpl.
    inner: Box<ErrorImpl>,
}

#[derive(Clone)]
struct ErrorImpl {
    kind: ErrorKind,
    message: Message,
    offset: Option<usize>,
    line: usize,
    column: usize,
    snippet: String,
    /// Innermost segment first: segments are pushed while the error unwinds.
    path: Vec<Segment>,
    /// What a visitor was given that it did not want (a scalar value, an
    /// unknown key), kept while the error has no path of its own: an error
    /// from content serde buffered (an internally tagged enum, `flatten`)
    /// is placed at that value inside the container (see `de`).
    found: Option<Found>,
    /// A cut-off value refused at its start (nothing of it was read).
    rejected: bool,
    /// The error came from decoding a reply that was cut off.
    cut: bool,
    /// For [`ErrorKind::Denied`]: the repair that was needed.
    repair: Option<listed::Repair>,
    /// For [`ErrorKind::Rejected`]: what decoding the reply took.
    report: Option<Report>,
    /// For [`ErrorKind::Contract`]: what the check found.
    violations: Vec<Violation>,
    /// For an internal restart: what to read differently next time, and
    /// whether the error was raised where the hint applies (see
    /// [`Error::place_hint`]).
    hint: Option<(bool, Hint)>,
    /// What went wrong in words for the model (see [`Error::feedback`]),
    /// when it differs from the message.
    detail: Option<String>,
    /// For serde's "missing field" error: the field.
    missing: Option<&'static str>,
}

/// An error's message: written when the error is made, or, for the one a
/// decode makes for each prose span it tries and mostly drops, written the
/// first time it is read.
#[derive(Clone)]
enum Message {
    Text(String),
    /// No JSON value: the reply is prose, and begins with `snippet`.
    Prose {
        snippet: String,
        text: OnceLock<String>,
    },
}

impl Message {
    fn as_str(&self) -> &str {
        match self {
            Message::Text(text) => text,
            Message::Prose { snippet, text } => text.get_or_init(|| {
                format!(
                    "no JSON value found: the reply is prose ({snippet:?}); looked for a bare value, ```json fences, <json> tags, and {{…}} or […] spans"
                )
            }),
        }
    }
}

/// What a restarted decode reads differently, learned from an earlier try.
/// A hint is about a kind of place, not one offset, so a reply with a
/// hundred `"N/A"` scores or `userName` keys is read again once, not a
/// hundred times; all but [`Hint::Coerce`], whose place only serde knows
/// the type of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Hint {
    /// The placeholder `text` (`"n/a"`, trimmed and lowercased) where an
    /// `Option` is wanted whose inner type failed on it: read as `None`
    /// wherever the same path (`at`, outermost first, each key as written
    /// and each index left out: `$.items[].score`) meets the same
    /// placeholder.
    Null {
        at: Vec<Option<String>>,
        text: String,
    },
    /// A key written `written` in a struct with these field names (compared
    /// as names, not by the list's address, which Rust does not promise to
    /// keep one per struct): read as the field `name`.
    Field {
        fields: &'static [&'static str],
        written: String,
        name: &'static str,
    },
    /// A tag (an internally or adjacently tagged enum's) written `written`:
    /// read as the variant `name`.
    Tag { written: String, name: &'static str },
    /// The field `name` is written under its own name too: no key in
    /// another style is read as it (see `Field`).
    Exact { name: &'static str },
    /// The scalar at offset `at`, which serde read from content it buffered
    /// (an internally tagged enum's fields, a `flatten`ed struct's) and
    /// found of the wrong kind: read as `to`, coerced as the same value is
    /// where the Deserializer is asked for its type. Keyed by the offset,
    /// not by a kind of place: in buffered content the type wanted is
    /// serde's to know, and two variants may give a field of one name two
    /// types.
    Coerce { at: usize, to: Wanted },
    /// The member whose value starts at offset `at`, cut off, in content
    /// serde buffers for a `flatten`ed struct of a view: left out. serde's
    /// buffer cannot say the value is cut, and a view shows a cut value it
    /// cannot mark so as missing (so the view around it shows, rather than
    /// nothing until the member is complete).
    Omit { at: usize },
}

/// A scalar kind a visitor wanted, told by serde's `Expected` text (the
/// one thing serde says of the type it reads buffered content as).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// `i8` … `u64`, `isize`, `usize`.
    Int,
    /// `i128`, `u128`.
    Int128,
    /// `f32`, `f64`.
    Float,
    Bool,
    /// A string or a character.
    Str,
}

impl Wanted {
    fn of(exp: &str) -> Option<Wanted> {
        Some(match exp {
            "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
                Wanted::Int
            }
            "u128" | "i128" => Wanted::Int128,
            "f32" | "f64" => Wanted::Float,
            "a boolean" => Wanted::Bool,
            "a string" | "a character" => Wanted::Str,
            _ => return None,
        })
    }
}

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind, message: impl Display) -> Error {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                message: Message::Text(message.to_string()),
                offset: None,
                line: 0,
                column: 0,
                snippet: String::new(),
                path: Vec::new(),
                found: None,
                rejected: false,
                cut: false,
                repair: None,
                report: None,
                violations: Vec::new(),
                hint: None,
                detail: None,
                missing: None,
            }),
        }
    }

    /// No JSON value: `prose`, starting at `offset`, is prose. Its message
    /// quotes the first 40 characters (`…` after them if there are more),
    /// and is written only when it is read.
    pub(crate) fn prose(prose: &str, offset: usize) -> Error {
        let end = prose.char_indices().nth(40).map_or(prose.len(), |(i, _)| i);
        let mut snippet = String::with_capacity(end + '…'.len_utf8());
        snippet.push_str(&prose[..end]);
        if end < prose.len() {
            snippet.push('…');
        }
        let mut e = Error::new(ErrorKind::NoJson, "");
        e.inner.message = Message::Prose {
            snippet,
            text: OnceLock::new(),
        };
        e.inner.offset = Some(offset);
        e
    }

    /// A repair of a kind the decoder's rules deny.
    #[cold]
    pub(crate) fn denied(repair: Repair) -> Error {
        let name = serde_json::to_value(repair.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let mut e = Error::at(
            ErrorKind::Denied,
            format_args!(
                "{} (the decoder does not allow the `{name}` repair)",
                repair.kind.problem()
            ),
            repair.offset,
        );
        e.inner.repair = Some(repair.into());
        e
    }

    /// A decoded reply the decoder's acceptance test refused. `detail`
    /// lists, for the model, what had to be fixed.
    #[cold]
    pub(crate) fn rejected_report(message: impl Display, report: Report, detail: String) -> Error {
        let mut e = Error::new(ErrorKind::Rejected, message);
        e.inner.report = Some(report);
        e.inner.detail = Some(detail);
        e
    }

    /// A decoded value whose contract check failed.
    #[cold]
    pub(crate) fn contract(violations: Violations) -> Error {
        let v = violations.into_vec();
        let message = match v.as_slice() {
            [one] => format!("{}: {}", one.path, one.message),
            many => format!("{} contract violations", many.len()),
        };
        let mut e = Error::new(ErrorKind::Contract, message);
        e.inner.violations = v;
        e
    }

    /// An error that asks for the decode to start again, reading as `hint`
    /// says.
    #[cold]
    pub(crate) fn with_hint(mut self, hint: Hint) -> Error {
        self.inner.hint = Some((true, hint));
        self
    }

    /// Confirms the hint of an error raised by a visitor (an unknown variant
    /// or field that matches one in another style): the Deserializer saw it
    /// raised for a value it read itself (not from serde's buffer), so a
    /// restart will meet the same value.
    pub(crate) fn place_hint(mut self) -> Error {
        if let Some((placed, _)) = &mut self.inner.hint {
            *placed = true;
        }
        self
    }

    /// An error whose hint could not be followed: the decode had read its
    /// candidate again `times` times already. Said in the message, so a
    /// value a plain struct would take is not a mystery.
    #[cold]
    pub(crate) fn out_of_restarts(mut self, times: usize) -> Error {
        let text = format!(
            "{} (not read again as the kind wanted: the decode already read the reply {times} times for other values)",
            self.inner.message.as_str()
        );
        self.inner.message = Message::Text(text);
        self.inner.hint = None;
        self
    }

    /// The restart hint, if this error carries a confirmed one.
    pub(crate) fn hint(&self) -> Option<&Hint> {
        match &self.inner.hint {
            Some((true, hint)) => Some(hint),
            _ => None,
        }
    }

    /// Whether this error asks for the candidate to be read again (with a
    /// spine or a hint) rather than reporting a problem.
    pub(crate) fn restarts(&self) -> bool {
        self.hint().is_some()
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

    /// A required field missing from a reply that was cut off (at
    /// `offset`): the cut's doing, not the model's (it may have been
    /// writing the field), so a `Truncated` error, with what reading the
    /// reply took (`report`, `truncated` set). `None` for any other error.
    #[cold]
    pub(crate) fn cut_before_field(
        &self,
        offset: usize,
        report: impl FnOnce() -> Report,
    ) -> Option<Error> {
        let field = self.inner.missing.filter(|_| self.inner.cut)?;
        let mut e = Error::at(
            ErrorKind::Truncated,
            format_args!("the reply was cut off before the required field `{field}`"),
            offset,
        )
        .detail(format!(
            "the reply is cut off before the required field {}; send the complete JSON",
            quote(field)
        ))
        .in_cut_reply();
        e.inner.report = Some(report());
        Some(e)
    }

    /// Marks an error as coming from a reply that was cut off.
    pub(crate) fn in_cut_reply(mut self) -> Error {
        self.inner.cut = true;
        self
    }

    /// An error a partial view takes as "nothing to show yet": no value has
    /// started, or the reply is cut off before the view can be formed.
    pub(crate) fn is_nothing(&self) -> bool {
        self.kind() == ErrorKind::NoJson || self.is_in_cut_reply()
    }

    /// Whether the error came from a reply that was cut off.
    pub(crate) fn is_in_cut_reply(&self) -> bool {
        self.inner.cut
    }

    /// Invalid UTF-8 at byte `at` of `bytes` (the text before it valid),
    /// located in that text.
    #[cold]
    pub(crate) fn invalid_utf8(bytes: &[u8], at: usize) -> Error {
        let err = Error::at(
            ErrorKind::InvalidUtf8,
            format_args!("invalid UTF-8 at byte {at}"),
            at,
        );
        err.locate(std::str::from_utf8(&bytes[..at]).unwrap_or_default())
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
        self.inner.message.as_str()
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

    /// A short text for the model that wrote the reply, naming the problem
    /// with its JSON path and what was expected, one problem per line —
    /// meant to be sent back in a retry turn:
    ///
    /// ```
    /// #[derive(Debug, serde::Deserialize)]
    /// struct Verdict { label: String, score: f64 }
    ///
    /// let err = serde_llm::from_llm_str::<Verdict>(r#"{"label": "spam", "score": "high"}"#)
    ///     .unwrap_err();
    /// assert_eq!(err.feedback(), r#"$.score: expected a number, got "high""#);
    /// ```
    ///
    /// A [`Contract`](crate::Contract) error gives one line per violation; a
    /// [`Rejected`](ErrorKind::Rejected) reply, one line per fix it needed.
    pub fn feedback(&self) -> String {
        let e = &self.inner;
        if e.kind == ErrorKind::Contract {
            let lines: Vec<String> = e.violations.iter().map(ToString::to_string).collect();
            return lines.join("\n");
        }
        if e.kind == ErrorKind::Rejected {
            return e
                .detail
                .clone()
                .unwrap_or_else(|| e.message.as_str().to_owned());
        }
        // The caller's type, not the reply, is at fault.
        if e.kind == ErrorKind::Borrowed {
            return String::new();
        }
        let at = if !e.path.is_empty() {
            format_path(&e.path)
        } else if e.line > 0 && !matches!(e.kind, ErrorKind::Data | ErrorKind::NoJson) {
            format!("line {}, column {}", e.line, e.column)
        } else {
            "$".to_owned()
        };
        let what = match (e.kind, &e.detail, &e.repair) {
            (_, Some(detail), _) => detail.clone(),
            (ErrorKind::Denied, _, Some(r)) => format!("{} is not valid JSON", r.kind.problem()),
            (ErrorKind::Truncated, _, _) => {
                "the reply is cut off here; send the complete JSON".to_owned()
            }
            (ErrorKind::NoJson, _, _) => {
                let looked = if e.message.as_str().contains("looked for") {
                    ""
                } else {
                    " (looked for a bare value, ```json fences, <json> tags, and {…} or […] spans)"
                };
                format!(
                    "{}{looked}; reply with the JSON value only",
                    e.message.as_str()
                )
            }
            _ => e.message.as_str().to_owned(),
        };
        format!("{at}: {what}")
    }

    /// For an [`ErrorKind::Denied`] error: the repair the text needed.
    pub fn repair(&self) -> Option<&listed::Repair> {
        self.inner.repair.as_ref()
    }

    /// For an [`ErrorKind::Rejected`] error, and a
    /// [`Truncated`](ErrorKind::Truncated) one for a required field the cut
    /// left out: what decoding the reply took.
    pub fn report(&self) -> Option<&Report> {
        self.inner.report.as_ref()
    }

    /// For an [`ErrorKind::Contract`] error: every violation found.
    pub fn violations(&self) -> &[Violation] {
        &self.inner.violations
    }

    /// The value an error without a path of its own was raised for (see
    /// [`Found`]).
    /// Taken: a container tries once to place it, so an error that could
    /// not be placed is not looked for again in each container around it.
    pub(crate) fn take_found(&mut self) -> Option<Found> {
        match self.inner.path.is_empty() {
            true => self.inner.found.take(),
            false => None,
        }
    }

    /// Placed at the value it was raised for: `path` (outermost first)
    /// inside the container being read, at `offset`.
    /// A member's scalar of the wrong kind is then read again as the kind
    /// wanted (see [`Hint::Coerce`]); an element's is not (serde reads an
    /// internally tagged enum from a list too, `[tag, fields…]`, which is
    /// no call a model writes).
    #[cold]
    pub(crate) fn placed(mut self, path: Vec<Segment>, offset: usize) -> Error {
        let member = matches!(path.last(), Some(Segment::Key(_)));
        self.inner.path.extend(path.into_iter().rev());
        self.inner.offset = Some(offset);
        if let Some((placed, Hint::Coerce { at, .. })) = &mut self.inner.hint {
            (*placed, *at) = (member, offset);
        }
        self
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
            (self.inner.line, self.inner.column) = line_column(text, offset);
            self.inner.snippet = snippet(text, floor_char_boundary(text, offset.min(text.len())));
        }
        self
    }

    /// A name written in another case or style that matches two names (`what`:
    /// a struct's "key", whose names are fields, or a "variant"): an error, not
    /// a guess.
    #[cold]
    pub(crate) fn ambiguous(what: &str, written: &str, a: &str, b: &str, at: usize) -> Error {
        let field = if what == "key" { "the field " } else { "" };
        Error::at(
            ErrorKind::Data,
            format_args!("{AMBIGUOUS} {what} `{written}`: it could be {field}`{a}` or `{b}`"),
            at,
        )
    }

    /// Whether this is an [`ambiguous`](Self::ambiguous) name's error.
    pub(crate) fn is_ambiguous(&self) -> bool {
        self.inner.message.as_str().starts_with(AMBIGUOUS)
    }
}

/// How an ambiguous name's error message begins.
const AMBIGUOUS: &str = "ambiguous";

/// A path given outermost step first, as `$.items[3].name`.
pub(crate) fn render_path(outer_first: &[Segment]) -> String {
    let inner_first: Vec<Segment> = outer_first.iter().rev().cloned().collect();
    format_path(&inner_first)
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

pub(crate) fn is_plain_key(k: &str) -> bool {
    !k.is_empty()
        && !k.starts_with(|c: char| c.is_ascii_digit())
        && k.chars().all(|c| c.is_alphanumeric() || c == '_')
}

impl Display for ErrorImpl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.message.as_str();
        if message.is_empty() {
            f.write_str(self.kind.describe())?;
        } else {
            f.write_str(message)?;
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
            .field("message", &self.message.as_str())
            .finish_non_exhaustive()
    }
}

impl std::error::Error for ErrorImpl {}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("message", &self.inner.message.as_str())
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
        let e = Error::new(ErrorKind::Data, msg);
        // serde's derive names the Rust type here; the model reads what the
        // value should have been.
        match e
            .inner
            .message
            .as_str()
            .starts_with("data did not match any variant of untagged enum ")
        {
            true => e.detail("the value matches none of the shapes expected here".to_owned()),
            false => e,
        }
    }

    // The messages are serde's own; each also keeps, for `feedback`, what
    // was expected and what was found in words a model reads.

    #[cold]
    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        Error::unexpected("invalid type", &unexp, exp)
    }

    #[cold]
    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        Error::unexpected("invalid value", &unexp, exp)
    }

    #[cold]
    fn invalid_length(len: usize, exp: &dyn Expected) -> Self {
        Error::new(
            ErrorKind::Data,
            format_args!("invalid length {len}, expected {exp}"),
        )
        .detail(format!(
            "expected {}, got {len} value{}",
            expected_words(&exp.to_string()),
            if len == 1 { "" } else { "s" }
        ))
    }

    #[cold]
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let message = unknown("variant", variant, expected);
        let mut e = Error::new(ErrorKind::Data, message).detail(format!(
            "expected one of {}, got {}",
            quoted_list(expected),
            quote(variant)
        ));
        // Written in another style (`in_progress` for `InProgress`): the
        // decoder may read it as that variant on a restart, if the tag was
        // its own to read (see `place_hint`).
        if let NameMatch::One(name) = match_name(variant, expected) {
            let written = variant.to_owned();
            e.inner.hint = Some((false, Hint::Tag { written, name }));
        }
        e
    }

    #[cold]
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        let message = unknown("field", field, expected);
        let mut e = Error::new(ErrorKind::Data, message).detail(format!(
            "unknown field {}; the fields are {}",
            quote(field),
            quoted_list(expected)
        ));
        e.inner.found = Some(Found::Key(field.to_owned()));
        // A field's name in another style (`deny_unknown_fields`): read as
        // that field on a restart, as for variants.
        if let NameMatch::One(name) = match_name(field, expected) {
            let fields = expected;
            let written = field.to_owned();
            e.inner.hint = Some((
                false,
                Hint::Field {
                    fields,
                    written,
                    name,
                },
            ));
        }
        e
    }

    #[cold]
    fn missing_field(field: &'static str) -> Self {
        let mut e = Error::new(ErrorKind::Data, format_args!("missing field `{field}`"))
            .detail(format!("missing required field {}", quote(field)));
        e.inner.missing = Some(field);
        e
    }

    #[cold]
    fn duplicate_field(field: &'static str) -> Self {
        let mut e = Error::new(ErrorKind::Data, format_args!("duplicate field `{field}`"))
            .detail(format!("the field {} appears twice", quote(field)));
        // Perhaps twice only because a key in another style was read as it:
        // a restart leaves such keys unknown.
        e.inner.hint = Some((true, Hint::Exact { name: field }));
        e
    }
}

impl Error {
    /// serde's "invalid type" and "invalid value" errors (`what`), with
    /// their words for the model.
    fn unexpected(what: &str, unexp: &Unexpected<'_>, exp: &dyn Expected) -> Error {
        // serde's `&str` and `&[u8]` given a string it cannot borrow: the
        // target's choice, said as such.
        let borrowed = matches!(unexp, Unexpected::Str(_) | Unexpected::Bytes(_))
            && matches!(
                exp.to_string().as_str(),
                "a borrowed string" | "a borrowed byte array"
            );
        if borrowed {
            return Error::new(
                ErrorKind::Borrowed,
                format_args!(
                    "the target type borrows this string ({exp}), but the reply wrote it with escapes or it was repaired, so it cannot be borrowed from the text: use `String` or `Cow<str>` for this field"
                ),
            );
        }
        let mut e = Error::new(
            ErrorKind::Data,
            format_args!("{what}: {}, expected {exp}", Json(unexp)),
        );
        e.inner.found = Found::of(unexp);
        let exp = exp.to_string();
        if let (Some(_), Some(to)) = (&e.inner.found, Wanted::of(&exp)) {
            // Confirmed only once placed at one value in serde's buffer (see
            // `placed`): a value read from the text itself had its
            // coercions tried already.
            e.inner.hint = Some((false, Hint::Coerce { at: usize::MAX, to }));
        }
        e.detail(format!(
            "expected {}, got {}",
            expected_words(&exp),
            got_words(unexp)
        ))
    }

    /// Sets what [`feedback`](Error::feedback) says went wrong.
    pub(crate) fn detail(mut self, detail: String) -> Error {
        self.inner.detail = Some(detail);
        self
    }
}

/// Violations found by a [`Contract`](crate::Contract) check run by hand, as
/// an [`ErrorKind::Contract`] error (what
/// [`Decoder::decode_checked`](crate::Decoder::decode_checked) returns).
impl From<Violations> for Error {
    fn from(violations: Violations) -> Error {
        Error::contract(violations)
    }
}

/// serde's `Unexpected` as serde_json shows it: a unit value is `null`.
struct Json<'a, 'b>(&'a Unexpected<'b>);

impl Display for Json<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Unexpected::Unit => f.write_str("null"),
            Unexpected::Str(s) if s.len() > QUOTED => {
                write!(f, "string {:?}… ({} bytes)", start_of(s), s.len())
            }
            other => Display::fmt(other, f),
        }
    }
}

/// The longest string an error quotes whole: a longer one (a whole reply
/// read as one string) is quoted by its start, then its length, so that an
/// error holds no copy of it.
const QUOTED: usize = 200;

/// The start of a string longer than [`QUOTED`] that an error quotes.
fn start_of(s: &str) -> &str {
    let mut end = QUOTED / 2;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// serde's message for an unknown variant or field (`what`).
fn unknown(what: &str, name: &str, expected: &[&str]) -> String {
    match expected {
        [] => format!("unknown {what} `{name}`, there are no {what}s"),
        names => format!("unknown {what} `{name}`, expected {}", OneOf(names)),
    }
}

/// serde's list of names in messages: `` `a` ``, `` `a` or `b` ``,
/// `` one of `a`, `b`, `c` ``.
struct OneOf<'a>(&'a [&'a str]);

impl Display for OneOf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [] => Ok(()),
            [one] => write!(f, "`{one}`"),
            [a, b] => write!(f, "`{a}` or `{b}`"),
            names => {
                f.write_str("one of ")?;
                for (i, name) in names.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "`{name}`")?;
                }
                Ok(())
            }
        }
    }
}

/// A string as JSON text (`"a \"b\""`), for messages and coercion records.
pub(crate) fn quote(s: &str) -> String {
    // Room for exactly the quoted text, not twice it: the string may be a
    // whole reply (a coercion's `written`).
    let escapes: usize = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\x08' | b'\t' | b'\n' | b'\x0c' | b'\r' => 1,
            0..0x20 => 5,
            _ => 0,
        })
        .sum();
    let mut out = Vec::with_capacity(s.len() + escapes + 2);
    match serde_json::to_writer(&mut out, s) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

fn quoted_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| quote(n)).collect();
    quoted.join(", ")
}

/// What serde's `Expected` says, in words for a model: `f64` is "a number",
/// `struct Verdict` is "an object".
fn expected_words(exp: &str) -> String {
    let words = match exp {
        "f32" | "f64" => "a number",
        "u8" => "an integer from 0 to 255",
        "u16" => "an integer from 0 to 65535",
        "u32" | "u64" | "u128" | "usize" => "a non-negative integer",
        "i8" => "an integer from -128 to 127",
        "i16" => "an integer from -32768 to 32767",
        "i32" | "i64" | "i128" | "isize" => "an integer",
        "a boolean" => "true or false",
        "a string" | "a borrowed string" => "a string",
        "a character" => "a single character",
        "a sequence" => "a list",
        "a map" => "an object",
        "unit" => "null",
        // serde's derive names the Rust type (`struct Call`, `internally
        // tagged enum ToolCall`); feedback says what JSON it wants instead.
        _ if exp.starts_with("struct ") && !exp.contains(" with ") => "an object",
        _ if exp.starts_with("struct variant ")
            || exp.starts_with("internally tagged enum ")
            || exp.starts_with("adjacently tagged enum ") =>
        {
            "an object"
        }
        _ if exp.starts_with("tuple struct ") || exp.starts_with("tuple variant ") => "a list",
        _ if exp.starts_with("unit struct ") || exp.starts_with("unit variant ") => "null",
        _ if exp.starts_with("enum ") => "one of the allowed names",
        "variant identifier" => "one of the allowed names",
        "field identifier" => "a field name",
        _ if exp.starts_with("a tuple of size ") => {
            return format!("a list of {} values", &exp["a tuple of size ".len()..]);
        }
        _ if exp.starts_with("struct ") => {
            // `struct Point with 2 elements`: a struct read from a list.
            match exp.rsplit_once(" with ") {
                Some((_, n)) => {
                    return format!(
                        "a list of {}",
                        n.replace("elements", "values").replace("element", "value")
                    )
                }
                None => "an object",
            }
        }
        _ => exp,
    };
    words.to_owned()
}

/// A value serde reports as unexpected, as a model would write it.
fn got_words(unexp: &Unexpected<'_>) -> String {
    match *unexp {
        Unexpected::Bool(b) => b.to_string(),
        Unexpected::Unsigned(n) => n.to_string(),
        Unexpected::Signed(n) => n.to_string(),
        Unexpected::Float(f) => f.to_string(),
        Unexpected::Char(c) => quote(c.encode_utf8(&mut [0; 4])),
        Unexpected::Str(s) if s.len() > QUOTED => {
            format!("{}… ({} bytes)", quote(start_of(s)), s.len())
        }
        Unexpected::Str(s) => quote(s),
        Unexpected::Bytes(_) => "bytes".to_owned(),
        Unexpected::Unit | Unexpected::Option => "null".to_owned(),
        Unexpected::Seq => "a list".to_owned(),
        Unexpected::Map => "an object".to_owned(),
        Unexpected::Other("number") => "a number".to_owned(),
        Unexpected::Other(other) => other.to_owned(),
        _ => unexp.to_string(),
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// `quote` is serde_json's quoting, in a string of exactly its length.
    #[test]
    fn quote_is_exact() {
        let mut all: String = (0u8..0x80).map(char::from).collect();
        all.push_str("é ✓ \u{2028} 😀");
        for s in [all.as_str(), "", "plain", "\"a\" \"a\"", "\\\n\t\u{1}"] {
            let q = quote(s);
            assert_eq!(q, serde_json::to_string(s).unwrap());
            assert_eq!(q.capacity(), q.len(), "{s:?}");
        }
    }
}
