//! Any text, fed in pieces to the tolerant scanner resumed after each
//! piece (the engine a stream runs on): the events and repairs it writes
//! are those of one read of the whole text, and the view after each piece
//! (what was fed, then the rest read as if the text ended there) is one
//! read of the text so far. Never a panic.
//!
//! The input is cut as in the `stream` target: the first byte's low 3 bits
//! say how many piece lengths follow (0 to 7 bytes, each 0 to 255), the
//! rest is the text, cut by those lengths in turn (at most `MAX_PIECES`
//! pieces; a cut inside a UTF-8 character moves to its end). Only valid
//! UTF-8 is checked (the scanner reads `&str`).
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Pieces per input: each view is checked against a read of its prefix.
const MAX_PIECES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let (lens, text) = rest.split_at(usize::from(head & 7).min(rest.len()));
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let mut cuts = Vec::new();
    let mut at = 0;
    for piece in 0..MAX_PIECES {
        let Some(&len) = lens.get(piece % lens.len().max(1)) else {
            break;
        };
        at = (at + usize::from(len)).min(text.len());
        while !text.is_char_boundary(at) {
            at += 1;
        }
        if at >= text.len() {
            break;
        }
        cuts.push(at);
    }
    if let Err(e) = serde_llm::__private::resumed_scan_agrees(text, &cuts) {
        panic!("{e}: {text:?}");
    }
});
