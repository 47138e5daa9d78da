//! What shape of value a target type wants at its root, learned by asking its
//! `Deserialize` impl once (it calls `deserialize_struct`, `deserialize_seq`,
//! …) without any input. Extraction uses it to prefer candidates of the right
//! shape and to gather several values for a sequence.

use std::cell::Cell;

use serde::de::{self, Deserialize, Visitor};

use crate::error::{Error, ErrorKind, Result};

/// The root shape a type asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A struct or a map.
    Object,
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
    let seen = Cell::new(Shape::Any);
    let _ = T::deserialize(Probe { seen: &seen });
    seen.get()
}

struct Probe<'p> {
    seen: &'p Cell<Shape>,
}

impl Probe<'_> {
    fn stop<T>(&self, shape: Shape) -> Result<T> {
        self.seen.set(shape);
        Err(Error::new(ErrorKind::Data, "shape probe"))
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
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        self.stop(Shape::Any)
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
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value> {
        self.stop(Shape::Object)
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
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Wrap(Vec<u8>);

    #[test]
    fn probes_root_shapes() {
        assert_eq!(of::<S>(), Shape::Object);
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
}
