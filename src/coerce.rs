//! How a value written one way is read as the type wanted (see
//! [`CoercionKind`](crate::CoercionKind)): the pure rules, used by the
//! Deserializer in `de.rs`.

use std::borrow::Cow;

/// A string that holds a number: surrounding spaces, then a JSON number, or
/// an integer part grouped by commas in threes (`1,234,567.5`). Gives the
/// number's JSON spelling.
pub(crate) fn number_text(s: &str) -> Option<Cow<'_, str>> {
    let t = s.trim();
    if is_json_number(t) {
        return Some(Cow::Borrowed(t));
    }
    let (sign, body) = match t.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", t),
    };
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let mut groups = int.split(',');
    let first = groups.next()?;
    let grouped = (1..=3).contains(&first.len())
        && !first.starts_with('0')
        && first.bytes().all(|b| b.is_ascii_digit())
        && int.contains(',')
        && groups.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
    if !grouped {
        return None;
    }
    let mut out = String::with_capacity(t.len());
    out.push_str(sign);
    out.extend(int.chars().filter(|&c| c != ','));
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    is_json_number(&out).then_some(Cow::Owned(out))
}

/// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(crate) fn is_json_number(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// The exact value of a JSON number's text when it is a whole number that
/// fits an `i128` (`42.0`, `4.2e1`, `-7.000`); `None` when it has a
/// fractional part or is too large.
pub(crate) fn integral(text: &str) -> Option<i128> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(k) => (&body[..k], body[k + 1..].parse::<i32>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let mut exp10 = exp.checked_sub(i32::try_from(frac.len()).ok()?)?;
    while digits.len() > 1 && digits.last() == Some(&b'0') && exp10 < 0 {
        digits.pop();
        exp10 += 1;
    }
    if digits.iter().all(|&d| d == b'0') {
        return Some(0);
    }
    if exp10 < 0 {
        return None;
    }
    let mut value: i128 = 0;
    for d in digits
        .iter()
        .copied()
        .chain(std::iter::repeat_n(b'0', exp10 as usize))
    {
        value = value.checked_mul(10)?.checked_add(i128::from(d - b'0'))?;
    }
    Some(if neg { -value } else { value })
}

/// A bool spelled as a word: `true`, `false`, `yes`, `no`, in any case.
pub(crate) fn bool_word(s: &str) -> Option<bool> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("yes") {
        Some(true)
    } else if t.eq_ignore_ascii_case("false") || t.eq_ignore_ascii_case("no") {
        Some(false)
    } else {
        None
    }
}

/// The strings models write for "no value": `null`, `None`, `N/A`, `NA`
/// and the empty string, in any case, spaces around ignored.
pub(crate) fn is_none_sentinel(s: &str) -> bool {
    let t = s.trim();
    t.is_empty()
        || ["null", "none", "n/a", "na"]
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w))
}

/// How a written name matches a type's list of names (fields or variants,
/// aliases included).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NameMatch {
    /// Written exactly as one of the names, or matching none of them: read as
    /// written.
    AsWritten,
    /// Matches one name when case and `_`, `-`, spaces are ignored.
    One(&'static str),
    /// Matches two different names that way.
    Ambiguous(&'static str, &'static str),
}

/// Matches `written` against `names`: exactly first, then ignoring ASCII case
/// and `_`, `-` and spaces (`userName`, `user-name`, `User Name` all match
/// `user_name`). serde lists a field's or variant's aliases right after its
/// name, so several matches in one unbroken run are taken as one field's
/// names; matches apart are two fields, and ambiguous.
pub(crate) fn match_name(written: &str, names: &'static [&'static str]) -> NameMatch {
    if names.contains(&written) {
        return NameMatch::AsWritten;
    }
    let key = folded(written);
    if key.is_empty() {
        return NameMatch::AsWritten;
    }
    let mut found: Option<(usize, &'static str)> = None;
    let mut last = 0;
    for (i, &name) in names.iter().enumerate() {
        if folded(name) != key {
            continue;
        }
        match found {
            None => found = Some((i, name)),
            Some((_, first)) if i != last + 1 => return NameMatch::Ambiguous(first, name),
            Some(_) => {}
        }
        last = i;
    }
    match found {
        Some((_, name)) => NameMatch::One(name),
        None => NameMatch::AsWritten,
    }
}

/// A unit enum's value written with a description after it, or with
/// emphasis or punctuation stuck to it (`HIGH: urgent`, `HIGH - urgent`,
/// `**HIGH**, because…`, `HIGH!`): the variant the text starts with, when
/// no other variant's name appears in it as a word. A name of one letter
/// counts only as written (`a` is a word); longer ones in any case or style.
/// `None` when the text starts with no variant, or names two (`HIGH or
/// LOW`): an error then, never a guess.
pub(crate) fn variant_with_description(
    written: &str,
    variants: &'static [&'static str],
) -> Option<&'static str> {
    let lead = |c: char| matches!(c, '*' | '_' | '`' | '"' | '\'' | '[' | '(' | '#' | '>');
    let s = written.trim().trim_start_matches(lead).trim_start();
    // The variant the text starts with: the longest name that ends at a
    // word boundary.
    let starts = |name: &str| -> Option<usize> {
        let n = name.len();
        let head = s.get(..n)?;
        let same = if name.chars().count() == 1 {
            head == name
        } else {
            head.eq_ignore_ascii_case(name) || folded(head) == folded(name)
        };
        let boundary = s[n..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        (same && boundary).then_some(n)
    };
    let (name, len) = variants
        .iter()
        .filter_map(|&v| starts(v).map(|n| (v, n)))
        .max_by_key(|&(_, n)| n)?;
    if len == s.len() {
        // The name alone is a matter for `match_name`.
        return None;
    }
    // No other variant named in the rest, as a word.
    let rest = &s[len..];
    let words = rest
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
        .filter(|w| !w.is_empty());
    for w in words {
        let other = variants.iter().any(|&v| {
            v != name
                && if v.chars().count() == 1 {
                    w == v
                } else {
                    folded(w) == folded(v)
                }
        });
        if other {
            return None;
        }
    }
    Some(name)
}

fn folded(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_with_a_description() {
        const V: &[&str] = &["LOW", "MEDIUM", "HIGH", "A"];
        let v = |s| variant_with_description(s, V);
        for (written, want) in [
            ("HIGH: urgent", Some("HIGH")),
            ("HIGH - urgent", Some("HIGH")),
            ("**HIGH**, because it breaks", Some("HIGH")),
            ("HIGH!", Some("HIGH")),
            ("high — the site is down", Some("HIGH")),
            ("A, clearly", Some("A")),
            ("HIGH or LOW", None),
            ("HIGH, not low", None),
            ("not high", None),
            ("HIGHER", None),
            ("HIGH", None),
            ("a good choice", None),
        ] {
            assert_eq!(v(written), want, "{written}");
        }
    }

    #[test]
    fn numbers_in_strings() {
        let n = |s| number_text(s).map(|c| c.into_owned());
        assert_eq!(n("42").as_deref(), Some("42"));
        assert_eq!(n(" 42 ").as_deref(), Some("42"));
        assert_eq!(n("4.5e3").as_deref(), Some("4.5e3"));
        assert_eq!(n("-7").as_deref(), Some("-7"));
        assert_eq!(n("1,234").as_deref(), Some("1234"));
        assert_eq!(n("-1,234,567.25").as_deref(), Some("-1234567.25"));
        for bad in [
            "",
            "high",
            "1,23",
            "12,345,67",
            "1,2345",
            ",123",
            "0,123",
            "1.2.3",
            "+5",
            ".5",
            "5.",
            "0x10",
            "1e",
            "NaN",
            "1 2",
            "١٢",
        ] {
            assert_eq!(n(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn integral_values_are_exact() {
        assert_eq!(integral("42"), Some(42));
        assert_eq!(integral("42.0"), Some(42));
        assert_eq!(integral("-7.000"), Some(-7));
        assert_eq!(integral("4.2e1"), Some(42));
        assert_eq!(integral("4200e-2"), Some(42));
        assert_eq!(integral("1e3"), Some(1000));
        assert_eq!(integral("0.0"), Some(0));
        assert_eq!(integral("-0.0e5"), Some(0));
        assert_eq!(integral("9007199254740993.0"), Some(9_007_199_254_740_993));
        assert_eq!(integral("42.5"), None);
        assert_eq!(integral("1e-3"), None);
        assert_eq!(integral("1e40"), None);
        assert_eq!(integral("1e999999999"), None);
    }

    #[test]
    fn words() {
        assert_eq!(bool_word("Yes"), Some(true));
        assert_eq!(bool_word(" FALSE "), Some(false));
        assert_eq!(bool_word("no"), Some(false));
        assert_eq!(bool_word("maybe"), None);
        assert!(is_none_sentinel(""));
        assert!(is_none_sentinel(" N/A "));
        assert!(is_none_sentinel("None"));
        assert!(is_none_sentinel("NULL"));
        assert!(!is_none_sentinel("nothing"));
    }

    #[test]
    fn names() {
        const FIELDS: &[&str] = &["user_name", "id", "createdAt"];
        assert_eq!(match_name("user_name", FIELDS), NameMatch::AsWritten);
        assert_eq!(match_name("userName", FIELDS), NameMatch::One("user_name"));
        assert_eq!(match_name("User-Name", FIELDS), NameMatch::One("user_name"));
        assert_eq!(match_name("ID", FIELDS), NameMatch::One("id"));
        assert_eq!(
            match_name("created_at", FIELDS),
            NameMatch::One("createdAt")
        );
        assert_eq!(match_name("other", FIELDS), NameMatch::AsWritten);
        // A name and its alias, listed together, are one field.
        const ALIASED: &[&str] = &["a", "user_name", "username", "b"];
        assert_eq!(match_name("UserName", ALIASED), NameMatch::One("user_name"));
        // Two fields apart: ambiguous.
        const TWO: &[&str] = &["user_name", "id", "username"];
        assert_eq!(
            match_name("UserName", TWO),
            NameMatch::Ambiguous("user_name", "username")
        );
        const VARIANTS: &[&str] = &["Todo", "InProgress", "Done"];
        assert_eq!(
            match_name("In Progress", VARIANTS),
            NameMatch::One("InProgress")
        );
        assert_eq!(
            match_name("in_progress", VARIANTS),
            NameMatch::One("InProgress")
        );
    }
}
