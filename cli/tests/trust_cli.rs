//! The trust issue's CLI rows: prose with no JSON in it is exit 1 with a
//! NoJson message (never a JSON string), a fenced value after an intro with
//! a comma is the value, and bytes: an incomplete UTF-8 sequence at the end
//! is truncation, invalid UTF-8 elsewhere is exit 1 unless `--lossy`.

use std::io::Write;
use std::process::{Command, Stdio};

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_serde-llm"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serde-llm");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    // Another thread, so a large input cannot deadlock against a full pipe;
    // a binary that exits without reading closes the pipe early.
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
