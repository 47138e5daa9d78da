//! Nothing a partial view shows is taken back: for every prefix of the
//! corpus replies (json_repair's, jsonrepair's and partial-json-parser's
//! suites, `tests/corpus/`) and the recorded replies (`examples/replies/`),
//! the partial view of `Value` is consistent with the view of the prefix
//! before it (`common::consistent`: a string only grows, a container keeps
//! what it showed, a value does not vanish). A stream shows these views one
//! after the other, so a view taken back is a value shown that the reply
//! then contradicts.
//!
//! Many corpus inputs are broken on purpose in ways only later text settles
//! (a quote that the next byte shows to be inside the string, a second value
//! that turns the reply into a list). The cases whose views are still taken
//! back are listed, each with its reason, in
//! `tests/corpus/views_taken_back.txt`; the test checks that each listed
//! case still is one, so a fix shows up as a case to strike off.

mod common;

use serde_json::Value;

/// The first prefix at which the view takes back what the view before it
/// showed: the two prefixes' ends and the two views.
fn taken_back(text: &str) -> Option<String> {
    let mut prev: Option<(usize, Value)> = None;
    for end in (0..=text.len()).filter(|&e| text.is_char_boundary(e)) {
        let view = serde_llm::from_llm_str_partial::<Value>(&text[..end]).unwrap_or(None);
        if let Some((at, shown)) = &prev {
            let kept = view.as_ref().is_some_and(|v| common::consistent(shown, v));
            if !kept {
                return Some(format!(
                    "{:?} showed {shown}; {:?} then shows {}",
                    &text[..*at],
                    &text[*at..end],
                    view.map_or("nothing".to_owned(), |v| v.to_string())
                ));
            }
        }
        if let Some(v) = view {
            prev = Some((end, v));
        }
    }
    None
}

fn replies() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for suite in ["json_repair", "jsonrepair_js", "partial_json_parser"] {
        for case in common::corpus(&format!("{suite}.jsonl")) {
            let id = case["id"].as_str().expect("id").to_owned();
            out.push((id, case["input"].as_str().expect("input").to_owned()));
        }
    }
    let dir = format!("{}/examples/replies", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for path in files {
        let name = path.file_name().expect("name").to_string_lossy();
        let text = std::fs::read_to_string(&path).expect("reply");
        out.push((format!("examples/replies/{name}"), text));
    }
    out
}

#[test]
fn a_partial_view_only_grows() {
    let listed = common::differences("views_taken_back.txt");
    let mut unexpected = Vec::new();
    let mut fixed = Vec::new();
    let mut seen = 0;
    for (id, text) in replies() {
        let back = taken_back(&text);
        match (&back, listed.contains_key(&id)) {
            (Some(how), false) => unexpected.push(format!("{id}: {how}")),
            (None, true) => fixed.push(id.clone()),
            _ => {}
        }
        seen += usize::from(listed.contains_key(&id));
    }
    assert_eq!(seen, listed.len(), "a listed case is not in the corpus");
    assert!(
        unexpected.is_empty(),
        "{} views taken back:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(
        fixed.is_empty(),
        "no longer taken back (strike them off tests/corpus/views_taken_back.txt):\n{}",
        fixed.join("\n")
    );
}
