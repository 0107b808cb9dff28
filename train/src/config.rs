//! The settings of a training run, [`TrainConfig`]: one declaration of every setting and its
//! default ([`Default`]), the checks that refuse settings that cannot train ([`TrainConfig::validate`]),
//! and the reader of a config file (TOML or JSON, as rules files are read). Both trainers read
//! it: `sowing train` (its flags override a `--config FILE` or the defaults) and the Ray driver
//! of the Python package (`python -m sowing.ray.train`, through the binding). Every checkpoint's
//! `meta.json` holds it as `args`, the name its field had before it existed, so old runs load.
//!
//! Built without the feature `torch`: the Python package reads it without libtorch.

use serde::{Deserialize, Serialize};
use sowing_agents::AgentSpec;
use sowing_agents::az::Body;
use sowing_agents::az::checkpoint::FileDigest;
use sowing_agents::puct::MAX_SIMULATIONS;
use sowing_env::MAX_HOLES;
use sowing_exact::memory::MAX_THREADS;
use std::path::{Path, PathBuf};

/// The settings of a run. Each field is the flag `--field-name` of `sowing train` and the key
/// `field_name` of a config file; `threads` is the machine's, not the run's (not written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainConfig {
    /// Preset to train on (see `sowing variants`); required unless --resume.
    pub variant: Option<String>,
    /// Stop after this many iterations in all (counting those of a resumed run).
    pub iterations: Option<u32>,
    /// Stop starting new iterations once this many minutes of this session have passed.
    pub minutes: Option<f64>,
    /// Seed of every random choice of the run.
    pub seed: u64,
    /// Run directory for checkpoints, metrics.csv and the learning-curve plots
    /// (default runs/az-VARIANT-sSEED).
    pub out: Option<PathBuf>,
    /// Checkpoint folders kept: the newest N (at least 1; the newest is the one a run resumes
    /// from and `az:RUN` plays), besides those --keep-every keeps; older ones are removed once
    /// the next is written. The run's history stays whole in every meta.json and metrics.csv.
    pub keep_last: u32,
    /// Also keep every M-th iteration's checkpoint (iterations M, 2M, ...), so that the
    /// network's progress can be replayed later; 0 keeps none this way. With the defaults a
    /// 10-minute run of ~400 iterations leaves ~25 folders.
    pub keep_every: u32,
    /// Width of the network's hidden layers.
    pub hidden: usize,
    /// Residual blocks of the network.
    pub blocks: usize,
    /// The network's body: `mlp`, a residual MLP over the whole input, or `ring`, a residual
    /// convolution over the ring of holes (circular padding; --hidden channels per hole).
    pub net: Body,
    /// Give the network the one-move look-ahead features (what each move captures, the
    /// opponent's best capture after it, a game it ends): `--lookahead false` for the board alone.
    pub lookahead: bool,
    /// Lay the network out for boards of up to this many holes per row (an MLP only): a
    /// smaller board's input is spread into the layout with its size as an input, so that one
    /// network's weights serve every board up to the span, and a run of one board can start
    /// from the weights of another's (--init-from). None (the default): laid out for the
    /// variant's board alone.
    pub span: Option<usize>,
    /// Start from the weights of this checkpoint (a run directory, its newest checkpoint, or an
    /// `iter-NNNNNN` folder) instead of fresh ones: a network of the same shape, of this
    /// variant or, with a --span that covers both boards, of another. Only the weights come
    /// from it; the optimiser, the replay buffer and the iteration count start afresh.
    pub init_from: Option<PathBuf>,
    /// The size and hash of the --init-from checkpoint's weights when the run began (set by the
    /// trainer).
    pub init_from_digest: Option<FileDigest>,
    /// PUCT simulations per self-play move.
    pub simulations: u32,
    /// How self-play searches the root. `puct`: AlphaZero's (Dirichlet noise, moves drawn by
    /// visits for --temperature-plies, visit counts as the policy target). `gumbel`: Gumbel
    /// AlphaZero's (actions sampled by Gumbel-top-k, simulations shared by sequential halving,
    /// the halving's winner played for --temperature-plies and the best without the Gumbel
    /// draws after, the improved policy softmax(logits + sigma(completed Q)) as the target; no
    /// Dirichlet noise).
    pub root: RootSearch,
    /// With `--root gumbel`: the most actions sequential halving considers.
    pub considered: u32,
    /// Playout-cap randomisation (KataGo): the chance that a self-play move is searched in full
    /// (--simulations, root noise) and becomes a sample; the other moves get a fast search of
    /// --fast-simulations without noise and are not taught. 1 (the default): every move in full.
    pub full_fraction: f64,
    /// With --full-fraction below 1: the simulations of a fast search.
    pub fast_simulations: u32,
    /// Reanalysis (MuZero Reanalyse): after each iteration's self-play, this many older
    /// positions of the replay buffer per new position are searched again by the network as it
    /// is then (no root noise) and given the new search's policy target and value (mixed with
    /// the game's result by --value-mix), so that old games stop teaching what older networks
    /// thought. 0 (the default): none. Each costs a self-play move's search at
    /// --reanalyse-simulations.
    pub reanalyse: f64,
    /// Simulations of a reanalysis search (default: --simulations).
    pub reanalyse_simulations: Option<u32>,
    /// Self-play games per iteration.
    pub games_per_iteration: u32,
    /// Self-play games each worker plays at once (their leaves are evaluated in one batch); with
    /// --threads T, T times as many in all. Per worker, because halving each worker's batch
    /// on 2 threads cost 8% of the positions per CPU-second (benches/self_play.rs).
    pub parallel_games: u32,
    /// PUCT exploration constant, in self-play and when the network plays (evaluation, `az:`).
    /// Low, because the look-ahead input makes the priors sharp: at 64 simulations 0.3-0.75
    /// played best against mcts:1000, 1.5 and 3 worse.
    pub c_puct: f32,
    /// Dirichlet concentration of the root noise.
    pub dirichlet_alpha: f32,
    /// Weight of the root noise in the priors.
    pub noise_fraction: f32,
    /// Plies at the start of each self-play game whose move is drawn in proportion to visits;
    /// later moves take the most visited action.
    pub temperature_plies: u32,
    /// Each self-play game starts after a number of uniformly random plies drawn from 0 to this
    /// (not recorded as training positions), so that the network also learns positions that
    /// its own play from the start would not reach.
    pub opening_plies: u32,
    /// Value target = (1 - m) * game result + m * root search value, for each position.
    pub value_mix: f32,
    /// How much of the game result (above) is its margin: (1 - w) * (+1, 0 or -1) + w * the
    /// mover's captures less the opponent's, over the seeds in play. 0 (the default): the
    /// result alone; below 1, so that a win still counts above a draw and a loss. Not with
    /// --reanalyse, whose positions keep their result without the margin.
    pub margin_weight: f32,
    /// Positions the replay buffer holds.
    pub replay_capacity: usize,
    /// Training batch size.
    pub batch_size: usize,
    /// Times each new position is sampled for training, on average: sets the training steps
    /// per iteration to positions * reuse / batch size.
    pub sample_reuse: f64,
    /// Learn while self-play plays: each iteration's training steps run on the calling thread
    /// while the self-play workers play, on the replay buffer as it was before that iteration's
    /// games (which are learnt from one iteration later), so that the core self-play leaves
    /// free while the trainer learns is used. A run is fixed by its seed with or without it, but
    /// they are different runs.
    pub overlap: bool,
    /// AdamW learning rate.
    pub lr: f64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f64,
    /// Baselines played after every iteration, comma-separated agent specs.
    pub baselines: String,
    /// Games against each baseline per evaluation (half from each side); 0 skips the games
    /// (accuracy on --eval-positions is still measured).
    pub eval_games: u32,
    /// Evaluate after the first iteration and every this many iterations (the others' rows in
    /// metrics.csv have no results): evaluation against mcts:1000 and alphabeta:4 costs as much
    /// as self-play, time that a short run may rather spend learning.
    pub eval_every: u32,
    /// Uniformly random plies that open each evaluation game (both games of a side-swapped
    /// pair share the opening), so that deterministic players meet in varied games.
    pub eval_opening: u32,
    /// PUCT simulations per move of the network in evaluation games and on the evaluation
    /// positions.
    pub eval_simulations: u32,
    /// Exact positions (a `sowing positions` file) on which every evaluation measures how often
    /// the network's move keeps the result and the best margin. Default: the variant's committed
    /// set, data/positions/VARIANT.jsonl, when it exists (from the working directory); none
    /// otherwise. A resumed run measures the same file, and refuses it if it changed.
    pub eval_positions: Option<PathBuf>,
    /// The size and hash of `eval_positions` when the run began (set by the trainer).
    pub eval_positions_digest: Option<FileDigest>,
    /// A tablebase of the variant (`sowing tablebase build`): in self-play, every position it
    /// holds, root or leaf, is valued exactly and given its perfect moves as priors, so that the
    /// endgame's samples carry exact values and perfect moves as targets. Evaluation (games and
    /// accuracy) does not use it: it measures the network alone.
    pub tablebase: Option<PathBuf>,
    /// Self-play workers and threads for the baselines' moves (default: all cores); self-play
    /// results depend on it.
    #[serde(skip_serializing)]
    pub threads: Option<usize>,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            variant: None,
            iterations: None,
            minutes: None,
            seed: 0,
            out: None,
            keep_last: 5,
            keep_every: 20,
            hidden: 64,
            blocks: 2,
            net: Body::Mlp,
            lookahead: true,
            span: None,
            init_from: None,
            init_from_digest: None,
            simulations: 64,
            root: RootSearch::Puct,
            considered: 16,
            full_fraction: 1.0,
            fast_simulations: 16,
            reanalyse: 0.0,
            reanalyse_simulations: None,
            games_per_iteration: 256,
            parallel_games: 128,
            c_puct: 0.5,
            dirichlet_alpha: 1.0,
            noise_fraction: 0.25,
            temperature_plies: 12,
            opening_plies: 4,
            value_mix: 0.5,
            margin_weight: 0.0,
            replay_capacity: 60_000,
            batch_size: 256,
            sample_reuse: 4.0,
            overlap: false,
            lr: 2e-3,
            weight_decay: 1e-4,
            baselines: "random,greedy,alphabeta:4,mcts:1000".to_string(),
            eval_games: 20,
            eval_every: 1,
            eval_opening: 2,
            eval_simulations: 64,
            eval_positions: None,
            eval_positions_digest: None,
            tablebase: None,
            threads: None,
        }
    }
}

/// How self-play searches the root (`--root`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootSearch {
    /// AlphaZero's PUCT with Dirichlet noise; visit counts as the policy target.
    #[default]
    Puct,
    /// Gumbel AlphaZero's sequential halving; the improved policy as the target.
    Gumbel,
}

impl std::str::FromStr for RootSearch {
    type Err = String;

    fn from_str(text: &str) -> Result<RootSearch, String> {
        match text {
            "puct" => Ok(RootSearch::Puct),
            "gumbel" => Ok(RootSearch::Gumbel),
            other => Err(format!(
                "unknown root search {other:?}; known: puct, gumbel"
            )),
        }
    }
}

/// The defaults of settings that runs begun before the setting existed did without, by field:
/// a `meta.json` that lacks one gets these (what those runs did), not today's defaults.
/// `keep_last` keeps every folder, so that resuming such a run removes nothing its owner kept.
const BEFORE_THEY_EXISTED: [OldDefault; 5] = [
    ("keep_last", || serde_json::json!(u32::MAX)),
    ("keep_every", || serde_json::json!(0)),
    ("lookahead", || serde_json::json!(false)),
    ("opening_plies", || serde_json::json!(0)),
    ("eval_every", || serde_json::json!(1)),
];

/// A setting, and the value of runs begun before it existed.
type OldDefault = (&'static str, fn() -> serde_json::Value);

/// The settings a config file may not give: the trainer records them.
const RECORDED: [&str; 2] = ["eval_positions_digest", "init_from_digest"];

/// The most `--sample-reuse`: past it an iteration's training steps outnumber any use, and one
/// iteration could outlast every time budget.
pub const MAX_SAMPLE_REUSE: f64 = 1000.0;

/// The most `--reanalyse`: each reanalysed position costs a self-play move's search, so past
/// it an iteration's reanalysis would outlast its games many times over.
pub const MAX_REANALYSE: f64 = 16.0;

/// The largest `--lr`: AdamW's steps are about the learning rate in size, so beyond 1 every
/// step overshoots any weight of a network that learns.
pub const MAX_LR: f64 = 1.0;

/// The largest `--weight-decay`: decoupled decay shrinks each weight by `lr * decay` a step.
pub const MAX_WEIGHT_DECAY: f64 = 1.0;

/// A config file, or settings, that cannot be used: the message names what and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl TrainConfig {
    /// The names of the settings (the fields), as config files and `meta.json` spell them.
    pub fn names() -> Vec<String> {
        let mut names: Vec<String> = match serde_json::to_value(TrainConfig::default()) {
            Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
            _ => Vec::new(),
        };
        names.push("threads".to_string());
        names.sort();
        names
    }

    /// The settings of a config file: TOML when its name ends in `.toml` (any case), JSON
    /// otherwise; a UTF-8 byte order mark is skipped. Settings it lacks take their defaults;
    /// an unknown one is refused, naming it. The settings are not validated (see
    /// [`TrainConfig::validate`]): a file may leave the budget to the command line.
    pub fn read(path: &Path) -> Result<TrainConfig, ConfigError> {
        let settings = TrainConfig::read_settings(path)?;
        TrainConfig::from_settings(serde_json::Value::Object(settings))
            .map_err(|e| ConfigError(format!("config file {}: {e}", path.display())))
    }

    /// The settings a config file names, by name, each a known setting (see
    /// [`TrainConfig::read`]), for a caller that lays other settings over them.
    pub fn read_settings(path: &Path) -> Result<Settings, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("cannot read config file {}: {e}", path.display())))?;
        let toml = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
        let read = if toml {
            settings_of_toml(&text)
        } else {
            settings_of_json(&text)
        };
        read.map_err(|e| ConfigError(format!("config file {}: {e}", path.display())))
    }

    /// The settings of JSON text (an object of settings), as [`TrainConfig::read`] reads them.
    pub fn from_json(text: &str) -> Result<TrainConfig, ConfigError> {
        TrainConfig::from_settings(serde_json::Value::Object(settings_of_json(text)?))
    }

    /// The settings of TOML text, as [`TrainConfig::read`] reads them.
    pub fn from_toml(text: &str) -> Result<TrainConfig, ConfigError> {
        TrainConfig::from_settings(serde_json::Value::Object(settings_of_toml(text)?))
    }

    /// Settings given as a JSON object (a config file's, or the Python driver's): each name
    /// must be a setting; missing ones take their defaults.
    pub fn from_settings(value: serde_json::Value) -> Result<TrainConfig, ConfigError> {
        let value = serde_json::Value::Object(known(value)?);
        serde_path_to_error::deserialize(value)
            .map_err(|e| ConfigError(format!("setting {}: {}", e.path(), cut(e.inner()))))
    }

    /// The settings of a run as its `meta.json` records them (`args`), old runs' included:
    /// what a run lacks takes the value runs had before the setting existed
    /// ([`BEFORE_THEY_EXISTED`]); names that are not settings (what another trainer records
    /// beside them) are left unread.
    pub fn from_run(args: &serde_json::Value) -> Result<TrainConfig, String> {
        let serde_json::Value::Object(map) = args else {
            return Err("its args are not an object of settings".to_string());
        };
        let names = TrainConfig::names();
        let mut map: serde_json::Map<String, serde_json::Value> = map
            .iter()
            .filter(|(k, _)| names.contains(k) && k.as_str() != "threads")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (name, old) in BEFORE_THEY_EXISTED {
            map.entry(name).or_insert_with(old);
        }
        serde_path_to_error::deserialize(serde_json::Value::Object(map))
            .map_err(|e| format!("args.{}: {}", e.path(), cut(e.inner())))
    }

    /// The settings as a config file holds them, JSON (without `threads`, the machine's, and
    /// what the trainer records).
    pub fn to_json(&self) -> String {
        let mut value = serde_json::to_value(self).expect("settings serialise");
        if let Some(map) = value.as_object_mut() {
            for name in RECORDED {
                map.remove(name);
            }
        }
        serde_json::to_string_pretty(&value).expect("settings serialise")
    }

    /// The preset name, or an error when none was given.
    pub fn variant_name(&self) -> Result<&str, ConfigError> {
        self.variant
            .as_deref()
            .ok_or_else(|| ConfigError("--variant is required (or --resume DIR)".to_string()))
    }

    /// The run directory.
    pub fn out_dir(&self) -> Result<PathBuf, ConfigError> {
        match &self.out {
            Some(dir) => Ok(dir.clone()),
            None => Ok(PathBuf::from(format!(
                "runs/az-{}-s{}",
                self.variant_name()?,
                self.seed
            ))),
        }
    }

    /// The baselines' specs.
    pub fn baseline_specs(&self) -> Result<Vec<AgentSpec>, ConfigError> {
        self.baselines
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse()
                    .map_err(|e: sowing_agents::SpecError| ConfigError(e.to_string()))
            })
            .collect()
    }

    /// Refuse settings that cannot train, naming the flag and what is allowed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad =
            |flag: &str, allowed: &str| Err(ConfigError(format!("--{flag} must be {allowed}")));
        if self.iterations.is_none() && self.minutes.is_none() {
            return bad("iterations or --minutes", "given (the training budget)");
        }
        if self.minutes.is_some_and(|m| !(m > 0.0 && m.is_finite())) {
            return bad("minutes", "a positive number");
        }
        if self.hidden < 2 || self.hidden > 4096 {
            return bad("hidden", "between 2 and 4096");
        }
        if self.blocks > 64 {
            return bad("blocks", "at most 64");
        }
        if let Some(span) = self.span {
            // The board's own holes are checked against it once the variant is read.
            if !(1..=MAX_HOLES).contains(&span) {
                return bad("span", &format!("1 to {MAX_HOLES} holes per row"));
            }
            if self.net != Body::Mlp {
                return bad("span", "given with the mlp body only (--net mlp)");
            }
        }
        if self.simulations == 0 || self.eval_simulations == 0 {
            return bad("simulations and --eval-simulations", "at least 1");
        }
        if self.considered == 0 || self.considered > 64 {
            return bad("considered", "between 1 and 64");
        }
        if !(self.full_fraction > 0.0 && self.full_fraction <= 1.0) {
            return bad("full-fraction", "above 0 and at most 1");
        }
        let capped = self.full_fraction < 1.0;
        if capped && (self.fast_simulations == 0 || self.fast_simulations > self.simulations) {
            return bad(
                "fast-simulations",
                "at least 1 and at most --simulations (with --full-fraction below 1)",
            );
        }
        if !(self.reanalyse >= 0.0 && self.reanalyse <= MAX_REANALYSE) {
            return bad(
                "reanalyse",
                &format!(
                    "between 0 and {MAX_REANALYSE} (older positions searched again per new one; \
                     0, the default, for none)"
                ),
            );
        }
        if self
            .reanalyse_simulations
            .is_some_and(|s| s == 0 || s > MAX_SIMULATIONS)
        {
            return bad(
                "reanalyse-simulations",
                &format!("between 1 and {MAX_SIMULATIONS}"),
            );
        }
        if self.eval_every == 0 {
            return bad("eval-every", "at least 1");
        }
        if self.keep_last == 0 {
            return bad(
                "keep-last",
                "at least 1 (the newest checkpoint is the run's state)",
            );
        }
        if self.games_per_iteration == 0 || self.parallel_games == 0 {
            return bad("games-per-iteration and --parallel-games", "at least 1");
        }
        if !(self.value_mix >= 0.0 && self.value_mix <= 1.0) {
            return bad("value-mix", "between 0 and 1");
        }
        if !(self.margin_weight >= 0.0 && self.margin_weight < 1.0) {
            return bad(
                "margin-weight",
                "at least 0 and below 1 (0, the default, for none)",
            );
        }
        if self.margin_weight > 0.0 && self.reanalyse > 0.0 {
            return bad(
                "margin-weight",
                "0 with --reanalyse (a reanalysed position keeps its result without the margin)",
            );
        }
        if !(self.noise_fraction >= 0.0 && self.noise_fraction <= 1.0) {
            return bad("noise-fraction", "between 0 and 1");
        }
        if !positive(f64::from(self.dirichlet_alpha)) || !positive(f64::from(self.c_puct)) {
            return bad("dirichlet-alpha and --c-puct", "positive");
        }
        if self.batch_size == 0 || self.replay_capacity < self.batch_size {
            return bad("batch-size", "at least 1 and at most --replay-capacity");
        }
        if !positive(self.sample_reuse)
            || !positive(self.lr)
            || !(positive(self.weight_decay) || self.weight_decay == 0.0)
        {
            return bad(
                "sample-reuse, --lr and --weight-decay",
                "positive (decay may be 0)",
            );
        }
        if self.sample_reuse > MAX_SAMPLE_REUSE {
            return bad(
                "sample-reuse",
                &format!(
                    "at most {MAX_SAMPLE_REUSE} (times each new position is trained on, on \
                     average; the default is 4)"
                ),
            );
        }
        if self.lr > MAX_LR {
            return bad(
                "lr",
                &format!("at most {MAX_LR} (AdamW's step size; the default is 0.002)"),
            );
        }
        if self.weight_decay > MAX_WEIGHT_DECAY {
            return bad(
                "weight-decay",
                &format!("at most {MAX_WEIGHT_DECAY} (the default is 0.0001)"),
            );
        }
        if self.threads.is_some_and(|t| t > MAX_THREADS) {
            return bad("threads", "at most 1024");
        }
        for spec in self.baseline_specs()? {
            spec.build().map_err(|e| ConfigError(e.to_string()))?;
        }
        Ok(())
    }
}

/// The settings a resumed run takes from its command line: its budget, its threads and which of
/// its checkpoints it keeps (names of [`TrainConfig`]'s fields). Every other setting is the
/// run's own, since changing it would make the rest of the run another run.
pub const RESUME_CHANGES: [&str; 5] = [
    "iterations",
    "minutes",
    "threads",
    "keep_last",
    "keep_every",
];

/// Settings by name, as a config file gives them.
pub type Settings = serde_json::Map<String, serde_json::Value>;

/// The settings of JSON text.
fn settings_of_json(text: &str) -> Result<Settings, ConfigError> {
    let value: serde_json::Value = serde_json::from_str(without_bom(text))
        .map_err(|e| ConfigError(format!("not valid JSON: {}", cut(&e))))?;
    known(value)
}

/// The settings of TOML text.
fn settings_of_toml(text: &str) -> Result<Settings, ConfigError> {
    let table: toml::Table = toml::from_str(without_bom(text))
        .map_err(|e| ConfigError(format!("not valid TOML: {}", cut(&e))))?;
    let value = serde_json::to_value(table)
        .map_err(|e| ConfigError(format!("not valid TOML: {}", cut(&e))))?;
    known(value)
}

/// `value` as settings: an object whose every name is a setting a file may give.
fn known(value: serde_json::Value) -> Result<Settings, ConfigError> {
    let serde_json::Value::Object(map) = value else {
        return Err(ConfigError(
            "the settings must be a table (an object) of names and values".to_string(),
        ));
    };
    let names = TrainConfig::names();
    for key in map.keys() {
        if RECORDED.contains(&key.as_str()) {
            return Err(ConfigError(format!(
                "{key} is recorded by the trainer, not set"
            )));
        }
        if !names.contains(key) {
            return Err(ConfigError(format!(
                "unknown setting {key:?}; the settings are: {}",
                names.join(", ")
            )));
        }
    }
    Ok(map)
}

/// Whether `x` is a finite number above zero.
fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// `text` without the UTF-8 byte order mark it may start with (editors on Windows write one).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// A parser's message, its long lines (which may echo the file) cut.
fn cut(e: &impl std::fmt::Display) -> String {
    sowing_env::Error::cut_lines(e.to_string().trim())
}
