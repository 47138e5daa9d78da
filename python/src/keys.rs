//! A cache of object keys as Python strings (as pydantic-core and jiter keep
//! one): a reply repeats the same few keys in every element of a list, and a
//! cached key is one reference count, its hash already computed, instead of
//! a new string to allocate, copy, hash and free.

use std::cell::RefCell;

use pyo3::prelude::*;
use pyo3::types::PyString;

/// Slots in the cache (a power of two): each key goes to one slot by its
/// hash, and a new key takes the slot over.
const SLOTS: usize = 4096;

/// Keys longer than this are not cached (they are rarely repeated).
const LONGEST: usize = 64;

/// A slot: the key's hash and the string.
type Slot = Option<(u64, Py<PyString>)>;

thread_local! {
    static CACHE: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// FNV-1a: short keys, no setup.
fn hash(s: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `s` as a Python string, from the cache when it was seen before.
pub fn key<'py>(py: Python<'py>, s: &str) -> Bound<'py, PyString> {
    if s.len() > LONGEST {
        return PyString::new(py, s);
    }
    let h = hash(s.as_bytes());
    CACHE.with(|cache| {
        let Ok(mut cache) = cache.try_borrow_mut() else {
            return PyString::new(py, s);
        };
        if cache.is_empty() {
            cache.resize_with(SLOTS, || None);
        }
        let slot = &mut cache[(h as usize) & (SLOTS - 1)];
        if let Some((seen, k)) = slot {
            let k = k.bind(py);
            if *seen == h && k.to_str().is_ok_and(|t| t == s) {
                return k.clone();
            }
        }
        let k = PyString::new(py, s);
        *slot = Some((h, k.clone().unbind()));
        k
    })
}
