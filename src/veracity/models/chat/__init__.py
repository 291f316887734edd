"""Chat models: the ``ChatModel`` protocol, its request / response types, the backends, and their
registry.

============================  ==================================================================
:class:`OpenAIChat`           any OpenAI-compatible ``/v1/chat/completions`` server (httpx)
:class:`LlamaCppChat`         a local GGUF model in-process, by default the bundled SmolLM2
                              (extra ``[llm]``)
============================  ==================================================================

:func:`make_chat` (:mod:`veracity.models.chat.registry`, the chat registry) makes a backend by
the name ``--llm`` gives: ``llamacpp[:PATH]`` or ``openai[:URL]``. (``--llm extractive`` names
no chat model: :mod:`veracity.generate.extractive` answers from the passages' own sentences.)
:mod:`veracity.models.chat.stops` holds the stop rules that end a small model's reply.

Every backend is a :class:`StreamingChatModel`; tests use
:class:`veracity.testing.ScriptedChatModel`. Backend failures raise the
:class:`~veracity.errors.GenerationError` subclasses of :mod:`veracity.models.chat.errors`.
"""

from veracity.models.chat.base import (
    ROLES,
    ChatModel,
    ChatRequest,
    ChatResponse,
    Decoding,
    Message,
    Role,
    StreamingChatModel,
)
from veracity.models.chat.errors import (
    MalformedReplyError,
    ServerStatusError,
    ServerUnreachableError,
)
from veracity.models.chat.llamacpp import LlamaCppChat, bundled_gguf
from veracity.models.chat.openai import NOT_GIVEN, HttpPolicy, OpenAIChat
from veracity.models.chat.registry import CHAT_BACKENDS, make_chat

__all__ = [
    "CHAT_BACKENDS",
    "NOT_GIVEN",
    "ROLES",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "Decoding",
    "HttpPolicy",
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
