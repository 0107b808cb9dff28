"""A process forked after a batch has stepped on several threads (multiprocessing's ``fork``
start method, the default on Linux before Python 3.14) has none of the batch's worker threads:
it must still step the batch, and get what the parent gets."""

import multiprocessing

import numpy as np
import pytest

from sowing.vector import SelfPlayVec


def play(vec: SelfPlayVec, steps: int) -> np.ndarray:
    """Step with the batch's own random actions; the observations after."""
    for _ in range(steps):
        out = vec.step(vec.sample_actions())
    return out.observations


def child(vec: SelfPlayVec, steps: int, conn) -> None:
    conn.send(play(vec, steps))
    conn.close()


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_a_forked_child_steps_a_batch_that_stepped_before_the_fork():
    # 1024 games on 3 threads: every thread steps chunks of the batch before the fork.
    vec = SelfPlayVec("en-dodoi-8", 1024, seed=3, threads=3)
    play(vec, 5)
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=child, args=(vec, 30, send))
    process.start()
    send.close()
    expected = play(vec, 30)
    try:
        # Before the fix the child hung for ever on its first step.
        assert receive.poll(60), "the forked child did not step its batch within a minute"
        got = receive.recv()
    finally:
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join()
    assert process.exitcode == 0
    np.testing.assert_array_equal(got, expected)
