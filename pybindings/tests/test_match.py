"""Match play from Python: ``play_match`` gives what ``sowing match --json`` prints, the series'
odds are exact (the first starter wins every series when South always wins), bad arguments
raise, and Ctrl-C ends a long series."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sowing
from sowing.agents import Greedy, play_match, series_odds

SOWING = Path(__file__).resolve().parents[2] / "target" / "debug" / "sowing"


def test_the_series_is_the_commands_series():
    ours = play_match(
        "en-dodoi-6", "greedy", "mcts:20", 3, seed=4, opening=2, games_per_estimate=20, threads=2
    )
    if not SOWING.exists():
        pytest.skip("the sowing command is built by `cargo test` (make test builds it first)")
    command = [SOWING, "match", "--variant", "en-dodoi-6", "--agents", "greedy,mcts:20"]
    command += ["--to", "3", "--seed", "4", "--opening", "2", "--games-per-estimate", "20"]
    out = subprocess.run([*command, "--json"], capture_output=True, text=True, check=True)
    assert ours == json.loads(out.stdout)


def test_a_series_report_adds_up():
    r = play_match(sowing.Rules("en-dodoi-6"), Greedy(), "random", 4, seed=1, games_per_estimate=40)
    assert r["agents"] == ["greedy", "random"] and r["to"] == 4
    score = [0, 0]
    for i, game in enumerate(r["games"]):
        assert game["number"] == i and game["south"] == i % 2
        final = sowing.State.initial("en-dodoi-6")
        for a in game["moves"]:
            final = final.play(a)
        assert list(final.captured) == [game["captured"]["south"], game["captured"]["north"]]
        if game["outcome"]["result"] == "won":
            south_won = game["outcome"]["winner"] == "south"
            score[game["south"] if south_won else 1 - game["south"]] += 1
        assert game["score"] == score
    assert r["score"] == score and max(score) == 4 and score[r["winner"]] == 4
    e = r["estimate"]
    assert e["games"] == 40
    assert e["a_wins_low"] <= e["odds"]["a_wins"] <= e["a_wins_high"]
    assert play_match("en-dodoi-6", "greedy", "random", 2, games_per_estimate=0)["estimate"] is None


def test_series_odds_are_exact():
    # Two perfect players of en-dodoi-6 each win every game they start as South.
    for to in (1, 3, 10):
        assert series_odds(to, (1, 0, 0), (0, 0, 1)) == (1.0, 0.0, 0.0, 2 * to - 1)
    odds = series_odds(1, (0.25, 0.5, 0.25), (0.25, 0.5, 0.25))
    assert odds.a_wins == pytest.approx(0.5) and odds.expected_games == pytest.approx(2.0)
    # A series to 2 without draws: A wins games 1 and 2, or two of three otherwise.
    w_s, w_n = 0.7, 0.4
    exact = w_s * w_n + w_s * (1 - w_n) * w_s + (1 - w_s) * w_n * w_s
    assert series_odds(2, (w_s, 0, 1 - w_s), (w_n, 0, 1 - w_n)).a_wins == pytest.approx(exact)
    assert series_odds(2, (0, 1, 0), (0, 1, 0)) == (0.0, 0.0, 1.0, None)
    # The estimate of a played series is these odds at its measured rates.
    r = play_match("en-dodoi-6", "greedy", "random", 3, games_per_estimate=30)
    e = r["estimate"]
    rates = [
        tuple(e[side][k] / 15 for k in ("wins", "draws", "losses"))
        for side in ("a_south", "a_north")
    ]
    assert series_odds(3, *rates).a_wins == pytest.approx(e["odds"]["a_wins"], abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "error", "says"),
    [
        ({"a": "greedy", "b": "greedy"}, ValueError, "two different agents"),
        ({"b": "wizard"}, ValueError, "valid forms"),
        ({"to": 0}, ValueError, "to must be 1 to 10000"),
        ({"to": "3"}, TypeError, "to must be an integer"),
        ({"games_per_estimate": 7}, ValueError, "must be even"),
        ({"max_games": 2}, ValueError, "may need 5 games"),
        ({"threads": 5000}, ValueError, "threads must be 0"),
        ({"opening": 5000}, ValueError, "opening must be"),
        ({"opening": 500}, ValueError, "random play seldom lasts"),
        ({"variant": "oware"}, ValueError, "valid variants"),
        ({"max_games": 10**18}, MemoryError, "needs"),
    ],
)
def test_bad_arguments_raise_with_a_reason(kwargs, error, says):
    call = {"variant": "en-dodoi-6", "a": "greedy", "b": "random", "to": 3} | kwargs
    with pytest.raises(error, match=says):
        play_match(call.pop("variant"), call.pop("a"), call.pop("b"), call.pop("to"), **call)


@pytest.mark.parametrize(
    ("odds", "says"), [((0.5, 0.6, 0.1), "summing to 1"), ((-0.1, 0.6, 0.5), "each 0 to 1")]
)
def test_bad_odds_raise(odds, says):
    with pytest.raises(ValueError, match=says):
        series_odds(3, odds, (0.5, 0, 0.5))


def test_ctrl_c_ends_a_long_series():
    child = textwrap.dedent(
        """
        import os, signal, threading, time
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in test_interrupt.py
        from sowing.agents import play_match
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        began = time.perf_counter()
        try:
            play_match("en-dodoi-10", "mcts:10000000", "alphabeta:64", 100, threads=1)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted", time.perf_counter() - began)
        """
    )
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert out.stdout.startswith("interrupted"), out.stdout + out.stderr
    # The series would take minutes; stopped, it ends soon after the signal (the bound is loose
    # for a busy machine).
    assert float(out.stdout.split()[1]) < 0.5 + 5.0
