"""The text core: plain Python over a contract's text, with no Django.

Extraction (PDF, Word, text, OCR), normalisation, segmentation into passages, the rule engine,
key facts, citations, the learned router and the second-stage check, the evaluation of a
playbook on labelled contracts, and the WordprocessingML writer of the redline. The Django
apps call into it; it never calls back (import-linter contract in pyproject.toml), so each part
can be read, tested and reused without settings or a database.
"""
