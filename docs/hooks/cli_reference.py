"""MkDocs hook: the CLI reference page (``cli.md``), rendered from the Typer app at build time.

Every command's ``--help`` is written as the plain (not Rich) text that ``veracity COMMAND
--help`` prints at 100 columns, so the page can never drift from the code: nothing in it is typed
by hand. :func:`render` is what the hook adds to the site; a test calls it too.
"""

from __future__ import annotations

from typing import Any

PAGE = "cli.md"
WIDTH = 100

_INTRO = """# CLI reference

Generated at build time from the `veracity` command itself (`veracity.cli.app`): each section is
what `veracity COMMAND --help` prints. The guides explain what the options do; exit codes are
`0` success, `1` partial success (some inputs failed and are reported, the rest was done) and `2`
failure (nothing was done: a bad option, a missing index, unreadable input).
"""


def _help(command: Any, name: str, parent: Any) -> str:
    from typer._click import Context  # typer 0.2x carries its own copy of click

    # rich_markup_mode None makes a Typer command format its help as plain click text.
    if hasattr(command, "rich_markup_mode"):
        command.rich_markup_mode = None
    context = Context(command, info_name=name, parent=parent, terminal_width=WIDTH,
                      max_content_width=WIDTH)
    return str(command.get_help(context)).rstrip()


def render() -> str:
    """The Markdown of the CLI reference: the group's help, then one section per command."""
    import typer
    from typer._click import Context

    from veracity.cli import app

    group = typer.main.get_command(app)
    root = Context(group, info_name="veracity", terminal_width=WIDTH, max_content_width=WIDTH)
    parts = [_INTRO, "```text", _help(group, "veracity", None), "```", ""]
    for name in group.list_commands(root):  # type: ignore[attr-defined]
        command = group.get_command(root, name)  # type: ignore[attr-defined]
        if command is None or command.hidden:
            continue
        parts += [f"## `veracity {name}`", "", "```text", _help(command, name, root), "```", ""]
    parts += ["## Data builders", "",
              "The training data builders are Python modules (see [Training](training.md)).", ""]
    for title, module in DATA_BUILDERS:
        parts += [f"### `python -m {title}`", "", "```text", _argparse_help(module), "```", ""]
    return "\n".join(parts)


#: The data builders, plain argparse modules run with ``python -m``.
DATA_BUILDERS = (("veracity_training.data", "veracity_training.data.__main__"),
                 ("veracity_training.data.rerank", "veracity_training.data.rerank"),
                 ("veracity_training.data.pairs", "veracity_training.data.pairs"))


def _argparse_help(module_name: str) -> str:
    import contextlib
    import importlib
    import io
    import os

    module = importlib.import_module(module_name)
    out, columns = io.StringIO(), os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)  # argparse wraps to $COLUMNS
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            module.main(["--help"])
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return out.getvalue().rstrip()


def on_config(config: Any) -> Any:
    """Render this checkout's command, not whichever veracity the environment installed."""
    import sys
    from pathlib import Path

    source = str(Path(config.config_file_path).resolve().parent / "src")
    if source not in sys.path:
        sys.path.insert(0, source)
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=render()))
    return files
