//! Python objects built straight from the decoder: a `Deserialize` whose
//! visitor makes `dict`, `list`, `str`, `int`, `float`, `bool` and `None`
//! as the values arrive, with no JSON text in between.

use std::fmt;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::keys;

/// A Python value decoded from a reply: what `json.loads` would give for the
/// repaired text (member order kept, the last of two equal keys winning in
/// the first one's place, as a `dict` does).
///
/// It is a `Deserialize` (the library's `Decoder::decode` wants one), so it
/// reaches the interpreter through [`Python::attach`]: every caller is
/// already attached, which makes that a counter increment.
pub struct Obj(pub Py<PyAny>);

impl<'de> serde::Deserialize<'de> for Obj {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Obj, D::Error> {
        Python::attach(|py| Seed { py }.deserialize(d).map(|v| Obj(v.unbind())))
    }
}

/// Builds one value (and everything inside it) as Python objects.
#[derive(Clone, Copy)]
pub struct Seed<'py> {
    pub py: Python<'py>,
}

impl<'de, 'py> DeserializeSeed<'de> for Seed<'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// A Python error while building (out of memory, in practice) as the
/// decoder's error.
fn fail<E: de::Error>(e: PyErr) -> E {
    E::custom(e)
}

impl<'de, 'py> Visitor<'de> for Seed<'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(pyo3::types::PyBool::new(self.py, v).to_owned().into_any())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.py).expect("infallible").into_any())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.py).expect("infallible").into_any())
    }

    fn visit_i128<E>(self, v: i128) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.py).expect("infallible").into_any())
    }

    fn visit_u128<E>(self, v: u128) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.py).expect("infallible").into_any())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(PyFloat::new(self.py, v).into_any())
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.py, v).into_any())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(self.py.None().into_bound(self.py))
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(self.py.None().into_bound(self.py))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        PyList::new(self.py, items)
            .map(Bound::into_any)
            .map_err(fail)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let dict = PyDict::new(self.py);
        while let Some(key) = map.next_key_seed(Key { py: self.py })? {
            let value = map.next_value_seed(self)?;
            dict.set_item(key, value).map_err(fail)?;
        }
        Ok(dict.into_any())
    }
}

/// An object's key: asked for as a string, as `serde_json::Value` asks
/// (the decoder takes a key asked for as anything for a buffering enum's,
/// which is typed), and taken from the key cache.
#[derive(Clone, Copy)]
struct Key<'py> {
    py: Python<'py>,
}

impl<'de, 'py> DeserializeSeed<'de> for Key<'py> {
    type Value = Bound<'py, PyString>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, 'py> Visitor<'de> for Key<'py> {
    type Value = Bound<'py, PyString>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(keys::key(self.py, v))
    }
}
