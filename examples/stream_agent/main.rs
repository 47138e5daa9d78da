//! Replays recorded provider streams (server-sent events) the way an agent
//! reads them: each tool call's arguments, and the JSON a model writes in
//! its prose, go to their own `StreamDecoder`, and the typed view is printed
//! whenever a fragment changes it. No network: it reads a file.
//!
//! ```text
//! cargo run --example stream_agent                      # the three fixtures
//! cargo run --example stream_agent -- path/to/stream.sse
//! ```
//!
//! It reads Anthropic Messages streams (one decoder per content block), and
//! OpenAI Chat Completions (one per tool call index) and Responses streams
//! (one per function call item).

use std::error::Error;
use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use serde_llm::{Partial, StreamDecoder, View};

mod sse;

use sse::{Event, Reader};

// The tools' arguments, and the plan the model writes in a fence.

#[derive(Debug, Deserialize, Partial)]
#[allow(dead_code)] // the fields are read through Debug
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

#[derive(Debug, Clone, PartialEq, Deserialize, Partial)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Deserialize, Partial)]
#[allow(dead_code)]
struct GetWeather {
    #[llm(partial)]
    location: String,
    unit: Unit,
    days: u32,
}

#[derive(Debug, Deserialize, Partial)]
#[allow(dead_code)]
struct Plan {
    #[llm(partial)]
    trip: String,
    travelers: u32,
    budget_eur: f64,
    #[llm(partial)]
    steps: Vec<String>,
}

/// A decoder for what the stream named `name` holds: the prose of a text
/// block, or a tool's arguments.
fn decoder_for(name: &str) -> Box<dyn Call> {
    match name {
        "text" => Box::new(StreamDecoder::<Plan>::new()),
        "search_flights" => Box::new(StreamDecoder::<SearchFlights>::new()),
        "get_weather" => Box::new(StreamDecoder::<GetWeather>::new()),
        _ => Box::new(StreamDecoder::<Value>::new()),
    }
}

/// A `StreamDecoder` of any type, behind one interface.
trait Call {
    /// Adds a fragment; the typed view if it changed.
    fn feed(&mut self, fragment: &str) -> serde_llm::Result<Option<String>>;
    /// The finished value.
    fn done(self: Box<Self>) -> serde_llm::Result<String>;
}

impl<T> Call for StreamDecoder<T>
where
    T: Partial + DeserializeOwned + Debug,
    T::View: DeserializeOwned + View + Clone + PartialEq + Debug,
{
    fn feed(&mut self, fragment: &str) -> serde_llm::Result<Option<String>> {
        let before = self.view().clone();
        self.push(fragment)?;
        Ok(match self.view() {
            Some(view) if self.view() != &before => Some(format!("{view:?}")),
            _ => None,
        })
    }

    fn done(self: Box<Self>) -> serde_llm::Result<String> {
        Ok(format!("{:?}", self.finish()?))
    }
}

/// What one event means for the decoders.
enum Step {
    /// A stream starts: its key, and `text` or the tool's name.
    Open(String, String),
    /// A fragment of the stream with this key.
    Piece(String, String),
}

/// The steps of one event of any of the three providers.
fn route(event: &Event) -> Result<Vec<Step>, serde_json::Error> {
    let v: Value = serde_json::from_str(&event.data)?;
    let s = |pointer: &str| v.pointer(pointer).and_then(Value::as_str).unwrap_or("");
    let block = || format!("block {}", v["index"]);
    Ok(match event.name.as_str() {
        // Anthropic Messages: content blocks by index.
        "content_block_start" if s("/content_block/type") == "text" => {
            vec![Step::Open(block(), "text".into())]
        }
        "content_block_start" => vec![Step::Open(block(), s("/content_block/name").into())],
        "content_block_delta" => {
            let piece = match s("/delta/type") {
                "text_delta" => s("/delta/text"),
                _ => s("/delta/partial_json"),
            };
            vec![Step::Piece(block(), piece.into())]
        }
        // OpenAI Responses: function call items by id.
        "response.output_item.added" if s("/item/type") == "function_call" => {
            vec![Step::Open(s("/item/id").into(), s("/item/name").into())]
        }
        "response.function_call_arguments.delta" => {
            vec![Step::Piece(s("/item_id").into(), s("/delta").into())]
        }
        // OpenAI Chat Completions (unnamed events): tool calls by index,
        // the first chunk of each with its name.
        "message" if s("/object") == "chat.completion.chunk" => {
            let calls = v
                .pointer("/choices/0/delta/tool_calls")
                .and_then(Value::as_array);
            let mut steps = Vec::new();
            for call in calls.into_iter().flatten() {
                let key = format!("call {}", call["index"]);
                if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                    steps.push(Step::Open(key.clone(), name.into()));
                }
                if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
                    steps.push(Step::Piece(key, args.into()));
                }
            }
            steps
        }
        _ => Vec::new(),
    })
}

/// Replays the stream in the file at `path`, read in small chunks as it
/// would come off a socket.
fn replay(path: &str) -> Result<(), Box<dyn Error>> {
    println!("== {path}");
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let mut reader = Reader::default();
    let mut calls: Vec<(String, String, Box<dyn Call>)> = Vec::new();
    'read: for chunk in bytes.chunks(64) {
        for event in reader.feed(chunk) {
            if event.data == "[DONE]" {
                break 'read;
            }
            for step in route(&event)? {
                match step {
                    Step::Open(key, name) => {
                        println!("[{key}] {name}");
                        let call = decoder_for(&name);
                        calls.push((key, name, call));
                    }
                    Step::Piece(key, piece) => {
                        let (_, _, call) = calls
                            .iter_mut()
                            .find(|(k, _, _)| *k == key)
                            .ok_or_else(|| format!("a fragment for {key} before it started"))?;
                        if let Some(view) = call.feed(&piece)? {
                            println!("[{key}] {view}");
                        }
                    }
                }
            }
        }
    }
    for (key, name, call) in calls {
        println!("[{key}] {name} finished: {}", call.done()?);
    }
    println!();
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let paths: Vec<String> = match std::env::args().nth(1) {
        Some(path) => vec![path],
        None => ["anthropic_messages", "openai_chat", "openai_responses"]
            .iter()
            .map(|name| {
                format!(
                    "{}/tests/fixtures/sse/{name}.sse",
                    env!("CARGO_MANIFEST_DIR")
                )
            })
            .collect(),
    };
    for path in &paths {
        replay(path)?;
    }
    Ok(())
}
