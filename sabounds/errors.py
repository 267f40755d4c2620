"""Errors the command line reports as one line and exit status 2 (bad arguments or bad input)."""


class UserError(Exception):
    """A problem with what the user gave (arguments, files, expressions): message is shown as one line."""
