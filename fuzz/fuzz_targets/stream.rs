//! Any bytes, pushed in chunks into a `StreamDecoder<Value>`: never a panic;
//! after every push that succeeds the deltas so far, applied to `null`, build
//! `value()` (a push that fails gives its deltas with the next that
//! succeeds); and `finish()` is what `from_llm_slice` gives for the whole
//! input (the same value, or an error for both). The deltas keep their
//! promise: nothing shown is started again, nothing said complete changes,
//! but after a `Reset`.
//!
//! The input: the first byte's low 3 bits say how many chunk lengths follow
//! (0 to 7 bytes, each 0 to 255); the rest is the reply, cut by those lengths
//! in turn, over and over, for at most `MAX_PUSHES` pushes, the rest of the
//! reply going in the last. No lengths: the reply in one push. A length of 0
//! pushes an empty chunk; 1s push the reply a byte at a time, splitting its
//! UTF-8 characters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use serde_llm::{Delta, Path, Segment, StreamDecoder};

/// Pushes per input, the last one taking whatever is left (each push re-reads
/// the text so far).
const MAX_PUSHES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let (lens, reply) = rest.split_at(usize::from(head & 7).min(rest.len()));

    let mut dec = StreamDecoder::<Value>::new();
    let mut built = Value::Null;
    let mut completed = Vec::new();
    let mut at = 0;
    for push in 0..MAX_PUSHES {
        let end = match lens.get(push % lens.len().max(1)) {
            Some(&len) if push + 1 < MAX_PUSHES => (at + usize::from(len)).min(reply.len()),
            _ => reply.len(),
        };
        let chunk = &reply[at..end];
        at = end;
        if let Ok(deltas) = dec.push_deltas(chunk) {
            for delta in &deltas {
                if let Some(broken) = takes_back(&built, delta, &mut completed) {
                    panic!("after {at} bytes of {reply:?}: {broken} (in {deltas:?})");
                }
                delta.apply(&mut built);
            }
            assert_eq!(
                Some(&built),
                dec.value(),
                "the deltas after {at} bytes of {reply:?} build another value"
            );
        }
        if at == reply.len() {
            break;
        }
    }

    let streamed = dec.finish();
    let whole = serde_llm::from_llm_slice::<Value>(reply);
    match (streamed, whole) {
        (Ok(s), Ok(w)) => assert_eq!(s, w, "finish() differs from a one-shot decode of {reply:?}"),
        (Err(_), Err(_)) => {}
        (s, w) => panic!("finish() gave {s:?}, a one-shot decode of {reply:?} gave {w:?}"),
    }
});

/// Whether `d`, about to be applied to `built`, takes back what was shown:
/// a change under a path said complete since the last `Reset`
/// (`completed`), or a value started where one is shown.
fn takes_back(built: &Value, d: &Delta, completed: &mut Vec<Path>) -> Option<String> {
    let Some(path) = d.path() else {
        completed.clear();
        return None;
    };
    if let Some(done) = completed.iter().find(|c| path.starts_with(c)) {
        return Some(format!("{d:?} after {done} was complete"));
    }
    match d {
        Delta::Started { .. } => {
            let Some((last, parent)) = path.segments().split_last() else {
                return (!built.is_null()).then(|| format!("{d:?} over a view"));
            };
            let mut at = built;
            for seg in parent {
                at = match (seg, at) {
                    (Segment::Key(k), Value::Object(m)) if m.contains_key(&**k) => &m[&**k],
                    (Segment::Index(i), Value::Array(a)) if *i < a.len() => &a[*i],
                    _ => return Some(format!("{d:?} where nothing is shown")),
                };
            }
            let shown = match (last, at) {
                (Segment::Key(k), Value::Object(m)) => m.contains_key(&**k),
                (Segment::Index(i), Value::Array(a)) => *i < a.len(),
                _ => true,
            };
            shown.then(|| format!("{d:?} where a value is shown"))
        }
        Delta::Completed { .. } => {
            completed.push(path.clone());
            None
        }
        _ => None,
    }
}
