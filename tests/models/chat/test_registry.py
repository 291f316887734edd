"""Chat backends by name, as `veracity ask --llm` chooses them (nothing is loaded or called)."""

from __future__ import annotations

import pytest

from veracity.errors import OptionError
from veracity.models.chat.registry import CHAT_BACKENDS, make_chat

pytestmark = pytest.mark.unit


def test_unknown_backends_list_the_choices():
    with pytest.raises(OptionError, match="one of llamacpp, openai") as caught:
        make_chat("gpt")
    assert "--llm openai:http://" in str(caught.value)
    assert set(CHAT_BACKENDS) == {"llamacpp", "openai"}


def test_extractive_is_no_chat_model():
    # --llm extractive is resolved by veracity.generate.writers.make_writer, not here
    with pytest.raises(OptionError, match="one of llamacpp, openai"):
        make_chat("extractive")


def test_llamacpp_takes_a_gguf_path_not_a_model_name(tmp_path):
    (tmp_path / "tiny.gguf").write_bytes(b"GGUF")
    chat = make_chat(f"llamacpp:{tmp_path / 'tiny.gguf'}")
    assert chat.model_id == "tiny"
    with pytest.raises(OptionError, match="llamacpp:PATH"):
        make_chat("llamacpp", model="smol")


def test_a_llamacpp_path_that_is_no_file_is_refused_at_once(tmp_path):
    # Harden-2 #14: it passed silently whenever ask abstained (no model was loaded)
    with pytest.raises(
        OptionError,
        match=r"llamacpp:PATH with the path of a \.gguf file, and "
        r"/nope\.gguf is not a file",
    ):
        make_chat("llamacpp:/nope.gguf")
    with pytest.raises(OptionError, match="is not a file"):
        make_chat(f"llamacpp:{tmp_path}")


def test_openai_takes_the_url_after_the_colon(monkeypatch):
    monkeypatch.delenv("VERACITY_LLM_MODEL", raising=False)
    chat = make_chat("openai:http://127.0.0.1:11434/v1", model="qwen2.5:3b")
    assert chat.model_id == "qwen2.5:3b"
    assert chat.url == "http://127.0.0.1:11434/v1/chat/completions"  # type: ignore[attr-defined]
    with pytest.raises(OptionError, match=r"^model is needed: the name of a model"):
        make_chat("openai:http://127.0.0.1:11434/v1")
