"""Chat models: the ``ChatModel`` protocol, its request / response types, the backends, and their
registry.

============================  ==================================================================
:class:`OpenAIChat`           any OpenAI-compatible ``/v1/chat/completions`` server (httpx)
:class:`LlamaCppChat`         a local GGUF model in-process, by default the bundled SmolLM2
                              (extra ``[llm]``)
:class:`ExtractiveChat`       no LLM: replies with the context blocks' best sentences, cited
:class:`ExtractiveAnswerer`   the same as a typed call: question + passages -> sentences, spans
============================  ==================================================================

:func:`make_chat` (:mod:`veracity.llm.registry`, the chat registry) makes a backend by the name
``--llm`` gives: ``extractive``, ``llamacpp[:PATH]`` or ``openai[:URL]``.

Every backend is a :class:`StreamingChatModel`; tests use
:class:`veracity.testing.ScriptedChatModel`. Backend failures raise the
:class:`~veracity.errors.GenerationError` subclasses of :mod:`veracity.llm.errors`.
"""

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
    ExtractiveChat,
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
    "ExtractiveChat",
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
