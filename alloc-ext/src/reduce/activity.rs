//! Activity messages: `ACTIVITY_SNAPSHOT` and `ACTIVITY_DELTA`, and the
//! content sizes kept for the limits. Their [`Rules`] blocks come last.

use alloc::borrow::ToOwned;
use alloc::string::String;

use agui_core::decode::Field as F;
use agui_core::event::EventType;
use serde_json::Value;

use super::limits::{fits, meta_bytes, sum, Delta, LimitError, UNBOUNDED};
use super::rules::{no_op, opt_len, Given, Rules};
use super::{merge_metadata, Changed, Reducer};
use crate::event::{kind, metadata, patch, ActivityDelta, ActivitySnapshot, DecodeError, Effect};
use crate::hooks::{Flow, HookView, Subscriber};
use crate::model::{ActivityMessage, Fields, Message, Object, SUBAGENT_RUN_ID};
use crate::patch::apply_patch_sized;
use crate::size::{json_size, message_bytes, object_size, Size};

impl Reducer {
    /// ACTIVITY_SNAPSHOT: the content's size.
    fn check_activity_snapshot(&self, content: &Object) -> Result<(), LimitError> {
        self.limits.within_state(object_size(content))
    }

    /// ACTIVITY_DELTA: the content's size after the patch, and the bytes it
    /// adds to the messages besides `text` (the event's own growth).
    fn check_activity_patch(&mut self, e: &ActivityDelta, text: usize) -> Result<(), LimitError> {
        let limits = self.limits;
        let (now, after) = match self.activity_content(&e.message_id) {
            // A `null` content is patched as `{}`, left as it is here.
            Some((content, size)) if content.is_null() => {
                let mut empty = Value::Object(Object::new());
                let start = json_size(&empty);
                (size, fits(&mut empty, start, &e.patch, &limits)?)
            }
            Some((content, size)) => (size, fits(content, size, &e.patch, &limits)?),
            None => return Ok(()),
        };
        // The content is part of the bytes the messages hold.
        let grown = after.bytes.saturating_sub(now.bytes);
        self.within_messages(0, text.saturating_add(grown))
    }

    /// The content of the activity message `id` (a `null` content is
    /// patched as `{}`) and its size, measured once and then kept.
    fn activity_content(&mut self, id: &str) -> Option<(&mut Value, Size)> {
        let pos = self.index.message(id)?;
        let Some(Message::Activity(activity)) = self.messages.get_mut(pos) else {
            return None;
        };
        let size = match self.activity_sizes.get(id) {
            Some(size) => *size,
            None => {
                let size = json_size(&activity.content);
                self.activity_sizes.insert(id.to_owned(), size);
                size
            }
        };
        Some((&mut activity.content, size))
    }

    fn activity_snapshot(
        &mut self,
        e: &ActivitySnapshot,
        subscriber: &mut dyn Subscriber,
    ) -> Changed {
        let fresh = || {
            Message::Activity(ActivityMessage {
                id: e.message_id.clone(),
                activity_type: e.activity_type.clone(),
                content: Value::Object(e.content.clone()),
                metadata: e.metadata.clone(),
                subagent_run_id: e.subagent_run_id.clone(),
            })
        };
        let id = e.message_id.as_str();
        let content = object_size(&e.content);
        let cached = self.activity_sizes.get(id).copied();
        let mut delta = Delta::default();
        let mut calls_gone = None;
        let pos = match self.index.message(id) {
            None => Some(self.push_message(fresh())),
            Some(pos) => match self.messages.get_mut(pos) {
                Some(Message::Activity(activity)) => {
                    if e.replace {
                        // The old content is dropped, so measuring it (when
                        // its size is not kept) costs no more than dropping it.
                        let old = cached.unwrap_or_else(|| json_size(&activity.content));
                        delta.minus = old.bytes.saturating_add(activity.activity_type.len());
                        delta.plus = content.bytes.saturating_add(e.activity_type.len());
                        if activity.activity_type != e.activity_type {
                            self.index
                                .retyped(pos, &activity.activity_type, &e.activity_type);
                            activity.activity_type.clone_from(&e.activity_type);
                        }
                        activity.content = Value::Object(e.content.clone());
                        // AG-UI 1.0: the replaced activity takes the event's
                        // owner, or loses its own (always absent in the
                        // current protocol, which reads no owner).
                        delta += Delta {
                            plus: e.subagent_run_id.as_ref().map_or(0, String::len),
                            minus: activity.subagent_run_id.as_ref().map_or(0, String::len),
                        };
                        activity.subagent_run_id.clone_from(&e.subagent_run_id);
                    }
                    if let Some(metadata) = &e.metadata {
                        delta += merge_metadata(&mut activity.metadata, metadata);
                    }
                    None
                }
                Some(other) if e.replace => {
                    let fresh = fresh();
                    delta = Delta {
                        plus: message_bytes(&fresh),
                        minus: message_bytes(other),
                    };
                    let old = core::mem::replace(other, fresh);
                    calls_gone = Some(old);
                    Some(pos)
                }
                _ => None,
            },
        };
        self.held(delta);
        if let (Some(old), Some(pos)) = (calls_gone, pos) {
            if let Some(new) = self.messages.get(pos) {
                self.index.replaced(pos, &old, new);
            }
            self.forget(&old);
        }
        if e.replace || pos.is_some() {
            self.activity_sizes.insert(id.to_owned(), content);
        }
        if let Some(message) = pos.and_then(|pos| self.messages.get(pos)) {
            subscriber.on_new_message(message);
        }
        Changed::MESSAGES
    }

    fn activity_delta(&mut self, e: &ActivityDelta) -> Changed {
        // The patch is atomic, so it can run in place; a `null` content is
        // patched as `{}` and stays `null` if the patch fails.
        let Some((content, size)) = self.activity_content(&e.message_id) else {
            return Changed::NONE;
        };
        let was_null = content.is_null();
        let start = if was_null {
            *content = Value::Object(Object::new());
            json_size(content)
        } else {
            size
        };
        let result = apply_patch_sized(content, &e.patch, start, UNBOUNDED);
        let mut delta = Delta::default();
        match &result {
            Ok(after) => {
                delta = Delta {
                    plus: after.bytes,
                    minus: size.bytes,
                };
                self.activity_sizes.insert(e.message_id.clone(), *after);
            }
            Err(_) if was_null => *content = Value::Null,
            Err(_) => {}
        }
        let Some(pos) = self.index.message(&e.message_id) else {
            return Changed::NONE;
        };
        let Some(Message::Activity(activity)) = self.messages.get_mut(pos) else {
            return Changed::NONE;
        };
        if let Some(metadata) = &e.metadata {
            delta += merge_metadata(&mut activity.metadata, metadata);
        }
        let patched = result.is_ok();
        if patched {
            delta += Delta {
                plus: e.activity_type.len(),
                minus: activity.activity_type.len(),
            };
            if activity.activity_type != e.activity_type {
                self.index
                    .retyped(pos, &activity.activity_type, &e.activity_type);
                activity.activity_type.clone_from(&e.activity_type);
            }
        }
        self.held(delta);
        match result {
            Ok(_) => Changed::MESSAGES,
            Err(refused) => {
                self.warn(EventType::ActivityDelta, refused);
                Changed::messages_if(e.metadata.is_some())
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The decisions about activity messages (see `rules.rs`).

impl Rules for kind::ActivitySnapshot {
    type Payload = ActivitySnapshot;
    fn decode(f: Fields<'_>) -> Result<ActivitySnapshot, DecodeError> {
        Ok(ActivitySnapshot {
            message_id: f.string(F::MessageId.as_str())?,
            activity_type: f.string(F::ActivityType.as_str())?,
            content: f.object(F::Content.as_str())?.clone(),
            replace: f.opt_bool(F::Replace.as_str())?.unwrap_or(true),
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &ActivitySnapshot, r: &Reducer) -> (usize, usize) {
        let parts = [
            // The message's id and the index's copy.
            e.message_id.len().saturating_mul(2),
            e.activity_type.len(),
            object_size(&e.content).bytes,
            meta_bytes(&e.metadata),
            opt_len(&e.subagent_run_id),
        ];
        (r.absent(&e.message_id), sum(&parts))
    }
    fn check(e: &ActivitySnapshot, r: &mut Reducer, _: usize) -> Result<(), LimitError> {
        r.check_activity_snapshot(&e.content)
    }
    fn hook(
        e: &ActivitySnapshot,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_activity_snapshot(e, v)
    }
    fn reduce(
        given: Given<'_, ActivitySnapshot>,
        r: &mut Reducer,
        s: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        r.activity_snapshot(e, s)
    }
    fn effect(e: &ActivitySnapshot) -> Effect<'_> {
        Effect::Activity(&e.message_id)
    }
    no_op!(notify, trace_args);
}

impl Rules for kind::ActivityDelta {
    type Payload = ActivityDelta;
    fn decode(f: Fields<'_>) -> Result<ActivityDelta, DecodeError> {
        Ok(ActivityDelta {
            message_id: f.string(F::MessageId.as_str())?,
            activity_type: f.string(F::ActivityType.as_str())?,
            patch: patch(f, F::Patch.as_str())?,
            metadata: metadata(f)?,
        })
    }
    fn growth(e: &ActivityDelta, _: &Reducer) -> (usize, usize) {
        // What the patch adds to the content is checked exactly by `check`.
        (0, sum(&[e.activity_type.len(), meta_bytes(&e.metadata)]))
    }
    fn check(e: &ActivityDelta, r: &mut Reducer, text: usize) -> Result<(), LimitError> {
        r.check_activity_patch(e, text)
    }
    fn hook(e: &ActivityDelta, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_activity_delta(e, v)
    }
    fn reduce(given: Given<'_, ActivityDelta>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.activity_delta(e)
    }
    fn effect(e: &ActivityDelta) -> Effect<'_> {
        Effect::Activity(&e.message_id)
    }
    no_op!(notify, trace_args);
}
