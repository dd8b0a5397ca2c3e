"""A second real AG-UI server for the tests: LangGraph through `ag-ui-langgraph`.

The graph is one chat node whose model is a scripted LangChain chat model
(no network, no LLM); `ag-ui-langgraph` turns the graph's streamed events
into AG-UI and the official `ag-ui-protocol` encoder writes them. Same
scenario as pydantic_server.py: the model streams a reasoning block, calls
the client's frontend tool `set_led` with streamed JSON arguments, and once
the tool result is in the messages answers with a text quoting it.

`/interrupt` and `/interrupt-legacy` serve a second graph, for a person in
the loop: its node calls LangGraph's `interrupt()` with a question ("Unlock
the front door?") and a `responseSchema` asking for `{approved: boolean}`.
`/interrupt` is built with `emit_interrupt_outcome=True`: the run ends with
`RUN_FINISHED.outcome = {type: "interrupt", ...}` and is resumed by the next
run's `resume[]`. `/interrupt-legacy` keeps ag-ui-langgraph's default: a
`CUSTOM` event named `on_interrupt` carrying the question, then a plain
`RUN_FINISHED`, resumed by `forwardedProps.command.resume`. Once resumed, the
node's scripted model says what the person decided.

Usage: python langgraph_server.py --port N [--certfile CERT.pem --keyfile KEY.pem]
(port 0 picks a free one; with a certificate it serves https). Prints
`listening on http://127.0.0.1:N/` (or https) once the socket accepts
connections.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui_langgraph import LangGraphAgent
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from serve import serve

COLORS = ("red", "green", "blue", "yellow", "white", "purple", "orange")


def asked_color(messages: list[BaseMessage]) -> str:
    """The first known colour named in the user's latest message (green if none)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            words = str(message.content).lower()
            return next((c for c in COLORS if c in words), "green")
    return "green"


def next_call_id(messages: list[BaseMessage]) -> str:
    """A tool-call id not used yet in this thread: `call_set_led_<n>`.

    The client answers a call by its id, so every call needs its own: a
    reused id would look answered already (its first result is in the
    history) and the client would never run the tool again.
    """
    calls = sum(len(m.tool_calls) for m in messages if isinstance(m, AIMessage))
    return f"call_set_led_{calls + 1}"


class ScriptedChatModel(BaseChatModel):
    """Calls set_led first; answers quoting the tool result once it is back."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[AIMessageChunk]:
        last = messages[-1] if messages else None
        if isinstance(last, ToolMessage):
            answer = f'The LED is set: the device answered "{last.content}".'
            for i in range(0, len(answer), 12):
                yield AIMessageChunk(content=answer[i : i + 12])
            return
        color = asked_color(messages)
        for piece in ("The user wants the LED lit. ", f"I will call set_led with {color}."):
            yield AIMessageChunk(content=[{"type": "reasoning", "reasoning": piece, "index": 0}])
        args = f'{{"color": "{color}", "on": true}}'
        # ag-ui-langgraph opens the call on its first chunk and relays only
        # the arguments of later chunks, so the first chunk carries none.
        first = {"name": "set_led", "args": "", "id": next_call_id(messages), "index": 0}
        yield AIMessageChunk(content="", tool_call_chunks=[first])
        for i in range(0, len(args), 8):
            yield AIMessageChunk(content="", tool_call_chunks=[{"args": args[i : i + 8], "index": 0}])

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages):
            generation = ChatGenerationChunk(message=chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token("", chunk=generation)
            yield generation

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        merged: AIMessageChunk | None = None
        for generation in self._stream(messages, stop, run_manager, **kwargs):
            merged = generation.message if merged is None else merged + generation.message
        message = AIMessage(**(merged or AIMessageChunk(content="")).model_dump(exclude={"type", "tool_call_chunks"}))
        return ChatResult(generations=[ChatGeneration(message=message)])


model = ScriptedChatModel()


def chat(state: MessagesState) -> dict:
    """The only node: the model's reply (a set_led call or the answer)."""
    return {"messages": [model.invoke(state["messages"])]}


builder = StateGraph(MessagesState)
builder.add_node("chat", chat)
builder.add_edge(START, "chat")
builder.add_edge("chat", END)
graph = builder.compile(checkpointer=InMemorySaver())
agent = LangGraphAgent(name="led", graph=graph, emit_raw_events=False)


class SayModel(BaseChatModel):
    """A scripted chat model that streams the text it is given."""

    text: str

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        for i in range(0, len(self.text), 12):
            generation = ChatGenerationChunk(message=AIMessageChunk(content=self.text[i : i + 12]))
            if run_manager is not None:
                run_manager.on_llm_new_token("", chunk=generation)
            yield generation

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.text))])


QUESTION = {
    "reason": "approval",
    "message": "Unlock the front door?",
    "responseSchema": {
        "type": "object",
        "properties": {"approved": {"type": "boolean"}},
        "required": ["approved"],
    },
}


def verdict(answer: Any) -> str:
    """What the agent says once the person answered `interrupt()`."""
    if isinstance(answer, dict) and answer.get("__agui_cancelled__"):
        return "Nobody answered: the front door stays locked."
    if isinstance(answer, dict) and answer.get("approved") is True:
        return "Approved: the front door is unlocked."
    return "Denied: the front door stays locked."


def door(state: MessagesState) -> dict:
    """Asks a person (the run pauses here), then says what they decided."""
    answer = interrupt(QUESTION)
    return {"messages": [SayModel(text=verdict(answer)).invoke(state["messages"])]}


door_builder = StateGraph(MessagesState)
door_builder.add_node("door", door)
door_builder.add_edge(START, "door")
door_builder.add_edge("door", END)
door_graph = door_builder.compile(checkpointer=InMemorySaver())
door_agents = {
    "/interrupt": LangGraphAgent(name="door", graph=door_graph, emit_raw_events=False, emit_interrupt_outcome=True),
    "/interrupt-legacy": LangGraphAgent(name="door", graph=door_graph, emit_raw_events=False),
}


async def run(request: Request) -> Response:
    """One AG-UI run, encoded by the official encoder for the client's Accept header."""
    run_input = RunAgentInput.model_validate_json(await request.body())
    encoder = EventEncoder(accept=request.headers.get("accept"))
    per_request = door_agents.get(request.url.path, agent).clone()

    async def events():
        async for event in per_request.run(run_input):
            yield encoder.encode(event)

    return StreamingResponse(events(), media_type=encoder.get_content_type())


app = Starlette(routes=[Route(path, run, methods=["POST"]) for path in ("/", *door_agents)])


def main() -> None:
    serve(app, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
