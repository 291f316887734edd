"""What you see is what was checked: invisible characters in a claim or its evidence.

A bidi control reorders what a text shows (``"\\u202eTERCES\\u202c"`` shows as "SECRET"), and a
zero-width or other format character hides between letters; the verifier reads the characters,
a reviewer sees the shown form. The page shows each such character as a mark (never applied),
and every verify report of the service flags a claim whose text, or a passage read for it,
holds one: the claim gets ``invisible`` (each character's offset in the claim's text, code point
and name; and the passages by chunk id) and the report a warning.

>>> invisible("pass \\u202eTERCES\\u202c")
[{'offset': 5, 'char': 'U+202E', 'name': 'RIGHT-TO-LEFT OVERRIDE'}, {'offset': 12, \
'char': 'U+202C', 'name': 'POP DIRECTIONAL FORMATTING'}]
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = ["INVISIBLE", "flag_report", "invisible"]

#: Format characters (bidi controls, zero-width, tags, ...) and the blank fillers that show as
#: nothing; the page's ``INVISIBLE`` (static/app.js) is the same set.
_FILLERS = "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
INVISIBLE = re.compile(f"[{_FILLERS}]")


def _is_invisible(char: str) -> bool:
    return unicodedata.category(char) == "Cf" or INVISIBLE.match(char) is not None


def invisible(text: str) -> list[dict[str, Any]]:
    """The invisible characters of ``text``: offset (code points), code point and name."""
    return [
        {"offset": at, "char": f"U+{ord(char):04X}", "name": unicodedata.name(char, "")}
        for at, char in enumerate(text)
        if _is_invisible(char)
    ]


def flag_report(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` (a ``Report`` dict) with every claim that holds, or was checked against a
    passage that holds, an invisible character flagged (see the module docstring)."""
    flagged = []
    for claim in report.get("claims", ()):
        found = invisible(str(claim.get("text", "")))
        passages = sorted(
            {
                str(passage.get("chunk_id"))
                for key in ("evidence", "citations", "anti_citations")
                for passage in claim.get(key, ()) or ()
                if isinstance(passage, dict) and invisible(str(passage.get("text", "")))
            }
        )
        if found or passages:
            claim["invisible"] = {"characters": found, "passages": passages}
            flagged.append(claim)
    if flagged:
        names = sorted(
            {item["char"] for claim in flagged for item in claim["invisible"]["characters"]}
        )
        report.setdefault("warnings", []).append(
            f"{len(flagged)} of {len(report['claims'])} claims hold invisible characters or were "
            f"checked against passages that do ({', '.join(names) or 'in the passages'}): what a "
            "reader sees differs from what was checked (the page shows them as marks); "
            "see each claim's invisible"
        )
    return report
