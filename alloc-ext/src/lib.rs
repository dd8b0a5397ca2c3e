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
//! | module | what it does |
//! |---|---|
//! | [`client`] | the whole client: bytes in, `{ messages, state }` out ([`client::Client`]) |
//! | [`event`] | the owned event the reducer consumes, built from a verified core event and its frame |
//! | [`reduce`] | the reducer (SPEC section 5) and its limits |
//! | [`patch`] | RFC 6902 JSON Patch, atomic, as `STATE_DELTA` / `ACTIVITY_DELTA` apply it |
//! | [`partial`] | a tool call's arguments as JSON while they are still incomplete |
//! | [`hooks`] | observe the fold, replace messages or state, stop default handling |
//! | [`model`] | typed wire models: messages, tool calls, run input, interrupts |
//!
//! ```
//! use agui_alloc::client::Client;
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
mod rules;
pub mod size;
#[cfg(feature = "v1")]
pub mod v1;
pub mod value;
