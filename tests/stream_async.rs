//! `DeltaStream` (feature `futures`): polled by a minimal executor over a
//! source that is pending once before every chunk, it yields per chunk what
//! `StreamDecoder::push` gives for it, passes errors on and goes on, and ends
//! with the source.

#![cfg(feature = "futures")]

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures_core::{FusedStream, Stream};
use serde_json::{json, Value};
use serde_llm::{Delta, DeltaStream, ErrorKind, Partial, StreamDecoder, StreamError};

/// A waker that does nothing: the executor polls in a loop anyway.
struct Noop;

impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

/// Polls `stream` until it gives an item (or ends), counting the `Pending`s.
fn next<S: Stream + Unpin>(stream: &mut S, pending: &mut usize) -> Option<S::Item> {
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    loop {
        match Pin::new(&mut *stream).poll_next(&mut cx) {
            Poll::Ready(item) => return item,
            Poll::Pending => *pending += 1,
        }
    }
}

/// Everything `stream` yields, and how many polls were pending.
fn collect<S: Stream + Unpin>(mut stream: S) -> (Vec<S::Item>, usize, S) {
    let mut pending = 0;
    let mut items = Vec::new();
    while let Some(item) = next(&mut stream, &mut pending) {
        items.push(item);
    }
    (items, pending, stream)
}

/// A source over `items`, `Pending` once before each (waking its waker, as a
/// real source does when it has data).
struct Chunks<I> {
    items: std::vec::IntoIter<I>,
    ready: bool,
}

fn chunks<I>(items: Vec<I>) -> Chunks<I> {
    Chunks {
        items: items.into_iter(),
        ready: false,
    }
}

impl<I: Unpin> Stream for Chunks<I> {
    type Item = I;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<I>> {
        if !self.ready {
            self.ready = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.ready = false;
        Poll::Ready(self.items.next())
    }
}

/// A source's error.
#[derive(Debug, PartialEq)]
struct Cut;

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection cut")
    }
}

impl std::error::Error for Cut {}

const REPLY: &str =
    "Sure:\n```json\n{\"title\": \"Caf\u{e9}\", \"tags\": [\"a\", \"b\"], \"n\": 12}\n```";

/// `REPLY` cut every `n` bytes (inside `é`, for some `n`).
fn pieces(n: usize) -> Vec<&'static [u8]> {
    REPLY.as_bytes().chunks(n).collect()
}

#[test]
fn yields_what_push_gives_per_chunk() {
    for n in [1, 2, 3, 7, 20, REPLY.len()] {
        let parts = pieces(n);
        let mut sync = StreamDecoder::<Value>::new();
        let want: Vec<Vec<Delta>> = parts.iter().map(|p| sync.push_deltas(p).unwrap()).collect();

        let source = chunks(parts.iter().map(|p| Ok::<_, Cut>(*p)).collect());
        let (items, pending, stream) =
            collect(DeltaStream::new(source, StreamDecoder::<Value>::new()));
        let got: Vec<Vec<Delta>> = items.into_iter().map(|i| i.unwrap()).collect();
        assert_eq!(got, want, "cut every {n}");
        // Pending before every chunk and before the end.
        assert_eq!(pending, parts.len() + 1, "cut every {n}");
        assert!(stream.is_terminated());
        assert_eq!(stream.decoder().value(), sync.value());
        assert_eq!(
            stream.finish().unwrap(),
            json!({"title": "Caf\u{e9}", "tags": ["a", "b"], "n": 12})
        );
    }
}

#[test]
fn the_decoder_shows_the_view_between_items() {
    #[derive(Debug, PartialEq, serde::Deserialize, Partial)]
    struct Answer {
        title: String,
        #[llm(partial)]
        body: String,
    }

    let source = chunks(vec![
        Ok::<_, Cut>("{\"title\": \"Bread\", \"body\": \"Mix the fl".to_owned()),
        Ok("our.\"}".to_owned()),
    ]);
    let mut stream = DeltaStream::new(source, StreamDecoder::<Answer>::new());
    let mut pending = 0;
    assert!(stream.decoder().view().is_none());

    let first = next(&mut stream, &mut pending).unwrap().unwrap();
    assert!(!first.is_empty());
    let view = stream.decoder().view().as_ref().unwrap();
    assert_eq!(view.title.as_deref(), Some("Bread"));
    assert_eq!(view.body.as_deref(), Some("Mix the fl"));

    let second = next(&mut stream, &mut pending).unwrap().unwrap();
    assert!(second.contains(&Delta::Appended {
        path: serde_llm::Path::root().key("body"),
        text: "our.".into(),
    }));
    assert!(next(&mut stream, &mut pending).is_none());
    assert!(stream.is_terminated());
    assert_eq!(
        stream.into_decoder().finish().unwrap(),
        Answer {
            title: "Bread".into(),
            body: "Mix the flour.".into()
        }
    );
}

#[test]
fn a_source_error_is_passed_on_and_the_stream_goes_on() {
    let source = chunks(vec![Ok("[\"a\", "), Err(Cut), Ok("\"b\"]")]);
    let (items, _, stream) = collect(DeltaStream::new(source, StreamDecoder::<Value>::new()));
    assert_eq!(items.len(), 3);
    assert!(matches!(&items[0], Ok(d) if !d.is_empty()));
    match &items[1] {
        Err(e @ StreamError::Source(Cut)) => assert_eq!(e.to_string(), "connection cut"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(&items[2], Ok(d) if !d.is_empty()));
    assert_eq!(stream.finish().unwrap(), json!(["a", "b"]));
}

#[test]
fn a_chunk_the_decoder_refuses_is_a_decode_error() {
    let source = chunks(vec![Ok::<_, Cut>(&b"[1, \xff"[..]), Ok(b"]")]);
    let (items, _, _) = collect(DeltaStream::new(source, StreamDecoder::<Value>::new()));
    match &items[0] {
        Err(e @ StreamError::Decode(inner)) => {
            assert_eq!(inner.kind(), ErrorKind::InvalidUtf8);
            assert_eq!(e.to_string(), "invalid UTF-8 at byte 4 (line 1, column 5)");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(items.len(), 2);
}

#[test]
fn after_the_end_it_stays_ended() {
    let source = chunks(vec![Ok::<_, Cut>("{\"a\": 1}")]);
    let mut stream = DeltaStream::new(source, StreamDecoder::<Value>::new());
    let mut pending = 0;
    assert_eq!(stream.size_hint(), (0, None));
    assert!(!stream.is_terminated());
    assert!(next(&mut stream, &mut pending).unwrap().is_ok());
    assert!(next(&mut stream, &mut pending).is_none());
    // Not polled again: no more `Pending` from the source.
    let before = pending;
    assert!(next(&mut stream, &mut pending).is_none());
    assert_eq!(pending, before);
    assert_eq!(stream.size_hint(), (0, Some(0)));
    let (rest, decoder) = stream.into_parts();
    assert_eq!(rest.items.len(), 0);
    assert_eq!(decoder.value(), Some(&json!({"a": 1})));
}

#[test]
fn a_pinned_box_drives_a_source_that_is_not_unpin() {
    struct NotUnpin<S>(std::cell::RefCell<S>, std::marker::PhantomPinned);
    impl<S: Stream + Unpin> Stream for NotUnpin<S> {
        type Item = S::Item;
        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
            Pin::new(&mut *self.0.borrow_mut()).poll_next(cx)
        }
    }
    let source = Box::pin(NotUnpin(
        chunks(vec![Ok::<_, Cut>("[1, "), Ok("2]")]).into(),
        std::marker::PhantomPinned,
    ));
    let (_, _, stream) = collect(DeltaStream::new(source, StreamDecoder::<Vec<u32>>::new()));
    assert_eq!(stream.finish_with_report().unwrap().0, [1, 2]);
}
