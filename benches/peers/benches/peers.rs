//! serde_llm beside the Rust crates a user would pick instead, in one
//! criterion run.
//!
//! The inputs are generated from a fixed seed exactly as `benches/decode.rs`
//! generates them (the same records, the same damage), at about 1 MB and
//! about 10 MB of valid JSON (the record count scaled):
//!
//! - `valid`: the valid document, compact, `{"records":[...]}`;
//! - `messy`: the same records as a model's reply: prose, a ```` ```json ````
//!   fence, one record per line, every 100th record damaged (an unquoted key,
//!   Python `True`/`False`, a missing comma, single quotes, trailing commas),
//!   the closing fence and a sentence;
//! - `truncated`: the valid document pretty-printed
//!   (`serde_json::to_string_pretty`) with its last 6 bytes, `\n  ]\n}`,
//!   cut off: the text ends with the last record's closing `}`, as a reply
//!   cut off by a token limit right after a complete record. The intended
//!   value is every record.
//!
//! Each benchmark `<size>/<contender>/<input>` decodes one input whole:
//!
//! - `serde_json_doc`: `serde_json::from_str::<Doc>` (valid only; the
//!   baseline);
//! - `serde_json_value`: `serde_json::from_str::<Value>` (valid only; the
//!   reference for the untyped contenders);
//! - `llm_typed`: `serde_llm::from_llm_str::<Doc>`; on `truncated` into a
//!   `Doc` whose `records` field is marked
//!   `#[serde(default, with = "serde_llm::partial")]`, as a user expecting
//!   cut-off replies writes it (a plain `Doc` is a `Truncated` error there,
//!   by design);
//! - `llm_value`: `serde_llm::from_llm_str::<serde_json::Value>`;
//! - `llm_repair`: `serde_llm::repair`, then `serde_json::from_str::<Value>`
//!   of its text;
//! - `llm_json`: `llm_json::loads` (default options);
//! - `jsonrepair`: `jsonrepair::loads` (Latias94's crate, default options);
//! - `jsonrepair_rs`: `jsonrepair_rs::jsonrepair_value`;
//! - `json_partial`: `json_partial::jsonish::parse` (default options), then
//!   `jsonish_to_serde` to get a `serde_json::Value`;
//! - `jiter`: `jiter::JsonValue::parse_with_config` (valid: `PartialMode::Off`;
//!   truncated: `PartialMode::TrailingStrings`); jiter reads JSON only, so it
//!   has no `messy` benchmark, and it builds its own `JsonValue`.
//!
//! Before timing, every contender's output on every input is checked once
//! against the intended value (as a `Doc` for the typed decode, as a
//! `serde_json::Value` for the others), and the verdicts are printed as a
//! table on stderr. A contender that returns a wrong value is still timed,
//! and marked "wrong" in the table; one that returns an error is not timed.
//! Results are in `README.md` beside this crate's `Cargo.toml`.

use std::borrow::Cow;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, BenchmarkId, Criterion, SamplingMode, Throughput};
use jiter::{JsonValue, PartialMode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Doc {
    records: Vec<Record>,
}

/// `Doc` as a user who expects cut-off replies writes it: the list may be
/// cut off at the end, and then holds its complete records.
#[derive(Debug, PartialEq, Deserialize)]
struct CutDoc {
    #[serde(default, with = "serde_llm::partial")]
    records: Vec<Record>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Record {
    id: u64,
    name: String,
    email: String,
    active: bool,
    score: f64,
    balance: i64,
    tags: Vec<String>,
    address: Address,
    note: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Address {
    street: String,
    city: String,
    zip: String,
}

// The generator, as in `benches/decode.rs` (there the types also derive
// `serde_llm::Partial`, which changes nothing here).

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

const WORDS: &[&str] = &[
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
];

fn record(rng: &mut Rng, id: u64) -> Record {
    let first = rng.pick(WORDS);
    let last = rng.pick(WORDS);
    Record {
        id,
        name: format!("{first} {last}"),
        email: format!("{first}.{last}@example.com"),
        active: rng.next().is_multiple_of(2),
        score: (rng.next() % 100_000) as f64 / 1000.0,
        balance: (rng.next() % 2_000_000) as i64 - 1_000_000,
        tags: (0..rng.next() % 4)
            .map(|_| rng.pick(WORDS).to_owned())
            .collect(),
        address: Address {
            street: format!("{} {} Street", rng.next() % 999, rng.pick(WORDS)),
            city: rng.pick(WORDS).to_owned(),
            zip: format!("{:05}", rng.next() % 100_000),
        },
        note: rng.next().is_multiple_of(3).then(|| {
            format!(
                "Called on {}; said \"call back\".\nFollow up.",
                rng.pick(WORDS)
            )
        }),
    }
}

/// The valid document (about `size` bytes) and a messy reply holding the
/// same records. `documents(1_000_000)` is `benches/decode.rs`'s
/// `documents()`; a larger size gives the same records and more of them.
fn documents(size: usize) -> (Doc, String, String) {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut records = Vec::new();
    let mut valid = String::from("{\"records\":[");
    while valid.len() < size {
        let r = record(&mut rng, records.len() as u64);
        if !records.is_empty() {
            valid.push(',');
        }
        valid.push_str(&serde_json::to_string(&r).unwrap());
        records.push(r);
    }
    valid.push_str("]}");

    // The messy reply: prose, a fence, and every 100th record damaged in one
    // of the ways models damage JSON.
    let mut messy =
        String::from("Sure! Here are the records you asked for:\n\n```json\n{\"records\": [\n");
    for (i, r) in records.iter().enumerate() {
        let mut text = serde_json::to_string(r).unwrap();
        if i % 100 == 50 {
            text = match (i / 100) % 5 {
                0 => text.replacen("\"name\":", "name:", 1),
                1 => text
                    .replacen("\"active\":true", "\"active\":True", 1)
                    .replacen("\"active\":false", "\"active\":False", 1),
                2 => text.replacen(",\"email\"", " \"email\"", 1),
                3 => text.replacen("\"city\":\"", "\"city\":'", 1).replacen(
                    "\",\"zip\"",
                    "',\"zip\"",
                    1,
                ),
                _ => text.replacen("]", ",]", 1).replacen("}}", "},}", 1),
            };
        }
        messy.push_str(&text);
        messy.push_str(if i + 1 < records.len() { ",\n" } else { "\n" });
    }
    messy.push_str("]}\n```\n\nLet me know if you need anything else!");
    (Doc { records }, valid, messy)
}

/// What the pretty-printed document loses when it is cut off: the closer of
/// the list and of the root, each on its own line.
const CUT: &str = "\n  ]\n}";

/// The valid document pretty-printed and cut off right after its last
/// record's closing brace.
fn truncated(doc: &Doc) -> String {
    let mut text = serde_json::to_string_pretty(doc).unwrap();
    assert!(text.ends_with(CUT), "{:?}", &text[text.len() - 20..]);
    text.truncate(text.len() - CUT.len());
    assert!(text.ends_with("\n    }"));
    text
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Input {
    Valid,
    Messy,
    Truncated,
}

impl Input {
    const ALL: [Input; 3] = [Input::Valid, Input::Messy, Input::Truncated];

    fn name(self) -> &'static str {
        match self {
            Input::Valid => "valid",
            Input::Messy => "messy",
            Input::Truncated => "truncated",
        }
    }
}

/// What a contender gives, for the check.
enum Output {
    Doc(Doc),
    Value(Value),
}

/// A way to decode a reply: its name, the inputs it applies to, the timed
/// call (its result is black-boxed and dropped), and the same call's output
/// for the check.
struct Contender {
    name: &'static str,
    inputs: &'static [Input],
    run: fn(&str, Input),
    output: fn(&str, Input) -> Result<Output, String>,
}

const ALL: &[Input] = &Input::ALL;
const JSON_ONLY: &[Input] = &[Input::Valid, Input::Truncated];
const VALID_ONLY: &[Input] = &[Input::Valid];

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn llm_typed(text: &str, input: Input) -> Result<Output, String> {
    match input {
        Input::Truncated => {
            serde_llm::from_llm_str::<CutDoc>(text).map(|d| Doc { records: d.records })
        }
        _ => serde_llm::from_llm_str::<Doc>(text),
    }
    .map(Output::Doc)
    .map_err(err)
}

fn llm_repair(text: &str) -> Result<Value, String> {
    let json = serde_llm::repair(text).map_err(err)?;
    serde_json::from_str(&json).map_err(err)
}

fn jiter_mode(input: Input) -> PartialMode {
    match input {
        Input::Truncated => PartialMode::TrailingStrings,
        _ => PartialMode::Off,
    }
}

fn json_partial(text: &str) -> Result<Value, String> {
    use json_partial::jsonish;
    let v = jsonish::parse(text, jsonish::ParseOptions::default()).map_err(err)?;
    Ok(jsonish::jsonish_to_serde(&v))
}

/// jiter's value as a `serde_json::Value`, for the check only.
fn from_jiter(v: &JsonValue) -> Value {
    match v {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Bool(*b),
        JsonValue::Int(i) => Value::from(*i),
        JsonValue::Float(f) => Value::from(*f),
        JsonValue::Str(s) => Value::String(Cow::to_string(s)),
        JsonValue::Array(a) => Value::Array(a.iter().map(from_jiter).collect()),
        JsonValue::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.to_string(), from_jiter(v)))
                .collect(),
        ),
    }
}

fn contenders() -> Vec<Contender> {
    vec![
        Contender {
            name: "serde_json_doc",
            inputs: VALID_ONLY,
            run: |s, _| drop(black_box(serde_json::from_str::<Doc>(s))),
            output: |s, _| serde_json::from_str::<Doc>(s).map(Output::Doc).map_err(err),
        },
        Contender {
            name: "serde_json_value",
            inputs: VALID_ONLY,
            run: |s, _| drop(black_box(serde_json::from_str::<Value>(s))),
            output: |s, _| {
                serde_json::from_str::<Value>(s)
                    .map(Output::Value)
                    .map_err(err)
            },
        },
        Contender {
            name: "llm_typed",
            inputs: ALL,
            run: |s, input| drop(black_box(llm_typed(s, input))),
            output: llm_typed,
        },
        Contender {
            name: "llm_value",
            inputs: ALL,
            run: |s, _| drop(black_box(serde_llm::from_llm_str::<Value>(s))),
            output: |s, _| {
                serde_llm::from_llm_str::<Value>(s)
                    .map(Output::Value)
                    .map_err(err)
            },
        },
        Contender {
            name: "llm_repair",
            inputs: ALL,
            run: |s, _| drop(black_box(llm_repair(s))),
            output: |s, _| llm_repair(s).map(Output::Value),
        },
        Contender {
            name: "llm_json",
            inputs: ALL,
            run: |s, _| drop(black_box(llm_json::loads(s, &Default::default()))),
            output: |s, _| {
                llm_json::loads(s, &Default::default())
                    .map(Output::Value)
                    .map_err(err)
            },
        },
        Contender {
            name: "jsonrepair",
            inputs: ALL,
            run: |s, _| drop(black_box(jsonrepair::loads(s, &Default::default()))),
            output: |s, _| {
                jsonrepair::loads(s, &Default::default())
                    .map(Output::Value)
                    .map_err(err)
            },
        },
        Contender {
            name: "jsonrepair_rs",
            inputs: ALL,
            run: |s, _| drop(black_box(jsonrepair_rs::jsonrepair_value(s))),
            output: |s, _| {
                jsonrepair_rs::jsonrepair_value(s)
                    .map(Output::Value)
                    .map_err(err)
            },
        },
        Contender {
            name: "json_partial",
            inputs: ALL,
            run: |s, _| drop(black_box(json_partial(s))),
            output: |s, _| json_partial(s).map(Output::Value),
        },
        Contender {
            name: "jiter",
            inputs: JSON_ONLY,
            run: |s, input| {
                drop(black_box(JsonValue::parse_with_config(
                    s.as_bytes(),
                    false,
                    jiter_mode(input),
                )))
            },
            output: |s, input| {
                JsonValue::parse_with_config(s.as_bytes(), false, jiter_mode(input))
                    .map(|v| Output::Value(from_jiter(&v)))
                    .map_err(err)
            },
        },
    ]
}

/// A check's result.
enum Verdict {
    Ok,
    Wrong(String),
    Error(String),
}

impl Verdict {
    fn timed(&self) -> bool {
        !matches!(self, Verdict::Error(_))
    }
}

/// Where two values first differ, in a few words.
fn difference(got: &Value, want: &Value) -> String {
    let (Some(got), Some(want)) = (
        got.get("records").and_then(Value::as_array),
        want.get("records").and_then(Value::as_array),
    ) else {
        let shown = got.to_string();
        let shown: String = shown.chars().take(60).collect();
        return format!("not {{\"records\": [...]}}: {shown}");
    };
    if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
        let (g, w) = (&got[i], &want[i]);
        let key = w
            .as_object()
            .and_then(|w| w.iter().find(|(k, v)| g.get(k.as_str()) != Some(v)))
            .map_or("?".to_string(), |(k, v)| {
                format!("{k}: {} for {v}", g.get(k.as_str()).unwrap_or(&Value::Null))
            });
        let differ: Vec<usize> = (0..got.len().min(want.len()))
            .filter(|&i| got[i] != want[i])
            .collect();
        let mut at: Vec<String> = differ.iter().take(4).map(usize::to_string).collect();
        if differ.len() > 4 {
            at.push("…".to_string());
        }
        return format!(
            "{} of {} records differ ({}); record {i}: {key}",
            differ.len(),
            want.len(),
            at.join(", ")
        );
    }
    format!("{} records, not {}", got.len(), want.len())
}

fn verdict(out: Result<Output, String>, doc: &Doc, value: &Value) -> Verdict {
    match out {
        Err(e) => Verdict::Error(e.chars().take(80).collect()),
        Ok(Output::Doc(d)) if &d == doc => Verdict::Ok,
        Ok(Output::Doc(d)) => Verdict::Wrong(difference(&serde_json::to_value(d).unwrap(), value)),
        Ok(Output::Value(v)) if &v == value => Verdict::Ok,
        Ok(Output::Value(v)) => Verdict::Wrong(difference(&v, value)),
    }
}

/// The inputs of one size.
struct Inputs {
    label: &'static str,
    doc: Doc,
    texts: [String; 3],
}

fn inputs(label: &'static str, size: usize) -> Inputs {
    let (doc, valid, messy) = documents(size);
    let cut = truncated(&doc);
    Inputs {
        label,
        doc,
        texts: [valid, messy, cut],
    }
}

/// Checks every contender on every input once, prints the verdicts, and
/// returns which pairs to time.
fn check(inputs: &Inputs, contenders: &[Contender]) -> Vec<(usize, Input)> {
    let value = serde_json::to_value(&inputs.doc).unwrap();
    // A plain `Doc` refuses a cut-off list, as the partial policy says.
    let plain = serde_llm::from_llm_str::<Doc>(&inputs.texts[2]);
    assert!(plain.is_err(), "a plain Doc took the cut-off reply");
    eprintln!(
        "\n{}: {} records; valid {} bytes, messy {} bytes, truncated {} bytes",
        inputs.label,
        inputs.doc.records.len(),
        inputs.texts[0].len(),
        inputs.texts[1].len(),
        inputs.texts[2].len()
    );
    eprintln!("| input | contender | verdict |");
    eprintln!("| --- | --- | --- |");
    eprintln!(
        "| truncated | llm_typed, plain `Doc` (not timed) | error, by design: {} |",
        plain.unwrap_err()
    );
    let mut timed = Vec::new();
    for input in Input::ALL {
        let text = &inputs.texts[input as usize];
        for (i, c) in contenders.iter().enumerate() {
            if !c.inputs.contains(&input) {
                continue;
            }
            let v = verdict((c.output)(text, input), &inputs.doc, &value);
            let shown = match &v {
                Verdict::Ok => "ok".to_string(),
                Verdict::Wrong(why) => format!("**wrong**: {why}"),
                Verdict::Error(e) => format!("**error** (not timed): {e}"),
            };
            eprintln!("| {} | {} | {} |", input.name(), c.name, shown);
            if v.timed() {
                timed.push((i, input));
            }
        }
    }
    eprintln!();
    timed
}

/// Not timed: what each contender makes of the same pretty-printed text cut
/// inside the last record (3 bytes into its `email` string), the usual
/// shape of a reply cut off by a token limit. The typed decode should give
/// the complete records; an untyped value may keep the cut record's
/// members so far (serde_llm's untyped policy), so it is described, not
/// judged.
fn check_mid_record(inputs: &Inputs, contenders: &[Contender]) {
    let text = &inputs.texts[2];
    let at = text.rfind("\"email\": \"").unwrap() + "\"email\": \"".len() + 3;
    let text = &text[..at];
    let n = inputs.doc.records.len();
    let want = serde_json::to_value(&inputs.doc).unwrap();
    let want = want["records"].as_array().unwrap();
    eprintln!(
        "{}: cut inside the last record, after {:?} (not timed)",
        inputs.label,
        &text[text.len() - 30..]
    );
    eprintln!("| contender | gives |");
    eprintln!("| --- | --- |");
    for c in contenders {
        if !c.inputs.contains(&Input::Truncated) {
            continue;
        }
        let shown = match (c.output)(text, Input::Truncated) {
            Err(e) => format!("error: {}", e.chars().take(80).collect::<String>()),
            Ok(out) => {
                let got = match out {
                    Output::Doc(d) => serde_json::to_value(d).unwrap(),
                    Output::Value(v) => v,
                };
                match got.get("records").and_then(Value::as_array) {
                    None => format!("not {{\"records\": [...]}}: {:.60}", got.to_string()),
                    Some(got) => {
                        let same = got.iter().zip(want).take_while(|(g, w)| g == w).count();
                        let mut s = format!("{same} of the {} complete records", n - 1);
                        if same == n - 1 && got.len() == n - 1 {
                            s.push_str(" (ok)");
                        }
                        if let Some(last) = got.get(same) {
                            s.push_str(&format!(
                                ", then {} more: {:.100}",
                                got.len() - same,
                                last.to_string()
                            ));
                        }
                        s
                    }
                }
            }
        };
        eprintln!("| {} | {} |", c.name, shown);
    }
    eprintln!();
}

fn bench_size(
    c: &mut Criterion,
    inputs: &Inputs,
    configure: fn(&mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>),
) {
    let contenders = contenders();
    let timed = check(inputs, &contenders);
    check_mid_record(inputs, &contenders);
    let mut group = c.benchmark_group(inputs.label);
    configure(&mut group);
    for (i, input) in timed {
        let text = &inputs.texts[input as usize];
        let contender = &contenders[i];
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(contender.name, input.name()),
            text.as_str(),
            |b, s| b.iter(|| (contender.run)(black_box(s), input)),
        );
    }
    group.finish();
}

fn peers(c: &mut Criterion) {
    let small = inputs("1mb", 1_000_000);
    bench_size(c, &small, |g| {
        g.sample_size(20)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
    });
    drop(small);
    let large = inputs("10mb", 10_000_000);
    bench_size(c, &large, |g| {
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(1))
            .measurement_time(Duration::from_secs(3));
    });
}

criterion_group!(benches, peers);

/// `PEERS_ONCE=<size>/<contender>/<input>` (`1mb/llm_value/messy`) runs one
/// contender on one input and exits, for a profiler or for counting its
/// instructions (`valgrind --tool=callgrind`), which do not drift as wall
/// time does; `PEERS_ONCE=<size>/none` only builds the inputs, to subtract.
/// `PEERS_TIMES=n` runs it n times. The input `messy-fence` is the messy
/// reply without the prose around its fence. Without `PEERS_ONCE`, criterion runs as
/// usual.
fn main() {
    if let Ok(path) = std::env::var("PEERS_ONCE") {
        let times: usize = std::env::var("PEERS_TIMES").map_or(1, |n| n.parse().unwrap());
        let parts: Vec<&str> = path.split('/').collect();
        let size = match parts[0] {
            "1mb" => 1_000_000,
            "10mb" => 10_000_000,
            other => panic!("PEERS_ONCE: no size {other:?} (1mb, 10mb)"),
        };
        let inputs = inputs("once", size);
        if parts[1..] == ["none"] {
            return;
        }
        let [_, name, input] = parts[..] else {
            panic!("PEERS_ONCE: <size>/<contender>/<input> or <size>/none, not {path:?}")
        };
        // `messy-fence`: the messy reply without the prose around its
        // fence, to see what the prose costs.
        let (input, fence_only) = match input.strip_suffix("-fence") {
            Some("messy") => (Input::Messy, true),
            _ => (
                Input::ALL
                    .into_iter()
                    .find(|i| i.name() == input)
                    .unwrap_or_else(|| panic!("PEERS_ONCE: no input {input:?}")),
                false,
            ),
        };
        let contenders = contenders();
        let c = contenders
            .iter()
            .find(|c| c.name == name && c.inputs.contains(&input))
            .unwrap_or_else(|| panic!("PEERS_ONCE: no contender {name:?} on {}", input.name()));
        let mut text = inputs.texts[input as usize].as_str();
        if fence_only {
            let start = text.find("```json").unwrap();
            let end = text.rfind("```").unwrap() + 3;
            text = &text[start..end];
        }
        let start = Instant::now();
        for _ in 0..times {
            (c.run)(black_box(text), input);
        }
        eprintln!(
            "{path}: {:.2} ms per call",
            start.elapsed().as_secs_f64() * 1e3 / times as f64
        );
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
