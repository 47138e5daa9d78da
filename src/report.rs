//! What the decoder did to the text: which candidate it took and every repair.

use std::ops::Range;

use serde::Serialize;

/// How the decoded value was found in the reply.
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
}

/// One thing the scanner changed to make the text a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Repair {
    /// What was repaired.
    pub kind: RepairKind,
    /// Byte offset in the caller's text where the repair applies.
    pub offset: usize,
}

/// The kinds of repair the scanner makes. Each is recorded with its offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RepairKind {
    /// A comma before a closing `}` or `]` was dropped.
    TrailingComma,
    /// A leading or doubled comma was dropped.
    ExtraComma,
    /// A missing comma between two members or elements was inserted.
    MissingComma,
    /// A missing colon between a key and its value was inserted.
    MissingColon,
    /// A key with a colon but no value got `null`.
    MissingValue,
    /// A key with no colon and no value was dropped.
    DanglingKey,
    /// A string in single, curly or backtick quotes was re-quoted.
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
    /// A non-ASCII space (NBSP, zero-width space, …) between tokens was skipped.
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
    /// Several top-level values were gathered into one array.
    MultipleValues,
}

impl RepairKind {
    /// How much this repair bends the text, used to rank candidate spans: a
    /// candidate with a lower total wins. Truncation and cosmetic fixes are
    /// light; guesses about where a string ends, or text taken as a string
    /// without quotes, are heavy. (Internal: the numbers may change.)
    pub(crate) fn weight(self) -> u32 {
        use RepairKind::*;
        match self {
            TrailingComma | ExtraComma | Comment | SpecialWhitespace | Ellipsis | Quotes
            | ControlCharacter | MissingCloser | TruncatedValue | TrailingText => 1,
            MissingComma | MissingColon | MissingValue | DanglingKey | UnquotedKey | Literal
            | NonFiniteNumber | InvalidEscape | LoneSurrogate | NumberFormat | Concatenation
            | EscapedJson | Wrapper | Tuple | Regex | DoubledQuotes | CodeFence | SetLiteral => 2,
            InnerQuote | MissingQuote | StrayCloser | MismatchedCloser | Reopened
            | ImplicitObject | MultipleValues => 3,
            UnquotedString | NumberAsString | Skipped => 4,
        }
    }
}

/// What was done to the text to decode it.
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
/// assert!(!report.truncated);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// How the value was found.
    pub strategy: Strategy,
    /// The byte span of the caller's text that was decoded.
    pub span: Range<usize>,
    /// Every repair, in the order the scanner made them.
    pub repairs: Vec<Repair>,
    /// Whether the value was cut off (at the end of the input, or at the
    /// end of its fence) and completed.
    pub truncated: bool,
}

impl Report {
    /// True when the value was taken as it was written: no repair at all.
    /// (Extraction from prose or fences is not a repair.)
    pub fn is_clean(&self) -> bool {
        self.repairs.is_empty() && !self.truncated
    }

    /// The sum of the repairs' weights (how much the text was bent).
    pub(crate) fn weight(&self) -> u32 {
        self.repairs.iter().map(|r| r.kind.weight()).sum()
    }
}
