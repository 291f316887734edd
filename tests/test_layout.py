"""The rooms of src/veracity import only the rooms below them (DESIGN.md, "Layout").

Every import is read from the source (those inside functions too), except imports under
``if TYPE_CHECKING:``, which never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "veracity"
#: Modules every room may use: results, errors, defaults and shipped files.
BASE = {"types", "errors", "defaults", "assets", "_deps", "_onnx", "_rowwise", "_json"}
#: What each low room may import (beyond itself and BASE).
ALLOWED = {
    "text": set(),
    "verifiers": {"text", "llm", "prompts", "embed"},
    "rerankers": {"verifiers", "text", "llm", "prompts", "embed"},
    "llm": {"text", "prompts"},
    # DESIGN.md: evolve uses generate (the evolved answer gets ask's citation checks) and
    # verify (the claim pipeline's decontextualizer reads its sentences on their own).
    "evolve": {"generate", "verify", "rerankers", "verifiers", "llm", "prompts", "text",
               "embed"},
}


def _runtime_imports(tree: ast.AST) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _room_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "veracity" and len(parts) > 1 else None


def _imports(room: str) -> dict[str, set[str]]:
    """Every module of ``room`` and the veracity rooms it imports at run time."""
    folder = PACKAGE / room
    files = sorted(folder.rglob("*.py")) if folder.is_dir() else [PACKAGE / f"{room}.py"]
    found = {}
    for file in files:
        tree = ast.parse(file.read_text(encoding="utf-8"))
        rooms = {_room_of(name) for name in _runtime_imports(tree)} - {None, room}
        found[str(file.relative_to(PACKAGE))] = {r for r in rooms if r is not None}
    return found


@pytest.mark.parametrize("room", sorted(ALLOWED))
def test_a_low_room_imports_nothing_above_it(room: str) -> None:
    allowed = BASE | ALLOWED[room]
    crossing = {module: sorted(rooms - allowed) for module, rooms in _imports(room).items()
                if rooms - allowed}
    assert crossing == {}


def test_generate_and_verify_do_not_import_each_other() -> None:
    assert {m: r for m, r in _imports("generate").items() if "verify" in r} == {}
    assert {m: r for m, r in _imports("verify").items() if "generate" in r} == {}


def test_repair_uses_only_the_rooms_below_it() -> None:
    allowed = BASE | {"verify", "retrieve", "llm", "text", "verifiers", "prompts", "corpus",
                      "embed", "repair"}
    assert {m: sorted(r - allowed) for m, r in _imports("repair").items() if r - allowed} == {}


def test_batch_uses_only_the_rooms_below_it() -> None:
    """verify-batch and large-corpus indexing stand on verify and corpus (DESIGN.md), and on
    what those stand on; only the CLI (and the service) sit above it."""
    allowed = BASE | {"verify", "corpus", "retrieve", "verifiers", "embed", "text", "llm",
                      "prompts", "batch"}
    assert {m: sorted(r - allowed) for m, r in _imports("batch").items() if r - allowed} == {}
    rooms = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()
             if (path.suffix == ".py" or path.is_dir())
             and path.name not in ("cli", "server", "batch", "__pycache__")}
    crossing: dict[str, set[str]] = {}
    for room in sorted(rooms):
        crossing |= {module: found for module, found in _imports(room).items()
                     if "batch" in found}
    assert crossing == {}


def test_the_pair_verifiers_and_answer_text_rooms_exist_with_their_modules() -> None:
    verifiers = {p.stem for p in (PACKAGE / "verifiers").glob("*.py")}
    assert {"base", "embedded", "hf", "judge", "similarity", "windows", "combiner",
            "registry", "scoring"} <= verifiers
    text = {p.stem for p in (PACKAGE / "text").glob("*.py")}
    assert {"citations", "segment", "factual", "refusal", "sentences", "words"} <= text
    assert not (PACKAGE / "verify" / "base.py").exists()


def test_the_guard_sees_an_import_inside_a_function() -> None:
    tree = ast.parse("def f():\n    from veracity.verify import x\n"
                     "if TYPE_CHECKING:\n    from veracity.generate import y\n")
    assert _runtime_imports(tree) == {"veracity.verify"}


def test_nothing_below_the_cli_imports_it() -> None:
    """``to_dict()`` and every result stand on their own: the CLI is an adapter over them.

    The service is the other adapter: it takes its model factories (``veracity.models``) and
    the index's abstainer (``generate.calibration``) from the library, never from the CLI."""
    rooms = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()
             if (path.suffix == ".py" or path.is_dir())
             and path.name not in ("cli", "__pycache__")}
    crossing: dict[str, set[str]] = {}
    for room in sorted(rooms):
        crossing |= {module: found for module, found in _imports(room).items() if "cli" in found}
    assert crossing == {}
    assert not (PACKAGE / "cli.py").exists()
    assert not (PACKAGE / "render.py").exists()


def test_only_the_cli_imports_evolve() -> None:
    rooms = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()
             if (path.suffix == ".py" or path.is_dir())
             and path.name not in ("cli", "evolve", "__pycache__")}
    crossing: dict[str, set[str]] = {}
    for room in sorted(rooms):
        crossing |= {module: found for module, found in _imports(room).items()
                     if "evolve" in found}
    assert crossing == {}


def test_nothing_imports_the_adapters() -> None:
    """The adapters (pytest, LangChain, LlamaIndex, Haystack) sit on top, beside the CLI and
    the service: they convert types and call the library, and nothing below uses them."""
    rooms = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()
             if (path.suffix == ".py" or path.is_dir())
             and path.name not in ("adapters", "__pycache__")}
    crossing: dict[str, set[str]] = {}
    for room in sorted(rooms):
        crossing |= {module: found for module, found in _imports(room).items()
                     if "adapters" in found}
    assert crossing == {}
    assert _imports("adapters")  # the room exists and was read
