"""The Python examples of the README and docs/ run as shown.

Each page's ```python blocks run in order in one namespace, as a reader pasting them into one
session would (docs/python.md's agents use the `state` its first block made). A block is left
out only for a reason named below: it reads a file the reader makes first (a tablebase of
minutes), trains for a while, or plays a thousand series; its API is tested elsewhere
(test_tablebase.py, test_sb3.py, test_match.py). The demo's run the examples load is made for
them: a small untrained network, saved as `sowing train` saves one.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# What in a block leaves it out, and why.
LEFT_OUT = {
    '.tb"': "reads a tablebase that takes minutes to build",
    ".learn(": "trains Stable-Baselines3 for 10,000 steps per algorithm",
    "range(1000)": "plays a thousand series",
}

FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks(text):
    """(line, code, reason) for each ```python block of a page; reason None when it runs."""
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 2
        code = match.group(1)
        reason = next((why for key, why in LEFT_OUT.items() if key in code), None)
        found.append((line, code, reason))
    return found


def pages_with_examples():
    return [p for p in PAGES if blocks(p.read_text(encoding="utf-8"))]


def make_demo_run():
    """The run the docs load as the demo's: a small untrained network, saved as `sowing train`
    saves one, so the examples load, search and play it as they would the real one."""
    import torch

    from sowing import nn

    torch.manual_seed(0)
    nn.save(nn.PolicyValueNet(6, hidden=16, blocks=1), "runs/demo-en-dodoi-6", "en-dodoi-6")


@pytest.mark.parametrize("page", pages_with_examples(), ids=lambda p: p.name)
def test_every_example_of_the_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # whatever an example writes goes to a scratch folder
    text = page.read_text(encoding="utf-8")
    if "runs/demo-en-dodoi-6" in text:
        make_demo_run()
    namespace = {"__name__": "__docs__"}
    for line, code, reason in blocks(text):
        if reason is not None:
            continue
        where = f"{page.relative_to(ROOT)}:{line}"
        try:
            exec(compile(code, where, "exec"), namespace)
        except Exception as e:  # the place, then the error as the reader would see it
            pytest.fail(f"the example at {where} raised {type(e).__name__}: {e}")


def test_most_examples_run_and_each_left_out_says_why():
    found = [b for p in PAGES for b in blocks(p.read_text(encoding="utf-8"))]
    ran = [b for b in found if b[2] is None]
    # The README's two and docs/python.md's are the ones a newcomer pastes first.
    assert len(ran) >= 10, f"only {len(ran)} of {len(found)} examples run"
    readme = blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert readme and all(reason is None for _, _, reason in readme)
    # Each reason must still leave something out, or it is a rule for nothing.
    for why in LEFT_OUT.values():
        assert any(reason == why for _, _, reason in found), f"nothing is left out as: {why}"


def test_the_reader_finds_blocks_and_their_lines():
    text = "prose\n```python\nx = 1\n```\n\n```sh\nsowing bench\n```\n```python\nsowing.Tablebase(\"a.tb\")\n```\n"
    assert blocks(text) == [
        (3, "x = 1\n", None),
        (10, 'sowing.Tablebase("a.tb")\n', LEFT_OUT['.tb"']),
    ]
