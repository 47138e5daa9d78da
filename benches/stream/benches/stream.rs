//! The streaming decoder beside the naive ways, in one criterion run.
//!
//! The input is a reply of about 100 KB as a model writes it: a sentence of
//! prose, a ```` ```json ```` fence holding `{"title", "steps": [...],
//! "tags"}` with about 1,000 steps whose texts vary (escapes such as `\"`
//! and `\u00e9`, multi-byte UTF-8), the closing fence and a sentence. It is
//! generated from a fixed seed, so every run measures the same bytes, and
//! it arrives in chunks of 16 bytes (split anywhere, even inside a UTF-8
//! character).
//!
//! - `stream/a_push_deltas`: a `StreamDecoder` fed every chunk with
//!   `push_deltas` (the untyped view and the deltas kept), the deltas of
//!   each push consumed, then `finish()`;
//! - `stream/b_push_view`: a `StreamDecoder` fed every chunk with `push`
//!   (only the typed view kept), the typed view read after every push, then
//!   `finish()`;
//! - `stream/c_naive_prefixes`: `from_llm_str_partial` on the whole text so
//!   far at every chunk boundary (as a UI that re-decodes its buffer would);
//! - `stream/d_once`: one `from_llm_str` of the whole reply;
//! - `stream/e_jiter_prefixes`: jiter's partial mode at every chunk boundary
//!   of the JSON inside the fence;
//! - `stream/f_jsonmodem_events`: jsonmodem's incremental parser fed the
//!   JSON inside the fence chunk by chunk, its events applied to a value
//!   after every chunk;
//! - `stream/f2_jsonmodem_events_no_surrogate`: the same on that JSON with
//!   its surrogate pair escape written as the character (jsonmodem rejects
//!   the escape, so (f) stops early);
//! - `stream/g_deser_incomplete_prefixes`: deser-incomplete (serde_json
//!   made tolerant of a cut end) into a typed doc at every chunk boundary of
//!   the JSON inside the fence.
//!
//! Each peer's final output is checked before timing; a peer whose output is
//! not the reply's value is timed under a name ending in `_wrong`.
//!
//! Results and ratios are in `README.md` beside this crate's `Cargo.toml`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, Criterion, SamplingMode, Throughput};
use jiter::{JsonValue, PartialMode};
use jsonmodem::{ParseEvent, ParserOptions, PathComponent, StreamingParser};
use serde_llm::{Partial, StreamDecoder};

#[derive(Debug, PartialEq, serde::Deserialize, Partial)]
struct Step {
    n: u32,
    #[llm(partial)]
    text: String,
}

#[derive(Debug, PartialEq, serde::Deserialize, Partial)]
struct Doc {
    title: String,
    #[llm(partial)]
    steps: Vec<Step>,
    tags: Vec<String>,
}

/// `Doc`'s JSON Schema, as a runtime schema decoder.
fn doc_schema() -> serde_llm::SchemaDecoder {
    serde_llm::SchemaDecoder::new(&serde_json::json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "steps": {
                "type": "array",
                "x-partial": true,
                "items": {
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer", "minimum": 0},
                        "text": {"type": "string", "x-partial": true}
                    },
                    "required": ["n", "text"]
                }
            },
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["title", "steps", "tags"]
    }))
    .unwrap()
}

/// The size of every chunk the reply arrives in.
const CHUNK: usize = 16;

/// About this many bytes of reply.
const TARGET_LEN: usize = 100_000;

/// A small deterministic generator (xorshift), so the data needs no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// Pieces of step text, as they stand in the JSON (already escaped): plain
/// words, escaped quotes and backslashes, `\u` escapes (one a surrogate
/// pair), a newline escape, and raw multi-byte UTF-8 (2, 3 and 4 bytes).
const PIECES: &[&str] = &[
    "preheat the oven",
    "whisk the eggs",
    "fold in the flour",
    "let it rest",
    "stir gently",
    "season to taste",
    "add a pinch of salt",
    "bring to a boil",
    "simmer for ten minutes",
    "serve warm",
    "say \\\"when\\\"",
    "the \\\"crème\\\" layer",
    "caf\\u00e9 au lait",
    "cr\\u00e8me br\\u00fbl\\u00e9e",
    "p\\u00e2te \\u00e0 choux",
    "a \\ud83c\\udf70 slice",
    "line one\\nline two",
    "C:\\\\oven\\\\rack",
    "naïve façade",
    "jalapeño crème fraîche",
    "“smart quotes” — dash",
    "½ cup · 200 °C",
    "日本語のレシピ",
    "пирог с яблоками",
    "🍰 and 🍓",
    "Ωmega ≈ 3 µg",
];

const TAGS: &[&str] = &[
    "baking",
    "dessert",
    "caf\\u00e9",
    "crème",
    "quick",
    "\\\"classic\\\"",
    "日本",
];

/// The reply, and where the JSON inside its fence starts and ends.
fn reply() -> (String, usize, usize) {
    reply_of(TARGET_LEN)
}

/// The reply in about `target_len` bytes.
fn reply_of(target_len: usize) -> (String, usize, usize) {
    let mut rng = Rng(0x5EED_5712_EA30_0001);
    let mut text = String::from(
        "Sure! Here is the recipe as JSON, with every step spelled out so you can follow along:\n\n```json\n",
    );
    let start = text.len();
    text.push_str("{\n  \"title\": \"Cr\\u00e8me \\\"br\\u00fbl\\u00e9e\\\" — the long way\",\n  \"steps\": [\n");
    let mut n = 1;
    // Leave room for the tags, the closing fence and the last sentence.
    while text.len() < target_len - 400 {
        if n > 1 {
            text.push_str(",\n");
        }
        text.push_str(&format!("    {{\"n\": {n}, \"text\": \""));
        let pieces = 1 + rng.next() % 6;
        for i in 0..pieces {
            if i > 0 {
                text.push_str(if rng.next().is_multiple_of(3) {
                    "; "
                } else {
                    ", then "
                });
            }
            text.push_str(rng.pick(PIECES));
        }
        text.push_str(".\"}");
        n += 1;
    }
    text.push_str("\n  ],\n  \"tags\": [");
    for (i, tag) in TAGS.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        text.push('"');
        text.push_str(tag);
        text.push('"');
    }
    text.push_str("]\n}");
    let end = text.len();
    text.push_str("\n```\n\nLet me know if you would like a shorter version, or one without eggs.");
    (text, start, end)
}

/// The reply's JSON written as local models often write it: every string
/// and key in single quotes (an apostrophe inside escaped as `\'`, a `\"`
/// kept), without the fence, about 100 KB.
fn single_quoted() -> String {
    let (text, start, end) = reply();
    let mut out = String::with_capacity(end - start + 16);
    let (mut in_str, mut escaped) = (false, false);
    for c in text[start..end].chars() {
        match c {
            _ if escaped => {
                escaped = false;
                out.push(c);
            }
            '\\' if in_str => {
                escaped = true;
                out.push(c);
            }
            '"' => {
                in_str = !in_str;
                out.push('\'');
            }
            '\'' if in_str => out.push_str("\\'"),
            _ => out.push(c),
        }
    }
    out
}

/// A reasoning model's reply: a 60 KB `<think>` block (sentences with
/// `{braces}` and `[brackets]` in them), then the fenced reply, about 100 KB
/// in all.
fn reasoning() -> String {
    let mut rng = Rng(0x7411_4B00_C0DE_0002);
    let mut text = String::from("<think>\n");
    while text.len() < 60_000 {
        text.push_str(&format!(
            "Step {} says to {}; I weigh {{x}} against [y]. ",
            rng.next() % 1000,
            rng.pick(&PIECES[..10])
        ));
    }
    text.push_str("\n</think>\n");
    text.push_str(&reply_of(TARGET_LEN - text.len()).0);
    text
}

/// The chunk boundaries a reader can decode at: every 16th byte that is a
/// char boundary (the others cut a UTF-8 character; the stream holds its
/// first bytes back), and the end.
fn ends(text: &str, from: usize, to: usize) -> Vec<usize> {
    let mut ends: Vec<usize> = (from..to)
        .filter(|i| i % CHUNK == 0 && *i > from && text.is_char_boundary(*i))
        .collect();
    ends.push(to);
    ends
}

/// Checks, outside the timing, that every path measures working code.
fn check(text: &str, chunks: &[&[u8]], json: &str, json_ends: &[usize]) -> Doc {
    let once = serde_llm::from_llm_str::<Doc>(text).unwrap();
    assert_eq!(serde_json::from_str::<Doc>(json).unwrap(), once);
    assert!(once.steps.len() >= 900, "{} steps", once.steps.len());
    assert!(once.steps.iter().any(|s| s.text.contains("café")));
    assert!(once.steps.iter().any(|s| s.text.contains("\"when\"")));
    assert!(once.steps.iter().any(|s| s.text.contains('🍰')));

    // (b): the view after some pushes is the naive decode of the text so
    // far, and the final view and `finish()` are the whole decode.
    let mut dec = StreamDecoder::<Doc>::new();
    for (i, chunk) in chunks.iter().enumerate() {
        dec.push(chunk).unwrap();
        if i % 97 == 0 {
            let naive = serde_llm::from_llm_str_partial::<Doc>(dec.text()).unwrap();
            assert_eq!(dec.view(), &naive, "after push {i}");
        }
    }
    let view = dec.view().clone().expect("a view at the end");
    assert_eq!(view.title.as_deref(), Some(once.title.as_str()));
    assert_eq!(view.tags.as_ref(), Some(&once.tags));
    let steps = view.steps.expect("steps");
    assert_eq!(steps.len(), once.steps.len());
    for (v, s) in steps.iter().zip(&once.steps) {
        assert_eq!(v.n, Some(s.n));
        assert_eq!(v.text.as_deref(), Some(s.text.as_str()));
    }
    assert_eq!(dec.finish().unwrap(), once);

    // (c): the last prefix is the whole reply.
    let last = serde_llm::from_llm_str_partial::<Doc>(text)
        .unwrap()
        .unwrap();
    assert_eq!(last.steps.map(|s| s.len()), Some(once.steps.len()));

    // (e): jiter reads every prefix, and the whole JSON as the same value
    // serde_json reads.
    for &end in json_ends {
        JsonValue::parse_with_config(&json.as_bytes()[..end], false, PartialMode::TrailingStrings)
            .unwrap_or_else(|e| panic!("jiter at {end}: {e}"));
    }
    let whole = JsonValue::parse_with_config(json.as_bytes(), false, PartialMode::Off).unwrap();
    let JsonValue::Object(members) = whole else {
        panic!("not an object")
    };
    let Some((_, JsonValue::Array(steps))) = members.iter().find(|(k, _)| k == "steps") else {
        panic!("no steps")
    };
    assert_eq!(steps.len(), once.steps.len());
    once
}

/// Pushes `text` in chunks with the typed view read after each, then
/// `finish()`: (b) for any reply.
fn push_view(chunks: &[&[u8]]) -> Doc {
    let mut dec = StreamDecoder::<Doc>::new();
    for chunk in chunks {
        dec.push(black_box(chunk)).unwrap();
        black_box(shown(dec.view()));
    }
    dec.finish().unwrap()
}

/// Checks, outside the timing, that a reply of another family streams:
/// the view after some pushes is the naive decode of the text so far, and
/// `finish()` is the whole decode, which holds `want` steps.
fn check_family(name: &str, text: &str, want: usize) {
    let once = serde_llm::from_llm_str::<Doc>(text).unwrap();
    assert_eq!(once.steps.len(), want, "{name}");
    let mut dec = StreamDecoder::<Doc>::new();
    for (i, chunk) in text.as_bytes().chunks(CHUNK).enumerate() {
        dec.push(chunk).unwrap();
        if i % 97 == 0 {
            let naive = serde_llm::from_llm_str_partial::<Doc>(dec.text()).unwrap();
            assert_eq!(dec.view(), &naive, "{name}, after push {i}");
        }
    }
    assert_eq!(dec.finish().unwrap(), once, "{name}");
}

/// The doc for deser-incomplete: every field defaulted, so a prefix that
/// has not reached one still reads (its own way of showing a partial doc).
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
struct LooseStep {
    #[serde(default)]
    n: u32,
    #[serde(default)]
    text: String,
}

#[derive(Debug, Default, PartialEq, serde::Deserialize)]
struct LooseDoc {
    #[serde(default)]
    title: String,
    #[serde(default)]
    steps: Vec<LooseStep>,
    #[serde(default)]
    tags: Vec<String>,
}

/// The slot `path` names in `root`, made if it is the next element of an
/// array or a new key.
fn slot<'a>(root: &'a mut jsonmodem::Value, path: &[PathComponent]) -> &'a mut jsonmodem::Value {
    let mut at = root;
    for seg in path {
        at = match (seg, at) {
            (PathComponent::Key(k), jsonmodem::Value::Object(m)) => {
                m.entry(k.clone()).or_insert(jsonmodem::Value::Null)
            }
            (PathComponent::Index(i), jsonmodem::Value::Array(a)) => {
                if *i == a.len() {
                    a.push(jsonmodem::Value::Null);
                }
                &mut a[*i]
            }
            (seg, v) => panic!("jsonmodem path {seg:?} into {v:?}"),
        };
    }
    at
}

/// Applies one jsonmodem event to the value built so far: what a reader of
/// its events does to show the value after each chunk.
fn apply(root: &mut jsonmodem::Value, event: ParseEvent) {
    match event {
        ParseEvent::Null { path } => *slot(root, &path) = jsonmodem::Value::Null,
        ParseEvent::Boolean { path, value } => {
            *slot(root, &path) = jsonmodem::Value::Boolean(value)
        }
        ParseEvent::Number { path, value } => *slot(root, &path) = jsonmodem::Value::Number(value),
        ParseEvent::String { path, fragment, .. } => match slot(root, &path) {
            jsonmodem::Value::String(s) => s.push_str(&fragment),
            v => *v = jsonmodem::Value::String(fragment),
        },
        ParseEvent::ArrayStart { path } => *slot(root, &path) = jsonmodem::Value::Array(Vec::new()),
        ParseEvent::ObjectBegin { path } => {
            *slot(root, &path) = jsonmodem::Value::Object(Default::default())
        }
        ParseEvent::ArrayEnd { .. } | ParseEvent::ObjectEnd { .. } => {}
    }
}

/// jsonmodem fed `chunks` one by one, its events applied after each: the
/// value at the end, or the first error.
fn jsonmodem_run(chunks: &[&str]) -> Result<jsonmodem::Value, String> {
    let mut parser = StreamingParser::new(ParserOptions::default());
    let mut value = jsonmodem::Value::Null;
    for chunk in chunks {
        parser.feed(chunk);
        for event in parser.by_ref() {
            apply(&mut value, event.map_err(|e| e.to_string())?);
        }
        black_box(&value);
    }
    for event in parser.finish() {
        apply(&mut value, event.map_err(|e| e.to_string())?);
    }
    Ok(value)
}

/// A jsonmodem value as serde_json's (whole numbers as integers).
fn to_json(v: &jsonmodem::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        jsonmodem::Value::Null => J::Null,
        jsonmodem::Value::Boolean(b) => J::Bool(*b),
        jsonmodem::Value::Number(f) if f.fract() == 0.0 && f.abs() < 9e15 => J::from(*f as i64),
        jsonmodem::Value::Number(f) => J::from(*f),
        jsonmodem::Value::String(s) => J::String(s.clone()),
        jsonmodem::Value::Array(a) => J::Array(a.iter().map(to_json).collect()),
        jsonmodem::Value::Object(m) => {
            J::Object(m.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
        }
    }
}

/// Whether each peer's final output is the reply's value: jsonmodem's
/// events build the JSON's value, and deser-incomplete reads the whole JSON
/// as the doc. What is wrong is printed.
fn check_peers(json: &str, json_chunks: &[&str], once: &Doc) -> (bool, bool) {
    let want: serde_json::Value = serde_json::from_str(json).unwrap();
    let modem = match jsonmodem_run(json_chunks) {
        Ok(v) if to_json(&v) == want => true,
        Ok(v) => {
            let got = to_json(&v);
            let diff = match (got.get("steps"), want.get("steps")) {
                (Some(serde_json::Value::Array(g)), Some(serde_json::Value::Array(w))) => g
                    .iter()
                    .zip(w)
                    .find(|(g, w)| g != w)
                    .map(|(g, w)| format!("first step that differs: {g} (want {w})")),
                _ => None,
            };
            eprintln!(
                "jsonmodem: WRONG final value ({})",
                diff.unwrap_or_else(|| "outside the steps".into())
            );
            false
        }
        Err(e) => {
            eprintln!("jsonmodem: WRONG, error: {e}");
            false
        }
    };
    let incomplete = match deser_incomplete::from_json_str::<LooseDoc>(json) {
        Ok(d) => {
            let same = d.title == once.title
                && d.tags == once.tags
                && d.steps.len() == once.steps.len()
                && d.steps
                    .iter()
                    .zip(&once.steps)
                    .all(|(a, b)| a.n == b.n && a.text == b.text);
            if !same {
                eprintln!("deser-incomplete: WRONG final value");
            }
            same
        }
        Err(e) => {
            eprintln!("deser-incomplete: WRONG, error: {e}");
            false
        }
    };
    (modem, incomplete)
}

/// The JSON with its one surrogate pair escape (`\ud83c\udf70`) written
/// as the character it stands for, which jsonmodem rejects: what (f2) gives
/// it, so that it reads the whole reply.
fn surrogate_free(json: &str) -> String {
    json.replace("\\ud83c\\udf70", "\u{1f370}")
}

/// `json` in chunks of `CHUNK` bytes, each widened to a char boundary.
fn char_chunks(json: &str) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut at = 0;
    while at < json.len() {
        let mut to = (at + CHUNK).min(json.len());
        while !json.is_char_boundary(to) {
            to += 1;
        }
        chunks.push(&json[at..to]);
        at = to;
    }
    chunks
}

/// A benchmark's name, marked when the peer's output was wrong.
fn named(name: &str, right: bool) -> String {
    if right {
        name.to_string()
    } else {
        format!("{name}_wrong")
    }
}

/// How many steps a view shows.
fn shown(view: &Option<DocView>) -> usize {
    view.as_ref()
        .and_then(|v| v.steps.as_ref())
        .map_or(0, Vec::len)
}

fn stream(c: &mut Criterion) {
    let (text, json_start, json_end) = reply();
    let chunks: Vec<&[u8]> = text.as_bytes().chunks(CHUNK).collect();
    let text_ends = ends(&text, 0, text.len());
    let json = &text[json_start..json_end];
    // jiter reads JSON only: it cannot find a value in prose or a fence, so
    // it is given the JSON inside the fence, cut at the same 16-byte
    // boundaries of the reply as (c), as offsets into the JSON.
    let json_ends: Vec<usize> = ends(&text, json_start, json_end)
        .into_iter()
        .map(|e| e - json_start)
        .collect();
    let doc = check(&text, &chunks, json, &json_ends);
    // The JSON inside the fence in the chunks (e) cuts it into, for
    // jsonmodem (it takes text, so chunks end on char boundaries).
    let json_chunks: Vec<&str> = std::iter::once(0)
        .chain(json_ends.iter().copied())
        .zip(json_ends.iter().copied())
        .map(|(a, b)| &json[a..b])
        .collect();
    let (modem_right, incomplete_right) = check_peers(json, &json_chunks, &doc);
    eprintln!(
        "reply: {} bytes ({} of JSON), {} steps, {} chunks, {} prefixes for (c), {} for (e)",
        text.len(),
        json.len(),
        doc.steps.len(),
        chunks.len(),
        text_ends.len(),
        json_ends.len()
    );

    let mut group = c.benchmark_group("stream");
    group.throughput(Throughput::Bytes(text.len() as u64));

    // The linear paths: many samples, a few seconds each.
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("a_push_deltas", |b| {
        b.iter(|| {
            let mut dec = StreamDecoder::<Doc>::new();
            for chunk in &chunks {
                black_box(dec.push_deltas(black_box(chunk)).unwrap());
            }
            dec.finish().unwrap()
        })
    });
    group.bench_function("b_push_view", |b| {
        b.iter(|| {
            let mut dec = StreamDecoder::<Doc>::new();
            for chunk in &chunks {
                dec.push(black_box(chunk)).unwrap();
                black_box(shown(dec.view()));
            }
            dec.finish().unwrap()
        })
    });

    // The quadratic paths: ~6,000 decodes of up to 100 KB each iteration,
    // so the fewest samples criterion takes, one iteration each.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    group.bench_function("c_naive_prefixes", |b| {
        b.iter(|| {
            for &end in &text_ends {
                black_box(serde_llm::from_llm_str_partial::<Doc>(black_box(&text[..end])).unwrap());
            }
        })
    });

    group
        .sample_size(20)
        .sampling_mode(SamplingMode::Auto)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("d_once", |b| {
        b.iter(|| serde_llm::from_llm_str::<Doc>(black_box(&text)).unwrap())
    });

    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    group.bench_function("e_jiter_prefixes", |b| {
        b.iter(|| {
            for &end in &json_ends {
                black_box(
                    JsonValue::parse_with_config(
                        black_box(&json.as_bytes()[..end]),
                        false,
                        PartialMode::TrailingStrings,
                    )
                    .unwrap(),
                );
            }
        })
    });

    group
        .sample_size(20)
        .sampling_mode(SamplingMode::Auto)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function(named("f_jsonmodem_events", modem_right), |b| {
        b.iter(|| jsonmodem_run(black_box(&json_chunks)))
    });
    // jsonmodem over the whole reply: the surrogate pair it rejects written
    // as its character (checked to build that JSON's value).
    let modem_json = surrogate_free(json);
    let modem_chunks = char_chunks(&modem_json);
    let modem_want: serde_json::Value = serde_json::from_str(&modem_json).unwrap();
    let modem_whole = jsonmodem_run(&modem_chunks).is_ok_and(|v| to_json(&v) == modem_want);
    if !modem_whole {
        eprintln!("jsonmodem: WRONG on the JSON without its surrogate pair escape");
    }
    group.bench_function(
        named("f2_jsonmodem_events_no_surrogate", modem_whole),
        |b| b.iter(|| jsonmodem_run(black_box(&modem_chunks))),
    );

    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    group.bench_function(
        named("g_deser_incomplete_prefixes", incomplete_right),
        |b| {
            b.iter(|| {
                for &end in &json_ends {
                    black_box(
                        deser_incomplete::from_json_str::<LooseDoc>(black_box(&json[..end])).ok(),
                    );
                }
            })
        },
    );
    group.finish();

    // Two families of the issue's table at 100 KB: a single-quoted reply
    // and a reasoning block before the reply, each streamed as (b) and
    // decoded once.
    let quoted = single_quoted();
    let thinking = reasoning();
    check_family("single quotes", &quoted, doc.steps.len());
    let thought = serde_llm::from_llm_str::<Doc>(&thinking)
        .unwrap()
        .steps
        .len();
    check_family("reasoning", &thinking, thought);
    let mut group = c.benchmark_group("families");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, text) in [("single_quotes", &quoted), ("reasoning", &thinking)] {
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(CHUNK).collect();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("{name}_push_view"), |b| {
            b.iter(|| push_view(&chunks))
        });
        group.bench_function(format!("{name}_once"), |b| {
            b.iter(|| serde_llm::from_llm_str::<Doc>(black_box(text)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, stream);

/// `BENCH_ONCE=<path>` runs one path once and exits, for counting its
/// instructions (`valgrind --tool=callgrind`), which do not drift as wall
/// time does: `a` (push with deltas), `b` (push, the typed view read after
/// each), `d` (one decode), `u` (the untyped stream alone, as the Python
/// package runs it), `ud` (one decode into `serde_json::Value`), `s` and
/// `sd` (a `SchemaStream` of `Doc`'s JSON Schema, and one decode with it;
/// `snone` builds the decoder alone), `f` (jsonmodem,
/// with `fnone` to subtract), `e` (the engine alone: the resumed scanner
/// over the reply's JSON in 16-byte pieces, a view's tail after each, no
/// view built; `enone` to subtract), or `none` (only the reply built, to
/// subtract).
/// Without it, criterion runs as usual (with the checks before timing).
fn main() {
    if let Ok(path) = std::env::var("BENCH_ONCE") {
        let (text, _, _) = reply();
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(CHUNK).collect();
        match path.as_str() {
            "a" => {
                let mut dec = StreamDecoder::<Doc>::new();
                for chunk in &chunks {
                    black_box(dec.push_deltas(black_box(chunk)).unwrap());
                }
                black_box(dec.finish().unwrap());
            }
            "b" => drop(black_box(push_view(&chunks))),
            "d" => drop(black_box(
                serde_llm::from_llm_str::<Doc>(black_box(&text)).unwrap(),
            )),
            // The untyped stream alone, as the Python package runs it.
            "u" => {
                let mut dec = serde_llm::Decoder::new()
                    .stream::<serde_json::Value>()
                    .__untyped_only();
                for chunk in &chunks {
                    black_box(dec.push_deltas(black_box(chunk)).unwrap());
                }
                black_box(dec.finish().unwrap());
            }
            // jsonmodem as (f2) runs it; `fnone` only builds its text.
            modem @ ("f" | "fnone") => {
                let (text, start, end) = reply();
                let json = surrogate_free(&text[start..end]);
                let chunks = char_chunks(&json);
                if modem == "f" {
                    black_box(jsonmodem_run(black_box(&chunks)).unwrap());
                } else {
                    black_box(chunks);
                }
            }
            "ud" => drop(black_box(
                serde_llm::from_llm_str::<serde_json::Value>(black_box(&text)).unwrap(),
            )),
            // The engine alone: the reply's JSON scanned as a stream scans
            // it (16-byte pieces, a view's tail after each), no view built
            // (`enone` only cuts out the JSON).
            engine @ ("e" | "enone") => {
                let (text, start, end) = reply();
                let json = black_box(&text[start..end]);
                if engine == "e" {
                    black_box(serde_llm::__private::resumed_scan_in_pieces(json, CHUNK));
                }
            }
            // `Doc`'s JSON Schema at run time: a `SchemaStream`, its view
            // read after each push (`s`), or one decode (`sd`).
            "s" => {
                let d = doc_schema();
                let mut s = d.stream();
                for chunk in &chunks {
                    s.push(black_box(chunk)).unwrap();
                    black_box(s.view());
                }
                black_box(s.finish().unwrap());
            }
            "sd" => drop(black_box(doc_schema().decode(black_box(&text)).unwrap())),
            "snone" => drop(black_box((doc_schema(), chunks))),
            "none" => drop(black_box(chunks)),
            // The families: `q` single quotes, `r` a reasoning block; `b`
            // (push, view) or `d` (one decode) after the letter; `qnone` and
            // `rnone` only build the reply.
            family @ ("qb" | "qd" | "qnone" | "rb" | "rd" | "rnone") => {
                let text = match &family[..1] {
                    "q" => single_quoted(),
                    _ => reasoning(),
                };
                let chunks: Vec<&[u8]> = text.as_bytes().chunks(CHUNK).collect();
                match &family[1..] {
                    "b" => drop(black_box(push_view(&chunks))),
                    "d" => drop(black_box(
                        serde_llm::from_llm_str::<Doc>(black_box(&text)).unwrap(),
                    )),
                    _ => drop(black_box(chunks)),
                }
            }
            other => panic!(
                "BENCH_ONCE: no path {other:?} (a, b, d, e, enone, u, ud, s, sd, snone, f, fnone, none, qb, qd, qnone, rb, rd, rnone)"
            ),
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
