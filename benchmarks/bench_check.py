"""The first stage (segmentation, rules, router) and the second-stage check over every dev
contract.

    .venv/bin/python benchmarks/bench_check.py [--cuad DIR]

Targets: at most 20 s CPU on one core for the first stage plus the check over the 311 CUAD
development ``.txt`` contracts, and at most 350 MB more resident memory in a process once the
router and the check are loaded and have scored contracts (a fresh child process, so nothing
else this script imported counts). The check's figures on these contracts are not printed: the
shipped check was trained on them (see ``train_check`` and README for the held-out figures).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _memory import child_memory, rss_mb  # noqa: E402

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

CUAD = ROOT.parent / "shared" / "data" / "cuad"
PLAYBOOK = ROOT / "reviewapp" / "rules" / "playbooks" / "commercial-en.yaml"
CPU_TARGET_S = 20.0
MEMORY_TARGET_MB = 350.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cuad", type=Path, default=CUAD)
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not (args.cuad / "labels.jsonl").exists():
        print(f"no labelled contracts at {args.cuad}")
        return 2
    if args.memory_child:
        return _memory_child(args)
    cpu_ok = _timing(args)
    memory_ok = _memory(args)
    return 0 if cpu_ok and memory_ok else 1


def _models():
    from reviewapp.text.check import shipped_check_path
    from reviewapp.text.check.model import load_check
    from reviewapp.text.engine import compile_playbook, load_playbook
    from reviewapp.text.router import shipped_router_path
    from reviewapp.text.router.model import load_router

    compiled = compile_playbook(load_playbook(PLAYBOOK))
    return compiled, load_router(shipped_router_path("en")), load_check(shipped_check_path("en"))


def _first_stage_and_check(compiled, router, check, text):
    from reviewapp.text.check.apply import check_hits
    from reviewapp.text.contract_type import detect_contract_type
    from reviewapp.text.engine import scan
    from reviewapp.text.router.flags import merge_hits, router_scan
    from reviewapp.text.segmentation import segment

    segments = segment(text)
    hits = scan(compiled, text, segments, contract_type=detect_contract_type(text))
    scanned = router_scan(compiled, router, text, segments, hits)
    hits = merge_hits(compiled, hits, scanned.hits)
    return hits, check_hits(compiled, check, segments, hits, scanned)


def _timing(args: argparse.Namespace) -> bool:
    from reviewapp.text.evaluation import load_documents

    documents, _ = load_documents(args.cuad)
    compiled, router, check = _models()
    _first_stage_and_check(compiled, router, check, documents[0].text)  # imports, first calls
    candidates = dropped = 0
    wall = time.perf_counter()
    started = time.process_time()
    for doc in documents:
        _, checked = _first_stage_and_check(compiled, router, check, doc.text)
        candidates += len(checked)
        dropped += sum(not c.stands for c in checked.values())
    cpu = time.process_time() - started
    print(
        f"{len(documents)} contracts, {candidates} (passage, category) candidates, {dropped} "
        f"dropped; CPU {cpu:.2f} s (wall {time.perf_counter() - wall:.2f}; "
        f"target <= {CPU_TARGET_S:g})"
    )
    return cpu <= CPU_TARGET_S


def _memory(args: argparse.Namespace) -> bool:
    before, after = child_memory(__file__, "--cuad", str(args.cuad))
    grown = after - before
    print(
        f"resident memory: {before:.0f} MB with the app's modules, {after:.0f} MB with the router "
        f"and the check loaded and 20 contracts checked: +{grown:.0f} MB "
        f"(target <= {MEMORY_TARGET_MB:g})"
    )
    return grown <= MEMORY_TARGET_MB


def _memory_child(args: argparse.Namespace) -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings.local")
    django.setup()
    from reviewapp.text.engine import compile_playbook, load_playbook
    from reviewapp.text.evaluation import load_documents
    from reviewapp.text.segmentation import segment  # noqa: F401  # the app's modules

    documents, _ = load_documents(args.cuad)
    compile_playbook(load_playbook(PLAYBOOK))
    before = rss_mb()
    compiled, router, check = _models()
    for doc in documents[:20]:
        _first_stage_and_check(compiled, router, check, doc.text)
    print(before, rss_mb())
    return 0


if __name__ == "__main__":
    sys.exit(main())
