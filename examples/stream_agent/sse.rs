//! A small server-sent events reader (the `text/event-stream` format), fed
//! bytes as they arrive: the example's, and `tests/sse.rs` reads the same
//! file.
// The example and the test each use a part of it.
#![allow(dead_code)]

/// One event: its `event:` name (`"message"` when it has none) and its
/// `data:` lines joined by `"\n"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub name: String,
    pub data: String,
}

/// Splits a byte stream into events. Chunks may end anywhere, even inside a
/// line or a UTF-8 character: a line is read once its `\n` has arrived.
#[derive(Default)]
pub struct Reader {
    line: Vec<u8>,
    name: String,
    data: String,
}

impl Reader {
    /// The events that `chunk` completes.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        for &b in chunk {
            if b != b'\n' {
                self.line.push(b);
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                // A blank line dispatches the event, if it has data.
                let name = std::mem::take(&mut self.name);
                if let Some(data) = std::mem::take(&mut self.data).strip_suffix('\n') {
                    let name = if name.is_empty() {
                        "message".into()
                    } else {
                        name
                    };
                    events.push(Event {
                        name,
                        data: data.to_owned(),
                    });
                }
                continue;
            }
            // `:` starts a comment; a line without a colon is a field with
            // no value; one space after the colon is not part of the value.
            let (field, value) = line.split_once(':').unwrap_or((&line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "" => {}
                "event" => self.name = value.to_owned(),
                "data" => {
                    self.data.push_str(value);
                    self.data.push('\n');
                }
                _ => {} // `id`, `retry` and unknown fields
            }
        }
        events
    }
}

/// The events of a whole stream (an event not ended by a blank line is
/// dropped, as the format says).
pub fn events(stream: &[u8]) -> Vec<Event> {
    Reader::default().feed(stream)
}
