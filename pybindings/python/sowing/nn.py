"""The policy-value network of ``sowing train`` in PyTorch: the same layers under the same names,
the same outputs, so that a checkpoint's ``weights.safetensors`` loads into it and plays, and a
network trained in Python can be searched by the Rust search (``sowing.search``).

- ``PolicyValueNet(holes, hidden=64, blocks=2, lookahead=True, body="mlp", span=None)``: over the input of
  ``sowing.search`` (``input_length(holes, lookahead)`` values, the legal mask last), a residual
  MLP (``body="mlp"``) or a residual convolution over the ``2n`` holes as a ring (``"ring"``:
  circular padding, the mover's row first; each hole carries its seeds, a mover's-row flag, the
  two stores, and on the mover's holes the legal flag and the look-ahead features); ``forward``
  gives the policy logits ``[B, n]`` (illegal actions at -1e9) and the value ``[B]`` in
  ``[-1, 1]`` for the player to move. Variables: ``input``, ``block{i}.{norm,fc1,fc2}`` (MLP) or
  ``block{i}.{norm,conv1,conv2}`` (ring), ``norm``, ``policy``, ``value_hidden``, ``value``.
  An MLP with a ``span`` (``sowing train --span``) is laid out for boards of up to ``span``
  holes, the board's size an input, so that its weights serve every board up to it.
- ``net.evaluator()``: the function ``evaluate(obs, mask)`` for the search (inference mode, numpy
  in and out, on the network's device and in its float type), an ``Evaluator`` that pickles
  with its network and refuses the input of another board, naming it. A ``PolicyValueNet``
  given as ``evaluate`` to ``sowing.search`` is turned into one.
- The network is TorchScript-able (``torch.jit.script(net)``) in any float type (float32,
  float64, bfloat16, float16); its logits and value come out as float32 in every type.
- ``load(path)``: the network of a checkpoint (a run directory, its newest iteration, or one
  ``iter-NNNNNN`` folder) and its metadata; sizes and hashes are checked first.
- ``save(net, run, variant)``: a network trained in Python written as a checkpoint of ``run``,
  which ``az:RUN`` plays (here and in ``sowing arena``).
- ``agent("az:PATH[:SIMS|:TIME][:solver=NODES][:leaves=N]")``: the checkpoint as a
  ``sowing.search.NetworkAgent``,
  the agent ``az:`` of ``sowing arena``; ``sowing.agents.from_spec`` and the ``opponent`` of the
  Gymnasium environment reach it through here.

Importing this module needs PyTorch (``pip install torch``); ``import sowing`` does not.
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any, Callable

import numpy as np

try:
    import torch
    from torch import nn
except ImportError:
    raise ImportError(
        "sowing.nn needs PyTorch, which is not installed: pip install torch "
        "(or pip install 'sowing[torch]')"
    ) from None

from ._sowing import (
    CheckpointError,
    Rules,
    newest_checkpoint,
    parse_agent_spec,
    read_checkpoint,
    write_checkpoint,
)
from .search import NetworkAgent, input_length

__all__ = [
    "CheckpointError",
    "Evaluator",
    "PolicyValueNet",
    "agent",
    "load",
    "save",
    "state_dict_arrays",
]

MASKED_LOGIT = -1.0e9
"""The logit of illegal actions, as in the Rust network: softmax gives them exactly zero."""


class Block(nn.Module):
    """One pre-norm residual block: ``h + fc2(relu(fc1(norm(h))))``."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, hidden)
        self.fc2 = nn.Linear(hidden, hidden)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.fc2(torch.relu(self.fc1(self.norm(h))))


def _ring_conv(channels_in: int, channels_out: int) -> nn.Conv1d:
    """A convolution over three neighbouring holes of the ring (the last hole's neighbour is the
    first)."""
    return nn.Conv1d(channels_in, channels_out, 3, padding=1, padding_mode="circular")


class RingBlock(nn.Module):
    """One pre-norm residual block of the ring body: ``h + conv2(relu(conv1(norm(h))))``."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.norm = nn.GroupNorm(1, hidden)
        self.conv1 = _ring_conv(hidden, hidden)
        self.conv2 = _ring_conv(hidden, hidden)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.conv2(torch.relu(self.conv1(self.norm(h))))


BODIES = ("mlp", "ring")
"""The bodies a network may have (``--net`` of ``sowing train``)."""


def _checkpoint_names(module: nn.Module, state_dict: dict, prefix: str, _metadata: Any) -> None:
    """``blocks_.{i}.x`` as ``block{i}.x``: the blocks live in a ``ModuleList`` (which
    TorchScript can loop over), named in state dicts as the Rust network names them, which
    checkpoints carry."""
    head = prefix + "blocks_."
    items = list(state_dict.items())
    state_dict.clear()
    for key, value in items:
        if key.startswith(head):
            i, _, rest = key[len(head) :].partition(".")
            key = f"{prefix}block{i}.{rest}"
        state_dict[key] = value


def _module_names(state_dict: dict, prefix: str, *_: Any) -> None:
    """The inverse of ``_checkpoint_names``, before a state dict loads."""
    head = prefix + "block"
    for key in [k for k in state_dict if k.startswith(head)]:
        i, dot, rest = key[len(head) :].partition(".")
        if i.isdigit() and dot:
            state_dict[f"{prefix}blocks_.{i}.{rest}"] = state_dict.pop(key)


class PolicyValueNet(nn.Module):
    """The network of ``sowing train`` for boards of ``holes`` holes per row."""

    __jit_unused_properties__ = ["config"]

    def __init__(
        self,
        holes: int,
        hidden: int = 64,
        blocks: int = 2,
        lookahead: bool = True,
        body: str = "mlp",
        span: int | None = None,
    ) -> None:
        super().__init__()
        if not 1 <= holes <= 16:
            raise ValueError(f"holes must be 1 to 16, got {holes}")
        if not 2 <= hidden <= 4096 or not 0 <= blocks <= 64:
            raise ValueError(f"hidden must be 2 to 4096 and blocks 0 to 64, got {hidden}, {blocks}")
        if body not in BODIES:
            raise ValueError(f"body must be one of {', '.join(BODIES)}, got {body!r}")
        if span is not None and (body != "mlp" or not holes <= span <= 16):
            raise ValueError(
                f"span must be {holes} to 16 (the board's holes to the widest board), on the mlp "
                f"body; got span {span!r} on the {body} body"
            )
        self.holes = holes
        self.hidden = hidden
        self.blocks = blocks
        self.lookahead = lookahead
        self.body = body
        self.ring = body == "ring"
        self.span = span
        # Holes per row the layers are laid out for (see ``_spread``).
        self.width = holes if span is None else span
        if body == "mlp":
            spread = 0 if span is None else self.width
            self.input = nn.Linear(input_length(self.width, lookahead) + spread, hidden)
            self.blocks_ = nn.ModuleList(Block(hidden) for _ in range(blocks))
            self.norm = nn.LayerNorm(hidden)
            self.policy = nn.Linear(hidden, self.width)
            value_in = hidden
        else:
            self.input = _ring_conv(8 if lookahead else 5, hidden)
            self.blocks_ = nn.ModuleList(RingBlock(hidden) for _ in range(blocks))
            self.norm = nn.GroupNorm(1, hidden)
            self.policy = nn.Conv1d(hidden, 1, 1)
            value_in = hidden * 2 * holes
        self.value_hidden = nn.Linear(value_in, hidden // 2)
        self.value = nn.Linear(hidden // 2, 1)
        self._register_state_dict_hook(_checkpoint_names)
        self._register_load_state_dict_pre_hook(_module_names)

    @property
    def config(self) -> dict[str, Any]:
        """The shape, as ``meta.json``'s ``net`` holds it."""
        config: dict[str, Any] = {
            "holes": self.holes,
            "hidden": self.hidden,
            "blocks": self.blocks,
            "lookahead": self.lookahead,
            "body": self.body,
        }
        if self.span is not None:
            config["span"] = self.span
        return config

    def _board_holes(self, x: torch.Tensor) -> int:
        """Holes per row of the board whose inputs are ``x``: with a span, any board up to it
        (read off the input's length); without, the network's own."""
        if self.span is None:
            return self.holes
        return (x.shape[1] - 2) // (6 if self.lookahead else 3)

    def _spread(self, x: torch.Tensor) -> torch.Tensor:
        """With a span: the input of this board's ``n`` holes laid out for ``span`` holes, each
        block of ``n`` values (the two rows, each look-ahead feature, the legal mask) padded with
        zeros, the stores as they are, and last the board size as a one-hot over the span (1 at
        ``n - 1``), as the Rust network's ``spread``."""
        n, width = self._board_holes(x), self.width
        pad = x.new_zeros(x.shape[0], width - n)
        parts = [x[:, :n], pad, x[:, n : 2 * n], pad, x[:, 2 * n : 2 * n + 2]]
        features = 3 if self.lookahead else 0
        for k in range(features + 1):
            start = 2 * n + 2 + k * n
            parts.append(x[:, start : start + n])
            parts.append(pad)
        size = x.new_zeros(x.shape[0], width)
        size[:, n - 1] = 1.0
        parts.append(size)
        return torch.cat(parts, 1)

    def _ring_input(self, x: torch.Tensor) -> torch.Tensor:
        """``[B, channels, 2n]``: per hole its seeds, 1 on the mover's row, the two stores, and
        on the mover's holes the legal flag and the look-ahead features (0 on the opponent's)."""
        n = self.holes
        zeros = x.new_zeros(x.shape[0], n)
        channels = [
            x[:, : 2 * n],
            torch.cat([torch.ones_like(zeros), zeros], 1),
            x[:, 2 * n : 2 * n + 1].expand(-1, 2 * n),
            x[:, 2 * n + 1 : 2 * n + 2].expand(-1, 2 * n),
            torch.cat([x[:, -n:], zeros], 1),
        ]
        if self.lookahead:
            for k in range(3):
                start = 2 * n + 2 + k * n
                channels.append(torch.cat([x[:, start : start + n], zeros], 1))
        return torch.stack(channels, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = self._board_holes(x)
        legal = x[:, -n:] > 0.5
        if self.ring:
            x_in = self._ring_input(x)
        elif self.span is not None:
            x_in = self._spread(x)
        else:
            x_in = x
        h = torch.relu(self.input(x_in))
        for block in self.blocks_:
            h = block(h)
        h = torch.relu(self.norm(h))
        if self.ring:
            # The mover's holes come first on the ring.
            logits = self.policy(h).squeeze(1)[:, :n]
            h = h.flatten(1)
        else:
            # With a span, the logits of the holes past the board are dropped.
            logits = self.policy(h)[:, :n]
        # In float32 whatever the network's type: -1e9 overflows float16. (MASKED_LOGIT, written
        # out: TorchScript takes no globals.)
        logits = logits.float().masked_fill(~legal, -1.0e9)
        value = torch.tanh(self.value(torch.relu(self.value_hidden(h)))).squeeze(1).float()
        return logits, value

    def evaluator(self) -> Evaluator:
        """``evaluate(obs, mask)`` for ``sowing.search``: this network in inference mode, on its
        device and in its float type, numpy in and out (see ``Evaluator``). It reads the network
        as it is at each call, so a network trained on between searches is searched as it now
        is."""
        return Evaluator(self)

    def load_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Load weights given as numpy arrays by name (all of them, and no others)."""
        own = self.state_dict()
        missing = sorted(set(own) - set(arrays))
        extra = sorted(set(arrays) - set(own))
        if missing or extra:
            raise ValueError(
                f"the weights do not fit a {self.config} network: missing {missing}, unexpected "
                f"{extra}"
            )
        for name, array in arrays.items():
            if tuple(array.shape) != tuple(own[name].shape):
                raise ValueError(
                    f"weight {name} has shape {list(array.shape)}, the network's "
                    f"{list(own[name].shape)}"
                )
        # Copied: arrays from Ray's object store are read-only views of shared memory.
        self.load_state_dict(
            {k: torch.tensor(np.asarray(v), dtype=torch.float32) for k, v in arrays.items()}
        )


class Evaluator:
    """A ``PolicyValueNet`` as ``evaluate(obs, mask) -> (logits, value)`` for ``sowing.search``.
    Its ``holes`` and ``lookahead`` are the network's, which the search and ``NetworkAgent``
    check against the game before they start; an input of another length is refused with a
    ``ValueError`` naming the board it is for. Pickled with its network."""

    def __init__(self, net: PolicyValueNet) -> None:
        if not isinstance(net, PolicyValueNet):
            raise TypeError(f"an Evaluator wraps a sowing.nn.PolicyValueNet, got {type(net).__name__}")
        self.net = net

    @property
    def holes(self) -> int:
        return self.net.holes

    @property
    def lookahead(self) -> bool:
        return self.net.lookahead

    @property
    def span(self) -> int | None:
        """With a span, the widest board it plays (any board up to it); else None."""
        return self.net.span

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        net = self.net
        boards = [net.holes] if net.span is None else list(range(1, net.span + 1))
        widths = [input_length(n, net.lookahead) for n in boards]
        if obs.ndim != 2 or obs.shape[1] not in widths:
            if net.span is None:
                what, values = f"boards of {net.holes}", f"{widths[0]}"
            else:
                what, values = f"boards of up to {net.span}", f"{widths[0]} to {widths[-1]}"
            raise ValueError(
                f"this network is for {what} holes per row"
                f"{' with' if net.lookahead else ' without'} look-ahead (inputs of {values} "
                f"values); it was given inputs of shape {tuple(obs.shape)}"
            )
        parameter = next(self.net.parameters())
        with torch.inference_mode():
            x = torch.from_numpy(obs).to(device=parameter.device, dtype=parameter.dtype)
            logits, value = self.net(x)
            return logits.cpu().numpy(), value.cpu().numpy()

    def __repr__(self) -> str:
        return f"Evaluator({self.net.config})"


def as_evaluate(evaluate: Any) -> Any:
    """``evaluate`` for the search: a ``PolicyValueNet`` as its ``Evaluator``, anything else as
    it is."""
    return evaluate.evaluator() if isinstance(evaluate, PolicyValueNet) else evaluate


def state_dict_arrays(net: nn.Module) -> dict[str, np.ndarray]:
    """A network's weights as float32 numpy arrays by name, for ``safetensors`` and Ray's object
    store."""
    return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in net.state_dict().items()}


def load(path: str | os.PathLike[str]) -> tuple[PolicyValueNet, dict[str, Any]]:
    """The network of the checkpoint at ``path`` (a run directory or an ``iter-NNNNNN`` folder),
    in eval mode, and the checkpoint's ``meta.json``. The checkpoint is read and checked by the
    Rust reader of ``sowing train`` (sizes and hashes, the network against the rules and the
    weights); a damaged one raises ``sowing.nn.CheckpointError`` (a ``ValueError``) naming the
    file."""
    folder, meta, arrays = read_checkpoint(os.fspath(path))
    net_config = meta["net"]
    net = PolicyValueNet(
        int(net_config["holes"]),
        int(net_config["hidden"]),
        int(net_config["blocks"]),
        bool(net_config.get("lookahead", False)),
        str(net_config.get("body", "mlp")),
        None if net_config.get("span") is None else int(net_config["span"]),
    )
    try:
        net.load_arrays(arrays)
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"checkpoint {folder} does not load: {e}") from None
    net.eval()
    return net, meta


def save(
    net: PolicyValueNet,
    run: str | os.PathLike[str],
    variant: Any,
    *,
    iteration: int | None = None,
    simulations: int = 64,
    c_puct: float = 0.5,
    dirichlet_alpha: float = 1.0,
) -> Any:
    """Write ``net``, trained in Python for ``variant`` (a preset name or ``sowing.Rules``), as
    checkpoint ``iter-NNNNNN`` of run directory ``run`` (the next iteration after the newest
    there, or ``iteration``), so that ``az:RUN`` plays it with ``simulations`` per move and
    ``c_puct`` (``sowing.agents.from_spec``, ``gymnasium.make(..., opponent="az:RUN")``,
    ``sowing arena``). The weights are written as ``weights.safetensors`` in float32, the
    folder atomically, by the Rust writer of ``sowing train``. Returns the folder."""
    from pathlib import Path

    from .search import _rules

    if not isinstance(net, PolicyValueNet):
        raise TypeError(f"save writes a sowing.nn.PolicyValueNet, got {type(net).__name__}")
    rules = _rules(variant)
    if rules.holes != net.holes:
        raise ValueError(
            f"the network is for {net.holes} holes per row and {rules.summary} has {rules.holes}"
        )
    if iteration is None:
        newest = newest_checkpoint(os.fspath(run))
        iteration = 1 if newest is None else int(Path(newest).name[5:]) + 1
    if isinstance(iteration, bool) or not isinstance(iteration, int) or not 1 <= iteration <= 999_999:
        raise ValueError(f"iteration must be 1 to 999999, got {iteration!r}")
    if isinstance(simulations, bool) or not isinstance(simulations, int) or not 1 <= simulations <= 1_000_000:
        raise ValueError(f"simulations must be 1 to 1000000, got {simulations!r}")
    for name, x in (("c_puct", c_puct), ("dirichlet_alpha", dirichlet_alpha)):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 < x < float("inf"):
            raise ValueError(f"{name} must be a positive number, got {x!r}")
    meta = {
        "iteration": iteration,
        "rules": json.loads(rules.to_json()),
        "net": net.config,
        "args": {
            "simulations": simulations,
            "c_puct": float(c_puct),
            "dirichlet_alpha": float(dirichlet_alpha),
        },
        "history": [],
        "baseline_elo": {},
        "seconds": 0.0,
        "trainer": "python",
    }
    return Path(write_checkpoint(os.fspath(run), meta, state_dict_arrays(net)))


def agent(spec: str, seed: int = 0) -> NetworkAgent:
    """The agent of spec ``az:PATH[:SIMS|:TIME][:solver=NODES][:leaves=N]``, as ``sowing arena``
    makes it (the spec read by the same grammar, ``sowing.agents.parse_agent_spec``): the
    checkpoint's network searching ``SIMS`` simulations per move (default: those the run trained
    with) or for ``TIME`` per move (``50ms``, ``1s``), with the run's ``c_puct``, the most visited
    move without noise, the endgame solver at ``NODES`` positions per move (default 200000 with a
    count, none with a time; 0: none) and ``N`` leaves per forward pass (default 1 with a count,
    with a time the Rust grammar's ``default_leaves``, 64). ``tb=FILE`` is refused: the Python network agent takes no tablebase."""
    fields = parse_agent_spec(spec)
    if fields["kind"] != "az":
        raise ValueError(f"invalid agent spec {spec!r}: an az spec starts with az:")
    if fields["tablebase"] is not None:
        raise ValueError(
            f"invalid agent spec {spec!r}: the Python network agent takes no tablebase (tb=); "
            "sowing arena plays az:...:tb=FILE"
        )
    path = fields["path"]
    net, meta = load(path)
    args = meta["args"]
    simulations = fields["simulations"]
    time = fields["time"]
    keywords: dict[str, Any] = {}
    if time is not None:
        if "time" not in inspect.signature(NetworkAgent.__new__).parameters:
            raise ValueError(
                f"invalid agent spec {spec!r}: this NetworkAgent takes no time per move; give a "
                "count of simulations (az:PATH:SIMS)"
            )
        keywords["time"] = time
    else:
        simulations = simulations or int(args["simulations"])
        keywords["simulations"] = simulations
    solver, leaves = fields["solver"], fields["leaves"]
    solver = fields["default_solver"] if solver is None else solver
    leaves = fields["default_leaves"] if leaves is None else leaves
    # Named as the Rust agent names itself: the budget always, an option where not its default.
    name = f"az:{path}:{fields['budget'] or simulations}"
    if solver != fields["default_solver"]:
        name += f":solver={solver}"
    if leaves != fields["default_leaves"]:
        name += f":leaves={leaves}"
    rules = Rules.from_json(json.dumps(meta["rules"]))
    made = NetworkAgent(
        net.evaluator(),
        rules,
        c_puct=float(args["c_puct"]),
        lookahead=net.lookahead,
        solver_nodes=solver,
        seed=seed,
        name=name,
        leaf_batch=leaves,
        **keywords,
    )
    # Pickled by its spec, as a table by its file: the copy loads the checkpoint again.
    made._spec = spec
    return made

