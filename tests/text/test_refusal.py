"""Refusal recognition per language, and refusal phrases inside real answers."""

from __future__ import annotations

import pytest

from veracity.errors import OptionError
from veracity.text.refusal import detect_refusal, refusal_languages, refusal_patterns

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("reply", "pattern", "matched"),
    [
        ("I don't know", "en.dont_know", "I don't know"),
        ("I don’t know.", "en.dont_know", "I don’t know"),
        ("I do not know.", "en.dont_know", "I do not know"),
        ("Sorry, but I don't know.", "en.dont_know", "I don't know"),
        (
            "The context does not mention when the association was founded.",
            "en.context_lacks",
            "The context does not mention",
        ),
        (
            "The provided documents don't say.",
            "en.context_lacks",
            "The provided documents don't say",
        ),
        (
            "The context does not contain that information [2].",
            "en.context_lacks",
            "The context does not contain",
        ),
        ("I cannot answer this from the context.", "en.cannot_answer", "I cannot answer"),
        ("I'm unable to answer that.", "en.cannot_answer", "'m unable to answer"),
        (
            "The founding year is not mentioned in the context.",
            "en.not_in_context",
            "is not mentioned in the context",
        ),
        (
            "Based on the provided context, there is no information about it.",
            "en.no_information",
            "there is no information",
        ),
    ],
)
def test_english(reply, pattern, matched):
    refusal = detect_refusal(reply)
    assert refusal is not None
    assert (refusal.pattern, refusal.language, refusal.text) == (pattern, "en", matched)
    assert refusal.span.of(reply) == matched


@pytest.mark.parametrize(
    ("reply", "language", "matched"),
    [
        ("نمی‌دانم.", "fa", "نمی‌دانم"),  # with the zero-width non-joiner
        ("نمیدانم", "fa", "نمیدانم"),  # without it
        ("نمی دانم.", "fa", "نمی دانم"),  # with a space
        ("متأسفم، نمی‌دانم.", "fa", "نمی‌دانم"),
        ("我不知道。", "zh", "我不知道"),
        ("无法回答这个问题。", "zh", "无法回答"),
        ("上下文中没有提到这一点。", "zh", "上下文中没有提到"),
        ("No lo sé.", "es", "No lo sé"),
        ("No sé.", "es", "No sé"),
        ("El contexto no menciona el año.", "es", "El contexto no menciona"),
        ("Je ne sais pas.", "fr", "Je ne sais pas"),
        ("Le contexte ne mentionne pas cette date.", "fr", "Le contexte ne mentionne pas"),
        ("Ich weiß nicht.", "de", "Ich weiß nicht"),
        ("Ich weiss nicht.", "de", "Ich weiss nicht"),
        ("Das weiß ich nicht.", "de", "weiß ich nicht"),
        ("Non lo so.", "it", "Non lo so"),
        ("Não sei.", "pt", "Não sei"),
        ("Я не знаю.", "ru", "Я не знаю"),
        ("わかりません。", "ja", "わかりません"),
        ("لا أعرف.", "ar", "لا أعرف"),
    ],
)
def test_other_languages(reply, language, matched):
    refusal = detect_refusal(reply)
    assert refusal is not None
    assert (refusal.language, refusal.text) == (language, matched)
    assert refusal.span.of(reply) == matched


@pytest.mark.parametrize(
    "reply",
    [
        "Queens mate with 12 to 20 drones [1]. I don't know how long it takes.",
        "Queens mate with many drones. I don't know how many.",
        "I don't know the exact year, but the guild was founded before 1900 [1].",
        "No sé el año exacto, pero la asociación es antigua [2].",
        "我不知道具体年份，但是协会很古老[1]。",
        "The queen mates with 12 to 20 drones [3].",
        "Beeswax melts at about 62 to 64 °C [1].",
        "The context does not mention the year [1]. " + "Workers develop in 21 days [2]. " * 8,
    ],
)
def test_a_refusal_phrase_inside_a_real_answer_is_not_a_refusal(reply):
    assert detect_refusal(reply) is None


def test_the_table_covers_the_languages_asked_for():
    assert {"en", "fa", "zh", "es", "fr", "de"} <= set(refusal_languages())
    ids = [pattern.id for pattern in refusal_patterns()]
    assert len(ids) == len(set(ids))
    assert all(pattern.id.startswith(pattern.language + ".") for pattern in refusal_patterns())


def test_limits_are_checked():
    with pytest.raises(OptionError, match="max_chars=0"):
        detect_refusal("I don't know", max_chars=0)
    with pytest.raises(OptionError, match="lead_chars=-1"):
        detect_refusal("I don't know", lead_chars=-1)


def test_lead_chars_bounds_where_a_refusal_may_start():
    reply = "Regarding the founding year of the association, I don't know."
    assert detect_refusal(reply) is not None
    assert detect_refusal(reply, lead_chars=10) is None
