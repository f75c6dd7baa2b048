"""The network guard itself: which URLs count as staying on 127.0.0.1 (no browser needed)."""

from __future__ import annotations

import pytest
from browser_support import NetworkGuard

pytestmark = [pytest.mark.browser, pytest.mark.timeout(30)]


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8501/",
    "http://127.0.0.1:8501/_stcore/health",
    "ws://127.0.0.1:8501/_stcore/stream",
    "data:image/svg+xml,<svg/>",
    "blob:http://127.0.0.1:8501/0b1c",
    "about:blank",
])
def test_local_urls_pass(url):
    guard = NetworkGuard()
    guard.record(url)
    guard.assert_local()


@pytest.mark.parametrize("url", [
    "https://fonts.gstatic.com/s/i/short-term/release/materialsymbolsrounded/home/default/24px.svg",
    "https://fonts.googleapis.com/css2?family=Source+Sans",
    "http://localhost:8501/",  # the server is bound to 127.0.0.1; anything else is not this server
    "http://127.0.0.1.example.com/",
    "http://0.0.0.0:8501/",
    "wss://webhooks.example.org/stream",
    "file:///etc/passwd",
])
def test_other_urls_fail(url):
    guard = NetworkGuard()
    guard.record("http://127.0.0.1:8501/")
    guard.record(url)
    with pytest.raises(AssertionError, match="left 127.0.0.1"):
        guard.assert_local()
