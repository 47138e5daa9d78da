//! A deterministic count of the work the decoder does: the bytes each pass
//! of the extraction examines and the bytes each candidate's scan reads.
//!
//! Tests read it to check that the work stays linear in a reply's length
//! (wall time drifts; this does not). It is a per-thread counter, so
//! tests running in parallel do not see each other's work.

use std::cell::Cell;

thread_local! {
    static WORK: Cell<u64> = const { Cell::new(0) };
}

/// Counts `bytes` more examined.
#[inline]
pub(crate) fn add(bytes: usize) {
    WORK.with(|w| w.set(w.get().wrapping_add(bytes as u64)));
}

/// The bytes examined on this thread so far.
pub(crate) fn total() -> u64 {
    WORK.with(Cell::get)
}
