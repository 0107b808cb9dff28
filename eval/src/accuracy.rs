//! Accuracy against exact positions: how often a player's move keeps a position's perfect-play
//! result, and how often it keeps the best margin, over a set of labelled positions
//! ([`sowing_exact::positions`]). The one measurement behind `sowing accuracy`, the trainer's evaluation
//! and `sowing compare`.
//!
//! Each position is played as the first move of a fresh game: an agent is told
//! [`Agent::new_game`] before it, a batch player sees every position in a slot of its own. The
//! move draws from the random stream of the seed, the player's name and the position's number in
//! its set ([`stream`]), so an agent's moves, and its accuracy, are fixed by the seed whatever the
//! threads or the part of the set measured (agents with a time budget aside: how far they search
//! depends on the machine).
//!
//! Rates come with Wilson intervals ([`crate::stats`]), over all positions and by phase: the
//! seeds on the board, in bands of [`BAND_SEEDS`]. Beside the share of all positions, the share
//! of the critical ones, where some move gives the result away: in an endgame most positions are
//! settled whatever is played, and random play keeps their result. An [`Accuracy`] measured on parts of a set
//! merges into that of the whole.

use crate::matches::{Factory, MatchError, Seat, thread_count};
use crate::stats::{Mean, Rate};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_agents::stream;
use sowing_agents::{Agent, AgentSpec};
use sowing_env::Rules;
use sowing_exact::positions::{ExactPosition, PositionSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// The width of a phase band, in seeds on the board: 0-7, 8-15, 16-23, ... (the bands in which
/// the endgame solver's reach is given).
pub const BAND_SEEDS: u32 = 8;

/// Positions a batch player is given at once. Fixed, so that a network's moves (whose arithmetic
/// may depend on the batch) are the same in every run.
pub const BATCH: usize = 256;

/// The folder of the committed positions sets, relative to the repository's root.
pub const SETS_DIR: &str = "data/positions";

/// The committed positions set of preset `variant`, `data/positions/VARIANT.jsonl`, relative to
/// the working directory (the commands run from the repository's root, as `runs/` is there too).
pub fn committed_set(variant: &str) -> PathBuf {
    Path::new(SETS_DIR).join(format!("{}.jsonl", preset_name(variant)))
}

/// The phase set of preset `variant`, `data/positions/phases/VARIANT.jsonl`: positions drawn
/// from chosen phases only (`sowing positions --phases`), which `sowing compare` adds to the
/// committed set's positions of those phases when it ranks the presets on the same phases.
pub fn phase_set(variant: &str) -> PathBuf {
    Path::new(SETS_DIR)
        .join("phases")
        .join(format!("{}.jsonl", preset_name(variant)))
}

/// The name of the preset `variant` stands for: an alias (`en-dodoi`) names another preset
/// (`en-dodoi-8`), whose committed set and figures are its own; any other name is itself.
pub fn preset_name(variant: &str) -> &str {
    sowing_env::Preset::find(variant)
        .and_then(|p| p.alias_of)
        .unwrap_or(variant)
}

/// How to make the committed set of `variant`, for the errors that miss it.
pub fn how_to_make(variant: &str) -> String {
    format!(
        "`sowing positions --variant {} --count 2000 --out {}` makes one (docs/exact.md gives \
         the commands of the committed sets)",
        preset_name(variant),
        committed_set(variant).display()
    )
}

/// The positions set in `path`, checked to be of `rules` (the preset `variant`).
pub fn read_set(path: &Path, variant: &str, rules: &Rules) -> Result<PositionSet, String> {
    let set = PositionSet::read(path).map_err(|e| e.to_string())?;
    if set.rules() != rules {
        // Rules that differ only in their caps have one summary: then every field is shown.
        let (theirs, ours) = match (set.rules().summary(), rules.summary()) {
            (a, b) if a == b => (json(set.rules()), json(rules)),
            pair => pair,
        };
        return Err(format!(
            "positions file {} holds positions of {theirs}, not of {variant} ({ours})",
            path.display(),
        ));
    }
    Ok(set)
}

fn json(rules: &Rules) -> String {
    serde_json::to_string(rules).expect("rules serialise")
}

/// Mixed with the player's name into the seed of the positions' streams.
const SALT: u64 = 0x6163_6375_7261_6379;

/// Positions where a move kept the result, and where it kept the best margin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// Moves that kept the position's result (win, draw or loss), of all positions.
    pub result: Rate,
    /// Moves that kept the result, of the critical positions: those where some legal move does
    /// not. In the others every move keeps it, so they cannot tell players apart.
    pub critical: Rate,
    /// Moves that kept the best margin, of the positions whose margins are known.
    pub margin: Rate,
}

impl Kept {
    /// Count one position: whether the move kept its result, whether the position is critical,
    /// and whether the move kept its best margin (`None` when its margins are not known).
    pub fn add(&mut self, result: bool, critical: bool, margin: Option<bool>) {
        count(&mut self.result, result);
        if critical {
            count(&mut self.critical, result);
        }
        if let Some(kept) = margin {
            count(&mut self.margin, kept);
        }
    }

    /// Add the positions of `other`.
    pub fn merge(&mut self, other: &Kept) {
        for (mine, theirs) in [
            (&mut self.result, other.result),
            (&mut self.critical, other.critical),
            (&mut self.margin, other.margin),
        ] {
            mine.hits += theirs.hits;
            mine.n += theirs.n;
        }
    }
}

/// Count one trial of `rate`, a hit when `hit`.
fn count(rate: &mut Rate, hit: bool) {
    rate.hits += f64::from(u8::from(hit));
    rate.n += 1;
}

/// One phase band: the positions with `low..=high` seeds on the board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    /// Fewest seeds on the board.
    pub low: u32,
    /// Most seeds on the board.
    pub high: u32,
    /// What the moves kept there.
    pub kept: Kept,
}

/// The accuracy of one player over some positions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Accuracy {
    /// The player's name (its spec, for an agent).
    pub player: String,
    /// Over every position.
    pub kept: Kept,
    /// By phase: entry `b` counts the positions with `b * BAND_SEEDS` to `(b + 1) * BAND_SEEDS
    /// - 1` seeds on the board (see [`Accuracy::bands`]).
    pub phases: Vec<Kept>,
    /// Seconds per move, measured around each `choose` (for a batch player, each batch's time
    /// shared over its positions). Clock time: it depends on the machine and its load.
    pub seconds_per_move: Mean,
    /// The move chosen in each position, in the order measured.
    pub moves: Vec<usize>,
}

impl Accuracy {
    /// An empty measurement of `player`.
    pub fn new(player: &str) -> Accuracy {
        Accuracy {
            player: player.to_string(),
            ..Accuracy::default()
        }
    }

    /// Positions measured.
    pub fn positions(&self) -> u64 {
        self.kept.result.n
    }

    /// Count `action`, chosen in `position` in `seconds`.
    fn add(&mut self, position: &ExactPosition, action: usize, seconds: f64) {
        let bit = 1u16 << action;
        let keeps = position.keeps_result();
        let result = keeps & bit != 0;
        let critical = keeps != position.state.legal_mask();
        let margin = position.keeps_margin().map(|keeps| keeps & bit != 0);
        self.kept.add(result, critical, margin);
        let band = (position.seeds() / BAND_SEEDS) as usize;
        if self.phases.len() <= band {
            self.phases.resize(band + 1, Kept::default());
        }
        self.phases[band].add(result, critical, margin);
        self.seconds_per_move.add(seconds);
        self.moves.push(action);
    }

    /// Add the positions of `other`, measured after these (the same player on the next part of
    /// a set).
    pub fn merge(&mut self, other: &Accuracy) {
        self.kept.merge(&other.kept);
        if self.phases.len() < other.phases.len() {
            self.phases.resize(other.phases.len(), Kept::default());
        }
        for (mine, theirs) in self.phases.iter_mut().zip(&other.phases) {
            mine.merge(theirs);
        }
        self.seconds_per_move.merge(&other.seconds_per_move);
        self.moves.extend_from_slice(&other.moves);
    }

    /// The phase bands that hold positions, fewest seeds first.
    pub fn bands(&self) -> impl Iterator<Item = Band> + '_ {
        self.phases
            .iter()
            .enumerate()
            .filter(|(_, kept)| kept.result.n > 0)
            .map(|(b, kept)| Band {
                low: b as u32 * BAND_SEEDS,
                high: (b as u32 + 1) * BAND_SEEDS - 1,
                kept: *kept,
            })
    }
}

/// Two players measured on the same positions, compared position by position: of the positions
/// that count (the critical ones, for keeping the result; those with known margins, for the
/// margin), where only the first kept it and where only the second did. Positions both kept or
/// both missed say nothing of which is better, so a paired comparison is sharper than two
/// intervals side by side: two checkpoints 1.5 points apart on 558 critical positions have
/// overlapping Wilson intervals, yet may differ on only 20 of them, all one way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// Positions that count.
    pub n: u64,
    /// Positions where only the first player kept it.
    pub only_first: u64,
    /// Positions where only the second player kept it.
    pub only_second: u64,
}

impl Paired {
    /// Keeping the result, over the critical positions, of `first` and `second` measured on
    /// `positions` (in the order measured).
    pub fn critical(positions: &[ExactPosition], first: &Accuracy, second: &Accuracy) -> Paired {
        Paired::count(positions, first, second, |p, bit| {
            let keeps = p.keeps_result();
            (keeps != p.state.legal_mask()).then_some(keeps & bit != 0)
        })
    }

    /// Keeping the best margin, over the positions whose margins are known.
    pub fn margin(positions: &[ExactPosition], first: &Accuracy, second: &Accuracy) -> Paired {
        Paired::count(positions, first, second, |p, bit| {
            p.keeps_margin().map(|keeps| keeps & bit != 0)
        })
    }

    /// The positions where `kept(position, move bit)` is `Some`, compared.
    fn count(
        positions: &[ExactPosition],
        first: &Accuracy,
        second: &Accuracy,
        kept: impl Fn(&ExactPosition, u16) -> Option<bool>,
    ) -> Paired {
        let mut paired = Paired::default();
        for ((p, &a), &b) in positions.iter().zip(&first.moves).zip(&second.moves) {
            let (Some(ka), Some(kb)) = (kept(p, 1 << a), kept(p, 1 << b)) else {
                continue;
            };
            paired.n += 1;
            paired.only_first += u64::from(ka && !kb);
            paired.only_second += u64::from(kb && !ka);
        }
        paired
    }

    /// The first player's rate minus the second's, over the positions that count.
    pub fn difference(&self) -> Option<f64> {
        (self.n > 0).then(|| (self.only_first as f64 - self.only_second as f64) / self.n as f64)
    }

    /// McNemar's exact test: the two-sided probability of a split of the discordant positions
    /// at least this uneven if either player were as likely to be the one that kept it (1 when
    /// there are none).
    pub fn p_value(&self) -> f64 {
        let n = self.only_first + self.only_second;
        let low = self.only_first.min(self.only_second);
        // P(X <= low) for X ~ Binomial(n, 1/2), summed in logs so that large n do not underflow.
        let mut log_choose = 0.0f64;
        let mut tail = 0.0;
        for k in 0..=low {
            if k > 0 {
                log_choose += ((n - k + 1) as f64).ln() - (k as f64).ln();
            }
            tail += (log_choose - n as f64 * std::f64::consts::LN_2).exp();
        }
        (2.0 * tail).min(1.0)
    }
}

/// Which positions to measure, and how.
#[derive(Clone, Copy, Debug)]
pub struct Trial<'a> {
    /// The rules of every position.
    pub rules: Rules,
    /// The positions.
    pub positions: &'a [ExactPosition],
    /// The number of `positions[0]` in its set: position `i` draws from stream `first + i`.
    pub first: u64,
    /// Seed of every stream.
    pub seed: u64,
    /// Threads for an agent's moves; 0 means one per core. A batch player moves on the calling
    /// thread.
    pub threads: usize,
}

/// The random stream of position number `number` for `player` in trials seeded `seed`.
pub fn position_stream(seed: u64, player: &str, number: u64) -> ChaCha8Rng {
    stream(seed, SALT ^ fnv1a(player.as_bytes()), number)
}

/// FNV-1a of `bytes`: a player's name as part of a seed, the same on every machine and version.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Measure the accuracy of `seat` on `trial`'s positions. `progress` hears the number of positions
/// done, on the calling thread. A batch player is given the positions [`BATCH`] at a time, each in
/// slot `i` (its index in the trial), used once.
///
/// Errors: an agent's spec that names no agent, an agent that cannot play the rules, a move the
/// rules refuse (naming the player and the position).
pub fn measure(
    trial: &Trial,
    seat: &mut Seat,
    progress: &mut dyn FnMut(u64),
) -> Result<Accuracy, MatchError> {
    let name = seat.name();
    let chosen = match seat {
        Seat::Agent { spec, factory } => by_agents(trial, spec, &name, *factory, progress)?,
        Seat::Batch(player) => {
            let mut chosen = Vec::with_capacity(trial.positions.len());
            for (c, part) in trial.positions.chunks(BATCH).enumerate() {
                let slots: Vec<usize> = (c * BATCH..c * BATCH + part.len()).collect();
                let states: Vec<_> = part.iter().map(|p| p.state).collect();
                let mut rngs: Vec<ChaCha8Rng> = slots
                    .iter()
                    .map(|&i| position_stream(trial.seed, &name, trial.first + i as u64))
                    .collect();
                let started = Instant::now();
                let actions = player.choose_batch(&slots, &states, &mut rngs);
                let each = started.elapsed().as_secs_f64() / part.len() as f64;
                chosen.extend(actions.into_iter().map(|a| (a, each)));
                progress(chosen.len() as u64);
            }
            chosen
        }
    };
    let mut accuracy = Accuracy::new(&name);
    for (i, (position, (action, seconds))) in trial.positions.iter().zip(chosen).enumerate() {
        if !position.state.is_legal(action) {
            return Err(MatchError::IllegalMove {
                agent: name,
                message: format!(
                    "action {action} in position {} of the set, whose legal actions are {:?}",
                    trial.first + i as u64,
                    position.state.legal_actions().collect::<Vec<_>>()
                ),
            });
        }
        accuracy.add(position, action, seconds);
    }
    Ok(accuracy)
}

/// The move and its time in each position, chosen by agents `factory(spec)`, one per thread,
/// each taking the next position not yet taken; each position's stream drawn from the agent's
/// `name`.
fn by_agents(
    trial: &Trial,
    spec: &AgentSpec,
    name: &str,
    factory: &Factory,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<(usize, f64)>, MatchError> {
    factory(spec)?
        .can_play(&trial.rules)
        .map_err(MatchError::Config)?;
    let positions = trial.positions;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<Result<(usize, usize, f64), MatchError>>();
    std::thread::scope(|scope| {
        for _ in 0..thread_count(trial.threads, positions.len()) {
            let send = send.clone();
            let (next, failed) = (&next, &failed);
            scope.spawn(move || {
                let mut agent: Box<dyn Agent> = match factory(spec) {
                    Ok(agent) => agent,
                    Err(e) => {
                        failed.store(true, Ordering::Relaxed);
                        let _ = send.send(Err(e.into()));
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= positions.len() || failed.load(Ordering::Relaxed) {
                        return;
                    }
                    agent.new_game();
                    let mut rng = position_stream(trial.seed, name, trial.first + i as u64);
                    let started = Instant::now();
                    let action = agent.choose(&positions[i].state, &mut rng);
                    let seconds = started.elapsed().as_secs_f64();
                    if send.send(Ok((i, action, seconds))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(send);
        let mut chosen: Vec<Option<(usize, f64)>> = vec![None; positions.len()];
        let mut done = 0;
        let mut error = None;
        for received in receive {
            match received {
                Ok((i, action, seconds)) => {
                    chosen[i] = Some((action, seconds));
                    done += 1;
                    progress(done);
                }
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(chosen
                .into_iter()
                .map(|c| c.expect("every position was played"))
                .collect()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::Paired;

    fn split(only_first: u64, only_second: u64) -> Paired {
        Paired {
            n: 500,
            only_first,
            only_second,
        }
    }

    #[test]
    fn mcnemar_is_the_two_sided_binomial_tail_of_the_discordant_positions() {
        assert_eq!(split(0, 0).p_value(), 1.0);
        assert_eq!(split(5, 5).p_value(), 1.0);
        // 10 to 0: 2 / 2^10.
        assert!((split(10, 0).p_value() - 2.0 / 1024.0).abs() < 1e-12);
        assert_eq!(split(10, 0).p_value(), split(0, 10).p_value());
        // 8 to 2 of 10: 2 * (1 + 10 + 45) / 1024.
        assert!((split(8, 2).p_value() - 112.0 / 1024.0).abs() < 1e-12);
        // Many discordant positions, evenly split and not: no underflow.
        assert!((split(1500, 1500).p_value() - 1.0).abs() < 1e-9);
        let uneven = split(1600, 1400).p_value();
        assert!(uneven > 0.0 && uneven < 0.001, "{uneven}");
        assert_eq!(split(30, 10).difference(), Some(0.04));
    }
}
