# Mutated streams for the differential check of tests/tests/v1_inbound.rs
# (`differential`, ignored by default): every stream is the head of a vector
# with a few random edits (keys set, removed or replaced anywhere, types
# changed, legacy shapes and unknown union members planted). Deterministic:
#   python3 tests/tests/v1_edge/mutate.py --seed 1 --count 5000 \
#     | node tests/tests/v1_edge/enforced.mjs > /tmp/ref.jsonl
#   AGUI_V1_REF=/tmp/ref.jsonl cargo test -p agui-tests --test v1_inbound \
#     differential -- --ignored --nocapture
import argparse
import copy
import json
import random
from pathlib import Path

root = Path(__file__).resolve().parents[2] / "vectors" / "v1"
streams = []
for name in ["generated.jsonl", "handmade.jsonl", "python-sdk.jsonl"]:
    for line in (root / name).read_text().splitlines():
        if line.strip():
            streams.append(json.loads(line)["events"])

keys, strings = set(), set()


def collect(v):
    if isinstance(v, dict):
        for k, x in v.items():
            keys.add(k)
            collect(x)
    elif isinstance(v, list):
        for x in v:
            collect(x)
    elif isinstance(v, str) and len(v) < 40:
        strings.add(v)


for s in streams:
    collect(s)
keys |= {"toString", "constructor", "zz", "filename", "data", "url", "title"}
strings |= {"binary", "future", "THINKING_START", "THINKING_END", "THINKING_TEXT_MESSAGE_START",
            "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END", "/a~2", "a", "~"}
keys, strings = sorted(keys), sorted(strings)


def value(r, depth=0):
    roll = r.random()
    if roll < 0.12:
        return None
    if roll < 0.2:
        return r.choice([True, False, 0, -1, 1.5, 2**53, 2**53 - 1, 1e3, -0.0])
    if roll < 0.45 or depth > 2:
        return r.choice(strings)
    if roll < 0.6:
        return {"type": r.choice(strings), **{r.choice(keys): value(r, depth + 1) for _ in range(r.randrange(3))}}
    if roll < 0.7:
        part = {"type": "binary", "mimeType": r.choice(["image/png", "audio/x", "text/plain", 5])}
        for k in ["data", "url", "id", "filename"]:
            if r.random() < 0.5:
                part[k] = r.choice(["x", "", 0, 1, "f", None])
        return [part, {"type": "image", "source": {"type": "data", "value": "x", "mimeType": "image/png"}}]
    if roll < 0.85:
        return [value(r, depth + 1) for _ in range(r.randrange(3))]
    return {r.choice(keys): value(r, depth + 1) for _ in range(r.randrange(4))}


def containers(v, out):
    if isinstance(v, (dict, list)):
        out.append(v)
        for x in v.values() if isinstance(v, dict) else v:
            containers(x, out)
    return out


def mutate(r, event):
    if not isinstance(event, dict):
        return
    roll = r.random()
    if roll < 0.1:
        event["type"] = r.choice(strings)
        return
    target = r.choice(containers(event, []))
    if isinstance(target, dict):
        if target and r.random() < 0.3:
            del target[r.choice(sorted(target))]
        else:
            target[r.choice(keys) if r.random() < 0.7 else r.choice(sorted(target) or keys)] = value(r)
    elif target and r.random() < 0.5:
        target[r.randrange(len(target))] = value(r)
    else:
        target.append(value(r))


LEGACY_NULLS = ["rawEvent", "result", "parentMessageId", "outcome", "metadata", "forwardedProps",
                "parameters", "payload", "state"]


def soft(r, event):
    """An edit the reference mostly survives: an unknown key, a sibling with
    an unknown tag, a legacy null, a legacy binary part."""
    if not isinstance(event, dict):
        return
    target = r.choice(containers(event, []))
    roll = r.random()
    if isinstance(target, dict):
        if roll < 0.4:
            target["x" + r.choice(keys)] = value(r)
        elif roll < 0.7:
            target[r.choice(LEGACY_NULLS)] = None
        elif "type" in target or "role" in target or "op" in target:
            tag = next(k for k in ["type", "role", "op"] if k in target)
            target[tag] = r.choice(["future", "binary", target[tag]])
        else:
            target["content"] = value(r)
    elif roll < 0.5 and target:
        twin = copy.deepcopy(r.choice(target))
        if isinstance(twin, dict):
            for tag in ["type", "role", "op"]:
                if tag in twin:
                    twin[tag] = r.choice(["future", "binary", "ghost"])
        target.insert(r.randrange(len(target) + 1), twin)
    else:
        target.append(value(r))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--soft", action="store_true", help="edits the reference mostly survives")
    a = p.parse_args()
    r = random.Random(a.seed)
    for n in range(a.count):
        events = copy.deepcopy(r.choice(streams)[:8])
        for _ in range(r.randrange(1, 4)):
            (soft if a.soft else mutate)(r, r.choice(events))
        print(json.dumps({"name": f"mut-{a.seed}-{n}", "events": events}))


main()
