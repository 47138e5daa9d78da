//! Where a fenced block ends: a run of backticks inside a JSON string of the
//! fenced value is the string's text, not the fence's close; a fence whose
//! body is not JSON closes by the plain rule. Exact values, whole replies
//! and replies cut off (`tests/stream.rs` checks the stream agrees).

use serde_json::{json, Value};
use serde_llm::{from_llm_str, Allow, Decoder, ErrorKind};

/// The decode of `text`, and of `text` as a reply cut off (cut strings
/// kept).
fn decode(text: &str) -> Value {
    from_llm_str::<Value>(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn partial(text: &str) -> Value {
    Decoder::new()
        .allow_partial(Allow::STR | Allow::ARR | Allow::OBJ)
        .decode::<Value>(text)
        .unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

#[test]
fn backticks_in_a_string_are_its_text() {
    let cases = [
        // A key of backticks, with and without a language tag.
        (
            "Here:\n```json\n{\"````\": \"it's\", \"k\": \"\"}\n```",
            json!({"````": "it's", "k": ""}),
        ),
        (
            "Here:\n```\n{\"````\": \"it's\", \"k\": \"\"}\n```",
            json!({"````": "it's", "k": ""}),
        ),
        // A code sample in a string, escaped newlines.
        (
            "Here:\n```json\n{\"code\": \"```py\\nprint(1)\\n```\", \"ok\": true}\n```\nDone.",
            json!({"code": "```py\nprint(1)\n```", "ok": true}),
        ),
        // Raw newlines: the sample's close opens a line right after a `}`.
        (
            "Here:\n```json\n{\"code\": \"```js\nif (x) {\n  y();\n}\n```\", \"ok\": true}\n```\nDone.",
            json!({"code": "```js\nif (x) {\n  y();\n}\n```", "ok": true}),
        ),
        (
            "Here:\n```JSON\n{\"code\": \"```js\nif (x) {\n  y();\n}\n```\n\"}\n```\nDone.",
            // (Raw whitespace at a string's end is dropped, fenced or not.)
            json!({"code": "```js\nif (x) {\n  y();\n}\n```"}),
        ),
        // A sample with no opening fence in the string: its close opens a
        // line right after a `}`, and the string goes on after it.
        (
            "```json\n{\"n\": 8, \"text\": \"fn main() {\n}\n```\nThat's all\"}\n```",
            json!({"n": 8, "text": "fn main() {\n}\n```\nThat's all"}),
        ),
        (
            "Here:\n```json\n{\"n\": 8, \"text\": \"a }\n```\nb\"}\n```\nDone.",
            json!({"n": 8, "text": "a }\n```\nb"}),
        ),
        (
            "```json\n[{\"code\": \"x = [1]\n```\"}]\n```",
            json!([{"code": "x = [1]\n```"}]),
        ),
        // Bare backticks, escaped quotes around them, in arrays, a string
        // that is the whole value.
        (
            "```\n{\"md\": \"use ``` to fence\", \"n\": 1}\n```",
            json!({"md": "use ``` to fence", "n": 1}),
        ),
        (
            "```json\n{\"s\": \"say \\\"```\\\" now\", \"n\": 2}\n```",
            json!({"s": "say \"```\" now", "n": 2}),
        ),
        (
            "```json\n[\"```\", \"````\", {\"a\": \"``` ```\"}]\n```",
            json!(["```", "````", {"a": "``` ```"}]),
        ),
        ("```json\n\"a ``` b\"\n```", json!("a ``` b")),
        // The first fence is the answer; the second's string is its own.
        (
            "```json\n{\"a\": 1}\n```\nand ```json\n{\"b\": \"```\"}\n```",
            json!({"a": 1}),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(decode(text), want, "{text:?}");
        assert_eq!(partial(text), want, "{text:?}");
    }
}

/// Cut inside or after a string holding backticks: the fence is still open,
/// and the value is the value so far.
#[test]
fn a_reply_cut_after_backticks_in_a_string() {
    let cases = [
        ("Here:\n```json\n{\"````\": \"", json!({"````": ""})),
        ("Here:\n```json\n{\"````\": \"it", json!({"````": "it"})),
        ("Here:\n```\n{\"````\": ", json!({})),
        (
            "Here:\n```json\n{\"a\": \"```\", \"b\": \"x",
            json!({"a": "```", "b": "x"}),
        ),
        // Backticks mid-line in the string cut off: its text so far.
        ("```\n{\"md\": \"use ``` t", json!({"md": "use ``` t"})),
        // On a line of their own: the fence's close.
        ("```\n{\"md\": \"use\n```", json!({"md": "use"})),
        ("```\n{\"md\": \"use\n```\nThat's", json!({"md": "use"})),
        (
            "Here:\n```json\n{\"code\": \"```py\\nprint(1)\\n```\", \"more\": [\"```",
            json!({"code": "```py\nprint(1)\n```", "more": ["```"]}),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(partial(text), want, "{text:?}");
    }
}

/// A string left unclosed: the first fence inside it closes the block, and
/// the prose after is not part of the value, even with quotes in it.
#[test]
fn an_unclosed_string_ends_at_the_fence() {
    let want = json!({"a": "```", "b": "x"});
    for text in [
        "Here:\n```json\n{\"a\": \"```\", \"b\": \"x\n```\nThat's it.",
        "Here:\n```json\n{\"a\": \"```\", \"b\": \"x\n```\nThat's \"it\".",
        "```json\n{\"a\": \"```\", \"b\": \"x\n```\nThat's \"it\". Bye",
    ] {
        assert_eq!(decode(text), want, "{text:?}");
    }
}

/// A fence whose body is prose with a stray backtick or quote: it closes at
/// its fence line, and the prose is no value.
#[test]
fn a_prose_fence_closes_by_the_plain_rule() {
    assert_eq!(
        decode("Run this:\n```\nit's `odd \"quote\n```\nThe answer is {\"a\": 1}"),
        json!({"a": 1})
    );
    assert_eq!(
        decode("```\n{ is how blocks open, \"quoted ``` text\n```\n{\"a\": 1}"),
        json!({"a": 1})
    );
    assert_eq!(
        decode("```text\nnot `json` at all \"\n```\n```json\n[1, \"```\"]\n```"),
        json!([1, "```"])
    );
    for text in [
        "```\nno json here, just a ``` in text\n```",
        "```\nit's `odd \"quote\n```\nand nothing else",
    ] {
        let e = from_llm_str::<Value>(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{text:?}: {e}");
    }
}

/// A fence inside brackets of prose that look like the start of a value
/// (`[...`): the marker is outside any string, so it is a fence, whether
/// the bracket closes after it or not (found by the `stream_typed` fuzz
/// target: the stream and a decode of the text so far disagreed once the
/// `]` arrived).
#[test]
fn a_fence_inside_brackets_of_prose() {
    for text in [
        "Notes [...\n```json\n{\"a\": 1}\n```\nand more",
        "Notes [...\n```json\n{\"a\": 1}\n```\nand more]",
        "\t\t\t[...\u{c} ```json {\"a\": 1} ``` Pue]e.com/",
    ] {
        assert_eq!(decode(text), json!({"a": 1}), "{text:?}");
    }
    // A marker inside a string of a value before the fence opens none.
    assert_eq!(
        decode("[\"```json\", 1] and ```json\n{\"a\": 2}\n```"),
        json!({"a": 2})
    );
}

/// A single-quoted string in a fenced value holding a raw line break: the
/// scanner reads it whole (`'⏎\"q\"'`), so the search for the fence's close
/// follows it past its line too, up to a fence on a line of its own. It
/// ended the string at its line, then took the escaped quotes for strings
/// of their own, and a marker inside a later string (`"x```"`) for the
/// close: the value came out with that string cut there (`"x"`, a wrong
/// `Ok` found by `agent_replies_stream_as_they_decode`).
#[test]
fn a_single_quoted_string_over_lines_in_a_fence() {
    assert_eq!(
        decode("```json\n{\"a\": '\n\\\"q\\\"', \"b\": \"x```\"}\n```\nDone."),
        json!({"a": "\n\"q\"", "b": "x```"})
    );
    assert_eq!(
        decode(
            "Here:\n```\n[{\"tool\": 't', \"args\": ['\na]']},\n {\"args\": [\"run```\"]}]\n```"
        ),
        json!([{"tool": "t", "args": ["\na]"]}, {"args": ["run```"]}])
    );
    // With no closing quote before the fence line, the string ends at its
    // line as before, and the fence closes the block.
    assert_eq!(
        decode("```json\n['it's\n]\n```\nThen 'a', b"),
        json!(["it's"])
    );
}

/// What the review of `a_single_quoted_string_over_lines_in_a_fence` found:
/// the search for a single-quoted string's closing quote past its line
/// stops at any fence marker (a close at a line's end, `}```⏎`; the next
/// block's opening), so a `'` in the prose or block after it is not taken
/// for the string's close.
#[test]
fn a_single_quoted_string_over_lines_stops_at_a_marker() {
    let cases = [
        (
            "```json\n{'name': 'Bob's car\n}```\nHere's another: 'x', y",
            json!({"name": "Bob's car"}),
        ),
        ("```json\n['a\n]```\nThen 'x', y", json!(["a"])),
        ("```json\n{\"a\": 'x\n}``` and 'b', c", json!({"a": "x"})),
        (
            "```json\n{\"a\": 'x\n}```\n\n```json\n{\"b\": 'y'}\n```",
            json!({"b": "y"}),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(decode(text), want, "{text:?}");
    }
}

/// Found by a sweep (2026-12-06): a fence cut just after its opener holds
/// nothing yet, and took the place of a complete fenced value before it
/// that needed a repair (a tie in weight, won by the later fence): `{}`
/// or `[]`, the first value's data dropped. A cut fence that holds
/// something still competes as before.
#[test]
fn a_fence_cut_after_its_opener_does_not_replace_a_complete_one() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Plain {
        a: Option<u32>,
        b: Option<String>,
    }
    for (text, want) in [
        ("```\n{a: 1}\n```\n```\n{", json!({"a": 1})),
        ("```\n{a:1}\n```\n```\n[", json!({"a": 1})),
        (
            "```json\n{'a': 1,}\n```\nMore:\n```json\n{\"",
            json!({"a": 1}),
        ),
        ("```\n{a: 1}\n```\n```\n[\n  ", json!({"a": 1})),
        // Found by a sweep: its first key written, no value yet.
        (
            "```json\n{a: 1, b: 2}\n```\n```json\n{\"title\":",
            json!({"a": 1, "b": 2}),
        ),
        ("```\n{a: 1}\n```\n```\n{title: \"", json!({"a": 1})),
        ("```\n{a: 1}\n```\n```\n{'title': ", json!({"a": 1})),
        // Something in the cut fence: the complete one still wins when it
        // is written in a dialect (JSON5 bends nothing); one with a real
        // repair gives way to the later fence, as before.
        ("```\n{a: 1}\n```\n```\n{\"b\": \"x", json!({"a": 1})),
        ("```\n{a: 1}\n```\n```\n[\"x", json!({"a": 1})),
        (
            "```\n{\"a\": 1 \"c\": 2}\n```\n```\n{\"b\": \"x",
            json!({"b": "x"}),
        ),
        ("```\n{\"a\": 1 \"c\": 2}\n```\n```\n[\"x", json!(["x"])),
    ] {
        assert_eq!(decode(text), want, "{text:?}");
        assert_eq!(partial(text), want, "{text:?}");
    }
    let plain: Plain = from_llm_str("```\n{a: 1}\n```\n```\n{").unwrap();
    assert_eq!(
        plain,
        Plain {
            a: Some(1),
            b: None
        }
    );
}
