//! Tool calls: `TOOL_CALL_START`, `_ARGS`, `_END` and `_RESULT`, and the
//! arguments kept per tool-call id (partial while they stream, final at
//! END). Their [`Rules`] blocks come last.

use alloc::borrow::{Cow, ToOwned};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use agui_core::decode::Field as F;
use serde_json::Value;

use super::limits::Limit;
use super::limits::{meta_bytes, sum, Delta};
use super::rules::{no_op, opt_len, Given, Rules};
use super::{find_call, merge_metadata, Changed, LimitError, Reducer};
use crate::event::{
    kind, metadata, DecodeError, Effect, Event, ToolCallArgs, ToolCallEnd, ToolCallResult,
    ToolCallStart,
};
use crate::hooks::{Flow, HookView, Subscriber, ToolCallProgress};
use crate::index::CallPos;
use crate::model::{
    AssistantMessage, Dialect, Fields, Message, MessageRole, Object, ToolCall, ToolContent,
    ToolMessage, SUBAGENT_RUN_ID,
};
use crate::partial::PartialArgs;
use crate::readers::DEPTH;
use crate::size::{tool_call_bytes, TOOL_CALL_OVERHEAD};

/// The arguments of one tool call as a value, while the call streams.
///
/// The value shown while the text is not JSON is the *last good* value of
/// that id, which the reference carries across `TOOL_CALL_END`, replayed
/// starts and new calls under the id (vectors `gen-1-38-valid`,
/// `gen-1-179-valid`, ...). Once a call has ended with a text that is one
/// complete JSON document (or no text), its slot is replaced by an
/// [`Ended`] record holding only that text: everything the slot would
/// still tell follows from it (see [`ArgsSlots::release_ended`]).
#[derive(Debug)]
pub(super) struct ArgsSlot {
    /// The partial value of the first `consumed` bytes of the call's text.
    partial: PartialArgs,
    pub(super) consumed: usize,
    /// The arguments at the last `TOOL_CALL_END`.
    final_args: FinalArgs,
    /// Made again from an [`Ended`] record (or for a text that came from
    /// elsewhere): never released again, so that a call reopened over and
    /// over reads its text once, not once per reopening.
    kept: bool,
    /// What the slot is counted as in [`ArgsSlots::bytes`].
    pub(super) charged: usize,
}

/// What is left of a finished call's slot: the text it had read, one
/// complete JSON document (or nothing), whose value is the partial value,
/// the final arguments and any later last good value of the id.
#[derive(Debug)]
pub(super) struct Ended {
    text: Box<str>,
    /// The call's text was replaced since ([`ArgsSlot::rewind`]): the slot
    /// it stands for has read nothing of the new text yet.
    rewound: bool,
}

impl Ended {
    /// The slot this record stands for.
    fn revive(&self) -> ArgsSlot {
        let mut slot = ArgsSlot::new();
        slot.kept = true;
        if self.text.is_empty() {
            slot.final_args = FinalArgs::Owned(empty_args());
        } else {
            slot.partial.push(&self.text);
            slot.consumed = self.text.len();
            slot.final_args = FinalArgs::Partial;
        }
        if self.rewound {
            slot.rewind();
        }
        slot
    }

    /// What the record counts for in [`ArgsSlots::bytes`].
    pub(super) fn charge(&self, id: &str) -> usize {
        ENDED_OVERHEAD
            .saturating_add(id.len())
            .saturating_add(self.text.len())
    }
}

/// The arguments at a tool call's last `TOOL_CALL_END`.
#[derive(Debug)]
enum FinalArgs {
    /// No `TOOL_CALL_END` yet.
    None,
    /// The partial value's complete document ([`PartialArgs::finished`]),
    /// which has not changed since: held once, not copied. Made an owned
    /// copy before the partial value changes again.
    Partial,
    /// Its own value.
    Owned(Value),
}

/// What a slot is counted as besides its text: the slot, its map entry
/// and the partial value's fixed parts, with the allocator's share.
pub(crate) const SLOT_OVERHEAD: usize = core::mem::size_of::<ArgsSlot>() + 256;

/// What an [`Ended`] record is counted as besides its id and text: its map
/// entry and the allocator's share of its two strings.
pub(crate) const ENDED_OVERHEAD: usize = 128;

/// How many times a slot counts the call's text: the partial value's copy
/// of it, the value tree built from it, and a final value of its own.
const SLOT_TEXT_COPIES: usize = 3;

impl ArgsSlot {
    pub(super) fn new() -> Self {
        ArgsSlot {
            partial: PartialArgs::new(),
            consumed: 0,
            final_args: FinalArgs::None,
            kept: false,
            charged: 0,
        }
    }

    /// The arguments at the last `TOOL_CALL_END`.
    fn final_args(&self) -> Option<&Value> {
        match &self.final_args {
            FinalArgs::None => None,
            FinalArgs::Partial => self.partial.finished(),
            FinalArgs::Owned(value) => Some(value),
        }
    }

    /// The partial value, about to change: final arguments that are still
    /// its document get their own copy first.
    fn partial_mut(&mut self) -> &mut PartialArgs {
        if let FinalArgs::Partial = self.final_args {
            let value = self.partial.finished().cloned().unwrap_or_else(empty_args);
            self.final_args = FinalArgs::Owned(value);
        }
        &mut self.partial
    }

    /// Forgets the text read so far (keeping the last good value): the
    /// call's text was replaced, so the next [`ArgsSlot::sync`] reads it
    /// whole.
    pub(super) fn rewind(&mut self) {
        self.partial_mut().restart("");
        self.consumed = 0;
    }

    /// Brings the partial value up to `text`, the call's whole arguments
    /// text. Normally `text` only grew by the last delta since the slot saw
    /// it, so only that delta is read; a text that does not fit (shorter, or
    /// cut inside a character) is read whole.
    fn sync(&mut self, text: &str) {
        let rest = match text.get(self.consumed..) {
            Some(rest) => rest,
            None => {
                self.rewind();
                text
            }
        };
        if !rest.is_empty() {
            self.partial_mut().push(rest);
            self.consumed = text.len();
        }
    }

    /// Whether an [`Ended`] record of `text` (the call's whole text) would
    /// stand for this slot: the slot read the text whole, it is one
    /// complete document (its value is then the partial value, the final
    /// arguments and any later last good value) or empty and never read,
    /// and the final arguments are those of the text.
    fn ends_as(&self, text: &str) -> bool {
        if self.kept || self.consumed != text.len() {
            return false;
        }
        match &self.final_args {
            FinalArgs::Partial => self.partial.is_complete(),
            FinalArgs::Owned(value) => {
                text.is_empty() && self.partial.is_fresh() && *value == empty_args()
            }
            FinalArgs::None => false,
        }
    }

    /// What the slot counts for: see [`SLOT_OVERHEAD`].
    pub(super) fn charge(&self, id: &str) -> usize {
        SLOT_OVERHEAD
            .saturating_add(id.len())
            .saturating_add(self.consumed.saturating_mul(SLOT_TEXT_COPIES))
    }
}

/// The argument slots by tool-call id, the [`Ended`] records, and the
/// bytes they count for. The slot used last is kept out of the map: deltas
/// name the same tool call one after another, and each delta looks its
/// slot up several times (hook, fold), so that most look-ups are one
/// string compare. An id has a slot or a record, never both.
#[derive(Debug, Default)]
pub(super) struct ArgsSlots {
    /// The slot used last, with its id.
    hot: Option<(String, ArgsSlot)>,
    /// The other slots.
    cold: BTreeMap<String, ArgsSlot>,
    /// What is left of the slots of finished calls.
    ended: BTreeMap<String, Ended>,
    /// What the slots and records count for, kept up to date.
    bytes: usize,
    /// The id of the call a `TOOL_CALL_END` just ended (valid when
    /// `just_ended` is set): its slot is released, if it can be, before
    /// the next event, once the END's hooks and trace have read it.
    ended_id: String,
    just_ended: bool,
}

impl ArgsSlots {
    fn is_hot(&self, id: &str) -> bool {
        matches!(&self.hot, Some((key, _)) if key == id)
    }

    /// The bytes the slots and records count for (see [`SLOT_OVERHEAD`],
    /// [`ENDED_OVERHEAD`]).
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    fn get(&self, id: &str) -> Option<&ArgsSlot> {
        match &self.hot {
            Some((key, slot)) if key == id => Some(slot),
            Some(_) | None => self.cold.get(id),
        }
    }

    /// The record of `id`, if its call ended and its slot was released.
    fn get_ended(&self, id: &str) -> Option<&Ended> {
        self.ended.get(id)
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut ArgsSlot> {
        if let Some((key, slot)) = &mut self.hot {
            if key == id {
                return Some(slot);
            }
        }
        self.cold.get_mut(id)
    }

    /// Makes the slot of `id` live again from its record, if it has one.
    fn revive(&mut self, id: &str) {
        if let Some((key, ended)) = self.ended.remove_entry(id) {
            self.bytes = self.bytes.saturating_sub(ended.charge(&key));
            let mut slot = ended.revive();
            self.bytes = recount(self.bytes, &key, &mut slot);
            self.cold.insert(key, slot);
        }
    }

    /// Rewinds the slot of `id` ([`ArgsSlot::rewind`]), or marks its
    /// record rewound.
    pub(super) fn rewind(&mut self, id: &str) {
        if let Some(ended) = self.ended.get_mut(id) {
            ended.rewound = true;
            return;
        }
        self.update(id, ArgsSlot::rewind);
    }

    /// Runs `change` on the slot of `id`, if any (made live from its record
    /// first), and counts it again.
    pub(super) fn update(&mut self, id: &str, change: impl FnOnce(&mut ArgsSlot)) {
        self.revive(id);
        let mut bytes = self.bytes;
        if let Some(slot) = self.get_mut(id) {
            change(slot);
            bytes = recount(bytes, id, slot);
        }
        self.bytes = bytes;
    }

    /// Runs `change` on the slot of `id`, made if missing (from its record
    /// if it has one; it becomes the hot one), and counts it again.
    /// `had_text`: the call held arguments before this event; a slot made
    /// for such a call is kept for good (see [`ArgsSlot::kept`]).
    fn with_slot(&mut self, id: &str, had_text: bool, change: impl FnOnce(&mut ArgsSlot)) {
        if !self.is_hot(id) {
            self.revive(id);
            let entry = self.cold.remove_entry(id).unwrap_or_else(|| {
                let mut slot = ArgsSlot::new();
                slot.kept = had_text;
                (id.to_owned(), slot)
            });
            if let Some((key, slot)) = self.hot.replace(entry) {
                self.cold.insert(key, slot);
            }
        }
        let mut bytes = self.bytes;
        if let Some((_, slot)) = self.hot.as_mut() {
            change(slot);
            bytes = recount(bytes, id, slot);
        }
        self.bytes = bytes;
    }

    pub(super) fn remove(&mut self, id: &str) {
        let slot = if self.is_hot(id) {
            self.hot.take().map(|(_, slot)| slot)
        } else {
            self.cold.remove(id)
        };
        let mut freed = slot.map_or(0, |slot| slot.charged);
        if let Some(ended) = self.ended.remove(id) {
            freed = freed.saturating_add(ended.charge(id));
        }
        self.bytes = self.bytes.saturating_sub(freed);
    }

    pub(super) fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        let mut freed = 0usize;
        if let Some((key, slot)) = &self.hot {
            if !keep(key) {
                freed = slot.charged;
                self.hot = None;
            }
        }
        self.cold.retain(|key, slot| {
            let kept = keep(key);
            if !kept {
                freed = freed.saturating_add(slot.charged);
            }
            kept
        });
        self.ended.retain(|key, ended| {
            let kept = keep(key);
            if !kept {
                freed = freed.saturating_add(ended.charge(key));
            }
            kept
        });
        self.bytes = self.bytes.saturating_sub(freed);
    }

    /// Rewinds every slot and record (the texts were replaced as a whole).
    pub(super) fn rewind_all(&mut self) {
        let hot = self.hot.iter_mut().map(|(k, s)| (&*k, s));
        let mut bytes = self.bytes;
        for (key, slot) in hot.chain(self.cold.iter_mut()) {
            slot.rewind();
            bytes = recount(bytes, key, slot);
        }
        self.bytes = bytes;
        for ended in self.ended.values_mut() {
            ended.rewound = true;
        }
    }

    /// Notes that call `id` just ended: see [`release_ended`](Self::release_ended).
    fn ended(&mut self, id: &str) {
        self.ended_id.clear();
        self.ended_id.push_str(id);
        self.just_ended = true;
    }

    /// Replaces the slot of the call that ended last by an [`Ended`]
    /// record, if one stands for it (see [`ArgsSlot::ends_as`]); `text`
    /// gives the text of the first call with an id. Run before each event,
    /// so that the END's hooks and trace still read the slot.
    pub(super) fn release_ended<'m>(&mut self, text: impl FnOnce(&str) -> Option<&'m str>) {
        if !core::mem::take(&mut self.just_ended) {
            return;
        }
        let id = core::mem::take(&mut self.ended_id);
        let ends = match (self.get(&id), text(&id)) {
            (Some(slot), Some(text)) => slot.ends_as(text).then(|| Box::<str>::from(text)),
            (Some(_) | None, None) | (None, Some(_)) => None,
        };
        if let Some(text) = ends {
            self.remove(&id);
            let ended = Ended {
                text,
                rewound: false,
            };
            self.bytes = self.bytes.saturating_add(ended.charge(&id));
            self.ended.insert(id.clone(), ended);
        }
        self.ended_id = id;
    }

    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &ArgsSlot)> {
        self.hot
            .iter()
            .map(|(key, slot)| (key, slot))
            .chain(self.cold.iter())
    }

    #[cfg(test)]
    pub(super) fn records(&self) -> impl Iterator<Item = (&String, &Ended)> {
        self.ended.iter()
    }
}

/// `bytes` with `slot` (of `id`) counted again after a change.
fn recount(bytes: usize, id: &str, slot: &mut ArgsSlot) -> usize {
    let charge = slot.charge(id);
    let bytes = bytes.saturating_sub(slot.charged).saturating_add(charge);
    slot.charged = charge;
    bytes
}

impl Reducer {
    /// The partial arguments after the tool call's last `TOOL_CALL_ARGS`
    /// (SPEC section 5, "Partial tool arguments"). `None` before any.
    ///
    /// Borrowed while the call streams; once a finished call's slot was
    /// released (see [`Reducer::final_args`]) the value is read again from
    /// the text it kept, in time proportional to that text.
    pub fn partial_args(&self, tool_call_id: &str) -> Option<Cow<'_, Value>> {
        if let Some(ended) = self.args.get_ended(tool_call_id) {
            let slot = ended.revive();
            return (ended.rewound || !ended.text.is_empty())
                .then(|| Cow::Owned(slot.partial.value().clone()));
        }
        let slot = self.args.get(tool_call_id)?;
        Some(Cow::Borrowed(slot.partial.value()))
    }

    /// The arguments at the tool call's last `TOOL_CALL_END`: its text
    /// parsed, or `{}` if that does not parse.
    ///
    /// A finished call whose text is one complete document (or empty)
    /// keeps only that text once the next event comes (not the parsed
    /// value, nor the partial value's state): its final arguments are then
    /// that text parsed again, in time proportional to the text.
    pub fn final_args(&self, tool_call_id: &str) -> Option<Cow<'_, Value>> {
        if let Some(ended) = self.args.get_ended(tool_call_id) {
            return ended.revive().final_args().cloned().map(Cow::Owned);
        }
        self.args.get(tool_call_id)?.final_args().map(Cow::Borrowed)
    }

    /// What a slot made for call `id` would add, at most: a new one, or
    /// one made live again from its record (which reads the text it kept).
    fn new_slot_bytes(&self, id: &str) -> usize {
        match (self.args.get(id), self.args.get_ended(id)) {
            (Some(_), _) => 0,
            (None, Some(ended)) => {
                let text = ended.text.len().saturating_mul(SLOT_TEXT_COPIES);
                SLOT_OVERHEAD.saturating_add(id.len()).saturating_add(text)
            }
            (None, None) => SLOT_OVERHEAD.saturating_add(id.len()),
        }
    }

    /// The partial value of `id`'s slot, if it has one (what the hooks and
    /// the trace show, while the slot still exists).
    fn slot_partial(&self, id: &str) -> Option<&Value> {
        self.args.get(id).map(|slot| slot.partial.value())
    }

    /// The final arguments in `id`'s slot, if it has one.
    fn slot_final(&self, id: &str) -> Option<&Value> {
        self.args.get(id)?.final_args()
    }

    /// Before each event: frees the slot of the call that the last event
    /// ended, if it can be made again from the call's text.
    pub(super) fn release_ended_args(&mut self) {
        let (messages, index) = (&self.messages, &self.index);
        self.args.release_ended(|id| {
            find_call(messages, index, id).map(|call| call.function.arguments.as_str())
        });
    }

    /// At `TOOL_CALL_END`, the call's arguments as they are now: an
    /// observation of the call, recorded whatever the hooks decide.
    // Inlined: a type test on every applied event's hot path.
    #[inline(always)]
    pub(super) fn record_final_args(&mut self, event: &Event) {
        if let Event::ToolCallEnd(end) = event {
            self.finish_args(&end.tool_call_id);
        }
    }

    /// The tool-call hooks' view of call `id` with arguments `args`.
    fn progress<'a>(&'a self, id: &str, args: Option<&'a Value>) -> ToolCallProgress<'a> {
        let call = self.tool_call(id);
        ToolCallProgress {
            name: call.map_or("", |c| c.function.name.as_str()),
            buffer: call.map_or("", |c| c.function.arguments.as_str()),
            args: args.filter(|_| call.is_some()).unwrap_or(&self.no_args),
        }
    }

    fn tool_call_adds_message(&self, e: &ToolCallStart) -> bool {
        if self.tool_call(&e.tool_call_id).is_some() {
            return false;
        }
        let parent = e.parent_message_id.as_deref().filter(|p| !p.is_empty());
        let owner = parent.and_then(|p| self.message(p));
        !matches!(owner, Some(Message::Assistant(_)))
    }

    fn tool_call_start(&mut self, e: &ToolCallStart) -> Changed {
        if self.dialect == Dialect::V1 {
            self.run_calls.start(&e.tool_call_id);
        }
        if let Some(call) = self.tool_call_mut(&e.tool_call_id) {
            // A replayed start: no new entry.
            let renamed = call.function.name != e.tool_call_name;
            let mut delta = Delta::default();
            if renamed {
                delta = Delta {
                    plus: e.tool_call_name.len(),
                    minus: call.function.name.len(),
                };
                call.function.name.clone_from(&e.tool_call_name);
            }
            if let Some(metadata) = &e.metadata {
                delta += merge_metadata(&mut call.metadata, metadata);
            }
            self.held(delta);
            return Changed::messages_if(renamed || e.metadata.is_some());
        }
        let owner = self.tool_call_owner(e);
        let mut call = ToolCall::new(e.tool_call_id.as_str(), e.tool_call_name.as_str());
        call.metadata.clone_from(&e.metadata);
        let Some(calls) = self.messages.get_mut(owner).and_then(|m| match m {
            Message::Assistant(a) => Some(a.tool_calls.get_or_insert_with(Vec::new)),
            Message::Developer(_)
            | Message::System(_)
            | Message::User(_)
            | Message::Tool(_)
            | Message::Activity(_)
            | Message::Reasoning(_) => None,
        }) else {
            return Changed::NONE;
        };
        let at = CallPos {
            message: owner,
            call: calls.len(),
        };
        let bytes = tool_call_bytes(&call);
        calls.push(call);
        self.held(Delta::plus(bytes));
        self.index.call_pushed(&e.tool_call_id, at);
        // A new call under an id seen before: its text starts over.
        self.args.rewind(&e.tool_call_id);
        Changed::MESSAGES
    }

    /// The assistant message that gets a new tool call; appends one if needed.
    fn tool_call_owner(&mut self, e: &ToolCallStart) -> usize {
        let parent = e.parent_message_id.as_deref().filter(|p| !p.is_empty());
        let new_id = match parent {
            Some(parent) => match self.index.message(parent) {
                Some(pos)
                    if self.messages.get(pos).map(Message::role)
                        == Some(MessageRole::Assistant) =>
                {
                    return pos;
                }
                Some(_) => e.tool_call_id.as_str(),
                None => parent,
            },
            None => e.tool_call_id.as_str(),
        };
        // A new assistant message takes the call's owner (AG-UI 1.0); an
        // existing parent keeps its own.
        self.push_message(Message::Assistant(AssistantMessage {
            id: new_id.to_owned(),
            tool_calls: Some(Vec::new()),
            subagent_run_id: e.subagent_run_id.clone(),
            ..Default::default()
        }))
    }

    /// Check stage of TOOL_CALL_ARGS: the delta may not nest the call's
    /// arguments deeper than the client's JSON depth, where the partial
    /// value could only stop following the text (see
    /// [`PartialArgs::too_deep_after`]). A streaming call's slot is read
    /// as it is; any other (a finished call's record, a replaced text) is
    /// made from the text first, as the hook stage would make it.
    pub(super) fn check_args_depth(&self, id: &str, delta: &str) -> Result<(), LimitError> {
        let Some(call) = find_call(&self.messages, &self.index, id) else {
            return Ok(());
        };
        let text = call.function.arguments.as_str();
        let too_deep = match self.args.get(id) {
            Some(slot) if slot.consumed == text.len() => slot.partial.too_deep_after(delta),
            Some(_) | None => {
                let mut partial = PartialArgs::new();
                partial.push(text);
                partial.too_deep_after(delta)
            }
        };
        if too_deep {
            return Err(LimitError::new(
                Limit::ArgumentsDepth,
                DEPTH,
                DEPTH.saturating_add(1),
            ));
        }
        Ok(())
    }

    /// Hook stage of TOOL_CALL_ARGS: advance the partial value by the delta
    /// (the default handling then appends the same delta to the text).
    pub(super) fn push_partial(&mut self, id: &str, delta: &str) {
        let Some(call) = find_call(&self.messages, &self.index, id) else {
            return;
        };
        let text = call.function.arguments.as_str();
        self.args.with_slot(id, !text.is_empty(), |slot| {
            slot.sync(text);
            slot.partial_mut().push(delta);
            slot.consumed = slot.consumed.saturating_add(delta.len());
        });
    }

    fn tool_call_args(&mut self, e: &ToolCallArgs) -> Changed {
        let Some(at) = self.index.tool_call(&e.tool_call_id) else {
            return Changed::NONE;
        };
        let Some(call) = self
            .messages
            .get_mut(at.message)
            .and_then(Message::tool_calls_mut)
            .and_then(|calls| calls.get_mut(at.call))
        else {
            return Changed::NONE;
        };
        call.function.arguments.push_str(&e.delta);
        let mut delta = Delta::plus(e.delta.len());
        if let Some(metadata) = &e.metadata {
            delta += merge_metadata(&mut call.metadata, metadata);
        }
        self.text_bytes = self
            .text_bytes
            .saturating_add(delta.plus)
            .saturating_sub(delta.minus);
        // Normally nothing to read: the hook stage pushed this delta.
        let text = call.function.arguments.as_str();
        let had_text = text.len() > e.delta.len();
        self.args
            .with_slot(&e.tool_call_id, had_text, |slot| slot.sync(text));
        Changed::MESSAGES
    }

    /// Records the arguments at TOOL_CALL_END: the text parsed, or `{}`.
    fn finish_args(&mut self, id: &str) {
        let Some(call) = find_call(&self.messages, &self.index, id) else {
            return;
        };
        let text = call.function.arguments.as_str();
        self.args.with_slot(id, !text.is_empty(), |slot| {
            // The partial value has read exactly the text unless the text
            // came from elsewhere (a snapshot, the run input) and no delta
            // followed.
            slot.final_args = if slot.consumed != text.len() {
                FinalArgs::Owned(parse_args(text))
            } else if slot.partial.finished().is_some() {
                // Shared with the partial value until that changes.
                FinalArgs::Partial
            } else {
                FinalArgs::Owned(empty_args())
            };
        });
        // Freed before the next event if it can be made again.
        self.args.ended(id);
    }

    /// TOOL_CALL_END: merges its metadata into the call.
    fn tool_call_end(&mut self, e: &ToolCallEnd) -> Changed {
        match (self.tool_call_mut(&e.tool_call_id), &e.metadata) {
            (Some(call), Some(metadata)) => {
                let delta = merge_metadata(&mut call.metadata, metadata);
                self.held(delta);
                Changed::MESSAGES
            }
            _ => Changed::NONE,
        }
    }

    fn tool_call_result(&mut self, e: &ToolCallResult, subscriber: &mut dyn Subscriber) -> Changed {
        if self.dialect == Dialect::V1 {
            self.run_calls.answer(&e.tool_call_id);
        }
        let message = Message::Tool(ToolMessage {
            id: e.message_id.clone(),
            content: e.content.clone(),
            tool_call_id: e.tool_call_id.clone(),
            metadata: e.metadata.clone(),
            subagent_run_id: e.subagent_run_id.clone(),
            ..Default::default()
        });
        let pos = match self.index.tool_call(&e.tool_call_id) {
            None => self.push_message(message),
            Some(owner) => {
                // Right after the owner, past the results already there, so
                // parallel results keep their arrival order. The index
                // remembers where the last result after this owner went, so
                // each result is looked past once, not at every new one.
                let last = self.index.last_result(owner.message);
                let mut pos = last.unwrap_or(owner.message).saturating_add(1);
                while self.messages.get(pos).map(Message::role) == Some(MessageRole::Tool) {
                    pos = pos.saturating_add(1);
                }
                let pos = self.insert_message(pos, message);
                self.index.result_inserted(owner.message, pos);
                pos
            }
        };
        if let Some(message) = self.messages.get(pos) {
            subscriber.on_new_message(message);
        }
        Changed::MESSAGES
    }
}

/// A tool call's arguments text parsed, or `{}` if it does not parse.
/// Read as the reference's `JSON.parse` reads it (see [`crate::value`]).
fn parse_args(text: &str) -> Value {
    crate::value::parse(text.as_bytes()).unwrap_or_else(|_| empty_args())
}

/// `{}`: the arguments of a text that does not parse.
fn empty_args() -> Value {
    Value::Object(Object::new())
}

// ---------------------------------------------------------------------------
// The decisions about tool calls (see `rules.rs`).

/// The trace's arguments value of tool call `id`, when the call is in the
/// messages and the value exists.
fn args_shown<'r>(
    r: &'r Reducer,
    key: &'static str,
    id: &str,
    value: Option<&'r Value>,
) -> Option<(&'static str, &'r Value)> {
    r.tool_call(id)?;
    Some((key, value?))
}

impl Rules for kind::ToolCallStart {
    type Payload = ToolCallStart;
    fn decode(f: Fields<'_>) -> Result<ToolCallStart, DecodeError> {
        Ok(ToolCallStart {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            tool_call_name: f.string(F::ToolCallName.as_str())?,
            parent_message_id: f.nullable_string(F::ParentMessageId.as_str())?,
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &ToolCallStart, r: &Reducer) -> (usize, usize) {
        // The id is held twice: by the call and by the index.
        let owner = e.parent_message_id.as_ref().map_or(0, String::len);
        let adds = r.tool_call_adds_message(e);
        // A new assistant message holds the call's 1.0 owner tag too, and
        // its id (the parent's or the call's) twice.
        let (tag, message_id) = if adds {
            let id = owner.max(e.tool_call_id.len()).saturating_mul(2);
            (opt_len(&e.subagent_run_id), id)
        } else {
            (0, 0)
        };
        let bytes = sum(&[
            e.tool_call_id.len().saturating_mul(2),
            TOOL_CALL_OVERHEAD,
            message_id,
            owner,
            e.tool_call_name.len(),
            meta_bytes(&e.metadata),
            tag,
            r.run_calls_growth_start(&e.tool_call_id),
        ]);
        (usize::from(adds), bytes)
    }
    fn hook(e: &ToolCallStart, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_tool_call_start(e, v)
    }
    fn reduce(given: Given<'_, ToolCallStart>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.tool_call_start(e)
    }
    fn effect(e: &ToolCallStart) -> Effect<'_> {
        Effect::ToolCallStarted(&e.tool_call_id)
    }
    no_op!(check, notify, trace_args);
}

impl Rules for kind::ToolCallArgs {
    type Payload = ToolCallArgs;
    fn decode(f: Fields<'_>) -> Result<ToolCallArgs, DecodeError> {
        Ok(ToolCallArgs {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            delta: f.string(F::Delta.as_str())?,
            metadata: metadata(f)?,
        })
    }
    fn growth(e: &ToolCallArgs, r: &Reducer) -> (usize, usize) {
        // The delta is held by the call and counted by its slot too.
        let slot = e.delta.len().saturating_mul(SLOT_TEXT_COPIES);
        let parts = [
            e.delta.len(),
            slot,
            r.new_slot_bytes(&e.tool_call_id),
            meta_bytes(&e.metadata),
        ];
        (0, sum(&parts))
    }
    fn check(e: &ToolCallArgs, r: &mut Reducer, _: usize) -> Result<(), LimitError> {
        r.check_args_depth(&e.tool_call_id, &e.delta)
    }
    fn hook(e: &ToolCallArgs, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        let id = &e.tool_call_id;
        s.on_tool_call_args(e, &r.progress(id, r.slot_partial(id)), v)
    }
    fn reduce(given: Given<'_, ToolCallArgs>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.tool_call_args(e)
    }
    fn trace_args<'r>(e: &ToolCallArgs, r: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        let id = &e.tool_call_id;
        args_shown(r, "partialArgs", id, r.slot_partial(id))
    }
    fn effect(_: &ToolCallArgs) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(notify);
}

impl Rules for kind::ToolCallEnd {
    type Payload = ToolCallEnd;
    fn decode(f: Fields<'_>) -> Result<ToolCallEnd, DecodeError> {
        Ok(ToolCallEnd {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            metadata: metadata(f)?,
        })
    }
    fn growth(e: &ToolCallEnd, r: &Reducer) -> (usize, usize) {
        // A call that had no delta gets its slot at its END.
        let slot = r.new_slot_bytes(&e.tool_call_id);
        (0, sum(&[slot, meta_bytes(&e.metadata)]))
    }
    fn hook(e: &ToolCallEnd, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        let id = &e.tool_call_id;
        s.on_tool_call_end(e, &r.progress(id, r.slot_final(id)), v)
    }
    fn reduce(given: Given<'_, ToolCallEnd>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.tool_call_end(e)
    }
    fn notify(e: &ToolCallEnd, r: &Reducer, s: &mut dyn Subscriber) {
        if let Some(call) = r.tool_call(&e.tool_call_id) {
            s.on_new_tool_call(call);
        }
    }
    fn trace_args<'r>(e: &ToolCallEnd, r: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        let id = &e.tool_call_id;
        args_shown(r, "args", id, r.slot_final(id))
    }
    fn effect(_: &ToolCallEnd) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(check);
}

impl Rules for kind::ToolCallResult {
    type Payload = ToolCallResult;
    fn decode(f: Fields<'_>) -> Result<ToolCallResult, DecodeError> {
        if f.get(F::Role.as_str()).is_some() {
            f.literal(F::Role.as_str(), "tool")?;
        }
        Ok(ToolCallResult {
            message_id: f.string(F::MessageId.as_str())?,
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            content: match f.dialect() {
                Dialect::Current => ToolContent::Text(f.string(F::Content.as_str())?),
                Dialect::V1 => crate::model::content(f, Dialect::V1)?,
            },
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &ToolCallResult, r: &Reducer) -> (usize, usize) {
        let parts = [
            // The message's id and the index's copy.
            e.message_id.len().saturating_mul(2),
            e.tool_call_id.len(),
            crate::size::user_content_bytes(&e.content),
            meta_bytes(&e.metadata),
            opt_len(&e.subagent_run_id),
            r.run_calls_growth_answer(&e.tool_call_id),
        ];
        (1, sum(&parts))
    }
    fn hook(e: &ToolCallResult, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_tool_call_result(e, v)
    }
    fn reduce(
        given: Given<'_, ToolCallResult>,
        r: &mut Reducer,
        s: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        r.tool_call_result(e, s)
    }
    fn effect(_: &ToolCallResult) -> Effect<'_> {
        Effect::ToolResult
    }
    no_op!(check, notify, trace_args);
}
