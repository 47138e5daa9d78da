//! A [`StreamDecoder`] driven by an async stream of chunks: [`DeltaStream`]
//! (feature `futures`).

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::{FusedStream, Stream};
use serde::de::DeserializeOwned;

use super::{Delta, StreamDecoder, Streamable};
use crate::error::{Error, Result};
use crate::report::Report;

/// Decodes a reply that arrives as an async stream of chunks: wraps any
/// [`Stream`] of `Result<B, E>` items, `B: AsRef<[u8]>` (bytes or text, split
/// anywhere, as a network body or an event stream's data fields give them;
/// `E` is the source's error, such as `std::io::Error`), and a
/// [`StreamDecoder<T>`], and is itself a [`Stream`] with one item per chunk:
/// the [`Delta`]s that chunk made (what
/// [`StreamDecoder::push_deltas`] returns), or the error, wrapped in [`StreamError`].
///
/// [`decoder`](Self::decoder) gives the decoder between items, for its
/// [`view`](StreamDecoder::view) and [`value`](StreamDecoder::value); when
/// the stream has ended, [`finish`](Self::finish) decodes the whole reply
/// into `T` (or [`into_decoder`](Self::into_decoder) gives the decoder back).
///
/// An error from the source is passed on as [`StreamError::Source`], and a
/// chunk the decoder refuses as [`StreamError::Decode`] (its deltas come
/// with the next chunk it takes, see [`StreamDecoder::push_deltas`]); either way the
/// next poll goes on with the source's next chunk, if it has one. The stream
/// ends when the source ends.
///
/// `S` must be [`Unpin`]; pin a stream that is not with `Box::pin(stream)`.
/// Nothing here needs a runtime: poll it from any executor.
///
/// ```
/// use serde_llm::{Delta, DeltaStream, Partial, StreamDecoder};
/// # use std::pin::Pin;
/// # use std::task::{Context, Poll};
/// # use futures_core::Stream;
/// #
/// # /// The chunks of a reply, as a network body would give them.
/// # struct Body(std::vec::IntoIter<&'static str>);
/// # impl Stream for Body {
/// #     type Item = Result<&'static str, std::io::Error>;
/// #     fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
/// #         Poll::Ready(self.0.next().map(Ok))
/// #     }
/// # }
/// # /// A minimal executor: `next(&mut s)` stands for `s.next().await`.
/// # fn next<S: Stream + Unpin>(s: &mut S) -> Option<S::Item> {
/// #     struct Noop;
/// #     impl std::task::Wake for Noop { fn wake(self: std::sync::Arc<Self>) {} }
/// #     let waker = std::task::Waker::from(std::sync::Arc::new(Noop));
/// #     loop {
/// #         if let Poll::Ready(item) = Pin::new(&mut *s).poll_next(&mut Context::from_waker(&waker)) {
/// #             return item;
/// #         }
/// #     }
/// # }
///
/// #[derive(Debug, PartialEq, serde::Deserialize, Partial)]
/// struct Answer {
///     title: String,
///     #[llm(partial)]
///     body: String,
/// }
///
/// let body = Body(vec!["Sure:\n```json\n{\"title\": \"Bread\", \"body\": \"Mix the fl", "our.\"}\n```"].into_iter());
/// let mut deltas = DeltaStream::new(body, StreamDecoder::<Answer>::new());
/// // In async code, with `futures::StreamExt`: `while let Some(step) = deltas.next().await`.
/// while let Some(step) = next(&mut deltas) {
///     for delta in step? {
///         if let Delta::Appended { path, text } = delta {
///             println!("{path} += {text:?}");
///         }
///     }
///     if let Some(view) = deltas.decoder().view() {
///         println!("so far: {:?}", view.body);
///     }
/// }
/// let answer = deltas.finish()?;
/// assert_eq!(answer, Answer { title: "Bread".into(), body: "Mix the flour.".into() });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DeltaStream<S, T: Streamable> {
    chunks: S,
    decoder: StreamDecoder<T>,
    /// The source has ended: it is not polled again.
    ended: bool,
}

// Nothing of the decoder is ever pinned: only `chunks` is polled in place.
impl<S: Unpin, T: Streamable> Unpin for DeltaStream<S, T> {}

impl<S, T> DeltaStream<S, T>
where
    T: Streamable,
{
    /// Decodes `chunks` with `decoder` (a new one, or one already fed the
    /// start of the reply), which keeps the untyped view and the deltas
    /// ([`StreamDecoder::with_deltas`]).
    pub fn new(chunks: S, decoder: StreamDecoder<T>) -> Self {
        DeltaStream {
            chunks,
            decoder: decoder.with_deltas(),
            ended: false,
        }
    }

    /// The decoder: the views and the text so far.
    pub fn decoder(&self) -> &StreamDecoder<T> {
        &self.decoder
    }

    /// The decoder, and the source with what it has not given yet.
    pub fn into_parts(self) -> (S, StreamDecoder<T>) {
        (self.chunks, self.decoder)
    }

    /// The decoder, to [`finish`](StreamDecoder::finish) or feed by hand.
    pub fn into_decoder(self) -> StreamDecoder<T> {
        self.decoder
    }

    /// Decodes the text received into `T`: [`StreamDecoder::finish`] (call it
    /// once the stream has ended, or the reply is what has arrived so far).
    pub fn finish(self) -> Result<T>
    where
        T: DeserializeOwned,
    {
        self.decoder.finish()
    }

    /// [`finish`](Self::finish), and what was done to the text.
    pub fn finish_with_report(self) -> Result<(T, Report)>
    where
        T: DeserializeOwned,
    {
        self.decoder.finish_with_report()
    }
}

impl<S, B, E, T> Stream for DeltaStream<S, T>
where
    S: Stream<Item = std::result::Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    T: Streamable,
{
    type Item = std::result::Result<Vec<Delta>, StreamError<E>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        let item = match Pin::new(&mut this.chunks).poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(None) => {
                this.ended = true;
                None
            }
            Poll::Ready(Some(Err(e))) => Some(Err(StreamError::Source(e))),
            Poll::Ready(Some(Ok(chunk))) => {
                Some(this.decoder.push_deltas(chunk).map_err(StreamError::Decode))
            }
        };
        Poll::Ready(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.ended {
            (0, Some(0))
        } else {
            self.chunks.size_hint()
        }
    }
}

impl<S, B, E, T> FusedStream for DeltaStream<S, T>
where
    S: Stream<Item = std::result::Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    T: Streamable,
{
    fn is_terminated(&self) -> bool {
        self.ended
    }
}

/// What a [`DeltaStream`] yields instead of a chunk's deltas.
#[derive(Debug)]
pub enum StreamError<E> {
    /// The source's own error (reading the reply failed).
    Source(E),
    /// The decoder refused the chunk (see [`StreamDecoder::push_deltas`]).
    Decode(Error),
}

// Transparent: the message and the source are the wrapped error's.
impl<E: fmt::Display> fmt::Display for StreamError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Source(e) => fmt::Display::fmt(e, f),
            StreamError::Decode(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for StreamError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StreamError::Source(e) => e.source(),
            StreamError::Decode(e) => std::error::Error::source(e),
        }
    }
}
