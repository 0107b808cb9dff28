"""The game API: Rules, State, variants, and the errors they raise."""

import copy
import json
import pickle

import numpy as np
import pytest

import sowing
from sowing import GameOverError, IllegalActionError, Rules, State


def test_version():
    assert sowing.__version__.count(".") == 2


def test_variants_and_presets():
    names = sowing.variants()
    assert "en-dodoi-8" in names and "sadeqa-iii" in names and "cross-endodoi" in names
    for name in names:
        rules = Rules(name)
        assert rules == Rules.preset(name)
        assert sowing.variant_source(name)
        assert rules.observation_len == 2 * rules.holes + 2
    assert sowing.variant_source("nope") is None


def test_unknown_variant_lists_valid_names():
    with pytest.raises(ValueError) as e:
        Rules("en-dodoi-99")
    for name in sowing.variants():
        assert name in str(e.value)
    with pytest.raises(ValueError, match="valid variants"):
        State.initial("oware")


def test_rules_from_dict_json_toml_agree():
    a = Rules(holes=8, seeds=4, trigger="leave")
    b = Rules.from_dict({"holes": 8, "seeds": 4, "trigger": "leave"})
    c = Rules.from_json('{"holes": 8, "seeds": 4, "trigger": "leave"}')
    d = Rules.from_toml('holes = 8\nseeds = 4\ntrigger = "leave"\n')
    assert a == b == c == d == Rules("sadeqa-91")
    assert Rules.from_dict(a.to_dict()) == a
    assert Rules.from_json(a.to_json()) == a
    assert Rules.from_toml(a.to_toml()) == a
    assert hash(a) == hash(Rules("sadeqa-91"))
    assert a.replace(max_plies=50).max_plies == 50
    assert a.total_seeds == 64 and a.summary == "2x8, 4 seeds, leave, ccw"


def test_rules_files_are_read_as_the_command_reads_them(tmp_path):
    a = Rules(holes=8, seeds=4, trigger="leave")
    (tmp_path / "r.TOML").write_text(a.to_toml())  # TOML by its ending, in any case
    (tmp_path / "r.json").write_text(a.to_json())
    assert Rules.from_file(tmp_path / "r.TOML") == Rules.from_file(str(tmp_path / "r.json")) == a
    with pytest.raises(FileNotFoundError, match="no-such.json"):
        Rules.from_file(tmp_path / "no-such.json")
    (tmp_path / "bad.toml").write_text("holes = ")
    with pytest.raises(ValueError, match="bad.toml"):
        Rules.from_file(tmp_path / "bad.toml")
    with pytest.raises(OSError, match="cannot read rules file"):
        Rules.from_file(tmp_path)  # a directory


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"holes": 0, "seeds": 4}, "holes"),
        ({"holes": 17, "seeds": 4}, "holes"),
        ({"holes": 8, "seeds": 0}, "seeds"),
        ({"holes": 8, "seeds": 16}, "seeds"),
        ({"holes": 8, "seeds": 4, "max_laps": 0}, "max_laps"),
        ({"holes": 8, "seeds": 4, "max_plies": 0}, "max_plies"),
        ({"holes": 8, "seeds": 4, "trigger": "grab"}, "trigger"),
        ({"holes": 8, "seeds": 4, "direction": "cw"}, "direction"),
        ({"holes": -1, "seeds": 4}, "holes"),
        ({"holes": 8}, "seeds"),
        ({"holes": 8, "seeds": 4, "colour": "red"}, "colour"),
    ],
)
def test_invalid_rules_name_the_field(fields, field):
    with pytest.raises(ValueError, match=field):
        Rules.from_dict(fields)


def test_rules_wrong_types_and_malformed_text():
    with pytest.raises(ValueError, match="holes"):
        Rules.from_dict({"holes": "8", "seeds": 4})
    with pytest.raises(ValueError, match="holes"):
        Rules.from_dict({"holes": True, "seeds": 4})
    with pytest.raises(ValueError, match="holes must be an integer, got float"):
        Rules.from_dict({"holes": 8.0, "seeds": 4})
    assert Rules(holes=np.int64(8), seeds=np.uint8(4)) == Rules("en-dodoi-8")
    with pytest.raises(ValueError, match=r"seeds = 1099511627776; allowed: 1 to 15 seeds"):
        Rules(holes=8, seeds=2**40)
    with pytest.raises(ValueError, match=r"max_plies = -5; allowed: 1 to"):
        Rules(holes=8, seeds=4, max_plies=-5)
    with pytest.raises(ValueError, match=r"holes = 3\d+; allowed: 1 to 16"):
        Rules(holes=3 * 10**50, seeds=4)
    with pytest.raises(ValueError, match="skip_origin"):
        Rules.from_dict({"holes": 8, "seeds": 4, "skip_origin": "yes"})
    with pytest.raises(ValueError, match="invalid JSON"):
        Rules.from_json("{holes: 8")
    with pytest.raises(ValueError, match="invalid TOML"):
        Rules.from_toml("holes = ")
    with pytest.raises(ValueError, match="not both"):
        Rules("en-dodoi-8", holes=6)
    with pytest.raises(ValueError):
        Rules()


def test_initial_state():
    s = State.initial("en-dodoi-8")
    assert s.board == [4] * 16
    assert s.captured == (0, 0) and s.to_move == sowing.SOUTH and s.ply == 0
    assert s.legal_moves() == list(range(8))
    mask = s.legal_mask()
    assert mask.dtype == np.bool_ and mask.shape == (8,) and mask.all()
    assert not s.is_terminal() and not s.is_truncated() and s.winner() is None
    assert s.outcome() == "ongoing" and s.returns() == (0.0, 0.0)
    assert "South to move" in s.render() and str(s) == s.render()


def test_play_matches_the_engine_example():
    # lib.rs's example: en-dodoi-8, South plays 7 and captures 7 seeds.
    s = State.initial("en-dodoi-8")
    t = s.play(7)
    assert t.captured == (7, 0) and t.to_move == sowing.NORTH and t.ply == 1
    assert sum(t.board) + sum(t.captured) == 64
    assert s.ply == 0, "play leaves the state it was called on as it was"
    assert t == s.play(7) and hash(t) == hash(s.play(7)) and t != s
    assert len({s, t, s.play(7)}) == 2


def test_observation_layout_and_perspective():
    s = State.initial("en-dodoi-6").play(2).play(3)
    total = s.rules.total_seeds
    obs = s.observation()
    assert obs.dtype == np.float32 and obs.shape == (14,)
    board = np.array(s.board)
    # South to move: own row, then North's row in sowing order, then captures.
    assert s.to_move == 0
    np.testing.assert_allclose(obs[:12], board / total)
    np.testing.assert_allclose(obs[12:], np.array(s.captured) / total)
    np.testing.assert_array_equal(s.observation(0), obs)
    north = s.observation(1)
    np.testing.assert_allclose(north[:12], np.concatenate([board[6:], board[:6]]) / total)
    np.testing.assert_allclose(north[12:], np.array(s.captured[::-1]) / total)
    # After one more move North is to move, and its own observation is the engine's.
    u = s.play(s.legal_moves()[0])
    np.testing.assert_array_equal(u.observation(), u.observation(1))
    with pytest.raises(ValueError, match="players are 0"):
        s.observation(2)


def test_json_pickle_copy_round_trip():
    s = State.initial("cross-endodoi").play(0).play(1)
    assert State.from_json(s.to_json()) == s
    assert pickle.loads(pickle.dumps(s)) == s
    assert copy.deepcopy(s) == s and copy.copy(s) is s
    assert json.loads(s.to_json())["ply"] == 2
    r = Rules("sadeqa-iii")
    assert pickle.loads(pickle.dumps(r)) == r


def test_state_from_parts_is_checked():
    rules = Rules("en-dodoi-6")
    s = State(rules, [4] * 12)
    assert s == State.initial(rules)
    with pytest.raises(ValueError, match="board"):
        State(rules, [4] * 11)
    with pytest.raises(ValueError, match="seeds"):
        State(rules, [5] * 12)
    with pytest.raises(ValueError, match="players are 0"):
        State(rules, [4] * 12, to_move=3)


def test_illegal_and_out_of_range_actions():
    s = State.initial("en-dodoi-6")
    for bad in (-1, 6, 100, 2**40):
        with pytest.raises(IllegalActionError, match="out of range"):
            s.play(bad)
    # After 0 and 0, South's hole 3 is empty.
    t = s.play(0).play(0)
    assert t.board[3] == 0 and t.to_move == 0
    with pytest.raises(IllegalActionError) as e:
        t.play(3)
    assert "its hole is empty" in str(e.value)
    assert str(t.legal_moves()) in str(e.value), "the message lists the legal actions"
    assert isinstance(e.value, ValueError)
    assert not t.is_legal(3) and not t.is_legal(-3) and t.is_legal(0)


def random_game(variant, seed):
    rng = np.random.default_rng(seed)
    s = State.initial(variant)
    while not s.is_over():
        s = s.play(int(rng.choice(s.legal_moves())))
    return s


@pytest.mark.parametrize("variant", sowing.variants())
def test_random_games_end_consistently(variant):
    for seed in range(5):
        s = random_game(variant, seed)
        assert s.legal_moves() == [] and not s.legal_mask().any()
        assert sum(s.captured) + sum(s.board) == s.rules.total_seeds
        if s.is_terminal():
            south, north = s.captured
            expected = "south" if south > north else "north" if north > south else "draw"
            assert s.outcome() == expected
        with pytest.raises(GameOverError):
            s.play(0)
        assert random_game(variant, seed) == s, "same seed, same game"


def test_truncation():
    rules = Rules("en-dodoi-8").replace(max_plies=3)
    s = State.initial(rules)
    for _ in range(3):
        s = s.play(s.legal_moves()[0])
    assert s.is_truncated() and not s.is_terminal() and s.outcome() == "truncated"
    assert s.winner() is None and s.returns() == (0.0, 0.0)
    with pytest.raises(GameOverError, match="truncated"):
        s.play(2)


def test_wrong_argument_types():
    with pytest.raises(TypeError, match="preset name"):
        State.initial(8)
    with pytest.raises(TypeError):
        State.initial("en-dodoi-8").play("3")
