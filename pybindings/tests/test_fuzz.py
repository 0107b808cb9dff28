"""Every Python entry point on generated input, as a careless user would call it: each call
either works or raises ValueError (IllegalActionError and GameOverError among them), TypeError,
IndexError or MemoryError with a message. A panic (PyO3's PanicException, a BaseException), a
SystemError, an OverflowError or a crash fails the test.

Hypothesis runs derandomized, so a run is the same every time; budgets and sizes are kept small
where a valid value would mean a long search or a large batch.
"""

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sowing
from sowing import Rules, State
from sowing.agents import Agent, solve
from sowing.env import SowingEnv
from sowing.vector import SelfPlayVec, VecEnv

pettingzoo = pytest.importorskip("sowing.pettingzoo")

EXPECTED = (ValueError, TypeError, IndexError, MemoryError)
FUZZ = settings(
    derandomize=True,
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def refused_or_done(call, *args, also=(), **kwargs):
    """Call; an expected refusal is returned (with a message checked), anything else raised."""
    try:
        return call(*args, **kwargs)
    except EXPECTED + also as e:
        assert str(e).strip(), f"{type(e).__name__} without a message"
        return e


NUMPY_SCALARS = [
    np.int64(3),
    np.int32(-1),
    np.uint64(2**64 - 1),
    np.int8(5),
    np.uint8(200),
    np.bool_(True),
    np.float64(2.0),
    np.float32(2.9),
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 20),
    st.integers(-(2**130), 2**130),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(NUMPY_SCALARS),
)
ARRAYS = st.builds(
    lambda values, dtype: np.array(values).astype(dtype),
    st.lists(st.integers(-5, 300), max_size=20),
    st.sampled_from(["int64", "int32", "uint8", "float64", "bool", "int16"]),
)
ANYTHING = st.one_of(
    SCALARS,
    ARRAYS,
    st.lists(SCALARS, max_size=20),
    st.tuples(SCALARS, SCALARS),
    st.dictionaries(st.text(max_size=8), SCALARS, max_size=3),
)
VARIANTS = st.one_of(st.sampled_from(sowing.variants()), ANYTHING)


def not_costly_int(low: int, high: int):
    """Values for an integer argument whose valid values above ``high`` cost time or memory:
    small valid ones, huge or negative ones, and anything else."""
    not_int = SCALARS.filter(
        lambda v: not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_))
    )
    return st.one_of(
        st.integers(low, high), st.integers(-(2**70), -1), st.integers(2**40, 2**70), not_int
    )


FIELDS = ["holes", "seeds", "trigger", "direction", "skip_origin", "max_laps", "max_plies", "bogus"]


@FUZZ
@given(fields=st.dictionaries(st.sampled_from(FIELDS), ANYTHING, max_size=4))
def test_rules(fields):
    refused_or_done(Rules, **fields)
    refused_or_done(Rules.from_dict, fields)


@FUZZ
@given(text=st.text(max_size=80))
def test_text_readers(text):
    refused_or_done(Rules, text)
    refused_or_done(Rules.from_json, text)
    refused_or_done(Rules.from_toml, text)
    refused_or_done(State.from_json, text)


@FUZZ
@given(
    variant=VARIANTS,
    board=st.one_of(ANYTHING, st.lists(st.integers(-2, 50), min_size=12, max_size=12)),
    captured=ANYTHING,
    to_move=ANYTHING,
    ply=ANYTHING,
)
def test_state_constructor(variant, board, captured, to_move, ply):
    refused_or_done(State, variant, board, captured, to_move, ply)
    refused_or_done(State, variant, board)
    refused_or_done(State.initial, variant)


@FUZZ
@given(moves=st.lists(ANYTHING, max_size=8), player=ANYTHING)
def test_state_play(moves, player):
    state = State.initial("en-dodoi-6")
    for move in moves:
        refused_or_done(state.is_legal, move)
        after = refused_or_done(state.play, move)
        if isinstance(after, State):
            state = after
    refused_or_done(state.observation, player)


@FUZZ
@given(
    variant=VARIANTS,
    num_envs=not_costly_int(1, 40),
    seed=ANYTHING,
    autoreset=st.one_of(st.sampled_from(["same-step", "next-step", "off"]), ANYTHING),
    threads=not_costly_int(0, 3),
    random_opening=not_costly_int(0, 5),
)
def test_selfplay_vec_constructor(variant, num_envs, seed, autoreset, threads, random_opening):
    vec = refused_or_done(
        SelfPlayVec, variant, num_envs, seed=seed, autoreset=autoreset, threads=threads,
        random_opening=random_opening,
    )
    if isinstance(vec, SelfPlayVec):
        vec.close()


@FUZZ
@given(
    autoreset=st.sampled_from(["same-step", "next-step", "off"]),
    seeds=st.lists(ANYTHING, max_size=3),
    actions=st.lists(st.one_of(ANYTHING, st.lists(st.integers(-1, 6), min_size=5, max_size=5))),
    options=st.lists(
        st.one_of(
            st.none(),
            st.dictionaries(
                st.sampled_from(["reset_mask", "x"]),
                st.one_of(ANYTHING, st.lists(st.booleans(), min_size=5, max_size=5).map(np.array)),
            ),
        ),
        max_size=3,
    ),
    indices=st.lists(ANYTHING, max_size=3),
)
def test_selfplay_vec_methods(autoreset, seeds, actions, options, indices):
    with SelfPlayVec("en-dodoi-6", 5, autoreset=autoreset) as vec:
        for seed, option in zip(seeds, options):
            refused_or_done(vec.reset, seed, option)
        for a in actions:
            refused_or_done(vec.step, a)
            refused_or_done(vec.step, vec.sample_actions())
        for index in indices:
            refused_or_done(vec.state, index)


@FUZZ
@given(
    spec=st.one_of(
        st.builds(
            "{}{}".format,
            st.sampled_from(["alphabeta:", "mcts:", "greedy", "random", "az:", ""]),
            st.one_of(
                st.text(max_size=8),
                st.integers(-5, 10**12).map(str),
                st.sampled_from(["5ms", "0s", "1e9s", "-1ms"]),
            ),
        ),
        ANYTHING,
    ),
    seed=ANYTHING,
)
def test_agent_specs(spec, seed):
    agent = refused_or_done(Agent, spec, seed)
    if isinstance(agent, Agent):
        refused_or_done(agent.seed, seed)


@FUZZ
@given(
    nodes=not_costly_int(1, 2000),
    depth=not_costly_int(1, 999),
    table_bits=st.one_of(st.integers(-5, 16), st.integers(31, 2**70), SCALARS),
    player_agent=st.sampled_from(["greedy", "alphabeta:2", "mcts:30", "random"]),
    state=ANYTHING,
)
def test_solve_and_choose(nodes, depth, table_bits, player_agent, state):
    start = State.initial("en-dodoi-6")
    refused_or_done(solve, start, nodes, depth, table_bits)
    refused_or_done(solve, state)
    agent = Agent(player_agent)
    refused_or_done(agent.choose, state)
    assert agent.choose(start) in start.legal_moves()


@FUZZ
@given(
    variant=VARIANTS,
    opponent=st.one_of(st.sampled_from(["random", "greedy", "alphabeta:x"]), ANYTHING),
    agent_side=ANYTHING,
    render_mode=st.one_of(st.sampled_from(["ansi", "human", "rgb_array"]), ANYTHING),
    illegal_action=st.one_of(st.sampled_from(["raise", "lose"]), ANYTHING),
)
def test_gymnasium_env_constructor(variant, opponent, agent_side, render_mode, illegal_action):
    env = refused_or_done(
        SowingEnv, variant, opponent=opponent, agent_side=agent_side, render_mode=render_mode,
        illegal_action=illegal_action,
    )
    if isinstance(env, SowingEnv):
        env.close()


@FUZZ
@given(
    illegal_action=st.sampled_from(["raise", "lose"]),
    seed=ANYTHING,
    actions=st.lists(st.one_of(st.integers(-1, 6), ANYTHING), max_size=10),
    masks=st.lists(
        st.one_of(ANYTHING, st.lists(st.integers(0, 1), min_size=6, max_size=6).map(np.array)),
        max_size=3,
    ),
)
def test_gymnasium_env_methods(illegal_action, seed, actions, masks):
    env = gym.make("sowing/en-dodoi-6-v0", illegal_action=illegal_action)
    # A seed Gymnasium refuses is its own error type.
    if isinstance(refused_or_done(env.reset, seed=seed, also=(gym.error.Error,)), Exception):
        env.reset(seed=0)
    for a in actions:
        refused_or_done(env.step, a)
    for mask in masks:
        refused_or_done(env.action_space.sample, mask, also=(AssertionError,))
    env.close()


@FUZZ
@given(
    num_envs=not_costly_int(1, 4),
    illegal_action=st.one_of(st.sampled_from(["raise", "lose"]), ANYTHING),
    actions=st.lists(ANYTHING, max_size=4),
    options=st.one_of(st.none(), st.dictionaries(st.sampled_from(["reset_mask"]), ANYTHING)),
)
def test_gymnasium_vector_env(num_envs, illegal_action, actions, options):
    envs = refused_or_done(VecEnv, "en-dodoi-6", num_envs, illegal_action=illegal_action)
    if not isinstance(envs, VecEnv):
        return
    envs.reset(seed=0)
    refused_or_done(envs.reset, options=options)
    for a in actions:
        refused_or_done(envs.step, a)
    envs.close()


@FUZZ
@given(
    variant=VARIANTS,
    render_mode=st.one_of(st.sampled_from(["ansi", "human"]), ANYTHING),
    illegal_action=st.one_of(st.sampled_from(["raise", "lose"]), ANYTHING),
    actions=st.lists(ANYTHING, max_size=8),
)
def test_pettingzoo_env(variant, render_mode, illegal_action, actions):
    env = refused_or_done(
        pettingzoo.env, variant, render_mode=render_mode, illegal_action=illegal_action
    )
    if isinstance(env, Exception):
        return
    env.reset()
    for a in actions:
        if not env.agents:
            break
        refused_or_done(env.step, a)
        refused_or_done(env.state)


@FUZZ
@given(
    kind=st.sampled_from(["AlphaBeta", "MCTS", "Greedy", "Random"]),
    count=st.one_of(st.none(), SCALARS),
    time=st.one_of(st.none(), SCALARS),
    seed=st.one_of(st.just(0), SCALARS),
)
def test_agent_classes(kind, count, time, seed):
    cls = getattr(sowing.agents, kind)
    if kind in ("Greedy", "Random"):
        refused_or_done(cls, seed=seed)
    else:
        refused_or_done(cls, count, time=time, seed=seed)
