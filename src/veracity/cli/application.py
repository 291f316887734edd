"""The ``veracity`` application: the Typer app and what every command shares.

:func:`build_app` makes the app from :class:`~veracity.models.Models` (the factories of the
verifier, the chat model and the reranker, which tests replace with fakes); the exit codes;
:func:`fail`, which prints an error with the library's option names spelt as the command's
flags; :func:`emit_json`; and the reading of a value that is either text or a file name.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn, Protocol, TypeVar

import typer

from veracity import defaults
from veracity._json import strict_json
from veracity.cli.render import errors, show, styled
from veracity.config import PipelineConfig
from veracity.errors import InputError, OptionError, VeracityError
from veracity.models import VERIFIERS, Models

try:  # typer 0.2x carries its own copy of click
    from typer._click.core import ParameterSource
except ImportError:  # pragma: no cover - older typer
    from click.core import ParameterSource  # type: ignore[assignment,no-redef,unused-ignore]

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_PARTIAL",
    "ConfigOption",
    "IndexOption",
    "IndexSearchOption",
    "Models",
    "VerifierOption",
    "answer_option",
    "build_app",
    "choice_list",
    "cli_names",
    "command_config",
    "emit_json",
    "exit_with",
    "fail",
    "looks_like_path",
    "main",
    "models_of",
    "more_sources",
    "read_document_or_text",
    "read_saved",
    "read_text_or_file",
    "run_and_show",
    "saved_answer",
    "sources_option",
    "strict_json",
]

#: Exit codes: success; partial success (some inputs failed, the rest was done); failure
#: (nothing was done: bad options, missing index, unreadable input).
EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_FAILED = 2


def choice_list(choices: Sequence[str]) -> str:
    """``choices`` for a help text, from the registry or ``Literal`` that defines them.

    >>> choice_list(("bm25", "dense", "hybrid")), choice_list(("claim",))
    ('bm25, dense or hybrid', 'claim')
    """
    return choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"


#: Options several commands share, declared once (each command gives the default).
VerifierOption = Annotated[
    str,
    typer.Option(
        help=choice_list((*VERIFIERS, "hf:<model>", "seq2seq:<model>", "hf-code:<model>"))
    ),
]
IndexSearchOption = Annotated[
    str, typer.Option("--mode", help=f"index search: {choice_list(defaults.SEARCH_MODES)}")
]
IndexOption = Annotated[
    Path | None, typer.Option("--index", help="index folder to retrieve evidence from")
]


def answer_option(verb: str) -> Any:
    """``--answer`` of a command that does ``verb`` to an answer (``check``, ``repair``)."""
    return typer.Option(
        help=f"the answer to {verb}: a file, the text itself, or - for standard input"
    )


def sources_option(verb: str) -> Any:
    """``--sources`` of a command that does ``verb`` against them (``check``, ``repair``)."""
    return typer.Option(
        "--sources",
        help=f"source files or folders to {verb} against (txt, md, html, pdf, "
        "jsonl): --sources A B C, or --sources A --sources B",
    )


def models_of(ctx: typer.Context) -> Models:
    """The factories of the running app (see :func:`build_app`)."""
    found = ctx.find_object(Models)
    return found if found is not None else Models()


#: Library option names that a command spells otherwise (``Chunker(size=...)`` is
#: ``--chunk-tokens``); any other name that is one of the command's options is spelt as its flag.
_LIBRARY_NAMES = {
    "index": {"size": "chunk_tokens", "address": "ray_address"},
    "calibrate": {"hits": "k"},
    "verify": {"chat": "llm", "claims": "llm_claims", "index": "index_dir"},
    "repair": {"chat": "llm", "index": "index_dir"},
    "search": {"depth": "rerank_depth"},
    "ask": {"depth": "rerank_depth"},
    "serve": {"depth": "rerank_depth"},
    "verify-batch": {"address": "ray_address", "by": "report_by"},
}


def cli_names() -> dict[str, str]:
    """The current command's flags by library option name, e.g. ``{"k": "-k"}``."""
    try:  # typer 0.2x carries its own copy of click
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - older typer
        from click import get_current_context  # type: ignore[no-redef,unused-ignore]

    context = get_current_context(silent=True)
    if context is None:
        return {}
    flags = {
        param.name: param.opts[0]
        for param in context.command.params
        if param.param_type_name == "option" and param.name and param.opts
    }
    names = dict(flags)
    for library, option in _LIBRARY_NAMES.get(context.info_name or "", {}).items():
        if option in flags:
            names[library] = flags[option]
    return names


def fail(exc: Exception) -> typer.Exit:
    """Print an error the user can act on and return the failure exit.

    An option error names the option as the user typed it (``--chunk-tokens 0``), not as the
    Python API spells it (``size=0``).
    """
    message = exc.message(cli_names()) if isinstance(exc, OptionError) else str(exc)
    show(styled("error:", "bold red"), f" {message}", out=errors)
    return typer.Exit(EXIT_FAILED)


def emit_json(payload: Any, *, indent: int | None = 2) -> None:
    """``payload`` as strict JSON: a non-finite number (the scores of a pair that could not be
    scored, whose ``error`` says why) is written ``null``, never ``NaN``, which most JSON readers
    reject and which would read as a score."""
    sys.stdout.write(strict_json(payload, indent=indent) + "\n")


class _Reportable(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=_Reportable)


def run_and_show(work: Callable[[], R], printer: Callable[[R], None], *, as_json: bool) -> None:
    """Run ``work``; print its result as JSON (``--json``) or with ``printer``.

    A :class:`~veracity.errors.VeracityError` from ``work`` becomes the failure exit.
    """
    try:
        result = work()
    except VeracityError as exc:
        raise fail(exc) from exc
    if as_json:
        emit_json(result.to_dict())
        return
    printer(result)


def exit_with(result: R, code: int, printer: Callable[[R], None], *, as_json: bool) -> NoReturn:
    """Print ``result`` as JSON with its ``exit_code`` (``--json``) or with ``printer``, and
    exit with ``code``."""
    if as_json:
        emit_json(result.to_dict() | {"exit_code": code})
    else:
        printer(result)
    raise typer.Exit(code)


#: Extensions of the files veracity reads; a value ending in one is taken for a file name.
_FILE_SUFFIXES = (
    ".txt",
    ".md",
    ".markdown",
    ".html",
    ".htm",
    ".pdf",
    ".jsonl",
    ".json",
    ".csv",
    ".text",
    ".rst",
)


def looks_like_path(value: str) -> bool:
    """Whether ``value`` reads as a file name rather than text: one word that ends in a file
    extension veracity reads, or starts like a path (``/``, ``./``, ``../``, ``~/``).

    >>> looks_like_path("examples/answer_to_chek.md"), looks_like_path("Bees dance.")
    (True, False)
    >>> looks_like_path("TCP/IP"), looks_like_path("./notes")
    (False, True)
    """
    word = value.strip()
    if not word or any(character.isspace() for character in word):
        return False
    return word.lower().endswith(_FILE_SUFFIXES) or word.startswith(("/", "./", "../", "~/"))


def _named_file(value: str, option: str) -> Path | None:
    """The file ``value`` names, or ``None`` when ``value`` is text (see
    :func:`read_text_or_file`)."""
    if len(value) >= 4096 or "\n" in value or "\0" in value:
        return None
    path = Path(value).expanduser()
    try:
        exists, is_dir, is_file = path.exists(), path.is_dir(), path.is_file()
    except OSError:  # a name too long to be a file
        exists = is_dir = is_file = False
    if looks_like_path(value):
        if not exists:
            from veracity.corpus.loaders import link_problem

            if (loop := link_problem(path)) is not None:
                raise InputError(f"{option} {loop}")
            raise InputError(
                f"{option} {value}: no such file (the current folder is {Path.cwd()}); check "
                f"the name, or to check this text itself write it in a file and give that"
            )
        if is_dir:
            raise InputError(f"{option} {value}: is a folder; give a file")
    elif not is_file:
        return None
    return path


def read_text_or_file(value: str, option: str) -> str:
    """The text of the file ``value`` names, or ``value`` itself when it is text.

    ``-`` reads standard input. A value that looks like a file name (see
    :func:`looks_like_path`) but names no readable file is an error, never checked as text.
    """
    if value == "-":
        return sys.stdin.read()
    path = _named_file(value, option)
    if path is None:
        return value
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{option} {value}: cannot read it as UTF-8 text ({exc})") from exc


def read_document_or_text(value: str, option: str) -> str:
    """Like :func:`read_text_or_file`, but a file of a format ``veracity index`` reads is read
    as it reads it (the text of an HTML page without its markup, a PDF's pages, ...) and must
    hold one document; a file of another extension is read as UTF-8 text."""
    from veracity.corpus.loaders import LOADERS, load_file

    path = None if value == "-" else _named_file(value, option)
    if path is None or path.suffix.lower() not in LOADERS:
        return read_text_or_file(value, option)
    loaded = load_file(path)
    if loaded.failures:
        raise loaded.failures[0]
    if len(loaded.documents) != 1:
        raise InputError(
            f"{option} {value}: holds {len(loaded.documents)} documents; give a "
            "file with one (check --batch FILE.jsonl scores many pairs)"
        )
    return loaded.documents[0].text


def more_sources(
    sources: list[Path] | None, extra: list[str], *, command: str
) -> list[Path] | None:
    """``--sources A B C``: the words after ``--sources`` that are no option are sources too."""
    if extra and not sources:
        raise InputError(
            f"unexpected argument {extra[0]!r}: give files to check against with "
            f"--sources {' '.join(extra)}"
        )
    unknown = [word for word in extra if word.startswith("-") and word != "-"]
    if unknown:
        raise InputError(f"no such option: {unknown[0]} (see veracity {command} --help)")
    return None if sources is None else [*sources, *map(Path, extra)]


C = TypeVar("C", bound=PipelineConfig)

#: ``--config``: a saved config, or any output that carries one, to run again.
ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="run as a saved config says: a JSON config, or the --json output of an earlier run "
        "(its top-level config); options given here override it",
    ),
]


def read_saved(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` (a config, or an output that carries one)."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"--config {path}: cannot read it as JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise InputError(f"--config {path}: holds no JSON object; give a config or a report")
    return data


def command_config(
    ctx: typer.Context, kind: type[C], saved: Mapping[str, Any] | None, options: Mapping[str, Any]
) -> C:
    """The config a command runs: ``saved`` (read from ``--config``: a config, or an output
    whose top-level ``config`` is one) with the options given on the command line set over it,
    or, without one, every option as given or defaulted. ``options`` maps each option's
    parameter name to ``(config option name, value)``."""
    given = dict(options)
    base = kind()
    if saved is not None:
        base = kind.from_dict(saved.get("config", saved))
        given = {
            name: option
            for name, option in options.items()
            if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE
        }
        # the evidence is one choice: a command line's --sources replaces a saved --index
        for group in _TOGETHER:
            if any(name in given for name in group):
                given |= {name: options[name] for name in group if name in options}
    return base.with_options(**dict(given.values()))


#: Options that a command line sets together over a saved config.
_TOGETHER = (("sources", "index_dir"), ("sources_field", "index_dir"))


def saved_answer(
    answer: str | None, question: str | None, saved: Mapping[str, Any] | None, *, verb: str
) -> tuple[str, str | None]:
    """The answer and question of ``--answer`` and ``--question``, else of the output that
    ``--config`` read (a report's ``answer``, a repair's ``original``, and its ``question``)."""
    saved = saved or {}
    if question is None and isinstance(saved.get("question"), str):
        question = saved["question"]
    if answer is not None:
        return read_text_or_file(answer, "--answer"), question
    for field in ("answer", "original"):
        if isinstance(saved.get(field), str):
            return saved[field], question
    raise InputError(
        f"--answer is needed: the answer to {verb} (a file, the text itself, or - for standard "
        "input), unless --config names an earlier output, whose answer is used again"
    )


def _root() -> None:
    """Grounded answers with checkable citations, and claim verification, offline on a CPU."""


def build_app(models: Models | None = None) -> typer.Typer:
    """The ``veracity`` command with its models made by ``models`` (default: the real ones).

    Every command reads the factories from its context (``ctx.obj``), so tests and other
    front ends pass fakes in here instead of replacing module globals:

    >>> from typer.testing import CliRunner
    >>> from veracity.testing import TablePairScorer
    >>> app = build_app(Models(verifier=lambda name: TablePairScorer({})))
    >>> CliRunner().invoke(app, ["check", "--premise", "Bees dance.", "--claim", "Bees sing.",
    ...                          "--json"]).exit_code
    0
    """
    app = typer.Typer(
        name="veracity",
        help="Grounded answers with checkable citations, and claim verification, offline on a CPU.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # help text is shown as written: "[hf]", "[n]" stay
        context_settings={"obj": models or Models()},
    )
    # The command modules import this one (fail, the exit codes), so they come in here, once
    # this module is complete.
    from veracity.cli import (
        ask,
        check,
        evolve,
        index,
        plugins,
        repair,
        report,
        search,
        serve,
        verify,
        verify_batch,
    )

    app.callback()(_root)
    app.command("index")(index.index)
    app.command("search")(search.search)
    app.command("check")(check.check)
    # The training package's commands (entry points of veracity.commands), or how to get them.
    plugins.add_commands(app)
    app.command("ask")(ask.ask)
    app.command("calibrate")(ask.calibrate_command)
    app.command("evolve")(evolve.evolve)
    app.command("verify", context_settings={"allow_extra_args": True})(verify.verify_command)
    app.command("verify-batch")(verify_batch.verify_batch_command)
    app.command("report")(report.report_command)
    app.command("serve")(serve.serve)
    app.command("repair", context_settings={"allow_extra_args": True})(repair.repair_command)
    return app


def main() -> None:
    """The ``veracity`` command (the console script)."""
    build_app()()
