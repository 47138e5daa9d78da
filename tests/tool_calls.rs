//! Tool calls at the root behave like every other target (tried as a new
//! user would, with the `#[serde(tag = "tool")]` enum agents use): a refusal
//! is `NoJson`, a call cut off inside a required field is `Truncated` (with
//! a report whose `truncated` is set), and no `feedback()` names a Rust
//! type or serde's internals.

use serde::Deserialize;
use serde_llm::{Decoder, ErrorKind};

#[allow(dead_code)]
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "tool", rename_all = "snake_case")]
enum ToolCall {
    Search { query: String, max_results: u32 },
    Reply { text: String },
    Stop,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum Adjacent {
    Search { query: String, max_results: u32 },
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum Either {
    Pair { left: String, right: u32 },
    One { left: String },
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, PartialEq)]
struct Point(i32, i32);

const REFUSALS: [&str; 5] = [
    "I'm sorry, I can't help with that.",
    "Sorry — I cannot do that.",
    "I can't assist with that request, as it isn't something I'm able to do.",
    "No.",
    "As an AI model I won't run that tool: it's unsafe",
];

#[test]
fn a_refusal_is_no_json() {
    for reply in REFUSALS {
        let e = serde_llm::from_llm_str::<ToolCall>(reply).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply}: {e}");
        let e = serde_llm::from_llm_str::<Adjacent>(reply).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply}: {e}");
        // And a view shows nothing.
        assert!(Decoder::new()
            .decode_partial::<serde_json::Value>(reply)
            .unwrap()
            .is_none());
    }
    // The call itself, in prose or a fence, still decodes.
    let call: ToolCall =
        serde_llm::from_llm_str("Sure: {\"tool\": \"reply\", \"text\": \"hi\"}").unwrap();
    assert_eq!(call, ToolCall::Reply { text: "hi".into() });
    let call: ToolCall = serde_llm::from_llm_str("```json\n{\"tool\": \"stop\"}\n```").unwrap();
    assert_eq!(call, ToolCall::Stop);
}

#[test]
fn a_call_cut_inside_a_required_field_is_truncated() {
    let call = r#"{"tool": "search", "query": "rust serde", "max_results": 4}"#;
    assert_eq!(
        serde_llm::from_llm_str::<ToolCall>(call).unwrap(),
        ToolCall::Search {
            query: "rust serde".into(),
            max_results: 4
        }
    );
    // Every cut after the object opens: never "missing field" (which tells
    // the model it forgot a field it was writing).
    for end in 1..call.len() - 1 {
        let cut = &call[..end];
        let e = serde_llm::from_llm_str::<ToolCall>(cut).unwrap_err();
        assert_ne!(e.kind(), ErrorKind::Data, "{cut:?}: {e}");
        if e.kind() == ErrorKind::Truncated && e.to_string().contains("before the required field") {
            let report = e.report().expect("the reading");
            assert!(report.truncated, "{cut:?}");
            assert!(
                e.feedback().contains("cut off"),
                "{cut:?}: {}",
                e.feedback()
            );
        }
    }
    let e = serde_llm::from_llm_str::<ToolCall>(r#"{"tool": "search", "query": "ru"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    assert_eq!(
        e.to_string(),
        "the reply was cut off before the required field `query` (line 1, column 29)"
    );
    // Complete, a missing field is the model's: `Data`, with its name.
    let e =
        serde_llm::from_llm_str::<ToolCall>(r#"{"tool": "search", "query": "rust"}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert_eq!(e.feedback(), r#"$: missing required field "max_results""#);
    // Cut, a value of the wrong type is still the model's.
    let e = serde_llm::from_llm_str::<ToolCall>(
        r#"{"tool": "search", "max_results": "many", "query": "ru"#,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
}

/// What the feedback says for replies of the wrong shape: the JSON wanted,
/// never the Rust type.
#[test]
fn feedback_names_no_rust_type() {
    let rust = [
        "ToolCall", "Adjacent", "Either", "Point", "enum", "struct", "variant", "serde",
    ];
    let check = |feedback: String| {
        for word in rust {
            assert!(!feedback.contains(word), "{feedback:?} names {word}");
        }
        feedback
    };
    let tool = |reply: &str| {
        check(
            serde_llm::from_llm_str::<ToolCall>(reply)
                .unwrap_err()
                .feedback(),
        )
    };
    // Not an object at all: as for a struct, no JSON object was found.
    for reply in ["[1, 2]", "42", "\"search\""] {
        let e = serde_llm::from_llm_str::<ToolCall>(reply).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply}");
        assert!(
            tool(reply).starts_with("$: expected a JSON object, found"),
            "{reply}"
        );
    }
    assert_eq!(
        tool(r#"{"tool": "search", "query": "q", "max_results": "many"}"#),
        r#"$.max_results: expected a non-negative integer, got "many""#
    );
    let e =
        serde_llm::from_llm_str::<Adjacent>(r#"{"name": "search", "arguments": [1]}"#).unwrap_err();
    assert_eq!(
        check(e.feedback()),
        "$.arguments: expected an object, got a list"
    );
    let e = serde_llm::from_llm_str::<Vec<Either>>(r#"[{"right": 2}]"#).unwrap_err();
    assert_eq!(
        check(e.feedback()),
        "$[0]: the value matches none of the shapes expected here"
    );
    let e = serde_llm::from_llm_str::<Point>(r#"{"x": 1}"#).unwrap_err();
    assert_eq!(
        check(e.feedback()),
        "$: invalid type: expected a list, got an object with keys `x`"
    );
    // An unknown tool names the tools.
    let e = serde_llm::from_llm_str::<ToolCall>(r#"{"tool": "fetch"}"#).unwrap_err();
    assert_eq!(
        check(e.feedback()),
        r#"$.tool: expected one of "search", "reply", "stop", got "fetch""#
    );
}

/// A tool call's view, read without serde's buffer: flattened into a
/// struct it keeps every field; a tag in another style is read as the
/// variant (with a coercion), as the call itself reads it; a bare string
/// or a number is no call.
#[derive(Debug, Deserialize, serde_llm::Partial, PartialEq)]
#[serde(tag = "tool", rename_all = "snake_case")]
enum Act {
    WebSearch {
        #[llm(partial)]
        query: String,
        limit: Option<u32>,
    },
    Stop,
}

#[derive(Debug, Deserialize, serde_llm::Partial, PartialEq)]
struct Turn {
    id: u32,
    #[serde(flatten)]
    act: Act,
}

#[derive(Debug, Deserialize, serde_llm::Partial, PartialEq)]
struct Acts {
    #[llm(partial)]
    acts: Vec<Act>,
}

#[test]
fn a_tool_call_view_reads_as_the_call_does() {
    // Flattened: every member reaches the view.
    let text = r#"{"id": 1, "tool": "web_search", "query": "rust", "limit": 3}"#;
    let view = serde_llm::from_llm_str_partial::<Turn>(text)
        .unwrap()
        .unwrap();
    assert_eq!(
        view.act,
        Some(ActView::WebSearch {
            query: Some("rust".into()),
            limit: Some(3)
        })
    );
    assert_eq!(
        serde_llm::from_llm_str::<Turn>(text).unwrap().act,
        Act::WebSearch {
            query: "rust".into(),
            limit: Some(3)
        }
    );
    // A tag in another style: the call and its view agree.
    let text = r#"{"tool": "WebSearch", "query": "x"}"#;
    let (call, report) = Decoder::new().decode_with_report::<Act>(text).unwrap();
    assert_eq!(
        call,
        Act::WebSearch {
            query: "x".into(),
            limit: None
        }
    );
    assert_eq!(report.coercions.len(), 1);
    let view = serde_llm::from_llm_str_partial::<Act>(text).unwrap();
    assert_eq!(
        view,
        Some(ActView::WebSearch {
            query: Some("x".into()),
            limit: None
        })
    );
    // A string or a number is no call, for the view as for the call.
    for text in [
        r#"{"acts": ["stop"]}"#,
        r#"{"acts": [5]}"#,
        r#"{"acts": ["web_search"]}"#,
    ] {
        assert!(serde_llm::from_llm_str::<Acts>(text).is_err(), "{text}");
        assert!(
            serde_llm::from_llm_str_partial::<Acts>(text).is_err(),
            "{text}"
        );
    }
}

/// A tag written twice in one call is an error for the view as for the
/// call (serde's "duplicate field"), never the first tag silently: the
/// model's call is not known.
#[test]
fn a_tag_written_twice_is_no_call() {
    let duplicate = |e: serde_llm::Error, text: &str| {
        assert!(e.to_string().contains("duplicate field"), "{text}: {e}");
    };
    for text in [
        r#"{"tool": "web_search", "query": "rust", "tool": "stop"}"#,
        r#"{"tool": "web_search", "query": "rust", 'tool': "stop",}"#,
    ] {
        duplicate(
            serde_llm::from_llm_str_partial::<Act>(text).unwrap_err(),
            text,
        );
        duplicate(serde_llm::from_llm_str::<Act>(text).unwrap_err(), text);
    }
    // A first tag that is no name is still a tag written twice (serde
    // errs on the number first).
    let text = r#"{"tool": 5, "query": "rust", "tool": "web_search"}"#;
    duplicate(
        serde_llm::from_llm_str_partial::<Act>(text).unwrap_err(),
        text,
    );
    assert!(serde_llm::from_llm_str::<Act>(text).is_err());
    let text = r#"{"acts": [{"tool": "stop", "tool": "web_search", "query": "q"}]}"#;
    duplicate(
        serde_llm::from_llm_str_partial::<Acts>(text).unwrap_err(),
        text,
    );
    duplicate(serde_llm::from_llm_str::<Acts>(text).unwrap_err(), text);
    // Cut before the second tag: the view shows the call so far.
    let text = r#"{"tool": "web_search", "query": "ru"#;
    assert_eq!(
        serde_llm::from_llm_str_partial::<Act>(text).unwrap(),
        Some(ActView::WebSearch {
            query: Some("ru".into()),
            limit: None
        })
    );
}

/// Values inside a call are coerced as a plain struct's are: serde buffers
/// the call's fields and reads them without asking the decoder for types,
/// but its error names the kind it wanted, and the decode reads that value
/// again as that kind. Differential: a call and a struct of the same fields
/// decode every pair of member values alike, with the same coercions. The
/// one difference: an object or a list where a scalar is wanted, which
/// serde's error does not place (it names no value), stays the error.
#[test]
fn values_inside_a_call_are_coerced_as_a_structs_are() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct Args {
        query: String,
        max_results: u32,
    }
    let queries = [
        r#""rust""#,
        "5",
        "2.5",
        "true",
        "null",
        "-3",
        r#"["one"]"#,
        r#"{"a": 1}"#,
    ];
    let counts = [
        r#""4""#,
        "4",
        "4.0",
        r#"" 4 ""#,
        r#""4.5""#,
        r#""-1""#,
        "true",
        r#""many""#,
        "1e2",
        "null",
        r#"["4"]"#,
    ];
    let decoder = Decoder::new();
    for q in queries {
        for n in counts {
            let args = format!(r#"{{"query": {q}, "max_results": {n}}}"#);
            let call = format!(r#"{{"tool": "search", "query": {q}, "max_results": {n}}}"#);
            let plain = decoder.decode_with_report::<Args>(&args);
            let tool = decoder.decode_with_report::<ToolCall>(&call);
            match (plain, tool) {
                (Ok((a, ra)), Ok((ToolCall::Search { query, max_results }, rt))) => {
                    assert_eq!((a.query, a.max_results), (query, max_results), "{call}");
                    let kinds = |r: &serde_llm::Report| {
                        r.coercions
                            .iter()
                            .map(|c| (c.kind, c.path.clone()))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(kinds(&ra), kinds(&rt), "{call}");
                }
                (Err(_), Err(e)) => assert_eq!(e.kind(), ErrorKind::Data, "{call}"),
                (Ok(_), Err(e)) if q.starts_with(['[', '{']) || n.starts_with('[') => {
                    assert_eq!(e.kind(), ErrorKind::Data, "{call}")
                }
                (a, t) => panic!("{call}: a struct gives {a:?}, the call {t:?}"),
            }
        }
    }
    // A list of calls: each value read again where it is.
    let calls = r#"[{"tool": "search", "query": "a", "max_results": "1"},
        {"tool": "reply", "text": 2}, {"tool": "search", "query": "b", "max_results": 3.0}]"#;
    let (got, report) = decoder.decode_with_report::<Vec<ToolCall>>(calls).unwrap();
    assert_eq!(
        got,
        [
            ToolCall::Search {
                query: "a".into(),
                max_results: 1
            },
            ToolCall::Reply { text: "2".into() },
            ToolCall::Search {
                query: "b".into(),
                max_results: 3
            },
        ]
    );
    let paths: Vec<&str> = report.coercions.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["$[0].max_results", "$[1].text", "$[2].max_results"]);
    // serde also reads a tagged enum from a list (`[tag, fields…]`): no
    // value there is read again, so a list is still no call.
    let e = serde_llm::from_llm_str::<ToolCall>("[1, 2]").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoJson);
}

/// Each value serde refuses in a call is read again once, up to 64 per
/// reply: past that the error says why a value a struct takes was not.
#[test]
fn values_read_again_past_the_limit_say_so() {
    let call = |i: usize| format!(r#"{{"tool": "search", "query": "q{i}", "max_results": "{i}"}}"#);
    let list = |n: usize| format!("[{}]", (0..n).map(call).collect::<Vec<_>>().join(", "));
    let got = serde_llm::from_llm_str::<Vec<ToolCall>>(&list(64)).unwrap();
    assert_eq!(got.len(), 64);
    assert_eq!(
        got[63],
        ToolCall::Search {
            query: "q63".into(),
            max_results: 63
        }
    );
    let e = serde_llm::from_llm_str::<Vec<ToolCall>>(&list(70)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert_eq!(e.path(), "$[64].max_results");
    assert_eq!(
        e.message(),
        r#"invalid type: string "64", expected u32 (not read again as the kind wanted: the decode already read the reply 64 times for other values)"#
    );
}
