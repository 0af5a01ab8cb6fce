"""The one exception type of llgen: its message is a single sentence naming the bad value."""


class LlgenError(ValueError):
    """Bad input. The CLI prints the message alone and exits with status 2."""
