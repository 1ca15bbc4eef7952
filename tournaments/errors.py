"""The one exception type the harness raises for users' mistakes.

The CLI turns it into a one-line message and a non-zero exit; Python
callers can catch it without catching programming errors.
"""

from __future__ import annotations


class TournamentError(Exception):
    """Bad input (bots, options, database): nothing was played or overwritten."""


class PlayError(TournamentError):
    """Something failed while games were being played (a worker died): the
    finished games are stored, and the message says what happened."""
