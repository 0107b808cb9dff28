"""The PettingZoo AEC environment: PettingZoo's own API and seed tests, and the game's rules."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import sowing
from sowing import IllegalActionError, State
from sowing.pettingzoo import env, raw_env


@pytest.mark.parametrize("variant", ["en-dodoi-6", "sadeqa-iii", "cross-endodoi"])
def test_api_test(variant):
    api_test(env(variant), num_cycles=300)


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
    assert e.state == State.initial("en-dodoi-8").play(7)
    assert e.agent_selection == "player_1"
    south, north = e.observe("player_0"), e.observe("player_1")
    assert not south["action_mask"].any(), "only the agent to move has legal actions"
    assert south["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(north["action_mask"], e.state.legal_mask().astype(np.int8))
    np.testing.assert_array_equal(north["observation"], e.state.observation())
    np.testing.assert_array_equal(south["observation"], e.state.observation(sowing.SOUTH))


def test_illegal_action_raises():
    e = env("en-dodoi-6")
    e.reset()
    e.step(0)
    e.step(0)  # after 0 and 0, South's hole 3 is empty
    with pytest.raises(IllegalActionError, match="legal actions"):
        e.step(3)
    with pytest.raises(ValueError, match="None"):
        e.step(None)
