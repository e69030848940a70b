"""Stage 3 of the pipeline, run: a config, checked against its schema, driven through every implementation x
graph x source by the runner, which owns every clock, verifies every answer (`verify`, the device certificate),
measures the roofline floor and writes result rows and a manifest with the run's provenance.
"""
