"""Versioned prompts, stored as JSON files next to this module.

Each file ``<id>.json`` holds ``id``, ``version``, ``system``, ``user`` (a template whose
``{name}`` fields are filled by :meth:`ChatPrompt.render`), ``reply_format`` (what the model is
asked to reply, in words) and optionally ``labels`` (the reply labels the prompt asks for) and
``targets`` (for a published judge's own labels, what each one means).
Changing a prompt's wording means a new ``version`` (or a new file), so results stay traceable.

>>> prompt = load_prompt("judge_v1")
>>> prompt.ref
'judge_v1@1'
>>> prompt.fields
('premise', 'claim')
"""

from __future__ import annotations

import functools
import json
import string
from dataclasses import dataclass
from importlib import resources
from typing import Any

from veracity.errors import OptionError

__all__ = ["ChatPrompt", "available", "load_prompt"]


@dataclass(frozen=True, slots=True)
class ChatPrompt:
    """A system message and a user template, with the id and version that identify them."""

    id: str
    version: int
    system: str
    user: str
    reply_format: str
    labels: tuple[str, ...] = ()
    #: For a published judge's own labels: what each means, as (label, target) pairs with
    #: targets ``supported``, ``contradicted`` or ``neither`` (see veracity.models.pairs.judge).
    targets: tuple[tuple[str, str], ...] = ()

    @property
    def ref(self) -> str:
        """``id@version``, the short form recorded as provenance."""
        return f"{self.id}@{self.version}"

    @property
    def fields(self) -> tuple[str, ...]:
        """The ``{name}`` fields of the user template, in order of first use."""
        names: list[str] = []
        for _, name, _, _ in string.Formatter().parse(self.user):
            if name is not None and name not in names:
                names.append(name)
        return tuple(names)

    def render(self, **values: str) -> str:
        """The user message with every field filled; braces inside ``values`` are kept as is."""
        missing = [name for name in self.fields if name not in values]
        extra = [name for name in values if name not in self.fields]
        if missing or extra:
            raise OptionError(
                "fields",
                sorted(values),
                f"exactly {', '.join(self.fields)}",
                f"Prompt {self.ref} takes those fields; got missing={missing}, unknown={extra}.",
            )
        return self.user.format_map(values)


def available() -> tuple[str, ...]:
    """Ids of the prompts that ship with veracity."""
    folder = resources.files(__name__)
    return tuple(
        sorted(
            entry.name[: -len(".json")]
            for entry in folder.iterdir()
            if entry.name.endswith(".json")
        )
    )


@functools.lru_cache(maxsize=32)
def load_prompt(prompt_id: str) -> ChatPrompt:
    """The shipped prompt ``prompt_id`` (see :func:`available`)."""
    names = available()
    if prompt_id not in names:
        raise OptionError(
            "prompt",
            prompt_id,
            f"one of {', '.join(names)}",
            "Pass the id of a shipped prompt (without .json).",
        )
    data: dict[str, Any] = json.loads(
        resources.files(__name__).joinpath(f"{prompt_id}.json").read_text(encoding="utf-8")
    )
    prompt = ChatPrompt(
        id=str(data["id"]),
        version=int(data["version"]),
        system=str(data["system"]),
        user=str(data["user"]),
        reply_format=str(data["reply_format"]),
        labels=tuple(str(label) for label in data.get("labels", ())),
        targets=tuple(
            (str(label), str(target)) for label, target in dict(data.get("targets", {})).items()
        ),
    )
    if prompt.id != prompt_id:  # pragma: no cover - guards a packaging mistake
        raise OptionError("prompt", prompt_id, f"a file whose id matches (it says {prompt.id!r})")
    return prompt
