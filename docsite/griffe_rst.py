"""A griffe extension: the reStructuredText that gamedyn's docstrings use, shown as the site's Markdown.

numpydoc docstrings are reStructuredText; mkdocstrings renders docstrings as Markdown. Before the
numpydoc parser reads a docstring, this rewrites (outside fenced code):

* ``:math:`x``` -> ``\\(x\\)`` and a ``.. math::`` block -> a ``$$ ... $$`` block (KaTeX renders both);
* ``:func:`~a.b``` and the other Python roles -> a link to the object's page when the site has it
  (an *optional* autorefs reference: plain code when it does not);
* a doctest (``>>>`` lines and their output) outside an ``Examples`` section -> a ``pycon`` block
  (Markdown would read ``>>>`` as nested quotes and ``[...]`` output as links).

mkdocs.yml names it under the python handler's ``extensions``.
"""

from __future__ import annotations

import html
import re

import griffe

ROLE = re.compile(r":(?:py:)?(func|class|meth|mod|attr|data|obj|exc|const)?:`(~?)([^`<]+?)(?:\s*<([^>]+)>)?`")
MATH_ROLE = re.compile(r":math:`([^`]+)`")
SECTION = re.compile(r"^([A-Z][A-Za-z ]+)\n-{3,}\s*$", re.MULTILINE)


def _role(match: re.Match) -> str:
    kind, short, text, target = match.groups()
    if kind is None and target is None:  # `x` with no role: rst's default role, shown as code
        return f"`{text}`"
    identifier = (target or text).strip().lstrip("~.")
    title = identifier.rsplit(".", 1)[-1] if short else (text.strip() if target else identifier)
    return (f'<autoref identifier="{html.escape(identifier)}" optional>'
            f"<code>{html.escape(title)}</code></autoref>")


def _inline(line: str) -> str:
    line = MATH_ROLE.sub(lambda match: "\\(" + match.group(1) + "\\)", line)
    # roles only: plain `x` in Markdown is already code, and ``x`` too
    return ROLE.sub(lambda match: _role(match) if match.group(1) or match.group(4) else match.group(0), line)


def rewrite(text: str) -> str:
    """The docstring ``text`` with its rst math, roles and bare doctests in the site's Markdown."""
    lines = text.split("\n")
    out: list[str] = []
    prose: list[str] = []  # normal lines, rewritten together (a role may wrap onto the next line)

    def flush():
        if prose:
            out.extend(_inline("\n".join(prose)).split("\n"))
            prose.clear()

    section = ""
    fence = None
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if fence is not None:  # inside a fenced block: copy
            out.append(line)
            if stripped.startswith(fence):
                fence = None
            i += 1
            continue
        if stripped.startswith(("```", "~~~")):
            flush()
            fence = stripped[:3]
            out.append(line)
            i += 1
            continue
        if i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1].strip()) and stripped:
            section = stripped.lower()
        if stripped.startswith(".. math::"):
            flush()
            inline = stripped[len(".. math::"):].strip()
            block = [inline] if inline else []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(indent + " ")):
                block.append(lines[i].strip())
                i += 1
            while block and not block[-1]:
                block.pop()
            while block and not block[0]:
                block.pop(0)
            out += [indent + "$$", *(indent + row for row in block if row), indent + "$$", ""]
            continue
        if stripped.startswith(">>>") and section not in ("examples",):
            flush()
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].strip())
                i += 1
            out += [indent + "```pycon", *(indent + row for row in block), indent + "```"]
            continue
        if stripped.startswith(".. ") and "::" in stripped:  # another directive (note, seealso, ...): its text
            flush()
            name = stripped[3:].split("::", 1)[0].strip()
            out.append(indent + f"**{name.capitalize()}:** " + _inline(stripped.split("::", 1)[1].strip()))
            i += 1
            continue
        prose.append(line)
        i += 1
    flush()
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    """Rewrite every docstring once the tree is built (see :func:`rewrite`)."""

    def on_object(self, *, obj, loader, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)

    def on_package(self, *, pkg, loader, **kwargs) -> None:  # a top package is no on_object event
        self.on_object(obj=pkg, loader=loader)
