//! Strings: quoted (in any quote style, with repairs) and unquoted.
//!
//! The hard question is where a string ends. A quote ends it only when what
//! follows fits the place the string is in (a `:` after a key, a `,` or `}`
//! after an object value, ...); otherwise it is an inner quote the model forgot
//! to escape. In valid JSON the first quote always fits, so the judgement costs
//! one look at the next significant byte.

use super::lex::{
    byte_table, closing_quote_at, is_word, is_ws, key_cut_at_end_reach, key_then_colon,
    key_then_colon_reach, next_significant, quote_at, short_escape, simple_string_end_reach,
    skip_ws, trim_back, wide_sep, ws_reach, Quote,
};
use super::{Ctx, Frame, Scanner, Text, Where};
use crate::error::Result;
use crate::report::{RepairKind, Repairs};

/// Where the scan of a quoted string stops early, chosen by a first pass.
#[derive(Clone, Copy)]
struct Limit {
    /// The string's content ends here.
    at: usize,
    /// Where scanning resumes (after a closing quote, or at the delimiter
    /// where a missing closing quote belonged).
    resume: usize,
    /// The string ran into the end of the input and was ended at a
    /// delimiter that closes nothing (`["1,`, `"a": "[1, 2]`), or at a
    /// closer with only closers after it (`{"a": "b}`): the reply was cut
    /// off inside it, for all we know.
    at_end: bool,
}

enum Scan<'de> {
    /// The string, or `None` for an empty string cut off at the end.
    Done(Option<Text<'de>>),
    /// Scan again, stopping at this limit.
    Again(Limit),
}

/// What is known about a quote being judged.
pub(super) struct Judge {
    /// Where the quote is.
    quote: usize,
    /// Whether an earlier quote in this string was judged an inner quote.
    inner_seen: bool,
    /// Brackets counted in the content so far (only when a rule needs them).
    balance: Balance,
    /// The verdict rests on the text ending where it does (a comma with
    /// nothing after it yet, where only the next key would say): a view
    /// takes the string as cut.
    by_end: bool,
}

/// Counts brackets in a string's content incrementally, so judging many
/// quotes in one string stays linear.
#[derive(Clone, Copy, Debug, Default)]
struct Balance {
    pos: usize,
    /// How many more `{` and `[` than `}` and `]`.
    depth: i32,
    /// How many more `[` than `]`.
    brackets: i32,
}

impl Balance {
    fn new(start: usize) -> Balance {
        Balance {
            pos: start,
            depth: 0,
            brackets: 0,
        }
    }

    fn advance(&mut self, b: &[u8], to: usize) {
        if to <= self.pos {
            return;
        }
        for &c in &b[self.pos..to] {
            match c {
                b'{' => self.depth += 1,
                b'}' => self.depth -= 1,
                b'[' => {
                    self.depth += 1;
                    self.brackets += 1;
                }
                b']' => {
                    self.depth -= 1;
                    self.brackets -= 1;
                }
                _ => {}
            }
        }
        self.pos = to;
    }
}

/// A quoted string's read that the end of the text stopped, kept by a
/// scanner that will read on (see `resume.rs`): when its step is read
/// again with more text, the read goes on from [`Spot`] instead of from the
/// quote, so a long string cut at the end is not read again on every push.
///
/// The repairs its content made up to there travel with it (a read that
/// may be parked records them apart from the scanner's own, which wait
/// aside until it ends: see `leave`; so the step's restore does not take
/// them back), and so does its text so far when it had to be copied (lent
/// to the scanner while the event that returned it is in use: the restore
/// of the step gives it back).
#[derive(Debug, Default)]
pub(crate) struct Parked {
    /// The string's opening quote and the place it is read in: the read
    /// goes on only for the same string.
    open: usize,
    w: Option<Where>,
    /// The end of the text when it was parked: a shorter text (another
    /// span) does not go on from it.
    end: usize,
    at: Spot,
    scratch: String,
    lent: bool,
    repairs: Repairs,
    /// The bytes from the spot up to here are plain content (see
    /// [`runs_to_end`](Self::runs_to_end)).
    plain_to: usize,
}

impl Parked {
    /// Whether the string still runs into the end of `text`: every byte
    /// since its spot plain content (each looked at once, however many
    /// feeds that takes). Its step would meet the end again, as it did,
    /// and wait for more text: it need not be read. The spot moves on as
    /// the read would move it.
    pub(super) fn runs_to_end(&mut self, text: &str) -> bool {
        let (b, end) = (text.as_bytes(), text.len());
        // (A string opened by `\"`, escaped JSON, is read by its step.)
        let Some((q, _)) = quote_at(b, self.open, end) else {
            return false;
        };
        let from = self.at.i.max(self.plain_to);
        if from < end {
            self.plain_to = plain_run(b, from, end, q);
        }
        if self.plain_to < end {
            return false;
        }
        // Settled (see `quoted_once`), the spot goes on to the end of the
        // run, before the delimiters and spaces that end the text (where
        // the cut judgment may end the string), its text so far with it.
        let at = &mut self.at;
        if settled_at(at.i, at.last_inner, end) {
            let rest = rest_of_text(b, at.i, end);
            if at.owned {
                debug_assert!(!self.lent && self.scratch.len() == at.scratch_len);
                self.scratch.push_str(&text[at.seg..rest]);
                at.seg = rest;
                at.scratch_len = self.scratch.len();
            }
            at.i = rest;
            self.end = end;
        }
        true
    }

    /// Where the next read of the string starts reading bytes.
    #[cfg(test)]
    pub(super) fn reads_from(&self) -> usize {
        self.at.i
    }

    pub(super) fn open(&self) -> usize {
        self.open
    }

    /// Takes back the text so far lent with the event that returned it.
    pub(super) fn take_back(&mut self, scratch: &mut String) {
        if self.lent {
            self.scratch = std::mem::take(scratch);
            debug_assert!(self.scratch.len() >= self.at.scratch_len);
            self.scratch.truncate(self.at.scratch_len);
            self.lent = false;
        }
    }
}

/// The state of a quoted string's read at the start of a pass of its loop
/// that no later text can change: every byte before it decided (an escape
/// whole, a quote judged with all its look-ahead arrived).
#[derive(Clone, Copy, Debug, Default)]
struct Spot {
    i: usize,
    seg: usize,
    start: usize,
    owned: bool,
    raw_newline: bool,
    last_inner: Option<(usize, usize)>,
    balance: Balance,
    /// The brackets the cut judgment counted (see `unterminated`).
    count: Balance,
    /// The text so far's length in the scratch buffer, when owned.
    scratch_len: usize,
    /// How many content repairs were made before it.
    repairs: usize,
}

/// Bytes that end the plain run inside a string, per quote style.
static STOP_SINGLE: [bool; 256] = byte_table(b"\\'", true);
static STOP_LIKE: [bool; 256] = byte_table(b"\\\"'`\xC2\xE2", true);

/// The end of the run of bytes from `i` that need no attention inside a
/// string in quote style `q`. For `"` it looks at eight bytes at a time.
/// (Inlined in the string loop: a call per run costs about 4% of a
/// single-quoted reply's decode.)
#[inline(always)]
fn plain_run(b: &[u8], mut i: usize, stop: usize, q: Quote) -> usize {
    let table = match q {
        Quote::Double => return super::lex::plain_json_run(b, i, stop),
        Quote::Single => &STOP_SINGLE,
        Quote::DoubleLike | Quote::SingleLike => &STOP_LIKE,
    };
    while i < stop && !table[usize::from(b[i])] {
        i += 1;
    }
    i
}

/// How far past its end an escape's read may look: a high surrogate's
/// `\uD83D` looks for the low half's six bytes after it (`\x4`, `\u12`
/// look at the hex digits that would make them escapes).
const ESCAPE_REACH: usize = 7;

/// Whether a string's read at `i`, the last inner quote met at
/// `last_inner`, is settled for a text that ends at `end`: the bytes an
/// escape before it looked at past its end all in, and the last inner
/// quote's judgment with all its look-ahead in (see [`Spot`]).
fn settled_at(i: usize, last_inner: Option<(usize, usize)>, end: usize) -> bool {
    i + ESCAPE_REACH <= end
        && last_inner.is_none_or(|(q, _)| q.saturating_add(super::resume::HORIZON) <= end)
}

/// How far a look-ahead over prose may go before giving up.
const LOOKAHEAD: usize = 1024;

impl<'de> Scanner<'de> {
    /// Scans a quoted string whose opening quote is at `self.pos`. `None` is
    /// an empty string cut off at the end (nothing was written yet).
    pub(super) fn quoted(&mut self, w: Where) -> Result<Option<Text<'de>>> {
        let open = self.pos;
        let b = self.b;
        if b[open] == b'"' && self.parked.as_ref().is_none_or(|p| p.open != open) {
            // The common case: plain content, a closing quote, and right after
            // it the delimiter this place expects.
            let i = plain_run(b, open + 1, self.end, Quote::Double);
            #[cfg(test)]
            crate::work::add(i - open);
            if i + 1 < self.end && b[i] == b'"' && i > open + 1 {
                let fits = match w.ctx {
                    Ctx::Key => b[i + 1] == b':',
                    Ctx::Object => matches!(b[i + 1], b',' | b'}'),
                    Ctx::Array => matches!(b[i + 1], b',' | b']'),
                    Ctx::Root => false,
                };
                if fits {
                    self.pos = i + 1;
                    self.follow = i + 1;
                    self.plain = true;
                    return Ok(Some(Text::Borrowed(&self.text[open + 1..i])));
                }
            }
        }
        let (repairs, truncated) = (self.repairs.len(), self.truncated);
        self.follow = usize::MAX;
        let text = match self.quoted_scan(w, None) {
            Scan::Done(t) => t,
            Scan::Again(limit) => {
                // What the first scan met at the end of the text (an escape
                // cut there, `'s'tags \`) is no longer in the string: the
                // reading is cut only if what follows it is.
                self.pos = open;
                self.truncated = truncated;
                self.repairs.truncate(repairs);
                self.follow = usize::MAX;
                match self.quoted_scan(w, Some(limit)) {
                    Scan::Done(t) => t,
                    Scan::Again(_) => unreachable!("a limited scan always finishes"),
                }
            }
        };
        if self.follow == usize::MAX {
            self.follow = next_significant(self.b, self.pos, self.end);
            self.saw(ws_reach(self.b, self.follow, self.end));
        }
        Ok(text)
    }

    /// [`quoted_once`](Self::quoted_once), parking a string the end of
    /// the text stops when the text goes on (compiled apart, so that a read
    /// of a whole reply pays nothing for it).
    #[inline(always)]
    fn quoted_scan(&mut self, w: Where, limit: Option<Limit>) -> Scan<'de> {
        match self.open_end {
            true => self.quoted_once::<true>(w, limit),
            false => self.quoted_once::<false>(w, limit),
        }
    }

    fn quoted_once<const PARK: bool>(&mut self, w: Where, limit: Option<Limit>) -> Scan<'de> {
        let b = self.b;
        let end = self.end;
        let open = self.pos;
        // `\"` opens a string in JSON that was escaped once too often.
        let escaped = b[open] == b'\\';
        let (q, qlen) = if escaped {
            self.record(RepairKind::EscapedJson, open);
            (Quote::Double, 2)
        } else {
            quote_at(b, open, end).expect("caller checked for a quote")
        };
        if !escaped
            && w.ctx != Ctx::Key
            && matches!(q, Quote::Double | Quote::Single)
            && open + 2 < end
            && b[open + 1] == b[open]
            && b[open + 2] == b[open]
        {
            // (Its looks are not said.)
            self.saw_if::<PARK>(usize::MAX);
            return Scan::Done(Some(self.triple_quoted(open)));
        }
        if q != Quote::Double {
            self.record(RepairKind::Quotes, open);
        }
        let start = open + qlen;
        let stop = limit.map_or(end, |l| l.at);

        // `""`: the empty string, or text in doubled quotes (`""text""`).
        let mut doubled = false;
        let mut doubled_mark = usize::MAX;
        if !escaped && start < end && closing_quote_at(q, b, start, end) == Some(1) {
            let after = start + 1;
            let n = next_significant(b, after, end);
            self.saw_if::<PARK>(ws_reach(b, n, end));
            if n < end && (is_word(b[after]) || (n > after && is_word(b[n]))) {
                doubled = true;
                self.record(RepairKind::DoubledQuotes, open);
                doubled_mark = self.repairs.len();
            } else {
                // In a view, `""` ending the text may open `""text""`.
                if self.view
                    && n >= end
                    && matches!(w.ctx, Ctx::Object | Ctx::Array)
                    && self.ends_text(end)
                {
                    self.complete = false;
                }
                self.pos = after;
                return Scan::Done(Some(Text::Borrowed("")));
            }
        }
        let mut start = start + doubled as usize;

        let mut i = start;
        let mut seg = start;
        let mut owned = false;
        let mut raw_newline = false;
        let mut last_inner: Option<(usize, usize)> = None;
        let mut json_inside: Option<bool> = None;
        let mut balance = Some(Balance::new(start));
        let mut count = Balance::new(start);
        // A scanner that will read on parks a string the end of the text
        // stops (see `Parked`), and goes on from where it parked it.
        let parking = PARK && !doubled;
        let mut spot: Option<Spot> = None;
        // While parking, the scanner's repairs are the content's, and its
        // own wait here (see `leave`).
        let mut outer: Option<Repairs> = None;
        let mut parked = match self.parked.is_some() {
            true => self.parked.take(),
            false => None,
        };
        if let Some(p) = parked.as_deref_mut().filter(|p| {
            p.open == open
                && p.w == Some(w)
                && p.end <= end
                && !doubled
                && limit.is_none_or(|l| l.at >= p.at.i)
        }) {
            debug_assert!(!p.lent, "taken back by the step's restore");
            let at = p.at;
            (i, seg, start, owned, raw_newline) =
                (at.i, at.seg, at.start, at.owned, at.raw_newline);
            (last_inner, balance, count) = (at.last_inner, Some(at.balance), at.count);
            if owned {
                self.scratch = std::mem::take(&mut p.scratch);
            }
            let repairs = std::mem::take(&mut p.repairs);
            if parking {
                outer = Some(std::mem::replace(&mut self.repairs, repairs));
            } else {
                self.repairs.append(&repairs);
            }
            spot = Some(at);
        } else if parking {
            outer = Some(std::mem::take(&mut self.repairs));
        }
        loop {
            // Where a read that stops at the end of the text goes on from
            // later: a pass's start that no later byte can change (the
            // bytes an escape before it looked at past its end all in, the
            // last inner quote judged with all its look-ahead in).
            let top = i;
            if parking && settled_at(i, last_inner, end) {
                spot = Some(Spot {
                    i,
                    seg,
                    start,
                    owned,
                    raw_newline,
                    last_inner,
                    balance: balance.expect("kept between quotes"),
                    count,
                    scratch_len: if owned { self.scratch.len() } else { 0 },
                    repairs: self.repairs.len(),
                });
            }
            // The hot loop: bytes that need no attention. (Tests count the
            // bytes string reads pass over: see `resume.rs`.)
            i = plain_run(b, i, stop, q);
            #[cfg(test)]
            crate::work::add(i - top);
            if i >= stop {
                if let Some(l) = limit {
                    self.record(RepairKind::MissingQuote, l.at);
                    if l.at_end && self.partial {
                        // This string ran into the end of the reply, which
                        // was cut off: where its closing quote belonged is a
                        // guess, so it is not complete (for the partial
                        // policy; `repair()` takes the guess).
                        self.truncated = true;
                        self.complete = false;
                    }
                    let text = self.finish(start, seg, l.at, owned, l.resume == l.at);
                    self.pos = l.resume;
                    if let Some(outer) = outer {
                        let parks = l.at_end.then_some(spot).flatten();
                        self.leave(outer, (open, w), parks, parked, owned);
                    }
                    return Scan::Done(Some(text));
                }
                if let Some(at) = spot.as_mut().filter(|at| parking && at.i == top) {
                    // The pass ran plainly to the end: the read goes on from
                    // before the delimiters and spaces that end the text
                    // (where the cut judgment may end the string).
                    let rest = rest_of_text(b, top, end);
                    if owned {
                        self.own(&mut owned, seg, rest);
                        seg = rest;
                        at.seg = rest;
                        at.scratch_len = self.scratch.len();
                    }
                    at.i = rest;
                }
                // Where the string ends rests on where the text does.
                self.saw_if::<PARK>(end);
                let scan = self.unterminated(w, start, seg, owned, last_inner, &mut count);
                if let Some(outer) = outer {
                    if let Some(at) = spot.as_mut() {
                        at.count = count;
                    }
                    // Read again with a limit, the string is not lent: the
                    // scratch buffer goes with it.
                    let lend = owned && matches!(scan, Scan::Done(_));
                    self.leave(outer, (open, w), spot, parked, lend);
                }
                return scan;
            }
            let c = b[i];
            if c == b'\\' && !(escaped && i + 1 < end && b[i + 1] == b'"') {
                if escaped && i + 2 < end && b[i + 1] == b'\\' && b[i + 2] == b'"' {
                    // `\\"` inside escaped JSON is an escaped quote.
                    self.own(&mut owned, seg, i);
                    self.scratch.push('"');
                    i += 3;
                    seg = i;
                    continue;
                }
                self.own(&mut owned, seg, i);
                i = self.escape(i, stop);
                // (An escape looks past its end: see `ESCAPE_REACH`.)
                self.saw_if::<PARK>(i + ESCAPE_REACH);
                seg = i;
                continue;
            }
            if c < 0x20 {
                self.record(RepairKind::ControlCharacter, i);
                raw_newline |= c == b'\n';
                i += 1;
                continue;
            }
            let qn = if c == b'\\' {
                2
            } else {
                match closing_quote_at(q, b, i, end) {
                    Some(n) => n,
                    None => {
                        // A quote of another style, or a non-ASCII byte: content.
                        i += 1;
                        continue;
                    }
                }
            };
            let mut after = i + qn;
            // The second quote of a doubled pair may be of another length
            // (`’` then `'`).
            if doubled {
                self.saw_if::<PARK>(after + 3);
            }
            if let Some(n) = (doubled && after < end)
                .then(|| closing_quote_at(q, b, after, end))
                .flatten()
            {
                after += n;
            } else if doubled {
                // `""hi" she said"`: the doubled opening has no doubled
                // closing. Unless this quote ends the string even after an
                // inner quote (`""hi", "b": 1`), the second opening quote
                // is content: the text quotes a word, and the words after
                // it are no new key.
                let mut probe = Judge {
                    quote: i,
                    inner_seen: true,
                    balance: Balance::new(start),
                    by_end: false,
                };
                if self.closes(after, w, &mut probe).is_none() {
                    doubled = false;
                    let inner = start - 1;
                    if self.repairs.len() == doubled_mark {
                        self.repairs.pop();
                    }
                    self.record(RepairKind::InnerQuote, inner);
                    if owned {
                        self.scratch.insert(0, char::from(b[inner]));
                    } else {
                        start = inner;
                        seg = seg.min(inner);
                    }
                    last_inner = Some((inner, 1));
                }
            }
            let mut judge = Judge {
                quote: i,
                inner_seen: last_inner.is_some(),
                balance: balance.take().expect("kept between quotes"),
                by_end: false,
            };
            // The common case (`closes`' first branch): the delimiter this
            // place expects right after the quote, nothing else looked at.
            let plain = !doubled
                && limit.is_none()
                && last_inner.is_none()
                && after < end
                && matches!(
                    (w.ctx, b[after]),
                    (Ctx::Key, b':') | (Ctx::Object, b',' | b'}') | (Ctx::Array, b',' | b']')
                );
            let verdict = self.closes(after, w, &mut judge);
            let by_end = judge.by_end;
            balance = Some(judge.balance);
            if let Some(follow) = verdict {
                self.plain = plain && follow == after;
                // In a view, a quote with nothing after it but the end of the
                // text closes a member's or an element's string only as far
                // as the text goes: the next byte may show it to be inside
                // (`"v"a`). (A string at the top level keeps its text
                // whatever follows its quote.)
                // So does one whose verdict rests on where the text ends (a
                // comma after it with nothing after that yet, where the next
                // key would say whether it closes).
                if self.view
                    && (follow >= end || by_end)
                    && matches!(w.ctx, Ctx::Object | Ctx::Array)
                    && self.ends_text(end)
                {
                    self.complete = false;
                }
                let text = self.finish_closed(start, seg, i, owned, raw_newline);
                self.pos = after;
                self.follow = follow;
                if let Some(outer) = outer {
                    // Closed as far as the text goes: parked all the same.
                    let parks = (follow >= end || by_end).then_some(spot).flatten();
                    self.leave(outer, (open, w), parks, parked, owned);
                }
                return Scan::Done(Some(text));
            }
            // A string that quotes JSON (it opens with `{` or `[` whose
            // matching closer is right before a closing quote, and this
            // quote is inside them) holds the members it writes: its quotes
            // are its own, no closing quote went missing before them
            // (`"input": "{"a": "x", "b": "y"}"`). As far as the text goes
            // when it ends right after that closer. Looked for once a read.
            let quotes_json = matches!(b[start], b'{' | b'[')
                && *json_inside.get_or_insert_with(|| {
                    let reach = end.min(start.saturating_add(LOOKAHEAD));
                    let (close, _) = super::lex::matching_close_within(b, start, end, LOOKAHEAD);
                    self.saw(reach);
                    match close {
                        Some(k) => k + 1 >= end || closing_quote_at(q, b, k + 1, end).is_some(),
                        // (In a view, a string cut inside the JSON it quotes
                        // is read as that JSON's text: shown otherwise, its
                        // quotes would make members the closer then takes
                        // back.)
                        None => self.view && reach >= end,
                    }
                })
                && {
                    let kept = balance.as_mut().expect("kept between quotes");
                    kept.advance(b, i);
                    kept.depth > 0
                };
            if limit.is_none() && !quotes_json {
                if let Some(p) = self.missing_quote_before(i, start, w) {
                    // Read again from the quote: the content's repairs go.
                    if let Some(outer) = outer {
                        self.repairs = outer;
                    }
                    return Scan::Again(Limit {
                        at: trim_back(b, start, p),
                        resume: p,
                        at_end: false,
                    });
                }
            }
            self.record(RepairKind::InnerQuote, i);
            last_inner = Some((i, qn));
            i += qn;
        }
    }

    /// A Python-style triple-quoted string (`"""…"""` or `'''…'''`) at
    /// `open`: its content is everything up to the first run of three of
    /// its quotes (a longer run ends the string at its last three quotes),
    /// less the layout around it (see [`block_start`] and [`block_end`]):
    /// `"""⏎code⏎"""` holds `code`. Models write code fields so. Cut off, it
    /// runs to the end.
    #[cold]
    fn triple_quoted(&mut self, open: usize) -> Text<'de> {
        let b = self.b;
        let end = self.end;
        let q = b[open];
        self.record(RepairKind::CodeBlock, open);
        let start = block_start(b, open + 3, end, false);
        let mut k = start;
        while let Some(i) = super::lex::find_byte(b, k, end, q) {
            let mut run = i;
            while run < end && b[run] == q {
                run += 1;
            }
            // (Not a run right before a word or a parenthesis: quotes inside
            // the text, `"""print("""hi""")"""`.)
            let inside = b
                .get(run)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'(' | b')'));
            if run - i >= 3 && !inside {
                // (In a view, quotes at the end of the text close it only
                // as far as the text goes: a word may follow them.)
                if self.view && run >= end && self.ends_text(end) {
                    self.complete = false;
                }
                self.pos = run;
                let close = run - 3;
                return self.dedent(open + 3, start, block_end(b, start, close));
            }
            k = run;
        }
        self.cut_block(open + 3, start, end, q)
    }

    /// A fenced code block (```` ```python … ``` ````) at `self.pos` as an
    /// object member's value: its content, without the fence lines, as one
    /// string (the opening line's info string, `python` or `ts main.ts`, is
    /// dropped, and the line break before a closing marker on a line of its
    /// own; a block on one line, ```` ```ls -la``` ````, keeps all it holds).
    /// It ends at the first run of as many backticks as opened it; cut off,
    /// it runs to the end.
    pub(super) fn code_block(&mut self) -> Text<'de> {
        let b = self.b;
        let end = self.end;
        let open = self.pos;
        self.record(RepairKind::CodeBlock, open);
        let mut ticks = open;
        while ticks < end && b[ticks] == b'`' {
            ticks += 1;
        }
        let n = ticks - open;
        let start = block_start(b, ticks, end, true);
        let mut k = start;
        while let Some(i) = super::lex::find_byte(b, k, end, b'`') {
            let mut run = i;
            while run < end && b[run] == b'`' {
                run += 1;
            }
            if run - i >= n {
                self.pos = run;
                return self.dedent(ticks, start, block_end(b, start, i));
            }
            k = run;
        }
        self.cut_block(ticks, start, end, b'`')
    }

    /// A block cut off by the end of the span (see
    /// [`cut_to_end`](Self::cut_to_end)), less what may be its closing
    /// marker being written: `quote`s at the end of the text, and the line
    /// they are on when it holds nothing else. What a later closer would
    /// leave of it, so a view of it only grows.
    fn cut_block(&mut self, marker: usize, start: usize, end: usize, quote: u8) -> Text<'de> {
        let b = self.b;
        let mut stop = end;
        // (Where the text goes on after the span, the extraction ended it
        // before a closing marker being written: what the span holds is
        // the block's.)
        if self.ends_text(end) {
            while stop > start && b[stop - 1] == quote {
                stop -= 1;
            }
        }
        let line = memchr::memrchr(b'\n', &b[start..stop]).map_or(start, |nl| start + nl + 1);
        if b[line..stop]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\r'))
        {
            stop = block_end(b, start, line);
        }
        self.cut_to_end(start, end);
        self.dedent(marker, start, stop)
    }

    /// A block's content `start..stop`, less its indentation when it starts
    /// on a line of its own (after the opening marker that ends at
    /// `marker`): the block's layout in the reply around it, not its text
    /// (`"code": ```⏎    def f():⏎      pass⏎```` holds `def f():⏎  pass`).
    /// The first line's indentation is taken off each line (as much of it as
    /// the line has); lines of spaces alone are left empty (as Python's
    /// `textwrap.dedent` leaves them).
    fn dedent(&mut self, marker: usize, start: usize, stop: usize) -> Text<'de> {
        let text = &self.text[start..stop];
        let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
        let blank = |line: &str| line.trim_start_matches([' ', '\t', '\r']).is_empty();
        if start == marker || !text.split('\n').any(|l| indent(l) > 0) {
            return Text::Borrowed(text);
        }
        // (The first line's: known as soon as it holds a word, so a view
        // of a block cut off only grows. A later line indented less loses
        // what it has.)
        let common = text.split('\n').find(|l| !blank(l)).map_or(0, indent);
        self.scratch.clear();
        for (k, line) in text.split('\n').enumerate() {
            if k > 0 {
                self.scratch.push('\n');
            }
            if !blank(line) {
                self.scratch.push_str(&line[indent(line).min(common)..]);
            }
        }
        Text::Scratch
    }

    /// A block cut off by the end of the span: it runs to `end`, incomplete.
    fn cut_to_end(&mut self, start: usize, end: usize) -> Text<'de> {
        self.truncated = true;
        self.complete = false;
        self.record(RepairKind::MissingCloser, end);
        self.pos = end;
        Text::Borrowed(&self.text[start..end])
    }

    /// Makes the scratch buffer hold the content up to `i`.
    fn own(&mut self, owned: &mut bool, seg: usize, i: usize) {
        if !*owned {
            self.scratch.clear();
            *owned = true;
        }
        self.scratch.push_str(&self.text[seg..i]);
    }

    /// The content `start..i`, where the raw tail is copied when the scratch
    /// buffer is in use. A string that was cut (its closing quote missing)
    /// loses trailing whitespace.
    fn finish(&mut self, start: usize, seg: usize, i: usize, owned: bool, trim: bool) -> Text<'de> {
        let tail = &self.text[seg..i];
        let tail = if trim { tail.trim_end() } else { tail };
        if owned {
            self.scratch.push_str(tail);
            Text::Scratch
        } else {
            Text::Borrowed(&self.text[start..seg + tail.len()])
        }
    }

    /// Like [`finish`](Self::finish) for a string closed by a quote: a string
    /// that holds raw newlines loses a raw whitespace tail that holds one (a
    /// closing quote put on the next line).
    #[inline(always)]
    fn finish_closed(
        &mut self,
        start: usize,
        seg: usize,
        i: usize,
        owned: bool,
        raw_newline: bool,
    ) -> Text<'de> {
        if !owned && !raw_newline {
            return Text::Borrowed(&self.text[start..i]);
        }
        let trim = raw_newline && {
            let tail = &self.text[seg..i];
            let kept = tail.trim_end_matches([' ', '\t', '\r', '\n']);
            tail[kept.len()..].contains('\n')
        };
        self.finish(start, seg, i, owned, trim)
    }

    /// Decodes the escape at `i` (a backslash) into the scratch buffer and
    /// returns the position after it.
    #[inline(always)]
    fn escape(&mut self, i: usize, stop: usize) -> usize {
        let b = self.b;
        if i + 1 >= stop {
            // A lone backslash cut off at the end: drop it.
            self.truncated |= stop == self.end;
            return stop;
        }
        let c = b[i + 1];
        let plain = match short_escape(c) {
            Some(ch) => ch,
            None if c == b'u' => return self.unicode_escape(i, stop),
            None if crate::text::line_end_len(b, i + 1, stop) > 0 => {
                // JSON5's line continuation: the backslash and the line end
                // both vanish.
                self.record(RepairKind::LineContinuation, i);
                return i + 1 + crate::text::line_end_len(b, i + 1, stop);
            }
            None if c == b'x'
                && i + 4 <= stop
                && b[i + 2].is_ascii_hexdigit()
                && b[i + 3].is_ascii_hexdigit() =>
            {
                // JSON5's `\x41`: one byte's code point, in hex.
                self.record(RepairKind::Json5Escape, i);
                let v = u32::from_str_radix(&self.text[i + 2..i + 4], 16).unwrap_or(0xFFFD);
                self.scratch.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
                return i + 4;
            }
            None if (c == b'0' && !(i + 2 < stop && b[i + 2].is_ascii_digit())) || c == b'v' => {
                // JSON5's `\0` (NUL, no digit after it) and `\v` (vertical tab).
                self.record(RepairKind::Json5Escape, i);
                self.scratch.push(if c == b'0' { '\0' } else { '\u{b}' });
                return i + 2;
            }
            None => {
                // `\'`, `\„`, `\` + newline: the character was escaped for no
                // reason. `\s`, `\d`, `\(`: a backslash meant literally (regexes,
                // LaTeX), kept.
                self.record(RepairKind::InvalidEscape, i);
                let ch = self.text[i + 1..].chars().next().unwrap_or('\\');
                if ch.is_ascii_graphic() && !matches!(ch, '\'' | '`') {
                    self.scratch.push('\\');
                }
                self.scratch.push(ch);
                return i + 1 + ch.len_utf8();
            }
        };
        self.scratch.push(plain);
        i + 2
    }

    fn unicode_escape(&mut self, i: usize, stop: usize) -> usize {
        let b = self.b;
        let hex = |at: usize| -> Option<u32> {
            if at + 4 > stop {
                return None;
            }
            let s = std::str::from_utf8(&b[at..at + 4]).ok()?;
            if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
                return None;
            }
            u32::from_str_radix(s, 16).ok()
        };
        let Some(unit) = hex(i + 2) else {
            let avail = &b[i + 2..stop.min(i + 6)];
            if stop == self.end && avail.iter().all(u8::is_ascii_hexdigit) {
                // `\u26` cut off at the end: drop the partial escape.
                self.truncated = true;
                return stop;
            }
            self.record(RepairKind::InvalidEscape, i);
            self.scratch.push_str("\\u");
            return i + 2;
        };
        let mut next = i + 6;
        let ch = match unit {
            0xD800..=0xDBFF => {
                // Cut off before its low half (`\ud83d`, `\ud83d\ude`): a cut
                // escape, dropped, not a lone surrogate.
                let rest = &b[next..stop];
                if stop == self.end
                    && rest.len() < 6
                    && rest.iter().enumerate().all(|(k, &c)| match k {
                        0 => c == b'\\',
                        1 => c == b'u',
                        _ => c.is_ascii_hexdigit(),
                    })
                {
                    self.truncated = true;
                    return stop;
                }
                let low = if b.get(next) == Some(&b'\\') && b.get(next + 1) == Some(&b'u') {
                    hex(next + 2).filter(|u| (0xDC00..=0xDFFF).contains(u))
                } else {
                    None
                };
                match low {
                    Some(low) => {
                        next += 6;
                        char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                    }
                    None => None,
                }
            }
            0xDC00..=0xDFFF => None,
            _ => char::from_u32(unit),
        };
        let ch = ch.unwrap_or_else(|| {
            self.record(RepairKind::LoneSurrogate, i);
            '\u{FFFD}'
        });
        self.scratch.push(ch);
        next
    }

    /// Whether a quote whose end is at `after` closes a string in place `w`,
    /// judged by the next significant byte; if so, that byte's position. In
    /// valid JSON the first quote met always closes; the rules that keep a
    /// quote inside apply to what valid JSON cannot have there.
    pub(super) fn closes(&self, after: usize, w: Where, judge: &mut Judge) -> Option<usize> {
        let verdict = self.closes_looking(after, w, judge);
        if judge.by_end {
            // (Resting on where the text ends, it looked at all of it.)
            self.saw(self.end);
        }
        verdict
    }

    /// [`closes`](Self::closes), each look it makes said (see
    /// `Scanner::looked`).
    fn closes_looking(&self, after: usize, w: Where, judge: &mut Judge) -> Option<usize> {
        let b = self.b;
        let end = self.end;
        if after < end && !judge.inner_seen {
            // The common case, without skipping anything.
            match (w.ctx, b[after]) {
                (Ctx::Key, b':') | (Ctx::Object, b',' | b'}') | (Ctx::Array, b',' | b']') => {
                    self.saw(after + 1);
                    return Some(after);
                }
                _ => {}
            }
        }
        // After an inner quote, look-aheads stay within a window: judging many
        // quotes in one long line stays linear. (The first quote met looks as
        // far as it must: valid JSON may put any amount of space before `,`.)
        let window = if judge.inner_seen {
            end.min(after.saturating_add(LOOKAHEAD))
        } else {
            end
        };
        let (j, skipped) = skip_ws(b, after, window);
        self.saw(ws_reach(b, j, window));
        // The text ends here, or with a `/` that may start a comment: as far
        // as the text goes, the quote closes.
        if j >= end || (j + 1 == end && b[j] == b'/') {
            self.saw(end);
            return Some(end);
        }
        if j >= window {
            return None;
        }
        // A full-width `：` or `，` stands for its ASCII separator.
        let (c, clen) = match super::lex::wide_sep(b, j, end) {
            Some(sep) => (sep, super::lex::WIDE),
            None => (b[j], 1),
        };
        let fence = super::lex::fence_len(b, j, end);
        // (A fence's marker is read to the byte after it.)
        self.saw(j + (fence + 1).max(3));
        if c == b'+' || (w.paren && c == b')') || fence > 0 {
            // Concatenation, the end of a group, or a code fence after the value.
            return Some(j);
        }
        // The next significant byte after `k`, its look said.
        let next = |k: usize, bound: usize| {
            let n = next_significant(b, k, bound);
            self.saw(ws_reach(b, n, bound));
            n
        };
        let key_at = |k: usize, bound: usize| {
            let (colon, reach) = key_then_colon_reach(b, k, bound);
            self.saw(reach);
            colon.is_some()
        };
        let key_cut = |k: usize| {
            let (cut, reach) = key_cut_at_end_reach(b, k, end);
            self.saw(reach);
            cut
        };
        let spaced = j > after;
        let verdict = match w.ctx {
            Ctx::Key => {
                matches!(
                    c,
                    b':' | b',' | b'}' | b']' | b'-' | b'{' | b'[' | b'0'..=b'9' | b'='
                ) || quote_at(b, j, end).is_some()
                    || (spaced && is_word(c))
            }
            Ctx::Object => match c {
                // After an inner quote, a comma ends the string only before
                // the next key (`"lorem "ipsum", sic."` goes on).
                b',' if judge.inner_seen => {
                    let n = next(j + clen, window);
                    judge.by_end = n >= end;
                    n >= end || (n < window && (b[n] == b'}' || key_at(n, window)))
                }
                b',' | b'}' | b':' => true,
                // `{"a": "x"; "b": "y"}`: a semicolon between members.
                b';' => {
                    let n = next(j + 1, window);
                    judge.by_end = n >= end;
                    n >= end || (n < window && (b[n] == b'}' || key_at(n, window)))
                }
                // A `]` after an object value only closes a `[` in the string.
                b']' => {
                    judge.balance.advance(b, judge.quote);
                    judge.balance.brackets <= 0
                }
                _ if quote_at(b, j, end).is_some() => {
                    key_at(j, end)
                        // `{"a": "x"\n "b` at the end: a key that has not
                        // arrived whole may be the next member's (a comma
                        // missing at the line's end): closed as far as the
                        // text goes (read as an inner quote, the string's
                        // text would be taken back once the colon comes).
                        || (!judge.inner_seen && key_cut(j) && {
                            judge.by_end = true;
                            true
                        })
                        // `"hello\n"\n",}`: a lone quote before the object's end
                        // is junk after the real closing quote. (Before another
                        // key, the lone quote is the closing one.)
                        || (skipped.newline && {
                            let n = next(j + 1, end);
                            let m = if n < end && b[n] == b',' {
                                next(n + 1, end)
                            } else {
                                n
                            };
                            judge.by_end = m >= end;
                            m >= end || b[m] == b'}'
                        })
                }
                _ if skipped.newline && key_at(j, end) => true,
                _ => !judge.inner_seen && spaced && is_word(c) && self.word_run_closes(j, b'}'),
            },
            Ctx::Array => match c {
                b',' | b']' | b'}' | b':' | b'{' | b'[' | b'-' | b'0'..=b'9' => true,
                _ if quote_at(b, j, end).is_some() => {
                    skipped.newline
                        || self.string_value_at(j)
                        // `["a" "b` at the end: the next element, as far as
                        // the text goes (see the object's case).
                        || (!judge.inner_seen && key_cut(j) && {
                            judge.by_end = true;
                            true
                        })
                }
                _ => !judge.inner_seen && spaced && is_word(c) && self.word_run_closes(j, b']'),
            },
            Ctx::Root => c == b',' || c == b'{' || c == b'[' || skipped.newline,
        };
        // After an inner quote, a string that opened `{` or `[` (it quotes
        // JSON or code) keeps going until they are closed.
        if verdict && judge.inner_seen {
            judge.balance.advance(b, judge.quote);
            if judge.balance.depth > 0 {
                return None;
            }
        }
        verdict.then_some(j)
    }

    /// Whether a quoted string starts at `j` and is followed by what may follow
    /// an array element (`,`, `]`, another string, a number, the end).
    fn string_value_at(&self, j: usize) -> bool {
        let b = self.b;
        let (e, reach) = simple_string_end_reach(b, j, self.end);
        self.saw(reach);
        e.is_some_and(|e| {
            let n = next_significant(b, e, self.end);
            self.saw(ws_reach(b, n, self.end));
            n >= self.end || matches!(b[n], b',' | b']' | b'"' | b'0'..=b'9')
        })
    }

    /// After `"text" `: do bare words follow up to the container's `closer`, or
    /// up to a quote that ends them (`"a" b"]`)? Then the quote closed the
    /// string and the words are the next value (or junk).
    fn word_run_closes(&self, j: usize, closer: u8) -> bool {
        let b = self.b;
        let mut k = j;
        let limit = self.end.min(j + LOOKAHEAD);
        while k < limit {
            let stop = match b[k] {
                // In an object, words then a quote are the rest of the
                // string (`"5" tall", "b": 2`): read as a member, the words
                // would be a key with no colon.
                b'"' if closer == b'}' => Some(false),
                b'"' => {
                    let n = next_significant(b, k + 1, self.end);
                    self.saw(ws_reach(b, n, self.end));
                    Some(n >= self.end || b[n] == b',' || b[n] == closer)
                }
                c if c == closer => Some(true),
                b'\n' | b',' | b'{' | b'[' | b'\'' | b':' => Some(false),
                _ => None,
            };
            if let Some(closes) = stop {
                self.saw(k + 1);
                return closes;
            }
            k += 1;
        }
        self.saw(limit);
        // The text ends after the words: they are junk after a value.
        k >= self.end
    }

    /// A quote at `q` does not close the string; was the closing quote missing
    /// earlier? When the quote starts what must be the next key or element and
    /// only a delimiter stands before it, the string ended at that delimiter.
    /// Returns the delimiter's position.
    fn missing_quote_before(&self, q: usize, start: usize, w: Where) -> Option<usize> {
        let b = self.b;
        let end = self.end;
        let p = trim_back(b, start, q);
        if p == start {
            return None;
        }
        let p = p - 1;
        // The string that starts at the quote, its look said.
        let string_end = || {
            let (e, reach) = simple_string_end_reach(b, q, end);
            self.saw(reach);
            e
        };
        match (b[p], w.ctx) {
            (b',', Ctx::Object) => {
                let (colon, reach) = key_then_colon_reach(b, q, end);
                self.saw(reach);
                colon.map(|_| p)
            }
            (b',', Ctx::Array | Ctx::Root) => string_end()
                .filter(|&e| {
                    let n = next_significant(b, e, end);
                    self.saw(ws_reach(b, n, end));
                    n >= end || matches!(b[n], b',' | b']')
                })
                .map(|_| p),
            (b':', Ctx::Object) => {
                // `"a": "first, b: "second"`: the string ended before `, b:`.
                // (Every byte it looks at is before the quote.)
                let from = start.max(p.saturating_sub(LOOKAHEAD));
                let comma = b[from..p].iter().rposition(|&c| c == b',')? + from;
                let key = next_significant(b, comma + 1, end);
                (key_then_colon(b, key, end) == Some(p)).then_some(comma)
            }
            // `{"key:"value"}`: the key ended at its colon.
            (b':', Ctx::Key) => Some(p),
            (b'+', _) => string_end().map(|_| p),
            _ => None,
        }
    }

    /// Whether the closers from `tail` to the end (spaces between) close
    /// every container still open, each its own kind, innermost first.
    fn closes_all(&self, tail: usize) -> bool {
        let mut open = self.stack.iter().rev();
        for &c in &self.b[tail..self.end] {
            let kind = match c {
                b'}' => Frame::Object,
                b']' => Frame::Array,
                _ => continue,
            };
            match open.next() {
                Some(f) if *f == kind || (kind == Frame::Object && *f == Frame::Set) => {}
                _ => return false,
            }
        }
        open.next().is_none()
    }

    /// Ends a read that kept its content's repairs aside (see [`Parked`]):
    /// the scanner's own repairs, `outer`, come back; the content's are
    /// parked at `spot` with the string (`open`, read in place `w`) when
    /// the read met the end of the text (`spot` is `None` elsewhere, or
    /// when no pass's start is settled yet), with its text so far, lent
    /// with the event the read returns (`lend`) or kept; else they go to
    /// the scanner's.
    fn leave(
        &mut self,
        outer: Repairs,
        (open, w): (usize, Where),
        spot: Option<Spot>,
        parked: Option<Box<Parked>>,
        lend: bool,
    ) {
        let mut content = std::mem::replace(&mut self.repairs, outer);
        let Some(at) = spot else {
            self.repairs.append(&content);
            return;
        };
        content.truncate(at.repairs);
        let mut p = parked.unwrap_or_default();
        p.open = open;
        p.w = Some(w);
        p.end = self.end;
        p.at = at;
        p.plain_to = at.i;
        p.repairs = content;
        p.lent = lend && at.owned;
        if at.owned && !p.lent {
            p.scratch = std::mem::take(&mut self.scratch);
            p.scratch.truncate(at.scratch_len);
        }
        self.parked = Some(p);
    }

    /// The input ended inside a string. `count` holds the brackets counted
    /// in the content so far, for the judgment of a string cut off with a
    /// closer at the end (counted on from where it stopped: the text only
    /// grows, and so does the run of closers that ends it).
    fn unterminated(
        &mut self,
        w: Where,
        start: usize,
        seg: usize,
        owned: bool,
        last_inner: Option<(usize, usize)>,
        count: &mut Balance,
    ) -> Scan<'de> {
        let b = self.b;
        let end = self.end;
        self.met_end = true;
        // With no quote inside it, a string that runs into the end of its
        // span could be the start of any string: the reply was cut off
        // inside it, as far as anyone can tell. It keeps every character,
        // but for a closer that closes its container (`{"a": "b}`), which
        // still leaves a start of the string. It is never ended at a comma:
        // that would invent an element or member (`["a,[x]`).
        let cut_off = last_inner.is_none();
        let last = trim_back(b, start, end);
        let delimiter = |c: u8| matches!(c, b'}' | b']' | b',' | b'+') || (w.paren && c == b')');
        let ends_with_delimiter = last > start && delimiter(b[last - 1]);
        let cut = |at: usize, at_end: bool| {
            Scan::Again(Limit {
                at: trim_back(b, start, at),
                resume: at,
                at_end,
            })
        };
        match w.ctx {
            Ctx::Object | Ctx::Array if ends_with_delimiter => {
                // `{"a": "b}` or `["x, y]`: the closing quote is missing before a
                // delimiter: the first comma that starts the next member, or
                // the first closer of this container not matched in the text.
                let closer = if w.ctx == Ctx::Array { b']' } else { b'}' };
                // A closer followed later by quotes is more likely part of the
                // text (`"value} "tail" more}`). (Cut off, the string has no
                // quote before the closers that end the text, the only
                // closers it may end at.)
                let last_quote = match cut_off {
                    true => None,
                    false => b[start..last]
                        .iter()
                        .rposition(|&c| c == b'"')
                        .map(|q| start + q),
                };
                let quotes_after = |k: usize| last_quote.is_some_and(|q| q > k);
                let cut = |at: usize, at_end: bool| {
                    let mut at = at;
                    while at > start && (is_ws(b[at - 1]) || b[at - 1] == b'+') {
                        at -= 1;
                    }
                    cut(at, at_end)
                };
                // Cut off, the string may end only where nothing but closers
                // follow: anything else would be new structure.
                let mut tail = end;
                while tail > start && (is_ws(b[tail - 1]) || matches!(b[tail - 1], b'}' | b']')) {
                    tail -= 1;
                }
                // And only where those closers close every container still
                // open (`{"a": "b}`, a reply missing one quote): where some
                // stay open (`[{"a": "b}`), the reply is cut off all the same,
                // and most likely inside the string.
                let closes_all = self.closes_all(tail);
                let only_closers = |k: usize| k >= tail && closes_all;
                // Cut off, it ends only at a closer in the run that ends the
                // text: the brackets before that run are counted on from
                // where the last judgment stopped.
                let (mut depth, from) = match cut_off {
                    true => {
                        count.advance(b, tail);
                        (count.depth, tail)
                    }
                    false => (0i32, start),
                };
                for k in from..last {
                    match b[k] {
                        b',' if depth <= 0 && !cut_off => {
                            let window = end.min(k + 1 + LOOKAHEAD);
                            let next = next_significant(b, k + 1, window);
                            if w.ctx == Ctx::Array || key_then_colon(b, next, window).is_some() {
                                // Nothing after the comma: cut off, perhaps.
                                return cut(k, next >= end);
                            }
                        }
                        b'{' | b'[' => depth += 1,
                        c if c == closer
                            && depth <= 0
                            && !quotes_after(k)
                            && (!cut_off || only_closers(k)) =>
                        {
                            if cut_off {
                                // What the string loses (spaces, and a
                                // ` +` that joined nothing) is not read
                                // again.
                                let mut at = trim_back(b, start, k);
                                if at > start + 1 && b[at - 1] == b'+' && is_ws(b[at - 2]) {
                                    at -= 1;
                                }
                                // Where the quote belonged is a guess (a
                                // reply cut off inside the string reads
                                // the same): not complete for the partial
                                // policy.
                                return Scan::Again(Limit {
                                    at: trim_back(b, start, at),
                                    resume: k,
                                    at_end: true,
                                });
                            }
                            return cut(k, false);
                        }
                        b'}' | b']' => depth -= 1,
                        _ => {}
                    }
                }
                if cut_off {
                    return self.cut_mid_string(start, seg, owned);
                }
                // No delimiter fits: the text ran into the end.
                let mut k = last;
                while k > start && (is_ws(b[k - 1]) || delimiter(b[k - 1])) {
                    k -= 1;
                }
                return cut(k, true);
            }
            Ctx::Root if ends_with_delimiter && b[last - 1] == b'+' => return cut(last - 1, false),
            Ctx::Key if last > start && b[last - 1] == b'}' && !cut_off => {
                // `{"key:value}`: the key ends at its colon.
                if let Some(colon) = b[start..last].iter().position(|&c| c == b':') {
                    return cut(start + colon, false);
                }
            }
            _ => {}
        }
        if let (Ctx::Root, Some((q, n))) = (w.ctx, last_inner) {
            // `"yes" is my answer`: the last quote we passed over was the end.
            return Scan::Again(Limit {
                at: q,
                resume: q + n,
                at_end: false,
            });
        }
        self.cut_mid_string(start, seg, owned)
    }

    /// Cut off mid-string: keep what was written (nothing, if only
    /// whitespace was).
    fn cut_mid_string(&mut self, start: usize, seg: usize, owned: bool) -> Scan<'de> {
        let end = self.end;
        self.truncated = true;
        self.complete = false;
        self.record(RepairKind::MissingCloser, end);
        self.pos = end;
        if !owned && self.b[start..end].iter().all(|&c| is_ws(c)) {
            return Scan::Done(None);
        }
        Scan::Done(Some(self.finish(start, seg, end, owned, false)))
    }

    /// Reads an unquoted value (a word, a URL, a sentence) at `self.pos`.
    /// Returns `None` when nothing could be read.
    pub(super) fn unquoted(&mut self, w: Where) -> Option<Text<'de>> {
        let b = self.b;
        let end = self.end;
        let start = self.pos;
        // `abcdef"`: a value missing only its opening quote.
        if let Some(k) = self.first_quote_on_line(start) {
            // A quote that ends the text right after a `{`, `[` or `,`
            // opens the key or string being written there when the reply
            // was cut (`words{"`): it closes no run of words.
            let opening = k + 1 == b.len()
                && matches!(
                    b[trim_back(b, start, k).max(start + 1) - 1],
                    b'{' | b'[' | b','
                );
            if opening {
                self.saw(b.len());
            }
            let closes = match self.quote_verdict {
                _ if opening => false,
                // The same quote judged for the same place: many bare values
                // on one line share it (and how far its judgment looked).
                Some((q, ctx, paren, v, reach)) if q == k && ctx == w.ctx && paren == w.paren => {
                    self.saw(reach);
                    v
                }
                _ => {
                    let mut judge = Judge {
                        quote: k,
                        inner_seen: false,
                        balance: Balance::new(start.max(k.saturating_sub(LOOKAHEAD))),
                        by_end: false,
                    };
                    let before = self.looked.replace(0);
                    let v = self.closes(k + 1, w, &mut judge).is_some();
                    let reach = self.looked.get();
                    self.saw(before);
                    self.quote_verdict = Some((k, w.ctx, w.paren, v, reach));
                    v
                }
            };
            // A comma before the quote ended this value already, in a list
            // (`[a,""b c""]`: `a` is one element, not `a,`) and before a
            // key in an object (`{a: b,c: "d"}`). Only the first comma is
            // looked at (found at once where values are short).
            let delimited = match super::lex::find_byte(b, start, k, b',') {
                Some(comma) => match w.ctx {
                    Ctx::Array => true,
                    // Before a key, or before the object's closer (`{a: b,},
                    // c: "d"}`: a trailing comma, not text).
                    // A key cut off by the end of the text counts too (`{a:
                    // b, "` is `b` and a key still being written).
                    Ctx::Object => {
                        let n = next_significant(b, comma + 1, end);
                        self.saw(ws_reach(b, n, end));
                        let key = || {
                            let (colon, reach) = key_then_colon_reach(b, n, end);
                            self.saw(reach);
                            colon.is_some()
                        };
                        (n < k && (key() || b[n] == b'}')) || {
                            let (cut, reach) = key_cut_at_end_reach(b, n, end);
                            self.saw(reach);
                            cut
                        }
                    }
                    _ => false,
                },
                None => false,
            };
            if k > start && b[k - 1] != b'\\' && closes && !delimited {
                let text = self.text[start..k].trim_end();
                if !text.is_empty() {
                    self.record(RepairKind::MissingQuote, start);
                    self.pos = k + 1;
                    return Some(Text::Borrowed(text));
                }
            }
        }
        // As an object member's value, the value goes on across a comma or a
        // line end that no member follows (`{name: Smith, John, age: 3}`).
        let joins = w.ctx == Ctx::Object && !w.paren;
        let mut depth = 0usize;
        let mut k = start;
        while k < end {
            let c = b[k];
            let stop = match c {
                b'\n' | b'\r' if joins && depth == 0 => !self.value_goes_on(k + 1),
                b'\n' | b'\r' | b'"' => true,
                // U+2028 and U+2029 end a line too.
                0xE2 if crate::text::line_end_len(b, k, end) > 0 => true,
                // A comment after a space ends the value (`dog // the
                // pet`); `//` inside a word does not (`http://x`).
                b'/' if depth == 0
                    && k > start
                    && is_ws(b[k - 1])
                    && k + 1 < end
                    && matches!(b[k + 1], b'/' | b'*') =>
                {
                    true
                }
                // So does a `#` comment (`dog # the pet`), as between tokens.
                b'#' if depth == 0
                    && k > start
                    && is_ws(b[k - 1])
                    && (k + 1 >= end
                        || matches!(b[k + 1], b' ' | b'#' | b'\t' | b'\n' | b'\r')) =>
                {
                    true
                }
                b'{' | b'[' => {
                    depth += 1;
                    false
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    false
                }
                b')' if w.paren && depth == 0 => true,
                // `Total: 4,250` in prose: a digit group goes on the text.
                b',' if depth == 0 && w.ctx == Ctx::Root => {
                    !(k > start
                        && b[k - 1].is_ascii_digit()
                        && k + 1 < end
                        && b[k + 1].is_ascii_digit())
                }
                b',' if depth == 0 => !(joins && self.value_goes_on(k + 1)),
                0xEF if depth == 0 => {
                    wide_sep(b, k, end) == Some(b',')
                        && !(joins && self.value_goes_on(k + super::lex::WIDE))
                }
                b'}' | b']' => w.ctx != Ctx::Root,
                _ => false,
            };
            if stop {
                break;
            }
            k += 1;
        }
        // (At the byte it stopped at, it looked at up to two more.)
        self.saw(match k < end {
            true => k + 3,
            false => end,
        });
        let text = self.text[start..k]
            .trim_end_matches(|c: char| c.is_whitespace() || c.is_ascii_control());
        if text.is_empty() {
            return None;
        }
        self.record(RepairKind::UnquotedString, start);
        self.pos = start + text.len();
        // A bare value goes on across spaces (`{a: hello world}`, `[two
        // words]`): one that runs to the end of the text may go on, spaces
        // after it or not. So may a member's value across a comma or a line
        // end with nothing after it yet (`{a: Smith, John}`).
        let open_end = |k: usize| {
            let n = next_significant(b, k, end);
            self.saw(ws_reach(b, n, end));
            n >= end
        };
        if (k >= end && w.ctx != Ctx::Root)
            || (joins && k < end && matches!(b[k], b',' | b'\n' | b'\r') && open_end(k + 1))
        {
            self.complete = false;
        }
        Some(Text::Borrowed(text))
    }

    /// After a comma or a line end at `i - 1` inside an unquoted object
    /// value: does the value go on? Only when what follows is more bare text
    /// (not a key: no colon before the next comma or line end; not a quoted
    /// string, a container, a closer, or a number after a space) that itself
    /// ends at a comma, a line end, `}` or the end. Looks at most
    /// [`LOOKAHEAD`] bytes ahead, so many commas stay linear.
    fn value_goes_on(&self, i: usize) -> bool {
        let b = self.b;
        let end = self.end;
        let n = next_significant(b, i, end);
        self.saw(ws_reach(b, n, end));
        if n >= end || wide_sep(b, n, end).is_some() {
            return false;
        }
        let c = b[n];
        // Digits go on the value only right after the comma (`$4,250`); after
        // a space they may be a value of their own.
        if !(is_word(c) || c >= 0x80) || (c.is_ascii_digit() && n != i) {
            return false;
        }
        let limit = end.min(n + LOOKAHEAD);
        let mut k = n;
        while k < limit {
            let goes_on = match b[k] {
                b':' | b'"' | b'{' | b'[' | b']' => Some(false),
                b',' | b'\n' | b'\r' | b'}' => Some(true),
                0xEF => match wide_sep(b, k, end) {
                    Some(b',') => Some(true),
                    Some(_) => Some(false),
                    None => None,
                },
                _ => None,
            };
            if let Some(goes_on) = goes_on {
                self.saw(k + 3);
                return goes_on;
            }
            k += 1;
        }
        self.saw(limit);
        k >= end
    }

    /// The first `"` from `start` to the end of its line. Remembered, so that
    /// many bare words on one long line cost one scan.
    fn first_quote_on_line(&mut self, start: usize) -> Option<usize> {
        let (from, to, found) = self.quote_hint;
        // (It looked at the bytes up to the quote or the line's end.)
        let reach = |to: usize| (to + 1).min(self.end);
        if start >= from && start <= to && to > 0 {
            self.saw(reach(to));
            return found.then_some(to);
        }
        let b = self.b;
        let stop = b[start..self.end]
            .iter()
            .position(|&c| c == b'\n' || c == b'"')
            .map_or(self.end, |k| start + k);
        let found = stop < self.end && b[stop] == b'"';
        self.quote_hint = (start, stop, found);
        self.saw(reach(stop));
        found.then_some(stop)
    }

    /// Reads an unquoted object key at `self.pos`: up to whitespace or a
    /// delimiter. `a":` (missing only the opening quote) takes its quote.
    pub(super) fn unquoted_key(&mut self) -> Option<Text<'de>> {
        let b = self.b;
        let end = self.end;
        let start = self.pos;
        let mut k = start;
        while k < end
            && b[k] > 0x20
            && !matches!(
                b[k],
                b':' | b',' | b'}' | b']' | b'{' | b'[' | b')' | b'(' | b'"' | b'='
            )
            && quote_at(b, k, end).is_none()
            && wide_sep(b, k, end).is_none()
            // A comment ends the key (`key/* c */: 1`).
            && !(b[k] == b'/' && k + 1 < end && matches!(b[k + 1], b'/' | b'*'))
            && (b[k] < 0x80
                || (crate::text::line_end_len(b, k, end) == 0
                    && super::lex::special_ws_len(b, k, end) == 0))
            // A key does not start with a backslash but for JSON5's
            // `\u0061`: a stray one names nothing (`{\ "x"}` is no key "").
            && !(k == start && b[k] == b'\\' && key_escape(b, k, end).is_none())
        {
            k += 1;
        }
        if k == start {
            return None;
        }
        // A bare key that ends before the end of the text, at a byte of its
        // own (not a quote that may be its closing one).
        self.plain = k < end && b[k] != b'"';
        let text = &self.text[start..k];
        self.record(RepairKind::UnquotedKey, start);
        if k < end && b[k] == b'"' {
            let n = next_significant(b, k + 1, end);
            if n < end && b[n] == b':' {
                k += 1;
            }
        }
        self.pos = k;
        if text.contains('\\') {
            // JSON5: `\u0061b` in an unquoted key is `ab`. Another
            // backslash is the key's own text (`a\b` is no `ab`).
            self.scratch.clear();
            let mut rest = text;
            while let Some(at) = rest.find('\\') {
                self.scratch.push_str(&rest[..at]);
                let esc = &rest[at..];
                match key_escape(esc.as_bytes(), 0, esc.len()) {
                    Some(v) => {
                        self.scratch.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
                        rest = &esc[6..];
                    }
                    None => {
                        self.scratch.push('\\');
                        rest = &esc[1..];
                    }
                }
            }
            self.scratch.push_str(rest);
            return Some(Text::Scratch);
        }
        Some(Text::Borrowed(text))
    }
}

/// The code point of JSON5's `\uXXXX` at `i` in an unquoted key, if one is
/// there.
fn key_escape(b: &[u8], i: usize, end: usize) -> Option<u32> {
    let hex = b
        .get(i + 2..i + 6)
        .filter(|_| i + 6 <= end && b[i + 1] == b'u')?;
    if !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}

/// Where the run of spaces and delimiters that ends the text starts (not
/// before `from`): a parked string's read goes on from there, where the
/// judgment of a cut string may end it.
fn rest_of_text(b: &[u8], from: usize, end: usize) -> usize {
    let mut k = end;
    while k > from && (is_ws(b[k - 1]) || matches!(b[k - 1], b'}' | b']' | b',' | b'+' | b')')) {
        k -= 1;
    }
    k
}

/// Where a block's content starts after its opening marker, which ends at
/// `from`: the rest of the opening line is layout when it holds only spaces
/// (or, with `info`, any text but a backtick: a fence's info string,
/// `python` or `ts main.ts`), and the content starts on the next line (at
/// `end` while that line is cut: whether it holds a backtick is not known).
/// Else the content starts at `from` (`"""print(1)"""`, ```` ```ls``` ````).
fn block_start(b: &[u8], from: usize, end: usize, info: bool) -> usize {
    let nl = super::lex::find_byte(b, from, end, b'\n');
    let line = &b[from..nl.unwrap_or(end)];
    let layout = match info {
        true => !line.contains(&b'`'),
        false => line.iter().all(|c| matches!(c, b' ' | b'\t' | b'\r')),
    };
    match (layout, nl) {
        (true, Some(nl)) => nl + 1,
        (true, None) => end,
        (false, _) => from,
    }
}

/// Where a block's content that starts at `start` ends before its closing
/// marker at `close` (or before the end of a cut block's text): at the line
/// break before it when the marker opens its line (past spaces), as
/// Markdown ends a fenced block's content.
fn block_end(b: &[u8], start: usize, close: usize) -> usize {
    let mut s = close;
    while s > start && matches!(b[s - 1], b' ' | b'\t' | b'\r') {
        s -= 1;
    }
    if s == start {
        return start;
    }
    if b[s - 1] != b'\n' {
        return close;
    }
    let e = s - 1;
    match e > start && b[e - 1] == b'\r' {
        true => e - 1,
        false => e,
    }
}
