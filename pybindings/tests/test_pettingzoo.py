"""The PettingZoo AEC environment: PettingZoo's own API, seed, render and state tests, the
game's rules, actions refused, and the "lose" convention for illegal actions."""

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.test.state_test import test_state as pz_state_test
from pettingzoo.test.state_test import test_state_space as pz_state_space_test

import sowing
from sowing import IllegalActionError, State
from sowing.pettingzoo import env, raw_env


@pytest.mark.parametrize("variant", ["en-dodoi-6", "sadeqa-iii", "cross-endodoi"])
@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
def test_api_test(variant, illegal_action):
    api_test(env(variant, illegal_action=illegal_action), num_cycles=300)


@pytest.mark.parametrize("variant", ["en-dodoi-8", "cross-endodoi"])
def test_seed_test(variant):
    seed_test(lambda: env(variant), num_cycles=300)


def play(e, seed):
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    log = []
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        log.append((agent, obs["observation"].copy(), obs["action_mask"].copy(), reward))
        if termination or truncation:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
    return log


def test_determinism_and_rewards():
    a, b = play(env("en-dodoi-7"), 5), play(env("en-dodoi-7"), 5)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x[0] == y[0] and x[3] == y[3]
        np.testing.assert_array_equal(x[1], y[1])
        np.testing.assert_array_equal(x[2], y[2])
    final = {agent: reward for agent, _, _, reward in a[-2:]}
    assert set(final) == {"player_0", "player_1"}
    assert final["player_0"] == -final["player_1"]


def test_game_follows_the_engine():
    e = raw_env("en-dodoi-8")
    e.reset()
    assert e.agent_selection == "player_0"
    e.step(7)
    assert e.position == State.initial("en-dodoi-8").play(7)
    assert e.agent_selection == "player_1"
    south, north = e.observe("player_0"), e.observe("player_1")
    assert not south["action_mask"].any(), "only the agent to move has legal actions"
    assert south["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(north["action_mask"], e.position.legal_mask().astype(np.int8))
    np.testing.assert_array_equal(north["observation"], e.position.observation())
    np.testing.assert_array_equal(south["observation"], e.position.observation(sowing.SOUTH))


def test_illegal_action_raises():
    e = env("en-dodoi-6")
    e.reset()
    e.step(0)
    e.step(0)  # after 0 and 0, South's hole 3 is empty
    with pytest.raises(IllegalActionError, match="legal actions"):
        e.step(3)
    with pytest.raises(ValueError, match="None"):
        e.step(None)


def test_render_test():
    render_test(lambda render_mode=None: env("en-dodoi-6", render_mode=render_mode))


def test_human_mode_prints_every_move(capsys):
    e = env("en-dodoi-6", render_mode="human")
    e.reset()
    assert "South to move" in capsys.readouterr().out
    e.step(0)
    out = capsys.readouterr().out
    assert "North to move" in out and "ply 1" in out
    assert e.render() is None and "ply 1" in capsys.readouterr().out


def test_state_is_the_global_state():
    # PettingZoo's state test samples actions without their mask: illegal ones end the game.
    e = env("en-dodoi-6", illegal_action="lose")
    pz_state_space_test(e)
    pz_state_test(e, num_cycles=100)
    e.reset()
    e.step(2)
    position = e.unwrapped.position
    state = e.state()
    assert e.state_space.contains(state)
    np.testing.assert_array_equal(state[:-1], position.observation(0))
    assert state[-1] == position.to_move == 1


@pytest.mark.parametrize("bad", [2.9, 2.0, "2", [2], np.float64(2.0)])
def test_a_non_integer_action_is_refused_and_changes_nothing(bad):
    e = env("en-dodoi-6")
    e.reset()
    with pytest.raises(TypeError, match="an action is an integer 0 to 5"):
        e.step(bad)
    assert e.unwrapped.position == State.initial("en-dodoi-6")
    e.step(np.int32(2))  # numpy integers are actions
    e.step(np.uint8(0))
    assert e.unwrapped.position == State.initial("en-dodoi-6").play(2).play(0)


@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
def test_an_action_out_of_range_raises_under_both_conventions(illegal_action):
    e = env("en-dodoi-6", illegal_action=illegal_action)
    e.reset()
    for bad in (-1, 6, 10**30):
        with pytest.raises(IllegalActionError, match="out of range"):
            e.step(bad)
    assert e.unwrapped.position == State.initial("en-dodoi-6")


def test_illegal_action_lose_ends_the_game_against_the_mover():
    e = env("en-dodoi-6", illegal_action="lose")
    e.reset()
    e.step(0)
    e.step(0)  # after 0 and 0, South's hole 3 is empty
    before = e.unwrapped.position
    e.step(3)
    assert e.unwrapped.position == before, "the illegal move is not played"
    _, reward, termination, truncation, info = e.last()
    assert e.agent_selection == "player_0"
    assert (reward, termination, truncation) == (-1.0, True, False)
    assert info["illegal_action"]
    assert e.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert not e.observe("player_0")["action_mask"].any()
    e.step(None)
    _, reward, termination, _, info = e.last()
    assert e.agent_selection == "player_1" and reward == 0.0 and termination
    assert not info["illegal_action"]
    e.step(None)
    assert e.agents == []
    e.reset()
    assert e.unwrapped.position == State.initial("en-dodoi-6")
    assert e.agents == ["player_0", "player_1"]
