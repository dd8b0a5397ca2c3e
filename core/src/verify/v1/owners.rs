//! The 1.0 part of the verifier's state: sub-agents, owner tables,
//! reasoning flags and open steps ([`Owners`]).

use super::journal::{Change, Journal, Log};
use super::steps::Steps;
use super::table::{Entry, HashIndex};
use super::{Facts, Full, Id, Kind, Life, Owner, FRESH, LOOSE, MESSAGE, PENDING, SEED, SPAN};
use crate::decode::seed::{SeedText, Seeds};
use crate::error::{cut_text, error_text, Code, Detail, Error, ErrorText, Stage, Table};
use crate::event::{EventRef, EventType};
use crate::store::{Fixed, IdText as _, Seq as _, Store};
use crate::verify::{self, rule, unclosed, Run, Tracked, Verifier};

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
    /// The tool-call table's length when the current message began: its
    /// new (`FRESH`) tool calls are the entries from there on.
    tools_from: u16,
}

/// The four owner tables, in the order of a journal's lengths.
const KINDS: [Kind; 4] = [
    Kind::Message,
    Kind::ToolCall,
    Kind::Reasoning,
    Kind::Activity,
];

/// The 1.0 part of the verifier's state. See the [module docs](super).
#[derive(Debug, Clone)]
pub struct Owners<
    const ID: usize = 64,
    const OWNERS: usize = 0,
    const AGENTS: usize = 0,
    S: Store = Fixed,
> {
    agents: S::Vec16<(Id<ID, S>, Life), AGENTS>,
    messages: HashIndex<ID, OWNERS, S>,
    tool_calls: HashIndex<ID, OWNERS, S>,
    reasoning: HashIndex<ID, OWNERS, S>,
    activities: HashIndex<ID, OWNERS, S>,
    /// Open steps: name and owner, in the order they opened.
    steps: Steps<ID, OWNERS, S>,
    seeding: Seeding,
    /// Known tool calls the current seeded message names again (flagged
    /// `PENDING`): with its `FRESH` ones, those its end settles.
    pending: S::Vec16<u16, OWNERS>,
    /// How many reasoning messages and spans are open (by `flag / 2`),
    /// so that RUN_FINISHED need not look for them.
    reasoning_open: [u16; 2],
}

impl<const ID: usize, const OWNERS: usize, const AGENTS: usize, S: Store> Default
    for Owners<ID, OWNERS, AGENTS, S>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const ID: usize, const OWNERS: usize, const AGENTS: usize, S: Store>
    Owners<ID, OWNERS, AGENTS, S>
{
    /// The bytes the 1.0 tables keep beside their own size (0 in the
    /// fixed store): entries, indexes and ids of the owner tables, the
    /// open steps, the sub-agents (at most `AGENTS`).
    pub fn heap_bytes(&self) -> usize {
        let agents = self
            .agents
            .iter()
            .fold(self.agents.heap_bytes(), |n, (id, _)| {
                n.saturating_add(id.heap_bytes())
            });
        [
            &self.messages,
            &self.tool_calls,
            &self.reasoning,
            &self.activities,
        ]
        .iter()
        .fold(agents, |n, t| n.saturating_add(t.heap_bytes()))
        .saturating_add(self.steps.heap_bytes())
        .saturating_add(self.pending.heap_bytes())
    }

    /// Empty tables.
    pub fn new() -> Self {
        Owners {
            agents: Default::default(),
            messages: HashIndex::new(),
            tool_calls: HashIndex::new(),
            reasoning: HashIndex::new(),
            activities: HashIndex::new(),
            steps: Steps::new(),
            seeding: Seeding {
                owner: None,
                has_id: false,
                owner_new: false,
                overflow: None,
                any: false,
                tools_from: 0,
            },
            pending: Default::default(),
            reasoning_open: [0; 2],
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
        verifier: &mut Verifier<ID, MSGS, TOOLS, STEPS, S>,
        ev: &EventRef<'_>,
        facts: &Facts<'_>,
    ) -> Result<(), Error> {
        self.apply(verifier, ev, facts, &mut None)
            .map_err(|e| e.at(ev.frame))
    }

    /// A journal for the next frame: the tables' lengths now, and the
    /// life cycle of `verifier`.
    pub fn journal<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &self,
        verifier: &Verifier<ID, MSGS, TOOLS, STEPS, S>,
    ) -> Journal<ID, S> {
        Journal {
            life: verifier.life,
            ids: heapless::Vec::new(),
            lens: KINDS.map(|k| self.table(k).len16()),
            loose: KINDS.map(|k| self.table(k).last_loose()),
            agents: u16::try_from(self.agents.len()).unwrap_or(u16::MAX),
            reasoning_open: self.reasoning_open,
            changes: heapless::Vec::new(),
            complete: true,
        }
    }

    /// [`check`](Self::check), noting in `journal` what the event changes
    /// (see [`Journal`]).
    ///
    /// # Errors
    /// As [`check`](Self::check); the tables are then as the journal says
    /// (the event's own changes are noted too, or not made).
    pub fn check_noted<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &mut self,
        verifier: &mut Verifier<ID, MSGS, TOOLS, STEPS, S>,
        ev: &EventRef<'_>,
        facts: &Facts<'_>,
        journal: &mut Journal<ID, S>,
    ) -> Result<(), Error> {
        self.apply(verifier, ev, facts, &mut Some(journal))
            .map_err(|e| e.at(ev.frame))
    }

    /// Takes back what `journal` noted since [`journal`](Self::journal)
    /// made it: these tables and `verifier` are as they were then, if the
    /// journal is [complete](Journal::complete) (else they are left as
    /// they are, and false is returned).
    pub fn undo<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &mut self,
        verifier: &mut Verifier<ID, MSGS, TOOLS, STEPS, S>,
        journal: Journal<ID, S>,
    ) -> bool {
        if !journal.complete {
            return false;
        }
        for undo in journal.ids.into_iter().rev() {
            verifier.undo(undo);
        }
        verifier.life = journal.life;
        for change in journal.changes.iter().rev() {
            match *change {
                Change::Entry {
                    kind,
                    at,
                    owner,
                    open,
                } => {
                    if let Some(e) = self.table_mut(kind).entries.get_mut(usize::from(at)) {
                        e.owner = owner;
                        e.open = (e.open & !(SPAN | MESSAGE)) | (open & (SPAN | MESSAGE));
                    }
                }
                Change::Life { at, life } => {
                    if let Some((_, l)) = self.agents.get_mut(usize::from(at)) {
                        *l = life;
                    }
                }
                Change::Step(ref undo) => self.steps.undo(undo),
            }
        }
        for (k, kind) in KINDS.into_iter().enumerate() {
            let (Some(len), Some(loose)) = (journal.lens.get(k), journal.loose.get(k)) else {
                continue;
            };
            self.table_mut(kind).restore_len(*len, *loose);
        }
        self.agents.truncate(usize::from(journal.agents));
        self.reasoning_open = journal.reasoning_open;
        true
    }

    /// Notes entry `id`'s owner and flags in `log` before a change.
    fn note_entry(&self, log: &mut Log<'_, ID, S>, kind: Kind, id: &str) {
        let Some(j) = log.as_deref_mut() else {
            return;
        };
        let table = self.table(kind);
        if let Some(at) = table.find(id, |_, e| e.open & SEED == 0) {
            if let (Some(e), Ok(at)) = (table.entries.get(at), u16::try_from(at)) {
                j.note(Change::Entry {
                    kind,
                    at,
                    owner: e.owner,
                    open: e.open,
                });
            }
        }
    }

    /// Notes sub-agent `at`'s life in `log` before a change.
    fn note_life(&self, log: &mut Log<'_, ID, S>, at: u8) {
        if let (Some(j), Some((_, life))) = (log.as_deref_mut(), self.agents.get(usize::from(at))) {
            j.note(Change::Life { at, life: *life });
        }
    }

    fn apply<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &mut self,
        v: &mut Verifier<ID, MSGS, TOOLS, STEPS, S>,
        ev: &EventRef<'_>,
        facts: &Facts<'_>,
        log: &mut Log<'_, ID, S>,
    ) -> Result<(), Error> {
        let next = v.life.next(ev.kind.rule()).map_err(|code| rule(code, ev))?;
        let seeds = matches!(ev.kind, EventType::RunStarted | EventType::MessagesSnapshot)
            && ev.origin == crate::event::Origin::Frame;
        if seeds {
            self.seed_overflow(ev)?;
        }
        if let (true, Some(j)) = (seeds, log.as_deref_mut()) {
            // A new run, or a snapshot's seeds, change more than a
            // journal notes (see `Journal`).
            if ev.kind == EventType::RunStarted || self.seeding.any {
                j.complete = false;
            }
        }
        if ev.kind == EventType::RunStarted {
            v.forget_ids();
            self.new_run();
        }
        self.per_type(v, ev, facts, log)?;
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
        for kind in ALL {
            self.table_mut(kind).new_run();
        }
        // A reasoning id the input mentions again stays, open or not.
        self.reasoning_open = [SPAN, MESSAGE].map(|flag| self.reasoning.count_open(flag));
        self.pending.clear();
        let mut kept: S::Vec16<(Id<ID, S>, Life), AGENTS> = Default::default();
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
    fn seed_overflow(&self, ev: &EventRef<'_>) -> Result<(), Error> {
        match self.seeding.overflow {
            Some((_, true)) => Err(capacity(ev, Table::IdSlot, ID, "")),
            Some((kind, false)) => Err(capacity(ev, kind.table(), OWNERS, "")),
            None => Ok(()),
        }
    }

    /// Drops the provisional entries of the previous frame (the pipeline
    /// calls it as each frame begins).
    #[inline]
    pub fn discard_seeds(&mut self) {
        if self.seeding.any {
            self.discard();
        }
    }

    fn discard(&mut self) {
        for kind in [
            Kind::Message,
            Kind::ToolCall,
            Kind::Reasoning,
            Kind::Activity,
        ] {
            self.table_mut(kind).discard();
        }
        self.seeding = Seeding::default();
        self.pending.clear();
    }

    /// The frame seeds: the tables note where its entries begin.
    fn seeds(&mut self) {
        if !self.seeding.any {
            self.seeding.any = true;
            for kind in [
                Kind::Message,
                Kind::ToolCall,
                Kind::Reasoning,
                Kind::Activity,
            ] {
                self.table_mut(kind).begin();
            }
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
        let Some(twin) = self.tool_calls.twin_of_last() else {
            self.tool_calls.seal();
            return;
        };
        self.tool_calls.pop();
        self.tool_calls.touch(twin);
        if let Some(e) = self.tool_calls.entries.get_mut(twin) {
            if e.open & PENDING == 0 {
                // Room: each entry is listed once at most.
                if let Ok(at) = u16::try_from(twin) {
                    let _ = self.pending.push(at);
                }
            }
            e.open |= PENDING;
        }
    }

    /// The message's tool calls take its owner (`None`: the message was
    /// stripped, and they go with it).
    fn settle_tool_calls(&mut self, owner: Option<Owner>) {
        let table = &mut self.tool_calls;
        let from = usize::from(self.seeding.tools_from);
        // The pending ones: the listed known ones, and the fresh ones (all
        // from `from` on).
        let known = self.pending.iter().map(|at| usize::from(*at));
        let pending = known.chain(from..table.entries.len());
        match owner {
            Some(owner) => {
                for at in pending {
                    let Some(e) = table.entries.get_mut(at) else {
                        continue;
                    };
                    if e.open & PENDING == 0 {
                        continue;
                    }
                    if e.open & FRESH != 0 {
                        e.owner = owner;
                    } else {
                        e.seeded = Some(owner);
                    }
                    e.open &= !(PENDING | FRESH);
                }
            }
            None => {
                for at in pending {
                    if let Some(e) = table.entries.get_mut(at) {
                        e.open &= !PENDING;
                    }
                }
                table.retain_from(from, |e| e.open & FRESH == 0);
            }
        }
        self.pending.clear();
    }

    /// A seeded message id enters its table, or marks its twin there.
    fn seed_id(&mut self, kind: Kind, mut entry: Entry<ID, S>, owner: Owner) {
        let table = self.table_mut(kind);
        match table.find(&entry.id, |_, _| true) {
            Some(twin) => {
                table.touch(twin);
                if let Some(e) = table.entries.get_mut(twin) {
                    e.seeded = Some(owner);
                }
            }
            None => {
                entry.owner = owner;
                entry.open = SEED;
                if table.push(entry).is_err() {
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
        v: &mut Verifier<ID, MSGS, TOOLS, STEPS, S>,
        ev: &EventRef<'_>,
        facts: &Facts<'_>,
        log: &mut Log<'_, ID, S>,
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
                verify::open(&mut v.messages, ev, Code::MessageActive, Table::Messages)?;
                if let Some(j) = log.as_deref_mut() {
                    j.opened(Tracked::Messages);
                }
                Ok(())
            }
            T::TextMessageContent | T::TextMessageEnd => {
                if !v.messages.contains(ev.id) {
                    return Err(rule(Code::MessageNotActive, ev));
                }
                self.tag_check(ev, Kind::Message, ev.id)?;
                if ev.kind == T::TextMessageEnd {
                    if let Some(j) = log.as_deref_mut() {
                        j.closed(Tracked::Messages, v.messages.position(ev.id), ev.id);
                    }
                    v.messages.remove(ev.id);
                }
                Ok(())
            }
            T::ToolCallStart => {
                self.tool_call_start(v, ev, facts)?;
                if let Some(j) = log.as_deref_mut() {
                    j.opened(Tracked::ToolCalls);
                }
                Ok(())
            }
            T::ToolCallArgs | T::ToolCallEnd => {
                if !v.tool_calls.contains(ev.id) {
                    return Err(rule(Code::ToolCallNotActive, ev));
                }
                self.tag_check(ev, Kind::ToolCall, ev.id)?;
                if ev.kind == T::ToolCallEnd {
                    if let Some(j) = log.as_deref_mut() {
                        j.closed(Tracked::ToolCalls, v.tool_calls.position(ev.id), ev.id);
                    }
                    v.tool_calls.remove(ev.id);
                }
                Ok(())
            }
            T::StepStarted => self.step_started(ev, log),
            T::StepFinished => self.step_finished(ev, log),
            T::ReasoningStart => self.reasoning_open(ev, SPAN, Code::ReasoningSpanActive, log),
            T::ReasoningMessageStart => {
                self.reasoning_open(ev, MESSAGE, Code::ReasoningMessageActive, log)
            }
            T::ReasoningEnd => {
                self.reasoning_use(ev, SPAN, Code::ReasoningSpanNotActive, true, log)
            }
            T::ReasoningMessageContent => {
                self.reasoning_use(ev, MESSAGE, Code::ReasoningMessageNotActive, false, log)
            }
            T::ReasoningMessageEnd => {
                self.reasoning_use(ev, MESSAGE, Code::ReasoningMessageNotActive, true, log)
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
                if overwrite {
                    self.note_entry(log, Kind::Activity, facts.message_id);
                }
                self.record(ev, Kind::Activity, facts.message_id, owner, overwrite)
            }
            T::ActivityDelta => self.tag_check(ev, Kind::Activity, facts.message_id),
            T::ToolCallResult => {
                let owner = self.owner_of(ev)?;
                self.note_entry(log, Kind::Message, facts.message_id);
                self.record(ev, Kind::Message, facts.message_id, owner, true)
            }
            T::SubagentStarted => self.subagent_started(ev, facts, log),
            T::SubagentFinished | T::SubagentError => self.subagent_ended(ev, log),
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

    fn table(&self, kind: Kind) -> &HashIndex<ID, OWNERS, S> {
        match kind {
            Kind::Message => &self.messages,
            Kind::ToolCall => &self.tool_calls,
            Kind::Reasoning => &self.reasoning,
            Kind::Activity => &self.activities,
        }
    }

    fn table_mut(&mut self, kind: Kind) -> &mut HashIndex<ID, OWNERS, S> {
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
            .position(|(name, _)| name.as_str() == tag)
            .map(|i| i as u8)
    }

    /// The owner a tag names, entered in the sub-agent table if new.
    fn intern(&mut self, ev: &EventRef<'_>, tag: &str) -> Result<u8, Error> {
        if let Some(i) = self.find(tag) {
            return Ok(i);
        }
        let mut name: Id<ID, S> = Default::default();
        name.push_str(tag)
            .map_err(|_| capacity(ev, Table::IdSlot, ID, tag))?;
        self.agents
            .push((name, Life::Named))
            .map_err(|_| capacity(ev, Table::Subagents, AGENTS, tag))?;
        Ok(self.agents.len().saturating_sub(1) as u8)
    }

    /// The event's owner: its tag (entered in the sub-agent table), or the
    /// parent agent.
    fn owner_of(&mut self, ev: &EventRef<'_>) -> Result<Owner, Error> {
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
    #[inline]
    fn tag_check(&self, ev: &EventRef<'_>, kind: Kind, id: &str) -> Result<(), Error> {
        match ev.subagent {
            Some(tag) => self.tag_check_of(ev, kind, id, tag),
            None => Ok(()),
        }
    }

    fn tag_check_of(
        &self,
        ev: &EventRef<'_>,
        kind: Kind,
        id: &str,
        tag: &str,
    ) -> Result<(), Error> {
        match self.table(kind).owner(id) {
            Some(owner) if !self.is(Some(tag), owner) => {
                Err(mismatch(Code::OwnerMismatch, ev, id, tag, self.name(owner)))
            }
            Some(_) | None => Ok(()),
        }
    }

    fn record(
        &mut self,
        ev: &EventRef<'_>,
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
        v: &mut Verifier<ID, MSGS, TOOLS, STEPS, S>,
        ev: &EventRef<'_>,
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
        verify::open(
            &mut v.tool_calls,
            ev,
            Code::ToolCallActive,
            Table::ToolCalls,
        )
    }

    fn step_started(&mut self, ev: &EventRef<'_>, log: &mut Log<'_, ID, S>) -> Result<(), Error> {
        let owner = self.owner_of(ev)?;
        if self.steps.find(ev.id, |o| o == owner).is_some() {
            return Err(rule(Code::StepActive, ev));
        }
        let mut name: Id<ID, S> = Default::default();
        name.push_str(ev.id)
            .map_err(|_| capacity(ev, Table::IdSlot, ID, ev.id))?;
        let undo = log.is_some().then(|| self.steps.undo_of(None));
        self.steps
            .open(name, owner)
            .map_err(|()| capacity(ev, Table::Steps, OWNERS, ev.id))?;
        if let (Some(j), Some(undo)) = (log.as_deref_mut(), undo) {
            // A slot the journal saw close holds a step it would have to
            // open again: its name is gone (never in a pipeline, whose
            // frames open or close one step at most).
            let refilled =
                |c: &Change| matches!(c, Change::Step(s) if !s.opened && s.at == undo.at);
            if !undo.pushed && j.changes.iter().any(refilled) {
                j.complete = false;
            }
            j.note(Change::Step(undo));
        }
        Ok(())
    }

    fn step_finished(&mut self, ev: &EventRef<'_>, log: &mut Log<'_, ID, S>) -> Result<(), Error> {
        let mine = self.steps.find(ev.id, |o| self.is(ev.subagent, o));
        if let Some(at) = mine {
            if let Some(j) = log.as_deref_mut() {
                j.note(Change::Step(self.steps.undo_of(Some(at))));
            }
            self.steps.close(at);
            return Ok(());
        }
        match self.steps.find(ev.id, |_| true) {
            Some(at) => {
                let found = ev.subagent.unwrap_or("(the parent agent)");
                let name = self.name(self.steps.owner(at));
                Err(mismatch(Code::StepOwnerMismatch, ev, ev.id, found, name))
            }
            None => Err(rule(Code::StepNotActive, ev)),
        }
    }

    fn reasoning_open(
        &mut self,
        ev: &EventRef<'_>,
        flag: u8,
        active: Code,
        log: &mut Log<'_, ID, S>,
    ) -> Result<(), Error> {
        if self.reasoning.is_open(ev.id, flag) {
            return Err(rule(active, ev));
        }
        self.tag_check(ev, Kind::Reasoning, ev.id)?;
        let owner = self.owner_of(ev)?;
        self.record(ev, Kind::Reasoning, ev.id, owner, false)?;
        self.note_entry(log, Kind::Reasoning, ev.id);
        if self.reasoning.set_open(ev.id, flag, true) {
            self.tally_open(flag, true);
        }
        Ok(())
    }

    /// One more (or one fewer) reasoning span or message is open.
    fn tally_open(&mut self, flag: u8, open: bool) {
        if let Some(n) = self.reasoning_open.get_mut(usize::from(flag / 2)) {
            *n = if open {
                n.saturating_add(1)
            } else {
                n.saturating_sub(1)
            };
        }
    }

    fn reasoning_use(
        &mut self,
        ev: &EventRef<'_>,
        flag: u8,
        not_active: Code,
        closes: bool,
        log: &mut Log<'_, ID, S>,
    ) -> Result<(), Error> {
        if !self.reasoning.is_open(ev.id, flag) {
            return Err(rule(not_active, ev));
        }
        self.tag_check(ev, Kind::Reasoning, ev.id)?;
        if closes {
            self.note_entry(log, Kind::Reasoning, ev.id);
        }
        if closes && self.reasoning.set_open(ev.id, flag, false) {
            self.tally_open(flag, false);
        }
        Ok(())
    }

    fn subagent_started(
        &mut self,
        ev: &EventRef<'_>,
        facts: &Facts<'_>,
        log: &mut Log<'_, ID, S>,
    ) -> Result<(), Error> {
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
        self.note_life(log, i);
        if let Some((_, l)) = self.agents.get_mut(usize::from(i)) {
            *l = Life::Active;
        }
        Ok(())
    }

    fn subagent_ended(&mut self, ev: &EventRef<'_>, log: &mut Log<'_, ID, S>) -> Result<(), Error> {
        let at = self.find(ev.id).filter(|i| {
            self.agents
                .get(usize::from(*i))
                .is_some_and(|(_, l)| *l == Life::Active)
        });
        let Some(i) = at else {
            return Err(rule(Code::SubagentNotActive, ev));
        };
        self.note_life(log, i);
        if let Some((_, l)) = self.agents.get_mut(usize::from(i)) {
            *l = Life::Finished;
        }
        Ok(())
    }

    /// SPEC 9.7's RUN_FINISHED order: steps, text messages, reasoning
    /// messages, reasoning spans, tool calls, sub-agents.
    fn run_finished<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &self,
        v: &Verifier<ID, MSGS, TOOLS, STEPS, S>,
        ev: &EventRef<'_>,
    ) -> Result<(), Error> {
        if v.life.run != Run::Active {
            return Ok(());
        }
        if self.steps.len() > 0 {
            let names = self.steps.names();
            return Err(open_list(Code::UnclosedSteps, ev, names, self.steps.len()));
        }
        unclosed(&v.messages, Tracked::Messages, ev)?;
        for (flag, code) in [
            (MESSAGE, Code::UnclosedReasoningMessages),
            (SPAN, Code::UnclosedReasoningSpans),
        ] {
            if self.reasoning_open.get(usize::from(flag / 2)) > Some(&0) {
                let open = self.reasoning.entries.iter().filter(|e| e.open & flag != 0);
                let count = open.clone().count();
                return Err(open_list(code, ev, open.map(|e| e.id.as_str()), count));
            }
        }
        unclosed(&v.tool_calls, Tracked::ToolCalls, ev)?;
        let active = self.agents.iter().filter(|(_, l)| *l == Life::Active);
        let count = active.clone().count();
        if count > 0 {
            let names = active.map(|(n, _)| n.as_str());
            return Err(open_list(Code::UnclosedSubagents, ev, names, count));
        }
        Ok(())
    }
}

/// The seeder writes a snapshot's or run input's owners straight into
/// provisional entries of these tables.
impl<const ID: usize, const OWNERS: usize, const AGENTS: usize, S: Store> Seeds
    for Owners<ID, OWNERS, AGENTS, S>
{
    /// A seeded message begins.
    fn seed_message(&mut self) {
        self.seeds();
        self.seeding.owner = None;
        self.seeding.has_id = false;
        self.seeding.tools_from = self.tool_calls.len16();
    }

    /// A seeded tool call begins (its id may follow).
    fn seed_tool_call(&mut self) {}

    /// A seeded string begins: a provisional entry (or sub-agent name)
    /// is made for its text.
    fn seed_begin(&mut self, which: SeedText) {
        self.seeds();
        match which {
            SeedText::Message => {
                if self
                    .messages
                    .push(Entry::seed(SEED | FRESH | LOOSE))
                    .is_err()
                {
                    self.overflow(Kind::Message, false);
                } else {
                    self.seeding.has_id = true;
                }
            }
            SeedText::ToolCall => {
                let entry = Entry::seed(SEED | PENDING | FRESH | LOOSE);
                if self.tool_calls.push(entry).is_err() {
                    self.overflow(Kind::ToolCall, false);
                }
            }
            SeedText::Owner => {
                self.seeding.owner_new =
                    self.agents.push((Default::default(), Life::Named)).is_ok();
                if !self.seeding.owner_new {
                    self.overflow(Kind::Message, false);
                }
            }
        }
    }

    /// A fragment of a seeded string.
    fn seed_text(&mut self, which: SeedText, text: &str) {
        let target = match which {
            SeedText::Message if self.seeding.has_id => self.messages.unseal(),
            SeedText::ToolCall => {
                let fresh = self.tool_calls.entries.last();
                if fresh.is_some_and(|e| e.open & FRESH != 0) {
                    self.tool_calls.unseal()
                } else {
                    None
                }
            }
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
    fn seed_end(&mut self, which: SeedText) {
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

    /// A seeded message ends with `role`: its id goes to the table of its
    /// role (reasoning, activity, or message), and it and its tool calls
    /// take its owner; an id the table holds already is marked there
    /// instead. A message of an unknown role is stripped by enforcement
    /// and seeds nothing.
    fn seed_message_end(&mut self, role: &str) {
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
            self.messages.pop()
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
}

fn capacity(ev: &EventRef<'_>, table: Table, limit: usize, id: &str) -> Error {
    let detail = Detail::Capacity {
        table,
        limit,
        field: None,
        id: error_text(id),
    };
    Error::new(Stage::Verify, Code::Capacity, Some(ev.kind), detail)
}

fn mismatch(code: Code, ev: &EventRef<'_>, id: &str, found: &str, recorded: &str) -> Error {
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
    ev: &EventRef<'_>,
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
