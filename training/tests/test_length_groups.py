"""Length groups: short pairs train in short batches, every row still seen once per epoch."""

from __future__ import annotations

import pytest

from veracity_training.rows import Row, length_grouped

pytestmark = pytest.mark.unit


def test_length_groups_keep_every_row_and_batch_rows_of_a_length() -> None:
    rows = [Row("p" * (10 * (i % 7) + 1), "claim", 0) for i in range(64)]
    order = list(range(64))
    grouped = length_grouped(order, rows, batch_size=4, groups=8, seed=13, max_tokens=128)
    assert sorted(grouped) == order
    assert grouped == length_grouped(order, rows, batch_size=4, groups=8, seed=13, max_tokens=128)
    for first in range(0, 32, 4):  # inside one span: each batch is a run of sorted lengths
        lengths = [len(rows[i].premise) for i in grouped[first : first + 4]]
        assert max(lengths) - min(lengths) <= 10
    assert {i for i in grouped[:32]} == set(range(32))  # rows stay in their span
