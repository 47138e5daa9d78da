//! Contracts: checks a decoded value must pass beyond its type (a score
//! between 0 and 1, a non-empty list), with violations that name their JSON
//! paths so they can be sent back to the model.

use std::fmt;

/// A check that a decoded value must pass, run by
/// [`Decoder::decode_checked`](crate::Decoder::decode_checked) and
/// [`from_llm_str_checked`](crate::from_llm_str_checked) after decoding.
///
/// ```
/// use serde_llm::{Contract, Violations};
///
/// #[derive(Debug, serde::Deserialize)]
/// struct Verdict { label: String, score: f64 }
///
/// impl Contract for Verdict {
///     fn check(&self) -> Result<(), Violations> {
///         let mut v = Violations::new();
///         v.expect(
///             (0.0..=1.0).contains(&self.score),
///             "$.score",
///             "a number between 0 and 1",
///             &self.score,
///         );
///         v.expect(!self.label.is_empty(), "$.label", "a non-empty label", &self.label);
///         v.into_result()
///     }
/// }
///
/// let err = serde_llm::from_llm_str_checked::<Verdict>(r#"{"label": "spam", "score": 7}"#)
///     .unwrap_err();
/// assert_eq!(err.kind(), serde_llm::ErrorKind::Contract);
/// assert_eq!(err.feedback(), "$.score: expected a number between 0 and 1, got 7.0");
/// ```
pub trait Contract {
    /// Checks the value; every violation found, with its JSON path.
    fn check(&self) -> Result<(), Violations>;
}

/// One broken rule: where (`$.items[2].score`) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// The JSON path of the offending value, `$` for the root.
    pub path: String,
    /// What is wrong, for the model: `expected a number between 0 and 1, got 1.5`.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The violations a [`Contract`] check found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Violations(Vec<Violation>);

impl Violations {
    /// No violations yet.
    pub fn new() -> Violations {
        Violations(Vec::new())
    }

    /// Records a violation unless `ok`: at `path`, "expected `expected`,
    /// got" the value as JSON.
    ///
    /// ```
    /// let mut v = serde_llm::Violations::new();
    /// v.expect(false, "$.tags", "at least one tag", &Vec::<String>::new());
    /// assert_eq!(v.to_string(), "$.tags: expected at least one tag, got []");
    /// ```
    pub fn expect<T: serde::Serialize + ?Sized>(
        &mut self,
        ok: bool,
        path: impl Into<String>,
        expected: impl fmt::Display,
        got: &T,
    ) -> &mut Violations {
        if !ok {
            let got = serde_json::to_string(got).unwrap_or_else(|_| "a value".to_owned());
            self.push(path, format!("expected {expected}, got {got}"));
        }
        self
    }

    /// Records a violation with a message of the caller's own.
    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) -> &mut Violations {
        self.0.push(Violation {
            path: path.into(),
            message: message.into(),
        });
        self
    }

    /// Adds the violations of a part of the value (an element's own
    /// [`Contract`]), their paths put under `at`: `$.name` under
    /// `$.items[2]` is `$.items[2].name`.
    ///
    /// ```
    /// use serde_llm::{Contract, Violations};
    ///
    /// struct Item { qty: u32 }
    /// impl Contract for Item {
    ///     fn check(&self) -> Result<(), Violations> {
    ///         let mut v = Violations::new();
    ///         v.expect(self.qty > 0, "$.qty", "a positive quantity", &self.qty);
    ///         v.into_result()
    ///     }
    /// }
    ///
    /// let items = [Item { qty: 1 }, Item { qty: 0 }];
    /// let mut v = Violations::new();
    /// for (i, item) in items.iter().enumerate() {
    ///     v.nest(format!("$.items[{i}]"), item.check());
    /// }
    /// assert_eq!(v.to_string(), "$.items[1].qty: expected a positive quantity, got 0");
    /// ```
    pub fn nest(&mut self, at: impl AsRef<str>, part: Result<(), Violations>) -> &mut Violations {
        let at = at.as_ref();
        if let Err(inner) = part {
            for mut v in inner.0 {
                v.path = match v.path.strip_prefix('$') {
                    Some(rest) => format!("{at}{rest}"),
                    None => format!("{at}.{}", v.path),
                };
                self.0.push(v);
            }
        }
        self
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many violations were recorded.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The violations, in the order recorded.
    pub fn iter(&self) -> std::slice::Iter<'_, Violation> {
        self.0.iter()
    }

    /// `Ok(())` when nothing was recorded, else `Err(self)`.
    pub fn into_result(self) -> Result<(), Violations> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Violation> {
        self.0
    }
}

impl fmt::Display for Violations {
    /// One violation per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

impl<'a> IntoIterator for &'a Violations {
    type Item = &'a Violation;
    type IntoIter = std::slice::Iter<'a, Violation>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
