#!/bin/sh
# Runs its arguments as a command WITHOUT exec (the engine is a child of this shell, not the
# shell itself), then hangs: killing only this shell would leave the engine running, and the
# shell outlives the engine's own exit after `bye`. The harness must end the whole group.
"$@"
sleep 600
