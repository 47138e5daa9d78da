//! The extraction pre-pass: where in a reply the value might be.
//!
//! It strips a UTF-8 BOM and leading reasoning blocks, then yields candidate
//! spans in priority order: the whole text, each fenced block, each
//! `<json>…</json>` tag, each balanced `{…}`/`[…]` span in prose, and last a
//! trailing span that never closes. Spans are byte ranges of the caller's
//! text: nothing is copied.

use std::ops::Range;

use crate::report::Strategy;
use crate::scan::lex;

/// A place in the text where a value might be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub span: Range<usize>,
    pub strategy: Strategy,
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
        }
    }
}

impl Strategies {
    /// Only [`Strategy::Whole`]: the text is the value.
    pub(crate) fn only_whole() -> Strategies {
        Strategies {
            whole: true,
            fence: false,
            tag: false,
            balanced: false,
            trailing: false,
            gather: false,
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
        }
    }
}

/// Reasoning blocks some models write before answering.
const REASONING: [(&str, &str); 3] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
];

/// The length of a UTF-8 byte order mark at the start of `text`, or 0.
pub(crate) fn bom(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        3
    } else {
        0
    }
}

/// The part of the text after a BOM and leading reasoning blocks.
pub(crate) fn body(text: &str) -> Range<usize> {
    let mut start = bom(text);
    loop {
        let rest = &text[start..];
        let trimmed = rest.trim_start();
        let at = start + (rest.len() - trimmed.len());
        let Some((open, close)) = REASONING
            .iter()
            .find(|(open, _)| starts_with_ignore_case(trimmed, open))
        else {
            break;
        };
        match find_ignore_case(&text[at + open.len()..], close) {
            Some(k) => start = at + open.len() + k + close.len(),
            None => {
                // An unclosed block at the start: skip only the tag.
                start = at + open.len();
                break;
            }
        }
    }
    start..text.len()
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

/// The whole body, trimmed, without a stray fence at either end.
pub(crate) fn whole(text: &str, body: Range<usize>) -> Option<Candidate> {
    let b = text.as_bytes();
    let mut start = body.start;
    let mut end = body.end;
    while start < end && b[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    // `{...}```` or ````{...}```: a fence with no partner at an end. A reply
    // that is one fenced block loses both; a leading fence closed further on
    // stays (the fence strategy reads that block).
    while end > start && b[end - 1] == b'`' {
        end -= 1;
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
        if tagged && find(b, k, end, b"```").is_none() {
            start = k + lang;
        }
    }
    let mut c = Vec::new();
    push(&mut c, text, start..end, Strategy::Whole);
    c.pop()
}

/// Reasoning blocks anywhere in the body (`<think>…</think>` and kin): no
/// candidate may start inside one.
pub(crate) fn reasoning(text: &str, body: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = body.start;
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
        out.push(k..end);
        i = end;
    }
    out
}

/// Candidates the model marked: fenced blocks, then `<json>` tags (none
/// inside the `skip` spans).
pub(crate) fn marked(
    text: &str,
    body: Range<usize>,
    which: Strategies,
    skip: &[Range<usize>],
) -> Vec<Candidate> {
    let mut out = Vec::new();
    if which.fence {
        fences(text, body.clone(), &mut out);
    }
    if which.tag {
        tags(text, body, &mut out);
    }
    out.retain(|c| !skip.iter().any(|s| s.contains(&c.span.start)));
    out
}

/// Candidates in prose: balanced spans, then the trailing unclosed span. The
/// `skip` spans (already decoded whole) are not scanned again.
pub(crate) fn prose(
    text: &str,
    body: Range<usize>,
    which: Strategies,
    skip: &[Range<usize>],
) -> Vec<Candidate> {
    let mut out = Vec::new();
    if which.balanced || which.trailing {
        balanced(text, body, which, skip, &mut out);
    }
    out
}

/// Fenced blocks: ```` ```lang ```` … ```` ``` ````, or an opening fence left
/// open at the end.
fn fences(text: &str, body: Range<usize>, out: &mut Vec<Candidate>) {
    let b = text.as_bytes();
    let mut i = body.start;
    while let Some(open) = find(b, i, body.end, b"```") {
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
        if content < body.end && b[content] == b'\n' {
            content += 1;
        }
        // The closing fence is a bare ``` (one followed by a language tag
        // opens a nested block: ```` ```bash ```` inside a JSON string).
        let mut close = find(b, content, body.end, b"```");
        while let Some(c) = close {
            let mut e = c;
            while e < body.end && b[e] == b'`' {
                e += 1;
            }
            if e < body.end && b[e].is_ascii_alphabetic() {
                close = find(b, e, body.end, b"```");
            } else {
                break;
            }
        }
        match close {
            Some(close) => {
                push(out, text, content..close, Strategy::Fence);
                i = close;
                while i < body.end && b[i] == b'`' {
                    i += 1;
                }
            }
            None => {
                push(out, text, content..body.end, Strategy::Fence);
                break;
            }
        }
    }
}

/// `<json>…</json>` blocks (any case).
fn tags(text: &str, body: Range<usize>, out: &mut Vec<Candidate>) {
    let mut i = body.start;
    while let Some(k) = find_ignore_case(&text[i..body.end], "<json>") {
        let start = i + k + "<json>".len();
        match find_ignore_case(&text[start..body.end], "</json>") {
            Some(k) => {
                push(out, text, start..start + k, Strategy::Tag);
                i = start + k + "</json>".len();
            }
            None => {
                push(out, text, start..body.end, Strategy::Tag);
                break;
            }
        }
    }
}

static OPENERS: [bool; 256] = lex::byte_table(b"{[", false);
static STRUCTURAL: [bool; 256] = lex::byte_table(b"{[]}\"", false);

/// Balanced `{…}` and `[…]` spans at the top level of the prose, found by a
/// string-aware scan (brackets inside `"..."` do not count); the first that
/// never closes becomes a trailing candidate.
fn balanced(
    text: &str,
    body: Range<usize>,
    which: Strategies,
    skip: &[Range<usize>],
    out: &mut Vec<Candidate>,
) {
    let b = text.as_bytes();
    let mut i = body.start;
    while i < body.end {
        if let Some(s) = skip.iter().find(|s| s.contains(&i)) {
            i = s.end;
            continue;
        }
        if !matches!(b[i], b'{' | b'[') {
            i += 1;
            while i < body.end && !OPENERS[usize::from(b[i])] {
                i += 1;
            }
            continue;
        }
        let start = i;
        let mut depth = 0usize;
        let mut k = i;
        let mut closed = None;
        while k < body.end {
            match b[k] {
                b'"' => {
                    // Skip the string: to the next unescaped quote.
                    k += 1;
                    loop {
                        let Some(q) = lex::find_byte(b, k, body.end, b'"') else {
                            k = body.end;
                            break;
                        };
                        let mut slashes = 0;
                        while q - slashes > k && b[q - slashes - 1] == b'\\' {
                            slashes += 1;
                        }
                        k = q + 1;
                        if slashes % 2 == 0 {
                            break;
                        }
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        closed = Some(k + 1);
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
            while k < body.end && !STRUCTURAL[usize::from(b[k])] {
                k += 1;
            }
        }
        match closed {
            Some(end) => {
                if which.balanced {
                    push(out, text, start..end, Strategy::Balanced);
                }
                i = end;
            }
            None => {
                if which.trailing {
                    push(out, text, start..body.end, Strategy::Trailing);
                }
                break;
            }
        }
    }
}

/// Adds a candidate with its span trimmed of whitespace (so the same span
/// found two ways is recognised as one).
fn push(out: &mut Vec<Candidate>, text: &str, span: Range<usize>, strategy: Strategy) {
    let b = text.as_bytes();
    let (mut start, mut end) = (span.start, span.end);
    while start < end && b[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    if start < end {
        out.push(Candidate {
            span: start..end,
            strategy,
        });
    }
}

/// The top-level values of `span` when they are all objects or arrays
/// (separated by whitespace, commas, semicolons or comments), each with
/// whether it is empty (`{}`, `[ ]`). `None` when anything else is at the top
/// level.
pub(crate) fn container_roots(text: &str, span: Range<usize>) -> Option<Vec<(Range<usize>, bool)>> {
    let b = text.as_bytes();
    let mut roots = Vec::new();
    let mut i = span.start;
    loop {
        i = lex::next_significant(b, i, span.end);
        while i < span.end && matches!(b[i], b',' | b';') {
            i = lex::next_significant(b, i + 1, span.end);
        }
        if i >= span.end {
            return Some(roots);
        }
        if !matches!(b[i], b'{' | b'[') {
            return None;
        }
        let (close, _) = lex::matching_close(b, i, span.end);
        let end = close.map_or(span.end, |c| c + 1);
        let empty = close.is_some_and(|c| lex::next_significant(b, i + 1, span.end) == c);
        roots.push((i..end, empty));
        i = end;
    }
}

fn find(b: &[u8], mut from: usize, end: usize, needle: &[u8]) -> Option<usize> {
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
        let body = body(text);
        let mut all: Vec<Candidate> = whole(text, body.clone()).into_iter().collect();
        all.extend(marked(text, body.clone(), Strategies::default(), &[]));
        all.extend(prose(text, body, Strategies::default(), &[]));
        all.into_iter()
            .map(|c| (&text[c.span], c.strategy))
            .collect()
    }

    #[test]
    fn strips_bom_and_reasoning() {
        let t = "\u{feff}<think>maybe {a}</think>\n{\"a\": 1}";
        assert_eq!(&t[body(t)], "\n{\"a\": 1}");
        let t = "<think>still thinking {\"a\": 1}";
        assert_eq!(&t[body(t)], "still thinking {\"a\": 1}");
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
    fn unclosed_and_inline_fences() {
        let t = "```json\n{\"a\": [1,";
        assert_eq!(spans(t)[1], ("{\"a\": [1,", Strategy::Fence));
        let t = "lorem ```json {\"k\":1} ``` ipsum";
        assert_eq!(spans(t)[1], ("{\"k\":1}", Strategy::Fence));
    }
}
