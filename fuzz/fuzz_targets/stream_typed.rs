//! Any bytes, pushed in chunks into a `StreamDecoder` of a typed reply (a
//! struct holding a list of internally tagged tool calls, nested structs, a
//! partial string, an untyped member, a list of `Option`s, a map): after every push the typed view is
//! `from_llm_str_partial` of the text so far (the stream's central
//! property), and `finish()` is `from_llm_str` of the whole (the same value,
//! or an error for both). Never a panic. Two decoders run side by side: one
//! that shows only the typed view (`push`) and one that keeps the deltas
//! too (`push_deltas`).
//!
//! The input is cut into chunks as in the `stream` target: the first byte's
//! low 3 bits say how many chunk lengths follow (0 to 7 bytes, each 0 to
//! 255), the rest is the reply. Only valid UTF-8 replies are checked (the
//! `stream` target covers bytes). Bits 3 and 4 of the first byte pick the
//! type: the turn above, a post whose fields stream beside a flattened
//! part, or a struct beside a flattened map (of numbers, of structs); bit 5
//! set, `serde_json::Value` instead (the untyped view, as the Python
//! package streams it), or with bits 3 and 4 at 1 or 2 a struct with an
//! untagged or an internally tagged enum flattened into it; bit 6 set, a list of steps (JSON lines, gathered);
//! bit 7 set, a list of adjacently tagged enums (newtype variants grow in
//! place once their tag has come); bits 6 and 7 set, a list of adjacently
//! tagged enums with struct and tuple variants (read wherever their tag
//! is).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use serde_llm::{Decoder, Partial, StreamDecoder};

#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "tool", rename_all = "snake_case")]
enum Call {
    Search {
        #[llm(partial)]
        query: String,
        limit: Option<u32>,
    },
    Finish {
        #[llm(partial)]
        answer: String,
    },
    Stop,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Step {
    #[llm(required)]
    n: u32,
    #[llm(partial)]
    text: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Turn {
    #[llm(partial)]
    title: String,
    #[serde(default)]
    #[llm(partial)]
    calls: Vec<Call>,
    #[serde(default)]
    #[llm(partial)]
    steps: Vec<Step>,
    next: Option<Box<Step>>,
    extra: Option<serde_json::Value>,
    /// `null`s among steps (each `Option`'s view keeps the `Option`).
    #[serde(default)]
    #[llm(partial)]
    picks: Vec<Option<Step>>,
    /// A map whose members grow in place, parts inside them too.
    #[serde(default)]
    #[llm(partial)]
    marks: std::collections::BTreeMap<String, Option<Step>>,
}

/// A struct whose own fields stream beside a flattened part (its view
/// grows by both), read when bit 3 of the first byte is set.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Post {
    #[llm(partial)]
    body: String,
    #[serde(default)]
    #[llm(partial)]
    calls: Vec<Call>,
    #[serde(flatten)]
    meta: PostMeta,
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct PostMeta {
    #[llm(required)]
    author: String,
    #[llm(partial)]
    bio: Option<String>,
    next: Option<Step>,
}

/// A struct beside a flattened map of numbers (bits 3 and 4 of the first
/// byte: 2): its complete members go in as they come.
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Tally {
    #[llm(partial)]
    title: String,
    #[serde(default)]
    #[llm(partial)]
    calls: Vec<Call>,
    #[serde(flatten)]
    counts: std::collections::BTreeMap<String, u32>,
}

/// A struct beside a flattened map of structs (bits 3 and 4: 3).
#[derive(Debug, Deserialize, Partial, PartialEq)]
struct Shelf {
    #[llm(partial)]
    title: String,
    #[serde(flatten)]
    steps: std::collections::HashMap<String, Step>,
}

/// An adjacently tagged enum of newtype and unit variants (bit 7).
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
enum Output {
    Answer(#[llm(partial)] String),
    Steps(#[llm(partial)] Vec<Step>),
    Score(u32),
    Stop,
}

/// An adjacently tagged enum with struct and tuple variants (bits 6 and
/// 7): its view is read wherever the tag is written.
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum Action {
    Write {
        #[llm(partial)]
        path: String,
        #[llm(partial)]
        content: String,
        mode: Option<u32>,
    },
    Move(u32, u32),
    Note(#[llm(partial)] String),
    Stop,
}

/// An untagged enum (bit 5 and bits 3 and 4: 1, flattened into
/// [`FlatReply`]).
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(untagged)]
enum Reply {
    Call {
        tool: String,
        #[llm(partial)]
        args: Vec<String>,
    },
    Answer {
        #[llm(partial)]
        answer: String,
        notes: Option<String>,
    },
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct FlatReply {
    id: u32,
    #[serde(flatten)]
    body: Reply,
}

/// An internally tagged enum (bit 5 and bits 3 and 4: 2, flattened into
/// [`FlatSaid`]).
#[derive(Debug, Deserialize, Partial, PartialEq)]
#[serde(tag = "type")]
enum Said {
    Say {
        #[llm(partial)]
        text: String,
    },
    Call {
        tool: String,
        n: u32,
    },
}

#[derive(Debug, Deserialize, Partial, PartialEq)]
struct FlatSaid {
    id: u32,
    #[serde(flatten)]
    body: Said,
}

/// Pushes per input, the last one taking whatever is left.
const MAX_PUSHES: usize = 32;

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let (lens, reply) = rest.split_at(usize::from(head & 7).min(rest.len()));
    let Ok(reply) = std::str::from_utf8(reply) else {
        return;
    };
    if head & 0x20 != 0 {
        // Bit 5: untyped (`Value`, as the Python package streams), or an
        // enum flattened into a struct.
        return match (head >> 3) & 3 {
            1 => check::<FlatReply>(lens, reply),
            2 => check::<FlatSaid>(lens, reply),
            _ => check::<serde_json::Value>(lens, reply),
        };
    }
    if head & 0xC0 == 0xC0 {
        // Bits 6 and 7: adjacently tagged enums with struct variants.
        return check::<Vec<Action>>(lens, reply);
    }
    if head & 0x80 != 0 {
        // Bit 7: adjacently tagged enums, in a list (one at the root too).
        return check::<Vec<Output>>(lens, reply);
    }
    if head & 0x40 != 0 {
        // Bit 6: a list of steps (JSON lines gathered into it).
        return check::<Vec<Step>>(lens, reply);
    }
    match (head >> 3) & 3 {
        0 => check::<Turn>(lens, reply),
        1 => check::<Post>(lens, reply),
        2 => check::<Tally>(lens, reply),
        _ => check::<Shelf>(lens, reply),
    }
});

/// The stream's views and final value for `T` against the one-shot
/// decodes, `reply` pushed in chunks of the lengths `lens` cycles through.
fn check<T>(lens: &[u8], reply: &str)
where
    T: Partial + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    T::View: serde::de::DeserializeOwned + serde_llm::View + PartialEq + std::fmt::Debug,
{
    let decoder = Decoder::new();
    // One decoder shows only the typed view; the other keeps the deltas too.
    let mut dec = StreamDecoder::<T>::new();
    let mut full = StreamDecoder::<T>::new();
    let mut at = 0;
    for push in 0..MAX_PUSHES {
        let end = match lens.get(push % lens.len().max(1)) {
            Some(&len) if push + 1 < MAX_PUSHES => (at + usize::from(len)).min(reply.len()),
            _ => reply.len(),
        };
        let pushed = dec.push(&reply.as_bytes()[at..end]);
        let pushed_full = full.push_deltas(&reply.as_bytes()[at..end]).map(|_| ());
        at = end;
        let mut cut = at;
        while !reply.is_char_boundary(cut) {
            cut -= 1;
        }
        let prefix = &reply[..cut];
        let want = decoder.decode_partial::<T>(prefix);
        for (got, view) in [(pushed, dec.view()), (pushed_full, full.view())] {
            match (got, &want) {
                (Ok(()), Ok(want)) => assert_eq!(view, want, "the view after {prefix:?}"),
                (Err(_), Err(_)) => {}
                (got, want) => {
                    panic!("after {prefix:?}: the stream gave {got:?}, a decode {want:?}")
                }
            }
        }
        if at == reply.len() {
            break;
        }
    }
    let whole = serde_llm::from_llm_str::<T>(reply);
    for streamed in [dec.finish(), full.finish()] {
        match (streamed, &whole) {
            (Ok(s), Ok(w)) => {
                assert_eq!(
                    &s, w,
                    "finish() differs from a one-shot decode of {reply:?}"
                )
            }
            (Err(_), Err(_)) => {}
            (s, w) => panic!("finish() gave {s:?}, a one-shot decode of {reply:?} gave {w:?}"),
        }
    }
}
