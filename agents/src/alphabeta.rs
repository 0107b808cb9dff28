//! The alpha-beta agent: negamax with alpha-beta pruning, iterative deepening, a transposition
//! table and move ordering, over a static evaluation of captures and seeds on each side.
//!
//! The table is allocated once per agent and kept between the moves of a game (a deeper search
//! of the last move is the best move ordering for this one); [`Agent::new_game`] forgets it by
//! moving to a new generation, in O(1). A depth budget is reproducible; a time budget is not,
//! since the depth reached depends on the machine and its load.
//!
//! Nodes are counted as positions made (each move played inside the search), as chess engines
//! count them.
//!
//! Given a tablebase ([`AlphaBeta::with_tablebase`]), the agent plays the perfect move where the
//! table holds the position, and values every position of the search the table holds exactly:
//! a won or lost result as a proven win or loss (ranked by the final margin, since the table
//! holds no distance to the end), anything else as a draw, 0, as a drawn game ends. Like the
//! table, such values ignore the ply cap.

use crate::agent::Agent;
use crate::budget::Budget;
use crate::hybrid::NetworkLeaves;
use crate::perfect::{PerfectPlay, table_option, table_serves};
use rand_chacha::ChaCha8Rng;
use sowing_env::{MAX_HOLES, Outcome, Rules, State};
use sowing_exact::Stop;
use sowing_exact::Wdl;
use sowing_exact::hash::state_key;
use sowing_exact::tablebase::Tablebase;
use std::sync::Arc;
use std::time::Instant;

/// The value of a won game: a win found `k` plies from the start scores `WIN - k`, so that a
/// sooner win is preferred and a later loss, and values stay the same wherever the search starts.
pub const WIN: i32 = 1_000_000_000;

/// A static value at least this large (in absolute value) is a proven win or loss.
const PROVEN: i32 = WIN / 2;

/// A position a tablebase gives as won scores `TABLE_WIN + final margin`, one it gives as lost
/// `-TABLE_WIN + final margin`: proven, below every win found at the end of a game (`WIN - ply`),
/// and the larger margin first.
const TABLE_WIN: i32 = PROVEN + 1024;

/// Weight of one captured seed in the evaluation, against one seed on the board.
pub const CAPTURE_WEIGHT: i32 = 4;

/// Positions in the transposition table: 2^20 entries of 16 bytes, 16 MiB.
const TABLE_BITS: u32 = 20;

/// A prior `p` orders a move as `p * PRIOR_KEY`, below the table's move.
const PRIOR_KEY: f32 = 1_000_000.0;

/// How often (in nodes) a search looks at the clock and asks its [`Stop`].
const CLOCK_EVERY: u64 = 1024;

/// The bound an entry's value is.
const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;

/// No move stored.
const NO_MOVE: u8 = 0x3F;

/// One transposition-table slot, 16 bytes.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    value: i32,
    generation: u16,
    depth: u8,
    /// The best move in the high six bits, the bound in the low two.
    move_bound: u8,
}

/// What the last search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    /// The deepest iteration completed.
    pub depth: u32,
    /// Its value for the player to move (see [`AlphaBeta::static_value`] for the scale).
    pub value: i32,
    /// Positions made over all iterations.
    pub nodes: u64,
}

/// Negamax with alpha-beta, iterative deepening, a transposition table and move ordering.
pub struct AlphaBeta {
    budget: Budget,
    table: Vec<Entry>,
    generation: u16,
    /// Children of the node at each distance from the root, made once and searched in order.
    children: Vec<[State; MAX_HOLES]>,
    nodes: u64,
    deadline: Option<Instant>,
    /// Node count at which the search next looks at the clock and asks `stop`.
    next_clock: u64,
    stop: Stop,
    stopped: bool,
    root_best: usize,
    last: SearchInfo,
    /// The tablebase's perfect play, and its exact values in the search.
    perfect: Option<PerfectPlay>,
    /// The network of a hybrid search, and what it names.
    network: Option<(NetworkLeaves, String)>,
    /// A hybrid's grandchildren valued together, and which of them need no network (kept to
    /// spare an allocation a node).
    prefetch: Vec<State>,
    prefetch_values: Vec<Option<i32>>,
}

impl std::fmt::Debug for AlphaBeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlphaBeta")
            .field("budget", &self.budget)
            .field("last", &self.last)
            .finish()
    }
}

impl AlphaBeta {
    /// The deepest search allowed, by depth budget or by time.
    pub const MAX_DEPTH: u32 = 64;

    /// An agent with this budget: `Count(d)` searches to depth `d`, `Time(t)` deepens until `t`
    /// has passed (at least depth 1).
    pub fn new(budget: Budget) -> AlphaBeta {
        let filler = State::initial(&Rules::preset("en-dodoi-6").expect("a preset"));
        AlphaBeta {
            budget,
            table: vec![Entry::default(); 1 << TABLE_BITS],
            generation: 1,
            children: vec![[filler; MAX_HOLES]; Self::MAX_DEPTH as usize + 1],
            nodes: 0,
            deadline: None,
            next_clock: 0,
            stop: Stop::never(),
            stopped: false,
            root_best: 0,
            last: SearchInfo::default(),
            perfect: None,
            network: None,
            prefetch: Vec::new(),
            prefetch_values: Vec::new(),
        }
    }

    /// The same agent searching as a hybrid (see the module documentation): `leaves` values its
    /// leaves and orders its moves; `name` (the checkpoint's path) is written into the agent's
    /// name as `:net=NAME`.
    pub fn with_network(mut self, leaves: NetworkLeaves, name: &str) -> AlphaBeta {
        self.network = Some((leaves, name.to_string()));
        self
    }

    /// Positions the network of a hybrid search has valued since the agent was made (0 for the
    /// static search).
    pub fn network_evaluations(&self) -> u64 {
        self.network.as_ref().map_or(0, |(n, _)| n.evaluated())
    }

    /// The same agent playing perfectly where `table` holds the position, and valuing the
    /// positions of its search that the table holds exactly (see the module documentation).
    pub fn with_tablebase(mut self, table: Arc<Tablebase>) -> AlphaBeta {
        self.perfect = Some(PerfectPlay::new(table));
        self
    }

    /// The exact score of `state` (not over) when the table holds it, on the scale of
    /// [`AlphaBeta::static_value`].
    #[inline]
    fn table_value(&self, state: &State) -> Option<i32> {
        let probe = self.perfect.as_ref()?.table().probe(state)?;
        Some(match probe.result(state) {
            Wdl::Win => TABLE_WIN + probe.final_margin(state),
            Wdl::Draw => 0,
            Wdl::Loss => -TABLE_WIN + probe.final_margin(state),
        })
    }

    /// What the last search did.
    pub fn last_search(&self) -> SearchInfo {
        self.last
    }

    /// The value of `state` for the player to move, without search: for a finished game
    /// `WIN - ply` won, `-(WIN - ply)` lost, 0 drawn or truncated; otherwise
    /// `CAPTURE_WEIGHT` per seed captured more than the opponent, plus one per seed more on the
    /// mover's side of the board than on the opponent's.
    pub fn static_value(state: &State) -> i32 {
        let me = state.to_move();
        match state.outcome() {
            Outcome::Ongoing => {}
            Outcome::Won(p) => {
                let win = WIN - state.ply().min(PROVEN as u32) as i32;
                return if p == me { win } else { -win };
            }
            Outcome::Draw | Outcome::Truncated => return 0,
        }
        let n = state.holes();
        let captured = state.captured(me) as i32 - state.captured(!me) as i32;
        let own_start = me.index() * n;
        let own = state.board().sum(own_start, own_start + n) as i32;
        let theirs = state.board().sum(0, 2 * n) as i32 - own;
        CAPTURE_WEIGHT * captured + own - theirs
    }

    /// Search `state` to exactly `depth` plies (iterative deepening up to it), whatever the
    /// agent's budget; gives the best action (`None` when the game is over) and the negamax value.
    /// The value equals plain minimax to that depth over [`AlphaBeta::static_value`] (a hybrid:
    /// over the network's scores at the leaves, the static value where the game is over).
    pub fn search(&mut self, state: &State, depth: u32) -> (Option<usize>, i32) {
        self.run(state, depth.clamp(1, Self::MAX_DEPTH), None)
    }

    fn run(
        &mut self,
        state: &State,
        max_depth: u32,
        deadline: Option<Instant>,
    ) -> (Option<usize>, i32) {
        self.nodes = 0;
        self.stopped = false;
        self.deadline = None;
        self.next_clock = 0;
        self.last = SearchInfo::default();
        if state.is_over() {
            let value = Self::static_value(state);
            self.last.value = value;
            return (None, value);
        }
        let mut best = state.legal_actions().next();
        let mut value = 0;
        for depth in 1..=max_depth {
            let v = self.negamax(state, depth, -WIN - 1, WIN + 1, 0);
            if self.stopped {
                break;
            }
            best = Some(self.root_best);
            value = v;
            self.last = SearchInfo {
                depth,
                value,
                nodes: self.nodes,
            };
            if v.abs() >= PROVEN {
                break;
            }
            // Depth 1 always completes; the clock is watched from depth 2 on.
            self.deadline = deadline;
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
        }
        self.last.nodes = self.nodes;
        (best, value)
    }

    fn negamax(&mut self, state: &State, depth: u32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if state.is_over() {
            return Self::static_value(state);
        }
        // The root is searched even where the table holds it, so that it has a best move.
        if ply > 0
            && let Some(value) = self.table_value(state)
        {
            return value;
        }
        if depth == 0 {
            return Self::static_value(state);
        }
        if self.nodes >= self.next_clock {
            self.next_clock = self.nodes + CLOCK_EVERY;
            self.stopped =
                self.deadline.is_some_and(|d| Instant::now() >= d) || self.stop.requested();
        }
        if self.stopped {
            return 0;
        }

        let key = state_key(state);
        let slot = (key & ((1 << TABLE_BITS) - 1)) as usize;
        let entry = self.table[slot];
        let mut table_move = NO_MOVE;
        if entry.key == key && entry.generation == self.generation {
            table_move = entry.move_bound >> 2;
            if ply > 0 && entry.depth as u32 >= depth {
                let v = entry.value;
                match entry.move_bound & 3 {
                    EXACT => return v,
                    LOWER if v >= beta => return v,
                    UPPER if v <= alpha => return v,
                    _ => {}
                }
            }
        }

        // Make every child once, and order them: the table's move first, then by the network's
        // policy where a hybrid has it, else by seeds captured.
        let priors = match &self.network {
            Some((network, _)) if depth >= 2 => network.priors(state),
            _ => None,
        };
        let mut actions = [0u8; MAX_HOLES];
        let mut keys = [0i32; MAX_HOLES];
        let mut count = 0;
        for action in state.legal_actions() {
            let Ok((child, info)) = state.play_with_info(action) else {
                continue;
            };
            self.children[ply][count] = child;
            actions[count] = action as u8;
            keys[count] = if action as u8 == table_move {
                i32::MAX
            } else if let Some(priors) = &priors {
                (priors[action] * PRIOR_KEY) as i32
            } else {
                info.captured as i32
            };
            count += 1;
        }
        self.nodes += count as u64;
        // A hybrid values the children of a node one ply above the leaves together, in one
        // forward pass, before their values are needed.
        let mut leaf_values = [None; MAX_HOLES];
        let batched = depth == 1 && self.network.is_some();
        if batched {
            for (value, child) in leaf_values.iter_mut().zip(&self.children[ply][..count]) {
                *value = if child.is_over() {
                    Some(Self::static_value(child))
                } else {
                    self.table_value(child)
                };
            }
            // A forward pass is long beside CLOCK_EVERY plies of the static search: look at the
            // clock before each.
            self.stopped =
                self.deadline.is_some_and(|d| Instant::now() >= d) || self.stop.requested();
            if self.stopped {
                return 0;
            }
            if let Some((network, _)) = self.network.as_mut() {
                network.value_children(&self.children[ply][..count], &mut leaf_values[..count]);
            }
        }
        // Two plies above the leaves, every grandchild is valued in one forward pass: each child
        // searched will value all of its own children, and a pass of a few dozen positions costs
        // about three of a handful.
        if depth == 2 && self.network.is_some() && !self.prefetch_grandchildren(ply, count) {
            return 0;
        }
        let mut order = [0u8; MAX_HOLES];
        for (i, slot) in order.iter_mut().enumerate().take(count) {
            *slot = i as u8;
        }

        let alpha_start = alpha;
        let mut best = -WIN - 1;
        let mut best_action = actions[0];
        for i in 0..count {
            // Selection sort step: later moves are often never needed after a cut-off.
            let mut pick = i;
            for j in i + 1..count {
                if keys[order[j] as usize] > keys[order[pick] as usize] {
                    pick = j;
                }
            }
            order.swap(i, pick);
            let k = order[i] as usize;
            let v = match leaf_values[k] {
                Some(leaf) if batched => -leaf,
                _ => {
                    let child = self.children[ply][k];
                    -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
                }
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_action = actions[k];
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }

        let bound = if best <= alpha_start {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.table[slot] = Entry {
            key,
            value: best,
            generation: self.generation,
            depth: depth as u8,
            move_bound: best_action << 2 | bound,
        };
        if ply == 0 {
            self.root_best = best_action as usize;
        }
        best
    }

    /// A hybrid's network values the children of the first `count` children at `ply` (those
    /// not over, not held by the tablebase) into its cache, in one forward pass; false when the
    /// clock or the stop ended the search first.
    fn prefetch_grandchildren(&mut self, ply: usize, count: usize) -> bool {
        let mut leaves = std::mem::take(&mut self.prefetch);
        let mut values = std::mem::take(&mut self.prefetch_values);
        leaves.clear();
        values.clear();
        for k in 0..count {
            let child = self.children[ply][k];
            if child.is_over() || self.table_value(&child).is_some() {
                continue;
            }
            for action in child.legal_actions() {
                if let Ok(grandchild) = child.play(action) {
                    let known = grandchild.is_over() || self.table_value(&grandchild).is_some();
                    leaves.push(grandchild);
                    // Any value marks a leaf the network need not see.
                    values.push(known.then_some(0));
                }
            }
        }
        self.stopped = self.deadline.is_some_and(|d| Instant::now() >= d) || self.stop.requested();
        if !self.stopped
            && let Some((network, _)) = self.network.as_mut()
        {
            network.value_children(&leaves, &mut values);
        }
        self.prefetch = leaves;
        self.prefetch_values = values;
        !self.stopped
    }
}

impl Agent for AlphaBeta {
    fn name(&self) -> String {
        let net = match &self.network {
            Some((_, name)) => format!(":net={name}"),
            None => String::new(),
        };
        format!(
            "alphabeta:{}{net}{}",
            self.budget.spec(),
            table_option(self.perfect.as_ref().map(|p| p.table().as_ref()))
        )
    }

    /// On a finished game, which has no legal move, this gives 0, which `State::play` refuses.
    fn choose(&mut self, state: &State, _rng: &mut ChaCha8Rng) -> usize {
        if state.legal_count() == 1 {
            return state.legal_actions().next().unwrap_or(0);
        }
        if let Some(best) = self
            .perfect
            .as_mut()
            .and_then(|perfect| perfect.choose(state))
        {
            return best;
        }
        let (best, _) = match self.budget {
            Budget::Count(depth) => self.run(state, depth.clamp(1, Self::MAX_DEPTH), None),
            Budget::Time(t) => self.run(state, Self::MAX_DEPTH, Some(Instant::now() + t)),
        };
        best.unwrap_or(0)
    }

    fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }

    fn can_play(&self, rules: &Rules) -> Result<(), String> {
        if let Some((network, _)) = &self.network
            && network.holes() != rules.holes()
        {
            return Err(format!(
                "{}: its network was trained on {} holes per row and cannot value a {}-hole \
                     game",
                self.name(),
                network.holes(),
                rules.holes()
            ));
        }
        table_serves(self.perfect.as_ref().map(|p| p.table().as_ref()), rules)
    }

    fn new_game(&mut self) {
        if let Some(perfect) = &mut self.perfect {
            perfect.new_game();
        }
        if let Some((network, _)) = &mut self.network {
            network.new_game();
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Entries of 65,536 games ago would look current: wipe them, so play stays
            // reproducible however many games the agent has played.
            self.table.fill(Entry::default());
            self.generation = 1;
        }
    }
}
