from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.tools import need_program

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    return os.environ.get("CHROMIUM_PATH") or need_program("chromium", "chromium fonts-noto-cjk")


@pytest.fixture
def browser(chromium_path: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the test
    # makes around it are still plain synchronous calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
