//! The compatibility boundary (SPEC 9.3): retired shapes translated into
//! their 1.0 equivalents before enforcement sees them.
//!
//! - `THINKING_*` events become `REASONING_*` events with minted ids;
//! - legacy `null`s in optional positions become absent;
//! - legacy `binary` content parts of inbound messages become media parts.
//!
//! Each translation is announced by a [`InboundWarning`].

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use agui_core::compat::{successor, Thread, Use};
use agui_core::decode::{Expect, Field};
use agui_core::event::EventType;
use serde_json::{Map, Value};

use super::report::{InboundWarning, InboundWarningKind};

/// The translator's per-stream state: the ids the `THINKING_*` openers
/// minted, and the mint itself.
#[derive(Debug, Clone)]
pub(crate) struct Boundary {
    /// The id of the open thinking span (`THINKING_START`).
    span: Option<String>,
    /// The id of the open thinking message (`THINKING_TEXT_MESSAGE_START`).
    message: Option<String>,
    /// How many ids were minted so far in this stream.
    minted: u64,
    /// Makes the `n`th id (from 1).
    mint: fn(u64) -> String,
}

/// Why the boundary cannot translate a frame (a `decode` error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Broken(pub(crate) String);

const ABSENT: &str = "an absent field";

/// The part kinds whose `metadata: null` the boundary turns into absent
/// (the media kinds as the pre-1.0 schema had them).
const LEGACY_MEDIA_KINDS: &[&str] = &["image", "audio", "video", "document"];

impl Boundary {
    pub(crate) fn new(mint: fn(u64) -> String) -> Self {
        Boundary {
            span: None,
            message: None,
            minted: 0,
            mint,
        }
    }

    fn mint(&mut self) -> String {
        self.minted = self.minted.saturating_add(1);
        (self.mint)(self.minted)
    }

    /// The id a continuation belongs to: the opener's, else a minted one
    /// (announced).
    fn continuation(&mut self, established: Option<String>, out: &mut Sink<'_>) -> String {
        match established {
            Some(id) => id,
            None => {
                let id = self.mint();
                out.push(InboundWarningKind::MintedId { id: id.clone() });
                id
            }
        }
    }

    /// Translates one event (an object with a string `type`) in place.
    pub(crate) fn translate(
        &mut self,
        frame: usize,
        event: &mut Map<String, Value>,
        warnings: &mut Vec<InboundWarning>,
    ) -> Result<(), Broken> {
        let mut out = Sink { frame, warnings };
        let wire = match event.get("type") {
            Some(Value::String(t)) => (EventType::from_wire(t), t.clone()),
            _ => return Ok(()),
        };
        // Shared fields first, so combined old shapes go in one pass (any
        // type may carry it, an unknown one too).
        omit_null(event, Field::RawEvent.as_str(), &wire.1, &mut out);
        let Some(kind) = wire.0 else {
            return Ok(());
        };
        if let Some((next, thread, using)) = successor(kind) {
            self.retire(kind, next, thread, using, event, &mut out);
            return Ok(());
        }
        let ty = kind.as_str();
        if matches!(kind, EventType::RunFinished | EventType::SubagentFinished) {
            omit_null(event, Field::Result.as_str(), ty, &mut out);
        }
        if matches!(kind, EventType::ToolCallStart | EventType::ToolCallChunk) {
            omit_null(event, Field::ParentMessageId.as_str(), ty, &mut out);
        }
        if kind == EventType::RunFinished {
            omit_null(event, Field::Outcome.as_str(), ty, &mut out);
        }
        if kind == EventType::MessagesSnapshot {
            if let Some(Value::Array(messages)) = event.get_mut(Field::Messages.as_str()) {
                for message in messages.iter_mut() {
                    upgrade_message(message, &mut out)?;
                }
            }
        }
        if kind == EventType::RunStarted {
            if let Some(Value::Object(input)) = event.get_mut(Field::Input.as_str()) {
                upgrade_input(input, &mut out)?;
            }
        }
        Ok(())
    }

    /// A retired `THINKING_*` event becomes its successor (the core's
    /// [`successor`] table): the id of its thread, minted, continued or
    /// forgotten; a field of the retired row the successor lacks (the
    /// title) dropped; the successor's fixed role (a reasoning message's)
    /// set. The warnings come in the reference's order: a continuation's
    /// after its conversion, an end's before.
    fn retire(
        &mut self,
        wire: EventType,
        next: EventType,
        thread: Thread,
        using: Use,
        event: &mut Map<String, Value>,
        out: &mut Sink<'_>,
    ) {
        let id = match using {
            Use::Mints => {
                let id = self.mint();
                *self.thread(thread) = Some(id.clone());
                out.converted(wire.as_str(), next.as_str());
                id
            }
            Use::Continues => {
                out.converted(wire.as_str(), next.as_str());
                let established = self.thread(thread).clone();
                self.continuation(established, out)
            }
            Use::Forgets => {
                let established = self.thread(thread).take();
                let id = self.continuation(established, out);
                out.converted(wire.as_str(), next.as_str());
                id
            }
        };
        let kept = next.schema_v1();
        for (field, _, _) in wire.schema_v1() {
            let lost = !kept.iter().any(|(f, _, _)| f == field);
            if lost && event.remove(field.as_str()).is_some() {
                out.push(InboundWarningKind::DroppedTitle);
            }
        }
        set_type(event, next.as_str());
        event.insert(String::from(Field::MessageId.as_str()), Value::String(id));
        for (field, _, expect) in kept {
            if let Expect::OneOf { values: [fixed] } = expect {
                event.insert(String::from(field.as_str()), Value::from(*fixed));
            }
        }
    }

    /// The remembered id of `thread`.
    fn thread(&mut self, thread: Thread) -> &mut Option<String> {
        match thread {
            Thread::Span => &mut self.span,
            Thread::Message => &mut self.message,
        }
    }
}

/// Where the warnings of one frame go.
struct Sink<'a> {
    frame: usize,
    warnings: &'a mut Vec<InboundWarning>,
}

impl Sink<'_> {
    fn push(&mut self, kind: InboundWarningKind) {
        self.warnings.push(InboundWarning {
            frame: self.frame,
            kind,
        });
    }

    fn converted(&mut self, from: impl Into<Cow<'static, str>>, to: &'static str) {
        self.push(InboundWarningKind::Converted {
            from: from.into(),
            to: Cow::Borrowed(to),
        });
    }
}

fn set_type(event: &mut Map<String, Value>, ty: &str) {
    event.insert(String::from("type"), Value::from(ty));
}

/// `field: null` on `object` becomes absent, announced as
/// `<context>.<field>: null`.
fn omit_null(object: &mut Map<String, Value>, field: &str, context: &str, out: &mut Sink<'_>) {
    if matches!(object.get(field), Some(Value::Null)) {
        object.remove(field);
        out.converted(format!("{context}.{field}: null"), ABSENT);
    }
}

/// `RUN_STARTED.input`: its optional nulls, then its messages.
fn upgrade_input(input: &mut Map<String, Value>, out: &mut Sink<'_>) -> Result<(), Broken> {
    omit_null(input, "forwardedProps", "RunAgentInput", out);
    for (list, field, context) in [
        ("tools", "parameters", "Tool"),
        ("resume", "payload", "ResumeEntry"),
    ] {
        if let Some(Value::Array(entries)) = input.get_mut(list) {
            for entry in entries.iter_mut() {
                if let Value::Object(entry) = entry {
                    omit_null(entry, field, context, out);
                }
            }
        }
    }
    if let Some(Value::Array(messages)) = input.get_mut("messages") {
        // The reference normalises the nulls of every message before it
        // upgrades any binary part, so the warnings come in that order.
        for message in messages.iter_mut() {
            if let Value::Object(message) = message {
                omit_part_metadata_nulls(message, out);
            }
        }
        for message in messages.iter_mut() {
            upgrade_message(message, out)?;
        }
    }
    Ok(())
}

/// `metadata: null` on the media parts of a message's content.
fn omit_part_metadata_nulls(message: &mut Map<String, Value>, out: &mut Sink<'_>) {
    if let Some(Value::Array(parts)) = message.get_mut("content") {
        for part in parts.iter_mut() {
            if let Value::Object(part) = part {
                let kind = match part.get("type") {
                    Some(Value::String(k)) if LEGACY_MEDIA_KINDS.contains(&k.as_str()) => k.clone(),
                    _ => continue,
                };
                omit_null(part, "metadata", &format!("{kind} input content"), out);
            }
        }
    }
}

/// One inbound message of a snapshot or a run input: media-part metadata
/// nulls, then legacy binary parts.
fn upgrade_message(message: &mut Value, out: &mut Sink<'_>) -> Result<(), Broken> {
    let message = match message {
        Value::Object(m) => m,
        // The reference reads `content` off the message: on `null` that
        // throws, anything else has no content to upgrade.
        Value::Null => {
            return Err(Broken(String::from(
                "Cannot read properties of null (reading 'content')",
            )))
        }
        Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Array(_) => return Ok(()),
    };
    omit_part_metadata_nulls(message, out);
    let Some(Value::Array(parts)) = message.get_mut("content") else {
        return Ok(());
    };
    let has_binary = parts
        .iter()
        .any(|p| matches!(p.get("type"), Some(Value::String(t)) if t == "binary"));
    if !has_binary {
        return Ok(());
    }
    out.converted("binary input content", "the modern media content parts");
    let old = core::mem::take(parts);
    // Decide every part against the original parts (a mirror may come
    // before its original), then move the kept ones: nothing is cloned but
    // the converted parts' source values.
    let decisions: Vec<Decision> = {
        let modern = ModernParts::index(&old);
        old.iter()
            .map(|part| match convert_binary(part, out) {
                None | Some(Converted::Kept) => Decision::Keep,
                Some(Converted::Part {
                    part: new,
                    key,
                    filename,
                }) => {
                    if modern.contains(&key, filename) {
                        Decision::Drop
                    } else {
                        Decision::Replace(new)
                    }
                }
            })
            .collect()
    };
    let mut upgraded = Vec::with_capacity(old.len());
    for (part, decision) in old.into_iter().zip(decisions) {
        match decision {
            Decision::Keep => upgraded.push(part),
            Decision::Drop => {}
            Decision::Replace(new) => upgraded.push(new),
        }
    }
    *parts = upgraded;
    Ok(())
}

/// A value compared as JavaScript's `===` compares it: primitives by value,
/// objects and arrays never equal to another parsed value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prim<'a> {
    Null,
    Bool(bool),
    /// The bits of the double (`-0` folded into `0`).
    Number(u64),
    String(&'a str),
}

impl<'a> Prim<'a> {
    fn of(v: &'a Value) -> Option<Prim<'a>> {
        match v {
            Value::Null => Some(Prim::Null),
            Value::Bool(b) => Some(Prim::Bool(*b)),
            Value::Number(n) => n.as_f64().map(|x| {
                let x = if x == 0.0 { 0.0 } else { x };
                Prim::Number(x.to_bits())
            }),
            Value::String(s) => Some(Prim::String(s)),
            Value::Array(_) | Value::Object(_) => None,
        }
    }
}

/// What makes a converted part a duplicate of a modern one: kind, source
/// type, value and mime type.
type PartKey<'a> = (&'a str, &'static str, Prim<'a>, &'a str);

/// The modern media parts of one message, for the duplicate check: by key,
/// whether one exists and the `metadata.filename`s they carry.
struct ModernParts<'a> {
    by_key: BTreeMap<PartKey<'a>, Vec<Prim<'a>>>,
}

impl<'a> ModernParts<'a> {
    fn index(parts: &'a [Value]) -> Self {
        let mut by_key: BTreeMap<PartKey<'a>, Vec<Prim<'a>>> = BTreeMap::new();
        for part in parts {
            let Value::Object(part) = part else { continue };
            let (Some(Value::String(kind)), Some(Value::Object(source))) =
                (part.get("type"), part.get("source"))
            else {
                continue;
            };
            let stype: &'static str = match source.get("type") {
                Some(Value::String(t)) if t == "data" => "data",
                Some(Value::String(t)) if t == "url" => "url",
                _ => continue,
            };
            let (Some(value), Some(Value::String(mime))) = (
                source.get("value").and_then(Prim::of),
                source.get("mimeType"),
            ) else {
                continue;
            };
            let filename = match part.get("metadata") {
                Some(Value::Object(meta)) => meta.get("filename").and_then(Prim::of),
                _ => None,
            };
            let entry = by_key
                .entry((kind.as_str(), stype, value, mime.as_str()))
                .or_default();
            if let Some(f) = filename {
                entry.push(f);
            }
        }
        ModernParts { by_key }
    }

    /// Whether a modern part has this key (and this filename, if the legacy
    /// part had one).
    fn contains(&self, key: &Option<PartKey<'a>>, filename: Option<Prim<'a>>) -> bool {
        let Some(key) = key else { return false };
        match (self.by_key.get(key), filename) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(names), Some(f)) => names.contains(&f),
        }
    }
}

/// What becomes of one part of a message with legacy binary parts.
enum Decision {
    /// Not a convertible binary part: it stays.
    Keep,
    /// A converted part equal to a modern part of the message: dropped.
    Drop,
    /// A converted part: this media part replaces it.
    Replace(Value),
}

enum Converted<'a> {
    /// A binary part with neither data nor url: it stays.
    Kept,
    /// The media part it became, its duplicate key (none when the value is
    /// an object or array, which equals nothing) and its truthy filename.
    Part {
        part: Value,
        key: Option<PartKey<'a>>,
        filename: Option<Prim<'a>>,
    },
}

/// JavaScript truthiness of a parsed JSON value.
fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|x| x != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_)) | Some(Value::Object(_)) => true,
    }
}

/// A legacy binary part (`type: "binary"` with a string `mimeType`) as a
/// media part; `None` for any other part.
fn convert_binary<'a>(part: &'a Value, out: &mut Sink<'_>) -> Option<Converted<'a>> {
    let Value::Object(part) = part else {
        return None;
    };
    if !matches!(part.get("type"), Some(Value::String(t)) if t == "binary") {
        return None;
    }
    let Some(Value::String(mime)) = part.get("mimeType") else {
        return None;
    };
    let kind = if mime.starts_with("image/") {
        "image"
    } else if mime.starts_with("audio/") {
        "audio"
    } else if mime.starts_with("video/") {
        "video"
    } else {
        "document"
    };
    let (stype, value) = if truthy(part.get("data")) {
        ("data", part.get("data"))
    } else if truthy(part.get("url")) {
        ("url", part.get("url"))
    } else {
        out.push(InboundWarningKind::BinaryUnconvertible);
        return Some(Converted::Kept);
    };
    let filename = part.get("filename").filter(|f| truthy(Some(f)));
    let mut source = Map::new();
    source.insert(String::from("type"), Value::from(stype));
    source.insert(String::from("value"), value.cloned().unwrap_or(Value::Null));
    source.insert(String::from("mimeType"), Value::String(mime.clone()));
    let mut new = Map::new();
    new.insert(String::from("type"), Value::from(kind));
    new.insert(String::from("source"), Value::Object(source));
    if let Some(f) = filename {
        let mut meta = Map::new();
        meta.insert(String::from("filename"), f.clone());
        new.insert(String::from("metadata"), Value::Object(meta));
    }
    let filename_prim = filename.and_then(Prim::of);
    // A value or filename that is an object or array equals nothing.
    let comparable = filename.is_none() || filename_prim.is_some();
    let key = value
        .and_then(Prim::of)
        .filter(|_| comparable)
        .map(|v| (kind, stype, v, mime.as_str()));
    Some(Converted::Part {
        part: Value::Object(new),
        key,
        filename: filename_prim,
    })
}
