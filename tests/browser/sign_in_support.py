"""A real OpenID Connect provider on loopback for the sign-in tests (issue 25), the secrets file that points
the dashboard at it, and the browser steps of signing in and out.

The provider is ``oidc-provider-mock`` (requirements-dev.txt): a Flask app with discovery, authorization,
token, JWKS and end-session endpoints, served here by werkzeug on 127.0.0.1 in a thread of the test process.
Its sign-in form asks for a subject ("sub"): any text signs in as that user, so two tests' users never clash.

Its pages link a stylesheet from a CDN; a request leaving 127.0.0.1 would fail the network guard (and is not
the dashboard's), so the page skeleton is replaced by one without it. The secrets file is written to a
temporary directory and given to the server with ``--secrets.files``: nothing is written into the repository.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import threading
from pathlib import Path

from browser_support import HOST, StreamlitServer, button, free_port, wait_idle

#: The provider's page skeleton without the remote stylesheet of the original.
LOCAL_BASE_TEMPLATE = """<!doctype html>
<html lang="en"><main class="container">{% block content %}{{ content }}{% endblock %}</main></html>"""

CLIENT_ID = "privcore-dashboard"
CLIENT_SECRET = "not-a-secret-test-only"
#: The dashboard's "Sign in" button (its text follows the icon's name).
SIGN_IN = re.compile(r"Sign in\s*$")
INSECURE_VARIABLE = "AUTHLIB_INSECURE_TRANSPORT"  # plain http on loopback, for the provider and the client


class MockProvider:
    """``oidc-provider-mock`` on a free port of 127.0.0.1, started on enter and stopped on exit."""

    def __init__(self) -> None:
        self.url = ""
        self._server = None
        self._thread = None
        self._previous_insecure = None

    @property
    def metadata_url(self) -> str:
        return f"{self.url}/.well-known/openid-configuration"

    def __enter__(self) -> "MockProvider":
        import jinja2
        import oidc_provider_mock
        import werkzeug.serving

        self._previous_insecure = os.environ.get(INSECURE_VARIABLE)
        os.environ[INSECURE_VARIABLE] = "1"  # Authlib in the provider refuses http otherwise
        app = oidc_provider_mock.app()
        # The skeleton is looked up first, the package's own templates after it.
        app.jinja_loader = jinja2.ChoiceLoader([jinja2.DictLoader({"_base.html": LOCAL_BASE_TEMPLATE}),
                                                app.jinja_loader])
        self._server = werkzeug.serving.make_server(HOST, 0, app, threaded=True)
        self.url = f"http://{HOST}:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="oidc-provider-mock", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._previous_insecure is None:
            os.environ.pop(INSECURE_VARIABLE, None)
        else:
            os.environ[INSECURE_VARIABLE] = self._previous_insecure


def write_secrets(directory: Path, app_port: int, provider: MockProvider, extra: str = "") -> Path:
    """A ``secrets.toml`` with sign-in on against ``provider``, in ``directory`` (a temporary one)."""
    path = Path(directory) / "secrets.toml"
    path.write_text(
        f"{extra}\n"
        "[auth]\n"
        f'redirect_uri = "http://{HOST}:{app_port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_urlsafe(32)}"\n'
        f'client_id = "{CLIENT_ID}"\n'
        f'client_secret = "{CLIENT_SECRET}"\n'
        f'server_metadata_url = "{provider.metadata_url}"\n',
        encoding="utf-8")
    return path


@contextlib.contextmanager
def signed_in_server(directory: Path, provider: MockProvider, *extra_args: str, extra_secrets: str = "",
                     env: dict[str, str] | None = None):
    """The dashboard with sign-in on against ``provider`` (its secrets file in ``directory``)."""
    port = free_port()
    path = write_secrets(directory, port, provider, extra_secrets)
    server = StreamlitServer(extra_args, options=("--secrets.files", str(path)), port=port,
                             env={INSECURE_VARIABLE: "1", **(env or {})}).start()
    try:
        yield server
    finally:
        server.stop()


def sign_in(page, server: StreamlitServer, subject: str, url: str | None = None) -> None:
    """Open ``url`` (default: the home page), sign in at the provider as ``subject`` and wait for the app."""
    page.goto(url or server.page_url("Home"), wait_until="domcontentloaded")
    wait_idle(page)
    button(page, SIGN_IN).click()
    page.wait_for_url(re.compile(r"/oauth2/authorize"))
    page.locator("input[name=sub]").fill(subject)
    page.locator("button[type=submit]").filter(has_text="Authorize").click()
    page.wait_for_url(re.compile(rf"^{re.escape(server.url)}/"))
    wait_idle(page)
    page.locator("[data-testid=stSidebar]").get_by_text("Signed in as").wait_for()


def sign_out(page, server: StreamlitServer) -> None:
    """Press "Sign out", confirm at the provider's end-session page, and wait for the app's sign-in page."""
    button(page, "Sign out").click()
    page.wait_for_url(re.compile(r"/oauth2/end_session"))
    page.locator("button[type=submit]").filter(has_text="End session").click()
    page.wait_for_url(re.compile(rf"^{re.escape(server.url)}/"))
    wait_idle(page)
    button(page, SIGN_IN).wait_for()
