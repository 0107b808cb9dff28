//! An exact result search: whether the player to move wins, draws or loses under perfect play,
//! decided by searching every line to the end of the game (or to a position a tablebase
//! holds), within a budget of positions. It labels the exact test positions
//! ([`crate::positions`]): a label is settled or absent, never guessed.
//!
//! **What a result is.** The same as a tablebase's: a player wins when they can force the game to
//! end with more seeds captured; play that never ends is a draw (a truncated game has no winner).
//! The search ignores the ply cap as tables do: a line that would reach it leaves the position
//! unsettled rather than counting the truncation.
//!
//! **How.** Two AND-OR proofs per position: "the mover forces a win" and "the opponent forces a
//! win"; neither is a draw. A proof is complete (no depth limit), so "no win" covers every line.
//! A position repeated on the current line is endless play, which no one wins. The answer below a
//! node can then depend on the line above it (the graph-history interaction): a win never does
//! (the winner's strategy avoids every repetition), but "no win" found through a repetition of a
//! position above the node holds only on this line. So every answer carries the shallowest line
//! index that a repetition under it reached, and the transposition table stores a "no" only when
//! that index is the node's own or deeper. A proof that never meets a repetition above its root
//! is exact: if the prover can force a win, they can with no position repeated.

pub mod guide;
mod proof_number;

pub use guide::{Guidance, Guide, Lean};
pub use proof_number::NODE_BYTES;

use crate::prove::children_by;
use crate::tablebase::Tablebase;
use crate::wdl::Wdl;
use sowing_env::{Board, MAX_HOLES, Outcome, Player, State};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The longest line searched, in plies; a line longer than this leaves the position unsettled
/// (about a kilobyte of stack per ply).
pub const MAX_LINE: usize = 600;

/// No repetition met.
const NONE: usize = usize::MAX;

/// What the transposition table knows of a position: bits of [`Slot::known`].
const WINS: u8 = 1;
const NO_WIN: u8 = 2;
const LOSES: u8 = 4;
const NO_LOSS: u8 = 8;

/// One slot of the transposition table.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    /// The [`ResultSearch::clear`] generation it was stored in; older ones are empty.
    generation: u16,
    known: u8,
    /// The move that won (`WINS`) or refuted (`NO_LOSS`), tried first next time.
    hint: u8,
}

/// A proof's answer and the shallowest line index a repetition under it reached.
#[derive(Clone, Copy)]
struct Answer {
    yes: bool,
    repeated: usize,
}

impl Answer {
    const YES: Answer = Answer {
        yes: true,
        repeated: NONE,
    };
    const NO: Answer = Answer {
        yes: false,
        repeated: NONE,
    };
}

/// Out of budget, or a line too long: the position stays unsettled.
struct Unsettled;

/// An exact search of win, draw or loss, with a transposition table kept between calls.
pub struct ResultSearch {
    slots: Vec<Slot>,
    mask: usize,
    generation: u16,
    tablebase: Option<Arc<Tablebase>>,
    /// The positions of the current line (board, mover), from the root.
    line: Vec<(Board, Player)>,
    /// Where the current line's last capture left it: repetitions are looked for from here on.
    layer_start: Vec<usize>,
    made: u64,
    budget: u64,
    /// Positions the last call made, in all.
    nodes: u64,
    /// How each proof is searched.
    order: Order,
    /// The proof-number search's tree, kept between proofs for its room.
    tree: Vec<proof_number::Node>,
    /// What judges the proof-number search's leaves near the root, if anything.
    guide: Option<Box<dyn Guide>>,
    guidance: Guidance,
    /// Leaves the guide judged in the current (or last) call.
    judged: u64,
}

/// How the result search grows its proofs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Depth first, the likeliest move first (captures), each line to its end.
    DepthFirst,
    /// Best first, by proof and disproof numbers.
    #[default]
    ProofNumber,
}

impl std::fmt::Debug for ResultSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultSearch")
            .field("slots", &self.slots.len())
            .field("tablebase", &self.tablebase)
            .field("order", &self.order)
            .field("guided", &self.guide.is_some())
            .field("guidance", &self.guidance)
            .finish_non_exhaustive()
    }
}

impl ResultSearch {
    /// A search with a transposition table of `2^table_bits` slots (16 bytes each), for the
    /// positions of one rule set (clear it, or make another, for other rules).
    pub fn new(table_bits: u32) -> ResultSearch {
        let size = 1usize << table_bits.clamp(4, 32);
        ResultSearch {
            slots: vec![Slot::default(); size],
            mask: size - 1,
            generation: 1,
            tablebase: None,
            line: Vec::new(),
            layer_start: Vec::new(),
            made: 0,
            budget: 0,
            nodes: 0,
            order: Order::default(),
            tree: Vec::new(),
            guide: None,
            guidance: Guidance::default(),
            judged: 0,
        }
    }

    /// The same search with `guide` judging the proof-number search's leaves as `guidance`
    /// says (the depth-first order does not use it). Results are the same with any guide or
    /// none; only the positions spent on them change.
    pub fn with_guide(mut self, guide: Box<dyn Guide>, guidance: Guidance) -> ResultSearch {
        self.guide = Some(guide);
        self.guidance = guidance;
        self
    }

    /// The guide, taken back (the search goes on unguided).
    pub fn take_guide(&mut self) -> Option<Box<dyn Guide>> {
        self.guide.take()
    }

    /// Leaves the guide judged in the last call (0 without a guide).
    pub fn judged(&self) -> u64 {
        self.judged
    }

    /// The same search growing its proofs in `order`.
    pub fn with_order(mut self, order: Order) -> ResultSearch {
        self.order = order;
        self
    }

    /// The same search taking every position `table` holds from it, at once.
    pub fn with_tablebase(mut self, table: Arc<Tablebase>) -> ResultSearch {
        self.clear();
        self.tablebase = Some(table);
        self
    }

    /// The tablebase it takes positions from, if any.
    pub fn tablebase(&self) -> Option<&Tablebase> {
        self.tablebase.as_deref()
    }

    /// Forget every stored answer (they stay true for these rules), in O(1): a search that
    /// starts afresh costs the same whatever was searched before, so its budget settles the
    /// same positions.
    pub fn clear(&mut self) {
        self.nodes = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    /// Positions made by the last call (0 after [`ResultSearch::clear`]).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The perfect-play result of `state` for the player to move, or `None` when `budget`
    /// positions do not settle it (or a line grows past [`MAX_LINE`] or the ply cap). A game
    /// that is over has its own result (a truncated one is a draw).
    pub fn result(&mut self, state: &State, budget: u64) -> Option<Wdl> {
        self.start(budget);
        let result = self.settle(state).ok();
        self.nodes = self.made;
        result
    }

    /// The result for the mover of `state` after each legal move, lowest action first, or `None`
    /// when `budget` positions (for all of them together) do not settle every one.
    pub fn move_results(&mut self, state: &State, budget: u64) -> Option<Vec<(usize, Wdl)>> {
        self.start(budget);
        let mut out = Vec::with_capacity(state.legal_count());
        let mut settled = true;
        for a in state.legal_actions() {
            let child = state.play_unchecked(a);
            self.made += 1;
            match self.settle(&child) {
                Ok(r) => out.push((a, r.flip())),
                Err(Unsettled) => {
                    settled = false;
                    break;
                }
            }
        }
        self.nodes = self.made;
        settled.then_some(out)
    }

    fn start(&mut self, budget: u64) {
        self.made = 0;
        self.judged = 0;
        self.budget = budget;
        self.line.clear();
        self.layer_start.clear();
    }

    /// The result of `state` for its mover, searched from an empty line.
    fn settle(&mut self, state: &State) -> Result<Wdl, Unsettled> {
        if let Some(known) = self.decided(state) {
            return Ok(known);
        }
        let me = state.to_move();
        // The player ahead is the likelier winner: their proof first, which settles the
        // position alone when it holds.
        let ahead = if state.captured(!me) > state.captured(me) {
            !me
        } else {
            me
        };
        if self.proves(state, ahead)? {
            return Ok(if ahead == me { Wdl::Win } else { Wdl::Loss });
        }
        if self.proves(state, !ahead)? {
            return Ok(if ahead == me { Wdl::Loss } else { Wdl::Win });
        }
        Ok(Wdl::Draw)
    }

    /// Whether `prover` forces a win from `state`, searched from an empty line in this
    /// search's order.
    fn proves(&mut self, state: &State, prover: Player) -> Result<bool, Unsettled> {
        Ok(match self.order {
            Order::DepthFirst => self.forces(state, prover)?.yes,
            Order::ProofNumber => self.forces_best_first(state, prover)?.yes,
        })
    }

    /// The result of `state` for its mover when it needs no search: a game over (truncated is a
    /// draw), or a position the table holds.
    fn decided(&self, state: &State) -> Option<Wdl> {
        let me = state.to_move();
        match state.outcome() {
            Outcome::Won(p) => Some(if p == me { Wdl::Win } else { Wdl::Loss }),
            Outcome::Draw | Outcome::Truncated => Some(Wdl::Draw),
            Outcome::Ongoing => {
                let probe = self.tablebase.as_ref()?.probe(state)?;
                Some(probe.result(state))
            }
        }
    }

    fn count_node(&mut self) -> Result<(), Unsettled> {
        self.made += 1;
        if self.made > self.budget {
            Err(Unsettled)
        } else {
            Ok(())
        }
    }

    /// What can be said of "`prover` forces a win from `state`" without searching below it: the
    /// game's end, the table, the transposition table, a repetition on the line.
    fn quick(&self, state: &State, prover: Player) -> Result<Option<Answer>, Unsettled> {
        if let Some(known) = self.known(state, prover)? {
            return Ok(Some(known));
        }
        let from = self.layer_start.last().copied().unwrap_or(0);
        let (board, mover) = (*state.board(), state.to_move());
        if let Some(at) = (from..self.line.len()).find(|&i| self.line[i] == (board, mover)) {
            return Ok(Some(Answer {
                yes: false,
                repeated: at,
            }));
        }
        Ok(None)
    }

    /// What holds of "`prover` forces a win from `state`" on any line: the game's end, a lead
    /// the prover cannot overcome, the table, the transposition table.
    fn known(&self, state: &State, prover: Player) -> Result<Option<Answer>, Unsettled> {
        match state.outcome() {
            Outcome::Won(p) => return Ok(Some(if p == prover { Answer::YES } else { Answer::NO })),
            Outcome::Draw => return Ok(Some(Answer::NO)),
            // Only a line past the ply cap gets here: the cap is not part of a result.
            Outcome::Truncated => return Err(Unsettled),
            Outcome::Ongoing => {}
        }
        if conceded(state, prover) {
            return Ok(Some(Answer::NO));
        }
        if let Some(result) = self.tablebase.as_ref().and_then(|t| t.probe(state)) {
            let mine = result.result(state);
            let won = if state.to_move() == prover {
                Wdl::Win
            } else {
                Wdl::Loss
            };
            return Ok(Some(if mine == won { Answer::YES } else { Answer::NO }));
        }
        // A stored answer is true on any line: it goes before a repetition, which holds only on
        // this one.
        let key = position_key(state);
        let slot = self.slots[self.index(key)];
        if slot.key == key && slot.generation == self.generation {
            let (yes, no) = if state.to_move() == prover {
                (WINS, NO_WIN)
            } else {
                (LOSES, NO_LOSS)
            };
            if slot.known & yes != 0 {
                return Ok(Some(Answer::YES));
            }
            if slot.known & no != 0 {
                return Ok(Some(Answer::NO));
            }
        }
        Ok(None)
    }

    /// Store what a search found of "`prover` forces a win from `state`" (an answer true on any
    /// line), and the move that decided it.
    fn store(&mut self, state: &State, prover: Player, yes: bool, decisive: Option<usize>) {
        let key = position_key(state);
        let at = self.index(key);
        let bit = match (state.to_move() == prover, yes) {
            (true, true) => WINS,
            (true, false) => NO_WIN,
            (false, true) => LOSES,
            (false, false) => NO_LOSS,
        };
        let generation = self.generation;
        let slot = &mut self.slots[at];
        if slot.key != key || slot.generation != generation {
            *slot = Slot {
                key,
                generation,
                known: 0,
                hint: 0,
            };
        }
        slot.known |= bit;
        if let Some(a) = decisive {
            slot.hint = a as u8;
        }
    }

    /// The move a stored answer for `state` recorded, tried first.
    fn hint(&self, state: &State) -> Option<u8> {
        let key = position_key(state);
        let slot = self.slots[self.index(key)];
        (slot.key == key && slot.generation == self.generation).then_some(slot.hint)
    }

    fn index(&self, key: u64) -> usize {
        key as usize & self.mask
    }

    /// Whether `prover` forces a win from `state`, a game not over that the table does not hold.
    fn forces(&mut self, state: &State, prover: Player) -> Result<Answer, Unsettled> {
        if let Some(known) = self.quick(state, prover)? {
            return Ok(known);
        }
        if self.line.len() >= MAX_LINE {
            return Err(Unsettled);
        }
        let hint = self.hint(state);
        let depth = self.line.len();
        let entering_layer = self.line.last().is_none_or(|(b, _)| {
            b.sum(0, 2 * state.holes()) != state.board().sum(0, 2 * state.holes())
        });
        if entering_layer {
            self.layer_start.push(depth);
        }
        self.line.push((*state.board(), state.to_move()));
        let searched = self.search_children(state, prover, hint);
        self.line.pop();
        if entering_layer {
            self.layer_start.pop();
        }
        let (answer, decisive) = searched?;
        // A "no" that went through a repetition above this node holds only on this line.
        let own = answer.yes || answer.repeated >= depth;
        if own {
            self.store(state, prover, answer.yes, decisive);
        }
        Ok(Answer {
            yes: answer.yes,
            repeated: if own { NONE } else { answer.repeated },
        })
    }

    /// The children of `state` (on the line already): for the prover to move, whether one wins;
    /// for the defender, whether all do. Also the move that decided it (the win, or the
    /// refutation), for the transposition table.
    fn search_children(
        &mut self,
        state: &State,
        prover: Player,
        hint: Option<u8>,
    ) -> Result<(Answer, Option<usize>), Unsettled> {
        let proving = state.to_move() == prover;
        let (children, count) = ordered_children(state, hint);
        // First what is known without search: a win at once, or a refutation that holds on any
        // line; the children left are searched in order.
        let mut open = [false; MAX_HOLES];
        let mut repeated = NONE;
        let mut repetition = None;
        for (i, &(a, child)) in children[..count].iter().enumerate() {
            self.count_node()?;
            match self.quick(&child, prover)? {
                Some(known) if known.yes == proving && known.repeated == NONE => {
                    return Ok((known, Some(a)));
                }
                Some(known) if known.repeated != NONE => {
                    repeated = repeated.min(known.repeated);
                    repetition.get_or_insert(a);
                }
                Some(_) => {}
                None => open[i] = true,
            }
        }
        if !proving && repetition.is_some() {
            // The defender goes back round the cycle: no win on this line.
            return Ok((
                Answer {
                    yes: false,
                    repeated,
                },
                repetition,
            ));
        }
        for (i, &(a, child)) in children[..count].iter().enumerate() {
            if !open[i] {
                continue;
            }
            let answer = self.forces(&child, prover)?;
            if answer.yes == proving {
                return Ok((
                    Answer {
                        yes: proving,
                        repeated: if proving { NONE } else { answer.repeated },
                    },
                    Some(a),
                ));
            }
            repeated = repeated.min(answer.repeated);
        }
        Ok((
            Answer {
                yes: !proving,
                repeated: if proving { repeated } else { NONE },
            },
            None,
        ))
    }
}

/// The children of `state`: the hinted move first, then by seeds the move captures.
fn ordered_children(state: &State, hint: Option<u8>) -> ([(usize, State); MAX_HOLES], usize) {
    let me = state.to_move();
    children_by(state, |a, child| {
        let gained = i32::from(child.captured(me)) - i32::from(state.captured(me));
        gained + if hint == Some(a as u8) { 1_000 } else { 0 }
    })
}

/// Whether `prover` can no longer win `state`, a game not over: the opponent holds at least half
/// of all the seeds. Captures never go back, and the seeds left on the board go to a player when
/// the game ends, so the prover's final total stays at most half (or the game never ends, a
/// draw). The converse does not hold: a player with more than half still has to make the game
/// end, and the opponent may hold it in a cycle.
fn conceded(state: &State, prover: Player) -> bool {
    let captures = state.captures();
    let total = state.board().sum(0, 2 * state.holes())
        + u32::from(captures.south)
        + u32::from(captures.north);
    2 * u32::from(state.captured(!prover)) >= total
}

/// A 64-bit key of what decides a result: the board, the captures and the player to move (not
/// the ply, which results ignore).
fn position_key(state: &State) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    state.board().hash(&mut h);
    state.captures().south.hash(&mut h);
    state.captures().north.hash(&mut h);
    state.to_move().hash(&mut h);
    h.finish()
}
