//! Decode what a language model actually replies into typed Rust values.
//!
//! Models wrap JSON in prose and markdown fences, make the usual syntax
//! mistakes, and get cut off mid-stream. `serde_llm` finds the value
//! (extraction), repairs and completes it (a tolerant scanner), and decodes it
//! through one `serde::Deserializer`, so any `T: Deserialize` works:
//!
//! ```
//! #[derive(Debug, PartialEq, serde::Deserialize)]
//! struct Verdict {
//!     label: String,
//!     score: f64,
//!     reasons: Vec<String>,
//! }
//!
//! let reply = "Sure! Here is the JSON you asked for:\n```json\n\
//!     {label: 'spam', score: 0.93, reasons: [\"all caps\", \"3 links\",],}\n```\n\
//!     Let me know if you need anything else.";
//! let v: Verdict = serde_llm::from_llm_str(reply)?;
//! assert_eq!(v.label, "spam");
//! assert_eq!(v.reasons, ["all caps", "3 links"]);
//! # Ok::<(), serde_llm::Error>(())
//! ```
//!
//! # Map
//!
//! | to | use |
//! | --- | --- |
//! | decode a reply into `T` | [`from_llm_str`], [`from_llm_slice`] (bytes), [`Decoder`] (options) |
//! | know what was done to it | [`Decoder::decode_with_report`]: a [`Report`] of the [`Strategy`] that found it, each [`Repair`] and [`Coercion`] |
//! | set the policy | [`Decoder::strict`], [`allow`](Decoder::allow) and [`deny`](Decoder::deny) each [`Fix`], [`max_repairs`](Decoder::max_repairs), [`accept_if`](Decoder::accept_if), [`max_depth`](Decoder::max_depth), [`lossy`](Decoder::lossy) |
//! | check what the type cannot say, and ask again | [`Contract`], [`from_llm_str_checked`], [`Error::feedback`] |
//! | the value as JSON text | [`repair`], [`Decoder::repair_with_report`] |
//! | read a reply that was cut off | [`partial`] (a field that takes its value so far) |
//! | show a reply while it is written | [`derive@Partial`], [`from_llm_str_partial`], [`StreamDecoder`] ([`Streamable`]), [`Delta`], [`DeltaStream`] |
//! | ask for the shape | [`prompt`], [`schema()`], [`openai_schema`], [`anthropic_schema`] (feature `schema`) |
//! | decode against a JSON Schema known at run time | [`SchemaDecoder`], [`SchemaStream`], [`Decoder::decode_seed`] |
//! | all of it from a shell | the `serde-llm` command (crate `serde_llm_cli`) |
//!
//! Each part, with an example, follows; then the [features](#features), what
//! is [found, repaired and coerced](#found-repaired-coerced), and the
//! [limits](#limits).
//!
//! # Decode
//!
//! [`from_llm_str`] uses the default [`Decoder`]: every extraction strategy,
//! every repair, the usual coercions. Valid JSON decodes to what
//! `serde_json` gives (it is handed to `serde_json` itself), with one
//! difference by design: a key written in another case or style fills the
//! field it names, where `serde_json` ignores the member (and leaves an
//! `Option` field `None`). The report lists it as a coercion, and
//! [`Decoder::strict`] gives `serde_json`'s answer:
//!
//! ```
//! #[derive(Debug, PartialEq, serde::Deserialize)]
//! struct User {
//!     user_name: Option<String>,
//! }
//!
//! let reply = r#"{"userName": "ada"}"#;
//! let theirs: User = serde_json::from_str(reply).unwrap();
//! assert_eq!(theirs.user_name, None);
//! let (ours, report) = serde_llm::Decoder::new().decode_with_report::<User>(reply)?;
//! assert_eq!(ours.user_name.as_deref(), Some("ada"));
//! assert_eq!(report.coercions[0].kind, serde_llm::CoercionKind::FieldName);
//! let strict: User = serde_llm::Decoder::strict().decode(reply)?;
//! assert_eq!(strict, theirs);
//! # Ok::<(), serde_llm::Error>(())
//! ```
//!
//! A decoder can refuse a reply that needed too much, so the model can be
//! asked again: [`Error::feedback`] is that request, each problem by its
//! JSON path or its line and column.
//!
//! ```
//! use serde_llm::{CoercionKind, Decoder, ErrorKind};
//!
//! #[derive(Debug, serde::Deserialize)]
//! struct Point { x: i32, y: i32 }
//!
//! let d = Decoder::new().deny(CoercionKind::OneToSequence).max_repairs(3);
//! let err = d.decode::<Vec<Point>>("[{x: 1, y: 2,}, {x: 3, y: '4'}]").unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Rejected);
//! assert_eq!(err.report().unwrap().fixes(), 7);
//! assert!(err.feedback().starts_with("line 1, column 3: a key without quotes"));
//! ```
//!
//! # Repair
//!
//! [`repair`] gives the recovered value as compact JSON text, member order
//! and number spelling kept: the untyped job `json_repair` and `jsonrepair`
//! do. [`Report::display`] shows what was done, for a person:
//!
//! ```
//! let reply = "Sure:\n```json\n{n: 1, tags: ['a',], next: [[[\n```";
//! let (json, report) = serde_llm::Decoder::new().repair_with_report(reply)?;
//! assert_eq!(json, r#"{"n":1,"tags":["a"],"next":[[[]]]}"#);
//! assert_eq!(
//!     report.display(reply).to_string(),
//!     "strategy: fence, bytes 14..44 (line 3, column 1 to line 3, column 30)\n\
//!      repairs: 9\n\
//!      \x20 line 3, column 2: a key without quotes (near: Sure: ```json {n: 1, tags: ['a',],)\n\
//!      \x20 line 3, column 8: a key without quotes (near: ure: ```json {n: 1, tags: ['a',], next:)\n\
//!      \x20 line 3, column 15: a string not in double quotes (near: `json {n: 1, tags: ['a',], next: [[[ ```)\n\
//!      \x20 line 3, column 18: a trailing comma (near: on {n: 1, tags: ['a',], next: [[[ ```)\n\
//!      \x20 line 3, column 22: a key without quotes (near: n: 1, tags: ['a',], next: [[[ ```)\n\
//!      \x20 line 3, column 31: an unclosed string, object or array (the text ends too early), 4 times (near: s: ['a',], next: [[[ ```)\n\
//!      coercions: 0\n\
//!      truncated: yes (the value was cut off and completed)\n"
//! );
//! # Ok::<(), serde_llm::Error>(())
//! ```
//!
//! # Partial and streaming
//!
//! A reply is only ever cut off at its end. A typed decode takes a cut value
//! only where the type says it may ([`partial`]); everywhere else a cut value
//! stands as missing, never as a value cut short. For a reply shown while it
//! is written, [`derive@Partial`] generates `T`'s view, every field an
//! `Option`, and [`StreamDecoder`] keeps that view up to date as chunks
//! arrive, in time linear in the reply:
//!
//! ```
//! use serde_llm::{Partial, StreamDecoder};
//!
//! #[derive(Debug, serde::Deserialize, Partial)]
//! struct Answer {
//!     #[llm(required)]
//!     id: u64,
//!     #[llm(partial)]
//!     body: String,
//! }
//!
//! let view = serde_llm::from_llm_str_partial::<Answer>(r#"{"id": 3, "body": "Feed the sta"#)?;
//! assert_eq!(view.unwrap().body.as_deref(), Some("Feed the sta"));
//!
//! let mut dec = StreamDecoder::<Answer>::new();
//! dec.push(r#"Here: {"id": 3, "body": "Feed"#)?;
//! assert_eq!(dec.view().as_ref().unwrap().body.as_deref(), Some("Feed"));
//! dec.push(r#" the starter."}"#)?;
//! assert_eq!(dec.finish()?.body, "Feed the starter.");
//! # Ok::<(), serde_llm::Error>(())
//! ```
//!
//! [`StreamDecoder::push_deltas`] also keeps the untyped view and returns
//! [`Delta`]s (what changed, by JSON [`Path`]); a decoder that never asks
//! for them builds neither. [`DeltaStream`] drives a decoder from an async
//! stream of chunks. The partial policy, exactly, is in the [`partial`] module.
//!
//! # Schemas and prompts
//!
//! With the feature `schema`, the type you decode into also writes the format
//! instructions ([`prompt`]) and the schemas providers take
//! ([`openai_schema`] for strict structured outputs, [`anthropic_schema`] for
//! a tool's `input_schema`), from its `schemars::JsonSchema`:
//!
//! ```
//! # #[cfg(feature = "schema")] {
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Verdict {
//!     /// Between 0 and 1.
//!     score: f64,
//!     note: Option<String>,
//! }
//!
//! assert_eq!(serde_llm::prompt::<Verdict>(), "Answer with one JSON value in this shape:
//! {
//!   \"score\": number, // Between 0 and 1.
//!   \"note\"?: string | null
//! }");
//! let s = serde_llm::openai_schema::<Verdict>().unwrap();
//! assert_eq!(s["required"], serde_json::json!(["score", "note"]));
//! # }
//! ```
//!
//! # Runtime schemas
//!
//! [`SchemaDecoder`] runs the same decode, partial view and stream
//! ([`SchemaStream`]) against a JSON Schema known only at run time (a tool's
//! `inputSchema` from MCP, a gateway's configuration): the schema drives the
//! Deserializer as a type does, so coercions, repairs, reports and errors
//! are the typed path's.
//!
//! ```
//! use serde_json::json;
//!
//! let tool = serde_llm::SchemaDecoder::new(&json!({
//!     "type": "object",
//!     "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
//!     "required": ["query"]
//! }))?;
//! assert_eq!(tool.decode("{query: 'rust', limit: '5'}")?, json!({"query": "rust", "limit": 5}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Command line
//!
//! The crate `serde_llm_cli` installs `serde-llm`, the same decoder from a
//! shell (`cargo install --locked serde_llm_cli`, or `--path cli` in a
//! clone):
//!
//! ```text
//! $ echo "{name: 'Ada', tags: ['x',],}" | serde-llm repair
//! {"name":"Ada","tags":["x"]}
//! $ printf 'Sure:\n```json\n{"a": 1,}\n```' | serde-llm extract
//! {"a": 1,}
//! $ printf '{"a": "x", "b": [1, 2' | serde-llm stream
//! {"a":"x","b":[1]}
//! {"a":"x","b":[1,2]}
//! ```
//!
//! # Features
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `schema` | [`schema()`], [`openai_schema`], [`anthropic_schema`], [`prompt`] (through schemars 1) |
//! | `futures` | [`DeltaStream`], a [`StreamDecoder`] over a `futures_core::Stream` of chunks |
//! | `chrono`, `time`, `uuid`, `rust_decimal`, `url` | [`Partial`](trait@Partial) for those crates' types: the value itself, shown once complete (`time`'s types read a JSON string only with time's own `serde-human-readable`: see [`Partial`](trait@Partial)) |
//!
//! None is on by default. The library needs Rust 1.82 with default features;
//! `time` and `url` need 1.88 and `uuid` 1.89 with the newest versions of
//! those crates (older ones hold 1.82: see the README).
//!
//! <a id="found-repaired-coerced"></a>
//! # What is found, repaired and coerced
//!
//! - **Found**: the reply is searched for its value in a fixed order (the
//!   whole reply, fences, tags, balanced spans in prose, a span cut off at
//!   the end), reasoning blocks skipped, and prose is never a value: see
//!   [`Strategy`].
//! - **Repaired**: over forty kinds of mistake, each recorded with its byte
//!   offset: see [`RepairKind`] (the table of what models write and what it
//!   becomes).
//! - **Coerced**: where `T` wants one type and the reply wrote another that
//!   plainly means it (`"42"` for a number, `"yes"` for a bool, one value
//!   for a list): see [`CoercionKind`].
//!
//! `T` is anything serde can describe: derived structs and enums (every
//! representation), `serde_json::Value`, maps, tuples, `Option`, newtypes,
//! `flatten`, `default`, renames and aliases, `i128`/`u128`, and borrowed
//! `&'de str` / `Cow<'de, str>` fields (zero-copy when the string needed no
//! unescaping or repair). Bad input never panics, hangs or overflows the
//! stack: nesting is limited (default 128, [`Decoder::max_depth`]), and the
//! crate is fuzzed.
//!
//! # Limits
//!
//! - serde reads internally and adjacently tagged enums (tool calls),
//!   untagged enums and `flatten`ed fields from content it buffers, without
//!   asking the decoder for a type. A member's scalar serde fails on is
//!   read again as the kind its error names (`"4"` where a `u32` is
//!   wanted), up to 64 such values per reply; an object or a list where a
//!   scalar is wanted, and untagged enums' values, are not coerced, and a
//!   cut value there stands as missing (see [`partial`] for the details).
//!   Externally tagged enums are coerced as structs are.
//! - JSON written inside a string is decoded (and repaired), then read as it
//!   is: its own values are not coerced, nor its keys matched in another
//!   style.
//! - serde lists a field's aliases right after its name, and that is how a
//!   key in another style is told from an ambiguous one: two *different*
//!   fields whose names differ only in case or style (`user_name`, then
//!   `username`) and are declared one after the other are taken as one field
//!   and its alias.
//! - Duplicate keys are passed on as written: serde's derived structs reject
//!   them, `serde_json::Value` keeps the last.
//! - A number beyond `f64` (`1e999`) is an error when decoded, and kept as
//!   written by [`repair`].
//! - Nesting deeper than the depth limit is an error, not truncated.
//! - A scalar target reads prose only in a short reply (at most 2,000
//!   bytes, with no `{` but a placeholder's, `Hello {name}!`): an essay
//!   that happens to hold one number is not that number.
//! - Telling a citation from a value is a heuristic: a bracketed small
//!   number (`[2]`) right after a value on its line is a citation for every
//!   target; right after a word, before a lower-case word, or beside other
//!   such brackets, for an untyped target; after a colon or on its own line
//!   it is a value. A bracket in quotes in prose (`Use '{' to open`) is a
//!   character named.
//! - Of two values in the prose, neither marked by a fence or tag, the
//!   first wins unless the other needed fewer real repairs. How a value is
//!   spelled (single quotes, bare keys, comments, Python's `True`) is no
//!   repair here, so a mention before the answer wins:
//!   `Note {a: 1} is wrong; correct: {"a": 2}` gives `{"a": 1}`.
//! - A scalar in a fence tagged with a language of code (```` ```python ````,
//!   ```` ```javascript ````) is code, not the answer, unless that fence is
//!   the whole reply: `"done"` in such a fence after a line of prose is no
//!   value.
//! - An empty `[]` or `{}` in quotes or inline code in the prose
//!   (``Return `[]` if none. Result: [1, 2]``) gives way to any other
//!   value, and is the answer only alone; so ``Result: `[]`. Other: [1]``
//!   gives `[1]`. Named without quotes (`Use {} when there is nothing.
//!   Here: {"a": 1}`), it is still taken for the answer.
//!
// Links to the items of optional features: to the item when it is there,
// else to the section that names its feature (after the blank line above:
// a link definition cannot interrupt a paragraph).
#![cfg_attr(
    feature = "schema",
    doc = "[`prompt`]: crate::prompt\n[`schema()`]: crate::schema()\n\
           [`openai_schema`]: crate::openai_schema\n[`anthropic_schema`]: crate::anthropic_schema"
)]
#![cfg_attr(
    not(feature = "schema"),
    doc = "[`prompt`]: #schemas-and-prompts\n[`schema()`]: #schemas-and-prompts\n\
           [`openai_schema`]: #schemas-and-prompts\n[`anthropic_schema`]: #schemas-and-prompts"
)]
#![cfg_attr(feature = "futures", doc = "[`DeltaStream`]: crate::DeltaStream")]
#![cfg_attr(not(feature = "futures"), doc = "[`DeltaStream`]: #features")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod choose;
mod coerce;
mod contract;
mod de;
mod decoder;
mod error;
mod extract;
mod options;
pub mod partial;
mod policy;
mod prose;
mod report;
mod scan;
mod schema;
mod shape;
mod stream;
mod text;
mod watch;
mod work;
mod write;

pub use contract::{Contract, Violation, Violations};
pub use error::{Error, ErrorKind, Result};
pub use extract::Candidate;
pub use options::Decoder;
pub use partial::{Allow, Partial, View};
#[cfg(feature = "schema")]
pub use schema::{anthropic_schema, openai_schema, prompt, schema};
pub use schema::{SchemaDecoder, SchemaError, SchemaOptions, SchemaStream};
pub use serde_llm_derive::Partial;
#[cfg(feature = "futures")]
pub use stream::futures::{DeltaStream, StreamError};
pub use stream::{Delta, Path, Segment, StreamDecoder, Streamable};
pub use text::Utf8Text;

/// What generated code uses. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::de::located;
    pub use crate::de::tagged::read as tagged;
    pub use crate::partial::grow;
    pub use crate::partial::private::{atomic_field, field, partial_field, read_seed};
    pub use serde;

    /// A view of `V` put in place from its own text, when `V` can be read
    /// on its own ([`PlaceOwned`]), else nothing ([`PlaceNone`]): chosen
    /// by method resolution (`(&mut Placer(v)).place_in(cx)`), so that a
    /// derived view whose field type has no view fails once, at that
    /// field, and not again here.
    pub struct Placer<'a, V>(pub &'a mut V);

    /// See [`Placer`].
    pub trait PlaceOwned {
        /// Puts the value read from `cx` in place.
        fn place_in(&mut self, cx: &mut grow::Local<'_>) -> bool;
    }

    impl<V: crate::View + serde::de::DeserializeOwned> PlaceOwned for Placer<'_, V> {
        fn place_in(&mut self, cx: &mut grow::Local<'_>) -> bool {
            cx.place(self.0)
        }
    }

    /// See [`Placer`].
    pub trait PlaceNone {
        /// Places nothing.
        fn place_in(&mut self, cx: &mut grow::Local<'_>) -> bool;
    }

    impl<V> PlaceNone for &mut Placer<'_, V> {
        fn place_in(&mut self, _: &mut grow::Local<'_>) -> bool {
            false
        }
    }

    /// The bytes the decoder examined on this thread so far (extraction
    /// passes and candidate scans): a deterministic measure of work, for
    /// tests that check it stays linear in a reply's length.
    pub fn work() -> u64 {
        crate::work::total()
    }

    /// For the fuzz target `resume`: whether the tolerant scanner, resumed
    /// over `text` fed in pieces ending at `cuts` (ascending offsets on
    /// char boundaries), reads it as one read of the whole does, and reads
    /// each piece's view as one read of the text so far. `Err` says where
    /// they differ.
    pub fn resumed_scan_agrees(text: &str, cuts: &[usize]) -> Result<(), String> {
        crate::scan::resume::agrees_in_pieces(text, cuts)
    }

    /// A stream's scan of `text`, a reply's value, pushed in pieces of
    /// `piece` bytes with a view's tail read (and taken back) after each:
    /// the engine's own cost to a stream, for the benchmarks
    /// (`benches/stream`, path `e`). Returns the size of the tape.
    pub fn resumed_scan_in_pieces(text: &str, piece: usize) -> usize {
        crate::scan::resume::streamed(text, piece)
    }

    /// Whether `text` opens with a reasoning block that has not closed: a
    /// view of it shows nothing (for a binding's own partial views, built
    /// with [`Decoder::allow_partial`](crate::Decoder::allow_partial)).
    pub fn in_open_reasoning_block(text: &str) -> bool {
        crate::extract::open_block(text).is_some()
    }
}
pub use report::listed::Repair;
pub use report::{
    Coercion, CoercionKind, Fix, RepairKind, Report, ReportDisplay, Strategy, UnknownKind,
};

/// Decodes the value in a model's reply into `T`: extracts it from prose or
/// fences, repairs it, completes it if it was cut off, and deserializes it.
///
/// Strings that needed no unescaping or repair are borrowed from `text`, so
/// `T` may hold `&str` fields.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Answer<'a> { city: &'a str, population: u64 }
///
/// let a: Answer = serde_llm::from_llm_str("The answer: {\"city\": \"Lyon\", \"population\": 522250}")?;
/// assert_eq!((a.city, a.population), ("Lyon", 522250));
/// # Ok::<(), serde_llm::Error>(())
/// ```
pub fn from_llm_str<'de, T: serde::Deserialize<'de>>(text: &'de str) -> Result<T> {
    Decoder::new().decode(text)
}

/// Decodes into `T` like [`from_llm_str`], then runs `T`'s [`Contract`]
/// check: a value that breaks it is an [`ErrorKind::Contract`] error whose
/// [`Error::feedback`] lists every violation with its JSON path.
///
/// ```
/// use serde_llm::{Contract, Violations};
///
/// #[derive(Debug, serde::Deserialize)]
/// struct Rating { stars: u8 }
///
/// impl Contract for Rating {
///     fn check(&self) -> Result<(), Violations> {
///         let mut v = Violations::new();
///         v.expect((1..=5).contains(&self.stars), "$.stars", "1 to 5 stars", &self.stars);
///         v.into_result()
///     }
/// }
///
/// assert_eq!(serde_llm::from_llm_str_checked::<Rating>(r#"{"stars": "4"}"#)?.stars, 4);
/// let err = serde_llm::from_llm_str_checked::<Rating>(r#"{"stars": 9}"#).unwrap_err();
/// assert_eq!(err.feedback(), "$.stars: expected 1 to 5 stars, got 9");
/// # Ok::<(), serde_llm::Error>(())
/// ```
pub fn from_llm_str_checked<'de, T: serde::Deserialize<'de> + Contract>(
    text: &'de str,
) -> Result<T> {
    Decoder::new().decode_checked(text)
}

/// Decodes a reply that may still be being written (or was cut off) into
/// `T`'s partial view: each field holds its value once it is complete, or as
/// far as it goes if it is marked `#[llm(partial)]`. `None` while there is
/// nothing to show yet: no value has started, a reasoning block at the
/// start (`<think>`) has not closed (what is inside it is not the answer;
/// only a finished reply whose block never closed is read from its
/// content), or a field marked `#[llm(required)]` is not complete.
///
/// ```
/// use serde_llm::Partial;
///
/// #[derive(serde::Deserialize, Partial)]
/// struct Answer {
///     #[llm(required)]
///     id: u64,
///     title: String,
///     #[llm(partial)]
///     body: String,
/// }
///
/// let view = serde_llm::from_llm_str_partial::<Answer>(r#"{"id": 3, "title": "Sourdough", "body": "Feed the sta"#)?
///     .expect("the id is complete");
/// assert_eq!(view.id, Some(3));
/// assert_eq!(view.title.as_deref(), Some("Sourdough"));
/// assert_eq!(view.body.as_deref(), Some("Feed the sta"));
///
/// // Until the id is complete there is no view at all.
/// assert!(serde_llm::from_llm_str_partial::<Answer>(r#"{"id": 3"#)?.is_none());
/// # Ok::<(), serde_llm::Error>(())
/// ```
pub fn from_llm_str_partial<'de, T>(text: &'de str) -> Result<Option<T::View>>
where
    T: Partial,
    T::View: serde::Deserialize<'de> + View,
{
    Decoder::new().decode_partial::<T>(text)
}

/// [`from_llm_str`] for bytes. Invalid UTF-8 is an error with its offset,
/// never a panic.
///
/// ```
/// let n: Vec<u8> = serde_llm::from_llm_slice(b"[1, 2, 3,]")?;
/// assert_eq!(n, [1, 2, 3]);
/// let err = serde_llm::from_llm_slice::<Vec<u8>>(b"[1, \xff]").unwrap_err();
/// assert_eq!(err.kind(), serde_llm::ErrorKind::InvalidUtf8);
/// assert_eq!(err.offset(), Some(4));
/// # Ok::<(), serde_llm::Error>(())
/// ```
pub fn from_llm_slice<'de, T: serde::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    Decoder::new().decode_slice(bytes)
}

/// Recovers the value in a model's reply as compact JSON text, member order
/// kept — the untyped job that `json_repair` and `jsonrepair` do.
///
/// ```
/// let fixed = serde_llm::repair("{name: 'Ada', langs: ['en', 'fr',], // done\n")?;
/// assert_eq!(fixed, r#"{"name":"Ada","langs":["en","fr"]}"#);
/// # Ok::<(), serde_llm::Error>(())
/// ```
pub fn repair(text: &str) -> Result<String> {
    Decoder::new().repair(text)
}

// The README's examples run as doctests; one needs the `schema` feature (the
// README's test command, `cargo test --workspace --all-features`, turns it on).
#[doc = include_str!("../README.md")]
#[cfg(all(doctest, feature = "schema"))]
pub struct ReadmeDoctests;
