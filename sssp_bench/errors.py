"""Errors that reach the user as one line, never as a traceback.

A `UserError` says what was wrong with the user's input: which file, line or key, and what was expected.
The CLI prints its message and exits with status 2. Anything else that escapes is a bug in sssp-bench.
"""


class UserError(Exception):
    """Bad input from the user: a file, a spec, a config key. The message is the whole story."""


class GraphFormatError(UserError):
    """A graph file that is not what it claims: wrong magic, truncated, sizes that disagree, bad lines."""


class SpecError(UserError):
    """A generator or weight spec that does not parse or names an unknown parameter."""


class ConfigError(UserError):
    """A run config that fails the schema."""


class NegativeCycleError(Exception):
    """A solver found a negative cycle reachable from the source: the distances do not exist.

    Not a user error: on a graph with a negative cycle this *is* the correct answer, and the runner records it.
    """

    def __init__(self, message: str = "negative cycle reachable from the source", vertex: int | None = None):
        super().__init__(message)
        self.vertex = vertex


class UnsupportedGraphError(Exception):
    """An implementation refuses a graph it cannot handle (e.g. Dijkstra given negative weights)."""
