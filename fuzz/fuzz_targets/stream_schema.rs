//! Any bytes, pushed in chunks into a `SchemaStream` (a runtime JSON
//! Schema's stream): after every push the view is
//! `SchemaDecoder::decode_partial` of the text so far, the deltas so far
//! build it, and a value said complete is shown; `finish()` is
//! `SchemaDecoder::decode` of the whole (the same value, or an error for
//! both). Never a panic.
//!
//! The input is cut into chunks as in the `stream` target: the first byte's
//! low 3 bits say how many chunk lengths follow (0 to 7 bytes, each 0 to
//! 255), the rest is the reply (valid UTF-8 only). Bits 3 and 4 of the first
//! byte pick the schema: a recipe (nested objects, a list of objects, strings
//! marked `x-partial`, numbers, an enum, a nullable property, a map, keys
//! the schema drops), a turn of tool calls (a list of an `anyOf` of
//! objects, each read whole), a list of steps (JSON lines gathered into
//! it), or a tuple (`prefixItems`) beside a list of lists.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use serde_llm::{Path, SchemaDecoder, Segment};

const MAX_PUSHES: usize = 32;

fn schemas() -> &'static [SchemaDecoder; 4] {
    static SCHEMAS: OnceLock<[SchemaDecoder; 4]> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let step = json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer"},
                "text": {"type": "string", "x-partial": true},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["n"]
        });
        [
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "title": {"type": "string"},
                    "body": {"type": "string", "x-partial": true},
                    "steps": {"type": "array", "x-partial": true, "items": step},
                    "confidence": {"type": ["number", "null"]},
                    "status": {"enum": ["draft", "in_progress", "live"]},
                    "notes": {"type": "object", "additionalProperties": {"type": "string", "x-partial": true}},
                    "next": {
                        "type": "object",
                        "properties": {"n": {"type": "integer"}, "text": {"type": "string"}},
                        "additionalProperties": false
                    },
                    "extra": true
                },
                "required": ["id", "title"]
            }),
            json!({
                "type": "object",
                "properties": {
                    "calls": {
                        "type": "array",
                        "x-partial": true,
                        "items": {
                            "anyOf": [
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
                                    "properties": {
                                        "tool": {"const": "finish"},
                                        "answer": {"type": "string", "x-partial": true}
                                    },
                                    "required": ["tool"]
                                }
                            ]
                        }
                    }
                }
            }),
            json!({"type": "array", "x-partial": true, "items": step}),
            json!({
                "type": "object",
                "properties": {
                    "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
                    "grid": {"type": "array", "x-partial": true, "items": {"type": "array", "items": {"type": "number"}}}
                }
            }),
        ]
        .map(|s| SchemaDecoder::new(&s).expect("a schema"))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let (lens, reply) = rest.split_at(usize::from(head & 7).min(rest.len()));
    let Ok(reply) = std::str::from_utf8(reply) else {
        return;
    };
    let d = &schemas()[usize::from((head >> 3) & 3)];
    let mut s = d.stream();
    let mut built = Value::Null;
    let mut at = 0;
    for push in 0..MAX_PUSHES {
        let end = match lens.get(push % lens.len().max(1)) {
            Some(&len) if push + 1 < MAX_PUSHES => (at + usize::from(len)).min(reply.len()),
            _ => reply.len(),
        };
        let pushed = s.push_deltas(&reply.as_bytes()[at..end]);
        at = end;
        let mut cut = at;
        while !reply.is_char_boundary(cut) {
            cut -= 1;
        }
        let prefix = &reply[..cut];
        match (pushed, d.decode_partial(prefix)) {
            (Ok(deltas), Ok(want)) => {
                assert_eq!(s.view(), want.as_ref(), "the view after {prefix:?}");
                for delta in deltas {
                    delta.apply(&mut built);
                }
                let view = s.view().cloned().unwrap_or(Value::Null);
                assert_eq!(built, view, "the deltas after {prefix:?}");
                for p in paths(&view) {
                    if s.is_complete(&p) {
                        assert!(get(&view, &p).is_some(), "{p} complete, not shown");
                    }
                }
            }
            (Err(_), Err(_)) => {}
            (got, want) => panic!("after {prefix:?}: the stream gave {got:?}, a decode {want:?}"),
        }
        if at == reply.len() {
            break;
        }
    }
    match (s.finish(), d.decode(reply)) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{reply:?}"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{reply:?}"),
        (a, b) => panic!("{reply:?}: finish gave {a:?}, a decode {b:?}"),
    }
});

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

/// The value at `p` in `v`.
fn get<'v>(v: &'v Value, p: &Path) -> Option<&'v Value> {
    p.segments().iter().try_fold(v, |v, s| match s {
        Segment::Key(k) => v.get(&**k),
        Segment::Index(i) => v.get(*i),
    })
}
