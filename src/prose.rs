//! Reading a scalar out of short prose, the way a person does.
//!
//! A target that wants a string, a bool, a number or a unit enum may be given
//! a sentence rather than JSON: `The answer is **B**.`, `Verdict: false — the
//! claim…`, `ANSWER: 42.`. A `String` takes the whole reply (never a fragment
//! up to a comma); the others take the one plausible value of their type the
//! prose holds. Two different plausible values are an ambiguity error naming
//! both: a guess would be a wrong value the caller cannot tell from success.

use std::ops::Range;

use serde::de::{self, DeserializeSeed, Visitor};
use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::report::{Reading, Repair, RepairKind, Strategy};
use crate::shape::Scalar;

/// Replies longer than this are not short prose: an essay holding one number
/// is not an answer that is that number.
const MAX_PROSE: usize = 2000;

/// Reads `T` out of the prose `text[body]`. `None` when the reply is not short
/// prose (too long, or it holds a `{`: JSON that failed to decode is an error
/// of its own, not prose) or the kind of scalar has no plausible values to
/// look for.
pub(crate) fn read<'de, S: DeserializeSeed<'de>>(
    text: &'de str,
    seed: S,
    body: Range<usize>,
    kind: Scalar,
) -> Option<Result<(S::Value, Reading)>> {
    let s = &text[body.clone()];
    let trimmed = s.trim();
    if trimmed.is_empty() || trimmed.len() > MAX_PROSE || trimmed.contains('{') {
        return None;
    }
    let start = body.start + (s.len() - s.trim_start().len());
    let report = |span: Range<usize>| {
        let offset = span.start;
        let mut reading = Reading::clean(Strategy::Prose, span);
        reading.repairs.push(Repair {
            kind: RepairKind::ValueInProse,
            offset,
        });
        reading
    };
    let found = match kind {
        Scalar::Text => {
            let span = start..start + trimmed.len();
            let value = seed.deserialize(Whole(trimmed));
            return Some(value.map(|v| (v, report(span))));
        }
        Scalar::Bool => one(text, start, trimmed, "true or false", bools),
        Scalar::Number => one(text, start, trimmed, "a number", numbers),
        Scalar::Enum(variants) => one(text, start, trimmed, "one of the enum's values", |s| {
            variant_words(s, variants)
        }),
        Scalar::Other => return None,
    };
    Some(found.and_then(|(value, span)| {
        let v = seed
            .deserialize(value)
            .map_err(|e| Error::at(ErrorKind::Data, e, span.start));
        v.map(|v| (v, report(span)))
    }))
}

/// The one plausible value in `prose` (starting at `start` in `text`), or an
/// error: none found, or two different ones.
fn one(
    text: &str,
    start: usize,
    prose: &str,
    what: &str,
    find: impl Fn(&str) -> Vec<(Value, Range<usize>)>,
) -> Result<(Value, Range<usize>)> {
    let found = find(prose);
    let Some((first, span)) = found.first().cloned() else {
        let e = Error::at(
            ErrorKind::NoJson,
            format_args!(
                "no JSON value found: expected {what}, found prose; looked for a bare value, ```json fences, <json> tags, and {what} in the prose"
            ),
            start,
        );
        return Err(e.locate(text));
    };
    // A number whose scale word cannot be read (see `Scale::Unread`).
    if let Some((_, at)) = found.iter().find(|(v, _)| v.is_null()) {
        let e = Error::at(
            ErrorKind::Data,
            format_args!(
                "the reply writes {} where {what} is wanted, which is no number it can read (a fraction, or a scale word not complete)",
                &prose[at.clone()]
            ),
            start + at.start,
        );
        return Err(e.locate(text));
    }
    if let Some((_, at)) = found.iter().find(|(v, _)| !same(v, &first)) {
        let e = Error::at(
            ErrorKind::Data,
            format_args!(
                "ambiguous reply: it holds both {} and {}, and {what} is wanted",
                &prose[span.clone()],
                &prose[at.clone()]
            ),
            start + at.start,
        );
        return Err(e.locate(text));
    }
    Ok((first, start + span.start..start + span.end))
}

/// Whether two found values are the same value (`42` and `42.0` are).
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The words of `prose`: maximal runs of letters, digits, `_` and `-`, with
/// their byte spans.
fn words(prose: &str) -> impl Iterator<Item = (&str, Range<usize>)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut rest = prose.char_indices().peekable();
    std::iter::from_fn(move || {
        while rest.next_if(|&(_, c)| !is_word(c)).is_some() {}
        let &(start, _) = rest.peek()?;
        let mut end = start;
        while let Some((i, c)) = rest.next_if(|&(_, c)| is_word(c)) {
            end = i + c.len_utf8();
        }
        let word = prose[start..end].trim_matches('-');
        let lead = prose[start..end].len() - prose[start..end].trim_start_matches('-').len();
        Some((word, start + lead..start + lead + word.len()))
    })
}

/// `true`/`false` and `yes`/`no`, in any case, as whole words.
fn bools(prose: &str) -> Vec<(Value, Range<usize>)> {
    words(prose)
        .filter_map(|(w, span)| {
            let b = match w.to_ascii_lowercase().as_str() {
                "true" | "yes" => true,
                "false" | "no" => false,
                _ => return None,
            };
            Some((Value::Bool(b), span))
        })
        .collect()
}

/// Variant names written as whole words: a one-letter name (`A`, `B`) only
/// as written, since `a` is a word; a longer one also in another case or
/// style (`negative`, `not-sure` for `NotSure`).
fn variant_words(prose: &str, variants: &'static [&'static str]) -> Vec<(Value, Range<usize>)> {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let folded: Vec<String> = variants.iter().map(|v| fold(v)).collect();
    words(prose)
        .filter_map(|(w, span)| {
            let hit = variants
                .iter()
                .zip(&folded)
                .find(|(v, f)| **v == w || (w.chars().count() > 1 && **f == fold(w)))?;
            Some((Value::String((*hit.0).to_owned()), span))
        })
        .collect()
}

/// The numbers written in `prose`: `42`, `-7`, `4.5`, `1,234,567.89` (digit
/// groups of three), not parts of words or codes (`GPT-4`, `v2`, `ES2020`),
/// dates, times or ratios (`2024-01-05`, `10:30`, `3/4`). A sentence's final
/// period is not part of a number.
fn numbers(prose: &str) -> Vec<(Value, Range<usize>)> {
    let b = prose.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut start = i;
        // A sign that starts a word (not the `-` of `GPT-4`).
        if start > 0
            && matches!(b[start - 1], b'-' | b'+')
            && (start < 2 || !is_joined(b[start - 2]))
        {
            start -= 1;
        }
        let before = if start > 0 { b[start - 1] } else { b' ' };
        let mut end = i;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        // Digit groups: `,` and exactly three digits, repeated.
        while end + 3 < b.len()
            && b[end] == b','
            && b[end + 1..end + 4].iter().all(u8::is_ascii_digit)
            && b.get(end + 4).is_none_or(|c| !c.is_ascii_digit())
        {
            end += 4;
        }
        if end + 1 < b.len() && b[end] == b'.' && b[end + 1].is_ascii_digit() {
            end += 1;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
        }
        let after = b.get(end).copied();
        let next = b.get(end + 1).copied();
        let joined_after = match after {
            None => false,
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => true,
            Some(b'-' | b'/' | b':' | b'.') => next.is_some_and(|n| n.is_ascii_digit()),
            Some(_) => false,
        };
        if !is_joined(before) && !joined_after {
            let written: String = prose[start..end].chars().filter(|&c| c != ',').collect();
            // `3.5 million` is 3,500,000, not 3.5 (see `scale_after`).
            let found = match scale_after(b, end) {
                Scale::Word(zeros, word_end) => {
                    number_value(&written, zeros).map(|v| (v, start..word_end))
                }
                Scale::Unread(word_end) => Some((Value::Null, start..word_end)),
                Scale::None => number_value(&written, 0).map(|v| (v, start..end)),
            };
            out.extend(found);
        }
        i = end.max(i + 1);
    }
    out
}

/// What follows a number in prose, past spaces: a scale word (`million`).
enum Scale {
    /// None.
    None,
    /// A scale word (its power of ten), which ends at this offset.
    Word(usize, usize),
    /// A word the number cannot be read with, which ends at this offset: a
    /// fraction's (`4 thousandths`), or three letters or more of a scale
    /// word that run to the end of the text (`3.5 mil`: what the number is
    /// is not known yet).
    Unread(usize),
}

/// The words that scale a number written before them (the short scale, as
/// English writes it), singular or plural.
const SCALES: [(&str, usize); 5] = [
    ("hundred", 2),
    ("thousand", 3),
    ("million", 6),
    ("billion", 9),
    ("trillion", 12),
];

/// The scale word after the number that ends at `end` in `b`, if any.
fn scale_after(b: &[u8], end: usize) -> Scale {
    let mut k = end;
    while k < b.len() && matches!(b[k], b' ' | b'\t') {
        k += 1;
    }
    if k == end {
        return Scale::None;
    }
    let word_end = k + b[k..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let word = b[k..word_end].to_ascii_lowercase();
    for (name, zeros) in SCALES {
        let name = name.as_bytes();
        let Some(rest) = word.strip_prefix(name) else {
            if word_end == b.len() && word.len() >= 3 && name.starts_with(&word) {
                return Scale::Unread(word_end);
            }
            continue;
        };
        match rest {
            b"" | b"s" => return Scale::Word(zeros, word_end),
            b"th" | b"ths" => return Scale::Unread(word_end),
            // `thousandt` at the end: a fraction being written.
            b"t" if word_end == b.len() => return Scale::Unread(word_end),
            _ => {}
        }
    }
    Scale::None
}

/// The number written `written` (digits, an optional sign and decimal
/// point), times ten to the `zeros`: the point moved, so that the value is
/// exact (`1.1 million` is 1100000, not 1100000.0000000002). A whole
/// number that fits `i64` is one; any other is an `f64`.
fn number_value(written: &str, zeros: usize) -> Option<Value> {
    let (int, frac) = written.split_once('.').unwrap_or((written, ""));
    let moved = match frac.len() <= zeros {
        true => format!("{int}{frac}{}", "0".repeat(zeros - frac.len())),
        false => format!("{int}{}.{}", &frac[..zeros], &frac[zeros..]),
    };
    match moved.parse::<i64>() {
        Ok(n) => Some(Value::from(n)),
        Err(_) => moved.parse::<f64>().ok().map(Value::from),
    }
}

/// Whether a number next to this byte is part of a word or code (`GPT-4`,
/// `v2`, `2024-01`).
fn is_joined(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/' | b':')
}

/// The whole reply as a string value (borrowed, so `&str` targets take it).
struct Whole<'de>(&'de str);

impl<'de> de::Deserializer<'de> for Whole<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::value::BorrowedStrDeserializer::<Error>::new(self.0)
            .deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(s: &str) -> Vec<String> {
        numbers(s).into_iter().map(|(v, _)| v.to_string()).collect()
    }

    #[test]
    fn numbers_in_prose() {
        assert_eq!(nums("ANSWER: 42."), ["42"]);
        assert_eq!(nums("The result is -7."), ["-7"]);
        assert_eq!(nums("It costs 4.5."), ["4.5"]);
        assert_eq!(nums("Total: 1,234,567.89 EUR"), ["1234567.89"]);
        assert_eq!(nums("between 3 and 5"), ["3", "5"]);
        assert_eq!(
            nums("GPT-4 on 2024-01-05 at 10:30, v2, ES2020, 3/4"),
            Vec::<String>::new()
        );
        assert_eq!(nums("**12**, roughly"), ["12"]);
        assert_eq!(nums("3,5"), ["3", "5"]);
    }

    #[test]
    fn scale_words() {
        assert_eq!(nums("Approximately 3.5 million people"), ["3500000"]);
        assert_eq!(nums("1.1 Million"), ["1100000"]);
        assert_eq!(nums("-2 billion."), ["-2000000000"]);
        assert_eq!(nums("12 thousands"), ["12000"]);
        assert_eq!(nums("1.23456789 thousand"), ["1234.56789"]);
        assert_eq!(nums("9 trillion trillion"), ["9000000000000"]);
        assert_eq!(nums("10 trillion million"), ["10000000000000"]);
        assert_eq!(nums("3.5 mil"), ["null"]);
        assert_eq!(nums("5 hundred"), ["500"]);
        assert_eq!(nums("3.5 mi"), ["3.5"]);
        assert_eq!(nums("3.5 miles"), ["3.5"]);
        assert_eq!(nums("3.5 millimeters"), ["3.5"]);
        assert_eq!(nums("4 thousandths"), ["null"]);
        assert_eq!(nums("4 thousandt"), ["null"]);
        assert_eq!(nums("4 thousandth of"), ["null"]);
        assert_eq!(nums("5million"), Vec::<String>::new());
    }

    #[test]
    fn variants_in_prose() {
        const V: &[&str] = &["A", "B", "NotSure"];
        let found: Vec<Value> = variant_words("The answer is **B**, not a guess; not-sure", V)
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        assert_eq!(found, [Value::from("B"), Value::from("NotSure")]);
    }

    #[test]
    fn bools_in_prose() {
        let found: Vec<Value> = bools("False. The statement is false.")
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        assert_eq!(found, [Value::Bool(false), Value::Bool(false)]);
    }
}
