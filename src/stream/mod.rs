//! Decoding a reply as it streams: [`StreamDecoder`].
//!
//! The invariant: after every [`push`](StreamDecoder::push) the typed view is
//! what [`from_llm_str_partial`](crate::from_llm_str_partial) gives for the
//! text so far, the untyped view is what the deltas so far build, and
//! [`finish`](StreamDecoder::finish) gives what
//! [`from_llm_str`](crate::from_llm_str) gives for the whole text.

mod delta;

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use delta::{Delta, Path, Segment};

use crate::error::{Error, ErrorKind, Result};
use crate::partial::{Allow, Partial, View};
use crate::report::Report;
use crate::shape::Shape;
use crate::{Contract, Decoder};

/// Decodes a reply as it arrives, chunk by chunk, keeping `T`'s partial view
/// up to date and telling what changed.
///
/// ```
/// use serde_llm::{Partial, StreamDecoder};
///
/// #[derive(Debug, PartialEq, serde::Deserialize, Partial)]
/// struct Answer {
///     title: String,
///     #[llm(partial)]
///     body: String,
/// }
///
/// let mut dec = StreamDecoder::<Answer>::new();
/// for chunk in ["Here you go:\n```json\n{\"title\": \"Bread\", \"bo", "dy\": \"Mix the fl", "our.\"}\n```"] {
///     dec.push(chunk)?;
/// }
/// # let mut dec2 = StreamDecoder::<Answer>::new();
/// # dec2.push("Here you go:\n```json\n{\"title\": \"Bread\", \"body\": \"Mix the fl")?;
/// # let view = dec2.view().as_ref().unwrap();
/// # assert_eq!(view.body.as_deref(), Some("Mix the fl"));
/// let answer = dec.finish()?;
/// assert_eq!(answer, Answer { title: "Bread".into(), body: "Mix the flour.".into() });
/// # Ok::<(), serde_llm::Error>(())
/// ```
///
/// Chunks may split the text anywhere, even inside a UTF-8 character.
/// A decoder is `Send` when `T`'s view is.
pub struct StreamDecoder<T: Partial> {
    decoder: Decoder,
    /// The untyped view's decoder: the same options, with numbers and
    /// literals shown only once complete.
    untyped: Decoder,
    text: String,
    /// The start of a UTF-8 sequence whose last bytes have not arrived.
    tail: Vec<u8>,
    view: Option<T::View>,
    value: Value,
    /// The value is complete.
    done: bool,
    _target: PhantomData<fn() -> T>,
}

impl<T> Default for StreamDecoder<T>
where
    T: Partial,
    T::View: DeserializeOwned + View,
{
    fn default() -> Self {
        StreamDecoder::new()
    }
}

impl<T> StreamDecoder<T>
where
    T: Partial,
    T::View: DeserializeOwned + View,
{
    /// A stream decoder with [`Decoder::new`]'s options.
    pub fn new() -> Self {
        StreamDecoder::with_decoder(Decoder::new())
    }

    /// A stream decoder with `decoder`'s options (strictness, repairs,
    /// partial flags, depth limit, strategies).
    pub fn with_decoder(decoder: Decoder) -> Self {
        let mut untyped = decoder.clone();
        untyped.allow = decoder.allow.without(
            Allow::NUM
                | Allow::NULL
                | Allow::BOOL
                | Allow::NAN
                | Allow::INFINITY
                | Allow::NEG_INFINITY,
        );
        StreamDecoder {
            decoder,
            untyped,
            text: String::new(),
            tail: Vec::new(),
            view: None,
            value: Value::Null,
            done: false,
            _target: PhantomData,
        }
    }

    /// Adds the next chunk of the reply (`&str` or bytes, split anywhere)
    /// and returns what changed in the untyped view.
    ///
    /// An error is what [`from_llm_str_partial`](crate::from_llm_str_partial)
    /// gives for the text so far (a complete value of the wrong type, invalid
    /// UTF-8); the views keep their last state and later chunks may still
    /// make a value (a later candidate that fits).
    pub fn push(&mut self, chunk: impl AsRef<[u8]>) -> Result<Vec<Delta>> {
        self.append(chunk.as_ref())?;
        self.refresh()
    }

    /// `T`'s partial view of the text so far: `None` while there is nothing
    /// to show (see [`from_llm_str_partial`](crate::from_llm_str_partial)).
    pub fn view(&self) -> &Option<T::View> {
        &self.view
    }

    /// The untyped view: what the deltas so far build from `Value::Null`.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The text received so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the value at `path` in the untyped view is complete (it will
    /// not change any more). `false` for a path not in the view.
    pub fn is_complete(&self, path: &Path) -> bool {
        self.done && has(&self.value, path)
    }

    /// Decodes the whole reply into `T`: what
    /// [`Decoder::decode`] gives for the whole text.
    pub fn finish(self) -> Result<T>
    where
        T: DeserializeOwned,
    {
        self.finish_with_report().map(|(v, _)| v)
    }

    /// [`finish`](Self::finish), and what was done to the text.
    pub fn finish_with_report(self) -> Result<(T, Report)>
    where
        T: DeserializeOwned,
    {
        if self.tail.is_empty() {
            return self.decoder.decode_with_report(&self.text);
        }
        let mut bytes = self.text.into_bytes();
        bytes.extend_from_slice(&self.tail);
        self.decoder.decode_slice_with_report(&bytes)
    }

    /// [`finish`](Self::finish), then `T`'s [`Contract`] check (see
    /// [`Decoder::decode_checked`]).
    pub fn finish_checked(self) -> Result<T>
    where
        T: DeserializeOwned + Contract,
    {
        let value = self.finish()?;
        value.check()?;
        Ok(value)
    }

    /// Adds `chunk` to the text, holding back a UTF-8 sequence cut at its end.
    fn append(&mut self, chunk: &[u8]) -> Result<()> {
        let owned;
        let bytes = if self.tail.is_empty() {
            chunk
        } else {
            self.tail.extend_from_slice(chunk);
            owned = std::mem::take(&mut self.tail);
            &owned[..]
        };
        let mut rest = bytes;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    self.text.push_str(s);
                    return Ok(());
                }
                Err(e) => {
                    let good = e.valid_up_to();
                    self.text
                        .push_str(std::str::from_utf8(&rest[..good]).unwrap_or_default());
                    match e.error_len() {
                        None => {
                            self.tail = rest[good..].to_vec();
                            return Ok(());
                        }
                        Some(_) if !self.decoder.is_lossy() => {
                            let at = self.text.len();
                            self.tail.clear();
                            return Err(Error::at(
                                ErrorKind::InvalidUtf8,
                                format_args!("invalid UTF-8 at byte {at}"),
                                at,
                            )
                            .locate(&self.text));
                        }
                        Some(n) => {
                            self.text.push(char::REPLACEMENT_CHARACTER);
                            rest = &rest[good + n..];
                        }
                    }
                }
            }
        }
    }

    /// Brings the views up to date with the text, returning the deltas.
    fn refresh(&mut self) -> Result<Vec<Delta>> {
        let view = self.decoder.decode_partial::<T>(&self.text)?;
        self.view = view;
        let (value, done) = match self
            .untyped
            .decode_as::<Value>(&self.text, Shape::Any, false)
        {
            Ok((v, report)) => (v, !report.truncated && self.tail.is_empty()),
            Err(_) => (Value::Null, false),
        };
        let mut deltas = Vec::new();
        if !self.done || value != self.value {
            delta::diff(&self.value, &value, done, &mut deltas);
        }
        self.value = value;
        self.done = done;
        Ok(deltas)
    }
}

/// Whether `path` names a value in `view`.
fn has(view: &Value, path: &Path) -> bool {
    let mut at = view;
    for seg in path.segments() {
        at = match (seg, at) {
            (Segment::Key(k), Value::Object(m)) => match m.get(k) {
                Some(v) => v,
                None => return false,
            },
            (Segment::Index(i), Value::Array(a)) => match a.get(*i) {
                Some(v) => v,
                None => return false,
            },
            _ => return false,
        };
    }
    true
}

impl Decoder {
    /// A [`StreamDecoder`] with this decoder's options.
    ///
    /// ```
    /// let mut dec = serde_llm::Decoder::new().stream::<Vec<u32>>();
    /// dec.push("[1, 2")?;
    /// dec.push("0, 3]")?;
    /// assert_eq!(dec.finish()?, [1, 20, 3]);
    /// # Ok::<(), serde_llm::Error>(())
    /// ```
    pub fn stream<T>(&self) -> StreamDecoder<T>
    where
        T: Partial,
        T::View: DeserializeOwned + View,
    {
        StreamDecoder::with_decoder(self.clone())
    }
}
