//! JSON written inside a string (a double-encoded object or array), read
//! through a tape of its own, as the reply is: the Deserializer does not
//! re-enter the decoding pipeline for it.

use serde::Deserialize;

use super::{Deserializer, Policy};
use crate::report::RepairKind;
use crate::scan::tape::Tape;
use crate::scan::{lex, Scanner};

/// Decodes a JSON value written inside a string, repairing it as any reply,
/// with the kinds of repair it needed. `None` unless the whole string is
/// that one object or array, complete: `"[urgent] fix the login"` is text
/// that starts with a bracket, not an array.
pub(super) fn value(text: &str, policy: Policy) -> Option<(serde_json::Value, Vec<RepairKind>)> {
    let opts = policy.rescan();
    let span = 0..text.len();
    let mut tape = Tape::for_span(text.len());
    let summary = Scanner::over(text, std::slice::from_ref(&span), &opts).tape(&mut tape);
    let b = text.as_bytes();
    // One complete object or array, with nothing after it and nothing of
    // prose made into structure.
    let whole = !summary.truncated
        && summary.roots == 1
        && !summary.more_roots
        && summary.containers
        && !summary.prose_roots
        && summary
            .root_end
            .is_none_or(|end| lex::next_significant(b, end, b.len()) >= b.len())
        && !summary.repairs.iter().any(|r| {
            matches!(
                r.kind,
                RepairKind::TrailingText | RepairKind::MultipleValues | RepairKind::Skipped
            )
        });
    if !whole {
        return None;
    }
    let policy = Policy {
        on: false,
        typed: false,
        around: 0,
        listed: false,
        ..policy
    };
    let mut de = Deserializer::new(tape.cursor(text), policy, &[]);
    let value = serde_json::Value::deserialize(&mut de).ok()?;
    de.finish().ok()?;
    let mut repairs: Vec<RepairKind> = summary.repairs.iter().map(|r| r.kind).collect();
    // Repairs made inside strings nested in it.
    repairs.extend(de.into_fixes().2.into_iter().map(|r| r.kind));
    Some((value, repairs))
}
