//! Decoding a 1 MB document into a derived type, side by side with
//! `serde_json` in one criterion run:
//!
//! - `serde_json/valid`: `serde_json::from_str::<Doc>` on valid JSON;
//! - `serde_llm/valid`: `serde_llm::from_llm_str::<Doc>` on the same text;
//! - `serde_llm/messy`: the same records in a fenced reply with prose around
//!   it and about 1% of the records damaged the way models damage them;
//! - `serde_llm/repair`: the untyped `repair()` on the messy reply;
//! - `serde_llm/fenced`: the valid document inside a ```` ```json ```` fence
//!   with a sentence of prose before and after (the shape most replies have);
//! - `serde_llm/tolerant`: the valid document with the fast lane turned off
//!   (a depth limit of 127 skips it), so the tolerant scanner reads it;
//! - `decode_10mb`: serde_json on a 10 MB valid document, beside the messy
//!   reply of the same records pretty-printed and cut off before its final
//!   `]}` and fence (the shape a reply cut off by a token limit has), into
//!   a type whose list is marked partial;
//! - `schema_1mb`: `SchemaDecoder::decode` against [`doc_schema`], `Doc`'s
//!   JSON Schema as schemars writes it, on the valid document and the messy
//!   reply, beside `from_llm_str::<Doc>` on the same texts (and
//!   `from_llm_str::<Value>`, the cost of building a `serde_json::Value`,
//!   which the schema path builds too);
//! - `prefixes_20kb`: a 20 KB fenced reply decoded as a partial view at every
//!   prefix, as naive streaming would, beside one decode of the whole reply
//!   and a `StreamDecoder` fed one byte at a time (a view after each).
//!
//! The documents are generated from a fixed seed, so every run measures the
//! same bytes. Ratios are in `benches/README.md`.

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use serde::{Deserialize, Serialize};
use serde_llm::Partial;

#[derive(Debug, PartialEq, Serialize, Deserialize, Partial)]
struct Doc {
    #[llm(partial)]
    records: Vec<Record>,
}

/// [`Doc`] as a caller who expects cut-off replies writes it: the records
/// list may be cut off at the end (the records that arrived whole).
#[derive(Debug, PartialEq, Deserialize)]
struct CutDoc {
    #[serde(default, with = "serde_llm::partial")]
    records: Vec<Record>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Partial)]
struct Record {
    id: u64,
    name: String,
    email: String,
    active: bool,
    score: f64,
    balance: i64,
    tags: Vec<String>,
    address: Address,
    #[llm(partial)]
    note: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Partial)]
struct Address {
    street: String,
    city: String,
    zip: String,
}

/// [`Doc`]'s JSON Schema, as schemars writes it for these types (with the
/// `x-partial` marks of their `#[llm(partial)]` fields): what a caller
/// without the types, given only the schema, decodes against.
fn doc_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "records": {"type": "array", "items": {"$ref": "#/$defs/Record"}, "x-partial": true}
        },
        "required": ["records"],
        "$defs": {
            "Record": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "format": "uint64", "minimum": 0},
                    "name": {"type": "string"},
                    "email": {"type": "string"},
                    "active": {"type": "boolean"},
                    "score": {"type": "number", "format": "double"},
                    "balance": {"type": "integer", "format": "int64"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "address": {"$ref": "#/$defs/Address"},
                    "note": {"type": ["string", "null"], "x-partial": true}
                },
                "required": ["id", "name", "email", "active", "score", "balance", "tags", "address"]
            },
            "Address": {
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"},
                    "zip": {"type": "string"}
                },
                "required": ["street", "city", "zip"]
            }
        }
    })
}

fn schema_decoder() -> serde_llm::SchemaDecoder {
    serde_llm::SchemaDecoder::new(&doc_schema()).unwrap()
}

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
        active: rng.next() % 2 == 0,
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
        note: (rng.next() % 3 == 0).then(|| {
            format!(
                "Called on {}; said \"call back\".\nFollow up.",
                rng.pick(WORDS)
            )
        }),
    }
}

/// The valid document (about 1 MB) and a messy reply holding the same records.
fn documents() -> (Doc, String, String) {
    documents_of(1_000_000)
}

/// The same prose around a fence as the messy reply's.
const INTRO: &str = "Sure! Here are the records you asked for:\n\n```json\n";
const OUTRO: &str = "\n```\n\nLet me know if you need anything else!";

/// The valid document inside a fence, with prose before and after.
fn fenced(valid: &str) -> String {
    format!("{INTRO}{valid}{OUTRO}")
}

/// A valid document of about `size` bytes and a messy reply holding the same
/// records.
fn documents_of(size: usize) -> (Doc, String, String) {
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
    let mut messy = format!("{INTRO}{{\"records\": [\n");
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
    messy.push_str("]}");
    messy.push_str(OUTRO);
    (Doc { records }, valid, messy)
}

/// The messy reply pretty-printed (each damaged record as it was damaged,
/// the rest indented as `serde_json` pretty-prints them) and cut off after
/// its last record: its final `]}` and the fence never arrived.
fn cut_pretty(messy: &str) -> String {
    let body = &messy[INTRO.len()..messy.len() - OUTRO.len()];
    let mut out = String::from(INTRO);
    out.push_str("{\n  \"records\": [\n");
    let lines: Vec<&str> = body.lines().collect();
    // The first line opens the list, the last closes it.
    for (i, line) in lines[1..lines.len() - 1].iter().enumerate() {
        let record = line.trim_end_matches(',');
        let text = match serde_json::from_str::<serde_json::Value>(record) {
            Ok(v) => serde_json::to_string_pretty(&v).unwrap(),
            Err(_) => record.to_owned(),
        };
        if i > 0 {
            out.push_str(",\n");
        }
        for (k, l) in text.lines().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            out.push_str("    ");
            out.push_str(l);
        }
    }
    out.push('\n');
    out
}

fn decode(c: &mut Criterion) {
    let (doc, valid, messy) = documents();
    // The benchmark is only meaningful if all paths give the same value.
    assert_eq!(serde_json::from_str::<Doc>(&valid).unwrap(), doc);
    assert_eq!(serde_llm::from_llm_str::<Doc>(&valid).unwrap(), doc);
    assert_eq!(serde_llm::from_llm_str::<Doc>(&messy).unwrap(), doc);
    let repaired = serde_llm::repair(&messy).unwrap();
    assert_eq!(serde_json::from_str::<Doc>(&repaired).unwrap(), doc);
    let fenced = fenced(&valid);
    assert_eq!(serde_llm::from_llm_str::<Doc>(&fenced).unwrap(), doc);
    let tolerant = serde_llm::Decoder::new().max_depth(127);
    assert_eq!(tolerant.decode::<Doc>(&valid).unwrap(), doc);

    let mut group = c.benchmark_group("decode_1mb");
    group.throughput(Throughput::Bytes(valid.len() as u64));
    group.bench_with_input(BenchmarkId::new("serde_json", "valid"), &valid, |b, s| {
        b.iter(|| serde_json::from_str::<Doc>(s).unwrap())
    });
    group.bench_with_input(BenchmarkId::new("serde_llm", "valid"), &valid, |b, s| {
        b.iter(|| serde_llm::from_llm_str::<Doc>(s).unwrap())
    });
    group.bench_with_input(BenchmarkId::new("serde_llm", "messy"), &messy, |b, s| {
        b.iter(|| serde_llm::from_llm_str::<Doc>(s).unwrap())
    });
    group.bench_with_input(
        BenchmarkId::new("serde_llm_repair", "messy"),
        &messy,
        |b, s| b.iter(|| serde_llm::repair(s).unwrap()),
    );
    group.bench_with_input(BenchmarkId::new("serde_llm", "fenced"), &fenced, |b, s| {
        b.iter(|| serde_llm::from_llm_str::<Doc>(s).unwrap())
    });
    group.bench_with_input(BenchmarkId::new("serde_llm", "tolerant"), &valid, |b, s| {
        b.iter(|| tolerant.decode::<Doc>(s).unwrap())
    });
    group.finish();

    // The same document decoded against its JSON Schema: the value the
    // schema path builds is the typed path's, read back.
    let schema = schema_decoder();
    let read = |v: serde_json::Value| Doc::deserialize(v).unwrap();
    assert_eq!(read(schema.decode(&valid).unwrap()), doc);
    assert_eq!(read(schema.decode(&messy).unwrap()), doc);
    let mut group = c.benchmark_group("schema_1mb");
    group.throughput(Throughput::Bytes(valid.len() as u64));
    for (name, text) in [("valid", &valid), ("messy", &messy)] {
        group.bench_with_input(BenchmarkId::new("typed", name), text, |b, s| {
            b.iter(|| serde_llm::from_llm_str::<Doc>(s).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("value", name), text, |b, s| {
            b.iter(|| serde_llm::from_llm_str::<serde_json::Value>(s).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("schema", name), text, |b, s| {
            b.iter(|| schema.decode(s).unwrap())
        });
    }
    group.finish();

    let (doc, valid, messy) = documents_of(10_000_000);
    let cut = cut_pretty(&messy);
    let records = serde_llm::from_llm_str::<CutDoc>(&cut).unwrap().records;
    assert_eq!(records, doc.records);
    let mut group = c.benchmark_group("decode_10mb");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(valid.len() as u64));
    group.bench_with_input(BenchmarkId::new("serde_json", "valid"), &valid, |b, s| {
        b.iter(|| serde_json::from_str::<Doc>(s).unwrap())
    });
    group.throughput(Throughput::Bytes(cut.len() as u64));
    group.bench_with_input(BenchmarkId::new("serde_llm", "cut_pretty"), &cut, |b, s| {
        b.iter(|| serde_llm::from_llm_str::<CutDoc>(s).unwrap())
    });
    group.finish();
}

/// A fenced reply of about 20 KB holding the first records, and how many.
fn small_reply(doc: &Doc) -> (String, usize) {
    let mut reply = String::from("Here you go:\n```json\n{\"records\": [\n");
    let mut n = 0;
    for r in &doc.records {
        if n > 0 {
            reply.push_str(",\n");
        }
        reply.push_str(&serde_json::to_string(r).unwrap());
        n += 1;
        if reply.len() > 20_000 {
            break;
        }
    }
    reply.push_str("\n]}\n```\nDone.");
    (reply, n)
}

fn prefixes(c: &mut Criterion) {
    let (doc, _, _) = documents();
    let (reply, n) = small_reply(&doc);
    let cuts: Vec<usize> = (1..=reply.len())
        .filter(|&i| reply.is_char_boundary(i))
        .collect();
    let full = serde_llm::from_llm_str_partial::<Doc>(&reply)
        .unwrap()
        .unwrap();
    let ids: Vec<Option<u64>> = full.records.unwrap().iter().map(|r| r.id).collect();
    assert_eq!(ids, (0..n as u64).map(Some).collect::<Vec<_>>());

    let mut group = c.benchmark_group("prefixes_20kb");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(reply.len() as u64));
    group.bench_function("whole_reply_once", |b| {
        b.iter(|| serde_llm::from_llm_str_partial::<Doc>(&reply).unwrap())
    });
    group.bench_function("every_prefix", |b| {
        b.iter(|| {
            for &i in &cuts {
                let _ = serde_llm::from_llm_str_partial::<Doc>(&reply[..i]).unwrap();
            }
        })
    });
    // The same views from a StreamDecoder fed one byte at a time.
    let mut dec = serde_llm::StreamDecoder::<Doc>::new();
    for b in reply.as_bytes() {
        dec.push(std::slice::from_ref(b)).unwrap();
    }
    assert_eq!(dec.finish().unwrap().records.len(), n);
    group.bench_function("stream_every_byte", |b| {
        b.iter(|| {
            let mut dec = serde_llm::StreamDecoder::<Doc>::new();
            for b in reply.as_bytes() {
                dec.push(std::slice::from_ref(b)).unwrap();
                std::hint::black_box(dec.view());
            }
            dec.finish().unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, decode, prefixes);

/// `BENCH_ONCE=<path>` runs one path of `decode_1mb` once and exits, for
/// counting its instructions (`valgrind --tool=callgrind`), which do not
/// drift as wall time does; `BENCH_ONCE=none` only builds the documents, to
/// subtract. Without it, criterion runs as usual.
fn main() {
    if let Ok(paths) = std::env::var("BENCH_MIN") {
        return interleaved(&paths);
    }
    if let Ok(path) = std::env::var("BENCH_ONCE") {
        let (_, valid, messy) = documents();
        match path.as_str() {
            "serde_json" => drop(std::hint::black_box(
                serde_json::from_str::<Doc>(&valid).unwrap(),
            )),
            "valid" => drop(std::hint::black_box(
                serde_llm::from_llm_str::<Doc>(&valid).unwrap(),
            )),
            "messy" => drop(std::hint::black_box(
                serde_llm::from_llm_str::<Doc>(&messy).unwrap(),
            )),
            "repair" => drop(std::hint::black_box(serde_llm::repair(&messy).unwrap())),
            "fenced" => drop(std::hint::black_box(
                serde_llm::from_llm_str::<Doc>(&fenced(&valid)).unwrap(),
            )),
            "tolerant" => drop(std::hint::black_box(
                serde_llm::Decoder::new()
                    .max_depth(127)
                    .decode::<Doc>(&valid)
                    .unwrap(),
            )),
            "cut" => drop(std::hint::black_box(
                serde_llm::from_llm_str::<CutDoc>(&cut_pretty(&messy)).unwrap(),
            )),
            "value_messy" => drop(std::hint::black_box(
                serde_llm::from_llm_str::<serde_json::Value>(&messy).unwrap(),
            )),
            "value_valid" => drop(std::hint::black_box(
                serde_llm::from_llm_str::<serde_json::Value>(&valid).unwrap(),
            )),
            "schema_valid" => drop(std::hint::black_box(
                schema_decoder().decode(&valid).unwrap(),
            )),
            "schema_messy" => drop(std::hint::black_box(
                schema_decoder().decode(&messy).unwrap(),
            )),
            "schema_tolerant" => drop(std::hint::black_box(
                schema_decoder()
                    .with_decoder(serde_llm::Decoder::new().max_depth(127))
                    .decode(&valid)
                    .unwrap(),
            )),
            // Compiling the schema alone, to subtract.
            "schema_none" => drop(std::hint::black_box(schema_decoder())),
            "repair_value" => drop(std::hint::black_box(
                serde_json::from_str::<serde_json::Value>(&serde_llm::repair(&messy).unwrap())
                    .unwrap(),
            )),
            // The messy reply and the valid document as files, for timing
            // tools in other languages on the same bytes
            // (`benches/other_languages/run.sh`).
            "dump" => {
                let dir = std::env::var("BENCH_DUMP").unwrap_or_else(|_| ".".into());
                std::fs::write(format!("{dir}/messy.txt"), &messy).unwrap();
                std::fs::write(format!("{dir}/valid.json"), &valid).unwrap();
                std::fs::write(format!("{dir}/cut.txt"), cut_pretty(&messy)).unwrap();
                let start = std::time::Instant::now();
                let runs = 50;
                for _ in 0..runs {
                    std::hint::black_box(serde_llm::from_llm_str::<Doc>(&messy).unwrap());
                }
                let typed = start.elapsed().as_secs_f64() * 1e3 / f64::from(runs);
                let start = std::time::Instant::now();
                for _ in 0..runs {
                    std::hint::black_box(serde_llm::repair(&messy).unwrap());
                }
                let repair = start.elapsed().as_secs_f64() * 1e3 / f64::from(runs);
                println!("serde_llm from_llm_str::<Doc> {typed:.2} ms, repair {repair:.2} ms");
            }
            "sizes" => eprintln!(
                "valid {} B, messy {} B, fenced {} B, cut {} B",
                valid.len(),
                messy.len(),
                fenced(&valid).len(),
                cut_pretty(&messy).len()
            ),
            "cut_none" => drop(std::hint::black_box(cut_pretty(&messy))),
            "fenced_none" => drop(std::hint::black_box(fenced(&valid))),
            "none" => {}
            other => panic!(
                "BENCH_ONCE: no path {other:?} (serde_json, valid, messy, repair, fenced, fenced_none, tolerant, cut, cut_none, value_valid, value_messy, repair_value, schema_valid, schema_messy, schema_tolerant, schema_none, sizes, dump, none)"
            ),
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

/// `BENCH_MIN=serde_json,tolerant,...` times the named paths of
/// `decode_1mb` in turns (`BENCH_RUNS` rounds, 200 by default; each timed
/// run follows an untimed one of the same path) and prints
/// each one's fastest and middle run and their ratios to the first path's.
/// On a shared machine the fastest of many interleaved runs moves far less
/// than criterion's estimates, which take every run's share of the noise.
fn interleaved(paths: &str) {
    let (_, valid, messy) = documents();
    let fenced = fenced(&valid);
    let tolerant = serde_llm::Decoder::new().max_depth(127);
    let schema = schema_decoder();
    let runs: usize = std::env::var("BENCH_RUNS").map_or(200, |r| r.parse().unwrap());
    let paths: Vec<&str> = paths.split(',').collect();
    let run = |path: &str| {
        match path {
        "serde_json" => drop(std::hint::black_box(
            serde_json::from_str::<Doc>(&valid).unwrap(),
        )),
        "valid" => drop(std::hint::black_box(
            serde_llm::from_llm_str::<Doc>(&valid).unwrap(),
        )),
        "fenced" => drop(std::hint::black_box(
            serde_llm::from_llm_str::<Doc>(&fenced).unwrap(),
        )),
        "messy" => drop(std::hint::black_box(
            serde_llm::from_llm_str::<Doc>(&messy).unwrap(),
        )),
        "repair" => drop(std::hint::black_box(serde_llm::repair(&messy).unwrap())),
        "tolerant" => drop(std::hint::black_box(
            tolerant.decode::<Doc>(&valid).unwrap(),
        )),
        "value_valid" => drop(std::hint::black_box(
            serde_llm::from_llm_str::<serde_json::Value>(&valid).unwrap(),
        )),
        "value_messy" => drop(std::hint::black_box(
            serde_llm::from_llm_str::<serde_json::Value>(&messy).unwrap(),
        )),
        "schema_valid" => drop(std::hint::black_box(schema.decode(&valid).unwrap())),
        "schema_messy" => drop(std::hint::black_box(schema.decode(&messy).unwrap())),
        other => panic!(
            "BENCH_MIN: no path {other:?} (serde_json, valid, fenced, messy, repair, tolerant, value_valid, value_messy, schema_valid, schema_messy)"
        ),
    }
    };
    // Each timed run right after an untimed one of the same path, so that
    // every path finds its input in the cache, as in criterion's loops.
    let once = |path: &str| {
        run(path);
        let start = std::time::Instant::now();
        run(path);
        start.elapsed().as_secs_f64() * 1e3
    };
    let mut times = vec![Vec::with_capacity(runs); paths.len()];
    for _ in 0..runs {
        for (path, t) in paths.iter().zip(&mut times) {
            t.push(once(path));
        }
    }
    for t in &mut times {
        t.sort_by(f64::total_cmp);
    }
    let (min0, mid0) = (times[0][0], times[0][runs / 2]);
    for (path, t) in paths.iter().zip(&times) {
        let (min, mid) = (t[0], t[runs / 2]);
        println!(
            "{path:<12} fastest {min:.3} ms ({:.2}x)  middle {mid:.3} ms ({:.2}x)",
            min / min0,
            mid / mid0
        );
    }
}
