//! Agent specs: the one grammar that names an agent wherever one is chosen (`random`, `greedy`,
//! `alphabeta:6`, `alphabeta:500ms`, `mcts:1000`, `mcts:200ms`, `az:PATH:64`, `az:PATH:50ms`),
//! as the type [`AgentSpec`]. After the budget come options, `KEY=VALUE`, one per colon, in any
//! order: `alphabeta:6:tb=FILE` gives the agent a tablebase, `az:PATH:64:solver=0` turns the
//! network's endgame solver off, `alphabeta:50ms:net=PATH` makes alpha-beta a hybrid whose
//! leaves a trained network values.
//!
//! A spec is parsed once, where a person or Python gives it (`str::parse`, in [`parse`]); below
//! that it travels typed, and [`AgentSpec::build`] makes its agent (once per thread: agents are
//! not `Sync`). Its [`Display`](fmt::Display) writes it back in the grammar, and reading that
//! gives the same spec, so tables and files name agents as people wrote them. `az` specs parse
//! without the feature `torch` (Python plays them with its own network); only building one
//! needs it.
//!
//! A new kind of agent is a variant of [`AgentSpec`] and of [`Kind`], an arm in [`parse`] and in
//! [`build`], a line of [`FORMS`]; a new option a variant of [`SpecOption`], its arms in
//! [`Kind::takes`] and [`parse`]. The agents themselves know nothing of specs.

mod build;
mod parse;

pub use parse::parse_budget;

use crate::agent::Agent;
use crate::budget::{Budget, MAX_NETWORK_SIMULATIONS, MAX_TIME};
use std::fmt;
use std::path::PathBuf;

/// The forms a spec may take, shown by every [`SpecError`].
pub const FORMS: &[&str] = &[
    "random",
    "greedy",
    "alphabeta:DEPTH (e.g. alphabeta:6, depth 1 to 64)",
    "alphabeta:TIME (e.g. alphabeta:500ms or alphabeta:2s, per move)",
    "alphabeta:DEPTH|TIME:net=PATH (alpha-beta with a trained network's values and policy)",
    "mcts:SIMULATIONS (e.g. mcts:1000, 1 to 10000000)",
    "mcts:TIME (e.g. mcts:200ms or mcts:1s, per move)",
    "az:PATH, az:PATH:SIMS, az:PATH:TIME (e.g. az:runs/demo:50ms, per move), \
     az:PATH[:SIMS|:TIME]:solver=NODES:leaves=N (a trained network)",
    "then options KEY=VALUE, each after a colon (e.g. alphabeta:6:tb=en-dodoi-6-20.tb)",
];

/// Leaves valued per forward pass by an `az` agent with a time per move (see
/// [`az_default_leaves`]).
pub const TIMED_LEAVES: u32 = 64;

/// The endgame solver's positions per move an `az` agent of `budget` searches unless its spec
/// says (`solver=`): none with a time per move, [`SOLVER_NODES`](sowing_exact::prove::SOLVER_NODES)
/// otherwise (why: `AzAgent::default_solver`). Python's network agent takes it from here.
pub fn az_default_solver(budget: Option<Budget>) -> u64 {
    match budget {
        Some(Budget::Time(_)) => 0,
        _ => sowing_exact::prove::SOLVER_NODES,
    }
}

/// The leaves an `az` agent of `budget` values per forward pass unless its spec says
/// (`leaves=`): [`TIMED_LEAVES`] with a time per move, 1 with a count (why:
/// `AzAgent::default_leaves`).
pub fn az_default_leaves(budget: Option<Budget>) -> u32 {
    match budget {
        Some(Budget::Time(_)) => TIMED_LEAVES,
        _ => 1,
    }
}

/// An agent, named: what [`build`](AgentSpec::build) makes, with every setting its spec gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentSpec {
    /// `random`: a uniformly random legal move.
    Random,
    /// `greedy`: the move that captures most now.
    Greedy,
    /// `alphabeta:DEPTH|TIME[:net=PATH][:tb=FILE]`.
    AlphaBeta {
        /// Depth, 1 to [`AlphaBeta::MAX_DEPTH`](crate::AlphaBeta::MAX_DEPTH), or a time per move.
        budget: Budget,
        /// `net=PATH`: a trained network (run directory or checkpoint) that values the leaves
        /// and orders the moves, a hybrid search (feature `torch`).
        network: Option<PathBuf>,
        /// `tb=FILE`: a tablebase.
        tablebase: Option<PathBuf>,
    },
    /// `mcts:SIMULATIONS|TIME[:tb=FILE]`.
    Mcts {
        /// Simulations, 1 to [`MAX_SIMULATIONS`](crate::MAX_SIMULATIONS), or a time per move.
        budget: Budget,
        /// `tb=FILE`: a tablebase.
        tablebase: Option<PathBuf>,
    },
    /// `az:PATH[:SIMS|:TIME][:solver=NODES][:leaves=N][:tb=FILE]`: a trained network.
    Az {
        /// A run directory (its newest checkpoint) or one checkpoint folder.
        path: PathBuf,
        /// Simulations, 1 to [`MAX_NETWORK_SIMULATIONS`], or a time per move; `None`: the
        /// simulations the run trained with.
        budget: Option<Budget>,
        /// `solver=NODES`: the endgame solver's positions per move, 0 (none) to
        /// [`MAX_SOLVER_NODES`](sowing_exact::prove::MAX_SOLVER_NODES); `None`: the budget's
        /// default.
        solver: Option<u64>,
        /// `leaves=N`: leaves valued per forward pass, 1 to
        /// [`MAX_LEAF_BATCH`](crate::puct::MAX_LEAF_BATCH); `None`: the budget's default.
        leaves: Option<u32>,
        /// `tb=FILE`: a tablebase.
        tablebase: Option<PathBuf>,
    },
}

/// The kinds of agent: the word a spec starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `random`.
    Random,
    /// `greedy`.
    Greedy,
    /// `alphabeta`.
    AlphaBeta,
    /// `mcts`.
    Mcts,
    /// `az`.
    Az,
}

impl Kind {
    /// Every kind, in the order of [`FORMS`].
    pub const ALL: [Kind; 5] = [
        Kind::Random,
        Kind::Greedy,
        Kind::AlphaBeta,
        Kind::Mcts,
        Kind::Az,
    ];

    /// The word of the grammar.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Random => "random",
            Kind::Greedy => "greedy",
            Kind::AlphaBeta => "alphabeta",
            Kind::Mcts => "mcts",
            Kind::Az => "az",
        }
    }

    /// The kind that `word` names.
    pub fn from_word(word: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.word() == word)
    }

    /// Whether agents of this kind take `option`.
    pub fn takes(self, option: SpecOption) -> bool {
        match option {
            SpecOption::Tablebase => matches!(self, Kind::AlphaBeta | Kind::Mcts | Kind::Az),
            SpecOption::Solver | SpecOption::Leaves => self == Kind::Az,
            SpecOption::Network => self == Kind::AlphaBeta,
        }
    }

    /// Its budget's count: what it counts and the most allowed. `None` for the kinds without
    /// a budget.
    pub fn count_limit(self) -> Option<(&'static str, u32)> {
        match self {
            Kind::Random | Kind::Greedy => None,
            Kind::AlphaBeta => Some(("depth", crate::AlphaBeta::MAX_DEPTH)),
            Kind::Mcts => Some(("simulations", crate::MAX_SIMULATIONS)),
            Kind::Az => Some(("simulations", MAX_NETWORK_SIMULATIONS)),
        }
    }
}

/// The options a spec may end with, `KEY=VALUE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecOption {
    /// `tb=FILE`.
    Tablebase,
    /// `solver=NODES`.
    Solver,
    /// `leaves=N`.
    Leaves,
    /// `net=PATH`.
    Network,
}

impl SpecOption {
    /// Every option, in the order the errors list them.
    pub const ALL: [SpecOption; 4] = [
        SpecOption::Tablebase,
        SpecOption::Solver,
        SpecOption::Leaves,
        SpecOption::Network,
    ];

    /// Its key.
    pub fn key(self) -> &'static str {
        match self {
            SpecOption::Tablebase => "tb",
            SpecOption::Solver => "solver",
            SpecOption::Leaves => "leaves",
            SpecOption::Network => "net",
        }
    }

    /// What it does, for the errors.
    pub fn help(self) -> &'static str {
        match self {
            SpecOption::Tablebase => {
                "tb=FILE: a tablebase; the agent plays perfectly where it holds the position and \
                 values its search's leaves exactly where it can"
            }
            SpecOption::Solver => {
                "solver=NODES: the endgame solver's positions per move, 0 to 1000000000 (0: none)"
            }
            SpecOption::Leaves => {
                "leaves=N: leaves the search values per forward pass, 1 to 256 (default 64 with a \
                 time per move, 1 with a count)"
            }
            SpecOption::Network => {
                "net=PATH: a trained network (run directory or checkpoint) values the search's \
                 leaves and orders its moves, a hybrid"
            }
        }
    }

    /// The kinds that take it, as the errors list them: `alphabeta, mcts, az`.
    pub fn takers(self) -> String {
        let takers: Vec<&str> = Kind::ALL
            .into_iter()
            .filter(|k| k.takes(self))
            .map(Kind::word)
            .collect();
        takers.join(", ")
    }
}

impl AgentSpec {
    /// Its kind.
    pub fn kind(&self) -> Kind {
        match self {
            AgentSpec::Random => Kind::Random,
            AgentSpec::Greedy => Kind::Greedy,
            AgentSpec::AlphaBeta { .. } => Kind::AlphaBeta,
            AgentSpec::Mcts { .. } => Kind::Mcts,
            AgentSpec::Az { .. } => Kind::Az,
        }
    }

    /// Its budget, where it has one.
    pub fn budget(&self) -> Option<Budget> {
        match self {
            AgentSpec::Random | AgentSpec::Greedy => None,
            AgentSpec::AlphaBeta { budget, .. } | AgentSpec::Mcts { budget, .. } => Some(*budget),
            AgentSpec::Az { budget, .. } => *budget,
        }
    }

    /// Its tablebase file, where it names one.
    pub fn tablebase(&self) -> Option<&PathBuf> {
        match self {
            AgentSpec::Random | AgentSpec::Greedy => None,
            AgentSpec::AlphaBeta { tablebase, .. }
            | AgentSpec::Mcts { tablebase, .. }
            | AgentSpec::Az { tablebase, .. } => tablebase.as_ref(),
        }
    }

    /// Refuse settings out of their range, as parsing does: a spec made from fields (Python's
    /// keywords) is checked here, with the messages a spec string gets.
    pub fn validate(&self) -> Result<(), SpecError> {
        let refuse = |reason: String| Err(SpecError::new(&self.to_string(), reason));
        if let Some(budget) = self.budget() {
            let (what, max) = self.kind().count_limit().unwrap_or(("count", u32::MAX));
            match budget {
                Budget::Count(n) if !(1..=max).contains(&n) => {
                    return refuse(format!("{what} {n} is out of range: 1 to {max}"));
                }
                Budget::Time(t) if t.is_zero() || t > MAX_TIME => {
                    return refuse(format!(
                        "time {} is out of range: 1ms to {}s",
                        budget.spec(),
                        MAX_TIME.as_secs()
                    ));
                }
                _ => {}
            }
        }
        if self.tablebase().is_some_and(|f| f.as_os_str().is_empty()) {
            return refuse("tb= needs the tablebase file".into());
        }
        if let AgentSpec::AlphaBeta {
            network: Some(path),
            ..
        } = self
            && path.as_os_str().is_empty()
        {
            return refuse(parse::NO_NETWORK.into());
        }
        if let AgentSpec::Az {
            path,
            solver,
            leaves,
            ..
        } = self
        {
            if path.as_os_str().is_empty() {
                return refuse(parse::NO_CHECKPOINT.into());
            }
            if solver.is_some_and(|n| !parse::solver_range().1.contains(&n)) {
                return refuse(parse::range_error(parse::solver_range()));
            }
            if leaves.is_some_and(|n| !parse::leaves_range().1.contains(&n.into())) {
                return refuse(parse::range_error(parse::leaves_range()));
            }
        }
        // A file whose name the grammar cannot hold (a part after a colon that holds `=` or
        // reads as a budget) would name another agent once written.
        if self.to_string().parse::<AgentSpec>().as_ref() != Ok(self) {
            return refuse(
                "its path cannot be written in a spec: a part after a colon holds '=' or reads \
                 as a budget"
                    .into(),
            );
        }
        Ok(())
    }

    /// The agent it names (see [`build`]). Agents are not `Sync`: code that plays on several
    /// threads builds one per thread; a tablebase named by several is read once per process.
    pub fn build(&self) -> Result<Box<dyn Agent>, SpecError> {
        build::build(self)
    }
}

/// The spec in the grammar, options in the order `solver`, `leaves`, `net`, `tb` (the agents'
/// names' order); parsing it gives the same spec.
impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind().word())?;
        match self {
            AgentSpec::Random | AgentSpec::Greedy => {}
            AgentSpec::AlphaBeta {
                budget, network, ..
            } => {
                write!(f, ":{}", budget.spec())?;
                if let Some(path) = network {
                    write!(f, ":net={}", path.display())?;
                }
            }
            AgentSpec::Mcts { budget, .. } => {
                write!(f, ":{}", budget.spec())?;
            }
            AgentSpec::Az {
                path,
                budget,
                solver,
                leaves,
                ..
            } => {
                write!(f, ":{}", path.display())?;
                if let Some(budget) = budget {
                    write!(f, ":{}", budget.spec())?;
                }
                if let Some(n) = solver {
                    write!(f, ":solver={n}")?;
                }
                if let Some(n) = leaves {
                    write!(f, ":leaves={n}")?;
                }
            }
        }
        if let Some(file) = self.tablebase() {
            write!(f, ":tb={}", file.display())?;
        }
        Ok(())
    }
}

/// The agent that `spec` names: [`AgentSpec`] parsed, then built. For entry points and tests;
/// code that makes agents on several threads parses once and builds on each.
///
/// ```
/// let agent = sowing_agents::from_spec("alphabeta:4")?;
/// assert_eq!(agent.name(), "alphabeta:4");
/// assert!(sowing_agents::from_spec("alphabeta").is_err()); // the depth or time is required
/// assert!(sowing_agents::from_spec("greedy:tb=x.tb").is_err()); // greedy takes no table
/// # Ok::<(), sowing_agents::SpecError>(())
/// ```
pub fn from_spec(spec: &str) -> Result<Box<dyn Agent>, SpecError> {
    spec.parse::<AgentSpec>()?.build()
}

/// A spec that names no agent, or whose agent could not be made. Its message says what was
/// wrong and lists [`FORMS`] and the options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The spec given.
    pub spec: String,
    /// What was wrong with it.
    pub reason: String,
}

impl SpecError {
    /// An error about `spec`, saying `reason`.
    pub fn new(spec: &str, reason: impl Into<String>) -> SpecError {
        SpecError {
            spec: spec.to_string(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let options: Vec<String> = SpecOption::ALL
            .iter()
            .map(|o| format!("{} ({})", o.help(), o.takers()))
            .collect();
        // The spec and the reason (which may quote part of it) cut as every message cuts
        // what it was given.
        write!(
            f,
            "invalid agent spec {}: {}; valid forms: {}; options: {}",
            sowing_env::Error::quote(&self.spec),
            sowing_env::Error::cut_lines(&self.reason),
            FORMS.join(", "),
            options.join("; ")
        )
    }
}

impl std::error::Error for SpecError {}
