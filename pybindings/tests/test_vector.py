"""Batched environments: SelfPlayVec (the Rust fast path) and the Gymnasium vector env VecEnv,
checked against Gymnasium's own SyncVectorEnv and its vector wrappers."""

import threading

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import sowing
from sowing import GameOverError, IllegalActionError, State
from sowing.vector import SelfPlayVec, VecEnv


def masked_random(masks, rng):
    """One uniformly random legal action per row of ``masks``, chosen with numpy."""
    scores = rng.random(masks.shape) + masks  # legal in [1, 2), illegal in [0, 1)
    return scores.argmax(axis=1)


def test_selfplay_shapes_and_dtypes():
    vec = SelfPlayVec("en-dodoi-8", 5, seed=1)
    obs, masks, to_move = vec.reset()
    assert obs.shape == (5, 18) and obs.dtype == np.float32
    assert masks.shape == (5, 8) and masks.dtype == np.bool_
    assert to_move.shape == (5,) and to_move.dtype == np.int64 and (to_move == 0).all()
    step = vec.step(np.full(5, 7))
    assert step.observations.shape == (5, 18) and step.rewards.dtype == np.float32
    assert step.terminated.dtype == np.bool_ and step.truncated.dtype == np.bool_
    assert (step.to_move == 1).all()
    expected = State.initial("en-dodoi-8").play(7)
    assert vec.state(0) == expected and vec.state(-1) == expected
    np.testing.assert_array_equal(step.observations[0], expected.observation())
    np.testing.assert_array_equal(step.masks[0], expected.legal_mask())
    assert len(vec) == 5 and vec.autoreset == "same-step"


def test_selfplay_returns_fresh_arrays():
    vec = SelfPlayVec("en-dodoi-6", 3, seed=0)
    first = vec.reset()
    second = vec.step(np.zeros(3, dtype=np.int64))
    assert not np.shares_memory(first.observations, second.observations)
    assert not np.array_equal(first.observations, second.observations)


def run_selfplay(variant, num_envs, seed, steps, threads=0, autoreset="same-step"):
    vec = SelfPlayVec(variant, num_envs, seed=seed, threads=threads, autoreset=autoreset,
                      random_opening=2)
    rng = np.random.default_rng(seed)
    out = [vec.reset()]
    for _ in range(steps):
        out.append(vec.step(masked_random(out[-1].masks, rng)))
    return out


def test_selfplay_determinism():
    a = run_selfplay("cross-endodoi", 300, 4, 200)
    b = run_selfplay("cross-endodoi", 300, 4, 200, threads=1)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    # Game i's random opening comes from its own stream, whatever the batch size.
    small = SelfPlayVec("cross-endodoi", 7, seed=4, random_opening=5)
    large = SelfPlayVec("cross-endodoi", 256, seed=4, random_opening=5)
    np.testing.assert_array_equal(small.reset().observations, large.reset().observations[:7])
    assert all(small.state(i) == large.state(i) for i in range(7))


def test_selfplay_games_follow_the_rules():
    """Replay every game of a batch through State.play and compare each step."""
    vec = SelfPlayVec("sadeqa-iii", 64, seed=2)
    rng = np.random.default_rng(2)
    reset = vec.reset()
    states = [State.initial("sadeqa-iii") for _ in range(64)]
    masks, ended = reset.masks, 0
    for _ in range(400):
        actions = vec.sample_actions()
        assert all(masks[i, a] for i, a in enumerate(actions))
        step = vec.step(actions)
        for i in range(64):
            mover = states[i].to_move
            nxt = states[i].play(int(actions[i]))
            assert step.terminated[i] == nxt.is_terminal()
            assert step.truncated[i] == nxt.is_truncated()
            assert step.rewards[i] == nxt.returns()[mover]
            if nxt.is_over():
                ended += 1
                np.testing.assert_array_equal(vec.final_observations()[i], nxt.observation())
                nxt = State.initial("sadeqa-iii")
            np.testing.assert_array_equal(step.observations[i], nxt.observation())
            assert step.to_move[i] == nxt.to_move
            states[i] = nxt
        masks = step.masks
    assert ended > 0


def test_selfplay_next_step_and_off():
    vec = SelfPlayVec("en-dodoi-6", 1, seed=0, autoreset="next-step")
    obs, masks, _ = vec.reset()
    rng = np.random.default_rng(0)
    while True:
        step = vec.step(masked_random(masks, rng))
        masks = step.masks
        if step.terminated[0] or step.truncated[0]:
            break
    assert not step.masks.any()
    again = vec.step(np.array([99]))  # ignored: this step resets the game
    assert again.rewards[0] == 0 and not again.terminated[0] and again.masks.all()
    assert vec.state(0) == State.initial("en-dodoi-6")

    off = SelfPlayVec("en-dodoi-6", 1, seed=0, autoreset="off")
    _, masks, _ = off.reset()
    while True:
        step = off.step(masked_random(masks, rng))
        masks = step.masks
        if step.terminated[0] or step.truncated[0]:
            break
    with pytest.raises(ValueError, match="game 0: the game is over"):
        off.step(np.array([0]))
    off.reset()
    off.step(np.array([0]))


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
)
def test_selfplay_takes_actions_of_any_integer_type(dtype):
    ints = SelfPlayVec("en-dodoi-6", 4, seed=0)
    wide = SelfPlayVec("en-dodoi-6", 4, seed=0)
    ints.reset(), wide.reset()
    for actions in ([2, 3, 4, 5], [0, 1, 2, 0]):
        got, want = ints.step(np.array(actions, dtype=dtype)), wide.step(np.array(actions))
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
    if dtype in (np.uint64, np.uint32, np.uint16, np.uint8):
        with pytest.raises(ValueError, match="out of range"):
            ints.step(np.array([np.iinfo(dtype).max] * 4, dtype=dtype))


def test_selfplay_takes_torch_tensors():
    torch = pytest.importorskip("torch")
    vec = SelfPlayVec("en-dodoi-6", 3, seed=0)
    vec.reset()
    out = vec.step(torch.tensor([2, 3, 4]))
    assert out.to_move.tolist() == [1, 1, 1]
    vec.step(torch.tensor([0, 1, 2], dtype=torch.int8))
    with pytest.raises(TypeError, match="must be integers"):
        vec.step(torch.tensor([0.0, 1.0, 2.0]))


def test_selfplay_bad_input():
    vec = SelfPlayVec("en-dodoi-6", 4, seed=0)
    vec.reset()
    with pytest.raises(TypeError, match="must be integers, got dtype float64"):
        vec.step(np.zeros(4, dtype=np.float64))
    with pytest.raises(TypeError, match="must be integers, got dtype bool"):
        vec.step(np.zeros(4, dtype=bool))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        vec.step(np.zeros(5, dtype=np.int64))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        vec.step(np.zeros((4, 1), dtype=np.int64))
    with pytest.raises(ValueError, match="expected 4 actions"):
        vec.step([0, 1])
    with pytest.raises(TypeError, match="numpy array"):
        vec.step("0123")
    with pytest.raises(ValueError, match="game 2: action 6 is out of range"):
        vec.step(np.array([0, 0, 6, 0]))
    with pytest.raises(ValueError, match="game 1: action -1"):
        vec.step(np.array([0, -1, 0, 0], dtype=np.int32))
    assert all(vec.state(i) == State.initial("en-dodoi-6") for i in range(4)), "nothing moved"
    vec.step(np.zeros(4, dtype=np.int64))
    vec.step(np.zeros(4, dtype=np.int32))
    with pytest.raises(ValueError, match="game 0: action 3 is illegal"):
        vec.step(np.array([3, 1, 1, 1], dtype=np.int32))  # after 0 and 0 South's hole 3 is empty
    vec.step(np.array([1, 1, 1, 1], dtype=np.int32))
    vec.step([int(a) for a in vec.sample_actions()])  # a list of ints works too
    vec.step(np.repeat(vec.sample_actions(), 2)[::2])  # and a non-contiguous view
    with pytest.raises(ValueError, match="num_envs"):
        SelfPlayVec("en-dodoi-6", 0)
    with pytest.raises(ValueError, match="autoreset"):
        SelfPlayVec("en-dodoi-6", 2, autoreset="sometimes")
    with pytest.raises(ValueError, match="valid variants"):
        SelfPlayVec("mancala", 2)
    with pytest.raises(IndexError):
        vec.state(4)


def test_selfplay_threads_step_concurrently():
    errors = []

    def work(seed):
        try:
            run_selfplay("en-dodoi-8", 512, seed, 50)
        except Exception as e:  # noqa: BLE001 - collected and asserted below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# --- VecEnv, the Gymnasium vector env --------------------------------------------------------


def test_vecenv_spaces_and_metadata():
    envs = VecEnv("en-dodoi-6", 4)
    assert isinstance(envs, gym.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.observation_space.shape == (4, 14)
    assert envs.single_action_space == gym.spaces.Discrete(6)
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (4, 6)
    rng = np.random.default_rng(0)
    for _ in range(50):
        masks = envs.action_masks()
        actions = np.where(masks.any(axis=1), masked_random(masks, rng), 0)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert envs.observation_space.contains(obs)
        assert rewards.shape == terminated.shape == truncated.shape == (4,)


def run_vector(envs, seed, steps):
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    log = [(obs, infos["action_mask"])]
    for _ in range(steps):
        masks = infos["action_mask"]
        # A game being autoreset has an all-false mask; its action is ignored.
        actions = np.where(masks.any(axis=1), masked_random(masks, rng), 0)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        log.append((obs, infos["action_mask"], rewards, terminated, truncated))
    return log


def test_vecenv_matches_sync_vector_env():
    ours = VecEnv("en-dodoi-7", 6, agent_side="random")
    sync = SyncVectorEnv(
        [lambda: gym.make("sowing/en-dodoi-7-v0", agent_side="random") for _ in range(6)]
    )
    a, b = run_vector(ours, 3, 150), run_vector(sync, 3, 150)
    finished = 0
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
        if len(x) > 2:
            finished += int(x[3].sum())
    assert finished > 0, "episodes ended and were autoreset"


def test_vecenv_next_step_autoreset():
    envs = VecEnv("en-dodoi-6", 2)
    log = run_vector(envs, 11, 200)
    for before, after in zip(log[1:], log[2:]):
        for i in range(2):
            if before[3][i] or before[4][i]:
                assert after[2][i] == 0 and not after[3][i] and not after[4][i]
                assert after[1][i].any(), "the reset game has legal moves"


def test_vecenv_determinism_and_wrappers():
    a = run_vector(VecEnv("sadeqa-91", 3), 5, 100)
    b = run_vector(VecEnv("sadeqa-91", 3), 5, 100)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    stats = RecordEpisodeStatistics(VecEnv("en-dodoi-6", 3))
    log = run_vector(stats, 0, 300)
    assert sum(int(step[3].sum() + step[4].sum()) for step in log[1:]) > 0
    assert len(stats.return_queue) > 0


def test_vecenv_bad_input():
    envs = VecEnv("en-dodoi-6", 2, agent_side="south", opponent=lambda s: 0)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        envs.step(np.array([0, 0, 0]))
    with pytest.raises(TypeError, match="integers"):
        envs.step(np.array([0.0, 1.0]))
    envs.step(np.array([0, 0]))  # the opponent answers 0, which empties South's hole 3
    before = [env.state for env in envs.envs]
    with pytest.raises(IllegalActionError, match="game 1"):
        envs.step(np.array([1, 3]))
    assert [env.state for env in envs.envs] == before, "a bad action moves no game"
    with pytest.raises(ValueError, match="num_envs"):
        VecEnv("en-dodoi-6", 0)
    with pytest.raises(ValueError, match="seeds"):
        envs.reset(seed=[1, 2, 3])


def test_selfplay_metadata_names_the_autoreset_mode():
    for mode, gym_mode in [
        ("same-step", AutoresetMode.SAME_STEP),
        ("next-step", AutoresetMode.NEXT_STEP),
        ("off", AutoresetMode.DISABLED),
    ]:
        assert SelfPlayVec("en-dodoi-6", 2, autoreset=mode).metadata["autoreset_mode"] == gym_mode


def test_selfplay_releases_the_gil_while_stepping():
    vec = SelfPlayVec("en-dodoi-10", 1 << 17, seed=0, threads=1)
    vec.reset()
    actions = vec.sample_actions()
    done = threading.Event()

    def work():
        for _ in range(5):
            vec._vec.step(actions)
            actions[:] = vec.sample_actions()
        done.set()

    ticks = 0
    thread = threading.Thread(target=work)
    thread.start()
    while not done.is_set():
        # Runs only while the stepping thread is outside Python: it holds the GIL only to
        # copy the arrays in and out.
        ticks += 1
        done.wait(0.0005)
    thread.join()
    assert ticks >= 20, f"only {ticks} ticks while stepping"


# --- Gymnasium's conventions: reset_mask, make_vec, spaces, close, typed errors --------------


def test_vecenv_reset_mask_resets_only_the_flagged_games_as_sync_vector_env_does():
    ours = VecEnv("en-dodoi-6", 4, agent_side="random")
    sync = SyncVectorEnv([lambda: gym.make("sowing/en-dodoi-6-v0") for _ in range(4)])
    rng = np.random.default_rng(0)
    for envs in (ours, sync):
        envs.reset(seed=2)
    for _ in range(6):
        masks = ours.action_masks()
        actions = np.where(masks.any(axis=1), masked_random(masks, rng), 0)
        a = ours.step(actions)
        b = sync.step(actions)
        np.testing.assert_array_equal(a[0], b[0])
    before = [env.state for env in ours.envs]
    flags = np.array([False, True, False, True])
    options = {"reset_mask": flags}
    obs, infos = ours.reset(seed=[None, 7, None, 9], options=options)
    sync_obs, _ = sync.reset(seed=[None, 7, None, 9], options={"reset_mask": flags})
    np.testing.assert_array_equal(obs, sync_obs)
    assert "reset_mask" in options, "the caller's options are left as they were"
    after = [env.state for env in ours.envs]
    assert after[0] == before[0] and after[2] == before[2]
    assert after[1].ply <= 1 and after[3].ply <= 1
    assert infos["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(infos["action_mask"].astype(bool), ours.action_masks())


@pytest.mark.parametrize(
    "mask, error, match",
    [
        ([True, False], TypeError, "numpy array of dtype bool"),
        (np.array([1, 0]), TypeError, "dtype bool"),
        (np.array([True]), ValueError, r"shape \(2,\)"),
        (np.array([False, False]), ValueError, "at least one"),
    ],
)
def test_vecenv_refuses_a_bad_reset_mask(mask, error, match):
    envs = VecEnv("en-dodoi-6", 2)
    envs.reset(seed=0)
    with pytest.raises(error, match=match):
        envs.reset(options={"reset_mask": mask})


def test_vecenv_illegal_action_lose_ends_that_game_only():
    envs = VecEnv("en-dodoi-6", 2, agent_side="south", opponent=lambda s: 0, illegal_action="lose")
    envs.reset(seed=0)
    envs.step(np.array([0, 0]))  # the opponent answers 0, which empties South's hole 3
    obs, rewards, terminated, truncated, infos = envs.step(np.array([1, 3]))
    assert terminated.tolist() == [False, True] and rewards[1] == -1.0
    with pytest.raises(IllegalActionError, match="game 0: action 6 is out of range"):
        envs.step(np.array([6, 0]))
    obs, rewards, terminated, _, _ = envs.step(np.array([2, 0]))  # game 1 is reset
    assert rewards[1] == 0 and envs.envs[1].state.ply == 0


def test_gymnasium_vector_wrappers_follow_reset_mask():
    stats = RecordEpisodeStatistics(gym.make_vec("sowing/en-dodoi-6-v0", num_envs=3))
    log = run_vector(stats, 0, 100)
    assert sum(int(step[3].sum() + step[4].sum()) for step in log[1:]) > 0
    stats.reset(options={"reset_mask": np.array([True, False, False])})
    assert stats.episode_lengths[0] == 0


def test_selfplay_has_batched_spaces():
    vec = SelfPlayVec("en-dodoi-8", 5, seed=0)
    assert vec.single_observation_space == gym.spaces.Box(0.0, 1.0, (18,), np.float32)
    assert vec.single_action_space == gym.spaces.Discrete(8)
    assert vec.observation_space.shape == (5, 18)
    assert vec.action_space == gym.spaces.MultiDiscrete([8] * 5)
    reset = vec.reset()
    assert vec.observation_space.contains(reset.observations)
    vec.action_space.seed(0)
    assert vec.action_space.sample().shape == (5,)


def test_selfplay_close_and_with():
    with SelfPlayVec("en-dodoi-6", 3) as vec:
        vec.reset()
        assert not vec.closed
    assert vec.closed and "closed" in repr(vec)
    for call in (vec.reset, vec.sample_actions, vec.final_observations, lambda: vec.state(0),
                 lambda: vec.step(np.zeros(3, dtype=np.int64))):
        with pytest.raises(ValueError, match="closed"):
            call()
    vec.close()  # closing twice is harmless


def test_selfplay_errors_are_typed():
    vec = SelfPlayVec("en-dodoi-6", 4, seed=0, autoreset="off")
    vec.reset()
    with pytest.raises(IllegalActionError, match="game 2: action 6 is out of range"):
        vec.step(np.array([0, 0, 6, 0]))
    vec.step(np.zeros(4, dtype=np.int64))
    vec.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(IllegalActionError, match="game 0: action 3 is illegal"):
        vec.step(np.array([3, 1, 1, 1]))
    rng = np.random.default_rng(0)
    step = vec.step(vec.sample_actions())
    while not (step.terminated | step.truncated).any():
        step = vec.step(vec.sample_actions())
    ended = int(np.flatnonzero(step.terminated | step.truncated)[0])
    actions = np.where(step.masks.any(axis=1), masked_random(step.masks, rng), 0)
    with pytest.raises(GameOverError, match=f"game {ended}: the game is over"):
        vec.step(actions)
    assert issubclass(IllegalActionError, ValueError) and issubclass(GameOverError, ValueError)


def test_selfplay_off_resets_one_game_with_reset_mask():
    vec = SelfPlayVec("en-dodoi-6", 64, seed=3, autoreset="off", random_opening=2)
    first = vec.reset(seed=3)
    step = vec.step(vec.sample_actions())
    while not (step.terminated | step.truncated).any():
        step = vec.step(vec.sample_actions())
    ended = step.terminated | step.truncated
    going = [vec.state(i) for i in range(64)]
    again = vec.reset(seed=3, options={"reset_mask": ended})
    for i in range(64):
        if ended[i]:
            assert vec.state(i) == SelfPlayVec("en-dodoi-6", 64, seed=3, random_opening=2).state(i)
            np.testing.assert_array_equal(again.observations[i], first.observations[i])
        else:
            assert vec.state(i) == going[i]
            np.testing.assert_array_equal(again.observations[i], step.observations[i])
    rng = np.random.default_rng(1)
    vec.step(masked_random(again.masks, rng))  # every game can move again
    with pytest.raises(ValueError, match="unknown reset options"):
        vec.reset(options={"mask": ended})
    with pytest.raises(TypeError, match="dtype bool"):
        vec.reset(options={"reset_mask": ended.astype(int)})
    with pytest.raises(ValueError, match=r"shape \(64,\)"):
        vec.reset(options={"reset_mask": ended[:3]})
    with pytest.raises(ValueError, match="at least one"):
        vec.reset(options={"reset_mask": np.zeros(64, dtype=bool)})


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"num_envs": -1}, ValueError, "num_envs must be 1 to 1048576, got -1"),
        ({"num_envs": 10**12}, ValueError, "num_envs must be 1 to 1048576"),
        ({"num_envs": 2.0}, TypeError, "num_envs must be an integer"),
        ({"num_envs": 2, "seed": -1}, ValueError, r"seed must be 0 to 2\*\*64 - 1, got -1"),
        ({"num_envs": 2, "seed": 2**64}, ValueError, "seed must be"),
        ({"num_envs": 2, "threads": 10**6}, ValueError, "threads must be 0 .every core. to 256"),
        ({"num_envs": 2, "random_opening": 10**3}, ValueError, "random_opening must be 0 to 100"),
        ({"num_envs": 2, "random_opening": -2}, ValueError, "random_opening"),
    ],
)
def test_selfplay_refuses_bad_sizes_with_clear_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        SelfPlayVec("en-dodoi-6", **kwargs)


def test_selfplay_accepts_numpy_integers_for_its_sizes():
    vec = SelfPlayVec("en-dodoi-6", np.int64(3), seed=np.uint64(2**64 - 1), threads=np.int32(1))
    assert vec.num_envs == 3 and isinstance(vec.num_envs, int)
    assert vec.state(np.int64(-1)) == vec.state(2)


def test_vecenv_sizes():
    with pytest.raises(ValueError, match="num_envs must be 1 to 65536, got 65537; .*SelfPlayVec"):
        VecEnv("en-dodoi-6", 2**16 + 1)
    with pytest.raises(TypeError, match="num_envs must be an integer"):
        VecEnv("en-dodoi-6", 2.0)
    with pytest.raises(TypeError, match="a variant is a preset name"):
        VecEnv({"holes": 6}, 2)
    assert VecEnv("en-dodoi-6", np.int64(2)).num_envs == 2
