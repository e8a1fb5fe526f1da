"""`python -m harness.frontends.cli`: the `guandan` command."""

from harness.frontends.cli import main

raise SystemExit(main())
