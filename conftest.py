"""Every test carries exactly one of the ``unit`` and ``integration`` markers.

``make test-unit`` selects ``-m unit``: a test with neither marker would silently never run
there, so collection fails on one, naming it. The docstring examples of ``src/veracity`` (run
with ``--doctest-modules``) are unit tests.
"""

from __future__ import annotations

import pytest

KINDS = ("unit", "integration")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, pytest.DoctestItem):
            item.add_marker(pytest.mark.unit)
    unmarked = [item.nodeid for item in items
                if sum(item.get_closest_marker(kind) is not None for kind in KINDS) != 1]
    if unmarked:
        listed = "\n  ".join(unmarked[:20])
        raise pytest.UsageError(
            f"{len(unmarked)} test(s) carry neither or both of the markers unit and integration "
            f"(add `pytestmark = pytest.mark.unit` or `integration` to the file):\n  {listed}")
