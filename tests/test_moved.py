"""Old names kept for one release: they give the same objects as the new ones, warn with the new
name, and no code of the repository uses them any more (see README.md, "What moved")."""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from pathlib import Path

import pytest

from veracity.errors import GenerationError
from veracity.llm.base import ChatRequest, Message

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[1]

#: Every module of the old ``veracity.verifiers`` room, now in ``veracity.checkers``.
VERIFIER_MODULES = (
    "base",
    "combiner",
    "embedded",
    "features",
    "hf",
    "judge",
    "registry",
    "remote_code",
    "scoring",
    "seq2seq",
    "similarity",
    "spans",
    "windowed",
    "windows",
)


def _fresh(monkeypatch: pytest.MonkeyPatch, old: str) -> None:
    """Forget ``old`` and its submodules (restored after the test), so importing it warns again."""
    for name in [n for n in sys.modules if n == old or n.startswith(f"{old}.")]:
        monkeypatch.delitem(sys.modules, name)


def _public(module: object) -> list[str]:
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    return list(names)


def test_the_old_verifiers_package_is_the_checkers(monkeypatch: pytest.MonkeyPatch) -> None:
    import veracity.checkers

    _fresh(monkeypatch, "veracity.verifiers")
    with pytest.warns(
        DeprecationWarning, match=r"veracity\.verifiers has moved to veracity\.checkers;"
    ):
        old = importlib.import_module("veracity.verifiers")
    assert old.__all__ == veracity.checkers.__all__
    for name in veracity.checkers.__all__:
        assert getattr(old, name) is getattr(veracity.checkers, name), name
    with pytest.warns(DeprecationWarning, match=r"veracity\.checkers\.windows;"):
        assert (
            old.windows.EvidenceSelector
            is importlib.import_module("veracity.checkers.windows").EvidenceSelector
        )


@pytest.mark.parametrize("module", VERIFIER_MODULES)
def test_every_old_verifiers_module_gives_the_checkers_objects(
    monkeypatch: pytest.MonkeyPatch, module: str
) -> None:
    new = importlib.import_module(f"veracity.checkers.{module}")
    with warnings.catch_warnings():  # the package's own warning is tested above
        warnings.simplefilter("ignore", DeprecationWarning)
        importlib.import_module("veracity.verifiers")
    _fresh(monkeypatch, f"veracity.verifiers.{module}")
    pattern = rf"veracity\.verifiers\.{module} has moved to veracity\.checkers\.{module};"
    with pytest.warns(DeprecationWarning, match=pattern):
        old = importlib.import_module(f"veracity.verifiers.{module}")
    names = _public(new)
    assert names
    for name in names:
        assert getattr(old, name) is getattr(new, name), name
    # a name outside __all__, even a private one, is the new module's too
    private = next((n for n in vars(new) if n.startswith("_") and not n.startswith("__")), None)
    if private is not None:
        assert getattr(old, private) is getattr(new, private)
    namespace: dict[str, object] = {}
    exec(f"from veracity.verifiers.{module} import {names[0]}", namespace)
    assert namespace[names[0]] is getattr(new, names[0])


def test_the_old_chat_module_gives_the_chat_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    import veracity.generate
    import veracity.llm.registry

    _fresh(monkeypatch, "veracity.generate.chat")
    pattern = r"veracity\.generate\.chat has moved to veracity\.llm\.registry;"
    with pytest.warns(DeprecationWarning, match=pattern):
        old = importlib.import_module("veracity.generate.chat")
    assert old.__all__ == veracity.llm.registry.__all__
    for name in old.__all__:
        assert getattr(old, name) is getattr(veracity.llm.registry, name), name
        assert getattr(veracity.generate, name) is getattr(veracity.llm.registry, name), name
    assert old.make_chat("extractive").model_id == "extractive"


@pytest.mark.parametrize("module", ["veracity.llm", "veracity.llm.extractive"])
def test_extractive_chat_is_the_extractive_replier_under_its_old_name(module: str) -> None:
    from veracity.llm.extractive import ExtractiveReplier

    found = importlib.import_module(module)
    pattern = rf"{module}\.ExtractiveChat has moved to {module}\.ExtractiveReplier;"
    with pytest.warns(DeprecationWarning, match=pattern):
        old = found.ExtractiveChat
    assert old is ExtractiveReplier
    namespace: dict[str, object] = {}
    with pytest.warns(DeprecationWarning, match=pattern):
        exec(f"from {module} import ExtractiveChat", namespace)
    assert namespace["ExtractiveChat"] is ExtractiveReplier
    assert "ExtractiveChat" not in found.__all__
    with pytest.raises(AttributeError, match="ExtractiveNothing"):
        found.ExtractiveNothing  # noqa: B018
    # the registry name, the model id and the user-facing words are those of before
    replier = ExtractiveReplier()
    assert replier.model_id == "extractive"
    with pytest.raises(GenerationError, match=r"^the extractive model answers the last user"):
        replier.run(ChatRequest(messages=(Message("system", "Be brief."),)))


#: The old names; only this file and the old names' own homes may still use them.
OLD_MODULES = ("veracity.verifiers", "veracity.generate.chat")
OLD_CLASSES = ("ExtractiveChat",)
PACKAGE = REPO / "src" / "veracity"
OLD_HOMES = (
    PACKAGE / "verifiers",
    PACKAGE / "generate" / "chat.py",
    PACKAGE / "llm" / "__init__.py",
    PACKAGE / "llm" / "extractive.py",
)


def _old_names_used(tree: ast.AST) -> set[str]:
    """The old modules this code imports and the old class names it reads."""
    found: set[str] = set()
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            found.update(alias.name for alias in node.names if alias.name in OLD_CLASSES)
        elif isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in OLD_CLASSES:
                found.add(name)
        found.update(
            m for m in modules if any(m == old or m.startswith(f"{old}.") for old in OLD_MODULES)
        )
    return found


def test_the_scan_finds_old_names() -> None:
    code = (
        "from veracity import verifiers\nimport veracity.verifiers.base\n"
        "from veracity.generate.chat import make_chat\n"
        "from veracity.llm import ExtractiveChat\nveracity.llm.ExtractiveChat()\n"
        "from veracity.generate import make_chat, chat_like\n"
    )
    assert _old_names_used(ast.parse(code)) == {
        "veracity.verifiers",
        "veracity.verifiers.base",
        "veracity.generate.chat",
        "veracity.generate.chat.make_chat",
        "ExtractiveChat",
    }


def test_no_code_of_the_repository_uses_an_old_name() -> None:
    users = {}
    for folder in ("src", "tests", "bench"):
        for path in sorted((REPO / folder).rglob("*.py")):
            if path == Path(__file__).resolve() or any(
                path == home or home in path.parents for home in OLD_HOMES
            ):
                continue
            used = _old_names_used(ast.parse(path.read_text(encoding="utf-8")))
            if used:
                users[str(path.relative_to(REPO))] = sorted(used)
    assert users == {}
