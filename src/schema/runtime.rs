//! [`SchemaDecoder`]: decode, view and stream a reply against a JSON Schema
//! known only at run time.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::compile::{self, Compiled};
use super::seed::{Cx, Decoded, Root};
use super::SchemaError;
#[cfg(feature = "schema")]
use crate::error::ErrorKind;
use crate::error::{Error, Result};
use crate::partial::grow::{Kind as GrowKind, Route};
use crate::report::{Coercion, Reading, Report};
use crate::scan::part::PartText;
use crate::scan::Spare;
use crate::shape::Shape;
use crate::stream::{delta, Around, Change, Delta, Path, Reads, Segment};
use crate::{text, Decoder, StreamDecoder, Violations};

/// Decodes replies against a JSON Schema known only at run time (an MCP
/// tool's `inputSchema`, a tool definition in a gateway's configuration, a
/// schema file), as [`Decoder`] decodes them into a type.
///
/// The schema is compiled once ([`new`](Self::new)); the decoder is cheap
/// to clone (the compiled schema is shared) and `Send + Sync`. Each
/// decode drives the one Deserializer the typed path uses, through serde's
/// own hints, so what a type gets a schema gets: `"42"` for an `integer`
/// is `42`, a key `userName` fills the property `user_name`, `"In
/// Progress"` is the `enum` value `in_progress`, one object where an
/// `array` is wanted is a list of one, `{"items": [...]}` where a list is
/// wanted is that list; every coercion and repair is in the [`Report`],
/// and an error has the typed path's message and JSON path.
///
/// ```
/// use serde_json::json;
///
/// let tool = serde_llm::SchemaDecoder::new(&json!({
///     "type": "object",
///     "properties": {
///         "query": {"type": "string"},
///         "max_results": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
///         "order": {"enum": ["newest_first", "relevance"]}
///     },
///     "required": ["query"],
///     "additionalProperties": false
/// }))?;
///
/// let reply = "Calling the tool:\n```json\n{query: 'rust serde', maxResults: '5', order: 'Relevance',}\n```";
/// let (args, report) = tool.decode_with_report(reply)?;
/// assert_eq!(args, json!({"query": "rust serde", "max_results": 5, "order": "relevance"}));
/// let fixed: Vec<String> = report.coercions.iter().map(|c| format!("{} {}", c.path, c.kind)).collect();
/// // Paths are as written in the reply.
/// assert_eq!(fixed, ["$.maxResults field_name", "$.maxResults string_to_number", "$.order enum_variant"]);
///
/// // A bound is a contract: the reply decodes, and the error says what to fix.
/// let err = tool.decode(r#"{"query": "rust", "max_results": 500}"#).unwrap_err();
/// assert_eq!(err.feedback(), "$.max_results: expected a number at most 50, got 500");
///
/// // A property left out takes its default, reported.
/// let (args, report) = tool.decode_with_report(r#"{"query": "rust"}"#)?;
/// assert_eq!(args["max_results"], 10);
/// assert_eq!(report.coercions[0].kind, serde_llm::CoercionKind::DefaultValue);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Keywords
///
/// - `type` (one or a list), `enum`, `const`, `nullable` (OpenAPI's) and
///   `null` among the types or values: the value is read as that type is
///   (a list of types is an `anyOf` of them; `null` among them makes the
///   rest nullable);
/// - `properties` and `required`: an object is read as a struct with those
///   fields (so a key in another case or style fills its property, and is
///   reported). A missing required property is an error with its path
///   (`missing field `query``); a missing optional one is absent from the
///   value, not `null`. A property with a `default` left out takes it, as
///   a [`CoercionKind::DefaultValue`](crate::CoercionKind::DefaultValue)
///   (not counted as a fix);
/// - `additionalProperties` and `patternProperties`: other keys are kept,
///   read by their schema; `false` leaves them out, each reported as a
///   [`CoercionKind::ExtraKey`](crate::CoercionKind::ExtraKey), or refused
///   where that coercion is denied ([`Decoder::strict`] denies it);
/// - `items`, `prefixItems` (a closed prefix is read as a tuple is);
/// - `anyOf`, `oneOf`: each alternative that could hold the value decodes
///   it, the one that needed the fewest coercions wins, two that fit
///   equally and read it differently are an ambiguity error naming both;
/// - `allOf` and a `$ref` beside other keywords: merged into one schema;
/// - `$ref` to any JSON pointer of the document (`#/$defs/…`,
///   `#/definitions/…`, `#`), recursion included;
/// - checked as a contract (the reply decodes, then the call fails with
///   every violation by JSON path, an [`ErrorKind::Contract`](crate::ErrorKind::Contract) error whose
///   [`Error::feedback`] is one line each, for a retry turn): `minimum`,
///   `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`,
///   `minLength`, `maxLength` (in characters), `pattern` (ECMA-262's
///   common subset, without backreferences or lookaround), `minItems`,
///   `maxItems`, `uniqueItems`, `minProperties`, `maxProperties`, and
///   `format` `date-time`, `date` and `uuid` (checked, never coerced) and
///   schemars' integer formats (`int32`, `uint8`, …: the type's range).
///   Other formats are annotations, as JSON Schema has them by default;
/// - annotations, which change nothing: `title`, `description`,
///   `default` (but on a property), `examples`, `$schema`, `$id`,
///   `$comment`, `deprecated`, `readOnly`, `writeOnly`, `content…`.
///
/// Any other keyword (`not`, `if`, `contains`, `propertyNames`,
/// `unevaluatedProperties`, a vendor's `x-…`) is named in
/// [`new`](Self::new)'s error, never silently ignored;
/// [`SchemaOptions::ignore_unknown_keywords`] leaves them out on purpose.
///
/// # Partial views
///
/// [`decode_partial`](Self::decode_partial) and [`stream`](Self::stream)
/// show a reply still being written as a typed view does: every property
/// optional, each shown once complete, except one marked `"x-partial":
/// true` (`#[llm(partial)]`), which grows: a string's prefix, a list's
/// elements so far (its last string growing too), an object's members. A
/// property marked `"x-required-for-view": true` (`#[llm(required)]`)
/// hides its object until it is complete. A `null` written is shown; a
/// value still being written where only a complete one may stand is
/// absent. Nothing is filled in or checked in a view.
///
/// # From a type
///
/// With the `schema` feature, `SchemaDecoder::of` compiles a type's schemars
/// schema, and `Decoder::decode_aligned` reads a type through it, which
/// gives coercion to what serde reads from its own buffer (internally
/// tagged and untagged enums, `flatten`).
#[derive(Clone, Debug)]
pub struct SchemaDecoder {
    schema: Arc<Compiled>,
    decoder: Decoder,
}

/// How [`SchemaDecoder::with_options`] compiles a schema.
///
/// ```
/// use serde_llm::{SchemaDecoder, SchemaOptions};
///
/// let schema = serde_json::json!({"type": "string", "x-vendor-hint": "short"});
/// assert!(SchemaDecoder::new(&schema).is_err());
/// let lenient = SchemaOptions::new().ignore_unknown_keywords();
/// let d = SchemaDecoder::with_options(&schema, lenient)?;
/// assert_eq!(d.decode("\"hi\"")?, "hi");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaOptions {
    ignore_unknown: bool,
}

impl SchemaOptions {
    /// The defaults: a keyword not understood is an error.
    pub fn new() -> SchemaOptions {
        SchemaOptions::default()
    }

    /// Leaves out every keyword the decoder does not understand, instead
    /// of refusing the schema: what it says is then not enforced.
    pub fn ignore_unknown_keywords(mut self) -> SchemaOptions {
        self.ignore_unknown = true;
        self
    }
}

impl SchemaDecoder {
    /// Compiles `schema` (a JSON Schema as a `serde_json::Value`), with
    /// [`Decoder::new`]'s options. An error names where the schema is not
    /// one this decoder can follow and why.
    pub fn new(schema: &Value) -> std::result::Result<SchemaDecoder, SchemaError> {
        SchemaDecoder::with_options(schema, SchemaOptions::new())
    }

    /// [`new`](Self::new) with `options`.
    pub fn with_options(
        schema: &Value,
        options: SchemaOptions,
    ) -> std::result::Result<SchemaDecoder, SchemaError> {
        let opts = compile::Options {
            ignore_unknown: options.ignore_unknown,
        };
        Ok(SchemaDecoder {
            schema: Arc::new(compile::compile(schema, opts)?),
            decoder: Decoder::new(),
        })
    }

    /// The schema of `T`, as [`schema`](crate::schema) gives it (feature
    /// `schema`), compiled. For types whose schema schemars derives it
    /// does not fail; a hand-written `JsonSchema` impl may use a keyword
    /// the decoder does not follow, named in the error.
    ///
    /// ```
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Verdict { label: String, score: f64 }
    ///
    /// let d = serde_llm::SchemaDecoder::of::<Verdict>()?;
    /// assert_eq!(d.decode("{label: 'spam', score: '0.9'}")?, serde_json::json!({"label": "spam", "score": 0.9}));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "schema")]
    pub fn of<T: schemars::JsonSchema + ?Sized>() -> std::result::Result<SchemaDecoder, SchemaError>
    {
        SchemaDecoder::new(&super::schema::<T>())
    }

    /// Decodes with `decoder`'s options (strictness, repairs and coercions
    /// allowed, depth limit, strategies, acceptance tests).
    ///
    /// ```
    /// let d = serde_llm::SchemaDecoder::new(&serde_json::json!({"type": "integer"}))?;
    /// assert_eq!(d.decode("\"42\"")?, 42);
    /// let strict = d.with_decoder(serde_llm::Decoder::strict());
    /// assert!(strict.decode("\"42\"").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_decoder(mut self, decoder: Decoder) -> SchemaDecoder {
        self.decoder = decoder;
        self
    }

    /// The decoder's options.
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// Decodes the value in `text`, coerced toward the schema (see the
    /// type's docs), then checks its bounds and formats.
    pub fn decode(&self, text: &str) -> Result<Value> {
        let listed = self.decoder.accept.is_some() || self.decoder.opts.max_repairs.is_some();
        let done = self.read(text, false, false, listed)?;
        let (decoded, _) = self.decoder.vet_result(text, done)?;
        contract(decoded)
    }

    /// [`decode`](Self::decode), and tells what was done to the text: the
    /// typed path's repairs and coercions, the defaults filled in, the keys
    /// left out.
    pub fn decode_with_report(&self, text: &str) -> Result<(Value, Report)> {
        let done = self.read(text, false, false, true)?;
        let (decoded, reading) = self.decoder.vet_result(text, done)?;
        Ok((contract(decoded)?, reading.into_report()))
    }

    /// [`decode`](Self::decode) for bytes, as [`Decoder::decode_slice`]
    /// reads them: a character cut off at the very end is dropped (the
    /// reply was cut inside it); invalid UTF-8 elsewhere is an
    /// [`ErrorKind::InvalidUtf8`](crate::ErrorKind::InvalidUtf8) error at the first bad byte.
    ///
    /// ```
    /// let d = serde_llm::SchemaDecoder::new(&serde_json::json!({"type": "array", "items": {"type": "string"}}))?;
    /// assert_eq!(d.decode_slice(b"[\"caf\xc3\xa9\", \"th\xc3")?, serde_json::json!(["café"]));
    /// assert_eq!(d.decode_slice(b"[\"a\xff\"]").unwrap_err().kind(), serde_llm::ErrorKind::InvalidUtf8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_slice(&self, bytes: &[u8]) -> Result<Value> {
        self.decode_slice_with_report(bytes).map(|(v, _)| v)
    }

    /// [`decode_slice`](Self::decode_slice), and tells what was done (a
    /// dropped character is a [`RepairKind::TruncatedValue`](crate::RepairKind::TruncatedValue) and makes the
    /// report `truncated`).
    pub fn decode_slice_with_report(&self, bytes: &[u8]) -> Result<(Value, Report)> {
        let (text, cut) =
            text::read_utf8_strict(bytes).map_err(|at| Error::invalid_utf8(bytes, at))?;
        let (value, mut report) = self.decode_with_report(text)?;
        report.mark_cut(cut);
        Ok((value, report))
    }

    /// The partial view of a reply that may still be being written (see
    /// [Partial views](#partial-views)): `None` while there is nothing to
    /// show, as [`Decoder::decode_partial`] gives for a type.
    ///
    /// ```
    /// use serde_json::json;
    ///
    /// let d = serde_llm::SchemaDecoder::new(&json!({
    ///     "type": "object",
    ///     "properties": {
    ///         "id": {"type": "integer", "x-required-for-view": true},
    ///         "title": {"type": "string"},
    ///         "body": {"type": "string", "x-partial": true}
    ///     }
    /// }))?;
    /// assert_eq!(d.decode_partial(r#"{"id": 3"#)?, None);
    /// assert_eq!(
    ///     d.decode_partial(r#"{"id": 3, "title": "Sourdough", "body": "Feed the sta"#)?,
    ///     Some(json!({"id": 3, "title": "Sourdough", "body": "Feed the sta"}))
    /// );
    /// assert_eq!(d.decode_partial(r#"{"id": 3, "title": "Sourd"#)?, Some(json!({"id": 3})));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_partial(&self, text: &str) -> Result<Option<Value>> {
        self.view(text, false).map(|v| v.map(|(value, _)| value))
    }

    /// A [`SchemaStream`] for one reply, with this decoder's schema and
    /// options.
    pub fn stream(&self) -> SchemaStream {
        let reads = Arc::new(StreamReads {
            schema: self.schema.clone(),
        });
        SchemaStream {
            decoder: self.clone(),
            inner: StreamDecoder::with_reads(self.decoder.clone(), reads),
            shown: None,
            done: false,
            owed: Vec::new(),
            cut: OnceLock::new(),
        }
    }

    /// The view of `text` and, when `track`, the paths of the values cut
    /// off.
    fn view(&self, text: &str, track: bool) -> Result<Option<(Value, Vec<Path>)>> {
        // Inside a reasoning block still open, nothing is the answer yet.
        if crate::extract::open_block(text).is_some() {
            return Ok(None);
        }
        match self.read(text, true, track, false) {
            Ok((decoded, _)) => Ok(decoded.value.map(|v| (v, decoded.cut))),
            Err(e) if e.is_nothing() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// One read of `text`: the value (or view) and what was done, the
    /// schema's own entries placed and merged into the reading (listed, or
    /// only counted).
    fn read(
        &self,
        text: &str,
        view: bool,
        track: bool,
        listed: bool,
    ) -> Result<(Decoded, Reading)> {
        // A view reads as `Decoder::decode_partial` does (see
        // `Decoder::viewing`).
        let viewing;
        let decoder = match view {
            true => {
                viewing = self.decoder.viewing();
                &viewing
            }
            false => &self.decoder,
        };
        let cx = Cx::new(&self.schema, decoder, view, track);
        let (shape, typed) = self.schema.shape();
        let root = Root {
            cx: &cx,
            id: self.schema.root,
        };
        let (mut decoded, mut reading) =
            decoder.decode_seed_as(text, root, shape, typed || view, listed)?;
        let entries = std::mem::take(&mut decoded.entries);
        if entries.is_empty() {
            return Ok((decoded, reading));
        }
        if !listed {
            reading.unlisted += entries.iter().filter(|e| e.kind.is_fix()).count();
            return Ok((decoded, reading));
        }
        let span = reading.span.clone();
        for e in entries {
            // An entry of the fast lane (serde_json says nothing of where a
            // value is): placed by its path in the valid JSON it read.
            let offset = e.offset.unwrap_or_else(|| {
                text.get(span.clone())
                    .and_then(|json| super::locate::offset(json, &e.at))
                    .map_or(span.start, |o| span.start + o)
            });
            reading.coercions.push(Coercion {
                kind: e.kind,
                path: e.path,
                offset,
                written: e.written,
                used: e.used,
            });
        }
        reading.coercions.sort_by_key(|c| c.offset);
        Ok((decoded, reading))
    }
}

/// The value, or the contract error its violations make.
fn contract(decoded: Decoded) -> Result<Value> {
    if decoded.violations.is_empty() {
        return Ok(decoded.value.unwrap_or(Value::Null));
    }
    let mut v = Violations::new();
    for (path, message) in decoded.violations {
        v.push(path, message);
    }
    Err(v.into())
}

/// A [`SchemaDecoder`]'s view of a reply as it streams: push chunks as they
/// arrive, read the view after each, finish with the whole value.
///
/// After every [`push`](Self::push) the [`view`](Self::view) is what
/// [`SchemaDecoder::decode_partial`] gives for the text so far, and
/// [`finish`](Self::finish) gives what [`SchemaDecoder::decode`] gives for
/// the whole text.
///
/// It runs on the engine [`StreamDecoder`](crate::StreamDecoder) runs on,
/// its parts read against the schema rather than as a type, so it costs
/// what `StreamDecoder` costs: a value being written is read as it arrives,
/// each complete member or element once, a string marked `x-partial` grown
/// by appending. An `anyOf` is read whole on each change inside it (which
/// alternative it is depends on all of it), and so is an array whose items
/// differ by position (`prefixItems`). A schema with a property marked
/// `x-required-for-view` is read whole on every push.
///
/// ```
/// use serde_json::json;
///
/// let d = serde_llm::SchemaDecoder::new(&json!({
///     "type": "object",
///     "properties": {
///         "path": {"type": "string"},
///         "content": {"type": "string", "x-partial": true}
///     },
///     "required": ["path", "content"]
/// }))?;
/// let mut s = d.stream();
/// s.push(r##"{"path": "notes.md", "content": "# To"##)?;
/// assert_eq!(s.view(), Some(&json!({"path": "notes.md", "content": "# To"})));
/// assert!(s.is_complete(&serde_llm::Path::root().key("path")));
/// assert!(!s.is_complete(&serde_llm::Path::root().key("content")));
/// s.push("do\\n- bread\"}")?;
/// assert_eq!(s.finish()?, json!({"path": "notes.md", "content": "# Todo\n- bread"}));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SchemaStream {
    decoder: SchemaDecoder,
    /// The stream engine, its view read against the schema (`None`
    /// inside: the schema's "nothing to show").
    inner: StreamDecoder<Option<Value>>,
    /// Once deltas are asked for: the view the deltas so far built.
    shown: Option<Value>,
    /// The deltas built was reported complete.
    done: bool,
    /// Deltas of pushes not yet returned (a plain `push`, or one that
    /// failed).
    owed: Vec<Delta>,
    /// The values of the view cut off, found by a read of the text that
    /// tracks them, once asked for (see [`is_complete`](Self::is_complete));
    /// read again after a push that may have changed them.
    cut: OnceLock<Vec<Path>>,
}

impl std::fmt::Debug for SchemaStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaStream")
            .field("decoder", &self.decoder)
            .field("text", &self.inner.text())
            .field("view", &self.view())
            .finish()
    }
}

impl SchemaStream {
    /// Adds the next chunk (`&str` or bytes, split anywhere) and updates the
    /// view. An error is what [`SchemaDecoder::decode_partial`] gives for
    /// the text so far (a complete value of the wrong type), or invalid
    /// UTF-8 (final: every later push and `finish` give it).
    pub fn push(&mut self, chunk: impl AsRef<[u8]>) -> Result<()> {
        let seen = self.inner.changes_seen();
        let got = self.inner.push(chunk);
        // The values cut off change only with the view once the value is
        // complete; else with any text.
        if self.inner.changes_seen() != seen || !self.inner.settled() {
            self.cut = OnceLock::new();
        }
        if self.shown.is_some() {
            let changes = self.inner.take_changes();
            self.deltas(changes);
        }
        got
    }

    /// [`push`](Self::push), and what changed in the view: the deltas,
    /// which build [`view`](Self::view) (as
    /// [`StreamDecoder::push_deltas`]'s build its untyped view; applied in
    /// order to `Value::Null` with [`Delta::apply`]). A value put in place
    /// or read again is `Started` with its value as it is now, a string
    /// marked `x-partial` that grew is `Appended`, and the whole value is
    /// `Completed` once [`is_complete`](Self::is_complete) says so. Each
    /// costs what changed: the view is compared whole only after a push
    /// that read the whole text. Deltas are kept from the first call of
    /// this method on (the first returns the view so far as it is); those
    /// of a push that fails come with the next that succeeds.
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use serde_llm::Delta;
    ///
    /// let d = serde_llm::SchemaDecoder::new(&json!({
    ///     "type": "object",
    ///     "properties": {"body": {"type": "string", "x-partial": true}}
    /// }))?;
    /// let mut s = d.stream();
    /// let mut built = Value::Null;
    /// for chunk in [r#"{"body": "Mix the"#, " flour", r#"."}"#] {
    ///     for delta in s.push_deltas(chunk)? {
    ///         delta.apply(&mut built);
    ///     }
    ///     assert_eq!(Some(&built), s.view());
    /// }
    /// assert_eq!(built, json!({"body": "Mix the flour."}));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push_deltas(&mut self, chunk: impl AsRef<[u8]>) -> Result<Vec<Delta>> {
        if self.shown.is_none() {
            self.shown = Some(Value::Null);
            self.inner.keep_changes();
            self.inner.take_changes();
            self.deltas(vec![Change::All]);
        }
        self.push(chunk)?;
        Ok(std::mem::take(&mut self.owed))
    }

    /// The deltas of `changes`, to the view the deltas so far built (and
    /// that view brought up to date), into `owed`.
    fn deltas(&mut self, changes: Vec<Change>) {
        let mut shown = self.shown.take().unwrap_or(Value::Null);
        let out = &mut self.owed;
        let view = self.inner.view().as_ref().and_then(Option::as_ref);
        // The values put in place so far: a string inside one grew before
        // it was put there as it is now.
        let mut put: HashSet<Vec<Segment>> = HashSet::new();
        let mut all = false;
        for change in changes {
            let delta = match change {
                Change::All => {
                    all = true;
                    break;
                }
                Change::Put(at) => {
                    let path = Path::of(&at, None);
                    let fits = fits(&shown, &at);
                    match (view.and_then(|v| self::at(v, &path)), fits) {
                        (Some(value), true) => {
                            put.insert(at);
                            Delta::Started {
                                path,
                                value: value.clone(),
                            }
                        }
                        _ => {
                            all = true;
                            break;
                        }
                    }
                }
                Change::Grew(at, text) => {
                    if (0..=at.len()).any(|n| put.contains(&at[..n])) {
                        continue;
                    }
                    let path = Path::of(&at, None);
                    if !matches!(self::at(&shown, &path), Some(Value::String(_))) {
                        all = true;
                        break;
                    }
                    Delta::Appended { path, text }
                }
            };
            delta.apply(&mut shown);
            out.push(delta);
        }
        if all {
            let now = view.cloned().unwrap_or(Value::Null);
            delta::diff(&shown, &now, false, out);
            shown = now;
            self.done = false;
        }
        self.shown = Some(shown);
        if !self.done && self.view().is_some() && self.is_complete(&Path::root()) {
            self.done = true;
            let value = self.view().cloned().unwrap_or(Value::Null);
            self.owed.push(Delta::Completed {
                path: Path::root(),
                value,
            });
        }
    }

    /// The view of the text so far: `None` while there is nothing to show.
    pub fn view(&self) -> Option<&Value> {
        self.inner.view().as_ref().and_then(Option::as_ref)
    }

    /// The text received so far.
    pub fn text(&self) -> &str {
        self.inner.text()
    }

    /// Whether the value at `path` in the view is complete (it will not
    /// change any more): shown, and not cut off at the end of the text so
    /// far. `false` for a path not in the view. While a value is read as
    /// it arrives, the stream knows which values are open; else (the whole
    /// text read on each push, a value complete with text after it) a read
    /// of the text that tracks them says, once per change of the view. A
    /// list gathered from objects one after another (JSON lines) is never
    /// complete before [`finish`](Self::finish): another may follow. A
    /// value found in prose is complete once its text is, though a better
    /// candidate later in the reply (a fence after it) may still take its
    /// place, as it would in a decode of the longer text.
    pub fn is_complete(&self, path: &Path) -> bool {
        let Some(view) = self.view() else {
            return false;
        };
        if at(view, path).is_none() {
            return false;
        }
        if let Some(open) = self.inner.open_paths() {
            let at = path.segments();
            if open.iter().any(|(o, _)| o.starts_with(at)) {
                return false;
            }
            // Inside a node whose open part is not known: read.
            if !open.iter().any(|(o, own)| !own && at.starts_with(o)) {
                return true;
            }
        }
        let cut = self
            .cut
            .get_or_init(|| match self.decoder.view(self.text(), true) {
                Ok(Some((_, cut))) => cut,
                // Nothing shown: nothing is asked about.
                _ => vec![Path::root()],
            });
        !cut.iter().any(|cut| cut.starts_with(path))
    }

    /// Decodes the whole reply: what [`SchemaDecoder::decode`] gives for
    /// it.
    pub fn finish(self) -> Result<Value> {
        if let Some(e) = self.inner.broken() {
            return Err(e);
        }
        // (A character cut off at the very end changes only the report.)
        self.decoder.decode(self.inner.text())
    }

    /// [`finish`](Self::finish), and what was done to the text (a
    /// character cut off at the very end is dropped, as truncation).
    pub fn finish_with_report(self) -> Result<(Value, Report)> {
        if let Some(e) = self.inner.broken() {
            return Err(e);
        }
        let (value, mut report) = self.decoder.decode_with_report(self.inner.text())?;
        if self.inner.cut_char() {
            report.mark_cut(Some(self.inner.text().len()));
        }
        Ok((value, report))
    }
}

/// How a [`SchemaStream`]'s engine reads its view: against the schema.
struct StreamReads {
    schema: Arc<Compiled>,
}

impl Reads<Option<Value>> for StreamReads {
    fn shape(&self) -> Shape {
        self.schema.shape().0
    }

    /// What [`SchemaDecoder::decode_partial`] reads.
    fn whole(&self, decoder: &Decoder, text: &str) -> Result<(Option<Value>, Reading)> {
        let cx = Cx::new(&self.schema, decoder, true, false);
        let root = Root {
            cx: &cx,
            id: self.schema.root,
        };
        let (decoded, reading) = decoder.decode_seed_as(text, root, self.shape(), true, false)?;
        Ok((decoded.value, reading))
    }

    /// The part read with the containers around it (and the tags written
    /// in them), its tags left out: the view holds the part alone on its
    /// path, as a typed part holds it.
    fn part(
        &self,
        decoder: &Decoder,
        text: &PartText<'_>,
        part: Around<'_>,
        spare: &mut Spare,
    ) -> Result<Option<Value>> {
        let cx = Cx::new(&self.schema, decoder, true, false);
        let root = Root {
            cx: &cx,
            id: self.schema.root,
        };
        let mut read = decoder.part_seed(text, part.around, spare, root)?.value;
        let mut at = read.as_mut();
        for tag in part.tags {
            at = match at {
                Some(Value::Object(m)) => {
                    if let Some(tag) = tag {
                        m.remove(*tag);
                    }
                    m.values_mut().next()
                }
                Some(Value::Array(a)) => a.last_mut(),
                _ => break,
            };
        }
        Ok(read)
    }

    fn kind_at(&self, view: &Option<Value>, route: &[Route]) -> GrowKind {
        self.schema.grows_at(view.as_ref(), route)
    }

    /// A part is read from the root: a node's own read would need its
    /// schema node, not a type.
    fn local(&self) -> bool {
        false
    }

    fn locate(&self, view: &Option<Value>, route: &[Route]) -> Option<Vec<Segment>> {
        let mut at = view.as_ref()?;
        let mut path = Vec::with_capacity(route.len());
        for step in route {
            at = match (step, at) {
                (Route::Key(k), Value::Object(m)) => {
                    path.push(Segment::Key(k.as_str().into()));
                    m.get(k)?
                }
                (Route::Last, Value::Array(a)) => {
                    path.push(Segment::Index(a.len().checked_sub(1)?));
                    a.last()?
                }
                _ => return None,
            };
        }
        Some(path)
    }

    /// A property marked `x-required-for-view` hides its object until it
    /// is complete, whatever of the object a part holds: such a schema's
    /// view is read whole.
    fn live(&self) -> bool {
        !self.schema.required_for_view()
    }
}

/// Whether a value can be put at `path` in `v` (see [`Delta::apply`]): its
/// object is there, or its list, holding the elements before it.
fn fits(v: &Value, path: &[Segment]) -> bool {
    let Some((last, outer)) = path.split_last() else {
        return true;
    };
    match (last, at(v, &Path::of(outer, None))) {
        (Segment::Key(_), Some(Value::Object(_))) => true,
        (Segment::Index(i), Some(Value::Array(a))) => *i <= a.len(),
        _ => false,
    }
}

/// The value at `path` in `v`.
fn at<'v>(v: &'v Value, path: &Path) -> Option<&'v Value> {
    path.segments().iter().try_fold(v, |v, seg| match seg {
        crate::Segment::Key(k) => v.as_object()?.get(&**k),
        crate::Segment::Index(i) => v.as_array()?.get(*i),
    })
}

#[cfg(feature = "schema")]
impl Decoder {
    /// Decodes into `T` through `T`'s JSON Schema: the reply is decoded
    /// against the schema (as [`SchemaDecoder::of`] compiles it; once per
    /// type, then kept), and `T` is read from the value that gives.
    ///
    /// When to use it: where serde reads `T` from content it buffers rather
    /// than through the decoder — internally tagged enums (a tool call
    /// tagged by its name), untagged enums, and structs with a
    /// `#[serde(flatten)]` field. [`decode`](Self::decode) coerces only a
    /// member's scalar there (read again as the kind serde's error names).
    /// Through the schema every part is read by the decoder, so an object
    /// where a string is wanted in a tool call is its text, an untagged
    /// enum takes the variant that needed the fewest coercions, and a
    /// variant's tag written in another style is found. For other
    /// types [`decode`](Self::decode) gives the same value, faster (no
    /// value is built on the way). The schema's bounds and formats are
    /// checked as well (an [`ErrorKind::Contract`](crate::ErrorKind::Contract) error), and a key a
    /// struct with `deny_unknown_fields` does not have is left out and
    /// reported rather than refused (unless [`Decoder::strict`]).
    ///
    /// ```
    /// #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    /// #[serde(tag = "tool", rename_all = "snake_case")]
    /// enum Call {
    ///     Search { query: String, max_results: u32 },
    ///     Stop,
    /// }
    ///
    /// let reply = r#"{"tool": "search", "query": {"all": ["serde", "llm"]}, "max_results": "4"}"#;
    /// // serde reads the variant's fields from its buffer: an object is no
    /// // string there.
    /// assert!(serde_llm::from_llm_str::<Call>(reply).is_err());
    /// let call: Call = serde_llm::Decoder::new().decode_aligned(reply)?;
    /// let query = r#"{"all":["serde","llm"]}"#.to_owned();
    /// assert_eq!(call, Call::Search { query, max_results: 4 });
    /// # Ok::<(), serde_llm::Error>(())
    /// ```
    pub fn decode_aligned<T>(&self, text: &str) -> Result<T>
    where
        T: schemars::JsonSchema + serde::de::DeserializeOwned + 'static,
    {
        self.decode_aligned_with_report(text).map(|(v, _)| v)
    }

    /// [`decode_aligned`](Self::decode_aligned), and tells what was done to
    /// the text.
    pub fn decode_aligned_with_report<T>(&self, text: &str) -> Result<(T, Report)>
    where
        T: schemars::JsonSchema + serde::de::DeserializeOwned + 'static,
    {
        let schema = compiled::<T>()?;
        let d = SchemaDecoder {
            schema,
            decoder: self.clone(),
        };
        let (value, report) = d.decode_with_report(text)?;
        let value = T::deserialize(value).map_err(|e| {
            Error::new(
                ErrorKind::Data,
                format_args!(
                    "the value decoded against `{}`'s schema: {e}",
                    std::any::type_name::<T>()
                ),
            )
        })?;
        Ok((value, report))
    }
}

/// `T`'s compiled schema, compiled once per type.
#[cfg(feature = "schema")]
fn compiled<T: schemars::JsonSchema + 'static>() -> Result<Arc<Compiled>> {
    use std::any::TypeId;
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};

    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<Compiled>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(c) = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&TypeId::of::<T>())
    {
        return Ok(c.clone());
    }
    let d = SchemaDecoder::of::<T>().map_err(|e| {
        Error::new(
            ErrorKind::Data,
            format_args!(
                "`{}`'s JSON Schema cannot be followed: {e}",
                std::any::type_name::<T>()
            ),
        )
    })?;
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(TypeId::of::<T>(), d.schema.clone());
    Ok(d.schema)
}
