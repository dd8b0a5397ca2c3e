//! The 1.0 ordering rules (SPEC 9.7), beside the current ones.
//!
//! The run's life cycle and the open text messages and tool calls stay the
//! [`Verifier`]'s. What 1.0 adds is here, in [`Owners`]: the sub-agents a
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

use super::{rule, unclosed, Run, Verifier};
use crate::error::{cut_text, error_text, Code, Detail, Error, ErrorText, Stage, Table};
use crate::event::{Event, EventType};

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

/// Which seeded string the seeder is reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedText {
    /// A message's `id`.
    Message,
    /// A message's `subagentRunId`.
    Owner,
    /// A tool call's `id`.
    ToolCall,
}

/// The seeding of the frame being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Seeding {
    /// The current message's `subagentRunId` (an index into the sub-agent
    /// table), if it has one.
    owner: Owner,
    /// The current message has an id entry (last in the message table).
    has_id: bool,
    /// The current owner text is being written into a new sub-agent entry.
    owner_new: bool,
    /// A table or slot overflowed: raised if the frame turns out to seed.
    overflow: Option<(Kind, bool)>,
    /// The frame seeded something (there is something to discard).
    any: bool,
}

/// One owner entry: the id, its owner, and (reasoning) what is open.
#[derive(Debug, Clone)]
struct Entry<const ID: usize> {
    id: heapless::String<ID>,
    owner: Owner,
    /// Open flags (reasoning) and seeding flags.
    open: u8,
    /// The owner the frame being read seeds for a known id (or for a
    /// second mention): applied if the frame is a snapshot.
    seeded: Option<Owner>,
}

impl<const ID: usize> Entry<ID> {
    const fn seed(open: u8) -> Self {
        Entry {
            id: heapless::String::new(),
            owner: None,
            open,
            seeded: None,
        }
    }
}

/// An owner table: ids in first-mention order.
#[derive(Debug, Clone)]
struct Table_<const ID: usize, const N: usize> {
    entries: heapless::Vec<Entry<ID>, N>,
}

impl<const ID: usize, const N: usize> Table_<ID, N> {
    const fn new() -> Self {
        Table_ {
            entries: heapless::Vec::new(),
        }
    }

    /// The committed entry of `id` (provisional ones do not count yet).
    fn get(&self, id: &str) -> Option<&Entry<ID>> {
        self.entries
            .iter()
            .find(|e| e.open & SEED == 0 && e.id == id)
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Entry<ID>> {
        self.entries
            .iter_mut()
            .find(|e| e.open & SEED == 0 && e.id == id)
    }

    /// Drops what the frame seeded.
    fn discard(&mut self) {
        self.entries.retain(|e| e.open & SEED == 0);
        for e in self.entries.iter_mut() {
            e.seeded = None;
            e.open &= !(PENDING | FRESH);
        }
    }

    /// Makes what the frame seeded count: a new id keeps its first seeded
    /// owner, or its last when `overwrite`; a known id takes its last
    /// seeded owner only when `overwrite`.
    fn commit(&mut self, overwrite: bool) {
        for e in self.entries.iter_mut() {
            if let (true, Some(owner)) = (overwrite, e.seeded) {
                e.owner = owner;
            }
            e.seeded = None;
            e.open &= !(SEED | PENDING | FRESH);
        }
    }

    fn owner(&self, id: &str) -> Option<Owner> {
        self.get(id).map(|e| e.owner)
    }

    /// The other entry (committed or seeded) with the last entry's id.
    fn twin_of_last(&self) -> Option<usize> {
        let (last, rest) = self.entries.split_last()?;
        rest.iter().position(|e| e.id == last.id)
    }

    /// Makes sure `id` has an entry (owner `owner` if new, or always when
    /// `overwrite`); `Err` if the table or the slot is too small.
    fn record(&mut self, id: &str, owner: Owner, overwrite: bool) -> Result<(), Full> {
        if let Some(e) = self.get_mut(id) {
            if overwrite {
                e.owner = owner;
            }
            return Ok(());
        }
        let mut slot = heapless::String::new();
        slot.push_str(id).map_err(|_| Full::Slot)?;
        self.entries
            .push(Entry {
                id: slot,
                owner,
                open: 0,
                seeded: None,
            })
            .map_err(|_| Full::Table)
    }

    fn is_open(&self, id: &str, flag: u8) -> bool {
        self.get(id).is_some_and(|e| e.open & flag != 0)
    }

    fn has_open(&self, flag: u8) -> bool {
        self.entries.iter().any(|e| e.open & flag != 0)
    }
}

/// The 1.0 part of the verifier's state. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Owners<const ID: usize = 64, const OWNERS: usize = 0, const AGENTS: usize = 0> {
    agents: heapless::Vec<(heapless::String<ID>, Life), AGENTS>,
    messages: Table_<ID, OWNERS>,
    tool_calls: Table_<ID, OWNERS>,
    reasoning: Table_<ID, OWNERS>,
    activities: Table_<ID, OWNERS>,
    /// Open steps: name and owner, in the order they opened.
    steps: heapless::Vec<(heapless::String<ID>, Owner), OWNERS>,
    seeding: Seeding,
}

impl<const ID: usize, const OWNERS: usize, const AGENTS: usize> Default
    for Owners<ID, OWNERS, AGENTS>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const ID: usize, const OWNERS: usize, const AGENTS: usize> Owners<ID, OWNERS, AGENTS> {
    /// Empty tables.
    pub const fn new() -> Self {
        Owners {
            agents: heapless::Vec::new(),
            messages: Table_::new(),
            tool_calls: Table_::new(),
            reasoning: Table_::new(),
            activities: Table_::new(),
            steps: heapless::Vec::new(),
            seeding: Seeding {
                owner: None,
                has_id: false,
                owner_new: false,
                overflow: None,
                any: false,
            },
        }
    }

    /// Checks one event under the 1.0 rules and, if it is allowed, applies
    /// it to `verifier` (life cycle, open messages and tool calls) and to
    /// these tables.
    ///
    /// # Errors
    /// The first rule the event breaks (SPEC 9.7), at the event's frame.
    pub fn check<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &mut self,
        verifier: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
        facts: &Facts<'_>,
    ) -> Result<(), Error> {
        self.apply(verifier, ev, facts).map_err(|e| e.at(ev.frame))
    }

    fn apply<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &mut self,
        v: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
        facts: &Facts<'_>,
    ) -> Result<(), Error> {
        let next = v.life.next(ev.kind.rule()).map_err(|code| rule(code, ev))?;
        let seeds = matches!(ev.kind, EventType::RunStarted | EventType::MessagesSnapshot)
            && ev.origin == crate::event::Origin::Frame;
        if seeds {
            self.seed_overflow(ev)?;
        }
        if ev.kind == EventType::RunStarted {
            v.forget_ids();
            self.new_run();
        }
        self.per_type(v, ev, facts)?;
        if seeds {
            // A snapshot overwrites known owners; a run's input does not.
            let overwrite = ev.kind == EventType::MessagesSnapshot;
            for kind in [
                Kind::Message,
                Kind::ToolCall,
                Kind::Reasoning,
                Kind::Activity,
            ] {
                self.table_mut(kind).commit(overwrite);
            }
        }
        v.life = next;
        Ok(())
    }

    /// A new run forgets the previous run's tables, keeping what the
    /// frame seeds and the sub-agents it names.
    fn new_run(&mut self) {
        const ALL: [Kind; 4] = [
            Kind::Message,
            Kind::ToolCall,
            Kind::Reasoning,
            Kind::Activity,
        ];
        // A known id the input mentions again is new to the new run: it
        // takes the owner the input gives it.
        for kind in ALL {
            for e in self.table_mut(kind).entries.iter_mut() {
                if let (0, Some(owner)) = (e.open & SEED, e.seeded.take()) {
                    e.owner = owner;
                    e.open |= SEED;
                }
            }
            self.table_mut(kind).entries.retain(|e| e.open & SEED != 0);
        }
        let mut kept: heapless::Vec<(heapless::String<ID>, Life), AGENTS> = heapless::Vec::new();
        let mut map = [None::<u8>; AGENTS];
        for (old, (name, _)) in self.agents.iter().enumerate() {
            let me = Some(old as u8);
            let used = ALL
                .iter()
                .any(|k| self.table(*k).entries.iter().any(|e| e.owner == me));
            if used {
                if let Some(slot) = map.get_mut(old) {
                    *slot = Some(kept.len() as u8);
                }
                // Room: `kept` is no longer than the table it comes from.
                let _ = kept.push((name.clone(), Life::Named));
            }
        }
        let remap = |o: Owner| o.and_then(|o| map.get(usize::from(o)).copied().flatten());
        for kind in ALL {
            for e in self.table_mut(kind).entries.iter_mut() {
                e.owner = remap(e.owner);
            }
        }
        self.agents = kept;
        self.steps.clear();
    }

    /// The frame's provisional entries did not fit: the `capacity` error,
    /// raised now that the frame is known to seed.
    fn seed_overflow(&self, ev: &Event<'_>) -> Result<(), Error> {
        match self.seeding.overflow {
            Some((_, true)) => Err(capacity(ev, Table::IdSlot, ID, "")),
            Some((kind, false)) => Err(capacity(ev, kind.table(), OWNERS, "")),
            None => Ok(()),
        }
    }

    /// Drops the provisional entries of the previous frame (the pipeline
    /// calls it as each frame begins).
    pub fn discard_seeds(&mut self) {
        if !self.seeding.any {
            return;
        }
        for kind in [
            Kind::Message,
            Kind::ToolCall,
            Kind::Reasoning,
            Kind::Activity,
        ] {
            self.table_mut(kind).discard();
        }
        self.seeding = Seeding::default();
    }

    /// A seeded message begins.
    pub(crate) fn seed_message(&mut self) {
        self.seeding.any = true;
        self.seeding.owner = None;
        self.seeding.has_id = false;
    }

    /// A seeded tool call begins (its id may follow).
    pub(crate) fn seed_tool_call(&mut self) {}

    /// A seeded string begins: a provisional entry (or sub-agent name)
    /// is made for its text.
    pub(crate) fn seed_begin(&mut self, which: SeedText) {
        self.seeding.any = true;
        match which {
            SeedText::Message => {
                if self
                    .messages
                    .entries
                    .push(Entry::seed(SEED | FRESH))
                    .is_err()
                {
                    self.overflow(Kind::Message, false);
                } else {
                    self.seeding.has_id = true;
                }
            }
            SeedText::ToolCall => {
                let entry = Entry::seed(SEED | PENDING | FRESH);
                if self.tool_calls.entries.push(entry).is_err() {
                    self.overflow(Kind::ToolCall, false);
                }
            }
            SeedText::Owner => {
                self.seeding.owner_new = self
                    .agents
                    .push((heapless::String::new(), Life::Named))
                    .is_ok();
                if !self.seeding.owner_new {
                    self.overflow(Kind::Message, false);
                }
            }
        }
    }

    /// A fragment of a seeded string.
    pub(crate) fn seed_text(&mut self, which: SeedText, text: &str) {
        let target = match which {
            SeedText::Message if self.seeding.has_id => {
                self.messages.entries.last_mut().map(|e| &mut e.id)
            }
            SeedText::ToolCall => self
                .tool_calls
                .entries
                .last_mut()
                .filter(|e| e.open & FRESH != 0)
                .map(|e| &mut e.id),
            SeedText::Owner if self.seeding.owner_new => {
                self.agents.last_mut().map(|(name, _)| name)
            }
            SeedText::Message | SeedText::Owner => None,
        };
        if let Some(buf) = target {
            if buf.push_str(text).is_err() {
                self.seeding.overflow = Some((Kind::Message, true));
            }
        }
    }

    /// A seeded string ends: a sub-agent name already in the table is
    /// not kept twice.
    pub(crate) fn seed_end(&mut self, which: SeedText) {
        if which == SeedText::ToolCall {
            self.dedupe_tool_call();
            return;
        }
        if which != SeedText::Owner || !self.seeding.owner_new {
            return;
        }
        self.seeding.owner_new = false;
        let Some((name, _)) = self.agents.last() else {
            return;
        };
        let last = self.agents.len().saturating_sub(1);
        match self.agents.iter().take(last).position(|(n, _)| n == name) {
            Some(i) => {
                self.agents.pop();
                self.seeding.owner = Some(i as u8);
            }
            None => self.seeding.owner = Some(last as u8),
        }
    }

    /// A seeded tool call's id is complete: an id the table already
    /// holds (known, or seeded earlier in the frame) is marked there
    /// instead of taking a second entry.
    fn dedupe_tool_call(&mut self) {
        let fresh = self
            .tool_calls
            .entries
            .last()
            .is_some_and(|e| e.open & FRESH != 0);
        if !fresh {
            return;
        }
        if let Some(twin) = self.tool_calls.twin_of_last() {
            self.tool_calls.entries.pop();
            if let Some(e) = self.tool_calls.entries.get_mut(twin) {
                e.open |= PENDING;
            }
        }
    }

    /// A seeded message ends with `role`: its id goes to the table of its
    /// role (reasoning, activity, or message), and it and its tool calls
    /// take its owner; an id the table holds already is marked there
    /// instead. A message of an unknown role is stripped by enforcement
    /// and seeds nothing.
    pub(crate) fn seed_message_end(&mut self, role: &str) {
        const KNOWN: [&str; 7] = [
            "developer",
            "system",
            "assistant",
            "user",
            "tool",
            "activity",
            "reasoning",
        ];
        let owner = self.seeding.owner;
        let known = KNOWN.contains(&role);
        let id = if self.seeding.has_id {
            self.messages.entries.pop()
        } else {
            None
        };
        self.settle_tool_calls(known.then_some(owner));
        if let (Some(entry), true) = (id, known) {
            // Reasoning and activity ids have tables of their own; the
            // other roles' ids are message ids.
            let kind = match role {
                "reasoning" => Kind::Reasoning,
                "activity" => Kind::Activity,
                _text_role => Kind::Message,
            };
            self.seed_id(kind, entry, owner);
        }
        self.seeding.owner = None;
        self.seeding.has_id = false;
    }

    /// The message's tool calls take its owner (`None`: the message was
    /// stripped, and they go with it).
    fn settle_tool_calls(&mut self, owner: Option<Owner>) {
        let entries = &mut self.tool_calls.entries;
        match owner {
            Some(owner) => {
                for e in entries.iter_mut().filter(|e| e.open & PENDING != 0) {
                    if e.open & FRESH != 0 {
                        e.owner = owner;
                    } else {
                        e.seeded = Some(owner);
                    }
                    e.open &= !(PENDING | FRESH);
                }
            }
            None => {
                entries.retain(|e| e.open & FRESH == 0);
                for e in entries.iter_mut() {
                    e.open &= !PENDING;
                }
            }
        }
    }

    /// A seeded message id enters its table, or marks its twin there.
    fn seed_id(&mut self, kind: Kind, mut entry: Entry<ID>, owner: Owner) {
        let table = self.table_mut(kind);
        match table.entries.iter_mut().find(|e| e.id == entry.id) {
            Some(twin) => twin.seeded = Some(owner),
            None => {
                entry.owner = owner;
                entry.open = SEED;
                if table.entries.push(entry).is_err() {
                    self.overflow(kind, false);
                }
            }
        }
    }

    fn overflow(&mut self, kind: Kind, slot: bool) {
        if self.seeding.overflow.is_none() {
            self.seeding.overflow = Some((kind, slot));
        }
    }

    /// Rule 3 of SPEC 9.7: what each type checks and records.
    fn per_type<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &mut self,
        v: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
        facts: &Facts<'_>,
    ) -> Result<(), Error> {
        use EventType as T;
        match ev.kind {
            T::TextMessageStart => {
                if v.messages.contains(ev.id) {
                    return Err(rule(Code::MessageActive, ev));
                }
                self.tag_check(ev, Kind::Message, ev.id)?;
                let owner = self.owner_of(ev)?;
                self.record(ev, Kind::Message, ev.id, owner, false)?;
                super::open(&mut v.messages, ev, Code::MessageActive, Table::Messages)
            }
            T::TextMessageContent | T::TextMessageEnd => {
                if !v.messages.contains(ev.id) {
                    return Err(rule(Code::MessageNotActive, ev));
                }
                self.tag_check(ev, Kind::Message, ev.id)?;
                if ev.kind == T::TextMessageEnd {
                    v.messages.remove(ev.id);
                }
                Ok(())
            }
            T::ToolCallStart => self.tool_call_start(v, ev, facts),
            T::ToolCallArgs | T::ToolCallEnd => {
                if !v.tool_calls.contains(ev.id) {
                    return Err(rule(Code::ToolCallNotActive, ev));
                }
                self.tag_check(ev, Kind::ToolCall, ev.id)?;
                if ev.kind == T::ToolCallEnd {
                    v.tool_calls.remove(ev.id);
                }
                Ok(())
            }
            T::StepStarted => self.step_started(ev),
            T::StepFinished => self.step_finished(ev),
            T::ReasoningStart => self.reasoning_open(ev, SPAN, Code::ReasoningSpanActive),
            T::ReasoningMessageStart => {
                self.reasoning_open(ev, MESSAGE, Code::ReasoningMessageActive)
            }
            T::ReasoningEnd => self.reasoning_use(ev, SPAN, Code::ReasoningSpanNotActive, true),
            T::ReasoningMessageContent => {
                self.reasoning_use(ev, MESSAGE, Code::ReasoningMessageNotActive, false)
            }
            T::ReasoningMessageEnd => {
                self.reasoning_use(ev, MESSAGE, Code::ReasoningMessageNotActive, true)
            }
            T::ReasoningEncryptedValue => {
                if facts.tool_call_subtype {
                    self.tag_check(ev, Kind::ToolCall, facts.entity)
                } else if self.messages.get(facts.entity).is_some() {
                    self.tag_check(ev, Kind::Message, facts.entity)
                } else {
                    self.tag_check(ev, Kind::Reasoning, facts.entity)
                }
            }
            T::ActivitySnapshot => {
                let owner = self.owner_of(ev)?;
                let overwrite = !facts.keep;
                self.record(ev, Kind::Activity, facts.message_id, owner, overwrite)
            }
            T::ActivityDelta => self.tag_check(ev, Kind::Activity, facts.message_id),
            T::ToolCallResult => {
                let owner = self.owner_of(ev)?;
                self.record(ev, Kind::Message, facts.message_id, owner, true)
            }
            T::SubagentStarted => self.subagent_started(ev, facts),
            T::SubagentFinished | T::SubagentError => self.subagent_ended(ev),
            T::RunFinished => self.run_finished(v, ev),
            T::RunStarted
            | T::RunError
            | T::StateSnapshot
            | T::StateDelta
            | T::MessagesSnapshot
            | T::Raw
            | T::Custom => Ok(()),
            // Never verified in 1.0: chunks are expanded, and the retired
            // types translated, before verification.
            T::TextMessageChunk
            | T::ToolCallChunk
            | T::ReasoningMessageChunk
            | T::ThinkingStart
            | T::ThinkingEnd
            | T::ThinkingTextMessageStart
            | T::ThinkingTextMessageContent
            | T::ThinkingTextMessageEnd => Ok(()),
        }
    }

    fn table(&self, kind: Kind) -> &Table_<ID, OWNERS> {
        match kind {
            Kind::Message => &self.messages,
            Kind::ToolCall => &self.tool_calls,
            Kind::Reasoning => &self.reasoning,
            Kind::Activity => &self.activities,
        }
    }

    fn table_mut(&mut self, kind: Kind) -> &mut Table_<ID, OWNERS> {
        match kind {
            Kind::Message => &mut self.messages,
            Kind::ToolCall => &mut self.tool_calls,
            Kind::Reasoning => &mut self.reasoning,
            Kind::Activity => &mut self.activities,
        }
    }

    /// The sub-agent named `tag`, if the run has named it.
    fn find(&self, tag: &str) -> Option<u8> {
        self.agents
            .iter()
            .position(|(name, _)| name == tag)
            .map(|i| i as u8)
    }

    /// The owner a tag names, entered in the sub-agent table if new.
    fn intern(&mut self, ev: &Event<'_>, tag: &str) -> Result<u8, Error> {
        if let Some(i) = self.find(tag) {
            return Ok(i);
        }
        let mut name = heapless::String::new();
        name.push_str(tag)
            .map_err(|_| capacity(ev, Table::IdSlot, ID, tag))?;
        self.agents
            .push((name, Life::Named))
            .map_err(|_| capacity(ev, Table::Subagents, AGENTS, tag))?;
        Ok(self.agents.len().saturating_sub(1) as u8)
    }

    /// The event's owner: its tag (entered in the sub-agent table), or the
    /// parent agent.
    fn owner_of(&mut self, ev: &Event<'_>) -> Result<Owner, Error> {
        match ev.subagent {
            Some(tag) => self.intern(ev, tag).map(Some),
            None => Ok(None),
        }
    }

    fn name(&self, owner: Owner) -> &str {
        match owner {
            Some(i) => self
                .agents
                .get(usize::from(i))
                .map_or("?", |(n, _)| n.as_str()),
            None => "(the parent agent)",
        }
    }

    /// Whether a tag names `owner`.
    fn is(&self, tag: Option<&str>, owner: Owner) -> bool {
        match (tag, owner) {
            (None, None) => true,
            (Some(t), Some(_)) => self.name(owner) == t,
            (None, Some(_)) | (Some(_), None) => false,
        }
    }

    /// The tag check of SPEC 9.7: a tag that differs from the id's
    /// recorded owner is `owner_mismatch`. No tag never fails.
    fn tag_check(&self, ev: &Event<'_>, kind: Kind, id: &str) -> Result<(), Error> {
        let Some(tag) = ev.subagent else {
            return Ok(());
        };
        match self.table(kind).owner(id) {
            Some(owner) if !self.is(Some(tag), owner) => {
                Err(mismatch(Code::OwnerMismatch, ev, id, tag, self.name(owner)))
            }
            Some(_) | None => Ok(()),
        }
    }

    fn record(
        &mut self,
        ev: &Event<'_>,
        kind: Kind,
        id: &str,
        owner: Owner,
        overwrite: bool,
    ) -> Result<(), Error> {
        self.table_mut(kind)
            .record(id, owner, overwrite)
            .map_err(|full| match full {
                Full::Slot => capacity(ev, Table::IdSlot, ID, id),
                Full::Table => capacity(ev, kind.table(), OWNERS, id),
            })
    }

    fn tool_call_start<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &mut self,
        v: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
        facts: &Facts<'_>,
    ) -> Result<(), Error> {
        if v.tool_calls.contains(ev.id) {
            return Err(rule(Code::ToolCallActive, ev));
        }
        let parent = facts
            .parent_message
            .and_then(|p| self.messages.owner(p).map(|o| (p, o)));
        if let (Some(tag), Some((_, owner))) = (ev.subagent, parent) {
            if !self.is(Some(tag), owner) {
                let name = self.name(owner);
                return Err(mismatch(
                    Code::ToolParentOwnerMismatch,
                    ev,
                    ev.id,
                    tag,
                    name,
                ));
            }
        }
        self.tag_check(ev, Kind::ToolCall, ev.id)?;
        let recorded = self.tool_calls.owner(ev.id);
        if let (None, Some(own), Some((_, parent_owner))) = (ev.subagent, recorded, parent) {
            if own != parent_owner {
                let (a, b) = (self.name(own), self.name(parent_owner));
                return Err(mismatch(Code::ToolParentOwnerMismatch, ev, ev.id, a, b));
            }
        }
        let owner = match ev.subagent {
            Some(_) => self.owner_of(ev)?,
            None => parent.and_then(|(_, o)| o),
        };
        self.record(ev, Kind::ToolCall, ev.id, owner, false)?;
        super::open(
            &mut v.tool_calls,
            ev,
            Code::ToolCallActive,
            Table::ToolCalls,
        )
    }

    fn step_started(&mut self, ev: &Event<'_>) -> Result<(), Error> {
        let owner = self.owner_of(ev)?;
        if self.steps.iter().any(|(n, o)| n == ev.id && *o == owner) {
            return Err(rule(Code::StepActive, ev));
        }
        let mut name = heapless::String::new();
        name.push_str(ev.id)
            .map_err(|_| capacity(ev, Table::IdSlot, ID, ev.id))?;
        self.steps
            .push((name, owner))
            .map_err(|_| capacity(ev, Table::Steps, OWNERS, ev.id))
    }

    fn step_finished(&mut self, ev: &Event<'_>) -> Result<(), Error> {
        let mine = self
            .steps
            .iter()
            .position(|(n, o)| n == ev.id && self.is(ev.subagent, *o));
        if let Some(at) = mine {
            self.steps.remove(at);
            return Ok(());
        }
        match self.steps.iter().find(|(n, _)| n == ev.id) {
            Some((_, other)) => {
                let found = ev.subagent.unwrap_or("(the parent agent)");
                let name = self.name(*other);
                Err(mismatch(Code::StepOwnerMismatch, ev, ev.id, found, name))
            }
            None => Err(rule(Code::StepNotActive, ev)),
        }
    }

    fn reasoning_open(&mut self, ev: &Event<'_>, flag: u8, active: Code) -> Result<(), Error> {
        if self.reasoning.is_open(ev.id, flag) {
            return Err(rule(active, ev));
        }
        self.tag_check(ev, Kind::Reasoning, ev.id)?;
        let owner = self.owner_of(ev)?;
        self.record(ev, Kind::Reasoning, ev.id, owner, false)?;
        if let Some(e) = self.reasoning.get_mut(ev.id) {
            e.open |= flag;
        }
        Ok(())
    }

    fn reasoning_use(
        &mut self,
        ev: &Event<'_>,
        flag: u8,
        not_active: Code,
        closes: bool,
    ) -> Result<(), Error> {
        if !self.reasoning.is_open(ev.id, flag) {
            return Err(rule(not_active, ev));
        }
        self.tag_check(ev, Kind::Reasoning, ev.id)?;
        if closes {
            if let Some(e) = self.reasoning.get_mut(ev.id) {
                e.open &= !flag;
            }
        }
        Ok(())
    }

    fn subagent_started(&mut self, ev: &Event<'_>, facts: &Facts<'_>) -> Result<(), Error> {
        let life = self
            .find(ev.id)
            .and_then(|i| self.agents.get(usize::from(i)));
        match life.map(|(_, l)| *l) {
            Some(Life::Active) => return Err(rule(Code::SubagentActive, ev)),
            Some(Life::Finished) => return Err(rule(Code::SubagentReused, ev)),
            Some(Life::Named) | None => {}
        }
        if let Some(parent) = facts.parent_subagent {
            let known = self
                .find(parent)
                .and_then(|i| self.agents.get(usize::from(i)))
                .is_some_and(|(_, l)| *l != Life::Named);
            if !known {
                let detail = Detail::Id(error_text(parent));
                return Err(Error::new(
                    Stage::Verify,
                    Code::SubagentParentUnknown,
                    Some(ev.kind),
                    detail,
                ));
            }
        }
        let i = self.intern(ev, ev.id)?;
        if let Some((_, l)) = self.agents.get_mut(usize::from(i)) {
            *l = Life::Active;
        }
        Ok(())
    }

    fn subagent_ended(&mut self, ev: &Event<'_>) -> Result<(), Error> {
        let at = self.find(ev.id).filter(|i| {
            self.agents
                .get(usize::from(*i))
                .is_some_and(|(_, l)| *l == Life::Active)
        });
        let Some(i) = at else {
            return Err(rule(Code::SubagentNotActive, ev));
        };
        if let Some((_, l)) = self.agents.get_mut(usize::from(i)) {
            *l = Life::Finished;
        }
        Ok(())
    }

    /// SPEC 9.7's RUN_FINISHED order: steps, text messages, reasoning
    /// messages, reasoning spans, tool calls, sub-agents.
    fn run_finished<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &self,
        v: &Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
    ) -> Result<(), Error> {
        if v.life.run != Run::Active {
            return Ok(());
        }
        if !self.steps.is_empty() {
            let names = self.steps.iter().map(|(n, _)| n.as_str());
            return Err(open_list(Code::UnclosedSteps, ev, names, self.steps.len()));
        }
        unclosed(&v.messages, super::Tracked::Messages, ev)?;
        for (flag, code) in [
            (MESSAGE, Code::UnclosedReasoningMessages),
            (SPAN, Code::UnclosedReasoningSpans),
        ] {
            if self.reasoning.has_open(flag) {
                let open = self.reasoning.entries.iter().filter(|e| e.open & flag != 0);
                let count = open.clone().count();
                return Err(open_list(code, ev, open.map(|e| e.id.as_str()), count));
            }
        }
        unclosed(&v.tool_calls, super::Tracked::ToolCalls, ev)?;
        let active = self.agents.iter().filter(|(_, l)| *l == Life::Active);
        let count = active.clone().count();
        if count > 0 {
            let names = active.map(|(n, _)| n.as_str());
            return Err(open_list(Code::UnclosedSubagents, ev, names, count));
        }
        Ok(())
    }
}

fn capacity(ev: &Event<'_>, table: Table, limit: usize, id: &str) -> Error {
    let detail = Detail::Capacity {
        table,
        limit,
        field: None,
        id: error_text(id),
    };
    Error::new(Stage::Verify, Code::Capacity, Some(ev.kind), detail)
}

fn mismatch(code: Code, ev: &Event<'_>, id: &str, found: &str, recorded: &str) -> Error {
    let detail = Detail::Mismatch {
        id: cut_text(id),
        found: cut_text(found),
        recorded: cut_text(recorded),
    };
    Error::new(Stage::Verify, code, Some(ev.kind), detail)
}

/// An `unclosed_*` error listing `names` (cut with `…` if long).
fn open_list<'n>(
    code: Code,
    ev: &Event<'_>,
    names: impl Iterator<Item = &'n str>,
    count: usize,
) -> Error {
    let mut list = ErrorText::new();
    for (i, id) in names.enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let need = list
            .len()
            .saturating_add(sep.len())
            .saturating_add(id.len());
        if need.saturating_add(4) > list.capacity() {
            let _ = list.push_str(", …");
            break;
        }
        let _ = list.push_str(sep);
        let _ = list.push_str(id);
    }
    Error::new(
        Stage::Verify,
        code,
        Some(ev.kind),
        Detail::Open { list, count },
    )
}
