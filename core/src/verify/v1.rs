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

use super::{rule, unclosed, Lifecycle, Reversal, Run, Tracked, Verifier};
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
/// In the table's list of entries the frame's seeding marked.
const TOUCHED: u8 = 32;
/// Not in the table's index: the seeder is still writing its id.
const LOOSE: u8 = 64;

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
    /// The tool-call table's length when the current message began: its
    /// new (`FRESH`) tool calls are the entries from there on.
    tools_from: u16,
}

/// An id as the 1.0 tables hold it: a `u16` length (ids are short), so
/// that entries need no 8-byte alignment and a table of capacity 0 stays
/// a few bytes.
type Id<const ID: usize> = heapless::String<ID, u16>;

/// One owner entry: the id, its owner, and (reasoning) what is open.
#[derive(Debug, Clone)]
struct Entry<const ID: usize> {
    id: Id<ID>,
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

/// FNV-1a: where an id's probe starts.
fn hash(id: &str) -> usize {
    let h = id.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    h as usize
}

/// A hashed index over up to `N` ids held elsewhere (by position), so
/// that a lookup costs about the id's length however many ids are held.
/// `2 N` slots (as `N` pairs: stable Rust cannot size an array `2 * N`),
/// each 0 (free) or a position plus one, placed by linear probing from
/// the id's hash. At most half full, so a probe meets a free slot after
/// about two.
///
/// The slots are a `heapless::Vec` filled (zeroed) at the first insert,
/// not an array: a new pipeline then only sets lengths, which the
/// compiler does in place (zeroed arrays made it build the 1.0 tables on
/// the stack and copy them, doubling the 1.0 firmware's stack).
#[derive(Debug, Clone)]
struct Index<const N: usize> {
    slots: heapless::Vec<[u16; 2], N, u16>,
}

impl<const N: usize> Index<N> {
    /// Positions plus one fit a `u16`.
    const FITS: () = assert!(N < u16::MAX as usize, "at most 65534 entries per 1.0 table");

    const fn new() -> Self {
        let () = Self::FITS;
        Index {
            slots: heapless::Vec::new(),
        }
    }

    /// The slots in the order `id` probes them.
    fn probe(id: &str) -> impl Iterator<Item = usize> {
        let size = N.saturating_mul(2);
        let start = hash(id).checked_rem(size).unwrap_or(0);
        (start..size).chain(0..start)
    }

    /// The positions `id`'s probe meets before a free slot: those holding
    /// `id` among them (the caller compares).
    fn candidates(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        let slots = self.slots.as_flattened();
        Self::probe(id).map_while(|s| slots.get(s).and_then(|v| usize::from(*v).checked_sub(1)))
    }

    /// The slot holding position `at`, of id `id`.
    fn slot_of(&self, id: &str, at: usize) -> Option<usize> {
        let want = u16::try_from(at.checked_add(1)?).ok()?;
        let slots = self.slots.as_flattened();
        Self::probe(id)
            .take_while(|s| slots.get(*s).is_some_and(|v| *v != 0))
            .find(|s| slots.get(*s) == Some(&want))
    }

    /// Enters position `at`, of id `id`.
    fn insert(&mut self, id: &str, at: usize) {
        let Ok(value) = u16::try_from(at.saturating_add(1)) else {
            return;
        };
        // Once per table's life: every slot free.
        if self.slots.len() < N {
            let _ = self.slots.resize(N, [0; 2]);
        }
        let slots = self.slots.as_flattened_mut();
        if let Some(free) = Self::probe(id).find(|s| slots.get(*s) == Some(&0)) {
            if let Some(slot) = slots.get_mut(free) {
                *slot = value;
            }
        }
    }

    /// Position `at`, of id `id`, is now at `to`.
    fn relabel(&mut self, id: &str, at: usize, to: usize) {
        let slot = self.slot_of(id, at);
        let slot = slot.and_then(|s| self.slots.as_flattened_mut().get_mut(s));
        if let (Some(slot), Ok(v)) = (slot, u16::try_from(to.saturating_add(1))) {
            *slot = v;
        }
    }

    /// Takes out position `at`, of id `id`; `hash_at` gives the hash of
    /// the id at a position. The positions after it in its probe run
    /// move back as far as their own probes allow, so that no probe meets
    /// a gap before their slots (backward-shift deletion).
    fn remove(&mut self, id: &str, at: usize, hash_at: impl Fn(usize) -> Option<usize>) {
        let Some(mut hole) = self.slot_of(id, at) else {
            return;
        };
        let size = N.saturating_mul(2);
        let slots = self.slots.as_flattened_mut();
        let mut next = hole;
        for _ in 0..size {
            next = next.wrapping_add(1).checked_rem(size).unwrap_or(0);
            let Some(value) = slots.get(next).copied().filter(|v| *v != 0) else {
                break;
            };
            let home = hash_at(usize::from(value).wrapping_sub(1))
                .and_then(|h| h.checked_rem(size))
                .unwrap_or(next);
            // Cyclic distances to `next`: the position may fill the hole
            // unless its home lies after the hole.
            let from = |s: usize| next.wrapping_add(size).wrapping_sub(s).checked_rem(size);
            if from(home) >= from(hole) {
                if let Some(slot) = slots.get_mut(hole) {
                    *slot = value;
                }
                hole = next;
            }
        }
        if let Some(slot) = slots.get_mut(hole) {
            *slot = 0;
        }
    }
}

/// An owner table: ids in first-mention order, with a hashed index so
/// that a lookup costs about the id's length however many ids the run
/// holds, and the frame's seeding remembered (`touched`, `base`) so that
/// `discard` and `commit` visit only what the frame seeded: no event's
/// cost grows with the entries held.
#[derive(Debug, Clone)]
struct Table_<const ID: usize, const N: usize> {
    entries: heapless::Vec<Entry<ID>, N, u16>,
    /// Every entry but a `LOOSE` one (at most one: the last).
    index: Index<N>,
    /// The entries before `base` the frame's seeding marked, each once
    /// (flagged `TOUCHED`); from `base` on, all entries are the frame's.
    touched: heapless::Vec<u16, N, u16>,
    /// The length when the frame began seeding: seeding adds and removes
    /// entries only from there on.
    base: u16,
}

impl<const ID: usize, const N: usize> Table_<ID, N> {
    const fn new() -> Self {
        Table_ {
            entries: heapless::Vec::new(),
            index: Index::new(),
            touched: heapless::Vec::new(),
            base: 0,
        }
    }

    /// The first entry (by position) holding `id` that `pick` accepts:
    /// what a scan of the entries would find.
    fn find(&self, id: &str, pick: impl Fn(usize, &Entry<ID>) -> bool) -> Option<usize> {
        let hit = |at: &usize| {
            self.entries
                .get(*at)
                .is_some_and(|e| e.id == id && pick(*at, e))
        };
        let first = self.index.candidates(id).filter(hit).min();
        if first.is_some() {
            return first;
        }
        // The loose entry, if any, is the last and not in the index.
        let last = self.entries.len().checked_sub(1)?;
        self.entries
            .last()
            .filter(|e| e.open & LOOSE != 0 && e.id == id && pick(last, e))
            .map(|_| last)
    }

    /// Whether entry `at` is in the index (it is not loose).
    #[cfg(test)]
    fn indexed(&self, at: usize) -> bool {
        let id = self.entries.get(at).map_or("", |e| e.id.as_str());
        self.index.slot_of(id, at).is_some()
    }

    /// Enters entry `at` in the index.
    fn index(&mut self, at: usize) {
        if let Some(e) = self.entries.get_mut(at) {
            e.open &= !LOOSE;
            self.index.insert(&e.id, at);
        }
    }

    /// Takes entry `at` out of the index (nothing if it is loose).
    fn unindex(&mut self, at: usize) {
        let entries = &self.entries;
        if let Some(e) = entries.get(at).filter(|e| e.open & LOOSE == 0) {
            let hash_at = |p: usize| entries.get(p).map(|e| hash(&e.id));
            self.index.remove(&e.id, at, hash_at);
        }
    }

    /// Adds an entry (indexed unless `LOOSE`); `Err` if the table is full.
    fn push(&mut self, entry: Entry<ID>) -> Result<(), Entry<ID>> {
        self.seal();
        let loose = entry.open & LOOSE != 0;
        self.entries.push(entry)?;
        if !loose {
            self.index(self.entries.len().saturating_sub(1));
        }
        Ok(())
    }

    /// The last entry's id is complete: it enters the index if loose.
    fn seal(&mut self) {
        if self.entries.last().is_some_and(|e| e.open & LOOSE != 0) {
            self.index(self.entries.len().saturating_sub(1));
        }
    }

    /// The last entry's id, to be written on (out of the index till sealed).
    fn unseal(&mut self) -> Option<&mut Id<ID>> {
        let last = self.entries.len().checked_sub(1)?;
        if self.entries.last()?.open & LOOSE == 0 {
            self.unindex(last);
        }
        let e = self.entries.last_mut()?;
        e.open |= LOOSE;
        Some(&mut e.id)
    }

    fn pop(&mut self) -> Option<Entry<ID>> {
        self.unindex(self.entries.len().checked_sub(1)?);
        self.entries.pop()
    }

    /// Keeps, from position `from` on, the entries `keep` accepts, in order.
    fn retain_from(&mut self, from: usize, keep: impl Fn(&Entry<ID>) -> bool) {
        let mut to = from;
        for at in from..self.entries.len() {
            if !self.entries.get(at).is_some_and(&keep) {
                self.unindex(at);
                continue;
            }
            if at != to {
                // `to` holds a dropped entry, already out of the index.
                if let Some(e) = self.entries.get(at).filter(|e| e.open & LOOSE == 0) {
                    self.index.relabel(&e.id, at, to);
                }
                let run = self
                    .entries
                    .get_mut(to..=at)
                    .and_then(|r| r.split_first_mut());
                if let Some((a, b)) = run.and_then(|(a, rest)| Some((a, rest.last_mut()?))) {
                    core::mem::swap(a, b);
                }
            }
            to = to.saturating_add(1);
        }
        self.entries.truncate(to);
    }

    fn base(&self) -> usize {
        usize::from(self.base)
    }

    /// The length, as the `u16` it fits (see `Index::FITS`).
    fn len16(&self) -> u16 {
        u16::try_from(self.entries.len()).unwrap_or(u16::MAX)
    }

    /// Marks entry `at` as changed by the frame's seeding.
    fn touch(&mut self, at: usize) {
        if at >= self.base() {
            return;
        }
        if let (Some(e), Ok(at)) = (self.entries.get_mut(at), u16::try_from(at)) {
            if e.open & TOUCHED == 0 {
                e.open |= TOUCHED;
                // Room: each entry before `base` is listed once at most.
                let _ = self.touched.push(at);
            }
        }
    }

    /// The frame begins seeding.
    fn begin(&mut self) {
        self.base = self.len16();
    }

    /// Applies `f` to each entry the frame's seeding marked or made, and
    /// clears the frame's record.
    fn each_seeded(&mut self, mut f: impl FnMut(&mut Entry<ID>)) {
        for at in self.touched.iter() {
            if let Some(e) = self.entries.get_mut(usize::from(*at)) {
                f(e);
                e.open &= !TOUCHED;
            }
        }
        self.touched.clear();
        let base = self.base();
        for e in self.entries.get_mut(base..).into_iter().flatten() {
            f(e);
        }
    }

    /// Drops what the frame seeded.
    fn discard(&mut self) {
        self.retain_from(self.base(), |e| e.open & SEED == 0);
        self.each_seeded(|e| {
            e.seeded = None;
            e.open &= !(PENDING | FRESH);
        });
        self.base = self.len16();
    }

    /// Makes what the frame seeded count: a new id keeps its first seeded
    /// owner, or its last when `overwrite`; a known id takes its last
    /// seeded owner only when `overwrite`.
    fn commit(&mut self, overwrite: bool) {
        self.each_seeded(|e| {
            if let (true, Some(owner)) = (overwrite, e.seeded) {
                e.owner = owner;
            }
            e.seeded = None;
            e.open &= !(SEED | PENDING | FRESH);
        });
        self.seal();
        self.base = self.len16();
    }

    /// A new run keeps only the entries the frame seeded; a known id the
    /// run's input mentions again is new to the run and takes the owner
    /// the input gives it.
    fn new_run(&mut self) {
        for e in self.entries.iter_mut() {
            if let (0, Some(owner)) = (e.open & SEED, e.seeded.take()) {
                e.owner = owner;
                e.open |= SEED;
            }
            e.open &= !TOUCHED;
        }
        self.touched.clear();
        self.retain_from(0, |e| e.open & SEED != 0);
        // All that is left is the frame's, for `commit`.
        self.base = 0;
    }

    /// The committed entry of `id` (provisional ones do not count yet).
    fn get(&self, id: &str) -> Option<&Entry<ID>> {
        let at = self.find(id, |_, e| e.open & SEED == 0)?;
        self.entries.get(at)
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Entry<ID>> {
        let at = self.find(id, |_, e| e.open & SEED == 0)?;
        self.entries.get_mut(at)
    }

    fn owner(&self, id: &str) -> Option<Owner> {
        self.get(id).map(|e| e.owner)
    }

    /// The other entry (committed or seeded) with the last entry's id.
    fn twin_of_last(&self) -> Option<usize> {
        let last = self.entries.len().checked_sub(1)?;
        let id = self.entries.last()?.id.as_str();
        self.find(id, |at, _| at != last)
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
        self.push(Entry {
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

    /// Opens or closes `flag` on `id`'s entry; whether that changed it.
    fn set_open(&mut self, id: &str, flag: u8, open: bool) -> bool {
        let at = self.find(id, |_, e| e.open & SEED == 0);
        match at.and_then(|at| self.entries.get_mut(at)) {
            Some(e) if (e.open & flag != 0) != open => {
                e.open ^= flag;
                true
            }
            Some(_) | None => false,
        }
    }

    /// Back to `len` entries (those after it leave the index), the last
    /// one loose again if it was (`loose`): undoes the pushes of a frame.
    fn restore_len(&mut self, len: u16, loose: bool) {
        while self.entries.len() > usize::from(len) {
            self.pop();
        }
        if loose && len > 0 {
            let _ = self.unseal();
        }
    }

    /// Whether the last entry is loose.
    fn last_loose(&self) -> bool {
        self.entries.last().is_some_and(|e| e.open & LOOSE != 0)
    }

    /// How many entries have `flag` set (a walk: once per run).
    fn count_open(&self, flag: u8) -> u16 {
        let n = self.entries.iter().filter(|e| e.open & flag != 0).count();
        u16::try_from(n).unwrap_or(u16::MAX)
    }
}

/// An open step: its name and owner, and its place in the order the
/// steps opened.
#[derive(Debug, Clone)]
struct Step<const ID: usize> {
    name: Id<ID>,
    owner: Owner,
    /// When it opened (`Steps::opened` then): of the steps a name
    /// finds, the earliest wins.
    opened: u32,
    /// The steps opened before and after it (position + 1; 0: none). A
    /// closed step's `next` is the next free slot.
    prev: u16,
    next: u16,
}

/// The open steps in the order they opened: a list linked through fixed
/// slots (a closed step's slot is reused), with an index by name, so
/// that opening or closing a step costs the same however many are open.
#[derive(Debug, Clone)]
struct Steps<const ID: usize, const N: usize> {
    slots: heapless::Vec<Step<ID>, N, u16>,
    /// The open steps by name.
    index: Index<N>,
    /// The first and last open step, and the first free slot (position
    /// + 1; 0: none).
    first: u16,
    last: u16,
    free: u16,
    len: u16,
    /// Steps opened so far, wrapping: steps are ordered by their age
    /// (`opened` less theirs), exact while fewer than 2^32 open after
    /// one that is still open.
    opened: u32,
}

impl<const ID: usize, const N: usize> Steps<ID, N> {
    const fn new() -> Self {
        Steps {
            slots: heapless::Vec::new(),
            index: Index::new(),
            first: 0,
            last: 0,
            free: 0,
            len: 0,
            opened: 0,
        }
    }

    /// The earliest opened step named `name` whose owner `pick` accepts.
    fn find(&self, name: &str, pick: impl Fn(Owner) -> bool) -> Option<usize> {
        let step = |at: usize| self.slots.get(at).map(|s| (s, at));
        self.index
            .candidates(name)
            .filter_map(step)
            .filter(|(s, _)| s.name == name && pick(s.owner))
            .max_by_key(|(s, _)| self.opened.wrapping_sub(s.opened))
            .map(|(_, at)| at)
    }

    fn owner(&self, at: usize) -> Owner {
        self.slots.get(at).and_then(|s| s.owner)
    }

    /// Opens a step; `Err` if `N` are open.
    fn open(&mut self, name: Id<ID>, owner: Owner) -> Result<(), ()> {
        let step = Step {
            name,
            owner,
            opened: self.opened,
            prev: self.last,
            next: 0,
        };
        let at = match usize::from(self.free).checked_sub(1) {
            Some(at) => {
                let slot = self.slots.get_mut(at).ok_or(())?;
                self.free = slot.next;
                *slot = step;
                at
            }
            None => {
                self.slots.push(step).map_err(drop)?;
                self.slots.len().saturating_sub(1)
            }
        };
        let me = u16::try_from(at.saturating_add(1)).map_err(drop)?;
        match self.slots.get_mut(usize::from(self.last).wrapping_sub(1)) {
            Some(last) => last.next = me,
            None => self.first = me,
        }
        self.last = me;
        if let Some(s) = self.slots.get(at) {
            self.index.insert(&s.name, at);
        }
        self.len = self.len.saturating_add(1);
        self.opened = self.opened.wrapping_add(1);
        Ok(())
    }

    /// Closes the step at `at`.
    fn close(&mut self, at: usize) {
        let slots = &self.slots;
        let Some(s) = slots.get(at) else {
            return;
        };
        let (prev, next) = (s.prev, s.next);
        self.index
            .remove(&s.name, at, |p| slots.get(p).map(|s| hash(&s.name)));
        match self.slots.get_mut(usize::from(prev).wrapping_sub(1)) {
            Some(p) => p.next = next,
            None => self.first = next,
        }
        match self.slots.get_mut(usize::from(next).wrapping_sub(1)) {
            Some(n) => n.prev = prev,
            None => self.last = prev,
        }
        if let Some(s) = self.slots.get_mut(at) {
            s.next = self.free;
            self.free = u16::try_from(at.saturating_add(1)).unwrap_or(0);
        }
        self.len = self.len.saturating_sub(1);
    }

    /// The links (slot, prev, next) of slot `at`, if it exists.
    fn links(&self, at: usize) -> Option<(u16, u16, u16)> {
        let s = self.slots.get(at)?;
        Some((u16::try_from(at).ok()?, s.prev, s.next))
    }

    /// How to take back an opening (`None`) or the closing of the step at
    /// `at`, made before it.
    fn undo_of(&self, closing: Option<usize>) -> StepUndo {
        let mut undo = StepUndo {
            at: 0,
            opened: closing.is_none(),
            links: heapless::Vec::new(),
            reused_next: None,
            pushed: false,
            first: self.first,
            last: self.last,
            free: self.free,
            len: self.len,
            count: self.opened,
        };
        let relinked = match closing {
            Some(at) => {
                let s = self.slots.get(at);
                let prev = s.map_or(0, |s| s.prev);
                let next = s.map_or(0, |s| s.next);
                undo.at = u16::try_from(at).unwrap_or(u16::MAX);
                [
                    Some(at),
                    usize::from(prev).checked_sub(1),
                    usize::from(next).checked_sub(1),
                ]
            }
            None => {
                let reused = usize::from(self.free).checked_sub(1);
                let at = reused.unwrap_or(self.slots.len());
                undo.at = u16::try_from(at).unwrap_or(u16::MAX);
                undo.pushed = reused.is_none();
                undo.reused_next = reused.and_then(|a| self.slots.get(a)).map(|s| s.next);
                [usize::from(self.last).checked_sub(1), None, None]
            }
        };
        for at in relinked.into_iter().flatten() {
            if let Some(l) = self.links(at) {
                // Room: three at most.
                let _ = undo.links.push(l);
            }
        }
        undo
    }

    /// Takes back the opening or closing `undo` was made before (the last
    /// change to the steps).
    fn undo(&mut self, undo: &StepUndo) {
        let at = usize::from(undo.at);
        let slots = &self.slots;
        if let (true, Some(s)) = (undo.opened, slots.get(at)) {
            self.index
                .remove(&s.name, at, |p| slots.get(p).map(|s| hash(&s.name)));
        }
        for (slot, prev, next) in undo.links.iter().rev() {
            if let Some(s) = self.slots.get_mut(usize::from(*slot)) {
                s.prev = *prev;
                s.next = *next;
            }
        }
        if let (Some(next), Some(s)) = (undo.reused_next, self.slots.get_mut(at)) {
            s.next = next;
        }
        if undo.pushed {
            self.slots.truncate(at);
        }
        self.first = undo.first;
        self.last = undo.last;
        self.free = undo.free;
        self.len = undo.len;
        self.opened = undo.count;
        if let (false, Some(s)) = (undo.opened, self.slots.get(at)) {
            self.index.insert(&s.name, at);
        }
    }

    /// The open steps' names, in the order they opened.
    fn names(&self) -> impl Iterator<Item = &str> + Clone {
        let at = |link: u16| usize::from(link).checked_sub(1);
        let first = at(self.first).and_then(|a| self.slots.get(a));
        core::iter::successors(first, move |s| at(s.next).and_then(|a| self.slots.get(a)))
            .take(self.len())
            .map(|s| s.name.as_str())
    }

    fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Closes every step (a new run: as many as the last run opened).
    fn clear(&mut self) {
        while let Some(at) = usize::from(self.first).checked_sub(1) {
            self.close(at);
        }
        self.slots.clear();
        self.free = 0;
    }
}

/// How to take back one opening or closing of a step: the list's ends,
/// count and free list, and the links of the slots it relinked, as they
/// were.
#[derive(Debug, Clone)]
struct StepUndo {
    /// The slot opened or closed.
    at: u16,
    opened: bool,
    /// (slot, prev, next) of each slot relinked.
    links: heapless::Vec<(u16, u16, u16), 3, u8>,
    /// The free-list link of the free slot the opening reused.
    reused_next: Option<u16>,
    /// The opening added a slot.
    pushed: bool,
    first: u16,
    last: u16,
    free: u16,
    len: u16,
    count: u32,
}

/// A field of the 1.0 tables an event changed, as it was.
#[derive(Debug, Clone)]
enum Change {
    /// An owner entry's owner and open flags.
    Entry {
        kind: Kind,
        at: u16,
        owner: Owner,
        open: u8,
    },
    /// A sub-agent's life.
    Life { at: u8, life: Life },
    /// The open steps.
    Step(StepUndo),
}

/// What the events of one frame changed in the 1.0 tables ([`Owners`])
/// and in the verifier, so that [`Owners::undo`] takes the frame back: the
/// tables' lengths before it (the entries it added go, and leave the
/// indexes), the fields it changed, as they were, and the verifier's life
/// cycle and the ids it opened or closed. Its size is fixed and small: an
/// event changes at most one field of the 1.0 tables (an owner, an open
/// flag, a sub-agent's life, or the open steps) and opens or closes at
/// most one id in the verifier, and a frame expands to at most 12 events
/// (up to 9 lanes closed, then 3). A new run (RUN_STARTED) and a snapshot's owner
/// seeds (MESSAGES_SNAPSHOT) change more: the journal notes that it cannot
/// take them back ([`Journal::complete`] is then false). They are the last
/// event of their frame, so the frame cannot fail after them.
#[derive(Debug, Clone)]
pub struct Journal<const ID: usize = 64> {
    life: Lifecycle,
    /// The verifier's id tables' changes, oldest first.
    ids: heapless::Vec<Reversal<ID>, 12, u8>,
    lens: [u16; 4],
    loose: [bool; 4],
    agents: u16,
    reasoning_open: [u16; 2],
    changes: heapless::Vec<Change, 12, u8>,
    /// Every change is noted.
    complete: bool,
}

impl<const ID: usize> Journal<ID> {
    /// Whether the journal takes the whole frame back (it does unless the
    /// frame started a run or applied a snapshot's owners).
    pub fn complete(&self) -> bool {
        self.complete
    }

    fn note(&mut self, change: Change) {
        if self.changes.push(change).is_err() {
            self.complete = false;
        }
    }

    /// Notes that `which` gained an id at its end.
    fn opened(&mut self, which: Tracked) {
        self.note_ids(super::Change::Opened(which));
    }

    /// Notes that `id` left `which` at position `at`.
    fn closed(&mut self, which: Tracked, at: Option<usize>, id: &str) {
        let mut text = heapless::String::new();
        // The id came out of a slot of this capacity.
        let _ = text.push_str(id);
        let change = match at {
            Some(at) => super::Change::Closed(which, at, text),
            None => super::Change::None,
        };
        self.note_ids(change);
    }

    fn note_ids(&mut self, change: super::Change<ID>) {
        let life = self.life;
        if self.ids.push(Reversal { life, change }).is_err() {
            self.complete = false;
        }
    }
}

/// Where an event's changes are noted, if anywhere.
type Log<'a, const ID: usize> = Option<&'a mut Journal<ID>>;

/// The four owner tables, in the order of a journal's lengths.
const KINDS: [Kind; 4] = [
    Kind::Message,
    Kind::ToolCall,
    Kind::Reasoning,
    Kind::Activity,
];

/// The 1.0 part of the verifier's state. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Owners<const ID: usize = 64, const OWNERS: usize = 0, const AGENTS: usize = 0> {
    agents: heapless::Vec<(Id<ID>, Life), AGENTS, u16>,
    messages: Table_<ID, OWNERS>,
    tool_calls: Table_<ID, OWNERS>,
    reasoning: Table_<ID, OWNERS>,
    activities: Table_<ID, OWNERS>,
    /// Open steps: name and owner, in the order they opened.
    steps: Steps<ID, OWNERS>,
    seeding: Seeding,
    /// Known tool calls the current seeded message names again (flagged
    /// `PENDING`): with its `FRESH` ones, those its end settles.
    pending: heapless::Vec<u16, OWNERS, u16>,
    /// How many reasoning messages and spans are open (by `flag / 2`),
    /// so that RUN_FINISHED need not look for them.
    reasoning_open: [u16; 2],
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
            steps: Steps::new(),
            seeding: Seeding {
                owner: None,
                has_id: false,
                owner_new: false,
                overflow: None,
                any: false,
                tools_from: 0,
            },
            pending: heapless::Vec::new(),
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
        verifier: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
        facts: &Facts<'_>,
    ) -> Result<(), Error> {
        self.apply(verifier, ev, facts, &mut None)
            .map_err(|e| e.at(ev.frame))
    }

    /// A journal for the next frame: the tables' lengths now, and the
    /// life cycle of `verifier`.
    pub fn journal<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &self,
        verifier: &Verifier<ID, MSGS, TOOLS, STEPS>,
    ) -> Journal<ID> {
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
        verifier: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
        facts: &Facts<'_>,
        journal: &mut Journal<ID>,
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
        verifier: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        journal: Journal<ID>,
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
    fn note_entry(&self, log: &mut Log<'_, ID>, kind: Kind, id: &str) {
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
    fn note_life(&self, log: &mut Log<'_, ID>, at: u8) {
        if let (Some(j), Some((_, life))) = (log.as_deref_mut(), self.agents.get(usize::from(at))) {
            j.note(Change::Life { at, life: *life });
        }
    }

    fn apply<const MSGS: usize, const TOOLS: usize, const STEPS: usize>(
        &mut self,
        v: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
        facts: &Facts<'_>,
        log: &mut Log<'_, ID>,
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
        let mut kept: heapless::Vec<(Id<ID>, Life), AGENTS, u16> = heapless::Vec::new();
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

    /// A seeded message begins.
    pub(crate) fn seed_message(&mut self) {
        self.seeds();
        self.seeding.owner = None;
        self.seeding.has_id = false;
        self.seeding.tools_from = self.tool_calls.len16();
    }

    /// A seeded tool call begins (its id may follow).
    pub(crate) fn seed_tool_call(&mut self) {}

    /// A seeded string begins: a provisional entry (or sub-agent name)
    /// is made for its text.
    pub(crate) fn seed_begin(&mut self, which: SeedText) {
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
    fn seed_id(&mut self, kind: Kind, mut entry: Entry<ID>, owner: Owner) {
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
        v: &mut Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
        facts: &Facts<'_>,
        log: &mut Log<'_, ID>,
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
                super::open(&mut v.messages, ev, Code::MessageActive, Table::Messages)?;
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
    #[inline]
    fn tag_check(&self, ev: &Event<'_>, kind: Kind, id: &str) -> Result<(), Error> {
        match ev.subagent {
            Some(tag) => self.tag_check_of(ev, kind, id, tag),
            None => Ok(()),
        }
    }

    fn tag_check_of(&self, ev: &Event<'_>, kind: Kind, id: &str, tag: &str) -> Result<(), Error> {
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

    fn step_started(&mut self, ev: &Event<'_>, log: &mut Log<'_, ID>) -> Result<(), Error> {
        let owner = self.owner_of(ev)?;
        if self.steps.find(ev.id, |o| o == owner).is_some() {
            return Err(rule(Code::StepActive, ev));
        }
        let mut name = heapless::String::new();
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

    fn step_finished(&mut self, ev: &Event<'_>, log: &mut Log<'_, ID>) -> Result<(), Error> {
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
        ev: &Event<'_>,
        flag: u8,
        active: Code,
        log: &mut Log<'_, ID>,
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
        ev: &Event<'_>,
        flag: u8,
        not_active: Code,
        closes: bool,
        log: &mut Log<'_, ID>,
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
        ev: &Event<'_>,
        facts: &Facts<'_>,
        log: &mut Log<'_, ID>,
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

    fn subagent_ended(&mut self, ev: &Event<'_>, log: &mut Log<'_, ID>) -> Result<(), Error> {
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
        v: &Verifier<ID, MSGS, TOOLS, STEPS>,
        ev: &Event<'_>,
    ) -> Result<(), Error> {
        if v.life.run != Run::Active {
            return Ok(());
        }
        if self.steps.len() > 0 {
            let names = self.steps.names();
            return Err(open_list(Code::UnclosedSteps, ev, names, self.steps.len()));
        }
        unclosed(&v.messages, super::Tracked::Messages, ev)?;
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

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]
mod tests {
    extern crate std;

    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// What is done to a table.
    #[derive(Debug, Clone)]
    enum Op {
        /// A new entry with this id (loose or not).
        Push(u8, bool),
        Pop,
        /// Flags the entry at (position modulo length) `SEED`.
        Seed(usize),
        /// Drops the `SEED` entries from (position modulo length + 1) on.
        Drop(usize),
        /// Writes a byte onto the last entry's id.
        Write(u8),
        Seal,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u8..12, any::<bool>()).prop_map(|(i, l)| Op::Push(i, l)),
            1 => Just(Op::Pop),
            2 => any::<usize>().prop_map(Op::Seed),
            1 => any::<usize>().prop_map(Op::Drop),
            1 => (0u8..3).prop_map(Op::Write),
            1 => Just(Op::Seal),
        ]
    }

    type TinyVerifier = Verifier<8, 2, 2, 2>;
    type TinyOwners = Owners<8, 3, 1>;

    /// Event `k` of a small vocabulary (ids "a" and "b", tags none, "x"
    /// and "y"), with its facts.
    fn vocabulary(k: u8) -> (Event<'static>, Facts<'static>) {
        use EventType as T;
        const KINDS: [EventType; 17] = [
            T::TextMessageStart,
            T::TextMessageEnd,
            T::ToolCallStart,
            T::ToolCallEnd,
            T::StepStarted,
            T::StepFinished,
            T::ReasoningStart,
            T::ReasoningEnd,
            T::ReasoningMessageStart,
            T::ReasoningMessageEnd,
            T::ActivitySnapshot,
            T::ActivityDelta,
            T::ToolCallResult,
            T::SubagentStarted,
            T::SubagentFinished,
            T::RunFinished,
            T::TextMessageContent,
        ];
        let kind = KINDS[usize::from(k) % KINDS.len()];
        let id = ["a", "b"][usize::from(k / 17) % 2];
        let subagent = [None, Some("x"), Some("y")][usize::from(k / 34) % 3];
        let (id, subagent) = if matches!(kind, T::SubagentStarted | T::SubagentFinished) {
            (subagent.unwrap_or("x"), None)
        } else {
            (id, subagent)
        };
        let ev = Event {
            kind,
            origin: crate::event::Origin::Frame,
            frame: 0,
            id,
            name: "f",
            role: crate::event::Role::default(),
            subagent,
        };
        let facts = Facts {
            message_id: id,
            keep: k.is_multiple_of(2),
            parent_message: k.is_multiple_of(3).then_some("a"),
            ..Facts::default()
        };
        (ev, facts)
    }

    /// The result of each event of the vocabulary from `v` and `o`, and
    /// of the whole vocabulary in order.
    fn probe(mut v: TinyVerifier, mut o: TinyOwners) -> Vec<Result<(), Error>> {
        let each = (0..102).map(|k| {
            let (ev, facts) = vocabulary(k);
            o.clone().check(&mut v.clone(), &ev, &facts)
        });
        let each: Vec<_> = each.collect();
        let all = (0..102).map(|k| {
            let (ev, facts) = vocabulary(k);
            o.check(&mut v, &ev, &facts)
        });
        each.into_iter().chain(all.collect::<Vec<_>>()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// After any history, events noted in a journal (up to the first
        /// that fails) and then undone leave the tables and the verifier
        /// behaving as a copy made before them: the same results for every
        /// event of the vocabulary after it.
        #[test]
        fn a_journal_takes_events_back(
            history in prop::collection::vec(0u8..102, 0..40),
            frame in prop::collection::vec(0u8..102, 1..12),
        ) {
            let mut v = TinyVerifier::new();
            let mut o = TinyOwners::new();
            let start = Event {
                kind: EventType::RunStarted,
                origin: crate::event::Origin::Frame,
                frame: 0,
                id: "",
                name: "",
                role: crate::event::Role::default(),
                subagent: None,
            };
            o.check(&mut v, &start, &Facts::default()).unwrap();
            for k in history {
                let (ev, facts) = vocabulary(k);
                let _ = o.check(&mut v, &ev, &facts);
            }
            let (v0, o0) = (v.clone(), o.clone());
            let mut journal = o.journal(&v);
            for k in frame {
                let (ev, facts) = vocabulary(k);
                if o.check_noted(&mut v, &ev, &facts, &mut journal).is_err() {
                    break;
                }
            }
            // Incomplete only when a step's slot is refilled (see
            // `step_started`).
            if journal.complete() {
                prop_assert!(o.undo(&mut v, journal));
                prop_assert_eq!(probe(v, o), probe(v0, o0));
            }
        }

        /// With 8 entries in 16 slots and 12 short ids (so that probes
        /// collide and ids repeat), the index finds what a scan of the
        /// entries finds, after any pushes, pops, drops and writes.
        #[test]
        fn index_finds_what_a_scan_finds(ops in prop::collection::vec(op(), 1..80)) {
            let mut t = Table_::<4, 8>::new();
            for op in ops {
                let len = t.entries.len();
                match op {
                    Op::Push(i, loose) => {
                        let mut e = Entry::seed(if loose { LOOSE } else { 0 });
                        e.id.push_str(&std::format!("{}", i)).unwrap();
                        let _ = t.push(e);
                    }
                    Op::Pop => {
                        t.pop();
                    }
                    Op::Seed(at) if len > 0 => t.entries[at % len].open |= SEED,
                    Op::Drop(at) => t.retain_from(at % (len + 1), |e| e.open & SEED == 0),
                    Op::Write(b) => {
                        if let Some(id) = t.unseal() {
                            let _ = id.push(char::from(b'a' + b));
                        }
                    }
                    Op::Seal => t.seal(),
                    Op::Seed(_) => {}
                }
                let loose: Vec<usize> = (0..t.entries.len())
                    .filter(|at| t.entries[*at].open & LOOSE != 0)
                    .collect();
                prop_assert!(loose.is_empty() || loose == [t.entries.len() - 1]);
                for at in 0..t.entries.len() {
                    prop_assert_eq!(t.indexed(at), !loose.contains(&at));
                }
                let ids: Vec<_> = t.entries.iter().map(|e| e.id.clone()).collect();
                for id in ids.iter().map(|s| s.as_str()).chain(["0", "11", "x"]) {
                    let scan = t.entries.iter().position(|e| e.id == id);
                    prop_assert_eq!(t.find(id, |_, _| true), scan);
                    let scan = t.entries.iter().position(|e| e.id == id && e.open & SEED == 0);
                    prop_assert_eq!(t.find(id, |_, e| e.open & SEED == 0), scan);
                }
            }
        }

        /// The open steps, in 8 slots with names that repeat under
        /// several owners, behave as a list kept in opening order.
        #[test]
        fn steps_behave_as_a_list(ops in prop::collection::vec((0u8..6, 0u8..3, any::<bool>()), 1..80)) {
            let mut steps = Steps::<4, 8>::new();
            let mut model: Vec<(std::string::String, Owner)> = Vec::new();
            for (name, owner, open) in ops {
                let name = std::format!("{}", name);
                let owner = owner.checked_sub(1);
                let at = model.iter().position(|(n, o)| *n == name && *o == owner);
                let found = steps.find(&name, |o| o == owner);
                prop_assert_eq!(found.is_some(), at.is_some());
                let first = model.iter().find(|(n, _)| *n == name).map(|(_, o)| *o);
                prop_assert_eq!(steps.find(&name, |_| true).map(|at| steps.owner(at)), first);
                match (open, found, at) {
                    (true, None, _) => {
                        let fits = steps.open(heapless::String::try_from(name.as_str()).unwrap(), owner);
                        prop_assert_eq!(fits.is_ok(), model.len() < 8);
                        if fits.is_ok() {
                            model.push((name, owner));
                        }
                    }
                    (false, Some(f), Some(at)) => {
                        steps.close(f);
                        model.remove(at);
                    }
                    _ => {}
                }
                prop_assert!(steps.names().eq(model.iter().map(|(n, _)| n.as_str())));
                prop_assert_eq!(steps.len(), model.len());
            }
            steps.clear();
            prop_assert_eq!(steps.names().count(), 0);
            prop_assert!(steps.open(heapless::String::new(), None).is_ok());
        }
    }
}
