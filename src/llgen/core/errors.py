"""The one exception type of llgen (its message is a single sentence naming the bad value), and the one way any
exception becomes a line of output."""


class LlgenError(ValueError):
    """Bad input. The CLI prints the message alone and exits with status 2. Whitespace runs in the message
    (a quoted input may hold newlines or tabs) become single spaces, so it is always one line."""

    def __init__(self, message: object = "", *args: object):
        super().__init__(" ".join(str(message).split()), *args)


def one_line(text: object) -> str:
    """Text as one line: whitespace runs collapse to one space."""
    return " ".join(str(text).split())


def error_line(e: BaseException, limit: int = 300) -> str:
    """An exception as one line for a report row or a crash message: its type, then the first line of its message that
    says "error" (a compiler's log), else the first line, at most ``limit`` characters."""
    lines = [one_line(x) for x in str(e).splitlines() if x.strip()]
    pick = next((x for x in lines if "error" in x.lower()), lines[0] if lines else "")
    return f"{type(e).__name__}: {pick}"[:limit]
