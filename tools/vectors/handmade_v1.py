#!/usr/bin/env python3
"""Hand-written AG-UI 1.0 streams, one per rare rule of docs/SPEC.md section 9.

Each pins one behaviour of the 1.0 reference client that the generator hits
only by chance: what enforcement strips and what it rejects, the
compatibility boundary's translations, owners and lifecycles. Output, one
line per stream, {"name", "events"}, for tools/oracle/run.mjs --protocol 1.0.
"""

import json
import re
import sys

R = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
F = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
SUB = {"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"}
SUB_END = {"type": "SUBAGENT_FINISHED", "subagentRunId": "s"}


def raw(literal):
    """A number literal written exactly as given (Python would reformat it)."""
    return "__RAW__" + literal


def text(mid, owner=None, delta="x"):
    tag = {} if owner is None else {"subagentRunId": owner}
    return [{"type": "TEXT_MESSAGE_START", "messageId": mid, **tag},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": delta, **tag},
            {"type": "TEXT_MESSAGE_END", "messageId": mid, **tag}]


def result(mid, tcid, content):
    return {"type": "TOOL_CALL_RESULT", "messageId": mid, "toolCallId": tcid, "content": content}


STREAMS = {
    # Required in 1.0 where they were optional, and nulls.
    "custom-needs-value": [R, {"type": "CUSTOM", "name": "n"}, F],
    "raw-needs-event": [R, {"type": "RAW"}, F],
    "state-snapshot-needs-snapshot": [R, {"type": "STATE_SNAPSHOT"}, F],
    "metadata-null-fatal": [R, {"type": "CUSTOM", "name": "n", "value": 1, "metadata": None}, F],
    "input-needs-messages": [{**R, "input": {"threadId": "t", "runId": "r"}}, F],
    "input-tools-context-optional": [{**R, "input": {"threadId": "t", "runId": "r", "messages": []}}, F],
    "result-role-must-be-tool": [R, result("x", "y", "c") | {"role": "user"}, F],
    "reasoning-message-role-required": [R, {"type": "REASONING_MESSAGE_START", "messageId": "m"}],
    "encrypted-subtype-closed": [R, {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "span", "entityId": "x", "encryptedValue": "e"}, F],
    "text-role-closed": [R, {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "wizard"}],
    "text-role-absent-is-assistant": [R, {"type": "TEXT_MESSAGE_START", "messageId": "m"}, {"type": "TEXT_MESSAGE_END", "messageId": "m"}, F],
    "timestamp-float-fatal": [R, {"type": "CUSTOM", "name": "n", "value": 1, "timestamp": 1.5}],
    "timestamp-exponent-integer-ok": [R, {"type": "CUSTOM", "name": "n", "value": 1, "timestamp": raw("1e3")}, F],
    "timestamp-max-safe-ok": [R, {"type": "CUSTOM", "name": "n", "value": 1, "timestamp": 9007199254740991}, F],
    "timestamp-1-point-0-is-integer": [R, {"type": "CUSTOM", "name": "n", "value": 1, "timestamp": raw("1.0")}, F],
    "timestamp-rounds-to-max-ok": [R, {"type": "CUSTOM", "name": "n", "value": 1, "timestamp": raw("9007199254740991.4")}, F],
    "timestamp-negative-max-ok": [R, {"type": "CUSTOM", "name": "n", "value": 1, "timestamp": -9007199254740991}, F],
    "timestamp-beyond-2-53-fatal": [R, {"type": "CUSTOM", "name": "n", "value": 1, "timestamp": 9007199254740992}],
    "usage-cache-write-negative-fatal": [R, {**F, "usage": [{"cacheWriteInputTokens": -1}]}],
    # Unknown material: stripped with a warning, never fatal.
    "unknown-type-first-frame": [{"type": "FOO"}, R, F],
    "unknown-key-on-run-started-tag": [{**R, "subagentRunId": "s"}, F],
    "unknown-key-messages-snapshot-tag": [R, {"type": "MESSAGES_SNAPSHOT", "messages": [], "subagentRunId": "s"}, F],
    "unknown-key-named-like-prototype": [R, {"type": "CUSTOM", "name": "n", "value": 1, "toString": 1, "constructor": {}}, F],
    "unknown-patch-op-dropped": [R, {"type": "STATE_DELTA", "delta": [{"op": "merge", "path": "/a", "value": 1}, {"op": "add", "path": "/b", "value": 2}]}, F],
    "patch-op-named-like-prototype-dropped": [R, {"type": "STATE_DELTA", "delta": [{"op": "toString", "path": "/b"}]}, F],
    "patch-op-extra-key-kept": [R, {"type": "STATE_SNAPSHOT", "snapshot": {"b": 1}}, {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/b", "value": 3}]}, F],
    "patch-value-required": [R, {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/b"}]}, F],
    "patch-value-null-ok": [R, {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/b", "value": None}]}, F],
    "patch-pointer-checked-at-decode": [R, {"type": "STATE_DELTA", "delta": [{"op": "copy", "from": "a", "path": "/b"}]}, F],
    "patch-pointer-bad-escape": [R, {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}},
                                 {"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "A", "patch": [{"op": "add", "path": "/a~2", "value": 1}]}, F],
    "outcome-unknown-type-dropped": [R, {**F, "outcome": {"type": "handoff"}}],
    "outcome-without-type-dropped": [R, {**F, "outcome": {"x": 1}}],
    "outcome-cancelled": [R, {**F, "outcome": {"type": "cancelled"}}],
    "outcome-success-explicit-pending": [R, {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f"}, {"type": "TOOL_CALL_END", "toolCallId": "a"},
                                         {**F, "outcome": {"type": "success", "pendingToolCallIds": ["z"]}}],
    "outcome-success-empty-pending-computed": [R, {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f"}, {"type": "TOOL_CALL_END", "toolCallId": "a"},
                                               {"type": "TOOL_CALL_START", "toolCallId": "b", "toolCallName": "f"}, {"type": "TOOL_CALL_END", "toolCallId": "b"},
                                               result("rb", "b", "ok"), {**F, "outcome": {"type": "success", "pendingToolCallIds": []}}],
    "pending-reset-per-run": [R, {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f"}, {"type": "TOOL_CALL_END", "toolCallId": "a"}, F,
                              {**R, "runId": "r2"}, {**F, "runId": "r2"}],
    "interrupt-keeps-subagent-tag": [R, SUB, SUB_END, {**F, "outcome": {"type": "interrupt", "interrupts": [{"id": "i", "reason": "x", "subagentRunId": "s"}]}}],
    "subagent-outcome-unknown-dropped": [R, SUB, {**SUB_END, "outcome": {"type": "delegated"}}, F],
    "content-part-unknown-dropped": [R, result("x", "y", [{"type": "text", "text": "a"}, {"type": "table", "rows": []}]), F],
    "content-part-unknown-source-drops-part": [R, result("x", "y", [{"type": "image", "source": {"type": "s3"}}]), F],
    "content-part-binary-in-result-dropped": [R, result("x", "y", [{"type": "binary", "mimeType": "a/b", "data": "x"}]), F],
    "content-part-file-source-and-id": [R, result("x", "y", [{"type": "document", "id": "p1", "source": {"type": "file", "value": "file-1", "provider": "openai"}}]), F],
    "content-parts-empty-array": [R, result("x", "y", []), F],
    "content-text-part-extra-key-stripped": [R, result("x", "y", [{"type": "text", "text": "a", "lang": "de"}]), F],
    "snapshot-unknown-role-dropped": [R, {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "a", "role": "wizard", "content": "?"}, {"id": "b", "role": "user", "content": "hi"}]}, F],
    # The compatibility boundary.
    "compat-binary-parts-upgraded": [R, {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u", "role": "user", "content": [
        {"type": "binary", "mimeType": "image/png", "data": "x"}, {"type": "binary", "mimeType": "application/pdf", "url": "u", "filename": "f"},
        {"type": "binary", "mimeType": "image/png", "id": "fid"}]}]}, F],
    "compat-legacy-nulls": [{**R, "rawEvent": None}, {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f", "parentMessageId": None},
                            {"type": "TOOL_CALL_END", "toolCallId": "a"}, {**F, "outcome": None, "result": None}],
    "compat-subagent-result-null": [R, SUB, {**SUB_END, "result": None}, F],
    "compat-thinking-first-frame": [{"type": "THINKING_START"}, R, F],
    "compat-thinking-full": [R, {"type": "THINKING_START", "title": "t"}, {"type": "THINKING_TEXT_MESSAGE_START"},
                             {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "a"}, {"type": "THINKING_TEXT_MESSAGE_END"}, {"type": "THINKING_END"}, F],
    "compat-thinking-content-without-start": [R, {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "a"}],
    "compat-thinking-end-without-start": [R, {"type": "THINKING_END"}],
    "compat-thinking-left-open": [R, {"type": "THINKING_START"}, F],
    # Sub-agents, owners, lifecycles.
    "tag-empty-string-is-an-owner": [R, *text("m", ""), F],
    "tag-of-unknown-subagent-tolerated": [R, *text("m", "never"), F],
    "tag-after-subagent-finished-tolerated": [R, SUB, SUB_END, *text("m", "s"), F],
    "tag-null-fatal": [R, {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": None}],
    "continuation-untagged-ok": [R, SUB, {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "s"},
                                 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}, {"type": "TEXT_MESSAGE_END", "messageId": "m"}, SUB_END, F],
    "continuation-wrong-owner": [R, SUB, {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "s"},
                                 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "subagentRunId": "other"}],
    "continuation-parent-tag-on-subagent-item": [R, SUB, *text("m", "s"), {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "x"}],
    "owner-kept-after-end": [R, SUB, *text("m", "s"), *text("m", None), SUB_END, F],
    "owner-seeded-from-snapshot": [R, {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m", "role": "assistant", "content": "x", "subagentRunId": "s"}]},
                                   {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "t"}],
    "owner-seeded-from-input": [{**R, "input": {"threadId": "t", "runId": "r", "messages": [{"id": "m", "role": "assistant", "content": "x", "subagentRunId": "s"}]}},
                                {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "t"}],
    "owner-snapshot-overrides-input": [{**R, "input": {"threadId": "t", "runId": "r", "messages": [{"id": "m", "role": "assistant", "content": "x", "subagentRunId": "s"}]}},
                                       {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m", "role": "assistant", "content": "x", "subagentRunId": "t"}]},
                                       *text("m", "t"), F],
    "owner-reset-by-new-run": [R, *text("m", "s"), F, {**R, "runId": "r2"}, *text("m", "t"), {**F, "runId": "r2"}],
    "tool-call-parent-message-owner": [R, *text("m", "s"), {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f", "parentMessageId": "m", "subagentRunId": "t"}],
    "tool-call-inherits-parent-owner": [R, *text("m", "s"), {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f", "parentMessageId": "m"},
                                        {"type": "TOOL_CALL_END", "toolCallId": "a", "subagentRunId": "s"}, F],
    "tool-call-restart-owner-vs-parent": [R, *text("m", "s"), {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f"}, {"type": "TOOL_CALL_END", "toolCallId": "a"},
                                          {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f", "parentMessageId": "m"}],
    "tool-result-records-message-owner": [R, result("res", "a", "x") | {"subagentRunId": "s"}, {"type": "TEXT_MESSAGE_START", "messageId": "res", "subagentRunId": "t"}],
    "encrypted-value-owner": [R, *text("m", "s"), {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "m", "encryptedValue": "e", "subagentRunId": "t"}],
    "activity-owner": [R, {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}, "subagentRunId": "s"},
                       {"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "A", "patch": [], "subagentRunId": "t"}],
    "activity-owner-kept-when-not-replacing": [R, {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}, "subagentRunId": "s"},
                                               {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}, "replace": False, "subagentRunId": "t"},
                                               {"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "A", "patch": [], "subagentRunId": "s"}, F],
    "steps-keyed-by-owner": [R, SUB, {"type": "STEP_STARTED", "stepName": "p"}, {"type": "STEP_STARTED", "stepName": "p", "subagentRunId": "s"},
                             {"type": "STEP_FINISHED", "stepName": "p", "subagentRunId": "s"}, {"type": "STEP_FINISHED", "stepName": "p"}, SUB_END, F],
    "step-finished-by-other-owner": [R, SUB, {"type": "STEP_STARTED", "stepName": "p", "subagentRunId": "s"}, {"type": "STEP_FINISHED", "stepName": "p"}],
    "subagent-parent-must-exist": [R, {**SUB, "parentSubagentRunId": "p"}],
    "subagent-parent-may-be-finished": [R, SUB, SUB_END, {**SUB, "subagentRunId": "c", "parentSubagentRunId": "s"}, {**SUB_END, "subagentRunId": "c"}, F],
    "subagent-active-twice": [R, SUB, SUB],
    "subagent-id-not-reused": [R, SUB, SUB_END, SUB],
    "subagent-error-closes": [R, SUB, {"type": "SUBAGENT_ERROR", "subagentRunId": "s", "message": "m"}, F],
    "subagent-finish-unknown": [R, SUB_END],
    "subagent-ids-per-run": [R, SUB, SUB_END, F, {**R, "runId": "r2"}, SUB, SUB_END, {**F, "runId": "r2"}],
    "subagent-terminal-closes-own-chunk-lane": [R, SUB, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a", "subagentRunId": "s"}, SUB_END, F],
    "chunk-lanes-interleave": [R, SUB, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "p", "delta": "a"},
                               {"type": "TEXT_MESSAGE_CHUNK", "messageId": "q", "delta": "b", "subagentRunId": "s"},
                               {"type": "TEXT_MESSAGE_CHUNK", "delta": "c"}, {"type": "TEXT_MESSAGE_CHUNK", "delta": "d", "subagentRunId": "s"}, SUB_END, F],
    "chunk-untagged-sole-lane": [R, SUB, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "q", "delta": "b", "subagentRunId": "s"},
                                 {"type": "TEXT_MESSAGE_CHUNK", "delta": "c"}, SUB_END, F],
    "chunk-untagged-ambiguous": [R, SUB, {**SUB, "subagentRunId": "s2"},
                                 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "q", "delta": "b", "subagentRunId": "s"},
                                 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "r", "delta": "b", "subagentRunId": "s2"}, {"type": "TEXT_MESSAGE_CHUNK", "delta": "c"}],
    "chunk-id-with-wrong-tag": [R, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "q", "delta": "b"}, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "q", "delta": "c", "subagentRunId": "s"}],
    "chunk-role-disagrees": [R, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "q", "delta": "b"}, {"type": "TEXT_MESSAGE_CHUNK", "role": "user", "delta": "c"}],
    "chunk-tool-name-disagrees": [R, {"type": "TOOL_CALL_CHUNK", "toolCallId": "a", "toolCallName": "f", "delta": "{"}, {"type": "TOOL_CALL_CHUNK", "toolCallName": "g", "delta": "}"}],
    "chunk-closed-by-explicit-event-of-same-lane-only": [R, SUB, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "q", "delta": "b", "subagentRunId": "s"},
                                                         *text("m"), {"type": "TEXT_MESSAGE_CHUNK", "delta": "c", "subagentRunId": "s"}, SUB_END, F],
    "chunk-empty-id-reasoning-new-message": [R, {"type": "REASONING_MESSAGE_CHUNK", "messageId": "a", "delta": "one"},
                                             {"type": "REASONING_MESSAGE_CHUNK", "messageId": "", "delta": "two"}, {"type": "REASONING_MESSAGE_CHUNK", "delta": "three"}, F],
    "chunk-metadata-only": [R, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "q", "delta": "b"}, {"type": "TEXT_MESSAGE_CHUNK", "metadata": {"k": 1}}, F],
    # Reasoning spans and messages; the RUN_FINISHED order.
    "reasoning-span-and-message-separate": [R, {"type": "REASONING_START", "messageId": "r"}, {"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"},
                                            {"type": "REASONING_END", "messageId": "r"}, {"type": "REASONING_MESSAGE_END", "messageId": "r"}, F],
    "reasoning-span-twice": [R, {"type": "REASONING_START", "messageId": "r"}, {"type": "REASONING_START", "messageId": "r"}],
    "reasoning-end-without-start": [R, {"type": "REASONING_END", "messageId": "r"}],
    "reasoning-message-twice": [R, {"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"},
                                {"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"}],
    "text-message-twice": [R, {"type": "TEXT_MESSAGE_START", "messageId": "m"}, {"type": "TEXT_MESSAGE_START", "messageId": "m"}],
    "step-twice-same-owner": [R, SUB, {"type": "STEP_STARTED", "stepName": "p", "subagentRunId": "s"},
                              {"type": "STEP_STARTED", "stepName": "p", "subagentRunId": "s"}],
    "step-finished-never-started": [R, {"type": "STEP_FINISHED", "stepName": "p"}],
    "reasoning-message-content-without-start": [R, {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "x"}],
    "finish-order-steps-first": [R, SUB, {"type": "STEP_STARTED", "stepName": "p", "subagentRunId": "s"}, {"type": "TEXT_MESSAGE_START", "messageId": "m"}, F],
    "finish-order-text-before-reasoning": [R, {"type": "REASONING_START", "messageId": "r"}, {"type": "TEXT_MESSAGE_START", "messageId": "m"}, F],
    "finish-order-reasoning-message-before-span": [R, {"type": "REASONING_START", "messageId": "r"}, {"type": "REASONING_MESSAGE_START", "messageId": "q", "role": "reasoning"}, F],
    "finish-order-span-before-tool": [R, {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f"}, {"type": "REASONING_START", "messageId": "r"}, F],
    "finish-order-tool-before-subagent": [R, SUB, {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f"}, F],
    "finish-open-subagents": [R, SUB, {**SUB, "subagentRunId": "s2"}, F],
    "run-error-then-only-run-started": [R, {"type": "RUN_ERROR", "message": "x"}, {"type": "CUSTOM", "name": "n", "value": 1}],
    "run-error-then-new-run": [R, SUB, {"type": "RUN_ERROR", "message": "x"}, {**R, "runId": "r2"}, SUB, SUB_END, {**F, "runId": "r2"}],
    # Reducer rules that changed.
    "text-on-activity-ignored": [R, {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}}, *text("a"), F],
    "reasoning-on-activity-ignored": [R, {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}},
                                      {"type": "REASONING_MESSAGE_START", "messageId": "a", "role": "reasoning"},
                                      {"type": "REASONING_MESSAGE_CONTENT", "messageId": "a", "delta": "x"}, {"type": "REASONING_MESSAGE_END", "messageId": "a"}, F],
    "snapshot-replaces-client-only-same-id": [R, {"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"}, {"type": "REASONING_MESSAGE_END", "messageId": "r"},
                                              {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "r", "role": "user", "content": "replaced"}]}, F],
    "snapshot-authoritative-activity-types": [R, {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}},
                                              {"type": "ACTIVITY_SNAPSHOT", "messageId": "b", "activityType": "B", "content": {}},
                                              {"type": "MESSAGES_SNAPSHOT", "messages": [], "metadata": {"@ag-ui/client": {"authoritativeActivityTypes": ["A"]}}}, F],
    "snapshot-authoritative-activity-null": [R, {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}},
                                             {"type": "MESSAGES_SNAPSHOT", "messages": [], "metadata": {"@ag-ui/client": {"authoritativeActivityTypes": None}}}, F],
    "new-tool-owner-message-gets-tag": [R, {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f", "subagentRunId": "s"},
                                        {"type": "TOOL_CALL_END", "toolCallId": "a", "subagentRunId": "s"}, F],
    "existing-parent-keeps-its-tag": [R, *text("m"), {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f", "parentMessageId": "m"},
                                      {"type": "TOOL_CALL_END", "toolCallId": "a"}, F],
    "activity-replace-drops-absent-tag": [R, {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {}, "subagentRunId": "s"},
                                          {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "A", "content": {"v": 1}}],
    "tool-result-content-parts-kept": [R, result("x", "y", [{"type": "text", "text": "a"}, {"type": "image", "source": {"type": "data", "value": "aGk=", "mimeType": "image/png"}}]), F],
    "patch-on-primitive-state-fails": [R, {"type": "STATE_SNAPSHOT", "snapshot": 5}, {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/x", "value": 1}]}, F],
    # protocolVersion.
    "protocol-1-0": [{**R, "protocolVersion": "1.0"}, F],
    "protocol-newer": [{**R, "protocolVersion": "1.1"}, F],
    "protocol-older": [{**R, "protocolVersion": "0.9"}, F],
    "protocol-outside-grammar": [{**R, "protocolVersion": "1.0.0"}, F],
    "protocol-not-a-string": [{**R, "protocolVersion": 1}],
    "protocol-on-input-only": [{**R, "input": {"threadId": "t", "runId": "r", "messages": [], "protocolVersion": "9.9"}}, F],
}


def main():
    for name, events in STREAMS.items():
        line = json.dumps({"name": "hand-" + name, "events": events}, separators=(",", ":"))
        sys.stdout.write(re.sub(r'"__RAW__([-+.eE0-9]+)"', r"\1", line) + "\n")


if __name__ == "__main__":
    main()
