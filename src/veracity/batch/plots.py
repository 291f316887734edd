"""The batch overview's plots, drawn by matplotlib (extra ``[report]``) as inline SVG.

Text stays text (``svg.fonttype: none``: no glyph outlines, a few kilobytes a plot), ids are
fixed by a salt so the same batch gives the same page, and nothing is global: each plot is a
``Figure`` of its own under ``rc_context``, never ``pyplot``. Labels drawn from user data are
never read as mathtext (``$`` is a dollar sign), and matplotlib escapes them as XML.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from veracity._deps import require

__all__ = ["label_bars", "support_histogram"]

_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "veracity",
    "text.parse_math": False,
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
#: What matplotlib writes before the <svg> element and the metadata it would date.
_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.S)
_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}
_LABEL_CHARS = 40


def _matplotlib() -> Any:
    return require("matplotlib", extra="report", purpose="the batch overview's plots")


def _svg(figure: Any, label: str) -> str:
    """``figure`` as an ``<svg>`` element to put inside HTML, scaled to its container."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    FigureCanvasSVG(figure)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata=_METADATA)
    svg = _PROLOGUE.sub("", buffer.getvalue(), count=1)
    from html import escape

    return svg.replace("<svg ", f'<svg role="img" aria-label="{escape(label)}" ', 1)


def support_histogram(counts: Sequence[int], edges: Sequence[float], *, colour: str) -> str:
    """Claims per bin of support (``edges`` over [0, 1], one more than ``counts``)."""
    matplotlib = _matplotlib()
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        figure = Figure(figsize=(7.0, 2.4), layout="constrained")
        axes = figure.add_subplot()
        widths = [right - left for left, right in itertools.pairwise(edges)]
        axes.bar(
            list(edges[:-1]),
            list(counts),
            width=widths,
            align="edge",
            color=colour,
            edgecolor="white",
            linewidth=0.5,
        )
        axes.set_xlim(0.0, 1.0)
        axes.set_xlabel("support: P(supported) of the claim's evidence (NLI layer)")
        axes.set_ylabel("claims")
        return _svg(figure, f"histogram of claim support, {sum(counts)} claims")


def label_bars(
    rows: Sequence[tuple[str, Mapping[str, int]]],
    labels: Sequence[str],
    colours: Mapping[str, str],
    *,
    title: str,
) -> str:
    """One horizontal bar per row, split by the share of each label among its claims."""
    matplotlib = _matplotlib()
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

    with matplotlib.rc_context(_RC):
        figure = Figure(figsize=(7.0, 0.9 + 0.28 * max(len(rows), 1)), layout="constrained")
        axes = figure.add_subplot()
        positions = list(range(len(rows)))
        totals = [max(sum(counts.get(label, 0) for label in labels), 1) for _, counts in rows]
        left = [0.0] * len(rows)
        for label in labels:
            shares = [
                counts.get(label, 0) / total
                for (_, counts), total in zip(rows, totals, strict=True)
            ]
            axes.barh(
                positions,
                shares,
                left=left,
                color=colours.get(label, "#999999"),
                label=label,
                height=0.7,
            )
            left = [a + b for a, b in zip(left, shares, strict=True)]
        names = [_short(name) for name, _ in rows]
        axes.set_yticks(positions, labels=names)
        for tick in axes.get_yticklabels():
            tick.set_parse_math(False)
        axes.invert_yaxis()
        axes.set_xlim(0.0, 1.0)
        axes.xaxis.set_major_formatter(PercentFormatter(1.0))
        axes.set_xlabel("share of the claims")
        figure.legend(loc="outside upper center", ncols=len(labels), frameon=False)
        return _svg(figure, title)


def _short(name: str) -> str:
    flat = " ".join(name.split())
    return flat if len(flat) <= _LABEL_CHARS else flat[: _LABEL_CHARS - 1] + "…"
