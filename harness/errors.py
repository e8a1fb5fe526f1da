"""The one exception root of the harness and its families."""

from __future__ import annotations


class HarnessError(Exception):
    """Root of every error the harness raises on purpose."""


class NotationError(HarnessError, ValueError):
    """A card token or card list that the notation (牌的記法) does not allow."""

    def __init__(self, message: str, token: str | None = None) -> None:
        super().__init__(message)
        self.token = token
