"""The frozen executable's entry point (PyInstaller runs it as ``__main__``).

krew installs one executable, so the same binary also serves kubectl's completion protocol:
``kubectl-instancetype __complete ARGS...`` (what the launcher written by ``completion install-helper`` runs).
"""

import sys

from kubectl_instancetype.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
