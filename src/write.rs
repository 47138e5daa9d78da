//! Canonical JSON text straight from the event stream (no value tree), for
//! [`repair`](crate::repair): compact, member order kept, strings escaped as
//! `serde_json` escapes them.

use crate::error::{Error, ErrorKind, Result};
use crate::policy::Allow;
use crate::scan::{lex, parse_f64, Event, Events, NumValue};

/// Writes the scanner's value to `out`. With `allow` (the partial policy on),
/// a value cut off at the end of a kind not allowed is left out (at the root,
/// a `Truncated` error).
pub(crate) fn write<'de>(
    scan: &mut impl Events<'de>,
    out: &mut String,
    allow: Option<Allow>,
) -> Result<()> {
    // One entry per open container: (is an object, no item written yet).
    let mut open: Vec<(bool, bool)> = Vec::new();
    let admits = |complete: bool, ev: &Event<'_>| match (allow, Allow::of(ev)) {
        (Some(allow), Some(kind)) => complete || allow.contains(kind),
        _ => true,
    };
    loop {
        let ev = scan.next()?;
        match ev {
            Event::Eof => {
                return if open.is_empty() {
                    Ok(())
                } else {
                    Err(Error::at(
                        ErrorKind::Syntax,
                        "unexpected end",
                        scan.offset(),
                    ))
                };
            }
            Event::EndObject => {
                open.pop();
                out.push('}');
                continue;
            }
            Event::EndArray => {
                open.pop();
                out.push(']');
                continue;
            }
            Event::Key(t) => {
                let copied: Option<String> = None;
                if allow.is_some() {
                    let value = scan.peek()?;
                    if !admits(scan.complete(), &value) {
                        let value = scan.next()?;
                        skip(scan, value)?;
                        continue;
                    }
                }
                if let Some(top) = open.last_mut() {
                    if !top.1 {
                        out.push(',');
                    }
                    top.1 = false;
                }
                match &copied {
                    Some(k) => write_str(out, k),
                    None => write_str(out, scan.str(t)),
                }
                out.push(':');
                continue;
            }
            _ => {}
        }
        if !admits(scan.complete(), &ev) {
            if open.is_empty() {
                return Err(Error::truncated(scan.offset()));
            }
            skip(scan, ev)?;
            continue;
        }
        if let Some(top) = open.last_mut() {
            if !top.0 {
                if !top.1 {
                    out.push(',');
                }
                top.1 = false;
            }
        }
        match ev {
            Event::StartObject => {
                out.push('{');
                open.push((true, true));
            }
            Event::StartArray => {
                out.push('[');
                open.push((false, true));
            }
            Event::Str(t) => write_str(out, scan.str(t)),
            Event::Num(n) => match n.value {
                NumValue::NonFinite(_) => out.push_str("null"),
                // As the typed decode does (and serde_json): a number beyond
                // f64 is not a value.
                NumValue::Float if parse_f64(scan.str(n.text)).is_none() => {
                    return Err(Error::at(
                        ErrorKind::Number,
                        "number out of range",
                        scan.offset(),
                    ))
                }
                _ => out.push_str(scan.str(n.text)),
            },
            Event::Bool(true) => out.push_str("true"),
            Event::Bool(false) => out.push_str("false"),
            Event::Null => out.push_str("null"),
            _ => unreachable!("handled above"),
        }
    }
}

/// Skips the rest of the value that starts with `ev`.
fn skip<'de>(scan: &mut impl Events<'de>, ev: Event<'de>) -> Result<()> {
    if !matches!(ev, Event::StartArray | Event::StartObject) {
        return Ok(());
    }
    let mut depth = 1usize;
    while depth > 0 {
        match scan.next()? {
            Event::StartArray | Event::StartObject => depth += 1,
            Event::EndArray | Event::EndObject => depth -= 1,
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(())
}

/// Writes `s` as a JSON string, escaping what JSON requires and nothing else.
pub(crate) fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let b = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    loop {
        // The run that needs no escape is copied at once.
        i = lex::plain_json_run(b, i, b.len());
        let Some(&c) = b.get(i) else {
            break;
        };
        let esc = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            _ => "",
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(c >> 4)] as char);
            out.push(HEX[usize::from(c & 0xf)] as char);
        } else {
            out.push_str(esc);
        }
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_like_serde_json() {
        let s = "a\"b\\c\nd\u{1}\u{7f}é/";
        let mut out = String::new();
        super::write_str(&mut out, s);
        assert_eq!(out, serde_json::to_string(s).unwrap());
    }

    #[test]
    fn escapes_at_every_place_in_a_run() {
        // Each byte JSON escapes, at every offset of runs longer than the
        // eight bytes looked at at once, and at the ends.
        for special in ["\"", "\\", "\n", "\u{1f}", "\u{0}", "é", "\u{7f}"] {
            for before in 0..20 {
                for after in [0, 1, 7, 8, 9, 17] {
                    let s = format!("{}{special}{}", "a".repeat(before), "b".repeat(after));
                    let mut out = String::new();
                    super::write_str(&mut out, &s);
                    assert_eq!(out, serde_json::to_string(&s).unwrap(), "{s:?}");
                }
            }
        }
    }
}
