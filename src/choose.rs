//! The choice among candidate spans: the loop that tries them and the one
//! ranking rule that weighs how likely each reading is.
//!
//! Candidates are tried in priority order; the first that decodes with no
//! repair wins at once (so a clean reply costs one pass). Otherwise the one
//! with the lightest repairs wins, ties going to the earlier. When every
//! candidate fails, the error returned is the one from the most promising
//! candidate: one of the shape the target wants, then the one that got
//! furthest into its span before failing.

use std::collections::HashSet;
use std::ops::Range;

use crate::de;
use crate::error::Hint;
use crate::error::{Error, ErrorKind, Result};
use crate::extract::{self, Candidate};
use crate::options::Decoder;
use crate::prose;
use crate::report::Coercion;
use crate::report::{Reading, Repair, RepairKind, Strategy};
use crate::scan::part::PartText;
use crate::scan::tape::{Summary, Tape};
use crate::scan::{lex, Scanner, Spare};
use crate::shape::{Scalar, Shape};
use crate::work;

/// What one read of a tape gave: the value, and the fixes the decode made
/// beside the scanner's repairs.
pub(crate) struct Decoded<R> {
    pub value: R,
    /// The coercions made, each with whether it was of a key.
    pub coercions: Vec<(Coercion, bool)>,
    /// The coercions only counted.
    pub counted: usize,
    /// Repairs made inside strings that held JSON.
    pub repairs: Vec<Repair>,
    /// The root sequence's first element, cut off, was left out: the value
    /// holds nothing of the text.
    pub emptied: bool,
}

impl<R> Decoded<R> {
    /// A value read with no fix of the decoder's.
    pub(crate) fn plain(value: R) -> Decoded<R> {
        Decoded {
            value,
            coercions: Vec::new(),
            counted: 0,
            repairs: Vec::new(),
            emptied: false,
        }
    }
}

/// How a candidate is read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mode {
    /// The partial policy is on (see `ScanOptions::partial`).
    pub partial: bool,
    /// The read asks whether a value is complete at its start: the span is
    /// read onto a tape first. Without, the read takes the scanner's
    /// events as they come.
    pub tape: bool,
    /// The read is `repair()`'s: it removes an elision where it may remove
    /// an ellipsis (see `Rules::for_repair`).
    pub repair: bool,
}

/// What a read of a candidate reads from.
pub(crate) enum Source<'s, 'de> {
    Tape(&'s Tape),
    Scanner(&'s mut Scanner<'de>),
}

/// How one attempt at a candidate went.
struct Attempt<R> {
    value: R,
    report: Reading,
    more_roots: bool,
    /// The root value was an object or array and nothing followed it: the text
    /// was the value.
    covers: bool,
    /// How many top-level values were read.
    roots: u32,
    /// A top-level value was bare prose (a word or sentence read as a string).
    prose_root: bool,
    /// Every top-level value was an object or array.
    containers: bool,
    /// See [`Decoded::emptied`].
    emptied: bool,
}

/// How many times one candidate's tape is read again with something
/// learned (a value to read differently) before its error stands.
const MAX_RESTARTS: usize = 64;

/// The one retry loop: `read` a tape again while its error teaches
/// something new to read differently (a key in another style, a
/// placeholder for `None`: an error's [`Hint`]), up to [`MAX_RESTARTS`]
/// times; else its result stands.
fn reread<R>(mut read: impl FnMut(&[Hint]) -> Result<R>) -> Result<R> {
    let mut hints: Vec<Hint> = Vec::new();
    loop {
        match read(&hints) {
            Err(e) if hints.len() < MAX_RESTARTS => match e.hint() {
                Some(hint) if !hints.contains(hint) => hints.push(hint.clone()),
                _ => return Err(e),
            },
            Err(e)
                if e.hint()
                    .is_some_and(|h| matches!(h, Hint::Coerce { .. }) && !hints.contains(h)) =>
            {
                return Err(e.out_of_restarts(MAX_RESTARTS));
            }
            result => return result,
        }
    }
}

/// Whether a candidate starting with `first` has the shape `shape` wants.
fn wants(shape: Shape, first: Option<u8>) -> bool {
    match (shape, first) {
        (Shape::Object, Some(b)) => b == b'{',
        (Shape::Array, Some(b)) => b == b'[' || b == b'{',
        _ => true,
    }
}

/// One thing to try after the whole text.
enum Step {
    One(Candidate),
    /// A candidate the prose after it takes back (see [`retracted`]): tried
    /// only when nothing before it was read.
    Retracted(Candidate),
    /// Several object spans, all found by one strategy, read as one
    /// sequence.
    Gather(Strategy, Vec<Range<usize>>),
}

/// How likely one reading of a candidate is. Readings are compared field by
/// field, and the lower one is the likelier: a reading that built structure
/// out of prose loses to any that did not, whatever the other's repairs
/// weigh; then the one that bent the text less wins. Ties go to the
/// candidate tried first.
///
/// Before any ranking, a value that is the whole reply (or a whole fence or
/// tag) is no prose: a candidate read from all of its span as one object or
/// array, with no structure made of prose, covers its span, and no span
/// nested inside it is tried (`[dog, [cat, cow,], [pig,],]` is that list,
/// never its lighter piece `[pig,]`; `{we#ird: [x&y, z]}` is that object).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Rank {
    /// Repairs that made structure out of prose: words dropped from an
    /// object (`{ for blocks.`), a bare key with no colon after it and more
    /// text following (`{name}`, `{ for blocks. {…}`).
    pub prose: u32,
    /// 0 for a span the model marked as its answer (a fence, a tag), 1 for
    /// the rest: a `[1]` citation in the prose does not beat a fenced value
    /// that needed a repair.
    pub unmarked: u32,
    /// 1 for an empty list or object in prose that is quoted or inline
    /// code (``Return `[]` if none``, `'{}'`): a value the prose names,
    /// which gives way to any candidate that is not one (the answer after
    /// it); alone, it is the answer.
    pub named: u32,
    /// 1 for a fence or tag cut before its first member (`{`, `[`,
    /// `{"ke`): it holds nothing yet, so it does not take the place of
    /// another marked answer that is complete (a repaired fence, then a
    /// fence cut just after its opener: the reply was cut there, and the
    /// empty value it completes to is no answer).
    pub empty: u32,
    /// The repairs' weights, one for each coercion, one if the reply was
    /// cut off.
    pub bent: u32,
}

/// The one ranking rule (see [`Rank`]): the reading in `report` of a
/// candidate found by `strategy`.
pub(crate) fn rank(text: &str, strategy: Strategy, report: &Reading) -> Rank {
    Rank {
        prose: prose_words(text, report.repairs.iter()),
        unmarked: u32::from(!matches!(strategy, Strategy::Fence | Strategy::Tag)),
        named: u32::from(strategy == Strategy::Balanced && named_empty(text, &report.span)),
        empty: u32::from(
            report.truncated
                && matches!(strategy, Strategy::Fence | Strategy::Tag)
                && empty(&text[report.span.clone()]),
        ),
        bent: bent(text, report),
    }
}

/// Whether `span` is an empty list or object between two of the same
/// quote or backtick (`` `[]` ``, `'{ }'`, `"[]"`): named in the prose.
fn named_empty(text: &str, span: &Range<usize>) -> bool {
    let b = text.as_bytes();
    is_empty_value(&text[span.clone()])
        && span.start > 0
        && matches!(b[span.start - 1], b'`' | b'\'' | b'"')
        && b.get(span.end) == Some(&b[span.start - 1])
}

/// Whether `value` is an empty list or object, spaces in it at most.
fn is_empty_value(value: &str) -> bool {
    // (Its last byte first: a cut span may end inside a character.)
    matches!(value.get(..1), Some("[" | "{"))
        && value.len() >= 2
        && matches!(value.as_bytes()[value.len() - 1], b']' | b'}')
        && value[1..value.len() - 1].trim().is_empty()
}

/// Whether `span` is an empty list or object an instruction names
/// unquoted (`Use {} when…`, [`prose::instructs`]): it gives way to the
/// next value of its shape when that one is introduced as the answer right
/// after its sentence (`Here: {…}`, [`prose::answers_after`]), and to
/// nothing else (an example after it, `otherwise a list like ["x"]`, is
/// none).
fn instructed_empty(text: &str, span: &Range<usize>) -> bool {
    is_empty_value(&text[span.clone()]) && prose::instructs(text, span)
}

/// Whether the text of a cut span holds no member yet: its opener, then
/// spaces, or an object's first key, its colon, and no value yet (an
/// opening quote at most).
fn empty(span: &str) -> bool {
    let mut rest = span.chars();
    let open = rest.next();
    let rest = rest.as_str().trim();
    match open {
        Some('[') => rest.is_empty(),
        Some('{') => match rest.split_once(':') {
            None => true,
            Some((key, value)) => {
                let value = value.trim();
                one_key(key.trim()) && matches!(value, "" | "\"" | "'")
            }
        },
        _ => false,
    }
}

/// Whether `key` is one key as written: quoted (nothing but its quotes
/// quote in it) or a bare word.
fn one_key(key: &str) -> bool {
    match key.chars().next() {
        Some(q @ ('"' | '\'')) => {
            key.len() >= 2 && key.ends_with(q) && !key[1..key.len() - 1].contains(q)
        }
        Some(_) => key.bytes().all(lex::is_word),
        None => false,
    }
}

/// How much a reading bent the text (see [`Rank::bent`]). A reply cut off
/// counts one, however it was cut: the repairs in the member the cut falls
/// in (its closers, a key with no value yet, a literal or number cut short,
/// a comma with nothing after it yet) are the cut's, not the model's. Else
/// a cut value would weigh more or less as each byte arrives (`{"` more
/// than `{`), and a partial view would flip between it and a rival.
fn bent(text: &str, report: &Reading) -> u32 {
    let coercions = u32::try_from(report.coercions()).unwrap_or(u32::MAX);
    if !report.truncated {
        return weight_before(text, report, usize::MAX).saturating_add(coercions);
    }
    let span = &text.as_bytes()[report.span.clone()];
    let member = report.span.start
        + span
            .iter()
            .rposition(|b| matches!(b, b',' | b'{' | b'[' | b'('))
            .unwrap_or(0);
    weight_before(text, report, member).saturating_add(coercions) + 1
}

/// The weights of the repairs in `report` made before offset `end` (see
/// [`RepairKind::weight`]). A dialect's spelling weighs nothing where it
/// is one: a bare key that is no identifier is prose read as a key (`{ a
/// brace. Here it is: {…} }`), and a single-quoted string that is the
/// whole value is words in quotes (`' and '` between two quoted tag
/// names); those weigh what a guess does.
fn weight_before(text: &str, report: &Reading, end: usize) -> u32 {
    let b = text.as_bytes();
    report
        .repairs
        .iter()
        .filter(|r| r.offset < end)
        .map(|r| match r.kind {
            RepairKind::UnquotedKey if !identifier_key(b, r.offset) => 2,
            RepairKind::Quotes if r.offset == report.span.start => 1,
            kind => kind.weight(),
        })
        .sum()
}

/// Whether the bare key at `at` is one identifier followed by its colon
/// (`name:`, `user_id :`).
fn identifier_key(b: &[u8], at: usize) -> bool {
    let mut k = at;
    while k < b.len() && (lex::is_word(b[k]) || b[k] == b'-') {
        k += 1;
    }
    while k < b.len() && matches!(b[k], b' ' | b'\t') {
        k += 1;
    }
    k > at && k < b.len() && b[k] == b':'
}

/// How many of `repairs` made structure out of prose (see [`Rank::prose`]).
pub(crate) fn prose_words(text: &str, repairs: impl Iterator<Item = Repair>) -> u32 {
    let b = text.as_bytes();
    let mut prose = 0;
    let mut repairs = repairs.peekable();
    while let Some(r) = repairs.next() {
        let word = b.get(r.offset).is_some_and(u8::is_ascii_alphabetic);
        let structure = match r.kind {
            RepairKind::Skipped => word,
            RepairKind::UnquotedKey => match repairs.peek().map(|n| n.kind) {
                Some(RepairKind::MissingColon) => true,
                // A key cut off by the end of the reply, before or after
                // its colon, is truncation.
                Some(RepairKind::DanglingKey) => {
                    let mut k = r.offset;
                    while k < b.len() && lex::is_word(b[k]) {
                        k += 1;
                    }
                    let mut next = lex::next_significant(b, k, b.len());
                    if next < b.len() && b[next] == b':' {
                        next = lex::next_significant(b, next + 1, b.len());
                    }
                    next < b.len()
                }
                _ => false,
            },
            _ => false,
        };
        prose += u32::from(structure);
    }
    prose
}

/// The best result and the most promising error so far.
struct Tally<R> {
    best: Option<(R, Reading, Rank)>,
    error: Option<((bool, usize), Error)>,
    /// Spans already decoded that a later step may find again: the whole
    /// text, fences and tags, gathered spans. A span in prose is not kept:
    /// each opener starts one at most, and the only other step of that
    /// phase, a gathered one, is not looked up here; so a reply with a
    /// placeholder in every few bytes does not keep them all.
    tried: HashSet<(usize, usize)>,
    /// Spans that decoded whole (pieces of them are not better answers),
    /// sorted by start; none holds another, so their ends rise too.
    covered: Vec<Range<usize>>,
    /// Whether any candidate had the shape the target wants.
    shaped: bool,
    /// Values the answer may not hold, each with the error to give if it
    /// does: a candidate the sentence after it takes back, with none after
    /// it (see [`withdrawn`]); a value and the correction that patches only
    /// some of its members (see [`retracted`]).
    refused: Vec<(Range<usize>, Error)>,
}

impl<R> Tally<R> {
    fn new() -> Tally<R> {
        Tally {
            best: None,
            error: None,
            tried: HashSet::new(),
            covered: Vec::new(),
            shaped: false,
            refused: Vec::new(),
        }
    }

    /// Whether `span` was tried already or lies inside a span that decoded
    /// whole.
    fn skip(&self, span: &Range<usize>) -> bool {
        self.tried.contains(&(span.start, span.end)) || self.within_covered(span)
    }

    fn within_covered(&self, span: &Range<usize>) -> bool {
        let k = self.covered.partition_point(|c| c.start <= span.start);
        k > 0 && span.end <= self.covered[k - 1].end
    }

    /// Adds a span that decoded whole, dropping those it holds.
    fn cover(&mut self, span: &Range<usize>) {
        if self.within_covered(span) {
            return;
        }
        let k = self.covered.partition_point(|c| c.start < span.start);
        let mut e = k;
        while e < self.covered.len() && self.covered[e].end <= span.end {
            e += 1;
        }
        self.covered.splice(k..e, [span.clone()]);
    }

    /// Records how a candidate found by `strategy` went (its span among
    /// those tried if `remember`); returns true when it is clean and the
    /// likeliest so far, so the search can stop.
    fn consider(
        &mut self,
        text: &str,
        strategy: Strategy,
        span: &Range<usize>,
        remember: bool,
        shaped: bool,
        outcome: Result<Attempt<R>>,
    ) -> bool {
        if remember {
            self.tried.insert((span.start, span.end));
        }
        self.shaped |= shaped;
        match outcome {
            Ok(a) => {
                if a.covers {
                    self.cover(span);
                }
                let clean = a.report.is_clean();
                let rank = rank(text, strategy, &a.report);
                if self.best.as_ref().is_none_or(|(_, _, b)| rank < *b) {
                    self.best = Some((a.value, a.report, rank));
                    // (A value the prose names gives way to a later one.)
                    return clean && rank.named == 0;
                }
                false
            }
            Err(e) => {
                let rank = (shaped, e.offset().unwrap_or(0).saturating_sub(span.start));
                if self.error.as_ref().is_none_or(|(r, _)| rank > *r) {
                    self.error = Some((rank, e));
                }
                false
            }
        }
    }

    /// Whether a reading of a span the model marked, with no structure made
    /// of prose, was found: no span in the prose can beat it.
    fn marked_found(&self) -> bool {
        self.best
            .as_ref()
            .is_some_and(|(_, _, r)| r.unmarked == 0 && r.prose == 0)
    }

    fn take_best(&mut self) -> Option<(R, Reading)> {
        self.best.take().map(|(v, r, _)| (v, r))
    }

    /// The best reading, unless it holds a value the reply takes back and
    /// gives no whole value in place of (`{"a": 1}⏎Oops, my mistake.`, or
    /// a correction of some of its members): then that error.
    fn answer(&mut self) -> Option<Result<(R, Reading)>> {
        let best = self.take_best()?;
        let s = &best.1.span;
        Some(
            match self
                .refused
                .iter()
                .position(|(r, _)| s.start <= r.start && r.end <= s.end)
            {
                Some(k) => Err(self.refused.swap_remove(k).1),
                None => Ok(best),
            },
        )
    }
}

/// The error for a reading refused because it is prose, not JSON.
fn prose_error(text: &str, span: &Range<usize>) -> Error {
    Error::prose(&text[span.clone()], span.start)
}

impl Decoder {
    /// A repair of a kind the rules deny (the scanner refuses those it
    /// makes; these are made around it: text after the value, several
    /// values gathered, spans left out).
    fn vet<R>(&self, outcome: Result<Attempt<R>>) -> Result<Attempt<R>> {
        let a = outcome?;
        if self.opts.rules.all_repairs() {
            return Ok(a);
        }
        let denied = a
            .report
            .repairs
            .iter()
            // (An elision the read made was allowed there: the scanner
            // asks where it would make one.)
            .find(|r| r.kind != RepairKind::Elision && !self.opts.rules.repair(r.kind));
        match denied {
            Some(r) => Err(Error::denied(r)),
            None => Ok(a),
        }
    }

    /// Prose is not a value: a reading whose top-level value is bare prose
    /// is refused for every target (a scalar target reads prose its own way,
    /// see `prose`), and for a target that takes anything, so is a lone
    /// number or literal with words after it (`12, roughly.`). A quoted
    /// string followed by prose (`"yes" is my answer`) was marked as the
    /// value by its quotes.
    fn judge<R>(
        &self,
        text: &str,
        span: &Range<usize>,
        shape: Shape,
        outcome: Result<Attempt<R>>,
    ) -> Result<Attempt<R>> {
        let a = self.vet(outcome)?;
        // Words after the value, not punctuation (`callback(2);`, `4,`)
        // and not a comment (`7 // seven`: comments are whitespace).
        let then_text = || {
            let b = text.as_bytes();
            let from = lex::next_significant(b, a.report.span.end.min(span.end), span.end);
            text[from..span.end].chars().any(char::is_alphanumeric)
        };
        let b = text.as_bytes();
        let quoted =
            lex::quote_at(b, lex::next_significant(b, span.start, span.end), span.end).is_some();
        // A bare scalar with words after it is a sentence, for any target
        // but a scalar (read from prose by its own rules): never one word
        // of it made a list (`1 and 2` is no `[1]`).
        let scalar = matches!(shape, Shape::Scalar(_));
        if a.prose_root || (!scalar && !a.containers && !quoted && then_text()) {
            return Err(prose_error(text, span));
        }
        Ok(a)
    }

    /// Tries the candidates in `text` and returns the likeliest reading.
    /// `clean` reads a candidate that is one valid JSON value the fast way
    /// (serde_json), or gives `None`; `sink` reads one through the tolerant
    /// scanner.
    pub(crate) fn run<'de, R, C, F>(
        &self,
        text: &'de str,
        outline: &extract::Outline,
        shape: Shape,
        policy: Mode,
        mut clean: C,
        mut sink: F,
    ) -> Result<(R, Reading)>
    where
        C: FnMut(&'de str) -> Option<R>,
        F: FnMut(Source<'_, 'de>, &[Hint], Range<usize>) -> Result<Decoded<R>>,
    {
        let (angle, body) = (outline.angle, outline.body.clone());
        if text[body.clone()].trim().is_empty() {
            let bom = extract::bom(text);
            let what = if !text[bom..].trim().is_empty() {
                "the reply holds only a reasoning block"
            } else if text.len() == bom {
                "the reply is empty"
            } else {
                "the reply is only whitespace"
            };
            let e = Error::at(
                ErrorKind::NoJson,
                format_args!("no JSON value found: {what}"),
                body.start,
            );
            return Err(e.locate(text));
        }
        let mut tally = Tally::new();
        let wants = |first: Option<u8>| wants(shape, first);

        // A reply that opens with a word and holds a fence reads the fence
        // first: read whole, it is prose (refused) for any target but a
        // scalar, or structure built around its words, which a marked
        // reading without prose beats. The whole read is then skipped (it
        // was a fifth of a short fenced reply's decode).
        let mut whole = match self.opts.strategies.whole {
            true => outline.whole.clone(),
            false => None,
        };
        let opens_with_word = text[body.clone()]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_alphabetic());
        // Not when a bracket opens before the fence: the fence may be
        // inside the value (`run_code({"code": ```…```})`), which only the
        // whole read sees.
        let before_fence = extract::find(text.as_bytes(), body.start, body.end, b"```")
            .map(|at| &text.as_bytes()[body.start..at]);
        let defer = opens_with_word
            && !matches!(shape, Shape::Scalar(_))
            && before_fence.is_some_and(|b| memchr::memchr3(b'{', b'[', b'(', b).is_none());
        if !defer {
            if let Some(c) = whole.take() {
                if let Some(done) = self.whole(text, &c, shape, policy, &mut sink, &mut tally) {
                    return done.map_err(|e| e.locate(text));
                }
            }
        }

        // Reasoning blocks after the start: nothing inside them is a candidate.
        let thoughts = extract::reasoning(text, body.clone(), angle);
        let mut cues = None;
        for phase in [Strategy::Fence, Strategy::Balanced] {
            if phase == Strategy::Balanced && !tally.marked_found() {
                if let Some(c) = whole.take() {
                    if let Some(done) = self.whole(text, &c, shape, policy, &mut sink, &mut tally) {
                        return done.map_err(|e| e.locate(text));
                    }
                }
            }
            let candidates = if phase == Strategy::Fence {
                extract::marked(text, body.clone(), self.opts.strategies, &thoughts, angle)
            } else if tally.marked_found() {
                break;
            } else {
                let mut skip = tally.covered.clone();
                skip.extend(thoughts.iter().cloned());
                skip.sort_by_key(|s| s.start);
                extract::prose(text, body.clone(), self.opts.strategies, &skip)
            };
            tally
                .refused
                .extend(withdrawn(text, &body, candidates.iter()));
            let gather = self.opts.strategies.gather;
            let references = candidates.iter().filter(|c| is_reference(text, c)).count();
            let retracted = retracted(
                text,
                &body,
                candidates.iter(),
                &mut cues,
                &mut tally.refused,
            );
            // The whole read's value, with text after it, is one of those
            // taken back (`{"a": 1} Oops, typo. Corrected: {"a": 2`): it
            // gives way too, and is read again last if nothing else reads.
            if let Some((_, reading, _)) = &tally.best {
                let span = (reading.span.start, reading.span.end);
                if retracted.binary_search(&span).is_ok() {
                    tally.best = None;
                }
            }
            for step in plan(text, candidates.iter(), shape, gather, &retracted) {
                if matches!(step, Step::Retracted(_)) && tally.best.is_some() {
                    break;
                }
                let (strategy, span, remember, first, outcome) = match step {
                    Step::One(c) | Step::Retracted(c) => {
                        // A list in prose is no struct or map: read in order
                        // into one (serde's derive takes a sequence), a
                        // bracketed aside (`[^'"]`, `[1]`) would fill fields.
                        let list_in_prose = shape == Shape::Object
                            && matches!(c.strategy, Strategy::Balanced | Strategy::Trailing)
                            && c.first_byte(text) == Some(b'[');
                        if tally.skip(&c.span)
                            || list_in_prose
                            || marks_in_brackets(text, &c)
                            || (shape == Shape::Any && not_a_value(text, &c, references))
                            || cites_a_value(text, &c)
                            || (shape == Shape::Scalar(Scalar::Text) && is_aside(text, &c))
                        {
                            continue;
                        }
                        let outcome = match self.clean(text, &c, shape, &mut clean) {
                            Some(a) => Ok(a),
                            None => self.candidate(text, &c, shape, policy, &mut sink),
                        };
                        let outcome = self.judge(text, &c.span, shape, outcome);
                        let in_prose =
                            matches!(c.strategy, Strategy::Balanced | Strategy::Trailing);
                        (
                            c.strategy,
                            c.span.clone(),
                            !in_prose,
                            c.first_byte(text),
                            outcome,
                        )
                    }
                    Step::Gather(strategy, spans) => {
                        let span = spans[0].start..spans[spans.len() - 1].end;
                        let run = strategy == Strategy::Fence && fence_run(text, &spans);
                        let outcome = match self.gather(text, spans, run, policy, &mut sink) {
                            Gathering::Stands(e) => return Err(e.locate(text)),
                            Gathering::Read(outcome) => outcome,
                        };
                        let outcome = self.judge(text, &span, shape, outcome);
                        (strategy, span, true, Some(b'['), outcome)
                    }
                };
                if tally.consider(text, strategy, &span, remember, wants(first), outcome) {
                    let best = tally.answer().expect("clean result");
                    return best.map_err(|e| e.locate(text));
                }
            }
        }

        if let Some(best) = tally.answer() {
            return best.map_err(|e| e.locate(text));
        }
        let err = match (shape, tally.shaped) {
            (Shape::Object | Shape::Array, false) => {
                let (want, spans) = if shape == Shape::Object {
                    ("object", "{…} spans")
                } else {
                    ("array", "[…] spans")
                };
                let rest = text[body].trim_start().as_bytes();
                let found = match rest {
                    [b'[', ..] => "an array",
                    [b'{', ..] => "an object",
                    [b'"', ..] => "a string",
                    // `- apples` is a bullet, not a negative number.
                    [b'0'..=b'9', ..] | [b'-', b'0'..=b'9', ..] => "a number",
                    _ => "prose",
                };
                Error::new(
                    ErrorKind::NoJson,
                    format_args!(
                        "expected a JSON {want}, found {found} (looked for a bare value, ```json fences, <json> tags, and {spans})"
                    ),
                )
            }
            _ => match tally.error {
                Some((_, e)) => e,
                // No candidate: a reply that is blocks of code and words.
                None if self.opts.strategies.any() => prose_error(text, &body),
                None => Error::new(
                    ErrorKind::NoJson,
                    "no JSON value found: every extraction strategy is turned off",
                ),
            },
        };
        Err(err.locate(text))
    }

    /// The whole body as one candidate, `c`, tallied: the reading to return
    /// at once, if it is one (it covers the text, or it is clean).
    fn whole<'de, R, F>(
        &self,
        text: &'de str,
        c: &Candidate,
        shape: Shape,
        policy: Mode,
        sink: &mut F,
        tally: &mut Tally<R>,
    ) -> Option<Result<(R, Reading)>>
    where
        F: FnMut(Source<'_, 'de>, &[Hint], Range<usize>) -> Result<Decoded<R>>,
    {
        let outcome = self.candidate(text, c, shape, policy, sink);
        // Values one after another with a comment between them that takes
        // one back (`{…}⏎# Wait, that is wrong. Here it is:⏎{…}`, `{…}⏎##
        // Final answer⏎{…}`): prose, not a comment; each value is read on
        // its own, as in prose.
        // (Two values at most: of more, the rest would be read as prose
        // reads values, the first alone.)
        if matches!(&outcome, Ok(a) if a.roots <= 2 && retracts_in_comments(text, &a.report, a.roots > 1))
        {
            return None;
        }
        let outcome = self.judge(text, &c.span, shape, outcome);
        if matches!(&outcome, Ok(a) if a.covers) {
            // The whole text is one object or array (maybe repaired):
            // pieces of it are not better answers.
            let a = outcome.expect("checked");
            return Some(Ok((a.value, a.report)));
        }
        // Objects one after another and nothing else (JSON lines) for a
        // sequence target: every one is a value the model wrote, so one
        // that is no element is the decode's error, as it is in `[...]`
        // (gathered as spans, it would be left out: data dropped). Not
        // where one is empty or a placeholder (`{}`, `{name}`): those carry
        // nothing, and are left out.
        let objects = shape == Shape::Array
            && c.first_byte(text) == Some(b'{')
            && extract::container_roots(text, c.span.clone())
                .is_some_and(|(all, full)| all > 1 && full == all);
        match outcome {
            Err(e) if objects && e.kind() == ErrorKind::Data => return Some(Err(e)),
            outcome => {
                let first = c.first_byte(text);
                if tally.consider(
                    text,
                    c.strategy,
                    &c.span,
                    true,
                    wants(shape, first),
                    outcome,
                ) {
                    return tally.take_best().map(Ok);
                }
            }
        }
        None
    }

    /// Several object spans read as one sequence. Spans that plainly are
    /// prose placeholders (`{name}`) are left out first, when others start
    /// like JSON. If the rest fail together, each is read alone as a
    /// sequence of one and those that fail are left out too: one read per
    /// span, so the work stays linear however many fail. Each span left out
    /// is recorded as a repair.
    ///
    /// Not in a `run` (a fence per value, nothing but markers between
    /// them) where every span starts like JSON: each one is a value the
    /// model wrote, so one that is no element is the decode's error, as it
    /// is in `[...]` and in JSON lines (see [`whole`](Self::whole)), and
    /// it stands: no other candidate is tried.
    fn gather<'de, R, F>(
        &self,
        text: &'de str,
        spans: Vec<Range<usize>>,
        run: bool,
        policy: Mode,
        sink: &mut F,
    ) -> Gathering<R>
    where
        F: FnMut(Source<'_, 'de>, &[Hint], Range<usize>) -> Result<Decoded<R>>,
    {
        let (mut spans, mut left_out): (Vec<_>, Vec<_>) = spans
            .into_iter()
            .partition(|s| extract::starts_like_json(text.as_bytes(), s.start, s.end));
        if spans.is_empty() {
            std::mem::swap(&mut spans, &mut left_out);
        }
        // A reading that left its first span out as cut holds nothing of
        // it (nor of the spans after it): no reading (each span alone is
        // tried next).
        let holds = |outcome: Result<Attempt<R>>| match outcome {
            Ok(a) if a.emptied => Err(Error::at(
                ErrorKind::Truncated,
                "the reply was cut off before this value was complete",
                a.report.span.start,
            )),
            outcome => outcome,
        };
        let mut outcome = holds(self.attempt(text, &spans, Strategy::Gathered, true, policy, sink));
        match outcome {
            Err(e) if run && left_out.is_empty() && e.kind() == ErrorKind::Data => {
                return Gathering::Stands(e)
            }
            _ => {}
        }
        if outcome.is_err() && spans.len() > 1 {
            let (good, bad): (Vec<_>, Vec<_>) = spans.into_iter().partition(|s| {
                self.attempt(
                    text,
                    std::slice::from_ref(s),
                    Strategy::Gathered,
                    true,
                    policy,
                    sink,
                )
                .is_ok_and(|a| !a.emptied)
            });
            if !good.is_empty() {
                left_out.extend(bad);
                outcome = holds(self.attempt(text, &good, Strategy::Gathered, true, policy, sink));
            }
        }
        if let Ok(a) = &mut outcome {
            // Never silently: each span left out is a repair.
            let mut dropped: Vec<usize> = left_out.iter().map(|s| s.start).collect();
            dropped.sort_unstable();
            a.report
                .repairs
                .extend(dropped.iter().map(|&offset| Repair {
                    kind: RepairKind::Skipped,
                    offset,
                }));
        }
        Gathering::Read(outcome)
    }

    /// A candidate that is one valid JSON value, read by `clean` (serde_json):
    /// the attempt the tolerant path would make of it, which reads valid
    /// JSON as serde_json does, with no repair, without reading it token by
    /// token. `None` when `clean` cannot read it, or for an object given to
    /// a sequence target (read as a run of values, see
    /// [`candidate`](Self::candidate)).
    fn clean<'de, R, C>(
        &self,
        text: &'de str,
        c: &Candidate,
        shape: Shape,
        clean: &mut C,
    ) -> Option<Attempt<R>>
    where
        C: FnMut(&'de str) -> Option<R>,
    {
        let b = text.as_bytes();
        let first = *b.get(c.span.start)?;
        if shape == Shape::Array && self.opts.strategies.gather && first == b'{' {
            return None;
        }
        let value = clean(&text[c.span.clone()])?;
        work::add(c.span.len());
        let containers = matches!(first, b'{' | b'[');
        let one_string = lex::quote_at(b, c.span.start, c.span.end).is_some();
        let covers = (containers || one_string)
            && (!containers || extract::starts_like_json(b, c.span.start, c.span.end));
        Some(Attempt {
            value,
            report: Reading::clean(c.strategy, c.span.clone()),
            more_roots: false,
            covers,
            roots: 1,
            prose_root: false,
            containers,
            emptied: false,
        })
    }

    /// Decodes one candidate: an object-shaped span for a sequence target is
    /// read as a run of values; a value followed by more top-level values is
    /// re-read as one array when the target takes anything.
    fn candidate<'de, R, F>(
        &self,
        text: &'de str,
        c: &Candidate,
        shape: Shape,
        policy: Mode,
        sink: &mut F,
    ) -> Result<Attempt<R>>
    where
        F: FnMut(Source<'_, 'de>, &[Hint], Range<usize>) -> Result<Decoded<R>>,
    {
        let span = std::slice::from_ref(&c.span);
        // An object that is no list: what it is, where the read failed (so
        // the error ranks as far as the read got).
        let not_a_list = |e: &Error| {
            let at = e.offset().unwrap_or(c.span.start);
            de::not_a_list(text, c.span.start, at).locate(text)
        };
        if shape == Shape::Array && self.opts.strategies.gather && c.first_byte(text) == Some(b'{')
        {
            match self.attempt(text, span, c.strategy, true, policy, sink) {
                // One object, cut off, that is no element either, so the
                // run came out empty: read as the value given, as it is
                // once complete. A wrapped list (`{"items": [1, 2]`) is
                // read so (left out, its list would be data dropped); an
                // object that can be no list however it goes on is the
                // error it will be (`{"a": 3` for numbers). One that may
                // still be either is left out while it is cut.
                Ok(a) if a.emptied && one_root(text, &c.span) => {
                    return match self.attempt(text, span, c.strategy, false, policy, sink) {
                        Ok(single) => Ok(single),
                        Err(e)
                            if e.kind() == ErrorKind::Data
                                && !e.is_ambiguous()
                                && de::no_wrapped_list(text.as_bytes(), c.span.start) =>
                        {
                            Err(not_a_list(&e))
                        }
                        Err(_) => Ok(a),
                    };
                }
                Ok(mut a) => {
                    if a.roots > 1 {
                        a.report.strategy = Strategy::Gathered;
                    }
                    return Ok(a);
                }
                // One object that is no element: read as the value given
                // for the sequence (a wrapped list, or an error that says
                // what the object was).
                Err(_) if one_root(text, &c.span) => {
                    let single = self.attempt(text, span, c.strategy, false, policy, sink);
                    // An object that is no element either: say what it was.
                    return single.map_err(|e| match e.kind() {
                        ErrorKind::Data if !e.is_ambiguous() => not_a_list(&e),
                        _ => e,
                    });
                }
                Err(e) => return Err(e),
            }
        }
        let mut single = self.attempt(text, span, c.strategy, false, policy, sink)?;
        if single.more_roots && matches!(shape, Shape::Any | Shape::Array) {
            // Several values for a target that takes anything or a
            // sequence: gather them into one array. Empty objects and arrays
            // beside real values carry nothing and are left out.
            let mut spans = span.to_vec();
            if let Some((roots, full)) = extract::container_roots(text, c.span.clone()) {
                if full == 1 {
                    let full = extract::full_roots(text, c.span.clone(), full);
                    let mut one = self.attempt(text, &full, c.strategy, false, policy, sink)?;
                    one.report.repairs.push_front(Repair {
                        kind: RepairKind::TrailingText,
                        offset: c.span.start,
                    });
                    return Ok(one);
                }
                if full > 0 && full < roots {
                    spans = extract::full_roots(text, c.span.clone(), full);
                }
            }
            if let Ok(mut multi) = self.attempt(text, &spans, c.strategy, true, policy, sink) {
                multi.report.repairs.push_front(Repair {
                    kind: RepairKind::MultipleValues,
                    offset: c.span.start,
                });
                return Ok(multi);
            }
            // The values it holds cannot be read together: the first alone
            // does not speak for the span (`{"a": 1}{"b": 2},` then a
            // fence being written: the fence may be the answer, as it is
            // while a read together holds).
            single.covers = false;
        }
        // A value that is the whole reply (or a whole fence or tag) is no
        // prose: one object or array read from all of it, with no structure
        // made of prose (`[dog, [cat]]`, `{we#ird: [x]}`), is not beaten by
        // a span nested inside it.
        if !single.covers
            && matches!(
                c.strategy,
                Strategy::Whole | Strategy::Fence | Strategy::Tag
            )
            && single.containers
            && single.roots == 1
            && !single.more_roots
            && lex::next_significant(text.as_bytes(), single.report.span.end, c.span.end)
                >= c.span.end
            && (!single.report.truncated || c.strategy == Strategy::Whole)
            && prose_words(text, single.report.repairs.iter()) == 0
            && !single.report.repairs.iter().any(|r| {
                matches!(
                    r.kind,
                    RepairKind::TrailingText | RepairKind::CodeFence | RepairKind::MultipleValues
                )
            })
        {
            single.covers = true;
        }
        if single.more_roots {
            // Values after the one decoded were left out: never silently.
            let offset = single.report.span.end;
            let kind = RepairKind::TrailingText;
            single.report.repairs.push(Repair { kind, offset });
        }
        Ok(single)
    }

    /// Decodes a part of a streaming reply (see `stream::live`): its text
    /// is JSON as written, maybe cut off, read once (or its tape written
    /// unread, see `scan::part`), as the whole text of a reply; the first
    /// `around` levels of fields (the path to the part) are exempt from
    /// admission.
    pub(crate) fn part<'de, V: serde::Deserialize<'de>>(
        &self,
        text: &PartText<'de>,
        around: usize,
        spare: &mut Spare,
    ) -> Result<V> {
        self.part_seed(text, around, spare, std::marker::PhantomData::<V>)
    }

    /// A part of a streaming reply read into the untyped view (see
    /// [`part`](Self::part)): its positions follow the `Allow` flags, as a
    /// decode into `Value` reads them.
    pub(crate) fn part_value(
        &self,
        text: &PartText<'_>,
        spare: &mut Spare,
    ) -> Result<serde_json::Value> {
        self.part_read(
            text,
            usize::MAX,
            spare,
            std::marker::PhantomData::<serde_json::Value>,
            false,
        )
    }

    /// [`part`](Self::part) with a seed in place of a type (a runtime
    /// schema's view).
    pub(crate) fn part_seed<'de, S: serde::de::DeserializeSeed<'de> + Clone>(
        &self,
        part: &PartText<'de>,
        around: usize,
        spare: &mut Spare,
        seed: S,
    ) -> Result<S::Value> {
        self.part_read(part, around, spare, seed, true)
    }

    /// [`part_seed`](Self::part_seed); `typed`: the target asks for kinds
    /// (else the `Allow` flags say what each position takes).
    fn part_read<'de, S: serde::de::DeserializeSeed<'de> + Clone>(
        &self,
        part: &PartText<'de>,
        around: usize,
        spare: &mut Spare,
        seed: S,
        typed: bool,
    ) -> Result<S::Value> {
        let policy = de::Policy {
            on: true,
            around,
            ..self.opts.policy(typed, false)
        };
        let opts = self.opts.scan(false, true);
        let (tape, offset) = spare.tape_of_part(part, &opts);
        let text = part.text;
        // A part is read to its end (it is cut there).
        work::add(text.len());
        reread(|hints| {
            let mut de = de::Deserializer::new(tape.cursor(text), policy, hints);
            let value = de.root_seed(seed.clone(), 0)?;
            de.finish()?;
            Ok(value)
        })
        .map_err(|e| e.or_at(offset))
    }

    fn attempt<'de, R, F>(
        &self,
        text: &'de str,
        spans: &[Range<usize>],
        strategy: Strategy,
        multi: bool,
        policy: Mode,
        sink: &mut F,
    ) -> Result<Attempt<R>>
    where
        F: FnMut(Source<'_, 'de>, &[Hint], Range<usize>) -> Result<Decoded<R>>,
    {
        let mut span = spans[0].start..spans[spans.len() - 1].end;
        let mut opts = self.opts.scan(multi, policy.partial);
        if policy.repair {
            opts.rules = opts.rules.for_repair();
        }
        let mut tape = Tape::new();
        let (summary, result) = if policy.tape {
            // The span is read once onto a tape: when the decode starts a
            // value, the tape says whether it is complete.
            tape = Tape::for_span(span.len());
            let summary = Scanner::over(text, spans, &opts).tape(&mut tape);
            // A value to read differently (a key in another style, a
            // placeholder for `None`), learned from a failed read: read the
            // tape again knowing it.
            let result = reread(|hints| sink(Source::Tape(&tape), hints, span.clone()));
            (summary, result)
        } else {
            // A read that asks no value's completeness at its start reads
            // the scanner's events as they come, storing none.
            let mut scan = Scanner::over(text, spans, &opts);
            let result = sink(Source::Scanner(&mut scan), &[], span.clone());
            (scan.summary(), result)
        };
        work::add(summary.offset.saturating_sub(spans[0].start));
        let decoded = match result {
            Ok(decoded) => decoded,
            // (An error met where the reply was cut off is marked so by the
            // read that met it.) A required field missing there is the
            // cut's: a `Truncated` error (a tool call cut inside its
            // arguments, which serde buffers and finds short).
            // A bare word of prose read as the value and found the wrong
            // type (`Sure` for a struct whose one field is a list, tried as
            // that field's value): the candidate is prose, no value.
            Err(e) if !multi && summary.prose_roots && e.kind() == ErrorKind::Data => {
                return Err(prose_error(text, &span));
            }
            Err(e) => {
                let e = e.or_at(summary.offset);
                let cut = e.cut_before_field(summary.offset, || {
                    Reading {
                        strategy,
                        span: span.clone(),
                        repairs: summary.repairs.clone(),
                        coercions: Vec::new(),
                        unlisted: 0,
                        truncated: true,
                    }
                    .into_report()
                });
                return Err(cut.unwrap_or(e));
            }
        };
        let Summary {
            mut repairs,
            truncated,
            more_roots,
            root_end,
            roots,
            prose_roots: prose_root,
            containers,
            ..
        } = summary;
        if let (false, Some(end)) = (multi, root_end) {
            // Report the span that was read, not the text after it.
            span.end = end;
        }
        // A value cut off before the text ends (at its fence) does not
        // speak for the whole span: a cleaner candidate may exist.
        let cut_early = truncated && !text[span.end..].trim().is_empty();
        // A stray opener in prose (`{ for blocks. {"a": 1}`) does not
        // speak for the spans inside it.
        // One string that is the whole span (`"{x}[1]`, cut off)
        // covers it too: the brackets inside are its text. Not one whose
        // quotes inside were judged its text (`"term": a definition, then
        // a fence cut inside its value's quotes`): where it ends is a
        // guess, and a value inside it may be the answer.
        let one_string = roots == 1
            && !prose_root
            // (After a comment before it: `/**/"{…"`.)
            && lex::quote_at(
                text.as_bytes(),
                lex::next_significant(text.as_bytes(), span.start, span.end),
                span.end,
            )
            .is_some()
            && !repairs.iter().any(|r| r.kind == RepairKind::InnerQuote);
        // Not a string with values after it, left out (`''[...<json>'a`:
        // the tag may be the answer).
        let covers = (containers || (one_string && !more_roots))
            && !cut_early
            && (!matches!(text.as_bytes()[span.start], b'{' | b'[')
                || extract::starts_like_json(text.as_bytes(), span.start, span.end))
            && !repairs
                .iter()
                .any(|r| matches!(r.kind, RepairKind::TrailingText | RepairKind::CodeFence));
        for r in decoded.repairs {
            repairs.push(r);
        }
        let mut coercions = Vec::with_capacity(decoded.coercions.len());
        if !decoded.coercions.is_empty() {
            let offsets: Vec<(usize, bool)> = decoded
                .coercions
                .iter()
                .map(|(c, key)| (c.offset, *key))
                .collect();
            let paths = match policy.tape {
                true => tape.cursor(text).paths_at(&offsets),
                false => {
                    // (Not read onto a tape: read it now, for the paths.)
                    let mut tape = Tape::for_span(span.len());
                    Scanner::over(text, spans, &opts).tape(&mut tape);
                    tape.cursor(text).paths_at(&offsets)
                }
            };
            for ((mut c, _), path) in decoded.coercions.into_iter().zip(paths) {
                c.path = path;
                coercions.push(c);
            }
        }
        Ok(Attempt {
            covers,
            roots,
            prose_root,
            containers,
            emptied: decoded.emptied,
            value: decoded.value,
            report: Reading {
                strategy,
                span,
                repairs,
                coercions,
                unlisted: decoded.counted,
                truncated,
            },
            more_roots,
        })
    }
}

/// Bracketed prose that is no value for a target that takes anything: a
/// citation (`[2]`, `[^3]`), a markdown link's label (`[the docs](…)`), a
/// task-list box (`[ ]`, `[x]`), a placeholder or aside (`%{name}`, `{like
/// this}`, `[brackets]`: words with no colon, comma or quote), an elision
/// (`[...]`).
pub(crate) fn not_a_value(text: &str, c: &Candidate, references: usize) -> bool {
    if c.strategy != Strategy::Balanced {
        return false;
    }
    let b = text.as_bytes();
    let inner = &text[c.span.start + 1..c.span.end - 1];
    if is_aside(text, c) || is_elision(text, c) {
        return true;
    }
    b[c.span.start] == b'['
        && (matches!(b.get(c.span.end), Some(b'(' | b'['))
            || matches!(inner, " " | "x" | "X")
            || (is_reference(text, c)
                && (references > 1
                    || after_a_word(b, c.span.start)
                    || before_a_word(b, c.span.end))))
}

/// Whether the candidate is a placeholder or an aside in prose: words in
/// brackets with no colon, comma, quote or bracket (`{name}`, `[brackets]`,
/// `{like this}`). No value of any type: for a text target the prose
/// around it is the string (`Hello {name}!`), not the placeholder.
fn is_aside(text: &str, c: &Candidate) -> bool {
    if c.strategy != Strategy::Balanced {
        return false;
    }
    extract::aside(&text.as_bytes()[c.span.clone()])
}

/// Brackets in prose around marks no JSON value starts with, for any
/// target: a regex's class (`[^'"]`, `[\s,]`), a footnote (`[*]`, `[#]`), a
/// handle (`[@user]`). Read as JSON they become strings made by repairs.
fn marks_in_brackets(text: &str, c: &Candidate) -> bool {
    if !matches!(c.strategy, Strategy::Balanced | Strategy::Trailing) {
        return false;
    }
    let b = text.as_bytes();
    let k = lex::next_significant(b, c.span.start + 1, c.span.end);
    b[c.span.start] == b'[' && k < c.span.end && b"^\\*#@$%&|~<>=/!?;".contains(&b[k])
}

/// Whether the candidate is an elision in prose (`[...]`, `{…}`): a value
/// left out, no value of any type. (A reply that is only `[...]` is read
/// whole, as the list it stands for.)
pub(crate) fn is_elision(text: &str, c: &Candidate) -> bool {
    // A balanced span ends at its closer; a trailing one runs to the end
    // (`[..` cut off may be one too).
    let end = match c.strategy {
        Strategy::Balanced => c.span.end - 1,
        Strategy::Trailing => c.span.end,
        _ => return false,
    };
    let inner = text[c.span.start + 1..end].trim();
    !inner.is_empty() && inner.chars().all(|c| matches!(c, '.' | '…' | ' '))
}

/// Whether the candidate is a bracketed small number (`[2]`, `[^3]`): a
/// citation in prose when it follows or precedes a word, or when the reply
/// has several (`References: [1], [2]`).
pub(crate) fn is_reference(text: &str, c: &Candidate) -> bool {
    if c.strategy != Strategy::Balanced || text.as_bytes()[c.span.start] != b'[' {
        return false;
    }
    lex::citation(&text.as_bytes()[c.span.clone()])
}

/// Whether the candidate is a citation right after a value on its line
/// (`{"id": 4} [1]`, see [`lex::after_a_value`]): the value's, for every
/// target (a list target takes an object as its one element, not the
/// citation as the list).
fn cites_a_value(text: &str, c: &Candidate) -> bool {
    is_reference(text, c) && lex::after_a_value(text.as_bytes(), c.span.start)
}

/// Whether a lower-case word follows the bracket ending before `i` (past
/// spaces), as after a reference's label (`[1] the product page`); a new
/// sentence may follow a value.
fn before_a_word(b: &[u8], i: usize) -> bool {
    let mut k = i;
    while k < b.len() && matches!(b[k], b' ' | b'\t') {
        k += 1;
    }
    k > i && k < b.len() && b[k].is_ascii_lowercase()
}

/// Whether the bracket at `i` follows a word or a value's closer (past
/// spaces), as a citation does (`the docs [2]`, `{"id": 4} [1]`); after a
/// colon or at a line's start it is a value.
fn after_a_word(b: &[u8], i: usize) -> bool {
    let mut k = i;
    while k > 0 && matches!(b[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    k > 0
        && (b[k - 1].is_ascii_alphanumeric()
            || matches!(b[k - 1], b'.' | b')' | b'"' | b'*' | b'`' | b'}' | b']'))
}

/// Whether `span` holds exactly one top-level object or array.
fn one_root(text: &str, span: &Range<usize>) -> bool {
    extract::container_roots(text, span.clone()).is_some_and(|(all, _)| all == 1)
}

/// What [`Decoder::gather`] made of its spans.
enum Gathering<R> {
    /// A reading, or an error the search goes on past.
    Read(Result<Attempt<R>>),
    /// An error that is the decode's.
    Stands(Error),
}

/// Whether fenced `spans` are a fence per value: nothing but a closing
/// marker, blank lines and an opening marker (with its tag) between each
/// two. Prose between fences may set one apart (an example before the
/// answer).
fn fence_run(text: &str, spans: &[Range<usize>]) -> bool {
    spans.len() > 1
        && spans.windows(2).all(|w| {
            let gap = text[w[0].end..w[1].start].trim();
            gap.strip_prefix("```")
                .and_then(|rest| rest.trim_start().strip_prefix("```"))
                .is_some_and(|tag| tag.bytes().all(|c| c.is_ascii_alphanumeric()))
        })
}

/// The order to try candidates in: those of the shape the target wants
/// first; for a sequence target, the objects among the rest (of the fences,
/// or of the prose) gathered into one sequence next; the rest last. Each
/// step is made as it is reached: the candidates are not copied.
fn plan<'a>(
    text: &'a str,
    candidates: extract::CandidateIter<'a>,
    shape: Shape,
    gather: bool,
    retracted: &'a [(usize, usize)],
) -> impl Iterator<Item = Step> + 'a {
    let preferred = move |c: &Candidate| match shape {
        Shape::Object | Shape::Wrapper => c.first_byte(text) == Some(b'{'),
        Shape::Array => c.first_byte(text) == Some(b'['),
        _ => true,
    };
    let taken_back =
        move |c: &Candidate| retracted.binary_search(&(c.span.start, c.span.end)).is_ok();
    // An elision (`[...]`) is no candidate of any shape, alone or gathered.
    let all = candidates.filter(move |c| !is_elision(text, c));
    // A value taken back is tried last, alone, and is never gathered.
    let candidates = all.clone().filter(move |c| !taken_back(c));
    let rest = candidates.clone().filter(move |c| !preferred(c));
    let gathered = std::iter::once_with({
        let rest = rest.clone();
        move || {
            if shape != Shape::Array || !gather {
                return None;
            }
            // Gather one kind: fences, else tags, else balanced spans.
            [Strategy::Fence, Strategy::Tag, Strategy::Balanced]
                .into_iter()
                .find_map(|strategy| {
                    // (Not an empty one the prose names: ``Use `{}` for
                    // none.``)
                    let spans: Vec<Range<usize>> = rest
                        .clone()
                        .filter(|c| c.strategy == strategy && c.first_byte(text) == Some(b'{'))
                        .filter(|c| c.strategy != Strategy::Balanced || !named_empty(text, &c.span))
                        .map(|c| c.span)
                        .collect();
                    (!spans.is_empty()).then_some(Step::Gather(strategy, spans))
                })
        }
    })
    .flatten();
    candidates
        .filter(preferred)
        .map(Step::One)
        .chain(gathered)
        .chain(rest.map(Step::One))
        .chain(all.filter(taken_back).map(Step::Retracted))
}

/// The candidates whose value the prose after them takes back, before the
/// next candidate starts, which it introduces as the correction and which
/// has the same shape (`{"a": 1} Wait, I made a mistake. Corrected:
/// {"a": 2}`, see [`prose::retractions`] and
/// [`prose::introduces_correction`]), or whose label names it no answer
/// where the next one's names that one the answer (`Input: {…}⏎Output:
/// {…}`, [`prose::labelled_pair`]), or that is an empty value an
/// instruction names where the next one is introduced as the answer
/// (`Return [] if none. Result: [1, 2]`, [`instructed_empty`]), as
/// (start, end), sorted. `cues`:
/// where the body's prose takes a value back, found once for every phase.
/// A value whose correction changes only some of its members is among
/// them with its patch (a whole value after both is the answer), and both
/// go into `patched` with the error an answer holding either gives (see
/// [`patch`]).
fn retracted(
    text: &str,
    body: &Range<usize>,
    candidates: extract::CandidateIter<'_>,
    cues: &mut Option<Vec<usize>>,
    patched: &mut Vec<(Range<usize>, Error)>,
) -> Vec<(usize, usize)> {
    if candidates.clone().nth(1).is_none() {
        return Vec::new();
    }
    let cues = cues.get_or_insert_with(|| prose::retractions(text, body.clone()));
    // (No word takes a value back and no label names one no answer: none
    // is taken back, and no list of starts is made.)
    let unlabelled = || {
        !candidates.clone().any(|c| {
            prose::label_says(text, prose::label(text, c.span.start)).is_some_and(|(_, yes)| !yes)
                || instructed_empty(text, &c.span)
        })
    };
    if cues.is_empty() && unlabelled() {
        return Vec::new();
    }
    let mut spans: Vec<Range<usize>> = candidates.clone().map(|c| c.span).collect();
    spans.sort_unstable_by_key(|s| s.start);
    let starts: Vec<usize> = spans.iter().map(|s| s.start).collect();
    let b = text.as_bytes();
    // The patches taken back with the value they patch (see [`patch`]).
    let mut patches: Vec<(usize, usize)> = Vec::new();
    let mut out: Vec<(usize, usize)> = candidates
        .filter(|c| {
            let end = c.span.end;
            let k = starts.partition_point(|&s| s < end);
            let Some(&next) = starts.get(k) else {
                return false;
            };
            let later = &starts[k..];
            // Its label names it no answer, and a later one's names that
            // the answer (`Input: {…}⏎Output: {…}`), past values labelled
            // no answer (`Example input: {…}⏎Example output: {…}⏎Answer:
            // {…}`).
            if answered_after(text, c.span.start, later)
                // Or a later one of its shape is labelled the final answer
                // (`Action Input: {…}⏎Observation: {…}⏎Final Answer: {…}`).
                || later
                    .iter()
                    .take(8)
                    .any(|&n| b[n] == b[c.span.start] && prose::final_label(text, n))
            {
                return true;
            }
            if b[c.span.start] != b[next] {
                return false;
            }
            // An instruction names it (`Return [] if none.`), and the next
            // one is introduced as the answer.
            if instructed_empty(text, &c.span) && prose::answers_after(text, end, next) {
                return true;
            }
            // Words that take it back (after it, or in its label on its
            // line, `Wrong: {…}`), then its replacement introduced.
            let line = prose::label_start(text, c.span.start);
            let from = |at: usize| cues.partition_point(|&p| p < at);
            let before = from(line)..from(c.span.start);
            let after = from(end)..from(next);
            if (before.is_empty() && after.is_empty())
                || !prose::introduces_correction(text, end..next)
            {
                return false;
            }
            // (`Oops` aside: it says no more than that.)
            let said: Vec<usize> = cues[before]
                .iter()
                .chain(&cues[after])
                .copied()
                .filter(|&p| !prose::exclaims_at(text, p))
                .collect();
            let only_omits = !said.is_empty() && said.iter().all(|&p| prose::omits_at(text, p));
            match patch(text, &c.span, &spans[k], only_omits) {
                Patch::Whole => true,
                Patch::Adds => false,
                Patch::Changes(e) => {
                    patched.push((c.span.clone(), e.clone()));
                    patched.push((spans[k].clone(), e));
                    patches.push((spans[k].start, spans[k].end));
                    true
                }
            }
        })
        .map(|c| (c.span.start, c.span.end))
        .collect();
    out.extend(patches);
    out.sort_unstable();
    out
}

/// Whether a comment the reading `r` passed on a line of its own (`# …`,
/// `// …`, to its line's end), after its value (`between`: or between its
/// values), takes the value before it back and introduces the one after it
/// as its correction, as [`retracted`] reads prose between values of one
/// shape (`{…}⏎# Wait, that is wrong. Here it is:⏎{…}`, `{…}⏎## Final
/// answer⏎{…}`; not `# the next line is wrong on purpose` in JSON lines).
fn retracts_in_comments(text: &str, r: &Reading, between: bool) -> bool {
    let b = text.as_bytes();
    r.repairs
        .iter()
        .filter(|c| c.kind == RepairKind::Comment && (between || c.offset >= r.span.end))
        .any(|c| {
            let from = c.offset.min(text.len());
            let line = memchr::memrchr(b'\n', &b[..from]).map_or(0, |k| k + 1);
            let end = memchr::memchr(b'\n', &b[from..]).map_or(b.len(), |k| from + k);
            let next = crate::scan::lex::next_significant(b, end, b.len());
            let before = b[..line].iter().rposition(|c| !c.is_ascii_whitespace());
            b[line..from].iter().all(u8::is_ascii_whitespace)
                && matches!(
                    (before.map(|k| b[k]), b.get(next)),
                    (Some(b'}'), Some(b'{')) | (Some(b']'), Some(b'['))
                )
                && !prose::retractions(text, from..end).is_empty()
                && prose::introduces_correction(text, from..next)
        })
}

/// What the object at `next`, introduced as the correction of the one at
/// `first`, is of it (see [`patch`]).
enum Patch {
    /// The value in its place.
    Whole,
    /// Some of its members, each with another value, and no other
    /// (`{"name": "Ann", "city": "Pariss"}⏎Oops, typo. It should
    /// be:⏎{"city": "Paris"}`): neither value is the one the reply means
    /// (the first it takes back, the patch alone would drop the rest), so
    /// an answer holding either is this error.
    Changes(Error),
    /// No more members than it had, after words that only say something
    /// was left out (`{"name": "Ann"}⏎Oops, I forgot a field. Here it
    /// is:⏎{"age": 30}`, `…I missed a step. Here it is:`, `…I forgot to
    /// attach the schema:`): what was left out, or a value of its own, not
    /// the value in its place. The first stands.
    Adds,
}

/// What the object at `next`, introduced as the correction of the one at
/// `first`, is of it ([`Patch`]). `only_omits`: the words that take the
/// first back only say something was left out. (A correction that keeps
/// a member as it was drops the others on purpose: `{"a": 1, "debug":
/// true}⏎Wait, no debug field. Corrected:⏎{"a": 1}`; one that renames or
/// restructures them is whole.) Members are compared as written, spaces
/// outside strings aside.
fn patch(text: &str, first: &Range<usize>, next: &Range<usize>, only_omits: bool) -> Patch {
    let b = text.as_bytes();
    if b[first.start] != b'{' {
        return Patch::Whole;
    }
    // (Once it has closed: until then, its keys so far may be a few.)
    let (whole, _) = crate::de::object_members(b, first.start, 64);
    let (part, closed) = crate::de::object_members(b, next.start, 64);
    if !closed || part.is_empty() || part.len() > whole.len() {
        return Patch::Whole;
    }
    if only_omits {
        return Patch::Adds;
    }
    let had = |k: &String| whole.iter().find(|(wk, _)| wk == k).map(|(_, v)| v.clone());
    let changes = part.len() < whole.len()
        && part
            .iter()
            .all(|(k, v)| had(k).is_some_and(|w| !same_text(&b[w], &b[v.clone()])));
    if !changes {
        return Patch::Whole;
    }
    Patch::Changes(Error::at(
        ErrorKind::NoJson,
        format_args!(
            "no JSON value found: the reply takes back its value, then gives only the {} of its {} members it changes, no whole value in its place (looked for the whole value after the correction)",
            part.len(),
            whole.len()
        ),
        next.start,
    ))
}

/// Whether two values are written alike, spaces outside their strings
/// aside (`{"x": 1}` and `{ "x":1 }`).
fn same_text(a: &[u8], b: &[u8]) -> bool {
    fn bytes(t: &[u8]) -> impl Iterator<Item = u8> + '_ {
        let mut quoted = false;
        let mut escaped = false;
        t.iter().copied().filter(move |&c| {
            if quoted {
                match (escaped, c) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => quoted = false,
                    _ => {}
                }
                return true;
            }
            quoted = c == b'"';
            !c.is_ascii_whitespace()
        })
    }
    bytes(a).eq(bytes(b))
}

/// Whether the value at `first`, whose label names it no answer, gives way
/// to a later one (of `later`, the starts of the values after it) whose
/// label names that one the answer ([`prose::labelled_pair`]), with only
/// values labelled no answer between them (four at most), all of its shape.
fn answered_after(text: &str, first: usize, later: &[usize]) -> bool {
    let b = text.as_bytes();
    for &next in later.iter().take(5) {
        if b[next] != b[first] {
            return false;
        }
        if prose::labelled_pair(text, first, next) {
            return true;
        }
        let says = prose::label_says(text, prose::label(text, next));
        if says.is_none_or(|(_, yes)| yes) {
            return false;
        }
    }
    false
}

/// The last candidate, when the sentence right after it takes it back
/// (`{"a": 1}⏎Oops, my mistake.`, see [`prose::withdraws`]) and nothing
/// after that sentence may open a value, and the error to give if the
/// answer holds it: the value taken back is not the answer, and none is
/// given in its place. (With a value after it, [`retracted`] judges
/// whether that one replaces it.)
fn withdrawn(
    text: &str,
    body: &Range<usize>,
    candidates: extract::CandidateIter<'_>,
) -> Option<(Range<usize>, Error)> {
    let last = candidates.max_by_key(|c| c.span.end)?;
    let (from, stop) = prose::withdraws(text, last.span.end, body.end)?.taken()?;
    let rest = &text.as_bytes()[stop..body.end];
    if memchr::memchr3(b'{', b'[', b'`', rest).is_some() || memchr::memchr(b'<', rest).is_some() {
        return None;
    }
    let said = &text[from..stop];
    let e = Error::at(
        ErrorKind::NoJson,
        format_args!(
            "no JSON value found: the reply takes back its value ({said:?}) and gives none in its place (looked for a value after those words)"
        ),
        from,
    );
    Some((last.span, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prose error's message, written when read, is the one written at
    /// once before: the first 40 characters quoted (escaped as `{:?}`
    /// does), `…` after them if there are more.
    #[test]
    fn prose_message_as_before() {
        fn before(text: &str, span: &Range<usize>) -> String {
            let mut snippet: String = text[span.clone()].chars().take(40).collect();
            if snippet.len() < span.len() {
                snippet.push('…');
            }
            format!(
                "no JSON value found: the reply is prose ({snippet:?}); looked for a bare value, ```json fences, <json> tags, and {{…}} or […] spans"
            )
        }
        let long = "I'm sorry, I can't help with that request. \"Quoted\"\ttab";
        let wide = "\u{e9}".repeat(39) + "\u{1f600}\u{1f600}" + "\u{20ac}";
        let exactly = "x".repeat(40);
        for text in [
            "",
            "No.",
            long,
            &wide,
            &exactly,
            "line\nbreak \u{7f} \\ end",
        ] {
            let third = crate::text::floor_char_boundary(text, text.len().min(3));
            for span in [0..text.len(), third..text.len()] {
                let e = prose_error(text, &span);
                let want = before(text, &span);
                assert_eq!(e.message(), want, "{text:?} {span:?}");
                assert_eq!(e.kind(), ErrorKind::NoJson);
                assert_eq!(e.offset(), Some(span.start));
                assert_eq!(e.to_string(), want);
                assert!(format!("{e:?}").contains(&format!("{want:?}")));
                let feedback = format!("$: {want}; reply with the JSON value only");
                assert_eq!(e.feedback(), feedback);
                assert_eq!(e.clone().message(), want);
            }
        }
        assert_eq!(
            prose_error("Sure thing", &(0..10)).message(),
            "no JSON value found: the reply is prose (\"Sure thing\"); looked for a bare value, ```json fences, <json> tags, and {…} or […] spans"
        );
    }

    /// A value that is the whole reply, fence or tag is not beaten by a
    /// lighter span nested inside it; a reading that made structure of
    /// prose is, and so is one that leaves text after it.
    #[test]
    fn a_whole_value_beats_its_pieces() {
        let rows = [
            (
                "[dog,[cat,cow,],[pig,],]",
                r#"["dog",["cat","cow"],["pig"]]"#,
            ),
            ("{we#ird: [x&y, z]}", r#"{"we#ird":["x&y","z"]}"#),
            ("```\n[a, [b,]]\n```", r#"["a",["b"]]"#),
            ("<json>{k!: [v,]}</json>", r#"{"k!":["v"]}"#),
            // Structure made of prose: the piece wins.
            (r#"{ for blocks. {"a": 1}"#, r#"{"a":1}"#),
            // Text after the value: the whole is no one value.
            ("[]{", "[]"),
        ];
        for (reply, want) in rows {
            let reply = reply.replace("\\n", "\n");
            assert_eq!(Decoder::new().repair(&reply).unwrap(), want, "{reply}");
        }
    }

    /// The readings of one reply, as the scanner reports them.
    fn report(text: &str, repairs: &[(RepairKind, &str)], truncated: bool) -> Reading {
        Reading {
            strategy: Strategy::Whole,
            span: 0..text.len(),
            repairs: repairs
                .iter()
                .map(|&(kind, at)| Repair {
                    kind,
                    offset: text.find(at).expect("marker in text"),
                })
                .collect(),
            coercions: Vec::new(),
            unlisted: 0,
            truncated,
        }
    }

    /// Name, text, strategy, repairs (kind and where), cut off, rank.
    type Row = (
        &'static str,
        &'static str,
        Strategy,
        Vec<(RepairKind, &'static str)>,
        bool,
        Rank,
    );

    #[test]
    fn rank_table() {
        use RepairKind::*;
        let stray = "{ for blocks. {\"a\": 1}";
        let cut = "{\"a\": 1, b";
        let rows: [Row; 7] = [
            (
                "clean fence",
                "{\"a\": 1}",
                Strategy::Fence,
                vec![],
                false,
                Rank {
                    prose: 0,
                    unmarked: 0,
                    named: 0,
                    empty: 0,
                    bent: 0,
                },
            ),
            (
                "clean span in prose",
                "[1]",
                Strategy::Balanced,
                vec![],
                false,
                Rank {
                    prose: 0,
                    unmarked: 1,
                    named: 0,
                    empty: 0,
                    bent: 0,
                },
            ),
            (
                "repaired fence",
                "{a: 1 b: 2,}",
                Strategy::Fence,
                vec![
                    (UnquotedKey, "a"),
                    (MissingComma, " b"),
                    (TrailingComma, ","),
                ],
                false,
                Rank {
                    prose: 0,
                    unmarked: 0,
                    named: 0,
                    empty: 0,
                    bent: 2,
                },
            ),
            // A stray `{` swallowing a sentence: words dropped, a key with
            // no colon.
            (
                "stray opener",
                stray,
                Strategy::Trailing,
                vec![
                    (Skipped, "for"),
                    (UnquotedKey, "blocks"),
                    (MissingColon, " {\""),
                ],
                true,
                Rank {
                    prose: 2,
                    unmarked: 1,
                    named: 0,
                    empty: 0,
                    bent: 9,
                },
            ),
            (
                "placeholder",
                "{name} and more",
                Strategy::Balanced,
                vec![(UnquotedKey, "name"), (DanglingKey, "name")],
                false,
                Rank {
                    prose: 1,
                    unmarked: 1,
                    named: 0,
                    empty: 0,
                    bent: 4,
                },
            ),
            // A key cut off by the end of the reply is truncation, not prose,
            // and the repairs in the member it cuts are the cut's: one.
            (
                "key cut at the end",
                cut,
                Strategy::Whole,
                vec![
                    (UnquotedKey, "b"),
                    (DanglingKey, "b"),
                    (MissingCloser, ", b"),
                ],
                true,
                Rank {
                    prose: 0,
                    unmarked: 1,
                    named: 0,
                    empty: 0,
                    bent: 1,
                },
            ),
            (
                "a skipped comma is no word",
                "{\"a\": 1;}",
                Strategy::Whole,
                vec![(Skipped, ";")],
                false,
                Rank {
                    prose: 0,
                    unmarked: 1,
                    named: 0,
                    empty: 0,
                    bent: 4,
                },
            ),
        ];
        for (name, text, strategy, repairs, truncated, want) in &rows {
            let got = rank(text, *strategy, &report(text, repairs, *truncated));
            assert_eq!(got, *want, "{name}");
        }
        // The order the rule gives: any reading without prose structure
        // beats one with it, however bent; a marked span beats one in prose.
        let ranks: Vec<Rank> = rows.iter().map(|r| r.5).collect();
        assert!(
            ranks[2] < ranks[1],
            "a repaired fence beats a clean citation"
        );
        assert!(ranks[5] < ranks[4], "a cut key beats a placeholder");
        assert!(ranks[1] < ranks[3], "a clean span beats a stray opener");
        let heavy = Rank {
            prose: 0,
            unmarked: 1,
            named: 0,
            empty: 0,
            bent: 1000,
        };
        assert!(heavy < ranks[4], "no weight of real repairs loses to prose");
        // A fence cut before its first member holds nothing: a repaired
        // complete one beats it.
        let open = rank("{\"a", Strategy::Fence, &report("{\"a", &[], true));
        let repaired = rank(
            "{a: 1}",
            Strategy::Fence,
            &report("{a: 1}", &[(UnquotedKey, "a")], false),
        );
        assert_eq!(open.empty, 1);
        assert!(repaired < open, "a cut fence that holds nothing yet");
        // A value written in JSON5 or with Python's literals is as
        // written: it bends nothing.
        let json5 = "{a: 'x', /* c */ b: True,}";
        let dialect = rank(
            json5,
            Strategy::Balanced,
            &report(
                json5,
                &[
                    (UnquotedKey, "a"),
                    (Quotes, "'x'"),
                    (Comment, "/* c */"),
                    (UnquotedKey, "b"),
                    (Literal, "True"),
                    (TrailingComma, ","),
                ],
                false,
            ),
        );
        assert_eq!(dialect.bent, 0);
    }
}
