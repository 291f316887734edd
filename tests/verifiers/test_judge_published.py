"""Published judges' prompts and labels (Bespoke-MiniCheck's Yes/No) through an
OpenAI-compatible server: a fake one on 127.0.0.1 that answers as the model would."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from veracity.errors import GenerationError
from veracity.llm import OpenAIChat
from veracity.prompts import load_prompt
from veracity.verifiers.judge import LLMJudgeVerifier, parse_label

pytestmark = pytest.mark.unit

PROMPT = "judge_bespoke_minicheck_v1"
DOCUMENT = "The museum opens at nine and is closed on Mondays."


class Judge(BaseHTTPRequestHandler):
    """Answers Yes when the claim's words are all in the document, No otherwise; ``odd`` in the
    claim gets a reply no parser should read."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Judge.seen.append(body)
        user = body["messages"][-1]["content"]
        document, _, claim = user.partition("\nClaim: ")
        words = {w.strip(".,").lower() for w in claim.split()}
        text = {w.strip(".,").lower() for w in document.removeprefix("Document: ").split()}
        reply = "I think so, yes" if "odd" in words else ("Yes" if words <= text else "No")
        payload = json.dumps({
            "id": "x", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
        }).encode()
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


def judge(base_url: str, **options: Any) -> LLMJudgeVerifier:
    chat = OpenAIChat(model="bespoke-minicheck-7b", base_url=base_url, api_key=None,
                      max_retries=0)
    return LLMJudgeVerifier(chat, prompt=PROMPT, **options)


def test_the_published_prompt_is_sent_and_yes_no_read_as_its_targets(base_url: str) -> None:
    claims = ["The museum is closed on Mondays.", "The museum opens at ten."]
    scores = judge(base_url).run([DOCUMENT] * 2, claims).scores
    assert [(s.supported, s.contradicted, s.neither) for s in scores] == [(1.0, 0.0, 0.0),
                                                                          (0.0, 0.0, 1.0)]
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


@pytest.mark.parametrize(("reply", "label"), [("Yes", "Yes"), (" no.\n", "No"), ("YES!", "Yes")])
def test_a_label_alone_is_read(reply: str, label: str) -> None:
    assert parse_label(reply, ("Yes", "No")) == label


@pytest.mark.parametrize("reply", ["", "Yes No", "Yes, because", "Maybe"])
def test_anything_else_is_refused(reply: str) -> None:
    with pytest.raises(GenerationError):
        parse_label(reply, ("Yes", "No"))
