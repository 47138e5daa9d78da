//! The scanner resumed: a reply read as it arrives, each byte once.
//!
//! A stream holds a scanner [`Paused`] between pushes (all of it but the
//! text, which grows). Each push resumes it over the text so far and
//! [`feed`](Scanner::feed)s the tape with the events that no later text can
//! change; the rest of the text (a token cut at the end, a judgment still
//! looking ahead) is read again on the next push, and, for a view of the
//! text so far, [`tail`](Scanner::tail) reads it as if the text ended there
//! and takes it back afterwards.
//!
//! **What is decided.** A token the fast lane reads (valid JSON's tokens,
//! each followed by its delimiter) is decided when it is read; a closer,
//! once the byte after it (a comma its step takes) has arrived. An event a
//! step held back (an object's first key, read with its `{`) is decided
//! with that step. A step of the repairing state machine that went
//! straight to its token and says how far it looked (`Scanner::reach`: a
//! string closed by the delimiter right after its quote, in any quote
//! style; a key and its colon, quoted or bare; a literal such as `True`
//! before a delimiter; a closer after a trailing comma; an opening `[`;
//! a string or a bare value whose look-aheads over prose each say how far
//! they looked, `Scanner::looked`: an inner quote's judgment, the first
//! quote on a bare value's line) is decided once that much has arrived.
//! Any step is decided once [`HORIZON`] more bytes have arrived after it:
//! no rule of the step looks further ahead than that (the rules that look
//! ahead bound their look: `LOOKAHEAD` in `string.rs` and the bounds in
//! `lex.rs`, the widest 4 KiB; a run of whitespace or a line of bare text
//! longer than that is the one case that may read differently once more
//! text arrives). The horizon is the fallback, not the rule: a step
//! waiting for it holds back 4 KiB on every feed (a bare value on a line
//! with no quote or line end yet: whether a quote later on the line is
//! its missing closing one, `abc def"`, waits for the line). An event met at the
//! end of the text (a string, number or container cut there, a string
//! whose end was judged by where the text ends, the end itself) is never
//! decided before more text, or the end of the reply
//! ([`text_ended`](Scanner::text_ended)), comes.
//!
//! **A string cut at the end is parked**, not read again: the step that
//! met it is taken back as any undecided step, but the string's read keeps
//! where it stopped (`string::Parked`: its loop's state at the last point
//! no later byte can change, its text so far, the repairs its content
//! made), and the step's next read goes on from there. A string is the one
//! token models make unboundedly long (a file's content, a long answer),
//! so this is what keeps a stream of one long string linear.
//!
//! The stream decoder drives it beside its live reader, for the containers
//! that reader cannot read (`stream::tolerant`); this module's tests and
//! the fuzz target `resume` drive all of it (hence the `dead_code`
//! allowance: some of it serves only them).
#![cfg_attr(not(test), allow(dead_code))]

use crate::policy::Rules;
use crate::report::Repairs;

use super::tape::{StepMark, Tape, TapeMark};
use super::{Ctx, Event, Frame, Scanner, State, Text};

/// How far ahead of the scanner's position a step of the repairing state
/// machine may look (see the module's comment).
pub(crate) const HORIZON: usize = 4096;

/// An event held back by the scanner (see `Scanner::pending`), its text as
/// a span of the reply (or the scratch buffer's), not a borrow.
#[derive(Clone, Copy, Debug)]
enum Held {
    Plain(Event<'static>),
    Key(Option<(usize, usize)>),
    Str(Option<(usize, usize)>),
}

impl Held {
    fn of(ev: Event<'_>, text: &str) -> Held {
        let span = |t: Text<'_>| match t {
            Text::Borrowed(s) => {
                let at = (s.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
                Some((at, s.len()))
            }
            _ => None,
        };
        match ev {
            Event::Key(t) => Held::Key(span(t)),
            Event::Str(t) => Held::Str(span(t)),
            Event::StartObject => Held::Plain(Event::StartObject),
            Event::StartArray => Held::Plain(Event::StartArray),
            Event::EndObject => Held::Plain(Event::EndObject),
            Event::EndArray => Held::Plain(Event::EndArray),
            Event::Bool(b) => Held::Plain(Event::Bool(b)),
            Event::Null => Held::Plain(Event::Null),
            Event::Eof | Event::Num(_) => Held::Plain(Event::Eof),
        }
    }

    fn event(self, text: &str) -> Event<'_> {
        let t = |span: Option<(usize, usize)>| match span {
            Some((at, len)) => Text::Borrowed(&text[at..at + len]),
            None => Text::Scratch,
        };
        match self {
            Held::Plain(ev) => ev,
            Held::Key(span) => Event::Key(t(span)),
            Held::Str(span) => Event::Str(t(span)),
        }
    }
}

/// A scanner between pushes: all it holds but the text.
#[derive(Debug)]
pub(crate) struct Paused {
    pos: usize,
    segments: Vec<std::ops::Range<usize>>,
    stack: Vec<Frame>,
    opened: Vec<usize>,
    depth: usize,
    max_depth: usize,
    state: State,
    awaiting_value: bool,
    object_pending: bool,
    pending: Option<(Held, usize)>,
    object_open: usize,
    scratch: String,
    repairs: Repairs,
    truncated: bool,
    more_roots: bool,
    scalar_root: bool,
    roots: u32,
    scalar_roots: u32,
    prose_roots: u32,
    token_start: usize,
    follow: usize,
    root_end: usize,
    complete: bool,
    cut_close: bool,
    pending_cut: bool,
    roots_close: bool,
    partial: bool,
    view: bool,
    rules: Rules,
    checked: usize,
    parked: Option<Box<super::string::Parked>>,
    undo: Option<Box<Snapshot>>,
}

/// What a step may change, kept to take the step back (the repairs by
/// their count: only added to at the end). A feed keeps one between steps
/// (`Scanner::undo`), its buffers taken again (see
/// [`Scanner::snapshot_into`]): a step allocates nothing to be taken back.
#[derive(Debug)]
pub(super) struct Snapshot {
    pos: usize,
    stack: Vec<Frame>,
    opened: Vec<usize>,
    depth: usize,
    state: State,
    awaiting_value: bool,
    object_pending: bool,
    pending: Option<(Held, usize)>,
    object_open: usize,
    scratch: String,
    repairs: usize,
    truncated: bool,
    more_roots: bool,
    scalar_root: bool,
    roots: u32,
    scalar_roots: u32,
    prose_roots: u32,
    quote_hint: (usize, usize, bool),
    quote_verdict: Option<(usize, Ctx, bool, bool, usize)>,
    token_start: usize,
    follow: usize,
    root_end: usize,
    complete: bool,
    cut_close: bool,
    pending_cut: bool,
    roots_close: bool,
    checked: usize,
    segments: usize,
}

/// A tape fed by the lane one event per call, an object's first key held
/// back for [`Scanner::read`] (which says how far it looked: see
/// [`Scanner::feed`]).
struct Stepwise<'t>(&'t mut Tape);

impl<'de> super::fast::Sink<'de> for Stepwise<'_> {
    type Out = ();

    #[inline(always)]
    fn emit(&mut self, scan: &Scanner<'de>, ev: Event<'de>) {
        self.0.emit(scan, ev);
    }
}

impl<'de> Scanner<'de> {
    /// The scanner between pushes (see [`resume`](Self::resume)).
    pub(crate) fn pause(self) -> Paused {
        debug_assert!(self.peeked.is_none(), "nothing peeked while taping");
        Paused {
            pos: self.pos,
            segments: self.segments,
            stack: self.stack,
            opened: self.opened,
            depth: self.depth,
            max_depth: self.max_depth,
            state: self.state,
            awaiting_value: self.awaiting_value,
            object_pending: self.object_pending,
            pending: self.pending.map(|(ev, at)| (Held::of(ev, self.text), at)),
            object_open: self.object_open,
            scratch: self.scratch,
            repairs: self.repairs,
            truncated: self.truncated,
            more_roots: self.more_roots,
            scalar_root: self.scalar_root,
            roots: self.roots,
            scalar_roots: self.scalar_roots,
            prose_roots: self.prose_roots,
            token_start: self.token_start,
            follow: self.follow,
            root_end: self.root_end,
            complete: self.complete,
            cut_close: self.cut_close,
            pending_cut: self.pending_cut,
            roots_close: self.roots_close,
            partial: self.partial,
            view: self.view,
            rules: self.rules,
            checked: self.checked,
            parked: self.parked,
            undo: self.undo,
        }
    }

    /// The paused scanner `p` reading on in `text`, the text it read so
    /// far and what arrived since, to its end.
    pub(crate) fn resume(text: &'de str, p: Paused) -> Scanner<'de> {
        Scanner {
            #[cfg(test)]
            lane: true,
            text,
            b: text.as_bytes(),
            pos: p.pos,
            end: text.len(),
            segments: p.segments,
            stack: p.stack,
            opened: p.opened,
            depth: p.depth,
            max_depth: p.max_depth,
            state: p.state,
            awaiting_value: p.awaiting_value,
            object_pending: p.object_pending,
            pending: p.pending.map(|(h, at)| (h.event(text), at)),
            object_open: p.object_open,
            peeked: None,
            scratch: p.scratch,
            repairs: p.repairs,
            truncated: p.truncated,
            more_roots: p.more_roots,
            scalar_root: p.scalar_root,
            roots: p.roots,
            scalar_roots: p.scalar_roots,
            prose_roots: p.prose_roots,
            // Looks ahead remembered: they may have met the old end.
            quote_hint: (0, 0, false),
            quote_verdict: None,
            token_start: p.token_start,
            follow: p.follow,
            root_end: p.root_end,
            complete: p.complete,
            cut_close: p.cut_close,
            pending_cut: p.pending_cut,
            roots_close: p.roots_close,
            partial: p.partial,
            view: p.view,
            reach: usize::MAX,
            looked: std::cell::Cell::new(0),
            plain: false,
            rules: p.rules,
            checked: p.checked,
            open_end: true,
            met_end: false,
            parked: p.parked,
            undo: p.undo,
        }
    }

    /// The repairs made from the `from`th on.
    pub(crate) fn repairs_since(
        &self,
        from: usize,
    ) -> impl Iterator<Item = crate::report::Repair> + '_ {
        self.repairs.since(from)
    }

    /// How many repairs were made.
    pub(crate) fn repair_count(&self) -> usize {
        self.repairs.len()
    }

    /// The scanner reading `text` only to `end` (a candidate's span
    /// trimmed of the spaces at its end: the bytes after it are still seen,
    /// as a one-shot read of the span sees them).
    pub(crate) fn ending_at(mut self, end: usize) -> Scanner<'de> {
        self.end = end.min(self.b.len());
        self
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            pos: self.pos,
            stack: self.stack.clone(),
            opened: self.opened.clone(),
            depth: self.depth,
            state: self.state,
            awaiting_value: self.awaiting_value,
            object_pending: self.object_pending,
            pending: self.pending.map(|(ev, at)| (Held::of(ev, self.text), at)),
            object_open: self.object_open,
            scratch: match self.holds_scratch() {
                true => self.scratch.clone(),
                false => String::new(),
            },
            repairs: self.repairs.len(),
            truncated: self.truncated,
            more_roots: self.more_roots,
            scalar_root: self.scalar_root,
            roots: self.roots,
            scalar_roots: self.scalar_roots,
            prose_roots: self.prose_roots,
            quote_hint: self.quote_hint,
            quote_verdict: self.quote_verdict,
            token_start: self.token_start,
            follow: self.follow,
            root_end: self.root_end,
            complete: self.complete,
            cut_close: self.cut_close,
            pending_cut: self.pending_cut,
            roots_close: self.roots_close,
            checked: self.checked,
            segments: self.segments.len(),
        }
    }

    /// Whether the scratch buffer holds what the scanner still needs: the
    /// text of an event held back. Else it holds the text of an event
    /// already written (the tape copied it), which a snapshot need not
    /// copy: a long escaped string's text would be copied on every push
    /// until another took its place.
    fn holds_scratch(&self) -> bool {
        matches!(
            self.pending,
            Some((Event::Key(Text::Scratch) | Event::Str(Text::Scratch), _))
        )
    }

    /// [`snapshot`](Self::snapshot) into `s`, its buffers taken again.
    fn snapshot_into(&self, s: &mut Snapshot) {
        s.pos = self.pos;
        s.stack.clone_from(&self.stack);
        s.opened.clone_from(&self.opened);
        s.depth = self.depth;
        s.state = self.state;
        s.awaiting_value = self.awaiting_value;
        s.object_pending = self.object_pending;
        s.pending = self.pending.map(|(ev, at)| (Held::of(ev, self.text), at));
        s.object_open = self.object_open;
        s.scratch.clear();
        if self.holds_scratch() {
            s.scratch.push_str(&self.scratch);
            #[cfg(test)]
            crate::work::add(self.scratch.len());
        }
        s.repairs = self.repairs.len();
        s.truncated = self.truncated;
        s.more_roots = self.more_roots;
        s.scalar_root = self.scalar_root;
        s.roots = self.roots;
        s.scalar_roots = self.scalar_roots;
        s.prose_roots = self.prose_roots;
        s.quote_hint = self.quote_hint;
        s.quote_verdict = self.quote_verdict;
        s.token_start = self.token_start;
        s.follow = self.follow;
        s.root_end = self.root_end;
        s.complete = self.complete;
        s.cut_close = self.cut_close;
        s.pending_cut = self.pending_cut;
        s.roots_close = self.roots_close;
        s.checked = self.checked;
        s.segments = self.segments.len();
    }

    /// The scanner's state, into the buffers kept for it (see
    /// [`Snapshot`]).
    fn take_snapshot(&mut self) -> Box<Snapshot> {
        match self.undo.take() {
            Some(mut s) => {
                self.snapshot_into(&mut s);
                s
            }
            None => Box::new(self.snapshot()),
        }
    }

    /// Takes the step back to `s` (its buffers swapped in: `s` keeps the
    /// step's, to be taken again).
    fn restore(&mut self, s: &mut Snapshot) {
        self.pos = s.pos;
        std::mem::swap(&mut self.stack, &mut s.stack);
        std::mem::swap(&mut self.opened, &mut s.opened);
        self.depth = s.depth;
        self.state = s.state;
        self.awaiting_value = s.awaiting_value;
        self.object_pending = s.object_pending;
        self.pending = s.pending.map(|(h, at)| (h.event(self.text), at));
        self.object_open = s.object_open;
        // A string parked by the step taken back takes back its text so
        // far, lent with the event.
        if let Some(p) = self.parked.as_deref_mut() {
            p.take_back(&mut self.scratch);
        }
        std::mem::swap(&mut self.scratch, &mut s.scratch);
        self.repairs.truncate(s.repairs);
        self.truncated = s.truncated;
        self.more_roots = s.more_roots;
        self.scalar_root = s.scalar_root;
        self.roots = s.roots;
        self.scalar_roots = s.scalar_roots;
        self.prose_roots = s.prose_roots;
        self.quote_hint = s.quote_hint;
        self.quote_verdict = s.quote_verdict;
        self.token_start = s.token_start;
        self.follow = s.follow;
        self.root_end = s.root_end;
        self.complete = s.complete;
        self.cut_close = s.cut_close;
        self.pending_cut = s.pending_cut;
        self.roots_close = s.roots_close;
        self.checked = s.checked;
        debug_assert!(self.segments.len() >= s.segments, "segments are only taken");
    }

    /// Writes onto `tape` the events the text so far decides: every event
    /// no later text can change (see the module's comment). Stops before
    /// the first that may, leaving the scanner there. `true` when the read
    /// ended (at an error, or after the root value: nothing more to feed).
    pub(crate) fn feed(&mut self, tape: &mut Tape) -> bool {
        matches!(self.feed_to(tape, false), Stop::Ended)
    }

    /// [`feed`](Self::feed), then, unless the read ended, [`tail`](Self::tail):
    /// a view of the text so far, to take back with
    /// [`untail`](Self::untail). The step the feed stopped at, undecided,
    /// is the tail's first as it was read (not taken back and read again:
    /// it is the token cut at the end, the costliest step of a push).
    pub(crate) fn feed_and_tail(&mut self, tape: &mut Tape) -> Option<Tail> {
        match self.feed_to(tape, true) {
            Stop::Ended => None,
            Stop::Waiting => Some(self.tail(tape)),
            Stop::Step {
                snapshot,
                mark,
                was,
                next,
            } => {
                tape.rewind_step(mark);
                let back = Tail {
                    snapshot,
                    mark: tape.mark(),
                };
                if !self.tape_step(tape, was, next) {
                    self.tape_rest(tape);
                }
                Some(back)
            }
        }
    }

    /// [`feed`](Self::feed); `keep`: an undecided step is left as read,
    /// given back with the state from before it.
    fn feed_to(&mut self, tape: &mut Tape, keep: bool) -> Stop<'de> {
        loop {
            // A string parked by a step now decided is read.
            if self.parked.as_ref().is_some_and(|p| p.open() < self.pos) {
                self.parked = None;
            }
            // The step to come parked a string that still runs into the end
            // of the text: read again, it would meet the end again and wait.
            if self.pending.is_none()
                && self
                    .parked
                    .as_mut()
                    .is_some_and(|p| p.runs_to_end(self.text))
            {
                return Stop::Waiting;
            }
            if self.rules.all_repairs() && self.pending.is_none() {
                self.complete = true;
                if self.fast_into(&mut Stepwise(tape)).is_some() {
                    continue;
                }
            }
            let mut snapshot = self.take_snapshot();
            let mark = tape.step_mark();
            let was = self.truncated;
            let from = self.pos;
            // An event held back by the step before (decided with it) is
            // given out with nothing read.
            let held = matches!(self.pending, Some((Event::Key(_), _)));
            self.met_end = false;
            let next = self.read();
            // A step cut at the end, or one whose judgment rested on where
            // the text ends, waits for more text.
            let cut = (self.truncated && !was) || self.met_end;
            // A step that went straight to its token (past whitespace,
            // comments and a comma) along a path that says how far it
            // looked is decided once that much has arrived; any other, once
            // the horizon has.
            // (What it read ends before where it stopped, at least: a step
            // that read to the end, a prose root's, waits for more.)
            let straight = self.reach != usize::MAX && self.straight_from(from);
            let decided = !cut
                && (((held || straight) && self.reach.max(self.pos) < self.end)
                    || self.pos.saturating_add(HORIZON) <= self.end);
            if !decided {
                if keep {
                    return Stop::Step {
                        snapshot,
                        mark,
                        was,
                        next,
                    };
                }
                self.restore(&mut snapshot);
                self.undo = Some(snapshot);
                tape.rewind_step(mark);
                return Stop::Waiting;
            }
            self.undo = Some(snapshot);
            match next {
                Ok(ev) => {
                    tape.event(self, ev);
                    if let Event::Eof = ev {
                        return Stop::Ended;
                    }
                }
                Err(e) => {
                    tape.fail(e, self.token_start);
                    return Stop::Ended;
                }
            }
        }
    }

    /// The bytes the next feed reads again: from the step held back, or,
    /// with a string parked, up to its quote and from where its read goes
    /// on.
    #[cfg(test)]
    fn rereads(&self) -> usize {
        match self.parked.as_deref() {
            Some(p) => (p.open() - self.pos) + (self.end - p.reads_from().min(self.end)),
            None => self.end - self.pos.min(self.end),
        }
    }

    /// Whether only whitespace, comments and one comma stand between
    /// `from` and the last event's token. (An object's start whose `{` the
    /// fast lane passed before this step, the step reading its first key
    /// and holding it back: between `from` and that key.)
    fn straight_from(&self, from: usize) -> bool {
        let b = self.b;
        let to = match self.pending {
            Some((Event::Key(_), at)) if self.token_start < from => at,
            _ => self.token_start,
        };
        if to < from {
            return false;
        }
        let mut i = super::lex::next_significant(b, from, to);
        if i < to && b[i] == b',' {
            i = super::lex::next_significant(b, i + 1, to);
        }
        i >= to
    }

    /// Writes onto `tape`, after what [`feed`](Self::feed) wrote, the rest
    /// of the read as if the text ended here (a token cut, containers
    /// closed), and gives `tape`'s mark and the scanner's state from
    /// before it, for [`untail`](Self::untail) to take it all back.
    pub(crate) fn tail(&mut self, tape: &mut Tape) -> Tail {
        let back = Tail {
            snapshot: self.take_snapshot(),
            mark: tape.mark(),
        };
        self.tape_rest(tape);
        back
    }

    /// The text has ended: what the scanner reads from now on is all of
    /// the reply (a string that runs into its end is not parked).
    pub(crate) fn text_ended(&mut self) {
        self.open_end = false;
    }

    /// Takes back what [`tail`](Self::tail) read.
    pub(crate) fn untail(&mut self, tape: &mut Tape, back: Tail) {
        let mut snapshot = back.snapshot;
        self.restore(&mut snapshot);
        self.undo = Some(snapshot);
        tape.rewind(back.mark);
    }
}

/// Where a feed stopped.
enum Stop<'de> {
    /// The read ended: nothing more to feed.
    Ended,
    /// Before a step more text decides, the scanner left there.
    Waiting,
    /// After a step more text decides, left as read (see
    /// [`Scanner::feed_and_tail`]): the state and the tape from before it,
    /// whether the read was cut before it, and what it read.
    Step {
        snapshot: Box<Snapshot>,
        mark: StepMark,
        was: bool,
        next: crate::error::Result<Event<'de>>,
    },
}

/// What [`Scanner::tail`] took, to give back.
pub(crate) struct Tail {
    snapshot: Box<Snapshot>,
    mark: TapeMark,
}

/// A scan of `text` from its start, fed in pieces (every prefix ending at
/// `cuts`), then to its end: what a stream's scanner writes, and the
/// repairs it made. For tests and the fuzz target `resume`.
pub(crate) fn fed_in_pieces(
    text: &str,
    opts: &super::ScanOptions,
    cuts: &[usize],
) -> (Tape, Vec<crate::report::Repair>) {
    let mut paused = Scanner::over(&text[..0], std::slice::from_ref(&(0..0)), opts).pause();
    let mut tape = Tape::new();
    let mut ended = false;
    for &cut in cuts {
        let mut scan = Scanner::resume(&text[..cut], paused);
        if !ended {
            ended = scan.feed(&mut tape);
        }
        paused = scan.pause();
    }
    let mut scan = Scanner::resume(text, paused);
    scan.text_ended();
    if !ended && !scan.feed(&mut tape) {
        scan.tape_rest(&mut tape);
    }
    let repairs = scan.repairs.iter().collect();
    (tape, repairs)
}

/// A stream's scan of `text` (a reply's value), pushed in pieces of
/// `piece` bytes with a view after each (the tail read as if the text
/// ended there, and taken back), then ended: how many words the tape
/// holds. What the engine costs a stream before any view is built from
/// its tape (`benches/stream`, path `e`).
pub(crate) fn streamed(text: &str, piece: usize) -> usize {
    let opts = super::ScanOptions {
        max_depth: 128,
        multi: false,
        partial: true,
        view: true,
        rules: Rules::DEFAULT,
        #[cfg(test)]
        lane: true,
    };
    let mut paused = Scanner::over(&text[..0], std::slice::from_ref(&(0..0)), &opts).pause();
    let mut tape = Tape::new();
    let mut ended = false;
    let mut cut = 0;
    while cut < text.len() {
        cut = (cut + piece.max(1)).min(text.len());
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        let mut scan = Scanner::resume(&text[..cut], paused);
        if !ended {
            match scan.feed_and_tail(&mut tape) {
                Some(back) => scan.untail(&mut tape, back),
                None => ended = true,
            }
        }
        paused = scan.pause();
    }
    let mut scan = Scanner::resume(text, paused);
    scan.text_ended();
    if !ended && !scan.feed(&mut tape) {
        scan.tape_rest(&mut tape);
    }
    tape.len()
}

/// A tape's events, each with its text, offset and completeness, as lines
/// to compare (for tests and the fuzz target `resume`).
pub(crate) fn events(tape: &Tape, text: &str) -> Vec<String> {
    let mut c = tape.cursor(text);
    let mut out = Vec::new();
    loop {
        match c.next() {
            Ok(ev) => {
                let t = match ev {
                    Event::Key(t) | Event::Str(t) => c.str(t).to_owned(),
                    Event::Num(n) => c.str(n.text).to_owned(),
                    _ => String::new(),
                };
                out.push(format!(
                    "{ev:?} {t:?} at {} complete {}",
                    c.offset(),
                    c.complete()
                ));
                if let Event::Eof = ev {
                    break;
                }
            }
            Err(e) => {
                out.push(format!("error {e}"));
                break;
            }
        }
    }
    out
}

/// For the fuzz target `resume`: whether `text`, fed in pieces ending at
/// `cuts`, tapes as its one-shot read does (events and repairs), and
/// each piece's view (what was fed, then its tail) tapes as the one-shot
/// read of the text so far: for cut values read as far as they go and
/// not, for a view of a reply still being written (`view`), and for
/// top-level values gathered into a list (`multi`). `Err` says where
/// they differ.
pub(crate) fn agrees_in_pieces(text: &str, cuts: &[usize]) -> Result<(), String> {
    let options = [
        (false, false, false),
        (true, false, false),
        (true, true, false),
        (true, true, true),
    ];
    for (partial, view, multi) in options {
        let opts = super::ScanOptions {
            max_depth: 128,
            multi,
            partial,
            view,
            rules: Rules::DEFAULT,
            #[cfg(test)]
            lane: true,
        };
        agrees_with(text, cuts, &opts)
            .map_err(|e| format!("partial {partial}, view {view}, multi {multi}: {e}"))?;
    }
    Ok(())
}

/// [`agrees_in_pieces`] with the scanner options `opts`.
pub(crate) fn agrees_with(
    text: &str,
    cuts: &[usize],
    opts: &super::ScanOptions,
) -> Result<(), String> {
    let whole = |text: &str| {
        let span = 0..text.len();
        let mut tape = Tape::new();
        let summary = Scanner::over(text, std::slice::from_ref(&span), opts).tape(&mut tape);
        let repairs: Vec<String> = summary.repairs.iter().map(|r| format!("{r:?}")).collect();
        (events(&tape, text), repairs)
    };
    // Where two reads differ: the first event (or repair) that does.
    let differ = |a: &[String], b: &[String]| {
        let k = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        format!("{:?} against {:?}", a.get(k), b.get(k))
    };
    let (tape, repairs) = fed_in_pieces(text, opts, cuts);
    let repairs: Vec<String> = repairs.iter().map(|r| format!("{r:?}")).collect();
    let (fed, (read, read_repairs)) = (events(&tape, text), whole(text));
    if fed != read {
        return Err(format!("fed in pieces: {}", differ(&fed, &read)));
    }
    if repairs != read_repairs {
        let at = differ(&repairs, &read_repairs);
        return Err(format!("fed in pieces, repairs: {at}"));
    }
    let mut paused = Scanner::over(&text[..0], std::slice::from_ref(&(0..0)), opts).pause();
    let mut tape = Tape::new();
    let mut ended = false;
    for &cut in cuts {
        let prefix = &text[..cut];
        let mut scan = Scanner::resume(prefix, paused);
        // (A read that ended has nothing more to read.)
        let back = match ended {
            true => None,
            false => scan.feed_and_tail(&mut tape),
        };
        ended |= back.is_none();
        let (seen, read) = (events(&tape, prefix), whole(prefix).0);
        if cut > 0 && seen != read {
            return Err(format!("the view at {cut}: {}", differ(&seen, &read)));
        }
        if let Some(back) = back {
            scan.untail(&mut tape, back);
        }
        paused = scan.pause();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::ScanOptions;

    fn one_shot(text: &str, opts: &ScanOptions) -> Vec<String> {
        let span = 0..text.len();
        let mut tape = Tape::new();
        Scanner::over(text, std::slice::from_ref(&span), opts).tape(&mut tape);
        events(&tape, text)
    }

    /// The repairs a one-shot read of `text` makes.
    fn repairs_whole(text: &str, opts: &ScanOptions) -> Vec<crate::report::Repair> {
        let span = 0..text.len();
        let mut tape = Tape::new();
        let summary = Scanner::over(text, std::slice::from_ref(&span), opts).tape(&mut tape);
        summary.repairs.iter().collect()
    }

    /// Fed in two pieces, split anywhere, a text tapes as it does read
    /// whole; and the tape of a prefix with its tail is the prefix's
    /// one-shot tape.
    fn same_in_pieces(text: &str, opts: &ScanOptions) {
        let whole = one_shot(text, opts);
        let repairs = repairs_whole(text, opts);
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &cut in &bounds {
            let (tape, made) = fed_in_pieces(text, opts, &[cut]);
            assert_eq!(events(&tape, text), whole, "{text:?} cut at {cut}");
            assert_eq!(made, repairs, "{text:?} cut at {cut}");
        }
        // Every byte its own push, and each prefix's view.
        if let Err(e) = agrees_with(text, &bounds, opts) {
            panic!("{text:?} byte by byte: {e}");
        }
    }

    /// `text` fed in pieces of a few sizes tapes as read whole (events and
    /// repairs).
    fn same_in_sized_pieces(text: &str, opts: &ScanOptions) {
        let whole = one_shot(text, opts);
        let repairs = repairs_whole(text, opts);
        for size in [1, 7, 16, 61, 1000] {
            let cuts: Vec<usize> = (1..text.len())
                .step_by(size)
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            let (tape, made) = fed_in_pieces(text, opts, &cuts);
            assert_eq!(events(&tape, text), whole, "pieces of {size}");
            assert_eq!(made, repairs, "pieces of {size}");
        }
    }

    const TEXTS: &[&str] = &[
        r#"{"a": 1, "b": [true, null, "x\"y"], "c": {"d": -2.5e3}}"#,
        "{'a': 'single', b: unquoted, \"c\": [1, 2,], // note\n d: True}",
        r#"{"msg": ""hi" she said", "n": 0x1F}"#,
        r#"[1, 2, 3"#,
        r#"{"a": "b}"#,
        "Here you go: {\"a\": 1}",
        r#"{"a": [1, 2}, "b": "he said "hi" to me"}"#,
        r#"{"k": 4,250, "w": 5 kg}"#,
        // A view closes the object the text ends in, marking its start
        // cut; taken back, the start was left marked so (found by the
        // fuzz target `resume`).
        "{\"C\":S\n  {\n",
        "{\"t\":) \0\0{\n",
    ];

    #[test]
    fn a_text_fed_in_pieces_tapes_as_read_whole() {
        for text in TEXTS {
            for partial in [false, true] {
                let opts = ScanOptions {
                    max_depth: 128,
                    multi: false,
                    partial,
                    view: false,
                    rules: Rules::DEFAULT,
                    lane: true,
                };
                same_in_pieces(text, &opts);
            }
        }
    }

    /// Long messy texts (past the horizon), fed in pieces of every few
    /// sizes: the events decided early are the one-shot read's.
    #[test]
    fn long_messy_texts_fed_in_pieces_tape_as_read_whole() {
        let mut texts = Vec::new();
        let mut single = String::from("{'items': [");
        let mut bare = String::from("{items: [");
        let mut mixed = String::from("Sure:\n```json\n[");
        for i in 0..400 {
            single.push_str(&format!("{{'id': {i}, 'name': 'item {i}', 'ok': True}}, "));
            bare.push_str(&format!(
                "{{id: {i}, name: \"it's {i}\", tags: [a, b,],}}, "
            ));
            mixed.push_str(&format!(
                "{{\"id\": {i}, note: 'say \"hi\" {i}', // c\n \"v\": [1, 2,], \"w\": {{'x': None}}, \"q\": \"he said \"hi\" to me\", \"kg\": 5 kg, \"n\": 4,250, \"m\": (1, 2)}},\n"
            ));
        }
        single.push_str("]}");
        bare.push_str("]}");
        mixed.push_str("]\n```\nDone.");
        texts.push(single);
        texts.push(bare);
        texts.push(mixed);
        // Prose in values, whose steps say how far they looked (see
        // `prose_in_values_is_held_back_a_token_at_a_time`).
        for unit in [
            r#"{"n": {i}, "text": "say "hi" {i}"}, "#,
            r#"{"n": {i}, "text": hello world {i}}, "#,
            "{n: {i}, text: hello world {i}, and more},\n",
            r#"{"n": {i}, "text": "a "b", c {i}"}, "#,
            r#"['say "hi" {i}', it's, "x"y", <|x|> "z"], "#,
        ] {
            let items: String = (0..300)
                .map(|i| unit.replace("{i}", &i.to_string()))
                .collect();
            texts.push(format!("[{items}{{}}]"));
        }
        for text in &texts {
            for partial in [false, true] {
                let opts = ScanOptions {
                    max_depth: 128,
                    multi: false,
                    partial,
                    view: false,
                    rules: Rules::DEFAULT,
                    lane: true,
                };
                same_in_sized_pieces(text, &opts);
            }
        }
    }

    /// Texts whose strings are long (past the horizon) and need care: raw
    /// newlines, escapes of every kind (some cut by a piece's end), other
    /// quote styles, brackets and commas inside, inner quotes, a closing
    /// quote missing before a closer.
    fn long_string_texts() -> Vec<String> {
        let mut code = String::from("{\"path\": \"a.rs\", \"code\": \"");
        let mut single = String::from("{'text': '");
        let mut inner = String::from("{\"q\": \"");
        let mut list = String::from("[\"");
        let mut escapes = String::from("{\"e\": \"");
        let mut braces = String::from("{\"a\": \"");
        for i in 0..250 {
            code.push_str(&format!(
                "fn f{i}() {{\n    let v = [1, 2];\\n\tprintln!(\\\"{{}}\\\", v[0]); // caf\\u00e9 \\ud83d\\ude00\n}},\n"
            ));
            single.push_str(&format!(
                "line {i} says \"hi\" {{x}}, [y], and \\'so\\' on,\n"
            ));
            inner.push_str(&format!("word {i}, more words and more words, "));
            if i % 110 == 109 {
                inner.push_str("he said \"hi\" to me, ");
            }
            list.push_str(&format!("item {i}, with }} and ] inside, "));
            escapes.push_str(&format!("\\x41\\0 \\d{i}\\\nnext \\u12G "));
            braces.push_str(&format!("x{i}}}\ny "));
        }
        code.push_str("\"}");
        single.push_str("'}");
        // The last quote closes the string only once the key after its
        // comma has its colon.
        inner.push_str("he said \"bye\", \"a_key_long_enough\": 1}");
        list.push_str("\", 'x']");
        escapes.push_str("\"}");
        braces.push_str("}, \"b\": 1}");
        vec![code, single, inner, list, escapes, braces]
    }

    /// Long strings fed in pieces: the tape is the one-shot read's, and so
    /// is the tape of each prefix with its tail (a parked string's read
    /// goes on where it stopped, with the repairs and text it had made).
    #[test]
    fn long_strings_fed_in_pieces_tape_as_read_whole() {
        for text in &long_string_texts() {
            for (partial, view) in [(false, false), (true, false), (true, true)] {
                let opts = ScanOptions {
                    max_depth: 128,
                    multi: false,
                    partial,
                    view,
                    rules: Rules::DEFAULT,
                    lane: true,
                };
                same_in_sized_pieces(text, &opts);
                // Each 13th prefix's view: what was fed, and its tail.
                let cuts: Vec<usize> = (1..text.len())
                    .step_by(13)
                    .filter(|&i| text.is_char_boundary(i))
                    .collect();
                if let Err(e) = agrees_with(text, &cuts, &opts) {
                    panic!("{partial} {view}: {e}");
                }
            }
        }
    }

    /// Texts the fuzz target `resume` found (minimized), each fed in the
    /// pieces it chose (its piece lengths, over and over).
    #[test]
    fn texts_the_fuzz_target_found_tape_as_read_whole() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz_found");
        // A string cut at the end, ended at a comma by the judgment of a
        // cut string (the text so far ending in a delimiter), was decided
        // once the horizon had arrived after it: that judgment rests on
        // where the text ends, however far that is.
        // A root of prose, whose step reads the rest of the text (`"  ,`
        // then words: the reading is refused whatever follows), was decided
        // by how far its string's look-aheads went, before the end of the
        // text it had read to.
        let found: [(&str, &[usize]); 4] = [
            ("resume_string_judged_at_end.txt", &[34, 100, 97]),
            ("resume_prose_root_read_to_end.txt", &[32, 32]),
            ("resume_prose_root_read_to_end_2.txt", &[10, 32, 32]),
            ("resume_prose_root_read_to_end_3.txt", &[34, 34, 0]),
        ];
        for (file, lens) in found {
            let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
            let mut cuts = Vec::new();
            let mut at = 0;
            for len in lens.iter().cycle().take(64) {
                at = (at + len).min(text.len());
                if at >= text.len() {
                    break;
                }
                cuts.push(at);
            }
            if let Err(e) = agrees_in_pieces(&text, &cuts) {
                panic!("{file}: {e}");
            }
        }
    }

    /// A stream's scanner options: cut values read as far as they go.
    fn partial_opts() -> ScanOptions {
        ScanOptions {
            max_depth: 128,
            multi: false,
            partial: true,
            view: false,
            rules: Rules::DEFAULT,
            lane: true,
        }
    }

    #[test]
    fn the_corpora_fed_in_pieces_tape_as_read_whole() {
        let opts = partial_opts();
        for input in crate::scan::corpus_inputs() {
            if input.len() <= 400 {
                same_in_pieces(&input, &opts);
            }
        }
    }

    /// What a scanner fed `text` in `chunk`-byte pieces does again: the
    /// bytes it holds back, summed over its feeds (what each next feed
    /// reads again), the bytes its string reads pass over (counted by
    /// `crate::work` in tests), and the number of feeds.
    fn held_back(text: &str, chunk: usize) -> (usize, u64, usize) {
        let opts = partial_opts();
        let mut paused = Scanner::over(&text[..0], std::slice::from_ref(&(0..0)), &opts).pause();
        let mut tape = Tape::new();
        let (mut held, mut feeds) = (0, 0);
        let work = crate::work::total();
        for cut in (chunk..text.len()).step_by(chunk) {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let mut scan = Scanner::resume(&text[..cut], paused);
            let ended = scan.feed(&mut tape);
            held += scan.rereads();
            feeds += 1;
            paused = scan.pause();
            if ended {
                break;
            }
        }
        (held, crate::work::total() - work, feeds)
    }

    /// `make(n)` and `make(8 * n)` fed in 16-byte pieces: past the first
    /// `n` bytes, each feed holds back at most `per_feed` bytes on average,
    /// and its string reads pass over at most `per_feed` more than the new
    /// bytes.
    #[track_caller]
    fn assert_holds_back_little(per_feed: usize, make: impl Fn(usize) -> String) {
        let (small, big) = (make(32 << 10), make(256 << 10));
        let ((h1, w1, f1), (h8, w8, f8)) = (held_back(&small, 16), held_back(&big, 16));
        let feeds = (f8 - f1).max(1);
        let average = (h8 - h1.min(h8)) / feeds;
        assert!(
            average <= per_feed,
            "held back {h1} in {f1} feeds at n, {h8} in {f8} at 8n: {average} a feed past n"
        );
        let read = (w8 - w1.min(w8)) as usize / feeds;
        assert!(
            read <= 16 + per_feed,
            "strings read over {w1} bytes in {f1} feeds at n, {w8} in {f8} at 8n: {read} a feed past n"
        );
    }

    /// Valid JSON of short tokens (a list of small objects): a feed holds
    /// back little more than the token cut at the end. (It held back the
    /// whole horizon, 4 KiB a feed, while an object's first key, held back
    /// by the step that read its `{`, waited for the horizon, and a closer
    /// at the end of the text was taken by the fast lane before the byte
    /// after it, which its step reads, had arrived.)
    #[test]
    fn valid_json_is_held_back_a_token_at_a_time() {
        assert_holds_back_little(32, |n| {
            let mut s = String::from("[");
            while s.len() < n {
                s.push_str(r#"{"n": 1, "text": "a step", "tags": ["x", "y"]}, "#);
            }
            s + "{}]"
        });
    }

    /// `unit`, a member of a list, repeated to about `n` bytes.
    fn list_of(unit: &str, n: usize) -> String {
        format!("[{}{{}}]", unit.repeat(n / unit.len()))
    }

    /// The repairs models need most, each step saying how far it looked:
    /// a feed holds back a token at a time, not the horizon. (A single-
    /// quoted or bare first key held back by its object's start, whose
    /// `{` the fast lane had passed; a Python literal before a delimiter.
    /// Each held back 4 KiB a feed.) And a text shorter than the horizon:
    /// the root's `[` says it looked at nothing more (it waited for 4 KiB,
    /// holding back 446 bytes a feed of a 2 KiB reply).
    #[test]
    fn repaired_json_is_held_back_a_token_at_a_time() {
        let units = [
            "{'n': 1, 'text': 'a step', 'tags': ['x', 'y']}, ",
            r#"{n: 1, text: "a step", tags: ["x", "y"]}, "#,
            r#"{"n": 1, "ok": True, "v": None, "w": False}, "#,
            "{\"n\": 1, // a note\n \"v\": [1, 2,],}, ",
        ];
        for unit in units {
            assert_holds_back_little(32, |n| list_of(unit, n));
        }
        let short = list_of(units[0], 2048);
        let (held, _, feeds) = held_back(&short, 16);
        assert!(held / feeds <= 32, "{held} held back in {feeds} feeds");
    }

    /// Prose in values: where an inner quote (`"say "hi" now"`) or a bare
    /// value (`text: hello world`) ends is judged by look-aheads over prose
    /// (`closes`, `unquoted`), which say how far they looked: a feed holds
    /// back a token at a time. (They held back the horizon, 4 KiB a feed.)
    #[test]
    fn prose_in_values_is_held_back_a_token_at_a_time() {
        assert_holds_back_little(32, |n| list_of(r#"{"n": 1, "text": "say "hi" now"}, "#, n));
        assert_holds_back_little(32, |n| list_of("{\"n\": 1, \"text\": hello world}, ", n));
        assert_holds_back_little(32, |n| list_of("{n: 1, text: hello world},\n", n));
        assert_holds_back_little(32, |n| list_of("{\"n\": 1, \"text\": \"a \"b\", c\"}, ", n));
        assert_holds_back_little(32, |n| list_of("['say \"hi\"', it's, \"x\"y\"], ", n));
    }

    /// A long string: the read of a string cut at the end of the text goes
    /// on where it stopped (it was read again from its quote on every
    /// feed, and the judgment of a cut string ending in a delimiter read
    /// all of it too: a 160 KB string in 16-byte pieces took 805 ms, 66
    /// times the 20 KB one). Plain, with commas; code (raw newlines,
    /// escapes, brackets); single-quoted; in a list, with closers inside.
    #[test]
    fn a_long_string_is_held_back_a_token_at_a_time() {
        assert_holds_back_little(32, |n| format!("{{\"a\": \"{}\"}}", "word, ".repeat(n / 6)));
        let line =
            "fn f() {\n    let v = [1, 2];\\n\tprintln!(\\\"{}\\\", v[0]); // caf\\u00e9\n},\n";
        assert_holds_back_little(32, |n| {
            format!("{{\"code\": \"{}\"}}", line.repeat(n / line.len()))
        });
        let escaped = r#"fn f() {\n    println!(\"{}\", v[0]);\n}\n"#;
        assert_holds_back_little(32, |n| {
            format!("{{\"code\": \"{}\"}}", escaped.repeat(n / escaped.len()))
        });
        assert_holds_back_little(32, |n| {
            format!("{{'t': '{}'}}", "says \"hi\" {x}, [y],\n".repeat(n / 22))
        });
        assert_holds_back_little(32, |n| {
            format!("[\"{}\"]", "item, with } and ] inside, ".repeat(n / 27))
        });
        // A long escaped string, then short tokens: each feed's snapshot
        // copied the string's text, still in the scratch buffer (600 KB
        // in 16-byte pieces took 121 ms, 36 times 75 KB).
        assert_holds_back_little(32, |n| {
            let escaped = "line\\n".repeat(n / 12);
            format!(
                "{{\"a\": \"{escaped}\", \"b\": [{}\"x\"]}}",
                "\"x\", ".repeat(n / 10)
            )
        });
    }
}
