"""``python -m hack.freeze``: build (or find in the cache) the frozen one-folder plugin and print its folder."""

import sys

from . import FreezeError, frozen_dir

try:
    print(frozen_dir())
except FreezeError as exc:
    sys.stderr.write(f"error: {exc}\n")
    sys.exit(1)
