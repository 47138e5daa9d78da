//! Which repairs and coercions a decoder may make, and whether a result that
//! needed them is acceptable.

use std::fmt;
use std::sync::Arc;

use crate::report::{CoercionKind, Fix, RepairKind, Report};

// One bit per kind: the enums must stay within the widths (their last
// variants have the highest discriminants; new kinds go last).
const _: () = assert!((RepairKind::Json5Escape as u32) < 64);
const _: () = assert!((CoercionKind::JsonToString as u32) < 32);

/// The kinds of repair and coercion allowed, one bit per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    repairs: u64,
    coercions: u32,
}

impl Rules {
    /// Every repair, and every coercion but the two that guess
    /// ([`CoercionKind::RoundFloat`], [`CoercionKind::NullToString`]).
    pub(crate) const DEFAULT: Rules = Rules {
        repairs: u64::MAX,
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

    /// Whether every repair is allowed (the scanner need not check).
    #[inline]
    pub(crate) fn all_repairs(self) -> bool {
        self.repairs == u64::MAX
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
        assert!(d.coerce(CoercionKind::StringToNumber));
        assert!(!d.coerce(CoercionKind::RoundFloat));
        assert!(!d.coerce(CoercionKind::NullToString));
    }
}
