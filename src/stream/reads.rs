//! How a stream reads its view: as a type (`T::View`, through serde) or as
//! a runtime schema's value (see `schema::runtime`). The stream's engine is
//! the same for both; only these reads differ.

use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::delta::Segment;
use crate::error::Result;
use crate::partial::grow::{Kind, Route};
use crate::partial::View;
use crate::report::Reading;
use crate::scan::part::PartText;
use crate::scan::Spare;
use crate::shape::{self, Shape};
use crate::Decoder;

/// The reads a stream makes of its view `V`.
pub(crate) trait Reads<V>: Send + Sync {
    /// The view's shape (which candidates a decode prefers).
    fn shape(&self) -> Shape;

    /// A view of all of `text`, read by `decoder` (a viewing one), with
    /// what was done: what `Decoder::decode_partial` reads, before
    /// admission.
    fn whole(&self, decoder: &Decoder, text: &str) -> Result<(V, Reading)>;

    /// A part of a streaming reply (see `Decoder::part`), `part` saying
    /// what its text holds around it.
    fn part(
        &self,
        decoder: &Decoder,
        text: &PartText<'_>,
        part: Around<'_>,
        spare: &mut Spare,
    ) -> Result<V>;

    /// How a part of the node that `route` leads to is read (see
    /// `View::__kind_at`).
    fn kind_at(&self, view: &V, route: &[Route]) -> Kind;

    /// Whether a part may be read as a part of a node inside the view, as
    /// that node's own type (see `grow::Local`).
    fn local(&self) -> bool;

    /// Whether a value may be read as it arrives at all (else the whole
    /// text is read on every push).
    fn live(&self) -> bool;

    /// The path in the view that `route` leads to (a list's last element
    /// by its index): where a [`Change`] is. `None` if it leads nowhere.
    fn locate(&self, view: &V, route: &[Route]) -> Option<Vec<Segment>>;
}

/// Where a part's text stands (see [`Reads::part`]).
#[derive(Clone, Copy)]
pub(crate) struct Around<'a> {
    /// The levels of fields exempt from admission (see `Decoder::part`).
    pub around: usize,
    /// For each container around the part, outermost first, the tag
    /// member written before the part's own (an internally tagged enum's;
    /// a view that keeps members as they are, not as a type's fields,
    /// leaves it out).
    pub tags: &'a [Option<&'static str>],
}

/// A change to a stream's typed view, as the stream's engine made it (see
/// `StreamDecoder::take_changes`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Change {
    /// The value at this path was put in place (new, or read again).
    Put(Vec<Segment>),
    /// The string at this path grew by `text`.
    Grew(Vec<Segment>, String),
    /// Anything may have changed: the view was read again, or what is shown
    /// is another view.
    All,
}

/// How a stream reads its view: as its type, or by a [`Reads`].
pub(crate) enum Reader<V> {
    /// As `V`, through serde.
    Typed,
    By(Arc<dyn Reads<V>>),
}

impl<V> Clone for Reader<V> {
    fn clone(&self) -> Self {
        match self {
            Reader::Typed => Reader::Typed,
            Reader::By(r) => Reader::By(r.clone()),
        }
    }
}

impl<V: View + DeserializeOwned> Reader<V> {
    pub(crate) fn shape(&self) -> Shape {
        match self {
            Reader::Typed => shape::of::<V>(),
            Reader::By(r) => r.shape(),
        }
    }

    pub(crate) fn whole(&self, decoder: &Decoder, text: &str) -> Result<(V, Reading)> {
        match self {
            Reader::Typed => decoder.decode_as::<V>(text, shape::of::<V>(), true, false),
            Reader::By(r) => r.whole(decoder, text),
        }
    }

    pub(crate) fn part(
        &self,
        decoder: &Decoder,
        text: &PartText<'_>,
        part: Around<'_>,
        spare: &mut Spare,
    ) -> Result<V> {
        match self {
            Reader::Typed => decoder.part::<V>(text, part.around, spare),
            Reader::By(r) => r.part(decoder, text, part, spare),
        }
    }

    pub(crate) fn kind_at(&self, view: &V, route: &[Route]) -> Kind {
        match self {
            Reader::Typed => view.__kind_at(route),
            Reader::By(r) => r.kind_at(view, route),
        }
    }

    pub(crate) fn local(&self) -> bool {
        match self {
            Reader::Typed => true,
            Reader::By(r) => r.local(),
        }
    }

    pub(crate) fn live(&self) -> bool {
        match self {
            Reader::Typed => true,
            Reader::By(r) => r.live(),
        }
    }

    /// See [`Reads::locate`]; a typed view's changes are not located.
    pub(crate) fn locate(&self, view: &V, route: &[Route]) -> Option<Vec<Segment>> {
        match self {
            Reader::Typed => None,
            Reader::By(r) => r.locate(view, route),
        }
    }
}
