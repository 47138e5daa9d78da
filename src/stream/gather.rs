//! Values gathered into a list as they stream: a reply of JSON lines (one
//! object after another) for a sequence target, or an untyped one.
//!
//! A decode of such a reply gathers the objects into one list, and a view
//! of the text so far shows the complete ones as its elements (the cut last
//! one is left out until its closer arrives). So each object is read once,
//! when its closer arrives, as a list of one (`[`, its text, `]`) through
//! the one Deserializer, and put at the end of the views (the untyped one
//! with a `Started` delta): every byte is read once by the tokenizer, and
//! every object decoded once.
//!
//! Only where a decode surely reads the reply so: the reply from its start
//! (spaces before it at most), objects that are JSON as written, JSON's
//! spaces between them, none empty (an untyped decode leaves `{}` out), and
//! no backtick or `<` in them (a fence marker or a tag may make a decode read
//! another candidate). Anything else leaves this
//! mode for good, and the stream reads the whole text as before.

use std::ops::Range;

use super::json::{Sink, Status, Tokens};
use crate::partial::grow::{Level, Placed};
use crate::partial::View;
use crate::scan::Spare;
use crate::Decoder;

/// The stream's state while it reads gathered objects.
#[derive(Debug)]
pub(super) struct Gathered {
    /// Where the first object starts.
    pub(super) start: usize,
    /// The object being read, from where it opened; `None` between objects.
    object: Option<(usize, Tokens)>,
    /// Between objects: the next byte to look at.
    at: usize,
    max_depth: usize,
    /// The text of the element read last: `[`, an object, `]`.
    syn: String,
    spare: Spare,
}

/// The tokenizer's events, not needed here: only where an object ends.
struct Quiet;

impl Sink for Quiet {
    fn open(&mut self, _: &str, _: bool, _: usize) {}
    fn key(&mut self, _: &str, _: std::ops::Range<usize>) {}
    fn close(&mut self, _: &str, _: usize) {}
    fn scalar(&mut self, _: &str, _: std::ops::Range<usize>) {}
    fn string_start(&mut self, _: &str, _: usize) {}
    fn string_piece(&mut self, _: &str, _: &str, _: usize, _: bool) {}
    fn string_end(&mut self, _: &str, _: usize) {}
    fn string_settled(&mut self, _: &str, _: usize) {}
}

/// The text is not objects this mode reads.
#[derive(Debug)]
pub(super) struct Leave;

impl Gathered {
    /// Reads `text` from `start` as this mode does: the mode, where the
    /// object cut at the end of the text starts (the text's end if none
    /// is), and how many objects are complete. `None` if the text is not
    /// objects as written with spaces between, or no object is complete yet.
    pub(super) fn lock(
        text: &str,
        start: usize,
        max_depth: usize,
    ) -> Option<(Gathered, usize, usize)> {
        let mut g = Gathered {
            start,
            object: None,
            at: start,
            max_depth,
            syn: String::new(),
            spare: Spare::default(),
        };
        let mut complete = 0;
        while g.next(text).ok()?.is_some() {
            complete += 1;
        }
        let cut = g.object.as_ref().map_or(text.len(), |(at, _)| *at);
        (complete > 0).then_some((g, cut, complete))
    }

    /// Reads on in `text`: the next object complete (and the reading goes
    /// on after it), or `None` once the text so far is read.
    pub(super) fn next(&mut self, text: &str) -> Result<Option<Range<usize>>, Leave> {
        let b = text.as_bytes();
        if self.object.is_none() {
            let from = self.at;
            while self.at < b.len() && matches!(b[self.at], b' ' | b'\t' | b'\n' | b'\r') {
                self.at += 1;
            }
            crate::work::add(self.at - from);
            match b.get(self.at) {
                None => return Ok(None),
                Some(b'{') => self.object = Some((self.at, Tokens::new(self.at, self.max_depth))),
                Some(_) => return Err(Leave),
            }
        }
        let (open, tokens) = self.object.as_mut().expect("an object being read");
        let from = tokens.pos;
        let status = tokens.feed(text, &mut Quiet);
        let to = tokens.pos.min(b.len());
        crate::work::add(to - from);
        if b[from..to].iter().any(|&c| c == b'`' || c == b'<') {
            return Err(Leave);
        }
        match status {
            Status::Open => Ok(None),
            Status::Done(end) => {
                let object = *open..end;
                self.object = None;
                self.at = end;
                // An empty object carries nothing: an untyped decode leaves
                // it out of the list (and with a single other one, reads
                // that one alone).
                match text[object.start + 1..end - 1].trim_ascii().is_empty() {
                    true => Err(Leave),
                    false => Ok(Some(object)),
                }
            }
            Status::Bad(_) => Err(Leave),
        }
    }

    /// The object written at `object` read as a list of one `V`.
    pub(super) fn read<V: serde::de::DeserializeOwned>(
        &mut self,
        decoder: &Decoder,
        text: &str,
        object: &Range<usize>,
    ) -> Option<V> {
        self.syn.clear();
        self.syn.push('[');
        self.syn.push_str(&text[object.clone()]);
        self.syn.push(']');
        decoder.part::<V>(&self.syn, 0, &mut self.spare).ok()
    }
}

/// Puts `part`, a list of one, at the end of `view`, a list. `false` if the
/// view does not grow so.
pub(super) fn put<V: View>(view: &mut V, part: V) -> bool {
    let mut out = Placed::default();
    view.__place(part, &[Level::Element { has: false }], 0, &mut out);
    out.rebuild.is_none()
}
