"""Chat model calls cached by content, so that a benchmark re-run is free and an interrupted
run resumes where it stopped.

:class:`CachedChat` wraps any ``ChatModel``. A request's key is the SHA-256 of the model id and
everything that decides the reply (messages, temperature, max_tokens, seed, stop); each reply
is appended to a JSONL file as soon as it arrives, with the seconds it took, so a cached reply
still reports what it cost when it was made. A model failure (``GenerationError``) is cached too,
and raised again on a hit.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from veracity.errors import GenerationError
from veracity.models.chat.base import ChatModel, ChatRequest, ChatResponse

__all__ = ["CachedChat"]


class CachedChat:
    """``chat`` with its replies cached in ``path`` (JSONL, one call per line)."""

    def __init__(self, chat: ChatModel, path: Path) -> None:
        self.chat = chat
        self.model_id = chat.model_id
        self.path = path
        self.records: dict[str, dict[str, Any]] = {}
        self.live = self.hits = 0
        self.seconds = 0.0  # the recorded cost of every call served, cached or not
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:  # a line cut short by an interrupted run
                    continue
                self.records[record["key"]] = record

    def key(self, request: ChatRequest) -> str:
        content = {
            "model": self.model_id,
            "messages": [[m.role, m.content] for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": request.seed,
            "stop": list(request.stop),
        }
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()

    def run(self, request: ChatRequest) -> ChatResponse:
        key = self.key(request)
        record = self.records.get(key)
        if record is None:
            started = time.perf_counter()
            try:
                response = self.chat.run(request)
                record = {
                    "key": key,
                    "response": {
                        "text": response.text,
                        "model": response.model,
                        "finish_reason": response.finish_reason,
                        "prompt_tokens": response.prompt_tokens,
                        "completion_tokens": response.completion_tokens,
                        "temperature": response.temperature,
                        "seed": response.seed,
                    },
                }
            except GenerationError as exc:
                record = {"key": key, "error": str(exc)}
            record["seconds"] = time.perf_counter() - started
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            self.records[key] = record
            self.live += 1
        else:
            self.hits += 1
        self.seconds += float(record["seconds"])
        if "error" in record:
            raise GenerationError(str(record["error"]))
        return ChatResponse(**record["response"])
