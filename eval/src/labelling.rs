//! Exact test positions drawn from strong play and labelled, game by game: the work of
//! `sowing positions`, here so that one process, Python and a Ray cluster share it and give the
//! same file.
//!
//! Game `g` is played by the match loop between two agents (from a random opening), one
//! position is drawn from it after the opening (a phase, 8 seeds wide, among those the game went
//! through, uniformly, then a position of that phase, so that the mid-game is as present as the
//! long endgames; with [`Labelling::mid_game`], a share of the games gives one from just past half
//! the seeds instead), and that position is labelled exactly: from a tablebase where it holds the
//! position, else by the exact result search within a budget, its transposition table cleared
//! first. All of it is fixed by the seed and `g`, so [`Labelling::label_games`] of any range
//! gives the same outcomes whatever the threads or the process, and ranges can be dealt out
//! anywhere.
//!
//! A [`Collector`] merges the outcomes in game order into the set: the first `count` labelled
//! positions, duplicates left out, the unsettled dropped and counted per phase. It also deals the
//! game numbers, in batches sized from the share labelled so far; whoever plays a batch (one
//! process on its threads, or Ray tasks each taking a part of it) feeds its outcomes back in
//! order, and the file is the same.

use crate::matches::{self, Match, MatchError, Pairing, Salts, Seat};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use sowing_agents::{Agent, AgentSpec, SpecError, stream};
use sowing_env::{ByPlayer, Player, Rules, State};
use sowing_exact::Stop;
use sowing_exact::positions::{ExactPosition, LabelSource, MoveLabel, PositionSet};
use sowing_exact::searches;
use sowing_exact::tablebase::Tablebase;
use sowing_exact::value::{Guidance, Guide};
use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// The rules played unless told otherwise.
pub const DEFAULT_VARIANT: &str = "en-dodoi-6";
/// The two agents whose games the positions come from, unless told otherwise.
pub const DEFAULT_AGENTS: [&str; 2] = ["alphabeta:6", "mcts:1000"];
/// Uniformly random moves before the agents take over, unless told otherwise.
pub const DEFAULT_OPENING: u32 = 4;

/// The salts of the games' streams, and of the ply drawn from each game.
const SALTS: Salts = Salts {
    openings: 0x706f_7369_7469_6f6e,
    games: 0x6578_6163_7450_6f73,
};
const PLY_SALT: u64 = 0x706c_7920_6472_6177;
const MID_GAME_SALT: u64 = 0x6d69_6420_6761_6d65;

/// Seeds on the board per phase of the figures.
pub const PHASE_WIDTH: u32 = 8;

/// How positions are drawn and labelled.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelling {
    /// The rules of the games.
    pub rules: Rules,
    /// Their name in the file's header: the preset's, or the rules file's stem.
    pub variant: String,
    /// Seed of the games and of the positions drawn from them.
    pub seed: u64,
    /// The two agents (specs); each plays South in half the games.
    pub agents: [AgentSpec; 2],
    /// Uniformly random moves before the agents take over.
    pub opening: u32,
    /// Positions the exact search may make to settle one position.
    pub nodes: u64,
    /// Each search's transposition table: 2^BITS slots of 16 bytes.
    pub table_bits: u32,
    /// A tablebase of these rules: positions it holds are labelled from it, and the search
    /// takes its results at the leaves.
    pub tablebase: Option<PathBuf>,
    /// The share of games, in percent, whose position is drawn from just past half the seeds
    /// (more than half of the start's seeds on the board, by at most a phase), where the game
    /// went through such positions; the others as always. 0: none, the set as before.
    pub mid_game: u32,
    /// Draw only from these phases of the game (seeds on the board in percent of the start's):
    /// a set sharper where it is to be compared, or one that adds positions to a committed set's
    /// phases. A game that never went through them gives none. `None`: every phase.
    pub phases: Option<PhaseWindow>,
}

/// A window of the game's phases: the positions with at least `low` and less than `high`
/// percent of the start's seeds on the board (the start itself too when `high` is 100). Written
/// `LOW-HIGH`, e.g. `10-40`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseWindow {
    pub low: u32,
    pub high: u32,
}

impl PhaseWindow {
    /// Whether `seeds` of `start` on the board lie in the window.
    pub fn holds(&self, seeds: u32, start: u32) -> bool {
        let (percent, start) = (100 * u64::from(seeds), u64::from(start));
        let below_high =
            percent < u64::from(self.high) * start || (self.high == 100 && percent == 100 * start);
        percent >= u64::from(self.low) * start && below_high
    }
}

impl fmt::Display for PhaseWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.low, self.high)
    }
}

impl std::str::FromStr for PhaseWindow {
    type Err = String;

    /// `LOW-HIGH` in percent of the start's seeds, `0 <= LOW < HIGH <= 100`.
    fn from_str(text: &str) -> Result<PhaseWindow, String> {
        let bad = || {
            format!(
                "{text:?} is not a window of phases: give LOW-HIGH, percent of the start's seeds \
                 on the board with 0 <= LOW < HIGH <= 100, e.g. 10-40"
            )
        };
        let (low, high) = text.trim().split_once('-').ok_or_else(bad)?;
        let (low, high): (u32, u32) = (
            low.trim().parse().map_err(|_| bad())?,
            high.trim().parse().map_err(|_| bad())?,
        );
        if low >= high || high > 100 {
            return Err(bad());
        }
        Ok(PhaseWindow { low, high })
    }
}

/// The most [`Labelling::mid_game`] may be.
pub const MAX_MID_GAME: u32 = 100;

/// How one game came out: the position drawn from it, with its label or none when the search
/// did not settle it. A game over before a move was chosen after the opening gives none.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    /// The game's number.
    pub game: u64,
    /// The position drawn.
    pub state: State,
    /// Its exact label; `None`: dropped, unsettled within the budget.
    pub label: Option<ExactPosition>,
    /// Wall-clock seconds spent labelling it.
    pub seconds: f64,
    /// Positions the search made for it.
    pub nodes: u64,
}

/// Why games could not be played or labelled.
#[derive(Debug)]
pub enum LabelError {
    /// The match loop refused or failed.
    Match(MatchError),
    /// A game's record does not replay (a bug in the match loop).
    Record(sowing_env::Error),
    /// Told to stop: what was done is dropped.
    Stopped,
}

impl fmt::Display for LabelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabelError::Match(e) => e.fmt(f),
            LabelError::Record(e) => e.fmt(f),
            LabelError::Stopped => f.write_str("stopped before the games were labelled"),
        }
    }
}

impl std::error::Error for LabelError {}

/// A setting of the labelling, or the set's count, as a refusal names it: each caller says it
/// in its own words ([`Refused::words`]: a command-line flag, a keyword argument), the library
/// in its field's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    Count,
    MidGame,
    Phases,
    Nodes,
    TableBits,
    Tablebase,
}

impl Setting {
    /// The name of the setting's field ([`Labelling`]'s, or `count`).
    pub fn field(self) -> &'static str {
        match self {
            Setting::Count => "count",
            Setting::MidGame => "mid_game",
            Setting::Phases => "phases",
            Setting::Nodes => "nodes",
            Setting::TableBits => "table_bits",
            Setting::Tablebase => "tablebase",
        }
    }
}

/// Why a labelling or a collector refuses to go on, with the settings it names left for the
/// caller to word.
#[derive(Clone, Debug, PartialEq)]
pub enum Refused {
    /// A setting out of its range.
    Range {
        setting: Setting,
        /// What was given.
        value: String,
        /// What is allowed, in words.
        allowed: String,
    },
    /// An agent spec that names no agent or cannot play these rules: why.
    Agent(String),
    /// After 1,000 games fewer than one in 50 gave a labelled position.
    TooFewSettled {
        kept: usize,
        count: usize,
        games: u64,
        dropped: u64,
        /// The tablebase the labelling reads, and the most seeds it holds.
        table: Option<(PathBuf, u32)>,
    },
}

impl Refused {
    fn range(setting: Setting, value: impl fmt::Display, allowed: String) -> Refused {
        Refused::Range {
            setting,
            value: value.to_string(),
            allowed,
        }
    }

    /// The refusal with each setting named by `name` (`|s| s.field()` is the library's
    /// [`fmt::Display`]).
    pub fn words(&self, name: &dyn Fn(Setting) -> &'static str) -> String {
        match self {
            Refused::Range {
                setting,
                value,
                allowed,
            } => format!("{} must be {allowed}, got {value}", name(*setting)),
            Refused::Agent(why) => why.clone(),
            Refused::TooFewSettled {
                kept,
                count,
                games,
                dropped,
                table,
            } => {
                let (nodes, tablebase) = (name(Setting::Nodes), name(Setting::Tablebase));
                let give = match table {
                    Some((path, max_seeds)) => format!(
                        "a larger {nodes}, or a {tablebase} of more seeds ({} holds positions of \
                         at most {max_seeds})",
                        path.display()
                    ),
                    None => format!("a larger {nodes}, or a {tablebase}"),
                };
                format!(
                    "only {kept} of {count} positions settled in {games} games ({dropped} \
                     dropped): give {give}"
                )
            }
        }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words(&|s| s.field()))
    }
}

impl std::error::Error for Refused {}

impl Labelling {
    /// Refuse, with the reason, a budget of zero, a table size out of range, or an agent spec
    /// that names no agent or cannot play these rules.
    pub fn check(&self) -> Result<(), Refused> {
        if self.mid_game > MAX_MID_GAME {
            return Err(Refused::range(
                Setting::MidGame,
                self.mid_game,
                format!("a share of the games in percent, 0 to {MAX_MID_GAME}"),
            ));
        }
        if let (Some(window), true) = (self.phases, self.mid_game > 0) {
            return Err(Refused::range(
                Setting::Phases,
                window,
                "left out when a mid-game share is given (both choose the phases drawn)".into(),
            ));
        }
        if self.nodes == 0 {
            return Err(Refused::range(
                Setting::Nodes,
                0,
                "at least 1 (positions the search may make per position)".into(),
            ));
        }
        if !searches::TABLE_BITS.contains(&self.table_bits) {
            return Err(Refused::range(
                Setting::TableBits,
                self.table_bits,
                format!(
                    "{} to {} (2^BITS slots of 16 bytes per search)",
                    searches::TABLE_BITS.start(),
                    searches::TABLE_BITS.end()
                ),
            ));
        }
        for spec in &self.agents {
            spec.build()
                .map_err(|e| e.to_string())
                .and_then(|agent| agent.can_play(&self.rules))
                .map_err(Refused::Agent)?;
        }
        Ok(())
    }

    /// The tablebase, if one is named: read once per process and shared (see
    /// [`sowing_exact::shared_tablebase`]), refused when it is of rules with another game tree.
    pub fn open_table(&self) -> Result<Option<Arc<Tablebase>>, String> {
        let Some(path) = &self.tablebase else {
            return Ok(None);
        };
        sowing_exact::shared_tablebase_for(path, &self.rules).map(Some)
    }

    /// Play games `games` on `threads` threads, draw one position from each and label it; the
    /// outcomes in game order. `table` is [`Labelling::open_table`]'s. The agents' searches and
    /// the labelling give up once `stop` says so, and the call is then
    /// [`LabelError::Stopped`]; `progress(i)` hears that the `i`-th position drawn was labelled.
    pub fn label_games(
        &self,
        table: Option<&Arc<Tablebase>>,
        games: Range<u64>,
        threads: usize,
        stop: &Stop,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Drawn>, LabelError> {
        self.label_games_guided(
            table,
            games,
            threads,
            &mut Vec::new(),
            Guidance::default(),
            stop,
            progress,
        )
    }

    /// [`Labelling::label_games`] with a guide for each labelling thread's proof-number search
    /// (`guides` empty: none; otherwise the labelling threads are at most as many as the
    /// guides, which are all back in `guides` afterwards). The labels are the same with any guide; which positions settle within the
    /// budget may differ.
    #[allow(clippy::too_many_arguments)]
    pub fn label_games_guided(
        &self,
        table: Option<&Arc<Tablebase>>,
        games: Range<u64>,
        threads: usize,
        guides: &mut Vec<Box<dyn Guide>>,
        guidance: Guidance,
        stop: &Stop,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Drawn>, LabelError> {
        let drawn = self.draw(games, threads, stop)?;
        let labelled = searches::map_guided(
            threads,
            self.table_bits,
            table,
            guides,
            guidance,
            &drawn,
            |i, &(game, state), search| {
                if stop.requested() {
                    return None;
                }
                search.clear();
                let started = Instant::now();
                let label = ExactPosition::label(&state, search, self.nodes);
                progress(i);
                Some(Drawn {
                    game,
                    state,
                    label,
                    seconds: started.elapsed().as_secs_f64(),
                    nodes: search.nodes(),
                })
            },
        );
        if stop.requested() {
            return Err(LabelError::Stopped);
        }
        Ok(labelled.into_iter().flatten().collect())
    }

    /// Play games `games` between the two agents and draw one position from each, in order.
    fn draw(
        &self,
        games: Range<u64>,
        threads: usize,
        stop: &Stop,
    ) -> Result<Vec<(u64, State)>, LabelError> {
        let m = Match {
            rules: self.rules,
            seed: self.seed,
            salts: SALTS,
            opening_plies: self.opening,
            openings: matches::Openings::Random,
            pairings: vec![Pairing { a: 0, b: 1, games }],
            threads,
            keep_records: true,
        };
        let agents_stop = stop.clone();
        let factory = move |spec: &AgentSpec| -> Result<Box<dyn Agent>, SpecError> {
            let mut agent = spec.build()?;
            agent.set_stop(agents_stop.clone());
            Ok(agent)
        };
        let mut seats = Seat::agents(&self.agents, &factory);
        let played = matches::play(&m, &mut seats, &mut |_| {}).map_err(LabelError::Match)?;
        if stop.requested() {
            return Err(LabelError::Stopped);
        }
        let mut out = Vec::with_capacity(played.games.len());
        for game in &played.games {
            let record = game.record.as_ref().expect("records were asked for");
            let states = record.states().map_err(LabelError::Record)?;
            // The positions where a move was chosen after the opening, and their phases.
            let first = (self.opening as usize).min(states.len() - 1);
            let start = self.rules.total_seeds() as u32;
            let choices: Vec<&State> = states[first..]
                .iter()
                .filter(|s| !s.is_over())
                .filter(|s| self.phases.is_none_or(|w| w.holds(seeds(s), start)))
                .collect();
            let mut phases: Vec<u32> = choices.iter().map(|s| seeds(s) / PHASE_WIDTH).collect();
            phases.dedup();
            if phases.is_empty() {
                continue;
            }
            let mut rng = stream(self.seed, PLY_SALT, game.game);
            // From a stream of its own, so that the other games draw as they would without it.
            let mut mid = stream(self.seed, MID_GAME_SALT, game.game);
            if self.mid_game > 0 && mid.random_range(0..MAX_MID_GAME) < self.mid_game {
                let half = self.rules.total_seeds() as u32 / 2;
                let near: Vec<&State> = choices
                    .iter()
                    .copied()
                    .filter(|s| (half + 1..=half + PHASE_WIDTH).contains(&seeds(s)))
                    .collect();
                if !near.is_empty() {
                    out.push((game.game, *near[mid.random_range(0..near.len())]));
                    continue;
                }
            }
            let phase = phases[rng.random_range(0..phases.len())];
            let in_phase: Vec<&State> = choices
                .into_iter()
                .filter(|s| seeds(s) / PHASE_WIDTH == phase)
                .collect();
            out.push((game.game, *in_phase[rng.random_range(0..in_phase.len())]));
        }
        Ok(out)
    }
}

/// Seeds on the board of `state`.
fn seeds(state: &State) -> u32 {
    state.board().sum(0, 2 * state.holes())
}

/// The figures of one phase (seeds on the board `from..=to`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Phase {
    pub from: u32,
    pub to: u32,
    /// Positions drawn (duplicates left out).
    pub drawn: u64,
    /// Labelled from the tablebase.
    pub tablebase: u64,
    /// Labelled by the search.
    pub search: u64,
    /// Not settled within the budget.
    pub dropped: u64,
    /// Wall-clock seconds spent labelling them, all together.
    pub seconds: f64,
    /// Positions the search made for them.
    pub nodes: u64,
}

/// What a set's making came to, beside the set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub rules: Rules,
    /// Positions in the set.
    pub count: usize,
    /// Positions drawn but not settled.
    pub dropped: u64,
    /// Positions drawn a second time, left out.
    pub duplicates: u64,
    /// Games played (every batch dealt, in full).
    pub games: u64,
    /// By phase, from no seeds up.
    pub phases: Vec<Phase>,
}

/// Merges the outcomes of games, in game order, into a set of `count` positions, and deals out
/// the game numbers in batches (see the module documentation).
#[derive(Debug)]
pub struct Collector {
    labelling: Labelling,
    /// The table's `max_seeds`, for the header.
    max_seeds: Option<u32>,
    count: usize,
    kept: Vec<ExactPosition>,
    seen: HashSet<State>,
    phases: Vec<Phase>,
    dropped: u64,
    duplicates: u64,
    /// Games dealt so far: numbers `0..games`.
    games: u64,
    /// Outcomes are taken of games from this number on.
    next: u64,
    /// The network that guided the search, for the header: its run and depth.
    guide: Option<(String, u32)>,
}

impl Collector {
    /// A collector of `count` positions (at least 1) labelled as `labelling` says, with `table`
    /// its [`Labelling::open_table`].
    pub fn new(
        labelling: &Labelling,
        table: Option<&Tablebase>,
        count: usize,
    ) -> Result<Collector, Refused> {
        if count == 0 {
            return Err(Refused::range(
                Setting::Count,
                0,
                "at least 1 position".into(),
            ));
        }
        Ok(Collector {
            labelling: labelling.clone(),
            max_seeds: table.map(|t| t.max_seeds()),
            count,
            kept: Vec::new(),
            seen: HashSet::new(),
            phases: Vec::new(),
            dropped: 0,
            duplicates: 0,
            games: 0,
            next: 0,
            guide: None,
        })
    }

    /// Positions labelled so far.
    pub fn kept(&self) -> usize {
        self.kept.len()
    }

    /// Whether the set holds its `count` positions.
    pub fn is_full(&self) -> bool {
        self.kept.len() >= self.count
    }

    /// Games dealt so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The next batch of games to play (counted as played from now on), sized so that it
    /// should fill the set: `None` once it is full. Refused, saying what to give, when after
    /// 1,000 games fewer than one in 50 gave a labelled position.
    pub fn next_games(&mut self) -> Result<Option<Range<u64>>, Refused> {
        if self.is_full() {
            return Ok(None);
        }
        let kept = self.kept.len() as u64;
        if self.games >= 1000 && kept * 50 < self.games {
            return Err(Refused::TooFewSettled {
                kept: self.kept.len(),
                count: self.count,
                games: self.games,
                dropped: self.dropped,
                table: self.labelling.tablebase.clone().zip(self.max_seeds),
            });
        }
        let missing = (self.count - self.kept.len()) as f64;
        let share = if self.games == 0 {
            1.0
        } else {
            (kept as f64 / self.games as f64).max(0.05)
        };
        let batch = ((1.1 * missing / share) as u64 + 1)
            .next_multiple_of(2)
            .min(4096);
        let games = self.games..self.games + batch;
        self.games = games.end;
        Ok(Some(games))
    }

    /// Take the outcomes of games dealt by [`Collector::next_games`], in game order (a batch
    /// whole, or its parts one after the other); those once the set is full are not looked at.
    /// Refused when a game is out of order or was not dealt.
    pub fn add(&mut self, drawn: impl IntoIterator<Item = Drawn>) -> Result<(), String> {
        for item in drawn {
            if self.is_full() {
                return Ok(());
            }
            if item.game < self.next || item.game >= self.games {
                return Err(format!(
                    "game {} is not among the games still to come ({}..{}): outcomes must come \
                     in game order, from the games dealt",
                    item.game, self.next, self.games
                ));
            }
            self.next = item.game + 1;
            if !self.seen.insert(item.state) {
                self.duplicates += 1;
                continue;
            }
            let phase = phase_of(&mut self.phases, seeds(&item.state));
            phase.drawn += 1;
            phase.seconds += item.seconds;
            phase.nodes += item.nodes;
            match item.label {
                Some(position) => {
                    match position.source {
                        LabelSource::Tablebase => phase.tablebase += 1,
                        LabelSource::Solver => phase.search += 1,
                    }
                    self.kept.push(position);
                }
                None => {
                    phase.dropped += 1;
                    self.dropped += 1;
                }
            }
        }
        Ok(())
    }

    /// The header names `run`, the network that guided the search to `depth` plies
    /// ([`Labelling::label_games_guided`]).
    pub fn guided_by(mut self, run: &std::path::Path, depth: u32) -> Collector {
        self.guide = Some((run.display().to_string(), depth));
        self
    }

    /// The set (its header saying how it was made) and the figures.
    pub fn finish(self) -> (PositionSet, Report) {
        let l = &self.labelling;
        let made_by = serde_json::json!({
            "command": "sowing positions",
            "variant": l.variant,
            "seed": l.seed,
            "agents": l.agents.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "opening": l.opening,
            "nodes": l.nodes,
            "tablebase": self.max_seeds.map(|max_seeds| serde_json::json!({
                "file": l.tablebase.as_ref().map(|p| p.display().to_string()),
                "max_seeds": max_seeds,
            })),
            "games": self.games,
        });
        let mut made_by = made_by;
        if l.mid_game > 0 {
            made_by["mid_game"] = serde_json::json!(l.mid_game);
        }
        if let Some(window) = l.phases {
            made_by["phases"] = serde_json::json!(window.to_string());
        }
        if let Some((run, depth)) = &self.guide {
            made_by["guide"] = serde_json::json!({ "run": run, "depth": depth });
        }
        let set = PositionSet::new(l.rules, made_by, self.dropped, self.kept);
        let report = Report {
            rules: l.rules,
            count: set.positions.len(),
            dropped: self.dropped,
            duplicates: self.duplicates,
            games: self.games,
            phases: self.phases,
        };
        (set, report)
    }
}

/// The phase of `seeds` in `phases`, made (with the phases below it) if missing.
fn phase_of(phases: &mut Vec<Phase>, seeds: u32) -> &mut Phase {
    let at = (seeds / PHASE_WIDTH) as usize;
    while phases.len() <= at {
        let from = phases.len() as u32 * PHASE_WIDTH;
        phases.push(Phase {
            from,
            to: from + PHASE_WIDTH - 1,
            ..Phase::default()
        });
    }
    &mut phases[at]
}

/// One outcome as it travels between processes (JSON): the state without its rules.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    game: u64,
    board: Vec<u8>,
    captured: ByPlayer<u8>,
    to_move: Player,
    ply: u32,
    seconds: f64,
    nodes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveLabel>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<LabelSource>,
}

/// `drawn` as text, for another process to read back with [`decode`] (the outcomes of a Ray
/// task, say).
pub fn encode(drawn: &[Drawn]) -> String {
    let wire: Vec<Wire> = drawn
        .iter()
        .map(|d| Wire {
            game: d.game,
            board: d.state.cells(),
            captured: d.state.captures(),
            to_move: d.state.to_move(),
            ply: d.state.ply(),
            seconds: d.seconds,
            nodes: d.nodes,
            moves: d.label.as_ref().map(|p| p.moves.clone()),
            source: d.label.as_ref().map(|p| p.source),
        })
        .collect();
    serde_json::to_string(&wire).expect("outcomes serialise")
}

/// The outcomes [`encode`] wrote, of games of `rules`, each state and label checked.
pub fn decode(rules: &Rules, text: &str) -> Result<Vec<Drawn>, String> {
    let wire: Vec<Wire> = serde_json::from_str(text)
        .map_err(|e| format!("not the outcomes of labelled games: {e}"))?;
    wire.into_iter()
        .map(|w| {
            let bad = |e: String| format!("the outcome of game {}: {e}", w.game);
            let state = State::new(rules, &w.board, w.captured, w.to_move, w.ply)
                .map_err(|e| bad(e.to_string()))?;
            let label = match (w.moves, w.source) {
                (Some(moves), Some(source)) => {
                    Some(ExactPosition::new(state, moves, source).map_err(bad)?)
                }
                (None, None) => None,
                _ => return Err(bad("moves and source come together".into())),
            };
            Ok(Drawn {
                game: w.game,
                state,
                label,
                seconds: w.seconds,
                nodes: w.nodes,
            })
        })
        .collect()
}
