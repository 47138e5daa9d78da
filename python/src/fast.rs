//! The fast path: a reply that is valid JSON as it stands (what `json.loads`
//! accepts) becomes Python objects in one pass, before the library is asked
//! anything. It gives what the library would give for it (valid JSON decodes
//! as written), with integers of any size as Python `int`s, and declines
//! (`None`) at the first byte that is not strict JSON: the caller then asks
//! the library, which extracts, repairs and completes.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString};

use crate::keys;

/// How deep the fast path nests: the library's default depth limit, so a
/// value is refused or accepted alike on both paths.
const MAX_DEPTH: usize = 128;

/// `text` as Python objects if it is one strict JSON value (whitespace
/// around it allowed; `NaN`, `Infinity` and `-Infinity` too, as
/// `json.loads` takes them); `None` when it is not.
pub fn parse<'py>(py: Python<'py>, text: &str) -> Option<Bound<'py, PyAny>> {
    if !plausible(text.as_bytes()) {
        return None;
    }
    let mut p = Parser {
        py,
        s: text.as_bytes(),
        at: 0,
        depth: 0,
        scratch: String::new(),
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    (p.at == p.s.len()).then_some(v)
}

/// Whether `s` can be one JSON value at all, judged by its first and last
/// bytes: a reply in prose, or cut off (a value touching the end of the
/// text: `"descr`, `[1, 2`), is declined before any object is built.
pub fn plausible(s: &[u8]) -> bool {
    let trimmed = s.trim_ascii();
    let (Some(&first), Some(&last)) = (trimmed.first(), trimmed.last()) else {
        return false;
    };
    let starts = matches!(
        first,
        b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | b'N' | b'I'
    );
    let ends = match last {
        b'}' | b']' | b'"' | b'0'..=b'9' => true,
        // A literal's last letter: the whole literal, not a cut word.
        b'e' | b'l' | b'N' | b'y' => {
            ["true", "false", "null", "NaN", "Infinity"]
                .iter()
                .any(|lit| {
                    trimmed.ends_with(lit.as_bytes())
                        && !trimmed[..trimmed.len() - lit.len()]
                            .last()
                            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                })
        }
        _ => false,
    };
    starts && ends
}

/// Whether `s` may hold a number that serde_json reads otherwise than
/// `json.loads`: an integer of 20 digits or more (beyond 64 bits, a float
/// to serde_json) or `-0` (-0.0 to serde_json, 0 to Python). Judged on the
/// bytes, strings included: a false alarm only costs the slower path.
pub fn numbers_differ(s: &[u8]) -> bool {
    let mut run = 0;
    for (i, &b) in s.iter().enumerate() {
        if b.is_ascii_digit() {
            run += 1;
            if run >= 20 {
                return true;
            }
            if b == b'0'
                && i > 0
                && s[i - 1] == b'-'
                && !matches!(s.get(i + 1), Some(b'.' | b'e' | b'E' | b'0'..=b'9'))
            {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

struct Parser<'py, 's> {
    py: Python<'py>,
    s: &'s [u8],
    at: usize,
    depth: usize,
    /// An unescaped string's characters.
    scratch: String,
}

impl<'py, 's> Parser<'py, 's> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.s.get(self.at) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        let ok = self.s[self.at..].starts_with(lit);
        if ok {
            self.at += lit.len();
        }
        ok
    }

    fn value(&mut self) -> Option<Bound<'py, PyAny>> {
        let py = self.py;
        match self.peek()? {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self.string().map(Bound::into_any),
            b't' if self.eat(b"true") => {
                Some(pyo3::types::PyBool::new(py, true).to_owned().into_any())
            }
            b'f' if self.eat(b"false") => {
                Some(pyo3::types::PyBool::new(py, false).to_owned().into_any())
            }
            b'n' if self.eat(b"null") => Some(py.None().into_bound(py)),
            b'N' if self.eat(b"NaN") => Some(PyFloat::new(py, f64::NAN).into_any()),
            b'I' if self.eat(b"Infinity") => Some(PyFloat::new(py, f64::INFINITY).into_any()),
            b'-' if self.s[self.at..].starts_with(b"-Infinity") => {
                self.at += 9;
                Some(PyFloat::new(py, f64::NEG_INFINITY).into_any())
            }
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        self.at += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn object(&mut self) -> Option<Bound<'py, PyAny>> {
        self.enter()?;
        let dict = PyDict::new(self.py);
        self.ws();
        if self.peek()? == b'}' {
            self.at += 1;
            self.depth -= 1;
            return Some(dict.into_any());
        }
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.key()?;
            self.ws();
            if self.peek()? != b':' {
                return None;
            }
            self.at += 1;
            self.ws();
            let value = self.value()?;
            dict.set_item(key, value).ok()?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.ws();
                }
                b'}' => {
                    self.at += 1;
                    self.depth -= 1;
                    return Some(dict.into_any());
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self) -> Option<Bound<'py, PyAny>> {
        self.enter()?;
        let mut items = Vec::new();
        self.ws();
        if self.peek()? == b']' {
            self.at += 1;
            self.depth -= 1;
            return Some(PyList::empty(self.py).into_any());
        }
        loop {
            items.push(self.value()?);
            self.ws();
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.ws();
                }
                b']' => {
                    self.at += 1;
                    self.depth -= 1;
                    return PyList::new(self.py, items).ok().map(Bound::into_any);
                }
                _ => return None,
            }
        }
    }

    /// A string's text, `self.at` at its opening quote: borrowed from the
    /// input when it has no escape, else unescaped into `scratch`.
    fn text(&mut self) -> Option<Text> {
        let start = self.at + 1;
        let mut i = start;
        loop {
            match *self.s.get(i)? {
                b'"' => {
                    self.at = i + 1;
                    return Some(Text::Raw(start, i));
                }
                b'\\' => break,
                0..=0x1f => return None,
                _ => i += 1,
            }
        }
        let head = self.slice(start, i);
        self.scratch.clear();
        self.scratch.push_str(head);
        loop {
            match *self.s.get(i)? {
                b'"' => {
                    self.at = i + 1;
                    return Some(Text::Scratch);
                }
                b'\\' => {
                    let c = match *self.s.get(i + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let (c, len) = self.unicode(i)?;
                            self.scratch.push(c);
                            i += len;
                            continue;
                        }
                        _ => return None,
                    };
                    self.scratch.push(c);
                    i += 2;
                }
                0..=0x1f => return None,
                _ => {
                    let run = i;
                    while !matches!(self.s.get(i), None | Some(b'"' | b'\\' | 0..=0x1f)) {
                        i += 1;
                    }
                    let run = self.slice(run, i);
                    self.scratch.push_str(run);
                }
            }
        }
    }

    /// The character of the `\uXXXX` escape at `i` (a surrogate pair is two
    /// escapes) and how many bytes it took. A lone surrogate declines: the
    /// library replaces it and says so.
    fn unicode(&self, i: usize) -> Option<(char, usize)> {
        let unit = |at: usize| -> Option<u32> {
            let hex = self.s.get(at..at + 4)?;
            u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
        };
        let hi = unit(i + 2)?;
        if !(0xd800..0xe000).contains(&hi) {
            return Some((char::from_u32(hi)?, 6));
        }
        if hi >= 0xdc00 || self.s.get(i + 6..i + 8)? != b"\\u" {
            return None;
        }
        let lo = unit(i + 8)?;
        if !(0xdc00..0xe000).contains(&lo) {
            return None;
        }
        let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
        Some((char::from_u32(c)?, 12))
    }

    fn slice(&self, from: usize, to: usize) -> &'s str {
        // The input is a `&str` and both ends are at ASCII bytes (quotes,
        // backslashes, control characters) or its ends.
        std::str::from_utf8(&self.s[from..to]).expect("cut at ASCII bytes")
    }

    fn string(&mut self) -> Option<Bound<'py, PyString>> {
        Some(match self.text()? {
            Text::Raw(a, b) => PyString::new(self.py, self.slice(a, b)),
            Text::Scratch => PyString::new(self.py, &self.scratch),
        })
    }

    fn key(&mut self) -> Option<Bound<'py, PyString>> {
        Some(match self.text()? {
            Text::Raw(a, b) => keys::key(self.py, self.slice(a, b)),
            Text::Scratch => keys::key(self.py, &self.scratch),
        })
    }

    fn digits(&mut self) -> usize {
        let from = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        self.at - from
    }

    fn number(&mut self) -> Option<Bound<'py, PyAny>> {
        let py = self.py;
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let int_start = self.at;
        match self.digits() {
            0 => return None,
            n if n > 1 && self.s[int_start] == b'0' => return None,
            _ => {}
        }
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        let text = self.slice(start, self.at);
        if float {
            return Some(PyFloat::new(py, text.parse::<f64>().ok()?).into_any());
        }
        if let Ok(v) = text.parse::<i64>() {
            return Some(v.into_pyobject(py).expect("infallible").into_any());
        }
        // Beyond 64 bits: Python's own `int(text)`, exact at any size.
        py.get_type::<pyo3::types::PyInt>().call1((text,)).ok()
    }
}

enum Text {
    /// A span of the input, without escapes.
    Raw(usize, usize),
    /// Unescaped into `Parser::scratch`.
    Scratch,
}
