"""The board's refusal of a request: the message a client reads and the HTTP status it gets. A module of its own,
below the board's logic (releval.service.board) and its phases (releval.service.phases), which both refuse."""

from __future__ import annotations

from releval.core.errors import RelevalError


class Refused(RelevalError):
    """A request the board refuses, with the HTTP status it answers (400 bad input, 403, 404, 409, 413, 429)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
