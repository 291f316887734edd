import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity.cli import app

pytestmark = pytest.mark.integration
runner = CliRunner()


def test_check_one_pair_as_json() -> None:
    result = runner.invoke(app, ["check", "--premise", "Paris is the capital of France.",
                                 "--claim", "France's capital is Paris.", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["label"] == "supported"
    assert payload["probabilities"] is True
    assert payload["evidence"][0]["text"] == "Paris is the capital of France."


def test_check_with_a_similarity_scorer_gives_no_label() -> None:
    pair = ["check", "--premise", "Marie Curie died in 1934.", "--claim",
            "Curie passed away in 1934.", "--verifier", "align"]
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
        + "\n")
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
