//! Provider streams replayed through `StreamDecoder`: the recorded SSE streams
//! of `tests/fixtures/sse/` (Anthropic Messages, OpenAI Chat Completions,
//! OpenAI Responses), each content block, tool call or output item into its
//! own decoder. For each: the finished typed value, that it is the one-shot
//! decode of the whole text, that the deltas build the untyped view after
//! every push, and the deltas themselves against `<fixture>.deltas`.
//!
//! The `.deltas` files are snapshots: after a change to what the decoder
//! reports, rewrite them with `UPDATE_DELTAS=1 cargo test --test sse` and
//! review the diff.

#[path = "../examples/stream_agent/sse.rs"]
mod sse;

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use serde_llm::{from_llm_str, from_llm_str_partial, Delta, Partial, StreamDecoder, View};

// The argument types, as an agent would declare its tools.

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct SearchFlights {
    origin: String,
    destination: String,
    date: String,
    passengers: u32,
    max_price_eur: f64,
    #[llm(partial)]
    airlines: Vec<String>,
    #[llm(partial)]
    note: String,
}

#[derive(Clone, Copy, Debug, Deserialize, Partial, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct GetWeather {
    #[llm(partial)]
    location: String,
    unit: Unit,
    days: u32,
}

/// The plan the model writes in a fence inside its prose.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Plan {
    #[llm(partial)]
    trip: String,
    travelers: u32,
    budget_eur: f64,
    #[llm(partial)]
    steps: Vec<String>,
}

/// One value streamed in pieces: a content block, a tool call, an output
/// item.
#[derive(Debug)]
struct Stream {
    /// What the provider names it by: a content block's or a tool call's
    /// index, an item's id.
    key: String,
    /// `text`, or the tool's name.
    name: String,
    fragments: Vec<String>,
}

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/sse/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json(event: &sse::Event) -> Value {
    serde_json::from_str(&event.data).unwrap_or_else(|e| panic!("{event:?}: {e}"))
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string at {pointer} in {v}"))
}

fn stream<'s>(streams: &'s mut [Stream], key: &str) -> &'s mut Stream {
    streams
        .iter_mut()
        .find(|s| s.key == key)
        .unwrap_or_else(|| panic!("a fragment for {key} before it started"))
}

/// An Anthropic Messages stream: one stream per content block.
fn anthropic(events: &[sse::Event]) -> Vec<Stream> {
    let mut streams = Vec::new();
    let mut stopped = false;
    for ev in events {
        let v = json(ev);
        assert_eq!(v["type"].as_str(), Some(ev.name.as_str()), "{ev:?}");
        let key = v["index"].to_string();
        match ev.name.as_str() {
            "content_block_start" => {
                let block = &v["content_block"];
                let name = match str_at(block, "/type") {
                    "text" => "text",
                    "tool_use" => str_at(block, "/name"),
                    other => panic!("block type {other}"),
                };
                streams.push(Stream {
                    key,
                    name: name.into(),
                    fragments: Vec::new(),
                });
            }
            "content_block_delta" => {
                let delta = &v["delta"];
                let piece = match str_at(delta, "/type") {
                    "text_delta" => str_at(delta, "/text"),
                    "input_json_delta" => str_at(delta, "/partial_json"),
                    other => panic!("delta type {other}"),
                };
                stream(&mut streams, &key).fragments.push(piece.into());
            }
            "message_stop" => stopped = true,
            "message_start" | "ping" | "content_block_stop" | "message_delta" => {}
            other => panic!("event {other}"),
        }
    }
    assert!(stopped, "no message_stop");
    streams
}

/// An OpenAI Chat Completions stream: one stream per tool call.
fn openai_chat(events: &[sse::Event]) -> Vec<Stream> {
    let mut streams = Vec::new();
    let mut done = false;
    for ev in events {
        assert!(!done, "an event after [DONE]: {ev:?}");
        if ev.data == "[DONE]" {
            done = true;
            continue;
        }
        let v = json(ev);
        assert_eq!(str_at(&v, "/object"), "chat.completion.chunk");
        let calls = v.pointer("/choices/0/delta/tool_calls");
        for call in calls.and_then(Value::as_array).into_iter().flatten() {
            let key = call["index"].to_string();
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                streams.push(Stream {
                    key: key.clone(),
                    name: name.into(),
                    fragments: Vec::new(),
                });
            }
            let piece = str_at(call, "/function/arguments");
            stream(&mut streams, &key).fragments.push(piece.into());
        }
    }
    assert!(done, "no [DONE]");
    streams
}

/// An OpenAI Responses stream: one stream per function call item. The
/// arguments of `function_call_arguments.done` must be the deltas'.
fn openai_responses(events: &[sse::Event]) -> Vec<Stream> {
    let mut streams = Vec::new();
    let mut completed = false;
    for (n, ev) in events.iter().enumerate() {
        let v = json(ev);
        assert_eq!(v["type"].as_str(), Some(ev.name.as_str()), "{ev:?}");
        assert_eq!(v["sequence_number"], n, "{ev:?}");
        match ev.name.as_str() {
            "response.output_item.added" => {
                let item = &v["item"];
                assert_eq!(str_at(item, "/type"), "function_call");
                streams.push(Stream {
                    key: str_at(item, "/id").into(),
                    name: str_at(item, "/name").into(),
                    fragments: Vec::new(),
                });
            }
            "response.function_call_arguments.delta" => {
                let s = stream(&mut streams, str_at(&v, "/item_id"));
                s.fragments.push(str_at(&v, "/delta").into());
            }
            "response.function_call_arguments.done" => {
                let s = stream(&mut streams, str_at(&v, "/item_id"));
                assert_eq!(s.fragments.concat(), str_at(&v, "/arguments"));
            }
            "response.output_item.done" => {
                let s = stream(&mut streams, str_at(&v, "/item/id"));
                assert_eq!(s.fragments.concat(), str_at(&v, "/item/arguments"));
            }
            "response.completed" => completed = true,
            "response.created" | "response.in_progress" => {}
            other => panic!("event {other}"),
        }
    }
    assert!(completed, "no response.completed");
    streams
}

/// One delta as one line: its kind, its path, its value or text as JSON.
fn render(delta: &Delta) -> String {
    match delta {
        Delta::Started { path, value } => format!("Started {path} {value}"),
        Delta::Appended { path, text } => format!("Appended {path} {}", Value::from(&text[..])),
        Delta::Completed { path, value } => format!("Completed {path} {value}"),
        Delta::Reset => "Reset".into(),
    }
}

/// What a replay of one stream gives.
struct Replayed<T> {
    value: T,
    /// The fragments, concatenated.
    text: String,
    /// The untyped view at the end.
    untyped: Value,
}

/// Pushes `stream`'s fragments into a `StreamDecoder<T>`, checking after
/// every push that the typed view is the one-shot partial view of the text
/// so far and that the deltas so far build the untyped view; then that
/// `finish` is the one-shot decode of the whole text. The deltas go to
/// `log`: a `#` line for the stream, a `>` line (the fragment as JSON) for
/// each push, then one line per delta.
fn replay<T>(stream: &Stream, log: &mut String) -> Replayed<T>
where
    T: Partial + DeserializeOwned + PartialEq + Debug,
    T::View: DeserializeOwned + View + PartialEq + Debug,
{
    log.push_str(&format!("# {} {}\n", stream.key, stream.name));
    let mut dec = StreamDecoder::<T>::new();
    let mut built = Value::Null;
    let mut text = String::new();
    for fragment in &stream.fragments {
        text.push_str(fragment);
        let deltas = dec
            .push_deltas(fragment)
            .unwrap_or_else(|e| panic!("{}: push after {text:?}: {e}", stream.key));
        log.push_str(&format!("> {}\n", Value::from(&fragment[..])));
        for d in &deltas {
            log.push_str(&render(d));
            log.push('\n');
            d.apply(&mut built);
        }
        assert_eq!(Some(&built), dec.value(), "deltas after {text:?}");
        let want = from_llm_str_partial::<T>(&text).expect("the one-shot partial view");
        assert_eq!(dec.view(), &want, "view after {text:?}");
    }
    assert_eq!(dec.text(), text);
    let untyped = dec.value().expect("kept").clone();
    let value = dec.finish().expect("finish");
    let once = from_llm_str::<T>(&text).expect("the one-shot decode");
    assert_eq!(value, once, "finish and the one-shot decode of {text:?}");
    Replayed {
        value,
        text,
        untyped,
    }
}

/// Tool arguments: the fragments make valid JSON, the untyped view's value.
fn replay_args<T>(stream: &Stream, log: &mut String) -> T
where
    T: Partial + DeserializeOwned + PartialEq + Debug,
    T::View: DeserializeOwned + View + PartialEq + Debug,
{
    let r = replay::<T>(stream, log);
    let parsed: Value = serde_json::from_str(&r.text)
        .unwrap_or_else(|e| panic!("{}: {:?} is not JSON: {e}", stream.key, r.text));
    assert_eq!(r.untyped, parsed, "{}", stream.key);
    r.value
}

/// Compares `log` with `tests/fixtures/sse/<name>.deltas`, or writes it
/// there when `UPDATE_DELTAS=1` is set.
fn snapshot(name: &str, log: &str) {
    let path = format!(
        "{}/tests/fixtures/sse/{name}.deltas",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var("UPDATE_DELTAS").as_deref() == Ok("1") {
        std::fs::write(&path, log).unwrap_or_else(|e| panic!("{path}: {e}"));
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(
        want == log,
        "the deltas differ from {path} (rewrite it with UPDATE_DELTAS=1 and review the diff):\n{}",
        first_difference(&want, log)
    );
}

fn first_difference(want: &str, got: &str) -> String {
    let (mut w, mut g) = (want.lines(), got.lines());
    for n in 1.. {
        match (w.next(), g.next()) {
            (Some(a), Some(b)) if a == b => {}
            (None, None) => break,
            (a, b) => return format!("line {n}:\n  file: {a:?}\n  now:  {b:?}"),
        }
    }
    String::new()
}

#[test]
fn anthropic_messages() {
    let streams = anthropic(&sse::events(&fixture("anthropic_messages.sse")));
    let names: Vec<_> = streams.iter().map(|s| (&s.key[..], &s.name[..])).collect();
    assert_eq!(names, [("0", "text"), ("1", "search_flights")]);
    let mut log = String::new();

    // The text block: prose, a fence holding the plan, prose.
    let plan = replay::<Plan>(&streams[0], &mut log);
    assert_eq!(
        plan.value,
        Plan {
            trip: "Paris → Montréal".into(),
            travelers: 2,
            budget_eur: 1300.0,
            steps: vec![
                "Search CDG → YUL on 14 March".into(),
                "Compare fares under €1,300".into(),
                "Hold the \"best\" option".into(),
            ],
        }
    );
    assert!(plan.text.starts_with("I'll look for flights") && plan.text.ends_with("now."));
    // The fence is the JSON there: the untyped view is its value.
    let fenced = plan.text.split("```json\n").nth(1).unwrap();
    let fenced = fenced.split("\n```").next().unwrap();
    assert_eq!(plan.untyped, serde_json::from_str::<Value>(fenced).unwrap());

    // The tool_use block: its input_json_delta fragments.
    let search = replay_args::<SearchFlights>(&streams[1], &mut log);
    assert_eq!(
        search,
        SearchFlights {
            origin: "CDG".into(),
            destination: "YUL".into(),
            date: "2025-03-14".into(),
            passengers: 2,
            max_price_eur: 1299.5,
            airlines: vec!["Air France".into(), "Air Canada".into()],
            note: "Window seat \"if possible\" — café near the gate, 東京 transfer OK 😀".into(),
        }
    );
    snapshot("anthropic_messages", &log);
}

#[test]
fn openai_chat_completions() {
    let streams = openai_chat(&sse::events(&fixture("openai_chat.sse")));
    let names: Vec<_> = streams.iter().map(|s| (&s.key[..], &s.name[..])).collect();
    assert_eq!(names, [("0", "get_weather"), ("1", "search_flights")]);
    let mut log = String::new();
    let weather = replay_args::<GetWeather>(&streams[0], &mut log);
    assert_eq!(
        weather,
        GetWeather {
            location: "Lyon, France".into(),
            unit: Unit::Celsius,
            days: 10,
        }
    );
    let search = replay_args::<SearchFlights>(&streams[1], &mut log);
    assert_eq!(
        search,
        SearchFlights {
            origin: "LYS".into(),
            destination: "HND".into(),
            date: "2025-04-01".into(),
            passengers: 1,
            max_price_eur: 980.0,
            airlines: vec!["ANA".into(), "Air France".into()],
            note: "Aisle \"if cheap\", São Paulo stop à éviter".into(),
        }
    );
    snapshot("openai_chat", &log);
}

#[test]
fn openai_responses_api() {
    let streams = openai_responses(&sse::events(&fixture("openai_responses.sse")));
    let names: Vec<_> = streams.iter().map(|s| (&s.key[..], &s.name[..])).collect();
    assert_eq!(
        names,
        [
            ("fc_67ccd3acc8748190a3f1c4b7d8f2e5a1", "get_weather"),
            ("fc_67ccd3ad0e2c8190b2c9e0f4a6d1c3b7", "get_weather"),
        ]
    );
    let mut log = String::new();
    let zurich = replay_args::<GetWeather>(&streams[0], &mut log);
    assert_eq!(
        zurich,
        GetWeather {
            location: "Zürich, Schweiz".into(),
            unit: Unit::Celsius,
            days: 2,
        }
    );
    let reykjavik = replay_args::<GetWeather>(&streams[1], &mut log);
    assert_eq!(
        reykjavik,
        GetWeather {
            location: "Reykjavík, Ísland".into(),
            unit: Unit::Fahrenheit,
            days: 14,
        }
    );
    snapshot("openai_responses", &log);
}

/// The reader: `\n` or `\r\n`, `data:` with or without its space, data
/// lines joined by `"\n"`, comments, and chunks cut anywhere.
#[test]
fn reader_follows_the_format() {
    let stream = "data:{\"a\":\r\ndata: 1}\r\n\r\n: a comment\n\nevent: ping\ndata\n\nevent: x\nid: 7\ndata:  two spaces\n\nevent: lost\n\ndata: [DONE]\n\ndata: no blank line after";
    let want = [
        ("message", "{\"a\":\n1}"),
        ("ping", ""),
        ("x", " two spaces"),
        ("message", "[DONE]"),
    ];
    let got = sse::events(stream.as_bytes());
    let got: Vec<_> = got.iter().map(|e| (&e.name[..], &e.data[..])).collect();
    assert_eq!(got, want);
}

/// Each fixture read in chunks of every size from 1 to 9 bytes (cutting
/// lines and UTF-8 characters), and with `\r\n` line ends, gives the same
/// events as read whole.
#[test]
fn fixtures_read_the_same_in_chunks_and_with_crlf() {
    for name in [
        "anthropic_messages.sse",
        "openai_chat.sse",
        "openai_responses.sse",
    ] {
        let bytes = fixture(name);
        let whole = sse::events(&bytes);
        assert!(whole.len() > 10, "{name}");
        for size in 1..10 {
            let mut reader = sse::Reader::default();
            let chunked: Vec<_> = bytes.chunks(size).flat_map(|c| reader.feed(c)).collect();
            assert_eq!(chunked, whole, "{name} in chunks of {size}");
        }
        let crlf = String::from_utf8(bytes).unwrap().replace('\n', "\r\n");
        assert_eq!(sse::events(crlf.as_bytes()), whole, "{name} with CRLF");
    }
}
