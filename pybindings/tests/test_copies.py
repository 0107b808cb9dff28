"""Every public value type pickles and copies as the value it is: a proof, a probe, a linear
evaluator, a table (by its file), a network agent (its network, or an ``az:`` spec), and the
PettingZoo environment with its game under way; and a Gymnasium environment with a network
opponent runs in ``AsyncVectorEnv(context="spawn")``, whose workers get it pickled."""

import copy
import pickle

import gymnasium
import numpy as np
import pytest

import sowing
from sowing import State
from sowing.agents import solve
from sowing.search import LinearEvaluator, NetworkAgent, input_length

D = input_length(6)
RNG = np.random.default_rng(0)
POLICY = (RNG.standard_normal((D, 6)) * 0.1).astype(np.float32)
VALUE = (RNG.standard_normal(D) * 0.1).astype(np.float32)


def endgame(board):
    """An en-dodoi-6 position with ``board`` (South's row, then North's) and the rest captured."""
    return State("en-dodoi-6", board, (48 - sum(board), 0))


def copies(x):
    """``x`` pickled at every protocol, copied and deep-copied."""
    out = [pickle.loads(pickle.dumps(x, protocol=p)) for p in range(2, pickle.HIGHEST_PROTOCOL + 1)]
    return out + [copy.copy(x), copy.deepcopy(x)]


def test_proofs_and_probes_are_values(tmp_path):
    state = State.initial("en-dodoi-6").play(2).play(0)
    proof = solve(state, nodes=20_000)
    table = sowing.Tablebase.build("en-dodoi-6", 8, tmp_path / "t.tb")
    probe = table.probe(endgame([1, 0, 0, 0, 0, 2] + [1, 1, 0, 0, 0, 0]))
    assert probe is not None
    for x in copies(proof):
        assert type(x) is sowing.agents.Proof and repr(x) == repr(proof)
    for x in copies(probe):
        assert x == probe
    with pytest.raises(ValueError, match='"win", "draw" or "loss"'):
        sowing.Probe(0, False, 0, "maybe")
    with pytest.raises(ValueError, match="go together"):
        sowing.agents.Proof(3, None, [], False, 1, 1)


def test_a_linear_evaluator_pickles_with_its_weights():
    linear = LinearEvaluator(POLICY, VALUE)
    states = [State.initial("en-dodoi-6").play(a) for a in range(6)]
    want = sowing.search.search(states, linear, simulations=16)
    for x in copies(linear):
        assert np.array_equal(x.policy, POLICY) and np.array_equal(x.value, VALUE)
        got = sowing.search.search(states, x, simulations=16)
        assert np.array_equal(got.visits, want.visits)


def test_a_table_pickles_by_its_file_and_copies_its_values(tmp_path):
    path = tmp_path / "t.tb"
    table = sowing.Tablebase.build("en-dodoi-6", 6, path)
    state = endgame([0, 1, 0, 0, 2, 0] + [0, 0, 1, 0, 0, 0])
    for x in copies(table):
        assert len(x) == len(table) and x.max_seeds == 6 and x.value(state) == table.value(state)
    in_memory = sowing.Tablebase.build("en-dodoi-6", 4)
    assert copy.deepcopy(in_memory).value(state) == in_memory.value(state) is not None
    with pytest.raises(TypeError, match=r"call write\(path\) first"):
        pickle.dumps(in_memory)
    pickled = pickle.dumps(table)
    sowing.Tablebase.build("en-dodoi-6", 5, path)  # the file now holds another table
    with pytest.raises(ValueError, match="the file was replaced"):
        pickle.loads(pickled)


def test_a_network_agent_pickles_with_its_network_and_seed():
    agent = NetworkAgent(LinearEvaluator(POLICY, VALUE), "en-dodoi-6", simulations=24, seed=9)
    state = State.initial("en-dodoi-6")
    want = agent.choose(state)
    for x in copies(agent):
        assert x.name == agent.name and x.current_seed == 9 and x.holes == 6
        assert x.choose(state) == want


def test_the_pettingzoo_game_under_way_survives_a_copy_and_a_pickle():
    from sowing.pettingzoo import env

    game = env("en-dodoi-6")
    game.reset()
    for a in (2, 0, 3):
        game.step(a)
    # (A shallow copy of the wrapper shares its environment, as shallow copies do.)
    for x in [c for c in copies(game) if c.unwrapped is not game.unwrapped]:
        assert x.unwrapped.position == game.unwrapped.position
        assert x.agent_selection == game.agent_selection
        assert x.unwrapped.position.ply == 3
        # Their own games: a move in the copy leaves the original where it was.
        x.step(x.unwrapped.position.legal_moves()[0])
        assert game.unwrapped.position.ply == 3


def test_pettingzoo_rewards_are_floats_after_an_illegal_move():
    from sowing.pettingzoo import env

    game = env("en-dodoi-6", illegal_action="lose")
    game.reset()
    game.step(2)
    empty = [a for a in range(6) if a not in game.unwrapped.position.legal_moves()]
    game.step(empty[0])
    assert all(type(r) is float for r in game.rewards.values()), game.rewards
    assert game.rewards == {"player_0": 0.0, "player_1": -1.0}


def test_an_opponent_driving_its_own_environment_is_refused():
    box = {}

    def meddling(state):
        box["env"].unwrapped.step(0)
        return state.legal_moves()[0]

    box["env"] = gymnasium.make("sowing/en-dodoi-6-v0", opponent=meddling, agent_side=0)
    box["env"].reset(seed=0)
    with pytest.raises(RuntimeError, match="inside the opponent"):
        box["env"].step(2)
    assert box["env"].unwrapped.state.ply == 0, "the game is as it was"


def make_env(opponent):
    return lambda: gymnasium.make("sowing/en-dodoi-6-v0", opponent=opponent, agent_side=0)


def run_spawned(opponent):
    envs = gymnasium.vector.AsyncVectorEnv([make_env(opponent)] * 2, context="spawn")
    try:
        obs, info = envs.reset(seed=0)
        for _ in range(3):
            masks = info["action_mask"].astype(bool)
            obs, reward, term, trunc, info = envs.step(masks.argmax(axis=1))
        return obs
    finally:
        envs.close()


def test_async_vector_env_with_spawn_takes_a_network_opponent():
    agent = NetworkAgent(LinearEvaluator(POLICY, VALUE), "en-dodoi-6", simulations=8)
    obs = run_spawned(agent)
    assert obs.shape == (2, 14)


def test_async_vector_env_with_spawn_takes_an_az_opponent(tmp_path):
    torch = pytest.importorskip("torch")
    from sowing import nn

    torch.manual_seed(0)
    nn.save(nn.PolicyValueNet(6, hidden=8, blocks=1), tmp_path, "en-dodoi-6", simulations=4)
    agent = sowing.agents.from_spec(f"az:{tmp_path}")
    again = pickle.loads(pickle.dumps(agent))
    assert again.name == agent.name
    assert run_spawned(agent).shape == (2, 14)
