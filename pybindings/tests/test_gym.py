"""The single-agent Gymnasium environment: registration, the env checker, opponents, sides,
masks, rendering, determinism and bad input."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sowing
from sowing import GameOverError, IllegalActionError, State
from sowing.env import SowingEnv

IDS = [f"sowing/{name}-v0" for name in sowing.variants()]


# check_env samples its step-determinism action before its seeded reset. From the start every
# hole is legal, so that action always plays when the agent moves first; the registered default
# side is random, and the checker's seed (123) gives South. With agent_side="north" the
# opponent's first move may empty the sampled hole, and the illegal action raises, as documented.
@pytest.mark.parametrize("env_id", IDS)
def test_check_env_on_every_registered_id(env_id):
    assert env_id in gym.registry
    env = gym.make(env_id)
    assert isinstance(env.unwrapped, gym.Env) and isinstance(env.unwrapped, SowingEnv)
    check_env(env.unwrapped, skip_render_check=False)
    env.close()


def test_action_space_samples_legal_actions():
    env = gym.make("sowing/en-dodoi-6-v0", opponent=lambda s: 0, agent_side="south")
    env.reset(seed=0)
    env.step(0)  # South's hole 3 is empty now
    env.action_space.seed(0)
    assert {int(env.action_space.sample()) for _ in range(200)} == set(env.unwrapped.state.legal_moves())
    mask = np.array([0, 0, 0, 1, 0, 0], dtype=np.int8)
    assert env.action_space.sample(mask=mask) == 3, "an explicit mask is Discrete's own"


def play_episode(env, seed, pick=None):
    """Play one episode with masked random actions; returns the whole trajectory."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trajectory = [(obs, info["action_mask"])]
    while True:
        legal = np.flatnonzero(info["action_mask"])
        np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"])
        action = int(rng.choice(legal)) if pick is None else pick(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        trajectory.append((obs, info["action_mask"], reward, terminated, truncated))
        if terminated or truncated:
            assert not info["action_mask"].any()
            return trajectory


def test_episode_rewards_and_outcome():
    env = gym.make("sowing/en-dodoi-8-v0", agent_side="south")
    results = set()
    for seed in range(20):
        trajectory = play_episode(env, seed)
        *_, (obs, mask, reward, terminated, truncated) = trajectory
        assert all(step[2] == 0.0 for step in trajectory[1:-1])
        state = env.unwrapped.state
        assert terminated == state.is_terminal() and truncated == state.is_truncated()
        assert reward == state.returns()[0]
        results.add(reward)
    assert results <= {-1.0, 0.0, 1.0} and {-1.0, 1.0} <= results


def test_determinism_same_seed_same_trajectory():
    a = play_episode(gym.make("sowing/sadeqa-iii-v0"), seed=7)
    b = play_episode(gym.make("sowing/sadeqa-iii-v0"), seed=7)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)


def test_agent_side_fixed_and_random():
    north = gym.make("sowing/en-dodoi-6-v0", agent_side="north")
    obs, info = north.reset(seed=0)
    state = north.unwrapped.state
    assert info["agent_side"] == 1 and state.to_move == 1 and state.ply == 1
    assert info["opponent_action"] is not None
    np.testing.assert_array_equal(obs, state.observation(1))
    south = gym.make("sowing/en-dodoi-6-v0", agent_side=0)
    _, info = south.reset(seed=0)
    assert info["agent_side"] == 0 and south.unwrapped.state.ply == 0
    either = gym.make("sowing/en-dodoi-6-v0", agent_side="random")
    sides = {either.reset(seed=s)[1]["agent_side"] for s in range(20)}
    assert sides == {0, 1}
    with pytest.raises(ValueError, match="agent_side"):
        gym.make("sowing/en-dodoi-6-v0", agent_side="east")


def test_callable_opponent_and_agent_opponents():
    seen = []

    def leftmost(state: State) -> int:
        seen.append(state)
        return state.legal_moves()[0]

    env = gym.make("sowing/en-dodoi-6-v0", opponent=leftmost, agent_side="north")
    env.reset(seed=1)
    assert seen and isinstance(seen[0], State) and env.unwrapped.state.ply == 1
    assert env.unwrapped.state.board[:6] == State.initial("en-dodoi-6").play(0).board[:6]

    for opponent in ("greedy", "alphabeta:2", "mcts:50", sowing.agents.AlphaBeta(depth=2)):
        env = gym.make("sowing/en-dodoi-6-v0", opponent=opponent)
        play_episode(env, seed=3)


def test_bad_opponents():
    with pytest.raises(ValueError, match="valid forms"):
        gym.make("sowing/en-dodoi-6-v0", opponent="alphabeta")
    with pytest.raises(TypeError, match="opponent"):
        gym.make("sowing/en-dodoi-6-v0", opponent=3)
    env = gym.make("sowing/en-dodoi-6-v0", opponent=lambda s: 99, agent_side="north")
    with pytest.raises(ValueError, match="opponent"):
        env.reset(seed=0)


def test_deepcopy_and_pickle_keep_the_action_space_working():
    import copy
    import pickle

    env = SowingEnv("en-dodoi-6", agent_side="south")
    env.reset(seed=0)
    env.step(0)
    twin = copy.deepcopy(env)
    twin.step(twin.state.legal_moves()[0])
    assert twin.state != env.state
    twin.action_space.seed(1)
    assert all(twin.state.is_legal(int(twin.action_space.sample())) for _ in range(50))
    space = pickle.loads(pickle.dumps(env.action_space))
    assert space == gym.spaces.Discrete(6)


def leftmost_or_0(state):
    return 0 if state.is_legal(0) else state.legal_moves()[0]


def test_illegal_action_lists_legal_actions():
    env = gym.make("sowing/en-dodoi-6-v0", agent_side="south", opponent=leftmost_or_0)
    env.reset(seed=0)
    env.step(0)  # the opponent answers 0 too, which empties South's hole 3
    legal = env.unwrapped.state.legal_moves()
    assert 3 not in legal
    before = env.unwrapped.state
    with pytest.raises(IllegalActionError) as e:
        env.step(3)
    assert f"legal actions: {legal}" in str(e.value)
    assert env.unwrapped.state == before, "an illegal action changes nothing"
    for bad in (-1, 6):
        with pytest.raises(IllegalActionError, match="out of range"):
            env.step(bad)
    with pytest.raises(TypeError, match="integer"):
        env.step(1.5)
    env.step(np.int64(legal[0]))  # numpy integers are actions


def test_step_after_the_end_without_reset():
    env = gym.make("sowing/en-dodoi-6-v0")
    play_episode(env, seed=0)
    with pytest.raises(GameOverError, match="reset"):
        env.step(0)
    env.reset()
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))


def test_step_before_reset():
    with pytest.raises(gym.error.ResetNeeded):
        SowingEnv("en-dodoi-6").step(0)


def test_render_ansi():
    env = gym.make("sowing/cross-endodoi-v0", render_mode="ansi", agent_side="south")
    env.reset(seed=0)
    text = env.render()
    assert "agent: South" in text and "legal actions" in text
    assert gym.make("sowing/cross-endodoi-v0").unwrapped.render() is None
    with pytest.warns(UserWarning, match="not supported"):
        env = SowingEnv("en-dodoi-6", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render() is None


def test_render_human_prints(capsys):
    env = gym.make("sowing/en-dodoi-6-v0", render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "legal actions" in capsys.readouterr().out


def test_stable_baselines3_helpers():
    sb3 = pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    from stable_baselines3.common.env_util import make_vec_env

    sb3_check_env(gym.make("sowing/en-dodoi-8-v0").unwrapped)
    with pytest.warns(UserWarning, match="rgb_array"):  # make_vec_env asks for it first
        vec = make_vec_env("sowing/en-dodoi-6-v0", n_envs=2, seed=0)
    assert vec.reset().shape == (2, 14)
    masks = vec.env_method("action_masks")
    assert len(masks) == 2 and all(m.dtype == bool and m.any() for m in masks)
    assert isinstance(vec, sb3.common.vec_env.DummyVecEnv)


def test_custom_rules():
    rules = sowing.Rules(holes=5, seeds=3, trigger="leave")
    env = SowingEnv(rules)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (12,) and env.action_space.n == 5
    with pytest.raises(ValueError, match="valid variants"):
        gym.make("sowing/en-dodoi-6-v0", variant="nope")


def test_sample_with_the_info_mask():
    env = gym.make("sowing/en-dodoi-6-v0", opponent=leftmost_or_0, agent_side="south")
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step(0)  # South's hole 3 is empty now
    assert info["action_mask"].dtype == np.int8, "Gymnasium's dtype for masks"
    env.action_space.seed(0)
    drawn = {int(env.action_space.sample(mask=info["action_mask"])) for _ in range(200)}
    assert drawn == set(env.unwrapped.state.legal_moves())
    bools = info["action_mask"].astype(bool)
    assert {int(env.action_space.sample(mask=bools)) for _ in range(200)} == drawn
    np.testing.assert_array_equal(env.unwrapped.action_masks(), bools)


def test_render_human_prints_every_step(capsys):
    env = gym.make("sowing/en-dodoi-6-v0", render_mode="human", agent_side="south")
    env.reset(seed=0)
    assert "ply 0" in capsys.readouterr().out
    env.step(0)
    assert "ply 2" in capsys.readouterr().out, "the board after the opponent's answer"


def test_make_vec_uses_the_vector_entry_point(recwarn):
    envs = gym.make_vec("sowing/en-dodoi-6-v0", num_envs=3, agent_side="south")
    assert isinstance(envs, sowing.vector.VecEnv) and envs.num_envs == 3
    assert envs.spec.id == "sowing/en-dodoi-6-v0"
    assert not [w for w in recwarn if "autoreset" in str(w.message)]
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (3, 14) and (infos["agent_side"] == 0).all()
    sync = gym.make_vec("sowing/en-dodoi-6-v0", num_envs=3, vectorization_mode="sync")
    assert isinstance(sync, gym.vector.SyncVectorEnv)


def play_out(env):
    """Play the lowest legal action until the game ends; the observations and rewards seen."""
    log = []
    while not env.unwrapped.state.is_over():
        obs, reward, *_ = env.step(env.unwrapped.state.legal_moves()[0])
        log.append((obs.tolist(), reward))
    return log


@pytest.mark.parametrize(
    "opponent", ["random", "greedy", "mcts:20", lambda: sowing.agents.Random(seed=3)]
)
def test_a_deep_copy_plays_on_as_the_original_with_a_stream_of_its_own(opponent):
    import copy

    opponent = opponent() if callable(opponent) else opponent
    env = SowingEnv("en-dodoi-6", opponent=opponent, agent_side="south")
    env.reset(seed=5)
    env.step(env.state.legal_moves()[0])
    twin, untouched = copy.deepcopy(env), copy.deepcopy(env)
    # The twin plays its game out first: had it shared the original's opponent stream, the
    # original would then see other opponent moves than its untouched copy does.
    twin_log = play_out(twin)
    log = play_out(env)
    assert log == play_out(untouched)
    assert log == twin_log, "a deep copy plays on as the original does"


def test_illegal_action_lose():
    env = gym.make(
        "sowing/en-dodoi-6-v0", agent_side="south", opponent=leftmost_or_0, illegal_action="lose"
    )
    env.reset(seed=0)
    env.step(0)  # the opponent answers 0, which empties South's hole 3
    before = env.unwrapped.state
    obs, reward, terminated, truncated, info = env.step(3)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] and info["outcome"] == "north"
    assert not info["action_mask"].any() and not env.unwrapped.action_masks().any()
    assert env.unwrapped.state == before, "the illegal move is not played"
    np.testing.assert_array_equal(obs, before.observation(0))
    with pytest.raises(GameOverError, match="illegal action"):
        env.step(1)
    for bad in (-1, 6):
        with pytest.raises(IllegalActionError, match="out of range"):
            env.step(bad)
    with pytest.raises(TypeError, match="integer"):
        env.step(2.9)
    _, info = env.reset(seed=1)
    assert not info["illegal_action"] and info["action_mask"].all()
    with pytest.raises(ValueError, match="illegal_action"):
        SowingEnv("en-dodoi-6", illegal_action="ignore")


@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
def test_check_env_under_both_illegal_action_conventions(illegal_action):
    env = gym.make("sowing/sadeqa-iii-v0", illegal_action=illegal_action)
    check_env(env.unwrapped, skip_render_check=False)


def test_a_float_action_is_refused_even_when_whole():
    env = gym.make("sowing/en-dodoi-6-v0", agent_side="south")
    env.reset(seed=0)
    for bad in (2.0, np.float32(1.0), "1", None):
        with pytest.raises(TypeError, match="an action is an integer 0 to 5"):
            env.step(bad)
    assert env.unwrapped.state == State.initial("en-dodoi-6")


def test_rules_whose_start_has_no_legal_move_are_refused_by_every_env():
    # With max_laps = 4, every first move of 2x6 with 4 seeds sows on past four laps: the game
    # would be over before it began (max_laps = 8 leaves every move legal).
    from sowing.pettingzoo import env as pettingzoo_env
    from sowing.vector import SelfPlayVec, VecEnv

    dead = sowing.Rules.from_dict({"holes": 6, "seeds": 4, "max_laps": 4})
    live = sowing.Rules.from_dict({"holes": 6, "seeds": 4, "max_laps": 8})
    makers = [
        lambda rules: SowingEnv(rules),
        lambda rules: VecEnv(rules, 2),
        lambda rules: SelfPlayVec(rules, 2),
        lambda rules: pettingzoo_env(rules),
    ]
    for make in makers:
        with pytest.raises(ValueError, match=r"has no legal move: each of South's moves is endless"):
            make(dead)
        make(live)
