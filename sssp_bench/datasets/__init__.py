"""Stage 1 of the pipeline, datasets: the papers' real graphs from the outside world into the cache.

`catalog` lists them (catalog.yaml), `download` and `archive` bring a file in safely, `formats` parses DIMACS,
METIS, SNAP and Matrix Market text into CSR, and `fetch` ties these together into `datasets/<name>.csr`.
"""
