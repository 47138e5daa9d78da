//! The `DeserializeSeed` that walks a compiled schema: at each node it asks
//! the Deserializer for what a type would ask for (a string, a number, a
//! struct with these field names, a sequence, an enum with these variants),
//! so coercion, repair, the partial policy, the report and errors are the
//! typed path's, and it builds the value as a `serde_json::Value`.
//!
//! The typed path's counterparts: a required property is a plain field; any
//! other property is an `Option` field (a value cut off where it may not
//! be is missing, and `null` is no value, unless the property is nullable,
//! where a `null` written stays one); a property marked `x-partial` is a
//! field with `#[serde(with = "serde_llm::partial")]`; an array is a `Vec`,
//! an object without named properties a map, a string `enum` a unit enum.
//! In a partial view (`decode_partial`) every property is optional, as
//! every field of a derived view is, and `x-required-for-view` is
//! `#[llm(required)]`.
//!
//! What the typed path does not have: keys the schema does not name are
//! kept (or left out and reported, `additionalProperties: false`), a
//! missing property's `default` is filled in and reported, bounds and
//! formats are checked (`check`), and `anyOf` tries each alternative
//! (`choice`).

use std::cell::{Cell, RefCell};
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Unexpected, Visitor,
};
use serde_json::{Map, Value};

use super::check::json_eq;
use super::compile::{Compiled, Extra, Id, Items, Kind, Node, Object, Prop};
use crate::coerce::{match_name, NameMatch};
use crate::de::located;
use crate::error::{quote, render_path, Segment};
use crate::partial::private::read_seed;
use crate::report::CoercionKind;
use crate::stream::Path as ViewPath;
use crate::Decoder;

/// One decode's context: what it reads against, how, and what it found
/// beyond the value.
pub(crate) struct Cx<'c> {
    pub schema: &'c Compiled,
    pub decoder: &'c Decoder,
    /// A partial view (`decode_partial`, the stream): every property
    /// optional, `x-required-for-view` applied, nothing filled in or
    /// checked.
    pub view: bool,
    /// Record the values found cut off (the stream's `is_complete`).
    pub track: bool,
    pub state: State,
    /// The `anyOf` readings this read is inside: each alternative and the
    /// JSON it was given (see `choice`).
    pub within: Vec<(Id, String)>,
}

impl<'c> Cx<'c> {
    pub(crate) fn new(
        schema: &'c Compiled,
        decoder: &'c Decoder,
        view: bool,
        track: bool,
    ) -> Cx<'c> {
        Cx {
            schema,
            decoder,
            view,
            track,
            state: State::default(),
            within: Vec::new(),
        }
    }

    fn node(&self, id: Id) -> (Id, &'c Node) {
        let id = self.schema.resolve(id);
        (id, &self.schema.nodes[id])
    }
}

/// What a read found beyond the value: entries for the report, contract
/// violations, members kept that the schema does not name, values cut off.
/// Reset at the root of each read (the decoder reads again on a restart,
/// and reads other candidates), and carried out in [`Decoded`].
#[derive(Default)]
pub(crate) struct State {
    entries: RefCell<Vec<Entry>>,
    violations: RefCell<Vec<(String, String)>>,
    extras: Cell<usize>,
    /// Required properties a view has not seen (yet).
    missing: Cell<usize>,
    cut: RefCell<Vec<ViewPath>>,
}

/// How far a [`State`] had come (see [`State::rewind`]).
#[derive(Clone, Copy)]
struct Mark(usize, usize, usize, usize, usize);

impl State {
    fn mark(&self) -> Mark {
        Mark(
            self.entries.borrow().len(),
            self.violations.borrow().len(),
            self.extras.get(),
            self.cut.borrow().len(),
            self.missing.get(),
        )
    }

    /// Forgets what an element the decoder left out recorded (the last
    /// element of a list cut off, which failed).
    fn rewind(&self, m: Mark) {
        self.entries.borrow_mut().truncate(m.0);
        self.violations.borrow_mut().truncate(m.1);
        self.extras.set(m.2);
        self.cut.borrow_mut().truncate(m.3);
        self.missing.set(m.4);
    }

    /// Places the defaults filled in since `m` at `offset`, where their
    /// object starts.
    fn place_defaults(&self, m: Mark, offset: Option<usize>) {
        for e in &mut self.entries.borrow_mut()[m.0..] {
            if e.kind == CoercionKind::DefaultValue && e.offset.is_none() {
                e.offset = offset;
            }
        }
    }

    pub(crate) fn entry(&self, e: Entry) {
        self.entries.borrow_mut().push(e);
    }

    pub(crate) fn violation(&self, path: String, message: String) {
        self.violations.borrow_mut().push((path, message));
    }

    pub(crate) fn extra(&self, n: usize) {
        self.extras.set(self.extras.get() + n);
    }

    fn take(&self, value: Option<Value>) -> Decoded {
        Decoded {
            value,
            entries: self.entries.take(),
            violations: self.violations.take(),
            extras: self.extras.replace(0),
            missing: self.missing.replace(0),
            cut: self.cut.take(),
        }
    }
}

/// A report entry of the schema's own (a coercion the Deserializer did not
/// make): placed by the decoder where it said where (`offset`), else by
/// its path in the span read (`at`, see `locate`).
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub kind: CoercionKind,
    pub path: String,
    pub offset: Option<usize>,
    pub at: Vec<Segment>,
    pub written: String,
    pub used: String,
}

/// A read's value and what it found.
#[derive(Debug)]
pub(crate) struct Decoded {
    /// `None`: a view with nothing to show yet.
    pub value: Option<Value>,
    pub entries: Vec<Entry>,
    /// (JSON path, "expected …, got …").
    pub violations: Vec<(String, String)>,
    /// Members kept whose keys the schema does not name.
    pub extras: usize,
    /// Required properties a view did not see.
    pub missing: usize,
    /// The values found cut off (when tracked).
    pub cut: Vec<ViewPath>,
}

/// Where a value is: a linked list up the stack of the visitors reading it,
/// so that a path is spelled out only when something is recorded there.
#[derive(Clone, Copy)]
pub(crate) struct Path<'p>(Option<&'p Step<'p>>);

pub(crate) struct Step<'p> {
    up: Path<'p>,
    seg: Seg<'p>,
}

#[derive(Clone, Copy)]
enum Seg<'p> {
    Key(&'p str),
    Index(usize),
}

impl<'p> Path<'p> {
    pub(crate) const ROOT: Path<'static> = Path(None);

    /// Outermost first.
    pub(crate) fn segments(self) -> Vec<Segment> {
        let mut out = Vec::new();
        let mut at = self.0;
        while let Some(step) = at {
            out.push(match step.seg {
                Seg::Key(k) => Segment::Key(k.to_owned()),
                Seg::Index(i) => Segment::Index(i),
            });
            at = step.up.0;
        }
        out.reverse();
        out
    }

    /// `$.items[2].name`.
    pub(crate) fn render(self) -> String {
        render_path(&self.segments())
    }

    fn view(self) -> ViewPath {
        self.segments()
            .into_iter()
            .fold(ViewPath::root(), |p, s| match s {
                Segment::Key(k) => p.key(k),
                Segment::Index(i) => p.index(i),
            })
    }
}

fn step<'p>(up: Path<'p>, seg: Seg<'p>) -> Step<'p> {
    Step { up, seg }
}

/// The root of a read: resets the context's state, reads the node, and
/// carries what was found out with the value.
#[derive(Clone, Copy)]
pub(crate) struct Root<'c> {
    pub cx: &'c Cx<'c>,
    pub id: Id,
}

impl<'de> DeserializeSeed<'de> for Root<'_> {
    type Value = Decoded;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Decoded, D::Error> {
        let state = &self.cx.state;
        state.take(None);
        let value = Seed {
            cx: self.cx,
            id: self.id,
            path: Path::ROOT,
            tracked: false,
        }
        .deserialize(d)?;
        Ok(state.take(value))
    }
}

/// Reads the value of one node; `None` is a view's "nothing to show" (an
/// object without a property marked `x-required-for-view`).
#[derive(Clone, Copy)]
pub(crate) struct Seed<'c, 'p> {
    cx: &'c Cx<'c>,
    id: Id,
    path: Path<'p>,
    /// Already located for the stream's tracking.
    tracked: bool,
}

impl<'c, 'p> Seed<'c, 'p> {
    fn at(self, id: Id) -> Seed<'c, 'p> {
        Seed {
            id,
            tracked: false,
            ..self
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        let cx = self.cx;
        if cx.track && !self.tracked {
            let (place, value) = located(
                d,
                Seed {
                    tracked: true,
                    ..self
                },
            )?;
            cx.note_cut(self.path, place);
            return Ok(value);
        }
        let (_, node) = cx.node(self.id);
        let value = match &node.kind {
            Kind::Any => Some(serde::Deserialize::deserialize(d)?),
            Kind::Never => {
                d.deserialize_ignored_any(IgnoredAny)?;
                return Err(de::Error::custom("the schema allows no value here"));
            }
            Kind::String => Some(d.deserialize_string(Scalar::String)?),
            Kind::Integer => Some(d.deserialize_i64(Scalar::Integer)?),
            Kind::Number => Some(d.deserialize_f64(Scalar::Number)?),
            Kind::Boolean => Some(d.deserialize_bool(Scalar::Boolean)?),
            Kind::Null => Some(d.deserialize_unit(Scalar::Null)?),
            Kind::Enum(variants) => Some(d.deserialize_enum("", variants, Variant(variants))?),
            Kind::Nullable(inner) => optional(d, self.at(*inner))?.unwrap_or(Some(Value::Null)),
            Kind::Array(a) => {
                let v = ArrayVisitor {
                    seed: self,
                    array: a,
                };
                match a.tuple {
                    true => d.deserialize_tuple(a.prefix.len(), v)?,
                    false => d.deserialize_seq(v)?,
                }
            }
            Kind::Object(o) => {
                let seed = ObjectSeed {
                    seed: self,
                    object: o,
                };
                match o.defaults && !cx.view {
                    // The defaults filled in are reported where the object
                    // starts.
                    true => {
                        let before = cx.state.mark();
                        let (place, value) = located(d, seed)?;
                        cx.state.place_defaults(before, place.map(|p| p.0));
                        value
                    }
                    false => seed.deserialize(d)?,
                }
            }
            Kind::Map(m) => d.deserialize_map(MapVisitor { seed: self, map: m })?,
            Kind::Choice(alts) => super::choice::read(d, self.cx, alts, self.path)?,
            Kind::Ref(_) => unreachable!("resolved by Cx::node"),
        };
        cx.finish(node, value.as_ref(), self.path)?;
        Ok(value)
    }
}

impl Cx<'_> {
    /// The value's `enum`/`const` (an error, as a type's unknown variant
    /// is) and, decoding, its bounds and formats (violations).
    #[inline]
    fn finish<E: de::Error>(
        &self,
        node: &Node,
        value: Option<&Value>,
        path: Path<'_>,
    ) -> Result<(), E> {
        let Some(value) = value else {
            return Ok(());
        };
        if let Some(members) = &node.members {
            if !members.iter().any(|m| json_eq(m, value)) {
                return Err(de::Error::invalid_value(unexpected(value), &OneOf(members)));
            }
        }
        if let (Some(checks), false) = (&node.checks, self.view) {
            checks.check(value, |message| {
                self.state.violation(path.render(), message)
            });
        }
        Ok(())
    }

    /// The stream's tracking: a value found cut off.
    fn note_cut(&self, path: Path<'_>, place: Option<(usize, bool)>) {
        if let Some((_, false)) = place {
            self.state.cut.borrow_mut().push(path.view());
        }
    }
}

/// How serde names a value an error was raised for.
fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (_, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// "one of 1, 2, 3".
struct OneOf<'a>(&'a [Value]);

impl de::Expected for OneOf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [one] => write!(f, "{one}"),
            many => {
                f.write_str("one of ")?;
                for (i, v) in many.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                Ok(())
            }
        }
    }
}

/// The scalar kinds, each a visitor that builds its `Value`.
#[derive(Clone, Copy)]
enum Scalar {
    String,
    Integer,
    Number,
    Boolean,
    Null,
}

impl<'de> Visitor<'de> for Scalar {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scalar::String => "a string",
            Scalar::Integer => "an integer",
            Scalar::Number => "a number",
            Scalar::Boolean => "a boolean",
            Scalar::Null => "null",
        })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        match self {
            Scalar::String => Ok(Value::String(v.to_owned())),
            _ => Err(de::Error::invalid_type(Unexpected::Str(v), &self)),
        }
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        match self {
            Scalar::String => Ok(Value::String(v)),
            _ => Err(de::Error::invalid_type(Unexpected::Str(&v), &self)),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        match self {
            Scalar::Integer | Scalar::Number => Ok(Value::from(v)),
            _ => Err(de::Error::invalid_type(Unexpected::Unsigned(v), &self)),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        match self {
            Scalar::Integer | Scalar::Number => Ok(Value::from(v)),
            _ => Err(de::Error::invalid_type(Unexpected::Signed(v), &self)),
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) if matches!(self, Scalar::Number) => self.visit_f64(v as f64),
            Err(_) => Err(de::Error::custom(format_args!(
                "the integer {v} is beyond what a JSON value holds (64 bits)"
            ))),
        }
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        match i64::try_from(v) {
            Ok(v) => self.visit_i64(v),
            Err(_) if matches!(self, Scalar::Number) => self.visit_f64(v as f64),
            Err(_) => Err(de::Error::custom(format_args!(
                "the integer {v} is beyond what a JSON value holds (64 bits)"
            ))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        match self {
            Scalar::Number if v.is_finite() => Ok(Value::from(v)),
            Scalar::Number => Err(de::Error::invalid_value(
                Unexpected::Float(v),
                &"a finite number",
            )),
            _ => Err(de::Error::invalid_type(Unexpected::Float(v), &self)),
        }
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        match self {
            Scalar::Boolean => Ok(Value::Bool(v)),
            _ => Err(de::Error::invalid_type(Unexpected::Bool(v), &self)),
        }
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        match self {
            Scalar::Null => Ok(Value::Null),
            _ => Err(de::Error::invalid_type(Unexpected::Unit, &self)),
        }
    }
}

/// A string `enum`, read as a unit enum's variant (a name written in
/// another case or style is the variant it names, reported).
struct Variant(&'static [&'static str]);

impl<'de> Visitor<'de> for Variant {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [one] => write!(f, "{}", quote(one)),
            many => {
                f.write_str("one of ")?;
                let quoted: Vec<String> = many.iter().map(|v| quote(v)).collect();
                f.write_str(&quoted.join(", "))
            }
        }
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (name, variant) = data.variant_seed(VariantName(self.0))?;
        de::VariantAccess::unit_variant(variant)?;
        Ok(Value::String(name.to_owned()))
    }
}

/// A variant's name, one of the list.
struct VariantName(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for VariantName {
    type Value = &'static str;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<&'static str, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for VariantName {
    type Value = &'static str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a variant name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<&'static str, E> {
        self.0
            .iter()
            .find(|n| **n == v)
            .copied()
            .ok_or_else(|| de::Error::unknown_variant(v, self.0))
    }
}

/// `deserialize_option` with a visitor of `K`, a kind of node: a
/// placeholder learned to mean `None` (`"N/A"` where a nullable integer is
/// wanted) is learned per visitor type, as it is for `Option<u32>`, so
/// each kind has its own.
struct Optional<'c, 'p, const K: u8>(Seed<'c, 'p>);

impl<'de, const K: u8> Visitor<'de> for Optional<'_, '_, K> {
    /// `None`: `null` (or a value cut off where it may not be).
    type Value = Option<Option<Value>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(d).map(Some)
    }
}

/// Reads `seed`'s node as an `Option` of it.
fn optional<'de, D: Deserializer<'de>>(
    d: D,
    seed: Seed<'_, '_>,
) -> Result<Option<Option<Value>>, D::Error> {
    let (_, node) = seed.cx.node(seed.id);
    match &node.kind {
        Kind::String => d.deserialize_option(Optional::<0>(seed)),
        Kind::Integer => d.deserialize_option(Optional::<1>(seed)),
        Kind::Number => d.deserialize_option(Optional::<2>(seed)),
        Kind::Boolean => d.deserialize_option(Optional::<3>(seed)),
        Kind::Enum(_) => d.deserialize_option(Optional::<4>(seed)),
        Kind::Array(_) => d.deserialize_option(Optional::<5>(seed)),
        Kind::Object(_) => d.deserialize_option(Optional::<6>(seed)),
        Kind::Map(_) => d.deserialize_option(Optional::<7>(seed)),
        Kind::Choice(_) => d.deserialize_option(Optional::<8>(seed)),
        _ => d.deserialize_option(Optional::<9>(seed)),
    }
}

/// A member's value read where it may be missing: `None` when it is
/// absent from the result. `keep_null`: a `null` written stays `null`
/// (a nullable property, a member the schema does not name); a value cut
/// off is absent all the same.
#[derive(Clone, Copy)]
struct Member<'c, 'p> {
    seed: Seed<'c, 'p>,
    /// Read as a plain field: the value must be there, complete.
    direct: bool,
    keep_null: bool,
}

impl<'de> DeserializeSeed<'de> for Member<'_, '_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        let seed = self.seed;
        if self.direct {
            return seed.deserialize(d);
        }
        let (_, node) = seed.cx.node(seed.id);
        let inner = match node.kind {
            Kind::Nullable(inner) => seed.at(inner),
            _ => seed,
        };
        if !self.keep_null {
            return Ok(optional(d, inner)?.flatten());
        }
        // `null` and a value cut off both read as `None`: where the value
        // starts says which.
        let (place, value) = located(d, Optional::<10>(inner))?;
        seed.cx.note_cut(seed.path, place);
        let complete = place.is_none_or(|(_, complete)| complete);
        Ok(match value {
            Some(v) => v,
            None if complete => Some(Value::Null),
            None => None,
        })
    }
}

impl<'de, 'c, 'p> DeserializeSeed<'de> for Optional<'c, 'p, 10> {
    type Value = Option<Option<Value>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        optional(d, self.0)
    }
}

/// A property's value: as [`Member`] reads it, through the partial hook
/// where it is marked `x-partial`.
struct Property<'c, 'p> {
    member: Member<'c, 'p>,
    prop: &'c Prop,
}

impl<'de> DeserializeSeed<'de> for Property<'_, '_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        let member = self.member;
        if !self.prop.partial {
            return member.deserialize(d);
        }
        let cx = member.seed.cx;
        let (id, _) = cx.node(member.seed.id);
        read_seed(d, cx.schema.cuts[id], member)
    }
}

struct ArrayVisitor<'c, 'p> {
    seed: Seed<'c, 'p>,
    array: &'c super::compile::Array,
}

impl<'de> Visitor<'de> for ArrayVisitor<'_, '_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        let seed = self.seed;
        let state = &seed.cx.state;
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        for i in 0.. {
            let id = match (self.array.prefix.get(i), self.array.items) {
                (Some(&id), _) | (None, Items::Node(id)) => id,
                (None, Items::Any) => seed.cx.schema.any,
                (None, Items::None) => break,
            };
            let here = step(seed.path, Seg::Index(out.len()));
            let before = state.mark();
            match seq.next_element_seed(Seed {
                path: Path(Some(&here)),
                ..seed.at(id)
            })? {
                Some(Some(v)) => out.push(v),
                // Not shown (a view's element without its required part).
                Some(None) => {}
                None => {
                    // The end, or the last element cut off and left out.
                    state.rewind(before);
                    break;
                }
            }
        }
        Ok(Some(Value::Array(out)))
    }
}

#[derive(Clone, Copy)]
struct ObjectSeed<'c, 'p> {
    seed: Seed<'c, 'p>,
    object: &'c Object,
}

impl<'de, 'c, 'p> DeserializeSeed<'de> for ObjectSeed<'c, 'p> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_struct("", self.object.fields, self)
    }
}

/// What a key names.
enum Key {
    Prop(usize),
    /// A property's name in another case or style: its value is ignored,
    /// which the decoder takes as the cue to read the key as that name.
    Restyled,
    Extra(String),
}

struct KeySeed<'c> {
    cx: &'c Cx<'c>,
    object: &'c Object,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }

    fn visit_str<E: de::Error>(self, k: &str) -> Result<Key, E> {
        let o = self.object;
        if let Some(i) = o.find(k) {
            return Ok(Key::Prop(i));
        }
        let rules = self.cx.decoder.opts.rules;
        if rules.coerce(CoercionKind::FieldName)
            && !o.fields.is_empty()
            && !matches!(match_name(k, o.fields), NameMatch::AsWritten)
        {
            return Ok(Key::Restyled);
        }
        let dropped =
            matches!(o.extra, Extra::Drop) && !o.patterns.iter().any(|(p, _)| p.is_match(k));
        if dropped && !rules.coerce(CoercionKind::ExtraKey) {
            return Err(de::Error::unknown_field(k, o.fields));
        }
        Ok(Key::Extra(k.to_owned()))
    }
}

impl<'de, 'c, 'p> Visitor<'de> for ObjectSeed<'c, 'p> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (seed, object) = (self.seed, self.object);
        let cx = seed.cx;
        let mut out = Map::new();
        let mut seen = Seen::new(object.props.len());
        while let Some(key) = map.next_key_seed(KeySeed { cx, object })? {
            match key {
                Key::Prop(i) => {
                    let prop = &object.props[i];
                    if !seen.insert(i) {
                        return Err(de::Error::duplicate_field(prop.name));
                    }
                    let here = step(seed.path, Seg::Key(prop.name));
                    let member = Member {
                        seed: Seed {
                            path: Path(Some(&here)),
                            ..seed.at(prop.node)
                        },
                        direct: !cx.view && prop.required && !prop.nullable,
                        keep_null: prop.nullable,
                    };
                    if let Some(v) = map.next_value_seed(Property { member, prop })? {
                        out.insert(prop.name.to_owned(), v);
                    }
                }
                Key::Restyled => {
                    map.next_value::<IgnoredAny>()?;
                }
                Key::Extra(name) => {
                    if let Some(member) = self.extra(&mut map, &name)? {
                        out.insert(name, member);
                    }
                }
            }
        }
        for (i, prop) in object.props.iter().enumerate() {
            if cx.view {
                if prop.for_view && !out.contains_key(prop.name) {
                    return Ok(None);
                }
                if prop.required && !seen.contains(i) {
                    cx.state.missing.set(cx.state.missing.get() + 1);
                }
                continue;
            }
            if seen.contains(i) {
                continue;
            }
            match &prop.default {
                Some(d) if cx.decoder.opts.rules.coerce(CoercionKind::DefaultValue) => {
                    out.insert(prop.name.to_owned(), d.clone());
                    let here = step(seed.path, Seg::Key(prop.name));
                    cx.state.entry(Entry {
                        kind: CoercionKind::DefaultValue,
                        path: Path(Some(&here)).render(),
                        offset: None,
                        at: seed.path.segments(),
                        written: String::new(),
                        used: d.to_string(),
                    });
                }
                _ if prop.required => return Err(de::Error::missing_field(prop.name)),
                _ => {}
            }
        }
        Ok(Some(Value::Object(out)))
    }
}

/// Which properties of an object were written.
enum Seen {
    Few(u128),
    Many(Vec<bool>),
}

impl Seen {
    fn new(n: usize) -> Seen {
        match n <= 128 {
            true => Seen::Few(0),
            false => Seen::Many(vec![false; n]),
        }
    }

    /// Marks `i`; `false` if it was already.
    fn insert(&mut self, i: usize) -> bool {
        match self {
            Seen::Few(bits) => {
                let was = *bits & (1 << i) != 0;
                *bits |= 1 << i;
                !was
            }
            Seen::Many(v) => !std::mem::replace(&mut v[i], true),
        }
    }

    fn contains(&self, i: usize) -> bool {
        match self {
            Seen::Few(bits) => *bits & (1 << i) != 0,
            Seen::Many(v) => v[i],
        }
    }
}

impl<'de> ObjectSeed<'_, '_> {
    /// A member whose key names no property: kept, read as its pattern's
    /// or `additionalProperties`' schema says; or left out and reported.
    fn extra<A: MapAccess<'de>>(&self, map: &mut A, name: &str) -> Result<Option<Value>, A::Error> {
        let (seed, object) = (self.seed, self.object);
        let cx = seed.cx;
        let here = step(seed.path, Seg::Key(name));
        let path = Path(Some(&here));
        let pattern = object
            .patterns
            .iter()
            .find(|(p, _)| p.is_match(name))
            .map(|(_, id)| *id);
        let id = match (pattern, &object.extra) {
            (Some(id), _) => id,
            (None, Extra::Keep(Some(id))) => *id,
            (None, Extra::Keep(None)) => cx.schema.any,
            (None, Extra::Drop) => {
                let (place, IgnoredAny) =
                    map.next_value_seed(Located(std::marker::PhantomData::<IgnoredAny>))?;
                cx.state.entry(Entry {
                    kind: CoercionKind::ExtraKey,
                    path: path.render(),
                    offset: place.map(|p| p.0),
                    at: path.segments(),
                    written: quote(name),
                    used: String::new(),
                });
                return Ok(None);
            }
        };
        let (_, node) = cx.node(id);
        let keep_null = matches!(node.kind, Kind::Nullable(_) | Kind::Any | Kind::Null);
        let member = Member {
            seed: Seed {
                cx,
                id,
                path,
                tracked: false,
            },
            direct: false,
            keep_null,
        };
        let value = map.next_value_seed(member)?;
        if value.is_some() {
            cx.state.extra(1);
        }
        Ok(value)
    }
}

/// `prefix` (a path) then the steps of `sub` (a path from `$`).
pub(crate) fn under(prefix: &str, sub: &str) -> String {
    format!("{prefix}{}", &sub[1..])
}

/// A value read with [`located`].
struct Located<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Located<S> {
    type Value = (Option<(usize, bool)>, S::Value);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        located(d, self.0)
    }
}

struct MapVisitor<'c, 'p> {
    seed: Seed<'c, 'p>,
    map: &'c super::compile::MapNode,
}

impl<'de> Visitor<'de> for MapVisitor<'_, '_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let seed = self.seed;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let pattern = self
                .map
                .patterns
                .iter()
                .find(|(p, _)| p.is_match(&key))
                .map(|(_, id)| *id);
            let id = pattern.or(self.map.values).unwrap_or(seed.cx.schema.any);
            let here = step(seed.path, Seg::Key(&key));
            let value = map.next_value_seed(Seed {
                path: Path(Some(&here)),
                ..seed.at(id)
            })?;
            if let Some(v) = value {
                out.insert(key, v);
            }
        }
        Ok(Some(Value::Object(out)))
    }
}
