import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity.cli import app

pytestmark = pytest.mark.integration
runner = CliRunner()


def test_check_one_pair_as_json() -> None:
    result = runner.invoke(
        app,
        [
            "check",
            "--premise",
            "Paris is the capital of France.",
            "--claim",
            "France's capital is Paris.",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["label"] == "supported"
    assert payload["probabilities"] is True
    assert payload["evidence"][0]["text"] == "Paris is the capital of France."


def test_check_with_a_similarity_scorer_gives_no_label() -> None:
    pair = [
        "check",
        "--premise",
        "Marie Curie died in 1934.",
        "--claim",
        "Curie passed away in 1934.",
        "--verifier",
        "align",
    ]
    result = runner.invoke(app, pair)
    assert result.exit_code == 0, result.output
    assert "not a probability" in result.stdout
    assert "supported" not in result.stdout
    payload = json.loads(runner.invoke(app, [*pair, "--json"]).stdout)
    assert payload["label"] is None
    assert payload["probabilities"] is False
    assert 0.5 < payload["supported"] <= 1.0


def test_check_batch_reports_bad_lines_and_exits_partial(tmp_path: Path) -> None:
    batch = tmp_path / "pairs.jsonl"
    batch.write_text(
        json.dumps({"id": "a", "premise": "Bees have six legs.", "claim": "Bees have six legs."})
        + "\n{not json}\n"
        + json.dumps({"id": "b", "premise": "Bees have six legs.", "claim": "Bees have 8 legs."})
        + "\n"
    )
    result = runner.invoke(app, ["check", "--batch", str(batch), "--verifier", "lexical"])
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [row["id"] for row in rows] == ["a", "b"]
    assert rows[0]["supported"] > rows[1]["supported"]
    assert rows[0]["label"] is None  # lexical coverage is a similarity
    assert "pairs.jsonl:2" in result.stderr


def test_unknown_verifier_lists_the_choices() -> None:
    result = runner.invoke(app, ["check", "--premise", "x.", "--claim", "y.", "--verifier", "nope"])
    assert result.exit_code == 2
    assert "embedded" in result.stderr
    assert "hf:<model>" in result.stderr


def test_a_pair_that_cannot_be_scored_is_an_error_in_valid_json(tmp_path: Path) -> None:
    from veracity.cli import Models, build_app
    from veracity.testing import FailingPairScorer

    app = build_app(Models(verifier=lambda name: FailingPairScorer("the judge replied 'maybe'")))
    result = runner.invoke(
        app, ["check", "--premise", "Bees dance.", "--claim", "Bees dance.", "--json"]
    )
    assert result.exit_code == 1
    payload = json.loads(result.stdout, parse_constant=lambda name: pytest.fail(name))
    assert (payload["label"], payload["supported"]) == ("error", None)
    assert payload["error"] == "the judge replied 'maybe'"
    shown = runner.invoke(app, ["check", "--premise", "Bees dance.", "--claim", "Bees dance."])
    assert shown.exit_code == 1
    assert "not scored" in shown.stdout
    batch = tmp_path / "pairs.jsonl"
    batch.write_text(json.dumps({"id": "a", "premise": "x.", "claim": "y."}) + "\n")
    lines = runner.invoke(app, ["check", "--batch", str(batch)])
    assert lines.exit_code == 1
    row = json.loads(lines.stdout.splitlines()[0], parse_constant=lambda name: pytest.fail(name))
    assert (row["id"], row["supported"], row["error"]) == ("a", None, "the judge replied 'maybe'")
