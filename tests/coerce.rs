//! Schema-aligned coercion, strict mode, per-kind policy and acceptance tests.
//!
//! Every coercion is checked both ways: accepted (with the exact value and
//! the exact record in the report: kind, JSON path, as written, as used) and
//! refused in strict mode with a clear error. Coercions are exercised at the
//! root, at nested paths, inside `Vec`s and `Option`s; untagged enums and
//! `serde_json::Value` must receive values as written.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{json, Value};
use serde_llm::{from_llm_str, CoercionKind, Decoder, Error, ErrorKind, Fix, RepairKind, Report};

// ----- helpers ---------------------------------------------------------------

/// (kind, path, written, used) for each coercion in the report.
type Records = Vec<(CoercionKind, String, String, String)>;

fn records(report: &Report) -> Records {
    report
        .coercions
        .iter()
        .map(|c| (c.kind, c.path.clone(), c.written.clone(), c.used.clone()))
        .collect()
}

fn rec(kind: CoercionKind, path: &str, written: &str, used: &str) -> Records {
    vec![(kind, path.into(), written.into(), used.into())]
}

/// Decodes with the default decoder, returning the value and its coercions.
fn coerced<'de, T: Deserialize<'de>>(text: &'de str) -> (T, Records) {
    let (v, report) = Decoder::new()
        .decode_with_report(text)
        .unwrap_or_else(|e| panic!("{text:?}: {e:#}"));
    (v, records(&report))
}

/// The error strict mode gives.
fn strict_err<'de, T: Deserialize<'de> + std::fmt::Debug>(text: &'de str) -> Error {
    match Decoder::strict().decode::<T>(text) {
        Ok(v) => panic!("strict mode accepted {text:?} as {v:?}"),
        Err(e) => e,
    }
}

fn err<'de, T: Deserialize<'de> + std::fmt::Debug>(text: &'de str) -> Error {
    match from_llm_str::<T>(text) {
        Ok(v) => panic!("accepted {text:?} as {v:?}"),
        Err(e) => e,
    }
}

use CoercionKind::*;

// ----- numbers ---------------------------------------------------------------

#[derive(Debug, PartialEq, Deserialize)]
struct Score {
    score: f64,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Count {
    n: u32,
}

#[test]
fn strings_holding_numbers_are_numbers() {
    for (text, want, written, used) in [
        (r#"{"score": "42"}"#, 42.0, r#""42""#, "42"),
        (r#"{"score": " 42 "}"#, 42.0, r#"" 42 ""#, "42"),
        (r#"{"score": "4.5e3"}"#, 4500.0, r#""4.5e3""#, "4.5e3"),
        (r#"{"score": "1,234"}"#, 1234.0, r#""1,234""#, "1234"),
        (r#"{"score": "-7"}"#, -7.0, r#""-7""#, "-7"),
        (
            r#"{"score": "-1,234,567.25"}"#,
            -1234567.25,
            r#""-1,234,567.25""#,
            "-1234567.25",
        ),
    ] {
        let (v, r) = coerced::<Score>(text);
        assert_eq!(v, Score { score: want }, "{text}");
        assert_eq!(r, rec(StringToNumber, "$.score", written, used), "{text}");
        let e = strict_err::<Score>(text);
        assert_eq!(e.kind(), ErrorKind::Data);
        assert_eq!(e.path(), "$.score");
    }
    // Integers, and integers spelled as floats inside the string.
    let (v, r) = coerced::<Count>(r#"{"n": "4.5e3"}"#);
    assert_eq!(v, Count { n: 4500 });
    assert_eq!(r, rec(StringToNumber, "$.n", r#""4.5e3""#, "4500"));
    let (v, _) = coerced::<Count>(r#"{"n": "1,234"}"#);
    assert_eq!(v, Count { n: 1234 });
    assert_eq!(coerced::<i64>(r#""-7""#).0, -7);
    assert_eq!(
        coerced::<u128>(r#""340282366920938463463374607431768211455""#).0,
        u128::MAX
    );
    assert_eq!(coerced::<i8>(r#""-128""#).0, -128);
}

#[test]
fn a_string_that_is_not_a_number_is_an_error_never_zero() {
    for text in [
        r#"{"score": "high"}"#,
        r#"{"score": ""}"#,
        r#"{"score": "1,23"}"#,
        r#"{"score": "12 apples"}"#,
        r#"{"score": "0x10"}"#,
    ] {
        let e = err::<Score>(text);
        assert_eq!(e.kind(), ErrorKind::Data, "{text}");
        assert_eq!(e.path(), "$.score", "{text}");
        assert!(
            e.message().starts_with("invalid type: string"),
            "{text}: {e}"
        );
    }
    // Out of range for the type: the type's error, not a wrap.
    let e = err::<Count>(r#"{"n": "-1"}"#);
    assert_eq!(e.message(), "invalid value: integer `-1`, expected u32");
    let e = err::<u8>(r#""300""#);
    assert_eq!(e.message(), "invalid value: integer `300`, expected u8");
}

#[test]
fn integral_floats_are_integers() {
    for (text, want, written) in [
        (r#"{"n": 42.0}"#, 42, "42.0"),
        (r#"{"n": 4.2e1}"#, 42, "4.2e1"),
        (r#"{"n": 4200e-2}"#, 42, "4200e-2"),
        (r#"{"n": 1E3}"#, 1000, "1E3"),
    ] {
        let (v, r) = coerced::<Count>(text);
        assert_eq!(v, Count { n: want }, "{text}");
        assert_eq!(r, rec(FloatToInteger, "$.n", written, &want.to_string()));
        let e = strict_err::<Count>(text);
        assert!(
            e.message().starts_with("invalid type: floating point"),
            "{e}"
        );
    }
    // Exact beyond f64's 53 bits.
    assert_eq!(
        coerced::<u64>("9007199254740993.0").0,
        9_007_199_254_740_993
    );
    assert_eq!(coerced::<i64>("-3.0").0, -3);
}

#[test]
fn a_fraction_is_not_an_integer_unless_rounding_is_allowed() {
    let e = err::<Count>(r#"{"n": 42.5}"#);
    assert_eq!(
        e.message(),
        "invalid type: floating point `42.5`, expected u32"
    );
    assert_eq!(e.path(), "$.n");
    let rounding = Decoder::new().allow(RoundFloat);
    let (v, report) = rounding
        .decode_with_report::<Count>(r#"{"n": 42.5}"#)
        .unwrap();
    assert_eq!(v, Count { n: 43 });
    assert_eq!(records(&report), rec(RoundFloat, "$.n", "42.5", "43"));
    assert_eq!(rounding.decode::<i32>("-2.5").unwrap(), -3);
    assert_eq!(rounding.decode::<u32>(r#""7.4""#).unwrap(), 7);
    // Rounding does not make a negative number unsigned.
    assert!(rounding.decode::<u32>("-0.7").is_err());
}

// ----- strings ---------------------------------------------------------------

#[derive(Debug, PartialEq, Deserialize)]
struct Label {
    label: String,
}

#[test]
fn numbers_and_bools_are_strings_where_strings_are_wanted() {
    for (text, want, written) in [
        (r#"{"label": 42}"#, "42", "42"),
        (r#"{"label": -1.5e3}"#, "-1.5e3", "-1.5e3"),
        (r#"{"label": true}"#, "true", "true"),
        (r#"{"label": false}"#, "false", "false"),
    ] {
        let (v, r) = coerced::<Label>(text);
        assert_eq!(v.label, want, "{text}");
        assert_eq!(r, rec(ToString, "$.label", written, &format!("\"{want}\"")));
        let e = strict_err::<Label>(text);
        assert_eq!(e.kind(), ErrorKind::Data);
        assert_eq!(e.path(), "$.label");
    }
    // Borrowed straight from the reply when the type borrows.
    #[derive(Deserialize)]
    struct Borrowed<'a> {
        label: &'a str,
    }
    let text = r#"{"label": 12345}"#;
    let v: Borrowed = from_llm_str(text).unwrap();
    assert_eq!(v.label, "12345");
    assert!(text.as_bytes().as_ptr_range().contains(&v.label.as_ptr()));
}

#[test]
fn objects_and_arrays_are_strings_only_as_their_text() {
    // By default, an object or array where a string is wanted is its text
    // as written (`JsonToString`); a list of one value is that value
    // (`SequenceToOne`).
    for (text, label, kind) in [
        (r#"{"label": {"a":  1}}"#, r#"{"a":  1}"#, JsonToString),
        (r#"{"label": [1, 2]}"#, "[1, 2]", JsonToString),
        (r#"{"label": ["a"]}"#, "a", SequenceToOne),
    ] {
        let (v, records) = coerced::<Label>(text);
        assert_eq!(v.label, label);
        assert_eq!(records[0].0, kind);
        assert_eq!(records[0].1, "$.label");
    }
    let denied = Decoder::new().deny(JsonToString).deny(SequenceToOne);
    for (text, message) in [
        (
            r#"{"label": {"a": 1}}"#,
            "invalid type: map, expected a string",
        ),
        (
            r#"{"label": [1]}"#,
            "invalid type: sequence, expected a string",
        ),
    ] {
        let e = denied.decode::<Label>(text).unwrap_err();
        assert_eq!(e.message(), message);
        assert_eq!(e.path(), "$.label");
    }
    let e = err::<Label>(r#"{"label": null}"#);
    assert_eq!(e.message(), "invalid type: null, expected a string");
    assert_eq!(e.path(), "$.label");
    // `null` as the text "null" only when asked for.
    let d = Decoder::new().allow(NullToString);
    let (v, report) = d.decode_with_report::<Label>(r#"{"label": null}"#).unwrap();
    assert_eq!(v.label, "null");
    assert_eq!(
        records(&report),
        rec(NullToString, "$.label", "null", "\"null\"")
    );
    // An Option still takes null as None.
    assert_eq!(d.decode::<Option<String>>("null").unwrap(), None);
}

// ----- bools -----------------------------------------------------------------

#[derive(Debug, PartialEq, Deserialize)]
struct Flag {
    flag: bool,
}

#[test]
fn words_and_numbers_are_bools() {
    for (text, want, written) in [
        (r#"{"flag": "true"}"#, true, r#""true""#),
        (r#"{"flag": "False"}"#, false, r#""False""#),
        (r#"{"flag": "yes"}"#, true, r#""yes""#),
        (r#"{"flag": "NO"}"#, false, r#""NO""#),
        (r#"{"flag": 1}"#, true, "1"),
        (r#"{"flag": 0}"#, false, "0"),
        (r#"{"flag": 1.0}"#, true, "1.0"),
        (r#"{"flag": 0.0}"#, false, "0.0"),
    ] {
        let (v, r) = coerced::<Flag>(text);
        assert_eq!(v, Flag { flag: want }, "{text}");
        assert_eq!(
            r,
            rec(ToBool, "$.flag", written, &want.to_string()),
            "{text}"
        );
        let e = strict_err::<Flag>(text);
        assert_eq!(e.path(), "$.flag");
        assert!(e.message().ends_with("expected a boolean"), "{e}");
    }
    for text in [
        r#"{"flag": 2}"#,
        r#"{"flag": "maybe"}"#,
        r#"{"flag": -1}"#,
        r#"{"flag": 0.5}"#,
    ] {
        let e = err::<Flag>(text);
        assert_eq!(e.path(), "$.flag", "{text}");
        assert!(e.message().ends_with("expected a boolean"), "{text}: {e}");
    }
}

// ----- sequences -------------------------------------------------------------

#[derive(Debug, PartialEq, Deserialize)]
struct Tags {
    tags: Vec<String>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

#[test]
fn one_value_where_a_sequence_is_wanted() {
    let (v, r) = coerced::<Tags>(r#"{"tags": "urgent"}"#);
    assert_eq!(v.tags, ["urgent"]);
    assert_eq!(
        r,
        rec(OneToSequence, "$.tags", r#""urgent""#, r#"["urgent"]"#)
    );
    let (v, r) = coerced::<Vec<u32>>("7");
    assert_eq!(v, [7]);
    assert_eq!(r, rec(OneToSequence, "$", "7", "[7]"));
    #[derive(Debug, PartialEq, Deserialize)]
    struct Path {
        points: Vec<Point>,
    }
    let (v, r) = coerced::<Path>(r#"{"points": {"x": 1, "y": 2}}"#);
    assert_eq!(v.points, [Point { x: 1, y: 2 }]);
    assert_eq!(r, rec(OneToSequence, "$.points", "{…}", "[{…}]"));
    // At the root, one object where a sequence is wanted is extraction's
    // business: it gathers the objects in the reply (here one).
    assert_eq!(
        coerced::<Vec<Point>>(r#"{"x": 1, "y": 2}"#),
        (vec![Point { x: 1, y: 2 }], vec![])
    );
    // The element is coerced too.
    let (v, r) = coerced::<Vec<u32>>(r#""7""#);
    assert_eq!(v, [7]);
    assert_eq!(
        r,
        [
            rec(OneToSequence, "$", r#""7""#, r#"["7"]"#),
            rec(StringToNumber, "$", r#""7""#, "7")
        ]
        .concat()
    );
    // A string that is not JSON stays one string, as written.
    let (v, _) = coerced::<Tags>(r#"{"tags": "not json"}"#);
    assert_eq!(v.tags, ["not json"]);
    let (v, _) = coerced::<Tags>(r#"{"tags": "{\"a\": 1}"}"#);
    assert_eq!(v.tags, [r#"{"a": 1}"#]);
    for text in [r#"{"tags": "urgent"}"#, r#"{"tags": 3}"#] {
        let e = strict_err::<Tags>(text);
        assert_eq!(e.path(), "$.tags");
        assert!(e.message().ends_with("expected a sequence"), "{e}");
    }
    // null is no sequence.
    assert_eq!(
        err::<Tags>(r#"{"tags": null}"#).message(),
        "invalid type: null, expected a sequence"
    );
}

#[test]
fn json_written_inside_a_string() {
    let (v, r) = coerced::<Tags>(r#"{"tags": "[\"a\", \"b\"]"}"#);
    assert_eq!(v.tags, ["a", "b"]);
    assert_eq!(
        r,
        rec(
            JsonInString,
            "$.tags",
            r#""[\"a\", \"b\"]""#,
            r#"["a","b"]"#
        )
    );
    // Repaired like any reply.
    let (v, _) = coerced::<Tags>(r#"{"tags": "[a, 'b',]"}"#);
    assert_eq!(v.tags, ["a", "b"]);
    // Double-encoded tool arguments.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Call {
        name: String,
        arguments: Args,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct Args {
        query: String,
        limit: u32,
    }
    let text = r#"{"name": "search", "arguments": "{\"query\": \"rust serde\", \"limit\": 5}"}"#;
    let (v, r) = coerced::<Call>(text);
    assert_eq!(
        v,
        Call {
            name: "search".into(),
            arguments: Args {
                query: "rust serde".into(),
                limit: 5
            }
        }
    );
    assert_eq!(r[0].0, JsonInString);
    assert_eq!(r[0].1, "$.arguments");
    assert_eq!(r[0].3, r#"{"limit":5,"query":"rust serde"}"#);
    // A map too.
    let (v, _) = coerced::<BTreeMap<String, u32>>(r#""{\"a\": 1, \"b\": 2}""#);
    assert_eq!(v, BTreeMap::from([("a".into(), 1), ("b".into(), 2)]));
    // An array where an object is wanted is no object.
    let e = err::<Call>(r#"{"name": "x", "arguments": "[1, 2]"}"#);
    assert_eq!(e.path(), "$.arguments");
    let e = strict_err::<Call>(text);
    assert_eq!(e.path(), "$.arguments");
    assert_eq!(e.message(), "invalid type: string \"{\\\"query\\\": \\\"rust serde\\\", \\\"limit\\\": 5}\", expected struct Args");
}

// ----- enums -----------------------------------------------------------------

#[derive(Debug, PartialEq, Deserialize)]
enum Status {
    Todo,
    InProgress,
    Done,
}

#[derive(Debug, PartialEq, Deserialize)]
enum Shape {
    Circle { r: f64 },
    Label(String),
    Empty,
}

#[test]
fn enum_variants_ignore_case_and_style() {
    for (text, want) in [
        (r#""InProgress""#, Status::InProgress),
        (r#""In Progress""#, Status::InProgress),
        (r#""in_progress""#, Status::InProgress),
        (r#""IN-PROGRESS""#, Status::InProgress),
        (r#""done""#, Status::Done),
        (r#"{"Todo": null}"#, Status::Todo),
        (r#"{"todo": null}"#, Status::Todo),
    ] {
        assert_eq!(coerced::<Status>(text).0, want, "{text}");
    }
    let (_, r) = coerced::<Status>(r#""In Progress""#);
    assert_eq!(
        r,
        rec(EnumVariant, "$", r#""In Progress""#, r#""InProgress""#)
    );
    let (v, r) = coerced::<Vec<Shape>>(r#"[{"circle": {"r": 1}}, {"LABEL": "x"}, "empty"]"#);
    assert_eq!(
        v,
        [
            Shape::Circle { r: 1.0 },
            Shape::Label("x".into()),
            Shape::Empty
        ]
    );
    assert_eq!(
        r,
        [
            rec(EnumVariant, "$[0].circle", r#""circle""#, r#""Circle""#),
            rec(EnumVariant, "$[1].LABEL", r#""LABEL""#, r#""Label""#),
            rec(EnumVariant, "$[2]", r#""empty""#, r#""Empty""#),
        ]
        .concat()
    );
    let e = strict_err::<Status>(r#""in progress""#);
    assert_eq!(
        e.message(),
        "unknown variant `in progress`, expected one of `Todo`, `InProgress`, `Done`"
    );
    let e = err::<Status>(r#""blocked""#);
    assert_eq!(
        e.feedback(),
        r#"$: expected one of "Todo", "InProgress", "Done", got "blocked""#
    );
}

#[test]
fn internally_and_adjacently_tagged_enums_match_their_tags() {
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Tool {
        WebSearch { query: String },
        Calculator { expr: String },
    }
    let (v, r) = coerced::<Vec<Tool>>(
        r#"[{"type": "WebSearch", "query": "rust"}, {"type": "calculator", "expr": "1+1"}, {"type": "Web Search", "query": "serde"}]"#,
    );
    assert_eq!(
        v,
        [
            Tool::WebSearch {
                query: "rust".into()
            },
            Tool::Calculator { expr: "1+1".into() },
            Tool::WebSearch {
                query: "serde".into()
            },
        ]
    );
    assert_eq!(
        r,
        [
            rec(
                EnumVariant,
                "$[0].type",
                r#""WebSearch""#,
                r#""web_search""#
            ),
            rec(
                EnumVariant,
                "$[2].type",
                r#""Web Search""#,
                r#""web_search""#
            ),
        ]
        .concat()
    );
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "t", content = "c")]
    enum Msg {
        Ping,
        Text(String),
    }
    assert_eq!(
        coerced::<Msg>(r#"{"t": "text", "c": "hi"}"#).0,
        Msg::Text("hi".into())
    );
    assert_eq!(coerced::<Msg>(r#"{"t": "PING"}"#).0, Msg::Ping);
    assert!(Decoder::strict()
        .decode::<Msg>(r#"{"t": "text", "c": "hi"}"#)
        .is_err());
}

#[test]
fn an_ambiguous_variant_is_an_error() {
    #[derive(Debug, Deserialize)]
    #[allow(non_camel_case_types)]
    enum Speed {
        Fast_Mode,
        Slow,
        FastMode,
    }
    let e = err::<Speed>(r#""fast mode""#);
    assert_eq!(
        e.message(),
        "ambiguous variant `fast mode`: it could be `Fast_Mode` or `FastMode`"
    );
    // Written exactly, each is itself.
    assert!(matches!(
        coerced::<Speed>(r#""FastMode""#).0,
        Speed::FastMode
    ));
    assert!(matches!(
        coerced::<Speed>(r#""Fast_Mode""#).0,
        Speed::Fast_Mode
    ));
    assert!(matches!(coerced::<Speed>(r#""slow""#).0, Speed::Slow));
}

// ----- struct keys -----------------------------------------------------------

#[derive(Debug, PartialEq, Deserialize)]
struct User {
    user_name: String,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(alias = "mail")]
    email_address: Option<String>,
}

#[test]
fn keys_ignore_case_and_style() {
    let (v, r) = coerced::<User>(r#"{"user_name": "ada"}"#);
    assert_eq!(v.user_name, "ada");
    assert!(r.is_empty());
    for (key, path) in [
        ("userName", "$.userName"),
        ("UserName", "$.UserName"),
        ("USER_NAME", "$.USER_NAME"),
        ("user-name", r#"$["user-name"]"#),
        ("User Name", r#"$["User Name"]"#),
    ] {
        let text = format!(r#"{{"{key}": "ada"}}"#);
        let (v, r) = coerced::<User>(&text);
        assert_eq!(v.user_name, "ada", "{key}");
        assert_eq!(
            r,
            rec(FieldName, path, &format!("\"{key}\""), "\"user_name\""),
            "{key}"
        );
    }
    // An alias is a name of its own, written exactly or in another style.
    let (v, r) = coerced::<User>(r#"{"user_name": "ada", "mail": "a@b.c"}"#);
    assert_eq!(v.email_address.as_deref(), Some("a@b.c"));
    assert!(r.is_empty());
    let (v, _) = coerced::<User>(r#"{"user_name": "ada", "Mail": "a@b.c"}"#);
    assert_eq!(v.email_address.as_deref(), Some("a@b.c"));
    // rename_all: the JSON names are the renamed ones.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Camel {
        first_name: String,
    }
    let (v, r) = coerced::<Camel>(r#"{"first_name": "Ada"}"#);
    assert_eq!(v.first_name, "Ada");
    assert_eq!(
        r,
        rec(
            FieldName,
            "$.first_name",
            r#""first_name""#,
            r#""firstName""#
        )
    );
    let e = strict_err::<User>(r#"{"userName": "ada"}"#);
    assert_eq!(e.message(), "missing field `user_name`");
}

#[test]
fn a_key_in_another_style_for_an_optional_field_is_not_lost() {
    // Valid JSON that serde_json reads without error (the key is unknown to
    // it, the field optional): the value must still land in the field.
    let (v, r) = coerced::<User>(r#"{"user_name": "ada", "displayName": "Ada L."}"#);
    assert_eq!(v.display_name.as_deref(), Some("Ada L."));
    assert_eq!(
        r,
        rec(
            FieldName,
            "$.displayName",
            r#""displayName""#,
            r#""display_name""#
        )
    );
    // And nested, inside a Vec and an Option.
    #[derive(Debug, Deserialize)]
    struct Team {
        members: Vec<User>,
        lead: Option<Box<User>>,
    }
    let (v, r) = coerced::<Team>(
        r#"{"members": [{"user_name": "a"}, {"user_name": "b", "DisplayName": "B"}], "lead": {"user_name": "c", "display-name": "C"}}"#,
    );
    assert_eq!(v.members[1].display_name.as_deref(), Some("B"));
    assert_eq!(v.lead.unwrap().display_name.as_deref(), Some("C"));
    assert_eq!(r[0].1, "$.members[1].DisplayName");
    assert_eq!(r[1].1, "$.lead[\"display-name\"]");
    // Unknown keys that match no field stay ignored, as serde ignores them.
    let (v, r) = coerced::<User>(r#"{"user_name": "ada", "age": 36}"#);
    assert_eq!(v.display_name, None);
    assert!(r.is_empty());
}

#[test]
fn an_ambiguous_key_is_an_error_not_a_guess() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Two {
        user_name: Option<String>,
        id: u32,
        username: Option<String>,
    }
    let e = err::<Two>(r#"{"id": 1, "UserName": "x"}"#);
    assert_eq!(
        e.message(),
        "ambiguous key `UserName`: it could be the field `user_name` or `username`"
    );
    assert_eq!(e.path(), "$.UserName");
    // Written exactly, no question.
    let v = coerced::<Two>(r#"{"id": 1, "username": "x"}"#).0;
    assert_eq!(v.username.as_deref(), Some("x"));
}

// ----- Option sentinels ------------------------------------------------------

#[derive(Debug, PartialEq, Deserialize)]
struct Reading {
    value: Option<f64>,
    note: Option<String>,
}

#[test]
fn placeholders_for_no_value_are_none_when_the_type_is_not_a_string() {
    for word in ["null", "None", "N/A", "n/a", "NA", "", "  "] {
        let text = format!(r#"{{"value": "{word}", "note": "{word}"}}"#);
        let (v, r) = coerced::<Reading>(&text);
        assert_eq!(v.value, None, "{word:?}");
        // A string type takes the text as written.
        assert_eq!(v.note.as_deref(), Some(word), "{word:?}");
        assert_eq!(
            r,
            rec(NoneSentinel, "$.value", &format!("\"{word}\""), "null"),
            "{word:?}"
        );
        let e = strict_err::<Reading>(&text);
        assert_eq!(e.path(), "$.value");
    }
    // Not a placeholder: an error, not None.
    let e = err::<Reading>(r#"{"value": "unknown"}"#);
    assert_eq!(e.path(), "$.value");
    // Many of them, inside a Vec and nested.
    let (v, r) = coerced::<Vec<Option<u32>>>(r#"["1", "N/A", 2, "", "none", null]"#);
    assert_eq!(v, [Some(1), None, Some(2), None, None, None]);
    let kinds: Vec<_> = r.iter().map(|c| (c.0, c.1.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (StringToNumber, "$[0]"),
            (NoneSentinel, "$[1]"),
            (NoneSentinel, "$[3]"),
            (NoneSentinel, "$[4]")
        ]
    );
    // An enum with a variant named like a placeholder takes it.
    #[derive(Debug, PartialEq, Deserialize)]
    enum Level {
        None,
        Low,
    }
    assert_eq!(coerced::<Option<Level>>(r#""None""#).0, Some(Level::None));
    assert_eq!(coerced::<Option<Level>>(r#""N/A""#).0, None);
}

/// What a placeholder is learned to mean holds at one path, whatever the
/// index: a long list of them reads as one, and the same placeholder at
/// another path, of another type, is judged there by its own type.
#[test]
fn a_placeholder_learned_holds_along_its_path() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Row {
        score: Option<u32>,
        level: Option<Level>,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    enum Level {
        #[serde(rename = "n/a")]
        NotApplicable,
        Low,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct Table {
        rows: Vec<Vec<Row>>,
        total: Option<u32>,
    }
    let row = r#"{"score": "N/A", "level": "n/a"}"#;
    let rows = vec![format!("[{}]", [row; 10].join(", ")); 30].join(", ");
    let text = format!(r#"{{"rows": [{rows}], "total": "n/a"}}"#);
    let (v, r) = coerced::<Table>(&text);
    assert_eq!(v.rows.len(), 30);
    for row in v.rows.iter().flatten() {
        assert_eq!(
            row,
            &Row {
                score: None,
                level: Some(Level::NotApplicable)
            }
        );
    }
    assert_eq!(v.total, None);
    assert_eq!(r.len(), 301);
    assert_eq!(
        r[0],
        rec(NoneSentinel, "$.rows[0][0].score", "\"N/A\"", "null")[0]
    );
    assert_eq!(r[300], rec(NoneSentinel, "$.total", "\"n/a\"", "null")[0]);
}

// ----- what is never coerced -------------------------------------------------

#[test]
fn untagged_enums_and_values_receive_values_as_written() {
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum NumOrText {
        Num(u32),
        Text(String),
    }
    let (v, r) = coerced::<Vec<NumOrText>>(r#"["42", 42, "yes"]"#);
    assert_eq!(
        v,
        [
            NumOrText::Text("42".into()),
            NumOrText::Num(42),
            NumOrText::Text("yes".into())
        ]
    );
    assert!(r.is_empty());
    let (v, r) = coerced::<Value>(r#"{"n": "42", "b": "yes", "l": "[1]", "o": "N/A"}"#);
    assert_eq!(v, json!({"n": "42", "b": "yes", "l": "[1]", "o": "N/A"}));
    assert!(r.is_empty());
    let (v, _) = coerced::<HashMap<String, Value>>(r#"{"n": "42"}"#);
    assert_eq!(v["n"], json!("42"));
}

#[test]
fn buffered_parts_are_coerced_as_structs_are() {
    // serde reads an internally tagged enum's fields from a buffer, without
    // asking the decoder for types; its error names the kind it wanted, and
    // the decode reads that one value again as that kind.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "type")]
    enum Tool {
        Search { limit: u32, label: String },
        Raw { limit: Value },
    }
    assert_eq!(
        coerced::<Tool>(r#"{"type": "Search", "limit": "5", "label": 7}"#),
        (
            Tool::Search {
                limit: 5,
                label: "7".into()
            },
            [
                rec(StringToNumber, "$.limit", "\"5\"", "5"),
                rec(ToString, "$.label", "7", "\"7\""),
            ]
            .concat()
        )
    );
    assert_eq!(
        coerced::<Tool>(r#"{"type": "Search", "limit": 5, "label": "x"}"#).1,
        vec![]
    );
    // Only the value serde failed on: a field of another variant with the
    // same name keeps what was written.
    assert_eq!(
        coerced::<Vec<Tool>>(
            r#"[{"type": "Search", "limit": "5", "label": "a"}, {"type": "Raw", "limit": "5"}]"#
        )
        .0,
        [
            Tool::Search {
                limit: 5,
                label: "a".into()
            },
            Tool::Raw { limit: json!("5") }
        ]
    );
    // What no rule coerces stays serde's error, at the value.
    let e = err::<Tool>(r#"{"type": "Search", "limit": "five", "label": "x"}"#);
    assert_eq!(e.message(), "invalid type: string \"five\", expected u32");
    assert_eq!(e.path(), "$.limit");
    // Read again and still wrong: the error is at the value.
    let e = err::<Tool>(r#"{"type": "Search", "limit": "-5", "label": "x"}"#);
    assert_eq!(e.message(), "invalid value: integer `-5`, expected u32");
    assert_eq!(e.path(), "$.limit");
    // A value coerced reads as what it became, but one written so is the
    // one serde meant: `"5"` read as 5 beside a 5 wanted as a string.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "type")]
    enum Pair {
        A { x: u32, y: String },
    }
    for reply in [
        r#"{"type": "A", "x": "5", "y": 5}"#,
        r#"{"type": "A", "y": 5, "x": "5"}"#,
    ] {
        assert_eq!(
            from_llm_str::<Pair>(reply).unwrap(),
            Pair::A {
                x: 5,
                y: "5".into()
            }
        );
    }
    // Read again as a number, a string that is no integer is still placed.
    let e = err::<Tool>(r#"{"type": "Search", "limit": "3.7", "label": "x"}"#);
    assert_eq!(e.path(), "$.limit");
    // Strict mode coerces nothing, buffered or not.
    let e = strict_err::<Tool>(r#"{"type": "Search", "limit": "5", "label": "x"}"#);
    assert_eq!(e.message(), "invalid type: string \"5\", expected u32");
}

// ----- strict mode and per-kind policy ---------------------------------------

#[derive(Debug, PartialEq, Deserialize)]
struct Verdict {
    label: String,
    score: f64,
}

#[test]
fn strict_mode_extracts_but_does_not_repair() {
    let d = Decoder::strict();
    // Extraction is not repair.
    let fenced = "Sure:\n```json\n{\"label\": \"spam\", \"score\": 0.9}\n```\nAnything else?";
    assert_eq!(d.decode::<Verdict>(fenced).unwrap().label, "spam");
    let prose = "My answer is {\"label\": \"ham\", \"score\": 0.1} as asked.";
    assert_eq!(d.decode::<Verdict>(prose).unwrap().label, "ham");
    let thought = "<think>hmm {x}</think>{\"label\": \"a\", \"score\": 1}";
    assert_eq!(d.decode::<Verdict>(thought).unwrap().label, "a");
    for (text, kind, offset) in [
        (
            r#"{"label": "a", "score": 1,}"#,
            RepairKind::TrailingComma,
            25,
        ),
        (r#"{label: "a", "score": 1}"#, RepairKind::UnquotedKey, 1),
        (r#"{"label": 'a', "score": 1}"#, RepairKind::Quotes, 10),
        (
            "{\"label\": \"a\", // why\n\"score\": 1}",
            RepairKind::Comment,
            15,
        ),
        (r#"{"label": "a" "score": 1}"#, RepairKind::MissingComma, 14),
        (
            r#"{"label": "a", "score": NaN}"#,
            RepairKind::NonFiniteNumber,
            24,
        ),
    ] {
        let e = d.decode::<Verdict>(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Denied, "{text}");
        let r = e.repair().expect("the repair");
        assert_eq!((r.kind, r.offset), (kind, offset), "{text}");
        assert_eq!(e.offset(), Some(offset));
        // The default decoder repairs it.
        assert!(from_llm_str::<Verdict>(text).is_ok(), "{text}");
    }
    // A reply cut off is not completed.
    let e = d
        .decode::<Value>(r#"{"label": "a", "score": 1"#)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Denied);
    assert_eq!(e.repair().unwrap().kind, RepairKind::MissingCloser);
    // And repair() follows the same rules.
    assert_eq!(d.repair("[1, 2]").unwrap(), "[1,2]");
    assert_eq!(d.repair("[1, 2,]").unwrap_err().kind(), ErrorKind::Denied);
}

#[test]
fn strict_mode_accepts_exactly_what_serde_json_accepts() {
    let docs = [
        r#"{"label": "x", "score": 1e-3}"#,
        r#"{"score": -0.0, "label": "\u00e9\ud83d\ude00"}"#,
        r#"  {"label": "x", "score": 1, "extra": [1, {"a": null}]}  "#,
    ];
    for doc in docs {
        let ours: Verdict = Decoder::strict().decode(doc).unwrap();
        let theirs: Verdict = serde_json::from_str(doc).unwrap();
        assert_eq!(ours, theirs);
        let v: Value = Decoder::strict().decode(doc).unwrap();
        assert_eq!(v, serde_json::from_str::<Value>(doc).unwrap());
    }
    // Wrong types: serde_json's errors.
    for doc in [
        r#"{"label": 1, "score": 1}"#,
        r#"{"label": "x", "score": "1"}"#,
        r#"{"label": "x"}"#,
    ] {
        let ours = Decoder::strict().decode::<Verdict>(doc).unwrap_err();
        let theirs = serde_json::from_str::<Verdict>(doc).unwrap_err();
        assert_eq!(
            ours.message(),
            theirs.to_string().split(" at line").next().unwrap()
        );
    }
}

#[test]
fn each_kind_can_be_allowed_or_denied_on_its_own() {
    // "Fences and trailing commas are fine, type coercion is not."
    let d = Decoder::strict().allow(RepairKind::TrailingComma);
    let reply = "```json\n{\"label\": \"spam\", \"score\": 0.9,}\n```";
    assert_eq!(d.decode::<Verdict>(reply).unwrap().score, 0.9);
    let e = d
        .decode::<Verdict>(r#"{"label": "spam", "score": "0.9",}"#)
        .unwrap_err();
    assert_eq!(e.message(), "invalid type: string \"0.9\", expected f64");
    let e = d
        .decode::<Verdict>(r#"{'label': "spam", "score": 0.9}"#)
        .unwrap_err();
    assert_eq!(e.repair().unwrap().kind, RepairKind::Quotes);
    // Denied one by one on the default decoder.
    let d = Decoder::new()
        .deny(StringToNumber)
        .deny(RepairKind::Comment);
    assert!(d.decode::<Verdict>(r#"{"label": 1, "score": 0.9}"#).is_ok());
    assert!(d
        .decode::<Verdict>(r#"{"label": "a", "score": "0.9"}"#)
        .is_err());
    assert_eq!(
        d.decode::<Vec<u8>>("[1, /* two */ 2]").unwrap_err().kind(),
        ErrorKind::Denied
    );
    let d = Decoder::new().deny(FieldName);
    assert_eq!(
        d.decode::<User>(r#"{"user_name": "a", "displayName": "A"}"#)
            .unwrap()
            .display_name,
        None
    );
    // And allowed back.
    let d = Decoder::strict().allow(OneToSequence).allow(StringToNumber);
    assert_eq!(d.decode::<Vec<u32>>(r#""5""#).unwrap(), [5]);
}

// ----- reports and acceptance ------------------------------------------------

#[test]
fn counts_by_kind_and_clean_reports() {
    let (_, report) = Decoder::new()
        .decode_with_report::<Vec<Verdict>>(
            r#"[{"label": 1, "score": "2"}, {"label": "x", "score": "3",}, {"Label": "y", "score": 1}]"#,
        )
        .unwrap();
    let counts = report.counts();
    assert_eq!(counts[&Fix::Coercion(ToString)], 1);
    assert_eq!(counts[&Fix::Coercion(StringToNumber)], 2);
    assert_eq!(counts[&Fix::Coercion(FieldName)], 1);
    assert_eq!(counts[&Fix::Repair(RepairKind::TrailingComma)], 1);
    assert_eq!(counts.len(), 4);
    assert_eq!(report.fixes(), 5);
    assert!(!report.is_clean());
    let (_, clean) = Decoder::new()
        .decode_with_report::<Verdict>("```json\n{\"label\": \"x\", \"score\": 1}\n```")
        .unwrap();
    assert!(clean.is_clean());
    assert!(clean.counts().is_empty());
}

#[test]
fn a_reply_that_needed_too_much_is_rejected_with_its_report() {
    let d = Decoder::new().max_repairs(2);
    let fine = r#"{"label": "x", "score": "1",}"#;
    assert!(d.decode::<Verdict>(fine).is_ok());
    let messy = "{label: 'x', score: \"1\",}";
    let e = d.decode::<Verdict>(messy).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rejected);
    assert_eq!(
        e.message(),
        "the reply needed 5 repairs and coercions, more than the 2 allowed"
    );
    let report = e.report().unwrap();
    assert_eq!(report.fixes(), 5);
    assert_eq!(
        e.feedback(),
        "line 1, column 2: a key without quotes\n\
         line 1, column 9: a string not in double quotes\n\
         line 1, column 14: a key without quotes\n\
         line 1, column 24: a trailing comma\n\
         $.score: a number written as a string (wrote \"1\", meant 1)"
    );
    // A closure over the report.
    let no_cuts = Decoder::new().accept_if(|r| !r.truncated);
    assert!(no_cuts.decode::<Verdict>(fine).is_ok());
    let e = no_cuts
        .decode::<Value>(r#"{"label": "x", "sco"#)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rejected);
    assert!(e.report().unwrap().truncated);
    // repair() is held to the same test.
    assert_eq!(
        d.repair("[1,, 2,, 3,,]").unwrap_err().kind(),
        ErrorKind::Rejected
    );
}

#[test]
fn coercions_inside_a_partial_view() {
    use serde_llm::Partial;
    #[derive(Debug, Deserialize, Partial)]
    #[allow(dead_code)]
    struct Answer {
        #[llm(required)]
        id: u64,
        score: f64,
        #[llm(partial)]
        tags: Vec<String>,
    }
    let view = serde_llm::from_llm_str_partial::<Answer>(
        r#"{"id": "7", "Score": "0.5", "tags": ["a", "b"#,
    )
    .unwrap()
    .unwrap();
    assert_eq!(view.id, Some(7));
    assert_eq!(view.score, Some(0.5));
    // A list marked partial shows its last string as far as it goes.
    assert_eq!(view.tags, Some(vec!["a".to_owned(), "b".to_owned()]));
}

#[test]
fn many_placeholders_keys_and_tags_are_learned_once() {
    // Each kind of place is learned once, so a long list is read again once,
    // not once per value.
    let list: Vec<String> = (0..300)
        .map(|i| {
            if i % 2 == 0 {
                "\"N/A\"".to_owned()
            } else {
                i.to_string()
            }
        })
        .collect();
    let text = format!("[{}]", list.join(", "));
    let (v, r) = coerced::<Vec<Option<u32>>>(&text);
    assert_eq!(v.iter().filter(|x| x.is_none()).count(), 150);
    assert_eq!(v[1], Some(1));
    assert_eq!(r.len(), 150);
    assert_eq!(r[149].1, "$[298]");

    let users: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"user_name": "u{i}", "displayName": "U{i}"}}"#))
        .collect();
    let text = format!("[{}]", users.join(", "));
    let (v, r) = coerced::<Vec<User>>(&text);
    assert_eq!(v[299].display_name.as_deref(), Some("U299"));
    assert_eq!(r.len(), 300);

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Step {
        InProgress,
        Done,
    }
    let steps: Vec<&str> = (0..300)
        .map(|i| {
            if i % 3 == 0 {
                r#"{"type": "In Progress"}"#
            } else {
                r#"{"type": "DONE"}"#
            }
        })
        .collect();
    let text = format!("[{}]", steps.join(", "));
    let (v, r) = coerced::<Vec<Step>>(&text);
    assert_eq!(v[0], Step::InProgress);
    assert_eq!(v[299], Step::Done);
    assert_eq!(r.len(), 300);
}

// ----- cases found in review -------------------------------------------------

#[test]
fn a_reply_in_prose_is_no_list() {
    // A refusal is not a one-element list of its first words.
    for text in [
        "I'm sorry, but I can't help with that request.",
        "solo",
        "apple, banana, cherry",
    ] {
        let e = err::<Vec<String>>(text);
        assert_eq!(e.kind(), ErrorKind::NoJson, "{text}");
    }
    // Several values where a sequence is wanted are gathered, not cut to one.
    assert_eq!(coerced::<Vec<u32>>("1\n2").0, [1, 2]);
    assert_eq!(coerced::<Vec<Vec<u32>>>("[1]\n[2]").0, [vec![1], vec![2]]);
    // A quoted string is a value.
    assert_eq!(coerced::<Vec<String>>(r#""solo""#).0, ["solo"]);
}

#[test]
fn text_that_starts_like_json_is_text() {
    let (v, r) = coerced::<Tags>(r#"{"tags": "[urgent] fix the login page"}"#);
    assert_eq!(v.tags, ["[urgent] fix the login page"]);
    assert_eq!(r[0].0, OneToSequence);
    // What was repaired inside a string holding JSON is listed.
    let (_, report) = Decoder::new()
        .decode_with_report::<Tags>(r#"{"tags": "[a, 'b',]"}"#)
        .unwrap();
    let kinds: Vec<RepairKind> = report.repairs.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            RepairKind::UnquotedString,
            RepairKind::Quotes,
            RepairKind::TrailingComma
        ]
    );
    assert!(report.repairs.iter().all(|r| r.offset == 9));
}

#[test]
fn nothing_is_recorded_for_a_value_left_out() {
    let (v, report) = Decoder::new()
        .decode_with_report::<Vec<Vec<u32>>>("[[1], 5")
        .unwrap();
    assert_eq!(v, [vec![1]]);
    assert!(report.coercions.is_empty());
}

#[test]
fn a_field_written_under_its_own_name_wins() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Named {
        id: u32,
        name: Option<String>,
    }
    // serde_json reads this (ignoring "Name"): so do we.
    for text in [
        r#"{"id": 1, "name": "a", "Name": null}"#,
        r#"{"id": 1, "Name": null, "name": "a"}"#,
    ] {
        assert_eq!(
            coerced::<Named>(text).0,
            Named {
                id: 1,
                name: Some("a".into())
            },
            "{text}"
        );
    }
}

#[test]
fn a_raw_value_field_decodes_as_serde_json_decodes_it() {
    #[derive(Debug, Deserialize)]
    struct Call<'a> {
        name: String,
        #[serde(borrow)]
        args: &'a serde_json::value::RawValue,
    }
    let text = r#"{"name": "f", "args": {"a": [1, 2]}, "callId": 7}"#;
    let v: Call = from_llm_str(text).unwrap();
    let theirs: Call = serde_json::from_str(text).unwrap();
    assert_eq!(
        (v.name.as_str(), v.args.get()),
        (theirs.name.as_str(), theirs.args.get())
    );
}

#[test]
fn strict_mode_refuses_what_serde_json_refuses() {
    for text in ["{\"a\"/**/: 1}", "{\"a\" # c\n: 1}", "{\"a\"\u{a0}: 1}"] {
        let e = Decoder::strict().decode::<Value>(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Denied, "{text:?}");
    }
    let whole_only = Decoder::strict()
        .strategy(serde_llm::Strategy::Fence, false)
        .strategy(serde_llm::Strategy::Tag, false)
        .strategy(serde_llm::Strategy::Balanced, false)
        .strategy(serde_llm::Strategy::Trailing, false);
    for text in [r#"5"a": [1]"#, r#"{"a":1}{"#, r#"{"a": 1}, {d": []}"#] {
        assert!(whole_only.decode::<Value>(text).is_err(), "{text:?}");
    }
    // Map keys are numbers only as JSON spells them.
    for text in [r#"{"+1": 1}"#, r#"{"01": 1}"#] {
        assert!(Decoder::strict()
            .decode::<BTreeMap<u32, u32>>(text)
            .is_err());
        assert!(serde_json::from_str::<BTreeMap<u32, u32>>(text).is_err());
    }
    assert_eq!(
        Decoder::strict()
            .decode::<BTreeMap<i32, u32>>(r#"{"-1": 1}"#)
            .unwrap(),
        BTreeMap::from([(-1, 1)])
    );
}

#[test]
fn allowing_the_repairs_a_reply_needs_is_enough() {
    // A repair relabelled or taken back while scanning is not held against
    // the reply.
    for (text, kinds) in [
        (r#"{COMMENT "key": 1}"#, vec![RepairKind::Skipped]),
        (r#"{"key": 1/3}"#, vec![RepairKind::NumberAsString]),
        (
            r#""yes" is my answer"#,
            vec![RepairKind::MissingQuote, RepairKind::TrailingText],
        ),
        ("t", vec![RepairKind::TruncatedValue]),
    ] {
        let (_, report) = Decoder::new().decode_with_report::<Value>(text).unwrap();
        let used: Vec<RepairKind> = report.repairs.iter().map(|r| r.kind).collect();
        assert_eq!(used, kinds, "{text}");
        let d = kinds.iter().fold(Decoder::strict(), |d, &k| d.allow(k));
        assert!(d.decode::<Value>(text).is_ok(), "{text}");
    }
}

#[test]
fn the_path_of_a_key_in_an_implicit_object() {
    let (_, r) = coerced::<Vec<User>>(r#"["userName": "x"]"#);
    assert_eq!(
        r,
        rec(
            FieldName,
            "$[0].userName",
            r#""userName""#,
            r#""user_name""#
        )
    );
}

#[test]
fn a_view_never_shows_a_string_that_may_be_json_half_read() {
    use serde_llm::Partial;
    #[derive(Debug, Deserialize, Partial)]
    #[allow(dead_code)]
    struct Ticket {
        #[llm(required)]
        id: u32,
        #[llm(partial)]
        tags: Vec<String>,
        #[llm(partial)]
        ids: Vec<u32>,
    }
    let full = r#"{"id": 1, "tags": "[\"a\", \"b\"]", "ids": "[1, 2, 3]"}"#;
    let mut last_tags: Vec<String> = Vec::new();
    for end in 1..=full.len() {
        let Some(view) = serde_llm::from_llm_str_partial::<Ticket>(&full[..end]).unwrap() else {
            continue;
        };
        assert_eq!(view.id, Some(1), "{:?}", &full[..end]);
        let tags = view.tags.unwrap_or_default();
        assert!(tags.starts_with(&last_tags), "{:?}: {tags:?}", &full[..end]);
        last_tags = tags;
        for id in view.ids.unwrap_or_default() {
            assert!((1..=3).contains(&id));
        }
    }
    assert_eq!(last_tags, ["a", "b"]);
    // A number split at a comma is not read early.
    let full = r#"["1,234", "5"]"#;
    for end in 1..=full.len() {
        let v = serde_llm::from_llm_str_partial::<Vec<u64>>(&full[..end]).unwrap();
        for n in v.unwrap_or_default() {
            assert!(n == 1234 || n == 5, "{:?}: {n}", &full[..end]);
        }
    }
}

#[test]
fn a_tuple_takes_one_value_only_if_it_has_one_element() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Pair {
        p: (u32, u32),
    }
    let e = err::<Pair>(r#"{"p": 5}"#);
    assert_eq!(
        e.message(),
        "invalid type: integer `5`, expected a tuple of size 2"
    );
    assert_eq!(e.feedback(), "$.p: expected a list of 2 values, got 5");
    assert_eq!(coerced::<(u32,)>("5").0, (5,));
}

#[test]
fn placeholder_rules_and_float_rules_hold_for_strings_too() {
    let d = Decoder::new().deny(FloatToInteger);
    assert!(d.decode::<u32>(r#""42.0""#).is_err());
    assert_eq!(d.decode::<u32>(r#""42""#).unwrap(), 42);
    let (v, report) = Decoder::new()
        .allow(RoundFloat)
        .decode_with_report::<u32>(r#""42.5""#)
        .unwrap();
    assert_eq!(v, 43);
    let kinds: Vec<CoercionKind> = report.coercions.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [RoundFloat, StringToNumber]);
}

#[test]
fn a_refusal_with_nothing_fixed_still_says_why() {
    let e = Decoder::new()
        .accept_if(|_| false)
        .decode::<Vec<u8>>("[1]")
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rejected);
    assert_eq!(
        e.feedback(),
        "$: the reply was refused; send it again as plain JSON"
    );
    // Partial views are not judged: the reply is still being written.
    let d = Decoder::new().max_repairs(0);
    assert_eq!(
        d.decode_partial::<Vec<u8>>("[1, 2, ").unwrap(),
        Some(vec![1, 2])
    );
}

#[test]
fn a_candidate_that_needs_no_coercion_wins() {
    // Two fences: the first needs a coercion, the second is exact.
    let reply = "First try:\n```json\n{\"label\": \"a\", \"score\": \"1\"}\n```\n\
                 Corrected:\n```json\n{\"label\": \"b\", \"score\": 2}\n```";
    let (v, r) = coerced::<Verdict>(reply);
    assert_eq!(
        v,
        Verdict {
            label: "b".into(),
            score: 2.0
        }
    );
    assert!(r.is_empty());
    // With no exact candidate, the coerced one is taken.
    let (v, _) = coerced::<Verdict>("```json\n{\"label\": \"a\", \"score\": \"1\"}\n```");
    assert_eq!(v.label, "a");
}
