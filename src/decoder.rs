//! [`Decoder`]: the options, and the loop over candidate spans.
//!
//! Candidates are tried in priority order; the first that decodes with no
//! repair wins at once (so a clean reply costs one pass). Otherwise the one
//! with the lightest repairs wins, ties going to the earlier. When every
//! candidate fails, the error returned is the one from the most promising
//! candidate: one of the shape the target wants, then the one that got
//! furthest into its span before failing.

use std::ops::Range;

use serde::Deserialize;

use crate::de::{Deserializer, Policy};
use crate::error::{Error, ErrorKind, Result};
use crate::extract::{self, Candidate, Strategies};
use crate::partial::{Allow, Partial, View};
use crate::report::{Repair, RepairKind, Report, Strategy};
use crate::scan::{ScanOptions, Scanner};
use crate::shape::{self, Shape};
use crate::write;

/// A configured decoder. [`from_llm_str`](crate::from_llm_str) and
/// [`repair`](crate::repair) use `Decoder::new()`.
///
/// ```
/// use serde_llm::{Decoder, Strategy};
///
/// #[derive(Debug, PartialEq, serde::Deserialize)]
/// struct Point { x: i32, y: i32 }
///
/// let decoder = Decoder::new().max_depth(16).strategy(Strategy::Balanced, false);
/// let p: Point = decoder.decode("```json\n{x: 1, y: 2}\n```").unwrap();
/// assert_eq!(p, Point { x: 1, y: 2 });
/// ```
#[derive(Clone, Debug)]
pub struct Decoder {
    max_depth: usize,
    strategies: Strategies,
    allow: Allow,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

/// How one attempt at a candidate went.
struct Attempt<R> {
    value: R,
    report: Report,
    more_roots: bool,
    /// The root value was an object or array and nothing followed it: the text
    /// was the value.
    covers: bool,
    /// How many top-level values were read.
    roots: u32,
}

/// The highest depth limit: serde's visitors recurse once per level, and a
/// thread's stack must hold them.
const MAX_DEPTH: usize = 256;

/// How many candidates of each phase (marked, then prose) are tried at most.
/// Candidate spans of one strategy do not overlap, so decoding them all is
/// linear; this bounds the bookkeeping for replies made of thousands of
/// braces.
const MAX_CANDIDATES: usize = 256;

/// How many failing spans a gathered sequence drops before giving up.
const MAX_GATHER_RETRIES: usize = 8;

/// One thing to try after the whole text.
enum Step {
    One(Candidate),
    /// Several object spans read as one sequence.
    Gather(Vec<Range<usize>>),
}

/// The best result and the most promising error so far.
struct Tally<R> {
    best: Option<(R, Report)>,
    error: Option<((bool, usize), Error)>,
    /// Spans already decoded, and spans that decoded whole (pieces of them
    /// are not better answers).
    tried: Vec<Range<usize>>,
    covered: Vec<Range<usize>>,
    /// Whether any candidate had the shape the target wants.
    shaped: bool,
}

impl<R> Tally<R> {
    fn skip(&self, span: &Range<usize>) -> bool {
        self.tried.contains(span)
            || self
                .covered
                .iter()
                .any(|c| c.start <= span.start && span.end <= c.end)
    }

    /// Records how a candidate went; returns true when it is clean and the
    /// search can stop.
    fn consider(&mut self, span: &Range<usize>, shaped: bool, outcome: Result<Attempt<R>>) -> bool {
        self.tried.push(span.clone());
        self.shaped |= shaped;
        match outcome {
            Ok(a) => {
                if a.covers {
                    self.covered.push(span.clone());
                }
                let clean = a.report.is_clean();
                let cost = |r: &Report| r.weight() + u32::from(r.truncated);
                if self
                    .best
                    .as_ref()
                    .is_none_or(|(_, b)| cost(&a.report) < cost(b))
                {
                    self.best = Some((a.value, a.report));
                }
                clean
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
}

impl Decoder {
    /// A decoder with the defaults: depth limit 128, every extraction
    /// strategy on.
    pub fn new() -> Decoder {
        Decoder {
            max_depth: 128,
            strategies: Strategies::default(),
            allow: Allow::ALL,
        }
    }

    /// Sets how deep objects and arrays may nest (default 128). Deeper input is
    /// an [`ErrorKind::Depth`] error, never a stack overflow. serde's visitors
    /// recurse once per level, so the limit is capped at 256 (deep enough
    /// for any reply, shallow enough for a thread's default stack).
    pub fn max_depth(mut self, depth: usize) -> Decoder {
        self.max_depth = depth.min(MAX_DEPTH);
        self
    }

    /// Turns one extraction strategy on or off. With [`Strategy::Whole`] alone
    /// the decoder reads the text as one value and never looks inside prose.
    pub fn strategy(mut self, strategy: Strategy, enabled: bool) -> Decoder {
        self.strategies.set(strategy, enabled);
        self
    }

    /// Sets which kinds of value cut off at the end an untyped position
    /// (`serde_json::Value`, `deserialize_any`, [`repair`](Self::repair))
    /// keeps; the default is [`Allow::ALL`]. Typed fields follow the partial
    /// policy of [`crate::partial`] whatever this says.
    pub fn allow_partial(mut self, allow: Allow) -> Decoder {
        self.allow = allow;
        self
    }

    /// Decodes the value in `text` into `T`.
    pub fn decode<'de, T: Deserialize<'de>>(&self, text: &'de str) -> Result<T> {
        self.decode_with_report(text).map(|(v, _)| v)
    }

    /// Decodes the value in `bytes` into `T`. Invalid UTF-8 is an
    /// [`ErrorKind::InvalidUtf8`] error at the first bad byte.
    pub fn decode_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        self.decode(utf8(bytes)?)
    }

    /// Decodes into `T` and tells what was done to the text.
    pub fn decode_with_report<'de, T: Deserialize<'de>>(
        &self,
        text: &'de str,
    ) -> Result<(T, Report)> {
        let shape = shape::of::<T>();
        // A target read with `deserialize_any` throughout (`serde_json::Value`)
        // follows the Allow flags; any other is typed.
        self.decode_as(text, shape, shape != Shape::Any)
    }

    fn decode_as<'de, T: Deserialize<'de>>(
        &self,
        text: &'de str,
        shape: Shape,
        typed: bool,
    ) -> Result<(T, Report)> {
        if let Some(done) = self.fast_lane(text) {
            return Ok(done);
        }
        let policy = Policy {
            // A typed decode uses only what the schema allows to be cut off;
            // an untyped one with every kind allowed completes everything.
            on: typed || self.allow != Allow::ALL,
            typed,
            allow: self.allow,
        };
        self.run(text, shape, policy.on, |scan| {
            let mut de = Deserializer::new(scan, policy);
            let value = T::deserialize(&mut de)?;
            de.finish()?;
            Ok(value)
        })
    }

    /// The fast lane: a reply that is one valid JSON value (alone, or an
    /// object or array followed by prose) is decoded by serde_json itself, so
    /// valid JSON decodes exactly as serde_json decodes it, and as fast. Its
    /// depth limit is 128, so with a lower limit set the lane is skipped. On
    /// any error, or when the text after the value might hold another
    /// candidate, the tolerant path decides. (`tests/valid.rs` sets a limit
    /// of 127 to test the tolerant path on valid JSON.)
    fn fast_lane<'de, T: Deserialize<'de>>(&self, text: &'de str) -> Option<(T, Report)> {
        if !self.strategies.whole || self.max_depth < 128 {
            return None;
        }
        let c = extract::whole(text, extract::body(text))?;
        let slice = &text[c.span.clone()];
        let mut values = serde_json::Deserializer::from_str(slice).into_iter::<T>();
        let value = values.next()?.ok()?;
        let end = values.byte_offset();
        let rest = &slice[end..];
        let report = |strategy, span| Report {
            strategy,
            span,
            repairs: Vec::new(),
            truncated: false,
        };
        if rest.trim().is_empty() {
            return Some((value, report(Strategy::Whole, c.span)));
        }
        // `{...} Hope this helps!`: the tolerant path would take the same
        // balanced span, clean, unless the prose holds more candidates.
        let container = matches!(slice.as_bytes()[0], b'{' | b'[');
        let continues = rest
            .trim_start()
            .starts_with([',', ':', '}', ']', ';', '"', '\'']);
        let more = continues
            || rest
                .bytes()
                .any(|b| matches!(b, b'{' | b'[' | b'`' | b'<' | b'"'));
        (container && !more && self.strategies.balanced).then(|| {
            let span = c.span.start..c.span.start + end;
            (value, report(Strategy::Balanced, span))
        })
    }

    /// Decodes `T`'s partial view (see
    /// [`from_llm_str_partial`](crate::from_llm_str_partial)): `None` while
    /// there is nothing to show.
    pub fn decode_partial<'de, T>(&self, text: &'de str) -> Result<Option<T::View>>
    where
        T: Partial,
        T::View: Deserialize<'de> + View,
    {
        // A view is always typed, even one serde reads with `deserialize_any`
        // (an untagged enum's view).
        match self.decode_as::<T::View>(text, shape::of::<T::View>(), true) {
            Ok((view, _)) => Ok(view.admitted()),
            // Nothing written yet, or the reply is cut off before the view can
            // be formed (an enum's tag, a value cut before it showed anything).
            Err(e) if e.kind() == ErrorKind::NoJson || e.is_in_cut_reply() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Recovers the value in `text` as compact JSON text, member order kept.
    pub fn repair(&self, text: &str) -> Result<String> {
        self.repair_with_report(text).map(|(s, _)| s)
    }

    /// Like [`repair`](Self::repair), and tells what was done to the text.
    pub fn repair_with_report(&self, text: &str) -> Result<(String, Report)> {
        let allow = (self.allow != Allow::ALL).then_some(self.allow);
        self.run(text, Shape::Any, allow.is_some(), |scan| {
            let mut out = String::with_capacity(64);
            write::write(scan, &mut out, allow)?;
            Ok(out)
        })
    }

    fn run<'de, R, F>(
        &self,
        text: &'de str,
        shape: Shape,
        policy: bool,
        mut sink: F,
    ) -> Result<(R, Report)>
    where
        F: FnMut(&mut Scanner<'de>) -> Result<R>,
    {
        let body = extract::body(text);
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
        let mut tally = Tally {
            best: None,
            error: None,
            tried: Vec::new(),
            covered: Vec::new(),
            shaped: false,
        };
        let wants = |first: Option<u8>| match (shape, first) {
            (Shape::Object, Some(b)) => b == b'{',
            (Shape::Array, Some(b)) => b == b'[' || b == b'{',
            _ => true,
        };

        if self.strategies.whole {
            if let Some(c) = extract::whole(text, body.clone()) {
                let outcome = self.candidate(text, &c, shape, policy, &mut sink);
                if matches!(&outcome, Ok(a) if a.covers) {
                    // The whole text is one object or array (maybe repaired):
                    // pieces of it are not better answers.
                    let a = outcome.expect("checked");
                    return Ok((a.value, a.report));
                }
                if tally.consider(&c.span, wants(c.first_byte(text)), outcome) {
                    return Ok(tally.best.expect("clean result"));
                }
            }
        }

        // Reasoning blocks after the start: nothing inside them is a candidate.
        let thoughts = extract::reasoning(text, body.clone());
        for phase in [Strategy::Fence, Strategy::Balanced] {
            let candidates = if phase == Strategy::Fence {
                extract::marked(text, body.clone(), self.strategies, &thoughts)
            } else {
                let mut skip = tally.covered.clone();
                skip.extend(thoughts.iter().cloned());
                extract::prose(text, body.clone(), self.strategies, &skip)
            };
            let gather = self.strategies.gather;
            for step in plan(text, candidates, shape, gather)
                .into_iter()
                .take(MAX_CANDIDATES)
            {
                let (span, first, outcome) = match step {
                    Step::One(c) => {
                        if tally.skip(&c.span) {
                            continue;
                        }
                        let outcome = self.candidate(text, &c, shape, policy, &mut sink);
                        (c.span.clone(), c.first_byte(text), outcome)
                    }
                    Step::Gather(mut spans) => {
                        let span = spans[0].start..spans[spans.len() - 1].end;
                        let mut retries = 0;
                        let mut dropped = Vec::new();
                        let mut outcome = loop {
                            let outcome = self.attempt(
                                text,
                                &spans,
                                Strategy::Gathered,
                                true,
                                policy,
                                &mut sink,
                            );
                            // A span that is not an element (`{braces}` in
                            // prose) is left out, and the rest tried again.
                            let Err(e) = &outcome else { break outcome };
                            let at = e.offset().unwrap_or(0);
                            match spans.iter().position(|s| s.start <= at && at <= s.end) {
                                Some(i) if spans.len() > 1 && retries < MAX_GATHER_RETRIES => {
                                    dropped.push(spans.remove(i).start);
                                    retries += 1;
                                }
                                _ => break outcome,
                            }
                        };
                        if let Ok(a) = &mut outcome {
                            // Never silently: each span left out is a repair.
                            a.report
                                .repairs
                                .extend(dropped.iter().map(|&offset| Repair {
                                    kind: RepairKind::Skipped,
                                    offset,
                                }));
                        }
                        (span, Some(b'['), outcome)
                    }
                };
                if tally.consider(&span, wants(first), outcome) {
                    return Ok(tally.best.expect("clean result"));
                }
            }
        }

        if let Some(best) = tally.best {
            return Ok(best);
        }
        let err = match (shape, tally.shaped) {
            (Shape::Object | Shape::Array, false) => {
                let (want, spans) = if shape == Shape::Object {
                    ("object", "{…} spans")
                } else {
                    ("array", "[…] spans")
                };
                let found = match text[body].trim_start().bytes().next() {
                    Some(b'[') => "an array",
                    Some(b'{') => "an object",
                    Some(b'"') => "a string",
                    Some(b'0'..=b'9' | b'-') => "a number",
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
                None => Error::new(
                    ErrorKind::NoJson,
                    "no JSON value found: every extraction strategy is turned off",
                ),
            },
        };
        Err(err.locate(text))
    }

    /// Decodes one candidate: an object-shaped span for a sequence target is
    /// read as a run of values; a value followed by more top-level values is
    /// re-read as one array when the target takes anything.
    fn candidate<'de, R, F>(
        &self,
        text: &'de str,
        c: &Candidate,
        shape: Shape,
        policy: bool,
        sink: &mut F,
    ) -> Result<Attempt<R>>
    where
        F: FnMut(&mut Scanner<'de>) -> Result<R>,
    {
        let span = std::slice::from_ref(&c.span);
        if shape == Shape::Array && self.strategies.gather && c.first_byte(text) == Some(b'{') {
            let mut a = self.attempt(text, span, c.strategy, true, policy, sink)?;
            if a.roots > 1 {
                a.report.strategy = Strategy::Gathered;
            }
            return Ok(a);
        }
        let single = self.attempt(text, span, c.strategy, false, policy, sink)?;
        if single.more_roots && shape == Shape::Any {
            // Several values: gather them into one array. Empty objects and
            // arrays beside real values carry nothing and are left out.
            let mut spans = span.to_vec();
            if let Some(roots) = extract::container_roots(text, c.span.clone()) {
                let full: Vec<Range<usize>> =
                    roots.iter().filter(|r| !r.1).map(|r| r.0.clone()).collect();
                if full.len() == 1 {
                    let mut one = self.attempt(text, &full, c.strategy, false, policy, sink)?;
                    one.report.repairs.insert(
                        0,
                        Repair {
                            kind: RepairKind::TrailingText,
                            offset: c.span.start,
                        },
                    );
                    return Ok(one);
                }
                if !full.is_empty() && full.len() < roots.len() {
                    spans = full;
                }
            }
            if let Ok(mut multi) = self.attempt(text, &spans, c.strategy, true, policy, sink) {
                multi.report.repairs.insert(
                    0,
                    Repair {
                        kind: RepairKind::MultipleValues,
                        offset: c.span.start,
                    },
                );
                return Ok(multi);
            }
        }
        Ok(single)
    }

    fn attempt<'de, R, F>(
        &self,
        text: &'de str,
        spans: &[Range<usize>],
        strategy: Strategy,
        multi: bool,
        policy: bool,
        sink: &mut F,
    ) -> Result<Attempt<R>>
    where
        F: FnMut(&mut Scanner<'de>) -> Result<R>,
    {
        let mut span = spans[0].start..spans[spans.len() - 1].end;
        let mut opts = ScanOptions {
            max_depth: self.max_depth,
            multi,
            // With the partial policy, the first read takes every container
            // as complete; a reply found cut off is read again knowing the
            // spine, so every value's completeness is known at its start.
            spine: policy.then(Vec::new),
        };
        let mut scan = Scanner::over(text, spans, &opts);
        let mut result = sink(&mut scan);
        if let Err(e) = &result {
            if let Some(spine) = e.spine() {
                opts.spine = Some(spine.to_vec());
                scan = Scanner::over(text, spans, &opts);
                result = sink(&mut scan);
            }
        }
        match result {
            Ok(value) => {
                let more_roots = scan.more_roots();
                let truncated = scan.truncated();
                let roots = scan.roots();
                if let (false, Some(end)) = (multi, scan.root_end()) {
                    // Report the span that was read, not the text after it.
                    span.end = end;
                }
                // A value cut off before the text ends (at its fence) does not
                // speak for the whole span: a cleaner candidate may exist.
                let cut_early = truncated && !text[span.end..].trim().is_empty();
                let covers = scan.roots_are_containers()
                    && !cut_early
                    && !scan.repairs().iter().any(|r| {
                        matches!(r.kind, RepairKind::TrailingText | RepairKind::CodeFence)
                    });
                Ok(Attempt {
                    covers,
                    roots,
                    value,
                    report: Report {
                        strategy,
                        span,
                        repairs: scan.into_repairs(),
                        truncated,
                    },
                    more_roots,
                })
            }
            Err(e) => {
                let e = e.or_at(scan.offset());
                let cut = scan.truncated() || opts.spine.as_ref().is_some_and(|s| !s.is_empty());
                Err(if cut { e.in_cut_reply() } else { e })
            }
        }
    }
}

/// The order to try candidates in: those of the shape the target wants
/// first; for a sequence target, the objects among the rest (of the fences,
/// or of the prose) gathered into one sequence next; the rest last.
fn plan(text: &str, candidates: Vec<Candidate>, shape: Shape, gather: bool) -> Vec<Step> {
    let (preferred, rest): (Vec<Candidate>, Vec<Candidate>) =
        candidates.into_iter().partition(|c| match shape {
            Shape::Object => c.first_byte(text) == Some(b'{'),
            Shape::Array => c.first_byte(text) == Some(b'['),
            _ => true,
        });
    let mut steps: Vec<Step> = preferred.into_iter().map(Step::One).collect();
    if shape == Shape::Array && gather {
        // Gather one kind: fences, else tags, else balanced spans.
        for strategy in [Strategy::Fence, Strategy::Tag, Strategy::Balanced] {
            let spans: Vec<Range<usize>> = rest
                .iter()
                .filter(|c| c.strategy == strategy && c.first_byte(text) == Some(b'{'))
                .map(|c| c.span.clone())
                .collect();
            if !spans.is_empty() {
                steps.push(Step::Gather(spans));
                break;
            }
        }
    }
    steps.extend(rest.into_iter().map(Step::One));
    steps
}

fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let good = e.valid_up_to();
        let err = Error::at(
            ErrorKind::InvalidUtf8,
            format_args!("invalid UTF-8 at byte {good}"),
            good,
        );
        // Locate within the valid prefix (the bad byte is where it ends).
        err.locate(std::str::from_utf8(&bytes[..good]).unwrap_or_default())
    })
}
