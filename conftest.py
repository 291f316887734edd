"""Every test carries exactly one of the ``unit`` and ``integration`` markers, and a unit test
is fast.

``make test-unit`` selects ``-m unit``: a test with neither marker would silently never run
there, so collection fails on one, naming it. The docstring examples of ``src/veracity`` (run
with ``--doctest-modules``) are unit tests.

A unit test's call should take under :data:`UNIT_SECONDS`; one over it is listed at the end of
the run, and one over :func:`unit_limit` (a wide margin, wider on a loaded machine) fails.
"""

from __future__ import annotations

from typing import Any

import pytest

KINDS = ("unit", "integration")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, pytest.DoctestItem):
            item.add_marker(pytest.mark.unit)
    unmarked = [
        item.nodeid
        for item in items
        if sum(item.get_closest_marker(kind) is not None for kind in KINDS) != 1
    ]
    if unmarked:
        listed = "\n  ".join(unmarked[:20])
        raise pytest.UsageError(
            f"{len(unmarked)} test(s) carry neither or both of the markers unit and integration "
            f"(add `pytestmark = pytest.mark.unit` or `integration` to the file):\n  {listed}"
        )


#: A unit test's own time (its call, not the fixtures it shares) must stay under this many
#: seconds on an idle machine...
UNIT_SECONDS = 1.0
#: ...and fails past this many times that, scaled up further by the machine's load (the
#: one-minute load average per core, when above 1): a 2-core machine at load 6 allows 12 s. The
#: margin keeps a busy machine from failing a test that is fast alone; what it catches is a
#: unit test that sleeps, loads a real model, or builds a real index in its body. The
#: environment variable VERACITY_UNIT_MARGIN sets another margin (a slow CI runner).
UNIT_MARGIN = 4.0


#: (seconds, test) of the unit tests over UNIT_SECONDS in this run.
SLOW_UNITS: list[tuple[float, str]] = []


def unit_limit() -> float:
    """Seconds a unit test's call may take on this machine now."""
    import os

    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # pragma: no cover - no load average on this platform
        load = 1.0
    margin = float(os.environ.get("VERACITY_UNIT_MARGIN", UNIT_MARGIN))
    return UNIT_SECONDS * margin * max(1.0, load)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.when != "call" or not report.passed or item.get_closest_marker("unit") is None:
        return
    if report.duration > UNIT_SECONDS:
        SLOW_UNITS.append((report.duration, item.nodeid))
    limit = unit_limit()
    if report.duration > limit:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} is marked unit and took {report.duration:.1f} s, over the limit of "
            f"{limit:.1f} s (the goal of {UNIT_SECONDS:g} s with a margin for a busy machine): "
            "share its fixtures at module or session scope, give it smaller "
            "inputs or fakes, or mark it integration when it needs a real model or server"
        )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SLOW_UNITS:
        terminalreporter.section(f"unit tests over {UNIT_SECONDS:g} s (the goal)")
        for seconds, nodeid in sorted(SLOW_UNITS, reverse=True):
            terminalreporter.write_line(f"{seconds:6.2f}s {nodeid}")
