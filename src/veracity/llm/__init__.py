"""Chat models: the ``ChatModel`` protocol and its request / response types.

Backends implement :class:`ChatModel`; tests use :class:`veracity.testing.ScriptedChatModel`.
"""

from veracity.llm.base import ROLES, ChatModel, ChatRequest, ChatResponse, Message, Role

__all__ = ["ROLES", "ChatModel", "ChatRequest", "ChatResponse", "Message", "Role"]
