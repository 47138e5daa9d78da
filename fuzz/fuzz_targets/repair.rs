//! Any bytes: `repair` never panics, and what it returns is JSON text that
//! repairs to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(json) = serde_llm::repair(&text) else {
        return;
    };
    match serde_json::from_str::<serde_json::Value>(&json) {
        Ok(value) => {
            let again = serde_llm::repair(&json).expect("valid JSON repairs");
            assert_eq!(serde_json::from_str::<serde_json::Value>(&again).unwrap(), value);
        }
        // JSON's grammar has no number range and no depth limit; serde_json
        // refuses numbers beyond f64 (`1e999`, whose digits repair() keeps)
        // and stops at its own recursion limit (reached at 128 levels, which
        // serde_llm's default limit of 128 allows).
        Err(e) => assert!(
            e.to_string().starts_with("number out of range")
                || e.to_string().starts_with("recursion limit exceeded"),
            "repair() returned invalid JSON {json:?}: {e}"
        ),
    }
});
