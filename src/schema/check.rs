//! The bounds and formats a schema sets, checked as a contract: a value
//! that breaks one is decoded all the same, and the decode then fails with
//! every violation by JSON path (an [`ErrorKind::Contract`] error whose
//! [`Error::feedback`] is one line each), as a type's
//! [`Contract`](crate::Contract) does. Formats are checked, never coerced:
//! `"May 14"` for a `date` is a violation, not a guess at the year.
//!
//! [`ErrorKind::Contract`]: crate::ErrorKind::Contract
//! [`Error::feedback`]: crate::Error::feedback

use serde_json::Value;

use super::pattern::Pattern;

/// What a node's value must satisfy beyond its type.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    pub minimum: Option<Bound>,
    pub maximum: Option<Bound>,
    pub multiple_of: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    /// The pattern as written, and compiled.
    pub pattern: Option<(String, Pattern)>,
    pub format: Option<Format>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
}

/// A numeric bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bound {
    pub value: f64,
    pub exclusive: bool,
}

/// The formats checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// RFC 3339 `date-time`: `2024-05-14T09:30:00Z`, `…+02:00`, fractions.
    DateTime,
    /// RFC 3339 `full-date`: `2024-05-14`.
    Date,
    /// `123e4567-e89b-12d3-a456-426614174000`, any case.
    Uuid,
    /// schemars' integer formats (`int32`, `uint8`, …): the range of that
    /// type (schemars gives `minimum`/`maximum` for the narrow ones only).
    Int { bits: u32, signed: bool },
}

impl Format {
    /// The format of that name that is checked; `None` for the others,
    /// which are annotations (as JSON Schema has every format by default).
    pub(crate) fn of(name: &str) -> Option<Format> {
        Some(match name {
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "uuid" => Format::Uuid,
            "int8" => Format::Int {
                bits: 8,
                signed: true,
            },
            "int16" => Format::Int {
                bits: 16,
                signed: true,
            },
            "int32" => Format::Int {
                bits: 32,
                signed: true,
            },
            "int64" => Format::Int {
                bits: 64,
                signed: true,
            },
            "uint8" => Format::Int {
                bits: 8,
                signed: false,
            },
            "uint16" => Format::Int {
                bits: 16,
                signed: false,
            },
            "uint32" => Format::Int {
                bits: 32,
                signed: false,
            },
            "uint64" => Format::Int {
                bits: 64,
                signed: false,
            },
            _ => return None,
        })
    }

    /// Whether a cut prefix of such a string could be shown as it grows
    /// (never: half a date is no date).
    pub(crate) fn whole(self) -> bool {
        matches!(self, Format::DateTime | Format::Date | Format::Uuid)
    }
}

impl Checks {
    /// Checks `value`, calling `fail` with "expected …, got …" for each
    /// rule it breaks.
    pub(crate) fn check(&self, value: &Value, mut fail: impl FnMut(String)) {
        // The message is made only for a rule broken (a macro, not a
        // closure taking it: most values break none).
        macro_rules! expect {
            ($ok:expr, $expected:expr $(,)?) => {{
                let ok: bool = $ok;
                if !ok {
                    fail(format!("expected {}, got {}", $expected, shown(value)));
                }
            }};
        }
        match value {
            Value::Number(n) => {
                let v = n.as_f64().unwrap_or(f64::NAN);
                if let Some(b) = self.minimum {
                    match b.exclusive {
                        true => expect!(
                            v > b.value,
                            format!("a number greater than {}", num(b.value)),
                        ),
                        false => {
                            expect!(v >= b.value, format!("a number at least {}", num(b.value)))
                        }
                    }
                }
                if let Some(b) = self.maximum {
                    match b.exclusive {
                        true => {
                            expect!(v < b.value, format!("a number less than {}", num(b.value)))
                        }
                        false => {
                            expect!(v <= b.value, format!("a number at most {}", num(b.value)))
                        }
                    }
                }
                if let Some(m) = self.multiple_of {
                    expect!(is_multiple(n, m), format!("a multiple of {}", num(m)));
                }
                if let Some(Format::Int { bits, signed }) = self.format {
                    let sign = if signed { "" } else { "u" };
                    expect!(
                        fits(n, bits, signed),
                        format_args!("an integer that fits {sign}int{bits}"),
                    );
                }
            }
            Value::String(s) => {
                let chars = || s.chars().count() as u64;
                if let Some(min) = self.min_length {
                    expect!(
                        chars() >= min,
                        format!("at least {min} {}", plural(min, "character")),
                    );
                }
                if let Some(max) = self.max_length {
                    expect!(
                        chars() <= max,
                        format!("at most {max} {}", plural(max, "character")),
                    );
                }
                if let Some((source, p)) = &self.pattern {
                    expect!(
                        p.is_match(s),
                        format!("a string matching the pattern `{source}`"),
                    );
                }
                match self.format {
                    Some(Format::DateTime) => expect!(
                        is_date_time(s),
                        "a date-time (RFC 3339, like 2024-05-14T09:30:00Z)",
                    ),
                    Some(Format::Date) => expect!(is_date(s), "a date (like 2024-05-14)"),
                    Some(Format::Uuid) => expect!(
                        is_uuid(s),
                        "a UUID (like 123e4567-e89b-12d3-a456-426614174000)",
                    ),
                    _ => {}
                }
            }
            Value::Array(items) => {
                let n = items.len() as u64;
                if let Some(min) = self.min_items {
                    expect!(n >= min, format!("at least {min} {}", plural(min, "item")));
                }
                if let Some(max) = self.max_items {
                    expect!(n <= max, format!("at most {max} {}", plural(max, "item")));
                }
                if self.unique_items {
                    let unique = items
                        .iter()
                        .enumerate()
                        .all(|(i, a)| items[..i].iter().all(|b| !json_eq(a, b)));
                    expect!(unique, "items that are all different");
                }
            }
            Value::Object(members) => {
                let n = members.len() as u64;
                if let Some(min) = self.min_properties {
                    expect!(
                        n >= min,
                        format!("at least {min} {}", plural(min, "property")),
                    );
                }
                if let Some(max) = self.max_properties {
                    expect!(
                        n <= max,
                        format!("at most {max} {}", plural(max, "property")),
                    );
                }
            }
            Value::Null | Value::Bool(_) => {}
        }
    }
}

/// JSON's equality: numbers by value (`1` is `1.0`), objects whatever
/// their member order.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// A value as a violation shows it: its JSON, a long string cut short.
pub(crate) fn shown(value: &Value) -> String {
    const MAX: usize = 60;
    match value {
        Value::String(s) if s.chars().count() > MAX => {
            let head: String = s.chars().take(MAX).collect();
            format!(
                "{}… ({} characters)",
                &crate::error::quote(&head)[..],
                s.chars().count()
            )
        }
        Value::Array(a) if a.len() > 8 => format!("a list of {} items", a.len()),
        Value::Object(m) if m.len() > 8 => format!("an object of {} properties", m.len()),
        v => v.to_string(),
    }
}

fn plural(n: u64, word: &str) -> String {
    match (n, word) {
        (1, w) => w.to_owned(),
        (_, "property") => "properties".to_owned(),
        (_, w) => format!("{w}s"),
    }
}

/// A bound as written: `5`, not `5.0`.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        v.to_string()
    }
}

fn is_multiple(n: &serde_json::Number, m: f64) -> bool {
    if m <= 0.0 {
        return true;
    }
    if let (Some(i), true) = (n.as_i64(), m.fract() == 0.0 && m < 9.0e15) {
        return i % (m as i64) == 0;
    }
    if let (Some(u), true) = (n.as_u64(), m.fract() == 0.0 && m < 9.0e15) {
        return u % (m as u64) == 0;
    }
    let q = n.as_f64().unwrap_or(f64::NAN) / m;
    (q - q.round()).abs() < 1e-9
}

fn fits(n: &serde_json::Number, bits: u32, signed: bool) -> bool {
    match (signed, n.as_i64(), n.as_u64()) {
        (true, Some(i), _) => {
            bits >= 64 || (i >= -(1i64 << (bits - 1)) && i < (1i64 << (bits - 1)))
        }
        (false, _, Some(u)) => bits >= 64 || u < (1u64 << bits),
        _ => false,
    }
}

fn digits(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.iter().try_fold(0u32, |n, d| {
        n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })
}

/// RFC 3339 `full-date`.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..])) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `date-time`: `full-date "T" partial-time time-offset`.
fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || !matches!(b[10], b'T' | b't') || !is_date(&s[..10]) {
        return false;
    }
    let t = &b[11..];
    if t[2] != b':' || t[5] != b':' {
        return false;
    }
    let (Some(h), Some(mi), Some(sec)) = (digits(&t[..2]), digits(&t[3..5]), digits(&t[6..8]))
    else {
        return false;
    };
    if h > 23 || mi > 59 || sec > 60 {
        return false;
    }
    let mut rest = &t[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', oh @ ..] if oh.len() == 5 && oh[2] == b':' => {
            matches!((digits(&oh[..2]), digits(&oh[3..])), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        for ok in [
            "2024-05-14T09:30:00Z",
            "2024-02-29t23:59:60.123+02:00",
            "1999-12-31T00:00:00-05:30",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2024-05-14",
            "2024-05-14 09:30:00Z",
            "2023-02-29T09:30:00Z",
            "2024-05-14T24:00:00Z",
            "2024-05-14T09:30:00",
            "2024-05-14T09:30:00.Z",
            "2024-05-14T09:30:00+0200",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
        assert!(is_date("2000-02-29"));
        assert!(!is_date("1900-02-29"));
        assert!(!is_date("2024-13-01"));
        assert!(!is_date("2024-1-01"));
        assert!(is_uuid("123E4567-e89b-12d3-a456-426614174000"));
        assert!(!is_uuid("123e4567e89b12d3a456426614174000"));
    }

    #[test]
    fn messages() {
        let checks = Checks {
            maximum: Some(Bound {
                value: 100.0,
                exclusive: false,
            }),
            multiple_of: Some(5.0),
            ..Checks::default()
        };
        let mut out = Vec::new();
        checks.check(&serde_json::json!(103), |m| out.push(m));
        assert_eq!(
            out,
            [
                "expected a number at most 100, got 103",
                "expected a multiple of 5, got 103"
            ]
        );
        let checks = Checks {
            format: Format::of("uint8"),
            min_length: Some(1),
            ..Checks::default()
        };
        let mut out = Vec::new();
        checks.check(&serde_json::json!(300), |m| out.push(m));
        checks.check(&serde_json::json!(""), |m| out.push(m));
        assert_eq!(
            out,
            [
                "expected an integer that fits uint8, got 300",
                "expected at least 1 character, got \"\""
            ]
        );
        assert!(json_eq(
            &serde_json::json!([1, {"a": 2}]),
            &serde_json::json!([1.0, {"a": 2}])
        ));
    }
}
