//! PUCT search (AlphaZero's tree policy) over `sowing-env`, run for many positions at once so that
//! the leaves of all their trees are valued in one call: [`Evaluator::evaluate_batch`], which a
//! network answers with one forward pass, or any function of a batch of leaves that may fail,
//! such as a Python network called from the binding. One entry point, [`BatchSearch::run`],
//! takes the roots, whether their trees are kept ([`Trees`]), what to search ([`SearchSpec`]:
//! the PUCT settings, the root's kind, a time) and the leaf function. It needs no
//! libtorch: the trainer's tch network and a Python network plug into the same search.
//!
//! Values are kept from the point of view of the player to move at each node; every move passes
//! the turn, so a child's value is negated when seen from its parent.
//!
//! A player keeps its tree from move to move ([`Trees::Kept`]): the subtree
//! below the position it now faces grew while it searched its last move, and its visits count on
//! top of the new search's. At 64 simulations against mcts:1000 this took the network from 51% to
//! 57% wins (400 games from random openings).
//!
//! One tree may also send several leaves to an evaluation ([`PuctConfig::leaf_batch`]): the walks
//! are taken one after another, each leaving a virtual loss on its path, so that a player with a
//! clock, searching one game, fills a forward pass (16 leaves: 6 times the simulations per
//! second of one, `benches/leaf_batch.rs`).
//!
//! - [`self_play`]: self-play games with the search, their positions as training samples.
//! - [`reanalyse`]: those positions searched again by a newer network, for fresher targets.
//! - [`gumbel`]: Gumbel AlphaZero's root for self-play ([`Root::Gumbel`]):
//!   sequential halving over Gumbel-sampled actions, and the improved policy as the target.
//! - [`Linear`]: a linear policy and value over the network input, the simplest learned
//!   evaluator.

pub mod gumbel;
mod linear;
pub mod reanalyse;
pub mod search_spec;
pub mod self_play;

pub use gumbel::GumbelConfig;
pub use linear::Linear;
pub use search_spec::{MAX_CONSIDERED, MAX_SIMULATIONS, Root, SearchSpec, SpecError};

use gumbel::{RootChildren, gumbel_from_uniform, halving_schedule};

use crate::evaluator::{Evaluation, Evaluator};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sowing_env::{MAX_HOLES, Outcome, State};
use std::convert::Infallible;
use std::time::Instant;

/// How the search explores.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PuctConfig {
    /// Simulations per move (the root's evaluation is the first).
    pub simulations: u32,
    /// Exploration constant of the PUCT formula.
    pub c_puct: f32,
    /// Dirichlet noise at the root: concentration (0 turns noise off).
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors.
    pub noise_fraction: f32,
    /// Leaves each root sends to one evaluation (1: one at a time, PUCT's own sequence). More
    /// are chosen one after another, each walk marking its path with a virtual loss so that the
    /// next one looks elsewhere, and are valued together: a network values 16 positions in a
    /// forward pass for 2.6 times the time of one (`benches/leaf_batch.rs`), so a player with a
    /// clock, searching one position, gets several times the simulations. A Gumbel root ignores
    /// it.
    #[serde(default = "one_leaf")]
    pub leaf_batch: u32,
}

fn one_leaf() -> u32 {
    1
}

/// The longest principal line a player explains its move with ([`BatchSearch::principal_line`]).
pub const EXPLAINED_PLIES: usize = 12;

/// The most leaves a root may send to one evaluation: more only spreads the virtual losses
/// over moves the search would not otherwise look at.
pub const MAX_LEAF_BATCH: u32 = 256;

/// Bytes a search of `trees` roots of `holes` holes per row takes at most, `config` giving the
/// simulations and leaves per evaluation; `kept` when trees are kept from search to search (a
/// second node buffer each, for rerooting). What a caller checks against the memory there is
/// before a search that a user sized ([`sowing_exact::memory::check`]); the callers add what their own
/// side holds per leaf (a Python network's input arrays, say).
///
/// Per tree: its nodes, one per legal action of each leaf expanded plus the root, in a vector
/// whose capacity is up to twice its length and which, while it grows, holds the old buffer
/// beside the new one (three times the nodes); the tree itself, the root, its noise stream and
/// result, and per leaf of a round its state and evaluation. Measured (`pybindings/tests/
/// test_memory.py`): 1.6 KB per root at one simulation, 1.0 KB per simulation beyond; this
/// bound is about twice that.
pub fn search_bytes(trees: usize, holes: usize, config: &PuctConfig, kept: bool) -> u128 {
    let node = std::mem::size_of::<Node>() as u128;
    let nodes = 1 + u128::from(config.simulations.max(1)) * holes.min(MAX_HOLES) as u128;
    let buffers = if kept { 2 } else { 1 };
    let leaves = u128::from(config.leaf_batch.clamp(1, MAX_LEAF_BATCH));
    let per_leaf = (std::mem::size_of::<State>()
        + std::mem::size_of::<Evaluation>()
        + std::mem::size_of::<(usize, u32)>()) as u128;
    let per_tree = 3 * buffers * nodes * node
        + (std::mem::size_of::<Tree>()
            + 2 * std::mem::size_of::<State>()
            + std::mem::size_of::<ChaCha8Rng>()
            + std::mem::size_of::<SearchResult>()
            + std::mem::size_of::<GumbelResult>()
            + 2 * std::mem::size_of::<usize>()) as u128
        + leaves * per_leaf;
    trees as u128 * per_tree
}

impl PuctConfig {
    /// The same search without root noise, as used when playing to win rather than to learn.
    pub fn without_noise(self) -> PuctConfig {
        PuctConfig {
            noise_fraction: 0.0,
            ..self
        }
    }
}

/// What a search found at its root.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchResult {
    /// Visits of each action (relative to the mover); only legal actions are visited.
    pub visits: [u32; MAX_HOLES],
    /// The root's priors (noise included), which break ties between equally visited actions.
    pub priors: [f32; MAX_HOLES],
    /// Bit `a` set when action `a` is legal at the root.
    pub legal: u16,
    /// Mean value of the root for the player to move, in `[-1, 1]`.
    pub value: f32,
}

impl SearchResult {
    /// The most visited legal action; equal visits go to the higher prior, then the lower action.
    pub fn best_action(&self) -> usize {
        self.best_action_among(self.legal)
    }

    /// The most visited of the legal actions whose bit is set in `allowed` (ties as in
    /// [`SearchResult::best_action`]); the best legal action when none is allowed.
    pub fn best_action_among(&self, allowed: u16) -> usize {
        let allowed = if self.legal & allowed == 0 {
            self.legal
        } else {
            self.legal & allowed
        };
        let mut best: Option<usize> = None;
        for a in (0..MAX_HOLES).filter(|&a| allowed >> a & 1 == 1) {
            let better = best.is_none_or(|b| {
                (self.visits[a], self.priors[a]) > (self.visits[b], self.priors[b])
            });
            if better {
                best = Some(a);
            }
        }
        best.unwrap_or(0)
    }

    /// A legal action drawn in proportion to its visits (the best one if nothing was visited).
    pub fn sample_action(&self, rng: &mut ChaCha8Rng) -> usize {
        let total: u32 = self.visits.iter().sum();
        if total == 0 {
            return self.best_action();
        }
        let mut pick = rng.random_range(0..total);
        for (a, &v) in self.visits.iter().enumerate() {
            if pick < v {
                return a;
            }
            pick -= v;
        }
        self.best_action()
    }
}

const NO_CHILDREN: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    /// Valid once the node has been reached (children get their state when first selected).
    state: State,
    parent: u32,
    action: u8,
    prior: f32,
    visits: u32,
    value_sum: f32,
    /// Index of the first child; children are contiguous, one per legal action.
    first_child: u32,
    children: u8,
}

/// A move a player's search chose, with why (`Agent::explained`).
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    /// The move played.
    pub action: usize,
    /// The search's root: visits of each action, priors, and the mean value for the mover.
    pub root: SearchResult,
    /// The principal line from the position: the most visited move at each node, the move
    /// played first (alone, when the solver ruled the most visited out), at most
    /// [`EXPLAINED_PLIES`].
    pub line: Vec<usize>,
}

/// Which trees a search grows: fresh ones (tree `i` for root `i`), or the kept trees named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trees<'a> {
    /// Every root in a fresh tree.
    Fresh,
    /// Root `i` in tree `trees[i]`, kept from its last search (see [`BatchSearch::run`]).
    Kept(&'a [usize]),
}

/// What a search found at one root.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootOutput {
    /// Visits, priors and value (with a Gumbel root the priors are without noise: the Gumbel
    /// draws are the root's exploration).
    pub search: SearchResult,
    /// With a Gumbel root, its move and policy target.
    pub gumbel: Option<GumbelResult>,
}

impl RootOutput {
    /// The move to play when not exploring: the most visited action (PUCT), or the best without
    /// the Gumbel draws (Gumbel).
    pub fn best_action(&self) -> usize {
        match &self.gumbel {
            Some(g) => g.best,
            None => self.search.best_action(),
        }
    }
}

/// What a Gumbel root search found besides its counts: the action it plays and the improved
/// policy it teaches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelResult {
    /// The winner of the sequential halving, the move self-play makes while it explores.
    pub action: usize,
    /// The best of the most visited actions by `logit + sigma(completed Q)` alone, without the
    /// Gumbel draws: the move self-play makes once it stops exploring.
    pub best: usize,
    /// `softmax(logits + sigma(completed Q))` over the actions (relative to the mover): the
    /// policy target.
    pub policy: [f32; MAX_HOLES],
}

/// One search tree, reused from move to move to keep its allocation.
#[derive(Debug, Default)]
struct Tree {
    nodes: Vec<Node>,
    /// Where [`Tree::reroot`] copies the kept subtree; the two buffers swap, so keeping a
    /// tree allocates nothing once both have grown.
    spare: Vec<Node>,
    /// The network's value of the root, for its mover (the Gumbel root's mixed value).
    root_value: f32,
    /// The Gumbel draw of each root child, in child order (a Gumbel root search only).
    gumbel: [f32; MAX_HOLES],
}

impl Tree {
    fn reset(&mut self, root: State) {
        self.nodes.clear();
        self.nodes.push(Node {
            state: root,
            parent: u32::MAX,
            action: 0,
            prior: 1.0,
            visits: 0,
            value_sum: 0.0,
            first_child: NO_CHILDREN,
            children: 0,
        });
    }

    /// Make the reached node two plies or one ply below the root whose state is `state` the
    /// new root, keeping the subtree it grew (its visits and values) and dropping the rest.
    /// False, with the tree untouched, when no such node was reached.
    fn reroot(&mut self, state: &State) -> bool {
        let Some(found) = self.find_reached(0, state, 2) else {
            return false;
        };
        // Copy the subtree breadth first, so that each node's children stay contiguous.
        let mut kept = std::mem::take(&mut self.spare);
        kept.clear();
        // Where the allocator will not give room for the copy, the tree starts afresh instead.
        if !sowing_exact::memory::grow(&mut kept, self.nodes.len()) {
            self.spare = kept;
            return false;
        }
        let mut root = self.nodes[found as usize];
        root.parent = u32::MAX;
        kept.push(root);
        let mut at = 0;
        while at < kept.len() {
            let node = kept[at];
            if node.first_child != NO_CHILDREN {
                let first = kept.len() as u32;
                for c in node.first_child..node.first_child + u32::from(node.children) {
                    let mut child = self.nodes[c as usize];
                    child.parent = at as u32;
                    kept.push(child);
                }
                kept[at].first_child = first;
            }
            at += 1;
        }
        self.spare = std::mem::replace(&mut self.nodes, kept);
        true
    }

    /// A node at most `depth` plies below `id` that was reached and holds `state`.
    fn find_reached(&self, id: u32, state: &State, depth: u32) -> Option<u32> {
        let node = &self.nodes[id as usize];
        if depth == 0 || node.first_child == NO_CHILDREN {
            return None;
        }
        for c in node.first_child..node.first_child + u32::from(node.children) {
            let child = &self.nodes[c as usize];
            // A child holds its own state only once it was selected (before, its parent's).
            if child.visits == 0 {
                continue;
            }
            if child.state == *state {
                return Some(c);
            }
            if let Some(found) = self.find_reached(c, state, depth - 1) {
                return Some(found);
            }
        }
        None
    }

    /// Walk down by PUCT to a node not yet expanded (a leaf to evaluate, or a finished game).
    fn select(&mut self, c_puct: f32) -> u32 {
        self.select_from(0, c_puct)
    }

    /// [`Tree::select`] with the root's child chosen by the Gumbel root's sequential halving
    /// (`schedules[m]` for `m` considered actions).
    fn select_gumbel(&mut self, c_puct: f32, schedules: &[Vec<u32>], config: &GumbelConfig) -> u32 {
        let root = self.nodes[0];
        if root.first_child == NO_CHILDREN {
            return 0;
        }
        let n = usize::from(root.children);
        let schedule = &schedules[(config.considered as usize).clamp(1, n)];
        let c = self
            .with_root_children(|children| children.select(&self.gumbel[..n], schedule, config));
        let child = root.first_child + c as u32;
        self.enter(0, child);
        self.select_from(child, c_puct)
    }

    /// `f` of the root's children as the Gumbel root reads them, in child order: priors, visits
    /// and mean values for the root's mover.
    fn with_root_children<R>(&self, f: impl FnOnce(&RootChildren) -> R) -> R {
        let root = &self.nodes[0];
        let n = usize::from(root.children);
        let (mut priors, mut visits, mut q) = ([0.0; MAX_HOLES], [0; MAX_HOLES], [0.0; MAX_HOLES]);
        for k in 0..n {
            let child = &self.nodes[root.first_child as usize + k];
            priors[k] = child.prior;
            visits[k] = child.visits;
            q[k] = -child.value_sum / child.visits.max(1) as f32;
        }
        f(&RootChildren {
            priors: &priors[..n],
            visits: &visits[..n],
            q: &q[..n],
            root_value: self.root_value,
        })
    }

    /// The Gumbel root's move and policy target.
    fn gumbel_result(&self, config: &GumbelConfig) -> GumbelResult {
        let root = &self.nodes[0];
        let n = usize::from(root.children);
        let action_of = |c: usize| usize::from(self.nodes[root.first_child as usize + c].action);
        let (improved, winner, best) = self.with_root_children(|children| {
            (
                children.improved_policy(config),
                children.winner(&self.gumbel[..n], config),
                children.winner(&[0.0; MAX_HOLES][..n], config),
            )
        });
        let mut policy = [0.0f32; MAX_HOLES];
        for (c, p) in improved[..n].iter().enumerate() {
            policy[action_of(c)] = *p;
        }
        GumbelResult {
            action: action_of(winner),
            best: action_of(best),
            policy,
        }
    }

    /// Give a child its state when it is first chosen (until then it holds its parent's).
    fn enter(&mut self, parent: u32, child: u32) {
        let state = self.nodes[parent as usize].state;
        let node = &mut self.nodes[child as usize];
        if node.visits == 0 && node.first_child == NO_CHILDREN {
            node.state = state.play_unchecked(usize::from(node.action));
        }
    }

    /// Walk down by PUCT from `id`.
    fn select_from(&mut self, mut id: u32, c_puct: f32) -> u32 {
        loop {
            let node = self.nodes[id as usize];
            if node.first_child == NO_CHILDREN {
                return id;
            }
            let sqrt_n = (node.visits as f32).sqrt();
            // Unvisited children start at the parent's own mean value (from the mover's side).
            let fpu = if node.visits > 0 {
                node.value_sum / node.visits as f32
            } else {
                0.0
            };
            let mut best = node.first_child;
            let mut best_score = f32::NEG_INFINITY;
            for c in node.first_child..node.first_child + u32::from(node.children) {
                let child = &self.nodes[c as usize];
                let q = if child.visits > 0 {
                    -child.value_sum / child.visits as f32
                } else {
                    fpu
                };
                let u = c_puct * child.prior * sqrt_n / (1.0 + child.visits as f32);
                if q + u > best_score {
                    best_score = q + u;
                    best = c;
                }
            }
            self.enter(id, best);
            id = best;
        }
    }

    /// Give `leaf` one child per legal action with the evaluation's priors.
    fn expand(&mut self, leaf: u32, priors: &[f32; MAX_HOLES]) {
        let state = self.nodes[leaf as usize].state;
        let first = self.nodes.len() as u32;
        let mut count = 0u8;
        for a in state.legal_actions() {
            self.nodes.push(Node {
                state,
                parent: leaf,
                action: a as u8,
                prior: priors[a],
                visits: 0,
                value_sum: 0.0,
                first_child: NO_CHILDREN,
                children: 0,
            });
            count += 1;
        }
        let node = &mut self.nodes[leaf as usize];
        node.first_child = first;
        node.children = count;
    }

    /// Add `value` (for the player to move at `leaf`) to every node from `leaf` to the root.
    fn backup(&mut self, leaf: u32, mut value: f32) {
        let mut id = leaf;
        loop {
            let node = &mut self.nodes[id as usize];
            node.visits += 1;
            node.value_sum += value;
            if node.parent == u32::MAX {
                return;
            }
            id = node.parent;
            value = -value;
        }
    }

    /// Put a virtual loss on the path from `leaf` to the root (`add`), or take it back: every
    /// node on it counts one visit more, and one loss more for the player who chose it, so that
    /// the next walk of a batch of leaves goes elsewhere until the leaf's value comes back.
    fn virtual_loss(&mut self, leaf: u32, add: bool) {
        let mut id = leaf;
        loop {
            let node = &mut self.nodes[id as usize];
            if add {
                node.visits += 1;
                node.value_sum += 1.0;
            } else {
                node.visits -= 1;
                node.value_sum -= 1.0;
            }
            if node.parent == u32::MAX {
                return;
            }
            id = node.parent;
        }
    }

    fn result(&self) -> SearchResult {
        let root = &self.nodes[0];
        let mut visits = [0u32; MAX_HOLES];
        let mut priors = [0.0f32; MAX_HOLES];
        if root.first_child != NO_CHILDREN {
            for c in root.first_child..root.first_child + u32::from(root.children) {
                let child = &self.nodes[c as usize];
                visits[usize::from(child.action)] = child.visits;
                priors[usize::from(child.action)] = child.prior;
            }
        }
        SearchResult {
            visits,
            priors,
            legal: root.state.legal_mask(),
            value: root.value_sum / root.visits.max(1) as f32,
        }
    }
}

/// The value of a finished game for the player to move there: the outcome, a truncation a draw.
fn final_value(state: &State) -> f32 {
    match state.outcome() {
        Outcome::Won(p) if p == state.to_move() => 1.0,
        Outcome::Won(_) => -1.0,
        _ => 0.0,
    }
}

/// Searches many positions together. Keeps its trees and buffers between calls.
#[derive(Debug, Default)]
pub struct BatchSearch {
    trees: Vec<Tree>,
    pending_states: Vec<State>,
    pending: Vec<(usize, u32)>,
    /// Simulations each root of the current search has had.
    done: Vec<u32>,
    /// The tree each root of the current search is searched in.
    slots: Vec<usize>,
    evaluations: Vec<Evaluation>,
    /// Set while a Gumbel root search runs.
    gumbel: Option<GumbelConfig>,
    /// Sequential halving's schedule for each number of considered actions (index), for
    /// `schedule_budget` simulations below the root.
    schedules: Vec<Vec<u32>>,
    schedule_budget: usize,
    /// The last search stopped early: a tree could not grow (see
    /// [`BatchSearch::out_of_memory`]).
    out_of_memory: bool,
}

impl BatchSearch {
    /// An empty searcher.
    pub fn new() -> BatchSearch {
        BatchSearch::default()
    }

    /// Search each of `roots` (none of them over) as `spec` says, valuing leaves with
    /// `evaluate(states, out)`, which fills one slot of `out` per state, or fails; an
    /// [`Evaluator`] goes in through [`with_evaluator`]. `rngs[i]` draws root `i`'s noise (or
    /// Gumbel draws), so a root's search does not depend on which others share its batch.
    ///
    /// With [`Trees::Kept`]`(trees)` root `i` is searched in tree `trees[i]`, kept from that
    /// tree's last search: a root one or two plies below the tree's last root keeps the subtree
    /// grown there (its visits add to this search's simulations), as players of Go and chess keep
    /// their tree between moves; any other root starts the tree afresh, and a kept root gets no
    /// new noise. `trees` are distinct indices, any size. A Gumbel root searches afresh always.
    ///
    /// With `spec.time` the search stops after the first round of simulations that ends past
    /// that time (at least one is run); the simulations are then a cap.
    ///
    /// The first error of `evaluate` ends the search and is returned, and the trees of this
    /// search are forgotten (what a half-done search left in them would weigh on the next one);
    /// `rngs` may have been drawn from.
    pub fn run<X>(
        &mut self,
        roots: &[State],
        trees: Trees<'_>,
        spec: &SearchSpec,
        rngs: &mut [ChaCha8Rng],
        evaluate: impl FnMut(&[State], &mut [Evaluation]) -> Result<(), X>,
    ) -> Result<Vec<RootOutput>, X> {
        let deadline = spec.time.map(|t| Instant::now() + t);
        let keep = match trees {
            Trees::Fresh => {
                self.slots.clear();
                self.slots.extend(0..roots.len());
                false
            }
            Trees::Kept(trees) => {
                self.check_trees(trees, roots);
                true
            }
        };
        let Root::Gumbel(gumbel) = spec.root else {
            let found = self.search_slots(roots, &spec.puct, rngs, evaluate, keep, deadline)?;
            return Ok(found
                .into_iter()
                .map(|search| RootOutput {
                    search,
                    gumbel: None,
                })
                .collect());
        };
        let budget = spec.puct.simulations.max(1) as usize - 1;
        if self.schedules.is_empty() || self.schedule_budget != budget {
            self.schedules = (0..=MAX_HOLES)
                .map(|m| halving_schedule(m, budget))
                .collect();
            self.schedule_budget = budget;
        }
        self.gumbel = Some(gumbel);
        let searched = self.search_slots(roots, &spec.puct, rngs, evaluate, false, deadline);
        self.gumbel = None;
        Ok(searched?
            .into_iter()
            .zip(&self.slots)
            .map(|(search, &t)| RootOutput {
                search,
                gumbel: Some(self.trees[t].gumbel_result(&gumbel)),
            })
            .collect())
    }

    /// The principal line of tree `tree` after its last search: from the root, the most
    /// visited child at each node (ties as in [`SearchResult::best_action`]), while it was
    /// visited, at most `max` moves.
    pub fn principal_line(&self, tree: usize, max: usize) -> Vec<usize> {
        let mut line = Vec::new();
        let Some(tree) = self.trees.get(tree).filter(|t| !t.nodes.is_empty()) else {
            return line;
        };
        let mut id = 0u32;
        while line.len() < max {
            let node = &tree.nodes[id as usize];
            if node.first_child == NO_CHILDREN {
                break;
            }
            let children = node.first_child..node.first_child + u32::from(node.children);
            let best = children.max_by(|&a, &b| {
                let (a, b) = (&tree.nodes[a as usize], &tree.nodes[b as usize]);
                (a.visits, a.prior)
                    .partial_cmp(&(b.visits, b.prior))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(b.action.cmp(&a.action))
            });
            let Some(best) = best.filter(|&c| tree.nodes[c as usize].visits > 0) else {
                break;
            };
            line.push(usize::from(tree.nodes[best as usize].action));
            id = best;
        }
        line
    }

    /// Check that `trees` are distinct, one per root, and make them the slots of the search.
    fn check_trees(&mut self, trees: &[usize], roots: &[State]) {
        assert_eq!(roots.len(), trees.len(), "one tree per root");
        let mut seen = vec![false; trees.iter().max().map_or(0, |&t| t + 1)];
        for &t in trees {
            assert!(
                !std::mem::replace(&mut seen[t], true),
                "tree {t} given twice"
            );
        }
        self.slots.clear();
        self.slots.extend_from_slice(trees);
    }

    /// Whether the last search stopped early because the allocator refused a tree room to grow
    /// (an address-space limit): its results hold the simulations made until then. Callers
    /// that checked the memory first meet it only when a kept tree outgrew the estimate; the
    /// process goes on either way, where growing the tree regardless would abort it.
    pub fn out_of_memory(&self) -> bool {
        self.out_of_memory
    }

    /// Forget every tree, so that the next search starts afresh.
    pub fn clear(&mut self) {
        for tree in &mut self.trees {
            tree.nodes.clear();
        }
    }

    /// Search `roots[i]` in tree `self.slots[i]`, keeping what that tree holds if `keep`, and
    /// stopping after the first simulation that ends past `deadline`, if one is given.
    fn search_slots<X>(
        &mut self,
        roots: &[State],
        config: &PuctConfig,
        rngs: &mut [ChaCha8Rng],
        mut evaluate: impl FnMut(&[State], &mut [Evaluation]) -> Result<(), X>,
        keep: bool,
        deadline: Option<Instant>,
    ) -> Result<Vec<SearchResult>, X> {
        assert_eq!(roots.len(), rngs.len(), "one noise stream per root");
        let needed = self.slots.iter().max().map_or(0, |&t| t + 1);
        if self.trees.len() < needed {
            self.trees.resize_with(needed, Tree::default);
        }
        for (&t, root) in self.slots.iter().zip(roots) {
            let tree = &mut self.trees[t];
            let kept = keep && !tree.nodes.is_empty() && tree.reroot(root);
            if !kept {
                tree.reset(*root);
            }
        }
        if self.gumbel.is_some() {
            for (&t, (root, rng)) in self.slots.iter().zip(roots.iter().zip(rngs.iter_mut())) {
                let tree = &mut self.trees[t];
                for (k, _) in root.legal_actions().enumerate() {
                    tree.gumbel[k] = gumbel_from_uniform(rng.random());
                }
            }
        }
        let neutral = Evaluation {
            priors: [0.0; MAX_HOLES],
            value: 0.0,
        };
        // Simulations each root has had; a root may have fewer leaves in a round than
        // `per_round` (its tree had no more to give), so they are counted one by one.
        let target = config.simulations.max(1);
        let per_round = if self.gumbel.is_some() {
            1
        } else {
            config.leaf_batch.clamp(1, MAX_LEAF_BATCH)
        };
        self.done.clear();
        self.done.resize(roots.len(), 0);
        self.out_of_memory = false;
        for round in 0.. {
            if round > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            // Room for every leaf this round may expand, in every tree, before any walk: a tree
            // that cannot have it ends the search here, whole, rather than the process aborting.
            let room = per_round as usize * MAX_HOLES;
            if self
                .slots
                .iter()
                .any(|&t| !sowing_exact::memory::grow(&mut self.trees[t].nodes, room))
            {
                self.out_of_memory = true;
                break;
            }
            self.pending.clear();
            self.pending_states.clear();
            let mut simulated = false;
            for (i, &t) in self.slots.iter().enumerate() {
                let tree = &mut self.trees[t];
                for _ in 0..per_round {
                    if self.done[i] >= target {
                        break;
                    }
                    let leaf = match &self.gumbel {
                        Some(gumbel) => tree.select_gumbel(config.c_puct, &self.schedules, gumbel),
                        None => tree.select(config.c_puct),
                    };
                    let state = tree.nodes[leaf as usize].state;
                    if state.is_over() {
                        tree.backup(leaf, final_value(&state));
                    } else if tree.nodes[leaf as usize].visits > 0 {
                        // A leaf waiting for its value (only a virtual loss visits it) was
                        // chosen again: the tree has no other leaf to offer this round.
                        break;
                    } else {
                        if per_round > 1 {
                            tree.virtual_loss(leaf, true);
                        }
                        self.pending.push((i, leaf));
                        self.pending_states.push(state);
                    }
                    self.done[i] += 1;
                    simulated = true;
                }
            }
            if !simulated {
                break;
            }
            self.evaluations.clear();
            self.evaluations.resize(self.pending.len(), neutral);
            let valued = if self.pending_states.is_empty() {
                Ok(())
            } else {
                evaluate(&self.pending_states, &mut self.evaluations)
            };
            if let Err(e) = valued {
                for &t in &self.slots {
                    self.trees[t].nodes.clear();
                }
                return Err(e);
            }
            for (&(i, leaf), eval) in self.pending.iter().zip(&self.evaluations) {
                let mut priors = eval.priors;
                let tree = &mut self.trees[self.slots[i]];
                if per_round > 1 {
                    tree.virtual_loss(leaf, false);
                }
                // Only an unexpanded root is a leaf, so this is the root's first evaluation.
                if leaf == 0 {
                    tree.root_value = eval.value;
                    if config.noise_fraction > 0.0 && self.gumbel.is_none() {
                        add_dirichlet_noise(
                            &mut priors,
                            roots[i].legal_mask(),
                            config,
                            &mut rngs[i],
                        );
                    }
                }
                tree.expand(leaf, &priors);
                tree.backup(leaf, eval.value);
            }
        }
        Ok(self.slots.iter().map(|&t| self.trees[t].result()).collect())
    }
}

/// `evaluator` as the batch function of [`BatchSearch::run`], drawing from `rng`: an evaluator
/// cannot fail, so `let Ok(found) = search.run(..., with_evaluator(net, rng));` reads the result.
pub fn with_evaluator<'a, E: Evaluator + ?Sized>(
    evaluator: &'a mut E,
    rng: &'a mut ChaCha8Rng,
) -> impl FnMut(&[State], &mut [Evaluation]) -> Result<(), Infallible> + 'a {
    move |states, out| {
        evaluator.evaluate_batch(states, rng, out);
        Ok(())
    }
}

/// Mix Dirichlet(alpha) noise into the priors of the legal actions.
fn add_dirichlet_noise(
    priors: &mut [f32; MAX_HOLES],
    legal: u16,
    config: &PuctConfig,
    rng: &mut ChaCha8Rng,
) {
    let mut noise = [0.0f64; MAX_HOLES];
    let mut total = 0.0;
    for (a, slot) in noise.iter_mut().enumerate() {
        if legal >> a & 1 == 1 {
            *slot = sample_gamma(f64::from(config.dirichlet_alpha), rng);
            total += *slot;
        }
    }
    if total <= 0.0 {
        return;
    }
    let eps = config.noise_fraction;
    for (a, p) in priors.iter_mut().enumerate() {
        if legal >> a & 1 == 1 {
            *p = (1.0 - eps) * *p + eps * (noise[a] / total) as f32;
        }
    }
}

/// A Gamma(shape, 1) draw by Marsaglia and Tsang's method (shapes below 1 boosted by U^(1/shape)).
fn sample_gamma(shape: f64, rng: &mut ChaCha8Rng) -> f64 {
    if shape < 1.0 {
        let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        return sample_gamma(shape + 1.0, rng) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = sample_normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = rng.random();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A standard normal draw (Box-Muller).
fn sample_normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    use crate::evaluator::Rollout;
    use sowing_env::Rules;

    fn config(simulations: u32) -> PuctConfig {
        PuctConfig {
            simulations,
            c_puct: 1.5,
            dirichlet_alpha: 1.0,
            noise_fraction: 0.0,
            leaf_batch: 1,
        }
    }

    fn search(
        search: &mut BatchSearch,
        state: &State,
        simulations: u32,
        keep: bool,
    ) -> SearchResult {
        let mut rngs = [ChaCha8Rng::seed_from_u64(3)];
        let mut eval_rng = ChaCha8Rng::seed_from_u64(4);
        let roots = std::slice::from_ref(state);
        let config = config(simulations);
        let trees = if keep {
            Trees::Kept(&[0])
        } else {
            Trees::Fresh
        };
        let spec = SearchSpec::from(config);
        let Ok(results) = search.run(
            roots,
            trees,
            &spec,
            &mut rngs,
            with_evaluator(&mut Rollout, &mut eval_rng),
        );
        results[0].search
    }

    #[test]
    fn a_kept_tree_adds_the_visits_it_grew_below_the_new_root() {
        let start = State::initial(&Rules::preset("en-dodoi-6").unwrap());
        let mut searcher = BatchSearch::new();
        let first = search(&mut searcher, &start, 400, true);
        assert_eq!(
            first.visits.iter().sum::<u32>(),
            399,
            "the root's own evaluation is one"
        );
        let mine = first.best_action();
        let after_mine = start.play(mine).unwrap();
        // The reply the tree looked at most, and how often.
        let tree = &searcher.trees[0];
        let child = (tree.nodes[0].first_child..)
            .take(usize::from(tree.nodes[0].children))
            .find(|&c| usize::from(tree.nodes[c as usize].action) == mine)
            .unwrap();
        let node = tree.nodes[child as usize];
        let (reply, reply_visits) = (node.first_child..node.first_child + u32::from(node.children))
            .map(|c| &tree.nodes[c as usize])
            .map(|c| (usize::from(c.action), c.visits))
            .max_by_key(|&(_, v)| v)
            .unwrap();
        assert!(reply_visits > 1);
        let after_reply = after_mine.play(reply).unwrap();

        let kept = search(&mut searcher, &after_reply, 50, true);
        assert_eq!(kept.visits.iter().sum::<u32>(), reply_visits - 1 + 50);
        assert_eq!(searcher.trees[0].nodes[0].state, after_reply);
        // Every kept node still has its children right after it, linked to it.
        let nodes = &searcher.trees[0].nodes;
        for (id, node) in nodes.iter().enumerate() {
            if node.first_child != NO_CHILDREN {
                for c in node.first_child..node.first_child + u32::from(node.children) {
                    assert_eq!(nodes[c as usize].parent, id as u32);
                }
                let visits: u32 = (node.first_child..node.first_child + u32::from(node.children))
                    .map(|c| nodes[c as usize].visits)
                    .sum();
                assert_eq!(visits + 1, node.visits, "node {id}");
            }
        }

        // A position the tree never reached starts afresh, as does a plain search.
        let elsewhere = start.play(start.legal_actions().last().unwrap()).unwrap();
        let other = elsewhere
            .play(elsewhere.legal_actions().next().unwrap())
            .unwrap();
        let fresh = search(&mut searcher, &other, 50, true);
        assert_eq!(fresh.visits.iter().sum::<u32>(), 49);
        let plain = search(&mut searcher, &after_reply, 50, false);
        assert_eq!(plain.visits.iter().sum::<u32>(), 49);
    }

    /// Uniform priors and a value of 0 everywhere: any value left in the tree after a search is
    /// a virtual loss not taken back.
    struct Even;

    impl Evaluator for Even {
        fn evaluate(&mut self, state: &State, _: &mut ChaCha8Rng) -> Evaluation {
            let legal = state.legal_mask();
            let share = 1.0 / legal.count_ones() as f32;
            let mut priors = [0.0; MAX_HOLES];
            for a in state.legal_actions() {
                priors[a] = share;
            }
            Evaluation { priors, value: 0.0 }
        }
    }

    #[test]
    fn every_virtual_loss_is_taken_back() {
        // From the start no game ends within the tree's reach, so every value backed up is 0.
        let start = State::initial(&Rules::preset("en-dodoi-6").unwrap());
        for leaf_batch in [2, 8, 32] {
            let mut searcher = BatchSearch::new();
            let config = PuctConfig {
                leaf_batch,
                ..config(500)
            };
            let mut rngs = [ChaCha8Rng::seed_from_u64(3)];
            let mut eval_rng = ChaCha8Rng::seed_from_u64(4);
            let Ok(found) = searcher.run(
                std::slice::from_ref(&start),
                Trees::Fresh,
                &SearchSpec::from(config),
                &mut rngs,
                with_evaluator(&mut Even, &mut eval_rng),
            );
            let result = found[0].search;
            assert_eq!(result.visits.iter().sum::<u32>(), 499);
            let nodes = &searcher.trees[0].nodes;
            assert!(nodes.iter().all(|n| !n.state.is_over()));
            for (id, node) in nodes.iter().enumerate() {
                assert_eq!(node.value_sum, 0.0, "node {id}, {leaf_batch} leaves");
                if node.first_child != NO_CHILDREN {
                    let below: u32 = (node.first_child..)
                        .take(usize::from(node.children))
                        .map(|c| nodes[c as usize].visits)
                        .sum();
                    assert_eq!(below + 1, node.visits, "node {id}, {leaf_batch} leaves");
                } else {
                    assert_eq!(node.visits, 0, "an unexpanded node {id} was visited");
                }
            }
            // Uniform priors and equal values: the walks spread over every move.
            let legal = start.legal_actions().count();
            assert!(result.visits[..legal].iter().all(|&v| v > 50), "{result:?}");
        }
    }

    #[test]
    fn the_principal_line_follows_the_most_visited_children() {
        let start = State::initial(&Rules::preset("en-dodoi-6").unwrap());
        let mut searcher = BatchSearch::new();
        let first = search(&mut searcher, &start, 300, false);
        let line = searcher.principal_line(0, 8);
        assert!(line.len() >= 2, "{line:?}");
        assert_eq!(line[0], first.best_action());
        // Each move of the line is legal where it is played, and the most visited there.
        let tree = &searcher.trees[0];
        let mut id = 0usize;
        let mut state = start;
        for &a in &line {
            let node = tree.nodes[id];
            let children =
                node.first_child as usize..(node.first_child + u32::from(node.children)) as usize;
            let most = children
                .clone()
                .map(|c| tree.nodes[c].visits)
                .max()
                .unwrap();
            id = children
                .clone()
                .find(|&c| usize::from(tree.nodes[c].action) == a)
                .unwrap();
            assert_eq!(tree.nodes[id].visits, most);
            state = state.play(a).unwrap();
            assert_eq!(tree.nodes[id].state, state);
        }
        assert_eq!(searcher.principal_line(0, 1), line[..1]);
        assert!(searcher.principal_line(5, 8).is_empty(), "no such tree");
    }

    #[test]
    fn gamma_draws_have_the_right_mean() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for shape in [0.3, 1.0, 2.5] {
            let n = 20_000;
            let mean = (0..n).map(|_| sample_gamma(shape, &mut rng)).sum::<f64>() / n as f64;
            assert!(
                (mean - shape).abs() < 0.05 * shape.max(1.0),
                "shape {shape}: mean {mean}"
            );
        }
    }
}
