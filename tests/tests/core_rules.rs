//! One test per rule of the core: every verifier rule (SPEC section 4),
//! every kind of bad frame (section 2), the chunk rules (section 3), the
//! capacity limits exactly at and one past the limit, and recovery after an
//! error (reset, keep-going).

use agui_core::error::{Code, Detail, Stage, Table};
use agui_core::pipeline::{Mode, Output, Pipeline};
use agui_core::EventType;

/// A pipeline with small tables, so the capacity tests stay short.
type Small = Pipeline<8, 2, 2, 2, 4>;
type Default = agui_core::DefaultPipeline;

const START: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
const FINISH: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;

fn ndjson(frames: &[&str]) -> Vec<u8> {
    frames
        .iter()
        .flat_map(|f| f.bytes().chain(*b"\n"))
        .collect()
}

/// Feeds the frames as NDJSON; the verified event types, or the error as
/// (frame, stage, code).
fn run_with<const I: usize, const M: usize, const T: usize, const S: usize, const D: usize>(
    p: &mut Pipeline<I, M, T, S, D>,
    frames: &[&str],
) -> Result<Vec<EventType>, (u32, Stage, Code)> {
    let mut kinds = Vec::new();
    let bytes = ndjson(frames);
    let fed = p.feed(&bytes, |out| {
        if let Output::Event(ev) = out {
            kinds.push(ev.kind);
        }
    });
    fed.and_then(|()| p.finish(|_| {}))
        .map(|()| kinds)
        .map_err(|e| (e.frame, e.stage, e.code))
}

fn run(frames: &[&str]) -> Result<Vec<EventType>, (u32, Stage, Code)> {
    run_with(&mut Default::new(), frames)
}

fn fails(frames: &[&str], frame: u32, code: Code) {
    let stage = match code {
        Code::Decode => Stage::Decode,
        Code::ChunkMissingId | Code::ChunkMissingName => Stage::Transform,
        _ => Stage::Verify,
    };
    assert_eq!(
        run(frames).map(|_| ()),
        Err((frame, stage, code)),
        "{frames:?}"
    );
}

fn ok(frames: &[&str]) {
    assert!(run(frames).is_ok(), "{frames:?}: {:?}", run(frames));
}

fn text_start(id: &str) -> String {
    format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}"}}"#)
}
fn text_content(id: &str) -> String {
    format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"x"}}"#)
}
fn text_end(id: &str) -> String {
    format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{id}"}}"#)
}
fn tool_start(id: &str) -> String {
    format!(r#"{{"type":"TOOL_CALL_START","toolCallId":"{id}","toolCallName":"f"}}"#)
}
fn tool_args(id: &str) -> String {
    format!(r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"{id}","delta":"{{}}"}}"#)
}
fn tool_end(id: &str) -> String {
    format!(r#"{{"type":"TOOL_CALL_END","toolCallId":"{id}"}}"#)
}
fn step(kind: &str, name: &str) -> String {
    format!(r#"{{"type":"{kind}","stepName":"{name}"}}"#)
}
fn bare(kind: &str) -> String {
    format!(r#"{{"type":"{kind}"}}"#)
}

// ---- Verification (SPEC section 4), in the order the checks run ----

#[test]
fn run_errored_allows_only_run_started() {
    let error = r#"{"type":"RUN_ERROR","message":"boom"}"#;
    fails(&[START, error, &text_start("m")], 2, Code::RunErrored);
    fails(&[START, error, error], 2, Code::RunErrored);
    ok(&[START, error, START, FINISH]);
}

#[test]
fn run_finished_allows_run_started_or_run_error() {
    fails(&[START, FINISH, &text_start("m")], 2, Code::RunFinished);
    fails(&[START, FINISH, FINISH], 2, Code::RunFinished);
    ok(&[START, FINISH, r#"{"type":"RUN_ERROR","message":"late"}"#]);
    ok(&[START, FINISH, START, FINISH]);
}

#[test]
fn first_event_must_start_or_error_a_run() {
    fails(&[&text_start("m")], 0, Code::FirstEvent);
    fails(&[&bare("THINKING_START")], 0, Code::FirstEvent);
    ok(&[r#"{"type":"RUN_ERROR","message":"no run"}"#]);
    ok(&[START]);
}

#[test]
fn run_started_while_active() {
    fails(&[START, START], 1, Code::RunActive);
}

#[test]
fn a_new_run_resets_everything() {
    let error = r#"{"type":"RUN_ERROR","message":"x"}"#;
    // Open items of an errored run are forgotten by the next RUN_STARTED.
    ok(&[
        START,
        &text_start("m"),
        &tool_start("c"),
        &step("STEP_STARTED", "s"),
        error,
        START,
        FINISH,
    ]);
    ok(&[
        START,
        &bare("THINKING_START"),
        error,
        START,
        &bare("THINKING_START"),
    ]);
}

#[test]
fn text_message_rules() {
    fails(
        &[START, &text_start("m"), &text_start("m")],
        2,
        Code::MessageActive,
    );
    fails(&[START, &text_content("m")], 1, Code::MessageNotActive);
    fails(&[START, &text_end("m")], 1, Code::MessageNotActive);
    fails(
        &[START, &text_start("m"), &text_end("m"), &text_content("m")],
        3,
        Code::MessageNotActive,
    );
    // Concurrent messages with distinct ids, and reuse after END.
    ok(&[
        START,
        &text_start("a"),
        &text_start("b"),
        &text_end("a"),
        &text_end("b"),
        &text_start("a"),
        &text_end("a"),
        FINISH,
    ]);
}

#[test]
fn tool_call_rules() {
    fails(
        &[START, &tool_start("c"), &tool_start("c")],
        2,
        Code::ToolCallActive,
    );
    fails(&[START, &tool_args("c")], 1, Code::ToolCallNotActive);
    fails(&[START, &tool_end("c")], 1, Code::ToolCallNotActive);
    ok(&[
        START,
        &tool_start("a"),
        &tool_start("b"),
        &tool_args("b"),
        &tool_end("a"),
        &tool_end("b"),
        FINISH,
    ]);
}

#[test]
fn step_rules() {
    fails(
        &[
            START,
            &step("STEP_STARTED", "s"),
            &step("STEP_STARTED", "s"),
        ],
        2,
        Code::StepActive,
    );
    fails(
        &[START, &step("STEP_FINISHED", "s")],
        1,
        Code::StepNotActive,
    );
    ok(&[
        START,
        &step("STEP_STARTED", "s"),
        &step("STEP_FINISHED", "s"),
        FINISH,
    ]);
}

#[test]
fn run_finished_needs_everything_closed_steps_first() {
    let all = [
        START,
        &text_start("m"),
        &tool_start("c"),
        &step("STEP_STARTED", "s"),
        FINISH,
    ];
    fails(&all, 4, Code::UnclosedSteps);
    fails(
        &[START, &text_start("m"), &tool_start("c"), FINISH],
        3,
        Code::UnclosedMessages,
    );
    fails(
        &[START, &tool_start("c"), FINISH],
        2,
        Code::UnclosedToolCalls,
    );
}

#[test]
fn unclosed_lists_name_the_ids_in_order() {
    let mut p = Default::new();
    let bytes = ndjson(&[START, &text_start("b"), &text_start("c"), FINISH]);
    let err = p.feed(&bytes, |_| {}).unwrap_err();
    assert_eq!(err.code, Code::UnclosedMessages);
    assert!(matches!(&err.detail, Detail::Open { list, count: 2 } if list.as_str() == "b, c"));
    assert!(err.to_string().contains("b, c"), "{err}");
}

#[test]
fn thinking_rules() {
    let ts = bare("THINKING_START");
    let te = bare("THINKING_END");
    let ms = bare("THINKING_TEXT_MESSAGE_START");
    let me = bare("THINKING_TEXT_MESSAGE_END");
    let mc = r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"d"}"#;
    fails(&[START, &ts, &ts], 2, Code::ThinkingActive);
    fails(&[START, &te], 1, Code::ThinkingNotActive);
    fails(&[START, &ms], 1, Code::ThinkingNotActive);
    fails(&[START, &ts, &ms, &ms], 3, Code::ThinkingMessageActive);
    fails(&[START, &ts, mc], 2, Code::ThinkingMessageNotActive);
    fails(&[START, &ts, &me], 2, Code::ThinkingMessageNotActive);
    ok(&[START, &ts, &ms, mc, &me, &te, &ts, &te, FINISH]);
}

#[test]
fn other_events_have_no_ordering_rule() {
    ok(&[
        START,
        r#"{"type":"CUSTOM","name":"n","value":[1,{"a":null}]}"#,
        r#"{"type":"RAW","event":{"x":1}}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"a":1}}"#,
        r#"{"type":"STATE_DELTA","delta":[]}"#,
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[]}"#,
        r#"{"type":"REASONING_START","messageId":"r"}"#,
        r#"{"type":"TOOL_CALL_RESULT","messageId":"x","toolCallId":"nope","content":"c"}"#,
        FINISH,
    ]);
}

#[test]
fn the_offending_id_is_in_the_error_and_its_text() {
    let mut p = Default::new();
    let err = p
        .feed(&ndjson(&[START, &text_content("m-42")]), |_| {})
        .unwrap_err();
    assert_eq!(err.id(), Some("m-42"));
    let text = err.to_string();
    assert!(
        text.starts_with("frame 1: verify error [message_not_active]"),
        "{text}"
    );
    assert!(
        text.contains("'m-42'") && text.contains("TEXT_MESSAGE_START"),
        "{text}"
    );
}

// ---- Decoding (SPEC section 2): each kind of bad frame ----

#[test]
fn bad_frames_are_decode_errors_naming_the_frame() {
    let bad: &[&str] = &[
        r#"{"type":"RUN_STARTED","threadId":"t""#,  // cut JSON
        r#"{"type":"RUN_STARTED",}"#,               // invalid JSON
        r#"["RUN_STARTED"]"#,                       // not an object
        r#"{"threadId":"t","runId":"r"}"#,          // no type
        r#"{"type":5}"#,                            // type not a string
        r#"{"type":"NOT_A_REAL_EVENT"}"#,           // unknown type
        r#"{"type":"RUN_STARTED","threadId":"t"}"#, // missing field
        r#"{"type":"RUN_STARTED","threadId":"t","runId":7}"#, // mistyped field
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}"#, // bad enum value
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","metadata":null}"#,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":"now"}"#,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","extra":1}}"#,
        r#"{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":1.5}]}"#,
        r#"{"type":"RUN_ERROR","message":"m","usage":[{"outputTokens":-1}]}"#,
        r#"{"type":"RUN_ERROR","message":"m","usage":[5]}"#,
        r#"{"type":"RUN_ERROR","message":"m","usage":[{"provider":5}]}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"a","reason":"b"},5]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"a","reason":"b","expiresAt":5}]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"a","reason":"b","metadata":5}]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":7}}"#,
        r#"{"type":"REASONING_MESSAGE_START","messageId":"r"}"#,
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"p","content":[1]}"#,
        r#"{"type":"STATE_DELTA","delta":{}}"#,
        "",
    ];
    for frame in bad {
        let frames = [START, frame];
        let mut p = Default::new();
        let bytes = if frame.is_empty() {
            // An SSE event whose data is empty is a frame with empty text.
            format!("data: {START}\n\ndata:\n\n").into_bytes()
        } else {
            ndjson(&frames)
        };
        let err = p
            .feed(&bytes, |_| {})
            .and_then(|()| p.finish(|_| {}))
            .unwrap_err();
        assert_eq!(
            (err.frame, err.stage, err.code),
            (1, Stage::Decode, Code::Decode),
            "{frame}"
        );
        assert!(
            err.to_string()
                .starts_with("frame 1: decode error [decode]: "),
            "{err}"
        );
    }
}

#[test]
fn invalid_utf8_names_the_byte_offset() {
    let mut bytes = ndjson(&[START]);
    bytes.extend_from_slice(b"{\"type\":\"CUSTOM\",\"name\":\"\xff\"}\n");
    let mut p = Default::new();
    let err = p.feed(&bytes, |_| {}).unwrap_err();
    assert_eq!((err.frame, err.code), (1, Code::Decode));
    assert!(
        matches!(err.detail, Detail::Json { offset: 25, .. }),
        "{:?}",
        err.detail
    );
    assert!(err.to_string().contains("invalid UTF-8"), "{err}");
}

#[test]
fn valid_outcomes_and_usage_pass() {
    ok(&[
        START,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"a","reason":"b","expiresAt":"soon","metadata":{"n":5}}]},"usage":[{"provider":"p","inputTokens":12,"outputTokens":1.5e1,"totalTokens":0}]}"#,
    ]);
}

#[test]
fn unknown_fields_and_any_field_order_are_fine() {
    ok(&[
        r#"{"runId":"r","vendor":{"deep":[1,2,{"x":"y"}]},"threadId":"t","type":"RUN_STARTED"}"#,
        r#"{"delta":"hi","messageId":"m","type":"TEXT_MESSAGE_CHUNK"}"#,
        r#"{"outcome":{"bogus":true},"type":"CUSTOM","name":"n"}"#,
        FINISH,
    ]);
}

#[test]
fn optional_values_and_defaults() {
    ok(&[
        START,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":null}"#,
        &tool_end("c"),
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":null,"result":null}"#,
    ]);
    let mut p = Default::new();
    let mut role = None;
    p.feed(&ndjson(&[START, &text_start("m")]), |out| {
        if let Output::Event(ev) = out {
            if ev.kind == EventType::TextMessageStart {
                role = Some(ev.role);
            }
        }
    })
    .unwrap();
    assert_eq!(role, Some(agui_core::event::Role::Assistant));
}

// ---- Chunk expansion (SPEC section 3) ----

#[test]
fn chunks_expand_and_close() {
    let kinds = run(&[
        START,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"b"}"#,
        r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","delta":"{"}"#,
        r#"{"type":"RAW","event":1}"#,
        r#"{"type":"TOOL_CALL_CHUNK","delta":"}"}"#,
        FINISH,
    ])
    .unwrap();
    use EventType as T;
    assert_eq!(
        kinds,
        [
            T::RunStarted,
            T::TextMessageStart,
            T::TextMessageContent,
            T::TextMessageContent,
            T::TextMessageEnd,
            T::ToolCallStart,
            T::ToolCallArgs,
            T::Raw,
            T::ToolCallArgs,
            T::ToolCallEnd,
            T::RunFinished
        ]
    );
}

#[test]
fn chunk_errors_emit_nothing_from_their_frame() {
    fails(
        &[START, r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"x"}"#],
        1,
        Code::ChunkMissingId,
    );
    fails(
        &[START, r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c"}"#],
        1,
        Code::ChunkMissingName,
    );
    fails(
        &[START, r#"{"type":"REASONING_MESSAGE_CHUNK","delta":"x"}"#],
        1,
        Code::ChunkMissingId,
    );
    // The open text item is not closed by the failing tool chunk.
    let mut p = Default::new();
    let frames = [
        START,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m"}"#,
        r#"{"type":"TOOL_CALL_CHUNK"}"#,
    ];
    let mut kinds = Vec::new();
    let err = p
        .feed(&ndjson(&frames), |out| {
            if let Output::Event(ev) = out {
                kinds.push(ev.kind);
            }
        })
        .unwrap_err();
    assert_eq!(err.code, Code::ChunkMissingId);
    assert_eq!(kinds, [EventType::RunStarted, EventType::TextMessageStart]);
}

// ---- Capacities: exactly at the limit, and one past it ----

#[test]
fn tables_fill_exactly_to_their_capacity() {
    let mut p = Small::new();
    assert!(run_with(&mut p, &[START, &text_start("a"), &text_start("b")]).is_ok());
    let mut p = Small::new();
    let err = p.feed(
        &ndjson(&[START, &text_start("a"), &text_start("b"), &text_start("c")]),
        |_| {},
    );
    let err = err.unwrap_err();
    assert_eq!(
        (err.frame, err.stage, err.code),
        (3, Stage::Verify, Code::Capacity)
    );
    assert!(matches!(
        err.detail,
        Detail::Capacity {
            table: Table::Messages,
            limit: 2,
            ..
        }
    ));
    assert!(
        err.to_string().contains("all 2 active messages are in use"),
        "{err}"
    );
    // Issue 11: the message names the id that did not fit (SPEC section 4).
    assert_eq!(err.id(), Some("c"));
    assert!(
        err.to_string()
            .contains("cannot send 'TEXT_MESSAGE_START' for 'c'"),
        "{err}"
    );

    for (frames, table) in [
        (
            vec![
                START.to_owned(),
                tool_start("a"),
                tool_start("b"),
                tool_start("c"),
            ],
            Table::ToolCalls,
        ),
        (
            vec![
                START.to_owned(),
                step("STEP_STARTED", "a"),
                step("STEP_STARTED", "b"),
                step("STEP_STARTED", "c"),
            ],
            Table::Steps,
        ),
    ] {
        let frames: Vec<&str> = frames.iter().map(String::as_str).collect();
        let mut p = Small::new();
        let err = p.feed(&ndjson(&frames), |_| {}).unwrap_err();
        assert_eq!((err.frame, err.code), (3, Code::Capacity));
        assert!(matches!(err.detail, Detail::Capacity { table: t, limit: 2, .. } if t == table));
        assert!(err.to_string().contains("for 'c'"), "{err}");
    }
}

#[test]
fn ids_fill_exactly_to_their_slot() {
    let fits = "12345678"; // ID = 8 bytes
    assert!(run_with(
        &mut Small::new(),
        &[START, &text_start(fits), &text_end(fits)]
    )
    .is_ok());
    let mut p = Small::new();
    let err = p
        .feed(&ndjson(&[START, &text_start("123456789")]), |_| {})
        .unwrap_err();
    assert_eq!(
        (err.frame, err.stage, err.code),
        (1, Stage::Decode, Code::Capacity)
    );
    assert!(
        err.to_string().contains("longer than the 8-byte id slot"),
        "{err}"
    );
    // A long id in a field the rules do not read is no error.
    assert!(run_with(
        &mut Small::new(),
        &[
            START,
            r#"{"type":"CUSTOM","name":"n","messageId":"a-very-long-id"}"#
        ]
    )
    .is_ok());
}

#[test]
fn nesting_exactly_to_the_depth_limit() {
    // DEPTH = 4: the event object is level 1.
    let at = r#"{"type":"CUSTOM","name":"n","value":[[{}]]}"#;
    let past = r#"{"type":"CUSTOM","name":"n","value":[[[{}]]]}"#;
    assert!(run_with(&mut Small::new(), &[START, at]).is_ok());
    assert_eq!(
        run_with(&mut Small::new(), &[START, past]),
        Err((1, Stage::Decode, Code::Decode))
    );
}

// ---- After an error ----

#[test]
fn strict_mode_stops_and_reset_starts_over() {
    let mut p = Default::new();
    let bad = ndjson(&[START, &text_content("m")]);
    let err = p.feed(&bad, |_| {}).unwrap_err();
    assert_eq!(p.error(), Some(&err));
    assert_eq!(p.feed(&ndjson(&[FINISH]), |_| {}), Err(err));
    p.reset();
    assert_eq!(run_with(&mut p, &[START, FINISH]).map(|k| k.len()), Ok(2));
    assert_eq!(p.accepted(), 2);
}

#[test]
fn keep_going_skips_only_the_bad_frame() {
    let mut p = Default::new();
    p.set_mode(Mode::KeepGoing);
    let bytes = ndjson(&[
        START,
        &text_content("m"),
        "{not json",
        &text_start("m"),
        &text_end("m"),
        FINISH,
    ]);
    let mut kinds = Vec::new();
    let mut errors = Vec::new();
    p.feed(&bytes, |out| match out {
        Output::Event(ev) => kinds.push(ev.kind),
        Output::Error(e) => errors.push((e.frame, e.code)),
        Output::Part(_) => {}
    })
    .unwrap();
    assert_eq!(errors, [(1, Code::MessageNotActive), (2, Code::Decode)]);
    assert_eq!(
        kinds,
        [
            EventType::RunStarted,
            EventType::TextMessageStart,
            EventType::TextMessageEnd,
            EventType::RunFinished
        ]
    );
    assert_eq!(p.accepted(), 4);
}

#[test]
fn std_transport_reads_to_the_end() {
    let bytes = ndjson(&[START, &text_start("m"), &text_end("m"), FINISH]);
    let mut p = Default::new();
    let mut buf = [0u8; 3];
    let accepted = agui_core::io::run_std(&mut &bytes[..], &mut p, &mut buf, |_| {}).unwrap();
    assert_eq!(accepted, 4);
}

/// Issue 11: a chunk that opens an item in a full table names its id.
#[test]
fn a_chunk_opened_item_in_a_full_table_is_named() {
    let chunk = r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"late","delta":"x"}"#;
    let mut p = Small::new();
    let frames = [START, &text_start("a"), &text_start("b"), chunk];
    let err = p.feed(&ndjson(&frames), |_| {}).unwrap_err();
    assert_eq!((err.frame, err.code), (3, Code::Capacity));
    assert_eq!(err.id(), Some("late"));
    assert!(
        err.to_string()
            .contains("cannot send 'TEXT_MESSAGE_START' for 'late'"),
        "{err}"
    );
}
