//! [`Decoder`]'s builder and its public entry points (the value itself, the
//! options, is `options`'s). The choice among candidate spans is
//! `choose`'s job.

use std::sync::Arc;

use std::marker::PhantomData;

use serde::de::DeserializeSeed;
use serde::Deserialize;

use crate::choose::{Decoded, Mode, Source};
use crate::contract::Contract;
use crate::de::Deserializer;
use crate::error::{Error, ErrorKind, Result};
use crate::extract::{self, Candidate, Strategies};
use crate::options::{Decoder, Options};
use crate::partial::{Partial, View};
use crate::policy::{Accept, Allow, Rules};
use crate::prose;
use crate::report::{CoercionKind, Fix, Reading, RepairKind, Report, Strategy};
use crate::scan::lex;
use crate::shape::{self, Scalar, Shape};
use crate::text::{self, line_column, Utf8Text};
use crate::watch::{self, Watch};
use crate::write;

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

/// The highest depth limit: serde's visitors recurse once per level, and a
/// thread's stack must hold them.
const MAX_DEPTH: usize = 256;

impl Decoder {
    /// A decoder with the defaults: depth limit 128, every extraction
    /// strategy on, every repair and every coercion on except
    /// [`CoercionKind::RoundFloat`] and [`CoercionKind::NullToString`].
    pub fn new() -> Decoder {
        Decoder {
            opts: Options {
                max_depth: 128,
                strategies: Strategies::default(),
                allow: Allow::ALL,
                rules: Rules::DEFAULT,
                max_repairs: None,
                lossy: false,
                view: false,
                #[cfg(test)]
                lane: true,
            },
            accept: None,
        }
    }

    /// A decoder that finds the value (in fences, tags or prose, as usual)
    /// but neither repairs nor coerces it: what it accepts is exactly what
    /// `serde_json` accepts. A reply that needs a repair is an
    /// [`ErrorKind::Denied`] error naming it; a value of the wrong type is
    /// `serde_json`'s error. Kinds can be allowed back one by one with
    /// [`allow`](Self::allow).
    ///
    /// ```
    /// use serde_llm::{Decoder, ErrorKind, RepairKind};
    ///
    /// #[derive(Debug, PartialEq, serde::Deserialize)]
    /// struct Point { x: i32, y: i32 }
    ///
    /// let reply = "Here:\n```json\n{\"x\": 1, \"y\": 2,}\n```";
    /// let err = Decoder::strict().decode::<Point>(reply).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Denied);
    /// assert_eq!(err.repair().unwrap().kind, RepairKind::TrailingComma);
    ///
    /// // Fences and trailing commas are fine; type coercion is not.
    /// let lenient = Decoder::strict().allow(RepairKind::TrailingComma);
    /// assert_eq!(lenient.decode::<Point>(reply).unwrap(), Point { x: 1, y: 2 });
    /// assert!(lenient.decode::<Point>(r#"{"x": "1", "y": 2}"#).is_err());
    /// ```
    pub fn strict() -> Decoder {
        let mut d = Decoder::new();
        d.opts.rules = Rules::STRICT;
        d
    }

    /// Allows one kind of repair or coercion.
    ///
    /// ```
    /// use serde_llm::{CoercionKind, Decoder};
    ///
    /// let rounding = Decoder::new().allow(CoercionKind::RoundFloat);
    /// assert_eq!(rounding.decode::<u32>("42.5").unwrap(), 43);
    /// assert!(Decoder::new().decode::<u32>("42.5").is_err());
    /// ```
    pub fn allow(mut self, fix: impl Into<Fix>) -> Decoder {
        self.opts.rules.set(fix.into(), true);
        self
    }

    /// Denies one kind of repair or coercion: a reply that needs it is an
    /// error (a denied coercion leaves the type's own error).
    ///
    /// ```
    /// use serde_llm::{CoercionKind, Decoder};
    ///
    /// let d = Decoder::new().deny(CoercionKind::StringToNumber);
    /// let err = d.decode::<Vec<u32>>(r#"[1, "2"]"#).unwrap_err();
    /// assert_eq!(err.to_string(), r#"invalid type: string "2", expected u32 at $[1] (line 1, column 5)"#);
    /// ```
    pub fn deny(mut self, fix: impl Into<Fix>) -> Decoder {
        self.opts.rules.set(fix.into(), false);
        self
    }

    /// Refuses a reply that needed more than `n` repairs and coercions
    /// together ([`Report::fixes`]): an [`ErrorKind::Rejected`] error whose
    /// [`Error::feedback`] lists them, for asking the model again.
    /// Extraction from prose or fences does not count; a reply that was cut
    /// off counts its completion as repairs.
    ///
    /// ```
    /// use serde_llm::{Decoder, ErrorKind};
    ///
    /// let d = Decoder::new().max_repairs(1);
    /// assert_eq!(d.decode::<Vec<u8>>("[1, 2,]").unwrap(), [1, 2]);
    /// let err = d.decode::<Vec<u8>>("[1, 2,, '3']").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Rejected);
    /// assert_eq!(err.report().unwrap().fixes(), 3);
    /// ```
    pub fn max_repairs(mut self, n: usize) -> Decoder {
        self.opts.max_repairs = Some(n);
        self
    }

    /// Refuses a reply whose [`Report`] fails `test` (an
    /// [`ErrorKind::Rejected`] error).
    ///
    /// ```
    /// use serde_llm::{Decoder, ErrorKind};
    ///
    /// // Repairs are fine; a reply cut off is not.
    /// let d = Decoder::new().accept_if(|report| !report.truncated);
    /// assert!(d.decode::<Vec<u8>>("[1, 2,]").is_ok());
    /// assert_eq!(d.decode::<Vec<u8>>("[1, 2").unwrap_err().kind(), ErrorKind::Rejected);
    /// ```
    pub fn accept_if(mut self, test: impl Fn(&Report) -> bool + Send + Sync + 'static) -> Decoder {
        self.accept = Some(Accept(Arc::new(test)));
        self
    }

    /// Sets how deep objects and arrays may nest (default 128). Deeper input is
    /// an [`ErrorKind::Depth`] error, never a stack overflow. serde's visitors
    /// recurse once per level, so the limit is capped at 256 (deep enough
    /// for any reply, shallow enough for a thread's default stack).
    pub fn max_depth(mut self, depth: usize) -> Decoder {
        self.opts.max_depth = depth.min(MAX_DEPTH);
        self
    }

    /// Turns one extraction strategy on or off. With [`Strategy::Whole`] alone
    /// the decoder reads the text as one value and never looks inside prose.
    pub fn strategy(mut self, strategy: Strategy, enabled: bool) -> Decoder {
        self.opts.strategies.set(strategy, enabled);
        self
    }

    /// Sets which kinds of value cut off at the end an untyped position
    /// (`serde_json::Value`, `deserialize_any`, [`repair`](Self::repair))
    /// keeps; the default is [`Allow::ALL`]. Typed fields follow the partial
    /// policy of [`crate::partial`] whatever this says.
    pub fn allow_partial(mut self, allow: Allow) -> Decoder {
        self.opts.allow = allow;
        self
    }

    /// Every place in `text` where this decoder looks for the value, in the
    /// order it tries them: the whole reply (after a BOM, leading reasoning
    /// blocks and special-token markers), each fenced block, each
    /// `<json>…</json>` tag, then the balanced `{…}` and `[…]` spans and
    /// the spans that never close in the prose, by where they start. Only
    /// the strategies turned on ([`strategy`](Self::strategy)) are listed,
    /// and nothing inside a reasoning block; a span found twice is listed
    /// once, under the first strategy that found it. An empty reply has
    /// none.
    ///
    /// A decode tries fewer: it stops at the first candidate that decodes
    /// with no repair, reads no span in the prose once a fence or tag gave
    /// a value, passes over spans inside one that decoded whole, and for an
    /// untyped target over bracketed prose (citations such as `[2]`). A
    /// sequence target may also gather several candidates into one
    /// ([`Strategy::Gathered`]), and a scalar target read the prose
    /// ([`Strategy::Prose`]); neither is a candidate here. The span a
    /// [`Report`] gives is the part of its candidate that was read.
    ///
    /// ```
    /// use serde_llm::{Decoder, Strategy};
    ///
    /// let reply = "Try {a: 1}\n```json\n{\"a\": 2}\n```\nor <json>[3]</json> or {\"b\": [4";
    /// let found: Vec<(Strategy, &str)> = Decoder::new()
    ///     .candidates(reply)
    ///     .into_iter()
    ///     .map(|c| (c.strategy, &reply[c.span]))
    ///     .collect();
    /// assert_eq!(
    ///     found,
    ///     [
    ///         (Strategy::Whole, reply),
    ///         (Strategy::Fence, "{\"a\": 2}"),
    ///         (Strategy::Tag, "[3]"),
    ///         (Strategy::Balanced, "{a: 1}"),
    ///         // The fence's `{"a": 2}` and the tag's `[3]`, found again in
    ///         // the prose, are not listed twice.
    ///         (Strategy::Trailing, "{\"b\": [4"),
    ///     ]
    /// );
    /// ```
    pub fn candidates(&self, text: &str) -> Vec<Candidate> {
        // The order of `Decoder::run` (src/choose.rs): the whole text, the
        // marked spans, then the prose.
        let angle = extract::first_angle(text);
        let body = extract::body(text, angle);
        let mut out = Vec::new();
        if text[body.clone()].trim().is_empty() {
            return out;
        }
        let mut seen = std::collections::HashSet::new();
        let mut add = |c: Candidate| {
            if seen.insert((c.span.start, c.span.end)) {
                out.push(c);
            }
        };
        if self.opts.strategies.whole {
            if let Some(c) = extract::whole(text, body.clone()) {
                add(c);
            }
        }
        let thoughts = extract::reasoning(text, body.clone(), angle);
        extract::marked(text, body.clone(), self.opts.strategies, &thoughts, angle)
            .iter()
            .for_each(&mut add);
        extract::prose(text, body, self.opts.strategies, &thoughts)
            .iter()
            .for_each(&mut add);
        out
    }

    /// Decodes the value in `text` into `T`.
    pub fn decode<'de, T: Deserialize<'de>>(&self, text: &'de str) -> Result<T> {
        self.decode_reading(text, false).map(|(v, _)| v)
    }

    /// Decodes into `T` and runs its [`Contract`] check: a value that breaks
    /// it is an [`ErrorKind::Contract`] error listing every violation (see
    /// [`Error::feedback`]).
    pub fn decode_checked<'de, T: Deserialize<'de> + Contract>(&self, text: &'de str) -> Result<T> {
        let value: T = self.decode(text)?;
        value.check()?;
        Ok(value)
    }

    /// [`decode_checked`](Self::decode_checked), and tells what was done to
    /// the text.
    pub fn decode_checked_with_report<'de, T: Deserialize<'de> + Contract>(
        &self,
        text: &'de str,
    ) -> Result<(T, Report)> {
        let (value, report) = self.decode_with_report::<T>(text)?;
        value.check()?;
        Ok((value, report))
    }

    /// Decodes the value in `bytes` into `T`. An incomplete UTF-8 sequence
    /// at the very end (a reply cut off inside a character) is dropped, as
    /// truncation; invalid UTF-8 elsewhere is an [`ErrorKind::InvalidUtf8`]
    /// error at the first bad byte (strings borrowed from `bytes` cannot hold
    /// a replacement; [`repair_slice`](Self::repair_slice) can).
    ///
    /// ```
    /// let v: serde_json::Value = serde_llm::from_llm_slice(b"{\"a\": \"caf\xc3").unwrap();
    /// assert_eq!(v, serde_json::json!({"a": "caf"}));
    /// ```
    pub fn decode_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        // A character cut off at the end changes only the report.
        let (text, _) = utf8(bytes)?;
        self.decode(text)
    }

    /// [`decode_slice`](Self::decode_slice), and tells what was done to the
    /// text (a dropped incomplete character is a
    /// [`RepairKind::TruncatedValue`] and makes the report `truncated`).
    pub fn decode_slice_with_report<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, Report)> {
        let (text, cut) = utf8(bytes)?;
        let (value, mut report) = self.decode_with_report(text)?;
        report.mark_cut(cut);
        Ok((value, report))
    }

    /// Replaces invalid UTF-8 in [`repair_slice`](Self::repair_slice) by
    /// U+FFFD, recording a [`RepairKind::InvalidUtf8`] for each sequence
    /// replaced (at its offset in the replaced text), instead of refusing
    /// the reply. An incomplete sequence at the very end is still dropped as
    /// truncation.
    ///
    /// ```
    /// let d = serde_llm::Decoder::new().lossy();
    /// assert_eq!(d.repair_slice(b"[\"a\xffb\"]").unwrap(), "[\"a\u{FFFD}b\"]");
    /// ```
    pub fn lossy(mut self) -> Decoder {
        self.opts.lossy = true;
        self
    }

    pub(crate) fn is_lossy(&self) -> bool {
        self.opts.lossy
    }

    /// The text of `bytes` as this decoder reads them (see [`Utf8Text`]):
    /// an incomplete UTF-8 sequence at the very end dropped (the reply was
    /// cut off inside a character); invalid UTF-8 elsewhere an
    /// [`ErrorKind::InvalidUtf8`] error at the first bad byte, or, with
    /// [`lossy`](Self::lossy), each invalid sequence replaced by U+FFFD.
    /// The text [`repair_slice`](Self::repair_slice) and
    /// [`StreamDecoder`](crate::StreamDecoder) read (and
    /// [`decode_slice`](Self::decode_slice), which never replaces); for a
    /// tool that decodes the text some other way, or shows it with a
    /// report of decoding it.
    ///
    /// ```
    /// let d = serde_llm::Decoder::new();
    /// let read = d.text_of(b"{\"a\": \"caf\xc3")?;
    /// let (value, mut report) = d.decode_with_report::<serde_json::Value>(read.text())?;
    /// read.mark(&mut report);
    /// assert_eq!(value, serde_json::json!({"a": "caf"}));
    /// assert!(report.truncated);
    /// assert!(d.text_of(b"[\xff]").is_err());
    /// # Ok::<(), serde_llm::Error>(())
    /// ```
    pub fn text_of<'b>(&self, bytes: &'b [u8]) -> Result<Utf8Text<'b>> {
        text::read_utf8(bytes, self.opts.lossy).map_err(|at| Error::invalid_utf8(bytes, at))
    }

    /// Recovers the value in `bytes` as compact JSON text (see
    /// [`repair`](Self::repair) and [`decode_slice`](Self::decode_slice)
    /// for bytes that are not UTF-8, and [`lossy`](Self::lossy)).
    pub fn repair_slice(&self, bytes: &[u8]) -> Result<String> {
        let read = self.text_of(bytes)?;
        if read.replaced.is_empty() {
            // A character cut off at the end changes only the report.
            self.repair(&read.text)
        } else {
            self.repair_with_report(&read.text).map(|(s, _)| s)
        }
    }

    /// Like [`repair_slice`](Self::repair_slice), and tells what was done
    /// (each sequence a [`lossy`](Self::lossy) decoder replaced is a
    /// [`RepairKind::InvalidUtf8`] at its offset in the replaced text).
    pub fn repair_slice_with_report(&self, bytes: &[u8]) -> Result<(String, Report)> {
        let read = self.text_of(bytes)?;
        let (json, mut report) = self.repair_with_report(&read.text)?;
        read.mark(&mut report);
        Ok((json, report))
    }

    /// Decodes into `T` and tells what was done to the text.
    pub fn decode_with_report<'de, T: Deserialize<'de>>(
        &self,
        text: &'de str,
    ) -> Result<(T, Report)> {
        let (value, reading) = self.decode_reading(text, true)?;
        Ok((value, reading.into_report()))
    }

    /// [`decode_with_report`](Self::decode_with_report), the report not
    /// yet listed (the value alone is all most callers keep); its
    /// coercions only counted unless `listed` (or the acceptance test, or
    /// the error of a reply it refuses, needs them).
    fn decode_reading<'de, T: Deserialize<'de>>(
        &self,
        text: &'de str,
        listed: bool,
    ) -> Result<(T, Reading)> {
        let (shape, typed) = shape::root::<T>();
        let listed = listed || self.accept.is_some() || self.opts.max_repairs.is_some();
        let done = self.decode_as(text, shape, typed, listed)?;
        self.vet_result(text, done)
    }

    /// Decodes `text` as `shape`; `listed`: see `de::Policy::listed`.
    pub(crate) fn decode_as<'de, T: Deserialize<'de>>(
        &self,
        text: &'de str,
        shape: Shape,
        typed: bool,
        listed: bool,
    ) -> Result<(T, Reading)> {
        self.decode_seed_as(text, PhantomData::<T>, shape, typed, listed)
    }

    /// [`decode_as`](Self::decode_as) with a seed in place of a type (see
    /// [`decode_seed`](Self::decode_seed)): every candidate and every
    /// restart reads with a clone of `seed`.
    pub(crate) fn decode_seed_as<'de, S>(
        &self,
        text: &'de str,
        seed: S,
        shape: Shape,
        typed: bool,
        listed: bool,
    ) -> Result<(S::Value, Reading)>
    where
        S: DeserializeSeed<'de> + Clone,
    {
        let watch = self.opts.rules.coerce(CoercionKind::FieldName);
        let mut ignored = false;
        // A view of a reply that ends in a number or literal (`12`, `true`)
        // does not take it as complete: the next byte may go on with it.
        let open_end = |slice: &str| {
            self.opts.view
                && slice
                    .trim_end()
                    .bytes()
                    .last()
                    .is_some_and(|c| !matches!(c, b'}' | b']' | b'"'))
        };
        let outline = extract::outline(text);
        if !open_end(text) {
            if let Some(done) = self.fast_lane(text, &outline, seed.clone(), watch, &mut ignored) {
                return Ok(done);
            }
        }
        let policy = self.opts.policy(typed, listed);
        // A candidate (a fence's body, a span in prose) that is one valid
        // value is read by serde_json, as the whole text would be.
        let lane = self.opts.max_depth >= 128;
        let clean = |slice: &'de str| {
            // A candidate cut off inside a token (`"email": "osc`, `[1, 2,`)
            // is no JSON: serde_json would read all of it to find out at the
            // end. Valid JSON ends with a closer, a quote, a digit or a
            // literal's last letter.
            let last = slice.as_bytes().last();
            if !lane
                || !matches!(last, Some(b'}' | b']' | b'"' | b'0'..=b'9' | b'e' | b'l'))
                || open_end(slice)
            {
                return None;
            }
            match by_serde_json_seed(slice, seed.clone(), watch) {
                Ok(Some((value, end))) if end == slice.len() => Some(value),
                _ => None,
            }
        };
        let mode = Mode {
            partial: policy.on,
            tape: true,
            repair: false,
        };
        let result = self.run(text, &outline, shape, mode, clean, |source, hints, span| {
            let Source::Tape(tape) = source else {
                unreachable!("a decode reads a tape")
            };
            let mut de = Deserializer::new(tape.cursor(text), policy, hints);
            let value = de.root_seed(seed.clone(), span.start)?;
            de.finish()?;
            let emptied = de.emptied();
            let (coercions, counted, repairs) = de.into_fixes();
            Ok(Decoded {
                value,
                coercions,
                counted,
                repairs,
                emptied,
            })
        });
        // Valid JSON that serde_json reads (ignoring a member) but the
        // tolerant path cannot (a `RawValue` field): serde_json's answer —
        // unless the tolerant path found a key that could name two fields,
        // which is an error, not a guess.
        if ignored && result.as_ref().is_err_and(|e| !e.is_ambiguous()) {
            if let Some(done) = self.fast_lane(text, &outline, seed.clone(), false, &mut ignored) {
                return Ok(done);
            }
        }
        match shape {
            Shape::Scalar(kind) => self.scalar_from_prose(text, seed, kind, result),
            _ => result,
        }
    }

    /// A scalar target given prose rather than a value: read as a person
    /// would (see [`Strategy::Prose`]). A value with text after it is read
    /// again that way (`12, roughly.` is 12, `1,2` is ambiguous, a `String`
    /// takes the whole reply unless the reply is one JSON string). A reply
    /// that starts with a quote keeps the error its string gave, and so do
    /// valid JSON and a number out of its type's range.
    fn scalar_from_prose<'de, S: DeserializeSeed<'de> + Clone>(
        &self,
        text: &'de str,
        seed: S,
        kind: Scalar,
        result: Result<(S::Value, Reading)>,
    ) -> Result<(S::Value, Reading)> {
        if !self.opts.strategies.prose || !self.opts.rules.repair(RepairKind::ValueInProse) {
            return result;
        }
        let body = extract::body(text, extract::first_angle(text));
        let wants = match &result {
            // A value of the right kind but out of range (a number beyond
            // `u128`) keeps its error.
            Err(e) => {
                matches!(
                    e.kind(),
                    ErrorKind::NoJson | ErrorKind::Data | ErrorKind::Syntax
                ) && !matches!(
                    text[body.clone()].trim_start().bytes().next(),
                    Some(b'"' | b'\'' | b'[')
                )
            }
            Ok((_, report)) => {
                matches!(
                    report.strategy,
                    Strategy::Balanced | Strategy::Trailing | Strategy::Gathered
                ) || report.repairs.iter().any(|r| match r.kind {
                    // More text after the value: a string takes the whole
                    // reply; another kind looks for a second value of its
                    // type there (`1,2` is no 1).
                    RepairKind::TrailingText | RepairKind::MultipleValues => true,
                    _ => false,
                })
            }
        };
        // Valid JSON is no prose: its error (`-0` for an `i64`) stands.
        let json = || serde_json::from_str::<serde::de::IgnoredAny>(&text[body.clone()]).is_ok();
        if !wants || json() {
            return result;
        }
        match prose::read(text, seed, body, kind) {
            Some(read) => read,
            None => result,
        }
    }

    /// The fast lane: a reply that is one valid JSON value (alone, or an
    /// object or array followed by prose) is decoded by serde_json itself, so
    /// valid JSON decodes exactly as serde_json decodes it, and as fast. Its
    /// depth limit is 128, so with a lower limit set the lane is skipped. On
    /// any error, or when the text after the value might hold another
    /// candidate, the tolerant path decides. (`tests/valid.rs` sets a limit
    /// of 127 to test the tolerant path on valid JSON.)
    ///
    /// `watch`: a key in another style for an optional field is no error to
    /// serde_json (it ignores the member), so an ignored member sends the
    /// reply to the tolerant path, which matches keys to fields; `ignored`
    /// is then set.
    fn fast_lane<'de, S: DeserializeSeed<'de>>(
        &self,
        text: &'de str,
        outline: &extract::Outline,
        seed: S,
        watch: bool,
        ignored: &mut bool,
    ) -> Option<(S::Value, Reading)> {
        if !self.opts.strategies.whole || self.opts.max_depth < 128 {
            return None;
        }
        let c = outline.whole.as_ref()?;
        // Pretty-printed JSON cut right after an element (`    }` last):
        // serde_json would read all of it to refuse it at the end.
        if lex::ends_with_indented_closer(text.as_bytes(), c.span.start, c.span.end) {
            return None;
        }
        let slice = &text[c.span.clone()];
        let (value, end) = match by_serde_json_seed(slice, seed, watch) {
            Ok(read) => read?,
            Err(e) => {
                *ignored = e;
                return None;
            }
        };
        let rest = &slice[end..];
        if rest.trim().is_empty() {
            return Some((value, Reading::clean(Strategy::Whole, c.span.clone())));
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
        let len = slice[..end].trim_end().len();
        let span = c.span.start..c.span.start + len;
        // Nor when that span is bracketed prose (`[ ]`, a citation `[3]`
        // before a word): the tolerant path does not take it either.
        let balanced = Candidate {
            span: span.clone(),
            strategy: Strategy::Balanced,
        };
        let prose = || {
            let refs = usize::from(crate::choose::is_reference(text, &balanced));
            crate::choose::not_a_value(text, &balanced, refs)
        };
        // Nor when the sentence after it may take it back (`{…} Oops, my
        // mistake.`): the tolerant path judges that.
        let withdrawn = || {
            crate::prose::withdraws(text, span.end, c.span.end)
                .and_then(crate::prose::Withdrawal::taken)
                .is_some()
        };
        (container && !more && self.opts.strategies.balanced && !prose() && !withdrawn())
            .then(|| (value, Reading::clean(Strategy::Balanced, span)))
    }

    /// Decodes `T`'s partial view (see
    /// [`from_llm_str_partial`](crate::from_llm_str_partial)): `None` while
    /// there is nothing to show.
    pub fn decode_partial<'de, T>(&self, text: &'de str) -> Result<Option<T::View>>
    where
        T: Partial,
        T::View: Deserialize<'de> + View,
    {
        self.decode_view::<T::View>(text)
    }

    /// This decoder reading views of a reply still being written (see
    /// `ScanOptions::view`); the caller's acceptance test is not kept (it
    /// judges finished replies).
    pub(crate) fn viewing(&self) -> Decoder {
        Decoder {
            opts: Options {
                view: true,
                ..self.opts
            },
            accept: None,
        }
    }

    /// [`decode_partial`](Self::decode_partial) by the view's type.
    pub(crate) fn decode_view<'de, V>(&self, text: &'de str) -> Result<Option<V>>
    where
        V: Deserialize<'de> + View,
    {
        // A view is always typed, even one serde reads with `deserialize_any`
        // (an untagged enum's view). A reply still being written needs its
        // completion, so max_repairs and accept_if, which judge finished
        // replies, do not apply. Inside a reasoning block still open, nothing
        // is the answer yet (a finished reply whose block never closed is
        // read from its content).
        if extract::open_block(text).is_some() {
            return Ok(None);
        }
        match self
            .viewing()
            .decode_as::<V>(text, shape::of::<V>(), true, false)
        {
            Ok((view, _)) => Ok(view.admitted()),
            // Nothing written yet, or the reply is cut off before the view can
            // be formed (an enum's tag, a value cut before it showed anything).
            Err(e) if e.is_nothing() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Decodes the value in `text` with `seed`, a
    /// [`DeserializeSeed`] in place of a type, for targets known only at
    /// run time: the same extraction, repair, coercion, partial policy,
    /// report and errors as [`decode`](Self::decode) gives a type that asks
    /// what the seed asks (a seed that asks for a struct with these field
    /// names has keys in another style matched to them, as a derived struct
    /// has). [`SchemaDecoder`](crate::SchemaDecoder) is such a seed,
    /// walking a JSON Schema; a binding to another language can build its
    /// own values directly with one.
    ///
    /// The seed is cloned for each candidate span tried and for each
    /// restart (a key learned to name a field in another style, a
    /// placeholder learned to mean `None`), so it should be cheap to clone
    /// and keep nothing from one read to the next. Which shape of value it
    /// wants (so that candidates of that shape are preferred) and whether
    /// it is typed (so that the partial policy applies) are learned by
    /// asking it once, with no input, as for a type.
    ///
    /// ```
    /// use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};
    ///
    /// /// Reads a list of numbers as their total.
    /// #[derive(Clone, Copy)]
    /// struct Total;
    ///
    /// impl<'de> DeserializeSeed<'de> for Total {
    ///     type Value = u64;
    ///     fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
    ///         d.deserialize_seq(self)
    ///     }
    /// }
    ///
    /// impl<'de> Visitor<'de> for Total {
    ///     type Value = u64;
    ///     fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
    ///         f.write_str("a list of numbers")
    ///     }
    ///     fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
    ///         let mut total = 0;
    ///         while let Some(n) = seq.next_element::<u64>()? {
    ///             total += n;
    ///         }
    ///         Ok(total)
    ///     }
    /// }
    ///
    /// let decoder = serde_llm::Decoder::new();
    /// let (total, report) = decoder.decode_seed_with_report("Totals: [1, \"2\", 3,]", Total)?;
    /// assert_eq!(total, 6);
    /// assert_eq!(report.coercions[0].path, "$[1]");
    /// # Ok::<(), serde_llm::Error>(())
    /// ```
    pub fn decode_seed<'de, S>(&self, text: &'de str, seed: S) -> Result<S::Value>
    where
        S: DeserializeSeed<'de> + Clone,
    {
        self.decode_seed_reading(text, seed, false)
            .and_then(|done| self.vet_result(text, done))
            .map(|(v, _)| v)
    }

    /// [`decode_seed`](Self::decode_seed), and tells what was done to the
    /// text.
    pub fn decode_seed_with_report<'de, S>(
        &self,
        text: &'de str,
        seed: S,
    ) -> Result<(S::Value, Report)>
    where
        S: DeserializeSeed<'de> + Clone,
    {
        let (value, reading) = self
            .decode_seed_reading(text, seed, true)
            .and_then(|done| self.vet_result(text, done))?;
        Ok((value, reading.into_report()))
    }

    /// [`decode_seed`](Self::decode_seed) of a reply that may still be
    /// being written: `None` while there is nothing to show (no value has
    /// started, or the reply is cut off before the seed's value can be
    /// formed), as [`decode_partial`](Self::decode_partial) gives. The
    /// seed reads its target's partial view itself: fields as optional (a
    /// cut value where only a complete one may stand reads as `None`
    /// through `deserialize_option`), and a place that may grow through
    /// [`partial::deserialize_seed`](crate::partial::deserialize_seed).
    /// [`max_repairs`](Self::max_repairs) and
    /// [`accept_if`](Self::accept_if) do not apply, as for `decode_partial`.
    pub fn decode_seed_partial<'de, S>(&self, text: &'de str, seed: S) -> Result<Option<S::Value>>
    where
        S: DeserializeSeed<'de> + Clone,
    {
        let (shape, _) = shape::root_seed(seed.clone());
        match self
            .viewing()
            .decode_seed_as(text, seed, shape, true, false)
        {
            Ok((value, _)) => Ok(Some(value)),
            Err(e) if e.is_nothing() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// [`decode_seed_with_report`](Self::decode_seed_with_report) before
    /// the caller's acceptance test, the report not yet listed (its
    /// coercions only counted unless `listed`, as for `decode_reading`).
    pub(crate) fn decode_seed_reading<'de, S>(
        &self,
        text: &'de str,
        seed: S,
        listed: bool,
    ) -> Result<(S::Value, Reading)>
    where
        S: DeserializeSeed<'de> + Clone,
    {
        let (shape, typed) = shape::root_seed(seed.clone());
        let listed = listed || self.accept.is_some() || self.opts.max_repairs.is_some();
        self.decode_seed_as(text, seed, shape, typed, listed)
    }

    /// Recovers the value in `text` as compact JSON text, member order kept.
    pub fn repair(&self, text: &str) -> Result<String> {
        self.repair_reading(text).map(|(s, _)| s)
    }

    /// Like [`repair`](Self::repair), and tells what was done to the text.
    pub fn repair_with_report(&self, text: &str) -> Result<(String, Report)> {
        let (json, reading) = self.repair_reading(text)?;
        Ok((json, reading.into_report()))
    }

    /// [`repair_with_report`](Self::repair_with_report), the report not yet
    /// listed.
    fn repair_reading(&self, text: &str) -> Result<(String, Reading)> {
        let allow = (self.opts.allow != Allow::ALL).then_some(self.opts.allow);
        // Every cut value kept: no value's completeness is asked for at its
        // start, so the text is written from the scanner's events as they
        // come (no tape).
        let mode = Mode {
            partial: allow.is_some(),
            tape: allow.is_some(),
            repair: true,
        };
        let done = self.run(
            text,
            &extract::outline(text),
            Shape::Any,
            mode,
            |_| None,
            |source, _, span| {
                // About the size of the span read, and a little more (quotes and
                // commas added): no copy as it grows.
                let mut out = String::with_capacity(span.len() + span.len() / 8 + 16);
                let written = match source {
                    Source::Tape(tape) => write_out(&mut tape.cursor(text), &mut out, allow),
                    Source::Scanner(scan) => write_out(scan, &mut out, allow),
                };
                written?;
                // A reading of part of the span (the first of several values) is
                // kept while the others are read: not with room for all of them.
                if out.capacity() > 2 * out.len() + 64 {
                    out.shrink_to_fit();
                }
                Ok(Decoded::plain(out))
            },
        )?;
        self.vet_result(text, done)
    }

    /// The caller's acceptance test ([`max_repairs`](Self::max_repairs),
    /// [`accept_if`](Self::accept_if)) on a decoded reply.
    pub(crate) fn vet_result<R>(
        &self,
        text: &str,
        (value, reading): (R, Reading),
    ) -> Result<(R, Reading)> {
        let too_many = self.opts.max_repairs.is_some_and(|n| reading.fixes() > n);
        // The caller's test sees the report listed.
        if !too_many
            && self
                .accept
                .as_ref()
                .is_none_or(|a| (a.0)(&reading.to_report()))
        {
            return Ok((value, reading));
        }
        let report = reading.into_report();
        let message = match self.opts.max_repairs {
            Some(n) if too_many => format!(
                "the reply needed {} repairs and coercions, more than the {n} allowed",
                report.fixes()
            ),
            _ => "the reply's report failed the decoder's acceptance test".to_owned(),
        };
        let mut detail = fixes_feedback(text, &report);
        if detail.is_empty() {
            detail = "$: the reply was refused; send it again as plain JSON".to_owned();
        }
        Err(Error::rejected_report(message, report, detail))
    }
}

/// [`write::write`], an error met where the reply was cut off marked as
/// maybe the cut's.
fn write_out<'de>(
    events: &mut impl crate::scan::Events<'de>,
    out: &mut String,
    allow: Option<Allow>,
) -> Result<()> {
    write::write(events, out, allow).map_err(|e| match events.reached_cut() {
        true => e.in_cut_reply(),
        false => e,
    })
}

/// The text of `bytes` and where a character cut off at the very end was
/// dropped, refusing invalid UTF-8: an error at the first bad byte.
fn utf8(bytes: &[u8]) -> Result<(&str, Option<usize>)> {
    text::read_utf8_strict(bytes).map_err(|at| Error::invalid_utf8(bytes, at))
}

/// The byte offset of a 1-based line and column as serde_json counts them
/// (the column in bytes).
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2)?.0 + 1
    };
    let at = start + column.saturating_sub(1);
    (at <= text.len() && text.is_char_boundary(at)).then_some(at)
}

/// `slice` read by serde_json, the fast lane's reader: the value and where
/// it ends (the text after it, if any, is not JSON). `Ok(None)` when what
/// follows the value cannot be located; `Err(ignored)` when serde_json
/// cannot read it: `ignored` says serde_json would have ignored a member
/// (see [`Watch`]) had `watch` not been set.
pub(crate) fn by_serde_json_seed<'de, S: DeserializeSeed<'de>>(
    slice: &'de str,
    seed: S,
    watch: bool,
) -> std::result::Result<Option<(S::Value, usize)>, bool> {
    if !may_be_json(slice.as_bytes()) {
        return Err(false);
    }
    let mut de = serde_json::Deserializer::from_str(slice);
    let value = match watch {
        true => seed.deserialize(Watch(&mut de)),
        false => seed.deserialize(&mut de),
    };
    let value = match value {
        Ok(v) => v,
        // The watch's error is a custom one, which serde_json files as
        // `Data`: a syntax error (what most text that is not JSON gives) is
        // not formatted to be told from it.
        Err(e) => {
            return Err(watch && e.is_data() && e.to_string().starts_with(watch::IGNORED));
        }
    };
    Ok(match de.end() {
        Ok(()) => Some((value, slice.len())),
        // Prose after the value: serde_json's error is where it starts.
        Err(e) => offset_of(slice, e.line(), e.column()).map(|end| (value, end)),
    })
}

/// Whether serde_json may read a value at the start of `b`: its first
/// bytes can start one (a reply that opens with a word, an object with an
/// unquoted key, are refused without building serde_json's error).
fn may_be_json(b: &[u8]) -> bool {
    let ws = |mut i: usize| {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    };
    let starts = |c: u8| {
        matches!(
            c,
            b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
        )
    };
    let i = ws(0);
    match b.get(i) {
        Some(b'{') => matches!(b.get(ws(i + 1)), Some(b'"' | b'}')),
        Some(b'[') => b.get(ws(i + 1)).is_some_and(|&c| c == b']' || starts(c)),
        Some(&c) => starts(c),
        None => false,
    }
}

/// What a rejected reply needed, one fix per line, for the model.
fn fixes_feedback(text: &str, report: &Report) -> String {
    let mut lines = Vec::new();
    for r in &report.repairs {
        let (line, column) = line_column(text, r.offset);
        lines.push(format!(
            "line {line}, column {column}: {}",
            r.kind.problem()
        ));
    }
    for c in &report.coercions {
        lines.push(format!(
            "{}: {} (wrote {}, meant {})",
            c.path,
            c.kind.problem(),
            c.written,
            c.used
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::may_be_json;

    /// `may_be_json` refuses only what serde_json refuses: every prefix and
    /// suffix of JSON documents and of replies around them.
    #[test]
    fn may_be_json_refuses_only_what_serde_json_refuses() {
        let docs = [
            r#"{"a": [1, -2.5e3, true, false, null, "x\"y"], "b": {}}"#,
            r#"  [ {"k": "v"}, [], [[]], "s", 0, -0.1 ]  "#,
            "\t\n\r\"just a string\"",
            r#"Sure! {name: 'Ada', "age": 36,} ```json [1,]``` nope"#,
            "{ } [ ] { \"\" : 1 } [ ]x",
            "nul tru fals -x +1 .5 {'a': 1} {a: 1} [,] [}",
        ];
        for doc in docs {
            for i in 0..=doc.len() {
                for s in [&doc[..i], &doc[i..]] {
                    if !may_be_json(s.as_bytes()) {
                        assert!(
                            serde_json::from_str::<serde_json::Value>(s).is_err(),
                            "{s:?}"
                        );
                    }
                }
            }
        }
        assert!(may_be_json(br#" {"a": 1}"#) && may_be_json(b"[ ]") && may_be_json(b"-1"));
        assert!(!may_be_json(b"Sure") && !may_be_json(b"{a: 1}") && !may_be_json(b"[,]"));
    }
}
