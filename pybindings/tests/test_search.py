"""The Rust batched search driven from Python (sowing.search): leaves valued by a Python
function agree with the same arithmetic in Rust, exceptions reach the caller as themselves with
nothing changed, bad returns are refused with what was wrong, self-play is reproducible, and the
network agent plays in Gymnasium, matches and ratings."""

import copy
import os
import signal
import threading
import time

import gymnasium as gym
import numpy as np
import pytest

import gymnasium

import sowing
from sowing import GameOverError, State
from sowing.search import (
    LinearEvaluator,
    NetworkAgent,
    Search,
    input_length,
    play_games,
    play_match,
    rate,
    search,
    self_play,
)

N = 6
D = input_length(N)


def weights(seed=0, scale=0.1):
    rng = np.random.default_rng(seed)
    policy = (rng.standard_normal((D, N)) * scale).astype(np.float32)
    value = (rng.standard_normal(D) * scale).astype(np.float32)
    return policy, value


POLICY, VALUE = weights()


def linear_numpy(obs, mask):
    return obs @ POLICY, np.tanh(obs @ VALUE)


def positions(count, seed=0, variant="en-dodoi-6"):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = State.initial(variant)
        for _ in range(int(rng.integers(0, 30))):
            moves = s.legal_moves()
            nxt = s.play(int(rng.choice(moves)))
            if nxt.is_over():
                break
            s = nxt
        out.append(s)
    return out


def test_the_input_length_is_the_network_input():
    assert input_length(6) == 38 and input_length(6, lookahead=False) == 20
    seen = []

    def record(obs, mask):
        seen.append((obs.copy(), mask.copy()))
        return np.zeros(mask.shape, np.float32), np.zeros(len(mask), np.float32)

    states = positions(5)
    search(states, record, simulations=1)
    obs, mask = seen[0]
    assert obs.dtype == np.float32 and obs.shape == (5, D)
    assert mask.dtype == np.bool_ and mask.shape == (5, N)
    for s, o, m in zip(states, obs, mask):
        assert list(np.flatnonzero(m)) == s.legal_moves()
        # The mask is also the input's last n values; the observation, scaled by 2n, its first.
        assert np.array_equal(o[-N:] > 0.5, m)
        assert np.allclose(o[: 2 * N + 2], np.asarray(s.observation()) * 2 * N)


def test_python_leaves_give_the_search_of_the_same_evaluator_in_rust():
    states = positions(24, seed=1)
    rust = search(states, LinearEvaluator(POLICY, VALUE), simulations=200, seed=3)
    python = search(states, linear_numpy, simulations=200, seed=3)
    # The same products summed in another order differ in the last bits at most, which can move
    # a visit or two where two actions tie.
    assert np.abs(rust.policy - python.policy).max() < 0.02
    assert np.abs(rust.value - python.value).max() < 1e-4
    assert (rust.action == python.action).mean() >= 0.9
    assert np.array_equal(rust.visits.sum(axis=1), np.full(24, 199))
    for s, visits, action in zip(states, python.visits, python.action):
        assert set(np.flatnonzero(visits)) <= set(s.legal_moves())
        assert action in s.legal_moves()


def test_a_batch_of_leaves_goes_to_one_call_and_every_simulation_counts():
    states = positions(3, seed=4)
    sizes = []

    def record(obs, mask):
        sizes.append(len(obs))
        return linear_numpy(obs, mask)

    batched = search(states, record, simulations=201, leaf_batch=16, seed=1)
    assert np.array_equal(batched.visits.sum(axis=1), np.full(3, 200))
    # The roots alone first, then up to 16 leaves of each of the three trees a call.
    assert sizes[0] == 3 and max(sizes) == 48
    assert len(sizes) < 201 // 4
    # Fixed by its seed, and the same search whoever values the leaves.
    again = search(states, LinearEvaluator(POLICY, VALUE), simulations=201, leaf_batch=16, seed=1)
    assert (batched.action == again.action).all()
    assert np.abs(batched.policy - again.policy).max() < 0.02
    # One leaf at a time calls once per simulation.
    sizes.clear()
    search(states, record, simulations=201, seed=1)
    assert len(sizes) == 201 and max(sizes) == 3
    # The agent takes it too, and keeps playing legal moves.
    agent = NetworkAgent(record, "en-dodoi-6", simulations=64, leaf_batch=8)
    sizes.clear()
    assert agent.choose(states[0]) in states[0].legal_moves()
    assert max(sizes) == 8 and len(sizes) < 64 // 2
    assert copy.deepcopy(agent)._settings["leaf_batch"] == 8


def test_a_search_is_fixed_by_its_seed_and_kept_trees_grow():
    states = positions(8, seed=2)
    searcher = Search(linear_numpy, simulations=50, noise_fraction=0.25)
    a = searcher(states, seed=7)
    b = searcher(states, seed=7)
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.priors, b.priors)
    assert not np.array_equal(a.priors, searcher(states, seed=8).priors)
    # A tree kept from the last move adds its visits below the new root.
    first = searcher(states, seed=1, trees=range(8))
    after = [s.play(int(x)) for s, x in zip(states, first.action)]
    going = [i for i, s in enumerate(after) if not s.is_over()]
    kept = searcher([after[i] for i in going], seed=1, trees=going)
    assert (kept.visits.sum(axis=1) >= 49).all() and (kept.visits.sum(axis=1) > 49).any()
    searcher.clear()
    fresh = searcher([after[i] for i in going], seed=1, trees=going)
    assert (fresh.visits.sum(axis=1) == 49).all()


class Boom(Exception):
    pass


def failing_after(calls, evaluate=linear_numpy):
    count = [0]

    def inner(obs, mask):
        count[0] += 1
        if count[0] > calls:
            raise Boom(f"call {count[0]}")
        return evaluate(obs, mask)

    return inner


def test_an_exception_in_evaluate_reaches_the_caller_as_itself():
    states = positions(6, seed=3)
    with pytest.raises(Boom, match="call 4"):
        search(states, failing_after(3), simulations=20)
    searcher = Search(failing_after(3), simulations=20)
    with pytest.raises(Boom):
        searcher(states, trees=range(6))
    # The half-searched trees were forgotten: the next search starts afresh.
    searcher._native = Search(linear_numpy, simulations=20)._native
    assert (searcher(states, trees=range(6)).visits.sum(axis=1) == 19).all()
    with pytest.raises(Boom):
        self_play("en-dodoi-6", failing_after(30), games=8, simulations=8, threads=2)
    agent = NetworkAgent(failing_after(5), "en-dodoi-6", simulations=20)
    state = State.initial("en-dodoi-6")
    with pytest.raises(Boom):
        agent.choose(state)


def test_an_exception_in_a_gymnasium_opponent_leaves_the_game_as_it_was():
    agent = NetworkAgent(failing_after(40), "en-dodoi-6", simulations=8)
    env = gym.make("sowing/en-dodoi-6-v0", opponent=agent, agent_side="south")
    env.reset(seed=0)
    with pytest.raises(Boom):
        for _ in range(100):
            before = env.unwrapped.state
            action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
            env.step(action)
    assert env.unwrapped.state == before


@pytest.mark.parametrize(
    "returned, error, message",
    [
        (lambda b: np.zeros((b, N)), TypeError, "pair"),
        (lambda b: (np.zeros((b, N + 1)), np.zeros(b)), ValueError, r"\[B, n\]"),
        (lambda b: (np.zeros((b, N)), np.zeros(b + 1)), ValueError, "one per"),
        (lambda b: (np.full((b, N), np.nan), np.zeros(b)), ValueError, "finite"),
        (lambda b: (np.zeros((b, N)), np.full(b, 1.5)), ValueError, "-1 to 1"),
        (lambda b: (np.zeros((b, N)), "x"), TypeError, "float32"),
    ],
)
def test_a_bad_return_is_refused_saying_what_is_allowed(returned, error, message):
    with pytest.raises(error, match=message):
        search(positions(3), lambda obs, mask: returned(len(obs)), simulations=4)


def test_illegal_actions_take_no_prior_whatever_their_logit():
    def huge_on_illegal(obs, mask):
        return np.where(mask, 0.0, 1e30).astype(np.float32), np.zeros(len(mask), np.float32)

    out = search(positions(10, seed=4), huge_on_illegal, simulations=30)
    masks = np.array([[a in s.legal_moves() for a in range(N)] for s in positions(10, seed=4)])
    assert (out.priors[~masks] == 0).all()
    assert np.allclose(out.priors.sum(axis=1), 1, atol=1e-5)


def test_torch_tensors_and_lists_are_accepted():
    torch = pytest.importorskip("torch")

    def tensors(obs, mask):
        x = torch.from_numpy(obs)
        return x @ torch.from_numpy(POLICY), torch.tanh(x @ torch.from_numpy(VALUE))

    def lists(obs, mask):
        logits, value = linear_numpy(obs, mask)
        return logits.tolist(), value.astype(np.float64)

    states = positions(4)
    a = search(states, tensors, simulations=30)
    b = search(states, lists, simulations=30)
    assert np.abs(a.policy - b.policy).max() < 0.05


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(simulations=0), ValueError),
        (dict(simulations=2.5), TypeError),
        (dict(c_puct=-1.0), ValueError),
        (dict(noise_fraction=1.5), ValueError),
        (dict(dirichlet_alpha=float("nan")), ValueError),
        (dict(c_puct="1"), TypeError),
        (dict(leaf_batch=0), ValueError),
        (dict(leaf_batch=257), ValueError),
        (dict(leaf_batch=2**70), ValueError),
        (dict(leaf_batch=1.5), TypeError),
    ],
)
def test_bad_settings_are_refused(kwargs, error):
    with pytest.raises(error):
        search(positions(2), linear_numpy, **kwargs)


def test_bad_states_and_evaluators_are_refused():
    over = State.initial("en-dodoi-6")
    rng = np.random.default_rng(0)
    while not over.is_over():
        over = over.play(int(rng.choice(over.legal_moves())))
    with pytest.raises(GameOverError):
        search([State.initial("en-dodoi-6"), over], linear_numpy)
    with pytest.raises(ValueError, match="one board size"):
        search([State.initial("en-dodoi-6"), State.initial("en-dodoi-8")], linear_numpy)
    with pytest.raises(ValueError, match="at least one"):
        search([], linear_numpy)
    with pytest.raises(TypeError, match="wrap a single one"):
        search(State.initial("en-dodoi-6"), linear_numpy)
    with pytest.raises(TypeError, match="evaluate must be"):
        search(positions(2), 3)
    with pytest.raises(ValueError, match="for 6 holes"):
        search([State.initial("en-dodoi-8")], LinearEvaluator(POLICY, VALUE))
    with pytest.raises(ValueError, match="named twice"):
        Search(linear_numpy)(positions(2), trees=[1, 1])
    with pytest.raises(ValueError, match="rows"):
        LinearEvaluator(POLICY[:-1], VALUE)
    with pytest.raises(ValueError, match="finite"):
        LinearEvaluator(np.full_like(POLICY, np.inf), VALUE)


def test_trees_beyond_memory_are_refused_before_they_grow():
    with pytest.raises(MemoryError, match="searching 1048576 trees"):
        self_play("en-dodoi-6", linear_numpy, games=1, parallel_games=2**20, simulations=10**6)


def test_the_gil_is_free_while_the_trees_grow():
    evaluate = LinearEvaluator(POLICY, VALUE)
    states = positions(64, seed=5)
    done = threading.Event()
    ticks = 0

    def work():
        search(states, evaluate, simulations=3000)
        done.set()

    thread = threading.Thread(target=work)
    start = time.perf_counter()
    thread.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    thread.join()
    took = time.perf_counter() - start
    assert took > 0.1, "the search was too short to tell"
    # With the GIL held by the search, this thread could not have run during it.
    assert ticks >= 0.2 * took / 0.001


def test_self_play_samples_are_fixed_by_the_seed():
    def run(seed, **kw):
        return self_play("en-dodoi-6", linear_numpy, games=12, simulations=16, seed=seed, **kw)

    a, b = run(1), run(1)
    for field in ("observation", "mask", "policy", "value", "player"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.south_wins == b.south_wins and a.games == 12
    assert not np.array_equal(run(2).value, a.value)
    assert not np.array_equal(run(1, iteration=1).value, a.value)
    n = len(a)
    assert n > 12 * 5
    assert a.observation.shape == (n, D) and a.observation.dtype == np.float32
    assert a.mask.shape == (n, N) and a.mask.dtype == np.bool_
    assert np.array_equal(a.mask, a.observation[:, -N:] > 0.5)
    assert np.allclose(a.policy.sum(axis=1), 1, atol=1e-5)
    assert (a.policy[~a.mask] == 0).all()
    assert ((-1 <= a.value) & (a.value <= 1)).all()
    assert set(np.unique(a.player)) == {0, 1}


def test_self_play_games_do_not_depend_on_the_batch_or_the_workers():
    evaluate = LinearEvaluator(POLICY, VALUE)

    def rows(samples):
        table = np.column_stack([samples.observation, samples.policy, samples.value, samples.player])
        return table[np.lexsort(table.T[::-1])]

    one = self_play("en-dodoi-6", evaluate, games=10, simulations=16, parallel_games=10)
    two = self_play("en-dodoi-6", evaluate, games=10, simulations=16, parallel_games=3, threads=2)
    assert np.array_equal(rows(one), rows(two))
    assert one.south_wins == two.south_wins


def test_gumbel_self_play_teaches_the_improved_policy():
    def run(seed, **kw):
        return self_play(
            "en-dodoi-6", linear_numpy, games=8, simulations=16, seed=seed, root="gumbel", **kw
        )

    a, b = run(1), run(1)
    assert np.array_equal(a.policy, b.policy) and np.array_equal(a.value, b.value)
    assert np.allclose(a.policy.sum(axis=1), 1, atol=1e-5)
    assert (a.policy[~a.mask] == 0).all() and (a.policy[a.mask] > 0).all()
    # Visit shares of 15 simulations are multiples of 1/15; the improved policy mostly is not.
    off_grid = np.abs(a.policy * 15 - np.round(a.policy * 15)) > 1e-3
    assert off_grid.any(axis=1).mean() > 0.5
    with pytest.raises(ValueError, match="root: unknown variant `alphazero`, expected `puct` or `gumbel`"):
        self_play("en-dodoi-6", linear_numpy, games=1, root="alphazero")
    with pytest.raises(ValueError, match="considered"):
        run(1, considered=0)


def test_a_playout_cap_returns_the_full_searches_alone():
    def run(**kw):
        return self_play("en-dodoi-6", linear_numpy, games=16, simulations=16, value_mix=0.0, **kw)

    full = run()
    capped = run(full_fraction=0.25, fast_simulations=2)
    again = run(full_fraction=0.25, fast_simulations=2)
    assert np.array_equal(capped.observation, again.observation)
    # A quarter of the moves, each with its game's result: far fewer samples than games' moves.
    assert 0 < len(capped.value) < 0.5 * len(full.value)
    assert set(np.unique(capped.value)) <= {-1.0, 0.0, 1.0}
    for bad in [dict(full_fraction=0.0), dict(full_fraction=1.5), dict(full_fraction=float("nan"))]:
        with pytest.raises(ValueError, match="full_fraction must be above 0 and at most 1"):
            run(**bad)
    with pytest.raises(ValueError, match="fast_simulations"):
        run(full_fraction=0.5, fast_simulations=17)


def test_value_targets_mix_the_result_and_the_search():
    pure = self_play("en-dodoi-6", linear_numpy, games=6, simulations=8, value_mix=0.0)
    assert set(np.unique(pure.value)) <= {-1.0, 0.0, 1.0}
    mixed = self_play("en-dodoi-6", linear_numpy, games=6, simulations=8, value_mix=0.5)
    assert len(set(np.unique(mixed.value)) - {-1.0, 0.0, 1.0}) > 0


def test_a_margin_weight_puts_the_margin_in_the_result():
    pure = self_play("en-dodoi-6", linear_numpy, games=6, simulations=8, value_mix=0.0)
    weighted = self_play(
        "en-dodoi-6", linear_numpy, games=6, simulations=8, value_mix=0.0, margin_weight=0.25
    )
    # The same games (the weight moves nothing), each result with its margin over the 48 seeds.
    assert np.array_equal(pure.observation, weighted.observation)
    margin = (weighted.value - 0.75 * pure.value) * 48 / 0.25
    assert np.allclose(margin, np.round(margin), atol=1e-3)
    assert np.array_equal(np.sign(np.round(margin)), pure.value)
    assert len(np.unique(np.abs(np.round(margin)))) > 2
    for bad in [1.0, -0.1, float("nan")]:
        with pytest.raises(ValueError, match="margin_weight must be 0 up to"):
            self_play("en-dodoi-6", linear_numpy, games=1, simulations=8, margin_weight=bad)


def test_the_network_agent_plays_in_gymnasium_and_copies():
    agent = NetworkAgent(linear_numpy, "en-dodoi-6", simulations=16, name="linear")
    assert agent.name == "linear" and repr(agent) == 'NetworkAgent("linear")'
    env = gym.make("sowing/en-dodoi-6-v0", opponent=agent, agent_side="north")
    obs, info = env.reset(seed=0)
    twin = copy.deepcopy(env)
    steps = 0
    while True:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        twin.step(action)
        steps += 1
        if terminated or truncated:
            break
    assert steps > 3
    assert twin.unwrapped.state == env.unwrapped.state
    with pytest.raises(ValueError, match="6 holes"):
        agent.choose(State.initial("en-dodoi-8"))


def test_the_endgame_solver_plays_a_proven_win():
    solving = NetworkAgent(linear_numpy, "en-dodoi-6", simulations=4, solver_nodes=200_000)
    rng = np.random.default_rng(0)
    found = 0
    for _ in range(300):
        state = State.initial("en-dodoi-6")
        while not state.is_over() and sum(state.board) > 20:
            state = state.play(int(rng.choice(state.legal_moves())))
        if state.is_over():
            continue
        proof = sowing.agents.solve(state, nodes=200_000)
        if proof.winning_action is None:
            continue
        solving.new_game()
        winner = solving.choose(state)
        assert winner not in proof.losing_actions
        assert sowing.agents.solve(state.play(winner), nodes=200_000).lost
        found += 1
        if found >= 5:
            break
    assert found >= 5


def test_matches_and_ratings_as_the_trainer_makes_them():
    agent = NetworkAgent(linear_numpy, "en-dodoi-6", simulations=16)
    result = play_games("en-dodoi-6", agent, "random", games=6, seed=1, threads=1)
    assert result.games == 6 and result.opponent == "random"
    again = play_games("en-dodoi-6", agent, "random", games=6, seed=1, threads=2)
    assert again == result
    with pytest.warns(DeprecationWarning, match="play_games"):
        assert play_match(agent, "random", "en-dodoi-6", games=6, seed=1, threads=1) == result
    rating = rate(agent, "en-dodoi-6", baselines=("random", "greedy"), games=4, threads=1)
    assert rating.baseline_elo["random"] == 0.0
    assert [r.opponent for r in rating.results] == ["random", "greedy"]
    assert np.isfinite(rating.elo) and rating.interval > 0
    with pytest.raises(ValueError, match="valid forms"):
        play_games("en-dodoi-6", agent, "wizard", games=2)
    with pytest.raises(Boom):
        play_games("en-dodoi-6", NetworkAgent(failing_after(3), "en-dodoi-6"), "mcts:1000", games=4)


def zero_network(obs, mask):
    return np.zeros(mask.shape, np.float32), np.zeros(len(obs), np.float32)


def test_a_search_called_from_its_own_evaluate_is_refused_not_a_deadlock():
    start = State.initial("en-dodoi-6")
    box = {}

    def calls_itself(obs, mask):
        box["inner"](start)
        return zero_network(obs, mask)

    searcher = Search(calls_itself, simulations=4)
    agent = NetworkAgent(calls_itself, "en-dodoi-6", simulations=4)
    calls = {
        "Search": lambda s: searcher([s]),
        "Search.clear": lambda s: searcher.clear(),
        "NetworkAgent": agent.choose,
        "NetworkAgent.seed": lambda s: agent.seed(3),
        "NetworkAgent.new_game": lambda s: agent.new_game(),
        "NetworkAgent.current_seed": lambda s: agent.current_seed,
    }
    for name, inner in calls.items():
        box["inner"] = inner
        outer = searcher if name.startswith("Search") else agent
        run = (lambda: outer([start])) if outer is searcher else (lambda: agent.choose(start))
        with pytest.raises(RuntimeError, match="already running"):
            run()
    # From a thread whose stack is too small for the search (it runs on a thread of its own).
    box["inner"] = lambda s: searcher([s])
    failed = []

    def small_stack():
        try:
            searcher([start])
        except RuntimeError as e:
            failed.append(str(e))

    previous = threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=small_stack)
        thread.start()
        thread.join(timeout=30)
    finally:
        threading.stack_size(previous)
    assert not thread.is_alive() and failed and "already running" in failed[0]
    # The objects still work, and another search inside evaluate is fine.
    other = Search(zero_network, simulations=2)

    def nested(obs, mask):
        other([start])
        return zero_network(obs, mask)

    assert Search(nested, simulations=3)([start]).visits.sum() == 2
    box["inner"] = lambda s: None
    assert searcher([start]).visits.sum() == 3


def test_a_second_thread_waits_for_a_shared_search_instead_of_being_refused():
    start = State.initial("en-dodoi-6")
    entered, release = threading.Event(), threading.Event()

    def slow(obs, mask):
        entered.set()
        release.wait(5)
        return zero_network(obs, mask)

    searcher = Search(slow, simulations=2)
    results = []
    first = threading.Thread(target=lambda: results.append(searcher([start])))
    first.start()
    entered.wait(5)
    second = threading.Thread(target=lambda: results.append(searcher([start])))
    second.start()
    time.sleep(0.1)
    release.set()
    first.join(10), second.join(10)
    assert len(results) == 2


@pytest.mark.parametrize("value", ["no", "yes", 1, 0, None, 1.0])
def test_flags_take_booleans_only(value):
    if value is None:
        return  # lookahead=None means "the network's"
    with pytest.raises(TypeError, match="lookahead must be True or False"):
        Search(linear_numpy, lookahead=value)
    with pytest.raises(TypeError, match="lookahead must be True or False"):
        self_play("en-dodoi-6", linear_numpy, games=1, lookahead=value)
    with pytest.raises(TypeError, match="lookahead must be True or False"):
        NetworkAgent(linear_numpy, "en-dodoi-6", lookahead=value)


def test_a_network_of_another_board_or_input_is_refused_before_it_plays():
    linear = LinearEvaluator(POLICY, VALUE)
    with pytest.raises(ValueError, match="for 6 holes per row and the game has 8"):
        NetworkAgent(linear, "en-dodoi-8")
    with pytest.raises(ValueError, match="for 6 holes per row and the game has 8"):
        self_play("en-dodoi-8", linear, games=1)
    with pytest.raises(ValueError, match="with the look-ahead features and lookahead=False"):
        NetworkAgent(linear, "en-dodoi-6", lookahead=False)
    agent = NetworkAgent(linear, "en-dodoi-6")
    with pytest.raises(ValueError, match="plays boards of 6 holes per row"):
        gymnasium.make("sowing/en-dodoi-8-v0", opponent=agent)


def test_self_play_on_every_core_with_threads_zero():
    every = self_play("en-dodoi-6", LinearEvaluator(POLICY, VALUE), games=4, threads=0, seed=2)
    one = self_play("en-dodoi-6", LinearEvaluator(POLICY, VALUE), games=4, threads=1, seed=2)
    # The same games, ended in another order.
    def rows(samples):
        return sorted(map(tuple, np.hstack([samples.observation, samples.policy]).tolist()))

    assert every.games == 4 and rows(every) == rows(one)


def test_gumbel_roots_for_search_and_the_network_agent():
    linear = LinearEvaluator(POLICY, VALUE)
    states = positions(6, seed=3)
    out = search(states, linear, simulations=32, root="gumbel", considered=4, seed=1)
    assert out.improved_policy is not None and out.improved_policy.shape == (6, N)
    assert np.allclose(out.improved_policy.sum(axis=1), 1.0, atol=1e-5)
    assert np.array_equal(out.policy, out.improved_policy)
    for i, s in enumerate(states):
        assert out.action[i] in s.legal_moves()
        assert (out.visits[i][~s.legal_mask()] == 0).all()
    again = search(states, linear, simulations=32, root="gumbel", considered=4, seed=1)
    assert np.array_equal(again.visits, out.visits) and np.array_equal(again.action, out.action)
    assert search(states, linear, simulations=32).improved_policy is None
    with pytest.raises(ValueError, match="afresh"):
        Search(linear, root="gumbel")(states, trees=range(6))
    with pytest.raises(ValueError, match="root: unknown variant `alphazero`, expected `puct` or `gumbel`"):
        Search(linear, root="alphazero")
    agent = NetworkAgent(linear, "en-dodoi-6", simulations=32, root="gumbel", considered=4)
    for s in states:
        assert agent.choose(s) in s.legal_moves()
    result = play_games("en-dodoi-6", agent, "random", games=4, seed=1, threads=1)
    assert result.games == 4


@pytest.mark.skipif(os.name != "posix", reason="SIGINT from a timer")
def test_ctrl_c_stops_self_play_on_worker_threads():
    def slow(obs, mask):
        time.sleep(0.002)
        return linear_numpy(obs, mask)

    # Python's own handler, even where the test runs with SIGINT ignored (started in the
    # background by a shell).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            self_play("en-dodoi-6", slow, games=2000, simulations=64, threads=2)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - start < 3.0


def test_omitted_keywords_take_the_rust_defaults():
    from sowing.search import search_defaults, self_play_defaults

    defaults = search_defaults()
    assert defaults["simulations"] == 64 and defaults["root"] == "puct" and defaults["time"] is None
    play = self_play_defaults()
    assert play["noise_fraction"] == 0.25 and play["temperature_plies"] == 12
    # A search with every default given is the search with none given.
    states = positions(3)
    given = search(states, linear_numpy, **defaults)
    omitted = search(states, linear_numpy)
    assert np.array_equal(given.visits, omitted.visits)
    a = self_play("en-dodoi-6", LinearEvaluator(POLICY, VALUE), games=2, **play)
    b = self_play("en-dodoi-6", LinearEvaluator(POLICY, VALUE), games=2)
    assert np.array_equal(a.policy, b.policy)
    with pytest.raises(ValueError, match="unknown field `simulation`"):
        search(states, linear_numpy, simulation=5)
    with pytest.raises(ValueError, match="leaf_batch must be 1 to 256 .*got 1180591620717411303424"):
        search(states, linear_numpy, leaf_batch=2**70)
    with pytest.raises(TypeError, match="c_puct must be a number, got str"):
        search(states, linear_numpy, c_puct="1")


def test_a_network_agent_with_a_time_searches_for_that_long():
    state = positions(1)[0]
    timed = NetworkAgent(LinearEvaluator(POLICY, VALUE), "en-dodoi-6", time=0.2)
    assert timed.name == "network:0.2s"
    started = time.perf_counter()
    explained = timed.explain(state)
    took = time.perf_counter() - started
    assert 0.2 <= took < 2.0, took
    # Far more than the 64 simulations of a count, with no simulations given.
    assert sum(explained.visits) > 1000, explained
    # With simulations as well, they cap the search: a short time is not spent.
    capped = NetworkAgent(LinearEvaluator(POLICY, VALUE), "en-dodoi-6", time=30.0, simulations=50)
    started = time.perf_counter()
    assert sum(capped.explain(state).visits) == 49
    assert time.perf_counter() - started < 5
    with pytest.raises(ValueError, match="time must be above 0 and at most 3600 seconds"):
        NetworkAgent(linear_numpy, "en-dodoi-6", time=0)


def test_explain_gives_the_move_its_value_and_principal_line():
    evaluate = LinearEvaluator(POLICY, VALUE)
    state = positions(1)[0]
    agent = NetworkAgent(evaluate, "en-dodoi-6", simulations=200)
    twin = NetworkAgent(evaluate, "en-dodoi-6", simulations=200)
    why = agent.explain(state)
    # The move is the one choose plays, the line opens with it and is legal move by move.
    assert why.action == twin.choose(state)
    assert why.line[0] == why.action and len(why.line) >= 2
    s = state
    for a in why.line:
        if s.is_over():
            break
        assert a in s.legal_moves()
        s = s.play(a)
    assert sum(why.visits) == 199 and why.visits[why.action] == max(why.visits)
    assert -1.0 <= why.value <= 1.0
    # The same value the search reports.
    out = search([state], evaluate, simulations=200)
    assert why.value == pytest.approx(float(out.value[0]))
