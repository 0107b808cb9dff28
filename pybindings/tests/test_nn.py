"""The network of `sowing train` in PyTorch (sowing.nn), its checkpoints and their safetensors
read and written without torch, and the agent `az:PATH` from Python. (That a checkpoint written
by `sowing train` gives the tch network's outputs here is checked from the Rust side, by
agents/tests/az_python.rs, which trains one.)"""

import inspect
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gymnasium

import sowing
from pathlib import Path

from sowing import State
from sowing._sowing import read_checkpoint, resolve_checkpoint, write_checkpoint

SAFETENSORS = "weights.safetensors"
from sowing.search import NetworkAgent, input_length

torch = pytest.importorskip("torch")
from sowing import nn  # noqa: E402


def test_the_network_has_the_rust_names_and_shapes():
    net = nn.PolicyValueNet(6, hidden=32, blocks=2)
    shapes = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    assert shapes == {
        "input.weight": (32, input_length(6)),
        "input.bias": (32,),
        **{
            f"block{i}.{part}": shape
            for i in range(2)
            for part, shape in {
                "norm.weight": (32,),
                "norm.bias": (32,),
                "fc1.weight": (32, 32),
                "fc1.bias": (32,),
                "fc2.weight": (32, 32),
                "fc2.bias": (32,),
            }.items()
        },
        "norm.weight": (32,),
        "norm.bias": (32,),
        "policy.weight": (6, 32),
        "policy.bias": (6,),
        "value_hidden.weight": (16, 32),
        "value_hidden.bias": (16,),
        "value.weight": (1, 16),
        "value.bias": (1,),
    }


def test_the_ring_network_has_the_rust_names_and_shapes():
    net = nn.PolicyValueNet(6, hidden=8, blocks=1, body="ring")
    shapes = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    assert shapes == {
        "input.weight": (8, 8, 3),
        "input.bias": (8,),
        "block0.norm.weight": (8,),
        "block0.norm.bias": (8,),
        "block0.conv1.weight": (8, 8, 3),
        "block0.conv1.bias": (8,),
        "block0.conv2.weight": (8, 8, 3),
        "block0.conv2.bias": (8,),
        "norm.weight": (8,),
        "norm.bias": (8,),
        "policy.weight": (1, 8, 1),
        "policy.bias": (1,),
        "value_hidden.weight": (4, 8 * 12),
        "value_hidden.bias": (4,),
        "value.weight": (1, 4),
        "value.bias": (1,),
    }
    assert net.config["body"] == "ring"
    with pytest.raises(ValueError, match="body must be one of mlp, ring"):
        nn.PolicyValueNet(6, body="conv")


def test_a_network_with_a_span_serves_every_board_up_to_it(tmp_path):
    # Laid out for 10 holes: the input of 2x6 spread into it, the board size a one-hot.
    torch.manual_seed(3)
    net = nn.PolicyValueNet(6, hidden=8, blocks=1, span=10)
    shapes = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    assert shapes["input.weight"] == (8, 7 * 10 + 2)
    assert shapes["policy.weight"] == (10, 8)
    assert net.config == {
        "holes": 6, "hidden": 8, "blocks": 1, "lookahead": True, "body": "mlp", "span": 10
    }
    assert "span" not in nn.PolicyValueNet(6, hidden=8, blocks=1).config
    # The same weights play 2x8: outputs of the board's size, illegal moves masked.
    eight = nn.PolicyValueNet(8, hidden=8, blocks=1, span=10)
    eight.load_state_dict(net.state_dict())
    x = torch.rand(4, input_length(8))
    x[:, -8:] = torch.tensor([1.0, 0, 1, 1, 0, 1, 1, 1])
    with torch.no_grad():
        logits, value = eight(x)
    assert logits.shape == (4, 8) and (logits[:, [1, 4]] == nn.MASKED_LOGIT).all()
    assert (value.abs() <= 1).all()
    # The network itself reads any board up to its span off the input's length.
    with torch.no_grad():
        same = net(x)
    assert torch.equal(same[0], logits) and torch.equal(same[1], value)
    # Holes past the board never reach the output: their columns of the input layer are free.
    x6 = torch.rand(4, input_length(6))
    x6[:, -6:] = 1.0
    with torch.no_grad():
        before = net(x6)
        for start in (0, 10, 22, 32, 42, 52):
            net.input.weight[:, start + 6 : start + 10] = 99.0
        after = net(x6)
    assert all(torch.allclose(a, b) for a, b in zip(before, after))
    # A checkpoint of it loads with its span and plays as az.
    save_checkpoint(tmp_path, net)
    loaded, meta = nn.load(tmp_path)
    assert loaded.span == 10 and meta["net"]["span"] == 10
    with torch.no_grad():
        assert torch.equal(loaded(x6)[0], net(x6)[0])
    agent = sowing.agents.from_spec(f"az:{tmp_path}:4")
    assert agent.choose(State.initial("en-dodoi-6")) in range(6)
    # The Python search plays its weights on every board up to the span, and no further.
    for variant in ("en-dodoi-8", "en-dodoi-10"):
        player = NetworkAgent(net.evaluator(), variant, simulations=4)
        assert player.choose(State.initial(variant)) in range(player.holes)
    wide = np.zeros((1, input_length(12)), dtype=np.float32)
    with pytest.raises(ValueError, match="boards of up to 10 holes per row with look-ahead"):
        net.evaluator()(wide, np.ones((1, 12), dtype=bool))
    plain = nn.PolicyValueNet(6, hidden=8, blocks=1)
    with pytest.raises(ValueError, match="for 6 holes per row and the game has 8"):
        NetworkAgent(plain.evaluator(), "en-dodoi-8", simulations=4)
    # A span narrower than the board, or on the ring, is refused.
    with pytest.raises(ValueError, match="span must be 8 to 16"):
        nn.PolicyValueNet(8, span=6)
    with pytest.raises(ValueError, match="on the ring body"):
        nn.PolicyValueNet(6, body="ring", span=10)


@pytest.mark.parametrize("body", ["mlp", "ring"])
def test_outputs_mask_illegal_actions_and_bound_the_value(body):
    torch.manual_seed(0)
    net = nn.PolicyValueNet(6, hidden=16, blocks=1, body=body)
    seen = []

    def record(obs, mask):
        seen.append((obs, mask))
        return net.evaluator()(obs, mask)

    state = State.initial("en-dodoi-6").play(5).play(0)
    sowing.search.search([state], record, simulations=2)
    obs, mask = seen[0]
    logits, value = net(torch.from_numpy(obs))
    assert (logits[0, ~torch.from_numpy(mask[0])] == nn.MASKED_LOGIT).all()
    assert -1 <= value.detach()[0].item() <= 1


def save_checkpoint(run, net, iteration=1, rules="en-dodoi-6", simulations=16):
    rules = sowing.Rules.preset(rules)
    meta = {
        "iteration": iteration,
        "rules": json.loads(rules.to_json()),
        "net": net.config,
        "args": {"simulations": simulations, "c_puct": 0.5, "dirichlet_alpha": 1.0},
        "history": [],
        "baseline_elo": {},
        "seconds": 0.0,
    }
    return Path(write_checkpoint(str(run), meta, nn.state_dict_arrays(net)))


@pytest.mark.parametrize("body", ["mlp", "ring"])
def test_a_checkpoint_loads_with_its_outputs_and_plays_as_az(tmp_path, body):
    torch.manual_seed(1)
    net = nn.PolicyValueNet(6, hidden=16, blocks=2, body=body)
    save_checkpoint(tmp_path, net, iteration=1)
    folder = save_checkpoint(tmp_path, net, iteration=2)
    loaded, meta = nn.load(tmp_path)
    assert meta["iteration"] == 2 and Path(resolve_checkpoint(str(tmp_path))) == folder
    x = torch.rand(5, input_length(6))
    x[:, -6:] = 1.0
    with torch.no_grad():
        for a, b in zip(net(x), loaded(x)):
            assert torch.equal(a, b)
    agent = sowing.agents.from_spec(f"az:{tmp_path}")
    assert agent.name == f"az:{tmp_path}:16"
    assert sowing.agents.from_spec(f"az:{tmp_path}:5:solver=0").name == f"az:{tmp_path}:5:solver=0"
    state = State.initial("en-dodoi-6")
    assert agent.choose(state) in state.legal_moves()
    assert isinstance(agent, NetworkAgent)
    with pytest.raises(ValueError, match="6 holes"):
        agent.choose(State.initial("en-dodoi-8"))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("az:", "path"),
        ("az:x:solver=many", "solver="),
        ("az:x:0", "simulations"),
        ("az:/nonexistent/run", "no checkpoint"),
    ],
)
def test_bad_az_specs_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        sowing.agents.from_spec(spec)


def test_az_specs_are_read_by_the_rust_grammar(tmp_path):
    """nn.agent takes every az: spec that sowing arena takes, options in any order, and maps
    its fields onto the network agent."""
    net = nn.PolicyValueNet(6, hidden=8, blocks=1)
    save_checkpoint(tmp_path, net)
    batched = sowing.agents.from_spec(f"az:{tmp_path}:5:leaves=4:solver=0")
    assert batched.name == f"az:{tmp_path}:5:solver=0:leaves=4"
    assert batched._settings["leaf_batch"] == 4 and batched._settings["solver_nodes"] == 0
    assert batched._settings["simulations"] == 5
    default = sowing.agents.from_spec(f"az:{tmp_path}:solver=200000:leaves=1")
    assert default.name == f"az:{tmp_path}:16"
    with pytest.raises(ValueError, match="no tablebase"):
        sowing.agents.from_spec(f"az:{tmp_path}:8:tb=some.tb")
    with pytest.raises(ValueError, match="leaves= takes a number of leaves per forward pass, 1 to 256"):
        sowing.agents.from_spec(f"az:{tmp_path}:leaves=0")
    timed = f"az:{tmp_path}:50ms"
    if "time" in inspect.signature(NetworkAgent.__new__).parameters:
        agent = sowing.agents.from_spec(timed)
        assert agent.name == timed
        assert agent._settings["solver_nodes"] == 0 and agent._settings["leaf_batch"] == 16
        state = State.initial("en-dodoi-6")
        assert agent.choose(state) in state.legal_moves()
    else:
        # A NetworkAgent without a clock: the spec is read, and refused by name.
        with pytest.raises(ValueError, match="no time per move"):
            sowing.agents.from_spec(timed)


def test_a_network_agent_is_a_sowing_agent(tmp_path):
    net = nn.PolicyValueNet(6, hidden=8, blocks=1)
    save_checkpoint(tmp_path, net)
    agent = sowing.agents.from_spec(f"az:{tmp_path}:4")
    assert isinstance(agent, sowing.Agent)
    plain = NetworkAgent(net.evaluator(), "en-dodoi-6", simulations=4)
    assert isinstance(plain, sowing.Agent) and isinstance(plain, sowing.agents.Agent)
    state = State.initial("en-dodoi-6")
    assert plain(state) in state.legal_moves()


def test_damaged_checkpoints_are_refused_naming_the_file(tmp_path):
    net = nn.PolicyValueNet(6, hidden=8, blocks=1)
    folder = save_checkpoint(tmp_path, net)
    weights = folder / SAFETENSORS
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    with pytest.raises(nn.CheckpointError, match="truncated") as e:
        nn.load(tmp_path)
    assert str(weights) in str(e.value)
    weights.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(nn.CheckpointError, match="differ"):
        nn.load(tmp_path)
    weights.write_bytes(data)
    meta = json.loads((folder / "meta.json").read_text())
    del meta["files"][SAFETENSORS]
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(nn.CheckpointError, match="no weights.safetensors"):
        nn.load(tmp_path)
    (folder / "meta.json").write_text("{ not json")
    with pytest.raises(nn.CheckpointError, match="not valid JSON"):
        nn.load(folder)
    (folder / "meta.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(nn.CheckpointError, match="not a sowing-az-checkpoint"):
        nn.load(folder)


def test_weights_of_another_network_do_not_load(tmp_path):
    folder = save_checkpoint(tmp_path, nn.PolicyValueNet(6, hidden=8, blocks=1))
    meta = json.loads((folder / "meta.json").read_text())
    meta["net"]["hidden"] = 16
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(nn.CheckpointError, match="holds one of"):
        nn.load(folder)
    meta["net"]["hidden"] = 8
    meta["net"]["body"] = "ring"
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(nn.CheckpointError, match="holds one of"):
        nn.load(folder)


def fnv1a(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & ((1 << 64) - 1)
    return h


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=200, deadline=None)
@given(st.data())
def test_damaged_weights_are_refused_with_a_value_error_never_a_panic(tmp_path_factory, data):
    """Damage that the digest would catch is written with a matching digest, so that the Rust
    safetensors reader itself meets it: a cut, a flipped bit, random bytes, another header."""
    run = tmp_path_factory.mktemp("damaged")
    folder = save_checkpoint(run, nn.PolicyValueNet(6, hidden=4, blocks=1))
    weights = folder / SAFETENSORS
    raw = bytearray(weights.read_bytes())
    how = data.draw(st.sampled_from(["truncate", "flip", "random", "header"]))
    if how == "truncate":
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif how == "flip":
        at = data.draw(st.integers(0, min(len(raw) - 1, 600)))
        raw[at] ^= 1 << data.draw(st.integers(0, 7))
    elif how == "random":
        raw = bytearray(data.draw(st.binary(max_size=64)))
    else:
        header = data.draw(st.sampled_from([b"[]", b"{}", b'{"a": 1}', b'{"a": {"dtype": "F64"}}']))
        raw = bytearray(len(header).to_bytes(8, "little") + header)
    weights.write_bytes(bytes(raw))
    meta = json.loads((folder / "meta.json").read_text())
    meta["files"][SAFETENSORS] = {"bytes": len(raw), "fnv1a": fnv1a(raw)}
    (folder / "meta.json").write_text(json.dumps(meta))
    try:
        read_checkpoint(str(folder))
    except nn.CheckpointError as e:
        assert str(folder) in str(e)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_damaged_metadata_is_refused_with_a_value_error(tmp_path_factory, meta):
    run = tmp_path_factory.mktemp("meta")
    folder = save_checkpoint(run, nn.PolicyValueNet(6, hidden=4, blocks=1))
    (folder / "meta.json").write_bytes(meta)
    with pytest.raises(ValueError):
        nn.load(folder)


_JSON = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(["span", "holes"]), value=_JSON | st.lists(_JSON, max_size=3))
def test_a_span_network_with_its_shape_edited_loads_only_as_it_is(tmp_path_factory, field, value):
    run = tmp_path_factory.mktemp("span")
    folder = save_checkpoint(run, nn.PolicyValueNet(6, hidden=4, blocks=1, span=10))
    meta = json.loads((folder / "meta.json").read_text())
    meta["net"][field] = value
    (folder / "meta.json").write_text(json.dumps(meta))
    unchanged = {"span": 10, "holes": 6}[field]
    if value == unchanged and type(value) is int:
        assert nn.load(folder)[0].span == 10
    else:
        with pytest.raises(ValueError):
            nn.load(folder)


def test_writing_refuses_what_is_not_a_checkpoint(tmp_path):
    net = nn.PolicyValueNet(6, hidden=4, blocks=1)
    meta = json.loads((save_checkpoint(tmp_path / "ok", net) / "meta.json").read_text())
    with pytest.raises(ValueError, match="holds one of|network of"):
        write_checkpoint(str(tmp_path / "x"), dict(meta, net=dict(meta["net"], hidden=8)), nn.state_dict_arrays(net))
    with pytest.raises(ValueError, match="files may hold"):
        write_checkpoint(str(tmp_path / "x"), meta, nn.state_dict_arrays(net), files={"evil.sh": b""})
    with pytest.raises(ValueError, match="does not describe"):
        write_checkpoint(str(tmp_path / "x"), {"iteration": 1}, nn.state_dict_arrays(net))


def test_without_torch_the_error_says_what_to_install():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import sowing, sowing.search\n"
        "assert 'torch' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
        "try:\n"
        "    sowing.agents.from_spec('az:runs/x')\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install torch" in out.stdout


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
@pytest.mark.parametrize("body,span", [("mlp", None), ("ring", None), ("mlp", 10)])
def test_the_network_is_scriptable_and_keeps_its_checkpoint_names(body, span):
    torch.manual_seed(2)
    net = nn.PolicyValueNet(6, hidden=8, blocks=2, body=body, span=span)
    scripted = torch.jit.script(net)
    x = torch.rand(3, input_length(6))
    x[:, -6:] = torch.tensor([1.0, 0, 1, 1, 0, 1])
    with torch.no_grad():
        for a, b in zip(net(x), scripted(x)):
            assert torch.equal(a, b)
    names = list(net.state_dict())
    assert "block1.norm.weight" in names and not any(n.startswith("blocks_") for n in names)
    again = nn.PolicyValueNet(6, hidden=8, blocks=2, body=body, span=span)
    again.load_state_dict(net.state_dict())
    with torch.no_grad():
        assert torch.equal(again(x)[0], net(x)[0])


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_a_network_of_any_float_type_searches(dtype):
    net = nn.PolicyValueNet(6, hidden=8, blocks=1).to(getattr(torch, dtype))
    states = [State.initial("en-dodoi-6").play(a) for a in range(3)]
    out = sowing.search.search(states, net, simulations=8)
    assert out.visits.sum() == 3 * 7
    logits, value = net.evaluator()(np.zeros((2, input_length(6)), np.float32), None)
    assert logits.dtype == np.float32 and value.dtype == np.float32


def test_a_network_of_another_board_or_input_is_refused_up_front():
    six = nn.PolicyValueNet(6, hidden=8, blocks=1)
    with pytest.raises(ValueError, match="for 6 holes per row and the game has 8"):
        NetworkAgent(six, "en-dodoi-8")
    with pytest.raises(ValueError, match="for 6 holes per row and the game has 8"):
        sowing.search.self_play("en-dodoi-8", six, games=1)
    with pytest.raises(ValueError, match="with the look-ahead features and lookahead=False"):
        sowing.search.Search(six, lookahead=False)
    flat = nn.PolicyValueNet(6, hidden=8, blocks=1, lookahead=False)
    agent = NetworkAgent(flat, "en-dodoi-6")  # lookahead: the network's own
    assert agent.choose(State.initial("en-dodoi-6")) in range(6)
    with pytest.raises(ValueError, match="for 6 holes per row, the states have 8"):
        sowing.search.search([State.initial("en-dodoi-8")], six)
    with pytest.raises(ValueError, match="boards of 6 holes per row with look-ahead"):
        six.evaluator()(np.zeros((1, input_length(8)), np.float32), None)


def test_a_python_trained_network_saves_as_a_checkpoint_az_plays(tmp_path):
    torch.manual_seed(3)
    net = nn.PolicyValueNet(6, hidden=8, blocks=1)
    first = nn.save(net, tmp_path, "en-dodoi-6", simulations=12)
    second = nn.save(net, tmp_path, sowing.Rules.preset("en-dodoi-6"))
    assert first.name == "iter-000001" and second.name == "iter-000002"
    loaded, meta = nn.load(first)
    assert meta["args"]["simulations"] == 12 and meta["rules"]["holes"] == 6
    x = torch.rand(2, input_length(6))
    with torch.no_grad():
        assert torch.equal(loaded(x)[0], net(x)[0])
    agent = sowing.agents.from_spec(f"az:{first}")
    assert agent.name == f"az:{first}:12"
    env = gymnasium.make("sowing/en-dodoi-6-v0", opponent=f"az:{tmp_path}")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="holes per row"):
        nn.save(net, tmp_path, "en-dodoi-8")
    with pytest.raises(ValueError, match="simulations must be"):
        nn.save(net, tmp_path, "en-dodoi-6", simulations=0)
    with pytest.raises(TypeError, match="PolicyValueNet"):
        nn.save(torch.nn.Linear(2, 2), tmp_path, "en-dodoi-6")
    with pytest.raises(ValueError, match="plays boards of 6 holes per row"):
        gymnasium.make("sowing/en-dodoi-8-v0", opponent=f"az:{tmp_path}")
