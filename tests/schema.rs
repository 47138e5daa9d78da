//! Conformance with json_repair's schema-guided repair, through typed decodes.
//!
//! The typed cases of `tests/corpus/json_repair.jsonl` (mangiucugna/json_repair,
//! Python, MIT; the licence and the extraction method are in
//! `tests/corpus/README.md`) are the ones `tests/corpus.rs` leaves out: every
//! `kind: schema` case, and every `kind: throws` case whose options carry a
//! `schema` or a `schema_repair_mode`. json_repair takes a JSON Schema at run
//! time; we take a Rust type. So each distinct schema is translated by hand
//! into the Rust types a user would write for it (below, each beside its
//! schema), the input is decoded with [`serde_llm::from_llm_str`] into that
//! type, and the value is turned back into JSON with `serde_json::to_value`
//! and compared with the peer's expected value, numbers by value (as
//! `tests/corpus.rs` compares). A `throws` case agrees when we return an error.
//!
//! Translation rules: a required property is a plain field; an optional one
//! is an `Option` that is left out when `None`; a `default` is
//! `#[serde(default = "…")]`; integer → `i64`, number → `f64`; an object
//! without properties is a `serde_json::Map`; integer-valued
//! `additionalProperties`/`patternProperties` are a `BTreeMap<String, i64>`;
//! `additionalProperties: false` is a struct (serde ignores unknown keys);
//! `anyOf [X, null]` is `Option<X>`; `type: [object, array]` is an untagged
//! enum, array first; `const` is a plain field of the const's type.
//! `pattern` and `minItems` cannot be said in serde (noted where they occur).
//! Schemas that describe no type (a circular or non-string `$ref`, an unknown
//! type name, `{}`, none at all) decode into `serde_json::Value`.
//!
//! json_repair has two schema modes (`standard` and `salvage`) that answer the
//! same input differently; we have one. Cases where we answer differently on
//! purpose are listed, with the reason, in `tests/corpus/schema_differences.txt`;
//! this test fails when a listed case starts to agree or an unlisted case
//! disagrees.

mod common;

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

// ----- the schemas, as Rust types ----------------------------------------------

/// 342: every JSON type, all required.
#[derive(Debug, Deserialize, Serialize)]
struct AllTypes {
    text: String,
    count: i64,
    ratio: f64,
    flag: bool,
    items: Vec<String>,
    payload: Map<String, Value>,
    nothing: (),
}

/// 343: a required property that also has a default.
#[derive(Debug, Deserialize, Serialize)]
struct RequiredWithDefault {
    #[serde(default = "one")]
    required_value: i64,
}

fn one() -> i64 {
    1
}

/// 344: an optional property with a default.
#[derive(Debug, Deserialize, Serialize)]
struct OptionalWithDefault {
    #[serde(default = "not_applicable")]
    note: String,
}

fn not_applicable() -> String {
    "n/a".to_owned()
}

/// 346, 352, 370, 371, 449.
#[derive(Debug, Deserialize, Serialize)]
struct IntValue {
    value: i64,
}

/// 350, 351: `value` is required but may be null (`anyOf [array, null]`);
/// serde lets a missing `Option` field be `None`.
#[derive(Debug, Deserialize, Serialize)]
struct ItemsOrNull {
    value: Option<Vec<NamedItem>>,
}

/// `$defs/Item`. The schema's `pattern: ^example$` on `name` cannot be said in
/// serde: any string is accepted.
#[derive(Debug, Deserialize, Serialize)]
struct NamedItem {
    name: String,
}

/// 353-358.
#[derive(Debug, Deserialize, Serialize)]
struct Summary {
    summary: VerdictConfidence,
}

#[derive(Debug, Deserialize, Serialize)]
struct VerdictConfidence {
    verdict: String,
    confidence: String,
}

/// 359-364, 367-369.
#[derive(Debug, Deserialize, Serialize)]
struct StringItems {
    items: Vec<String>,
}

/// 365, 366.
#[derive(Debug, Deserialize, Serialize)]
struct VerdictSummary {
    summary: Verdict,
}

#[derive(Debug, Deserialize, Serialize)]
struct Verdict {
    verdict: String,
}

/// 372.
#[derive(Debug, Deserialize, Serialize)]
struct TextItems {
    items: Vec<TextItem>,
}

/// `additionalProperties: false`: serde ignores (drops) unknown keys.
#[derive(Debug, Deserialize, Serialize)]
struct TextItem {
    text: String,
    id: i64,
}

/// 378-415: pydantic's `SchemaModel(a: str, b: str)`.
#[derive(Debug, Deserialize, Serialize)]
struct SchemaModel {
    a: String,
    b: String,
}

/// 416-422.
#[derive(Debug, Deserialize, Serialize)]
struct Flag {
    flag: bool,
}

/// 423-425.
#[derive(Debug, Deserialize, Serialize)]
struct ScoredItems {
    items: Vec<Scored>,
}

#[derive(Debug, Deserialize, Serialize)]
struct Scored {
    id: i64,
    score: f64,
}

/// 428, 429, 437, 438.
#[derive(Debug, Deserialize, Serialize)]
struct NameTags {
    name: String,
    tags: Vec<String>,
}

/// 434: `type: [object, array]` with string items and no properties.
#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
enum StringsOrObject {
    Array(Vec<String>),
    Object(Map<String, Value>),
}

/// 435.
#[derive(Debug, Deserialize, Serialize)]
struct Count {
    count: i64,
}

/// 439, 440: `type: [object, array]`, string items or a required `name`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
enum StringsOrNamed {
    Array(Vec<String>),
    Object(Named),
}

/// The schema's `pattern: ^a+$` on `name` cannot be said in serde.
#[derive(Debug, Deserialize, Serialize)]
struct Named {
    name: String,
}

/// 441, 442: `type: [object, array]`, integer items or a point.
#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
enum IntsOrPoint {
    Array(Vec<i64>),
    Object(Point),
}

#[derive(Debug, Deserialize, Serialize)]
struct Point {
    x: i64,
    y: i64,
}

/// 443-445.
#[derive(Debug, Deserialize, Serialize)]
struct Card {
    /// `const: "food_sport_card"`: any string is accepted.
    r#type: String,
    content: CardContent,
}

#[derive(Debug, Deserialize, Serialize)]
struct CardContent {
    food: Vec<String>,
    sports: Vec<String>,
}

/// 446: required properties with no `type`, each typed by what its schema
/// does say.
#[derive(Debug, Deserialize, Serialize)]
struct Inferred {
    /// `{"default": "x"}`: any value, `"x"` when missing.
    #[serde(default = "x")]
    from_default: Value,
    /// `{"const": 7}`: any integer is accepted.
    from_const: i64,
    /// `{"enum": ["first", "second"]}`.
    from_enum: FirstOrSecond,
    /// `{"items": {"type": "integer"}}`: an array by its shape.
    from_array_shape: Vec<i64>,
    /// `{"properties": {"nested": {"type": "string"}}}`: an object by its shape.
    from_object_shape: Nested,
}

fn x() -> Value {
    Value::String("x".to_owned())
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
enum FirstOrSecond {
    First,
    Second,
}

#[derive(Debug, Deserialize, Serialize)]
struct Nested {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nested: Option<String>,
}

/// 447: a required property with no property schema (any value).
#[derive(Debug, Deserialize, Serialize)]
struct MissingAny {
    missing: Value,
}

/// 448: a required property whose schema is `true` (any value).
#[derive(Debug, Deserialize, Serialize)]
struct PayloadAny {
    payload: Value,
}

/// 450.
#[derive(Debug, Deserialize, Serialize)]
struct Name {
    name: String,
}

/// 452, 456: the items of an array.
#[derive(Debug, Deserialize, Serialize)]
struct A {
    a: i64,
}

/// 454: `additionalProperties: false`, `a` optional.
#[derive(Debug, Deserialize, Serialize)]
struct OnlyA {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    a: Option<i64>,
}

// ----- schema → type ---------------------------------------------------------

/// Decodes `input` into `T`, and gives the value back as JSON.
fn via<T: DeserializeOwned + Serialize>(input: &str) -> Result<Value, serde_llm::Error> {
    let value: T = serde_llm::from_llm_str(input)?;
    Ok(serde_json::to_value(value).expect("a decoded value serializes"))
}

type Decode = fn(&str) -> Result<Value, serde_llm::Error>;

/// Each distinct schema of the corpus (as JSON, compared by value) and the
/// type it is decoded into.
const SCHEMAS: &[(&str, Decode)] = &[
    (
        r#"{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"},"ratio":{"type":"number"},"flag":{"type":"boolean"},"items":{"type":"array","items":{"type":"string"}},"payload":{"type":"object"},"nothing":{"type":"null"}},"required":["text","count","ratio","flag","items","payload","nothing"]}"#,
        via::<AllTypes>,
    ),
    (
        r#"{"type":"object","properties":{"required_value":{"type":"integer","default":1}},"required":["required_value"]}"#,
        via::<RequiredWithDefault>,
    ),
    (
        r#"{"type":"object","properties":{"note":{"type":"string","default":"n/a"}}}"#,
        via::<OptionalWithDefault>,
    ),
    // 345: the empty schema (any value).
    (r#"{}"#, via::<Value>),
    (
        r#"{"type":"object","properties":{"value":{"type":"integer"}},"required":["value"]}"#,
        via::<IntValue>,
    ),
    (r#"{"type":"integer"}"#, via::<i64>),
    (r#"{"type":"string"}"#, via::<String>),
    // 349: the pattern cannot be said in serde: any string.
    (r#"{"type":"string","pattern":"^a+$"}"#, via::<String>),
    (
        r##"{"$defs":{"Item":{"type":"object","properties":{"name":{"type":"string","pattern":"^example$"}},"required":["name"]}},"type":"object","properties":{"value":{"anyOf":[{"type":"array","items":{"$ref":"#/$defs/Item"}},{"type":"null"}]}},"required":["value"]}"##,
        via::<ItemsOrNull>,
    ),
    (
        r#"{"type":"object","properties":{"summary":{"type":"object","properties":{"verdict":{"type":"string"},"confidence":{"type":"string"}},"required":["verdict","confidence"]}},"required":["summary"]}"#,
        via::<Summary>,
    ),
    (
        r#"{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"}}},"required":["items"]}"#,
        via::<StringItems>,
    ),
    (
        r#"{"type":"object","properties":{"summary":{"type":"object","properties":{"verdict":{"type":"string"}},"required":["verdict"]}},"required":["summary"]}"#,
        via::<VerdictSummary>,
    ),
    (
        r#"{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"text":{"type":"string"},"id":{"type":"integer"}},"required":["text","id"],"additionalProperties":false}}},"required":["items"]}"#,
        via::<TextItems>,
    ),
    // 376: a `$ref` to itself describes no type.
    (
        r##"{"$ref":"#/definitions/a","definitions":{"a":{"$ref":"#/definitions/a"}}}"##,
        via::<Value>,
    ),
    // 377: a `$ref` that is not a string describes no type.
    (r#"{"$ref":123}"#, via::<Value>),
    (
        r#"{"properties":{"a":{"title":"A","type":"string"},"b":{"title":"B","type":"string"}},"required":["a","b"],"title":"SchemaModel","type":"object"}"#,
        via::<SchemaModel>,
    ),
    (
        r#"{"type":"object","properties":{"flag":{"type":"boolean"}},"required":["flag"]}"#,
        via::<Flag>,
    ),
    (
        r#"{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"score":{"type":"number"}},"required":["id","score"]}}},"required":["items"]}"#,
        via::<ScoredItems>,
    ),
    // 426: `minItems` cannot be said in serde.
    (
        r#"{"type":"array","items":{"type":"integer"},"minItems":2}"#,
        via::<Vec<i64>>,
    ),
    // 427: `bogus` is no type.
    (r#"{"type":"array","items":{"type":"bogus"}}"#, via::<Value>),
    (
        r#"{"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["name","tags"]}"#,
        via::<NameTags>,
    ),
    (r#"{"type":"object"}"#, via::<Map<String, Value>>),
    (
        r#"{"type":["object","array"],"items":{"type":"string"}}"#,
        via::<StringsOrObject>,
    ),
    (
        r#"{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}"#,
        via::<Count>,
    ),
    (
        r#"{"type":["object","array"],"properties":{"name":{"type":"string","pattern":"^a+$"}},"required":["name"],"items":{"type":"string"}}"#,
        via::<StringsOrNamed>,
    ),
    (
        r#"{"type":["object","array"],"properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"],"items":{"type":"integer"}}"#,
        via::<IntsOrPoint>,
    ),
    (
        r#"{"type":"object","properties":{"type":{"const":"food_sport_card"},"content":{"type":"object","required":["food","sports"],"properties":{"food":{"type":"array","items":{"type":"string"}},"sports":{"type":"array","items":{"type":"string"}}}}},"required":["type","content"]}"#,
        via::<Card>,
    ),
    (
        r#"{"type":"object","properties":{"from_default":{"default":"x"},"from_const":{"const":7},"from_enum":{"enum":["first","second"]},"from_array_shape":{"items":{"type":"integer"}},"from_object_shape":{"properties":{"nested":{"type":"string"}}}},"required":["from_default","from_const","from_enum","from_array_shape","from_object_shape"]}"#,
        via::<Inferred>,
    ),
    (
        r#"{"type":"object","properties":{},"required":["missing"]}"#,
        via::<MissingAny>,
    ),
    (
        r#"{"type":"object","properties":{"payload":true},"required":["payload"]}"#,
        via::<PayloadAny>,
    ),
    (
        r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
        via::<Name>,
    ),
    // 451: a `schema_repair_mode` with no schema at all (any value).
    (r#"null"#, via::<Value>),
    (
        r#"{"type":"array","items":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}}"#,
        via::<Vec<A>>,
    ),
    (
        r#"{"type":"object","patternProperties":{"^x":{"type":"integer"},"1$":{"type":"integer"}}}"#,
        via::<BTreeMap<String, i64>>,
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}"#,
        via::<OnlyA>,
    ),
    (
        r#"{"type":"object","additionalProperties":{"type":"integer"}}"#,
        via::<BTreeMap<String, i64>>,
    ),
];

/// Decodes `input` into the type translated from `schema` (`null`: none).
fn decode(schema: &Value, input: &str) -> Result<Value, serde_llm::Error> {
    let mut found = SCHEMAS
        .iter()
        .filter(|(text, _)| serde_json::from_str::<Value>(text).expect("schema JSON") == *schema);
    let (_, decode) = found
        .next()
        .unwrap_or_else(|| panic!("no Rust type for the schema {schema}"));
    assert!(found.next().is_none(), "two types for the schema {schema}");
    decode(input)
}

// ----- the harness (as tests/corpus.rs) --------------------------------------

struct Case {
    id: String,
    kind: String,
    schema: Value,
    input: String,
    expected: Option<Value>,
}

/// The typed `schema` and `throws` cases of a corpus file.
fn load(name: &str) -> Vec<Case> {
    common::corpus(name)
        .into_iter()
        .filter(|v| {
            let typed = v["options"].get("schema").is_some()
                || v["options"].get("schema_repair_mode").is_some();
            typed && matches!(v["kind"].as_str(), Some("schema" | "throws"))
        })
        .map(|v| {
            let id = v["id"].as_str().unwrap().to_owned();
            if let Some(assertion) = v.get("assertion").and_then(Value::as_str) {
                assert_eq!(assertion, "equals", "{id}: unexpected assertion");
            }
            Case {
                id,
                kind: v["kind"].as_str().unwrap().to_owned(),
                schema: v["options"].get("schema").cloned().unwrap_or(Value::Null),
                input: v["input"].as_str().unwrap().to_owned(),
                expected: v.get("expected_value").cloned(),
            }
        })
        .collect()
}

/// Whether our answer agrees with the peer's, and what our answer was.
fn run(case: &Case) -> (bool, String) {
    let ours = decode(&case.schema, &case.input);
    let shown = match &ours {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    };
    let agree = match (case.kind.as_str(), &case.expected) {
        ("throws", _) => ours.is_err(),
        (_, Some(expected)) => ours.as_ref().is_ok_and(|v| common::same(v, expected)),
        // No expected value: the peer gives up (returns "").
        (_, None) => ours.is_err(),
    };
    (agree, shown)
}

fn conformance(file: &str) {
    let listed = common::differences("schema_differences.txt");
    let cases = load(file);
    let mut unexpected = Vec::new();
    for id in listed.keys() {
        if !cases.iter().any(|c| c.id == *id) {
            unexpected.push(format!(
                "{id} is listed but is no typed case of {file}; remove it from schema_differences.txt"
            ));
        }
    }
    let (mut agreed, mut schema_cases, mut schema_agreed) = (0, 0, 0);
    for case in &cases {
        let (agree, shown) = run(case);
        agreed += usize::from(agree);
        if case.kind == "schema" {
            schema_cases += 1;
            schema_agreed += usize::from(agree);
        }
        let list = "schema_differences.txt";
        unexpected.extend(common::unexpected(&listed, list, &case.id, agree, || {
            format!(
                "    input:    {:?}\n    schema:   {}\n    expected: {}\n    ours:     {}",
                case.input,
                case.schema,
                case.expected
                    .as_ref()
                    .map_or_else(|| format!("({})", case.kind), Value::to_string),
                shown
            )
        }));
    }
    println!(
        "{file} schema: {agreed}/{} agree; schema cases {schema_agreed}/{schema_cases}, throws cases {}/{}",
        cases.len(),
        agreed - schema_agreed,
        cases.len() - schema_cases
    );
    common::assert_none_unexpected(&unexpected);
}

#[test]
fn json_repair_python_schema() {
    conformance("json_repair.jsonl");
}
