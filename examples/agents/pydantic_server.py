"""A real AG-UI server for the tests: pydantic-ai's AG-UI adapter over a scripted model.

Every byte on the wire comes from pydantic-ai and the `ag-ui-protocol`
encoder; only the model is scripted (a `FunctionModel`), so no network and
no LLM are needed. The scenario, one step per run:

1. the user asks: the model streams a thinking part, then calls the
   frontend tool `set_led` with its JSON arguments streamed in pieces
   (`{"color": ..., "on": true}`); the tool is the client's, so the run ends
   waiting for the client's result;
2. the next run carries the tool result in its messages: the model answers
   with a text that quotes that result.

`/approval` serves a second agent, for a person in the loop: its tool
`unlock_door` is the agent's own and needs approval (`requires_approval=True`).
The model calls it; pydantic-ai ends the run with an interrupt outcome
(`RUN_FINISHED.outcome = {type: "interrupt", interrupts: [...]}`, the tool
call's approval with a `responseSchema`). The next run's `resume` approves or
denies it: approved, the tool runs and the model quotes its result; denied,
the model quotes the denial.

Usage: python pydantic_server.py --port N [--certfile CERT.pem --keyfile KEY.pem]
(port 0 picks a free one; with a certificate it serves https). Prints
`listening on http://127.0.0.1:N/` (or https) once the socket accepts
connections.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from serve import serve

COLORS = ("red", "green", "blue", "yellow", "white", "purple", "orange")


def last_tool_return(messages: list[ModelMessage]) -> ToolReturnPart | None:
    """The tool result of the latest request, if the latest request carries one."""
    if not messages or not isinstance(messages[-1], ModelRequest):
        return None
    for part in messages[-1].parts:
        if isinstance(part, ToolReturnPart):
            return part
    return None


def asked_color(messages: list[ModelMessage]) -> str:
    """The first known colour named in the user's latest prompt (green if none)."""
    for message in reversed(messages):
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                words = part.content.lower()
                for color in COLORS:
                    if color in words:
                        return color
                return "green"
    return "green"


def next_call_id(messages: list[ModelMessage]) -> str:
    """A tool-call id not used yet in this thread: `call_set_led_<n>`.

    The client answers a call by its id, so every call needs its own: a
    reused id would look answered already (its first result is in the
    history) and the client would never run the tool again.
    """
    calls = sum(
        isinstance(part, ToolCallPart)
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
    )
    return f"call_set_led_{calls + 1}"


async def script(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | dict]:
    """The scripted model: call set_led first, answer once its result is back."""
    result = last_tool_return(messages)
    if result is not None:
        answer = f'The LED is set: the device answered "{result.model_response_str()}".'
        for i in range(0, len(answer), 12):
            await asyncio.sleep(0)
            yield answer[i : i + 12]
        return
    color = asked_color(messages)
    for piece in ("The user wants the LED lit. ", f"I will call set_led with {color}."):
        yield {0: DeltaThinkingPart(content=piece)}
    args = f'{{"color": "{color}", "on": true}}'
    yield {1: DeltaToolCall(name="set_led", json_args=args[:10], tool_call_id=next_call_id(messages))}
    for i in range(10, len(args), 8):
        await asyncio.sleep(0)
        yield {1: DeltaToolCall(json_args=args[i : i + 8])}


agent = Agent(FunctionModel(stream_function=script, model_name="scripted"))


async def approval_script(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | dict]:
    """The scripted model of `/approval`: ask to unlock the door, then report what happened."""
    result = last_tool_return(messages)
    if result is not None:
        answer = f'unlock_door says: "{result.model_response_str()}".'
        for i in range(0, len(answer), 12):
            await asyncio.sleep(0)
            yield answer[i : i + 12]
        return
    yield {0: DeltaToolCall(name="unlock_door", json_args='{"door": "front"}', tool_call_id="call_unlock_door_1")}


approval_agent = Agent(
    FunctionModel(stream_function=approval_script, model_name="scripted"),
    output_type=[str, DeferredToolRequests],
)


@approval_agent.tool_plain(requires_approval=True)
def unlock_door(door: str) -> str:
    """Unlocks a door of the house (a person must approve it first)."""
    return f"the {door} door is unlocked"


async def run(request: Request) -> Response:
    """One AG-UI run: the adapter decodes the RunAgentInput and streams the events."""
    return await AGUIAdapter.dispatch_request(request, agent=agent)


async def run_approval(request: Request) -> Response:
    """One run of the approval agent."""
    return await AGUIAdapter.dispatch_request(request, agent=approval_agent)


app = Starlette(routes=[Route("/", run, methods=["POST"]), Route("/approval", run_approval, methods=["POST"])])


def main() -> None:
    serve(app, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
