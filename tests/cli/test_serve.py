"""``veracity serve`` refuses to start where it would be unsafe or useless, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli

pytestmark = pytest.mark.unit

runner = CliRunner()


def test_another_address_than_loopback_without_a_token_does_not_start(tmp_path: Path) -> None:
    result = runner.invoke(
        cli.app,
        ["serve", "--index", str(tmp_path), "--host", "0.0.0.0"],
        terminal_width=200,
        env={"VERACITY_TOKEN": ""},
    )
    assert result.exit_code == 2
    assert (
        "--host '0.0.0.0' is not allowed: a loopback address (127.0.0.1, ::1, localhost) "
        "unless a token is given. Start it with --token T" in " ".join(result.output.split())
    )


def test_a_missing_index_does_not_start(tmp_path: Path) -> None:
    result = runner.invoke(
        cli.app, ["serve", "--index", str(tmp_path / "none")], terminal_width=200
    )
    assert result.exit_code == 2
    assert "no index at" in result.output


def test_a_short_token_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(
        cli.app, ["serve", "--index", str(tmp_path), "--token", "abc"], terminal_width=200
    )
    assert result.exit_code == 2
    assert "--token '***' is not allowed: at least 8 characters" in result.output


def test_an_allowed_host_with_a_scheme_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(
        cli.app,
        [
            "serve",
            "--index",
            str(tmp_path),
            "--allowed-host",
            "box.local",
            "--allowed-host",
            "http://box.local",
        ],
        terminal_width=200,
    )
    assert result.exit_code == 2
    assert "--allowed-host 'http://box.local' is not allowed: a host name or address" in " ".join(
        result.output.split()
    )


def test_a_budget_below_one_is_refused(tmp_path: Path) -> None:
    for flag, shown, least in (
        ("--max-claims", "0", "1"),
        ("--max-pairs", "0", "1"),
        ("--time-limit", "0.0", "0.1"),
        ("--body-time-limit", "0.0", "0.1"),
    ):
        result = runner.invoke(
            cli.app, ["serve", "--index", str(tmp_path), flag, "0"], terminal_width=200
        )
        assert result.exit_code == 2
        assert f"{flag} {shown} is not allowed: a number of {least} or more" in result.output
