//! Views of internally and adjacently tagged enums (tool calls), read
//! without serde's buffer.
//!
//! serde reads an internally tagged enum in two steps: it buffers the whole
//! object (the tag may come last), then reads the variant from its buffer,
//! without the decoder, so a field marked partial there could not grow. The
//! tape needs no buffer: the decoder looks ahead in the object for the tag
//! (a clone of the cursor), then reads the object itself as the variant's
//! struct, each field deciding for itself as anywhere.
//!
//! The code `#[derive(Partial)]` generates for such a view calls [`read`]
//! with two twins of the view serde derives: one externally tagged, which
//! the decoder answers as an enum whose variant is the tag's value and whose
//! content is the object (the tag's member left out), and one internally
//! tagged, for any other deserializer (serde_json in the fast lane, content
//! serde buffered around the view), which gives the object as a map. An
//! adjacently tagged view is read the same way ([`ADJACENT`]), its variant's
//! value the content member's, wherever the tag is written.

use std::marker::PhantomData;

use serde::de::{self, value::StrDeserializer, Deserialize, DeserializeSeed, Visitor};
use serde::forward_to_deserialize_any;

use super::Deserializer;
use crate::error::{quote, Error, Hint, Result};
use crate::report::CoercionKind;
use crate::scan::Event;

/// The reserved newtype name the Deserializer recognises as "an internally
/// tagged enum's view", followed by the tag's key (the derive writes the
/// whole name: `$serde_llm::private::Tagged:tool`). A newtype, so that any
/// other deserializer hands over the value as it is (a `flatten`ed view
/// gets every member, a string is no one-field struct).
pub(crate) const TAGGED: &str = "$serde_llm::private::Tagged:";

/// The reserved newtype name of "an adjacently tagged enum's view", followed
/// by the tag's key's length in bytes, a `:`, the tag's key and the
/// content's key (`$serde_llm::private::Adjacent:1:tc`). Read as an
/// internally tagged view is, but for its content: the content member's
/// value is the variant's, whatever the members' order.
pub(crate) const ADJACENT: &str = "$serde_llm::private::Adjacent:";

/// The tag's key and the content's key an [`ADJACENT`] name (its prefix
/// stripped) holds.
pub(crate) fn adjacent_keys(name: &'static str) -> Option<(&'static str, &'static str)> {
    let (len, keys) = name.split_once(':')?;
    let len: usize = len.parse().ok()?;
    Some((keys.get(..len)?, keys.get(len..)?))
}

/// Reads an internally tagged enum's view named `name` (`TAGGED` and the
/// tag's key): from the decoder, as `E` (externally tagged: the variant
/// named by the tag, read from the object); from any other deserializer, as
/// `I` (internally tagged, as serde reads it).
pub fn read<'de, D, E, I>(d: D, name: &'static str) -> Result<Result<E, I>, D::Error>
where
    D: de::Deserializer<'de>,
    E: Deserialize<'de>,
    I: Deserialize<'de>,
{
    d.deserialize_newtype_struct(name, Twins(PhantomData))
}

struct Twins<E, I>(PhantomData<(E, I)>);

impl<'de, E: Deserialize<'de>, I: Deserialize<'de>> Visitor<'de> for Twins<E, I> {
    type Value = Result<E, I>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object with a type tag")
    }

    /// From the decoder: the tag found, the object not yet read.
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        E::deserialize(d).map(Ok)
    }

    /// From any other deserializer.
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        I::deserialize(d).map(Err)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        I::deserialize(de::value::MapAccessDeserializer::new(map)).map(Err)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        I::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Err)
    }
}

impl<'de> Deserializer<'_, 'de> {
    /// An internally tagged enum's view whose tag is `key`, at an object
    /// (see the module's docs). The tag missing, cut off or not a string, the
    /// object is read through (as serde's buffer would) and the error is a
    /// missing tag: a `Truncated` one where the reply was cut.
    /// `content`: the enum is adjacently tagged, its variant's value the
    /// object's member of that key.
    pub(super) fn tagged_view<V: Visitor<'de>>(
        &mut self,
        key: &'static str,
        content: Option<&'static str>,
        visitor: V,
    ) -> Result<V::Value> {
        let ev = self.scan.peek()?;
        if let Some(v) = self.object_in_string(ev)? {
            return visitor.visit_newtype_struct(v).map_err(super::nested);
        }
        if !matches!(ev, Event::StartObject) {
            // Not an object: read as serde reads an internally tagged enum
            // (an error).
            return visitor.visit_newtype_struct(self);
        }
        if !self.admits(self.accept, ev, true) {
            return Err(Error::rejected(self.scan.offset()));
        }
        self.tagged(key, content, visitor)
    }

    fn tagged<V: Visitor<'de>>(
        &mut self,
        key: &'static str,
        content: Option<&'static str>,
        visitor: V,
    ) -> Result<V::Value> {
        // The whole object is looked through: a tag written twice is an
        // error, as serde gives it (never the first one silently).
        let mut end = self.scan.clone();
        end.next()?;
        let depth = end.depth();
        let mut tag = None;
        let mut seen = false;
        loop {
            match end.next()? {
                Event::Key(k) if end.depth() == depth && end.str(k) == key => {
                    if seen {
                        return Err(de::Error::duplicate_field(key));
                    }
                    seen = true;
                    if let Event::Str(t) = end.next()? {
                        if end.complete() {
                            tag = Some((end.str(t).to_owned(), end.offset()));
                        }
                    }
                }
                Event::EndObject | Event::EndArray if end.depth() < depth => break,
                Event::Eof => break,
                _ => {}
            }
        }
        match tag {
            Some((tag, at)) => visitor.visit_some(Tagged {
                de: self,
                tag,
                at,
                key,
                content,
            }),
            None => {
                // Through the object, as serde's buffer reads it.
                self.scan = end;
                Err(de::Error::missing_field(key))
            }
        }
    }
}

/// The decoder at an internally (or adjacently) tagged object whose tag is
/// `tag`, read as an externally tagged enum.
struct Tagged<'s, 'a, 'de> {
    de: &'s mut Deserializer<'a, 'de>,
    tag: String,
    /// Where the tag's value starts.
    at: usize,
    key: &'static str,
    /// Adjacently tagged: the key of the member whose value is the
    /// variant's.
    content: Option<&'static str>,
}

impl<'de> de::Deserializer<'de> for Tagged<'_, '_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(de::Error::custom(
            "an internally tagged enum's view is read as an enum",
        ))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de> de::EnumAccess<'de> for Tagged<'_, '_, 'de> {
    type Error = Error;
    type Variant = Self;

    /// The tag's name as serde matches it (renames, aliases, `other`); one
    /// written in another style is found by the variant visitor's error and
    /// read as the right name on the decode's restart, as a tag read by
    /// `deserialize_identifier` is.
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let learned = self.de.hints.iter().find_map(|h| match h {
            Hint::Tag { written, name } if *written == self.tag => Some(*name),
            _ => None,
        });
        if let Some(name) = learned {
            let written = quote(&self.tag);
            self.de
                .coerced(CoercionKind::EnumVariant, self.at, written, quote(name));
            let variant = seed.deserialize(StrDeserializer::<Error>::new(name))?;
            return Ok((variant, self));
        }
        let coerce = self.de.policy.rules.coerce(CoercionKind::EnumVariant);
        match seed.deserialize(StrDeserializer::<Error>::new(&self.tag)) {
            Ok(variant) => Ok((variant, self)),
            Err(e) => Err(match coerce {
                true => e.place_hint().or_at(self.at),
                false => e.or_at(self.at),
            }),
        }
    }
}

impl<'de> de::VariantAccess<'de> for Tagged<'_, '_, 'de> {
    type Error = Error;

    /// A variant without fields: the object is read through (its content
    /// member, if any, with it, as serde reads a unit variant's).
    fn unit_variant(self) -> Result<()> {
        let ev = self.de.scan.next()?;
        self.de.skip(ev)
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value> {
        match self.content {
            // Its content missing, as serde reads it: from nothing (an
            // `Option` field is `None`).
            Some(content) => self.de.content_member(content, |de| match de {
                Some(de) => seed.deserialize(de),
                None => seed.deserialize(Missing(content)),
            }),
            None => Err(de::Error::custom(
                "an internally tagged view's variants have named fields",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        match self.content {
            Some(content) => self.de.content_member(content, |de| match de {
                Some(de) => de::Deserializer::deserialize_tuple(de, len, visitor),
                None => Err(de::Error::missing_field(content)),
            }),
            None => Err(de::Error::custom(
                "an internally tagged view's variants have named fields",
            )),
        }
    }

    /// The object, as the variant's struct: the tag's member left out. (Or
    /// adjacently tagged, the content member's value; its content missing,
    /// none of its fields yet, as an internally tagged view's variant is
    /// once its tag has come.)
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.content {
            Some(content) => self.de.content_member(content, |de| match de {
                Some(de) => de::Deserializer::deserialize_struct(de, "", fields, visitor),
                None => visitor.visit_map(de::value::MapDeserializer::new(std::iter::empty::<(
                    &str,
                    (),
                )>())),
            }),
            None => {
                self.de.tag_key = Some(self.key);
                de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
            }
        }
    }
}

impl<'de> Deserializer<'_, 'de> {
    /// At an adjacently tagged object: `read` reads the value of its
    /// member `content` (given the decoder there), the other members read
    /// through; the member missing, `read` is given nothing once the
    /// object is read through.
    fn content_member<T>(
        &mut self,
        content: &'static str,
        read: impl FnOnce(Option<&mut Self>) -> Result<T>,
    ) -> Result<T> {
        let (mut read, mut value) = (Some(read), None);
        match self.scan.next()? {
            Event::StartObject => {}
            ev => return Err(self.unexpected(ev)),
        }
        loop {
            match self.scan.next()? {
                Event::Key(k) if self.scan.str(k) == content => match read.take() {
                    Some(read) => value = Some(read(Some(&mut *self))?),
                    // Written twice: an error, as serde gives it (never the
                    // first one silently).
                    None => return Err(de::Error::duplicate_field(content)),
                },
                Event::Key(_) => {
                    let ev = self.scan.next()?;
                    self.skip(ev)?;
                }
                Event::EndObject => break,
                ev => return Err(self.unexpected(ev)),
            }
        }
        match (value, read) {
            (Some(value), _) => Ok(value),
            (None, Some(read)) => read(None),
            (None, None) => Err(de::Error::missing_field(content)),
        }
    }
}

/// An adjacently tagged view's content that is not written, as serde reads
/// a newtype variant's: an `Option` is `None`, anything else a missing
/// field.
struct Missing(&'static str);

impl<'de> de::Deserializer<'de> for Missing {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_none()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
