//! Values gathered into a list as they stream: a reply of JSON lines (one
//! object after another, or with one comma between: `{…}, {…}`), bare or
//! in one fence, for a sequence target, or an untyped one.
//!
//! A reply of fences holding one object each (```` ```json ```` blocks one
//! after another, blank lines or lines of plain prose before and between
//! them) is read so too, for a list target, and so are objects in plain
//! prose (`Item 1: {…}.`; see [`plain`]). Objects in one fence end this
//! mode where the fence closes (what follows may hold a candidate a decode
//! prefers, or more objects it gathers).
//!
//! A decode of such a reply gathers the objects into one list, and a view
//! of the text so far shows the complete ones as its elements (the cut last
//! one is left out until its closer arrives). So each object is read once,
//! when its closer arrives, as a list of one (`[`, its text, `]`) through
//! the one Deserializer, and put at the end of the views (the untyped one
//! with a `Started` delta): every byte is read once by the tokenizer, and
//! every object decoded once.
//!
//! Only where a decode surely reads the reply so: the reply from its start
//! (spaces before it at most, plain prose, or plain prose lines then the
//! first fence's opening line), objects that are JSON as written, JSON's
//! spaces and at most one comma (or the fences' lines, or plain prose)
//! between them, none empty (an untyped decode leaves `{}` out), and no
//! backtick or `<` in them (a fence marker or a tag may make a decode read
//! another candidate).
//! Anything else leaves this mode for good, and the stream reads the whole
//! text as before: so does prose between two objects that takes the one
//! before back (see [`crate::prose::retractions`]).
//!
//! Fences and prose are read so only for a list target whose decode
//! gathered the objects (an untyped decode of them takes one value): an
//! object there that is no element is left out by a decode (an example) or
//! is its error, and here leaves this mode.

use std::ops::Range;

use super::json::{Sink, Status, Tokens};
use crate::partial::grow::{Level, Placed};
use crate::partial::View;
use crate::scan::part::PartText;
use crate::scan::Spare;
use crate::Decoder;

/// The stream's state while it reads gathered objects.
#[derive(Debug)]
pub(super) struct Gathered {
    /// Where the first object starts.
    pub(super) start: usize,
    /// The object being read, from where it opened; `None` between objects.
    object: Option<(usize, Tokens)>,
    /// Between objects: the next byte to look at, and where it stands in
    /// what comes between.
    at: usize,
    sep: Sep,
    /// What stands between the objects.
    between: Between,
    /// Whether an object may have a fence of its own (a list target's
    /// decode gathers them; an untyped one takes one fence).
    fences: bool,
    /// A fence closed after an object.
    closed: bool,
    /// Where the last complete object starts and ends.
    last: Option<(usize, usize)>,
    /// What the sentence right after the last object says of it.
    said: crate::prose::Said,
    max_depth: usize,
    /// The text of the element read last: `[`, an object, `]`.
    syn: String,
    spare: Spare,
}

/// What stands between the objects (and before the first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Between {
    /// JSON's spaces.
    Spaces,
    /// Each object is in a fence of its own.
    Fences,
    /// The objects are in one fence, JSON's spaces and at most one comma
    /// between them (a decode reads them as it reads them bare); its
    /// closing marker ends this mode.
    InFence,
    /// Plain prose (`Item 1: {…}.`, `Here's the list (in order):`); see
    /// [`plain`].
    Prose,
}

/// Whether `c` is a byte of plain prose between gathered objects: words,
/// digits, spaces, the punctuation of sentences, apostrophes and
/// parentheses. Not a mark a decode may read as part of a value or around
/// one: a double quote (a reply opening with one is a string candidate), a
/// bracket (a `[` span is preferred for a list), a comment marker before a
/// span, a tag, a fence, or any character past ASCII (typographic quotes
/// open strings).
fn plain(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b' ' | b'\t'
                | b'\r'
                | b'\n'
                | b'.'
                | b','
                | b':'
                | b';'
                | b'!'
                | b'?'
                | b'-'
                | b'\''
                | b'('
                | b')'
        )
}

/// The tokenizer's events, not needed here: only where an object ends.
struct Quiet;

impl Sink for Quiet {
    fn open(&mut self, _: &str, _: bool, _: usize) {}
    fn key(&mut self, _: &str, _: std::ops::Range<usize>) {}
    fn close(&mut self, _: &str, _: usize) {}
    fn scalar(&mut self, _: &str, _: std::ops::Range<usize>) {}
    fn string_start(&mut self, _: &str, _: usize) {}
    fn string_piece(&mut self, _: &str, _: &str, _: usize, _: bool) {}
    fn string_end(&mut self, _: &str, _: usize) {}
    fn string_settled(&mut self, _: &str, _: usize) {}
    fn string_fenced(&mut self, _: &str, _: usize) {}
    fn string_unfenced(&mut self, _: &str) {}
}

/// Where the text between two objects stands. Without fences it is
/// spaces; with them, the closing fence's line, blank lines, the next
/// fence's opening line (```` ``` ```` or ```` ```json ````), spaces. A
/// marker starts its line (a decode may read one after other text of its
/// line otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sep {
    /// Spaces after an object, to its line's end.
    Spaces,
    /// Line ends after it (a marker starts a line).
    Line,
    /// This many backticks of the closing marker.
    Close(u8),
    /// Spaces after the closing marker, to its line's end.
    Closed,
    /// Blank lines between the fences.
    Blank,
    /// A line of plain prose between the fences (see [`plain`]).
    Words,
    /// This many backticks of the opening marker.
    Open(u8),
    /// This many letters of the opening marker's tag, `json`.
    Tag(u8),
    /// Spaces after the tag, to the line's end.
    Tagged,
    /// Spaces before the next object.
    Before,
    /// Spaces after an object not in a fence of its own, before the next
    /// object or the one comma that may stand between them (`{…}, {…}`,
    /// which a decode gathers as it gathers lines).
    Next,
}

/// The text is not objects this mode reads.
#[derive(Debug)]
pub(super) struct Leave;

impl Gathered {
    /// Reads `text` from `start` as this mode does: the mode, where the
    /// object cut at the end of the text starts (the text's end if none
    /// is), and how many objects are complete. `None` if the text is not
    /// objects as written with spaces, fences or prose between from its
    /// start, or no object is complete yet.
    ///
    /// `fences`: whether each object may have a fence of its own (else
    /// only one fence holds them all).
    pub(super) fn lock(
        text: &str,
        start: usize,
        max_depth: usize,
        fences: bool,
    ) -> Option<(Gathered, usize, usize)> {
        let before = text[..start].trim_start_matches('\u{feff}').trim_start();
        // Plain prose lines before the first fence's opening line.
        let (intro, opener) = match before.rfind("```") {
            Some(k) => (&before[..k], Some(&before[k + 3..])),
            None => (before, None),
        };
        let between = match opener {
            None if before.is_empty() => Between::Spaces,
            None if before.bytes().all(plain) => Between::Prose,
            None => return None,
            Some(_)
                if !(intro.is_empty() || (intro.ends_with('\n') && intro.bytes().all(plain))) =>
            {
                return None
            }
            Some(line) => {
                let line = line.strip_prefix("json").unwrap_or(line);
                let (spaces, rest) = line.split_once('\n')?;
                if !spaces.trim_matches([' ', '\t', '\r']).is_empty()
                    || !rest.trim_matches([' ', '\t', '\r', '\n']).is_empty()
                {
                    return None;
                }
                Between::Fences
            }
        };
        let mut g = Gathered {
            start,
            object: None,
            at: start,
            sep: Sep::Before,
            between,
            fences,
            closed: false,
            last: None,
            said: crate::prose::Said::NONE,
            max_depth,
            syn: String::new(),
            spare: Spare::default(),
        };
        let mut complete = 0;
        while g.next(text).ok()?.is_some() {
            complete += 1;
        }
        let cut = g.object.as_ref().map_or(text.len(), |(at, _)| *at);
        (complete > 0).then_some((g, cut, complete))
    }

    /// Reads on in `text`: the next object complete (and the reading goes
    /// on after it), or `None` once the text so far is read.
    pub(super) fn next(&mut self, text: &str) -> Result<Option<Range<usize>>, Leave> {
        let b = text.as_bytes();
        if self.object.is_none() {
            let from = self.at;
            let opens = self.between(b);
            crate::work::add(self.at - from);
            // The sentence right after the last object takes it back (`Oops,
            // my mistake.`): a decode gives no value, or, with one after
            // it, judges whether that one replaces it. Looked at until it
            // has ended, within its bounded reach.
            if let Some((_, end)) = self.last {
                if self.said.takes_back(text, end) {
                    return Err(Leave);
                }
            }
            if !opens? {
                return Ok(None);
            }
            // Prose that takes the object before back (`Oops, wrong.`):
            // a decode leaves that one out (its words looked at from two
            // words inside it, as a decode reads them).
            // (Or its label, `Wrong: {…}`.)
            if let Some((first, last)) = self.last {
                let from = crate::prose::resume_at(text, self.start, last);
                let label = crate::prose::label_start(text, first);
                crate::work::add(self.at - from + first - label);
                // (Or a label that names it no answer, and the next one's
                // that names this the answer: `Input: {…}⏎Output: {…}`.)
                if !crate::prose::retractions(text, from..self.at).is_empty()
                    || !crate::prose::retractions(text, label..first).is_empty()
                    || crate::prose::labelled_pair(text, first, self.at)
                {
                    return Err(Leave);
                }
            }
            self.object = Some((self.at, Tokens::new(self.at, self.max_depth)));
        }
        let (open, tokens) = self.object.as_mut().expect("an object being read");
        let from = tokens.pos;
        let status = tokens.feed(text, &mut Quiet);
        let to = tokens.pos.min(b.len());
        crate::work::add(to - from);
        if b[from..to].iter().any(|&c| c == b'`' || c == b'<') {
            return Err(Leave);
        }
        match status {
            Status::Open => Ok(None),
            Status::Done(end) => {
                let object = *open..end;
                self.object = None;
                self.at = end;
                self.last = Some((object.start, end));
                self.sep = match self.between {
                    Between::Fences => Sep::Spaces,
                    Between::Spaces | Between::InFence => Sep::Next,
                    Between::Prose => Sep::Before,
                };
                // An empty object carries nothing: an untyped decode leaves
                // it out of the list (and with a single other one, reads
                // that one alone).
                match text[object.start + 1..end - 1].trim_ascii().is_empty() {
                    true => Err(Leave),
                    false => Ok(Some(object)),
                }
            }
            Status::Bad(_) => Err(Leave),
        }
    }

    /// Reads what comes between two objects, from `at`: `true` where the
    /// next object opens (at `at`), `false` at the end of the text.
    fn between(&mut self, b: &[u8]) -> Result<bool, Leave> {
        while let Some(&c) = b.get(self.at) {
            let space = matches!(c, b' ' | b'\t' | b'\r');
            // Another object, or a comma, before the first fence closed:
            // the fence holds them all.
            if self.between == Between::Fences
                && !self.closed
                && matches!(self.sep, Sep::Spaces | Sep::Line)
                && matches!(c, b'{' | b',')
            {
                self.between = Between::InFence;
                self.sep = Sep::Next;
            }
            self.sep = match (self.sep, c) {
                (Sep::Before | Sep::Next, b'{') => return Ok(true),
                (Sep::Before | Sep::Next, _) if space || c == b'\n' => self.sep,
                (Sep::Next, b',') => Sep::Before,
                (Sep::Before, _) if self.between == Between::Prose && plain(c) => Sep::Before,
                (Sep::Spaces, _) if space => Sep::Spaces,
                (Sep::Spaces | Sep::Line, b'\n') => Sep::Line,
                (Sep::Line | Sep::Blank, b'\r') => self.sep,
                (Sep::Line, b'`') if self.between == Between::Fences && self.fences => {
                    Sep::Close(1)
                }
                (Sep::Close(2), b'`') => {
                    self.closed = true;
                    Sep::Closed
                }
                (Sep::Close(n), b'`') => Sep::Close(n + 1),
                (Sep::Closed | Sep::Blank | Sep::Words, b'\n') => Sep::Blank,
                (Sep::Blank | Sep::Words, _) if c != b'`' && plain(c) => Sep::Words,
                (Sep::Closed | Sep::Tagged, _) if space => self.sep,
                (Sep::Blank, b'`') => Sep::Open(1),
                (Sep::Open(2), b'`') => Sep::Tag(0),
                (Sep::Open(n), b'`') => Sep::Open(n + 1),
                (Sep::Tag(n), _) if usize::from(n) < 4 && c == b"json"[usize::from(n)] => {
                    Sep::Tag(n + 1)
                }
                (Sep::Tag(0 | 4) | Sep::Tagged, b'\n') => Sep::Before,
                (Sep::Tag(0 | 4), _) if space => Sep::Tagged,
                _ => return Err(Leave),
            };
            self.at += 1;
        }
        Ok(false)
    }

    /// The object written at `object` read as a list of one `V`.
    pub(super) fn read<V: crate::partial::View + serde::de::DeserializeOwned>(
        &mut self,
        reads: &super::reads::Reader<V>,
        decoder: &Decoder,
        text: &str,
        object: &Range<usize>,
    ) -> Option<V> {
        self.syn.clear();
        self.syn.push('[');
        self.syn.push_str(&text[object.clone()]);
        self.syn.push(']');
        let part = super::reads::Around {
            around: 0,
            tags: &[],
        };
        let text = PartText::whole(&self.syn);
        reads.part(decoder, &text, part, &mut self.spare).ok()
    }
}

/// Puts `part`, a list of one, at the end of `view`, a list. `false` if the
/// view does not grow so.
pub(super) fn put<V: View>(view: &mut V, part: V) -> bool {
    let mut out = Placed::default();
    view.__place(part, &[Level::Element { has: false }], 0, &mut out);
    out.rebuild.is_none()
}
