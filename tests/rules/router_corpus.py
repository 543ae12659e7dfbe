"""A small synthetic labelled corpus for the router's tests: wording no pattern knows."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import yaml

MFN = "Most Favored Nation"
CAP = "Cap On Liability"

# Wording no rule of the test playbook knows: only a model that learnt it can flag it.
MFN_CLAUSES = [
    "Supplier shall extend to Buyer pricing no less advantageous than that extended to any "
    "other purchaser of comparable volumes.",
    "If Licensor offers any other licensee a lower royalty, Licensee shall receive that lower "
    "royalty going forward.",
    "Prices charged to Distributor shall at all times equal the lowest prices offered to any "
    "other distributor in the Territory.",
    "Vendor warrants the fees hereunder are no higher than the fees it charges any comparable "
    "customer, and shall refund any difference.",
]
CAP_CLAUSES = [
    "In no event shall either party's aggregate liability exceed the fees paid in the twelve "
    "months preceding the claim.",
    "Total liability of the Supplier is limited to the amount of the purchase order giving rise "
    "to the claim.",
    "The maximum amount recoverable from the Company shall not exceed one hundred thousand "
    "dollars in the aggregate.",
]
BOILERPLATE = [
    "Notices shall be sent to the addresses set out above by courier or registered mail.",
    "This Agreement may be executed in counterparts, each of which is an original.",
    "Headings are for convenience only and do not affect interpretation.",
    "Each party shall bear its own costs of negotiating this Agreement.",
    "The recitals form part of this Agreement.",
    "Words in the singular include the plural and vice versa.",
    "Any amendment must be in writing and signed by both parties.",
    "Time is of the essence of every obligation under this Agreement.",
]

PLAYBOOK = {
    "name": "router-test",
    "version": "1",
    "language": "en",
    "router": {"enabled": True},
    "rules": [
        {
            "id": "en.mfn.terms",
            "category": MFN,
            "severity": "high",
            "patterns": ["most favou?red nation"],
            "question": "Is there a price-parity promise?",
        },
        {
            "id": "en.cap.terms",
            "category": CAP,
            "severity": "medium",
            "patterns": ["limitation of liability"],
            "question": "Is liability capped?",
        },
    ],
}


@dataclass
class Doc:
    id: str
    text: str
    labels: dict


def corpus(count: int = 24, seed: int = 3) -> list[Doc]:
    """Contracts of numbered clauses: boilerplate, with an MFN or a cap clause now and then."""
    rng = random.Random(seed)
    documents = []
    for n in range(count):
        clauses = rng.sample(BOILERPLATE, 5)
        labelled: dict[str, list[str]] = {}
        if n % 2 == 0:
            clauses.insert(2, rng.choice(MFN_CLAUSES))
            labelled[MFN] = [clauses[2]]
        if n % 4 == 1:
            clauses.insert(1, rng.choice(CAP_CLAUSES))
            labelled[CAP] = [clauses[1]]
        text = "\n\n".join(f"{i + 1}. {clause}" for i, clause in enumerate(clauses)) + "\n"
        labels = {
            category: [(text.index(c), text.index(c) + len(c)) for c in found]
            for category, found in labelled.items()
        }
        documents.append(Doc(f"doc{n}", text, labels))
    return documents


def write_folder(folder: Path, documents: list[Doc]) -> Path:
    """The corpus as a labelled folder in the CUAD layout (labels.jsonl, txt/)."""
    (folder / "txt").mkdir(parents=True, exist_ok=True)
    with open(folder / "labels.jsonl", "w", encoding="utf-8") as handle:
        for doc in documents:
            (folder / "txt" / f"{doc.id}.txt").write_text(doc.text, encoding="utf-8")
            row = {"id": doc.id, "type": "Supply", "txt": f"txt/{doc.id}.txt", "labels": doc.labels}
            handle.write(json.dumps(row) + "\n")
    return folder


def playbook_source(**router: object) -> str:
    return yaml.safe_dump({**PLAYBOOK, "router": router or {"enabled": True}}, sort_keys=False)
