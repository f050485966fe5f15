"""The package's one exception."""


class Error(Exception):
    """A failed scoring, with the library's (or the command line tool's) message.

    `code` is the errno value of a failed library call, or the command line
    tool's exit status, when there is one.
    """

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code
