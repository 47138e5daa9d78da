//! The live path: a value that is JSON as written, read as it arrives.
//!
//! The untyped view is built from the tokens directly. The typed view is
//! updated in place (see [`crate::partial::grow`]): each change — a member
//! or element completed, a container or string started, a string grown — is
//! read as a small text of its own (the openers and keys of the containers
//! around it, then its text) through the one Deserializer, and put in place.
//! A string that is shown grows by appending. Parts the view does not show
//! (a plain field's object still open) cost nothing until they complete.
//!
//! A container below the root holding a repair the tokenizer does not make
//! (a region: an inner quote, a bare value) is read the tolerant way: its
//! typed and untyped views are read from the engine's scanner's events,
//! resumed beside the tokenizer (`tolerant`), once per push while it is
//! open (the untyped view's growth gives the deltas); the tokenizer goes on
//! after its closer. A member around it that the typed view shows only
//! complete is read from the same events once it closes.

use std::ops::Range;
use std::sync::Arc;

use serde_json::Value;

use super::delta::{slot_in, Delta, Path, Segment};
use super::json::{Lenient, Sink, Status, Tokens};
use super::reads::{Around, Change, Reader};
use super::tolerant::Tolerant;
use crate::error::Result;
use crate::partial::grow::{self, Kind, Level, Placed, Route};
use crate::partial::View;
use crate::scan::part::{Opened, PartText};
use crate::scan::{lex, Spare};
use crate::Decoder;
use serde::de::DeserializeOwned;

/// Whether a part on the spine is in the typed view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shown {
    Yes,
    /// Not yet: its admission waits for a required field.
    Pending,
    /// Not while it is open (its place takes only complete values).
    Hidden,
    /// Not known since a part around it was rebuilt.
    Unknown,
}

/// An open container.
#[derive(Debug)]
struct Frame {
    array: bool,
    start: usize,
    /// Elements in the untyped view (arrays).
    len: usize,
    /// Its path, while the untyped view is kept (else the root's: see
    /// [`Live::is_complete`]).
    path: Path,
    /// The current member's key (objects).
    key: Option<Arc<str>>,
    /// The keys met so far (objects).
    keys: Vec<Arc<str>>,
    /// Where the current member's key is written, quotes included.
    header: Range<usize>,
    shown: Shown,
    /// Its typed view is a struct whose fields grow in place.
    fields: bool,
    /// Its typed view cannot grow in place: rebuilt on every change.
    rebuild: bool,
    /// The root, read whole because a decode showed nothing of it when it
    /// opened (see `open`): once the view shows it, it is known as any root
    /// is (see `rebuild`).
    unseen: bool,
    /// Its view is one serde buffers the content of ([`Kind::Buffered`]:
    /// an untagged enum): read untyped, a cut string inside it is left out
    /// whatever it holds, so its growing changes nothing the view shows.
    buffered: bool,
    /// A part of it completed (or its closing quote arrived) since it was
    /// last read whole (see [`Live::settled`]).
    moved: bool,
    /// How the typed view reaches its node, when shown and known: a part
    /// inside it is read as a part of that node (see [`grow::Local`]).
    route: Option<Vec<Route>>,
    /// Its node can be read on its own (found out on the first try).
    local: bool,
    /// Its view is an internally tagged enum with this tag.
    tag: Option<&'static str>,
    /// Its view is an adjacently tagged enum with struct variants whose
    /// content is this member (see [`Kind::Adjacent`]).
    content: Option<&'static str>,
    /// A list: the kind of its elements' views, once found.
    elements: Option<Kind>,
    /// Its first member, once complete: its key and where it is written
    /// (key to value). An internally tagged enum's part is read with it when
    /// it is the tag.
    first: Option<(Arc<str>, Range<usize>)>,
    /// While `Unknown`: how far the view knows it (where the text ended
    /// when the node around it was read). Finding out whether the view holds
    /// it reads that much, not what arrived since.
    known: usize,
    /// The view knew the number or literal ending at `known` complete.
    known_ends: bool,
    /// While not shown: whether it is read again at the end of a push (see
    /// [`Live::probe_hidden`]).
    probe: Probe,
    /// A member of it completed.
    filled: bool,
}

/// How far a container not shown has been read again for an error a
/// decode meets in it before its end (see [`Live::probe_hidden`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Probe {
    /// Read to here (its opener at first): read again once more than
    /// spaces follow.
    To(usize),
    /// A member of it completed or a part inside it opened: read once
    /// more, then no longer.
    Last,
    /// No longer.
    Done,
}

/// The root's view as read: a struct's fields are admitted as they are
/// read, the root's own parts (a list's elements waiting for a required
/// field) only by its admission, applied here. A root not shown is kept
/// whole: the view grows from it.
fn admit_parts<V: View>(root: V) -> Option<V> {
    match root.__shown() {
        true => root.admitted(),
        false => Some(root),
    }
}

/// [`Frame::known`] of a part the view holds nothing of (a read of it was
/// blocked): it is found out from its text as it is then.
const NOTHING: usize = usize::MAX;

impl Frame {
    /// An internally tagged enum whose first member is not its tag: read
    /// whole, as serde reads it.
    fn tag_late(&self) -> bool {
        match (self.tag, &self.first) {
            (Some(tag), Some((key, _))) => **key != *tag,
            _ => false,
        }
    }

    /// A member of it completed, or a part inside it opened: a container
    /// not shown, still read again, is read once more.
    fn probe_inside(&mut self) {
        if matches!(self.probe, Probe::To(_)) {
            self.probe = Probe::Last;
        }
    }

    /// Its typed view is `shown`, as `out` (its placing, with the text read
    /// to `now`) found.
    fn shown_as(&mut self, shown: Shown, out: Placed, (known, ends): (usize, bool)) {
        self.shown = shown;
        self.known = known;
        self.known_ends = ends;
        self.fields = out.fields;
        self.route = (shown == Shown::Yes).then_some(out.route);
    }
}

/// A container below the root that holds a repair the tokenizer does not
/// make: it is read whole from the tolerant scanner's events until that
/// scanner says where it ends, and the tokenizer goes on from there.
#[derive(Clone, Copy, Debug)]
struct Region {
    /// Its depth (a frame).
    depth: usize,
    /// Where the tokenizer stopped inside it.
    bad: usize,
    /// The text ends in a backtick or a `>`, where a decode's candidate
    /// may end before (a fence's or a tag's closer being written), which
    /// the scanner's reading of the value does not know (see
    /// [`Live::ends_early`]).
    early: bool,
}

/// An open string value.
#[derive(Debug)]
struct Str {
    /// Its path, while the untyped view is kept (else the root's: see
    /// [`Live::is_complete`]).
    path: Path,
    /// The last segment of its path (`None` at the root).
    last: Option<Segment>,
    start: usize,
    /// Shown in the untyped view.
    untyped: bool,
    shown: Shown,
    /// How the typed view reaches it, when shown.
    route: Vec<Route>,
    /// While `Unknown`: how far the view knows it (see [`Frame::known`]).
    known: usize,
    known_ends: bool,
    /// Where the text it took in ends, and where it ended when the views
    /// were last brought up to date with it.
    end: usize,
    seen: usize,
    /// What arrived so far (unescaped).
    decoded: String,
    /// How much of it the untyped view shows.
    visible: usize,
    /// Where the text read since the last escape starts in `decoded`.
    seg: usize,
    /// An object member's value (else an array element).
    member: bool,
    /// The typed view holds it as a string it appends to, as shown.
    appended: bool,
    /// How much of `decoded` the typed view holds, when shown.
    typed: usize,
    /// An escape started or something but whitespace arrived (an element
    /// shows from then on).
    content: bool,
    /// Its closing quote arrived (see [`Sink::string_settled`]).
    closed: bool,
    /// The node around it that serde buffers (see [`Frame::buffered`]) was
    /// read again with it open: not again while it only grows.
    read_open: bool,
    /// A raw newline is in its text (see [`closed_len`](Self::closed_len)).
    raw_newline: bool,
    /// The brackets of its raw text (not of escapes) up to a point of
    /// `decoded`: how far they are counted, and openers less closers there
    /// (see [`ends_at_closer`](Self::ends_at_closer)). Counted when first
    /// asked, each byte once.
    brackets: (usize, i64),
    /// Openers less closers among the characters its escapes gave.
    escaped_brackets: i64,
    /// What [`ends_early`](Self::ends_early) found last, with `decoded`'s
    /// length and `seg` then (a push asks twice).
    early: Option<(usize, usize, bool)>,
    /// A fence on a line of its own in its text closed the block for a
    /// decode of the text so far (see [`Sink::string_fenced`]): the views
    /// show it as it was there until its quote closes it. With whether a
    /// decode ended it early there.
    fenced: Option<bool>,
}

/// Openers less closers (`{`, `[`; `}`, `]`) in `text`.
fn bracket_depth(text: &[u8]) -> i64 {
    text.iter().fold(0, |d, c| match c {
        b'{' | b'[' => d + 1,
        b'}' | b']' => d - 1,
        _ => d,
    })
}

/// The fence a value is in, as a decode of the text found it: what a
/// backtick at the end of a cut string may close (see [`Str::ends_early`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fenced {
    /// None: any backtick there may end an inline code span or a fence.
    No,
    /// A fence the value is the first of (`Strategy::Fence`): a marker
    /// inside a string that runs to the end closes the block only on a line
    /// of its own (`line_close`, `closer_being_written` in
    /// `src/extract.rs`).
    Fence,
    /// A fence the reply opens with (`Strategy::Whole`: the reply is the
    /// block, its fences stripped): so does one on a line of its own, and a
    /// run of three or more at the end of the text that is the first
    /// ```` ``` ```` after the opening fence (`whole` in `src/extract.rs`
    /// strips it). `ticks`: one came before, in a string now closed;
    /// `first`: where in the open string's text its first raw one starts.
    Whole { ticks: bool, first: Option<usize> },
}

impl Str {
    /// Takes in what arrived: raw text, or an escape's character.
    fn take(&mut self, piece: &str, escaped: bool) {
        // (Each looked for only until found.)
        self.content = self.content || escaped || !piece.trim_start().is_empty();
        self.raw_newline = self.raw_newline || (!escaped && piece.contains('\n'));
        self.decoded.push_str(piece);
        if escaped {
            self.seg = self.decoded.len();
            self.escaped_brackets += bracket_depth(piece.as_bytes());
        }
    }

    /// The closers of the raw run at the end of its text (spaces and
    /// closers from `decoded[run..]` on, which close every container still
    /// open) end it for a decode of the text so far: one of them is of its
    /// container's kind (the run's first) where the brackets of its text
    /// before it balance (`unterminated` in `src/scan/string.rs` counts
    /// them from the string's start: `{"code": "f() {}` keeps its `}`,
    /// `{"a": "b}` does not).
    fn ends_at_closer(&mut self, run: usize) -> bool {
        let b = self.decoded.as_bytes();
        let (counted, depth) = self.brackets;
        let depth = depth + bracket_depth(&b[counted.min(run)..run]);
        self.brackets = (run.max(counted), depth);
        let mut depth = depth - self.escaped_brackets;
        let mut closers = b[run..].iter().filter(|c| matches!(c, b'}' | b']'));
        let Some(&kind) = closers.clone().next() else {
            return false;
        };
        for &c in closers.by_ref() {
            if c == kind && depth <= 0 {
                return true;
            }
            depth -= 1;
        }
        false
    }

    /// How much of the string its closing quote closes, as the tolerant
    /// scanner reads it: a string that holds a raw newline loses a raw
    /// whitespace tail that holds one (its quote was put on the next line;
    /// `finish_closed` in `src/scan/string.rs`).
    fn closed_len(&self) -> usize {
        if !self.raw_newline {
            return self.decoded.len();
        }
        let tail = &self.decoded[self.seg..];
        let kept = tail.trim_end_matches([' ', '\t', '\r', '\n']);
        match tail[kept.len()..].contains('\n') {
            true => self.seg + kept.len(),
            false => self.decoded.len(),
        }
    }

    /// How much of the string a decode of the text so far shows: all but
    /// the raw whitespace at its end.
    fn shown_len(&self) -> usize {
        self.seg + self.decoded[self.seg..].trim_end().len()
    }

    /// The cut string's text ends in what the tolerant path reads otherwise
    /// at the end of a reply: a backtick (a fence closing), `>` (a tag
    /// closing), or closers that close every container still open (`open`,
    /// `true` for an array, innermost first), each its own kind: `{"a": "b}`
    /// is `{"a": "b"}`. Closers that do not (`[{"t": "mix {flour}`) stay the
    /// cut string's text there, as here (`unterminated` in
    /// `src/scan/string.rs`: a string with no quote inside ends early only
    /// there). In a fence (see [`Fenced`]), a backtick after other text of
    /// its line (``"run `ls`"``, an escaped `\n```py`) is the string's.
    fn ends_early(&mut self, open: impl Iterator<Item = bool>, fenced: Fenced) -> bool {
        // Its quote bounds it.
        if self.closed {
            return false;
        }
        if let Some(early) = self.fenced {
            return early;
        }
        // What it asks changes only with its text: the containers around
        // it and the fence stay while it is open.
        let (len, seg) = (self.decoded.len(), self.seg);
        if let Some((l, s, early)) = self.early {
            if (l, s) == (len, seg) {
                return early;
            }
        }
        let early = self.ends_early_now(open, fenced);
        self.early = Some((len, seg, early));
        early
    }

    /// [`ends_early`](Self::ends_early), found now.
    fn ends_early_now(&mut self, mut open: impl Iterator<Item = bool>, fenced: Fenced) -> bool {
        // The text since the last escape is the raw text (an escape's raw
        // text holds no space or closer, so the run below stops at it as
        // the scanner's does).
        let raw = &self.decoded.as_bytes()[self.seg..];
        let mut run = raw.len();
        while run > 0 && matches!(raw[run - 1], b' ' | b'\t' | b'\n' | b'\r' | b'}' | b']') {
            run -= 1;
        }
        let last = raw[run..].iter().rev().find(|&&c| !lex::is_ws(c));
        match (last, raw[..run].last()) {
            (None, Some(b'`')) if fenced != Fenced::No => {
                let ticks = raw[..run].iter().rev().take_while(|&&c| c == b'`').count();
                // Where the run starts in `decoded`.
                let at = self.seg + run - ticks;
                let first = match fenced {
                    Fenced::Whole {
                        ticks: before,
                        first,
                    } => ticks >= 3 && !before && first.is_none_or(|t| t >= at),
                    _ => false,
                };
                if first || !starts_line(&raw[..run]) {
                    return first;
                }
                // Alone on the last line: three close the block
                // (`line_close` in `src/extract.rs`). One or two are the
                // string's, but right after the root's closer, where a
                // decode may take them for the block's close being written
                // (`closer_being_written`): `"raw}` then a line of `` ` ``.
                // (The root is the outermost container open.)
                return ticks >= 3 || after_root_closer(&raw[..run - ticks], open.last());
            }
            (None, Some(b'`' | b'>')) => return true,
            (None, _) => return false,
            // Whitespace the scanner does not skip could join the run there.
            (Some(_), Some(&c)) if c >= 0x80 => return true,
            _ => {}
        }
        for &c in &raw[run..] {
            let array = match c {
                b'}' => false,
                b']' => true,
                _ => continue,
            };
            if open.next() != Some(array) {
                return false;
            }
        }
        open.next().is_none() && self.ends_at_closer(self.seg + run)
    }
}

/// Whether the raw text `before` a line of backticks (a string's raw text
/// since its last escape, up to them) ends, past spaces, in the closer of
/// the root container (`root`: `true` for an array): a decode of the text
/// so far may end a fence's block there (`closes_value` in `src/extract.rs`).
/// `true` also where it cannot tell (an escape or the string's quote
/// before them, a string at the root): the stream then reads as a decode.
fn after_root_closer(before: &[u8], root: Option<bool>) -> bool {
    let Some(i) = before.iter().rposition(|&c| !lex::is_ws(c)) else {
        return true;
    };
    match root {
        Some(array) => before[i] == if array { b']' } else { b'}' },
        None => true,
    }
}

/// Whether the run of backticks at the end of `raw` (a string's raw text
/// since its last escape) starts a line, past spaces and tabs: a raw
/// newline before it. (An escape or the opening quote before it is text of
/// its line.)
fn starts_line(raw: &[u8]) -> bool {
    let before = raw.iter().rposition(|&c| c != b'`').map_or(0, |i| i + 1);
    let text = raw[..before]
        .iter()
        .rposition(|&c| !matches!(c, b' ' | b'\t'));
    text.is_some_and(|i| raw[i] == b'\n')
}

pub(super) struct Live<V> {
    /// The tokenizer; out of its place only while it reads (see
    /// [`tokenize`](Self::tokenize)).
    tokens: Option<Box<Tokens>>,
    /// Where the value starts.
    start: usize,
    /// The untyped view.
    pub(super) value: Value,
    /// The innermost open container's path.
    path: Vec<Segment>,
    /// The root's path, the path a value keeps when the untyped view is
    /// not kept (see [`child_path`](Self::child_path)).
    no_path: Path,
    /// The keys met so far, shared by the paths that name them.
    keys: Vec<Arc<str>>,
    /// The lists of keys of objects closed, emptied, for the next ones
    /// opened (each would allocate one).
    spare_keys: Vec<Vec<Arc<str>>>,
    frames: Vec<Frame>,
    /// The open string value (boxed: taken out and put back on every push,
    /// it moves a pointer).
    string: Option<Box<Str>>,
    pub(super) deltas: Vec<Delta>,
    /// The typed view, before the root's own admission (always `Some`).
    pub(super) view: Option<V>,
    /// How the typed view and its parts are read.
    reads: Reader<V>,
    /// The changes made to the typed view, when they are kept (see
    /// `StreamDecoder::take_changes`).
    pub(super) log: Option<Vec<Change>>,
    /// The typed view changed since the stream decoder last looked.
    pub(super) touched: bool,
    decoder: Decoder,
    /// `decoder` reading views (see `ScanOptions::view`): a part that is
    /// not known to end is read as a view of the text so far is.
    viewer: Decoder,
    /// The untyped view's decoder: a region's value in it is read by it.
    plain: Decoder,
    /// The part written into `syn` is known to end there.
    syn_ends: bool,
    /// For each container around the part written into `syn`, the tag
    /// member written before the part's own.
    syn_tags: Vec<Option<&'static str>>,
    /// Where the containers around the part written into `syn` open, and
    /// where its own text is there (see [`PartText`]).
    syn_opened: Vec<Opened>,
    syn_own: Range<usize>,
    /// The fence the value is in.
    fenced: Fenced,
    /// The value is a `<json>` tag's content (see
    /// `extract::closing_json_tag_in`).
    pub(super) tag: bool,
    /// Where the token being reported ends: the text read so far (the
    /// text itself may go on, not read yet).
    now: usize,
    /// Where the last number or literal ends: known complete (the tokenizer
    /// saw what follows), though a text cut there would not say so.
    scalar_end: usize,
    /// Reading a part as far as the view knew it, not as it is now: whether
    /// that knowledge had the number at its end complete.
    stale: Option<bool>,
    /// The last part read gave "nothing to show yet" for the whole view (an
    /// enum whose tag has not arrived): until a read succeeds, the stream
    /// decoder shows what a decode of the whole text shows.
    blocked: bool,
    /// Reading a list's element that is an internally tagged enum whose tag
    /// is not complete: a read that can show nothing leaves the element out
    /// (as a decode of the text does) rather than blocking the whole view.
    quiet: bool,
    /// A typed read failed: the live path gives up.
    pub(super) failed: bool,
    /// Typed updates are made (not while catching up at the start).
    typed: bool,
    /// A key written twice was just read, and the untyped view is kept: the
    /// next value put in it is that key's second (see [`set`](Self::set)).
    again: bool,
    /// Only the untyped view is kept (see
    /// [`StreamDecoder::__untyped_only`](super::StreamDecoder::__untyped_only)):
    /// no typed updates, and a container's `Completed` delta carries an
    /// empty container of its kind, not a copy of it.
    lean: bool,
    /// The untyped view and the deltas are kept. A stream that shows only
    /// the typed view builds them while the value is locked onto (the
    /// stream decoder compares the untyped view with a decode's) and drops
    /// them afterwards ([`Live::typed_only`]).
    untyped: bool,
    /// Buffers kept from one part read to the next: the part's text and
    /// its levels.
    syn: String,
    /// The buffers each part read passes to the next.
    spare: Spare,
    /// The last string's buffer, emptied, for the next one's text.
    decoded: String,
    levels: Vec<Level>,
    /// Repairs are read as they come (see `Lenient`): the value is the
    /// whole reply, a fence's or a tag's.
    lenient: bool,
    /// The tolerant scanner beside the tokenizer, once it met a repair it
    /// does not make (see `tolerant`).
    tolerant: Option<Box<Tolerant>>,
    /// The container read the tolerant way now, if any.
    region: Option<Region>,
    /// How far the text after the value's start was looked at for a fence
    /// marker, and whether one was found (see
    /// [`fence_marker`](Self::fence_marker)).
    ticks: (usize, bool),
    /// A region's span while it is read or put in place: its part is read
    /// from the tolerant scanner's events.
    given: Option<Range<usize>>,
    /// The part written into `syn` is that region's.
    syn_given: bool,
    /// The container being closed is a region whose closer later text may
    /// still move (see `Tolerant::take`): no `Completed` delta for it.
    unsettled: bool,
    /// A string's `Completed` delta, held until the tokenizer reads the
    /// next value, a closer, or the next member's key and colon (a byte
    /// after its quote may yet show the quote to be inside it, `"say "hi`,
    /// or a key with no colon, `"a ", "b"}`): dropped if a region takes its
    /// container first.
    held: Option<Delta>,
    /// A cut string is being read: the parts read while it is end inside it.
    in_string: bool,
    /// The closing quote of the open string, while it ends the text and the
    /// string is `fenced` (see [`Str::fenced`]): a decode of the text so far
    /// still ends the block at the fence; the byte after the quote decides
    /// (see [`tokenize`](Self::tokenize)).
    quote_at: Option<usize>,
    /// A string of the value held a fence on a line of its own (see
    /// [`Str::fenced`]): a decode may weigh a later block against this one
    /// (see [`repaired`](Self::repaired)).
    fence_lines: bool,
}

impl<V: DeserializeOwned + View> Live<V> {
    /// Reads `text` from `start`, where the value opens, to its end; `view`
    /// is the typed view of all of `text` (before admission). `Err(at)` if
    /// the tokenizer stopped at `at`, a repair it does not make (see
    /// `StreamDecoder::lock_in_two`). `plain` reads the untyped view;
    /// `lean`: only the untyped view is kept (see the field).
    pub(super) fn lock(
        text: &str,
        start: usize,
        view: V,
        (decoder, plain, reads): (&Decoder, &Decoder, &Reader<V>),
        (fenced, lenient, lean): (Fenced, bool, bool),
    ) -> Result<(Live<V>, Status), usize> {
        let allows = |kind| lenient && decoder.opts.rules.repair(kind);
        let mut live = Live {
            tokens: Some(Box::new(
                Tokens::new(start, decoder.opts.max_depth)
                    .lenient(Lenient {
                        trailing_commas: allows(crate::RepairKind::TrailingComma),
                        single_quotes: allows(crate::RepairKind::Quotes),
                        bare_keys: allows(crate::RepairKind::UnquotedKey),
                        control_chars: allows(crate::RepairKind::ControlCharacter),
                        python_literals: allows(crate::RepairKind::Literal),
                        comments: allows(crate::RepairKind::Comment),
                        missing_commas: allows(crate::RepairKind::MissingComma),
                        json5_numbers: allows(crate::RepairKind::NumberFormat),
                    })
                    // (A value in a fence of its own reads the fence's
                    // markers by `Fenced`'s rules.)
                    .fenced(
                        fenced == Fenced::No && crate::extract::marker_before(text, start),
                        fenced != Fenced::No,
                    ),
            )),
            start,
            value: Value::Null,
            path: Vec::new(),
            no_path: Path::root(),
            keys: Vec::new(),
            spare_keys: Vec::new(),
            frames: Vec::new(),
            string: None,
            deltas: Vec::new(),
            view: admit_parts(view),
            reads: reads.clone(),
            log: None,
            touched: false,
            decoder: decoder.clone(),
            viewer: decoder.viewing(),
            plain: plain.clone(),
            syn_ends: false,
            syn_tags: Vec::new(),
            syn_opened: Vec::new(),
            syn_own: 0..0,
            fenced,
            tag: false,
            now: start,
            scalar_end: usize::MAX,
            stale: None,
            blocked: false,
            quiet: false,
            failed: false,
            typed: false,
            lean,
            again: false,
            untyped: true,
            syn: String::new(),
            spare: Spare::default(),
            decoded: String::new(),
            levels: Vec::new(),
            lenient,
            tolerant: None,
            region: None,
            ticks: (0, false),
            given: None,
            syn_given: false,
            unsettled: false,
            held: None,
            in_string: false,
            quote_at: None,
            fence_lines: false,
        };
        let status = live.tokenize(text);
        if let Status::Bad(at) = status {
            return Err(at);
        }
        // The view is a decode of all of `text`: that is what it knows of
        // each part not found out yet.
        for f in &mut live.frames {
            (f.known, f.known_ends) = (text.len(), false);
        }
        if let Some(s) = &mut live.string {
            (s.known, s.known_ends) = (text.len(), false);
        }
        live.typed = !lean;
        Ok((live, status))
    }

    /// From here on, only the typed view is kept: the untyped view and the
    /// deltas are dropped and no longer built.
    pub(super) fn typed_only(&mut self) {
        self.untyped = false;
        self.value = Value::Null;
        self.deltas = Vec::new();
    }

    /// A cut string that a decode of the text so far ends early (see
    /// [`Str::ends_early`]): the live views do not show what that decode
    /// shows until more text arrives.
    pub(super) fn ends_early(&mut self) -> bool {
        if let Some(r) = self.region {
            return r.early;
        }
        let open = self.frames.iter().rev().map(|f| f.array);
        self.string
            .as_mut()
            .is_some_and(|s| s.ends_early(open, self.fenced))
    }

    /// The containers open around the string being read, innermost first:
    /// `true` for an array. (The frames, not the tokenizer's stack: the
    /// tokenizer is taken out while it feeds this.)
    fn open_kinds(&self) -> impl Iterator<Item = bool> + '_ {
        self.frames.iter().rev().map(|f| f.array)
    }

    /// Whether the last part read blocked the whole view.
    pub(super) fn blocked(&self) -> bool {
        self.blocked
    }

    /// Whether a container was read the tolerant way (see
    /// `tolerant`), or a string held a fence on a line of its own: the
    /// reading of a repair in it, or of the fence's block, may rest on where
    /// the candidate ends, which only a decode of the whole text knows once
    /// the value is complete (a block after it may win: `"a⏎```⏎b"`, then
    /// ```` ``` ```` and another block).
    pub(super) fn repaired(&self) -> bool {
        self.tolerant.is_some() || self.fence_lines
    }

    /// Whether the value is the first in a fence.
    pub(super) fn fenced(&self) -> bool {
        self.fenced == Fenced::Fence
    }

    /// Where the value starts.
    pub(super) fn start(&self) -> usize {
        self.start
    }

    /// Reads the text that arrived.
    pub(super) fn feed(&mut self, text: &str) -> Status {
        let status = match (&self.region, &self.tolerant) {
            (None, None) => match self.read_on(text) {
                Status::Bad(at) => self.tolerantly(text, Some(at)),
                status => status,
            },
            _ => self.tolerantly(text, None),
        };
        // A node that cannot grow in place, still open, is read again with
        // all that arrived (a number at the end is no token yet, but a
        // buffered enum's view may show it).
        if status == Status::Open && !self.failed && self.typed {
            // Parts not known since a rebuild are found out (so a node that
            // cannot grow in place is known as such).
            if self
                .frames
                .iter()
                .any(|f| f.rebuild || f.shown == Shown::Unknown)
            {
                self.typed_ready(text);
            }
            self.probe_hidden(text);
            if self.failed {
                return status;
            }
            if let Some(j) = self.frames.iter().position(|f| f.rebuild) {
                // A string that only grew inside a node serde buffers, read
                // with it open, or a root that only grew inside its cut
                // part: the node's view is the same.
                if self.frames[j].buffered && (self.still_open() || self.settled(j)) {
                    return status;
                }
                if self.string.is_none() {
                    self.now = text.len();
                }
                // (A region's part is read from the tolerant scanner's
                // events.)
                if self.region.is_some_and(|r| r.depth == j) {
                    self.given = Some(self.frames[j].start..self.now);
                }
                self.rebuild(text, j);
                self.given = None;
                let buffered = self.frames.get(j).is_some_and(|f| f.buffered);
                if buffered && self.string.is_some() {
                    let open = self.plainly_open();
                    if let Some(s) = &mut self.string {
                        s.read_open = open;
                    }
                }
            }
        }
        status
    }

    /// Reads the outermost container not shown (hidden, or waiting for its
    /// admission) again, as a decode of the text so far reads it, while the
    /// first member of it or of a part in its first member is written. A
    /// decode reads a cut part that holds something, and may meet an error
    /// of the part's own before the cut (`[{"a": 1` as a list of numbers: a
    /// map where a number stands; `[[{"n": 1` as a list of structs read
    /// from lists), which it gives at once; the stream met it only as the
    /// part completed. Read once a key and more than spaces are in it, at
    /// each push until its first member completes or a part inside it
    /// opens, then once more: a first member's text at most, each push.
    /// (An error further in, an unknown field of a struct that takes none,
    /// is met as the part completes.)
    fn probe_hidden(&mut self, text: &str) {
        // The outermost part not shown, which a decode reads whole (one
        // waiting for its admission, or hidden), and a part of it whose
        // first member is written, in its first member (so that what is
        // read is that much).
        let Some(p) = self.frames.iter().position(|f| f.shown != Shown::Yes) else {
            return;
        };
        if self.frames[p].shown == Shown::Unknown || self.frames.iter().any(|f| f.rebuild) {
            return;
        }
        let Some(h) = (p..self.frames.len())
            .take_while(|&k| k == p || !self.frames[k - 1].filled)
            .find(|&k| self.frames[k].probe != Probe::Done)
        else {
            return;
        };
        let f = &self.frames[h];
        let end = match self.string {
            Some(_) => self.now,
            None => text.len(),
        };
        let from = match f.probe {
            Probe::Done => return,
            Probe::Last => end,
            Probe::To(_) if !f.array && f.key.is_none() => return,
            Probe::To(from)
                if text.as_bytes()[from.min(end)..end]
                    .iter()
                    .all(u8::is_ascii_whitespace) =>
            {
                return
            }
            Probe::To(from) => from,
        };
        let last = f.probe == Probe::Last;
        self.frames[h].probe = match last {
            true => Probe::Done,
            false => Probe::To(end.max(from)),
        };
        if self
            .check(text, p, self.frames[p].start..end, false)
            .is_none()
        {
            self.failed = true;
        }
    }

    /// Whether the string being read is cut as a decode reads it: open,
    /// something but raw spaces in it (a decode leaves out a string with
    /// nothing else, cut or not), no fence or closer run making a decode end
    /// it early, the tokenizer reading (a cut string in serde's buffer is
    /// then left out whatever it holds).
    fn plainly_open(&mut self) -> bool {
        let plain = self.region.is_none() && self.tolerant.is_none();
        plain
            && self
                .string
                .as_ref()
                .is_some_and(|s| s.content && !s.closed && s.fenced.is_none())
            && !self.ends_early()
    }

    /// Whether the root, at depth `j` and serde buffers its view (an
    /// untagged enum), reads as it did when it was last read whole: no part
    /// of it completed since, and the tokenizer reads the text (no repair,
    /// no string a decode ends early). A decode keeps only the complete
    /// parts of such a root (the cut one is missing: see `Accept::parts`
    /// in `src/de.rs`), so what grew inside the cut one changes nothing.
    fn settled(&mut self, j: usize) -> bool {
        let plain = self.region.is_none() && self.tolerant.is_none();
        // (A string of the root's own whose quote arrived may be complete
        // to a decode: read again. One inside the cut part is missing.)
        let direct = self.frames.len() == 1;
        let string = match &self.string {
            None => true,
            Some(s) => !(s.closed && direct) && s.fenced.is_none() && !self.ends_early(),
        };
        j == 0 && !self.frames[0].moved && !self.blocked && plain && string
    }

    /// Whether the string being read was open when the node around it
    /// that serde buffers was last read, and only grew since (see
    /// [`Str::read_open`]).
    fn still_open(&mut self) -> bool {
        self.string.as_ref().is_some_and(|s| s.read_open) && self.plainly_open()
    }

    /// Reads the text that arrived where the tolerant scanner is in play:
    /// a region read (see [`read_region`](Self::read_region)), or the
    /// tokenizer stopped at `bad`, or closers taken early to check as
    /// later text decides them.
    #[inline(never)]
    fn tolerantly(&mut self, text: &str, bad: Option<usize>) -> Status {
        let mut status = match (bad, self.region) {
            (Some(at), _) => Status::Bad(at),
            (None, Some(_)) => self.read_region(text),
            (None, None) => self.read_on(text),
        };
        // A repair the tokenizer does not make, inside a container below
        // the root: that container is read the tolerant way.
        while let Status::Bad(at) = status {
            if !self.enter_region(text, at) {
                break;
            }
            status = self.read_region(text);
        }
        // An open region's value in the untyped view, read again.
        if let (Status::Open, false, true, Some(r)) =
            (status, self.failed, self.untyped, self.region)
        {
            self.region_value(text, r.depth, text.len());
        }
        // Closers taken early are checked as later text decides them.
        if self.region.is_none() && !self.failed {
            if let Some(t) = self.tolerant.as_mut().filter(|t| !t.idle()) {
                if t.end(text).is_err() {
                    self.failed = true;
                }
            }
        }
        status
    }

    /// The tokenizer stopped at `at`, a repair it does not make: if the
    /// innermost container is below the root, from here on it is read the
    /// tolerant way (see [`read_region`](Self::read_region)). Only for a
    /// value that is the whole reply or a fence's, with no fence marker
    /// after its start (one may end the fenced value for a decode of the
    /// text so far). The untyped view, if kept, reads the region's value
    /// from the same events ([`region_value`](Self::region_value)).
    fn enter_region(&mut self, text: &str, at: usize) -> bool {
        let k = self.frames.len().saturating_sub(1);
        // The typed view: the containers around it shown (its part is put
        // in place in theirs), none read again from its text (that would
        // read the region's text alone). Or the first one around it not
        // shown, and all in it, hidden: the view shows nothing of the region
        // while that one is open, and reads that one whole once it closes,
        // from the tolerant scanner's events (it keeps them). A stream that
        // keeps only the untyped view has none.
        let hidden = (1..k).find(|&j| self.frames[j].shown != Shown::Yes);
        let typed = self.typed
            && !self.frames[..k].iter().any(|f| f.rebuild)
            && match hidden {
                None => self.frames[k].shown != Shown::Unknown,
                Some(h) => {
                    // (A member: its place takes only complete values, as
                    // the field's type says. An element may be hidden for
                    // a while only, as one whose string's closing quote
                    // ends the text is. One inside a node not shown is not
                    // shown either, known or not.)
                    self.frames[h].shown == Shown::Hidden
                        && !self.frames[h - 1].array
                        && self.frames[h + 1..=k]
                            .iter()
                            .all(|f| matches!(f.shown, Shown::Hidden | Shown::Unknown))
                        && self
                            .tolerant
                            .as_ref()
                            .is_none_or(|t| t.kept_at().is_none_or(|at| at == self.frames[h].start))
                }
            };
        let can = k > 0
            && (typed || self.lean)
            && !self.failed
            && !self.tag
            && self.lenient
            && at >= self.frames[k].start
            && !self.fence_marker(text)
            // (A string a fence in it ends for a decode: that decode's
            // text is not the region's.)
            && self.string.as_ref().is_none_or(|s| s.fenced.is_none());
        if !can {
            return false;
        }
        let start = self.frames[k].start;
        let (text_start, decoder) = (self.start, &self.decoder);
        let t = self
            .tolerant
            .get_or_insert_with(|| Box::new(Tolerant::new(text, text_start, decoder)));
        t.watch(start);
        if let (Some(h), false) = (hidden, self.lean) {
            t.keep(self.frames[h].start);
        }
        // What the tokenizer read inside it is read again as a whole.
        for mut f in self.frames.drain(k + 1..) {
            f.keys.clear();
            if self.spare_keys.len() < 16 {
                self.spare_keys.push(f.keys);
            }
        }
        self.path.truncate(k);
        if let Some(s) = self.string.take() {
            let mut decoded = s.decoded;
            decoded.clear();
            self.decoded = decoded;
        }
        // (Read again on every push while open, unless hidden.)
        self.frames[k].rebuild |= hidden.is_none();
        // (A string in it said complete, whose verdict the region may
        // change.)
        self.held = None;
        self.region = Some(Region {
            depth: k,
            bad: at,
            early: false,
        });
        true
    }

    /// Whether the text after the value's start holds a fence marker (one
    /// may end a fenced value for a decode of the text so far, which the
    /// scanner's reading of the value does not know): each byte looked at
    /// once over the stream.
    fn fence_marker(&mut self, text: &str) -> bool {
        let (seen, found) = self.ticks;
        if !found {
            let from = seen.saturating_sub(2).max(self.start);
            crate::work::add(text.len().saturating_sub(from));
            let found = memchr::memmem::find(&text.as_bytes()[from..], b"```").is_some();
            self.ticks = (text.len(), found);
        }
        self.ticks.1
    }

    /// Reads the region's container the tolerant way: while it is open,
    /// it is read whole on every push (`feed` does); once the tolerant
    /// scanner's read of the text so far closes it, it is complete, and the
    /// tokenizer goes on after its closer.
    fn read_region(&mut self, text: &str) -> Status {
        if self.fence_marker(text) {
            self.failed = true;
            return Status::Open;
        }
        let b = text.as_bytes();
        let r = self.region.as_mut().expect("a region is read");
        let k = r.depth;
        // (As a decode trims its candidate: Unicode's spaces.)
        r.early = matches!(text.trim_end().as_bytes().last(), Some(b'`' | b'>'));
        let bad = r.bad;
        let t = self.tolerant.as_mut().expect("a region has its scanner");
        match t.end(text) {
            Err(()) => {
                self.failed = true;
                Status::Open
            }
            Ok(None) => Status::Open,
            // (Closed before the repair that stopped the tokenizer: the
            // two read the text before it otherwise.)
            Ok(Some(end)) if end <= bad => {
                self.failed = true;
                Status::Open
            }
            Ok(Some(end)) => {
                self.unsettled = !t.take();
                self.region = None;
                if self.untyped {
                    self.region_value(text, k, end);
                }
                self.given = Some(self.frames[k].start..end);
                self.close(text, end);
                self.given = None;
                let mut tokens = self.tokens.take().expect("the tokenizer is in place");
                tokens.resume_after(end, k);
                self.tokens = Some(tokens);
                crate::work::add(b.len() - end);
                self.tokenize(text)
            }
        }
    }

    /// Reads the value of the region at depth `k`, its text up to `end`,
    /// into the untyped view from the tolerant scanner's events (as its
    /// typed view is read), and gives the deltas of its growth. A value
    /// that did not grow ends the live path (the stream reads the whole
    /// text, and its deltas say so).
    fn region_value(&mut self, text: &str, k: usize, end: usize) {
        let start = self.frames[k].start;
        let Some(t) = self.tolerant.as_deref() else {
            return;
        };
        let part = PartText {
            text: &text[start..end],
            opened: &[],
            own: 0..end - start,
            events: Some(t.events()),
        };
        let Ok(new) = self.plain.part_value(&part, &mut self.spare) else {
            self.failed = true;
            return;
        };
        let path = self.frames[k].path.clone();
        let Some(old) = slot_in(&mut self.value, path.segments()) else {
            self.failed = true;
            return;
        };
        if super::delta::grown_at(old, &new, path.segments(), &mut self.deltas) {
            *old = new;
        } else {
            self.failed = true;
        }
    }

    /// Reads the text that arrived with the tokenizer, counting it as work.
    #[inline]
    fn read_on(&mut self, text: &str) -> Status {
        let pos = self.tokens.as_ref().map_or(0, |t| t.read());
        crate::work::add(text.len().saturating_sub(pos));
        self.tokenize(text)
    }

    /// Reads the tokens of `text` from where the last read stopped, this
    /// reporting them.
    fn tokenize(&mut self, text: &str) -> Status {
        // A fenced string's quote that ended the last text: the byte after
        // it decides.
        if let Some(end) = self.quote_at.filter(|&end| text.len() > end) {
            self.quote_at = None;
            self.string_end(text, end);
        }
        // (Boxed, so that taking it out for the read moves a pointer.)
        let mut tokens = self
            .tokens
            .take()
            .expect("the tokenizer is in place between reads");
        let status = tokens.feed(text, self);
        // (The next member's key and colon arrived after a string's
        // settling byte: its verdict is in.)
        if self.held.is_some() {
            self.release_at(&tokens, status);
        }
        self.tokens = Some(tokens);
        self.grown(text);
        status
    }

    /// The open string took in text (up to `Str::end`): the views show it.
    /// Done once per push (and before the string ends), not per piece, so
    /// a push gives one `Appended` for it however many escapes it holds.
    fn grown(&mut self, text: &str) {
        self.grow(text, None);
    }

    /// [`grown`](Self::grown); `closed`: the string's closing quote arrived,
    /// ending at that offset. A view of the text so far then holds all of
    /// the string (its quote bounds it) as a cut one, until the next byte
    /// says the quote closes it (see [`Sink::string_settled`]).
    fn grow(&mut self, text: &str, closed: Option<usize>) {
        let Some(mut s) = self.string.take() else {
            return;
        };
        if (s.end == s.seen || s.fenced.is_some()) && closed.is_none() {
            self.string = Some(s);
            return;
        }
        s.seen = s.end;
        let end = s.end;
        let (old, new) = (s.visible, s.shown_len());
        // The text so far, as a decode reads it: without the string's raw
        // whitespace at the end.
        self.now = end - (s.decoded.len() - new);
        s.visible = new;
        // The untyped view, when it is kept.
        if self.untyped {
            if !s.untyped && (s.member || s.content) {
                s.untyped = true;
                let v = Value::String(s.decoded[..new].to_owned());
                self.set(&s.path, v.clone());
                self.grow_untyped();
                self.deltas.push(Delta::Started {
                    path: s.path.clone(),
                    value: v,
                });
            } else if s.untyped && new < old {
                let v = Value::String(s.decoded[..new].to_owned());
                self.set(&s.path, v.clone());
                self.deltas.push(Delta::Started {
                    path: s.path.clone(),
                    value: v,
                });
            } else if s.untyped && new > old {
                let grown = s.decoded[old..new].to_owned();
                if let Some(Value::String(v)) = self.slot(&s.path) {
                    v.push_str(&grown);
                }
                self.deltas.push(Delta::Appended {
                    path: s.path.clone(),
                    text: grown,
                });
            }
        }
        // The typed view: the string's text as far as it is shown. While a
        // decode would end it early, the stream decoder shows that decode's
        // view, and this one catches up with the next text.
        let (new, cut) = match closed {
            Some(quote) => (s.closed_len(), s.start..quote),
            None => (new, s.start..end - (s.decoded.len() - new)),
        };
        if s.shown == Shown::Hidden
            || (closed.is_none() && s.ends_early(self.open_kinds(), self.fenced))
            || (new == s.typed && s.shown == Shown::Yes)
        {
            self.string = Some(s);
            return;
        }
        if s.shown == Shown::Yes && s.appended && new > s.typed {
            let grown = &s.decoded[s.typed..new];
            if self.root().__append(&s.route, grown) {
                self.grew(&s.route, grown);
                s.typed = new;
                self.string = Some(s);
                return;
            }
        }
        if self.typed_ready(text) {
            let d = self.frames.len();
            self.in_string = closed.is_none();
            if s.shown == Shown::Unknown {
                self.stale = Some(s.known_ends);
                let out = self.check(text, d, s.start..s.known.min(cut.end), true);
                self.stale = None;
                match out {
                    Some(out) => {
                        s.shown = if out.present {
                            Shown::Yes
                        } else {
                            Shown::Pending
                        };
                        s.route = out.route;
                    }
                    None => self.failed = true,
                }
            }
            // Shown: put it in place as it is now (the view held it as it
            // was when it was rebuilt).
            let has = s.shown == Shown::Yes;
            if let Some(out) = self.typed_part(text, cut, false, has) {
                s.shown = match out.present {
                    _ if self.blocked || out.rebuild.is_some() => Shown::Unknown,
                    true => Shown::Yes,
                    false if s.content => Shown::Hidden,
                    false => Shown::Pending,
                };
                s.route = out.route;
                s.appended = s.shown == Shown::Yes && self.root().__append(&s.route, "");
                s.typed = new;
                (s.known, s.known_ends) = self.blocked_or(self.knowledge());
            }
            self.in_string = false;
        }
        self.string = Some(s);
    }

    /// The tokenizer read on past a string's settling byte to the next
    /// value or closer: the string's `Completed` delta, held, is given.
    #[inline]
    fn release(&mut self) {
        // (Looked at first: a typed-only stream holds none, and taking one
        // moves a whole delta.)
        if self.held.is_some() {
            self.deltas.extend(self.held.take());
        }
    }

    /// [`release`](Self::release), once the tokenizer stopped past the
    /// next member's key and colon.
    #[cold]
    fn release_at(&mut self, tokens: &Tokens, status: Status) {
        if tokens.in_member_value() && !matches!(status, Status::Bad(_)) {
            self.release();
        }
    }

    /// Whether the typed view is shown (the root's admission).
    pub(super) fn shown(&self) -> bool {
        self.view.as_ref().is_some_and(View::__shown)
    }

    fn root(&mut self) -> &mut V {
        self.view.as_mut().expect("a live view")
    }

    /// Notes a change to the typed view, when changes are kept.
    fn changed(&mut self, change: Change) {
        self.touched = true;
        if let Some(log) = &mut self.log {
            log.push(change);
        }
    }

    /// Notes that the node `route` leads to was put in place.
    fn put_at(&mut self, route: &[Route]) {
        self.touched = true;
        if self.log.is_some() {
            let change = self
                .view
                .as_ref()
                .and_then(|v| self.reads.locate(v, route))
                .map_or(Change::All, Change::Put);
            self.changed(change);
        }
    }

    /// Notes that the string `route` leads to grew by `text`.
    fn grew(&mut self, route: &[Route], text: &str) {
        self.touched |= !text.is_empty();
        if self.log.is_some() && !text.is_empty() {
            let change = self
                .view
                .as_ref()
                .and_then(|v| self.reads.locate(v, route))
                .map_or(Change::All, |at| Change::Grew(at, text.to_owned()));
            self.changed(change);
        }
    }

    /// Whether the value at `path` is complete.
    pub(super) fn is_complete(&self, path: &Path, done: bool) -> bool {
        if done {
            return true;
        }
        // A container taken before its closer was decided: later text may
        // still read it (and what follows) otherwise.
        if self.tolerant.as_ref().is_some_and(|t| !t.settled()) {
            return false;
        }
        // The innermost open value's path is the innermost container's
        // (`self.path`), then the open string's last segment.
        let (p, n) = (path.segments(), self.path.len());
        let inside = match (&self.string, self.frames.last()) {
            (Some(s), _) => match s.last.as_ref() {
                Some(last) if p.len() == n + 1 => p[..n] == self.path[..] && p[n] == *last,
                _ => p.len() <= n && self.path.starts_with(p),
            },
            // (All in a region is open until it closes.)
            (None, Some(_)) => {
                self.path.starts_with(p) || (self.region.is_some() && p.starts_with(&self.path))
            }
            (None, None) => return true,
        };
        !inside
    }

    /// The routes in the typed view of the values still open that it
    /// shows: the containers and the string being written, each with
    /// whether it is that value's own (`false`: a value inside the node
    /// there is open, and the view does not say where, as it is found out
    /// again since a part around it was rebuilt).
    pub(super) fn open_routes(&self) -> Vec<(&[Route], bool)> {
        let mut out = Vec::with_capacity(self.frames.len() + 1);
        let strings = self.string.iter().map(|s| (s.shown, s.route.as_slice()));
        let frames = self
            .frames
            .iter()
            .map(|f| (f.shown, f.route.as_deref().unwrap_or(&[])));
        let mut known: &[Route] = &[];
        for (shown, route) in frames.chain(strings) {
            match shown {
                Shown::Yes => {
                    out.push((route, true));
                    known = route;
                }
                Shown::Hidden | Shown::Pending => {}
                Shown::Unknown => out.push((known, false)),
            }
        }
        out
    }

    /// The last segment of the path of the innermost container's current
    /// part (`None` at the root).
    fn child_segment(&self) -> Option<Segment> {
        self.frames.last().map(|f| match (f.array, &f.key) {
            (true, _) => Segment::Index(f.len),
            (false, Some(k)) => Segment::Key(k.clone()),
            (false, None) => Segment::Key("".into()),
        })
    }

    /// The path of the innermost container's current part, `last` its
    /// last segment: kept for the untyped view and the deltas only (a
    /// typed-only stream finds an open value's path from [`Live::path`]
    /// and `last`, and allocates none).
    fn child_path(&self, last: Option<Segment>) -> Path {
        match self.untyped {
            true => Path::of(&self.path, last),
            false => self.no_path.clone(),
        }
    }

    /// `key`, shared with the earlier keys like it (objects in a list
    /// repeat their keys).
    fn intern(&mut self, key: &str) -> Arc<str> {
        if let Some(k) = self.keys.iter().find(|k| ***k == *key) {
            return k.clone();
        }
        let k: Arc<str> = key.into();
        if self.keys.len() < 64 {
            self.keys.push(k.clone());
        }
        k
    }

    /// The untyped value at `path`.
    fn slot(&mut self, path: &Path) -> Option<&mut Value> {
        self.slot_at(path.segments())
    }

    /// The untyped value at the path `segs`.
    fn slot_at(&mut self, segs: &[Segment]) -> Option<&mut Value> {
        slot_in(&mut self.value, segs)
    }

    /// Puts `v` at `path` in the untyped view (a new member or element).
    fn set(&mut self, path: &Path, v: Value) {
        let Some((last, parent)) = path.segments().split_last() else {
            self.value = v;
            return;
        };
        let again = std::mem::take(&mut self.again);
        match (slot_in(&mut self.value, parent), last) {
            (Some(Value::Object(m)), Segment::Key(k)) if again && m.contains_key(&**k) => {
                // A key written twice, its second value starting: the member
                // shown (said to be complete, perhaps) is not the reply's
                // after all. The deltas start the view again without it (a
                // `Reset`, as for any value shown that later text takes
                // back); the new member's come after.
                m.remove(&**k);
                self.deltas.push(Delta::Reset);
                self.deltas.push(Delta::Started {
                    path: Path::root(),
                    value: self.value.clone(),
                });
                self.set(path, v);
            }
            (Some(Value::Object(m)), Segment::Key(k)) => {
                m.insert(String::from(&**k), v);
            }
            (Some(Value::Array(a)), Segment::Index(i)) => {
                if *i < a.len() {
                    a[*i] = v;
                } else {
                    a.push(v);
                }
            }
            _ => {}
        }
    }

    /// A new part of the innermost container starts in the untyped view.
    fn grow_untyped(&mut self) {
        if let Some(f) = self.frames.last_mut() {
            if f.array {
                f.len += 1;
            }
        }
    }

    // The typed view.

    /// Whether typed work is to be done for a part of the innermost
    /// container: every container around it is shown. Unknown ones are found
    /// out first.
    fn typed_ready(&mut self, text: &str) -> bool {
        if !self.typed || self.failed {
            return false;
        }
        for k in 0..self.frames.len() {
            // Inside a node that cannot grow in place: it is rebuilt once
            // the push is read.
            if self.frames[k].rebuild {
                return false;
            }
            if k == 0 {
                continue;
            }
            if self.frames[k - 1].shown != Shown::Yes {
                return false;
            }
            if self.frames[k].shown == Shown::Unknown {
                self.resolve(text, k);
                if self.failed {
                    return false;
                }
                if self.buffered(k) {
                    return false;
                }
            }
        }
        self.frames.last().is_some_and(|f| f.shown == Shown::Yes)
    }

    /// A part of the innermost container completed: a container waiting for
    /// its admission is read again.
    fn completed_in(&mut self, text: &str) -> bool {
        if self.typed_ready(text) {
            return true;
        }
        let d = self.frames.len();
        let waiting = self.typed
            && !self.failed
            && d > 1
            && self.frames[d - 1].shown == Shown::Pending
            && self.frames[..d - 1].iter().all(|f| f.shown == Shown::Yes);
        if waiting {
            self.rebuild(text, d - 1);
        }
        false
    }

    /// Marks the container at depth `k` to be read whole if serde buffers
    /// its view (a tagged enum: a part of one is not read without its tag),
    /// as its route or its list's says. Whether it is.
    fn buffered(&mut self, k: usize) -> bool {
        let kind = match (&self.frames[k].route, k.checked_sub(1)) {
            (Some(route), _) => match (&self.view, &self.reads) {
                (Some(v), _) => self.reads.kind_at(v, route),
                // A root a decode shows nothing of yet: its type says.
                (None, Reader::Typed) if route.is_empty() => V::__kind(),
                _ => Kind::Plain,
            },
            (None, Some(p)) if self.frames[p].shown == Shown::Yes => {
                self.element_kind(p).unwrap_or(Kind::Plain)
            }
            _ => Kind::Plain,
        };
        let f = &mut self.frames[k];
        let tag = match kind {
            Kind::Tagged(tag) => Some(tag),
            Kind::Adjacent { tag, content } => {
                f.content = Some(content);
                Some(tag)
            }
            _ => None,
        };
        if let Some(tag) = tag {
            f.tag = Some(tag);
            // Not shown while its tag is missing: found out again as its
            // members complete. Until its tag is complete it is read whole
            // (a cut tag may already name a variant to serde).
            if f.shown == Shown::Hidden {
                f.shown = Shown::Pending;
            }
            f.rebuild |= f.first.is_none();
        }
        f.buffered |= kind == Kind::Buffered;
        f.rebuild |= f.buffered || kind == Kind::Whole || f.tag_late();
        f.rebuild
    }

    /// Whether the part at depth `d` is an element of a list whose elements
    /// are internally tagged enums.
    fn tagged_element(&mut self, d: usize) -> bool {
        let kind = d.checked_sub(1).and_then(|p| self.element_kind(p));
        matches!(kind, Some(Kind::Tagged(_) | Kind::Adjacent { .. }))
    }

    /// The kind of the elements of the list at depth `p`, once its route is
    /// known (found once per list: its elements' type does not change).
    fn element_kind(&mut self, p: usize) -> Option<Kind> {
        let f = &self.frames[p];
        if !f.array {
            return None;
        }
        if let Some(kind) = f.elements {
            return Some(kind);
        }
        let route: Vec<Route> = f
            .route
            .as_ref()?
            .iter()
            .cloned()
            .chain([Route::Last])
            .collect();
        let kind = self.reads.kind_at(self.view.as_ref()?, &route);
        self.frames[p].elements = Some(kind);
        Some(kind)
    }

    /// The member of the innermost container that ends at `end` is complete:
    /// noted if it is the first.
    fn member_done(&mut self, end: usize) {
        if let Some(f) = self.frames.last_mut() {
            f.moved = true;
            f.filled = true;
            f.probe_inside();
            if let (false, None, Some(key)) = (f.array, &f.first, &f.key) {
                f.first = Some((key.clone(), f.header.start..end));
                // Its tag is complete: it grows in place from here on.
                if f.tag.is_some() {
                    f.rebuild = f.tag_late();
                }
            }
        }
    }

    /// Finds out whether the container at depth `k`, unknown since a part
    /// around it was rebuilt, is shown: the rebuilt view shows it if reading
    /// it alone does.
    fn resolve(&mut self, text: &str, k: usize) {
        let f = &self.frames[k];
        // Blocked: the view holds nothing of it, so it is read as it is and
        // put in place.
        if f.known == NOTHING {
            self.rebuild(text, k);
            return;
        }
        let known = (f.known, f.known_ends);
        let span = f.start..known.0;
        self.stale = Some(known.1);
        let out = self.check(text, k, span.clone(), true);
        let shown = out
            .as_ref()
            .map(|out| self.classify(text, k, span.clone(), out, false));
        self.stale = None;
        match (out, shown) {
            (Some(out), Some(shown)) => {
                let known = self.blocked_or(known);
                self.frames[k].shown_as(shown, out, known);
            }
            _ => self.failed = true,
        }
    }

    /// What the view knows of a part just read: `known`, or nothing if the
    /// read was blocked.
    fn blocked_or(&self, known: (usize, bool)) -> (usize, bool) {
        match self.blocked {
            true => (NOTHING, false),
            false => known,
        }
    }

    /// Reads the node at depth `k` (a frame) again from its text so far and
    /// puts it in place; the parts inside it are then unknown.
    fn rebuild(&mut self, text: &str, k: usize) {
        // Not known since a part around it was rebuilt (or since the live
        // view began, from a decode of the text then): whether the view
        // holds it is found out first, else a list would take it twice.
        if k > 0 && self.frames[k].shown == Shown::Unknown && self.frames[k].known != NOTHING {
            self.resolve(text, k);
            if self.failed {
                return;
            }
        }
        let start = self.frames[k].start;
        let has = self.frames[k].shown == Shown::Yes;
        self.frames[k].moved = false;
        let known = self.knowledge();
        for f in &mut self.frames[k + 1..] {
            f.shown = Shown::Unknown;
            f.route = None;
            f.elements = None;
            (f.known, f.known_ends) = known;
        }
        if let Some(s) = &mut self.string {
            s.shown = Shown::Unknown;
            (s.known, s.known_ends) = known;
        }
        if k == 0 {
            match self.read(text, 0, start..self.now, false, false) {
                Ok(Some(root)) => {
                    self.frames[0].fields = root.__fields();
                    self.view = admit_parts(root);
                    match &self.view {
                        // Nothing shown (see `open`): read whole until it
                        // shows.
                        None => self.frames[0].rebuild = true,
                        // Shown at last: known as it would have been when
                        // it opened.
                        Some(view) if self.frames[0].unseen => {
                            let f = &mut self.frames[0];
                            (f.unseen, f.rebuild) = (false, !view.__grows());
                            self.buffered(0);
                        }
                        Some(_) => {}
                    }
                    self.changed(Change::All);
                }
                // Nothing to show yet: the stream decoder shows that.
                Ok(None) if self.blocked => {}
                _ => self.failed = true,
            }
            return;
        }
        self.quiet = self.tagged_element(k) && self.frames[k].first.is_none();
        let placed = self.place(text, k, start..self.now, false, has);
        match placed {
            Some(out) => {
                let shown = self.classify(text, k, start..self.now, &out, false);
                self.quiet = false;
                let known = self.blocked_or(self.knowledge());
                self.frames[k].shown_as(shown, out, known);
                self.buffered(k);
            }
            None => {
                self.quiet = false;
                self.failed = true;
            }
        }
    }

    /// After `out` placed a part at depth `d`: shown, waiting for admission,
    /// or hidden (found with a probe that ignores admission).
    fn classify(
        &mut self,
        text: &str,
        d: usize,
        span: Range<usize>,
        out: &Placed,
        string: bool,
    ) -> Shown {
        // Read with a node around it rebuilt, or blocked: found out later.
        if self.blocked || out.rebuild.is_some() {
            return Shown::Unknown;
        }
        if out.present {
            return Shown::Yes;
        }
        if string {
            return Shown::Hidden;
        }
        match self.check(text, d, span, false) {
            Some(p) if p.present => Shown::Pending,
            Some(_) => Shown::Hidden,
            None => {
                self.failed = true;
                Shown::Hidden
            }
        }
    }

    /// Puts the part at depth `d` (a part of `frames[d - 1]`), written at
    /// `span`, in place. `has`: the view shows it already (its cut form).
    /// `None` when the read failed. A node on the way that cannot grow in
    /// place is rebuilt instead.
    fn place(
        &mut self,
        text: &str,
        d: usize,
        span: Range<usize>,
        complete: bool,
        has: bool,
    ) -> Option<Placed> {
        if let Some(j) = (0..d).find(|&j| self.frames[j].rebuild) {
            self.rebuild(text, j);
            return (!self.failed).then(|| Placed {
                rebuild: Some(j),
                ..Placed::default()
            });
        }
        let mut out = Placed {
            cut: !complete,
            ..Placed::default()
        };
        if !self.local(text, d, span.clone(), complete, has, &mut out) {
            let part = match self.read(text, d, span, complete, false) {
                Ok(Some(p)) => p,
                Ok(None) => return Some(Placed::default()),
                Err(_) => return None,
            };
            self.put(part, d, has, &mut out);
        }
        if out.rebuild.is_none() && (out.present || out.removed) {
            let route = std::mem::take(&mut out.route);
            self.put_at(&route);
            out.route = route;
        }
        if let Some(j) = out.rebuild {
            if out.fixed && j < self.frames.len() {
                self.frames[j].rebuild = true;
            }
            let j = j.min(self.frames.len() - 1);
            self.rebuild(text, j);
            return (!self.failed).then(|| Placed {
                rebuild: Some(j),
                ..Placed::default()
            });
        }
        Some(out)
    }

    /// Whether the part at depth `d`, read alone, would be shown — with its
    /// admission (`admit`) or without — changing nothing.
    fn check(&mut self, text: &str, d: usize, span: Range<usize>, admit: bool) -> Option<Placed> {
        let mut out = Placed {
            probe: true,
            admit,
            ..Placed::default()
        };
        if !self.local(text, d, span.clone(), false, false, &mut out) {
            let part = match self.read(text, d, span, false, !admit) {
                Ok(Some(p)) => p,
                Ok(None) => return Some(Placed::default()),
                Err(_) => return None,
            };
            self.put(part, d, false, &mut out);
        }
        if let (Some(j), true) = (out.rebuild, out.fixed) {
            if j < self.frames.len() {
                self.frames[j].rebuild = true;
            }
        }
        Some(out)
    }

    /// Whether the view shows the part of the innermost container that has
    /// just completed, in its cut form (written at `cut`).
    /// `cut`: its text as far as the view knows it (`ends`: with the number
    /// at its end complete).
    fn had(&mut self, text: &str, shown: Shown, cut: Range<usize>, ends: bool) -> bool {
        match shown {
            Shown::Yes => true,
            Shown::Unknown => {
                let d = self.frames.len();
                self.stale = Some(ends);
                let out = self.check(text, d, cut, true);
                self.stale = None;
                match out {
                    Some(out) => out.present,
                    None => {
                        self.failed = true;
                        false
                    }
                }
            }
            _ => false,
        }
    }

    /// Puts `part`, a part at depth `d`, in place (or probes where it
    /// goes): the containers around it are its levels.
    fn put(&mut self, part: V, d: usize, has: bool, out: &mut Placed) {
        self.levels(0, d, has);
        let levels = std::mem::take(&mut self.levels);
        self.root().__place(part, &levels, 0, out);
        self.levels = levels;
    }

    /// What the view knows of a part just read: the text so far, and
    /// whether a number at its end was complete.
    fn knowledge(&self) -> (usize, bool) {
        (self.now, self.now == self.scalar_end)
    }

    /// The containers from depth `from` to the part at depth `d`, as levels,
    /// into the buffer `levels`.
    fn levels(&mut self, from: usize, d: usize, has: bool) {
        self.levels.clear();
        self.levels.extend((from..d).map(|i| {
            let f = &self.frames[i];
            match f.array {
                true if i + 1 == d => Level::Element { has },
                true => Level::Element { has: true },
                false if f.content.is_some() && f.content == f.key.as_deref() => Level::Content,
                false => Level::Member,
            }
        }));
    }

    /// Puts the part at depth `d` in place (or probes, as `out` says) read as
    /// a part of the deepest node around it that the view reaches (see
    /// [`grow::Local`]), not of the root. `false` if there is none, the view
    /// cannot read that node on its own, or the read failed: the part is
    /// then read as a part of the root.
    fn local(
        &mut self,
        text: &str,
        d: usize,
        span: Range<usize>,
        complete: bool,
        has: bool,
        out: &mut Placed,
    ) -> bool {
        if !self.reads.local() {
            return false;
        }
        // A part cut inside a string whose text so far ends in closers:
        // whether they end the string early rests on every container open
        // around it
        // (`unterminated` in `src/scan/string.rs`: `"]` keeps its `]` in
        // `{"tags": ["`, not in `["`), which its text alone does not hold.
        // It is read from the root.
        if !complete
            && self.in_string
            && matches!(
                text[span.clone()].trim_end().as_bytes().last(),
                Some(b']' | b'}')
            )
        {
            return false;
        }
        let Some(j) = (1..d.min(self.frames.len()))
            .rev()
            .find(|&j| self.frames[j].local && self.frames[j].route.is_some())
        else {
            return false;
        };
        self.synthetic(text, j, d, span, complete);
        self.levels(j, d, has);
        let around = match out.probe && !out.admit {
            true => usize::MAX,
            false => self.exempt(j, d),
        };
        let route = self.frames[j].route.take().unwrap_or_default();
        let mut cx = grow::Local {
            decoder: match self.syn_ends {
                true => &self.decoder,
                false => &self.viewer,
            },
            spare: &mut self.spare,
            text: &PartText {
                text: &self.syn,
                opened: &self.syn_opened,
                own: self.syn_own.clone(),
                events: self
                    .tolerant
                    .as_deref()
                    .filter(|_| self.syn_given)
                    .map(Tolerant::events),
            },
            around,
            levels: &self.levels,
            out: &mut *out,
            tried: false,
            partial: false,
        };
        let view = self.view.as_mut().expect("a live view");
        let done = view.__local(&route, &mut cx);
        let tried = cx.tried;
        if done {
            self.blocked = false;
            out.route.splice(0..0, route.iter().cloned());
            out.rebuild = out.rebuild.map(|i| i + j);
        }
        // A node the view cannot read on its own is not tried again.
        let f = &mut self.frames[j];
        f.local = tried;
        f.route = Some(route);
        done
    }

    /// How many struct fields on the path from depth `from` to the part at
    /// depth `d` are exempt from admission: those whose values hold the
    /// part (their other members are not in the part's text), not the one
    /// whose value the part is, which is judged as a decode of the text
    /// judges it (`{"meta": {` shows no `meta` that lacks a required field).
    fn exempt(&self, from: usize, d: usize) -> usize {
        let path = &self.frames[from.min(d)..d.min(self.frames.len())];
        let fields = path.iter().filter(|f| f.fields).count();
        match path.last() {
            Some(f) if f.fields && !f.array && d <= self.frames.len() => fields - 1,
            _ => fields,
        }
    }

    /// The text of the part at depth `d` alone: the openers and keys of the
    /// containers around it from depth `from`, then its own text (a space after a complete
    /// one, so that a number ends). The containers are left open, as they
    /// are in the reply; with the text, where the containers still open at
    /// its end start. Written into the buffer `syn`.
    fn synthetic(&mut self, text: &str, from: usize, d: usize, span: Range<usize>, complete: bool) {
        let s = &mut self.syn;
        s.clear();
        self.syn_tags.clear();
        self.syn_opened.clear();
        for f in &self.frames[from..d] {
            self.syn_opened.push(Opened {
                at: s.len(),
                key: None,
            });
            if f.array {
                s.push('[');
                self.syn_tags.push(None);
                continue;
            }
            s.push('{');
            // An internally tagged enum: its tag first, as in the reply.
            let mut tagged = None;
            if let (Some(tag), Some((key, at))) = (f.tag, &f.first) {
                if **key == *tag && at.start != f.header.start {
                    s.push_str(&text[at.clone()]);
                    s.push(',');
                    tagged = Some(tag);
                }
            }
            self.syn_tags.push(tagged);
            let key = s.len()..s.len() + f.header.len();
            if tagged.is_none() {
                self.syn_opened.last_mut().expect("just pushed").key = Some(key);
            }
            s.push_str(&text[f.header.clone()]);
            s.push(':');
        }
        // A complete part, or one that ends with a complete number: a space
        // says it ends (`{"id": 1` could go on as `12`).
        self.syn_given = self.given.as_ref() == Some(&span);
        let ends = complete || self.stale.unwrap_or(span.end == self.scalar_end);
        self.syn_own = s.len()..s.len() + span.len();
        s.push_str(&text[span]);
        if ends {
            s.push(' ');
        }
        self.syn_ends = ends;
    }

    /// Decodes the part at depth `d`, written at `span` (see
    /// [`synthetic`](Self::synthetic)), into the root's view; `all`: every
    /// struct field around it is exempt from admission (else those of the
    /// containers around it).
    fn read(
        &mut self,
        text: &str,
        d: usize,
        span: Range<usize>,
        complete: bool,
        all: bool,
    ) -> Result<Option<V>> {
        self.synthetic(text, 0, d, span, complete);
        let around = match all {
            true => usize::MAX,
            false => self.exempt(0, d),
        };
        // A view's decoder, unless the part is known to end there.
        let decoder = match self.syn_ends {
            true => &self.decoder,
            false => &self.viewer,
        };
        let part = Around {
            around,
            tags: &self.syn_tags,
        };
        let syn = PartText {
            text: &self.syn,
            opened: &self.syn_opened,
            own: self.syn_own.clone(),
            events: self
                .tolerant
                .as_deref()
                .filter(|_| self.syn_given)
                .map(Tolerant::events),
        };
        let read = self.reads.part(decoder, &syn, part, &mut self.spare);
        match read {
            Ok(v) => {
                self.blocked = false;
                Ok(Some(v))
            }
            // A part cut before it can show anything: the whole view has
            // nothing to show either (a decode of the text meets it too).
            Err(e) if e.is_nothing() && self.quiet => Ok(None),
            Err(e) if e.is_nothing() => {
                self.blocked = true;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// A new part of the innermost container, written at `span`: put it in
    /// the typed view if the view shows it.
    fn typed_part(
        &mut self,
        text: &str,
        span: Range<usize>,
        complete: bool,
        has: bool,
    ) -> Option<Placed> {
        let d = self.frames.len();
        let out = self.place(text, d, span, complete, has);
        if out.is_none() {
            self.failed = true;
        }
        out
    }
}

impl<V: DeserializeOwned + View> Sink for Live<V> {
    fn open(&mut self, text: &str, array: bool, at: usize) {
        self.release();
        self.now = at + 1;
        let empty = match array {
            true => Value::Array(Vec::new()),
            false => Value::Object(serde_json::Map::new()),
        };
        let root = self.frames.is_empty();
        let last = self.child_segment();
        let path = self.child_path(last.clone());
        if self.untyped {
            self.set(&path, empty.clone());
            self.deltas.push(Delta::Started {
                path: path.clone(),
                value: empty,
            });
        }
        self.grow_untyped();
        if let Some(f) = self.frames.last_mut() {
            f.probe_inside();
        }
        let mut frame = Frame {
            array,
            path: path.clone(),
            start: at,
            len: 0,
            key: None,
            keys: self.spare_keys.pop().unwrap_or_default(),
            header: 0..0,
            shown: Shown::Hidden,
            fields: false,
            rebuild: false,
            unseen: false,
            buffered: false,
            moved: true,
            route: None,
            local: true,
            tag: None,
            content: None,
            elements: None,
            first: None,
            known: at + 1,
            known_ends: false,
            probe: Probe::To(at + 1),
            filled: false,
        };
        if root {
            frame.shown = Shown::Yes;
            frame.route = Some(Vec::new());
            // A root a decode shows nothing of yet (no variant of an
            // untagged enum takes it so far) is read whole until it shows.
            (frame.fields, frame.rebuild, frame.unseen) = match &self.view {
                Some(view) => (view.__fields(), !view.__grows(), false),
                None => (false, true, true),
            };
        } else if self.typed_ready(text) {
            self.quiet = self.tagged_element(self.frames.len());
            if let Some(out) = self.typed_part(text, at..at + 1, false, false) {
                let d = self.frames.len();
                let shown = self.classify(text, d, at..at + 1, &out, false);
                frame.shown_as(shown, out, self.blocked_or(self.knowledge()));
            }
            self.quiet = false;
        } else if self.frames.last().is_some_and(|f| f.shown != Shown::Hidden) {
            frame.shown = Shown::Unknown;
        }
        if let Some(seg) = last {
            self.path.push(seg);
        }
        self.frames.push(frame);
        self.buffered(self.frames.len() - 1);
    }

    fn key(&mut self, key: &str, span: Range<usize>) {
        self.now = span.end;
        let key = self.intern(key);
        if let Some(f) = self.frames.last_mut() {
            // A key met again: how the view takes it (the last one, an error,
            // a flattened part) depends on the whole object, which is read
            // whole from here on.
            if f.keys.iter().any(|k| **k == *key) {
                (f.rebuild, f.unseen) = (true, false);
                // (The untyped view takes the last: see `set`.)
                self.again = self.untyped;
            } else {
                f.keys.push(key.clone());
            }
            f.key = Some(key);
            f.header = span;
        }
    }

    fn close(&mut self, text: &str, end: usize) {
        self.release();
        self.now = end;
        let mut frame = self.frames.pop().expect("a container is open");
        let mut keys = std::mem::take(&mut frame.keys);
        if self.spare_keys.len() < 16 {
            keys.clear();
            self.spare_keys.push(keys);
        }
        self.member_done(end);
        if !self.frames.is_empty() {
            self.path.pop();
        }
        // A node not shown around a region: read whole from the tolerant
        // scanner's events (see `enter_region`).
        let given = self.given.clone();
        let settled = !std::mem::take(&mut self.unsettled);
        if let Some(t) = self
            .tolerant
            .as_mut()
            .filter(|t| t.kept_at() == Some(frame.start))
        {
            if !t.take_kept(text, end) {
                self.failed = true;
                return;
            }
            self.given = Some(frame.start..end);
        }
        // (A region's closer later text may still move: not said to be
        // complete. The untyped-only stream, which keeps no member's events,
        // says the same.)
        if self.untyped && settled {
            let value = match (self.lean, frame.array) {
                // What the deltas before it built: the caller has it.
                (true, true) => Value::Array(Vec::new()),
                (true, false) => Value::Object(serde_json::Map::new()),
                (false, _) => self.slot(&frame.path).cloned().unwrap_or(Value::Null),
            };
            self.deltas.push(Delta::Completed {
                path: frame.path.clone(),
                value,
            });
        }
        self.close_typed(text, end, &frame);
        self.given = given;
    }

    fn scalar(&mut self, text: &str, span: Range<usize>) {
        self.release();
        self.now = span.end;
        self.scalar_end = span.end;
        self.member_done(span.end);
        // A number beyond `f64` (`1e400`) is an error to a decode: the
        // whole text says which.
        let Some(value) = scalar_value(&text[span.clone()]) else {
            self.failed = true;
            return;
        };
        if self.untyped {
            let path = self.child_path(self.child_segment());
            self.set(&path, value.clone());
            self.deltas.push(Delta::Completed { path, value });
        }
        self.grow_untyped();
        if self.completed_in(text) {
            self.typed_part(text, span, true, false);
        }
    }

    fn string_start(&mut self, text: &str, at: usize) {
        self.release();
        self.now = at + 1;
        let last = self.child_segment();
        let path = self.child_path(last.clone());
        let member = self.frames.last().is_some_and(|f| !f.array);
        if let Some(f) = self.frames.last_mut() {
            f.probe_inside();
        }
        if member && self.untyped {
            self.set(&path, Value::String(String::new()));
            self.deltas.push(Delta::Started {
                path: path.clone(),
                value: Value::String(String::new()),
            });
        }
        let mut s = Box::new(Str {
            path,
            last,
            start: at,
            untyped: member,
            shown: Shown::Hidden,
            route: Vec::new(),
            decoded: std::mem::take(&mut self.decoded),
            visible: 0,
            seg: 0,
            member,
            appended: false,
            typed: 0,
            content: false,
            closed: false,
            read_open: false,
            raw_newline: false,
            brackets: (0, 0),
            escaped_brackets: 0,
            early: None,
            fenced: None,
            known: at + 1,
            known_ends: false,
            end: at + 1,
            seen: at + 1,
        });
        if self.typed_ready(text) {
            if let Some(out) = self.typed_part(text, at..at + 1, false, false) {
                s.shown = match out.present {
                    _ if self.blocked || out.rebuild.is_some() => Shown::Unknown,
                    true => Shown::Yes,
                    false => Shown::Pending,
                };
                s.route = out.route;
                s.appended = s.shown == Shown::Yes && self.root().__append(&s.route, "");
                (s.known, s.known_ends) = self.blocked_or((s.known, false));
            }
        } else if self.frames.last().is_some_and(|f| f.shown != Shown::Hidden) {
            s.shown = Shown::Unknown;
        }
        self.string = Some(s);
    }

    fn string_piece(&mut self, _: &str, raw: &str, end: usize, escaped: bool) {
        if let Some(s) = &mut self.string {
            // (The text so far ends at the fence for a decode.)
            if s.fenced.is_none() {
                self.now = end;
            }
            // Where the first raw ```` ``` ```` starts (see `Fenced::Whole`),
            // a run cut by a piece's end included.
            let ticks = match &self.fenced {
                Fenced::Whole { first: None, .. } if !escaped && raw.contains('`') => {
                    Some(s.seg.max(s.decoded.len().saturating_sub(2)))
                }
                _ => None,
            };
            s.take(raw, escaped);
            s.end = end;
            if let (Some(from), Fenced::Whole { first, .. }) = (ticks, &mut self.fenced) {
                let run = &s.decoded.as_bytes()[from..];
                *first = memchr::memmem::find(run, b"```").map(|i| from + i);
            }
        }
    }

    fn string_end(&mut self, text: &str, end: usize) {
        if let Some(s) = self.string.as_mut().filter(|s| s.fenced.is_some()) {
            // The block still ends at the fence for a decode while the
            // quote ends the text. What follows it decides: a space or a
            // delimiter closes the string; anything else (`" and`, an
            // inner quote for a decode) ends the live read.
            match text.as_bytes().get(end) {
                None => {
                    self.quote_at = Some(end);
                    return;
                }
                Some(&c) if !closes_fenced(c) => {
                    self.failed = true;
                    return;
                }
                Some(_) => s.fenced = None,
            }
        }
        self.grow(text, Some(end));
        self.now = end;
        let Some(mut s) = self.string.take() else {
            return;
        };
        // The untyped view (its path as the string had it), then the typed.
        if !s.untyped {
            self.grow_untyped();
        }
        // All of it shows now (what a cut one leaves out, the raw spaces
        // at its end, a closed one holds). It is complete only once the next
        // byte says the quote closes it (`"say "` then `hi"`): its
        // `Completed` comes then (see `string_settled`).
        let len = s.closed_len();
        match (self.untyped, s.untyped) {
            (false, _) => {}
            (true, true) => {
                let rest = &s.decoded[s.visible.min(len)..len];
                if !rest.is_empty() {
                    let rest = rest.to_owned();
                    if let Some(Value::String(v)) = self.slot(&s.path) {
                        v.push_str(&rest);
                    }
                    self.deltas.push(Delta::Appended {
                        path: s.path.clone(),
                        text: rest,
                    });
                }
            }
            (true, false) => {
                let value = Value::String(s.decoded[..len].to_owned());
                self.set(&s.path, value.clone());
                self.deltas.push(Delta::Started {
                    path: s.path.clone(),
                    value,
                });
            }
        }
        // The typed view shows it whole, still cut, until the next byte
        // says the quote closes it: it stays the open string until then.
        s.closed = true;
        self.string = Some(s);
    }

    fn string_fenced(&mut self, text: &str, at: usize) {
        // The views show the string as it was at `at`: the backticks it
        // took in past it (raw text) are set aside meanwhile.
        self.fence_lines = true;
        let Some(s) = &mut self.string else {
            return;
        };
        let end = s.end;
        let past = s.decoded.split_off(s.decoded.len() - (end - at.min(end)));
        s.end = at.min(end);
        self.grown(text);
        let open = self.frames.iter().rev().map(|f| f.array);
        if let Some(s) = &mut self.string {
            // An element with nothing but raw spaces before the fence: a
            // decode leaves it out (nothing of it written yet), which the
            // live views, showing it since a backtick came, cannot: the
            // stream shows that decode's views meanwhile.
            let unwritten = !s.member && s.shown_len() == 0;
            s.fenced = Some(s.ends_early(open, self.fenced) || unwritten);
            s.decoded.push_str(&past);
            s.end = end;
        }
    }

    fn string_unfenced(&mut self, _: &str) {
        if let Some(s) = &mut self.string {
            s.fenced = None;
        }
    }

    fn string_settled(&mut self, text: &str, end: usize) {
        let Some(s) = self.string.take() else {
            return;
        };
        // Known to end here, as a number is once its delimiter arrives.
        self.scalar_end = end;
        if self.untyped {
            self.held = Some(Delta::Completed {
                path: s.path.clone(),
                value: Value::String(s.decoded[..s.closed_len()].to_owned()),
            });
        }
        if let Fenced::Whole { ticks, first } = &mut self.fenced {
            *ticks |= first.take().is_some();
        }
        self.member_done(end);
        self.typed_string_end(text, end, &s);
        // Its buffer, emptied, is the next string's.
        let mut decoded = s.decoded;
        decoded.clear();
        self.decoded = decoded;
    }
}

/// Whether `c` after a fenced string's closing quote closes the string for
/// a decode of the text so far (see [`Live::quote_at`]): a space or the
/// place's delimiter (else the quote is read as inside it).
fn closes_fenced(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}' | b']' | b':')
}

/// The value of a number or literal as JSON writes it (or a Python literal,
/// as the decoder reads it): what serde_json reads, with the literals and
/// the integers that fit 64 bits read here
/// (a whole deserializer for each costs more than the rest of the token's
/// reading); `None` for a number beyond `f64`.
fn scalar_value(word: &str) -> Option<Value> {
    match word {
        "true" | "True" => return Some(Value::Bool(true)),
        "false" | "False" => return Some(Value::Bool(false)),
        "null" | "None" => return Some(Value::Null),
        _ => {}
    }
    let digits = word.strip_prefix('-').unwrap_or(word);
    if !digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit()) {
        // At most 18 digits: the value fits an `i64` either way.
        // (`-0` is left to serde_json, which reads it as a float.)
        match word.parse::<i64>() {
            Ok(n) if n > 0 || (n == 0 && digits.len() == word.len()) => {
                return Some(Value::from(n as u64))
            }
            Ok(n) if n < 0 => return Some(Value::from(n)),
            _ => {}
        }
    }
    // JSON5's `+1`, `.5`, `5.`: the number of their JSON spelling.
    serde_json::from_str(word).ok().or_else(|| {
        crate::scan::number::decimal_spelling(word).and_then(|w| serde_json::from_str(&w).ok())
    })
}

impl<V: DeserializeOwned + View> Live<V> {
    /// The typed view's part of [`close`](Sink::close): the container
    /// `frame`, its closer ending at `end`.
    fn close_typed(&mut self, text: &str, end: usize, frame: &Frame) {
        if self.frames.is_empty() {
            if self.typed && !self.failed && frame.rebuild {
                match self.read(text, 0, self.start..end, true, false) {
                    Ok(Some(root)) => {
                        self.view = admit_parts(root);
                        self.changed(Change::All);
                    }
                    _ => self.failed = true,
                }
            }
            return;
        }
        if self.completed_in(text) {
            // A container grown in place is complete as it stands.
            if frame.shown == Shown::Yes && !frame.rebuild {
                return;
            }
            let has = frame.known != NOTHING
                && self.had(
                    text,
                    frame.shown,
                    frame.start..frame.known.min(end - 1),
                    frame.known_ends,
                );
            self.typed_part(text, frame.start..end, true, has);
        }
    }

    /// The string `s`, ending at `end`, is complete: the typed view shows
    /// all of it.
    fn typed_string_end(&mut self, text: &str, end: usize, s: &Str) {
        if self.completed_in(text) {
            // Grown in place so far: the rest of it, appended, is the whole.
            let len = s.closed_len();
            let rest = &s.decoded[s.typed.min(len)..len];
            if s.shown == Shown::Yes && s.appended && self.root().__append(&s.route, rest) {
                self.grew(&s.route, rest);
                return;
            }
            let cut = s.start..end - 1 - (s.decoded.len() - s.visible);
            let cut = match s.shown {
                // The view read the text up to its closing quote or past
                // it: it holds the string as that reading does (a closed
                // one, which may show where a cut one would not).
                Shown::Unknown if s.known >= end && s.known != NOTHING => s.start..end,
                Shown::Unknown => s.start..s.known.min(cut.end),
                _ => cut,
            };
            let has = s.known != NOTHING && self.had(text, s.shown, cut, s.known_ends);
            self.typed_part(text, s.start..end, true, has);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::scalar_value;
    use serde_json::Value;

    #[test]
    fn a_scalar_reads_as_serde_json_reads_it() {
        let words = [
            "0",
            "-0",
            "7",
            "-7",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "-9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "1.5",
            "-0.0",
            "1e5",
            "2E-3",
            "true",
            "false",
            "null",
        ];
        for w in words {
            let want: Value = serde_json::from_str(w).unwrap();
            let got = scalar_value(w).unwrap();
            assert_eq!(got, want, "{w}");
            // The same kind of number too (`-0` is a float, `7` an unsigned).
            assert_eq!(got.is_u64(), want.is_u64(), "{w}");
            assert_eq!(got.is_i64(), want.is_i64(), "{w}");
            assert_eq!(got.is_f64(), want.is_f64(), "{w}");
        }
        assert_eq!(scalar_value("1e400"), None);
        assert_eq!(
            scalar_value("-0")
                .and_then(|v| v.as_f64())
                .map(f64::is_sign_negative),
            Some(true)
        );
    }
}
