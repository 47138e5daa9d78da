//! The options a [`Decoder`] is: one value, read by the choice among
//! candidates (`choose`), the views (`partial`) and the entry points
//! (`decoder`, where its builder methods are).

use crate::extract::Strategies;
use crate::policy::{Accept, Allow, Rules};

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
    pub(crate) max_depth: usize,
    pub(crate) strategies: Strategies,
    pub(crate) allow: Allow,
    pub(crate) rules: Rules,
    pub(crate) max_repairs: Option<usize>,
    pub(crate) accept: Option<Accept>,
    pub(crate) lossy: bool,
    /// See `ScanOptions::lane`.
    #[cfg(test)]
    pub(crate) lane: bool,
}
