//! End-to-end tests of the `serde-llm` binary: exact stdout, stderr and exit
//! codes, as a shell user or another tool's test harness sees them.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::json;

/// What one run of the binary produced.
#[derive(Debug)]
struct Output {
    /// The exit code (`None` if killed by a signal).
    code: Option<i32>,
    /// Everything written to stdout.
    stdout: String,
    /// Everything written to stderr.
    stderr: String,
}

/// Runs `serde-llm` with `args`, feeding `stdin` to its standard input.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_with_env(args, stdin, &[])
}

/// [`run`] with extra environment variables.
fn run_with_env(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_serde-llm"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serde-llm");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    // Write from another thread so a large input cannot deadlock against a
    // full stdout pipe. A binary that exits without reading (a usage error)
    // closes the pipe early; that is not a failure of the test.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for serde-llm");
    writer.join().expect("stdin writer");
    Output {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// A file under the temp dir, unique to this process and test, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    /// Creates the file with `contents`.
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let path = std::env::temp_dir().join(format!(
            "serde-llm-cli-test-{}-{}.txt",
            std::process::id(),
            name
        ));
        std::fs::write(&path, contents).expect("write temp file");
        TempFile(path)
    }

    /// The path as a `&str` argument.
    fn arg(&self) -> &str {
        self.0.to_str().expect("temp path is UTF-8")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

const FENCED_REPLY: &str = "Sure! Here is the JSON you asked for:\n```json\n\
    {label: 'spam', score: 0.93, reasons: [\"all caps\", \"3 links\",],}\n```\n\
    Let me know if you need anything else.";

const FENCED_JSON: &str =
    "{\"label\":\"spam\",\"score\":0.93,\"reasons\":[\"all caps\",\"3 links\"]}\n";

#[test]
fn repairs_stdin() {
    let out = run(&["repair"], b"{name: 'Ada', tags: ['x',],}");
    assert_eq!(out.stdout, "{\"name\":\"Ada\",\"tags\":[\"x\"]}\n");
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn dash_reads_stdin() {
    let out = run(&["repair", "-"], b"{name: 'Ada', tags: ['x',],}");
    assert_eq!(out.stdout, "{\"name\":\"Ada\",\"tags\":[\"x\"]}\n");
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn extracts_a_fenced_value_from_prose() {
    let out = run(&["repair"], FENCED_REPLY.as_bytes());
    assert_eq!(out.stdout, FENCED_JSON);
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn reads_a_file_argument() {
    let file = TempFile::new("fenced", FENCED_REPLY.as_bytes());
    let out = run(&["repair", file.arg()], b"ignored: stdin is not read");
    assert_eq!(out.stdout, FENCED_JSON);
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn completes_a_truncated_value() {
    let out = run(&["repair"], b"{\"a\": [1, 2, {\"b\": \"trunc");
    assert_eq!(out.stdout, "{\"a\":[1,2,{\"b\":\"trunc\"}]}\n");
    assert_eq!(out.code, Some(0));
}

#[test]
fn keeps_non_ascii_text_and_number_spelling() {
    let out = run(
        &["repair"],
        "{\"name\": \"Zoë \\u00e9 😀\", \"n\": 1.50, \"big\": 12345678901234567890123}".as_bytes(),
    );
    assert_eq!(
        out.stdout,
        "{\"name\":\"Zoë é 😀\",\"n\":1.50,\"big\":12345678901234567890123}\n"
    );
    assert_eq!(out.code, Some(0));
}

#[test]
fn report_goes_to_stderr_as_one_json_line() {
    let out = run(&["repair", "--report"], b"{name: 'Ada', tags: ['x',],}");
    assert_eq!(out.stdout, "{\"name\":\"Ada\",\"tags\":[\"x\"]}\n");
    assert_eq!(out.code, Some(0));
    assert!(out.stderr.ends_with('\n'));
    assert_eq!(out.stderr.lines().count(), 1);
    let report: serde_json::Value = serde_json::from_str(&out.stderr).expect("report is JSON");
    assert_eq!(
        report,
        json!({
            "strategy": "whole",
            "span": {"start": 0, "end": 28},
            "repairs": [
                {"kind": "unquoted_key", "offset": 1},
                {"kind": "quotes", "offset": 7},
                {"kind": "unquoted_key", "offset": 14},
                {"kind": "quotes", "offset": 21},
                {"kind": "trailing_comma", "offset": 24},
                {"kind": "trailing_comma", "offset": 26},
            ],
            "truncated": false,
        })
    );
}

#[test]
fn report_of_a_fenced_file() {
    let reply = "Here you go:\n```json\n{\"n\": 1,}\n```";
    let file = TempFile::new("report", reply.as_bytes());
    let out = run(&["repair", "--report", file.arg()], b"");
    assert_eq!(out.stdout, "{\"n\":1}\n");
    assert_eq!(out.code, Some(0));
    let report: serde_json::Value = serde_json::from_str(&out.stderr).expect("report is JSON");
    assert_eq!(
        report,
        json!({
            "strategy": "fence",
            "span": {"start": 21, "end": 30},
            "repairs": [{"kind": "trailing_comma", "offset": 28}],
            "truncated": false,
        })
    );
    assert_eq!(&reply[21..30], "{\"n\": 1,}");
}

#[test]
fn report_marks_truncation() {
    let out = run(&["repair", "--report"], b"{\"a\": [1, 2");
    assert_eq!(out.stdout, "{\"a\":[1,2]}\n");
    assert_eq!(out.code, Some(0));
    let report: serde_json::Value = serde_json::from_str(&out.stderr).expect("report is JSON");
    assert_eq!(
        report,
        json!({
            "strategy": "whole",
            "span": {"start": 0, "end": 11},
            "repairs": [
                {"kind": "missing_closer", "offset": 11},
                {"kind": "missing_closer", "offset": 11},
            ],
            "truncated": true,
        })
    );
}

#[test]
fn clean_input_has_an_empty_report() {
    let out = run(&["repair", "--report"], b"{\"a\":1}");
    assert_eq!(out.stdout, "{\"a\":1}\n");
    assert_eq!(
        out.stderr,
        "{\"strategy\":\"whole\",\"span\":{\"start\":0,\"end\":7},\"repairs\":[],\"truncated\":false}\n"
    );
    assert_eq!(out.code, Some(0));
}

#[test]
fn empty_input_is_exit_1() {
    let out = run(&["repair"], b"");
    assert_eq!(out.stdout, "");
    assert!(out.stderr.starts_with("error: no JSON value found"));
    assert_eq!(
        out.stderr,
        "error: no JSON value found: the reply is empty (line 1, column 1)\n"
    );
    assert_eq!(out.code, Some(1));
}

#[test]
fn empty_input_with_report_prints_no_report() {
    let out = run(&["repair", "--report"], b"");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "error: no JSON value found: the reply is empty (line 1, column 1)\n"
    );
    assert_eq!(out.code, Some(1));
}

#[test]
fn whitespace_input_is_exit_1() {
    let out = run(&["repair"], b"  \n\t\n");
    assert_eq!(out.stdout, "");
    assert!(out.stderr.starts_with(
        "error: no JSON value found: the reply is only whitespace (line 1, column 1)"
    ));
    assert_eq!(out.code, Some(1));
}

#[test]
fn unrecoverable_input_shows_where() {
    let out = run(&["repair"], b":::");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "error: no JSON value found (line 1, column 4)\n  near: :::\n"
    );
    assert_eq!(out.code, Some(1));
}

#[test]
fn too_deep_is_exit_1() {
    let out = run(&["repair"], "[".repeat(200).as_bytes());
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        format!(
            "error: nesting deeper than 128 levels (line 1, column 129)\n  near: {}\n",
            "[".repeat(40)
        )
    );
    assert_eq!(out.code, Some(1));
}

#[test]
fn invalid_utf8_is_exit_1() {
    let out = run(&["repair"], b"[1, \xff]");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "error: invalid UTF-8 at byte 4 (line 1, column 5)\n  near: [1, \n"
    );
    assert_eq!(out.code, Some(1));
}

#[test]
fn invalid_utf8_in_a_file_is_exit_1() {
    let file = TempFile::new("utf8", b"{\"a\": \"caf\xe9\"}");
    let out = run(&["repair", file.arg()], b"");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "error: invalid UTF-8 at byte 10 (line 1, column 11)\n  near: {\"a\": \"caf\n"
    );
    assert_eq!(out.code, Some(1));
}

#[test]
fn missing_file_is_exit_1() {
    let path = std::env::temp_dir().join(format!(
        "serde-llm-cli-test-{}-does-not-exist.txt",
        std::process::id()
    ));
    let io = std::fs::read(&path).expect_err("the file does not exist");
    let arg = path.to_str().expect("temp path is UTF-8");
    let out = run(&["repair", arg], b"{}");
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, format!("error: cannot read {arg}: {io}\n"));
    assert_eq!(out.code, Some(1));
}

#[test]
fn unknown_flag_is_exit_2() {
    let out = run(&["repair", "--bogus"], b"{}");
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .starts_with("error: unexpected argument '--bogus' found"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, Some(2));
}

#[test]
fn missing_verb_is_exit_2() {
    let out = run(&[], b"{}");
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("Usage: serde-llm <COMMAND>"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, Some(2));
}

#[test]
fn unknown_verb_is_exit_2() {
    let out = run(&["frob"], b"{}");
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .starts_with("error: unrecognized subcommand 'frob'"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, Some(2));
}

#[test]
fn two_files_is_exit_2() {
    let out = run(&["repair", "a.txt", "b.txt"], b"");
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .starts_with("error: unexpected argument 'b.txt' found"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, Some(2));
}

#[test]
fn usage_errors_have_no_colour_even_when_forced() {
    let out = run_with_env(
        &["repair", "--bogus"],
        b"",
        &[("CLICOLOR_FORCE", "1"), ("FORCE_COLOR", "1")],
    );
    assert_eq!(out.code, Some(2));
    assert!(!out.stderr.contains('\x1b'), "{:?}", out.stderr);
}

#[test]
fn help_and_version_are_exit_0() {
    let out = run(&["--help"], b"");
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stderr, "");
    assert!(
        out.stdout.starts_with("Recover the JSON value"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("Usage: serde-llm <COMMAND>"));
    assert!(out.stdout.contains("repair"));
    assert!(!out.stdout.contains('\x1b'));

    let out = run(&["repair", "--help"], b"");
    assert_eq!(out.code, Some(0));
    assert!(out
        .stdout
        .contains("Usage: serde-llm repair [OPTIONS] [FILE]"));
    assert!(out.stdout.contains("--report"));

    let out = run(&["help", "repair"], b"");
    assert_eq!(out.code, Some(0));
    assert!(out.stdout.contains("--report"));

    let out = run(&["--version"], b"");
    assert_eq!(out.code, Some(0));
    assert_eq!(
        out.stdout,
        format!("serde-llm {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn output_is_deterministic() {
    let first = run(&["repair", "--report"], FENCED_REPLY.as_bytes());
    for _ in 0..3 {
        let again = run(&["repair", "--report"], FENCED_REPLY.as_bytes());
        assert_eq!(again.stdout, first.stdout);
        assert_eq!(again.stderr, first.stderr);
        assert_eq!(again.code, first.code);
    }
}

#[test]
fn strict_extracts_but_repairs_nothing() {
    let out = run(
        &["repair", "--strict"],
        b"Sure:\n```json\n{\"a\": [1, 2]}\n```\nBye.",
    );
    assert_eq!(out.stdout, "{\"a\":[1,2]}\n");
    assert_eq!(out.code, Some(0));
    let out = run(&["repair", "--strict"], b"{\"a\": [1, 2,]}");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "error: a trailing comma (the decoder does not allow the `trailing_comma` repair) (line 1, column 12)\n  near: {\"a\": [1, 2,]}\n"
    );
    assert_eq!(out.code, Some(1));
}

#[test]
fn max_repairs_lists_what_was_needed() {
    let out = run(&["repair", "--max-repairs", "1"], b"[1, 2,]");
    assert_eq!(out.stdout, "[1,2]\n");
    assert_eq!(out.code, Some(0));
    let out = run(&["repair", "--max-repairs", "1"], b"{a: 'x',}");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "error: the reply needed 3 repairs and coercions, more than the 1 allowed\n\
         line 1, column 2: a key without quotes\n\
         line 1, column 5: a string not in double quotes\n\
         line 1, column 8: a trailing comma\n"
    );
    assert_eq!(out.code, Some(1));
    let out = run(&["repair", "--max-repairs", "x"], b"[]");
    assert_eq!(out.code, Some(2));
}

// The trust rows: prose with no JSON in it is exit 1 with a NoJson message
// (never a JSON string), a fenced value after an intro with a comma is the
// value, and bytes: an incomplete UTF-8 sequence at the end is truncation,
// invalid UTF-8 elsewhere is exit 1 unless `--lossy`.

/// The one-line report `--report` wrote on stderr.
fn report(out: &Output) -> serde_json::Value {
    serde_json::from_str(&out.stderr)
        .unwrap_or_else(|e| panic!("the report is not JSON ({e}): {:?}", out.stderr))
}

/// Exit 1, nothing on stdout, a NoJson message saying what was looked for.
#[track_caller]
fn assert_no_json(input: &str) {
    for args in [&["repair"][..], &["repair", "--report"][..]] {
        let out = run(args, input.as_bytes());
        assert_eq!(out.code, Some(1), "{input:?} {args:?}: {out:?}");
        assert_eq!(out.stdout, "", "{input:?} {args:?}");
        assert!(
            out.stderr.starts_with("error: no JSON value found"),
            "{input:?} {args:?}: {:?}",
            out.stderr
        );
        assert!(
            out.stderr.contains("looked for"),
            "{input:?} {args:?}: {:?}",
            out.stderr
        );
    }
}

#[test]
fn a_refusal_is_exit_1() {
    assert_no_json("I'm sorry, but I can't share that.");
}

#[test]
fn a_stream_before_its_json_is_exit_1() {
    assert_no_json("Here you go:");
}

#[test]
fn a_number_in_prose_is_exit_1() {
    assert_no_json("The total is 12, roughly.");
}

#[test]
fn a_fenced_value_after_an_intro_with_a_comma() {
    let out = run(
        &["repair"],
        b"Sure, here it is:\n```json\n{a: 1, b: [2, 3,]}\n```",
    );
    assert_eq!(out.stdout, "{\"a\":1,\"b\":[2,3]}\n");
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn the_issue_fenced_reply() {
    let out = run(
        &["repair"],
        b"Sure! Here it is, as requested:\n```json\n{a: 1, b: 2, c: 3}\n```",
    );
    assert_eq!(out.stdout, "{\"a\":1,\"b\":2,\"c\":3}\n");
    assert_eq!(out.code, Some(0));
}

#[test]
fn an_incomplete_sequence_at_the_end_is_truncation() {
    let out = run(&["repair", "--report"], b"{\"a\": \"caf\xc3");
    assert_eq!(out.stdout, "{\"a\":\"caf\"}\n");
    assert_eq!(out.code, Some(0));
    assert_eq!(report(&out)["truncated"], true);
}

#[test]
fn invalid_utf8_elsewhere_is_exit_1_without_lossy() {
    let out = run(&["repair"], b"[\"a\xffb\"]");
    assert_eq!(out.code, Some(1));
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.starts_with("error: invalid UTF-8 at byte 3"),
        "{:?}",
        out.stderr
    );
}

#[test]
fn lossy_replaces_invalid_utf8_and_records_a_repair() {
    let out = run(&["repair", "--lossy"], b"[\"a\xffb\"]");
    assert_eq!(out.stdout, "[\"a\u{FFFD}b\"]\n");
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));

    let out = run(&["repair", "--lossy", "--report"], b"[\"a\xffb\"]");
    assert_eq!(out.stdout, "[\"a\u{FFFD}b\"]\n");
    assert_eq!(out.code, Some(0));
    let report = report(&out);
    let repairs = report["repairs"].as_array().expect("repairs");
    assert_eq!(repairs.len(), 1, "{report}");
    assert_eq!(repairs[0]["offset"], 3, "{report}");
    assert_eq!(report["truncated"], false, "{report}");
}

#[test]
fn lossy_still_drops_an_incomplete_sequence_at_the_end() {
    let out = run(&["repair", "--lossy", "--report"], b"[\"ok\", \"caf\xc3");
    assert_eq!(out.stdout, "[\"ok\",\"caf\"]\n");
    assert_eq!(out.code, Some(0));
    assert_eq!(report(&out)["truncated"], true);
}

// `stream`: the input is decoded as it arrives. A test that writes its whole
// input at once gives the binary one chunk (a pipe write this small is
// atomic); `run_in_steps` gives it one chunk per step.

/// How long a step may wait for its lines before the binary is killed.
const STEP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Runs `serde-llm` with `args`, one step at a time: writes the step's chunk
/// to its stdin, then reads the step's lines from its stdout (the binary is
/// killed and the test fails if they take longer than [`STEP_TIMEOUT`]) and
/// checks them, before the next step. The last step's chunk is followed by
/// the end of stdin, and its lines are all that stdout has left. Every other
/// step expects at least one line: that is what keeps the chunks apart.
#[track_caller]
fn run_in_steps(args: &[&str], steps: &[(&[u8], &[&str])]) -> Output {
    use std::io::BufRead;

    let mut child = Command::new(env!("CARGO_BIN_EXE_serde-llm"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serde-llm");
    let mut stdin = Some(child.stdin.take().expect("stdin is piped"));
    let stdout = child.stdout.take().expect("stdout is piped");
    // Lines arrive on a channel so that waiting for one can time out.
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.expect("stdout is UTF-8")).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    for (i, (chunk, lines)) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        assert!(last || !lines.is_empty(), "step {i} expects no line");
        let mut pipe = stdin.take().expect("stdin is open");
        pipe.write_all(chunk).expect("write a chunk");
        pipe.flush().expect("flush a chunk");
        if last {
            drop(pipe); // The end of stdin.
        } else {
            stdin = Some(pipe);
        }
        let mut got = Vec::new();
        while last || got.len() < lines.len() {
            match rx.recv_timeout(STEP_TIMEOUT) {
                Ok(line) => got.push(line),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) if last => break,
                Err(e) => {
                    let _ = child.kill();
                    panic!("step {i}: no line after {STEP_TIMEOUT:?} ({e}); lines so far: {seen:?} then {got:?}");
                }
            }
        }
        assert_eq!(
            got,
            *lines,
            "step {i}, after {:?}",
            String::from_utf8_lossy(chunk)
        );
        seen.extend(got);
    }
    reader.join().expect("stdout reader");
    let out = child.wait_with_output().expect("wait for serde-llm");
    Output {
        code: out.status.code(),
        stdout: seen.iter().map(|l| format!("{l}\n")).collect(),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// `FENCED_REPLY`'s value as `stream` prints it: keys sorted.
const FENCED_VALUE: &str =
    "{\"label\":\"spam\",\"reasons\":[\"all caps\",\"3 links\"],\"score\":0.93}";

#[test]
fn stream_prints_a_fenced_value() {
    let out = run(&["stream"], FENCED_REPLY.as_bytes());
    assert_eq!(out.stdout, format!("{FENCED_VALUE}\n"));
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));

    let file = TempFile::new("stream", FENCED_REPLY.as_bytes());
    let out = run(&["stream", file.arg()], b"ignored: stdin is not read");
    assert_eq!(out.stdout, format!("{FENCED_VALUE}\n"));
    assert_eq!(out.code, Some(0));
}

#[test]
fn stream_ends_a_cut_off_reply_with_its_completed_value() {
    // The view shows a number once it is complete; the end completes it.
    let out = run(&["stream"], b"{\"a\": [1, 2, {\"b\": \"trunc\", \"n\": 4");
    assert_eq!(
        out.stdout,
        "{\"a\":[1,2,{\"b\":\"trunc\"}]}\n{\"a\":[1,2,{\"b\":\"trunc\",\"n\":4}]}\n"
    );
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn stream_prints_before_the_input_ends() {
    let (first, rest) = FENCED_REPLY.split_at(FENCED_REPLY.find("am'").expect("a cut"));
    assert!(first.ends_with("{label: 'sp"), "{first:?}");
    let out = run_in_steps(
        &["stream"],
        &[
            (first.as_bytes(), &["{\"label\":\"sp\"}"]),
            (rest.as_bytes(), &[FENCED_VALUE]),
        ],
    );
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn stream_deltas_in_steps() {
    let out = run_in_steps(
        &["stream", "--deltas"],
        &[
            (
                b"Here:\n```json\n{\"title\": \"Br",
                &[
                    "{\"started\":\"$\",\"value\":{}}",
                    "{\"started\":\"$.title\",\"value\":\"\"}",
                    "{\"appended\":\"$.title\",\"text\":\"Br\"}",
                ],
            ),
            (
                b"ead\", \"tags\": [\"a\", \"b c",
                &[
                    "{\"appended\":\"$.title\",\"text\":\"ead\"}",
                    "{\"completed\":\"$.title\",\"value\":\"Bread\"}",
                    "{\"started\":\"$.tags\",\"value\":[]}",
                    "{\"started\":\"$.tags[0]\",\"value\":\"a\"}",
                    "{\"completed\":\"$.tags[0]\",\"value\":\"a\"}",
                    "{\"started\":\"$.tags[1]\",\"value\":\"b c\"}",
                ],
            ),
            (
                b"\"], \"n\": 12}\n```",
                &[
                    "{\"completed\":\"$.tags[1]\",\"value\":\"b c\"}",
                    "{\"completed\":\"$.tags\",\"value\":[\"a\",\"b c\"]}",
                    // A number first shows complete.
                    "{\"completed\":\"$.n\",\"value\":12}",
                    "{\"completed\":\"$\",\"value\":{\"n\":12,\"tags\":[\"a\",\"b c\"],\"title\":\"Bread\"}}",
                ],
            ),
        ],
    );
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn stream_deltas_end_with_the_completed_value() {
    // Cut off: no delta completes `$` (the `2` may go on), so the last line
    // does, with what the end makes of the reply.
    let out = run(&["stream", "--deltas"], b"{\"a\": \"x\", \"b\": [1, 2");
    assert_eq!(
        out.stdout,
        "{\"started\":\"$\",\"value\":{}}\n\
         {\"started\":\"$.a\",\"value\":\"\"}\n\
         {\"appended\":\"$.a\",\"text\":\"x\"}\n\
         {\"completed\":\"$.a\",\"value\":\"x\"}\n\
         {\"started\":\"$.b\",\"value\":[]}\n\
         {\"completed\":\"$.b[0]\",\"value\":1}\n\
         {\"completed\":\"$\",\"value\":{\"a\":\"x\",\"b\":[1,2]}}\n"
    );
    assert_eq!(out.code, Some(0));

    // Complete: the last delta is that line already; it is not repeated.
    let out = run(&["stream", "--deltas"], b"{\"a\": \"x\"}");
    assert_eq!(
        out.stdout,
        "{\"started\":\"$\",\"value\":{\"a\":\"x\"}}\n\
         {\"completed\":\"$\",\"value\":{\"a\":\"x\"}}\n"
    );
    assert_eq!(out.code, Some(0));
}

#[test]
fn stream_resets_when_a_later_value_wins() {
    let first: &[u8] = b"First {\"a\": \"x\"}, then ";
    let rest: &[u8] = b"the real one:\n```json\n{\"b\": 1}\n```";
    let out = run_in_steps(
        &["stream"],
        &[(first, &["{\"a\":\"x\"}"]), (rest, &["{\"b\":1}"])],
    );
    assert_eq!(out.code, Some(0));
    let out = run_in_steps(
        &["stream", "--deltas"],
        &[
            (
                first,
                &[
                    "{\"started\":\"$\",\"value\":{\"a\":\"x\"}}",
                    "{\"completed\":\"$\",\"value\":{\"a\":\"x\"}}",
                ],
            ),
            (
                rest,
                &[
                    "{\"reset\":true}",
                    "{\"started\":\"$\",\"value\":{\"b\":1}}",
                    "{\"completed\":\"$\",\"value\":{\"b\":1}}",
                ],
            ),
        ],
    );
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0));
}

#[test]
fn stream_stops_at_invalid_utf8() {
    // The lines before it stay; the error is the one `repair` gives.
    let out = run_in_steps(
        &["stream"],
        &[(b"[\"a\", ", &["[\"a\"]"]), (b"\"b\xff\", 3]", &[])],
    );
    assert_eq!(out.stdout, "[\"a\"]\n");
    assert_eq!(
        out.stderr,
        "error: invalid UTF-8 at byte 8 (line 1, column 9)\n  near: [\"a\", \"b\n"
    );
    assert_eq!(out.code, Some(1));
    let whole = run(&["repair"], b"[\"a\", \"b\xff\", 3]");
    assert_eq!(whole.stderr, out.stderr);
}

#[test]
fn stream_of_a_reply_with_no_json_is_exit_1() {
    let out = run(&["stream"], b"I'm sorry, but I can't share that.");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "error: no JSON value found: the reply is prose (\"I'm sorry, but I can't share that.\"); \
         looked for a bare value, ```json fences, <json> tags, and {…} or […] spans (line 1, column 1)\n  \
         near: I'm sorry, but I can\n"
    );
    assert_eq!(out.code, Some(1));

    let out = run(&["stream", "--deltas"], b"");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "error: no JSON value found: the reply is empty (line 1, column 1)\n"
    );
    assert_eq!(out.code, Some(1));
}

#[test]
fn stream_help_tells_the_line_shapes() {
    let out = run(&["--help"], b"");
    assert!(out.stdout.contains("stream"), "{}", out.stdout);
    let out = run(&["stream", "--help"], b"");
    assert_eq!(out.code, Some(0));
    assert!(out
        .stdout
        .contains("Usage: serde-llm stream [OPTIONS] [FILE]"));
    for shape in [
        "--deltas",
        "{\"started\":PATH,\"value\":V}",
        "{\"appended\":PATH,\"text\":S}",
        "{\"completed\":PATH,\"value\":V}",
        "{\"reset\":true}",
        "--lossy",
    ] {
        assert!(out.stdout.contains(shape), "{shape}: {}", out.stdout);
    }
    let out = run(&["stream", "--bogus"], b"");
    assert_eq!(out.code, Some(2));
}
