"""Key facts of a contract as normalised values, with the passage and words they come from.

    facts = find_facts(passages, raw=extract_facts(compiled, text, passages))

``find_facts`` runs our finders (``finders.py``) for dates, term and governing law, and reads the
playbook's fact extractors (``raw``: first regex match per category, from
``reviewapp.text.engine.extract_facts``) for the rest, normalising their words
(``normalise_fact``). Pure Python, no Django: the offline draft, the Claude draft (which runs the
model's quoted words through ``normalise_fact``) and the accuracy benchmark all use it.
"""

from __future__ import annotations

from .assemble import find_facts, normalise_fact
from .model import Fact, PassageText

__all__ = ["Fact", "PassageText", "find_facts", "normalise_fact"]
