//! Rule 9 of the trust issue: every extraction step is linear in the reply's
//! length. For each adversarial family, the work extraction and the scanner
//! do (`serde_llm::__private::work()`: bytes examined on this thread, a
//! deterministic counter) at n and 8n bytes: the ratio must stay under 16
//! (a quadratic step gives 64).
//!
//! Needs `serde_llm::__private::work()`, which the library adds with the fix.

use serde::Deserialize;
use serde_json::Value;
use serde_llm::{from_llm_str, repair};

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Abc {
    a: i64,
    b: i64,
    c: i64,
}

/// The work `f` does on this thread.
fn work_of(f: impl FnOnce()) -> u64 {
    let before = serde_llm::__private::work();
    f();
    serde_llm::__private::work() - before
}

/// `unit` repeated to about `len` bytes, then `tail`.
fn reply(unit: &str, len: usize, tail: &str) -> String {
    let mut s = unit.repeat(len / unit.len() + 1);
    s.push_str(tail);
    s
}

const N: usize = 32 << 10;

/// The work at n and 8n bytes, for every entry point: `Value`, `repair()`,
/// a struct, a sequence of structs.
#[track_caller]
fn assert_linear(family: &str, unit: &str, tail: &str) {
    let (small, big) = (reply(unit, N, tail), reply(unit, 8 * N, tail));
    type Run = fn(&str);
    let runs: [(&str, Run); 4] = [
        ("Value", |t| {
            let _ = from_llm_str::<Value>(t);
        }),
        ("repair", |t| {
            let _ = repair(t);
        }),
        ("struct", |t| {
            let _ = from_llm_str::<Abc>(t);
        }),
        ("Vec<struct>", |t| {
            let _ = from_llm_str::<Vec<Abc>>(t);
        }),
    ];
    for (how, run) in runs {
        let w1 = work_of(|| run(&small));
        let w8 = work_of(|| run(&big));
        // `--nocapture` shows the ratios (8 is linear, 64 quadratic).
        eprintln!("{family:<28} {how:<12} ratio {:.2}", w8 as f64 / w1 as f64);
        assert!(
            w1 > 0,
            "{family}, {how}: no work counted at {} bytes",
            small.len()
        );
        assert!(
            w8 < 16 * w1,
            "{family}, {how}: work {w1} at {} bytes, {w8} at {} bytes (ratio {:.1})",
            small.len(),
            big.len(),
            w8 as f64 / w1 as f64
        );
    }
}

const OBJECT: &str = "{\"a\": 1, \"b\": 2, \"c\": 3}";

#[test]
fn reasoning_blocks_of_the_issue() {
    // `<think>t</think> {} ` repeated (157 s at 4 MB before the fix).
    assert_linear("think blocks", "<think>t</think> {} ", "");
}

#[test]
fn reasoning_blocks_holding_candidates() {
    assert_linear(
        "think blocks with candidates",
        "<think>Maybe {\"a\": 0} or [1, 2]? ```json\n{\"a\": 0,}\n```</think> {} ",
        OBJECT,
    );
}

#[test]
fn many_fences() {
    assert_linear(
        "fences",
        "```json\n{\"a\": 0,}\n```\nand then, ",
        "```json\n{\"a\": 1, \"b\": 2, \"c\": 3}\n```",
    );
    assert_linear("open fences", "```json\n", OBJECT);
    // A single-quoted string over lines in each (its closing quote looked
    // for past its line, up to a marker).
    assert_linear("single quotes over lines", "```json\n['a\n]```\n", OBJECT);
    assert_linear("single quotes to a fence", "```json\n['a\nb\n```\n", OBJECT);
}

#[test]
fn many_placeholders() {
    assert_linear("placeholders", "Replace {x} with the value. ", OBJECT);
    assert_linear("named placeholders", "Dear %{name}, [1] ", OBJECT);
}

#[test]
fn many_stray_openers() {
    assert_linear("stray openers", "a { b [ c ", OBJECT);
    assert_linear("stray braces", "{ ", OBJECT);
    // Quoted brackets, comments in brackets (closed, and never closed).
    assert_linear("quoted brackets", "Use '{' or `[` to open. ", OBJECT);
    assert_linear("comments in brackets", "[ /* ] */ ", OBJECT);
    assert_linear("comments that never close", "[ /* ", OBJECT);
    assert_linear("citations after values", "{'a': 1} [1][2] ", OBJECT);
}

// ---------------------------------------------------------------------------
// The stream (issue 20): each family of reply models really stream, pushed
// in 1-byte and 16-byte chunks with a view after every push, `finish`
// included. The work at n and 8n bytes must stay under 10× (8 is linear, 64
// quadratic). A family the stream is still quadratic on is `#[ignore]`d
// with its reason, so it stays visible (`cargo test --test linear --
// --ignored` shows the ratios).

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde_llm::{Partial, StreamDecoder, Streamable};

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Doc {
    #[llm(partial)]
    items: Vec<Item>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Item {
    n: i64,
    #[llm(partial)]
    text: String,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Meta {
    meta: BTreeMap<String, String>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Flat {
    id: u32,
    #[serde(flatten)]
    rest: Rest,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Rest {
    #[llm(partial)]
    items: Vec<Item>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Flags {
    #[llm(partial)]
    items: Vec<Switches>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Switches {
    on: bool,
    off: bool,
    none: Option<bool>,
}

/// A flattened part beside the field that streams (what a tool call's
/// metadata often is).
#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Beside {
    #[llm(partial)]
    items: Vec<Item>,
    #[serde(flatten)]
    meta: Source,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Source {
    source: Option<String>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
#[serde(untagged)]
enum Either {
    Pair { left: String, right: String },
    One { left: String },
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Eithers {
    #[llm(partial)]
    items: Vec<Either>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
#[serde(tag = "tool", rename_all = "snake_case")]
enum Call {
    Search {
        #[llm(partial)]
        query: String,
        limit: u32,
    },
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Calls {
    #[llm(partial)]
    calls: Vec<Call>,
}

/// `head`, then `unit` (with `{i}` numbered) repeated to about `len` bytes,
/// joined by `sep`, then `tail`.
fn streamed(head: &str, unit: &str, sep: &str, len: usize, tail: &str) -> String {
    let mut s = String::from(head);
    let mut i = 0;
    while s.len() < len {
        if i > 0 {
            s.push_str(sep);
        }
        s.push_str(&unit.replace("{i}", &i.to_string()));
        i += 1;
    }
    s.push_str(tail);
    s
}

/// The work of streaming `reply` in `chunk`-byte pushes with a view after
/// each, then `finish`; the final value must decode.
fn stream_work<T>(reply: &str, chunk: usize) -> u64
where
    T: Streamable + DeserializeOwned,
{
    stream_work_ending::<T>(reply, chunk, true)
}

/// [`stream_work`], the final decode `Ok` or not as `decodes` says.
fn stream_work_ending<T>(reply: &str, chunk: usize, decodes: bool) -> u64
where
    T: Streamable + DeserializeOwned,
{
    work_of(|| {
        let mut dec = StreamDecoder::<T>::new();
        for piece in reply.as_bytes().chunks(chunk) {
            let _ = dec.push(piece);
            std::hint::black_box(dec.view());
        }
        assert_eq!(dec.finish().is_ok(), decodes, "the whole reply decodes");
    })
}

const SN: usize = 2 << 10;

/// The family `make(len)` streamed at n and 8n bytes, in 1- and 16-byte
/// chunks: the work ratio stays under 10.
#[track_caller]
fn assert_stream_linear<T>(family: &str, make: impl Fn(usize) -> String)
where
    T: Streamable + DeserializeOwned,
{
    for chunk in [1, 16] {
        let how = format!("stream {family:<36} {chunk:>2}-byte chunks");
        assert_work_linear(&how, &make, |reply| stream_work::<T>(reply, chunk));
    }
}

/// The work `work` does on the reply `make(n)` at n and 8n bytes: the
/// ratio stays under 10 (`how` names the run).
#[track_caller]
fn assert_work_linear(how: &str, make: impl Fn(usize) -> String, work: impl Fn(&str) -> u64) {
    let (small, big) = (make(SN), make(8 * SN));
    let (w1, w8) = (work(&small), work(&big));
    let ratio = w8 as f64 / w1.max(1) as f64;
    eprintln!("{how} ratio {ratio:.2}");
    assert!(w1 > 0, "{how}: no work counted");
    assert!(
        w8 < 10 * w1,
        "{how}: work {w1} at {} bytes, {w8} at {} bytes (ratio {ratio:.1})",
        small.len(),
        big.len(),
    );
}

const ITEM: &str = r#"{"n": {i}, "text": "step {i}"}"#;

#[test]
fn stream_valid_json_in_a_fence() {
    assert_stream_linear::<Doc>("valid JSON in a fence", |n| {
        streamed("Here:\n```json\n{\"items\": [", ITEM, ", ", n, "]}\n```\n")
    });
}

#[test]
fn stream_reasoning_block_then_json() {
    assert_stream_linear::<Doc>("a reasoning block, then the JSON", |n| {
        let think = streamed(
            "<think>",
            "I weigh {x} against [y], {i}. ",
            "",
            n,
            "</think>\n",
        );
        think + r#"{"items": [{"n": 1, "text": "done"}]}"#
    });
}

#[test]
fn stream_tool_calls() {
    assert_stream_linear::<Calls>("a tool-call enum list", |n| {
        let call = r#"{"tool": "search", "query": "q{i}", "limit": {i}}"#;
        streamed("{\"calls\": [", call, ", ", n, "]}")
    });
}

#[test]
fn stream_raw_newlines_in_strings() {
    assert_stream_linear::<Doc>("raw newlines and tabs in strings", |n| {
        let unit = "{\"n\": {i}, \"text\": \"line one\n\tline two\n\"}";
        streamed("```json\n{\"items\": [", unit, ", ", n, "]}\n```")
    });
}

#[test]
fn stream_python_literals() {
    assert_stream_linear::<Flags>("Python's literals", |n| {
        let unit = "{\"on\": True, \"off\": False, \"none\": None}";
        streamed("{\"items\": [", unit, ", ", n, "]}")
    });
}

#[test]
fn stream_missing_commas() {
    assert_stream_linear::<Doc>("commas missing between values", |n| {
        let unit = "{\"n\": {i} \"text\": \"step {i}\"\n  \"tags\": [\"a\"\n  \"b\"]}";
        streamed("```json\n{\"items\": [", unit, "\n", n, "]}\n```")
    });
}

#[test]
fn stream_comments() {
    assert_stream_linear::<Doc>("comments between tokens", |n| {
        let unit = "{\"n\": {i}, // the step\n \"text\": \"step {i}\" /* done */}";
        streamed(
            "```jsonc\n{\"items\": [ # the steps\n",
            unit,
            ",\n",
            n,
            "]}\n```",
        )
    });
}

#[test]
fn stream_single_quotes() {
    assert_stream_linear::<Doc>("single quotes throughout", |n| {
        streamed(
            "{'items': [",
            "{'n': {i}, 'text': 'step {i}'}",
            ", ",
            n,
            "]}",
        )
    });
}

#[test]
fn stream_unquoted_keys() {
    assert_stream_linear::<Doc>("unquoted keys", |n| {
        streamed("{items: [", "{n: {i}, text: \"step {i}\"}", ", ", n, "]}")
    });
}

#[test]
fn stream_one_trailing_comma_near_the_start() {
    assert_stream_linear::<Doc>("one trailing comma near the start", |n| {
        streamed(
            "{\"items\": [{\"n\": 0, \"text\": \"a\",}, ",
            ITEM,
            ", ",
            n,
            "]}",
        )
    });
}

#[test]
fn stream_intro_paragraph_then_a_fence() {
    let make = |n| {
        let intro = streamed("", "Sure, this is step {i} of the plan.", " ", n, "\n");
        intro + "```json\n{\"items\": [{\"n\": 1, \"text\": \"done\"}]}\n```"
    };
    assert_stream_linear::<Doc>("a long intro paragraph, then a fence", make);
    // Untyped too: prose is no value for it either.
    assert_stream_linear::<serde_json::Value>("a long intro paragraph (untyped)", make);
    assert_stream_linear::<serde_json::Value>("a long intro paragraph, a bare value", |n| {
        let intro = streamed("", "Sure, this is step {i} of the plan.", " ", n / 2, " ");
        intro + &streamed("{\"items\": [", ITEM, ", ", n / 2, "]}")
    });
}

#[test]
fn stream_link_in_the_intro_then_json() {
    // A `[link]` before the value is no rival to it (no value of `Doc`),
    // and a placeholder before a short value costs nothing once the value
    // is complete: the prose after it is read once.
    assert_stream_linear::<Doc>("a link in the intro, then JSON", |n| {
        let json = streamed("{\"items\": [", ITEM, ", ", n, "]}");
        format!("See [the docs]. Here is the JSON:\n{json}\nDone.")
    });
    assert_stream_linear::<Doc>("a short value, then long prose", |n| {
        let prose = streamed("", "Then step {i} follows, in order.", " ", n, "");
        format!("Fill in {{title}}:\n{{\"items\": [{{\"n\": 1, \"text\": \"a\"}}]}}\n{prose}")
    });
}

#[test]
fn stream_fenced_value_then_prose_with_apostrophes() {
    assert_stream_linear::<Doc>("a fenced value, then prose with apostrophes", |n| {
        let prose = streamed("", "It's step {i}, and that's fine.", " ", n, "");
        format!("```json\n{{\"items\": [{{\"n\": 1, \"text\": \"a\"}}]}}\n```\n{prose}")
    });
}

#[test]
fn stream_value_labelled_no_answer_then_prose_or_the_answer() {
    // A value its label names no answer (`Example:`), then a long
    // paragraph that says `result` and `output` with no value after them:
    // the paragraph is read once. Then the answer labelled so, long: it is
    // read as it comes once a read takes it.
    for head in ["Example: {v}\n\n", "Input:\n```json\n{v}\n```\n"] {
        let head = head.replace("{v}", "{\"items\": [{\"n\": 1, \"text\": \"a\"}]}");
        assert_stream_linear::<Doc>(&format!("{head:?} then prose"), |n| {
            head.clone() + &streamed("", "The result of step {i} is its output.", " ", n, "")
        });
        assert_stream_linear::<Doc>(&format!("{head:?} then the answer"), |n| {
            head.clone()
                + &streamed(
                    "Output:\n```json\n{\"items\": [",
                    ITEM,
                    ", ",
                    n,
                    "]}\n```\n",
                )
        });
    }
}

#[test]
fn stream_value_taken_back_then_prose() {
    // A value the sentence after it takes back (`Wait, no, that is
    // wrong.`), bare or fenced, then a long paragraph: a decode gives no
    // value, and the paragraph is read once; the same with words that
    // only exclaim (`Oops!`) and then words that keep the value.
    let value = "{\"items\": [{\"n\": 1, \"text\": \"a\"}]}";
    for wrap in ["{v}\n", "```json\n{v}\n```\n"] {
        for (said, decodes) in [("Wait, no, that is wrong. ", false), ("Oops! ", true)] {
            let head = wrap.replace("{v}", value) + said;
            let make =
                |n| head.clone() + &streamed("", "Then step {i} follows, in order.", " ", n, "");
            for chunk in [1, 16] {
                assert_work_linear(
                    &format!("{head:?} then prose, {chunk}-byte chunks"),
                    make,
                    |reply| stream_work_ending::<Doc>(reply, chunk, decodes),
                );
            }
        }
    }
}

#[test]
fn stream_repaired_value_then_prose() {
    // A value read with the repairs models need most (single quotes, keys
    // without quotes, a trailing comma), bare, in a tag or in a fence, then
    // a long paragraph: the paragraph is read once (found by review: a
    // complete value with any repair was read whole on every push).
    let values = [
        "{'items': [{'n': 1, 'text': 'a'}]}",
        "{items: [{n: 1, text: \"a\"}]}",
        "{\"items\": [{\"n\": 1, \"text\": \"a\"},]}",
    ];
    for value in values {
        for wrap in ["{v}\n", "<json>{v}</json>\n", "```json\n{v}\n```\n"] {
            let head = wrap.replace("{v}", value);
            assert_stream_linear::<Doc>(&format!("{head:?} then prose"), |n| {
                head.clone() + &streamed("", "Then step {i} follows, in order.", " ", n, "")
            });
        }
    }
}

#[test]
fn stream_placeholder_in_the_intro_then_json() {
    assert_stream_linear::<Doc>("a placeholder in the intro, then JSON", |n| {
        let json = streamed("{\"items\": [", ITEM, ", ", n, "]}");
        format!("Replace {{name}} with yours. Here is the JSON:\n{json}\nDone.")
    });
}

#[test]
fn stream_map_field() {
    assert_stream_linear::<Meta>("a map field", |n| {
        streamed("{\"meta\": {", r#""k{i}": "value {i}""#, ", ", n, "}}")
    });
}

#[test]
fn stream_strings_holding_braces() {
    assert_stream_linear::<Doc>("strings holding { } placeholders", |n| {
        let unit = r#"{"n": {i}, "text": "mix {flour} and [water] well"}"#;
        streamed("```json\n{\"items\": [", unit, ", ", n, "]}\n```")
    });
}

/// A tool call writing a file: one long string of code at the root's
/// level, so that the text so far often ends in a `}` that would close the
/// root. A decode ends the string there only where the brackets of its
/// text before that balance (`{"a": "b}`), which is counted once.
#[test]
fn stream_code_in_a_long_string() {
    let make = |n| {
        let unit = "function f{i}(a) {\\n  if (a) { return [a]; }\\n}\\n";
        streamed("{\"n\": 1, \"text\": \"", unit, "", n, "\"}")
    };
    assert_stream_linear::<Item>("code in a long string", make);
    assert_stream_linear::<serde_json::Value>("code in a long string (untyped)", make);
}

#[test]
fn stream_code_in_fenced_strings() {
    // Valid JSON whose strings hold code fences (a tool call writing a
    // README), in a reply that opens with its fence and after an intro.
    let unit = r#"{"n": {i}, "text": "code:\n```py\nx = {i}\n```\nend"}"#;
    for head in ["```json\n", "Here:\n```json\n"] {
        assert_stream_linear::<Doc>(&format!("code in strings, {head:?}"), |n| {
            streamed(&format!("{head}{{\"items\": ["), unit, ", ", n, "]}\n```\n")
        });
    }
}

#[test]
fn stream_lists_of_options() {
    // `null`s in a list of `Option`s (a view read them as the element's
    // view, which refused them, before `Option<T>`'s view kept the
    // `Option`).
    assert_stream_linear::<Vec<Option<u32>>>("options with nulls", |n| {
        streamed("[", "null, {i}", ", ", n, "]")
    });
    assert_stream_linear::<Vec<Option<Item>>>("optional items with nulls", |n| {
        streamed("```json\n[", ITEM, ", null, ", n, "]\n```")
    });
}

#[test]
fn stream_root_map() {
    // A map at the root (not a struct's flattened one): each member put in
    // as it comes, and a part inside one into that member: of numbers, of
    // strings (each read again as it grows: its own length, not the
    // map's), of structs.
    assert_stream_linear::<BTreeMap<String, u32>>("a map of numbers at the root", |n| {
        streamed("{", r#""k{i}": {i}"#, ", ", n, "}")
    });
    assert_stream_linear::<std::collections::HashMap<String, String>>(
        "a map of strings at the root",
        |n| streamed("{", r#""k{i}": "value {i}""#, ", ", n, "}"),
    );
    assert_stream_linear::<BTreeMap<String, Item>>("a map of structs at the root", |n| {
        streamed("{", r#""k{i}": {"n": {i}, "text": "t"}"#, ", ", n, "}")
    });
}

#[test]
fn stream_flatten() {
    assert_stream_linear::<Flat>("a flatten struct", |n| {
        streamed("{\"id\": 1, \"items\": [", ITEM, ", ", n, "]}")
    });
}

#[test]
fn stream_flatten_beside_the_streaming_field() {
    assert_stream_linear::<Beside>("a flattened part beside the list", |n| {
        streamed("{\"source\": \"model\", \"items\": [", ITEM, ", ", n, "]}")
    });
}

#[test]
fn stream_untagged_enum_list() {
    assert_stream_linear::<Eithers>("an untagged enum list", |n| {
        let unit = r#"{"left": "l{i}", "right": "r{i}"}"#;
        streamed("{\"items\": [", unit, ", ", n, "]}")
    });
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Say(#[llm(partial)] String),
    Move { to: String, steps: u32 },
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Adjacents {
    #[llm(partial)]
    items: Vec<Adjacent>,
}

/// Adjacently tagged with newtype variants: read without serde's buffer
/// once its tag has come, so it grows in place as an internally tagged
/// enum does, at the root too.
#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
#[serde(tag = "type", content = "data")]
enum Output {
    Answer(#[llm(partial)] String),
    Steps(#[llm(partial)] Vec<Item>),
    Stop,
}

#[test]
fn stream_adjacently_tagged_enum_at_the_root() {
    assert_stream_linear::<Output>("an adjacently tagged enum's string", |n| {
        streamed(
            "{\"type\": \"Answer\", \"data\": \"",
            "word {i} ",
            "",
            n,
            "\"}",
        )
    });
    assert_stream_linear::<Output>("an adjacently tagged enum's list", |n| {
        streamed("{\"type\": \"Steps\", \"data\": [", ITEM, ", ", n, "]}")
    });
}

/// An untagged enum at the root, holding a long string marked partial.
#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
#[serde(untagged)]
enum Reply {
    Answer {
        #[llm(partial)]
        answer: String,
    },
    Call {
        tool: String,
        query: String,
    },
}

/// serde reads an untagged enum's view from content it buffers, where a
/// cut string is left out whatever it holds: a string that only grows is
/// not read again (63x at 8n when it was, on every push).
#[test]
fn stream_untagged_enum_at_the_root() {
    assert_stream_linear::<Reply>("an untagged enum at the root", |n| {
        streamed("{\"answer\": \"", "word {i} ", "", n, "\"}")
    });
}

/// The same enum, a member no variant takes first: a decode shows nothing
/// of the root when it opens, so it is read whole until it shows; then it
/// is known as any root is (it was read whole on every push to the end:
/// 61x at 8n).
#[test]
fn stream_untagged_enum_at_the_root_shown_late() {
    assert_stream_linear::<Reply>("an untagged enum at the root, late", |n| {
        streamed("{\"tool\": null, \"answer\": \"", "word {i} ", "", n, "\"}")
    });
}

/// A struct with the enum flattened into it. serde reads the flattened
/// part from the members it buffers, where a cut one is left out: a member
/// still being written changes nothing shown (63x at 8n when the struct was
/// read again on every push).
#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct FlatReply {
    id: u32,
    #[serde(flatten)]
    body: Reply,
}

#[test]
fn stream_flattened_untagged_enum() {
    assert_stream_linear::<FlatReply>("a flattened untagged enum", |n| {
        streamed("{\"id\": 1, \"answer\": \"", "word {i} ", "", n, "\"}")
    });
}

/// An internally tagged enum flattened into a struct, its string marked
/// partial.
#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
#[serde(tag = "type")]
enum Said {
    Say {
        #[llm(partial)]
        text: String,
    },
    Call {
        tool: String,
    },
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct FlatSaid {
    id: u32,
    #[serde(flatten)]
    body: Said,
}

/// A member of a flattened tagged enum read alone (without its tag) says
/// nothing of the enum, and the struct is read again: while its string
/// grows, and for each element of a list of such structs.
#[test]
fn stream_flattened_tagged_enum() {
    assert_stream_linear::<FlatSaid>("a flattened tagged enum, its string", |n| {
        streamed(
            "{\"id\": 1, \"type\": \"Say\", \"text\": \"",
            "word {i} ",
            "",
            n,
            "\"}",
        )
    });
    assert_stream_linear::<Vec<FlatSaid>>("a list of flattened tagged enums", |n| {
        streamed(
            "[",
            "{\"id\": {i}, \"type\": \"Say\", \"text\": \"step {i} of the plan\"}",
            ", ",
            n,
            "]",
        )
    });
}

/// An untagged enum at the root whose variant holds a list marked partial.
#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
#[serde(untagged)]
enum Listing {
    Items {
        #[llm(partial)]
        items: Vec<Item>,
    },
    Other {
        other: String,
    },
}

/// A decode keeps only the root's complete members, so the root is read
/// again when one completes, not on each element of its cut list (was 62x).
#[test]
fn stream_untagged_enum_at_the_root_holding_a_list() {
    assert_stream_linear::<Listing>("an untagged enum at the root, a list", |n| {
        streamed("{\"items\": [", ITEM, ", ", n, "]}")
    });
}

#[test]
fn stream_adjacently_tagged_enum_list() {
    assert_stream_linear::<Adjacents>("an adjacently tagged enum list", |n| {
        let unit =
            r#"{"t": "Move", "c": {"to": "n{i}", "steps": {i}}}, {"t": "Say", "c": "hi {i}"}"#;
        streamed("{\"items\": [", unit, ", ", n, "]}")
    });
}

/// An adjacently tagged tool call with a struct variant (its arguments an
/// object of their own), as function-calling APIs write one.
#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum Tool {
    WriteFile {
        path: String,
        #[llm(partial)]
        content: String,
    },
    Stop,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Tools {
    #[llm(partial)]
    calls: Vec<Tool>,
}

/// Its struct variant's fields are a level below its tag: they grow in
/// place behind the content member (it was read whole on every change,
/// 63x at 8n).
#[test]
fn stream_adjacently_tagged_call_with_a_long_argument() {
    assert_stream_linear::<Tools>("an adjacently tagged call's long argument", |n| {
        streamed(
            "{\"calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.rs\", \"content\": \"",
            "word {i} ",
            "",
            n,
            "\"}}]}",
        )
    });
    assert_stream_linear::<Tool>("an adjacently tagged call at the root", |n| {
        streamed(
            "{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.rs\", \"content\": \"",
            "word {i} ",
            "",
            n,
            "\"}}",
        )
    });
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Generic<T> {
    id: u32,
    #[llm(partial)]
    items: Vec<T>,
    extra: Option<T>,
}

#[test]
fn stream_generic_field() {
    assert_stream_linear::<Generic<Item>>("a list of a generic type", |n| {
        streamed("{\"id\": 1, \"items\": [", ITEM, ", ", n, "]}")
    });
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Counted {
    #[llm(partial)]
    title: String,
    #[serde(flatten)]
    counts: std::collections::BTreeMap<String, u32>,
}

#[test]
fn stream_flattened_map() {
    assert_stream_linear::<Counted>("a flattened map", |n| {
        streamed("{\"title\": \"t\", ", r#""k{i}": {i}"#, ", ", n, "}")
    });
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Shelved {
    #[llm(partial)]
    title: String,
    #[serde(flatten)]
    items: std::collections::HashMap<String, Item>,
}

#[test]
fn stream_flattened_map_of_structs() {
    // Each member's parts go into that member (they read the struct again
    // before).
    assert_stream_linear::<Shelved>("a flattened map of structs", |n| {
        streamed(
            "{\"title\": \"t\", ",
            r#""k{i}": {"n": {i}, "text": "step {i}"}"#,
            ", ",
            n,
            "}",
        )
    });
}

#[test]
fn stream_flattened_map_beside_a_long_string() {
    assert_stream_linear::<Counted>("a flattened map beside a long string", |n| {
        streamed("{\"a\": 1, \"title\": \"", "word {i}", " ", n, "\"}")
    });
}

// Repairs the live reader does not make (their reading rests on the
// tolerant scanner's look-ahead), inside an element: the element is read
// the tolerant way, by the scanner resumed beside the live reader
// (`src/stream/tolerant.rs`), and the live reader goes on after it. Before,
// the text was read whole on every push from the first one (63x at 8n).

/// An inner quote in each element's string.
fn inner_quotes(n: usize) -> String {
    let unit = r#"{"n": {i}, "text": "say "hi" {i}"}"#;
    streamed("```json\n{\"items\": [", unit, ", ", n, "]}\n```\n")
}

#[test]
fn stream_inner_quotes() {
    assert_stream_linear::<Doc>("inner quotes", inner_quotes);
}

/// The work of streaming `reply` into a `Doc` in `chunk`-byte chunks with
/// the deltas (`lean`: only the untyped view kept, as the Python package
/// streams).
fn deltas_work(reply: &str, chunk: usize, lean: bool) -> u64 {
    work_of(|| {
        let mut dec = StreamDecoder::<Doc>::new();
        if lean {
            dec = dec.__untyped_only();
        }
        for piece in reply.as_bytes().chunks(chunk) {
            std::hint::black_box(dec.push_deltas(piece).ok());
        }
        assert!(dec.finish().is_ok(), "the whole reply decodes");
    })
}

/// Inner quotes with the untyped view and its deltas kept, and with only
/// the untyped view kept (as the Python package streams): the element's
/// value in the untyped view is read from the same events, and its growth
/// gives the deltas.
#[test]
fn stream_inner_quotes_with_deltas() {
    for (lean, chunk) in [(false, 1), (false, 16), (true, 1), (true, 16)] {
        let how = match lean {
            false => format!("stream inner quotes, deltas {chunk:>2}-byte chunks"),
            true => format!("stream inner quotes, untyped only {chunk:>2}-byte chunks"),
        };
        assert_work_linear(&how, inner_quotes, |reply| deltas_work(reply, chunk, lean));
    }
}

/// Inner quotes already in the push that finds the value (its first 64
/// bytes hold the first element's), then 1- or 16-byte chunks: the stream
/// reads it as if the repair had come in a push of its own, the tolerant
/// way, rather than reading the whole text on every push from there on.
/// With the typed view, with the deltas, and with only the untyped view.
#[test]
fn stream_inner_quotes_in_the_first_push() {
    for (mode, chunk) in [(0, 1), (0, 16), (1, 16), (2, 16)] {
        let how =
            format!("stream inner quotes in the first push, mode {mode} {chunk:>2}-byte chunks");
        assert_work_linear(&how, inner_quotes, |reply| {
            work_of(|| {
                let mut dec = StreamDecoder::<Doc>::new();
                if mode == 2 {
                    dec = dec.__untyped_only();
                }
                let (first, rest) = reply.split_at(64);
                for piece in std::iter::once(first.as_bytes()).chain(rest.as_bytes().chunks(chunk))
                {
                    match mode {
                        0 => {
                            let _ = dec.push(piece);
                            std::hint::black_box(dec.view());
                        }
                        _ => {
                            std::hint::black_box(dec.push_deltas(piece).ok());
                        }
                    }
                }
                assert!(dec.finish().is_ok(), "the whole reply decodes");
            })
        });
    }
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct PlainDoc {
    items: Vec<PlainItem>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct PlainItem {
    n: i64,
    text: String,
}

/// Inner quotes where the view shows no element while the list is open (a
/// field not marked partial, and an untyped target, whose members are
/// complete values): each element is read the tolerant way, and the list
/// once it closes, from the tolerant scanner's events.
#[test]
fn stream_inner_quotes_in_a_list_not_shown_while_open() {
    assert_stream_linear::<PlainDoc>("inner quotes, a field not partial", inner_quotes);
    assert_stream_linear::<serde_json::Value>("inner quotes, untyped", inner_quotes);
}

/// Code samples in fenced strings, as coding agents write them: a fence on
/// a line of its own inside a string written with raw newlines closes the
/// block for a decode of the text so far until the string's quote arrives.
/// The stream shows the string as it was at the fence meanwhile and reads
/// on (it read the whole text on every push from the first such line
/// before). In a reply that opens with its fence and after an intro; with
/// the typed view, with the deltas, and with only the untyped view.
#[test]
fn stream_fence_lines_in_raw_strings() {
    let unit = "{\"n\": {i}, \"text\": \"code:\n```py\nx = {i}\n```\nend\"}";
    let whole = |n| streamed("```json\n{\"items\": [", unit, ", ", n, "]}\n```\n");
    let intro = |n| streamed("Here:\n```json\n{\"items\": [", unit, ", ", n, "]}\n```\n");
    assert_stream_linear::<Doc>("fence lines in raw strings", whole);
    assert_stream_linear::<Doc>("fence lines in raw strings, an intro", intro);
    for (lean, chunk) in [(false, 1), (false, 16), (true, 16)] {
        let how = format!("stream fence lines in raw strings, lean {lean} {chunk:>2}-byte chunks");
        assert_work_linear(&how, whole, |reply| deltas_work(reply, chunk, lean));
    }
}

#[test]
fn stream_json5_numbers() {
    assert_stream_linear::<Doc>("JSON5 numbers", |n| {
        streamed(
            "{items: [",
            "{n: +{i}, text: 'a {i}', score: .5,}",
            ", ",
            n,
            "]}",
        )
    });
    // Spaces after `5.` keep it cut until a delimiter comes: each is looked
    // at once.
    assert_stream_linear::<Vec<f64>>("spaces after JSON5's 5.", |n| {
        streamed("[5.", " ", "", n, "]")
    });
}

/// A bare value in each element, read the tolerant way (see above).
#[test]
fn stream_unquoted_values() {
    assert_stream_linear::<Doc>("unquoted values", |n| {
        streamed(
            "{\"items\": [",
            r#"{"n": {i}, "text": hello world {i}}"#,
            ", ",
            n,
            "]}",
        )
    });
}

/// Objects one after another with a comma between and no brackets around
/// (`{…}, {…}, {…}`), read as one list: each once, as it completes, as JSON
/// lines are (`src/stream/gather.rs`). Before, the stream read the whole
/// text on every push (63x at 8n).
#[test]
fn stream_objects_separated_by_commas() {
    assert_stream_linear::<Value>("objects separated by commas", |n| {
        streamed("", ITEM, ", ", n, "")
    });
    assert_stream_linear::<Vec<Value>>("objects separated by commas, a list", |n| {
        streamed("", ITEM, ", ", n, "")
    });
}

/// An object, a comma, then prose and another value: the prose does not
/// make the stream read the whole text again on every push.
#[test]
fn stream_an_object_a_comma_then_prose() {
    assert_stream_linear::<Value>("an object, a comma, then prose", |n| {
        streamed("{\"a\": 1}, then ", "word {i}, ", "", n, " {\"b\": 2}")
    });
}

/// JSON lines for a list target or an untyped one, and a fence per value
/// (prose lines between or not) for a list target: each object is read once, as it completes
/// (`src/stream/gather.rs`), the untyped view with its deltas too (as the
/// Python package streams).
#[test]
fn stream_json_lines() {
    let unit = r#"{"n": {i}, "text": "a {i}"}"#;
    let make = |n| streamed("", unit, "\n", n, "\n");
    assert_stream_linear::<Vec<Item>>("JSON lines", make);
    assert_stream_linear::<Vec<Item>>("a fence per value", |n| {
        streamed("", &format!("```json\n{unit}\n```"), "\n", n, "\n")
    });
    assert_stream_linear::<Vec<Item>>("a fence per value, prose between", |n| {
        let fenced = format!("Item {{i}}:\n```json\n{unit}\n```");
        streamed("Here are the items.\n\n", &fenced, "\n\n", n, "\nDone.")
    });
    assert_stream_linear::<serde_json::Value>("JSON lines, untyped", make);
    let (small, big) = (make(SN), make(8 * SN));
    let deltas = |reply: &str| {
        work_of(|| {
            let mut dec = serde_llm::Decoder::new()
                .stream::<serde_json::Value>()
                .__untyped_only();
            for piece in reply.as_bytes().chunks(16) {
                std::hint::black_box(dec.push_deltas(piece).unwrap());
            }
            assert!(dec.finish().is_ok(), "the whole reply decodes");
        })
    };
    let (w1, w8) = (deltas(&small), deltas(&big));
    eprintln!(
        "stream JSON lines, deltas only ratio {:.2}",
        w8 as f64 / w1 as f64
    );
    assert!(
        w8 < 10 * w1,
        "JSON lines, deltas only: work {w1}, then {w8}"
    );
}

#[test]
fn stream_gathered_values() {
    let unit = r#"{"n": {i}, "text": "a {i}"}"#;
    assert_stream_linear::<Vec<Item>>("objects in prose", |n| {
        streamed("Items:\n", &format!("Item {{i}}: {unit}."), "\n", n, "\n")
    });
}

/// A number thousands of digits long (read as a string where one is
/// wanted): each digit is checked once, not with every digit before it.
#[test]
fn stream_a_long_number() {
    assert_stream_linear::<Vec<String>>("a long number", |n| streamed("[1", "1", "", n, "]"));
}

#[test]
fn stream_bare_value_then_prose_with_brackets() {
    assert_stream_linear::<Item>("a bare value, then prose with brackets", |n| {
        streamed(
            "{\"n\": 1, \"text\": \"a\"}\n",
            "The {n} field [{i}] is set.",
            " ",
            n,
            "",
        )
    });
}

/// The work of streaming `reply` against `schema` with `SchemaStream`, as
/// [`stream_work`] does for a type; `deltas`: with its deltas, and whether
/// the whole value is complete after each push (what the Python package's
/// `StreamParser` asks).
fn schema_stream_work(schema: &Value, reply: &str, chunk: usize, deltas: bool) -> u64 {
    let d = serde_llm::SchemaDecoder::new(schema).expect("a schema");
    work_of(|| {
        let mut s = d.stream();
        for piece in reply.as_bytes().chunks(chunk) {
            match deltas {
                true => {
                    let _ = std::hint::black_box(s.push_deltas(piece));
                    std::hint::black_box(s.is_complete(&serde_llm::Path::root()));
                }
                false => {
                    let _ = s.push(piece);
                    std::hint::black_box(s.view());
                }
            }
        }
        assert!(s.finish().is_ok(), "the whole reply decodes");
    })
}

/// [`assert_stream_linear`] for a runtime schema.
#[track_caller]
fn assert_schema_stream_linear(family: &str, schema: Value, make: impl Fn(usize) -> String) {
    for (chunk, deltas) in [(1, false), (16, false), (16, true)] {
        let with = if deltas { ", deltas" } else { "" };
        let how = format!("schema stream {family:<29} {chunk:>2}-byte chunks{with}");
        assert_work_linear(&how, &make, |reply| {
            schema_stream_work(&schema, reply, chunk, deltas)
        });
    }
}

/// A document schema: a list of steps, each a number and a growing text.
fn steps_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "items": {
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
            }
        },
        "required": ["items"]
    })
}

#[test]
fn schema_stream_valid_json_in_a_fence() {
    assert_schema_stream_linear("valid JSON in a fence", steps_schema(), |n| {
        streamed("Here:\n```json\n{\"items\": [", ITEM, ", ", n, "]}\n```\n")
    });
}

#[test]
fn schema_stream_single_quotes_and_coerced_numbers() {
    assert_schema_stream_linear("single quotes, numbers as text", steps_schema(), |n| {
        let unit = "{'n': '{i}', 'text': 'step {i}',}";
        streamed("{'title': 'Bread', 'items': [", unit, ", ", n, "]}")
    });
}

#[test]
fn schema_stream_a_long_string() {
    assert_schema_stream_linear("a long growing string", steps_schema(), |n| {
        streamed(
            "{\"items\": [{\"n\": 1, \"text\": \"",
            "word {i} ",
            "",
            n,
            "\"}]}",
        )
    });
}

#[test]
fn schema_stream_tool_calls() {
    let schema = serde_json::json!({
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
                                "query": {"type": "string"},
                                "limit": {"type": "integer"}
                            },
                            "required": ["tool", "query"]
                        },
                        {
                            "type": "object",
                            "properties": {"tool": {"const": "stop"}},
                            "required": ["tool"]
                        }
                    ]
                }
            }
        },
        "required": ["calls"]
    });
    assert_schema_stream_linear("a tool-call union list", schema, |n| {
        let call = r#"{"tool": "search", "query": "q{i}", "limit": {i}}"#;
        streamed("{\"calls\": [", call, ", ", n, "]}")
    });
}

/// A tool call (an `anyOf` told apart by its `tool` constant) at the root,
/// its content a long string that grows as it streams.
#[test]
fn schema_stream_a_tool_call_at_the_root() {
    let schema = serde_json::json!({
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "tool": {"const": "write_file"},
                    "path": {"type": "string"},
                    "content": {"type": "string", "x-partial": true}
                },
                "required": ["tool", "path", "content"]
            },
            {
                "type": "object",
                "properties": {"tool": {"const": "stop"}},
                "required": ["tool"]
            }
        ]
    });
    assert_schema_stream_linear("a tool call at the root", schema, |n| {
        streamed(
            "{\"tool\": \"write_file\", \"path\": \"a.rs\", \"content\": \"",
            "fn f{i}() {} ",
            "",
            n,
            "\"}",
        )
    });
}

/// Objects in one fence, a line or a comma between them, for a list target
/// or an untyped one: each read once, as it completes
/// (`src/stream/gather.rs`). Before, the stream read the whole text on
/// every push (61x at 8n).
#[test]
fn stream_objects_in_one_fence() {
    for sep in ["\n", ",\n"] {
        let make = |n| streamed("Here:\n```json\n", ITEM, sep, n, "\n```\n");
        assert_stream_linear::<Vec<Item>>("objects in one fence", make);
        assert_stream_linear::<Value>("objects in one fence, untyped", make);
    }
}

/// A line of prose, then objects one after another, into an untyped
/// target: a decode takes the first object alone, and once it is complete
/// and clean no span after it can take its place (only a fence or a tag
/// can: see `settled` in `src/stream/mod.rs`). It was read whole on every
/// push (63x at 8n). A list target gathers them, object by object.
#[test]
fn stream_intro_then_objects_untyped() {
    assert_stream_linear::<Vec<Item>>("intro, then objects, a list", |n| {
        streamed("Here are the steps:\n", ITEM, "\n", n, "")
    });
    assert_stream_linear::<Value>("intro, then objects, untyped", |n| {
        streamed("Here are the steps:\n", ITEM, "\n", n, "")
    });
}
