"""Published judges' prompts and labels (Bespoke-MiniCheck's Yes/No, Granite Guardian's
groundedness Yes/No) through an OpenAI-compatible server: a fake one on 127.0.0.1 that answers
as each model would."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from veracity.errors import GenerationError
from veracity.models.chat import OpenAIChat
from veracity.models.chat.openai import HttpPolicy
from veracity.models.pairs.judge import LLMJudgeVerifier, parse_label
from veracity.prompts import load_prompt

pytestmark = pytest.mark.unit

PROMPT = "judge_bespoke_minicheck_v1"
GUARDIAN = "judge_granite_guardian_groundedness_v1"
DOCUMENT = "The museum opens at nine and is closed on Mondays."


def _read(user: str) -> tuple[str, str, bool]:
    """(document, claim, guardian) of a user message in Bespoke's or Granite Guardian's form."""
    if "\nAssistant Message: " in user:  # Guardian: the risk is that the claim is ungrounded
        context = user.split("\nContext: ", 1)[1]
        document, _, rest = context.partition("\nAssistant Message: ")
        return document, rest.split("\n<end_of_turn>", 1)[0], True
    document, _, claim = user.partition("\nClaim: ")
    return document.removeprefix("Document: "), claim, False


class Judge(BaseHTTPRequestHandler):
    """Answers as Bespoke-MiniCheck (Yes: supported) or as Granite Guardian (Yes: not grounded)
    by the prompt's form, a claim being supported when its words are all in the document;
    ``odd`` in the claim gets a reply no parser should read."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Judge.seen.append(body)
        document, claim, guardian = _read(body["messages"][-1]["content"])
        words = {w.strip(".,").lower() for w in claim.split()}
        text = {w.strip(".,").lower() for w in document.split()}
        supported = words <= text
        reply = (
            "I think so, yes"
            if "odd" in words
            else ("No" if supported else "Yes")
            if guardian
            else ("Yes" if supported else "No")
        )
        payload = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": reply},
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Judge)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def judge(base_url: str, prompt: str = PROMPT, **options: Any) -> LLMJudgeVerifier:
    model = "granite-guardian-3.1-2b" if prompt == GUARDIAN else "bespoke-minicheck-7b"
    chat = OpenAIChat(
        model=model, base_url=base_url, api_key=None, policy=HttpPolicy(max_retries=0)
    )
    return LLMJudgeVerifier(chat, prompt=prompt, **options)


def test_the_published_prompt_is_sent_and_yes_no_read_as_its_targets(base_url: str) -> None:
    claims = ["The museum is closed on Mondays.", "The museum opens at ten."]
    scores = judge(base_url).run([DOCUMENT] * 2, claims).scores
    assert [(s.supported, s.contradicted, s.neither) for s in scores] == [
        (1.0, 0.0, 0.0),
        (0.0, 0.0, 1.0),
    ]
    request = Judge.seen[-1]
    prompt = load_prompt(PROMPT)
    assert request["messages"][0] == {"role": "system", "content": prompt.system}
    assert request["messages"][1]["content"] == f"Document: {DOCUMENT}\nClaim: {claims[1]}"
    assert request["temperature"] == 0


def test_an_unreadable_reply_is_a_failure_never_a_score(base_url: str) -> None:
    with pytest.raises(GenerationError, match="expected exactly one of Yes, No"):
        judge(base_url).run([DOCUMENT], ["An odd claim."])
    score = judge(base_url, on_error="record").run([DOCUMENT], ["An odd claim."]).scores[0]
    assert score.label == "error"
    assert "'I think so, yes'" in (score.error or "")


def test_granite_guardian_s_yes_is_ungrounded_and_no_is_supported(base_url: str) -> None:
    claims = ["The museum is closed on Mondays.", "The museum opens at ten."]
    verifier = judge(base_url, GUARDIAN)
    result = verifier.run([DOCUMENT] * 2, claims)
    assert [(s.supported, s.contradicted, s.neither) for s in result.scores] == [
        (1.0, 0.0, 0.0),
        (0.0, 0.0, 1.0),
    ]
    assert [s.label for s in result.scores] == ["supported", "neither"]
    assert result.model_version == f"prompt {GUARDIAN}@1; temperature 0; seed 0"
    request = Judge.seen[-1]
    # The whole check is one user turn, as the model's own template writes it: no system turn.
    assert [message["role"] for message in request["messages"]] == ["user"]
    user = request["messages"][0]["content"]
    assert user == load_prompt(GUARDIAN).render(premise=DOCUMENT, claim=claims[1])
    assert f"<start_of_turn>\nContext: {DOCUMENT}\nAssistant Message: {claims[1]}\n" in user
    assert user.endswith("Your answer must be either 'Yes' or 'No'.")


def test_granite_guardian_s_unreadable_reply_is_a_failure_never_a_score(base_url: str) -> None:
    with pytest.raises(GenerationError, match="expected exactly one of Yes, No"):
        judge(base_url, GUARDIAN).run([DOCUMENT], ["An odd claim."])
    score = (
        judge(base_url, GUARDIAN, on_error="record").run([DOCUMENT], ["An odd claim."]).scores[0]
    )
    assert score.label == "error"
    assert math.isnan(score.supported)  # no probability, never a score
    assert "'I think so, yes'" in (score.error or "")


@pytest.mark.parametrize(("reply", "label"), [("Yes", "Yes"), (" no.\n", "No"), ("YES!", "Yes")])
def test_a_label_alone_is_read(reply: str, label: str) -> None:
    assert parse_label(reply, ("Yes", "No")) == label


@pytest.mark.parametrize("reply", ["", "Yes No", "Yes, because", "Maybe"])
def test_anything_else_is_refused(reply: str) -> None:
    with pytest.raises(GenerationError):
        parse_label(reply, ("Yes", "No"))
