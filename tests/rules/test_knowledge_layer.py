"""The knowledge layer: claims' values and names compared with passages and a knowledge base."""

from __future__ import annotations

import sys

import pytest

import veracity.rules as knowledge
from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.rules import (
    Fact,
    KnowledgeBase,
    KnowledgeLayer,
    KnowledgeResult,
    spacy_available,
)
from veracity.types import Chunk, Claim, Span, ValueCheck

FRISCH = (
    "Karl von Frisch (20 November 1886 – 12 June 1982) was an Austrian ethologist. He received "
    "the Nobel Prize in Physiology or Medicine in 1973, with Konrad Lorenz and Nikolaas "
    "Tinbergen. He showed that a colony of about 60,000 bees communicates through dances."
)
TOWER = (
    "The Eiffel Tower is 330 metres tall. It was opened on 31 March 1889 and cost 7.8 million "
    "francs. About 7 million people visit it every year. In 2022, ticket sales reached $120 "
    "million, and the share of foreign visitors was 75%."
)
#: The chunks sit at an offset in their documents, so evidence spans must add it.
FRISCH_CHUNK = Chunk("frisch.md#1", "frisch.md", 1, FRISCH, 500, 500 + len(FRISCH))
TOWER_CHUNK = Chunk("tower.md#0", "tower.md", 0, TOWER, 40, 40 + len(TOWER))
DOCUMENTS = {"frisch.md": " " * 500 + FRISCH, "tower.md": " " * 40 + TOWER}


def claim(text: str, index: int = 0) -> Claim:
    return Claim(index, text, Span(0, len(text)), index)


def check(
    text: str, passages: list[Chunk] | None = None, *, layer: KnowledgeLayer | None = None
) -> tuple[str, float | None, list[ValueCheck]]:
    layer = layer or KnowledgeLayer(ner="rules")
    result = layer.run(
        [claim(text)], [passages if passages is not None else [FRISCH_CHUNK, TOWER_CHUNK]]
    )
    documents = {chunk.doc_id: " " * chunk.start + chunk.text for chunk in passages or ()}
    for value in result.values[0]:
        assert value.span.of(text) == value.text
        if value.evidence is not None and value.doc_id is not None:
            assert value.found == value.evidence.of({**DOCUMENTS, **documents}[value.doc_id])
    return result.results[0].label, result.results[0].score, list(result.values[0])


def statuses(checks: list[ValueCheck]) -> list[tuple[str, str, str]]:
    return [(c.kind, c.text, c.status) for c in checks]


# --- matches ----------------------------------------------------------------------------------


@pytest.mark.unit
def test_every_kind_matches_after_normalisation() -> None:
    label, score, checks = check(
        "The Eiffel Tower, 330 m tall, opened in March 1889, cost 7.8 million francs and in "
        "2022 sold $120,000,000 of tickets, 75 percent to foreign visitors."
    )
    assert label == "supported"
    assert score == defaults.KNOWLEDGE_MATCH_RISK
    assert statuses(checks) == [
        ("entity", "Eiffel Tower", "match"),
        ("quantity", "330 m", "match"),
        ("date", "March 1889", "match"),
        ("money", "7.8 million francs", "match"),
        ("year", "2022", "match"),
        ("money", "$120,000,000", "match"),
        ("percent", "75 percent", "match"),
    ]
    opened = checks[2]
    assert (opened.found, opened.doc_id, opened.source) == ("31 March 1889", "tower.md", "evidence")


@pytest.mark.unit
def test_evidence_spans_are_in_document_coordinates() -> None:
    _, _, checks = check("Karl von Frisch was born on 20 November 1886.")
    date = next(c for c in checks if c.kind == "date")
    assert date.evidence == Span(517, 533)
    assert DOCUMENTS["frisch.md"][517:533] == "20 November 1886"


@pytest.mark.unit
def test_a_year_matches_a_full_date_at_the_precision_given() -> None:
    label, _, checks = check("The tower opened in 1889.")
    assert label == "supported"
    assert checks[0].value == "1889"
    assert checks[0].found == "31 March 1889"


# --- mismatches ---------------------------------------------------------------------------------


@pytest.mark.unit
def test_a_different_value_in_the_same_context_contradicts() -> None:
    label, score, checks = check("Frisch won the Nobel Prize in 1974.")
    assert (label, score) == ("contradicted", defaults.KNOWLEDGE_MISMATCH_RISK)
    year = next(c for c in checks if c.kind == "year")
    assert (year.status, year.found, year.doc_id) == ("mismatch", "1973", "frisch.md")


@pytest.mark.unit
def test_the_detail_names_the_claim_value_and_what_the_evidence_says() -> None:
    layer = KnowledgeLayer(ner="rules")
    result = layer.run([claim("The tower is 300 metres tall.")], [[TOWER_CHUNK]])
    detail = result.results[0].detail
    assert "'300 metres'" in detail
    assert "'330 metres'" in detail
    assert "tower.md" in detail


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("A colony has about 50,000 bees.", "60,000"),
        ("About 9 million people visit the tower every year.", "7 million"),
        ("The share of foreign visitors was 60%.", "75%"),
        ("In 2022, ticket sales reached $100 million.", "$120 million"),
        ("The tower opened on 1 April 1889.", "31 March 1889"),
    ],
)
def test_mismatch_of_each_kind(text: str, found: str) -> None:
    label, _, checks = check(text)
    assert label == "contradicted"
    assert [c.found for c in checks if c.status == "mismatch"] == [found]


@pytest.mark.unit
def test_an_unrelated_number_in_the_passage_does_not_contradict() -> None:
    passage = Chunk(
        "hive#0",
        "hive.md",
        0,
        "The hive was inspected by 3 beekeepers. The colony sits in 40 frames.",
        0,
        68,
    )
    label, score, checks = check("The colony has 60,000 bees.", [passage])
    assert (label, score) == ("unsupported", defaults.KNOWLEDGE_ABSENT_VALUE_RISK)
    assert statuses(checks) == [("number", "60,000", "absent")]


@pytest.mark.unit
def test_a_number_written_like_a_year_does_not_contradict_a_count() -> None:
    passage = Chunk("c#0", "curie.md", 0, "She won the 1911 Nobel Prize in Chemistry.", 0, 42)
    label, _, checks = check("Marie Curie won three Nobel Prizes.", [passage])
    assert label == "unsupported"
    assert [(c.text, c.status) for c in checks if c.kind == "number"] == [("three", "absent")]
    assert [(c.text, c.status) for c in checks if c.kind == "entity"] == [
        ("Marie Curie", "absent"),
        ("Nobel Prizes", "match"),
    ]


@pytest.mark.unit
def test_a_year_contradicts_a_number_written_like_a_year_in_the_same_context() -> None:
    text = "For this work he shared the 1973 Nobel Prize in Physiology or Medicine."
    passage = Chunk("f#0", "frisch.md", 0, text, 0, len(text))
    label, score, checks = check(
        "He shared the Nobel Prize in Physiology or Medicine in 1983.", [passage]
    )
    assert (label, score) == ("contradicted", 1.0)
    assert [(c.text, c.status, c.found) for c in checks if c.kind == "year"] == [
        ("1983", "mismatch", "1973")
    ]


@pytest.mark.unit
def test_a_rounded_amount_matches_the_precise_one_and_not_a_different_one() -> None:
    passage = Chunk(
        "a#0",
        "apple.md",
        0,
        "Apple reported revenue of $394.3 billion for fiscal "
        "2022, an increase of 8% from the previous year.",
        0,
        99,
    )
    label, _, checks = check("Apple's revenue was $394 billion in 2022.", [passage])
    assert label == "supported"
    assert [c.found for c in checks if c.kind == "money"] == ["$394.3 billion"]
    label, _, checks = check("Apple's revenue was $365.8 billion in 2022.", [passage])
    assert label == "contradicted"
    assert [c.found for c in checks if c.status == "mismatch"] == ["$394.3 billion"]


@pytest.mark.unit
def test_a_value_in_another_context_is_absent_not_contradicted() -> None:
    passage = Chunk("t#0", "t.md", 0, "Construction began on 28 January 1887.", 0, 38)
    label, _, checks = check("The tower opened on 31 March 1889.", [passage])
    assert label == "unsupported"
    assert statuses(checks) == [("date", "31 March 1889", "absent")]


@pytest.mark.unit
def test_another_currency_or_unit_is_not_a_contradiction() -> None:
    _, _, checks = check("In 2022, ticket sales reached €120 million.", [TOWER_CHUNK])
    assert [c.status for c in checks if c.kind == "money"] == ["absent"]
    _, _, checks = check("The Eiffel Tower is 330 feet tall.", [TOWER_CHUNK])
    assert [c.status for c in checks if c.kind == "quantity"] == ["absent"]


@pytest.mark.unit
def test_the_most_comparable_conflicting_value_is_reported() -> None:
    passage = Chunk(
        "u#0",
        "u.md",
        0,
        "Inflation reached 8% in 2022, while unemployment fell to 3.7% over the year.",
        0,
        75,
    )
    _, _, checks = check("Unemployment fell to 3.5% in 2022.", [passage])
    percent = next(c for c in checks if c.kind == "percent")
    assert (percent.status, percent.found) == ("mismatch", "3.7%")


# --- names --------------------------------------------------------------------------------------


@pytest.mark.unit
def test_an_absent_name_is_unsupported_with_a_lower_risk() -> None:
    label, score, checks = check("Karl von Frisch worked in Munich.")
    assert (label, score) == ("unsupported", defaults.KNOWLEDGE_ABSENT_ENTITY_RISK)
    assert statuses(checks) == [
        ("entity", "Karl von Frisch", "match"),
        ("entity", "Munich", "absent"),
    ]


@pytest.mark.unit
def test_names_match_as_whole_words_in_either_direction() -> None:
    passage = Chunk("f#0", "f.md", 0, "Frisch studied bees with Karl Lorenz in the US.", 0, 47)
    layer = KnowledgeLayer(ner="rules")
    result = layer.run([claim("Karl von Frisch met Lorenz in the U.S.")], [[passage]])
    assert [(c.text, c.status, c.found) for c in result.values[0]] == [
        ("Karl von Frisch", "match", "Frisch"),
        ("Lorenz", "match", "Lorenz"),
        ("U.S.", "match", "US"),
    ]


@pytest.mark.unit
def test_without_entities_only_values_are_checked() -> None:
    layer = KnowledgeLayer(entities=False)
    result = layer.run([claim("Karl von Frisch worked in Munich.")], [[FRISCH_CHUNK]])
    assert result.ner == "none"
    assert result.values == ((),)
    assert (result.results[0].label, result.results[0].score) == ("unchecked", None)


# --- code-like tokens and slots ---------------------------------------------------------------

SQUID = (
    "#  TAG: cache_effective_user\n"
    "#\tIf you start Squid as root, it will change its effective/real\n"
    "#\tUID/GID to the user specified below.  The default is to change\n"
    "#\tto UID of proxy.\n"
    "#Default:\n"
    "# cache_effective_user proxy\n"
)
PASSWD = (
    "sync:x:4:65534:sync:/bin:/bin/sync\n\n"
    "Each line of /etc/passwd holds seven fields separated by colons: the user name, the "
    "password placeholder, the user ID, the group ID, a comment, the home directory and "
    "the login shell. The user sync has the home directory /bin and the login shell "
    "/bin/sync, which runs the sync command and exits."
)
GZIP = (
    "gzip (GNU zip) is a compression utility designed to be a replacement for compress. "
    "Its main advantages over compress are much better compression and freedom from "
    "patented algorithms."
)


def passage(text: str, doc_id: str = "src.txt") -> Chunk:
    return Chunk(f"{doc_id}#0", doc_id, 0, text, 0, len(text))


def code_checks(text: str, source: str) -> tuple[str, list[tuple[str, str, str | None]]]:
    label, _, checks = check(text, [passage(source)])
    return label, [(c.text, c.status, c.found) for c in checks if c.kind == "code"]


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "source", "found"),
    [
        ("The shell of user sync is /bin/bash.", PASSWD, ("/bin/bash", "mismatch", "/bin/sync")),
        (
            "By default, Squid runs as the user www-data.",
            SQUID,
            ("www-data", "mismatch", "proxy"),
        ),
    ],
)
def test_a_different_code_token_in_the_same_context_contradicts(
    text: str, source: str, found: tuple[str, str, str]
) -> None:
    label, checks = code_checks(text, source)
    assert label == "contradicted"
    assert [c for c in checks if c[1] == "mismatch"] == [found]


@pytest.mark.unit
def test_a_token_outside_the_aligned_sentence_is_not_stated() -> None:
    # "Squid ... user" aligns with "If you start Squid as root ... to the user specified below";
    # "proxy" stands in the next sentence, so "www-data" is not stated there, not contradicted.
    label, _, checks = check("Squid runs as user www-data.", [passage(SQUID)])
    assert label == "unsupported"
    (token,) = checks
    assert (token.text, token.status, token.found, token.aligned) == (
        "www-data",
        "absent",
        "proxy",
        False,
    )


@pytest.mark.unit
def test_an_ordinary_word_in_a_slot_is_not_a_value() -> None:
    # The old word-slot rule said "'zip' contradicts 'compress'": a content word is no value.
    label, checks = code_checks("gzip was designed to be a replacement for zip.", GZIP)
    assert label != "contradicted"
    assert [c for c in checks if c[1] == "mismatch"] == []


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "source", "found"),
    [
        ("Squid runs as user proxy.", SQUID, []),  # "proxy" is a plain word here: no check
        ("Squid runs as user `proxy`.", SQUID, [("proxy", "match", "proxy")]),
        ("The shell of user sync is /bin/sync.", PASSWD, [("/bin/sync", "match", "/bin/sync")]),
        ("The home directory of sync is /bin.", PASSWD, [("/bin", "match", "/bin")]),
        ("gzip was designed to be a replacement for compress.", GZIP, []),
        # paraphrases: the slot filled by a phrase that holds the word, another wording of it
        ("gzip was designed as a replacement for the compress program.", GZIP, []),
        ("gzip is a compression utility that replaces compress.", GZIP, []),
    ],
)
def test_the_same_token_or_a_paraphrase_is_not_flagged(
    text: str, source: str, found: list[tuple[str, str, str]]
) -> None:
    label, checks = code_checks(text, source)
    assert label == ("supported" if found else "unchecked")  # not flagged either way
    assert checks == found


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "source", "found"),
    [
        # path: a configuration file
        (
            "The configuration file is /etc/squid/squid.conf.",
            "Squid reads its configuration file /etc/squid3/squid.conf at start.",
            "/etc/squid3/squid.conf",
        ),
        # URL
        (
            "The source code is at https://git.savannah.gnu.org/gzip.git today.",
            "The source code is at https://github.com/gzip/gzip today.",
            "https://github.com/gzip/gzip",
        ),
        # e-mail
        (
            "Report gzip bugs to bugs@gzip.org.",
            "Report gzip bugs to bug-gzip@gnu.org.",
            "bug-gzip@gnu.org",
        ),
        # flag
        (
            "To decompress, run gzip with the --fast option.",
            "To decompress, run gzip with the --decompress option.",
            "--decompress",
        ),
        # version
        (
            "The fix shipped in gzip 1.12.1 for users.",
            "The fix shipped in gzip 1.13.0 for users.",
            "1.13.0",
        ),
        # snake_case
        (
            "The directive cache_effective_group sets the user.",
            "The directive cache_effective_user sets the user Squid runs as.",
            "cache_effective_user",
        ),
        # CamelCase with inner capitals
        (
            "The browser API call is getElementsByName for the element.",
            "The browser API call is getElementById for the element.",
            "getElementById",
        ),
        # hyphenated name by a cue noun, against a configuration value
        (
            "The daemon runs as user nginx-worker.",
            "user=nobody\nThe daemon runs as this user.",
            "nobody",
        ),
        # backticked command
        (
            "To list hidden files, type `ls -a` in the shell.",
            "To list hidden files, type `ls -la` in the shell.",
            "ls -la",
        ),
        # quoted string
        (
            'The error message says "permission denied" for the file.',
            'The error message says "no such file" for the file.',
            "no such file",
        ),
    ],
)
def test_each_class_of_token_contradicts_in_the_same_context(
    text: str, source: str, found: str
) -> None:
    label, checks = code_checks(text, source)
    assert label == "contradicted"
    assert [c[2] for c in checks if c[1] == "mismatch"] == [found]


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "source"),
    [
        # another token of the class, in an unrelated context
        (
            "The shell of user sync is /bin/bash.",
            "Logs are written to /var/log/squid/access.log every hour.",
        ),
        # tokens of another class
        ("Squid runs as user www-data.", "Squid listens on https://proxy.example.org for users."),
        # the token written as plain text
        ("Squid runs as user www-data.", "On Debian, Squid runs as the www-data user."),
        # lower-case ordinary words: no technical cue, so slots are not compared
        (
            "Honey is made from nectar collected by bees.",
            "Honey is made from pollen collected by bees.",
        ),
        ("the sun is made of hydrogen and helium.", "The sun is made of plasma and gas."),
    ],
)
def test_unrelated_or_ordinary_text_is_not_flagged(text: str, source: str) -> None:
    label, _, checks = check(text, [passage(source)])
    assert not [c for c in checks if c.kind == "code" and c.status != "match"]
    assert label in ("supported", "unsupported", "unchecked")
    assert all(c.kind == "entity" for c in checks if c.status == "absent")


@pytest.mark.unit
def test_a_token_in_a_slot_the_evidence_fills_with_words_is_absent() -> None:
    label, checks = code_checks(
        "By default Squid runs as `www-data` on Debian.",
        "By default Squid runs as an unprivileged user.",
    )
    assert label == "unsupported"
    assert checks == [("www-data", "absent", None)]


@pytest.mark.unit
def test_a_compound_noun_does_not_fill_a_slot() -> None:
    label, checks = code_checks(
        "Edit the file /etc/fstab to change the mounts.",
        "Edit the file system table to change the mounts.",
    )
    assert (label, checks) == ("unchecked", [])


@pytest.mark.unit
def test_a_token_the_evidence_does_not_talk_about_is_not_checked() -> None:
    label, checks = code_checks(
        "The shell of user sync is /bin/bash.", "Bees dance to tell each other where flowers are."
    )
    assert (label, checks) == ("unchecked", [])


@pytest.mark.unit
def test_a_code_contradiction_names_the_token_and_the_evidence_span() -> None:
    layer = KnowledgeLayer(ner="rules")
    chunk = Chunk("passwd#3", "passwd", 3, PASSWD, 120, 120 + len(PASSWD))
    result = layer.run([claim("The shell of user sync is /bin/bash.")], [[chunk]])
    assert (
        "'/bin/bash' contradicts the evidence, which says '/bin/sync'" in result.results[0].detail
    )
    mismatch = next(c for c in result.values[0] if c.status == "mismatch")
    assert mismatch.evidence is not None
    assert (" " * 120 + PASSWD)[mismatch.evidence.start : mismatch.evidence.end] == "/bin/sync"


# --- abstaining, precedence, shape ------------------------------------------------------------


@pytest.mark.unit
def test_a_claim_without_values_abstains() -> None:
    label, score, checks = check("honey bees dance to tell each other where flowers are.")
    assert (label, score, checks) == ("unchecked", None, [])
    result = KnowledgeLayer(ner="rules").run([claim("bees dance.")], [[]])
    assert result.results[0].detail == "no values to check"
    assert not result.results[0].flagged


@pytest.mark.unit
def test_a_mismatch_outranks_an_absence() -> None:
    label, _, checks = check("Frisch won the Nobel Prize in 1974 and had 3 children.")
    assert label == "contradicted"
    assert {c.status for c in checks} == {"match", "mismatch", "absent"}


@pytest.mark.unit
def test_no_passages_means_every_value_is_absent() -> None:
    label, _, checks = check("The tower opened in 1889.", [])
    assert label == "unsupported"
    assert [c.status for c in checks] == ["absent"]


@pytest.mark.unit
def test_one_result_per_claim_and_passages_read_once() -> None:
    claims = [
        claim("The tower opened in 1889.", 0),
        claim("It cost 9 million francs.", 1),
        claim("bees dance.", 2),
    ]
    result = KnowledgeLayer(ner="rules").run(claims, [[TOWER_CHUNK]] * 3)
    assert isinstance(result, KnowledgeResult)
    assert len(result) == 3
    assert len(result.values) == 3
    assert [r.label for r in result.results] == ["supported", "contradicted", "unchecked"]
    assert all(r.layer == "knowledge" for r in result.results)
    assert result.flagged == 1
    assert result.ner == "rules"


@pytest.mark.unit
def test_claims_and_evidence_must_pair_up() -> None:
    with pytest.raises(InputError, match="2 claims but 1 evidence lists"):
        KnowledgeLayer(ner="rules").run([claim("a", 0), claim("b", 1)], [[]])


@pytest.mark.unit
def test_options_are_validated() -> None:
    with pytest.raises(OptionError, match="context_words=0"):
        KnowledgeLayer(context_words=0)
    with pytest.raises(OptionError, match="ner='nltk'"):
        KnowledgeLayer(ner="nltk")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match=r"KnowledgeBase\.from_file"):
        KnowledgeLayer(knowledge_base={"Paris": 1})  # type: ignore[arg-type]


@pytest.mark.unit
def test_rules_fallback_runs_when_the_extra_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spacy", None)
    monkeypatch.setitem(sys.modules, defaults.KNOWLEDGE_SPACY_MODEL, None)
    layer = KnowledgeLayer().load()
    result = layer.run([claim("Karl von Frisch worked in Munich.")], [[FRISCH_CHUNK]])
    assert result.ner == "rules"
    assert [c.status for c in result.values[0]] == ["match", "absent"]


# --- knowledge base ---------------------------------------------------------------------------


KB = KnowledgeBase(
    [
        Fact("Eiffel Tower", "height", "330 m", "facts.csv:2"),
        Fact("Karl von Frisch", "birth_date", "1886-11-20", "facts.csv:3"),
        Fact("Karl von Frisch", "birth_place", "Vienna", "facts.csv:4"),
        Fact("Paris", "population", "2,102,650", "facts.csv:5"),
    ],
    name="facts.csv",
)


@pytest.mark.unit
def test_the_knowledge_base_contradicts_a_claim() -> None:
    layer = KnowledgeLayer(ner="rules", knowledge_base=KB)
    label, _, checks = check("The Eiffel Tower is 300 metres tall.", [], layer=layer)
    assert label == "contradicted"
    kb = [c for c in checks if c.source == "knowledge_base"]
    assert [(c.text, c.status, c.found, c.doc_id) for c in kb] == [
        ("300 metres", "mismatch", "330 m", "facts.csv:2")
    ]


@pytest.mark.unit
def test_a_fact_confirms_a_value_the_passages_do_not_state() -> None:
    layer = KnowledgeLayer(ner="rules", knowledge_base=KB)
    label, score, checks = check("Paris has 2.1 million inhabitants.", [TOWER_CHUNK], layer=layer)
    assert (label, score) == ("supported", 0.0)
    assert [(c.source, c.status) for c in checks if c.kind == "number"] == [
        ("evidence", "absent"),
        ("knowledge_base", "match"),
    ]


@pytest.mark.unit
def test_knowledge_base_dates_and_names() -> None:
    layer = KnowledgeLayer(ner="rules", knowledge_base=KB)
    label, _, checks = check("Karl von Frisch was born in Munich in 1887.", [], layer=layer)
    assert label == "contradicted"
    kb = [(c.text, c.status, c.found) for c in checks if c.source == "knowledge_base"]
    assert kb == [("Munich", "mismatch", "Vienna"), ("1887", "mismatch", "1886-11-20")]
    _, _, checks = check("Karl von Frisch was born in Vienna in 1886.", [], layer=layer)
    matched = [(c.text, c.status) for c in checks if c.source == "knowledge_base"]
    assert matched == [("Vienna", "match"), ("1886", "match")]


@pytest.mark.unit
def test_a_name_far_from_the_attribute_does_not_fill_it() -> None:
    layer = KnowledgeLayer(ner="rules", knowledge_base=KB)
    _, _, checks = check("Karl von Frisch, born in 1886, later taught in Munich.", [], layer=layer)
    assert [c.text for c in checks if c.status == "mismatch"] == []


# --- spaCy ----------------------------------------------------------------------------------


@pytest.mark.integration
def test_the_layer_with_spacy() -> None:
    if not spacy_available():
        pytest.skip("needs the [nlp] extra: pip install 'veracity[nlp]'")
    layer = KnowledgeLayer(ner="spacy").load()
    claims = [
        claim("Karl von Frisch worked in Munich with Konrad Lorenz.", 0),
        claim("Frisch won the Nobel Prize in 1974.", 1),
    ]
    result = layer.run(claims, [[FRISCH_CHUNK]] * 2)
    assert result.ner == "spacy"
    assert [(c.text, c.status) for c in result.values[0]] == [
        ("Karl von Frisch", "match"),
        ("Munich", "absent"),
        ("Konrad Lorenz", "match"),
    ]
    assert result.results[0].score == defaults.KNOWLEDGE_ABSENT_ENTITY_RISK
    assert result.results[1].label == "contradicted"


# --- public API -------------------------------------------------------------------------------


@pytest.mark.unit
def test_public_api() -> None:
    assert set(knowledge.__all__) == {
        "NER_BACKENDS",
        "TOKEN_CLASSES",
        "VALUE_KINDS",
        "Entity",
        "EntityRecognizer",
        "Fact",
        "KnowledgeBase",
        "KnowledgeLayer",
        "KnowledgeResult",
        "Mention",
        "NerBackend",
        "Relation",
        "Value",
        "ValueKind",
        "compare",
        "compare_tokens",
        "entity_key",
        "extract_tokens",
        "extract_values",
        "find_entity",
        "match_key",
        "spacy_available",
    }
    assert all(hasattr(knowledge, name) for name in knowledge.__all__)


@pytest.mark.unit
def test_a_value_inside_a_stated_range_is_no_conflict() -> None:
    from veracity.rules.layer import KnowledgeLayer
    from veracity.types import Chunk, Claim, Span

    layer = KnowledgeLayer(entities=False)
    for passage, claim, label in (
        ("Beeswax melts at 62 to 64 degrees.", "Wax melts at 63 degrees.", "unsupported"),
        ("Beeswax melts at 62 to 64 degrees.", "Wax melts at 73 degrees.", "contradicted"),
        (
            "Between 5 and 9 percent of beeswax is resin.",
            "Beeswax is 7 percent resin.",
            "unsupported",
        ),
    ):
        result = layer.run(
            [Claim(0, claim, Span(0, len(claim)), 0)],
            [[Chunk("w#0", "w", 0, passage, 0, len(passage))]],
        )
        assert result.results[0].label == label, claim
