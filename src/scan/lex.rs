//! Byte classes and side-effect-free lookahead over the input.
//!
//! Everything here is a pure function of `(bytes, position, end)`, so the
//! repairing state machine can ask "what comes next?" without moving.

/// The character a JSON escape `\c` stands for, `c` being one of JSON's
/// one-letter escapes (`\u` and the rest are the caller's).
#[inline]
pub(crate) fn short_escape(c: u8) -> Option<char> {
    Some(match c {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// JSON whitespace.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// Bytes after which a bare token (number, literal, unquoted key) has ended:
/// whitespace, a control character, a delimiter.
#[inline]
pub(crate) fn is_token_end(b: u8) -> bool {
    matches!(
        b,
        0..=0x20 | b',' | b':' | b']' | b'}' | b'[' | b'{' | b')' | b'"' | b';'
    )
}

/// Whether a bare token (a number, a literal) has ended at `k`: a
/// delimiter or whitespace, a line end (U+2028 too), a quote, a comment, a
/// non-ASCII space, a full-width separator or a special token.
pub(crate) fn ends_token(b: &[u8], k: usize, end: usize) -> bool {
    is_token_end(b[k])
        || crate::text::line_end_len(b, k, end) > 0
        || b[k] == b'\''
        || (b[k] == b'/' && k + 1 < end && matches!(b[k + 1], b'/' | b'*'))
        || special_ws_len(b, k, end) > 0
        || wide_sep(b, k, end).is_some()
        || special_token_len(b, k, end) > 0
}

/// A full-width colon or comma (`：` U+FF1A, `，` U+FF0C) at `i`, as the
/// ASCII byte it stands for.
#[inline]
pub(crate) fn wide_sep(b: &[u8], i: usize, end: usize) -> Option<u8> {
    if i + 2 >= end || b[i] != 0xEF || b[i + 1] != 0xBC {
        return None;
    }
    match b[i + 2] {
        0x9A => Some(b':'),
        0x8C => Some(b','),
        _ => None,
    }
}

/// The length in bytes of a full-width separator (see [`wide_sep`]).
pub(crate) const WIDE: usize = 3;

/// Characters allowed in an identifier-like word (`True`, `callback_1`, `$ref`).
#[inline]
pub(crate) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Length in bytes of a non-ASCII whitespace character at `i` (NBSP, the
/// U+2000 spaces, zero-width space, narrow NBSP, ideographic space, BOM, …),
/// or 0.
pub(crate) fn special_ws_len(b: &[u8], i: usize, end: usize) -> usize {
    let at = |k: usize| if i + k < end { b[i + k] } else { 0 };
    match at(0) {
        0xC2 if at(1) == 0xA0 => 2,
        0xE1 if at(1) == 0xA0 && at(2) == 0x8E => 3,
        0xE2 if at(1) == 0x80 && (0x80..=0x8B).contains(&at(2)) => 3,
        0xE2 if at(1) == 0x80 && at(2) == 0xAF => 3,
        0xE2 if at(1) == 0x81 && at(2) == 0x9F => 3,
        0xE3 if at(1) == 0x80 && at(2) == 0x80 => 3,
        0xEF if at(1) == 0xBB && at(2) == 0xBF => 3,
        _ => 0,
    }
}

/// The length of a chat-template special token (`<|python_tag|>`,
/// `<|eot_id|>`: `<|`, up to 64 word characters, `|>`) at `i`, or 0. A
/// model's reply can hold one between tokens, where it is never content.
pub(crate) fn special_token_len(b: &[u8], i: usize, end: usize) -> usize {
    if i + 4 > end || b[i] != b'<' || b[i + 1] != b'|' {
        return 0;
    }
    let mut k = i + 2;
    let limit = end.min(k + 64);
    while k < limit && (is_word(b[k]) || b[k] == b'-') {
        k += 1;
    }
    if k > i + 2 && k + 1 < end && b[k] == b'|' && b[k + 1] == b'>' {
        k + 2 - i
    } else {
        0
    }
}

/// What a run of skipped bytes contained.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Skipped {
    pub comment: Option<usize>,
    /// Where the first non-ASCII space, control character or chat-template
    /// special token (`<|eot_id|>`, the one byte there that is `<`) was.
    pub special: Option<usize>,
    pub newline: bool,
}

/// Skips whitespace, comments (`//`, `/* */`, and `#` followed by a space, `#`
/// or a line end), non-ASCII spaces, control characters and chat-template
/// special tokens. Returns the new position and what was
/// skipped.
pub(crate) fn skip_ws(b: &[u8], mut i: usize, end: usize) -> (usize, Skipped) {
    let mut s = Skipped::default();
    while i < end {
        match b[i] {
            b' ' | b'\t' => i += 1,
            b'\n' | b'\r' => {
                s.newline = true;
                i += 1;
            }
            b'/' if i + 1 < end && b[i + 1] == b'/' => {
                s.comment.get_or_insert(i);
                i = line_end(b, i, end);
            }
            b'/' if i + 1 < end && b[i + 1] == b'*' => {
                s.comment.get_or_insert(i);
                i = block_comment_end(b, i + 2, end);
            }
            // A `/` the text ends on may be a comment's first byte (a reply
            // cut there): as far as it goes, a comment. (Not one a bound
            // before the text's end falls after: `/[a-z]/` is a regex.)
            b'/' if i + 1 == b.len() => {
                s.comment.get_or_insert(i);
                i = end;
            }
            b'#' if i + 1 >= end || matches!(b[i + 1], b' ' | b'#' | b'\n' | b'\r' | b'\t') => {
                s.comment.get_or_insert(i);
                i = line_end(b, i, end);
            }
            c => {
                // A non-ASCII space; NUL or another control character (never
                // part of a token); a chat-template special token.
                let n = if c >= 0x80 {
                    // U+2028 and U+2029 end a line (JSON5 counts them as
                    // whitespace).
                    let n = crate::text::line_end_len(b, i, end);
                    s.newline |= n > 0;
                    if n > 0 {
                        n
                    } else {
                        special_ws_len(b, i, end)
                    }
                } else if c < 0x20 {
                    1
                } else if c == b'<' {
                    special_token_len(b, i, end)
                } else {
                    0
                };
                if n == 0 {
                    break;
                }
                s.special.get_or_insert(i);
                i += n;
            }
        }
    }
    (i, s)
}

/// Where the line of a `//` or `#` comment at `i` ends: at `\n`, `\r`,
/// U+2028 or U+2029 (see [`crate::text`]).
fn line_end(b: &[u8], i: usize, end: usize) -> usize {
    crate::text::find_line_end(b, i, end)
}

fn block_comment_end(b: &[u8], mut i: usize, end: usize) -> usize {
    while i + 1 < end {
        if b[i] == b'*' && b[i + 1] == b'/' {
            return i + 2;
        }
        i += 1;
    }
    end
}

/// Whether `b[k..end]` is a sign or a dot with no digit, running into the
/// end of the span (`-`, `+`, `-.`, `.`): a number cut off before its first
/// digit, which stands for no value at all.
#[inline]
pub(crate) fn lone_sign_to_end(b: &[u8], k: usize, end: usize) -> bool {
    let mut i = k;
    if i < end && matches!(b[i], b'-' | b'+') {
        i += 1;
    }
    if i < end && b[i] == b'.' {
        i += 1;
    }
    i > k && i == end
}

/// The next position at or after `i` that is not whitespace or a comment.
#[inline]
pub(crate) fn next_significant(b: &[u8], i: usize, end: usize) -> usize {
    skip_ws(b, i, end).0
}

/// The kind of quote character at `i`, with its length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quote {
    /// `"`
    Double,
    /// `'`
    Single,
    /// `“` or `”` (and `„`): closed by any double-like quote.
    DoubleLike,
    /// `‘`, `’`, `` ` `` or `´`: closed by any single-like quote.
    SingleLike,
}

/// Recognises an opening quote at `i`.
#[inline]
pub(crate) fn quote_at(b: &[u8], i: usize, end: usize) -> Option<(Quote, usize)> {
    let at = |k: usize| if i + k < end { b[i + k] } else { 0 };
    match at(0) {
        b'"' => Some((Quote::Double, 1)),
        b'\'' => Some((Quote::Single, 1)),
        b'`' => Some((Quote::SingleLike, 1)),
        0xC2 if at(1) == 0xB4 => Some((Quote::SingleLike, 2)),
        0xE2 if at(1) == 0x80 => match at(2) {
            0x9C..=0x9E => Some((Quote::DoubleLike, 3)),
            0x98 | 0x99 => Some((Quote::SingleLike, 3)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the backticks at `i` open inline code around a value, not a
/// string: past them, an optional language word and spaces, a `{` or a
/// `[` (`` `{"a": 1}` ``, `` `json⏎[1]` ``), or the end of the text (only
/// the backticks, or the word, have arrived).
pub(crate) fn inline_code_around_value(b: &[u8], i: usize, end: usize) -> bool {
    let mut k = i;
    while k < end && b[k] == b'`' {
        k += 1;
    }
    while k < end && b[k].is_ascii_alphanumeric() {
        k += 1;
    }
    while k < end && is_ws(b[k]) {
        k += 1;
    }
    k >= end || matches!(b[k], b'{' | b'[')
}

/// Whether the character at `i` closes a string opened with `q`; returns its
/// length.
#[inline]
pub(crate) fn closing_quote_at(q: Quote, b: &[u8], i: usize, end: usize) -> Option<usize> {
    match q {
        Quote::Double => (b[i] == b'"').then_some(1),
        Quote::Single => (b[i] == b'\'').then_some(1),
        Quote::DoubleLike => match quote_at(b, i, end) {
            Some((Quote::DoubleLike | Quote::Double, n)) => Some(n),
            _ => None,
        },
        Quote::SingleLike => match quote_at(b, i, end) {
            Some((Quote::SingleLike | Quote::Single, n)) => Some(n),
            _ => None,
        },
    }
}

/// From an opening `"` at `i`, the position just after its closing quote if
/// the string closes on the same line (escapes honoured).
#[inline]
pub(crate) fn simple_string_end(b: &[u8], i: usize, end: usize) -> Option<usize> {
    simple_string_end_reach(b, i, end).0
}

/// [`simple_string_end`], and how far it looked: the bytes it read end
/// before the second (see [`ws_reach`]).
#[inline]
pub(crate) fn simple_string_end_reach(b: &[u8], i: usize, end: usize) -> (Option<usize>, usize) {
    let Some((q, n)) = quote_at(b, i, end) else {
        return (None, i + 3);
    };
    let mut k = i + n;
    while k < end {
        match b[k] {
            b'\\' => k += 2,
            b'\n' => return (None, k + 1),
            _ => {
                if let Some(m) = closing_quote_at(q, b, k, end) {
                    // (A curly quote is read whole: up to three bytes.)
                    return (Some(k + m), k + 3);
                }
                k += 1;
            }
        }
    }
    (None, end)
}

/// How far [`skip_ws`] (or [`next_significant`]) looked when it stopped at
/// `j`, `end` its bound: the bytes it read end before this. At a byte it
/// stopped on, it looked at up to two more (a comment's second byte, a
/// non-ASCII space's); at a `<|`, at the special token it may start.
/// (`end` itself when it ran into its bound: what comes next may go on
/// what it skipped.) A resumed scanner decides a step only once all it
/// looked at has arrived (see `Scanner::reach`).
#[inline]
pub(crate) fn ws_reach(b: &[u8], j: usize, end: usize) -> usize {
    if j >= end {
        return end;
    }
    match b[j] == b'<' && j + 1 < end && b[j + 1] == b'|' {
        true => j + 2 + 64 + 2,
        false => j + 3,
    }
}

/// Bytes an unquoted key may hold: word characters, the punctuation that
/// is no structure (`#`, `!`, `&`, `@`, `.`, `-`, …) and non-ASCII (JSON5's
/// Unicode identifiers: `café`), up to its colon. Never a space, a quote, a
/// bracket or a separator.
#[inline]
pub(crate) fn is_key_byte(c: u8) -> bool {
    is_word(c)
        || c >= 0x80
        || matches!(
            c,
            b'-' | b'.'
                | b'#'
                | b'!'
                | b'&'
                | b'@'
                | b'%'
                | b'^'
                | b'*'
                | b'+'
                | b'='
                | b'~'
                | b'|'
                | b'?'
                | b'\\'
        )
}

/// Whether a key starts at `i`: a quoted string or a bare word, then `:`.
/// Returns the position of the colon.
#[inline]
pub(crate) fn key_then_colon(b: &[u8], i: usize, end: usize) -> Option<usize> {
    key_then_colon_reach(b, i, end).0
}

/// [`key_then_colon`], and how far it looked (see [`ws_reach`]).
#[inline]
pub(crate) fn key_then_colon_reach(b: &[u8], i: usize, end: usize) -> (Option<usize>, usize) {
    let after = match key_end(b, i, end) {
        Ok(after) => after,
        Err(reach) => return (None, reach),
    };
    let c = next_significant(b, after, end);
    let colon = c < end && (b[c] == b':' || wide_sep(b, c, end) == Some(b':'));
    (colon.then_some(c), ws_reach(b, c, end))
}

/// Where a key that starts at `i` (a quoted string closed on its line, or
/// a bare word) ends; if none does, how far the look went.
#[inline]
fn key_end(b: &[u8], i: usize, end: usize) -> Result<usize, usize> {
    if quote_at(b, i, end).is_some() {
        return match simple_string_end_reach(b, i, end) {
            (Some(after), _) => Ok(after),
            (None, reach) => Err(reach),
        };
    }
    let mut k = i;
    while k < end && is_key_byte(b[k]) {
        k += 1;
    }
    match k == i {
        true => Err(i + 3),
        false => Ok(k),
    }
}

/// Whether a key that the end of the text cut off starts at `i`: a quoted
/// string or a bare word with nothing after it (the rest of it, or its
/// colon, has not arrived).
#[inline]
pub(crate) fn key_cut_at_end(b: &[u8], i: usize, end: usize) -> bool {
    key_cut_at_end_reach(b, i, end).0
}

/// [`key_cut_at_end`], and how far it looked (see [`ws_reach`]): `true`
/// rests on the end of the text, so it looked at all of it.
#[inline]
pub(crate) fn key_cut_at_end_reach(b: &[u8], i: usize, end: usize) -> (bool, usize) {
    let after = match quote_at(b, i, end) {
        Some((_, n)) => match simple_string_end(b, i, end) {
            Some(after) => after,
            None => {
                return match b[i + n..end]
                    .iter()
                    .position(|&c| matches!(c, b'\n' | b'\r'))
                {
                    Some(k) => (false, i + n + k + 1),
                    None => (true, end),
                }
            }
        },
        None => {
            let mut k = i;
            while k < end && is_key_byte(b[k]) {
                k += 1;
            }
            if k == i {
                return (false, i + 3);
            }
            k
        }
    };
    let n = next_significant(b, after, end);
    (n >= end, ws_reach(b, n, end))
}

/// From an opener (`{`, `[` or `(`) at `i`: the position of its matching closer
/// (if it closes) and whether a comma appears at its top level. Strings in
/// double quotes are skipped; closers of the wrong kind close anyway.
pub(crate) fn matching_close(b: &[u8], i: usize, end: usize) -> (Option<usize>, bool) {
    matching_close_within(b, i, end, usize::MAX)
}

/// [`matching_close`] looking at most `limit` bytes ahead (a tuple or a
/// wrapper call is short; without a limit, a run of `(` would be quadratic).
pub(crate) fn matching_close_within(
    b: &[u8],
    i: usize,
    end: usize,
    limit: usize,
) -> (Option<usize>, bool) {
    let end = end.min(i.saturating_add(limit));
    let mut depth = 0usize;
    let mut top_comma = false;
    let mut k = i;
    while k < end {
        match b[k] {
            b'"' => {
                k += 1;
                while k < end && b[k] != b'"' {
                    if b[k] == b'\\' {
                        k += 1;
                    }
                    k += 1;
                }
            }
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                depth -= 1;
                if depth == 0 {
                    return (Some(k), top_comma);
                }
            }
            b',' if depth == 1 => top_comma = true,
            // A full-width comma separates as `,` does (`(a，b)` is a tuple).
            0xEF if depth == 1 && wide_sep(b, k, end) == Some(b',') => top_comma = true,
            _ => {}
        }
        k += 1;
    }
    (None, top_comma)
}

/// The length of a code fence marker (three or more backticks and an optional
/// language tag) at `i`, or 0.
pub(crate) fn fence_len(b: &[u8], i: usize, end: usize) -> usize {
    let mut k = i;
    while k < end && b[k] == b'`' {
        k += 1;
    }
    if k - i < 3 {
        return 0;
    }
    while k < end && b[k].is_ascii_alphanumeric() {
        k += 1;
    }
    k - i
}

/// The length of a Python string literal's prefix at `i` (`u`, `b`, `f`,
/// any case) right before a quote, or `None`. (Not a raw string's `r`: its
/// backslashes are its text, which the string reader would take as
/// escapes: see [`raw_string`].)
pub(crate) fn string_prefix(b: &[u8], i: usize, end: usize) -> Option<usize> {
    if !matches!(b[i], b'u' | b'U' | b'b' | b'B' | b'f' | b'F') {
        return None;
    }
    let q = i + 1;
    // A string the text ends in, on its line, with nothing in it that ends
    // a container, is one being written (`{"a": u"te`): the string, cut.
    // (`[a",b"]` is no string after `b`, nor `[A", B"` or `[a", b", c`.)
    let cut = || {
        end == b.len()
            && q + 1 < end
            && matches!(b[q], b'"' | b'\'')
            && !matches!(b[q + 1], b',' | b':' | b' ' | b'\t')
            && !b[q + 1..end]
                .iter()
                .any(|&c| matches!(c, b'"' | b'\'' | b'\n' | b'}' | b']' | b')'))
    };
    (prefixed_string_close(b, q, end).is_some() || cut()).then_some(1)
}

/// A Python raw string at `i` (`r'…'`, `rb"…"`, `br'…'`, any case): where
/// its content starts and its closing quote is. Its backslashes are its
/// text (`r"C:\new"`). The same bounds as [`string_prefix`]'s.
pub(crate) fn raw_string(b: &[u8], i: usize, end: usize) -> Option<(usize, usize)> {
    let lower = |k: usize| (k < end).then(|| b[k].to_ascii_lowercase());
    let q = match (lower(i), lower(i + 1)) {
        (Some(b'r'), Some(b'b')) | (Some(b'b'), Some(b'r')) => i + 2,
        (Some(b'r'), _) => i + 1,
        _ => return None,
    };
    prefixed_string_close(b, q, end).map(|close| (q + 1, close))
}

/// Where the string whose quote is at `q`, right after a prefix, closes:
/// on its line (the first such quote or line break is looked for once: a
/// line of many strings stays linear), before what ends a value (`["a"
/// b", "c"]`: `b"` starts no string).
fn prefixed_string_close(b: &[u8], q: usize, end: usize) -> Option<usize> {
    if q >= end || !matches!(b[q], b'"' | b'\'') {
        return None;
    }
    let close = memchr::memchr2(b[q], b'\n', &b[q + 1..end]).map(|k| q + 1 + k)?;
    if b[close] != b[q] {
        return None;
    }
    let next = next_significant(b, close + 1, end);
    (next >= end || matches!(b[next], b',' | b'}' | b']' | b')' | b':')).then_some(close)
}

/// Whether the run of backticks at `i` is a closing fence being written:
/// one or two of them (three would close the block), alone on the last
/// line of the text (after a line break past spaces, not before `start`),
/// ending it.
pub(crate) fn fence_being_written(b: &[u8], start: usize, i: usize) -> bool {
    let ticks = b[i..].iter().take_while(|&&c| c == b'`').count();
    let mut k = i;
    while k > start && matches!(b[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    (1..=2).contains(&ticks) && i + ticks == b.len() && k > start && b[k - 1] == b'\n'
}

/// Walks back from `p` over whitespace and `/* */` comments, not below
/// `start`; returns the position just after the last significant byte.
pub(crate) fn trim_back(b: &[u8], start: usize, p: usize) -> usize {
    let mut k = p;
    loop {
        while k > start && is_ws(b[k - 1]) {
            k -= 1;
        }
        if k >= start + 4 && &b[k - 2..k] == b"*/" {
            // A comment is looked for within a window: judging many quotes
            // stays linear.
            let from = start.max(k.saturating_sub(1024));
            if let Some(m) = b[from..k - 2].windows(2).rposition(|w| w == b"/*") {
                k = from + m;
                continue;
            }
        }
        return k;
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Flags the bytes of `w` equal to `byte` (exact for the lowest flagged byte).
#[inline]
pub(crate) fn bytes_equal(w: u64, byte: u8) -> u64 {
    let x = w ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGH
}

/// Flags the bytes of `w` below `limit` (at most 0x80; exact for the lowest).
#[inline]
pub(crate) fn bytes_below(w: u64, limit: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(limit)) & !w & HIGH
}

#[inline]
pub(crate) fn word_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("eight bytes"))
}

/// Whether `b[start..end]` ends (past whitespace) with a closer alone on an
/// indented line (`    }`): the shape of pretty-printed JSON cut off right
/// after an element, where a complete document's last closer opens its
/// line. The line is looked for in the last 256 bytes only.
pub(crate) fn ends_with_indented_closer(b: &[u8], start: usize, end: usize) -> bool {
    let k = trim_back(b, start, end);
    if k <= start || !matches!(b[k - 1], b'}' | b']') {
        return false;
    }
    let from = start.max((k - 1).saturating_sub(256));
    match b[from..k - 1].iter().rposition(|&c| c == b'\n') {
        Some(n) => {
            let indent = &b[from + n + 1..k - 1];
            !indent.is_empty() && indent.iter().all(|&c| c == b' ' || c == b'\t')
        }
        None => false,
    }
}

/// The end of the run of bytes from `i` that a JSON string holds as they
/// are: up to a quote, a backslash or a control byte. Eight bytes at a time.
/// Always inlined: it is the scanner's innermost loop, and a call costs as
/// much as a short string's scan.
#[inline(always)]
pub(crate) fn plain_json_run(b: &[u8], mut i: usize, stop: usize) -> usize {
    while i + 8 <= stop {
        let w = word_at(b, i);
        let hits = bytes_equal(w, b'"') | bytes_equal(w, b'\\') | bytes_below(w, 0x20);
        if hits != 0 {
            // The lowest flagged byte is exact (borrows only run upward).
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < stop && !matches!(b[i], b'"' | b'\\' | 0..=0x1F) {
        i += 1;
    }
    i
}

/// The first position of `byte` in `b[from..end]` (memchr: whole vector
/// registers at a time).
pub(crate) fn find_byte(b: &[u8], from: usize, end: usize, byte: u8) -> Option<usize> {
    memchr::memchr(byte, &b[from..end]).map(|k| from + k)
}

/// The bytes after plain whitespace that [`skip_ws`] must look at: a comment
/// start, a chat-template token's `<`, a control character, a non-ASCII byte.
pub(crate) static MAY_SKIP: [bool; 256] = {
    let mut t = byte_table(b"/#<", true);
    let mut c = 0x80;
    while c < 256 {
        t[c] = true;
        c += 1;
    }
    t
};

/// A lookup table marking `bytes` (and, with `controls`, every byte below
/// 0x20), for byte-at-a-time scans.
pub(crate) const fn byte_table(bytes: &[u8], controls: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0;
    while controls && c < 0x20 {
        t[c] = true;
        c += 1;
    }
    let mut k = 0;
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
}

/// A citation in brackets, `[1]` or `[^2]`: a small number, which after a
/// value on its line (`{"id": 4} [1]`) marks where the value came from and
/// carries nothing of it.
pub(crate) fn citation(span: &[u8]) -> bool {
    let Some(inner) = span.strip_prefix(b"[").and_then(|s| s.strip_suffix(b"]")) else {
        return false;
    };
    let number = inner.strip_prefix(b"^").unwrap_or(inner);
    (1..=4).contains(&number.len()) && number.iter().all(u8::is_ascii_digit)
}

/// Whether the citation at `at` follows a value's closer on its line, past
/// spaces and a chain of citations (`{"id": 4} [1][2]`, `[1, 2] [^3]`). A
/// citation-shaped list that follows only citations (`[1] [2]`) is a value.
pub(crate) fn after_a_value(b: &[u8], at: usize) -> bool {
    let mut k = at;
    // A chain is a few citations: a longer one is walked no further (a
    // reply of nothing but citations stays linear).
    for _ in 0..16 {
        while k > 0 && matches!(b[k - 1], b' ' | b'\t') {
            k -= 1;
        }
        match k.checked_sub(1).map(|e| b[e]) {
            Some(b'}') => return true,
            Some(b']') => {
                let from = k.saturating_sub(7);
                match b[from..k].iter().rposition(|&c| c == b'[') {
                    Some(open) if citation(&b[from + open..k]) => k = from + open,
                    _ => return true,
                }
            }
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_separators() {
        let s = "：，、".as_bytes();
        assert_eq!(wide_sep(s, 0, s.len()), Some(b':'));
        assert_eq!(wide_sep(s, 3, s.len()), Some(b','));
        assert_eq!(wide_sep(s, 6, s.len()), None);
        // Cut inside the character: not one.
        assert_eq!(wide_sep(s, 0, 2), None);
    }

    #[test]
    fn special_tokens() {
        let len = |s: &str| special_token_len(s.as_bytes(), 0, s.len());
        assert_eq!(len("<|eot_id|>{"), 10);
        assert_eq!(len("<|python_tag|>"), 14);
        assert_eq!(len("<|start-header|>"), 16);
        for not in ["<||>", "<|a b|>", "<|eot_id|", "<b>", "<", "<|x"] {
            assert_eq!(len(not), 0, "{not}");
        }
    }

    #[test]
    fn control_characters_are_skipped_between_tokens() {
        let s = b" \x00\x07\n<|eot_id|>\xc2\xa0x";
        let (i, skipped) = skip_ws(s, 0, s.len());
        assert_eq!(s[i], b'x');
        assert_eq!(skipped.special, Some(1));
        assert!(skipped.newline);
        assert!(is_token_end(0) && is_token_end(0x1f) && !is_token_end(b'a'));
    }
}
