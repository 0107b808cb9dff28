"""The policy-value network of ``sowing train`` in PyTorch: the same layers under the same names,
the same outputs, so that a checkpoint's ``weights.safetensors`` loads into it and plays, and a
network trained in Python can be searched by the Rust search (``sowing.search``).

- ``PolicyValueNet(holes, hidden=64, blocks=2, lookahead=True, body="mlp")``: over the input of
  ``sowing.search`` (``input_length(holes, lookahead)`` values, the legal mask last), a residual
  MLP (``body="mlp"``) or a residual convolution over the ``2n`` holes as a ring (``"ring"``:
  circular padding, the mover's row first; each hole carries its seeds, a mover's-row flag, the
  two stores, and on the mover's holes the legal flag and the look-ahead features); ``forward``
  gives the policy logits ``[B, n]`` (illegal actions at -1e9) and the value ``[B]`` in
  ``[-1, 1]`` for the player to move. Variables: ``input``, ``block{i}.{norm,fc1,fc2}`` (MLP) or
  ``block{i}.{norm,conv1,conv2}`` (ring), ``norm``, ``policy``, ``value_hidden``, ``value``.
- ``net.evaluator()``: the function ``evaluate(obs, mask)`` for the search (``no_grad``, numpy
  in and out).
- ``load(path)``: the network of a checkpoint (a run directory, its newest iteration, or one
  ``iter-NNNNNN`` folder) and its metadata; sizes and hashes are checked first.
- ``agent("az:PATH[:SIMS][:solver=NODES]")``: the checkpoint as a ``sowing.search.NetworkAgent``,
  the agent ``az:`` of ``sowing arena``; ``sowing.agents.from_spec`` and the ``opponent`` of the
  Gymnasium environment reach it through here.

Importing this module needs PyTorch (``pip install torch``); ``import sowing`` does not.
"""

from __future__ import annotations

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

from . import _checkpoint, _safetensors
from ._sowing import Rules
from .search import NetworkAgent, input_length

__all__ = ["PolicyValueNet", "agent", "load", "state_dict_arrays"]

MASKED_LOGIT = -1.0e9
"""The logit of illegal actions, as in the Rust network: softmax gives them exactly zero."""

SOLVER_NODES = 200_000
"""The endgame solver's default budget per move of the agent ``az:`` (``SOLVER_NODES`` of
``sowing-agents``)."""


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


class PolicyValueNet(nn.Module):
    """The network of ``sowing train`` for boards of ``holes`` holes per row."""

    def __init__(
        self,
        holes: int,
        hidden: int = 64,
        blocks: int = 2,
        lookahead: bool = True,
        body: str = "mlp",
    ) -> None:
        super().__init__()
        if not 1 <= holes <= 16:
            raise ValueError(f"holes must be 1 to 16, got {holes}")
        if not 2 <= hidden <= 4096 or not 0 <= blocks <= 64:
            raise ValueError(f"hidden must be 2 to 4096 and blocks 0 to 64, got {hidden}, {blocks}")
        if body not in BODIES:
            raise ValueError(f"body must be one of {', '.join(BODIES)}, got {body!r}")
        self.holes = holes
        self.hidden = hidden
        self.blocks = blocks
        self.lookahead = lookahead
        self.body = body
        if body == "mlp":
            self.input = nn.Linear(input_length(holes, lookahead), hidden)
            for i in range(blocks):
                self.add_module(f"block{i}", Block(hidden))
            self.norm = nn.LayerNorm(hidden)
            self.policy = nn.Linear(hidden, holes)
            value_in = hidden
        else:
            self.input = _ring_conv(8 if lookahead else 5, hidden)
            for i in range(blocks):
                self.add_module(f"block{i}", RingBlock(hidden))
            self.norm = nn.GroupNorm(1, hidden)
            self.policy = nn.Conv1d(hidden, 1, 1)
            value_in = hidden * 2 * holes
        self.value_hidden = nn.Linear(value_in, hidden // 2)
        self.value = nn.Linear(hidden // 2, 1)

    @property
    def config(self) -> dict[str, Any]:
        """The shape, as ``meta.json``'s ``net`` holds it."""
        return {
            "holes": self.holes,
            "hidden": self.hidden,
            "blocks": self.blocks,
            "lookahead": self.lookahead,
            "body": self.body,
        }

    def _ring_input(self, x: torch.Tensor) -> torch.Tensor:
        """``[B, channels, 2n]``: per hole its seeds, 1 on the mover's row, the two stores, and
        on the mover's holes the legal flag and the look-ahead features (0 on the opponent's)."""
        n = self.holes
        zeros = x.new_zeros(x.shape[0], n)

        def own_row(t: torch.Tensor) -> torch.Tensor:
            return torch.cat([t, zeros], 1)

        channels = [
            x[:, : 2 * n],
            own_row(torch.ones_like(zeros)),
            x[:, 2 * n : 2 * n + 1].expand(-1, 2 * n),
            x[:, 2 * n + 1 : 2 * n + 2].expand(-1, 2 * n),
            own_row(x[:, -n:]),
        ]
        if self.lookahead:
            channels += [own_row(x[:, 2 * n + 2 + k * n : 2 * n + 2 + (k + 1) * n]) for k in range(3)]
        return torch.stack(channels, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = self.holes
        legal = x[:, -n:] > 0.5
        h = torch.relu(self.input(self._ring_input(x) if self.body == "ring" else x))
        for i in range(self.blocks):
            h = getattr(self, f"block{i}")(h)
        h = torch.relu(self.norm(h))
        if self.body == "ring":
            # The mover's holes come first on the ring.
            logits = self.policy(h).squeeze(1)[:, :n]
            h = h.flatten(1)
        else:
            logits = self.policy(h)
        logits = logits.masked_fill(~legal, MASKED_LOGIT)
        value = torch.tanh(self.value(torch.relu(self.value_hidden(h)))).squeeze(1)
        return logits, value

    def evaluator(self) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """``evaluate(obs, mask)`` for ``sowing.search``: this network in inference mode, on its
        device, numpy in and out. It reads the network as it is at each call, so a network
        trained on between searches is searched as it now is."""
        device = next(self.parameters()).device

        def evaluate(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            with torch.inference_mode():
                logits, value = self(torch.from_numpy(obs).to(device))
                return logits.cpu().numpy(), value.cpu().numpy()

        return evaluate

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


def state_dict_arrays(net: nn.Module) -> dict[str, np.ndarray]:
    """A network's weights as float32 numpy arrays by name, for ``safetensors`` and Ray's object
    store."""
    return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in net.state_dict().items()}


def load(path: str | os.PathLike[str]) -> tuple[PolicyValueNet, dict[str, Any]]:
    """The network of the checkpoint at ``path`` (a run directory or an ``iter-NNNNNN`` folder),
    in eval mode, and the checkpoint's ``meta.json``. A damaged checkpoint raises
    ``sowing.nn.CheckpointError`` (a ``ValueError``) naming the file."""
    folder = _checkpoint.resolve(path)
    meta = _checkpoint.read_meta(folder)
    net_config = meta["net"]
    try:
        net = PolicyValueNet(
            int(net_config["holes"]),
            int(net_config["hidden"]),
            int(net_config["blocks"]),
            bool(net_config.get("lookahead", False)),
            str(net_config.get("body", "mlp")),
        )
        arrays = _safetensors.load(folder / _checkpoint.SAFETENSORS)
        net.load_arrays(arrays)
    except (KeyError, TypeError, ValueError) as e:
        raise _checkpoint.CheckpointError(f"checkpoint {folder} does not load: {e}") from None
    net.eval()
    return net, meta


CheckpointError = _checkpoint.CheckpointError


def agent(spec: str, seed: int = 0) -> NetworkAgent:
    """The agent of spec ``az:PATH``, ``az:PATH:SIMS``, ``az:PATH[:SIMS]:solver=NODES``, as
    ``sowing arena`` makes it: the checkpoint's network searching ``SIMS`` simulations per move
    (default: those the run trained with) with the run's ``c_puct``, the most visited move without
    noise, and the endgame solver at ``NODES`` positions per move (default 200000, 0: none)."""
    if not spec.startswith("az:"):
        raise ValueError(f"invalid agent spec {spec!r}: an az spec starts with az:")
    rest = spec[3:]
    solver = SOLVER_NODES
    head, _, option = rest.rpartition(":")
    if option.startswith("solver="):
        try:
            solver = int(option[len("solver="):])
        except ValueError:
            solver = -1
        if not 0 <= solver <= 1_000_000_000:
            raise ValueError(
                f"invalid agent spec {spec!r}: solver= takes a number of positions, 0 to 1000000000"
            )
        rest = head
    simulations = None
    head, _, last = rest.rpartition(":")
    if head and last.isdigit():
        simulations = int(last)
        if not 1 <= simulations <= 1_000_000:
            raise ValueError(f"invalid agent spec {spec!r}: simulations must be 1 to 1000000")
        rest = head
    if not rest:
        raise ValueError(f"invalid agent spec {spec!r}: az needs a checkpoint path after the colon")
    net, meta = load(rest)
    args = meta["args"]
    simulations = simulations or int(args["simulations"])
    rules = Rules.from_json(json.dumps(meta["rules"]))
    name = f"az:{rest}:{simulations}" + (f":solver={solver}" if solver != SOLVER_NODES else "")
    return NetworkAgent(
        net.evaluator(),
        rules,
        simulations=simulations,
        c_puct=float(args["c_puct"]),
        lookahead=net.lookahead,
        solver_nodes=solver,
        seed=seed,
        name=name,
    )

