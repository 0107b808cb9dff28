"""The Rust search agents in Python: specs, reproducibility, legality, and the GIL released
while they search."""

import threading
import time

import numpy as np
import pytest

import sowing
from sowing import GameOverError, State
from sowing.agents import MCTS, Agent, AlphaBeta, Greedy, Random, from_spec


def test_specs_and_classes():
    assert from_spec("alphabeta:6").name == "alphabeta:6"
    assert AlphaBeta(depth=6).name == "alphabeta:6"
    assert AlphaBeta().name == "alphabeta:6"
    assert AlphaBeta(time=0.25).name == "alphabeta:250ms"
    assert MCTS(simulations=1000).name == "mcts:1000"
    assert Greedy().name == "greedy" and Random().name == "random"
    assert isinstance(AlphaBeta(depth=3), Agent)
    assert "alphabeta:DEPTH" in " ".join(sowing.agents.forms())


@pytest.mark.parametrize("spec", ["alphabeta", "mcts:0", "alphabeta:x", "wizard", "greedy:3"])
def test_malformed_spec_shows_the_forms(spec):
    with pytest.raises(ValueError, match="valid forms"):
        from_spec(spec)


def test_parse_agent_spec_gives_the_fields_of_the_rust_grammar():
    parse = sowing.agents.parse_agent_spec
    assert parse("greedy") == {"kind": "greedy"}
    assert parse("alphabeta:6") == {
        "kind": "alphabeta", "depth": 6, "time": None, "network": None, "tablebase": None
    }
    assert parse("alphabeta:50ms:net=runs/x")["network"] == "runs/x"
    assert parse("mcts:1.5s:tb=t.tb") == {
        "kind": "mcts", "simulations": None, "time": 1.5, "tablebase": "t.tb"
    }
    az = parse("az:runs/x:50ms:leaves=8:tb=t.tb")
    assert az == {
        "kind": "az", "path": "runs/x", "simulations": None, "time": 0.05, "solver": None,
        "leaves": 8, "tablebase": "t.tb", "budget": "50ms", "default_solver": 0,
        "default_leaves": 64,
    }
    counted = parse("az:c:/runs/x:64:solver=0")
    assert (counted["path"], counted["simulations"], counted["solver"]) == ("c:/runs/x", 64, 0)
    assert (counted["default_solver"], counted["default_leaves"]) == (200000, 1)
    for spec, why in [
        ("az:", "checkpoint path"),
        ("az:x:0", "simulations 0 is out of range"),
        ("mcts:10:solver=3", "mcts takes no option solver="),
        ("wizard", "unknown agent"),
    ]:
        with pytest.raises(ValueError, match=why) as e:
            parse(spec)
        assert "valid forms" in str(e.value)


def test_keyword_agents_are_specs_built_in_rust():
    # The fields of a parsed spec make the same agent as its text.
    for spec in ["alphabeta:3", "mcts:200ms", "greedy", "random"]:
        assert Agent(sowing.agents.parse_agent_spec(spec)).name == Agent(spec).name
    assert AlphaBeta(time=0.0001).name == "alphabeta:1ms"
    for make, error, why in [
        (lambda: AlphaBeta(depth=0), ValueError, "depth 0 is out of range: 1 to 64"),
        (lambda: AlphaBeta(depth=3, time=1), ValueError, "not both or neither"),
        (lambda: MCTS(simulations=10**30), ValueError, "out of range"),
        (lambda: MCTS(simulations=2.5), TypeError, "simulations must be an integer"),
        (lambda: MCTS(time="1s"), TypeError, "time must be a number"),
        (lambda: MCTS(time=float("nan")), ValueError, "at most 3600 seconds"),
        (lambda: Agent({"kind": "greedy", "depth": 3}), ValueError, "greedy takes no depth="),
        (lambda: Agent({"kind": "chess"}), ValueError, "unknown agent kind"),
        (lambda: Agent({}), ValueError, "kind"),
        (lambda: Agent(3), TypeError, "an agent spec is a string"),
        (lambda: Agent("az:runs/x"), ValueError, "sowing.nn.agent"),
    ]:
        with pytest.raises(error, match=why):
            make()


def test_every_agent_is_a_sowing_agent():
    for agent in (Random(), Greedy(), AlphaBeta(depth=2), MCTS(simulations=8), from_spec("greedy")):
        assert isinstance(agent, sowing.Agent)
    assert sowing.Agent is Agent
    agent = MCTS(simulations=20, seed=3)
    assert agent.current_seed == 3
    state = State.initial("en-dodoi-6")
    assert agent(state) == MCTS(simulations=20, seed=3).choose(state)


def test_agents_play_legal_moves_on_every_preset():
    for variant in sowing.variants():
        rng = np.random.default_rng(0)
        for agent in (Random(seed=1), Greedy(seed=1), AlphaBeta(depth=3), MCTS(simulations=64)):
            state = State.initial(variant)
            for _ in range(int(rng.integers(0, 30))):
                if state.is_over():
                    break
                state = state.play(int(rng.choice(state.legal_moves())))
            if not state.is_over():
                assert agent.choose(state) in state.legal_moves()


def test_seeded_mcts_is_reproducible():
    state = State.initial("en-dodoi-8").play(3).play(4)
    a = [MCTS(simulations=200, seed=9).choose(state) for _ in range(3)]
    b = MCTS(simulations=200, seed=9)
    c = [b.choose(state)]
    b.seed(9)
    c.append(b.choose(state))
    assert len(set(a)) == 1 and c == a[:2]


def test_pickle_and_copy():
    import copy
    import pickle

    agent = MCTS(simulations=100, seed=4)
    twin = pickle.loads(pickle.dumps(agent))
    assert twin.name == "mcts:100" and isinstance(twin, Agent)
    state = State.initial("en-dodoi-8").play(2)
    assert twin.choose(state) == MCTS(simulations=100, seed=4).choose(state)
    assert copy.deepcopy(AlphaBeta(time=0.05)).name == "alphabeta:50ms"


def test_alphabeta_takes_a_capture():
    # en-dodoi-8's opening 7 captures 7 seeds, the most of any first move.
    assert AlphaBeta(depth=1).choose(State.initial("en-dodoi-8")) == 7
    assert Greedy().choose(State.initial("en-dodoi-8")) == 7


def test_choose_on_a_finished_game():
    state = State.initial("en-dodoi-6")
    rng = np.random.default_rng(0)
    while not state.is_over():
        state = state.play(int(rng.choice(state.legal_moves())))
    with pytest.raises(GameOverError):
        AlphaBeta(depth=2).choose(state)


def test_gil_released_while_searching():
    agent = AlphaBeta(time=0.4)
    state = State.initial("en-dodoi-10")
    done = threading.Event()
    ticks = 0

    def search():
        agent.choose(state)
        done.set()

    thread = threading.Thread(target=search)
    start = time.perf_counter()
    thread.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    thread.join()
    assert time.perf_counter() - start >= 0.3
    # With the GIL held by the search, this thread could not have run during it.
    assert ticks >= 50


# South to move at ply 14 of an en-dodoi-6 game; `sowing solve` proves a win within 21 plies.
WON_AT_PLY_14 = [2, 0, 3, 3, 5, 0, 2, 1, 0, 0, 2, 0, 1, 2]


def test_solve_proves_a_win_and_the_loss_it_leaves():
    state = State.initial("en-dodoi-6")
    for a in WON_AT_PLY_14:
        state = state.play(a)
    proof = sowing.agents.solve(state, nodes=5_000_000)
    assert isinstance(proof, sowing.agents.Proof)
    assert (proof.winning_action, proof.win_within) == (2, 21)
    assert not proof.lost and proof.depth == 21 and proof.nodes > 0
    # After the winning move every North move loses.
    reply = sowing.agents.solve(state.play(2), nodes=20_000_000)
    assert reply.winning_action is None and reply.lost
    assert reply.losing_actions == state.play(2).legal_moves()
    assert "winning_action=None" in repr(reply) and "lost=True" in repr(reply)


def test_solve_within_a_small_budget_says_how_far_it_got():
    proof = sowing.agents.solve(State.initial("en-dodoi-6"), nodes=1000)
    assert proof.winning_action is None and proof.win_within is None
    assert proof.losing_actions == [] and not proof.lost
    assert proof.nodes <= 1001 and proof.depth < 61


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"nodes": 0}, "nodes must be a positive number of positions, got 0"),
        ({"depth": 1000}, "depth must be 1 to 999 plies, got 1000"),
        ({"table_bits": 5}, "table_bits must be 10 to 30"),
    ],
)
def test_solve_refuses_bad_budgets(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sowing.agents.solve(State.initial("en-dodoi-6"), **kwargs)


def test_solve_on_a_finished_game():
    state = State.initial("en-dodoi-6")
    rng = np.random.default_rng(3)
    while not state.is_over():
        state = state.play(int(rng.choice(state.legal_moves())))
    with pytest.raises(GameOverError, match="nothing left to solve"):
        sowing.agents.solve(state)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: AlphaBeta(time=float("inf")), ValueError, "at most 3600 seconds, got inf"),
        (lambda: MCTS(time=0), ValueError, "more than 0"),
        (lambda: AlphaBeta(time="1s"), TypeError, "time must be a number of seconds"),
        (lambda: AlphaBeta(depth=2.5), TypeError, "depth must be an integer, got float"),
        (lambda: MCTS(simulations="many"), TypeError, "simulations must be an integer"),
        (lambda: Greedy(seed=-1), ValueError, r"seed must be 0 to 2\*\*64 - 1, got -1"),
    ],
)
def test_agent_budgets_refused_with_clear_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_a_deep_copy_goes_on_from_the_same_point_of_the_stream():
    import copy

    state = State.initial("en-dodoi-8")
    agent = Random(seed=3)
    first = [agent.choose(state) for _ in range(10)]
    twin = copy.deepcopy(agent)
    then = [twin.choose(state) for _ in range(10)]
    assert then == [agent.choose(state) for _ in range(10)]
    assert then != first, "the copy goes on from where the original was, not from its seed"


def test_a_hybrid_alphabeta_is_refused_without_libtorch(tmp_path):
    # The Python package builds without libtorch: a spec naming a network says so, as a
    # ValueError, instead of crossing a panic into Python.
    with pytest.raises(ValueError, match="net= needs sowing built with the feature torch"):
        sowing.agents.Agent(f"alphabeta:3:net={tmp_path}")
