//! The type is the prompt: JSON Schemas and format instructions built from
//! the target type (cargo feature `schema`, through schemars).
//!
//! schemars derives a type's schema from the serde attributes the decoder
//! reads (renames, `rename_all`, tags, `flatten`, `default`, `Option`), with
//! doc comments as `description`s, so one `#[derive(Deserialize,
//! JsonSchema)]` gives what to ask for and what reads the answer. This module
//! turns that schema into what each provider accepts and into a short
//! outline for the prompt.
//!
//! Property order: schemars keeps a schema's `properties` in a
//! `serde_json::Map`, which sorts its keys unless serde_json's
//! `preserve_order` feature is on in the build. The `required` lists these
//! functions write and the outline [`prompt`] writes follow the fields'
//! declaration order either way (read from the schema schemars describes
//! for serializing, where every field is listed in order).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::SchemaError;

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// A private keyword that carries an object's property order through the
/// transforms below; never in a schema handed out.
const ORDER: &str = "x-serde-llm-order";

/// The JSON Schema of `T` as schemars generates it (draft 2020-12, for
/// deserializing): serde's renames, tags, `flatten`, `default` and `Option`
/// honoured, doc comments as `description`s, named types in `$defs`.
///
/// This is the plain schema, for validators and for providers that take any
/// JSON Schema; [`openai_schema`] and [`anthropic_schema`] give what those
/// providers accept as-is.
///
/// ```
/// use serde_json::json;
///
/// /// A verdict on one message.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Verdict {
///     /// Between 0 and 1.
///     score: f64,
///     note: Option<String>,
/// }
///
/// assert_eq!(
///     serde_llm::schema::<Verdict>(),
///     json!({
///         "$schema": "https://json-schema.org/draft/2020-12/schema",
///         "title": "Verdict",
///         "description": "A verdict on one message.",
///         "type": "object",
///         "properties": {
///             "score": { "description": "Between 0 and 1.", "type": "number", "format": "double" },
///             "note": { "type": ["string", "null"] }
///         },
///         "required": ["score"]
///     })
/// );
/// ```
pub fn schema<T: JsonSchema + ?Sized>() -> Value {
    generate::<T>(false)
}

/// The schema of `T` for OpenAI's strict structured outputs (`response_format:
/// {"type": "json_schema", "json_schema": {"name": …, "strict": true,
/// "schema": …}}`, and function tools with `"strict": true`).
///
/// One function per provider rather than one function taking a `Provider`
/// enum: each provider's rules differ, and each function's documentation is
/// where its rules are listed; a caller names the provider either way.
///
/// The rules implemented (OpenAI's documented subset of JSON Schema for
/// strict mode):
///
/// - the root is an object (`"type": "object"`), not a union: a root that is
///   an enum, a list or a scalar, or an object with `oneOf`/`anyOf`/`allOf`
///   at its top (a flattened enum) is an error; wrap it in a struct;
/// - every object has `"additionalProperties": false` and lists every
///   property in `required` (in declaration order). A property that may be
///   left out and accepts `null` (an `Option` field) stays as it is,
///   `"type": ["string", "null"]` or `anyOf` with `{"type": "null"}`: the
///   model writes `null` for none. One that does not accept `null` (a
///   `#[serde(default)]` field of another type) becomes required as it is,
///   since `null` would not decode into it;
/// - `oneOf` (serde's tagged enums, whose variants never overlap) becomes
///   `anyOf`;
/// - a `$ref` beside other keywords (a described field of a named type, an
///   internally tagged newtype variant) is replaced by the definition merged
///   with those keywords, as OpenAI's own SDK does; a `$ref` alone stays, and
///   `$defs` are kept at the root (OpenAI allows them, and recursion through
///   `"#"` or `"#/$defs/…"`); definitions no longer referenced are dropped;
/// - `$schema`, `title`, `default`, `examples`, `deprecated`, `readOnly`,
///   `writeOnly`, `$comment`, `minLength`, `maxLength`, `uniqueItems`,
///   `minProperties` and `maxProperties` are dropped, and `format` except
///   OpenAI's string formats (`date-time`, `time`, `date`, `duration`,
///   `email`, `hostname`, `ipv4`, `ipv6`, `uuid`): schemars' `int32`,
///   `uint8`, `double` go. `minimum`, `maximum`, `exclusiveMinimum`,
///   `exclusiveMaximum`, `multipleOf`, `minItems`, `maxItems`, `pattern`,
///   `enum` and `const` are kept;
/// - what strict mode cannot say is an error naming where it is: a map
///   (`additionalProperties` with a schema), any JSON value (`true` or `{}`,
///   e.g. `serde_json::Value`), a tuple (`prefixItems`), `allOf` of several
///   parts, `not`, `if`, `patternProperties` and any other keyword.
///
/// Not checked: OpenAI's size limits (nesting depth, number of properties
/// and enum values, total length of names). Property order in the
/// `properties` map is `serde_json::Map`'s (see the module docs); OpenAI
/// writes the keys in that order.
///
/// ```
/// use serde_json::json;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// enum Label { Spam, Ham }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Verdict {
///     /// Spam or ham.
///     label: Label,
///     note: Option<String>,
/// }
///
/// assert_eq!(
///     serde_llm::openai_schema::<Verdict>()?,
///     json!({
///         "type": "object",
///         "properties": {
///             "label": { "description": "Spam or ham.", "type": "string", "enum": ["spam", "ham"] },
///             "note": { "type": ["string", "null"] }
///         },
///         "required": ["label", "note"],
///         "additionalProperties": false
///     })
/// );
///
/// // A list at the root cannot be a strict structured output.
/// let err = serde_llm::openai_schema::<Vec<Verdict>>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "OpenAI strict mode: the root of Array_of_Verdict is an array, not an object: wrap it in a struct"
/// );
/// # Ok::<(), serde_llm::SchemaError>(())
/// ```
pub fn openai_schema<T: JsonSchema + ?Sized>() -> Result<Value, SchemaError> {
    let mut root = ordered::<T>();
    check_root(&root, OPENAI)?;
    let root_map = root.as_object_mut().expect("an object root");
    let defs = match root_map.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    let original_root = Value::Object(root_map.clone());
    let mut strict = Strict {
        defs: &defs,
        root: &original_root,
        inlining: Vec::new(),
    };
    let mut out_defs = Map::new();
    for (name, def) in &defs {
        let mut def = def.clone();
        strict.node(&mut def, &format!("/$defs/{name}"))?;
        out_defs.insert(name.clone(), def);
    }
    strict.node(&mut root, "")?;
    keep_referenced(&mut root, out_defs);
    Ok(root)
}

/// The schema of `T` as an Anthropic tool's `input_schema` (the Messages
/// API's `tools: [{"name": …, "description": …, "input_schema": …}]`).
///
/// Anthropic takes ordinary JSON Schema, so this is [`schema`] with two
/// changes and one check:
///
/// - `$schema` and the root `title` are dropped, as in Anthropic's examples
///   (the tool's `name` says what the root is); the root `description` (the
///   type's doc comment) stays, and every other keyword, `$defs` and `$ref`
///   included, is schemars' own;
/// - the root must be an object (`"type": "object"`, required by the API)
///   with no `oneOf`, `anyOf` or `allOf` at its top, which the API refuses
///   ("input_schema does not support oneOf, allOf, or anyOf at the top
///   level"): an enum at the root (several tools in one type) is an error
///   here; give each variant its own tool, or wrap the enum in a struct.
///
/// ```
/// use serde_json::json;
///
/// /// Look something up.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Search {
///     query: String,
///     #[serde(default)]
///     limit: u32,
/// }
///
/// assert_eq!(
///     serde_llm::anthropic_schema::<Search>()?,
///     json!({
///         "description": "Look something up.",
///         "type": "object",
///         "properties": {
///             "query": { "type": "string" },
///             "limit": { "type": "integer", "format": "uint32", "minimum": 0, "default": 0 }
///         },
///         "required": ["query"]
///     })
/// );
/// # Ok::<(), serde_llm::SchemaError>(())
/// ```
pub fn anthropic_schema<T: JsonSchema + ?Sized>() -> Result<Value, SchemaError> {
    let mut root = schema::<T>();
    check_root(&root, ANTHROPIC)?;
    let map = root.as_object_mut().expect("an object root");
    map.remove("$schema");
    map.remove("title");
    Ok(root)
}

/// Format instructions for the model, built from `T`'s schema: one line of
/// instruction, then an outline of the value in TypeScript's notation, the
/// notation models follow most closely.
///
/// ```
/// /// A verdict on one message.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Verdict {
///     #[serde(rename = "label")]
///     kind: Label,
///     /// Between 0 and 1.
///     score: f64,
///     reasons: Vec<String>,
///     note: Option<String>,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// enum Label { Spam, Ham }
///
/// assert_eq!(serde_llm::prompt::<Verdict>(), r#"Answer with one JSON value in this shape:
/// { // A verdict on one message.
///   "label": "spam" | "ham",
///   "score": number, // Between 0 and 1.
///   "reasons": string[],
///   "note"?: string | null
/// }"#);
/// ```
///
/// The notation:
///
/// - an object is `{`, one `"key": type` per line (two spaces deeper), `}`;
///   keys are written as JSON strings, in declaration order; `?` after the
///   key marks a key that may be left out (an `Option` field, a
///   `#[serde(default)]` field);
/// - `string`, `number` (a float), `integer` (kept apart from `number`: the
///   decoder refuses `4.5` for an integer), `boolean`, `null`, `any` (any
///   JSON value); `type[]` is a list, `[a, b]` a tuple,
///   `{ [key: string]: type }` a map;
/// - a union is `a | b`: `string | null` is a nullable value, `"spam" |
///   "ham"` an enum of unit variants (its values as written in JSON), and a
///   tagged enum is the union of its variants' objects, written one variant
///   per line after a leading `|` when they span lines;
/// - a description (a doc comment) is a `// comment` at the end of the line
///   its field (or variant, or type) starts on;
/// - a recursive type is named where it recurs and spelled out after the
///   shape, as `type Name = …`.
///
/// Not shown: bounds and formats (`minimum`, `format`, …); the decoder and
/// a [`Contract`](crate::Contract) check those.
pub fn prompt<T: JsonSchema + ?Sized>() -> String {
    let root = ordered::<T>();
    let outline = Outline::of(&root);
    format!("Answer with one JSON value in this shape:\n{outline}")
}

const OPENAI: &str = "OpenAI strict mode";
const ANTHROPIC: &str = "Anthropic input_schema";

// ----- generation and property order -------------------------------------------

fn generate<T: JsonSchema + ?Sized>(serialize: bool) -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    if serialize {
        settings = settings.for_serialize();
    }
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The deserializing schema with each object's declaration order under
/// [`ORDER`]: the schema for serializing lists every field in `required`,
/// in order (where the other lists only the required ones), so it is walked
/// beside this one.
fn ordered<T: JsonSchema + ?Sized>() -> Value {
    let mut de = generate::<T>(false);
    let ser = generate::<T>(true);
    annotate(&mut de, Some(&ser));
    de
}

fn annotate(de: &mut Value, ser: Option<&Value>) {
    let Value::Object(map) = de else { return };
    let ser = ser.and_then(Value::as_object);
    if let Some(Value::Object(props)) = map.get("properties") {
        let mut order: Vec<String> = Vec::new();
        let listed = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        for key in listed(ser.and_then(|s| s.get("required")))
            .into_iter()
            .chain(listed(map.get("required")))
            .chain(props.keys().cloned())
        {
            if props.contains_key(&key) && !order.contains(&key) {
                order.push(key);
            }
        }
        map.insert(ORDER.to_owned(), order.into());
    }
    for (key, value) in map.iter_mut() {
        let theirs = ser.and_then(|s| s.get(key));
        match key.as_str() {
            "properties" | "$defs" | "patternProperties" => {
                if let Value::Object(children) = value {
                    for (name, child) in children.iter_mut() {
                        annotate(child, theirs.and_then(|t| t.get(name)));
                    }
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Value::Array(children) = value {
                    let theirs = theirs
                        .and_then(Value::as_array)
                        .filter(|t| t.len() == children.len());
                    for (i, child) in children.iter_mut().enumerate() {
                        annotate(child, theirs.map(|t| &t[i]));
                    }
                }
            }
            "items"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames" => annotate(value, theirs),
            _ => {}
        }
    }
}

/// An object's property names in declaration order.
fn order(map: &Map<String, Value>) -> Vec<String> {
    if let Some(Value::Array(order)) = map.get(ORDER) {
        return order
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    let mut out: Vec<String> = Vec::new();
    let required = map.get("required").and_then(Value::as_array);
    let props = map.get("properties").and_then(Value::as_object);
    for key in required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .chain(props.into_iter().flat_map(|p| p.keys().cloned()))
    {
        if props.is_some_and(|p| p.contains_key(&key)) && !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

fn required_set(map: &Map<String, Value>) -> BTreeSet<String> {
    map.get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

fn strip_order(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove(ORDER);
            map.values_mut().for_each(strip_order);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_order),
        _ => {}
    }
}

fn check_root(root: &Value, provider: &'static str) -> Result<(), SchemaError> {
    let Value::Object(map) = root else {
        return Err(SchemaError::new(provider, "", "the root is any value"));
    };
    let name = map
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("the type");
    let is_object = map.get("type").and_then(Value::as_str) == Some("object");
    if let Some(key) = ["oneOf", "anyOf", "allOf"]
        .into_iter()
        .find(|k| map.contains_key(*k))
    {
        let message = if is_object {
            format!(
                "the root of {name} has `{key}` at its top (a flattened enum), which the root \
                 cannot have: make the enum a field"
            )
        } else {
            format!(
                "the root of {name} is a union (`{key}`: an enum), not an object: wrap it in a \
                 struct"
            )
        };
        return Err(SchemaError::new(provider, "", message));
    }
    if is_object {
        return Ok(());
    }
    let what = match map.get("type") {
        Some(Value::String(t)) if t == "array" || t == "integer" => format!("an {t}"),
        Some(Value::String(t)) => format!("a {t}"),
        Some(Value::Array(_)) => "a union of types".to_owned(),
        _ => "any value".to_owned(),
    };
    Err(SchemaError::new(
        provider,
        "",
        format!("the root of {name} is {what}, not an object: wrap it in a struct"),
    ))
}

// ----- OpenAI strict mode -------------------------------------------------------

/// String formats OpenAI's strict mode accepts.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords strict mode has no use for and that only annotate or narrow a
/// value; dropped.
const OPENAI_DROPPED: &[&str] = &[
    "$schema",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "minLength",
    "maxLength",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// Keywords kept as they are (their subschemas are handled in `node`).
const OPENAI_KEPT: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$ref",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    ORDER,
];

struct Strict<'a> {
    defs: &'a Map<String, Value>,
    root: &'a Value,
    /// The definitions being inlined, outermost first (a guard against a
    /// recursive `$ref` beside other keywords).
    inlining: Vec<String>,
}

impl Strict<'_> {
    fn err(&self, path: &str, message: impl Into<String>) -> SchemaError {
        SchemaError::new(OPENAI, path, message)
    }

    fn target(&self, reference: &str, path: &str) -> Result<(String, Value), SchemaError> {
        if reference == "#" {
            let mut root = self.root.clone();
            if let Value::Object(map) = &mut root {
                map.remove("$schema");
                map.remove("title");
            }
            return Ok(("#".to_owned(), root));
        }
        reference
            .strip_prefix("#/$defs/")
            .and_then(|name| Some((name.to_owned(), self.defs.get(name)?.clone())))
            .ok_or_else(|| {
                self.err(
                    path,
                    format!("a $ref this crate cannot follow: {reference}"),
                )
            })
    }

    fn node(&mut self, value: &mut Value, path: &str) -> Result<(), SchemaError> {
        let map = match value {
            Value::Object(map) => map,
            Value::Bool(true) => {
                return Err(self.err(
                    path,
                    "any JSON value (e.g. serde_json::Value) cannot be said in strict mode",
                ))
            }
            _ => return Err(self.err(path, "a schema that accepts nothing")),
        };
        // A $ref beside other keywords: the definition merged with them.
        if map.len() > 1 && map.contains_key("$ref") {
            let reference = map.remove("$ref").expect("present");
            let reference = reference.as_str().unwrap_or_default().to_owned();
            let (name, target) = self.target(&reference, path)?;
            if self.inlining.contains(&name) {
                return Err(self.err(
                    path,
                    format!("a recursive $ref beside other keywords ({reference})"),
                ));
            }
            let Value::Object(target) = target else {
                return Err(self.err(path, format!("{reference} is not an object schema")));
            };
            let merged = merge_maps(std::mem::take(map), target);
            *value = Value::Object(merged);
            self.inlining.push(name);
            let done = self.node(value, path);
            self.inlining.pop();
            return done;
        }
        if map.is_empty() {
            return Err(self.err(
                path,
                "any JSON value (e.g. serde_json::Value) cannot be said in strict mode",
            ));
        }
        for key in OPENAI_DROPPED {
            map.remove(*key);
        }
        if let Some(format) = map.get("format").and_then(Value::as_str) {
            let is_string = match map.get("type") {
                Some(Value::String(t)) => t == "string",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
                _ => false,
            };
            if !(is_string && OPENAI_FORMATS.contains(&format)) {
                map.remove("format");
            }
        }
        if let Some(one_of) = map.remove("oneOf") {
            if map.contains_key("anyOf") {
                return Err(self.err(path, "`oneOf` beside `anyOf` (flattened enums)"));
            }
            map.insert("anyOf".to_owned(), one_of);
        }
        if let Some(all_of) = map.remove("allOf") {
            match all_of {
                Value::Array(mut parts) if parts.len() == 1 => {
                    let Value::Object(part) = parts.remove(0) else {
                        return Err(self.err(path, "`allOf` of a boolean schema"));
                    };
                    *map = merge_maps(std::mem::take(map), part);
                    return self.node(value, path);
                }
                _ => {
                    return Err(self.err(
                        path,
                        "`allOf` of several schemas (several flattened enums) cannot be said in strict mode",
                    ))
                }
            }
        }
        if let Some(up) = map.remove("unevaluatedProperties") {
            if up != Value::Bool(false) || map.contains_key("additionalProperties") {
                return Err(self.err(
                    path,
                    "an object open to other keys (`unevaluatedProperties`, from `flatten`)",
                ));
            }
            map.insert("additionalProperties".to_owned(), false.into());
        }
        if let Some(key) = map.keys().find(|k| !OPENAI_KEPT.contains(&k.as_str())) {
            let what = match key.as_str() {
                "prefixItems" => {
                    "a tuple (`prefixItems`) cannot be said in strict mode; use a struct".to_owned()
                }
                "patternProperties" | "propertyNames" => {
                    format!("a map (`{key}`) cannot be said in strict mode; use a list of entries")
                }
                _ => format!("`{key}` is not supported in strict mode"),
            };
            return Err(self.err(path, what));
        }
        let is_object = map.contains_key("properties")
            || match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => false,
            };
        if is_object {
            match map.get("additionalProperties") {
                None | Some(Value::Bool(false)) => {}
                Some(_) => {
                    return Err(self.err(
                        path,
                        "a map (keys the schema cannot list) cannot be said in strict mode; use a list of entries or a struct",
                    ))
                }
            }
            if !map.contains_key("properties") {
                // A struct without fields (a map always has
                // `additionalProperties`, refused above).
                map.insert("properties".to_owned(), Value::Object(Map::new()));
            }
            let keys = order(map);
            map.insert("additionalProperties".to_owned(), false.into());
            map.insert(
                "required".to_owned(),
                keys.iter().cloned().map(Value::from).collect(),
            );
            map.remove(ORDER);
            if let Some(Value::Object(props)) = map.get_mut("properties") {
                for (key, prop) in props.iter_mut() {
                    self.node(prop, &format!("{path}/properties/{key}"))?;
                }
            }
        }
        if let Some(items) = map.get_mut("items") {
            self.node(items, &format!("{path}/items"))?;
        }
        if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            for (i, branch) in branches.iter_mut().enumerate() {
                self.node(branch, &format!("{path}/anyOf/{i}"))?;
            }
        }
        Ok(())
    }
}

/// `a` and `b` both apply (as `allOf` would say): properties and `required`
/// joined, `a`'s other keywords winning, the declaration order `a`'s then
/// `b`'s.
fn merge_maps(mut a: Map<String, Value>, b: Map<String, Value>) -> Map<String, Value> {
    let order_b = order(&b);
    let order_a = order(&a);
    let had_props = a.contains_key("properties") || b.contains_key("properties");
    for (key, value) in b {
        match (key.as_str(), a.get_mut(&key)) {
            ("properties", Some(Value::Object(mine))) => {
                if let Value::Object(theirs) = value {
                    for (k, v) in theirs {
                        mine.entry(k).or_insert(v);
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                if let Value::Array(theirs) = value {
                    for v in theirs {
                        if !mine.contains(&v) {
                            mine.push(v);
                        }
                    }
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                a.insert(key, value);
            }
        }
    }
    if had_props {
        let mut merged = order_a;
        for key in order_b {
            if !merged.contains(&key) {
                merged.push(key);
            }
        }
        a.insert(
            ORDER.to_owned(),
            merged.into_iter().map(Value::from).collect(),
        );
    }
    a
}

/// Puts back the definitions the schema still refers to (after inlining),
/// and strips the order annotations.
fn keep_referenced(root: &mut Value, mut defs: Map<String, Value>) {
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    if let Some(name) = r.strip_prefix("#/$defs/") {
                        out.push(name.to_owned());
                    }
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut used = BTreeSet::new();
    let mut todo = Vec::new();
    refs(root, &mut todo);
    while let Some(name) = todo.pop() {
        if used.insert(name.clone()) {
            if let Some(def) = defs.get(&name) {
                refs(def, &mut todo);
            }
        }
    }
    defs.retain(|name, _| used.contains(name));
    strip_order(root);
    if !defs.is_empty() {
        let mut defs = Value::Object(defs);
        strip_order(&mut defs);
        root.as_object_mut()
            .expect("an object root")
            .insert("$defs".to_owned(), defs);
    }
}

// ----- the outline --------------------------------------------------------------

/// A type as the outline shows it.
#[derive(Clone, Debug, PartialEq)]
struct Ty {
    kind: Kind,
    /// The description (doc comment) that belongs to this type where it is
    /// used: a field's, a variant's, a named type's.
    desc: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Any,
    Never,
    Null,
    Boolean,
    String,
    Number,
    Integer,
    Literal(Value),
    Array(Box<Ty>),
    Tuple(Vec<Ty>),
    Object(Vec<Prop>, Option<Box<Ty>>),
    Union(Vec<Ty>),
    Named(String),
}

#[derive(Clone, Debug, PartialEq)]
struct Prop {
    key: String,
    optional: bool,
    ty: Ty,
}

impl Ty {
    fn new(kind: Kind) -> Ty {
        Ty { kind, desc: None }
    }

    fn union(branches: Vec<Ty>) -> Ty {
        let mut flat = Vec::new();
        for b in branches {
            match b.kind {
                Kind::Union(inner) if b.desc.is_none() => flat.extend(inner),
                _ => flat.push(b),
            }
        }
        let mut unique: Vec<Ty> = Vec::new();
        for b in flat {
            if !unique.contains(&b) {
                unique.push(b);
            }
        }
        match unique.len() {
            0 => Ty::new(Kind::Never),
            1 => unique.pop().expect("one"),
            _ => Ty::new(Kind::Union(unique)),
        }
    }

    /// Both `self` and `other` apply (a `$ref` beside keywords, `allOf`, a
    /// flattened enum beside its struct's fields).
    fn and(self, other: Ty) -> Ty {
        let desc = self.desc.clone().or(other.desc.clone());
        let kind = match (self.kind, other.kind) {
            (Kind::Any, k) | (k, Kind::Any) => k,
            (Kind::Union(bs), k) => {
                let other = Ty {
                    kind: k,
                    desc: None,
                };
                return with_desc(
                    Ty::union(bs.into_iter().map(|b| b.and(other.clone())).collect()),
                    self.desc,
                );
            }
            (k, Kind::Union(bs)) => {
                let this = Ty {
                    kind: k,
                    desc: None,
                };
                return with_desc(
                    Ty::union(bs.into_iter().map(|b| this.clone().and(b)).collect()),
                    desc,
                );
            }
            (Kind::Object(mut pa, ra), Kind::Object(pb, rb)) => {
                let rest = ra.or(rb);
                for p in pb {
                    match pa.iter_mut().find(|q| q.key == p.key) {
                        Some(q) => q.optional &= p.optional,
                        None => pa.push(p),
                    }
                }
                Kind::Object(pa, rest)
            }
            (a, _) => a,
        };
        Ty { kind, desc }
    }

    fn is_multiline(&self) -> bool {
        match &self.kind {
            Kind::Object(props, rest) => {
                !props.is_empty() || rest.as_ref().is_some_and(|r| r.is_multiline())
            }
            Kind::Array(item) => item.is_multiline(),
            Kind::Tuple(items) => items.iter().any(Ty::is_multiline),
            Kind::Union(bs) => bs.iter().any(Ty::is_multiline),
            _ => false,
        }
    }
}

fn with_desc(mut ty: Ty, desc: Option<String>) -> Ty {
    if desc.is_some() {
        ty.desc = desc;
    }
    ty
}

/// One line of a doc comment: paragraphs and line breaks become spaces.
fn one_line(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Builds [`Ty`]s from a schema.
struct Builder<'a> {
    root: &'a Map<String, Value>,
    defs: Option<&'a Map<String, Value>>,
    /// Definitions that reach themselves ("#" for the root), shown by name.
    recursive: BTreeSet<String>,
    /// The named types used, in the order first met.
    named: Vec<String>,
}

impl<'a> Builder<'a> {
    fn new(root: &'a Map<String, Value>) -> Builder<'a> {
        let mut b = Builder {
            root,
            defs: root.get("$defs").and_then(Value::as_object),
            recursive: BTreeSet::new(),
            named: Vec::new(),
        };
        b.find_recursive();
        b
    }

    fn target(&self, reference: &str) -> Option<(String, &'a Map<String, Value>)> {
        if reference == "#" {
            return Some(("#".to_owned(), self.root));
        }
        let name = reference.strip_prefix("#/$defs/")?;
        let def = self.defs?.get(name)?.as_object()?;
        Some((name.to_owned(), def))
    }

    fn find_recursive(&mut self) {
        fn refs(value: &Value, out: &mut BTreeSet<String>) {
            match value {
                Value::Object(map) => {
                    for (k, v) in map {
                        match (k.as_str(), v) {
                            ("$ref", Value::String(r)) if r == "#" => {
                                out.insert("#".to_owned());
                            }
                            ("$ref", Value::String(r)) => {
                                if let Some(n) = r.strip_prefix("#/$defs/") {
                                    out.insert(n.to_owned());
                                }
                            }
                            ("$defs", _) => {}
                            _ => refs(v, out),
                        }
                    }
                }
                Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
                _ => {}
            }
        }
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut root_refs = BTreeSet::new();
        refs(&Value::Object(self.root.clone()), &mut root_refs);
        edges.insert("#".to_owned(), root_refs);
        for (name, def) in self.defs.into_iter().flatten() {
            let mut out = BTreeSet::new();
            refs(def, &mut out);
            edges.insert(name.clone(), out);
        }
        for start in edges.keys() {
            let mut seen = BTreeSet::new();
            let mut todo: Vec<&String> = edges[start].iter().collect();
            while let Some(n) = todo.pop() {
                if n == start {
                    self.recursive.insert(start.clone());
                    break;
                }
                if seen.insert(n.clone()) {
                    if let Some(next) = edges.get(n) {
                        todo.extend(next.iter());
                    }
                }
            }
        }
    }

    /// The name a recursive definition is shown by.
    fn name_of(&self, def: &str) -> String {
        if def == "#" {
            self.root
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("Root")
                .to_owned()
        } else {
            def.to_owned()
        }
    }

    fn build(&mut self, value: &Value) -> Ty {
        let map = match value {
            Value::Object(map) => map,
            Value::Bool(true) => return Ty::new(Kind::Any),
            _ => return Ty::new(Kind::Never),
        };
        let desc = map
            .get("description")
            .and_then(Value::as_str)
            .and_then(one_line);
        let mut ty = self.core(map);
        if let Some(Value::String(reference)) = map.get("$ref") {
            if let Some((name, def)) = self.target(reference) {
                let target = if self.recursive.contains(&name) {
                    let shown = self.name_of(&name);
                    if !self.named.contains(&name) {
                        self.named.push(name);
                    }
                    let def_desc = def
                        .get("description")
                        .and_then(Value::as_str)
                        .and_then(one_line);
                    Ty {
                        kind: Kind::Named(shown),
                        desc: def_desc,
                    }
                } else {
                    self.build(&Value::Object(def.clone()))
                };
                ty = ty.and(target);
            }
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            for part in parts {
                let part = self.build(part);
                ty = ty.and(part);
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let branches = branches.iter().map(|b| self.build(b)).collect();
                ty = ty.and(Ty::union(branches));
            }
        }
        with_desc(ty, desc)
    }

    /// What the keywords beside `$ref`, `allOf`, `oneOf` and `anyOf` say.
    fn core(&mut self, map: &Map<String, Value>) -> Ty {
        if let Some(c) = map.get("const") {
            return Ty::new(Kind::Literal(c.clone()));
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            return Ty::union(
                values
                    .iter()
                    .map(|v| Ty::new(Kind::Literal(v.clone())))
                    .collect(),
            );
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ if map.contains_key("properties") => vec!["object"],
            _ => return Ty::new(Kind::Any),
        };
        let branches = types
            .into_iter()
            .map(|t| match t {
                "null" => Ty::new(Kind::Null),
                "boolean" => Ty::new(Kind::Boolean),
                "string" => Ty::new(Kind::String),
                "number" => Ty::new(Kind::Number),
                "integer" => Ty::new(Kind::Integer),
                "array" => self.array(map),
                "object" => self.object(map),
                _ => Ty::new(Kind::Any),
            })
            .collect();
        Ty::union(branches)
    }

    fn array(&mut self, map: &Map<String, Value>) -> Ty {
        if let Some(Value::Array(prefix)) = map.get("prefixItems") {
            let items = prefix.iter().map(|p| self.build(p)).collect();
            return Ty::new(Kind::Tuple(items));
        }
        let item = match map.get("items") {
            Some(items) => self.build(items),
            None => Ty::new(Kind::Any),
        };
        Ty::new(Kind::Array(Box::new(item)))
    }

    fn object(&mut self, map: &Map<String, Value>) -> Ty {
        let required = required_set(map);
        let mut props = Vec::new();
        if let Some(Value::Object(schemas)) = map.get("properties") {
            for key in order(map) {
                let ty = self.build(&schemas[&key]);
                props.push(Prop {
                    optional: !required.contains(&key),
                    key,
                    ty,
                });
            }
        }
        // No `additionalProperties`: a struct (serde ignores other keys); a
        // map always has it.
        let rest = match map.get("additionalProperties") {
            Some(Value::Bool(false)) | None => None,
            Some(schema) => Some(Box::new(self.build(schema))),
        };
        Ty::new(Kind::Object(props, rest))
    }
}

/// The outline of a schema: [`prompt`]'s text after its instruction line.
struct Outline {
    lines: Vec<Line>,
}

#[derive(Default)]
struct Line {
    text: String,
    comment: Option<String>,
}

impl Outline {
    fn of(root: &Value) -> Outline {
        let empty = Map::new();
        let mut builder = Builder::new(root.as_object().unwrap_or(&empty));
        let top = if builder.recursive.contains("#") {
            builder.named.push("#".to_owned());
            Ty::new(Kind::Named(builder.name_of("#")))
        } else {
            builder.build(root)
        };
        let mut out = Outline {
            lines: vec![Line::default()],
        };
        out.top(&top);
        // The named types, each spelled out once (a definition may name
        // another one first met while spelling it out).
        let mut done = 0;
        while done < builder.named.len() {
            let name = builder.named[done].clone();
            done += 1;
            let def = if name == "#" {
                let mut root = builder.root.clone();
                root.remove("$defs");
                root
            } else {
                builder
                    .defs
                    .and_then(|d| d.get(&name))
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default()
            };
            let mut body = builder.build(&Value::Object(def));
            let desc = body.desc.take();
            out.lines.push(Line::default());
            out.lines.push(Line::default());
            out.push(&format!("type {} = ", builder.name_of(&name)));
            out.ty(&body, 0);
            if let Some(desc) = desc {
                out.comment_first_of_block(desc);
            }
        }
        out
    }

    fn top(&mut self, ty: &Ty) {
        self.ty(ty, 0);
        if let Some(desc) = &ty.desc {
            if self.lines[0].comment.is_none() && !self.lines[0].text.is_empty() {
                self.lines[0].comment = Some(desc.clone());
            } else {
                self.lines.insert(
                    0,
                    Line {
                        text: format!("// {desc}"),
                        comment: None,
                    },
                );
            }
        }
    }

    /// Puts a comment on the first line of the block just started (the
    /// `type Name = {` line).
    fn comment_first_of_block(&mut self, desc: String) {
        let start = self
            .lines
            .iter()
            .rposition(|l| l.text.starts_with("type "))
            .expect("a type line");
        if self.lines[start].comment.is_none() {
            self.lines[start].comment = Some(desc);
        }
    }

    fn push(&mut self, text: &str) {
        self.lines.last_mut().expect("a line").text.push_str(text);
    }

    fn newline(&mut self, indent: usize) {
        self.lines.push(Line {
            text: " ".repeat(indent),
            comment: None,
        });
    }

    fn comment(&mut self, desc: Option<&str>) {
        if let Some(desc) = desc {
            let line = self.lines.last_mut().expect("a line");
            if line.comment.is_none() {
                line.comment = Some(desc.to_owned());
            }
        }
    }

    /// Whether a union is written on the line it starts on (`a | b`, `{…} |
    /// null`) rather than one branch per line after a leading `|`.
    fn inline_union(branches: &[Ty]) -> bool {
        branches
            .iter()
            .skip(1)
            .all(|b| !b.is_multiline() && b.desc.is_none())
    }

    /// The comment for the line a type starts on: its own description, or
    /// that of the first branch of a union written inline.
    fn lead_desc(ty: &Ty) -> Option<&str> {
        ty.desc.as_deref().or(match &ty.kind {
            Kind::Union(bs) if Self::inline_union(bs) => bs[0].desc.as_deref(),
            _ => None,
        })
    }

    /// Writes `ty` from the end of the current line; lines it adds start at
    /// `indent` (its closing brace) or deeper.
    fn ty(&mut self, ty: &Ty, indent: usize) {
        match &ty.kind {
            Kind::Any => self.push("any"),
            Kind::Never => self.push("never"),
            Kind::Null => self.push("null"),
            Kind::Boolean => self.push("boolean"),
            Kind::String => self.push("string"),
            Kind::Number => self.push("number"),
            Kind::Integer => self.push("integer"),
            Kind::Named(name) => self.push(name),
            Kind::Literal(v) => self.push(&v.to_string()),
            Kind::Array(item) => {
                if matches!(item.kind, Kind::Union(_)) {
                    if item.is_multiline() {
                        self.push("(");
                        self.union(item, indent, true);
                        self.newline(indent);
                        self.push(")[]");
                    } else {
                        self.push("(");
                        self.ty(item, indent);
                        self.push(")[]");
                    }
                } else {
                    self.ty(item, indent);
                    self.push("[]");
                }
            }
            Kind::Tuple(items) => {
                if ty.is_multiline() {
                    self.push("[");
                    for (i, item) in items.iter().enumerate() {
                        self.newline(indent + 2);
                        self.comment(Self::lead_desc(item));
                        self.ty(item, indent + 2);
                        if i + 1 < items.len() {
                            self.push(",");
                        }
                    }
                    self.newline(indent);
                    self.push("]");
                } else {
                    self.push("[");
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            self.push(", ");
                        }
                        self.ty(item, indent);
                    }
                    self.push("]");
                }
            }
            Kind::Object(props, rest) => {
                if props.is_empty() {
                    match rest {
                        None => self.push("{}"),
                        Some(r) if !r.is_multiline() => {
                            self.push("{ [key: string]: ");
                            self.ty(r, indent);
                            self.push(" }");
                        }
                        Some(r) => {
                            self.push("{");
                            self.newline(indent + 2);
                            self.push("[key: string]: ");
                            self.comment(Self::lead_desc(r));
                            self.ty(r, indent + 2);
                            self.newline(indent);
                            self.push("}");
                        }
                    }
                    return;
                }
                self.push("{");
                for (i, p) in props.iter().enumerate() {
                    self.newline(indent + 2);
                    self.push(&serde_json::to_string(&p.key).expect("a string"));
                    self.push(if p.optional { "?: " } else { ": " });
                    self.comment(Self::lead_desc(&p.ty));
                    if matches!(&p.ty.kind, Kind::Union(bs) if !Self::inline_union(bs)) {
                        // `"key":` alone, the branches below it.
                        self.lines.last_mut().expect("a line").text.pop();
                        self.union(&p.ty, indent + 2, true);
                    } else {
                        self.ty(&p.ty, indent + 2);
                    }
                    if i + 1 < props.len() || rest.is_some() {
                        self.push(",");
                    }
                }
                if let Some(r) = rest {
                    self.newline(indent + 2);
                    self.push("[key: string]: ");
                    self.comment(Self::lead_desc(r));
                    self.ty(r, indent + 2);
                }
                self.newline(indent);
                self.push("}");
            }
            Kind::Union(_) => self.union(ty, indent, !self.current_is_blank()),
        }
    }

    fn current_is_blank(&self) -> bool {
        self.lines.last().is_none_or(|l| l.text.trim().is_empty())
    }

    /// A union: inline (`a | b`), or one branch per line after a leading `|`
    /// (prettier's layout), the pipes two spaces deeper than `indent` when
    /// `deeper` (after a key) or at `indent` at the start of a line.
    fn union(&mut self, ty: &Ty, indent: usize, deeper: bool) {
        let Kind::Union(branches) = &ty.kind else {
            return self.ty(ty, indent);
        };
        if Self::inline_union(branches) {
            for (i, b) in branches.iter().enumerate() {
                if i > 0 {
                    self.push(" | ");
                }
                self.ty(b, indent);
            }
            return;
        }
        let pipe = if deeper { indent + 2 } else { indent };
        for (i, b) in branches.iter().enumerate() {
            if i > 0 || !self.current_is_blank() {
                self.newline(pipe);
            } else {
                let line = self.lines.last_mut().expect("a line");
                line.text = " ".repeat(pipe);
            }
            self.push("| ");
            self.comment(Self::lead_desc(b));
            self.ty(b, pipe + 2);
        }
    }
}

impl fmt::Display for Outline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            let text = line.text.trim_end();
            match &line.comment {
                Some(c) if text.is_empty() => write!(f, "// {c}")?,
                Some(c) => write!(f, "{text} // {c}")?,
                None => f.write_str(text)?,
            }
        }
        Ok(())
    }
}
