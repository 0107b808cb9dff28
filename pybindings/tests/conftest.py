"""Shared test set-up: nothing a test writes may outlive the test run."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def sb3_logdir(tmp_path_factory):
    # Stable-Baselines3 makes a log folder for every model it builds, in the system's temporary
    # folder (SB3-<date>) unless SB3_LOGDIR names one: each test run left three behind in /tmp.
    # Session-scoped, so that module fixtures which build models see it too.
    folder = tmp_path_factory.mktemp("sb3")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(folder))
        yield folder
