"""AlphaZero-style training with self-play spread over a Ray cluster (``pip install
'sowing[ray]'``): the algorithm of ``sowing train``, with the self-play of each iteration dealt
to Ray actors.

- Self-play actors (``SelfPlayActor``, one CPU each) run the Rust batched search
  (``sowing.search.self_play``) with a PyTorch copy of the network, the newest weights handed to
  them through Ray's object store at every iteration; each plays its own range of game numbers,
  so a game is fixed by the seed, the iteration and its number, whichever actor plays it.
- One learner (``Learner``, a Ray actor; ``--learner-gpus`` puts it on a GPU) keeps the replay
  buffer, which the actors' samples reach straight from the object store, trains the network
  with AdamW as ``sowing train`` does, and publishes the new weights.
- Every ``--eval-every`` iterations the network is rated as ``sowing train`` rates it: matches
  against the baselines and an Elo against their round robin (``sowing.search.rate``).
- The settings are ``sowing train``'s (its flags, defaults, checks and ``--config FILE``, read
  through the binding), and every iteration is checkpointed by its Rust writer
  (``iter-NNNNNN/meta.json`` and ``weights.safetensors``, with ``trainer.pt`` for resuming in
  the newest; retention by ``--keep-last`` and ``--keep-every``): ``az:RUN`` plays it from
  Python and in ``sowing arena``, ``--resume RUN`` goes on.

``python -m sowing.ray.train --variant en-dodoi-6 --actors 2 --iterations 10`` runs it on a
local Ray cluster started for the run; ``--address auto`` joins a running one (``ray start
--head`` on one machine, ``ray start --address HEAD:6379`` on the others). See
docs/python-search.md and docs/scaling.md.
"""

try:
    import ray as _ray  # noqa: F401
except ImportError:
    raise ImportError(
        "sowing.ray needs Ray, which is not installed: pip install 'sowing[ray]' (or pip install ray)"
    ) from None
