"""An MkDocs hook: the command-line reference, written from the commands themselves.

At build time it walks the click command tree typer makes of `lmmreview.tui.cli.app` and
puts each command's usage, help and options where docs/cli.md holds the marker, so the
page never disagrees with `--help`. It reads only `lmmreview.tui.cli`'s `app`, which stays
there whether tui/cli is one module or a package.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from typing import Any

MARKER = "<!-- the commands, generated -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """docs/cli.md with the generated reference in place of its marker."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, "\n".join(reference()))


def reference() -> list[str]:
    """The Markdown of every command, in the order `lmmreview --help` lists them."""
    import typer

    from lmmreview.tui.cli import app

    root = typer.main.get_command(app)
    context = root.context_class(root, info_name="lmmreview", **root.context_settings)
    lines = _section(root, context)
    for command, ctx in _walk(root, context):
        lines += _section(command, ctx)
    return lines


def _walk(command: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
    """Each command below `command` with its context, depth first; groups before theirs."""
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        sub_ctx = sub.context_class(sub, info_name=name, parent=ctx, **sub.context_settings)
        yield sub, sub_ctx
        if hasattr(sub, "list_commands"):  # a group (typer may carry its own click)
            yield from _walk(sub, sub_ctx)


def _section(command: Any, ctx: Any) -> list[str]:
    """One command: a heading, its usage, its help, and tables of its arguments and options."""
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    lines = [f"## `{ctx.command_path}`", "", "```text", usage, "```", ""]
    lines += [_help_text(command, ctx), ""]
    params = command.get_params(ctx)
    for kind in ("argument", "option"):
        records = [
            record
            for p in params
            if p.param_type_name == kind and (record := p.get_help_record(ctx))
        ]
        if records:
            lines += [f"| {kind} | what it does |", "|---|---|"]
            # a code span keeps its `|` (the table does not split there): not escaped
            lines += [f"| `{' '.join(names.split())}` | {_cell(text)} |" for names, text in records]
            lines.append("")
    return lines


def _help_text(command: Any, ctx: Any) -> str:
    """The help text as `--help` writes it, the command's own additions included (export
    lists every installed benchmark's official formats), as Markdown paragraphs."""
    formatter = ctx.make_formatter()
    command.format_help_text(ctx, formatter)
    return _plain(textwrap.dedent(formatter.getvalue()))


def _plain(text: str) -> str:
    """Help text as Markdown paragraphs: click's `\\b` marks (keep as written) dropped and
    the lines of each paragraph kept apart, as `--help` shows them."""
    paragraphs = [p.replace("\b\n", "") for p in text.strip().split("\n\n")]
    return "\n\n".join("  \n".join(p.splitlines()) for p in paragraphs)


def _cell(text: str) -> str:
    """Text for a table cell: one line, its `|` escaped, code spans left alone."""
    return " ".join(text.split()).replace("|", "\\|")
