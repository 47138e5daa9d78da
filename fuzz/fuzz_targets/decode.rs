//! Any bytes into typed and untyped targets: never a panic; where serde_json
//! accepts the text, serde_llm gives the same value (differential), and so
//! does strict mode for the typed target (the default decoder may coerce
//! more: a key in another style fills a field serde_json leaves empty).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;

#[derive(Debug, Deserialize, PartialEq)]
#[allow(dead_code)]
enum Kind {
    A,
    B(u8),
    C { x: Option<f64> },
}

/// Read from content serde buffers: a member of the wrong kind is read
/// again as the kind serde's error names (`Hint::Coerce`).
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "t")]
#[allow(dead_code)]
enum Call {
    S { q: String, n: u32, f: Option<f32> },
    F { a: bool, x: Option<i8> },
}

#[derive(Debug, Deserialize, PartialEq)]
#[allow(dead_code)]
struct Flat {
    id: Option<u64>,
    #[serde(flatten)]
    call: Call,
}

#[derive(Debug, Deserialize, PartialEq)]
#[allow(dead_code)]
struct Target {
    name: Option<String>,
    n: Option<i64>,
    tags: Option<Vec<String>>,
    kind: Option<Kind>,
    nested: Option<Box<Target>>,
}

fuzz_target!(|data: &[u8]| {
    let _ = serde_llm::from_llm_slice::<Target>(data);
    // serde_json skips an ignored member's string without checking its
    // UTF-8; we refuse invalid UTF-8 anywhere (or replace it, `lossy`).
    let utf8 = std::str::from_utf8(data).is_ok();
    if let (true, Ok(theirs)) = (utf8, serde_json::from_slice::<Target>(data)) {
        let ours = serde_llm::Decoder::strict().decode_slice::<Target>(data);
        assert_eq!(ours.expect("valid JSON decodes in strict mode"), theirs);
    }
    let _ = serde_llm::from_llm_slice::<Vec<Target>>(data);
    // Scalar targets read short prose (the one plausible value).
    let _ = serde_llm::from_llm_slice::<String>(data);
    let _ = serde_llm::from_llm_slice::<u32>(data);
    let _ = serde_llm::from_llm_slice::<f64>(data);
    let _ = serde_llm::from_llm_slice::<bool>(data);
    let _ = serde_llm::from_llm_slice::<Kind>(data);
    let _ = serde_llm::from_llm_slice::<Vec<Call>>(data);
    let _ = serde_llm::from_llm_slice::<Flat>(data);
    let ours = serde_llm::from_llm_slice::<serde_json::Value>(data);
    if let Ok(theirs) = serde_json::from_slice::<serde_json::Value>(data) {
        assert_eq!(ours.expect("valid JSON decodes"), theirs);
    }
});
