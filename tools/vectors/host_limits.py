#!/usr/bin/env python3
"""Streams past the microcontroller's capacities, for the host (issue 22).

Valid AG-UI streams that a host client must fold as the reference client
`@ag-ui/client` 1.0.0 does, although each passes one of the fixed capacities
the no-heap core was sized with for a Cortex-M3 (open messages, tool calls and
steps, id bytes, JSON depth, AG-UI 1.0 owner and sub-agent tables):

    python3 tools/vectors/host_limits.py --file v1         # AG-UI 1.0 streams
    python3 tools/vectors/host_limits.py --file v1-thread  # the 120-run thread (1.0)
    python3 tools/vectors/host_limits.py --file v1-finished  # finished items (1.0)
    python3 tools/vectors/host_limits.py --file current    # current-protocol streams
    python3 tools/vectors/host_limits.py --merge A B       # join 1.0.0's and 0.0.58's results

Output: one line per stream, {"name", "events"}, "events" last, for
tools/oracle/run.mjs. Deterministic: no randomness, the sizes are below.
The expected results come from the reference client (tools/vectors/host.sh),
never from this script.

Names ending in `-past-limit` go beyond the host's own depth limit (512)
where the reference still folds; `NAME/before-K` is such a stream's first K
frames. The Rust test states what this client does there
(`KNOWN` in tests/tests/common/host.rs).
"""

import argparse
import json
import sys

# The sizes, one place. Each is well past the core's fixed capacity for the
# same thing (64 open messages and tool calls, 32 open steps, 128-byte ids,
# depth 64, 512 owner entries and 8 sub-agents per 1.0 run).
SEQUENTIAL_SUBAGENTS = 30
CONCURRENT_SUBAGENTS = 40
THREAD_RUNS = 120
MESSAGES_PER_RUN = 5  # history after the last run: 600 messages
SNAPSHOT_MESSAGES = 3000
PARALLEL_TOOL_CALLS = 300
OPEN_MESSAGES = 300
OPEN_STEPS = 200
LONG_ID_BYTES = 2000
DEEP = 300
DEEP_NEAR_LIMIT = 500  # the host accepts at least 512 (issue 22)
DEEP_PAST_LIMIT = 600


def run_started(run="r", thread="t"):
    return {"type": "RUN_STARTED", "threadId": thread, "runId": run}


def run_finished(run="r", thread="t"):
    return {"type": "RUN_FINISHED", "threadId": thread, "runId": run}


def tag(owner):
    return {} if owner is None else {"subagentRunId": owner}


def text(mid, delta, owner=None):
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant", **tag(owner)},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": delta, **tag(owner)},
        {"type": "TEXT_MESSAGE_END", "messageId": mid, **tag(owner)},
    ]


def tool_call(tcid, args, parent=None, owner=None, name="lookup"):
    start = {"type": "TOOL_CALL_START", "toolCallId": tcid, "toolCallName": name, **tag(owner)}
    if parent is not None:
        start["parentMessageId"] = parent
    return [
        start,
        {"type": "TOOL_CALL_ARGS", "toolCallId": tcid, "delta": args, **tag(owner)},
        {"type": "TOOL_CALL_END", "toolCallId": tcid, **tag(owner)},
    ]


def nested(depth, leaf=1):
    """A value of `depth` nested containers, objects and arrays alternating."""
    value = leaf
    for level in range(depth):
        value = {"k": value} if level % 2 == 0 else [value]
    return value


def deep_path(depth):
    """The JSON Pointer of the leaf of nested(depth)."""
    parts = []
    for level in reversed(range(depth)):
        parts.append("k" if level % 2 == 0 else "0")
    return "/" + "/".join(parts)


def split(text_value, pieces):
    """`text_value` cut into `pieces` deltas of about equal length."""
    step = max(1, -(-len(text_value) // pieces))
    return [text_value[i : i + step] for i in range(0, len(text_value), step)]


# ---------------------------------------------------------------- both protocols


def parallel_tool_calls(owner=None):
    n = PARALLEL_TOOL_CALLS
    events = [run_started()]
    events += [{"type": "TOOL_CALL_START", "toolCallId": f"tc{i}", "toolCallName": "lookup", **tag(owner)} for i in range(n)]
    # Each call's arguments in two halves, interleaved across all calls.
    events += [{"type": "TOOL_CALL_ARGS", "toolCallId": f"tc{i}", "delta": f'{{"q":"item {i}"'} for i in range(n)]
    events += [{"type": "TOOL_CALL_ARGS", "toolCallId": f"tc{i}", "delta": f',"n":{i}}}'} for i in range(n)]
    events += [{"type": "TOOL_CALL_END", "toolCallId": f"tc{i}"} for i in range(n)]
    events += [{"type": "TOOL_CALL_RESULT", "messageId": f"res{i}", "toolCallId": f"tc{i}", "content": "ok"} for i in range(0, n, 2)]
    return events + [run_finished()]


def open_messages():
    n = OPEN_MESSAGES
    events = [run_started()]
    events += [{"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "role": "assistant"} for i in range(n)]
    events += [{"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{i}", "delta": f"part {i}"} for i in range(n)]
    events += [{"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{i}", "delta": "."} for i in reversed(range(n))]
    events += [{"type": "TEXT_MESSAGE_END", "messageId": f"m{i}"} for i in range(n)]
    return events + [run_finished()]


def open_steps():
    n = OPEN_STEPS
    events = [run_started()]
    events += [{"type": "STEP_STARTED", "stepName": f"step {i}"} for i in range(n)]
    events += text("m", "inside every step")
    events += [{"type": "STEP_FINISHED", "stepName": f"step {i}"} for i in reversed(range(n))]
    return events + [run_finished()]


def long_ids():
    mid = ("m" * LONG_ID_BYTES)[:LONG_ID_BYTES]
    tcid = ("t" * LONG_ID_BYTES)[:LONG_ID_BYTES]
    step = ("s" * LONG_ID_BYTES)[:LONG_ID_BYTES]
    # Multi-byte characters: 2,000 bytes of UTF-8, 500 characters.
    wide = "\u00e9\u00e8" * (LONG_ID_BYTES // 4)
    assert len(wide.encode()) == LONG_ID_BYTES
    events = [run_started(), {"type": "STEP_STARTED", "stepName": step}]
    events += text(mid, "a message with a 2,000-byte id")
    events += tool_call(tcid, '{"x":1}', parent=mid)
    events += [{"type": "TOOL_CALL_RESULT", "messageId": wide, "toolCallId": tcid, "content": "done"}]
    events += [{"type": "STEP_FINISHED", "stepName": step}]
    return events + [run_finished()]


def long_message_id_only():
    mid = "x" * LONG_ID_BYTES
    return [run_started(), *text(mid, "hello"), run_finished()]


def deep_state(depth):
    return [run_started(), {"type": "STATE_SNAPSHOT", "snapshot": {"root": nested(depth)}}, run_finished()]


def deep_delta(depth):
    """A patch that adds a deep value, then one that replaces its deepest leaf."""
    return [
        run_started(),
        {"type": "STATE_SNAPSHOT", "snapshot": {"root": 0}},
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/deep", "value": nested(depth)}]},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/deep" + deep_path(depth), "value": 2}]},
        run_finished(),
    ]


def deep_tool_args(depth):
    args = json.dumps(nested(depth), separators=(",", ":"))
    events = [run_started(), {"type": "TOOL_CALL_START", "toolCallId": "tc", "toolCallName": "lookup"}]
    events += [{"type": "TOOL_CALL_ARGS", "toolCallId": "tc", "delta": d} for d in split(args, 4)]
    events += [{"type": "TOOL_CALL_END", "toolCallId": "tc"}]
    return events + [run_finished()]


def big_snapshot():
    return [run_started(), {"type": "MESSAGES_SNAPSHOT", "messages": history(SNAPSHOT_MESSAGES)}, *text("after", "next"), run_finished()]


def history(count):
    """`count` messages: user, assistant with a tool call, tool, assistant, ..."""
    out = []
    for i in range(count):
        kind = i % 4
        if kind == 0:
            out.append({"id": f"h{i}", "role": "user", "content": f"q{i}"})
        elif kind == 1:
            out.append({"id": f"h{i}", "role": "assistant", "toolCalls": [{"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]})
        elif kind == 2:
            out.append({"id": f"h{i}", "role": "tool", "toolCallId": f"c{i - 1}", "content": "r"})
        else:
            out.append({"id": f"h{i}", "role": "assistant", "content": f"a{i}"})
    return out


# What is kept of a finished item (docs: /work/helpers/ref-findings.md):
# many items end, then one of the first is used again.
FINISHED_ITEMS = 600


def finished_tool_calls():
    """600 tool calls one after another; then the first is reopened: the
    reference appends to its arguments, and the run's outcome lists all
    600 as pending."""
    events = [run_started()]
    for i in range(FINISHED_ITEMS):
        events += tool_call(f"tc{i}", "{}")
    events += tool_call("tc0", '{"again":1}')
    return events + [run_finished()]


def finished_messages(late):
    """600 text messages one after another; then the first is used again
    (allowed), or sent a late continuation (an error)."""
    events = [run_started()]
    for i in range(FINISHED_ITEMS):
        events += text(f"m{i}", "t")
    if late:
        return events + [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": "late"}]
    return events + text("m0", " again") + [run_finished()]


BOTH = {
    "parallel-tool-calls-300": parallel_tool_calls,
    "open-text-messages-300": open_messages,
    "open-steps-200": open_steps,
    "long-ids-2000-bytes": long_ids,
    "message-id-2000-bytes": long_message_id_only,
    "state-snapshot-nested-300": lambda: deep_state(DEEP),
    "state-delta-nested-300": lambda: deep_delta(DEEP),
    "tool-args-nested-300": lambda: deep_tool_args(DEEP),
    "state-snapshot-nested-500": lambda: deep_state(DEEP_NEAR_LIMIT),
    "state-delta-nested-500": lambda: deep_delta(DEEP_NEAR_LIMIT),
    "tool-args-nested-500": lambda: deep_tool_args(DEEP_NEAR_LIMIT),
    "messages-snapshot-3000": big_snapshot,
}

FINISHED = {
    "finished-tool-calls-600-then-reopen": finished_tool_calls,
    "finished-messages-600-then-reuse": lambda: finished_messages(late=False),
    "finished-messages-600-then-late-content": lambda: finished_messages(late=True),
}

# Past the host's depth limit (512), where the reference still folds. Each is
# followed by its prefixes, `NAME/before-K` (frames 0..K-1), for every K from
# the first frame that goes past the limit to the last frame: the reference's
# fold of what came before the frame where a host stops with its error.
PAST_LIMIT = {
    "state-snapshot-nested-600-past-limit": lambda: deep_state(DEEP_PAST_LIMIT),
    "state-delta-nested-600-past-limit": lambda: deep_delta(DEEP_PAST_LIMIT),
    "tool-args-nested-600-past-limit": lambda: deep_tool_args(DEEP_PAST_LIMIT),
}
HOST_DEPTH = 512


def depth_of_text(text_value):
    """The deepest nesting reached in JSON text (complete or cut short)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text_value:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def first_past(events, limit):
    """Index of the first frame nested deeper than `limit`, counting a tool
    call's arguments as received so far."""
    args = {}
    for index, event in enumerate(events):
        deepest = depth_of_text(json.dumps(event))
        if event["type"] == "TOOL_CALL_ARGS":
            args[event["toolCallId"]] = args.get(event["toolCallId"], "") + event["delta"]
            deepest = max(deepest, depth_of_text(args[event["toolCallId"]]))
        if deepest > limit:
            return index
    raise ValueError("no frame is past the limit")


def with_prefixes(streams):
    """Each stream, then its `/before-K` prefixes."""
    out = {}
    for name, build in streams.items():
        events = build()
        out[name] = lambda events=events: events
        for k in range(first_past(events, HOST_DEPTH), len(events)):
            out[f"{name}/before-{k}"] = lambda events=events, k=k: events[:k]
    return out

# ---------------------------------------------------------------- AG-UI 1.0 only


def subagent_started(sid, parent=None):
    event = {"type": "SUBAGENT_STARTED", "subagentRunId": sid, "name": "researcher"}
    if parent is not None:
        event["parentSubagentRunId"] = parent
    return event


def subagent_finished(sid):
    return {"type": "SUBAGENT_FINISHED", "subagentRunId": sid}


def sequential_subagents():
    events = [run_started()]
    for i in range(SEQUENTIAL_SUBAGENTS):
        sid = f"sub{i}"
        events.append(subagent_started(sid))
        events.append({"type": "STEP_STARTED", "stepName": "work", **tag(sid)})
        events += text(f"m{i}", f"answer {i}", owner=sid)
        events += tool_call(f"tc{i}", '{"i":%d}' % i, parent=f"m{i}", owner=sid)
        events.append({"type": "STEP_FINISHED", "stepName": "work", **tag(sid)})
        events.append(subagent_finished(sid))
    # A child of a finished sub-agent is allowed (its parent was started in this run).
    events += [subagent_started("late-child", parent="sub0"), subagent_finished("late-child")]
    return events + [run_finished()]


def concurrent_subagents():
    n = CONCURRENT_SUBAGENTS
    events = [run_started()]
    events += [subagent_started(f"sub{i}", parent=None if i == 0 else "sub0") for i in range(n)]
    events += [{"type": "STEP_STARTED", "stepName": "work", **tag(f"sub{i}")} for i in range(n)]
    events += [{"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "role": "assistant", **tag(f"sub{i}")} for i in range(n)]
    events += [{"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{i}", "delta": f"from {i}", **tag(f"sub{i}")} for i in range(n)]
    events += [{"type": "TEXT_MESSAGE_END", "messageId": f"m{i}", **tag(f"sub{i}")} for i in range(n)]
    events += [{"type": "STEP_FINISHED", "stepName": "work", **tag(f"sub{i}")} for i in range(n)]
    events += [subagent_finished(f"sub{i}") for i in reversed(range(n))]
    return events + [run_finished()]


def concurrent_subagent_chunks():
    """40 sub-agents each streaming a chunked message at once: 40 chunk lanes."""
    n = CONCURRENT_SUBAGENTS
    events = [run_started()]
    events += [subagent_started(f"sub{i}") for i in range(n)]
    events += [{"type": "TEXT_MESSAGE_CHUNK", "messageId": f"c{i}", "role": "assistant", "delta": "a", "subagentRunId": f"sub{i}"} for i in range(n)]
    events += [{"type": "TEXT_MESSAGE_CHUNK", "delta": "b", "subagentRunId": f"sub{i}"} for i in range(n)]
    events += [{"type": "TOOL_CALL_CHUNK", "toolCallId": f"k{i}", "toolCallName": "lookup", "delta": "{}", "subagentRunId": f"sub{i}"} for i in range(n)]
    events += [subagent_finished(f"sub{i}") for i in range(n)]
    return events + [run_finished()]


def thread_of_runs():
    """Runs that each end with a MESSAGES_SNAPSHOT of the whole history.

    Short ids and texts: the snapshots restate 36,300 messages in all, and the
    file stays under 2 MB."""
    events = []
    kept = []
    for run in range(THREAD_RUNS):
        rid = f"r{run}"
        events.append(run_started(rid, "th"))
        # The agent streams its messages, then restates the whole history
        # (the user's message first, which only the snapshot carries).
        events += text(f"a{run}", "a")
        events += tool_call(f"t{run}", "{}", parent=f"b{run}", name="f")
        events.append({"type": "TOOL_CALL_RESULT", "messageId": f"r{run}", "toolCallId": f"t{run}", "content": "r"})
        events += text(f"f{run}", "f")
        kept += [
            {"id": f"u{run}", "role": "user", "content": "q"},
            {"id": f"a{run}", "role": "assistant", "content": "a"},
            {"id": f"b{run}", "role": "assistant", "toolCalls": [{"id": f"t{run}", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"id": f"r{run}", "role": "tool", "toolCallId": f"t{run}", "content": "r"},
            {"id": f"f{run}", "role": "assistant", "content": "f"},
        ]
        assert len(kept) == MESSAGES_PER_RUN * (run + 1)
        events.append({"type": "MESSAGES_SNAPSHOT", "messages": list(kept)})
        events.append(run_finished(rid, "th"))
    return events


def open_reasoning():
    """300 reasoning spans, each with its reasoning message, open at once."""
    n = OPEN_MESSAGES
    events = [run_started()]
    events += [{"type": "REASONING_START", "messageId": f"r{i}"} for i in range(n)]
    events += [{"type": "REASONING_MESSAGE_START", "messageId": f"r{i}", "role": "reasoning"} for i in range(n)]
    events += [{"type": "REASONING_MESSAGE_CONTENT", "messageId": f"r{i}", "delta": f"thought {i}"} for i in range(n)]
    events += [{"type": "REASONING_MESSAGE_END", "messageId": f"r{i}"} for i in range(n)]
    events += [{"type": "REASONING_END", "messageId": f"r{i}"} for i in range(n)]
    return events + [run_finished()]


def run_input_history():
    """A RUN_STARTED whose input echoes 600 messages of history (seeding
    their owners), then the agent answers."""
    started = run_started()
    started["input"] = {"threadId": "t", "runId": "r", "messages": history(FINISHED_ITEMS)}
    return [started, *text("next", "answer"), run_finished()]


def sequential_then(tail):
    """The 30 sequential sub-agents, then `tail` instead of RUN_FINISHED."""
    return sequential_subagents()[:-1] + tail


def owners_kept_after_close():
    """600 messages of sub-agent sA, all finished, sA finished too; then sB
    reopens the first: the reference kept its owner (an error)."""
    events = [run_started(), subagent_started("sA")]
    for i in range(FINISHED_ITEMS):
        events += text(f"m{i}", "x", owner="sA")
    events += [subagent_finished("sA"), subagent_started("sB")]
    events.append({"type": "TEXT_MESSAGE_START", "messageId": "m0", "role": "assistant", "subagentRunId": "sB"})
    return events


def owners_cleared_by_next_run():
    """The same, but sB reopens the first message in the next run: allowed."""
    events = owners_kept_after_close()[:-2] + [run_finished("r"), run_started("r2"), subagent_started("sB")]
    events += text("m0", " more", owner="sB")
    return events + [subagent_finished("sB"), run_finished("r2")]


V1_ONLY = {
    "subagents-sequential-30": sequential_subagents,
    "subagents-open-40": concurrent_subagents,
    "subagents-open-40-chunk-lanes": concurrent_subagent_chunks,
    "thread-120-runs-snapshot-600": thread_of_runs,
    "subagent-parallel-tool-calls-300": lambda: parallel_tool_calls(owner="sub0")[:1]
    + [subagent_started("sub0")]
    + parallel_tool_calls(owner="sub0")[1:-1]
    + [subagent_finished("sub0"), run_finished()],
    "open-reasoning-300": open_reasoning,
    "run-input-history-600": run_input_history,
}

# Kept on purpose (SPEC 8, "The host-limit vectors"): a host, like a
# device, keeps at most 8 sub-agents' chunk lanes open at once, because a
# frame's rollback copies the lanes; the 9th lane's chunk (frame 49 of the
# stream) is a `capacity` error. Its prefix is the reference's fold of
# what comes before it.
LANES_PAST_LIMIT = 8


def lane_prefix():
    events = concurrent_subagent_chunks()
    k = 1 + CONCURRENT_SUBAGENTS + LANES_PAST_LIMIT
    return {f"subagents-open-40-chunk-lanes/before-{k}": lambda: events[:k]}


V1_FINISHED = {
    # A finished sub-agent's id is kept for the run (it cannot start again,
    # it may still be a parent), and forgotten at the next run.
    "subagents-sequential-30-then-reuse": lambda: sequential_then([subagent_started("sub3")]),
    "subagents-sequential-30-then-finish-again": lambda: sequential_then([subagent_finished("sub3")]),
    "subagents-sequential-30-then-reuse-next-run": lambda: sequential_then(
        [run_finished(), run_started("r2"), subagent_started("sub3"), subagent_finished("sub3"), run_finished("r2")]
    ),
    "owners-kept-after-close-600": owners_kept_after_close,
    "owners-cleared-by-next-run-600": owners_cleared_by_next_run,
}


FILES = {
    # file name -> (protocol, streams)
    "v1": ("1.0", {**BOTH, **{k: v for k, v in V1_ONLY.items() if not k.startswith("thread-")}, **with_prefixes(PAST_LIMIT), **lane_prefix()}),
    # What the reference keeps of finished items, with many of them.
    "v1-finished": ("1.0", {**FINISHED, **V1_FINISHED}),
    # The thread alone: its snapshots make it the one large stream.
    "v1-thread": ("1.0", {k: v for k, v in V1_ONLY.items() if k.startswith("thread-")}),
    "current": ("current", {**BOTH, **with_prefixes(PAST_LIMIT), **FINISHED}),
}


def without_outcome(expect):
    """The parts of a 1.0.0 result a 0.0.58 result is compared on: the same,
    less what 0.0.58 cannot produce (RUN_FINISHED outcomes, warnings)."""
    trace = [{k: v for k, v in entry.items() if k != "outcome"} for entry in expect["trace"]]
    return {k: (trace if k == "trace" else expect[k]) for k in ("error", "trace", "messages", "state", "applyFailure")}


def merge(newest_path, old_path):
    """Current-protocol vectors: the 1.0.0 client's result as `expect`, and
    0.0.58's as `expect_0_0_58` only where it differs."""
    with open(newest_path, encoding="utf-8") as newest, open(old_path, encoding="utf-8") as old:
        lines, old_lines = newest.readlines(), old.readlines()
    assert len(lines) == len(old_lines), "both oracles ran the same streams"
    for line, old_line in zip(lines, old_lines):
        vector, older = json.loads(line), json.loads(old_line)
        assert older["name"] == vector["name"], "both oracles wrote the streams in the same order"
        head = {"name": vector["name"], "protocol": "current", "reference": "@ag-ui/client 1.0.0"}
        if without_outcome(vector["expect"]) != without_outcome(older["expect"]):
            head["expect_0_0_58"] = older["expect"]
        head["expect"] = vector["expect"]
        # The events as the oracle wrote them (the line's last member).
        events = line[line.index(',"events":') :].rstrip("\n")
        sys.stdout.write(json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1] + events + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", choices=sorted(FILES), help="the streams of one vector file")
    parser.add_argument("--merge", nargs=2, metavar=("RESULTS_1_0_0", "RESULTS_0_0_58"),
                        help="join the two oracles' results on the current-protocol streams")
    args = parser.parse_args()
    if args.merge:
        merge(*args.merge)
        return
    if args.file is None:
        parser.error("--file or --merge is required")
    _protocol, streams = FILES[args.file]
    for name, build in streams.items():
        line = json.dumps({"name": name, "events": build()}, ensure_ascii=False, separators=(",", ":"))
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
