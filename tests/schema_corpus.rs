//! json_repair's schema-guided cases (`tests/corpus/json_repair.jsonl`, every
//! case whose options carry a `schema`; licence and extraction in
//! `tests/corpus/README.md`), decoded by `SchemaDecoder` against the schema
//! itself, not a hand-written type (`tests/schema.rs` does that). The value
//! is compared with the peer's expected one, numbers by value; a `throws`
//! case (or one whose peer gives up) agrees when we give an error, a schema
//! we refuse included.
//!
//! json_repair has two schema modes (`standard` and `salvage`) that answer
//! the same input differently; we have one. Cases where we answer
//! differently on purpose are listed, with the reason, in
//! `tests/corpus/schema_runtime_differences.txt`; this test fails when a
//! listed case starts to agree or an unlisted case disagrees.

mod common;

use serde_json::Value;
use serde_llm::SchemaDecoder;

#[test]
fn json_repair_python_schema_at_run_time() {
    let list = "schema_runtime_differences.txt";
    let listed = common::differences(list);
    let cases: Vec<Value> = common::corpus("json_repair.jsonl")
        .into_iter()
        .filter(|c| c["options"].get("schema").is_some())
        .collect();
    let mut unexpected = Vec::new();
    for id in listed.keys() {
        if !cases.iter().any(|c| c["id"] == id.as_str()) {
            unexpected.push(format!(
                "{id} is listed but is no schema case; remove it from {list}"
            ));
        }
    }
    let mut agreed = 0;
    for case in &cases {
        let id = case["id"].as_str().expect("an id");
        let input = case["input"].as_str().expect("a string input");
        let schema = &case["options"]["schema"];
        let ours = SchemaDecoder::new(schema)
            .map_err(|e| e.to_string())
            .and_then(|d| d.decode(input).map_err(|e| e.to_string()));
        let expected = case.get("expected_value").filter(|v| !v.is_null());
        let agree = match (case["kind"].as_str(), expected) {
            (Some("throws"), _) | (_, None) => ours.is_err(),
            (_, Some(expected)) => ours.as_ref().is_ok_and(|v| common::same(v, expected)),
        };
        agreed += usize::from(agree);
        unexpected.extend(common::unexpected(&listed, list, id, agree, || {
            format!(
                "    input:    {input:?}\n    schema:   {schema}\n    expected: {}\n    ours:     {ours:?}",
                expected.map_or_else(|| format!("({})", case["kind"]), Value::to_string),
            )
        }));
    }
    println!(
        "json_repair schema cases at run time: {agreed}/{} agree",
        cases.len()
    );
    common::assert_none_unexpected(&unexpected);
}
