#!/usr/bin/env bash
# Runs the Python package's tests (python/tests) with the given interpreter
# (default python3); exit 77 (CTest: skipped) when it has no numpy.
set -euo pipefail
py=${1:-python3}
cd "$(dirname "$0")/tests"
if ! "$py" -c "import numpy" 2> /dev/null; then
  echo "python tests skipped: $py has no numpy (apt-get install python3-numpy)"
  exit 77
fi
"$py" -c "import torch" 2> /dev/null || echo "torch not found: the torch tests are skipped (apt-get install python3-torch)"
exec "$py" -m unittest discover -s . -p 'test_*.py' -v
