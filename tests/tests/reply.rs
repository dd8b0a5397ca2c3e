//! The firmware's tool-call side: `ToolArgs` collects exactly the tracked
//! call's argument fragments (never another frame's, never a cut text),
//! and the reply writers fill a caller's buffer.

use agui_core::pipeline::DefaultPipeline;
use agui_core::reply::{tool_result, user_message, ArgsError, ToolArgs};
use serde::Deserialize;

const START: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;

/// Feeds the frames as NDJSON; the collector's results, in order, for the
/// outputs that completed a call or failed.
fn collect<const N: usize>(
    args: &mut ToolArgs<N>,
    frames: &[&str],
) -> Vec<Result<String, ArgsError>> {
    let bytes: String = frames.iter().map(|f| format!("{f}\n")).collect();
    let mut p = DefaultPipeline::new();
    let mut got = Vec::new();
    p.feed(bytes.as_bytes(), |out| match args.on_output(&out) {
        Ok(true) => got.push(Ok(format!("{}:{}", args.name(), args.text()))),
        Ok(false) => {}
        Err(e) => got.push(Err(e)),
    })
    .unwrap();
    got
}

/// `color` may hold an escape, so it is an owned string (a `&str` field
/// borrows from the text and cannot).
#[derive(Deserialize, Debug, PartialEq)]
struct SetLed {
    color: heapless::String<16>,
    on: bool,
}

#[test]
fn explicit_events_and_typed_decoding() {
    let mut args = ToolArgs::<64>::new();
    let got = collect(
        &mut args,
        &[
            START,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"set_led"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"color\":\"gr\\u0065en\","}"#,
            r#"{"type":"CUSTOM","name":"n","value":{"delta":"no"}}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"on\":true}"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        ],
    );
    assert_eq!(
        got,
        // The arguments' own JSON escape stays in the text; parsing decodes it.
        [Ok(r#"set_led:{"color":"gr\u0065en","on":true}"#.to_owned())]
    );
    let mut scratch = [0u8; 16];
    let led: SetLed = args.parse(&mut scratch).unwrap();
    assert_eq!((led.color.as_str(), led.on), ("green", true));
}

#[test]
fn a_chunk_that_closes_the_previous_item_keeps_its_delta() {
    let mut args = ToolArgs::<64>::new();
    let got = collect(
        &mut args,
        &[
            START,
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Sure."}"#,
            r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"set_led","delta":"{\"on\":"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","delta":"true}"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c2","toolCallName":"beep","delta":"{\"n\":2}"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        ],
    );
    assert_eq!(
        got,
        [
            Ok(r#"set_led:{"on":true}"#.to_owned()),
            Ok(r#"beep:{"n":2}"#.to_owned())
        ]
    );
}

#[test]
fn overflow_fails_the_call_instead_of_gluing_the_rest() {
    let mut args = ToolArgs::<20>::new();
    let got = collect(
        &mut args,
        &[
            START,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"on\":true,"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"x\":\"abcdefgh\","}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"y\":1}"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        ],
    );
    let too_long = Err(ArgsError::TooLong { limit: 20 });
    assert_eq!(got, [too_long.clone(), too_long.clone(), too_long]);
    assert!(!args.is_complete());
    assert_eq!(args.text(), "");
    // The next call starts clean.
    let got = collect(
        &mut args,
        &[
            START,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"g"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c2","delta":"{}"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c2"}"#,
        ],
    );
    assert_eq!(got, [Ok("g:{}".to_owned())]);
}

#[test]
fn an_overlapping_call_does_not_replace_the_tracked_one() {
    let mut args = ToolArgs::<64>::new();
    let got = collect(
        &mut args,
        &[
            START,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"set_led"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"beep"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c2","delta":"{\"n\":1}"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"on\":false}"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c2"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        ],
    );
    assert_eq!(got, [Ok(r#"set_led:{"on":false}"#.to_owned())]);
}

#[test]
fn replies_fill_the_callers_buffer_or_say_it_is_full() {
    let mut buf = [0u8; 64];
    let n = user_message(&mut buf, "u1", "hi \"there\"").unwrap();
    assert_eq!(
        &buf[..n],
        br#"{"id":"u1","role":"user","content":"hi \"there\""}"#
    );
    let mut small = [0u8; 16];
    assert!(tool_result(&mut small, "r", "c", "a long result text").is_err());
}
