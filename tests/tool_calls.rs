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
    let e = serde_llm::from_llm_str::<ToolCall>(r#"{"tool": "search", "query": 5, "max_res"#)
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
        tool(r#"{"tool": "search", "query": 5, "max_results": 1}"#),
        "$.query: expected a string, got 5"
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
