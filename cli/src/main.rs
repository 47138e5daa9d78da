//! `serde-llm`: repair what a language model replied into canonical JSON, from
//! the command line.
//!
//! ```text
//! $ echo "{name: 'Ada', tags: ['x',],}" | serde-llm repair
//! {"name":"Ada","tags":["x"]}
//! ```
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
use serde_llm::{Decoder, Error, ErrorKind, Report};

/// Recover the JSON value in what a language model replied.
///
/// serde-llm finds the value in a model's reply (bare, in a markdown fence, in
/// a `<json>` tag, or inside prose), repairs the usual mistakes (single quotes,
/// unquoted keys, trailing commas, comments, Python literals, ...), completes a
/// value that was cut off, and prints it as compact JSON with member order kept.
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
    // No doc comment here: clap would take it over the `about` of `RepairArgs`.
    Repair(RepairArgs),
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
