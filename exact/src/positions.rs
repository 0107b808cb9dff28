//! Exact test positions: positions of real games, each labelled with its perfect-play result and
//! the moves that keep it, stored as JSON lines so that later runs measure against the same set.
//!
//! The first line is a [`PositionsHeader`] (format, tool version, the rules, how the set was
//! made, how many positions were dropped unlabelled); every other line is one
//! [`ExactPosition`]. The rules are written once, in the header; a position line holds the
//! board, captures, player to move and ply, and is rebuilt into a [`State`] of the header's
//! rules when read, so a line that does not make a valid position is refused.
//!
//! A label is exact or absent: a position enters a set only when the result of every legal move
//! is known (a tablebase, or a solver proof), so that "the move keeps the result" can be decided
//! for any move an agent may choose. Margins (the seeds captured from here on, as a tablebase
//! values a position) are given where they are known for every move.

use crate::tablebase::Tablebase;
use crate::value::ResultSearch;
pub use crate::wdl::Wdl;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_env::{ByPlayer, Player, Rules, State, random_action};
use std::fmt;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// The `format` field of every header.
pub const FORMAT: &str = "sowing-positions";
/// The version of the layout of the lines; a file of another version is refused.
pub const FORMAT_VERSION: u32 = 1;

/// What labelled a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelSource {
    /// Every move's value read from a tablebase.
    Tablebase,
    /// A search to the end of the game (with tablebase values at its leaves, where given).
    Solver,
}

/// The first line of a positions file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionsHeader {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`FORMAT_VERSION`] for files this version reads.
    pub format_version: u32,
    /// The version of the program that wrote the file (e.g. `sowing 0.1.0`).
    pub tool: String,
    /// The rules of every position.
    pub rules: Rules,
    /// How the set was made: the command's settings (seed, agents, budgets), free-form.
    pub made_by: serde_json::Value,
    /// Positions in the file.
    pub count: u64,
    /// Positions drawn but left out because their labels could not be settled.
    pub dropped: u64,
}

/// One legal move of a labelled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveLabel {
    /// The action (the mover's hole counted from their left).
    pub action: usize,
    /// The result for the mover after this move and best play by both.
    pub result: Wdl,
    /// The mover's margin from this position on after this move (as a tablebase values the
    /// position: captures from here on, the final sweep included), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<i32>,
}

/// A position with exact labels.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactPosition {
    /// The position (of the header's rules).
    pub state: State,
    /// Its perfect-play result for the player to move: the best of `moves`.
    pub result: Wdl,
    /// Its perfect-play margin from here on, when every move's margin is known.
    pub margin: Option<i32>,
    /// Every legal move, lowest action first.
    pub moves: Vec<MoveLabel>,
    /// What settled the labels.
    pub source: LabelSource,
}

/// A position line as written: the state without its rules.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    board: Vec<u8>,
    captured: ByPlayer<u8>,
    to_move: Player,
    ply: u32,
    /// Seeds on the board, for readers that group by phase without rebuilding the state.
    seeds: u32,
    result: Wdl,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    margin: Option<i32>,
    moves: Vec<MoveLabel>,
    source: LabelSource,
}

impl ExactPosition {
    /// A labelled position, checked: `moves` must hold every legal move of `state` once, in
    /// order, and `result` and `margin` must be their best.
    pub fn new(
        state: State,
        moves: Vec<MoveLabel>,
        source: LabelSource,
    ) -> Result<ExactPosition, String> {
        let actions: Vec<usize> = moves.iter().map(|m| m.action).collect();
        let legal: Vec<usize> = state.legal_actions().collect();
        if actions != legal {
            return Err(format!(
                "the labelled moves {actions:?} are not the legal moves {legal:?}"
            ));
        }
        let result = moves
            .iter()
            .map(|m| m.result)
            .max()
            .ok_or("a position without legal moves has nothing to label")?;
        let margin = moves
            .iter()
            .map(|m| m.margin)
            .collect::<Option<Vec<i32>>>()
            .and_then(|margins| margins.into_iter().max());
        if let Some(m) = margin {
            let me = state.to_move();
            let so_far = i32::from(state.captured(me)) - i32::from(state.captured(!me));
            // A draw may also be endless play at a margin that is not even; wins and losses are
            // sure.
            let implied = Wdl::from_margin(m + so_far);
            if implied != result && implied != Wdl::Draw && result != Wdl::Draw {
                return Err(format!(
                    "the best margin {m} with {so_far} captured so far is a {implied}, but the \
                     best result is a {result}"
                ));
            }
        }
        Ok(ExactPosition {
            state,
            result,
            margin,
            moves,
            source,
        })
    }

    /// `count` endgames labelled by `table`: uniformly random games of its rules, each giving
    /// its first position the table holds (games that end before reaching one give none). A
    /// quick set of exact positions for tests and for trying a table; `sowing positions` makes
    /// the sets that span the game.
    pub fn first_in_random_games(
        table: &Tablebase,
        count: usize,
        rng: &mut ChaCha8Rng,
    ) -> Vec<ExactPosition> {
        let mut positions = Vec::with_capacity(count);
        while positions.len() < count {
            let mut s = State::initial(table.rules());
            while let Some(a) = random_action(&s, rng) {
                s = s.play_unchecked(a);
                if let Some(p) = ExactPosition::from_tablebase(&s, table) {
                    positions.push(p);
                    break;
                }
            }
        }
        positions
    }

    /// `state` labelled by a tablebase: every move's result and margin, or `None` when the table
    /// does not hold the position or the game is over.
    pub fn from_tablebase(state: &State, table: &Tablebase) -> Option<ExactPosition> {
        let moves = table
            .move_values(state)?
            .into_iter()
            .map(|(action, probe)| MoveLabel {
                action,
                result: probe.result(state),
                margin: Some(probe.value),
            })
            .collect();
        ExactPosition::new(*state, moves, LabelSource::Tablebase).ok()
    }

    /// `state` labelled exactly: from the tablebase of `search` when it holds the position
    /// (results and margins), else by `search` within `budget` positions (results; every
    /// move's settled, or `None`). `None` too for a game that is over.
    pub fn label(state: &State, search: &mut ResultSearch, budget: u64) -> Option<ExactPosition> {
        if state.is_over() {
            return None;
        }
        if let Some(table) = search.tablebase()
            && let Some(labelled) = ExactPosition::from_tablebase(state, table)
        {
            return Some(labelled);
        }
        let moves = search
            .move_results(state, budget)?
            .into_iter()
            .map(|(action, result)| MoveLabel {
                action,
                result,
                margin: None,
            })
            .collect();
        ExactPosition::new(*state, moves, LabelSource::Solver).ok()
    }

    /// Seeds on the board: the phase of the game.
    pub fn seeds(&self) -> u32 {
        self.state.board().sum(0, 2 * self.state.holes())
    }

    /// Bit `a` set for each move that keeps the position's result.
    pub fn keeps_result(&self) -> u16 {
        self.moves
            .iter()
            .filter(|m| m.result == self.result)
            .fold(0, |bits, m| bits | 1 << m.action)
    }

    /// Bit `a` set for each move that keeps the best margin, when margins are known.
    pub fn keeps_margin(&self) -> Option<u16> {
        let best = self.margin?;
        Some(
            self.moves
                .iter()
                .filter(|m| m.margin == Some(best))
                .fold(0, |bits, m| bits | 1 << m.action),
        )
    }

    fn line(&self) -> Line {
        Line {
            board: self.state.cells(),
            captured: self.state.captures(),
            to_move: self.state.to_move(),
            ply: self.state.ply(),
            seeds: self.seeds(),
            result: self.result,
            margin: self.margin,
            moves: self.moves.clone(),
            source: self.source,
        }
    }

    fn from_line(rules: &Rules, line: Line) -> Result<ExactPosition, String> {
        let state = State::new(rules, &line.board, line.captured, line.to_move, line.ply)
            .map_err(|e| e.to_string())?;
        let position = ExactPosition::new(state, line.moves, line.source)?;
        if position.seeds() != line.seeds {
            return Err(format!(
                "seeds is {} but the board holds {}",
                line.seeds,
                position.seeds()
            ));
        }
        if position.result != line.result || position.margin != line.margin {
            let margin = |m: Option<i32>| m.map_or("not known".to_string(), |m| format!("{m:+}"));
            return Err(format!(
                "the position's result {} (margin {}) is not the best of its moves' ({}, margin \
                 {})",
                line.result,
                margin(line.margin),
                position.result,
                margin(position.margin)
            ));
        }
        Ok(position)
    }
}

/// A set of exact positions with its header.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionSet {
    /// What the file says of itself.
    pub header: PositionsHeader,
    /// The positions, in the order written.
    pub positions: Vec<ExactPosition>,
}

/// A positions file that cannot be read or written; the message names the file and, for a bad
/// line, its number.
#[derive(Debug)]
pub struct PositionsError {
    /// The file.
    pub path: PathBuf,
    /// The line (1-based), when one line is at fault.
    pub line: Option<usize>,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for PositionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(
                f,
                "positions file {}, line {line}: {}",
                self.path.display(),
                self.reason
            ),
            None => write!(f, "positions file {}: {}", self.path.display(), self.reason),
        }
    }
}

impl std::error::Error for PositionsError {}

impl PositionSet {
    /// A set of `positions` of `rules`, with a header saying how it was made.
    pub fn new(
        rules: Rules,
        made_by: serde_json::Value,
        dropped: u64,
        positions: Vec<ExactPosition>,
    ) -> PositionSet {
        PositionSet {
            header: PositionsHeader {
                format: FORMAT.to_string(),
                format_version: FORMAT_VERSION,
                tool: format!("sowing {}", env!("CARGO_PKG_VERSION")),
                rules,
                made_by,
                count: positions.len() as u64,
                dropped,
            },
            positions,
        }
    }

    /// The rules of every position.
    pub fn rules(&self) -> &Rules {
        &self.header.rules
    }

    /// Write the set as JSON lines to `out`.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        serde_json::to_writer(&mut *out, &self.header)?;
        out.write_all(b"\n")?;
        for p in &self.positions {
            serde_json::to_writer(&mut *out, &p.line())?;
            out.write_all(b"\n")?;
        }
        out.flush()
    }

    /// Write the set to `path` through [`crate::output_file`]: a temporary file beside it, then
    /// renamed, so that a reader never sees half a file and no device is replaced.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), PositionsError> {
        let path = path.as_ref();
        crate::output_file::write_with(path, 1 << 16, |out| self.write_to(out)).map_err(|e| {
            PositionsError {
                path: path.to_path_buf(),
                line: None,
                reason: format!("cannot write it: {}", e.source),
            }
        })
    }

    /// Read a set from `input`; `path` only names it in errors.
    pub fn read_from(input: impl BufRead, path: &Path) -> Result<PositionSet, PositionsError> {
        let error = |line: Option<usize>, reason: String| PositionsError {
            path: path.to_path_buf(),
            line,
            reason,
        };
        let mut lines = input.lines().enumerate();
        let header = match lines.next() {
            None => return Err(error(None, "the file is empty (no header line)".into())),
            Some((_, line)) => line.map_err(|e| error(Some(1), e.to_string()))?,
        };
        let header: PositionsHeader = serde_json::from_str(&header).map_err(|e| {
            error(
                Some(1),
                format!(
                    "not a positions header: {}",
                    sowing_env::Error::cut_lines(&e.to_string())
                ),
            )
        })?;
        if header.format != FORMAT {
            return Err(error(
                Some(1),
                format!(
                    "format is {}, not {FORMAT:?}",
                    sowing_env::Error::quote(&header.format)
                ),
            ));
        }
        if header.format_version != FORMAT_VERSION {
            return Err(error(
                Some(1),
                format!(
                    "format version {} is not the one this program reads ({FORMAT_VERSION})",
                    header.format_version
                ),
            ));
        }
        let mut positions = Vec::new();
        for (at, line) in lines {
            let number = at + 1;
            let line = line.map_err(|e| error(Some(number), e.to_string()))?;
            if line.trim().is_empty() {
                continue;
            }
            let parsed: Line = serde_json::from_str(&line).map_err(|e| {
                let e = sowing_env::Error::cut_lines(&e.to_string());
                error(Some(number), format!("not a position: {e}"))
            })?;
            let position = ExactPosition::from_line(&header.rules, parsed)
                .map_err(|reason| error(Some(number), reason))?;
            positions.push(position);
        }
        if positions.len() as u64 != header.count {
            return Err(error(
                None,
                format!(
                    "the header counts {} positions but the file holds {}",
                    header.count,
                    positions.len()
                ),
            ));
        }
        Ok(PositionSet { header, positions })
    }

    /// Read a set from the file at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<PositionSet, PositionsError> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| PositionsError {
            path: path.to_path_buf(),
            line: None,
            reason: e.to_string(),
        })?;
        PositionSet::read_from(std::io::BufReader::new(file), path)
    }
}
