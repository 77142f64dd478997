"""`python -m gatecheck ARGS`: the `gatecheck` command line, the binary of this package."""

from __future__ import annotations

import os
import subprocess
import sys

from ._binary import bin_path


def main() -> None:
    """Runs the binary with this process's arguments and exits with its exit code."""
    try:
        exe = bin_path()
    except FileNotFoundError as e:
        sys.stderr.write(f"python -m gatecheck: {e}\n")
        sys.exit(2)
    argv = [exe, *sys.argv[1:]]
    if sys.platform == "win32":
        sys.exit(subprocess.call(argv))
    os.execv(exe, argv)


if __name__ == "__main__":
    main()
