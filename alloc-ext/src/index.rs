//! The reducer's index of the message list: where the first message and
//! the first tool call with a given id are, which messages a
//! `MESSAGES_SNAPSHOT` may touch, and where the last tool result after an
//! assistant message went.
//!
//! Every message has a *handle* that stays the same while other messages
//! are inserted or removed around it; the index records handles, and one
//! array maps a handle to its position. Inserting a tool result in the
//! middle of the list therefore updates that array for the messages after
//! it (a tight loop next to the `Vec::insert` that moves them anyway), not
//! one map entry per moved message, and a snapshot that removes or replaces
//! a few messages updates the entries of those messages only.

use alloc::borrow::ToOwned;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use crate::model::{Message, MessageRole};

/// A message's handle.
type Handle = u32;

/// A tool call: its message's handle and its place in that message's calls.
type CallAt = (Handle, usize);

/// Position of a tool call: its message, and its place in that message's `toolCalls`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct CallPos {
    pub(crate) message: usize,
    pub(crate) call: usize,
}

/// The role classes a `MESSAGES_SNAPSHOT` treats differently: activity and
/// reasoning messages are kept when the snapshot has none of their role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Activity = 0,
    Reasoning = 1,
    Other = 2,
}

impl Class {
    pub(crate) fn of(message: &Message) -> Class {
        match message.role() {
            MessageRole::Activity => Class::Activity,
            MessageRole::Reasoning => Class::Reasoning,
            MessageRole::Developer
            | MessageRole::System
            | MessageRole::Assistant
            | MessageRole::User
            | MessageRole::Tool => Class::Other,
        }
    }
}

/// See the [module docs](self).
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// Position of each handle (`FREE` when unused).
    position: Vec<u32>,
    /// Handle of each position: parallel to the message list.
    handles: Vec<Handle>,
    /// Handles no message uses, for reuse (so the tables stay as large as
    /// the list, not as the history).
    free: Vec<Handle>,
    /// Every message with an id, in list order (the first is the one the
    /// protocol's events address).
    messages: BTreeMap<String, Vec<Handle>>,
    /// Every tool call with an id, in list order.
    tool_calls: BTreeMap<String, Vec<CallAt>>,
    /// Handles by [`Class`].
    classes: [BTreeSet<Handle>; 3],
    /// The activity messages by `activityType`: a snapshot that is
    /// authoritative for some types only looks at those (AG-UI 1.0).
    activity_types: BTreeMap<String, BTreeSet<Handle>>,
    /// Per assistant message, the tool result last inserted after it and
    /// the generation it was recorded in (see [`Index::last_result`]).
    results: BTreeMap<Handle, (Handle, u64)>,
    /// Bumped whenever a recorded result may no longer end its run of
    /// tool messages.
    generation: u64,
    /// The last message id looked up and its first handle: a stream's
    /// deltas name the same message one after another, so most look-ups
    /// compare one id instead of walking the map. Handles do not move when
    /// messages do; the entry is dropped whenever an id's list changes.
    last_message: RefCell<LastId<Handle>>,
    /// The same for tool-call ids.
    last_call: RefCell<LastId<CallAt>>,
}

/// One remembered look-up: `id` found at `at` (valid when `at` is `Some`).
/// The id's buffer is kept and reused, so remembering allocates only when
/// an id is longer than any before.
#[derive(Debug, Default)]
struct LastId<T> {
    id: String,
    at: Option<T>,
}

impl<T: Copy> LastId<T> {
    fn get(&self, id: &str) -> Option<T> {
        self.at.filter(|_| self.id == id)
    }

    fn set(&mut self, id: &str, at: T) {
        self.id.clear();
        self.id.push_str(id);
        self.at = Some(at);
    }
}

const FREE: u32 = u32::MAX;

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(FREE)
}

impl Index {
    /// The first message with this id.
    pub(crate) fn message(&self, id: &str) -> Option<usize> {
        if let Some(handle) = self.last_message.borrow().get(id) {
            return self.position_of(handle);
        }
        let handle = *self.messages.get(id)?.first()?;
        self.last_message.borrow_mut().set(id, handle);
        self.position_of(handle)
    }

    /// The first tool call with this id.
    pub(crate) fn tool_call(&self, id: &str) -> Option<CallPos> {
        let cached = self.last_call.borrow().get(id);
        let (handle, call) = match cached {
            Some(at) => at,
            None => {
                let at = *self.tool_calls.get(id)?.first()?;
                self.last_call.borrow_mut().set(id, at);
                at
            }
        };
        Some(CallPos {
            message: self.position_of(handle)?,
            call,
        })
    }

    /// Whether any message has this id.
    pub(crate) fn has_message(&self, id: &str) -> bool {
        self.messages.contains_key(id)
    }

    /// How many distinct message ids and tool-call ids there are.
    #[cfg(test)]
    pub(crate) fn id_counts(&self) -> (usize, usize) {
        (self.messages.len(), self.tool_calls.len())
    }

    /// Positions of the messages of a class, in no particular order.
    pub(crate) fn positions_of(&self, class: Class) -> impl Iterator<Item = usize> + '_ {
        self.classes
            .get(class as usize)
            .into_iter()
            .flatten()
            .filter_map(|h| self.position_of(*h))
    }

    /// The positions of the activity messages of `activity_type`.
    pub(crate) fn positions_of_activity_type(
        &self,
        activity_type: &str,
    ) -> impl Iterator<Item = usize> + '_ {
        let set = self.activity_types.get(activity_type).into_iter();
        set.flatten().filter_map(|h| self.position_of(*h))
    }

    /// The positions of every message with `id`, in list order.
    pub(crate) fn positions_with_id(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        let list = self.messages.get(id).into_iter().flatten();
        list.filter_map(|h| self.position_of(*h))
    }

    fn position_of(&self, handle: Handle) -> Option<usize> {
        let at = *self.position.get(handle as usize)?;
        (at != FREE).then_some(at as usize)
    }

    fn handle_at(&self, pos: usize) -> Option<Handle> {
        self.handles.get(pos).copied()
    }

    fn new_handle(&mut self, pos: usize) -> Handle {
        match self.free.pop() {
            Some(handle) => {
                if let Some(slot) = self.position.get_mut(handle as usize) {
                    *slot = to_u32(pos);
                }
                handle
            }
            None => {
                self.position.push(to_u32(pos));
                to_u32(self.position.len().saturating_sub(1))
            }
        }
    }

    /// Everything again, for a list replaced as a whole.
    pub(crate) fn rebuild(&mut self, messages: &[Message]) {
        *self = Index {
            generation: self.generation.wrapping_add(1),
            ..Index::default()
        };
        for message in messages {
            self.pushed(message);
        }
    }

    /// Records a message appended to the list.
    pub(crate) fn pushed(&mut self, message: &Message) {
        let pos = self.handles.len();
        let handle = self.new_handle(pos);
        self.handles.push(handle);
        self.add_entries(handle, message);
    }

    /// Records a message inserted at `pos`: the messages after it moved one
    /// place on.
    pub(crate) fn inserted(&mut self, pos: usize, message: &Message) {
        let handle = self.new_handle(pos);
        let pos = pos.min(self.handles.len());
        self.handles.insert(pos, handle);
        self.renumber(pos);
        self.add_entries(handle, message);
    }

    /// Records that the message at `pos` was overwritten: `old` by `new`.
    pub(crate) fn replaced(&mut self, pos: usize, old: &Message, new: &Message) {
        let Some(handle) = self.handle_at(pos) else {
            return;
        };
        if old.id() == new.id() && Class::of(old) == Class::of(new) {
            // The message keeps its place in its id's list and its class:
            // only its tool calls and activity type can change. (Taking it
            // out of the id's list and putting it back walks that list, and
            // the same for its tool calls' lists: with many local messages
            // of one id, each of which a snapshot entry replaces, a snapshot
            // would cost their number squared.)
            let same_calls = old
                .tool_calls()
                .iter()
                .map(|c| &c.id)
                .eq(new.tool_calls().iter().map(|c| &c.id));
            if !same_calls {
                self.remove_calls(handle, old);
                self.add_calls(handle, new);
            }
            if let (Message::Activity(a), Message::Activity(b)) = (old, new) {
                self.untype(handle, &a.activity_type);
                self.typed(handle, &b.activity_type);
            }
        } else {
            self.remove_entries(handle, old);
            self.add_entries(handle, new);
        }
        // A tool message overwritten inside a run of results ends the run.
        self.generation = self.generation.wrapping_add(1);
    }

    /// The activity message at `pos` changed its `activityType` from `old`
    /// to `new` in place.
    pub(crate) fn retyped(&mut self, pos: usize, old: &str, new: &str) {
        if let Some(handle) = self.handle_at(pos) {
            self.untype(handle, old);
            self.typed(handle, new);
        }
    }

    /// Records a tool call appended to the calls of the message at `pos`.
    pub(crate) fn call_pushed(&mut self, id: &str, at: CallPos) {
        let Some(handle) = self.handle_at(at.message) else {
            return;
        };
        self.add_call(id, (handle, at.call));
    }

    /// Removes the messages at the sorted positions `doomed` from the index
    /// (`messages` is the list before their removal), then renumbers the
    /// ones after the first of them. The caller removes them from the list.
    pub(crate) fn remove(&mut self, doomed: &[usize], messages: &[Message]) {
        let Some(&first) = doomed.first() else {
            return;
        };
        for &pos in doomed {
            if let (Some(handle), Some(message)) = (self.handle_at(pos), messages.get(pos)) {
                self.remove_entries(handle, message);
                if let Some(slot) = self.position.get_mut(handle as usize) {
                    *slot = FREE;
                }
                self.free.push(handle);
                self.results.remove(&handle);
            }
        }
        remove_sorted(&mut self.handles, doomed);
        self.renumber(first);
        self.generation = self.generation.wrapping_add(1);
    }

    /// The tool result last inserted after the assistant message at
    /// `owner`, if it still ends the run of tool messages that follows it.
    pub(crate) fn last_result(&self, owner: usize) -> Option<usize> {
        let handle = self.handle_at(owner)?;
        let (result, generation) = *self.results.get(&handle)?;
        let at = self.position_of(result)?;
        (generation == self.generation && at > owner).then_some(at)
    }

    /// Records the tool result at `result`, inserted after `owner`.
    pub(crate) fn result_inserted(&mut self, owner: usize, result: usize) {
        if let (Some(owner), Some(result)) = (self.handle_at(owner), self.handle_at(result)) {
            self.results.insert(owner, (result, self.generation));
        }
    }

    /// Positions from `from` on moved: record their new places.
    fn renumber(&mut self, from: usize) {
        let tail = self.handles.iter().enumerate().skip(from);
        for (pos, &handle) in tail {
            if let Some(slot) = self.position.get_mut(handle as usize) {
                *slot = to_u32(pos);
            }
        }
    }

    /// Forgets the remembered look-ups: an id's list is about to change.
    fn forget_last(&mut self) {
        self.last_message.get_mut().at = None;
        self.last_call.get_mut().at = None;
    }

    fn add_entries(&mut self, handle: Handle, message: &Message) {
        self.forget_last();
        let key = self.position_of(handle).unwrap_or(usize::MAX);
        let list = self.messages.entry(message.id().to_owned()).or_default();
        let at = list.partition_point(|h| {
            let p = self.position.get(*h as usize).copied().unwrap_or(FREE);
            (p as usize) < key
        });
        list.insert(at, handle);
        self.add_calls(handle, message);
        if let Some(set) = self.classes.get_mut(Class::of(message) as usize) {
            set.insert(handle);
        }
        if let Message::Activity(a) = message {
            self.typed(handle, &a.activity_type);
        }
    }

    fn remove_entries(&mut self, handle: Handle, message: &Message) {
        self.forget_last();
        if let Some(list) = self.messages.get_mut(message.id()) {
            list.retain(|h| *h != handle);
            if list.is_empty() {
                self.messages.remove(message.id());
            }
        }
        self.remove_calls(handle, message);
        if let Some(set) = self.classes.get_mut(Class::of(message) as usize) {
            set.remove(&handle);
        }
        if let Message::Activity(a) = message {
            self.untype(handle, &a.activity_type);
        }
    }

    /// Adds the tool calls of `message` (at `handle`).
    fn add_calls(&mut self, handle: Handle, message: &Message) {
        for (call, tool_call) in message.tool_calls().iter().enumerate() {
            self.add_call(&tool_call.id, (handle, call));
        }
    }

    /// Takes the tool calls of `message` (at `handle`) out.
    fn remove_calls(&mut self, handle: Handle, message: &Message) {
        self.forget_last();
        for (call, tool_call) in message.tool_calls().iter().enumerate() {
            let id = tool_call.id.as_str();
            if let Some(list) = self.tool_calls.get_mut(id) {
                list.retain(|c| *c != (handle, call));
                if list.is_empty() {
                    self.tool_calls.remove(id);
                }
            }
        }
    }

    /// Files the activity message at `handle` under `activity_type`.
    fn typed(&mut self, handle: Handle, activity_type: &str) {
        let set = self
            .activity_types
            .entry(activity_type.to_owned())
            .or_default();
        set.insert(handle);
    }

    /// Takes the activity message at `handle` out of `activity_type`'s set.
    fn untype(&mut self, handle: Handle, activity_type: &str) {
        if let Some(set) = self.activity_types.get_mut(activity_type) {
            set.remove(&handle);
            if set.is_empty() {
                self.activity_types.remove(activity_type);
            }
        }
    }

    /// Adds a tool call where it belongs in its id's list (by position,
    /// then place in the message).
    fn add_call(&mut self, id: &str, at: CallAt) {
        self.forget_last();
        let position = &self.position;
        let key = |(h, c): &CallAt| {
            let p = position.get(*h as usize).copied().unwrap_or(FREE);
            (p, *c)
        };
        let mine = key(&at);
        let list = match self.tool_calls.get_mut(id) {
            Some(list) => list,
            None => self.tool_calls.entry(id.to_owned()).or_default(),
        };
        let i = list.partition_point(|c| key(c) < mine);
        list.insert(i, at);
    }
}

/// Removes the items at the sorted positions `doomed` and hands them back,
/// moving only the items after the first of them.
pub(crate) fn remove_sorted<T>(list: &mut Vec<T>, doomed: &[usize]) -> Vec<T> {
    let Some(&first) = doomed.first() else {
        return Vec::new();
    };
    let tail = list.split_off(first.min(list.len()));
    let mut gone = Vec::with_capacity(doomed.len());
    let mut next = doomed.iter().peekable();
    for (offset, item) in tail.into_iter().enumerate() {
        if next.peek() == Some(&&first.saturating_add(offset)) {
            next.next();
            gone.push(item);
        } else {
            list.push(item);
        }
    }
    gone
}
