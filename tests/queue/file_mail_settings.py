"""Settings for a child process (a Celery worker) whose e-mail a browser test reads from files."""

import os

from reviewapp.settings.test import *  # noqa: F403

EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
EMAIL_FILE_PATH = os.environ["CLAUSEWISE_TEST_MAIL_DIR"]
