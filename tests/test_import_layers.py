"""The apps depend in one direction (STYLE.md): accounts/realtime < contracts < rules < reviews
< queue < audit. Every import of every module under reviewapp/ is read with ast, at module
level and inside functions alike (a function-local import that breaks a circle is still a
dependency), and the test fails when an app imports an app above it, when two apps import
each other, or when two modules import each other.

One deliberate exception: the audit log's writing interface (``audit.models``,
``audit.recorders`` and ``audit.services``) is called by every layer, the way logging is; what
sits on top is audit's reading side (reports, history pages). Edges into those modules do not
count.

``KNOWN`` lists the violations that exist today in code owned elsewhere, each with what would
fix it. The test also fails when an entry is no longer true, so the list can only shrink.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reviewapp"
LAYERS = {
    "accounts": 0,
    "realtime": 0,
    "contracts": 1,
    "rules": 2,
    "reviews": 3,
    "queue": 4,
    "audit": 5,
}
AUDIT_SINK = ("reviewapp.audit.models", "reviewapp.audit.recorders", "reviewapp.audit.services")

# (importing module, imported app): why it is still there and what removes it.
KNOWN: dict[tuple[str, str], str] = {
    ("reviewapp.contracts.services", "reviews"): (
        "ingestion scans the contract (review_scan): reviews should start the scan when "
        "contracts announce an ingested contract"
    ),
    ("reviewapp.contracts.review_page", "reviews"): "the review page belongs in reviews",
    ("reviewapp.contracts.review_page", "rules"): "the review page belongs in reviews",
    ("reviewapp.contracts.review_page", "queue"): "the review page belongs in reviews/queue",
    ("reviewapp.contracts.review_output", "reviews"): "a review's output belongs in reviews",
    ("reviewapp.contracts.views", "reviews"): "the review page's views belong in reviews",
    ("reviewapp.contracts.management.commands.review", "reviews"): (
        "the `review` command runs a whole review: it belongs in reviews"
    ),
    ("reviewapp.rules.selectors", "reviews"): (
        "hit counts read RuleFiring: reviews should provide the count"
    ),
    ("reviewapp.accounts.revocation", "realtime"): (
        "both at the bottom and realtime reads accounts: the revocation that closes sockets "
        "belongs in realtime"
    ),
}

# Pairs of modules that import each other today, owned elsewhere (see the report of the
# change that added this test); the test fails on any other pair, and on a pair that is gone.
KNOWN_MODULE_CYCLES: dict[tuple[str, str], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts
    }


def _imports(path: Path, known: set[str]) -> set[str]:
    """Every reviewapp module this file imports, wherever the import statement stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
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


def _app(module: str) -> str | None:
    """The app (a package directly under reviewapp/) a module belongs to."""
    parts = module.split(".")
    if len(parts) >= 2 and (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, set(modules)) for name, path in modules.items()}


def _app_edges(graph: dict[str, set[str]]) -> dict[tuple[str, str], set[str]]:
    """(app, app it imports) -> the importing modules; imports of the audit sink left out."""
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for module, imported in graph.items():
        source = _app(module)
        for target_module in imported:
            target = _app(target_module)
            if source is None or target is None or source == target:
                continue
            if target_module.startswith(AUDIT_SINK):
                continue
            edges[(source, target)].add(module)
    return edges


def test_the_walker_sees_function_local_imports(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from reviewapp.queue.services import queue_item_open\n")
    assert _imports(source, {"reviewapp.queue.services"}) == {"reviewapp.queue.services"}


def test_no_app_imports_an_app_above_it(graph):
    upward = {
        (module, target)
        for (source, target), modules in _app_edges(graph).items()
        if source in LAYERS and target in LAYERS and LAYERS[target] > LAYERS[source]
        for module in modules
    }
    new = sorted(upward - set(KNOWN))
    assert new == [], "an app imports an app above it: " + "; ".join(
        f"{module} imports {app}" for module, app in new
    )
    present = {(m, target) for (_, target), modules in _app_edges(graph).items() for m in modules}
    stale = sorted(set(KNOWN) - present)
    assert stale == [], f"no longer true, remove from KNOWN: {stale}"


def test_no_two_apps_import_each_other(graph):
    """A pair of apps importing each other is a circle, unless one direction is entirely an
    upward import already listed in KNOWN (and so failing the test above once it is new)."""
    edges = _app_edges(graph)
    known: dict[tuple[str | None, str], set[str]] = defaultdict(set)
    for module, app in KNOWN:
        known[(_app(module), app)].add(module)
    mutual = [
        (source, target, sorted(modules | edges[(target, source)]))
        for (source, target), modules in edges.items()
        if source < target
        and (target, source) in edges
        and not modules <= known[(source, target)]
        and not edges[(target, source)] <= known[(target, source)]
    ]
    assert mutual == [], f"apps that import each other: {mutual}"


def test_reviews_and_queue_do_not_import_each_other(graph):
    """The decision flow lives in the queue; reviews reach it only through the hand-off."""
    reviews_to_queue = sorted(
        module
        for module, targets in graph.items()
        if _app(module) == "reviews"
        and any(_app(target) == "queue" for target in targets)
        and (module, "queue") not in KNOWN
    )
    assert reviews_to_queue == []


def test_no_two_modules_import_each_other(graph):
    mutual = {
        (a, b) for a, targets in graph.items() for b in targets if a < b and a in graph.get(b, ())
    }
    assert sorted(mutual - set(KNOWN_MODULE_CYCLES)) == [], "modules that import each other"
    stale = sorted(set(KNOWN_MODULE_CYCLES) - mutual)
    assert stale == [], f"no longer true, remove from KNOWN_MODULE_CYCLES: {stale}"
