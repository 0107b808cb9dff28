//! Endgame tablebases: the exact value of every position with at most `K` seeds on the board,
//! built by retrograde analysis and probed with a dozen look-ups in a small table and one read.
//!
//! # What a value is
//!
//! A position is the board and the player to move; seeds captured earlier and the ply are not
//! part of it. Its **value** is the perfect-play margin for the mover: the seeds the mover
//! captures from here to the end of the game (the final sweep included) minus the seeds the
//! opponent captures. Add the captured totals of a [`State`] and the sign decides the game:
//! `value + captured(mover) - captured(opponent)` is above 0 for a forced win, 0 for a draw,
//! below 0 for a loss ([`Probe::final_margin`]).
//!
//! **Endless play.** Relay sowing can go round for ever: moves that capture nothing keep the
//! seeds on the board, and both players may prefer repeating positions to any capture. Such play
//! counts as a future margin of 0: no more seeds change hands, as when a game is truncated, where
//! the seeds left on the board go to nobody. [`Probe::endless`] tells when perfect play from a
//! position never ends (its value is then 0): neither player can force an end to the game that
//! leaves them at least even.
//!
//! **Results.** A truncated game has no winner whatever the captures, so where endless play is
//! within reach the margin alone does not always decide the result: a player ahead by 2 may be
//! able to force an end worth 0 more (a win) while the opponent could also hold the game in a
//! cycle (a draw). A table therefore keeps, beside the value, two bounds for the few positions
//! where they differ from it: [`Probe::low`], the margin the mover forces when endless play counts
//! as the worst for them, and [`Probe::high`], when it counts as the best. With the captures so far
//! `d`, the mover wins exactly when `low + d > 0` and loses exactly when `high + d < 0`
//! ([`Probe::result`]); elsewhere the game is drawn or truncated.
//!
//! **The ply cap** (`max_plies`) is ignored: a value is the same at every ply. A [`State`] that is
//! already over (ended or truncated) is worth 0, since no more seeds change hands; callers that
//! stop at the cap (a search that counts a truncated game as a draw) handle it themselves.
//!
//! # Which rules a table serves
//!
//! Positions are stored with the mover's row first (the board turned by `mover * n` holes: as
//! `RULES.md` says, rotating the board by `n` holes swaps the players), so one entry serves both
//! players. The rules fields that shape the game tree must match: `holes`, `trigger`,
//! `direction`, `skip_origin` and `max_laps` (which decides which moves are endless, so illegal).
//! Seeds per hole and `max_plies` do not matter: a table built from `en-dodoi-6` serves any 2x6
//! take, counter-clockwise game. A file stores its whole rule set all the same.
//!
//! # Building and probing
//!
//! ```
//! use sowing_exact::tablebase::{BuildOptions, Tablebase};
//! use sowing_env::{ByPlayer, Player, Rules, State};
//!
//! let rules = Rules::new(sowing_env::RulesSpec { holes: 3, seeds: 2, ..Rules::preset("en-dodoi-6")?.spec() })?;
//! let table = Tablebase::build(&rules, 6, &BuildOptions::default())?;
//! // South's row 0..3, then North's 3..6; 6 seeds captured already, 3 by each player.
//! let state = State::new(&rules, &[1, 0, 2, 0, 1, 2], ByPlayer::new(3, 3), Player::South, 0)?;
//! let probe = table.probe(&state).expect("6 seeds on the board");
//! assert_eq!(probe.value, table.value(&state).unwrap());
//! let best = table.move_values(&state).unwrap().iter().map(|(_, p)| p.value).max();
//! assert_eq!(best, Some(probe.value));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `docs/tablebase.md` describes the algorithm (retrograde analysis layer by layer, with a
//! threshold sweep for the cycles within a layer), the file format and the measured figures.

mod build;
mod error;
mod file;
mod index;
mod memory;
mod part;
mod values;

pub use build::{BuildOptions, BuildProgress, Stage};
pub use error::TablebaseError;
pub use file::{MAGIC, MAX_SEEDS, VERSION};
pub use index::PositionIndex;
pub use memory::build_bytes;
pub use part::{LayerPart, PART_MAGIC, PART_VERSION};
pub use values::Load;

use crate::wdl::Wdl;
use serde::Serialize;
use sowing_env::{Board, Player, Rules, State};
use std::path::{Path, PathBuf};
use values::Values;

/// The stored byte of a position whose bounds differ (endless play is within reach and matters
/// to someone): its value and bounds are in the table's side list of [`Cyclic`] entries.
const CYCLIC: u8 = 0x80;
/// A lower bound of minus infinity, in a [`Cyclic`] entry: the mover cannot force an end.
const NEG_INF: i8 = i8::MIN;
/// An upper bound of plus infinity: the opponent cannot force an end.
const POS_INF: i8 = i8::MAX;

/// A position whose [`Probe::low`] and [`Probe::high`] differ, by its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cyclic {
    pub index: u64,
    /// Its margin value.
    pub value: i8,
    /// Whether perfect play (for the margin) never ends.
    pub endless: bool,
    /// `L`, or [`NEG_INF`].
    pub low: i8,
    /// `H`, or [`POS_INF`].
    pub high: i8,
}

/// What the table holds of position `at`, from its stored byte and the side list.
#[inline(always)]
fn lookup(values: &[u8], cyclic: &[Cyclic], at: u64) -> Probe {
    let byte = values[at as usize];
    if byte != CYCLIC {
        let v = i32::from(byte as i8);
        return Probe {
            value: v,
            endless: false,
            low: v,
            high: v,
        };
    }
    let entry = cyclic[cyclic
        .binary_search_by_key(&at, |c| c.index)
        .expect("every cyclic byte has its entry (checked when built or read)")];
    Probe {
        value: i32::from(entry.value),
        endless: entry.endless,
        low: widen(entry.low),
        high: widen(entry.high),
    }
}

/// The bounds `(L, H)` of position `at`; infinities are `i32::MIN` and `i32::MAX`.
#[inline(always)]
fn bounds(values: &[u8], cyclic: &[Cyclic], at: u64) -> (i32, i32) {
    let p = lookup(values, cyclic, at);
    (p.low, p.high)
}

/// The margin value of position `at`.
#[inline(always)]
fn value_of(values: &[u8], cyclic: &[Cyclic], at: u64) -> i32 {
    lookup(values, cyclic, at).value
}

/// A stored bound as an `i32`, infinities to `i32::MIN` / `i32::MAX`.
#[inline(always)]
fn widen(bound: i8) -> i32 {
    match bound {
        NEG_INF => i32::MIN,
        POS_INF => i32::MAX,
        b => i32::from(b),
    }
}

/// What a table knows of a position, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Probe {
    /// The perfect-play margin: seeds the mover captures from here on minus the opponent's,
    /// endless play worth 0.
    pub value: i32,
    /// Perfect play never ends: no capture, ever (the value is then 0).
    pub endless: bool,
    /// The margin the mover forces when endless play counts as the worst for them (they must
    /// force an end); [`Probe::UNBOUNDED_LOW`] when they cannot force one. Equals `value` unless
    /// endless play is within reach.
    pub low: i32,
    /// The margin the mover forces when endless play counts as the best for them;
    /// [`Probe::UNBOUNDED_HIGH`] when the opponent cannot force an end.
    pub high: i32,
}

impl Probe {
    /// [`Probe::low`] of a mover who cannot force the game to end.
    pub const UNBOUNDED_LOW: i32 = i32::MIN;
    /// [`Probe::high`] of a mover whose opponent cannot force the game to end.
    pub const UNBOUNDED_HIGH: i32 = i32::MAX;

    /// What a move worth `gain` to the mover (captures and sweep) is worth, when it leads to a
    /// position `after` (probed for the opponent).
    #[inline(always)]
    fn of_move(gain: i32, after: Probe) -> Probe {
        let minus = |bound: i32| match bound {
            i32::MIN => i32::MAX,
            i32::MAX => i32::MIN,
            b => gain - b,
        };
        Probe {
            value: gain - after.value,
            endless: after.endless,
            low: minus(after.high),
            high: minus(after.low),
        }
    }

    /// The captured seeds of the mover minus the opponent's at the end of perfect play from
    /// `state` (whose position this is): for a game that ends, above 0 the mover wins, 0 a draw,
    /// below 0 a loss. For endless play it is the difference the game stays at (it is then
    /// truncated, not won); [`Probe::result`] tells the result in every case.
    pub fn final_margin(&self, state: &State) -> i32 {
        self.value + so_far(state)
    }

    /// The perfect-play result for the mover of `state` (whose position, or whose move, this
    /// is), counting endless play as a draw, as a truncated game has no winner.
    pub fn result(&self, state: &State) -> Wdl {
        self.result_with(so_far(state))
    }

    /// [`Probe::result`] for a mover `so_far` seeds ahead in captures (behind if negative).
    pub fn result_with(&self, so_far: i32) -> Wdl {
        if self.low != Probe::UNBOUNDED_LOW && self.low + so_far > 0 {
            Wdl::Win
        } else if self.high != Probe::UNBOUNDED_HIGH && self.high + so_far < 0 {
            Wdl::Loss
        } else {
            Wdl::Draw
        }
    }
}

/// Seeds the mover of `state` has captured more than the opponent.
fn so_far(state: &State) -> i32 {
    let me = state.to_move();
    i32::from(state.captured(me)) - i32::from(state.captured(!me))
}

/// How the positions of one layer (seeds on the board) came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LayerStats {
    /// Seeds on the board.
    pub seeds: u32,
    /// Positions with that many seeds.
    pub positions: u64,
    /// Positions of positive value: the mover ends ahead on the seeds left.
    pub won: u64,
    /// Positions of value 0 whose perfect play ends.
    pub drawn: u64,
    /// Positions of negative value.
    pub lost: u64,
    /// Positions whose perfect play never ends (value 0).
    pub endless: u64,
    /// Positions whose bounds differ from their value (endless play within reach).
    pub cyclic: u64,
}

/// Where a resumable build ([`Tablebase::build_resumable`]) saves the layers it has solved, and
/// how often.
#[derive(Clone, Copy, Debug)]
pub struct Checkpoint<'a> {
    /// The checkpoint file.
    pub path: &'a Path,
    /// Build time between saves (zero: after every layer). A save writes the layers so far,
    /// about a byte a position.
    pub every: std::time::Duration,
}

impl Checkpoint<'_> {
    /// Remove the checkpoint file, if there is one.
    pub fn remove(&self) -> Result<(), TablebaseError> {
        match std::fs::remove_file(self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(TablebaseError::io(self.path, "remove", e))
            }
            _ => Ok(()),
        }
    }
}

/// The values of every position with at most [`Tablebase::max_seeds`] seeds on the board.
/// A clone copies the values (a byte per position) into memory of its own, mapped or not.
#[derive(Clone)]
pub struct Tablebase {
    rules: Rules,
    index: PositionIndex,
    /// One byte per position, in index order: the value as `i8`, or [`CYCLIC`]; the file mapped
    /// read-only, or bytes of its own.
    values: Values,
    /// The bounds of every [`CYCLIC`] position, by index.
    cyclic: Vec<Cyclic>,
    /// The file it was read from or written to.
    path: Option<PathBuf>,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("rules", &self.rules.summary())
            .field("max_seeds", &self.max_seeds())
            .field("positions", &self.len())
            .field("path", &self.path)
            .finish()
    }
}

impl Tablebase {
    /// Solve every position of `rules` with at most `max_seeds` seeds on the board.
    ///
    /// Errors: [`TablebaseError::OutOfMemory`] when the build needs more memory than the machine
    /// has (checked before anything large is allocated; the error names the largest
    /// `max_seeds` that fits), [`TablebaseError::Unsupported`] beyond [`MAX_SEEDS`] or the
    /// builder's 32-bit indices within a layer.
    pub fn build(
        rules: &Rules,
        max_seeds: u32,
        options: &BuildOptions<'_>,
    ) -> Result<Tablebase, TablebaseError> {
        Tablebase::build_from(rules, max_seeds, options, None, &mut |_, _, _| Ok(()))
    }

    /// [`Tablebase::build`] that a killed build can go on from: the layers solved so far are
    /// saved to `checkpoint.path` (as a table of the seeds done, written beside it and renamed
    /// over it, so a kill leaves the last whole one) whenever `checkpoint.every` of build time
    /// has passed since the last save, and a build started with a checkpoint there goes on from
    /// its last layer. The table is the same, byte for byte, as one built through. The caller
    /// removes the checkpoint ([`Checkpoint::remove`]) once the table is safely written, so that
    /// a failed write loses nothing. Returns the table and the seeds of the layers resumed
    /// from, if any.
    ///
    /// Errors beside [`Tablebase::build`]'s: a checkpoint that cannot be read
    /// ([`TablebaseError::Damaged`], [`TablebaseError::Io`]), of other rules
    /// ([`TablebaseError::OtherRules`]), or holding more seeds than `max_seeds`
    /// ([`TablebaseError::Unsupported`]); the message names the file, which is left as it was.
    pub fn build_resumable(
        rules: &Rules,
        max_seeds: u32,
        options: &BuildOptions<'_>,
        checkpoint: &Checkpoint<'_>,
    ) -> Result<(Tablebase, Option<u32>), TablebaseError> {
        let path = checkpoint.path;
        // The memory and limits first: a build that cannot run reads no checkpoint.
        Tablebase::index_for(rules, max_seeds, options.threads)?;
        let from = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(TablebaseError::io(path, "read", e)),
            Ok(_) => {
                // Read, not mapped: the build extends these values, and the checkpoint is
                // rewritten while they are in use.
                let done = Tablebase::open_with(path, Load::Copy)?;
                done.check_rules(rules)?;
                if done.max_seeds() > max_seeds {
                    return Err(TablebaseError::Unsupported {
                        message: format!(
                            "the checkpoint {} holds the layers to {} seeds, more than the {} \
                             asked for: build to {} seeds or more, or remove it",
                            path.display(),
                            done.max_seeds(),
                            max_seeds,
                            done.max_seeds()
                        ),
                    });
                }
                Some(done)
            }
        };
        let resumed = from.as_ref().map(Tablebase::max_seeds);
        let from = from.map(|t| build::Solved {
            seeds: t.max_seeds() as usize,
            values: t.values.into_vec(),
            cyclic: t.cyclic,
        });
        let mut last = std::time::Instant::now();
        let holes = rules.holes();
        let mut save = |k: usize, values: &[u8], cyclic: &[Cyclic]| {
            if k == max_seeds as usize || last.elapsed() < checkpoint.every {
                return Ok(());
            }
            let header = file::Header {
                rules: *rules,
                max_seeds: k as u32,
                positions: values.len() as u64,
            };
            debug_assert_eq!(
                PositionIndex::new(2 * holes, k).map(|i| i.len()),
                Some(values.len() as u64),
                "a table's layers are a prefix of a larger one's"
            );
            file::write(path, &header, values, cyclic)?;
            last = std::time::Instant::now();
            Ok(())
        };
        let table = Tablebase::build_from(rules, max_seeds, options, from, &mut save)?;
        Ok((table, resumed))
    }

    /// The index of a table of `rules` to `max_seeds` seeds, once a build on `threads` threads
    /// (0: one per core) is known to fit the memory and the builder's limits.
    fn index_for(
        rules: &Rules,
        max_seeds: u32,
        threads: usize,
    ) -> Result<PositionIndex, TablebaseError> {
        if max_seeds > MAX_SEEDS {
            return Err(TablebaseError::Unsupported {
                message: format!(
                    "max_seeds {max_seeds} is too large: tables hold 0 to {MAX_SEEDS} seeds \
                     (values are stored in a signed byte)"
                ),
            });
        }
        let holes = rules.holes();
        let k = max_seeds as usize;
        memory::check_build(
            &format!("a tablebase of {} to {max_seeds} seeds", rules.summary()),
            holes,
            k,
            build::threads(threads),
        )?;
        let top = index::layer_len(2 * holes, k).unwrap_or(u128::MAX);
        if top * holes as u128 > u128::from(u32::MAX) {
            return Err(TablebaseError::Unsupported {
                message: format!(
                    "the layer of {max_seeds} seeds on 2x{holes} holes has {top} positions, more \
                     than this builder indexes ({} with {holes} moves each); build to fewer seeds",
                    u32::MAX as usize / holes
                ),
            });
        }
        Ok(PositionIndex::new(2 * holes, k).expect("within memory, so within u64"))
    }

    fn build_from(
        rules: &Rules,
        max_seeds: u32,
        options: &BuildOptions<'_>,
        from: Option<build::Solved>,
        save: build::SaveLayers<'_>,
    ) -> Result<Tablebase, TablebaseError> {
        let index = Tablebase::index_for(rules, max_seeds, options.threads)?;
        let (values, cyclic) = build::build(rules, &index, options, from, save)?;
        Ok(Tablebase {
            rules: *rules,
            index,
            values: Values::Owned(values),
            cyclic,
            path: None,
        })
    }

    /// Read a table from `path`, checking all of it, its values mapped read-only
    /// ([`Load::Map`]: processes that open one file share one copy). Errors name the file and
    /// what was wrong: [`TablebaseError::Io`], [`TablebaseError::Damaged`] (not a tablebase,
    /// another format version, truncated, a checksum that does not match),
    /// [`TablebaseError::OutOfMemory`].
    pub fn open(path: impl AsRef<Path>) -> Result<Tablebase, TablebaseError> {
        Tablebase::open_with(path, Load::Map)
    }

    /// [`Tablebase::open`], with the values mapped or read into memory as `load` says. The
    /// checks and the errors are the same either way.
    pub fn open_with(path: impl AsRef<Path>, load: Load) -> Result<Tablebase, TablebaseError> {
        let path = path.as_ref();
        let (header, values, cyclic) = file::read(path, load)?;
        let index = PositionIndex::new(2 * header.rules.holes(), header.max_seeds as usize)
            .expect("the header's count was checked");
        Ok(Tablebase {
            rules: header.rules,
            index,
            values,
            cyclic,
            path: Some(path.to_path_buf()),
        })
    }

    /// [`Tablebase::open`], then refuse a table whose rules differ from `rules` in a field that
    /// changes the game tree ([`TablebaseError::OtherRules`], naming the file and the field).
    pub fn open_for(path: impl AsRef<Path>, rules: &Rules) -> Result<Tablebase, TablebaseError> {
        let table = Tablebase::open(path)?;
        table.check_rules(rules)?;
        Ok(table)
    }

    /// Write the table to `path`, atomically (a temporary file beside it, then renamed).
    pub fn write(&mut self, path: impl AsRef<Path>) -> Result<(), TablebaseError> {
        let path = path.as_ref();
        let header = file::Header {
            rules: self.rules,
            max_seeds: self.max_seeds(),
            positions: self.len(),
        };
        file::write(path, &header, &self.values, &self.cyclic)?;
        self.path = Some(path.to_path_buf());
        Ok(())
    }

    /// Whether states of `rules` can be probed here: `Ok` when every field that shapes the game
    /// tree matches, else [`TablebaseError::OtherRules`] naming the first that differs.
    pub fn check_rules(&self, rules: &Rules) -> Result<(), TablebaseError> {
        match self.rules.tree_difference(rules) {
            None => Ok(()),
            Some((field, table, asked)) => Err(TablebaseError::OtherRules {
                path: self.path.clone(),
                field,
                table,
                asked,
            }),
        }
    }

    /// The rules the table was built for.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The most seeds on the board of a position in the table, `K`.
    pub fn max_seeds(&self) -> u32 {
        self.index.max_seeds() as u32
    }

    /// Positions in the table: `C(K + 2n, 2n)`.
    pub fn len(&self) -> u64 {
        self.values.len() as u64
    }

    /// Never: the empty board is always in the table.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The file the table was read from or last written to.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether the values are the file mapped read-only ([`Load::Map`]), shared with every
    /// process that maps it, rather than bytes of this table's own.
    pub fn is_mapped(&self) -> bool {
        self.values.is_mapped()
    }

    /// The value of `state` for the player to move (see the module documentation): 0 for a
    /// game that is over, `None` for a position not in the table (more than
    /// [`Tablebase::max_seeds`] seeds on the board, or a state of rules whose game tree differs:
    /// see [`Tablebase::check_rules`]).
    #[inline]
    pub fn value(&self, state: &State) -> Option<i32> {
        self.probe(state).map(|p| p.value)
    }

    /// [`Tablebase::value`], and whether perfect play from `state` never ends.
    #[inline]
    pub fn probe(&self, state: &State) -> Option<Probe> {
        if !self.rules.same_tree(state.rules()) {
            return None;
        }
        if state.is_over() {
            return Some(Probe {
                value: 0,
                endless: false,
                low: 0,
                high: 0,
            });
        }
        self.probe_board(state.board(), state.to_move())
    }

    /// The value of the position `board` with `mover` to move, whatever the ply (the board's
    /// holes numbered as in `RULES.md`); `None` above [`Tablebase::max_seeds`] seeds. A board
    /// with no legal move for `mover` is worth minus its seeds (the opponent takes them); a
    /// settled [`State`] never shows one, as the sweep is made at once.
    #[inline]
    pub fn probe_board(&self, board: &Board, mover: Player) -> Option<Probe> {
        let holes = self.rules.holes();
        if board.sum(0, 2 * holes) > self.max_seeds() {
            return None;
        }
        let at = self
            .index
            .index_rotated(&board.bytes(), mover.index() * holes);
        Some(lookup(&self.values, &self.cyclic, at))
    }

    /// Each legal move of `state` and its value for the mover (the seeds the move gains, the
    /// sweep included if it ends the game, minus the value of the position it leads to), with
    /// whether perfect play after it never ends. The best of them is [`Tablebase::value`]. Empty
    /// for a game that is over; `None` when [`Tablebase::probe`] is.
    pub fn move_values(&self, state: &State) -> Option<Vec<(usize, Probe)>> {
        self.probe(state)?;
        let me = state.to_move();
        let mut out = Vec::with_capacity(state.legal_count());
        for a in state.legal_actions() {
            let child = state.play_unchecked(a);
            let gain = i32::from(child.captured(me))
                - i32::from(state.captured(me))
                - (i32::from(child.captured(!me)) - i32::from(state.captured(!me)));
            let after = self
                .probe_board(child.board(), child.to_move())
                .expect("a move never adds seeds to the board");
            out.push((a, Probe::of_move(gain, after)));
        }
        Some(out)
    }

    /// How the positions of each layer, 0 to `K` seeds, came out.
    pub fn layer_stats(&self) -> Vec<LayerStats> {
        (0..=self.index.max_seeds())
            .map(|k| {
                let layer = self.index.layer(k);
                let mut stats = LayerStats {
                    seeds: k as u32,
                    positions: layer.end - layer.start,
                    won: 0,
                    drawn: 0,
                    lost: 0,
                    endless: 0,
                    cyclic: 0,
                };
                for at in layer {
                    let probe = lookup(&self.values, &self.cyclic, at);
                    stats.cyclic += u64::from(probe.low != probe.high);
                    match (probe.endless, probe.value.signum()) {
                        (true, _) => stats.endless += 1,
                        (false, 1) => stats.won += 1,
                        (false, 0) => stats.drawn += 1,
                        (false, _) => stats.lost += 1,
                    }
                }
                stats
            })
            .collect()
    }
}
