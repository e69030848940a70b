"""Stage 2 of the pipeline, graph: the one in-memory and on-disk graph format (CSR) and everything that makes or
reads one: the seeded generators, weights, the seeded source picker, Table 1 facts, and `load`, which turns a
config's graph entry (a generator spec, a catalog name or a file) into a CSRGraph.
"""
