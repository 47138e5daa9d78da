//! The options a [`Decoder`] is: one value, read by the choice among
//! candidates (`choose`), the views (`partial`) and the entry points
//! (`decoder`, where its builder methods are).

use crate::de::Policy;
use crate::extract::Strategies;
use crate::policy::{Accept, Allow, Rules};
use crate::scan::ScanOptions;

/// A configured decoder. [`from_llm_str`](crate::from_llm_str) and
/// [`repair`](crate::repair) use `Decoder::new()`.
///
/// ```
/// use serde_llm::{Decoder, Strategy};
///
/// #[derive(Debug, PartialEq, serde::Deserialize)]
/// struct Point { x: i32, y: i32 }
///
/// let decoder = Decoder::new().max_depth(16).strategy(Strategy::Balanced, false);
/// let p: Point = decoder.decode("```json\n{x: 1, y: 2}\n```").unwrap();
/// assert_eq!(p, Point { x: 1, y: 2 });
/// ```
#[derive(Clone, Debug)]
pub struct Decoder {
    pub(crate) opts: Options,
    /// The caller's test of a decode's report
    /// ([`accept_if`](Decoder::accept_if)): the one option that is not a
    /// plain value.
    pub(crate) accept: Option<Accept>,
}

/// A decoder's options that are plain values, in one `Copy` value: the
/// scanner's options ([`ScanOptions`]) and the Deserializer's
/// ([`Policy`](crate::de::Policy)) are built from it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub max_depth: usize,
    pub strategies: Strategies,
    pub allow: Allow,
    pub rules: Rules,
    pub max_repairs: Option<usize>,
    pub lossy: bool,
    /// Views of a reply still being written are read (see
    /// `ScanOptions::view`).
    pub view: bool,
    /// See `ScanOptions::lane`.
    #[cfg(test)]
    pub lane: bool,
}

impl Options {
    /// How the Deserializer reads a reply: for a typed target or not, with
    /// coercions listed whole for a report or only counted. A typed decode
    /// uses only what the schema allows to be cut off; an untyped one with
    /// every kind allowed completes everything.
    pub(crate) fn policy(&self, typed: bool, listed: bool) -> Policy {
        Policy {
            on: typed || self.allow != Allow::ALL,
            typed,
            allow: self.allow,
            rules: self.rules,
            max_depth: self.max_depth,
            listed,
            around: 0,
            view: self.view,
            #[cfg(test)]
            lane: self.lane,
        }
    }

    /// How the scanner reads a candidate: several spans gathered into one
    /// array (`multi`), with the partial policy on (`partial`).
    pub(crate) fn scan(&self, multi: bool, partial: bool) -> ScanOptions {
        ScanOptions {
            max_depth: self.max_depth,
            multi,
            partial,
            view: self.view,
            rules: self.rules,
            #[cfg(test)]
            lane: self.lane,
        }
    }
}
