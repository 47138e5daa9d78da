//! Fields that say what of them may be cut: a field marked partial
//! (`serde_llm::partial`), one whose view takes only complete parts, and
//! every field of a derived view are read through a reserved newtype name
//! (`TOKEN`, `PARTS`, `FIELD`), which the decoder answers by applying
//! that partial policy to the value (`visit_some`).
//!
//! Any other deserializer (serde_json in the fast lane, content serde
//! buffered for an untagged enum or a `flatten`ed struct) answers with
//! `visit_newtype_struct`, and the value is read as it is: the decoder keeps
//! nothing cut in content serde buffers (a cut value there is missing, or,
//! in a place marked partial, the cut's error), so that content is
//! complete. Views of
//! internally tagged enums are read without serde's buffer (see
//! [`tagged`](super::tagged)), so their partial fields grow.

use std::marker::PhantomData;

use serde::de::{self, Deserialize, Visitor};

/// Reads a `T` standing where `name` ([`TOKEN`](super::TOKEN),
/// [`PARTS`](super::PARTS) or [`FIELD`](super::FIELD)) says, through the
/// newtype `name`.
pub(crate) fn read<'de, D, T>(d: D, name: &'static str) -> Result<T, D::Error>
where
    D: de::Deserializer<'de>,
    T: Deserialize<'de>,
{
    read_judged(d, name).map(|(v, _)| v)
}

/// [`read`] with a seed in place of a type.
pub(crate) fn read_seed<'de, D, S>(d: D, name: &'static str, seed: S) -> Result<S::Value, D::Error>
where
    D: de::Deserializer<'de>,
    S: de::DeserializeSeed<'de>,
{
    d.deserialize_newtype_struct(name, Via(seed))
        .map(|(v, _)| v)
}

/// [`read`], and whether a view read there is judged by admission (see
/// `View::admitted`): the decoder exempts the fields around a part of a
/// streaming reply, whose views hold only the path to it (see
/// `Policy::around`); every other read is judged.
pub(crate) fn read_judged<'de, D, T>(d: D, name: &'static str) -> Result<(T, bool), D::Error>
where
    D: de::Deserializer<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_newtype_struct(name, Via(PhantomData::<T>))
}

struct Via<S>(S);

impl<'de, S: de::DeserializeSeed<'de>> Visitor<'de> for Via<S> {
    type Value = (S::Value, bool);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a value that may be cut off")
    }

    /// From the decoder.
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Ok((self.0.deserialize(d)?, true))
    }

    /// From the decoder, a field exempt from admission: the value, alone
    /// in a sequence.
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        match seq.next_element_seed(self.0)? {
            Some(v) => Ok((v, false)),
            None => Err(de::Error::invalid_length(0, &"one value")),
        }
    }

    /// From any other deserializer (serde_json in the fast lane, content
    /// serde buffered, which holds no cut value): read as it is.
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Ok((self.0.deserialize(d)?, true))
    }
}
