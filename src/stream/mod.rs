//! Decoding a reply as it streams: [`StreamDecoder`].
//!
//! The invariant: after every [`push`](StreamDecoder::push) the typed view is
//! what [`from_llm_str_partial`](crate::from_llm_str_partial) gives for the
//! text so far, the untyped view (kept once deltas are asked for) is what
//! the deltas so far build, and
//! [`finish`](StreamDecoder::finish) gives what
//! [`from_llm_str`](crate::from_llm_str) gives for the whole text.

pub(crate) mod delta;
mod gather;
mod json;
mod live;
mod reads;
mod tolerant;

use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use delta::{Delta, Path, Segment};

use crate::choose;
use crate::error::{Error, ErrorKind, Result};
use crate::extract;
use crate::partial::grow::Route;
use crate::partial::{Allow, Partial, View};
use crate::report::{RepairKind, Report, Strategy};
use crate::shape::Shape;
use crate::{Contract, Decoder};
use json::Status;
use live::{Fenced, Live};
pub(crate) use reads::Change;
use reads::Reader;
pub(crate) use reads::{Around, Reads};

/// How the decoder reads what arrives.
enum Mode<V> {
    /// Every push reads the whole text: before a value is found, and for a
    /// value that is not JSON as written (its repairs are the tolerant
    /// scanner's). `tried`: a value start whose text was found not to be
    /// JSON as written (it never will be).
    Whole { tried: Option<usize> },
    /// A value that is JSON as written so far, read as it arrives.
    Live(Box<Live<V>>),
    /// The reply is inside a reasoning block that has not closed: nothing
    /// shows until `close` arrives, which is looked for in the text from
    /// `from` on (each byte once).
    Thinking { from: usize, close: &'static str },
    /// The value that starts at `start` is complete: the text after it is
    /// read again only if it could hold another candidate. `settled`: a
    /// decode found it in prose for an object target with no repair and
    /// no coercion (see [`settled`]), so that only a fence or a tag after
    /// it, or a candidate around it, could take its place.
    After {
        start: usize,
        fence: Fence,
        settled: bool,
    },
    /// Objects one after another (JSON lines), a fence each, or in plain
    /// prose, that a decode gathers into a list: each read once as it
    /// completes (see [`gather`]).
    Gathered(Box<gather::Gathered>),
}

/// After a complete value: whether it was the first value of a fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fence {
    /// Not in a fence: text after it may hold a candidate that wins (a
    /// fence, more values), and what follows it at once may say what it is
    /// (`[1] the docs` is a citation): the value ends here.
    No(usize),
    /// In a fence that has not closed yet; the value ended here. Once the
    /// fence closes right after it, nothing after can win over a clean
    /// fenced value.
    Open(usize),
    /// The fence closed right after the value. `Some(end)`: the value ends
    /// there and may have been read with repairs (the live reader makes
    /// some as JSON's own), which a later fence read with fewer may beat:
    /// once a backtick arrives after it, the value is checked for JSON as
    /// written (`None` once it is).
    Closed(Option<usize>),
}

/// A type a [`StreamDecoder`] can decode: [`Partial`], with a view serde
/// can build from an owned text. Every such type is one (a blanket impl), so
/// a generic helper over streamed types needs this one bound:
///
/// ```
/// use serde_llm::{StreamDecoder, Streamable};
///
/// /// The view after each chunk, in order.
/// fn views<T: Streamable>(chunks: &[&str]) -> serde_llm::Result<Vec<Option<T::Shown>>>
/// where
///     T::Shown: Clone,
/// {
///     let mut dec = StreamDecoder::<T>::new();
///     let mut out = Vec::new();
///     for chunk in chunks {
///         dec.push(chunk)?;
///         out.push(dec.view().clone());
///     }
///     Ok(out)
/// }
///
/// let shown = views::<Vec<u32>>(&["[1, 2", "0, 3]"])?;
/// assert_eq!(shown, [Some(vec![1]), Some(vec![1, 20, 3])]);
/// # Ok::<(), serde_llm::Error>(())
/// ```
///
/// For a concrete type, `T::Shown` is `T::View` (`Recipe` shows a
/// `RecipeView`).
pub trait Streamable: Partial {
    /// `T::View`, named with the bounds a stream needs of it.
    type Shown: View + DeserializeOwned;
}

impl<T> Streamable for T
where
    T: Partial,
    T::View: DeserializeOwned,
{
    type Shown = T::View;
}

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
///
/// # What it guarantees
///
/// After every push, [`view`](Self::view) is what
/// [`Decoder::decode_partial`] gives for the text so far. A decoder pushed
/// with [`push_deltas`](Self::push_deltas) also keeps the untyped view,
/// [`value`](Self::value) (`serde_json::Value`, with strings, objects and
/// arrays as far as they have arrived and numbers and literals once
/// complete), which the deltas so far build; one pushed only with
/// [`push`](Self::push) builds neither. [`finish`](Self::finish)
/// is [`Decoder::decode`] of the whole text. The decoder's options (strict
/// mode, repairs allowed, partial flags, depth limit) apply throughout.
///
/// # What it costs
///
/// While a reasoning block at the start (`<think>`) is still open, nothing
/// is shown (what is inside is the model thinking, not its answer) and each
/// byte is looked at once, for the closing tag. Before a value starts, an
/// intro of plain prose (words, digits and sentence punctuation, for any
/// target but a scalar, which reads short prose) costs each byte once, up to a
/// fence's opening line; other text before a value (a bracket, a tag or
/// inline code in the intro) is read whole on every push until the value
/// is found. Once the value is found and is JSON as written so far (what providers
/// stream as tool arguments, and what models write in a fence), or, as the
/// whole reply, fence or tag, JSON with the repairs models need most where
/// their reading is local (trailing commas, strings in single quotes, keys
/// without quotes, raw newlines and tabs in strings, comments between
/// tokens, Python's literals, missing commas, JSON5's decimal numbers such
/// as `+1` and `.5`), it is read as it arrives: each
/// push costs what arrived
/// plus the parts of the view it changed. Complete members and elements are
/// read once, through the same Deserializer as a one-shot decode, and put in
/// place; strings marked to grow are appended to; nothing is rebuilt from
/// the whole text. A fenced value is final once its fence closes; after a
/// value in prose, the text after it is read again only when it holds a
/// bracket, quote, fence or tag (another candidate might win), and after
/// an object read with no repair, for an object target or (after text) an
/// untyped one, only when it holds a fence or a tag (a later span in
/// prose can only tie with it, and a tie goes to the earlier). A value
/// complete only with a repair (a list closed by `}`) may still go on with
/// the text after it, so that text is read again on every push. Objects
/// that a decode gathers into a list (JSON lines, or objects with a comma
/// between, bare or in one fence, for a list or an untyped target; a fence
/// per object, with lines of plain prose between them or
/// not, or objects in plain prose, for a list target) are read one by
/// one: each once, as it completes. Prose there is words, digits, spaces,
/// the punctuation of sentences, apostrophes and parentheses; a double
/// quote, a bracket, a backtick, a `<`, a `/`, a `#` or a character past
/// ASCII between the objects reads the whole text from then on.
///
/// Where that cannot hold, the decoder reads the whole text on every push,
/// and stays correct: a value cut in a span found in prose after text that
/// reads as a value of `T` only with repairs (an example `{'id': 1}` before
/// the real one; a `{placeholder}`, structure made of prose, never beats
/// it) or after a quote left open (a decode weighs the two anew as the cut
/// one grows); a value read after text a decode leaves out before it (`{}`
/// then `['`: a later byte may make it read both); a fenced value cut while
/// its fence may sit inside a candidate open before it (a list, a quote);
/// a `<json>` tag's value from its closing tag inside it on (a string's text
/// for the live read, the value's end for a decode); a value that needs
/// other repairs, or one of those
/// where the tolerant scanner's reading looks further (an apostrophe inside
/// a single-quoted string, `'it's'`; a key with spaces; a fence on a line
/// of its own inside a string with raw newlines, but in a fenced value
/// whose strings are all double-quoted: there the string shows as it was at
/// the fence, as a decode shows it, until its quote arrives, and is read on
/// as it comes, unless a second fence marker follows in it or the line
/// before the fence ends in a closer), whose reading is
/// then the answer; and a cut string whose text so far ends in
/// a backtick or `>`, or in closers that close every container still open
/// (`{"a": "b}`), which a decode of the text so far may read as the end of
/// a fence, a tag or the string (for that push only; a `{placeholder}` or
/// `[1]` inside a string costs nothing). But where such a repair is inside
/// a container below the root (a list's element: `"say "hi" now"`, a bare
/// value `text: hello world`, `'it's'`), in a value that is the whole reply
/// or a fence's with no fence marker after it, that container alone is read
/// the tolerant way: the engine's scanner, resumed beside the live reader
/// (each byte read once over the stream), reads the value; the typed view
/// of the container and, when kept, its untyped view (whose growth gives
/// the deltas) are read from that scanner's events once per push while it
/// is open; and the live reader goes on after its closer (a record in a
/// list costs its own length per push, not the reply's; such a string that
/// is itself a list's element makes that list the container, read whole on
/// every push). So too where the push that finds the value already holds
/// the repair: it is read as if the repair had come in a push of its own.
/// Inside a member the typed view shows only complete (a field
/// not marked partial, an untyped target's member), the typed view reads
/// nothing while it is open and reads that member once it closes, from the
/// same events. If later text reads that container otherwise (a
/// quote's verdict resting on what follows its closer), the whole text is
/// read from then on. Views that cannot grow in place
/// (an untagged enum, an adjacently tagged one with a tuple variant of
/// several fields or its tag after its content, a struct with several
/// `flatten`ed fields or a flattened enum) are read again from their own
/// text once per push while they are open, but not while a string in one
/// only grows (serde's buffer leaves a cut string out whatever it holds, so
/// the view is the same; for an enum flattened into a struct, while any
/// member it takes is still being written): an untagged enum at the root
/// whose answer string streams costs its length once. Such a view at the
/// root is read again only when one of its own members completes: a decode
/// keeps only those (the cut one is missing), so a long list in one (the
/// reply's items) costs its length once. An adjacently tagged enum of
/// struct, newtype and unit variants grows in place once its tag has come
/// first, as an internally tagged one does (below): a struct variant's
/// fields are the members of its content object (a tool call's
/// `"arguments": {…}`). A field of a generic type grows
/// as any other does. A map (`BTreeMap`, `HashMap`) takes each member as it
/// comes, and a part inside a member into that member. A struct with one
/// flattened struct grows in place, its flattened members as its own; one
/// of those members cut is left out of the view until it completes (serde
/// buffers it, so nothing can say it is cut), as a decode leaves it out.
/// One flattened map takes each member as a map does.
///
/// An internally tagged enum (`#[serde(tag = "tool")]`, a tool call) grows
/// in place, as a struct does, once its tag is complete: each part inside
/// it is read with the tag before it. Serde needs the tag to choose the
/// variant, so until the tag has arrived the enum shows nothing (in a list,
/// the element is left out); while the tag itself is cut, and when the tag
/// is not the enum's first member, the enum is read again on each push
/// (a tag written after the content shows the variant once it arrives).
/// In a list of such enums, a call whose tag has not come is left out of the
/// view (the calls before it stay), and it costs nothing until then: many
/// calls and long arguments alike stream in linear time.
///
/// ```
/// use serde_llm::{Partial, StreamDecoder};
///
/// #[derive(Debug, serde::Deserialize, Partial)]
/// #[serde(tag = "tool", rename_all = "snake_case")]
/// enum Call {
///     Search { #[llm(partial)] query: String },
///     Finish { #[llm(partial)] answer: String },
/// }
///
/// #[derive(Debug, serde::Deserialize, Partial)]
/// struct Turn { #[llm(partial)] calls: Vec<Call> }
///
/// let mut dec = StreamDecoder::<Turn>::new();
/// dec.push(r#"{"calls": [{"tool": "search", "query": "rust ser"#)?;
/// let calls = dec.view().as_ref().and_then(|t| t.calls.as_ref()).unwrap();
/// assert!(matches!(&calls[0], CallView::Search { query: Some(q) } if q == "rust ser"));
/// dec.push(r#"de"}]}"#)?;
/// assert!(matches!(&dec.finish()?.calls[0], Call::Search { query } if query == "rust serde"));
/// # Ok::<(), serde_llm::Error>(())
/// ```
pub struct StreamDecoder<T: Streamable> {
    decoder: Decoder,
    /// How the typed view is read: as `T::Shown`, or as a runtime
    /// schema's value (see [`with_reads`](Self::with_reads)).
    reads: Reader<T::Shown>,
    /// The changes to the typed view since they were last taken, once they
    /// are kept (see [`take_changes`](Self::take_changes)).
    changes: Option<Vec<Change>>,
    /// How many pushes changed the typed view (see
    /// [`changes_seen`](Self::changes_seen)).
    version: u64,
    /// The untyped view's decoder: the same options, with numbers and
    /// literals shown only once complete.
    untyped: Decoder,
    text: String,
    /// The start of a UTF-8 sequence whose last bytes have not arrived.
    tail: Vec<u8>,
    mode: Mode<T::Shown>,
    /// The typed view, but while live (the live path holds it then).
    view: Option<T::Shown>,
    /// The untyped view, but while live.
    value: Value,
    /// The value is complete.
    done: bool,
    /// What [`view`](Self::view) gives while the live view is not admitted.
    none: Option<T::Shown>,
    /// Deltas a push that failed could not give: the next that succeeds
    /// gives them first.
    owed: Vec<Delta>,
    /// The reply holds invalid UTF-8 after the text kept (not lossy): every
    /// push and `finish` give that error, as a one-shot decode of the bytes
    /// does.
    broken: Option<usize>,
    /// While live, the views of the text so far where the live views are
    /// not them (a cut string whose end a decode reads otherwise).
    early: Option<(Option<T::Shown>, Value)>,
    /// Only the untyped view is kept (see [`Self::__untyped_only`]).
    lean: bool,
    /// The untyped view and the deltas are kept: since the first
    /// [`push_deltas`](Self::push_deltas).
    untyped_kept: bool,
    /// What the deltas said complete (see [`delta::Promise`]).
    promise: delta::Promise,
    /// The text so far is [`quiet_prose`] up to here, then at most a fence
    /// opener being written ([`opening_fence`]), and both views of it are
    /// nothing: a push that adds more of either changes nothing, and is not
    /// decoded (an intro paragraph streams in linear time).
    quiet: Option<usize>,
    /// After a complete value outside a fence: what the text after it
    /// holds (see [`After`]).
    after_open: After,
    /// After a complete value outside a fence: where it starts, and whether
    /// a candidate that holds it may be open before it (a fence or a
    /// bracket not closed, a quote left open: that candidate's text grows
    /// with every push, and a decode may prefer it as it does).
    enclosed: (usize, bool),
    /// After a complete value: what the text after it says of it (see
    /// [`Retract`]).
    retract: Retract,
    _target: PhantomData<fn() -> T>,
}

impl<T> Default for StreamDecoder<T>
where
    T: Streamable,
{
    fn default() -> Self {
        StreamDecoder::new()
    }
}

impl<T> StreamDecoder<T>
where
    T: Streamable,
{
    /// A stream decoder with [`Decoder::new`]'s options.
    pub fn new() -> Self {
        StreamDecoder::with_decoder(Decoder::new())
    }

    /// A stream decoder with `decoder`'s options (strictness, repairs,
    /// partial flags, depth limit, strategies).
    pub fn with_decoder(decoder: Decoder) -> Self {
        let mut untyped = decoder.clone();
        untyped.opts.allow = decoder.opts.allow.without(
            Allow::NUM
                | Allow::NULL
                | Allow::BOOL
                | Allow::NAN
                | Allow::INFINITY
                | Allow::NEG_INFINITY,
        );
        StreamDecoder {
            decoder,
            reads: Reader::Typed,
            changes: None,
            version: 0,
            untyped,
            text: String::new(),
            tail: Vec::new(),
            mode: Mode::Whole { tried: None },
            view: None,
            value: Value::Null,
            done: false,
            none: None,
            early: None,
            owed: Vec::new(),
            broken: None,
            lean: false,
            untyped_kept: false,
            promise: delta::Promise::default(),
            quiet: None,
            after_open: After::default(),
            enclosed: (usize::MAX, false),
            retract: Retract::new(usize::MAX, 0),
            _target: PhantomData,
        }
    }

    /// A stream decoder whose typed view is read by `reads` (a runtime
    /// schema's value) rather than as `T::Shown`.
    pub(crate) fn with_reads(decoder: Decoder, reads: Arc<dyn Reads<T::Shown>>) -> Self {
        StreamDecoder {
            reads: Reader::By(reads),
            ..StreamDecoder::with_decoder(decoder)
        }
    }

    /// What [`Decoder::decode_partial`] gives for `text`, read as this
    /// stream reads its view.
    fn view_of(&self, text: &str) -> Result<Option<T::Shown>> {
        // Inside a reasoning block still open, nothing is the answer yet.
        if extract::open_block(text).is_some() {
            return Ok(None);
        }
        match self.reads.whole(&self.decoder.viewing(), text) {
            Ok((view, _)) => Ok(view.admitted()),
            Err(e) if e.is_nothing() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Adds the next chunk of the reply (`&str` or bytes, split anywhere)
    /// and brings the typed view up to date.
    ///
    /// An error is what [`from_llm_str_partial`](crate::from_llm_str_partial)
    /// gives for the text so far (a complete value of the wrong type, invalid
    /// UTF-8); later chunks may still make a value (a later candidate that
    /// fits). Invalid UTF-8 (unless the decoder is
    /// [`lossy`](Decoder::lossy)) is final: every later push and `finish`
    /// give that error, as a one-shot decode of the bytes does.
    ///
    /// Once [`push_deltas`](Self::push_deltas) has been called, the untyped
    /// view is kept too, and the deltas of a `push` come with the next
    /// `push_deltas`.
    pub fn push(&mut self, chunk: impl AsRef<[u8]>) -> Result<()> {
        let deltas = self.advance(chunk.as_ref())?;
        if self.untyped_kept {
            self.owed = deltas;
        }
        Ok(())
    }

    /// [`push`](Self::push), and what changed in the untyped view
    /// ([`value`](Self::value)): the deltas.
    ///
    /// The untyped view and the deltas are built only for a decoder that
    /// asks for them: from the first call of this method on. If text was
    /// pushed before it, that text is read again once (it costs one decode
    /// of it), and the deltas returned build the untyped view from
    /// `Value::Null`. The deltas of a push that fails come with the next push
    /// that succeeds.
    ///
    /// ```
    /// use serde_llm::{Delta, StreamDecoder};
    ///
    /// let mut dec = StreamDecoder::<serde_json::Value>::new();
    /// let deltas = dec.push_deltas(r#"{"path": "a.txt", "body": "he"#)?;
    /// assert!(deltas.iter().any(|d| matches!(d, Delta::Completed { path, .. } if path.to_string() == "$.path")));
    /// let deltas = dec.push_deltas("llo")?;
    /// assert!(matches!(&deltas[..], [Delta::Appended { text, .. }] if text == "llo"));
    /// # Ok::<(), serde_llm::Error>(())
    /// ```
    pub fn push_deltas(&mut self, chunk: impl AsRef<[u8]>) -> Result<Vec<Delta>> {
        if !self.untyped_kept {
            self.keep_untyped();
        }
        self.advance(chunk.as_ref())
    }

    /// From here on the untyped view and the deltas are kept: the text so
    /// far is read again by a decoder that keeps them, and its deltas are
    /// owed to the next push (with an error for that text, they are owed
    /// all the same, and the next push says what it says of the text then).
    /// Past invalid UTF-8 nothing is read again: every push fails.
    fn keep_untyped(&mut self) {
        if self.broken.is_some() {
            self.untyped_kept = true;
            return;
        }
        let mut fresh = StreamDecoder::<T>::with_decoder(self.decoder.clone());
        fresh.reads = self.reads.clone();
        if self.changes.is_some() {
            fresh.keep_changes();
        }
        fresh.lean = self.lean;
        fresh.untyped_kept = true;
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        bytes.append(&mut self.tail);
        *self = fresh;
        if !bytes.is_empty() {
            if let Ok(deltas) = self.advance(&bytes) {
                self.owed = deltas;
            }
        }
    }

    /// Adds `chunk` and brings the views up to date: the deltas, with
    /// those owed first.
    fn advance(&mut self, chunk: &[u8]) -> Result<Vec<Delta>> {
        if self.broken.is_some() {
            return Err(self.invalid_utf8());
        }
        let from = self.text.len();
        self.append(chunk)?;
        let shown = self.shown_from();
        let refreshed = self.refresh(from);
        if let Mode::Live(live) = &mut self.mode {
            if std::mem::take(&mut live.touched) {
                self.version += 1;
            }
            if let (Some(log), Some(more)) = (&mut self.changes, &mut live.log) {
                log.append(more);
            }
        }
        if self.shown_from() != shown {
            self.changed();
        }
        let mut deltas = refreshed?;
        if !self.owed.is_empty() {
            self.owed.append(&mut deltas);
            deltas = std::mem::take(&mut self.owed);
        }
        if self.untyped_kept && !deltas.is_empty() {
            let mut promise = std::mem::take(&mut self.promise);
            promise.keep(&mut deltas, self.untyped(), || {
                self.is_complete(&Path::root())
            });
            self.promise = promise;
        }
        Ok(deltas)
    }

    /// Sets the typed view (not the live one), noting the change.
    fn set_view(&mut self, view: Option<T::Shown>) {
        self.view = view;
        self.changed();
    }

    /// Notes that the typed view may have changed anywhere.
    fn changed(&mut self) {
        self.version += 1;
        if let Some(log) = &mut self.changes {
            if log.last() != Some(&Change::All) {
                log.push(Change::All);
            }
        }
    }

    /// Which view [`view`](Self::view) gives: the stream's own, the live
    /// one, an early one, or none.
    fn shown_from(&self) -> u8 {
        match &self.mode {
            _ if self.lean => 0,
            Mode::Live(_) if self.early.is_some() => 1,
            Mode::Live(live) if live.shown() => 2,
            Mode::Live(_) => 0,
            _ => 3,
        }
    }

    /// The paths in the typed view of the values still open, where the
    /// stream knows them without reading: while a value is read as it
    /// arrives, the containers and the string being written; while objects
    /// are gathered into a list, the list. Each with whether it is the open
    /// value's own path (`false`: some value inside the one there is open,
    /// where is not known). `None` where it does not know.
    pub(crate) fn open_paths(&self) -> Option<Vec<(Vec<Segment>, bool)>> {
        match &self.mode {
            Mode::Live(live) if self.shown_from() == 2 => {
                let view = live.view.as_ref()?;
                let routes = live.open_routes();
                routes
                    .into_iter()
                    .map(|(r, own)| Some((self.reads.locate(view, r)?, own)))
                    .collect()
            }
            Mode::Gathered(_) if self.view.is_some() => Some(vec![(Vec::new(), true)]),
            _ => None,
        }
    }

    /// Whether the value is complete and the text after it is not read
    /// again on each push: the view changes only by a change noted.
    pub(crate) fn settled(&self) -> bool {
        matches!(self.mode, Mode::After { .. })
    }

    /// From here on, the changes made to the typed view are kept, to be
    /// taken after each push (see [`take_changes`](Self::take_changes)).
    pub(crate) fn keep_changes(&mut self) {
        if self.changes.is_none() {
            self.changes = Some(vec![Change::All]);
            if let Mode::Live(live) = &mut self.mode {
                live.log = Some(Vec::new());
            }
        }
    }

    /// A count that grows with every push that changed the typed view (or
    /// may have): equal before and after a push, the view is as it was.
    pub(crate) fn changes_seen(&self) -> u64 {
        self.version
    }

    /// The changes made to the typed view since they were last taken, in
    /// order: where a value was put in place, a string grew, or (`All`)
    /// anything may have changed. Empty unless they are kept.
    pub(crate) fn take_changes(&mut self) -> Vec<Change> {
        self.changes
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// `T`'s partial view of the text so far: `None` while there is nothing
    /// to show (see [`from_llm_str_partial`](crate::from_llm_str_partial)).
    pub fn view(&self) -> &Option<T::Shown> {
        match &self.mode {
            _ if self.lean => &self.none,
            Mode::Live(_) if self.early.is_some() => &self.early.as_ref().expect("early").0,
            Mode::Live(live) if live.shown() => &live.view,
            Mode::Live(_) => &self.none,
            _ => &self.view,
        }
    }

    /// For a binding that builds the untyped view itself from the deltas
    /// (the Python package): the typed view is no longer kept up to date
    /// (`view` gives `None`; `finish` still decodes the whole text), and
    /// while the value streams as JSON as written, a container's
    /// `Completed` delta carries an empty container of its kind rather than
    /// a copy of the container, which the deltas before it built. The
    /// untyped view (`value`) and the other deltas are as they were. Not a
    /// public API.
    #[doc(hidden)]
    pub fn __untyped_only(mut self) -> Self {
        self.lean = true;
        self.with_deltas()
    }

    /// This decoder, keeping the untyped view and the deltas from now on
    /// (as a first [`push_deltas`](Self::push_deltas) does): for a caller
    /// that reads [`value`](Self::value) or
    /// [`is_complete`](Self::is_complete) before it pushes anything.
    pub fn with_deltas(mut self) -> Self {
        if !self.untyped_kept {
            self.keep_untyped();
        }
        self
    }

    /// The untyped view: what the deltas so far build from `Value::Null`.
    /// `None` for a decoder that has not asked for deltas (see
    /// [`push_deltas`](Self::push_deltas)): one that shows only the typed
    /// view does not build the untyped one.
    pub fn value(&self) -> Option<&Value> {
        if !self.untyped_kept {
            return None;
        }
        Some(self.untyped())
    }

    /// The untyped view, kept or not.
    fn untyped(&self) -> &Value {
        match (&self.mode, &self.early) {
            (Mode::Live(_), Some((_, v))) => v,
            (Mode::Live(live), None) => &live.value,
            _ => &self.value,
        }
    }

    /// The text received so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the value at `path` in the untyped view is complete (it will
    /// not change any more). `false` for a path not in the view.
    ///
    /// # Panics
    ///
    /// If the decoder keeps no untyped view: call
    /// [`push_deltas`](Self::push_deltas) rather than `push`.
    pub fn is_complete(&self, path: &Path) -> bool {
        assert!(
            self.untyped_kept,
            "StreamDecoder::is_complete needs the untyped view: push with push_deltas"
        );
        get(self.untyped(), path).is_some()
            && match &self.mode {
                Mode::Live(live) => live.is_complete(path, self.done),
                _ => self.done,
            }
    }

    /// The value at `path` decoded as `U`, once it is complete (it will not
    /// change any more): a tool call that has finished can be run while
    /// the next one streams. `None` while it is not complete, or not in the
    /// reply.
    ///
    /// The value decoded is the untyped view's there, read with this
    /// decoder's options: what a decode of the reply gives for that part. It costs
    /// the part's size. A whole number wider than 64 bits, which the
    /// untyped view holds as a float, is an error rather than a rounded
    /// number: take it from [`finish`](Self::finish).
    ///
    /// # Panics
    ///
    /// If the decoder keeps no untyped view: call
    /// [`push_deltas`](Self::push_deltas) rather than `push`.
    ///
    /// ```
    /// use serde_llm::{Partial, Path, StreamDecoder};
    ///
    /// #[derive(Debug, PartialEq, serde::Deserialize, Partial)]
    /// #[serde(tag = "tool", rename_all = "snake_case")]
    /// enum Call {
    ///     Search { #[llm(partial)] query: String, limit: Option<u32> },
    ///     Reply { #[llm(partial)] text: String },
    /// }
    ///
    /// #[derive(Debug, serde::Deserialize, Partial)]
    /// struct Turn { #[llm(partial)] calls: Vec<Call> }
    ///
    /// let mut dec = StreamDecoder::<Turn>::new();
    /// dec.push_deltas(r#"{"calls": [{"tool": "search", "query": "rust", "limit": 3}, {"tool": "reply", "te"#)?;
    /// let first = Path::root().key("calls").index(0);
    /// let call: Call = dec.complete_at(&first).expect("complete")?;
    /// assert_eq!(call, Call::Search { query: "rust".into(), limit: Some(3) });
    /// // The second call is still streaming.
    /// assert!(dec.complete_at::<Call>(&Path::root().key("calls").index(1)).is_none());
    /// # Ok::<(), serde_llm::Error>(())
    /// ```
    pub fn complete_at<U: DeserializeOwned>(&self, path: &Path) -> Option<Result<U>> {
        if !self.is_complete(path) {
            return None;
        }
        let part = get(self.untyped(), path)?;
        if inexact(part) {
            return Some(Err(Error::new(
                ErrorKind::Number,
                format_args!("a whole number at {path} is wider than the untyped view holds exactly; decode it with finish"),
            )));
        }
        Some(self.decoder.decode::<U>(&part.to_string()))
    }

    /// Decodes the whole reply into `T`: what
    /// [`Decoder::decode`] gives for the whole text.
    pub fn finish(self) -> Result<T>
    where
        T: DeserializeOwned,
    {
        // No report is made to be dropped: a reply repaired throughout
        // (single quotes) lists thousands of repairs.
        if self.broken.is_some() {
            return Err(self.invalid_utf8());
        }
        if self.tail.is_empty() {
            return self.decoder.decode(&self.text);
        }
        let mut bytes = self.text.into_bytes();
        bytes.extend_from_slice(&self.tail);
        self.decoder.decode_slice(&bytes)
    }

    /// [`finish`](Self::finish), and what was done to the text.
    pub fn finish_with_report(self) -> Result<(T, Report)>
    where
        T: DeserializeOwned,
    {
        if self.broken.is_some() {
            return Err(self.invalid_utf8());
        }
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

    /// The invalid UTF-8 met, if any: every push fails with it.
    pub(crate) fn broken(&self) -> Option<Error> {
        self.broken.map(|_| self.invalid_utf8())
    }

    /// Whether the text ends in a character whose last bytes have not
    /// arrived (held back, not in [`text`](Self::text)).
    pub(crate) fn cut_char(&self) -> bool {
        !self.tail.is_empty()
    }

    /// The error for the invalid UTF-8 the reply holds (at the end of the
    /// text kept).
    fn invalid_utf8(&self) -> Error {
        let at = self.text.len();
        Error::at(
            ErrorKind::InvalidUtf8,
            format_args!("invalid UTF-8 at byte {at}"),
            at,
        )
        .locate(&self.text)
    }

    /// Adds `chunk` to the text, holding back a UTF-8 sequence cut at its end.
    fn append(&mut self, chunk: &[u8]) -> Result<()> {
        let lossy = self.decoder.is_lossy();
        match crate::text::append_utf8(&mut self.tail, chunk, &mut self.text, lossy) {
            Ok(()) => Ok(()),
            Err(at) => {
                self.broken = Some(at);
                Err(self.invalid_utf8())
            }
        }
    }

    /// Brings the views up to date with the text (it grew from `from`),
    /// returning the deltas.
    fn refresh(&mut self, from: usize) -> Result<Vec<Delta>> {
        let was = self.early.take().map(|(_, v)| v);
        match std::mem::replace(&mut self.mode, Mode::Whole { tried: None }) {
            Mode::Live(mut live) => {
                // A reasoning block's closing tag with no opening one: all
                // before it was the model's thinking, the value being read
                // too (a draft cut inside a string, `Thinking: {"a":
                // "b</think>{`).
                if extract::closing_tag_in(&self.text, from) {
                    self.value = was.unwrap_or(live.value);
                    return self.whole(None);
                }
                let status = live.feed(&self.text);
                // The deltas from what the caller has: the live view before
                // this push, or the early one.
                let mut deltas = match &was {
                    Some(v) => {
                        let mut out = Vec::new();
                        delta::diff(v, &live.value, false, &mut out);
                        out
                    }
                    None => std::mem::take(&mut live.deltas),
                };
                live.deltas.clear();
                match status {
                    _ if live.failed => {}
                    Status::Bad(_) => {}
                    // A `<json>` tag's closing tag inside a value read from
                    // the tag's content (a string's text for the live read,
                    // `['</json>`): the value ends at it for a decode, and a
                    // tag after it may take its place. (A value that
                    // completes is read whole below.)
                    Status::Open if live.tag && extract::closing_json_tag_in(&self.text, from) => {}
                    Status::Open => {
                        if live.ends_early() || live.blocked() {
                            let view = match self.view_of(&self.text) {
                                Ok(view) => view,
                                Err(e) => {
                                    self.mode = Mode::Live(live);
                                    self.owed.append(&mut deltas);
                                    return Err(e);
                                }
                            };
                            let value = match self.untyped_kept {
                                true => {
                                    let (value, _, _) = self.untyped_view();
                                    // From what the caller has: the early
                                    // view before this push, or the live one
                                    // its deltas bring it to.
                                    match &was {
                                        Some(v) => {
                                            deltas.clear();
                                            delta::diff(v, &value, false, &mut deltas);
                                        }
                                        None => {
                                            delta::diff(&live.value, &value, false, &mut deltas)
                                        }
                                    }
                                    value
                                }
                                false => Value::Null,
                            };
                            self.early = Some((view, value));
                            self.changed();
                        }
                        self.mode = Mode::Live(live);
                        return Ok(deltas);
                    }
                    Status::Done(end) => {
                        let live = *live;
                        // The live view knew nothing of the last part it
                        // read (a part cut before it showed anything): the
                        // complete value is read whole, as a decode of it
                        // reads it (what shows nothing cut may be an error
                        // complete: an `anyOf` no alternative fits).
                        let blocked = live.blocked();
                        // (A value with a part read the tolerant way is
                        // read whole once complete, as a repaired one is.)
                        let repaired = live.repaired();
                        self.done = self.tail.is_empty();
                        let fence = match live.fenced() {
                            true if self.fence_alone(live.start()) && !repaired => Fence::Open(end),
                            _ => Fence::No(end),
                        };
                        let start = live.start();
                        self.retract = Retract::new(start, end);
                        self.mode = Mode::After {
                            start,
                            fence,
                            settled: false,
                        };
                        self.value = live.value;
                        self.set_view(live.view.and_then(View::admitted));
                        // A value in prose is read whole once complete: what
                        // it is may show only then (`See [2]` is a
                        // citation, no value). A value that is all the text
                        // so far (a byte-order mark and spaces around it) has
                        // no prose to say so: it is what the live read shows
                        // until text after it arrives (`after_matters`).
                        let alone = self.text[..start]
                            .trim_start_matches('\u{feff}')
                            .trim()
                            .is_empty()
                            && self.text[end..].trim().is_empty();
                        if (matches!(fence, Fence::No(_)) && !alone)
                            || blocked
                            || repaired
                            || self.after_matters(start, fence, end, false)
                            || (self.fence_closed(end)
                                && (self.later_fence(start, end)
                                    || self.taken_back_by_more(start)
                                    || self.labelled_wrong(start)))
                        {
                            match self.whole(None) {
                                Ok(more) => deltas.extend(more),
                                Err(e) => {
                                    self.owed.append(&mut deltas);
                                    return Err(e);
                                }
                            }
                        }
                        return Ok(deltas);
                    }
                }
                // Not JSON as written after all, nor a repair the live path
                // reads the tolerant way (`tolerant`): the tolerant scanner
                // reads it, from the whole text.
                let tried = Some(live.start());
                let live = *live;
                self.value = live.value;
                match self.whole(tried) {
                    Ok(more) => deltas.extend(more),
                    Err(e) => {
                        self.owed.append(&mut deltas);
                        return Err(e);
                    }
                }
                Ok(deltas)
            }
            Mode::After {
                start,
                fence,
                settled,
            } => {
                if !self.after_matters(start, fence, from, settled) {
                    let fence = match fence {
                        Fence::Open(end) if self.fence_closed(end) => {
                            if self.later_fence(start, end)
                                || self.taken_back_by_more(start)
                                || self.labelled_wrong(start)
                            {
                                return self.whole(None);
                            }
                            Fence::Closed(Some(end))
                        }
                        // Checked (a backtick arrived): JSON as written.
                        Fence::Closed(Some(_)) if self.text.as_bytes()[from..].contains(&b'`') => {
                            Fence::Closed(None)
                        }
                        // Past the spaces after the value: each is looked at
                        // once, however many pushes they take.
                        Fence::No(end) => Fence::No(self.past_spaces(end)),
                        f => f,
                    };
                    self.mode = Mode::After {
                        start,
                        fence,
                        settled,
                    };
                    return Ok(Vec::new());
                }
                self.whole(None)
            }
            Mode::Gathered(g) => self.read_gathered(g),
            Mode::Whole { tried: None } if self.still_quiet(from) => Ok(Vec::new()),
            Mode::Whole { tried: None } if self.still_withdrawn() => Ok(Vec::new()),
            Mode::Whole { tried } => {
                let deltas = self.whole(tried)?;
                let nothing = matches!(self.mode, Mode::Whole { tried: None })
                    && self.view.is_none()
                    && self.value.is_null()
                    // (Not for a scalar target: it reads short prose. An
                    // untyped one does not: prose is no value.)
                    && !matches!(self.reads.shape(), Shape::Scalar(_));
                self.quiet = match nothing {
                    true => quiet_prose(self.text.as_bytes()),
                    false => None,
                };
                Ok(deltas)
            }
            Mode::Thinking { from, close } => {
                // The tag may have been cut by the last push's end.
                let mut at = from.saturating_sub(close.len() - 1);
                while !self.text.is_char_boundary(at) {
                    at -= 1;
                }
                match extract::find_close(&self.text, at, close) {
                    Some(_) => self.whole(None),
                    None => {
                        self.mode = Mode::Thinking {
                            from: self.text.len(),
                            close,
                        };
                        Ok(Vec::new())
                    }
                }
            }
        }
    }

    /// Whether the text is still [`quiet_prose`] (it was before the push,
    /// up to `from`): looks at the bytes after the quiet prose only.
    fn still_quiet(&mut self, from: usize) -> bool {
        let Some(at) = self.quiet else {
            return false;
        };
        let b = self.text.as_bytes();
        crate::work::add(b.len() - at.min(from));
        let end = at + b[at..].iter().take_while(|&&c| quiet_byte(c)).count();
        let still = opening_fence(&b[end..]);
        if still {
            self.quiet = Some(end);
        }
        still
    }

    /// Whether the text after a complete value (the part from `from`) could
    /// change what the whole text decodes to.
    fn after_matters(&mut self, start: usize, fence: Fence, from: usize, settled: bool) -> bool {
        // The sentence right after it takes it back: a decode gives no value
        // (and, once a value may open after it, a value after it may
        // replace it: every push is read whole from here).
        let end = match fence {
            Fence::No(end) => Some(end),
            Fence::Closed(_) => Some(self.retract.end),
            // (The sentence comes after the fence's closing marker.)
            Fence::Open(end) => self.fence_closed(end).then_some(end),
        };
        if end.is_some_and(|end| self.withdrawn(end)) {
            return true;
        }
        match fence {
            // (A reasoning block's closing tag with no opening one makes all
            // before it the model's thinking, fenced value and all.)
            Fence::Closed(_) | Fence::Open(_) if extract::closing_tag_in(&self.text, from) => true,
            // A fence after it may win over a value read with repairs
            // (`[1,]` then a fenced `[2]`), or over one the prose after it
            // takes back.
            Fence::Closed(end) => {
                let tick = self.text.as_bytes()[from..].contains(&b'`');
                // (Once taken back, every push is read whole until a read
                // takes the value after: each byte of a fence opened after
                // it may change its value.)
                (tick && end.is_some_and(|end| !self.written_as_json(start, end)))
                    || self.taken_back_by_more(start)
                    || self.labelled_wrong(start)
            }
            // The fence's close, or the start of it, and nothing else.
            Fence::Open(end) => {
                let after = self.text[end..].trim_start();
                !"```".starts_with(after) && closing_marker(after) == Some(false)
            }
            // A candidate after it, or the first thing after it (past
            // spaces) arriving now.
            // Or a bracket still open after it: each byte after the value
            // is counted once.
            Fence::No(end) => {
                // (Prose after it that takes it back makes a span after it
                // a candidate that wins, as for a value not settled.)
                let settled = settled && !self.taken_back(end) && !self.labelled_wrong(start);
                let b = self.text.as_bytes();
                // The same value, its end moved over comments already
                // looked at (a read of values one after another ends its
                // span past the comments after them, `{"a": 1}[2]/**`, one
                // left open too): what was seen of them stands.
                let a = &mut self.after_open;
                if a.start == start
                    && a.end < end
                    && end <= a.at
                    && crate::scan::lex::next_significant(b, a.next, end) >= end
                {
                    a.end = end;
                }
                if self.after_open.end != end {
                    // Whether the value is inside a fence (its own, or one
                    // around it, or one opened inside it, `[\n```]`): the
                    // next marker closes it.
                    // (A marker after text on its line there, too.)
                    // (The value's own text only when it holds a backtick.)
                    let upto = match memchr::memchr(b'`', &b[start..end]) {
                        Some(_) => end,
                        None => start,
                    };
                    crate::work::add(upto);
                    let mut before = After::default();
                    for &c in &b[..upto] {
                        before.take(c);
                    }
                    before.take(b'\n');
                    // (A `<json>` tag left open around the value takes in
                    // every byte until it closes, whatever comes: counted
                    // open, as one opened after the value is.)
                    let strategies = self.decoder.opts.strategies;
                    let angle = memchr::memchr(b'<', &b[..start]).is_some();
                    let tags = usize::from(
                        angle && extract::open_tag_holds(&self.text, start, strategies),
                    );
                    self.after_open = After {
                        start,
                        end,
                        at: end,
                        tags,
                        fences: before.fences,
                        inline_marker: before.inline_marker,
                        // (The value is text on its line: a marker right
                        // after it comes after text.)
                        words: true,
                        next: end,
                        ..After::default()
                    };
                }
                let a = &mut self.after_open;
                crate::work::add(b.len() - a.at.min(b.len()));
                for &c in &b[a.at.min(b.len())..] {
                    a.take(c);
                }
                a.at = b.len();
                // The first byte after the value past spaces and comments:
                // whether it arrives now (prose there ends values gathered
                // with it, `{"a": 1}{"b": 2}// c` then `t`). Kept once what
                // the skip looked at has all arrived.
                // (Past empty objects and lists and placeholders too: a read
                // of the whole text leaves them out beside the value, and
                // the first byte after them may make it prose, `[1, 2][]`
                // then `H`, a markdown link whose label is no value.)
                let next = extract::past_left_out(b, a.next);
                crate::work::add(next - a.next);
                if crate::scan::lex::ws_reach(b, next, b.len()) < b.len() {
                    a.next = next;
                }
                // An object the reply opens with (or one after objects and
                // lists it opens with: a read of the whole text takes each
                // as a top-level value, `root_at`) is reopened by a comma
                // and a key after it (`{"a": 1}, b: 2}` is one object,
                // whole): until the scanner's judgment of that is decided,
                // and if it reopens, every push is read whole.
                // (The reply opens with it past the stray bytes a read of
                // the whole text skips before it, too: ` ,{"a": 1}, b: 2`.
                // Asked only while the comma's judgment is undecided.)
                // (Nothing after the value yet, not even a comma: nothing to
                // judge, and the value alone is what a decode reads so far.)
                if a.reopens.is_none() && next < b.len() {
                    a.reopens = match (b[start] == b'{').then(|| reopened(b, end)) {
                        Some(Some(false)) | None => Some(false),
                        Some(judged) => {
                            if root_at(&self.text[..=start], &self.decoder.opts) {
                                judged
                            } else {
                                Some(false)
                            }
                        }
                    };
                }
                if a.reopens == Some(true) || (a.reopens.is_none() && next < b.len()) {
                    return true;
                }
                // A settled value: a span in the prose after it does not
                // take its place, only a fence or a tag does.
                let open = ((a.depth != [0, 0] || a.colon_in_list) && !settled)
                    || a.open_region()
                    || std::mem::take(&mut a.woke);
                let new = &b[from..];
                let matters = match settled {
                    true => new.iter().any(|c| matches!(c, b'`' | b'<' | b'>')),
                    false => may_matter(new),
                };
                // (While that byte is not known, a byte that may start or
                // hold a comment arrives: a decode may read it as text after
                // the value, a lone `/` a stray byte, `<json>[]/`.)
                let undecided = next >= b.len() && !b[from..].iter().all(u8::is_ascii_whitespace);
                matters
                    || (from <= next && next < b.len())
                    || undecided
                    || open
                    || self.enclosed_before(start)
            }
        }
    }

    /// Whether the prose after the complete value that ends at `end` (or,
    /// fenced, starts there: looked at from where it ends, as the mode
    /// that made it said) says it was wrong (`Wait, I made a mistake.`):
    /// a candidate after it may then win over it. Each byte is looked at
    /// once, and the last three words again (a word may be cut, and those
    /// before it say what it means). Once found, it stays found for the
    /// value (a word later arriving may make it a question; a read of the
    /// whole text is then never wrong).
    fn taken_back(&mut self, end: usize) -> bool {
        if self.retract.of != end {
            self.retract = Retract::new(end, end);
        }
        let r = &mut self.retract;
        if r.cue.is_none() {
            let len = self.text.len();
            crate::work::add(len - r.from);
            r.cue = crate::prose::retractions(&self.text, r.from..len)
                .first()
                .copied();
            r.from = crate::prose::resume_at(&self.text, r.from, len);
        }
        r.cue.is_some()
    }

    /// Whether the sentence right after the complete value that ends at
    /// `end` takes it back (`{"a": 1}⏎Oops, my mistake.`, see
    /// [`crate::prose::withdraws`]): a decode then gives no value in its
    /// place. Looked at each push until that is decided, each look
    /// bounded ([`crate::prose::Said`]).
    fn withdrawn(&mut self, end: usize) -> bool {
        self.retract.withdraw.takes_back(&self.text, end)
    }

    /// Whether the text is still a value the sentence after it takes back
    /// in words that name the mistake ([`withdrawn`](Self::withdrawn)),
    /// with no byte after that sentence that may open a value: a decode
    /// still gives nothing (the last read gave nothing), and the bytes
    /// after it are looked at once.
    fn still_withdrawn(&mut self) -> bool {
        let r = &mut self.retract;
        let Some(stop) = r.withdraw.decided() else {
            return false;
        };
        // (Not for a scalar target: it reads short prose.)
        if self.view.is_some()
            || !self.value.is_null()
            || r.opener.1
            || matches!(self.reads.shape(), Shape::Scalar(_))
        {
            return false;
        }
        let b = self.text.as_bytes();
        let from = r.opener.0.max(stop).min(b.len());
        crate::work::add(b.len() - from);
        r.opener = (
            b.len(),
            b[from..]
                .iter()
                .any(|c| matches!(c, b'{' | b'[' | b'`' | b'<')),
        );
        !r.opener.1
    }

    /// Whether the value that starts at `start` has a label on its line
    /// saying it is wrong (`Wrong: {…}`): a decode takes it back when the
    /// prose after it introduces a correction. Or a label that names it no
    /// answer (`Input: {…}`, see [`crate::prose::label`]), and a word that
    /// may name a later value the answer has come after it (`Output:`): a
    /// decode takes it back when the next value's label does so. The labels
    /// are looked at once per value, as the decode looks; the text after
    /// the value each byte once (and the last three words again, as
    /// [`taken_back`](Self::taken_back) does).
    fn labelled_wrong(&mut self, start: usize) -> bool {
        let text = &self.text;
        let r = &mut self.retract;
        if r.label.0 != start {
            let from = crate::prose::label_start(text, start);
            crate::work::add(start - from);
            let wrong = !crate::prose::retractions(text, from..start).is_empty();
            let label = crate::prose::label(text, start);
            crate::work::add(label.len());
            r.answer = crate::prose::label_says(text, label)
                .is_some_and(|(_, yes)| !yes)
                .then_some(Answer {
                    from: r.end.max(start),
                    word: None,
                    seen: 0,
                    more: false,
                });
            r.label = (start, wrong);
        }
        if let Some(a) = &mut r.answer {
            let len = text.len();
            if a.word.is_none() {
                crate::work::add(len - a.from);
                a.word = crate::prose::names_answer(text, a.from..len);
                a.from = crate::prose::resume_at(text, a.from, len);
            }
            // Then what may open the value it labels.
            if let (Some(word), false) = (a.word, a.more) {
                let from = a.seen.max(word);
                crate::work::add(len - from);
                a.more = text.as_bytes()[from..]
                    .iter()
                    .any(|c| matches!(c, b'{' | b'[' | b'`' | b'<'));
                a.seen = len;
            }
        }
        r.label.1 || r.answer.is_some_and(|a| a.more)
    }

    /// [`taken_back`](Self::taken_back), and a candidate may have started
    /// after those words: a bracket or a backtick came (each byte looked at
    /// once). Until then, prose after them changes nothing.
    fn taken_back_by_more(&mut self, end: usize) -> bool {
        if !self.taken_back(end) {
            return false;
        }
        let r = &mut self.retract;
        if !r.more {
            let from = r.seen.max(r.cue.unwrap_or(0));
            let b = &self.text.as_bytes()[from..];
            crate::work::add(b.len());
            r.more = memchr::memchr3(b'{', b'[', b'`', b).is_some();
            r.seen = self.text.len();
        }
        r.more
    }

    /// Whether the fenced value that starts at `start` is all a decode
    /// can read of the text around it: no candidate holding the fence may
    /// be open before it ([`enclosed`]), and no fence or tag around it has
    /// other content before it (`{}` then `{}` in one fence reads as
    /// `[{}, {}]`; a fence inside a `<json>` tag left open after `{}`).
    /// Looked at once per value.
    fn fence_alone(&self, start: usize) -> bool {
        !enclosed(&self.text[..start])
            && !extract::marked_around(&self.text, start, self.decoder.opts.strategies)
    }

    /// Whether a candidate holding the value that starts at `start` may be
    /// open before it: a bracket or a quote (see [`may_be_enclosed`]), or a
    /// fence. Looked at once per value.
    fn enclosed_before(&mut self, start: usize) -> bool {
        if self.enclosed.0 != start {
            let before = &self.text[..start];
            crate::work::add(before.len());
            let open = enclosed(before);
            self.enclosed = (start, open);
        }
        self.enclosed.1
    }

    /// Whether a fenced value that ends at `end`, whose fence closed right
    /// after it, may lose to a fence after that close: a backtick follows
    /// the closing marker, and the value is not JSON as written (the live
    /// reader made its repairs) or the view coerced it.
    fn later_fence(&self, start: usize, end: usize) -> bool {
        let b = self.text.as_bytes();
        let mut at = self.past_spaces(end);
        at += b[at..]
            .iter()
            .take_while(|&&c| c == b'\n' || c == b'\r')
            .count();
        at += b[at..].iter().take_while(|&&c| c == b'`').count();
        b[at..].contains(&b'`') && !self.written_as_json(start, end)
    }

    /// Whether the value at `start..end` is JSON as written (no repair the
    /// live reader made as JSON's own) that the view takes as it is (no
    /// coercion: a later fence that needs none wins over it).
    fn written_as_json(&self, start: usize, end: usize) -> bool {
        let text = &self.text[start..end];
        serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
            && self
                .reads
                .whole(&self.decoder.viewing(), text)
                .is_ok_and(|(_, reading)| reading.is_clean())
    }

    /// Where the spaces and tabs from `at` on end.
    fn past_spaces(&self, at: usize) -> usize {
        let b = &self.text.as_bytes()[at..];
        at + b.iter().take_while(|&&c| c == b' ' || c == b'\t').count()
    }

    /// Whether the fence closed right after the value that ended at `end`.
    fn fence_closed(&self, end: usize) -> bool {
        closing_marker(self.text[end..].trim_start()) == Some(true)
    }

    /// The untyped view of the whole text, and whether it is complete.
    /// With the value's span.
    fn untyped_view(&self) -> (Value, bool, Option<std::ops::Range<usize>>) {
        match self
            .untyped
            .decode_as::<Value>(&self.text, Shape::Any, false, false)
        {
            Ok((v, report)) => {
                // Complete once no text to come can change it: not values
                // one after another read as a list (another may follow, as
                // in the gathered mode), nor a bare word the text ends in
                // (`550e8400-e29b` goes on).
                let more = report
                    .repairs
                    .iter()
                    .any(|r| r.kind == RepairKind::MultipleValues)
                    || (report.span.end == self.text.len()
                        && self.text.as_bytes()[..report.span.end]
                            .last()
                            .is_some_and(|&c| {
                                c.is_ascii_alphanumeric()
                                    || matches!(c, b'-' | b'+' | b'.' | b'_')
                                    || !c.is_ascii()
                            }));
                let done = !report.truncated && self.tail.is_empty() && !more;
                (v, done, Some(report.span))
            }
            Err(_) => (Value::Null, false, None),
        }
    }

    /// Reads the whole text, and locks onto its value if that value is JSON
    /// as written so far.
    fn whole(&mut self, tried: Option<usize>) -> Result<Vec<Delta>> {
        // Until this read says otherwise (an error leaves it so), the next
        // push reads the whole text again.
        self.mode = Mode::Whole { tried };
        if let Some((_, close)) = extract::open_block(&self.text) {
            // What a partial decode gives inside an open block: nothing.
            let mut deltas = Vec::new();
            delta::diff(&self.value, &Value::Null, false, &mut deltas);
            self.value = Value::Null;
            self.set_view(None);
            self.done = false;
            self.mode = Mode::Thinking {
                from: self.text.len(),
                close,
            };
            return Ok(deltas);
        }
        let fresh = self.value.is_null();
        let shape = self.reads.shape();
        let typed = match self.reads.whole(&self.decoder.viewing(), &self.text) {
            Ok((v, report)) => Some((v, report)),
            Err(e) if e.is_nothing() => None,
            Err(e) => return Err(e),
        };
        let mut deltas = Vec::new();
        // The untyped view, and where its value starts (`None` if not kept:
        // it is then read only when the stream may lock onto the value).
        let mut untyped_start = None;
        // Where it ends: past the typed one's end when it gathers the
        // values after it (`{"a": 1}{"b": 2}` for a struct target), whose
        // end the text after them is watched from.
        let mut untyped_end = 0;
        if self.untyped_kept {
            let (value, done, span) = self.untyped_view();
            if !self.done || value != self.value {
                delta::diff(&self.value, &value, done, &mut deltas);
            }
            self.value = value;
            self.done = done;
            untyped_start = Some(span.as_ref().map(|s| s.start));
            untyped_end = span.map_or(0, |s| s.end);
        }
        self.mode = Mode::Whole { tried };
        let Some((view, report)) = typed else {
            self.set_view(None);
            return Ok(deltas);
        };
        let start = report.span.start;
        // Objects one after another (or a fence each) for a sequence target
        // or an untyped one (see `gather`), each read once as it completes.
        // (An untyped decode gathers the objects of one fence, not a fence
        // each.)
        let gathers = match shape {
            Shape::Array => report.strategy == Strategy::Gathered,
            Shape::Any => {
                matches!(report.strategy, Strategy::Whole | Strategy::Fence)
                    && multiple_at(&report, start)
            }
            _ => false,
        };
        if gathers && tried != Some(start) {
            let (text, depth) = (&self.text, self.decoder.opts.max_depth);
            if let Some((g, cut, complete)) =
                gather::Gathered::lock(text, start, depth, shape == Shape::Array)
            {
                // Read with no repair before the object cut at the end (but
                // the gathering's own, first); the untyped view (when kept)
                // the same objects.
                let clean = report
                    .repairs
                    .iter()
                    .skip(usize::from(shape == Shape::Any))
                    .all(|r| r.offset >= cut);
                let untyped = !self.untyped_kept
                    || (untyped_start == Some(Some(start))
                        && self.value.as_array().is_some_and(|a| a.len() == complete));
                if clean && untyped && view.__shown() {
                    self.set_view(view.admitted());
                    self.mode = Mode::Gathered(Box::new(g));
                    return Ok(deltas);
                }
            }
        }
        // (Not a value read after text it left out, `{}` before `['`: a
        // byte may yet make the read take that text with it, `{}[']:` a
        // list of both.)
        let lockable = tried != Some(start)
            && !report
                .repairs
                .iter()
                .any(|r| r.kind == RepairKind::TrailingText && r.offset < start)
            && self.reads.live()
            && self.untyped.opts.allow == Allow::STR | Allow::ARR | Allow::OBJ
            && matches!(
                report.strategy,
                Strategy::Whole
                    | Strategy::Fence
                    | Strategy::Tag
                    | Strategy::Balanced
                    | Strategy::Trailing
            )
            && matches!(
                (self.text.as_bytes().get(start), shape),
                (Some(b'{'), Shape::Object | Shape::Wrapper | Shape::Any)
                    | (Some(b'['), Shape::Array | Shape::Any)
            );
        // A value being cut in a span found in prose (not the whole reply, a
        // fence or a tag) with a value of `T` read with repairs in the text
        // before it: the decode weighs the two anew as the span grows (an
        // empty `{` at the end wins over a repaired value before it, and
        // loses once it holds a key `T` does not know), so the whole text is
        // read on every push while the span is cut.
        // So too a value cut in a fence after an earlier fence whose value
        // needed repairs (fences rank above prose, so only those rival it).
        // (Found out only for a value it could lock onto.)
        let rival = lockable
            && report.truncated
            && match report.strategy {
                // (Or after a quote left open, which may yet hold it.)
                // (Or inside a fence or a tag with more content before it:
                // that content is a candidate ranked above prose, which
                // may take it in, `tags: [a]` then `` ```"note": "y"]{" ``.)
                // (Or right after a quote that opens a quotation: the same
                // quote after the opener makes it a bracket named, `"{"`.)
                Strategy::Balanced | Strategy::Trailing => {
                    quote_open_before(&self.text[..start])
                        || extract::quotation_before(self.text.as_bytes(), start, 0)
                        || comment_open_before(&self.text[..start])
                        || self.repaired_before(start)
                        || extract::marked_around(&self.text, start, self.decoder.opts.strategies)
                }
                // (Or inside a candidate left open before the fence, which
                // holds it: a list, `["note": "y"'}` then a fenced `[1, 2`,
                // one string with all after it.)
                Strategy::Fence => {
                    !self.fence_alone(start)
                        || match self.text[..start].rfind("```") {
                            Some(open) => {
                                self.text[..open].contains("```") && self.repaired_before(open)
                            }
                            None => false,
                        }
                }
                _ => false,
            };
        // So too after a closing tag whose reading rests on what follows it
        // on its line (inside a string or not: `extract::close_undecided`).
        if rival || (lockable && extract::close_undecided(&self.text)) {
            self.set_view(view.admitted());
            return Ok(deltas);
        }
        // The untyped view's value must start where the typed one does
        // (and, to lock on, be what the live path reads).
        // (Not kept: read here, once per value the stream may lock onto.)
        let mut read = None;
        if lockable && untyped_start.is_none() {
            let (value, _, span) = self.untyped_view();
            read = Some(value);
            untyped_start = Some(span.map(|s| s.start));
        }
        if !lockable || untyped_start != Some(Some(start)) {
            self.set_view(view.admitted());
            return Ok(deltas);
        }
        let untyped_value = read.as_ref().unwrap_or(&self.value);
        if !report.truncated {
            self.set_view(view.admitted());
            // Complete: only a candidate after it can change the decode. A
            // value whose end a repair placed may end elsewhere once more
            // text arrives (`["Mrs."}` then `, key: ...`: the `}` was the
            // list's closer, and the object goes on), so it is read whole.
            // So is one the view's admission refuses (a required field
            // missing): the decode looks on for a reading that has it, and
            // may find one that goes on past its closer (`{"title": "x"},
            // "id": 7`). So is one whose untyped view (kept) is cut where
            // the typed one is complete: the two readings differ, and the
            // untyped one may grow with any byte (`{"id": 3},note: x` then
            // `/`: the object reopened, its value `x/`).
            if end_is_known(&report) && self.view.is_some() && (!self.untyped_kept || self.done) {
                // A clean value in a fence is final once the fence closes
                // (nothing after it can win); another waits for a candidate.
                let end = report.span.end;
                let fence = match report.strategy {
                    // (Not one the target coerced: a later fence that
                    // needs no coercion wins over it.)
                    Strategy::Fence
                        if report.repairs.is_empty()
                            && report.coercions() == 0
                            && self.fence_alone(start) =>
                    {
                        match self.fence_closed(end) {
                            true => Fence::Closed(None),
                            false => Fence::Open(end),
                        }
                    }
                    _ => Fence::No(end.max(untyped_end)),
                };
                let settled = matches!(fence, Fence::No(_))
                    && !self.untyped_kept
                    && settled(&report, shape, &self.text[..=start], &self.untyped.opts)
                    && !comment_open_before(&self.text[..start])
                    // (Nor an empty object, which a read of values one after
                    // another leaves out beside a real one after it:
                    // `{name},,{}{"id": 3, `.)
                    && extract::past_left_out(self.text.as_bytes(), start) < report.span.end;
                // (A fenced value's prose is looked at from its end.)
                self.retract = Retract::new(start, end);
                self.mode = Mode::After {
                    start,
                    fence,
                    settled,
                };
            }
            return Ok(deltas);
        }
        let fenced = match report.strategy {
            Strategy::Fence => Fenced::Fence,
            // The reply opened with a fence, which the whole candidate
            // strips.
            Strategy::Whole if extract::marker_before(&self.text, start) => Fenced::Whole {
                ticks: false,
                first: None,
            },
            _ => Fenced::No,
        };
        // Repairs are read as they come only in a value that is the whole
        // reply, fence or tag: a span found in prose may lose to another
        // candidate once more text arrives (`{it's: {"a": {k: 1` reads the
        // inner span first, the outer one later), and JSON as written is
        // what keeps such a span from being locked on too early.
        let lenient = matches!(
            report.strategy,
            Strategy::Whole | Strategy::Fence | Strategy::Tag
        );
        match Live::lock(
            &self.text,
            start,
            view,
            (&self.decoder, &self.untyped, &self.reads),
            (fenced, lenient, self.lean),
        ) {
            Ok((mut live, Status::Open)) if live.value == *untyped_value => {
                live.tag = report.strategy == Strategy::Tag;
                if self.changes.is_some() {
                    live.log = Some(Vec::new());
                }
                // From nothing, the live path's own deltas say more.
                let own = std::mem::take(&mut live.deltas);
                if fresh {
                    deltas = own;
                }
                if !self.untyped_kept {
                    live.typed_only();
                }
                self.mode = Mode::Live(Box::new(live));
                // A new live view (the one before may have been live too).
                self.changed();
            }
            Ok((live, _)) => {
                self.set_view(live.view.and_then(View::admitted));
            }
            Err(at) => {
                self.mode = Mode::Whole { tried: Some(start) };
                let tag = report.strategy == Strategy::Tag;
                let untyped_value = untyped_value.clone();
                match self.lock_in_two(start, at, (fenced, lenient, tag), &untyped_value) {
                    Some(mut live) => {
                        let own = std::mem::take(&mut live.deltas);
                        if fresh {
                            deltas = own;
                        }
                        if !self.untyped_kept {
                            live.typed_only();
                        }
                        self.mode = Mode::Live(live);
                        self.changed();
                    }
                    None => {
                        // The view was moved into the failed lock: read it
                        // again.
                        let view = self.view_of(&self.text)?;
                        self.set_view(view);
                    }
                }
            }
        }
        Ok(deltas)
    }

    /// The value that opens at `start` is JSON as written up to `at`, where
    /// the tokenizer met a repair it does not make, all in the text read
    /// now: it is read as if the text had come in two pushes, up to `at`
    /// and the rest, so that the repair is read the tolerant way (a region,
    /// see `live`) as it is when it comes in a later push. (Else the whole
    /// text is read on every push from here on.) `None` where that path
    /// does not read it so: the view of the text up to `at` starts
    /// elsewhere, or the rest is no region the live path reads, or its
    /// untyped view is not `untyped_value`, the whole text's.
    fn lock_in_two(
        &self,
        start: usize,
        at: usize,
        (fenced, lenient, tag): (Fenced, bool, bool),
        untyped_value: &Value,
    ) -> Option<Box<Live<T::Shown>>> {
        if at <= start || !lenient || tag || !self.text.is_char_boundary(at) {
            return None;
        }
        let before = &self.text[..at];
        let (view, report) = self.reads.whole(&self.decoder.viewing(), before).ok()?;
        if report.span.start != start || extract::open_block(before).is_some() {
            return None;
        }
        let (mut live, status) = Live::lock(
            before,
            start,
            view,
            (&self.decoder, &self.untyped, &self.reads),
            (fenced, lenient, self.lean),
        )
        .ok()?;
        if status != Status::Open || extract::closing_tag_in(&self.text, at) {
            return None;
        }
        // (As a lock on that text checks it: its untyped view is what the
        // live path read.)
        match self
            .untyped
            .decode_as::<Value>(before, Shape::Any, false, false)
        {
            Ok((value, report)) if report.span.start == start && value == live.value => {}
            _ => return None,
        }
        // (What the stream's push reads of it: see `refresh`.)
        let status = live.feed(&self.text);
        let read = status == Status::Open
            && !live.failed
            && !live.ends_early()
            && !live.blocked()
            && live.value == *untyped_value;
        if !read {
            return None;
        }
        if self.changes.is_some() {
            live.log = Some(Vec::new());
        }
        Some(Box::new(live))
    }
}

impl<T: Streamable> StreamDecoder<T> {
    /// The objects that completed since the last push, read in the
    /// gathered mode (see `gather`); the whole text from the first that
    /// mode cannot read.
    fn read_gathered(&mut self, mut g: Box<gather::Gathered>) -> Result<Vec<Delta>> {
        let mut deltas = Vec::new();
        while let Ok(next) = g.next(&self.text) {
            let Some(object) = next else {
                self.mode = Mode::Gathered(g);
                // More objects may follow: the list is never
                // complete before `finish`.
                self.done = false;
                return Ok(deltas);
            };
            if !self.gathered(&mut g, &object, &mut deltas) {
                break;
            }
        }
        // Not objects this mode reads: the whole text from now on.
        match self.whole(Some(g.start)) {
            Ok(more) => deltas.extend(more),
            Err(e) => {
                self.owed.append(&mut deltas);
                return Err(e);
            }
        }
        Ok(deltas)
    }

    /// Puts the object written at `object` at the end of the views (see
    /// `gather`), with the untyped view's delta. `false` if a view cannot
    /// take it so.
    fn gathered(
        &mut self,
        g: &mut gather::Gathered,
        object: &std::ops::Range<usize>,
        deltas: &mut Vec<Delta>,
    ) -> bool {
        if !self.lean {
            let part = g.read(&self.reads, &self.decoder, &self.text, object);
            let placed = match (self.view.as_mut(), part) {
                (Some(view), Some(part)) => gather::put(view, part),
                _ => false,
            };
            if !placed {
                return false;
            }
            // The object is the list's last element now.
            self.version += 1;
            if self.changes.is_some() {
                let at = self
                    .view
                    .as_ref()
                    .and_then(|v| self.reads.locate(v, &[Route::Last]));
                match at {
                    Some(at) => self.changes.as_mut().expect("kept").push(Change::Put(at)),
                    None => self.changed(),
                }
            }
        }
        if self.untyped_kept {
            let part = g.read(&Reader::<Value>::Typed, &self.untyped, &self.text, object);
            let (Some(Value::Array(mut one)), Value::Array(list)) = (part, &mut self.value) else {
                return false;
            };
            let (Some(element), true) = (one.pop(), one.is_empty()) else {
                return false;
            };
            deltas.push(Delta::Started {
                path: Path::root().index(list.len()),
                value: element.clone(),
            });
            list.push(element);
        }
        true
    }

    /// Whether the text before `start` holds a value a decode gives as
    /// `T`'s view only with repairs or coercions: a candidate whose weight
    /// a cut one at `start` may pass or fall behind as it grows. (A clean
    /// value there never trades places with it, nor does a placeholder such
    /// as `{name}`: structure made of prose loses to any value without.)
    fn repaired_before(&self, start: usize) -> bool {
        let before = &self.text[..start];
        before.bytes().any(|b| b == b'{' || b == b'[')
            && self
                .reads
                .whole(&self.decoder.viewing(), before)
                .is_ok_and(|(_, report)| {
                    !report.is_clean() && choose::rank(before, report.strategy, &report).prose == 0
                })
    }
}

/// Whether `after` (what follows a fenced value, past spaces) opens with the
/// fence's closing marker: a run of backticks then anything but a letter
/// (`` ```j `` opens a block of its own, as the extraction reads it);
/// `None` while the run is all of `after`.
fn closing_marker(after: &str) -> Option<bool> {
    if !after.starts_with("```") {
        return Some(false);
    }
    let rest = after.trim_start_matches('`');
    rest.bytes().next().map(|c| !c.is_ascii_alphabetic())
}

/// Whether a candidate holding a value after `before` may be open there: a
/// bracket or a quote ([`may_be_enclosed`]), or a fence that is not the
/// value's own ([`fence_open_around`]: markers before the value's fence
/// pair otherwise as more arrive, `` a`{}``` `` then `` ```json {..} ``` ``).
fn enclosed(before: &str) -> bool {
    may_be_enclosed(before) || fence_open_around(before)
}

/// Whether the text before a fenced value may open a candidate that holds
/// the fence (a bracket not closed, a quote left open: a reply that is one
/// value, with the fence in one of its strings): the fenced value is then
/// not final when its fence closes. A reasoning block at the start holds no
/// candidate (a decode reads the reply after it), so its text is not
/// looked at.
fn may_be_enclosed(before: &str) -> bool {
    let before = &before[extract::body(before, extract::first_angle(before)).start..];
    // Brackets counted as prose (every one), and as JSON (those outside
    // strings: `["]```"` leaves the `[` open, its `]` quoted): either may be
    // how a decode reads the text. Each kind is closed by its own only: a
    // `}` in a list is a stray closer a decode skips (`[}{}`: the list
    // holds what follows). (A closer of the other kind closes both for
    // that read, `[{]`: counted open, the text is read whole, which is
    // never wrong.)
    let (mut depth, mut json, mut string, mut escaped) = ([0usize; 2], [0usize; 2], false, false);
    // A container the body opens with, closed and then followed by a comma,
    // may be read again whole with what follows (`{"a": 1}, "b": 2}` is one
    // object, reopened): a value after it is inside that reading.
    let mut opens = before.trim_start().starts_with(['{', '[']);
    let mut reopens = false;
    let b = before.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            _ if escaped => escaped = false,
            b'\\' if string => escaped = true,
            b'"' => string = !string,
            b'{' | b'[' => {
                let k = usize::from(c == b'[');
                depth[k] += 1;
                json[k] += usize::from(!string);
            }
            b'}' | b']' => {
                let k = usize::from(c == b']');
                depth[k] = depth[k].saturating_sub(1);
                if !string {
                    json[k] = json[k].saturating_sub(1);
                    if opens && json == [0, 0] {
                        // (Only that first container.)
                        opens = false;
                        let next = b[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                        reopens = next == Some(&b',');
                    }
                }
            }
            _ => {}
        }
    }
    depth != [0, 0] || json != [0, 0] || string || reopens || quote_open_before(before)
}

/// Whether the text before a value leaves open a fence that is not the
/// value's own (whose opener line, with its language tag, is right before
/// it): that fence's content holds the value and more. A reasoning block
/// at the start is not looked at (see [`may_be_enclosed`]).
fn fence_open_around(before: &str) -> bool {
    let before = &before[extract::body(before, extract::first_angle(before)).start..];
    let mut fences = fence_markers(before);
    if let Some(last) = before.rfind("```") {
        let tag = before[last + 3..].trim();
        if !tag.contains(char::is_whitespace) && tag.bytes().all(|c| c.is_ascii_alphanumeric()) {
            // The value's own fence.
            fences -= 1;
        }
    }
    fences % 2 == 1
}

/// How many fence markers `text` holds: a run of three backticks or more
/// is one, as the extraction reads them.
fn fence_markers(text: &str) -> usize {
    let mut after = After::default();
    text.bytes().chain([b'\n']).for_each(|c| after.take(c));
    after.fences
}

/// Whether a span found in prose after `prose` may be inside a comment for
/// a reading of the whole text as one value (the tolerant scanner skips
/// `//` and `#` comments to the line's end, and `/* */`): a `//`, or a `#`
/// then a space or `#`, earlier on its line, or a `/*` not closed. That
/// reading may win once a value follows the comment (`]//+[` then `{"a":
/// 1}` on the next line is `{"a": 1}`).
fn comment_open_before(prose: &str) -> bool {
    let line = &prose[prose.rfind(['\n', '\r']).map_or(0, |i| i + 1)..];
    line.contains("//")
        || line
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'#' && matches!(w[1], b' ' | b'#' | b'\t'))
        || prose
            .rfind("/*")
            .is_some_and(|at| !prose[at..].contains("*/"))
}

/// Whether `prose` may leave a quote open: the value after it may yet read
/// as that string's text (`(  "{"results": [` is a string once its closing
/// quote arrives). An odd number of double quotes does; so does a reply
/// that opens with a quote (past a reasoning block, a byte-order mark,
/// spaces and a fence line it opens with), whatever the count: the whole
/// reply is a string candidate whose inner quotes a decode judges by what
/// follows them (`""u""\{"` is one string once its last quote arrives).
fn quote_open_before(prose: &str) -> bool {
    // Counted both ways: every quote, and those after no backslash (a
    // decode takes `\"` in prose, even after `\\`, as no quote: `"x: \\"
    // {…} a"` is one string).
    let b = prose.as_bytes();
    let quotes = memchr::memchr_iter(b'"', b);
    let (all, bare) = quotes.fold((0, 0), |(all, bare), at| {
        (all + 1, bare + usize::from(at == 0 || b[at - 1] != b'\\'))
    });
    if all % 2 == 1 || bare % 2 == 1 {
        return true;
    }
    let body = &prose[extract::body(prose, extract::first_angle(prose)).start..];
    let mut rest = body.trim_start_matches('\u{feff}').trim_start();
    if let Some(fenced) = rest.strip_prefix("```") {
        rest = fenced.split_once('\n').map_or("", |(_, r)| r).trim_start();
    }
    rest.starts_with(['"', '\''])
}

/// Whether a decode read several values into a list, the first at `start`
/// (`MultipleValues` there, first of the repairs).
fn multiple_at(report: &crate::report::Reading, start: usize) -> bool {
    report
        .repairs
        .iter()
        .next()
        .is_some_and(|r| r.kind == RepairKind::MultipleValues && r.offset == start)
}

/// Whether a complete value's end is where its text says, whatever comes
/// after it: none of its repairs is one whose reading can move the end (a
/// closer taken for another kind or dropped, a quote's extent judged by
/// what follows, a wrapper's or a concatenation's reach, text skipped).
/// Repairs inside the value (quotes, keys without quotes, trailing commas,
/// comments, literals) and prose after it leave the end where it is.
fn end_is_known(report: &crate::report::Reading) -> bool {
    use crate::RepairKind as K;
    report.repairs.iter().all(|r| {
        !matches!(
            r.kind,
            K::MismatchedCloser
                | K::StrayCloser
                | K::MissingCloser
                | K::MissingQuote
                | K::InnerQuote
                | K::MissingComma
                | K::Wrapper
                | K::Concatenation
                | K::EscapedJson
                | K::Skipped
        )
    })
}

/// Whether a decode that read `report` took a value that a span found in
/// the prose after it cannot replace: an object (`to` is the text up to
/// its first byte) found as the whole text or a span in prose, for an
/// object target, or a span after prose for an untyped one (values one
/// after another that the reply opens with are read together for it: `{}`
/// then `[]` is `[{}, []]`, and so is `}{}[]`, whose stray `}` a read of
/// the whole text skips), read with no repair and no coercion. Among the candidates
/// that decode, one read with fewer and lighter fixes wins and a tie goes
/// to the earlier (`choose`), so a later span could only tie; fences and
/// tags rank above spans, and an array or a gathered list is no object.
/// (A value read with a coercion loses to a later span read without:
/// `{"n": "1"}` then `{"n": 2}`. An untyped target's candidate is refused
/// as no value by what it holds alone, for an object: `{name}`.)
fn settled(
    report: &crate::report::Reading,
    shape: Shape,
    to: &str,
    opts: &crate::options::Options,
) -> bool {
    to.ends_with('{')
        && match shape {
            Shape::Object => matches!(report.strategy, Strategy::Whole | Strategy::Balanced),
            // Not when a read of the whole text starts at the object,
            // past stray bytes it skips (`}{"a": 1}`, `: {`): it gathers
            // the values after it.
            Shape::Any => report.strategy == Strategy::Balanced && !root_at(to, opts),
            _ => false,
        }
        && report.repairs.is_empty()
        && report.coercions.is_empty()
        && report.unlisted == 0
        && !report.truncated
}

/// Whether the value whose first byte ends `to` is one a read of the whole
/// text (its body, past a reasoning block and markers) takes as a
/// top-level value: the first (no value before it, only what such a read
/// skips: stray closers and colons, `}{"a": 1}`; never prose, a sentence
/// is read as a value), or one after objects and arrays it read before
/// (`{note: 'z'}{"id": 1}`), which it gathers with them.
fn root_at(to: &str, opts: &crate::options::Options) -> bool {
    let body = extract::body(to, extract::first_angle(to))
        .start
        .min(to.len() - 1);
    crate::scan::root_at(&to[body..], to.len() - 1 - body, &opts.scan(false, true))
}

/// What the text after a complete value says of it: whether it takes the
/// value back (see [`StreamDecoder::taken_back`]).
#[derive(Clone, Copy, Debug)]
struct Retract {
    /// The value (where it ends, or where a fenced one starts).
    of: usize,
    /// Where the look for words that take it back resumes.
    from: usize,
    /// Where the first such word starts.
    cue: Option<usize>,
    /// How far the text after it was looked at for a bracket or a
    /// backtick, and whether one came.
    seen: usize,
    more: bool,
    /// Where the value starts, and whether its label says it is wrong (see
    /// [`StreamDecoder::labelled_wrong`]).
    label: (usize, bool),
    /// Its label names it no answer (`Input: {…}`): the look for a later
    /// value labelled the answer.
    answer: Option<Answer>,
    /// Where the value ends (or, fenced, where the text after it is
    /// looked at from).
    end: usize,
    /// What the sentence after it says of it (see
    /// [`StreamDecoder::withdrawn`]).
    withdraw: crate::prose::Said,
    /// Once it does: how far the text after that sentence was looked at
    /// for a byte that may open a value, and whether one came.
    opener: (usize, bool),
}

/// The look, after a value labelled no answer, for a later value labelled
/// the answer (see [`StreamDecoder::labelled_wrong`]): a word that may say
/// so, then a byte that may open a value.
#[derive(Clone, Copy, Debug)]
struct Answer {
    /// Where the look for the word resumes (at first where the value ends).
    from: usize,
    /// Where the first such word starts.
    word: Option<usize>,
    /// How far the text after it was looked at for a bracket, a backtick
    /// or a `<`, and whether one came.
    seen: usize,
    more: bool,
}

impl Retract {
    fn new(of: usize, from: usize) -> Retract {
        Retract {
            of,
            from,
            cue: None,
            seen: 0,
            more: false,
            label: (usize::MAX, false),
            answer: None,
            end: from,
            withdraw: crate::prose::Said::NONE,
            opener: (0, false),
        }
    }
}

/// What the text after a complete value outside a fence holds, looked at
/// once per byte: a candidate being written there may win as it grows,
/// with no bracket or quote in the bytes that make it so (`{"a": 1} {b: `
/// then `2`; a fence or a tag opened after the value, then `42`: a decode
/// ranks their values above a span in prose).
#[derive(Clone, Copy, Debug, Default)]
struct After {
    /// The value's start and end.
    start: usize,
    end: usize,
    /// How far the text after it has been looked at.
    at: usize,
    /// Braces and square brackets opened there and not closed, each
    /// closed by its own kind only: a `}` in a list is a stray closer that
    /// leaves it open (`[}`), as a read of the text skips it. (A closer of
    /// the other kind closes both for that read, `[{]`: counted open, the
    /// text is read whole, which is never wrong.) Those in strings inside
    /// them are not counted (see `quote`).
    depth: [usize; 2],
    /// Fence markers (a run of three backticks or more is one, as the
    /// extraction reads them: ```` `````` ```` opens a fence) in the whole
    /// text up to the backticks at `at`: odd, a fence is open.
    fences: usize,
    /// Backticks in a row just before `at`.
    ticks: usize,
    /// A `<` just before `at` (what follows says whether it closes a tag).
    angle: bool,
    /// Tags opened there (`<` then anything but `/`) and not closed.
    tags: usize,
    /// The line at `at` holds text (the value's own, or since the last line
    /// break; spaces, tabs and `>` are none).
    words: bool,
    /// The backticks just before `at` came after text on their line.
    ticks_in_line: bool,
    /// A fence marker came after text on its line: whether a decode takes
    /// it for a fence (one that follows a space and precedes a language
    /// tag) or for a word's (`x```json`) is not counted here, so the
    /// markers' count says nothing more. So for one right before a letter
    /// while a fence is open (closing it, or opening a sample inside it).
    inline_marker: bool,
    /// Whether a comma and a key after the object the reply opens with
    /// reopen it (see [`reopened`]), once that is decided.
    reopens: Option<bool>,
    /// How far the spaces and comments after the value have been skipped:
    /// to the first byte past them, once it is known to be that.
    next: usize,
    /// A block comment opened after the value and not closed: a decode
    /// reads one left open in more than one way as it grows (`/* 2 *` then
    /// `,` trades the value for a list of the reply's values).
    comment: bool,
    /// The byte before `at`.
    last: u8,
    /// A fence closed after the value, and nothing but spaces has come
    /// after its marker yet.
    closed: bool,
    /// The first byte past those spaces came (taken back by
    /// [`after_matters`](StreamDecoder::after_matters)): a reply that ends
    /// with a fence reads otherwise than one with text after it (the
    /// fence may be the whole reply), so that byte matters.
    woke: bool,
    /// A colon came inside a list there: a decode reads a key and its
    /// value in a list as an object with no braces, which the list's `]`
    /// may close instead of the list (`[note: x"note": "y"]` then `t`, the
    /// list's next value), so the depth no longer says when it closes.
    colon_in_list: bool,
    /// The quote of a string opened inside a bracket there (`['` then
    /// `\n],1`: the closer is the string's): brackets are not counted
    /// until it closes. (Outside brackets, a quote is prose's, `it's`.)
    quote: u8,
    /// The byte before `at` was a backslash in that string.
    escaped: bool,
}

impl After {
    /// Looks at the next byte after the value.
    fn take(&mut self, c: u8) {
        match (self.comment, self.last, c) {
            (false, b'/', b'*') => (self.comment, self.last) = (true, 0),
            (true, b'*', b'/') => (self.comment, self.last) = (false, 0),
            _ => self.last = c,
        }
        if std::mem::take(&mut self.angle) {
            match c {
                b'/' => self.tags = self.tags.saturating_sub(1),
                _ => self.tags += 1,
            }
        }
        if self.quote != 0 {
            match c {
                _ if std::mem::take(&mut self.escaped) => {}
                b'\\' => self.escaped = true,
                _ if c == self.quote => self.quote = 0,
                _ => {}
            }
        } else {
            match c {
                b'{' => self.depth[0] += 1,
                b'[' => self.depth[1] += 1,
                b'}' => self.depth[0] = self.depth[0].saturating_sub(1),
                b']' => self.depth[1] = self.depth[1].saturating_sub(1),
                b':' if self.depth[1] > 0 => self.colon_in_list = true,
                b'"' | b'\'' if self.depth != [0, 0] => self.quote = c,
                _ => {}
            }
        }
        if c == b'<' {
            self.angle = true;
        }
        if c == b'`' {
            if self.ticks == 0 {
                self.ticks_in_line = self.words;
            }
            self.ticks += 1;
        } else {
            // (So is a marker right before a letter while a fence is open:
            // inside a fenced value it opens a sample, `` ```js ``, and
            // closes nothing.)
            let tagged = c.is_ascii_alphabetic() && self.fences % 2 == 1;
            if self.ticks >= 3 && (self.ticks_in_line || tagged) {
                self.inline_marker = true;
            }
            if self.ticks >= 3 {
                self.fences += 1;
                self.closed = self.fences % 2 == 0;
            }
            self.ticks = 0;
            if self.closed && !matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                (self.closed, self.woke) = (false, true);
            }
            match c {
                b'\n' => self.words = false,
                b' ' | b'\t' | b'\r' | b'>' => {}
                _ => self.words = true,
            }
        }
    }

    /// A fence, a tag or a block comment may be open after the value (or
    /// being written): every push may change what the text decodes to.
    fn open_region(&self) -> bool {
        self.fences % 2 == 1
            || self.ticks >= 3
            || self.tags > 0
            || self.angle
            || self.inline_marker
            || self.comment
    }
}

/// Whether the object that ended at `end`, the outermost container of the
/// reply, is reopened by what follows it: a comma, then a key and its colon
/// or a quoted string and another quote (`reopens` in `src/scan/mod.rs`),
/// once the text says (`None` while its look runs into the end of `b`).
fn reopened(b: &[u8], end: usize) -> Option<bool> {
    use crate::scan::lex;
    let len = b.len();
    let j = lex::next_significant(b, end, len);
    if j >= len || lex::ws_reach(b, j, len) >= len {
        return None;
    }
    if b[j] != b',' {
        return Some(false);
    }
    let k = lex::next_significant(b, j + 1, len);
    if k >= len {
        return None;
    }
    let (colon, mut reach) = lex::key_then_colon_reach(b, k, len);
    let reopens = colon.is_some() || {
        let (e, at) = lex::simple_string_end_reach(b, k, len);
        reach = reach.max(at);
        e.is_some_and(|e| {
            let n = lex::next_significant(b, e, len);
            reach = reach.max(lex::ws_reach(b, n, len));
            n < len && lex::quote_at(b, n, len).is_some()
        })
    };
    (reach < len).then_some(reopens)
}

/// Whether text after a complete value may hold another candidate (a
/// bracket, a fence, a tag, a quote) or change one (a colon that makes a
/// word before it a key, `, tags:`): the whole text is then read again.
fn may_matter(after: &[u8]) -> bool {
    after.iter().any(|b| {
        matches!(
            b,
            b'{' | b'}' | b'[' | b']' | b'`' | b'<' | b'>' | b'"' | b'\'' | b':'
        )
    })
}

/// How much of `text` is prose in which no decode finds a value for a
/// target that wants an object or an array, nor an untyped one, when what
/// follows it is at most [`opening_fence`]; `None` when there is no such
/// prose. The prose starts with a word that holds no double quote and
/// holds a second word (so it is no bare literal, `tru` growing into
/// `true`, and no string missing its opening quote), and holds only
/// [`quiet_byte`]s (nothing that starts a candidate: no bracket, backtick
/// or angle bracket, and no non-ASCII text such as a byte-order mark or a
/// full-width colon; a quoted word in a sentence that starts with a word
/// is no value). A decode of such text finds nothing, and
/// still nothing while more of it arrives (the stream's tests check each
/// split of each reply against a decode of the text so far).
fn quiet_prose(text: &[u8]) -> Option<usize> {
    let first = text.iter().position(|b| !b.is_ascii_whitespace())?;
    let end = text
        .iter()
        .position(|&b| !quiet_byte(b))
        .unwrap_or(text.len());
    // (A form feed is whitespace, but no quiet byte.)
    let words = text.get(first..end)?;
    let gap = words.iter().position(u8::is_ascii_whitespace)?;
    let two = words[gap..].iter().any(|b| !b.is_ascii_whitespace());
    // (A double quote in the first word may close a string missing its
    // opening quote: `cf222f143b",` is that string, and more may follow.)
    let quoted = words[..gap].contains(&b'"');
    // (A reply that opens with a literal, `true` or `None`, is read as
    // values while what follows reads as values too, `true "x"` a list of
    // two: prose once a later word is a word, `None of these`, with no
    // quote before it, which may open a string that holds it, `true'
    // note: x's'`.)
    let literal = |w: &[u8]| {
        let n = w.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        std::str::from_utf8(&w[..n]).is_ok_and(crate::scan::is_literal)
    };
    let prose = !literal(&words[..gap]) || {
        let word = words[gap..]
            .split(u8::is_ascii_whitespace)
            .scan(gap, |at, w| {
                let start = *at;
                *at += w.len() + 1;
                Some((start, w))
            })
            .find(|(_, w)| w.first().is_some_and(u8::is_ascii_alphabetic) && !literal(w));
        word.is_some_and(|(at, _)| !words[..at].iter().any(|b| matches!(b, b'\'' | b'"')))
    };
    (words[0].is_ascii_alphabetic() && two && !quoted && prose && opening_fence(&text[end..]))
        .then_some(end)
}

/// Whether `rest` (what follows quiet prose) is empty or a code fence's
/// opener being written: whitespace, backticks, and the start of a
/// language tag (16 letters at most: each push looks at it again), with no
/// line of the block yet.
fn opening_fence(rest: &[u8]) -> bool {
    let ticks = rest.iter().position(|&b| b == b'`').unwrap_or(rest.len());
    let tag = &rest[ticks..];
    let n = tag.iter().take_while(|&&b| b == b'`').count();
    rest[..ticks].iter().all(u8::is_ascii_whitespace)
        && tag[n..].len() <= 16
        && tag[n..].iter().all(u8::is_ascii_alphanumeric)
}

/// Whether `b` is a letter, a digit, whitespace, a quote or sentence
/// punctuation (see [`quiet_prose`]).
fn quiet_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b' ' | b'\t'
                | b'\n'
                | b'\r'
                | b','
                | b'.'
                | b'!'
                | b'?'
                | b';'
                | b':'
                | b'-'
                | b'\''
                | b'"'
                | b'*'
                | b'%'
                | b'&'
                | b'+'
                | b'='
                | b'_'
        )
}

/// The value at `path` in `view`.
fn get<'v>(view: &'v Value, path: &Path) -> Option<&'v Value> {
    let mut at = view;
    for seg in path.segments() {
        at = match (seg, at) {
            (Segment::Key(k), Value::Object(m)) => m.get(&**k)?,
            (Segment::Index(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(at)
}

/// Whether `v` holds a number the untyped view may not hold exactly: a
/// whole number beyond what an `f64` counts to exactly (an integer wider
/// than 64 bits is held as a float there).
fn inexact(v: &Value) -> bool {
    match v {
        Value::Number(n) => n
            .as_f64()
            .is_some_and(|f| !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() >= 9.0e15),
        Value::Array(a) => a.iter().any(inexact),
        Value::Object(m) => m.values().any(inexact),
        _ => false,
    }
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
        T: Streamable,
    {
        StreamDecoder::with_decoder(self.clone())
    }
}
#[cfg(feature = "futures")]
pub mod futures;
