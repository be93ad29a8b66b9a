#!/usr/bin/env bash
# Sets up the project in .venv (from the package registries only) and runs the test suite.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need, installed when missing (as root, from Debian's registry):
# chromium drives the browser tests (Playwright with executable_path), fonts-dejavu-core gives
# the PDF fixtures a Cyrillic font, openjdk-17-jre-headless runs Spark in local mode, antiword
# and catdoc read Word 97-2003 .doc files (neardup.inputs.office_doc runs them).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v antiword >/dev/null 2>&1 || missing+=(antiword)
command -v catdoc >/dev/null 2>&1 || missing+=(catdoc)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing Debian's ${missing[*]} for the tests" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null) || \
      echo "could not install ${missing[*]}: the tests that need them will say so" >&2
  else
    echo "missing ${missing[*]} and cannot apt-get install as non-root: the tests that need them will say so" >&2
  fi
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[all,bench,dev]'

# PostgreSQL: the backend's tests use the real server on 127.0.0.1:5432; start it if it is down.
if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
    echo "PostgreSQL is down; starting it" >&2
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start || \
      echo "could not start PostgreSQL: its tests will fail and say so" >&2
  fi
else
  echo "no PostgreSQL installed here: its tests will fail and say so (NEARDUP_SKIP_POSTGRES=1 skips them)" >&2
fi

# Lint and types are part of the test: a lint, format or type error fails the run.
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
.venv/bin/mypy

# pytest exits 5 when it collects nothing: that is a failure here, not a pass.
.venv/bin/python -m pytest -n 2 "$@"

# The heavy tests (minutes on the real corpora: the 50k-document Spark/local identity) run in CI
# (CI=true) or on request (NEARDUP_HEAVY=1), after everything else has passed.
if [ "${CI:-}" = "true" ] || [ "${NEARDUP_HEAVY:-}" = "1" ]; then
  .venv/bin/python -m pytest -m heavy -p no:cacheprovider
fi
