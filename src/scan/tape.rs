//! The tape: the scanner's events, written once, read by every consumer
//! (the Deserializer, `repair()`'s writer, the stream's views).
//!
//! The scanner knows whether a value is complete only when it reaches the
//! value's end; the Deserializer needs to know when it starts the value (a
//! cut number must not become a number, a field not marked partial stands
//! as missing). Reading the reply once into a tape answers that without
//! guessing: a container's start is written when it opens and marked
//! complete or cut when it closes.
//!
//! **Layout.** A stream of `u16` words, so that the densest replies (`[1]`
//! repeated: three events in four bytes) stay within a small multiple of
//! their length. Each event is one head word, then, for a key, a string or
//! a number, one word or more for its text:
//!
//! - head: `kind` (4 bits) · `complete` (1) · `owned` (1) · the event's
//!   offset, less the previous event's (10 bits; [`WIDE`] means two more
//!   words hold it);
//! - borrowed text (the reply's own bytes): where the content starts, less
//!   the event's offset (2 bits) · its length (14 bits); [`WIDE`] in a word
//!   of its own means four more words hold both as `u32`s;
//! - owned text (unescaped or repaired, in the side buffer, one after the
//!   other): its length (16 bits; [`WIDE`] means two more words).
//!
//! Offsets are kept relative to the caller's whole text, so an error points
//! into what the model wrote.

use crate::error::{Error, ErrorKind, Result, Segment};
use crate::report::Repairs;

use super::number::{classify, NumValue};
use super::{Event, Number, Scanner, Text};

/// A field value that does not fit: the value follows in wider words.
const WIDE: u16 = u16::MAX;
/// The widest offset step a head word holds.
const HEAD_STEP: usize = (1 << 10) - 1;

const START_OBJECT: u16 = 0;
const END_OBJECT: u16 = 1;
const START_ARRAY: u16 = 2;
const END_ARRAY: u16 = 3;
const KEY: u16 = 4;
const STR: u16 = 5;
const NUM: u16 = 6;
const TRUE: u16 = 7;
const FALSE: u16 = 8;
const NULL: u16 = 9;
const EOF: u16 = 10;
/// The read failed here: the error is the tape's [`Tape::error`].
const FAIL: u16 = 11;

const COMPLETE: u16 = 1 << 11;
const OWNED: u16 = 1 << 10;

/// The events of one read, in order.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    words: Vec<u16>,
    /// Strings and numbers that needed unescaping or repair.
    side: String,
    /// The offset of the last event written (offsets are stored as steps).
    last: usize,
    /// Where each open container's head word is, to mark it complete or cut
    /// when it closes.
    open: Vec<u32>,
    /// The error the read stopped with (a [`FAIL`] event marks where).
    error: Option<Error>,
    /// Where a top-level value written as bare prose (a word or sentence
    /// taken as a string) starts, if one was read.
    prose_at: Option<usize>,
    /// The read was cut off at the end (and completed).
    truncated: bool,
    /// The read gathered several spans into one array.
    gathered: bool,
    /// A value was cut off: every container still open is cut too.
    cut: bool,
    /// The head word of the first event written once the scanner had met
    /// the end of the input (cut off): a decode that reads it has reached
    /// the cut, and an error from there on may be the cut's.
    cut_word: Option<usize>,
    /// Room for a [`TapeMark`]'s open containers, given back by
    /// [`rewind`](Self::rewind): a view marks the tape on every push.
    marks: Vec<(u32, u16)>,
}

impl Tape {
    /// An empty tape.
    pub(crate) fn new() -> Tape {
        Tape::default()
    }

    /// How many words it holds.
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// Empties it for another read, keeping its room (each field reset
    /// in place: a part read clears a tape on every change).
    pub(crate) fn clear(&mut self) {
        let Tape {
            words,
            side,
            last,
            open,
            error,
            prose_at,
            truncated,
            gathered,
            cut,
            cut_word,
            marks: _,
        } = self;
        words.clear();
        side.clear();
        *last = 0;
        open.clear();
        *error = None;
        *prose_at = None;
        *truncated = false;
        *gathered = false;
        *cut = false;
        *cut_word = None;
    }

    /// A tape with room for the events of a span of `len` bytes as most
    /// replies write them (a quarter of a word per byte: about 127,000
    /// events, 0.43 bytes of tape per byte, for a megabyte of records).
    pub(crate) fn for_span(len: usize) -> Tape {
        Tape {
            words: Vec::with_capacity(len / 4 + 16),
            ..Tape::default()
        }
    }

    /// Room for a few more words: past the first guess, the tape grows by a
    /// quarter of its size, not by doubling, so that its spare room stays
    /// small (the working memory of a decode is bounded by a small multiple
    /// of the reply, the tape included).
    #[inline(always)]
    fn room(&mut self) {
        if self.words.capacity() - self.words.len() < 10 {
            self.grow();
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let more = (self.words.len() / 4).max(64);
        self.words.reserve_exact(more);
    }

    /// Appends a word where [`room`](Self::room) made room.
    #[inline(always)]
    fn word(&mut self, w: u16) {
        debug_assert!(self.words.len() < self.words.capacity());
        let n = self.words.len();
        // SAFETY: `room` left at least ten words of capacity, and no
        // event writes more than eight.
        unsafe {
            self.words.as_mut_ptr().add(n).write(w);
            self.words.set_len(n + 1);
        }
    }

    /// Appends two words where [`room`](Self::room) made room.
    #[inline(always)]
    fn two(&mut self, a: u16, b: u16) {
        debug_assert!(self.words.len() + 2 <= self.words.capacity());
        let n = self.words.len();
        // SAFETY: `room` left at least ten words of capacity, and no
        // event writes more than eight.
        unsafe {
            let p = self.words.as_mut_ptr().add(n);
            p.write(a);
            p.add(1).write(b);
            self.words.set_len(n + 2);
        }
    }

    /// An event's head word (and, for a step that does not fit, two more).
    #[inline(always)]
    fn head(&mut self, kind: u16, flags: u16, offset: usize) {
        let step = offset.wrapping_sub(self.last);
        self.last = offset;
        if step < HEAD_STEP {
            self.word(kind << 12 | flags | step as u16);
        } else {
            // A step back (an event at an earlier offset than the last: a
            // held-back object's start) or a long one.
            self.word(kind << 12 | flags | HEAD_STEP as u16);
            self.wide(offset as u32);
        }
    }

    #[inline(always)]
    fn wide(&mut self, v: u32) {
        self.word(v as u16);
        self.word((v >> 16) as u16);
    }

    /// Writes one event of the text `text`, at `offset`; `scratch` is what
    /// [`Text::Scratch`] stands for. A container's start is marked complete
    /// or cut when its end is written ([`close`](Self::close)). `lane`: the
    /// event is the fast lane's, whose borrowed texts are all the reply's
    /// own (not to be told from a constant such as `"NaN"`).
    #[inline(always)]
    pub(crate) fn push(
        &mut self,
        text: &str,
        scratch: &str,
        ev: Event<'_>,
        offset: usize,
        complete: bool,
        lane: bool,
    ) {
        self.room();
        let c = if complete { COMPLETE } else { 0 };
        self.cut |= !complete;
        match ev {
            Event::StartObject | Event::StartArray => {
                self.open.push(self.words.len() as u32);
                let kind = match ev {
                    Event::StartObject => START_OBJECT,
                    _ => START_ARRAY,
                };
                self.head(kind, c, offset);
            }
            Event::EndObject => self.head(END_OBJECT, COMPLETE, offset),
            Event::EndArray => self.head(END_ARRAY, COMPLETE, offset),
            Event::Key(t) => self.text(KEY, c, offset, t, text, scratch, lane),
            Event::Str(t) => self.text(STR, c, offset, t, text, scratch, lane),
            Event::Num(n) => self.text(NUM, c, offset, n.text, text, scratch, lane),
            Event::Bool(true) => self.head(TRUE, c, offset),
            Event::Bool(false) => self.head(FALSE, c, offset),
            Event::Null => self.head(NULL, c, offset),
            Event::Eof => self.head(EOF, COMPLETE, offset),
        }
    }

    /// Writes the event the scanner `scan` just returned.
    #[inline(always)]
    pub(crate) fn event(&mut self, scan: &Scanner<'_>, ev: Event<'_>) {
        match ev {
            Event::EndObject | Event::EndArray => self.close(!scan.cut_close, scan.roots_close),
            Event::Str(_) if scan.prose_root() => self.prose_at = Some(scan.token_start),
            _ => {}
        }
        self.push(
            scan.text,
            &scan.scratch,
            ev,
            scan.token_start,
            scan.complete,
            false,
        );
    }

    /// Where the tape is, to take back what is written after it
    #[cfg_attr(not(test), allow(dead_code))]
    /// ([`rewind`](Self::rewind)).
    pub(crate) fn mark(&mut self) -> TapeMark {
        let mut open = std::mem::take(&mut self.marks);
        open.clear();
        open.extend(self.open.iter().map(|&at| (at, self.words[at as usize])));
        TapeMark {
            at: self.spot(),
            open,
            error: self.error.clone(),
        }
    }

    /// Takes back what was written since `mark`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn rewind(&mut self, mark: TapeMark) {
        self.back_to(mark.at);
        self.open.clear();
        for &(at, head) in &mark.open {
            self.words[at as usize] = head;
            self.open.push(at);
        }
        self.marks = mark.open;
        self.error = mark.error;
    }

    /// Where the tape is before one event is written, to take it back
    /// ([`rewind_step`](Self::rewind_step)): a [`mark`](Self::mark) that
    /// keeps, of the open containers, only the innermost (one event opens
    /// or closes one container at most), so that it allocates nothing.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn step_mark(&self) -> StepMark {
        debug_assert!(self.error.is_none(), "a read that failed is over");
        StepMark {
            at: self.spot(),
            open: self.open.len(),
            top: self.open.last().map(|&at| (at, self.words[at as usize])),
        }
    }

    /// Takes back the one event written since `mark`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn rewind_step(&mut self, mark: StepMark) {
        self.back_to(mark.at);
        // The container the event opened goes; the one it closed is open
        // again, its head word as it was.
        self.open.truncate(mark.open);
        if let Some((at, head)) = mark.top {
            if self.open.len() < mark.open {
                self.open.push(at);
            }
            self.words[at as usize] = head;
        }
        debug_assert_eq!(self.open.len(), mark.open, "one event, one container");
        self.error = None;
    }

    /// Where the tape's words, side buffer and flags are (see [`Spot`]).
    fn spot(&self) -> Spot {
        Spot {
            words: self.words.len(),
            side: self.side.len(),
            last: self.last,
            prose_at: self.prose_at,
            truncated: self.truncated,
            cut: self.cut,
            cut_word: self.cut_word,
        }
    }

    /// Takes the words, side buffer and flags back to `at`.
    fn back_to(&mut self, at: Spot) {
        self.words.truncate(at.words);
        self.side.truncate(at.side);
        self.last = at.last;
        self.prose_at = at.prose_at;
        self.truncated = at.truncated;
        self.cut = at.cut;
        self.cut_word = at.cut_word;
    }

    /// Marks the innermost open container complete (its closer was
    /// written) or cut (closed at the end of the input, or around a value
    /// cut off: a string ended at a guessed place, `{"a": "b}`, is no
    /// complete object). `roots`: the array that gathers several top-level
    /// values, no value of the reply's, which is never cut.
    pub(crate) fn close(&mut self, complete: bool, roots: bool) {
        self.cut |= !complete;
        let complete = roots || !self.cut;
        if let Some(at) = self.open.pop() {
            let w = &mut self.words[at as usize];
            *w = if complete {
                *w | COMPLETE
            } else {
                *w & !COMPLETE
            };
        }
    }

    /// The head word at `word` is the first written once the read met the
    /// end of its input (unless one before it was).
    pub(crate) fn mark_cut_at(&mut self, word: usize) {
        self.cut_word.get_or_insert(word);
    }

    /// The read was cut off at the end (and completed).
    pub(crate) fn set_truncated(&mut self) {
        self.truncated = true;
    }

    /// Ends the tape with the error the read stopped with, at `offset`.
    pub(crate) fn fail(&mut self, error: Error, offset: usize) {
        self.room();
        self.head(FAIL, COMPLETE, offset);
        self.error = Some(error);
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn text(
        &mut self,
        kind: u16,
        c: u16,
        offset: usize,
        t: Text<'_>,
        text: &str,
        scratch: &str,
        lane: bool,
    ) {
        if let Text::Borrowed(s) = t {
            // Borrowed from the reply itself (not a constant such as
            // `"NaN"`): kept as a span. The lane borrows only the reply.
            let at = (s.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
            let within = at <= text.len() && s.len() <= text.len() - at;
            debug_assert!(within || !lane);
            if lane || within {
                let lead = at.wrapping_sub(offset);
                let step = offset.wrapping_sub(self.last);
                if step < HEAD_STEP && lead < 4 && s.len() < (1 << 14) - 1 {
                    // The common case: both words at once.
                    self.last = offset;
                    let head = kind << 12 | c | step as u16;
                    self.two(head, (lead as u16) << 14 | s.len() as u16);
                    return;
                }
                self.head(kind, c, offset);
                if lead < 4 && s.len() < (1 << 14) - 1 {
                    self.word((lead as u16) << 14 | s.len() as u16);
                } else {
                    self.word(WIDE);
                    self.wide(at as u32);
                    self.wide(s.len() as u32);
                }
                return;
            }
        }
        self.owned(kind, c, offset, t, scratch);
    }

    #[inline(never)]
    fn owned(&mut self, kind: u16, c: u16, offset: usize, t: Text<'_>, scratch: &str) {
        let s = match t {
            Text::Borrowed(s) => s,
            Text::Scratch | Text::Side(..) => scratch,
        };
        self.head(kind, c | OWNED, offset);
        if self.side.capacity() - self.side.len() < s.len() {
            let more = (self.side.len() / 4).max(s.len()).max(64);
            self.side.reserve_exact(more);
        }
        self.side.push_str(s);
        if s.len() < WIDE as usize {
            self.word(s.len() as u16);
        } else {
            self.word(WIDE);
            self.wide(s.len() as u32);
        }
    }

    /// A cursor at the event [`containers`](Self::containers) was about to
    /// walk at `from`.
    pub(crate) fn cursor_at<'t, 'de>(&'t self, text: &'de str, from: Walked) -> Cursor<'t, 'de> {
        let mut c = self.cursor(text);
        c.at = Place {
            word: from.word,
            offset: from.offset,
            side: from.side,
        };
        c
    }

    /// Writes onto `self` the events of `from` that `c` reads from the
    /// opener it is at to that container's closer, each at its offset less
    /// `base`, their texts owned: a container's events as another read
    /// wrote them (see `scan::part`). `false` if the tape ends first.
    pub(crate) fn copy_container(&mut self, c: &mut Cursor<'_, '_>, base: usize) -> bool {
        let mut complete = Vec::new();
        loop {
            if !c.peeked && c.at.word >= c.tape.words.len() {
                return false;
            }
            let Ok(ev) = c.next() else {
                return false;
            };
            let at = c.offset().wrapping_sub(base);
            match ev {
                Event::StartObject | Event::StartArray => complete.push(c.complete()),
                Event::EndObject | Event::EndArray => {
                    let Some(done) = complete.pop() else {
                        return false;
                    };
                    self.close(done, false);
                }
                Event::Eof => return false,
                _ => {}
            }
            // (Where the read met the end, the copy meets it.)
            if c.reached_cut() {
                self.mark_cut_at(self.len());
            }
            let own = match ev {
                Event::Key(t) | Event::Str(t) => c.str(t),
                Event::Num(n) => c.str(n.text),
                _ => "",
            };
            let ev = match ev {
                Event::Key(_) => Event::Key(Text::Scratch),
                Event::Str(_) => Event::Str(Text::Scratch),
                Event::Num(n) => Event::Num(Number {
                    text: Text::Scratch,
                    value: n.value,
                }),
                ev => ev,
            };
            // (An opener is written complete, as the scanner writes it:
            // its closer marks it, and a cut one would mark every
            // container closed after it cut.)
            let done = c.complete() || matches!(ev, Event::StartObject | Event::StartArray);
            self.push("", own, ev, at, done, false);
            if complete.is_empty() {
                return true;
            }
        }
    }

    /// A cursor at the tape's first event.
    pub(crate) fn cursor<'t, 'de>(&'t self, text: &'de str) -> Cursor<'t, 'de> {
        Cursor {
            tape: self,
            text,
            at: Place::default(),
            peeked: false,
            ev: Event::Eof,
            after: Place::default(),
            offset: 0,
            complete: true,
            depth: 0,
            last: 0,
        }
    }
}

impl<'de> super::fast::Sink<'de> for Tape {
    type Out = ();
    const AT_ONCE: bool = true;

    /// Written at once, where the lane read it: what [`Tape::event`]
    /// writes, knowing that the lane's events are complete and inside a
    /// container (no top-level prose).
    #[inline(always)]
    fn emit(&mut self, scan: &Scanner<'de>, ev: Event<'de>) {
        debug_assert!(scan.complete && !scan.prose_root());
        if let Event::EndObject | Event::EndArray = ev {
            self.close(!scan.cut_close, scan.roots_close);
        }
        self.push(scan.text, &scan.scratch, ev, scan.token_start, true, true);
    }
}

/// Where a tape was (see [`Tape::mark`]).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct TapeMark {
    at: Spot,
    /// The open containers, each with its head word as it was: a closer
    /// written after the mark marks its head complete or cut, which a
    /// rewind takes back.
    open: Vec<(u32, u16)>,
    error: Option<Error>,
}

/// Where a tape was before one event (see [`Tape::step_mark`]).
pub(crate) struct StepMark {
    at: Spot,
    /// How many containers were open, and the innermost with its head
    /// word as it was.
    open: usize,
    top: Option<(u32, u16)>,
}

/// What both marks keep: where the words and the side buffer end, and the
/// tape's flags.
struct Spot {
    words: usize,
    side: usize,
    last: usize,
    prose_at: Option<usize>,
    truncated: bool,
    cut: bool,
    cut_word: Option<usize>,
}

/// What a read of a span found beside its events.
#[derive(Debug)]
pub(crate) struct Summary {
    pub repairs: Repairs,
    pub truncated: bool,
    /// Another top-level value follows the root value (single-root mode).
    pub more_roots: bool,
    /// Where the root value ended, when the read stopped after it.
    pub root_end: Option<usize>,
    /// How many top-level values were read.
    pub roots: u32,
    /// A top-level value was bare prose.
    pub prose_roots: bool,
    /// Every top-level value was an object or an array.
    pub containers: bool,
    /// Where the read stopped.
    pub offset: usize,
}

impl<'de> Scanner<'de> {
    /// Reads the span to its end (or to the error that stops it) onto
    /// `tape`.
    pub(crate) fn tape(mut self, tape: &mut Tape) -> Summary {
        tape.gathered =
            !self.segments.is_empty() || self.stack.first() == Some(&super::Frame::Roots);
        self.tape_rest(tape);
        tape.truncated = self.truncated;
        self.summary()
    }

    /// Reads on to the end of the span (or to the error that stops it),
    /// completing what is cut there, onto `tape`.
    pub(crate) fn tape_rest(&mut self, tape: &mut Tape) {
        let lane = self.rules.all_repairs();
        loop {
            // The fast lane first: valid JSON's tokens inside a container,
            // each written at once (no repair, nothing cut, nothing held).
            if lane && self.pending.is_none() {
                self.complete = true;
                if self.fast_into(tape).is_some() {
                    continue;
                }
            }
            let was = self.truncated;
            if let Some(ev) = self.closer_at_end() {
                if self.tape_step(tape, was, Ok(ev)) {
                    break;
                }
                continue;
            }
            // (Nothing is peeked on the scanner while it writes a tape.)
            let next = self.read();
            if self.tape_step(tape, was, next) {
                break;
            }
        }
    }

    /// Writes `next`, what a step read (the read cut before it if `was`),
    /// onto `tape`: `true` when the read is over (its end, or an error).
    pub(crate) fn tape_step(
        &mut self,
        tape: &mut Tape,
        was: bool,
        next: Result<Event<'de>>,
    ) -> bool {
        if self.truncated && !was {
            tape.cut_word.get_or_insert(tape.words.len());
        }
        match next {
            Ok(ev) => {
                tape.event(self, ev);
                matches!(ev, Event::Eof)
            }
            Err(e) => {
                if self.truncated {
                    tape.cut_word.get_or_insert(tape.words.len());
                }
                tape.fail(e, self.token_start);
                true
            }
        }
    }

    /// [`tape`](Self::tape) of a scanner made [`with_spare`](Self::with_spare):
    /// its buffers go back to `spare`, emptied.
    pub(crate) fn tape_spare(mut self, tape: &mut Tape, spare: &mut super::Spare) -> Summary {
        tape.gathered =
            !self.segments.is_empty() || self.stack.first() == Some(&super::Frame::Roots);
        self.tape_rest(tape);
        tape.truncated = self.truncated;
        spare.keep(&mut self.stack, &mut self.opened, &mut self.scratch);
        self.summary()
    }

    /// What the read found beside its events (see [`Summary`]).
    pub(crate) fn summary(self) -> Summary {
        Summary {
            truncated: self.truncated,
            more_roots: self.more_roots(),
            root_end: self.root_end(),
            roots: self.roots(),
            prose_roots: self.prose_roots(),
            containers: self.roots_are_containers(),
            offset: self.token_start,
            repairs: self.repairs,
        }
    }
}

/// What [`Tape::containers`] says of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A container opened (its `{` or `[`).
    Open,
    /// The innermost container closed: by a `}` (`false`) or a `]`
    /// (`true`) at the offset, or by a closer the scanner put back.
    Close(bool),
    /// Any other event.
    Other,
    /// The read failed here.
    Fail,
}

/// An event as [`Tape::containers`] walks it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walking {
    pub step: Step,
    pub offset: usize,
    /// Written once the read had met the end of its input (a closer then
    /// closes a container cut there).
    pub cut: bool,
    /// Its kind, completeness, offset and text, mixed into one number: two
    /// readings of a span give the same numbers only if they read it alike
    /// (but for a collision).
    pub sig: u64,
    /// Where the walk is after it.
    pub next: Walked,
}

/// How far [`Tape::containers`] has walked a tape.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Walked {
    word: usize,
    /// The offset of the last event walked (the base of the next step).
    offset: usize,
    /// Where the next owned text starts in the side buffer.
    side: usize,
}

impl Tape {
    /// The events written from `from` on, each as the container it opens
    /// or closes, with its offset and signature (see [`Walking`]), until
    /// `each` says stop; `from` moves past those walked.
    pub(crate) fn containers(
        &self,
        text: &str,
        from: &mut Walked,
        mut each: impl FnMut(Walking) -> bool,
    ) {
        let words = &self.words[..];
        while from.word < words.len() {
            let head = words[from.word];
            let kind = head >> 12;
            let mut i = from.word + 1;
            let offset = match usize::from(head & HEAD_STEP as u16) {
                HEAD_STEP => {
                    i += 2;
                    usize::from(words[from.word + 1]) | usize::from(words[from.word + 2]) << 16
                }
                step => from.offset + step,
            };
            let mut side = from.side;
            let mut own = "";
            if matches!(kind, KEY | STR | NUM) {
                let w = words[i];
                i += 1;
                let wide = |k: usize| usize::from(words[k]) | usize::from(words[k + 1]) << 16;
                own = if head & OWNED != 0 {
                    let mut len = usize::from(w);
                    if w == WIDE {
                        len = wide(i);
                        i += 2;
                    }
                    side += len;
                    &self.side[side - len..side]
                } else {
                    let (start, len) = if w == WIDE {
                        i += 4;
                        (wide(i - 4), wide(i - 2))
                    } else {
                        (offset + usize::from(w >> 14), usize::from(w & 0x3FFF))
                    };
                    text.get(start..start + len).unwrap_or("")
                };
            }
            // (Not an opener's completeness: it is written when the
            // container closes.)
            let flags = match kind {
                START_OBJECT | START_ARRAY => 0xF000,
                _ => 0xF000 | COMPLETE,
            };
            let mut sig = u64::from(head & flags) << 48 ^ offset as u64;
            for &c in own.as_bytes() {
                sig = (sig ^ u64::from(c)).wrapping_mul(0x100_0000_01b3);
            }
            let walking = Walking {
                step: match kind {
                    START_OBJECT | START_ARRAY => Step::Open,
                    END_OBJECT => Step::Close(false),
                    END_ARRAY => Step::Close(true),
                    FAIL => Step::Fail,
                    _ => Step::Other,
                },
                offset,
                cut: self.cut_word.is_some_and(|w| from.word >= w),
                sig: sig.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29),
                next: Walked {
                    word: i,
                    offset,
                    side,
                },
            };
            *from = walking.next;
            if !each(walking) {
                return;
            }
        }
    }
}

/// Where a cursor is on its tape.
#[derive(Clone, Copy, Debug, Default)]
struct Place {
    /// The next event's head word.
    word: usize,
    /// The offset of the last event read (the base of the next step).
    offset: usize,
    /// Where the next owned text starts in the side buffer.
    side: usize,
}

/// Reads a tape's events in order.
#[derive(Clone)]
pub(crate) struct Cursor<'t, 'de> {
    tape: &'t Tape,
    text: &'de str,
    /// Where the next event not yet peeked is.
    at: Place,
    /// An event was peeked: `ev` and `after` hold it.
    peeked: bool,
    /// The last event returned or peeked.
    ev: Event<'de>,
    /// Where the event after the peeked one is.
    after: Place,
    /// The offset of the last event returned or peeked.
    offset: usize,
    /// Whether that event starts a complete value.
    complete: bool,
    /// How many containers are open.
    depth: usize,
    /// The head word of the last event returned or peeked.
    last: usize,
}

impl<'t, 'de> Cursor<'t, 'de> {
    /// The next event.
    #[inline]
    pub(crate) fn next(&mut self) -> Result<Event<'de>> {
        if !self.peeked && !self.decode() {
            return Err(self.error());
        }
        self.peeked = false;
        match self.ev {
            Event::StartObject | Event::StartArray => self.depth += 1,
            Event::EndObject | Event::EndArray => self.depth -= 1,
            // The last event: read again on every later call.
            Event::Eof => return Ok(self.ev),
            _ => {}
        }
        self.at = self.after;
        Ok(self.ev)
    }

    /// The next event when it is a complete key, string or number (`kind`)
    /// written as the reply wrote it (borrowed, its step and span short):
    /// taken, its text. The Deserializer's hot path: anything else is left
    /// to [`next`](Self::next) and [`peek`](Self::peek).
    #[inline(always)]
    fn take_text(&mut self, kind: u16) -> Option<&'de str> {
        if self.peeked {
            return None;
        }
        let at = self.at.word;
        // A text's head is always followed by its span word.
        let &[head, w] = self.tape.words.get(at..at + 2)? else {
            return None;
        };
        let want = kind << 12 | COMPLETE;
        if head & (0xF000 | COMPLETE | OWNED) != want
            || head & HEAD_STEP as u16 == HEAD_STEP as u16
            || w == WIDE
        {
            return None;
        }
        let offset = self.at.offset + usize::from(head & HEAD_STEP as u16);
        let start = offset + usize::from(w >> 14);
        // SAFETY: the tape holds only spans of `text` the scanner borrowed
        // as `&str` (char boundaries, within bounds).
        let s = unsafe {
            self.text
                .get_unchecked(start..start + usize::from(w & 0x3FFF))
        };
        self.offset = offset;
        self.complete = true;
        self.last = at;
        self.at.word = at + 2;
        self.at.offset = offset;
        Some(s)
    }

    /// [`take_text`](Self::take_text) of a key.
    #[inline(always)]
    pub(crate) fn take_key(&mut self) -> Option<&'de str> {
        self.take_text(KEY)
    }

    /// [`take_text`](Self::take_text) of a string.
    #[inline(always)]
    pub(crate) fn take_str(&mut self) -> Option<&'de str> {
        self.take_text(STR)
    }

    /// [`take_text`](Self::take_text) of a number, with its value.
    #[inline(always)]
    pub(crate) fn take_num(&mut self) -> Option<Number<'de>> {
        let s = self.take_text(NUM)?;
        Some(Number {
            text: Text::Borrowed(s),
            value: number_value(s),
        })
    }

    /// Where the next value starts, when it is complete and nothing is
    /// peeked: the value's first event (an opener, a string, a number or a
    /// literal, complete), left in place.
    #[inline(always)]
    pub(crate) fn complete_value_at(&self) -> Option<usize> {
        if self.peeked {
            return None;
        }
        let head = *self.tape.words.get(self.at.word)?;
        let step = head & HEAD_STEP as u16;
        let value = matches!(
            head >> 12,
            START_OBJECT | START_ARRAY | STR | NUM | TRUE | FALSE | NULL
        );
        if !value || head & COMPLETE == 0 || step == HEAD_STEP as u16 {
            return None;
        }
        Some(self.at.offset + usize::from(step))
    }

    /// The next event when it is a complete object's start (or, `array`,
    /// an array's): taken.
    #[inline(always)]
    pub(crate) fn take_open(&mut self, array: bool) -> bool {
        if self.peeked {
            return false;
        }
        let Some(&head) = self.tape.words.get(self.at.word) else {
            return false;
        };
        let kind = if array { START_ARRAY } else { START_OBJECT };
        if head & (0xF000 | COMPLETE) != kind << 12 | COMPLETE
            || head & HEAD_STEP as u16 == HEAD_STEP as u16
        {
            return false;
        }
        self.step_past(head, true);
        self.depth += 1;
        true
    }

    /// Moves past the one-word event `head` (its step fits the head word),
    /// as `complete`: what each `take_` does once it knows the event.
    #[inline(always)]
    fn step_past(&mut self, head: u16, complete: bool) {
        let offset = self.at.offset + usize::from(head & HEAD_STEP as u16);
        self.offset = offset;
        self.complete = complete;
        self.last = self.at.word;
        self.at.word += 1;
        self.at.offset = offset;
    }

    /// The next event when it is `null` (complete or not): taken.
    #[inline(always)]
    pub(crate) fn take_null(&mut self) -> bool {
        if self.peeked {
            return false;
        }
        let Some(&head) = self.tape.words.get(self.at.word) else {
            return false;
        };
        if head >> 12 != NULL || head & HEAD_STEP as u16 == HEAD_STEP as u16 {
            return false;
        }
        self.step_past(head, head & COMPLETE != 0);
        true
    }

    /// The next event when it is a complete `true` or `false`: taken.
    #[inline(always)]
    pub(crate) fn take_bool(&mut self) -> Option<bool> {
        if self.peeked {
            return None;
        }
        let head = *self.tape.words.get(self.at.word)?;
        let b = match head & (0xF000 | COMPLETE) {
            h if h == TRUE << 12 | COMPLETE => true,
            h if h == FALSE << 12 | COMPLETE => false,
            _ => return None,
        };
        if head & HEAD_STEP as u16 == HEAD_STEP as u16 {
            return None;
        }
        self.step_past(head, true);
        Some(b)
    }

    /// The next event when it is the end of an object or array (`array`):
    /// taken.
    #[inline(always)]
    pub(crate) fn take_end(&mut self, array: bool) -> bool {
        if self.peeked {
            return false;
        }
        let Some(&head) = self.tape.words.get(self.at.word) else {
            return false;
        };
        let kind = if array { END_ARRAY } else { END_OBJECT };
        if head >> 12 != kind || head & HEAD_STEP as u16 == HEAD_STEP as u16 {
            return false;
        }
        self.step_past(head, true);
        self.depth -= 1;
        true
    }

    /// The next event, left in place.
    #[inline]
    pub(crate) fn peek(&mut self) -> Result<Event<'de>> {
        if !self.peeked {
            if !self.decode() {
                return Err(self.error());
            }
            self.peeked = true;
        }
        Ok(self.ev)
    }

    #[cold]
    fn error(&self) -> Error {
        match &self.tape.error {
            Some(e) => e.clone(),
            None => Error::at(ErrorKind::Syntax, "unexpected end of the tape", self.offset),
        }
    }

    /// Whether the last event returned or peeked starts a complete value.
    #[inline]
    pub(crate) fn complete(&self) -> bool {
        self.complete
    }

    /// The offset of the last event returned or peeked, in the caller's
    /// text.
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    /// The content of a key's, string's or number's text.
    #[inline]
    pub(crate) fn str(&self, t: Text<'de>) -> &str {
        match t {
            Text::Borrowed(s) => s,
            Text::Side(start, len) => &self.tape.side[start as usize..(start + len) as usize],
            Text::Scratch => "",
        }
    }

    /// The whole text the tape was read from.
    pub(crate) fn text(&self) -> &'de str {
        self.text
    }

    /// Whether the decode has reached where the reply was cut off: the
    /// last event returned or peeked was written once the scanner had met
    /// the end. An error from there on may be the cut's; one before it is
    /// the reply's own.
    pub(crate) fn reached_cut(&self) -> bool {
        self.tape.cut_word.is_some_and(|w| self.last >= w)
    }

    /// Whether an event was peeked and not yet taken.
    pub(crate) fn has_peeked(&self) -> bool {
        self.peeked
    }

    /// How many containers are open (a peeked opener not counted).
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// Whether the tape holds one span (not several gathered).
    pub(crate) fn one_span(&self) -> bool {
        !self.tape.gathered
    }

    /// Whether the last event returned or peeked is a top-level value
    /// written as bare prose, not as JSON.
    pub(crate) fn prose_root(&self) -> bool {
        self.depth == 0 && self.tape.prose_at == Some(self.offset)
    }

    /// Reads on until at most `depth` containers are open and no event is
    /// held: the rest of a value the decoder gave up on is passed over.
    pub(crate) fn drain_to(&mut self, depth: usize) -> Result<()> {
        while self.depth > depth || self.peeked {
            if let Event::Eof = self.next()? {
                break;
            }
        }
        Ok(())
    }

    /// The JSON paths (`$.items[2].score`) of the values or keys that
    /// start at `offsets` (`true`: a key's), found by walking the tape from
    /// here. Used only to describe coercions, so a decode that needed none
    /// never pays for it.
    pub(crate) fn paths_at(self, offsets: &[(usize, bool)]) -> Vec<String> {
        let mut found = vec![String::new(); offsets.len()];
        let mut walk = Walk::new(self);
        while let Some((ev, at)) = walk.step() {
            let key = match ev {
                Event::EndObject | Event::EndArray => continue,
                ev => matches!(ev, Event::Key(_)),
            };
            for (i, &(o, of_key)) in offsets.iter().enumerate() {
                if o == at && of_key == key && found[i].is_empty() {
                    found[i] = crate::error::render_path(&walk.segs);
                }
            }
        }
        found
    }

    /// A cursor at the first event of the same tape.
    pub(crate) fn restart(&self) -> Cursor<'t, 'de> {
        self.tape.cursor(self.text)
    }

    /// Decodes the event at `at` into `ev`, `after`, `offset`, `complete`
    /// and `last`; `false` where the read stopped with the tape's error.
    #[inline]
    fn decode(&mut self) -> bool {
        let at = self.at;
        let words = &self.tape.words[..];
        let head = words[at.word];
        let kind = head >> 12;
        let mut i = at.word + 1;
        let step = usize::from(head & HEAD_STEP as u16);
        let offset = if step == HEAD_STEP {
            i += 2;
            usize::from(words[at.word + 1]) | usize::from(words[at.word + 2]) << 16
        } else {
            at.offset + step
        };
        self.offset = offset;
        self.complete = head & COMPLETE != 0;
        self.last = at.word;
        let mut side = at.side;
        self.ev = match kind {
            START_OBJECT => Event::StartObject,
            END_OBJECT => Event::EndObject,
            START_ARRAY => Event::StartArray,
            END_ARRAY => Event::EndArray,
            KEY | STR | NUM => {
                let w = words[i];
                i += 1;
                let t = if head & OWNED != 0 {
                    let mut len = usize::from(w);
                    if w == WIDE {
                        len = usize::from(words[i]) | usize::from(words[i + 1]) << 16;
                        i += 2;
                    }
                    let t = Text::Side(side as u32, len as u32);
                    side += len;
                    t
                } else {
                    let (start, len) = if w == WIDE {
                        let wide =
                            |k: usize| usize::from(words[k]) | usize::from(words[k + 1]) << 16;
                        let span = (wide(i), wide(i + 2));
                        i += 4;
                        span
                    } else {
                        (offset + usize::from(w >> 14), usize::from(w & 0x3FFF))
                    };
                    // SAFETY: the tape holds only spans of `text` the scanner
                    // borrowed as `&str` (char boundaries, within bounds).
                    Text::Borrowed(unsafe { self.text.get_unchecked(start..start + len) })
                };
                match kind {
                    KEY => Event::Key(t),
                    STR => Event::Str(t),
                    _ => Event::Num(Number {
                        text: t,
                        value: number_value(self.str(t)),
                    }),
                }
            }
            TRUE => Event::Bool(true),
            FALSE => Event::Bool(false),
            NULL => Event::Null,
            EOF => Event::Eof,
            _ => return false,
        };
        self.after = Place {
            word: i,
            offset,
            side,
        };
        true
    }
}

/// A tape read in order, knowing where each event sits: for a key, the
/// member it names; for a value, its place (the root's path is empty).
pub(crate) struct Walk<'t, 'de> {
    cursor: Cursor<'t, 'de>,
    /// One step per open container: its current key or index.
    segs: Vec<Segment>,
    /// How many elements each open array has had (`None`: an object).
    counts: Vec<Option<usize>>,
    /// The container the last event opened (`true`: an array), entered at
    /// the next step.
    opened: Option<bool>,
    /// The offset of the last event stepped over, and whether it was a
    /// value's start.
    last: Option<(usize, bool)>,
}

impl<'t, 'de> Walk<'t, 'de> {
    pub(crate) fn new(cursor: Cursor<'t, 'de>) -> Walk<'t, 'de> {
        Walk {
            cursor,
            segs: Vec::new(),
            counts: Vec::new(),
            opened: None,
            last: None,
        }
    }

    /// The next event and its offset; `segs` then says where it sits.
    fn step(&mut self) -> Option<(Event<'de>, usize)> {
        match self.opened.take() {
            Some(true) => {
                self.segs.push(Segment::Index(0));
                self.counts.push(Some(0));
            }
            Some(false) => {
                self.segs.push(Segment::Key(String::new()));
                self.counts.push(None);
            }
            None => {}
        }
        let ev = self.cursor.next().ok()?;
        let at = self.cursor.offset();
        let value = match ev {
            Event::Eof => return None,
            Event::EndObject | Event::EndArray => {
                self.segs.pop();
                self.counts.pop();
                false
            }
            Event::Key(t) => {
                if let Some(last) = self.segs.last_mut() {
                    *last = Segment::Key(self.cursor.str(t).to_owned());
                }
                false
            }
            ev => {
                if let Some(Some(n)) = self.counts.last_mut() {
                    if let Some(last) = self.segs.last_mut() {
                        *last = Segment::Index(*n);
                    }
                    *n += 1;
                }
                match ev {
                    Event::StartObject => self.opened = Some(false),
                    Event::StartArray => self.opened = Some(true),
                    _ => {}
                }
                true
            }
        };
        self.last = Some((at, value));
        Some((ev, at))
    }

    /// The place of the value that starts at `offset`, each key as written
    /// and each index left out (`$.items[].score`, outermost first): what
    /// is learned at one element holds for all. The walk goes on from the
    /// last place asked for (a decode asks in the order it reads, so its
    /// walks cost one pass in all); `None` if no value starts there.
    pub(crate) fn place_of(&mut self, offset: usize) -> Option<Vec<Option<String>>> {
        loop {
            match self.last {
                Some((at, true)) if at == offset => break,
                Some((at, _)) if at > offset => return None,
                _ => {}
            }
            self.step()?;
        }
        Some(
            self.segs
                .iter()
                .map(|s| match s {
                    Segment::Key(k) => Some(k.clone()),
                    Segment::Index(_) => None,
                })
                .collect(),
        )
    }

    /// Where the last place asked for was: a place before it needs a walk
    /// from the start.
    pub(crate) fn passed(&self, offset: usize) -> bool {
        self.last.is_some_and(|(at, _)| at > offset)
    }
}

impl<'de> super::Events<'de> for Cursor<'_, 'de> {
    fn next(&mut self) -> Result<Event<'de>> {
        Cursor::next(self)
    }
    fn peek(&mut self) -> Result<Event<'de>> {
        Cursor::peek(self)
    }
    fn complete(&self) -> bool {
        self.complete
    }
    fn offset(&self) -> usize {
        self.offset
    }
    fn str(&self, t: Text<'de>) -> &str {
        Cursor::str(self, t)
    }
    fn reached_cut(&self) -> bool {
        Cursor::reached_cut(self)
    }
}

/// A number's value as `serde_json` classifies it; `NaN` and the
/// infinities, which the scanner spells so, are non-finite.
#[inline]
fn number_value(s: &str) -> NumValue {
    match s.as_bytes().first() {
        Some(b'N') => NumValue::NonFinite(f64::NAN),
        Some(b'I') => NumValue::NonFinite(f64::INFINITY),
        Some(b'-') if s.as_bytes().get(1) == Some(&b'I') => NumValue::NonFinite(f64::NEG_INFINITY),
        _ => classify(s),
    }
}
