//! # agui-alloc
//!
//! The [AG-UI] client on top of `agui-core`, for targets with a heap
//! (`no_std` + `alloc`): it folds the core's verified events into the
//! conversation a user interface shows, `{ messages, state }`.
//!
//! `agui-core` stops at verified events (no heap: ids and fragments only).
//! This crate keeps what a UI needs: messages with their text and tool
//! calls, the shared state as JSON, the arguments of a tool call while they
//! stream in, every resource bounded by limits checked *before* an event
//! is applied.
//!
//! The front door: [`Client`] (bytes in, `{ messages, state }` out) with
//! its [`Limits`], [`Conversation`] (a thread run after run: the run input
//! out, the response folded in) and, with the feature `http`, `HttpAgent`
//! (a conversation's runs over HTTP).
//!
//! | module | what it does |
//! |---|---|
//! | [`client`] | the whole client: bytes in, `{ messages, state }` out ([`Client`]) |
//! | [`conversation`] | a thread run by run: the run input to POST, the response folded, the tool calls left to answer ([`Conversation`]) |
//! | `http` | (feature `http`) a conversation's runs over HTTP, folded as the body arrives (`HttpAgent`) |
//! | [`event`] | the owned event the reducer consumes, built from a verified core event and its frame |
//! | [`reduce`] | the reducer (SPEC section 5) and its limits |
//! | [`patch`] | RFC 6902 JSON Patch, atomic, as `STATE_DELTA` / `ACTIVITY_DELTA` apply it |
//! | [`partial`] | a tool call's arguments as JSON while they are still incomplete |
//! | [`hooks`] | observe the fold, replace messages or state, stop default handling |
//! | [`model`] | typed wire models: messages, tool calls, run input, interrupts |
//! | [`store`] | the host's store: the core's rules over growable tables (`Grow`) |
//! | [`size`] | the sizes of JSON values as the limits count them (compact JSON bytes) |
//! | [`value`] | JSON values built from the core tokenizer's tokens, numbers read as the reference reads them |
//! | `v1` | (feature `v1`) AG-UI 1.0 inbound processing: the compatibility boundary and enforcement (SPEC 9.3, 9.4) |
//!
//! ```
//! use agui_alloc::Client;
//!
//! let mut client = Client::new();
//! client.feed(b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n").unwrap();
//! client.feed(b"{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"Hi\"}\n").unwrap();
//! client.finish().unwrap();
//! assert_eq!(client.messages()[0].text(), Some("Hi"));
//! ```
//!
//! How the stages fit together, and how to add an event type: see
//! `ARCHITECTURE.md` at the repository's root.
//!
//! [AG-UI]: https://docs.ag-ui.com
#![no_std]
// Test code may unwrap, index and panic: a failing test should.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]
#![forbid(unsafe_code)]
extern crate alloc;
pub mod client;
pub mod conversation;
pub mod event;
pub mod hooks;
#[cfg(feature = "http")]
pub mod http;
mod index;
pub mod model;
pub mod partial;
pub mod patch;
mod readers;
pub mod reduce;
pub mod size;
pub mod store;
#[cfg(feature = "v1")]
pub mod v1;
pub mod value;

pub use client::{Client, Limits};
pub use conversation::Conversation;
#[cfg(feature = "http")]
pub use http::HttpAgent;
