#!/usr/bin/env python3
"""Event streams made by the official Python SDK, ag-ui-protocol 1.0.0.

One stream per feature (every event type the SDK has) plus a realistic
multi-run stream. Every event is built with the SDK's own models and encoded
with its own EventEncoder (SSE); the JSON of each `data:` line is copied
byte for byte into the stream's "events" array. Output: one line per stream,
{"name": ..., "events": [...]}, for tools/oracle/run.mjs --protocol 1.0.

    python -m venv /tmp/agui-sdk && /tmp/agui-sdk/bin/pip install ag-ui-protocol==1.0.0
    /tmp/agui-sdk/bin/python tools/vectors/sdk_streams.py > /tmp/sdk.jsonl

Needs the SDK installed in the Python running it (not in the repo's venv).
"""

import json
import sys

try:
    from importlib.metadata import version

    from ag_ui import core as c
    from ag_ui.encoder import EventEncoder
except ImportError as err:  # pragma: no cover - a message a person can act on
    sys.exit(f"sdk_streams.py needs the Python SDK: pip install ag-ui-protocol==1.0.0 ({err})")

SDK_VERSION = "1.0.0"
ENCODER = EventEncoder()
T0 = 1767225600000  # 2026-01-01T00:00:00Z in milliseconds, the SDK's usual unit


def encode(events):
    """SSE-encode with the SDK, then take each frame's data payload verbatim."""
    payloads = []
    for event in events:
        sse = ENCODER.encode(event)
        assert sse.startswith("data: ") and sse.endswith("\n\n"), sse
        payloads.append(sse[len("data: "):-2])
    return "[" + ",".join(payloads) + "]"


def run(thread="t1", run_id="r1", **kw):
    return c.RunStartedEvent(thread_id=thread, run_id=run_id, **kw)


def done(thread="t1", run_id="r1", **kw):
    return c.RunFinishedEvent(thread_id=thread, run_id=run_id, **kw)


def usage(**kw):
    base = dict(provider="anthropic", model="claude-x", input_tokens=1200, output_tokens=300, total_tokens=1500)
    base.update(kw)
    return c.TokenUsage(**base)


def text(mid, *deltas, owner=None, role="assistant"):
    out = [c.TextMessageStartEvent(message_id=mid, role=role, subagent_run_id=owner)]
    out += [c.TextMessageContentEvent(message_id=mid, delta=d, subagent_run_id=owner) for d in deltas]
    out.append(c.TextMessageEndEvent(message_id=mid, subagent_run_id=owner))
    return out


def tool(tcid, name, *deltas, owner=None, parent=None):
    out = [c.ToolCallStartEvent(tool_call_id=tcid, tool_call_name=name, parent_message_id=parent, subagent_run_id=owner)]
    out += [c.ToolCallArgsEvent(tool_call_id=tcid, delta=d, subagent_run_id=owner) for d in deltas]
    out.append(c.ToolCallEndEvent(tool_call_id=tcid, subagent_run_id=owner))
    return out


def parts():
    return [
        c.TextPart(text="The photo and the datasheet:", id="p1"),
        c.ImagePart(source=c.DataSource(value="iVBORw0KGgo=", mime_type="image/png"), metadata={"alt": "LED"}),
        c.DocumentPart(id="p3", source=c.FileSource(value="file-abc123", provider="openai", mime_type="application/pdf")),
        c.AudioPart(source=c.UrlSource(value="https://example.com/beep.wav", mime_type="audio/wav")),
        c.VideoPart(source=c.FileSource(value="files/xyz")),
    ]


def features():
    """(name, events) for each feature."""
    yield "text-message", [run(), *text("m1", "Hello", ", world"), done()]
    yield "text-message-chunk", [run(),
                                 c.TextMessageChunkEvent(message_id="m1", role="assistant", delta="Hel"),
                                 c.TextMessageChunkEvent(delta="lo"),
                                 c.TextMessageChunkEvent(message_id="m2", delta="again", name="bot"),
                                 done()]
    yield "tool-call", [run(), *text("m1", "Switching it on."),
                        *tool("tc1", "set_led", '{"color": "gr', 'een", "on": true}', parent="m1"),
                        c.ToolCallResultEvent(message_id="res1", tool_call_id="tc1", content="LED is green", role="tool"),
                        done()]
    yield "tool-call-chunk", [run(),
                              c.ToolCallChunkEvent(tool_call_id="tc1", tool_call_name="search", delta='{"q":'),
                              c.ToolCallChunkEvent(delta='"zurich"}'),
                              c.ToolCallResultEvent(message_id="res1", tool_call_id="tc1", content="3 hits"),
                              done()]
    yield "tool-result-content-parts", [run(), *tool("tc1", "camera", "{}"),
                                        c.ToolCallResultEvent(message_id="res1", tool_call_id="tc1", content=parts()),
                                        done(outcome=c.RunFinishedSuccessOutcome())]
    yield "state", [run(), c.StateSnapshotEvent(snapshot={"led": {"color": "off"}, "log": []}),
                    c.StateDeltaEvent(delta=[{"op": "replace", "path": "/led/color", "value": "red"},
                                             {"op": "add", "path": "/log/-", "value": "on"}]),
                    c.StateDeltaEvent(delta=[{"op": "test", "path": "/led/color", "value": "blue"}]),
                    done()]
    yield "messages-snapshot", [run(), c.MessagesSnapshotEvent(messages=[
        c.DeveloperMessage(id="d1", content="You run on a device."),
        c.SystemMessage(id="s1", content="Be brief.", name="policy"),
        c.UserMessage(id="u1", content=parts()),
        c.AssistantMessage(id="a1", content="Let me look.", tool_calls=[
            c.ToolCall(id="tc9", function=c.FunctionCall(name="camera", arguments="{}"), encrypted_value="enc-tc9")]),
        c.ToolMessage(id="t1", tool_call_id="tc9", content=[c.TextPart(text="ok")], subagent_run_id="sub-9"),
        c.ReasoningMessage(id="rs1", content="thinking", encrypted_value="enc-r"),
        c.ActivityMessage(id="act1", activity_type="PLAN", content={"steps": ["a"]}),
    ]), done()]
    yield "activity", [run(), c.ActivitySnapshotEvent(message_id="act1", activity_type="PLAN", content={"progress": 0, "steps": []}),
                       c.ActivityDeltaEvent(message_id="act1", activity_type="PLAN",
                                            patch=[{"op": "replace", "path": "/progress", "value": 50},
                                                   {"op": "add", "path": "/steps/-", "value": "search"}]),
                       c.ActivitySnapshotEvent(message_id="act1", activity_type="PLAN", content={"progress": 100}, replace=False),
                       done()]
    yield "raw-custom", [run(), c.RawEvent(event={"provider": "native", "n": 1}, source="openai"),
                         c.CustomEvent(name="led", value={"on": True}), done()]
    yield "steps", [run(), c.StepStartedEvent(step_name="plan"), *text("m1", "planning"),
                    c.StepFinishedEvent(step_name="plan"), done()]
    yield "reasoning", [run(), c.ReasoningStartEvent(message_id="rs1"),
                        c.ReasoningMessageStartEvent(message_id="rm1", role="reasoning"),
                        c.ReasoningMessageContentEvent(message_id="rm1", delta="The user wants "),
                        c.ReasoningMessageContentEvent(message_id="rm1", delta="the LED on."),
                        c.ReasoningMessageEndEvent(message_id="rm1"),
                        c.ReasoningEncryptedValueEvent(subtype="message", entity_id="rm1", encrypted_value="gAAAAB..."),
                        c.ReasoningEndEvent(message_id="rs1"),
                        *tool("tc1", "set_led", "{}"),
                        c.ReasoningEncryptedValueEvent(subtype="tool-call", entity_id="tc1", encrypted_value="sig-tc1"),
                        c.ToolCallResultEvent(message_id="res1", tool_call_id="tc1", content="ok"),
                        done()]
    yield "reasoning-chunk", [run(), c.ReasoningMessageChunkEvent(message_id="rm1", delta="hmm"),
                              c.ReasoningMessageChunkEvent(delta=", right"), *text("m1", "Done."), done()]
    yield "run-error", [run(), *text("m1", "Trying"), c.RunErrorEvent(message="model overloaded", code="overloaded",
                                                                    usage=[usage(cache_write_input_tokens=50)])]
    yield "outcome-success-pending", [run(), *tool("tc1", "set_led", '{"on": true}'),
                                      done(outcome=c.RunFinishedSuccessOutcome(pending_tool_call_ids=["tc1"]))]
    yield "outcome-interrupt", [run(), *text("m1", "I need approval."),
                                done(outcome=c.RunFinishedInterruptOutcome(interrupts=[
                                    c.Interrupt(id="int-1", reason="approval", message="Turn the LED on?",
                                                tool_call_id="tc1", response_schema={"type": "boolean"},
                                                expires_at="2026-12-31T23:59:59Z", metadata={"ui": "dialog"})]))]
    yield "outcome-cancelled", [run(), *text("m1", "Stopping"), done(outcome=c.RunFinishedCancelledOutcome())]
    yield "usage", [run(), *text("m1", "hi"), done(result={"ok": True}, usage=[
        usage(cached_input_tokens=800, cache_write_input_tokens=200, reasoning_tokens=40),
        usage(provider="openai", model="gpt-x", input_tokens=10, output_tokens=2, total_tokens=12)])]
    yield "subagents", [run(protocol_version="1.0"), *text("m1", "Delegating."),
                        *tool("tc1", "research", '{"topic": "LEDs"}', parent="m1"),
                        c.SubagentStartedEvent(subagent_run_id="sub-1", name="researcher", description="finds facts",
                                               parent_tool_call_id="tc1", parent_message_id="m1"),
                        c.StepStartedEvent(step_name="search", subagent_run_id="sub-1"),
                        *text("sm1", "Searching", owner="sub-1"),
                        c.SubagentStartedEvent(subagent_run_id="sub-2", name="critic", parent_subagent_run_id="sub-1"),
                        *text("sm2", "Looks right", owner="sub-2"),
                        c.SubagentFinishedEvent(subagent_run_id="sub-2", outcome=c.SubagentFinishedSuccessOutcome(),
                                                result={"verdict": "ok"}),
                        c.StepFinishedEvent(step_name="search", subagent_run_id="sub-1"),
                        c.SubagentFinishedEvent(subagent_run_id="sub-1", result="LEDs are diodes"),
                        c.SubagentStartedEvent(subagent_run_id="sub-3", name="coder"),
                        c.SubagentErrorEvent(subagent_run_id="sub-3", message="sandbox unavailable", code="E_SANDBOX"),
                        c.ToolCallResultEvent(message_id="res1", tool_call_id="tc1", content="LEDs are diodes"),
                        done()]
    yield "subagent-suspended", [run(), c.SubagentStartedEvent(subagent_run_id="sub-1", name="approver"),
                                 *tool("tc1", "ask", "{}", owner="sub-1"),
                                 c.SubagentFinishedEvent(subagent_run_id="sub-1", outcome=c.SubagentFinishedSuspendedOutcome(
                                     interrupt_ids=["int-1"])),
                                 done(outcome=c.RunFinishedInterruptOutcome(interrupts=[
                                     c.Interrupt(id="int-1", reason="approval", subagent_run_id="sub-1", tool_call_id="tc1")]))]
    yield "run-input", [run(parent_run_id="r0", protocol_version="1.0", input=c.RunAgentInput(
        thread_id="t1", run_id="r1", protocol_version="1.0", parent_run_id="r0", state={"led": "off"},
        messages=[c.UserMessage(id="u1", content="Turn the LED on"),
                  c.AssistantMessage(id="a0", content="earlier", subagent_run_id="sub-0")],
        tools=[], context=[], forwarded_props={"device": "kiosk"},
        resume=[c.ResumeEntry(interrupt_id="int-0", status="resolved", payload={"approved": True})])),
        *text("m1", "On it."), done()]
    yield "run-input-minimal", [run(input=c.RunAgentInput(thread_id="t1", run_id="r1", messages=[
        c.UserMessage(id="u1", content=[c.TextPart(text="what is this?"),
                                        c.ImagePart(source=c.UrlSource(value="https://example.com/x.jpg"))])])),
        done()]
    yield "timestamps-metadata", [
        run(timestamp=T0),
        c.TextMessageStartEvent(message_id="m1", timestamp=T0 + 1, metadata={"model": "x"}),
        c.TextMessageContentEvent(message_id="m1", delta="hi", timestamp=T0 + 2, raw_event={"choices": [{"delta": "hi"}]}),
        c.TextMessageEndEvent(message_id="m1", timestamp=T0 + 3, metadata={"finishReason": "stop"}),
        done(timestamp=9007199254740991)]


def realistic():
    """A multi-run conversation the way an agent backend would send it."""
    ev = []
    # Run 1: the user asks; the agent reasons, calls a frontend tool and stops
    # with the call pending.
    ev.append(run("th", "run-1", protocol_version="1.0", timestamp=T0, input=c.RunAgentInput(
        thread_id="th", run_id="run-1", protocol_version="1.0",
        messages=[c.UserMessage(id="u1", content="Turn the LED green and tell me what the datasheet says.")])))
    ev += [c.ReasoningStartEvent(message_id="rs1", timestamp=T0 + 10),
           c.ReasoningMessageChunkEvent(message_id="rm1", delta="Need set_led, "),
           c.ReasoningMessageChunkEvent(delta="then the datasheet."),
           c.ReasoningEndEvent(message_id="rs1"),
           c.ReasoningEncryptedValueEvent(subtype="message", entity_id="rm1", encrypted_value="opaque-1"),
           c.TextMessageChunkEvent(message_id="a1", role="assistant", delta="Setting the LED."),
           c.ToolCallChunkEvent(tool_call_id="call-led", tool_call_name="set_led", parent_message_id="a1", delta='{"color": "'),
           c.ToolCallChunkEvent(delta='green", "on": true}'),
           c.StateSnapshotEvent(snapshot={"led": {"color": "off", "on": False}}),
           done("th", "run-1", outcome=c.RunFinishedSuccessOutcome(pending_tool_call_ids=["call-led"]),
                usage=[usage(cache_write_input_tokens=1024)])]
    # Run 2: the frontend answers with a multimodal tool result; a sub-agent
    # reads the datasheet and the run ends waiting for an approval.
    ev.append(run("th", "run-2", parent_run_id="run-1", input=c.RunAgentInput(
        thread_id="th", run_id="run-2", protocol_version="1.0", messages=[
            c.UserMessage(id="u1", content="Turn the LED green and tell me what the datasheet says."),
            c.AssistantMessage(id="a1", content="Setting the LED.", tool_calls=[
                c.ToolCall(id="call-led", function=c.FunctionCall(name="set_led", arguments='{"color": "green", "on": true}'))]),
            c.ToolMessage(id="tr1", tool_call_id="call-led", content=[
                c.TextPart(text="LED is green"),
                c.ImagePart(source=c.DataSource(value="iVBORw0KGgo=", mime_type="image/png"))])])))
    ev += [c.StateDeltaEvent(delta=[{"op": "replace", "path": "/led", "value": {"color": "green", "on": True}}]),
           *text("a2", "Reading the datasheet."),
           *tool("call-ds", "read_datasheet", '{"file": "file-led"}', parent="a2"),
           c.SubagentStartedEvent(subagent_run_id="sub-ds", name="reader", parent_tool_call_id="call-ds"),
           c.ActivitySnapshotEvent(message_id="act-ds", activity_type="PROGRESS", content={"pages": 0}, subagent_run_id="sub-ds"),
           c.StepStartedEvent(step_name="read", subagent_run_id="sub-ds"),
           c.ActivityDeltaEvent(message_id="act-ds", activity_type="PROGRESS",
                                patch=[{"op": "replace", "path": "/pages", "value": 4}], subagent_run_id="sub-ds"),
           c.TextMessageChunkEvent(message_id="sa1", delta="Forward voltage 2.1 V", subagent_run_id="sub-ds"),
           c.TextMessageChunkEvent(delta=", max 20 mA.", subagent_run_id="sub-ds"),
           c.StepFinishedEvent(step_name="read", subagent_run_id="sub-ds"),
           c.SubagentFinishedEvent(subagent_run_id="sub-ds", outcome=c.SubagentFinishedSuccessOutcome()),
           c.ToolCallResultEvent(message_id="tr2", tool_call_id="call-ds", content=[
               c.TextPart(text="2.1 V, 20 mA"),
               c.DocumentPart(source=c.FileSource(value="file-led", provider="openai", mime_type="application/pdf"))]),
           *text("a3", "The LED is green. It takes 2.1 V at up to 20 mA."),
           c.MessagesSnapshotEvent(messages=[
               c.UserMessage(id="u1", content="Turn the LED green and tell me what the datasheet says."),
               c.AssistantMessage(id="a3", content="The LED is green. It takes 2.1 V at up to 20 mA.")]),
           done("th", "run-2", outcome=c.RunFinishedInterruptOutcome(interrupts=[
               c.Interrupt(id="int-brightness", reason="confirmation", message="Also raise the brightness?",
                           response_schema={"type": "boolean"})]),
                usage=[usage(), usage(provider="openai", model="gpt-x", input_tokens=50, output_tokens=9, total_tokens=59,
                                      cache_write_input_tokens=0)])]
    # Run 3: the user declines; the run is cancelled.
    ev.append(run("th", "run-3", input=c.RunAgentInput(
        thread_id="th", run_id="run-3", messages=[], resume=[c.ResumeEntry(interrupt_id="int-brightness", status="cancelled")])))
    ev += [*text("a4", "Leaving the brightness as it is."), done("th", "run-3", outcome=c.RunFinishedCancelledOutcome())]
    return ev


def main():
    installed = version("ag-ui-protocol")
    if installed != SDK_VERSION:
        sys.exit(f"sdk_streams.py wants ag-ui-protocol {SDK_VERSION}, found {installed}")
    covered = set()
    streams = list(features()) + [("realistic-multi-run", realistic())]
    for name, events in streams:
        covered.update(e.type.value for e in events)
        sys.stdout.write(f'{{"name":{json.dumps("sdk-" + name)},"events":{encode(events)}}}\n')
    missing = {t.value for t in c.EventType} - covered
    if missing:
        sys.exit(f"event types the SDK has but no stream uses: {sorted(missing)}")


if __name__ == "__main__":
    main()
