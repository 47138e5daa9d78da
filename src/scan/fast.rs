//! The fast lane of the state machine: the tokens valid JSON is made of,
//! inside an object or an array, read in one trip each.
//!
//! [`Scanner::fast`] takes a token only where the general step
//! ([`Scanner::step`]) would make no repair and leave the same state: a
//! plain quoted key right before its colon, a plain string, a plain number or
//! a literal right before a delimiter, an opener, a comma, a closer of the
//! innermost container. Anything else (an escape, the end of the span, a
//! comment, a byte that may need judging) leaves the scanner as the step
//! would find it, and the step goes on from there. So the lane changes no
//! result, only how many branches a token costs.

use super::lex::{plain_json_run, short_escape};
use super::number::NumValue;
use super::{Event, Frame, Number, Scanner, State, Text};

/// Whether `c` ends a bare token (a number, a literal) where the step reads
/// it the same way as the lane: the delimiters and plain whitespace.
#[inline]
fn delimits(c: u8) -> bool {
    matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
}

/// What the lane does with the byte where the next token may start: pass
/// it (plain whitespace), read the token, or leave it to the step (what
/// [`lex::skip_ws`](super::lex::skip_ws) must look at: a comment, a special
/// token, a control character, a non-ASCII byte).
static START: [u8; 256] = {
    // `MAY_SKIP`'s bytes (a static cannot be read here on Rust 1.82).
    let mut t = [READ; 256];
    let mut c = 0;
    while c < 256 {
        if c < 0x20 || c >= 0x80 || c == b'/' as usize || c == b'#' as usize || c == b'<' as usize {
            t[c] = LEAVE;
        }
        c += 1;
    }
    t[b' ' as usize] = PASS;
    t[b'\n' as usize] = PASS;
    t[b'\r' as usize] = PASS;
    t[b'\t' as usize] = PASS;
    t
};
const READ: u8 = 0;
const PASS: u8 = 1;
const LEAVE: u8 = 2;

/// Where the next token may start at or after `i`, past plain whitespace,
/// and its first byte; `None` for the end of the span or a byte the step
/// must look at (a comment, a special token or space).
#[inline(always)]
fn past_plain_ws(b: &[u8], mut i: usize) -> (usize, Option<u8>) {
    loop {
        let Some(&c) = b.get(i) else {
            return (i, None);
        };
        match START[usize::from(c)] {
            PASS => i += 1,
            READ => return (i, Some(c)),
            _ => return (i, None),
        }
    }
}

/// Where the lane's tokens go: returned as events ([`Events`]), or
/// written onto a tape where each is read (a [`Tape`](super::tape::Tape)),
/// so that no event is built only to be taken apart again.
pub(crate) trait Sink<'de> {
    /// What a token becomes.
    type Out;
    /// An object's first key is given right after the object's start,
    /// with the scanner as [`Scanner::read`] leaves it when it gives the
    /// key it held back (else the key is held back for `read`: one event
    /// per call).
    const AT_ONCE: bool = false;
    /// The event `ev` the lane has just read (the scanner's state is the
    /// one after it, as [`Scanner::next`] leaves it).
    fn emit(&mut self, scan: &Scanner<'de>, ev: Event<'de>) -> Self::Out;
}

/// The lane's tokens as events.
pub(super) struct Events;

impl<'de> Sink<'de> for Events {
    type Out = Event<'de>;

    #[inline(always)]
    fn emit(&mut self, _: &Scanner<'de>, ev: Event<'de>) -> Event<'de> {
        ev
    }
}

impl<'de> Scanner<'de> {
    /// The next event when it is one of valid JSON's common tokens inside an
    /// object or array; `None` hands the rest of this step to
    /// [`step`](Self::step), from the state reached so far.
    #[inline(always)]
    pub(super) fn fast(&mut self) -> Option<Event<'de>> {
        self.fast_into(&mut Events)
    }

    /// [`fast`](Self::fast), the token given to `sink`.
    #[inline(always)]
    pub(super) fn fast_into<S: Sink<'de>>(&mut self, sink: &mut S) -> Option<S::Out> {
        #[cfg(test)]
        if !self.lane {
            return None;
        }
        // Cut at the span's end, so that its bounds are the slice's.
        let b = &self.b[..self.end];
        loop {
            // Only states in which the step skips whitespace first.
            if !matches!(
                self.state,
                State::Value
                    | State::ArrayStart
                    | State::ObjectStart
                    | State::ObjectKey
                    | State::AfterValue
            ) {
                return None;
            }
            let (i, c) = past_plain_ws(b, self.pos);
            self.pos = i;
            let c = c?;
            let top = *self.stack.last()?;
            if !matches!(top, Frame::Object | Frame::Array) {
                return None;
            }
            self.token_start = i;
            match self.state {
                State::ObjectStart | State::ObjectKey => {
                    if c != b'"' || top != Frame::Object {
                        return None;
                    }
                    return self.fast_key(b, i, sink);
                }
                State::Value => match c {
                    b'"' | b'0'..=b'9' | b'-' | b't' | b'f' | b'n' => {
                        return self.fast_scalar(b, i, c, top, sink)
                    }
                    b'{' => {
                        // Too deep: the step makes the error.
                        if self.depth >= self.max_depth {
                            return None;
                        }
                        self.push(Frame::Object, i).ok()?;
                        self.pos = i + 1;
                        self.state = State::ObjectStart;
                        self.object_pending = true;
                        self.object_open = i;
                        self.awaiting_value = false;
                        // Its `StartObject` waits for the first key.
                    }
                    b'[' => {
                        if self.depth >= self.max_depth {
                            return None;
                        }
                        self.push(Frame::Array, i).ok()?;
                        self.pos = i + 1;
                        self.state = State::ArrayStart;
                        self.complete = true;
                        self.awaiting_value = false;
                        return Some(sink.emit(self, Event::StartArray));
                    }
                    _ => return None,
                },
                State::ArrayStart => {
                    if top != Frame::Array {
                        return None;
                    }
                    if c == b']' {
                        if !self.closes_plainly() {
                            return None;
                        }
                        self.pos = i + 1;
                        let ev = self.fast_close(top);
                        return Some(sink.emit(self, ev));
                    }
                    self.state = State::Value;
                }
                State::AfterValue => match (top, c) {
                    (Frame::Object, b',') => {
                        self.pos = i + 1;
                        self.state = State::ObjectKey;
                    }
                    (Frame::Array, b',') => {
                        self.pos = i + 1;
                        self.state = State::Value;
                    }
                    (Frame::Object, b'}') => return self.fast_end_object(i, sink),
                    (Frame::Array, b']') => return self.fast_end_array(i, sink),
                    _ => return None,
                },
                _ => return None,
            }
        }
    }

    /// The `]` at `i` right after an element of the innermost array, which
    /// is inside another container.
    #[inline(always)]
    fn fast_end_array<S: Sink<'de>>(&mut self, i: usize, sink: &mut S) -> Option<S::Out> {
        if !self.ends_array_plainly(i) || !self.closes_plainly() {
            return None;
        }
        self.pos = i + 1;
        let ev = self.fast_close(Frame::Array);
        Some(sink.emit(self, ev))
    }

    /// The `}` at `i` right after a member of the innermost object, which
    /// is inside another container.
    #[inline(always)]
    fn fast_end_object<S: Sink<'de>>(&mut self, i: usize, sink: &mut S) -> Option<S::Out> {
        // The outermost object may have closed too early (`{"a": 1}, "b":
        // 2}`): the step judges that.
        if self.is_outermost(self.stack.len() - 1) || !self.closes_plainly() {
            return None;
        }
        self.pos = i + 1;
        let ev = self.fast_close(Frame::Object);
        Some(sink.emit(self, ev))
    }

    /// A string, number or literal whose first byte, `c`, is at `i`, as a
    /// value inside `top` (an object or array).
    #[inline(always)]
    fn fast_scalar<S: Sink<'de>>(
        &mut self,
        b: &'de [u8],
        i: usize,
        c: u8,
        top: Frame,
        sink: &mut S,
    ) -> Option<S::Out> {
        match c {
            b'"' => match self.fast_string(b, i)? {
                Ok(j) => self.fast_str_at(b, Text::Borrowed(self.cut(i + 1, j)), j, top, sink),
                Err(j) => self.fast_str_escaped(b, i, j, top, sink),
            },
            b't' => self.fast_literal(i, b"true", Event::Bool(true), top, sink),
            b'f' => self.fast_literal(i, b"false", Event::Bool(false), top, sink),
            b'n' => self.fast_literal(i, b"null", Event::Null, top, sink),
            _ => self.fast_number(b, i, top, sink),
        }
    }

    /// [`fast_str_at`](Self::fast_str_at) of a string with escapes, the
    /// first at `j`, whose `"` is at `i`. Out of line, so that a plain
    /// string's text is known to be borrowed where it is written.
    #[inline(never)]
    fn fast_str_escaped<S: Sink<'de>>(
        &mut self,
        b: &'de [u8],
        i: usize,
        j: usize,
        top: Frame,
        sink: &mut S,
    ) -> Option<S::Out> {
        let (text, j) = self.fast_escaped(i, j)?;
        self.fast_str_at(b, text, j, top, sink)
    }

    /// A string value inside `top`, its content `text`, its closing quote
    /// at `j`.
    #[inline(always)]
    fn fast_str_at<S: Sink<'de>>(
        &mut self,
        b: &'de [u8],
        text: Text<'de>,
        j: usize,
        top: Frame,
        sink: &mut S,
    ) -> Option<S::Out> {
        let end = b.len();
        let fits = j + 1 < end
            && match top {
                Frame::Object => matches!(b[j + 1], b',' | b'}'),
                _ => matches!(b[j + 1], b',' | b']'),
            };
        if !fits {
            return None;
        }
        self.pos = j + 1;
        self.follow = j + 1;
        self.scalar_in(top);
        Some(sink.emit(self, Event::Str(text)))
    }

    /// A key at `i` (a `"`) in an object: plain, its colon right after it
    /// and its value's first byte after plain whitespace.
    #[inline(always)]
    fn fast_key<S: Sink<'de>>(&mut self, b: &'de [u8], i: usize, sink: &mut S) -> Option<S::Out> {
        match self.fast_string(b, i)? {
            Ok(j) => self.fast_key_at(b, i, Text::Borrowed(self.cut(i + 1, j)), j, sink),
            Err(j) => self.fast_key_escaped(b, i, j, sink),
        }
    }

    /// [`fast_key_at`](Self::fast_key_at) of a key with escapes, the first
    /// at `j`, whose `"` is at `i`. Out of line, so that a plain key's text
    /// is known to be borrowed where it is written.
    #[inline(never)]
    fn fast_key_escaped<S: Sink<'de>>(
        &mut self,
        b: &'de [u8],
        i: usize,
        j: usize,
        sink: &mut S,
    ) -> Option<S::Out> {
        let (text, j) = self.fast_escaped(i, j)?;
        self.fast_key_at(b, i, text, j, sink)
    }

    /// A key whose `"` is at `i`, its content `text`, its closing quote at
    /// `j`.
    #[inline(always)]
    fn fast_key_at<S: Sink<'de>>(
        &mut self,
        b: &'de [u8],
        i: usize,
        text: Text<'de>,
        j: usize,
        sink: &mut S,
    ) -> Option<S::Out> {
        let end = b.len();
        if !(j + 1 < end && b[j + 1] == b':') {
            return None;
        }
        // The value's first byte, after plain whitespace. A sign cut off
        // before its digits (`"m": -` at the end) drops the member: the step
        // judges it.
        let (k, c) = past_plain_ws(b, j + 2);
        if matches!(c?, b'-' | b'+' | b'.') && super::lex::lone_sign_to_end(b, k, end) {
            return None;
        }
        self.pos = k;
        self.follow = j + 1;
        self.state = State::Value;
        self.awaiting_value = true;
        let key = Event::Key(text);
        if !self.object_pending {
            return Some(sink.emit(self, key));
        }
        // The object's first key: the object is no set, and starts now.
        self.object_pending = false;
        if S::AT_ONCE {
            self.token_start = self.object_open;
            self.complete = true;
            let _ = sink.emit(self, Event::StartObject);
            // What `read` does with the key held back (nothing is held back
            // while the lane runs, so neither is a cut close).
            debug_assert!(self.pending.is_none() && !self.pending_cut);
            self.plain = false;
            self.reach = self.pos;
            self.token_start = i;
            self.complete = true;
            self.cut_close = false;
            return Some(sink.emit(self, key));
        }
        self.pending = Some((key, i));
        self.token_start = self.object_open;
        self.complete = true;
        Some(sink.emit(self, Event::StartObject))
    }

    /// Where the string whose `"` is at `i` ends: `Ok` with its closing
    /// quote when it is plain, `Err` with its first backslash when it has
    /// escapes (read on by [`fast_escaped`](Self::fast_escaped)). `None`
    /// for anything the step judges: an empty string (`""` may open
    /// `""doubled""` text), a raw control character, the end of the span.
    #[inline(always)]
    fn fast_string(&self, b: &[u8], i: usize) -> Option<Result<usize, usize>> {
        // A string parked at the end of the text: its read goes on in the
        // step, from where it stopped.
        if self.parked.as_ref().is_some_and(|p| p.open() == i) {
            return None;
        }
        let j = plain_json_run(b, i + 1, b.len());
        #[cfg(test)]
        crate::work::add(j - i);
        if j >= b.len() || j == i + 1 {
            return None;
        }
        match b[j] {
            b'"' => Some(Ok(j)),
            b'\\' => Some(Err(j)),
            _ => None,
        }
    }

    /// The content of the string whose `"` is at `i` and whose first
    /// backslash is at `j`, with JSON's own escapes decoded into the
    /// scratch buffer (as the step decodes them), and where its closing
    /// quote is. `None` for anything the step judges: an escape that is no
    /// JSON escape or a lone surrogate, a raw control character, the end
    /// of the span.
    #[inline(never)]
    fn fast_escaped(&mut self, i: usize, mut j: usize) -> Option<(Text<'de>, usize)> {
        let b = self.b;
        let end = self.end;
        self.scratch.clear();
        let mut seg = i + 1;
        loop {
            self.scratch.push_str(self.cut(seg, j));
            j = self.fast_escape(j)?;
            seg = j;
            j = plain_json_run(b, j, end);
            #[cfg(test)]
            crate::work::add(j - seg);
            if j >= end {
                return None;
            }
            match b[j] {
                b'"' => break,
                b'\\' => {}
                _ => return None,
            }
        }
        self.scratch.push_str(self.cut(seg, j));
        Some((Text::Scratch, j))
    }

    /// The JSON escape at `i` (a backslash) decoded into the scratch buffer,
    /// and the position after it; `None` for one the step repairs.
    #[inline(always)]
    fn fast_escape(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let end = self.end;
        let hex = |at: usize| -> Option<u32> {
            if at + 4 > end {
                return None;
            }
            b[at..at + 4]
                .iter()
                .try_fold(0, |v, &c| Some(v << 4 | char::from(c).to_digit(16)?))
        };
        if i + 1 >= end {
            return None;
        }
        let ch = match short_escape(b[i + 1]) {
            Some(ch) => ch,
            None if b[i + 1] == b'u' => {
                let unit = hex(i + 2)?;
                let (ch, next) = match unit {
                    0xD800..=0xDBFF => {
                        if !(i + 7 < end && b[i + 6] == b'\\' && b[i + 7] == b'u') {
                            return None;
                        }
                        let low = hex(i + 8).filter(|u| (0xDC00..=0xDFFF).contains(u))?;
                        let c = char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
                        (c?, i + 12)
                    }
                    0xDC00..=0xDFFF => return None,
                    _ => (char::from_u32(unit)?, i + 6),
                };
                self.scratch.push(ch);
                return Some(next);
            }
            None => return None,
        };
        self.scratch.push(ch);
        Some(i + 2)
    }

    /// A number at `i` as an element or a member's value: an integer, or
    /// one with a fraction, right before a delimiter that ends it as JSON
    /// ends it (no digit groups, no words after it).
    #[inline(always)]
    fn fast_number<S: Sink<'de>>(
        &mut self,
        b: &'de [u8],
        i: usize,
        top: Frame,
        sink: &mut S,
    ) -> Option<S::Out> {
        let end = b.len();
        let neg = b[i] == b'-';
        let digits = i + usize::from(neg);
        let mut k = digits;
        let mut v: u64 = 0;
        while k < end && b[k].is_ascii_digit() && v < u64::MAX / 10 {
            v = v * 10 + u64::from(b[k] - b'0');
            k += 1;
        }
        if k == digits || (k > digits + 1 && b[digits] == b'0') || k >= end {
            return None;
        }
        let mut float = false;
        if b[k] == b'.' {
            let frac = k + 1;
            k = frac;
            while k < end && b[k].is_ascii_digit() {
                k += 1;
            }
            if k == frac || k >= end {
                return None;
            }
            float = true;
        }
        let c = b[k];
        if !delimits(c) {
            return None;
        }
        // What follows a member's value may make it digit groups (`4,250`)
        // or text (`5 kg`): the step judges those.
        if top == Frame::Object
            && match c {
                b',' => k + 1 >= end || b[k + 1].is_ascii_digit(),
                b' ' | b'\t' => true,
                _ => false,
            }
        {
            return None;
        }
        let value = if float {
            NumValue::Float
        } else if !neg {
            NumValue::U64(v)
        } else if v == 0 || v > i64::MAX as u64 + 1 {
            // `-0` and integers below i64::MIN are f64 in serde_json.
            NumValue::Float
        } else {
            NumValue::I64((v as i64).wrapping_neg())
        };
        self.pos = k;
        self.scalar_in(top);
        let text = Text::Borrowed(self.cut(i, k));
        Some(sink.emit(self, Event::Num(Number { text, value })))
    }

    /// `true`, `false` or `null` at `i`, right before a delimiter (and not
    /// before a space in an object, where words may follow: `{"a": true
    /// love}`).
    #[inline(always)]
    fn fast_literal<S: Sink<'de>>(
        &mut self,
        i: usize,
        word: &[u8],
        ev: Event<'de>,
        top: Frame,
        sink: &mut S,
    ) -> Option<S::Out> {
        let b = self.b;
        let k = i + word.len();
        if k >= self.end || &b[i..k] != word || !delimits(b[k]) {
            return None;
        }
        if top == Frame::Object && matches!(b[k], b' ' | b'\t') {
            return None;
        }
        self.pos = k;
        self.scalar_in(top);
        Some(sink.emit(self, ev))
    }

    /// `text[from..to]`, where `from` is just after an ASCII byte or at one
    /// and `to` is at one (a quote, a backslash, a delimiter), inside the
    /// span. Without the char-boundary checks of slicing: they cost a call
    /// per token where the lane grew too large for them to be inlined
    /// (2.5M instructions of the 1 MB document's 58.5M).
    #[inline(always)]
    fn cut(&self, from: usize, to: usize) -> &'de str {
        debug_assert!(from <= to && to < self.end);
        debug_assert!(self.text.is_char_boundary(from) && self.text.is_char_boundary(to));
        // SAFETY: `from <= to < self.end <= text.len()`, and both are char
        // boundaries: a byte right after an ASCII byte, or an ASCII byte,
        // starts a character (every caller has just read those bytes).
        unsafe { self.text.get_unchecked(from..to) }
    }

    /// After a scalar inside `top` (an object or array): what
    /// [`scalar_done`](Self::scalar_done) does there.
    #[inline(always)]
    fn scalar_in(&mut self, top: Frame) {
        self.awaiting_value = false;
        self.state = State::AfterValue;
        self.take_comma(top);
    }

    /// What [`pop`](Self::pop) does when the innermost object or array
    /// (`top`), inside another container, has met its closer after a
    /// value or at its start (no key waits for its value, no object is
    /// held back).
    #[inline(always)]
    fn fast_close(&mut self, top: Frame) -> Event<'de> {
        self.stack.pop();
        self.opened.pop();
        self.depth -= 1;
        self.state = State::AfterValue;
        if let Some(&outer) = self.stack.last() {
            self.take_comma(outer);
        }
        match top {
            Frame::Object => Event::EndObject,
            _ => Event::EndArray,
        }
    }

    /// Whether the innermost container may be closed by
    /// [`fast_close`](Self::fast_close).
    #[inline(always)]
    fn closes_plainly(&self) -> bool {
        // The byte after the closer (a comma the close takes) is part of
        // its step: with the text going on, it must have arrived.
        !self.awaiting_value
            && !self.object_pending
            && self.stack.len() >= 2
            && (!self.open_end || self.pos + 1 < self.end)
    }

    /// At the `]` at `i` of the innermost array: whether the step would
    /// close it plainly, not read `], [` in an object's value as one list
    /// written in pieces (see `continues_array`).
    #[inline(always)]
    fn ends_array_plainly(&self, i: usize) -> bool {
        let n = self.stack.len();
        if n < 2 || self.stack[n - 2] != Frame::Object {
            return true;
        }
        let at = |k: usize| (k < self.end).then(|| self.b[k]);
        match at(i + 1) {
            None => !self.open_end,
            Some(b'}' | b']') => true,
            Some(b',') => match at(i + 2) {
                None => !self.open_end,
                Some(c) => c == b'"',
            },
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::Rules;
    use crate::scan::{lex, Event, ScanOptions, Scanner};

    /// Everything a read shows its caller, event by event, then its end.
    fn trace(text: &str, opts: &ScanOptions, lane: bool) -> Vec<String> {
        let opts = ScanOptions { lane, ..*opts };
        let span = 0..text.len();
        let mut scan = Scanner::over(text, std::slice::from_ref(&span), &opts);
        let mut out = Vec::new();
        for _ in 0..4 * text.len() + 16 {
            // The decoder peeks before it takes, now and then.
            if out.len() % 3 == 0 {
                if let Err(e) = scan.peek() {
                    out.push(format!("peek error {e:?}"));
                    break;
                }
            }
            let ev = match scan.next() {
                Ok(ev) => ev,
                Err(e) => {
                    out.push(format!("error {e:?}"));
                    break;
                }
            };
            let text = match ev {
                Event::Key(t) | Event::Str(t) => scan.str(t).to_owned(),
                Event::Num(n) => scan.str(n.text).to_owned(),
                _ => String::new(),
            };
            out.push(format!(
                "{ev:?} {text:?} at {} complete {} depth {} truncated {}",
                scan.offset(),
                scan.complete,
                scan.stack.len(),
                scan.truncated,
            ));
            if let Event::Eof = ev {
                break;
            }
        }
        out.push(format!(
            "repairs {:?} roots {} more {} end {:?} prose {}",
            scan.repairs.to_vec(),
            scan.roots(),
            scan.more_roots(),
            scan.root_end(),
            scan.prose_roots(),
        ));
        out
    }

    /// `all`: every set of options (else the decoder's usual ones).
    fn same_with_and_without(text: &str, all: bool) {
        let partials = match all {
            true => &[false, true][..],
            false => &[true][..],
        };
        let rules = match all {
            true => &[Rules::DEFAULT, Rules::STRICT][..],
            false => &[Rules::DEFAULT][..],
        };
        for multi in [false, true] {
            for &partial in partials {
                for &rules in rules {
                    let opts = ScanOptions {
                        max_depth: 8,
                        multi,
                        partial,
                        view: false,
                        rules,
                        lane: true,
                    };
                    let fast = trace(text, &opts, true);
                    let slow = trace(text, &opts, false);
                    assert_eq!(fast, slow, "{text:?} {opts:?}");
                }
            }
        }
    }

    /// Inputs at the lane's edges: what it must leave to the step.
    const EDGES: &[&str] = &[
        r#"{"a":1,"b":[1,2.5,-3,-0,0,true,false,null,"x",[],{}],"c":{"d":"e"}}"#,
        r#"{"a": 4,250, "b": 1}"#,
        r#"{"a": 4,25}"#,
        r#"[4,250]"#,
        r#"{"a": 5 kg, "b": 2.5 m}"#,
        r#"{"a": true love, "b": null }"#,
        "{\"a\": true\t, \"b\": false\n}",
        r#"{"a": ["x"], ["y"], "b": 1}"#,
        r#"{"a": ["x"],"b": ["y"] , "c": []}"#,
        r#"{"a": 1}, "b": 2}"#,
        r#"[{"a": 1}, {"a": 2}] [3]"#,
        r#"[[[[[[[[[[1]]]]]]]]]]"#,
        r#"{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}"#,
        r#"["key": "value", "k2": 2]"#,
        r#"{"a", "b"}"#,
        r#"{"a": "b" + "c", "d": "e"+"f"}"#,
        r#"{"a": 00, "b": 01.5, "c": 1., "d": 1e5, "e": 1.5E-3, "f": 1_000}"#,
        r#"{"a": 123456789012345678901234567890, "b": -9223372036854775809}"#,
        r#"{"a": 18446744073709551615, "b": -9223372036854775808, "c": 1.25}"#,
        r#"{"a": "x\"y", "b": "", "c": "\u00e9", "d": "tab\there"}"#,
        r#"{"k\"ey": "v\\w", "e": "\ud83d\ude00", "l": "\ud83d", "m": "\ud83dx", "n": "\ude00"}"#,
        r#"["\q", "a\/b", "\u00", "\uzzzz", "\ud83d\u0041", "\"", "x\\", "\b\f\r"]"#,
        "{\"a\": \"x\ty\", \"b\": \"x\\n\ny\", \"c\": \"\\\"q\\\"\"}",
        r#"{"a": /* c */ 1, // d
"b": 2 # e
}"#,
        "{\"a\":\u{a0}1,\"b\":\u{3000}2}",
        r#"{"a"：1，"b"：2}"#,
        r#"{"a": 'x', 'b': "y", c: z}"#,
        r#"{"a": tru"#,
        r#"{"a": [1, 2"#,
        r#"{"a": "abc"#,
        r#"{"a": 12"#,
        r#"{"a": 12,"#,
        r#"[1, 2, 3"#,
        r#"[1, 2, 3,"#,
        r#"{"a": {"b": [true, false, null]}, "c": -1.5}"#,
        r#"{"a":1,}"#,
        r#"[1,2,]"#,
        r#"[,1]"#,
        r#"{"a" 1 "b" 2}"#,
        r#"{"a": 1 "b": 2}"#,
        r#"[1 2 3]"#,
        r#"{"a": [1, 2}, "b": 3}"#,
        r#"{"a": ObjectId("x"), "b": f(1, 2)}"#,
        r#"{"a": (1, 2), "b": (3)}"#,
        r#"{"a": ..., "b": [1, ...]}"#,
        r#"{"a": NaN, "b": -Infinity, "c": None, "d": True}"#,
        r#"{"a": "x"}garbage"#,
        "{\"a\":1}\n{\"a\":2}\n",
        r#"1, 2, 3"#,
        r#""a", "b""#,
        "  {\"a\" :  1 ,  \"b\" : [ 1 , 2 ] }  ",
        r#"{"a":"he said "hi" to me","b":1}"#,
        r#"{"a":"x","b":"y"}}"#,
        r#"{"a":[1,2]]}"#,
        r#"{"a":"1999-01-01", "b": 1999-01-01, "c": 10-20, "d": 1/3}"#,
    ];

    /// Typed targets whose fields ask for strings, numbers and bools (the
    /// decoder's `scalar_now` and `key_now`), each with a default so that
    /// most inputs decode to something.
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Typed {
        #[serde(default)]
        a: String,
        #[serde(default)]
        b: u64,
        #[serde(default)]
        c: f64,
        #[serde(default)]
        d: bool,
        #[serde(default)]
        e: Vec<String>,
        #[serde(default)]
        f: i64,
        #[serde(default)]
        g: Vec<Typed>,
        #[serde(default)]
        k: std::collections::BTreeMap<String, u32>,
        #[serde(default, with = "crate::partial")]
        l: Vec<i32>,
        m: Option<String>,
        n: Option<u8>,
        #[serde(default, rename = "records")]
        r: Vec<Typed>,
    }

    /// Everything a typed decode shows, with the lane open or closed: the
    /// value (or error) and the report, for several targets and decoders.
    fn decoded(text: &str, lane: bool) -> Vec<String> {
        let decoders = [
            crate::Decoder::new().max_depth(8),
            crate::Decoder::strict().max_depth(8),
        ]
        .map(|mut d| {
            d.opts.lane = lane;
            d
        });
        let mut out = Vec::new();
        for d in &decoders {
            macro_rules! each {
                ($($t:ty),*) => {$(
                    out.push(format!("{:?}", d.decode_with_report::<$t>(text)));
                )*};
            }
            each!(
                Typed,
                Vec<Typed>,
                Vec<String>,
                Vec<u64>,
                Vec<f64>,
                Vec<i8>,
                Vec<bool>,
                Vec<Vec<String>>,
                std::collections::BTreeMap<String, String>,
                std::collections::BTreeMap<String, u64>,
                std::collections::BTreeMap<String, Vec<i32>>,
                (String, u64),
                serde_json::Value
            );
            out.push(format!("{:?}", d.decode_partial::<Vec<String>>(text)));
        }
        out
    }

    #[test]
    fn the_decoders_reads_by_the_lane_change_no_decode() {
        let mut inputs: Vec<String> = EDGES.iter().map(|s| s.to_string()).collect();
        inputs.extend(crate::scan::corpus_inputs());
        for text in &inputs {
            assert_eq!(decoded(text, true), decoded(text, false), "{text:?}");
        }
        for text in EDGES {
            for (i, _) in text.char_indices().skip(1) {
                let prefix = &text[..i];
                assert_eq!(decoded(prefix, true), decoded(prefix, false), "{prefix:?}");
            }
        }
    }

    #[test]
    fn the_lane_leaves_to_the_step_what_skip_ws_looks_at() {
        for c in 0..=255u8 {
            let start = super::START[usize::from(c)];
            assert_eq!(start == super::PASS, lex::is_ws(c), "{c}");
            assert_eq!(
                start == super::LEAVE,
                lex::MAY_SKIP[usize::from(c)] && !lex::is_ws(c),
                "{c}"
            );
        }
    }

    #[test]
    fn the_lane_changes_no_event() {
        for text in EDGES {
            same_with_and_without(text, true);
        }
    }

    #[test]
    fn the_lane_changes_no_event_of_the_corpora_or_their_prefixes() {
        for input in crate::scan::corpus_inputs() {
            same_with_and_without(&input, true);
            // Every prefix of the short ones, some of the long ones'.
            let step = 1 + input.len() / 512;
            for (i, _) in input.char_indices().skip(1).step_by(step) {
                same_with_and_without(&input[..i], false);
            }
        }
        for text in EDGES {
            for (i, _) in text.char_indices().skip(1) {
                same_with_and_without(&text[..i], true);
            }
        }
    }
}
