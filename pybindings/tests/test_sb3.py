"""Real clients: sb3-contrib's MaskablePPO trains on sowing/en-dodoi-6-v0 against the random
opponent, and then wins more often than a random policy does; plain PPO and DQN, which know
nothing of masks, train on it with ``illegal_action="lose"``, where an illegal move ends the
episode as a loss.

Training runs once per session (a module fixture); torch is held to one thread and everything
is seeded, so the figures are the same on every run on one machine.
"""

import gymnasium as gym
import numpy as np
import pytest

import sowing  # noqa: F401 - registers the environments

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

TRAIN_STEPS = 10_240
EVAL_GAMES = 200


@pytest.fixture(scope="module")
def model():
    torch.set_num_threads(1)
    env = gym.make("sowing/en-dodoi-6-v0", opponent="random")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=512,
        batch_size=128,
        n_epochs=4,
        learning_rate=1e-3,
        gamma=1.0,
        seed=0,
        device="cpu",
    )
    model.learn(TRAIN_STEPS)
    return model


def win_rate(choose, seed):
    """Wins of the policy ``choose(obs, mask)`` over EVAL_GAMES games against random, both sides."""
    env = gym.make("sowing/en-dodoi-6-v0", opponent="random")
    wins = 0
    for game in range(EVAL_GAMES):
        obs, info = env.reset(seed=seed + game)
        while True:
            obs, reward, terminated, truncated, info = env.step(choose(obs, info["action_mask"]))
            if terminated or truncated:
                break
        wins += reward > 0
    return wins / EVAL_GAMES


def test_maskable_ppo_trains(model, sb3_logdir):
    assert model.num_timesteps >= TRAIN_STEPS
    # Its log folder is the test run's own (conftest.py), not a new one in /tmp.
    assert model.logger.get_dir().startswith(str(sb3_logdir))
    env = gym.make("sowing/en-dodoi-6-v0")
    obs, info = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert info["action_mask"][int(action)], "the masked policy picks a legal move"


def test_trained_policy_beats_random_play(model):
    rng = np.random.default_rng(1)
    random_rate = win_rate(lambda obs, mask: int(rng.choice(np.flatnonzero(mask))), seed=50_000)

    def trained(obs, mask):
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        return int(action)

    trained_rate = win_rate(trained, seed=50_000)
    print(f"win rate against random: trained {trained_rate:.2f}, random {random_rate:.2f}")
    # Two independent rates of 200 games each: 0.10 is about two standard errors.
    assert trained_rate >= random_rate + 0.10


class CountForfeits(gym.Wrapper):
    """Counts the episodes lost by an illegal action."""

    def __init__(self, env):
        super().__init__(env)
        self.forfeits = 0
        self.episodes = 0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            self.episodes += 1
            self.forfeits += bool(info["illegal_action"])
        return obs, reward, terminated, truncated, info


@pytest.mark.parametrize(
    "algorithm, kwargs",
    [
        ("PPO", {"n_steps": 64, "batch_size": 32, "n_epochs": 2}),
        ("DQN", {"learning_starts": 64, "buffer_size": 1000, "batch_size": 32, "train_freq": 4}),
    ],
)
def test_plain_sb3_trains_with_illegal_action_lose(algorithm, kwargs, sb3_logdir):
    sb3 = pytest.importorskip("stable_baselines3")
    torch.set_num_threads(1)
    env = CountForfeits(gym.make("sowing/en-dodoi-6-v0", illegal_action="lose"))
    model = getattr(sb3, algorithm)("MlpPolicy", env, seed=0, device="cpu", **kwargs)
    model.learn(400)
    assert model.num_timesteps >= 400
    assert model.logger.get_dir().startswith(str(sb3_logdir))
    # An untrained policy picks empty holes often: those episodes ended as losses instead of
    # raising, which is what lets a learner without masks train at all.
    assert env.episodes > 0 and env.forfeits > 0
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, deterministic=True)
    assert env.action_space.contains(int(action))
