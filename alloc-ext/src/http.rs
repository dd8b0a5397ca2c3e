//! HTTP transport (in progress).
