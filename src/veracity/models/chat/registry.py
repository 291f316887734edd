"""The chat registry: chat models by name, for the CLI and configuration files.

Specs (:data:`CHAT_BACKENDS`): ``llamacpp`` (the bundled SmolLM2 GGUF, in-process; ``llamacpp:PATH``
for another GGUF; needs the ``[llm]`` extra), ``openai:URL`` (any OpenAI-compatible server, e.g.
``openai:http://127.0.0.1:11434/v1``; ``openai`` alone reads ``$VERACITY_LLM_BASE_URL``). ``model``
names the served model for ``openai`` (or ``$VERACITY_LLM_MODEL``). Backends are imported only when
asked for. ``--llm extractive`` names no chat model: it is resolved with these by
:func:`veracity.generate.writers.make_writer`.

>>> make_chat("openai:http://127.0.0.1:11434/v1", model="qwen2.5:3b").model_id  # doctest: +SKIP
'qwen2.5:3b'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from veracity.errors import ModelError, OptionError
from veracity.models.chat.base import ChatModel

__all__ = ["CHAT_BACKENDS", "make_chat"]


def _backend(module: str, name: str) -> Callable[..., ChatModel]:
    try:
        found = importlib.import_module(module)
    except ImportError as exc:
        raise ModelError(
            f"the chat backend {module}.{name} cannot be imported ({exc}); "
            "update veracity, or choose another --llm"
        ) from exc
    factory = getattr(found, name, None)
    if factory is None:
        raise ModelError(f"{module} has no {name}; update veracity, or choose another --llm")
    result: Callable[..., ChatModel] = factory
    return result


def _llamacpp(argument: str, model: str | None) -> ChatModel:
    if model:
        raise OptionError(
            "model",
            model,
            "nothing for llamacpp",
            "Name the GGUF file instead: --llm llamacpp:PATH.",
        )
    # checked now, not at the first generation: an answer that abstains never loads the model
    path = Path(argument).expanduser() if argument else None
    if path is not None and not path.is_file():
        raise OptionError(
            "llm",
            f"llamacpp:{argument}",
            f"llamacpp:PATH with the path of a .gguf file, and {argument} is not a file",
            "Check the path, or give plain llamacpp for the bundled SmolLM2.",
        )
    return _backend("veracity.models.chat.llamacpp", "LlamaCppChat")(path)


def _openai(argument: str, model: str | None) -> ChatModel:
    return _backend("veracity.models.chat.openai", "OpenAIChat")(
        model=model, base_url=argument or None
    )


#: Backends by name; each takes (argument after the colon, model name).
CHAT_BACKENDS: dict[str, Callable[[str, str | None], ChatModel]] = {
    "llamacpp": _llamacpp,
    "openai": _openai,
}


def make_chat(spec: str, *, model: str | None = None) -> ChatModel:
    """The chat model ``spec`` names (see the module docstring)."""
    name, _, argument = spec.partition(":")
    if name not in CHAT_BACKENDS:
        raise OptionError(
            "llm",
            spec,
            f"one of {', '.join(CHAT_BACKENDS)} (llamacpp:PATH and openai:URL take an argument)",
            "For example --llm openai:http://127.0.0.1:11434/v1 --model qwen2.5:3b.",
        )
    return CHAT_BACKENDS[name](argument, model)
