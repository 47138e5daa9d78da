//! JSON text exactly as Python's `json.dumps(value, ensure_ascii=...,
//! indent=...)` writes it, for `repair_json`'s string result: `", "` and
//! `": "` between items (`","` with an indent), `\uXXXX` escapes in
//! lower-case hex, floats as `repr` spells them, `NaN` and `Infinity` as
//! words.

use std::fmt::Write;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString};

/// How to write: `json.dumps`'s `ensure_ascii` and `indent` (an `int` is
/// that many spaces, a `str` is itself; `None` is one line).
pub struct Style {
    pub ascii: bool,
    pub indent: Option<String>,
}

/// `value` (built by this package: dicts with string keys, lists, strings,
/// ints, floats, bools and None) as `json.dumps` writes it.
pub fn dumps(value: &Bound<'_, PyAny>, style: &Style) -> PyResult<String> {
    let mut out = String::new();
    write(value, style, 0, &mut out)?;
    Ok(out)
}

fn newline(style: &Style, level: usize, out: &mut String) {
    if let Some(indent) = &style.indent {
        out.push('\n');
        for _ in 0..level {
            out.push_str(indent);
        }
    }
}

fn write(v: &Bound<'_, PyAny>, style: &Style, level: usize, out: &mut String) -> PyResult<()> {
    let py = v.py();
    if v.is_none() {
        out.push_str("null");
    } else if v.is(pyo3::types::PyBool::new(py, true)) {
        out.push_str("true");
    } else if v.is(pyo3::types::PyBool::new(py, false)) {
        out.push_str("false");
    } else if let Ok(s) = v.cast::<PyString>() {
        string(s.to_str()?, style.ascii, out);
    } else if let Ok(i) = v.cast::<PyInt>() {
        match i.extract::<i64>() {
            Ok(n) => {
                let _ = write!(out, "{n}");
            }
            Err(_) => out.push_str(i.str()?.to_str()?),
        }
    } else if let Ok(f) = v.cast::<PyFloat>() {
        float(f.value(), out);
    } else if let Ok(list) = v.cast::<PyList>() {
        if list.is_empty() {
            out.push_str("[]");
            return Ok(());
        }
        out.push('[');
        for (i, item) in list.iter().enumerate() {
            if i > 0 {
                out.push_str(separator(style));
            }
            newline(style, level + 1, out);
            write(&item, style, level + 1, out)?;
        }
        newline(style, level, out);
        out.push(']');
    } else if let Ok(dict) = v.cast::<PyDict>() {
        if dict.is_empty() {
            out.push_str("{}");
            return Ok(());
        }
        out.push('{');
        for (i, (k, item)) in dict.iter().enumerate() {
            if i > 0 {
                out.push_str(separator(style));
            }
            newline(style, level + 1, out);
            string(k.cast::<PyString>()?.to_str()?, style.ascii, out);
            out.push_str(": ");
            write(&item, style, level + 1, out)?;
        }
        newline(style, level, out);
        out.push('}');
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "Object of type {} is not JSON serializable",
            v.get_type().name()?
        )));
    }
    Ok(())
}

/// Between items: `json.dumps`'s default separators, `", "` on one line and
/// `","` (then a newline) with an indent.
fn separator(style: &Style) -> &'static str {
    match style.indent {
        Some(_) => ",",
        None => ", ",
    }
}

/// A string in quotes, escaped as `json.dumps` escapes it: `"`, `\\` and
/// control characters always (`\n`, `\u0001`), every other character beyond
/// ASCII too with `ascii` (`\u00e9`, a surrogate pair beyond U+FFFF), in
/// lower-case hex. Runs of characters that need nothing are copied whole.
pub fn string(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let plain = match b {
            b'"' | b'\\' => false,
            0..=0x1f => false,
            0x80.. => !ascii,
            _ => true,
        };
        if plain {
            i += 1;
            continue;
        }
        out.push_str(&s[run..i]);
        let c = s[i..].chars().next().expect("at a character");
        i += c.len_utf8();
        run = i;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// A float as Python's `repr` writes it (what `json.dumps` uses): the
/// shortest digits that read back as the same float, in positional notation
/// for decimal exponents from -4 to 15 (with `.0` when whole) and as
/// `1.5e+16`, `1e-05` outside; `NaN`, `Infinity`, `-Infinity` for the rest.
pub fn float(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    // Rust's `{:e}` gives the same shortest round-trip digits as Python's
    // repr: `1.5e16`, `-1e-5`, `0e0`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent");
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if neg {
        out.push('-');
    }
    // Python's `decpt`: where the point goes after the first digit.
    let decpt = exp + 1;
    if !(-4 < decpt && decpt <= 16) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    } else if decpt <= 0 {
        out.push_str("0.");
        for _ in 0..-decpt {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let point = decpt as usize;
        if point >= digits.len() {
            out.push_str(&digits);
            for _ in digits.len()..point {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
}
