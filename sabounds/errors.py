"""Errors the command line reports as one line and exit status 2 (bad arguments or bad input)."""


class UserError(Exception):
    """A problem with what the user gave (arguments, files, expressions): message is shown as one line."""


class InputError(UserError, ValueError):
    """Bad input to a library call (``sabounds.analyze`` and friends), worded for the library: the command line
    reports it as one line with exit status 2, a Python caller catches it as a ``ValueError`` too."""
