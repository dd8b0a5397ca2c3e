//! Which protocol a stream speaks: the current one (SPEC sections 0-8) or
//! AG-UI 1.0 (SPEC section 9), chosen once per stream.
//!
//! The caller fixes it, or leaves it to the stream: a first frame that is a
//! `RUN_STARTED` whose `protocolVersion` is a string not older than `"1.0"`
//! selects 1.0 (SPEC 9.1). The choice then holds for every run of the
//! stream: the state built so far was built under one set of rules.
//!
//! ```
//! use agui_core::protocol::{announces_v1, Version};
//! assert_eq!(Version::parse("1.0"), Version::Known(1, 0));
//! assert!(announces_v1("1.0") && announces_v1("2.3") && announces_v1("1"));
//! assert!(!announces_v1("0.9"));
//! ```

pub use crate::spec::Protocol;

/// How the pipeline picks its protocol.
///
/// The default is the current protocol, fixed: an existing caller (and a
/// pipeline built without 1.0 tables, whose `OWNERS` and `AGENTS` are 0)
/// keeps its behaviour whatever the stream announces. [`Select::Auto`] is
/// SPEC 9.1's automatic choice, for a pipeline that has 1.0 tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Select {
    /// From the first frame (SPEC 9.1): 1.0 when it is a `RUN_STARTED`
    /// announcing 1.0 or newer, else current.
    Auto,
    /// Always this protocol.
    Fixed(Protocol),
}

impl Default for Select {
    fn default() -> Self {
        Select::Fixed(Protocol::Current)
    }
}

/// A `protocolVersion` as the reference reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Version {
    /// `<digits>.<digits>`, each part as a number (saturating: a part
    /// too long for `u32` still compares as larger than any shorter one).
    Known(u32, u32),
    /// Outside the grammar (`"1"`, `"1.0.0"`, `""`): read as newer.
    Uninterpretable,
}

impl Version {
    /// Reads a `protocolVersion` string.
    pub fn parse(text: &str) -> Version {
        let Some((major, minor)) = text.split_once('.') else {
            return Version::Uninterpretable;
        };
        match (number(major), number(minor)) {
            (Some(a), Some(b)) => Version::Known(a, b),
            (Some(_) | None, _) => Version::Uninterpretable,
        }
    }

    /// How it compares with the 1.0 this implementation speaks: `None`
    /// for equal or older, else the warning the reference prints.
    pub fn warning(self) -> Option<crate::warn::WarnCode> {
        match self {
            Version::Known(major, minor) if (major, minor) <= (1, 0) => None,
            Version::Known(..) => Some(crate::warn::WarnCode::ProtocolNewer),
            Version::Uninterpretable => Some(crate::warn::WarnCode::ProtocolUninterpretable),
        }
    }
}

/// A non-empty run of ASCII digits, saturating at `u32::MAX`.
fn number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.bytes().fold(0u32, |n, b| {
        n.saturating_mul(10)
            .saturating_add(u32::from(b.saturating_sub(b'0')))
    }))
}

/// True if a first frame's `protocolVersion` selects 1.0: in the grammar
/// and at least 1.0, or outside it (SPEC 9.1).
pub fn announces_v1(text: &str) -> bool {
    match Version::parse(text) {
        Version::Known(major, _) => major >= 1,
        Version::Uninterpretable => true,
    }
}
