//! `sowing.State`: one immutable position, a thin wrapper over `sowing_env::State`. `board` is
//! in the absolute numbering of RULES.md (South's holes `0..n`, North's `n..2n`); actions are
//! relative to the mover (`0..n`, from the mover's left).

use crate::args::{self, Int, repr};
use crate::error::{IllegalActionError, to_py};
use crate::rules::{PyRules, rules_arg, type_name};
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use sowing_env::{ByPlayer, Error, MAX_HOLES, MAX_TOTAL_SEEDS, Outcome, Player, State};

/// A position of a game, with its rules and its legal moves. Immutable: `play` returns the next
/// state and leaves this one as it was.
#[pyclass(name = "State", module = "sowing", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PyState(pub State);

/// A player given as 0 (South) or 1 (North).
pub fn player_arg(index: &Bound<'_, PyAny>) -> PyResult<Player> {
    match Int::of(index) {
        Int::Fits(p) if (0..=1).contains(&p) => Ok(Player::from_index(p as usize).expect("0 or 1")),
        Int::Fits(_) | Int::Huge => Err(PyValueError::new_err(format!(
            "player {} does not exist; players are 0 (South) and 1 (North)",
            repr(index)
        ))),
        Int::Not => Err(PyTypeError::new_err(format!(
            "a player is 0 (South) or 1 (North), got {} {}",
            type_name(index),
            repr(index)
        ))),
    }
}

/// An action given as any Python integer (numpy's included): the engine's action, or the
/// engine's `IllegalActionError` for one out of range, and a `TypeError` for what is not an
/// integer (a float is refused even when whole: `2.9` is no action).
fn action_value(state: &State, action: &Bound<'_, PyAny>) -> PyResult<usize> {
    let holes = state.holes();
    match Int::of(action) {
        Int::Fits(v) => usize::try_from(v)
            .ok()
            .filter(|&a| a < holes)
            .ok_or_else(|| to_py(Error::ActionOutOfRange { action: v, holes })),
        Int::Huge => Err(IllegalActionError::new_err(format!(
            "action {} is out of range; actions are 0 to {} (the mover's holes, from their left)",
            repr(action),
            holes - 1
        ))),
        Int::Not => Err(PyTypeError::new_err(format!(
            "an action is an integer 0 to {}, got {} {}",
            holes - 1,
            type_name(action),
            repr(action)
        ))),
    }
}

/// An action from a batch, checked for range by the engine.
pub fn action_arg(state: &State, action: i64) -> Result<usize, Error> {
    usize::try_from(action)
        .ok()
        .filter(|&a| a < state.holes())
        .ok_or(Error::ActionOutOfRange {
            action: action.into(),
            holes: state.holes(),
        })
}

/// The observation of `state` from `player`'s side: the engine's layout (see
/// `sowing_env::observation`) with `player` in the place of the mover.
pub fn observation_for(state: &State, player: Player, out: &mut [f32]) {
    if player == state.to_move() {
        state.write_observation(out);
        return;
    }
    let n = state.holes();
    let ring = 2 * n;
    let scale = 1.0 / state.rules().total_seeds() as f32;
    let offset = player.index() * n;
    for (i, slot) in out[..ring].iter_mut().enumerate() {
        *slot = state.seeds_in((i + offset) % ring) as f32 * scale;
    }
    out[ring] = state.captured(player) as f32 * scale;
    out[ring + 1] = state.captured(!player) as f32 * scale;
}

#[pymethods]
impl PyState {
    /// A position from its parts, checked: `board` lists the `2n` holes in the numbering of
    /// RULES.md, and board plus captured must hold all the seeds of the rules.
    #[new]
    #[pyo3(signature = (variant, board, captured = None, to_move = None, ply = None))]
    fn new(
        variant: &Bound<'_, PyAny>,
        board: &Bound<'_, PyAny>,
        captured: Option<&Bound<'_, PyAny>>,
        to_move: Option<&Bound<'_, PyAny>>,
        ply: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyState> {
        let rules = rules_arg(variant)?;
        let seeds = |what: &str, n: &Bound<'_, PyAny>| {
            let allowed = format!("0 to {MAX_TOTAL_SEEDS} seeds");
            args::int_in(n, what, 0, MAX_TOTAL_SEEDS as i128, &allowed).map(|n| n as u8)
        };
        // Read one item too many at most: the engine says what a board of another length lacks.
        let holes = 2 * rules.holes();
        let cells = sequence(board, "board", "seed counts", holes + 1)?;
        let board = cells
            .iter()
            .enumerate()
            .map(|(i, n)| seeds(&format!("hole {i}"), n))
            .collect::<PyResult<Vec<u8>>>()?;
        let captured = match captured {
            Some(c) => {
                let pair = sequence(c, "captured", "(South's, North's)", 3)?;
                let [south, north] = pair.as_slice() else {
                    return Err(PyValueError::new_err(format!(
                        "captured must be a pair (South's, North's), got {} values",
                        pair.len()
                    )));
                };
                ByPlayer::new(
                    seeds("South's captures", south)?,
                    seeds("North's captures", north)?,
                )
            }
            None => ByPlayer::new(0, 0),
        };
        let to_move = match to_move {
            Some(p) => player_arg(p)?,
            None => Player::South,
        };
        let ply = match ply {
            Some(p) => args::int_in(p, "ply", 0, u32::MAX.into(), "0 to 2**32 - 1")? as u32,
            None => 0,
        };
        State::new(&rules, &board, captured, to_move, ply)
            .map(PyState)
            .map_err(to_py)
    }

    /// The start of a game of `variant` (a preset name or a `Rules`): South to move.
    #[staticmethod]
    fn initial(variant: &Bound<'_, PyAny>) -> PyResult<PyState> {
        Ok(PyState(State::initial(&rules_arg(variant)?)))
    }

    /// A state from `to_json`'s form, checked as the constructor checks.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<PyState> {
        State::from_json(text).map(PyState).map_err(to_py)
    }

    /// The state as JSON: rules, board, captured, player to move, ply.
    fn to_json(&self) -> String {
        self.0.to_json()
    }

    /// The rules this game is played by.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules(*self.0.rules())
    }
    /// Seeds in each of the `2n` holes, South's row first, numbered as in RULES.md.
    #[getter]
    fn board(&self) -> Vec<u32> {
        self.0.cells().into_iter().map(u32::from).collect()
    }
    /// Seeds captured by `(South, North)`.
    #[getter]
    fn captured(&self) -> (u8, u8) {
        (
            self.0.captured(Player::South),
            self.0.captured(Player::North),
        )
    }
    /// The player to move: 0 (South) or 1 (North). After the end, the one who would move next.
    #[getter]
    fn to_move(&self) -> usize {
        self.0.to_move().index()
    }
    /// Moves played since the start.
    #[getter]
    fn ply(&self) -> u32 {
        self.0.ply()
    }
    /// Holes per row: actions are `0..holes`.
    #[getter]
    fn holes(&self) -> usize {
        self.0.holes()
    }

    /// The legal actions, lowest first; empty exactly when the game is over.
    fn legal_moves(&self) -> Vec<usize> {
        self.0.legal_actions().collect()
    }

    /// The legal actions as a bool array of length `holes`.
    fn legal_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut mask = [false; MAX_HOLES];
        let n = self.0.holes();
        self.0.write_mask(&mut mask[..n]);
        PyArray1::from_slice(py, &mask[..n])
    }

    /// Whether `action` is legal now (an integer out of range is not; what is not an integer
    /// raises `TypeError`).
    fn is_legal(&self, action: &Bound<'_, PyAny>) -> PyResult<bool> {
        match action_value(&self.0, action) {
            Ok(a) => Ok(self.0.is_legal(a)),
            Err(e) if e.is_instance_of::<PyTypeError>(action.py()) => Err(e),
            Err(_) => Ok(false),
        }
    }

    /// Play `action` for the player to move and return the next state. An out-of-range or
    /// illegal action raises `IllegalActionError` (listing the legal actions), a move after the
    /// end `GameOverError`; both are `ValueError`s.
    fn play(&self, action: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let a = action_value(&self.0, action)?;
        self.0.play(a).map(PyState).map_err(to_py)
    }

    /// Whether the game has ended by the rules (Gymnasium's `terminated`).
    fn is_terminal(&self) -> bool {
        self.0.is_terminal()
    }
    /// Whether the game was cut off at `max_plies` (Gymnasium's `truncated`).
    fn is_truncated(&self) -> bool {
        self.0.is_truncated()
    }
    /// Whether no more moves can be played: terminal or truncated.
    fn is_over(&self) -> bool {
        self.0.is_over()
    }
    /// The winner of an ended game (0 South, 1 North); `None` while it goes on, on a draw and
    /// on a truncation.
    fn winner(&self) -> Option<usize> {
        self.0.winner().map(Player::index)
    }
    /// How the game stands: `"ongoing"`, `"south"` or `"north"` (the winner), `"draw"`,
    /// `"truncated"`.
    fn outcome(&self) -> &'static str {
        match self.0.outcome() {
            Outcome::Ongoing => "ongoing",
            Outcome::Won(Player::South) => "south",
            Outcome::Won(Player::North) => "north",
            Outcome::Draw => "draw",
            Outcome::Truncated => "truncated",
        }
    }
    /// The result for `(South, North)`: +1 win, -1 loss, 0 draw, truncation or ongoing.
    fn returns(&self) -> (f32, f32) {
        let o = self.0.outcome();
        (o.reward(Player::South), o.reward(Player::North))
    }

    /// The observation as float32, `2n + 2` values in `[0, 1]`: own row, the opponent's row in
    /// sowing order, own and opponent's captures, all divided by the seeds in play. Relative to
    /// `player` (default: the player to move).
    #[pyo3(signature = (player = None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        player: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let player = match player {
            Some(p) => player_arg(p)?,
            None => self.0.to_move(),
        };
        let mut buf = [0f32; 2 * MAX_HOLES + 2];
        let out = &mut buf[..self.0.rules().observation_len()];
        observation_for(&self.0, player, out);
        Ok(PyArray1::from_slice(py, out))
    }

    /// The board drawn for people: North's row on top, read right to left.
    fn render(&self) -> String {
        self.0.render()
    }

    fn __str__(&self) -> String {
        self.0.render()
    }

    fn __repr__(&self) -> String {
        let (s, n) = self.captured();
        format!(
            "State(board={:?}, captured=({s}, {n}), to_move={}, ply={}, outcome={:?})",
            self.0.cells(),
            self.to_move(),
            self.0.ply(),
            self.outcome()
        )
    }

    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: &Bound<'py, PyAny>) -> PyRef<'py, Self> {
        slf
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (slf.get().0.to_json(),)))
    }
}

/// The first `most` items of `value`, an iterable (not a string), for argument `name` that
/// should hold `what`.
fn sequence<'py>(
    value: &Bound<'py, PyAny>,
    name: &str,
    what: &str,
    most: usize,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let refused = || {
        PyTypeError::new_err(format!(
            "{name} must be a sequence of {what}, got {}",
            type_name(value)
        ))
    };
    if value.is_instance_of::<pyo3::types::PyString>() {
        return Err(refused());
    }
    value
        .try_iter()
        .map_err(|_| refused())?
        .take(most)
        .collect::<PyResult<Vec<_>>>()
}
