//! The reply as text: line ends, line and column numbers, char boundaries
//! and snippets. One reader for the decoder, the stream, errors, reports and
//! the CLI.
//!
//! Line ends are the ones JSON5 and ECMAScript count: `\n`, `\r\n` (one
//! line end), a bare `\r`, U+2028 and U+2029. Models write all of them, and a
//! `//` comment ends at each.

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
