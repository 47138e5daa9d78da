//! `StreamDecoder`: for real replies split into chunks every way we can think
//! of, after every push the typed view is the one-shot partial view of the
//! text so far, the deltas so far build the untyped view, and `finish` is the
//! one-shot decode of the whole text.

#![allow(dead_code)]

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;

use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use serde_llm::{
    from_llm_str, from_llm_str_partial, Allow, Decoder, Delta, ErrorKind, Partial, Path, Segment,
    StreamDecoder, View,
};

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Step {
    n: u32,
    #[llm(partial)]
    text: String,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Recipe {
    #[llm(required)]
    id: u64,
    title: String,
    #[llm(partial)]
    body: String,
    #[llm(partial)]
    steps: Vec<Step>,
    #[serde(rename = "conf", alias = "confidence")]
    confidence: Option<f64>,
    tags: Vec<String>,
    extra_info: Option<Step>,
}

const RECIPE: &str = r#"{"id": 7, "title": "Sourdough \"basic\"", "body": "Feed the starter.\nWait — about 8 h. ✓",
 "steps": [{"n": 1, "text": "Mix flour & water"}, {"n": 2, "text": "Fold \u00e9 \ud83d\ude00 twice"},
  {"n": 3, "text": ""}], "confidence": 0.92, "tags": ["bread", "slow"],
 "extraInfo": {"n": 4, "text": "nothing"}}"#;

/// Whether `text` opens with a reasoning block that has not closed: a
/// view shows nothing then (only a finished reply is read from an unclosed
/// block's content).
/// A reply whose first reasoning tag is a closing one (the opening tag was
/// in the prompt: `Plan</think>`) starts after it, unless it starts like a
/// value (`{`, `[`, `"`, a backtick); blocks closed before the open one
/// are passed.
fn in_open_block(text: &str) -> bool {
    let mut t = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .to_ascii_lowercase();
    let names = ["think", "thinking", "reasoning"];
    let first_tag = names
        .iter()
        .flat_map(|n| [format!("<{n}>"), format!("</{n}>")])
        .filter_map(|tag| t.find(&tag).map(|at| (at, tag)))
        .min();
    if let Some((at, tag)) = first_tag {
        if tag.starts_with("</") && !t.starts_with(['{', '[', '"', '`']) {
            t = t[at + tag.len()..].trim_start().to_string();
        }
    }
    // Past the closed blocks it opens with. (gpt-oss's analysis channel
    // is one, closed by `<|end|>`.)
    const HARMONY: (&str, &str) = ("<|channel|>analysis<|message|>", "<|end|>");
    loop {
        let close = match names.iter().find(|n| t.starts_with(&format!("<{n}>"))) {
            Some(name) => format!("</{name}>"),
            None if t.starts_with(HARMONY.0) => HARMONY.1.to_owned(),
            None => return false,
        };
        match t.find(&close) {
            Some(at) => t = t[at + close.len()..].trim_start().to_string(),
            None => return true,
        }
    }
}

/// Pushes `text` cut at `cuts` (byte offsets, in order, anywhere) and checks
/// the invariants after every push and at the end.
fn replay<T>(text: &str, cuts: &[usize])
where
    T: Partial + DeserializeOwned + PartialEq + Debug,
    T::View: DeserializeOwned + View + PartialEq + Debug,
{
    replay_with::<T>(&Decoder::new(), Allow::ALL, text, cuts);
}

/// [`replay`] through `decoder`, whose partial flags are `allow`.
fn replay_with<T>(decoder: &Decoder, allow: Allow, text: &str, cuts: &[usize])
where
    T: Partial + DeserializeOwned + PartialEq + Debug,
    T::View: DeserializeOwned + View + PartialEq + Debug,
{
    let untyped = |text: &str| {
        if in_open_block(text) {
            return Value::Null;
        }
        let flags = [Allow::STR, Allow::ARR, Allow::OBJ]
            .into_iter()
            .filter(|&f| allow.contains(f))
            .fold(Allow::NONE, |a, f| a | f);
        decoder
            .clone()
            .allow_partial(flags)
            .decode::<Value>(text)
            .unwrap_or(Value::Null)
    };
    // Two decoders side by side: one that keeps the untyped view and the
    // deltas, and one that shows only the typed view (it builds neither).
    let mut dec = decoder.stream::<T>();
    let mut typed = decoder.stream::<T>();
    let mut built = Value::Null;
    // The paths said complete since the last `Reset` (the deltas' promise).
    let mut completed = Vec::new();
    let mut from = 0;
    for &to in cuts.iter().chain([&text.len()]) {
        let got = dec.push_deltas(&text.as_bytes()[from..to]);
        let got_typed = typed.push(&text.as_bytes()[from..to]);
        from = to;
        let mut end = to;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let prefix = &text[..end];
        let want = decoder.decode_partial::<T>(prefix);
        match (&want, got_typed) {
            (Ok(want), Ok(())) => {
                assert_eq!(typed.view(), want, "typed-only view after {prefix:?}")
            }
            (Err(want), Err(e)) => assert_eq!(e.to_string(), want.to_string(), "{prefix:?}"),
            (want, got) => {
                panic!("{prefix:?}: the one-shot gives {want:?}, the typed-only stream {got:?}")
            }
        }
        assert_eq!(typed.value(), None, "no untyped view kept");
        match (want, got) {
            (Ok(want), Ok(deltas)) => {
                assert_eq!(dec.view(), &want, "view after {prefix:?}");
                for d in &deltas {
                    if let Some(broken) = take_back(&built, d, &mut completed) {
                        panic!("{prefix:?}: {broken} (in {deltas:?})");
                    }
                    d.apply(&mut built);
                }
                assert_eq!(
                    dec.value(),
                    Some(&untyped(prefix)),
                    "untyped view after {prefix:?}"
                );
            }
            // The deltas of a push that fails come with the next.
            (Err(want), Err(e)) => {
                assert_eq!(e.to_string(), want.to_string(), "{prefix:?}");
                continue;
            }
            (want, got) => panic!("{prefix:?}: the one-shot gives {want:?}, the stream {got:?}"),
        }
        assert_eq!(Some(&built), dec.value(), "deltas after {prefix:?}");
    }
    let want = decoder.decode::<T>(text);
    for got in [dec.finish(), typed.finish()] {
        match (got, &want) {
            (Ok(a), Ok(b)) => assert_eq!(&a, b, "{text:?}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:?}"),
            (a, b) => panic!("{text:?}: finish gives {a:?}, the one-shot {b:?}"),
        }
    }
}

/// Every split of `text` into two chunks, and the one-byte chunking.
fn every_split<T>(text: &str)
where
    T: Partial + DeserializeOwned + PartialEq + Debug,
    T::View: DeserializeOwned + View + PartialEq + Debug,
{
    for i in 0..=text.len() {
        replay::<T>(text, &[i]);
    }
    let bytes: Vec<usize> = (1..text.len()).collect();
    replay::<T>(text, &bytes);
}

fn replies() -> Vec<String> {
    vec![
        RECIPE.to_owned(),
        format!("Sure! Here is the recipe:\n```json\n{RECIPE}\n```\nEnjoy."),
        format!("<think>The user wants JSON {{like this}}.</think>\n{RECIPE}"),
        format!("Here {{name}} is the value: {RECIPE} Hope it helps"),
        format!("```json\n{RECIPE}\n```\nOr, shorter: ```json\n{{\"id\": 8}}\n``` and [1]."),
        format!("{RECIPE}\n\nAs a fence:\n```json\n{{\"id\": 9, \"title\": \"x\"}}\n```"),
        // Trailing commas, the repair models need most: read as they come.
        trailing_commas(RECIPE),
        format!("```json\n{}\n```", trailing_commas(RECIPE)),
        // Strings holding closers and placeholders (`mix {flour}`), some
        // ending in closers that would close every container still open.
        braces(RECIPE),
        format!("```json\n{}\n```", braces(RECIPE)),
        // Single quotes and keys without quotes, as local models write
        // them (an apostrophe in a single-quoted string is read whole).
        SINGLE_QUOTED.to_owned(),
        format!("```json\n{SINGLE_QUOTED}\n```"),
        SINGLE_QUOTED.replace("'it\\'s slow'", "'it's slow'"),
        bare_keys(RECIPE),
        format!(
            "Here:\n```json\n{}\n```",
            bare_keys(&trailing_commas(RECIPE))
        ),
    ]
}

const SINGLE_QUOTED: &str = r#"{'id': 7, 'title': 'Sourdough "basic"', 'body': 'Feed the starter.\nWait — about 8 h. ✓',
 'steps': [{'n': 1, 'text': 'Mix flour & water'}, {'n': 2, "text": 'Fold \u00e9 \ud83d\ude00 twice'},
  {'n': 3, 'text': ''}], 'confidence': 0.92, 'tags': ['bread', 'it\'s slow'],
 'extraInfo': {'n': 4, 'text': "nothing"}}"#;

/// `text` with its keys written without quotes.
fn bare_keys(text: &str) -> String {
    let mut out = text.to_owned();
    for key in [
        "id",
        "title",
        "body",
        "steps",
        "n",
        "text",
        "confidence",
        "tags",
        "extraInfo",
    ] {
        out = out.replace(&format!("\"{key}\":"), &format!("{key}:"));
    }
    out
}

/// `text` with closers and placeholders in its strings.
fn braces(text: &str) -> String {
    text.replace("Mix flour & water", "Mix {flour} & [water] ]}")
        .replace("\"slow\"", "\"slow }\"")
        .replace("Sourdough \\\"basic\\\"", "Sourdough {basic} }")
}

/// `text` with a comma before some of its closers.
fn trailing_commas(text: &str) -> String {
    text.replace("\"slow\"]", "\"slow\", ]")
        .replace("\"text\": \"\"}", "\"text\": \"\"\n,}")
        .replace("\"nothing\"}}", "\"nothing\"},}")
}

#[test]
fn typed_recipe_every_split() {
    for r in replies() {
        every_split::<Recipe>(&r);
    }
}

#[test]
fn untyped_recipe_every_split() {
    for r in replies() {
        every_split::<Value>(&r);
    }
}

/// The peers' corpora: every input, into `Value`, split in two everywhere.
#[test]
fn corpus_every_split() {
    for file in [
        "json_repair.jsonl",
        "jsonrepair_js.jsonl",
        "partial_json_parser.jsonl",
    ] {
        for case in common::corpus(file) {
            let input = case["input"].as_str().expect("input");
            if input.len() > 400 {
                continue;
            }
            for i in 0..=input.len() {
                replay::<Value>(input, &[i]);
            }
        }
    }
}

/// The peers' corpora: every input, into `Value`, pushed a byte at a time
/// (every prefix a view, as a model's tokens arrive).
#[test]
fn corpus_byte_by_byte() {
    for file in [
        "json_repair.jsonl",
        "jsonrepair_js.jsonl",
        "partial_json_parser.jsonl",
    ] {
        for case in common::corpus(file) {
            let input = case["input"].as_str().expect("input");
            let cuts: Vec<usize> = (1..input.len())
                .filter(|&i| input.is_char_boundary(i))
                .collect();
            replay::<Value>(input, &cuts);
        }
    }
}

/// 64 cases, or `PROPTEST_CASES` (for a longer run by hand).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn random_chunkings(which in 0usize..64, cuts in proptest::collection::vec(0usize..2000, 0..40)) {
        let replies = replies();
        let reply = &replies[which % replies.len()];
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (reply.len() + 1)).collect();
        cuts.sort_unstable();
        replay::<Recipe>(reply, &cuts);
        replay::<Value>(reply, &cuts);
        let turn = format!("Calls:\n```json\n{TURN}\n```");
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= turn.len()).collect();
        replay::<Turn<Vec<u8>>>(&turn, &cuts);
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= REPORT.len()).collect();
        replay::<Report>(REPORT, &cuts);
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= AGENT.len()).collect();
        replay::<Agent>(AGENT, &cuts);
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= CALLS.len()).collect();
        replay::<Calls>(CALLS, &cuts);
    }
}

/// A document as local models write one: single and double quotes, keys
/// with and without quotes, trailing commas, apostrophes, closers and
/// placeholders inside strings, spaces anywhere.
fn messy_doc() -> impl Strategy<Value = String> {
    let word = proptest::sample::select(vec![
        "a",
        "it's",
        "say \"hi\"",
        "{x}",
        "[1]",
        "a}",
        "b]",
        " ",
        "é ✓",
        ":",
        ",",
        "\\n",
        "<b>",
        "```",
        "````js",
    ]);
    let string =
        (proptest::bool::ANY, proptest::collection::vec(word, 0..4)).prop_map(|(single, words)| {
            let text = words.concat();
            if single {
                // `"` is content here; an apostrophe escaped, or not (the
                // scanner's judgment then).
                let body = text.clone();
                format!(
                    "'{}'",
                    if text.len() % 2 == 0 {
                        body.replace('\'', "\\'")
                    } else {
                        body
                    }
                )
            } else {
                format!(
                    "\"{}\"",
                    text.replace('"', "\\\"").replace("\\\\\"", "\\\"")
                )
            }
        });
    let leaf = prop_oneof![
        string.clone(),
        (-1000i64..1000).prop_map(|n| n.to_string()),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just("1.5".to_owned()),
    ];
    let key = prop_oneof![
        proptest::sample::select(vec!["k", "key_2", "$k", "k-3"]).prop_map(str::to_owned),
        string,
    ];
    let sep = proptest::sample::select(vec!["", " ", "\n  "]);
    // The root a container: a scalar root is read whole on every push (and
    // a root string holding brackets is the known two-candidates case).
    leaf.prop_recursive(3, 24, 4, move |inner| {
        let tail = proptest::sample::select(vec!["", ",", " , "]);
        prop_oneof![
            (
                proptest::collection::vec((inner.clone(), sep.clone()), 0..4),
                tail.clone()
            )
                .prop_map(|(items, tail)| {
                    let items: Vec<String> =
                        items.into_iter().map(|(v, s)| format!("{s}{v}")).collect();
                    let tail = if items.is_empty() { "" } else { tail };
                    format!("[{}{tail}]", items.join(","))
                }),
            (
                proptest::collection::vec((key.clone(), inner, sep.clone()), 0..4),
                tail
            )
                .prop_map(|(members, tail)| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(k, v, s)| format!("{s}{k}:{s}{v}"))
                        .collect();
                    let tail = if members.is_empty() { "" } else { tail };
                    format!("{{{}{tail}}}", members.join(","))
                }),
        ]
    })
    .prop_filter("a container", |d| d.starts_with(['{', '[']))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Generated messy documents, bare and in a fence, pushed in random
    /// pieces: the views are the one-shot decodes of the text so far.
    #[test]
    fn messy_documents_stream_as_they_decode(
        doc in messy_doc(),
        fenced in proptest::bool::ANY,
        cuts in proptest::collection::vec(0usize..4000, 0..12),
    ) {
        let doc = if fenced { format!("Here:\n```json\n{doc}\n```") } else { doc };
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (doc.len() + 1)).collect();
        cuts.sort_unstable();
        replay::<Value>(&doc, &cuts);
    }
}

/// Backticks inside a string of a fenced value are the string's text: a
/// decode of the text so far reads them so as the stream, locked on the
/// value, does (found by `messy_documents_stream_as_they_decode`).
#[test]
fn backticks_inside_a_fenced_value() {
    let doc = "Here:\n```json\n{\"````\": \"it's\", \"k\": \"\"}";
    let at = doc.find(": \"").expect("the value") + 3;
    replay::<Value>(doc, &[at - 1, at]);
}

/// Fenced values with backticks in their strings (code samples, keys, with
/// and without a language tag, raw newlines, escaped quotes), fences whose
/// body is prose with a stray backtick or quote, and a string left
/// unclosed before the fence: every split, and one byte at a time.
#[test]
fn backticks_in_fences_every_split() {
    for doc in [
        "Here:\n```json\n{\"````\": \"it's\", \"k\": \"\"}\n```\nDone.",
        "```\n{\"md\": \"use ``` to fence\", \"n\": [1, \"```\"]}\n```",
        "Here:\n```json\n{\"code\": \"```py\\nprint(1)\\n```\", \"ok\": true}\n```\nDone.",
        "Here:\n```json\n{\"code\": \"```js\nif (x) {\n  y();\n}\n```\", \"ok\": true}\n```\nDone.",
        "```json\n{\"s\": \"say \\\"```\\\" now\", \"n\": 2}\n```",
        "```json\n[\"```\", \"````\", {\"a\": \"``` ```\"}]\n```",
        "Here:\n```json\n{\"a\": \"```\", \"b\": \"x\n```\nThat's \"it\".",
        "Run this:\n```\nit's `odd \"quote\n```\nThe answer is {\"a\": 1}",
        "```text\nnot `json` \"\n```\n```json\n[1, \"```\"]\n```",
    ] {
        every_split::<Value>(doc);
    }
    every_split::<Step>("```json\n{\"n\": 3, \"text\": \"```sh\\nls\\n```\"}\n```");
}

/// Code in the strings of a fenced value (a tool call writing a README):
/// backticks after an escaped newline or other text of their line are the
/// string's, read as they come; a run at the start of a raw line, or the
/// first run of three in a reply that opens with its fence (the whole
/// candidate strips it at the end of the text), is read as a decode of the
/// text reads it. Every split, with and without an intro, in one value and
/// over two strings; a run of four, runs of one and two, inline code.
#[test]
fn code_in_fenced_strings_every_split() {
    let bodies = [
        r#"{"n": 1, "text": "code:\n```py\nx = 1\n```\nend"}"#,
        r#"{"n": 2, "text": "run `ls` then ``a``, and ````md\n# t\n````"}"#,
        r#"{"n": 3, "text": "a ```"}"#,
        r#"{"n": 4, "text": "```"}"#,
        "{\"n\": 5, \"text\": \"raw\n  ```\nline\"}",
        "{\"n\": 6, \"text\": \"raw\n``\"}",
        "{\"n\": 7, \"text\": \"raw}\n``\"}",
        // A fence on a line of its own inside a string: the block ends
        // there for a decode until the string's quote closes it.
        "{\"n\": 8, \"text\": \"a }\n```\nb\"}",
        "{\"n\": 9, \"text\": \"a\n```\nb\n```\nc\"}",
        "{\"n\": 10, \"text\": \"a\n  ````  \nb\\n\\\"q\\\" {c}\"}",
        "{\"n\": 11, \"text\": \"x\n```\n\"}",
        "{\"n\": 12, \"text\": \"f() {\n}\n```\nok\" }",
        "{\"text\": \"a\n```\nb\", \"n\": 13}",
        "{\"text\": \"a\n```\nb\" x, \"n\": 14}",
    ];
    for body in bodies {
        for wrap in [
            "```json\n{b}\n```",
            "Here:\n```json\n{b}\n```\nDone.",
            "```\n{b}",
        ] {
            every_split::<Step>(&wrap.replace("{b}", body));
        }
    }
    let two = r#"{"text": "first ```", "n": 1} {"n": 2, "text": "then ```sh\nls\n```"}"#;
    every_split::<Vec<Step>>(&format!("```json\n[{}]\n```", two.replace("} {", "}, {")));
    every_split::<Value>(&format!("```json\n[{}]\n```", two.replace("} {", "}, {")));
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Score {
    n: i32,
    score: f64,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Scored {
    #[llm(partial)]
    items: Vec<Score>,
}

/// Strings whose text ends, at some split, in closers that would close
/// every container still open: a decode of the text so far ends the string
/// there only where the brackets of its raw text before them balance (not
/// those of escapes: `\u007b`), which the stream counts as it goes.
#[test]
fn closers_at_the_end_of_a_string_every_split() {
    for doc in [
        r#"{"n": 1, "text": "f() { return [1]; } } done"}"#,
        r#"{"n": 2, "text": "a}b} c]"}"#,
        r#"{"n": 3, "text": "\u007b a } b } c"}"#,
        r#"{"n": 4, "text": "{ \u007d } } ]"}"#,
        r#"{"n": 5, "text": "x } ] } \n } end"}"#,
        r#"{"n": 6, "text": "[[{}]] } ]] }"}"#,
        "{\"n\": 7, \"text\": \"a +}\"}",
    ] {
        every_split::<Step>(doc);
        every_split::<Value>(doc);
        every_split::<Value>(&format!("```json\n{doc}\n```"));
    }
    for doc in [
        r#"{"a": {"b": "x}} y} z"}}"#,
        r#"["a]", "[b]]", "c ] ]", "{]}"]"#,
        r#"[{"t": "a}]"}, {"t": "{a}]}"}]"#,
    ] {
        every_split::<Value>(doc);
    }
}

/// Numbers as JSON5 writes them (`+1`, `.5`, `5.`, `5.e3`), read as they
/// come; beside them the tokens that look like one and are not (a
/// hexadecimal number, `Infinity`, a bare `+` or `.`, `...`), read as a
/// decode reads them.
#[test]
fn json5_numbers_every_split() {
    for doc in [
        "{items: [{n: +1, score: .5}, {n: 2, score: 5.}, {n: +3, score: -.25}]}",
        "```json\n{\"items\": [{\"n\": +4, \"score\": 5.e2}, {\"n\": 5, \"score\": +.5,},]}\n```",
        "[+1, .5, 5., -.5, 1e, 0x1F, +Infinity, NaN]",
        "{\"a\": +, \"b\": ., \"c\": [1, ..., 3], \"d\": +0x10, \"e\": +01}",
        "[+1 ,.5 ,+2\n]",
        // A number cut to a decode of the text so far while only spaces
        // follow it (`5.`, `2e`), complete once a delimiter comes.
        "[5. , 2e \n, 3.\n]",
        "```json\n{\"a\": [5.\n]}\n```",
        "```json\n[5.\n```",
        // A sign alone before a comma at the end is a value missing, not
        // a number whose digit groups may follow (found by this test).
        "{\"a\": -, \"b\": 1}",
    ] {
        every_split::<Value>(doc);
    }
    every_split::<Scored>("{items: [{n: +1, score: .5}, {n: 2, score: 5.}, {n: +3, score: -.25}]}");
    every_split::<Vec<f64>>("[+1, .5, 5., -.5, 5.e3, +.5e-1]");
}

/// A fence inside brackets of prose that look like a value's start
/// (`[...`), the bracket closing after the fence: the fenced value stays the
/// value (minimised from a `stream_typed` fuzz input: once the `]` arrived a
/// decode of the text read the fence as part of the bracketed span).
#[test]
fn a_fence_inside_brackets_of_prose() {
    for doc in [
        "\t\t\t[...\u{c} ```json {\"n\": 1, \"text\": \"lue\"} ``` Pue]e.com/",
        "Notes [...\n```json\n{\"n\": 2, \"text\": \"a\"}\n```\nand more]",
    ] {
        every_split::<Step>(doc);
        every_split::<Value>(doc);
    }
}

/// Structs inside lists inside structs, three deep, none generic: each part
/// is read as a part of the innermost struct or untyped object around it,
/// not of the root. Required, optional, defaulted and renamed fields, a
/// field in another key style, partial strings and lists at every depth, a
/// recursive `Box`, untyped members.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Report {
    #[llm(partial)]
    title: String,
    #[serde(default)]
    #[llm(partial)]
    sections: Vec<Section>,
    meta: Option<Meta>,
    extra: Value,
    #[llm(partial)]
    notes: Value,
    #[llm(partial)]
    lines: Vec<String>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Section {
    #[serde(alias = "heading")]
    name: String,
    #[llm(partial)]
    body: String,
    #[serde(default)]
    #[llm(partial)]
    items: Vec<Item>,
    score: Option<f64>,
    #[serde(default)]
    #[llm(partial)]
    grid: Vec<Vec<String>>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Item {
    #[llm(required)]
    id: u32,
    #[llm(partial)]
    note: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    sub: Option<Box<Item>>,
}

const REPORT: &str = r#"{"title": "Q3 \"review\"", "sections": [
 {"heading": "Intro", "body": "Short ✓", "items": [], "score": 0.5},
 {"name": "Detail", "body": "Long\nbody", "items": [
   {"id": 1, "note": "first", "tags": ["a", "b"]},
   {"note": "id after", "id": 2, "sub": {"id": 3, "note": "deep \u00e9", "sub": null}},
   {"id": 4}], "score": null},
 {"body": "no name yet", "name": "Late"}],
 "meta": {"source": "model"}, "extra": {"k": [1, {"x": "y"}], "s": "t"},
 "notes": {"a": ["one", {"b": "two"}], "c": "three"}, "lines": ["l1", "l2 ✓"]}"#;

/// Strings of whitespace in lists (shown once something else arrives),
/// numbers cut at every digit, lists of lists in an untyped member.
const REPORT_SPACES: &str = r#"{"sections": [{"name": "a", "body": " ", "items": [
 {"id": 123, "tags": ["  ", "x", " y "], "note": "  "}, {"id": 45, "tags": []}], "grid": [["a b", " "], [], ["c"]]}],
 "extra": [" ", {"a": [[1.5e3], ["  "], []]}, -0.25]}"#;

#[test]
fn nested_structs_every_split() {
    every_split::<Report>(REPORT);
    every_split::<Report>(&format!("The report:\n```json\n{REPORT}\n```"));
    every_split::<Report>(REPORT_SPACES);
}

/// Fields marked `#[llm(atomic)]`, of types without a partial view (as a
/// type from another crate is): put in whole as each completes, as a plain
/// scalar field is, in a struct, in the elements of a list (one of them
/// required), and in internally tagged enums that grow in place.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Bill {
    #[llm(partial)]
    customer: String,
    #[llm(atomic)]
    total: common::Money,
    #[llm(atomic)]
    due: Option<common::Money>,
    #[llm(atomic)]
    pin: common::Point,
    #[llm(partial)]
    lines: Vec<BillLine>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct BillLine {
    #[llm(partial)]
    item: String,
    #[llm(required, atomic)]
    price: common::Money,
    #[llm(atomic)]
    at: Option<common::Point>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Entry {
    Charge {
        #[llm(atomic)]
        amount: common::Money,
        #[llm(partial)]
        note: String,
        #[llm(atomic)]
        at: common::Point,
    },
    Refund {
        #[llm(atomic)]
        amount: common::Money,
    },
}

const BILL: &str = r#"{"customer": "Ada \"A\" L.", "total": "12.50 EUR", "due": null,
 "pin": {"x": 3, "y": -4}, "lines": [{"item": "tea", "price": "3.50 EUR", "at": {"x": 1, "y": 1}},
 {"price": "9.00 EUR", "item": "cake ✓"}, {"item": "tip", "price": "0.30 EUR"}]}"#;

const ENTRIES: &str = r#"[{"kind": "charge", "amount": "12.50 EUR", "note": "card ✓", "at": {"x": 1, "y": 2}},
 {"kind": "refund", "amount": "1.00 EUR"}, {"kind": "charge", "note": "", "at": {"x": 0, "y": 0}, "amount": "0.05 EUR"}]"#;

#[test]
fn atomic_fields_every_split() {
    every_split::<Bill>(BILL);
    every_split::<Bill>(&format!("The bill:\n```json\n{BILL}\n```"));
    every_split::<Vec<Entry>>(ENTRIES);
    every_split::<Entry>(&ENTRIES[1..ENTRIES.find('}').unwrap() + 2]);
}

/// Types that are never cut (a char; a date, an id, a decimal, a URL under
/// their features), in every place a view holds them: a field, a field
/// marked partial, a list marked partial (grown by whole values), a list of
/// lists. `$written` is the value as a reply writes it.
macro_rules! whole {
    ($($(#[$cfg:meta])* $name:ident($ty:ty) = $written:literal;)*) => {
        $(
            $(#[$cfg])*
            #[derive(Debug, Deserialize, Partial, PartialEq)]
            struct $name {
                one: $ty,
                #[llm(partial)]
                some: Option<$ty>,
                #[llm(partial)]
                list: Vec<$ty>,
                #[llm(partial)]
                lists: Vec<Vec<$ty>>,
                #[llm(partial)]
                note: String,
            }
        )*

        #[test]
        fn whole_values_every_split() {
            $(
                $(#[$cfg])*
                {
                    let w = $written;
                    let doc = format!(
                        r#"{{"one": {w}, "some": {w}, "list": [{w}, {w}], "lists": [[{w}], [], [{w}, {w}]], "note": "n"}}"#
                    );
                    every_split::<$name>(&doc);
                }
            )*
        }
    };
}

whole! {
    Chars(char) = r#""x""#;
    #[cfg(feature = "chrono")]
    Dates(chrono::NaiveDate) = r#""2024-05-14""#;
    #[cfg(feature = "chrono")]
    Stamps(chrono::DateTime<chrono::FixedOffset>) = r#""2024-05-14T09:30:05+02:00""#;
    #[cfg(feature = "time")]
    Times(time::PrimitiveDateTime) = "[2024, 135, 9, 30, 5, 0]";
    #[cfg(feature = "uuid")]
    Ids(uuid::Uuid) = r#""67e55044-10b1-426f-9247-bb680e5fe0c8""#;
    #[cfg(feature = "rust_decimal")]
    Prices(rust_decimal::Decimal) = "19.95";
    #[cfg(feature = "url")]
    Links(url::Url) = r#""https://example.com/docs?page=2""#;
}

/// A reply of `records` steps, fenced, with prose around.
fn long_reply(records: usize) -> String {
    let mut s = String::from("Here is the recipe:\n```json\n{\"id\": 1, \"title\": \"Long\", \"body\": \"b\", \"steps\": [");
    for i in 0..records {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format!(
            r#"{{"n": {i}, "text": "step {i}: fold \"gently\", then wait ✓"}}"#
        ));
    }
    s.push_str("], \"tags\": [\"a\"]}\n```\nEnjoy!");
    s
}

/// Pushed one byte at a time, the work (bytes the stream decoder and every
/// read it makes examine: `serde_llm::__private::work()`, deterministic)
/// stays a small multiple of the reply's length, at 128 KB as at 1 MB.
#[test]
fn work_is_linear_in_one_byte_chunks() {
    let mut per_byte = Vec::new();
    for records in [2_000, 16_000] {
        let reply = long_reply(records);
        let before = serde_llm::__private::work();
        let mut dec = StreamDecoder::<Recipe>::new();
        for b in reply.as_bytes() {
            dec.push(std::slice::from_ref(b)).unwrap();
        }
        let work = serde_llm::__private::work() - before;
        let view = dec.view().as_ref().expect("a view");
        assert_eq!(view.steps.as_ref().map(Vec::len), Some(records));
        assert_eq!(dec.finish().unwrap().steps.len(), records);
        per_byte.push(work as f64 / reply.len() as f64);
    }
    println!("work per byte: {per_byte:?}");
    assert!(per_byte.iter().all(|&w| w < 80.0), "{per_byte:?}");
    assert!(per_byte[1] < per_byte[0] * 1.25, "{per_byte:?}");
}

/// A tool call's arguments growing inside an internally tagged enum grow in
/// place: the work per byte stays the same from 16 KB to 128 KB, one byte
/// at a time (it grew with the length while the call was read again on
/// every push).
#[test]
fn tool_call_work_is_linear() {
    let mut per_byte = Vec::new();
    for words in [1_000, 8_000] {
        let mut reply = String::from(
            r#"{"calls": [{"tool": "search", "query": "q", "limit": 3}, {"tool": "finish", "answer": ""#,
        );
        for i in 0..words {
            reply.push_str(&format!("w{i:05} \\\"x\\\" "));
        }
        reply.push_str(r#""}]}"#);
        let before = serde_llm::__private::work();
        let mut dec = StreamDecoder::<Calls>::new();
        for b in reply.as_bytes() {
            dec.push(std::slice::from_ref(b)).unwrap();
        }
        let work = serde_llm::__private::work() - before;
        match dec.finish().unwrap().calls.as_slice() {
            [Call::Search { .. }, Call::Finish { answer }] => assert_eq!(answer.len(), words * 11),
            other => panic!("{other:?}"),
        }
        per_byte.push(work as f64 / reply.len() as f64);
    }
    println!("work per byte: {per_byte:?}");
    assert!(per_byte[1] < per_byte[0] * 1.25, "{per_byte:?}");
}

/// Many short tool calls: each new call, shown once its tag is complete,
/// costs what it is, not a decode of the whole text (it did: 771 to 3,079
/// work per byte from 250 to 1,000 calls, the view of the list vanishing
/// while a call's tag had not come).
#[test]
fn many_tool_calls_work_is_linear() {
    let mut per_byte = Vec::new();
    for calls in [100, 800] {
        let mut reply = String::from(r#"{"calls": ["#);
        for i in 0..calls {
            if i > 0 {
                reply.push_str(", ");
            }
            reply.push_str(&format!(
                r#"{{"tool": "search", "query": "q{i}", "limit": {i}}}"#
            ));
        }
        reply.push_str("]}");
        let before = serde_llm::__private::work();
        let mut dec = StreamDecoder::<Calls>::new();
        let mut most = 0;
        for chunk in reply.as_bytes().chunks(7) {
            dec.push(chunk).unwrap();
            let shown = dec.view().as_ref().and_then(|v| v.calls.as_ref());
            let now = shown.map_or(0, Vec::len);
            assert!(now >= most, "the calls went from {most} to {now}");
            most = now;
        }
        let work = serde_llm::__private::work() - before;
        assert_eq!(dec.finish().unwrap().calls.len(), calls);
        per_byte.push(work as f64 / reply.len() as f64);
    }
    println!("work per byte: {per_byte:?}");
    assert!(per_byte[1] < per_byte[0] * 1.25, "{per_byte:?}");
}

/// A decoder's options apply to the stream as to a one-shot decode: strict
/// mode (no repairs: a reply with one is an error, and the stream keeps
/// reading the whole text), partial flags, a depth limit.
#[test]
fn decoder_options_apply() {
    let messy =
        "```json\n{id: 7, 'title': 'x', \"body\": \"b\", \"steps\": [], \"tags\": [],}\n```";
    let flags = Allow::ARR | Allow::OBJ;
    for reply in [RECIPE, messy] {
        for i in (0..=reply.len()).step_by(7) {
            replay_with::<Recipe>(&Decoder::strict(), Allow::ALL, reply, &[i]);
            replay_with::<Value>(&Decoder::strict(), Allow::ALL, reply, &[i]);
            replay_with::<Value>(&Decoder::new().allow_partial(flags), flags, reply, &[i]);
            replay_with::<Value>(&Decoder::new().max_depth(2), Allow::ALL, reply, &[i]);
        }
    }
}

/// A decoder can be moved to another thread (an async task, a worker).
#[test]
fn a_stream_decoder_is_send() {
    fn send<T: Send>(_: &T) {}
    send(&StreamDecoder::<Recipe>::new());
    send(&StreamDecoder::<Value>::new());
}

/// Views that cannot grow in place are read again from their own text: an
/// internally tagged enum, a map, a flattened part, a generic field.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "tool", rename_all = "snake_case")]
enum Call {
    Search {
        #[llm(partial)]
        query: String,
        limit: u32,
    },
    Finish {
        #[llm(partial)]
        answer: String,
    },
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Meta {
    source: String,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Turn<T> {
    #[llm(partial)]
    calls: Vec<Call>,
    scores: std::collections::BTreeMap<String, f64>,
    #[serde(flatten)]
    meta: Meta,
    extra: T,
}

const TURN: &str = r#"{"calls": [{"tool": "search", "query": "rust \"serde\" streaming", "limit": 5},
 {"tool": "finish", "answer": "Use a StreamDecoder ✓"}], "scores": {"a": 0.5, "b": 1},
 "source": "model", "extra": [1, 2]}"#;

/// Tool calls as most agents stream them: a list of internally tagged
/// calls whose arguments grow (no flatten around them).
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Calls {
    #[llm(partial)]
    calls: Vec<Call>,
}

const CALLS: &str = r#"{"calls": [{"tool": "finish", "answer": "Use a \"StreamDecoder\" ✓"},
 {"tool": "search", "query": "rust serde", "limit": 5}, {"query": "tag last", "limit": 1, "tool": "search"},
 {"tool": "finish", "answer": ""}]}"#;

/// A tagged enum as a field, adjacently tagged and untagged enums in lists.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Agent {
    #[llm(partial)]
    now: Call,
    later: Option<Call>,
    #[llm(partial)]
    adjacent: Vec<Adjacent>,
    #[llm(partial)]
    either: Vec<Either>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Say(#[llm(partial)] String),
    Move {
        #[llm(partial)]
        to: String,
        steps: u32,
    },
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(untagged)]
enum Either {
    Pair {
        #[llm(partial)]
        left: String,
        right: String,
    },
    One {
        #[llm(partial)]
        left: String,
    },
}

const AGENT: &str = r#"{"now": {"tool": "search", "query": "now ✓", "limit": 2},
 "later": {"tool": "finish", "answer": "later"},
 "adjacent": [{"t": "Say", "c": "hello \"you\""}, {"t": "Move", "c": {"to": "north", "steps": 3}}, {"c": "late tag", "t": "Say"}],
 "either": [{"left": "only left"}, {"left": "l", "right": "r"}]}"#;

/// Adjacently tagged calls with a struct variant, at the root and in a
/// list, their tag first or last, in prose or a fence, cut anywhere: the
/// view after every split is a decode of the text so far (the struct
/// variant's fields grow in place behind the content member).
#[test]
fn adjacently_tagged_calls_every_split() {
    let calls = [
        r#"{"t": "Move", "c": {"to": "north \"pole\"", "steps": 3}}"#,
        r#"{"c": {"steps": 3, "to": "south"}, "t": "Move"}"#,
        r#"{"t": "Say", "c": "hello"}"#,
        r#"{"t": "Move", "note": [1, {"x": "}"}], "c": {"to": "east"}}"#,
        "Moving: ```json\n{'t': 'Move', 'c': {to: 'west', steps: 2,},}\n``` done.",
    ];
    for text in calls {
        let bytes: Vec<usize> = (1..text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        replay::<Adjacent>(text, &bytes);
        let list = format!("[{text}, {}]", calls[0]);
        let bytes: Vec<usize> = (1..list.len())
            .filter(|&i| list.is_char_boundary(i))
            .collect();
        replay::<Vec<Adjacent>>(&list, &bytes);
    }
}

/// An adjacently tagged enum with a tuple variant of several fields: its
/// view is read whole on every change.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum Action {
    Write {
        #[llm(partial)]
        path: String,
        mode: Option<u32>,
    },
    Move(u32, u32),
    Stop,
}

/// A closing tag inside a string value (see `tests/trust.rs`
/// `a_closing_think_tag_inside_a_string_is_the_string_s`): whether it ends
/// a block rests on what follows it on its line, so the views are the
/// decodes of the text so far as that arrives.
#[test]
fn a_closing_think_tag_inside_a_string_every_split() {
    for text in [
        "Here:\n```json\n{\"a\": 1, \"b\": \"</think>\", \"c\": [\"x\"]}\n```",
        "Sure:\n{\"a\": 1, \"b\": \"Close it with </think> and go\"}",
        "Sure: {\"a\": 1, \"b\": \"x </think> [1]\", \"c\": 2}",
        "I could answer {\"a\": 0, \"b\": \"a draft</think>\n{\"a\": 1, \"b\": \"final\"}",
    ] {
        every_split::<Value>(text);
        every_split::<BTreeMap<String, Value>>(text);
    }
}

/// Bare paths and regexes (see `tests/trust.rs`,
/// `a_bare_path_is_its_text`): a path grows as an unquoted value does, a
/// regex is known once what follows it ends it.
#[test]
fn bare_paths_and_regexes_every_split() {
    for text in [
        "{\"items\": [{\"route\": /post/[id], \"b\": 1}, {\"route\": /, \"n\": [1, 2]}]}",
        "{\"a\": \"x\", \"p\": /usr/bin/env python, \"q\": /ab/g}",
        "Here: {\"re\": /a/ /* c */, \"b\": [/x/]} ok",
    ] {
        every_split::<Value>(text);
        every_split::<BTreeMap<String, Value>>(text);
    }
}

/// A `<json>` tag's closing tag inside a string of its value (see
/// `tests/trust.rs`, `a_closing_json_tag_inside_a_string_is_its_text`):
/// until a closing tag outside the strings arrives, a decode ends the tag
/// at the first one; the stream shows the same.
#[test]
fn a_closing_json_tag_inside_a_string_every_split() {
    for text in [
        "<json>{'a': '</json>'}</json>",
        "Here: <json>{\"a\": \"use </JSON> to close\", \"b\": [1, 2]}</json> done",
        "<json>[\"</json>\", \"x\"]</json>",
        "<json>{\"a\": \"x</json> then <json>{\"b\": 1}</json>",
    ] {
        every_split::<Value>(text);
        every_split::<Vec<Value>>(text);
        every_split::<BTreeMap<String, Value>>(text);
    }
}

/// Quoted brackets in prose, a citation after a value, a placeholder in
/// prose, a tag inside a single-quoted string and a comment holding a
/// closer (found by a sweep; see
/// `tests/trust.rs`): the stream shows what a decode of each prefix does.
#[test]
fn mentions_citations_and_quoted_markers_every_split() {
    for text in [
        "Use '{' to open:\n{\"id\": 1}",
        "Type '[':\n[1, 2]",
        "An object opens with `{` like so: {\"id\": 1, \"b\": [2]}",
        "Here: {'id': 4} [1]",
        "{id: 4, tool: 't'} [1]",
        "{\"a\": 1} [2] {\"b\": 2}",
        "[1] [2]",
        "{\"a\": 1} [1][2]",
        "[a/*] {\"a\": 1}",
        "{\"a\": 1} [1] [2]",
        "{\"a\": 1} [1]\n{\"b\": 2}",
        "Checked [lib/*.py] files.\n{\"n\": 3}",
        "{'text': '<json>'} x",
        "{'text': '<json>', 'b': 'it's </json>'} x",
        "{'a': 'x'} <json>{\"b\": 2}</json>",
        "The answer is `[]` as nothing matched.",
        "Say hi: {\"a\": 1, \"b\": /* } */ 2, \"d\": {\"e\": \"x\"}}",
    ] {
        every_split::<Value>(text);
        every_split::<BTreeMap<String, Value>>(text);
        every_split::<Vec<Value>>(text);
    }
    for text in [
        "Hello {name}!",
        "Dear {first name}, see {link}.",
        "Value is {a: 1} ok",
    ] {
        every_split::<String>(text);
        every_split::<Value>(text);
    }
}

/// A scalar in a fence in a language of code is code, and a value in a
/// dialect does not give way to a mention after it: the stream shows what
/// a decode does, at every split.
#[test]
fn code_fences_and_dialects_every_split() {
    for text in [
        "Here:\n```python\nprint('{')\n```\n{title: 'x', n: [1]}",
        "Here:\n```python\n'hi'\n```\n{\"title\": \"x\"}",
        "Run:\n```bash\necho 1\n```\nThen: [1, 2]",
        "```js\nfoo(1)\n```\n```json\n{\"a\": 1}\n```",
        "```python\n42\n```\n{\"a\": 1}",
        "```python\n\"s\"\n```\nok",
        "```python\n{'a': True}\n```",
        "```python\nprint('{')\n```\n\"x\"",
        "```python\nx = 1\n```\n[1, 2]",
        // An empty value the prose quotes, then the answer.
        "Return `[]` if empty. Result:\n[1, 2, 3]",
        "Use '{}' for none.\n{\"a\": 1}",
        "Use `{}` for none. Answer: {\"a\": \"x\"} and more text here",
        "Use \"{}\" for none.\n{\"a\": 1}",
        "The answer is `[]` as nothing matched.",
        "Use `{}` or `[]`.",
        "{'a': 1} `[]` x",
        "Reply '[]' if none match.\n```json\n[\"x\"]\n```",
        // An empty value an instruction names, then the answer.
        "Use {} when there is nothing. Here: {\"a\": 1}",
        "Return [] if none. Result: [1, 2]",
        "Output {} on error, otherwise:\n```json\n{\"ok\": true}\n```",
        "Per your instructions (return [] if none, otherwise a list like [\"x\"]), the result is:\n\n[]",
        "Return [] if none.\n[5, 6]",
        "Return [] if none.\n**Final answer:**\n```json\n[5, 6]\n```",
        "Return [] if none.",
        "Use {} or [] for none. {\"a\": 1}",
        "{'a': 1} use [] if x",
        // A value in a dialect, then a mention in plain JSON.
        "{title: 'x', n: [1]}\n\nNote: use {\"n\": 2} next time.",
        "{\"a\": 1 /* [ */}\nuse {\"n\": 2}",
        "```json\n{'a': 1, 'b': [1, 2, 3]}\n```\n\n```json\n{\"c\": [1, 2",
        "{\"a\": 1 \"b\": 2}\nFixed: {\"a\": 3, \"b\": 4}",
        "A { brace. Here it is: {\"a\": 1} }",
        // A fenced value the target coerces (a number as a string), then
        // a fence that needs nothing: the later one (found by a sweep: the
        // stream kept the first once its fence closed).
        "```json\n{\"a\": 1}\n```\n```json\n{'b': 'x'}\n```",
        "```json\n{\"a\": [1]}\n```\n```json\n{\"t\": \"\"}\n```",
    ] {
        every_split::<Value>(text);
        every_split::<BTreeMap<String, Value>>(text);
        every_split::<BTreeMap<String, String>>(text);
        every_split::<Vec<Value>>(text);
        every_split::<String>(text);
    }
}

/// BAML's cases of code written as a member's value
/// (`tests/fixtures/baml/code.jsonl`; `tests/models.rs` checks the values):
/// backticks, triple quotes and fenced blocks holding quotes, braces and
/// markers, whole and after prose. The stream follows at every split.
#[test]
fn code_values_every_split() {
    #[derive(Debug, PartialEq, Deserialize, serde_llm::Partial)]
    struct Test {
        #[serde(rename = "type")]
        kind: String,
        #[llm(partial)]
        code: String,
    }
    let path = format!(
        "{}/tests/fixtures/baml/code.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let cases = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for line in cases.lines() {
        let case: Value = serde_json::from_str(line).expect("a case");
        let input = case["input"].as_str().expect("input");
        every_split::<Value>(input);
        every_split::<Test>(input);
    }
}

/// LangChain's markdown replies (`tests/fixtures/langchain/markdown.jsonl`,
/// see `markdown_replies_as_langchains_suite_reads_them` in
/// tests/models.rs) at every split: their first backticks show no string,
/// the first letter of their prose no literal.
#[test]
fn markdown_replies_every_split() {
    let path = format!(
        "{}/tests/fixtures/langchain/markdown.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let cases = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for line in cases.lines() {
        let case: Value = serde_json::from_str(line).expect("a case");
        let reply = case["reply"].as_str().expect("reply");
        every_split::<Value>(reply);
        every_split::<BTreeMap<String, Value>>(reply);
    }
}

/// Found by a sweep (2026-12-06): such an enum, read through its twins,
/// is not in serde's buffer, so a string in it grows as it arrives; the
/// stream took it for one serde buffers and kept its first piece (`"a"` for
/// `"ab"`) once three pushes came.
#[test]
fn an_adjacently_tagged_tuple_enum_string_grows() {
    let replies = [
        "{\"name\": \"write\", \"arguments\": {\"path\": \"ab",
        "The value `x` is: {\"name\": \"write\",\"arguments\": {\"path\": \"hi\",\"mode\": 1}}",
        r#"{"name": "write", "arguments": {"path": "\""}}"#,
    ];
    for text in replies {
        replay::<Action>(text, &[41, 42]);
        every_split::<Action>(text);
        every_split::<Vec<Action>>(&format!("[{text}"));
        // With generics: no twins, serde reads its content as the
        // variant's once the tag came.
        replay::<GenericAction<u32>>(text, &[41, 42]);
        every_split::<GenericAction<u32>>(text);
    }
}

/// [`Action`] with a type parameter.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum GenericAction<T> {
    Write {
        #[llm(partial)]
        path: String,
        mode: Option<T>,
    },
    Move(T, T),
    Stop,
}

/// Found by the fuzz target `stream_typed`: a list of such enums whose
/// live view began after the first element's tag (past prose before the
/// list). That element's frame was not known to the live view, which
/// took it as not in the list and read it in again: two elements.
#[test]
fn a_call_read_whole_is_not_taken_twice() {
    let text =
        "\0t[$[{\"name\": \"write\", \"astpeS trgu$entsa: [e\"}, , \"ast\u{11}\u{1}&\0\0t[tsna";
    replay::<Vec<Action>>(text, &[5, 22, 23, 62, text.len()]);
    let bytes: Vec<usize> = (1..text.len()).collect();
    replay::<Vec<Action>>(text, &bytes);
    let calls = r#"Calls: [{"name": "write", "arguments": {"path": "a.rs"}}, {"name": "move", "arguments": [1, 2]}, {"name": "stop"}]"#;
    for step in [5, 17, 23] {
        let cuts: Vec<usize> = (step..calls.len()).step_by(step).collect();
        replay::<Vec<Action>>(calls, &cuts);
    }
}

/// The calls in a field of generic type: it grows as any field does
/// (`Partial::View` is bounded by `View`).
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Generic<T> {
    #[llm(partial)]
    calls: Vec<T>,
}

/// A flattened part of generic type: its members are the struct's.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct FlatGeneric<T> {
    #[llm(partial)]
    title: String,
    #[serde(flatten)]
    rest: T,
}

/// `null`s among a list's or a map's `Option`s: shown as `None` once
/// complete; a cut element is left out, never `None`.
#[test]
fn options_every_split() {
    every_split::<Vec<Option<u32>>>("[null, 1, null, 22, nul, 3]");
    every_split::<Vec<Option<u32>>>("```json\n[1, null, None, 2]\n```");
    every_split::<Vec<Option<String>>>(r#"["a", null, "b \"c\"", null]"#);
    every_split::<Vec<Option<Step>>>(
        r#"Steps: [{"n": 1, "text": "mix"}, null, {"text": "bake \"it\"", "n": 2}, null]"#,
    );
    every_split::<std::collections::BTreeMap<String, Option<Step>>>(
        r#"{"a": null, "b": {"n": 1, "text": "x"}, "c": null}"#,
    );
    every_split::<Vec<Option<Vec<Option<u32>>>>>("[null, [1, null, 2], [], null]");
}

/// A map at the root takes each member as it comes (a part deeper in a
/// member reads the map again): numbers, strings growing, structs, a key
/// written twice, a member of the wrong type, `null`s.
#[test]
fn root_maps_every_split() {
    use std::collections::{BTreeMap, HashMap};
    every_split::<BTreeMap<String, u32>>(r#"{"a": 1, "bb": 22, "a": 3, "c": "4", "d": 5}"#);
    every_split::<BTreeMap<String, u32>>("Scores:\n```json\n{\"x\": 1, \"y\": 2.0}\n```");
    every_split::<HashMap<String, String>>(r#"{"en": "hello \"you\"", "fr": "salut", "en": "hi"}"#);
    every_split::<BTreeMap<String, Step>>(
        r#"{"one": {"n": 1, "text": "mix"}, "two": {"text": "bake", "n": 2}, "one": {"n": 3}}"#,
    );
    every_split::<BTreeMap<String, Option<u32>>>(r#"{"a": null, "b": 2, "c": nul, "d": 4}"#);
    every_split::<HashMap<String, Vec<u32>>>(r#"{"a": [1, 2], "b": [], "c": [3"#);
}

#[test]
fn generic_fields_every_split() {
    let steps = r#"Steps:
```json
{"calls": [{"n": 1, "text": "mix \"the\" flour"}, {"text": "bake", "n": 2}, {"n": 3}]}
```"#;
    every_split::<Generic<Step>>(steps);
    every_split::<Generic<Generic<Step>>>(&format!(
        r#"{{"calls": [{}, {{"calls": []}}]}}"#,
        &steps[15..steps.len() - 4]
    ));
    let post =
        r#"{"title": "T", "author": "Ann", "bio": "a \"baker\"", "origin": {"source": "m"}}"#;
    every_split::<FlatGeneric<PostMeta>>(post);
    every_split::<FlatGeneric<std::collections::BTreeMap<String, u32>>>(
        r#"{"a": 1, "title": "Counts", "bb": 22, "c": "3"}"#,
    );
}

#[test]
fn tagged_enums_every_split() {
    every_split::<Agent>(AGENT);
    every_split::<Calls>(CALLS);
    every_split::<Generic<Call>>(CALLS);
    every_split::<Vec<Call>>(&format!("```json\n{}\n```", &CALLS[11..CALLS.len() - 1]));
}

/// Tool calls with fields that must be complete beside partial ones (a
/// nested struct's among them): the stream shows what the one-shot view of
/// each prefix shows.
#[test]
fn tool_calls_with_complete_only_fields_every_split() {
    every_split::<common::Tools>(common::TOOLS);
}

#[test]
fn views_that_are_read_again() {
    for reply in [TURN.to_owned(), format!("Calls:\n```json\n{TURN}\n```")] {
        every_split::<Turn<Vec<u8>>>(&reply);
    }
}

/// Raw control characters in strings (code and prose written with real
/// newlines and tabs, as models often write them): read as they come, as a
/// decode reads them, including a closing quote put on the next line.
#[test]
fn raw_control_characters_in_strings_every_split() {
    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct Snippet {
        #[llm(partial)]
        code: String,
        lang: String,
        #[serde(default)]
        #[llm(partial)]
        notes: Vec<String>,
    }
    let replies = [
        "{\"code\": \"def f():\n    return 1\n\", \"lang\": \"py\"}",
        "Here:\n```json\n{\"lang\": \"c\", \"code\": \"int x;\n\tx = 1;\n  \n\", \"notes\": [\"a\nb\", \"\n\", \"c\\n\n \"]}\n```",
        "{\"code\": \"one\r\ntwo \\u00e9\n\t\",\n \"lang\": \"txt\"}",
        "{\"code\": \"line one\n  \"lang\": \"x\"}",
        "{\"notes\": [\"x\n\", \"y\"\n], \"code\": \"\n\n\", \"lang\": \"\t\"}",
    ];
    for reply in replies {
        every_split::<Snippet>(reply);
        every_split::<Value>(reply);
    }
}

/// Python's literals as values (`True`, `False`, `None`, as models used to
/// Python write them): read as they come, as a decode reads them; a word
/// that only starts like one is read whole.
#[test]
fn python_literals_every_split() {
    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct Flags {
        done: bool,
        #[serde(default)]
        #[llm(partial)]
        marks: Vec<Option<bool>>,
        note: Option<String>,
    }
    let replies = [
        "{\"done\": True, \"marks\": [False, None, True], \"note\": None}",
        "```json\n{'done': False, 'marks': [None], 'note': 'x'}\n```",
        "{\"marks\": [True ,False\n], \"done\": Nonetheless}",
        "{\"done\": true, \"note\": \"ok\", \"marks\": [Trueish]}",
    ];
    for reply in replies {
        every_split::<Flags>(reply);
        every_split::<Value>(reply);
    }
}

/// Commas missing between values (`}` then `{` in a list, a member after
/// a number with no comma), as models drop them in long lists: read as they
/// come, as a decode puts them back (after a string, once what follows says
/// its quote closed it: the next key's colon, or in a list a line break);
/// else (`["a" "b"`, where the next string's end and what follows it say)
/// read whole.
#[test]
fn missing_commas_every_split() {
    let replies = [
        "{\"id\": 3 \"title\": \"Bread\", \"steps\": [\n  {\"n\": 1, \"text\": \"Mix\"}\n  {\"n\": 2, \"text\": \"Bake\"}{\"n\": 3, \"text\": \"\"}\n], \"tags\": [\"a\" \"b\"] \"conf\": 0.5}",
        "```json\n[[1 2] [true false null] {\"a\": [1] \"b\": {\"c\": 2} \"d\": \"x\"} \"s\" 4 -5]\n```",
        "[{\"a\": 1} {\"b\": \"two\" \"c\": 3}, \"x\" {\"d\": 4} \"y\" 5]",
        "{\"id\": 1 \"tags\": [\"x\" {\"n\": 1} [2]]}",
        "{\"id\": 1 \"tags\": [\"x\" \"y\"] \"title\": \"t\" \"steps\": [{\"n\": 1 \"text\": \"a\"} {\"n\": 2, \"text\": \"b\"}]}",
        "{\n  \"title\": \"Bread\"\n  \"id\": 3\n  \"body\": \"Mix \\\"well\\\"\"\n  \"tags\": [\"a\", \"b\"]\n  \"steps\": [{\"n\": 1, \"text\": \"x\" \"n2\": 2}]\n}",
        "{\"title\": \"x\" \"y\" \"z\", \"body\": \"He said \"hi\" \"there\"\", \"id\": 2}",
        "{\"id\": 4, \"tags\": [\n  \"a\"\n  \"b\" // two\n  \"c\" \"d\"\r\n  \"e\"\n]}",
        "{\"id\": 5, \"tags\": [\"a\" \"b\" \"c\" 3 \"d\" x \"e\"], \"title\": \"t\"}",
    ];
    for reply in replies {
        every_split::<Value>(reply);
    }
    for reply in [
        replies[0], replies[4], replies[5], replies[6], replies[7], replies[8],
    ] {
        every_split::<Recipe>(reply);
    }
}

/// Comments between tokens (JSONC, and `#` lines), as models annotate the
/// JSON they write: read as they come, as a decode skips them.
#[test]
fn comments_every_split() {
    let replies = [
        "{\n  // the title\n  \"title\": \"Bread\", /* servings */ \"servings\": 4,\n  \"tags\": [\"a\" /* first */, \"b\"] # last\n}",
        "```json\n{\"id\": 7, // why\n \"title\": \"x\" // done\n, \"servings\": 2}\n```",
        "{\"title\" /* k */ : /* v */ \"t\", \"id\": 1 /* unclosed",
        "[1, # one\n 2, /**/ 3 // end",
        "{\"a\": \"x\" /", 
        "{\"a\": 1 #not a comment\n}",
    ];
    for reply in replies {
        every_split::<Value>(reply);
    }
    for reply in &replies[..3] {
        every_split::<Recipe>(reply);
    }
}

/// A reply with a repaired value in one fence and a clean one in a second:
/// once the second is whole it wins, and its closing fence being written
/// (a backtick or two on the last line) is the fence's, not the value's, so
/// the view does not go back to the first for a byte.
#[test]
fn a_closing_fence_being_written_ends_the_block() {
    for reply in [
        "```json\n{'a': 1}\n```\nOr:\n```json\n{\"a\": 2}\n```\n",
        "```json\n{\"a\": \"x\ny\"}\n```\nOr:\n```json\n[2]\n  ```",
    ] {
        every_split::<Value>(reply);
        let cut = &reply[..reply.rfind("```").unwrap() + 1];
        let shown = Decoder::new().decode_partial::<Value>(cut).unwrap();
        let whole = Decoder::new().decode::<Value>(reply).unwrap();
        assert_eq!(shown, Some(whole), "{cut:?}");
    }
}

/// A struct whose own fields stream beside a flattened part: it grows in
/// place by its fields and its flattened part's (a member cut inside the
/// flattened part is content serde buffers, so the view leaves it out until
/// it is complete, as a decode does); a flattened map takes each member
/// once it is complete.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Post {
    #[llm(partial)]
    body: String,
    #[serde(default)]
    #[llm(partial)]
    calls: Vec<Call>,
    #[serde(flatten)]
    meta: PostMeta,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct PostMeta {
    #[llm(required)]
    author: String,
    #[llm(partial)]
    bio: Option<String>,
    origin: Option<Meta>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Tallied {
    #[llm(partial)]
    title: String,
    #[serde(flatten)]
    counts: std::collections::BTreeMap<String, u32>,
}

/// Flattened maps of values and of structs: a complete member goes in as it
/// comes (one of another type makes the map `None`, as serde has it).
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Mapped {
    #[llm(partial)]
    title: String,
    #[serde(flatten)]
    steps: std::collections::HashMap<String, Step>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Untyped {
    id: u32,
    #[serde(flatten)]
    rest: std::collections::BTreeMap<String, Value>,
}

/// A list inside a flattened part: left out of the view while it is cut,
/// shown whole once it closes.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Listed {
    id: u32,
    #[serde(flatten)]
    listing: Listing,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Listing {
    #[llm(partial)]
    items: Vec<Step>,
    note: Option<String>,
}

/// Two flattened parts: the view is read whole, and is shown only once the
/// required field inside one has arrived.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Twice {
    #[llm(partial)]
    title: String,
    #[serde(flatten)]
    meta: PostMeta,
    #[serde(flatten)]
    rest: std::collections::BTreeMap<String, Value>,
}

#[test]
fn flattened_parts_every_split() {
    let posts = [
        r#"{"author": "Ann", "body": "Mix {the} \"flour\"", "calls": [{"tool": "finish", "answer": "ok"}], "bio": "baker"}"#,
        r#"{"body": "hello", "origin": {"source": "model"}, "author": "Bo", "calls": [{"tool": "search", "query": "q", "limit": 2}]}"#,
        r#"Here:\n```json\n{"bio": "b", "unknown": [1, {"x": "y"}], "body": "z", "author": "Cy"}\n```"#,
    ];
    for post in posts {
        every_split::<Post>(post);
    }
    // A member of the flattened part of another type (`next` is a struct):
    // serde's flattened part is `None` from then on, whatever comes after
    // (found by the fuzz target, which panicked on it before).
    every_split::<Post>(
        r#"{"index": 0, "next": "abc", "author": "Di", "registered": "2023-1", "body": "b"}"#,
    );
    every_split::<Post>(r#"{"author": "Di", "next": [1, 2], "bio": "x", "body": "b"}"#);
    for twice in [
        r#"{"title": "T", "author": "Ann", "x": [1, "y"], "bio": "b"}"#,
        r#"{"x": 1, "title": "T", "bio": "b", "author": "Ann"}"#,
    ] {
        every_split::<Twice>(twice);
    }
    every_split::<Tallied>(r#"{"title": "Counts", "a": 1, "bb": 22, "ccc": 333}"#);
    every_split::<Tallied>(r#"{"a": 1, "title": "Counts", "bb": 22}"#);
    every_split::<Tallied>(r#"{"title": "T", "a": "5", "b": 2.0, "c": -1, "d": 4}"#);
    every_split::<Tallied>(r#"{"a": 1, "title": "T \"q\"", "b": "x", "c": 3, "Title": "u"}"#);
    every_split::<Mapped>(
        r#"{"first": {"n": 1, "text": "mix"}, "title": "Bread", "second": {"text": "bake", "n": 2}, "third": {"n": 3}}"#,
    );
    every_split::<Untyped>(
        r#"{"a": [1, {"b": "c"}], "id": 7, "d": "e f", "g": null, "h": {"i": [true]}}"#,
    );
    every_split::<Listed>(
        r#"{"id": 1, "items": [{"n": 1, "text": "a"}, {"n": 2, "text": "b \"c\""}], "note": "x", "id2": [3]}"#,
    );
    every_split::<Listed>(
        r#"```json
{"note": "n", "items": [{"n": 1, "text": "a"}], "id": 2}
```"#,
    );
}

/// A complete value, then a candidate after it that is still open: the
/// candidate may win as it grows with no bracket in the bytes that make it
/// so (`{2: ` read as a key with no value, then `{2: :2`, which a decode
/// prefers), so the text is read again while a bracket after the value is
/// open, or while one that may hold it is open before it. (Both found by
/// the `stream_typed` fuzz target.)
#[test]
fn an_open_candidate_after_a_value_is_read_as_it_grows() {
    let reply = "\0\0\0\0 3}{2}{2: {]12 2} \0{2: 3}{2: :2";
    every_split::<Mapped>(reply);
    replay::<Mapped>(reply, &[11, 22, 33]);
    // So too one that holds the value: here a fence opened before it, whose
    // content a decode prefers once its last string reads otherwise.
    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct Required {
        #[llm(required)]
        n: u32,
    }
    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct Shelf {
        #[llm(partial)]
        title: String,
        #[serde(flatten)]
        steps: std::collections::HashMap<String, Required>,
    }
    let reply = "\": \"\n```{\n         **Decision**: bla, bla ( internawlly tagged enum \"ke\",\n'b': \"x\",\n}y\": \"valu,,,,,,,,,,,,,,,,,,,,,,,,,,,,e\"\n     /\n{},\n      u";
    replay::<Shelf>(reply, &[10, 44, 141]);
    every_split::<Shelf>(reply);
    // A bracket open before a fenced value, its `]` inside a string (`["]`):
    // the span it opens holds the fence, and wins once it closes after the
    // fence (found by the `stream_typed` fuzz target; older than the
    // session that found it: the brackets before the value were counted as
    // prose only).
    let reply = "\"\"[\"]```\"\n```{}```]";
    replay::<Tallied>(reply, &[14]);
    every_split::<Tallied>(reply);
    every_split::<Tallied>("Tags: [\"a]\", \"b\"\n```json\n{\"title\": \"t\", \"n\": 1}\n```\n]");
}

/// A list of internally tagged enums cut inside its last element's tag keeps
/// the elements before it (the view does not vanish while a tool call
/// starts), in a view and in a typed decode.
#[test]
fn a_cut_tagged_element_is_left_out() {
    let cut = r#"{"calls": [{"tool": "finish", "answer": "x"}, {"tool": "sea"#;
    let view = serde_llm::from_llm_str_partial::<Turn<Vec<u8>>>(cut)
        .unwrap()
        .expect("a view");
    assert_eq!(view.calls.map(|c| c.len()), Some(1));
    let (calls, report) = Decoder::new()
        .decode_with_report::<Vec<Call>>(r#"[{"tool": "finish", "answer": "x"}, {"tool": "sea"#)
        .unwrap();
    assert_eq!(calls, [Call::Finish { answer: "x".into() }]);
    assert!(report.truncated);
}

/// Invalid UTF-8 is final, as in a one-shot decode of the bytes; a number
/// beyond `f64` is the one-shot's error, never a `null` in the view.
#[test]
fn errors_are_the_one_shot_errors() {
    let mut dec = StreamDecoder::<Value>::new();
    dec.push("[1, ").unwrap();
    let first = dec.push(b"\xff]").unwrap_err();
    assert_eq!(first.kind(), serde_llm::ErrorKind::InvalidUtf8);
    assert_eq!(first.offset(), Some(4));
    assert_eq!(dec.push("2]").unwrap_err().to_string(), first.to_string());
    let whole = serde_llm::from_llm_slice::<Value>(b"[1, \xff]2]").unwrap_err();
    assert_eq!(dec.finish().unwrap_err().to_string(), whole.to_string());

    for cuts in [&[1usize][..], &[4], &[]] {
        replay::<Value>("[1e400, 2]", cuts);
    }
    let mut dec = StreamDecoder::<Value>::new();
    dec.push_deltas("[").unwrap();
    let _ = dec.push_deltas("1e400, 2]");
    assert_ne!(dec.value(), Some(&serde_json::json!([null, 2])));
}

/// The recorded model replies the examples decode (fenced, prose around,
/// Python literals, NDJSON, cut off), into `Value`: every split in two, and
/// one byte at a time.
#[test]
fn recorded_replies_every_split() {
    let dir = format!("{}/examples/replies", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert!(names.len() >= 8);
    for path in names {
        let reply = std::fs::read_to_string(&path).unwrap();
        every_split::<Value>(&reply);
    }
}

/// A member of the wrong type in the cut last element leaves the element out
/// of the view, as a decode of the text so far does (and the finished decode
/// is the error), for a struct element and for a tool call (found by the
/// `stream_typed` fuzz target: the element stayed shown as it was).
#[test]
fn a_wrong_member_leaves_the_cut_element_out() {
    let calls = r#"{"calls": [{"tool": "search", "query": "q", "limit": 5}, {"tool": "search", "query": "r", "limit": "late", "query": "s"}]}"#;
    for cut in 0..=calls.len() {
        replay::<Calls>(calls, &[cut]);
    }
    replay::<Calls>(calls, &(1..calls.len()).collect::<Vec<_>>());
    let steps = r#"{"id": 1, "title": "t", "body": "b", "steps": [{"n": 1, "text": "a"}, {"n": "two", "text": "b"}], "tags": []}"#;
    for cut in 0..=steps.len() {
        replay::<Recipe>(steps, &[cut]);
    }
    replay::<Recipe>(steps, &(1..steps.len()).collect::<Vec<_>>());
}

/// An object or a list where a string is wanted is its text once complete
/// (a coercion), so cut it is not known yet: a cut last element holding one
/// is left out, in the stream and in a decode of the text so far alike
/// (found by `stream_typed`: the decode gave a `Data` error once the cut
/// object held a string, the stream left the element out).
#[test]
fn a_cut_container_where_a_string_is_wanted_is_not_known_yet() {
    let calls = r#"Sure:
```json
{"calls": [{"tool": "search", "query": {"or": ["brown", "fox"], "email": "d"}, "limit": 2}, {"tool": "finish", "answer": "a"}]}
```"#;
    for cut in 0..=calls.len() {
        replay::<Calls>(calls, &[cut]);
    }
    replay::<Calls>(calls, &(1..calls.len()).collect::<Vec<_>>());
    let cut = r#"{"calls": [{"tool": "search", "query": {"or": "brown", "email": "d"#;
    let view = serde_llm::from_llm_str_partial::<Calls>(cut)
        .unwrap()
        .unwrap();
    assert_eq!(view.calls, Some(vec![]));
    // Complete, the object is the query's text.
    let done = &calls[..calls.find("2}").unwrap() + 2];
    let view = serde_llm::from_llm_str_partial::<Calls>(done).unwrap();
    let want = r#"{"or": ["brown", "fox"], "email": "d"}"#;
    assert!(
        matches!(&view.unwrap().calls.unwrap()[..], [CallView::Search { query: Some(q), .. }] if q == want)
    );
}

/// A key written twice: the view takes it as a decode of the whole object
/// does (serde's error inside a tagged enum, the decoder's choice in a
/// struct), not as the last member read alone (found by `stream_typed`).
#[test]
fn a_key_written_twice() {
    let calls = r#"{"calls": [{"tool": "search", "query": "rust serde", "limit": 1, "query": "again"}, {"tool": "finish", "answer": "x"}]}"#;
    for cut in 0..=calls.len() {
        replay::<Calls>(calls, &[cut]);
    }
    let recipe = r#"{"id": 1, "title": "a", "body": "b", "title": "c", "steps": [{"n": 1, "text": "x", "n": 2}], "tags": []}"#;
    for cut in 0..=recipe.len() {
        replay::<Recipe>(recipe, &[cut]);
        replay::<Value>(recipe, &[cut]);
    }
}

/// A complete tag that names no variant is the one-shot's error, after every
/// push that has it, even while the reply is still cut (found by the
/// `stream_typed` fuzz target: a part read took it for "nothing yet").
#[test]
fn an_unknown_tag_is_the_one_shot_error() {
    let t = r#"{"calls": [{"tool": "search", "query": "q", "limit": 5}, {"tool": "ninish", "answer": "x"}, {"tool": ""#;
    for cut in 0..=t.len() {
        replay::<Calls>(t, &[cut]);
    }
    replay::<Calls>(t, &(1..t.len()).collect::<Vec<_>>());
}

/// A title and tool calls, as the `stream_typed` fuzz target's reply.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Titled {
    #[llm(partial)]
    title: String,
    #[serde(default)]
    #[llm(partial)]
    calls: Vec<Call>,
}

/// Found by the `stream_typed` fuzz target, and older than it: a reply that
/// is not JSON as written (a value closed twice, then prose and another
/// value, all cut) read in small chunks. When `, {` arrives late, a decode
/// of the text so far takes that empty `{` (no repair) over the value
/// closed twice (repaired); once the `{` holds a key the target does not
/// know, the decode goes back to the first value. The stream used to lock
/// onto the `{` and show an empty view from then on; a span in prose with a
/// value before it is now read whole on every push.
#[test]
fn a_messy_reply_with_two_candidates() {
    let t = "{\"title\": \"T\", \"calls\": [{\"tool\": \"search\"}}}(\u{feff}{\"title\u{1}p.\0T\", l:ac\"\"ls Y{\"tls [{\"tool\": \"search\"}\", \"limit\": 5}ool\": \"search\"}\", \"limit\": 5}, {\"tool\": \"finish\"ooooo, \"answt\": er\": \"d\"";
    let cuts = [
        1, 8, 24, 25, 32, 48, 49, 56, 72, 73, 80, 96, 97, 104, 120, 121, 128, 144, 145, 152, 168,
        169, 176,
    ];
    replay::<Titled>(t, &cuts);
}

/// Optional fields only: a `{placeholder}` in prose reads as one (with a
/// bare key and no value), as a list of one does for `Value`.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Loose {
    #[llm(partial)]
    name: Option<String>,
    #[serde(default)]
    #[llm(partial)]
    items: Vec<Step>,
}

/// A placeholder in the prose before the value (`Replace {name} with
/// yours`) reads as the target only as structure made of prose, which loses
/// to any value without it, cut or not: the stream does not read the whole
/// text again on every push for it (`stream_placeholder_in_the_intro_then_json`
/// in tests/linear.rs), and shows what a decode of the text so far shows,
/// whatever follows the value.
#[test]
fn a_placeholder_before_the_value() {
    for reply in [
        "Replace {name} with yours. Here is the JSON:\n{\"items\": [{\"n\": 1, \"text\": \"a b\"}, {\"n\": 2, \"text\": \"c\"}]}\nDone.",
        "Use {name} and {other}: {\"name\": \"x\", \"items\": [{\"n\": 1, \"text\": \"a\"} x, {\"n\": 2}]} ok",
        "Fill {name}, then ```json\n{'name': 'y', items: [{n: 3, text: 'd',},],}\n```",
    ] {
        every_split::<Loose>(reply);
        every_split::<Value>(reply);
    }
}

/// A required field of an internally tagged enum in a list at the root:
/// the element stays out of the view until the field is complete, in the
/// stream as in a decode of the text so far. The stream used to show it as
/// soon as its tag was complete, and then a second time once complete (the
/// root's own elements were not admitted where the stream read the root
/// whole: a list's elements are admitted only by the list's admission).
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Refund {
    Refund {
        #[llm(required)]
        amount: String,
    },
}

#[test]
fn a_tagged_element_waits_for_its_required_field() {
    every_split::<Vec<Refund>>(
        r#"[{"kind": "refund", "amount": "1.00 EUR"}, {"kind": "refund", "amount": "2"}]"#,
    );
}

/// An element with a required field, in a list or map at the root (or a
/// list of lists): out of the view until that field is complete, in the
/// stream as in a decode of the text so far. The stream showed such an
/// element as soon as it opened, and again once complete: a struct's
/// fields are admitted as they are read, the root's own parts only by the
/// root's admission, which the stream did not apply where it read the root
/// whole.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Keyed {
    #[llm(required)]
    id: String,
    #[llm(partial)]
    name: String,
}

#[test]
fn root_elements_wait_for_their_required_field() {
    every_split::<Vec<Keyed>>(
        r#"[{"name": "a b", "id": "x1"}, {"name": "c", "id": "y"}, {"id": "z", "name": "q"}]"#,
    );
    every_split::<std::collections::BTreeMap<String, Keyed>>(
        r#"{"k": {"name": "a b", "id": "x1"}, "l": {"name": "c", "id": "y"}}"#,
    );
    every_split::<Vec<Vec<Keyed>>>(
        r#"[[{"name": "a b", "id": "x1"}], [{"name": "c", "id": "y"}]]"#,
    );
}

/// A list marked partial written as one object (read as a one-element
/// list), cut right after its `{`.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Numbered {
    #[llm(required)]
    n: u32,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Steps {
    #[serde(default)]
    #[llm(partial)]
    steps: Vec<Numbered>,
}

/// Found by the `stream_typed` fuzz target (older than the fix of
/// `root_elements_wait_for_their_required_field`): after any split of
/// `{"steps": {`, the stream showed `steps: [{n: None}]`, an element whose
/// required field is missing, where a decode of the text shows `steps: []`.
/// The stream read the part (the object) with the field holding it exempt
/// from admission, as the fields around a part are.
#[test]
fn one_object_for_a_list_waits_for_its_required_field() {
    every_split::<Steps>(r#"{"steps": {"n": 1}}"#);
}

/// The same for a struct field whose own struct has a required field: the
/// stream showed `meta: {id: None}` from `{"meta": {` on, where a decode of
/// the text shows no `meta` until its `id` is complete.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Card {
    #[llm(required)]
    id: u32,
    #[llm(partial)]
    name: String,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Cards {
    #[llm(partial)]
    meta: Card,
    #[llm(partial)]
    metas: Vec<Card>,
    #[serde(default)]
    deep: Option<Box<Cards>>,
}

#[test]
fn a_member_waits_for_its_required_field() {
    every_split::<Cards>(r#"{"meta": {"name": "x y", "id": 1}, "metas": {"name": "z", "id": 2}}"#);
    every_split::<Cards>(
        r#"{"meta": {"id": 1, "name": "a"}, "metas": [{"name": "b c", "id": 2}], "deep": {"meta": {"name": "d", "id": 3}, "metas": []}}"#,
    );
}

/// gpt-oss's analysis channel (see `tests/trust.rs`,
/// `a_harmony_analysis_channel_is_reasoning`): nothing from inside it shows
/// at any split, and the final channel's value does.
#[test]
fn a_harmony_analysis_channel_every_split() {
    for text in [
        "<|channel|>analysis<|message|>Think {\"x\": 0} and [1].<|end|><|start|>assistant<|channel|>final<|message|>{\"a\": 1, \"b\": [2, 3]}<|return|>",
        "<|start|>assistant<|channel|>analysis<|message|>Hmm {\"x\": 0}<|end|><|start|>assistant<|channel|>final<|message|>```json\n{\"a\": \"x\"}\n```",
        "<|channel|>analysis<|message|>Need to call.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>",
    ] {
        every_split::<Value>(text);
        every_split::<Vec<Value>>(text);
        every_split::<BTreeMap<String, Value>>(text);
    }
}

/// Inside a reasoning block that is still open, nothing is shown: a value
/// the model considers there (`Maybe {"x": 1}?`) is not its answer, and the
/// real one may contradict it. Only the finished reply, if its block never
/// closed, is read from the block's content.
#[test]
fn nothing_shows_from_inside_an_open_reasoning_block() {
    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct X {
        x: u32,
        y: u32,
    }
    let thinking = "<think>Maybe {\"x\": 1, \"y\": 1}? Or [2]... ";
    assert_eq!(from_llm_str_partial::<X>(thinking).unwrap(), None);
    assert_eq!(
        Decoder::new().decode_partial::<Value>(thinking).unwrap(),
        None
    );
    let mut dec = StreamDecoder::<X>::new();
    for piece in thinking.as_bytes().chunks(3) {
        assert!(dec.push_deltas(piece).unwrap().is_empty());
        assert_eq!(dec.view(), &None);
        assert_eq!(dec.value(), Some(&Value::Null));
    }
    // Never closed: the finished reply is read from the block.
    assert_eq!(dec.finish().unwrap(), X { x: 1, y: 1 });
    // Closed: the answer after it, and nothing before.
    let reply = format!("{thinking}</think>\n{{\"x\": 2, \"y\": 2}}");
    let mut dec = StreamDecoder::<X>::new();
    let mut shown = Vec::new();
    for piece in reply.as_bytes().chunks(2) {
        dec.push(piece).unwrap();
        if let Some(v) = dec.view() {
            shown.push((v.x, v.y));
        }
    }
    assert!(
        shown.iter().all(|&(x, y)| x != Some(1) && y != Some(1)),
        "{shown:?}"
    );
    assert_eq!(dec.finish().unwrap(), X { x: 2, y: 2 });
}

/// Found by the `stream_typed` fuzz target: a string that holds a closer
/// (`'q',}`) and ends in one (`{flour$1}`) completes in the push that
/// closes it, the closers at its end judged against the containers open
/// around it (the tokenizer's own stack is not at hand while it feeds).
#[test]
fn a_string_ending_in_a_closer_completes_in_one_push() {
    let reply = " `json\n{\"title\": \"m'q',}steix {flour$1}\", \"steps\": [";
    let at = reply.find("our$1").expect("the cut");
    replay::<Value>(reply, &[at]);
    replay::<Recipe>(reply, &[at]);
    let at = reply.find("}\"").expect("the closer");
    replay::<Value>(reply, &[at, at + 1]);
}

/// A tool call at the root grows its partial fields as a struct at the root
/// does (its view is read without serde's buffer), in the stream and in the
/// one-shot view, for every split.
#[test]
fn a_tool_call_at_the_root_grows() {
    let text = r#"{"tool": "search", "query": "rust serde tutorials", "limit": 5}"#;
    every_split::<Call>(text);
    let cut = r#"{"tool": "search", "query": "rust se"#;
    let want = CallView::Search {
        query: Some("rust se".into()),
        limit: None,
    };
    let mut dec = Decoder::new().stream::<Call>();
    dec.push(cut.as_bytes()).unwrap();
    assert_eq!(dec.view(), &Some(want.clone()));
    assert_eq!(
        serde_llm::from_llm_str_partial::<Call>(cut).unwrap(),
        Some(want)
    );
    // The tag last: nothing until it is complete, then the fields so far.
    let late = r#"{"query": "rust", "limit": 5, "tool": "sea"#;
    assert_eq!(serde_llm::from_llm_str_partial::<Call>(late).unwrap(), None);
    // A quote at the end of the text may yet be inside the tag (`"search"x`):
    // the tag is complete once the byte after its quote arrives.
    let late = r#"{"query": "rust", "limit": 5, "tool": "search""#;
    assert_eq!(serde_llm::from_llm_str_partial::<Call>(late).unwrap(), None);
    let late = r#"{"query": "rust", "limit": 5, "tool": "search","#;
    assert_eq!(
        serde_llm::from_llm_str_partial::<Call>(late).unwrap(),
        Some(CallView::Search {
            query: Some("rust".into()),
            limit: Some(5)
        })
    );
}

/// A one-field struct: a wrapper, read from an object or a bare list.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Numbers {
    #[llm(partial)]
    numbers: Vec<u32>,
}

/// An intro in prose is not decoded again on every push while it stays
/// prose no decode finds a value in (see `quiet_prose` in `src/stream`):
/// the view after every split still equals a decode of the text so far,
/// whatever the intro ends in (inline code, a fence opener being written,
/// a fenced bare value, a literal, a number, a list in prose).
#[test]
fn an_intro_in_prose_views_as_its_decode_reads() {
    let texts = [
        "Sure, this is the plan.\n```json\n{\"id\": 1, \"title\": \"T\", \"numbers\": [4]}\n```",
        "Sure thing. true and 42\n```\n42\n```",
        "Here it is: `code` and ``x`` then\n```json\n[1, 2]\n```",
        "Hello world true",
        "Hello world tru",
        "OK then ```json {\"numbers\": [1]}```",
        "Note: the answer is\n```\ntrue\n```",
        "We have 3 items:\n- one\n- two\n[1, 2, 3]",
        "Well `x` y\n```json\n{\"id\": 2, \"numbers\": [7",
        "Just words, no value at all. None of it.",
        "So -- 5 + 3 = 8; right? 'quoted' words\n\n```\n",
        "Answer: yes. ```jsonnnnnnnnnnnnnnnnnnnnnn\n[5]\n```",
        // Quotes in the intro.
        "He said \"hi\" and 'bye', then \"\n```json\n{\"id\": 3}\n```",
        "Then \"[1, 2]\" and \"{\\\"id\\\": 4}\"",
        "So \"x\" \"1\" \"2\" and \"",
        "\"Quoted\" first, then words: 5",
        // Whitespace that is no quiet byte before the first word (found by
        // the stream_typed fuzz target: a panic).
        "\x0c Sure, words",
        "\x0c",
        // One word is no prose yet: a bare value growing.
        "42\n",
        "true ",
        "7 and more",
        "  Yes",
    ];
    for text in texts {
        every_split::<Recipe>(text);
        every_split::<Numbers>(text);
        every_split::<Vec<u32>>(text);
        every_split::<Value>(text);
    }
}

/// A call that completes mid-stream is taken as the typed value
/// (`complete_at`) while the next streams: at every split of the reply,
/// fenced or bare, in 1-byte pushes too, a call is there once its closing
/// brace has arrived, and it is the call the whole reply decodes to; it is
/// not there before.
#[test]
fn a_completed_call_is_taken_typed_mid_stream() {
    let whole: Calls = serde_llm::from_llm_str(CALLS).unwrap();
    for text in [CALLS.to_owned(), format!("Calling:\n```json\n{CALLS}\n```")] {
        let closes: Vec<usize> = {
            // Where each call's closing brace is: the first `}` at depth 2.
            let (mut depth, mut out, mut in_str, mut esc) = (0, Vec::new(), false, false);
            for (i, c) in text.char_indices() {
                match c {
                    _ if esc => esc = false,
                    '\\' if in_str => esc = true,
                    '"' => in_str = !in_str,
                    '{' | '[' if !in_str => depth += 1,
                    '}' | ']' if !in_str => {
                        if depth == 3 && c == '}' {
                            out.push(i + 1);
                        }
                        depth -= 1;
                    }
                    _ => {}
                }
            }
            out
        };
        assert_eq!(closes.len(), whole.calls.len());
        let check = |dec: &StreamDecoder<Calls>, len: usize| {
            for (i, want) in whole.calls.iter().enumerate() {
                let path = Path::root().key("calls").index(i);
                match dec.complete_at::<Call>(&path) {
                    Some(got) => {
                        assert!(len >= closes[i], "call {i} taken before its end, at {len}");
                        assert_eq!(&got.unwrap(), want, "call {i} at {len}");
                    }
                    // The closing brace in, and a comma or the list's end
                    // after it: a call is complete.
                    None => assert!(
                        len < closes[i] + 2 || text[closes[i]..len].trim().is_empty(),
                        "call {i} not taken at {len} of {text:?}"
                    ),
                }
            }
        };
        for cut in 0..=text.len() {
            let mut dec = StreamDecoder::<Calls>::new();
            dec.push_deltas(&text.as_bytes()[..cut]).unwrap();
            check(&dec, cut);
        }
        let mut dec = StreamDecoder::<Calls>::new();
        for (i, b) in text.bytes().enumerate() {
            dec.push_deltas([b]).unwrap();
            check(&dec, i + 1);
        }
    }
}

/// A part holding a whole number wider than 64 bits (which the untyped view
/// holds as a float) is an error from `complete_at`, not a rounded number;
/// `finish` gives it exactly. A quoted number in a plain struct is read
/// as the decoder reads it.
#[test]
fn a_completed_part_is_exact_or_an_error() {
    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct Big {
        id: u128,
    }
    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct Bigs {
        #[llm(partial)]
        items: Vec<Big>,
    }
    let text = r#"{"items": [{"id": 123456789012345678901234567}, {"id": 1"#;
    let mut dec = StreamDecoder::<Bigs>::new();
    dec.push_deltas(text).unwrap();
    let path = Path::root().key("items").index(0);
    let e = dec.complete_at::<Big>(&path).unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Number, "{e}");
    dec.push_deltas("}]}").unwrap();
    assert_eq!(
        dec.finish().unwrap().items[0].id,
        123456789012345678901234567
    );

    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct Doc {
        #[llm(partial)]
        steps: Vec<Step>,
    }
    let mut dec = StreamDecoder::<Doc>::new();
    dec.push_deltas(r#"{"steps": [{"n": "3", "text": "mix"}, {"n": 4, "te"#)
        .unwrap();
    let step: Step = dec
        .complete_at(&Path::root().key("steps").index(0))
        .unwrap()
        .unwrap();
    assert_eq!(
        step,
        Step {
            n: 3,
            text: "mix".into()
        }
    );
}

/// A regex in the intro (`[^'"]`) is no value for a struct (found by the
/// `stream_typed` fuzz target: a decode of a prefix read it as a list
/// filling the title, the stream showed nothing): every split, and the
/// fuzz target's 32-byte chunks. The typed view, as the target checks it
/// (the untyped one differs on this reply: the stream shows the object that
/// comes later, a decode `["hello"]` from the `["hello"}` before it).
#[test]
fn a_bracketed_aside_in_the_intro_shows_nothing() {
    let reply = r##" X    Here is the tupl'e1paiload\S*re_p:ath\(\s*[^'"]+['"]\s*,"$
 OOOOO  Here Sis lhe tup  ["hello"} 1)
        ```
 {patte["hello"} 1)
        ```
 {patt^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ern{"headers": ["A", "B", "C"], "rows": [["r1a", "r1b" , "r1c"], ["r2a", "r2b", "r2c"], "r3a"5e+4, "r3b", ": r3c"], ["r4a", "r2b", "r4c"],"##;
    let decoder = Decoder::new();
    let splits = (0..=reply.len()).filter(|&i| reply.is_char_boundary(i));
    let chunked: Vec<usize> = (32..reply.len()).step_by(32).collect();
    for cuts in splits.map(|i| vec![i]).chain([chunked]) {
        let mut dec = StreamDecoder::<Titled>::new();
        let mut from = 0;
        for &to in cuts.iter().chain([&reply.len()]) {
            let pushed = dec.push(&reply[from..to]);
            from = to;
            let prefix = &reply[..to];
            match (pushed, decoder.decode_partial::<Titled>(prefix)) {
                (Ok(_), Ok(want)) => assert_eq!(dec.view(), &want, "{prefix:?}"),
                (Err(_), Err(_)) => {}
                (got, want) => panic!("{prefix:?}: the stream {got:?}, a decode {want:?}"),
            }
        }
        let want = serde_llm::from_llm_str::<Titled>(reply);
        assert_eq!(
            dec.finish().map_err(|e| e.to_string()),
            want.map_err(|e| e.to_string())
        );
    }
}

/// Deltas asked for late: a decoder pushed with `push` (only the typed view
/// kept), then with `push_deltas`, reads the text so far again once, and its
/// first deltas build the untyped view from nothing; a `push` between two
/// `push_deltas` owes its deltas to the next. At every split of the replies,
/// the deltas build the untyped decode of the text, and the views are a
/// decode's.
#[test]
fn deltas_asked_for_late_build_the_whole_view() {
    let untyped = |text: &str| {
        if in_open_block(text) {
            return Value::Null;
        }
        Decoder::new()
            .allow_partial(Allow::STR | Allow::ARR | Allow::OBJ)
            .decode::<Value>(text)
            .unwrap_or(Value::Null)
    };
    for text in replies() {
        for i in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
            let j = (i + (text.len() - i) / 2).min(text.len());
            let j = (j..=text.len())
                .find(|j| text.is_char_boundary(*j))
                .unwrap();
            // push, push_deltas, push, push_deltas.
            let mut dec = StreamDecoder::<Recipe>::new();
            let mut built = Value::Null;
            let h = (0..=i / 2)
                .rev()
                .find(|h| text.is_char_boundary(*h))
                .unwrap();
            let pieces = [&text[..h], &text[h..i], &text[i..j], &text[j..]];
            for (k, piece) in pieces.iter().enumerate() {
                let so_far = &text[..pieces[..=k].iter().map(|p| p.len()).sum::<usize>()];
                let want = from_llm_str_partial::<Recipe>(so_far);
                if k % 2 == 0 {
                    let got = dec.push(piece);
                    assert_eq!(got.is_ok(), want.is_ok(), "{so_far:?}");
                    assert_eq!(dec.value().is_some(), k > 0, "{so_far:?}");
                } else if let Ok(deltas) = dec.push_deltas(piece) {
                    deltas.iter().for_each(|d| d.apply(&mut built));
                    assert_eq!(dec.value(), Some(&built), "deltas after {so_far:?}");
                    assert_eq!(built, untyped(so_far), "untyped view after {so_far:?}");
                }
                if let Ok(want) = want {
                    assert_eq!(dec.view(), &want, "view after {so_far:?}");
                }
            }
            assert_eq!(
                dec.finish().map_err(|e| e.to_string()),
                from_llm_str::<Recipe>(&text).map_err(|e| e.to_string())
            );
        }
    }
}

/// One object where a list marked partial is wanted (models write a single
/// element without its brackets), cut anywhere, at the root and inside a
/// struct: the view after each push is a decode's.
#[test]
fn one_object_standing_for_a_list() {
    every_split::<Vec<Step>>(r#"{"n": 1, "text": "mix"}"#);
    every_split::<Recipe>(
        r#"{"id": 1, "title": "t", "steps": {"n": 1, "text": "mix"}, "tags": ["a"]}"#,
    );
}

/// Found by the `stream_typed` fuzz target: a value read with a repair (the
/// list `["Mrs."}` closed by a `}`) looked complete, and the stream took the
/// text after it as prose that cannot change the decode. But with `,` and
/// more words after it, the `}` was the list's closer and the object goes
/// on (here into an unquoted key followed by more words: an error). A
/// complete value read with repairs is now read whole on every push.
#[test]
fn a_value_complete_only_by_a_repair_may_go_on() {
    let t = "\n {\"use\": \"official\", \"given\": [\"Keisha\", \"Sunny\"], \"prefix\": [\"Mrs.\"}\u{1}\0,\n@@@@@@@@P@\0\0\0T@@@@@@ {\"use\": \"x\"}";
    let end = t.find('}').unwrap() + 1;
    for cut in end..t.len() {
        replay::<Titled>(t, &[end, cut]);
    }
    replay::<Titled>(t, &(1..t.len()).collect::<Vec<_>>());
}

/// A bracketed number after a value's end is a citation when a word
/// follows it (`[1] the docs`): a decode of `Here: [1]` shows `[1]`, and of
/// `Here: [1] t` nothing, and of `See [2]` nothing (a word before it). The
/// stream took the text after a complete value as unable to change the
/// decode unless it held a bracket or a quote, and a value read as it
/// arrived as a value once complete; a value in prose is now read whole once
/// complete, and what comes first after it is read again too (found by
/// review).
#[test]
fn a_citation_is_known_by_the_word_after_it() {
    for text in [
        "Here: [1] the docs",
        "See [2]\tthe list",
        "Here: [1]\nNext line.",
    ] {
        every_split::<Value>(text);
    }
    replay::<Value>("Here: [1]", &[]);
    let mut dec = StreamDecoder::<Value>::new();
    dec.push("Here: [1]").unwrap();
    assert_eq!(dec.view(), &Some(serde_json::json!([1])));
    dec.push(" t").unwrap();
    assert_eq!(dec.view(), &None);
}

/// Inline code holding braces before a value cut at its first key (found
/// by review): a decode of `` `{x}` then { `` took the cut `{` (an empty
/// object), of `` `{x}` then {" `` the inline code (the string `{x}`), and
/// of the whole reply the object again, because the cut key's repairs
/// weighed on the cut value. The stream, locked onto the `{`, did not follow.
/// A cut now counts once, however the value is cut, so the decode keeps the
/// `{` throughout.
#[test]
fn inline_code_before_a_cut_value() {
    every_split::<Value>("`{x}` then {\"\"");
    every_split::<Value>("`{x}` then {\"a\": 1, \"b\": [2]} and more");
}

/// The `stream_typed` fuzz target's reply type.
mod fuzzed {
    use serde::Deserialize;
    use serde_llm::Partial;

    #[derive(Debug, Deserialize, Partial, PartialEq)]
    #[serde(tag = "tool", rename_all = "snake_case")]
    pub enum Call {
        Search {
            #[llm(partial)]
            query: String,
            limit: Option<u32>,
        },
        Finish {
            #[llm(partial)]
            answer: String,
        },
        Stop,
    }

    #[derive(Debug, Deserialize, Partial, PartialEq)]
    pub struct Step {
        #[llm(required)]
        n: u32,
        #[llm(partial)]
        text: Option<String>,
        #[serde(default)]
        tags: Vec<String>,
    }

    #[derive(Debug, Deserialize, Partial, PartialEq)]
    pub struct Turn {
        #[llm(partial)]
        title: String,
        #[serde(default)]
        #[llm(partial)]
        calls: Vec<Call>,
        #[serde(default)]
        #[llm(partial)]
        steps: Vec<Step>,
        next: Option<Box<Step>>,
        extra: Option<serde_json::Value>,
    }
}

/// Found by the `stream_typed` fuzz target (shortened): a value in prose
/// read as it arrived completes, and a decode of the text then fails (an
/// earlier candidate's error, `205555555555` where a struct is wanted, wins
/// once the later value is complete). The stream gave the error for that
/// push but stayed in the mode that reads the text after a complete value
/// only when it could hold a candidate, so the next pushes showed the
/// earlier view where a decode still fails. An error now leaves the stream
/// reading the whole text.
#[test]
fn an_error_at_a_values_end_is_read_again() {
    let t = " X   \"he\0\0\0\0 \0\0\0\0\0\0\0\0\0\0\0,\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0x\",\n55555555555555555555555555{\"next\":205555555555 \x005555555503:01:17.171Z\"),\n   \"re\r\r\r\r\r\r\r\r\re0+20gu4f09bdae8abe8\",\n      \"index\": 0,\n      \" \"c\": 0} ] \n}```guid in voluptate culpa. Exercitation nulla adipisicing culpa aute est deserunt eae.\",\n      \"registered\": \"2p15-09-03T11:47:15 -02:00\",\n      \"latitude\": -19.768953,\n      \"longitude\": 8.948458,\n      \"tags\": [\n        \"laboris\",\n        \"occaecat\",\n        \"laborum\",\n        \"laborum\",\n        \"ex\",\n        \"cillum\",\n        \"occaecat\"\n      ],\n      \"friends\": [\n ' \0\0       {\n          \"id\": 0,\n          \"name\": \"Erna Kelly\"\n        },\n        {\n          \"id\": 1,\n          \"name\": \"Black Mays\"\n        },\n        {\n          \"id\": 2,\n          \"name\": \"Davis Buck\"\n        }\n   \"grng aliinim null";
    let cuts: Vec<usize> = (32..t.len()).step_by(32).collect();
    replay::<fuzzed::Turn>(t, &cuts);
}

/// A value cut in a fence after an earlier fence whose value needed a
/// repair (found by review): a decode takes the second fence's empty `{`,
/// then, once a key's quote opens, the first fence's value again. The
/// stream reads the whole text while the second value is cut.
#[test]
fn a_cut_fence_after_a_repaired_fence() {
    every_split::<Value>("```json\n{\"a\": [1}\n```\nOr:\n```json\n{\"a\": \"z\"}\n```");
    every_split::<Value>("```json\n{\"a\": [1]}\n```\nOr:\n```json\n{\"a\": \"z\"}\n```");
}

/// Found by the `stream_typed` fuzz target (also wrong before): a value in
/// prose after a quote left open (`(  "{`) is cut; the stream locked onto
/// it, and a decode then read the `{` as the string's text once the quote
/// after it arrived (the view's `title`). A value after a quote left open
/// is read whole while it is cut.
#[test]
fn a_value_after_a_quote_left_open() {
    let t = "   (  \"{\n        \"results\": [\n      \"gs*,\"}\n   }";
    replay::<fuzzed::Turn>(t, &[10, 42]);
    every_split::<fuzzed::Turn>(t);
    every_split::<Value>("He said \"use {\"a\": [1, 2]} or\" and {\"b\": 3}");
}

/// Found by the `stream_typed` fuzz target (also wrong before): a clean
/// value in a fence was final once its fence closed, but the fence stood in
/// a string of a value opened before it (`[{"a": "```json {…}```"…`), which
/// a decode reads once it goes on. A fenced value after a bracket not closed
/// or a quote left open is read again as a value in prose is.
#[test]
fn a_fence_inside_a_value_opened_before_it() {
    let t = "[\0{\n\"a\": \"\n```{\n         **Decision**: bla, bla (some clarification):\n\n   {\"\0     ```json\n        {\n     }```\n\"\n     }``a\":,\"b\":`\n\"\n    \"] \"2ke\",\n'b': \"x\",\n}y\": \"value\"\n   }  ";
    let cuts: Vec<usize> = (1..6).map(|i| i * 35).collect();
    replay::<fuzzed::Turn>(t, &cuts);
    every_split::<Value>("{\"doc\": \"see ```json\n{\"a\": 1}\n``` and\", \"n\": 2}");
    // A bracket left open in a reasoning block at the start opens no
    // candidate: a decode reads the reply after the block.
    every_split::<Value>(
        "<think>I will write {\"doc\": \"x and [1</think>\n```json\n{\"doc\": \"x\", \"n\": 2}\n``` Done.",
    );
}

/// A decoder can be moved to and shared with another thread (the Python
/// package holds one in an object Python may hand to any thread).
#[test]
fn a_stream_decoder_is_send_and_sync() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    send_sync(&serde_llm::StreamDecoder::<Step>::new());
    send_sync(&serde_llm::StreamDecoder::<Value>::new());
    let mut dec = serde_llm::StreamDecoder::<Value>::new();
    dec.push(r#"{"a": "b}"#).unwrap();
    let dec = std::thread::spawn(move || {
        dec.push(r#" c"}"#).unwrap();
        dec
    })
    .join()
    .unwrap();
    assert_eq!(dec.finish().unwrap(), serde_json::json!({"a": "b} c"}));
}

/// A fence or a tag opened in the prose after a complete value: what it
/// holds may win as it grows, with no bracket, quote or backtick in the
/// bytes that make it so (a decode ranks a fence's or a tag's value above a
/// span in prose). Minimised from a `stream_typed` input, the first to
/// check `Value`'s view after every push.
#[test]
fn a_fence_or_tag_after_a_value_holding_a_bare_value() {
    for doc in [
        "\u{13}{}\n\n/e * 2o\"] 2)\n        ```\n (5e+4  ",
        "{\"a\": 1}\nOr:\n```\n42\n```\n",
        "{\"a\": 1} and <json>42</json>",
        "{\"a\": 1}\n``` json\ntrue",
    ] {
        every_split::<Value>(doc);
        every_split::<Option<u32>>(doc);
    }
}

/// A run of three backticks inside a string (a key or a value) of a value
/// with a fence marker before it: once a byte follows the run, a decode of
/// the text so far may take it for the close of the fence opened before the
/// value and read that fence's content (`false` then a cut object: the
/// literal alone, gathered). The stream reads such a string the tolerant
/// way. The last reply is what `stream_typed`'s `Value` check found.
#[test]
fn ticks_in_a_string_after_a_fence_opened_before_it() {
    for reply in [
        "```\nfalse{\"a\": \"x```y\"}",
        "```\nfalse{\"a\": \"x```y .c}",
        "```\nfalse [{\"a\": \"x```y\"}]",
        "```\nfalse{\"a\": 1, \"b```\": 2}",
        "```\nfalse{\"a```b\": 1}",
        "```z\nfalse{\"a```b .c}",
        "```\nx {\"a```\": 1}",
        "Sure: ```\nx {\"a\": \"x```y\"}",
        "```z .\0\0\0\0false{\"299999999999)99999999````z .cc}",
        // In a key cut at the end after a string with no comma between,
        // in the value's own fence (the fuzz target's find: the key runs
        // into the fence's close).
        "                     ```json\n                   { \"key\": \"value\"         \"  \t ```",
        "```json\n{\"key\": \"value\" \"a``` b\": 1}\n```",
    ] {
        every_split::<Value>(reply);
        every_split::<Vec<Value>>(reply);
    }
}

/// A key cut at the end after a string with no comma between (`{"a": "b"
/// "c`): the string's quote closes it only as far as the text goes, so a
/// decode hides it. Where the text ends in a space that a decode trims
/// from the value's span and JSON does not have (a form feed, `\u{a0}`,
/// `\u{3000}`), the span has text after it, the key is no longer cut by the
/// end, and the string shows. The first reply is what `stream_typed`'s
/// `Value` check found.
#[test]
fn a_cut_key_after_a_string_then_a_space_json_does_not_have() {
    for reply in [
        "\u{c}\u{c} \t{\"\":\"_\u{c}{\"\":-0\u{c}\u{c}\t{\"\":-0\u{c}c:2]",
        "{\"a\":\"_\"\":-0\u{c}",
        "{\"a\":\"_\"\"b\u{c}",
        "{\"a\": \"b\" \"c\u{3000}",
        "{\"a\": \"b\" \"c\u{a0} ",
        "[\"a\" \"b\u{a0}",
    ] {
        every_split::<Value>(reply);
        every_split::<std::collections::BTreeMap<String, String>>(reply);
    }
}

/// A reply that opens with a quote is a string candidate whose inner quotes
/// a decode judges by what follows them, so an even count of quotes before
/// a value in its prose does not say the string closed: once a last quote
/// arrives, the whole reply may be one string (`""u""\{"`), above the span.
/// The first reply is what `stream_typed`'s `Value` check found.
#[test]
fn a_reply_opening_with_a_quote_may_be_one_string() {
    for reply in [
        "\u{b}\"\\\\@444444444444\"\\u`\0\0\"z\"U\\\\{\"\0\0\0.\u{7f}\": \"val\"}",
        "\"\"u\"\"\\{\"",
        "```\n\"\"u\"\"\\{\"",
        "```json\n\"\"u\"\"\\{\"",
        "\u{feff}\"\"u\"\"\\[\"",
        "\"a\" b \\{\"",
        "\"a\" b \\{\"k\": 1} c\"",
        "x \"a\" b \\{\"",
    ] {
        every_split::<Value>(reply);
        every_split::<String>(reply);
    }
}

/// What `stream_typed`'s `Value` check found: a line ```` ```(0hello ````
/// after the value, which a decode read as a fence holding the string
/// `"0hello"` (a word of digits then letters is prose now: see
/// `a_word_of_digits_then_letters_is_prose` in `tests/trust.rs`).
#[test]
fn a_word_of_digits_then_letters_after_the_value() {
    for reply in [
        "{}\n/\nm : Numb \"Num1\u{2}\u{2}\u{2}1\u{2}\u{2}```json\n{\"a\":\"b\"}\n```(0hello\n",
        "x y```json\n{\"a\":\"b\"}\n```(0hello\n",
        "Result: {\"a\": 1}\n```\n0hello",
    ] {
        every_split::<Value>(reply);
    }
}

/// After an object found in prose for an object target, read with no
/// repair and no coercion, a span in the prose after it cannot take its
/// place (a later one could only tie, and a tie goes to the earlier): the
/// stream looks at that prose only for fences, tags and what may enclose
/// the value. Each reply here has something after the value that does
/// change the decode, or looks as if it might.
#[test]
fn prose_after_a_settled_value() {
    for reply in [
        // Placeholders and citations after it: the value stays.
        "{\"n\": 1, \"text\": \"a\"}\nThe {n} field [1] is set, see {\"n\": 2, \"text\": \"b\"}.",
        "Use {\"n\": 1, \"text\": \"a\"} or {\"n\": 2, \"text\": \"b\"} ok",
        "{\"n\": 1, \"text\": \"a\"}\n{\"n\": 2, \"text\": \"b\"}\n",
        "{\"n\": 1, \"text\": \"a\", \"x\": 5} then {\"n\": 2, \"text\": \"b\"}",
        // Read with a repair or a coercion, or missing a field: a later
        // span wins.
        "{\"n\": 1, \"text\": \"a\",}\nThe {\"n\": 2, \"text\": \"b\"} ok",
        "{'n': 1, 'text': 'a'}\nThe {\"n\": 2, \"text\": \"b\"} ok",
        "{\"n\": \"1\", \"text\": \"a\"}\nThe {\"n\": 2, \"text\": \"b\"} ok",
        "{\"n\": 1.0, \"text\": \"a\"}\nThe {\"n\": 2, \"text\": \"b\"} ok",
        "{\"N\": 1, \"text\": \"a\"}\nThe {\"n\": 2, \"text\": \"b\"} ok",
        "{\"n\": 1}\nThe {\"n\": 2, \"text\": \"b\"} ok",
        // A fence or a tag after it wins.
        "{\"n\": 1, \"text\": \"a\"} [x]\n```json\n{\"n\": 2, \"text\": \"b\"}\n```",
        "{\"n\": 1, \"text\": \"a\"} {y} <json>{\"n\": 2, \"text\": \"b\"}</json>",
        "{\"n\": 1, \"text\": \"a\"} x ```{\"n\": 2, \"text\": \"b\"}```",
        // Something before it that a bracket or quote after it closes.
        "[see {\"n\": 1, \"text\": \"a\"} and {\"n\": 2, \"text\": \"b\"}]",
        "\"see {\"n\": 1, \"text\": \"a\"} and {\"n\": 2, \"text\": \"b\"}\"",
        "Say \"{\"n\": 1, \"text\": \"a\"}\" or {\"n\": 2, \"text\": \"b\"}",
        // Repaired after it.
        "{\"n\": 1, \"text\": \"a\"} then {n: 2, text: 'b',} ok",
        "{\"n\": 1, \"text\": \"a\"} then {\"n\": 2, \"text\": \"b\"",
    ] {
        every_split::<Step>(reply);
        every_split::<Option<Step>>(reply);
        every_split::<Vec<Step>>(reply);
    }
}

/// What `stream_typed`'s `Value` check found: a reply that opens with a
/// quoted term, read as one string to its last quote, hid the fenced value
/// inside it while that value's strings were being written (see
/// `a_string_with_inner_quotes_does_not_hide_the_value_in_it` in
/// `tests/trust.rs`).
#[test]
fn a_quoted_term_then_a_fenced_value() {
    for reply in [
        "“term”: eyyy4\0\0yyyx\n         **Decision**: bla, \n\n\n\nbla (some clarification):\n\n        ```json\n        {\n          \"key\": \"value\"\n        }\n        ```\n",
        "\"Hello\" is a greeting. Here:\n```json\n{\"greeting\": \"Hello\", \"n\": [1, \"2\"]}\n```",
    ] {
        every_split::<Value>(reply);
    }
}

/// A complete object whose view its admission refuses (`Recipe`'s `id` is
/// required) is no settled value: the decode looks on, and once the
/// missing field arrives after the closer (`{"title": "x"}, "id": 7`) it
/// reads the closer as a stray one and the object as going on. What
/// `stream_typed` found (`Post`, whose flattened part requires `author`).
#[test]
fn a_refused_object_then_its_missing_field() {
    for reply in [
        "{\"title\": \"x\"}, \"id\": 7, \"tags\": [\"a\"]",
        "Here: {\"title\": \"x\"}, \"id\": 7, \"tags\": [\"a\"]",
        "```json\n{\"title\": \"x\"}, \"id\": 7}\n```",
        "{\"title\": \"x\"}\n{\"id\": 7}",
    ] {
        every_split::<Recipe>(reply);
    }
}

/// A first word that ends in a double quote (`cf222f143b",`) is a string
/// missing its opening quote for a decode, and what follows it may be more
/// (`"isActive"`, gathered into a list): no quiet prose. What
/// `stream_typed`'s `Value` check found.
#[test]
fn a_first_word_with_a_quote_is_no_quiet_prose() {
    for reply in [
        "cf222f143b\",\n      \"isActive\":init****SD5ls2cf222f143b\",\n      \"isActive\":init****",
        "abc\", \"def\" and more",
        "word\", then words",
    ] {
        every_split::<Value>(reply);
    }
}

/// [`every_split`] of each reply, into two list targets and an untyped
/// one (replies a decode may gather into a list).
fn every_split_gathered(replies: &[String]) {
    for reply in replies {
        every_split::<Vec<Step>>(reply);
        every_split::<Vec<Item>>(reply);
        every_split::<Value>(reply);
    }
}

/// JSON lines for a list target or an untyped one: each object is read
/// once, as it completes, and put at the end of the views (the stream is
/// linear in them:
/// `stream_json_lines` in tests/linear.rs). The view is what a decode of
/// the text so far gathers, on every split: a cut object is left out; an
/// object the target refuses, one with a repair, a fence or a tag in a
/// string, a string cut at a closer, and text after the objects are read
/// as a decode reads them.
#[test]
fn json_lines_every_split() {
    let a = r#"{"n": 1, "text": "a"}"#;
    let b = r#"{"n": 2, "text": "b [x] {y}", "extra": {"k": [1, {"z": null}]}}"#;
    let replies = [
        format!("{a}\n{b}\n{a}\n"),
        format!("\u{feff} {a}\r\n{b}{a} {b}"),
        // A string cut at a closer, a `>`, spaces.
        format!("{a}\n{{\"n\": 3, \"text\": \"x}}] >\"}}\n{a}"),
        // One the target refuses (a fraction for `u32`; a key twice).
        format!("{a}\n{b}\n{{\"n\": 3.5, \"text\": \"c\"}}\n{a}"),
        format!("{a}\n{b}\n{{\"n\": 3, \"text\": \"c\", \"n\": 4}}\n{a}"),
        // Empty objects (an untyped decode leaves them out), one missing a
        // field.
        format!("{a}\n{{}}\n{b}\n{{\"text\": \"only\"}}\n{a}"),
        format!("{a}\n{b}\n{{ }}\n{a}\n{{}}"),
        format!("{{}}\n{a}\n{b}\n{a}"),
        // A repair, a fence and a tag in strings, a list, prose after.
        format!("{a}\n{b}\n{{\"n\": 5, \"text\": 'single'}}\n{a}"),
        format!("{a}\n{b}\n{{\"n\": 5, \"text\": \"```json\\n{{}}\\n```\"}}\n{a}"),
        format!("{a}\n{b}\n{{\"n\": 5, \"text\": \"<think>hmm\"}}\n{a}"),
        format!("{a}\n{b}\n[{a}]\n{a}"),
        format!("{a}\n{b}\nThat is all.\n{a}"),
        format!("{a},\n{b},\n{a}"),
    ];
    every_split_gathered(&replies);
}

/// Two objects to gather: one plain, one with a comma, brackets and braces
/// in a string and nested containers.
const PLAIN_OBJECT: &str = r#"{"n": 1, "text": "a"}"#;
const NESTED_OBJECT: &str = r#"{"n": 2, "text": "b, [x] {y}", "extra": {"k": [1, {"z": null}]}}"#;

/// Objects with a comma between and no brackets around (`{…}, {…}`), as
/// models list things: each is read once, as it completes, as JSON lines
/// are (`stream_objects_separated_by_commas` in tests/linear.rs). The view
/// is what a decode of the text so far gathers, on every split, also where
/// a comma reopens the object before it (`, "m": 3}`), two commas stand
/// together, a list or an empty object stands between, or prose follows.
#[test]
fn objects_separated_by_commas_every_split() {
    let (a, b) = (PLAIN_OBJECT, NESTED_OBJECT);
    let replies = [
        format!("{a}, {b}, {a}"),
        format!("{a},\n{b} ,{a},\n"),
        format!("{a}\n{b}, {a}\n{b}"),
        format!("{a}, {b}, \"m\": 3}}, {a}"),
        format!("{a}, {b},, {a}"),
        format!("{a}, [{b}], {a}"),
        format!("{a}, {{}}, {b}"),
        format!("{a}, {b} and that is all."),
        format!("{a}, {b}, {{\"n\": 3, \"text\": 'single'}}, {a}"),
    ];
    every_split_gathered(&replies);
}

/// A value in inline code with a fence marker right after it on its line
/// (`` `{}``` ``), a line of text, then a fence opened: the marker came
/// after text, so the markers' count says nothing, and the text after the
/// value is read whole (found by the `stream_typed` fuzz target, minimised:
/// an untyped stream took the value as settled, counted the two markers as
/// a fence opened and closed, and kept showing `{}` while a decode took the
/// fence's value).
#[test]
fn a_fence_marker_right_after_a_value_every_split() {
    let text = "`{}```\n\"\nAnna\0\0ae:\n             ```json\n    {u,";
    replay::<Value>(text, &[44]);
    every_split::<Value>(text);
    let typed = "Sure: `{\"id\": 1}```\nsee below\n```json\n{\"id\": 2, \"note\": \"x\"}\n```";
    every_split::<Item>(typed);
    every_split::<Value>(typed);
}

/// An object the reply opens with, then a comma and a key: the object is
/// reopened (`reopens` in `src/scan/mod.rs`), and read whole until the
/// scanner's judgment of that is decided, for a struct target and an
/// untyped one. (The untyped stream showed the object alone while the key
/// after the comma was bare, and the struct's did once the object was
/// settled.) A comma then prose reopens nothing.
#[test]
fn an_object_reopened_by_a_comma_every_split() {
    let replies = [
        r#"{"id": 1}, note: hi}"#,
        "{\"id\": 1},\n note: \"a long note\", tags: [a, b]}",
        r#"{"id": 1} , note: x y z, tags: []}"#,
        r#"{"id": 1}, "note": "n"}"#,
        r#"{"id": 1}, "note" "n"}"#,
        "{\"id\": 1}, // a comment\n note: c}",
        r#"{"id": 1}, then some words, and more words."#,
        r#"{"id": 1}, 2, 3"#,
    ];
    for text in replies {
        every_split::<Item>(text);
        every_split::<Value>(text);
    }
}

/// Objects in one fence, a line or a comma between them (JSON lines as
/// models fence them): each is read once, as it completes
/// (`stream_objects_in_one_fence` in tests/linear.rs). The view is what a
/// decode of the text so far gathers, on every split, also where the fence
/// closes and prose or another fence follows, a fence per object follows
/// the first, or an object in the fence has a repair.
#[test]
fn objects_in_one_fence_every_split() {
    let (a, b) = (PLAIN_OBJECT, NESTED_OBJECT);
    let replies = [
        format!("Here:\n```json\n{a}\n{b}\n{a}\n```\n"),
        format!("```json\n{a},\n{b},\n{a}\n```\nThat is all."),
        format!("```\n{a}\n{b}\n```\nAnd:\n```json\n{a}\n```"),
        format!("```json\n{a}\n```\n```json\n{b}\n{a}\n```"),
        format!("```json\n{a} {b}\n{{\"n\": 3, \"text\": 'single'}}\n{a}\n```"),
        format!("```json\n{a}\n{b}, \"m\": 3}}\n```"),
        format!("```json\n{a}\n[{b}]\n```"),
        format!("```json\n{a}\n{b}\n```\n{a}"),
    ];
    every_split_gathered(&replies);
}

/// Found by the `stream_typed` fuzz target (the `Value` check): a span
/// found in prose after a comment marker on its line (`// [`, `# {`) or
/// inside a `/*` not closed. A reading of the whole text as one value may
/// take the marker for a comment that hides the span, and win once a value
/// follows the comment (`]//+[\n{"a": 1` is `{"a": 1}`, not `[]`): the stream
/// does not lock onto such a span, nor settle on it.
#[test]
fn a_span_after_a_comment_marker() {
    let replies = [
        "]//+[\n{\"a\": 1, \"b\": [2]}\n".to_owned(),
        format!(
            "{}]{}//////+//r///o/[\n    {{\n      \"_id\": \"x\"}}",
            "\0".repeat(31),
            "\0".repeat(41)
        ),
        "ok //[\n{\"a\": 1}".to_owned(),
        "] # [1]\n{\"n\": 1, \"text\": \"x\"}".to_owned(),
        "] /* [1] {\"n\": 1, \"text\": \"x\"} */ {\"n\": 2, \"text\": \"y\"}".to_owned(),
        "] // {\"n\": 1, \"text\": \"x\"}\n{\"n\": 2, \"text\": \"y\"}".to_owned(),
        "// {\"n\": 1, \"text\": \"x\"}\n{\"n\": 2, \"text\": \"y\"}".to_owned(),
    ];
    for reply in &replies {
        every_split::<Value>(reply);
        every_split::<Step>(reply);
        every_split::<Vec<Step>>(reply);
    }
}

/// A fence per value for a list target: each fenced object is read once,
/// as it completes (`stream_json_lines` in tests/linear.rs). The view is
/// what a decode of the text so far gathers, on every split, for markers
/// it reads and for those it may read otherwise (a marker after other
/// text of its line, four backticks, another tag, two objects in a fence,
/// text after the fences).
#[test]
fn a_fence_per_value_every_split() {
    let a = r#"{"n": 1, "text": "a"}"#;
    let b = r#"{"n": 2, "text": "b [x] {y}", "tags": ["t"]}"#;
    let f = |v: &str| format!("```json\n{v}\n```");
    let replies = [
        format!("{}\n{}\n{}", f(a), f(b), f(a)),
        format!("```\n{a}\n```\n\n```json  \n{b}\n```\n\n\n```\n{a}\n```\n"),
        format!("```json\r\n{a}\r\n```\r\n```json\r\n{b}\r\n```"),
        format!("{}\n{}\nDone.", f(a), f(b)),
        format!("{}\n{}\n  ```\n{}", f(a), f(b), f(a)),
        format!("```json\n{a} ```\n{}\n{}", f(b), f(a)),
        format!("{}\n````\n{}", f(a), f(b)),
        format!("{}\n```JSON\n{b}\n```\n```python\n{a}\n```", f(a)),
        format!("```json\n{a}\n{b}\n```\n{}", f(a)),
        format!("Here:\n{}\n{}", f(a), f(b)),
        format!("{}\n{}\n{}", f(a), f("[1]"), f(b)),
        // Plain prose before and between the fences.
        format!(
            "Here are the steps:\n\n{}\nStep 2 (the last):\n{}\n\nAnd again:\n{}",
            f(a),
            f(b),
            f(a)
        ),
        format!(
            "Here's one:\n{}\nNext, with no blank line:\n{}\nDone.",
            f(a),
            f(b)
        ),
        format!("Intro\n{}\nA {{brace}} here:\n{}", f(a), f(b)),
        format!("Intro\n{}\nA [bracket] here:\n{}", f(a), f(b)),
        format!("Intro\n{}\nSay \"hi\":\n{}", f(a), f(b)),
        format!("Intro\n{}\nInline ```json {b}``` then:\n{}", f(a), f(a)),
        format!(
            "Intro\n{}\nBad one:\n{}\n{}",
            f(a),
            f("{\"n\": 2.5, \"text\": \"c\"}"),
            f(b)
        ),
        format!("Intro ```\n{}\n{}", f(a), f(b)),
    ];
    every_split_gathered(&replies);
}

/// One object for a list target, cut off: a wrapped list grows as its
/// list; an object that can be no list is the error it will be; one that
/// may still be either shows nothing yet.
#[test]
fn a_cut_object_for_a_list_every_split() {
    let replies = [
        r#"{"items": [1, 2, 30]}"#,
        r#"{"items": [1, 2, 30], "total": 3}"#,
        r#"{"a": 3}"#,
        r#"{"items": [{"n": 1, "text": "a"}, {"n": 2, "text": "b"}]}"#,
        "Sure:\n```json\n{\"results\": [4, 5]}\n```",
        // Its closing brace missing before the fence closes.
        "```json\n{\"results\": [4, 5]\n```",
        "Sure:\n```json\n{\"results\": [4, 5]\n```\nDone.",
    ];
    for reply in replies {
        every_split::<Vec<u32>>(reply);
        every_split::<Vec<Item>>(reply);
        every_split::<Value>(reply);
    }
}

/// Objects in plain prose, gathered into a list: read one by one as they
/// complete while the prose between them is plain, else whole.
#[test]
fn objects_in_prose_every_split() {
    let a = r#"{"n": 1, "text": "a"}"#;
    let b = r#"{"n": 2, "text": "b [x] {y} \"q\" ```"}"#;
    let replies = [
        format!("Items:\nItem 1: {a}.\nItem 2: {b}.\nItem 3: {a}\n"),
        format!("Here are the steps, in order: {a}, then {b}; and last, {a}! Done."),
        format!("Two: {a}\n\n{b}\nThat is all, 3 steps."),
        // Marks in the prose that may turn a decode aside.
        format!("Items: {a}. A list [1, 2]: {b}. {a}"),
        format!("Items: {a}. All: [{b}] {a}"),
        format!("Items: {a}. \"Say {b}\" {a}"),
        format!("Items: {a}.\n// {b}\n{a}"),
        format!("Items: {a}.\n/* {b} */\n{a}"),
        format!("Items: {a}.\n# {b}\n{a}"),
        format!("Items: {a}. f({b}) {a}"),
        format!("Items: {a}. He said \"ok\": {b}. {a}"),
        format!("Items: {a}. It's {b}. {a}"),
        format!("Here's {a}, isn't it? {b} and 'x' {a}"),
        format!("\"Items\": {a} {b} {a}"),
        format!("\"Items: {a} {b} {a}"),
        format!("'Items: {a} {b}' {a}"),
        format!("(Items {a} {b}) {a}"),
        format!("Items({a}, {b}) {a}"),
        format!("(first {a}) and (second {b}) 'then' {a}"),
        format!("Items: 'quoted {a}' and \"{b}\" {a}"),
        format!("Items: {a}. // note {b}. {a}"),
        format!("Items: {a}. # note {b}. {a}"),
        format!("Items: {a}. Use {{name}} here: {b}. {a}"),
        format!("Items: {a}. (see below) {b}. {a}"),
        format!("Items: {a}. <json>{b}</json> {a}"),
        format!("Items: {a}.\n```json\n[{b}]\n```\n"),
        format!("Items: {a}. \u{201c}Quoted\u{201d} {b}. {a}"),
        // One the target refuses, an empty one, one repaired.
        format!("Items: {a}. Bad: {{\"n\": 2.5, \"text\": \"c\"}}. {b}"),
        format!("Items: {a}. Empty: {{}}. {b}"),
        format!("Items: {a}. Repaired: {{\"n\": 3, \"text\": 'c'}}. {b}"),
        format!("Items: {a}. Then {{\"n\": 3, \"text\": \"c\",}} and {b}"),
    ];
    for reply in &replies {
        every_split::<Vec<Step>>(reply);
        every_split::<Vec<Item>>(reply);
    }
}
/// Found by `stream_typed` (older than the tenth session: it fails on
/// 0677f01 too): an empty string, then a quote on the next line. A decode
/// of `{"a":""\n"` takes the empty string as complete (`{"a": ""}`), and of
/// `{"a":"x"\n"` not (`{}`); the live reader waits in both.
///
/// An empty string is closed by its second quote whatever follows (but a
/// word, `""text""`), as the tolerant scanner reads it; the live reader
/// now reads it so too.
#[test]
fn an_empty_string_then_a_quote_on_the_next_line() {
    for reply in [
        "{\"a\":\"\"\n\"+I",
        "{\"a\":\"x\"\n\"+I",
        "{\"a\": \"\"\n\"b\": 1}",
        "{\"a\": \"\" \"b\": 1, \"c\": \"\"  \"d\"",
        "{\"a\": [\"\"\n\"\", \"\"], \"b\": \"\"\n\"c",
        "{\"a\": \"\"\n  \"b c\": 2}",
        "{\"a\": \"\" \"text\"\"}",
        "{\"a\": \"\"text\"\", \"b\": \"\"\n\"",
        "{\"a\": ''\n'b': 1}",
    ] {
        every_split::<Value>(reply);
    }
}

/// Found by `stream_typed` (older than the tenth session: it fails on
/// 0677f01 too): a string holding a comment marker, inner quotes and
/// fence markers, for an untyped target, pushed in 10, 34 and 97-byte
/// chunks. The stream shows `{}` where a decode of the text so far shows
/// the string.
///
/// The cause: a fence marker inside a comment after the string, which a
/// decode may take for the end of the value's span (the comment and the
/// string then end there); the live reader now reads such a comment the
/// tolerant way, as the decode does.
#[test]
fn a_string_with_a_comment_marker_and_fences() {
    for reply in [
        "{\"a\":\"b\"/* \n```",
        "{\"a\":\"b\"/* ```",
        "{\"a\":\"b\"/* x ``` y",
        "{\"a\":\"b\"/* \n  ```\n",
        "{\"a\":\"b\"/* \n```json\n{\"c\": 1}\n```",
        "{\"a\":\"b\"// ```\n, \"c\": 2}",
        "{\"a\": 1 /* ``` */, \"c\": [2]}",
        "```json\n{\"a\": \"b\" /* note\n```\n",
        "{\"a\":\"b\"/* \n``",
    ] {
        every_split::<Value>(reply);
    }
    let reply = "{\"a\":\"(\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}b)44444\"/* ] \"```json{}\"foar\"~\"```json{}\"foar\"~~~~~~~~~~~~~~~~~\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{4}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{a}        ```";
    let cuts: Vec<usize> = [10usize, 34, 97]
        .iter()
        .cycle()
        .scan(0, |at, n| {
            *at += n;
            Some(*at)
        })
        .take_while(|&at| at < reply.len())
        .collect();
    replay::<Value>(reply, &cuts);
}
/// Found by `stream_typed` (older than this session): a fenced value after
/// a fence marker that is not its own (`` a`{}``` ``). Markers pair anew as
/// more arrive, so the value is not final when its fence closes: a decode
/// of the longer text may read another fence's body.
#[test]
fn a_fence_after_a_marker_not_its_own() {
    for reply in [
        "a`{}```\n\u{19}\n\",\n b: \"xorem ```json {\"key\":\"vad\u{2}e\"} ``` i&p\"\": \"\n```{}```\n\"\n\",\n sum ```json ",
        "Run `ls```\nthen ```json {\"key\": \"v\"} ``` and ```{}``` and ```json ",
        "Use ``` here.\n```json\n{\"key\": \"v\"}\n```\nand ```{\"b\": 2}```",
        "```\nnot json\n```\n```json\n{\"key\": \"v\"}\n```\n```{}```",
    ] {
        every_split::<Value>(reply);
        every_split::<Vec<Step>>(reply);
    }
}

/// Found by `stream_typed` (older than this session): a single-quoted
/// string with a raw line break, then a fence marker inside it. The search
/// for a fence's close ends such a string at its line's end, so the marker
/// closes the block for a decode; the live reader now reads it the tolerant
/// way.
#[test]
fn a_fence_marker_in_a_single_quoted_string_across_lines() {
    for reply in [
        "output: ```json { 'a': 'x\n```+'}",
        "output: ```json { 'a': '++{:\"b\"\0m\n```+'}",
        "```json\n{'code': 'line one\n```\nline two', 'n': 1}\n```\n",
        "```json\n{'code': 'one\ntwo ``` three', 'n': 1}\n```\n",
        "```json\n{'code': 'one ``` two\nthree', 'n': 1}\n```\n",
        "{'code': 'one\n```py\nx\n```\n', 'n': 1}",
        // In prose, on one line, before a brace.
        "Sure! Here's the JSON: [{\"id\":null,\"n\":' ```json{'}] Let me know!",
        "Result: {'tip': 'open with ```json{', 'n': 2} ok",
    ] {
        every_split::<Value>(reply);
        every_split::<Vec<Step>>(reply);
    }
}

/// An adjacently tagged enum of newtype and unit variants grows in place
/// once its tag has come first (serde reads its content without a buffer
/// then); with the tag after the content, serde buffers it and it is read
/// whole. Every split, at the root, in a list and in a field.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
enum Output {
    Answer(#[llm(partial)] String),
    Steps(#[llm(partial)] Vec<Step>),
    Score(u32),
    Plan(Step),
    Stop,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Outputs {
    #[llm(partial)]
    title: String,
    #[llm(partial)]
    outputs: Vec<Output>,
    last: Option<Output>,
}

#[test]
fn adjacently_tagged_newtype_enums_every_split() {
    let replies = [
        r#"{"type": "answer", "data": "Mix the \"flour\", then bake."}"#,
        r#"{"type": "steps", "data": [{"n": 1, "text": "mix"}, {"n": 2, "text": "bake \"it\""}]}"#,
        r#"{"type": "score", "data": 42}"#,
        r#"{"type": "plan", "data": {"n": 1, "text": "plan it"}}"#,
        r#"{"type": "stop"}"#,
        r#"{"data": "late tag", "type": "answer"}"#,
        r#"{"type": "answer", "data": "x", "extra": 1}"#,
        r#"{"type": "unknown", "data": "x"}"#,
        r#"{"type": "score", "data": "not a number"}"#,
        r#"{"type": "answer", "data": null}"#,
        r#"{"type": "answer"}"#,
        "Here:\n```json\n{\"type\": \"answer\", \"data\": \"fenced\"}\n```\nDone.",
        "{'type': 'steps', 'data': [{'n': 1, 'text': 'single',},],}",
        r#"{type: "answer", data: "bare keys"}"#,
    ];
    for reply in replies {
        every_split::<Output>(reply);
        every_split::<Vec<Output>>(&format!("[{reply}, {reply}]"));
    }
    every_split::<Outputs>(
        r#"{"title": "t", "outputs": [{"type": "answer", "data": "a"}, {"type": "steps", "data": [{"n": 1, "text": "s"}]}, {"data": "b", "type": "answer"}, {"type": "stop"}], "last": {"type": "score", "data": 7}}"#,
    );
}
/// Found by `stream_typed` (older than this session): a quote in the prose
/// before a value, after a backslash (`"x: \\"`). A decode takes it as no
/// quote, so the quote before it is still open and the value may be inside
/// that string once a quote after it arrives: the stream reads the text
/// after the value again, as for an odd number of quotes.
#[test]
fn a_quote_after_a_backslash_before_a_value() {
    for reply in [
        "=\"x: \\\\\"\n {\"n\": 0},\n 1 a\"",
        "\"x: \\\\\" {\"n\": 0} a\"",
        "Say \"x: \\\" then {\"n\": 1, \"text\": \"t\"} and \"done\"",
        "=\"x: \"\n {\"n\": 0},\n 1 a\"",
    ] {
        every_split::<Step>(reply);
        every_split::<Value>(reply);
    }
}

/// A value the reply opens with, complete, then a comma and more members
/// and a closer: a decode reads it all as one object whose first closer
/// came early (`Reopened`), so the text after it is read again as it
/// arrives, not taken as prose that only a fence could change. Found by
/// the `stream_schema` fuzz target (a schema's stream and a typed one
/// alike).
#[test]
fn a_value_reopened_by_what_follows_it() {
    for reply in [
        "{\"key\": \"value\"}, \"kalue2\": \"value1\"}",
        "{\"key\": \"value\"}, \"k\": \"v\", \"l\": \"w\"} done",
        "\u{feff} {\"key\": \"value\"}\n, \"k\": \"v\"}",
    ] {
        every_split::<std::collections::BTreeMap<String, String>>(reply);
        every_split::<Value>(reply);
    }
}

/// A string value closed, then a `#` comment holding a vertical tab: a
/// decode of the text so far showed the member (`{"a": "b"}`) where the
/// live reader waits for the first byte after the comment to settle the
/// string and shows `{}`, as both do with another byte in the comment
/// (`##x`). The decode's span was trimmed of the vertical tab (Unicode's
/// whitespace) while its "nothing follows" check knew only ASCII's, so the
/// tab read as text that settles the string. Found by the `stream_schema`
/// fuzz target.
#[test]
fn a_string_closed_before_a_comment_holding_a_vertical_tab() {
    for reply in [
        "{\"a\":\"b\"##\u{b}",
        "{\"a\":\"b\" ##\u{b}",
        "{\"\":\"\"##\u{b}",
        "{\"a\":\"b\"\u{b}",
        "{\"a\":\"b\"##\u{c}",
        "{\"a\": 12\u{b}",
    ] {
        every_split::<Value>(reply);
        every_split::<std::collections::BTreeMap<String, String>>(reply);
    }
}

/// A reply whose first string runs on past inner quotes (`"Feed the
/// startnull, "st\u{1}\u{1}e"oven": "hot"}, n:"ext "{"n": 3, …`): once
/// `"extra":` has arrived, the one-shot partial decode reads the whole text
/// as one object, reopened after its `}` by the comma, while the stream
/// showed only the inner object `{"n": 3, "text": "x", "drop": 1}`: it did
/// not count the reply's first container, closed and followed by a comma,
/// as a candidate holding the value. Found by the `stream_schema` fuzz
/// target.
#[test]
fn a_string_run_on_past_inner_quotes_then_an_inner_object() {
    let reply = "{\"id\": 7, \"title\": \"Sourdough\", \"body\": \"Feed the startnull, \"st\u{1}\u{1}e\"oven\": \"hot\"}, n:\"ext \"{\"n\": 3, \"text\": \"x\", \"drop\": 1}, \"extra\": [1, {\"a\": null}]}";
    every_split::<Value>(reply);
}

/// Values one after another, then what a decode of the text so far reads
/// differently from the byte before (each found by
/// `generated_replies_every_push`, each failing before its fix):
/// - a `/` that ends the text may open a comment: a decode read it as text
///   after the values, which ended their gathering, until the second `/`;
/// - a bare key cut after its colon (`{note:`) is the reply cut off, not
///   structure made of prose, so the fence it is in outranks the value
///   before it, as it does with the key quoted;
/// - the untyped view of a struct target gathers the objects after the
///   first: prose after the last one ends that, past a comment too;
/// - a read of the whole text skips stray closers and colons before the
///   first value (`}{"id": 1}][`, ` ,{"id": 1},note: x`): that value is
///   the reply's first, gathered with those after it and reopened by a
///   comma and a key;
/// - a colon after a value may make the word before it a key (`, tags:`);
/// - a run of six backticks is one fence marker (it opens a fence);
/// - a `}` in a list after the value is a stray closer: the list is open;
/// - a quote that ends the text right after a `{` opens a key: it closes
///   no run of words before it (`words{"`).
#[test]
fn values_then_what_a_decode_reads_anew() {
    for reply in [
        "[1, 2]]{\"id\": 3}{\"id\": 3}// c\n",
        "{\"id\": 2}\n```{note: 'z'}",
        "{\"id\": 1}{\"id\": 3, \"note\": \"a \\\"b\\\" c\"}then words",
        "</think>{\"id\": 1}{\"id\": 2}// c\nthen words",
        "}{\"id\": 1}][1, 2]",
        ": {\"id\": 1}{\"id\": 2}",
        " ,{\"id\": 1},note: x",
        ":[1, 2]{\"id\": 3},tags: [a]",
        "\n{\"id\": 1}\n``````json\n{\"id\": 2}\n```",
        "[1, 2][}Here: ",
        "tags: [a]</think>{\"id\": 1}]{\"id\": 2}",
        "then words\n```then words{\"id\": 1}",
    ] {
        every_split::<Item>(reply);
        every_split::<Value>(reply);
    }
}

/// Garbled replies (found by [`generated_replies_every_push`] with other
/// seeds) where a decode of the text so far changes its reading with a byte
/// the stream took for one that could not matter; each pushed a byte at a
/// time, the invariants after every push (see [`replay`]):
/// - a fence left open with content before a span found in prose is a
///   candidate that may take the span in (`"note": "y"]{"` is one string
///   once its last quote arrives);
/// - a string whose closing quote a first scan judged missing is not cut by
///   what that scan met at the end (`'s'tags: [a]{"id": 3, "note": "a \`
///   read the word alone);
/// - the untyped view cut where the typed one is complete (the object
///   reopened by `,note: x`) grows with any byte (`x/`);
/// - a fence marker right before a letter closes no fence (`` ```j `` opens a
///   sample);
/// - an object after another that the reply opens with is read with it, and
///   reopened by a comma and a key as the first is;
/// - a reasoning block's closing tag with no opening one makes the fenced
///   value before it the model's thinking, and a value being read when it
///   arrives (inside one of its strings);
/// - a block comment left open after a value is read more than one way as
///   it grows (`/* 2 *` then `,`: found by the fuzz target `stream_typed`).
#[test]
fn garbled_replies_the_stream_follows() {
    let replies = [
        "tags: [a]\n```\"note\": \"y\"]{\"",
        "Here: \n```\"note\": \"y\"tags: [a]Here: {\"",
        "{\"id\": 3, \"note\": \"a \\\"b\\\" c\"},note: x/",
        "\n```{\"id\": 3, \"note\": \"a \\\"b\\\" c\"}{note: 'z'}\"note\": \"y\"\n``````j",
        "{note: 'z'}{\"id\": 1},\"note\": \"y\"}",
        "}\n```[1, 2]\n```</think>",
        "// c\n\n```{\"id\": 1}```json\n</think>",
        "Draft:\n```json\n{\"id\": 1, \"note\": \"first\"}\n```\n</think>\n```json\n{\"id\": 2}\n```",
        "\n```\"q\"'s'```json\n\n{\"id\": 3}",
        ":\n```]\"q\"'s'{\"id\": 3}",
        "```json\n```json\n\"note\": \"y\"tags: [a]{\"id\": 3}",
        "// c\n's'tags: [a]{\"id\": 3, \"note\": \"a \\\"b\\\" c\"}",
        "Thinking: {\"id\": 1, \"note\": \"abc</think>{\"id\": 2}",
        "I could answer {\"id\": 1, \"note\": \"a draft</think>\n{\"id\": 2, \"note\": \"final\"}",
        "(A\n{}\n\n/* 2 *, more */ {\"id\": 2}",
        "(A\n\n/* 2 */\n{}\n\n*/\n{}\n\n/* 2 *,\n{}\n\n/* 3",
        "[1, 2][]H",
        "[1][2][ ]// c\n{\"id\": 1}",
        "{note: 'z'},[],t",
        "{\"id\": 2}{note: 'z'},,",
        "```json\n[1, 2]{\"id\": 2}\"q\"\n```/",
        "{\"id\": 2}{\"id\": 1},\n```[1, 2]",
        "[1, 2][]{name}H",
        "{\"id\": 1}[1, 2]{ name }n",
        "true \"note\": \"y\"",
        "\ntrue's' 's'",
        "None of these: 'x'",
        "[1, 2]{\"id\": 1}/**/1",
        "[]{}/* c */H",
        "{\"id\": 3, \"note\": \"a \\\"b\\\" c\"}[ ]}H",
        "<json>'{\"id\": 1}'s'",
        "<json>\"note\": \"y\"\\{}{\"",
        "<json>{\"id\": 1}{name},Here:",
        "\\```json\n// c\n\n```{}{}",
        "{name}```json\n</think>/* c */\n```{}{}",
        "{\"id\": 3, \"note\": \"a \\\"b\\\" c\"}```json\n```json\n{name}{}",
        "true' note: x's'",
        "true's'then words's'",
        "true's' \"note\": \"y\"note: x\"",
        "{}[']:",
        "{}[][',}'",
        "'\n\"q\"\n```['```",
        "{}[note: x\"note\": \"y\"]t",
        "<json>['</json>// c\n<json>\"q\"",
        "{}['\n],1",
        "<json>{}\"note\": \"y\"\n```[]``",
        "{name}[}{}{\"id\": 3, ",
        "}[\n```]true ",
        "{name}{name},,{}{\"id\": 3, ",
        "true<json>`x`</json><json>[]/",
        "[\"note\": \"y\"'}<json>\n```[1, 2",
        "<json>\"q\":{\"id\": 3, \"note\": \"a \\\"b\\\" c\"}\n{\"",
    ];
    for text in replies {
        let bytes: Vec<usize> = (1..text.len()).collect();
        replay::<Item>(text, &bytes);
        replay::<Value>(text, &bytes);
    }
}

/// The pieces [`generated_replies_every_push`] puts replies together from.
const PIECES: [&str; 24] = [
    "{\"id\": 1}",
    ",",
    " ",
    "\n",
    "note: x",
    "\"note\": \"y\"",
    "}",
    "]",
    "[",
    "Here: ",
    "```json\n",
    "\n```",
    "// c\n",
    "'s'",
    "then words",
    "tags: [a]",
    "{\"id\": 2}",
    "<think>",
    "</think>",
    "{note: 'z'}",
    "[1, 2]",
    "\"q\"",
    ":",
    "{\"id\": 3, \"note\": \"a \\\"b\\\" c\"}",
];

/// Replies put together from pieces models write (objects, lists, commas,
/// keys without quotes, prose, fences, comments, reasoning tags), several
/// thousand of them by a fixed generator, each pushed a byte at a time:
/// the invariants after every push (see [`replay`]). `GSEED` and `GRUNS`
/// run another seed and count, to look for more.
#[test]
fn generated_replies_every_push() {
    let pieces = PIECES;
    // Seeds that each found a reply the stream did not follow (`GSEED` and
    // `GRUNS` run another, to look for more: seeds 1 to 130 find none at
    // 20,000 replies each).
    generated(
        &pieces,
        &[0x1234_5678, 1, 2, 3, 5, 7, 8, 10, 11, 13, 99],
        1500,
    );
}

/// [`generated_replies_every_push`] with more pieces: a `<json>` tag, block
/// comments, empty containers, placeholders, literals, a citation, inline
/// code, a lone quote or backslash.
#[test]
fn generated_replies_with_more_pieces_every_push() {
    let more = [
        "/* c */",
        "[]",
        "{}",
        "(see [1])",
        "`x`",
        "<json>",
        "</json>",
        "true",
        "12",
        "{name}",
        "'",
        "\\",
    ];
    let pieces: Vec<&str> = PIECES.iter().chain(&more).copied().collect();
    // (`GSEED` and `GRUNS` as above: seeds 1 to 70 find none at 20,000.)
    generated(&pieces, &[1, 2, 3, 4, 5], 1000);
}

/// Replies of 2 to 6 `pieces` from each of `seeds` (or `GSEED`), `runs`
/// of them (or `GRUNS`), each pushed a byte at a time (see [`replay`]).
fn generated(pieces: &[&str], seeds: &[u64], runs: usize) {
    let seeds: Vec<u64> = match std::env::var("GSEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => vec![seed],
        None => seeds.to_vec(),
    };
    let runs: usize = std::env::var("GRUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(runs);
    for mut seed in seeds {
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..runs {
            let n = 2 + (next() % 5) as usize;
            let text: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            let bytes: Vec<usize> = (1..text.len()).collect();
            replay::<Item>(&text, &bytes);
            replay::<Value>(&text, &bytes);
        }
    }
}

/// A list of records, as [`generated_lists_with_repairs_every_push`]
/// streams it.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Records {
    #[llm(partial)]
    steps: Vec<Step>,
}

/// Elements as models write them, each with a repair (or none): some the
/// live reader makes as they come, some whose reading looks ahead (an
/// inner quote, a bare value, `'it's'`, a stray quote, two commas), which
/// the stream reads the tolerant way, the element alone
/// (`src/stream/tolerant.rs`).
const ELEMENTS: [&str; 19] = [
    r#"{"n": 1, "text": "say "hi" now"}"#,
    r#"{"n": 2, "text": hello world}"#,
    r#"{'n': 3, 'text': 'it's'}"#,
    r#"{"n": 4, "text": "a"b"}"#,
    r#"{"n": 5, "text": "x", }"#,
    r#"{"n": 6 "text": "y"}"#,
    r#"{"n": 7, "text": "z"]"#,
    "{\"n\": 8, \"text\": \"w\n```\nv\"}",
    r#"{"n": 9, "text": "q"}}"#,
    r#"{n: 10, text: "bare key"}"#,
    r#"{"n": 11, "text": "unterminated}"#,
    r#"{"n": 12, "text": "brace {x} "in" it"}"#,
    r#"{"n": 13, "text": "quote at end""}"#,
    r#"{"n": 14, "text": "a", "text": "dup"}"#,
    r#"{"n": 15, "text": "ok"}"#,
    r#"{"n": 16, "text": "x", "extra": [1, "a "b" c", {"k": v w}]}"#,
    r#"{"n": 17, "text": "t" + "u"}"#,
    "{\"n\": 18, \"text\": \"tab\tand\nnewline\"}",
    r#"{"n": 19, "text": "say "hi", then go"}"#,
];

/// Lists of 1 to 4 of [`ELEMENTS`], after an intro (none, a fence, prose,
/// a reasoning block), with separators and an end as models write them
/// (or cut), each pushed a byte at a time: the invariants after every push
/// (see [`replay`]), for a list of records and untyped. (`GSEED` and
/// `GRUNS` run another seed and count: seeds 1 to 45 find none at 2,000
/// each, 2026-12-05.)
#[test]
fn generated_lists_with_repairs_every_push() {
    let intros = [
        "",
        "```json\n",
        "Here:\n```json\n",
        "Sure! ",
        "<think>x</think>",
    ];
    let seps = [", ", ",\n", " ", "\n", ",, "];
    let ends = ["]}", "]}\n```", "", "]}\nThanks", "]", "}"];
    let seeds: Vec<u64> = match std::env::var("GSEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => vec![seed],
        None => vec![1, 2, 3],
    };
    let runs: usize = std::env::var("GRUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    for mut seed in seeds {
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..runs {
            let mut text = intros[next(intros.len())].to_owned();
            text.push_str("{\"steps\": [");
            for i in 0..1 + next(4) {
                if i > 0 {
                    text.push_str(seps[next(seps.len())]);
                }
                text.push_str(ELEMENTS[next(ELEMENTS.len())]);
            }
            text.push_str(ends[next(ends.len())]);
            let bytes: Vec<usize> = (1..text.len()).collect();
            replay::<Records>(&text, &bytes);
            replay::<Value>(&text, &bytes);
        }
    }
}

/// A string element in a list of records, its closing quote at the end of
/// the text so far: the next byte may show the quote inside it (`"b" and`),
/// so it is cut, and left out as a cut element that is not a record is. (A
/// decode failed there while the stream left it out; both now leave it out
/// until the next byte, and both fail then.)
#[test]
fn a_string_element_in_a_list_of_records() {
    let text = r#"{"steps": [{"n": 20, "text": "a"}, "b"}]}"#;
    let bytes: Vec<usize> = (1..text.len()).collect();
    replay::<Records>(text, &bytes);
}

/// A record with a plain (not partial) object field, as
/// [`regions_a_review_found`] streams it.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct WithMeta {
    n: i64,
    #[serde(default)]
    meta: Option<Label>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Label {
    k: String,
}

/// An untagged enum's element.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(untagged)]
enum PairOrOne {
    Pair {
        #[llm(partial)]
        left: String,
        #[llm(partial)]
        sub: Label,
    },
    One {
        #[llm(partial)]
        left: String,
    },
}

/// A record with an untyped partial field.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct WithExtra {
    #[serde(default)]
    n: Option<i64>,
    #[llm(partial)]
    #[serde(default)]
    extra: Option<Value>,
}

/// Found by the `stream_typed` fuzz target: an untyped target, pushed in
/// chunks of 10, 32 and 32 bytes. Near its end a `}` closes the list of a
/// region and the object around it together (a mismatched closer), and a
/// `]` follows: a decode of the text so far reads the whole text with text
/// left after it, and so takes a shorter span. The region's scanner took
/// the list's closer, put back before the `}` where the read had met the
/// text's end looking for a quote, for one put back at the end (the list
/// running into it), and the view showed `{}`.
#[test]
fn a_fuzzed_reply_with_nul_bytes_and_stray_quotes() {
    let reply = " {  \n       \"Changes\": [\n \u{3}    false      \"Changeang:\"\" emr{ipsumipsum\": \"s\"b\":\"y\"%;\\\"{\\:\\\\k[\u{0}\u{0}\u{0}\", u*\"\"ic\"}\u{0}]\":r5c\"key1\" : \"\"}]\"\"\" \":\"\" emr{ipsumipsum\": \"s\"b\":\"y\"%;\\\"{\\:\\\u{11}\u{0}\u{0}\u{0}\u{0}\u{0} y2\u{0}z{ :\"y[\"ke emr{ipsumipsum\": \": \"v\u{0}+i\u{0}\u{0}\u{0}e\"\":mr{ipsum\"8 \"sic\"}]";
    let mut cuts = Vec::new();
    let mut at = 0;
    for len in [10, 32, 32].into_iter().cycle() {
        at += len;
        if at >= reply.len() {
            break;
        }
        cuts.push(at);
    }
    replay::<Value>(reply, &cuts);
}

/// What a stream says is complete does not change: after every push (a
/// byte at a time), each path the untyped view holds that the stream calls
/// complete holds its final value, and each `Completed` delta carries it.
/// Replies with regions whose closer later text may move (a review found
/// `{"k": "say "hi", then}"}` called complete at its `}`), and strings
/// whose closing quote the next byte shows to be inside them (`"say "`
/// then `hi"`: a string's `Completed` waits for that byte).
#[test]
fn what_is_complete_stays_so() {
    fn paths(v: &Value, at: serde_llm::Path, out: &mut Vec<serde_llm::Path>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, x)| paths(x, at.clone().key(k), out)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| paths(x, at.clone().index(i), out)),
            _ => {}
        }
        out.push(at);
    }
    fn at<'v>(v: &'v Value, path: &serde_llm::Path) -> Option<&'v Value> {
        path.segments().iter().try_fold(v, |v, seg| match seg {
            serde_llm::Segment::Key(k) => v.get(&**k),
            serde_llm::Segment::Index(i) => v.get(*i),
        })
    }
    let replies = [
        r#"{"items": [{"n": 1, "text": "x", "meta": {"k": "say "hi", then}"}}]}"#,
        r#"{"items": [{"n": 1, "text": "end""}, {"n": 2, "text": "a "}" b"}], "total": 1}"#,
        "```json\n{\"items\": [{\"n\": 1, \"text\": hello world}, {\"n\": 2, \"text\": \"say \"hi\"\"}]}\n```",
        r#"{"items": [{"n": 1, "text": "a ", "b"}, {"n": 2, "text": "c", "d": "e"}]}"#,
        r#"{"items": [{"n": 1, "text": "x"y", "k": "v"}, ["p ", q", "r"]]}"#,
        r#"{"a": "one", "b": "two "three" four", "c": ["x", "y "z""]}"#,
    ];
    for reply in replies {
        let last: Value = serde_llm::from_llm_str(reply).unwrap();
        let mut dec = StreamDecoder::<Value>::new();
        for (i, b) in reply.bytes().enumerate() {
            let deltas = dec.push_deltas([b]).unwrap();
            let prefix = &reply[..=i];
            for d in &deltas {
                // (Not the root read whole: a decode of "``" reads the
                // string "", complete. See below.)
                if let serde_llm::Delta::Completed { path, value } = d {
                    if path.segments().is_empty() && value.is_string() {
                        continue;
                    }
                    assert_eq!(Some(value), at(&last, path), "{path} after {prefix:?}");
                }
            }
            let mut all = Vec::new();
            paths(dec.value().unwrap(), serde_llm::Path::root(), &mut all);
            // (Below the root: what the root is may change with the text
            // after it, `{"y": 2}, "c": 3}`, a decode of the text so far
            // calling it complete; an open question, not checked here.)
            for path in all.iter().filter(|p| !p.segments().is_empty()) {
                if dec.is_complete(path) {
                    assert_eq!(
                        at(dec.value().unwrap(), path),
                        at(&last, path),
                        "{path} after {prefix:?}"
                    );
                }
            }
        }
        assert_eq!(dec.finish().unwrap(), last);
    }
}

/// A list in a field not marked partial: the view shows it only complete.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Unmarked {
    items: Vec<UnmarkedItem>,
    #[serde(default)]
    total: Option<i64>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct UnmarkedItem {
    n: i64,
    text: String,
    #[serde(default)]
    meta: Option<Value>,
}

/// Regions inside a member the view does not show while it is open (a
/// field not marked partial, an untyped target's member): the view reads
/// that member once it closes, from the tolerant scanner's events, and the
/// untyped view and the deltas read each region from them as it grows.
/// Two regions in one member, one a level deeper, bare values in a fence,
/// a stray quote; every split.
#[test]
fn regions_inside_members_not_shown() {
    let replies = [
        r#"{"items": [{"n": 1, "text": "say "hi" now"}, {"n": 2, "text": "b", "meta": {"k": "a "b" c"}}], "total": 2}"#,
        "```json\n{\"items\": [{\"n\": 1, \"text\": hello world}, {\"n\": 2, \"text\": \"x\"}], \"total\": 2}\n```",
        r#"{"items": [{"n": 1, "text": "end""}, {"n": 2, "text": "a"}], "total": 1}"#,
    ];
    for reply in replies {
        every_split::<Unmarked>(reply);
        every_split::<Value>(reply);
    }
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct ListOf<T> {
    #[llm(partial)]
    items: Vec<T>,
}

/// Elements read the tolerant way (`src/stream/tolerant.rs`) where a
/// review of that change (2026-12-05) found the view differ from the
/// one-shot decode: a complete object inside a region still open (its
/// events copied with the region's opener cut, which marked every
/// container after it cut), an untagged enum's element left out for the
/// same reason, a region inside an element the view does not show yet
/// (put in place in the element before it), and a Unicode space at the end
/// of the text (a decode trims it, as it does an ASCII one). Every split.
#[test]
fn regions_a_review_found() {
    every_split::<ListOf<WithMeta>>(
        r#"{"items": [{"n": 1, "x": "say "hi" now", "meta": {"k": "a"}, "y": 2, "z": 3}, {"n": 2}]}"#,
    );
    every_split::<ListOf<PairOrOne>>(r#"{"items": [{"left": "say "hi" now", "sub": {"k": "a"}}]}"#);
    every_split::<ListOf<WithExtra>>(
        r#"{"items": [{"n": 7}, {"n": 1, "extra": {"a": "say "hi" now", "b": 1}}]}"#,
    );
    every_split::<Records>("{\"steps\": [{\"n\": 1, \"text\": \"say \"hi\" now\u{3000}then\"}]}");
}

/// A list of strings marked partial.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Tags {
    #[llm(partial)]
    tags: Vec<String>,
}

/// A cut string element whose text so far ends in closers (`{"tags":
/// ["s", "]`): a decode of the text so far keeps them as the string's text
/// where they close not every container open (the object around the list
/// is open too). The stream read the element as a part of its list alone,
/// where the `]` closes every container the part holds, and showed it
/// empty (found by a review, 2026-12-05): such a part is read from the
/// root.
#[test]
fn a_cut_string_element_of_closers() {
    let texts = [
        r#"{"tags": ["s", "]", "t"]}"#,
        r#"{"tags": ["]}", "x ]] }"]}"#,
        "```json\n{\"tags\": [\"a\", \"]\"]}\n```",
        r#"{"steps": [{"text": "a}", "n": 1}, {"n": 2, "text": "]}"}]}"#,
    ];
    for text in texts {
        let bytes: Vec<usize> = (1..text.len()).collect();
        replay::<Tags>(text, &bytes);
        replay::<Value>(text, &bytes);
    }
    let text = texts[3];
    let bytes: Vec<usize> = (1..text.len()).collect();
    replay::<Records>(text, &bytes);
}

/// Code samples in the strings of a fenced list, one fence line or more
/// each, with line ends in `\r\n`, indented fences, a sample that ends in a
/// closer, a quote right after the fence line, and what a decode reads as
/// an inner quote after one (`"b" x`): the view after every push is the
/// decode's, which ends the block at a fence line inside a string that runs
/// to the end (see `stream_fence_lines_in_raw_strings` in
/// `tests/linear.rs`).
#[test]
fn fence_lines_in_fenced_strings_every_split() {
    let items = [
        "{\"n\": 1, \"text\": \"code:\n```py\nx = 1\n```\nend\"}",
        "{\"n\": 2, \"text\": \"win:\r\n```\r\ny\r\n```\r\n\"}",
        "{\"n\": 3, \"text\": \"two:\n\t```sh\n\tls\n\t```\nand\n```\nz\n```\"}",
        "{\"n\": 4, \"text\": \"js:\n```js\nf() {\n}\n```\nok\"}",
        "{\"n\": 5, \"text\": \"q\n```\n\", \"m\": [1]}",
    ];
    for wrap in [
        "```json\n{\"steps\": [{b}]}\n```\n",
        "Here:\n```json\n{\"steps\": [{b}]}\n```\nDone.",
    ] {
        let text = wrap.replace("{b}", &items.join(", "));
        let bytes: Vec<usize> = (1..text.len()).collect();
        replay::<Records>(&text, &bytes);
        replay::<Value>(&text, &bytes);
        for i in (0..=text.len()).step_by(7) {
            replay::<Records>(&text, &[i]);
        }
    }
    // One or two backticks alone on a line after the root's closer, and a
    // second block after one whose string holds a fence line (found by
    // this session's review).
    let texts = [
        "```json\n{\"steps\": [{\"n\": 1, \"text\": \"```js\nf() {\n}\n``\"}]}\n```",
        "```json\n[\"```\", \"x]\n`\"]\n```",
        "```json\n{\"a\": \"```\", \"b\": \"ok}\r\n  ``\"}\n```",
        "Here:\n```json\n[{\"n\": 1, \"text\": \"a\n```\nb\"}]\n```\nOr: ```json\n[1]\n```",
        "```json\n[{\"n\": 1, \"text\": \"a\n```\nb\"}]\n```\nAlso ```json\n[1]\n```",
    ];
    for text in texts {
        every_split::<Value>(text);
    }
    let text = texts[0];
    let bytes: Vec<usize> = (1..text.len()).collect();
    replay::<Records>(text, &bytes);
    for text in &texts[3..] {
        every_split::<Vec<Step>>(text);
    }
    // A decode reads the quote after `b` as inside the string: the block
    // ends at the fence for good.
    let text = "```json\n{\"steps\": [{\"n\": 1, \"text\": \"a\n```\nb\" x}]}\n```\n";
    let bytes: Vec<usize> = (1..text.len()).collect();
    replay::<Records>(text, &bytes);
    replay::<Value>(text, &bytes);
}

/// An untagged enum at the root (what an agent's reply type often is: an
/// answer or a tool call), its strings marked partial.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(untagged)]
enum AnswerOrCall {
    Call {
        #[llm(required)]
        tool: String,
        #[llm(partial)]
        args: Vec<String>,
    },
    Answer {
        #[llm(required)]
        answer: String,
        #[llm(partial)]
        notes: String,
    },
    Text(#[llm(partial)] String),
}

/// An untagged enum at the root: serde reads its view from content it
/// buffers, where a cut string is left out whatever it holds, so a string
/// that only grows is not read again until it ends (linear: see
/// `stream_untagged_enum_at_the_root` in `tests/linear.rs`). Strings
/// ending in closers, fences, backticks, escapes, inner quotes, raw
/// newlines, single quotes, in prose, a fence or after a reasoning block:
/// the view after every split is a decode of the text so far.
#[test]
fn an_untagged_enum_at_the_root_every_split() {
    let replies = [
        r#"{"answer": "word 1 word 2 \"three\" ✓ ]} done"}"#,
        r#"{"tool": "search", "args": ["a }", "b ]", "c\"]}"]}"#,
        r#"{"args": ["x", "y"], "tool": "look"}"#,
        r#""just text, with {braces} and [brackets]""#,
        "{\"answer\": \"say \"hi\" now\nand a raw line\"}",
        "{'answer': 'single quoted, it\\'s fine'}",
        "Here:\n```json\n{\"answer\": \"code: ```py\\nx = 1\\n``` ok\"}\n```\nDone.",
        "```json\n{\"answer\": \"a line\n```\nnot the end\"}\n```",
        "<think>Maybe {\"answer\": \"no\"}?</think>\n{\"answer\": \"yes }\"}",
        r#"{"answer": "tick ` and ``"}"#,
        r#"{"notes": "first the notes ]}", "answer": "then the answer"}"#,
        r#"{"tool": "t", "args": ["]", "}"], "answer": "late"}"#,
    ];
    for text in replies {
        every_split::<AnswerOrCall>(text);
        // As a list's element too (a cut string there leaves the element
        // out).
        every_split::<Vec<AnswerOrCall>>(&format!("[{text}, {}]", replies[1]));
    }
}

/// An untagged enum at the root whose first variant holds a list of
/// structs, the other variant's field a string.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(untagged)]
enum StepsOrOther {
    Steps {
        #[llm(partial)]
        steps: Vec<Step>,
    },
    Other {
        other: String,
    },
}

/// [`StepsOrOther`] with its variants the other way round, the first one
/// shown only with its field: the view changes variant when a member
/// completes.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(untagged)]
enum OtherOrSteps {
    Other {
        #[llm(required)]
        other: String,
    },
    Steps {
        #[llm(partial)]
        steps: Vec<Step>,
    },
}

/// An untagged enum at the root holding a list: a decode keeps only the
/// root's complete members, so the stream reads the root again only when
/// one completes, not on every push inside the cut one (linear: see
/// `stream_untagged_enum_at_the_root_holding_a_list` in `tests/linear.rs`).
/// What inside the cut member may still change a decode's reading: strings
/// ending in closers or holding a fence, a closing quote, a variant that
/// loses once an element of another type completes, repairs, a reasoning
/// block holding the start of a value. The view after every split, and in
/// 1-, 3- and 16-byte chunks, is a decode of the text so far.
#[test]
fn an_untagged_root_holding_a_list_every_split() {
    let replies = [
        r#"{"steps": [{"n": 1, "text": "a }]"}, {"n": 2, "text": "b\"}]}"}]}"#,
        r#"{"steps": [{"n": 1, "text": "a }]} and more"}, {"n": 2, "text": "b"}]}"#,
        "{\"steps\": [{\"n\": 1, \"text\": \"a\n```\"}]}",
        r#"{"steps": [{"n": 1, "text": "x"}, {"n": "two"}], "other": "fallback"}"#,
        r#"{"other": "first", "steps": [{"n": 1, "text": "y"}]}"#,
        r#"{"steps": [{"n": 1, "text": "a"}, {"n": 2, "text": "b"}], "extra": 12345}"#,
        "```json\n{\"steps\": [{\"n\": 1, \"text\": \"a\n```\nb\"}]}\n```",
        "{'steps': [{'n': 1, 'text': 'it\\'s'}, {n: 2, text: \"two\",},]}",
        "<think>{\"steps\": [</think>{\"steps\": [{\"n\": 3, \"text\": \"c\"}]}",
        r#"{"steps": [{"n": 1, "text": "a"}, {"n": 2, "text": "b"}]} and {"other": "z"}"#,
        r#"{"steps": [{"n": 1, "text": "done"}], "steps": []}"#,
        r#"{"steps": [{"n": 1, "text": "a"}], "other": "late", "steps": [{"n": 2, "text": "b"}]}"#,
    ];
    for text in replies {
        every_split::<StepsOrOther>(text);
        every_split::<OtherOrSteps>(text);
        for size in [3, 16] {
            let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
            replay::<StepsOrOther>(text, &cuts);
            replay::<OtherOrSteps>(text, &cuts);
        }
    }
}

/// A reply as an agent's model writes one: an answer, a tool call or bare
/// text ([`AnswerOrCall`]), or a list of them, its members in any order,
/// quoted one way or another, with trailing commas, raw newlines, closers
/// and placeholders in its strings; bare, fenced, after a reasoning block
/// or between prose.
fn agent_reply() -> impl Strategy<Value = String> {
    let word = proptest::sample::select(vec![
        "run",
        "it's",
        "{path}",
        "a]",
        "b}",
        " ",
        "✓",
        "\\\"q\\\"",
        "\n",
        "`ls`",
        ",",
        "\\n",
        "say \"hi\" now",
        "```",
    ]);
    let text = proptest::collection::vec(word, 0..5).prop_map(|w| w.concat());
    let key = |k: &'static str| {
        proptest::sample::select(vec![0u8, 1, 2]).prop_map(move |q| match q {
            0 => format!("\"{k}\""),
            1 => format!("'{k}'"),
            _ => k.to_owned(),
        })
    };
    let string =
        (text.clone(), proptest::bool::weighted(0.2)).prop_map(|(t, single)| match single {
            true => format!("'{}'", t.replace('\'', "\\'")),
            false => format!("\"{t}\""),
        });
    // A member that no variant takes as it is (a `null`, a number) now and
    // then: the root shows nothing until another variant's member comes.
    let member = prop_oneof![
        8 => string.clone(),
        1 => Just("null".to_owned()),
        1 => Just("1".to_owned()),
    ];
    let call = (
        key("tool"),
        member.clone(),
        key("args"),
        prop_oneof![
            8 => proptest::collection::vec(string.clone(), 0..3)
                .prop_map(|args| format!("[{}]", args.join(", "))),
            1 => member.clone(),
        ],
        proptest::bool::ANY,
    )
        .prop_map(|(k1, tool, k2, args, swap)| {
            let a = format!("{k1}: {tool}");
            let b = format!("{k2}: {args}");
            match swap {
                true => format!("{{{b}, {a}}}"),
                false => format!("{{{a}, {b}}}"),
            }
        });
    let answer = (key("answer"), member.clone(), key("notes"), member, 0u8..3).prop_map(
        |(k1, answer, k2, notes, how)| match how {
            0 => format!("{{{k1}: {answer}}}"),
            1 => format!("{{{k1}: {answer}, {k2}: {notes},}}"),
            _ => format!("{{{k2}: {notes}, {k1}: {answer}}}"),
        },
    );
    let one = prop_oneof![call, answer, string];
    let value = prop_oneof![
        one.clone(),
        proptest::collection::vec(one, 1..4).prop_map(|v| format!("[{}]", v.join(",\n "))),
    ];
    let wrap = proptest::sample::select(vec![
        "{}",
        "```json\n{}\n```",
        "Sure, here it is:\n```json\n{}\n```\nDone.",
        "<think>Call {tool}? Maybe [x].</think>\n{}",
        "The call: {} Hope that helps.",
    ]);
    (value, wrap).prop_map(|(v, w)| w.replacen("{}", &v, 1))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Generated agent replies, read as an untagged enum at the root or a
    /// list of them, pushed in random pieces: the views are the one-shot
    /// decodes of the text so far, the final value the decode.
    #[test]
    fn agent_replies_stream_as_they_decode(
        reply in agent_reply(),
        cuts in proptest::collection::vec(0usize..2000, 0..16),
    ) {
        let mut cuts: Vec<usize> = cuts
            .into_iter()
            .map(|c| c % (reply.len() + 1))
            .filter(|&c| reply.is_char_boundary(c))
            .collect();
        cuts.sort_unstable();
        replay::<AnswerOrCall>(&reply, &cuts);
        replay::<Vec<AnswerOrCall>>(&reply, &cuts);
    }
}

/// A fence on a line of its own after a string element with nothing but
/// raw spaces yet (`["",⏎ "⏎```⏎…`): a decode of the text so far ends the
/// block there and leaves the element out (nothing of it written). Pushed a
/// byte at a time the stream showed it, a backtick having come, and held it
/// (found by `agent_replies_stream_as_they_decode`). Every split.
#[test]
fn a_blank_string_element_before_a_fence_line() {
    for text in [
        "```json\n[\"\",\n \"\n```\n{path}\"]\n```",
        "```json\n[\"a\", \"  \n```\nb\"]\n```",
        "```json\n{\"k\": [\"\n```\"]}\n```",
    ] {
        every_split::<Value>(text);
        every_split::<Vec<String>>(text);
    }
    every_split::<Tags>("```json\n{\"tags\": [\"\n```\nx\"]}\n```");
}

/// The single-quoted strings over lines of `tests/fences.rs`
/// (`a_single_quoted_string_over_lines_in_a_fence`), every split.
#[test]
fn single_quoted_strings_over_lines_in_a_fence_every_split() {
    for text in [
        "```json\n{\"a\": '\n\\\"q\\\"', \"b\": \"x```\"}\n```\nDone.",
        "Here:\n```\n[{\"tool\": 't', \"args\": ['\na]']},\n {\"tool\": \"u\", \"args\": [\"run```\"]}]\n```",
    ] {
        every_split::<Value>(text);
    }
    every_split::<Vec<AnswerOrCall>>(
        "Here:\n```\n[{\"tool\": 't', \"args\": ['\na]']},\n {\"tool\": \"u\", \"args\": [\"run```\"]}]\n```",
    );
}

/// An untagged enum with a newtype variant of a string, in a list marked
/// partial beside another field.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(untagged)]
enum AorB {
    A { a: String, b: Option<String> },
    B { b: String },
    S(String),
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct HoldsAorB {
    u: AorB,
    #[llm(partial)]
    more: Vec<AorB>,
}

/// Found by the review of the untagged enum's growing string: a string
/// with nothing but raw spaces yet is missing for a decode, cut or not; its
/// first other character (or escape) makes it a cut string, which serde's
/// buffer refuses, and the view changes there. The stream took the view
/// read while the string was empty for one that could not change. Every
/// split.
#[test]
fn a_string_in_an_untagged_enum_from_empty_to_cut() {
    for text in [
        "{\"more\": [[\"it\"]]}",
        "{\"more\": [[\"  it\"], {\"b\": \"x\"}]}",
        "{\"more\": [[\"  \\u0041\"]], \"u\": \"s\"}",
    ] {
        every_split::<HoldsAorB>(text);
    }
    every_split::<ListOf<AnswerOrCall>>("{\"items\": [[\"a\"], [\"  \\u12\"]]}");
}

/// A step as the `stream_typed` fuzz target has it (its number required).
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct RequiredStep {
    #[llm(required)]
    n: u32,
    #[llm(partial)]
    text: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
}

/// Found by the `stream_typed` fuzz target (2026-12-06): `[[[` pushed a
/// byte at a time as a list of structs. A struct read from a list takes its
/// number from the inner `[`, which once complete may be a list of one
/// (`[[[5]]]`): cut, it is not known yet, and the element is left out, as
/// the stream leaves it out and as `[{"n": [` reads. A decode gave a `Data`
/// error ("invalid type: sequence") on a prefix of a reply it reads.
#[test]
fn a_list_inside_a_cut_struct_element() {
    for text in [
        "[[[",
        "[[[,",
        "\u{e}[[[",
        "[[[5]]]",
        "[[[5, 6]]]",
        "[[5, [\"a\"]]]",
        "[[5, \"a\", [\"t\"]]]",
        "[[[true]]]",
        "[{\"n\": [5]}, [[6], [\"b\"]]]",
    ] {
        let bytes: Vec<usize> = (1..text.len()).collect();
        replay::<Vec<RequiredStep>>(text, &bytes);
        every_split::<Vec<RequiredStep>>(text);
    }
    let d = serde_llm::Decoder::new();
    let view = d.decode_partial::<Vec<RequiredStep>>("[[[5").unwrap();
    assert_eq!(view, Some(vec![]));
    let view = d
        .decode_partial::<Vec<RequiredStep>>("[[[5]")
        .unwrap()
        .unwrap();
    assert_eq!(view[0].n, Some(5));
    let done = d
        .decode::<Vec<RequiredStep>>("[[[5], null], [[6], [\"b\"]]]")
        .unwrap();
    assert_eq!(
        done,
        vec![
            RequiredStep {
                n: 5,
                text: None,
                tags: vec![]
            },
            RequiredStep {
                n: 6,
                text: Some("b".into()),
                tags: vec![]
            },
        ]
    );
    // A list of two where one number stands is the reply's own error once
    // complete.
    assert!(d.decode::<Vec<RequiredStep>>("[[[5, 6]]]").is_err());
}

/// A list element that opens as an object where the element's type takes
/// none (`[{"a": 1` as a list of numbers): a decode reads the cut element as
/// soon as it holds something (a number, a literal, a quote, an opener
/// after a key) and gives its error then; before, the stream gave it only
/// as the object completed, and showed `[]` between. Each split and each
/// byte, plain, fenced and repaired, for several element types.
#[test]
fn an_element_of_the_wrong_kind_errs_as_soon_as_it_holds_something() {
    let texts = [
        "[{\"a\": 1}]",
        "[1, {\"a\": \"x\"}, 2]",
        "[{\"a\": -1.5e3, \"b\": [true]}]",
        "[{\"a\":    t",
        "[{\"a\": {\"b\": 1}}]",
        "[{\"a\": [1]}]",
        "[ {  \"k\" :  null } ]",
        "[{\"a\": -",
        "```json\n[{\"a\": 1}]\n```",
        "Here: [{a: 1}, 2]",
        "[{'a': 1, 'b': 2}]",
        "[{\"a\": 1,}]",
    ];
    for text in texts {
        every_split::<Vec<u32>>(text);
        every_split::<Vec<String>>(text);
        every_split::<Vec<bool>>(text);
    }
    every_split::<Vec<u32>>("[[{\"n\": 1}]]");
    every_split::<Vec<RequiredStep>>("[[{\"n\": 1}]]");
    every_split::<Vec<RequiredStep>>("[{\"n\": 1, \"tags\": [{\"a\": 2}]}]");
    let d = serde_llm::Decoder::new();
    // The decode the stream follows: nothing in the object yet, or a sign
    // alone, is no value; a number is.
    assert_eq!(
        d.decode_partial::<Vec<u32>>("[{\"a\": -").unwrap(),
        Some(vec![])
    );
    assert!(d.decode_partial::<Vec<u32>>("[{\"a\": 1").is_err());
    let mut s = d.stream::<Vec<u32>>();
    s.push("[{\"a\": ").unwrap();
    assert_eq!(s.view(), &Some(vec![]));
    let e = s.push("1").unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid type: map, expected u32 at $[0] (line 1, column 2)"
    );
}

/// Found by a review (2026-12-06): a cut list where one value is wanted (a
/// number or string, which a list of one gives once complete) was refused
/// at its start (see above) and the refusal took the whole view with it: a
/// map `{"a": 1, "b": [` showed nothing, and an element `{"n": 6, "text": [`
/// was left out after it had been shown. The member is missing until the
/// list completes, as a cut number is: a map leaves it out, a field shows
/// `None`. No prefix shows less than the one before; every split.
#[test]
fn a_cut_list_where_one_value_is_wanted_is_a_missing_member() {
    let d = serde_llm::Decoder::new();
    let map = "{\"a\": 1, \"b\": [5], \"c\": [7, 8]}";
    let mut shown = 0;
    for end in 1..=map.len() {
        let view = d.decode_partial::<BTreeMap<String, u32>>(&map[..end]);
        // `[7, 8]` is a list of two where one number is wanted: the
        // reply's own error once complete.
        if end > map.find("8]").unwrap() + 1 {
            assert!(view.is_err(), "{:?}", &map[..end]);
            continue;
        }
        let view = view.unwrap().unwrap_or_default();
        assert!(view.len() >= shown, "{:?} shows {view:?}", &map[..end]);
        shown = view.len();
        if end == map.find("[5").unwrap() + 2 {
            assert_eq!(view, BTreeMap::from([("a".to_owned(), 1)]));
        }
    }
    let map = &map[..map.find(", \"c\"").unwrap()];
    every_split::<BTreeMap<String, u32>>(&format!("{map}}}"));

    let steps = "[{\"n\": 6, \"text\": [\"x\"]}, {\"n\": 7, \"text\": [\"y\"], \"tags\": [\"t\"]}]";
    let mut shown = 0;
    for end in 1..=steps.len() {
        let view = d.decode_partial::<Vec<RequiredStep>>(&steps[..end]);
        let view = view.unwrap().unwrap_or_default();
        assert!(view.len() >= shown, "{:?} shows {view:?}", &steps[..end]);
        shown = view.len();
        if end == steps.find("[\"x").unwrap() + 3 {
            assert_eq!((view[0].n, view[0].text.as_deref()), (Some(6), None));
        }
    }
    every_split::<Vec<RequiredStep>>(steps);
    let done = d.decode::<Vec<RequiredStep>>(steps).unwrap();
    assert_eq!(done[1].text.as_deref(), Some("y"));
}

/// Found by a review (2026-12-06): an untagged enum at the root that no
/// variant takes at first (`{"answer": null,`): the live view begins from a
/// decode that shows nothing, and the stream panicked ("a live view",
/// `Live::root`) on the root's opener and elsewhere. Such a root is read
/// whole until it shows. Every split.
#[test]
fn an_untagged_root_with_a_null_member() {
    let text = "{\"answer\": null, \"args\": 1}";
    replay::<AnswerOrCall>(text, &[16]);
    for text in [
        text,
        "{\"answer\": null, \"tool\": \"t\", \"args\": [\"a\"]}",
        "{\"args\": [\"a\", \"b\"], \"tool\": \"t\"}",
        "{\"tool\": null, \"notes\": \"n\", \"answer\": \"hi\"}",
        "Sure:\n```json\n{\"answer\": null, \"args\": [\"x\"], \"tool\": \"t\"}\n```",
    ] {
        every_split::<AnswerOrCall>(text);
        every_split::<Vec<AnswerOrCall>>(&format!("[{text}, {{\"answer\": \"x\"}}]"));
    }
}

/// An untagged enum flattened into a struct.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct WithFlat {
    id: u32,
    #[serde(flatten)]
    body: AnswerOrCall,
}

/// Found by a review (2026-12-06), already in the landed code: an untagged
/// enum flattened into a struct is never shown by the live path once the
/// value arrives in more than one push (`{"id": 1, "tool": "t", "args":
/// ["a"]}` split after `{"id": 1, ` ends with `body: None`, where a decode
/// shows the call; `finish()` is right). Every split.
#[test]
fn an_untagged_enum_flattened_into_a_struct() {
    for text in [
        "{\"id\": 1, \"tool\": \"t\", \"args\": [\"a\"]}",
        "{\"answer\": null, \"id\": 1, \"tool\": \"t\", \"args\": [\"a\"]}",
        "{\"answer\": null, \"answer\": \"hi\", \"id\": 2}",
        "{\"id\": 3, \"answer\": \"hello there\", \"notes\": \"a {b} c\"}",
        "{\"tool\": \"t\", \"id\": 4, \"args\": [\"a\", \"b\"], \"extra\": 1}",
        "Sure:\n```json\n{\"id\": 5, \"args\": [\"x\"], \"tool\": \"t\"}\n```",
        // A variant shown, then members still being written that make
        // another one win once complete.
        "{\"id\": 6, \"answer\": \"a long {x} answer\", \"tool\": \"t\", \"args\": [\"c\", \"d]\"]}",
        "{\"id\": 7, \"answer\": \"ab\", \"notes\": \"n\", \"answer\": \"cd\"}",
    ] {
        every_split::<WithFlat>(text);
        every_split::<Vec<WithFlat>>(&format!("[{text}, {{\"id\": 9, \"answer\": \"x\"}}]"));
    }
}

/// An internally tagged enum flattened into a struct.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "type")]
enum Said {
    Say {
        #[llm(partial)]
        text: String,
    },
    Call {
        tool: String,
        n: u32,
    },
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct WithTagged {
    id: u32,
    #[serde(flatten)]
    body: Said,
}

/// An adjacently tagged enum flattened into a struct.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    Say(String),
    Call { tool: String },
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct WithAdjacent {
    id: u32,
    #[serde(flatten)]
    body: Adj,
}

/// Found by a review (2026-12-06), already in the landed code: a tagged
/// enum flattened into a struct, read from one member alone (without its
/// tag), is `None`, and the live view kept `body: None` for good once the
/// value came in more than one push (93 of 145 cuttings). The struct is read
/// again, as for an untagged one. Every split, at the root and in a list.
#[test]
fn a_tagged_enum_flattened_into_a_struct() {
    for text in [
        "{\"id\": 1, \"type\": \"Say\", \"text\": \"hello there\"}",
        "{\"type\": \"Call\", \"id\": 2, \"tool\": \"t\", \"n\": 3}",
    ] {
        every_split::<WithTagged>(text);
        every_split::<Vec<WithTagged>>(&format!("[{text}, {text}]"));
    }
    for text in [
        "{\"id\": 1, \"t\": \"Say\", \"c\": \"hello\"}",
        "{\"t\": \"Call\", \"c\": {\"tool\": \"x\"}, \"id\": 2}",
    ] {
        every_split::<WithAdjacent>(text);
        every_split::<Vec<WithAdjacent>>(&format!("[{text}, {text}]"));
    }
}

/// Found by a review (2026-12-06): a string whose closers a decode reads as
/// the end of the value (`"a}] x"`) was shown as the decode reads it, and
/// every push after that went to the live view and back: `Started` of the
/// same text again, which the deltas' guard answered with a `Reset` and the
/// whole view (160 resets for 40 such elements). Now a push whose view is
/// the same as the last gives no delta.
#[test]
fn a_string_read_short_by_a_decode_resets_once() {
    let text = "[{\"id\": 1, \"name\": \"a}] x\"}, {\"id\": 2}]";
    every_split::<Value>(text);
    let mut dec = StreamDecoder::<Value>::new();
    let mut resets = 0;
    for b in text.as_bytes() {
        let deltas = dec.push_deltas([*b]).unwrap();
        resets += deltas.iter().filter(|d| **d == Delta::Reset).count();
    }
    // `"a}` shows `a}`; `"a}]` is read as `a` (the closers end the value).
    assert_eq!(resets, 1);
}

/// Found by a review (2026-12-06): a root that more text extends was said
/// complete after each line or push, so each extension was a `Reset` and
/// the whole view: JSON lines of repaired objects (one `Reset` per line
/// after the first, each as big as the list so far), and a bare token at
/// the root (one per byte). A root read from values one after another, and
/// a bare word the text ends in, are not complete before `finish`: each
/// extension is a delta of its own size.
#[test]
fn a_root_more_text_extends_is_not_complete() {
    let lines: String = (0..40).map(|i| format!("{{'n': {i}}}\n")).collect();
    for (text, most) in [
        // The first object becomes a list of it and the next one.
        (lines.as_str(), 1),
        // `5`, `55` and `550` are numbers, `550e8` too, then a string.
        ("550e8400-e29b-41d4-a716-446655440000", 6),
    ] {
        let mut dec = StreamDecoder::<Value>::new();
        let (mut resets, mut size) = (0, 0);
        for b in text.as_bytes() {
            let deltas = dec.push_deltas([*b]).unwrap();
            resets += deltas.iter().filter(|d| **d == Delta::Reset).count();
            size += format!("{deltas:?}").len();
            // (One object alone is complete, until a second one comes.)
            if resets > 0 || !text.starts_with('{') {
                assert!(!dec.is_complete(&Path::root()), "{text:?}");
            }
        }
        assert!(resets <= most, "{text:?}: {resets} resets");
        // Each delta about the size of what it adds (a line is 10 bytes).
        assert!(size < 80 * text.len(), "{text:?}: {size} bytes of deltas");
        assert_eq!(
            dec.finish().unwrap(),
            serde_llm::from_llm_str::<Value>(text).unwrap()
        );
    }
    assert_eq!(takes_back(&lines[..60]), None);
}

/// The deltas' promise: nothing shown is taken back but by a `Reset`. A
/// delta `d` about to be applied to `built` neither changes a value said to
/// be complete (`completed`: the paths so said since the last `Reset`) nor
/// starts a value where one is shown. The first broken promise, said.
fn take_back(built: &Value, d: &Delta, completed: &mut Vec<Path>) -> Option<String> {
    let Some(path) = d.path() else {
        completed.clear();
        return None;
    };
    if let Some(done) = completed.iter().find(|c| path.starts_with(c)) {
        return Some(format!("{d:?} after {done} was complete"));
    }
    match d {
        Delta::Started { .. } => {
            let Some((last, parent)) = path.segments().split_last() else {
                return (!built.is_null()).then(|| format!("{d:?} over a view"));
            };
            let mut at = built;
            for seg in parent {
                at = match (seg, at) {
                    (Segment::Key(k), Value::Object(m)) if m.contains_key(&**k) => &m[&**k],
                    (Segment::Index(i), Value::Array(a)) if *i < a.len() => &a[*i],
                    _ => return Some(format!("{d:?} where nothing is shown")),
                };
            }
            let shown = match (last, at) {
                (Segment::Key(k), Value::Object(m)) => m.contains_key(&**k),
                (Segment::Index(i), Value::Array(a)) => *i < a.len(),
                _ => true,
            };
            shown.then(|| format!("{d:?} where a value is shown"))
        }
        Delta::Completed { .. } => {
            completed.push(path.clone());
            None
        }
        _ => None,
    }
}

/// [`take_back`] over `text` pushed a byte at a time and in every split in
/// two: the first promise broken, with the text so far.
fn takes_back(text: &str) -> Option<String> {
    let mut cuttings: Vec<Vec<usize>> = (0..=text.len()).map(|i| vec![i]).collect();
    cuttings.push((1..text.len()).collect());
    for cuts in cuttings {
        let mut dec = StreamDecoder::<Value>::new();
        let (mut built, mut completed, mut from) = (Value::Null, Vec::new(), 0);
        for &to in cuts.iter().chain([&text.len()]) {
            let Ok(deltas) = dec.push_deltas(&text.as_bytes()[from..to]) else {
                break;
            };
            from = to;
            for d in &deltas {
                if let Some(broken) = take_back(&built, d, &mut completed) {
                    return Some(format!("{:?}: {broken}", &text[..to.min(text.len())]));
                }
                d.apply(&mut built);
            }
        }
    }
    None
}

/// The deltas take nothing back but by a `Reset` ([`Delta`]'s promise),
/// checked on replies pushed in every split (and by `replay` on every reply
/// the tests stream): a key written twice (the second value starts: a
/// `Reset`, then the view without the first), a string's shown text taken
/// back (a closer or fence it seemed to hold), a root said complete that
/// more text extends (a repaired reply, several roots gathered).
#[test]
fn deltas_take_nothing_back() {
    for text in [
        "{\"a\": {\"x\": 1}, \"a\": {\"y\": 2}}",
        "{\"a\": \"one\", \"b\": 2, \"a\": \"two\"}",
        "[{\"a\": [1, 2], \"a\": [3]}, {\"k\": 1, \"k\": 1, \"k\": 1}]",
        "```json\n{\"a\": 1, 'a': 2}\n```",
        "{\"name\": \"Ada\", \"tags\": [\"x\", {\"k\": null}], \"n\": -1.5e3}",
        "Sure:\n```json\n{\"steps\": [{\"n\": 1, \"text\": \"say \\\"hi\\\"\"}]}\n```\nDone.",
        "{'a': 'it\\'s', b: [1, 2,], // c\n 'd': True}",
        "{\"n\": 2, \"text\": \"a}",
        "```json\n{\"n\": 1, \"text\": \"code:\\n```",
        "{\"title\": \"x\" \"y\" \"z\", \"id\": 2}",
        "{\"title\": \"x\"}, \"id\": 7, \"tags\": [\"a\"]",
        "[1, 2]]{\"id\": 3}{\"id\": 3}",
        "{\"a\": 1} and <json>42</",
        "[]{}",
        "```json\n[\"\",\n \"\n```\n{path}\"]\n```",
    ] {
        assert_eq!(takes_back(text), None, "{text:?}");
    }
}

/// Found by a sweep (2026-12-06): a fence marker inside the reasoning block
/// the reply opens with made the stream read the value after it as if a
/// fence were open before it (a fence line in a string ended the view's
/// string there, `a` for `a\n```\nb`), where a decode reads only the text
/// after the block. Every split.
#[test]
fn a_fence_marker_in_a_closed_reasoning_block_opens_no_fence() {
    for text in [
        "<think>```</think>{\"n\": 1, \"text\": \"a\n```\nb\"}",
        "<think>see ```json```</think>\n{\"n\": 2, \"text\": \"x ``` y\"}",
        "<thinking>t\n```json\n{\"n\": 0}\n```\n</thinking>\n{\"n\": 3, \"text\": \"a\n```\nb\"}",
    ] {
        every_split::<Step>(text);
        every_split::<Value>(text);
    }
    every_split::<Value>("<think>```</think>{\"t\": \"```\\n```\"}");
}

/// Found by a sweep (2026-12-06): a fenced value the live reader read with
/// its repairs (a trailing comma, keys without quotes), then a fence after
/// it: the stream kept the first value once its fence closed, where a
/// decode takes the later one (read with fewer repairs). Every split.
#[test]
fn a_later_fence_after_a_repaired_fenced_value() {
    for text in [
        "A\n```\n[1,]\n```\n```\n[2]",
        "A\n```\n{a:1}\n```\n```\n[",
        "A\n```\n{\"a\": 1,}\n```\nAlso:\n```json\n{\"b\": 2}\n```",
        "A\n```\n{\"a\": 1}\n```\nAlso:\n```json\n{\"b\": 2}\n```",
    ] {
        every_split::<Value>(text);
        every_split::<Vec<Value>>(text);
    }
}

/// A reply that takes its value back and writes it again (see
/// `a_value_the_prose_takes_back_gives_way_to_the_one_after` in
/// tests/trust.rs): the stream follows the decode of the text so far at
/// every split, the value shown changing once the correction's value starts.
/// A value the sentence right after it takes back, with nothing after
/// that may be a value (`{"a": 1}⏎Oops, my mistake.`): a decode gives no
/// value once the sentence ends, and the views follow at every split (a
/// value after it may still replace it).
#[test]
fn a_value_taken_back_with_none_after_every_split() {
    for text in [
        "{\"a\": 1, \"b\": [2]}\nOops, my mistake.",
        "{\"a\": 1}\nWait, no, that is wrong. Let me think again.",
        "The answer is {\"a\": 1}. Oops.",
        "```json\n{\"a\": 1, \"b\": [2]}\n```\nScratch that.\nI need to check.",
        "Here:\n```json\n{\"a\": 1}\n```\n\nHmm, no.",
        "{\"a\": 1}\nOops, my mistake.\nCorrected: {\"a\": 2, \"b\": [3]}",
        "{\"a\": 1}\nSorry, my mistake.",
        "{\"a\": 1}\nWait, no?",
        "{\"a\": 1}\nHmm, no, that is it.",
        "[{\"a\": 1}, {\"a\": 2}]\nOops, wrong count.",
        "{\"a\": 1}\n{\"a\": 2}\nOops, my mistake.",
        "```json\n{\"a\": 1}\nOops, my mistake.",
        "Here:\n<json>{\"a\": 1}</json>\nOops, wrong one.",
        "{\"a\": 1}\n\n**Wait, no, that is wrong.**\n\nThe count is off.",
        "{\"a\": 1}\nOops, typo. Example: {\"a\": 2}",
        "Return [] if none.\nResult: [\"x\"]\nWait, no, that is wrong.",
        "{'a': 1, b: [2,]}\nScratch that.",
        "{\"a\": 1}\nNever mind.\n",
        "{\"a\": 1, \"b\": [2]}\n\nOops! I almost forgot: the times are UTC.",
        "{\"a\": 1}\n\nHmm, no. That is correct.",
        "[{\"a\": 1}, {\"a\": 2}]\n\nOops!\n\n",
        "{\"a\": 1}\n{\"a\": 2}\nWhoops. Also, a is optional.",
        "{\"a\": 1}\nWait, no, that is wrong. Let me recount the a field twice.",
        "{\"a\": 1}\nWait, no, that is wrong. Use {placeholder} then.",
    ] {
        every_split::<Value>(text);
        every_split::<Vec<Value>>(text);
        every_split::<BTreeMap<String, Value>>(text);
        every_split::<AB>(text);
        every_split::<String>(text);
    }
}

#[test]
fn a_value_taken_back_every_split() {
    for text in [
        "{\"a\": 1, \"b\": [1]}\n\nWait, I made a mistake. Here is the corrected version:\n{\"a\": 2, \"b\": [2, 3]}",
        "{\"a\": 1, \"b\": [9]}\nWait, that's not right \u{2014} 9 is odd.\n{\"a\": 1, \"b\": [8]}",
        "{\"a\": 1}\nOops, wrong unit. The API wants meters.\n```json\n{\"a\": 1000}\n```",
        // A correction of some members only: the decode errs once it closes.
        "{\"a\": 1, \"b\": [1]}\nOops, typo. It should be:\n{\"b\": [2]}\nDone.",
        "{\"a\": 1, \"b\": [1]}\nOops, typo. It should be:\n{\"b\": [2]}\nThe whole:\n{\"a\": 1, \"b\": [2]}",
        "{\"a\": 1, \"c\": 3}\nOops, forgot b! Here it is:\n{\"b\": [2]}",
        "{\"a\": 1}\nOops, forgot b! Here it is:\n{\"a\": 1, \"b\": [2]}",
        "Here you go: {\"a\": 1}\nOops, typo. Fixed: {'a': 22, b: [4,]}",
        "```json\n{\"a\": 1}\n```\nThat is wrong; correct:\n```json\n{\"a\": 2}\n```\nDone.",
        "{\"a\": 1}\n\nNo mistakes there. Example: {\"a\": 2}",
        "Sure: {\"a\": 1, \"b\": [5]}. Sorry, my error - the corrected b:\n```json\n{\"a\": 1, \"b\": [6]}\n```",
        "Sure: {\"a\": 1, \"b\": [5]}. Sorry, my error - b is 6:\n```json\n{\"a\": 1, \"b\": [6]}\n```",
        "{\"a\": 1}\n\nIs this wrong? {\"a\": 2}",
        "Wrong: {\"a\": 1}\nCorrect: {\"a\": 2, \"b\": [3]}",
        "Wrong:\n```json\n{\"a\": 1}\n```\nCorrect:\n```json\n{\"a\": 2}\n```",
        "Option 1 (correct): {\"a\": 1}\nOption 2 (wrong): {\"a\": 2}",
        "{\"a\": 1}\nOops, typo. Corrected: {\"a\": 2, \"b\": [3]}",
        "```json\n{\"a\": 1}\n```\nSorry, I meant:\n```json\n{\"a\": 2}\n```",
        "The answer is {\"a\": 1}. Sorry, I meant {\"a\": 2, \"b\": [4]}.",
        "{\"a\": 1}\nThat is wrong; use this instead:\n{\"a\": 2}",
        "{\"a\": u\"x\", \"b\": [1, b'2', r'C:\\new']}",
        "{'a': 1, 'b': {3, 4}, 'c': set(), 'd': 2}",
        "{'a': {True, False}, 'b': {None, 2}, 'c': {True}}",
        "{'a': 1, 'b': {'x'}, 'c': [{'y'}]}",
        "{\"a\": u\"text\", \"b\": [f'x', 2]}",
        "The prompt asks me to use <think> tags, which I skip.\n{\"a\": 1, \"b\": [2]}",
        "Sure.\n<think>\nmaybe {\"a\": 0}\n</think>\n{\"a\": 1}",
        "Here:\n```json\n{\"a\": 1}\n```\nThat is wrong; correct:\n```json\n{\"a\": 2}\n```",
        "{\"a\": 1}\n\nWait, no. {\"a\": 2, \"b\": [7]}",
        "{\"a\": 1, \"b\": [1]}\nWait, that is wrong. The count is two:\n```json\n{\"a\": 2}\n```",
        "{\"a\": 1}\nWait, I meant: {\"a\": 2}\nHmm, no. Correct: {\"a\": 3}",
        "{\"a\": 1}\nOh, my mistake.\n{\"a\": 2, \"b\": [3]}",
        "{\"a\": 1} Scratch that. {\"a\": 2}",
        "{\"a\": 1}\nActually, scratch that:\n{\"a\": 2, \"b\": [1]}",
        "{\"a\": 1}\nNever mind.\n```json\n{\"a\": 2}\n```",
        "{\"a\": 1}\nNever mind the order. {\"a\": 2}",
        "{\"a\": 1}\nScratch that idea. Also: {\"a\": 2}",
        "{\"a\": 1}\nWait, no, that is wrong.\n{\"a\": 2, \"b\": [3]}",
        "{\"a\": 1}\nOops, wrong key.\n{\"a\": 2}",
        "{\"a\": 1}\nWait, no key is wrong.\n{\"a\": 2}",
        "{\"a\": 1}\nOh, nope.\n{\"a\": 2, \"b\": [1]}",
        "{\"a\": 1}\nWait, no \u{2014} wrong value.\n{\"a\": 2}",
        "{\"a\": 1}\nHmm, no, that is it.\n{\"a\": 2}",
        "{\"a\": 1}\nWait, that is wrong. Here it is:\n{\"a\": 2, \"b\": [3]}",
        "{\"a\": 1}\nOops, my mistake. Here is your input:\n{\"a\": 2}",
        "{\"a\": 1}\nHold on, that is wrong.\n{\"a\": 2}",
        "{\"a\": 1}\nOops, I used the wrong key. Here you go!\n{\"a\": 2, \"b\": [1]}",
        "{\"a\": 1, \"b\": [1]}\n\nFinal answer:\n{\"a\": 2}",
        "{\"a\": 1, \"b\": [2]}\nOops, typo. It should be:\n{\"b\": [3]}",
        "Example input: {\"a\": 1}\nExample output: {\"a\": 2}\n\nAnswer: {\"a\": 3, \"b\": [4]}",
        "Action Input: {\"a\": 1}\nObservation: {\"a\": 2}\nThought: I now know the final answer\nFinal Answer: {\"a\": 3, \"b\": [5]}",
        "{\"a\": 1, \"b\": [1]}\n{\"a\": 2}\n\nFinal answer:\n{\"a\": 3}",
        "Old answer: {\"a\": 1}\nNew answer: {\"a\": 2, \"b\": [6]}",
        "{\"a\": 1}\nCorrection:\n{\"a\": 2, \"b\": [3]}",
        "{\"a\": 1}\n**Corrected JSON:**\n```json\n{\"a\": 2}\n```",
        "{\"a\": 1}\n\nFixed JSON:\n<json>{\"a\": 2, \"b\": [1]}</json>",
        "{\"a\": 1}\n\nHere is the correct one: {\"a\": 2}",
        "{\"a\": 1}\n\nCorrection: none needed.\n\nHere is a second example instead:\n{\"a\": 5}",
        "{\"a\": 1, \"b\": [1]}\nOops, wrong key, here it is:\n{\"a\": 2}",
        "{\"a\": 1}\nWait, that's not right.\n{\"a\": 2, \"b\": [3]}",
        "{\"a\": 1}\nSorry about that! Here it is:\n{\"a\": 2}",
        "{\"a\": 1}\nHold on a second, that is wrong.\n{\"a\": 2}",
        "{\"a\": 1}\nSorry, I messed up. Here it is:\n{\"a\": 2, \"b\": []}",
        "{\"a\": 1}\nWait, that's not right.",
        "{\"a\": 1}\n\n## Final answer\n\n{\"a\": 2, \"b\": [3]}",
        "{\"a\": 1}\n# Oops, typo\n{\"a\": 2}",
        "{\"a\": 1}\n// Final answer\n{\"a\": 2}",
        "## Step 1\n{\"a\": 1}\n\n## Step 2\n{\"a\": 2}",
        "{\"a\": 1}\n# the next line is wrong on purpose\n{\"a\": 2}",
        "[1, 2]\n# Final answer\n[3]",
        "```json\n{\"a\": 1, \"b\": [1]}\n```\n\n**Fixed JSON:**\n```json\n{\"a\": 2, \"b\": [1]}\n```",
        "Created:\n```json\n{\"a\": 1}\n```\nUpdated:\n```json\n{\"a\": 2}\n```",
        "Incorrect:\n{\"a\": 1}\nCorrect:\n{\"a\": 2, \"b\": [1]}",
        "**Wrong:**\n```json\n{\"a\": 1}\n```\n**Right:**\n```json\n{\"a\": 2}\n```",
    ] {
        every_split::<Value>(text);
        every_split::<Vec<Value>>(text);
        every_split::<BTreeMap<String, Value>>(text);
        every_split::<AB>(text);
    }
}

/// A value labelled no answer, then the answer (see
/// `a_value_labelled_no_answer_gives_way_to_the_answer` in tests/trust.rs):
/// the stream follows the decode at every split, the view changing once
/// the answer's value starts; after a value labelled so with no answer
/// after it, the stream stays on it.
#[test]
fn a_value_labelled_no_answer_every_split() {
    for text in [
        "Input: {\"a\": 1}\nOutput: {\"a\": 2, \"b\": [3]}",
        "Schema:\n```json\n{\"a\": 0}\n```\nOutput:\n```json\n{\"a\": 4}\n```\nDone.",
        "Example: {\"a\": 1}\n\nThe result, as asked:\n{\"a\": 2}",
        "Given the input {\"a\": 1}, the output is {\"a\": 2}.",
        "Before: {\"a\": 1, \"b\": [1]}\nAfter: {'a': 2, b: [4,]}",
        "Example: {\"a\": 1}\n\nThat is the shape; the values vary [1].",
        "Input: {\"a\": 1}\nAnswer: [2]",
        "**Input:**\n\n```json\n{\"a\": 1}\n```\n\n**Output:**\n\n```json\n{\"a\": 2}\n```",
        "**Example**\n\n{\"a\": 1}\n\n**Answer**\n\n{\"a\": 2}",
        "Format:\n{\"a\": 0}\n\nThe expected output would be:\n{\"a\": 1}",
    ] {
        every_split::<Value>(text);
        every_split::<Vec<Value>>(text);
        every_split::<BTreeMap<String, Value>>(text);
        every_split::<AB>(text);
    }
}

/// After a whole read that fails, a `{` in prose right after a quotation's
/// opening quote is a bracket named once the same quote follows it (`"{"`),
/// which a decode leaves out: the stream went live on it and showed `{}`
/// where a decode gave the error.
#[test]
fn a_bracket_named_in_quotes_after_a_failed_read_every_split() {
    for text in [
        "{\"a\": 1, 2} n:\"ext \"{\"b\": 3}",
        "{\"a\": 1, 2} say \"{\" to open",
    ] {
        every_split::<Value>(text);
    }
}

/// A fence closed on a value cut off, then words or a second fence: the
/// view is the cut value, never the words after the fence (see
/// `a_fence_closed_on_a_cut_value_ends_it` in tests/trust.rs).
#[test]
fn a_fence_closed_on_a_cut_value_every_split() {
    for text in [
        "```json\n{\"v\": 1, \"w\":\n```\nDone.",
        "```json\n{\"v\": 1, \"w\":\n```\nThat got cut off, here it is again:\n```json\n{\"v\": 1, \"w\": 2}\n```",
        "Here:\n```json\n[1, 2, 3\n```\nDone.",
        "```json\n{\"a\": [1,\n  ```\nok",
    ] {
        every_split::<Value>(text);
        every_split::<BTreeMap<String, Value>>(text);
    }
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct AB {
    a: u32,
    #[serde(default)]
    b: Vec<u32>,
}
