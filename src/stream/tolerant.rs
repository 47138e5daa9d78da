//! The tolerant scanner beside the live reader: where the live reader
//! meets a repair it does not make (an inner quote, a bare value), the
//! engine's scanner, resumed on every push (each byte read once over the
//! stream), says where the container around it ends.
//!
//! The live path then reads that container whole while it is open (its
//! text so far, as a part: what a decode of the text so far shows of it)
//! and the live reader goes on after its closer. A closer is taken where a
//! read of the text so far puts it (the scanner's tail), as a decode of
//! that text does. Until later text decides it, every push checks that a
//! read of the text so far still reads the container so, closer and
//! content (a quote's verdict may rest on what follows the closer:
//! `"end""}, {"`): where it does not, the live path ends, and the stream
//! reads the whole text from then on, as it did before this module.
//!
//! A member around it that the typed view shows only complete (a field not
//! marked partial) is read once it closes; its events are kept for that
//! read (see [`Tolerant::keep`]), and its closer checked as the
//! container's is.

use crate::report::RepairKind;
use crate::scan::resume::Paused;
use crate::scan::tape::{Step, Tape, Walked, Walking};
use crate::scan::Scanner;
use crate::Decoder;

/// A container taken as read before later text decided it.
#[derive(Clone, Copy, Debug)]
struct Taken {
    /// Where it opens, and where its closer ends.
    at: usize,
    end: usize,
    /// Its events' signature (see [`Sums`]).
    sig: u64,
}

/// The events walked so far, summed: each event's signature mixed with its
/// place in the read, added up. A container's signature is the sum after
/// its closer less the sum before its opener: equal for two readings only
/// if they read the same events there, after as many before.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    sum: u64,
    count: u64,
}

impl Sums {
    fn add(&mut self, w: &Walking) {
        let mixed = (w.sig ^ self.count.wrapping_mul(0xD6E8_FEB8_6659_FD93))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(31);
        self.sum = self.sum.wrapping_add(mixed);
        self.count += 1;
    }
}

/// Where a container's closer ends in a read of the text so far, whether
/// later text can no longer change that, and its events' signature.
type Found = (usize, bool, u64);

/// The scanner and its tape, beside a live read.
#[derive(Debug)]
pub(super) struct Tolerant {
    /// `None` once the read ended (the value closed, or failed).
    paused: Option<Paused>,
    /// The events decided so far.
    tape: Tape,
    /// How far the decided events were walked, and their sums.
    walked: Walked,
    sums: Sums,
    /// Each container open in the decided events: where it opened, the
    /// sum before its opener, and where the walk was then.
    open: Vec<(usize, u64, Walked)>,
    /// The container whose end the live path waits for: where it opened.
    watch: Option<usize>,
    /// Its end, once a read of the text so far closes it: whether later
    /// text can no longer change it, and its signature.
    found: Option<Found>,
    /// The watched container's events, at offsets from where it opens:
    /// its part is read from them (a read of its text alone may read its
    /// repairs otherwise, `"end""}` then `, {"`).
    events: Tape,
    /// A container around the watched ones whose events are kept for its
    /// close (a node the typed view does not show while it is open, read
    /// whole once it closes): where it opens, and its end as for `found`.
    keep: Option<(usize, Option<Found>)>,
    /// Its events, as for `events`.
    kept: Tape,
    /// Its end is asked for now (see [`take_kept`](Self::take_kept)).
    asking: bool,
    /// Containers taken before their closer was decided.
    taken: Vec<Taken>,
    /// How many of the scanner's repairs were looked at (those decided).
    repairs: usize,
    /// A container taken was read otherwise since, or one closed by no
    /// closer of its own, or a repair made structure out of prose: the live
    /// path ends.
    lost: bool,
}

impl Tolerant {
    /// A scanner for the value that opens at `start` in `text`, reading
    /// as `decoder`'s views do (nothing read yet).
    pub(super) fn new(text: &str, start: usize, decoder: &Decoder) -> Tolerant {
        let opts = decoder.viewing().opts.scan(false, true);
        let span = start..start;
        let paused = Scanner::over(&text[..start], std::slice::from_ref(&span), &opts).pause();
        Tolerant {
            paused: Some(paused),
            tape: Tape::new(),
            walked: Walked::default(),
            sums: Sums::default(),
            open: Vec::new(),
            watch: None,
            found: None,
            events: Tape::new(),
            keep: None,
            kept: Tape::new(),
            asking: false,
            taken: Vec::new(),
            repairs: 0,
            lost: false,
        }
    }

    /// From here on, the end of the container that opened at `at` is
    /// asked for (see [`end`](Self::end)).
    pub(super) fn watch(&mut self, at: usize) {
        self.watch = Some(at);
        self.found = None;
    }

    /// The watched container is taken as [`end`](Self::end) found it: if
    /// its closer is not decided yet, later pushes check it. Whether it is
    /// decided.
    pub(super) fn take(&mut self) -> bool {
        let mut decided = true;
        if let (Some(at), Some((end, false, sig))) = (self.watch, self.found) {
            self.taken.push(Taken { at, end, sig });
            decided = false;
        }
        self.watch = None;
        self.found = None;
        decided
    }

    /// Whether every container taken has its closer decided (none may yet
    /// be read otherwise).
    pub(super) fn settled(&self) -> bool {
        self.taken.is_empty()
    }

    /// From here on, the events of the container that opened at `at` are
    /// kept for its close (see [`take_kept`](Self::take_kept)); `false` if
    /// another one's are.
    pub(super) fn keep(&mut self, at: usize) -> bool {
        match self.keep {
            None => {
                self.keep = Some((at, None));
                true
            }
            Some((kept, _)) => kept == at,
        }
    }

    /// Where the container whose events are kept opens, if any.
    pub(super) fn kept_at(&self) -> Option<usize> {
        self.keep.map(|(at, _)| at)
    }

    /// The container whose events are kept closed at `end` for the live
    /// reader: `true` if a read of the text so far closes it there too, its
    /// events then the [`events`](Self::events) (if its closer is not
    /// decided yet, later pushes check it, as for [`take`](Self::take)).
    pub(super) fn take_kept(&mut self, text: &str, end: usize) -> bool {
        self.asking = true;
        let read = self.end(text);
        self.asking = false;
        let Some((at, found)) = self.keep.take() else {
            return false;
        };
        match (read, found) {
            (Ok(_), Some((e, decided, sig))) if e == end => {
                std::mem::swap(&mut self.events, &mut self.kept);
                if !decided {
                    self.taken.push(Taken { at, end, sig });
                }
                true
            }
            _ => false,
        }
    }

    /// The watched container's events as the last [`end`](Self::end)
    /// read them: complete once it found the closer, else cut where the
    /// text ends.
    pub(super) fn events(&self) -> &Tape {
        &self.events
    }

    /// Whether there is nothing to check: no container watched, and none
    /// taken whose closer is not decided yet (the scanner need not read on
    /// until the next is).
    pub(super) fn idle(&self) -> bool {
        self.watch.is_none() && self.taken.is_empty()
    }

    /// Reads the text that arrived; `Err` if a container taken is read
    /// otherwise now (or the read went where the live path cannot follow).
    /// Then, with a container watched: where it ends (just after its
    /// closer) in a read of the text so far, or `None` while it runs into
    /// the text's end.
    pub(super) fn end(&mut self, text: &str) -> Result<Option<usize>, ()> {
        let Some(paused) = self.paused.take() else {
            // The read ended: what is left of its events is walked.
            if self.walk(text) && !self.taken.is_empty() {
                self.lost = true;
            }
            return self.verdict();
        };
        if self.watch.is_some() {
            self.events.clear();
        }
        // A decode reads its candidate's span trimmed of the spaces at its
        // end (Unicode's, `text::trim_span`): so is the text so far read
        // here (a space after a closer or a cut string is no byte after it
        // yet, though it is seen).
        let to = text.trim_end().len();
        let mut scan = Scanner::resume(text, paused).ending_at(to);
        let ended = scan.feed(&mut self.tape);
        let all = self.walk(text);
        self.prose(text, &scan, true);
        let waits = (self.watch.is_some() && self.found.is_none()) || self.kept_waits();
        if !ended && !self.lost && (waits || !self.taken.is_empty()) {
            // Not decided yet: the rest of the text read as if it ended
            // there, then taken back.
            let back = scan.tail(&mut self.tape);
            // (How many closers the tail put back where the text ends: the
            // last closers it writes.)
            let at_end = scan
                .repairs_since(self.repairs)
                .filter(|r| r.kind == RepairKind::MissingCloser && r.offset >= to)
                .count();
            self.walk_tail(text, at_end);
            self.prose(text, &scan, false);
            scan.untail(&mut self.tape, back);
        }
        if !ended {
            self.paused = Some(scan.pause());
        } else if all && !self.taken.is_empty() {
            // (The read ended with a container taken still open.)
            self.lost = true;
        }
        self.verdict()
    }

    /// Whether the repairs the scanner made since those looked at make
    /// structure out of prose (`{name}`, a word skipped): a decode ranks a
    /// reading with such a repair below any other candidate without (see
    /// `choose::rank`), so the value may not be the one a decode gives.
    /// `decided`: those repairs are decided (not the tail's), and are not
    /// looked at again.
    fn prose(&mut self, text: &str, scan: &Scanner<'_>, decided: bool) {
        self.lost |= crate::choose::prose_words(text, scan.repairs_since(self.repairs)) > 0;
        if decided {
            self.repairs = scan.repair_count();
        }
    }

    /// Whether the kept container's end is asked for and not found yet.
    fn kept_waits(&self) -> bool {
        self.asking && matches!(self.keep, Some((_, None)))
    }

    /// What [`end`](Self::end) gives, as things stand.
    fn verdict(&self) -> Result<Option<usize>, ()> {
        match self.lost {
            true => Err(()),
            false => Ok(self.found.map(|(end, ..)| end)),
        }
    }

    /// Walks the events decided since the last walk: checks the containers
    /// taken that they close, and finds the watched one's closer. The walk
    /// stops there (a container watched next may close after it, and is
    /// found by the next walk); whether it walked all.
    fn walk(&mut self, text: &str) -> bool {
        let b = text.as_bytes();
        let Tolerant {
            tape,
            walked,
            sums,
            open,
            watch,
            found,
            keep,
            taken,
            lost,
            ..
        } = self;
        let mut place = *walked;
        // (The watched container's opener, and the kept one's.)
        let mut copy = [None, None];
        let mut all = true;
        tape.containers(text, walked, |w| {
            let before = sums.sum;
            sums.add(&w);
            let at = place;
            place = w.next;
            match w.step {
                Step::Open => open.push((w.offset, before, at)),
                Step::Close(array) => {
                    let Some((opened, from, opened_at)) = open.pop() else {
                        *lost = true;
                        return false;
                    };
                    let end = closer_end(b, w.offset, array);
                    let sig = sums.sum.wrapping_sub(from);
                    if let Some(i) = taken.iter().position(|t| t.at == opened) {
                        let t = taken.swap_remove(i);
                        *lost |= end != Some(t.end) || sig != t.sig;
                    } else if *watch == Some(opened) {
                        match end {
                            Some(end) => {
                                *found = Some((end, true, sig));
                                copy[0] = Some((opened, opened_at));
                                all = false;
                            }
                            None => *lost = true,
                        }
                    } else if let Some((_, found)) = keep.as_mut().filter(|k| k.0 == opened) {
                        match end {
                            Some(end) => {
                                *found = Some((end, true, sig));
                                copy[1] = Some((opened, opened_at));
                            }
                            None => *lost = true,
                        }
                    }
                }
                Step::Fail => *lost = true,
                Step::Other => {}
            }
            all && !*lost
        });
        for (i, c) in copy.into_iter().enumerate() {
            if let Some((at, from)) = c {
                self.copy(text, at, from, i == 1);
            }
        }
        all
    }

    /// Copies the events of the container that opens at `at` (its opener
    /// walked from `from`) into [`events`](Self::events), or the kept
    /// container's (`kept`).
    fn copy(&mut self, text: &str, at: usize, from: Walked, kept: bool) {
        let into = match kept {
            true => &mut self.kept,
            false => &mut self.events,
        };
        into.clear();
        let mut c = self.tape.cursor_at(text, from);
        if !into.copy_container(&mut c, at) {
            self.lost = true;
        }
        crate::work::add(into.len());
    }

    /// Walks the tail (what a read of the text so far has after the events
    /// decided): finds the watched container's closer, if it has one, and
    /// checks that each container taken closes as it did. `at_end`: how
    /// many of its last closers were put back where the text ends (the
    /// containers that run into it).
    fn walk_tail(&mut self, text: &str, at_end: usize) {
        let b = text.as_bytes();
        let (mut walked, mut sums) = (self.walked, self.sums);
        // Containers the tail opens, and how many of the decided ones it
        // closes.
        let (mut open, mut closed) = (Vec::new(), 0);
        let mut checked = 0;
        let mut waits = self.watch.is_some() && self.found.is_none();
        let mut kept_waits = self.kept_waits();
        let (mut found, mut kept_found, mut lost) = (None, None, false);
        let mut copy = [None, None];
        let mut place = walked;
        let Tolerant {
            tape,
            open: decided,
            watch,
            keep,
            taken,
            ..
        } = &*self;
        let mut events = 0;
        // The watched container's closer was put back, and how many closers
        // came after it: it runs into the text's end only if they are all
        // put back there too (a closer put back before it, where a
        // mismatched one closes several, `[1, "a"}`, is a reading the live
        // path cannot follow).
        let mut put_back: Option<usize> = None;
        tape.containers(text, &mut walked, |w| {
            let before = sums.sum;
            sums.add(&w);
            events += 1;
            let at = place;
            place = w.next;
            if let Some(after) = &mut put_back {
                match w.step {
                    Step::Close(_) => *after += 1,
                    Step::Other => {}
                    Step::Open | Step::Fail => lost = true,
                }
                return !lost;
            }
            match w.step {
                Step::Open => open.push((w.offset, before, at)),
                Step::Close(array) => {
                    let opened = open.pop().or_else(|| {
                        closed += 1;
                        decided.len().checked_sub(closed).map(|i| decided[i])
                    });
                    let Some((opened, from, opened_at)) = opened else {
                        return true;
                    };
                    let sig = sums.sum.wrapping_sub(from);
                    // (A closer put back where the text ends: the container
                    // runs into it. One put back before: the live path
                    // cannot follow.)
                    let end = (!w.cut).then(|| closer_end(b, w.offset, array)).flatten();
                    if let Some(t) = taken.iter().find(|t| t.at == opened) {
                        lost |= end != Some(t.end) || sig != t.sig;
                        checked += 1;
                    } else if waits && *watch == Some(opened) {
                        waits = false;
                        copy[0] = Some((opened, opened_at));
                        match (end, w.cut) {
                            (Some(end), _) => found = Some((end, false, sig)),
                            // Cut: its events so far are its part (if it
                            // runs into the text's end: see `put_back`).
                            (None, true) => put_back = Some(0),
                            (None, false) => lost = true,
                        }
                    } else if kept_waits && keep.is_some_and(|k| k.0 == opened) {
                        // (Asked for once it closed: a cut one is not
                        // where the live reader closed it.)
                        kept_waits = false;
                        copy[1] = Some((opened, opened_at));
                        kept_found = end.map(|end| (end, false, sig));
                    }
                }
                Step::Fail => lost = true,
                Step::Other => {}
            }
            !lost && (waits || kept_waits || checked < taken.len() || put_back.is_some())
        });
        crate::work::add(events);
        lost |= put_back.is_some_and(|after| after >= at_end);
        // (A container taken that the tail no longer closes is read
        // otherwise.)
        self.lost |= lost || checked < self.taken.len();
        if found.is_some() {
            self.found = found;
        }
        if let (Some(k), Some(_)) = (&mut self.keep, kept_found) {
            k.1 = kept_found;
        }
        for (i, c) in copy.into_iter().enumerate() {
            if let (Some((at, from)), false) = (c, self.lost) {
                self.copy(text, at, from, i == 1);
            }
        }
    }
}

/// Where a closer written at `at` ends, if the reply's own byte there is
/// one of its kind (not a closer the scanner put back).
fn closer_end(b: &[u8], at: usize, array: bool) -> Option<usize> {
    let want = if array { b']' } else { b'}' };
    (b.get(at) == Some(&want)).then_some(at + 1)
}
