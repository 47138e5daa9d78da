//! Numbers: lexing (with the repairs models need) and conversion that gives
//! exactly what `serde_json` gives for the same text.

use super::lex::ends_token;

/// A number's value as `serde_json` would classify it: non-negative integers
/// are `u64`, negative ones `i64`, everything else (fractions, exponents,
/// integers out of range, `-0`) is parsed as `f64` from the text on demand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum NumValue {
    U64(u64),
    I64(i64),
    /// Parse the text with [`parse_f64`] when needed.
    Float,
    /// `NaN`, `Infinity` or `-Infinity`, which only a Rust float can hold.
    NonFinite(f64),
}

/// The outcome of lexing at a number-like start.
#[derive(Debug)]
pub(crate) enum Lexed {
    /// A number ending at `end`. When `clean` is false, its JSON spelling was
    /// written to the scratch buffer. `cut`: it ended in a dot or an exponent
    /// marker with no digits (`12.`, `1e`), so more digits may have followed.
    /// `hex`: it was written in hexadecimal (JSON5's `0x1F`, signed or not).
    Number {
        end: usize,
        clean: bool,
        cut: bool,
        hex: bool,
    },
    /// A sign or dot with no digits (`-`, `+`, `.`), ending at `end`.
    Empty { end: usize },
    /// Not a number: the token is something else (`1/3`, `0789`, a date).
    NotNumber,
}

#[inline]
fn digits(b: &[u8], mut k: usize, end: usize, underscores: &mut bool) -> (usize, usize) {
    let start = k;
    let mut n = 0;
    while k < end {
        let c = b[k];
        if c.is_ascii_digit() {
            n += 1;
            k += 1;
        } else if c == b'_' && k > start && k + 1 < end && b[k + 1].is_ascii_digit() {
            *underscores = true;
            k += 1;
        } else {
            break;
        }
    }
    (k, n)
}

/// Lexes a number starting at `i` (which holds `-`, `+`, `.` or a digit).
/// The JSON spelling of a repaired number is written to `scratch`.
pub(crate) fn lex(b: &[u8], i: usize, end: usize, scratch: &mut String) -> Lexed {
    let mut k = i;
    let mut underscores = false;
    let neg = b[k] == b'-';
    let plus = b[k] == b'+';
    if neg || plus {
        k += 1;
    }
    if k + 2 < end + 1 && k + 1 < end && b[k] == b'0' && matches!(b[k + 1], b'x' | b'X') {
        return hex(b, i, k + 2, end, neg, scratch);
    }
    let int_start = k;
    let (after_int, int_digits) = digits(b, k, end, &mut underscores);
    k = after_int;
    if int_digits > 1 && b[int_start] == b'0' {
        // Leading zeros: "0789" is an identifier or a code, not a number.
        return Lexed::NotNumber;
    }
    let mut frac = None;
    let mut trailing_dot = false;
    if k < end && b[k] == b'.' {
        if k + 1 < end && b[k + 1].is_ascii_digit() {
            let (after, n) = digits(b, k + 1, end, &mut underscores);
            frac = Some((k + 1, after, n));
            k = after;
        } else if k + 1 >= end
            || ends_token(b, k + 1, end)
            || (int_digits > 0 && matches!(b[k + 1], b'e' | b'E'))
        {
            // `12.`, and JSON5's `5.e3`: a dot with no digits after it.
            trailing_dot = true;
            k += 1;
        } else {
            return Lexed::NotNumber;
        }
    }
    if int_digits == 0 && frac.is_none() {
        return if k < end && !ends_token(b, k, end) {
            Lexed::NotNumber
        } else {
            Lexed::Empty { end: k }
        };
    }
    let mut exp = None;
    let mut cut_exp = false;
    if k < end && (b[k] == b'e' || b[k] == b'E') {
        let mut e = k + 1;
        if e < end && (b[e] == b'+' || b[e] == b'-') {
            e += 1;
        }
        let (after, n) = digits(b, e, end, &mut underscores);
        if n > 0 {
            exp = Some((k, after));
            k = after;
        } else if e >= end || ends_token(b, e, end) {
            cut_exp = true;
            k = e;
        } else {
            return Lexed::NotNumber;
        }
    }
    if k < end && !ends_token(b, k, end) {
        return Lexed::NotNumber;
    }
    // `10:30`, `16:9`: a time or a ratio, not the number before its colon
    // (the rest would be read as more values or keys). A colon at the end
    // may be one too.
    if k < end && b[k] == b':' && (k + 1 >= end || b[k + 1].is_ascii_digit()) {
        return Lexed::NotNumber;
    }
    let clean = !plus && !underscores && int_digits > 0 && !trailing_dot && !cut_exp;
    if !clean {
        scratch.clear();
        if neg {
            scratch.push('-');
        }
        push_digits(scratch, &b[int_start..after_int]);
        if int_digits == 0 {
            scratch.push('0');
        }
        if let Some((s, e, _)) = frac {
            scratch.push('.');
            push_digits(scratch, &b[s..e]);
        }
        if let Some((s, e)) = exp {
            push_digits(scratch, &b[s..e]);
        }
    }
    Lexed::Number {
        end: k,
        clean,
        // Only a dot or an exponent marker that ends the number may have
        // been cut (`5.e3` is whole).
        cut: (trailing_dot && exp.is_none()) || cut_exp,
        hex: false,
    }
}

/// A JSON5 hexadecimal integer (`0x1F90`, `-0XFF`) whose digits start at
/// `digits` (`start` is its first byte, a sign or the `0`): its decimal
/// spelling is written to `scratch`. Digits beyond `u128` are read as a
/// float, as JSON reads a decimal integer beyond `u64`. No digits, or a
/// letter that is no hex digit stuck to them, is no number (`0x`, `0x1G`).
fn hex(
    b: &[u8],
    start: usize,
    digits: usize,
    end: usize,
    neg: bool,
    scratch: &mut String,
) -> Lexed {
    let mut k = digits;
    while k < end && b[k].is_ascii_hexdigit() {
        k += 1;
    }
    if k == digits || (k < end && !ends_token(b, k, end)) {
        let _ = start;
        return Lexed::NotNumber;
    }
    scratch.clear();
    if neg {
        scratch.push('-');
    }
    let text = std::str::from_utf8(&b[digits..k]).unwrap_or("0");
    match u128::from_str_radix(text, 16) {
        Ok(v) => scratch.push_str(&v.to_string()),
        Err(_) => {
            let v = text.bytes().fold(0f64, |acc, d| {
                acc * 16.0 + f64::from((d as char).to_digit(16).unwrap_or(0))
            });
            scratch.push_str(&format!("{v:e}"));
        }
    }
    Lexed::Number {
        end: k,
        clean: false,
        cut: false,
        hex: true,
    }
}

/// The JSON spelling of `word`, a whole token, where the scanner reads it
/// as a decimal number (JSON's own, or JSON5's `+1`, `.5`, `5.`, `5.e3`,
/// as [`lex`] repairs them): `None` for anything else, a hexadecimal
/// number included.
pub(crate) fn decimal_spelling(word: &str) -> Option<std::borrow::Cow<'_, str>> {
    let b = word.as_bytes();
    if b.is_empty() {
        return None;
    }
    let mut scratch = String::new();
    match lex(b, 0, b.len(), &mut scratch) {
        Lexed::Number {
            end,
            clean,
            hex: false,
            ..
        } if end == b.len() => Some(match clean {
            true => std::borrow::Cow::Borrowed(word),
            false => std::borrow::Cow::Owned(scratch),
        }),
        _ => None,
    }
}

fn push_digits(out: &mut String, bytes: &[u8]) {
    out.extend(bytes.iter().filter(|&&c| c != b'_').map(|&c| c as char));
}

/// Classifies a JSON number the way `serde_json`'s `deserialize_any` does.
#[inline]
pub(crate) fn classify(text: &str) -> NumValue {
    let b = text.as_bytes();
    let neg = b[0] == b'-';
    let digits = &b[neg as usize..];
    let mut sig: u64 = 0;
    if digits.len() <= 19 {
        // Nineteen digits always fit: no overflow to check.
        for &c in digits {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return NumValue::Float;
            }
            sig = sig * 10 + u64::from(d);
        }
    } else {
        for &c in digits {
            if !c.is_ascii_digit() {
                return NumValue::Float;
            }
            match sig
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
            {
                Some(v) => sig = v,
                None => return NumValue::Float,
            }
        }
    }
    if !neg {
        return NumValue::U64(sig);
    }
    // serde_json: negative integers that do not fit i64, and `-0`, become f64.
    let v = (sig as i64).wrapping_neg();
    if v >= 0 {
        NumValue::Float
    } else {
        NumValue::I64(v)
    }
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Parses a JSON number as `f64`, bit for bit as `serde_json` does.
///
/// When the significand fits in 53 bits and the decimal exponent is at most 22
/// in size, one IEEE multiplication or division of two exact values is the
/// correctly rounded result, which is also what `serde_json` computes. Every
/// other number is handed to `serde_json` itself, so the two can never differ.
pub(crate) fn parse_f64(text: &str) -> Option<f64> {
    if let Some(f) = fast_f64(text) {
        return Some(f);
    }
    serde_json::from_str::<f64>(text).ok()
}

fn fast_f64(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let neg = b.first() == Some(&b'-');
    let mut k = neg as usize;
    let mut sig: u64 = 0;
    let mut exp10: i32 = 0;
    let mut in_frac = false;
    while k < b.len() {
        match b[k] {
            c @ b'0'..=b'9' => {
                sig = sig.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                if in_frac {
                    exp10 -= 1;
                }
            }
            b'.' => in_frac = true,
            b'e' | b'E' => {
                let e: i32 = text[k + 1..].parse().ok()?;
                exp10 = exp10.checked_add(e)?;
                break;
            }
            _ => return None,
        }
        k += 1;
    }
    if sig > 1 << 53 || !(-22..=22).contains(&exp10) {
        return None;
    }
    let mut f = sig as f64;
    if exp10 >= 0 {
        f *= POW10[exp10 as usize];
    } else {
        f /= POW10[(-exp10) as usize];
    }
    Some(if neg { -f } else { f })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexed(s: &str) -> (Option<String>, &'static str) {
        let mut scratch = String::new();
        match lex(s.as_bytes(), 0, s.len(), &mut scratch) {
            Lexed::Number {
                end, clean: true, ..
            } => (Some(s[..end].to_owned()), "clean"),
            Lexed::Number { clean: false, .. } => (Some(scratch), "repaired"),
            Lexed::Empty { .. } => (None, "empty"),
            Lexed::NotNumber => (None, "not"),
        }
    }

    #[test]
    fn lexes_and_normalises() {
        let cases = [
            ("12", Some("12"), "clean"),
            ("-1.5e-3,", Some("-1.5e-3"), "clean"),
            ("+1", Some("1"), "repaired"),
            (".5", Some("0.5"), "repaired"),
            ("-.3", Some("-0.3"), "repaired"),
            ("1.", Some("1"), "repaired"),
            ("1e", Some("1"), "repaired"),
            ("2e+ ", Some("2"), "repaired"),
            ("82_461_110", Some("82461110"), "repaired"),
            ("1_234.5_6", Some("1234.56"), "repaired"),
            ("-", None, "empty"),
            ("0789", None, "not"),
            ("1/3", None, "not"),
            ("1.1.1", None, "not"),
            ("10-20", None, "not"),
            ("2e3.4", None, "not"),
            ("1notanumber", None, "not"),
        ];
        for (input, text, how) in cases {
            assert_eq!(lexed(input), (text.map(str::to_owned), how), "{input}");
        }
    }

    #[test]
    fn classifies_like_serde_json() {
        assert_eq!(classify("0"), NumValue::U64(0));
        assert_eq!(classify("-0"), NumValue::Float);
        assert_eq!(classify("-9223372036854775808"), NumValue::I64(i64::MIN));
        assert_eq!(classify("-9223372036854775809"), NumValue::Float);
        assert_eq!(classify("18446744073709551615"), NumValue::U64(u64::MAX));
        assert_eq!(classify("18446744073709551616"), NumValue::Float);
        assert_eq!(
            classify("9999999999999999999"),
            NumValue::U64(9999999999999999999)
        );
        assert_eq!(
            classify("-999999999999999999"),
            NumValue::I64(-999999999999999999)
        );
        assert_eq!(classify("-9999999999999999999"), NumValue::Float);
        assert_eq!(classify("12a"), NumValue::Float);
        assert_eq!(classify("1.0"), NumValue::Float);
    }

    #[test]
    fn floats_match_serde_json_bits() {
        for s in [
            "0.1",
            "2.3e100",
            "1e23",
            "-0.0",
            "123456789012345678901234567890",
            "9007199254740993",
            "0.30000000000000004",
            "1e-400",
            "4.9e-324",
            "1.7976931348623157e308",
            "3.14159",
        ] {
            let ours = parse_f64(s).map(f64::to_bits);
            let theirs = serde_json::from_str::<f64>(s).ok().map(f64::to_bits);
            assert_eq!(ours, theirs, "{s}");
        }
    }
}
