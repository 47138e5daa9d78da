//! The reply as text: its bytes read as UTF-8 (a character cut off at the
//! end, invalid bytes replaced or refused), line ends, line and column
//! numbers, char boundaries and snippets. One reader for the decoder, the
//! stream, the runtime-schema stream, errors, reports and the CLI.
//!
//! Line ends are the ones JSON5 and ECMAScript count: `\n`, `\r\n` (one
//! line end), a bare `\r`, U+2028 and U+2029. Models write all of them, and a
//! `//` comment ends at each.

use std::borrow::Cow;

/// A reply's bytes read as text, as
/// [`Decoder::text_of`](crate::Decoder::text_of) reads them: an incomplete
/// UTF-8 sequence at the very end (a reply cut off inside a character) is
/// dropped, and with [`Decoder::lossy`](crate::Decoder::lossy) each invalid
/// sequence elsewhere is replaced by U+FFFD. The offsets a decode of
/// [`text`](Self::text) reports are offsets in it;
/// [`mark`](Self::mark) adds what the reading did to such a report.
///
/// ```
/// let read = serde_llm::Decoder::new().lossy().text_of(b"[\"a\xffb\", \"caf\xc3")?;
/// assert_eq!(read.text(), "[\"a\u{FFFD}b\", \"caf");
/// # Ok::<(), serde_llm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utf8Text<'a> {
    /// The text: borrowed from the bytes unless a sequence was replaced.
    pub(crate) text: Cow<'a, str>,
    /// Where each invalid sequence was replaced by U+FFFD, as offsets in
    /// `text` (a lossy read only).
    pub(crate) replaced: Vec<usize>,
    /// Where an incomplete sequence at the very end was dropped (the end of
    /// `text`), if one was.
    pub(crate) cut: Option<usize>,
}

impl<'a> Utf8Text<'a> {
    /// The text read.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text read, borrowed from the bytes unless a sequence was
    /// replaced.
    pub fn into_text(self) -> Cow<'a, str> {
        self.text
    }
}

/// How the bytes read by [`valid_prefix`] go on after its valid text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Utf8End {
    /// They end.
    Whole,
    /// An incomplete sequence ends them (bytes still to come may complete
    /// it).
    Cut,
    /// An invalid sequence of this many bytes follows.
    Invalid(usize),
}

/// The valid UTF-8 text `bytes` start with, and what follows it.
fn valid_prefix(bytes: &[u8]) -> (&str, Utf8End) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (text, Utf8End::Whole),
        Err(e) => {
            // `from_utf8` said the bytes up to there are valid.
            let text = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
            match e.error_len() {
                None => (text, Utf8End::Cut),
                Some(n) => (text, Utf8End::Invalid(n)),
            }
        }
    }
}

/// Appends the text of `bytes` to `out`, each invalid sequence replaced by
/// U+FFFD (its offset in `out` pushed onto `replaced`) when `lossy`, else
/// refused: `Err` with the offset in `out` where it starts (the valid text
/// before it appended). `Ok` with how many bytes were read: all but an
/// incomplete sequence at the end.
fn append(
    bytes: &[u8],
    out: &mut String,
    lossy: bool,
    mut replaced: Option<&mut Vec<usize>>,
) -> Result<usize, usize> {
    let mut rest = bytes;
    loop {
        let (valid, end) = valid_prefix(rest);
        out.push_str(valid);
        rest = &rest[valid.len()..];
        match end {
            Utf8End::Whole => return Ok(bytes.len()),
            Utf8End::Cut => return Ok(bytes.len() - rest.len()),
            Utf8End::Invalid(_) if !lossy => return Err(out.len()),
            Utf8End::Invalid(n) => {
                if let Some(r) = replaced.as_deref_mut() {
                    r.push(out.len());
                }
                out.push(char::REPLACEMENT_CHARACTER);
                rest = &rest[n..];
            }
        }
    }
}

/// `bytes` read as text, refusing invalid UTF-8 (see [`read_utf8`]): the
/// text, borrowed, and where an incomplete sequence at the very end was
/// dropped; `Err` with the offset of the first invalid byte.
pub(crate) fn read_utf8_strict(bytes: &[u8]) -> Result<(&str, Option<usize>), usize> {
    match valid_prefix(bytes) {
        (text, Utf8End::Whole) => Ok((text, None)),
        (text, Utf8End::Cut) => Ok((text, Some(text.len()))),
        (text, Utf8End::Invalid(_)) => Err(text.len()),
    }
}

/// `bytes` read as text (see [`Utf8Text`]): `Err` with the offset of the
/// first invalid byte unless `lossy`. Borrowed whenever nothing is
/// replaced, so a text with no invalid byte is never copied.
pub(crate) fn read_utf8(bytes: &[u8], lossy: bool) -> Result<Utf8Text<'_>, usize> {
    match read_utf8_strict(bytes) {
        Ok((text, cut)) => Ok(Utf8Text {
            text: Cow::Borrowed(text),
            replaced: Vec::new(),
            cut,
        }),
        Err(at) if !lossy => Err(at),
        Err(_) => {
            let mut text = String::with_capacity(bytes.len() + 16);
            let mut replaced = Vec::new();
            let read = append(bytes, &mut text, true, Some(&mut replaced)).unwrap_or_default();
            let cut = (read < bytes.len()).then_some(text.len());
            Ok(Utf8Text {
                text: Cow::Owned(text),
                replaced,
                cut,
            })
        }
    }
}

/// The next chunk of a reply that arrives in pieces, appended to `text`:
/// `tail` holds the start of a character whose last bytes have not arrived
/// (it is read with the chunk, and what is still incomplete stays there).
/// Invalid UTF-8 is replaced when `lossy`, else refused: `Err` with its
/// offset in `text` (the valid text before it appended, `tail` emptied).
/// Any split of the bytes into chunks gives the text [`read_utf8`] gives
/// for all of them, the incomplete character at the end left in `tail`.
pub(crate) fn append_utf8(
    tail: &mut Vec<u8>,
    chunk: &[u8],
    text: &mut String,
    lossy: bool,
) -> Result<(), usize> {
    let owned;
    let bytes = if tail.is_empty() {
        chunk
    } else {
        tail.extend_from_slice(chunk);
        owned = std::mem::take(tail);
        &owned[..]
    };
    let read = append(bytes, text, lossy, None)?;
    tail.extend_from_slice(&bytes[read..]);
    Ok(())
}

/// The length in bytes of the line end starting at `i` (`\r\n` is two
/// bytes, U+2028 and U+2029 three), or 0 when none starts there.
#[inline]
pub(crate) fn line_end_len(b: &[u8], i: usize, end: usize) -> usize {
    match b.get(i) {
        Some(b'\n') if i < end => 1,
        Some(b'\r') if i < end => {
            if i + 1 < end && b[i + 1] == b'\n' {
                2
            } else {
                1
            }
        }
        Some(0xE2) if i + 2 < end && b[i + 1] == 0x80 && matches!(b[i + 2], 0xA8 | 0xA9) => 3,
        _ => 0,
    }
}

/// The position of the first line end at or after `i` (see [`line_end_len`]),
/// or `end`.
pub(crate) fn find_line_end(b: &[u8], i: usize, end: usize) -> usize {
    let mut k = i;
    loop {
        // `\n`, `\r` and the lead byte of U+2028/U+2029, by memchr.
        let Some(at) = memchr::memchr3(b'\n', b'\r', 0xE2, &b[k..end]) else {
            return end;
        };
        let at = k + at;
        if b[at] != 0xE2 || line_end_len(b, at, end) > 0 {
            return at;
        }
        k = at + 1;
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let b = text.as_bytes();
    let mut line = 1;
    let mut line_start = 0;
    let mut k = 0;
    while k < offset {
        let at = find_line_end(b, k, offset);
        if at >= offset {
            break;
        }
        // A `\r\n` cut at `offset` still ends its line at the `\r`.
        let n = line_end_len(b, at, b.len()).max(1);
        line += 1;
        line_start = (at + n).min(offset);
        k = at + n;
    }
    (line, text[line_start..offset].chars().count() + 1)
}

/// `span` of `text` without the whitespace at either end: ASCII and
/// Unicode's (NBSP, U+2028, the U+2000 spaces, …), as `str::trim` has it.
pub(crate) fn trim_span(text: &str, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let s = &text[span.clone()];
    let start = span.start + (s.len() - s.trim_start().len());
    start..start + s.trim().len()
}

/// The largest char boundary at or below `i`.
pub(crate) fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// About 20 characters either side of `offset`, on one line.
pub(crate) fn snippet(text: &str, offset: usize) -> String {
    let start = text[..offset]
        .char_indices()
        .rev()
        .nth(19)
        .map_or(0, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .nth(20)
        .map_or(text.len(), |(i, _)| offset + i);
    text[start..end]
        .chars()
        .map(|c| {
            if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts with characters of every width, and their bytes.
    const TEXTS: [&str; 4] = [
        "a\u{e9}b",
        "\u{20ac}1\u{1f600}",
        "{\"k\": \"\u{1f600}\u{e9}\"}",
        "\u{7ff}\u{800}\u{ffff}\u{10000}",
    ];

    /// Every cut of a valid text: the text up to the character cut, and
    /// where it was cut.
    #[test]
    fn a_character_cut_at_the_end_is_dropped() {
        for text in TEXTS {
            let b = text.as_bytes();
            for end in 0..=b.len() {
                let read = read_utf8(&b[..end], false).unwrap();
                let boundary = floor_char_boundary(text, end);
                assert_eq!(read.text, &text[..boundary], "{text:?} cut at {end}");
                assert!(matches!(read.text, Cow::Borrowed(_)));
                assert_eq!(read.cut, (boundary < end).then_some(boundary));
                assert!(read.replaced.is_empty());
            }
        }
    }

    /// `é€😀` (2, 3 and 4 bytes) cut after each byte, lossy or not: the
    /// text before the character cut, borrowed, and the cut at its end.
    #[test]
    fn each_cut_of_each_width_exactly() {
        let bytes = "\u{e9}\u{20ac}\u{1f600}".as_bytes();
        let rows: [(usize, &str, Option<usize>); 10] = [
            (0, "", None),
            (1, "", Some(0)),
            (2, "\u{e9}", None),
            (3, "\u{e9}", Some(2)),
            (4, "\u{e9}", Some(2)),
            (5, "\u{e9}\u{20ac}", None),
            (6, "\u{e9}\u{20ac}", Some(5)),
            (7, "\u{e9}\u{20ac}", Some(5)),
            (8, "\u{e9}\u{20ac}", Some(5)),
            (9, "\u{e9}\u{20ac}\u{1f600}", None),
        ];
        for (end, text, cut) in rows {
            assert_eq!(read_utf8_strict(&bytes[..end]), Ok((text, cut)), "{end}");
            for lossy in [false, true] {
                let read = read_utf8(&bytes[..end], lossy).unwrap();
                let want = Utf8Text {
                    text: Cow::Borrowed(text),
                    replaced: Vec::new(),
                    cut,
                };
                assert_eq!(read, want, "{end}");
                assert!(matches!(read.text, Cow::Borrowed(_)), "{end}");
            }
        }
    }

    /// The same bytes arriving one at a time: the text grows a character
    /// at a time, the bytes of the one still incomplete held in the tail.
    #[test]
    fn one_byte_at_a_time_exactly() {
        let bytes = "\u{e9}\u{20ac}\u{1f600}".as_bytes();
        let rows: [(&str, &[u8]); 9] = [
            ("", b"\xc3"),
            ("\u{e9}", b""),
            ("\u{e9}", b"\xe2"),
            ("\u{e9}", b"\xe2\x82"),
            ("\u{e9}\u{20ac}", b""),
            ("\u{e9}\u{20ac}", b"\xf0"),
            ("\u{e9}\u{20ac}", b"\xf0\x9f"),
            ("\u{e9}\u{20ac}", b"\xf0\x9f\x98"),
            ("\u{e9}\u{20ac}\u{1f600}", b""),
        ];
        let mut tail = Vec::new();
        let mut text = String::new();
        for (i, (want_text, want_tail)) in rows.into_iter().enumerate() {
            assert_eq!(
                append_utf8(&mut tail, &bytes[i..=i], &mut text, false),
                Ok(())
            );
            assert_eq!(
                (text.as_str(), tail.as_slice()),
                (want_text, want_tail),
                "{i}"
            );
        }
    }

    /// Invalid bytes met in a chunk, or completing the tail wrongly: not
    /// lossy, refused at their offset in the whole text (the valid text
    /// before them appended, the tail emptied); lossy, replaced.
    #[test]
    fn invalid_bytes_in_chunks_exactly() {
        type Row<'a> = (&'a [&'a [u8]], usize, &'a str, &'a str);
        let rows: [Row; 5] = [
            // Invalid in the second chunk.
            (&[b"ab", b"c\xffd"], 3, "abc", "abc\u{FFFD}d"),
            // A tail completed by a byte that cannot continue it.
            (&[b"a\xe2", b"\x82x"], 1, "a", "a\u{FFFD}x"),
            (&[b"\xc3", b"("], 0, "", "\u{FFFD}("),
            // A continuation byte with no lead.
            (&[b"\xc3\xa9", b"\xa9"], 2, "\u{e9}", "\u{e9}\u{FFFD}"),
            // After a replacement offsets count the three bytes of U+FFFD.
            (
                &[b"\xe2\x82\xac", b"\xf0\x9f", b"\x98!"],
                3,
                "\u{20ac}",
                "\u{20ac}\u{FFFD}!",
            ),
        ];
        for (chunks, at, refused, replaced) in rows {
            let mut tail = Vec::new();
            let mut text = String::new();
            let mut result = Ok(());
            for chunk in chunks {
                result = append_utf8(&mut tail, chunk, &mut text, false);
                if result.is_err() {
                    break;
                }
            }
            assert_eq!(result, Err(at), "{chunks:?}");
            assert_eq!(text, refused, "{chunks:?}");
            assert!(tail.is_empty(), "{chunks:?}");
            let mut tail = Vec::new();
            let mut text = String::new();
            for chunk in chunks {
                assert_eq!(append_utf8(&mut tail, chunk, &mut text, true), Ok(()));
            }
            assert_eq!(text, replaced, "{chunks:?}");
            assert!(tail.is_empty(), "{chunks:?}");
        }
    }

    /// Every split of the bytes into two or three chunks reads as the
    /// bytes read at once, the cut character held back.
    #[test]
    fn every_split_reads_as_the_whole() {
        let mut cases: Vec<Vec<u8>> = TEXTS.iter().map(|t| t.as_bytes().to_vec()).collect();
        // Invalid bytes among them, and sequences that start well and go
        // wrong.
        cases.push(b"a\xffb\xe2\x82c\xf0\x9f\x98".to_vec());
        cases.push(b"\xc3\xa9\xed\xa0\x80\xc0\xaf\xe2\x82\xac".to_vec());
        for bytes in &cases {
            let n = bytes.len();
            for lossy in [false, true] {
                let whole = read_utf8(bytes, lossy);
                for i in 0..=n {
                    for j in i..=n {
                        let mut tail = Vec::new();
                        let mut text = String::new();
                        let mut result = Ok(());
                        for chunk in [&bytes[..i], &bytes[i..j], &bytes[j..]] {
                            result = append_utf8(&mut tail, chunk, &mut text, lossy);
                            if result.is_err() {
                                break;
                            }
                        }
                        match &whole {
                            Ok(read) => {
                                assert_eq!(result, Ok(()), "{bytes:?} at {i}, {j}");
                                assert_eq!(text, read.text, "{bytes:?} at {i}, {j}");
                                let cut = read.cut.map_or(0, |_| tail_len(bytes));
                                assert_eq!(tail.len(), cut, "{bytes:?} at {i}, {j}");
                            }
                            Err(at) => {
                                assert_eq!(result, Err(*at), "{bytes:?} at {i}, {j}");
                                assert_eq!(text.len(), *at);
                                assert!(tail.is_empty());
                            }
                        }
                    }
                }
            }
        }
    }

    /// How long the incomplete character at the end of `bytes` is.
    fn tail_len(bytes: &[u8]) -> usize {
        let n = bytes.len();
        (n.saturating_sub(3)..n)
            .find(|&k| {
                matches!(std::str::from_utf8(&bytes[k..]),
                    Err(e) if e.valid_up_to() == 0 && e.error_len().is_none())
            })
            .map_or(0, |k| n - k)
    }

    /// Invalid bytes in the middle: refused at the first one, or replaced
    /// one U+FFFD per invalid sequence (as `String::from_utf8_lossy` does),
    /// each replacement's offset in the text.
    #[test]
    fn invalid_bytes_are_refused_or_replaced() {
        /// The bytes, where they are refused, and read lossy: the text,
        /// where it was replaced, where it was cut.
        type Row<'a> = (&'a [u8], usize, &'a str, &'a [usize], Option<usize>);
        let rows: [Row; 6] = [
            (b"[\"a\xffb\"]", 3, "[\"a\u{FFFD}b\"]", &[3], None),
            (b"\xff\xfe[1]", 0, "\u{FFFD}\u{FFFD}[1]", &[0, 3], None),
            // A sequence that starts well and goes wrong is one
            // replacement.
            (b"x\xe2\x82y", 1, "x\u{FFFD}y", &[1], None),
            // A replacement shifts the offsets after it.
            (
                b"\xff\xc3\xa9\xff",
                0,
                "\u{FFFD}\u{e9}\u{FFFD}",
                &[0, 5],
                None,
            ),
            // Invalid in the middle, cut at the end.
            (b"a\xffcaf\xc3", 1, "a\u{FFFD}caf", &[1], Some(7)),
            (
                b"\xed\xa0\x80",
                0,
                "\u{FFFD}\u{FFFD}\u{FFFD}",
                &[0, 3, 6],
                None,
            ),
        ];
        for (bytes, bad, text, replaced, cut) in rows {
            assert_eq!(read_utf8(bytes, false), Err(bad), "{bytes:?}");
            let read = read_utf8(bytes, true).unwrap();
            assert_eq!(read.text, text, "{bytes:?}");
            assert_eq!(read.replaced, replaced, "{bytes:?}");
            assert_eq!(read.cut, cut, "{bytes:?}");
            for &at in &read.replaced {
                assert!(read.text[at..].starts_with('\u{FFFD}'), "{bytes:?}");
            }
            if cut.is_none() {
                assert_eq!(read.text, String::from_utf8_lossy(bytes), "{bytes:?}");
            }
        }
    }

    /// The decoder reads bytes through it: each replacement and the cut
    /// are offsets in the replaced text (`\u{FFFD}` is three bytes where
    /// `\xff` was one).
    #[test]
    fn a_lossy_report_counts_in_the_replaced_text() {
        use crate::report::RepairKind;
        let bytes = b"\xff[\"caf\xc3";
        let d = crate::Decoder::new().lossy();
        let (json, report) = d.repair_slice_with_report(bytes).unwrap();
        assert_eq!(json, "[\"caf\"]");
        assert_eq!(d.repair_slice(bytes).unwrap(), json);
        let text = d.text_of(bytes).unwrap();
        assert_eq!(text.text(), "\u{FFFD}[\"caf");
        let at = |kind| {
            report
                .repairs
                .iter()
                .find(|r| r.kind == kind)
                .map(|r| r.offset)
        };
        assert_eq!(at(RepairKind::InvalidUtf8), Some(0));
        assert_eq!(at(RepairKind::TruncatedValue), Some(8));
        assert!(report.truncated);
        assert!(crate::Decoder::new().repair_slice(bytes).is_err());
    }

    #[test]
    fn every_line_end_counts() {
        for (text, at, want) in [
            ("a\nb", 2, (2, 1)),
            ("a\r\nb", 3, (2, 1)),
            ("a\rb", 2, (2, 1)),
            ("a\u{2028}b", 4, (2, 1)),
            ("a\u{2029}b", 4, (2, 1)),
            ("a\r\n\r\nbc", 6, (3, 2)),
            ("é\rxé", 5, (2, 2)),
            ("abc", 2, (1, 3)),
            // An offset inside a `\r\n`: the line ended at the `\r`.
            ("a\r\nb", 2, (2, 1)),
            ("a\u{2027}b", 4, (1, 3)),
        ] {
            assert_eq!(line_column(text, at), want, "{text:?} at {at}");
        }
    }

    #[test]
    fn line_ends_are_found() {
        let b = "ab\u{2027}c\u{2029}d".as_bytes();
        assert_eq!(find_line_end(b, 0, b.len()), 6);
        assert_eq!(line_end_len(b, 6, b.len()), 3);
        assert_eq!(find_line_end(b"x\r\ny", 0, 4), 1);
        assert_eq!(line_end_len(b"x\r\ny", 1, 4), 2);
        assert_eq!(find_line_end(b"xyz", 1, 3), 3);
    }
}
