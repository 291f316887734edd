"""The rooms of src/veracity import only what docs/architecture.md's layer table allows.

The table is read from the page itself, so the page and the code cannot disagree: a room the
table does not name, an import it does not allow, an allowed import no longer used, or a row that
lets a room import one in its own layer or above fails a test here.

Every import is read from the source (those inside functions too), except imports under
``if TYPE_CHECKING:``, which never run.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "veracity"
ARCHITECTURE = REPO / "docs" / "architecture.md"
_HEADER = re.compile(r"^\|\s*layer\s*\|\s*room\s*\|\s*may import")
_NAME = re.compile(r"`([^`]+)`")
_PICTURE = re.compile(r"^layer (\d+) │(.*)$")


@dataclass(frozen=True)
class Row:
    layer: int
    rooms: frozenset[str]
    allowed: frozenset[str]


def _room_name(written: str) -> str:
    """``text/`` -> ``text``, ``errors.py`` -> ``errors``; checks the kind against the package."""
    if written.endswith("/"):
        name = written[:-1]
        assert (PACKAGE / name / "__init__.py").is_file(), f"{written}: no such package"
    elif written.endswith(".py"):
        name = written[:-3]
        assert (PACKAGE / written).is_file(), f"{written}: no such module"
    else:
        raise AssertionError(f"{written!r}: write a folder as `name/` and a module as `name.py`")
    return name


def _table() -> list[Row]:
    """The rows of the layer table on the architecture page."""
    lines = ARCHITECTURE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if _HEADER.match(line))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        layer, rooms, allowed = (cell.strip() for cell in line.strip().strip("|").split("|"))
        rows.append(
            Row(
                int(layer),
                frozenset(_room_name(n) for n in _NAME.findall(rooms)),
                frozenset(_room_name(n) for n in _NAME.findall(allowed)),
            )
        )
    return rows


TABLE = _table()
#: The foundation: layer 0, open to every room; its modules may import one another.
FOUNDATION = frozenset().union(*(row.rooms for row in TABLE if row.layer == 0))
LAYER = {room: row.layer for row in TABLE for room in row.rooms}
ALLOWED = {room: row.allowed for row in TABLE for room in row.rooms}


def _rooms_on_disk() -> set[str]:
    """Every package directly under src/veracity and every module there (``__init__`` too)."""
    return {path.stem for path in PACKAGE.glob("*.py")} | {
        path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()
    }


def _runtime_imports(tree: ast.AST) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "veracity":  # from veracity import defaults, __version__
                found.update(f"veracity.{alias.name}" for alias in node.names)
            else:
                found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _room_of(module: str) -> str | None:
    """The room ``module`` belongs to; a name of the package root itself is ``__init__``."""
    parts = module.split(".")
    if parts[0] != "veracity":
        return None
    if len(parts) == 1 or not (
        (PACKAGE / f"{parts[1]}.py").is_file() or (PACKAGE / parts[1] / "__init__.py").is_file()
    ):
        return "__init__"
    return parts[1]


def _files(room: str) -> list[Path]:
    folder = PACKAGE / room
    if (folder / "__init__.py").is_file():
        return sorted(folder.rglob("*.py"))
    return [PACKAGE / f"{room}.py"]


@functools.cache  # parsed once per run: several tests read every file
def _tree(file: Path) -> ast.AST:
    return ast.parse(file.read_text(encoding="utf-8"))


@functools.cache  # read once per run: several tests ask for every room
def _imports(room: str) -> dict[str, set[str]]:
    """Every module of ``room`` and the other veracity rooms it imports at run time."""
    found = {}
    for file in _files(room):
        tree = _tree(file)
        rooms = {_room_of(name) for name in _runtime_imports(tree)} - {None, room}
        found[str(file.relative_to(PACKAGE))] = {r for r in rooms if r is not None}
    return found


def test_the_table_names_every_room_once() -> None:
    named = [room for row in TABLE for room in row.rooms]
    assert len(named) == len(set(named)), "a room is in two rows of the layer table"
    missing = _rooms_on_disk() - set(named)
    assert not missing, (
        f"{sorted(missing)} not in the layer table of docs/architecture.md: "
        "give each new room a row (its layer and what it may import)"
    )
    assert set(named) == _rooms_on_disk()


def test_the_table_points_down_only() -> None:
    upward = {
        room: sorted(other for other in ALLOWED[room] if LAYER[other] >= LAYER[room])
        for room in LAYER
        if room not in FOUNDATION
    }
    assert {room: found for room, found in upward.items() if found} == {}
    assert all(row.allowed == frozenset() for row in TABLE if row.layer == 0)


def test_the_picture_shows_the_layers_of_the_table() -> None:
    picture: dict[str, int] = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        if match := _PICTURE.match(line):
            names = re.findall(r"\S+", match.group(2))
            picture |= {_room_name(name): int(match.group(1)) for name in names}
    assert picture == LAYER


@pytest.mark.parametrize("room", sorted(LAYER))
def test_a_room_imports_only_what_the_table_allows(room: str) -> None:
    allowed = FOUNDATION | ALLOWED[room]
    crossing = {
        module: sorted(rooms - allowed)
        for module, rooms in _imports(room).items()
        if rooms - allowed
    }
    assert crossing == {}, (
        f"{room} imports rooms the layer table of docs/architecture.md does "
        "not allow; import from a lower room, or move the code"
    )


@pytest.mark.parametrize("room", sorted(set(LAYER) - FOUNDATION))
def test_every_import_the_table_allows_is_used(room: str) -> None:
    used = set().union(*_imports(room).values()) - FOUNDATION
    assert used == ALLOWED[room], (
        f"the layer table says {room} imports "
        f"{sorted(ALLOWED[room])}; it imports {sorted(used)}: update "
        "its row in docs/architecture.md"
    )


def test_no_module_uses_a_relative_import() -> None:
    """The guard reads absolute imports only; a relative one would slip past it."""
    relative = [
        str(file.relative_to(PACKAGE))
        for file in sorted(PACKAGE.rglob("*.py"))
        if any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(_tree(file)))
    ]
    assert relative == []


def test_generate_and_verify_do_not_import_each_other() -> None:
    assert {m: r for m, r in _imports("generate").items() if "verify" in r} == {}
    assert {m: r for m, r in _imports("verify").items() if "generate" in r} == {}


def test_the_models_rules_and_answer_text_rooms_exist_with_their_modules() -> None:
    """Every network sits in ``models/`` by what it is, the knowledge checks in ``rules/``,
    and the answer-text helpers in ``text/``; the shims of earlier moves are gone."""
    models = {
        p.relative_to(PACKAGE / "models").as_posix() for p in (PACKAGE / "models").rglob("*.py")
    }
    assert {
        "factories.py",
        "embedding.py",
        "pairs/base.py",
        "pairs/shipped.py",
        "pairs/hf.py",
        "pairs/judge.py",
        "pairs/similarity.py",
        "pairs/windows.py",
        "pairs/combiner.py",
        "pairs/registry.py",
        "pairs/scoring.py",
        "relevance/base.py",
        "relevance/shipped.py",
        "relevance/registry.py",
        "chat/base.py",
        "chat/registry.py",
        "onnx/runtime.py",
        "onnx/rowwise.py",
    } <= models
    rules = {p.stem for p in (PACKAGE / "rules").glob("*.py")}
    assert {"layer", "values", "tokens", "entities", "kb", "polarity"} <= rules
    text = {p.stem for p in (PACKAGE / "text").glob("*.py")}
    assert {"citations", "segment", "factual", "refusal", "sentences", "words", "grammar"} <= text
    gone = ("verifiers", "checkers", "rerankers", "llm", "embed.py", "_moved.py", "_onnx.py")
    assert [name for name in gone if (PACKAGE / name).exists()] == []
    assert not (PACKAGE / "verify" / "knowledge").exists()
    assert not (PACKAGE / "verify" / "base.py").exists()


def test_the_guard_sees_an_import_inside_a_function() -> None:
    tree = ast.parse(
        "def f():\n    from veracity.verify import x\n"
        "if TYPE_CHECKING:\n    from veracity.generate import y\n"
    )
    assert _runtime_imports(tree) == {"veracity.verify"}


def test_the_guard_sees_a_module_imported_from_the_package_root() -> None:
    tree = ast.parse("from veracity import defaults, __version__\nimport veracity\n")
    rooms = {_room_of(name) for name in _runtime_imports(tree)}
    assert rooms == {"defaults", "__init__"}


def _importers_of(target: str, *, besides: tuple[str, ...] = ()) -> dict[str, set[str]]:
    crossing: dict[str, set[str]] = {}
    for room in sorted(_rooms_on_disk() - {target, *besides}):
        crossing |= {module: found for module, found in _imports(room).items() if target in found}
    return crossing


def test_only_the_cli_and_the_service_import_batch() -> None:
    """verify-batch and large-corpus indexing stand on verify and corpus (DESIGN.md); only the
    CLI (and the service) sit above it."""
    assert _importers_of("batch", besides=("cli", "server")) == {}


def test_nothing_below_the_cli_imports_it() -> None:
    """``to_dict()`` and every result stand on their own: the CLI is an adapter over them.

    The service is the other adapter: it takes its model factories (``veracity.models``) and
    the index's search and abstainer (``generate.open``) from the library, never from the CLI."""
    assert _importers_of("cli") == {}
    assert not (PACKAGE / "cli.py").exists()
    assert not (PACKAGE / "render.py").exists()


def test_only_the_cli_imports_evolve() -> None:
    assert _importers_of("evolve", besides=("cli",)) == {}


def test_nothing_imports_the_adapters() -> None:
    """The adapters (pytest, LangChain, LlamaIndex, Haystack) sit on top, beside the CLI and
    the service: they convert types and call the library, and nothing below uses them."""
    assert _importers_of("adapters") == {}
    assert _imports("adapters")  # the room exists and was read


def _imports_training(tree: ast.AST) -> bool:
    """Whether ``tree`` imports ``veracity_training`` anywhere, TYPE_CHECKING blocks included."""
    names = [
        name
        for node in ast.walk(tree)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    ]
    return any(name.split(".")[0] == "veracity_training" for name in names)


def test_no_module_imports_the_training_package() -> None:
    """Training (training/, ``veracity_training``) depends on the library, never the reverse:
    the runtime package runs without it."""
    importers = [
        str(file.relative_to(PACKAGE))
        for file in sorted(PACKAGE.rglob("*.py"))
        if _imports_training(_tree(file))
    ]
    assert importers == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import veracity_training.trainer\n", True),
        ("def f():\n    from veracity_training.data import build\n", True),
        ("if TYPE_CHECKING:\n    from veracity_training import cli\n", True),
        ("import veracity.train_x\nfrom veracity_trainingx import y\n", False),
    ],
)
def test_the_training_guard_sees_every_import_of_it(source: str, found: bool) -> None:
    assert _imports_training(ast.parse(source)) is found
