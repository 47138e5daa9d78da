//! The tolerant scanner: a repairing state machine with an explicit container
//! stack that turns a candidate span into a well-formed stream of [`Event`]s.
//!
//! It never recurses (so a million `[` cost a `Vec`, not the call stack), it
//! records every repair with its offset in the caller's text, and at the end of
//! the input it completes what was cut off: it closes the open string and
//! containers, drops a dangling key, comma or colon, and finishes a cut literal.

mod fast;
pub(crate) mod lex;
pub(crate) mod number;
pub(crate) mod part;
pub(crate) mod resume;
mod string;
pub(crate) mod tape;

use std::ops::Range;

pub(crate) use number::{classify, parse_f64, NumValue};

use crate::error::{Error, ErrorKind, Result};
use crate::policy::Rules;
use crate::report::{Repair, RepairKind, Repairs};
use lex::{is_word, key_then_colon, next_significant, quote_at};

/// A string's content: borrowed from the input when it needed no unescaping
/// or repair, else held in the scanner's scratch buffer (while scanning) or
/// in the tape's side buffer, at a start and length (once taped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Text<'de> {
    Borrowed(&'de str),
    Scratch,
    Side(u32, u32),
}

/// A number: its JSON spelling and its `serde_json` classification.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Number<'de> {
    pub text: Text<'de>,
    pub value: NumValue,
}

/// One step of the event stream. Keys and values alternate inside objects;
/// the stream is always well formed.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event<'de> {
    StartObject,
    EndObject,
    StartArray,
    EndArray,
    Key(Text<'de>),
    Str(Text<'de>),
    Num(Number<'de>),
    Bool(bool),
    Null,
    /// The end of the value (returned again on every later call).
    Eof,
}

/// What reads a candidate's events in order: a cursor on the tape the
/// scanner wrote, or the scanner itself where no value's completeness is
/// asked for before its end (`repair()` keeping every cut value), so that
/// nothing is stored.
pub(crate) trait Events<'de> {
    /// The next event.
    fn next(&mut self) -> Result<Event<'de>>;
    /// The next event, left in place.
    fn peek(&mut self) -> Result<Event<'de>>;
    /// Whether the last event returned or peeked starts a complete value.
    fn complete(&self) -> bool;
    /// The offset of the last event returned or peeked.
    fn offset(&self) -> usize;
    /// The content of a key's, string's or number's text.
    fn str(&self, t: Text<'de>) -> &str;
    /// Whether the read has reached where the reply was cut off.
    fn reached_cut(&self) -> bool;
}

impl<'de> Events<'de> for Scanner<'de> {
    fn next(&mut self) -> Result<Event<'de>> {
        Scanner::next(self)
    }
    fn peek(&mut self) -> Result<Event<'de>> {
        Scanner::peek(self)
    }
    fn complete(&self) -> bool {
        self.complete
    }
    fn offset(&self) -> usize {
        self.token_start
    }
    fn str(&self, t: Text<'de>) -> &str {
        Scanner::str(self, t)
    }
    fn reached_cut(&self) -> bool {
        self.truncated
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    Object,
    Array,
    /// `(1, 2)`: an array closed by `)`.
    Tuple,
    /// `callback(...)` or `(value)`: transparent, closed by `)`.
    Group,
    /// `{"a", "b"}` (a set literal): an array closed by `}`.
    Set,
    /// The synthetic array that gathers several top-level values.
    Roots,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A value is expected (at the root, after `:`, after `,` in an array).
    Value,
    /// After `[`: a value or `]`.
    ArrayStart,
    /// After `{`: a key or `}`.
    ObjectStart,
    /// After `,` in an object: a key (or `}` after a trailing comma).
    ObjectKey,
    /// After a value inside a container: `,` or the closer.
    AfterValue,
    /// After the root value (single-root mode).
    AfterRoot,
    /// Closing containers until the stack has this many frames.
    Closing(usize),
    /// `Eof` was returned.
    Done,
}

/// The place a string or bare word is read in, which decides what may end it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ctx {
    Key,
    Object,
    Array,
    Root,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Where {
    ctx: Ctx,
    /// Inside parentheses: `)` also ends a value.
    paren: bool,
}

/// How the scanner reads its span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ScanOptions {
    pub max_depth: usize,
    /// Gather every top-level value into one array.
    pub multi: bool,
    /// The partial policy is on: a string that ran into the end and was
    /// ended at a guessed place (`{"a": "b}`) is not complete, and makes
    /// the read truncated. (`repair()` with every kind of cut value
    /// allowed takes the guess as it is.)
    pub partial: bool,
    /// A view of a reply still being written is read: what only the next
    /// byte settles is not complete yet (a string closed by a quote at the
    /// end of the text, which the next byte may show to be inside it; a
    /// number or literal at the top level that ends the text).
    pub view: bool,
    /// The repairs allowed: a repair of a denied kind is an
    /// [`ErrorKind::Denied`] error where it would be made.
    pub rules: Rules,
    /// The fast lane is taken (always, but in the tests that compare every
    /// event and decode with it closed).
    #[cfg(test)]
    pub lane: bool,
}

/// The inputs of the conformance corpora in `tests/corpus` (for the
/// scanner's tests that compare two ways of reading on every one).
#[cfg(test)]
pub(crate) fn corpus_inputs() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    let mut inputs = Vec::new();
    for file in [
        "json_repair.jsonl",
        "jsonrepair_js.jsonl",
        "partial_json_parser.jsonl",
    ] {
        let all = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        for line in all.lines() {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(input) = case["input"].as_str() {
                inputs.push(input.to_owned());
            }
        }
    }
    inputs
}

/// What reads of many small texts (the stream's parts, a few bytes each,
/// thousands of them) pass from one to the next: the scanner's buffers and
/// the tape, emptied, so that each read allocates nothing they hold; and
/// the tapes of the last few texts, which come back (the parts [`part`]
/// does not write unread, such as an element's opening after an internally
/// tagged enum's tag): a tape is what the scanner reads from the text with
/// the options, nothing else, so one read before is the same.
#[derive(Debug, Default)]
pub(crate) struct Spare {
    stack: Vec<Frame>,
    opened: Vec<usize>,
    scratch: String,
    repairs: Repairs,
    /// The tape the next read writes.
    pub(crate) tape: tape::Tape,
    /// Recent reads of short texts, and which one goes next.
    recent: Vec<Recent>,
    next: usize,
}

/// A short text's tape (see [`Spare`]), with where its read stopped.
#[derive(Debug)]
struct Recent {
    text: String,
    opts: ScanOptions,
    tape: tape::Tape,
    offset: usize,
}

/// How many recent tapes a [`Spare`] keeps, and how long a text it keeps one
/// for.
const RECENT: usize = 8;
const RECENT_LEN: usize = 256;

impl Spare {
    /// [`tape_of`](Self::tape_of) a stream's part: written unread where it
    /// can be (see [`part`]), else read.
    pub(crate) fn tape_of_part(
        &mut self,
        p: &part::PartText<'_>,
        opts: &ScanOptions,
    ) -> (&tape::Tape, usize) {
        // A part whose events are given is never read from its text (a
        // read of it alone may read its repairs otherwise).
        if p.events.is_some() {
            self.tape.clear();
            return match part::write(p, &mut self.tape) {
                Some(offset) => (&self.tape, offset),
                None => {
                    self.tape.clear();
                    let e = crate::error::Error::at(
                        crate::error::ErrorKind::Syntax,
                        "a part not written as a stream writes one",
                        0,
                    );
                    self.tape.fail(e, 0);
                    (&self.tape, 0)
                }
            };
        }
        if opts.partial && !opts.multi && opts.rules.all_repairs() {
            self.tape.clear();
            if let Some(offset) = part::write(p, &mut self.tape) {
                #[cfg(test)]
                {
                    let written = format!("{:?}", self.tape);
                    let mut spare = Spare::default();
                    let (tape, read_to) = spare.tape_of(p.text, opts);
                    assert_eq!(
                        (written, offset),
                        (format!("{tape:?}"), read_to),
                        "the part {:?} written unread",
                        p.text
                    );
                }
                return (&self.tape, offset);
            }
        }
        self.tape_of(p.text, opts)
    }

    /// The tape of `text` read with `opts`, and where the read stopped:
    /// a recent one, or read now.
    pub(crate) fn tape_of(&mut self, text: &str, opts: &ScanOptions) -> (&tape::Tape, usize) {
        if let Some(i) = self
            .recent
            .iter()
            .position(|r| r.text == text && r.opts == *opts)
        {
            return (&self.recent[i].tape, self.recent[i].offset);
        }
        let mut tape = std::mem::take(&mut self.tape);
        tape.clear();
        let span = 0..text.len();
        let summary = Scanner::over(text, std::slice::from_ref(&span), opts)
            .with_spare(self)
            .tape_spare(&mut tape, self);
        let offset = summary.offset;
        let mut repairs = summary.repairs;
        repairs.clear();
        self.repairs = repairs;
        if text.len() > RECENT_LEN {
            self.tape = tape;
            return (&self.tape, offset);
        }
        let i = self.next;
        self.next = (i + 1) % RECENT;
        match self.recent.get_mut(i) {
            // The entry it takes the place of gives its buffers.
            Some(old) => {
                old.text.clear();
                old.text.push_str(text);
                old.opts = *opts;
                old.offset = offset;
                self.tape = std::mem::replace(&mut old.tape, tape);
            }
            None => self.recent.push(Recent {
                text: text.to_owned(),
                opts: *opts,
                tape,
                offset,
            }),
        }
        (&self.recent[i].tape, offset)
    }

    /// Keeps a scanner's buffers, emptied.
    fn keep(&mut self, stack: &mut Vec<Frame>, opened: &mut Vec<usize>, scratch: &mut String) {
        stack.clear();
        std::mem::swap(&mut self.stack, stack);
        opened.clear();
        std::mem::swap(&mut self.opened, opened);
        scratch.clear();
        std::mem::swap(&mut self.scratch, scratch);
    }
}

pub(crate) struct Scanner<'de> {
    /// See [`ScanOptions::lane`].
    #[cfg(test)]
    lane: bool,
    text: &'de str,
    b: &'de [u8],
    pos: usize,
    end: usize,
    /// Further spans to read after this one (gathering mode), last first.
    segments: Vec<Range<usize>>,
    stack: Vec<Frame>,
    /// Where each frame of the stack opened.
    opened: Vec<usize>,
    depth: usize,
    max_depth: usize,
    state: State,
    /// A key was returned and its value has not started yet.
    awaiting_value: bool,
    /// An object was opened and its `StartObject` is held back until its first
    /// key shows whether it is really a set (`{"a", "b"}`).
    object_pending: bool,
    /// An event to return next, with the offset of its token.
    pending: Option<(Event<'de>, usize)>,
    /// Where the held-back object opened.
    object_open: usize,
    peeked: Option<Event<'de>>,
    scratch: String,
    repairs: Repairs,
    truncated: bool,
    /// After the root value there is another value (single-root mode).
    more_roots: bool,
    /// The last top-level value was a scalar.
    scalar_root: bool,
    /// How many top-level values have started, and how many were scalars.
    roots: u32,
    scalar_roots: u32,
    /// How many top-level values were bare prose (a word or sentence taken
    /// as a string).
    prose_roots: u32,
    /// Where the first `"` of a line was last found: (searched from, found
    /// at or line end, found).
    quote_hint: (usize, usize, bool),
    /// Whether that quote closes a bare value, for the place it was judged in.
    quote_verdict: Option<(usize, Ctx, bool, bool, usize)>,
    /// Offset of the start of the last token returned.
    token_start: usize,
    /// After a quoted string: the position of the next significant byte.
    follow: usize,
    /// Where the root value ended (single-root mode).
    root_end: usize,
    /// Whether the last event returned is a complete value: `false` for a
    /// scalar cut off at the end. (A container's completeness is known when
    /// it closes: see [`cut_close`](Self::cut_close).)
    complete: bool,
    /// The last event returned is a container's end written by the
    /// scanner at the end of the input, not by the reply: the container
    /// was cut off.
    cut_close: bool,
    /// Whether the held-back event is such an end.
    pending_cut: bool,
    /// The last event returned is the end of the array that gathers
    /// several top-level values (never cut: it is no value of the reply's).
    roots_close: bool,
    /// See [`ScanOptions::partial`].
    partial: bool,
    /// See [`ScanOptions::view`].
    view: bool,
    /// How far the last step looked, where its path says exactly (a
    /// string closed at its quote by the delimiter right after it, a key
    /// and its colon, a literal before a delimiter, a closer and the byte
    /// after it, an opening `[`): the bytes it read end before this.
    /// `usize::MAX`: not said (see `resume::HORIZON`).
    pub(super) reach: usize,
    /// How far the step's look-aheads over prose looked, where each says
    /// (an inner quote's judgment, a bare value's end: see `lex::ws_reach`):
    /// the bytes they read end before this. `usize::MAX`: one did not say.
    /// Becomes the step's [`reach`](Self::reach) where the step says every
    /// look it made.
    looked: std::cell::Cell<usize>,
    /// The last string or key the step read ended plainly: a quote closed
    /// by the delimiter right after it, or a bare key ended before the end
    /// of the text.
    plain: bool,
    rules: Rules,
    /// How many repairs have been checked against the rules.
    checked: usize,
    /// The text may go on past `end` (a scanner resumed as a reply
    /// streams): the fast lane takes nothing there to follow a token, and
    /// a string that runs into the end is parked.
    open_end: bool,
    /// A string ran into the end of the text (since a resumed scanner's
    /// step began): where it ends was judged by where the text ends, which
    /// more text changes.
    met_end: bool,
    /// A quoted string's read stopped by the end of the text, to go on
    /// from there when the string is read again (see `string::Parked`).
    parked: Option<Box<string::Parked>>,
    /// A resumed scanner's buffers to take a step back with, kept between
    /// steps (see `resume::Snapshot`).
    undo: Option<Box<resume::Snapshot>>,
}

/// Whether a read of all of `text` that takes values one after another
/// (`multi`) takes one starting at `at` as a top-level value: the first,
/// or one after values it read before (`{a: 1}{"b": 2}`: both). Only
/// containers before it count: after any other top-level value (a word,
/// a sentence, a number), `false`.
pub(crate) fn root_at(text: &str, at: usize, opts: &ScanOptions) -> bool {
    let opts = ScanOptions {
        multi: true,
        ..*opts
    };
    let mut s = Scanner::over(text, std::slice::from_ref(&(0..text.len())), &opts);
    let mut depth = 0usize;
    loop {
        let Ok(ev) = s.next() else {
            return false;
        };
        // (The multi read wraps its values in a list of its own.)
        let value = !matches!(ev, Event::EndObject | Event::EndArray | Event::Eof);
        if depth == 1 && value {
            let offset = s.offset();
            if offset >= at {
                return offset == at;
            }
            if !matches!(ev, Event::StartObject | Event::StartArray) {
                return false;
            }
        }
        match ev {
            Event::StartObject | Event::StartArray => depth += 1,
            Event::EndObject | Event::EndArray => depth = depth.saturating_sub(1),
            Event::Eof => return false,
            _ => {}
        }
    }
}

impl<'de> Scanner<'de> {
    /// A scanner over several spans, read in order (used with `multi`).
    pub(crate) fn over(text: &'de str, spans: &[Range<usize>], opts: &ScanOptions) -> Scanner<'de> {
        let first = spans.first().cloned().unwrap_or(0..0);
        let mut s = Scanner {
            text,
            b: text.as_bytes(),
            pos: first.start,
            end: first.end,
            segments: spans.iter().skip(1).rev().cloned().collect(),
            stack: Vec::new(),
            opened: Vec::new(),
            depth: 0,
            #[cfg(test)]
            lane: opts.lane,
            max_depth: opts.max_depth,
            state: State::Value,
            awaiting_value: false,
            object_pending: false,
            pending: None,
            object_open: 0,
            peeked: None,
            scratch: String::new(),
            repairs: Repairs::default(),
            truncated: false,
            more_roots: false,
            scalar_root: false,
            roots: 0,
            scalar_roots: 0,
            prose_roots: 0,
            quote_hint: (0, 0, false),
            quote_verdict: None,
            token_start: first.start,
            follow: 0,
            root_end: 0,
            complete: true,
            cut_close: false,
            pending_cut: false,
            roots_close: false,
            partial: opts.partial,
            view: opts.view,
            reach: usize::MAX,
            looked: std::cell::Cell::new(0),
            plain: false,
            rules: opts.rules,
            checked: 0,
            open_end: false,
            met_end: false,
            parked: None,
            undo: None,
        };
        if opts.multi {
            s.stack.push(Frame::Roots);
            s.opened.push(first.start);
            s.pending = Some((Event::StartArray, first.start));
        }
        s
    }

    /// The scanner with `spare`'s buffers in place of new ones (see
    /// [`Spare`]).
    pub(crate) fn with_spare(mut self, spare: &mut Spare) -> Scanner<'de> {
        if self.stack.is_empty() {
            std::mem::swap(&mut self.stack, &mut spare.stack);
            std::mem::swap(&mut self.opened, &mut spare.opened);
        }
        std::mem::swap(&mut self.scratch, &mut spare.scratch);
        std::mem::swap(&mut self.repairs, &mut spare.repairs);
        self
    }

    /// Whether another top-level value follows the root value.
    pub(crate) fn more_roots(&self) -> bool {
        self.more_roots
    }

    /// Where the root value ended, when the scanner stopped after it.
    pub(crate) fn root_end(&self) -> Option<usize> {
        (self.state == State::Done && self.root_end > 0).then_some(self.root_end)
    }

    /// How many top-level values were read.
    pub(crate) fn roots(&self) -> u32 {
        self.roots
    }

    /// Whether any top-level value was bare prose, not JSON.
    pub(crate) fn prose_roots(&self) -> bool {
        self.prose_roots > 0
    }

    /// Whether every top-level value was an object or an array.
    pub(crate) fn roots_are_containers(&self) -> bool {
        self.roots > 0 && self.scalar_roots == 0
    }

    /// Offset of the last token returned, for error positions.
    pub(crate) fn offset(&self) -> usize {
        self.token_start
    }

    /// The content of a [`Text`] returned by the last event.
    pub(crate) fn str(&self, t: Text<'de>) -> &str {
        match t {
            Text::Borrowed(s) => s,
            Text::Scratch | Text::Side(..) => &self.scratch,
        }
    }

    /// The next event.
    #[inline]
    pub(crate) fn next(&mut self) -> Result<Event<'de>> {
        match self.peeked.take() {
            Some(ev) => Ok(ev),
            None => self.read(),
        }
    }

    /// The next event, none being peeked. Kept out of line: `next` and
    /// `peek`, inlined where the decoder calls them, only test for a peeked
    /// event.
    #[inline(never)]
    fn read(&mut self) -> Result<Event<'de>> {
        // Read, and cleared only when set: a `take` writes on every call,
        // and it is rarely set.
        self.plain = false;
        if let Some((ev, at)) = self.pending {
            // Held back: no look ahead.
            self.reach = self.pos;
            self.pending = None;
            self.token_start = at;
            self.complete = true;
            self.cut_close = self.pending_cut;
            self.pending_cut = false;
            if let Event::Key(_) = ev {
                self.awaiting_value = true;
            }
            return Ok(ev);
        }
        self.advance()
    }

    /// Whether the last event returned is a top-level value written as bare
    /// prose (a word or sentence taken as a string), not as JSON.
    pub(crate) fn prose_root(&self) -> bool {
        self.stack.is_empty()
            && self.repairs.last().is_some_and(|r| {
                r.kind == RepairKind::UnquotedString && r.offset >= self.token_start
            })
    }

    /// The next event, left in place.
    #[inline]
    pub(crate) fn peek(&mut self) -> Result<Event<'de>> {
        if let Some(ev) = self.peeked {
            return Ok(ev);
        }
        let ev = self.read()?;
        self.peeked = Some(ev);
        Ok(ev)
    }

    #[cold]
    fn record(&mut self, kind: RepairKind, offset: usize) {
        self.repairs.push(Repair { kind, offset });
    }

    /// With some repair kinds denied: the first repair of a denied kind made
    /// since the last check is an error. Checked when an event is returned,
    /// not when the repair is recorded, because a step may relabel a repair
    /// it made (a word taken as a string turns out to be a stray word) or
    /// take it back (a string read again with a limit).
    #[cold]
    fn check_rules(&mut self) -> Result<()> {
        let n = self.repairs.len();
        let from = self.checked.min(n);
        self.checked = n;
        match self
            .repairs
            .since(from)
            .find(|r| !self.rules.repair(r.kind))
        {
            Some(r) => Err(Error::denied(r)),
            None => Ok(()),
        }
    }

    fn advance(&mut self) -> Result<Event<'de>> {
        self.reach = usize::MAX;
        self.looked.set(0);
        self.complete = true;
        self.cut_close = false;
        self.roots_close = false;
        let ev = match self.fast() {
            // The lane makes no repair: the check below is of a repair the
            // step made.
            Some(ev) if self.rules.all_repairs() => return Ok(ev),
            Some(ev) => ev,
            None => self.step()?,
        };
        if !self.rules.all_repairs() {
            self.check_rules()?;
        }
        Ok(ev)
    }

    /// A scalar ending at `end` that touches the end of the input inside a
    /// container may have gone on.
    fn touches_end(&mut self, end: usize) {
        // Spans are trimmed: whitespace right after the span in the caller's
        // text still ends the token. In a view, a value at the top level
        // that ends the text may go on too (`12` may become `12.5`).
        if end >= self.end
            && !self.followed_by_space()
            && (!self.top_level(self.stack.len()) || (self.view && self.end >= self.b.len()))
        {
            self.complete = false;
        }
    }

    fn step(&mut self) -> Result<Event<'de>> {
        loop {
            if let State::Closing(depth) = self.state {
                if self.stack.len() > depth {
                    let ev = self.pop();
                    if self.stack.len() > depth {
                        self.state = State::Closing(depth);
                    }
                    if let Some(ev) = ev {
                        return Ok(ev);
                    }
                    continue;
                }
                self.state = self.settled();
            }
            self.skip_ws();
            if self.pos >= self.end {
                match self.at_end()? {
                    Some(ev) => return Ok(ev),
                    None => continue,
                }
            }
            let c = self.b[self.pos];
            if c == b'`'
                && !self.stack.is_empty()
                && !self.awaiting_value
                && self.end == self.b.len()
                && lex::fence_being_written(self.b, 0, self.pos)
            {
                // `[1, 2⏎``` cut off: the fence that closes the block is
                // being written, after the value cut off; no string.
                self.token_start = self.pos;
                self.pos = self.end;
                continue;
            }
            self.token_start = self.pos;
            let step = match self.state {
                State::Value => {
                    let step = self.value(c)?;
                    if step.is_some() {
                        self.awaiting_value = false;
                    }
                    step
                }
                State::AfterValue => self.after_value(c)?,
                State::ObjectStart | State::ObjectKey => self.key(c)?,
                State::ArrayStart => {
                    if c == b']' {
                        self.pos += 1;
                        self.pop()
                    } else {
                        self.state = State::Value;
                        continue;
                    }
                }
                State::AfterRoot => self.after_root(c),
                State::Closing(_) => unreachable!("handled above"),
                State::Done => return Ok(Event::Eof),
            };
            if let Some(ev) = step {
                return Ok(ev);
            }
        }
    }

    /// The state after a value, given the stack.
    fn settled(&mut self) -> State {
        if self.stack.is_empty() {
            if self.roots == 0 {
                // An empty wrapper `f()` closed: still no root value.
                return State::Value;
            }
            self.root_end = self.pos;
            State::AfterRoot
        } else {
            State::AfterValue
        }
    }

    #[inline]
    fn skip_ws(&mut self) {
        let b = self.b;
        let mut i = self.pos;
        while i < self.end && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t') {
            i += 1;
        }
        if i < self.end && lex::MAY_SKIP[usize::from(b[i])] {
            let (j, s) = lex::skip_ws(b, i, self.end);
            if let Some(at) = s.comment {
                self.record(RepairKind::Comment, at);
            }
            if let Some(at) = s.special {
                let kind = if b[at] == b'<' {
                    RepairKind::SpecialToken
                } else {
                    RepairKind::SpecialWhitespace
                };
                self.record(kind, at);
            }
            i = j;
        }
        self.pos = i;
    }

    fn place(&self) -> Where {
        let mut paren = false;
        for f in self.stack.iter().rev() {
            let ctx = match f {
                Frame::Group => {
                    paren = true;
                    continue;
                }
                Frame::Tuple => {
                    paren = true;
                    Ctx::Array
                }
                Frame::Array | Frame::Set => Ctx::Array,
                Frame::Object => Ctx::Object,
                Frame::Roots => Ctx::Root,
            };
            return Where { ctx, paren };
        }
        Where {
            ctx: Ctx::Root,
            paren,
        }
    }

    #[inline]
    fn push(&mut self, frame: Frame, at: usize) -> Result<()> {
        if frame != Frame::Roots {
            if self.depth >= self.max_depth {
                return Err(Error::at(
                    ErrorKind::Depth,
                    format_args!("nesting deeper than {} levels", self.max_depth),
                    self.pos,
                ));
            }
            self.depth += 1;
        }
        self.stack.push(frame);
        self.opened.push(at);
        Ok(())
    }

    /// Pops the top container and returns its end event (`None` for a group).
    fn pop(&mut self) -> Option<Event<'de>> {
        if self.awaiting_value && self.stack.last() == Some(&Frame::Object) {
            // A key whose value never started (`{"a": f(}`): it gets null
            // before its object closes (the next call pops).
            self.awaiting_value = false;
            self.record(RepairKind::MissingValue, self.pos);
            return Some(Event::Null);
        }
        let frame = self.stack.pop()?;
        self.opened.pop();
        if frame != Frame::Roots {
            self.depth -= 1;
        }
        self.state = self.settled();
        let end = match frame {
            Frame::Object => Event::EndObject,
            Frame::Array | Frame::Tuple | Frame::Set | Frame::Roots => Event::EndArray,
            Frame::Group if self.awaiting_value => {
                // `{"id": ObjectId(), ...}`: an empty wrapper stands for null.
                self.awaiting_value = false;
                self.record(RepairKind::MissingValue, self.pos);
                if let Some(&top) = self.stack.last() {
                    self.take_comma(top);
                }
                return Some(Event::Null);
            }
            Frame::Group => return None,
        };
        if let Some(&top) = self.stack.last() {
            self.take_comma(top);
        }
        if self.object_pending {
            // An object closed before its first key: `{}`.
            self.object_pending = false;
            self.pending = Some((end, self.token_start));
            self.pending_cut = self.cut_close;
            self.cut_close = false;
            self.token_start = self.object_open;
            self.complete = true;
            return Some(Event::StartObject);
        }
        Some(end)
    }

    /// Whether frame `i` is the outermost real container.
    fn is_outermost(&self, i: usize) -> bool {
        i == 0 || self.stack[i - 1] == Frame::Roots
    }

    /// After a scalar value.
    fn scalar_done(&mut self) {
        if self.top_level(self.stack.len()) {
            self.scalar_root = true;
            self.roots += 1;
            self.scalar_roots += 1;
            // A word or sentence, or a number with words after it (`4,250
            // apples`), or words up to a quote (`Here it is: {"`, the quote
            // taken as the closing one): prose, not a value. So is a word
            // of digits then letters (`0hello`, `3rd`, `10am`), as one that
            // starts with a letter is; a number written with separators or
            // a code (`1.2.3`, `555-1234`, `2024-01-05T10:00Z`, a UUID, `4K`)
            // is a value.
            let (start, pos) = (self.token_start, self.pos.min(self.end));
            let token = &self.b[start.min(pos)..pos];
            let words = || token.iter().any(u8::is_ascii_whitespace);
            let word = || {
                let digits = token.iter().take_while(|c| c.is_ascii_digit()).count();
                let letters = &token[digits..];
                digits > 0 && letters.len() >= 2 && letters.iter().all(u8::is_ascii_alphabetic)
            };
            if self.repairs.last().is_some_and(|r| {
                r.offset >= start
                    && (r.kind == RepairKind::UnquotedString
                        || (r.kind == RepairKind::NumberAsString && (words() || word()))
                        || (r.kind == RepairKind::MissingQuote && words()))
            }) {
                self.prose_roots += 1;
                // A reading with a root of prose is refused whatever
                // follows (see `choose`): the rest is not read.
                self.pos = self.end;
            }
        }
        match self.stack.last() {
            None => self.state = self.settled(),
            Some(&top) => {
                self.state = State::AfterValue;
                self.take_comma(top);
            }
        }
    }

    /// Whether a value inside the first `below` frames is a top-level value:
    /// only wrappers (`callback(`) and the gathering array are around it.
    fn top_level(&self, below: usize) -> bool {
        self.stack[..below]
            .iter()
            .rev()
            .all(|f| matches!(f, Frame::Group | Frame::Roots))
    }

    /// A comma right after a value: taken at once, saving a trip through the
    /// state machine for every element.
    #[inline]
    fn take_comma(&mut self, top: Frame) {
        if self.pos < self.end && self.b[self.pos] == b',' {
            match top {
                Frame::Object => {
                    self.pos += 1;
                    self.state = State::ObjectKey;
                }
                Frame::Array | Frame::Tuple | Frame::Set => {
                    self.pos += 1;
                    self.state = State::Value;
                }
                Frame::Group | Frame::Roots => {}
            }
        }
    }

    fn open(&mut self, frame: Frame) -> Result<Option<Event<'de>>> {
        let at = self.pos;
        self.push(frame, at)?;
        self.pos += 1;
        if self.top_level(self.stack.len() - 1) {
            self.scalar_root = false;
            self.roots += 1;
        }
        if frame == Frame::Object {
            self.state = State::ObjectStart;
            self.object_pending = true;
            self.object_open = self.pos - 1;
            self.awaiting_value = false;
            Ok(None)
        } else {
            self.state = State::ArrayStart;
            self.complete = true;
            Ok(Some(Event::StartArray))
        }
    }

    // ----- values -------------------------------------------------------

    fn value(&mut self, c: u8) -> Result<Option<Event<'de>>> {
        let gathering = self.stack.last() == Some(&Frame::Roots);
        if gathering && !self.root_may_start() {
            // Prose after the gathered values: stop gathering.
            self.record(RepairKind::TrailingText, self.pos);
            self.pos = self.end;
            self.segments.clear();
            return Ok(None);
        }
        match c {
            b'{' => self.open(Frame::Object),
            b'[' => {
                let ev = self.open(Frame::Array)?;
                if !gathering {
                    // Its `[` is all this step looked at (see `reach`).
                    self.reach = self.pos;
                }
                Ok(ev)
            }
            b'"' => self.string_value(),
            b'0'..=b'9' | b'-' => self.number_value(),
            b't' if self.literal_at(b"true") => Ok(self.literal(4, Event::Bool(true))),
            b'f' if self.literal_at(b"false") => Ok(self.literal(5, Event::Bool(false))),
            b'n' if self.literal_at(b"null") => Ok(self.literal(4, Event::Null)),
            _ => self.value_slow(c),
        }
    }

    /// In gathering mode, whether the value at `self.pos` may be gathered.
    fn root_may_start(&self) -> bool {
        self.roots == 0 || self.next_root_at(self.pos)
    }

    #[inline]
    fn literal_at(&self, word: &[u8]) -> bool {
        let k = self.pos + word.len();
        self.b[self.pos..self.end].starts_with(word) && (k >= self.end || !is_word(self.b[k]))
    }

    fn literal(&mut self, len: usize, ev: Event<'de>) -> Option<Event<'de>> {
        if self.text_runs_on(self.pos + len) {
            return self.unquoted_value(false);
        }
        self.pos += len;
        self.touches_end(self.pos);
        self.scalar_done();
        self.delimited(self.pos);
        Some(ev)
    }

    /// Notes that the step looked at the bytes before `to` (see
    /// [`looked`](Self::looked)).
    #[inline]
    fn saw(&self, to: usize) {
        if to > self.looked.get() {
            self.looked.set(to);
        }
    }

    /// [`saw`](Self::saw) for a scanner that reads on (`READS_ON`: its
    /// text may go on, the one case where how far a step looked matters).
    #[inline]
    fn saw_if<const READS_ON: bool>(&self, to: usize) {
        if READS_ON {
            self.saw(to);
        }
    }

    /// The step says every look it made: it looked as far as
    /// [`looked`](Self::looked) says, and at least at the bytes before
    /// `to` (see [`reach`](Self::reach)).
    fn looked_to(&mut self, to: usize) {
        self.reach = self.looked.get().max(to);
    }

    /// A word value (a literal) ending at `k` with a delimiter right after
    /// it: the delimiter is all the step looked at past it (see
    /// [`reach`](Self::reach)).
    fn delimited(&mut self, k: usize) {
        if k < self.end
            && matches!(self.b[k], b',' | b'}' | b']')
            && !self.top_level(self.stack.len())
        {
            self.reach = k + 1;
        }
    }

    fn value_slow(&mut self, c: u8) -> Result<Option<Event<'de>>> {
        let top = self.stack.last().copied();
        if c == 0xEF {
            if let Some(step) = self.wide_sep_here() {
                return Ok(step);
            }
        }
        if top.is_some() {
            if let Some(n) = lex::string_prefix(self.b, self.pos, self.end) {
                // `u'Ada'`, `b'abc'`: a Python string literal's
                // prefix; the string is what the quotes hold.
                self.record(RepairKind::Quotes, self.pos);
                self.pos += n;
                return self.string_value();
            }
            if let Some((start, close)) = lex::raw_string(self.b, self.pos, self.end) {
                // `r"C:\new"`: a raw string holds its backslashes as written.
                self.record(RepairKind::Quotes, self.pos);
                self.pos = close + 1;
                self.scalar_done();
                return Ok(Some(Event::Str(Text::Borrowed(&self.text[start..close]))));
            }
        }
        match c {
            b'}' | b']' | b')' => {
                return Ok(match top {
                    Some(Frame::Object) if self.awaiting_value => self.missing_value(),
                    Some(Frame::Array) if c == b']' => self.trailing_comma_close(),
                    Some(Frame::Tuple) if c == b')' => self.trailing_comma_close(),
                    Some(Frame::Set) if c == b'}' => self.trailing_comma_close(),
                    Some(Frame::Group) if c == b')' => {
                        self.pos += 1;
                        self.pop()
                    }
                    _ => self.closer(c),
                });
            }
            b',' => {
                return Ok(match top {
                    Some(Frame::Object) if self.awaiting_value => self.missing_value(),
                    _ => {
                        self.record(RepairKind::ExtraComma, self.pos);
                        self.pos += 1;
                        None
                    }
                });
            }
            b':' | b';' => {
                self.record(RepairKind::Skipped, self.pos);
                self.pos += 1;
                return Ok(None);
            }
            b'.' if self.b[self.pos..self.end].starts_with(b"...") => {
                let at = self.pos;
                self.pos = next_significant(self.b, self.pos + 3, self.end);
                let array = matches!(self.place().ctx, Ctx::Array | Ctx::Root);
                if self.pos < self.end && self.b[self.pos] == b',' && array {
                    self.pos += 1;
                }
                // Elements after it in a list: it stands for some left out
                // between them (see `RepairKind::Elision`).
                let next = next_significant(self.b, self.pos, self.end);
                // (A `/` there may open a comment still being written.)
                let between = matches!(top, Some(Frame::Array | Frame::Tuple | Frame::Set))
                    && next < self.end
                    && !matches!(self.b[next], b']' | b')' | b'}' | b'/');
                // (Where no ellipsis may be removed, it is that repair that
                // is denied.)
                if !between || !self.rules.repair(RepairKind::Ellipsis) {
                    self.record(RepairKind::Ellipsis, at);
                } else if self.rules.repair(RepairKind::Elision) {
                    self.record(RepairKind::Elision, at);
                } else {
                    return Err(Error::at(
                        ErrorKind::Data,
                        "the reply writes ... between elements: the list it means is not written out",
                        at,
                    ));
                }
                return Ok(None);
            }
            b'+' | b'.' => return self.number_value(),
            b'(' => return self.paren(),
            b'\\' if self.pos + 1 < self.end && self.b[self.pos + 1] == b'"' => {
                return self.string_value()
            }
            b'/' => return Ok(self.regex()),
            b'`' if top == Some(Frame::Object) && self.code_block_at() => {
                // `{"code": ```python ... ```}`: a code block as a value.
                let text = self.code_block();
                self.scalar_done();
                return Ok(Some(Event::Str(text)));
            }
            b'`' if self.skip_fence() => return Ok(None),
            // (A code block's and a fence's looks are not said.)
            b'`' => {
                self.saw(usize::MAX);
                if top.is_none() && lex::inline_code_around_value(self.b, self.pos, self.end) {
                    // `` `{"a": 1}` ``, `` `json⏎{…}⏎` ``: inline code
                    // around the value (read inside it), or only its
                    // backticks yet: no string.
                    return Err(Error::at(
                        ErrorKind::NoJson,
                        "no JSON value found here: a backtick before the value opens inline code around it, not a string",
                        self.pos,
                    ));
                }
            }
            _ => {}
        }
        if quote_at(self.b, self.pos, self.end).is_some() {
            return self.string_value();
        }
        if is_word(c) {
            return self.word_value();
        }
        // (Its first byte, and a quote it may start.)
        self.saw(self.pos + 3);
        Ok(self.said_unquoted())
    }

    /// A full-width `：` or `，` (U+FF1A, U+FF0C) at `self.pos` where a
    /// separator may stand, read as the ASCII one: `Some` when it was one
    /// (and was passed, unless it ends a missing value first).
    #[cold]
    fn wide_sep_here(&mut self) -> Option<Option<Event<'de>>> {
        let sep = lex::wide_sep(self.b, self.pos, self.end)?;
        let at = self.pos;
        self.record(RepairKind::FullWidthPunctuation, at);
        let top = self.stack.last().copied();
        Some(match (self.state, sep, top) {
            (State::Value, b',', Some(Frame::Object)) if self.awaiting_value => {
                // `"a"：，`: the value is missing; the comma is read after it.
                self.repairs.pop();
                self.missing_value()
            }
            (State::AfterValue, b',', Some(Frame::Object)) => {
                self.pos += lex::WIDE;
                self.state = State::ObjectKey;
                None
            }
            (State::AfterValue, b',', Some(_)) => {
                self.pos += lex::WIDE;
                self.state = State::Value;
                None
            }
            (State::ObjectStart | State::ObjectKey, b',', _) | (State::Value, b',', _) => {
                self.record(RepairKind::ExtraComma, at);
                self.pos += lex::WIDE;
                None
            }
            _ => {
                // A colon where none belongs.
                self.record(RepairKind::Skipped, at);
                self.pos += lex::WIDE;
                None
            }
        })
    }

    /// Whether a fenced code block that is not JSON (```` ```python ````,
    /// ```` ``` ````) opens at `self.pos`. A ```` ```json ```` block holds
    /// the value itself: its markers are skipped.
    fn code_block_at(&self) -> bool {
        let n = lex::fence_len(self.b, self.pos, self.end);
        let tag = &self.b[self.pos..self.pos + n];
        let ticks = tag.iter().take_while(|&&c| c == b'`').count();
        n > 0 && !tag[ticks..].eq_ignore_ascii_case(b"json")
    }

    /// Skips a code fence marker (```` ```json ````) at `self.pos`, if any.
    fn skip_fence(&mut self) -> bool {
        let n = lex::fence_len(self.b, self.pos, self.end);
        if n > 0 {
            self.record(RepairKind::CodeFence, self.pos);
            self.pos += n;
        }
        n > 0
    }

    fn skip_char(&mut self) {
        self.record(RepairKind::Skipped, self.pos);
        let len = self.text[self.pos..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        self.pos += len;
    }

    /// `{"a": }`: a key whose value is missing gets `null`.
    fn missing_value(&mut self) -> Option<Event<'de>> {
        self.record(RepairKind::MissingValue, self.pos);
        self.scalar_done();
        Some(Event::Null)
    }

    /// A comma right before `at` (whitespace, comments and a `...` between)
    /// is a trailing comma: recorded where it stands.
    fn trailing_comma(&mut self, at: usize) {
        let mut p = lex::trim_back(self.b, 0, at);
        if p >= 3 && &self.b[p - 3..p] == b"..." {
            p = lex::trim_back(self.b, 0, p - 3);
        }
        if p > 0 && self.b[p - 1] == b',' {
            self.record(RepairKind::TrailingComma, p - 1);
        }
    }

    fn trailing_comma_close(&mut self) -> Option<Event<'de>> {
        self.trailing_comma(self.pos);
        self.pos += 1;
        self.closes_here()
    }

    /// Closes the innermost container at its closer, just passed. Inside
    /// another container, the byte after the closer (a comma taken with
    /// it) is all the step looked at past it (see `reach`).
    fn closes_here(&mut self) -> Option<Event<'de>> {
        let after = self.pos;
        let ev = self.pop();
        if !self.stack.is_empty() && !self.top_level(self.stack.len()) {
            self.reach = after + 1;
        }
        ev
    }

    fn string_value(&mut self) -> Result<Option<Event<'de>>> {
        let w = self.place();
        let Some(mut text) = self.quoted(w)? else {
            // An empty string cut off at the end: nothing was written. A
            // member's key is out already: its value so far is `""` (not an
            // invented `null`), and so is a reply that is only a quote; an
            // element is left out.
            if (w.ctx == Ctx::Object && self.awaiting_value) || w.ctx == Ctx::Root {
                self.truncated = true;
                self.complete = false;
                self.scalar_done();
                return Ok(Some(Event::Str(Text::Borrowed(""))));
            }
            return Ok(None);
        };
        // `"a" + "b"`: concatenation.
        loop {
            let j = self.follow;
            if j >= self.end || self.b[j] != b'+' {
                break;
            }
            let k = next_significant(self.b, j + 1, self.end);
            self.record(RepairKind::Concatenation, j);
            if k < self.end && quote_at(self.b, k, self.end).is_some() {
                let mut acc = std::mem::take(&mut self.scratch);
                if let Text::Borrowed(s) = text {
                    acc.clear();
                    acc.push_str(s);
                }
                self.pos = k;
                if let Some(next) = self.quoted(w)? {
                    acc.push_str(self.str(next));
                }
                self.scratch = acc;
                text = Text::Scratch;
            } else {
                self.saw(lex::ws_reach(self.b, k, self.end));
                self.pos = k;
                self.follow = k;
                break;
            }
        }
        // `["key": "value"]`: a key inside an array starts an object.
        if w.ctx == Ctx::Array && !w.paren {
            let j = self.follow;
            if j < self.end && self.b[j] == b':' {
                self.record(RepairKind::ImplicitObject, self.token_start);
                self.push(Frame::Object, self.token_start)?;
                self.complete = true;
                self.pos = j + 1;
                self.state = State::Value;
                self.pending = Some((Event::Key(text), self.token_start));
                return Ok(Some(Event::StartObject));
            }
        }
        // Closed at its quote by the delimiter right after it, which is
        // all this step looked at past the string; or the step's looks
        // (an inner quote's judgment, the closing quote's) say how far.
        match self.plain {
            true => self.reach = self.follow + 1,
            false => self.looked_to(self.follow + 1),
        }
        self.scalar_done();
        Ok(Some(Event::Str(text)))
    }

    fn number_value(&mut self) -> Result<Option<Event<'de>>> {
        let start = self.pos;
        // The common case in one pass: a plain integer followed by a delimiter.
        let b = self.b;
        let neg = b[start] == b'-';
        let digits = start + usize::from(neg);
        let mut k = digits;
        let mut v: u64 = 0;
        while k < self.end && b[k].is_ascii_digit() && v < u64::MAX / 10 {
            v = v * 10 + u64::from(b[k] - b'0');
            k += 1;
        }
        if k > digits
            && (k == digits + 1 || b[digits] != b'0')
            && (k >= self.end || matches!(b[k], b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'))
        {
            let value = if !neg {
                NumValue::U64(v)
            } else if v == 0 || v > i64::MAX as u64 + 1 {
                // `-0` and integers below i64::MIN are f64 in serde_json.
                NumValue::Float
            } else {
                NumValue::I64((v as i64).wrapping_neg())
            };
            if self.number_tail_matters(k) {
                if let Some(step) = self.number_tail(start, k, true)? {
                    return Ok(step);
                }
            }
            self.pos = k;
            self.touches_end(k);
            self.scalar_done();
            return Ok(Some(Event::Num(Number {
                text: Text::Borrowed(&self.text[start..k]),
                value,
            })));
        }
        match number::lex(self.b, start, self.end, &mut self.scratch) {
            number::Lexed::Number {
                end,
                clean,
                cut,
                hex,
            } => {
                if self.number_tail_matters(end) {
                    // `4.250,00`: a fraction before the comma makes no digit
                    // groups; an integer may.
                    let integer = clean && self.b[digits..end].iter().all(u8::is_ascii_digit);
                    if let Some(step) = self.number_tail(start, end, integer)? {
                        return Ok(step);
                    }
                }
                if cut && end >= self.end {
                    // `12.` or `1e` cut off: more digits may have followed.
                    self.complete = false;
                }
                self.touches_end(end);
                let text = if clean {
                    Text::Borrowed(&self.text[start..end])
                } else {
                    let kind = match hex {
                        true => RepairKind::HexNumber,
                        false => RepairKind::NumberFormat,
                    };
                    self.record(kind, start);
                    Text::Scratch
                };
                let value = classify(self.str(text));
                self.pos = end;
                if end < self.end && self.b[end] == b'"' {
                    // `12345",`: a stray quote after a number.
                    let n = next_significant(self.b, end + 1, self.end);
                    if n >= self.end || matches!(self.b[n], b',' | b'}' | b']') {
                        self.record(RepairKind::Skipped, end);
                        self.pos = end + 1;
                    }
                }
                self.scalar_done();
                Ok(Some(Event::Num(Number { text, value })))
            }
            number::Lexed::Empty { end } => {
                // A sign or a dot with no digit is no number: never `0`.
                if end >= self.end {
                    // `[1, -` cut off before the first digit: nothing was
                    // written yet, and the sign goes as any cut value does.
                    self.record(RepairKind::TruncatedValue, start);
                    self.truncated = true;
                    self.pos = end;
                    if self.stack.is_empty() || self.top_level(self.stack.len()) {
                        return Ok(None);
                    }
                    if self.stack.last() == Some(&Frame::Object) && self.awaiting_value {
                        // A member whose key is out already (the key's
                        // look-ahead drops the member otherwise): its value
                        // is missing, and cut.
                        self.awaiting_value = false;
                        self.complete = false;
                        self.scalar_done();
                        return Ok(Some(Event::Null));
                    }
                    self.state = State::AfterValue;
                    return Ok(None);
                }
                // `{"a": - 5}`, `[1, - 2]`: a minus, spaces, then digits
                // inside a container is that negative number (dropping the
                // sign would make another number). At the top level, `- 5`
                // is a bullet.
                if let Some(ev) = self.spaced_minus(start, end) {
                    return Ok(Some(ev));
                }
                // `{"a": +, "b": 1}`: a stray sign, skipped; the value is
                // what follows it (here missing).
                self.record(RepairKind::Skipped, start);
                self.pos = end;
                Ok(None)
            }
            number::Lexed::NotNumber => {
                let rest = &self.b[start..self.end];
                let minus_inf = Event::Num(Number {
                    text: Text::Borrowed("-Infinity"),
                    value: NumValue::NonFinite(f64::NEG_INFINITY),
                });
                // JSON5 signs its non-finite numbers too: `+Infinity`,
                // `-NaN`, `+NaN`.
                let words: [(&[u8], Event<'de>); 6] = [
                    (b"-Infinity", minus_inf),
                    (b"-inf", minus_inf),
                    (b"+Infinity", non_finite("Infinity", f64::INFINITY)),
                    (b"+inf", non_finite("Infinity", f64::INFINITY)),
                    (b"-NaN", non_finite("NaN", f64::NAN)),
                    (b"+NaN", non_finite("NaN", f64::NAN)),
                ];
                for (word, ev) in words {
                    if rest.starts_with(word)
                        && (rest.len() == word.len() || !is_word(rest[word.len()]))
                    {
                        self.record(RepairKind::NonFiniteNumber, start);
                        self.pos += word.len();
                        self.touches_end(self.pos);
                        self.scalar_done();
                        return Ok(Some(ev));
                    }
                }
                if rest.len() > 1 && b"-Infinity".starts_with(rest) {
                    // `-Inf` cut off at the end.
                    self.record(RepairKind::TruncatedValue, start);
                    self.truncated = true;
                    self.complete = false;
                    self.pos = self.end;
                    self.scalar_done();
                    return Ok(Some(minus_inf));
                }
                Ok(self.unquoted_value(true))
            }
        }
    }

    /// Whether what follows a number ending at `k` as an object member's
    /// value may change how it is read: a comma and a digit or the end (digit
    /// groups), or a space (words after it). One look at the next byte.
    #[inline]
    fn number_tail_matters(&self, k: usize) -> bool {
        k < self.end
            && match self.b[k] {
                b',' => k + 1 >= self.end || self.b[k + 1].is_ascii_digit(),
                b' ' | b'\t' => true,
                _ => false,
            }
            && (self.stack.last() == Some(&Frame::Object) || self.top_level(self.stack.len()))
    }

    /// After a number `start..k` (`integer`: no fraction or exponent) as an
    /// object member's value, where [`number_tail_matters`]: digit groups
    /// (`4,250`), words (`5 kg`), or a comma at the end. `Some`: the step
    /// that read it otherwise.
    ///
    /// [`number_tail_matters`]: Self::number_tail_matters
    #[cold]
    fn number_tail(
        &mut self,
        start: usize,
        k: usize,
        integer: bool,
    ) -> Result<Option<Option<Event<'de>>>> {
        if self.b[k] == b',' {
            if k + 1 >= self.end {
                self.comma_at_end();
                return Ok(None);
            }
            return self.digit_groups(start, k, integer);
        }
        if self.stack.last() == Some(&Frame::Object) && self.words_follow(k) {
            return Ok(Some(self.unquoted_value(true)));
        }
        Ok(None)
    }

    /// A number as an object member's value followed by a comma at the end
    /// of the input (`{"total": 4,`): digit groups may follow (`4,250`), so
    /// the number is not known to be complete.
    #[cold]
    fn comma_at_end(&mut self) {
        if self.stack.last() == Some(&Frame::Object)
            && !self.top_level(self.stack.len())
            && !self.followed_by_space()
        {
            self.complete = false;
        }
    }

    /// Whether only whitespace follows offset `end` in the caller's text:
    /// what a candidate's span is trimmed of (`text::trim_span`, Unicode's
    /// whitespace: a vertical tab or a form feed after the span is no text
    /// that settles a value cut at its end).
    fn ends_text(&self, end: usize) -> bool {
        self.text
            .get(end..)
            .is_some_and(|rest| rest.trim_start().is_empty())
    }

    /// Whether whitespace follows the span in the caller's text (spans are
    /// trimmed): a token at the span's end has ended.
    fn followed_by_space(&self) -> bool {
        // (Unicode's whitespace, as the span was trimmed of it.)
        self.text
            .get(self.end..)
            .is_some_and(|rest| rest.starts_with(char::is_whitespace))
    }

    /// A number or literal ending at `k` as an object member's value: do
    /// words follow it on its line, up to the member's end (`,`, `}`, the line
    /// end), that are no key (`{"addr": 12 Main St}`, `{"weight": 5 kg}`)?
    /// Then the value is that text, not the number with its words dropped.
    #[inline]
    fn text_runs_on(&self, k: usize) -> bool {
        k < self.end
            && matches!(self.b[k], b' ' | b'\t')
            && self.stack.last() == Some(&Frame::Object)
            && self.words_follow(k)
    }

    /// From the space at `k`: bare words (no key) that run to `,`, `}`, the
    /// line end or the end of the input, within 1024 bytes.
    #[cold]
    fn words_follow(&self, k: usize) -> bool {
        let b = self.b;
        let end = self.end;
        let mut n = k;
        while n < end && matches!(b[n], b' ' | b'\t') {
            n += 1;
        }
        if n >= end
            || !(is_word(b[n]) || b[n] >= 0x80)
            || lex::wide_sep(b, n, end).is_some()
            || lex::special_ws_len(b, n, end) > 0
            || key_then_colon(b, n, end).is_some()
        {
            return false;
        }
        let limit = end.min(n + 1024);
        let mut i = n;
        while i < limit {
            match b[i] {
                b',' | b'}' | b'\n' | b'\r' => return true,
                b':' | b'"' | b'{' | b'[' | b']' | b'/' | b'#' => return false,
                0xEF if lex::wide_sep(b, i, end).is_some() => {
                    return lex::wide_sep(b, i, end) == Some(b',')
                }
                _ => i += 1,
            }
        }
        i >= end
    }

    /// A number `start..k` that a comma and a digit follow. As an object member's value, where JSON's reading
    /// (the comma ends the value, a key follows) cannot be right because the
    /// digits are no key (no `:` follows them), it is a number written with
    /// digit groups: `4,250`, `1,234,567.89`, `-2,000.00`. The groups must
    /// be of three digits and what follows them must go on the object (`,`
    /// and a key, or `}`); a number cut off inside its groups is read as far
    /// as it goes. Any other digits after the comma (`4,25`, `4.250,00`) make
    /// the number unclear: the token is text as written (as `1/3` is), never
    /// a shortened number. Inside an array, JSON's reading stands: `[4,250]`
    /// is two numbers; at the top level, only groups that end the span are
    /// one number. `Some`: the step that read it; `None`: read it as JSON.
    /// `integer`: the number
    /// `start..k` is an integer (a fraction or an exponent before the comma,
    /// `4.250,00`, makes the number unclear).
    #[cold]
    fn digit_groups(
        &mut self,
        start: usize,
        k: usize,
        integer: bool,
    ) -> Result<Option<Option<Event<'de>>>> {
        let b = self.b;
        let end = self.end;
        // At the top level, `4,250` alone is one number too (two top-level
        // values are no JSON either); anything else there (`1,2`, `4,250
        // apples`) is read as before: top-level values, prose.
        let root = self.stack.last() != Some(&Frame::Object);
        if root && !self.top_level(self.stack.len()) {
            return Ok(None);
        }
        let run = |from: usize| {
            let mut e = from;
            while e < end && b[e].is_ascii_digit() {
                e += 1;
            }
            e
        };
        // `{a: 1,2: "x"}`: the digits are a key.
        let first = run(k + 1);
        let n = next_significant(b, first, end);
        if n < end && b[n] == b':' {
            return Ok(None);
        }
        let digits = start + usize::from(b[start] == b'-');
        let lead = k - digits;
        // `4,25`, `4.250,00`: which number was meant is unclear. The token is
        // taken as written, as text (a typed number wanted is then an error).
        let ambiguous = |s: &mut Self| Ok((!root).then(|| s.unquoted_value(true)));
        if !integer || lead > 3 || b[digits] == b'0' {
            return ambiguous(self);
        }
        // The groups: `,ddd` each; the last may be cut off at the end.
        let mut p = k;
        let mut cut = false;
        while p + 1 < end && b[p] == b',' && b[p + 1].is_ascii_digit() {
            let e = run(p + 1);
            match e - (p + 1) {
                3 => p = e,
                1 | 2 if e >= end && !root => {
                    p = e;
                    cut = true;
                }
                _ => return ambiguous(self),
            }
        }
        if !cut && p < end && b[p] == b'.' {
            let e = run(p + 1);
            if e == p + 1 && e < end {
                return ambiguous(self);
            }
            cut = e >= end;
            p = e;
        }
        let q = next_significant(b, p, end);
        if root && q < end && !b[p..q].contains(&b'\n') {
            // At the top level the groups must end the span or their line;
            // words after them make prose (`4,250 apples`), taken whole.
            if matches!(b[p], b' ' | b'\t') && self.words_follow(p) {
                return Ok(Some(self.unquoted_value(true)));
            }
            return Ok(None);
        }
        let fits = q >= end
            || root
            || b[q] == b'}'
            || (b[q] == b',' && {
                let r = next_significant(b, q + 1, end);
                // `4,250,` at the end: more groups may follow.
                cut |= r >= end && q + 1 == end && !self.followed_by_space();
                r >= end || b[r] == b'}' || key_then_colon(b, r, end).is_some()
            })
            // `4,250\n"b": 1`: a key after the groups, the comma missing.
            || (q > p && key_then_colon(b, q, end).is_some());
        if !fits {
            // `4,250 USD`: text, with the number in it whole.
            return ambiguous(self);
        }
        self.record(RepairKind::DigitGroups, start);
        self.scratch.clear();
        for &c in &b[start..p] {
            if c != b',' {
                self.scratch.push(char::from(c));
            }
        }
        if self.scratch.ends_with('.') {
            // `1,234.` cut off before its fraction.
            self.scratch.pop();
        }
        if cut && !root {
            self.complete = false;
        }
        let value = classify(&self.scratch);
        self.pos = p;
        self.touches_end(p);
        self.scalar_done();
        Ok(Some(Some(Event::Num(Number {
            text: Text::Scratch,
            value,
        }))))
    }

    /// A bare word at a value position: a literal in another spelling, a cut
    /// literal, a wrapper call `name(`, or an unquoted string.
    fn word_value(&mut self) -> Result<Option<Event<'de>>> {
        let b = self.b;
        let start = self.pos;
        let mut k = start;
        while k < self.end && is_word(b[k]) {
            k += 1;
        }
        let word = &self.text[start..k];
        let ends = k >= self.end || b[k] == b'/' || lex::ends_token(b, k, self.end);
        if ends {
            if let Some(ev) = literal(word) {
                if self.text_runs_on(k) {
                    return Ok(self.unquoted_value(false));
                }
                self.record(
                    if matches!(ev, Event::Num(_)) {
                        RepairKind::NonFiniteNumber
                    } else {
                        RepairKind::Literal
                    },
                    start,
                );
                self.pos = k;
                self.touches_end(k);
                self.scalar_done();
                self.delimited(k);
                return Ok(Some(ev));
            }
            // (At the root, a capital letter cut off may be the first
            // word of a sentence, `T` of `Thought:`, as well as `True`: no
            // value yet.)
            let sentence =
                self.stack.is_empty() && word.starts_with(|c: char| c.is_ascii_uppercase());
            if k >= self.end && !sentence {
                if let Some(ev) = cut_literal(word) {
                    // `tru`, `fals`, `nul`, `NaN`'s `N` cut off at the end.
                    self.record(RepairKind::TruncatedValue, start);
                    self.truncated = true;
                    self.complete = false;
                    self.pos = k;
                    self.scalar_done();
                    return Ok(Some(ev));
                }
            }
        }
        // A call: the name, then its `(` (`Sure (1)` is prose, no call);
        // JavaScript's `new Date("2020-01-02")` is the call `Date(...)`.
        let mut call = k;
        if word == "new" && k < self.end && b[k] == b' ' {
            let name = next_significant(b, k, self.end);
            let mut e = name;
            while e < self.end && is_word(b[e]) {
                e += 1;
            }
            self.saw(e + 1);
            if e > name && e < self.end && b[e] == b'(' {
                call = e;
            }
        }
        if call < self.end && b[call] == b'(' {
            if lex::matching_close_within(b, call, self.end, 4096).1 {
                // `f(1, 2)`: which argument is the value is not known (the
                // first alone would drop the others).
                return Err(Error::at(
                    ErrorKind::Syntax,
                    "a call with several arguments is no value",
                    start,
                ));
            }
            // `callback(...)`, `ObjectId("...")`: keep what is inside.
            self.record(RepairKind::Wrapper, start);
            self.pos = call;
            let empty = next_significant(b, call + 1, self.end) < self.end
                && b[next_significant(b, call + 1, self.end)] == b')';
            if empty && matches!(word, "set" | "list" | "tuple" | "frozenset") {
                // Python's `set()`: an empty collection, no missing value.
                return self.open(Frame::Tuple);
            }
            return self.group();
        }
        // (Where the word ended, it looked at up to two more bytes, or at
        // a special token.)
        self.saw(lex::ws_reach(b, k, self.end));
        Ok(self.said_unquoted())
    }

    /// An unquoted value (see [`unquoted_value`](Self::unquoted_value)) at
    /// a place the step came to saying each look it made: the step's reach
    /// is the value's looks.
    fn said_unquoted(&mut self) -> Option<Event<'de>> {
        let ev = self.unquoted_value(false);
        if ev.is_some() {
            self.looked_to(self.pos + 1);
        }
        ev
    }

    /// An unquoted value at `self.pos` as a string (`number_like`: it began
    /// like a number); a byte that starts nothing is skipped.
    fn unquoted_value(&mut self, number_like: bool) -> Option<Event<'de>> {
        let w = self.place();
        match self.unquoted(w) {
            Some(t) => {
                self.touches_end(self.pos);
                if number_like {
                    self.repairs.relabel_last(RepairKind::NumberAsString);
                }
                self.scalar_done();
                Some(Event::Str(t))
            }
            None => {
                self.skip_char();
                None
            }
        }
    }

    /// `(` at a value position: a tuple `(1, 2)` is an array; `(x)` is `x`.
    fn paren(&mut self) -> Result<Option<Event<'de>>> {
        let open = self.pos;
        let (close, comma) = lex::matching_close_within(self.b, open, self.end, 4096);
        let empty = close.is_some_and(|c| next_significant(self.b, open + 1, self.end) == c);
        if comma || empty {
            self.record(RepairKind::Tuple, open);
            self.open(Frame::Tuple)
        } else {
            self.record(RepairKind::Wrapper, open);
            self.group()
        }
    }

    fn group(&mut self) -> Result<Option<Event<'de>>> {
        self.push(Frame::Group, self.pos)?;
        self.pos += 1;
        self.state = State::Value;
        Ok(None)
    }

    /// `/regex/` at a value position becomes the string `"/regex/"` (its
    /// closing `/` followed by flags, then the end of the value). Any other
    /// `/` starts an unquoted value, a path (`route: /`, `/post/[id]`).
    fn regex(&mut self) -> Option<Event<'de>> {
        let b = self.b;
        let start = self.pos;
        let mut k = start + 1;
        while k < self.end && b[k] != b'\n' {
            match b[k] {
                b'\\' => k += 2,
                b'/' => {
                    let mut e = k + 1;
                    while e < self.end && b[e].is_ascii_alphabetic() {
                        e += 1;
                    }
                    let mut next = e;
                    while next < self.end && lex::is_ws(b[next]) {
                        next += 1;
                    }
                    // (A comment after a space ends it too, as a `/` that
                    // ends the text there may start one.)
                    let comment = next > e
                        && next < self.end
                        && b[next] == b'/'
                        && matches!(b.get(next + 1), None | Some(b'/' | b'*'));
                    if next < self.end && !comment && !matches!(b[next], b',' | b'}' | b']' | b')')
                    {
                        break;
                    }
                    self.record(RepairKind::Regex, start);
                    self.pos = e;
                    self.touches_end(e);
                    self.scalar_done();
                    return Some(Event::Str(Text::Borrowed(&self.text[start..e])));
                }
                _ => k += 1,
            }
        }
        self.unquoted_value(false)
    }

    // ----- objects ------------------------------------------------------

    fn key(&mut self, c: u8) -> Result<Option<Event<'de>>> {
        let after_comma = self.state == State::ObjectKey;
        match c {
            b'}' => {
                if after_comma {
                    self.trailing_comma(self.pos);
                }
                self.pos += 1;
                return Ok(self.closes_here());
            }
            b',' => {
                self.record(RepairKind::ExtraComma, self.pos);
                self.pos += 1;
                self.state = State::ObjectKey;
                return Ok(None);
            }
            b']' | b')' => return Ok(self.closer(c)),
            b'.' if self.b[self.pos..self.end].starts_with(b"...") => {
                self.record(RepairKind::Ellipsis, self.pos);
                self.pos += 3;
                return Ok(None);
            }
            b':' => {
                self.record(RepairKind::Skipped, self.pos);
                self.pos += 1;
                return Ok(None);
            }
            b'`' if self.skip_fence() => return Ok(None),
            0xEF if lex::wide_sep(self.b, self.pos, self.end).is_some() => {
                return Ok(self.wide_sep_here().flatten());
            }
            b'{' | b'[' => {
                if self.in_list_element() {
                    // `[{"a": 1 {"a": 2}]`: the object was not closed.
                    self.record(RepairKind::MissingCloser, self.pos);
                    return Ok(self.pop());
                }
                self.skip_char();
                return Ok(None);
            }
            _ => {}
        }
        let quoted = quote_at(self.b, self.pos, self.end).is_some()
            || (c == b'\\' && self.pos + 1 < self.end && self.b[self.pos + 1] == b'"');
        let text = if quoted {
            let key = Where {
                ctx: Ctx::Key,
                paren: false,
            };
            match self.quoted(key)? {
                Some(t) => t,
                None => {
                    self.dangling_key(self.pos, true);
                    return Ok(None);
                }
            }
        } else {
            match self.unquoted_key() {
                Some(t) => t,
                None => {
                    self.skip_char();
                    return Ok(None);
                }
            }
        };
        self.after_key(text, !quoted)
    }

    /// Whether a colon or semicolon skipped after a value comes right
    /// before `pos` (`"v": {}`: the value was a key, and what follows is
    /// read as json_repair reads it, as text after the value).
    fn after_stray_colon(&self) -> bool {
        let mut k = self.pos;
        while k > 0 && lex::is_ws(self.b[k - 1]) {
            k -= 1;
        }
        k > 0 && matches!(self.b[k - 1], b':' | b';')
    }

    /// A minus at `start` (its sign ending at `end`), spaces, then a
    /// number, inside a container: the negative number (see `number`).
    #[cold]
    fn spaced_minus(&mut self, start: usize, end: usize) -> Option<Event<'de>> {
        let b = self.b;
        if b[start] != b'-' || self.stack.is_empty() || self.top_level(self.stack.len()) {
            return None;
        }
        let mut p = end;
        while p < self.end && matches!(b[p], b' ' | b'\t') {
            p += 1;
        }
        if p == end || p >= self.end || !b[p].is_ascii_digit() {
            return None;
        }
        let number::Lexed::Number {
            end: e, clean, cut, ..
        } = number::lex(b, p, self.end, &mut self.scratch)
        else {
            return None;
        };
        let digits = match clean {
            true => self.text[p..e].to_owned(),
            false => std::mem::take(&mut self.scratch),
        };
        self.scratch.clear();
        self.scratch.push('-');
        self.scratch.push_str(&digits);
        self.record(RepairKind::NumberFormat, start);
        if cut && e >= self.end {
            self.complete = false;
        }
        self.pos = e;
        self.touches_end(e);
        self.scalar_done();
        Some(Event::Num(Number {
            text: Text::Scratch,
            value: classify(&self.scratch),
        }))
    }

    /// Whether the innermost container is an object that is an element of
    /// a list (an array, a tuple, a set).
    fn in_list_element(&self) -> bool {
        let parent = self.stack.len().checked_sub(2).map(|i| self.stack[i]);
        matches!(parent, Some(Frame::Array | Frame::Tuple | Frame::Set))
    }

    /// Decides what a key just read is, by what follows it.
    fn after_key(&mut self, text: Text<'de>, unquoted: bool) -> Result<Option<Event<'de>>> {
        let Some(ev) = self.key_event(text, unquoted)? else {
            return Ok(None);
        };
        if !self.object_pending {
            return Ok(Some(ev));
        }
        self.object_pending = false;
        let kind = if !matches!(ev, Event::Key(_)) {
            // `{"a", "b"}`: a set literal is an array.
            self.record(RepairKind::SetLiteral, self.object_open);
            Event::StartArray
        } else {
            Event::StartObject
        };
        self.pending = Some((ev, self.token_start));
        self.token_start = self.object_open;
        self.complete = true;
        Ok(Some(kind))
    }

    /// What lies between a key and the next significant byte at `j`,
    /// passed over without a step of its own: a comment or a non-ASCII space
    /// there is a repair like any other.
    fn between_key_and_colon(&mut self, j: usize) {
        // A key read to the very end may leave `pos` or `j` past it.
        let hi = j.min(self.end);
        let gap = &self.b[self.pos.min(hi)..hi];
        if gap.iter().all(|&c| lex::is_ws(c)) {
            return;
        }
        let kind = if gap.iter().any(|&c| matches!(c, b'/' | b'#')) {
            RepairKind::Comment
        } else {
            RepairKind::SpecialWhitespace
        };
        self.record(kind, self.pos);
    }

    /// From the bare word at `j` (after a bare key and a space, with no
    /// colon after the words): whether the words are stray words before a
    /// quoted key and its colon (`quick brown fox. "key": 1`). `None` when
    /// the text ends among the words (not decided yet). Looks 64 bytes
    /// ahead at most.
    fn words_then_key(&self, j: usize) -> Option<bool> {
        let b = self.b;
        let limit = self.end.min(j + 64);
        let mut k = j;
        while k < limit && (is_word(b[k]) || matches!(b[k], b' ' | b'.' | b',' | b'!' | b'?')) {
            k += 1;
        }
        if k >= self.end {
            return None;
        }
        if k >= limit || quote_at(b, k, self.end).is_none() {
            return Some(false);
        }
        // A quoted key, then its colon; either cut off by the end is not
        // decided yet.
        let after = lex::simple_string_end(b, k, self.end)?;
        let c = next_significant(b, after, self.end);
        if c >= self.end {
            return None;
        }
        Some(b[c] == b':' || lex::wide_sep(b, c, self.end) == Some(b':'))
    }

    /// From the bare word at `j` (after a bare key and a space): more words
    /// separated by single spaces, then a colon, on one short stretch of the
    /// line. Returns the end of the last word and the colon's position.
    fn words_then_colon(&self, j: usize) -> Option<(usize, usize)> {
        let b = self.b;
        let limit = self.end.min(j + 64);
        let mut k = j;
        let mut last = j;
        while k < limit {
            match b[k] {
                c if is_word(c) => {
                    k += 1;
                    last = k;
                }
                b' ' if k > 0 && b[k - 1] != b' ' => k += 1,
                b':' => return (last > j).then_some((last, k)),
                _ => return None,
            }
        }
        None
    }

    fn key_event(&mut self, text: Text<'de>, unquoted: bool) -> Result<Option<Event<'de>>> {
        let b = self.b;
        let end = self.end;
        let j = if unquoted {
            next_significant(b, self.pos, end)
        } else {
            self.follow
        };
        self.between_key_and_colon(j);
        if j >= end {
            self.dangling_key(j, true);
            return Ok(None);
        }
        // `"a"："x"`: a full-width colon or comma stands for its ASCII one
        // (a comma is passed, and recorded, by the step after this one).
        let (sep, len) = match b[j] {
            0xEF => self.wide_after_key(j),
            // `{a=1}`, `{"a" => 1}`: a colon written as `=` or `=>`.
            b'=' if !(j + 1 < end && b[j + 1] == b'=') => {
                self.record(RepairKind::MissingColon, j);
                (
                    b':',
                    if j + 1 < end && b[j + 1] == b'>' {
                        2
                    } else {
                        1
                    },
                )
            }
            c => (c, 1),
        };
        match sep {
            b':' => {
                let k = next_significant(b, j + len, end);
                if k >= end {
                    self.dangling_key(k, true);
                    return Ok(None);
                }
                if lex::lone_sign_to_end(b, k, end) {
                    // `"m": -` cut off before the number's first digit: no
                    // value was written, so the member goes (never `0`).
                    self.record(RepairKind::TruncatedValue, k);
                    self.dangling_key(end, true);
                    return Ok(None);
                }
                // Skip plain whitespace now; comments are left for the scan
                // to pass (and record).
                let mut p = j + len;
                while p < k && lex::is_ws(b[p]) {
                    p += 1;
                }
                self.pos = p;
                if self.plain {
                    // The key, its colon, and the value's first bytes (a sign
                    // alone?) are all this step looked at.
                    self.reach = k + 3;
                }
            }
            b',' if self.object_pending => {
                // The first member has no colon and a comma follows: a set.
                let top = self.stack.len() - 1;
                self.stack[top] = Frame::Set;
                let s = Scanner::str(self, text);
                let number = s.bytes().any(|c| c.is_ascii_digit())
                    && s.bytes()
                        .all(|c| c.is_ascii_digit() || b"+-.eE".contains(&c))
                    && s.parse::<f64>().is_ok();
                if unquoted && (number || literal(s).is_some()) {
                    // `{1, 2}`, `{True, False}`: a number or a literal is an
                    // element as it is after the comma, no key's text.
                    let at = self.token_start;
                    if self
                        .repairs
                        .last()
                        .is_some_and(|r| r.kind == RepairKind::UnquotedKey)
                    {
                        self.repairs.pop();
                    }
                    self.pos = at;
                    return match number {
                        true => self.number_value(),
                        false => self.word_value(),
                    };
                }
                self.pos = j;
                self.scalar_done();
                return Ok(Some(Event::Str(text)));
            }
            // `{"a": "x" 2}`, `{"a": 1, 2}`: a number where a key goes, with
            // no colon, is a value, not a key missing its value.
            b'}' | b',' | b']' | b')'
                if unquoted && Scanner::str(self, text).bytes().all(|c| c.is_ascii_digit()) =>
            {
                return Err(Error::at(
                    ErrorKind::Syntax,
                    "expected a key, found a number with no colon after it",
                    self.token_start,
                ));
            }
            // `{True}`, `{'a': {None}}`: a set of one literal is a list of
            // it, not a key with no value dropped.
            b'}' if self.object_pending
                && unquoted
                && literal(Scanner::str(self, text)).is_some() =>
            {
                let top = self.stack.len() - 1;
                self.stack[top] = Frame::Set;
                if self
                    .repairs
                    .last()
                    .is_some_and(|r| r.kind == RepairKind::UnquotedKey)
                {
                    self.repairs.pop();
                }
                self.pos = self.token_start;
                return self.word_value();
            }
            // `{'tags': {'python'}}`: a set of one string as Python writes
            // it (single-quoted), inside a container, is a list of it, not
            // a key with no value dropped.
            b'}' if self.object_pending
                && !unquoted
                && self.stack.len() > 1
                && b[self.token_start] == b'\'' =>
            {
                let top = self.stack.len() - 1;
                self.stack[top] = Frame::Set;
                self.pos = j;
                self.scalar_done();
                return Ok(Some(Event::Str(text)));
            }
            b'}' | b',' | b']' | b')' => {
                self.dangling_key(j, false);
                self.state = State::AfterValue;
                return Ok(None);
            }
            // `{first name: "Ada"}`: bare words up to a colon on the line are
            // one key, not a stray word and a key.
            _ if unquoted && is_word(b[j]) && self.words_then_colon(j).is_some() => {
                let Some((last, colon)) = self.words_then_colon(j) else {
                    return Ok(None);
                };
                let start = self.token_start;
                let key = Text::Borrowed(&self.text[start..last]);
                let k = next_significant(b, colon + 1, end);
                if k >= end {
                    self.dangling_key(k, true);
                    return Ok(None);
                }
                self.pos = k;
                self.state = State::Value;
                self.awaiting_value = true;
                return Ok(Some(Event::Key(key)));
            }
            _ if unquoted && is_word(b[j]) => match self.words_then_key(j) {
                // `COMMENT "key": ...` or `brown fox. "key":`: stray words
                // before a member, skipped one by one.
                Some(true) => {
                    self.repairs.relabel_last(RepairKind::Skipped);
                    self.pos = j;
                    self.state = State::ObjectKey;
                    return Ok(None);
                }
                // `{brown fox` cut off: what the words are is not decided.
                None => {
                    self.dangling_key(end, true);
                    return Ok(None);
                }
                // `{this is "open"}`: words that are neither a key nor
                // stray words before one (skipping them would drop text
                // and make a member of what follows).
                Some(false) => {
                    return Err(Error::at(
                        ErrorKind::Syntax,
                        "expected a colon after an unquoted key, found more words",
                        j,
                    ));
                }
            },
            _ if unquoted
                && quote_at(b, j, end).is_some()
                && key_then_colon(b, j, end).is_some() =>
            {
                // `COMMENT "key": ...`: a stray word.
                self.repairs.relabel_last(RepairKind::Skipped);
                self.pos = j;
                self.state = State::ObjectKey;
                return Ok(None);
            }
            _ if lex::lone_sign_to_end(b, j, end) => {
                // `{"m" -` cut off: as after a colon.
                self.record(RepairKind::TruncatedValue, j);
                self.dangling_key(end, true);
                return Ok(None);
            }
            // `{ "open" and "quoted" phrase }`: a quoted key, then a bare
            // word that is no literal is prose in braces, not a member
            // missing its colon (its value would be made of the next word).
            _ if !unquoted && self.bare_word_at(j) => {
                return Err(Error::at(
                    ErrorKind::Syntax,
                    "expected a colon after the key, found a word",
                    j,
                ));
            }
            _ => {
                self.record(RepairKind::MissingColon, j);
                self.pos = j;
            }
        }
        self.state = State::Value;
        self.awaiting_value = true;
        Ok(Some(Event::Key(text)))
    }

    /// Whether a bare word starts at `j` that no literal spelling reads
    /// (`and`, not `true`, `None` or a cut `tr`) and no number starts.
    fn bare_word_at(&self, j: usize) -> bool {
        let b = self.b;
        if !is_word(b[j]) || b[j].is_ascii_digit() {
            return false;
        }
        let mut k = j;
        while k < self.end && is_word(b[k]) {
            k += 1;
        }
        let word = &self.text[j..k];
        match k >= self.end {
            true => cut_literal(word).is_none(),
            false => literal(word).is_none(),
        }
    }

    /// A full-width separator after a key at `j` (see [`Self::key_event`]):
    /// the byte it stands for and its length (a colon is recorded here).
    #[cold]
    fn wide_after_key(&mut self, j: usize) -> (u8, usize) {
        match lex::wide_sep(self.b, j, self.end) {
            Some(c) => {
                if c == b':' {
                    self.record(RepairKind::FullWidthPunctuation, j);
                }
                (c, lex::WIDE)
            }
            None => (0xEF, 1),
        }
    }

    fn dangling_key(&mut self, at: usize, at_end: bool) {
        self.record(RepairKind::DanglingKey, self.token_start);
        if at_end {
            self.truncated = true;
        }
        self.pos = at;
        // As if after a value: a comma before the dropped key is not trailing.
        self.state = State::AfterValue;
    }

    // ----- between values ----------------------------------------------

    fn after_value(&mut self, c: u8) -> Result<Option<Event<'de>>> {
        let top = *self.stack.last().expect("after a value inside a container");
        match (top, c) {
            (Frame::Object, b',') => {
                self.pos += 1;
                self.state = State::ObjectKey;
                Ok(None)
            }
            (Frame::Array | Frame::Tuple | Frame::Set | Frame::Roots, b',')
            | (Frame::Roots, b';') => {
                self.pos += 1;
                self.state = State::Value;
                Ok(None)
            }
            (Frame::Object, b'}') => {
                if self.is_outermost(self.stack.len() - 1) && self.reopens(self.pos + 1) {
                    // `{"a": 1}, "b": 2}`: the object closed too early.
                    self.record(RepairKind::Reopened, self.pos);
                    self.pos += 1;
                    return Ok(None);
                }
                self.pos += 1;
                Ok(self.pop())
            }
            (Frame::Array, b']') if self.continues_array() => {
                // `"key": ["a"], ["b"]`: one list written in pieces.
                self.record(RepairKind::MismatchedCloser, self.pos);
                let comma = next_significant(self.b, self.pos + 1, self.end);
                self.pos = next_significant(self.b, comma + 1, self.end) + 1;
                self.state = State::Value;
                Ok(None)
            }
            (Frame::Array, b']') | (Frame::Tuple | Frame::Group, b')') | (Frame::Set, b'}') => {
                self.pos += 1;
                Ok(self.pop())
            }
            (_, b'}' | b']' | b')') => Ok(self.closer(c)),
            (_, b':' | b';') => {
                self.record(RepairKind::Skipped, self.pos);
                self.pos += 1;
                Ok(None)
            }
            (_, b'`') if self.skip_fence() => Ok(None),
            // `"x"，"b"`: read as the ASCII separator.
            (_, 0xEF) if lex::wide_sep(self.b, self.pos, self.end).is_some() => {
                Ok(self.wide_sep_here().flatten())
            }
            // `{"a": [1, 2] [3, 4]}`: a second value where a key would
            // follow a missing comma (skipping its opener made keys of its
            // content, or dropped it). In an object that is an array's
            // element, the object was not closed (see `key`).
            (Frame::Object, b'{' | b'[')
                if !self.in_list_element() && !self.after_stray_colon() =>
            {
                Err(Error::at(
                    ErrorKind::Syntax,
                    "expected a comma and a key after the value, found another value",
                    self.pos,
                ))
            }
            (Frame::Object, _) => {
                self.record(RepairKind::MissingComma, self.pos);
                self.state = State::ObjectKey;
                Ok(None)
            }
            (Frame::Array | Frame::Tuple | Frame::Set, _) => {
                self.record(RepairKind::MissingComma, self.pos);
                self.state = State::Value;
                Ok(None)
            }
            (Frame::Roots, c) => {
                // `{"id": 4} [1]`: a citation after a value on its line is
                // the value's, no value of its own (see `lex::citation`).
                match (c == b'[').then(|| self.citation_after_value()).flatten() {
                    Some(end) => {
                        self.record(RepairKind::TrailingText, self.pos);
                        self.pos = end;
                    }
                    None => self.state = State::Value,
                }
                Ok(None)
            }
            (Frame::Group, _) => {
                self.skip_char();
                Ok(None)
            }
        }
    }

    /// Where the citation at `self.pos` ends, when one is there right
    /// after a value on its line (see [`lex::after_a_value`]).
    fn citation_after_value(&self) -> Option<usize> {
        let b = self.b;
        let close = self.pos
            + 1
            + b[self.pos + 1..self.end.min(self.pos + 8)]
                .iter()
                .position(|&c| c == b']')?;
        (lex::citation(&b[self.pos..=close]) && lex::after_a_value(b, self.pos))
            .then_some(close + 1)
    }

    /// At the `]` of an array that is an object's value: does `, [` follow,
    /// where a key should be?
    fn continues_array(&self) -> bool {
        let n = self.stack.len();
        if n < 2 || self.stack[n - 2] != Frame::Object {
            return false;
        }
        let comma = next_significant(self.b, self.pos + 1, self.end);
        if comma >= self.end || self.b[comma] != b',' {
            return false;
        }
        let open = next_significant(self.b, comma + 1, self.end);
        open < self.end && self.b[open] == b'['
    }

    /// After the root object's `}` at `i`: does `, "key":` follow?
    fn reopens(&self, i: usize) -> bool {
        let j = next_significant(self.b, i, self.end);
        if j >= self.end || self.b[j] != b',' {
            return false;
        }
        let k = next_significant(self.b, j + 1, self.end);
        if k >= self.end {
            return false;
        }
        key_then_colon(self.b, k, self.end).is_some()
            || lex::simple_string_end(self.b, k, self.end).is_some_and(|e| {
                let n = next_significant(self.b, e, self.end);
                n < self.end && quote_at(self.b, n, self.end).is_some()
            })
    }

    /// A closer that does not match the innermost container.
    fn closer(&mut self, c: u8) -> Option<Event<'de>> {
        let closes = |f: &Frame| match c {
            b'}' => matches!(f, Frame::Object | Frame::Set),
            b']' => *f == Frame::Array,
            _ => matches!(f, Frame::Tuple | Frame::Group),
        };
        let target = self.stack.iter().rposition(closes);
        self.pos += 1;
        match target {
            Some(i) => {
                self.record(RepairKind::MismatchedCloser, self.pos - 1);
                let len = self.stack.len();
                let more = next_significant(self.b, self.pos, self.end) < self.end
                    && !matches!(
                        self.b[next_significant(self.b, self.pos, self.end)],
                        b'}' | b']' | b')'
                    );
                if self.is_outermost(i) && i + 1 < len && more {
                    // `{"a": ["x", "y"}, "b": 1}`: a typo for `]`; close only
                    // the innermost container.
                    self.state = State::Closing(len - 1);
                } else {
                    self.state = State::Closing(i);
                }
                None
            }
            None => {
                self.record(RepairKind::StrayCloser, self.pos - 1);
                None
            }
        }
    }

    /// After the root value in single-root mode: skip stray punctuation, note
    /// whether another value follows, and end.
    fn after_root(&mut self, c: u8) -> Option<Event<'de>> {
        if matches!(c, b',' | b';' | b'}' | b']' | b')' | b'`') {
            // A comma may separate top-level values (`1, 2`); one with
            // nothing after it is text after the value.
            if c != b',' || next_significant(self.b, self.pos + 1, self.end) >= self.end {
                self.record(RepairKind::TrailingText, self.pos);
            }
            self.pos += 1;
            return None;
        }
        if self.next_root_at(self.pos) {
            self.more_roots = true;
        } else {
            self.record(RepairKind::TrailingText, self.pos);
        }
        self.state = State::Done;
        Some(Event::Eof)
    }

    /// Whether another top-level value starts at `j`: an object or array, or,
    /// after a scalar, a number, a quoted string, or a single word on its line
    /// (`1\n2`, `a,b`) — not a sentence of prose.
    fn next_root_at(&self, j: usize) -> bool {
        let b = self.b;
        let c = b[j];
        if matches!(c, b'{' | b'[') {
            return true;
        }
        if !self.scalar_root {
            return false;
        }
        if c.is_ascii_digit() || matches!(c, b'"' | b'\'' | b'-') {
            return true;
        }
        if !is_word(c) {
            return false;
        }
        let mut k = j;
        while k < self.end && is_word(b[k]) {
            k += 1;
        }
        while k < self.end && matches!(b[k], b' ' | b'\t' | b'\r') {
            k += 1;
        }
        k >= self.end || matches!(b[k], b'\n' | b',')
    }

    /// What [`read`](Self::read) gives where the text has ended after a
    /// value inside an object or array with the lane's rules: the
    /// container's closer, put back (as [`at_end`](Self::at_end) puts it),
    /// with the read's state as the read leaves it, without its dispatch.
    /// `None` where the read is another. (A tail closes every container
    /// open where a view's text ends: most of its events are these.)
    pub(crate) fn closer_at_end(&mut self) -> Option<Event<'de>> {
        if self.pos < self.end
            || self.pending.is_some()
            || self.state != State::AfterValue
            || self.awaiting_value
            || !self.rules.all_repairs()
            || !matches!(self.stack.last(), Some(Frame::Object | Frame::Array))
        {
            return None;
        }
        self.plain = false;
        self.reach = usize::MAX;
        self.looked.set(0);
        self.complete = true;
        self.roots_close = false;
        self.truncated = true;
        self.record(RepairKind::MissingCloser, self.end);
        self.cut_close = true;
        self.pop()
    }

    /// The end of the span.
    fn at_end(&mut self) -> Result<Option<Event<'de>>> {
        if self.stack.len() == 1 && self.stack[0] == Frame::Roots {
            if let Some(next) = self.segments.pop() {
                self.pos = next.start;
                self.end = next.end;
                self.state = State::Value;
                return Ok(None);
            }
        }
        if self.awaiting_value {
            self.awaiting_value = false;
            self.truncated = true;
            return Ok(self.missing_value());
        }
        match self.stack.last() {
            None => match self.state {
                State::AfterRoot | State::Done if self.roots > 0 => {
                    self.state = State::Done;
                    Ok(Some(Event::Eof))
                }
                _ => Err(Error::at(
                    ErrorKind::NoJson,
                    "no JSON value found",
                    self.pos.min(self.end),
                )),
            },
            Some(Frame::Roots) => {
                self.roots_close = true;
                Ok(self.pop())
            }
            Some(&top) => {
                let after_comma = match self.state {
                    State::ObjectKey => true,
                    State::Value => top != Frame::Object && top != Frame::Group,
                    _ => false,
                };
                if after_comma {
                    // `[1, 2,` cut off: the comma is dropped.
                    self.trailing_comma(self.end);
                    self.state = State::AfterValue;
                }
                self.truncated = true;
                self.record(RepairKind::MissingCloser, self.end);
                // The container closed here was cut off.
                self.cut_close = true;
                Ok(self.pop())
            }
        }
    }
}

/// Whether a bare word spells a literal ([`literal`]): a reply that opens
/// with one is read as values, not as prose (`true "x"`).
pub(crate) fn is_literal(word: &str) -> bool {
    literal(word).is_some()
}

/// The literal a bare word spells, in any spelling the scanner reads
/// (`True`, `None`, `nil`, `undefined`, `nan`, `inf`).
fn literal(word: &str) -> Option<Event<'static>> {
    match word.to_ascii_lowercase().as_str() {
        "true" => Some(Event::Bool(true)),
        "false" => Some(Event::Bool(false)),
        "null" | "none" | "nil" | "undefined" => Some(Event::Null),
        "nan" => Some(non_finite("NaN", f64::NAN)),
        "infinity" | "inf" => Some(non_finite("Infinity", f64::INFINITY)),
        _ => None,
    }
}

/// The literal a word cut off at the end was becoming: JSON's own spellings
/// first, then `NaN`, `Infinity` and Python's, then any case.
fn cut_literal(word: &str) -> Option<Event<'static>> {
    const EXACT: [&str; 8] = [
        "true", "false", "null", "NaN", "Infinity", "True", "False", "None",
    ];
    let matches = |full: &str| full.starts_with(word);
    let lower = word.to_ascii_lowercase();
    let full = EXACT.iter().copied().find(|f| matches(f)).or_else(|| {
        ["true", "false", "null"]
            .into_iter()
            .find(|f| f.starts_with(&lower))
    })?;
    Some(match full {
        "true" | "True" => Event::Bool(true),
        "false" | "False" => Event::Bool(false),
        "NaN" => non_finite("NaN", f64::NAN),
        "Infinity" => non_finite("Infinity", f64::INFINITY),
        _ => Event::Null,
    })
}

fn non_finite(text: &'static str, v: f64) -> Event<'static> {
    Event::Num(Number {
        text: Text::Borrowed(text),
        value: NumValue::NonFinite(v),
    })
}
