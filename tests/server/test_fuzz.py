"""Fuzz the API from its own OpenAPI schema (schemathesis), a bounded run on fake models:
no request makes the server fail (5xx) or hang past the time limit.

Integration tests: each run sends some two hundred generated requests (seconds), far past a
unit test's time; the unit tests of tests/server cover each limit and error on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

schemathesis = pytest.importorskip("schemathesis", reason="install the [dev] extra")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402

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
        def fuzz(case) -> None:
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


def test_every_answer_is_one_the_api_description_declares(index_dir: Path) -> None:
    """Valid and invalid requests (schemathesis' positive and negative data) against the
    description the server publishes at /openapi.json: every status is declared for its
    operation, every JSON body matches its declared schema (errors as ``ErrorBody``), and
    invalid data is refused. Before, a 422 came as ``{"error": ...}`` while FastAPI's
    ``{detail: [...]}`` was declared, and no 401 or 408 was declared at all."""
    from schemathesis.checks import not_a_server_error
    from schemathesis.generation import GenerationMode
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        negative_data_rejection,
        response_schema_conformance,
        status_code_conformance,
    )

    app = create_app(settings_for(index_dir, seconds=10, allowed_hosts=("testserver",)))
    app.state.service.load()
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    checks = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
        negative_data_rejection,
    ]
    failures: list[str] = []
    tried = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(
                max_examples=EXAMPLES_PER_OPERATION // 2,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            def fuzz(case) -> None:
                nonlocal tried
                tried += 1
                response = case.call(timeout=30)
                try:
                    case.validate_response(response, checks=checks)
                except Exception as error:  # schemathesis' failures (a group of them)
                    failures.append(
                        f"{case.method} {case.formatted_path} -> "
                        f"{response.status_code}: {str(error)[:300]}"
                    )

            try:
                fuzz()
            except Unsatisfiable:  # no invalid request exists (GET /v1/health has no input)
                continue
    assert tried >= 20
    assert failures == []
