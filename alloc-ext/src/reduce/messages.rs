//! Text messages (`TEXT_MESSAGE_*`, and the text of reasoning messages)
//! and the message list as a whole (`MESSAGES_SNAPSHOT`, the edit-merge of
//! SPEC section 5). Their [`Rules`] blocks come last.

use alloc::borrow::ToOwned;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::mem;

use agui_core::decode::Field as F;
use agui_core::event::EventType;

use super::limits::{meta_bytes, sum, Delta, Limit, LimitError};
use super::rules::{no_op, opt_len, Given, Rules, NO_GROWTH};
use super::{merge_metadata, owned_by, Changed, FoldWarning, FoldWarningKind, Reducer};
use crate::event::{
    check_metadata, content, end, kind, metadata, text_role, ActivityAuthority, DecodeError,
    Effect, MessageContent, MessageEnd, MessagesSnapshot, TextMessageStart,
};
use crate::hooks::{Flow, HookView, Subscriber};
use crate::index::{remove_sorted, Class};
use crate::model::{Dialect, Fields, Message, MessageRole, Object, SUBAGENT_RUN_ID};
use crate::size::{content_bytes, message_bytes, string_bytes, Size};

impl Reducer {
    /// The growth of a TEXT / REASONING_MESSAGE_START: a new message's id
    /// and name; an existing one only merges metadata.
    pub(super) fn start_growth(
        &self,
        id: &str,
        name: Option<&String>,
        metadata: &Option<Object>,
    ) -> (usize, usize) {
        let new = self.absent(id);
        // The id twice: the message's and the index's copy.
        let own = if new == 1 {
            sum(&[id.len().saturating_mul(2), name.map_or(0, String::len)])
        } else {
            0
        };
        (new, own.saturating_add(meta_bytes(metadata)))
    }

    /// The text of message `id` (`""` if it has none), as the typed hooks
    /// of text and reasoning messages get it.
    pub(super) fn text_of(&self, id: &str) -> &str {
        self.message(id).and_then(Message::text).unwrap_or("")
    }

    /// TEXT_MESSAGE_START: a text message with the event's role and name.
    fn text_message_start(&mut self, e: &TextMessageStart) -> Changed {
        let role = MessageRole::from(e.role);
        let make = || {
            let message = Message::new_text(e.message_id.as_str(), role, e.name.clone());
            owned_by(message, &e.subagent_run_id)
        };
        self.message_start(&e.message_id, make, e.metadata.as_ref())
    }

    /// TEXT_MESSAGE_START / REASONING_MESSAGE_START: find or append, merge metadata.
    pub(super) fn message_start(
        &mut self,
        id: &str,
        make: impl FnOnce() -> Message,
        metadata: Option<&Object>,
    ) -> Changed {
        let (pos, created) = match self.index.message(id) {
            Some(pos) => (pos, false),
            None => (self.push_message(make()), true),
        };
        let merged = match (self.messages.get_mut(pos), metadata) {
            (Some(message), Some(metadata)) => {
                Some(merge_metadata(message.metadata_mut(), metadata))
            }
            _ => None,
        };
        if let Some(delta) = merged {
            self.held(delta);
        }
        Changed::messages_if(created || merged.is_some())
    }

    /// TEXT_MESSAGE_CONTENT / REASONING_MESSAGE_CONTENT: append in place;
    /// a change even for an empty delta.
    pub(super) fn message_content(&mut self, e: &MessageContent) -> Changed {
        let Some(message) = self.message_mut(&e.message_id) else {
            return Changed::NONE;
        };
        // Content that is not text is replaced by the delta; it is dropped,
        // so measuring it costs no more than dropping it.
        let replaced = message.text().is_none();
        let before = if replaced { content_bytes(message) } else { 0 };
        message.append_text(&e.delta);
        let is_activity = matches!(message, Message::Activity(_));
        let mut delta = if replaced {
            Delta {
                plus: content_bytes(message),
                minus: before,
            }
        } else if is_activity {
            // Activity content is JSON: the delta counts with its escapes.
            Delta::plus(string_bytes(&e.delta).saturating_sub(2))
        } else {
            Delta::plus(e.delta.len())
        };
        if let Some(metadata) = &e.metadata {
            delta += merge_metadata(message.metadata_mut(), metadata);
        }
        self.held(delta);
        if is_activity {
            // The kept size follows the text (now a JSON string, depth 0).
            let grown = if replaced {
                0
            } else {
                string_bytes(&e.delta).saturating_sub(2)
            };
            match self.activity_sizes.get_mut(e.message_id.as_str()) {
                Some(size) if !replaced => size.bytes = size.bytes.saturating_add(grown),
                _ => {
                    let now = Size {
                        bytes: string_bytes(&e.delta),
                        depth: 0,
                    };
                    if replaced {
                        self.activity_sizes.insert(e.message_id.clone(), now);
                    }
                }
            }
        }
        Changed::MESSAGES
    }

    /// TEXT_MESSAGE_END / REASONING_MESSAGE_END: only metadata.
    /// AG-UI 1.0 (SPEC 9.8): a text or reasoning message event whose id
    /// is an activity message changes nothing; a warning says so. `false`
    /// in the current protocol, where the text goes into the activity.
    #[inline(always)]
    pub(super) fn ignores_activity_text(&mut self, id: &str, event: EventType) -> bool {
        self.dialect == Dialect::V1 && self.activity_text(id, event)
    }

    /// [`ignores_activity_text`](Self::ignores_activity_text) in 1.0.
    fn activity_text(&mut self, id: &str, event: EventType) -> bool {
        let is_activity = self
            .index
            .message(id)
            .and_then(|pos| self.messages.get(pos))
            .is_some_and(|m| m.role() == MessageRole::Activity);
        if is_activity {
            self.warning = Some(FoldWarning {
                event,
                kind: FoldWarningKind::ActivityText {
                    message_id: id.to_owned(),
                },
            });
        }
        is_activity
    }

    pub(super) fn message_end(&mut self, e: &MessageEnd) -> Changed {
        match (self.message_mut(&e.message_id), &e.metadata) {
            (Some(message), Some(metadata)) => {
                let delta = merge_metadata(message.metadata_mut(), metadata);
                self.held(delta);
                Changed::MESSAGES
            }
            _ => Changed::NONE,
        }
    }

    /// MESSAGES_SNAPSHOT: the messages and bytes after it, exactly.
    fn check_messages_snapshot(
        &self,
        messages: &[Message],
        authority: &ActivityAuthority,
    ) -> Result<(), LimitError> {
        let limits = &self.limits;
        let (count, bytes) = self.snapshot_size(messages, authority);
        if count > limits.max_messages {
            return Err(LimitError::new(Limit::Messages, limits.max_messages, count));
        }
        if bytes > limits.max_message_bytes {
            let max = limits.max_message_bytes;
            return Err(LimitError::new(Limit::MessageBytes, max, bytes));
        }
        Ok(())
    }

    /// What a `MESSAGES_SNAPSHOT` does to the list (the edit-merge of SPEC
    /// section 5), found in time proportional to the snapshot and to the
    /// local messages it removes or replaces, never to the ones it keeps:
    /// local messages with a snapshot entry's id are found by looking the
    /// ids up, and only the local messages the snapshot speaks for as a
    /// whole (each of which it removes or replaces) are walked. Client-only
    /// messages (activity and reasoning messages when the snapshot has none
    /// of their role, or in 1.0 activities of types it is not authoritative
    /// for) are not even looked at unless an entry names them.
    fn plan_snapshot(&self, snapshot: &[Message], authority: &ActivityAuthority) -> Merge {
        let has = |role| snapshot.iter().any(|m| m.role() == role);
        let (has_activity, has_reasoning) =
            (has(MessageRole::Activity), has(MessageRole::Reasoning));
        let v1 = self.dialect == Dialect::V1;
        // The classes a same-id entry replaces in: those of the roles the
        // snapshot carries; in 1.0 every class (a kept client-only message
        // with a same-id entry is replaced, SPEC 9.8).
        let replaces = |class: Class| match class {
            Class::Other => true,
            Class::Activity => has_activity || v1,
            Class::Reasoning => has_reasoning || v1,
        };
        // Later entries overwrite earlier ones: the last entry per id wins.
        let last: BTreeMap<&str, usize> = snapshot
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id(), i))
            .collect();
        let mut merge = Merge::default();
        for (&id, &entry) in &last {
            for pos in self.index.positions_with_id(id) {
                let local = self.messages.get(pos).map(Class::of);
                if local.is_some_and(replaces) {
                    merge.replace.push((pos, entry));
                }
            }
        }
        // The local messages the snapshot speaks for: removed unless an
        // entry has their id.
        let mut omitted = |positions: &mut dyn Iterator<Item = usize>| {
            for pos in positions {
                let kept = self
                    .messages
                    .get(pos)
                    .is_none_or(|m| last.contains_key(m.id()));
                if !kept {
                    merge.remove.push(pos);
                }
            }
        };
        omitted(&mut self.index.positions_of(Class::Other));
        if has_reasoning {
            omitted(&mut self.index.positions_of(Class::Reasoning));
        }
        let activities = replaces(Class::Activity);
        match authority {
            ActivityAuthority::Unstated if !has_activity => {}
            ActivityAuthority::Unstated | ActivityAuthority::All if activities => {
                omitted(&mut self.index.positions_of(Class::Activity));
            }
            ActivityAuthority::Types(types) if activities => {
                let distinct: BTreeSet<&str> = types.iter().map(String::as_str).collect();
                for activity_type in distinct {
                    omitted(&mut self.index.positions_of_activity_type(activity_type));
                }
            }
            ActivityAuthority::Unstated | ActivityAuthority::All | ActivityAuthority::Types(_) => {}
        }
        merge.remove.sort_unstable();
        // A snapshot entry is added unless a local message with its id stays
        // (replaced by it, or kept as client-only).
        merge.append = (0..snapshot.len())
            .filter(|&i| {
                snapshot
                    .get(i)
                    .is_some_and(|m| !self.index.has_message(m.id()))
            })
            .collect();
        merge
    }

    /// Count and bytes of the messages after a `MESSAGES_SNAPSHOT`. What it
    /// takes out is measured only here and when it is dropped; when the
    /// snapshot is refused, that is less than what the snapshot brings.
    fn snapshot_size(&self, snapshot: &[Message], authority: &ActivityAuthority) -> (usize, usize) {
        let merge = self.plan_snapshot(snapshot, authority);
        let local = |pos: &usize| self.messages.get(*pos).map_or(0, message_bytes);
        let entry = |i: &usize| snapshot.get(*i).map_or(0, message_bytes);
        let sum = |it: &mut dyn Iterator<Item = usize>| it.fold(0usize, usize::saturating_add);
        let taken = sum(&mut merge.remove.iter().map(local))
            .saturating_add(sum(&mut merge.replace.iter().map(|(p, _)| local(p))));
        let brought = sum(&mut merge.replace.iter().map(|(_, i)| entry(i)))
            .saturating_add(sum(&mut merge.append.iter().map(entry)));
        let count = self
            .messages
            .len()
            .saturating_sub(merge.remove.len())
            .saturating_add(merge.append.len());
        let bytes = self
            .text_bytes
            .saturating_sub(taken)
            .saturating_add(brought)
            .saturating_add(self.run_calls.bytes)
            .saturating_add(self.args.bytes());
        (count, bytes)
    }

    /// MESSAGES_SNAPSHOT: the edit-merge of SPEC section 5, done in place
    /// (see `plan_snapshot`): replaced messages are overwritten where they
    /// are, removed ones taken out in one pass from the first of them, new
    /// ones appended.
    fn messages_snapshot(&mut self, snapshot: &[Message], authority: &ActivityAuthority) {
        let merge = self.plan_snapshot(snapshot, authority);
        self.merge_snapshot(&merge, |entry| snapshot.get(entry).cloned());
    }

    /// The same with a snapshot the caller gives up: each entry is moved
    /// into the list at its last use (cloned before that, for the rare
    /// entry that replaces several local messages), so that a large
    /// snapshot is not held twice.
    fn messages_snapshot_owned(
        &mut self,
        snapshot: &mut Vec<Message>,
        authority: &ActivityAuthority,
    ) {
        let merge = self.plan_snapshot(snapshot, authority);
        let mut uses = alloc::vec![0u32; snapshot.len()];
        let used = merge.replace.iter().map(|&(_, entry)| entry);
        for entry in used.chain(merge.append.iter().copied()) {
            if let Some(count) = uses.get_mut(entry) {
                *count = count.saturating_add(1);
            }
        }
        let mut slots: Vec<Option<Message>> = mem::take(snapshot).into_iter().map(Some).collect();
        self.merge_snapshot(&merge, |entry| {
            let left = uses.get_mut(entry)?;
            *left = left.saturating_sub(1);
            let slot = slots.get_mut(entry)?;
            if *left == 0 {
                slot.take()
            } else {
                slot.clone()
            }
        });
    }

    /// Carries out a planned merge; `entry(i)` gives snapshot entry `i`.
    fn merge_snapshot(&mut self, merge: &Merge, mut entry: impl FnMut(usize) -> Option<Message>) {
        let mut delta = Delta::default();
        for &(pos, at) in &merge.replace {
            let (Some(new), true) = (entry(at), pos < self.messages.len()) else {
                continue;
            };
            let plus = message_bytes(&new);
            let Some(slot) = self.messages.get_mut(pos) else {
                continue;
            };
            let old = mem::replace(slot, new);
            delta += Delta {
                plus,
                minus: message_bytes(&old),
            };
            if let Some(new) = self.messages.get(pos) {
                self.index.replaced(pos, &old, new);
            }
            self.forget(&old);
            self.forget_at(pos);
        }
        for &pos in &merge.remove {
            if let Some(old) = self.messages.get(pos) {
                delta.minus = delta.minus.saturating_add(message_bytes(old));
            }
        }
        self.index.remove(&merge.remove, &self.messages);
        for old in remove_sorted(&mut self.messages, &merge.remove) {
            self.forget(&old);
        }
        self.held(delta);
        for &at in &merge.append {
            if let Some(new) = entry(at) {
                let pos = self.push_message(new);
                self.forget_at(pos);
            }
        }
    }
}

/// The edit-merge of one `MESSAGES_SNAPSHOT` (see `Reducer::plan_snapshot`).
#[derive(Debug, Default)]
struct Merge {
    /// Local positions overwritten, with the snapshot entry that overwrites them.
    replace: Vec<(usize, usize)>,
    /// Local positions removed, sorted.
    remove: Vec<usize>,
    /// Snapshot entries appended, in order.
    append: Vec<usize>,
}

// ---------------------------------------------------------------------------
// The decisions about text messages and the message list (see `rules.rs`).

/// A CONTENT event's growth: its delta and metadata.
pub(super) fn content_growth(e: &MessageContent) -> (usize, usize) {
    (0, sum(&[e.delta.len(), meta_bytes(&e.metadata)]))
}

/// An END event's growth: its metadata.
pub(super) fn end_growth(e: &MessageEnd) -> (usize, usize) {
    (0, meta_bytes(&e.metadata))
}

/// An END event of a message notifies the message as new.
pub(super) fn notify_message(id: &str, r: &Reducer, s: &mut dyn Subscriber) {
    if let Some(message) = r.message(id) {
        s.on_new_message(message);
    }
}

impl Rules for kind::TextMessageStart {
    type Payload = TextMessageStart;
    fn decode(f: Fields<'_>) -> Result<TextMessageStart, DecodeError> {
        Ok(TextMessageStart {
            message_id: f.string(F::MessageId.as_str())?,
            role: text_role(f)?,
            name: f.opt_string(F::Name.as_str())?,
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &TextMessageStart, r: &Reducer) -> (usize, usize) {
        let (n, bytes) = r.start_growth(&e.message_id, e.name.as_ref(), &e.metadata);
        (n, bytes.saturating_add(opt_len(&e.subagent_run_id)))
    }
    fn hook(
        e: &TextMessageStart,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_text_message_start(e, v)
    }
    fn reduce(
        given: Given<'_, TextMessageStart>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::TextMessageStart) {
            return Changed::NONE;
        }
        r.text_message_start(e)
    }
    fn effect(_: &TextMessageStart) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(check, notify, trace_args);
}

impl Rules for kind::TextMessageContent {
    type Payload = MessageContent;
    fn decode(f: Fields<'_>) -> Result<MessageContent, DecodeError> {
        content(f)
    }
    fn growth(e: &MessageContent, _: &Reducer) -> (usize, usize) {
        content_growth(e)
    }
    fn hook(e: &MessageContent, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_text_message_content(e, r.text_of(&e.message_id), v)
    }
    fn reduce(
        given: Given<'_, MessageContent>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::TextMessageContent) {
            return Changed::NONE;
        }
        r.message_content(e)
    }
    fn effect(_: &MessageContent) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(check, notify, trace_args);
}

impl Rules for kind::TextMessageEnd {
    type Payload = MessageEnd;
    fn decode(f: Fields<'_>) -> Result<MessageEnd, DecodeError> {
        end(f)
    }
    fn growth(e: &MessageEnd, _: &Reducer) -> (usize, usize) {
        end_growth(e)
    }
    fn hook(e: &MessageEnd, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_text_message_end(e, r.text_of(&e.message_id), v)
    }
    fn reduce(given: Given<'_, MessageEnd>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::TextMessageEnd) {
            return Changed::NONE;
        }
        r.message_end(e)
    }
    fn notify(e: &MessageEnd, r: &Reducer, s: &mut dyn Subscriber) {
        notify_message(&e.message_id, r, s);
    }
    fn effect(_: &MessageEnd) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(check, trace_args);
}

impl Rules for kind::MessagesSnapshot {
    type Payload = MessagesSnapshot;
    fn decode(f: Fields<'_>) -> Result<MessagesSnapshot, DecodeError> {
        check_metadata(f)?;
        let dialect = f.dialect();
        Ok(MessagesSnapshot {
            messages: f.list(F::Messages.as_str(), |m| Message::from_json_in(m, dialect))?,
            activity_authority: match dialect {
                Dialect::V1 => ActivityAuthority::from_metadata(f.get(F::Metadata.as_str())),
                Dialect::Current => ActivityAuthority::Unstated,
            },
        })
    }
    fn growth(_: &MessagesSnapshot, _: &Reducer) -> (usize, usize) {
        // Checked exactly by `check`.
        NO_GROWTH
    }
    fn check(e: &MessagesSnapshot, r: &mut Reducer, _: usize) -> Result<(), LimitError> {
        r.check_messages_snapshot(&e.messages, &e.activity_authority)
    }
    fn hook(
        e: &MessagesSnapshot,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_messages_snapshot(e, v)
    }
    fn reduce(
        given: Given<'_, MessagesSnapshot>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        match given {
            Given::Shared(e) => r.messages_snapshot(&e.messages, &e.activity_authority),
            Given::Owned(e) => r.messages_snapshot_owned(&mut e.messages, &e.activity_authority),
        }
        Changed::MESSAGES
    }
    fn effect(_: &MessagesSnapshot) -> Effect<'_> {
        Effect::MessagesReplaced
    }
    no_op!(notify, trace_args);
}
