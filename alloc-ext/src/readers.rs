//! The client's core reader: the current protocol's, or one with AG-UI
//! 1.0's tables (owner tables and sub-agent lanes, SPEC 9.7), chosen when
//! the client is made. Both run the core's rules over the host's growable
//! store ([`Grow`]): open items and ids have no bound but the client's
//! byte limits, and JSON may nest [`DEPTH`] deep.

use alloc::boxed::Box;

#[cfg(feature = "v1")]
use agui_core::decode::V1;
use agui_core::decode::{Header, Part};
use agui_core::error::Error;
use agui_core::pipeline::{Checkpoint, EventReader};
use agui_core::protocol::{Protocol, Select};
use agui_core::store::Store;
use agui_core::verify::Verifier;
use agui_core::warn::Warning;
use agui_core::EventRef;

#[cfg(feature = "grow")]
use crate::store::Grow;

// The bounds of the client's reader (re-exported by `client`; the JSON
// value readers of `value` and `partial` share the nesting limit): here,
// in the leaf module that sizes the reader, so that no module imports
// back from `client`. With the feature `grow` (a host) the tables grow
// and only the depth is bounded; without it (a microcontroller) the
// reader has the fixed capacities it always had.

/// No bound: a growable table takes as many items, and an id slot as many
/// bytes, as the stream brings (the client's byte limits bound them).
pub const UNBOUNDED: usize = usize::MAX;

/// The store of the client's reader: [`Grow`] on a host (feature `grow`).
#[cfg(feature = "grow")]
pub(crate) type HostStore = Grow;
/// The store of the client's reader: the core's fixed one without the
/// feature `grow`.
#[cfg(not(feature = "grow"))]
pub(crate) type HostStore = agui_core::store::Fixed;

/// Id capacity of the client's verifier, in bytes: [`UNBOUNDED`] with the
/// feature `grow`, else 128.
pub const ID_CAPACITY: usize = if cfg!(feature = "grow") {
    UNBOUNDED
} else {
    128
};
/// How many text messages may be open at once: [`UNBOUNDED`] with the
/// feature `grow`, else 64.
pub const OPEN_MESSAGES: usize = if cfg!(feature = "grow") {
    UNBOUNDED
} else {
    64
};
/// How many tool calls may be open at once: [`UNBOUNDED`] with the
/// feature `grow`, else 64.
pub const OPEN_TOOL_CALLS: usize = if cfg!(feature = "grow") {
    UNBOUNDED
} else {
    64
};
/// How many steps may be open at once: [`UNBOUNDED`] with the feature
/// `grow`, else 32.
pub const OPEN_STEPS: usize = if cfg!(feature = "grow") {
    UNBOUNDED
} else {
    32
};
/// JSON nesting limit (frames, snapshots, patches, tool call arguments):
/// 512 with the feature `grow` (the depth stack costs a bit a level), else
/// 64. One level deeper is a `json` error.
pub const DEPTH: usize = if cfg!(feature = "grow") { 512 } else { 64 };
/// AG-UI 1.0: entries per owner table of a run (the ids it mentions:
/// messages, tool calls, reasoning and activity ids, the messages of
/// snapshots and of the run input; SPEC 9.7; the reference keeps them for
/// the run); one more is a `capacity` error naming the table. With the
/// feature `grow` 65,534 (the most a table's `u16` positions address; the
/// tables grow as they fill), else 512.
pub const V1_OWNERS: usize = if cfg!(feature = "grow") { 65_534 } else { 512 };
/// AG-UI 1.0: sub-agent invocations per run (started, or only named by a
/// tag; a finished one keeps its id for the run, as the reference does).
/// With the feature `grow` 255 (an owner is a `u8` index), else 8. At
/// most 8 of them have a chunk open at once (the core's chunk lanes).
pub const V1_AGENTS: usize = if cfg!(feature = "grow") { 255 } else { 8 };

type Current = EventReader<
    ID_CAPACITY,
    OPEN_MESSAGES,
    OPEN_TOOL_CALLS,
    OPEN_STEPS,
    DEPTH,
    0,
    0,
    (),
    HostStore,
>;
#[cfg(feature = "v1")]
type WithV1 = EventReader<
    ID_CAPACITY,
    OPEN_MESSAGES,
    OPEN_TOOL_CALLS,
    OPEN_STEPS,
    DEPTH,
    V1_OWNERS,
    V1_AGENTS,
    V1<ID_CAPACITY, HostStore>,
    HostStore,
>;

/// How many items the client's verifier holds open: what a device with
/// fixed tables (a firmware's `Verifier<ID, MSGS, TOOLS, STEPS>`) would
/// need room for after the same events (`agui-gateway --device-capacity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenItems {
    /// Open text messages.
    pub messages: usize,
    /// Open tool calls.
    pub tool_calls: usize,
    /// Open steps.
    pub steps: usize,
}

impl OpenItems {
    fn of<const I: usize, const M: usize, const T: usize, const S: usize, St: Store>(
        v: &Verifier<I, M, T, S, St>,
    ) -> Self {
        OpenItems {
            messages: v.open_messages().len(),
            tool_calls: v.open_tool_calls().len(),
            steps: v.open_steps().len(),
        }
    }
}

/// The reader in use. Its methods are always inlined: each is one branch
/// in front of the reader's own, which a stream's every frame calls.
pub(crate) enum Readers {
    Current(Box<Current>),
    #[cfg(feature = "v1")]
    V1(Box<WithV1>),
}

/// How to take back a frame of either reader. Not boxed: a keep-going
/// client makes one per frame, on the stack, and drops it.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Undo {
    Current(Checkpoint<ID_CAPACITY, 0, HostStore>),
    #[cfg(feature = "v1")]
    V1(Checkpoint<ID_CAPACITY, V1_AGENTS, HostStore>),
}

impl Readers {
    /// The reader for `select`: the 1.0 one unless the current protocol is
    /// fixed.
    #[inline(always)]
    pub(crate) fn new(select: Select) -> Self {
        match select {
            Select::Fixed(Protocol::Current) => Readers::Current(Box::default()),
            #[cfg(not(feature = "v1"))]
            Select::Fixed(Protocol::V1) | Select::Auto => Readers::Current(Box::default()),
            #[cfg(feature = "v1")]
            Select::Fixed(Protocol::V1) | Select::Auto => {
                let mut reader: Box<WithV1> = Box::default();
                reader.set_protocol(select);
                Readers::V1(reader)
            }
        }
    }

    /// The bytes the reader keeps on the heap beside its fixed part: id
    /// slots, open ids, chunk lanes, 1.0 tables and depth stacks (see
    /// `EventReader::kept_bytes`); read in constant time.
    #[inline(always)]
    pub(crate) fn kept_bytes(&self) -> usize {
        match self {
            Readers::Current(r) => r.kept_bytes(),
            #[cfg(feature = "v1")]
            Readers::V1(r) => r.kept_bytes(),
        }
    }

    /// The stream's protocol, once its first frame decided it.
    #[inline(always)]
    pub(crate) fn protocol(&self) -> Option<Protocol> {
        match self {
            Readers::Current(r) => r.protocol(),
            #[cfg(feature = "v1")]
            Readers::V1(r) => r.protocol(),
        }
    }

    #[inline(always)]
    pub(crate) fn begin_frame(&mut self, index: u32) {
        match self {
            Readers::Current(r) => r.begin_frame(index),
            #[cfg(feature = "v1")]
            Readers::V1(r) => r.begin_frame(index),
        }
    }

    #[inline(always)]
    pub(crate) fn feed<'b>(
        &mut self,
        text: &'b [u8],
        f: &mut impl FnMut(Part<'b>),
    ) -> Result<(), Error> {
        match self {
            Readers::Current(r) => r.feed(text, f),
            #[cfg(feature = "v1")]
            Readers::V1(r) => r.feed(text, f),
        }
    }

    /// What the verifier holds open now (see [`OpenItems`]).
    #[inline(always)]
    pub(crate) fn open_items(&self) -> OpenItems {
        match self {
            Readers::Current(r) => OpenItems::of(r.verifier()),
            #[cfg(feature = "v1")]
            Readers::V1(r) => OpenItems::of(r.verifier()),
        }
    }

    /// The frame's id (see `Decoder::id`).
    #[inline(always)]
    pub(crate) fn id(&self) -> &str {
        match self {
            Readers::Current(r) => r.decoder().id(),
            #[cfg(feature = "v1")]
            Readers::V1(r) => r.decoder().id(),
        }
    }

    /// Ends the frame: `None` when 1.0 drops it (an unknown type).
    #[inline(always)]
    pub(crate) fn finish_frame(
        &mut self,
        warn: &mut impl FnMut(&Warning),
    ) -> Result<Option<Header>, Error> {
        // Only a 1.0 reader warns.
        #[cfg(not(feature = "v1"))]
        let _ = warn;
        match self {
            Readers::Current(r) => r.end_frame().map(Some),
            #[cfg(feature = "v1")]
            Readers::V1(r) => r.finish_frame(warn),
        }
    }

    #[inline(always)]
    pub(crate) fn expand(&mut self, f: &mut impl FnMut(&EventRef<'_>)) -> Result<(), Error> {
        match self {
            Readers::Current(r) => r.expand(f),
            #[cfg(feature = "v1")]
            Readers::V1(r) => r.expand(f),
        }
    }

    #[inline(always)]
    pub(crate) fn expand_atomic(
        &mut self,
        f: &mut impl FnMut(&EventRef<'_>),
    ) -> Result<Undo, Error> {
        match self {
            Readers::Current(r) => r.expand_atomic(f).map(Undo::Current),
            #[cfg(feature = "v1")]
            Readers::V1(r) => r.expand_atomic(f).map(Undo::V1),
        }
    }

    #[inline(always)]
    pub(crate) fn rollback(&mut self, undo: Undo) {
        match (self, undo) {
            (Readers::Current(r), Undo::Current(c)) => r.rollback(c),
            #[cfg(feature = "v1")]
            (Readers::V1(r), Undo::V1(c)) => r.rollback(c),
            // A checkpoint of the other reader cannot be made.
            #[cfg(feature = "v1")]
            (Readers::Current(_), Undo::V1(_)) | (Readers::V1(_), Undo::Current(_)) => {}
        }
    }
}
