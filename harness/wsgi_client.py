"""A client that calls a WSGI application in process, as a browser or an API client would
(bench.ask_cpu, bench.instructions_child): no socket, no server, only the application's
own work is measured. Loaded by path from another tree's code too (bench.instructions), so
it imports nothing of the project's."""

from __future__ import annotations

import io
import json
import sys


class Client:
    def __init__(self, app) -> None:
        self.app = app

    def __call__(
        self,
        method: str,
        path: str,
        body=None,
        token: str | None = None,
        cookies: dict | None = None,
        parse: bool = True,
    ):
        """With ``cookies`` it is a browser: sends them and the CSRF header, keeps Set-Cookie.
        ``parse`` False: the body as bytes, not decoded (what the client does with the answer
        is not the server's time)."""
        data = json.dumps(body).encode() if body is not None else b""
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8001",
            "HTTP_HOST": "127.0.0.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(data),
            "wsgi.errors": sys.stderr,
            "CONTENT_LENGTH": str(len(data)),
            "CONTENT_TYPE": "application/json",
        }
        if token:
            environ["HTTP_AUTHORIZATION"] = f"Token {token}"
        if cookies:
            environ["HTTP_COOKIE"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
            environ["HTTP_X_CSRFTOKEN"] = cookies.get("csrftoken", "")
        status = []

        def start_response(line, headers, exc_info=None):
            status.append(int(line[:3]))
            for name, value in headers:
                if cookies is not None and name.lower() == "set-cookie":
                    key, _, rest = value.strip().partition("=")
                    cookies[key] = rest.split(";", 1)[0]

        response = self.app(environ, start_response)
        payload = b"".join(response)
        response.close()
        if not parse:
            return status[0], payload
        return status[0], json.loads(payload) if payload else None
