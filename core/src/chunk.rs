//! Chunk expansion: `*_CHUNK` shorthand to explicit START / CONTENT / END.
//!
//! A producer may send `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` or
//! `REASONING_MESSAGE_CHUNK` instead of the explicit events. The expander
//! holds at most one *open chunked item* and turns each frame into at most
//! three events (SPEC section 3):
//!
//! 1. the END of the open item, when this frame closes it;
//! 2. a START, when the chunk opens a new item;
//! 3. a CONTENT / ARGS with the chunk's `delta` — or the frame's own event
//!    when it is not a chunk.
//!
//! Any event except a chunk, `RAW`, `ACTIVITY_*` and
//! `REASONING_ENCRYPTED_VALUE` closes the open item. At end of input the
//! open item stays open (no END is made). A chunk error emits nothing from
//! its frame and leaves the expander as it was.

use crate::decode::{Decoder, Ext, Field, Header};
use crate::error::{Code, Detail, Error, Stage};
use crate::event::{EventType, Origin};
use crate::store::{Fixed, IdText as _, Seq as _, Store};

mod lanes;
pub use crate::spec::{Chunking, Item};
pub use lanes::{LaneKey, LaneStep, PlanV1, StepKind};

/// Which event of a chunked item a chunk makes (besides the END of a close).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkPart {
    /// The START (a first chunk).
    Start,
    /// The CONTENT or ARGS, with the chunk's `delta`.
    Content,
}

impl Item {
    /// The item a `*_CHUNK` event expands to, if `kind` is one.
    pub const fn of_chunk(kind: EventType) -> Option<Item> {
        match kind.chunking() {
            Chunking::Expands(item) => Some(item),
            Chunking::Ends | Chunking::EndsAll | Chunking::Keeps => None,
        }
    }

    /// The three kinds of chunked item.
    pub const ALL: [Item; 3] = [Item::Text, Item::ToolCall, Item::Reasoning];

    /// The field naming the item: its START's id field.
    const fn id_field(self) -> Option<Field> {
        self.start().id_field()
    }

    /// The `*_CHUNK` event type of the item.
    pub const fn chunk(self) -> EventType {
        match self {
            Item::Text => EventType::TextMessageChunk,
            Item::ToolCall => EventType::ToolCallChunk,
            Item::Reasoning => EventType::ReasoningMessageChunk,
        }
    }

    /// The item and its part (START or CONTENT / ARGS) that chunk
    /// expansion makes as `kind`, if it makes `kind` at all.
    pub fn part_of(kind: EventType) -> Option<(Item, ChunkPart)> {
        Item::ALL.into_iter().find_map(|item| {
            if item.start() == kind {
                Some((item, ChunkPart::Start))
            } else if item.content() == kind {
                Some((item, ChunkPart::Content))
            } else {
                None
            }
        })
    }

    /// The item whose END `kind` is, if any.
    pub fn ended_by(kind: EventType) -> Option<Item> {
        Item::ALL.into_iter().find(|item| item.end() == kind)
    }

    /// The item's START event type.
    pub const fn start(self) -> EventType {
        match self {
            Item::Text => EventType::TextMessageStart,
            Item::ToolCall => EventType::ToolCallStart,
            Item::Reasoning => EventType::ReasoningMessageStart,
        }
    }

    /// The item's CONTENT (ARGS) event type.
    pub const fn content(self) -> EventType {
        match self {
            Item::Text => EventType::TextMessageContent,
            Item::ToolCall => EventType::ToolCallArgs,
            Item::Reasoning => EventType::ReasoningMessageContent,
        }
    }

    /// The item's END event type.
    pub const fn end(self) -> EventType {
        match self {
            Item::Text => EventType::TextMessageEnd,
            Item::ToolCall => EventType::ToolCallEnd,
            Item::Reasoning => EventType::ReasoningMessageEnd,
        }
    }
}

/// Where an expanded event's id comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdFrom {
    /// The expander's open item.
    Open,
    /// The frame.
    Frame,
}

/// One event of a frame's expansion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    /// The event type.
    pub kind: EventType,
    /// Frame, chunk or close.
    pub origin: Origin,
    /// Where its id is read.
    pub id: IdFrom,
}

/// The events one frame expands to, in order (at most three).
pub type Plan = heapless::Vec<Planned, 3>;

/// The chunk expander; `ID` is the id capacity in bytes, `AGENTS` the
/// number of sub-agent lanes (1.0, SPEC 9.6; the parent agent's lane is
/// the one open item of the current protocol).
#[derive(Debug, Clone, Default)]
pub struct Chunker<const ID: usize = 64, const AGENTS: usize = 0, S: Store = Fixed> {
    open: Option<Item>,
    id: S::Str<ID>,
    /// 1.0: the parent lane's opener fields and age.
    parent: lanes::Opener,
    /// 1.0: the sub-agents' lanes.
    lanes: S::Vec<lanes::Lane<ID, S>, AGENTS>,
    /// 1.0: lanes opened so far (orders them).
    opened: u32,
    /// 1.0: the lane a close step is ending (emptied at the next step).
    closing: Option<LaneKey>,
}

impl<const ID: usize, const AGENTS: usize, S: Store> Chunker<ID, AGENTS, S> {
    /// An expander with no open item.
    pub fn new() -> Self {
        Chunker {
            open: None,
            id: Default::default(),
            parent: lanes::Opener::NONE,
            lanes: Default::default(),
            opened: 0,
            closing: None,
        }
    }

    /// The open chunked item and its id, if any.
    pub fn open_item(&self) -> Option<(Item, &str)> {
        self.open.map(|item| (item, self.id.as_str()))
    }

    /// Forgets the open items.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Plans the expansion of a decoded frame without changing any state.
    ///
    /// # Errors
    /// `chunk_missing_id` / `chunk_missing_name` (transform stage) for a
    /// first chunk without its id or tool-call name.
    pub fn plan<const DEPTH: usize, X: Ext<ID, S>>(
        &self,
        head: &Header,
        dec: &Decoder<ID, DEPTH, X, S>,
    ) -> Result<Plan, Error> {
        let mut plan = Plan::new();
        let item = match head.kind.chunking() {
            Chunking::Expands(item) => item,
            Chunking::Keeps => {
                push(&mut plan, head.kind, Origin::Frame, IdFrom::Frame);
                return Ok(plan);
            }
            Chunking::Ends | Chunking::EndsAll => {
                self.push_close(&mut plan);
                push(&mut plan, head.kind, Origin::Frame, IdFrom::Frame);
                return Ok(plan);
            }
        };
        let frame_id = dec.id();
        let names_id = item.id_field().is_some_and(|f| dec.has_text(f));
        let differs = names_id
            && !frame_id.eq(self.id.as_str())
            && !(item == Item::Reasoning && frame_id.is_empty());
        let continues = self.open == Some(item) && !differs;
        if !continues {
            // A first chunk needs a (non-empty) id, and a tool call its name.
            if frame_id.is_empty() {
                return Err(chunk_error(Code::ChunkMissingId, head.kind));
            }
            if item == Item::ToolCall && dec.tool_call_name().is_empty() {
                return Err(chunk_error(Code::ChunkMissingName, head.kind));
            }
            self.push_close(&mut plan);
            push(&mut plan, item.start(), Origin::Chunk, IdFrom::Frame);
        }
        let has_delta = head.has(Field::Delta);
        if has_delta || (continues && head.has(Field::Metadata)) {
            push(&mut plan, item.content(), Origin::Chunk, IdFrom::Open);
        }
        Ok(plan)
    }

    fn push_close(&self, plan: &mut Plan) {
        if let Some(open) = self.open {
            push(plan, open.end(), Origin::Close, IdFrom::Open);
        }
    }

    /// Applies the state change of one planned step, before its event is
    /// built: a close forgets the open item, a chunk START opens the frame's.
    #[inline]
    pub fn advance<const DEPTH: usize, X: Ext<ID, S>>(
        &mut self,
        step: &Planned,
        dec: &Decoder<ID, DEPTH, X, S>,
    ) {
        match step.origin {
            Origin::Close => self.open = None,
            Origin::Chunk if step.id == IdFrom::Frame => {
                // Only a chunk frame plans a START of its own item.
                self.open = dec.event_type_known().and_then(Item::of_chunk);
                self.id.clear();
                // The decoder's slot has the same capacity as ours.
                let _ = self.id.push_str(dec.id());
            }
            Origin::Frame | Origin::Chunk => {}
        }
    }

    /// The bytes the expander keeps beside its own size (0 in the fixed
    /// store): its id slot and the sub-agents' lanes (at most 8).
    pub fn heap_bytes(&self) -> usize {
        self.lanes
            .iter()
            .fold(self.id.heap_bytes(), |n, l| {
                n.saturating_add(l.heap_bytes())
            })
            .saturating_add(self.lanes.heap_bytes())
    }

    /// The id for a step: the open item's, or the frame's.
    pub fn id<'s, const DEPTH: usize, X: Ext<ID, S>>(
        &'s self,
        step: &Planned,
        dec: &'s Decoder<ID, DEPTH, X, S>,
    ) -> &'s str {
        match step.id {
            IdFrom::Open => &self.id,
            IdFrom::Frame => dec.id(),
        }
    }
}

fn push(plan: &mut Plan, kind: EventType, origin: Origin, id: IdFrom) {
    // At most three steps are ever planned: close, start, content.
    let _ = plan.push(Planned { kind, origin, id });
}

fn chunk_error(code: Code, kind: EventType) -> Error {
    Error::new(Stage::Transform, code, Some(kind), Detail::None)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    extern crate std;

    use super::*;
    use crate::event::EventType as T;
    use std::string::{String, ToString};
    use std::vec::Vec;

    /// One frame's expansion: (kind, origin, id) per event, or the code.
    type Expansion = Result<Vec<(T, Origin, String)>, Code>;

    /// Expands `frames` one after the other, as the pipeline does.
    fn expand(frames: &[&str]) -> Vec<Expansion> {
        let mut dec: Decoder<16, 8> = Decoder::new();
        let mut chunker: Chunker<16> = Chunker::new();
        let mut out = Vec::new();
        for frame in frames {
            let mut rest = frame.as_bytes();
            while !rest.is_empty() {
                let (used, _) = dec.feed(rest).unwrap();
                rest = &rest[used..];
            }
            let head = dec.end_frame().unwrap();
            out.push(chunker.plan(&head, &dec).map_err(|e| e.code).map(|plan| {
                plan.iter()
                    .map(|step| {
                        chunker.advance(step, &dec);
                        (step.kind, step.origin, chunker.id(step, &dec).to_string())
                    })
                    .collect()
            }));
        }
        out
    }

    fn ok(events: &[(T, Origin, &str)]) -> Expansion {
        Ok(events
            .iter()
            .map(|&(k, o, id)| (k, o, id.to_string()))
            .collect())
    }

    const TEXT_M: &str = r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}"#;
    const TEXT_MORE: &str = r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"b"}"#;

    /// SPEC section 3, one row per rule: the frames, and the last one's
    /// expansion.
    #[test]
    fn chunk_rules() {
        use Origin::{Chunk, Close, Frame};
        let rows: &[(&[&str], Expansion)] = &[
            // A first chunk opens its item and carries its delta.
            (
                &[TEXT_M],
                ok(&[
                    (T::TextMessageStart, Chunk, "m"),
                    (T::TextMessageContent, Chunk, "m"),
                ]),
            ),
            // The next chunk without an id continues it.
            (
                &[TEXT_M, TEXT_MORE],
                ok(&[(T::TextMessageContent, Chunk, "m")]),
            ),
            // A chunk naming another id closes the open item first.
            (
                &[TEXT_M, r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"n"}"#],
                ok(&[
                    (T::TextMessageEnd, Close, "m"),
                    (T::TextMessageStart, Chunk, "n"),
                ]),
            ),
            // Any other event closes it too ...
            (
                &[TEXT_M, r#"{"type":"CUSTOM","name":"x"}"#],
                ok(&[(T::TextMessageEnd, Close, "m"), (T::Custom, Frame, "")]),
            ),
            // ... except those whose chunking is Keeps.
            (
                &[TEXT_M, r#"{"type":"RAW","event":{}}"#],
                ok(&[(T::Raw, Frame, "")]),
            ),
            // A first chunk needs an id, and a tool call its name.
            (&[TEXT_MORE], Err(Code::ChunkMissingId)),
            (
                &[r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c"}"#],
                Err(Code::ChunkMissingName),
            ),
            (
                &[r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","delta":"{"}"#],
                ok(&[
                    (T::ToolCallStart, Chunk, "c"),
                    (T::ToolCallArgs, Chunk, "c"),
                ]),
            ),
            // A reasoning chunk with an empty id continues the open one.
            (
                &[
                    r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"r","delta":"a"}"#,
                    r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"","delta":"b"}"#,
                ],
                ok(&[(T::ReasoningMessageContent, Chunk, "r")]),
            ),
            // Metadata alone makes a content event only for a continuation.
            (
                &[TEXT_M, r#"{"type":"TEXT_MESSAGE_CHUNK","metadata":{}}"#],
                ok(&[(T::TextMessageContent, Chunk, "m")]),
            ),
        ];
        for (frames, want) in rows {
            assert_eq!(expand(frames).last().unwrap(), want, "{frames:?}");
        }
    }

    /// Every event type has a chunking decision; exactly the three chunk
    /// types expand, to items whose START / CONTENT / END share its id field.
    #[test]
    fn the_table_names_the_chunk_types() {
        for &kind in EventType::ALL {
            match kind.chunking() {
                Chunking::Expands(item) => {
                    assert!(kind.is_chunk(), "{kind}");
                    assert_eq!(kind.id_field(), item.start().id_field(), "{kind}");
                    assert_eq!(item.content().id_field(), item.end().id_field(), "{kind}");
                }
                Chunking::Ends | Chunking::EndsAll | Chunking::Keeps => {
                    assert!(!kind.is_chunk(), "{kind}")
                }
            }
        }
    }
}
