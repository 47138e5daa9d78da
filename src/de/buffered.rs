//! Content serde buffered, read with the partial policy the decoder applies
//! to the reply itself.
//!
//! serde reads an internally tagged enum (a tool call), an untagged one or a
//! `flatten`ed struct in two steps: it buffers the content with
//! `deserialize_any`, then reads the variant from its buffer, without the
//! decoder. In a place that may be cut (a list marked partial), the decoder
//! cannot tell then which of the variant's fields are partial, so it keeps
//! every cut string and container, marked as cut: inside two `Some`s, which
//! no JSON value is ([`Mark`]).
//!
//! serde's own types refuse the mark (an `Option<String>` takes off one
//! `Some`, its `String` refuses the other; an error the decoder reports as
//! `Truncated`), so a field not marked partial never holds a cut value. The
//! fields that may (`serde_llm::partial`, and every field of a derived view)
//! are read through [`read`]: from the reply itself as before; from serde's
//! buffer through a [`Reader`], which takes the mark off where the position
//! admits a cut value and applies the policy below it, exactly as the
//! decoder does (a view's field not marked partial is `None`, as when read
//! from the reply).

use std::marker::PhantomData;

use serde::de::value::{
    BoolDeserializer, BorrowedStrDeserializer, F64Deserializer, I64Deserializer,
    MapAccessDeserializer, MapDeserializer, SeqDeserializer, StringDeserializer, U64Deserializer,
    UnitDeserializer,
};
use serde::de::{self, Deserialize, IntoDeserializer, Unexpected, Visitor};
use serde::forward_to_deserialize_any;

use super::{Accept, Deserializer, Event, FIELD, PARTS, TOKEN};
use crate::error::{Error, Result};
use crate::policy::Allow;

thread_local! {
    /// Whether this thread's decode has marked a cut value (see [`begin`]).
    static MARKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A decode begins: no value is marked yet. Until one is, a field read
/// from any other deserializer (serde_json in the fast lane, serde's buffer
/// of complete content) holds no mark and is read as it is, without a copy.
pub(crate) fn begin() {
    MARKED.with(|m| m.set(false));
}

/// A cut value serde buffers in a place marked partial, visited as
/// `Some(Some(value))`: `marks` more `Some`s to go.
pub(super) struct Mark<'s, 'a, 'de> {
    pub(super) de: &'s mut Deserializer<'a, 'de>,
    pub(super) ev: Event<'de>,
    pub(super) marks: u8,
}

impl Mark<'_, '_, '_> {
    /// Notes that this decode has marked a value (see [`begin`]).
    pub(super) fn note() {
        MARKED.with(|m| m.set(true));
    }
}

impl<'de> de::Deserializer<'de> for Mark<'_, '_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.marks {
            0 => self.de.visit(self.ev, visitor, false, None),
            n => visitor.visit_some(Mark {
                marks: n - 1,
                ..self
            }),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Reads a `T` standing where `name` (`TOKEN`, `PARTS` or `FIELD`) says,
/// through the newtype `name`: the decoder answers it with `visit_some`,
/// any other deserializer (serde's buffer) with `visit_newtype_struct`.
pub(crate) fn read<'de, D, T>(d: D, name: &'static str) -> Result<T, D::Error>
where
    D: de::Deserializer<'de>,
    T: Deserialize<'de>,
{
    read_seed(d, name, PhantomData::<T>)
}

/// [`read`] with a seed in place of a type.
pub(crate) fn read_seed<'de, D, S>(d: D, name: &'static str, seed: S) -> Result<S::Value, D::Error>
where
    D: de::Deserializer<'de>,
    S: de::DeserializeSeed<'de>,
{
    let accept = match name {
        TOKEN => Accept::Partial,
        PARTS => Accept::Parts,
        _ => Accept::Complete,
    };
    d.deserialize_newtype_struct(name, Via(accept, seed))
}

struct Via<S>(Accept, S);

impl<'de, S: de::DeserializeSeed<'de>> Visitor<'de> for Via<S> {
    type Value = S::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a value that may be cut off")
    }

    /// From the decoder.
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.1.deserialize(d)
    }

    /// From any other deserializer: its value is copied (an owned tree
    /// keeps the reading free of nested generic types), then read; as it
    /// is when no value has been marked.
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        if !MARKED.with(std::cell::Cell::get) {
            return self.1.deserialize(d);
        }
        self.1.deserialize(Node {
            tree: Tree::deserialize(d)?,
            accept: self.0,
            cut: false,
            error: PhantomData,
        })
    }
}

/// A value serde buffered, as it was visited: a `Some` is a cut mark.
enum Tree<'de> {
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(&'de str),
    String(String),
    Unit,
    Seq(Vec<Tree<'de>>),
    Map(Vec<(Tree<'de>, Tree<'de>)>),
    Cut(Box<Tree<'de>>),
}

impl<'de> Deserialize<'de> for Tree<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Tree<'de>, E> {
        Ok(Tree::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Tree<'de>, E> {
        Ok(Tree::I64(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Tree<'de>, E> {
        Ok(Tree::U64(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Tree<'de>, E> {
        Ok(Tree::F64(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Tree<'de>, E> {
        Ok(Tree::Str(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Tree<'de>, E> {
        Ok(Tree::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Tree<'de>, E> {
        Ok(Tree::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Tree<'de>, E> {
        Ok(Tree::Unit)
    }

    fn visit_none<E: de::Error>(self) -> Result<Tree<'de>, E> {
        Ok(Tree::Unit)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Tree<'de>, D::Error> {
        // The mark's two `Some`s are one cut.
        Ok(match Tree::deserialize(d)? {
            cut @ Tree::Cut(_) => cut,
            value => Tree::Cut(Box::new(value)),
        })
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Tree<'de>, D::Error> {
        Tree::deserialize(d)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Tree<'de>, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(part) = seq.next_element()? {
            parts.push(part);
        }
        Ok(Tree::Seq(parts))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Tree<'de>, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some(member) = map.next_entry()? {
            members.push(member);
        }
        Ok(Tree::Map(members))
    }
}

/// What a deserializer was asked for, to ask it again of the value seen.
#[derive(Clone, Copy)]
enum Want {
    Any,
    Bool,
    I8,
    I16,
    I32,
    I64,
    I128,
    U8,
    U16,
    U32,
    U64,
    U128,
    F32,
    F64,
    Char,
    Str,
    String,
    Bytes,
    ByteBuf,
    Option,
    Unit,
    UnitStruct(&'static str),
    NewtypeStruct(&'static str),
    Seq,
    Tuple(usize),
    TupleStruct(&'static str, usize),
    Map,
    Struct(&'static str, &'static [&'static str]),
    Enum(&'static str, &'static [&'static str]),
    Identifier,
    IgnoredAny,
}

impl Want {
    /// Asks `d` for it.
    fn ask<'de, D: de::Deserializer<'de>, V: Visitor<'de>>(
        self,
        d: D,
        v: V,
    ) -> Result<V::Value, D::Error> {
        match self {
            Want::Any => d.deserialize_any(v),
            Want::Bool => d.deserialize_bool(v),
            Want::I8 => d.deserialize_i8(v),
            Want::I16 => d.deserialize_i16(v),
            Want::I32 => d.deserialize_i32(v),
            Want::I64 => d.deserialize_i64(v),
            Want::I128 => d.deserialize_i128(v),
            Want::U8 => d.deserialize_u8(v),
            Want::U16 => d.deserialize_u16(v),
            Want::U32 => d.deserialize_u32(v),
            Want::U64 => d.deserialize_u64(v),
            Want::U128 => d.deserialize_u128(v),
            Want::F32 => d.deserialize_f32(v),
            Want::F64 => d.deserialize_f64(v),
            Want::Char => d.deserialize_char(v),
            Want::Str => d.deserialize_str(v),
            Want::String => d.deserialize_string(v),
            Want::Bytes => d.deserialize_bytes(v),
            Want::ByteBuf => d.deserialize_byte_buf(v),
            Want::Option => d.deserialize_option(v),
            Want::Unit => d.deserialize_unit(v),
            Want::UnitStruct(n) => d.deserialize_unit_struct(n, v),
            Want::NewtypeStruct(n) => d.deserialize_newtype_struct(n, v),
            Want::Seq => d.deserialize_seq(v),
            Want::Tuple(len) => d.deserialize_tuple(len, v),
            Want::TupleStruct(n, len) => d.deserialize_tuple_struct(n, len, v),
            Want::Map => d.deserialize_map(v),
            Want::Struct(n, fields) => d.deserialize_struct(n, fields, v),
            Want::Enum(n, variants) => d.deserialize_enum(n, variants, v),
            Want::Identifier => d.deserialize_identifier(v),
            Want::IgnoredAny => d.deserialize_ignored_any(v),
        }
    }

    /// Whether a kind was asked for (the decoder's `typed`).
    fn typed(self) -> bool {
        !matches!(self, Want::Any | Want::IgnoredAny)
    }
}

/// The body of a `Deserializer` whose every method is `self.read(want,
/// visitor)`, with errors of type `$error`.
macro_rules! by_want {
    ($error:ty) => {
        by_want! { $error;
            deserialize_any => Any, deserialize_bool => Bool, deserialize_i8 => I8,
            deserialize_i16 => I16, deserialize_i32 => I32, deserialize_i64 => I64,
            deserialize_i128 => I128, deserialize_u8 => U8, deserialize_u16 => U16,
            deserialize_u32 => U32, deserialize_u64 => U64, deserialize_u128 => U128,
            deserialize_f32 => F32, deserialize_f64 => F64, deserialize_char => Char,
            deserialize_str => Str, deserialize_string => String,
            deserialize_bytes => Bytes, deserialize_byte_buf => ByteBuf,
            deserialize_option => Option, deserialize_unit => Unit,
            deserialize_seq => Seq, deserialize_map => Map,
            deserialize_identifier => Identifier, deserialize_ignored_any => IgnoredAny,
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            visitor: V,
        ) -> Result<V::Value, $error> {
            self.read(Want::UnitStruct(name), visitor)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            visitor: V,
        ) -> Result<V::Value, $error> {
            self.read(Want::NewtypeStruct(name), visitor)
        }

        fn deserialize_tuple<V: Visitor<'de>>(
            self,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, $error> {
            self.read(Want::Tuple(len), visitor)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, $error> {
            self.read(Want::TupleStruct(name, len), visitor)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, $error> {
            self.read(Want::Struct(name, fields), visitor)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            name: &'static str,
            variants: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, $error> {
            self.read(Want::Enum(name, variants), visitor)
        }
    };
    ($error:ty; $($method:ident => $want:ident,)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, $error> {
                self.read(Want::$want, visitor)
            }
        )*
    };
}

/// A [`Tree`] standing where `accept` holds; `cut`: its mark was taken
/// off. Read as the decoder reads the value it starts.
struct Node<'de, E> {
    tree: Tree<'de>,
    accept: Accept,
    cut: bool,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> Node<'de, E> {
    fn new(tree: Tree<'de>, accept: Accept) -> Self {
        Node {
            tree,
            accept,
            cut: false,
            error: PhantomData,
        }
    }

    fn kind(&self) -> Allow {
        match self.tree {
            Tree::Bool(_) => Allow::BOOL,
            Tree::I64(_) | Tree::U64(_) | Tree::F64(_) => Allow::NUM,
            Tree::Str(_) | Tree::String(_) => Allow::STR,
            Tree::Unit => Allow::NULL,
            Tree::Seq(_) => Allow::ARR,
            Tree::Map(_) | Tree::Cut(_) => Allow::OBJ,
        }
    }

    fn read<V: Visitor<'de>>(mut self, want: Want, visitor: V) -> Result<V::Value, E> {
        if let Tree::Cut(value) = self.tree {
            self.tree = *value;
            self.cut = true;
        }
        // The decoder's `deserialize_newtype_struct`: a place named.
        if let Want::NewtypeStruct(name) = want {
            match name {
                TOKEN => self.accept = Accept::Partial,
                PARTS => self.accept = Accept::Parts,
                FIELD => {}
                _ => return visitor.visit_newtype_struct(self),
            }
            return visitor.visit_some(self);
        }
        let admitted = !self.cut || self.accept.admits(self.kind(), want.typed(), None);
        if let Want::Option = want {
            // The decoder's `deserialize_option`: cut where only a complete
            // value may stand, the value is missing.
            return match (&self.tree, admitted) {
                (Tree::Unit, _) | (_, false) => visitor.visit_none(),
                _ => visitor.visit_some(self),
            };
        }
        if !admitted {
            return Err(E::invalid_type(Unexpected::Option, &visitor));
        }
        let parts = match (self.cut, want) {
            // A struct's fields decide for themselves.
            (false, _) | (true, Want::Struct(..) | Want::Enum(..)) => Accept::Complete,
            (true, want) => self.accept.parts(want.typed(), true),
        };
        match self.tree {
            Tree::Bool(v) => want.ask(BoolDeserializer::new(v), visitor),
            Tree::I64(v) => want.ask(I64Deserializer::new(v), visitor),
            Tree::U64(v) => want.ask(U64Deserializer::new(v), visitor),
            Tree::F64(v) => want.ask(F64Deserializer::new(v), visitor),
            Tree::Str(v) => want.ask(BorrowedStrDeserializer::new(v), visitor),
            Tree::String(v) => want.ask(StringDeserializer::new(v), visitor),
            Tree::Unit => want.ask(UnitDeserializer::new(), visitor),
            Tree::Seq(elements) => {
                let elements = elements.into_iter().map(|t| Node::new(t, parts));
                want.ask(SeqDeserializer::new(elements), visitor)
            }
            Tree::Map(members) => {
                let members = members
                    .into_iter()
                    .map(|(k, v)| (Node::new(k, Accept::Complete), Node::new(v, parts)));
                want.ask(
                    MapAccessDeserializer::new(MapDeserializer::new(members)),
                    visitor,
                )
            }
            Tree::Cut(_) => unreachable!("one mark is taken off above"),
        }
    }
}

impl<'de, E: de::Error> de::Deserializer<'de> for Node<'de, E> {
    type Error = E;

    by_want!(E);
}

impl<'de, E: de::Error> IntoDeserializer<'de, E> for Node<'de, E> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}
