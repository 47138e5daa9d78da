//! The tape of a stream's part written from what the stream knows of it,
//! not read from its text.
//!
//! A stream reads each change to its typed view as a small text of its own
//! (`Live::synthetic` in `src/stream/live.rs`): the openers and keys of the
//! containers around the part, then the part's token, the containers left
//! open. The three parts of every element of a list of records — the
//! element's opener, a string's first quote, a number — are the most
//! frequent, and their texts are all alike: the stream knows where each
//! opener and key is, and what the token is. Their tape is written here
//! event by event as the scanner writes it (the same words, flags and
//! offsets: `tests` below compares the two on every shape, and every read
//! in this crate's tests does too), which spares a read of the text per
//! change. Any other part (a complete container or string, a key that is
//! not a plain quoted one, an internally tagged enum's tag written before
//! the part, a number or literal JSON does not write so) is read.

use std::ops::Range;

use super::tape::Tape;
use super::{Event, Number, Text};

/// A part's text, as the stream wrote it: `text`, where the containers
/// around the part open (`opened`, outermost first: an opener and, in an
/// object, the span of the key written after it, quotes included), and
/// the part's own token at `own` (a space after it when the part is known
/// to end there).
///
/// `events`: the part's own events as a read of the whole reply wrote them
/// (a complete container whose repairs a read of its text alone may read
/// otherwise: `stream::tolerant`), at offsets from its start.
pub(crate) struct PartText<'a> {
    pub text: &'a str,
    pub opened: &'a [Opened],
    pub own: Range<usize>,
    pub events: Option<&'a Tape>,
}

impl<'a> PartText<'a> {
    /// A part's text whose shape is not given: it is read.
    pub(crate) fn whole(text: &'a str) -> PartText<'a> {
        PartText {
            text,
            opened: &[],
            own: 0..0,
            events: None,
        }
    }
}

/// A container around a part (see [`PartText`]).
#[derive(Clone, Debug)]
pub(crate) struct Opened {
    /// Where its opener is in the part's text.
    pub at: usize,
    /// In an object: where the key of the member that holds the part is.
    /// `None` in an array, or when more than a key stands between the
    /// opener and the part (the part is then read).
    pub key: Option<Range<usize>>,
}

/// The part's own token, as far as its tape can be written unread.
enum Own {
    /// `{` or `[`: a container just opened.
    Open { array: bool },
    /// `"` or `'`: a string just started.
    Str,
    /// A number or literal as JSON writes it, complete when a space
    /// follows.
    Word { complete: bool },
    /// A container whose events are given (see [`PartText`]), complete
    /// or cut, then a space or nothing.
    Given,
}

/// Writes onto `tape` (empty) the tape the scanner writes for
/// `part.text` read as a view's part reads it (cut at its end, with the
/// partial policy); gives where that read stops. `None` (the tape left
/// empty) when the part is not one of those written unread.
pub(crate) fn write(part: &PartText<'_>, tape: &mut Tape) -> Option<usize> {
    let text = part.text;
    let b = text.as_bytes();
    let own = match part.events {
        Some(_) => Own::Given,
        None => own(text, &part.own)?,
    };
    // What the text holds is the openers, the keys and the token, nothing
    // between: the prefix is exactly as `Live::synthetic` writes it.
    let mut at = 0;
    for o in part.opened {
        if o.at != at {
            return None;
        }
        at += 1;
        match (b[o.at], &o.key) {
            (b'[', None) => {}
            (b'{', Some(key)) if key.start == at && plain_key(&text[key.clone()]) => {
                at = key.end;
                if b.get(at) != Some(&b':') {
                    return None;
                }
                at += 1;
            }
            _ => return None,
        }
    }
    // (A given part may stand alone: the untyped view's read of a region.)
    if part.own.start != at || (part.opened.is_empty() && part.events.is_none()) {
        return None;
    }
    let rest = &text[part.own.end..];
    match own {
        Own::Word { complete: true } if rest != " " => return None,
        Own::Given if !rest.trim_start_matches(' ').is_empty() => return None,
        Own::Word { complete: false } | Own::Open { .. } | Own::Str if !rest.is_empty() => {
            return None
        }
        _ => {}
    }
    for o in part.opened {
        match &o.key {
            None => tape.push(text, "", Event::StartArray, o.at, true, false),
            Some(key) => {
                tape.push(text, "", Event::StartObject, o.at, true, false);
                // An empty key is the scanner's own text, not the reply's.
                let name = match &text[key.start + 1..key.end - 1] {
                    "" => Text::Scratch,
                    name => Text::Borrowed(name),
                };
                tape.push(text, "", Event::Key(name), key.start, true, false);
            }
        }
    }
    // Where the read stops: at the part's token, where the containers
    // still open are closed (cut).
    let mut end = part.own.start;
    let token = &text[part.own.clone()];
    let words = tape.len();
    match own {
        // Read on to the end of the text, past the space after it.
        Own::Given => {
            if !given(part, tape) {
                return None;
            }
            end = text.len();
        }
        Own::Open { array } => {
            let ev = match array {
                true => Event::StartArray,
                false => Event::StartObject,
            };
            tape.push(text, "", ev, end, true, false);
            // An object's opener reads on to its first key, and meets the
            // end there; an array's does not look further.
            if !array {
                tape.mark_cut_at(words);
            }
        }
        // A string cut at its quote: in an object, the member's value is
        // that string, cut; in a list, the element is left out.
        Own::Str => {
            if part.opened.last().is_some_and(|o| o.key.is_some()) {
                tape.push(text, "", Event::Str(Text::Scratch), end, false, false);
                tape.mark_cut_at(words);
            }
        }
        Own::Word { complete } => {
            let ev = match token {
                "true" => Event::Bool(true),
                "false" => Event::Bool(false),
                "null" => Event::Null,
                // (The tape keeps a number's text, not its value: the
                // value is read from the text when the tape is.)
                _ => Event::Num(Number {
                    text: Text::Borrowed(token),
                    value: super::number::NumValue::U64(0),
                }),
            };
            tape.push(text, "", ev, end, complete, false);
        }
    }
    // The containers still open, innermost first, each closed cut.
    let inner = match own {
        Own::Open { array } => Some(array),
        _ => None,
    };
    let around = part.opened.iter().rev().map(|o| o.key.is_none());
    for array in inner.into_iter().chain(around) {
        tape.mark_cut_at(tape.len());
        tape.close(false, false);
        let ev = match array {
            true => Event::EndArray,
            false => Event::EndObject,
        };
        tape.push(text, "", ev, end, true, false);
    }
    tape.push(text, "", Event::Eof, end, true, false);
    tape.set_truncated();
    Some(end)
}

/// Writes onto `tape` the part's own events, given (see [`PartText`]), at
/// their offsets in its text; `false` if they are not one container's.
#[inline(never)]
fn given(part: &PartText<'_>, tape: &mut Tape) -> bool {
    let Some(events) = part.events else {
        return false;
    };
    let mut c = events.cursor("");
    tape.copy_container(&mut c, 0usize.wrapping_sub(part.own.start))
}

/// The part's own token, if its tape is written unread.
fn own(text: &str, own: &Range<usize>) -> Option<Own> {
    match &text[own.clone()] {
        "{" => Some(Own::Open { array: false }),
        "[" => Some(Own::Open { array: true }),
        "\"" | "'" => Some(Own::Str),
        w if w == "true" || w == "false" || w == "null" || crate::coerce::is_json_number(w) => {
            Some(Own::Word {
                complete: text.len() > own.end,
            })
        }
        _ => None,
    }
}

/// A key in double or single quotes with nothing to unescape in it.
fn plain_key(key: &str) -> bool {
    let b = key.as_bytes();
    b.len() >= 2
        && matches!(b[0], b'"' | b'\'')
        && b[b.len() - 1] == b[0]
        && !b[1..b.len() - 1]
            .iter()
            .any(|&c| c == b'"' || c == b'\'' || c == b'\\' || c < 0x20)
}

#[cfg(test)]
mod tests {
    use super::super::{ScanOptions, Spare};
    use super::{Opened, PartText};
    use crate::policy::Rules;

    /// Every shape of part text a stream writes, from a small alphabet of
    /// openers, keys and tokens: the tape written unread (where it is) is
    /// the tape read from the text (`Spare::tape_of_part` asserts it in
    /// tests), and where it is not, the text is read.
    #[test]
    fn part_tapes_written_unread_are_the_tapes_read() {
        let keys = [
            "\"a\"",
            "\"key_2\"",
            "\"\"",
            "\"é\"",
            "'a'",
            "a",
            "\"a\\\"b\"",
            "\"a b\"",
        ];
        let tokens = [
            "{", "[", "\"", "'", "0", "-1", "12", "1.5", "-0.25e+3", "1E9", "01", "1.", ".5", "+1",
            "-", "true", "false", "null", "True", "None", "nul", "NaN", "0x1F", "\"a\"", "{}",
            "[1]", "tru",
        ];
        let mut written = 0;
        let mut rng = 0x1234_5678_9ABC_DEF1u64;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        for _ in 0..20_000 {
            let mut text = String::new();
            let mut opened = Vec::new();
            for _ in 0..next(4) {
                let at = text.len();
                if next(2) == 0 {
                    text.push('[');
                    opened.push(Opened { at, key: None });
                } else {
                    text.push('{');
                    let key = keys[next(keys.len())];
                    opened.push(Opened {
                        at,
                        key: Some(text.len()..text.len() + key.len()),
                    });
                    text.push_str(key);
                    text.push(':');
                }
            }
            let token = tokens[next(tokens.len())];
            let own = text.len()..text.len() + token.len();
            text.push_str(token);
            if next(2) == 0 {
                text.push(' ');
            }
            for view in [false, true] {
                let opts = ScanOptions {
                    max_depth: 128,
                    multi: false,
                    partial: true,
                    view,
                    rules: Rules::DEFAULT,
                    lane: true,
                };
                let part = PartText {
                    text: &text,
                    opened: &opened,
                    own: own.clone(),
                    events: None,
                };
                let mut tape = super::Tape::new();
                written += usize::from(super::write(&part, &mut tape).is_some());
                // Asserts, where it writes, that the two agree.
                Spare::default().tape_of_part(&part, &opts);
            }
        }
        // A good share of the shapes (a quarter: the alphabet holds many
        // that are read) is written unread.
        assert!(written > 6_000, "{written} of 40,000 written unread");
    }

    /// A stream's parts as it writes them, for every reply of the corpora
    /// pushed a byte at a time (`Spare::tape_of_part` asserts, in tests,
    /// that each tape written unread is the tape read).
    #[test]
    fn the_corpora_streamed_write_their_parts_as_read() {
        for input in crate::scan::corpus_inputs() {
            let mut dec = crate::StreamDecoder::<serde_json::Value>::new();
            for c in input.as_bytes() {
                let _ = dec.push(std::slice::from_ref(c));
                let _ = dec.view();
            }
            let _ = dec.finish();
        }
    }
}
