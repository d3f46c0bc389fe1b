"""The console scripts end without Python's finalization only when nothing is left for it to do (cli/main.py
exit_now): what was printed arrives, the exit status is the command's, and an atexit handler or another thread
still gets Python's ordinary exit."""

from __future__ import annotations

import subprocess
import sys

import pytest

PRELUDE = "import sys; from kubectl_instancetype.cli.main import exit_now\n"


@pytest.mark.parametrize(
    ("body", "status", "printed"),
    [
        # a large block buffered in stdout, and a line on stderr: both flushed before the process ends
        ("sys.stdout.write('x' * 100000 + '\\n'); sys.stderr.write('error: e\\n'); sys.exit(exit_now(1))", 1, 100001),
        # the process ends there: no object is finalized (this one would print)
        ("class D:\n    def __del__(self): print('finalized')\nd = D()\nsys.exit(exit_now(0))", 0, 0),
        # atexit handlers run: exit_now returns the status to sys.exit
        ("import atexit; atexit.register(lambda: print('handler ran'))\nsys.exit(exit_now(3))", 3, 12),
        # another thread: Python's exit waits for it
        (
            "import threading, time\n"
            "threading.Thread(target=lambda: (time.sleep(0.2), print('thread done'))).start()\n"
            "sys.exit(exit_now(0))",
            0,
            12,
        ),
    ],
    ids=["flushed", "no finalization", "atexit", "thread"],
)
def test_exit_now(body: str, status: int, printed: int) -> None:
    result = subprocess.run([sys.executable, "-c", PRELUDE + body], capture_output=True, text=True, timeout=60)
    assert (result.returncode, len(result.stdout)) == (status, printed), result.stderr


def test_a_profiler_still_writes_its_stats(tmp_path) -> None:
    # python -m cProfile writes its file after the script returns: a process ended by os._exit would lose it
    script = tmp_path / "script.py"
    script.write_text(PRELUDE + "print('ran'); sys.exit(exit_now(0))\n")
    stats = tmp_path / "stats.prof"
    result = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(stats), str(script)], capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stdout, stats.exists()) == (0, "ran\n", True), result.stderr


def test_the_console_scripts_are_the_exit_now_entry_points() -> None:
    import tomllib
    from pathlib import Path

    scripts = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["scripts"]
    # the completion helper is a sh script of the wheel (cli/completion_shell.py), not a console script
    assert scripts == {"kubectl-instancetype": "kubectl_instancetype.cli.main:console"}


def test_the_console_scripts_collect_garbage_less_often_but_still_collect() -> None:
    # cli/main.py fewer_collections: the first generation's threshold raised, the others Python's; a cycle that
    # became garbage is still found (by the next collection, or at once when asked)
    body = (
        "import gc, weakref\n"
        "from kubectl_instancetype.cli.main import GC_THRESHOLD, fewer_collections\n"
        "before = gc.get_threshold(); fewer_collections(); after = gc.get_threshold()\n"
        "class Node: pass\n"
        "node = Node(); node.me = node; gone = weakref.ref(node); del node\n"
        "kept = [[] for _ in range(2 * GC_THRESHOLD)]\n"
        "print(after == (GC_THRESHOLD, *before[1:]), after[0] > before[0], gone() is None)\n"
    )
    result = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["True", "True", "True"], result.stderr
