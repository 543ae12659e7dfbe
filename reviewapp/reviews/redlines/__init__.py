"""Redlines: a lawyer's replacement wording for a flagged clause, accepted into the review and
exported as a tracked change in the counterparty's own Word file.

`models` (imported by reviews.models), `diff` (the change between two wordings), `services`
(save, accept, withdraw: each an audit event), `selectors` and `proposals` (what a new redline
is prefilled with), `api` (REST endpoints) and `export` (the tracked DOCX).
"""
