//! Deterministic AG-UI streams for benchmarks and load tools, sized by `n`.
//!
//! Every generator returns the same bytes for the same arguments (a fixed
//! xorshift seed, no clock, no randomness from outside), so benchmark runs
//! and instruction counts can be compared. Nothing is stored in the
//! repository: the streams are built in memory in a few milliseconds.
//!
//! | generator | what it models |
//! |---|---|
//! | [`chat`] | a conversation: `n` text deltas over `n / 200` assistant messages, a `STATE_DELTA` after each message, a tool call (start, args, end, result) every fifth message |
//! | [`tool_args`] | one tool call whose JSON arguments (a growing list of rows) arrive in `n` `TOOL_CALL_ARGS` deltas |
//! | [`snapshots`] | a `STATE_SNAPSHOT` with `n` items and a `MESSAGES_SNAPSHOT` with `n` messages: two large frames |
//!
//! The hostile workloads (issue 11) are small events that used to cost time
//! proportional to what the client already held. Each scales the history
//! and the number of events together with `n`, so that a cost per event
//! that grows with the history shows as t(4N)/t(N) near 16 instead of 4:
//!
//! | generator | what it models |
//! |---|---|
//! | [`many_snapshots`] | a user message, `n` activity messages, then `0.6 n` tiny `MESSAGES_SNAPSHOT`s that keep the user message, drop the previous snapshot's message and add one |
//! | [`state_copies`] | a state of `60 n` numbers, then `0.6 n` one-op `STATE_DELTA`s that `copy` one number |
//! | [`activity_deltas`] | an activity whose content is `60 n` numbers, then `2 n` one-op `ACTIVITY_DELTA`s |
//! | [`parallel_results`] | one assistant message with `n` tool calls, then their `n` results, each placed after the ones before it |
//! | [`state_removals`] | a state of `n` keys each holding a 60-number array, then `n` `STATE_DELTA`s that each remove one key and test a missing one (so the patch fails and is rolled back) or remove it for real |
//! | [`retained`] | `n` content events each carrying a distinct `metadata` key of `size` bytes, then `n` tool results with `size`-byte message ids (the memory stream of the issue) |
//!
//! Each stream is a valid run (`RUN_STARTED` ... `RUN_FINISHED`) that the
//! pipeline accepts whole; every frame is one event (no `*_CHUNK`), so the
//! event count equals the frame count.
//!
//! ```
//! use agui_tests::workloads::{chat, Encoding};
//!
//! let w = chat(400, Encoding::Sse);
//! assert!(w.bytes.starts_with(b"data: {\"type\":\"RUN_STARTED\""));
//! // RUN_STARTED, STATE_SNAPSHOT, 2 x (START, 200 CONTENT, END, STATE_DELTA), RUN_FINISHED
//! assert_eq!(w.events, 2 + 2 * 203 + 1);
//! assert_eq!(w, chat(400, Encoding::Sse)); // deterministic
//! ```

use std::fmt::Write as _;

/// How the frames are put on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Server-sent events: `data: {...}\n\n` per event (an HTTP response body).
    Sse,
    /// Newline-delimited JSON: `{...}\n` per event (a serial line, a file).
    Ndjson,
}

/// A generated stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// What it is, with its size: `chat-20000`, `tool_args-80000`, ...
    pub name: String,
    /// The encoded stream.
    pub bytes: Vec<u8>,
    /// Frames (= events: the streams use no chunk events).
    pub events: usize,
}

/// Text deltas per assistant message in [`chat`].
pub const DELTAS_PER_MESSAGE: usize = 200;

/// The workloads by name (`chat`, `tool_args`, `snapshots`), for tools that
/// take the name on their command line.
///
/// ```
/// use agui_tests::workloads::{by_name, Encoding};
/// assert_eq!(by_name("tool_args", 10, Encoding::Ndjson).unwrap().events, 14);
/// assert!(by_name("nope", 10, Encoding::Sse).is_none());
/// ```
pub fn by_name(name: &str, n: usize, encoding: Encoding) -> Option<Workload> {
    match name {
        "chat" => Some(chat(n, encoding)),
        "tool_args" => Some(tool_args(n, encoding)),
        "snapshots" => Some(snapshots(n, encoding)),
        "many_snapshots" => Some(many_snapshots(n, encoding)),
        "kept_snapshots" => Some(kept_snapshots(n, encoding)),
        "state_copies" => Some(state_copies(n, encoding)),
        "activity_deltas" => Some(activity_deltas(n, encoding)),
        "parallel_results" => Some(parallel_results(n, encoding)),
        "state_removals" => Some(state_removals(n, encoding)),
        "retained" => Some(retained(n, 1 << 20, encoding)),
        "owner_lookups" => Some(owner_lookups(n, encoding)),
        _ => {
            let seed = name.strip_prefix("mix:")?.parse().ok()?;
            Some(hostile_mix(seed, n, encoding))
        }
    }
}

/// The JSON documents of an NDJSON stream, one per line (for benchmarking
/// the tokenizer alone).
///
/// ```
/// use agui_tests::workloads::{chat, documents, Encoding};
/// let w = chat(200, Encoding::Ndjson);
/// assert_eq!(documents(&w.bytes).count(), w.events);
/// ```
pub fn documents(ndjson: &[u8]) -> impl Iterator<Item = &[u8]> {
    ndjson
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
}

/// A chat of `deltas` text deltas over `deltas / 200` messages (at least
/// one), with a `STATE_DELTA` after each message (the state's log grows by
/// one entry per message) and a tool call every fifth message.
///
/// The deltas are 1 to 12 words (about 38 bytes on average); about one in
/// eight holds an escape (`\n`, `\"`) or a non-ASCII character.
pub fn chat(deltas: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    let mut rng = Rng::new(1);
    w.frame(r#"{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}"#);
    w.frame(
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"messages":0,"user":{"name":"Ada","locale":"en-GB"},"log":[]}}"#,
    );
    let messages = deltas.div_ceil(DELTAS_PER_MESSAGE).max(1);
    let mut left = deltas;
    for m in 0..messages {
        let id = format!("msg-{m:06}");
        w.frame(&format!(
            r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}","role":"assistant"}}"#
        ));
        let mut chars = 0usize;
        for _ in 0..DELTAS_PER_MESSAGE.min(left) {
            let delta = phrase(&mut rng);
            chars += delta.chars().count();
            let mut f = format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"#);
            push_json_str(&mut f, &delta);
            f.push('}');
            w.frame(&f);
        }
        left = left.saturating_sub(DELTAS_PER_MESSAGE);
        w.frame(&format!(
            r#"{{"type":"TEXT_MESSAGE_END","messageId":"{id}"}}"#
        ));
        if m % 5 == 4 {
            tool_call(&mut w, m, &id);
        }
        w.frame(&format!(
            r#"{{"type":"STATE_DELTA","delta":[{{"op":"replace","path":"/messages","value":{n}}},{{"op":"add","path":"/log/-","value":{{"id":"{id}","chars":{chars},"ok":true}}}}]}}"#,
            n = m + 1
        ));
    }
    w.frame(r#"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}"#);
    w.finish(format!("chat-{deltas}"))
}

/// The tool call of message `m` in [`chat`]: start, four argument deltas,
/// end and result.
fn tool_call(w: &mut Writer, m: usize, parent: &str) {
    let call = format!("call-{m:06}");
    w.frame(&format!(
        r#"{{"type":"TOOL_CALL_START","toolCallId":"{call}","toolCallName":"search","parentMessageId":"{parent}"}}"#
    ));
    let args = format!(r#"{{"query":"weather in city {m}","limit":10,"fresh":true}}"#);
    for piece in cut(&args, 4) {
        let mut f = format!(r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"{call}","delta":"#);
        push_json_str(&mut f, piece);
        f.push('}');
        w.frame(&f);
    }
    w.frame(&format!(
        r#"{{"type":"TOOL_CALL_END","toolCallId":"{call}"}}"#
    ));
    w.frame(&format!(
        r#"{{"type":"TOOL_CALL_RESULT","messageId":"result-{m:06}","toolCallId":"{call}","content":"{{\"temperature\":21.5,\"sky\":\"clear\",\"city\":{m}}}","role":"tool"}}"#
    ));
}

/// `text` (ASCII) cut into `parts` pieces of about equal size.
fn cut(text: &str, parts: usize) -> Vec<&str> {
    let size = text.len().div_ceil(parts).max(1);
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (a, b) = rest.split_at(size.min(rest.len()));
        out.push(a);
        rest = b;
    }
    out
}

/// One tool call whose arguments, `{"table":"results","rows":[...]}`, arrive
/// in `deltas` `TOOL_CALL_ARGS` events of 4 to 16 bytes of argument text
/// each, cut anywhere (inside strings, numbers, literals and escapes).
///
/// Each row is about 110 bytes: `{"id":7,"name":"row 7","score":3.5,
/// "active":true,"tags":["t1","t3"],"note":null,"quote":"say \"hi\""}`.
pub fn tool_args(deltas: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    let mut rng = Rng::new(2);
    w.frame(r#"{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}"#);
    w.frame(r#"{"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"fill_table"}"#);
    let mut pending = String::from(r#"{"table":"results","rows":["#);
    let mut rows = 0usize;
    for i in 0..deltas {
        let piece = if i + 1 == deltas {
            pending.push_str("]}");
            std::mem::take(&mut pending)
        } else {
            let size = 4 + rng.below(13);
            while pending.len() < size {
                if rows > 0 {
                    pending.push(',');
                }
                row(&mut pending, rows);
                rows += 1;
            }
            let rest = pending.split_off(size);
            std::mem::replace(&mut pending, rest)
        };
        let mut f = String::from(r#"{"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"#);
        push_json_str(&mut f, &piece);
        f.push('}');
        w.frame(&f);
    }
    w.frame(r#"{"type":"TOOL_CALL_END","toolCallId":"call-1"}"#);
    w.frame(r#"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}"#);
    w.finish(format!("tool_args-{deltas}"))
}

/// Row `i` of [`tool_args`].
fn row(out: &mut String, i: usize) {
    let _ = write!(
        out,
        r#"{{"id":{i},"name":"row {i}","score":{}.{},"active":{},"tags":["t{}","t{}"],"note":null,"quote":"say \"hi\""}}"#,
        i % 97,
        i % 10,
        !i.is_multiple_of(3),
        i % 5,
        i % 7
    );
}

/// Two large frames: a `STATE_SNAPSHOT` of `items` records and a
/// `MESSAGES_SNAPSHOT` of `items` messages (user, assistant with a tool
/// call, tool result, assistant text, in turn).
pub fn snapshots(items: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    let mut rng = Rng::new(3);
    w.frame(r#"{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}"#);
    let mut state = String::from(r#"{"type":"STATE_SNAPSHOT","snapshot":{"items":["#);
    for i in 0..items {
        if i > 0 {
            state.push(',');
        }
        let _ = write!(state, r#"{{"id":"item-{i}","title":"#);
        push_json_str(&mut state, &phrase(&mut rng));
        let _ = write!(
            state,
            r#","price":{}.{:02},"stock":{},"flags":{{"new":{},"sale":false}},"tags":["a","b{}"],"parent":null}}"#,
            i % 1000,
            i % 100,
            i * 7 % 500,
            i.is_multiple_of(2),
            i % 9
        );
    }
    state.push_str(r#"],"total":"#);
    let _ = write!(state, "{items}");
    state.push_str("}}");
    w.frame(&state);

    let mut msgs = String::from(r#"{"type":"MESSAGES_SNAPSHOT","messages":["#);
    for i in 0..items {
        if i > 0 {
            msgs.push(',');
        }
        let text = phrase(&mut rng);
        match i % 4 {
            0 => {
                let _ = write!(msgs, r#"{{"id":"m-{i}","role":"user","content":"#);
                push_json_str(&mut msgs, &text);
                msgs.push('}');
            }
            1 => {
                let _ = write!(
                    msgs,
                    r#"{{"id":"m-{i}","role":"assistant","toolCalls":[{{"id":"c-{i}","type":"function","function":{{"name":"lookup","arguments":"{{\"q\":\"item {i}\"}}"}}}}]}}"#
                );
            }
            2 => {
                let _ = write!(
                    msgs,
                    r#"{{"id":"m-{i}","role":"tool","toolCallId":"c-{}","content":"#,
                    i - 1
                );
                push_json_str(&mut msgs, &text);
                msgs.push('}');
            }
            _ => {
                let _ = write!(msgs, r#"{{"id":"m-{i}","role":"assistant","content":"#);
                push_json_str(&mut msgs, &text);
                msgs.push('}');
            }
        }
    }
    msgs.push_str("]}");
    w.frame(&msgs);
    w.frame(r#"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}"#);
    w.finish(format!("snapshots-{items}"))
}

/// The hostile workloads, by name, for the benchmarks and the cost test.
pub const HOSTILE: &[&str] = &[
    "many_snapshots",
    "state_copies",
    "activity_deltas",
    "parallel_results",
    "state_removals",
];

const START: &str = r#"{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}"#;
const FINISH: &str = r#"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}"#;

/// `count` numbers `0,1,2,...` as JSON array items.
fn numbers(count: usize) -> String {
    let mut out = String::with_capacity(count * 7);
    for i in 0..count {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}", i % 100_000);
    }
    out
}

/// A user message, `n` activity messages, then `0.6 n` tiny snapshots:
/// each keeps the user message (replaced in place, at the front), drops
/// the message the previous snapshot added and adds one.
pub fn many_snapshots(n: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    w.frame(START);
    w.frame(
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u0","role":"user","content":"hi"}]}"#,
    );
    for i in 0..n {
        w.frame(&activity_snapshot(i));
    }
    tiny_snapshots(&mut w, n, "");
    w.frame(FINISH);
    w.finish(format!("many_snapshots-{n}"))
}

/// An `ACTIVITY_SNAPSHOT` that makes activity message `act-{i}`.
fn activity_snapshot(i: usize) -> String {
    format!(
        r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"act-{i}","activityType":"PLAN","content":{{"step":{i}}}}}"#
    )
}

/// `0.6 n` tiny `MESSAGES_SNAPSHOT`s: each keeps the user message `u0`,
/// drops the message the previous one added and adds one; every other one
/// carries `odd_metadata` (a `,"metadata":...` member, or nothing).
fn tiny_snapshots(w: &mut Writer, n: usize, odd_metadata: &str) {
    for k in 0..n * 3 / 5 {
        let metadata = if k % 2 == 1 { odd_metadata } else { "" };
        w.frame(&format!(
            r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{{"id":"u0","role":"user","content":"hi"}},{{"id":"x-{k}","role":"assistant","content":"ok"}}]{metadata}}}"#
        ));
    }
}

/// AG-UI 1.0 (read it with the client in 1.0 mode): a user message, `n`
/// activity messages and `n` reasoning messages, then `0.6 n` tiny
/// snapshots as in [`many_snapshots`], every other one authoritative for
/// an activity type no message has. None names an activity or reasoning
/// message, so all of those are client-only and kept: a snapshot that
/// looked at each of them would cost in proportion to what is held.
pub fn kept_snapshots(n: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    w.frame(START);
    w.frame(
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u0","role":"user","content":"hi"}]}"#,
    );
    for i in 0..n {
        w.frame(&activity_snapshot(i));
        w.frame(&format!(
            r#"{{"type":"REASONING_MESSAGE_START","messageId":"r-{i}","role":"reasoning"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"REASONING_MESSAGE_CONTENT","messageId":"r-{i}","delta":"step {i}"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"REASONING_MESSAGE_END","messageId":"r-{i}"}}"#
        ));
    }
    let authority = r#","metadata":{"@ag-ui/client":{"authoritativeActivityTypes":["SEARCH"]}}"#;
    tiny_snapshots(&mut w, n, authority);
    w.frame(FINISH);
    w.finish(format!("kept_snapshots-{n}"))
}

/// A state of `60 n` numbers, then `0.6 n` deltas that each copy one.
pub fn state_copies(n: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    w.frame(START);
    w.frame(&format!(
        r#"{{"type":"STATE_SNAPSHOT","snapshot":{{"a":[{}],"b":0}}}}"#,
        numbers(60 * n)
    ));
    for k in 0..n * 3 / 5 {
        w.frame(&format!(
            r#"{{"type":"STATE_DELTA","delta":[{{"op":"copy","from":"/a/{}","path":"/b"}}]}}"#,
            k % (60 * n).max(1)
        ));
    }
    w.frame(FINISH);
    w.finish(format!("state_copies-{n}"))
}

/// An activity whose content is `60 n` numbers, then `2 n` one-op deltas.
pub fn activity_deltas(n: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    w.frame(START);
    w.frame(&format!(
        r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"TABLE","content":{{"rows":[{}],"n":0}}}}"#,
        numbers(60 * n)
    ));
    for k in 0..2 * n {
        w.frame(&format!(
            r#"{{"type":"ACTIVITY_DELTA","messageId":"act","activityType":"TABLE","patch":[{{"op":"replace","path":"/n","value":{k}}}]}}"#
        ));
    }
    w.frame(FINISH);
    w.finish(format!("activity_deltas-{n}"))
}

/// AG-UI 1.0: a run that records `n` tool calls, `n` reasoning ids and
/// `n` steps (the steps stay open), then looks them up with small events:
/// for each id, two reasoning messages on it, a tool call result, a
/// one-message snapshot and a step opened and closed; then the `n` steps
/// close. The run ends with `3 n` message ids, `n` tool-call ids and `n`
/// reasoning ids recorded (within `core-v1`'s 256 per table for
/// `n <= 85`).
pub fn owner_lookups(n: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    w.frame(START);
    for i in 0..n {
        w.frame(&format!(
            r#"{{"type":"TOOL_CALL_START","toolCallId":"c-{i:06}","toolCallName":"f"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"TOOL_CALL_END","toolCallId":"c-{i:06}"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"REASONING_START","messageId":"r-{i:06}"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"REASONING_END","messageId":"r-{i:06}"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"STEP_STARTED","stepName":"s-{i:06}"}}"#
        ));
    }
    for i in 0..n {
        for _ in 0..2 {
            w.frame(&format!(
                r#"{{"type":"REASONING_MESSAGE_START","messageId":"r-{i:06}","role":"reasoning"}}"#
            ));
            w.frame(&format!(
                r#"{{"type":"REASONING_MESSAGE_CONTENT","messageId":"r-{i:06}","delta":"ok"}}"#
            ));
            w.frame(&format!(
                r#"{{"type":"REASONING_MESSAGE_END","messageId":"r-{i:06}"}}"#
            ));
        }
        w.frame(&format!(
            r#"{{"type":"TOOL_CALL_RESULT","messageId":"t-{i:06}","toolCallId":"c-{i:06}","content":"done"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{{"id":"m-{i:06}","role":"user","content":"hi"}}]}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"STEP_STARTED","stepName":"x-{i:06}"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"STEP_FINISHED","stepName":"x-{i:06}"}}"#
        ));
    }
    for i in 0..n {
        w.frame(&format!(
            r#"{{"type":"STEP_FINISHED","stepName":"s-{i:06}"}}"#
        ));
    }
    w.frame(FINISH);
    w.finish(format!("owner_lookups-{n}"))
}

/// One assistant message with `n` tool calls, then their `n` results.
pub fn parallel_results(n: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    w.frame(START);
    w.frame(r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#);
    w.frame(r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#);
    for i in 0..n {
        w.frame(&format!(
            r#"{{"type":"TOOL_CALL_START","toolCallId":"c-{i}","toolCallName":"f","parentMessageId":"a"}}"#
        ));
        w.frame(&format!(
            r#"{{"type":"TOOL_CALL_END","toolCallId":"c-{i}"}}"#
        ));
    }
    for i in 0..n {
        w.frame(&format!(
            r#"{{"type":"TOOL_CALL_RESULT","messageId":"r-{i}","toolCallId":"c-{i}","content":"done"}}"#
        ));
    }
    w.frame(FINISH);
    w.finish(format!("parallel_results-{n}"))
}

/// A state of `n` keys each holding a 60-number array, then `n` deltas:
/// half remove a key and then fail (rolled back), half remove one for real.
pub fn state_removals(n: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    w.frame(START);
    let row = numbers(60);
    let mut snap = String::from(r#"{"type":"STATE_SNAPSHOT","snapshot":{"#);
    for i in 0..n {
        if i > 0 {
            snap.push(',');
        }
        let _ = write!(snap, r#""k{i}":[{row}]"#);
    }
    snap.push_str("}}");
    w.frame(&snap);
    for i in 0..n {
        let tail = if i % 2 == 0 {
            r#",{"op":"test","path":"/missing","value":1}"#
        } else {
            ""
        };
        w.frame(&format!(
            r#"{{"type":"STATE_DELTA","delta":[{{"op":"remove","path":"/k{i}"}}{tail}]}}"#
        ));
    }
    w.frame(FINISH);
    w.finish(format!("state_removals-{n}"))
}

/// The memory stream of issue 11: `n` text deltas each carrying a distinct
/// `metadata` key of `size` bytes, then `n` tool results whose message ids
/// are `size` bytes.
pub fn retained(n: usize, size: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    w.frame(START);
    w.frame(r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#);
    let pad = "k".repeat(size.saturating_sub(12));
    for i in 0..n {
        w.frame(&format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","metadata":{{"{i:012}{pad}":1}}}}"#
        ));
    }
    w.frame(r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#);
    for i in 0..n {
        w.frame(&format!(
            r#"{{"type":"TOOL_CALL_RESULT","messageId":"{i:012}{pad}","toolCallId":"c","content":"r"}}"#
        ));
    }
    w.frame(FINISH);
    w.finish(format!("retained-{n}x{size}"))
}

/// A random hostile stream, for the cost-bound property test: `n` pieces of
/// history (activities with 60-number contents, 60-number arrays in the
/// state, tool calls on one assistant message), then `n` small events
/// chosen by `seed` among the kinds that used to cost time proportional to
/// that history (tiny `MESSAGES_SNAPSHOT`s, `copy` deltas, activity deltas,
/// tool results, failing removals, metadata merges, activity metadata).
pub fn hostile_mix(seed: u64, n: usize, encoding: Encoding) -> Workload {
    let mut w = Writer::new(encoding);
    let mut rng = Rng::new(seed);
    let row = numbers(60);
    w.frame(START);
    w.frame(r#"{"type":"STATE_SNAPSHOT","snapshot":{"s":{},"t":0}}"#);
    w.frame(r#"{"type":"TEXT_MESSAGE_START","messageId":"owner","role":"assistant"}"#);
    w.frame(r#"{"type":"TEXT_MESSAGE_END","messageId":"owner"}"#);
    w.frame(r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#);
    for i in 0..n {
        match i % 3 {
            0 => w.frame(&format!(
                r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"act-{i}","activityType":"T","content":{{"v":[{row}]}}}}"#
            )),
            1 => w.frame(&format!(
                r#"{{"type":"STATE_DELTA","delta":[{{"op":"add","path":"/s/k{i}","value":[{row}]}}]}}"#
            )),
            _ => {
                w.frame(&format!(
                    r#"{{"type":"TOOL_CALL_START","toolCallId":"c-{i}","toolCallName":"f","parentMessageId":"owner"}}"#
                ));
                w.frame(&format!(r#"{{"type":"TOOL_CALL_END","toolCallId":"c-{i}"}}"#));
            }
        }
    }
    // A history item of the kind `i % 3 == kind`, chosen at random.
    let mut pick = |kind: usize| {
        let i = rng.below(n.div_ceil(3).max(1)) * 3 + kind;
        if i < n {
            i
        } else {
            kind
        }
    };
    for j in 0..n {
        let frame = match j % 8 {
            0 => format!(
                r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{{"id":"m","role":"assistant","content":"x"}},{{"id":"x-{j}","role":"user","content":"hi"}}]}}"#
            ),
            1 => format!(
                r#"{{"type":"STATE_DELTA","delta":[{{"op":"copy","from":"/s/k{}/7","path":"/t"}}]}}"#,
                pick(1)
            ),
            2 => format!(
                r#"{{"type":"ACTIVITY_DELTA","messageId":"act-{}","activityType":"T","patch":[{{"op":"replace","path":"/v/3","value":{j}}}]}}"#,
                pick(0)
            ),
            3 => format!(
                r#"{{"type":"TOOL_CALL_RESULT","messageId":"r-{j}","toolCallId":"c-{}","content":"ok"}}"#,
                pick(2)
            ),
            4 => format!(
                r#"{{"type":"STATE_DELTA","delta":[{{"op":"remove","path":"/s/k{}"}},{{"op":"test","path":"/none","value":1}}]}}"#,
                pick(1)
            ),
            5 => format!(
                r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"y","metadata":{{"k{}":[1,2]}}}}"#,
                j % 5
            ),
            6 => format!(
                r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"act-{}","activityType":"T","content":{{}},"replace":false,"metadata":{{"seen":{j}}}}}"#,
                pick(0)
            ),
            _ => {
                r#"{"type":"STATE_DELTA","delta":[{"op":"move","from":"/t","path":"/u"},{"op":"move","from":"/u","path":"/t"}]}"#
                    .to_owned()
            }
        };
        w.frame(&frame);
    }
    w.frame(r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#);
    w.frame(FINISH);
    w.finish(format!("mix:{seed}-{n}"))
}

/// Words for [`phrase`]; a few need escaping or are not ASCII.
const WORDS: &[&str] = &[
    "the",
    "weather",
    "in",
    "Paris",
    "is",
    "mild",
    "today,",
    "with",
    "a",
    "light",
    "breeze",
    "from",
    "west.",
    "I",
    "can",
    "also",
    "check",
    "tomorrow's",
    "forecast",
    "if",
    "you",
    "like;",
    "here",
    "are",
    "results",
    "for",
    "your",
    "query:",
    "temperature",
    "humidity",
    "and",
    "wind",
    "speed",
    "are",
    "all",
    "within",
    "normal",
    "ranges",
    "for",
    "this",
    "time",
    "of",
    "year.",
];

/// Rare pieces: an escape or a non-ASCII character.
const RARE: &[&str] = &[
    "\n",
    "\"quoted\"",
    "café",
    "— ",
    "naïve",
    "😀",
    "\n\n",
    "C:\\temp",
];

/// A text delta of 1 to 12 words, with a space after each.
fn phrase(rng: &mut Rng) -> String {
    let mut out = String::new();
    for _ in 0..1 + rng.below(12) {
        out.push_str(WORDS[rng.below(WORDS.len())]);
        out.push(' ');
    }
    if rng.below(8) == 0 {
        out.push_str(RARE[rng.below(RARE.len())]);
    }
    out
}

/// Appends `s` as a JSON string literal.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Collects the frames of one stream.
struct Writer {
    encoding: Encoding,
    bytes: Vec<u8>,
    events: usize,
}

impl Writer {
    fn new(encoding: Encoding) -> Self {
        Writer {
            encoding,
            bytes: Vec::new(),
            events: 0,
        }
    }

    /// One event, given as its JSON text (one line).
    fn frame(&mut self, json: &str) {
        debug_assert!(!json.contains('\n'));
        match self.encoding {
            Encoding::Sse => {
                self.bytes.extend_from_slice(b"data: ");
                self.bytes.extend_from_slice(json.as_bytes());
                self.bytes.extend_from_slice(b"\n\n");
            }
            Encoding::Ndjson => {
                self.bytes.extend_from_slice(json.as_bytes());
                self.bytes.push(b'\n');
            }
        }
        self.events += 1;
    }

    fn finish(self, name: String) -> Workload {
        Workload {
            name,
            bytes: self.bytes,
            events: self.events,
        }
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agui_alloc::client::Client;
    use agui_core::pipeline::{DefaultPipeline, Output};

    fn all(n: usize, encoding: Encoding) -> Vec<Workload> {
        vec![
            chat(n, encoding),
            tool_args(n, encoding),
            snapshots(n / 10, encoding),
            many_snapshots(n / 10, encoding),
            state_copies(n / 10, encoding),
            activity_deltas(n / 10, encoding),
            parallel_results(n / 10, encoding),
            state_removals(n / 10, encoding),
            hostile_mix(1, n / 10, encoding),
            hostile_mix(2, n / 5, encoding),
        ]
    }

    /// Every workload is a valid stream for the core and for the client,
    /// with one verified event per frame.
    #[test]
    fn workloads_are_accepted_whole() {
        for encoding in [Encoding::Sse, Encoding::Ndjson] {
            for w in all(1000, encoding) {
                let mut p = DefaultPipeline::new();
                let mut events = 0;
                p.feed(&w.bytes, |out| {
                    if let Output::Event(_) = out {
                        events += 1;
                    }
                })
                .unwrap_or_else(|e| panic!("{}: {e}", w.name));
                p.finish(|_| {}).unwrap();
                assert_eq!(events, w.events, "{}", w.name);
                assert_eq!(p.accepted() as usize, w.events, "{}", w.name);

                let mut client = Client::new();
                client
                    .feed(&w.bytes)
                    .unwrap_or_else(|e| panic!("{}: {e}", w.name));
                client.finish().unwrap();
                assert_eq!(client.accepted() as usize, w.events, "{}", w.name);
            }
        }
    }

    /// `owner_lookups` is a valid AG-UI 1.0 stream for the core with
    /// `core-v1`'s tables (256 entries each), at the largest `n` it fits.
    #[test]
    fn owner_lookups_is_accepted_in_1_0() {
        type Core = agui_core::Pipeline<64, 8, 8, 8, 32, 256, 4, agui_core::decode::V1>;
        let w = owner_lookups(85, Encoding::Ndjson);
        let mut p = Box::new(Core::new());
        p.set_protocol(agui_core::Select::Fixed(agui_core::Protocol::V1));
        let mut events = 0;
        let mut on = |out: Output<'_>| match out {
            Output::Event(_) => events += 1,
            Output::Error(e) => panic!("{e}"),
            Output::Part(_) => {}
        };
        p.feed(&w.bytes, &mut on).unwrap();
        p.finish(&mut on).unwrap();
        assert_eq!(events, w.events);
    }

    #[test]
    fn chat_has_the_documented_shape() {
        let w = chat(2000, Encoding::Ndjson);
        let mut client = Client::new();
        client.feed(&w.bytes).unwrap();
        // 10 messages, 2 tool calls (each an assistant message with the
        // call appended to its parent, plus a tool result).
        let messages = client.messages();
        assert_eq!(messages.len(), 10 + 2);
        assert_eq!(client.state()["messages"], 10);
        assert_eq!(client.state()["log"].as_array().unwrap().len(), 10);
        let deltas = documents(&w.bytes)
            .filter(|d| d.starts_with(br#"{"type":"TEXT_MESSAGE_CONTENT""#))
            .count();
        assert_eq!(deltas, 2000);
    }

    #[test]
    fn tool_args_build_the_rows() {
        let w = tool_args(3000, Encoding::Sse);
        let mut client = Client::new();
        client.feed(&w.bytes).unwrap();
        client.finish().unwrap();
        let args = client.reducer().final_args("call-1").unwrap();
        let rows = args["rows"].as_array().unwrap();
        assert!(rows.len() > 200, "{}", rows.len());
        assert_eq!(rows[7]["quote"], "say \"hi\"");
        assert_eq!(args["table"], "results");
    }

    #[test]
    fn snapshots_hold_n_items() {
        let w = snapshots(500, Encoding::Sse);
        let mut client = Client::new();
        client.feed(&w.bytes).unwrap();
        assert_eq!(client.messages().len(), 500);
        assert_eq!(client.state()["items"].as_array().unwrap().len(), 500);
    }
}
