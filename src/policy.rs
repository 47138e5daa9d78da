//! Which repairs and coercions a decoder may make, and whether a result that
//! needed them is acceptable.

use std::fmt;
use std::ops::BitOr;
use std::sync::Arc;

use crate::report::{CoercionKind, Fix, RepairKind, Report};

// One bit per kind: the enums must stay within the widths (their last
// variants have the highest discriminants; new kinds go last).
const _: () = assert!((RepairKind::Elision as u32) < 64);
const _: () = assert!((CoercionKind::ExtraKey as u32) < 32);

/// [`RepairKind::Elision`]'s bit.
const ELISION: u64 = 1 << RepairKind::Elision as u32;

/// The kinds of repair and coercion allowed, one bit per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    repairs: u64,
    coercions: u32,
}

impl Rules {
    /// Every repair but [`RepairKind::Elision`] (which `repair()` makes,
    /// see [`for_repair`](Self::for_repair)), and every coercion but the
    /// two that guess ([`CoercionKind::RoundFloat`],
    /// [`CoercionKind::NullToString`]).
    pub(crate) const DEFAULT: Rules = Rules {
        repairs: !ELISION,
        coercions: !(1 << CoercionKind::RoundFloat as u32 | 1 << CoercionKind::NullToString as u32),
    };

    /// Nothing but extraction: serde_json's acceptance.
    pub(crate) const STRICT: Rules = Rules {
        repairs: 0,
        coercions: 0,
    };

    pub(crate) fn set(&mut self, fix: Fix, allowed: bool) {
        match (fix, allowed) {
            (Fix::Repair(k), true) => self.repairs |= 1 << k as u32,
            (Fix::Repair(k), false) => self.repairs &= !(1 << k as u32),
            (Fix::Coercion(k), true) => self.coercions |= 1 << k as u32,
            (Fix::Coercion(k), false) => self.coercions &= !(1 << k as u32),
        }
    }

    #[inline]
    pub(crate) fn repair(self, kind: RepairKind) -> bool {
        self.repairs & (1 << kind as u32) != 0
    }

    #[inline]
    pub(crate) fn coerce(self, kind: CoercionKind) -> bool {
        self.coercions & (1 << kind as u32) != 0
    }

    /// Whether every repair is allowed (the scanner need not check), but
    /// perhaps [`RepairKind::Elision`], which the scanner asks for where it
    /// would make it.
    #[inline]
    pub(crate) fn all_repairs(self) -> bool {
        self.repairs | ELISION == u64::MAX
    }

    /// These rules as `repair()` applies them: an elision is removed
    /// wherever an [`RepairKind::Ellipsis`] may be, as json_repair does.
    pub(crate) fn for_repair(mut self) -> Rules {
        if self.repair(RepairKind::Ellipsis) {
            self.repairs |= ELISION;
        }
        self
    }
}

/// A caller's test of a decoded reply's [`Report`].
#[derive(Clone)]
pub(crate) struct Accept(pub Arc<dyn Fn(&Report) -> bool + Send + Sync>);

impl fmt::Debug for Accept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Accept(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_query() {
        let mut r = Rules::STRICT;
        assert!(!r.repair(RepairKind::TrailingComma));
        r.set(RepairKind::TrailingComma.into(), true);
        assert!(r.repair(RepairKind::TrailingComma));
        assert!(!r.repair(RepairKind::Comment));
        assert!(!r.coerce(CoercionKind::ToBool));
        r.set(CoercionKind::ToBool.into(), true);
        assert!(r.coerce(CoercionKind::ToBool));
        let d = Rules::DEFAULT;
        assert!(d.all_repairs());
        assert!(!d.repair(RepairKind::Elision));
        assert!(d.for_repair().repair(RepairKind::Elision));
        assert!(!Rules::STRICT.for_repair().repair(RepairKind::Elision));
        assert!(d.coerce(CoercionKind::StringToNumber));
        assert!(!d.coerce(CoercionKind::RoundFloat));
        assert!(!d.coerce(CoercionKind::NullToString));
    }
}

/// Which kinds of incomplete value an untyped decode keeps (the flags of
/// partial-json-parser, and its default: all). An incomplete value of a kind
/// not allowed is left out of its array or object; at the root it is a
/// [`Truncated`](crate::ErrorKind::Truncated) error.
///
/// ```
/// use serde_llm::{Allow, Decoder};
/// use serde_json::json;
///
/// let cut = r#"["a", "b"#;
/// let all: serde_json::Value = Decoder::new().decode(cut).unwrap();
/// assert_eq!(all, json!(["a", "b"]));
/// let strict = Decoder::new().allow_partial(Allow::ARR | Allow::OBJ);
/// assert_eq!(strict.decode::<serde_json::Value>(cut).unwrap(), json!(["a"]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Allow(u16);

impl Allow {
    /// A string's prefix.
    pub const STR: Allow = Allow(1);
    /// A number cut off (`12` of `123`, `1.` of `1.5`).
    pub const NUM: Allow = Allow(2);
    /// An array's elements so far.
    pub const ARR: Allow = Allow(4);
    /// An object's members so far.
    pub const OBJ: Allow = Allow(8);
    /// `n`, `nu`, `nul` as `null`.
    pub const NULL: Allow = Allow(16);
    /// `t`, `tr`, … as `true`, `f`, … as `false`.
    pub const BOOL: Allow = Allow(32);
    /// `N`, `Na` as `NaN`.
    pub const NAN: Allow = Allow(64);
    /// `I`, `Inf`, … as `Infinity`.
    pub const INFINITY: Allow = Allow(128);
    /// `-I`, `-Inf`, … as `-Infinity`.
    pub const NEG_INFINITY: Allow = Allow(256);
    /// Every kind (the default).
    pub const ALL: Allow = Allow(511);
    /// No incomplete value at all.
    pub const NONE: Allow = Allow(0);

    /// Whether every kind in `other` is allowed.
    pub fn contains(self, other: Allow) -> bool {
        self.0 & other.0 == other.0
    }

    /// These kinds without those in `other`.
    pub fn without(self, other: Allow) -> Allow {
        Allow(self.0 & !other.0)
    }
}

impl BitOr for Allow {
    type Output = Allow;

    fn bitor(self, rhs: Allow) -> Allow {
        Allow(self.0 | rhs.0)
    }
}

impl Default for Allow {
    fn default() -> Self {
        Allow::ALL
    }
}
