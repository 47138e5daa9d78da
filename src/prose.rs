//! Reading a scalar out of short prose, the way a person does.
//!
//! A target that wants a string, a bool, a number or a unit enum may be given
//! a sentence rather than JSON: `The answer is **B**.`, `Verdict: false — the
//! claim…`, `ANSWER: 42.`. A `String` takes the whole reply (never a fragment
//! up to a comma); the others take the one plausible value of their type the
//! prose holds. Two different plausible values are an ambiguity error naming
//! both: a guess would be a wrong value the caller cannot tell from success.
//! A number's scale word is part of it (`3.5 million` is 3,500,000); a bound
//! (`at least 3`, `10+`) or a fraction's word (`4 thousandths`) is no value,
//! and an error names it. A mention its clause negates (`Not true.`,
//! `Definitely not A`) is not the answer: passed over when another value is
//! named (`Not B, but C.`), an error naming it when none is.
//!
//! It also says where a reply takes a value back (`Wait, I made a
//! mistake. Here is the corrected version:`, [`retractions`]): the
//! candidate before such words gives way to the one after them.

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
/// of its own, not prose, unless it is a placeholder: see
/// [`braces_are_asides`]) or the kind of scalar has no plausible values to
/// look for.
pub(crate) fn read<'de, S: DeserializeSeed<'de>>(
    text: &'de str,
    seed: S,
    body: Range<usize>,
    kind: Scalar,
) -> Option<Result<(S::Value, Reading)>> {
    let s = &text[body.clone()];
    let trimmed = s.trim();
    if trimmed.is_empty() || trimmed.len() > MAX_PROSE || !braces_are_asides(trimmed) {
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

/// Whether every `{` in `prose` opens a placeholder or an aside that closes
/// (`Hello {name}!`), words of the prose; any other is JSON.
fn braces_are_asides(prose: &str) -> bool {
    let b = prose.as_bytes();
    memchr::memchr_iter(b'{', b).all(|open| {
        memchr::memchr2(b'}', b'{', &b[open + 1..])
            .map(|k| open + 1 + k)
            .is_some_and(|close| b[close] == b'}' && crate::extract::aside(&b[open..=close]))
    })
}

/// A plausible value found in prose, or a mention of one that is no value.
#[derive(Clone, Debug)]
enum Found {
    /// The value, as written.
    Value(Value),
    /// A value its clause negates (`Not true.`, `Definitely not A`): not
    /// the answer, and it says nothing of which value is (see [`negated`]).
    Negated,
    /// A number that is not read as one: a fraction's word or a scale word
    /// cut off after it (`4 thousandths`, `3.5 mil`), or a bound (`at least
    /// 3`, `10+`).
    Unread(&'static str),
}

/// The one plausible value in `prose` (starting at `start` in `text`), or an
/// error: none found, one that is no value it can read, or two different
/// ones. A negated mention is passed over (`Not B, but C.` is C), but it
/// makes the error when nothing else is found.
fn one(
    text: &str,
    start: usize,
    prose: &str,
    what: &str,
    find: impl Fn(&str) -> Vec<(Found, Range<usize>)>,
) -> Result<(Value, Range<usize>)> {
    let found = find(prose);
    let fail = |kind: ErrorKind, message: std::fmt::Arguments<'_>, at: usize| {
        Err(Error::at(kind, message, start + at).locate(text))
    };
    if let Some((Found::Unread(why), at)) =
        found.iter().find(|(f, _)| matches!(f, Found::Unread(_)))
    {
        let written = &prose[at.clone()];
        return fail(
            ErrorKind::Data,
            format_args!("the reply writes {written} where {what} is wanted: {why}, not a value"),
            at.start,
        );
    }
    let mut values = found.iter().filter_map(|(f, at)| match f {
        Found::Value(v) => Some((v, at)),
        _ => None,
    });
    let Some((first, span)) = values.next() else {
        if let Some((_, at)) = found.first() {
            let written = &prose[at.clone()];
            return fail(
                ErrorKind::Data,
                format_args!("the reply negates {written} where {what} is wanted, and names no value it means"),
                at.start,
            );
        }
        return fail(
            ErrorKind::NoJson,
            format_args!(
                "no JSON value found: expected {what}, found prose; looked for a bare value, ```json fences, <json> tags, and {what} in the prose"
            ),
            0,
        );
    };
    if let Some((_, at)) = values.find(|(v, _)| !same(v, first)) {
        return fail(
            ErrorKind::Data,
            format_args!(
                "ambiguous reply: it holds both {} and {}, and {what} is wanted",
                &prose[span.clone()],
                &prose[at.clone()]
            ),
            at.start,
        );
    }
    Ok((first.clone(), start + span.start..start + span.end))
}

/// Whether two found values are the same value (`42` and `42.0` are).
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Whether the ASCII byte `c` is a word's (see [`words`]).
fn ascii_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'/')
}

/// The words of `prose`: maximal runs of letters, digits, `_`, `-` and `/`,
/// with their byte spans (less the `-` and `/` at either end). Read byte by byte:
/// a character past ASCII is decoded only to ask whether it is a letter.
fn words(prose: &str) -> impl Iterator<Item = (&str, Range<usize>)> {
    // (`/` joins too: `N/A` and `yes/no` are no `A` and no `yes`.)
    let b = prose.as_bytes();
    // Whether the character at `i` is a word's, and its length.
    let at = move |i: usize| -> (bool, usize) {
        let c = b[i];
        if c.is_ascii() {
            return (ascii_word_byte(c), 1);
        }
        let ch = prose[i..].chars().next().expect("a character starts here");
        (ch.is_alphanumeric(), ch.len_utf8())
    };
    let mut i = 0;
    std::iter::from_fn(move || loop {
        loop {
            if i >= b.len() {
                return None;
            }
            let (word, n) = at(i);
            if word {
                break;
            }
            i += n;
        }
        let start = i;
        while i < b.len() {
            let (word, n) = at(i);
            if !word {
                break;
            }
            i += n;
        }
        let word = prose[start..i].trim_matches(['-', '/']);
        // (A dash alone, `no - wrong`, is no word, nor a comment's `//`.)
        if word.is_empty() {
            continue;
        }
        let lead = prose[start..i].len() - prose[start..i].trim_start_matches(['-', '/']).len();
        return Some((word, start + lead..start + lead + word.len()));
    })
}

/// Where the model says a value it wrote was wrong: the start of each word
/// saying so (`Wait, I made a mistake.`, `That is wrong;`, `Oops, typo`,
/// `my bad`), or that what follows is final, so what came before was not
/// (`Final answer:`), in order. Not a word its clause negates (`no mistakes`), makes
/// a condition (`if anything is wrong, …`) or asks about (`Is it wrong?`).
/// Each word is looked at once, its clause within a bounded reach. The
/// words are those of `text[within]`; positions are in `text`. A value is
/// taken back only when such a word follows it and the prose then
/// introduces its replacement ([`introduces_correction`]).
pub(crate) fn retractions(text: &str, within: Range<usize>) -> Vec<usize> {
    let mut out = Vec::new();
    // The two words before the one judged, that one, and the one after.
    let mut w: [Option<(&str, Range<usize>)>; 4] = Default::default();
    let at = within.start;
    let found = words(&text[within]).map(|(x, r)| Some((x, at + r.start..at + r.end)));
    for next in found.chain([None]) {
        w.rotate_left(1);
        w[3] = next;
        let Some((word, span)) = w[2].clone() else {
            continue;
        };
        let is = |k: usize, any: &[&str]| {
            w[k].as_ref()
                .is_some_and(|(x, _)| any.iter().any(|a| x.eq_ignore_ascii_case(a)))
        };
        let after = text[span.end..].trim_start_matches([' ', '\t']);
        let says = if RETRACTING.iter().any(|a| word.eq_ignore_ascii_case(a)) {
            true
        } else if is(2, &["wait", "actually"]) {
            // A sentence that opens so takes back what came before.
            after.starts_with([',', '!', '\u{2014}'])
        } else if is(2, &["bad"]) {
            is(1, &["my"])
        } else if is(2, &["error"]) {
            is(1, &["my"]) || is(0, &["made"])
        } else if is(2, &["no", "nope"]) {
            // `Hmm, no.`, `Oh, nope.`
            is(1, &["hmm", "um", "oh", "ah", "on"])
                && after.starts_with([',', '.', '!', '\u{2014}'])
        } else if is(2, DROPPING) {
            // `Scratch that.`, `Forget that.`
            is(3, &["that"])
        } else if is(2, &["mind"]) {
            // `Never mind.`
            is(1, &["never"])
        } else if is(2, &["nevermind"]) {
            true
        } else if is(2, &["meant"]) {
            // `Sorry, I meant:`
            is(1, &["i"])
        } else if is(2, &["final"]) {
            // `Final answer:`, `**Final JSON**`: what came before was not.
            after.starts_with(':') || is(3, NAMED)
        } else if is(2, &["corrected", "correction"]) {
            // `Corrected:`, `Correction:`, `Corrected version:` right
            // before a value: what came before was the value this one
            // corrects. (Not `Correction: none needed.`)
            labels_value(text, span.end)
                || names_value(&w[3]).is_some_and(|e| labels_value(text, e))
        } else if is(2, &["fixed", "revised", "amended", "updated"]) {
            // `Fixed JSON:`, `Here is the updated version:` (not `Fixed:`
            // or `Updated:` alone: a status, a plan, an event, a section
            // of release notes; nor `Last updated version:`).
            !is(1, &["last", "recently"])
                && names_value(&w[3]).is_some_and(|e| labels_value(text, e))
        } else if is(2, &["correct"]) {
            // `Here is the correct JSON:` (not `Correct:`, a label that may
            // answer a question).
            names_value(&w[3]).is_some_and(|e| labels_value(text, e))
        } else if is(2, &["sorry"]) {
            // `Sorry about that!`, `Sorry for the confusion.`
            is(3, &["about", "for"])
        } else if is(2, &["not"]) {
            // `Wait, that's not right.`
            is(3, NOT_RIGHT)
        } else if is(2, OMITTING) {
            // `Oops, I forgot the date.` (not `I forgot to mention…`)
            omission(word, after)
        } else {
            false
        };
        // (`Never mind` is judged from `never`, which no negation before
        // it qualifies.)
        let judged = match is(2, &["mind"]) {
            true => w[1].as_ref().map_or(span.clone(), |(_, r)| r.clone()),
            false => span.clone(),
        };
        if says && !qualified(text, &judged) && !is(1, &["nothing", "without", "any"]) {
            out.push(span.start);
        }
    }
    out
}

/// Whether a colon follows `at` (past spaces and emphasis) and a value
/// opens right after it, past spaces and line ends (`Corrected:⏎{…}`,
/// `Fixed JSON:**⏎```json`): the words before `at` label that value.
fn labels_value(text: &str, at: usize) -> bool {
    text[at..]
        .trim_start_matches([' ', '\t', '*', '_'])
        .strip_prefix(':')
        .is_some_and(|r| {
            r.trim_start_matches([' ', '\t', '\r', '\n', '*', '_'])
                .starts_with(['{', '[', '`', '<', '~'])
        })
}

/// Where the word `w` ends, when it names a value as [`NAMED`] does, or
/// `one`.
fn names_value(w: &Option<(&str, Range<usize>)>) -> Option<usize> {
    w.as_ref()
        .filter(|(x, _)| is_any(x, NAMED) || is_any(x, &["one"]))
        .map(|(_, r)| r.end)
}

/// Whether the prose `text[gap]` before a value ends by introducing it as
/// a correction: its last clause names one (`corrected`, `correct`,
/// `fixed`, `revised`, `updated`, `right`, `redo`, `meant`, `instead`) and
/// ends with a colon, a fence's opening marker or a `<json>` tag after it
/// at most (`Here is the corrected version:`, `correct:`, `Fixed:⏎```json`,
/// `use this instead:`), or it ends with `I meant`; or, with no colon, it
/// is one short sentence of nothing but words that take back, opening so
/// (`Wait, no.`, `Sorry, my mistake!`). A label of the value before (`Your
/// input had a typo:`) or an example after (`Usage:`) is none, nor a
/// sentence that takes back and then one that names what follows
/// (`Sorry, your JSON is wrong. The offending part:`).
pub(crate) fn introduces_correction(text: &str, gap: Range<usize>) -> bool {
    let mut tail = text[gap].trim_end();
    for opener in ["```json", "```JSON", "```", "<json>"] {
        if let Some(rest) = tail.strip_suffix(opener) {
            tail = rest.trim_end();
            break;
        }
    }
    // `Wait, no. {…}`, `Oops, my mistake! {…}`, `Oops! Wrong key. {…}`,
    // `Scratch that: {…}`: a sentence or two of nothing but words that take
    // back, opening so, right before it. (All the prose between the values:
    // `Is it required? Wait, no. {…} would do` asks and answers something
    // else.) Ending in a colon, it may point at the value after it instead
    // (`Oh, this is wrong:`, `My mistake:`): only `Scratch that:` and its
    // like do not. Or a sentence or two that say a mistake was made, then
    // one that only presents what follows (short, every word one that
    // presents: `Wait, that is wrong. Here it is:`, `Oops, I used the wrong
    // key. Let me fix it:`, `I made a mistake. Here you go!`; not `Here is
    // your input:`, `Here is one more:`).
    let sentence = tail.trim_end_matches(['.', '!', ',', '-', '\u{2014}', ' ', '*', '_', ')']);
    let (sentence, colon) = match sentence.strip_suffix(':') {
        Some(s) => (s.trim_end_matches(['*', '_', ' ']), true),
        None => (sentence, false),
    };
    let sentence = past_closing_tag(sentence);
    if only_takes_back(sentence, colon) {
        return true;
    }
    // (Or one sentence of both, a comma between: `Oops, wrong key, here
    // it is:`.)
    let last = sentence.rfind(SENTENCE_ENDS);
    let comma = sentence.rfind(',').filter(|&c| last.is_none_or(|k| c > k));
    for k in [last, comma].into_iter().flatten() {
        let presents = &sentence[k + 1..];
        if (1..=8).contains(&words(presents).count())
            && words(presents).all(|(w, _)| is_any(w, PRESENTING))
            && names_its_mistake(&sentence[..k])
        {
            return true;
        }
    }
    // (Or a clause that names the mistake, then a short sentence that says
    // why, ended, and the value right after it: `Wait, that's not right —
    // 9 isn't prime.`)
    if !colon && tail.ends_with(['.', '!']) && explains_mistake(sentence) {
        return true;
    }
    // (`**Fixed JSON:**`: the colon inside the emphasis.)
    let Some(tail) = tail.trim_end_matches(['*', '_', ' ']).strip_suffix(':') else {
        // `So the final answer is {…}`: its clause names it the final
        // value with no colon.
        if names_final(last_clause(tail)) {
            return true;
        }
        // `Sorry, I meant {…}`: the words introduce it with no colon.
        let from = crate::text::floor_char_boundary(tail, tail.len().saturating_sub(16));
        let mut last: [Option<(&str, Range<usize>)>; 2] = [None, None];
        for w in words(&tail[from..]) {
            last = [last[1].take(), Some(w)];
        }
        return match last {
            [Some((i, _)), Some((meant, r))] => {
                i.eq_ignore_ascii_case("i")
                    && meant.eq_ignore_ascii_case("meant")
                    && from + r.end == tail.len()
            }
            _ => false,
        };
    };
    let clause = last_clause(tail);
    words(clause).any(|(w, _)| is_any(w, CORRECTING)) || names_final(clause)
}

/// The last clause of `tail`, within its last 120 bytes.
fn last_clause(tail: &str) -> &str {
    let mut from = tail.len().saturating_sub(120);
    while !tail.is_char_boundary(from) {
        from += 1;
    }
    let near = &tail[from..];
    &near[near.rfind(SENTENCE_ENDS).map_or(0, |k| k + 1)..]
}

/// Whether `clause` does nothing but name what follows it as the final
/// value (`Final answer`, `So the final answer is`, `Here is my final
/// JSON`), not quoted (`> Final answer`): not one that names another's or
/// an earlier final value (`The final output of the previous run`, `What
/// the student wrote as their final answer`).
fn names_final(clause: &str) -> bool {
    const FINAL: &[&str] = &[
        "final",
        "so",
        "the",
        "my",
        "our",
        "here",
        "is",
        "s",
        "this",
        "that",
        "answer",
        "json",
        "result",
        "output",
        "response",
        "solution",
        "version",
        "thus",
        "therefore",
        "hence",
        "then",
        "now",
        "ok",
        "okay",
        "and",
        "value",
        "object",
        "list",
        "array",
    ];
    !clause.trim_start().starts_with('>')
        && words(clause).any(|(w, _)| is_any(w, &["final"]))
        && words(clause).count() <= 8
        && words(clause).all(|(w, _)| is_any(w, FINAL))
}

/// Whether the label of the value that starts at `start` names it the
/// final answer (`Final Answer: {…}`, `**Final JSON:**⏎{…}`; see
/// [`label_says`]), not in a quote.
pub(crate) fn final_label(text: &str, start: usize) -> bool {
    let l = label(text, start);
    label_says(text, l.clone()).is_some_and(|(_, yes)| yes)
        && words(&text[l.clone()]).any(|(w, _)| is_any(w, &["final"]))
        && !text[line_start(text, l.start, 40)..l.end]
            .trim_start()
            .starts_with('>')
}

/// What the first sentence after a value says of it, read from `end` (the
/// value's end) to `to`: whether it takes the value back in words that do
/// nothing else (`{"a": 1}⏎Oops, my mistake.`, `Wait, no, that is wrong!`,
/// `Scratch that.`, as [`introduces_correction`] reads one before a
/// replacement), and where it ends. Past spaces, a fence's closing marker,
/// a closing tag and the stop that ends the value's own sentence (`The
/// answer is {…}. Oops.`), each within 64 bytes. `None` while the sentence
/// has not ended (a stop, `!`, `?` or a line end) within 160 bytes: a word
/// still to come may change it. (The text's end ends none: a reply cut
/// after `Oops, I` may go on `forgot a field.`; so a view of the text so
/// far, a decode of it and of the whole reply agree.) A question (`Wait,
/// no?`) takes nothing back, nor an apology (`Sorry, my mistake.`, `My
/// bad.`: it may be for a turn before the reply). One that only exclaims
/// (`Oops!`, `Hmm, no.`) takes it back only with no word after it, within
/// 64 bytes ([`Withdrawal::Last`]).
pub(crate) fn withdraws(text: &str, end: usize, to: usize) -> Option<Withdrawal> {
    let b = text.as_bytes();
    let mut i = end.min(to);
    // (Each skip within 64 bytes: past them, the sentence is none.)
    let skip = |i: &mut usize| {
        let from = *i;
        while *i < to && (b[*i].is_ascii_whitespace() || matches!(b[*i], b'.' | b'!')) {
            *i += 1;
        }
        *i - from <= 64
    };
    let far = || Some(Withdrawal::No);
    if !skip(&mut i) {
        return far();
    }
    if b[i..to].starts_with(b"```") {
        i += 3;
    } else if b[i..to].starts_with(b"</") {
        match memchr::memchr(b'>', &b[i..to.min(i + 32)]) {
            Some(k) => i += k + 1,
            None if to < i + 32 => return None,
            None => {}
        }
    }
    if !skip(&mut i) {
        return far();
    }
    let reach = to.min(i + 160);
    let stop = match b[i..reach]
        .iter()
        .position(|c| matches!(c, b'.' | b'!' | b'?' | b'\n'))
    {
        Some(k) => i + k,
        None if reach == to => return None,
        None => return Some(Withdrawal::No),
    };
    // (Every byte skipped is ASCII: `i` and `stop` start characters.)
    let sentence = &text[i..stop];
    let markup = |c: char| {
        c.is_whitespace() || matches!(c, '*' | '_' | '(' | ')' | ',' | '-' | ':' | '\u{2014}')
    };
    let said = sentence.trim_matches(markup);
    let at = i + (sentence.len() - sentence.trim_start_matches(markup).len());
    let apology = words(said)
        .next()
        .is_some_and(|(w, _)| is_any(w, &["sorry", "apologies", "my"]));
    let keeps = (stop < to && b[stop] == b'?')
        || apology
        || !takes_back(said)
        || !words(said).all(|(w, _)| is_any(w, FILLER))
        || retractions(text, at..at + said.len()).is_empty();
    if keeps {
        return Some(Withdrawal::No);
    }
    // Words that only exclaim (`Oops!`, `Hmm, no.`) take it back only as
    // the reply's last words: `Oops! I forgot to say the times are UTC.`,
    // `Hmm, no. That is correct.` keep it.
    let names =
        drops(said) || says_not_right(said) || words(said).any(|(w, _)| is_any(w, NAMES_MISTAKE));
    if names {
        return Some(Withdrawal::Yes(at, stop));
    }
    // (And only of such words: `Whoops, that's it!` says the value stands,
    // `Oh no!` may be dismay at it.)
    const EXCLAIMS: &[&str] = &[
        "wait", "oops", "whoops", "hmm", "um", "actually", "no", "nope",
    ];
    if !words(said).all(|(w, _)| is_any(w, EXCLAIMS)) {
        return Some(Withdrawal::No);
    }
    let rest = &b[(stop + 1).min(to)..to];
    Some(
        match rest.len() > 64 || rest.iter().any(u8::is_ascii_alphanumeric) {
            true => Withdrawal::No,
            false => Withdrawal::Last(at, stop),
        },
    )
}

/// The words that name what was wrong with a value (not the interjections
/// that exclaim it): see [`withdraws`].
const NAMES_MISTAKE: &[&str] = &[
    "mistake",
    "mistakes",
    "mistaken",
    "typo",
    "typos",
    "wrong",
    "incorrect",
    "incorrectly",
    "erroneous",
    "bad",
    "error",
    "messed",
    "screwed",
];

/// How far past a value's end [`withdraws`] may read: what it skips, the
/// sentence, and the bytes after one that only exclaims.
const WITHDRAW_REACH: usize = 64 + 32 + 64 + 160 + 64;

/// What the sentence after a value says of it, as a stream's text grows
/// ([`withdraws`]): looked at again only until that is decided (and, while
/// it only exclaims, while nothing follows it), each look bounded.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Said {
    end: usize,
    said: Option<Withdrawal>,
}

impl Said {
    /// Nothing looked at yet.
    pub(crate) const NONE: Said = Said {
        end: usize::MAX,
        said: None,
    };

    /// Whether the sentence after the value that ends at `end` takes it
    /// back, as `text` reads so far.
    pub(crate) fn takes_back(&mut self, text: &str, end: usize) -> bool {
        if self.end != end {
            *self = Said { end, said: None };
        }
        if matches!(self.said, None | Some(Withdrawal::Last(..))) {
            crate::work::add((text.len() - end.min(text.len())).min(WITHDRAW_REACH));
            self.said = withdraws(text, end, text.len());
        }
        self.said.and_then(Withdrawal::taken).is_some()
    }

    /// Where that sentence ends, once it takes the value back in words no
    /// later text changes ([`Withdrawal::Yes`]).
    pub(crate) fn decided(&self) -> Option<usize> {
        match self.said {
            Some(Withdrawal::Yes(_, stop)) => Some(stop),
            _ => None,
        }
    }
}

/// What [`withdraws`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Withdrawal {
    /// The first sentence after the value takes nothing back.
    No,
    /// It takes the value back: where its words start, and where it ends.
    Yes(usize, usize),
    /// It takes the value back only while nothing follows it (words that
    /// only exclaim, `Oops!`: more words may keep the value).
    Last(usize, usize),
}

impl Withdrawal {
    /// Where the words that take the value back start and end, if they
    /// do, as the text so far reads.
    pub(crate) fn taken(self) -> Option<(usize, usize)> {
        match self {
            Withdrawal::No => None,
            Withdrawal::Yes(at, stop) | Withdrawal::Last(at, stop) => Some((at, stop)),
        }
    }
}

/// What ends a sentence, for [`introduces_correction`].
const SENTENCE_ENDS: [char; 4] = ['.', '!', '?', '\n'];

/// Whether `w` is one of `any`, in any case.
fn is_any(w: &str, any: &[&str]) -> bool {
    any.iter().any(|a| w.eq_ignore_ascii_case(a))
}

/// Whether `sentence` (its stop and a colon trimmed, `colon`: it had one)
/// is a sentence or a few of nothing but words that take back, opening so
/// (see [`introduces_correction`]). With a colon, only one that drops what came
/// before (`Scratch that:`): `My mistake:` may point at what follows.
fn only_takes_back(sentence: &str, colon: bool) -> bool {
    let sentence = sentence
        .trim_end_matches(|c: char| {
            c.is_whitespace() || matches!(c, '.' | '!' | ',' | '-' | '\u{2014}' | '*' | '_' | ')')
        })
        .trim_start_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace());
    // (Two sentences or three, as `Oops! My mistake.`; with a colon, one.)
    let sentences = sentence
        .split(SENTENCE_ENDS)
        .filter(|s| !s.trim().is_empty())
        .count();
    !sentence.contains('?')
        && sentences <= if colon { 1 } else { 3 }
        && (if colon {
            drops(sentence)
        } else {
            takes_back(sentence)
        })
        && words(sentence).all(|(w, _)| is_any(w, FILLER))
}

/// Words that make a sentence about a mistake a case (`if`) or point it at
/// another's text (`your input`): it takes back no value of the reply's
/// (see [`names_its_mistake`], [`explains_mistake`]).
const ELSEWHERE: &[&str] = &[
    "if", "unless", "whether", "when", "your", "you", "yours", "original", "input", "user",
    "prompt",
];

/// Whether `s` is a sentence or two, no question, that open by saying a
/// mistake was made (an interjection, `That`, `This` or `I`, then a word
/// naming it: `Oops, I used the wrong key.`, `That is wrong.`, `I made a
/// mistake in the date.`), 12 words at most: what
/// [`introduces_correction`] reads before a sentence that only presents
/// the value after it. Not a case (`if`), a mistake of another's or of
/// an earlier text (`Oh, your original had a typo.`), nor one pointed at
/// (`Oh, the typo. Here it is:` shows it).
fn names_its_mistake(s: &str) -> bool {
    let s = s.trim_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '.' | '!' | ',' | '-' | '\u{2014}' | '*' | '_' | ')' | '('
            )
    });
    let sentences = s
        .split(SENTENCE_ENDS)
        .filter(|s| !s.trim().is_empty())
        .count();
    let first = words(s).next().map(|(w, _)| w);
    (1..=2).contains(&sentences)
        && !s.contains('?')
        && words(s).count() <= 12
        && !words(s).any(|(w, _)| is_any(w, ELSEWHERE))
        && !words(s)
            .zip(words(s).skip(1))
            .any(|((a, _), (b, _))| {
                is_any(a, &["the"]) && is_any(b, &["typo", "typos", "mistake", "mistakes"])
            })
        && takes_back_within(
            s,
            12,
            first.is_some_and(|f| is_any(f, &["that", "this", "i"])),
        )
        // (A word that names it beside `Oops`: `Oops, I forgot a field.`
        // adds one. Or words that do nothing but take back: `Hold on, no.`)
        && (words(s).any(|(w, _)| is_any(w, RETRACTING) && !is_any(w, &["oops", "whoops"]))
            || says_not_right(s)
            || apologizes(s)
            || omits(s))
        || only_takes_back(s, false)
}

/// Whether `s` (its last stop trimmed) is a clause that only takes back
/// the value before (an interjection, then words that name a mistake and
/// nothing else, as [`only_takes_back`] reads them: a word of
/// [`NAMES_MISTAKE`], `not right`, `scratch that`), then a dash, a
/// semicolon or a stop, then one short sentence that says why (`Wait,
/// that's not right — 9 isn't prime`, `Oops, wrong unit. The API wants
/// meters`): what [`introduces_correction`] reads before a value with no
/// colon. Not a clause that names what is wrong in other words (`That
/// reading is wrong`, `Oops, the customer ordered the wrong size`, `It's
/// a common mistake`: a mistake in the data, the world or an example, not
/// in the value), nor one that asks, names another's text (`your input`),
/// or has a colon (`Wrong; the schema says:`).
fn explains_mistake(s: &str) -> bool {
    // (Nor words that add another text: `Anyway, here's another
    // shortcut.`)
    const ADDING: &[&str] = &[
        "example", "schema", "another", "anyway", "also", "next", "other", "more",
    ];
    let s = s.trim();
    let mark = s
        .char_indices()
        .find(|&(_, c)| matches!(c, '\u{2014}' | '\u{2013}' | ';' | '.' | '!'))
        .map(|(k, c)| (k, c.len_utf8()));
    let dash = s.find(" - ").map(|k| (k, 3));
    let Some((k, len)) = [mark, dash].into_iter().flatten().min() else {
        return false;
    };
    let (first, why) = (&s[..k], &s[k + len..]);
    let sentences = why
        .split(SENTENCE_ENDS)
        .filter(|x| !x.trim().is_empty())
        .count();
    sentences == 1
        && (1..=12).contains(&words(why).count())
        && !s.contains(['?', ':'])
        && !words(s).any(|(w, _)| is_any(w, ELSEWHERE) || is_any(w, ADDING))
        && only_takes_back(first, false)
        && (words(first).any(|(w, _)| is_any(w, NAMES_MISTAKE))
            || says_not_right(first)
            || drops(first))
}

/// `s` past a closing tag it opens with (`</json>` after the value before
/// it), within 32 bytes.
fn past_closing_tag(s: &str) -> &str {
    let t = s.trim_start();
    match t
        .strip_prefix("</")
        .and_then(|r| r.get(..30.min(r.len()))?.find('>'))
    {
        Some(k) => &t[2 + k + 1..],
        None => s,
    }
}

/// Whether the short sentence `s` opens by taking back what came before
/// (`Wait, no`, `Oops, typo`, `Sorry, my mistake`, `Oh, my mistake`): its
/// first word is an interjection, and it holds a word that says a mistake
/// was made (not `Wait!` or `Actually, that is it.` alone), or a `no` that
/// stands alone among interjections (`Hmm, no.`); or it drops
/// what came before (`Scratch that`, `Forget that`, `Never mind`). (A note
/// about something wrong, `Note: the wrong format…`, opens otherwise.)
fn takes_back(s: &str) -> bool {
    takes_back_within(s, 6, false)
}

/// [`takes_back`], of `most` words at most; `opened`: the first word need
/// not be an interjection.
fn takes_back_within(s: &str, most: usize, opened: bool) -> bool {
    const OPENS: &[&str] = &[
        "wait",
        "oops",
        "whoops",
        "sorry",
        "actually",
        "hmm",
        "um",
        "apologies",
        "my",
        "oh",
        "ah",
        "aha",
        "hold",
        "hang",
    ];
    if drops(s) {
        return true;
    }
    let mut first = None;
    let (mut count, mut mistake, mut lone_no, mut other) = (0, false, false, false);
    let (mut before, mut negating): (Option<&str>, bool) = (None, false);
    for (w, r) in words(s) {
        if negating {
            // (`not` before a word negates it, but `not right`: a mistake.)
            if !is_any(w, NOT_RIGHT) {
                return false;
            }
            negating = false;
            mistake = true;
            continue;
        }
        first.get_or_insert(w);
        if is_any(w, &["second", "sec", "moment", "minute"])
            && before.is_some_and(|b| is_any(b, &["a"]))
        {
            // (`Hold on a second`, `Wait a moment`: a pause, not counted.)
            count -= 1;
            continue;
        }
        count += 1;
        if is_any(w, RETRACTING)
            || is_any(w, &["bad"])
            || (is_any(w, &["error"]) && before.is_some_and(|b| is_any(b, &["my", "an", "made"])))
        {
            // (`error` after `my`: `Actually, error value.` adds a case.)
            mistake = true;
        } else if is_any(w, &["no", "nope"]) {
            // `Wait, no mistakes.`: a `no` that negates. `Wait, no, that
            // is wrong`, `Wait, no — wrong value`: one that stands alone.
            let after = s[r.end..].trim_start_matches(' ');
            let alone = after.is_empty()
                || after.starts_with([',', ';', '!', '.', '-', '\u{2013}', '\u{2014}', '\u{2026}']);
            if is_any(w, &["no"]) && !alone {
                return false;
            }
            lone_no = true;
        } else if is_any(w, &["not"]) {
            negating = true;
        } else if !is_any(w, OPENS) && !is_any(w, &["dear", "on"]) {
            other = true;
        }
        before = Some(w);
    }
    // An apology for what came before (`Sorry about that`) says it too,
    // and words that say something was left out (`Oops, forgot one`).
    mistake |= apologizes(s) || omits(s);
    // A `no` alone takes back only among interjections (`Wait, no.`,
    // `Hmm, no.`): `Wait, no, that is my answer.` says the first stands.
    (opened || first.is_some_and(|f| is_any(f, OPENS)))
        && count <= most
        && (mistake || (lone_no && !other))
}

/// Whether `s` says what came before was not right: `that's not right`,
/// `This is not correct`, `not valid`.
fn says_not_right(s: &str) -> bool {
    words(s)
        .zip(words(s).skip(1))
        .any(|((a, _), (b, _))| is_any(a, &["not"]) && is_any(b, NOT_RIGHT))
}

/// The words that, after `not`, say a value was wrong (see
/// [`says_not_right`]).
const NOT_RIGHT: &[&str] = &["right", "correct", "valid"];

/// Whether `s` says something was left out of what came before: `I
/// forgot the date`, `Oops, missed one`, `I omitted a field` (not `I forgot
/// to mention that…`, which adds to it).
fn omits(s: &str) -> bool {
    words(s).any(|(w, r)| omission(w, &s[r.end..]))
}

/// Whether the word `w`, with `after` the text after it, says something
/// was left out (see [`omits`]).
fn omission(w: &str, after: &str) -> bool {
    is_any(w, OMITTING) && !tells(after.trim_start())
}

/// Whether `after` (the words after one of [`OMITTING`]) says what was left
/// out was something to say, not part of the value: `to mention`, `to say`.
fn tells(after: &str) -> bool {
    let mut w = words(after).map(|(w, _)| w);
    w.next().is_some_and(|t| is_any(t, &["to"]))
        && w.next()
            .is_some_and(|v| is_any(v, &["mention", "say", "tell", "note", "ask", "explain"]))
}

/// Whether the word at `at` says something was left out, as [`omits`]
/// reads it (a cue [`retractions`] found).
pub(crate) fn omits_at(text: &str, at: usize) -> bool {
    let end = (at + 64).min(text.len());
    let end = crate::text::floor_char_boundary(text, end);
    words(&text[at..end])
        .next()
        .is_some_and(|(w, r)| omission(w, &text[at + r.end..end]))
}

/// Whether the word at `at` (a cue [`retractions`] found) only exclaims:
/// `Oops`, `Whoops`.
pub(crate) fn exclaims_at(text: &str, at: usize) -> bool {
    let end = crate::text::floor_char_boundary(text, (at + 16).min(text.len()));
    words(&text[at..end])
        .next()
        .is_some_and(|(w, _)| is_any(w, &["oops", "whoops"]))
}

/// The words that say something was left out of a value (see [`omits`]).
const OMITTING: &[&str] = &["forgot", "missed", "omitted"];

/// Whether `s` apologizes for what came before: `Sorry about that`,
/// `Sorry for the confusion`, `Apologies for the error` (not `Sorry for
/// the delay`).
fn apologizes(s: &str) -> bool {
    // (Two empty words after the last: windows of four reach it.)
    let w: Vec<&str> = words(s).map(|(w, _)| w).take(16).chain(["", ""]).collect();
    w.windows(4).any(|x| {
        is_any(x[0], &["sorry", "apologies"])
            && is_any(x[1], &["about", "for"])
            && (is_any(x[2], &["that", "this"])
                || (is_any(x[2], &["the", "my"])
                    && is_any(x[3], &["confusion", "error", "mistake", "typo", "mixup"])))
    })
}

/// Whether `s` drops what came before: `Scratch that`, `Wait, forget
/// that`, `Never mind`.
fn drops(s: &str) -> bool {
    words(s).zip(words(s).skip(1)).any(|((a, _), (b, _))| {
        (is_any(a, DROPPING) && is_any(b, &["that"]))
            || (is_any(a, &["never"]) && is_any(b, &["mind"]))
    }) || words(s).any(|(w, _)| is_any(w, &["nevermind"]))
}

/// The verbs that drop what `that` points to: `Scratch that`.
const DROPPING: &[&str] = &["scratch", "strike", "forget", "ignore", "disregard"];

/// The words a sentence that only takes back is made of (see
/// [`introduces_correction`]): `Wait, no.`, `Sorry, that was wrong!`.
const FILLER: &[&str] = &[
    "wait",
    "no",
    "nope",
    "hmm",
    "actually",
    "sorry",
    "my",
    "bad",
    "error",
    "oh",
    "ah",
    "um",
    "that",
    "that's",
    "s",
    "was",
    "is",
    "i",
    "made",
    "a",
    "let",
    "me",
    "fix",
    "it",
    "this",
    "again",
    "mistake",
    "mistakes",
    "typo",
    "oops",
    "whoops",
    "wrong",
    "incorrect",
    "apologies",
    "scratch",
    "strike",
    "forget",
    "ignore",
    "disregard",
    "never",
    "mind",
    "one",
    "dear",
    "aha",
    // `Hold on, that is wrong.`, `Hang on, my mistake.`
    "hold",
    "hang",
    "on",
    "too",
    "second",
    "sec",
    "moment",
    "minute",
    // `Wait, that's not right.`, `Sorry, I messed up.`, `Sorry about that.`
    "not",
    "right",
    "correct",
    "valid",
    "messed",
    "screwed",
    "up",
    "about",
    "for",
    // What was wrong: `Oops, wrong key.`, `Sorry, wrong format!`
    "key",
    "keys",
    "value",
    "field",
    "format",
    "number",
    "count",
    "answer",
    "output",
    "version",
    "file",
    "city",
    "name",
    "type",
    "unit",
    "id",
    "date",
    "list",
    "item",
    "items",
    "fields",
    "syntax",
    "json",
    "object",
    "array",
    "spelling",
    // `Ok, scratch that.`, `Nevermind.` (Not `the`: `Never mind the
    // format.` asks for no correction.)
    "ok",
    "okay",
    "nevermind",
];

/// Whether the value at `span` (an empty list or object, unquoted) is
/// named in an instruction rather than given: a verb that says what to give
/// stands before it (`Use {} when…`, `Return [] if…`, `respond with []
/// for…`), and after it a word that makes it a case (`if`, `when`,
/// `unless`, …) or one that names the case (`for none`, `on error`, `in
/// case`), each a space or tab away on its line. `Use {} when there is
/// nothing. Here: {"a": 1}` names `{}`; `Result: [] (nothing matched)`,
/// `The answer is [] as…`, `I return [] as instructed`, `Return [] for this
/// input` and `Use {} or [] for none` give theirs. Told by the words next
/// to the value alone (the last ended by the byte after it), as a quoted
/// name is by its quotes.
pub(crate) fn instructs(text: &str, span: &Range<usize>) -> bool {
    const GIVE: &[&str] = &[
        "use", "return", "returns", "output", "outputs", "give", "reply", "respond", "answer",
        "send", "emit", "print", "write", "produce", "yield", "yields",
    ];
    const CASE: &[&str] = &["if", "when", "whenever", "unless", "otherwise"];
    const NAMES_CASE: &[&str] = &["for", "on", "in"];
    const CASES: &[&str] = &[
        "none", "no", "empty", "nothing", "missing", "null", "error", "errors", "failure",
        "failures", "unknown", "absent", "case",
    ];
    let b = text.as_bytes();
    let blank = |c: &u8| *c == b' ' || *c == b'\t';
    // The word a run of spaces or tabs before `at`.
    let before = |at: usize| {
        let end = b[..at].iter().rposition(|c| !blank(c))? + 1;
        let start = b[..end]
            .iter()
            .rposition(|c| !c.is_ascii_alphabetic())
            .map_or(0, |k| k + 1);
        (end < at && start < end && (start == 0 || !ascii_word_byte(b[start - 1])))
            .then(|| (&text[start..end], start))
    };
    // The word a run of spaces or tabs after `at`, ended by the byte after
    // it.
    let after = |at: usize| {
        let start = at + b[at..].iter().take_while(|c| blank(c)).count();
        let end = start
            + b[start..]
                .iter()
                .take_while(|c| c.is_ascii_alphabetic())
                .count();
        (start > at && end > start && end < b.len() && !ascii_word_byte(b[end]))
            .then(|| (&text[start..end], end))
    };
    let Some((mut verb, at)) = before(span.start) else {
        return false;
    };
    if verb.eq_ignore_ascii_case("with") {
        match before(at) {
            Some((v, _)) => verb = v,
            None => return false,
        }
    }
    is_any(verb, GIVE)
        && after(span.end).is_some_and(|(word, end)| {
            is_any(word, CASE)
                || (is_any(word, NAMES_CASE) && after(end).is_some_and(|(w, _)| is_any(w, CASES)))
        })
}

/// Whether the value that starts at `start` is introduced as the answer
/// right after the sentence that ends the value at `end` (an empty value an
/// instruction names, [`instructs`], which gives way to it): its [`label`]
/// is a colon after a few words that name the answer and nothing else
/// (`Here:`, `Result:`, `Here is the result:`, `Final answer:`,
/// `Response:`), it starts where that sentence ends (`Return [] if none.
/// Result: [1, 2]`, `Use {} when there is nothing.⏎⏎**Here:**⏎{…}`), and
/// the label's line says nothing that makes the value an illustration
/// (`like`, `e.g.`, `Example:`, `would`, `otherwise`). (Any other label
/// may name what is no answer: `Label set:`, `Current config:`, `If there
/// had been any:`, `Observation:`; a value with none may be a template; a
/// sentence between may say what follows is an example: `For a text
/// mentioning Paris, you would get:⏎Output:`. The reviews of 2026-12-07
/// found each.)
pub(crate) fn answers_after(text: &str, end: usize, start: usize) -> bool {
    const ILLUSTRATING: &[&str] = &[
        "example",
        "examples",
        "eg",
        "e",
        "like",
        "such",
        "would",
        "could",
        "might",
        "otherwise",
        "else",
        "format",
        "schema",
        "template",
        "sample",
        "comparison",
        "instance",
        "reminder",
    ];
    const ANSWER: &[&str] = &["here", "result", "results", "answer", "response", "output"];
    const AROUND: &[&str] = &[
        "the", "a", "is", "are", "it", "they", "my", "final", "json", "s",
    ];
    let markup = |c: char| c.is_whitespace() || matches!(c, '*' | '_' | '#' | '>');
    let label = label(text, start);
    if label.start < end {
        return false;
    }
    let said = text[label.clone()].trim_end_matches(markup);
    let Some(said) = said.strip_suffix(':') else {
        return false;
    };
    // (Its last sentence: `Use {} when there is nothing. Here:`.)
    let from = said.rfind(['.', '!', '?', ';']).map_or(0, |k| k + 1);
    let said = &said[from..];
    let mut named = false;
    for (i, (w, _)) in words(said).enumerate() {
        named |= is_any(w, ANSWER);
        if i >= 4 || !(is_any(w, ANSWER) || is_any(w, AROUND)) {
            return false;
        }
    }
    // The sentence of the value before ends, then the label: nothing else
    // between them but spaces and markup.
    let at = label.start + from;
    let between = &text[end..at];
    let Some(k) = between.find(['.', '!', '?', ';', '\n']) else {
        return false;
    };
    named
        && between[k + 1..].chars().all(markup)
        && !words(&text[line_start(text, label.start, 120).min(start)..start])
            .any(|(w, _)| is_any(w, ILLUSTRATING))
}

/// Where the label of the value that starts at `start` starts: its line,
/// within the 40 bytes before it (`Wrong: {…}`), or the line before that
/// [`label`] reads (`Incorrect:⏎{…}`), at a character's start.
pub(crate) fn label_start(text: &str, start: usize) -> usize {
    line_start(text, start, 40).min(label(text, start).start)
}

/// Where the line that `at` is on starts, within `reach` bytes before it,
/// at a character's start.
fn line_start(text: &str, at: usize, reach: usize) -> usize {
    let near = at.saturating_sub(reach);
    let mut line = text.as_bytes()[near..at]
        .iter()
        .rposition(|&x| x == b'\n')
        .map_or(near, |k| near + k + 1);
    while !text.is_char_boundary(line) {
        line += 1;
    }
    line
}

/// The label of the value that starts at `start`: the words on its line
/// before it (within the 40 bytes of [`label_start`]), or where there are
/// none (the value opens its line, after a fence's opening line and blank
/// lines at most) the line before when it ends in a colon or is a markdown
/// heading or a bold line, its last 120 bytes: `Output: {…}`,
/// `Input:⏎{…}`, `**Schema:**⏎```json⏎{…}`, `### After`. Never text of a
/// value before it on those lines (it starts after the last closer,
/// `{"q": 1} Output: {…}` is `Output: `), nor a word cut at its start.
pub(crate) fn label(text: &str, start: usize) -> Range<usize> {
    let b = text.as_bytes();
    // From `from` to `end`: after its last closer, past a cut word.
    let words_from = |from: usize, end: usize| {
        let mut s = b[from..end]
            .iter()
            .rposition(|&c| matches!(c, b'}' | b']'))
            .map_or(from, |k| from + k + 1);
        let joined = |c: u8| !c.is_ascii() || ascii_word_byte(c);
        if s > 0 && s == from && b[s - 1] != b'\n' {
            while s < end && joined(b[s]) && joined(b[s - 1]) {
                s += 1;
            }
        }
        while !text.is_char_boundary(s) {
            s += 1;
        }
        s..end
    };
    let own = words_from(line_start(text, start, 40), start);
    if !text[own.clone()].trim().is_empty() {
        return own;
    }
    let mut end = own.start;
    let mut fence = false;
    for _ in 0..4 {
        if end == 0 || b[end - 1] != b'\n' {
            break;
        }
        let line_end = end - 1;
        let line_start = line_start(text, line_end, 120);
        let line = text[line_start..line_end].trim();
        // Past blank lines, and the value's fence's opening line.
        if line.is_empty() || (line.starts_with("```") && !fence) {
            fence |= !line.is_empty();
            end = line_start;
            continue;
        }
        // (`**Input:**`, `### Output`, `**Output**`: markdown around it.)
        if line.trim_end_matches(['*', '_']).ends_with(':')
            || line.starts_with('#')
            || (line.len() > 4 && line.starts_with("**") && line.ends_with("**"))
        {
            return words_from(line_start, line_end);
        }
        break;
    }
    start..start
}

/// What the label `text[label]` says of its value: `(pairs, false)` where
/// it names it as no answer, `(pairs, true)` where it names it as the
/// answer, `pairs` the bits of the [`PAIRS`] it is of. A label is a name
/// and nothing else: one or two words of one side (past the words that
/// only point, `Here is the answer:`), `Input:`, `Final answer:` (of every
/// pair its words are of), or an example or an earlier form of the other
/// side (`Example output:`, `Old answer:`, no answer); `Before noon:`, `Tool output:`, `The expected
/// output would be:` are none. `None` where it is no such label.
pub(crate) fn label_says(text: &str, label: Range<usize>) -> Option<(u8, bool)> {
    let (mut no, mut yes, mut count, mut example) = (0u8, 0u8, 0, false);
    for (w, _) in words(&text[label]) {
        // (`Example 2:` numbers an example.)
        if is_any(w, POINTING) || w.bytes().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let (of, says) = key_word(w)?;
        match says {
            true => yes |= of,
            false => no |= of,
        }
        example |= is_any(w, &["example", "old", "draft", "original", "previous"]);
        count += 1;
    }
    if count > 2 {
        return None;
    }
    match (no, yes) {
        (0, 0) => None,
        // `Final answer:` names the answer in place of a draft, and of an
        // example.
        (0, yes) => Some((yes, true)),
        (no, 0) => Some((no, false)),
        // `Example output:`, `Old answer:`: an example of what the other
        // word names, or an earlier one.
        (no, yes) if example => Some((no | yes, false)),
        _ => None,
    }
}

/// Whether the value at `first` names itself no answer and the one at
/// `next` names that one the answer, of the same pair (`Input: {…}⏎Output:
/// {…}`; see [`label`] and [`label_says`]).
pub(crate) fn labelled_pair(text: &str, first: usize, next: usize) -> bool {
    let Some((a, false)) = label_says(text, label(text, first)) else {
        return false;
    };
    label_says(text, label(text, next)).is_some_and(|(b, yes)| yes && a & b != 0)
}

/// The pairs `w` is a word of ([`PAIRS`], as bits), and its side.
fn key_word(w: &str) -> Option<(u8, bool)> {
    let (mut no, mut yes) = (0u8, 0u8);
    for (i, (a, b)) in PAIRS.iter().enumerate() {
        no |= u8::from(is_any(w, a)) << i;
        yes |= u8::from(is_any(w, b)) << i;
    }
    match (no, yes) {
        (0, 0) => None,
        (n, 0) => Some((n, false)),
        (0, y) => Some((y, true)),
        _ => None,
    }
}

/// Where the first word in `text[span]` that may label a value as the
/// answer (see [`label_says`]) starts.
pub(crate) fn names_answer(text: &str, span: Range<usize>) -> Option<usize> {
    words(&text[span.clone()])
        .find(|(w, _)| key_word(w).is_some_and(|(_, yes)| yes))
        .map(|(_, r)| span.start + r.start)
}

/// Words of a label that only point at its value (see [`label_says`]).
const POINTING: &[&str] = &[
    "the", "a", "an", "here", "is", "are", "s", "my", "your", "this", "json",
];

/// The labels that name a value no answer, each with those that name the
/// one after it the answer in its place: an input and its output, before
/// and after, a first form and its revision, an example and the answer.
/// (A schema, a sample or a draft before a `Response:` may be the answer
/// itself: a schema asked for, a tool call before its result. `Bad:` and
/// `Good:` are none: lists of each kind, or the bad one asked for as test
/// data.)
const PAIRS: [(&[&str], &[&str]); 4] = [
    (&["input"], &["output"]),
    (&["before"], &["after"]),
    (
        &["original", "draft", "old", "previous"],
        &["updated", "fixed", "corrected", "revised", "final", "new"],
    ),
    (&["example"], &["answer", "solution", "final"]),
];

/// Where a look for [`retractions`] in text that grows resumes, once it
/// looked at `text[..end]`: at the third word from the end (the last may
/// be cut, and the two before it say what it means), each word walked back
/// over 24 bytes at most (no word it looks for is longer: a long run of
/// letters is not read again on every push), at `from` at the earliest.
pub(crate) fn resume_at(text: &str, from: usize, end: usize) -> usize {
    let b = text.as_bytes();
    let joined = |c: u8| !c.is_ascii() || ascii_word_byte(c);
    let mut at = end;
    for _ in 0..3 {
        while at > from && !joined(b[at - 1]) {
            at -= 1;
        }
        let word_end = at;
        while at > from && joined(b[at - 1]) && word_end - at < 24 {
            at -= 1;
        }
    }
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Whether the clause around the word at `span` negates it, makes it a
/// condition or asks it (see [`retractions`]), read within 160 bytes each
/// side.
fn qualified(text: &str, span: &Range<usize>) -> bool {
    const ENDS: [char; 6] = ['.', ';', ':', '!', '?', '\n'];
    let mut from = span.start.saturating_sub(160);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let mut to = (span.end + 160).min(text.len());
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    let before = &text[from..span.start];
    let clause = before.rfind(ENDS).map_or(0, |k| k + 1);
    let end = text[span.end..to].find(ENDS).map(|k| span.end + k);
    negated(&text[from..to], span.start - from)
        || words(&before[clause..]).any(|(w, _)| {
            ["if", "unless", "whether"]
                .iter()
                .any(|c| w.eq_ignore_ascii_case(c))
        })
        || end.is_some_and(|e| text[e..].starts_with('?'))
}

/// The words that name a value as what the reply gives (`Final answer`,
/// `Corrected JSON`), after a word that says which one it is.
const NAMED: &[&str] = &[
    "answer", "json", "result", "output", "response", "solution", "version", "list", "object",
    "value", "array",
];

/// Words that alone say the value before was wrong.
const RETRACTING: &[&str] = &[
    "mistake",
    "mistakes",
    "mistaken",
    "typo",
    "typos",
    "oops",
    "whoops",
    "wrong",
    "incorrect",
    "incorrectly",
    "erroneous",
    "disregard",
    "apologies",
    "apologize",
    "apologise",
    // `Sorry, I messed up.`
    "messed",
    "screwed",
];

/// The words of a sentence that only presents the value after it, read
/// after one that takes the value before back (see
/// [`introduces_correction`]): `Here it is:`, `Try this:`, `Here is the
/// JSON again:`, `It should be:`. (No word that names another thing the
/// value might be: `Here is your input:`, `The schema:`.)
const PRESENTING: &[&str] = &[
    "here",
    "is",
    "it",
    "s",
    "again",
    "the",
    "this",
    "try",
    "let",
    "me",
    "fix",
    "you",
    "go",
    "one",
    "json",
    "answer",
    "output",
    "result",
    "value",
    "object",
    "should",
    "be",
    "now",
    "use",
    "final",
    "real",
    "actual",
    "proper",
    "valid",
    "new",
    "instead",
    "right",
    "correct",
    "corrected",
    "fixed",
    "updated",
    "revised",
    "i",
    "meant",
    "what",
    "redo",
    "retry",
    "take",
    "two",
    "attempt",
    "properly",
    "my",
    "formatted",
    "please",
    "asked",
    "for",
    // `Here is the full JSON:`, after words that say a part was left out.
    "full",
    "complete",
    "whole",
    "entire",
];

/// Words that introduce a value as the correction of one before.
const CORRECTING: &[&str] = &[
    "corrected",
    "correct",
    "correction",
    "fixed",
    "revised",
    "updated",
    "amended",
    "right",
    "redo",
    "meant",
    "instead",
];

/// `true`/`false` and `yes`/`no`, in any case, as whole words.
fn bools(prose: &str) -> Vec<(Found, Range<usize>)> {
    words(prose)
        .filter_map(|(w, span)| {
            let b = match w.to_ascii_lowercase().as_str() {
                "true" | "yes" => true,
                "false" | "no" => false,
                _ => return None,
            };
            Some((unless_negated(prose, &span, Value::Bool(b)), span))
        })
        .collect()
}

/// `value` found at `span`, unless the words before it in its clause negate
/// it.
fn unless_negated(prose: &str, span: &Range<usize>, value: Value) -> Found {
    match negated(prose, span.start) {
        true => Found::Negated,
        false => Found::Value(value),
    }
}

/// Whether one of the three words before `at` in its clause (no `,`, `;`,
/// `.`, `:`, `!`, `?`, bracket or `but` between) negates what stands at
/// `at`: `not`, `never`, `no`, `nor`, `neither`, `cannot`, or a word
/// ending in `n't` (`Not true.`, `Definitely not A`, `isn't B`).
fn negated(prose: &str, at: usize) -> bool {
    let clause = &prose[..at];
    let from = clause
        .rfind([',', ';', '.', ':', '!', '?', '(', ')', '\n'])
        .map_or(0, |i| i + 1);
    let before: Vec<String> = clause[from..]
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
                .to_lowercase()
                .replace('\u{2019}', "'")
        })
        .collect();
    let clause = match before.iter().rposition(|w| w == "but") {
        Some(i) => &before[i + 1..],
        None => &before[..],
    };
    clause.iter().rev().take(3).any(|w| {
        matches!(
            w.as_str(),
            "not" | "never" | "no" | "nor" | "neither" | "cannot"
        ) || w.ends_with("n't")
    })
}

/// Variant names written as whole words: a one-letter name (`A`, `B`) only
/// as written, since `a` is a word; a longer one also in another case or
/// style (`negative`, `not-sure` for `NotSure`).
fn variant_words(prose: &str, variants: &'static [&'static str]) -> Vec<(Found, Range<usize>)> {
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
            let value = Value::String((*hit.0).to_owned());
            Some((unless_negated(prose, &span, value), span))
        })
        .collect()
}

/// The numbers written in `prose`: `42`, `-7`, `4.5`, `1,234,567.89` (digit
/// groups of three), not parts of words or codes (`GPT-4`, `v2`, `ES2020`),
/// dates, times or ratios (`2024-01-05`, `10:30`, `3/4`). A sentence's final
/// period is not part of a number.
fn numbers(prose: &str) -> Vec<(Found, Range<usize>)> {
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
            let bound = bound_at(&prose[..start]);
            let found = match scale_after(b, end) {
                _ if bound < start => Some((Found::Unread("a bound"), bound..end)),
                // `10+ years`.
                _ if after == Some(b'+') && !next.is_some_and(|n| n.is_ascii_alphanumeric()) => {
                    Some((Found::Unread("a bound"), start..end + 1))
                }
                Scale::Word(zeros, word_end) => {
                    number_value(&written, zeros).map(|v| (Found::Value(v), start..word_end))
                }
                Scale::Unread(word_end) => Some((
                    Found::Unread("a fraction, or a scale word not complete"),
                    start..word_end,
                )),
                Scale::None => number_value(&written, 0).map(|v| (Found::Value(v), start..end)),
            };
            out.extend(found);
        }
        i = end.max(i + 1);
    }
    out
}

/// The phrases that make the number after them a bound, not a value.
const BOUNDS: [&str; 16] = [
    "less than",
    "fewer than",
    "more than",
    "greater than",
    "over",
    "under",
    "above",
    "below",
    "at least",
    "at most",
    "up to",
    "upto",
    "<",
    ">",
    "\u{2264}",
    "\u{2265}",
];

/// Where the bound phrase (`at least`, `<`) that `before`, the prose before
/// a number, ends with starts: the number is then a bound, not the value.
/// `before.len()` when there is none.
fn bound_at(before: &str) -> usize {
    let trimmed = before.trim_end_matches([' ', '\t', '=']);
    let lower = trimmed.to_ascii_lowercase();
    BOUNDS
        .iter()
        .find(|b| {
            lower.ends_with(*b)
                && (!b.as_bytes()[0].is_ascii_alphabetic()
                    || lower.len() == b.len()
                    || !lower.as_bytes()[lower.len() - b.len() - 1].is_ascii_alphanumeric())
        })
        .map_or(before.len(), |b| trimmed.len() - b.len())
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

    fn shown(found: Vec<(Found, Range<usize>)>) -> Vec<String> {
        found
            .into_iter()
            .map(|(f, _)| match f {
                Found::Value(v) => v.to_string(),
                Found::Negated => "negated".into(),
                Found::Unread(_) => "unread".into(),
            })
            .collect()
    }

    fn nums(s: &str) -> Vec<String> {
        shown(numbers(s))
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
        assert_eq!(nums("3.5 mil"), ["unread"]);
        assert_eq!(nums("5 hundred"), ["500"]);
        assert_eq!(nums("3.5 mi"), ["3.5"]);
        assert_eq!(nums("3.5 miles"), ["3.5"]);
        assert_eq!(nums("3.5 millimeters"), ["3.5"]);
        assert_eq!(nums("4 thousandths"), ["unread"]);
        assert_eq!(nums("4 thousandt"), ["unread"]);
        assert_eq!(nums("4 thousandth of"), ["unread"]);
        assert_eq!(nums("5million"), Vec::<String>::new());
    }

    #[test]
    fn bounds() {
        assert_eq!(nums("at least 3 items"), ["unread"]);
        assert_eq!(nums("Less than 5."), ["unread"]);
        assert_eq!(nums("x <= 4"), ["unread"]);
        assert_eq!(nums("over 100, roughly 120"), ["unread", "120"]);
        assert_eq!(nums("10+ years"), ["unread"]);
        assert_eq!(nums("1+1"), ["1", "1"]);
        assert_eq!(nums("Moreover 3"), ["3"]);
        assert_eq!(nums("about 7"), ["7"]);
    }

    #[test]
    fn variants_in_prose() {
        const V: &[&str] = &["A", "B", "NotSure"];
        let found = shown(variant_words(
            "The answer is **B**, not a guess; not-sure",
            V,
        ));
        assert_eq!(found, ["\"B\"", "\"NotSure\""]);
        let found = shown(variant_words("Not B, but A. Definitely not A. N/A, A/B", V));
        assert_eq!(found, ["negated", "\"A\"", "negated"]);
    }

    #[test]
    fn bools_in_prose() {
        assert_eq!(
            shown(bools("False. The statement is false.")),
            ["false", "false"]
        );
        assert_eq!(shown(bools("That isn't true; yes/no")), ["negated"]);
        assert_eq!(shown(bools("No, it is true.")), ["false", "true"]);
    }
}
