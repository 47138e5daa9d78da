//! Rule 9 of the trust issue: every extraction step is linear in the reply's
//! length. For each adversarial family, the work extraction and the scanner
//! do (`serde_llm::__private::work()`: bytes examined on this thread, a
//! deterministic counter) at n and 8n bytes: the ratio must stay under 16
//! (a quadratic step gives 64).
//!
//! Needs `serde_llm::__private::work()`, which the library adds with the fix.

use serde::Deserialize;
use serde_json::Value;
use serde_llm::{from_llm_str, repair};

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Abc {
    a: i64,
    b: i64,
    c: i64,
}

/// The work `f` does on this thread.
fn work_of(f: impl FnOnce()) -> u64 {
    let before = serde_llm::__private::work();
    f();
    serde_llm::__private::work() - before
}

/// `unit` repeated to about `len` bytes, then `tail`.
fn reply(unit: &str, len: usize, tail: &str) -> String {
    let mut s = unit.repeat(len / unit.len() + 1);
    s.push_str(tail);
    s
}

const N: usize = 32 << 10;

/// The work at n and 8n bytes, for every entry point: `Value`, `repair()`,
/// a struct, a sequence of structs.
#[track_caller]
fn assert_linear(family: &str, unit: &str, tail: &str) {
    let (small, big) = (reply(unit, N, tail), reply(unit, 8 * N, tail));
    type Run = fn(&str);
    let runs: [(&str, Run); 4] = [
        ("Value", |t| {
            let _ = from_llm_str::<Value>(t);
        }),
        ("repair", |t| {
            let _ = repair(t);
        }),
        ("struct", |t| {
            let _ = from_llm_str::<Abc>(t);
        }),
        ("Vec<struct>", |t| {
            let _ = from_llm_str::<Vec<Abc>>(t);
        }),
    ];
    for (how, run) in runs {
        let w1 = work_of(|| run(&small));
        let w8 = work_of(|| run(&big));
        // `--nocapture` shows the ratios (8 is linear, 64 quadratic).
        eprintln!("{family:<28} {how:<12} ratio {:.2}", w8 as f64 / w1 as f64);
        assert!(
            w1 > 0,
            "{family}, {how}: no work counted at {} bytes",
            small.len()
        );
        assert!(
            w8 < 16 * w1,
            "{family}, {how}: work {w1} at {} bytes, {w8} at {} bytes (ratio {:.1})",
            small.len(),
            big.len(),
            w8 as f64 / w1 as f64
        );
    }
}

const OBJECT: &str = "{\"a\": 1, \"b\": 2, \"c\": 3}";

#[test]
fn reasoning_blocks_of_the_issue() {
    // `<think>t</think> {} ` repeated (157 s at 4 MB before the fix).
    assert_linear("think blocks", "<think>t</think> {} ", "");
}

#[test]
fn reasoning_blocks_holding_candidates() {
    assert_linear(
        "think blocks with candidates",
        "<think>Maybe {\"a\": 0} or [1, 2]? ```json\n{\"a\": 0,}\n```</think> {} ",
        OBJECT,
    );
}

#[test]
fn many_fences() {
    assert_linear(
        "fences",
        "```json\n{\"a\": 0,}\n```\nand then, ",
        "```json\n{\"a\": 1, \"b\": 2, \"c\": 3}\n```",
    );
    assert_linear("open fences", "```json\n", OBJECT);
}

#[test]
fn many_placeholders() {
    assert_linear("placeholders", "Replace {x} with the value. ", OBJECT);
    assert_linear("named placeholders", "Dear %{name}, [1] ", OBJECT);
}

#[test]
fn many_stray_openers() {
    assert_linear("stray openers", "a { b [ c ", OBJECT);
    assert_linear("stray braces", "{ ", OBJECT);
}
