//! One `serde::Deserializer` over the scanner's event stream.
//!
//! The events arrive already repaired, so the access types stay as plain as
//! `serde_json`'s. Numbers are visited exactly as `serde_json` visits them
//! (`u64` for non-negative integers, `i64` for negative ones, `f64` for the
//! rest), so a valid document decodes to the same value.
//!
//! The partial policy (see [`crate::partial`]) is applied here, at each
//! value's start, where the scanner says whether the value is complete.

use serde::de::{
    self, value::BorrowedStrDeserializer, value::StrDeserializer, DeserializeSeed,
    IntoDeserializer, Visitor,
};
use serde::forward_to_deserialize_any;

use crate::coerce::{self, NameMatch};
use crate::error::{quote, Error, ErrorKind, Found, Hint, Result, Segment, Wanted};
use crate::policy::{Allow, Rules};
use crate::report::CoercionKind;
use crate::report::{Coercion, Repair};
use crate::scan::tape::{Cursor, Walk};
use crate::scan::{classify, lex, parse_f64, Event, NumValue, Number, ScanOptions, Scanner, Text};

pub(crate) mod field;
mod nested;
pub(crate) mod tagged;

/// The reserved newtype name the Deserializer recognises as "this value may
/// be incomplete" (the idea of serde_json's `RawValue`).
pub(crate) const TOKEN: &str = "$serde_llm::private::Partial";

/// The reserved newtype name for "this value may be cut, as a container
/// only": its parts so far, each complete. What a field marked partial
/// whose view takes no cut value (a list of dates) is read with.
pub(crate) const PARTS: &str = "$serde_llm::private::Parts";

/// The reserved newtype name for "a field of a view, read as any struct
/// field is": the decoder reads it as it is; from content serde buffered,
/// a value cut there is missing, as it is in the reply.
pub(crate) const FIELD: &str = "$serde_llm::private::Field";

impl Allow {
    /// The kind of the value an event starts (`None` for keys and ends).
    pub(crate) fn of(ev: &Event<'_>) -> Option<Allow> {
        Some(match ev {
            Event::Str(_) => Allow::STR,
            Event::StartArray => Allow::ARR,
            Event::StartObject => Allow::OBJ,
            Event::Null => Allow::NULL,
            Event::Bool(_) => Allow::BOOL,
            Event::Num(n) => match n.value {
                NumValue::NonFinite(v) if v.is_nan() => Allow::NAN,
                NumValue::NonFinite(v) if v > 0.0 => Allow::INFINITY,
                NumValue::NonFinite(_) => Allow::NEG_INFINITY,
                _ => Allow::NUM,
            },
            _ => return None,
        })
    }
}

/// How incomplete values are treated in one decode.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    /// Apply the policy (off: every cut value is completed and used).
    pub on: bool,
    /// The target is a typed one: values read with `deserialize_any` inside
    /// it (serde buffering an untagged or internally tagged enum) keep only
    /// cut containers, unless their position is marked partial.
    pub typed: bool,
    /// The kinds of incomplete value untyped positions keep.
    pub allow: Allow,
    /// The coercions allowed.
    pub rules: Rules,
    /// How deep the decoder may nest (for a value decoded from inside a
    /// string).
    pub max_depth: usize,
    /// The target is a partial view (`Decoder::decode_partial`, a stream's
    /// view): a cut value in content serde buffers for a flattened struct
    /// is left out rather than failing the view (see [`Hint::Omit`]).
    pub view: bool,
    /// Coercions are recorded whole, for a report; off, only counted (a
    /// call that returns only the value need not keep a path and two texts
    /// for every quoted number of a long reply).
    pub listed: bool,
    /// How many levels of fields from the root are exempt from a view's
    /// admission (`View::admitted`): the stream reads a part of a reply as
    /// text holding only the path to it, whose views around it would not be
    /// admitted. 0 everywhere else.
    pub around: usize,
    /// See `ScanOptions::lane`: a value scanned again is scanned as the
    /// decode scanned it.
    #[cfg(test)]
    pub lane: bool,
}

impl Policy {
    /// How a value's text is scanned again under this policy (JSON inside
    /// a string, a value re-read to locate an error): one value, with the
    /// repairs and depth this decode allows.
    pub(crate) fn rescan(&self) -> ScanOptions {
        ScanOptions {
            max_depth: self.max_depth,
            multi: false,
            partial: false,
            view: false,
            rules: self.rules,
            #[cfg(test)]
            lane: self.lane,
        }
    }
}

/// Which kind of number a target asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    /// `i8` … `u64`: an integer no wider than 64 bits.
    Int,
    /// `i128`, `u128`: integers beyond 64 bits are read exactly.
    Int128,
    /// `f32`, `f64`.
    Float,
}

/// What the next value's position accepts when the value is incomplete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Accept {
    /// Only a complete value (a plain struct field).
    Complete,
    /// An incomplete object or array (the root, elements and map values
    /// inside an incomplete container), shown with its parts so far.
    Containers,
    /// A field marked partial: also a string's prefix.
    Partial,
    /// A field marked partial whose view takes no cut value (a list of
    /// dates): an incomplete object or array, with only its complete parts.
    Parts,
    /// Inside content serde buffers for a typed target (an untagged enum, a
    /// `flatten`ed struct, an internally tagged enum that is not a view), in
    /// a place marked partial: serde's buffer cannot say a value is cut, so
    /// a cut string or container there is an error, the cut's (a cut last
    /// element of a list is left out; see [`field`]).
    Buffered,
    /// A member of a cut map (serde reads a struct with a flattened field
    /// as one): read by type, as `Partial` (`partial`) or `Containers`;
    /// read untyped (buffered for the flattened struct's fields), as
    /// `Buffered`.
    Flat { partial: bool },
}

impl Accept {
    /// Whether a cut value of `kind` may stand here. `typed`: the target
    /// asked for a kind; `untyped`: the kinds an untyped target keeps
    /// (`None` inside a typed target, where a cut number or literal is never
    /// a value: `5` may be `50`).
    fn admits(self, kind: Allow, typed: bool, untyped: Option<Allow>) -> bool {
        let container = kind == Allow::ARR || kind == Allow::OBJ;
        match (self, typed, untyped) {
            (Accept::Complete, _, _) => false,
            (Accept::Partial | Accept::Buffered, false, Some(allow)) => allow.contains(kind),
            (Accept::Partial | Accept::Buffered | Accept::Flat { partial: true }, _, _) => {
                container || kind == Allow::STR
            }
            // `Parts`: itself, it may be cut as the root may (its parts
            // may not).
            (Accept::Containers | Accept::Parts, false, Some(allow)) => allow.contains(kind),
            (Accept::Containers | Accept::Parts | Accept::Flat { partial: false }, _, _) => {
                container
            }
        }
    }

    /// What the parts of a cut container standing here may be. `typed`:
    /// the container was asked for by kind; `typed_target`: it is inside a
    /// typed target.
    fn parts(self, typed: bool, typed_target: bool) -> Accept {
        match (self, typed, typed_target) {
            // A list marked partial shows its last string as far as it goes
            // (numbers and literals stay done-only).
            (Accept::Partial | Accept::Flat { partial: true }, true, _) => Accept::Partial,
            // A list of dates marked partial grows by whole dates.
            (Accept::Parts, true, _) => Accept::Complete,
            (_, true, _) => Accept::Containers,
            // serde buffering inside a typed target, where the place is
            // marked partial or is a flattened struct's: a cut value is the
            // cut's error; elsewhere nothing cut is kept (it is missing).
            (Accept::Partial | Accept::Buffered | Accept::Flat { .. }, false, true) => {
                Accept::Buffered
            }
            (_, false, true) => Accept::Complete,
            (_, false, false) => Accept::Partial,
        }
    }
}

pub(crate) struct Deserializer<'a, 'de> {
    scan: Cursor<'a, 'de>,
    policy: Policy,
    /// What was learned to read differently on earlier tries (see
    /// [`Hint`]).
    hints: &'a [Hint],
    /// The coercions made (paths filled in afterwards), each with whether
    /// it was of a key.
    coercions: Vec<(Coercion, bool)>,
    /// The coercions made and only counted (see [`Policy::listed`]).
    counted: usize,
    /// Repairs made inside strings that held JSON.
    repairs: Vec<Repair>,
    accept: Accept,
    /// Where the last event read before a value skipped with
    /// `deserialize_ignored_any` started: a struct member whose key is that
    /// event was ignored (an unknown key). `usize::MAX`: none.
    ignored_after: usize,
    /// Where the element being read as a struct's field by position
    /// starts (serde's derive reads a struct from an array): an object or
    /// array there is no string's text (`[{}]` is no `{name: "{}"}`).
    /// `usize::MAX`: none.
    positional_at: usize,
    /// Where the element of a typed list being read starts: an `Option`
    /// there that is cut where only a complete value may stand is left out
    /// with the element, not `None` (`[1, null, 3` is `[1, null]`, not
    /// `[1, null, null]`). `usize::MAX`: none.
    element_at: usize,
    /// How many fields read through a reserved name (see [`field`]) are
    /// open: the first [`Policy::around`] levels are exempt from admission.
    fields_open: usize,
    /// The tag's key of the internally tagged object read next as its
    /// variant's struct (see [`tagged`]): that member is left out.
    tag_key: Option<&'static str>,
    /// The root sequence's first element, cut off, was left out (see
    /// [`emptied`](Self::emptied)).
    emptied: bool,
    /// A walk of the tape that finds where a value sits, made when a
    /// [`Hint::Null`] is learned or looked up (their key is that place).
    walk: Option<Box<Walk<'a, 'de>>>,
}

impl<'a, 'de> Deserializer<'a, 'de> {
    pub(crate) fn new(scan: Cursor<'a, 'de>, policy: Policy, hints: &'a [Hint]) -> Self {
        Deserializer {
            scan,
            policy,
            hints,
            coercions: Vec::new(),
            counted: 0,
            repairs: Vec::new(),
            accept: Accept::Containers,
            ignored_after: usize::MAX,
            positional_at: usize::MAX,
            element_at: usize::MAX,
            tag_key: None,
            emptied: false,
            fields_open: 0,
            walk: None,
        }
    }

    /// Where the value starting at `at` sits, each index left out (the
    /// key of a [`Hint::Null`]); `None` if no value starts there.
    #[cold]
    #[inline(never)]
    fn place_of(&mut self, at: usize) -> Option<Vec<Option<String>>> {
        if self.walk.as_ref().is_none_or(|w| w.passed(at)) {
            self.walk = Some(Box::new(Walk::new(self.scan.restart())));
        }
        self.walk.as_mut()?.place_of(at)
    }

    /// Reads the root value, starting at `start`: an error is placed as
    /// [`place_root`](Self::place_root) says.
    pub(crate) fn root_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
        start: usize,
    ) -> Result<S::Value> {
        seed.deserialize(&mut *self).map_err(|e| {
            let refused = e.rejected_at().is_some();
            let e = self.place_root(e, start).or_at(self.scan.offset());
            // Met where the reply was cut off, or a part refused at its
            // start for being cut: the cut's, maybe.
            match refused || self.scan.reached_cut() {
                true => e.in_cut_reply(),
                false => e,
            }
        })
    }

    /// The coercions made (each with whether it was of a key), how many
    /// were only counted, and the repairs made inside strings that held
    /// JSON.
    pub(crate) fn into_fixes(self) -> (Vec<(Coercion, bool)>, usize, Vec<Repair>) {
        (self.coercions, self.counted, self.repairs)
    }

    /// Whether the root sequence's first element, cut off, was left out, so
    /// the sequence came out empty: a reading that holds nothing of it.
    pub(crate) fn emptied(&self) -> bool {
        self.emptied
    }

    /// Reads the value and checks nothing of it is left unread.
    pub(crate) fn finish(&mut self) -> Result<()> {
        match self.scan.next()? {
            Event::Eof => Ok(()),
            _ => Err(self.error(ErrorKind::Data, "trailing content after the value")),
        }
    }

    /// An error from the root value, read from one span starting at
    /// `start`: placed as [`place_found`](Self::place_found) places those of
    /// elements and members.
    #[cold]
    pub(crate) fn place_root(&self, e: Error, start: usize) -> Error {
        match self.scan.one_span() {
            true => self.place_found(e, start),
            false => e,
        }
    }

    /// An error from the container starting at `start` that has no path of
    /// its own (serde raised it from content it buffered: an internally
    /// tagged enum's, a `flatten`ed struct's): placed at the one value in the
    /// container it names, so the path says which member was wrong. Left as
    /// it is when no value, or more than one, matches.
    #[cold]
    fn place_found(&self, mut e: Error, start: usize) -> Error {
        let text = self.scan.text();
        if !matches!(text.as_bytes().get(start), Some(b'{' | b'[')) {
            return e;
        }
        let Some(found) = e.take_found() else {
            return e;
        };
        let found = &found;
        let opts = self.policy.rescan();
        let span = start..text.len();
        let mut scan = Scanner::over(text, std::slice::from_ref(&span), &opts);
        // Arrays hold the next element's index; `path` is where the value
        // being read sits.
        let mut stack: Vec<Option<usize>> = Vec::new();
        let mut path: Vec<Segment> = Vec::new();
        let mut hits: Vec<(Vec<Segment>, usize, bool)> = Vec::new();
        let enter = |stack: &mut Vec<Option<usize>>, path: &mut Vec<Segment>| {
            if let Some(Some(i)) = stack.last_mut() {
                path.push(Segment::Index(*i));
                *i += 1;
            }
        };
        // A value read again as another kind (`Hint::Coerce`) is found as
        // what it was read as, too.
        let coerced = |scan: &Scanner<'_>, ev: Event<'_>, at: usize| {
            let Some(to) = self.hints.iter().find_map(|h| match h {
                Hint::Coerce { at: a, to } if *a == at => Some(*to),
                _ => None,
            }) else {
                return false;
            };
            let text = match ev {
                Event::Str(t) => scan.str(t),
                Event::Num(n) => scan.str(n.text),
                Event::Bool(true) => "true",
                Event::Bool(false) => "false",
                _ => return false,
            };
            // A number read as an integer may still be given as a float
            // (`"3.7"`), and the other way round.
            let number = match found {
                Found::Unsigned(u) => Some(*u as f64),
                Found::Signed(i) => Some(*i as f64),
                Found::Float(f) => Some(*f),
                _ => None,
            };
            match (to, found) {
                (Wanted::Int | Wanted::Int128 | Wanted::Float, _) if number.is_some() => {
                    text.trim().parse::<f64>().ok() == number
                }
                (Wanted::Bool, Found::Bool(b)) => coerce::bool_word(text) == Some(*b),
                (Wanted::Str, _) => found.is_str(text),
                _ => false,
            }
        };
        while let Ok(ev) = scan.next() {
            let at = scan.offset();
            let as_read = coerced(&scan, ev, at);
            let matches = match (ev, found) {
                _ if as_read => true,
                (Event::Key(t), Found::Key(k)) => {
                    path.push(Segment::Key(scan.str(t).to_owned()));
                    if scan.str(t) == k {
                        hits.push((path.clone(), at, false));
                    }
                    continue;
                }
                (Event::Key(t), _) => {
                    path.push(Segment::Key(scan.str(t).to_owned()));
                    continue;
                }
                (Event::StartObject | Event::StartArray, _) => {
                    enter(&mut stack, &mut path);
                    stack.push(matches!(ev, Event::StartArray).then_some(0));
                    continue;
                }
                (Event::EndObject | Event::EndArray, _) => {
                    stack.pop();
                    if stack.is_empty() {
                        break;
                    }
                    path.pop();
                    continue;
                }
                (Event::Eof, _) => break,
                (Event::Str(t), Found::Str(_) | Found::Long(..)) => found.is_str(scan.str(t)),
                (Event::Bool(v), Found::Bool(want)) => v == *want,
                (Event::Null, Found::Null) => true,
                (Event::Num(n), Found::Unsigned(want)) => scan.str(n.text).parse() == Ok(*want),
                (Event::Num(n), Found::Signed(want)) => scan.str(n.text).parse() == Ok(*want),
                (Event::Num(n), Found::Float(want)) => scan.str(n.text).parse() == Ok(*want),
                _ => false,
            };
            enter(&mut stack, &mut path);
            if matches {
                hits.push((path.clone(), at, as_read));
            }
            if !stack.is_empty() {
                path.pop();
            }
        }
        // A value as written beats one that only reads as it once coerced
        // (`"5"` read as 5 beside a `5` serde refused).
        let written = hits.iter().filter(|h| !h.2).count();
        let one = match (written, hits.len()) {
            (1, _) => hits.into_iter().find(|h| !h.2),
            (0, 1) => hits.pop(),
            _ => None,
        };
        match one {
            Some((path, at, _)) => e.placed(path, at),
            None => e,
        }
    }

    #[cold]
    fn error(&self, kind: ErrorKind, msg: &str) -> Error {
        Error::at(kind, msg, self.scan.offset())
    }

    #[cold]
    fn unexpected(&self, ev: Event<'de>) -> Error {
        let what = match ev {
            Event::EndObject | Event::EndArray => "unexpected end of container",
            Event::Key(_) => "unexpected key",
            _ => "unexpected end of input",
        };
        self.error(ErrorKind::Syntax, what)
    }

    /// Whether the value starting with `ev` may be used where `accept` holds.
    /// `typed`: the target asked for a kind (a typed position never takes a
    /// cut number or literal); untyped positions follow the `Allow` flags.
    fn admits(&self, accept: Accept, ev: Event<'de>, typed: bool) -> bool {
        if !self.policy.on || self.scan.complete() {
            return true;
        }
        let Some(kind) = Allow::of(&ev) else {
            return true;
        };
        let untyped = (!self.policy.typed).then_some(self.policy.allow);
        accept.admits(kind, typed, untyped)
    }

    /// Reads the first event of the next value; a cut-off value its position
    /// does not accept is a `Truncated` error.
    fn begin(&mut self, typed: bool) -> Result<Event<'de>> {
        let ev = self.scan.peek()?;
        self.begin_peeked(ev, typed)
    }

    /// [`begin`](Self::begin) with the next event, `ev`, already peeked.
    #[inline]
    fn begin_peeked(&mut self, ev: Event<'de>, typed: bool) -> Result<Event<'de>> {
        if !self.admits(self.accept, ev, typed) {
            // Left unread: an array can skip its last element on this error.
            return Err(Error::rejected(self.scan.offset()));
        }
        self.scan.next()
    }

    fn visit_number<V: Visitor<'de>>(&self, n: Number<'de>, visitor: V) -> Result<V::Value> {
        match n.value {
            NumValue::U64(v) => visitor.visit_u64(v),
            NumValue::I64(v) => visitor.visit_i64(v),
            NumValue::NonFinite(v) => visitor.visit_f64(v),
            NumValue::Float => match parse_f64(self.scan.str(n.text)) {
                Some(v) => visitor.visit_f64(v),
                None => Err(self.error(ErrorKind::Number, "number out of range")),
            },
        }
    }

    /// Visits the value that starts with `ev`. `typed` and `fields` say how it
    /// was asked for: a kind or anything, a struct (its fields each decide on
    /// their own; keys are matched to its field names) or a map (its members
    /// are kept only if complete enough).
    fn visit<V: Visitor<'de>>(
        &mut self,
        ev: Event<'de>,
        visitor: V,
        typed: bool,
        fields: Option<&'static [&'static str]>,
    ) -> Result<V::Value> {
        // What an incomplete container's parts may be (a complete container's
        // parts are complete).
        let complete = self.scan.complete();
        let inner = match complete {
            true => Accept::Complete,
            false
                if !typed
                    && matches!(self.accept, Accept::Buffered | Accept::Flat { .. })
                    && matches!(ev, Event::Str(_) | Event::StartArray | Event::StartObject) =>
            {
                // Cut, in content serde buffers: its buffer cannot say so,
                // and a field that takes only complete values would take it.
                // A view's flattened part reads again without the member.
                let at = self.scan.offset();
                let e = Error::rejected(at);
                return Err(match (self.policy.view, self.accept) {
                    (true, Accept::Flat { .. }) => e.with_hint(Hint::Omit { at }),
                    _ => e,
                });
            }
            false => self.accept.parts(typed, self.policy.typed),
        };
        match ev {
            Event::Null => visitor.visit_unit(),
            Event::Bool(v) => visitor.visit_bool(v),
            Event::Num(n) => self.visit_number(n, visitor),
            Event::Str(Text::Borrowed(s)) => visitor.visit_borrowed_str(s),
            Event::Str(t) => visitor.visit_str(self.scan.str(t)),
            Event::StartArray => {
                let depth = self.scan.depth();
                let mut seq = SeqAccess {
                    depth,
                    de: self,
                    index: 0,
                    done: false,
                    inner,
                    typed,
                    positional: fields.is_some(),
                };
                let value = visitor.visit_seq(&mut seq)?;
                if !seq.done {
                    match seq.de.scan.next()? {
                        Event::EndArray => {}
                        ev => {
                            let at = seq.de.scan.offset();
                            seq.de.skip(ev)?;
                            seq.skip_rest()?;
                            return Err(Error::at(
                                ErrorKind::Data,
                                "invalid length: the array has more elements than expected",
                                at,
                            )
                            .detail("the list has more values than expected".into()));
                        }
                    }
                }
                Ok(value)
            }
            Event::StartObject => {
                let skip = self.tag_key.take();
                let mut map = MapAccess {
                    de: self,
                    key: None,
                    done: false,
                    // A struct's fields decide for themselves; a map keeps
                    // only members whose values its position accepts.
                    inner: match (fields, typed, inner) {
                        (Some(_), _, _) => Accept::Complete,
                        (None, true, Accept::Partial) => Accept::Flat { partial: true },
                        (None, true, Accept::Containers) => Accept::Flat { partial: false },
                        (None, _, inner) => inner,
                    },
                    filter: fields.is_none() && !complete,
                    typed,
                    fields: fields.unwrap_or_default(),
                    key_at: 0,
                    skip,
                };
                let value = visitor.visit_map(&mut map)?;
                if !map.done {
                    map.skip_rest()?;
                }
                Ok(value)
            }
            ev => Err(self.unexpected(ev)),
        }
    }

    /// Skips the value that starts with `ev`, without visiting it.
    fn skip(&mut self, ev: Event<'de>) -> Result<()> {
        let mut depth = match ev {
            Event::StartArray | Event::StartObject => 1usize,
            Event::EndArray | Event::EndObject | Event::Key(_) | Event::Eof => {
                return Err(self.unexpected(ev))
            }
            _ => return Ok(()),
        };
        while depth > 0 {
            match self.scan.next()? {
                Event::StartArray | Event::StartObject => depth += 1,
                Event::EndArray | Event::EndObject => depth -= 1,
                Event::Eof => return Err(self.unexpected(Event::Eof)),
                _ => {}
            }
        }
        Ok(())
    }

    /// Records a coercion of the value (or key) at `offset`.
    #[cold]
    fn coerced(&mut self, kind: CoercionKind, offset: usize, written: String, used: String) {
        self.record(kind, offset, written, used, false);
    }

    /// Records a coercion of the key at `offset`.
    #[cold]
    fn coerced_key(&mut self, kind: CoercionKind, offset: usize, written: String, used: String) {
        self.record(kind, offset, written, used, true);
    }

    /// Records a coercion of the value (or, `key`, the key) at `offset`:
    /// whole when the report is listed, else only counted.
    #[cold]
    fn record(
        &mut self,
        kind: CoercionKind,
        offset: usize,
        written: String,
        used: String,
        key: bool,
    ) {
        if !self.policy.listed {
            self.counted += 1;
            return;
        }
        let c = Coercion {
            kind,
            path: String::new(),
            offset,
            written,
            used,
        };
        self.coercions.push((c, key));
    }

    /// A number wanted.
    #[inline]
    fn number<V: Visitor<'de>>(&mut self, visitor: V, want: Want) -> Result<V::Value> {
        // A complete number as written: what `visit` does with it.
        if let Some(n) = self.scan.take_num() {
            if want == Want::Float || n.value != NumValue::Float {
                return self.visit_number(n, visitor);
            }
            let (at, text) = (self.scan.offset(), self.scan.str(n.text).to_owned());
            return self.integer_text(&text, visitor, want, at, None);
        }
        self.number_slow(visitor, want)
    }

    /// [`number`](Self::number) past its hot path, out of line.
    #[inline(never)]
    fn number_slow<V: Visitor<'de>>(&mut self, visitor: V, want: Want) -> Result<V::Value> {
        if let Event::Num(n) = self.scan.peek()? {
            if self.scan.complete() && (want == Want::Float || n.value != NumValue::Float) {
                self.scan.next()?;
                return self.visit_number(n, visitor);
            }
        }
        if self.one_element()? {
            let value = self.number(visitor, want)?;
            return self.one_element_end(value);
        }
        let ev = self.begin(true)?;
        match ev {
            Event::Num(n) if want != Want::Float && n.value == NumValue::Float => {
                let at = self.scan.offset();
                let text = self.scan.str(n.text).to_owned();
                self.integer_text(&text, visitor, want, at, None)
            }
            Event::Str(t)
                if self.policy.rules.coerce(CoercionKind::StringToNumber)
                    && self.scan.complete() =>
            {
                let s = self.scan.str(t);
                let Some(num) = coerce::number_text(s) else {
                    return self.visit(ev, visitor, true, None);
                };
                let (num, written) = (num.into_owned(), quote(s));
                let at = self.scan.offset();
                match classify(&num) {
                    NumValue::Float if want != Want::Float => {
                        self.integer_text(&num, visitor, want, at, Some(written))
                    }
                    value => {
                        self.coerced(CoercionKind::StringToNumber, at, written, num.clone());
                        let text = Text::Borrowed("");
                        self.visit_number_owned(Number { text, value }, &num, visitor)
                    }
                }
            }
            _ => self.visit(ev, visitor, true, None),
        }
    }

    /// An integer wanted, and `text` (a JSON number, from the reply or from a
    /// string in it: `written`) spelled as a float or beyond 64 bits.
    fn integer_text<V: Visitor<'de>>(
        &mut self,
        text: &str,
        visitor: V,
        want: Want,
        at: usize,
        written: Option<String>,
    ) -> Result<V::Value> {
        let rules = self.policy.rules;
        let float = text.bytes().any(|c| matches!(c, b'.' | b'e' | b'E'));
        if !float && want == Want::Int128 {
            // A plain integer beyond 64 bits, read exactly.
            if let Some(written) = written {
                self.coerced(CoercionKind::StringToNumber, at, written, text.to_owned());
            }
            return match (text.parse::<u128>(), text.parse::<i128>()) {
                (Ok(u), _) => visitor.visit_u128(u),
                (_, Ok(i)) => visitor.visit_i128(i),
                _ => Err(self.error(ErrorKind::Number, "number out of range for i128 and u128")),
            };
        }
        // A float spelling of a whole number (`42.0`), exactly; else, if
        // allowed, rounded. A plain integer beyond 64 bits for a narrower
        // integer is a float, as serde_json reads it.
        let exact = (float && rules.coerce(CoercionKind::FloatToInteger))
            .then(|| coerce::integral(text))
            .flatten();
        let rounded = || {
            parse_f64(text)
                .filter(|f| f.is_finite() && f.abs() < 1.7e38)
                .map(|f| f.round() as i128)
        };
        let (v, round) = match exact {
            Some(v) => (v, false),
            None if float && rules.coerce(CoercionKind::RoundFloat) => match rounded() {
                Some(v) => (v, true),
                None => return self.not_integer(text, visitor),
            },
            None => return self.not_integer(text, visitor),
        };
        let used = v.to_string();
        if round {
            let written = written.clone().unwrap_or_else(|| text.to_owned());
            self.coerced(CoercionKind::RoundFloat, at, written, used.clone());
        }
        match written {
            Some(written) => self.coerced(CoercionKind::StringToNumber, at, written, used),
            None if !round => self.coerced(CoercionKind::FloatToInteger, at, text.to_owned(), used),
            None => {}
        }
        if let Ok(u) = u64::try_from(v) {
            visitor.visit_u64(u)
        } else if let Ok(i) = i64::try_from(v) {
            visitor.visit_i64(i)
        } else if let Ok(u) = u128::try_from(v) {
            visitor.visit_u128(u)
        } else {
            visitor.visit_i128(v)
        }
    }

    /// An integer wanted, and `text` is no whole number (or may not be read
    /// as one): the target's own error.
    fn not_integer<V: Visitor<'de>>(&self, text: &str, visitor: V) -> Result<V::Value> {
        match parse_f64(text) {
            Some(f) => visitor.visit_f64(f),
            None => Err(self.error(ErrorKind::Number, "number out of range")),
        }
    }

    /// Visits a number whose text is not in the reply (it came from a string).
    fn visit_number_owned<V: Visitor<'de>>(
        &self,
        n: Number<'de>,
        text: &str,
        visitor: V,
    ) -> Result<V::Value> {
        match n.value {
            NumValue::Float => match parse_f64(text) {
                Some(v) => visitor.visit_f64(v),
                None => Err(self.error(ErrorKind::Number, "number out of range")),
            },
            _ => self.visit_number(n, visitor),
        }
    }

    /// A string wanted: a number or a bool is taken as its text.
    #[inline]
    fn string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        // A complete string: what `visit` does with it (the slow path, for
        // anything else).
        if let Some(s) = self.scan.take_str() {
            return visitor.visit_borrowed_str(s);
        }
        self.string_slow(visitor)
    }

    /// [`string`](Self::string) past its hot path, out of line.
    #[inline(never)]
    fn string_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if let Event::Str(t) = self.scan.peek()? {
            if self.scan.complete() {
                self.scan.next()?;
                return match t {
                    Text::Borrowed(s) => visitor.visit_borrowed_str(s),
                    t => visitor.visit_str(self.scan.str(t)),
                };
            }
        }
        if self.one_element()? {
            let value = self.string(visitor)?;
            return self.one_element_end(value);
        }
        let rules = self.policy.rules;
        if matches!(self.scan.peek()?, Event::StartObject | Event::StartArray)
            && !self.scan.complete()
            && rules.coerce(CoercionKind::JsonToString)
            && self.positional_at != self.scan.offset()
        {
            // A cut container where a string is wanted: once complete it is
            // its text, which is not known yet. Left unread, as a cut value
            // this place does not take.
            return Err(Error::rejected(self.scan.offset()));
        }
        let ev = self.begin(true)?;
        let at = self.scan.offset();
        match ev {
            Event::StartObject | Event::StartArray
                if rules.coerce(CoercionKind::JsonToString)
                    && self.scan.complete()
                    && self.positional_at != at =>
            {
                // An object or list where a string is wanted: its text, as
                // the reply wrote it.
                self.skip(ev)?;
                let text = self.scan.text();
                let end = (self.scan.offset() + 1).min(text.len());
                let written = &text[at..end];
                self.coerced(
                    CoercionKind::JsonToString,
                    at,
                    written.to_owned(),
                    quote(written),
                );
                visitor.visit_borrowed_str(written)
            }
            Event::Num(n) if rules.coerce(CoercionKind::ToString) => {
                let text = self.scan.str(n.text).to_owned();
                self.coerced(CoercionKind::ToString, at, text.clone(), quote(&text));
                match n.text {
                    Text::Borrowed(s) => visitor.visit_borrowed_str(s),
                    _ => visitor.visit_string(text),
                }
            }
            Event::Bool(b) if rules.coerce(CoercionKind::ToString) => {
                let text = if b { "true" } else { "false" };
                self.coerced(CoercionKind::ToString, at, text.into(), quote(text));
                visitor.visit_borrowed_str(text)
            }
            Event::Null if rules.coerce(CoercionKind::NullToString) => {
                self.coerced(CoercionKind::NullToString, at, "null".into(), quote("null"));
                visitor.visit_borrowed_str("null")
            }
            _ => self.visit(ev, visitor, true, None),
        }
    }

    /// A bool wanted: `"yes"`, `"False"`, `1`, `0.0` are bools.
    #[inline]
    fn boolean<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if let Some(b) = self.scan.take_bool() {
            return visitor.visit_bool(b);
        }
        self.boolean_slow(visitor)
    }

    /// [`boolean`](Self::boolean) past its hot path, out of line.
    #[inline(never)]
    fn boolean_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if let Event::Bool(b) = self.scan.peek()? {
            if self.scan.complete() {
                self.scan.next()?;
                return visitor.visit_bool(b);
            }
        }
        if self.one_element()? {
            let value = self.boolean(visitor)?;
            return self.one_element_end(value);
        }
        let ev = self.begin(true)?;
        if !self.policy.rules.coerce(CoercionKind::ToBool) {
            return self.visit(ev, visitor, true, None);
        }
        let (word, written) = match ev {
            Event::Str(_) if !self.scan.complete() => (None, String::new()),
            Event::Str(t) => {
                let s = self.scan.str(t);
                (coerce::bool_word(s), quote(s))
            }
            Event::Num(n) => {
                let text = self.scan.str(n.text);
                let word = match coerce::integral(text) {
                    Some(1) => Some(true),
                    Some(0) => Some(false),
                    _ => None,
                };
                (word, text.to_owned())
            }
            _ => (None, String::new()),
        };
        match word {
            Some(b) => {
                let at = self.scan.offset();
                self.coerced(CoercionKind::ToBool, at, written, b.to_string());
                visitor.visit_bool(b)
            }
            None => self.visit(ev, visitor, true, None),
        }
    }

    /// With [`CoercionKind::SequenceToOne`], where one value is wanted:
    /// whether the next value is a complete list of one string, number or
    /// bool (`["HIGH"]`, `[true]`). If so its `[` is read and the coercion
    /// recorded; the caller reads the element as the value wanted, then
    /// calls [`one_element_end`](Self::one_element_end).
    fn one_element(&mut self) -> Result<bool> {
        if !self.policy.rules.coerce(CoercionKind::SequenceToOne) {
            return Ok(false);
        }
        let ev = self.scan.peek()?;
        if !matches!(ev, Event::StartArray) {
            return Ok(false);
        }
        let at = self.scan.offset();
        if !self.scan.complete() {
            if !self.policy.on {
                return Ok(false);
            }
            // Cut: once complete it may be a list of one (`[5` of `[5]`),
            // which is not known yet. Left unread, as a cut value this
            // place does not take (a decode met no error of the reply's
            // own: `[[[5]]]` is a list of one struct whose field is 5).
            // Not a list's element (which the list leaves out): in a view,
            // the member is read again as missing (a field shows `None`,
            // a map leaves the member out), as a cut number is.
            let e = Error::rejected(at);
            return Err(match self.policy.view && self.element_at != at {
                true => e.with_hint(Hint::Omit { at }),
                false => e,
            });
        }
        let text = self.scan.text();
        let Some((element, close)) = one_scalar_array(text.as_bytes(), at) else {
            return Ok(false);
        };
        self.scan.next()?;
        let (written, used) = (text[at..close + 1].to_owned(), text[element].to_owned());
        self.coerced(CoercionKind::SequenceToOne, at, written, used);
        Ok(true)
    }

    /// The `]` after the element [`one_element`](Self::one_element) found.
    fn one_element_end<T>(&mut self, value: T) -> Result<T> {
        match self.scan.next()? {
            Event::EndArray => Ok(value),
            _ => Err(self.error(ErrorKind::Data, "expected a list of one value")),
        }
    }

    /// A sequence wanted: a string holding a JSON array is that array; any
    /// other single value is a one-element sequence.
    /// `len`: a tuple's length (one value is a one-element tuple only).
    fn sequence<V: Visitor<'de>>(&mut self, visitor: V, len: Option<usize>) -> Result<V::Value> {
        // A complete array: read as it is (where the peek below leads).
        if self.scan.take_open(true) {
            return self.visit(Event::StartArray, visitor, true, None);
        }
        let ev = self.scan.peek()?;
        if !self.admits(self.accept, ev, true) {
            // Cut off where it may not be: as `begin` refuses it.
            return Err(Error::rejected(self.scan.offset()));
        }
        let one = match ev {
            Event::StartArray
            | Event::Null
            | Event::EndArray
            | Event::EndObject
            | Event::Eof
            | Event::Key(_) => false,
            Event::Str(_) if !self.scan.complete() => {
                // A string still being written (a field marked partial): it
                // may turn out to hold JSON, or be one value. Nothing to show
                // yet, and nothing that a longer prefix contradicts.
                self.scan.next()?;
                let nothing = std::iter::empty::<()>();
                return visitor.visit_seq(de::value::SeqDeserializer::<_, Error>::new(nothing));
            }
            Event::Str(t) => {
                if let Some(v) = self.json_in_string(t, b'[')? {
                    return de::Deserializer::deserialize_seq(v, visitor).map_err(nested);
                }
                // A reply that is prose ("I'm sorry, I can't…") is no list.
                !self.scan.prose_root()
            }
            Event::StartObject | Event::Num(_) | Event::Bool(_) => true,
        };
        let one = one && len.is_none_or(|n| n == 1);
        if matches!(ev, Event::StartObject)
            && self.policy.rules.coerce(CoercionKind::WrappedList)
            && wrapped_list(self.scan.text().as_bytes(), self.scan.offset())
        {
            return self.wrapped_list(visitor, len);
        }
        if !one || !self.policy.rules.coerce(CoercionKind::OneToSequence) {
            // Admitted above.
            let ev = self.scan.next()?;
            return self.visit(ev, visitor, true, None);
        }
        let at = self.scan.offset();
        let written = match ev {
            Event::StartObject => "{…}".to_owned(),
            Event::Str(t) => quote(self.scan.str(t)),
            Event::Num(n) => self.scan.str(n.text).to_owned(),
            Event::Bool(b) => b.to_string(),
            _ => String::new(),
        };
        // What was used, `[written]`, is spelled out only when the report is
        // listed (`Reading::into_report`): `written` may be the whole reply.
        self.coerced(CoercionKind::OneToSequence, at, written, String::new());
        visitor.visit_seq(OneValue {
            de: self,
            done: false,
        })
    }

    /// `{"contacts": [...]}` for a sequence: the object's one member's
    /// array (models wrap a list whenever a JSON mode demands an object
    /// root). The peeked event is the object's start.
    fn wrapped_list<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        len: Option<usize>,
    ) -> Result<V::Value> {
        let at = self.scan.offset();
        self.scan.next()?;
        let key = match self.scan.next()? {
            Event::Key(k) => self.scan.str(k).to_owned(),
            _ => return Err(not_a_list(self.scan.text(), at, self.scan.offset())),
        };
        let written = format!("{{{}: […]}}", quote(&key));
        self.coerced(CoercionKind::WrappedList, at, written, "[…]".to_owned());
        let value = self.sequence(visitor, len)?;
        match self.scan.next()? {
            Event::EndObject => Ok(value),
            _ => Err(not_a_list(self.scan.text(), at, self.scan.offset())),
        }
    }

    /// A struct or map wanted, and the next value, `ev`, is a string: with
    /// [`CoercionKind::JsonInString`], the JSON object written inside it.
    fn object_in_string(&mut self, ev: Event<'de>) -> Result<Option<serde_json::Value>> {
        match ev {
            Event::Str(t) => self.json_in_string(t, b'{'),
            _ => Ok(None),
        }
    }

    /// With [`CoercionKind::JsonInString`]: the next value, the peeked
    /// string `t`, is complete and its text is itself a JSON array (`open` =
    /// `[`) or object (`{`): decoded (and repaired) as JSON, and consumed.
    /// `None` (nothing read) when it is not.
    fn json_in_string(&mut self, t: Text<'de>, open: u8) -> Result<Option<serde_json::Value>> {
        if !self.policy.rules.coerce(CoercionKind::JsonInString) {
            return Ok(None);
        }
        let s = self.scan.str(t);
        if !self.scan.complete() || s.trim_start().as_bytes().first() != Some(&open) {
            return Ok(None);
        }
        let Some((value, repairs)) = nested::value(s, self.policy) else {
            return Ok(None);
        };
        let fits = match open {
            b'[' => value.is_array(),
            _ => value.is_object(),
        };
        if !fits {
            return Ok(None);
        }
        let at = self.scan.offset();
        let written = quote(s);
        self.scan.next()?;
        // What was repaired inside is listed, at the string's offset.
        for kind in repairs {
            self.repairs.push(Repair { kind, offset: at });
        }
        let used = value.to_string();
        self.coerced(CoercionKind::JsonInString, at, written, used);
        Ok(Some(value))
    }
}

impl<'de> Deserializer<'_, 'de> {
    /// With [`CoercionKind::EnumVariant`]: the variant that the name in `t`
    /// (just read, at `at`) stands for when it is written in another case or
    /// style (`None`: read it as written).
    fn variant_name(
        &mut self,
        t: Text<'de>,
        variants: &'static [&'static str],
        at: usize,
        key: bool,
    ) -> Result<Option<&'static str>> {
        if !self.policy.rules.coerce(CoercionKind::EnumVariant) {
            return Ok(None);
        }
        let written = self.scan.str(t);
        match coerce::match_name(written, variants) {
            NameMatch::AsWritten if !key && !variants.contains(&written) => {
                // `HIGH: urgent`: the variant, a description after it.
                let Some(name) = coerce::variant_with_description(written, variants) else {
                    return Ok(None);
                };
                let (written, used) = (quote(written), quote(name));
                self.coerced(CoercionKind::EnumVariant, at, written, used);
                Ok(Some(name))
            }
            NameMatch::AsWritten => Ok(None),
            NameMatch::One(name) => {
                let (kind, written, used) =
                    (CoercionKind::EnumVariant, quote(written), quote(name));
                match key {
                    true => self.coerced_key(kind, at, written, used),
                    false => self.coerced(kind, at, written, used),
                }
                Ok(Some(name))
            }
            NameMatch::Ambiguous(a, b) => Err(Error::ambiguous("variant", written, a, b, at)),
        }
    }
}

/// An error from decoding a value that was written inside a string.
fn nested(e: serde_json::Error) -> Error {
    Error::new(ErrorKind::Data, e)
}

/// One value read as a one-element sequence.
struct OneValue<'s, 'a, 'de> {
    de: &'s mut Deserializer<'a, 'de>,
    done: bool,
}

impl<'de> de::SeqAccess<'de> for OneValue<'_, '_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if std::mem::replace(&mut self.done, true) {
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(!self.done))
    }
}

/// A bare value read as the one field of a struct (see
/// [`CoercionKind::ValueToStruct`]).
struct OneField<'s, 'a, 'de> {
    de: &'s mut Deserializer<'a, 'de>,
    field: Option<&'static str>,
}

impl<'de> de::MapAccess<'de> for OneField<'_, '_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.field.take() {
            Some(name) => seed.deserialize(KeyDeserializer::Borrowed(name)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.de)
    }
}

/// Deserializer methods for targets that ask for a kind of value.
/// Deserializer methods for numbers.
macro_rules! numbers {
    ($($method:ident => $want:ident,)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                self.number(visitor, Want::$want)
            }
        )*
    };
}

macro_rules! typed {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                let ev = self.begin(true)?;
                self.visit(ev, visitor, true, None)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if !self.hints.is_empty() {
            // A value serde buffers, learned to be wanted as another kind.
            self.scan.peek()?;
            let at = self.scan.offset();
            let to = self.hints.iter().find_map(|h| match h {
                Hint::Coerce { at: a, to } if *a == at => Some(*to),
                _ => None,
            });
            match to {
                Some(Wanted::Int) => return self.number(visitor, Want::Int),
                Some(Wanted::Int128) => return self.number(visitor, Want::Int128),
                Some(Wanted::Float) => return self.number(visitor, Want::Float),
                Some(Wanted::Bool) => return self.boolean(visitor),
                Some(Wanted::Str) => return self.string(visitor),
                None => {}
            }
        }
        let ev = self.begin(false)?;
        self.visit(ev, visitor, false, None)
    }

    typed! {
        deserialize_unit
    }

    numbers! {
        deserialize_i8 => Int, deserialize_i16 => Int, deserialize_i32 => Int,
        deserialize_i64 => Int, deserialize_i128 => Int128, deserialize_u8 => Int,
        deserialize_u16 => Int, deserialize_u32 => Int, deserialize_u64 => Int,
        deserialize_u128 => Int128, deserialize_f32 => Float, deserialize_f64 => Float,
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.boolean(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.string(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.sequence(visitor, None)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let ev = self.scan.peek()?;
        if let Some(v) = self.object_in_string(ev)? {
            return de::Deserializer::deserialize_map(v, visitor).map_err(nested);
        }
        let ev = self.begin_peeked(ev, true)?;
        self.visit(ev, visitor, true, None)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // A tag naming an internally tagged enum's variant. A name written
        // in another style is found by the variant visitor's error, and read
        // as the right name on the decode's restart.
        let ev = self.begin(true)?;
        if let Event::Str(t) = ev {
            let s = self.scan.str(t);
            let learned = self.hints.iter().find_map(|h| match h {
                Hint::Tag { written, name } if written == s => Some(*name),
                _ => None,
            });
            if let Some(name) = learned {
                let (at, written) = (self.scan.offset(), quote(s));
                self.coerced(CoercionKind::EnumVariant, at, written, quote(name));
                return visitor.visit_borrowed_str(name);
            }
        }
        let coerce = self.policy.rules.coerce(CoercionKind::EnumVariant);
        self.visit(ev, visitor, true, None)
            .map_err(|e| if coerce { e.place_hint() } else { e })
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_unit(self, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.sequence(visitor, Some(len))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.sequence(visitor, Some(len))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // A complete object: read as it is (where the peek below leads).
        if self.scan.take_open(false) {
            return self.visit(Event::StartObject, visitor, true, Some(fields));
        }
        let ev = self.scan.peek()?;
        if let Some(v) = self.object_in_string(ev)? {
            return de::Deserializer::deserialize_struct(v, name, fields, visitor).map_err(nested);
        }
        if let ([field], Event::Str(_) | Event::Num(_) | Event::Bool(_)) = (fields, ev) {
            if self.policy.rules.coerce(CoercionKind::ValueToStruct)
                && self.admits(self.accept, ev, true)
            {
                // `1214` for `struct Id { id: u64 }`: the value is the one
                // field's.
                let at = self.scan.offset();
                let written = match ev {
                    Event::Str(t) => quote(self.scan.str(t)),
                    Event::Num(n) => self.scan.str(n.text).to_owned(),
                    Event::Bool(b) => b.to_string(),
                    _ => String::new(),
                };
                let used = format!("{{{}: {written}}}", quote(field));
                self.coerced(CoercionKind::ValueToStruct, at, written, used);
                return visitor.visit_map(OneField {
                    de: self,
                    field: Some(field),
                });
            }
        }
        let ev = self.begin_peeked(ev, true)?;
        self.visit(ev, visitor, true, Some(fields))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // `null` (complete or not): what the peek below finds, taken at once.
        if self.scan.take_null() {
            return visitor.visit_none();
        }
        let ev = self.scan.peek()?;
        let at = self.scan.offset();
        if !self.hints.is_empty() && self.hints.contains(&Hint::Omit { at }) {
            // Learned to be missing (see `one_element`).
            self.scan.next()?;
            self.skip(ev)?;
            return visitor.visit_none();
        }
        if let Event::Null = ev {
            // A list's element cut inside its `null`: left out until the
            // literal is complete, as a cut number or `true` is.
            if self.element_at == at && self.policy.on && !self.scan.complete() {
                return Err(Error::rejected(at));
            }
            self.scan.next()?;
            return visitor.visit_none();
        }
        if !self.admits(self.accept, ev, true) {
            // A list's element: left out (a `null` is no guess for it).
            if self.element_at == at {
                return Err(Error::rejected(at));
            }
            // Cut off where only a complete value may stand: missing.
            self.scan.next()?;
            self.skip(ev)?;
            return visitor.visit_none();
        }
        let Event::Str(t) = ev else {
            return visitor.visit_some(self);
        };
        let s = self.scan.str(t);
        if !self.policy.rules.coerce(CoercionKind::NoneSentinel)
            || !self.scan.complete()
            || !coerce::is_none_sentinel(s)
        {
            return visitor.visit_some(self);
        }
        // `"N/A"` where an `Option` is wanted: `None` when the inner type
        // cannot take the string (an `Option<String>` keeps it). Which it is
        // shows only when the inner type fails on it; the decode then starts
        // again knowing it. What is learned is keyed by the value's path
        // with its indices left out (`$.items[].score`) and the placeholder,
        // so it holds for every element of a list.
        let text = s.trim().to_ascii_lowercase();
        let at = self.scan.offset();
        let learned = self
            .hints
            .iter()
            .any(|h| matches!(h, Hint::Null { text: t, .. } if *t == text))
            && self.place_of(at).is_some_and(|place| {
                let this = Hint::Null {
                    at: place,
                    text: text.clone(),
                };
                self.hints.contains(&this)
            });
        if learned {
            let written = quote(self.scan.str(t));
            self.scan.next()?;
            self.coerced(CoercionKind::NoneSentinel, at, written, "null".into());
            return visitor.visit_none();
        }
        match visitor.visit_some(&mut *self) {
            Err(e) if e.hint().is_none() && e.rejected_at().is_none() => {
                Err(match self.place_of(at) {
                    Some(place) => e.with_hint(Hint::Null { at: place, text }),
                    None => e,
                })
            }
            result => result,
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match name {
            // `#[serde(with = "serde_llm::partial")]`: this value may grow.
            TOKEN => self.accept = Accept::Partial,
            // A field marked partial whose view takes no cut value (a list
            // of dates): its parts so far, each complete.
            PARTS => self.accept = Accept::Parts,
            // A field of a view, read as any struct field is.
            FIELD => {}
            // Where the next value starts, then the value (see `located`).
            AT => {
                self.scan.peek()?;
                let at = self.scan.offset();
                return visitor.visit_seq(At {
                    de: self,
                    at,
                    read: 0,
                });
            }
            _ => {
                if let Some(key) = name.strip_prefix(tagged::TAGGED) {
                    return self.tagged_view(key, None, visitor);
                }
                let adjacent = name.strip_prefix(tagged::ADJACENT);
                return match adjacent.and_then(tagged::adjacent_keys) {
                    Some((key, content)) => self.tagged_view(key, Some(content), visitor),
                    None => visitor.visit_newtype_struct(self),
                };
            }
        }
        // Visited as `Some`: the visitor learns the value comes from the
        // reply itself (see `field`); a field around a streamed part, as a
        // sequence of one: not judged by admission.
        let exempt = self.fields_open < self.policy.around;
        self.fields_open += 1;
        let value = match exempt {
            false => visitor.visit_some(&mut *self),
            true => visitor.visit_seq(Exempt(Some(&mut *self))),
        };
        self.fields_open -= 1;
        value
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // A variant's name cut off is never a variant.
        self.accept = Accept::Containers;
        if self.one_element()? {
            let value = self.deserialize_enum(_name, variants, visitor)?;
            return self.one_element_end(value);
        }
        match self.begin(true)? {
            Event::Str(t) => {
                let at = self.scan.offset();
                if let Some(name) = self.variant_name(t, variants, at, false)? {
                    return KeyDeserializer::Borrowed(name).unit_variant(visitor);
                }
                match t {
                    Text::Borrowed(s) => KeyDeserializer::Borrowed(s).unit_variant(visitor),
                    t => KeyDeserializer::Copied(self.scan.str(t)).unit_variant(visitor),
                }
            }
            Event::StartObject => {
                let complete = self.scan.complete();
                let value = visitor.visit_enum(VariantAccess {
                    de: &mut *self,
                    complete,
                    variants,
                })?;
                match self.scan.next()? {
                    Event::EndObject => Ok(value),
                    _ => Err(self.error(
                        ErrorKind::Data,
                        "expected an object with a single key naming the enum variant",
                    )),
                }
            }
            ev => {
                let err = match ev {
                    Event::StartArray => de::Error::invalid_type(de::Unexpected::Seq, &"enum"),
                    Event::Null => de::Error::invalid_type(de::Unexpected::Unit, &"enum"),
                    Event::Bool(v) => de::Error::invalid_type(de::Unexpected::Bool(v), &"enum"),
                    Event::Num(_) => {
                        de::Error::invalid_type(de::Unexpected::Other("number"), &"enum")
                    }
                    ev => self.unexpected(ev),
                };
                Err(err)
            }
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.begin(true)? {
            Event::Str(Text::Borrowed(s)) => visitor.visit_borrowed_bytes(s.as_bytes()),
            Event::Str(t) => visitor.visit_bytes(self.scan.str(t).as_bytes()),
            ev => self.visit(ev, visitor, true, None),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_bytes(self, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.ignored_after = match self.scan.has_peeked() {
            false => self.scan.offset(),
            true => usize::MAX,
        };
        let ev = self.scan.next()?;
        self.skip(ev)?;
        visitor.visit_unit()
    }
}

/// A field exempt from admission, as a sequence of one (see
/// [`field::read_judged`]).
struct Exempt<'s, 'a, 'de>(Option<&'s mut Deserializer<'a, 'de>>);

impl<'de> de::SeqAccess<'de> for Exempt<'_, '_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.0.take().map(|de| seed.deserialize(de)).transpose()
    }
}

struct SeqAccess<'s, 'a, 'de> {
    de: &'s mut Deserializer<'a, 'de>,
    /// The scanner's depth inside the array.
    depth: usize,
    index: usize,
    done: bool,
    /// What an element cut off may be.
    inner: Accept,
    typed: bool,
    /// The array is read as a struct, its elements as the fields in order.
    positional: bool,
}

impl<'de> SeqAccess<'_, '_, 'de> {
    /// The cut last element, at `index`, is left out.
    fn left_out(&mut self, index: usize) {
        if index == 0 && self.depth == 1 {
            self.de.emptied = true;
        }
    }

    fn skip_rest(&mut self) -> Result<()> {
        loop {
            match self.de.scan.next()? {
                Event::EndArray => return Ok(()),
                ev => self.de.skip(ev)?,
            }
        }
    }
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, '_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        loop {
            if self.done {
                return Ok(None);
            }
            if self.de.scan.take_end(true) {
                self.done = true;
                return Ok(None);
            }
            // A complete element is admitted wherever it stands: read at
            // once, not peeked first (so that a string or number is taken
            // by the `take_` calls).
            // (`scalar`: the element is one string, number or literal, so
            // an error reading it is met at its own end.)
            let (at, complete, scalar) = match self.de.scan.complete_value_at() {
                Some(at) => (at, true, false),
                None => {
                    let ev = self.de.scan.peek()?;
                    if let Event::EndArray = ev {
                        self.de.scan.next()?;
                        self.done = true;
                        return Ok(None);
                    }
                    if !self.typed && !self.de.admits(self.inner, ev, false) {
                        // The last element, cut off and not allowed to be:
                        // left out.
                        self.left_out(self.index);
                        self.de.scan.next()?;
                        self.de.skip(ev)?;
                        continue;
                    }
                    let scalar = !matches!(ev, Event::StartObject | Event::StartArray);
                    (self.de.scan.offset(), self.de.scan.complete(), scalar)
                }
            };
            let index = self.index;
            self.index += 1;
            self.de.accept = self.inner;
            let cut = self.typed && !complete;
            if self.positional {
                self.de.positional_at = at;
            }
            if self.typed && !self.positional {
                self.de.element_at = at;
            }
            return match seed.deserialize(&mut *self.de) {
                Ok(v) => Ok(Some(v)),
                // The last element, cut off, failed where a part of it may
                // not be cut (a required field, an enum's tag): left out, so
                // a long list cut by a token limit keeps its complete
                // elements. (Complete, it is read again, and an error of its
                // own is one then.)
                // An error met before the reading reached the cut is the
                // element's own, as a decode that does not know the cut yet
                // meets it (an unknown tag, complete, in the cut last call).
                // A part refused at its start for being cut is the cut's, the
                // scanner there or not yet. So is an error of a cut element
                // that is one scalar: a string closed by a quote that ends
                // the text of a view (the next byte may show it inside,
                // `"b" and`) is cut, and no read reached a cut beyond it.
                Err(e)
                    if cut
                        && (self.de.scan.reached_cut() || e.rejected_at().is_some() || scalar)
                        && matches!(e.kind(), ErrorKind::Truncated | ErrorKind::Data)
                        && !e.restarts()
                        && e.hint().is_none() =>
                {
                    // To the array's own depth (a peeked opener at the very
                    // end may not be on the scanner's stack yet).
                    self.left_out(index);
                    self.de.scan.drain_to(self.depth)?;
                    self.skip_rest()?;
                    self.done = true;
                    Ok(None)
                }
                // A typed element decides by its own marker; rejected at its
                // start, the cut last element is left out.
                Err(e) if e.rejected_at() == Some(at) => {
                    self.left_out(index);
                    let ev = self.de.scan.next()?;
                    self.de.skip(ev)?;
                    // It was the last element: the array ends here.
                    self.skip_rest()?;
                    self.done = true;
                    Ok(None)
                }
                Err(e) => Err(self.de.place_found(e, at).in_index(index)),
            };
        }
    }
}

/// The last key read, kept for the error path.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

struct MapAccess<'s, 'a, 'de> {
    de: &'s mut Deserializer<'a, 'de>,
    key: Option<Key<'de>>,
    done: bool,
    /// What a member's value cut off may be.
    inner: Accept,
    /// Leave out a member whose value its position does not accept (maps;
    /// a struct's fields decide for themselves).
    filter: bool,
    typed: bool,
    /// A struct's field names (aliases included): a key written in another
    /// case or style is read as the field's name. Empty for a map.
    fields: &'static [&'static str],
    /// Where the last key read starts.
    key_at: usize,
    /// A member left out: an internally tagged object's tag, read as its
    /// variant's struct (see [`tagged`]).
    skip: Option<&'static str>,
}

impl<'de> MapAccess<'_, '_, 'de> {
    fn skip_rest(&mut self) -> Result<()> {
        loop {
            match self.de.scan.next()? {
                Event::EndObject => return Ok(()),
                Event::Key(_) => {
                    let ev = self.de.scan.next()?;
                    self.de.skip(ev)?;
                }
                ev => return Err(self.de.unexpected(ev)),
            }
        }
    }

    /// The field a key was learned to name on an earlier try (recorded as
    /// a coercion), if any.
    #[cold]
    fn learned_field(&mut self) -> Option<&'static str> {
        let written = self
            .key
            .as_ref()
            .map_or(String::new(), |k| k.as_str().to_owned());
        let written = written.as_str();
        let fields = self.fields;
        let name = self.de.hints.iter().find_map(|h| match h {
            Hint::Field {
                fields: f,
                written: w,
                name,
            } if w == written && *f == fields => Some(*name),
            _ => None,
        })?;
        // The field is also written under its own name (`{"name": "a",
        // "Name": null}`): the other key stays unknown, as serde_json has it.
        let exact = Hint::Exact { name };
        if self.de.hints.contains(&exact) {
            return None;
        }
        let at = self.key_at;
        self.de
            .coerced_key(CoercionKind::FieldName, at, quote(written), quote(name));
        Some(name)
    }

    /// With [`CoercionKind::FieldName`]: a struct member just decoded whose
    /// value the struct ignored (an unknown key) and whose key names one of
    /// its fields in another case or style (`userName` for `user_name`) is
    /// an error that asks for the decode to start again reading that key as
    /// the field's name. Checked only for ignored members, so keys written
    /// exactly cost nothing.
    #[cold]
    fn ignored_member(&self) -> Result<()> {
        if !self.de.policy.rules.coerce(CoercionKind::FieldName) {
            return Ok(());
        }
        let Some(written) = self.key.as_ref().map(Key::as_str) else {
            return Ok(());
        };
        let at = self.key_at;
        match coerce::match_name(written, self.fields) {
            NameMatch::AsWritten => Ok(()),
            NameMatch::One(name) => Err(Error::at(
                ErrorKind::Data,
                format_args!("the key `{written}` names the field `{name}` in another style"),
                at,
            )
            .with_hint(Hint::Field {
                fields: self.fields,
                written: written.to_owned(),
                name,
            })),
            NameMatch::Ambiguous(a, b) => Err(Error::ambiguous("key", written, a, b, at)),
        }
    }

    /// An error from the member whose key was just read: under that key.
    #[cold]
    fn in_key(&self, e: Error) -> Error {
        match &self.key {
            Some(key) => e.in_key(key.as_str()),
            None => e,
        }
    }

    /// With filtering on: whether the member whose key was just read has a
    /// value to keep (else the value is skipped). Looking at the value may
    /// overwrite the scanner's scratch buffer, so the key is copied first.
    fn keep_member(&mut self) -> Result<bool> {
        let ev = self.de.scan.peek()?;
        let omit = || {
            let at = self.de.scan.offset();
            self.de.hints.contains(&Hint::Omit { at })
        };
        if self.de.admits(self.inner, ev, self.typed) && (self.de.hints.is_empty() || !omit()) {
            return Ok(true);
        }
        self.de.scan.next()?;
        self.de.skip(ev)?;
        Ok(false)
    }
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, '_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        loop {
            if self.done {
                return Ok(None);
            }
            let (ev, borrowed) = match self.de.scan.take_key() {
                Some(s) => (Event::Key(Text::Borrowed(s)), Some(s)),
                None if self.de.scan.take_end(false) => {
                    self.done = true;
                    return Ok(None);
                }
                None => (self.de.scan.next()?, None),
            };
            // The key's text stays in registers where it is borrowed (a
            // copy of the stored key read back at once stalls the load).
            let borrowed = match (borrowed, ev) {
                (Some(s), _) => Some(s),
                (None, Event::Key(Text::Borrowed(s))) => Some(s),
                (None, Event::Key(_)) => None,
                (None, Event::EndObject) => {
                    self.done = true;
                    return Ok(None);
                }
                (None, ev) => return Err(self.de.unexpected(ev)),
            };
            self.key = Some(match borrowed {
                Some(s) => Key::Borrowed(s),
                None => {
                    let Event::Key(t) = ev else {
                        unreachable!("a key")
                    };
                    Key::Owned(self.de.scan.str(t).to_owned())
                }
            });
            self.key_at = self.de.scan.offset();
            // A key learned, on an earlier try, to name a field in another
            // style (see `ignored_member`).
            let field = match (self.fields, self.de.hints) {
                ([_, ..], [_, ..]) => self.learned_field(),
                _ => None,
            };
            if self.filter && !self.keep_member()? {
                continue;
            }
            if self.skip.is_some() && self.skip == self.key.as_ref().map(Key::as_str) {
                let ev = self.de.scan.next()?;
                self.de.skip(ev)?;
                continue;
            }
            let result = match (field, borrowed, &self.key) {
                (Some(name), _, _) => seed.deserialize(KeyDeserializer::Borrowed(name)),
                (None, Some(s), _) => seed.deserialize(KeyDeserializer::Borrowed(s)),
                (None, None, Some(key)) => seed.deserialize(KeyDeserializer::Copied(key.as_str())),
                (None, None, None) => unreachable!("the key was just set"),
            };
            // `deny_unknown_fields`: a key in another style is found by the
            // field visitor's error, and read as the field on the restart.
            return result.map(Some).map_err(|e| {
                let e = match self.de.policy.rules.coerce(CoercionKind::FieldName) {
                    true => e.place_hint(),
                    false => e,
                };
                self.in_key(e)
            });
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.de.accept = self.inner;
        let value = seed.deserialize(&mut *self.de);
        let value = match value {
            Ok(v) if self.de.ignored_after == self.key_at && !self.fields.is_empty() => {
                self.ignored_member().map(|()| v)
            }
            result => result,
        };
        value.map_err(|e| {
            // The value starts after the key's colon.
            let b = self.de.scan.text().as_bytes();
            let e = match lex::key_then_colon(b, self.key_at, b.len()) {
                Some(colon) => {
                    let start = lex::next_significant(b, colon + 1, b.len());
                    self.de.place_found(e, start)
                }
                None => e,
            };
            self.in_key(e)
        })
    }
}

/// The reserved newtype name for "where does the next value start": the
/// decoder answers with a sequence of three, the value's byte offset in the
/// caller's text, whether the value is complete, and the value itself (see
/// [`located`]).
const AT: &str = "$serde_llm::private::At";

/// Where a value starts in the caller's text and whether it is complete
/// (see [`located`]); `None` from a deserializer that does not say.
pub type Place = Option<(usize, bool)>;

/// Reads the next value with `seed`, with where it starts in the caller's
/// text and whether it is complete (a value cut off at the end of the reply
/// is not): `None` from any deserializer but this crate's (serde_json in
/// the fast lane reads only complete values). The value is read exactly as
/// `seed.deserialize(d)` reads it. Not a public API: what a runtime
/// schema's report places its own entries with, and how it tells a `null`
/// written from a value cut off where an `Option` reads both as `None`.
pub fn located<'de, D, S>(d: D, seed: S) -> std::result::Result<(Place, S::Value), D::Error>
where
    D: de::Deserializer<'de>,
    S: DeserializeSeed<'de>,
{
    d.deserialize_newtype_struct(AT, Located(seed))
}

struct Located<S>(S);

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Located<S> {
    type Value = (Place, S::Value);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a value")
    }

    /// From the decoder: the offset, whether it is complete, the value.
    fn visit_seq<A: de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let missing = || de::Error::custom("a located value");
        let at: u64 = seq.next_element()?.ok_or_else(missing)?;
        let complete: bool = seq.next_element()?.ok_or_else(missing)?;
        let value = seq.next_element_seed(self.0)?.ok_or_else(missing)?;
        Ok((usize::try_from(at).ok().map(|at| (at, complete)), value))
    }

    /// From any other deserializer: the value alone.
    fn visit_newtype_struct<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        self.0.deserialize(d).map(|v| (None, v))
    }
}

/// The decoder's answer to [`AT`]: the offset, whether the value is
/// complete, then the value.
struct At<'s, 'a, 'de> {
    de: &'s mut Deserializer<'a, 'de>,
    at: usize,
    /// How many of the three have been read.
    read: u8,
}

impl<'de> de::SeqAccess<'de> for At<'_, '_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.read += 1;
        match self.read {
            1 => seed
                .deserialize((self.at as u64).into_deserializer())
                .map(Some),
            2 => seed
                .deserialize(self.de.scan.complete().into_deserializer())
                .map(Some),
            3 => seed.deserialize(&mut *self.de).map(Some),
            _ => Ok(None),
        }
    }
}

/// An externally tagged enum written as `{"Variant": value}`.
struct VariantAccess<'s, 'a, 'de> {
    de: &'s mut Deserializer<'a, 'de>,
    /// Whether the `{"Variant": …}` object is complete.
    complete: bool,
    variants: &'static [&'static str],
}

impl<'de> de::EnumAccess<'de> for VariantAccess<'_, '_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let value = match self.de.scan.next()? {
            Event::Key(t) => {
                let at = self.de.scan.offset();
                match (self.de.variant_name(t, self.variants, at, true)?, t) {
                    (Some(name), _) => seed.deserialize(KeyDeserializer::Borrowed(name))?,
                    (None, Text::Borrowed(s)) => seed.deserialize(KeyDeserializer::Borrowed(s))?,
                    (None, t) => seed.deserialize(KeyDeserializer::Copied(self.de.scan.str(t)))?,
                }
            }
            // `{"Te` cut off: no variant yet.
            Event::EndObject if !self.complete => {
                return Err(Error::truncated(self.de.scan.offset()))
            }
            Event::EndObject => {
                return Err(self.de.error(
                    ErrorKind::Data,
                    "expected an object with a single key naming the enum variant",
                ))
            }
            ev => return Err(self.de.unexpected(ev)),
        };
        Ok((value, self))
    }
}

impl<'de> de::VariantAccess<'de> for VariantAccess<'_, '_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(&mut *self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}

/// An object key. Like `serde_json`, a key can stand for a number or a bool
/// when the map's key type wants one (`HashMap<u32, _>`).
enum KeyDeserializer<'de, 'k> {
    Borrowed(&'de str),
    Copied(&'k str),
}

impl<'de> KeyDeserializer<'de, '_> {
    /// A string naming an enum variant.
    fn unit_variant<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            KeyDeserializer::Borrowed(s) => {
                visitor.visit_enum(BorrowedStrDeserializer::<Error>::new(s))
            }
            KeyDeserializer::Copied(s) => {
                let s: StrDeserializer<'_, Error> = s.into_deserializer();
                visitor.visit_enum(s)
            }
        }
    }

    fn as_str(&self) -> &str {
        match self {
            KeyDeserializer::Borrowed(s) => s,
            KeyDeserializer::Copied(s) => s,
        }
    }

    /// A key read as a number (or a bool): spelled as JSON spells it, as
    /// serde_json requires (`"+1"` and `"01"` are not numbers).
    fn parse<T: std::str::FromStr>(&self, what: &'static str) -> Result<T> {
        let s = self.as_str();
        let spelled = what == "bool" || coerce::is_json_number(s);
        match s.parse() {
            Ok(v) if spelled => Ok(v),
            _ => Err(de::Error::invalid_type(de::Unexpected::Str(s), &what)),
        }
    }
}

macro_rules! key_number {
    ($($method:ident => $visit:ident : $ty:ty,)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                visitor.$visit(self.parse::<$ty>(stringify!($ty))?)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for KeyDeserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            KeyDeserializer::Borrowed(s) => visitor.visit_borrowed_str(s),
            KeyDeserializer::Copied(s) => visitor.visit_str(s),
        }
    }

    key_number! {
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
        deserialize_f32 => visit_f32: f32,
        deserialize_f64 => visit_f64: f64,
        deserialize_bool => visit_bool: bool,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.unit_variant(visitor)
    }

    forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map
        struct identifier ignored_any
    }
}

/// Whether the object opening at `open` has exactly one member and its
/// value is an array: `{"contacts": [...]}` (the key may be bare or in
/// single quotes). A look at the text, ahead of the events: the events
/// then confirm it, or the read fails as "not a list".
fn wrapped_list(b: &[u8], open: usize) -> bool {
    let end = b.len();
    let k = lex::next_significant(b, open + 1, end);
    let Some(colon) = lex::key_then_colon(b, k, end) else {
        return false;
    };
    let bracket = lex::next_significant(b, colon + 1, end);
    if bracket >= end || b[bracket] != b'[' {
        return false;
    }
    match lex::matching_close(b, bracket, end).0 {
        // Cut off after the array (or its fence closed there): the one
        // member so far.
        Some(close) => {
            let brace = lex::next_significant(b, close + 1, end);
            brace >= end || b[brace] == b'}' || lex::fence_len(b, brace, end) > 0
        }
        // Cut off inside the array: the one member so far.
        None => true,
    }
}

/// Whether the object opening at `open` is plainly no wrapped list, however
/// it goes on: its first member's value has started and is no array, or a
/// second member follows the array. (Cut before that, it may still be one.)
pub(crate) fn no_wrapped_list(b: &[u8], open: usize) -> bool {
    let end = b.len();
    let k = lex::next_significant(b, open + 1, end);
    let Some(colon) = lex::key_then_colon(b, k, end) else {
        return false;
    };
    let value = lex::next_significant(b, colon + 1, end);
    if value >= end {
        return false;
    }
    if b[value] != b'[' {
        return true;
    }
    match lex::matching_close(b, value, end).0 {
        Some(close) => {
            let after = lex::next_significant(b, close + 1, end);
            after < end && b[after] != b'}'
        }
        None => false,
    }
}

/// Whether the array opening at `open` holds exactly one string, number or
/// bool (`["HIGH"]`, `[ 42 ]`, `[true]`): the element's span and the
/// position of the `]`. A look at the text, ahead of the events: the
/// events then confirm it, or the read fails as "not a list of one".
fn one_scalar_array(b: &[u8], open: usize) -> Option<(std::ops::Range<usize>, usize)> {
    let end = b.len();
    let k = lex::next_significant(b, open + 1, end);
    if k >= end || matches!(b[k], b'[' | b'{' | b']' | b',' | b'}') {
        return None;
    }
    let after = match lex::quote_at(b, k, end) {
        Some(_) => lex::simple_string_end(b, k, end)?,
        None => {
            let mut e = k;
            while e < end && !lex::is_token_end(b[e]) {
                e += 1;
            }
            e
        }
    };
    let close = lex::next_significant(b, after, end);
    (after > k && close < end && b[close] == b']').then_some((k..after, close))
}

/// The first `max` keys of the object opening at `open`, as written.
fn top_level_keys(b: &[u8], open: usize, max: usize) -> Vec<String> {
    object_members(b, open, max)
        .0
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

/// The first `max` members of the object opening at `open`: each key as
/// written and where its value's text is (trimmed), and whether its closer
/// came after them (all its members read).
pub(crate) fn object_members(
    b: &[u8],
    open: usize,
    max: usize,
) -> (Vec<(String, std::ops::Range<usize>)>, bool) {
    let end = b.len();
    let mut members = Vec::new();
    let mut k = lex::next_significant(b, open + 1, end);
    while members.len() < max {
        let Some(colon) = lex::key_then_colon(b, k, end) else {
            break;
        };
        let key = String::from_utf8_lossy(&b[k..colon]);
        let key = key.trim().trim_matches(['"', '\'']).to_owned();
        // Skip the value: to the next `,` or `}` outside strings and brackets.
        let mut j = colon + 1;
        let mut depth = 0usize;
        while j < end {
            match b[j] {
                b'"' => {
                    j += 1;
                    while j < end && b[j] != b'"' {
                        j += if b[j] == b'\\' { 2 } else { 1 };
                    }
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => depth -= 1,
                b',' | b'}' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let to = j.min(end);
        let from = lex::next_significant(b, colon + 1, to);
        let mut value_end = to;
        while value_end > from && b[value_end - 1].is_ascii_whitespace() {
            value_end -= 1;
        }
        members.push((key, from..value_end));
        if j >= end || b[j] == b'}' {
            return (members, j < end);
        }
        k = lex::next_significant(b, j + 1, end);
    }
    (members, false)
}

/// The error for the object at `open`, given where a list is wanted,
/// naming its keys; placed `at` where reading it failed.
#[cold]
pub(crate) fn not_a_list(text: &str, open: usize, at: usize) -> Error {
    let keys: Vec<String> = top_level_keys(text.as_bytes(), open, 8)
        .iter()
        .map(|k| format!("`{k}`"))
        .collect();
    let keys = if keys.is_empty() {
        "no keys".to_owned()
    } else {
        format!("keys {}", keys.join(", "))
    };
    Error::at(
        ErrorKind::Data,
        format_args!("invalid type: expected a list, got an object with {keys}"),
        at,
    )
}
