//! A JSON tokenizer that can stop at the end of any chunk and go on with
//! the next: the live path of [`StreamDecoder`](super::StreamDecoder).
//!
//! It accepts JSON (RFC 8259), and the repairs of [`Lenient`] it is given
//! (those models need most, read exactly as the tolerant scanner reads
//! them), and reports the structure it reads to a [`Sink`]. Anything else —
//! another repair the tolerant scanner would make — stops it
//! ([`Status::Bad`]): the live path then reads the container around it the
//! tolerant way and has the tokenizer go on after it
//! ([`Tokens::resume_after`], `tolerant`), or the stream decoder goes back
//! to reading the whole text (where every repair is the tolerant
//! scanner's).

use crate::scan::lex::{key_cut_at_end, key_then_colon, short_escape};

/// What a [`Tokens`] reports as it reads.
pub(crate) trait Sink {
    /// A container opened at `at` (its `{` or `[`).
    fn open(&mut self, text: &str, array: bool, at: usize);
    /// The current object member's key is complete: `key` (unescaped),
    /// written at `span` (quotes included).
    fn key(&mut self, key: &str, span: std::ops::Range<usize>);
    /// The innermost container closed; `end` is just after its closer.
    fn close(&mut self, text: &str, end: usize);
    /// A number or literal at `span` is complete.
    fn scalar(&mut self, text: &str, span: std::ops::Range<usize>);
    /// A string value opened at `at` (its quote).
    fn string_start(&mut self, text: &str, at: usize);
    /// The open string value grew by `piece`: raw text, or the character of
    /// an escape (`escaped`; empty when an escape started whose character
    /// has not arrived). `end`: where the string's text read so far ends.
    fn string_piece(&mut self, text: &str, piece: &str, end: usize, escaped: bool);
    /// The open string value closed; `end` is just after its quote.
    fn string_end(&mut self, text: &str, end: usize);
    /// A fence on a line of its own starts at `at` inside the open string
    /// value (in a value in a fence of its own): a decode of the text so far
    /// ends the fenced block there, until the string's quote closes it (see
    /// [`Tokens::fenced`]). The string took in its text up to `at` (and
    /// perhaps the fence's first backticks after it, raw); what comes
    /// after is its text too, read on.
    fn string_fenced(&mut self, text: &str, at: usize);
    /// The line [`string_fenced`](Sink::string_fenced) reported at the end
    /// of the text so far turned out not to be a fence on a line of its
    /// own (`\n```py`): the string is read on as before.
    fn string_unfenced(&mut self, text: &str);
    /// The string value that closed at `end` is known to end there: a
    /// byte other than a space followed its quote (a view of the text up
    /// to the quote takes the quote as perhaps inside the string).
    fn string_settled(&mut self, text: &str, end: usize);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// More may come.
    Open,
    /// The root value is complete; it ended at this offset.
    Done(usize),
    /// Not JSON at this offset.
    Bad(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A value is expected (the root, after `:`, after `,` in an array).
    Value,
    /// After `[`: a value or `]`.
    ArrayStart,
    /// After `{`: a key or `}`.
    ObjectStart,
    /// After `,` in an object.
    Key,
    /// After a key.
    Colon,
    /// After a value in a container.
    After,
    /// In a string (a key or a value).
    Str,
    /// In a number or literal.
    Word,
    Done,
}

/// What [`Tokens::fence_lines`] found.
enum Lines {
    /// No fence on a line of its own.
    None,
    /// One that the sink was told of: read on from `pos`.
    Fenced,
    /// One on a line that ends the text so far, held back.
    Held,
}

/// Inside a string: what an escape has read so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Escape {
    None,
    /// After `\`.
    Start,
    /// After `\u` and this many hex digits, with their value.
    Hex(u8, u32),
    /// A high surrogate was read; its low half must follow: `\`, `u`, then
    /// hex digits.
    Low(u32, u8, u32),
}

/// The repairs models need most, which a [`Tokens`] reads as they come:
/// each where the tolerant scanner's reading of it is local (decided by the
/// bytes up to the next token), so that the events are the ones the
/// scanner's reading gives. Each is on only if the decoder allows its
/// repair. Anything else is [`Status::Bad`], and the caller reads the text
/// the tolerant way.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lenient {
    /// A comma before a closer (`[1, 2,]`, `{"a": 1,}`) is read as absent.
    pub trailing_commas: bool,
    /// A string in single quotes, where `"` is content and `\'` an escape;
    /// its closing quote is one followed by the delimiter its place expects
    /// (`:` after a key, `,` or the closer after a value), spaces between,
    /// or by the end of the text so far (as a decode of that text reads
    /// it). A quote followed by anything else (`'it's'`) is `Bad`.
    pub single_quotes: bool,
    /// A key of letters, digits, `_`, `$` and `-` not starting with a digit
    /// or `-` and not a literal's name, then a colon (spaces between);
    /// anything else is `Bad`.
    pub bare_keys: bool,
    /// A raw control character in a string value (a newline, a tab: code
    /// and prose as models write them) is part of its text (in a key it is
    /// `Bad`). The sink sees the raw text; the tolerant scanner drops a raw
    /// whitespace tail that holds a newline from such a string when its
    /// quote closes it, which the sink applies. A fence on a line of its
    /// own inside such a string is `Bad` (a decode of the text so far ends
    /// the fenced block there).
    pub control_chars: bool,
    /// Python's `True`, `False` and `None` as values are the JSON literals.
    pub python_literals: bool,
    /// Comments between tokens (`//` and `#` to the line's end, `/* */`)
    /// are read as spaces, as the tolerant scanner skips them (`skip_ws`
    /// in `src/scan/lex.rs`; a `#` is one when a space, a `#` or a line end
    /// follows it).
    pub comments: bool,
    /// A comma missing between two values, where the tolerant scanner puts
    /// one back (`after_value` in `src/scan/mod.rs`) whatever comes later:
    /// in an array before a container, before a string (after a string,
    /// only across a line break), and before a number or a literal after
    /// anything but a string; in an object before a quoted key, after a
    /// string only once the key's colon has come (before that, the string
    /// is as cut as it is at its quote). (In an array, after a string on the
    /// same line, whether its quote closed it depends on text to come:
    /// `["a" "b" c` reads as one string.)
    pub missing_commas: bool,
    /// A decimal number as JSON5 writes it (`+1`, `.5`, `5.`, `5.e3`) is
    /// the number the tolerant scanner reads (`lex` in
    /// `src/scan/number.rs`). A hexadecimal one (`0x1F`), `Infinity`,
    /// `NaN`, and a token no number starts so (`..`, `+a`) are `Bad`.
    pub json5_numbers: bool,
}

/// The tokenizer's state: resumable at any byte.
#[derive(Debug)]
pub(crate) struct Tokens {
    /// The next byte to read.
    pub(crate) pos: usize,
    state: State,
    /// Open containers: `true` for an array.
    stack: Vec<bool>,
    max_depth: usize,
    /// The string being read is a key.
    in_key: bool,
    escape: Escape,
    /// The repairs read as they come (see [`Lenient`]).
    lenient: Lenient,
    /// The quote the string being read opened with.
    quote: u8,
    /// The last token was a comma in an array: a value or, with
    /// `trailing_commas`, the array's end follows.
    after_comma: bool,
    /// A key's text so far (unescaped).
    key: String,
    /// Where the string or word being read started.
    start: usize,
    /// A string value closed at this offset, not yet settled (see
    /// [`Sink::string_settled`]).
    closed: Option<usize>,
    /// Inside a comment that ran to the end of the text so far: `b'/'` for
    /// one to the line's end, `b'*'` for a block.
    comment: Option<u8>,
    /// Where the spaces after a number cut to a decode of the text so far
    /// (JSON5's `5.`) were looked at up to.
    spaces: usize,
    /// A raw line break in the open string at this offset, whose next line
    /// has not said yet whether it is a fence on a line of its own (see
    /// [`fence_line`]).
    line: Option<usize>,
    /// A fence marker came before the value (see [`fenced`](Self::fenced)).
    fence_before: bool,
    /// The value is in a fence of its own (see [`fenced`](Self::fenced)).
    own_fence: bool,
    /// In the open string, a fence on a line of its own closed the block
    /// for a decode of the text so far ([`Sink::string_fenced`]): where its
    /// backticks end.
    fenced_at: Option<usize>,
    /// Every string so far was double-quoted and read here, with no
    /// comment between: a decode's search for a fence's close reads the
    /// same strings (`json_fence_close` in `src/extract.rs`; a single
    /// quote, a comment or a container another reader took may pair its
    /// quotes otherwise). Only then is a string [`Sink::string_fenced`].
    plain_quotes: bool,
    /// That fence's line ends the text so far (more may follow on it,
    /// `\n```py`): the raw line break before it. Its text is held back.
    fence_held: Option<usize>,
    /// Where the open single-quoted string's first raw line break is.
    single_line_break: Option<usize>,
}

impl Tokens {
    pub(crate) fn new(at: usize, max_depth: usize) -> Tokens {
        Tokens {
            pos: at,
            state: State::Value,
            stack: Vec::new(),
            max_depth,
            in_key: false,
            escape: Escape::None,
            lenient: Lenient::default(),
            quote: b'"',
            after_comma: false,
            key: String::new(),
            start: at,
            closed: None,
            comment: None,
            spaces: 0,
            line: None,
            single_line_break: None,
            fence_before: false,
            own_fence: false,
            fenced_at: None,
            plain_quotes: true,
            fence_held: None,
        }
    }

    /// The text before a value not in a fence of its own holds a fence
    /// marker: a run of three backticks inside a string (a key or a value)
    /// is `Bad` there. A decode
    /// of the text so far may take it for the close of a fence opened
    /// before the value once any byte follows it (`closer_being_written` in
    /// `src/extract.rs`), and read that fence's content instead (`false`
    /// then `{"a": "x```y` in a fence is `[false]`).
    ///
    /// `own_fence`: the value is in a fence of its own. A fence on a line
    /// of its own inside a double-quoted string value then closes the block
    /// for a decode of the text so far only while the string runs to the
    /// end (`line_close` in `src/extract.rs`): the sink is told
    /// ([`Sink::string_fenced`]) and the string read on. (Any other fence
    /// marker in a string, or one in a value not in a fence, is `Bad`.)
    pub(crate) fn fenced(mut self, fence_before: bool, own_fence: bool) -> Tokens {
        self.fence_before = fence_before;
        self.own_fence = own_fence;
        self
    }

    /// Reads the repairs `lenient` turns on as it goes (see [`Lenient`]).
    pub(crate) fn lenient(mut self, lenient: Lenient) -> Tokens {
        self.lenient = lenient;
        self
    }

    /// How far the text has been read: where the next read starts, or,
    /// after a number cut while spaces follow it (see
    /// [`Lenient::json5_numbers`]), where those spaces were looked at to.
    pub(crate) fn read(&self) -> usize {
        self.pos.max(self.spaces)
    }

    /// Whether a member's key and its colon were read, and its value is
    /// due or being read as a word.
    pub(crate) fn in_member_value(&self) -> bool {
        self.stack.last() == Some(&false) && matches!(self.state, State::Value | State::Word)
    }

    /// Goes on at `at`, just after the closer of a container at depth
    /// `depth` (its own, counted from the root's 0) that was read by
    /// another reader (see `tolerant`): after a value in the container
    /// around it.
    pub(crate) fn resume_after(&mut self, at: usize, depth: usize) {
        debug_assert!(depth > 0 && depth < self.stack.len());
        self.stack.truncate(depth);
        self.pos = at;
        self.state = State::After;
        self.in_key = false;
        self.escape = Escape::None;
        self.after_comma = false;
        self.closed = None;
        self.comment = None;
        self.spaces = 0;
        self.line = None;
        self.single_line_break = None;
        self.fenced_at = None;
        self.fence_held = None;
        self.plain_quotes = false;
    }

    /// Reads `text` from where it stopped to the end.
    pub(crate) fn feed(&mut self, text: &str, sink: &mut impl Sink) -> Status {
        let b = text.as_bytes();
        while self.pos < b.len() {
            if let Some(kind) = self.comment {
                // Inside a comment: on to its end, if it has come.
                let (end, done) = comment_end(b, self.pos, kind);
                // A fence marker in a comment may end the value's span for
                // a decode (`{"a": "b" /* ```` at the end of a fence): read
                // the tolerant way. (Two bytes back: a marker cut by the
                // last push's end; the comment's opener holds no backtick.)
                if memchr::memmem::find(&b[self.pos.saturating_sub(2)..end], b"```").is_some() {
                    return Status::Bad(self.pos);
                }
                self.pos = end;
                if !done {
                    return Status::Open;
                }
                self.comment = None;
                continue;
            }
            let c = b[self.pos];
            match self.state {
                State::Str => {
                    if let Err(at) = self.string(text, sink) {
                        return Status::Bad(at);
                    }
                    // (A fence's line held back: the rest waits for more.)
                    if self.fence_held.is_some() {
                        return Status::Open;
                    }
                    continue;
                }
                State::Word => {
                    if is_delimiter(c) {
                        let span = self.start..self.pos;
                        let l = &self.lenient;
                        // (`{"a": -,`: a sign alone is no value, whatever
                        // follows.)
                        if !valid_word(&text[span.clone()], l.python_literals, l.json5_numbers) {
                            return Status::Bad(self.start);
                        }
                        // JSON5's `5.` or `2e` before a space: cut, to a
                        // decode of the text so far, while only spaces
                        // follow (the value's span ends with it); complete
                        // once a delimiter has come.
                        let word = &b[self.start..self.pos];
                        if matches!(c, b' ' | b'\t' | b'\n' | b'\r')
                            && !word[0].is_ascii_alphabetic()
                            && matches!(word.last(), Some(b'.' | b'e' | b'E' | b'+' | b'-'))
                        {
                            // (The spaces looked at before are not looked
                            // at again.)
                            let from = self.spaces.max(self.pos);
                            let n = from
                                + b[from..]
                                    .iter()
                                    .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
                                    .count();
                            match b.get(n) {
                                None => {
                                    self.spaces = n;
                                    return Status::Open;
                                }
                                Some(b',' | b']' | b'}') => {}
                                Some(_) => return Status::Bad(self.start),
                            }
                        }
                        // `{"total": 4,` at the end: digit groups may
                        // follow (`4,250`, which the tolerant scanner reads
                        // as one number), so the number is not known to be
                        // complete.
                        let groups = c == b','
                            && self.pos + 1 == b.len()
                            && self.stack.last() == Some(&false)
                            && !matches!(b[self.start], b't' | b'f' | b'n' | b'T' | b'F' | b'N');
                        if groups {
                            return Status::Open;
                        }
                        sink.scalar(text, span);
                        self.state = State::After;
                        if self.stack.is_empty() {
                            self.state = State::Done;
                            return Status::Done(self.pos);
                        }
                    } else if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.') {
                        self.pos += 1;
                        // `[truee`: no number or literal starts so. (A
                        // digit after a digit keeps a valid prefix valid,
                        // unless the integer so far is a lone `0`: a long
                        // number costs its length, not its length squared.)
                        let before = &b[self.start..self.pos - 1];
                        let more_digits = c.is_ascii_digit()
                            && before.last().is_some_and(u8::is_ascii_digit)
                            && !matches!(before, b"0" | b"-0" | b"+0");
                        let l = &self.lenient;
                        if !more_digits {
                            crate::work::add(self.pos - self.start);
                        }
                        if !more_digits
                            && !valid_prefix(
                                &text[self.start..self.pos],
                                l.python_literals,
                                l.json5_numbers,
                            )
                        {
                            return Status::Bad(self.start);
                        }
                    } else {
                        return Status::Bad(self.pos);
                    }
                    continue;
                }
                State::Done => return Status::Done(self.pos),
                _ => {}
            }
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
                continue;
            }
            // (Not after a key's colon: a decode reads a lone `/` there as
            // a value of its own until the next byte.)
            let after_colon = self.state == State::Value && self.stack.last() == Some(&false);
            if self.lenient.comments && matches!(c, b'/' | b'#') && !after_colon {
                let next = b.get(self.pos + 1).copied();
                let kind = match (c, next) {
                    // Not known yet: the next byte says.
                    (_, None) => return Status::Open,
                    (b'/', Some(b'/')) => Some(b'/'),
                    (b'/', Some(b'*')) => Some(b'*'),
                    (b'#', Some(b' ' | b'#' | b'\n' | b'\r' | b'\t')) => Some(b'/'),
                    _ => None,
                };
                if let Some(kind) = kind {
                    self.pos += 2;
                    self.comment = Some(kind);
                    self.plain_quotes = false;
                    continue;
                }
            }
            if c == b'"' && self.state == State::After && self.lenient.missing_commas {
                if let Some(end) = self.closed {
                    // A string, then another with no comma between: whether
                    // the first one's quote closed it is `closes`' verdict
                    // (in `src/scan/string.rs`).
                    if let Some(status) = self.string_after_string(b, end) {
                        return status;
                    }
                }
            }
            // (A string value just closed: what follows settles it.)
            let after_string = self.closed.take().map(|end| sink.string_settled(text, end));
            let at = self.pos;
            let after_comma = std::mem::take(&mut self.after_comma);
            let trailing = self.lenient.trailing_commas
                && match (self.state, c) {
                    (State::Value, b']') => after_comma,
                    (State::Key, b'}') => true,
                    _ => false,
                };
            if trailing {
                // `[1, 2,]`, `{"a": 1,}`: the comma goes, the closer ends
                // the container.
                self.state = State::After;
            }
            match (self.state, c) {
                (State::Value | State::ArrayStart, b'{' | b'[') => {
                    if self.stack.len() >= self.max_depth {
                        return Status::Bad(at);
                    }
                    let array = c == b'[';
                    self.stack.push(array);
                    sink.open(text, array, at);
                    self.state = if array {
                        State::ArrayStart
                    } else {
                        State::ObjectStart
                    };
                    self.pos += 1;
                }
                (State::Value | State::ArrayStart, b'"') => {
                    self.in_key = false;
                    self.begin_string(at, c);
                    sink.string_start(text, at);
                }
                (State::Value | State::ArrayStart, b'\'') if self.lenient.single_quotes => {
                    self.in_key = false;
                    self.begin_string(at, c);
                    sink.string_start(text, at);
                }
                (State::Value | State::ArrayStart, _)
                    if starts_word(c, self.lenient.python_literals, self.lenient.json5_numbers) =>
                {
                    // The root is always a container here.
                    self.state = State::Word;
                    self.start = at;
                    self.pos += 1;
                }
                (State::ObjectStart | State::Key, b'"') => {
                    self.in_key = true;
                    self.key.clear();
                    self.begin_string(at, c);
                }
                (State::ObjectStart | State::Key, b'\'') if self.lenient.single_quotes => {
                    self.in_key = true;
                    self.key.clear();
                    self.begin_string(at, c);
                }
                (State::ObjectStart | State::Key, c)
                    if self.lenient.bare_keys
                        && (c.is_ascii_alphabetic() || c == b'_' || c == b'$') =>
                {
                    match bare_key(b, at) {
                        BareKey::Key(end, colon) => {
                            sink.key(&text[at..end], at..end);
                            self.state = State::Value;
                            self.pos = colon + 1;
                        }
                        BareKey::Open => return Status::Open,
                        BareKey::Bad(k) => return Status::Bad(k),
                    }
                }
                (State::Colon, b':') => {
                    self.state = State::Value;
                    self.pos += 1;
                }
                (State::After, b',') => {
                    self.state = match self.stack.last() {
                        Some(true) => State::Value,
                        _ => State::Key,
                    };
                    self.after_comma = self.stack.last() == Some(&true);
                    self.pos += 1;
                }
                (State::After | State::ArrayStart, b']')
                | (State::After | State::ObjectStart, b'}')
                    if self.stack.last() == Some(&(c == b']')) =>
                {
                    self.stack.pop();
                    self.pos += 1;
                    sink.close(text, self.pos);
                    if self.stack.is_empty() {
                        self.state = State::Done;
                        return Status::Done(self.pos);
                    }
                    self.state = State::After;
                }
                (State::After, c)
                    if self.lenient.missing_commas
                        && self.comma_missing(c, after_string.is_some()) =>
                {
                    // `[{"a": 1} {"b": 2}]`, `{"a": 1 "b": 2}`: the comma goes
                    // back where it belonged, and the byte is read again.
                    self.state = match self.stack.last() {
                        Some(true) => State::Value,
                        _ => State::Key,
                    };
                }
                _ => return Status::Bad(at),
            }
        }
        Status::Open
    }

    /// After a value in a container, `c` where a comma belonged: whether
    /// the tolerant scanner puts one back (see [`Lenient::missing_commas`]).
    /// `after_string`: the value was a string (a `"` after it was checked
    /// by [`string_after_string`](Self::string_after_string)).
    fn comma_missing(&self, c: u8, after_string: bool) -> bool {
        let array = self.stack.last() == Some(&true);
        match c {
            b'{' | b'[' => array,
            b'"' => true,
            // (Not before JSON5's `+1` or `.5`: after a value, a `+` may
            // join strings, and `...` stands for values left out.)
            _ => array && !after_string && starts_word(c, self.lenient.python_literals, false),
        }
    }

    /// A `"` at `pos` after a string value that closed at `end`, with no
    /// comma between: `None` when the quote closed that string (the comma
    /// goes back), else what to report. In an object it did only if a key
    /// and its colon follow (`{"a": "x"\n "b": 1}`); until they have come,
    /// the string is as cut as it is at its quote. In a list, it did when a
    /// line break stands between them (on one line, the verdict waits on
    /// what follows the next string).
    fn string_after_string(&self, b: &[u8], end: usize) -> Option<Status> {
        let at = self.pos;
        // `""` with a third quote right after it opens a triple-quoted
        // string (`"""`), as the tolerant scanner reads it: no JSON.
        if end == self.start + 2 && at == end && self.quote == b'"' {
            return Some(Status::Bad(self.start));
        }
        if self.stack.last() == Some(&false) {
            // An empty string is closed by its second quote whatever comes
            // after (but a word: `""text""`, which is no JSON as written),
            // as the tolerant scanner reads it: no verdict waits.
            if key_then_colon(b, at, b.len()).is_some() || end == self.start + 2 {
                return None;
            }
            // (Not where the text ends in a space the decode trims and this
            // reader does not skip, `\u{c}` or `\u{a0}`: the decode's span
            // ends before it, and a key cut with text after its span is no
            // key cut by the end.)
            let spaced = std::str::from_utf8(&b[at..]).is_ok_and(|rest| {
                rest.trim_end().len() != rest.trim_end_matches([' ', '\t', '\n', '\r']).len()
            });
            // (Nor one holding a fence marker, which a decode's search for
            // its fence's close may take for it once the key is read as
            // cut: `{"key": "value" "  ``` at the end of a fence.)
            let ticks = memchr::memmem::find(&b[at..], b"```").is_some();
            return Some(match key_cut_at_end(b, at, b.len()) && !spaced && !ticks {
                true => Status::Open,
                false => Status::Bad(at),
            });
        }
        let gap = &b[end..at];
        let line = gap.iter().any(|&c| matches!(c, b'\n' | b'\r'))
            && gap
                .iter()
                .all(|&c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
        (!line).then_some(Status::Bad(at))
    }

    fn begin_string(&mut self, at: usize, quote: u8) {
        self.quote = quote;
        self.plain_quotes &= quote == b'"';
        self.state = State::Str;
        self.escape = Escape::None;
        self.start = at;
        self.pos = at + 1;
        self.single_line_break = None;
        self.fenced_at = None;
        self.fence_held = None;
    }

    /// Reads string content from `pos` up to its end or the text's; `Err`
    /// with the offset of what is not JSON.
    fn string(&mut self, text: &str, sink: &mut impl Sink) -> Result<(), usize> {
        let b = text.as_bytes();
        // A fence's line that ended the last text: held back until it says
        // whether it is one on a line of its own.
        if self.fence_held.is_some() && !self.fence_resumed(text, sink) {
            return Ok(());
        }
        loop {
            if self.escape != Escape::None {
                if self.pos == b.len() {
                    return Ok(());
                }
                let c = b[self.pos];
                self.pos += 1;
                if let Some(ch) = self.escaped(c).ok_or(self.pos - 1)? {
                    let mut buf = [0u8; 4];
                    self.emit(text, sink, ch.encode_utf8(&mut buf), true);
                }
                continue;
            }
            let run = self.pos;
            let mut i = run;
            let q = self.quote;
            let control = self.lenient.control_chars && !self.in_key;
            let mut raw = false;
            while i < b.len() && b[i] != q && b[i] != b'\\' {
                if b[i] < 0x20 {
                    if !control {
                        break;
                    }
                    raw = true;
                }
                i += 1;
            }
            // A fence on a line of its own inside a string that runs to the
            // end closes the fenced block for a decode of the text so far
            // (`line_close` in `src/extract.rs`).
            if raw || self.line.is_some() || self.fenced_at.is_some() {
                match self.fence_lines(text, sink, run, i)? {
                    Lines::None => {}
                    Lines::Fenced => continue,
                    Lines::Held => return Ok(()),
                }
            }
            // A single-quoted string ends at its line's end for the search
            // for a fence's close (`single_quoted_end` in
            // `src/extract.rs`): a marker after a raw line break in one may
            // close the block for a decode.
            if q == b'\'' && raw && self.single_line_break.is_none() {
                self.single_line_break = memchr::memchr(b'\n', &b[run..i]).map(|k| run + k);
            }
            if let Some(nl) = self.single_line_break.filter(|_| i > run) {
                let from = run.saturating_sub(2).max(nl);
                if let Some(k) = memchr::memmem::find(&b[from..i], b"```") {
                    return Err(from + k);
                }
            }
            if self.fence_before && i > run {
                // The run's first ticks may have come before it.
                let from = run.saturating_sub(2).max(self.start + 1);
                if let Some(k) = memchr::memmem::find(&b[from..i], b"```") {
                    return Err(from + k);
                }
            }
            if i > run {
                self.pos = i;
                self.emit(text, sink, &text[run..i], false);
            }
            if i == b.len() {
                return Ok(());
            }
            match b[i] {
                b'\'' if q == b'\'' => {
                    // A closing quote only where the place's delimiter, or
                    // the end of the text so far, follows.
                    let mut j = i + 1;
                    while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\n' | b'\r') {
                        j += 1;
                    }
                    let closes = matches!(
                        (b.get(j), self.in_key, self.stack.last()),
                        (None, ..)
                            | (Some(b':'), true, _)
                            | (Some(b','), false, _)
                            | (Some(b'}'), false, Some(false))
                            | (Some(b']'), false, Some(true))
                    );
                    if !closes {
                        return Err(i);
                    }
                    self.close_string(text, sink, i + 1);
                    return Ok(());
                }
                b'"' => {
                    self.close_string(text, sink, i + 1);
                    return Ok(());
                }
                b'\\' => {
                    self.pos = i + 1;
                    self.escape = Escape::Start;
                    if !self.in_key {
                        sink.string_piece(text, "", self.pos, true);
                    }
                }
                _ => return Err(i),
            }
        }
    }

    /// The raw line breaks of the open string's run `run..i` (and of the
    /// line left undecided before it): a fence on a line of its own after
    /// one is `Bad`, but in a value in a fence of its own, where the decode
    /// shows the string as it was there until its quote closes it: the
    /// sink is told and the string read on (`Lines::Fenced`, from `pos`),
    /// or, on a line that ends the text so far, held back (`Lines::Held`).
    /// After that, any marker in the string may open another block: `Bad`.
    #[inline(never)]
    fn fence_lines(
        &mut self,
        text: &str,
        sink: &mut impl Sink,
        run: usize,
        i: usize,
    ) -> Result<Lines, usize> {
        let b = text.as_bytes();
        let own = self.own_fence && self.plain_quotes && !self.in_key;
        if let Some(after) = self.fenced_at.filter(|_| i > run) {
            let from = run.saturating_sub(2).max(after);
            if let Some(k) = memchr::memmem::find(&b[from..i.max(from)], b"```") {
                return Err(from + k);
            }
        }
        let from = self.line.take().unwrap_or(run);
        for nl in memchr::memchr_iter(b'\n', &b[from.min(i)..i]).map(|k| k + from.min(i)) {
            match fence_line(b, nl) {
                // (After a line that ends in a closer, a decode may close
                // the block there for good: `closes_value` in
                // `src/extract.rs`.)
                Some((ticks, end)) if own && self.fenced_at.is_none() && !after_closer(b, nl) => {
                    // (Its first backticks may have come before this run:
                    // the sink took them in.)
                    self.pos = ticks.max(run);
                    if ticks > run {
                        self.emit(text, sink, &text[run..ticks], false);
                    }
                    sink.string_fenced(text, ticks);
                    self.fenced_at = Some(end);
                    // (At the text's end, more may follow on its line:
                    // `\n```py` opens a code sample.)
                    if end == b.len() {
                        self.fence_held = Some(nl);
                        return Ok(Lines::Held);
                    }
                    return Ok(Lines::Fenced);
                }
                Some(_) => return Err(nl),
                None if fence_line_cut(b, nl) => {
                    self.line = Some(nl);
                    break;
                }
                None => {}
            }
        }
        Ok(Lines::None)
    }

    /// A fence's line held back at the end of the last text (see
    /// [`fence_lines`](Self::fence_lines)), read again: `false` while it
    /// still ends the text so far.
    #[inline(never)]
    fn fence_resumed(&mut self, text: &str, sink: &mut impl Sink) -> bool {
        let Some(nl) = self.fence_held else {
            return true;
        };
        let b = text.as_bytes();
        match fence_line(b, nl) {
            Some((_, end)) if end == b.len() => return false,
            Some((_, end)) => self.fenced_at = Some(end),
            None => {
                self.fenced_at = None;
                sink.string_unfenced(text);
            }
        }
        self.fence_held = None;
        true
    }

    /// Ends the string being read at `end` (after its closing quote).
    fn close_string(&mut self, text: &str, sink: &mut impl Sink, end: usize) {
        self.pos = end;
        self.line = None;
        self.state = State::After;
        if self.in_key {
            self.state = State::Colon;
            let key = std::mem::take(&mut self.key);
            sink.key(&key, self.start..self.pos);
            self.key = key;
        } else {
            sink.string_end(text, self.pos);
            self.closed = Some(self.pos);
        }
    }

    fn emit(&mut self, text: &str, sink: &mut impl Sink, piece: &str, escaped: bool) {
        if self.in_key {
            self.key.push_str(piece);
        } else {
            sink.string_piece(text, piece, self.pos, escaped);
        }
    }

    /// The escape goes on with byte `c`: `Some(Some(ch))` when it is
    /// complete, `Some(None)` while it goes on, `None` when it is not JSON.
    fn escaped(&mut self, c: u8) -> Option<Option<char>> {
        let hex = |c: u8| (c as char).to_digit(16);
        match self.escape {
            Escape::Start => {
                let ch = match short_escape(c) {
                    Some(ch) => ch,
                    None if c == b'\'' && self.quote == b'\'' => '\'',
                    None if c == b'u' => {
                        self.escape = Escape::Hex(0, 0);
                        return Some(None);
                    }
                    None => return None,
                };
                self.escape = Escape::None;
                Some(Some(ch))
            }
            Escape::Hex(n, v) => {
                let v = v * 16 + hex(c)?;
                if n < 3 {
                    self.escape = Escape::Hex(n + 1, v);
                    return Some(None);
                }
                match v {
                    0xD800..=0xDBFF => {
                        self.escape = Escape::Low(v, 0, 0);
                        Some(None)
                    }
                    0xDC00..=0xDFFF => None,
                    _ => {
                        self.escape = Escape::None;
                        Some(Some(char::from_u32(v)?))
                    }
                }
            }
            Escape::Low(high, n, v) => {
                match (n, c) {
                    (0, b'\\') | (1, b'u') => {
                        self.escape = Escape::Low(high, n + 1, 0);
                        return Some(None);
                    }
                    (0 | 1, _) => return None,
                    _ => {}
                }
                let v = v * 16 + hex(c)?;
                if n < 5 {
                    self.escape = Escape::Low(high, n + 1, v);
                    return Some(None);
                }
                if !(0xDC00..=0xDFFF).contains(&v) {
                    return None;
                }
                self.escape = Escape::None;
                char::from_u32(0x10000 + ((high - 0xD800) << 10) + (v - 0xDC00)).map(Some)
            }
            Escape::None => None,
        }
    }
}

/// How a key without quotes at `at` goes on.
enum BareKey {
    /// It ends at the first offset, its colon is at the second.
    Key(usize, usize),
    /// The text ends before its colon.
    Open,
    /// Not a key read this way, at this offset.
    Bad(usize),
}

/// The longest key without quotes read as it comes (its spaces before the
/// colon included).
const MAX_BARE_KEY: usize = 256;

/// Where the comment of `kind` (see [`Tokens::comment`]) that goes on at
/// `i` ends, and whether it ended (else it runs to the end of `b`; a block
/// comment's `*` at the very end is left to be read with the next text).
fn comment_end(b: &[u8], i: usize, kind: u8) -> (usize, bool) {
    if kind == b'/' {
        let end = crate::text::find_line_end(b, i, b.len());
        return (end, end < b.len());
    }
    match memchr::memmem::find(&b[i..], b"*/") {
        Some(k) => (i + k + 2, true),
        None if b.last() == Some(&b'*') => (b.len() - 1, false),
        None => (b.len(), false),
    }
}

/// Whether the line after the raw line break at `nl` is a fence on a line
/// of its own (`` ``` `` or more, spaces around it, then a line break or
/// the end of the text so far): where its backticks start and where the
/// line ends (the end of the text so far, or its line break).
fn fence_line(b: &[u8], nl: usize) -> Option<(usize, usize)> {
    let mut k = nl + 1;
    while k < b.len() && matches!(b[k], b' ' | b'\t') {
        k += 1;
    }
    let ticks = b[k..].iter().take_while(|&&c| c == b'`').count();
    let mut e = k + ticks;
    if ticks < 3 {
        return None;
    }
    while e < b.len() && matches!(b[e], b' ' | b'\t' | b'\r') {
        e += 1;
    }
    (e == b.len() || b[e] == b'\n').then_some((k, e))
}

/// Whether the text before the raw line break at `nl` ends, past spaces and
/// line breaks, in a closer.
fn after_closer(b: &[u8], nl: usize) -> bool {
    b[..nl]
        .iter()
        .rposition(|&c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        .is_some_and(|k| matches!(b[k], b'}' | b']'))
}

/// Whether the text so far ends on the line after the raw line break at
/// `nl` before saying whether it is a fence on a line of its own (see
/// [`fence_line`]): spaces, then fewer than three backticks.
fn fence_line_cut(b: &[u8], nl: usize) -> bool {
    let mut k = nl + 1;
    while k < b.len() && matches!(b[k], b' ' | b'\t') {
        k += 1;
    }
    let ticks = b[k..].iter().take_while(|&&c| c == b'`').count();
    ticks < 3 && k + ticks == b.len()
}

/// Reads a key without quotes at `at` (see [`Tokens::lenient`]).
fn bare_key(b: &[u8], at: usize) -> BareKey {
    let mut end = at;
    while end < b.len() && (b[end].is_ascii_alphanumeric() || matches!(b[end], b'_' | b'$' | b'-'))
    {
        end += 1;
    }
    // Read again from its start on each push until its colon comes: a
    // longer run is prose, not a key.
    if end - at > MAX_BARE_KEY {
        return BareKey::Bad(at);
    }
    let mut j = end;
    while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\n' | b'\r') {
        j += 1;
    }
    match b.get(j) {
        None if j - at <= MAX_BARE_KEY => BareKey::Open,
        None => BareKey::Bad(at),
        Some(b':') if !matches!(&b[at..end], b"true" | b"false" | b"null") => BareKey::Key(end, j),
        Some(_) => BareKey::Bad(j),
    }
}

fn is_delimiter(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}')
}

/// Whether a number or literal starts with `c` (`python`: or Python's;
/// `json5`: or a number as JSON5 writes it, `+1` or `.5`).
fn starts_word(c: u8, python: bool, json5: bool) -> bool {
    matches!(c, b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
        || (python && matches!(c, b'T' | b'F' | b'N'))
        || (json5 && matches!(c, b'+' | b'.'))
}

/// Whether a JSON number or literal starts with `w` (checked on each byte
/// of the token, without allocating). `json5`: or a decimal number as
/// JSON5 writes it (`+1`, `.5`, `5.`, `5.e3`; see
/// [`Lenient::json5_numbers`]).
fn valid_prefix(w: &str, python: bool, json5: bool) -> bool {
    if ["true", "false", "null"].iter().any(|l| l.starts_with(w)) {
        return true;
    }
    if python && ["True", "False", "None"].iter().any(|l| l.starts_with(w)) {
        return true;
    }
    let b = w.as_bytes();
    let n = b.len();
    let digits = |mut i: usize| {
        while i < n && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let sign = matches!(b.first(), Some(b'-')) || (json5 && b.first() == Some(&b'+'));
    let int = usize::from(sign);
    let mut i = int;
    match b.get(i) {
        None => return true,
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i + 1),
        // `.5`: the digits come after the dot.
        Some(b'.') if json5 => {}
        _ => return false,
    }
    let int_digits = i > int;
    if b.get(i) == Some(&b'.') {
        let frac = i + 1;
        i = digits(frac);
        // `1.e5`: a fraction needs a digit (JSON5's `5.e3` has none, after
        // an integer's digits; `.e3` is no number).
        if i == frac && i < n && !(json5 && int_digits && matches!(b[i], b'e' | b'E')) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(i);
    }
    i == n
}

/// A complete JSON number or literal (`python`: or Python's literal;
/// `json5`: or a decimal number as JSON5 writes it).
fn valid_word(w: &str, python: bool, json5: bool) -> bool {
    matches!(w, "true" | "false" | "null")
        || (python && matches!(w, "True" | "False" | "None"))
        || crate::coerce::is_json_number(w)
        || (json5 && crate::scan::number::decimal_spelling(w).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<String>);

    impl Sink for Log {
        fn open(&mut self, _: &str, array: bool, at: usize) {
            self.0.push(format!("open {array} {at}"));
        }
        fn key(&mut self, key: &str, span: std::ops::Range<usize>) {
            self.0.push(format!("key {key} {span:?}"));
        }
        fn close(&mut self, _: &str, end: usize) {
            self.0.push(format!("close {end}"));
        }
        fn scalar(&mut self, text: &str, span: std::ops::Range<usize>) {
            self.0.push(format!("scalar {}", &text[span]));
        }
        fn string_start(&mut self, _: &str, at: usize) {
            self.0.push(format!("str {at}"));
        }
        fn string_piece(&mut self, _: &str, piece: &str, _: usize, _: bool) {
            self.0.push(format!("piece {piece:?}"));
        }
        fn string_end(&mut self, _: &str, end: usize) {
            self.0.push(format!("end {end}"));
        }
        fn string_settled(&mut self, _: &str, end: usize) {
            self.0.push(format!("settled {end}"));
        }
        fn string_fenced(&mut self, _: &str, at: usize) {
            self.0.push(format!("fenced {at}"));
        }
        fn string_unfenced(&mut self, _: &str) {
            self.0.push("unfenced".to_owned());
        }
    }

    /// Fed one byte at a time, the same events but for where string pieces
    /// are split.
    #[test]
    fn resumes_anywhere() {
        let doc = r#"{"a\u00e9": [1, -2.5e3, true, null, "x\"\ud83d\ude00y"], "b": {}}"#;
        let mut whole = Log::default();
        let mut t = Tokens::new(0, 128);
        assert_eq!(t.feed(doc, &mut whole), Status::Done(doc.len()));
        let mut bytes = Log::default();
        let mut t = Tokens::new(0, 128);
        for end in 1..=doc.len() {
            let status = t.feed(&doc[..end], &mut bytes);
            assert_eq!(status == Status::Open, end < doc.len(), "{end}");
        }
        let joined = |log: &Log| {
            let mut out: Vec<String> = Vec::new();
            for e in &log.0 {
                match (out.last_mut(), e.strip_prefix("piece ")) {
                    (Some(last), Some(p)) if last.starts_with("piece ") => {
                        let a: String = serde_json::from_str(&last[6..]).unwrap();
                        let b: String = serde_json::from_str(p).unwrap();
                        *last = format!("piece {:?}", a + &b);
                    }
                    _ => out.push(e.clone()),
                }
            }
            out
        };
        assert_eq!(joined(&whole), joined(&bytes));
        assert!(whole.0.contains(&"key aé 1..10".to_owned()));
        assert!(whole.0.contains(&"scalar -2.5e3".to_owned()));
    }

    /// The shortcut `Tokens` takes for a digit after a digit (no check of
    /// the word so far) is exact: every valid prefix ending in a digit
    /// stays valid with another, but a lone `0`'s.
    #[test]
    fn a_digit_after_a_digit_keeps_a_prefix_valid() {
        let alphabet = ["0", "1", "9", ".", "e", "+", "-"];
        let mut words = vec![String::new()];
        for _ in 0..6 {
            let longer: Vec<String> = words
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            for json5 in [false, true] {
                for w in &longer {
                    let ends_digit = w.as_bytes().last().is_some_and(u8::is_ascii_digit);
                    if !ends_digit || !valid_prefix(w, false, json5) {
                        continue;
                    }
                    let lone_zero = matches!(w.as_str(), "0" | "-0" | "+0");
                    for d in ["0", "5"] {
                        let next = format!("{w}{d}");
                        assert_eq!(valid_prefix(&next, false, json5), !lone_zero, "{next}");
                    }
                }
            }
            words = longer;
        }
    }

    #[test]
    fn number_and_literal_prefixes() {
        for ok in [
            "-", "0", "-0", "1", "12", "1.", "1.5", "1e", "1E+", "1.5e-3", "t", "nul", "false",
        ] {
            assert!(valid_prefix(ok, false, false), "{ok}");
            assert!(valid_prefix(ok, false, true), "{ok}");
        }
        for bad in [
            "00", "01", "-a", "1.e5", "1..", "1e5e", "truee", "nx", "+1", ".5", "1.5.2",
        ] {
            assert!(!valid_prefix(bad, false, false), "{bad}");
        }
        // JSON5's decimal numbers only where they are read.
        for ok in [
            "+", ".", "+.", "-.", "+1", ".5", "-.5", "+1.5e3", "5.e", "5.e3", "1.e5",
        ] {
            assert!(valid_prefix(ok, false, true), "{ok}");
        }
        for bad in [
            "+0x1", "0x", "..", ".e", "+.e", "+a", "++1", "+01", "1.5.2", "+I",
        ] {
            assert!(!valid_prefix(bad, false, true), "{bad}");
        }
        for (word, json) in [
            ("+1", "1"),
            (".5", "0.5"),
            ("-.5", "-0.5"),
            ("5.", "5"),
            ("5.e3", "5e3"),
            ("1e", "1"),
        ] {
            assert!(valid_word(word, false, true) && !valid_word(word, false, false));
            let spelled = crate::scan::number::decimal_spelling(word);
            assert_eq!(spelled.as_deref(), Some(json), "{word}");
        }
        for bad in ["+", ".", "0x1F", "+Infinity", "NaN", "+0x", "..."] {
            assert!(!valid_word(bad, false, true), "{bad}");
        }
        // Python's literals only where they are read.
        for word in ["T", "Tru", "True", "F", "None", "N"] {
            assert!(
                valid_prefix(word, true, false) && !valid_prefix(word, false, false),
                "{word}"
            );
        }
        for word in ["True", "False", "None"] {
            assert!(
                valid_word(word, true, false) && !valid_word(word, false, false),
                "{word}"
            );
        }
        for bad in ["Truee", "Nonetheless", "TRUE", "none", "Null"] {
            assert!(!valid_word(bad, true, false), "{bad}");
        }
    }

    #[test]
    fn refuses_what_is_not_json() {
        for bad in [
            "{'a': 1}",
            "[1,]",
            "[01]",
            "[1.]",
            "{\"a\" 1}",
            "[\"\\x\"]",
            "[\"\\udc00\"]",
            "[\"\\ud800x\"]",
            "[tru]",
            "[1 2]",
            "[\"a\nb\"]",
            "{\"a\": 1,}",
            "[NaN]",
            "[1}",
        ] {
            let mut t = Tokens::new(0, 128);
            assert!(
                matches!(t.feed(bad, &mut Log::default()), Status::Bad(_)),
                "{bad}"
            );
        }
        let mut t = Tokens::new(0, 2);
        assert!(matches!(
            t.feed("[[[1]]]", &mut Log::default()),
            Status::Bad(2)
        ));
    }

    /// With trailing commas allowed, a comma before a closer gives the
    /// events the text without it gives, fed whole or a byte at a time; a
    /// comma anywhere else is still no JSON.
    #[test]
    fn trailing_commas_read_as_absent() {
        let with = "{\"a\": [1, [2,], {\"b\": 3,},\n], \"c\": {},\t}";
        let without = "{\"a\": [1, [2 ], {\"b\": 3 } \n], \"c\": {} \t}";
        let mut want = Log::default();
        let mut t = Tokens::new(0, 128);
        assert_eq!(t.feed(without, &mut want), Status::Done(without.len()));
        let mut got = Log::default();
        let mut t = Tokens::new(0, 128).lenient(Lenient {
            trailing_commas: true,
            ..Lenient::default()
        });
        assert_eq!(t.feed(with, &mut got), Status::Done(with.len()));
        assert_eq!(got.0, want.0);
        let mut bytes = Log::default();
        let mut t = Tokens::new(0, 128).lenient(Lenient {
            trailing_commas: true,
            ..Lenient::default()
        });
        for end in 1..=with.len() {
            let status = t.feed(&with[..end], &mut bytes);
            assert_eq!(status == Status::Open, end < with.len(), "{end}");
        }
        assert_eq!(bytes.0, want.0);
        for bad in ["[1,,]", "[,]", "{,}", "{\"a\":,}", "{\"a\": 1,,}", "[1,}"] {
            let mut t = Tokens::new(0, 128).lenient(Lenient {
                trailing_commas: true,
                ..Lenient::default()
            });
            assert!(
                matches!(t.feed(bad, &mut Log::default()), Status::Bad(_)),
                "{bad}"
            );
        }
        let mut t = Tokens::new(0, 128);
        assert!(matches!(
            t.feed("[1,]", &mut Log::default()),
            Status::Bad(3)
        ));
    }

    /// The events of `doc` read whole and a byte at a time by a lenient
    /// tokenizer, which must agree (string pieces joined); the status.
    fn lenient_events(doc: &str) -> (Vec<String>, Status) {
        let mut whole = Log::default();
        let mut t = Tokens::new(0, 128).lenient(Lenient {
            trailing_commas: true,
            single_quotes: true,
            bare_keys: true,
            ..Lenient::default()
        });
        let status = t.feed(doc, &mut whole);
        let mut bytes = Log::default();
        let mut t = Tokens::new(0, 128).lenient(Lenient {
            trailing_commas: true,
            single_quotes: true,
            bare_keys: true,
            ..Lenient::default()
        });
        let mut last = Status::Open;
        for end in 1..=doc.len() {
            if doc.is_char_boundary(end) {
                last = t.feed(&doc[..end], &mut bytes);
                if last != Status::Open {
                    break;
                }
            }
        }
        // A quote closed at the end of the text so far, then refused at
        // what came next, is refused there, a little later.
        match (last, status) {
            (Status::Bad(a), Status::Bad(b)) => assert!(a >= b, "{doc}"),
            _ => assert_eq!(last, status, "{doc}"),
        }
        let joined = |log: Log| {
            let mut out: Vec<String> = Vec::new();
            let mut text = None::<String>;
            for e in log.0 {
                if let Some(p) = e.strip_prefix("piece ") {
                    let p: String = serde_json::from_str(p).expect("a piece");
                    text.get_or_insert_with(String::new).push_str(&p);
                    continue;
                }
                if let Some(t) = text.take() {
                    out.push(format!("piece {t:?}"));
                }
                out.push(e);
            }
            out.extend(text.map(|t| format!("piece {t:?}")));
            out
        };
        let (w, b) = (joined(whole), joined(bytes));
        // (A refused text's events stop where each read refused it.)
        if matches!(status, Status::Done(_)) {
            assert_eq!(w, b, "{doc}");
        }
        (w, status)
    }

    /// Single quotes and keys without quotes give the events of the same
    /// document written as JSON (but for where things are); a quote or key
    /// the tolerant scanner may read otherwise is `Bad`.
    #[test]
    fn single_quotes_and_bare_keys() {
        let json = r#"{"a": ["x", "say \"hi\"", "it's"], "b_2": {"$c": "q"}, "d": 1}"#;
        let messy = r#"{a: ['x', 'say "hi"', 'it\'s' ], b_2 : {$c: 'q'} , 'd' : 1}"#;
        // Offsets differ; what the events say does not.
        let strip = |events: Vec<String>| -> Vec<String> {
            events
                .into_iter()
                .map(|e| match e.split_once(' ') {
                    Some(("key", rest)) => format!("key {}", rest.split(' ').next().unwrap()),
                    Some(("open", rest)) => format!("open {}", rest.split(' ').next().unwrap()),
                    Some(("close" | "str" | "end" | "settled", _)) => {
                        e.split(' ').next().unwrap().to_owned()
                    }
                    _ => e,
                })
                .collect()
        };
        let (want, _) = lenient_events(json);
        let (got, status) = lenient_events(messy);
        assert_eq!(status, Status::Done(messy.len()));
        assert_eq!(strip(got), strip(want));
        for bad in [
            "{'a': 'it's'}",
            "{'a' 'b'}",
            "['a' 'b']",
            "{a b: 1}",
            "{true: 1}",
            "{1a: 2}",
            "['a'}",
            "{'a': 'b']",
            "['\\x']",
        ] {
            let (_, status) = lenient_events(bad);
            assert!(matches!(status, Status::Bad(_)), "{bad}");
        }
        // Cut at the end: a quote closes (as a decode of that text reads
        // it); a key waits for its colon.
        let (events, status) = lenient_events("{'a': 'it'");
        assert_eq!(status, Status::Open);
        assert_eq!(events.last().map(String::as_str), Some("end 10"));
        let (events, status) = lenient_events("{abc");
        assert_eq!(status, Status::Open);
        assert_eq!(events, ["open false 0"]);
        let long = format!("{{{}", "k".repeat(300));
        assert_eq!(lenient_events(&long).1, Status::Bad(1));
        // Off, each is `Bad`.
        for doc in ["{'a': 1}", "{a: 1}", "['a']"] {
            let mut t = Tokens::new(0, 128).lenient(Lenient {
                trailing_commas: true,
                ..Lenient::default()
            });
            let status = t.feed(doc, &mut Log::default());
            assert!(matches!(status, Status::Bad(_)), "{doc}");
        }
    }

    /// In a value in a fence of its own, a fence on a line of its own
    /// inside a string is told to the sink where its backticks start, the
    /// string read on; fed a byte at a time, a line of backticks that ends
    /// the text is held back until it says what it is (told once, taken
    /// back if it turns out to open a code sample). A second marker after
    /// it, or a fence line after a line ending in a closer, is `Bad`.
    #[test]
    fn fence_lines_in_strings_of_a_fenced_value() {
        let fenced = |doc: &str, bytes: bool| {
            let mut log = Log::default();
            let mut t = Tokens::new(0, 128)
                .lenient(Lenient {
                    control_chars: true,
                    ..Lenient::default()
                })
                .fenced(false, true);
            let mut status = Status::Open;
            let ends: Vec<usize> = match bytes {
                true => (1..=doc.len()).collect(),
                false => vec![doc.len()],
            };
            for end in ends {
                status = t.feed(&doc[..end], &mut log);
                if status != Status::Open {
                    break;
                }
            }
            let told: Vec<String> = log.0.into_iter().filter(|e| e.contains("fenced")).collect();
            (told, status)
        };
        let doc = "{\"a\": \"x\n```\ny\"}";
        for bytes in [false, true] {
            assert_eq!(
                fenced(doc, bytes),
                (vec!["fenced 9".to_owned()], Status::Done(16))
            );
        }
        let doc = "{\"a\": \"x\n```py\ny\"}";
        assert_eq!(fenced(doc, false), (vec![], Status::Done(18)));
        let held = vec!["fenced 9".to_owned(), "unfenced".to_owned()];
        assert_eq!(fenced(doc, true), (held, Status::Done(18)));
        for doc in ["{\"a\": \"x\n```\ny\n```\"}", "{\"a\": \"{x}\n```\ny\"}"] {
            for bytes in [false, true] {
                assert!(matches!(fenced(doc, bytes).1, Status::Bad(_)), "{doc}");
            }
        }
    }
}
