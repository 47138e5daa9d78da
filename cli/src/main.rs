//! `serde-llm`: repair what a language model replied into canonical JSON, from
//! the command line.
//!
//! ```text
//! $ echo "{name: 'Ada', tags: ['x',],}" | serde-llm repair
//! {"name":"Ada","tags":["x"]}
//! $ printf '{"a": "x", "b": [1, 2' | serde-llm stream
//! {"a":"x","b":[1]}
//! {"a":"x","b":[1,2]}
//! ```
//!
//! `stream` reads its input as it arrives and prints a line each time the
//! value so far changes (or, with `--deltas`, each change itself), the final
//! value last.
//!
//! Output is plain and deterministic so that shell pipelines and other tools'
//! test harnesses can rely on it: the recovered JSON (and nothing else) on
//! stdout, diagnostics on stderr, no colours.
//!
//! Exit codes: 0 when a value was recovered, 1 when nothing is recoverable or
//! the input cannot be read, 2 on a usage error.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ColorChoice, Parser, Subcommand};
use serde_json::Value;
use serde_llm::{Decoder, Delta, Error, ErrorKind, Report};

/// Recover the JSON value in what a language model replied.
///
/// serde-llm finds the value in a model's reply (bare, in a markdown fence, in
/// a `<json>` tag, or inside prose), repairs the usual mistakes (single quotes,
/// unquoted keys, trailing commas, comments, Python literals, ...), completes a
/// value that was cut off, and prints it as compact JSON with member order kept
/// (`repair`), or prints the value as it streams in, a line per change
/// (`stream`).
///
/// Exit codes: 0 when a value was recovered; 1 when nothing is recoverable or
/// the input cannot be read; 2 on a usage error.
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
    Stream(StreamArgs),
}

/// Print the value recovered from a model's reply as compact JSON.
///
/// Reads FILE, or standard input when FILE is absent or `-`, and prints the
/// recovered value as one line of compact JSON on stdout. When nothing is
/// recoverable, prints `error: ...` on stderr, nothing on stdout, and exits 1.
#[derive(Debug, clap::Args)]
struct RepairArgs {
    /// The reply to repair; `-` or absent reads standard input.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,

    /// Also print what was repaired, as one line of JSON on stderr
    /// (fields: strategy, span, repairs, truncated); stdout stays pure JSON.
    #[arg(long)]
    report: bool,

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
/// spelling). Each line is flushed as it is written.
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

    /// Also print what was repaired in the whole reply, as one line of JSON
    /// on stderr at the end (fields: strategy, span, repairs, truncated).
    #[arg(long)]
    report: bool,

    /// How to decode.
    #[command(flatten)]
    decoder: DecoderArgs,
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
        decoder
    }
}

/// A failure that ends the run with exit code 1, and its message (if any).
struct Failure(Option<String>);

impl Failure {
    /// A failure reported as `error: {message}` on stderr.
    fn msg(message: impl Into<String>) -> Failure {
        Failure(Some(message.into()))
    }

    /// A failure that prints nothing (stdout was closed by the reader).
    fn quiet() -> Failure {
        Failure(None)
    }
}

/// Parses the arguments, runs the verb, and maps the outcome to an exit code.
fn main() -> ExitCode {
    // `parse` exits by itself: 2 on a usage error, 0 for --help and --version.
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Repair(args) => repair(&args),
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

/// The `repair` verb.
fn repair(args: &RepairArgs) -> Result<(), Failure> {
    let bytes = read_input(args.file.as_deref())?;
    let (json, report) = args
        .decoder
        .decoder()
        .repair_slice_with_report(&bytes)
        .map_err(|e| Failure::msg(describe(&e)))?;
    write_line(&mut io::stdout().lock(), &json)?;
    if args.report {
        write_report(&report)?;
    }
    Ok(())
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
        let deltas = match decoder.push(&buf[..n]) {
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
                write_line(&mut out, &delta_line(delta))?;
                last = match delta {
                    Delta::Completed { path, value } if path.segments().is_empty() => {
                        Some(value.clone())
                    }
                    _ => None,
                };
            }
        } else if decoder.value() != last.as_ref().unwrap_or(&Value::Null) {
            write_line(&mut out, &decoder.value().to_string())?;
            last = Some(decoder.value().clone());
        }
    }
    let (value, report) = decoder
        .finish_with_report()
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
        write_line(&mut out, &line)?;
    }
    if args.report {
        write_report(&report)?;
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

/// The error's alternate form: the one-line message, then `  near: <snippet>`
/// on a second line when the position is known.
fn describe(e: &Error) -> String {
    if e.kind() == ErrorKind::Rejected {
        // What the reply needed, one repair per line.
        return format!("{e}\n{}", e.feedback());
    }
    // The alternate form adds the snippet line.
    format!("{e:#}")
}

/// Writes `line` and a newline to `out`, and flushes it.
fn write_line(out: &mut impl Write, line: &str) -> Result<(), Failure> {
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(|e| match e.kind() {
            // The reader went away (`serde-llm repair | head -c0`): not worth a message.
            io::ErrorKind::BrokenPipe => Failure::quiet(),
            _ => Failure::msg(format!("cannot write output: {e}")),
        })
}

/// Writes the report as one line of JSON on stderr.
fn write_report(report: &Report) -> Result<(), Failure> {
    let line = serde_json::to_string(report)
        .map_err(|e| Failure::msg(format!("cannot serialize the report: {e}")))?;
    write_line(&mut io::stderr().lock(), &line)
}
