"""A choice option refuses a value outside its choices with a message that names every allowed
value, and takes each allowed one (the choices are the library's registries).

Each command runs on fakes over a tiny BM25 index made here; a value is taken when the command
runs past the option: it succeeds, or fails for a reason that is not the option's value (the
reason is named per case below).
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner, Result

from veracity import cli, defaults
from veracity.config import BATCH_LAYERS
from veracity.models import VERIFIERS
from veracity.repair.pipeline import POLICIES
from veracity.retrieve.abstain import SIGNALS
from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer
from veracity.verify.nli import WINDOWS
from veracity.verify.pipeline import LAYERS
from veracity.verify.questions import QUERY_MODES
from veracity.verify.rules import RULES

pytestmark = pytest.mark.unit

QUESTION = "Do honey bees dance?"
SOURCE = "Honey bees dance to show other workers where food is.\n"
#: Fakes for every model; the verifier factory records the names it was given.
ASKED: list[str] = []


def _verifier(name: str) -> TablePairScorer:
    ASKED.append(name)
    return TablePairScorer({})


APP = cli.build_app(
    cli.Models(
        verifier=_verifier,
        chat=lambda spec, model: ScriptedChatModel(["Honey bees dance [1]."] * 20),
        reranker=lambda name: OverlapRelevanceScorer(),
    )
)


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The files the commands read: a source, a BM25 index of it, a batch and a dev set."""
    root = tmp_path_factory.mktemp("choices")
    (root / "docs").mkdir()
    source = root / "docs" / "bees.md"
    source.write_text(SOURCE, encoding="utf-8")
    index = root / "index"
    made = CliRunner().invoke(
        APP, ["index", str(root / "docs"), "--index", str(index), "--no-dense"]
    )
    assert made.exit_code == 0, made.output
    (root / "batch.jsonl").write_text(
        '{"id": 1, "answer": "Honey bees dance.", "sources": ["Honey bees dance."]}\n',
        encoding="utf-8",
    )
    (root / "dev.jsonl").write_text(
        '{"question": "Do honey bees dance?", "answerable": true}\n'
        '{"question": "Do cats fly?", "answerable": false}\n',
        encoding="utf-8",
    )
    where = {"source": str(source), "index": str(index), "root": str(root)}
    # a process's first verify (the knowledge layer's name finder) and first evolve take
    # seconds, once: paid here rather than by whichever test comes first
    for args in (_base("verify", where, ""), _base("evolve", where, "")):
        warm = CliRunner().invoke(APP, args)
        assert warm.exit_code == 0, warm.output
    return where


def _base(command: str, where: dict[str, str], value_of: str) -> list[str]:
    """A valid invocation of ``command``, apart from the option under test."""
    index, root = where["index"], where["root"]
    answer = ["--answer", "Honey bees dance."]
    return {
        "verify": ["verify", *answer, "--sources", where["source"]],
        "verify --index": ["verify", *answer, "--index", index],
        "verify-batch": [
            "verify-batch",
            f"{root}/batch.jsonl",
            "--out",
            f"{root}/out-{value_of}.jsonl",
        ],
        "repair": ["repair", *answer, "--sources", where["source"]],
        "ask": ["ask", QUESTION, "--index", index],
        "ask --threshold": ["ask", QUESTION, "--index", index, "--threshold", "0.5"],
        "ask --repair": ["ask", QUESTION, "--index", index, "--repair"],
        "calibrate": ["calibrate", "--index", index, "--dev", f"{root}/dev.jsonl"],
        "search": ["search", "honey bees", "--index", index],
        "evolve": ["evolve", QUESTION, "--index", index, "--offspring", "1", "--iterations", "1"],
        # no index there: the command stops after its options, before it would serve
        "serve": ["serve", "--index", f"{root}/no-index"],
    }[command]


#: (how the command is run, option, its allowed values)
CHOICES = [
    ("verify", "--layers", LAYERS),
    ("verify", "--rule", RULES),
    ("verify", "--query", QUERY_MODES),
    ("verify", "--window", WINDOWS),
    ("verify --index", "--mode", defaults.SEARCH_MODES),
    ("verify-batch", "--layers", BATCH_LAYERS),
    ("verify-batch", "--window", WINDOWS),
    ("verify-batch", "--rule", tuple(rule for rule in RULES if rule != "logistic")),
    ("repair", "--policy", POLICIES),
    ("repair", "--query", QUERY_MODES),
    ("ask --repair", "--policy", POLICIES),
    ("ask --threshold", "--signal", tuple(SIGNALS)),
    ("ask", "--mode", defaults.SEARCH_MODES),
    ("calibrate", "--signal", tuple(SIGNALS)),
    ("search", "--mode", defaults.SEARCH_MODES),
    ("evolve", "--mode", defaults.SEARCH_MODES),
    ("serve", "--mode", defaults.SEARCH_MODES),
]
#: Allowed values that these invocations refuse for another reason, and the reason's words.
OTHER_REASON = {
    ("verify", "--layers", "consistency"): "a chat model for 'consistency'",
    ("verify", "--rule", "logistic"): "--weights is needed",
    ("verify", "--query", "question"): "a chat model to write the questions",
    ("verify --index", "--mode", "dense"): "built without dense vectors",
    ("ask", "--mode", "dense"): "built without dense vectors",
    ("search", "--mode", "dense"): "built without dense vectors",
    ("evolve", "--mode", "dense"): "built without dense vectors",
    ("ask --threshold", "--signal", "top_cosine"): "a signal that bm25 search computes",
    ("calibrate", "--signal", "top_cosine"): "a signal that bm25 search computes",
    ("serve", "--mode", "bm25"): "no index at",
    ("serve", "--mode", "dense"): "no index at",
    ("serve", "--mode", "hybrid"): "no index at",
}


#: Found by these tests: the option is read only when an answer is there to repair, so a bad
#: value passes when the answer abstains (the fake chat's answer cites nothing that supports it).
def _run(args: list[str]) -> Result:
    return CliRunner().invoke(APP, args)


def _refusal(option: str, value: str) -> str:
    return f"error: {option} {value!r} is not allowed: one"


@pytest.mark.parametrize(
    ("command", "option", "choices"),
    [pytest.param(*case) for case in CHOICES],
)
def test_a_value_outside_the_choices_is_refused_naming_each_allowed_one(
    command: str, option: str, choices: tuple[str, ...], where: dict[str, str]
) -> None:
    result = _run([*_base(command, where, "bad"), option, "nonsense"])
    assert result.exit_code == cli.EXIT_FAILED, result.output
    message = result.stderr
    assert _refusal(option, "nonsense") in message
    allowed = message.split("is not allowed:", 1)[1]
    assert [choice for choice in choices if choice not in allowed] == []


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [(command, option, value) for command, option, choices in CHOICES for value in choices],
)
def test_each_allowed_value_is_taken(
    command: str, option: str, value: str, where: dict[str, str]
) -> None:
    result = _run([*_base(command, where, value), option, value])
    assert _refusal(option, value) not in result.stderr
    reason = OTHER_REASON.get((command, option, value))
    if reason is None:
        assert result.exit_code == cli.EXIT_OK, result.output
    else:
        assert result.exit_code == cli.EXIT_FAILED, result.output
        assert reason in result.stderr


def test_the_verifier_option_refuses_an_unknown_name_and_passes_each_registered_one(
    where: dict[str, str],
) -> None:
    """The command with the real factories refuses a name it has no model for (before loading
    any); a registered name reaches the factory as given."""
    args = ["verify", "--answer", "Honey bees dance.", "--sources", where["source"]]
    refused = CliRunner().invoke(cli.app, [*args, "--verifier", "nonsense"])
    assert refused.exit_code == cli.EXIT_FAILED
    assert _refusal("--verifier", "nonsense") in refused.stderr
    assert [name for name in VERIFIERS if name not in refused.stderr] == []
    for name in VERIFIERS:
        ASKED.clear()
        taken = _run([*args, "--verifier", name])
        assert taken.exit_code == cli.EXIT_OK, taken.output
        assert [name] == ASKED


def test_verify_batch_refuses_a_rule_that_needs_weights_it_cannot_take(
    where: dict[str, str],
) -> None:
    """``logistic`` needs fitted weights, which verify-batch has no option for."""
    result = _run([*_base("verify-batch", where, "logistic"), "--rule", "logistic"])
    assert result.exit_code == cli.EXIT_FAILED, result.output
    assert "weights is needed: fitted LayerWeights for --rule logistic" in result.stderr
