"""Errors of the operations commands that a person can act on, light to import: the command
line maps each to one line on stderr and an exit status (``app.cli.error_exit``) without
importing the heavy command modules."""

from __future__ import annotations


class HistoryFileError(ValueError):
    """A file that is not a workflow history (not JSON, not a history, no start event)."""


class RunExists(ValueError):
    """The order's attempt already ran: a closed run holds its workflow id."""


class GiftLive(ValueError):
    """The gift has a live run, which reads the uploads a submit would overwrite."""
