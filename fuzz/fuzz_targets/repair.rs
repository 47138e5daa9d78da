//! Any bytes: `repair` never panics, what it returns is JSON text that
//! repairs to the same value, and decoding into `serde_json::Value` finds
//! that value too (or both fail), as `tests/robustness.rs` asks: but for a
//! reply with an ellipsis (`[1, ..., 3]`), an elision `repair` removes and a
//! decode refuses.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let decoded = serde_llm::from_llm_str::<serde_json::Value>(&text);
    let repaired = serde_llm::Decoder::new().repair_with_report(&text);
    // (An ellipsis anywhere: a candidate the decode refused for it may
    // be the one `repair` read, and the two then rank the others apart.)
    let elided = text.contains("...")
        || text.contains('…')
        || repaired.as_ref().is_ok_and(|(_, r)| {
            r.repairs
                .iter()
                .any(|r| r.kind == serde_llm::RepairKind::Elision)
        });
    match (&decoded, &repaired) {
        _ if elided => {}
        (Ok(v), Ok((r, _))) => {
            if let Ok(p) = serde_json::from_str::<serde_json::Value>(r) {
                assert_eq!(&p, v, "{text:?}: decode and repair differ");
            }
        }
        (Err(_), Err(_)) => {}
        _ => panic!("{text:?}: decode {decoded:?} but repair {repaired:?}"),
    }
    let Ok(json) = serde_llm::repair(&text) else {
        return;
    };
    match serde_json::from_str::<serde_json::Value>(&json) {
        Ok(value) => {
            let again = serde_llm::repair(&json).expect("valid JSON repairs");
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&again).unwrap(),
                value
            );
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
