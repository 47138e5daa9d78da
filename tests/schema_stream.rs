//! `SchemaStream`: for replies split into chunks every way we can think of,
//! after every push the view is `SchemaDecoder::decode_partial` of the text
//! so far, `is_complete` says what a tracked read of it says, and `finish`
//! is `SchemaDecoder::decode` of the whole text. The stream reads a value
//! as it arrives (`tests/linear.rs` measures that); the one-shot decodes
//! are the reference.

mod common;

use serde_json::{json, Value};
use serde_llm::{Path, SchemaDecoder};

/// A recipe with what schemas hold: nested objects, a list of objects, a
/// property marked `x-partial` (strings and a list), plain strings shown
/// once complete, numbers read from text, an enum, a nullable property, a
/// map, and a tool-call union (`anyOf`, read whole).
fn recipe() -> SchemaDecoder {
    SchemaDecoder::new(&json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "title": {"type": "string"},
            "body": {"type": "string", "x-partial": true},
            "steps": {
                "type": "array",
                "x-partial": true,
                "items": {
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer"},
                        "text": {"type": "string", "x-partial": true}
                    },
                    "required": ["n", "text"]
                }
            },
            "confidence": {"type": ["number", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "status": {"enum": ["draft", "in_progress", "live"]},
            "notes": {"type": "object", "additionalProperties": {"type": "string", "x-partial": true}},
            "extra_info": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "text": {"type": "string"}},
                "additionalProperties": false
            },
            "call": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"tool": {"const": "search"}, "query": {"type": "string"}},
                        "required": ["tool", "query"]
                    },
                    {
                        "type": "object",
                        "properties": {"tool": {"const": "stop"}},
                        "required": ["tool"]
                    }
                ]
            }
        },
        "required": ["id", "title", "body", "steps"]
    }))
    .unwrap()
}

const RECIPE: &str = r#"{"id": 7, "title": "Sourdough \"basic\"", "body": "Feed the starter.\nWait — about 8 h. ✓",
 "steps": [{"n": 1, "text": "Mix flour & water"}, {"n": "2", "text": "Fold \u00e9 \ud83d\ude00 twice"},
  {"n": 3, "text": ""}], "confidence": 0.92, "tags": ["bread", "slow"], "status": "In Progress",
 "notes": {"oven": "hot", "flour": "rye"}, "extraInfo": {"n": 4, "text": "nothing", "dropped": [1, 2]},
 "call": {"tool": "search", "query": "rye {flour}"}}"#;

const SINGLE_QUOTED: &str = r#"{'id': 7, 'title': 'Sourdough "basic"', 'body': 'Feed the starter.\nWait.',
 'steps': [{'n': 1, 'text': 'Mix flour & water'}, {'n': 2, "text": 'Fold twice'},], 'confidence': None,
 tags: ['bread', 'it\'s slow'], 'notes': {'oven': 'hot'}, 'call': {'tool': 'stop'}}"#;

/// Replies with one candidate value: a value said complete never changes
/// after. (In `rivals`, an earlier candidate, a placeholder read as an
/// empty object, is complete until the real value takes its place.)
fn replies() -> Vec<String> {
    vec![
        RECIPE.to_owned(),
        format!("Sure! Here is the recipe:\n```json\n{RECIPE}\n```\nEnjoy."),
        format!("<think>The user wants JSON {{like this}}.</think>\n{RECIPE}"),
        RECIPE
            .replace("\"slow\"]", "\"slow\", ]")
            .replace("}}", "},}"),
        format!("```json\n{SINGLE_QUOTED}\n```"),
        SINGLE_QUOTED.to_owned(),
        // Keys in another style, a key the object has twice.
        RECIPE
            .replace("\"title\"", "\"Title\"")
            .replace("\"steps\"", "\"Steps\""),
        RECIPE.replace("\"tags\": [", "\"tags\": \"x\", \"tags\": ["),
        // A value of the wrong kind (an object where a string is wanted).
        RECIPE.replace(
            "\"title\": \"Sourdough \\\"basic\\\"\"",
            "\"title\": {\"en\": \"Bread\"}",
        ),
        // Cut off: the stream ends mid-value.
        RECIPE[..RECIPE.len() / 2].to_owned(),
    ]
}

/// Replies whose text so far may show another candidate first (or the
/// same value complete, then reopened).
fn rivals() -> Vec<String> {
    vec![
        format!("Here {{name}} is the value: {RECIPE} Hope it helps"),
        format!("First {{\"id\": 1}}, then the real one:\n```json\n{RECIPE}\n```"),
        // A value reopened by what follows its closer (one object, whole).
        RECIPE.replacen("\"title\"", "\"extra\": 1}, \"title\"", 1),
    ]
}

/// The text the stream holds after `bytes` (a character cut at the end is
/// held back).
fn so_far(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap(),
    }
}

/// Streams `text` in the chunks `cuts` makes, checking the view after each
/// push and the value at the end against the one-shot decodes, that a
/// value said complete is shown and (`stable`) never changes after, and,
/// pushed with `deltas`, that the deltas so far build the view.
fn replay(d: &SchemaDecoder, text: &str, cuts: &[usize], deltas: bool, stable: bool) {
    let bytes = text.as_bytes();
    let mut s = d.stream();
    let mut built = Value::Null;
    // The values said complete so far, with their values then.
    let mut complete: Vec<(Path, Value)> = Vec::new();
    let mut from = 0;
    for &to in cuts.iter().chain([&bytes.len()]) {
        let chunk = &bytes[from..to];
        let got = match deltas {
            true => s.push_deltas(chunk).map(|ds| {
                for delta in ds {
                    delta.apply(&mut built);
                }
            }),
            false => s.push(chunk),
        };
        from = to;
        let prefix = so_far(&bytes[..to]);
        assert_eq!(s.text(), prefix);
        match (d.decode_partial(prefix), got) {
            (Ok(want), Ok(())) => assert_eq!(s.view(), want.as_ref(), "view after {prefix:?}"),
            (Err(want), Err(e)) => {
                assert_eq!(e.to_string(), want.to_string(), "{prefix:?}");
                continue;
            }
            (want, got) => panic!("{prefix:?}: the one-shot gives {want:?}, the stream {got:?}"),
        }
        let view = s.view().cloned().unwrap_or(Value::Null);
        if deltas {
            assert_eq!(built, view, "the deltas after {prefix:?}");
        }
        for (p, then) in complete.iter().filter(|_| stable) {
            assert!(s.is_complete(p), "{p} complete, then not, at {prefix:?}");
            assert_eq!(
                view.pointer(&pointer(p)),
                Some(then),
                "{p} changed at {prefix:?}"
            );
        }
        for p in paths(&view) {
            if !complete.iter().any(|(q, _)| *q == p) && s.is_complete(&p) {
                let value = view.pointer(&pointer(&p)).expect("shown").clone();
                complete.push((p, value));
            }
        }
    }
    match (s.finish(), d.decode(text)) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{text:?}"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:?}"),
        (a, b) => panic!("{text:?}: finish gives {a:?}, the one-shot {b:?}"),
    }
}

/// The paths of `v`'s values, the whole first.
fn paths(v: &Value) -> Vec<Path> {
    fn walk(v: &Value, at: Path, out: &mut Vec<Path>) {
        out.push(at.clone());
        match v {
            Value::Object(m) => m.iter().for_each(|(k, x)| walk(x, at.clone().key(k), out)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| walk(x, at.clone().index(i), out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if !v.is_null() {
        walk(v, Path::root(), &mut out);
    }
    out
}

/// Every split of `text` into two chunks, and the one-byte chunking.
fn every_split(d: &SchemaDecoder, text: &str, stable: bool) {
    for i in 0..=text.len() {
        replay(d, text, &[i], i % 2 == 0, stable);
    }
    let bytes: Vec<usize> = (1..text.len()).collect();
    replay(d, text, &bytes, true, stable);
    replay(d, text, &bytes, false, stable);
}

#[test]
fn recipe_replies_every_split() {
    let d = recipe();
    for r in replies() {
        every_split(&d, &r, true);
    }
    for r in rivals() {
        every_split(&d, &r, false);
    }
}

/// Chunkings a model's stream makes: a few bytes at a time, the sizes
/// varying (a fixed pseudo-random sequence, so a failure reproduces).
#[test]
fn recipe_replies_in_uneven_chunks() {
    let d = recipe();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let replies = replies().into_iter().map(|r| (r, true));
    for (r, stable) in replies.chain(rivals().into_iter().map(|r| (r, false))) {
        for _ in 0..8 {
            let mut cuts = Vec::new();
            let mut at = 0;
            loop {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                at += 1 + (seed % 12) as usize;
                if at >= r.len() {
                    break;
                }
                cuts.push(at);
            }
            replay(&d, &r, &cuts, true, stable);
        }
    }
}

/// json_repair's schema-guided cases (`tests/corpus/json_repair.jsonl`, see
/// `tests/schema_corpus.rs`), streamed byte by byte against their own
/// schemas.
#[test]
fn json_repair_schema_cases_byte_by_byte() {
    let cases: Vec<Value> = common::corpus("json_repair.jsonl")
        .into_iter()
        .filter(|c| c["options"].get("schema").is_some())
        .collect();
    let mut streamed = 0;
    for case in &cases {
        let Ok(d) = SchemaDecoder::new(&case["options"]["schema"]) else {
            continue;
        };
        let input = case["input"].as_str().expect("a string input");
        let bytes: Vec<usize> = (1..input.len()).collect();
        replay(&d, input, &bytes, true, true);
        streamed += 1;
    }
    assert!(streamed >= 20, "only {streamed} schema cases streamed");
}

#[test]
fn is_complete_agrees_with_a_tracked_read() {
    let d = recipe();
    let paths = [
        Path::root(),
        Path::root().key("id"),
        Path::root().key("title"),
        Path::root().key("body"),
        Path::root().key("steps"),
        Path::root().key("steps").index(0),
        Path::root().key("steps").index(1).key("text"),
        Path::root().key("tags").index(1),
        Path::root().key("notes").key("oven"),
        Path::root().key("call"),
    ];
    let text = format!("```json\n{RECIPE}\n```");
    let mut s = d.stream();
    let mut complete = vec![false; paths.len()];
    for (i, c) in text.char_indices() {
        s.push(c.to_string()).unwrap();
        let prefix = &text[..i + c.len_utf8()];
        let view = d.decode_partial(prefix).unwrap();
        for (p, was) in paths.iter().zip(&mut complete) {
            let now = s.is_complete(p);
            if *was {
                assert!(now, "{p} complete, then not, at {prefix:?}");
            }
            if now {
                let shown = view.as_ref().and_then(|v| v.pointer(&pointer(p)));
                assert!(shown.is_some(), "{p} complete but not shown at {prefix:?}");
            }
            *was = now;
        }
    }
    assert!(complete.iter().all(|c| *c), "all complete at the end");
    // Within the text: the first step completes before the title's
    // neighbours do.
    let mut s = d.stream();
    s.push(
        r#"{"id": 7, "title": "Bread", "body": "Mix", "steps": [{"n": 1, "text": "a"}, {"n": 2"#,
    )
    .unwrap();
    assert!(s.is_complete(&Path::root().key("steps").index(0)));
    assert!(!s.is_complete(&Path::root().key("steps")));
    assert!(!s.is_complete(&Path::root().key("body")) || s.view().unwrap()["body"] == "Mix");
    assert!(!s.is_complete(&Path::root()));
}

/// A path as a JSON pointer.
fn pointer(p: &Path) -> String {
    p.segments()
        .iter()
        .map(|s| match s {
            serde_llm::Segment::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            serde_llm::Segment::Index(i) => format!("/{i}"),
        })
        .collect()
}

/// A tool call: one of several objects told apart by their `tool`
/// constant (grown in place once the tag has come first), at the root and
/// in a list.
fn tool_call() -> Value {
    json!({
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "tool": {"const": "write_file"},
                    "path": {"type": "string"},
                    "content": {"type": "string", "x-partial": true},
                    "mode": {"type": "integer"}
                },
                "required": ["tool", "path", "content"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {
                    "tool": {"const": "search"},
                    "query": {"type": "string", "x-partial": true},
                    "limit": {"type": "integer"}
                },
                "required": ["tool", "query"]
            },
            {
                "type": "object",
                "properties": {"tool": {"enum": ["stop"]}},
                "required": ["tool"]
            }
        ]
    })
}

#[test]
fn tool_calls_every_split() {
    let call = tool_call();
    let root = SchemaDecoder::new(&call).unwrap();
    let list = SchemaDecoder::new(&json!({
        "type": "object",
        "properties": {"calls": {"type": "array", "x-partial": true, "items": call}}
    }))
    .unwrap();
    let calls = [
        r#"{"tool": "write_file", "path": "a.rs", "content": "fn main() {\n}\n", "mode": "420"}"#,
        r#"{"tool": "search", "query": "rust {serde}", "limit": 3}"#,
        r#"{"tool": "stop"}"#,
        // The tag after the content, in another style, unknown, cut.
        r#"{"path": "b.rs", "content": "x", "tool": "write_file"}"#,
        r#"{"Tool": "Search", "query": "q"}"#,
        r#"{"tool": "delete", "path": "c"}"#,
        // A member the alternative does not allow, a wrong type.
        r#"{"tool": "write_file", "path": "a", "content": "b", "extra": 1}"#,
        r#"{"tool": "search", "query": "q", "limit": "many"}"#,
        r#"{'tool': 'search', query: 'single quotes',}"#,
    ];
    for c in calls {
        every_split(&root, c, true);
        every_split(&root, &format!("```json\n{c}\n```"), true);
    }
    let turn = format!("{{\"calls\": [{}]}}", calls[..3].join(", "));
    every_split(&list, &turn, true);
    let messy = format!("{{\"calls\": [{}, {}]}}", calls[4], calls[7]);
    every_split(&list, &messy, true);
}

/// A second value locked onto in the push that ends the first (a new live
/// view where one was live before): its deltas were missing. Found by the
/// `stream_schema` fuzz target, in these chunks.
#[test]
fn a_new_live_value_in_the_push_that_ends_one() {
    let d = SchemaDecoder::new(&json!({
        "type": "object",
        "properties": {"calls": {"type": "array", "x-partial": true, "items": {"type": "object"}}}
    }))
    .unwrap();
    let reply = "\u{17}\n\u{c}\u{c}\u{1b}\u{b}2x\"]}\n{](tA\"\u{0}=\"\"a}\n{\"n\":)2enum , \"texv\"\\\u{b}\"x\"]\r\u{17}\n\u{c}\u{c}\u{1b}\u{feff}n$1, \"te](t\"\u{0}=\"\"a}\n{\"n\": 2, \"text\": {\u{17}\n\u{c}\u{c}\u{1b}\u{b}2x\"]}\n{](t\"\u{0}=\"\"a}\n{\"n\":)2enum , \"text\"\u{b}\"x\"]\r\u{17}\n\u{c}\u{c}\u{1b}\u{feff}n$1, \"te](t\"\u{0}=\"\"a}\n{\"n\": 2, \"text\": {\"n\": \u{0}\u{0}\u{0}xt\":\"n\": \u{0}\u{0}\u{0}xt\": \"\u{1d}}\n{\"";
    replay(&d, reply, &[10, 37, 39, 57, 87, 185, 198, 208], true, false);
}
