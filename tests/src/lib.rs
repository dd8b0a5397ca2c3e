//! Integration and conformance tests live in `tests/tests/`; the benchmarks
//! in `tests/benches/`. This library holds what they share with other tools:
//! the benchmark [`workloads`].

pub mod workloads;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The guide's examples (`docs/guide/`), compiled and run as doctests: one
/// item per page.
#[cfg(doctest)]
pub mod guide {
    /// `docs/guide/library.md`.
    #[doc = include_str!("../../docs/guide/library.md")]
    pub struct Library;

    /// `docs/guide/tools.md`.
    #[doc = include_str!("../../docs/guide/tools.md")]
    pub struct Tools;

    /// `docs/guide/behaviour.md`.
    #[doc = include_str!("../../docs/guide/behaviour.md")]
    pub struct Behaviour;

    /// `docs/guide/v1.md`.
    #[doc = include_str!("../../docs/guide/v1.md")]
    pub struct V1;

    /// `docs/guide/dependencies.md`.
    #[doc = include_str!("../../docs/guide/dependencies.md")]
    pub struct Dependencies;
}
