"""A bulk upload's model work through the Message Batches API: half the price, answers within
24 hours, instead of one interactive call per draft and per group of checks.

Two rounds, because the draft can flag passages (``model_flags``) whose checks must follow it:

1. **Drafts.** When a contract of an intake batch with ``use_model_batch`` (Claude engine) is
   scanned, its draft joins the intake's collecting drafts batch (one request per chunk, the
   same parameters as the streamed draft) instead of a Celery task; checks that a rule sends
   straight to a lawyer are settled at once. The batch is sent when every document of the
   intake has been read and scanned (or ``MODEL_BATCH_COLLECT_MAX_S`` after it was opened).
2. **Verifications.** As each draft lands (through the same validation and state changes as a
   streamed one), the review's queued checks, those of the rules and those the draft raised,
   join a verifications batch that follows the drafts batch, in the groups an interactive run
   makes; it is sent once the drafts batch has landed.

A review's work belongs to its batches while any of its requests has not landed: the sweeper
skips it and nothing queues it interactively. Polling (``model_batch_poll``) is claimed with a
conditional update, and landing a request is claimed per request, so running either twice
changes nothing.

The modules, each importing only those above it in this list: ``models`` (the rows),
``selectors`` and ``payloads`` (what is read and shown), ``building`` (collecting requests and
building them again to send), ``results`` (landing what a batch answered, and ending one that
failed), ``polling`` (sending, polling and canceling at the service), ``tasks`` and ``api``.
Services queue the tasks by name (``reviewapp.tasks_by_name``).
"""
