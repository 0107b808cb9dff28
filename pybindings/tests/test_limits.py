"""What used to kill the interpreter now raises: a deep solve on a thread with a small stack
(it overflowed that stack: a segfault), and requests for more memory than the process may have
(the allocation failed: an abort). Each case runs in a child process, so that a crash fails the
test instead of the test run.
"""

import subprocess
import sys
import textwrap

import pytest


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )


def test_a_deep_solve_on_a_thread_with_a_small_stack():
    # Python's smallest thread stack: the search, 15 plies deep by 3 million positions, took
    # more than this and crashed the interpreter.
    done = run(
        """
        import threading
        from sowing import State
        from sowing.agents import AlphaBeta, solve

        threading.stack_size(32 * 1024)
        out = []

        def work():
            out.append(solve(State.initial("en-dodoi-6"), nodes=3_000_000, depth=999))
            out.append(AlphaBeta(depth=12).choose(State.initial("en-dodoi-8")))

        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        print(out[0].depth, out[0].nodes, out[1])
        """
    )
    assert done.returncode == 0, done.stderr
    depth, nodes, action = (int(x) for x in done.stdout.split())
    assert depth >= 13 and nodes > 2_999_000 and 0 <= action < 8


LIMITED = """
    import resource
    import numpy as np
    from sowing import State
    from sowing.agents import solve
    from sowing.vector import SelfPlayVec

    # Address space for what is loaded now and 512 MiB more: the allocator refuses beyond it.
    with open("/proc/self/status") as status:
        size_kib = next(int(l.split()[1]) for l in status if l.startswith("VmSize:"))
    limit = size_kib * 1024 + (512 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux keeps it")
@pytest.mark.parametrize(
    "call, what",
    [
        (
            'SelfPlayVec("en-dodoi-10", 2**20)',
            "a batch of 1048576 games of 2x10, 4 seeds, take, ccw",
        ),
        ('solve(State.initial("en-dodoi-6"), table_bits=30)', "a solver table of 2^30 positions"),
    ],
)
def test_more_memory_than_the_process_may_have_is_a_memory_error(call, what):
    done = run(
        LIMITED
        + f"""
    try:
        {call}
    except MemoryError as e:
        print("MemoryError:", e)
    # The interpreter goes on: a batch that fits is made and stepped.
    vec = SelfPlayVec("en-dodoi-6", 256)
    vec.step(vec.sample_actions())
    print("alive")
    """
    )
    assert done.returncode == 0, done.stderr
    first, alive = done.stdout.strip().splitlines()
    assert first.startswith(f"MemoryError: {what} needs ") and "GiB of memory" in first
    assert alive == "alive"
