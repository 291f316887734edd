"""What writes an answer from retrieved hits: a chat model through the grounded prompt, or, for
``--llm extractive``, no model at all.

:func:`make_writer` resolves an ``--llm`` spec: ``extractive`` is an
:class:`~veracity.generate.extractive.ExtractiveAnswerer` (it uses the verifier to choose its
sentences), every other spec a chat model made by ``chat`` (by default the chat registry,
:func:`veracity.models.chat.make_chat`; the command and the service pass their
:class:`~veracity.models.Models`' factory, so tests pass fakes). :func:`make_generator` makes
the stage that runs a writer and checks its citations: a
:class:`~veracity.generate.grounded.GroundedGenerator` for a chat model, an
:class:`~veracity.generate.extractive.ExtractiveGenerator` for the extractive answerer.

>>> from veracity.testing import TablePairScorer
>>> writer = make_writer("extractive", scorer=TablePairScorer({}))
>>> writer.model_id, type(make_generator(writer, TablePairScorer({}))).__name__
('extractive+table', 'ExtractiveGenerator')
"""

from __future__ import annotations

from collections.abc import Callable

from veracity import defaults
from veracity.errors import OptionError
from veracity.generate.check import CitationChecker
from veracity.generate.extractive import ExtractiveAnswerer, ExtractiveGenerator
from veracity.generate.grounded import GroundedGenerator
from veracity.models.chat.base import ChatModel
from veracity.models.chat.registry import CHAT_BACKENDS, make_chat
from veracity.models.pairs.base import PairScorer
from veracity.rules import KnowledgeLayer

__all__ = ["WRITERS", "AnswerGenerator", "Writer", "make_generator", "make_writer"]

#: What writes an answer: a chat model, or the extractive answerer (no model).
Writer = ChatModel | ExtractiveAnswerer
#: The stage that writes an answer from hits and checks its citations.
AnswerGenerator = GroundedGenerator | ExtractiveGenerator
#: The names ``--llm`` takes: ``extractive`` and the chat registry's backends.
WRITERS = ("extractive", *CHAT_BACKENDS)


def _chat(spec: str, model: str | None) -> ChatModel:
    return make_chat(spec, model=model)


def make_writer(
    spec: str,
    *,
    model: str | None = None,
    scorer: PairScorer | None = None,
    chat: Callable[[str, str | None], ChatModel] = _chat,
) -> Writer:
    """The writer ``spec`` names (see the module docstring); ``scorer`` helps the extractive
    answerer choose, ``model`` names a served chat model (``openai``)."""
    name, _, argument = spec.partition(":")
    if name == "extractive":
        if argument or model:
            raise OptionError(
                "llm",
                spec,
                "plain 'extractive' (it takes no path, URL or model)",
            )
        return ExtractiveAnswerer(scorer=scorer)
    if name not in CHAT_BACKENDS:
        raise OptionError(
            "llm",
            spec,
            f"one of {', '.join(WRITERS)} (llamacpp:PATH and openai:URL take an argument)",
            "For example --llm openai:http://127.0.0.1:11434/v1 --model qwen2.5:3b.",
        )
    return chat(spec, model)


def make_generator(
    writer: Writer,
    scorer: PairScorer,
    *,
    tau: float = defaults.CITATION_TAU,
    rules: KnowledgeLayer | None = None,
) -> AnswerGenerator:
    """The generator that runs ``writer`` and checks its ``[n]`` by ``scorer`` and, when
    given, the knowledge ``rules``, against P(supported) ``tau``."""
    checker = CitationChecker(scorer, tau=tau, rules=rules)
    if isinstance(writer, ExtractiveAnswerer):
        return ExtractiveGenerator(writer, checker)
    return GroundedGenerator(writer, checker)
