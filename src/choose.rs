//! The choice among candidate spans: the loop that tries them and the one
//! ranking rule that weighs how likely each reading is.
//!
//! Candidates are tried in priority order; the first that decodes with no
//! repair wins at once (so a clean reply costs one pass). Otherwise the one
//! with the lightest repairs wins, ties going to the earlier. When every
//! candidate fails, the error returned is the one from the most promising
//! candidate: one of the shape the target wants, then the one that got
//! furthest into its span before failing.

use std::ops::Range;

use crate::decoder::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::extract::{self, Candidate};
use crate::report::{Repair, RepairKind, Report, Strategy};
use crate::scan::{self, ScanOptions, Scanner};
use crate::shape::Shape;

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



/// How many candidates of each phase (marked, then prose) are tried at most.
/// Candidate spans of one strategy do not overlap, so decoding them all is
/// linear; this bounds the bookkeeping for replies made of thousands of
/// braces.
const MAX_CANDIDATES: usize = 256;

/// How many times one candidate is read again with something learned (the
/// spine of a cut-off reply, a value to read differently) before its error
/// stands.
const MAX_RESTARTS: usize = 64;

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
    /// A repair of a kind the rules deny (the scanner refuses those it
    /// makes; these are made around it: text after the value, several
    /// values gathered, spans left out).
    fn vet<R>(&self, outcome: Result<Attempt<R>>) -> Result<Attempt<R>> {
        let a = outcome?;
        if self.rules.all_repairs() {
            return Ok(a);
        }
        match a.report.repairs.iter().find(|r| !self.rules.repair(r.kind)) {
            Some(r) => Err(Error::denied(*r)),
            None => Ok(a),
        }
    }

    pub(crate) fn run<'de, R, F>(
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
                let outcome = self.vet(self.candidate(text, &c, shape, policy, &mut sink));
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
                        let outcome = self.vet(self.candidate(text, &c, shape, policy, &mut sink));
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
                        (span, Some(b'['), self.vet(outcome))
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
        let mut single = self.attempt(text, span, c.strategy, false, policy, sink)?;
        if single.more_roots && matches!(shape, Shape::Any | Shape::Array) {
            // Several values for a target that takes anything or a
            // sequence: gather them into one array. Empty objects and arrays
            // beside real values carry nothing and are left out.
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
        if single.more_roots {
            // Values after the one decoded were left out: never silently.
            let offset = single.report.span.end;
            let kind = RepairKind::TrailingText;
            single.report.repairs.push(Repair { kind, offset });
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
            rules: self.rules,
            hints: Vec::new(),
        };
        let mut restarts = 0;
        let (scan, result) = loop {
            let mut scan = Scanner::over(text, spans, &opts);
            let result = sink(&mut scan);
            let Err(e) = &result else {
                break (scan, result);
            };
            if restarts == MAX_RESTARTS {
                break (scan, result);
            }
            restarts += 1;
            // Cut off inside containers taken as complete: read again knowing
            // the spine. A value to read differently: read again with it.
            match (e.spine(), e.hint()) {
                (Some(spine), _) if opts.spine.as_deref() != Some(spine) => {
                    opts.spine = Some(spine.to_vec());
                }
                (_, Some(hint)) if !opts.hints.contains(hint) => opts.hints.push(hint.clone()),
                _ => break (scan, result),
            }
        };
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
                let (repairs, coerced) = scan.into_fixes();
                let mut coercions = Vec::with_capacity(coerced.len());
                if !coerced.is_empty() {
                    let offsets: Vec<(usize, bool)> =
                        coerced.iter().map(|(c, key)| (c.offset, *key)).collect();
                    let paths = scan::paths_at(text, spans, &opts, &offsets);
                    for ((mut c, _), path) in coerced.into_iter().zip(paths) {
                        c.path = path;
                        coercions.push(c);
                    }
                }
                Ok(Attempt {
                    covers,
                    roots,
                    value,
                    report: Report {
                        strategy,
                        span,
                        repairs,
                        coercions,
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
