//! The extraction pre-pass: where in a reply the value might be.
//!
//! It strips a UTF-8 BOM and leading reasoning blocks, then yields candidate
//! spans in priority order: the whole text, each fenced block, each
//! `<json>…</json>` tag, each balanced `{…}`/`[…]` span in prose, and last a
//! trailing span that never closes. Spans are byte ranges of the caller's
//! text: nothing is copied.

use std::ops::Range;

use serde::Serialize;

use crate::report::Strategy;
use crate::scan::lex;
use crate::work;

/// A place in a reply where the value may be, as
/// [`Decoder::candidates`](crate::Decoder::candidates) lists them and the
/// decoder tries them: how it was found and its byte span in the reply. It
/// serializes as the [`Report`](crate::Report)'s fields of the same names
/// do: `{"strategy":"fence","span":{"start":21,"end":30}}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Candidate {
    /// How it was found: [`Strategy::Whole`], [`Fence`](Strategy::Fence),
    /// [`Tag`](Strategy::Tag), [`Balanced`](Strategy::Balanced) or
    /// [`Trailing`](Strategy::Trailing).
    pub strategy: Strategy,
    /// The byte span of the reply that holds it (a fence's or a tag's
    /// content, without the markers).
    pub span: Range<usize>,
}

impl Candidate {
    /// The first byte of the span (`{` for an object-shaped candidate).
    pub(crate) fn first_byte(&self, text: &str) -> Option<u8> {
        text.as_bytes()[self.span.clone()]
            .iter()
            .copied()
            .find(|b| !b.is_ascii_whitespace())
    }
}

/// Which extraction strategies run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Strategies {
    pub whole: bool,
    pub fence: bool,
    pub tag: bool,
    pub balanced: bool,
    pub trailing: bool,
    pub gather: bool,
    pub prose: bool,
}

impl Default for Strategies {
    fn default() -> Self {
        Strategies {
            whole: true,
            fence: true,
            tag: true,
            balanced: true,
            trailing: true,
            gather: true,
            prose: true,
        }
    }
}

impl Strategies {
    /// Whether any strategy that finds a candidate runs.
    pub(crate) fn any(&self) -> bool {
        self.whole || self.fence || self.tag || self.balanced || self.trailing
    }

    /// Only [`Strategy::Whole`]: the text is the value.
    pub(crate) fn only_whole() -> Strategies {
        Strategies {
            whole: true,
            fence: false,
            tag: false,
            balanced: false,
            trailing: false,
            gather: false,
            prose: false,
        }
    }

    pub(crate) fn set(&mut self, strategy: Strategy, on: bool) {
        match strategy {
            Strategy::Whole => self.whole = on,
            Strategy::Fence => self.fence = on,
            Strategy::Tag => self.tag = on,
            Strategy::Balanced => self.balanced = on,
            Strategy::Trailing => self.trailing = on,
            Strategy::Gathered => self.gather = on,
            Strategy::Prose => self.prose = on,
        }
    }
}

/// Reasoning blocks some models write before answering. (The last is the
/// analysis channel of OpenAI's Harmony format, gpt-oss's raw replies:
/// `<|channel|>analysis<|message|>…<|end|>`, then the final channel.)
const REASONING: [(&str, &str); 4] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("<|channel|>analysis<|message|>", "<|end|>"),
];

/// Whether `close` ends a block whose opening tag may have been in the
/// prompt (`…</think>{"a": 1}`: see [`closing_only`]). Not `<|end|>`, which
/// ends any message of a chat template (`{"a": 1}<|end|>`).
fn closes_unopened(close: &str) -> bool {
    close.starts_with("</")
}

/// The length of a UTF-8 byte order mark at the start of `text`, or 0.
pub(crate) fn bom(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        3
    } else {
        0
    }
}

/// The part of the text after a BOM, leading reasoning blocks and leading
/// special-token markers (`[TOOL_CALLS]`, `<|python_tag|>`). A reply whose
/// first reasoning tag is a closing one (`…</think>`: the opening tag was in
/// the prompt) starts after it, unless it starts like JSON.
/// `angle`: where the first `<` after the byte-order mark is
/// ([`first_angle`]).
pub(crate) fn body(text: &str, angle: Option<usize>) -> Range<usize> {
    body_and_block(text, angle).0
}

/// A reasoning block at the start of `text` that has not closed: where its
/// content starts and the tag that would close it. A view of a reply still
/// being written shows nothing while it holds one (what is inside is the
/// model thinking, not its answer; only a finished reply whose block never
/// closed is read from the block's content).
pub(crate) fn open_block(text: &str) -> Option<(usize, &'static str)> {
    let angle = first_angle(text)?;
    let (body, close) = body_and_block(text, Some(angle));
    close.map(|c| (body.start, c))
}

/// Where `close` (a reasoning block's closing tag, any case) is in `text`
/// from `from` on.
pub(crate) fn find_close(text: &str, from: usize, close: &str) -> Option<usize> {
    find_ignore_case(&text[from..], close).map(|k| from + k)
}

/// [`body`], and the closing tag of a reasoning block it starts inside
/// (one that never closed).
fn body_and_block(text: &str, angle: Option<usize>) -> (Range<usize>, Option<&'static str>) {
    let mut start = bom(text);
    work::add(text.len());
    if let Some(after) = angle.and_then(|a| closing_only(text, start, a)) {
        start = after;
    }
    loop {
        let rest = &text[start..];
        let trimmed = rest.trim_start();
        let at = start + (rest.len() - trimmed.len());
        // (A block's tag may start with a marker: `<|channel|>analysis…`.)
        let block = REASONING
            .iter()
            .find(|(open, _)| starts_with_ignore_case(trimmed, open));
        let Some((open, close)) = block else {
            if let Some(n) = marker_len(trimmed.as_bytes()) {
                start = at + n;
                continue;
            }
            break;
        };
        match find_ignore_case(&text[at + open.len()..], close) {
            Some(k) => start = at + open.len() + k + close.len(),
            None => {
                // An unclosed block at the start: skip only the tag.
                return (at + open.len()..text.len(), Some(*close));
            }
        }
    }
    (start..text.len(), None)
}

/// Whether a fence or a tag that `text` holds (its content runs on past
/// `at`, as an unclosed one's does) has content before `at`: its content is
/// a candidate ranked above a span found in prose at `at`, which it may
/// take in as it grows (`` ```"q"'s'{"id" `` is one string once a quote
/// ends it).
pub(crate) fn marked_around(text: &str, at: usize, which: Strategies) -> bool {
    marked_holding(text, at, which)
        .any(|c| c.span.start < at && !text[c.span.start..at].trim().is_empty())
}

/// Whether a `<json>` tag left open holds `at` in its content: that
/// content is a candidate ranked above a span found in prose at `at`, and
/// grows with every byte until the tag closes (`<json>{"id": 1}{name},Here`
/// then `:` reads as a list; `<json>'{"id": 1}'s` then `'`, a string).
pub(crate) fn open_tag_holds(text: &str, at: usize, which: Strategies) -> bool {
    // (Its content runs to the end of the text, spaces trimmed.)
    marked_holding(text, at, which).any(|c| {
        c.strategy == Strategy::Tag
            && text.as_bytes()[c.span.end..]
                .iter()
                .all(u8::is_ascii_whitespace)
    })
}

/// The fences and tags of `text` whose content runs from `at` or before to
/// past it.
fn marked_holding(text: &str, at: usize, which: Strategies) -> impl Iterator<Item = Candidate> {
    let outline = outline(text);
    let thoughts = reasoning(text, outline.body.clone(), outline.angle);
    let marked = marked(text, outline.body, which, &thoughts, outline.angle);
    marked
        .listed
        .into_iter()
        .filter(move |c| c.span.start <= at && at < c.span.end)
}

/// Whether the bytes of `text` from `from` on complete a reasoning block's
/// closing tag (`</think>`, any case; one begun before `from` too) in a
/// reply that may start after such a tag ([`closing_only`]: it does not
/// start like JSON). A decode of the text then reads what came before the
/// tag as the model's thinking.
#[inline]
pub(crate) fn closing_tag_in(text: &str, from: usize) -> bool {
    // (A tag is complete once its `>` arrives: the new bytes hold it.)
    text.as_bytes()[from..].contains(&b'>') && closing_tag_ends_in(text, from)
}

/// [`closing_tag_in`], once a `>` arrived.
fn closing_tag_ends_in(text: &str, from: usize) -> bool {
    let longest = REASONING.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
    let mut at = from.saturating_sub(longest - 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    !opens_like_json(&text[bom(text)..])
        && REASONING.iter().any(|(_, close)| {
            closes_unopened(close) && find_ignore_case(&text[at..], close).is_some()
        })
}

/// Whether `text` opens (past spaces) like JSON or a fence: a `</think>`
/// in it is then a string's text, not the end of a reasoning block whose
/// opening tag was in the prompt ([`closing_only`]).
fn opens_like_json(text: &str) -> bool {
    text.trim_start()
        .bytes()
        .next()
        .is_some_and(|c| matches!(c, b'{' | b'[' | b'"' | b'`'))
}

/// Whether the text before `at` holds a fence marker, past the reasoning
/// blocks the reply opens with (a decode reads the text after them only:
/// a marker in the model's thinking opens no fence).
pub(crate) fn marker_before(text: &str, at: usize) -> bool {
    let from = match first_angle(&text[..at]) {
        Some(angle) => body(&text[..at], Some(angle)).start,
        None => 0,
    };
    text[from..at].contains("```")
}

/// Where the first `<` after the byte-order mark is. Tags, reasoning blocks
/// and chat-template tokens all start with one, so a reply holding none
/// (most replies) is searched for them once, not by each of the pre-pass's
/// readers over the whole reply.
pub(crate) fn first_angle(text: &str) -> Option<usize> {
    lex::find_byte(text.as_bytes(), bom(text), text.len(), b'<')
}

/// Where the reply starts when its first reasoning tag closes a block that
/// never opened (`Let me think… </think>{"a": 1}`): after that tag. `None`
/// when the reply starts like JSON (a `</think>` inside a string is content)
/// or an opening tag comes first. `angle`: the first `<` at or after
/// `start`.
fn closing_only(text: &str, start: usize, angle: usize) -> Option<usize> {
    if text[start..].trim().is_empty() || opens_like_json(&text[start..]) {
        return None;
    }
    let (k, end) = first_close(text, angle)?;
    // Inside a string the text opened before it on its line, that goes on
    // after it (`"b": "</think>", "c": …`), it is the value's text: no
    // block.
    (!inside_string(&text[start..k], &text[end..])).then_some(end)
}

/// Where the first reasoning tag at or after `from` (a `<`) is and ends,
/// when it is a closing one.
fn first_close(text: &str, from: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut i = from;
    while let Some(k) = lex::find_byte(b, i, b.len(), b'<') {
        i = k + 1;
        let rest = &text[k..];
        if REASONING
            .iter()
            .any(|(open, _)| starts_with_ignore_case(rest, open))
        {
            return None;
        }
        if let Some((_, close)) = REASONING
            .iter()
            .find(|(_, close)| closes_unopened(close) && starts_with_ignore_case(rest, close))
        {
            return Some((k, k + close.len()));
        }
    }
    None
}

/// Whether a tag between `before` and `after` is inside a double-quoted
/// string: its line before it holds an odd number of quotes (escaped ones
/// aside), and the first quote after it on its line closes a string (what
/// follows it, past spaces, is a delimiter or the line's end). A draft the
/// block cut (`{"note": "a draft</think>` then a line holding the answer)
/// is not.
fn inside_string(before: &str, after: &str) -> bool {
    if !opens_string(before) {
        return false;
    }
    let rest = after.as_bytes();
    let rest = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
    let close = (0..rest.len()).find(|&i| rest[i] == b'"' && (i == 0 || rest[i - 1] != b'\\'));
    close.is_some_and(|q| {
        let next = rest[q + 1..].iter().find(|c| !c.is_ascii_whitespace());
        matches!(next, None | Some(b',' | b'}' | b']' | b':'))
    })
}

/// Whether the last line of `before` holds an odd number of double
/// quotes, escaped ones aside: a string it opened runs past its end.
fn opens_string(before: &str) -> bool {
    let line = &before.as_bytes()[before.rfind('\n').map_or(0, |n| n + 1)..];
    let quotes = (0..line.len())
        .filter(|&i| line[i] == b'"' && (i == 0 || line[i - 1] != b'\\'))
        .count();
    quotes % 2 == 1
}

/// Whether `text` holds a reasoning block's closing tag whose reading is
/// not settled yet: the first reasoning tag, a closing one, inside a string
/// its line opened, and its line not ended (see [`inside_string`]: what
/// follows it on its line says whether it ends a block). A stream does not
/// read on from there as if it were settled.
pub(crate) fn close_undecided(text: &str) -> bool {
    first_angle(text)
        .and_then(|angle| first_close(text, angle))
        .is_some_and(|(k, end)| {
            !text.as_bytes()[end..].contains(&b'\n') && opens_string(&text[..k])
        })
}

/// The length of a special-token marker at the start of `b`: a bracketed
/// upper-case name (`[TOOL_CALLS]`, `[INST]`, `[/INST]`) or a `<|name|>`
/// token. Such markers are the model's protocol, never values.
fn marker_len(b: &[u8]) -> Option<usize> {
    let (open, close): (&[u8], &[u8]) = match b.first()? {
        b'[' => (b"[", b"]"),
        b'<' if b.get(1) == Some(&b'|') => (b"<|", b"|>"),
        _ => return None,
    };
    let name = &b[open.len()..];
    let n = name
        .iter()
        .take(64)
        .take_while(|&&c| {
            c.is_ascii_uppercase()
                || c == b'_'
                || c == b'/'
                || (open == b"<|" && (c.is_ascii_alphanumeric() || c == b'-'))
        })
        .count();
    let letters = name[..n].iter().filter(|c| c.is_ascii_alphabetic()).count();
    (letters >= 2 && name[n..].starts_with(close)).then_some(open.len() + n + close.len())
}

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

fn find_ignore_case(s: &str, needle: &str) -> Option<usize> {
    let b = s.as_bytes();
    let n = needle.as_bytes();
    let mut i = 0;
    while let Some(k) = lex::find_byte(b, i, b.len(), n[0]) {
        if b.len() - k >= n.len() && b[k..k + n.len()].eq_ignore_ascii_case(n) {
            return Some(k);
        }
        i = k + 1;
    }
    None
}

/// What the pre-pass learns of a reply before any candidate is read, once
/// for the fast lane and the search: its first `<`, its body (see
/// [`body`]) and the body as one candidate (see [`whole`]).
pub(crate) struct Outline {
    pub angle: Option<usize>,
    pub body: Range<usize>,
    pub whole: Option<Candidate>,
}

/// The [`Outline`] of `text`.
pub(crate) fn outline(text: &str) -> Outline {
    let angle = first_angle(text);
    let body = body(text, angle);
    let whole = whole(text, body.clone());
    Outline { angle, body, whole }
}

/// The whole body, trimmed, without a stray fence at either end.
pub(crate) fn whole(text: &str, body: Range<usize>) -> Option<Candidate> {
    let b = text.as_bytes();
    let span = crate::text::trim_span(text, body);
    let (mut start, mut end) = (span.start, span.end);
    // `{...}```` or ````{...}```: a fence with no partner at an end. A reply
    // that is one fenced block loses both; a leading fence closed further on
    // stays (the fence strategy reads that block).
    let mut ticks = 0;
    while end - ticks > start && b[end - ticks - 1] == b'`' {
        ticks += 1;
    }
    // Not when the reply is one string that runs to the end with the
    // backticks in it (`"{}```` cut off).
    if ticks >= 3 && !(b[start] == b'"' && in_string(b, start, end - ticks)) {
        end -= ticks;
    }
    if b[start..end].starts_with(b"```") {
        let mut k = start;
        while k < end && b[k] == b'`' {
            k += 1;
        }
        let lang = b[k..end]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let tagged = lang == 0 || (k + lang < end && b[k + lang].is_ascii_whitespace());
        match find(b, k, end, b"```") {
            None if tagged => start = k + lang,
            // A block of code closed further on (```` ```python ````): the
            // whole read would take its code for values (`print('{')` as
            // the string `{`); the fence strategy reads its body, the
            // candidates after it are read on their own.
            Some(_) if tagged && is_code(&b[k..k + lang]) => return None,
            _ => {}
        }
    }
    let span = trimmed(b, start..end)?;
    Some(Candidate {
        span,
        strategy: Strategy::Whole,
    })
}

/// Whether `b[start..end]` ends inside a `"…"` string (escapes honoured).
fn in_string(b: &[u8], start: usize, end: usize) -> bool {
    let mut inside = false;
    let mut k = start;
    while let Some(q) = lex::find_byte(b, k, end, b'"') {
        let mut slashes = 0;
        while q - slashes > start && b[q - slashes - 1] == b'\\' {
            slashes += 1;
        }
        if !inside || slashes % 2 == 0 {
            inside = !inside;
        }
        k = q + 1;
    }
    inside
}

/// Reasoning blocks anywhere in the body (`<think>…</think>` and kin), in
/// order: no candidate may start inside one.
/// `angle`: where the first `<` after the byte-order mark is
/// ([`first_angle`]).
pub(crate) fn reasoning(text: &str, body: Range<usize>, angle: Option<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    work::add(body.len());
    let Some(angle) = angle else {
        return out;
    };
    let mut i = body.start.max(angle).min(body.end);
    while let Some(k) = lex::find_byte(text.as_bytes(), i, body.end, b'<') {
        i = k + 1;
        let rest = &text[k..body.end];
        let Some((open, close)) = REASONING
            .iter()
            .find(|(open, _)| starts_with_ignore_case(rest, open))
        else {
            continue;
        };
        let end = find_ignore_case(&rest[open.len()..], close)
            .map_or(body.end, |e| k + open.len() + e + close.len());
        // A tag named in prose opens no block (`Use <think> tags.`,
        // `` `<think>` ``): what follows it is the reply. (Told by the bytes
        // next to it alone, so that a view of the text so far never shows
        // what a longer text takes back.)
        if named_tag(text, k, k + open.len()) {
            continue;
        }
        out.push(k..end);
        i = end;
    }
    out
}

/// Whether the reasoning tag at `at..end` is named in prose, not written
/// to open a block: in inline code (a backtick right before and right
/// after it), or after words on its line and followed by the word `tag`,
/// `tags`, `block` or `blocks` (`use <think> tags`; `Sure!⏎<think> Tags
/// to extract: …` is a block).
fn named_tag(text: &str, at: usize, end: usize) -> bool {
    let b = text.as_bytes();
    if at > 0 && b[at - 1] == b'`' && b.get(end) == Some(&b'`') {
        return true;
    }
    let mut j = at;
    while j > 0 && matches!(b[j - 1], b' ' | b'\t') {
        j -= 1;
    }
    if j == 0 || b[j - 1] == b'\n' {
        return false;
    }
    let rest = text[end..].trim_start_matches([' ', '\t']);
    let word = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
    rest.len() < text.len() - end
        && ["tag", "tags", "block", "blocks"]
            .iter()
            .any(|w| rest[..word].eq_ignore_ascii_case(w))
}

/// Whether `at` lies inside one of `spans` (sorted by start, not
/// overlapping): a binary search, so checking every candidate stays
/// linear-logarithmic however many blocks a reply has.
pub(crate) fn inside(spans: &[Range<usize>], at: usize) -> bool {
    let k = spans.partition_point(|s| s.start <= at);
    k > 0 && spans[k - 1].contains(&at)
}

/// Candidate spans, in the order they are tried: those of [`marked`] as
/// found, or those of [`prose`] by their start.
#[derive(Debug, Default)]
pub(crate) struct Candidates {
    /// Fences and tags.
    listed: Vec<Candidate>,
    /// Balanced spans in prose, sorted by start (no two start at the same
    /// opener): kept as [`Span`]s, since a reply may hold one in every few
    /// bytes.
    balanced: Vec<Span>,
    /// The trailing spans in prose (at most two), sorted by start.
    trailing: Vec<Range<usize>>,
}

impl Candidates {
    /// The candidates, in order.
    pub(crate) fn iter(&self) -> CandidateIter<'_> {
        CandidateIter {
            all: self,
            listed: 0,
            balanced: 0,
            trailing: 0,
        }
    }
}

/// The candidates of a [`Candidates`], in order.
#[derive(Clone)]
pub(crate) struct CandidateIter<'a> {
    all: &'a Candidates,
    listed: usize,
    balanced: usize,
    trailing: usize,
}

impl Iterator for CandidateIter<'_> {
    type Item = Candidate;

    fn next(&mut self) -> Option<Candidate> {
        if let Some(c) = self.all.listed.get(self.listed) {
            self.listed += 1;
            return Some(c.clone());
        }
        let b = self.all.balanced.get(self.balanced).map(Span::range);
        let t = self.all.trailing.get(self.trailing);
        match (b, t) {
            (Some(ref b), Some(t)) if t.start < b.start => {
                self.trailing += 1;
                Some(Candidate {
                    span: t.clone(),
                    strategy: Strategy::Trailing,
                })
            }
            (Some(b), _) => {
                self.balanced += 1;
                Some(Candidate {
                    span: b,
                    strategy: Strategy::Balanced,
                })
            }
            (None, Some(t)) => {
                self.trailing += 1;
                Some(Candidate {
                    span: t.clone(),
                    strategy: Strategy::Trailing,
                })
            }
            (None, None) => None,
        }
    }
}

/// Candidates the model marked: fenced blocks, then `<json>` tags (none
/// inside the `skip` spans, which are sorted).
/// `angle`: where the first `<` after the byte-order mark is
/// ([`first_angle`]).
pub(crate) fn marked(
    text: &str,
    body: Range<usize>,
    which: Strategies,
    skip: &[Range<usize>],
    angle: Option<usize>,
) -> Candidates {
    let mut out = Vec::new();
    if which.fence {
        fences(text, body.clone(), &mut out);
    }
    if let (true, Some(angle)) = (which.tag, angle) {
        tags(text, body, angle, &mut out);
    }
    out.retain(|c| !inside(skip, c.span.start));
    Candidates {
        listed: out,
        ..Candidates::default()
    }
}

/// Candidates in prose: balanced spans, then the trailing unclosed spans.
/// The `skip` spans (sorted: reasoning blocks, spans already decoded whole)
/// are not scanned again.
pub(crate) fn prose(
    text: &str,
    body: Range<usize>,
    which: Strategies,
    skip: &[Range<usize>],
) -> Candidates {
    let mut out = Candidates::default();
    if which.balanced || which.trailing {
        balanced(text, body.clone(), which, skip, &mut out);
    }
    in_quotes(text, body, &mut out.balanced);
    out
}

/// Leaves out the balanced spans inside a quoted phrase of the prose: after
/// an odd number of `"` since the body's start, with one more `"` after the
/// span (`The answer is "see [] here"`: the `[]` is words of the string, not
/// a value). The quotes (not those after a backslash) are counted once over
/// the whole body.
fn in_quotes(text: &str, body: Range<usize>, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let Some(last) = memchr::memrchr(b'"', &b[body.clone()]).map(|k| body.start + k) else {
        return;
    };
    let (mut at, mut quotes) = (body.start, 0usize);
    spans.retain(|s| {
        let r = s.range();
        let from = at;
        quotes += memchr::memchr_iter(b'"', &b[from..r.start.max(from)])
            .filter(|&k| k == 0 || b[from + k - 1] != b'\\')
            .count();
        at = at.max(r.start);
        quotes % 2 == 0 || last < r.end
    });
}

/// Fenced blocks: ```` ```lang ```` … ```` ``` ````, or an opening fence left
/// open at the end.
fn fences(text: &str, body: Range<usize>, out: &mut Vec<Candidate>) {
    let b = text.as_bytes();
    let mut i = body.start;
    // Whether a fence's close is looked for string-aware (fence markers in a
    // JSON string are content). Off once a string ran to the end: each
    // later fence would scan to the end again.
    let mut aware = true;
    // The next JSON value in the prose before the fence: markers inside its
    // strings open no fence. Off once one ran to the end unclosed.
    let mut skip_json = true;
    // A JSON value before the fences that never closes: how far its strings
    // were followed, and whether that point is inside one.
    let mut cut_json: Option<(usize, bool)> = None;
    while let Some(open) = find(b, i, body.end, b"```") {
        if skip_json {
            let json = memchr::memchr2_iter(b'{', b'[', &b[i..open])
                .map(|k| i + k)
                .find(|&k| starts_like_json(b, k, body.end));
            if let Some(start) = json {
                let (close, quoted) = close_around(b, start, body.end, open);
                work::add(close.unwrap_or(body.end) - start);
                match close {
                    // A value that closes before the fence, or around a
                    // marker inside one of its strings: past it.
                    Some(c) if c < open || quoted => {
                        work::add(open - start);
                        i = c + 1;
                        continue;
                    }
                    // A marker outside its strings is a fence: the brackets
                    // around it are prose (`[...] ```json {…} ``` …]`), as a
                    // reply cut before the closer reads them.
                    Some(_) => {}
                    None => {
                        skip_json = false;
                        cut_json = Some((start, false));
                    }
                }
            }
        }
        // Inside a string of a value that runs to the end (a cut reply):
        // content, not a fence. The scan goes on from where it stopped.
        if let Some((scanned, in_string)) = &mut cut_json {
            let mut k = *scanned;
            while k < open {
                match b[k] {
                    b'\\' if *in_string => k += 1,
                    b'"' => *in_string = !*in_string,
                    _ => {}
                }
                k += 1;
            }
            work::add(k.saturating_sub(*scanned));
            *scanned = k.max(open);
            if *in_string {
                i = open + 3;
                continue;
            }
        }
        // A fence opens a line, or is followed by a language tag (`lorem
        // ```json {…}`); one inside a string or a word (`"```"`, `a```b`)
        // is none.
        let line_start = open == body.start || {
            let mut k = open;
            while k > body.start && matches!(b[k - 1], b' ' | b'\t' | b'>') {
                k -= 1;
            }
            k == body.start || b[k - 1] == b'\n'
        };
        let tagged = b[open + 3..body.end]
            .first()
            .is_some_and(u8::is_ascii_alphabetic);
        let spaced = open == body.start || matches!(b[open - 1], b' ' | b'\t' | b'\n' | b'\r');
        // A marker followed by a comma or a closer ends a string written
        // between markers and goes on with the value around it
        // (`"code": ```⏎…⏎```,`): no info string starts so, and no fence
        // opens there.
        let ticks = b[open..body.end].iter().take_while(|&&c| c == b'`').count();
        let delimits = b
            .get(open + ticks)
            .is_some_and(|c| matches!(c, b',' | b';' | b')' | b']' | b'}'));
        if !(line_start || (spaced && tagged)) || delimits {
            i = open + 3;
            while i < body.end && b[i] == b'`' {
                i += 1;
            }
            continue;
        }
        let mut k = open;
        while k < body.end && b[k] == b'`' {
            k += 1;
        }
        // An optional language tag (`json`, `JSON`, `python`, ...).
        let mut content = k;
        while content < body.end
            && (b[content].is_ascii_alphanumeric() || matches!(b[content], b'_' | b'+' | b'-'))
        {
            content += 1;
        }
        if content < body.end
            && !b[content].is_ascii_whitespace()
            && !matches!(b[content], b'{' | b'[')
        {
            content = k;
        }
        let lang = &b[k..content];
        if content < body.end && b[content] == b'\n' {
            content += 1;
        }
        let first = lex::next_significant(b, content, body.end);
        // A body that opens like JSON (`{ is how blocks open, "…` is prose:
        // its fence closes by the plain rule, whatever its quotes say).
        let json = first < body.end
            && match b[first] {
                b'"' | b'\'' => true,
                b'{' | b'[' => starts_like_json(b, first, body.end),
                _ => false,
            };
        // The first bare fence is the close when it opens a line right after
        // the value's last closer or quote, and no fence with a language tag
        // came before it (the common case: no second pass over the value);
        // else the value is read string-aware to find it. A tagged fence
        // before it opens a code sample inside a string, whose close may
        // well follow a closer on its own line (`"```js\n}\n```"`).
        let (naive, nested) = bare_close(b, content, body.end);
        // (Not where a double quote follows it: it may sit inside a string
        // that closes later, `"fn f() {⏎}⏎```⏎done"`.)
        let plain = !nested
            && naive.is_some_and(|c| {
                closes_value(b, first, c) && memchr::memchr(b'"', &b[c..body.end]).is_none()
            });
        // With no bare fence after it at all, no marker can close it: the
        // string-aware read could only say so.
        let read = aware && json && !plain && naive.is_some();
        let close = match read.then(|| json_fence_close(b, first, body.end)) {
            Some(JsonEnd::Fence(c)) => Some(c),
            Some(JsonEnd::Open) => None,
            // Markers in the strings that closed before it are content; in
            // the string that runs to the end (a string left unclosed, or a
            // reply cut inside one), a fence on a line of its own closes the
            // block, as Markdown closes one; any other marker is the
            // string's text so far.
            Some(JsonEnd::StringToEnd(quote)) => {
                aware = false;
                line_close(b, quote + 1, body.end)
            }
            None => naive,
        };
        // A fence in a language of code holds code: a scalar in it
        // (`print('hi')`, `'{'`, `x = 1`) is no answer. A container in it
        // may be (a Python dict, a JavaScript object).
        let code = is_code(lang) && !(first < body.end && matches!(b[first], b'{' | b'['));
        match close {
            Some(close) if code => {
                i = close;
                while i < body.end && b[i] == b'`' {
                    i += 1;
                }
            }
            None if code => break,
            Some(close) => {
                push(out, text, content..close, Strategy::Fence);
                i = close;
                while i < body.end && b[i] == b'`' {
                    i += 1;
                }
            }
            None => {
                let end = closer_being_written(b, first, body.end).unwrap_or(body.end);
                push(out, text, content..end, Strategy::Fence);
                break;
            }
        }
    }
}

/// Whether a fence's language tag names a language of code: any tag but
/// none, the JSON family's (`json`, `json5`, `jsonc`, `jsonl`, `ndjson`)
/// and plain text's (`text`, `txt`, `plaintext`, `output`).
fn is_code(lang: &[u8]) -> bool {
    const DATA: [&[u8]; 9] = [
        b"json",
        b"json5",
        b"jsonc",
        b"jsonl",
        b"ndjson",
        b"text",
        b"txt",
        b"plaintext",
        b"output",
    ];
    !lang.is_empty() && !DATA.iter().any(|d| d.eq_ignore_ascii_case(lang))
}

/// Where the closing fence of an open block starts when the text ends
/// while it is written: one or two backticks alone on the last line, right
/// after the closer or quote that ends the value opening at `first` (where
/// three would close the block). The block's body ends there, as it will
/// once the fence is whole; read as the body, the backticks would make the
/// value a repaired one for a byte or two. (After a value cut off, the
/// scanner passes them: see [`lex::fence_being_written`].)
fn closer_being_written(b: &[u8], first: usize, end: usize) -> Option<usize> {
    if end != b.len() || first >= end || !matches!(b[first], b'{' | b'[' | b'"' | b'\'') {
        return None;
    }
    let ticks = b[..end].iter().rev().take_while(|&&c| c == b'`').count();
    let at = end - ticks;
    ((1..=2).contains(&ticks) && closes_value(b, first, at)).then_some(at)
}

/// Whether the fence at `close` starts a line and follows (past spaces) the
/// closer or quote that ends the value opening at `first`: `}` for `{`, and
/// so on. A fence marker inside a string is preceded by text of the string.
fn closes_value(b: &[u8], first: usize, close: usize) -> bool {
    let mut k = close;
    while k > first && matches!(b[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    if k <= first || b[k - 1] != b'\n' {
        return false;
    }
    let last = lex::trim_back(b, first, k);
    let want = match b[first] {
        b'{' => b'}',
        b'[' => b']',
        q => q,
    };
    last > first && b[last - 1] == want
}

/// How a JSON value inside a fence ends.
enum JsonEnd {
    /// At this closing fence: the first ```` ``` ```` outside a string (while
    /// the value is open), or the first bare one after the value closed.
    Fence(usize),
    /// The value and the fence run to the end of the text.
    Open,
    /// The string whose opening quote is here runs to the end: the markers
    /// inside it cannot be told from real ones (those before it can).
    StringToEnd(usize),
}

/// The closing fence of a fence whose content is a JSON value (an object,
/// an array or a string) opening at `i`: fence markers inside the value's
/// strings are content.
fn json_fence_close(b: &[u8], i: usize, end: usize) -> JsonEnd {
    let mut depth = 0usize;
    let mut k = i;
    let mut none = 0..0;
    while k < end {
        let string = match b[k] {
            b'"' => Some(string_end(b, k + 1, end)),
            b'\'' if k == i || opens_single_quoted(b, k, i) => {
                Some(fenced_single_quoted_end(b, k + 1, end, &mut none))
            }
            _ => None,
        };
        if let Some(after) = string {
            if after == end {
                work::add(end - i);
                return JsonEnd::StringToEnd(k);
            }
            if depth > 0 {
                // A string in a container is followed by what JSON puts
                // after one. When it is not (`"b": "x⏎```⏎That's "it`), its
                // closing quote was prose after the fence, and a fence on a
                // line of its own inside it closed the block.
                let next = lex::next_significant(b, after, end);
                if next < end && !matches!(b[next], b',' | b':' | b'}' | b']' | b'"' | b'\'') {
                    if let Some(c) = line_close(b, k + 1, after) {
                        work::add(c - i);
                        return JsonEnd::Fence(c);
                    }
                }
            }
            k = after;
            if depth == 0 {
                // A string is the whole value.
                break;
            }
            continue;
        }
        match b[k] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    k += 1;
                    break;
                }
            }
            // A string between fence markers where a value goes, closed by
            // a marker that the value goes on after (```` "code": ```⏎…⏎```, ````):
            // its markers are content.
            b'`' if depth > 0 && code_block_opens(b, k, i, end) => {
                let close = code_block_close(b, k, end);
                let after = close.unwrap_or(end);
                let next = lex::next_significant(b, after, end);
                // A bare marker on a line of its own that nothing closes
                // (or only a marker with a tag, which opens a block) is the
                // fence's own closer, the value cut off before it
                // (```` "w":⏎```⏎Done. ````): the words after it are no code.
                if bare_line_marker(b, i, k, end)
                    && close.is_none_or(|a| a < end && b[a].is_ascii_alphanumeric())
                {
                    work::add(k - i);
                    return JsonEnd::Fence(k);
                }
                if after == end {
                    let ticks = b[k..end].iter().take_while(|&&c| c == b'`').count();
                    return JsonEnd::StringToEnd(k + ticks - 1);
                }
                if next < end && !matches!(b[next], b',' | b'}' | b']') {
                    let ticks = b[..after].iter().rev().take_while(|&&c| c == b'`').count();
                    return JsonEnd::Fence(after - ticks);
                }
                k = after;
                continue;
            }
            b'`' if b[k..end].starts_with(b"```") => {
                work::add(k - i);
                return JsonEnd::Fence(k);
            }
            _ => {}
        }
        k += 1;
    }
    work::add(k - i);
    if k >= end {
        return JsonEnd::Open;
    }
    bare_close(b, k, end)
        .0
        .map_or(JsonEnd::Open, JsonEnd::Fence)
}

/// The first bare closing fence from `from`: one followed by a language tag
/// opens a nested block (```` ```bash ```` inside a JSON string), so it is
/// passed over. With whether one was.
fn bare_close(b: &[u8], from: usize, end: usize) -> (Option<usize>, bool) {
    let mut close = find(b, from, end, b"```");
    let mut nested = false;
    while let Some(c) = close {
        let mut e = c;
        while e < end && b[e] == b'`' {
            e += 1;
        }
        if e < end && b[e].is_ascii_alphabetic() {
            nested = true;
            close = find(b, e, end, b"```");
        } else {
            break;
        }
    }
    work::add(close.unwrap_or(end) - from);
    (close, nested)
}

/// The first fence from `from` on a line of its own: after a line break and
/// spaces, followed by spaces up to a line break or the end.
fn line_close(b: &[u8], from: usize, end: usize) -> Option<usize> {
    let mut at = from;
    while let Some(c) = find(b, at, end, b"```") {
        let mut e = c;
        while e < end && b[e] == b'`' {
            e += 1;
        }
        at = e;
        let mut s = c;
        while s > from && matches!(b[s - 1], b' ' | b'\t') {
            s -= 1;
        }
        if s == from || b[s - 1] != b'\n' {
            continue;
        }
        while e < end && matches!(b[e], b' ' | b'\t' | b'\r') {
            e += 1;
        }
        if e == end || b[e] == b'\n' {
            work::add(c - from);
            return Some(c);
        }
    }
    work::add(end - from);
    None
}

/// `<json>…</json>` blocks (any case).
fn tags(text: &str, body: Range<usize>, angle: usize, out: &mut Vec<Candidate>) {
    work::add(body.len());
    let mut strings = Strings::new(body.start);
    let mut i = body.start.max(angle).min(body.end);
    // Whether a closing tag is looked for string-aware: off once one was
    // looked for to the end (each later tag would look that far again).
    let mut aware = true;
    while let Some(k) = find_ignore_case(&text[i..body.end], "<json>") {
        let start = i + k + "<json>".len();
        // `["<json>{}</json>"]`: the tag is a string's text, not a value.
        if strings.inside(text.as_bytes(), i + k) {
            i = start;
            continue;
        }
        match closing_tag(text, start, body.end, &mut aware) {
            Some(k) => {
                push(out, text, start..k, Strategy::Tag);
                i = k + "</json>".len();
            }
            None => {
                push(out, text, start..body.end, Strategy::Tag);
                break;
            }
        }
    }
}

/// Where the `</json>` that closes a tag whose content starts at `start`
/// begins: the first one outside the strings of the value in it
/// (`<json>{'a': '</json>'}</json>`), or, when every one is inside a string
/// (or `aware` is off), the first one (`<json>{"a": "x</json>`: a string
/// left open is closed by the tag, as a fence closes one on its own line).
fn closing_tag(text: &str, start: usize, end: usize, aware: &mut bool) -> Option<usize> {
    let b = text.as_bytes();
    let first = start + find_ignore_case(&text[start..end], "</json>")?;
    if !*aware {
        return Some(first);
    }
    let mut strings = Strings::new(start);
    let mut at = first;
    loop {
        if !strings.inside(b, at) {
            return Some(at);
        }
        match find_ignore_case(&text[at + 1..end], "</json>") {
            Some(k) => at = at + 1 + k,
            None => {
                work::add(end - start);
                *aware = false;
                return Some(first);
            }
        }
    }
}

/// Whether the bytes of `text` from `from` on complete a `<json>` tag's
/// closing tag (`</json>`, any case; one begun before `from` too): a value
/// read from a tag's content may end there for a decode, whatever a reading
/// of the text as JSON makes of it (inside a string, until a closing tag
/// outside the strings comes: [`closing_tag`]).
pub(crate) fn closing_json_tag_in(text: &str, from: usize) -> bool {
    const CLOSE: &[u8] = b"</json>";
    let b = text.as_bytes();
    b[from..].contains(&b'>')
        && b[from.saturating_sub(CLOSE.len() - 1)..]
            .windows(CLOSE.len())
            .any(|w| w.eq_ignore_ascii_case(CLOSE))
}

/// Whether places in the text, asked in order, lie inside a string of a
/// bracketed value (`{"a": "<json>"}`, `{'a': '<json>'}`): one
/// string-aware pass over the text, however many places are asked. Quotes
/// outside brackets are prose. A single quote opens a string where JSON
/// puts a value or key (after an opener, a comma or a colon) and closes it
/// where what ends a value follows (`'it's'` holds its apostrophe), or at
/// its line's end, as the balanced scan reads one.
struct Strings {
    at: usize,
    depth: usize,
    /// The quote of the string `at` is in.
    string: Option<u8>,
    /// The last byte outside strings and spaces.
    last: u8,
}

impl Strings {
    fn new(start: usize) -> Strings {
        Strings {
            at: start,
            depth: 0,
            string: None,
            last: b'\n',
        }
    }

    /// Whether `to` (not before the last place asked) is inside a string.
    fn inside(&mut self, b: &[u8], to: usize) -> bool {
        while self.at < to {
            let c = b[self.at];
            match (self.string, c) {
                (Some(_), b'\\') => self.at += 1,
                (Some(b'"'), b'"') => self.string = None,
                (Some(b'\''), b'\n') => self.string = None,
                (Some(b'\''), b'\'') => {
                    let next = lex::next_significant(b, self.at + 1, b.len());
                    if next >= b.len() || matches!(b[next], b',' | b']' | b'}' | b':') {
                        self.string = None;
                    }
                }
                (Some(_), _) => {}
                (None, b'"') if self.depth > 0 => self.string = Some(c),
                (None, b'\'')
                    if self.depth > 0 && matches!(self.last, b'{' | b'[' | b',' | b':') =>
                {
                    self.string = Some(c)
                }
                (None, b'{' | b'[') => self.depth += 1,
                (None, b'}' | b']') => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            if self.string.is_none() && !c.is_ascii_whitespace() {
                self.last = c;
            }
            self.at += 1;
        }
        self.string.is_some()
    }
}

static OPENERS: [bool; 256] = lex::byte_table(b"{[", false);
static STRUCTURAL: [bool; 256] = lex::byte_table(b"{[]}\"'/`", false);

/// Balanced `{…}` and `[…]` spans in the prose, found by one string-aware
/// scan with a stack (brackets inside `"..."` do not count). A matched span
/// is a candidate unless a matched span that starts like JSON holds it;
/// inside one that does not (`{ for blocks. {"a": 1} }`), its inner spans
/// stay candidates too. Openers left open at the end start trailing
/// candidates: the outermost, and the first that starts like JSON, since
/// the outer one may be a stray (`use { for blocks. {"a": [1,`).
/// Candidates come in order of their start, so a trailing candidate is
/// tried before the spans inside it.
fn balanced(
    text: &str,
    body: Range<usize>,
    which: Strategies,
    skip: &[Range<usize>],
    out: &mut Candidates,
) {
    let b = text.as_bytes();
    let mut found: Vec<Span> = Vec::new();
    let mut open = Openers::default();
    let mut next_skip = 0;
    // Where a search for a comment's close found none to the end: later
    // ones are not made (a reply of `[ /*` repeated stays linear).
    let mut no_close = body.end;
    let mut i = body.start;
    work::add(body.len());
    while i < body.end {
        if open.is_empty() {
            while next_skip < skip.len() && skip[next_skip].end <= i {
                next_skip += 1;
            }
            if next_skip < skip.len() && skip[next_skip].start <= i {
                i = skip[next_skip].end;
                continue;
            }
            if !OPENERS[usize::from(b[i])] {
                i += 1;
                while i < body.end && !OPENERS[usize::from(b[i])] {
                    i += 1;
                }
                continue;
            }
            if quoted_bracket(b, i, body.start) {
                i += 1;
                continue;
            }
        }
        match b[i] {
            b'"' => {
                i = string_end(b, i + 1, body.end);
                continue;
            }
            // A single-quoted string where JSON puts a value or key (`['}']`);
            // elsewhere an apostrophe is prose (`Here's`).
            b'\'' if opens_single_quoted(b, i, body.start) => {
                i = single_quoted_end(b, i + 1, body.end);
                continue;
            }
            // A comment inside brackets (`{"b": /* } */ 2}`): its text. Not
            // a glob in a word (`[lib/*.py]`), nor one that never closes.
            b'/' if b.get(i + 1) == Some(&b'*')
                && i < no_close
                && matches!(
                    b[i - 1],
                    b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b'{' | b'['
                ) =>
            {
                match find(b, i + 2, body.end, b"*/") {
                    Some(k) => {
                        work::add(k - i);
                        i = k + 2;
                        continue;
                    }
                    None => {
                        work::add(body.end - i);
                        no_close = i;
                    }
                }
            }
            // A string between fence markers where JSON puts a value
            // (```` "code": ```⏎…⏎``` ````, as the scanner reads one): its
            // text, brackets and all.
            // (Any other run of backticks is passed whole: each is looked at
            // once.)
            b'`' => {
                if code_block_opens(b, i, body.start, body.end) {
                    i = code_block_end(b, i, body.end);
                    continue;
                }
                while i + 1 < body.end && b[i + 1] == b'`' {
                    i += 1;
                }
            }
            b'{' | b'[' => open.push(i),
            b'}' | b']' => {
                if let Some(start) = open.pop() {
                    if starts_like_json(b, start, body.end) {
                        // Spans inside this one are not candidates of their own.
                        while found.last().is_some_and(|f| f.range().start > start) {
                            found.pop();
                        }
                    }
                    Span::push(&mut found, start..i + 1);
                }
            }
            _ => {}
        }
        i += 1;
        while i < body.end && !STRUCTURAL[usize::from(b[i])] {
            i += 1;
        }
    }
    // The first opener left open that starts like JSON is where a cut-off
    // value starts: spans inside it are parts of it, not candidates.
    let cut = open
        .iter()
        .find(|&start| starts_like_json(b, start, body.end));
    if which.balanced {
        found.retain(|f| {
            let f = f.range();
            cut.is_none_or(|cut| f.start < cut) && !is_marker(&b[f])
        });
        // Each opener starts one span at most: no two are equal to keep in
        // order.
        found.sort_unstable_by_key(|f| f.start);
        found.shrink_to_fit();
        out.balanced = found;
    }
    if which.trailing {
        let outer = open.iter().next();
        for start in outer.into_iter().chain(cut.filter(|&c| Some(c) != outer)) {
            out.trailing
                .extend(trimmed(text.as_bytes(), start..body.end));
        }
    }
}

/// A span of the reply in eight bytes (offsets below 4 GiB, as the tape
/// keeps them): a reply may hold a balanced span in every three bytes.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Appends `r` to `list`, which grows by a quarter of its length, not
    /// by doubling (its spare room stays small).
    fn push(list: &mut Vec<Span>, r: Range<usize>) {
        if list.len() == list.capacity() {
            list.reserve_exact((list.len() / 4).max(16));
        }
        list.push(Span {
            start: r.start as u32,
            end: r.end as u32,
        });
    }
}

/// The openers the balanced scan has seen and not yet matched: a stack of
/// offsets that rise, each kept as its distance from the one below in
/// LEB128 bytes (the last of a number's bytes has its high bit clear), so a
/// reply of a million `[` costs a megabyte at most, not eight.
#[derive(Debug, Default)]
struct Openers {
    bytes: Vec<u8>,
    /// The offset on top (0 when empty).
    top: usize,
}

impl Openers {
    fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Pushes `at`, above the top.
    fn push(&mut self, at: usize) {
        let mut d = at - self.top;
        while d >= 0x80 {
            self.bytes.push(0x80 | (d & 0x7f) as u8);
            d >>= 7;
        }
        self.bytes.push(d as u8);
        self.top = at;
    }

    fn pop(&mut self) -> Option<usize> {
        let end = self.bytes.len();
        let last = end.checked_sub(1)?;
        let mut start = last;
        while start > 0 && self.bytes[start - 1] & 0x80 != 0 {
            start -= 1;
        }
        let at = self.top;
        self.top -= leb128(&self.bytes[start..end]);
        self.bytes.truncate(start);
        Some(at)
    }

    /// The offsets, from the bottom up.
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let mut k = 0;
        let mut at = 0;
        std::iter::from_fn(move || {
            let start = k;
            while self.bytes.get(k)? & 0x80 != 0 {
                k += 1;
            }
            k += 1;
            at += leb128(&self.bytes[start..k]);
            Some(at)
        })
    }
}

/// The number in one LEB128 encoding.
fn leb128(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .rev()
        .fold(0, |n, &b| (n << 7) | usize::from(b & 0x7f))
}

/// Whether the opener at `i`, in prose, is a bracket named as one
/// character in quotes or backticks (`Use '{' to open`, `type "["`,
/// `` (`{`) ``): a mention of the character, where no value starts. The
/// quotes open and close a quotation: a space, an opening parenthesis or
/// the start before them, no word after them (`"y"{"` is a string, then an
/// object's start).
fn quoted_bracket(b: &[u8], i: usize, start: usize) -> bool {
    quotation_before(b, i, start)
        && b.get(i + 1) == Some(&b[i - 1])
        && b.get(i + 2)
            .is_none_or(|c| !c.is_ascii_alphanumeric() && !b"{[\"'`".contains(c))
}

/// Whether a quote or backtick that opens a quotation comes right before
/// `i` (a space, an opening parenthesis or `start` before it): the bracket
/// at `i` is named as a character once the same quote follows it (see
/// [`quoted_bracket`]).
pub(crate) fn quotation_before(b: &[u8], i: usize, start: usize) -> bool {
    i > start
        && matches!(b[i - 1], b'\'' | b'"' | b'`')
        && (i - 1 == start || matches!(b[i - 2], b' ' | b'\t' | b'\n' | b'\r' | b'('))
}

/// Whether the `'` at `i` opens a string: it follows (past spaces) an
/// opener, a comma or a colon.
fn opens_single_quoted(b: &[u8], i: usize, start: usize) -> bool {
    let mut k = i;
    while k > start && matches!(b[k - 1], b' ' | b'\t' | b'\n' | b'\r') {
        k -= 1;
    }
    k > start && matches!(b[k - 1], b'[' | b'{' | b',' | b':')
}

/// Whether a string written between fence markers opens at `i`, as the
/// scanner reads one (`code_block_at` in `src/scan/mod.rs`): a marker
/// whose tag is not `json`, where an object member's value goes (after its
/// colon, past spaces; not before `start`).
fn code_block_opens(b: &[u8], i: usize, start: usize, end: usize) -> bool {
    let n = lex::fence_len(b, i, end);
    if n == 0 {
        return false;
    }
    let ticks = b[i..end].iter().take_while(|&&c| c == b'`').count();
    let mut k = i;
    while k > start && matches!(b[k - 1], b' ' | b'\t' | b'\n' | b'\r') {
        k -= 1;
    }
    !b[i + ticks..i + n].eq_ignore_ascii_case(b"json") && k > start && b[k - 1] == b':'
}

/// Whether the run of backticks at `k` has no tag and stands on a line of
/// its own: spaces before it back to a line break (not before `start`),
/// and spaces after it up to a line break or the end.
fn bare_line_marker(b: &[u8], start: usize, k: usize, end: usize) -> bool {
    let mut s = k;
    while s > start && matches!(b[s - 1], b' ' | b'\t') {
        s -= 1;
    }
    let mut e = k;
    while e < end && b[e] == b'`' {
        e += 1;
    }
    while e < end && matches!(b[e], b' ' | b'\t' | b'\r') {
        e += 1;
    }
    s > start && b[s - 1] == b'\n' && (e == end || b[e] == b'\n')
}

/// The position after a string written between fence markers whose first
/// marker is at `open`: past the first later run of as many backticks or
/// more (the scanner's `code_block`), or `end` when none closes it.
fn code_block_end(b: &[u8], open: usize, end: usize) -> usize {
    code_block_close(b, open, end).unwrap_or(end)
}

/// [`code_block_end`], or `None` when no run closes the block.
fn code_block_close(b: &[u8], open: usize, end: usize) -> Option<usize> {
    let n = b[open..end].iter().take_while(|&&c| c == b'`').count();
    let mut k = open + n;
    while let Some(i) = lex::find_byte(b, k, end, b'`') {
        let run = b[i..end].iter().take_while(|&&c| c == b'`').count();
        if run >= n {
            work::add(i + run - open);
            return Some(i + run);
        }
        k = i + run;
    }
    work::add(end - open);
    None
}

/// The position after a single-quoted string whose content starts at `k`:
/// past the next `'` that is followed (past spaces) by what ends a value,
/// or past the line if none is (an apostrophe inside: `'it's'`).
fn single_quoted_end(b: &[u8], k: usize, end: usize) -> usize {
    let line = lex::find_byte(b, k, end, b'\n').unwrap_or(end);
    closing_single(b, k, line, end).unwrap_or(line)
}

/// The first `'` in `b[k..line]` followed (past spaces, up to `end`) by
/// what ends a value: the position after it.
fn closing_single(b: &[u8], mut k: usize, line: usize, end: usize) -> Option<usize> {
    while let Some(q) = lex::find_byte(b, k, line, b'\'') {
        let next = lex::next_significant(b, q + 1, end);
        if next >= end || matches!(b[next], b',' | b']' | b'}' | b':') {
            return Some(q + 1);
        }
        k = q + 1;
    }
    None
}

/// [`single_quoted_end`] for a string in a fenced value: a raw line break
/// inside it is its text, as the scanner reads it (`'⏎\"q\"'`), so its
/// closing quote may be on a later line, before any fence marker (one
/// closing the block at a line's end, `}```⏎`, opening the next, or alone
/// on its line: the string may well have ended at its line, an apostrophe
/// inside, and the marker is the block's); with none before one, it ends
/// at its line. `none`: lines from which an earlier call found none before
/// such a marker (`start..marker line`), so each line is looked at once.
fn fenced_single_quoted_end(b: &[u8], k: usize, end: usize, none: &mut Range<usize>) -> usize {
    let line = lex::find_byte(b, k, end, b'\n').unwrap_or(end);
    if let Some(after) = closing_single(b, k, line, end) {
        return after;
    }
    if none.contains(&line) {
        return line;
    }
    let mut from = line;
    while from < end {
        // `from` is at a line break: the next line, up to its first marker.
        let start = from + 1;
        let next = lex::find_byte(b, start, end, b'\n').unwrap_or(end);
        let marker = find(b, start, next, b"```");
        if let Some(after) = closing_single(b, start, marker.unwrap_or(next), end) {
            work::add(after - line);
            return after;
        }
        if marker.is_some() {
            work::add(next - line);
            *none = line..start;
            return line;
        }
        from = next;
    }
    work::add(end - line);
    *none = line..end;
    line
}

/// The position after the string whose content starts at `k` (after its
/// opening quote): past the next unescaped `"`, or `end`.
fn string_end(b: &[u8], mut k: usize, end: usize) -> usize {
    loop {
        let Some(q) = lex::find_byte(b, k, end, b'"') else {
            return end;
        };
        let mut slashes = 0;
        while q - slashes > k && b[q - slashes - 1] == b'\\' {
            slashes += 1;
        }
        if slashes % 2 == 0 {
            return q + 1;
        }
        k = q + 1;
    }
}

/// Where the value that opens at `start` closes (its matching `}` or `]`,
/// strings skipped: double-quoted ones, and single-quoted ones where JSON
/// puts a key or a value, as [`balanced`] reads them), and whether `at`
/// lies inside one of its strings (a fence marker in `{'tip': 'open with
/// ```json{'}` is the string's text).
fn close_around(b: &[u8], start: usize, end: usize, at: usize) -> (Option<usize>, bool) {
    let mut depth = 0usize;
    let mut quoted = false;
    let mut k = start;
    while k < end {
        let string_to = match b[k] {
            b'"' => Some(string_end(b, k + 1, end)),
            b'\'' if opens_single_quoted(b, k, start) => Some(single_quoted_end(b, k + 1, end)),
            b'{' | b'[' => {
                depth += 1;
                None
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return (Some(k), quoted);
                }
                None
            }
            _ => None,
        };
        match string_to {
            Some(e) => {
                quoted |= k < at && at < e;
                k = e;
            }
            None => k += 1,
        }
    }
    (None, quoted)
}

/// `[TOOL_CALLS]` and the like: a special-token marker, not an array.
fn is_marker(span: &[u8]) -> bool {
    marker_len(span) == Some(span.len())
}

/// Whether the opener at `i` is followed by what JSON puts after one: a
/// quote, a closer, another opener, a key and its colon after `{`, a
/// number or literal after `[`.
pub(crate) fn starts_like_json(b: &[u8], i: usize, end: usize) -> bool {
    let k = lex::next_significant(b, i + 1, end);
    let Some(&c) = b.get(k).filter(|_| k < end) else {
        return false;
    };
    match (b[i], c) {
        (_, b'"' | b'\'' | b'{' | b'[') => true,
        (b'{', b'}') | (b'[', b']') => true,
        // A bare key and its colon (`name:`, `we#ird :`, `name：`), looked
        // for within a short stretch.
        (b'{', _) => lex::key_then_colon(b, k, end.min(k + 128)).is_some(),
        // A number: `[1`, `[-2`, `[.5` (not `[...]` or `[.net]`, prose).
        (b'[', c) => {
            let digit_at = |k: usize| k < end && b[k].is_ascii_digit();
            c.is_ascii_digit()
                || (matches!(c, b'-' | b'+')
                    && (digit_at(k + 1)
                        || b[k + 1..end].starts_with(b"Inf")
                        || b[k + 1..end].starts_with(b"NaN")
                        || b[k + 1..end].starts_with(b".")))
                || (c == b'.' && digit_at(k + 1))
                || [&b"true"[..], b"false", b"null", b"NaN", b"Infinity"]
                    .iter()
                    .any(|w| b[k..end].starts_with(w))
        }
        _ => false,
    }
}

/// Adds a candidate with its span trimmed of whitespace (so the same span
/// found two ways is recognised as one).
fn push(out: &mut Vec<Candidate>, text: &str, span: Range<usize>, strategy: Strategy) {
    if let Some(span) = trimmed(text.as_bytes(), span) {
        out.push(Candidate { span, strategy });
    }
}

/// `span` trimmed of whitespace, unless nothing else is in it.
fn trimmed(b: &[u8], span: Range<usize>) -> Option<Range<usize>> {
    let (mut start, mut end) = (span.start, span.end);
    while start < end && b[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    (start < end).then_some(start..end)
}

/// How many top-level values `span` holds when they are all objects or
/// arrays (separated by whitespace, commas, semicolons or comments), and how
/// many of them are not empty (`{}`, `[ ]` are). `None` when anything else is
/// at the top level. Nothing is kept: a reply of a million `[1]` costs no
/// list of them.
pub(crate) fn container_roots(text: &str, span: Range<usize>) -> Option<(usize, usize)> {
    let (mut all, mut full) = (0, 0);
    for root in roots(text, span) {
        let (_, empty) = root?;
        all += 1;
        full += usize::from(!empty);
    }
    Some((all, full))
}

/// The `full` top-level values of `span` that are not empty, where
/// [`container_roots`] found them.
pub(crate) fn full_roots(text: &str, span: Range<usize>, full: usize) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(full);
    out.extend(
        roots(text, span)
            .map_while(|r| r)
            .filter(|(_, empty)| !empty)
            .map(|(r, _)| r),
    );
    out
}

/// The top-level values of `span`, each an object or array with whether it
/// is empty, as long as they are: `None` for the first that is not.
fn roots(
    text: &str,
    span: Range<usize>,
) -> impl Iterator<Item = Option<(Range<usize>, bool)>> + '_ {
    let b = text.as_bytes();
    let mut i = span.start;
    let mut done = false;
    // Where the root before ended, if it is a value that carries something
    // or a citation after one.
    let mut prev_end: Option<usize> = None;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        i = lex::next_significant(b, i, span.end);
        while i < span.end && matches!(b[i], b',' | b';') {
            i = lex::next_significant(b, i + 1, span.end);
        }
        if i >= span.end {
            done = true;
            return None;
        }
        if !matches!(b[i], b'{' | b'[') {
            done = true;
            return Some(None);
        }
        let (close, _) = lex::matching_close(b, i, span.end);
        let end = close.map_or(span.end, |c| c + 1);
        let after_value = prev_end.is_some_and(|e| memchr::memchr(b'\n', &b[e..i]).is_none());
        let empty = close.is_some_and(|c| {
            lex::next_significant(b, i + 1, span.end) == c
                || placeholder(&b[i..=c])
                || (after_value && lex::citation(&b[i..=c]))
        });
        let root = i..end;
        i = end;
        // A citation after a value's citations is the value's too (`{…}
        // [1][2]`); one after no value is none (`[1] [2]` are values).
        let cite = lex::citation(&b[root.clone()]);
        prev_end = ((after_value && cite) || (!empty && !cite)).then_some(end);
        Some(Some((root, empty)))
    })
}

/// Where the first byte from `at` on is past what a read of values one
/// after another leaves out beside them (see [`container_roots`]): spaces,
/// comments, the commas and semicolons between values, empty objects and
/// lists (`{}`, `[ ]`) and placeholders (`{name}`); or the end. (A
/// separator last is that byte: what follows it is yet to come.)
pub(crate) fn past_left_out(b: &[u8], at: usize) -> usize {
    let mut next = lex::next_significant(b, at, b.len());
    while let Some(&open) = b.get(next) {
        let inner = lex::next_significant(b, next + 1, b.len());
        let close = match open {
            b',' | b';' if inner < b.len() => {
                next = inner;
                continue;
            }
            b'{' | b'[' => {
                let words = b[inner..].iter().take_while(|&&c| lex::is_word(c)).count();
                let end = lex::next_significant(b, inner + words, b.len());
                match b.get(end) {
                    Some(b']') if open == b'[' && words == 0 => end,
                    Some(b'}') if open == b'{' && (words == 0 || placeholder(&b[next..=end])) => {
                        end
                    }
                    _ => break,
                }
            }
            _ => break,
        };
        next = lex::next_significant(b, close + 1, b.len());
    }
    next
}

/// Whether `span` (its brackets included) holds words with no colon, comma,
/// quote or bracket: a placeholder or an aside in prose (`{name}`, `[like
/// this]`), no value.
pub(crate) fn aside(span: &[u8]) -> bool {
    let inner = &span[1..span.len() - 1];
    !matches!(inner.trim_ascii(), b"true" | b"false" | b"null")
        && inner.iter().any(u8::is_ascii_alphabetic)
        && !inner
            .iter()
            .any(|c| matches!(c, b':' | b',' | b'"' | b'\'' | b'{' | b'[' | b'('))
}

/// A placeholder in braces, `{name}` or `{ user_id }`: one bare word and
/// nothing else, which reads as an empty object (a key with no value) and
/// carries nothing beside real values.
fn placeholder(span: &[u8]) -> bool {
    let inner = span[1..span.len() - 1].trim_ascii();
    span[0] == b'{' && !inner.is_empty() && inner.iter().all(|&c| lex::is_word(c))
}

/// The first `needle` in `b[from..end]`.
pub(crate) fn find(b: &[u8], mut from: usize, end: usize, needle: &[u8]) -> Option<usize> {
    while let Some(k) = lex::find_byte(b, from, end, needle[0]) {
        if end - k >= needle.len() && &b[k..k + needle.len()] == needle {
            return Some(k);
        }
        from = k + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<(&str, Strategy)> {
        let angle = first_angle(text);
        let body = body(text, angle);
        let mut all: Vec<Candidate> = whole(text, body.clone()).into_iter().collect();
        all.extend(marked(text, body.clone(), Strategies::default(), &[], angle).iter());
        all.extend(prose(text, body, Strategies::default(), &[]).iter());
        all.into_iter()
            .map(|c| (&text[c.span], c.strategy))
            .collect()
    }

    #[test]
    fn strips_bom_and_reasoning() {
        let t = "\u{feff}<think>maybe {a}</think>\n{\"a\": 1}";
        assert_eq!(&t[body(t, first_angle(t))], "\n{\"a\": 1}");
        let t = "<think>still thinking {\"a\": 1}";
        assert_eq!(&t[body(t, first_angle(t))], "still thinking {\"a\": 1}");
    }

    #[test]
    fn finds_fences_tags_and_spans_in_order() {
        let t =
            "Hi %{name}!\n```json\n{\"a\": 1}\n```\n<json>[2]</json> and {\"b\": \"}\"} then [3";
        assert_eq!(
            spans(t),
            vec![
                (t, Strategy::Whole),
                ("{\"a\": 1}", Strategy::Fence),
                ("[2]", Strategy::Tag),
                ("{name}", Strategy::Balanced),
                ("{\"a\": 1}", Strategy::Balanced),
                ("[2]", Strategy::Balanced),
                ("{\"b\": \"}\"}", Strategy::Balanced),
                ("[3", Strategy::Trailing),
            ]
        );
    }

    #[test]
    fn openers_stack_as_deltas() {
        let mut open = Openers::default();
        let mut want = Vec::new();
        for at in [0, 1, 2, 130, 131, 20_000, 5_000_000, usize::MAX / 2] {
            open.push(at);
            want.push(at);
            assert_eq!(open.iter().collect::<Vec<_>>(), want);
        }
        // One byte for each step below 128.
        assert_eq!(open.bytes[..3], [0, 1, 1]);
        while let Some(at) = want.pop() {
            assert_eq!(open.pop(), Some(at));
            assert_eq!(open.iter().collect::<Vec<_>>(), want);
        }
        assert!(open.is_empty());
        assert_eq!(open.pop(), None);
        open.push(7);
        assert_eq!(open.iter().collect::<Vec<_>>(), [7]);
    }

    #[test]
    fn unclosed_and_inline_fences() {
        let t = "```json\n{\"a\": [1,";
        assert_eq!(spans(t)[1], ("{\"a\": [1,", Strategy::Fence));
        let t = "lorem ```json {\"k\":1} ``` ipsum";
        assert_eq!(spans(t)[1], ("{\"k\":1}", Strategy::Fence));
    }
}
