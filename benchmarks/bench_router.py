"""Normalisation, segmentation, trigger rules and the learned router over every dev contract.

    .venv/bin/python benchmarks/bench_router.py [--cuad DIR] [--model FILE]

Targets: at most 15 s CPU on one core for all 311 CUAD development ``.txt`` contracts (the
stages of a scan: normalise, segment, rules, router), and at most 300 MB more resident memory
in a process once the router is loaded and has scored contracts (measured in a fresh child
process, so nothing else this script imported counts). CPU time is reported next to wall time
because a shared machine inflates the latter. The figures of rules and router on these
contracts are not printed here: the shipped model was trained on them (see ``train_router``).
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
MODEL = ROOT / "reviewapp" / "text" / "router" / "shipped" / "router-en.npz"
CPU_TARGET_S = 15.0
MEMORY_TARGET_MB = 300.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cuad", type=Path, default=CUAD)
    parser.add_argument("--model", type=Path, default=MODEL)
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


def _timing(args: argparse.Namespace) -> bool:
    from reviewapp.text.contract_type import detect_contract_type
    from reviewapp.text.engine import compile_playbook, load_playbook, scan
    from reviewapp.text.evaluation import load_documents
    from reviewapp.text.normalise import normalise
    from reviewapp.text.router.flags import router_hits
    from reviewapp.text.router.model import load_router
    from reviewapp.text.segmentation import segment

    documents, _ = load_documents(args.cuad)
    compiled = compile_playbook(load_playbook(PLAYBOOK))
    model = load_router(args.model)
    model.probabilities([["w:warm"]])  # the first call imports scikit-learn: not a scan's cost
    stages = dict.fromkeys(("normalise", "segment", "rules", "router"), 0.0)
    passages = flags = 0
    wall = time.perf_counter()
    for doc in documents:
        started = time.process_time()
        normalise(doc.text + " ")  # a text not cached yet: the cost a new upload pays once
        normalised = time.process_time()
        segments = segment(doc.text)
        segmented = time.process_time()
        hits = scan(compiled, doc.text, segments, contract_type=detect_contract_type(doc.text))
        scanned = time.process_time()
        found = router_hits(compiled, model, doc.text, segments, hits)
        routed = time.process_time()
        stages["normalise"] += normalised - started
        stages["segment"] += segmented - normalised
        stages["rules"] += scanned - segmented
        stages["router"] += routed - scanned
        passages += len(segments)
        flags += len(found)
    total = sum(stages.values())
    parts = " + ".join(f"{name} {seconds:.2f}" for name, seconds in stages.items())
    print(
        f"{len(documents)} contracts, {passages} passages, {flags} router flags; CPU seconds: "
        f"{parts} = {total:.2f} (wall {time.perf_counter() - wall:.2f}; target <= {CPU_TARGET_S:g})"
    )
    return total <= CPU_TARGET_S


def _memory(args: argparse.Namespace) -> bool:
    before, after = child_memory(__file__, "--cuad", str(args.cuad), "--model", str(args.model))
    grown = after - before
    print(
        f"resident memory: {before:.0f} MB with the app's modules, {after:.0f} MB with the router "
        f"loaded and 20 contracts scored: +{grown:.0f} MB (target <= {MEMORY_TARGET_MB:g})"
    )
    return grown <= MEMORY_TARGET_MB


def _memory_child(args: argparse.Namespace) -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings.local")
    django.setup()
    from reviewapp.text.engine import compile_playbook, load_playbook, scan
    from reviewapp.text.evaluation import load_documents
    from reviewapp.text.segmentation import segment

    documents, _ = load_documents(args.cuad)
    compiled = compile_playbook(load_playbook(PLAYBOOK))
    before = rss_mb()
    from reviewapp.text.router.flags import router_hits
    from reviewapp.text.router.model import load_router

    model = load_router(args.model)
    for doc in documents[:20]:
        segments = segment(doc.text)
        router_hits(compiled, model, doc.text, segments, scan(compiled, doc.text, segments))
    print(before, rss_mb())
    return 0


if __name__ == "__main__":
    sys.exit(main())
