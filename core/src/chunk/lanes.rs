//! Chunk expansion with lanes (1.0, SPEC 9.6).
//!
//! The open chunked item is kept per *lane*: one per owner, the parent
//! agent's (the expander's one item of the current protocol) and one per
//! sub-agent with an item open. A frame's expansion is a [`PlanV1`]: the
//! ENDs that close lanes first (every lane, oldest first, for the run-level
//! events; the event's own lane for the others), then a chunk's START and
//! CONTENT, or the frame's own event.
//!
//! A continuation must agree with its opener: the text message's role and
//! name, the tool call's name and parent message. The expander keeps a
//! 32-bit hash of each opener field, not its text (a lane is a few bytes
//! more than its id); two different values with the same hash would pass
//! as equal, with odds of about one in four billion.

use super::{chunk_error, Chunker, Item, Planned};
use crate::decode::{Decoder, Ext, Field, Header};
use crate::error::{cut_text, error_text, Code, Detail, Error, Stage, Table};
use crate::event::{EventType, Origin};
use crate::store::{IdText as _, Seq as _, Store};

/// The opener fields of a lane's item (hashed) and when it opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Opener {
    /// Text: role (as given, default assistant) and name; tool call:
    /// toolCallName and parentMessageId.
    fields: [Option<u32>; 2],
    /// Order of opening among the lanes.
    seq: u32,
}

impl Opener {
    pub(crate) const NONE: Opener = Opener {
        fields: [None, None],
        seq: 0,
    };
}

/// A sub-agent's lane.
#[derive(Debug, Clone)]
pub(crate) struct Lane<const ID: usize, S: Store> {
    owner: S::Str<ID>,
    item: Option<Item>,
    id: S::Str<ID>,
    opener: Opener,
}

impl<const ID: usize, S: Store> Lane<ID, S> {
    pub(crate) fn heap_bytes(&self) -> usize {
        self.owner.heap_bytes().saturating_add(self.id.heap_bytes())
    }
}

/// A lane: the parent agent's, or a sub-agent's (index into the lanes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneKey {
    /// The parent agent's lane.
    Parent,
    /// A sub-agent's lane.
    Sub(u8),
}

/// What a step of a 1.0 plan does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// The END of the oldest lane's open item.
    CloseOldest,
    /// The END of a lane's open item.
    Close(LaneKey),
    /// A chunk's START in a lane.
    Start(LaneKey),
    /// A chunk's CONTENT / ARGS in a lane.
    Content(LaneKey),
    /// The frame's own event.
    Frame,
}

/// One step of a 1.0 plan over the chunk lanes (not a `STEP_*` event);
/// `planned` is its event as the current protocol's plan would describe
/// it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneStep {
    /// What the step does.
    pub kind: StepKind,
    /// Its event type, origin and id source.
    pub planned: Planned,
}

/// A frame's 1.0 expansion: `closes` ENDs of the oldest lanes, then `steps`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanV1 {
    closes: u8,
    /// The item kinds of the lanes closed oldest-first, in order.
    closing: heapless::Vec<Item, 9>,
    steps: heapless::Vec<LaneStep, 3>,
}

impl PlanV1 {
    /// The steps in order.
    pub fn iter(&self) -> impl Iterator<Item = LaneStep> + '_ {
        let closes = self
            .closing
            .iter()
            .take(usize::from(self.closes))
            .map(|item| LaneStep {
                kind: StepKind::CloseOldest,
                planned: Planned {
                    kind: item.end(),
                    origin: Origin::Close,
                    id: super::IdFrom::Open,
                },
            });
        closes.chain(self.steps.iter().copied())
    }
}

/// FNV-1a, for opener fields.
fn hash(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

impl<const ID: usize, const AGENTS: usize, S: Store> Chunker<ID, AGENTS, S> {
    /// A plan lists every open lane: the parent's and at most 8 others,
    /// whatever the number of sub-agents.
    const LANES: usize = if AGENTS < 8 { AGENTS } else { 8 };

    /// The lane of `owner` (`None`: the parent), if it has one.
    fn lane_of(&self, owner: Option<&str>) -> Option<LaneKey> {
        match owner {
            None => Some(LaneKey::Parent),
            Some(o) => self
                .lanes
                .iter()
                .position(|l| l.owner.as_str() == o)
                .map(|i| LaneKey::Sub(i as u8)),
        }
    }

    /// A lane's item and id.
    fn item(&self, lane: LaneKey) -> Option<(Item, &str)> {
        match lane {
            LaneKey::Parent => self.open.map(|i| (i, self.id.as_str())),
            LaneKey::Sub(i) => self
                .lanes
                .get(usize::from(i))
                .and_then(|l| l.item.map(|it| (it, l.id.as_str()))),
        }
    }

    fn opener(&self, lane: LaneKey) -> Opener {
        match lane {
            LaneKey::Parent => self.parent,
            LaneKey::Sub(i) => self
                .lanes
                .get(usize::from(i))
                .map_or(Opener::NONE, |l| l.opener),
        }
    }

    /// Every lane with an open item, oldest first.
    fn open_lanes(&self) -> heapless::Vec<(u32, LaneKey, Item), 9> {
        let mut out = heapless::Vec::<(u32, LaneKey, Item), 9>::new();
        if let Some(item) = self.open {
            let _ = out.push((self.parent.seq, LaneKey::Parent, item));
        }
        for (i, l) in self.lanes.iter().enumerate() {
            if let Some(item) = l.item {
                let _ = out.push((l.opener.seq, LaneKey::Sub(i as u8), item));
            }
        }
        out.sort_unstable_by_key(|(seq, _, _)| *seq);
        out
    }

    /// The lane for a chunk's item (SPEC 9.6, "which lane").
    fn chunk_lane<const DEPTH: usize, X: Ext<ID, S>>(
        &self,
        item: Item,
        head: &Header,
        dec: &Decoder<ID, DEPTH, X, S>,
    ) -> Result<LaneKey, Error> {
        let tag = dec.tag();
        let names_id = item.id_field().is_some_and(|f| dec.names(f));
        if names_id {
            let id = dec.id();
            let holder = self
                .all_lanes()
                .find(|k| self.item(*k).is_some_and(|(it, i)| it == item && i == id));
            if let Some(lane) = holder {
                let owner = self.owner_name(lane);
                if let Some(t) = tag.filter(|t| Some(*t) != owner) {
                    return Err(lane_error(
                        Code::ChunkOwnerMismatch,
                        head.kind,
                        id,
                        t,
                        owner.unwrap_or("(the parent agent)"),
                    ));
                }
                return Ok(lane);
            }
            return self.tag_lane(tag, head.kind);
        }
        if tag.is_some() {
            return self.tag_lane(tag, head.kind);
        }
        if self.open == Some(item) {
            return Ok(LaneKey::Parent);
        }
        let mut with_item = self
            .all_lanes()
            .filter(|k| self.item(*k).is_some_and(|(it, _)| it == item));
        match (with_item.next(), with_item.next()) {
            (Some(only), None) => Ok(only),
            (Some(_), Some(_)) => Err(chunk_error(Code::ChunkAmbiguous, head.kind)),
            (None, _) => Ok(LaneKey::Parent),
        }
    }

    fn all_lanes(&self) -> impl Iterator<Item = LaneKey> + '_ {
        core::iter::once(LaneKey::Parent)
            .chain((0..self.lanes.len()).map(|i| LaneKey::Sub(i as u8)))
    }

    /// The lane a tag names: its lane, or a free one to claim for it.
    fn tag_lane(&self, tag: Option<&str>, kind: EventType) -> Result<LaneKey, Error> {
        if let Some(lane) = self.lane_of(tag) {
            return Ok(lane);
        }
        let free = self.lanes.iter().position(|l| l.item.is_none());
        match free {
            Some(i) => Ok(LaneKey::Sub(i as u8)),
            None if self.lanes.len() < Self::LANES => Ok(LaneKey::Sub(self.lanes.len() as u8)),
            None => Err(Error::new(
                Stage::Transform,
                Code::Capacity,
                Some(kind),
                Detail::Capacity {
                    table: Table::Lanes,
                    limit: Self::LANES,
                    field: None,
                    id: error_text(tag.unwrap_or("")),
                },
            )),
        }
    }

    fn owner_name(&self, lane: LaneKey) -> Option<&str> {
        match lane {
            LaneKey::Parent => None,
            LaneKey::Sub(i) => self.lanes.get(usize::from(i)).map(|l| l.owner.as_str()),
        }
    }

    /// Plans a frame's 1.0 expansion without changing any state.
    ///
    /// # Errors
    /// The transform errors of SPEC 9.6 (`chunk_missing_id`,
    /// `chunk_missing_name`, `chunk_owner_mismatch`, `chunk_field_mismatch`,
    /// `chunk_ambiguous`), or `capacity` when no lane is free.
    pub fn plan_v1<const DEPTH: usize, X: Ext<ID, S>>(
        &self,
        head: &Header,
        dec: &Decoder<ID, DEPTH, X, S>,
    ) -> Result<PlanV1, Error> {
        let mut plan = PlanV1 {
            closes: 0,
            closing: heapless::Vec::new(),
            steps: heapless::Vec::new(),
        };
        let frame = LaneStep {
            kind: StepKind::Frame,
            planned: Planned {
                kind: head.kind,
                origin: Origin::Frame,
                id: super::IdFrom::Frame,
            },
        };
        let item = match head.kind.chunking() {
            super::Chunking::Expands(item) => item,
            super::Chunking::Keeps => {
                let _ = plan.steps.push(frame);
                return Ok(plan);
            }
            super::Chunking::EndsAll => {
                for (_, _, item) in self.open_lanes() {
                    let _ = plan.closing.push(item);
                }
                plan.closes = plan.closing.len() as u8;
                let _ = plan.steps.push(frame);
                return Ok(plan);
            }
            super::Chunking::Ends => {
                if let Some(lane) = self.lane_of(dec.tag()) {
                    self.close_lane(&mut plan, lane);
                }
                let _ = plan.steps.push(frame);
                return Ok(plan);
            }
        };
        let lane = self.chunk_lane(item, head, dec)?;
        let names_id = item.id_field().is_some_and(|f| dec.names(f));
        let open = self.item(lane);
        let continues = open.is_some_and(|(it, id)| it == item && (!names_id || id == dec.id()));
        if continues {
            self.check_opener(lane, item, head, dec)?;
        } else {
            if !names_id || (dec.id().is_empty() && item != Item::Reasoning) {
                return Err(chunk_error(Code::ChunkMissingId, head.kind));
            }
            if item == Item::ToolCall && dec.tool_call_name().is_empty() {
                return Err(chunk_error(Code::ChunkMissingName, head.kind));
            }
            self.close_lane(&mut plan, lane);
            let _ = plan.steps.push(LaneStep {
                kind: StepKind::Start(lane),
                planned: Planned {
                    kind: item.start(),
                    origin: Origin::Chunk,
                    id: super::IdFrom::Frame,
                },
            });
        }
        let extra = head.has(Field::Metadata) || head.has(Field::RawEvent);
        if head.has(Field::Delta) || (continues && extra) {
            let _ = plan.steps.push(LaneStep {
                kind: StepKind::Content(lane),
                planned: Planned {
                    kind: item.content(),
                    origin: Origin::Chunk,
                    id: super::IdFrom::Open,
                },
            });
        }
        Ok(plan)
    }

    fn close_lane(&self, plan: &mut PlanV1, lane: LaneKey) {
        if let Some((item, _)) = self.item(lane) {
            let _ = plan.steps.push(LaneStep {
                kind: StepKind::Close(lane),
                planned: Planned {
                    kind: item.end(),
                    origin: Origin::Close,
                    id: super::IdFrom::Open,
                },
            });
        }
    }

    /// The opener fields a chunk would open its item with (hashed).
    fn opener_fields<const DEPTH: usize, X: Ext<ID, S>>(
        item: Item,
        dec: &Decoder<ID, DEPTH, X, S>,
    ) -> [Option<u32>; 2] {
        match item {
            Item::Text => [
                Some(hash(dec.role_text().unwrap_or("assistant"))),
                dec.name().map(hash),
            ],
            Item::ToolCall => [
                dec.tool_call_name_text().map(hash),
                dec.parent_message_id().map(hash),
            ],
            Item::Reasoning => [None, None],
        }
    }

    /// A continuation that repeats an opener field with another value.
    fn check_opener<const DEPTH: usize, X: Ext<ID, S>>(
        &self,
        lane: LaneKey,
        item: Item,
        head: &Header,
        dec: &Decoder<ID, DEPTH, X, S>,
    ) -> Result<(), Error> {
        let opener = self.opener(lane);
        let given: [Option<&str>; 2] = match item {
            Item::Text => [dec.role_text(), dec.name()],
            Item::ToolCall => [dec.tool_call_name_text(), dec.parent_message_id()],
            Item::Reasoning => [None, None],
        };
        for (at, value) in given.iter().enumerate() {
            let (Some(value), Some(Some(recorded))) = (value, opener.fields.get(at)) else {
                continue;
            };
            if hash(value) != *recorded {
                let id = self.item(lane).map_or("", |(_, id)| id);
                return Err(lane_error(
                    Code::ChunkFieldMismatch,
                    head.kind,
                    id,
                    value,
                    "another value",
                ));
            }
        }
        Ok(())
    }

    /// Applies one step's state change before its event is built.
    pub fn advance_v1<const DEPTH: usize, X: Ext<ID, S>>(
        &mut self,
        step: &LaneStep,
        dec: &Decoder<ID, DEPTH, X, S>,
    ) {
        match step.kind {
            // The END's id and owner are read before the lane is emptied:
            // see `id_v1` and `owner_v1`, which the pipeline calls after
            // this; a close only marks the lane closing.
            StepKind::CloseOldest => {
                self.finish_close();
                if let Some((_, lane, _)) = self.open_lanes().first().copied() {
                    self.closing = Some(lane);
                }
            }
            StepKind::Close(lane) => {
                self.finish_close();
                self.closing = Some(lane);
            }
            StepKind::Start(lane) => {
                self.finish_close();
                let item = dec.event_type_known().and_then(Item::of_chunk);
                self.opened = self.opened.saturating_add(1);
                let opener = Opener {
                    fields: item.map_or([None, None], |it| Self::opener_fields(it, dec)),
                    seq: self.opened,
                };
                self.open_lane(lane, item, dec.id(), dec.tag(), opener);
            }
            StepKind::Content(_) | StepKind::Frame => self.finish_close(),
        }
    }

    /// Empties the lane a previous close step marked.
    fn finish_close(&mut self) {
        match self.closing.take() {
            Some(LaneKey::Parent) => self.open = None,
            Some(LaneKey::Sub(i)) => {
                if let Some(l) = self.lanes.get_mut(usize::from(i)) {
                    l.item = None;
                }
            }
            None => {}
        }
    }

    fn open_lane(
        &mut self,
        lane: LaneKey,
        item: Option<Item>,
        id: &str,
        owner: Option<&str>,
        opener: Opener,
    ) {
        let mut slot: S::Str<ID> = Default::default();
        // The decoder's slot has the same capacity as ours.
        let _ = slot.push_str(id);
        match lane {
            LaneKey::Parent => {
                self.open = item;
                self.id = slot;
                self.parent = opener;
            }
            LaneKey::Sub(i) => {
                let mut name: S::Str<ID> = Default::default();
                let _ = name.push_str(owner.unwrap_or(""));
                let lane = Lane {
                    owner: name,
                    item,
                    id: slot,
                    opener,
                };
                match self.lanes.get_mut(usize::from(i)) {
                    Some(l) => *l = lane,
                    // Planned as the next free lane: there is room.
                    None => drop(self.lanes.push(lane)),
                }
            }
        }
    }

    /// The id of a step's event (call after [`advance_v1`](Self::advance_v1)).
    pub fn id_v1<'s, const DEPTH: usize, X: Ext<ID, S>>(
        &'s self,
        step: &LaneStep,
        dec: &'s Decoder<ID, DEPTH, X, S>,
    ) -> &'s str {
        match step.kind {
            StepKind::CloseOldest | StepKind::Close(_) => self
                .closing
                .and_then(|l| self.item(l))
                .map_or("", |(_, id)| id),
            StepKind::Content(lane) => self.item(lane).map_or("", |(_, id)| id),
            StepKind::Start(_) | StepKind::Frame => dec.id(),
        }
    }

    /// The owner of a step's event (SPEC 9.6): the frame's tag; an END
    /// carries its lane's owner, a CONTENT the chunk's tag or its opener's.
    pub fn owner_v1<'s, const DEPTH: usize, X: Ext<ID, S>>(
        &'s self,
        step: &LaneStep,
        dec: &'s Decoder<ID, DEPTH, X, S>,
    ) -> Option<&'s str> {
        match step.kind {
            StepKind::CloseOldest | StepKind::Close(_) => {
                self.closing.and_then(|l| self.owner_name(l))
            }
            StepKind::Content(lane) => dec.tag().or_else(|| self.owner_name(lane)),
            StepKind::Start(_) | StepKind::Frame => dec.tag(),
        }
    }
}

fn lane_error(code: Code, kind: EventType, id: &str, found: &str, recorded: &str) -> Error {
    Error::new(
        Stage::Transform,
        code,
        Some(kind),
        Detail::Mismatch {
            id: cut_text(id),
            found: cut_text(found),
            recorded: cut_text(recorded),
        },
    )
}
