//! `repair_json`'s text written straight from the decoder: a `Deserialize`
//! whose visitor writes what `json.dumps(value, ensure_ascii=...,
//! indent=...)` would write for the value, as the values arrive, with no
//! Python object in between.
//!
//! `json.dumps` writes a dict, in which a key written twice in the reply
//! appears once (the last value, in the first one's place). The writer
//! notices such a key and says so ([`Written::dup`]); the caller then
//! builds the value as Python objects and writes those instead.

use std::collections::HashSet;
use std::fmt::{self, Write};

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::dump::{self, Style};

/// A value written as JSON text in `json.dumps`'s style.
pub struct Written {
    pub text: String,
    /// An object held a key twice: `text` has it twice, where `json.dumps`
    /// of the value would have it once.
    pub dup: bool,
}

/// Writes the value a decode reads as JSON text in the style it holds: a
/// seed (`Decoder::decode_seed`), so that the style travels with the
/// decode.
#[derive(Clone, Copy)]
pub struct Writing<'s>(pub &'s Style);

impl<'de> DeserializeSeed<'de> for Writing<'_> {
    type Value = Written;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Written, D::Error> {
        let mut w = Writer {
            out: String::new(),
            style: self.0,
            level: 0,
            dup: false,
            seen: Vec::new(),
        };
        Value { w: &mut w }.deserialize(d)?;
        Ok(Written {
            text: w.out,
            dup: w.dup,
        })
    }
}

struct Writer<'s> {
    out: String,
    style: &'s Style,
    level: usize,
    dup: bool,
    /// Spare key lists, one per open object (kept to be reused).
    seen: Vec<Keys>,
}

/// The keys of one object so far, as hashes with their place in the
/// output: a short object is searched in a line, a long one by a set.
#[derive(Default)]
struct Keys {
    list: Vec<(u64, usize, usize)>,
    set: HashSet<u64>,
}

impl Writer<'_> {
    fn newline(&mut self) {
        if let Some(indent) = &self.style.indent {
            self.out.push('\n');
            for _ in 0..self.level {
                self.out.push_str(indent);
            }
        }
    }

    fn separator(&mut self) {
        self.out.push_str(match self.style.indent {
            Some(_) => ",",
            None => ", ",
        });
    }
}

/// FNV-1a of a key's written text.
fn hash(s: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Writes one value.
struct Value<'w, 's> {
    w: &'w mut Writer<'s>,
}

impl<'de> DeserializeSeed<'de> for Value<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Value<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.w.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        let _ = write!(self.w.out, "{v}");
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        let _ = write!(self.w.out, "{v}");
        Ok(())
    }

    fn visit_i128<E>(self, v: i128) -> Result<(), E> {
        let _ = write!(self.w.out, "{v}");
        Ok(())
    }

    fn visit_u128<E>(self, v: u128) -> Result<(), E> {
        let _ = write!(self.w.out, "{v}");
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        dump::float(v, &mut self.w.out);
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        dump::string(v, self.w.style.ascii, &mut self.w.out);
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.w.out.push_str("null");
        Ok(())
    }

    fn visit_none<E>(self) -> Result<(), E> {
        self.w.out.push_str("null");
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let w = self.w;
        w.out.push('[');
        w.level += 1;
        let mut n = 0;
        loop {
            let mark = w.out.len();
            if n > 0 {
                w.separator();
            }
            w.newline();
            if seq.next_element_seed(Value { w: &mut *w })?.is_none() {
                w.out.truncate(mark);
                break;
            }
            n += 1;
        }
        w.level -= 1;
        if n > 0 {
            w.newline();
        }
        w.out.push(']');
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let w = self.w;
        w.out.push('{');
        w.level += 1;
        let mut keys = w.seen.pop().unwrap_or_default();
        keys.list.clear();
        keys.set.clear();
        loop {
            let mark = w.out.len();
            if !keys.list.is_empty() {
                w.separator();
            }
            w.newline();
            let start = w.out.len();
            if map.next_key_seed(Key { w: &mut *w })?.is_none() {
                w.out.truncate(mark);
                break;
            }
            let end = w.out.len();
            let h = hash(&w.out.as_bytes()[start..end]);
            let out = w.out.as_bytes();
            let twice = match keys.list.len() < 16 {
                true => keys
                    .list
                    .iter()
                    .any(|&(k, a, b)| k == h && out[a..b] == out[start..end]),
                false => {
                    if keys.set.is_empty() {
                        keys.set.extend(keys.list.iter().map(|&(k, _, _)| k));
                    }
                    !keys.set.insert(h)
                        && keys
                            .list
                            .iter()
                            .any(|&(k, a, b)| k == h && out[a..b] == out[start..end])
                }
            };
            w.dup |= twice;
            keys.list.push((h, start, end));
            w.out.push_str(": ");
            map.next_value_seed(Value { w: &mut *w })?;
        }
        w.level -= 1;
        if !keys.list.is_empty() {
            w.newline();
        }
        w.out.push('}');
        w.seen.push(keys);
        Ok(())
    }
}

/// Writes an object's key, asked for as a string (as `serde_json::Value`
/// asks).
struct Key<'w, 's> {
    w: &'w mut Writer<'s>,
}

impl<'de> DeserializeSeed<'de> for Key<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        dump::string(v, self.w.style.ascii, &mut self.w.out);
        Ok(())
    }
}
