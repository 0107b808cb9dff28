//! The AlphaZero-style trainer, read top to bottom: the run's arguments, then one iteration
//! (self-play with batched PUCT, reanalysis of older positions if asked, training on the replay
//! buffer, evaluation against the baselines and on exact positions, checkpoint), then starting
//! and resuming.
//!
//! Every random choice comes from ChaCha streams derived from `(seed, iteration, game)`, and the
//! optimiser moments and the replay buffer are checkpointed with the weights, so on the CPU a run
//! resumed from iteration `k` repeats exactly what an uninterrupted run does after `k`.

use crate::adam::AdamW;
use crate::config::{ConfigError, RESUME_CHANGES, RootSearch, TrainConfig};
use crate::rating::{self, MatchResult, Z95_ROUNDED};
use crate::replay::{Origin, ReplayBuffer, Sample};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_agents::AgentSpec;
use sowing_agents::Evaluation;
use sowing_agents::Evaluator;
use sowing_agents::TablebaseEvaluator;
use sowing_agents::az::Playing;
use sowing_agents::az::checkpoint::{
    self, CheckpointError, FileDigest, Meta, RunLock, SAFETENSORS, TRAINER, WEIGHTS,
};
use sowing_agents::az::network::{Body, NetConfig, PolicyValueNet};
use sowing_agents::az::puct::reanalyse::{REANALYSE, reanalyse_dealt};
use sowing_agents::az::puct::self_play::{
    self, PlayoutCap, SELF_PLAY, SelfPlayConfig, stream, value_target,
};
use sowing_agents::az::puct::{GumbelConfig, PuctConfig, Root, SearchSpec};
use sowing_env::{Rules, State};
use sowing_eval::accuracy::{self, Kept};
use sowing_eval::matches;
use sowing_eval::stats::{Rate, rate_against};
use sowing_exact::memory;
use sowing_exact::positions::PositionSet;
use sowing_exact::shared_tablebase;
use sowing_exact::tablebase::Tablebase;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use tch::{Device, Kind, Tensor, nn};

impl TrainConfig {
    fn threads(&self) -> usize {
        self.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
    }

    fn gumbel(&self) -> Option<GumbelConfig> {
        (self.root == RootSearch::Gumbel).then(|| GumbelConfig {
            considered: self.considered,
            ..GumbelConfig::default()
        })
    }

    fn puct(&self, simulations: u32) -> PuctConfig {
        PuctConfig {
            simulations,
            c_puct: self.c_puct,
            dirichlet_alpha: self.dirichlet_alpha,
            noise_fraction: self.noise_fraction,
            leaf_batch: 1,
        }
    }

    /// Refuse evaluation settings that `sowing arena` refuses, by its own checks: baselines
    /// listed twice or too many, an odd number of games, an opening as long as a game may last or
    /// one that random play seldom reaches (tried on the baselines' round robin, the first match
    /// an evaluation plays). No games (`--eval-games 0`, no baselines) need none of this.
    fn check_evaluation(&self, rules: &Rules) -> Result<(), TrainError> {
        let baselines = self.baseline_specs()?;
        if self.eval_games == 0 || baselines.is_empty() {
            return Ok(());
        }
        sowing_eval::arena::check_agents(&baselines)
            .map_err(|e| TrainError::Args(format!("--baselines: {e}")))?;
        let pairs = (baselines.len() * (baselines.len() - 1) / 2).max(1) as u64;
        sowing_eval::arena::check_games(self.eval_games, pairs, false)
            .map_err(|e| TrainError::Args(format!("--eval-games: {e} (or 0 for none)")))?;
        let round_robin = matches::Match {
            rules: *rules,
            seed: seed_from(stream(self.seed, EVALUATION, 0, u32::MAX)),
            salts: matches::Salts::RATING,
            opening_plies: self.eval_opening,
            openings: matches::Openings::Random,
            pairings: vec![matches::Pairing {
                a: 0,
                b: 1,
                games: 0..u64::from(self.eval_games),
            }],
            threads: 1,
            keep_records: false,
        };
        matches::check_openings(&round_robin)
            .map_err(|e| TrainError::Args(format!("--eval-opening: {e}")))
    }

    /// Refuse a run that needs more memory than there is, before anything is allocated: the
    /// network with its gradients and AdamW's two moments, a copy per self-play worker, the
    /// replay buffer, and an iteration's self-play samples (its games at [`SAMPLE_PLIES`]).
    fn check_memory(&self, holes: usize) -> Result<(), TrainError> {
        let net = NetConfig {
            holes,
            hidden: self.hidden,
            blocks: self.blocks,
            lookahead: self.lookahead,
            body: self.net,
            span: self.span,
        };
        let floats = |n: u128| n * 4;
        // Its input, policy and value, and the position it came from (for reanalysis).
        let sample = floats((net.input_len() + holes + 1) as u128)
            + std::mem::size_of::<Option<Origin>>() as u128;
        let workers = self
            .threads()
            .clamp(1, self.games_per_iteration.max(1) as usize) as u128;
        let parts = [
            (
                "the network's copies",
                floats(parameters(&net)) * (4 + workers),
            ),
            ("--replay-capacity", sample * self.replay_capacity as u128),
            (
                "--games-per-iteration",
                sample * u128::from(SAMPLE_PLIES) * u128::from(self.games_per_iteration),
            ),
        ];
        let needed: u128 = parts.iter().map(|(_, b)| b).sum();
        let Some(available) = memory::available() else {
            return Ok(());
        };
        if needed <= u128::from(available) {
            return Ok(());
        }
        let detail: Vec<String> = parts
            .iter()
            .map(|(what, b)| format!("{what} {}", memory::size(*b)))
            .collect();
        Err(TrainError::Args(format!(
            "this run needs {} of memory ({}), but {} is available: give a smaller --hidden, \
             --blocks, --replay-capacity or --games-per-iteration",
            memory::size(needed),
            detail.join(", "),
            memory::size(u128::from(available))
        )))
    }
}

/// Plies a self-play game is counted at when an iteration's samples are sized: more than most
/// games last.
const SAMPLE_PLIES: u32 = 150;

/// Parameters of a network of shape `net`: the input layer, each block's norm and two square
/// layers (convolutions over three holes for a ring), the final norm, the policy head and the
/// two layers of the value head.
fn parameters(net: &NetConfig) -> u128 {
    let (h, n, i) = (
        net.hidden as u128,
        net.width() as u128,
        net.layer_input_len() as u128,
    );
    let (input, layer, policy, value_in) = match net.body {
        Body::Mlp => (i * h + h, h * h + h, h * n + n, h),
        Body::Ring => {
            let c = net.ring_channels() as u128;
            (3 * c * h + h, 3 * h * h + h, h + 1, 2 * n * h)
        }
    };
    input
        + net.blocks as u128 * (2 * h + 2 * layer)
        + 2 * h
        + policy
        + (value_in * (h / 2) + h / 2)
        + (h / 2 + 1)
}

/// The weights of checkpoint `from` (a run directory or a checkpoint folder) for a new run's
/// network `net`, and the size and hash of the checkpoint's `meta.json` (which holds its weights'
/// hashes). Its network must have the shape of `net`'s weights: the same body, width, blocks,
/// look-ahead and span; with a span it may have played another board.
fn init_weights(
    from: &Path,
    net: &NetConfig,
) -> Result<(checkpoint::Weights, FileDigest), TrainError> {
    let refused =
        |e: CheckpointError| TrainError::Args(format!("--init-from {}: {e}", from.display()));
    let dir = checkpoint::resolve(from).map_err(refused)?;
    let meta: checkpoint::PlayMeta = checkpoint::read_meta(&dir).map_err(refused)?;
    if meta.net.weights_shape() != net.weights_shape() {
        let board = if net.span.is_none() && meta.net.holes != net.holes {
            " (a network of another board needs the same --span on both runs, covering both \
             boards)"
        } else {
            ""
        };
        return Err(TrainError::Args(format!(
            "--init-from {}: its network is of {}, this run's of {}; only weights of the same \
             shape can start it{board}",
            from.display(),
            checkpoint::describe(&meta.net),
            checkpoint::describe(net)
        )));
    }
    let weights = checkpoint::Weights::read(&dir, &meta.rules, meta.net).map_err(refused)?;
    let digest = checkpoint::digest(&dir.join(checkpoint::META)).map_err(refused)?;
    Ok((weights, digest))
}

/// The evaluation positions of `args` (which names them), checked to be of `rules`.
fn read_positions(args: &TrainConfig, rules: &Rules) -> Result<PositionSet, TrainError> {
    let path = args.eval_positions.as_deref().expect("positions are named");
    let variant = args.variant.as_deref().unwrap_or("the run's rules");
    accuracy::read_set(path, variant, rules)
        .map_err(|e| TrainError::Args(format!("--eval-positions: {e}")))
}

/// The tablebase `args` names for self-play, checked to be of `rules`.
fn open_table(args: &TrainConfig, rules: &Rules) -> Result<Option<Arc<Tablebase>>, TrainError> {
    let Some(path) = &args.tablebase else {
        return Ok(None);
    };
    let table =
        shared_tablebase(path).map_err(|e| TrainError::Args(format!("--tablebase: {e}")))?;
    table
        .check_rules(rules)
        .map_err(|e| TrainError::Args(format!("--tablebase: {e}")))?;
    Ok(Some(table))
}

/// The size and hash of the evaluation positions file at `path`.
fn positions_digest(path: &Path) -> Result<FileDigest, TrainError> {
    checkpoint::digest(path).map_err(|e| match e {
        CheckpointError::Io(_, e) => TrainError::Args(format!(
            "--eval-positions: cannot read {}: {e}",
            path.display()
        )),
        other => other.into(),
    })
}

/// When `minutes` from now will be, if it is a time at all.
fn deadline(minutes: Option<f64>) -> Option<Instant> {
    let budget = std::time::Duration::try_from_secs_f64(minutes? * 60.0).ok()?;
    Instant::now().checked_add(budget)
}

/// What went wrong in training.
#[derive(Debug)]
pub enum TrainError {
    /// Arguments that cannot be used.
    Args(String),
    /// Reading or writing a checkpoint.
    Checkpoint(CheckpointError),
    /// libtorch failed.
    Torch(String),
    /// Training made the network's losses or weights infinite or not a number: nothing was
    /// written, and the run's checkpoints are those before.
    Diverged(String),
}

impl std::fmt::Display for TrainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrainError::Args(m) => f.write_str(m),
            TrainError::Checkpoint(e) => e.fmt(f),
            TrainError::Torch(m) => write!(f, "libtorch: {m}"),
            TrainError::Diverged(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for TrainError {}

impl From<ConfigError> for TrainError {
    fn from(e: ConfigError) -> Self {
        TrainError::Args(e.0)
    }
}

impl From<CheckpointError> for TrainError {
    fn from(e: CheckpointError) -> Self {
        TrainError::Checkpoint(e)
    }
}

/// What one iteration did and measured; one row of `metrics.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationMetrics {
    /// Iteration number, from 1.
    pub iteration: u32,
    /// Training time at its end, over all sessions, in seconds.
    pub seconds: f64,
    /// Self-play games played.
    pub games: u32,
    /// Self-play positions (moves searched).
    pub positions: u64,
    /// Self-play positions per second.
    pub positions_per_sec: f64,
    /// Share of self-play games South won.
    pub south_win_rate: f64,
    /// Samples in the replay buffer after the iteration.
    pub buffer: usize,
    /// Training steps taken.
    pub steps: u32,
    /// Mean policy loss (cross-entropy with the search policy) over the steps.
    pub policy_loss: f64,
    /// Mean value loss (squared error) over the steps.
    pub value_loss: f64,
    /// Older positions of the replay buffer searched again and given new targets (`--reanalyse`).
    #[serde(default)]
    pub reanalysed: u64,
    /// Results against each baseline.
    pub eval: Vec<MatchResult>,
    /// Elo of the network against the rated baselines (`random` = 0), if evaluated.
    pub elo: Option<f64>,
    /// Half-width of the Elo's 95% interval.
    pub elo_interval: Option<f64>,
    /// The network's accuracy on the evaluation positions, if measured: how often its move kept
    /// the result (of all positions, and of the critical ones) and the best margin.
    #[serde(default)]
    pub accuracy: Option<Kept>,
    /// The same for the network alone: its policy's move, without search (one simulation).
    /// The evaluation's search hides how the network itself improves (it finds what the policy
    /// misses), so this is the sharper view of learning (docs/strength.md).
    #[serde(default)]
    pub policy_accuracy: Option<Kept>,
}

/// Where an iteration has got to, for progress bars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Rating the baselines against each other (once per run): pairs done of total.
    RatingBaselines(u32, u32),
    /// Self-play: games finished of total.
    SelfPlay(u32, u32),
    /// Reanalysis: older positions searched again, of total.
    Reanalysis(u32, u32),
    /// Training: steps done of total.
    Training(u32, u32),
    /// Evaluation: games finished of total.
    Evaluation(u32, u32),
    /// Evaluation on exact positions: positions done of total.
    Accuracy(u32, u32),
}

/// The checkpoint metadata of this trainer.
pub type TrainMeta = Meta<TrainConfig, IterationMetrics>;

/// The checked `meta.json` of checkpoint folder `dir` of a run, its settings read as
/// [`TrainConfig::from_run`] reads them (so that runs begun before a setting existed load).
pub fn read_run(dir: &Path) -> Result<TrainMeta, CheckpointError> {
    let meta: Meta<serde_json::Value, IterationMetrics> = checkpoint::read_meta(dir)?;
    let args = TrainConfig::from_run(&meta.args).map_err(|why| {
        CheckpointError::Corrupt(dir.join(checkpoint::META), format!("bad metadata: {why}"))
    })?;
    Ok(Meta {
        format: meta.format,
        version: meta.version,
        iteration: meta.iteration,
        rules: meta.rules,
        net: meta.net,
        args,
        history: meta.history,
        baseline_elo: meta.baseline_elo,
        seconds: meta.seconds,
        files: meta.files,
        trainer: meta.trainer,
    })
}

/// A training run in memory.
#[derive(Debug)]
pub struct Trainer {
    args: TrainConfig,
    rules: Rules,
    dir: PathBuf,
    vs: nn::VarStore,
    net: PolicyValueNet,
    optimizer: AdamW,
    buffer: ReplayBuffer,
    iteration: u32,
    history: Vec<IterationMetrics>,
    baseline_elo: BTreeMap<String, f64>,
    seconds: f64,
    /// The evaluation positions, if any.
    positions: Option<PositionSet>,
    /// The tablebase of self-play, if any.
    table: Option<Arc<Tablebase>>,
    /// When `--minutes` of this session are up: training steps stop there, however many an
    /// iteration was to take.
    deadline: Option<Instant>,
    /// Held while the trainer lives: no other trainer writes its run directory meanwhile.
    _lock: RunLock,
}

/// The settings of a run, written into its directory when it begins.
pub const CONFIG: &str = "config.json";

const TRAINING: u64 = 2;
const EVALUATION: u64 = 3;
const ACCURACY: u64 = 4;

impl Trainer {
    /// A new run: fresh weights seeded by `args.seed`. Refuses a directory that already holds one.
    pub fn new(mut args: TrainConfig) -> Result<Trainer, TrainError> {
        args.validate()?;
        let rules =
            Rules::preset(args.variant_name()?).map_err(|e| TrainError::Args(e.to_string()))?;
        args.check_memory(rules.holes())?;
        args.check_evaluation(&rules)?;
        let net_config = NetConfig {
            holes: rules.holes(),
            hidden: args.hidden,
            blocks: args.blocks,
            lookahead: args.lookahead,
            body: args.net,
            span: args.span,
        };
        net_config
            .check_span()
            .map_err(|why| TrainError::Args(format!("--span: {why}")))?;
        // The output first: a run that cannot be written is refused before the positions and
        // the table (which may take a while to read) are opened.
        let dir = args.out_dir()?;
        sowing_exact::output_file::prepare_dir(&dir)
            .map_err(|e| TrainError::Args(format!("--out: {e}")))?;
        let lock = RunLock::acquire(&dir)?;
        if let Some(existing) = checkpoint::newest(&dir)? {
            return Err(TrainError::Args(format!(
                "{} already holds a run ({}); continue it with --resume {} or choose another --out",
                dir.display(),
                existing.display(),
                dir.display()
            )));
        }
        // The starting weights next, read and checked before anything is written.
        let init = match &args.init_from {
            Some(from) => {
                let (weights, digest) = init_weights(from, &net_config)?;
                args.init_from_digest = Some(digest);
                Some(weights)
            }
            None => None,
        };
        if args.eval_positions.is_none() {
            let committed = accuracy::committed_set(args.variant_name()?);
            args.eval_positions = committed.is_file().then_some(committed);
        }
        let positions = match &args.eval_positions {
            None => None,
            Some(path) => {
                let set = read_positions(&args, &rules)?;
                args.eval_positions_digest = Some(positions_digest(path)?);
                Some(set)
            }
        };
        let table = open_table(&args, &rules)?;
        // The run's settings, as a config file that `--config` reads (the run's own record is
        // its checkpoints' meta.json).
        checkpoint::write_file(&dir.join(CONFIG), args.to_json().as_bytes())?;
        // One intra-op thread: the batches are small, and OpenMP's spinning threads cost more
        // than they give (badly so on a busy machine); self-play runs a worker per thread.
        tch::set_num_threads(1);
        let vs = nn::VarStore::new(Device::cuda_if_available());
        let net = PolicyValueNet::seeded(&vs.root(), net_config, args.seed);
        if let Some(weights) = init {
            weights.copy_into(&vs)?;
        }
        let optimizer = AdamW::new(&vs, args.lr, args.weight_decay);
        let buffer = ReplayBuffer::new(
            net_config.input_len(),
            net_config.holes,
            args.replay_capacity,
        );
        let ends = deadline(args.minutes);
        Ok(Trainer {
            args,
            rules,
            dir,
            vs,
            net,
            optimizer,
            buffer,
            iteration: 0,
            history: Vec::new(),
            baseline_elo: BTreeMap::new(),
            seconds: 0.0,
            positions,
            table,
            deadline: ends,
            _lock: lock,
        })
    }

    /// Continue a run from its newest checkpoint: `dir` is the run directory, or its newest
    /// `iter-NNNNNN` folder (whose parent is then the run directory, where the next checkpoints
    /// go). Settings come from the checkpoint; `budget` supplies `iterations`, `minutes` and
    /// `threads`, and a `variant` in it that differs from the checkpoint's is refused.
    pub fn resume(dir: &Path, budget: &TrainConfig) -> Result<Trainer, TrainError> {
        Trainer::resume_given(dir, budget, &[])
    }

    /// [`Trainer::resume`] for a command line that gave the settings `given` (the names of
    /// [`TrainConfig`]'s fields, as a config file names them): those of [`RESUME_CHANGES`] are taken
    /// from `budget`, and any other whose value in `budget` is not the run's own is refused,
    /// naming the flag and the run's value, rather than dropped.
    pub fn resume_given(
        dir: &Path,
        budget: &TrainConfig,
        given: &[&str],
    ) -> Result<Trainer, TrainError> {
        let found = checkpoint::resolve(dir)?;
        let run = if dir.join(checkpoint::META).is_file() {
            match dir.parent() {
                Some(parent) if parent.as_os_str().is_empty() => Path::new("."),
                Some(parent) => parent,
                None => dir,
            }
        } else {
            dir
        };
        let lock = RunLock::acquire(run)?;
        let newest = checkpoint::newest(run)?;
        if newest.as_deref().is_some_and(|n| !same_folder(n, &found)) {
            return Err(TrainError::Args(format!(
                "{} is not the newest checkpoint of its run {} ({} is): resume the run with \
                 --resume {}",
                found.display(),
                run.display(),
                newest.unwrap_or_default().display(),
                run.display()
            )));
        }
        let meta = read_run(&found)?;
        if let Some(v) = &budget.variant
            && Some(v) != meta.args.variant.as_ref()
        {
            let trained = meta.args.variant.as_deref().unwrap_or("custom rules");
            return Err(CheckpointError::Mismatch(
                found,
                format!("it was trained on {trained}, not {v}"),
            )
            .into());
        }
        if !found.join(TRAINER).is_file() && found.join(checkpoint::RAY_TRAINER).is_file() {
            return Err(CheckpointError::Mismatch(
                found,
                format!(
                    "it is a checkpoint of the Ray trainer (its state is {}); resume it with \
                     python -m sowing.ray.train --resume {}",
                    checkpoint::RAY_TRAINER,
                    run.display()
                ),
            )
            .into());
        }
        if !found.join(TRAINER).is_file() {
            return Err(CheckpointError::Missing(
                found,
                format!("{TRAINER} is missing; only the newest iteration of a run can be resumed"),
            )
            .into());
        }
        refuse_changes(&meta.args, budget, given, run)?;
        let mut args = meta.args.clone();
        args.iterations = budget.iterations;
        args.minutes = budget.minutes;
        args.threads = budget.threads;
        if given.contains(&"keep_last") {
            args.keep_last = budget.keep_last;
        }
        if given.contains(&"keep_every") {
            args.keep_every = budget.keep_every;
        }
        args.out = Some(run.to_owned());
        args.validate()?;
        let positions = match &args.eval_positions {
            None => None,
            Some(path) => {
                let now = positions_digest(path)?;
                if args.eval_positions_digest != Some(now) {
                    return Err(TrainError::Args(format!(
                        "the evaluation positions {} changed since the run began (its size and \
                         hash differ), so its accuracy would not go on comparably; restore the \
                         file, or start a new run",
                        path.display()
                    )));
                }
                Some(read_positions(&args, &meta.rules)?)
            }
        };
        args.check_memory(meta.rules.holes())?;
        let table = open_table(&args, &meta.rules)?;
        tch::set_num_threads(1);
        let weights = checkpoint::Weights::read(&found, &meta.rules, meta.net)?;
        let vs = nn::VarStore::new(Device::cuda_if_available());
        let net = PolicyValueNet::new(&vs.root(), meta.net);
        weights.copy_into(&vs)?;
        let mut optimizer = AdamW::new(&vs, args.lr, args.weight_decay);
        let path = found.join(TRAINER);
        let saved: BTreeMap<String, Tensor> = Tensor::load_multi(&path)
            .map_err(|e| CheckpointError::Corrupt(path.clone(), e.to_string()))?
            .into_iter()
            .collect();
        optimizer
            .load_state(&saved)
            .map_err(|e| CheckpointError::Corrupt(path.clone(), e))?;
        let buffer = ReplayBuffer::from_state(&saved, &meta.rules)
            .map_err(|e| CheckpointError::Corrupt(path, e))?;
        let ends = deadline(args.minutes);
        Ok(Trainer {
            args,
            rules: meta.rules,
            dir: run.to_owned(),
            vs,
            net,
            optimizer,
            buffer,
            iteration: meta.iteration,
            history: meta.history,
            baseline_elo: meta.baseline_elo,
            seconds: meta.seconds,
            positions,
            table,
            deadline: ends,
            _lock: lock,
        })
    }

    /// The run's arguments.
    pub fn args(&self) -> &TrainConfig {
        &self.args
    }

    /// The rules it trains on.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Iterations completed.
    pub fn iteration(&self) -> u32 {
        self.iteration
    }

    /// Metrics of every iteration so far.
    pub fn history(&self) -> &[IterationMetrics] {
        &self.history
    }

    /// The baselines' ratings (empty before the first evaluation).
    pub fn baseline_elo(&self) -> &BTreeMap<String, f64> {
        &self.baseline_elo
    }

    /// The network.
    pub fn net(&mut self) -> &mut PolicyValueNet {
        &mut self.net
    }

    /// The network's variables, by name.
    pub fn variables(&self) -> BTreeMap<String, Tensor> {
        self.vs.variables().into_iter().collect()
    }

    /// Whether the budget allows another iteration, given this session's elapsed seconds and the
    /// length of the last iteration.
    pub fn wants_more(&self, session_seconds: f64, last_iteration_seconds: f64) -> bool {
        if self.args.iterations.is_some_and(|k| self.iteration >= k) {
            return false;
        }
        match self.args.minutes {
            Some(m) => session_seconds + 0.5 * last_iteration_seconds < m * 60.0,
            None => true,
        }
    }

    /// One iteration: self-play, training, evaluation, checkpoint. Returns its metrics.
    pub fn iterate(
        &mut self,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IterationMetrics, TrainError> {
        let started = Instant::now();
        let next = self.iteration + 1;
        let (played, (steps, policy_loss, value_loss)) = if self.args.overlap {
            // Learn from what the buffer held before this iteration's games, while they play.
            let learnt = self.history.last().map_or(0, |m| m.positions);
            self.self_play(next, Some(learnt), progress)
        } else {
            let (played, _) = self.self_play(next, None, progress);
            let learnt = self.train(next, played.positions, progress);
            (played, learnt)
        };
        self.check_finite(next, steps, policy_loss, value_loss)?;
        let SelfPlayed {
            games,
            positions,
            south_wins,
            seconds: play_secs,
            reanalysed,
        } = played;
        let eval = self.rate(next, progress)?;
        let accuracy = self.accuracy(next, self.args.eval_simulations, progress)?;
        let policy_accuracy = self.accuracy(next, 1, progress)?;
        let (elo, elo_interval) = if eval.is_empty() {
            (None, None)
        } else {
            let rated: Vec<(f64, Rate)> = eval
                .iter()
                .map(|m| {
                    let score = Rate::new(m.points(), u64::from(m.games()));
                    (self.baseline_elo[&m.opponent], score)
                })
                .collect();
            let (elo, half) = rate_against(&rated, Z95_ROUNDED);
            (Some(elo), Some(half))
        };
        self.seconds += started.elapsed().as_secs_f64();
        let metrics = IterationMetrics {
            iteration: next,
            seconds: self.seconds,
            games,
            positions,
            positions_per_sec: positions as f64 / play_secs.max(1e-9),
            south_win_rate: f64::from(south_wins) / f64::from(games.max(1)),
            buffer: self.buffer.len(),
            steps,
            policy_loss,
            value_loss,
            reanalysed,
            eval,
            elo,
            elo_interval,
            accuracy,
            policy_accuracy,
        };
        self.iteration = next;
        self.history.push(metrics.clone());
        self.save()?;
        Ok(metrics)
    }

    /// Play the iteration's self-play games and add their positions to the replay buffer.
    /// The games are dealt to one worker per thread (game `g` to worker `g % threads`), each with
    /// its own copy of the network and `parallel_games` games at a time; their
    /// positions are added worker by worker, so the buffer does not depend on timing. With
    /// `learn = Some(positions)` the training steps for `positions` new positions run on this
    /// thread while the workers play, on the buffer as it was before these games (`--overlap`);
    /// their losses are returned beside the games (zeros without).
    fn self_play(
        &mut self,
        iteration: u32,
        learn: Option<u64>,
        progress: &mut dyn FnMut(Progress),
    ) -> (SelfPlayed, (u32, f64, f64)) {
        let started = Instant::now();
        let total = self.args.games_per_iteration;
        let workers = (self.args.threads() as u32).clamp(1, total);
        let evaluators = self.evaluators(workers, iteration);
        progress(Progress::SelfPlay(0, total));
        let config = self.self_play_config();
        let mut learner = Learner {
            args: &self.args,
            net: &mut self.net,
            optimizer: &mut self.optimizer,
            buffer: &self.buffer,
            device: self.vs.device(),
            deadline: self.deadline,
        };
        let mut learnt = None;
        let Ok(played) = self_play::play_dealt(
            &self.rules,
            &config,
            self.args.seed,
            iteration,
            0,
            total,
            self.args.parallel_games.saturating_mul(workers),
            evaluators,
            &mut |done| {
                // The first report comes 20 ms into the games: the steps run while they play.
                if let (Some(positions), None) = (learn, learnt) {
                    learnt = Some(learner.train(iteration, positions, progress));
                }
                progress(Progress::SelfPlay(done, total));
            },
        );
        // Games too quick to report once leave the steps to be taken after them.
        let learnt = match (learn, learnt) {
            (Some(positions), None) => learner.train(iteration, positions, progress),
            (_, learnt) => learnt.unwrap_or((0, 0.0, 0.0)),
        };
        let positions = played.samples.len() as u64;
        for sample in played.samples {
            self.buffer.push(&Sample {
                input: sample.input,
                policy: sample.policy,
                value: sample.value,
                origin: Some(Origin {
                    state: sample.state,
                    result: sample.result,
                }),
            });
        }
        progress(Progress::SelfPlay(total, total));
        let seconds = started.elapsed().as_secs_f64();
        let reanalysed = self.reanalyse(iteration, positions, progress);
        let played = SelfPlayed {
            games: total,
            positions,
            south_wins: played.south_wins,
            seconds,
            reanalysed,
        };
        (played, learnt)
    }

    /// The network as it is now, to play with (without libtorch where it can: an MLP on the
    /// CPU); later training does not reach it.
    fn playing(&self) -> Playing {
        Playing::copy(&self.vs, &self.net)
    }

    /// One evaluator per self-play worker, each with its own copy of the network (and the
    /// table, if any, in front of it).
    fn evaluators(&self, workers: u32, iteration: u32) -> Vec<impl LeafValues + use<>> {
        let mut evaluators = Vec::new();
        for _ in 0..workers {
            let mut net = self.playing();
            // The network draws nothing from the stream; it is there for the trait.
            let mut eval_rng = stream(self.args.seed, SELF_PLAY, iteration, u32::MAX);
            let table = self.table.clone();
            evaluators.push(move |states: &[State], out: &mut [Evaluation]| {
                match &table {
                    Some(table) => TablebaseEvaluator::new(Arc::clone(table), &mut net)
                        .evaluate_batch(states, &mut eval_rng, out),
                    None => net.evaluate_batch(states, &mut eval_rng, out),
                }
                Ok::<(), Infallible>(())
            });
        }
        evaluators
    }

    /// Reanalysis (`--reanalyse R`): after an iteration's self-play has added `fresh` positions,
    /// `R * fresh` of the older positions in the buffer (drawn uniformly, without replacement,
    /// from those whose position is known) are searched again by the network as it is now,
    /// with `--reanalyse-simulations` and no root noise, and their policy targets and the
    /// search part of their value targets replaced. The positions just played are left out:
    /// the network that would search them again is the one that played them. Returns how many
    /// were searched.
    fn reanalyse(&mut self, iteration: u32, fresh: u64, progress: &mut dyn FnMut(Progress)) -> u64 {
        let wanted = (self.args.reanalyse * fresh as f64).round() as usize;
        if wanted == 0 {
            return 0;
        }
        let mut slots: Vec<usize> = (fresh as usize..self.buffer.len())
            .filter_map(|age| self.buffer.slot_of_age(age))
            .filter(|&slot| self.buffer.origin(slot).is_some())
            .collect();
        // The first `wanted` of a partial Fisher-Yates shuffle, from the iteration's stream.
        let mut rng = stream(self.args.seed, REANALYSE, iteration, u32::MAX);
        let take = wanted.min(slots.len());
        for i in 0..take {
            let j = rng.random_range(i..slots.len());
            slots.swap(i, j);
        }
        slots.truncate(take);
        if slots.is_empty() {
            return 0;
        }
        let origins: Vec<Origin> = slots
            .iter()
            .map(|&slot| {
                self.buffer
                    .origin(slot)
                    .expect("only known origins are drawn")
            })
            .collect();
        let states: Vec<State> = origins.iter().map(|o| o.state).collect();
        let workers = (self.args.threads() as u32).clamp(1, states.len() as u32);
        let evaluators = self.evaluators(workers, iteration);
        let simulations = self
            .args
            .reanalyse_simulations
            .unwrap_or(self.args.simulations);
        let spec = SearchSpec {
            puct: PuctConfig {
                noise_fraction: 0.0,
                ..self.args.puct(simulations)
            },
            root: self.args.gumbel().map_or(Root::Puct, Root::Gumbel),
            time: None,
        };
        let total = states.len() as u32;
        progress(Progress::Reanalysis(0, total));
        let Ok((targets, out_of_memory)) = reanalyse_dealt(
            &states,
            &spec,
            self.args.seed,
            iteration,
            self.args.parallel_games,
            evaluators,
            &mut |done| progress(Progress::Reanalysis(done, total)),
        );
        // Memory was checked for self-play's trees, which these do not outgrow; if a search
        // could not grow its tree regardless, the old targets stay.
        if out_of_memory {
            return 0;
        }
        for ((slot, origin), target) in slots.into_iter().zip(origins).zip(targets) {
            let value = value_target(self.args.value_mix, origin.result, target.root_value);
            self.buffer.retarget(slot, &target.policy, value);
        }
        progress(Progress::Reanalysis(total, total));
        u64::from(total)
    }

    /// Refuse to go on from training that made the losses or the weights infinite or not a
    /// number (a learning rate far too high, say): such a network would be written over the
    /// run's good checkpoints and play nothing. The trainer is of no further use after this.
    fn check_finite(
        &self,
        iteration: u32,
        steps: u32,
        policy_loss: f64,
        value_loss: f64,
    ) -> Result<(), TrainError> {
        let broken = self
            .vs
            .variables()
            .into_iter()
            .find(|(_, t)| t.isfinite().all().int64_value(&[]) == 0)
            .map(|(name, _)| name);
        let what = match broken {
            Some(name) => format!("the network's weights ({name}, and maybe others) are"),
            None if !policy_loss.is_finite() => format!("the policy loss ({policy_loss}) is"),
            None if !value_loss.is_finite() => format!("the value loss ({value_loss}) is"),
            None => return Ok(()),
        };
        let written = match self.iteration {
            0 => "no checkpoint was written".to_string(),
            last => format!(
                "the run's checkpoints end at iteration {last}, as they were (iteration \
                 {iteration} was not written)"
            ),
        };
        Err(TrainError::Diverged(format!(
            "training diverged in iteration {iteration}: after {steps} training steps {what} no \
             longer finite; {written}. A learning rate too high for the network is the usual \
             cause (this run's is --lr {}): start a new run with a smaller --lr",
            self.args.lr
        )))
    }

    /// How self-play searches and chooses its moves.
    fn self_play_config(&self) -> SelfPlayConfig {
        SelfPlayConfig {
            search: SearchSpec {
                puct: self.args.puct(self.args.simulations),
                root: self.args.gumbel().map_or(Root::Puct, Root::Gumbel),
                time: None,
            },
            temperature_plies: self.args.temperature_plies,
            opening_plies: self.args.opening_plies,
            value_mix: self.args.value_mix,
            margin_weight: self.args.margin_weight,
            lookahead: self.args.lookahead,
            playout_cap: (self.args.full_fraction < 1.0).then_some(PlayoutCap {
                full_fraction: self.args.full_fraction,
                fast_simulations: self.args.fast_simulations,
            }),
        }
    }

    /// Train on the replay buffer for `positions` new positions (see [`Learner::train`]).
    fn train(
        &mut self,
        iteration: u32,
        positions: u64,
        progress: &mut dyn FnMut(Progress),
    ) -> (u32, f64, f64) {
        Learner {
            args: &self.args,
            net: &mut self.net,
            optimizer: &mut self.optimizer,
            buffer: &self.buffer,
            device: self.vs.device(),
            deadline: self.deadline,
        }
        .train(iteration, positions, progress)
    }

    /// Play every baseline (rating them first, once per run). Empty when evaluation is off.
    fn rate(
        &mut self,
        iteration: u32,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Vec<MatchResult>, TrainError> {
        let games = self.args.eval_games;
        let baselines = self.args.baseline_specs()?;
        if games == 0 || baselines.is_empty() || !self.evaluates(iteration) {
            return Ok(Vec::new());
        }
        // Rated once per run; a run resumed with ratings under other spellings of its baselines
        // rates them again, to the same figures (the round robin is fixed by the seed).
        if baselines
            .iter()
            .any(|b| !self.baseline_elo.contains_key(&b.to_string()))
        {
            self.rate_baselines(&baselines, progress)?;
        }
        let config = self.args.puct(self.args.eval_simulations);
        let total = games * baselines.len() as u32;
        let mut results = Vec::new();
        progress(Progress::Evaluation(0, total));
        for (b, spec) in baselines.iter().enumerate() {
            let seed = seed_from(stream(self.args.seed, EVALUATION, iteration, b as u32));
            let done_before = games * b as u32;
            let setup = rating::MatchSetup {
                rules: self.rules,
                opponent: spec.clone(),
                games,
                seed,
                threads: self.args.threads(),
                opening: self.args.eval_opening,
            };
            let result =
                rating::play_network_matches(&mut self.playing(), &config, &setup, &mut |done| {
                    progress(Progress::Evaluation(done_before + done, total))
                })
                .map_err(|e| TrainError::Args(e.to_string()))?;
            results.push(result);
        }
        Ok(results)
    }

    /// Whether iteration `iteration` ends with an evaluation.
    fn evaluates(&self, iteration: u32) -> bool {
        iteration == 1 || iteration.is_multiple_of(self.args.eval_every)
    }

    /// The network's accuracy on the evaluation positions, searching `simulations` per move (1:
    /// the policy alone); `None` when there are none or no evaluation is due. Every evaluation
    /// draws the same streams.
    fn accuracy(
        &mut self,
        iteration: u32,
        simulations: u32,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Option<Kept>, TrainError> {
        let Some(set) = &self.positions else {
            return Ok(None);
        };
        if !self.evaluates(iteration) {
            return Ok(None);
        }
        let total = set.positions.len() as u32;
        progress(Progress::Accuracy(0, total));
        let seed = seed_from(stream(self.args.seed, ACCURACY, 0, 0));
        let measured = rating::network_accuracy(
            &mut self.playing(),
            &self.args.puct(simulations),
            &self.rules,
            &set.positions,
            seed,
            &mut |done| progress(Progress::Accuracy(done as u32, total)),
        )
        .map_err(|e| TrainError::Args(e.to_string()))?;
        Ok(Some(measured.kept))
    }

    /// Rate the baselines by a round robin of `eval_games` games per pair, `random` (or the first
    /// baseline) anchored at 0.
    fn rate_baselines(
        &mut self,
        baselines: &[AgentSpec],
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), TrainError> {
        let mut names = baselines.to_vec();
        if let Some(pos) = names.iter().position(|n| *n == AgentSpec::Random) {
            names.swap(0, pos);
        }
        let pairs = (names.len() * names.len().saturating_sub(1) / 2) as u32;
        progress(Progress::RatingBaselines(0, pairs));
        let seed = seed_from(stream(self.args.seed, EVALUATION, 0, u32::MAX));
        let ratings = matches::rate_round_robin(
            &self.rules,
            &names,
            &matches::build,
            u64::from(self.args.eval_games),
            seed,
            self.args.eval_opening,
            self.args.threads(),
            &mut |done| progress(Progress::RatingBaselines(done, pairs)),
        )
        .map_err(|e| TrainError::Args(e.to_string()))?;
        self.baseline_elo = names
            .iter()
            .map(AgentSpec::to_string)
            .zip(ratings)
            .collect();
        Ok(())
    }

    /// Write the checkpoint of the current iteration.
    fn save(&self) -> Result<PathBuf, TrainError> {
        let mut meta = TrainMeta {
            format: checkpoint::FORMAT.to_string(),
            version: checkpoint::VERSION,
            iteration: self.iteration,
            rules: self.rules,
            net: self.net.config(),
            args: self.args.clone(),
            history: self.history.clone(),
            baseline_elo: self.baseline_elo.clone(),
            seconds: self.seconds,
            files: BTreeMap::new(),
            trainer: None,
        };
        let mut state = self.optimizer.state();
        state.extend(self.buffer.state());
        let variables = self.variables();
        let weights: Vec<(&str, &Tensor)> =
            variables.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let state: Vec<(&str, &Tensor)> = state.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let path = checkpoint::write(&self.dir, &mut meta, |tmp| {
            checkpoint::save_tensors(&tmp.join(WEIGHTS), &weights)?;
            checkpoint::save_safetensors(&tmp.join(SAFETENSORS), &weights)?;
            checkpoint::save_tensors(&tmp.join(TRAINER), &state)
        })?;
        checkpoint::prune(
            &self.dir,
            self.iteration,
            self.args.keep_last,
            self.args.keep_every,
        )?;
        Ok(path)
    }
}

/// What values a batch of leaves for self-play and reanalysis: a worker's copy of the network.
trait LeafValues: FnMut(&[State], &mut [Evaluation]) -> Result<(), Infallible> + Send {}

impl<F: FnMut(&[State], &mut [Evaluation]) -> Result<(), Infallible> + Send> LeafValues for F {}

/// What an iteration's self-play played: games, positions, South's wins and seconds taken, and
/// the older positions reanalysed after it.
struct SelfPlayed {
    games: u32,
    positions: u64,
    south_wins: u32,
    seconds: f64,
    reanalysed: u64,
}

/// What training changes and reads, borrowed apart from the rest of the trainer so that it can
/// learn while self-play borrows the rules and the table (`--overlap`).
struct Learner<'a> {
    args: &'a TrainConfig,
    net: &'a mut PolicyValueNet,
    optimizer: &'a mut AdamW,
    buffer: &'a ReplayBuffer,
    device: Device,
    /// No step is begun after this.
    deadline: Option<Instant>,
}

impl Learner<'_> {
    /// Train on the replay buffer: `positions * sample_reuse / batch_size` AdamW steps, or as
    /// many as there is time for before the session's deadline (`--minutes`). Returns the steps
    /// taken and the mean policy and value losses.
    fn train(
        &mut self,
        iteration: u32,
        positions: u64,
        progress: &mut dyn FnMut(Progress),
    ) -> (u32, f64, f64) {
        let batch = self.args.batch_size.min(self.buffer.len());
        if batch == 0 {
            return (0, 0.0, 0.0);
        }
        let steps = ((positions as f64 * self.args.sample_reuse) / batch as f64).ceil() as u32;
        let mut rng = stream(self.args.seed, TRAINING, iteration, 0);
        let device = self.device;
        let (mut policy_sum, mut value_sum) = (0.0, 0.0);
        progress(Progress::Training(0, steps));
        let mut taken = 0;
        for step in 0..steps {
            if self.deadline.is_some_and(|end| Instant::now() >= end) {
                break;
            }
            let b = self.buffer.sample(batch, &mut rng);
            let (logits, value) = self.net.forward(&b.inputs.to_device(device));
            let policy_loss = -(b.policies.to_device(device) * logits.log_softmax(-1, Kind::Float))
                .sum_dim_intlist(-1, false, Kind::Float)
                .mean(Kind::Float);
            let value_loss = (value - b.values.to_device(device))
                .square()
                .mean(Kind::Float);
            let loss = &policy_loss + &value_loss;
            self.optimizer.backward_step(&loss);
            policy_sum += policy_loss.double_value(&[]);
            value_sum += value_loss.double_value(&[]);
            taken = step + 1;
            progress(Progress::Training(taken, steps));
        }
        let s = f64::from(taken.max(1));
        (taken, policy_sum / s, value_sum / s)
    }
}

/// Refuse settings `given` on the command line of a resumed run whose values in `budget` are
/// not the run's own (`run`'s `ours`), naming the first such flag and what the run has.
fn refuse_changes(
    ours: &TrainConfig,
    budget: &TrainConfig,
    given: &[&str],
    run: &Path,
) -> Result<(), TrainError> {
    let (ours_json, theirs_json) = (
        serde_json::to_value(ours).expect("arguments serialise"),
        serde_json::to_value(budget).expect("arguments serialise"),
    );
    for &name in given {
        // `--variant` has its own refusal (the checkpoint's rules); `--resume` is the run.
        if RESUME_CHANGES.contains(&name) || name == "resume" || name == "variant" {
            continue;
        }
        let flag = format!("--{}", name.replace('_', "-"));
        let same = match name {
            "out" => budget
                .out
                .as_deref()
                .is_some_and(|out| same_folder(out, run)),
            "tablebase" | "eval_positions" | "init_from" => {
                let path = |a: &TrainConfig| match name {
                    "tablebase" => a.tablebase.clone(),
                    "init_from" => a.init_from.clone(),
                    _ => a.eval_positions.clone(),
                };
                match (path(ours), path(budget)) {
                    (Some(a), Some(b)) => same_folder(&a, &b),
                    (a, b) => a == b,
                }
            }
            _ => ours_json.get(name) == theirs_json.get(name),
        };
        if same {
            continue;
        }
        let run_has = match name {
            "out" => format!("the run is in {} and goes on there", run.display()),
            _ => match ours_json.get(name) {
                None | Some(serde_json::Value::Null) => {
                    format!("the run in {} has no {flag}", run.display())
                }
                Some(value) => format!("the run in {} has {flag} {}", run.display(), shown(value)),
            },
        };
        let given = match theirs_json.get(name) {
            Some(serde_json::Value::Null) | None => flag.clone(),
            Some(value) => format!("{flag} {}", shown(value)),
        };
        return Err(TrainError::Args(format!(
            "{given} was given with --resume, but {run_has}, and a resumed run keeps its own \
             settings: drop {flag} to go on with the run, or start a new run with another \
             --out (only --iterations, --minutes, --threads, --keep-last and --keep-every may \
             change on --resume)"
        )));
    }
    Ok(())
}

/// A setting's value as it is typed: `64`, `0.002`, `runs/x.tb`, `random,greedy`.
fn shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether `a` and `b` name the same folder or file (one may be relative, or reached by a link).
fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A seed drawn from a stream, for code that takes a `u64`.
fn seed_from(mut rng: ChaCha8Rng) -> u64 {
    rand::Rng::next_u64(&mut rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameter_count_is_the_networks() {
        for (holes, hidden, blocks, lookahead, body) in [
            (6, 8, 1, true, Body::Mlp),
            (10, 64, 3, false, Body::Mlp),
            (8, 33, 0, true, Body::Mlp),
            (6, 8, 1, true, Body::Ring),
            (10, 16, 2, false, Body::Ring),
            (7, 33, 0, true, Body::Ring),
        ] {
            for span in [None, Some(holes), Some(12)] {
                let net = NetConfig {
                    holes,
                    hidden,
                    blocks,
                    lookahead,
                    body,
                    span: span.filter(|_| body == Body::Mlp),
                };
                let vs = nn::VarStore::new(Device::Cpu);
                let _built = PolicyValueNet::new(&vs.root(), net);
                let count: i64 = vs
                    .variables()
                    .values()
                    .map(Tensor::numel)
                    .map(|n| n as i64)
                    .sum();
                assert_eq!(parameters(&net), count as u128, "{net:?}");
            }
        }
    }
}
