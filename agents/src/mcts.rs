//! Monte Carlo tree search with UCT. The tree policy (selection by UCB1, expansion, backing up)
//! lives here; how a new leaf is valued is an [`Evaluator`]: [`Rollout`] plays one random game
//! out, and a network can take its place without touching the search. UCB1 uses only the
//! evaluator's value; its priors are for PUCT-style searches.
//!
//! Nodes live in one arena (`Vec`) that keeps its allocation from move to move, so a search
//! allocates nothing once the agent has played a few moves. A child's position is made only when
//! it is first visited. With a simulation budget the search is fixed by the random stream it is
//! given; with a time budget it is not, since the simulations done depend on the machine.
//!
//! Given a tablebase ([`Mcts::with_tablebase`]), the agent plays the perfect move where the table
//! holds the position, and its leaves there take their exact result as their value (+1, 0, -1,
//! through [`TablebaseEvaluator`]) in place of a rollout. Like the table, this ignores the ply
//! cap.

use crate::agent::Agent;
use crate::budget::Budget;
use crate::evaluator::{Evaluator, Rollout};
use crate::perfect::{PerfectPlay, TablebaseEvaluator, table_option, table_serves};
use rand_chacha::ChaCha8Rng;
use sowing_env::{MAX_HOLES, Rules, State};
use sowing_exact::Stop;
use sowing_exact::tablebase::Tablebase;
use std::sync::Arc;
use std::time::Instant;

/// The largest simulation budget accepted.
pub const MAX_SIMULATIONS: u32 = 10_000_000;

/// UCB1's exploration constant, for values in `[-1, 1]`.
pub const EXPLORATION: f32 = 1.0;

/// The most nodes reserved ahead of a search (about 80 MiB); a larger tree grows as it needs.
const RESERVE_LIMIT: usize = 1 << 20;

/// Simulations between two looks at the clock (under a time budget) or at the [`Stop`].
const CLOCK_EVERY: u32 = 16;

/// One node of the tree.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The position; made on the first visit (until then, a copy of the parent's).
    state: State,
    /// Sum of the values backed up through this node, for the player who moved into it.
    value_sum: f32,
    visits: u32,
    first_child: u32,
    children: u8,
    action: u8,
    expanded: bool,
}

/// What the last search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MctsInfo {
    /// Simulations run.
    pub simulations: u32,
    /// Nodes in the tree at the end.
    pub nodes: usize,
    /// The search stopped early because the tree could not grow: the allocator refused more
    /// memory (an address-space limit), and the move is the best of the tree it had.
    pub out_of_memory: bool,
}

/// UCT search with a pluggable leaf evaluator.
#[derive(Debug)]
pub struct Mcts<E: Evaluator = Rollout> {
    budget: Budget,
    evaluator: E,
    exploration: f32,
    name: String,
    nodes: Vec<Node>,
    path: Vec<u32>,
    stop: Stop,
    last: MctsInfo,
    /// Where its table holds the root, the move is the table's.
    perfect: Option<PerfectPlay>,
}

impl Mcts<Rollout> {
    /// UCT with random rollouts: `Count(k)` runs `k` simulations per move, `Time(t)` runs them
    /// until `t` has passed (at least one).
    pub fn new(budget: Budget) -> Mcts<Rollout> {
        Mcts::with_evaluator(budget, Rollout, format!("mcts:{}", budget.spec()))
    }
}

impl<E: Evaluator> Mcts<E> {
    /// UCT with `evaluator` valuing new leaves; `name` is what [`Agent::name`] reports.
    pub fn with_evaluator(budget: Budget, evaluator: E, name: String) -> Mcts<E> {
        Mcts {
            budget,
            evaluator,
            exploration: EXPLORATION,
            name,
            nodes: Vec::new(),
            path: Vec::new(),
            stop: Stop::never(),
            last: MctsInfo::default(),
            perfect: None,
        }
    }

    /// The same search playing perfectly where `table` holds the position, its leaves there
    /// valued exactly (see the module documentation); the name gains `:tb=FILE`.
    pub fn with_tablebase(self, table: Arc<Tablebase>) -> Mcts<TablebaseEvaluator<E>> {
        let name = format!("{}{}", self.name, table_option(Some(&table)));
        Mcts {
            budget: self.budget,
            evaluator: TablebaseEvaluator::new(Arc::clone(&table), self.evaluator),
            exploration: self.exploration,
            name,
            nodes: self.nodes,
            path: self.path,
            stop: self.stop,
            last: self.last,
            perfect: Some(PerfectPlay::new(table)),
        }
    }

    /// What the last search did.
    pub fn last_search(&self) -> MctsInfo {
        self.last
    }

    /// The root's children after the last search: action, visits, mean value for the player to
    /// move at the root.
    pub fn root_children(&self) -> Vec<(usize, u32, f32)> {
        let Some(root) = self.nodes.first() else {
            return Vec::new();
        };
        let first = root.first_child as usize;
        self.nodes[first..first + root.children as usize]
            .iter()
            .map(|c| {
                (
                    c.action as usize,
                    c.visits,
                    c.value_sum / c.visits.max(1) as f32,
                )
            })
            .collect()
    }

    /// Search `state` (not over) and give the most visited action (ties: the better mean value,
    /// then the lower action).
    pub fn search(&mut self, state: &State, rng: &mut ChaCha8Rng) -> usize {
        self.nodes.clear();
        self.nodes.push(Node {
            state: *state,
            value_sum: 0.0,
            visits: 0,
            first_child: 0,
            children: 0,
            action: 0,
            expanded: false,
        });
        let mut simulations = 0;
        let mut out_of_memory = false;
        // A simulation adds at most one node's children; where the allocator will not give
        // room for them the search ends, as at a deadline, rather than the process aborting.
        // The root always gets its simulation, so that it has children to choose from.
        let mut room = |nodes: &mut Vec<Node>, done: u32| {
            let full = done > 0 && !sowing_exact::memory::grow(nodes, MAX_HOLES);
            out_of_memory |= full;
            !full
        };
        match self.budget {
            Budget::Count(k) => {
                // Room for the whole tree at once (a simulation adds at most one node and its
                // children), up to a bound so that a huge budget does not ask for it all up front;
                // as much of it as the allocator gives.
                let want = (k as usize * (state.holes() + 1)).min(RESERVE_LIMIT);
                let extra = want.saturating_sub(self.nodes.len());
                let _ = sowing_exact::memory::grow(&mut self.nodes, extra);
                for done in 1..=k {
                    if !room(&mut self.nodes, done - 1) {
                        break;
                    }
                    self.simulate(rng);
                    simulations = done;
                    if done % CLOCK_EVERY == 0 && self.stop.requested() {
                        break;
                    }
                }
            }
            Budget::Time(t) => {
                let deadline = Instant::now() + t;
                'search: loop {
                    for _ in 0..CLOCK_EVERY {
                        if !room(&mut self.nodes, simulations) {
                            break 'search;
                        }
                        self.simulate(rng);
                        simulations += 1;
                    }
                    if Instant::now() >= deadline || self.stop.requested() {
                        break;
                    }
                }
            }
        }
        self.last = MctsInfo {
            simulations,
            nodes: self.nodes.len(),
            out_of_memory,
        };
        let root = self.nodes[0];
        let first = root.first_child as usize;
        let mut best = first;
        for c in first + 1..first + root.children as usize {
            let (n, b) = (&self.nodes[c], &self.nodes[best]);
            let (q, qb) = (
                n.value_sum / n.visits.max(1) as f32,
                b.value_sum / b.visits.max(1) as f32,
            );
            if n.visits > b.visits || (n.visits == b.visits && q > qb) {
                best = c;
            }
        }
        self.nodes[best].action as usize
    }

    /// One simulation: select down the tree, make and value one new leaf, back the value up.
    fn simulate(&mut self, rng: &mut ChaCha8Rng) {
        self.path.clear();
        let mut idx = 0;
        let value = loop {
            self.path.push(idx as u32);
            let node = &self.nodes[idx];
            if node.state.is_over() {
                break node.state.outcome().reward(node.state.to_move());
            }
            if !node.expanded {
                break self.expand(idx, rng);
            }
            let child = self.select(idx);
            if self.nodes[child].visits == 0 {
                let action = self.nodes[child].action as usize;
                self.nodes[child].state = self.nodes[idx].state.play_unchecked(action);
            }
            idx = child;
        };
        // `value` is for the player to move at the leaf; each node keeps the value for the
        // player who moved into it, which alternates up the path.
        let mut v = -value;
        for &i in self.path.iter().rev() {
            let node = &mut self.nodes[i as usize];
            node.visits += 1;
            node.value_sum += v;
            v = -v;
        }
    }

    /// Value the leaf `idx` with the evaluator and give it one child per legal action.
    fn expand(&mut self, idx: usize, rng: &mut ChaCha8Rng) -> f32 {
        let state = self.nodes[idx].state;
        let eval = self.evaluator.evaluate(&state, rng);
        let first = self.nodes.len();
        for action in state.legal_actions() {
            self.nodes.push(Node {
                state,
                value_sum: 0.0,
                visits: 0,
                first_child: 0,
                children: 0,
                action: action as u8,
                expanded: false,
            });
        }
        let node = &mut self.nodes[idx];
        node.first_child = first as u32;
        node.children = state.legal_count() as u8;
        node.expanded = true;
        eval.value
    }

    /// UCB1: an unvisited child first (lowest action), else the best mean plus exploration bonus.
    fn select(&self, idx: usize) -> usize {
        let node = &self.nodes[idx];
        let first = node.first_child as usize;
        let log_n = (node.visits as f32).ln();
        let mut best = first;
        let mut best_score = f32::NEG_INFINITY;
        for c in first..first + node.children as usize {
            let child = &self.nodes[c];
            if child.visits == 0 {
                return c;
            }
            let n = child.visits as f32;
            let score = child.value_sum / n + self.exploration * (log_n / n).sqrt();
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        best
    }
}

impl<E: Evaluator> Agent for Mcts<E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// On a finished game, which has no legal move, this gives 0, which `State::play` refuses.
    fn choose(&mut self, state: &State, rng: &mut ChaCha8Rng) -> usize {
        match state.legal_count() {
            0 => 0,
            1 => state.legal_actions().next().unwrap_or(0),
            _ => match self
                .perfect
                .as_mut()
                .and_then(|perfect| perfect.choose(state))
            {
                Some(best) => best,
                None => self.search(state, rng),
            },
        }
    }

    fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }

    fn new_game(&mut self) {
        if let Some(perfect) = &mut self.perfect {
            perfect.new_game();
        }
    }

    fn can_play(&self, rules: &Rules) -> Result<(), String> {
        table_serves(self.perfect.as_ref().map(|p| p.table().as_ref()), rules)
    }
}
