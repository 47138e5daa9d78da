//! Peak memory stays linear, and small, in a reply's length: for each
//! adversarial family, at n and 8n bytes, the decoder's own working memory is
//! at most `4·n + C` bytes.
//!
//! Measured with a counting global allocator (this binary only: it wraps
//! [`System`] and tracks the bytes currently allocated and their peak), so
//! the numbers are deterministic: no RSS, no timing.
//!
//! **The bound.** For one call, with the input already allocated:
//!
//! - *peak* is the most bytes allocated at once during the call, above what
//!   was allocated before it;
//! - *held* is what is still allocated when the call returns, its result
//!   kept: the output (a `Value`, a `Vec<String>`, the repaired text, an
//!   error);
//! - *working* = peak − held: what the decoder needed beyond its answer.
//!
//! The output can legitimately be larger than the input (an array of small
//! objects is some 30 times its text as a `serde_json::Value`), so the
//! bound is on working memory: `working ≤ 4·n + C`. For `repair()`,
//! whose output is a `String` about the size of the input, the whole peak is
//! bounded the same way: `peak ≤ 4·n + C`; so is the peak of what the
//! command line does (`serde-llm repair`, with and without `--report`). A
//! report is measured as working memory (the calls that return one drop it
//! before returning): it lists a run of the same repair as one entry, so a
//! reply repaired at every byte has a report of a few entries.
//!
//! `C` is [`C`] (64 KiB): room for the fixed costs of a call, whatever its
//! input — a scanner's first stack and buffer capacities, a `HashSet`'s
//! first table, the text of an error message, the depth limit's worth of
//! open containers, a stream decoder's buffers. Measured, they are under
//! 4 KiB for every family (what the working memory would be at n = 0, from
//! its values at n and 8n); 64 KiB leaves room for a change in a
//! dependency's first allocations without letting a cost per byte hide:
//! n is 64 KiB, so the test runs in a few seconds in a debug build, and at
//! 8n (512 KiB) `4·n` is 32 times `C`.
//!
//! Why 4: the decoder reads a candidate once onto its tape (at most two
//! bytes per byte of the reply, for the densest replies, `[1]` repeated:
//! three events in four bytes, with a third more for the tape's room to
//! grow), and may keep a copy of the text's size besides (the repaired JSON
//! text of `repair()`, a string unescaped into its own buffer) and a little
//! per byte (stacks and spans of a few bytes each per nested container or
//! candidate, whose inputs spend several bytes on each): one `Repair` (16
//! bytes) or one `Range<usize>` (16 bytes) per input byte would be 16·n and
//! fails.
//!
//! Errors are results too (a reply of `[` is nested deeper than the depth
//! limit): the bound holds either way.
//!
//! A `realloc` counts as the change in size, not as both blocks at once
//! (a large block grows in place or is remapped, as RSS would show); a
//! `Vec`'s unused capacity counts in full.
//!
//! Each test holds one lock while it measures, so that no other test
//! allocates while one is counted (the harness runs tests on several
//! threads).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use serde::Deserialize;
use serde_json::Value;
use serde_llm::{from_llm_str, repair, Decoder, StreamDecoder};

/// [`System`], counting the bytes allocated now and their peak.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = NOW.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; only counters are
// updated besides.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        NOW.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            // Counted as the change in size (the allocator grows a large
            // block in place or remaps it, as RSS would show), not as both
            // blocks at once.
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                NOW.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The fixed part of the bound (see the module's comment).
const C: usize = 64 << 10;

/// What one call allocated, in bytes above what was allocated before it.
#[derive(Clone, Copy, Debug)]
struct Usage {
    peak: usize,
    held: usize,
}

impl Usage {
    fn working(self) -> usize {
        self.peak.saturating_sub(self.held)
    }
}

/// Runs `f` and measures it, its result still held when `held` is read.
fn measure<R>(f: impl FnOnce() -> R) -> Usage {
    let before = NOW.load(Relaxed);
    PEAK.store(before, Relaxed);
    let result = f();
    let held = NOW.load(Relaxed).saturating_sub(before);
    let peak = PEAK.load(Relaxed) - before;
    drop(result);
    Usage { peak, held }
}

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Item {
    a: i64,
    b: String,
}

/// `unit` repeated to at least `len` bytes, between `head` and `tail`.
fn reply(head: &str, unit: &str, len: usize, tail: &str) -> String {
    let mut s = String::with_capacity(head.len() + len + unit.len() + tail.len());
    s.push_str(head);
    while s.len() < head.len() + len {
        s.push_str(unit);
    }
    s.push_str(tail);
    s
}

/// An API call measured on a reply, by name.
type Run = (&'static str, fn(&str) -> Usage);

/// One adversarial family: how its reply is made.
struct Family {
    name: &'static str,
    head: &'static str,
    unit: &'static str,
    tail: &'static str,
    /// The typed target that makes sense for it.
    typed: Run,
}

/// The API calls measured on every family. The calls with a report drop
/// it before they return, so it counts as working memory: a report listing
/// each repair of a reply repaired at every byte would be 16 bytes or more
/// for each byte. `serde-llm repair` (the CLI) calls `repair_slice`, which
/// is `repair` for UTF-8; with `--report` it serializes the report too,
/// holding both until it writes them.
fn runs(f: &Family) -> Vec<Run> {
    vec![
        ("Value", |t| measure(|| from_llm_str::<Value>(t))),
        ("repair", |t| measure(|| repair(t))),
        f.typed,
        ("Value+report", |t| {
            measure(|| {
                Decoder::new()
                    .decode_with_report::<Value>(t)
                    .map(|(value, _)| value)
            })
        }),
        ("repair+report", |t| {
            measure(|| Decoder::new().repair_with_report(t).map(|(json, _)| json))
        }),
        ("cli --report", |t| {
            measure(|| {
                let (json, report) = Decoder::new().repair_slice_with_report(t.as_bytes())?;
                let shown = serde_json::to_string(&report).expect("a report serializes");
                drop((report, shown));
                Ok::<_, serde_llm::Error>(json)
            })
        }),
    ]
}

const FAMILIES: &[Family] = &[
    Family {
        name: "`[` repeated",
        head: "",
        unit: "[",
        tail: "",
        typed: ("Vec<Value>", |t| measure(|| from_llm_str::<Vec<Value>>(t))),
    },
    Family {
        // One string with inner quotes, as a model's quoted words are.
        name: "`\"a\" ` repeated",
        head: "",
        unit: "\"a\" ",
        tail: "",
        typed: ("Vec<String>", |t| {
            measure(|| from_llm_str::<Vec<String>>(t))
        }),
    },
    Family {
        name: "`[1] ` repeated",
        head: "",
        unit: "[1] ",
        tail: "",
        typed: ("Vec<Vec<u8>>", |t| {
            measure(|| from_llm_str::<Vec<Vec<u8>>>(t))
        }),
    },
    Family {
        name: "`{\"a\": ` repeated",
        head: "",
        unit: "{\"a\": ",
        tail: "",
        typed: ("Item", |t| measure(|| from_llm_str::<Item>(t))),
    },
    Family {
        name: "array of objects, cut off",
        head: "[",
        unit: "{\"a\": 1, \"b\": \"x\"}, ",
        tail: "{\"a\": 2, \"b\": \"y",
        typed: ("Vec<Item>", |t| measure(|| from_llm_str::<Vec<Item>>(t))),
    },
    Family {
        name: "quoted numbers, coerced",
        head: "[",
        unit: "{\"a\": \"1\", \"b\": \"x\"}, ",
        tail: "{\"a\": \"2\", \"b\": \"y\"}]",
        typed: ("Vec<Item>", |t| measure(|| from_llm_str::<Vec<Item>>(t))),
    },
    Family {
        name: "`{name}` placeholders",
        head: "",
        unit: "Dear {name}, your order {id} ships {day}. ",
        tail: "{\"a\": 1, \"b\": \"x\"}",
        typed: ("Item", |t| measure(|| from_llm_str::<Item>(t))),
    },
    Family {
        name: "fenced reply",
        head: "Here it is:\n```json\n[",
        unit: "{\"a\": 1, \"b\": 'x',}, ",
        tail: "{\"a\": 2, \"b\": \"y\"}]\n```\nAnything else?",
        typed: ("Vec<Item>", |t| measure(|| from_llm_str::<Vec<Item>>(t))),
    },
    Family {
        // Dense: a `{` skipped at every byte, one run of one repair.
        name: "`{` repeated",
        head: "",
        unit: "{",
        tail: "",
        typed: ("Item", |t| measure(|| from_llm_str::<Item>(t))),
    },
    Family {
        // Dense: a key without quotes and a missing colon every two bytes.
        name: "`a{` repeated",
        head: "",
        unit: "a{",
        tail: "",
        typed: ("Item", |t| measure(|| from_llm_str::<Item>(t))),
    },
    Family {
        // Dense: a candidate in prose every four bytes.
        name: "`{x} ` placeholders, dense",
        head: "",
        unit: "{x} ",
        tail: "{\"a\": 1, \"b\": \"x\"}",
        typed: ("Item", |t| measure(|| from_llm_str::<Item>(t))),
    },
];

/// A `StreamDecoder::<Value>` fed the reply in 4 KiB chunks: its working
/// memory over all the pushes, against what it holds after the last (the
/// text, the view).
fn stream(text: &str) -> Usage {
    let mut dec = StreamDecoder::<Value>::new();
    let before = NOW.load(Relaxed);
    PEAK.store(before, Relaxed);
    for chunk in text.as_bytes().chunks(4 << 10) {
        let _ = dec.push(chunk);
    }
    let held = NOW.load(Relaxed).saturating_sub(before);
    let peak = PEAK.load(Relaxed) - before;
    drop(dec);
    Usage { peak, held }
}

const N: usize = 64 << 10;

/// One measurement: family, call, size, usage.
struct Row {
    family: &'static str,
    how: &'static str,
    n: usize,
    usage: Usage,
}

impl Row {
    /// The bound: working memory, and for the calls that give JSON text
    /// (`repair()`, the CLI) the whole peak.
    fn within(&self) -> bool {
        let limit = 4 * self.n + C;
        let text = matches!(self.how, "repair" | "repair+report" | "cli --report");
        self.usage.working() <= limit && (!text || self.usage.peak <= limit)
    }
}

fn print(rows: &[Row]) {
    eprintln!(
        "{:<28} {:<12} {:>9} {:>10} {:>10}",
        "family", "call", "n", "working/n", "peak/n"
    );
    for r in rows {
        eprintln!(
            "{:<28} {:<12} {:>9} {:>10.2} {:>10.2}{}",
            r.family,
            r.how,
            r.n,
            r.usage.working() as f64 / r.n as f64,
            r.usage.peak as f64 / r.n as f64,
            if r.within() { "" } else { "  over" }
        );
    }
}

/// Measures `families` at n and 8n through every call, and fails on any
/// measurement over the bound (`--nocapture` shows the table).
fn check(families: &[Family], stream_too: bool) {
    let mut rows = Vec::new();
    for f in families {
        for n in [N, 8 * N] {
            let text = reply(f.head, f.unit, n, f.tail);
            for (how, run) in runs(f) {
                let usage = run(&text);
                rows.push(Row {
                    family: f.name,
                    how,
                    n: text.len(),
                    usage,
                });
            }
        }
    }
    if stream_too {
        for n in [N, 8 * N] {
            let text = reply("", "{\"a\": [", n, "");
            rows.push(Row {
                family: "`{\"a\": [` streamed",
                how: "StreamDecoder",
                n: text.len(),
                usage: stream(&text),
            });
        }
    }
    print(&rows);
    let over: Vec<String> = rows
        .iter()
        .filter(|r| !r.within())
        .map(|r| {
            format!(
                "{} through {} at {} bytes: peak {}, held {}, working {} > 4·n + C = {}",
                r.family,
                r.how,
                r.n,
                r.usage.peak,
                r.usage.held,
                r.usage.working(),
                4 * r.n + C
            )
        })
        .collect();
    assert!(over.is_empty(), "over the bound:\n{}", over.join("\n"));
}

/// Held by each test: a measurement counts every thread's allocations, so
/// no other test of this binary may run meanwhile.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Every family, at n and 8n, through `from_llm_str::<Value>`, `repair`, a
/// typed target, the calls with a report and the CLI's, and a stream
/// decoder fed 4 KiB chunks.
#[test]
fn working_memory_is_at_most_four_times_the_input() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    check(FAMILIES, true);
}
