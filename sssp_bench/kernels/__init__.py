"""Pure CPU kernels (numba): sequential Dijkstra, Bellman-Ford (queue-based and textbook) and BFS over a CSRGraph,
and the parallel delta-stepping and direction-optimizing BFS, whose threads meet in one persistent region through
the atomics and spin barrier of atomics.py.

They know nothing of implementations, configs or runs. The CPU baselines (impls/cpu_*.py) wrap them in the
implementation contract; verification (run/verify.py) takes the queue-based Bellman-Ford as its reference where
weights are negative; graph descriptions (graph/describe.py) and the roofline's hop depths (run/roofline.py) run
the BFS.
"""
