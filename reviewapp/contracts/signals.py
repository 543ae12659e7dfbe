"""What the contracts app announces to the apps above it, which it never imports.

``contract_read`` is sent once a contract's text and passages are stored (ingestion, OCR),
inside the call that stored them: the reviews app scans the contract on it (as paperless-ngx's
consumer announces a consumed document). Keyword arguments: ``contract`` (the Contract),
``engine`` (the review engine asked for, or None for the setting) and ``enqueue`` (False when
the caller runs the model work inline, as ``manage.py review`` does). Receivers run in order and
their exceptions propagate, so a scan that fails fails the ingestion as before.
"""

from __future__ import annotations

from django.dispatch import Signal

contract_read = Signal()
