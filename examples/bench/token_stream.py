#!/usr/bin/env python3
"""A chat stream shaped like a real model's, for checking the benchmark
figures on input our own generator (tests/src/workloads.rs) did not make.

Token-sized deltas (1 to 3 words, some punctuation and non-ASCII), UUID
message ids, now and then a tool call with an OpenAI-style id, argument
pieces and a result, the way pydantic-ai's AG-UI adapter streams a
FunctionModel. Deterministic (seeded).

    python3 examples/bench/token_stream.py sse > tok.sse
    agui-bench-core run client file:tok.sse 0
"""
import json
import random
import sys
import uuid

WORDS = (
    "the a of to and in is it that for on with as was at by this be are from or an have "
    "not but they which you one all were we when your can said there use each she do how "
    "their if will up other about out many then them these so some her would make like him "
    "into time has look two more write go see number no way could people my than first water "
    "been call who oil its now find long down day did get come made may part"
).split()


def stream(encoding, deltas=30000, seed=7):
    rng = random.Random(seed)
    ident = lambda: str(uuid.UUID(int=rng.getrandbits(128)))
    out = []

    def emit(event):
        text = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
        out.append(f"data: {text}\n\n" if encoding == "sse" else text + "\n")

    thread, run = ident(), ident()
    emit({"type": "RUN_STARTED", "threadId": thread, "runId": run})
    written = 0
    while written < deltas:
        message = ident()
        emit({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"})
        for _ in range(rng.randint(50, 400)):
            words = rng.choice([1, 1, 1, 2, 2, 3])
            delta = "".join(
                (" " if rng.random() < 0.8 else "") + rng.choice(WORDS) for _ in range(words)
            )
            if rng.random() < 0.05:
                delta += rng.choice([".", ",", "\n\n", " — ", " “ok”", "é"])
            emit({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": delta})
            written += 1
        emit({"type": "TEXT_MESSAGE_END", "messageId": message})
        if rng.random() < 0.3:
            call = "call_" + uuid.UUID(int=rng.getrandbits(128)).hex[:24]
            emit({"type": "TOOL_CALL_START", "toolCallId": call,
                  "toolCallName": "get_weather", "parentMessageId": message})
            for piece in ['{"ci', 'ty": "', "Par", 'is", "u', 'nits": "c"}']:
                emit({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": piece})
            emit({"type": "TOOL_CALL_END", "toolCallId": call})
            emit({"type": "TOOL_CALL_RESULT", "messageId": ident(), "toolCallId": call,
                  "content": '{"temp": 21, "sky": "clear"}', "role": "tool"})
    emit({"type": "RUN_FINISHED", "threadId": thread, "runId": run})
    return "".join(out)


if __name__ == "__main__":
    encoding = sys.argv[1] if len(sys.argv) > 1 else "sse"
    if encoding not in ("sse", "ndjson"):
        sys.exit("usage: token_stream.py [sse|ndjson] > stream")
    sys.stdout.write(stream(encoding))
