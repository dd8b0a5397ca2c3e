//! Integration and conformance tests live in `tests/tests/`.
