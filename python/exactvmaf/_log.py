"""Where the library's messages go.

Each scoring call gives its context its own callback (a Capture): the
errors become the message of the Error it raises, warnings go to the
`exactvmaf` logger. Messages outside a context (loading a model) reach the
default callback, which hands them to the Capture active on the calling
thread, if any.
"""
import ctypes
import logging
import threading

log = logging.getLogger('exactvmaf')

# The library's ExactvmafLogCallback: (opaque, level, message).
LogCallback = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)
_active = threading.local()


class Capture:
    """Collects a context's messages; a context manager for the calling thread."""

    def __init__(self):
        self.errors = []
        self._lock = threading.Lock()
        # Kept referenced for as long as the library may call it.
        self.callback = LogCallback(self._message)

    def _message(self, opaque, level, text):
        self.add(level, text)

    def add(self, level, text):
        text = text.decode('utf-8', 'replace') if isinstance(text, bytes) else text
        if level <= 1:
            with self._lock:
                self.errors.append(text)
        else:
            log.log(logging.WARNING if level == 2 else logging.DEBUG, '%s', text)

    def take(self):
        with self._lock:
            errors, self.errors = self.errors, []
        return errors

    def __enter__(self):
        stack = getattr(_active, 'stack', None)
        if stack is None:
            stack = _active.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _active.stack.pop()
        return False


def default_message(opaque, level, text):
    stack = getattr(_active, 'stack', None)
    if stack:
        stack[-1].add(level, text)
        return
    text = text.decode('utf-8', 'replace')
    log.log(logging.ERROR if level <= 1 else
            logging.WARNING if level == 2 else logging.DEBUG, '%s', text)

