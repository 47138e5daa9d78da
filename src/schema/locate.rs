//! Where a path is in a value serde_json read: the fast lane reads valid
//! JSON with serde_json, which says nothing of where a value is, so an
//! entry the schema reports from that lane (a default filled in, a member
//! left out) is placed afterwards by walking the JSON text to its path.
//! The tolerant path places its entries as it reads (`located`); it never
//! comes here.

use crate::error::Segment;

/// The byte offset in `json` (valid JSON text, as serde_json read it) of
/// the value at `path`, outermost step first; `None` if it is not there.
pub(crate) fn offset(json: &str, path: &[Segment]) -> Option<usize> {
    let b = json.as_bytes();
    let mut at = space(b, 0);
    for seg in path {
        at = match (seg, b.get(at)?) {
            (Segment::Key(key), b'{') => member(json, at, key)?,
            (Segment::Index(i), b'[') => element(b, at, *i)?,
            _ => return None,
        };
    }
    Some(at)
}

fn space(b: &[u8], mut at: usize) -> usize {
    while at < b.len() && matches!(b[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    at
}

/// The value of the member `key` of the object opening at `open`.
fn member(json: &str, open: usize, key: &str) -> Option<usize> {
    let b = json.as_bytes();
    let mut at = space(b, open + 1);
    let mut found = None;
    // The last member of that key wins, as serde_json's maps keep it.
    while b.get(at) == Some(&b'"') {
        let end = skip_string(b, at)?;
        let name: String = serde_json::from_str(&json[at..end]).ok()?;
        at = space(b, end);
        if b.get(at) != Some(&b':') {
            return None;
        }
        at = space(b, at + 1);
        if name == key {
            found = Some(at);
        }
        at = space(b, skip_value(b, at)?);
        match b.get(at) {
            Some(b',') => at = space(b, at + 1),
            _ => break,
        }
    }
    found
}

/// The `i`-th element of the array opening at `open`.
fn element(b: &[u8], open: usize, i: usize) -> Option<usize> {
    let mut at = space(b, open + 1);
    for _ in 0..i {
        at = space(b, skip_value(b, at)?);
        if b.get(at) != Some(&b',') {
            return None;
        }
        at = space(b, at + 1);
    }
    (b.get(at).is_some_and(|&c| c != b']')).then_some(at)
}

/// Past the string opening at `at`.
fn skip_string(b: &[u8], mut at: usize) -> Option<usize> {
    at += 1;
    while at < b.len() {
        match b[at] {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

/// Past the value starting at `at`.
fn skip_value(b: &[u8], at: usize) -> Option<usize> {
    match b.get(at)? {
        b'"' => skip_string(b, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = skip_string(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = at;
            while i < b.len() && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                i += 1;
            }
            Some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_values_by_path() {
        let json = r#" {"a": [1, {"b\"": "x", "c": {}}], "d": null, "a": [7]} "#;
        let at = |path: &[Segment]| offset(json, path).map(|i| &json[i..i + 3]);
        let key = |k: &str| Segment::Key(k.to_owned());
        assert_eq!(at(&[]), Some(r#"{"a"#));
        assert_eq!(at(&[key("a")]), Some("[7]"));
        assert_eq!(at(&[key("d")]), Some("nul"));
        assert_eq!(at(&[key("a"), Segment::Index(0)]), Some("7]}"));
        assert_eq!(at(&[key("a"), Segment::Index(1)]), None);
        assert_eq!(at(&[key("x")]), None);
        let first = r#"{"a": [1, {"b\"": "x", "c": {}}]}"#;
        let i = offset(first, &[key("a"), Segment::Index(1), key("c")]).unwrap();
        assert_eq!(&first[i..i + 2], "{}");
        let i = offset(first, &[key("a"), Segment::Index(1), key("b\"")]).unwrap();
        assert_eq!(&first[i..i + 3], "\"x\"");
    }
}
