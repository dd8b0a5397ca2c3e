//! Integration and conformance tests live in `tests/tests/`; the benchmarks
//! in `tests/benches/`. This library holds what they share with other tools:
//! the benchmark [`workloads`].

pub mod workloads;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
