"""Chat models: the ``ChatModel`` protocol, its request / response types, the backends, and their
registry.

============================  ==================================================================
:class:`OpenAIChat`           any OpenAI-compatible ``/v1/chat/completions`` server (httpx)
:class:`LlamaCppChat`         a local GGUF model in-process, by default the bundled SmolLM2
                              (extra ``[llm]``)
:class:`ExtractiveReplier`    no LLM: replies with the context blocks' best sentences, cited
:class:`ExtractiveAnswerer`   the same as a typed call: question + passages -> sentences, spans
============================  ==================================================================

:func:`make_chat` (:mod:`veracity.llm.registry`, the chat registry) makes a backend by the name
``--llm`` gives: ``extractive``, ``llamacpp[:PATH]`` or ``openai[:URL]``. ``ExtractiveChat``, the
old name of :class:`ExtractiveReplier` (it is no language model), still imports, with a
``DeprecationWarning``, until the next release.

Every backend is a :class:`StreamingChatModel`; tests use
:class:`veracity.testing.ScriptedChatModel`. Backend failures raise the
:class:`~veracity.errors.GenerationError` subclasses of :mod:`veracity.llm.errors`.
"""

from typing import TYPE_CHECKING

from veracity._moved import warn_moved
from veracity.llm.base import (
    ROLES,
    ChatModel,
    ChatRequest,
    ChatResponse,
    Message,
    Role,
    StreamingChatModel,
)
from veracity.llm.errors import MalformedReplyError, ServerStatusError, ServerUnreachableError
from veracity.llm.extractive import (
    ExtractedSentence,
    ExtractiveAnswer,
    ExtractiveAnswerer,
    ExtractiveReplier,
)
from veracity.llm.llamacpp import LlamaCppChat, bundled_gguf
from veracity.llm.openai import NOT_GIVEN, OpenAIChat
from veracity.llm.registry import CHAT_BACKENDS, make_chat

__all__ = [
    "CHAT_BACKENDS",
    "NOT_GIVEN",
    "ROLES",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "ExtractedSentence",
    "ExtractiveAnswer",
    "ExtractiveAnswerer",
    "ExtractiveReplier",
    "LlamaCppChat",
    "MalformedReplyError",
    "Message",
    "OpenAIChat",
    "Role",
    "ServerStatusError",
    "ServerUnreachableError",
    "StreamingChatModel",
    "bundled_gguf",
    "make_chat",
]

if TYPE_CHECKING:  # the old name, for type checkers; at run time __getattr__ gives it
    ExtractiveChat = ExtractiveReplier


def __getattr__(name: str) -> object:
    if name == "ExtractiveChat":  # renamed: it is no chat (language) model; kept one release
        warn_moved(f"{__name__}.ExtractiveChat", f"{__name__}.ExtractiveReplier")
        return ExtractiveReplier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
