//! The type is the prompt (cargo feature `schema`): the schemas and the
//! outline built from a type, against exact values, the providers' documented
//! rules, and read-back: a value serialized by serde_json, and a reply
//! written to the outline, decode into the type.
//!
//! (`tests/schema.rs` is another thing: json_repair's schema conformance cases.)

#![cfg(feature = "schema")]

use std::collections::BTreeMap;

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use serde_llm::{anthropic_schema, openai_schema, prompt, schema};

// ----- the types ------------------------------------------------------------------

/// A support ticket, triaged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Triage {
    /// Which team takes it.
    category: Category,
    /// 1 (urgent) to 5.
    priority: u8,
    summary: String,
    tags: Vec<String>,
    customer: Customer,
    /// A reply to send, if any.
    reply: Option<String>,
    actions: Vec<Action>,
    #[serde(default)]
    escalate: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Category {
    Billing,
    Technical,
    Account,
}

/// Who wrote in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Customer {
    full_name: String,
    email: Option<String>,
    tier: Tier,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Tier {
    Free,
    Pro,
    Enterprise,
}

/// One thing to do about the ticket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Action {
    /// Pay money back.
    Refund {
        amount: f64,
        currency: String,
    },
    Escalate {
        team: Category,
        note: Option<String>,
    },
    Close,
}

/// An answer to a quiz question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Quiz {
    answer: Answer,
    /// How sure, from 0 to 1.
    confidence: f64,
    sources: Option<Vec<Source>>,
}

/// Externally tagged: a unit, a newtype and a struct variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Answer {
    Unknown,
    Text(String),
    Choice { index: u32 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Source {
    url: String,
    #[serde(rename = "quote")]
    excerpt: Option<String>,
}

// ----- the plain schema -------------------------------------------------------------

#[test]
fn the_plain_schema_is_schemars_own() {
    assert_eq!(
        schema::<Quiz>(),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Quiz",
            "description": "An answer to a quiz question.",
            "type": "object",
            "properties": {
                "answer": { "$ref": "#/$defs/Answer" },
                "confidence": { "description": "How sure, from 0 to 1.", "type": "number", "format": "double" },
                "sources": { "type": ["array", "null"], "items": { "$ref": "#/$defs/Source" } }
            },
            "required": ["answer", "confidence"],
            "$defs": {
                "Answer": {
                    "description": "Externally tagged: a unit, a newtype and a struct variant.",
                    "oneOf": [
                        { "type": "string", "enum": ["Unknown"] },
                        {
                            "type": "object",
                            "properties": { "Text": { "type": "string" } },
                            "required": ["Text"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "properties": {
                                "Choice": {
                                    "type": "object",
                                    "properties": { "index": { "type": "integer", "format": "uint32", "minimum": 0 } },
                                    "required": ["index"]
                                }
                            },
                            "required": ["Choice"],
                            "additionalProperties": false
                        }
                    ]
                },
                "Source": {
                    "type": "object",
                    "properties": {
                        "url": { "type": "string" },
                        "quote": { "type": ["string", "null"] }
                    },
                    "required": ["url"]
                }
            }
        })
    );
}

// ----- OpenAI ----------------------------------------------------------------------

#[test]
fn openai_strict_schema_of_nested_structs_and_enums() {
    let s = openai_schema::<Triage>().unwrap();
    assert_eq!(
        s,
        json!({
            "description": "A support ticket, triaged.",
            "type": "object",
            "properties": {
                "category": { "description": "Which team takes it.", "type": "string", "enum": ["billing", "technical", "account"] },
                "priority": { "description": "1 (urgent) to 5.", "type": "integer", "minimum": 0, "maximum": 255 },
                "summary": { "type": "string" },
                "tags": { "type": "array", "items": { "type": "string" } },
                "customer": { "$ref": "#/$defs/Customer" },
                "reply": { "description": "A reply to send, if any.", "type": ["string", "null"] },
                "actions": { "type": "array", "items": { "$ref": "#/$defs/Action" } },
                "escalate": { "type": "boolean" }
            },
            "required": ["category", "priority", "summary", "tags", "customer", "reply", "actions", "escalate"],
            "additionalProperties": false,
            "$defs": {
                "Action": {
                    "description": "One thing to do about the ticket.",
                    "anyOf": [
                        {
                            "description": "Pay money back.",
                            "type": "object",
                            "properties": {
                                "type": { "type": "string", "const": "refund" },
                                "amount": { "type": "number" },
                                "currency": { "type": "string" }
                            },
                            "required": ["type", "amount", "currency"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "properties": {
                                "type": { "type": "string", "const": "escalate" },
                                "team": { "$ref": "#/$defs/Category" },
                                "note": { "type": ["string", "null"] }
                            },
                            "required": ["type", "team", "note"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "properties": { "type": { "type": "string", "const": "close" } },
                            "required": ["type"],
                            "additionalProperties": false
                        }
                    ]
                },
                "Category": { "type": "string", "enum": ["billing", "technical", "account"] },
                "Customer": {
                    "description": "Who wrote in.",
                    "type": "object",
                    "properties": {
                        "fullName": { "type": "string" },
                        "email": { "type": ["string", "null"] },
                        "tier": { "$ref": "#/$defs/Tier" }
                    },
                    "required": ["fullName", "email", "tier"],
                    "additionalProperties": false
                },
                "Tier": { "type": "string", "enum": ["Free", "Pro", "Enterprise"] }
            }
        })
    );
    openai_rules(&s);
}

#[test]
fn openai_strict_schema_of_an_externally_tagged_enum_and_a_nullable_list() {
    let s = openai_schema::<Quiz>().unwrap();
    assert_eq!(
        s,
        json!({
            "description": "An answer to a quiz question.",
            "type": "object",
            "properties": {
                "answer": { "$ref": "#/$defs/Answer" },
                "confidence": { "description": "How sure, from 0 to 1.", "type": "number" },
                "sources": { "type": ["array", "null"], "items": { "$ref": "#/$defs/Source" } }
            },
            "required": ["answer", "confidence", "sources"],
            "additionalProperties": false,
            "$defs": {
                "Answer": {
                    "description": "Externally tagged: a unit, a newtype and a struct variant.",
                    "anyOf": [
                        { "type": "string", "enum": ["Unknown"] },
                        {
                            "type": "object",
                            "properties": { "Text": { "type": "string" } },
                            "required": ["Text"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "properties": {
                                "Choice": {
                                    "type": "object",
                                    "properties": { "index": { "type": "integer", "minimum": 0 } },
                                    "required": ["index"],
                                    "additionalProperties": false
                                }
                            },
                            "required": ["Choice"],
                            "additionalProperties": false
                        }
                    ]
                },
                "Source": {
                    "type": "object",
                    "properties": {
                        "url": { "type": "string" },
                        "quote": { "type": ["string", "null"] }
                    },
                    "required": ["url", "quote"],
                    "additionalProperties": false
                }
            }
        })
    );
    openai_rules(&s);
}

// A described field of a named type, and an internally tagged newtype
// variant: a `$ref` beside other keywords, which strict mode does not take,
// becomes the definition merged with them.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Call {
    /// The tool to run.
    tool: Tool,
    /// Who asked.
    by: Person,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "name", rename_all = "snake_case")]
#[allow(dead_code)]
enum Tool {
    Lookup(Person),
    Stop,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Person {
    id: u64,
}

#[test]
fn openai_inlines_a_ref_that_has_siblings() {
    let s = openai_schema::<Call>().unwrap();
    assert_eq!(
        s,
        json!({
            "type": "object",
            "properties": {
                "tool": {
                    "description": "The tool to run.",
                    "anyOf": [
                        {
                            "type": "object",
                            "properties": {
                                "name": { "type": "string", "const": "lookup" },
                                "id": { "type": "integer", "minimum": 0 }
                            },
                            "required": ["name", "id"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "properties": { "name": { "type": "string", "const": "stop" } },
                            "required": ["name"],
                            "additionalProperties": false
                        }
                    ]
                },
                "by": {
                    "description": "Who asked.",
                    "type": "object",
                    "properties": { "id": { "type": "integer", "minimum": 0 } },
                    "required": ["id"],
                    "additionalProperties": false
                }
            },
            "required": ["tool", "by"],
            "additionalProperties": false
        })
    );
    openai_rules(&s);
    // Nothing refers to the definitions any more: they are gone.
    assert!(s.get("$defs").is_none());
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Node {
    label: String,
    children: Vec<Node>,
}

#[test]
fn openai_keeps_recursion_through_the_root() {
    let s = openai_schema::<Node>().unwrap();
    assert_eq!(
        s,
        json!({
            "type": "object",
            "properties": {
                "label": { "type": "string" },
                "children": { "type": "array", "items": { "$ref": "#" } }
            },
            "required": ["label", "children"],
            "additionalProperties": false
        })
    );
    openai_rules(&s);
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithMap {
    scores: BTreeMap<String, f64>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithAny {
    extra: Value,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithTuple {
    point: (i32, i32),
}

/// An action on the ticket with this id.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Flattened {
    id: u32,
    #[serde(flatten)]
    action: Action,
}

#[test]
fn openai_refuses_what_strict_mode_cannot_say() {
    let err = |r: Result<Value, serde_llm::SchemaError>| r.unwrap_err().to_string();
    assert_eq!(
        err(openai_schema::<Vec<Triage>>()),
        "OpenAI strict mode: the root of Array_of_Triage is an array, not an object: wrap it in a struct"
    );
    assert_eq!(
        err(openai_schema::<Action>()),
        "OpenAI strict mode: the root of Action is a union (`oneOf`: an enum), not an object: wrap it in a struct"
    );
    assert_eq!(
        err(openai_schema::<Flattened>()),
        "OpenAI strict mode: the root of Flattened has `oneOf` at its top (a flattened enum), which the root cannot have: make the enum a field"
    );
    assert_eq!(
        err(openai_schema::<String>()),
        "OpenAI strict mode: the root of string is a string, not an object: wrap it in a struct"
    );
    assert_eq!(
        err(openai_schema::<WithMap>()),
        "OpenAI strict mode: at /properties/scores: a map (keys the schema cannot list) cannot be said in strict mode; use a list of entries or a struct"
    );
    assert_eq!(
        err(openai_schema::<WithAny>()),
        "OpenAI strict mode: at /properties/extra: any JSON value (e.g. serde_json::Value) cannot be said in strict mode"
    );
    let e = openai_schema::<WithTuple>().unwrap_err();
    assert_eq!(e.path(), "/properties/point");
    assert_eq!(
        e.to_string(),
        "OpenAI strict mode: at /properties/point: a tuple (`prefixItems`) cannot be said in strict mode; use a struct"
    );
}

/// OpenAI's documented rules for strict structured outputs, checked on every
/// subschema.
fn openai_rules(root: &Value) {
    let map = root.as_object().expect("an object schema");
    assert_eq!(
        map.get("type"),
        Some(&json!("object")),
        "the root is an object"
    );
    for key in ["anyOf", "oneOf", "allOf", "$schema", "title"] {
        assert!(!map.contains_key(key), "no {key} at the root");
    }
    let defs = map
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    fn walk(v: &Value, defs: &Map<String, Value>, path: &str) {
        let m = v
            .as_object()
            .unwrap_or_else(|| panic!("{path}: a boolean schema"));
        assert!(!m.is_empty(), "{path}: an empty schema");
        const KNOWN: &[&str] = &[
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
            "$defs",
            "format",
            "pattern",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        ];
        for k in m.keys() {
            assert!(KNOWN.contains(&k.as_str()), "{path}: keyword {k}");
        }
        if let Some(Value::String(r)) = m.get("$ref") {
            assert_eq!(m.len(), 1, "{path}: $ref beside other keywords");
            if r != "#" {
                let name = r.strip_prefix("#/$defs/").expect("a $defs ref");
                assert!(defs.contains_key(name), "{path}: {r} resolves");
            }
        }
        if let Some(f) = m.get("format").and_then(Value::as_str) {
            let ok = [
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
            assert!(ok.contains(&f), "{path}: format {f}");
        }
        let is_object = m.get("type") == Some(&json!("object")) || m.contains_key("properties");
        if is_object {
            assert_eq!(
                m.get("additionalProperties"),
                Some(&json!(false)),
                "{path}: additionalProperties"
            );
            let props = m["properties"].as_object().expect("properties");
            let mut required: Vec<&str> = m["required"]
                .as_array()
                .expect("required")
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
            required.sort_unstable();
            keys.sort_unstable();
            assert_eq!(required, keys, "{path}: every property is required");
            for (k, p) in props {
                walk(p, defs, &format!("{path}/properties/{k}"));
            }
        }
        if let Some(items) = m.get("items") {
            walk(items, defs, &format!("{path}/items"));
        }
        if let Some(Value::Array(bs)) = m.get("anyOf") {
            for (i, b) in bs.iter().enumerate() {
                walk(b, defs, &format!("{path}/anyOf/{i}"));
            }
        }
    }
    let mut body = root.clone();
    body.as_object_mut().unwrap().remove("$defs");
    walk(&body, &defs, "");
    for (name, def) in &defs {
        walk(def, &defs, &format!("/$defs/{name}"));
    }
}

// ----- Anthropic ---------------------------------------------------------------------

#[test]
fn anthropic_input_schema_is_the_plain_one_without_schema_and_title() {
    let s = anthropic_schema::<Quiz>().unwrap();
    let mut plain = schema::<Quiz>();
    let m = plain.as_object_mut().unwrap();
    m.remove("$schema");
    m.remove("title");
    assert_eq!(s, plain);
    anthropic_rules(&s);

    let s = anthropic_schema::<Triage>().unwrap();
    anthropic_rules(&s);
    assert_eq!(
        s["properties"]["escalate"],
        json!({ "type": "boolean", "default": false })
    );
    assert_eq!(
        s["required"],
        json!(["category", "priority", "summary", "tags", "customer", "actions"])
    );
    assert_eq!(
        s["$defs"]["Action"]["oneOf"][1],
        json!({
            "type": "object",
            "properties": {
                "type": { "type": "string", "const": "escalate" },
                "team": { "$ref": "#/$defs/Category" },
                "note": { "type": ["string", "null"] }
            },
            "required": ["type", "team"]
        })
    );
    // Maps and any values are ordinary JSON Schema.
    anthropic_rules(&anthropic_schema::<WithMap>().unwrap());
    anthropic_rules(&anthropic_schema::<WithAny>().unwrap());
}

#[test]
fn anthropic_refuses_a_root_that_is_not_a_plain_object() {
    let err = |r: Result<Value, serde_llm::SchemaError>| r.unwrap_err().to_string();
    assert_eq!(
        err(anthropic_schema::<Action>()),
        "Anthropic input_schema: the root of Action is a union (`oneOf`: an enum), not an object: wrap it in a struct"
    );
    assert_eq!(
        err(anthropic_schema::<Flattened>()),
        "Anthropic input_schema: the root of Flattened has `oneOf` at its top (a flattened enum), which the root cannot have: make the enum a field"
    );
    assert_eq!(
        err(anthropic_schema::<Vec<u8>>()),
        "Anthropic input_schema: the root of Array_of_uint8 is an array, not an object: wrap it in a struct"
    );
}

/// Anthropic's rules for a tool's `input_schema`: a JSON Schema object whose
/// root is `"type": "object"` with no `oneOf`, `anyOf` or `allOf` at its top
/// (the API refuses those), without `$schema` or a root `title` (as in their
/// examples); every `$ref` resolves.
fn anthropic_rules(root: &Value) {
    let map = root.as_object().expect("an object");
    assert_eq!(map.get("type"), Some(&json!("object")));
    for key in ["anyOf", "oneOf", "allOf", "$schema", "title"] {
        assert!(!map.contains_key(key), "no {key} at the root");
    }
    fn refs(v: &Value, root: &Value) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    let name = r.strip_prefix("#/$defs/");
                    assert!(
                        r == "#" || name.is_some_and(|n| root["$defs"].get(n).is_some()),
                        "{r} resolves"
                    );
                }
                m.values().for_each(|v| refs(v, root));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, root)),
            _ => {}
        }
    }
    refs(root, root);
}

// ----- the outline ---------------------------------------------------------------------

#[test]
fn prompt_of_a_nested_struct_with_enums_options_lists_and_docs() {
    assert_eq!(
        prompt::<Triage>(),
        r#"Answer with one JSON value in this shape:
{ // A support ticket, triaged.
  "category": "billing" | "technical" | "account", // Which team takes it.
  "priority": integer, // 1 (urgent) to 5.
  "summary": string,
  "tags": string[],
  "customer": { // Who wrote in.
    "fullName": string,
    "email"?: string | null,
    "tier": "Free" | "Pro" | "Enterprise"
  },
  "reply"?: string | null, // A reply to send, if any.
  "actions": (
    | { // Pay money back.
        "type": "refund",
        "amount": number,
        "currency": string
      }
    | {
        "type": "escalate",
        "team": "billing" | "technical" | "account",
        "note"?: string | null
      }
    | {
        "type": "close"
      }
  )[],
  "escalate"?: boolean
}"#
    );
}

#[test]
fn prompt_of_an_externally_tagged_enum() {
    assert_eq!(
        prompt::<Quiz>(),
        r#"Answer with one JSON value in this shape:
{ // An answer to a quiz question.
  "answer": // Externally tagged: a unit, a newtype and a struct variant.
    | "Unknown"
    | {
        "Text": string
      }
    | {
        "Choice": {
          "index": integer
        }
      },
  "confidence": number, // How sure, from 0 to 1.
  "sources"?: {
    "url": string,
    "quote"?: string | null
  }[] | null
}"#
    );
}

#[test]
fn prompt_of_an_enum_at_the_root() {
    assert_eq!(
        prompt::<Action>(),
        r#"Answer with one JSON value in this shape:
// One thing to do about the ticket.
| { // Pay money back.
    "type": "refund",
    "amount": number,
    "currency": string
  }
| {
    "type": "escalate",
    "team": "billing" | "technical" | "account",
    "note"?: string | null
  }
| {
    "type": "close"
  }"#
    );
    assert_eq!(
        prompt::<Category>(),
        "Answer with one JSON value in this shape:\n\"billing\" | \"technical\" | \"account\""
    );
    assert_eq!(
        prompt::<Vec<Option<Tier>>>(),
        "Answer with one JSON value in this shape:\n(\"Free\" | \"Pro\" | \"Enterprise\" | null)[]"
    );
}

#[test]
fn prompt_of_a_newtype_variant_maps_tuples_and_any() {
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Misc {
        call: Tool,
        scores: BTreeMap<String, f64>,
        point: (i32, String),
        extra: Value,
        flag: Option<bool>,
    }
    assert_eq!(
        prompt::<Misc>(),
        r#"Answer with one JSON value in this shape:
{
  "call":
    | {
        "name": "lookup",
        "id": integer
      }
    | {
        "name": "stop"
      },
  "scores": { [key: string]: number },
  "point": [integer, string],
  "extra": any,
  "flag"?: boolean | null
}"#
    );
}

#[test]
fn prompt_of_a_recursive_type_names_it() {
    assert_eq!(
        prompt::<Node>(),
        r#"Answer with one JSON value in this shape:
Node

type Node = {
  "label": string,
  "children": Node[]
}"#
    );
}

#[test]
fn prompt_of_a_flattened_enum_spells_out_each_variant() {
    assert_eq!(
        prompt::<Flattened>(),
        r#"Answer with one JSON value in this shape:
// An action on the ticket with this id.
| { // Pay money back.
    "id": integer,
    "type": "refund",
    "amount": number,
    "currency": string
  }
| {
    "id": integer,
    "type": "escalate",
    "team": "billing" | "technical" | "account",
    "note"?: string | null
  }
| {
    "id": integer,
    "type": "close"
  }"#
    );
}

// ----- read-back: values serialized by serde_json ------------------------------------

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

/// A decimal with at most two places, as amounts are written: serde_json's
/// float parsing (which the decoder follows) reads these exactly, where a
/// 17-digit float may come back one unit in the last place off.
fn decimal(max: i64) -> impl Strategy<Value = f64> {
    (-max * 100..=max * 100).prop_map(|c| c as f64 / 100.0)
}

fn category() -> impl Strategy<Value = Category> {
    prop_oneof![
        Just(Category::Billing),
        Just(Category::Technical),
        Just(Category::Account)
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        (decimal(1_000_000), "[A-Z]{3}")
            .prop_map(|(amount, currency)| Action::Refund { amount, currency }),
        (category(), proptest::option::of(text()))
            .prop_map(|(team, note)| Action::Escalate { team, note }),
        Just(Action::Close),
    ]
}

fn triage() -> impl Strategy<Value = Triage> {
    let customer = (
        text(),
        proptest::option::of(text()),
        prop_oneof![Just(Tier::Free), Just(Tier::Pro), Just(Tier::Enterprise)],
    )
        .prop_map(|(full_name, email, tier)| Customer {
            full_name,
            email,
            tier,
        });
    (
        category(),
        any::<u8>(),
        text(),
        proptest::collection::vec(text(), 0..4),
        customer,
        proptest::option::of(text()),
        proptest::collection::vec(action(), 0..4),
        any::<bool>(),
    )
        .prop_map(
            |(category, priority, summary, tags, customer, reply, actions, escalate)| Triage {
                category,
                priority,
                summary,
                tags,
                customer,
                reply,
                actions,
                escalate,
            },
        )
}

fn quiz() -> impl Strategy<Value = Quiz> {
    let answer = prop_oneof![
        Just(Answer::Unknown),
        text().prop_map(Answer::Text),
        any::<u32>().prop_map(|index| Answer::Choice { index }),
    ];
    let source = (
        "https://[a-z]{1,8}\\.org/[a-z]{0,6}",
        proptest::option::of(text()),
    )
        .prop_map(|(url, excerpt)| Source { url, excerpt });
    (
        answer,
        (0..=100u8).prop_map(|p| f64::from(p) / 100.0),
        proptest::option::of(proptest::collection::vec(source, 0..3)),
    )
        .prop_map(|(answer, confidence, sources)| Quiz {
            answer,
            confidence,
            sources,
        })
}

/// `value` serialized pretty and compact decodes to itself, and every schema
/// of its type accepts it.
fn reads_back<T>(value: &T)
where
    T: Serialize + serde::de::DeserializeOwned + JsonSchema + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_value(value).unwrap();
    for text in [
        serde_json::to_string_pretty(value).unwrap(),
        serde_json::to_string(value).unwrap(),
    ] {
        let back: T = serde_llm::from_llm_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&back, value, "{text}");
        assert_eq!(back, serde_json::from_str::<T>(&text).unwrap(), "{text}");
    }
    for s in [
        schema::<T>(),
        openai_schema::<T>().unwrap(),
        anthropic_schema::<T>().unwrap(),
    ] {
        if let Err(e) = validate(&json, &s, &s, "$") {
            panic!("{json} against {s}: {e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_triage_reads_back_and_fits_its_schemas(t in triage()) {
        reads_back(&t);
    }

    #[test]
    fn a_quiz_reads_back_and_fits_its_schemas(q in quiz()) {
        reads_back(&q);
    }
}

/// A validator for the keywords these schemas use; any other keyword is a
/// failure, so it cannot pass by ignoring one.
fn validate(v: &Value, s: &Value, root: &Value, at: &str) -> Result<(), String> {
    let m = match s {
        Value::Bool(true) => return Ok(()),
        Value::Bool(false) => return Err(format!("{at}: nothing is allowed")),
        Value::Object(m) => m,
        _ => return Err(format!("{at}: not a schema")),
    };
    for (k, kw) in m {
        match k.as_str() {
            "$schema" | "title" | "description" | "default" | "format" | "$defs" => {}
            "$ref" => {
                let r = kw.as_str().unwrap();
                let target = if r == "#" {
                    root
                } else {
                    &root["$defs"][r.strip_prefix("#/$defs/").expect("a $defs ref")]
                };
                validate(v, target, root, at)?;
            }
            "type" => {
                let types: Vec<&str> = match kw {
                    Value::String(t) => vec![t],
                    Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
                    _ => panic!("type {kw}"),
                };
                let fits = |t: &str| match t {
                    "null" => v.is_null(),
                    "boolean" => v.is_boolean(),
                    "string" => v.is_string(),
                    "number" => v.is_number(),
                    "integer" => {
                        v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0)
                    }
                    "array" => v.is_array(),
                    "object" => v.is_object(),
                    _ => panic!("type {t}"),
                };
                if !types.iter().any(|t| fits(t)) {
                    return Err(format!("{at}: {v} is not {types:?}"));
                }
            }
            "enum" => {
                if !kw.as_array().unwrap().contains(v) {
                    return Err(format!("{at}: {v} not in {kw}"));
                }
            }
            "const" => {
                if kw != v {
                    return Err(format!("{at}: {v} is not {kw}"));
                }
            }
            "minimum" | "maximum" => {
                if let (Some(x), Some(bound)) = (v.as_f64(), kw.as_f64()) {
                    if (k == "minimum" && x < bound) || (k == "maximum" && x > bound) {
                        return Err(format!("{at}: {v} beyond {k} {kw}"));
                    }
                }
            }
            "properties" => {
                if let Value::Object(obj) = v {
                    for (key, sub) in kw.as_object().unwrap() {
                        if let Some(x) = obj.get(key) {
                            validate(x, sub, root, &format!("{at}.{key}"))?;
                        }
                    }
                }
            }
            "required" => {
                if let Value::Object(obj) = v {
                    for key in kw.as_array().unwrap() {
                        if !obj.contains_key(key.as_str().unwrap()) {
                            return Err(format!("{at}: {key} is missing"));
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Value::Object(obj) = v {
                    let known = m.get("properties").and_then(Value::as_object);
                    for (key, x) in obj {
                        if !known.is_some_and(|p| p.contains_key(key)) {
                            validate(x, kw, root, &format!("{at}.{key}"))?;
                        }
                    }
                }
            }
            "items" => {
                if let Value::Array(items) = v {
                    for (i, x) in items.iter().enumerate() {
                        validate(x, kw, root, &format!("{at}[{i}]"))?;
                    }
                }
            }
            "anyOf" | "oneOf" => {
                let fits = kw
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|b| validate(v, b, root, at).is_ok())
                    .count();
                if fits == 0 || (k == "oneOf" && fits > 1) {
                    return Err(format!("{at}: {v} fits {fits} of {k}"));
                }
            }
            _ => panic!("the validator does not know {k}"),
        }
    }
    Ok(())
}

// ----- read-back: replies written to the outline ----------------------------------------

/// A type as the outline writes it, parsed back from the prompt's text.
#[derive(Debug, Clone)]
enum Shape {
    String,
    Number,
    Integer,
    Boolean,
    Null,
    Any,
    Literal(Value),
    Array(Box<Shape>),
    Tuple(Vec<Shape>),
    /// Properties (key, may be left out, shape) and the map's values.
    Object(Vec<(String, bool, Shape)>, Option<Box<Shape>>),
    Union(Vec<Shape>),
}

/// Parses the outline after the instruction line: comments dropped, then
/// TypeScript's type syntax as `prompt` writes it.
fn parse_outline(prompt: &str) -> Shape {
    let (first, outline) = prompt.split_once('\n').expect("two parts");
    assert_eq!(first, "Answer with one JSON value in this shape:");
    let mut tokens = Vec::new();
    for line in outline.lines() {
        let mut chars = line.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                ' ' => {}
                '/' if line[i..].starts_with("//") => break,
                '{' | '}' | '[' | ']' | '(' | ')' | '|' | ':' | ',' | '?' => {
                    tokens.push(c.to_string())
                }
                '"' => {
                    let mut end = i + 1;
                    let mut escaped = false;
                    for (j, d) in chars.by_ref() {
                        end = j;
                        if escaped {
                            escaped = false;
                        } else if d == '\\' {
                            escaped = true;
                        } else if d == '"' {
                            break;
                        }
                    }
                    tokens.push(line[i..=end].to_owned());
                }
                _ => {
                    let mut end = i + c.len_utf8();
                    while let Some(&(j, d)) = chars.peek() {
                        if d.is_alphanumeric() || d == '_' || d == '.' || d == '-' {
                            end = j + d.len_utf8();
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    tokens.push(line[i..end].to_owned());
                }
            }
        }
    }
    let mut p = Parser { tokens, at: 0 };
    let shape = p.union();
    assert_eq!(
        p.at,
        p.tokens.len(),
        "the whole outline is read: {:?}",
        &p.tokens[p.at..]
    );
    shape
}

struct Parser {
    tokens: Vec<String>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &str {
        self.tokens.get(self.at).map_or("", String::as_str)
    }

    fn eat(&mut self, t: &str) -> bool {
        let hit = self.peek() == t;
        if hit {
            self.at += 1;
        }
        hit
    }

    fn expect(&mut self, t: &str) {
        assert!(self.eat(t), "expected {t} at {:?}", &self.tokens[self.at..]);
    }

    fn union(&mut self) -> Shape {
        self.eat("|");
        let mut branches = vec![self.postfix()];
        while self.eat("|") {
            branches.push(self.postfix());
        }
        if branches.len() == 1 {
            branches.pop().unwrap()
        } else {
            Shape::Union(branches)
        }
    }

    fn postfix(&mut self) -> Shape {
        let mut shape = self.primary();
        while self.peek() == "[" && self.tokens.get(self.at + 1).map(String::as_str) == Some("]") {
            self.at += 2;
            shape = Shape::Array(Box::new(shape));
        }
        shape
    }

    fn primary(&mut self) -> Shape {
        let t = self.tokens[self.at].clone();
        self.at += 1;
        match t.as_str() {
            "{" => {
                let mut props = Vec::new();
                let mut rest = None;
                while !self.eat("}") {
                    if self.eat("[") {
                        self.expect("key");
                        self.expect(":");
                        self.expect("string");
                        self.expect("]");
                        self.expect(":");
                        rest = Some(Box::new(self.union()));
                    } else {
                        let key: String =
                            serde_json::from_str(&self.tokens[self.at]).expect("a quoted key");
                        self.at += 1;
                        let optional = self.eat("?");
                        self.expect(":");
                        props.push((key, optional, self.union()));
                    }
                    self.eat(",");
                }
                Shape::Object(props, rest)
            }
            "[" => {
                let mut items = Vec::new();
                while !self.eat("]") {
                    items.push(self.union());
                    self.eat(",");
                }
                Shape::Tuple(items)
            }
            "(" => {
                let inner = self.union();
                self.expect(")");
                inner
            }
            "string" => Shape::String,
            "number" => Shape::Number,
            "integer" => Shape::Integer,
            "boolean" => Shape::Boolean,
            "null" => Shape::Null,
            "any" => Shape::Any,
            literal => Shape::Literal(
                serde_json::from_str(literal).unwrap_or_else(|_| panic!("token {literal}")),
            ),
        }
    }
}

/// Replies written to the outline: every key that may be left out is left
/// out or written, every union takes any branch.
fn written_to(shape: &Shape) -> BoxedStrategy<Value> {
    match shape {
        Shape::String => "[a-z ]{0,8}".prop_map(Value::from).boxed(),
        Shape::Number => decimal(10_000).prop_map(Value::from).boxed(),
        // Small counts, as a model writes them (the outline shows no bounds).
        Shape::Integer => (0..=100u64).prop_map(Value::from).boxed(),
        Shape::Boolean => any::<bool>().prop_map(Value::from).boxed(),
        Shape::Null | Shape::Any => Just(Value::Null).boxed(),
        Shape::Literal(v) => Just(v.clone()).boxed(),
        Shape::Array(item) => proptest::collection::vec(written_to(item), 0..3)
            .prop_map(Value::Array)
            .boxed(),
        Shape::Tuple(items) => items
            .iter()
            .map(written_to)
            .collect::<Vec<_>>()
            .prop_map(Value::Array)
            .boxed(),
        Shape::Object(props, rest) => {
            let members: Vec<BoxedStrategy<Option<(String, Value)>>> = props
                .iter()
                .map(|(key, optional, shape)| {
                    let key = key.clone();
                    let value = written_to(shape);
                    if *optional {
                        proptest::option::of(value)
                            .prop_map(move |v| v.map(|v| (key.clone(), v)))
                            .boxed()
                    } else {
                        value.prop_map(move |v| Some((key.clone(), v))).boxed()
                    }
                })
                .collect();
            let extra = match rest {
                Some(r) => {
                    proptest::collection::btree_map("[a-z]{1,4}", written_to(r), 0..3).boxed()
                }
                None => Just(BTreeMap::new()).boxed(),
            };
            (members, extra)
                .prop_map(|(members, extra)| {
                    let mut obj: Map<String, Value> = members.into_iter().flatten().collect();
                    obj.extend(extra);
                    Value::Object(obj)
                })
                .boxed()
        }
        Shape::Union(branches) => {
            proptest::strategy::Union::new(branches.iter().map(written_to)).boxed()
        }
    }
}

/// Replies written exactly to `T`'s outline decode into `T`, and into what
/// serde_json itself reads from them (the outline asks for nothing the type
/// refuses, and nothing only the decoder's coercions would accept).
fn outline_reads_back<T>(cases: u32)
where
    T: serde::de::DeserializeOwned + JsonSchema + PartialEq + std::fmt::Debug,
{
    let shape = parse_outline(&prompt::<T>());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases,
        ..ProptestConfig::default()
    });
    runner
        .run(&written_to(&shape), |reply| {
            let text = serde_json::to_string_pretty(&reply).unwrap();
            let ours: T = serde_llm::from_llm_str(&text)
                .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            let theirs: T = serde_json::from_str(&text)
                .map_err(|e| TestCaseError::fail(format!("serde_json, {text}: {e}")))?;
            prop_assert_eq!(ours, theirs);
            Ok(())
        })
        .unwrap();
}

#[test]
fn replies_written_to_the_outline_decode() {
    outline_reads_back::<Triage>(300);
    outline_reads_back::<Quiz>(300);
    outline_reads_back::<Action>(100);
    outline_reads_back::<Flattened>(100);
}

#[test]
fn the_outline_parser_reads_what_prompt_writes() {
    let Shape::Object(props, None) = parse_outline(&prompt::<Quiz>()) else {
        panic!()
    };
    let keys: Vec<(&str, bool)> = props.iter().map(|(k, o, _)| (k.as_str(), *o)).collect();
    assert_eq!(
        keys,
        [("answer", false), ("confidence", false), ("sources", true)]
    );
    assert!(
        matches!(&props[2].2, Shape::Union(bs) if matches!(bs[..], [Shape::Array(_), Shape::Null]))
    );
}
