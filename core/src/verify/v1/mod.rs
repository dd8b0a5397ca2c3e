//! The 1.0 ordering rules (SPEC 9.7), beside the current ones.
//!
//! The run's life cycle and the open text messages and tool calls stay the
//! [`Verifier`](super::Verifier)'s. What 1.0 adds is here, in [`Owners`]: the sub-agents a
//! run names, the four owner tables (message, tool call, reasoning,
//! activity: which owner opened an id, kept for the whole run), the open
//! reasoning spans and reasoning messages (flags on the reasoning table's
//! entries: an open id always has its owner entry, so they need no room of
//! their own), and the open steps keyed by owner.
//!
//! An owner is an index into the run's sub-agent table, or the parent
//! agent. Every table is fixed: `OWNERS` entries per owner table (and for
//! open steps), `AGENTS` sub-agents per run. Running out is a `capacity`
//! error naming the table, never a dropped entry (a dropped owner would
//! turn a later `owner_mismatch` into an acceptance).

mod journal;
mod owners;
mod steps;
mod table;

pub use journal::Journal;
pub use owners::Owners;

use crate::error::Table;
use crate::event::EventType;
use crate::store::Store;

/// Who produced an event: a sub-agent (index into the run's sub-agent
/// table) or the parent agent.
type Owner = Option<u8>;

/// The facts of an event the 1.0 rules read besides its type, id and tag
/// (the pipeline fills them from the decoded frame).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Facts<'a> {
    /// `parentMessageId` (TOOL_CALL_START).
    pub parent_message: Option<&'a str>,
    /// `parentSubagentRunId` (SUBAGENT_STARTED).
    pub parent_subagent: Option<&'a str>,
    /// `messageId` of ACTIVITY_* and TOOL_CALL_RESULT.
    pub message_id: &'a str,
    /// `replace: false` (ACTIVITY_SNAPSHOT).
    pub keep: bool,
    /// `subtype: "tool-call"` (REASONING_ENCRYPTED_VALUE).
    pub tool_call_subtype: bool,
    /// `entityId` (REASONING_ENCRYPTED_VALUE).
    pub entity: &'a str,
}

impl Facts<'_> {
    /// Whether the 1.0 rules read any fact of an event of `kind` (the
    /// others need only its type, id and tag).
    pub const fn needed(kind: EventType) -> bool {
        matches!(
            kind,
            EventType::ToolCallStart
                | EventType::SubagentStarted
                | EventType::ActivitySnapshot
                | EventType::ActivityDelta
                | EventType::ToolCallResult
                | EventType::ReasoningEncryptedValue
        )
    }
}

/// Where a sub-agent is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Life {
    /// Only named by a `subagentRunId` so far.
    Named,
    /// Between SUBAGENT_STARTED and its end.
    Active,
    /// Ended (finished or errored) in this run.
    Finished,
}

/// Which owner table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    ToolCall,
    Reasoning,
    Activity,
}

impl Kind {
    const fn table(self) -> Table {
        match self {
            Kind::Message => Table::MessageOwners,
            Kind::ToolCall => Table::ToolCallOwners,
            Kind::Reasoning => Table::ReasoningOwners,
            Kind::Activity => Table::ActivityOwners,
        }
    }
}

/// What did not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Full {
    /// The id is longer than `ID`.
    Slot,
    /// The table is full.
    Table,
}

/// Open-flags of a reasoning entry.
const SPAN: u8 = 1;
const MESSAGE: u8 = 2;
/// A provisional entry, seeded by the frame being read (see `seed.rs`).
const SEED: u8 = 4;
/// A seeded tool call whose owner comes with its message's end.
const PENDING: u8 = 8;
/// Made by the message being read (not yet deduplicated by its end).
const FRESH: u8 = 16;
/// In the table's list of entries the frame's seeding marked.
const TOUCHED: u8 = 32;
/// Not in the table's index: the seeder is still writing its id.
const LOOSE: u8 = 64;

/// An id as the 1.0 tables hold it: a `u16` length (ids are short), so
/// that entries need no 8-byte alignment and a table of capacity 0 stays
/// a few bytes.
type Id<const ID: usize, S> = <S as Store>::Str16<ID>;
