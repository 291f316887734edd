"""`veracity ask` and `veracity calibrate` through the CLI on a small BM25 index built in the test.

The chat model and the verifier are fakes given to ``cli.build_app``; everything
else (indexing, retrieval, calibration files, rendering) is the real thing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.corpus.index_dir import IndexDir
from veracity.repair.questions import rule_questions
from veracity.testing import ScriptedChatModel
from veracity.types import PairScore, PairScores, Span

pytestmark = pytest.mark.unit

DOCS = {
    "bees.txt": "Honeybee workers develop in 21 days from egg to adult.\n",
    "wax.md": "# Beeswax\n\n## Melting\n\nBeeswax melts at about 62 to 64 degrees Celsius.\n",
    "mites.txt": "Varroa mites are the most damaging parasite of honeybee colonies.\n",
    "comb.txt": "Worker bees build the six-sided cells of the comb from flakes of beeswax that "
    "glands under their abdomen secrete.\n",
}
DEV = [
    {"question": "How many days do honeybee workers take to develop?", "answerable": True},
    {"question": "At what temperature does beeswax melt?", "answerable": True},
    {"question": "Which parasite damages honeybee colonies most?", "answerable": True},
    {"question": "Who painted the Mona Lisa?", "answerable": False},
    {"question": "What colour are honeybee eggs?", "answerable": False},
]
QUESTION = "At what temperature does beeswax melt?"
#: Retrieves passages (it shares "honeybee"), but weak ones: calibration abstains on it.
WEAK = "Who first bred honeybee queens?"


class PhraseScorer:
    """P(supported) 0.9 when the premise holds the phrase listed for the claim, else 0.05.

    Claims listed under ``fail`` get a failure result instead of a score.
    """

    model_id = "phrase"

    def __init__(self, phrases: dict[str, str], fail: Sequence[str] = ()) -> None:
        self.phrases = phrases
        self.fail = set(fail)
        self.calls: list[int] = []

    def load(self) -> PhraseScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        scores = []
        for premise, claim in zip(premises, hypotheses, strict=True):
            window = Span(0, len(premise))
            if claim in self.fail:
                scores.append(PairScore.failure("the judge replied 'maybe'", window=window))
                continue
            p = 0.9 if self.phrases.get(claim, "\0") in premise else 0.05
            scores.append(PairScore(p, 0.02, 0.98 - p, window=window))
        return PairScores(tuple(scores), self.model_id, "1")


PHRASES = {
    "Beeswax melts at about 63 degrees.": "62 to 64 degrees",
    "Wax melts between 62 and 64.": "62 to 64 degrees",
    "Beeswax is made by workers.": "made by workers",
}


@pytest.fixture
def index(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    folder = tmp_path / "index"
    result = CliRunner().invoke(cli.app, ["index", str(docs), "--index", str(folder), "--no-dense"])
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture
def dev(tmp_path: Path) -> Path:
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in DEV), encoding="utf-8")
    return path


#: A chat spec for the scripted model: any real chat backend's name (the fake factory ignores
#: it); ``--llm extractive``, the default, is no chat model.
FAKE_LLM = "openai:http://127.0.0.1:9/v1"


class Fakes:
    """A scripted chat model and a phrase scorer, and the app whose commands use them.

    Calling it installs new replies (and optionally a scorer) and returns the chat model.
    """

    def __init__(self) -> None:
        self.chat = ScriptedChatModel([])
        self.scorer = PhraseScorer(PHRASES)
        self.app = cli.build_app(
            cli.Models(verifier=lambda name: self.scorer, chat=lambda spec, model: self.chat)
        )

    def __call__(
        self, replies: Sequence[str], scorer: PhraseScorer | None = None
    ) -> ScriptedChatModel:
        self.chat = ScriptedChatModel(list(replies), model_id="scripted-llm")
        if scorer is not None:
            self.scorer = scorer
        return self.chat

    def ask(self, index: Path, *args: str, question: str = QUESTION, abstain: bool = False):
        """``veracity ask`` on the test index; without abstention unless ``abstain`` (the
        phrase scorer gives every question's content a low top_support, so the shipped default
        threshold would abstain on everything)."""
        return CliRunner().invoke(
            self.app,
            [
                "ask",
                question,
                "--index",
                str(index),
                "--mode",
                "bm25",
                "-k",
                "3",
                *([] if "--llm" in args else ["--llm", FAKE_LLM]),
                *args,
                *([] if abstain else ["--no-abstain"]),
            ],
        )

    def calibrate(self, index: Path, dev: Path, *args: str):
        return CliRunner().invoke(
            self.app,
            [
                "calibrate",
                "--index",
                str(index),
                "--dev",
                str(dev),
                "--mode",
                "bm25",
                "--signal",
                "top_bm25",
                *args,
            ],
        )


@pytest.fixture
def fakes() -> Fakes:
    return Fakes()


def flat(text: str) -> str:
    """``text`` with every run of whitespace as one space (the console wraps long lines)."""
    return " ".join(text.split())


REPLY = (
    "Beeswax melts at about 63 degrees [1]. Wax melts between 62 and 64. "
    "Beeswax is made by workers [2]. Beeswax melts at about 63 degrees [7]."
)


def test_ask_marks_every_sentence_and_quotes_the_sources(index, fakes):
    fakes([REPLY])
    result = fakes.ask(index)
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    assert REPLY in out
    assert "✓ Beeswax melts at about 63 degrees." in out
    assert "supported by its citation · 0.90 · [1]" in out
    assert "+ Wax melts between 62 and 64." in out
    assert "citation attached · 0.90 · attached [" in out
    assert "✗ Beeswax is made by workers." in out
    assert "! Beeswax melts at about 63 degrees." in out
    assert "[7] out of range: 2 blocks were given" in out  # only two chunks match
    assert "wax.md" in out
    assert "section: Beeswax > Melting" in out
    assert "“# Beeswax ## Melting Beeswax melts at about 62 to 64 degrees Celsius.”" in out
    assert "scripted-llm · prompt grounded_v1@1" in out


def test_ask_quotes_the_cited_sources_only_and_indents_wrapped_lines(index, fakes):
    long = (
        "Beeswax melts at about 63 degrees, which beekeepers who render old comb in a solar "
        "wax melter over a warm summer afternoon reach without any other source of heat."
    )
    fakes([f"{long} [1]"])
    result = fakes.ask(index)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "(not cited)" in result.output
    quote = "“# Beeswax ## Melting Beeswax melts at about 62 to 64 degrees Celsius.”"
    assert quote in flat(result.output)
    assert "“Honeybee workers develop" not in flat(result.output)  # block 2, not cited
    # The long sentence wraps; its continuation lines keep the sentence's indentation.
    first = next(
        i
        for i, line in enumerate(lines)
        if "Beeswax melts at about 63 degrees," in line and line.startswith("  ")
    )
    detail = next(i for i in range(first, len(lines)) if "unsupported ·" in lines[i])
    assert detail - first > 1
    assert all(line.startswith("    ") for line in lines[first + 1 : detail + 1])
    assert all(line == line.rstrip() for line in lines)


def test_ask_json_points_every_citation_at_its_document_span(index, fakes):
    chat = fakes([REPLY])
    result = fakes.ask(index, "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["status"] == "answered"
    assert [s["status"] for s in payload["sentences"]] == [
        "supported",
        "citation_attached",
        "unsupported",
        "invalid_citation",
    ]
    assert payload["invalid_citations"] == [
        {
            "marker": "7",
            "span": [len(REPLY) - 4, len(REPLY) - 1],
            "reason": "out of range: 2 blocks were given",
        }
    ]
    store = IndexDir(index).store()
    for citation in payload["citations"]:
        source = payload["sources"][citation["marker"] - 1]
        text = store.document(citation["doc_id"]).text
        assert text[citation["start"] : citation["end"]] == source["text"]
        if citation["span"] is not None:
            start, end = citation["span"]
            assert REPLY[start:end] == f"[{citation['marker']}]"
    assert payload["provenance"]["prompt"] == "grounded_v1@1"
    assert set(payload["timings"]) == {"retrieve", "abstain", "generate", "verify", "total"}
    assert len(chat.requests) == 1


def test_a_refusal_is_shown_as_one(index, fakes):
    fakes(["I don't know."])
    result = fakes.ask(index)
    assert result.exit_code == 0, result.output
    assert "the model declined to answer" in flat(result.output)
    assert "en.dont_know" in result.output


def test_a_verifier_failure_is_reported_and_exits_1(index, fakes):
    fakes(
        ["Beeswax melts at about 63 degrees [1]."],
        PhraseScorer(PHRASES, fail=["Beeswax melts at about 63 degrees."]),
    )
    result = fakes.ask(index)
    assert result.exit_code == 1, result.output
    assert "⚠ Beeswax melts at about 63 degrees." in flat(result.output)
    assert "the judge replied 'maybe'" in flat(result.output)


def test_calibrate_saves_the_threshold_and_ask_uses_it(index, dev, fakes):
    result = fakes.calibrate(index, dev)
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    assert "abstain when top_bm25 <" in out
    assert "F1 1.000" in out
    assert "3 of 3 answerable questions still answered" in out
    saved = json.loads((index / "calibration.json").read_text())
    assert (saved["signal"], saved["generation"], saved["mode"]) == (
        "top_bm25",
        "gen-000001",
        "bm25",
    )
    # A question the corpus cannot answer: abstained without any model call.
    chat = fakes([])
    result = fakes.ask(index, question=WEAK, abstain=True)
    assert result.exit_code == 0, result.output
    assert "abstained without asking the model: top_bm25 =" in flat(result.output)
    assert "calibrated on gen-000001" in flat(result.output)
    assert chat.requests == []
    # An answerable one reaches the model, and the answer says which threshold was used.
    chat = fakes(["Beeswax melts at about 63 degrees [1]."])
    result = fakes.ask(index, abstain=True)
    assert result.exit_code == 0, result.output
    out = flat(result.stdout)
    assert "relevance: top_bm25 =" in out
    assert "reaches the threshold" in out
    assert "calibrated on gen-000001" in out
    assert "not that it answers the question" in out
    assert len(chat.requests) == 1


def test_no_abstain_turns_the_threshold_off(index, dev, fakes):
    assert fakes.calibrate(index, dev).exit_code == 0
    chat = fakes(["I don't know."])
    result = fakes.ask(index, "--no-abstain", "--json", question=WEAK)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["status"] == "refused"
    assert len(chat.requests) == 1


def test_a_threshold_on_the_command_line(index, fakes):
    chat = fakes([])
    result = fakes.ask(index, "--signal", "top_bm25", "--threshold", "1000", "--json", abstain=True)
    payload = json.loads(result.output)
    assert payload["status"] == "abstained"
    assert payload["abstention"]["source"] == "--threshold"
    assert "is below the threshold 1000" in payload["abstention"]["reason"]
    assert chat.requests == []


def _reindex(tmp_path: Path, index: Path, *args: str) -> None:
    result = CliRunner().invoke(
        cli.app, ["index", str(tmp_path / "docs"), "--index", str(index), "--no-dense", *args]
    )
    assert result.exit_code == 0, result.output


def test_a_reindex_that_changes_nothing_keeps_the_calibration(index, dev, fakes, tmp_path):
    assert fakes.calibrate(index, dev).exit_code == 0
    _reindex(tmp_path, index)
    (tmp_path / "docs" / "wax.md").touch()  # a newer time, the same bytes
    _reindex(tmp_path, index)
    assert IndexDir(index).current().name == "gen-000003"
    chat = fakes([])
    payload = json.loads(fakes.ask(index, "--json", question=WEAK, abstain=True).output)
    assert payload["status"] == "abstained"
    assert payload["abstention"]["source"].startswith("calibrated on gen-000001")
    assert chat.requests == []


@pytest.mark.parametrize("change", ["add", "edit", "remove", "chunking"])
def test_changed_content_replaces_a_calibration_by_the_default_and_says_so(
    index, dev, fakes, tmp_path, change
):
    assert fakes.calibrate(index, dev).exit_code == 0
    docs = tmp_path / "docs"
    extra: tuple[str, ...] = ()
    if change == "add":
        (docs / "more.txt").write_text("Drones have no sting.\n", encoding="utf-8")
    elif change == "edit":
        (docs / "bees.txt").write_text("Honeybee workers develop in 20 days.\n", encoding="utf-8")
    elif change == "remove":
        (docs / "mites.txt").unlink()
    else:
        extra = ("--chunk-tokens", "32", "--overlap", "4")
    _reindex(tmp_path, index, *extra)
    chat = fakes([])
    result = fakes.ask(index, "--json", question=WEAK, abstain=True)
    payload = json.loads(result.output)
    assert payload["status"] == "abstained"  # abstention never turns off in silence
    source = payload["abstention"]["source"]
    assert "content changed since its calibration" in source
    assert "the shipped default" in source
    assert payload["abstention"]["signal"] == "top_support"
    assert chat.requests == []
    human = flat(fakes.ask(index, question=WEAK, abstain=True).stdout)
    assert "content changed since its calibration" in human


def test_an_index_never_calibrated_abstains_with_the_labelled_default(index, fakes):
    chat = fakes([])
    payload = json.loads(fakes.ask(index, "--json", question=WEAK, abstain=True).output)
    assert payload["status"] == "abstained"
    assert "no calibration was made" in payload["abstention"]["source"]
    assert "the shipped default threshold, uncalibrated" in payload["abstention"]["source"]
    assert "veracity calibrate --index DIR" in payload["abstention"]["source"]
    assert chat.requests == []


def test_calibrate_json_and_partial_rows(index, dev, fakes):
    with dev.open("a", encoding="utf-8") as out:
        out.write('{"question": "no label"}\nnot json\n')
    result = fakes.calibrate(index, dev, "--json")
    assert result.exit_code == 1, result.output
    payload = json.loads(result.output)
    assert payload["answerable"] == 3
    assert payload["unanswerable"] == 2
    assert len(payload["skipped"]) == 2
    assert payload["skipped"][0].endswith("needs a string question and a true/false answerable")
    assert payload["curve"][0]["threshold"] <= payload["threshold"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--signal", "rrf"], "RRF depends only on ranks"),
        (["--signal", "top_cosine"], "top_cosine (dense, hybrid)"),
    ],
)
def test_calibrate_refuses_unusable_signals(index, dev, fakes, args, message):
    result = CliRunner().invoke(
        fakes.app, ["calibrate", "--index", str(index), "--dev", str(dev), "--mode", "bm25", *args]
    )
    assert result.exit_code == 2
    assert message in flat(result.output)


def test_ask_failures_exit_2(index, tmp_path, fakes):
    missing = CliRunner().invoke(fakes.app, ["ask", QUESTION, "--index", str(tmp_path / "none")])
    assert missing.exit_code == 2
    assert "no index at" in flat(missing.output)
    # Harden-2 #14: a file given as the index folder was told to `veracity index ... --index`
    # that file, which would fail
    (tmp_path / "notes.txt").write_text("Bees dance.", encoding="utf-8")
    a_file = CliRunner().invoke(
        fakes.app, ["ask", QUESTION, "--index", str(tmp_path / "notes.txt")]
    )
    assert a_file.exit_code == 2
    assert f"{tmp_path / 'notes.txt'} is a file, not an index folder" in flat(a_file.output)
    assert f"--index {tmp_path / 'notes.txt'}" not in flat(a_file.output)
    lonely = fakes.ask(index, "--signal", "top_bm25", abstain=True)
    assert lonely.exit_code == 2
    assert "needs --threshold" in flat(lonely.output)


def test_ask_runs_again_from_its_answer_with_config(index, fakes, tmp_path):
    fakes([REPLY, REPLY])
    first = fakes.ask(index, "-k", "2", "--tau", "0.4", "--no-knowledge", "--json")
    assert first.exit_code in (0, 1), first.output
    saved = tmp_path / "answer.json"
    saved.write_text(first.stdout, encoding="utf-8")
    config = json.loads(first.stdout)["config"]
    assert (config["evidence"]["k"], config["tau"], config["knowledge"]) == (2, 0.4, False)
    again = CliRunner().invoke(
        fakes.app, ["ask", QUESTION, "--config", str(saved), "--tau", "0.6", "--json"]
    )
    assert again.exit_code in (0, 1), again.output
    rerun = json.loads(again.stdout)["config"]
    assert rerun == config | {"tau": 0.6}
    missing = CliRunner().invoke(fakes.app, ["ask", QUESTION])
    assert missing.exit_code == 2
    assert "--index DIR" in flat(missing.output)


def test_ask_in_the_default_mode_on_an_index_without_vectors_says_it_used_bm25(index, fakes):
    fakes([REPLY])
    result = CliRunner().invoke(
        fakes.app, ["ask", QUESTION, "--index", str(index), "-k", "3", "--json", "--no-abstain"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert any("used BM25 alone" in note for note in payload["notes"])
    assert payload["sources"][0]["doc_id"] == "wax.md"
    fakes([REPLY])
    shown = CliRunner().invoke(
        fakes.app, ["ask", QUESTION, "--index", str(index), "-k", "3", "--no-abstain"]
    )
    assert shown.exit_code == 0, shown.output
    assert "used BM25 alone" in flat(shown.stderr)
    # with abstention, the default threshold is the one BM25 search computes: top_support
    fakes([])
    abstained = json.loads(
        CliRunner()
        .invoke(fakes.app, ["ask", WEAK, "--index", str(index), "-k", "3", "--json"])
        .stdout
    )
    assert abstained["abstention"]["signal"] == "top_support"


REPAIRABLE = "Beeswax is made by workers [2]. Beeswax melts when heated."
#: The scripted model's research questions for each claim of REPAIRABLE: the rule-based ones.
QUESTIONS = [
    "\n".join(rule_questions(claim))
    for claim in ("Beeswax is made by workers.", "Beeswax melts when heated.")
]


def test_ask_repair_deletes_what_the_index_does_not_support(index, fakes):
    fakes(
        [REPAIRABLE, *QUESTIONS],
        scorer=PhraseScorer({"Beeswax melts when heated.": "melts at about"}),
    )
    result = fakes.ask(index, "--repair", "--policy", "delete", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    repair = payload["repair"]
    assert repair["original"] == payload["text"] == REPAIRABLE
    assert repair["text"] == "Beeswax melts when heated."
    assert [c["action"] for c in repair["claims"]] == ["deleted", "kept"]


def test_ask_repair_shows_the_diff(index, fakes):
    fakes(
        [REPAIRABLE, *QUESTIONS],
        scorer=PhraseScorer({"Beeswax melts when heated.": "melts at about"}),
    )
    result = fakes.ask(index, "--repair", "--policy", "delete")
    assert result.exit_code == 0, result.output
    assert "[-Beeswax is made by workers [2]. -]Beeswax melts when heated." in flat(result.output)


def test_ask_rerank_gives_the_model_the_reranked_passages(index: Path) -> None:
    from veracity.testing import OverlapRelevanceScorer

    reranker = OverlapRelevanceScorer()
    chat = ScriptedChatModel(["Beeswax melts at about 63 degrees. [1]"], model_id="scripted")
    app = cli.build_app(
        cli.Models(
            verifier=lambda name: PhraseScorer(PHRASES),
            chat=lambda spec, model: chat,
            reranker=lambda name: reranker,
        )
    )
    result = CliRunner().invoke(
        app,
        [
            "ask",
            QUESTION,
            "--index",
            str(index),
            "--mode",
            "bm25",
            "-k",
            "1",
            "--no-abstain",
            "--rerank",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert reranker.calls
    assert reranker.calls[0] >= 1
    (source,) = payload["sources"]
    assert source["doc_id"] == "wax.md"
    assert {"rerank", "first_stage_rank"} <= set(source["scores"])
    assert payload["sentences"][0]["status"] == "supported"


def test_an_answer_cut_at_the_token_limit_says_so(index, fakes):
    # Harden-2 #15: an answer cut at max_tokens (finish reason "length") read as finished
    fakes.chat = ScriptedChatModel([REPLY, REPLY], model_id="scripted-llm", finish_reason="length")
    result = fakes.ask(index)
    assert result.exit_code == 0, result.output
    assert (
        "the answer was cut: the model stopped at its limit of 512 tokens (finish reason length)"
    ) in flat(result.output)
    payload = json.loads(fakes.ask(index, "--json").stdout)
    assert payload["truncated"] is True
    assert payload["provenance"]["finish_reason"] == "length"
    fakes([REPLY])
    assert "the answer was cut" not in flat(fakes.ask(index).output)
