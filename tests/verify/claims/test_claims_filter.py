"""Skip reasons: text.factual.skip_reason for the text, and code and headings by layout."""

from __future__ import annotations

import pytest

from veracity.text.factual import is_factual, skip_reason
from veracity.verify.claims import sentence_skip_reason

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        # facts, including facts with an opinion or meta phrase attached
        ("Worker bees develop in 21 days.", None),
        ("Interestingly, bees dance.", None),
        ("It is interesting to note that bees dance.", None),
        ("Based on the provided documents, bees dance.", None),
        ("In summary, bees dance.", None),
        ("This is a great example of cooperation among insects.", None),
        ("Bees are great pollinators.", None),
        ("It was important to the economy of Vienna.", None),
        ("As an AI language model, I believe Paris is the capital of France.", None),
        ("As an AI, I don't have opinions, but Paris is large.", None),
        ("I don't know the year, but the hive was built of straw.", None),
        # nothing to check
        ("---", "empty"),
        ("", "empty"),
        ("What else would you like to know?", "question"),
        ("Sure!", "greeting"),
        ("Great question!", "greeting"),
        ("I hope this helps.", "greeting"),
        ("I don't know.", "refusal"),
        ("Je ne sais pas.", "refusal"),
        ("Here is what the documents say:", "meta"),
        ("As an AI language model, I cannot browse the internet.", "meta"),
        ("As an AI language model, my knowledge is limited.", "meta"),
        ("Based on the provided context.", "meta"),
        ("Here is a summary.", "meta"),
        ("Here is a summary of the key points.", "meta"),
        ("Sure, here is the answer.", "meta"),
        ("In summary,", "meta"),
        ("Let me explain how bees dance.", "meta"),
        ("I think this is fascinating.", "opinion"),
        ("This is a great question.", "opinion"),
        ("It is interesting to note.", "opinion"),
        ("That is a really interesting topic!", "opinion"),
        ("In my opinion, this is a fascinating topic.", "opinion"),
        ("I find it fascinating.", "opinion"),
    ],
)
def test_skip_reason_names_why_or_returns_none(sentence: str, reason: str | None) -> None:
    assert skip_reason(sentence) == reason
    assert is_factual(sentence) is (reason is None)


@pytest.mark.parametrize(
    ("text", "claim", "options", "reason"),
    [
        ("print('x')", "print('x')", {"code": True}, "code"),
        ("# Waggle dance", "Waggle dance", {"heading": True}, "heading"),
        ("## History", "History", {}, "heading"),
        ("**Key facts**", "Key facts", {}, "heading"),
        ("__Key facts__:", "Key facts:", {}, "heading"),
        ("Waggle Dance", "Waggle Dance", {"own_line": True}, "heading"),
        # a title line needs its own line, no bullet, no end mark and no verb; elsewhere a few
        # words of which none can be a verb are a fragment ("Dance" can be one)
        ("Waggle Dance", "Waggle Dance", {"own_line": False}, None),
        ("The default value", "The default value", {"own_line": False}, "fragment"),
        ("- Queens and drones", "Queens and drones", {"own_line": True}, None),
        ("Bees dance", "Bees dance", {"own_line": True}, None),
        ("Bees dance [1].", "Bees dance.", {"own_line": True}, None),
        ("What else?", "What else?", {}, "question"),
    ],
)
def test_layout_reasons_come_before_the_text_rules(
    text: str, claim: str, options: dict[str, bool], reason: str | None
) -> None:
    assert sentence_skip_reason(text, claim, **options) == reason
