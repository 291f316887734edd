"""The chat registry: chat models by name, for the CLI and configuration files.

Specs (:data:`CHAT_BACKENDS`): ``extractive`` (no LLM: picks the blocks' best sentences),
``llamacpp`` (the bundled SmolLM2 GGUF, in-process; ``llamacpp:PATH`` for another GGUF; needs
the ``[llm]`` extra), ``openai:URL`` (any OpenAI-compatible server, e.g.
``openai:http://127.0.0.1:11434/v1``; ``openai`` alone reads ``$VERACITY_LLM_BASE_URL``).
``model`` names the served model for ``openai`` (or ``$VERACITY_LLM_MODEL``). Backends are
imported only when asked for. (Until the next release ``veracity.generate.chat``, the old home
of these names, still gives them, with a ``DeprecationWarning``.)

>>> make_chat("extractive").model_id                                   # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from veracity.errors import ModelError, OptionError
from veracity.llm.base import ChatModel

if TYPE_CHECKING:  # a scorer is only handed on to a backend; llm/ sits below checkers/
    from veracity.checkers.base import PairScorer

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


def _extractive(argument: str, model: str | None, scorer: PairScorer | None) -> ChatModel:
    if argument or model:
        raise OptionError(
            "llm",
            f"extractive:{argument}" if argument else "extractive",
            "plain 'extractive' (it takes no path, URL or model)",
        )
    chat = _backend("veracity.llm.extractive", "ExtractiveReplier")
    answerer = _backend("veracity.llm.extractive", "ExtractiveAnswerer")
    return chat(answerer(scorer=scorer))


def _llamacpp(argument: str, model: str | None, scorer: PairScorer | None) -> ChatModel:
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
    return _backend("veracity.llm.llamacpp", "LlamaCppChat")(path)


def _openai(argument: str, model: str | None, scorer: PairScorer | None) -> ChatModel:
    return _backend("veracity.llm.openai", "OpenAIChat")(model=model, base_url=argument or None)


#: Backends by name; each takes (argument after the colon, model name, verifier).
CHAT_BACKENDS: dict[str, Callable[[str, str | None, PairScorer | None], ChatModel]] = {
    "extractive": _extractive,
    "llamacpp": _llamacpp,
    "openai": _openai,
}


def make_chat(
    spec: str, *, model: str | None = None, scorer: PairScorer | None = None
) -> ChatModel:
    """The chat model ``spec`` names (see the module docstring).

    ``scorer`` is offered to backends that can use a verifier (``extractive``).
    """
    name, _, argument = spec.partition(":")
    if name not in CHAT_BACKENDS:
        raise OptionError(
            "llm",
            spec,
            f"one of {', '.join(CHAT_BACKENDS)} (llamacpp:PATH and openai:URL take an argument)",
            "For example --llm openai:http://127.0.0.1:11434/v1 --model qwen2.5:3b.",
        )
    return CHAT_BACKENDS[name](argument, model, scorer)
