"""The apps depend one way, checked by import-linter (the contracts in pyproject.toml, also run
by `make lint`), and two rules import-linter does not state:

- no two modules import each other (``KNOWN_MODULE_CYCLES`` lists those that remain, each
  with what removes it; the test fails when an entry is no longer true, so it only shrinks);
- an import inside a function is there for a reason the reader is told: a comment on its
  line or the line above (an AppConfig's ``ready``, a type-only import). None dodges a cycle.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reviewapp"

KNOWN_MODULE_CYCLES: dict[tuple[str, str], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {
        _module_name(path): path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts
    }


def _imports(tree: ast.AST, known: set[str]) -> set[str]:
    """Every reviewapp module a module imports, wherever the statement stands."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {_known_prefix(alias.name, known) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # `from x import y`: y may be a module of x, or a name
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in known else _known_prefix(node.module, known))
    return {name for name in found if name.startswith("reviewapp.")}


def _known_prefix(name: str, known: set[str]) -> str:
    while name not in known and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


@pytest.fixture(scope="module")
def trees() -> dict[str, tuple[ast.AST, list[str]]]:
    return {
        name: (ast.parse(path.read_text(), filename=str(path)), path.read_text().splitlines())
        for name, path in _sources().items()
    }


def test_the_import_linter_contracts_hold():
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_no_contract_has_an_ignore_list():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert len(config["contracts"]) >= 3
    assert [c["name"] for c in config["contracts"] if c.get("ignore_imports")] == []


def test_no_two_modules_import_each_other(trees):
    graph = {name: _imports(tree, set(trees)) for name, (tree, _) in trees.items()}
    mutual = {(a, b) for a, targets in graph.items() for b in targets if a < b and a in graph[b]}
    assert sorted(mutual - set(KNOWN_MODULE_CYCLES)) == [], "modules that import each other"
    stale = sorted(set(KNOWN_MODULE_CYCLES) - mutual)
    assert stale == [], f"no longer true, remove from KNOWN_MODULE_CYCLES: {stale}"


def test_an_import_inside_a_function_says_why(trees):
    silent = []
    for name, (tree, lines) in trees.items():
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom) and not _explained(lines, node):
                    silent.append(f"{name}:{node.lineno}")
    assert sorted(silent) == []


def _explained(lines: list[str], node: ast.stmt) -> bool:
    """A comment on the import's line, or on the line above the run of imports it is in."""
    number = node.lineno - 1
    while True:
        line = lines[number].strip()
        if "#" in line:
            return True
        if number == 0 or not line.startswith(("from ", "import ")):
            return False
        number -= 1


def test_the_walker_sees_function_local_imports(tmp_path):
    tree = ast.parse("def f():\n    from reviewapp.queue.services import queue_item_open\n")
    assert _imports(tree, {"reviewapp.queue.services"}) == {"reviewapp.queue.services"}
