//! The trained network as an [`Agent`], made by `spec.rs` from the spec `az:PATH`,
//! `az:PATH:SIMS` or `az:PATH:TIME`, with options `solver=NODES`, `leaves=N` and `tb=FILE` after
//! it, where `PATH` is a run directory (its newest checkpoint) or one `iter-NNNNNN` checkpoint folder,
//! `SIMS` the PUCT simulations per move (default: those the run trained with), `TIME` a time per
//! move instead (`50ms`, `1s`: simulations until the clock runs out, the solver's time included),
//! `NODES` the endgame solver's budget per move (default [`SOLVER_NODES`] with a count of
//! simulations, none with a time: see [`AzAgent::default_solver`]; 0 turns it off) and `FILE` a
//! tablebase. It plays the most visited move, without noise. `leaves=N` has its search value
//! `N` leaves per forward pass, chosen with virtual losses (default [`TIMED_LEAVES`] with a
//! time, 1 with a count: see [`AzAgent::default_leaves`]).
//!
//! With a tablebase the agent plays the perfect move where the table holds the position, the
//! solver decides the positions the table holds at once, and the search's leaves there take
//! their exact result as their value in place of the network's ([`TablebaseEvaluator`]).
//!
//! In the endgame (at most [`SOLVER_SEEDS`] seeds on the board) the [`Solver`] searches to the
//! end first: a proven win is played at once, and moves proven to lose are never chosen while
//! another move is not proven to. The network misjudges some of these positions, where one
//! seed more or less changes where every relay ends; of 74 games a 10-minute network lost to
//! mcts:1000 from random openings, an exact search found 5 lost by a move in the last 6 to 14
//! seeds, while another move still held.

use crate::agent::Agent;
use crate::az::checkpoint::{CheckpointError, MAX_SIMULATIONS, PlayMeta};
use crate::az::inference::Playing;
use crate::az::puct::{
    BatchSearch, EXPLAINED_PLIES, Explained, PuctConfig, SearchSpec, Trees, with_evaluator,
};
use crate::budget::Budget;
use crate::evaluator::Evaluator;
use crate::perfect::{PerfectPlay, TablebaseEvaluator, table_option, table_serves};
use rand_chacha::ChaCha8Rng;
use sowing_env::{Rules, State};
use sowing_exact::prove::{SOLVER_DEPTH, SOLVER_TABLE_BITS, Solver};
use sowing_exact::tablebase::Tablebase;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use sowing_exact::prove::{MAX_SOLVER_NODES, SOLVER_NODES, SOLVER_SEEDS};

pub use crate::spec::TIMED_LEAVES;

/// A player that searches with a trained network.
#[derive(Debug)]
pub struct AzAgent {
    name: String,
    /// The network, and what its checkpoint says of it.
    net: Playing,
    meta: PlayMeta,
    /// The search of a move; its time, when the budget is a time, covers the whole move (then
    /// `spec.puct.simulations` is the cap).
    spec: SearchSpec,
    search: BatchSearch,
    /// What the last move's search found, if the network searched it.
    last: Option<Explained>,
    eval_rng: ChaCha8Rng,
    solver: Solver,
    solver_nodes: u64,
    perfect: Option<PerfectPlay>,
}

impl AzAgent {
    /// The agent of checkpoint `path`, searching with `budget` per move: a count of simulations
    /// or a time (default: the simulations the run trained with).
    pub fn load(path: &Path, budget: Option<Budget>) -> Result<AzAgent, CheckpointError> {
        let (net, meta) = Playing::load(path)?;
        let args = &meta.args;
        let budget = budget.unwrap_or(Budget::Count(args.simulations));
        let (simulations, time) = match budget {
            Budget::Count(n) => (n, None),
            Budget::Time(t) => (MAX_SIMULATIONS, Some(t)),
        };
        let puct = PuctConfig {
            simulations,
            c_puct: args.c_puct,
            dirichlet_alpha: args.dirichlet_alpha,
            noise_fraction: 0.0,
            leaf_batch: AzAgent::default_leaves(Some(budget)),
        };
        Ok(AzAgent {
            name: format!("az:{}:{}", path.display(), budget.spec()),
            net,
            meta,
            spec: SearchSpec {
                time,
                ..SearchSpec::from(puct)
            },
            search: BatchSearch::new(),
            last: None,
            eval_rng: rand::SeedableRng::seed_from_u64(0),
            solver: Solver::new(SOLVER_TABLE_BITS),
            solver_nodes: AzAgent::default_solver(Some(budget)),
            perfect: None,
        })
    }

    /// The endgame solver's positions per move an agent of `budget` searches unless told: none
    /// with a time per move, [`SOLVER_NODES`] otherwise. With a time the solver's positions take
    /// the clock from the network's search, and cost more than they give: on the 2,000
    /// committed en-dodoi-6 positions, the `make demo` network at 50 ms kept the result in 93.5%
    /// of the critical ones with the solver and 96.4% without (5 positions only with it, 21
    /// only without; 78% and 93% of those with 16 to 23 seeds), where the solver seldom proves
    /// anything within its budget (docs/strength.md).
    pub fn default_solver(budget: Option<Budget>) -> u64 {
        crate::spec::az_default_solver(budget)
    }

    /// The same agent with an endgame solver budget of `nodes` positions per move (0: none);
    /// the name gains `:solver=NODES` when it is not the budget's default.
    pub fn with_solver(mut self, nodes: u64) -> AzAgent {
        self.solver_nodes = nodes;
        let default = AzAgent::default_solver(self.spec.time.map(Budget::Time));
        if nodes != default {
            self.name = format!("{}:solver={nodes}", self.name);
        }
        self
    }

    /// The leaves an agent of `budget` values per forward pass unless told: with a time per
    /// move [`TIMED_LEAVES`], where a forward pass of many positions costs little more than
    /// one and the clock buys several times the simulations; with a count 1, so that a count
    /// means the search the network trained with. 64 rather than 16: on the critical positions
    /// of the en-dodoi-8 demo's match against `alphabeta:200ms` the network at 50 ms kept the
    /// result in 96.2% with 64 against 95.4% with 16 (13 / 4 positions, p = 0.05; 8, 16, 32,
    /// 64 in order, 128 no better), and the match itself gave 61.5% against 59.5%
    /// (docs/strength.md, "Leaves per forward pass").
    pub fn default_leaves(budget: Option<Budget>) -> u32 {
        crate::spec::az_default_leaves(budget)
    }

    /// The same agent valuing `leaves` leaves per forward pass (see [`PuctConfig::leaf_batch`]);
    /// the name gains `:leaves=N` when it is not the budget's default.
    pub fn with_leaves(mut self, leaves: u32) -> AzAgent {
        self.spec.puct.leaf_batch = leaves;
        let default = AzAgent::default_leaves(self.spec.time.map(Budget::Time));
        if leaves != default {
            self.name = format!("{}:leaves={leaves}", self.name);
        }
        self
    }

    /// The same agent with a tablebase (see the module documentation); the name gains
    /// `:tb=FILE`.
    pub fn with_tablebase(mut self, table: Arc<Tablebase>) -> AzAgent {
        self.name = format!("{}{}", self.name, table_option(Some(&table)));
        self.solver = Solver::new(SOLVER_TABLE_BITS).with_tablebase(Arc::clone(&table));
        self.perfect = Some(PerfectPlay::new(table));
        self
    }

    /// The rules the network was trained on; it plays only games with as many holes, or with a
    /// span any board up to it.
    pub fn rules(&self) -> &Rules {
        &self.meta.rules
    }

    /// What the search of the last move found: `None` when no move was chosen yet in this game
    /// or the last one came from the tablebase or a proven win of the solver, without a search.
    pub fn last_search(&self) -> Option<&Explained> {
        self.last.as_ref()
    }
}

impl Agent for AzAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        self.search.clear();
        self.last = None;
        self.solver.clear();
        if let Some(perfect) = &mut self.perfect {
            perfect.new_game();
        }
    }

    fn explained(&self) -> Option<Explained> {
        self.last.clone()
    }

    fn can_play(&self, rules: &Rules) -> Result<(), String> {
        let trained = self.meta.rules.holes();
        if !self.net.plays(rules.holes()) {
            let span = match self.meta.net.span {
                Some(span) => format!(" (its network spans boards of up to {span})"),
                None => String::new(),
            };
            return Err(format!(
                "{} was trained on {trained} holes per row and cannot play a {}-hole game{span}",
                self.name,
                rules.holes()
            ));
        }
        table_serves(self.perfect.as_ref().map(|p| p.table().as_ref()), rules)
    }

    fn choose(&mut self, state: &State, rng: &mut ChaCha8Rng) -> usize {
        // A time budget covers the whole move, the solver's search included.
        let deadline = self.spec.time.map(|t| Instant::now() + t);
        self.last = None;
        // Callers check `can_play` before a game; a state of another size is a caller's bug.
        debug_assert!(self.can_play(state.rules()).is_ok());
        if let Some(best) = self
            .perfect
            .as_mut()
            .and_then(|perfect| perfect.choose(state))
        {
            return best;
        }
        let mut losing = 0u16;
        let on_board = state.board().sum(0, 2 * state.holes());
        if self.solver_nodes > 0 && on_board <= SOLVER_SEEDS {
            let proof = self.solver.prove(state, self.solver_nodes, SOLVER_DEPTH);
            if let Some((a, _)) = proof.winning {
                return a;
            }
            losing = proof.losing;
        }
        let mut noise = [rng.clone()];
        // The tree is kept from move to move: the part below this position grew while the last
        // move was searched.
        let roots = std::slice::from_ref(state);
        let net: &mut dyn Evaluator = &mut self.net;
        let mut table_evaluator;
        let evaluator: &mut dyn Evaluator = match self.perfect.as_ref() {
            Some(perfect) => {
                table_evaluator = TablebaseEvaluator::new(Arc::clone(perfect.table()), net);
                &mut table_evaluator
            }
            None => net,
        };
        // What the solver left of the clock; a round of simulations at least, as before.
        let spec = SearchSpec {
            time: deadline.map(|d| {
                d.saturating_duration_since(Instant::now())
                    .max(Duration::from_nanos(1))
            }),
            ..self.spec
        };
        let Ok(found) = self.search.run(
            roots,
            Trees::Kept(&[0]),
            &spec,
            &mut noise,
            with_evaluator(evaluator, &mut self.eval_rng),
        );
        let root = found[0].search;
        // Every move proven lost leaves `best_action_among` the best of all: nothing is spared.
        let action = root.best_action_among(!losing);
        let mut line = self.search.principal_line(0, EXPLAINED_PLIES);
        if line.first() != Some(&action) {
            line = vec![action];
        }
        self.last = Some(Explained { action, root, line });
        action
    }
}
