#!/usr/bin/env python3
"""Generator of AG-UI 1.0 event streams for the conformance vectors.

Deterministic for a given seed. Writes one JSON object per line,
{"name": ..., "events": [...]}, with "events" last (the oracle copies the
events text verbatim, so integers beyond 2^53 survive byte for byte).

    python3 tools/vectors/gen_v1.py --seed 13 --count 1100 > /tmp/streams.jsonl

Each stream is built from a scenario (valid 1.0 material: sub-agents nested
and interleaved, reasoning spans and messages, encrypted values, outcomes,
usage, content parts, protocolVersion, ...) and then, for part of them, a
deviation: a wrong attribution, an unknown event type or key or union member,
an out-of-range timestamp, an old THINKING_* stream, or plain damage (a
dropped, duplicated, swapped or corrupted frame). The expected results come
from the reference client (tools/oracle/run.mjs), never from this script.
"""

import argparse
import copy
import json
import random
import sys

TEXTS = ["Hello", " world", " 🚀", "日本語", "é", '"quoted"', "back\\slash", "line\r\n", "\t tab", "", "ünï", "</script>"]
TOOLS = ["weather", "search", "set_led", "lookup"]
ACTIVITY_TYPES = ["PLAN", "SEARCH", "PROGRESS"]
MIME = ["image/png", "audio/wav", "video/mp4", "application/pdf", "text/plain"]


class Stream:
    """Builds one run-sequence of events with fresh ids."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.events = []
        self.n = 0
        self.thread = "thread-1"
        self.run_index = 0
        self.pending_tool_calls = []  # tool calls of the current run without a result
        self.subagents_used = set()

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def text(self):
        return self.rng.choice(TEXTS)

    def emit(self, event):
        self.events.append(event)
        return event

    # ------------------------------------------------------------- runs
    def run_started(self, *, input_messages=None, protocol=None, input_protocol=None, minimal_input=False):
        run_id = f"run-{self.run_index}"
        self.run_index += 1
        self.pending_tool_calls = []
        event = {"type": "RUN_STARTED", "threadId": self.thread, "runId": run_id}
        if protocol is not None:
            event["protocolVersion"] = protocol
        if input_messages is not None:
            run_input = {"threadId": self.thread, "runId": run_id, "messages": input_messages}
            if input_protocol is not None:
                run_input["protocolVersion"] = input_protocol
            if not minimal_input:
                run_input["tools"] = [{"name": "set_led", "description": "Set the LED", "parameters": {"type": "object"}}]
                run_input["context"] = []
                run_input["state"] = {"mode": "auto"}
            event["input"] = run_input
        self.current_run = run_id
        return self.emit(event)

    def run_finished(self, outcome=None, usage=None, result=None):
        event = {"type": "RUN_FINISHED", "threadId": self.thread, "runId": self.current_run}
        if result is not None:
            event["result"] = result
        if outcome is not None:
            event["outcome"] = outcome
        if usage is not None:
            event["usage"] = usage
        return self.emit(event)

    def usage(self):
        entry = {"provider": "openai", "model": "gpt-x", "inputTokens": self.rng.randint(0, 5000),
                 "outputTokens": self.rng.randint(0, 900)}
        if self.rng.random() < 0.6:
            entry["cacheWriteInputTokens"] = self.rng.randint(0, 4000)
        if self.rng.random() < 0.5:
            entry["cachedInputTokens"] = self.rng.randint(0, 4000)
        if self.rng.random() < 0.3:
            entry["reasoningTokens"] = self.rng.randint(0, 300)
        entry["totalTokens"] = entry["inputTokens"] + entry["outputTokens"]
        return [entry]

    # ---------------------------------------------------------- content
    def attr(self, event, owner):
        if owner is not None:
            event["subagentRunId"] = owner
        return event

    def text_message(self, owner=None, chunked=False, parts=None, role=None):
        mid = self.fresh("m")
        parts = parts if parts is not None else self.rng.randint(1, 3)
        if chunked:
            first = self.attr({"type": "TEXT_MESSAGE_CHUNK", "messageId": mid, "delta": self.text()}, owner)
            if role:
                first["role"] = role
            self.emit(first)
            for _ in range(parts - 1):
                chunk = {"type": "TEXT_MESSAGE_CHUNK", "delta": self.text()}
                if self.rng.random() < 0.5:
                    self.attr(chunk, owner)
                self.emit(chunk)
            return mid
        start = self.attr({"type": "TEXT_MESSAGE_START", "messageId": mid, "role": role or "assistant"}, owner)
        self.emit(start)
        for _ in range(parts):
            self.emit(self.attr({"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": self.text()}, owner))
        self.emit(self.attr({"type": "TEXT_MESSAGE_END", "messageId": mid}, owner))
        return mid

    def args_fragments(self):
        value = self.rng.choice([
            {"color": "red", "on": True},
            {"q": "weather in Zürich", "limit": 3},
            {"items": [1, 2.5, None, "x"], "nested": {"a": {"b": []}}},
            {},
        ])
        text = json.dumps(value, ensure_ascii=False)
        cuts = sorted(self.rng.sample(range(1, max(2, len(text))), min(len(text) - 1, self.rng.randint(1, 4)))) if len(text) > 2 else []
        pieces, last = [], 0
        for c in cuts:
            pieces.append(text[last:c])
            last = c
        pieces.append(text[last:])
        return pieces

    def tool_call(self, owner=None, parent=None, chunked=False, result=True, result_parts=False, name=None):
        tcid = self.fresh("tc")
        name = name or self.rng.choice(TOOLS)
        pieces = self.args_fragments()
        if chunked:
            first = self.attr({"type": "TOOL_CALL_CHUNK", "toolCallId": tcid, "toolCallName": name, "delta": pieces[0]}, owner)
            if parent:
                first["parentMessageId"] = parent
            self.emit(first)
            for p in pieces[1:]:
                chunk = {"type": "TOOL_CALL_CHUNK", "delta": p}
                if self.rng.random() < 0.5:
                    self.attr(chunk, owner)
                self.emit(chunk)
        else:
            start = self.attr({"type": "TOOL_CALL_START", "toolCallId": tcid, "toolCallName": name}, owner)
            if parent:
                start["parentMessageId"] = parent
            self.emit(start)
            for p in pieces:
                self.emit(self.attr({"type": "TOOL_CALL_ARGS", "toolCallId": tcid, "delta": p}, owner))
            self.emit(self.attr({"type": "TOOL_CALL_END", "toolCallId": tcid}, owner))
        if result:
            self.tool_result(tcid, owner, result_parts)
        else:
            self.pending_tool_calls.append(tcid)
        return tcid

    def source(self):
        kind = self.rng.choice(["data", "url", "file", "file"])
        mime = self.rng.choice(MIME)
        if kind == "data":
            return {"type": "data", "value": "aGVsbG8=", "mimeType": mime}
        if kind == "url":
            src = {"type": "url", "value": "https://example.com/a.png"}
            if self.rng.random() < 0.5:
                src["mimeType"] = mime
            return src
        src = {"type": "file", "value": self.fresh("file-")}
        if self.rng.random() < 0.6:
            src["provider"] = self.rng.choice(["openai", "anthropic", "gemini"])
        if self.rng.random() < 0.6:
            src["mimeType"] = mime
        return src

    def content_parts(self, count=None):
        parts = []
        for _ in range(count or self.rng.randint(1, 4)):
            kind = self.rng.choice(["text", "image", "audio", "video", "document"])
            if kind == "text":
                part = {"type": "text", "text": self.text()}
            else:
                part = {"type": kind, "source": self.source()}
                if self.rng.random() < 0.3:
                    part["metadata"] = {"alt": self.text()}
            if self.rng.random() < 0.4:
                part["id"] = self.fresh("part-")
            parts.append(part)
        return parts

    def tool_result(self, tcid, owner=None, parts=False):
        content = self.content_parts() if parts else self.text()
        event = self.attr({"type": "TOOL_CALL_RESULT", "messageId": self.fresh("res-"), "toolCallId": tcid,
                           "content": content}, owner)
        if self.rng.random() < 0.5:
            event["role"] = "tool"
        return self.emit(event)

    def reasoning(self, owner=None, span=True, chunked=False, encrypted=False):
        rid = self.fresh("r")
        if span:
            self.emit(self.attr({"type": "REASONING_START", "messageId": rid}, owner))
        mid = self.fresh("rm")
        if chunked:
            self.emit(self.attr({"type": "REASONING_MESSAGE_CHUNK", "messageId": mid, "delta": self.text()}, owner))
            for _ in range(self.rng.randint(0, 2)):
                self.emit({"type": "REASONING_MESSAGE_CHUNK", "delta": self.text()})
        else:
            self.emit(self.attr({"type": "REASONING_MESSAGE_START", "messageId": mid, "role": "reasoning"}, owner))
            for _ in range(self.rng.randint(1, 3)):
                self.emit(self.attr({"type": "REASONING_MESSAGE_CONTENT", "messageId": mid, "delta": self.text()}, owner))
            self.emit(self.attr({"type": "REASONING_MESSAGE_END", "messageId": mid}, owner))
        if encrypted:
            self.emit(self.attr({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": mid,
                                 "encryptedValue": "enc:" + self.fresh("v")}, owner))
        if span:
            self.emit(self.attr({"type": "REASONING_END", "messageId": rid}, owner))
        return rid, mid

    def state(self, owner=None):
        if self.rng.random() < 0.4:
            self.emit(self.attr({"type": "STATE_SNAPSHOT", "snapshot": {"count": self.rng.randint(0, 9), "items": []}}, owner))
        else:
            ops = [self.rng.choice([
                {"op": "add", "path": "/items/-", "value": self.text()},
                {"op": "replace", "path": "/count", "value": self.rng.randint(0, 99)},
                {"op": "add", "path": "/flag", "value": True},
                {"op": "test", "path": "/count", "value": 3},
                {"op": "remove", "path": "/flag"},
                {"op": "copy", "from": "/count", "path": "/copy"},
                {"op": "move", "from": "/copy", "path": "/moved"},
            ]) for _ in range(self.rng.randint(1, 3))]
            self.emit(self.attr({"type": "STATE_DELTA", "delta": ops}, owner))

    def activity(self, owner=None):
        aid = self.fresh("act")
        kind = self.rng.choice(ACTIVITY_TYPES)
        self.emit(self.attr({"type": "ACTIVITY_SNAPSHOT", "messageId": aid, "activityType": kind,
                             "content": {"progress": 0, "items": []}}, owner))
        self.emit(self.attr({"type": "ACTIVITY_DELTA", "messageId": aid, "activityType": kind,
                             "patch": [{"op": "replace", "path": "/progress", "value": self.rng.randint(1, 100)},
                                       {"op": "add", "path": "/items/-", "value": self.text()}]}, owner))
        return aid

    def step(self, owner, body):
        name = self.rng.choice(["plan", "act", "search"])
        self.emit(self.attr({"type": "STEP_STARTED", "stepName": name}, owner))
        body()
        self.emit(self.attr({"type": "STEP_FINISHED", "stepName": name}, owner))

    def subagent_started(self, sid, parent=None, parent_tool=None, parent_message=None, name=None):
        self.subagents_used.add(sid)
        event = {"type": "SUBAGENT_STARTED", "subagentRunId": sid, "name": name or self.rng.choice(["researcher", "coder", "critic"])}
        if self.rng.random() < 0.4:
            event["description"] = "does " + self.text()
        if parent is not None:
            event["parentSubagentRunId"] = parent
        if parent_tool is not None:
            event["parentToolCallId"] = parent_tool
        if parent_message is not None:
            event["parentMessageId"] = parent_message
        return self.emit(event)

    def subagent_finished(self, sid, suspended=None):
        event = {"type": "SUBAGENT_FINISHED", "subagentRunId": sid}
        r = self.rng.random()
        if suspended is not None:
            event["outcome"] = {"type": "suspended", "interruptIds": suspended}
        elif r < 0.4:
            event["outcome"] = {"type": "success"}
        if self.rng.random() < 0.3:
            event["result"] = {"summary": self.text()}
        return self.emit(event)

    def subagent_error(self, sid):
        event = {"type": "SUBAGENT_ERROR", "subagentRunId": sid, "message": "sub-agent failed"}
        if self.rng.random() < 0.5:
            event["code"] = "E_SUB"
        return self.emit(event)

    def body(self, owner=None, depth=0):
        """A random mix of content owned by `owner`."""
        for _ in range(self.rng.randint(1, 3)):
            r = self.rng.random()
            if r < 0.25:
                self.text_message(owner, chunked=self.rng.random() < 0.35)
            elif r < 0.45:
                parent = self.text_message(owner) if self.rng.random() < 0.3 else None
                self.tool_call(owner, parent=parent, chunked=self.rng.random() < 0.3,
                               result=self.rng.random() < 0.8, result_parts=self.rng.random() < 0.4)
            elif r < 0.6:
                self.reasoning(owner, span=self.rng.random() < 0.7, chunked=self.rng.random() < 0.3,
                               encrypted=self.rng.random() < 0.3)
            elif r < 0.7:
                self.state(owner)
            elif r < 0.78:
                self.activity(owner)
            elif r < 0.86:
                self.step(owner, lambda: self.text_message(owner))
            elif r < 0.92:
                self.emit(self.attr({"type": "CUSTOM", "name": "progress", "value": {"n": self.rng.randint(0, 9)}}, owner))
            else:
                self.emit(self.attr({"type": "RAW", "event": {"vendor": self.text()}, "source": "provider"}, owner))


# ----------------------------------------------------------------- messages

def input_messages(s: Stream, with_parts=False, owner=None):
    msgs = [{"id": s.fresh("in"), "role": "user", "content": s.content_parts() if with_parts else s.text()}]
    if s.rng.random() < 0.5:
        msgs.append({"id": s.fresh("in"), "role": "system", "content": "be brief"})
    if s.rng.random() < 0.4:
        tc = s.fresh("tcin")
        asst = {"id": s.fresh("in"), "role": "assistant", "toolCalls": [
            {"id": tc, "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}
        if owner:
            asst["subagentRunId"] = owner
        msgs.append(asst)
        msgs.append({"id": s.fresh("in"), "role": "tool", "toolCallId": tc,
                     "content": s.content_parts(2) if with_parts else "ok"})
    return msgs


# ---------------------------------------------------------------- scenarios

def sc_basic(s: Stream):
    s.run_started(input_messages=input_messages(s) if s.rng.random() < 0.5 else None)
    s.body()
    s.run_finished(outcome={"type": "success"} if s.rng.random() < 0.3 else None,
                   usage=s.usage() if s.rng.random() < 0.5 else None)


def sc_subagents_nested(s: Stream):
    s.run_started(protocol="1.0" if s.rng.random() < 0.6 else None)
    s.body()
    outer = s.fresh("sub-")
    tc = s.tool_call(name="delegate", result=False) if s.rng.random() < 0.5 else None
    s.subagent_started(outer, parent_tool=tc)
    s.body(outer)
    if s.rng.random() < 0.6:
        inner = s.fresh("sub-")
        s.subagent_started(inner, parent=outer)
        s.body(inner)
        if s.rng.random() < 0.2:
            s.subagent_error(inner)
        else:
            s.subagent_finished(inner)
    s.body(outer)
    s.subagent_finished(outer)
    if tc:
        s.tool_result(tc)
        s.pending_tool_calls.remove(tc)
    s.body()
    s.run_finished(usage=s.usage() if s.rng.random() < 0.5 else None)


def sc_subagents_interleaved(s: Stream):
    """Two sub-agents streaming at once: frames of their items alternate."""
    s.run_started(protocol="1.0")
    a, b = s.fresh("sub-"), s.fresh("sub-")
    s.subagent_started(a)
    s.subagent_started(b)
    # Build each sub-agent's events separately, then interleave them.
    streams = []
    for owner in (a, b):
        sub = Stream(s.rng)
        sub.n = s.n + (1000 if owner == b else 0)
        sub.body(owner)
        if s.rng.random() < 0.5:
            sub.text_message(owner, chunked=True)
        streams.append(sub.events)
        s.n = max(s.n, sub.n)
    i = j = 0
    x, y = streams
    while i < len(x) or j < len(y):
        if j >= len(y) or (i < len(x) and s.rng.random() < 0.5):
            s.emit(x[i]); i += 1
        else:
            s.emit(y[j]); j += 1
    # A chunk stream in the parent lane while a sub-agent lane is open too.
    if s.rng.random() < 0.4:
        s.text_message(None, chunked=True)
    s.subagent_finished(a)
    s.subagent_finished(b)
    s.run_finished()


def sc_attribution_wrong(s: Stream):
    """A valid sub-agent run with one attribution mistake injected."""
    s.run_started(protocol="1.0")
    sid = s.fresh("sub-")
    s.subagent_started(sid)
    kind = s.rng.choice(["continuation", "tool-parent", "step", "reuse", "unknown-parent",
                         "finish-unknown", "open-at-finish", "null-tag", "double-start",
                         "chunk-tag", "snapshot-owner", "encrypted-owner", "activity-owner", "result-owner"])
    if kind == "continuation":
        mid = s.fresh("m")
        s.emit({"type": "TEXT_MESSAGE_START", "messageId": mid, "subagentRunId": sid})
        s.emit({"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": "x",
                **({} if s.rng.random() < 0.5 else {"subagentRunId": "sub-other"})})
        s.emit({"type": "TEXT_MESSAGE_END", "messageId": mid})
    elif kind == "tool-parent":
        mid = s.text_message(sid)
        s.emit({"type": "TOOL_CALL_START", "toolCallId": s.fresh("tc"), "toolCallName": "x", "parentMessageId": mid})
    elif kind == "step":
        s.emit({"type": "STEP_STARTED", "stepName": "plan", "subagentRunId": sid})
        s.emit({"type": "STEP_FINISHED", "stepName": "plan"})
    elif kind == "reuse":
        s.body(sid)
        s.subagent_finished(sid)
        s.subagent_started(sid)
    elif kind == "unknown-parent":
        s.subagent_started(s.fresh("sub-"), parent="sub-nobody")
    elif kind == "finish-unknown":
        s.subagent_finished("sub-nobody")
    elif kind == "open-at-finish":
        s.body(sid)
        s.run_finished()
        return
    elif kind == "null-tag":
        s.emit({"type": "TEXT_MESSAGE_START", "messageId": s.fresh("m"), "subagentRunId": None})
    elif kind == "double-start":
        s.subagent_started(sid)
    elif kind == "chunk-tag":
        mid = s.fresh("m")
        s.emit({"type": "TEXT_MESSAGE_CHUNK", "messageId": mid, "delta": "a", "subagentRunId": sid})
        s.emit({"type": "TEXT_MESSAGE_CHUNK", "messageId": mid, "delta": "b"})
        s.emit({"type": "TEXT_MESSAGE_CHUNK", "messageId": mid, "delta": "c", "subagentRunId": "sub-other"})
    elif kind == "snapshot-owner":
        mid = s.fresh("m")
        s.emit({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": mid, "role": "assistant", "content": "x", "subagentRunId": sid}]})
        s.emit({"type": "TEXT_MESSAGE_START", "messageId": mid})
        s.emit({"type": "TEXT_MESSAGE_END", "messageId": mid})
    elif kind == "encrypted-owner":
        mid = s.text_message(sid)
        s.emit({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": mid, "encryptedValue": "e"})
    elif kind == "activity-owner":
        aid = s.activity(sid)
        s.emit({"type": "ACTIVITY_DELTA", "messageId": aid, "activityType": "PLAN", "patch": []})
    elif kind == "result-owner":
        tc = s.tool_call(sid, result=False)
        s.emit({"type": "TOOL_CALL_RESULT", "messageId": s.fresh("res-"), "toolCallId": tc, "content": "x"})
        s.pending_tool_calls.remove(tc)
    s.body(sid)
    s.subagent_finished(sid)
    s.run_finished()


def sc_reasoning(s: Stream):
    s.run_started()
    for _ in range(s.rng.randint(1, 3)):
        owner = None
        if s.rng.random() < 0.3:
            owner = s.fresh("sub-")
            s.subagent_started(owner)
        s.reasoning(owner, span=s.rng.random() < 0.7, chunked=s.rng.random() < 0.4, encrypted=s.rng.random() < 0.5)
        if s.rng.random() < 0.4:
            tc = s.tool_call(owner, result=False)
            s.emit(s.attr({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": tc,
                           "encryptedValue": "enc-tc"}, owner))
            s.tool_result(tc, owner)
            s.pending_tool_calls.remove(tc)
        if owner:
            s.subagent_finished(owner)
    # RUN_FINISHED with items left open checks the open-item order.
    leave = s.rng.random()
    if leave < 0.35:
        opened = s.rng.sample(["step", "text", "rmsg", "span", "tool", "sub"], s.rng.randint(1, 3))
        for what in ["step", "text", "rmsg", "span", "tool", "sub"]:
            if what not in opened:
                continue
            if what == "step":
                s.emit({"type": "STEP_STARTED", "stepName": "left"})
            elif what == "text":
                s.emit({"type": "TEXT_MESSAGE_START", "messageId": s.fresh("m")})
            elif what == "rmsg":
                s.emit({"type": "REASONING_MESSAGE_START", "messageId": s.fresh("rm"), "role": "reasoning"})
            elif what == "span":
                s.emit({"type": "REASONING_START", "messageId": s.fresh("r")})
            elif what == "tool":
                s.emit({"type": "TOOL_CALL_START", "toolCallId": s.fresh("tc"), "toolCallName": "x"})
            else:
                s.subagent_started(s.fresh("sub-"))
    s.run_finished()


def sc_outcomes(s: Stream):
    s.run_started(input_messages=input_messages(s), input_protocol="1.0", protocol="1.0")
    s.body()
    kind = s.rng.choice(["pending", "pending-explicit", "interrupt", "cancelled", "success", "interrupt-sub"])
    if kind in ("pending", "pending-explicit"):
        tcs = [s.tool_call(result=False) for _ in range(s.rng.randint(1, 3))]
        if s.rng.random() < 0.5:
            s.tool_result(tcs[0])
        outcome = {"type": "success"}
        if kind == "pending-explicit":
            outcome["pendingToolCallIds"] = tcs[-1:]
        s.run_finished(outcome=outcome, usage=s.usage(), result={"answer": 42})
    elif kind in ("interrupt", "interrupt-sub"):
        interrupt = {"id": s.fresh("int-"), "reason": "approval", "message": "Approve?",
                     "responseSchema": {"type": "object"}, "expiresAt": "2026-12-31T00:00:00Z"}
        if kind == "interrupt-sub":
            sid = s.fresh("sub-")
            s.subagent_started(sid)
            tc = s.tool_call(sid, result=False)
            interrupt["toolCallId"] = tc
            interrupt["subagentRunId"] = sid
            s.subagent_finished(sid, suspended=[interrupt["id"]])
        s.run_finished(outcome={"type": "interrupt", "interrupts": [interrupt]})
        # The next run resumes it.
        s.run_started(input_messages=[{"id": s.fresh("in"), "role": "user", "content": "yes"}])
        s.text_message()
        s.run_finished(outcome={"type": "success"})
    elif kind == "cancelled":
        s.run_finished(outcome={"type": "cancelled"}, usage=s.usage())
    else:
        s.run_finished(outcome={"type": "success"}, result="done")


def sc_content_parts(s: Stream):
    s.run_started(input_messages=input_messages(s, with_parts=True), minimal_input=s.rng.random() < 0.5)
    for _ in range(s.rng.randint(1, 3)):
        s.tool_call(result=True, result_parts=True)
    if s.rng.random() < 0.6:
        msgs = input_messages(s, with_parts=True)
        s.emit({"type": "MESSAGES_SNAPSHOT", "messages": msgs})
    if s.rng.random() < 0.4:
        # Legacy binary parts, upgraded at the compatibility boundary.
        s.emit({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": s.fresh("u"), "role": "user", "content": [
            {"type": "text", "text": "see"},
            s.rng.choice([{"type": "binary", "mimeType": "image/png", "data": "aGk="},
                          {"type": "binary", "mimeType": "application/pdf", "url": "https://example.com/a.pdf"},
                          {"type": "binary", "mimeType": "image/png", "id": "file-9", "filename": "a.png"}])]}]})
    s.run_finished()


def sc_multi_run(s: Stream):
    for i in range(s.rng.randint(2, 4)):
        s.run_started(input_messages=input_messages(s) if s.rng.random() < 0.5 else None,
                      protocol="1.0" if i == 0 else None)
        s.body()
        if s.rng.random() < 0.2:
            s.emit({"type": "RUN_ERROR", "message": "boom", "code": "E1"})
            continue
        s.run_finished()


def sc_reducer_rules(s: Stream):
    s.run_started()
    kind = s.rng.choice(["text-on-activity", "reasoning-on-activity", "snapshot-replaces-client-only",
                         "empty-id-reasoning-chunk", "replayed-tool-start", "activity-over-text",
                         "patch-on-primitive-state"])
    if kind in ("text-on-activity", "reasoning-on-activity"):
        aid = s.activity()
        if kind == "text-on-activity":
            s.emit({"type": "TEXT_MESSAGE_START", "messageId": aid})
            s.emit({"type": "TEXT_MESSAGE_CONTENT", "messageId": aid, "delta": "x"})
            s.emit({"type": "TEXT_MESSAGE_END", "messageId": aid})
        else:
            s.emit({"type": "REASONING_MESSAGE_START", "messageId": aid, "role": "reasoning"})
            s.emit({"type": "REASONING_MESSAGE_CONTENT", "messageId": aid, "delta": "x"})
            s.emit({"type": "REASONING_MESSAGE_END", "messageId": aid})
    elif kind == "snapshot-replaces-client-only":
        _, mid = s.reasoning(span=False)
        aid = s.activity()
        s.emit({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": mid, "role": "assistant", "content": "now plain"},
            {"id": aid, "role": "user", "content": "replaced"},
            {"id": s.fresh("m"), "role": "user", "content": "new"}]})
    elif kind == "empty-id-reasoning-chunk":
        s.emit({"type": "REASONING_MESSAGE_CHUNK", "messageId": "a", "delta": "one"})
        s.emit({"type": "REASONING_MESSAGE_CHUNK", "messageId": "", "delta": "two"})
        s.emit({"type": "REASONING_MESSAGE_CHUNK", "delta": "three"})
    elif kind == "patch-on-primitive-state":
        # The ES module build of fast-json-patch throws here (the patch fails,
        # state unchanged); its CommonJS build silently "succeeds".
        s.emit({"type": "STATE_SNAPSHOT", "snapshot": s.rng.choice([5, "text", True, 0])})
        s.emit({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/x", "value": 1}]})
    elif kind == "replayed-tool-start":
        tc = s.tool_call(result=False)
        s.emit({"type": "TOOL_CALL_START", "toolCallId": tc, "toolCallName": "renamed", "metadata": {"v": 2}})
        s.emit({"type": "TOOL_CALL_END", "toolCallId": tc})
    else:
        mid = s.text_message()
        s.emit({"type": "ACTIVITY_SNAPSHOT", "messageId": mid, "activityType": "PLAN", "content": {"a": 1},
                "replace": s.rng.random() < 0.5})
    s.body()
    s.run_finished()


def sc_thinking(s: Stream):
    """Old streams: THINKING_* events, translated at the compatibility boundary."""
    s.run_started(protocol=None)
    for _ in range(s.rng.randint(1, 2)):
        start = {"type": "THINKING_START"}
        if s.rng.random() < 0.5:
            start["title"] = "Thinking about " + s.text()
        s.emit(start)
        for _ in range(s.rng.randint(0, 2)):
            s.emit({"type": "THINKING_TEXT_MESSAGE_START"})
            for _ in range(s.rng.randint(1, 3)):
                s.emit({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": s.text()})
            s.emit({"type": "THINKING_TEXT_MESSAGE_END"})
        s.emit({"type": "THINKING_END"})
        s.body()
    r = s.rng.random()
    if r < 0.15:
        s.emit({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "orphan"})
    elif r < 0.25:
        s.emit({"type": "THINKING_END"})
    elif r < 0.35:
        s.emit({"type": "THINKING_START"})
        s.emit({"type": "THINKING_START"})
        s.emit({"type": "THINKING_END"})
    s.run_finished()


def sc_legacy_nulls(s: Stream):
    """Pre-1.0 nulls the compatibility boundary turns into absent fields."""
    s.run_started(input_messages=input_messages(s))
    ev = s.events[-1]
    ev["input"]["forwardedProps"] = None
    if s.rng.random() < 0.5:
        ev["rawEvent"] = None
    s.emit({"type": "TOOL_CALL_START", "toolCallId": "tcn", "toolCallName": "x", "parentMessageId": None})
    s.emit({"type": "TOOL_CALL_END", "toolCallId": "tcn"})
    s.emit({"type": "TOOL_CALL_CHUNK", "toolCallId": "tcc", "toolCallName": "y", "parentMessageId": None, "delta": "{}"})
    s.emit({"type": "CUSTOM", "name": "n", "value": 1, "rawEvent": None})
    s.run_finished(outcome=None, result=None)
    fin = s.events[-1]
    fin["outcome"] = None
    fin["result"] = None


def sc_protocol_versions(s: Stream):
    declared = s.rng.choice(["1.0", "0.9", "1.1", "2.0", "2", "1.0.0", "abc", ""])
    s.run_started(protocol=declared, input_messages=input_messages(s), input_protocol=s.rng.choice(["1.0", None]))
    s.body()
    s.run_finished()


SCENARIOS = [
    (sc_basic, 10), (sc_subagents_nested, 12), (sc_subagents_interleaved, 10), (sc_attribution_wrong, 14),
    (sc_reasoning, 10), (sc_outcomes, 10), (sc_content_parts, 8), (sc_multi_run, 6), (sc_reducer_rules, 6),
    (sc_thinking, 7), (sc_legacy_nulls, 3), (sc_protocol_versions, 4),
]


# ---------------------------------------------------------------- deviations

UNKNOWN_TYPES = ["SUBAGENT_PAUSED", "TEXT_MESSAGE_REACTION", "FUTURE_EVENT", "x-vendor"]


def dev_unknown_type(rng, events):
    at = rng.randint(1, len(events))
    events.insert(at, {"type": rng.choice(UNKNOWN_TYPES), "payload": {"n": 1}})
    return "unknown-type"


def dev_unknown_key(rng, events):
    ev = rng.choice(events)
    ev[rng.choice(["vendorExtra", "x_trace", "priority", "toString", "constructor"])] = rng.choice([1, "x", {"deep": [1]}, None])
    return "unknown-key"


def dev_unknown_member(rng, events):
    """An unknown outcome type, content part, part source or patch op."""
    for ev in rng.sample(events, len(events)):
        t = ev["type"]
        if t == "RUN_FINISHED":
            ev["outcome"] = rng.choice([{"type": "handoff", "to": "other"}, {"type": "success", "nextRun": "r9"},
                                        {"type": "cancelled", "reason": "user"}])
            return "unknown-outcome"
        if t == "TOOL_CALL_RESULT" and isinstance(ev.get("content"), list):
            ev["content"].append(rng.choice([{"type": "spreadsheet", "sheets": 2},
                                             {"type": "image", "source": {"type": "s3", "bucket": "b"}},
                                             {"type": "text", "text": "x", "lang": "de"}]))
            return "unknown-part"
        if t in ("STATE_DELTA", "ACTIVITY_DELTA"):
            key = "delta" if t == "STATE_DELTA" else "patch"
            ev[key].append(rng.choice([{"op": "merge", "path": "/a", "value": {}},
                                       {"op": "add", "path": "/z", "value": 1, "comment": "kept: patch ops are open"}]))
            return "unknown-op"
        if t == "SUBAGENT_FINISHED":
            ev["outcome"] = {"type": "delegated", "to": "x"}
            return "unknown-subagent-outcome"
    return dev_unknown_key(rng, events)


def dev_timestamp(rng, events):
    ev = rng.choice(events)
    ev["timestamp"] = rng.choice([1767225600000, 9007199254740991, 9007199254740993, 18446744073709551616,
                                  -9007199254740991, 1.5, "2026-01-01", 0])
    return "timestamp"


def dev_bad_field(rng, events):
    """A malformed value on a known field: fatal in 1.0."""
    for ev in rng.sample(events, len(events)):
        t = ev["type"]
        if t == "RUN_FINISHED" and ev.get("usage"):
            ev["usage"][0]["cacheWriteInputTokens"] = rng.choice([-1, 1.5, "9", 9007199254740993])
            return "bad-usage"
        if t in ("STATE_DELTA",):
            ev["delta"][0]["path"] = rng.choice(["no-slash", "/a~2b", 5])
            return "bad-patch-path"
        if t == "TOOL_CALL_RESULT":
            ev["content"] = rng.choice([5, {"type": "text"}, [{"type": "image"}]])
            return "bad-content"
        if t == "SUBAGENT_STARTED":
            del ev["name"]
            return "bad-subagent"
        if t == "TEXT_MESSAGE_START":
            ev["role"] = rng.choice(["tool", "reasoning", "wizard"])
            return "bad-role"
    events[0]["threadId"] = 7
    return "bad-thread"


def dev_damage(rng, events):
    kind = rng.choice(["drop", "dup", "swap", "truncate", "frame"])
    if len(events) < 3:
        kind = "frame"
    if kind == "drop":
        del events[rng.randrange(1, len(events))]
    elif kind == "dup":
        i = rng.randrange(len(events))
        events.insert(i, copy.deepcopy(events[i]))
    elif kind == "swap":
        i = rng.randrange(1, len(events) - 1)
        events[i], events[i + 1] = events[i + 1], events[i]
    elif kind == "truncate":
        del events[rng.randrange(1, len(events)):]
    else:
        events.insert(rng.randint(0, len(events)), rng.choice([[1, 2], "text", 7, None, {}, {"type": ""}, {"type": 5}]))
    return kind


DEVIATIONS = [(None, 40), (dev_unknown_type, 10), (dev_unknown_key, 10), (dev_unknown_member, 12),
              (dev_timestamp, 6), (dev_bad_field, 8), (dev_damage, 14)]


def weighted(rng, table):
    total = sum(w for _, w in table)
    r = rng.uniform(0, total)
    for item, w in table:
        r -= w
        if r <= 0:
            return item
    return table[-1][0]


def generate(seed, count):
    rng = random.Random(seed)
    for i in range(count):
        scenario = weighted(rng, SCENARIOS)
        s = Stream(rng)
        scenario(s)
        events = s.events
        deviation = weighted(rng, DEVIATIONS)
        tag = deviation(rng, events) if deviation else "valid"
        name = f"v1-{seed}-{i}-{scenario.__name__[3:].replace('_', '-')}-{tag}"
        yield name, events


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--count", type=int, default=1100)
    a = ap.parse_args()
    for name, events in generate(a.seed, a.count):
        sys.stdout.write(json.dumps({"name": name, "events": events}, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
