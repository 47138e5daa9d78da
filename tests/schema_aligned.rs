//! Schemas from types at run time (cargo feature `schema`): the schemas the
//! providers accept decode replies too, and `Decoder::decode_aligned` gives
//! full coercion to what serde reads from its own buffer (internally tagged
//! and untagged enums, `flatten`).

#![cfg(feature = "schema")]

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use serde_llm::{anthropic_schema, openai_schema, CoercionKind, Decoder, ErrorKind, SchemaDecoder};

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    High,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Ticket {
    title: String,
    priority: Priority,
    estimate_hours: Option<u32>,
    labels: Vec<String>,
}

#[test]
fn the_providers_schemas_decode_replies() {
    let reply =
        r#"{"title": "Login fails", "priority": "HIGH", "estimate_hours": "3", "labels": "auth"}"#;
    let want = json!({"title": "Login fails", "priority": "high", "estimate_hours": 3, "labels": ["auth"]});
    for schema in [
        serde_llm::schema::<Ticket>(),
        openai_schema::<Ticket>().unwrap(),
        anthropic_schema::<Ticket>().unwrap(),
    ] {
        let d = SchemaDecoder::new(&schema).unwrap_or_else(|e| panic!("{e}: {schema}"));
        let (v, report) = d.decode_with_report(reply).unwrap();
        assert_eq!(v, want, "{schema}");
        let kinds: Vec<CoercionKind> = report.coercions.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            [
                CoercionKind::EnumVariant,
                CoercionKind::StringToNumber,
                CoercionKind::OneToSequence
            ],
            "{schema}"
        );
        // Each is the typed path's reading.
        assert_eq!(
            Ticket::deserialize(&v).unwrap(),
            serde_llm::from_llm_str::<Ticket>(reply).unwrap()
        );
    }
    // OpenAI's strict schema lists every property as required, the
    // `Option` one as nullable: a reply that leaves it out is an error
    // there, as the provider would have it; `null` is its value.
    let strict = SchemaDecoder::new(&openai_schema::<Ticket>().unwrap()).unwrap();
    let e = strict
        .decode(r#"{"title": "x", "priority": "low", "labels": []}"#)
        .unwrap_err();
    assert_eq!(e.feedback(), "$: missing required field \"estimate_hours\"");
    assert_eq!(
        strict
            .decode(r#"{"title": "x", "priority": "low", "estimate_hours": null, "labels": []}"#)
            .unwrap(),
        json!({"title": "x", "priority": "low", "estimate_hours": null, "labels": []})
    );
    // And refuses a key it does not name, as its `additionalProperties:
    // false` says, when strict.
    let e = strict
        .clone()
        .with_decoder(Decoder::strict())
        .decode(
            r#"{"title": "x", "priority": "low", "estimate_hours": null, "labels": [], "x": 1}"#,
        )
        .unwrap_err();
    // (The schema's properties in serde_json's order, sorted.)
    assert_eq!(
        e.to_string(),
        "unknown field `x`, expected one of `estimate_hours`, `labels`, `priority`, `title` at $.x (line 1, column 73)"
    );
}

/// A tool call: serde reads the variant's fields from its buffer.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "tool", rename_all = "snake_case")]
enum Call {
    Search {
        query: String,
        max_results: u32,
        #[serde(default)]
        fresh: bool,
    },
    Fetch {
        url: String,
    },
    Stop,
}

#[test]
fn internally_tagged_enums_get_coercion() {
    let reply = r#"{"tool": "Search", "query": "serde", "max_results": "4", "fresh": "yes"}"#;
    // The typed path coerces inside the call too (a value serde buffered
    // is read again as the kind serde wanted), and agrees.
    let typed = serde_llm::from_llm_str::<Call>(reply).unwrap();
    let (call, report) = Decoder::new()
        .decode_aligned_with_report::<Call>(reply)
        .unwrap();
    assert_eq!(
        call,
        Call::Search {
            query: "serde".into(),
            max_results: 4,
            fresh: true
        }
    );
    assert_eq!(typed, call);
    let kinds: Vec<String> = report
        .coercions
        .iter()
        .map(|c| format!("{} {}", c.path, c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            "$.tool enum_variant",
            "$.max_results string_to_number",
            "$.fresh to_bool"
        ]
    );
    // A default serde fills in is the schema's default too.
    let call: Call = Decoder::new()
        .decode_aligned(r#"Calling: {"tool": "search", "query": "x", "max_results": 2.0}"#)
        .unwrap();
    assert_eq!(
        call,
        Call::Search {
            query: "x".into(),
            max_results: 2,
            fresh: false
        }
    );
    assert_eq!(
        Decoder::new()
            .decode_aligned::<Call>(r#"{"tool": "stop"}"#)
            .unwrap(),
        Call::Stop
    );
    // A variant that fits none: the reasons for each.
    let e = Decoder::new()
        .decode_aligned::<Call>(r#"{"tool": "delete", "path": "/"}"#)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert!(
        e.message()
            .starts_with("the value fits none of the 3 alternatives"),
        "{e}"
    );
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Amount {
    Exact(u64),
    Range { min: u64, max: u64 },
    Words(String),
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Budget {
    amount: Amount,
}

#[test]
fn untagged_enums_take_the_variant_that_needed_least() {
    let decode = |reply: &str| {
        Decoder::new()
            .decode_aligned::<Budget>(reply)
            .unwrap()
            .amount
    };
    assert_eq!(decode(r#"{"amount": 5}"#), Amount::Exact(5));
    assert_eq!(decode(r#"{"amount": "5"}"#), Amount::Words("5".into()));
    // `5.0` is 5 by one coercion and "5.0" by another: not a guess.
    let e = Decoder::new()
        .decode_aligned::<Budget>(r#"{"amount": 5.0}"#)
        .unwrap_err();
    assert_eq!(
        e.feedback(),
        "$.amount: ambiguous value: it fits alternatives #0 (an integer) and #2 (a string) equally well"
    );
    assert_eq!(
        decode(r#"{"amount": {"min": "1", "max": 3}}"#),
        Amount::Range { min: 1, max: 3 }
    );
    assert_eq!(
        decode(r#"{"amount": "about ten"}"#),
        Amount::Words("about ten".into())
    );
    // The typed path reads `{"min": "1", …}` from serde's buffer: no
    // coercion, so no variant fits.
    assert!(serde_llm::from_llm_str::<Budget>(r#"{"amount": {"min": "1", "max": 3}}"#).is_err());
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Paging {
    page: u32,
    per_page: u32,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct ListIssues {
    repo: String,
    #[serde(flatten)]
    paging: Paging,
}

#[test]
fn flattened_fields_get_coercion() {
    let reply = r#"{"repo": "serde-rs/serde", "page": "2", "perPage": 50}"#;
    assert!(serde_llm::from_llm_str::<ListIssues>(reply).is_err());
    let v: ListIssues = Decoder::new().decode_aligned(reply).unwrap();
    assert_eq!(
        v,
        ListIssues {
            repo: "serde-rs/serde".into(),
            paging: Paging {
                page: 2,
                per_page: 50
            }
        }
    );
}

#[test]
fn aligned_decodes_check_the_types_ranges() {
    // A `u8` is 0 to 255: schemars says so, and the schema path checks it.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Dial {
        level: u8,
    }
    let e = Decoder::new()
        .decode_aligned::<Dial>(r#"{"level": 300}"#)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Contract);
    assert_eq!(e.feedback(), "$.level: expected a number at most 255, got 300\n$.level: expected an integer that fits uint8, got 300");
}
