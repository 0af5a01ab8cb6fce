"""The one exception type of llgen: its message is a single sentence naming the bad value."""


class LlgenError(ValueError):
    """Bad input. The CLI prints the message alone and exits with status 2. Whitespace runs in the message
    (a quoted input may hold newlines or tabs) become single spaces, so it is always one line."""

    def __init__(self, message: object = "", *args: object):
        super().__init__(" ".join(str(message).split()), *args)
