"""Code mutation of the reference interpreter with cosmic-ray, judged by the bundled corpus.

`python -m tools.mutation run --sample 300 --seed 1` runs a seeded sample of the interpreter's
code mutants, each against `guandan check --engine reference`, on a copy of the package (never
the working tree), and reports the survivors against the reviewed equivalents of
`spec/equivalent-code-mutants.yaml`.
"""
