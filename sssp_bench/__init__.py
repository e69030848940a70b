"""sssp-bench: a harness that reproduces the classic GPU SSSP and BFS papers' experiments."""

__version__ = "0.1.0"
