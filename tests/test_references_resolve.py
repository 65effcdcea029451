"""Every name and path the text of the repository cites still exists.

Read: every git-tracked Markdown page (README, docs), the docstrings and comments of every
``.py`` file, the Markdown cells and code comments of the notebooks, ``setup.cfg`` and
``pyproject.toml``. Extracted: every dotted ``noisefloor.x.y`` / ``harness.x.y`` name and every
``noisefloor/...py``, ``harness/...py``, ``tests/...py``, ``benchmarks/...py``, ``docs/...md`` and
``notebooks/...`` path. A path must be a file of the repository; a dotted name must be a module,
or an attribute of one (a function, class, constant, a class's method or field, inherited ones
included).

Names are resolved without importing first: from the module's text (its top-level ``def``,
``class``, assignments and imports), then from its syntax tree (a class's methods and fields,
inherited ones, imports followed to their module). A name neither shows is resolved with
:func:`importlib.import_module` and :func:`getattr`, each module imported once. Run it as a script to list what does not
resolve: ``python tests/test_references_resolve.py``.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.source_tree import ROOT, source, tree

_NAME = re.compile(r"(?<![\w./-])((?:noisefloor|harness)(?:\.[A-Za-z_]\w*)+)")
_PATH = re.compile(r"(?<![\w./-])((?:noisefloor|harness|tests|benchmarks)/[\w./-]*?\.py|"
                   r"docs/[\w./-]*?\.md|notebooks/[\w./-]*?\.(?:py|ipynb))(?![\w/-])")
#: A dotted word ending in one of these is a file name (``harness.md``), not a Python name.
_FILE_SUFFIXES = {"md", "py", "json", "jsonl", "ipynb", "toml", "cfg", "txt", "png", "html",
                  "csv", "yaml", "yml"}
#: Cited on purpose though they do not resolve (path relative to the root, cited text): none.
LEFT: set[tuple[str, str]] = set()


def tracked_texts() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.md", "*.py", "*.ipynb", "setup.cfg",
                          "pyproject.toml"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    return [ROOT / p for p in out if (ROOT / p).is_file()]


def _comment(line: str) -> str | None:
    """The comment of one line of Python source: after the first ``#`` outside a quote."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote and line[i - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[i:]
    return None


_TRIPLE = re.compile(r"\"{3}.*?\"{3}|'{3}.*?'{3}", re.DOTALL)


def _python_prose(text: str) -> list[tuple[int, str]]:
    """``(line, text)`` of the comments and triple-quoted strings (docstrings) of Python source.

    Read with regular expressions, not parsed: parsing every file would cost a second.
    """
    out = [(n, comment) for n, line in enumerate(text.splitlines(), 1)
           if "#" in line and (comment := _comment(line)) is not None]
    for m in _TRIPLE.finditer(text):
        first = text.count("\n", 0, m.start()) + 1
        out.extend((first + i, line) for i, line in enumerate(m.group(0).splitlines()))
    return out


def prose(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of the parts of one file that are read as prose."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return _python_prose(text)
    if path.suffix == ".ipynb":
        out: list[tuple[int, str]] = []
        for n, cell in enumerate(json.loads(text)["cells"], 1):
            cell_text = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                out.extend((n, line) for line in cell_text.splitlines())
            elif cell["cell_type"] == "code":
                out.extend((n, line) for _, line in _python_prose(cell_text))
        return out  # "line" is the cell number
    return list(enumerate(text.splitlines(), 1))


def references() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``(names, paths)``: each cited dotted name and path with where it is cited."""
    names: dict[str, list[str]] = {}
    paths: dict[str, list[str]] = {}
    for path in tracked_texts():
        if path == Path(__file__).resolve():
            continue  # its own examples
        where = path.relative_to(ROOT).as_posix()
        for n, line in prose(path):
            for m in _NAME.finditer(line):
                name = m.group(1)
                if name.rsplit(".", 1)[1] not in _FILE_SUFFIXES and (where, name) not in LEFT:
                    names.setdefault(name, []).append(f"{where}:{n}")
            for m in _PATH.finditer(line):
                if (where, m.group(1)) not in LEFT:
                    paths.setdefault(m.group(1), []).append(f"{where}:{n}")
    return names, paths


@functools.cache
def _module_file(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


#: What a body defines under a name: its node (a function, a class: looked into for a longer
#: name), ``None`` (a variable) or ``(module, name)`` (an import, followed).
_Definition = ast.AST | tuple[str, str] | None


_DEFINED: dict[int, dict[str, _Definition]] = {}


def _defined(body: list[ast.stmt], module: str, in_class: bool) -> dict[str, _Definition]:
    """The names a module or class body defines (a class: also ``self.x = ...`` in methods)."""
    key = id(body)  # the trees are cached, so each body is read once
    if key not in _DEFINED:
        _DEFINED[key] = _definitions(body, module, in_class)
    return _DEFINED[key]


def _definitions(body: list[ast.stmt], module: str, in_class: bool) -> dict[str, _Definition]:
    out: dict[str, _Definition] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = node
            if in_class and not isinstance(node, ast.ClassDef):
                for sub in ast.walk(node):
                    targets = (sub.targets if isinstance(sub, ast.Assign) else
                               [sub.target] if isinstance(sub, ast.AnnAssign) else [])
                    for t in targets:
                        if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                                and t.value.id == "self"):
                            out.setdefault(t.attr, None)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for leaf in ast.walk(t):
                    if isinstance(leaf, ast.Name):
                        out.setdefault(leaf.id, None)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, None)
        elif isinstance(node, ast.ImportFrom) and not in_class:
            source = node.module or ""
            if node.level:
                package = module.split(".")
                if (_module_file(module) or Path()).name != "__init__.py":
                    package = package[:-1]
                package = package[:len(package) - node.level + 1]
                source = ".".join([*package, *([source] if source else [])])
            for alias in node.names:
                out.setdefault(alias.asname or alias.name, (source, alias.name))
        elif isinstance(node, (ast.If, ast.Try)):
            nested = list(node.body) + list(node.orelse)
            nested += [s for h in getattr(node, "handlers", []) for s in h.body]
            for key, value in _definitions(nested, module, in_class).items():
                out.setdefault(key, value)
    return out


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(\([^)]*\)|[^\n]*)",
                     re.MULTILINE)


@functools.cache
def _text_names(path: Path) -> frozenset[str]:
    """The names a module's text shows defined at the top level (``def``, ``class``, ``x =``,
    ``x: T``) or imported anywhere (the lazy exports' ``if TYPE_CHECKING:`` imports among them):
    read without parsing, which settles most names at a fraction of a parse's cost."""
    text = source(path)
    names = set(re.findall(r"^(?:(?:async[ \t]+)?def|class)[ \t]+(\w+)|^(\w+)[ \t]*[:=]", text,
                           re.MULTILINE))
    out = {a or b for a, b in names}
    for m in _IMPORT.finditer(text):
        for item in re.sub(r"#[^\n]*", "", m.group(1)).strip("()").split(","):
            words = item.split()
            if words:
                out.add(words[-1].split(".")[0])
    return frozenset(out)


def _resolves_in_source(module: str, attributes: list[str], depth: int = 0) -> bool:
    path = _module_file(module)
    if path is None or depth > 5:
        return False
    if len(attributes) == 1 and attributes[0] in _text_names(path):
        return True
    body: list[ast.stmt] = tree(path).body  # parsed once, shared with the other source-tree tests
    cls: ast.ClassDef | None = None
    for i, attribute in enumerate(attributes):
        found = _defined(body, module, cls is not None)
        if attribute not in found:
            if cls is None:
                return _module_file(f"{module}.{attribute}") is not None
            return any(_resolves_in_source(module, [base.id, *attributes[i:]], depth + 1)
                       for base in cls.bases if isinstance(base, ast.Name))  # inherited
        node = found[attribute]
        rest = attributes[i + 1:]
        if isinstance(node, tuple):  # imported here: look where it comes from
            source, name = node
            if _module_file(f"{source}.{name}") is not None:
                return _resolves_in_source(f"{source}.{name}", rest, depth + 1)
            return _resolves_in_source(source, [name, *rest], depth + 1)
        if not rest:
            return True
        if not isinstance(node, ast.ClassDef):
            return False
        body, cls = node.body, node
    return True


@functools.cache
def _import(module: str) -> object | None:
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def resolves(name: str) -> bool:
    """Whether a dotted name is a module of the repository or an attribute of one."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        if _module_file(module) is not None:
            break
    else:
        return False
    attributes = parts[i:]
    if not attributes or _resolves_in_source(module, attributes):
        return True
    obj = _import(module)  # a lazy export or a re-export: ask Python
    for attribute in attributes:
        if obj is None:
            return False
        obj = getattr(obj, attribute, None)
        if obj is None:
            return False
    return True


def unresolved() -> list[str]:
    names, paths = references()
    out = [f"{', '.join(where)}: {path} (no such file)"
           for path, where in sorted(paths.items()) if not (ROOT / path).is_file()]
    out += [f"{', '.join(where)}: {name} (no such module or attribute)"
            for name, where in sorted(names.items()) if not resolves(name)]
    return out


def test_every_cited_name_and_path_resolves():
    missing = unresolved()
    assert not missing, "\n".join(missing)


def test_the_checker_catches_what_it_is_for():
    assert resolves("noisefloor.pipelines.leaderboard_run")
    assert resolves("noisefloor.floor.nulls.NullContrasts.table")  # a dataclass field
    assert not resolves("noisefloor.leaderboard.leaderboard_run")
    assert not resolves("noisefloor.no_such_module")
    text = 'x = "noisefloor.not_prose"  # see noisefloor.cited\n"""noisefloor.docstring"""\n'
    cited = [m.group(1) for _, line in _python_prose(text) for m in _NAME.finditer(line)]
    assert cited == ["noisefloor.cited", "noisefloor.docstring"]
    assert [m.group(1) for m in _PATH.finditer("see docs/floor.md, tests/x/test_y.py.")] == [
        "docs/floor.md", "tests/x/test_y.py"]


if __name__ == "__main__":
    problems = unresolved()
    print("\n".join(problems) or "every cited name and path resolves")
    sys.exit(1 if problems else 0)
