"""The repair pipeline on fakes: each policy, the edit limits, conflicts and model failures."""

from __future__ import annotations

import pytest

from veracity.config import RepairConfig
from veracity.errors import InputError, OptionError
from veracity.repair import RepairResult, make_repairer
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Chunk

pytestmark = pytest.mark.unit

NOBEL = "Karl von Frisch shared the Nobel Prize in Physiology or Medicine in 1973."
DANCE = "Honey bees dance on the comb to show where food is."
WRONG = "Karl von Frisch shared the Nobel Prize in Physiology or Medicine in 1983."
RIGHT = "Karl von Frisch shared the Nobel Prize in Physiology or Medicine in 1973."
HUM = "Honey bees hum on the comb to show where food is."
BUMBLE = "Bumblebees dance to recruit nestmates."
TRUE = "Honey bees dance on the comb."


def _chunks(*texts: str) -> list[Chunk]:
    return [
        Chunk(f"d{i}#0", f"d{i}.md", 0, text, 0, len(text), title=f"d{i}")
        for i, text in enumerate(texts)
    ]


SOURCES = _chunks(NOBEL, DANCE)
TABLE = {
    (NOBEL, WRONG): (0.05, 0.9, 0.05),
    (NOBEL, RIGHT): (0.95, 0.0, 0.05),
    (DANCE, TRUE): (0.9, 0.0, 0.1),
    (DANCE, HUM): (0.05, 0.85, 0.1),
    (DANCE, "Honey bees dance on the comb to show where food is."): (0.95, 0.0, 0.05),
}


def _repair(
    answer: str,
    *,
    table: dict[tuple[str, str], tuple[float, float, float]] = TABLE,
    sources: list[Chunk] = SOURCES,
    chat: ScriptedChatModel | None = None,
    **options: object,
) -> RepairResult:
    config = RepairConfig().with_options(**options)
    return make_repairer(TablePairScorer(table), config, sources=sources, chat=chat).run(answer)


def test_revise_substitutes_the_evidence_value_without_a_model() -> None:
    answer = f"{TRUE} {WRONG}"
    result = _repair(answer)
    assert result.text == f"{TRUE} {RIGHT}"
    (edit,) = result.edits
    assert (edit.kind, edit.before, edit.after, edit.method) == (
        "substitute",
        "1983",
        "1973",
        "value_substitution@1",
    )
    assert edit.original.of(result.original) == "1983"
    assert edit.new.of(result.text) == "1973"
    assert edit.evidence[0].doc_id == "d0.md"
    assert [c.action for c in result.claims] == ["kept", "revised"]
    assert result.original == answer
    assert (result.attribution_before.supported, result.attribution_after.supported) == (1, 2)
    assert 0.9 < result.preservation.chars < 1.0
    assert result.calls.get("chat", 0) == 0


def test_a_substitution_the_verifier_does_not_then_support_is_rejected() -> None:
    # the verifier reads the edited claim as contradicted by its source
    table = {**TABLE, (NOBEL, RIGHT): (0.02, 0.9, 0.08)}
    result = _repair(WRONG, table=table)
    assert result.text == WRONG
    (item,) = result.claims
    assert item.action == "rejected"
    assert item.proposed == RIGHT
    assert "does not find the edited claim supported" in item.reason
    assert result.edits == ()


def test_the_chat_model_edits_a_claim_without_a_value() -> None:
    chat = ScriptedChatModel(["Fixed: Honey bees dance on the comb to show where food is."])
    result = _repair(HUM, chat=chat)
    assert result.text == "Honey bees dance on the comb to show where food is."
    (edit,) = result.edits
    assert (edit.kind, edit.before, edit.after, edit.method) == (
        "rewrite",
        "hum",
        "dance",
        "repair_edit_v1@1",
    )
    assert "Claim: Honey bees hum" in chat.requests[0].messages[-1].content
    assert result.calls["chat"] == 1


def test_a_garbage_reply_leaves_the_sentence_and_reports_the_failure() -> None:
    result = _repair(HUM, chat=ScriptedChatModel(["<|im_end|> ??? Evidence"]))
    assert result.text == HUM
    (item,) = result.claims
    assert item.action == "failed"
    assert item.failure is not None
    assert "repair_edit_v1" in item.failure
    assert result.failures == 1
    assert result.edits == ()


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (
            "Fixed: Honey bees perform an elaborate figure-of-eight waggle dance on the vertical "
            "comb.",
            "more than 50",
        ),
        ("Fixed: Honey bees dance here.", "more than half of the claim"),
    ],
)
def test_edits_over_the_limits_are_rejected_and_the_original_kept(reply: str, why: str) -> None:
    result = _repair(HUM, chat=ScriptedChatModel([reply]))
    assert result.text == HUM
    (item,) = result.claims
    assert item.action == "rejected"
    assert why in item.reason
    assert item.proposed == reply.removeprefix("Fixed: ")


def test_limits_can_be_tightened() -> None:
    result = _repair(WRONG, max_edit_share=0.01)  # 1 of 73 characters
    assert result.text == WRONG
    assert result.claims[0].action == "rejected"


def test_conflicting_sources_are_flagged_with_both_sides_never_edited() -> None:
    other = "Karl von Frisch shared the Nobel Prize in Physiology or Medicine in 1983 with Lorenz."
    sources = _chunks(NOBEL, other)
    table = {**TABLE, (other, WRONG): (0.9, 0.0, 0.1)}
    result = _repair(WRONG, table=table, sources=sources)
    assert result.text == WRONG
    (item,) = result.claims
    assert (item.action, item.agreement) == ("flagged", "conflict")
    assert [j.doc_id for j in item.supporting] == ["d1.md"]
    assert [j.doc_id for j in item.contradicting] == ["d0.md"]


def test_delete_removes_an_unsupported_sentence() -> None:
    answer = f"{TRUE} {BUMBLE}"
    result = _repair(answer, policy="delete")
    assert result.text == TRUE
    (edit,) = result.edits
    assert (edit.kind, edit.before) == ("delete", f" {BUMBLE}")
    assert [c.action for c in result.claims] == ["kept", "deleted"]
    assert result.attribution_after.claims == 1


def test_delete_cuts_one_claim_of_a_compound_sentence() -> None:
    answer = "Honey bees dance on the comb, and bumblebees dance to recruit nestmates."
    result = _repair(answer, policy="delete")
    assert result.text == "Honey bees dance on the comb."
    assert [c.action for c in result.claims] == ["kept", "deleted"]


def test_refuse_withdraws_a_mostly_unsupported_answer() -> None:
    result = _repair(f"{BUMBLE} Wasps dance too.", policy="refuse")
    assert result.refused
    assert result.text.startswith("I don't know: the sources support only 0 of")
    assert result.original == f"{BUMBLE} Wasps dance too."
    assert {c.action for c in result.claims} == {"refused"}
    assert result.after is None


def test_refuse_keeps_an_answer_at_the_threshold_and_flags_the_rest() -> None:
    result = _repair(f"{TRUE} {BUMBLE}", policy="refuse", refuse_below=0.5)
    assert not result.refused
    assert result.text == result.original
    assert [c.action for c in result.claims] == ["kept", "flagged"]


def test_flag_changes_nothing_and_shows_the_evidence() -> None:
    result = _repair(f"{TRUE} {WRONG}", policy="flag")
    assert result.text == result.original
    assert [c.action for c in result.claims] == ["kept", "flagged"]
    assert result.claims[1].contradicting[0].doc_id == "d0.md"


def test_an_answer_with_nothing_to_repair_is_returned_unchanged_and_says_so() -> None:
    result = _repair(TRUE)
    assert result.text == TRUE
    assert not result.changed
    assert result.notes == ("nothing to repair: all 1 claims are supported",)
    assert result.to_dict()["original"] == TRUE


def test_without_a_model_an_unsupported_claim_is_flagged_and_says_what_would_help() -> None:
    result = _repair(BUMBLE)
    assert result.text == BUMBLE
    assert result.claims[0].action == "flagged"
    assert "--policy delete" in result.claims[0].reason


def test_without_a_model_revise_quotes_the_source_sentence_that_answers_the_question() -> None:
    # "hum" is no value to substitute; the research question ("What honey bees hum on the comb
    # to show where food is?") shares 5 of its 6 content words with the source's sentence.
    result = _repair(f"{TRUE} {HUM}")
    quoted = DANCE
    assert result.text == f"{TRUE} {quoted}"
    (edit,) = result.edits
    assert (edit.kind, edit.before, edit.after, edit.method) == (
        "quote",
        HUM,
        quoted,
        "quotation@1",
    )
    assert edit.new.of(result.text) == quoted
    assert edit.evidence[0].doc_id == "d1.md"
    assert [c.action for c in result.claims] == ["kept", "revised"]
    assert result.attribution_after.supported == 2
    assert result.calls.get("chat", 0) == 0


def test_a_quotation_is_not_made_when_it_would_not_answer_or_not_be_supported() -> None:
    # Turned off: flagged as before.
    off = _repair(HUM, quote=False)
    assert (off.text, off.claims[0].action) == (HUM, "flagged")
    # The quoted sentence must pass the verifier against its evidence like any edit.
    table = {key: value for key, value in TABLE.items() if key != (DANCE, DANCE)}
    rejected = _repair(HUM, table=table)
    assert rejected.text == HUM
    assert rejected.claims[0].action == "rejected"
    assert rejected.claims[0].proposed == DANCE
    assert "does not find the edited claim supported" in rejected.claims[0].reason
    # A source sentence that shares too few of the question's words is not quoted.
    assert _repair(BUMBLE).claims[0].action == "flagged"


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="empty"):
        _repair("   ")
    with pytest.raises(InputError, match="no sources"):
        make_repairer(TablePairScorer({})).run(TRUE)
    with pytest.raises(OptionError, match="revise, delete, flag, refuse"):
        RepairConfig().with_options(policy="fix")


def test_to_dict_has_the_original_the_edits_and_both_attributions() -> None:
    payload = _repair(f"{TRUE} {WRONG}").to_dict()
    assert payload["original"] != payload["text"]
    assert payload["edits"][0]["original"] == [
        len(TRUE) + 1 + WRONG.index("1983"),
        len(TRUE) + 1 + WRONG.index("1983") + 4,
    ]
    assert payload["attribution_before"] == {"claims": 2, "supported": 1, "share": 0.5}
    assert payload["attribution_after"]["share"] == 1.0
    assert payload["claims"][1]["edit"]["method"] == "value_substitution@1"
    assert set(payload["preservation"]) == {"chars", "words"}


def test_an_unreadable_question_falls_back_to_the_rule_question_and_says_so() -> None:
    chat = ScriptedChatModel(
        ["no question here", "Fixed: Honey bees dance on the comb to show where food is."]
    )
    result = _repair(HUM, chat=chat, k=1)  # two sources, one per query: a search is made
    (item,) = result.claims
    assert item.questions == ("Is it true that Honey bees hum on the comb to show where food is?",)
    assert item.failure is not None
    assert "repair_questions_v1" in item.failure
    assert item.action == "revised"
    assert result.calls["chat"] == 2


def test_a_negated_claim_is_revised_to_what_the_source_says_and_deleted_on_request() -> None:
    source = "The museum does not open on Mondays."
    claim, fixed = "The museum opens on Mondays.", "The museum does not open on Mondays."
    table = {(source, claim): (0.3, 0.6, 0.1), (source, fixed): (0.9, 0.0, 0.1)}
    result = _repair(claim, table=table, sources=_chunks(source))
    assert result.text == fixed
    (edit,) = result.edits
    assert (edit.before, edit.after) == ("opens", "does not open")
    assert [c.action for c in result.claims] == ["revised"]
    deleted = _repair(claim, table=table, sources=_chunks(source), policy="delete")
    assert [c.action for c in deleted.claims] == ["deleted"]
    assert deleted.text.strip() == ""
