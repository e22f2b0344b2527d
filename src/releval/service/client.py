"""A small HTTP client of the board's JSON API (standard library only, so `releval submit` needs no extra)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

from releval.core.errors import OptionError, RelevalError


class Client:
    """`Client("http://127.0.0.1:8000", token).submit("semeval2010-task8", {"entry": "mine"}, "pred.txt", data)`"""

    def __init__(self, base: str, token: str | None = None, timeout: float = 300.0) -> None:
        if not base.startswith(("http://", "https://")):
            raise OptionError(f"--board {base!r}: give http://HOST:PORT or https://…", option="--board")
        self.base, self.token, self.timeout = base.rstrip("/"), token, timeout

    def _request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
        req = urllib.request.Request(self.base + path, data=body, method=method, headers=dict(headers or {}))
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            try:
                message = json.loads(exc.read()).get("error", exc.reason)
            except ValueError:
                message = exc.reason
            raise RelevalError(f"the board refused ({exc.code}): {message}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise RelevalError(f"cannot reach the board at {self.base}: {reason}") from None

    def get(self, path: str) -> Any:
        return self._request("GET", path)

    def submit(self, benchmark: str, fields: dict[str, str], filename: str, data: bytes) -> Any:
        body, content_type = multipart(fields, filename, data)
        return self._request("POST", f"/api/v1/benchmarks/{benchmark}/runs", body, {"Content-Type": content_type})

    def register_measure(self, benchmark: str, name: str) -> Any:
        body = json.dumps({"name": name}).encode()
        return self._request(
            "POST", f"/api/v1/benchmarks/{benchmark}/measures", body, {"Content-Type": "application/json"}
        )

    def wait(self, run: int, timeout: float) -> Any:
        """The run once scored (or as it is when `timeout` seconds have passed)."""
        end = time.monotonic() + timeout
        pause = 0.05  # a small run is scored in a fraction of a second; a long wait asks once a second
        while True:
            got = self.get(f"/api/v1/runs/{run}")
            if got["status"] != "queued" or time.monotonic() > end:
                return got
            time.sleep(pause)
            pause = min(1.0, pause * 1.5)


def multipart(fields: dict[str, str], filename: str, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body with `fields` and the file as the field `file`."""
    boundary = uuid.uuid4().hex
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    safe = filename.replace('"', "").replace("\r", "").replace("\n", "")
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{safe}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"
