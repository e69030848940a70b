"""Stage 4 of the pipeline, results: the one owner of what a run writes and what it means.

The runner writes a run folder (`schema`: the manifest's keys, the row fields, the statuses, the schema's version);
everything downstream reads it through this package: `load` (a run folder into its manifest and rows, several
runs into one labelled frame), `names` (the variants a name in a config or on the command line stands for),
`summary` (one row per graph and variant: timings of verified solves, speedups, speed targets), `compare` (is one
timing really faster than another: paired by source, a bootstrap interval, a verdict), `claims` (a config's
claims judged on the rows) and `recommend` (which variant to pick per graph and problem kind). `numbers` says how
a number reads where results are written as text.

Nothing here imports the report package; the report only reads results through these modules.
"""
