#!/usr/bin/env bash
# Sets up the project in .venv (from the package registries only) and runs the test suite.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[all,bench,dev]'

# pytest exits 5 when it collects nothing: that is a failure here, not a pass.
exec .venv/bin/python -m pytest -n 2 "$@"
