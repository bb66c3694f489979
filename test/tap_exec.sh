#!/usr/bin/env bash
# tap_exec.sh — prove's interpreter (--exec) when run_tap.sh runs as root.
# Runs one TAP test file as the postgres user (initdb and the server refuse
# root), except a test that says on a line of its own
#     # tap: starts as root
# which sets up privileged fixtures (mounts, loop devices) itself, runs its
# checks as postgres in a child process and removes the fixtures at the end.
set -euo pipefail
test_file=$1
if grep -qx '# tap: starts as root' "$test_file"; then
    exec perl "$test_file"
fi
exec runuser -u postgres -- perl "$test_file"
