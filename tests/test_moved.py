"""Old names kept for one release: they give the same objects as the new ones, warn with the new
name, and no code of the repository uses them any more (see README.md, "What moved")."""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from pathlib import Path

import pytest

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


#: The old names, as imports of them look; ``tests/test_moved.py`` (this file) and the old homes
#: themselves are the only code that may still name them.
OLD_MODULES = ("veracity.verifiers", "veracity.generate.chat")


def _imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _uses_an_old_module(name: str) -> bool:
    return any(name == old or name.startswith(f"{old}.") for old in OLD_MODULES)


def test_no_code_of_the_repository_imports_an_old_name() -> None:
    old_homes = {
        REPO / "src" / "veracity" / "verifiers",
        REPO / "src" / "veracity" / "generate" / "chat.py",
    }
    users = []
    for folder in ("src", "tests", "bench"):
        for path in sorted((REPO / folder).rglob("*.py")):
            if (
                path == Path(__file__).resolve()
                or path in old_homes
                or old_homes & set(path.parents)
            ):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            if any(_uses_an_old_module(name) for name in _imported_modules(tree)):
                users.append(str(path.relative_to(REPO)))
    assert users == []
