//! # agui-core
//!
//! The client side of the [AG-UI protocol] — the event stream an AI agent
//! backend sends to a user interface — for devices with no heap: framing,
//! JSON, event decoding, chunk expansion and the protocol's ordering rules,
//! in a fixed amount of memory chosen at compile time.
//!
//! AG-UI is a stream of JSON events. A run begins (`RUN_STARTED`), text
//! messages stream in as START / CONTENT / END, tool calls as START / ARGS
//! / END, and the run ends (`RUN_FINISHED` or `RUN_ERROR`). The events come
//! as Server-Sent Events (`data: {...}` lines) or as newline-delimited JSON.
//!
//! The pipeline, one module per stage:
//!
//! | stage | module | what it does |
//! |---|---|---|
//! | framing | [`frame`] | bytes to frames: SSE events or NDJSON lines, any chunking |
//! | JSON | [`json`] | a resumable tokenizer: strings in fragments, nothing buffered |
//! | decoding | [`decode`] | one frame to a schema-checked event header plus field fragments |
//! | chunks | [`chunk`] | `*_CHUNK` shorthand to START / CONTENT / END |
//! | verification | [`verify`] | the ordering rules, with fixed-capacity id tables |
//! | all of it | [`pipeline`] | bytes in, verified [`event::EventRef`]s out |
//! | transports | [`io`] | drive a pipeline from `embedded-io` (or async, or std) |
//! | replies | [`reply`] | decode a tool call's arguments; write a tool result |
//! | storage | [`store`] | where every stage keeps its state: [`store::Fixed`] here, a growable store on a host |
//!
//! AG-UI 1.0 (SPEC section 9) is a choice of the pipeline, made at compile
//! time ([`pipeline::V1Pipeline`]: the decoder's 1.0 part and the 1.0
//! tables) and per stream ([`protocol::Select`]): the [`compat`]ibility
//! boundary, enforcement in [`decode`] (unknown types dropped, unknown keys
//! stripped), lanes in [`chunk`], owners and sub-agents in [`verify::v1`],
//! and [`warn`]ings handed to the caller as values. The default pipeline
//! runs the current protocol and carries none of it.
//!
//! Nothing here allocates, panics or uses `unsafe`. Every capacity is a
//! const generic; running out of one is an [`error::Error`] with code
//! `capacity`, never a silent cut. The rules are written once over a
//! [`store::Store`]: the core's own is fixed; `agui-alloc` gives the same
//! rules growable tables on a host (`agui_alloc::store::Grow`).
//!
//! ```
//! use agui_core::pipeline::{DefaultPipeline, Output};
//!
//! let mut pipeline = DefaultPipeline::new();
//! let bytes = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
//! pipeline
//!     .feed(bytes, |out| {
//!         if let Output::Event(ev) = out {
//!             assert_eq!(ev.kind.as_str(), "RUN_STARTED");
//!         }
//!     })
//!     .unwrap();
//! assert_eq!(pipeline.accepted(), 1);
//! ```
//!
//! [AG-UI protocol]: https://docs.ag-ui.com
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// With no heap there is nothing to box an error into; an error carries the
// offending id so that its message can be acted on, and is returned rarely.
#![allow(clippy::result_large_err)]

pub mod chunk;
pub mod compat;
pub mod decode;
pub mod device;
pub mod error;
pub mod event;
pub mod frame;
pub mod io;
pub mod json;
mod names;
pub mod pipeline;
pub mod proto;
pub mod protocol;
pub mod reply;
pub mod spec;
pub mod store;
pub mod verify;
pub mod warn;

pub use error::{Code, Error, Stage};
pub use event::{EventRef, EventType};
pub use pipeline::{DefaultPipeline, Mode, Output, Pipeline};
pub use protocol::{Protocol, Select};
pub use warn::{WarnCode, Warning};

/// Whether the fast paths of the framer and the decoder are taken (feature
/// `fast`). A constant, not a `cfg`: both builds type-check the same code,
/// and without the feature the optimizer drops the fast paths.
const FAST: bool = cfg!(feature = "fast");
