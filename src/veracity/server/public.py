"""What a response may show of the server's files: one rule, applied to every response body.

The index and the documents live in files on the server, and the library names them where a
person at the terminal needs them: a hit's ``source`` is the file its document was read from,
and notes and messages name the index folder ("no calibration was made for /srv/idx; ...").
A client of the service is not that person. :class:`Public` is applied to every JSON body and
every streamed event the service sends, errors included:

1. a ``source`` that is a path is cut to its file name (``/home/me/corpus/bees.md`` ->
   ``bees.md``; ``faq.jsonl:12`` keeps its line);
2. in the service's own messages (the values of :data:`MESSAGE_KEYS`, and the ``index`` that a
   response's config names), the index folder's path is cut to the folder's name
   (``/srv/veracity/idx/gen-2`` -> ``idx/gen-2``), and so is the private view through which a
   generation is opened (:meth:`Public.add_views`: ``/tmp/veracity-serve-x/gen-2`` -> ``idx``).

Texts (a document's, an answer's, a passage's) are content and are never changed: citations'
offsets index them.

>>> public = Public("/srv/veracity/idx")
>>> public({"hits": [{"doc_id": "bees.md", "source": "/home/me/corpus/bees.md"}],
...         "notes": ["the index at /srv/veracity/idx/gen-2 has no dense vectors"]})
{'hits': [{'doc_id': 'bees.md', 'source': 'bees.md'}], 'notes': ['the index at idx/gen-2 has \
no dense vectors']}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["MESSAGE_KEYS", "Public"]

#: Keys whose string values are the library's or the service's own words, never user text
#: (``index``: the index folder a response's config names).
MESSAGE_KEYS = frozenset(
    {
        "detail",
        "error",
        "failure",
        "index",
        "message",
        "note",
        "notes",
        "reason",
        "source",
        "warnings",
    }
)
_ABSOLUTE = re.compile(r"^(?:[/\\~]|[A-Za-z]:[/\\])")


class Public:
    """The response body a client may see (see the module docstring)."""

    def __init__(self, index: str | Path) -> None:
        given = Path(index)
        folders = {str(given.absolute()), str(given.resolve())}
        self.folders = sorted(folders, key=len, reverse=True)  # the longer form first
        self.name = given.resolve().name
        self.views: list[re.Pattern[str]] = []

    def add_views(self, folder: str | Path) -> None:
        """Name every folder within ``folder`` (a generation's view, :mod:`veracity.server.live`)
        as the index folder."""
        for form in sorted({str(Path(folder).absolute()), str(Path(folder).resolve())}, key=len):
            self.views.insert(0, re.compile(re.escape(form) + r"[/\\][\w.-]+"))

    def __call__(self, payload: Any) -> Any:
        return self._walk(payload, message=False)

    def _walk(self, value: Any, *, message: bool) -> Any:
        if isinstance(value, dict):
            return {key: self._entry(key, item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self._walk(item, message=message) for item in value]
        if isinstance(value, str) and message:
            return self._message(value)
        return value

    def _entry(self, key: Any, value: Any) -> Any:
        if key == "source" and isinstance(value, str) and _ABSOLUTE.match(value):
            return re.split(r"[/\\]", value)[-1]
        return self._walk(value, message=key in MESSAGE_KEYS)

    def _message(self, text: str) -> str:
        for view in self.views:
            text = view.sub(lambda _: self.name, text)
        for folder in self.folders:
            text = text.replace(folder, self.name)
        return text
