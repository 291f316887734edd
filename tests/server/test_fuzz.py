"""Fuzz the API from its own OpenAPI schema (schemathesis), a bounded run on fake models:
no request makes the server fail (5xx) or hang past the time limit."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

schemathesis = pytest.importorskip("schemathesis", reason="install the [dev] extra")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from veracity.server.app import create_app  # noqa: E402

from .conftest import settings_for  # noqa: E402

EXAMPLES_PER_OPERATION = 12


def test_no_request_makes_the_server_fail(index_dir: Path) -> None:
    # the fuzzer's client names the server "testserver"
    app = create_app(settings_for(index_dir, seconds=10, allowed_hosts=("testserver",)))
    app.state.service.load()  # what the lifespan does; the fuzzer's client may not run it
    schema = schemathesis.openapi.from_asgi("/v1/openapi.json", app)
    failures: list[str] = []
    tried = 0
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def fuzz(case) -> None:  # type: ignore[no-untyped-def]
            nonlocal tried
            tried += 1
            response = case.call(timeout=30)
            if response.status_code >= 500 and response.status_code != 501:
                failures.append(
                    f"{case.method} {case.formatted_path} -> "
                    f"{response.status_code}: {response.text[:200]}"
                )

        fuzz()
    assert tried >= 10
    assert failures == []
