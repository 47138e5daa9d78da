//! What the decoder did to the text: which candidate it took and every repair.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use serde::Serialize;

use crate::text::{floor_char_boundary, line_column, snippet, Utf8Text};

/// How the decoded value was found in the reply.
///
/// **Prose is not a value.** A reply with no JSON in it (a refusal, an intro
/// whose JSON has not arrived yet) is [`ErrorKind::NoJson`](crate::ErrorKind::NoJson),
/// whose message and [`feedback`](crate::Error::feedback) say what was looked
/// for: a sentence is never returned as a JSON string, nor a stray `{` in it
/// taken for an object. Only a scalar target reads prose ([`Prose`](Self::Prose)).
///
/// The reply is searched in this order:
///
/// 1. the whole reply (after a UTF-8 BOM, leading `<think>…</think>`
///    reasoning blocks (also `<thinking>`, `<reasoning>`, and gpt-oss's
///    `<|channel|>analysis<|message|>…<|end|>`) — a block left open at the
///    start loses only its tag,
///    and a reply whose first reasoning tag is a closing `</think>` starts
///    after it — and special-token markers such as `[TOOL_CALLS]` or
///    `<|python_tag|>`); nothing inside a reasoning block later in the reply
///    is a candidate (a tag named in prose, `` `<think>` `` or `<think>
///    tags`, opens none);
/// 2. each fenced block (```` ```json ````, ```` ```JSON ````, bare
///    ```` ``` ````, one left open at the end); a closed fence bounds its
///    value, but fence markers inside a JSON string are content;
/// 3. each `<json>…</json>` tag;
/// 4. each balanced `{…}` or `[…]` in the prose, found by one string-aware
///    scan, so a stray `{` in a sentence hides nothing after it (citations
///    `[2]`, markdown link labels, `[x]` task boxes and `%{name}`
///    placeholders are not values for an untyped target);
/// 5. a `{` or `[` that never closes (a reply cut off): the outermost, and
///    the first one that starts like JSON.
///
/// A candidate that decodes with no repair wins at once (a clean reply costs
/// one pass). Otherwise the likeliest reading wins, by one rule: a reading
/// that built structure out of prose (a sentence as a key, a stray `{`
/// swallowing what follows) loses to any that did not, whatever the other's
/// repairs weigh; then a fenced or tagged value beats a span found in prose;
/// then fewer and lighter repairs win; ties go to the earlier. No count of
/// candidates is capped: the work stays linear in the reply's length.
///
/// A value the reply takes back gives way to the next value of its shape
/// when the prose introduces that one as its correction (`{…} Wait, I made a
/// mistake. Here is the corrected version: {…}`, `Wrong: {…}⏎Correct: {…}`,
/// `Wait, no. {…}`, `Scratch that. {…}`, `Oops, I used the wrong key. Here
/// it is: {…}`, `So the final answer is: {…}`, `Wait, that's not right —
/// 9 isn't prime. {…}`, `Oops, forgot one! Here it is: {…}`, a label right
/// before it, `Corrected:`, `Fixed JSON:`, `Here is the correct one:`; not
/// `Fixed:` alone). A correction that gives only some of the members it
/// had, each with another value (`Oops, typo. It should be: {"city":
/// "Paris"}`), takes both values back: a whole value after them is the
/// answer, else the decode is a [`NoJson`](crate::ErrorKind::NoJson) error.
/// After words that only say something was left out (`Oops, I forgot a
/// field. Here it is:`), a value with no more members than the first is no
/// correction: the first stands. So does a value its label names no answer (`Input:`,
/// `Example:`, `Example output:`, `Draft:`) when a later one's label names
/// that the answer (`Output:`, `Here is the answer:`, `Final answer:`),
/// past other values labelled no answer; so does any value before a later
/// one of its shape labelled the final answer (`Final Answer: {…}` after an
/// agent's steps); and an empty value an instruction names (`Return [] if
/// none.`) when the next one's label, right after that sentence, names it
/// the answer (`Result:`). It is tried last, alone: only when nothing after
/// it decodes. Such words on a line that reads as a comment between two
/// values (`{…}⏎## Final answer⏎{…}`, `# Oops, typo`) are prose: the two
/// are no JSON lines. A value the sentence right after it takes back
/// with no value after (`{…}⏎Oops, my mistake.`, `Wait, no, that is
/// wrong.`) is no answer: the decode is a [`NoJson`](crate::ErrorKind::NoJson)
/// error saying so.
///
/// The target type steers the search: a struct or map prefers objects, a
/// sequence prefers arrays and gathers several objects (in prose, in fences,
/// in tags, or as NDJSON lines) in order (one in prose that is no element is
/// left out, as a `Skipped` repair, as is one in a fence with prose around
/// it; in NDJSON, objects and nothing else, or in a fence per value with
/// nothing but markers between, it is an error, as in `[…]`); a struct
/// takes the first that
/// decodes cleanly, else the likeliest. When nothing decodes, the error comes
/// from the most promising candidate: one of the right shape, then the one
/// that got furthest. [`Decoder::candidates`](crate::Decoder::candidates)
/// lists every place looked at, and [`Decoder::strategy`](crate::Decoder::strategy)
/// turns one off.
///
/// **Scalar targets read short prose the way a person does.** A `String`
/// takes a JSON string if the reply is one (whole or fenced), else the whole
/// reply with reasoning removed and trimmed — never a fragment up to a comma.
/// A `bool`, number or unit enum takes the one plausible value of its type
/// in a short reply (`The answer is **B**.`, `Verdict: false — the claim…`,
/// `ANSWER: 42.`); two different values (`between 3 and 5`) are an
/// ambiguity error naming both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Strategy {
    /// The whole reply (after a BOM and reasoning blocks) was the value.
    Whole,
    /// A markdown code fence (```` ```json ````, ```` ``` ````, or one left open at the end).
    Fence,
    /// A `<json>…</json>` tag.
    Tag,
    /// A balanced `{…}` or `[…]` span found in prose.
    Balanced,
    /// A `{` or `[` in prose that never closes (the reply was cut off).
    Trailing,
    /// Several values (fences, objects in prose, NDJSON lines) gathered into one
    /// sequence because the target type is a sequence.
    Gathered,
    /// A scalar read out of short prose: a `String` target took the whole
    /// reply, a bool, number or unit enum the one value of its type the prose
    /// holds (`The answer is **B**.`). The span is what was read.
    Prose,
}

impl Strategy {
    /// The strategy's name as the [`Report`] serializes it: `"fence"`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Strategy::Whole => "whole",
            Strategy::Fence => "fence",
            Strategy::Tag => "tag",
            Strategy::Balanced => "balanced",
            Strategy::Trailing => "trailing",
            Strategy::Gathered => "gathered",
            Strategy::Prose => "prose",
        }
    }
}

/// One thing the scanner changed to make the text a value, as the engine
/// records it. A [`Report`] lists these as runs: [`listed::Repair`], which
/// the crate exports as `serde_llm::Repair`. (Two types of one name so that
/// the engine's `Repair { kind, offset }` stays as it is written; inside
/// the crate, `Repair` is this one.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Repair {
    /// What was repaired.
    pub kind: RepairKind,
    /// Byte offset in the caller's text where the repair applies.
    pub offset: usize,
}

/// The repair as a report lists it.
pub(crate) mod listed {
    use serde::Serialize;

    use super::RepairKind;

    /// One repair the decoder made, or a run of the same repair at evenly
    /// spaced places: `count` repairs of `kind`, the first at `offset`, each
    /// next one `step` bytes after the one before (`step` is 0 when they are
    /// all at one place, as the closers of the containers left open at the
    /// end are, and when `count` is 1).
    ///
    /// A [`Report`](crate::Report) lists each run once, so a reply that
    /// needed a repair at every byte (`{{{{…`, one `{` skipped at each)
    /// gives a report of a few entries, not one per byte.
    /// [`Report::fixes`](crate::Report::fixes) and
    /// [`Report::counts`](crate::Report::counts) count every repair.
    ///
    /// ```
    /// use serde_llm::{Decoder, RepairKind};
    ///
    /// let (json, report) = Decoder::new().repair_with_report("[[[[1")?;
    /// assert_eq!(json, "[[[[1]]]]");
    /// let closers = &report.repairs[0];
    /// assert_eq!(closers.kind, RepairKind::MissingCloser);
    /// assert_eq!((closers.offset, closers.count, closers.step), (5, 4, 0));
    /// assert_eq!(closers.offsets().collect::<Vec<_>>(), [5, 5, 5, 5]);
    /// assert_eq!(report.fixes(), 4);
    /// # Ok::<(), serde_llm::Error>(())
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[non_exhaustive]
    pub struct Repair {
        /// What was repaired.
        pub kind: RepairKind,
        /// Byte offset in the caller's text where the (first) repair applies.
        pub offset: usize,
        /// How many repairs of this kind the entry stands for: 1, or the
        /// length of a run.
        pub count: usize,
        /// Bytes from one repair of the run to the next (0 for a run at one
        /// place, and for a single repair: then left out of the serialized
        /// report).
        #[serde(skip_serializing_if = "is_zero")]
        pub step: usize,
    }

    #[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
    fn is_zero(n: &usize) -> bool {
        *n == 0
    }

    impl Repair {
        /// One repair.
        pub(crate) fn one(kind: RepairKind, offset: usize) -> Repair {
            Repair {
                kind,
                offset,
                count: 1,
                step: 0,
            }
        }

        /// The offset of each repair of the entry, in order.
        pub fn offsets(&self) -> impl Iterator<Item = usize> {
            let (offset, step) = (self.offset, self.step);
            (0..self.count).map(move |i| offset + i * step)
        }

        /// The offset of the entry's last repair.
        pub fn last_offset(&self) -> usize {
            self.offset + self.count.saturating_sub(1) * self.step
        }

        /// Takes `next` into the run, if it continues it: the same kind,
        /// at the next place (a second repair sets the step). `next` may be
        /// a run itself.
        pub(crate) fn take(&mut self, next: Repair) -> bool {
            if next.kind != self.kind || next.count == 0 {
                return false;
            }
            let Some(gap) = next.offset.checked_sub(self.last_offset()) else {
                return false;
            };
            let step = if self.count == 1 { gap } else { self.step };
            if gap != step || (next.count > 1 && next.step != step) {
                return false;
            }
            self.step = step;
            self.count += next.count;
            true
        }
    }

    impl From<super::Repair> for Repair {
        fn from(r: super::Repair) -> Repair {
            Repair::one(r.kind, r.offset)
        }
    }
}

/// The kinds of repair the scanner makes. Each is recorded with its offset.
///
/// What models write, and what it becomes:
///
/// | kind of mistake | examples |
/// | --- | --- |
/// | commas and colons | trailing `[1, 2,]`, leading `[,1]`, doubled, missing `{"a": 1 "b": 2}`, missing colon `{"a" 1}` |
/// | quotes | `'single'`, `“curly”`, `‘curly’`, `` `backticks` ``, unquoted keys `{name: 1}`, unquoted values `{city: New York}` (one runs on across a comma or line end that no key follows: `{name: Smith, John, age: 3}`), missing opening or closing quote, `""doubled""`, `"""triple-quoted"""` and ```` ```python ```` code blocks as values (one string: the lines, without the block's layout) |
/// | inner quotes | `"a "quoted" word"`: a quote ends a string only where what follows fits, so it is kept inside otherwise |
/// | comments | `//`, `/* */`, `# ` |
/// | between tokens | non-ASCII spaces, NUL and other control characters, chat-template tokens (`<\|python_tag\|>`), full-width `：` and `，` |
/// | literals | `True`, `False`, `None`, `TRUE`, `Null`, `undefined`, `NaN`, `Infinity` (`NaN`/`Infinity` reach an `f64` field as such; in JSON text they are `null`) |
/// | strings | raw newlines and control characters, invalid escapes (`\'` → `'`; `\d` keeps its backslash), lone surrogates → U+FFFD, `"a" + "b"` |
/// | numbers | `+1`, `.5`, `1.`, `1e`, `1_000`, digit groups as a member's value `{"total": 4,250}` → `4250` (in an array `[4,250]` is two numbers); `0789`, `1/3`, `10-20`, `4,25`, `5 kg`, UUIDs and dates become strings, never a number cut short |
/// | structure | `...` placeholders (one between array elements only for `repair()`: see [`Elision`](RepairKind::Elision)), a closer of the wrong kind, stray closers, an object closed too early, `["k": v]`, `{"a", "b"}` (a set), `(1, 2)` tuples, `callback(...)` and `ObjectId("…")` wrappers, `{\"escaped\": \"json\"}`, code fence markers inside the value |
/// | several values | `{…}{…}`, NDJSON, `1\n2`: gathered into an array (for an untyped target; empty values beside real ones are left out) |
/// | JSON5 | hexadecimal integers `0x1F`, `+Infinity`, `-NaN`, `5.e3`, line continuations (a backslash before a line end in a string), `\x41`, `\0` and `\v` escapes |
/// | end of input | open strings and containers closed (a cut string keeps every character: it is never split at a comma into invented elements), a dangling key, comma or colon dropped, a cut literal finished (`tru` → `true`), a cut escape dropped |
///
/// Each kind can be allowed or denied on its own
/// ([`Decoder::allow`](crate::Decoder::allow), [`Decoder::deny`](crate::Decoder::deny),
/// [`Decoder::strict`](crate::Decoder::strict)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RepairKind {
    /// A comma before a closing `}` or `]` was dropped.
    TrailingComma,
    /// A leading or doubled comma was dropped.
    ExtraComma,
    /// A missing comma between two members or elements was inserted.
    MissingComma,
    /// A missing colon between a key and its value was inserted (or one
    /// written as `=` or `=>` read as it).
    MissingColon,
    /// A key with a colon but no value got `null`.
    MissingValue,
    /// A key with no colon and no value was dropped.
    DanglingKey,
    /// A string in single, curly or backtick quotes was re-quoted, or one
    /// with a Python prefix (`u'Ada'`, `b"x"`, a raw `r"C:\new"` read as
    /// written) lost it.
    Quotes,
    /// An object key without quotes was quoted.
    UnquotedKey,
    /// A value without quotes (a word, a URL, a sentence) was taken as a string.
    UnquotedString,
    /// A `//`, `/* */` or `#` comment was removed.
    Comment,
    /// `True`, `False`, `None`, `undefined` (or another spelling of a literal) was
    /// read as the JSON literal.
    Literal,
    /// `NaN` or `Infinity`, which JSON cannot spell, was read as a number (it
    /// becomes `null` in JSON text).
    NonFiniteNumber,
    /// A raw newline, tab or other control character inside a string was kept
    /// as an escaped character.
    ControlCharacter,
    /// A quote inside a string that does not end it (judged by what follows)
    /// was escaped.
    InnerQuote,
    /// A string's closing quote was missing; the string was ended at a delimiter.
    MissingQuote,
    /// An invalid escape such as `\a` or `\'` was replaced by its character.
    InvalidEscape,
    /// A lone UTF-16 surrogate escape was replaced by U+FFFD.
    LoneSurrogate,
    /// A number in a non-JSON spelling (`+1`, `.5`, `1.`, `1_000`, `1e`) was
    /// normalised.
    NumberFormat,
    /// A number written with digit groups (`4,250`, `1,234,567.89`) as an
    /// object member's value, where the comma cannot end the value (no key
    /// follows it), was read as one number: `4250`.
    DigitGroups,
    /// A token that starts like a number but is not one (`1/3`, `0789`, a UUID, a
    /// date) was taken as a string.
    NumberAsString,
    /// `"a" + "b"` was joined into one string.
    Concatenation,
    /// A `...` placeholder was removed.
    Ellipsis,
    /// An open string, object or array was closed at the end of the input.
    MissingCloser,
    /// A closing bracket that closes nothing was dropped.
    StrayCloser,
    /// A closing bracket of the wrong kind was taken to close the open containers.
    MismatchedCloser,
    /// A number or literal was cut off at the end of the input and completed
    /// or dropped.
    TruncatedValue,
    /// Text after the value (prose, stray punctuation, a fence) was ignored.
    TrailingText,
    /// Text that could not be part of the value was skipped.
    Skipped,
    /// A non-ASCII space (NBSP, zero-width space, …) or a control character
    /// (NUL, …) between tokens was skipped.
    SpecialWhitespace,
    /// JSON written with escaped quotes (`{\"a\": 1}`) was unescaped.
    EscapedJson,
    /// A wrapper call (`callback(...)`, `ObjectId("...")`, `(...)`) was removed.
    Wrapper,
    /// A parenthesised tuple `(1, 2)` was read as an array.
    Tuple,
    /// `{"a", "b"}` (a set literal) was read as an array.
    SetLiteral,
    /// `"key": value` inside an array was read as an object.
    ImplicitObject,
    /// A string written with doubled quotes (`""text""`) was unquoted once.
    DoubledQuotes,
    /// A stray code fence marker (```` ```json ````) inside the value was skipped.
    CodeFence,
    /// A `/regex/` literal was taken as a string.
    Regex,
    /// An object closed too early (`{"a": 1}, "b": 2}`) was reopened.
    Reopened,
    /// A scalar target was given prose, and its value was read out of it
    /// (see [`Strategy::Prose`]).
    ValueInProse,
    /// An invalid UTF-8 sequence was replaced by U+FFFD (with
    /// [`Decoder::lossy`](crate::Decoder::lossy)).
    InvalidUtf8,
    /// Several top-level values were gathered into one array.
    MultipleValues,
    /// A value written as a triple-quoted string (`"""…"""`) or a fenced code
    /// block (```` ```python … ``` ````) was taken as one string: its lines,
    /// without the layout around them (the info string, the line breaks
    /// after the opening marker and before the closing one, the first line's
    /// indentation).
    CodeBlock,
    /// A chat-template special token (`<|python_tag|>`, `<|eot_id|>`)
    /// between tokens was skipped.
    SpecialToken,
    /// A full-width colon or comma (`：`, `，`) between tokens was read as
    /// `:` or `,`.
    FullWidthPunctuation,
    /// A JSON5 hexadecimal integer (`0x1F90`, `-0xFF`) was written in decimal.
    HexNumber,
    /// A JSON5 line continuation (a backslash before a line end inside a
    /// string) was removed with its line end.
    LineContinuation,
    /// A JSON5 escape that JSON does not have (`\x41`, `\0`, `\v`) was
    /// replaced by its character.
    Json5Escape,
    /// A `...` that stands for array elements left out between others
    /// (`[2, 3, 5, ..., 29]`) was removed. [`repair`](crate::repair) makes it
    /// (wherever [`Ellipsis`](Self::Ellipsis) is allowed), as json_repair
    /// does; a typed decode does not unless it is allowed
    /// ([`Decoder::allow`](crate::Decoder::allow)): the list the reply means
    /// is not written out, so it is a [`Data`](crate::ErrorKind::Data)
    /// error there. (A `...` at a list's end, `[1, 2, ...]`, is an
    /// [`Ellipsis`](Self::Ellipsis): what is written is all correct, as in a
    /// list cut off.)
    Elision,
}

impl RepairKind {
    /// What is wrong with the text that this repair fixes, as a phrase for
    /// error messages and model feedback: `"a trailing comma"`.
    pub fn problem(self) -> &'static str {
        use RepairKind::*;
        match self {
            TrailingComma => "a trailing comma",
            ExtraComma => "an extra comma",
            MissingComma => "a missing comma",
            MissingColon => "a missing colon after a key",
            MissingValue => "a key with no value",
            DanglingKey => "a key with no colon and no value",
            Quotes => "a string not in double quotes",
            UnquotedKey => "a key without quotes",
            UnquotedString => "a string without quotes",
            Comment => "a comment",
            Literal => "a literal JSON does not have (True, None, undefined, ...)",
            NonFiniteNumber => "NaN or Infinity, which JSON cannot spell",
            ControlCharacter => "a raw control character (such as a newline) inside a string",
            InnerQuote => "an unescaped double quote inside a string",
            MissingQuote => "a string with no closing quote",
            InvalidEscape => "an invalid escape sequence",
            LoneSurrogate => "a lone UTF-16 surrogate escape",
            NumberFormat => "a number JSON does not allow (+1, .5, 1., 1_000)",
            DigitGroups => "a number written with digit groups (4,250)",
            NumberAsString => "a bare token that is not a number",
            Concatenation => "strings joined with +",
            Ellipsis => "a ... placeholder",
            MissingCloser => "an unclosed string, object or array (the text ends too early)",
            StrayCloser => "a closing bracket that closes nothing",
            MismatchedCloser => "a closing bracket of the wrong kind",
            TruncatedValue => "a number or literal cut off at the end",
            TrailingText => "text after the value",
            Skipped => "text that is not JSON",
            SpecialWhitespace => "a non-ASCII space or a control character between tokens",
            EscapedJson => "JSON written with escaped quotes",
            Wrapper => "a wrapper call around the value",
            Tuple => "a parenthesised tuple",
            SetLiteral => "a set literal {\"a\", \"b\"}",
            ImplicitObject => "a key-value pair inside an array",
            DoubledQuotes => "a string in doubled quotes",
            CodeFence => "a code fence marker inside the value",
            Regex => "a /regex/ literal",
            Reopened => "an object closed too early",
            ValueInProse => "a sentence where a bare value is wanted",
            InvalidUtf8 => "bytes that are not UTF-8",
            MultipleValues => "several values where one was expected",
            FullWidthPunctuation => "a full-width colon or comma (： ，)",
            CodeBlock => "a triple-quoted string or a code block as a value",
            SpecialToken => "a chat-template special token (<|python_tag|>)",
            HexNumber => "a hexadecimal number (0x1F)",
            LineContinuation => "a backslash before a line end inside a string",
            Json5Escape => "an escape JSON does not have (\\x41, \\0)",
            Elision => "a ... standing for elements left out between others",
        }
    }

    /// How much this repair bends the text, used to rank candidate spans: a
    /// candidate with a lower total wins. The spellings of JSON5 and Python
    /// literals (single quotes, bare keys, comments, trailing commas,
    /// `True`, `NaN`, `0x1F`, `+1`) bend nothing: a model that writes its
    /// value in that dialect meant it as written, and it does not give way
    /// to a later value in plain JSON (`{name: 'x'}`, then `use {"n": 2}`
    /// in a note). Truncation and cosmetic fixes are light; guesses about
    /// where a string ends, or text taken as a string without quotes, are
    /// heavy. (Internal: the numbers may change.)
    pub(crate) fn weight(self) -> u32 {
        use RepairKind::*;
        match self {
            TrailingComma | Comment | Quotes | UnquotedKey | Literal | NonFiniteNumber
            | NumberFormat | HexNumber | LineContinuation | Json5Escape => 0,
            ExtraComma | SpecialWhitespace | FullWidthPunctuation | SpecialToken | Ellipsis
            | ControlCharacter | MissingCloser | TruncatedValue | TrailingText | InvalidUtf8
            | Elision => 1,
            MissingComma | MissingColon | MissingValue | DanglingKey | InvalidEscape
            | LoneSurrogate | DigitGroups | Concatenation | EscapedJson | Wrapper | Tuple
            | Regex | DoubledQuotes | CodeFence | SetLiteral | CodeBlock => 2,
            InnerQuote | MissingQuote | StrayCloser | MismatchedCloser | Reopened
            | ImplicitObject | MultipleValues => 3,
            UnquotedString | NumberAsString | Skipped | ValueInProse => 4,
        }
    }
}

/// One value taken as the type wanted it rather than as it was written (see
/// [`CoercionKind`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Coercion {
    /// What was coerced.
    pub kind: CoercionKind,
    /// The JSON path of the value (of the key, for
    /// [`CoercionKind::FieldName`]), as written in the reply: `$.items[2].score`.
    pub path: String,
    /// Byte offset of the value (or key) in the caller's text.
    pub offset: usize,
    /// The value as written, as JSON text: `"1,234"`.
    pub written: String,
    /// The value as used, as JSON text: `1234`.
    pub used: String,
}

/// The kinds of type coercion: where the target type wants one kind of value
/// and the reply wrote another that plainly means it. Each is recorded in the
/// [`Report`] and can be allowed or denied on its own
/// ([`Decoder::allow`](crate::Decoder::allow), [`Decoder::deny`](crate::Decoder::deny)).
///
/// | wanted | written | used |
/// | --- | --- | --- |
/// | a number | `"42"`, `" 42 "`, `"4.5e3"`, `"-7"`, `"1,234"` | `42`, `42`, `4500`, `-7`, `1234` (a string that is not a number is an error, never 0) |
/// | an integer | `42.0`, `4.2e1` (exactly, not through `f64`) | `42`; `42.5` is an error unless [`RoundFloat`](Self::RoundFloat) is allowed |
/// | a string | `42`, `true` | `"42"`, `"true"` (`null` is an error, unless [`NullToString`](Self::NullToString) is allowed) |
/// | a string | an object or array: `{"a": 1}` | its text as written: `"{\"a\": 1}"` |
/// | a bool | `"true"`, `"False"`, `"yes"`, `"no"`, `1`, `0`, `1.0` | `true`, `false`, … |
/// | a sequence | one value: `"x"`, `{…}` | `["x"]`, `[{…}]` |
/// | one value (a string, number, bool or unit enum) | a list of one: `["HIGH"]`, `[true]` | `"HIGH"`, `true` |
/// | a struct of one field | a bare value: `1214` for `struct Id { id: u64 }` | that field |
/// | a sequence | an object whose one member is a list: `{"contacts": [...]}` (what a JSON mode that demands an object root gives) | the list |
/// | a sequence, struct or map | a string holding JSON: `"[1, 2]"`, `"{\"a\": 1}"` (repaired like any reply) | `[1, 2]`, `{"a": 1}` |
/// | an enum variant | `"In Progress"`, `"in_progress"`, `{"in_progress": null}` | `InProgress` |
/// | a struct field | `userName`, `UserName`, `user-name` | `user_name` (aliases count as names; two fields matching is an error, not a guess) |
/// | `Option<T>`, `T` not a string | `"null"`, `"None"`, `"N/A"`, `"NA"`, `""` (any case) | `None` (an `Option<String>` keeps the text) |
///
/// Values read with `deserialize_any` (`serde_json::Value`, untagged enums,
/// and the parts serde buffers: internally and adjacently tagged enums'
/// contents, `#[serde(flatten)]`) are never coerced. Internally tagged
/// enums' tags are matched like variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CoercionKind {
    /// A string holding a number where a number is wanted: `"42"`, `" 42 "`,
    /// `"4.5e3"`, `"-7"`, `"1,234"` (commas between groups of three digits).
    /// A string that is not a number is an error, never 0.
    StringToNumber,
    /// A float with no fractional part where an integer is wanted: `42.0` → `42`.
    FloatToInteger,
    /// A float with a fractional part rounded (half away from zero) where an
    /// integer is wanted: `42.5` → `43`. Off by default: without it `42.5` is
    /// an error.
    RoundFloat,
    /// A number or a bool where a string is wanted: `42` → `"42"`, `true` → `"true"`.
    ToString,
    /// `null` where a string (not an `Option`) is wanted, taken as the text
    /// `"null"`. Off by default: a model writing `null` means "no value", and
    /// the string `"null"` would be a value it never meant.
    NullToString,
    /// A bool spelled otherwise: `"true"`, `"False"`, `"yes"`, `"no"` (any
    /// case), `1`, `0`, `1.0`, `0.0`.
    ToBool,
    /// One value where a sequence is wanted: `"a"` → `["a"]`.
    OneToSequence,
    /// A string that is itself JSON where a sequence, struct or map is wanted
    /// (double-encoded values): `"[1, 2]"` → `[1, 2]`, `"{\"a\": 1}"` → `{"a": 1}`.
    JsonInString,
    /// An enum variant's name written in another case or style:
    /// `"In Progress"`, `"in_progress"`, `"IN-PROGRESS"` → `InProgress`.
    EnumVariant,
    /// A struct field's name written in another case or style: `userName`,
    /// `UserName`, `user-name` → `user_name`.
    FieldName,
    /// A placeholder string for "no value" where an `Option<T>` is wanted and
    /// `T` is not a string: `"null"`, `"None"`, `"N/A"`, `"NA"`, `""` (any
    /// case, surrounding spaces ignored) → `None`.
    NoneSentinel,
    /// An object whose one member is an array where a sequence is wanted:
    /// `{"contacts": [...]}` for `Vec<Contact>` (models wrap a list whenever
    /// a JSON mode demands an object root) gives the array.
    WrappedList,
    /// A list of one element where one value (a string, number, bool or
    /// unit enum) is wanted: `["HIGH"]` → `"HIGH"`, `[true]` → `true` (the
    /// inverse of [`OneToSequence`](Self::OneToSequence)).
    SequenceToOne,
    /// A bare value where a struct of exactly one field is wanted: `1214`
    /// for `struct Id { id: u64 }` fills that field.
    ValueToStruct,
    /// An object or array where a string is wanted: the string is the
    /// value's text as the reply wrote it (`{"a": 1}` → `"{\"a\": 1}"`).
    JsonToString,
    /// A property the reply left out, filled in with the `default` its
    /// JSON Schema gives ([`SchemaDecoder`](crate::SchemaDecoder) only; a
    /// type's `#[serde(default)]` is serde's and is not reported). The
    /// path is the property's, the offset the object's, `written` is
    /// empty and `used` the default. Leaving a property out is no mistake,
    /// so this is the one kind [`Report::fixes`] does not count (nor
    /// [`Decoder::max_repairs`](crate::Decoder::max_repairs)); denied, the
    /// property stays absent.
    DefaultValue,
    /// A member whose key the object's JSON Schema does not allow
    /// (`"additionalProperties": false`), left out
    /// ([`SchemaDecoder`](crate::SchemaDecoder) only; serde ignores a
    /// struct's unknown keys without a word). The path is the member's,
    /// the offset its value's, `written` the key and `used` empty. Denied
    /// (as [`Decoder::strict`](crate::Decoder::strict) does), such a key is
    /// an error.
    ExtraKey,
}

impl CoercionKind {
    /// Whether a reply needed it ([`DefaultValue`](Self::DefaultValue):
    /// leaving a property out is no mistake).
    pub(crate) fn is_fix(self) -> bool {
        self != CoercionKind::DefaultValue
    }

    /// What the reply wrote that needed this coercion, as a phrase for
    /// model feedback: `"a number written as a string"`.
    pub fn problem(self) -> &'static str {
        use CoercionKind::*;
        match self {
            StringToNumber => "a number written as a string",
            FloatToInteger => "an integer written as a float",
            RoundFloat => "a fraction where an integer is wanted",
            ToString => "a number or bool where a string is wanted",
            NullToString => "null where a string is wanted",
            ToBool => "true or false written as a word or number",
            OneToSequence => "one value where a list is wanted",
            JsonInString => "JSON written inside a string",
            EnumVariant => "a value written in another case or style",
            FieldName => "a key written in another case or style",
            NoneSentinel => "a placeholder string where null is meant",
            WrappedList => "a list wrapped in an object",
            SequenceToOne => "a list of one value where one value is wanted",
            ValueToStruct => "a bare value where an object of one field is wanted",
            JsonToString => "an object or list where a string is wanted",
            DefaultValue => "a property left out, filled in with its default",
            ExtraKey => "a key the schema does not allow",
        }
    }
}

impl RepairKind {
    /// Every kind of repair, in the order of their declaration.
    ///
    /// ```
    /// use serde_llm::RepairKind;
    ///
    /// assert!(RepairKind::ALL.contains(&RepairKind::TrailingComma));
    /// ```
    pub const ALL: &'static [RepairKind] = &[
        RepairKind::TrailingComma,
        RepairKind::ExtraComma,
        RepairKind::MissingComma,
        RepairKind::MissingColon,
        RepairKind::MissingValue,
        RepairKind::DanglingKey,
        RepairKind::Quotes,
        RepairKind::UnquotedKey,
        RepairKind::UnquotedString,
        RepairKind::Comment,
        RepairKind::Literal,
        RepairKind::NonFiniteNumber,
        RepairKind::ControlCharacter,
        RepairKind::InnerQuote,
        RepairKind::MissingQuote,
        RepairKind::InvalidEscape,
        RepairKind::LoneSurrogate,
        RepairKind::NumberFormat,
        RepairKind::DigitGroups,
        RepairKind::NumberAsString,
        RepairKind::Concatenation,
        RepairKind::Ellipsis,
        RepairKind::MissingCloser,
        RepairKind::StrayCloser,
        RepairKind::MismatchedCloser,
        RepairKind::TruncatedValue,
        RepairKind::TrailingText,
        RepairKind::Skipped,
        RepairKind::SpecialWhitespace,
        RepairKind::EscapedJson,
        RepairKind::Wrapper,
        RepairKind::Tuple,
        RepairKind::SetLiteral,
        RepairKind::ImplicitObject,
        RepairKind::DoubledQuotes,
        RepairKind::CodeFence,
        RepairKind::Regex,
        RepairKind::Reopened,
        RepairKind::ValueInProse,
        RepairKind::InvalidUtf8,
        RepairKind::MultipleValues,
        RepairKind::CodeBlock,
        RepairKind::SpecialToken,
        RepairKind::FullWidthPunctuation,
        RepairKind::HexNumber,
        RepairKind::LineContinuation,
        RepairKind::Json5Escape,
        RepairKind::Elision,
    ];

    /// The kind's name as the [`Report`] serializes it, in snake_case:
    /// `"trailing_comma"`. [`Display`](fmt::Display) writes it, and
    /// [`FromStr`] reads it back.
    pub fn name(self) -> &'static str {
        use RepairKind::*;
        match self {
            TrailingComma => "trailing_comma",
            ExtraComma => "extra_comma",
            MissingComma => "missing_comma",
            MissingColon => "missing_colon",
            MissingValue => "missing_value",
            DanglingKey => "dangling_key",
            Quotes => "quotes",
            UnquotedKey => "unquoted_key",
            UnquotedString => "unquoted_string",
            Comment => "comment",
            Literal => "literal",
            NonFiniteNumber => "non_finite_number",
            ControlCharacter => "control_character",
            InnerQuote => "inner_quote",
            MissingQuote => "missing_quote",
            InvalidEscape => "invalid_escape",
            LoneSurrogate => "lone_surrogate",
            NumberFormat => "number_format",
            DigitGroups => "digit_groups",
            NumberAsString => "number_as_string",
            Concatenation => "concatenation",
            Ellipsis => "ellipsis",
            MissingCloser => "missing_closer",
            StrayCloser => "stray_closer",
            MismatchedCloser => "mismatched_closer",
            TruncatedValue => "truncated_value",
            TrailingText => "trailing_text",
            Skipped => "skipped",
            SpecialWhitespace => "special_whitespace",
            EscapedJson => "escaped_json",
            Wrapper => "wrapper",
            Tuple => "tuple",
            SetLiteral => "set_literal",
            ImplicitObject => "implicit_object",
            DoubledQuotes => "doubled_quotes",
            CodeFence => "code_fence",
            Regex => "regex",
            Reopened => "reopened",
            ValueInProse => "value_in_prose",
            InvalidUtf8 => "invalid_utf8",
            MultipleValues => "multiple_values",
            CodeBlock => "code_block",
            SpecialToken => "special_token",
            FullWidthPunctuation => "full_width_punctuation",
            HexNumber => "hex_number",
            LineContinuation => "line_continuation",
            Json5Escape => "json5_escape",
            Elision => "elision",
        }
    }
}

impl fmt::Display for RepairKind {
    /// The kind's [`name`](Self::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RepairKind {
    type Err = UnknownKind;

    /// The kind of that [`name`](Self::name) (exactly: snake_case).
    fn from_str(name: &str) -> Result<RepairKind, UnknownKind> {
        const WHAT: &str = "repair kind";
        RepairKind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == name)
            .ok_or_else(|| UnknownKind::new(name, WHAT))
    }
}

impl CoercionKind {
    /// Every kind of coercion, in the order of their declaration.
    ///
    /// ```
    /// use serde_llm::CoercionKind;
    ///
    /// assert!(CoercionKind::ALL.contains(&CoercionKind::StringToNumber));
    /// ```
    pub const ALL: &'static [CoercionKind] = &[
        CoercionKind::StringToNumber,
        CoercionKind::FloatToInteger,
        CoercionKind::RoundFloat,
        CoercionKind::ToString,
        CoercionKind::NullToString,
        CoercionKind::ToBool,
        CoercionKind::OneToSequence,
        CoercionKind::JsonInString,
        CoercionKind::EnumVariant,
        CoercionKind::FieldName,
        CoercionKind::NoneSentinel,
        CoercionKind::WrappedList,
        CoercionKind::SequenceToOne,
        CoercionKind::ValueToStruct,
        CoercionKind::JsonToString,
        CoercionKind::DefaultValue,
        CoercionKind::ExtraKey,
    ];

    /// The kind's name as the [`Report`] serializes it, in snake_case:
    /// `"string_to_number"`. [`Display`](fmt::Display) writes it, and
    /// [`FromStr`] reads it back.
    pub fn name(self) -> &'static str {
        use CoercionKind::*;
        match self {
            StringToNumber => "string_to_number",
            FloatToInteger => "float_to_integer",
            RoundFloat => "round_float",
            ToString => "to_string",
            NullToString => "null_to_string",
            ToBool => "to_bool",
            OneToSequence => "one_to_sequence",
            JsonInString => "json_in_string",
            EnumVariant => "enum_variant",
            FieldName => "field_name",
            NoneSentinel => "none_sentinel",
            WrappedList => "wrapped_list",
            SequenceToOne => "sequence_to_one",
            ValueToStruct => "value_to_struct",
            JsonToString => "json_to_string",
            DefaultValue => "default_value",
            ExtraKey => "extra_key",
        }
    }
}

impl fmt::Display for CoercionKind {
    /// The kind's [`name`](Self::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CoercionKind {
    type Err = UnknownKind;

    /// The kind of that [`name`](Self::name) (exactly: snake_case).
    fn from_str(name: &str) -> Result<CoercionKind, UnknownKind> {
        const WHAT: &str = "coercion kind";
        CoercionKind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == name)
            .ok_or_else(|| UnknownKind::new(name, WHAT))
    }
}

/// A repair or a coercion kind: what [`Decoder::allow`](crate::Decoder::allow)
/// and [`Decoder::deny`](crate::Decoder::deny) take, and what
/// [`Report::counts`] counts.
///
/// ```
/// use serde_llm::{CoercionKind, Fix, RepairKind};
///
/// let a: Fix = RepairKind::TrailingComma.into();
/// let b: Fix = CoercionKind::StringToNumber.into();
/// assert_ne!(a, b);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(untagged)]
pub enum Fix {
    /// A repair of the text.
    Repair(RepairKind),
    /// A coercion of a value to the type wanted.
    Coercion(CoercionKind),
}

impl From<RepairKind> for Fix {
    fn from(kind: RepairKind) -> Fix {
        Fix::Repair(kind)
    }
}

impl From<CoercionKind> for Fix {
    fn from(kind: CoercionKind) -> Fix {
        Fix::Coercion(kind)
    }
}

impl Fix {
    /// Every repair kind, then every coercion kind
    /// ([`RepairKind::ALL`], [`CoercionKind::ALL`]).
    ///
    /// ```
    /// use serde_llm::{CoercionKind, Fix, RepairKind};
    ///
    /// assert_eq!(Fix::all().count(), RepairKind::ALL.len() + CoercionKind::ALL.len());
    /// assert_eq!(Fix::all().next(), Some(Fix::Repair(RepairKind::TrailingComma)));
    /// ```
    pub fn all() -> impl Iterator<Item = Fix> {
        let repairs = RepairKind::ALL.iter().copied().map(Fix::Repair);
        repairs.chain(CoercionKind::ALL.iter().copied().map(Fix::Coercion))
    }

    /// The kind's name as the [`Report`] serializes it, in snake_case
    /// (no repair kind has a coercion kind's name).
    pub fn name(self) -> &'static str {
        match self {
            Fix::Repair(kind) => kind.name(),
            Fix::Coercion(kind) => kind.name(),
        }
    }
}

impl fmt::Display for Fix {
    /// The kind's [`name`](Self::name): `trailing_comma`, `string_to_number`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Fix {
    type Err = UnknownKind;

    /// The repair or coercion kind of that [`name`](Self::name), as the
    /// report writes it (snake_case, exactly), for configuration files and
    /// command lines.
    ///
    /// ```
    /// use serde_llm::{CoercionKind, Decoder, Fix, RepairKind};
    ///
    /// let fix: Fix = "trailing_comma".parse().unwrap();
    /// assert_eq!(fix, Fix::Repair(RepairKind::TrailingComma));
    /// assert_eq!("string_to_number".parse(), Ok(Fix::Coercion(CoercionKind::StringToNumber)));
    /// assert_eq!(fix.to_string(), "trailing_comma");
    ///
    /// let err = "trailing_commas".parse::<Fix>().unwrap_err();
    /// assert_eq!(err.to_string(), "unknown repair or coercion kind `trailing_commas`");
    ///
    /// let strict = Decoder::strict().allow(fix);
    /// assert_eq!(strict.repair("[1, 2,]").unwrap(), "[1,2]");
    /// ```
    fn from_str(name: &str) -> Result<Fix, UnknownKind> {
        const WHAT: &str = "repair or coercion kind";
        Fix::all()
            .find(|k| k.name() == name)
            .ok_or_else(|| UnknownKind::new(name, WHAT))
    }
}

/// A name that is no repair or coercion kind, refused by the [`FromStr`]
/// impls of [`Fix`], [`RepairKind`] and [`CoercionKind`]. Its text says
/// which name; [`Fix::all`] lists the valid ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKind {
    name: String,
    /// "repair kind", "coercion kind", or "repair or coercion kind".
    what: &'static str,
}

impl UnknownKind {
    fn new(name: &str, what: &'static str) -> UnknownKind {
        UnknownKind {
            name: name.to_owned(),
            what,
        }
    }

    /// The name that was refused.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`", self.what, self.name)
    }
}

impl std::error::Error for UnknownKind {}

/// What was done to the text to decode it.
///
/// A run of the same repair at evenly spaced places (a `{` skipped at every
/// byte, the closers of every container left open at the end) is one entry
/// of [`repairs`](Self::repairs) with its [`count`](crate::Repair::count);
/// [`fixes`](Self::fixes) and [`counts`](Self::counts) count each repair.
///
/// ```
/// use serde_llm::{Decoder, RepairKind, Strategy};
///
/// let reply = "Here you go:\n```json\n{\"n\": 1,}\n```";
/// let (v, report) = Decoder::new().decode_with_report::<serde_json::Value>(reply).unwrap();
/// assert_eq!(v, serde_json::json!({"n": 1}));
/// assert_eq!(report.strategy, Strategy::Fence);
/// assert_eq!(&reply[report.span.clone()], "{\"n\": 1,}");
/// assert_eq!(report.repairs.len(), 1);
/// assert_eq!(report.repairs[0].kind, RepairKind::TrailingComma);
/// assert_eq!(report.repairs[0].count, 1);
/// assert!(report.coercions.is_empty());
/// assert!(!report.truncated);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// How the value was found.
    pub strategy: Strategy,
    /// The byte span of the caller's text that was decoded.
    pub span: Range<usize>,
    /// Every repair, a run of the same repair at evenly spaced places as
    /// one entry (see [`Repair`](crate::Repair)), in the offset order of
    /// each entry's first repair.
    pub repairs: Vec<listed::Repair>,
    /// Every coercion, in the order the values were decoded (left out of
    /// the serialized report when there is none, as for [`repair`](crate::repair),
    /// which never coerces).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub coercions: Vec<Coercion>,
    /// Whether the value was cut off (at the end of the input, or at the
    /// end of its fence) and completed.
    pub truncated: bool,
}

impl Report {
    /// True when the value was taken as it was written: no repair, no
    /// coercion, not cut off. (Extraction from prose or fences is neither.)
    pub fn is_clean(&self) -> bool {
        self.repairs.is_empty() && self.coercions.is_empty() && !self.truncated
    }

    /// How many repairs and coercions of each kind were made.
    ///
    /// ```
    /// use serde_llm::{CoercionKind, Decoder, Fix, RepairKind};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Row { n: u32, m: u32 }
    ///
    /// let (_, report) = Decoder::new()
    ///     .decode_with_report::<Vec<Row>>(r#"[{"n": "1", "m": "2"}, {"n": 3, "m": 4},]"#)
    ///     .unwrap();
    /// let counts = report.counts();
    /// assert_eq!(counts[&Fix::Coercion(CoercionKind::StringToNumber)], 2);
    /// assert_eq!(counts[&Fix::Repair(RepairKind::TrailingComma)], 1);
    /// assert_eq!(report.fixes(), 3);
    /// ```
    pub fn counts(&self) -> BTreeMap<Fix, usize> {
        let mut counts = BTreeMap::new();
        let repairs = self.repairs.iter().map(|r| (Fix::Repair(r.kind), r.count));
        let coercions = self.coercions.iter().map(|c| (Fix::Coercion(c.kind), 1));
        for (fix, n) in repairs.chain(coercions) {
            *counts.entry(fix).or_insert(0) += n;
        }
        counts
    }

    /// How many repairs and coercions were made in all (each repair of a
    /// run counted; a [`CoercionKind::DefaultValue`] is not counted:
    /// leaving a property out is no mistake).
    pub fn fixes(&self) -> usize {
        let defaults = self.coercions.iter().filter(|c| !c.kind.is_fix()).count();
        self.repairs.iter().map(|r| r.count).sum::<usize>() + self.coercions.len() - defaults
    }

    /// Records a character dropped at `cut`, the end of the text decoded
    /// (the reply was cut off inside it), as truncation.
    pub(crate) fn mark_cut(&mut self, cut: Option<usize>) {
        if let Some(offset) = cut {
            self.truncated = true;
            self.add_repairs([Repair {
                kind: RepairKind::TruncatedValue,
                offset,
            }]);
        }
    }

    /// Adds repairs made around the decode (bytes replaced before it, a
    /// character cut off after it): the repairs end in offset order, each
    /// run one entry.
    pub(crate) fn add_repairs(&mut self, repairs: impl IntoIterator<Item = Repair>) {
        self.repairs
            .extend(repairs.into_iter().map(listed::Repair::from));
        self.repairs = runs(&self.repairs);
    }

    /// The report as text for a person, each position given as a line and
    /// column of `text`, the text that was decoded (the report holds byte
    /// offsets only, which is why this takes the text and `Report` has no
    /// `Display` of its own). Five parts, one line each but the lists:
    ///
    /// - `strategy:` how the value was found, its byte span, and the line
    ///   and column of its first and last characters;
    /// - `repairs:` how many, then one line each in offset order:
    ///   `  line L, column C: <problem> (near: <snippet>)`, the problem as
    ///   [`RepairKind::problem`] says it and about 20 characters either side
    ///   (control characters as spaces); a run of the same repair is one
    ///   line, `  line L, column C: <problem>, N times (near: …)` at one
    ///   place, `  line L, column C to line L2, column C2: <problem>, N
    ///   times (near: …)` at evenly spaced places;
    /// - `coercions:` how many, then one line each in offset order:
    ///   `  line L, column C, <path>: <problem> (<written> → <used>)`;
    /// - `truncated:` `yes` (the value was cut off and completed) or `no`.
    ///
    /// The returned value borrows both and writes the text when displayed.
    /// Columns count characters, from 1; an offset past `text` (a report
    /// of another text) is shown at its end.
    ///
    /// ```
    /// let reply = "Here you go:\n```json\n{\"n\": 1,}\n```";
    /// let (_, report) = serde_llm::Decoder::new().repair_with_report(reply).unwrap();
    /// assert_eq!(
    ///     report.display(reply).to_string(),
    ///     "strategy: fence, bytes 21..30 (line 3, column 1 to line 3, column 9)\n\
    ///      repairs: 1\n\
    ///      \x20 line 3, column 8: a trailing comma (near: go: ```json {\"n\": 1,} ```)\n\
    ///      coercions: 0\n\
    ///      truncated: no\n"
    /// );
    /// ```
    pub fn display<'a>(&'a self, text: &'a str) -> ReportDisplay<'a> {
        ReportDisplay { report: self, text }
    }
}

/// A [`Report`] shown as text for a person, with lines and columns of the
/// text decoded: see [`Report::display`]. A named type (not `impl
/// Display`) so that it can be kept in a struct or passed on, as
/// `std::path::Display` is.
#[derive(Clone, Copy, Debug)]
pub struct ReportDisplay<'a> {
    report: &'a Report,
    text: &'a str,
}

impl ReportDisplay<'_> {
    /// `line L, column C` of `offset` in the text.
    fn at(&self, offset: usize) -> String {
        let (line, column) = line_column(self.text, offset);
        format!("line {line}, column {column}")
    }
}

impl fmt::Display for ReportDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (report, text) = (self.report, self.text);
        let span = &report.span;
        // The last character's start: the span's end is past it.
        let last = floor_char_boundary(text, span.end.min(text.len()).saturating_sub(1));
        let last = last.max(span.start.min(text.len()));
        writeln!(
            f,
            "strategy: {}, bytes {}..{} ({} to {})",
            report.strategy.name(),
            span.start,
            span.end,
            self.at(span.start),
            self.at(last)
        )?;
        writeln!(
            f,
            "repairs: {}",
            report.repairs.iter().map(|r| r.count).sum::<usize>()
        )?;
        for r in runs(&report.repairs) {
            let at = floor_char_boundary(text, r.offset.min(text.len()));
            let place = match r.last_offset() {
                last if last == r.offset => self.at(r.offset),
                last => format!("{} to {}", self.at(r.offset), self.at(last)),
            };
            let times = match r.count {
                1 => String::new(),
                n => format!(", {n} times"),
            };
            writeln!(
                f,
                "  {place}: {}{times} (near: {})",
                r.kind.problem(),
                snippet(text, at).trim()
            )?;
        }
        let mut coercions: Vec<&Coercion> = report.coercions.iter().collect();
        coercions.sort_by_key(|c| c.offset);
        writeln!(f, "coercions: {}", coercions.len())?;
        for c in coercions {
            writeln!(
                f,
                "  {}, {}: {} ({} → {})",
                self.at(c.offset),
                c.path,
                c.kind.problem(),
                c.written,
                c.used
            )?;
        }
        let truncated = match report.truncated {
            true => "yes (the value was cut off and completed)",
            false => "no",
        };
        writeln!(f, "truncated: {truncated}")
    }
}

/// `repairs` in offset order, each run of the same repair one entry (a
/// report built another way may list a run's parts apart: a text for a
/// person shows them as one).
fn runs(repairs: &[listed::Repair]) -> Vec<listed::Repair> {
    let mut sorted = repairs.to_vec();
    sorted.sort_by_key(|r| r.offset);
    let mut out: Vec<listed::Repair> = Vec::with_capacity(sorted.len());
    for r in sorted {
        if !out.last_mut().is_some_and(|last| last.take(r)) {
            out.push(r);
        }
    }
    pairs_apart(out)
}

/// `entries` with each pair at two different places listed as two
/// repairs: two repairs make no pattern worth a line of their own.
fn pairs_apart(entries: Vec<listed::Repair>) -> Vec<listed::Repair> {
    let apart = |e: &listed::Repair| e.count == 2 && e.step > 0;
    let pairs = entries.iter().filter(|e| apart(e)).count();
    if pairs == 0 {
        return entries;
    }
    let mut split = Vec::with_capacity(entries.len() + pairs);
    for e in entries {
        if apart(&e) {
            split.push(listed::Repair::one(e.kind, e.offset));
            split.push(listed::Repair::one(e.kind, e.last_offset()));
        } else {
            split.push(e);
        }
    }
    split
}

/// A [`Report`] as the decoder builds it: the repairs kept as [`Repairs`]
/// until a caller asks for the report ([`into_report`](Self::into_report)),
/// so a call that returns only the value never lists them one by one.
#[derive(Clone, Debug)]
pub(crate) struct Reading {
    pub strategy: Strategy,
    pub span: Range<usize>,
    pub repairs: Repairs,
    pub coercions: Vec<Coercion>,
    /// Coercions counted but not listed: a decode for the value alone (see
    /// `de::Policy::listed`), whose reading never becomes a report.
    pub unlisted: usize,
    pub truncated: bool,
}

impl Reading {
    /// A reading of `span` found by `strategy`, with no repair.
    pub(crate) fn clean(strategy: Strategy, span: Range<usize>) -> Reading {
        Reading {
            strategy,
            span,
            repairs: Repairs::default(),
            coercions: Vec::new(),
            unlisted: 0,
            truncated: false,
        }
    }

    /// See [`Report::is_clean`].
    pub(crate) fn is_clean(&self) -> bool {
        self.repairs.is_empty() && self.coercions() == 0 && !self.truncated
    }

    /// How many coercions were made.
    pub(crate) fn coercions(&self) -> usize {
        let defaults = self.coercions.iter().filter(|c| !c.kind.is_fix()).count();
        self.coercions.len() - defaults + self.unlisted
    }

    /// See [`Report::fixes`].
    pub(crate) fn fixes(&self) -> usize {
        self.repairs.len() + self.coercions()
    }

    /// The report, each repair listed and each coercion spelled out.
    pub(crate) fn into_report(self) -> Report {
        debug_assert_eq!(self.unlisted, 0, "a report of coercions not listed");
        Report {
            strategy: self.strategy,
            span: self.span,
            repairs: self.repairs.listed(),
            coercions: self.coercions.into_iter().map(spelled).collect(),
            truncated: self.truncated,
        }
    }

    /// The report, leaving the reading as it is.
    pub(crate) fn to_report(&self) -> Report {
        self.clone().into_report()
    }
}

/// A coercion as the report shows it. The decoder leaves out what a
/// [`CoercionKind::OneToSequence`] used, which is always what was written
/// in brackets: the value may be the whole reply, and a call that returns
/// only the value need not hold it twice more.
fn spelled(mut c: Coercion) -> Coercion {
    if c.kind == CoercionKind::OneToSequence {
        c.used = format!("[{}]", c.written);
    }
    c
}

/// Repairs as the decoder keeps them: the same repairs in the same order as
/// a `Vec<Repair>`, but a run of repairs at evenly spaced offsets, of one
/// kind or of two kinds taking turns, is one entry: a `{` skipped at every
/// byte of `{{{{`, an inner quote at every other byte of `"a" "a" "a"`, a
/// closer at one offset for each open container, a quoted key and a
/// trailing comma in each element of `[{'a': 1,}, {'a': 2,}, …]`. So a
/// reply that needs a repair in every few bytes costs no more than one that
/// needs a few. Listed one by one only for a [`Report`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Repairs {
    runs: Vec<Run>,
    /// How many repairs the runs hold.
    len: usize,
}

/// `count` repairs taking turns between `first` and `second` (the same
/// kind, for a run of one): the first at `offset`, each `second` repair
/// `gap` after the one before it, each other `back` after the one before.
#[derive(Clone, Copy, Debug)]
struct Run {
    offset: usize,
    count: u16,
    gap: u16,
    back: u16,
    first: RepairKind,
    second: RepairKind,
}

impl Run {
    /// The `i`-th repair of the run.
    fn at(&self, i: u16) -> Repair {
        let (pairs, odd) = (usize::from(i / 2), i % 2 == 1);
        let cycle = usize::from(self.gap) + usize::from(self.back);
        Repair {
            kind: if odd { self.second } else { self.first },
            offset: self.offset + pairs * cycle + if odd { usize::from(self.gap) } else { 0 },
        }
    }

    fn last(&self) -> Repair {
        self.at(self.count - 1)
    }

    /// The run as a report lists it: one entry if its repairs are of one
    /// kind at evenly spaced offsets, else one for each kind (the first
    /// kind's at the even places of the run, the second's at the odd).
    fn parts(&self) -> [Option<listed::Repair>; 2] {
        let count = usize::from(self.count);
        let (gap, back) = (usize::from(self.gap), usize::from(self.back));
        let run = |kind, offset, count, step| {
            let step = if count > 1 { step } else { 0 };
            Some(listed::Repair {
                kind,
                offset,
                count,
                step,
            })
        };
        if count == 1 || (self.first == self.second && (count == 2 || gap == back)) {
            return [run(self.first, self.offset, count, gap), None];
        }
        let cycle = gap + back;
        [
            run(self.first, self.offset, count.div_ceil(2), cycle),
            run(self.second, self.offset + gap, count / 2, cycle),
        ]
    }

    fn one(r: Repair) -> Run {
        Run {
            offset: r.offset,
            count: 1,
            gap: 0,
            back: 0,
            first: r.kind,
            second: r.kind,
        }
    }

    /// Takes `r` as the run's next repair, if it is: a second repair sets
    /// the second kind and the gap, a third the way back, the rest must
    /// follow them.
    fn take(&mut self, r: Repair) -> bool {
        if self.count == u16::MAX {
            return false;
        }
        let Some(gap) = r
            .offset
            .checked_sub(self.last().offset)
            .and_then(|g| u16::try_from(g).ok())
        else {
            return false;
        };
        match self.count {
            1 => {
                self.second = r.kind;
                self.gap = gap;
            }
            2 if r.kind == self.first => self.back = gap,
            2 => return false,
            _ if self.at(self.count) != r => return false,
            _ => {}
        }
        self.count += 1;
        true
    }
}

impl Repairs {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds a repair at the end.
    pub(crate) fn push(&mut self, r: Repair) {
        self.len += 1;
        if !self.runs.last_mut().is_some_and(|run| run.take(r)) {
            self.runs.push(Run::one(r));
        }
    }

    /// Empties it, keeping its room.
    pub(crate) fn clear(&mut self) {
        self.runs.clear();
        self.len = 0;
    }

    /// Adds a repair before the others.
    pub(crate) fn push_front(&mut self, r: Repair) {
        self.len += 1;
        self.runs.insert(0, Run::one(r));
    }

    /// Adds `other`'s repairs at the end, in order.
    pub(crate) fn append(&mut self, other: &Repairs) {
        for r in other.iter() {
            self.push(r);
        }
    }

    /// Removes the last repair.
    pub(crate) fn pop(&mut self) -> Option<Repair> {
        let run = self.runs.last_mut()?;
        let r = run.last();
        run.count -= 1;
        if run.count == 0 {
            self.runs.pop();
        }
        self.len -= 1;
        Some(r)
    }

    pub(crate) fn last(&self) -> Option<Repair> {
        self.runs.last().map(Run::last)
    }

    /// Gives the last repair another kind.
    pub(crate) fn relabel_last(&mut self, kind: RepairKind) {
        if let Some(r) = self.pop() {
            self.push(Repair { kind, ..r });
        }
    }

    /// Keeps the first `len` repairs.
    pub(crate) fn truncate(&mut self, len: usize) {
        while self.len > len {
            let run = self.runs.last_mut().expect("len counts the runs' repairs");
            let excess = self.len - len;
            if usize::from(run.count) <= excess {
                self.len -= usize::from(run.count);
                self.runs.pop();
            } else {
                run.count -= excess as u16;
                self.len = len;
            }
        }
    }

    /// The repairs, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Repair> + '_ {
        self.since(0)
    }

    /// The repairs from the `from`-th on (none if there are not that many),
    /// found from the end: checking the few made since the last check costs
    /// no more however many came before.
    pub(crate) fn since(&self, from: usize) -> impl Iterator<Item = Repair> + '_ {
        let mut k = self.runs.len();
        let mut before = self.len;
        while k > 0 && before > from {
            k -= 1;
            before -= usize::from(self.runs[k].count);
        }
        // The runs from `k` on hold the repairs from the `before`-th on.
        let skip = from.saturating_sub(before) as u16;
        self.runs[k..].iter().enumerate().flat_map(move |(j, run)| {
            let first = if j == 0 { skip.min(run.count) } else { 0 };
            (first..run.count).map(move |i| run.at(i))
        })
    }

    /// The repairs, listed one by one.
    #[cfg(test)]
    pub(crate) fn to_vec(&self) -> Vec<Repair> {
        let mut all = Vec::with_capacity(self.len);
        all.extend(self.iter());
        all
    }

    /// The repairs as a [`Report`] lists them: one entry for each run of
    /// one kind at evenly spaced offsets, in the offset order of their first
    /// repairs. A run of two kinds taking turns is two entries (each kind's
    /// repairs are evenly spaced too); runs cut where a [`Run`]'s count is
    /// full are joined again. A pair at two different places is listed as
    /// two repairs: it makes no pattern worth a line of its own.
    pub(crate) fn listed(&self) -> Vec<listed::Repair> {
        let mut out: Vec<listed::Repair> = Vec::new();
        for run in &self.runs {
            for part in run.parts().into_iter().flatten() {
                // The part continues the last entry, or the one before it
                // when that is a run already (two kinds taking turns are
                // two open entries), or starts one.
                let n = out.len();
                let joined = out.last_mut().is_some_and(|e| e.take(part))
                    || (n >= 2 && out[n - 2].count > 1 && out[n - 2].take(part));
                if !joined {
                    out.push(part);
                }
            }
        }
        let mut out = pairs_apart(out);
        // Runs of two kinds taking turns, and pairs apart, leave a few
        // entries out of place.
        out.sort_by_key(|e| e.offset);
        out
    }
}

impl Extend<Repair> for Repairs {
    fn extend<I: IntoIterator<Item = Repair>>(&mut self, iter: I) {
        for r in iter {
            self.push(r);
        }
    }
}

impl FromIterator<Repair> for Repairs {
    fn from_iter<I: IntoIterator<Item = Repair>>(iter: I) -> Repairs {
        let mut all = Repairs::default();
        all.extend(iter);
        all
    }
}

// `Utf8Text` is the text module's, which sits below the report: what
// reading the bytes did is added to a report here.
impl Utf8Text<'_> {
    /// Adds what reading the bytes did to `report`, the report of decoding
    /// [`text`](Utf8Text::text): each sequence replaced a
    /// [`RepairKind::InvalidUtf8`] at its offset, a character dropped at the
    /// end a [`RepairKind::TruncatedValue`] (and the report
    /// [`truncated`](Report::truncated)).
    pub fn mark(&self, report: &mut Report) {
        report.add_repairs(self.replaced.iter().map(|&offset| Repair {
            kind: RepairKind::InvalidUtf8,
            offset,
        }));
        report.mark_cut(self.cut);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists the variants given, and fails to compile unless they are all
    /// of the enum's: a variant added to the enum but not here is a
    /// non-exhaustive match.
    macro_rules! every {
        ($enum:ident: $($variant:ident),* $(,)?) => {{
            #[allow(dead_code)]
            fn exhaustive(k: $enum) {
                match k {
                    $($enum::$variant => {})*
                }
            }
            [$($enum::$variant),*]
        }};
    }

    /// `ALL` holds every variant, once, in declaration order.
    #[test]
    fn all_kinds_are_listed() {
        let repairs = every!(RepairKind:
            TrailingComma, ExtraComma, MissingComma, MissingColon, MissingValue,
            DanglingKey, Quotes, UnquotedKey, UnquotedString, Comment, Literal,
            NonFiniteNumber, ControlCharacter, InnerQuote, MissingQuote,
            InvalidEscape, LoneSurrogate, NumberFormat, DigitGroups,
            NumberAsString, Concatenation, Ellipsis, MissingCloser, StrayCloser,
            MismatchedCloser, TruncatedValue, TrailingText, Skipped,
            SpecialWhitespace, EscapedJson, Wrapper, Tuple, SetLiteral,
            ImplicitObject, DoubledQuotes, CodeFence, Regex, Reopened,
            ValueInProse, InvalidUtf8, MultipleValues, CodeBlock, SpecialToken,
            FullWidthPunctuation, HexNumber, LineContinuation, Json5Escape,
            Elision,
        );
        assert_eq!(RepairKind::ALL, repairs);
        let coercions = every!(CoercionKind:
            StringToNumber, FloatToInteger, RoundFloat, ToString, NullToString,
            ToBool, OneToSequence, JsonInString, EnumVariant, FieldName,
            NoneSentinel, WrappedList, SequenceToOne, ValueToStruct, JsonToString,
            DefaultValue, ExtraKey,
        );
        assert_eq!(CoercionKind::ALL, coercions);
    }

    /// Each kind's name is what the report serializes, no two kinds share
    /// one, and each reads back.
    #[test]
    fn names_are_the_serialized_ones() {
        let mut seen = std::collections::HashSet::new();
        for fix in Fix::all() {
            let json = serde_json::to_string(&fix).unwrap();
            assert_eq!(json, format!("\"{}\"", fix.name()));
            assert_eq!(fix.to_string(), fix.name());
            assert!(seen.insert(fix.name()), "{fix} twice");
            assert_eq!(fix.name().parse::<Fix>(), Ok(fix));
        }
        assert_eq!(seen.len(), RepairKind::ALL.len() + CoercionKind::ALL.len());
        for &k in RepairKind::ALL {
            assert_eq!(k.name().parse::<RepairKind>(), Ok(k));
            assert!(k.name().parse::<CoercionKind>().is_err());
            assert_eq!(k.to_string(), k.name());
        }
        for &k in CoercionKind::ALL {
            assert_eq!(k.name().parse::<CoercionKind>(), Ok(k));
            assert!(k.name().parse::<RepairKind>().is_err());
        }
        for s in [
            Strategy::Whole,
            Strategy::Fence,
            Strategy::Tag,
            Strategy::Balanced,
            Strategy::Trailing,
            Strategy::Gathered,
            Strategy::Prose,
        ] {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.name()));
        }
        let err = "TrailingComma".parse::<Fix>().unwrap_err();
        assert_eq!(err.name(), "TrailingComma");
        assert_eq!(
            err.to_string(),
            "unknown repair or coercion kind `TrailingComma`"
        );
        let err = "to_bool".parse::<RepairKind>().unwrap_err();
        assert_eq!(err.to_string(), "unknown repair kind `to_bool`");
        let err = "".parse::<CoercionKind>().unwrap_err();
        assert_eq!(err.to_string(), "unknown coercion kind ``");
    }

    /// A report of `text`, built by hand.
    fn made(strategy: Strategy, span: Range<usize>, repairs: &[(RepairKind, usize)]) -> Report {
        Report {
            strategy,
            span,
            repairs: repairs
                .iter()
                .map(|&(kind, offset)| listed::Repair::one(kind, offset))
                .collect(),
            coercions: Vec::new(),
            truncated: false,
        }
    }

    #[test]
    fn display_of_a_clean_report() {
        let text = "{\"a\": 1}";
        let report = made(Strategy::Whole, 0..8, &[]);
        assert_eq!(
            report.display(text).to_string(),
            "strategy: whole, bytes 0..8 (line 1, column 1 to line 1, column 8)\n\
             repairs: 0\n\
             coercions: 0\n\
             truncated: no\n"
        );
    }

    /// Repairs in offset order whatever their order in the report, lines
    /// and columns in characters, snippets on one line.
    #[test]
    fn display_of_repairs_in_offset_order() {
        let text = "Voilà :\n{clé: 'é',\n \"b\": [1, 2";
        let report = Report {
            truncated: true,
            ..made(
                Strategy::Trailing,
                9..text.len(),
                &[
                    (RepairKind::UnquotedKey, 10),
                    (RepairKind::Quotes, 16),
                    (RepairKind::MissingCloser, text.len()),
                    (RepairKind::MissingCloser, text.len()),
                    (RepairKind::TrailingText, 0),
                ],
            )
        };
        assert_eq!(
            report.display(text).to_string(),
            "strategy: trailing, bytes 9..33 (line 2, column 1 to line 3, column 11)\n\
             repairs: 5\n\
             \x20 line 1, column 1: text after the value (near: Voilà : {clé: 'é',)\n\
             \x20 line 2, column 2: a key without quotes (near: Voilà : {clé: 'é',  \"b\": [1,)\n\
             \x20 line 2, column 7: a string not in double quotes (near: Voilà : {clé: 'é',  \"b\": [1, 2)\n\
             \x20 line 3, column 12: an unclosed string, object or array (the text ends too early), 2 times (near: lé: 'é',  \"b\": [1, 2)\n\
             coercions: 0\n\
             truncated: yes (the value was cut off and completed)\n"
        );
    }

    #[test]
    fn display_of_coercions() {
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Row {
            n: u32,
            tags: Vec<String>,
        }
        let text = "{\"tags\": \"x\",\n \"n\": \"1,234\"}";
        let (_, report) = crate::Decoder::new()
            .decode_with_report::<Row>(text)
            .unwrap();
        assert_eq!(
            report.display(text).to_string(),
            "strategy: whole, bytes 0..28 (line 1, column 1 to line 2, column 14)\n\
             repairs: 0\n\
             coercions: 2\n\
             \x20 line 1, column 10, $.tags: one value where a list is wanted (\"x\" → [\"x\"])\n\
             \x20 line 2, column 7, $.n: a number written as a string (\"1,234\" → 1234)\n\
             truncated: no\n"
        );
    }

    /// Offsets past the text (a report shown beside another text) do not
    /// panic.
    #[test]
    fn display_of_another_text() {
        let report = made(Strategy::Fence, 5..50, &[(RepairKind::Comment, 40)]);
        assert_eq!(
            report.display("é").to_string(),
            "strategy: fence, bytes 5..50 (line 1, column 2 to line 1, column 2)\n\
             repairs: 1\n\
             \x20 line 1, column 2: a comment (near: é)\n\
             coercions: 0\n\
             truncated: no\n"
        );
    }

    /// A run of the same repair is one line, with its count, and with its
    /// first and last places when they differ; the count of repairs counts
    /// each.
    #[test]
    fn display_of_runs() {
        let text = "{{{{{{{{\n[[[";
        let (_, report) = crate::Decoder::new().repair_with_report(text).unwrap();
        assert_eq!(report.fixes(), 11);
        assert_eq!(
            report.display(text).to_string(),
            "strategy: whole, bytes 0..12 (line 1, column 1 to line 2, column 3)\n\
             repairs: 11\n\
             \x20 line 1, column 2 to line 1, column 8: text that is not JSON, 7 times (near: {{{{{{{{ [[[)\n\
             \x20 line 2, column 1 to line 2, column 3: text that is not JSON, 3 times (near: {{{{{{{{ [[[)\n\
             \x20 line 2, column 4: an unclosed string, object or array (the text ends too early) (near: {{{{{{{{ [[[)\n\
             coercions: 0\n\
             truncated: yes (the value was cut off and completed)\n"
        );
    }

    /// The repairs a report lists: one entry per run of one kind at evenly
    /// spaced places, counting every repair; two kinds taking turns are two
    /// entries; a run longer than a [`Run`] holds is one entry; a lone pair
    /// apart is two.
    #[test]
    fn listed_runs() {
        use RepairKind::*;
        let r = |kind, offset| Repair { kind, offset };
        let listed = |kind, offset, count, step| listed::Repair {
            kind,
            offset,
            count,
            step,
        };
        let cases: Vec<(Vec<Repair>, Vec<listed::Repair>)> = vec![
            (vec![], vec![]),
            (vec![r(Comment, 3)], vec![listed(Comment, 3, 1, 0)]),
            (
                (1..200_000).map(|at| r(Skipped, at)).collect(),
                vec![listed(Skipped, 1, 199_999, 1)],
            ),
            (
                vec![r(MissingCloser, 9); 4],
                vec![listed(MissingCloser, 9, 4, 0)],
            ),
            (
                (0..1000)
                    .flat_map(|k| [r(Quotes, 35 + 21 * k), r(TrailingComma, 38 + 21 * k)])
                    .collect(),
                vec![
                    listed(Quotes, 35, 1000, 21),
                    listed(TrailingComma, 38, 1000, 21),
                ],
            ),
            (
                vec![
                    r(Skipped, 1),
                    r(Skipped, 2),
                    r(Skipped, 4),
                    r(Skipped, 5),
                    r(Skipped, 7),
                ],
                vec![
                    listed(Skipped, 1, 3, 3),
                    listed(Skipped, 2, 1, 0),
                    listed(Skipped, 5, 1, 0),
                ],
            ),
            (
                vec![
                    r(Skipped, 4),
                    r(Skipped, 4 + 60_000),
                    r(MissingCloser, 70_000),
                ],
                vec![
                    listed(Skipped, 4, 1, 0),
                    listed(Skipped, 60_004, 1, 0),
                    listed(MissingCloser, 70_000, 1, 0),
                ],
            ),
        ];
        for (made, want) in cases {
            let repairs: Repairs = made.iter().copied().collect();
            let got = repairs.listed();
            assert_eq!(got, want, "{:?}", &made[..made.len().min(6)]);
            // Every repair is there, in order of the runs' first repairs.
            let mut each: Vec<Repair> = got
                .iter()
                .flat_map(|e| e.offsets().map(|offset| r(e.kind, offset)))
                .collect();
            let mut all = made.clone();
            each.sort_by_key(|r| (r.offset, r.kind));
            all.sort_by_key(|r| (r.offset, r.kind));
            assert_eq!(each, all);
        }
    }

    /// Every operation on [`Repairs`] gives what the same one on a
    /// `Vec<Repair>` gives.
    #[test]
    fn repairs_are_a_vec() {
        use RepairKind::*;
        let r = |kind, offset| Repair { kind, offset };
        let mut v: Vec<Repair> = Vec::new();
        let mut c = Repairs::default();
        let check = |v: &Vec<Repair>, c: &Repairs| {
            assert_eq!(c.to_vec(), *v);
            assert_eq!(c.len(), v.len());
            assert_eq!(c.last(), v.last().copied());
            for from in 0..=v.len() + 1 {
                let tail: Vec<Repair> = c.since(from).collect();
                assert_eq!(tail, v[from.min(v.len())..], "since {from}");
            }
        };
        let pushes = [
            r(Skipped, 1),
            r(Skipped, 2),
            r(Skipped, 3),
            r(Skipped, 5),
            r(Skipped, 7),
            r(Skipped, 9),
            r(MissingCloser, 9),
            r(MissingCloser, 9),
            r(MissingCloser, 9),
            r(Skipped, 4),
            r(Skipped, 4 + 70_000),
            r(InnerQuote, 2),
            r(InnerQuote, 4),
            r(InnerQuote, 6),
        ];
        for p in pushes {
            v.push(p);
            c.push(p);
            check(&v, &c);
        }
        // Six runs for fourteen repairs: 1, 2, 3; 5, 7, 9; the closers; 4
        // and 70 004 (too far apart for one); the inner quotes.
        assert_eq!(c.runs.len(), 6);
        assert_eq!(std::mem::size_of::<Run>(), 16);
        c.push_front(r(TrailingText, 0));
        v.insert(0, r(TrailingText, 0));
        check(&v, &c);
        c.relabel_last(NumberAsString);
        v.last_mut().unwrap().kind = NumberAsString;
        check(&v, &c);
        for len in [14, 12, 8, 7, 3, 3, 0] {
            c.truncate(len);
            v.truncate(len);
            check(&v, &c);
        }
        c.extend(pushes);
        v.extend(pushes);
        check(&v, &c);
        while let Some(p) = v.pop() {
            assert_eq!(c.pop(), Some(p));
            check(&v, &c);
        }
        assert_eq!(c.pop(), None);
        // Two kinds taking turns: one run.
        let mut c = Repairs::default();
        for k in 0..1000 {
            c.push(r(Quotes, 35 + 21 * k));
            c.push(r(TrailingComma, 38 + 21 * k));
        }
        assert_eq!(c.runs.len(), 1);
        assert_eq!(c.to_vec()[1999], r(TrailingComma, 38 + 21 * 999));
    }

    proptest::proptest! {
        /// Any sequence of the operations the scanner and the choice use
        /// gives what it gives on a `Vec<Repair>`.
        #[test]
        fn repairs_are_a_vec_always(ops in proptest::collection::vec((0u8..8, 0usize..4, 0usize..40), 0..200)) {
            use RepairKind::*;
            let kinds = [Skipped, Quotes, TrailingComma, MissingCloser];
            let mut v: Vec<Repair> = Vec::new();
            let mut c = Repairs::default();
            let mut at: usize = 100;
            for (op, kind, n) in ops {
                let kind = kinds[kind];
                match op {
                    0..=3 => {
                        // Mostly forward, now and then back.
                        at = if op == 3 { at.saturating_sub(n) } else { at + n % 8 };
                        let r = Repair { kind, offset: at };
                        v.push(r);
                        c.push(r);
                    }
                    4 => {
                        proptest::prop_assert_eq!(c.pop(), v.pop());
                    }
                    5 => {
                        let r = Repair { kind, offset: n };
                        v.insert(0, r);
                        c.push_front(r);
                    }
                    6 => {
                        if let Some(last) = v.last_mut() {
                            last.kind = kind;
                        }
                        c.relabel_last(kind);
                    }
                    _ => {
                        let len = v.len().saturating_sub(n % 5);
                        v.truncate(len);
                        c.truncate(len);
                    }
                }
                proptest::prop_assert_eq!(c.len(), v.len());
                proptest::prop_assert_eq!(c.last(), v.last().copied());
                proptest::prop_assert_eq!(c.to_vec(), v.clone());
                let from = n % (v.len() + 2);
                let tail: Vec<Repair> = c.since(from).collect();
                proptest::prop_assert_eq!(&tail[..], &v[from.min(v.len())..]);
            }
        }
    }
}
