"""The audit log's reading side: the log page, a contract's history and the words they use.

It reads every app (contracts, reviews, rules) to name what an event was about, so it sits on
top of them all; the writing side (models, services, recorders, chain, checkpoints) sits below
every app, which calls it as it would call logging (pyproject.toml, import-linter).
"""
