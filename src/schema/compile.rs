//! A JSON Schema compiled once into the nodes a decode walks.
//!
//! Each node says what to ask the Deserializer for (a string, a number, a
//! struct with these field names, a sequence, one of these variants, one
//! of these alternatives) and what to check of the value. References are
//! resolved here (`$ref` into `$defs`, `definitions` or any JSON pointer
//! of the document, recursion included: a node refers to another by its
//! index), `allOf` is merged into one schema, and a keyword this module
//! does not understand is refused with its path unless
//! [`SchemaOptions::ignore_unknown_keywords`](super::SchemaOptions::ignore_unknown_keywords)
//! says to leave it out.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value};

use super::check::{Bound, Checks, Format};
use super::pattern::Pattern;
use super::SchemaError;
use crate::partial::grow::{Cut, Kind as GrowKind, Route};
use crate::shape::{Scalar, Shape};

const WHAT: &str = "JSON Schema";

/// A node's index.
pub(crate) type Id = usize;

/// A compiled schema.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub nodes: Vec<Node>,
    pub root: Id,
    /// A node for any value (an array's items or an object's members the
    /// schema says nothing of).
    pub any: Id,
    /// How each node may be cut where a property marked `x-partial`
    /// holds it (see [`Cut`]).
    pub cuts: Vec<Cut>,
}

#[derive(Debug)]
pub(crate) struct Node {
    pub kind: Kind,
    pub checks: Option<Box<Checks>>,
    /// `enum`/`const` values the value must be one of (compared as JSON),
    /// for kinds other than [`Kind::Enum`].
    pub members: Option<Box<[Value]>>,
}

#[derive(Debug)]
pub(crate) enum Kind {
    /// Any value, as it is written (`true`, `{}`): what `serde_json::Value`
    /// reads.
    Any,
    /// No value (`false`).
    Never,
    String,
    Integer,
    Number,
    Boolean,
    Null,
    /// One of these strings (an `enum` or `const` of strings), read as a
    /// unit enum's variants are.
    Enum(&'static [&'static str]),
    /// `null`, or the node.
    Nullable(Id),
    Array(Box<Array>),
    /// An object with named properties, read as a struct is.
    Object(Box<Object>),
    /// An object with no named properties, read as a map is.
    Map(Box<MapNode>),
    /// `anyOf`/`oneOf`: one of these.
    Choice(Box<[Id]>),
    /// What that node is (an `anyOf` of one schema).
    Ref(Id),
}

#[derive(Debug)]
pub(crate) struct Array {
    /// `prefixItems` (or draft 4's `items` list).
    pub prefix: Vec<Id>,
    /// What follows the prefix.
    pub items: Items,
    /// The prefix is all there is (`items: false`, or `maxItems` its
    /// length): read as a tuple is.
    pub tuple: bool,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Items {
    Any,
    Node(Id),
    /// No more items (`items: false`).
    None,
}

#[derive(Debug)]
pub(crate) struct Object {
    /// In the order of the schema's `properties` (then the `required`
    /// names it does not describe).
    pub props: Vec<Prop>,
    /// Their names, as `deserialize_struct` takes them.
    pub fields: &'static [&'static str],
    pub extra: Extra,
    pub patterns: Vec<(Pattern, Id)>,
    /// Some property has a `default`.
    pub defaults: bool,
}

impl Object {
    /// The index of the property named exactly `name`.
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| *f == name)
    }
}

#[derive(Debug)]
pub(crate) struct Prop {
    pub name: &'static str,
    pub node: Id,
    pub required: bool,
    /// Its node is nullable (`null` written stays `null`).
    pub nullable: bool,
    /// `x-partial`: may hold a value cut off (`#[llm(partial)]`).
    pub partial: bool,
    /// `x-required-for-view`: no view of the object until it is complete
    /// (`#[llm(required)]`).
    pub for_view: bool,
    pub default: Option<Value>,
}

/// What an object does with a key it does not name.
#[derive(Debug)]
pub(crate) enum Extra {
    /// Keeps it, its value read as this node (`None`: any value).
    Keep(Option<Id>),
    /// Leaves it out (`additionalProperties: false`).
    Drop,
}

#[derive(Debug)]
pub(crate) struct MapNode {
    /// The members' values (`None`: any value).
    pub values: Option<Id>,
    pub patterns: Vec<(Pattern, Id)>,
}

/// Options for compiling.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Options {
    pub ignore_unknown: bool,
}

/// Keywords that change nothing in a decode.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "default",
    "$defs",
    "definitions",
];

/// Keywords that do.
const KEYWORDS: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "nullable",
    "allOf",
    "anyOf",
    "oneOf",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "x-partial",
    "x-required-for-view",
];

/// How many `$ref`s or `allOf`s deep a merge may go (a schema that is
/// `allOf` itself has no end).
const MAX_MERGE: usize = 64;

/// Compiles `root`.
pub(crate) fn compile(root: &Value, opts: Options) -> Result<Compiled, SchemaError> {
    let mut c = Compiler {
        root,
        nodes: Vec::new(),
        refs: HashMap::new(),
        opts,
        nesting: 0,
    };
    let any = c.push(Kind::Any);
    let root_id = c.target("", "")?;
    for id in 0..c.nodes.len() {
        let mut at = id;
        for _ in 0..=c.nodes.len() {
            match c.nodes[at].kind {
                Kind::Ref(to) => at = to,
                _ => break,
            }
        }
        if matches!(c.nodes[at].kind, Kind::Ref(_)) {
            return Err(err(
                "",
                "a schema that is only a reference to itself (through anyOf or oneOf of one)",
            ));
        }
    }
    let cuts = cuts(&c.nodes);
    let mut compiled = Compiled {
        nodes: c.nodes,
        root: root_id,
        any,
        cuts,
    };
    // Whether each property is nullable, now that every node is known (a
    // property's node may have been a recursive one still being built).
    let nullable: Vec<bool> = (0..compiled.nodes.len())
        .map(|id| matches!(compiled.nodes[compiled.resolve(id)].kind, Kind::Nullable(_)))
        .collect();
    for node in &mut compiled.nodes {
        if let Kind::Object(o) = &mut node.kind {
            for p in &mut o.props {
                p.nullable = nullable[p.node];
            }
        }
    }
    Ok(compiled)
}

struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    /// JSON pointers compiled, for `$ref`s (recursion included).
    refs: HashMap<String, Id>,
    opts: Options,
    /// How deep the schema being compiled nests (see [`MAX_NESTING`]).
    nesting: usize,
}

/// How deep a schema may nest (schemas inside schemas, not counting
/// `$ref`s, which point back rather than down): compiling recurses once
/// per level, and a thread's stack must hold it (serde_json reads no
/// deeper a schema written as text).
const MAX_NESTING: usize = 128;

fn err(at: &str, message: impl Into<String>) -> SchemaError {
    SchemaError::new(WHAT, at, message)
}

/// `at` with one more step.
fn child(at: &str, step: &str) -> String {
    format!("{at}/{}", step.replace('~', "~0").replace('/', "~1"))
}

/// The `$ref` of a schema that is nothing else (annotations aside).
fn pure_ref(value: &Value) -> Option<&str> {
    let map = value.as_object()?;
    let r = map.get("$ref")?.as_str()?;
    map.keys()
        .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()) || is_flag(k))
        .then_some(r)
}

/// The keywords a property's own schema carries for its parent.
fn is_flag(key: &str) -> bool {
    key == "x-partial" || key == "x-required-for-view"
}

impl<'s> Compiler<'s> {
    fn push(&mut self, kind: Kind) -> Id {
        self.nodes.push(Node {
            kind,
            checks: None,
            members: None,
        });
        self.nodes.len() - 1
    }

    /// The JSON pointer a `$ref` names, written at `at`.
    fn pointer(&self, reference: &str, at: &str) -> Result<String, SchemaError> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err(err(
                at,
                format!(
                    "the $ref `{reference}` is not within this document (only `#…` references are)"
                ),
            ));
        };
        // A fragment may be percent-encoded (`#/$defs/My%20Type`).
        let decoded = percent_decode(fragment).ok_or_else(|| {
            err(
                at,
                format!("the $ref `{reference}` is not valid percent-encoding"),
            )
        })?;
        if !decoded.is_empty() && !decoded.starts_with('/') {
            return Err(err(
                at,
                format!("the $ref `{reference}` names an anchor; only JSON pointers (`#/…`) are supported"),
            ));
        }
        Ok(decoded)
    }

    /// The node for the schema at JSON pointer `pointer` (compiled once,
    /// so a schema may refer to itself), following `$ref`s that are all
    /// their schema is.
    fn target(&mut self, pointer: &str, at: &str) -> Result<Id, SchemaError> {
        let mut pointer = pointer.to_owned();
        let mut seen = HashSet::new();
        loop {
            if let Some(&id) = self.refs.get(&pointer) {
                return Ok(id);
            }
            let root = self.root;
            let value = root.pointer(&pointer).ok_or_else(|| {
                err(
                    at,
                    format!("the $ref `#{pointer}` points nowhere in the schema"),
                )
            })?;
            match pure_ref(value) {
                Some(next) => {
                    if !seen.insert(pointer.clone()) {
                        return Err(err(
                            at,
                            format!("the $ref `#{pointer}` refers to itself through $refs alone"),
                        ));
                    }
                    pointer = self.pointer(next, &pointer)?;
                }
                None => {
                    // Reserved first: the schema may refer to itself.
                    let id = self.push(Kind::Any);
                    self.refs.insert(pointer.clone(), id);
                    let node = self.build(value, &pointer, 0)?;
                    self.nodes[id] = node;
                    return Ok(id);
                }
            }
        }
    }

    /// The node for `value`, written at `at`.
    fn node(&mut self, value: &Value, at: &str) -> Result<Id, SchemaError> {
        if let Some(reference) = pure_ref(value) {
            let pointer = self.pointer(reference, at)?;
            return self.target(&pointer, at);
        }
        let node = self.build(value, at, 0)?;
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    /// The schema a `$ref` names, as JSON (following `$ref`s that are all
    /// their schema is).
    fn deref(&self, value: &Value, at: &str, depth: usize) -> Result<Value, SchemaError> {
        let mut value = value.clone();
        let mut hops = 0;
        while let Some(reference) = pure_ref(&value) {
            hops += 1;
            if hops + depth > MAX_MERGE {
                return Err(err(at, "the $refs merged here go on without end"));
            }
            let pointer = self.pointer(reference, at)?;
            let flags: Vec<(String, Value)> = value
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| is_flag(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            value = self.root.pointer(&pointer).cloned().ok_or_else(|| {
                err(
                    at,
                    format!("the $ref `{reference}` points nowhere in the schema"),
                )
            })?;
            if let (Some(map), false) = (value.as_object_mut(), flags.is_empty()) {
                map.extend(flags);
            }
        }
        Ok(value)
    }

    fn build(&mut self, value: &Value, at: &str, depth: usize) -> Result<Node, SchemaError> {
        if self.nesting >= MAX_NESTING {
            return Err(err(
                at,
                format!("the schema nests more than {MAX_NESTING} deep"),
            ));
        }
        self.nesting += 1;
        let node = self.build_at(value, at, depth);
        self.nesting -= 1;
        node
    }

    fn build_at(&mut self, value: &Value, at: &str, depth: usize) -> Result<Node, SchemaError> {
        let map = match value {
            Value::Bool(true) => return Ok(node(Kind::Any)),
            Value::Bool(false) => return Ok(node(Kind::Never)),
            Value::Object(map) => map,
            _ => return Err(err(at, "a schema must be an object or a boolean")),
        };
        for key in map.keys() {
            let known = KEYWORDS.contains(&key.as_str()) || ANNOTATIONS.contains(&key.as_str());
            if !known && !self.opts.ignore_unknown {
                return Err(err(
                    at,
                    format!(
                        "unknown keyword `{key}` (SchemaOptions::ignore_unknown_keywords leaves such keywords out)"
                    ),
                ));
            }
        }
        // `$ref` beside other keywords, and `allOf`: one schema, merged.
        if map.contains_key("$ref") || map.contains_key("allOf") {
            if depth > MAX_MERGE {
                return Err(err(
                    at,
                    "the $refs and allOfs merged here go on without end",
                ));
            }
            let merged = self.merged(map, at, depth)?;
            return self.build(&Value::Object(merged), at, depth + 1);
        }
        let any_of = map.get("anyOf").map(|v| ("anyOf", v));
        let one_of = map.get("oneOf").map(|v| ("oneOf", v));
        match (any_of, one_of) {
            (Some(_), Some(_)) => {
                return Err(err(
                    at,
                    "both anyOf and oneOf in one schema (put one inside an allOf)",
                ))
            }
            (Some((name, alts)), None) | (None, Some((name, alts))) => {
                return self.choice(map, name, alts, at, depth)
            }
            (None, None) => {}
        }
        self.typed(map, at)
    }

    /// `map` with its `$ref` and its `allOf` parts merged into it.
    fn merged(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Result<Map<String, Value>, SchemaError> {
        let mut own = map.clone();
        let reference = own.remove("$ref");
        let all_of = own.remove("allOf");
        let mut parts = Vec::new();
        if let Some(r) = reference {
            let r = r
                .as_str()
                .ok_or_else(|| err(at, "$ref must be a string"))?
                .to_owned();
            parts.push((
                self.deref(
                    &Value::Object(
                        [("$ref".to_owned(), Value::String(r))]
                            .into_iter()
                            .collect(),
                    ),
                    at,
                    depth,
                )?,
                child(at, "$ref"),
            ));
        }
        if let Some(all_of) = all_of {
            let list = all_of
                .as_array()
                .ok_or_else(|| err(at, "allOf must be a list of schemas"))?;
            for (i, part) in list.iter().enumerate() {
                let here = child(&child(at, "allOf"), &i.to_string());
                parts.push((self.deref(part, &here, depth)?, here));
            }
        }
        let mut out = own;
        for (part, here) in parts {
            match part {
                Value::Bool(true) => {}
                Value::Bool(false) => return Err(err(&here, "allOf holds `false`: no value fits")),
                Value::Object(part) => {
                    // Its own $ref and allOf first.
                    let part = match part.contains_key("$ref") || part.contains_key("allOf") {
                        true => self.merged(&part, &here, depth + 1)?,
                        false => part,
                    };
                    out = merge(out, part, &here)?;
                }
                _ => return Err(err(&here, "a schema must be an object or a boolean")),
            }
        }
        Ok(out)
    }

    /// `anyOf`/`oneOf`: each alternative with the rest of `map` merged in.
    fn choice(
        &mut self,
        map: &Map<String, Value>,
        name: &str,
        alts: &Value,
        at: &str,
        depth: usize,
    ) -> Result<Node, SchemaError> {
        let list = alts
            .as_array()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| err(at, format!("{name} must be a non-empty list of schemas")))?;
        let mut rest = map.clone();
        rest.remove(name);
        let constrains = rest
            .keys()
            .any(|k| !ANNOTATIONS.contains(&k.as_str()) && !is_flag(k));
        let mut ids = Vec::new();
        let mut nullable = false;
        for (i, alt) in list.iter().enumerate() {
            let here = child(&child(at, name), &i.to_string());
            let plain = self.deref(alt, &here, depth)?;
            if plain == serde_json::json!({"type": "null"}) && !constrains {
                nullable = true;
                continue;
            }
            let id = match constrains {
                false => self.node(alt, &here)?,
                true => {
                    let Value::Object(alt) = plain else {
                        return Err(err(&here, "a schema must be an object"));
                    };
                    let merged = merge(rest.clone(), alt, &here)?;
                    let node = self.build(&Value::Object(merged), &here, depth + 1)?;
                    self.nodes.push(node);
                    self.nodes.len() - 1
                }
            };
            ids.push(id);
        }
        let kind = match ids.len() {
            0 => Kind::Null,
            1 if nullable => Kind::Nullable(ids[0]),
            // One alternative is that schema.
            1 => Kind::Ref(ids[0]),
            _ if nullable => {
                let inner = self.push(Kind::Choice(ids.into()));
                Kind::Nullable(inner)
            }
            _ => Kind::Choice(ids.into()),
        };
        Ok(node(kind))
    }

    /// A schema with no `$ref`, `allOf`, `anyOf` or `oneOf`.
    fn typed(&mut self, map: &Map<String, Value>, at: &str) -> Result<Node, SchemaError> {
        let mut types: Vec<&str> = match map.get("type") {
            None => Vec::new(),
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(list)) => list
                .iter()
                .map(|t| {
                    t.as_str()
                        .ok_or_else(|| err(at, "type must be a string or a list of strings"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(err(at, "type must be a string or a list of strings")),
        };
        for t in &types {
            if ![
                "string", "integer", "number", "boolean", "null", "array", "object",
            ]
            .contains(t)
            {
                return Err(err(at, format!("unknown type `{t}`")));
            }
        }
        let mut nullable = match map.get("nullable") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(err(at, "nullable must be true or false")),
        };
        // `null` among the types: the other types or null; alone, the
        // null type itself.
        if let Some(i) = types.iter().position(|t| *t == "null") {
            types.remove(i);
            match types.is_empty() {
                true => types.push("null"),
                false => nullable = true,
            }
        }
        let mut members = match (map.get("enum"), map.get("const")) {
            (Some(Value::Array(list)), None) => Some(list.clone()),
            (None, Some(c)) => Some(vec![c.clone()]),
            (Some(Value::Array(list)), Some(c)) => Some(
                list.iter()
                    .filter(|v| super::check::json_eq(v, c))
                    .cloned()
                    .collect(),
            ),
            (Some(_), _) => return Err(err(at, "enum must be a list")),
            (None, None) => None,
        };
        // `null` among the values: null or the others, where the types
        // allow null (or say nothing).
        if let Some(list) = &mut members {
            if let Some(i) = list.iter().position(Value::is_null) {
                let allowed = types.is_empty() || nullable || types == ["null"];
                list.remove(i);
                match (list.is_empty(), allowed) {
                    (true, true) => {
                        types = vec!["null"];
                        nullable = false;
                        members = None;
                    }
                    (false, true) if types != ["null"] => nullable = true,
                    _ => {}
                }
            }
        }
        if types.is_empty() {
            types.push(infer(map, members.as_deref()));
        }
        let id_of = |c: &mut Compiler<'_>, t: &str| -> Result<Id, SchemaError> {
            let node = c.single(map, t, members.as_deref(), at)?;
            c.nodes.push(node);
            Ok(c.nodes.len() - 1)
        };
        let node = match (types.as_slice(), nullable) {
            ([t], false) => self.single(map, t, members.as_deref(), at)?,
            ([t], true) => {
                let id = id_of(self, t)?;
                node(Kind::Nullable(id))
            }
            (many, _) => {
                let many: Vec<&str> = many.to_vec();
                let mut ids = Vec::new();
                for t in many {
                    ids.push(id_of(self, t)?);
                }
                let choice = Kind::Choice(ids.into());
                match nullable {
                    true => {
                        let id = self.push(choice);
                        node(Kind::Nullable(id))
                    }
                    false => node(choice),
                }
            }
        };
        Ok(node)
    }

    /// The node for one type `t` of `map`.
    fn single(
        &mut self,
        map: &Map<String, Value>,
        t: &str,
        members: Option<&[Value]>,
        at: &str,
    ) -> Result<Node, SchemaError> {
        let mut checks = Checks::default();
        let uint = |key: &str| -> Result<Option<u64>, SchemaError> {
            match map.get(key) {
                None => Ok(None),
                Some(v) => v
                    .as_u64()
                    .or_else(|| {
                        v.as_f64()
                            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                            .map(|f| f as u64)
                    })
                    .map(Some)
                    .ok_or_else(|| err(at, format!("{key} must be a non-negative integer"))),
            }
        };
        let number = |key: &str| -> Result<Option<f64>, SchemaError> {
            match map.get(key) {
                None => Ok(None),
                Some(Value::Bool(_)) if key.starts_with("exclusive") => Ok(None),
                Some(v) => v
                    .as_f64()
                    .map(Some)
                    .ok_or_else(|| err(at, format!("{key} must be a number"))),
            }
        };
        let format = match map.get("format") {
            None => None,
            Some(Value::String(f)) => Format::of(f),
            Some(_) => return Err(err(at, "format must be a string")),
        };
        let mut kind = match t {
            "string" => {
                checks.min_length = uint("minLength")?;
                checks.max_length = uint("maxLength")?;
                if let Some(p) = map.get("pattern") {
                    let source = p
                        .as_str()
                        .ok_or_else(|| err(at, "pattern must be a string"))?;
                    let compiled = Pattern::new(source).map_err(|e| {
                        err(
                            &child(at, "pattern"),
                            format!("the pattern `{source}`: {e}"),
                        )
                    })?;
                    checks.pattern = Some((source.to_owned(), compiled));
                }
                checks.format = format.filter(|f| f.whole());
                Kind::String
            }
            "integer" | "number" => {
                let draft4 = |key: &str| matches!(map.get(key), Some(Value::Bool(true)));
                checks.minimum = number("minimum")?.map(|value| Bound {
                    value,
                    exclusive: draft4("exclusiveMinimum"),
                });
                checks.maximum = number("maximum")?.map(|value| Bound {
                    value,
                    exclusive: draft4("exclusiveMaximum"),
                });
                if let Some(value) = number("exclusiveMinimum")? {
                    let b = Bound {
                        value,
                        exclusive: true,
                    };
                    checks.minimum = Some(match checks.minimum {
                        Some(m) if m.value > value => m,
                        _ => b,
                    });
                }
                if let Some(value) = number("exclusiveMaximum")? {
                    let b = Bound {
                        value,
                        exclusive: true,
                    };
                    checks.maximum = Some(match checks.maximum {
                        Some(m) if m.value < value => m,
                        _ => b,
                    });
                }
                checks.multiple_of = number("multipleOf")?;
                if checks.multiple_of.is_some_and(|m| m <= 0.0) {
                    return Err(err(at, "multipleOf must be greater than 0"));
                }
                checks.format =
                    format.filter(|f| matches!(f, Format::Int { .. }) && t == "integer");
                match t {
                    "integer" => Kind::Integer,
                    _ => Kind::Number,
                }
            }
            "boolean" => Kind::Boolean,
            "null" => Kind::Null,
            "array" => {
                checks.min_items = uint("minItems")?;
                checks.max_items = uint("maxItems")?;
                checks.unique_items = match map.get("uniqueItems") {
                    None => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => return Err(err(at, "uniqueItems must be true or false")),
                };
                self.array(map, checks.max_items, at)?
            }
            "object" => {
                checks.min_properties = uint("minProperties")?;
                checks.max_properties = uint("maxProperties")?;
                self.object(map, at)?
            }
            _ => Kind::Any,
        };
        let mut members = members.map(<[Value]>::to_vec);
        if let (Kind::String, Some(list)) = (&kind, &members) {
            if list.iter().all(Value::is_string) {
                let names: Vec<&'static str> =
                    list.iter().filter_map(Value::as_str).map(intern).collect();
                kind = Kind::Enum(intern_list(&names));
                members = None;
            }
        }
        let checks = has_checks(&checks).then(|| Box::new(checks));
        Ok(Node {
            kind,
            checks,
            members: members.map(Vec::into_boxed_slice),
        })
    }

    fn array(
        &mut self,
        map: &Map<String, Value>,
        max_items: Option<u64>,
        at: &str,
    ) -> Result<Kind, SchemaError> {
        let mut prefix = Vec::new();
        let mut items = Items::Any;
        let prefix_list = match (map.get("prefixItems"), map.get("items")) {
            (Some(p), _) => Some(("prefixItems", p)),
            (None, Some(list @ Value::Array(_))) => Some(("items", list)),
            _ => None,
        };
        if let Some((key, list)) = prefix_list {
            let list = list
                .as_array()
                .ok_or_else(|| err(at, format!("{key} must be a list of schemas")))?;
            for (i, s) in list.iter().enumerate() {
                prefix.push(self.node(s, &child(&child(at, key), &i.to_string()))?);
            }
        }
        let rest = match (
            prefix_list.map(|(k, _)| k),
            map.get("items"),
            map.get("additionalItems"),
        ) {
            (Some("items"), _, rest) => rest.map(|r| ("additionalItems", r)),
            (_, Some(items), _) => Some(("items", items)),
            (None, None, _) => None,
            (Some(_), None, _) => None,
        };
        if let Some((key, rest)) = rest {
            items = match rest {
                Value::Bool(false) => Items::None,
                Value::Bool(true) => Items::Any,
                s => Items::Node(self.node(s, &child(at, key))?),
            };
        }
        let closed = matches!(items, Items::None) || max_items == Some(prefix.len() as u64);
        Ok(Kind::Array(Box::new(Array {
            tuple: !prefix.is_empty() && closed,
            prefix,
            items,
        })))
    }

    fn object(&mut self, map: &Map<String, Value>, at: &str) -> Result<Kind, SchemaError> {
        let required: Vec<&str> = match map.get("required") {
            None => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| err(at, "required must be a list of strings"))
                })
                .collect::<Result<_, _>>()?,
            // OpenAPI 2 and some hand-written schemas: `"required": true`
            // on the property; not JSON Schema.
            Some(_) => return Err(err(at, "required must be a list of strings")),
        };
        let mut props = Vec::new();
        if let Some(properties) = map.get("properties") {
            let properties = properties
                .as_object()
                .ok_or_else(|| err(at, "properties must be an object"))?;
            let here = child(at, "properties");
            for (name, schema) in properties {
                let at = child(&here, name);
                let own = schema.as_object();
                let flag = |key: &str| -> Result<bool, SchemaError> {
                    match own.and_then(|m| m.get(key)) {
                        None => Ok(false),
                        Some(Value::Bool(b)) => Ok(*b),
                        Some(_) => Err(err(&at, format!("{key} must be true or false"))),
                    }
                };
                let (partial, for_view) = (flag("x-partial")?, flag("x-required-for-view")?);
                let default = own.and_then(|m| m.get("default")).cloned();
                let node = self.node(schema, &at)?;
                props.push(Prop {
                    name: intern(name),
                    node,
                    nullable: false,
                    required: required.contains(&name.as_str()),
                    partial,
                    for_view,
                    default,
                });
            }
        }
        for name in &required {
            if !props.iter().any(|p| p.name == *name) {
                let node = self.push(Kind::Any);
                props.push(Prop {
                    name: intern(name),
                    node,
                    nullable: false,
                    required: true,
                    partial: false,
                    for_view: false,
                    default: None,
                });
            }
        }
        let mut patterns = Vec::new();
        if let Some(pp) = map.get("patternProperties") {
            let pp = pp
                .as_object()
                .ok_or_else(|| err(at, "patternProperties must be an object"))?;
            let here = child(at, "patternProperties");
            for (source, schema) in pp {
                let pattern = Pattern::new(source)
                    .map_err(|e| err(&here, format!("the pattern `{source}`: {e}")))?;
                patterns.push((pattern, self.node(schema, &child(&here, source))?));
            }
        }
        let extra = match map.get("additionalProperties") {
            None | Some(Value::Bool(true)) => Extra::Keep(None),
            Some(Value::Bool(false)) => Extra::Drop,
            Some(s) => Extra::Keep(Some(self.node(s, &child(at, "additionalProperties"))?)),
        };
        if props.is_empty() {
            if let Extra::Keep(values) = extra {
                return Ok(Kind::Map(Box::new(MapNode { values, patterns })));
            }
        }
        let names: Vec<&'static str> = props.iter().map(|p| p.name).collect();
        Ok(Kind::Object(Box::new(Object {
            defaults: props.iter().any(|p| p.default.is_some()),
            fields: intern_list(&names),
            props,
            extra,
            patterns,
        })))
    }
}

fn node(kind: Kind) -> Node {
    Node {
        kind,
        checks: None,
        members: None,
    }
}

fn has_checks(c: &Checks) -> bool {
    c.minimum.is_some()
        || c.maximum.is_some()
        || c.multiple_of.is_some()
        || c.min_length.is_some()
        || c.max_length.is_some()
        || c.pattern.is_some()
        || c.format.is_some()
        || c.min_items.is_some()
        || c.max_items.is_some()
        || c.unique_items
        || c.min_properties.is_some()
        || c.max_properties.is_some()
}

/// The type a schema without `type` describes, from its keywords.
fn infer(map: &Map<String, Value>, members: Option<&[Value]>) -> &'static str {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    if has(&[
        "properties",
        "additionalProperties",
        "patternProperties",
        "required",
        "minProperties",
        "maxProperties",
    ]) {
        return "object";
    }
    if has(&[
        "items",
        "prefixItems",
        "additionalItems",
        "minItems",
        "maxItems",
        "uniqueItems",
    ]) {
        return "array";
    }
    if let Some(list) = members.filter(|l| !l.is_empty()) {
        let all = |f: fn(&Value) -> bool| list.iter().all(f);
        return if all(Value::is_string) {
            "string"
        } else if all(|v| v.is_i64() || v.is_u64()) {
            "integer"
        } else if all(Value::is_number) {
            "number"
        } else if all(Value::is_boolean) {
            "boolean"
        } else {
            "any"
        };
    }
    if has(&["minLength", "maxLength", "pattern"]) {
        return "string";
    }
    if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        return "number";
    }
    match map
        .get("format")
        .and_then(Value::as_str)
        .and_then(Format::of)
    {
        Some(Format::Int { .. }) => "integer",
        Some(_) => "string",
        None => "any",
    }
}

/// Two schemas that must both hold, as one (`allOf`): properties merged
/// (one named in both holds both), `required` joined, bounds tightened,
/// `type`s and `enum`s met. What cannot be said as one schema is an error.
fn merge(
    mut a: Map<String, Value>,
    b: Map<String, Value>,
    at: &str,
) -> Result<Map<String, Value>, SchemaError> {
    for (key, vb) in b {
        let Some(va) = a.get_mut(&key) else {
            a.insert(key, vb);
            continue;
        };
        if *va == vb {
            continue;
        }
        let both = |va: &Value, vb: Value| serde_json::json!({"allOf": [va.clone(), vb]});
        let merged = match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                let (Some(ma), Value::Object(mb)) = (va.as_object_mut(), vb) else {
                    return Err(err(at, format!("allOf: {key} must be objects")));
                };
                for (name, sb) in mb {
                    match ma.get_mut(&name) {
                        Some(sa) if *sa != sb => *sa = both(sa, sb),
                        Some(_) => {}
                        None => {
                            ma.insert(name, sb);
                        }
                    }
                }
                continue;
            }
            "required" => {
                let (Some(ra), Value::Array(rb)) = (va.as_array_mut(), vb) else {
                    return Err(err(at, "allOf: required must be lists"));
                };
                for r in rb {
                    if !ra.contains(&r) {
                        ra.push(r);
                    }
                }
                continue;
            }
            "type" => {
                let list = |v: &Value| -> Vec<Value> {
                    match v {
                        Value::Array(l) => l.clone(),
                        v => vec![v.clone()],
                    }
                };
                let lb = list(&vb);
                let met: Vec<Value> = list(va).into_iter().filter(|t| lb.contains(t)).collect();
                match met.len() {
                    0 => return Err(err(at, format!("allOf: the types {va} and {vb} have no value in common"))),
                    1 => met.into_iter().next().expect("one"),
                    _ => Value::Array(met),
                }
            }
            "enum" => {
                let (Some(ea), Value::Array(eb)) = (va.as_array(), vb) else {
                    return Err(err(at, "allOf: enum must be lists"));
                };
                Value::Array(ea.iter().filter(|v| eb.iter().any(|w| super::check::json_eq(v, w))).cloned().collect())
            }
            "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties" => {
                match (va.as_f64(), vb.as_f64()) {
                    (Some(x), Some(y)) if y > x => vb,
                    (Some(_), Some(_)) => continue,
                    _ => return Err(err(at, format!("allOf: two values of {key} that do not meet"))),
                }
            }
            "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties" => {
                match (va.as_f64(), vb.as_f64()) {
                    (Some(x), Some(y)) if y < x => vb,
                    (Some(_), Some(_)) => continue,
                    _ => return Err(err(at, format!("allOf: two values of {key} that do not meet"))),
                }
            }
            "additionalProperties" => match (&*va, vb) {
                (Value::Bool(false), _) | (_, Value::Bool(true)) => continue,
                (_, Value::Bool(false)) => Value::Bool(false),
                (Value::Bool(true), vb) => vb,
                (va, vb) => both(va, vb),
            },
            "items" | "additionalItems" => both(va, vb),
            "x-partial" | "x-required-for-view" | "nullable" | "uniqueItems" => {
                Value::Bool(va.as_bool().unwrap_or(false) || vb.as_bool().unwrap_or(false))
            }
            k if ANNOTATIONS.contains(&k) => continue,
            _ => {
                return Err(err(
                    at,
                    format!("allOf: two different values of {key} cannot be merged into one schema ({va} and {vb})"),
                ))
            }
        };
        *va = merged;
    }
    Ok(a)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// How each node may be cut where a property marked `x-partial` holds it,
/// as a type's view says with `__cut`: a string grows; a number, a
/// literal, an enum's value, a formatted string (a date) and a choice are
/// shown whole; a list or map grows by its parts as far as they may.
fn cuts(nodes: &[Node]) -> Vec<Cut> {
    fn cut(nodes: &[Node], id: Id, memo: &mut Vec<Option<Cut>>, busy: &mut Vec<bool>) -> Cut {
        if let Some(c) = memo[id] {
            return c;
        }
        if busy[id] {
            // A list of itself: its parts grow as it does.
            return Cut::Grows;
        }
        busy[id] = true;
        let node = &nodes[id];
        let c = match &node.kind {
            Kind::Any | Kind::Object(_) => Cut::Grows,
            Kind::String => match node.checks.as_ref().and_then(|c| c.format) {
                Some(f) if f.whole() => Cut::Whole,
                _ if node.members.is_some() => Cut::Whole,
                _ => Cut::Grows,
            },
            Kind::Never
            | Kind::Integer
            | Kind::Number
            | Kind::Boolean
            | Kind::Null
            | Kind::Enum(_)
            | Kind::Choice(_) => Cut::Whole,
            Kind::Nullable(inner) | Kind::Ref(inner) => cut(nodes, *inner, memo, busy),
            Kind::Array(a) => {
                let mut parts: Vec<Cut> = a
                    .prefix
                    .iter()
                    .map(|&p| cut(nodes, p, memo, busy))
                    .collect();
                match a.items {
                    Items::Node(i) => parts.push(cut(nodes, i, memo, busy)),
                    Items::Any => parts.push(Cut::Grows),
                    Items::None => {}
                }
                match parts.contains(&Cut::Grows) {
                    true => Cut::Grows,
                    false => Cut::Parts,
                }
            }
            Kind::Map(m) => m
                .values
                .map_or(Cut::Grows, |v| cut(nodes, v, memo, busy))
                .of_parts(),
        };
        busy[id] = false;
        memo[id] = Some(c);
        c
    }
    let mut memo = vec![None; nodes.len()];
    let mut busy = vec![false; nodes.len()];
    (0..nodes.len())
        .map(|id| cut(nodes, id, &mut memo, &mut busy))
        .collect()
}

impl Compiled {
    /// The node `id` stands for (through [`Kind::Ref`]s).
    pub(crate) fn resolve(&self, mut id: Id) -> Id {
        while let Kind::Ref(to) = self.nodes[id].kind {
            id = to;
        }
        id
    }

    /// Whether some object has a property marked `x-required-for-view`.
    pub(crate) fn required_for_view(&self) -> bool {
        self.nodes.iter().any(|n| match &n.kind {
            Kind::Object(o) => o.props.iter().any(|p| p.for_view),
            _ => false,
        })
    }

    /// How a stream reads a part of the node that `route` leads to in
    /// `view` (see `View::__kind_at`): an `anyOf` of objects told apart by
    /// a property each holds a constant of its own (a tool call's name) as
    /// an internally tagged enum is, with that property first (the
    /// constant decides the alternative, so a part read with it is read as
    /// in the whole); another `anyOf`, or an element of a list whose
    /// elements differ by position, whole (which alternative, or which
    /// element, depends on the rest of it); where the view's shape is not
    /// the schema's (a coerced value), likewise. Else on its own.
    pub(crate) fn grows_at(&self, view: Option<&Value>, route: &[Route]) -> GrowKind {
        // `None`: any value (read as `serde_json::Value` is).
        let mut id = Some(self.root);
        let mut view = view;
        for step in route {
            let Some(at) = id else {
                return GrowKind::Plain;
            };
            let Some(at) = self.alternative(at, view) else {
                return GrowKind::Buffered;
            };
            id = match (&self.nodes[at].kind, step) {
                (Kind::Any, _) => None,
                (Kind::Object(o), Route::Key(k)) => match o.find(k) {
                    Some(i) => Some(o.props[i].node),
                    None => match o.patterns.iter().find(|(p, _)| p.is_match(k)) {
                        Some((_, node)) => Some(*node),
                        None => match o.extra {
                            Extra::Keep(node) => node,
                            // Left out: nothing of it is shown.
                            Extra::Drop => return GrowKind::Plain,
                        },
                    },
                },
                (Kind::Map(m), Route::Key(k)) => {
                    match m.patterns.iter().find(|(p, _)| p.is_match(k)) {
                        Some((_, node)) => Some(*node),
                        None => m.values,
                    }
                }
                (Kind::Array(a), Route::Last) if a.prefix.is_empty() => match a.items {
                    Items::Any => None,
                    Items::Node(node) => Some(node),
                    Items::None => return GrowKind::Plain,
                },
                _ => return GrowKind::Buffered,
            };
            view = match (step, view) {
                (Route::Key(k), Some(Value::Object(m))) => m.get(k),
                (Route::Last, Some(Value::Array(a))) => a.last(),
                _ => None,
            };
        }
        match id.map(|at| &self.nodes[self.bare(at)].kind) {
            Some(Kind::Choice(alts)) => self.tag(alts).map_or(GrowKind::Buffered, GrowKind::Tagged),
            Some(Kind::Array(a)) if !a.prefix.is_empty() => GrowKind::Buffered,
            _ => GrowKind::Plain,
        }
    }

    /// The node `id` stands for where the view holds `view`: an `anyOf`'s
    /// alternative its tag names (see [`tag`](Self::tag)); `None` for
    /// another `anyOf`, or one whose tag the view does not hold.
    fn alternative(&self, id: Id, view: Option<&Value>) -> Option<Id> {
        let id = self.bare(id);
        let Kind::Choice(alts) = &self.nodes[id].kind else {
            return Some(id);
        };
        let tag = self.tag(alts)?;
        let written = view?.get(tag)?.as_str()?;
        alts.iter()
            .map(|&a| self.bare(a))
            .find(|&a| match &self.nodes[a].kind {
                Kind::Object(o) => o
                    .find(tag)
                    .is_some_and(|i| self.constant(o.props[i].node) == Some(written)),
                _ => false,
            })
    }

    /// The property that tells an `anyOf`'s alternatives apart: each is an
    /// object with it, holding a string constant no other alternative
    /// holds.
    fn tag(&self, alts: &[Id]) -> Option<&'static str> {
        let objects: Vec<&Object> = alts
            .iter()
            .map(|&a| match &self.nodes[self.bare(a)].kind {
                Kind::Object(o) => Some(&**o),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let first = objects.first()?;
        first.props.iter().map(|p| p.name).find(|&name| {
            let mut seen = Vec::with_capacity(objects.len());
            objects.iter().all(|o| {
                let c = o.find(name).and_then(|i| self.constant(o.props[i].node));
                c.is_some_and(|c| {
                    !seen.contains(&c) && {
                        seen.push(c);
                        true
                    }
                })
            })
        })
    }

    /// The one string a node allows (a `const`, an `enum` of one).
    fn constant(&self, id: Id) -> Option<&'static str> {
        match &self.nodes[self.resolve(id)].kind {
            Kind::Enum([one]) => Some(one),
            _ => None,
        }
    }

    /// The node `id` stands for, past references and `null`.
    fn bare(&self, mut id: Id) -> Id {
        loop {
            id = self.resolve(id);
            match self.nodes[id].kind {
                Kind::Nullable(inner) => id = inner,
                _ => return id,
            }
        }
    }

    /// The shape of value the root wants, and whether it is typed (any
    /// value, `true` or `{}`, is not: it reads as `serde_json::Value`).
    pub(crate) fn shape(&self) -> (Shape, bool) {
        self.shape_at(self.root)
    }

    /// [`shape`](Self::shape) of the node `id`.
    pub(crate) fn shape_at(&self, id: Id) -> (Shape, bool) {
        let shape = self.shape_of(id, 0);
        let typed = !matches!(self.nodes[self.resolve(id)].kind, Kind::Any);
        (shape, typed)
    }

    fn shape_of(&self, id: Id, depth: usize) -> Shape {
        if depth > 16 {
            return Shape::Any;
        }
        match &self.nodes[id].kind {
            Kind::Object(_) | Kind::Map(_) => Shape::Object,
            Kind::Array(_) => Shape::Array,
            Kind::String => Shape::Scalar(Scalar::Text),
            Kind::Integer | Kind::Number => Shape::Scalar(Scalar::Number),
            Kind::Boolean => Shape::Scalar(Scalar::Bool),
            Kind::Enum(variants) => Shape::Scalar(Scalar::Enum(variants)),
            Kind::Null => Shape::Scalar(Scalar::Other),
            Kind::Nullable(inner) | Kind::Ref(inner) => self.shape_of(*inner, depth + 1),
            Kind::Choice(alts) => {
                let mut shapes = alts.iter().map(|&a| self.shape_of(a, depth + 1));
                let first = shapes.next().unwrap_or(Shape::Any);
                match shapes.all(|s| s == first) {
                    // One scalar kind prose may hold: only when every
                    // alternative wants the same one.
                    true => first,
                    false => Shape::Any,
                }
            }
            Kind::Any | Kind::Never => Shape::Any,
        }
    }
}

/// Interned names: `deserialize_struct` and `deserialize_enum` take
/// `&'static` names, so each distinct property or enum name (and each
/// distinct list of them) is stored once for the life of the process and
/// shared by every schema that uses it. Memory grows with the distinct
/// names compiled, not with the number of compilations.
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// See [`intern`].
fn intern_list(list: &[&'static str]) -> &'static [&'static str] {
    static LISTS: OnceLock<Mutex<HashSet<&'static [&'static str]>>> = OnceLock::new();
    let mut lists = LISTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(l) = lists.get(list) {
        return l;
    }
    let leaked: &'static [&'static str] = Box::leak(list.to_vec().into_boxed_slice());
    lists.insert(leaked);
    leaked
}
