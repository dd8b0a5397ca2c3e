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
        // Shared fields first, so combined old shapes go in one pass. The
        // type is copied only for the warning (any type may carry it).
        if matches!(event.get("rawEvent"), Some(Value::Null)) {
            let ty = match event.get("type") {
                Some(Value::String(t)) => t.clone(),
                _ => String::new(),
            };
            omit_null(event, "rawEvent", &ty, &mut out);
        }
        let ty = match event.get("type") {
            Some(Value::String(t)) => translated(t),
            _ => return Ok(()),
        };
        if ty == "RUN_FINISHED" || ty == "SUBAGENT_FINISHED" {
            omit_null(event, "result", ty, &mut out);
        }
        match ty {
            "THINKING_START" => {
                let id = self.mint();
                self.span = Some(id.clone());
                let title = event.remove("title");
                out.converted("THINKING_START", "REASONING_START");
                if title.is_some() {
                    out.push(InboundWarningKind::DroppedTitle);
                }
                set_type(event, "REASONING_START");
                event.insert(String::from("messageId"), Value::String(id));
            }
            "THINKING_TEXT_MESSAGE_START" => {
                let id = self.mint();
                self.message = Some(id.clone());
                out.converted("THINKING_TEXT_MESSAGE_START", "REASONING_MESSAGE_START");
                set_type(event, "REASONING_MESSAGE_START");
                event.insert(String::from("messageId"), Value::String(id));
                event.insert(String::from("role"), Value::from("reasoning"));
            }
            "THINKING_TEXT_MESSAGE_CONTENT" => {
                out.converted("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT");
                let id = self.continuation(self.message.clone(), &mut out);
                set_type(event, "REASONING_MESSAGE_CONTENT");
                event.insert(String::from("messageId"), Value::String(id));
            }
            "THINKING_TEXT_MESSAGE_END" => {
                let established = self.message.take();
                let id = self.continuation(established, &mut out);
                out.converted("THINKING_TEXT_MESSAGE_END", "REASONING_MESSAGE_END");
                set_type(event, "REASONING_MESSAGE_END");
                event.insert(String::from("messageId"), Value::String(id));
            }
            "THINKING_END" => {
                let established = self.span.take();
                let id = self.continuation(established, &mut out);
                out.converted("THINKING_END", "REASONING_END");
                set_type(event, "REASONING_END");
                event.insert(String::from("messageId"), Value::String(id));
            }
            "TOOL_CALL_START" | "TOOL_CALL_CHUNK" => {
                omit_null(event, "parentMessageId", ty, &mut out);
            }
            "RUN_FINISHED" => {
                omit_null(event, "outcome", ty, &mut out);
            }
            "MESSAGES_SNAPSHOT" => {
                if let Some(Value::Array(messages)) = event.get_mut("messages") {
                    for message in messages.iter_mut() {
                        upgrade_message(message, &mut out)?;
                    }
                }
            }
            "RUN_STARTED" => {
                if let Some(Value::Object(input)) = event.get_mut("input") {
                    upgrade_input(input, &mut out)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The event types the boundary translates something of, as static names
/// (`""` for every other type): matching on them needs no copy of the type.
fn translated(ty: &str) -> &'static str {
    match ty {
        "THINKING_START" => "THINKING_START",
        "THINKING_TEXT_MESSAGE_START" => "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT" => "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END" => "THINKING_TEXT_MESSAGE_END",
        "THINKING_END" => "THINKING_END",
        "TOOL_CALL_START" => "TOOL_CALL_START",
        "TOOL_CALL_CHUNK" => "TOOL_CALL_CHUNK",
        "RUN_FINISHED" => "RUN_FINISHED",
        "SUBAGENT_FINISHED" => "SUBAGENT_FINISHED",
        "MESSAGES_SNAPSHOT" => "MESSAGES_SNAPSHOT",
        "RUN_STARTED" => "RUN_STARTED",
        _ => "",
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
