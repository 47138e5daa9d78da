//! `StreamDecoder::__untyped_only`, what the Python package streams with:
//! after every push its untyped view is the full decoder's, and its deltas
//! are the full decoder's but for a container's `Completed`, which carries
//! an empty container of its kind (the deltas before it built the value).

use serde_json::{json, Value};
use serde_llm::{Decoder, Delta, StreamDecoder};

/// Replies that stream live (JSON as written, in a fence, with the repairs
/// read as they come) and some that do not (prose with a placeholder first,
/// repairs read from the whole text).
const REPLIES: &[&str] = &[
    r#"{"items": [{"id": 1, "name": "A \u201cb\u201d", "price": -2.5, "tags": ["x", "y"], "ok": true, "r": null}, {"id": -0, "name": "", "tags": [], "n": {}}], "total": 2}"#,
    "Sure:\n```json\n{\"a\": [1, [2, [3, {\"b\": \"c}\"}]]], \"d\": \"e\"}\n```\nDone.",
    "{name: 'Ada', langs: ['en', 'fr',], score: 1}",
    "Here {name} is it: [{\"a\": 1}, {\"b\": [true, false]}] and more",
    "[[], {}, [[\"deep\"]], 18446744073709551616, 123456789012345678]",
    // Repairs the live reader does not make, in an element: it is read the
    // tolerant way (`stream::tolerant`), its growth given as deltas.
    "```json\n{\"items\": [{\"n\": 1, \"text\": \"say \"hi\" 1\"}, {\"n\": 2, \"text\": \"b \"c\"\", \"k\": [1, 2]}]}\n```",
    "{\"items\": [{\"n\": 1, \"text\": hello world 1}, {\"n\": 2, \"text\": hello 2, \"m\": {\"x\": \"y\"}}], \"total\": 2}",
];

/// `d` as the untyped-only decoder gives it while the value streams live.
fn lean(d: &Delta) -> Delta {
    match d {
        Delta::Completed {
            path,
            value: Value::Array(_),
        } => Delta::Completed {
            path: path.clone(),
            value: json!([]),
        },
        Delta::Completed {
            path,
            value: Value::Object(_),
        } => Delta::Completed {
            path: path.clone(),
            value: json!({}),
        },
        d => d.clone(),
    }
}

#[test]
fn the_untyped_only_stream_shows_what_the_full_one_shows() {
    for reply in REPLIES {
        for size in [1, 2, 5, 16, 1000] {
            let mut full = StreamDecoder::<Value>::new();
            let mut only = Decoder::new().stream::<Value>().__untyped_only();
            let mut built = Value::Null;
            let mut lean_ones = 0;
            for chunk in reply.as_bytes().chunks(size) {
                let want = full.push_deltas(chunk).unwrap();
                let got = only.push_deltas(chunk).unwrap();
                assert_eq!(got.len(), want.len(), "{reply:?} in chunks of {size}");
                assert_eq!(only.value(), full.value(), "{reply:?} in chunks of {size}");
                assert_eq!(only.view(), &None);
                for (d, w) in got.iter().zip(&want) {
                    // A container completed (while live) is what the deltas
                    // built.
                    if d != w {
                        assert_eq!(d, &lean(w), "{reply:?} in chunks of {size}");
                        lean_ones += 1;
                        let mut check = built.clone();
                        w.apply(&mut check);
                        assert_eq!(check, built, "{reply:?} in chunks of {size}");
                    }
                    w.apply(&mut built);
                }
                assert_eq!(Some(&built), only.value());
            }
            // The first reply streams live: its five containers that are not
            // empty (the root, `items`, two records, the first `tags`)
            // complete lean.
            if *reply == REPLIES[0] && size < 1000 {
                assert_eq!(lean_ones, 5, "in chunks of {size}");
            }
            assert_eq!(
                only.finish().unwrap(),
                serde_llm::from_llm_str::<Value>(reply).unwrap()
            );
        }
    }
}

#[test]
fn a_whole_record_list_completes_with_empty_containers() {
    let mut only = Decoder::new().stream::<Value>().__untyped_only();
    let mut deltas = only.push_deltas(r#"{"a": [1"#).unwrap();
    deltas.extend(only.push_deltas("]}").unwrap());
    assert_eq!(
        deltas,
        [
            Delta::Started {
                path: serde_llm::Path::root(),
                value: json!({})
            },
            Delta::Started {
                path: serde_llm::Path::root().key("a"),
                value: json!([])
            },
            Delta::Completed {
                path: serde_llm::Path::root().key("a").index(0),
                value: json!(1)
            },
            Delta::Completed {
                path: serde_llm::Path::root().key("a"),
                value: json!([])
            },
            Delta::Completed {
                path: serde_llm::Path::root(),
                value: json!({})
            },
        ]
    );
    assert_eq!(only.value(), Some(&json!({"a": [1]})));
}

/// A decoder asked for the untyped view before anything arrives (as the
/// Python binding's parser and `DeltaStream` are) answers at once:
/// nothing is complete, the view is `Null`, and the first push's deltas
/// build it.
#[test]
fn the_untyped_view_is_there_before_the_first_push() {
    // (The untyped-only decoder's `Completed` deltas carry empty
    // containers: its caller builds the view from the others.)
    for (dec, lean) in [
        (StreamDecoder::<Value>::new().__untyped_only(), true),
        (StreamDecoder::<Value>::new().with_deltas(), false),
    ] {
        let mut dec = dec;
        assert!(!dec.is_complete(&serde_llm::Path::root()));
        assert_eq!(dec.value(), Some(&Value::Null));
        let mut built = Value::Null;
        dec.push("[1, ").unwrap();
        for d in dec.push_deltas("2]").unwrap() {
            d.apply(&mut built);
        }
        assert_eq!(dec.value(), Some(&json!([1, 2])));
        if !lean {
            assert_eq!(built, json!([1, 2]));
        }
        assert!(dec.is_complete(&serde_llm::Path::root()));
    }
}
