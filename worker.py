"""Process entry of ``filmworker`` (and ``python -m worker``): the command line is
:mod:`app.cli`, the workers :mod:`app.workers`."""

from __future__ import annotations

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
