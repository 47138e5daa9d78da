//! `serde-llm`: repair what a language model replied into canonical JSON, from
//! the command line.
//!
//! ```text
//! $ echo "{name: 'Ada', tags: ['x',],}" | serde-llm repair
//! {"name":"Ada","tags":["x"]}
//! $ printf '{"a": "x", "b": [1, 2' | serde-llm stream
//! {"a":"x","b":[1]}
//! {"a":"x","b":[1,2]}
//! $ printf 'Sure:\n```json\n{"a": 1,}\n```' | serde-llm extract
//! {"a": 1,}
//! $ echo "{query: 'rust', maxResults: '5'}" | serde-llm repair --schema search.json
//! {"max_results":5,"query":"rust"}
//! ```
//!
//! `repair` prints the recovered value (`--lines`: one per input line, for
//! batches and logs; `--schema FILE`: decoded against a JSON Schema);
//! `extract` prints where in the reply it was found, as
//! written; `stream` reads its input as it arrives and prints a line each
//! time the value so far changes (or, with `--deltas`, each change itself),
//! the final value last.
//!
//! Output is plain and deterministic so that shell pipelines and other tools'
//! test harnesses can rely on it: the recovered JSON (and nothing else) on
//! stdout, diagnostics on stderr, no colours.
//!
//! Exit codes: 0 when a value was recovered (with `repair --lines`, from
//! every line), 1 when nothing is recoverable (with `--lines`, from some
//! line) or the input cannot be read, 2 on a usage error.

use std::borrow::Cow;
use std::fmt;
use std::fs;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ColorChoice, Parser, Subcommand, ValueEnum};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_llm::{Allow, Decoder, Delta, Error, ErrorKind, Fix, Report, SchemaDecoder, Utf8Text};

/// Recover the JSON value in what a language model replied.
///
/// serde-llm finds the value in a model's reply (bare, in a markdown fence, in
/// a `<json>` tag, or inside prose), repairs the usual mistakes (single quotes,
/// unquoted keys, trailing commas, comments, Python literals, ...), completes a
/// value that was cut off, and prints it as compact JSON with member order kept
/// (`repair`; `repair --lines` for a file of replies, one per line), prints
/// the part of the reply it was found in (`extract`), or prints the value as
/// it streams in, a line per change (`stream`).
///
/// Exit codes: 0 when a value was recovered (with `repair --lines`: from
/// every line); 1 when nothing is recoverable (with `--lines`: from some
/// line), or the input cannot be read; 2 on a usage error.
#[derive(Debug, Parser)]
#[command(name = "serde-llm", version, color = ColorChoice::Never)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The verbs.
#[derive(Debug, Subcommand)]
enum Command {
    // No doc comments here: clap would take them over the `about` of the args.
    Repair(RepairArgs),
    Extract(ExtractArgs),
    Stream(StreamArgs),
}

/// Print the value recovered from a model's reply as compact JSON.
///
/// Reads FILE, or standard input when FILE is absent or `-`, and prints the
/// recovered value as one line of compact JSON on stdout, member order and
/// number spelling kept. When nothing is recoverable, prints `error: ...`
/// on stderr, nothing on stdout, and exits 1.
///
/// With --lines, each input line is one reply written as a JSON string (a
/// JSONL log of model outputs; with --field NAME, a JSON object whose member
/// NAME is that string), and each gives one output line, in order: the
/// compact JSON of its value, or {"error":"line N: ..."} when the line is
/// not such a string (an empty line included) or its reply holds nothing
/// recoverable. A summary goes to stderr at the end ("3 lines: 2 values (1
/// repaired), 1 error"); the exit code is 1 when any line gave an error.
#[derive(Debug, clap::Args)]
struct RepairArgs {
    /// The reply to repair; `-` or absent reads standard input.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,

    /// Also print what was repaired on stderr: as one line of JSON
    /// (`--report` or `--report=json`; fields: strategy, span, repairs,
    /// coercions when there are any, truncated), or as text for a person
    /// (`--report=text`: each repair with its line, column and a snippet).
    /// stdout stays pure JSON.
    #[arg(
        long,
        value_name = "FORMAT",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "json",
        conflicts_with = "lines"
    )]
    report: Option<ReportFormat>,

    /// Print the value indented (two spaces, as serde_json's pretty
    /// printer does), member order kept, instead of on one line.
    #[arg(long, conflicts_with = "lines")]
    pretty: bool,

    /// Read one reply per input line, each a JSON string (see above), and
    /// print one line per input line.
    #[arg(long)]
    lines: bool,

    /// With --lines: each line is a JSON object, and the reply is its
    /// member NAME (a string; the last one if the key repeats).
    #[arg(long, value_name = "NAME", requires = "lines")]
    field: Option<String>,

    /// Decode each reply against the JSON Schema in FILE (an MCP tool's
    /// inputSchema, a tool's parameters): coerced toward it (numbers and
    /// bools written as text, keys in another style, enum values in
    /// another case, one value for a list), a missing property's default
    /// filled in, keys the schema forbids left out, bounds and formats
    /// checked. The value is printed as serde_json holds it (object keys
    /// sorted). A reply that does not fit is an error (exit 1) saying what
    /// to fix; a schema the decoder cannot follow is a usage error (exit
    /// 2) naming the keyword and where it is.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,

    /// How to decode.
    #[command(flatten)]
    decoder: DecoderArgs,
}

/// Print the part of a model's reply that holds its value, as written.
///
/// Reads FILE, or standard input when FILE is absent or `-`, finds the value
/// as `repair` does, and prints the span it was read from exactly as the
/// reply wrote it (a fence's content without the fence markers, a span in
/// prose, the whole reply trimmed), then a newline. For debugging prompts:
/// what did the decoder take as the answer? When nothing is recoverable,
/// prints `error: ...` on stderr and exits 1.
///
/// With --all, prints instead one JSON object per line for every place the
/// decoder looks, in the order it tries them:
/// {"strategy":S,"span":{"start":B,"end":E},"decodes":true,"text":T}, S one
/// of "whole", "fence", "tag", "balanced" (a {...} or [...] span in prose),
/// "trailing" (an opener that never closes), B and E byte offsets, T the
/// span as written. "decodes" says whether the span alone decodes with the
/// same options; when it does not, an "error" member (before "text") says
/// why, its line and column counted in the span. The exit code is the one
/// without --all.
#[derive(Debug, clap::Args)]
struct ExtractArgs {
    /// The reply to read; `-` or absent reads standard input.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,

    /// List every candidate span, one JSON object per line (see above).
    #[arg(long)]
    all: bool,

    /// Also print the report of the value found on stderr, as `repair`
    /// does (`--report`, `--report=json` or `--report=text`).
    #[arg(
        long,
        value_name = "FORMAT",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "json"
    )]
    report: Option<ReportFormat>,

    /// How to decode.
    #[command(flatten)]
    decoder: DecoderArgs,
}

/// Print the value of a model's reply as it streams in, a line per change.
///
/// Reads FILE, or standard input when FILE is absent or `-`, as it arrives
/// (each read is decoded at once, without waiting for the end), and prints a
/// line of compact JSON on stdout each time the value so far changes: objects,
/// arrays and strings as far as they have arrived, numbers and literals once
/// complete, `null` when what was shown turns out not to be the reply's value.
/// At the end of the input, the last line is the value of the whole reply
/// (the lines before it depend on how the input arrived; that one does not).
/// Values are printed as serde_json holds them: object keys sorted, numbers
/// as 64-bit integers or floats (`repair` keeps the reply's order and
/// spelling). Each line is flushed as it is written. There is no --pretty:
/// the output is one line per change.
///
/// When the whole reply holds nothing recoverable, prints `error: ...` on
/// stderr and exits 1 (the lines already printed stay); bytes that are not
/// UTF-8 (without --lossy) end the run at once.
#[derive(Debug, clap::Args)]
struct StreamArgs {
    /// The reply to decode; `-` or absent reads standard input.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,

    /// Print each change instead of each value, as one JSON object per line:
    /// {"started":PATH,"value":V} (a value appeared, as far as it has
    /// arrived), {"appended":PATH,"text":S} (the string at PATH grew by S),
    /// {"completed":PATH,"value":V} (the value at PATH is complete; at "$",
    /// the whole value), {"reset":true} (forget what was shown). PATH is a
    /// JSON path such as "$.items[0].name". Applied in order to null, the
    /// lines build the value so far; the last line is always
    /// {"completed":"$","value":V} with the value of the whole reply.
    #[arg(long)]
    deltas: bool,

    /// Also print what was repaired in the whole reply on stderr at the end,
    /// as `repair` does (`--report`, `--report=json` or `--report=text`).
    #[arg(
        long,
        value_name = "FORMAT",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "json"
    )]
    report: Option<ReportFormat>,

    /// How to decode.
    #[command(flatten)]
    decoder: DecoderArgs,
}

/// How `--report` writes the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    /// One line of JSON.
    Json,
    /// Text for a person: the span and each repair with line and column.
    Text,
}

/// The options that make the decoder, shared by the verbs.
#[derive(Debug, clap::Args)]
struct DecoderArgs {
    /// Find the value (in fences, tags or prose) but repair nothing: accept
    /// exactly what a strict JSON parser accepts, else exit 1 naming the
    /// repair the reply needed.
    #[arg(long)]
    strict: bool,

    /// Exit 1 when the reply needed more than N repairs, listing them.
    #[arg(long, value_name = "N")]
    max_repairs: Option<usize>,

    /// Replace bytes that are not UTF-8 by U+FFFD (each recorded as a
    /// repair) instead of exiting 1. An incomplete character at the very end
    /// is dropped either way: the reply was cut off inside it.
    #[arg(long)]
    lossy: bool,

    /// Allow one kind of repair or coercion (repeatable; with --strict,
    /// allows it back). KIND is its name as the report writes it:
    /// trailing_comma, unquoted_key, string_to_number, ... (an unknown name
    /// lists them all).
    #[arg(long, value_name = "KIND", value_parser = parse_fix)]
    allow: Vec<Fix>,

    /// Deny one kind of repair or coercion (repeatable): a reply that needs
    /// it is refused (exit 1). Applied after --allow, so it wins.
    #[arg(long, value_name = "KIND", value_parser = parse_fix)]
    deny: Vec<Fix>,

    /// Which kinds of value cut off at the end are kept (the rest are
    /// dropped): a comma-separated list of str, num, arr, obj, null, bool,
    /// nan, infinity, neg_infinity, all, none (any case; the default is
    /// all), as partial-json-parser's Allow flags.
    #[arg(long, value_name = "FLAGS", value_parser = parse_allow)]
    partial: Option<Allow>,
}

impl DecoderArgs {
    /// The decoder these options ask for.
    fn decoder(&self) -> Decoder {
        let mut decoder = if self.strict {
            Decoder::strict()
        } else {
            Decoder::new()
        };
        if let Some(n) = self.max_repairs {
            decoder = decoder.max_repairs(n);
        }
        if self.lossy {
            decoder = decoder.lossy();
        }
        for &fix in &self.allow {
            decoder = decoder.allow(fix);
        }
        for &fix in &self.deny {
            decoder = decoder.deny(fix);
        }
        if let Some(allow) = self.partial {
            decoder = decoder.allow_partial(allow);
        }
        decoder
    }
}

/// A `--allow` or `--deny` KIND: a repair or coercion kind's name.
fn parse_fix(name: &str) -> Result<Fix, String> {
    name.parse().map_err(|e| {
        let names: Vec<&str> = Fix::all().map(Fix::name).collect();
        format!("{e}; the kinds are: {}", names.join(", "))
    })
}

/// The `--partial` flags and the `Allow` each names.
const PARTIAL_FLAGS: [(&str, Allow); 11] = [
    ("str", Allow::STR),
    ("num", Allow::NUM),
    ("arr", Allow::ARR),
    ("obj", Allow::OBJ),
    ("null", Allow::NULL),
    ("bool", Allow::BOOL),
    ("nan", Allow::NAN),
    ("infinity", Allow::INFINITY),
    ("neg_infinity", Allow::NEG_INFINITY),
    ("all", Allow::ALL),
    ("none", Allow::NONE),
];

/// `--partial FLAGS`: the union of the flags listed, comma-separated.
fn parse_allow(list: &str) -> Result<Allow, String> {
    let mut allow = Allow::NONE;
    for flag in list.split(',') {
        let flag = flag.trim();
        let Some((_, a)) = PARTIAL_FLAGS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(flag))
        else {
            let names: Vec<&str> = PARTIAL_FLAGS.iter().map(|(name, _)| *name).collect();
            return Err(format!(
                "unknown flag `{flag}`; the flags are: {}",
                names.join(", ")
            ));
        };
        allow = allow | *a;
    }
    Ok(allow)
}

/// A failure that ends the run with exit code 1, and its message (if any).
struct Failure(Option<String>);

impl Failure {
    /// A failure reported as `error: {message}` on stderr.
    fn msg(message: impl Into<String>) -> Failure {
        Failure(Some(message.into()))
    }

    /// A failure that prints nothing (stdout was closed by the reader, or
    /// the message was printed already).
    fn quiet() -> Failure {
        Failure(None)
    }
}

/// Parses the arguments, runs the verb, and maps the outcome to an exit code.
fn main() -> ExitCode {
    // `parse` exits by itself: 2 on a usage error, 0 for --help and --version.
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Repair(args) => match load_schema(&args) {
            Err(message) => {
                let _ = writeln!(io::stderr().lock(), "error: {message}");
                return ExitCode::from(2);
            }
            Ok(schema) if args.lines => repair_lines(&args, schema.as_ref()),
            Ok(schema) => repair(&args, schema.as_ref()),
        },
        Command::Extract(args) => extract(&args),
        Command::Stream(args) => stream(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            if let Some(message) = message {
                // Nothing more can be done if stderr itself is gone.
                let _ = writeln!(io::stderr().lock(), "error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// `repair --schema FILE`: the schema compiled, with the decoder's options.
fn load_schema(args: &RepairArgs) -> Result<Option<SchemaDecoder>, String> {
    let Some(path) = &args.schema else {
        return Ok(None);
    };
    let shown = path.display();
    let text = fs::read(path).map_err(|e| format!("cannot read the schema {shown}: {e}"))?;
    let schema: Value = serde_json::from_slice(&text)
        .map_err(|e| format!("the schema {shown} is not JSON: {e}"))?;
    let decoder = SchemaDecoder::new(&schema).map_err(|e| format!("the schema {shown}: {e}"))?;
    Ok(Some(decoder.with_decoder(args.decoder.decoder())))
}

/// One reply decoded against a schema: the value as compact JSON, and the
/// report.
fn decode_schema(schema: &SchemaDecoder, bytes: &[u8]) -> Result<(String, Report), Failure> {
    let failure = |e: Error| Failure::msg(describe(&e));
    // The text as the decoder reads it (invalid UTF-8 replaced, with
    // --lossy), and what reading it did in the report.
    let read = schema.decoder().text_of(bytes).map_err(failure)?;
    let (value, mut report) = schema.decode_with_report(read.text()).map_err(failure)?;
    read.mark(&mut report);
    Ok((value.to_string(), report))
}

/// The `repair` verb, one reply.
fn repair(args: &RepairArgs, schema: Option<&SchemaDecoder>) -> Result<(), Failure> {
    let bytes = read_input(args.file.as_deref())?;
    if let Some(schema) = schema {
        let (json, report) = decode_schema(schema, &bytes)?;
        let json = if args.pretty { pretty(&json) } else { json };
        write_line(&mut io::stdout().lock(), json.as_bytes())?;
        if let Some(format) = args.report {
            write_report(format, &report, || text_of(schema.decoder(), &bytes))?;
        }
        return Ok(());
    }
    let decoder = args.decoder.decoder();
    // The report only when it is shown: the value alone is all a plain
    // `repair` needs.
    let (json, report) = match args.report {
        Some(format) => decoder
            .repair_slice_with_report(&bytes)
            .map(|(json, report)| (json, Some((format, report)))),
        None => decoder.repair_slice(&bytes).map(|json| (json, None)),
    }
    .map_err(|e| Failure::msg(describe(&e)))?;
    let json = if args.pretty { pretty(&json) } else { json };
    write_line(&mut io::stdout().lock(), json.as_bytes())?;
    if let Some((format, report)) = report {
        write_report(format, &report, || text_of(&decoder, &bytes))?;
    }
    Ok(())
}

/// How much of the input `repair --lines` reads at a time, and how much
/// output it holds before writing.
const BATCH: usize = 64 * 1024;

/// The `repair --lines` verb: one output line per input line.
fn repair_lines(args: &RepairArgs, schema: Option<&SchemaDecoder>) -> Result<(), Failure> {
    let (input, name) = open_input(args.file.as_deref())?;
    let mut input = BufReader::with_capacity(BATCH, input);
    let mut out = BufWriter::with_capacity(BATCH, io::stdout().lock());
    let decoder = args.decoder.decoder();
    let field = args.field.as_deref();
    let mut line = Vec::new();
    let mut tally = Tally::default();
    loop {
        // Nothing more arrived yet: show what is done before waiting (a
        // file is read a batch at a time, so this writes a batch at a time).
        if input.buffer().is_empty() {
            out.flush().map_err(write_failure)?;
        }
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                out.flush().map_err(write_failure)?;
                return Err(Failure::msg(format!("cannot read {name}: {e}")));
            }
        }
        tally.lines += 1;
        let n = tally.lines;
        let result = reply_of_line(&line, field, args.decoder.lossy)
            .map_err(|e| format!("line {n}: {e}"))
            .and_then(|reply| {
                let decoded = match schema {
                    Some(schema) => schema
                        .decode_with_report(&reply)
                        .map(|(value, report)| (value.to_string(), report)),
                    None => decoder.repair_with_report(&reply),
                };
                decoded.map_err(|e| format!("line {n}: {e}"))
            });
        match result {
            Ok((json, report)) => {
                tally.values += 1;
                tally.repaired += usize::from(!report.is_clean());
                out.write_all(json.as_bytes()).map_err(write_failure)?;
            }
            Err(message) => {
                tally.errors += 1;
                write!(out, "{{\"error\":{}}}", json_str(message)).map_err(write_failure)?;
            }
        }
        out.write_all(b"\n").map_err(write_failure)?;
    }
    out.flush().map_err(write_failure)?;
    drop(out);
    let _ = writeln!(io::stderr().lock(), "{tally}");
    match tally.errors {
        0 => Ok(()),
        _ => Err(Failure::quiet()),
    }
}

/// What `repair --lines` did, for its summary.
#[derive(Debug, Default)]
struct Tally {
    lines: usize,
    values: usize,
    repaired: usize,
    errors: usize,
}

impl fmt::Display for Tally {
    /// `3 lines: 2 values (1 repaired), 1 error`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} line{}: {} value{} ({} repaired), {} error{}",
            self.lines,
            s(self.lines),
            self.values,
            s(self.values),
            self.repaired,
            self.errors,
            s(self.errors)
        )
    }
}

/// The reply a `--lines` input line holds: the JSON string that is the
/// line, or (with `field`) the string member `field` of the JSON object
/// that is the line. The line's newline (and a `\r` before it) is not part
/// of it.
fn reply_of_line(line: &[u8], field: Option<&str>, lossy: bool) -> Result<String, String> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let wanted = || match field {
        None => "a JSON string holding a reply".to_owned(),
        Some(name) => format!("a JSON object with a string member {}", json_str(name)),
    };
    // The line is whole (not a reply cut off inside a character): its
    // bytes are read as one JSON text, every invalid sequence in it refused
    // or replaced.
    let line = match std::str::from_utf8(line) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) if lossy => String::from_utf8_lossy(line),
        Err(e) => {
            return Err(format!(
                "invalid UTF-8 at byte {} of the line (--lossy replaces it)",
                e.valid_up_to()
            ))
        }
    };
    let first = line.trim_start().bytes().next();
    match (first, field) {
        (None, _) => return Err(format!("an empty line, expected {}", wanted())),
        (Some(b'"'), None) | (Some(b'{'), Some(_)) => {}
        (Some(b'{'), None) => {
            return Err(format!(
                "expected {}, found an object (--field NAME reads a member)",
                wanted()
            ))
        }
        (Some(_), _) => return Err(format!("expected {}", wanted())),
    }
    let mut de = serde_json::Deserializer::from_str(&line);
    let reply = match field {
        None => serde::Deserialize::deserialize(&mut de)
            .map_err(|e| format!("not a JSON string: {}", json_error(&e)))?,
        Some(name) => {
            let member = Member(name)
                .deserialize(&mut de)
                .map_err(|e| format!("not a JSON object: {}", json_error(&e)))?;
            match member {
                Some(Value::String(reply)) => reply,
                Some(other) => {
                    return Err(format!(
                        "member {} is {}, not a string",
                        json_str(name),
                        kind_of(&other)
                    ))
                }
                None => return Err(format!("no member {}", json_str(name))),
            }
        }
    };
    de.end()
        .map_err(|e| format!("text after the JSON value at column {}", e.column()))?;
    Ok(reply)
}

/// serde_json's message about a line, its position given as a column (the
/// line is always 1).
fn json_error(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    match message.strip_suffix(&at) {
        Some(message) => format!("{message} at column {}", e.column()),
        None => message,
    }
}

/// What a JSON value is, for messages: `a number`.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads one member of a JSON object (the last, if its key repeats),
/// skipping the others without building them.
struct Member<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for Member<'_> {
    type Value = Option<Value>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Member<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let mut found = None;
        while let Some(is_it) = map.next_key_seed(KeyIs(self.0))? {
            if is_it {
                found = Some(map.next_value()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Whether an object's key is this one, read without copying it.
struct KeyIs<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
    }
}

/// The `extract` verb.
fn extract(args: &ExtractArgs) -> Result<(), Failure> {
    let bytes = read_input(args.file.as_deref())?;
    let decoder = args.decoder.decoder();
    let read = decoder
        .text_of(&bytes)
        .map_err(|e| Failure::msg(describe(&e)))?;
    let text = read.text();
    let mut out = io::stdout().lock();
    if args.all {
        let mut lines = Vec::new();
        for c in decoder.candidates(text) {
            let span = &text[c.span.clone()];
            let error = decoder.decode::<Value>(span).err();
            lines.push(candidate_line(&c.strategy, &c.span, error.as_ref(), span));
        }
        out.write_all(lines.concat().as_bytes())
            .and_then(|()| out.flush())
            .map_err(write_failure)?;
    }
    // Offsets in the text read (invalid UTF-8 replaced, with --lossy); what
    // reading the bytes did is added to the report.
    let decoded = decoder
        .decode_with_report::<Value>(text)
        .map(|(v, mut report)| {
            read.mark(&mut report);
            (v, report)
        });
    let (_, report) = decoded.map_err(|e| Failure::msg(describe(&e)))?;
    if !args.all {
        write_line(&mut out, &text.as_bytes()[report.span.clone()])?;
    }
    if let Some(format) = args.report {
        write_report(format, &report, || Cow::Borrowed(text))?;
    }
    Ok(())
}

/// One line of `extract --all`, its newline included.
fn candidate_line(
    strategy: &serde_llm::Strategy,
    span: &Range<usize>,
    error: Option<&Error>,
    text: &str,
) -> String {
    let strategy = serde_json::to_string(strategy).expect("a strategy serializes");
    let decodes = match error {
        None => "true".to_owned(),
        Some(e) => format!("false,\"error\":{}", json_str(e)),
    };
    format!(
        "{{\"strategy\":{strategy},\"span\":{{\"start\":{},\"end\":{}}},\"decodes\":{decodes},\"text\":{}}}\n",
        span.start,
        span.end,
        json_str(text)
    )
}

/// How much one read of the input may take. A read returns what has arrived,
/// up to this; each is decoded at once.
const CHUNK: usize = 16 * 1024;

/// The `stream` verb.
fn stream(args: &StreamArgs) -> Result<(), Failure> {
    let (mut input, name) = open_input(args.file.as_deref())?;
    let mut decoder = args.decoder.decoder().stream::<Value>();
    let mut out = io::stdout().lock();
    // Without --deltas: the value the last line showed. With --deltas: the
    // value of the last line when it completed `$`.
    let mut last: Option<Value> = None;
    let mut buf = vec![0; CHUNK];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::msg(format!("cannot read {name}: {e}"))),
        };
        let deltas = match decoder.push_deltas(&buf[..n]) {
            Ok(deltas) => deltas,
            // No later chunk makes the reply UTF-8: `repair` would refuse it.
            Err(e) if e.kind() == ErrorKind::InvalidUtf8 => return Err(Failure::msg(describe(&e))),
            // A later chunk may still give a value (a later candidate that
            // fits), and this push's deltas come with the next that succeeds;
            // the end decides.
            Err(_) => continue,
        };
        if args.deltas {
            for delta in &deltas {
                write_line(&mut out, delta_line(delta).as_bytes())?;
                last = match delta {
                    Delta::Completed { path, value } if path.segments().is_empty() => {
                        Some(value.clone())
                    }
                    _ => None,
                };
            }
        } else {
            // (Kept: this decoder pushes with deltas.)
            let value = decoder.value().unwrap_or(&Value::Null);
            if value != last.as_ref().unwrap_or(&Value::Null) {
                write_line(&mut out, value.to_string().as_bytes())?;
                last = Some(value.clone());
            }
        }
    }
    // The text the report's offsets count in, kept only when it is shown.
    let text = (args.report == Some(ReportFormat::Text)).then(|| decoder.text().to_owned());
    // The report only when it is shown.
    let (value, report) = match args.report {
        Some(format) => decoder
            .finish_with_report()
            .map(|(value, report)| (value, Some((format, report)))),
        None => decoder.finish().map(|value| (value, None)),
    }
    .map_err(|e| Failure::msg(describe(&e)))?;
    if last.as_ref() != Some(&value) {
        let line = if args.deltas {
            delta_line(&Delta::Completed {
                path: serde_llm::Path::root(),
                value,
            })
        } else {
            value.to_string()
        };
        write_line(&mut out, line.as_bytes())?;
    }
    if let Some((format, report)) = report {
        write_report(format, &report, || {
            Cow::Owned(text.expect("kept for a text report"))
        })?;
    }
    Ok(())
}

/// A delta as one line of JSON: `{"started":PATH,"value":V}`,
/// `{"appended":PATH,"text":S}`, `{"completed":PATH,"value":V}` or
/// `{"reset":true}`, PATH written as `$.a[0]`.
fn delta_line(delta: &Delta) -> String {
    match delta {
        Delta::Started { path, value } => {
            format!(r#"{{"started":{},"value":{value}}}"#, json_str(path))
        }
        Delta::Appended { path, text } => {
            format!(
                r#"{{"appended":{},"text":{}}}"#,
                json_str(path),
                json_str(text)
            )
        }
        Delta::Completed { path, value } => {
            format!(r#"{{"completed":{},"value":{value}}}"#, json_str(path))
        }
        Delta::Reset => r#"{"reset":true}"#.to_owned(),
    }
}

/// `text` as a JSON string.
fn json_str(text: impl ToString) -> Value {
    Value::String(text.to_string())
}

/// Compact JSON text (as `repair` writes it) indented as
/// `serde_json::to_string_pretty` indents a value: two spaces a level, `": "`
/// after a key, an empty `[]` or `{}` kept on its line. Members stay in
/// their order, and numbers and strings as written: the text is not read
/// into a value.
fn pretty(compact: &str) -> String {
    let b = compact.as_bytes();
    let mut out = String::with_capacity(compact.len() + compact.len() / 2);
    let mut depth = 0;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() {
                    match b[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            i += 1;
                            break;
                        }
                        _ => i += 1,
                    }
                }
                out.push_str(&compact[start..i.min(b.len())]);
                continue;
            }
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                let mut k = i + 1;
                while k < b.len() && b[k].is_ascii_whitespace() {
                    k += 1;
                }
                out.push(char::from(open));
                if b.get(k) == Some(&close) {
                    out.push(char::from(close));
                    i = k;
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            close @ (b'}' | b']') => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(char::from(close));
            }
            b',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            b':' => out.push_str(": "),
            c if c.is_ascii_whitespace() => {}
            _ => {
                // A number or a literal, up to the next structural byte.
                let start = i;
                while i < b.len()
                    && !matches!(b[i], b'"' | b'{' | b'[' | b'}' | b']' | b',' | b':')
                    && !b[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                out.push_str(&compact[start..i]);
                continue;
            }
        }
        i += 1;
    }
    out
}

/// FILE, or stdin when `file` is `None` or `-`, to read as it arrives, and
/// its name for messages.
fn open_input(file: Option<&Path>) -> Result<(Box<dyn Read>, String), Failure> {
    match file {
        Some(path) if path != Path::new("-") => {
            let name = path.display().to_string();
            match fs::File::open(path) {
                Ok(f) => Ok((Box::new(f), name)),
                Err(e) => Err(Failure::msg(format!("cannot read {name}: {e}"))),
            }
        }
        _ => Ok((Box::new(io::stdin().lock()), "standard input".to_owned())),
    }
}

/// Reads all of FILE, or of stdin when `file` is `None` or `-`.
fn read_input(file: Option<&Path>) -> Result<Vec<u8>, Failure> {
    match file {
        Some(path) if path != Path::new("-") => fs::read(path)
            .map_err(|e| Failure::msg(format!("cannot read {}: {}", path.display(), e))),
        _ => {
            let mut bytes = Vec::new();
            io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::msg(format!("cannot read standard input: {e}")))?;
            Ok(bytes)
        }
    }
}

/// The text of `bytes` as `decoder` reads it (whose offsets a report of
/// decoding them counts): empty if it cannot read them.
fn text_of<'a>(decoder: &Decoder, bytes: &'a [u8]) -> Cow<'a, str> {
    decoder
        .text_of(bytes)
        .map(Utf8Text::into_text)
        .unwrap_or_default()
}

/// The error's alternate form: the one-line message, then `  near: <snippet>`
/// on a second line when the position is known.
fn describe(e: &Error) -> String {
    if matches!(e.kind(), ErrorKind::Rejected | ErrorKind::Contract) {
        // What the reply needed, one repair (or broken rule) per line.
        return format!("{e}\n{}", e.feedback());
    }
    // The alternate form adds the snippet line.
    format!("{e:#}")
}

/// A failure to write output: quiet when the reader went away
/// (`serde-llm repair | head -c0`), which is not worth a message.
fn write_failure(e: io::Error) -> Failure {
    match e.kind() {
        io::ErrorKind::BrokenPipe => Failure::quiet(),
        _ => Failure::msg(format!("cannot write output: {e}")),
    }
}

/// Writes `line` and a newline to `out`, and flushes it.
fn write_line(out: &mut impl Write, line: &[u8]) -> Result<(), Failure> {
    out.write_all(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(write_failure)
}

/// Writes the report on stderr: one line of JSON, or the text of
/// `Report::display` (which needs the text the report's offsets count in).
fn write_report<'a>(
    format: ReportFormat,
    report: &Report,
    text: impl FnOnce() -> Cow<'a, str>,
) -> Result<(), Failure> {
    let shown = match format {
        ReportFormat::Json => serde_json::to_string(report)
            .map_err(|e| Failure::msg(format!("cannot serialize the report: {e}")))?,
        ReportFormat::Text => {
            let text = text();
            let shown = report.display(&text).to_string();
            shown.trim_end().to_owned()
        }
    };
    write_line(&mut io::stderr().lock(), shown.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator of JSON values (xorshift).
    struct Gen(u64);

    impl Gen {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }

        fn value(&mut self, depth: u32) -> Value {
            let kinds = if depth == 0 { 5 } else { 7 };
            match self.next(kinds) {
                0 => Value::Null,
                1 => Value::Bool(self.next(2) == 1),
                2 => serde_json::json!(self.next(2000) as i64 - 1000),
                3 => serde_json::json!(self.next(1000) as f64 / 8.0),
                4 => {
                    let pieces = ["a", "é", "\"", "\\", "\n", ",", ":", "{", "]", " ", "😀"];
                    let n = self.next(5);
                    let s: String = (0..n).map(|_| pieces[self.next(11) as usize]).collect();
                    Value::String(s)
                }
                5 => {
                    let n = self.next(4);
                    Value::Array((0..n).map(|_| self.value(depth - 1)).collect())
                }
                _ => {
                    let n = self.next(4);
                    let mut map = serde_json::Map::new();
                    for k in 0..n {
                        map.insert(format!("k{k}:{}", self.next(3)), self.value(depth - 1));
                    }
                    Value::Object(map)
                }
            }
        }
    }

    /// On values whose keys are sorted (serde_json's `Value` sorts them),
    /// the indentation is serde_json's own.
    #[test]
    fn pretty_is_serde_jsons_layout() {
        let mut gen = Gen(0x9E37_79B9_7F4A_7C15);
        for _ in 0..2000 {
            let value = gen.value(4);
            let compact = serde_json::to_string(&value).unwrap();
            let want = serde_json::to_string_pretty(&value).unwrap();
            assert_eq!(pretty(&compact), want, "{compact}");
        }
        for (compact, want) in [
            ("[]", "[]"),
            ("{}", "{}"),
            ("[[],{}]", "[\n  [],\n  {}\n]"),
            ("{\"a\":{\"b\":[]}}", "{\n  \"a\": {\n    \"b\": []\n  }\n}"),
            ("\"a,b:{c}\"", "\"a,b:{c}\""),
            ("1.50", "1.50"),
        ] {
            assert_eq!(pretty(compact), want, "{compact}");
        }
    }

    /// Members keep their order, and numbers their spelling.
    #[test]
    fn pretty_keeps_member_order() {
        assert_eq!(
            pretty("{\"z\":1.50,\"a\":[true,null],\"m\":\"x\\\"y\"}"),
            "{\n  \"z\": 1.50,\n  \"a\": [\n    true,\n    null\n  ],\n  \"m\": \"x\\\"y\"\n}"
        );
    }

    #[test]
    fn partial_flags() {
        assert_eq!(parse_allow("str,arr").unwrap(), Allow::STR | Allow::ARR);
        assert_eq!(parse_allow("ALL").unwrap(), Allow::ALL);
        assert_eq!(parse_allow("none").unwrap(), Allow::NONE);
        assert_eq!(
            parse_allow("nan, infinity,neg_infinity").unwrap(),
            Allow::NAN | Allow::INFINITY | Allow::NEG_INFINITY
        );
        assert!(parse_allow("str,,arr").is_err());
        assert!(parse_allow("strings").is_err());
    }
}
