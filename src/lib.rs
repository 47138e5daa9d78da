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
//! [`repair`] gives the recovered value as JSON text instead, and
//! [`Decoder::decode_with_report`] tells what was repaired.
//!
//! Valid JSON decodes to what `serde_json` gives, with one difference by
//! design: a key written in another case or style fills the field it names,
//! where `serde_json` ignores the member (and leaves an `Option` field
//! `None`). The report lists it as a coercion, and [`Decoder::strict`] gives
//! `serde_json`'s answer:
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

#![deny(missing_docs)]

mod choose;
mod coerce;
mod contract;
mod de;
mod decoder;
mod error;
mod extract;
pub mod partial;
mod policy;
mod prose;
mod report;
mod scan;
#[cfg(feature = "schema")]
mod schema;
mod shape;
mod stream;
mod watch;
mod work;
mod write;

pub use contract::{Contract, Violation, Violations};
pub use decoder::{Candidate, Decoder};
pub use error::{Error, ErrorKind, Result};
pub use partial::{Allow, Partial, View};
#[cfg(feature = "schema")]
pub use schema::{anthropic_schema, openai_schema, prompt, schema, SchemaError};
pub use serde_llm_derive::Partial;
#[cfg(feature = "futures")]
pub use stream::futures::{DeltaStream, StreamError};
pub use stream::{Delta, Path, Segment, StreamDecoder};

/// What generated code uses. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::partial::grow;
    pub use crate::partial::private::{atomic_field, field, partial_field};
    pub use serde;

    /// The bytes the decoder examined on this thread so far (extraction
    /// passes and candidate scans): a deterministic measure of work, for
    /// tests that check it stays linear in a reply's length.
    pub fn work() -> u64 {
        crate::work::total()
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
/// nothing to show yet: no value has started, or a field marked
/// `#[llm(required)]` is not complete.
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
