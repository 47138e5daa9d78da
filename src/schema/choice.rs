//! `anyOf` and `oneOf`: each alternative tried, the likeliest reading kept.
//!
//! serde's untagged enums read their content from a buffer, without the
//! decoder, so they get no coercion. Here the value is read once as it is
//! written (repaired, as any value), and each alternative that could hold
//! it decodes it again through the decoder itself, so each gets the typed
//! path's coercions and errors. The one that needed the fewest coercions
//! wins, by the rule that ranks candidate spans (a reading that bent the
//! reply less beats one that bent it more); a reading that breaks a bound
//! or a format ranks after every one that does not, and a member kept
//! whose key the alternative does not name counts as a coercion (in a
//! partial view, where no property is required yet, so does a required
//! property not seen). Two
//! alternatives that fit equally well and give different values are an
//! ambiguity error naming both: a guess would be a wrong value the caller
//! cannot tell from success. `oneOf` is read as `anyOf` is (its "exactly
//! one" is a validator's rule; a reply that fits two is ambiguous here
//! too, unless both read it as the same value).
//!
//! What the winner needed is reported at the alternative's value: its
//! coercions' paths continue the value's own, their offsets are the
//! value's (it was decoded again from its JSON text, whose offsets are no
//! place in the reply).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde_json::Value;

use super::compile::{Compiled, Id, Items, Kind};
use super::seed::{under, Cx, Entry, Path, Root};
use crate::de::located;
use crate::error::quote;
use crate::extract::Strategies;

/// Reads a value that is one of `alts`.
pub(crate) fn read<'de, D: Deserializer<'de>>(
    d: D,
    cx: &Cx<'_>,
    alts: &[Id],
    path: Path<'_>,
) -> Result<Option<Value>, D::Error> {
    let (place, written) = located(d, PhantomData::<Written>)?;
    choose(cx, alts, &written, place.map(|p| p.0), path).map_err(de::Error::custom)
}

/// A value as written, members in the order written (so that it is read
/// again, and its coercions reported, in that order; `serde_json::Value`
/// sorts them).
enum Written {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Written>),
    Object(Vec<(String, Written)>),
}

impl<'de> Deserialize<'de> for Written {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Written, D::Error> {
        d.deserialize_any(WrittenVisitor)
    }
}

struct WrittenVisitor;

impl<'de> Visitor<'de> for WrittenVisitor {
    type Value = Written;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Written, E> {
        Ok(Written::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Written, E> {
        Ok(Written::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Written, E> {
        Ok(Written::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Written, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Written::Null, Written::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Written, E> {
        Ok(Written::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Written, E> {
        Ok(Written::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Written, E> {
        Ok(Written::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Written, E> {
        Ok(Written::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Written, D::Error> {
        Written::deserialize(d)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Written, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Written::Array(out))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Written, A::Error> {
        let mut out = Vec::new();
        while let Some(member) = map.next_entry()? {
            out.push(member);
        }
        Ok(Written::Object(out))
    }
}

impl Written {
    /// As compact JSON, members in the order written.
    fn json(&self, out: &mut String) {
        match self {
            Written::Null => out.push_str("null"),
            Written::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Written::Number(n) => out.push_str(&n.to_string()),
            Written::String(s) => out.push_str(&quote(s)),
            Written::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.json(out);
                }
                out.push(']');
            }
            Written::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&quote(k));
                    out.push(':');
                    v.json(out);
                }
                out.push('}');
            }
        }
    }
}

/// How many `anyOf`s may each read a value inside another's alternative.
const MAX_WITHIN: usize = 32;

/// One alternative that decoded the value.
struct Fit {
    index: usize,
    /// (broke a bound or format, how many coercions and unnamed members).
    rank: (bool, usize),
    value: Option<Value>,
    entries: Vec<Entry>,
    violations: Vec<(String, String)>,
    extras: usize,
}

fn choose(
    cx: &Cx<'_>,
    alts: &[Id],
    written: &Written,
    at: Option<usize>,
    path: Path<'_>,
) -> Result<Option<Value>, String> {
    let schema = cx.schema;
    let mut json = String::new();
    written.json(&mut json);
    let mut decoder = cx.decoder.clone();
    decoder.opts.strategies = Strategies::only_whole();
    decoder.opts.max_repairs = None;
    decoder.accept = None;
    let mut fits = Vec::new();
    let mut failures = Vec::new();
    for (index, &alt) in alts.iter().enumerate() {
        if !plausible(schema, alt, written, 0) {
            failures.push(format!(
                "#{index} ({}): not that kind of value",
                describe(schema, alt)
            ));
            continue;
        }
        // The same alternative given the same JSON again (a list of itself
        // taking one value as a list of one): no reading of its own.
        if cx.within.iter().any(|(a, j)| *a == alt && *j == json) {
            failures.push(format!(
                "#{index} ({}): it holds itself",
                describe(schema, alt)
            ));
            continue;
        }
        if cx.within.len() >= MAX_WITHIN {
            return Err(format!(
                "anyOf and oneOf nest more than {MAX_WITHIN} deep here"
            ));
        }
        let mut sub = Cx::new(schema, &decoder, cx.view, false);
        sub.within = cx.within.clone();
        sub.within.push((alt, json.clone()));
        let (shape, _) = schema.shape_at(alt);
        match decoder.decode_seed_as(&json, Root { cx: &sub, id: alt }, shape, true, true) {
            Ok((decoded, reading)) => {
                let report = reading.into_report();
                let mut entries: Vec<Entry> = report
                    .coercions
                    .into_iter()
                    .map(|c| Entry {
                        kind: c.kind,
                        path: c.path,
                        offset: None,
                        at: Vec::new(),
                        written: c.written,
                        used: c.used,
                    })
                    .collect();
                entries.extend(decoded.entries);
                let fixes = entries.iter().filter(|e| e.kind.is_fix()).count()
                    + decoded.extras
                    + decoded.missing;
                fits.push(Fit {
                    index,
                    rank: (!decoded.violations.is_empty(), fixes),
                    value: decoded.value,
                    entries,
                    violations: decoded.violations,
                    extras: decoded.extras,
                });
            }
            Err(e) => failures.push(format!(
                "#{index} ({}): {}",
                describe(schema, alt),
                e.feedback()
            )),
        }
    }
    // Stable: among equals, the first alternative.
    fits.sort_by_key(|f| f.rank);
    let mut fits = fits.into_iter();
    let Some(best) = fits.next() else {
        return Err(format!(
            "the value fits none of the {} alternatives: {}",
            alts.len(),
            failures.join("; ")
        ));
    };
    if let Some(other) = fits.find(|f| f.rank == best.rank && f.value != best.value) {
        let (a, b) = (best.index.min(other.index), best.index.max(other.index));
        return Err(format!(
            "ambiguous value: it fits alternatives #{a} ({}) and #{b} ({}) equally well",
            describe(schema, alts[a]),
            describe(schema, alts[b]),
        ));
    }
    let prefix = path.render();
    for e in best.entries {
        cx.state.entry(Entry {
            path: under(&prefix, &e.path),
            offset: at,
            at: path.segments(),
            ..e
        });
    }
    for (p, message) in best.violations {
        cx.state.violation(under(&prefix, &p), message);
    }
    cx.state.extra(best.extras);
    Ok(best.value)
}

/// Whether the alternative `id` could read `v` at all, coercions included
/// (so that one that plainly cannot is not decoded). The coercions that
/// change a value's shape (an object's or list's text as a string, a list
/// of one as its value, a bare value as an object of one property) are not
/// offered here: among alternatives, a value of another shape is another
/// alternative's, or none's.
fn plausible(schema: &Compiled, id: Id, v: &Written, depth: usize) -> bool {
    if depth > 16 {
        return true;
    }
    let opens = |open: char| matches!(v, Written::String(s) if s.trim_start().starts_with(open));
    let (null, scalar) = (
        matches!(v, Written::Null),
        matches!(
            v,
            Written::String(_) | Written::Number(_) | Written::Bool(_)
        ),
    );
    match &schema.nodes[schema.resolve(id)].kind {
        Kind::Any => true,
        Kind::Never => false,
        Kind::Nullable(inner) => null || plausible(schema, *inner, v, depth + 1),
        Kind::String | Kind::Enum(_) => scalar,
        Kind::Integer | Kind::Number => matches!(v, Written::Number(_) | Written::String(_)),
        Kind::Boolean => scalar,
        Kind::Null => null,
        Kind::Array(_) => !null,
        Kind::Object(_) | Kind::Map(_) => matches!(v, Written::Object(_)) || opens('{'),
        Kind::Choice(alts) => alts.iter().any(|&a| plausible(schema, a, v, depth + 1)),
        Kind::Ref(_) => unreachable!("resolved"),
    }
}

/// An alternative in a few words, for errors.
pub(crate) fn describe(schema: &Compiled, id: Id) -> String {
    describe_at(schema, id, 0)
}

fn describe_at(schema: &Compiled, id: Id, depth: usize) -> String {
    let node = &schema.nodes[schema.resolve(id)];
    let mut text = match &node.kind {
        Kind::Any => "any value".to_owned(),
        Kind::Never => "no value".to_owned(),
        Kind::String => "a string".to_owned(),
        Kind::Integer => "an integer".to_owned(),
        Kind::Number => "a number".to_owned(),
        Kind::Boolean => "true or false".to_owned(),
        Kind::Null => "null".to_owned(),
        Kind::Enum([one]) => quote(one),
        Kind::Enum(many) => {
            let shown: Vec<String> = many.iter().take(4).map(|v| quote(v)).collect();
            let more = if many.len() > 4 { ", …" } else { "" };
            format!("one of {}{more}", shown.join(", "))
        }
        Kind::Nullable(inner) if depth < 4 => {
            format!("{} or null", describe_at(schema, *inner, depth + 1))
        }
        Kind::Nullable(_) => "a value or null".to_owned(),
        Kind::Array(a) => match (a.tuple, a.items) {
            (true, _) => format!("a list of {}", a.prefix.len()),
            (false, Items::Node(item)) if depth < 4 => format!(
                "a list of {}",
                plural(&describe_at(schema, item, depth + 1))
            ),
            _ => "a list".to_owned(),
        },
        Kind::Object(o) => {
            // The properties that tell alternatives apart first: the
            // required ones, and those holding one value (a tag).
            let mut names: Vec<String> = o
                .props
                .iter()
                .filter(|p| p.required)
                .map(|p| match &schema.nodes[schema.resolve(p.node)].kind {
                    Kind::Enum([tag]) => format!("`{}`: {}", p.name, quote(tag)),
                    _ => format!("`{}`", p.name),
                })
                .collect();
            if names.is_empty() {
                names = o.props.iter().map(|p| format!("`{}`", p.name)).collect();
            }
            let more = if names.len() > 4 { ", …" } else { "" };
            names.truncate(4);
            match names.is_empty() {
                true => "an object".to_owned(),
                false => format!("an object with {}{more}", names.join(", ")),
            }
        }
        Kind::Map(_) => "an object".to_owned(),
        Kind::Choice(alts) => format!("one of {} alternatives", alts.len()),
        Kind::Ref(_) => unreachable!("resolved"),
    };
    if let Some(members) = &node.members {
        let shown: Vec<String> = members.iter().take(4).map(Value::to_string).collect();
        text = format!("{text}: {}", shown.join(", "));
    }
    text
}

/// "a string" → "strings", for "a list of strings".
fn plural(one: &str) -> String {
    let bare = one
        .strip_prefix("an ")
        .or_else(|| one.strip_prefix("a "))
        .unwrap_or(one);
    match bare.split_once(' ') {
        Some((head, rest)) => format!("{head}s {rest}"),
        None => format!("{bare}s"),
    }
}
