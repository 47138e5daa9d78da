//! `SchemaDecoder`: each keyword with exact values and reports, the tool
//! schemas of real MCP servers with the replies models write for them, the
//! partial view at every prefix and the stream at every split.

use serde_json::{json, Value};
use serde_llm::{
    CoercionKind, Decoder, ErrorKind, Path, RepairKind, Report, SchemaDecoder, SchemaOptions,
};

fn decoder(schema: Value) -> SchemaDecoder {
    SchemaDecoder::new(&schema).unwrap_or_else(|e| panic!("{e}"))
}

/// The report's coercions as `path kind written -> used`.
fn coercions(report: &Report) -> Vec<String> {
    report
        .coercions
        .iter()
        .map(|c| format!("{} {} {} -> {}", c.path, c.kind, c.written, c.used))
        .collect()
}

fn repairs(report: &Report) -> Vec<RepairKind> {
    report.repairs.iter().map(|r| r.kind).collect()
}

/// Decodes `reply`: the value and the report's coercions.
fn decode(d: &SchemaDecoder, reply: &str) -> (Value, Vec<String>) {
    let (v, report) = d
        .decode_with_report(reply)
        .unwrap_or_else(|e| panic!("{reply}: {e}"));
    (v, coercions(&report))
}

/// The error's kind, path and feedback.
fn error(d: &SchemaDecoder, reply: &str) -> (ErrorKind, String, String) {
    let e = d.decode(reply).expect_err(reply);
    (e.kind(), e.path(), e.feedback())
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

// ----- type -----------------------------------------------------------------

#[test]
fn each_type_takes_the_typed_paths_coercions() {
    let table: &[(Value, &str, Value, &[&str])] = &[
        (
            json!({"type": "integer"}),
            "\"42\"",
            json!(42),
            &["$ string_to_number \"42\" -> 42"],
        ),
        (
            json!({"type": "integer"}),
            "42.0",
            json!(42),
            &["$ float_to_integer 42.0 -> 42"],
        ),
        (
            json!({"type": "integer"}),
            "\"1,234\"",
            json!(1234),
            &["$ string_to_number \"1,234\" -> 1234"],
        ),
        (json!({"type": "integer"}), "-7", json!(-7), &[]),
        (
            json!({"type": "number"}),
            "\"4.5e3\"",
            json!(4500.0),
            &["$ string_to_number \"4.5e3\" -> 4.5e3"],
        ),
        (json!({"type": "number"}), "5", json!(5), &[]),
        (
            json!({"type": "string"}),
            "42",
            json!("42"),
            &["$ to_string 42 -> \"42\""],
        ),
        (
            json!({"type": "string"}),
            "true",
            json!("true"),
            &["$ to_string true -> \"true\""],
        ),
        (
            json!({"type": "boolean"}),
            "\"yes\"",
            json!(true),
            &["$ to_bool \"yes\" -> true"],
        ),
        (
            json!({"type": "boolean"}),
            "0",
            json!(false),
            &["$ to_bool 0 -> false"],
        ),
        (json!({"type": "null"}), "null", json!(null), &[]),
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            "[1, \"2\"]",
            json!([1, 2]),
            &["$[1] string_to_number \"2\" -> 2"],
        ),
        (
            json!({"type": "array", "items": {"type": "string"}}),
            "\"solo\"",
            json!(["solo"]),
            &["$ one_to_sequence \"solo\" -> [\"solo\"]"],
        ),
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            r#"{"contacts": [1, "2"]}"#,
            json!([1, 2]),
            &[
                "$ wrapped_list {\"contacts\": […]} -> […]",
                "$.contacts[1] string_to_number \"2\" -> 2",
            ],
        ),
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            "\"[1, 2]\"",
            json!([1, 2]),
            &["$ json_in_string \"[1, 2]\" -> [1,2]"],
        ),
        (
            json!({"type": "object"}),
            r#"{"a": [1, {"b": null}]}"#,
            json!({"a": [1, {"b": null}]}),
            &[],
        ),
        (json!(true), "{a: 1}", json!({"a": 1}), &[]),
        (json!({}), "[1, 'x']", json!([1, "x"]), &[]),
    ];
    for (schema, reply, value, report) in table {
        let d = decoder(schema.clone());
        assert_eq!(
            decode(&d, reply),
            (value.clone(), strings(report)),
            "{schema} {reply}"
        );
    }
}

#[test]
fn a_value_of_another_type_is_the_typed_paths_error() {
    let table: &[(Value, &str, &str)] = &[
        (
            json!({"type": "integer"}),
            "\"many\"",
            "$: expected an integer, got \"many\"",
        ),
        (
            json!({"type": "integer"}),
            "4.5",
            "$: expected an integer, got 4.5",
        ),
        (
            json!({"type": "string"}),
            "null",
            "$: expected a string, got null",
        ),
        (
            json!({"type": "boolean"}),
            "\"maybe\"",
            "$: expected true or false, got \"maybe\"",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
            "{\"a\": [1]}",
            "$.a: expected an integer, got a list",
        ),
    ];
    for (schema, reply, feedback) in table {
        let (kind, _, got) = error(&decoder(schema.clone()), reply);
        assert_eq!(
            (kind, got.as_str()),
            (ErrorKind::Data, *feedback),
            "{schema} {reply}"
        );
    }
}

#[test]
fn a_list_of_types_reads_each_and_null_makes_the_rest_nullable() {
    let d = decoder(json!({"type": ["integer", "string"]}));
    assert_eq!(decode(&d, "7"), (json!(7), vec![]));
    assert_eq!(decode(&d, "\"7\""), (json!("7"), vec![]));
    assert_eq!(decode(&d, "\"seven\""), (json!("seven"), vec![]));
    let d = decoder(json!({"type": ["integer", "null"]}));
    assert_eq!(decode(&d, "null"), (json!(null), vec![]));
    assert_eq!(
        decode(&d, "\"3\""),
        (json!(3), strings(&["$ string_to_number \"3\" -> 3"]))
    );
    // A placeholder for "no value", as an `Option<i64>` reads it.
    assert_eq!(
        decode(&d, "\"N/A\""),
        (json!(null), strings(&["$ none_sentinel \"N/A\" -> null"]))
    );
    let d = decoder(json!({"type": "string", "nullable": true}));
    assert_eq!(decode(&d, "null"), (json!(null), vec![]));
    // `null` alone is the null type.
    let d = decoder(json!({"type": ["null"]}));
    assert_eq!(error(&d, "1").0, ErrorKind::Data);
}

// ----- properties, required, additionalProperties -------------------------

fn account() -> SchemaDecoder {
    decoder(json!({
        "type": "object",
        "properties": {
            "user_name": {"type": "string"},
            "age": {"type": "integer"},
            "email": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["user_name"]
    }))
}

#[test]
fn a_key_in_another_style_fills_its_property_as_for_a_struct() {
    let reply = r#"{"UserName": "ada", "Age": "36"}"#;
    let (v, report) = account().decode_with_report(reply).unwrap();
    assert_eq!(v, json!({"user_name": "ada", "age": 36}));
    assert_eq!(
        coercions(&report),
        [
            "$.UserName field_name \"UserName\" -> \"user_name\"",
            "$.Age field_name \"Age\" -> \"age\"",
            "$.Age string_to_number \"36\" -> 36",
        ]
    );
    assert_eq!(report.coercions[0].offset, 1);
    assert_eq!(report.coercions[2].offset, reply.find("\"36\"").unwrap());
}

#[test]
fn a_missing_required_property_is_an_error_and_an_optional_one_is_absent() {
    assert_eq!(
        decode(&account(), r#"{"user_name": "ada"}"#),
        (json!({"user_name": "ada"}), vec![])
    );
    assert_eq!(
        error(&account(), r#"{"age": 3}"#),
        (
            ErrorKind::Data,
            "$".into(),
            "$: missing required field \"user_name\"".into()
        )
    );
    let nested = decoder(json!({
        "type": "object",
        "properties": {"owner": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
        "required": ["owner"]
    }));
    assert_eq!(
        error(&nested, r#"{"owner": {"name": "x"}}"#),
        (
            ErrorKind::Data,
            "$.owner".into(),
            "$.owner: missing required field \"id\"".into()
        )
    );
}

#[test]
fn null_is_no_value_unless_the_property_is_nullable() {
    assert_eq!(
        decode(
            &account(),
            r#"{"user_name": "ada", "age": null, "email": null}"#
        ),
        (json!({"user_name": "ada", "email": null}), vec![])
    );
    // Required and not nullable: null is the typed path's error.
    assert_eq!(
        error(&account(), r#"{"user_name": null}"#).2,
        "$.user_name: expected a string, got null"
    );
}

#[test]
fn keys_the_schema_does_not_name_are_kept_unless_it_says_no() {
    assert_eq!(
        decode(
            &account(),
            r#"{"user_name": "ada", "plan": "pro", "seats": 3, "note": null}"#
        ),
        (
            json!({"user_name": "ada", "plan": "pro", "seats": 3, "note": null}),
            vec![]
        )
    );
    let closed = decoder(json!({
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "additionalProperties": false
    }));
    let reply = r#"{"path": "/tmp/a", "encoding": "utf-8", "mode": {"x": 1}}"#;
    let (v, report) = closed.decode_with_report(reply).unwrap();
    assert_eq!(v, json!({"path": "/tmp/a"}));
    assert_eq!(
        coercions(&report),
        [
            "$.encoding extra_key \"encoding\" -> ",
            "$.mode extra_key \"mode\" -> "
        ]
    );
    assert_eq!(report.coercions[0].offset, reply.find("\"utf-8\"").unwrap());
    assert_eq!(report.coercions[1].offset, reply.find("{\"x\"").unwrap());
    assert_eq!(report.fixes(), 2);
    // Strict: refused, as `deny_unknown_fields` refuses it.
    let strict = closed.clone().with_decoder(Decoder::strict());
    let e = strict.decode(reply).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown field `encoding`, expected `path` at $.encoding (line 1, column 20)"
    );
    // A schema for the extra values: read by it.
    let typed = decoder(json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": {"type": "integer"}
    }));
    assert_eq!(
        decode(&typed, r#"{"name": "a", "x": "5"}"#),
        (
            json!({"name": "a", "x": 5}),
            strings(&["$.x string_to_number \"5\" -> 5"])
        )
    );
}

#[test]
fn the_fast_lane_places_what_the_schema_reports_too() {
    // Valid JSON goes to serde_json, which says nothing of offsets: the
    // default is placed at its object, found in the text.
    let d = decoder(json!({
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "unit": {"type": "string", "default": "kg"}}
            }}
        }
    }));
    let reply = r#"Here: {"items": [{"n": 1, "unit": "g"}, {"n": 2}]}"#;
    let (v, report) = d.decode_with_report(reply).unwrap();
    assert_eq!(
        v,
        json!({"items": [{"n": 1, "unit": "g"}, {"n": 2, "unit": "kg"}]})
    );
    assert_eq!(
        coercions(&report),
        ["$.items[1].unit default_value  -> \"kg\""]
    );
    assert_eq!(
        report.coercions[0].offset,
        reply.find("{\"n\": 2}").unwrap()
    );
    // The tolerant path gives the same.
    let messy = r#"Here: {items: [{n: 1, unit: 'g'}, {n: 2},]}"#;
    let (v2, report2) = d.decode_with_report(messy).unwrap();
    assert_eq!(v2, v);
    assert_eq!(coercions(&report2), coercions(&report));
    assert_eq!(report2.coercions[0].offset, messy.find("{n: 2}").unwrap());
}

#[test]
fn pattern_properties_read_the_keys_they_match() {
    let d = decoder(json!({
        "type": "object",
        "patternProperties": {"^x-": {"type": "string"}, "^n_": {"type": "integer"}},
        "additionalProperties": false
    }));
    let (v, report) = d
        .decode_with_report(r#"{"x-trace": 12, "n_count": "3", "other": 1}"#)
        .unwrap();
    assert_eq!(v, json!({"x-trace": "12", "n_count": 3}));
    assert_eq!(
        coercions(&report),
        [
            "$[\"x-trace\"] to_string 12 -> \"12\"",
            "$.n_count string_to_number \"3\" -> 3",
            "$.other extra_key \"other\" -> ",
        ]
    );
}

#[test]
fn a_repeated_property_is_an_error() {
    assert_eq!(
        error(&account(), r#"{"user_name": "a", "user_name": "b"}"#).2,
        "$: the field \"user_name\" appears twice"
    );
}

// ----- items, prefixItems --------------------------------------------------

#[test]
fn prefix_items_read_a_tuple() {
    let d = decoder(json!({
        "type": "array",
        "prefixItems": [{"type": "number"}, {"type": "number"}, {"type": "string"}],
        "items": false
    }));
    assert_eq!(
        decode(&d, r#"["1.5", 2, 3]"#),
        (
            json!([1.5, 2, "3"]),
            strings(&[
                "$[0] string_to_number \"1.5\" -> 1.5",
                "$[2] to_string 3 -> \"3\""
            ])
        )
    );
    assert_eq!(
        error(&d, "[1, 2, \"a\", 4]").2,
        "$: the list has more values than expected"
    );
    // Open after the prefix: the rest by `items`.
    let open = decoder(
        json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}),
    );
    assert_eq!(decode(&open, r#"[1, "2", 3]"#).0, json!(["1", 2, 3]));
}

// ----- enum, const ------------------------------------------------------------

#[test]
fn string_enums_read_as_a_unit_enums_variants() {
    let d = decoder(json!({"enum": ["in_progress", "done"]}));
    assert_eq!(
        decode(&d, "\"In Progress\""),
        (
            json!("in_progress"),
            strings(&["$ enum_variant \"In Progress\" -> \"in_progress\""])
        )
    );
    assert_eq!(decode(&d, "done").0, json!("done"));
    assert_eq!(
        error(&d, "\"started\""),
        (
            ErrorKind::Data,
            "$".into(),
            "$: expected one of \"in_progress\", \"done\", got \"started\"".into()
        )
    );
    // Prose holding one of the values, as for a unit enum.
    assert_eq!(decode(&d, "The status is **done**.").0, json!("done"));
}

#[test]
fn other_enums_and_consts_are_checked_by_value() {
    let d = decoder(json!({"enum": [1, 2, 3]}));
    assert_eq!(
        decode(&d, "\"2\""),
        (json!(2), strings(&["$ string_to_number \"2\" -> 2"]))
    );
    assert_eq!(error(&d, "4").2, "$: expected one of 1, 2, 3, got 4");
    let c = decoder(
        json!({"type": "object", "properties": {"v": {"const": 2}, "kind": {"const": "search"}}}),
    );
    assert_eq!(
        decode(&c, r#"{"v": 2.0, "kind": "Search"}"#),
        (
            json!({"v": 2, "kind": "search"}),
            strings(&[
                "$.v float_to_integer 2.0 -> 2",
                "$.kind enum_variant \"Search\" -> \"search\""
            ])
        )
    );
    assert_eq!(error(&c, r#"{"v": 3}"#).2, "$.v: expected 2, got 3");
    let mixed = decoder(json!({"enum": ["auto", 0, null]}));
    assert_eq!(decode(&mixed, "null").0, json!(null));
    assert_eq!(decode(&mixed, "0").0, json!(0));
    assert_eq!(
        error(&mixed, "\"manual\"").2,
        "$: expected one of \"auto\", 0, got \"manual\""
    );
    // `null` among the values makes the rest nullable, as an `Option`:
    // a placeholder for "no value" is `null`.
    assert_eq!(
        decode(&mixed, "\"none\""),
        (json!(null), strings(&["$ none_sentinel \"none\" -> null"]))
    );
}

// ----- anyOf, oneOf ----------------------------------------------------------

#[test]
fn any_of_takes_the_alternative_that_needed_least() {
    let d = decoder(json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}));
    assert_eq!(decode(&d, "5"), (json!(5), vec![]));
    assert_eq!(decode(&d, "\"5\""), (json!("5"), vec![]));
    assert_eq!(
        decode(&d, "true"),
        (json!("true"), strings(&["$ to_string true -> \"true\""]))
    );
    assert_eq!(
        error(&d, "[1]").2,
        "$: the value fits none of the 2 alternatives: #0 (an integer): not that kind of value; #1 (a string): not that kind of value"
    );
}

fn shapes() -> SchemaDecoder {
    decoder(json!({
        "type": "object",
        "properties": {"shape": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
            {"type": "object", "properties": {"kind": {"const": "rect"}, "w": {"type": "number"}, "h": {"type": "number"}}, "required": ["kind", "w", "h"]}
        ]}},
        "required": ["shape"]
    }))
}

#[test]
fn one_of_with_a_tag_coerces_inside_the_variant() {
    let reply = r#"{"shape": {"kind": "Rect", "w": "3", "h": 4}}"#;
    let (v, report) = shapes().decode_with_report(reply).unwrap();
    assert_eq!(v, json!({"shape": {"kind": "rect", "w": 3, "h": 4}}));
    assert_eq!(
        coercions(&report),
        [
            "$.shape.kind enum_variant \"Rect\" -> \"rect\"",
            "$.shape.w string_to_number \"3\" -> 3",
        ]
    );
    // At the alternative's value: it was read again from its JSON.
    let at = reply.find("{\"kind\"").unwrap();
    assert!(report.coercions.iter().all(|c| c.offset == at));
    assert_eq!(
        error(&shapes(), r#"{"shape": {"kind": "triangle"}}"#).2,
        "$.shape: the value fits none of the 2 alternatives: \
         #0 (an object with `kind`: \"circle\", `r`): $.kind: expected one of \"circle\", got \"triangle\"; \
         #1 (an object with `h`, `kind`: \"rect\", `w`): $.kind: expected one of \"rect\", got \"triangle\""
    );
}

#[test]
fn two_alternatives_that_fit_equally_are_an_ambiguity_naming_both() {
    let d = decoder(json!({"anyOf": [
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        {"type": "object", "properties": {"a": {"type": "boolean"}}}
    ]}));
    assert_eq!(decode(&d, r#"{"a": 1}"#), (json!({"a": 1}), vec![]));
    assert_eq!(
        decode(&d, r#"{"a": "yes"}"#),
        (
            json!({"a": true}),
            strings(&["$.a to_bool \"yes\" -> true"])
        )
    );
    // `1.0` is neither as written: each needs one coercion, to different
    // values.
    assert_eq!(
        error(&d, r#"{"a": 1.0}"#),
        (
            ErrorKind::Data,
            "$".into(),
            "$: ambiguous value: it fits alternatives #0 (an object with `a`) and #1 (an object with `a`) equally well".into()
        )
    );
    // Equal fits that read the value the same way are no ambiguity.
    let same =
        decoder(json!({"anyOf": [{"type": "string"}, {"type": "string", "maxLength": 100}]}));
    assert_eq!(decode(&same, "\"x\"").0, json!("x"));
}

#[test]
fn a_bound_broken_ranks_an_alternative_last() {
    let d = decoder(json!({"anyOf": [
        {"type": "string", "maxLength": 3},
        {"type": "integer"}
    ]}));
    // "12345" fits the integer by a coercion and the string by none, but
    // breaks the string's bound.
    assert_eq!(
        decode(&d, "\"12345\""),
        (
            json!(12345),
            strings(&["$ string_to_number \"12345\" -> 12345"])
        )
    );
    assert_eq!(decode(&d, "\"abc\"").0, json!("abc"));
    assert_eq!(
        error(&d, "\"abcdef\"").2,
        "$: expected at most 3 characters, got \"abcdef\""
    );
}

// ----- allOf, $ref ------------------------------------------------------------

#[test]
fn all_of_is_merged() {
    let d = decoder(json!({
        "$defs": {"Named": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        "allOf": [
            {"$ref": "#/$defs/Named"},
            {"properties": {"age": {"type": "integer", "minimum": 0}}, "required": ["age"]}
        ],
        "additionalProperties": false
    }));
    assert_eq!(
        decode(&d, r#"{"name": "ada", "age": "36", "x": 1}"#),
        (
            json!({"name": "ada", "age": 36}),
            strings(&[
                "$.age string_to_number \"36\" -> 36",
                "$.x extra_key \"x\" -> "
            ])
        )
    );
    assert_eq!(
        error(&d, r#"{"name": "ada"}"#).2,
        "$: missing required field \"age\""
    );
    assert_eq!(
        error(&d, r#"{"name": "ada", "age": -1}"#).2,
        "$.age: expected a number at least 0, got -1"
    );
}

#[test]
fn refs_resolve_through_defs_definitions_and_recursion() {
    let d = decoder(json!({
        "definitions": {"Leaf": {"type": "string"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"$ref": "#/definitions/Leaf"},
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                },
                "required": ["name"]
            }
        },
        "$ref": "#/$defs/Node"
    }));
    let (v, report) = d
        .decode_with_report(r#"{"name": "a", "kids": [{"name": "b", "kids": [{"name": 3}]}]}"#)
        .unwrap();
    assert_eq!(
        v,
        json!({"name": "a", "kids": [{"name": "b", "kids": [{"name": "3"}]}]})
    );
    assert_eq!(
        coercions(&report),
        ["$.kids[0].kids[0].name to_string 3 -> \"3\""]
    );
    // The root itself.
    let list =
        decoder(json!({"type": "array", "items": {"anyOf": [{"type": "integer"}, {"$ref": "#"}]}}));
    assert_eq!(decode(&list, "[1, [2, [\"3\"]]]").0, json!([1, [2, [3]]]));
}

#[test]
fn schemas_it_cannot_follow_are_refused_with_where_and_why() {
    let table: &[(Value, &str)] = &[
        (json!({"type": "object", "properties": {"a": {"not": {"type": "string"}}}}),
         "JSON Schema: at /properties/a: unknown keyword `not` (SchemaOptions::ignore_unknown_keywords leaves such keywords out)"),
        (json!({"$ref": "#/$defs/Missing"}), "JSON Schema: the $ref `#/$defs/Missing` points nowhere in the schema"),
        (json!({"$ref": "https://example.com/s.json"}),
         "JSON Schema: the $ref `https://example.com/s.json` is not within this document (only `#…` references are)"),
        (json!({"type": "strin"}), "JSON Schema: unknown type `strin`"),
        (json!({"type": "string", "pattern": "(a)\\1"}),
         "JSON Schema: at /pattern: the pattern `(a)\\1`: the backreference `\\1` is not supported"),
        (json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
         "JSON Schema: at /allOf/1: allOf: the types \"string\" and \"integer\" have no value in common"),
        (json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}),
         "JSON Schema: the $ref `#/$defs/A` refers to itself through $refs alone"),
        (json!({"anyOf": [{"$ref": "#"}]}),
         "JSON Schema: a schema that is only a reference to itself (through anyOf or oneOf of one)"),
        (json!({"type": "object", "required": "a"}), "JSON Schema: required must be a list of strings"),
        (json!(3), "JSON Schema: a schema must be an object or a boolean"),
    ];
    for (schema, message) in table {
        let e = SchemaDecoder::new(schema).unwrap_err();
        assert_eq!(e.to_string(), *message, "{schema}");
    }
    // Nested deeper than a stack holds: refused, not a crash.
    let mut deep = json!({"type": "string"});
    for _ in 0..10_000 {
        let mut outer = serde_json::Map::new();
        outer.insert("type".into(), json!("array"));
        outer.insert("items".into(), deep);
        deep = Value::Object(outer);
    }
    let e = SchemaDecoder::new(&deep).unwrap_err();
    assert_eq!(e.message(), "the schema nests more than 128 deep");
    // (Dropping a value this deep overflows serde_json's recursive drop.)
    std::mem::forget(deep);
    let lenient = SchemaOptions::new().ignore_unknown_keywords();
    let d = SchemaDecoder::with_options(
        &json!({"type": "object", "properties": {"a": {"type": "integer", "x-ui-widget": "slider"}}}),
        lenient,
    )
    .unwrap();
    assert_eq!(decode(&d, r#"{"a": "3"}"#).0, json!({"a": 3}));
}

// ----- default ---------------------------------------------------------------

#[test]
fn defaults_are_filled_in_reported_and_not_counted_as_fixes() {
    let d = decoder(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "default": 10},
            "filters": {"type": "object", "default": {"lang": "en"}}
        },
        "required": ["query"]
    }));
    let reply = r#"{"query": "x"}"#;
    let (v, report) = d.decode_with_report(reply).unwrap();
    assert_eq!(
        v,
        json!({"query": "x", "limit": 10, "filters": {"lang": "en"}})
    );
    assert_eq!(
        coercions(&report),
        // At the object, in the order of the schema's properties (sorted,
        // as serde_json's map keeps them).
        [
            "$.filters default_value  -> {\"lang\":\"en\"}",
            "$.limit default_value  -> 10"
        ]
    );
    assert_eq!((report.fixes(), report.coercions[0].offset), (0, 0));
    // Leaving a property out is no mistake: max_repairs(0) accepts it.
    let exacting = d.clone().with_decoder(Decoder::new().max_repairs(0));
    assert_eq!(exacting.decode(reply).unwrap(), v);
    // Denied: absent.
    let bare = d.with_decoder(Decoder::new().deny(CoercionKind::DefaultValue));
    assert_eq!(bare.decode(reply).unwrap(), json!({"query": "x"}));
}

// ----- format and bounds, as a contract ---------------------------------------

#[test]
fn bounds_and_formats_are_a_contract_with_paths() {
    let d = decoder(json!({
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "id": {"type": "string", "format": "uuid"},
            "count": {"type": "integer", "minimum": 1, "maximum": 20},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "step": {"type": "integer", "multipleOf": 5},
            "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2, "uniqueItems": true},
            "meta": {"type": "object", "maxProperties": 1},
            "small": {"type": "integer", "format": "uint8"},
            "email": {"type": "string", "format": "email"}
        }
    }));
    let ok = r#"{"when": "2024-05-14T09:30:00Z", "day": "2024-02-29", "id": "123e4567-e89b-12d3-a456-426614174000",
        "count": "20", "ratio": 0.5, "step": 15, "name": "ada", "tags": ["a"], "meta": {}, "small": 255, "email": "not checked"}"#;
    assert_eq!(d.decode(ok).unwrap()["count"], 20);
    let bad = r#"{"when": "May 14, 9:30", "day": "2023-02-29", "id": "123", "count": 0, "ratio": 1,
        "step": 7, "name": "Ada Lovelace", "tags": ["a", "a", "b"], "meta": {"a": 1, "b": 2}, "small": 256}"#;
    let e = d.decode(bad).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Contract);
    // One line per violation, in the order the values were read.
    assert_eq!(
        e.feedback(),
        "$.when: expected a date-time (RFC 3339, like 2024-05-14T09:30:00Z), got \"May 14, 9:30\"\n\
         $.day: expected a date (like 2024-05-14), got \"2023-02-29\"\n\
         $.id: expected a UUID (like 123e4567-e89b-12d3-a456-426614174000), got \"123\"\n\
         $.count: expected a number at least 1, got 0\n\
         $.ratio: expected a number less than 1, got 1\n\
         $.step: expected a multiple of 5, got 7\n\
         $.name: expected at most 5 characters, got \"Ada Lovelace\"\n\
         $.name: expected a string matching the pattern `^[a-z]+$`, got \"Ada Lovelace\"\n\
         $.tags: expected at most 2 items, got [\"a\",\"a\",\"b\"]\n\
         $.tags: expected items that are all different, got [\"a\",\"a\",\"b\"]\n\
         $.meta: expected at most 1 property, got {\"a\":1,\"b\":2}\n\
         $.small: expected an integer that fits uint8, got 256"
    );
    assert_eq!(e.violations().len(), 12);
    // A format is checked, never coerced: the value is not guessed at.
    assert_eq!(
        d.decode_partial(bad).unwrap().unwrap()["when"],
        "May 14, 9:30"
    );
}

// ----- x-partial, x-required-for-view, decode_partial ----------------------------

fn article() -> SchemaDecoder {
    decoder(json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer", "x-required-for-view": true},
            "title": {"type": "string"},
            "body": {"type": "string", "x-partial": true},
            "tags": {"type": "array", "items": {"type": "string"}, "x-partial": true},
            "scores": {"type": "array", "items": {"type": "number"}, "x-partial": true},
            "published": {"type": "string", "format": "date", "x-partial": true},
            "status": {"enum": ["draft", "live"]}
        },
        "required": ["id", "title"]
    }))
}

#[test]
fn a_view_shows_what_may_grow_as_far_as_it_goes() {
    let d = article();
    let table: &[(&str, Option<Value>)] = &[
        ("", None),
        ("Sure, here", None),
        (r#"{"id": 1"#, None),
        (r#"{"id": 12, "title": "Sour"#, Some(json!({"id": 12}))),
        (
            r#"{"id": 12, "title": "Sourdough", "body": "Feed the st"#,
            Some(json!({"id": 12, "title": "Sourdough", "body": "Feed the st"})),
        ),
        (
            r#"{"id": 12, "tags": ["bread", "ferm"#,
            Some(json!({"id": 12, "tags": ["bread", "ferm"]})),
        ),
        (
            r#"{"id": 12, "scores": [1.5, 2"#,
            Some(json!({"id": 12, "scores": [1.5]})),
        ),
        (
            r#"{"id": 12, "published": "2024-0"#,
            Some(json!({"id": 12})),
        ),
        (r#"{"id": 12, "status": "li"#, Some(json!({"id": 12}))),
        (
            r#"{"id": 12, "status": "live", "x": nu"#,
            Some(json!({"id": 12, "status": "live"})),
        ),
        (
            r#"{"id": 12, "status": "live", "x": null,"#,
            Some(json!({"id": 12, "status": "live", "x": null})),
        ),
    ];
    for (text, want) in table {
        assert_eq!(d.decode_partial(text).unwrap(), *want, "{text}");
    }
}

#[test]
fn a_cut_reply_decodes_as_the_typed_path_decodes_it() {
    let d = article();
    // The required title cut off: the typed path's truncation error.
    let e = d.decode(r#"{"id": 12, "title": "Sour"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    // A body marked partial keeps its prefix; an optional property cut off
    // is absent.
    let (v, report) = d
        .decode_with_report(r#"{"id": 12, "title": "Bread", "body": "Feed the st"#)
        .unwrap();
    assert_eq!(
        v,
        json!({"id": 12, "title": "Bread", "body": "Feed the st"})
    );
    assert!(report.truncated);
    assert_eq!(
        d.decode(r#"{"id": 12, "title": "Bread", "status": "dra"#)
            .unwrap(),
        json!({"id": 12, "title": "Bread"})
    );
}

#[test]
fn every_prefix_of_a_reply_gives_a_view_consistent_with_the_whole() {
    let d = article();
    let reply = r#"Here is the article:
```json
{"id": 7, "title": "Sourdough", "body": "Feed the starter.\nWait.", "tags": ["bread", "slow"],
 "scores": [4.5, 5], "published": "2024-05-14", "status": "live", "extra": {"k": [1, 2]}}
```"#;
    let whole = d.decode(reply).unwrap();
    let mut last: Option<Value> = None;
    for end in (0..=reply.len()).filter(|&i| reply.is_char_boundary(i)) {
        let view = d
            .decode_partial(&reply[..end])
            .unwrap_or_else(|e| panic!("{end}: {e}"));
        if let Some(v) = &view {
            consistent(v, &whole, end);
        }
        if last.is_some() {
            assert!(view.is_some(), "a view was taken back at {end}");
        }
        last = view;
    }
    assert_eq!(last, Some(whole));
}

/// Every member and element of `view` is in `whole` as it is, but a
/// string (or a list) that may still grow.
fn consistent(view: &Value, whole: &Value, at: usize) {
    match (view, whole) {
        (Value::Object(v), Value::Object(w)) => {
            for (k, x) in v {
                consistent(
                    x,
                    w.get(k)
                        .unwrap_or_else(|| panic!("{at}: {k} is not in the whole")),
                    at,
                );
            }
        }
        (Value::Array(v), Value::Array(w)) => {
            assert!(v.len() <= w.len(), "{at}");
            for (x, y) in v.iter().zip(w) {
                consistent(x, y, at);
            }
        }
        (Value::String(v), Value::String(w)) => {
            assert!(w.starts_with(v.as_str()), "{at}: {v} then {w}")
        }
        (v, w) => assert_eq!(v, w, "{at}"),
    }
}

// ----- stream ------------------------------------------------------------------

#[test]
fn the_stream_is_the_partial_view_at_every_split() {
    let d = article();
    let reply = r#"```json
{"id": 7, "title": "Sourdough — le pain", "body": "Feed it.", "tags": ["bread"], "status": "live"}
```"#;
    let bytes = reply.as_bytes();
    for split in 0..=bytes.len() {
        let mut s = d.stream();
        for (i, chunk) in [&bytes[..split], &bytes[split..]].into_iter().enumerate() {
            s.push(chunk).unwrap();
            let so_far = if i == 0 { &bytes[..split] } else { bytes };
            // A character cut by the split is held back.
            let text = match std::str::from_utf8(so_far) {
                Ok(t) => t,
                Err(e) => std::str::from_utf8(&so_far[..e.valid_up_to()]).unwrap(),
            };
            assert_eq!(s.text(), text);
            assert_eq!(
                s.view().cloned(),
                d.decode_partial(text).unwrap(),
                "split {split}"
            );
        }
        assert_eq!(s.finish().unwrap(), d.decode(reply).unwrap());
    }
    // Byte by byte.
    let mut s = d.stream();
    for (i, b) in bytes.iter().enumerate() {
        s.push([*b]).unwrap();
        let text = String::from_utf8_lossy(&bytes[..=i]);
        let text = text.trim_end_matches('\u{FFFD}');
        assert_eq!(
            s.view().cloned(),
            d.decode_partial(text).unwrap(),
            "byte {i}"
        );
    }
}

#[test]
fn the_stream_says_which_values_are_complete() {
    let d = article();
    let mut s = d.stream();
    s.push(r#"{"id": 7, "title": "Bread", "tags": ["a", "b"#)
        .unwrap();
    let root = Path::root();
    assert!(s.is_complete(&root.clone().key("id")));
    assert!(s.is_complete(&root.clone().key("title")));
    assert!(s.is_complete(&root.clone().key("tags").index(0)));
    assert!(!s.is_complete(&root.clone().key("tags").index(1)));
    assert!(!s.is_complete(&root.clone().key("tags")));
    assert!(!s.is_complete(&root));
    assert!(!s.is_complete(&root.clone().key("body")));
    s.push("\"]}").unwrap();
    assert!(s.is_complete(&root.clone().key("tags")));
    assert!(s.is_complete(&root));
    // Invalid UTF-8 is final.
    let mut s = d.stream();
    assert_eq!(
        s.push(b"{\"id\": 1, \"title\": \"\xff").unwrap_err().kind(),
        ErrorKind::InvalidUtf8
    );
    assert_eq!(s.push("\"}").unwrap_err().kind(), ErrorKind::InvalidUtf8);
}

// ----- the decoder's options ----------------------------------------------------

#[test]
fn the_decoders_options_apply() {
    let d = account();
    let messy = "{user_name: 'ada', age: 36,}";
    assert_eq!(
        d.decode(messy).unwrap(),
        json!({"user_name": "ada", "age": 36})
    );
    let strict = d.clone().with_decoder(Decoder::strict());
    assert_eq!(strict.decode(messy).unwrap_err().kind(), ErrorKind::Denied);
    let capped = d.clone().with_decoder(Decoder::new().max_repairs(1));
    let e = capped
        .decode(r#"{"user_name": "ada", "age": "36", "tags": "x"}"#)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rejected);
    assert_eq!(e.report().unwrap().fixes(), 2);
    let (_, report) = d
        .decode_with_report("```json\n{\"user_name\": \"ada\"}\n```")
        .unwrap();
    // A reply that is only a fence is the whole reply, as for a type.
    assert_eq!(
        (report.strategy, report.span.clone()),
        (serde_llm::Strategy::Whole, 8..28)
    );
    assert_eq!(repairs(&report), []);
}

#[test]
fn a_schema_decoder_is_shared_across_threads() {
    fn send_sync<T: Send + Sync + Clone + 'static>(_: &T) {}
    let d = account();
    send_sync(&d);
    std::thread::scope(|s| {
        for i in 0..4 {
            let d = &d;
            s.spawn(move || {
                let reply = format!("{{\"user_name\": \"u{i}\", \"age\": \"{i}\"}}");
                assert_eq!(
                    d.decode(&reply).unwrap(),
                    json!({"user_name": format!("u{i}"), "age": i})
                );
            });
        }
    });
}

#[test]
fn a_views_list_leaves_out_elements_without_their_required_part() {
    let d = decoder(json!({
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "x-partial": true,
                "items": {
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer", "x-required-for-view": true},
                        "text": {"type": "string", "x-partial": true},
                        "done": {"type": ["boolean", "null"]}
                    }
                }
            }
        }
    }));
    let table: &[(&str, Value)] = &[
        (
            r#"{"steps": [{"n": 1, "text": "Mix", "done": null}, {"text": "Bake"#,
            json!({"steps": [{"n": 1, "text": "Mix", "done": null}]}),
        ),
        (
            r#"{"steps": [{"n": 1, "done": nu"#,
            json!({"steps": [{"n": 1}]}),
        ),
        (
            r#"{"steps": [{"n": 1, "done": true}, {"n": 2, "text": "Ba"#,
            json!({"steps": [{"n": 1, "done": true}, {"n": 2, "text": "Ba"}]}),
        ),
        (
            r#"{"steps": [{"text": "no number"}, {"n": 2}]}"#,
            json!({"steps": [{"n": 2}]}),
        ),
    ];
    for (text, want) in table {
        assert_eq!(
            d.decode_partial(text).unwrap(),
            Some(want.clone()),
            "{text}"
        );
    }
}

#[test]
fn any_seed_drives_the_decoder() {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

    /// Counts an object's members, as a binding might build its own
    /// values instead of `serde_json::Value`s.
    #[derive(Clone, Copy)]
    struct Members;

    impl<'de> DeserializeSeed<'de> for Members {
        type Value = usize;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for Members {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
            let mut n = 0;
            while map.next_entry::<String, IgnoredAny>()?.is_some() {
                n += 1;
            }
            Ok(n)
        }
    }

    let decoder = Decoder::new();
    assert_eq!(
        decoder
            .decode_seed("Here: {a: 1, b: [2, 3],}", Members)
            .unwrap(),
        2
    );
    let (n, report) = decoder
        .decode_seed_with_report("```json\n{\"a\": 1}\n```", Members)
        .unwrap();
    assert_eq!((n, report.strategy), (1, serde_llm::Strategy::Whole));
    // A map keeps only the members complete enough: the cut one is left out.
    assert_eq!(
        decoder
            .decode_seed_partial(r#"{"a": 1, "b": "x"#, Members)
            .unwrap(),
        Some(1)
    );
    assert_eq!(
        decoder
            .decode_seed_partial("Sure, one moment", Members)
            .unwrap(),
        None
    );
    assert_eq!(
        decoder.decode_seed("[1]", Members).unwrap_err().kind(),
        ErrorKind::NoJson
    );
}
