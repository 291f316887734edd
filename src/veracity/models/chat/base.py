"""The ``ChatModel`` protocol and the frozen messages, requests and responses it works with.

A backend (an OpenAI-compatible endpoint, a local GGUF model, a scripted fake) takes one
:class:`ChatRequest` and returns one :class:`ChatResponse`. The response carries the sampling
settings it was produced with, so every result built from it can record its provenance.

>>> from veracity.testing import ScriptedChatModel
>>> chat = ScriptedChatModel(["SUPPORTED"])
>>> request = ChatRequest((Message("user", "Is the sky blue?"),), temperature=0.0, seed=0)
>>> chat.run(request).text
'SUPPORTED'
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, cast, runtime_checkable

from veracity.errors import OptionError

__all__ = [
    "ROLES",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "Decoding",
    "Message",
    "Role",
    "Streamed",
    "StreamingChatModel",
]

Role = Literal["system", "user", "assistant"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant")


@dataclass(frozen=True, slots=True)
class Message:
    """One chat turn: ``role`` is one of :data:`ROLES`."""

    role: Role
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise OptionError("role", self.role, f"one of {', '.join(ROLES)}")


@dataclass(frozen=True, slots=True)
class Decoding:
    """How a stage asks its chat model to write: ``temperature`` (0 to 2), ``seed`` (an integer,
    0 or more; ``None``: the stage's own) and ``max_tokens`` per reply (``None``: the stage's
    own). A stage that samples several replies draws reply ``i`` with ``seed + i``."""

    temperature: float = 0.0
    seed: int | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        t = self.temperature
        if isinstance(t, bool) or not isinstance(t, int | float) or not 0.0 <= t <= 2.0:
            raise OptionError("temperature", t, "a number from 0 to 2")
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0
        ):
            raise OptionError("seed", self.seed, "an integer, 0 or more, or None")
        if self.max_tokens is not None and (
            isinstance(self.max_tokens, bool)
            or not isinstance(self.max_tokens, int)
            or self.max_tokens < 1
        ):
            raise OptionError("max_tokens", self.max_tokens, "an integer of 1 or more, or None")


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What to ask a chat model and how to sample the reply.

    ``max_tokens=None`` lets the backend decide the reply length; ``seed=None`` asks for no
    particular seed (the reply may then not be reproducible); ``stop`` lists strings that end the
    reply. ``messages`` may be given as any sequence; it is stored as a tuple.
    """

    messages: tuple[Message, ...]
    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Accept lists for convenience but store tuples, so the request stays hashable and frozen.
        object.__setattr__(self, "messages", tuple(self.messages))
        object.__setattr__(self, "stop", _strings("stop", self.stop))
        if not self.messages:
            raise OptionError(
                "messages",
                self.messages,
                "at least one Message",
                'Pass e.g. (Message("user", "..."),).',
            )
        for message in self.messages:
            if not isinstance(message, Message):
                raise OptionError(
                    "messages",
                    message,
                    "Message items",
                    "Wrap each turn as Message(role, content).",
                )
        if not 0.0 <= self.temperature <= 2.0:
            raise OptionError("temperature", self.temperature, "between 0 and 2")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise OptionError("max_tokens", self.max_tokens, "1 or more, or None for no limit")

    @classmethod
    def of(
        cls,
        user: str,
        *,
        system: str = "",
        temperature: float = 0.0,
        max_tokens: int | None = None,
        seed: int | None = None,
        stop: Sequence[str] = (),
    ) -> ChatRequest:
        """A request of one user message, after a system message when ``system`` is given."""
        messages = (Message("system", system),) if system else ()
        return cls(
            (*messages, Message("user", user)),
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            stop=tuple(stop),
        )


@dataclass(frozen=True, slots=True)
class ChatResponse:
    """A chat model's reply with what produced it.

    ``model`` is the model that answered (as the backend names it), ``finish_reason`` is why the
    reply ended (``"stop"``, ``"length"``, ...), ``prompt_tokens`` and ``completion_tokens`` the
    usage when the backend reports it, and ``temperature`` and ``seed`` the sampling settings the
    reply was produced with.
    """

    text: str
    model: str
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    temperature: float | None = None
    seed: int | None = None


@runtime_checkable
class ChatModel(Protocol):
    """Answers one :class:`ChatRequest` with one :class:`ChatResponse`.

    ``run`` raises :class:`~veracity.errors.GenerationError` when the model fails (a server error,
    an empty reply it cannot recover from); it never returns a made-up reply.
    """

    model_id: str

    def run(self, request: ChatRequest) -> ChatResponse: ...


@runtime_checkable
class StreamingChatModel(ChatModel, Protocol):
    """A :class:`ChatModel` that can also hand out its reply piece by piece.

    ``stream`` yields the reply's text deltas in order; joined, they are the text ``run`` would
    return for the same request (same model, seed and temperature 0). It raises
    :class:`~veracity.errors.GenerationError` like ``run``, possibly after some deltas. A stream
    that is a generator returns the reply's finish reason (``"stop"``, ``"length"``: cut at
    ``max_tokens``) as ``run`` reports it; :class:`Streamed` reads it.

    >>> from veracity.testing import ScriptedChatModel
    >>> "".join(ScriptedChatModel(["Bees dance."]).stream(ChatRequest.of("Do bees dance?")))
    'Bees dance.'
    """

    def stream(self, request: ChatRequest) -> Iterator[str]: ...


class Streamed:
    """The deltas of a :meth:`StreamingChatModel.stream`, and, once they have all been read,
    the ``finish_reason`` it returned (``"stop"``, the default of :class:`ChatResponse`, when it
    returned none: a stream that is no generator cannot return one).

    >>> from veracity.testing import ScriptedChatModel
    >>> streamed = Streamed(ScriptedChatModel(["Bees dance."]).stream(ChatRequest.of("?")))
    >>> "".join(streamed), streamed.finish_reason
    ('Bees dance.', 'stop')
    """

    def __init__(self, deltas: Iterator[str]) -> None:
        self._deltas = deltas
        self.finish_reason = "stop"

    def __iter__(self) -> Generator[str, None, None]:
        # a generator's return value; a plain iterator's is None
        reason = yield from cast("Generator[str, None, object]", self._deltas)
        if isinstance(reason, str) and reason:
            self.finish_reason = reason

    def close(self) -> None:
        """Stop the model (a reader that went away)."""
        close = getattr(self._deltas, "close", None)
        if close is not None:
            close()


def _strings(name: str, value: Sequence[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        raise OptionError(
            name, value, "a sequence of strings, not one string", f"Wrap it: {name}=({value!r},)."
        )
    return tuple(value)
