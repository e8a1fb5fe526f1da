"""`python -m harness.frontends.cli`: the `guandan` command."""

from harness.frontends.cli import run

run()
