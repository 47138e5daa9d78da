//! What shape of value a target type wants at its root, learned by asking its
//! `Deserialize` impl once (it calls `deserialize_struct`, `deserialize_seq`,
//! …) without any input. Extraction uses it to prefer candidates of the right
//! shape and to gather several values for a sequence.

use std::cell::Cell;

use serde::de::{self, Deserialize, Visitor};

/// How a probe stops the type it asks: not the crate's error, which
/// allocates (two of them were a tenth of a short reply's decode).
#[derive(Debug)]
struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("shape probe")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: std::fmt::Display>(_: T) -> Stop {
        Stop
    }
}

type Result<T> = std::result::Result<T, Stop>;

/// The root shape a type asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A struct or a map.
    Object,
    /// A struct of exactly one field: an object, or a bare value of that
    /// field's type (see `CoercionKind::ValueToStruct`).
    Wrapper,
    /// A sequence, tuple or tuple struct.
    Array,
    /// A number, string, bool, unit or enum: which, so that a reply of short
    /// prose can be read for it.
    Scalar(Scalar),
    /// Anything (`serde_json::Value`, untagged enums, `IgnoredAny`, ...).
    Any,
}

/// The kinds of scalar a type can want.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// A string (`String`, `&str`, `Cow<str>`).
    Text,
    Bool,
    /// Any integer or float type.
    Number,
    /// An enum, with its variants' names.
    Enum(&'static [&'static str]),
    /// A char, unit, bytes, or an identifier.
    Other,
}

/// The root shape `T` wants.
pub(crate) fn of<'de, T: Deserialize<'de>>() -> Shape {
    root::<T>().0
}

/// The root shape `T` wants, and whether `T` is typed. A type asking for
/// anything (`serde_json::Value`) is untyped and follows the `Allow` flags,
/// except serde's own enums that buffer their content to read it by their
/// variants' types (internally tagged and untagged): typed, so that a tool
/// call cut at `"limit": 5` is not read as 5.
pub(crate) fn root<'de, T: Deserialize<'de>>() -> (Shape, bool) {
    root_seed(std::marker::PhantomData::<T>)
}

/// [`root`] for a seed (see `Decoder::decode_seed`): the shape it asks for.
pub(crate) fn root_seed<'de, S: de::DeserializeSeed<'de>>(seed: S) -> (Shape, bool) {
    let seen = Cell::new(Shape::Any);
    let buffers = Cell::new(false);
    let _ = seed.deserialize(Probe {
        seen: &seen,
        buffers: &buffers,
    });
    let shape = seen.get();
    (shape, shape != Shape::Any || buffers.get())
}

struct Probe<'p> {
    seen: &'p Cell<Shape>,
    buffers: &'p Cell<bool>,
}

/// Whether `visitor` is serde's buffer of an enum's content (an internally
/// tagged enum's, or the content an untagged enum tries its variants on):
/// shown an object, it asks for its first key as anything (serde's
/// buffer), not as a string (`serde_json::Value`) or not at all.
/// `tagged`: whether the first key is asked for as an internally tagged
/// enum's buffer asks for it, the tag or any other key (serde's visitor
/// for it expects "a type tag `…` or any other value"; an untagged enum's
/// expects any value).
fn buffers<'de, V: Visitor<'de>>(visitor: V, tagged: &Cell<bool>) -> bool {
    let asked = Cell::new(false);
    let _ = visitor.visit_map(FirstKey {
        asked: &asked,
        tagged,
    });
    asked.get()
}

/// An object whose first key tells how it is asked for.
struct FirstKey<'p> {
    asked: &'p Cell<bool>,
    tagged: &'p Cell<bool>,
}

impl<'de> de::MapAccess<'de> for FirstKey<'_> {
    type Error = Stop;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        seed.deserialize(KeyProbe {
            asked: self.asked,
            tagged: self.tagged,
        })
        .map(Some)
    }

    fn next_value_seed<T: de::DeserializeSeed<'de>>(&mut self, _: T) -> Result<T::Value> {
        Err(Stop)
    }
}

struct KeyProbe<'p> {
    asked: &'p Cell<bool>,
    tagged: &'p Cell<bool>,
}

impl<'de> de::Deserializer<'de> for KeyProbe<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked.set(true);
        let expects = format!("{}", &visitor as &dyn de::Expected);
        self.tagged.set(expects.starts_with("a type tag `"));
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum
    }

    fn deserialize_str<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(Stop)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(Stop)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(Stop)
    }
}

impl Probe<'_> {
    fn stop<T>(&self, shape: Shape) -> Result<T> {
        self.seen.set(shape);
        Err(Stop)
    }
}

macro_rules! scalars {
    ($kind:expr => $($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
                self.stop(Shape::Scalar($kind))
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let tagged = Cell::new(false);
        self.buffers.set(buffers(visitor, &tagged));
        // An internally tagged enum (a tool call) is an object with its tag.
        match tagged.get() {
            true => self.stop(Shape::Object),
            false => self.stop(Shape::Any),
        }
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

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value> {
        match fields {
            [_] => self.stop(Shape::Wrapper),
            _ => self.stop(Shape::Object),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        self.stop(Shape::Object)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        self.stop(Shape::Array)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value> {
        self.stop(Shape::Array)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value> {
        self.stop(Shape::Array)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value> {
        self.stop(Shape::Scalar(Scalar::Enum(variants)))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        self.stop(Shape::Any)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> Result<V::Value> {
        self.stop(Shape::Scalar(Scalar::Other))
    }

    scalars! { Scalar::Bool => deserialize_bool }
    scalars! {
        Scalar::Number => deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64
    }
    scalars! { Scalar::Text => deserialize_str deserialize_string }
    scalars! {
        Scalar::Other => deserialize_char deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct S {
        a: u8,
        b: u8,
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Id {
        id: u64,
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Wrap(Vec<u8>);

    #[test]
    fn probes_root_shapes() {
        assert_eq!(of::<S>(), Shape::Object);
        assert_eq!(of::<Id>(), Shape::Wrapper);
        assert_eq!(of::<Option<S>>(), Shape::Object);
        assert_eq!(of::<HashMap<String, u8>>(), Shape::Object);
        assert_eq!(of::<Vec<S>>(), Shape::Array);
        assert_eq!(of::<Wrap>(), Shape::Array);
        assert_eq!(of::<(u8, u8)>(), Shape::Array);
        assert_eq!(of::<serde_json::Value>(), Shape::Any);
        assert_eq!(of::<u32>(), Shape::Scalar(Scalar::Number));
        assert_eq!(of::<Option<f64>>(), Shape::Scalar(Scalar::Number));
        assert_eq!(of::<String>(), Shape::Scalar(Scalar::Text));
        assert_eq!(of::<bool>(), Shape::Scalar(Scalar::Bool));
    }

    #[derive(serde::Deserialize)]
    #[serde(tag = "name")]
    #[allow(dead_code)]
    enum Call {
        Search { query: String },
    }

    #[derive(serde::Deserialize)]
    #[serde(tag = "name", expecting = "a tool call")]
    #[allow(dead_code)]
    enum Worded {
        Search { query: String },
    }

    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Either {
        Text(String),
        Number(u32),
    }

    #[test]
    fn serde_enums_buffering_content_are_typed() {
        assert_eq!(root::<serde_json::Value>(), (Shape::Any, false));
        assert_eq!(root::<Option<serde_json::Value>>(), (Shape::Any, false));
        assert_eq!(root::<serde::de::IgnoredAny>(), (Shape::Any, false));
        assert_eq!(root::<Call>(), (Shape::Object, true));
        assert_eq!(root::<Worded>(), (Shape::Object, true));
        assert_eq!(root::<Either>(), (Shape::Any, true));
        assert_eq!(root::<S>(), (Shape::Object, true));
        assert_eq!(
            root::<serde_json::Map<String, serde_json::Value>>(),
            (Shape::Object, true)
        );
    }
}
