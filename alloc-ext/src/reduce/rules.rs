//! The questions the alloc layer asks of every event type ([`Rules`]), the
//! operations that ask them, and the dispatch from an event to its type's
//! `Rules` ([`Event::visit`], [`Event::from_core`], [`Event::effect`]).
//!
//! The event table (`events!` in `event.rs`) gives each event type a marker
//! type in [`kind`](crate::event::kind) and hands its rows to `dispatch!`
//! here; each family's file of `reduce/` implements [`Rules`] for its
//! markers. The dispatch lives here, inside `reduce`, not in `event.rs`, so
//! that the module graph has no loop: `Rules` takes the [`Reducer`], the
//! reducer's families implement it, and both name the event, never the
//! other way round. `Rules` has no default methods, so a new row in the table
//! does not compile until its block answers every question the layer asks
//! of an event:
//!
//! | method | the question | used by |
//! |---|---|---|
//! | `decode` | which fields, read how (SPEC section 3) | `Event::from_core` |
//! | `growth` | how many messages and bytes it may add (an upper bound, in time proportional to the event) | the limits, before anything is applied |
//! | `check` | any limit beyond that growth (snapshots, patches) | the limits |
//! | `hook` | which typed hook of [`Subscriber`] it calls, with what context | `Reducer::apply_with` |
//! | `reduce` | its default handling (SPEC section 5); the payload comes as [`Given`]: shared, or given up by the client, so that a snapshot is moved into the reducer, not copied | `Reducer::apply_with`, the client |
//! | `notify` | the notifications that fire even when a hook stopped it | `Reducer::apply_with` |
//! | `trace_args` | the arguments value the replay trace shows after it (SPEC section 7) | `Reducer::trace_args` |
//! | `effect` | what it means for a display ([`Effect`]) | the kiosk, the conversation |
//!
//! Each event type's block sits in the reducer's file of its family
//! (`reduce/run.rs`, `messages.rs`, `tools.rs`, `reasoning.rs`, `state.rs`,
//! `activity.rs`), next to the mechanisms its methods call (appending a
//! delta, merging a snapshot, measuring a patch). A decision that is
//! "nothing" (no growth, no check beyond it, no default handling, no
//! notification, no trace arguments) is still named, in one line:
//! `no_op!(growth, check, reduce, notify, trace_args)` writes those methods
//! (see [`no_op`]).

use alloc::string::String;

use agui_core::event::{EventType, Origin};
use serde_json::Value;

use super::{Changed, LimitError, Reducer};
use crate::event::{self, kind, DecodeError, Effect, Event};
use crate::hooks::{Flow, HookView, Subscriber};
use crate::model::{Dialect, Fields};

/// The alloc layer's decisions about one event type (see the module docs).
pub(crate) trait Rules {
    /// What the event owns (`()` for an event without fields).
    type Payload: 'static;
    /// Reads the payload from the frame's own fields.
    fn decode(f: Fields<'_>) -> Result<Self::Payload, DecodeError>;
    /// Messages and message bytes it may add.
    fn growth(e: &Self::Payload, r: &Reducer) -> (usize, usize);
    /// Limits beyond its growth; `text` is the bytes `growth` counted.
    fn check(e: &Self::Payload, r: &mut Reducer, text: usize) -> Result<(), LimitError>;
    /// Its typed hook.
    fn hook(e: &Self::Payload, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow;
    /// Its default handling; the payload is the caller's to give up when
    /// the caller owns the event (a large snapshot is moved, not copied).
    fn reduce(e: Given<'_, Self::Payload>, r: &mut Reducer, s: &mut dyn Subscriber) -> Changed;
    /// Notifications after the event, whatever the hooks decided.
    fn notify(e: &Self::Payload, r: &Reducer, s: &mut dyn Subscriber);
    /// The arguments value the trace shows after it.
    fn trace_args<'r>(e: &Self::Payload, r: &'r Reducer) -> Option<(&'static str, &'r Value)>;
    /// What it means for a display.
    fn effect(e: &Self::Payload) -> Effect<'_>;
}

/// An operation over any event: [`Event::visit`](crate::event::Event)
/// calls `visit` with the event's payload and its type's [`Rules`].
pub(crate) trait Visit<'e> {
    /// What the operation returns.
    type Out;
    /// Runs the operation on one event.
    fn visit<R: Rules>(self, e: &'e R::Payload) -> Self::Out;
}

/// An operation over any event that may change it (see [`Given`]).
pub(crate) trait VisitMut {
    /// What the operation returns.
    type Out;
    /// Runs the operation on one event.
    fn visit<R: Rules>(self, e: &mut R::Payload) -> Self::Out;
}

/// A payload as [`Rules::reduce`] gets it: borrowed from a caller that
/// keeps the event, or given up by one that does not need it any more, so
/// that what the reducer keeps can be moved out of it instead of copied.
pub(crate) enum Given<'e, P> {
    /// The caller keeps the event.
    Shared(&'e P),
    /// The caller gives up the event's contents.
    Owned(&'e mut P),
}

impl<'e, P> Given<'e, P> {
    /// The payload.
    pub(crate) fn get(&self) -> &P {
        match self {
            Given::Shared(p) => p,
            Given::Owned(p) => p,
        }
    }

    /// A part of the payload: moved out when it is given up, else copied.
    pub(crate) fn take<T: Clone + Default>(
        self,
        part: impl Fn(&mut P) -> &mut T,
        copy: impl Fn(&P) -> &T,
    ) -> T {
        match self {
            Given::Shared(p) => copy(p).clone(),
            Given::Owned(p) => core::mem::take(part(p)),
        }
    }
}

/// An event that adds nothing to the messages.
pub(crate) const NO_GROWTH: (usize, usize) = (0, 0);

/// Bytes of an optional string (a growth part).
pub(crate) fn opt_len(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

/// Writes the named [`Rules`] methods of an event type whose decision is
/// "nothing", inside its `impl Rules` block:
///
/// | name | the method it writes |
/// |---|---|
/// | `growth` | adds no messages and no bytes ([`NO_GROWTH`]) |
/// | `check` | no limit beyond its growth |
/// | `reduce` | no default handling ([`Changed::NONE`]) |
/// | `notify` | no notification |
/// | `trace_args` | no arguments value in the trace |
///
/// The methods are written out, not defaulted in the trait, so that every
/// block still names every decision: one it leaves out does not compile.
macro_rules! no_op {
    ($($decision:ident),+ $(,)?) => {
        $($crate::reduce::rules::no_op!(@ $decision);)+
    };
    (@ growth) => {
        fn growth(_: &Self::Payload, _: &$crate::reduce::Reducer) -> (usize, usize) {
            $crate::reduce::rules::NO_GROWTH
        }
    };
    (@ check) => {
        fn check(
            _: &Self::Payload,
            _: &mut $crate::reduce::Reducer,
            _: usize,
        ) -> Result<(), $crate::reduce::LimitError> {
            Ok(())
        }
    };
    (@ reduce) => {
        fn reduce(
            _: $crate::reduce::rules::Given<'_, Self::Payload>,
            _: &mut $crate::reduce::Reducer,
            _: &mut dyn $crate::hooks::Subscriber,
        ) -> $crate::reduce::Changed {
            $crate::reduce::Changed::NONE
        }
    };
    (@ notify) => {
        fn notify(
            _: &Self::Payload,
            _: &$crate::reduce::Reducer,
            _: &mut dyn $crate::hooks::Subscriber,
        ) {
        }
    };
    (@ trace_args) => {
        fn trace_args<'r>(
            _: &Self::Payload,
            _: &'r $crate::reduce::Reducer,
        ) -> Option<(&'static str, &'r ::serde_json::Value)> {
            None
        }
    };
}
pub(crate) use no_op;

// ---------------------------------------------------------------------------
// The dispatch from an event to its type's `Rules`, written from the event
// table (`events!` in `event.rs` hands its rows here through
// `for_each_event!`): here, not in `event.rs`, so that the event module
// names no rules and the module graph has no loop (issue 26).

/// Writes [`Event::visit`], [`Event::visit_mut`] and `from_frame` from the
/// event table's rows.
macro_rules! dispatch {
    (
        with_fields { $( $name:ident, )* }
        without_fields { $( $unit:ident, )* }
        expanded_before_apply { $( $chunk:ident, )* }
    ) => {
        impl Event {
            /// Calls `v` with the event's payload and its type's [`Rules`].
            pub(crate) fn visit<'e, V: Visit<'e>>(&'e self, v: V) -> V::Out {
                match self {
                    $( Event::$name(e) => v.visit::<kind::$name>(e), )*
                    $( Event::$unit => v.visit::<kind::$unit>(&()), )*
                }
            }

            /// The same with the payload to change (or take from).
            pub(crate) fn visit_mut<V: VisitMut>(&mut self, v: V) -> V::Out {
                match self {
                    $( Event::$name(e) => v.visit::<kind::$name>(e), )*
                    $( Event::$unit => v.visit::<kind::$unit>(&mut ()), )*
                }
            }
        }

        /// The frame's own event.
        fn from_frame(kind: EventType, f: Fields<'_>) -> Result<Event, DecodeError> {
            Ok(match kind {
                $( EventType::$name => Event::$name(<kind::$name as Rules>::decode(f)?.into()), )*
                $( EventType::$unit => {
                    <kind::$unit as Rules>::decode(f)?;
                    Event::$unit
                } )*
                $( EventType::$chunk )|* => return Err(event::not_expanded(kind)),
            })
        }
    };
}

event::for_each_event!(dispatch);

impl Event {
    /// Builds the reducer's event for one verified core event of a frame.
    ///
    /// `frame` is the whole frame's JSON object. `kind`, `origin` and `id`
    /// come from the core's expanded event:
    /// - [`Origin::Frame`]: the frame's own event; every field is read from
    ///   `frame` (whose `type` must be `kind`).
    /// - [`Origin::Chunk`]: a START, CONTENT or ARGS made from the frame's
    ///   `*_CHUNK` event; `id` is the item's id (for a CONTENT, the open
    ///   item's, which the frame may not name). A START takes the chunk's
    ///   role (default assistant), name, toolCallName and parentMessageId;
    ///   a CONTENT / ARGS takes its `delta` (absent = `""`, the
    ///   metadata-only chunk). Both carry the chunk's metadata.
    /// - [`Origin::Close`]: an END closing the open chunked item: only `id`.
    ///
    /// ```
    /// use agui_alloc::event::Event;
    /// use agui_core::event::{EventType, Origin};
    /// let frame = serde_json::json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "hi"});
    /// let ev = Event::from_core(EventType::TextMessageContent, Origin::Chunk, "m", &frame).unwrap();
    /// assert_eq!(ev.kind(), EventType::TextMessageContent);
    ///
    /// let bad = serde_json::json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "x", "role": "wizard"}]});
    /// let err = Event::from_core(EventType::MessagesSnapshot, Origin::Frame, "", &bad).unwrap_err();
    /// assert!(err.to_string().starts_with("messages.0.role: "));
    /// ```
    pub fn from_core(
        kind: EventType,
        origin: Origin,
        id: &str,
        frame: &Value,
    ) -> Result<Event, DecodeError> {
        Self::from_core_in(kind, origin, id, frame, Dialect::Current)
    }

    /// [`Event::from_core`] reading the frame in `dialect` (AG-UI 1.0's
    /// `subagentRunId`, content parts, outcomes).
    pub fn from_core_in(
        kind: EventType,
        origin: Origin,
        id: &str,
        frame: &Value,
        dialect: Dialect,
    ) -> Result<Event, DecodeError> {
        let f = Fields::of_in(frame, dialect)?;
        event::check_timestamp(f)?;
        match origin {
            Origin::Frame => {
                f.literal("type", kind.as_str())?;
                from_frame(kind, f)
            }
            Origin::Chunk => event::from_chunk(kind, id, f),
            Origin::Close => event::close(kind, id),
        }
    }

    /// What the event means for a display (see [`Effect`]).
    pub fn effect(&self) -> Effect<'_> {
        self.visit(EffectOf)
    }
}

// ---------------------------------------------------------------------------
// The operations the reducer and `Event::effect` run.

/// [`Rules::growth`].
pub(crate) struct Growth<'r>(pub(crate) &'r Reducer);

impl Visit<'_> for Growth<'_> {
    type Out = (usize, usize);
    fn visit<R: Rules>(self, e: &R::Payload) -> (usize, usize) {
        R::growth(e, self.0)
    }
}

/// [`Rules::check`].
pub(crate) struct Check<'r>(pub(crate) &'r mut Reducer);

impl Visit<'_> for Check<'_> {
    type Out = Result<(), LimitError>;
    fn visit<R: Rules>(self, e: &R::Payload) -> Result<(), LimitError> {
        let (added, text) = R::growth(e, self.0);
        self.0.within_messages(added, text)?;
        R::check(e, self.0, text)
    }
}

/// [`Rules::hook`].
pub(crate) struct Hook<'r, 's, 'v, 'm> {
    pub(crate) reducer: &'r Reducer,
    pub(crate) subscriber: &'s mut dyn Subscriber,
    pub(crate) view: &'v mut HookView<'m>,
}

impl Visit<'_> for Hook<'_, '_, '_, '_> {
    type Out = Flow;
    fn visit<R: Rules>(self, e: &R::Payload) -> Flow {
        R::hook(e, self.reducer, self.subscriber, self.view)
    }
}

/// [`Rules::reduce`], on an event the caller keeps ([`Visit`]) or gives
/// up ([`VisitMut`]).
pub(crate) struct Reduce<'r, 's> {
    pub(crate) reducer: &'r mut Reducer,
    pub(crate) subscriber: &'s mut dyn Subscriber,
}

impl Visit<'_> for Reduce<'_, '_> {
    type Out = Changed;
    fn visit<R: Rules>(self, e: &R::Payload) -> Changed {
        R::reduce(Given::Shared(e), self.reducer, self.subscriber)
    }
}

impl VisitMut for Reduce<'_, '_> {
    type Out = Changed;
    fn visit<R: Rules>(self, e: &mut R::Payload) -> Changed {
        R::reduce(Given::Owned(e), self.reducer, self.subscriber)
    }
}

/// [`Rules::notify`].
pub(crate) struct Notify<'r, 's> {
    pub(crate) reducer: &'r Reducer,
    pub(crate) subscriber: &'s mut dyn Subscriber,
}

impl Visit<'_> for Notify<'_, '_> {
    type Out = ();
    fn visit<R: Rules>(self, e: &R::Payload) {
        R::notify(e, self.reducer, self.subscriber);
    }
}

/// [`Rules::trace_args`].
pub(crate) struct TraceArgs<'r>(pub(crate) &'r Reducer);

impl<'r> Visit<'_> for TraceArgs<'r> {
    type Out = Option<(&'static str, &'r Value)>;
    fn visit<R: Rules>(self, e: &R::Payload) -> Self::Out {
        R::trace_args(e, self.0)
    }
}

/// [`Rules::effect`].
pub(crate) struct EffectOf;

impl<'e> Visit<'e> for EffectOf {
    type Out = Effect<'e>;
    fn visit<R: Rules>(self, e: &'e R::Payload) -> Effect<'e> {
        R::effect(e)
    }
}
