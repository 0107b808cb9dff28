//! Proof-number search for the result search: the same question as the depth-first proof ("does
//! `prover` force a win from here?"), answered by growing a tree best first. Each node keeps a
//! proof number (how many more leaves must be proven to prove it, at least) and a disproof number;
//! the leaf expanded next is the one on the most-proving path, so effort goes where a proof is
//! cheapest instead of down the first line as deep as it goes (Allis 1994).
//!
//! **Exactness.** Leaves are decided by what holds on any line ([`ResultSearch::known`]: the
//! game's end, a lead the prover cannot overcome, the table, the transposition table) or by a
//! repetition of a position on the tree's path to them (endless play: no win). A tree has one
//! path to each node, so a repetition found on it is exact for that node. As in the depth-first
//! proof, a "no" that went through a repetition above a node holds only on that path, so each
//! node keeps the shallowest depth a repetition under it reached, and the transposition table
//! receives a "no" only when that depth is the node's own or deeper; a "yes" always.
//!
//! Every child made counts one position against the budget, as in the depth-first proof, so the
//! two spend comparable budgets.
//!
//! **Guided.** With a [`Guide`](super::guide::Guide), leaves near the root start from the
//! guide's judgement instead of the seeds each side lacks ([`super::guide`]); which leaves are
//! settled, and how, is the same either way.

use super::guide::{self, Lean};
use super::{Answer, NONE, ResultSearch, Unsettled, ordered_children};
use crate::memory;
use sowing_env::{MAX_HOLES, Player, State};

/// A proof or disproof number no finite work reaches: the node is settled the other way.
const INF: u32 = u32::MAX / 4;

/// No node (the root's parent).
const ROOT_PARENT: u32 = u32::MAX;

/// Bytes of one node of the proof tree: a search of `nodes` positions holds at most about
/// `nodes` of them.
pub const NODE_BYTES: u64 = std::mem::size_of::<Node>() as u64;

/// One node of the proof tree.
#[derive(Clone, Copy)]
pub(super) struct Node {
    state: State,
    proof: u32,
    disproof: u32,
    parent: u32,
    /// The first child; children lie side by side.
    first: u32,
    /// Children made (0: a leaf).
    children: u8,
    action: u8,
    depth: u32,
    /// For a node disproven: the shallowest depth a repetition under it reached ([`NONE`]:
    /// none, the "no" holds on any line).
    repeated: usize,
}

// The memory check before a search counts on a node this size.
const _: () = assert!(NODE_BYTES <= 96);

impl Node {
    fn leaf(
        state: State,
        action: usize,
        parent: u32,
        depth: u32,
        prover: Player,
        lean: Option<&Lean>,
    ) -> Node {
        // Mobility (the prover needs one move, the defender must answer all of them), plus the
        // seeds each side still lacks: the prover to pass half of all the seeds, the defender
        // to reach half and hold the prover off. The further a side is from its goal, the more
        // work its proof is likely to take (evaluation-based initialisation). A guide's
        // judgement adds as many again, shared out by the prover's chance.
        let moves = state.legal_count().max(1) as u32;
        let (proof, disproof) = if state.to_move() == prover {
            (1, moves)
        } else {
            (moves, 1)
        };
        let captures = state.captures();
        let total = state.board().sum(0, 2 * state.holes())
            + u32::from(captures.south)
            + u32::from(captures.north);
        let to_win = (total / 2 + 1).saturating_sub(u32::from(state.captured(prover)));
        let to_hold = total
            .div_ceil(2)
            .saturating_sub(u32::from(state.captured(!prover)));
        let (for_proof, for_disproof) = match lean {
            Some(lean) => guide::shares(lean, state.to_move(), prover, to_win, to_hold),
            None => (to_win, to_hold),
        };
        let numbers = (proof + for_proof, disproof + for_disproof);
        Node::new(state, action, parent, depth, numbers, NONE)
    }

    fn settled(state: State, action: usize, parent: u32, depth: u32, answer: Answer) -> Node {
        let numbers = if answer.yes { (0, INF) } else { (INF, 0) };
        Node::new(state, action, parent, depth, numbers, answer.repeated)
    }

    /// A leaf with its proof and disproof numbers.
    fn new(
        state: State,
        action: usize,
        parent: u32,
        depth: u32,
        (proof, disproof): (u32, u32),
        repeated: usize,
    ) -> Node {
        Node {
            state,
            proof,
            disproof,
            parent,
            first: 0,
            children: 0,
            action: action as u8,
            depth,
            repeated,
        }
    }
}

impl ResultSearch {
    /// Whether `prover` forces a win from `state`, searched best first from an empty line.
    pub(super) fn forces_best_first(
        &mut self,
        state: &State,
        prover: Player,
    ) -> Result<Answer, Unsettled> {
        if let Some(known) = self.known(state, prover)? {
            return Ok(known);
        }
        // The tree of the last proof is cleared, not freed: the next one reuses its room.
        let mut tree = std::mem::take(&mut self.tree);
        tree.clear();
        let answer = self.grow_tree(&mut tree, state, prover);
        self.tree = tree;
        answer
    }

    fn grow_tree(
        &mut self,
        tree: &mut Vec<Node>,
        state: &State,
        prover: Player,
    ) -> Result<Answer, Unsettled> {
        if !memory::grow(tree, 1 << 12) {
            return Err(Unsettled);
        }
        let mut lean = [Lean::default()];
        let judged = self.judge(std::slice::from_ref(state), &[true], 0, &mut lean);
        let root_lean = judged[0].then_some(&lean[0]);
        tree.push(Node::leaf(*state, 0, ROOT_PARENT, 0, prover, root_lean));
        loop {
            let root = tree[0];
            if root.proof == 0 {
                return Ok(Answer::YES);
            }
            if root.disproof == 0 {
                return Ok(Answer {
                    yes: false,
                    repeated: root.repeated,
                });
            }
            let leaf = most_proving(tree, prover);
            self.expand(tree, leaf, prover)?;
            self.update(tree, leaf, prover);
        }
    }

    /// Make the children of leaf `at`, each decided where that needs no search.
    fn expand(&mut self, tree: &mut Vec<Node>, at: usize, prover: Player) -> Result<(), Unsettled> {
        let node = tree[at];
        let (children, count) = ordered_children(&node.state, self.hint(&node.state));
        if tree.len() + count > u32::MAX as usize / 2 {
            return Err(Unsettled);
        }
        if tree.len() + count > tree.capacity() {
            // Doubling, but never past the budget's positions (the tree cannot hold more), so
            // that the memory checked before a search bounds it.
            let room = (self.budget.saturating_sub(self.made) as usize).saturating_add(count);
            if !memory::grow_exact(tree, tree.len().min(room).max(count)) {
                return Err(Unsettled);
            }
        }
        let first = tree.len() as u32;
        let depth = node.depth + 1;
        // What is settled without search first; the open leaves are judged in one batch.
        let mut settled: [Option<Answer>; MAX_HOLES] = [None; MAX_HOLES];
        let mut open = [false; MAX_HOLES];
        let mut states = [node.state; MAX_HOLES];
        for (i, &(_, child)) in children[..count].iter().enumerate() {
            self.count_node()?;
            states[i] = child;
            settled[i] = match self.known(&child, prover)? {
                Some(answer) => Some(answer),
                None => repetition(tree, at, &child).map(|d| Answer {
                    yes: false,
                    repeated: d as usize,
                }),
            };
            open[i] = settled[i].is_none();
        }
        let mut leans = [Lean::default(); MAX_HOLES];
        let judged = self.judge(&states[..count], &open[..count], depth, &mut leans);
        for (i, &(a, child)) in children[..count].iter().enumerate() {
            let made = match settled[i] {
                Some(answer) => Node::settled(child, a, at as u32, depth, answer),
                None => Node::leaf(
                    child,
                    a,
                    at as u32,
                    depth,
                    prover,
                    judged[i].then_some(&leans[i]),
                ),
            };
            tree.push(made);
        }
        let node = &mut tree[at];
        node.first = first;
        node.children = count as u8;
        Ok(())
    }

    /// The guide's judgement of the `open` ones of `states`, leaves `depth` plies below the
    /// root, in one batch into `out`; which were judged (none without a guide, or deeper than
    /// its [`guide::Guidance::depth`]).
    fn judge(
        &mut self,
        states: &[State],
        open: &[bool],
        depth: u32,
        out: &mut [Lean],
    ) -> [bool; MAX_HOLES] {
        let mut judged = [false; MAX_HOLES];
        let Some(guide) = self.guide.as_mut() else {
            return judged;
        };
        if depth > self.guidance.depth {
            return judged;
        }
        let mut batch = [states[0]; MAX_HOLES];
        let mut at = [0usize; MAX_HOLES];
        let mut n = 0;
        for (i, s) in states.iter().enumerate() {
            if open[i] {
                batch[n] = *s;
                at[n] = i;
                n += 1;
            }
        }
        if n == 0 {
            return judged;
        }
        let mut leans = [Lean::default(); MAX_HOLES];
        guide.lean(&batch[..n], &mut leans[..n]);
        for k in 0..n {
            out[at[k]] = leans[k];
            judged[at[k]] = true;
        }
        self.judged += n as u64;
        judged
    }

    /// Bring the numbers of `at` and its ancestors up to date with their children, storing what
    /// becomes settled.
    fn update(&mut self, tree: &mut [Node], mut at: usize, prover: Player) {
        loop {
            let node = tree[at];
            let kids = &tree[node.first as usize..node.first as usize + node.children as usize];
            let proving = node.state.to_move() == prover;
            let (mut proof, mut disproof, mut repeated, mut decisive) = if proving {
                (INF, 0u32, NONE, None)
            } else {
                (0u32, INF, NONE, None)
            };
            // An expanded node has children: a game not over has a legal move.
            debug_assert!(!kids.is_empty());
            if proving {
                // OR: proven by one child, disproven by all.
                let mut any_proven = None;
                for k in kids {
                    if k.proof < proof {
                        proof = k.proof;
                    }
                    disproof = (disproof + k.disproof).min(INF);
                    if k.proof == 0 {
                        any_proven.get_or_insert(k.action as usize);
                    }
                    repeated = repeated.min(k.repeated);
                }
                decisive = any_proven;
                if proof == 0 {
                    disproof = INF;
                    repeated = NONE;
                }
            } else {
                // AND: proven by all, disproven by one (the one whose "no" holds most widely).
                let mut best: Option<&Node> = None;
                for k in kids {
                    proof = (proof + k.proof).min(INF);
                    if k.disproof < disproof {
                        disproof = k.disproof;
                    }
                    if k.disproof == 0 && best.is_none_or(|b| k.repeated > b.repeated) {
                        best = Some(k);
                    }
                }
                if let Some(b) = best {
                    proof = INF;
                    repeated = b.repeated;
                    decisive = Some(b.action as usize);
                }
            }
            if disproof != 0 {
                repeated = NONE;
            }
            let changed = (proof, disproof, repeated) != (node.proof, node.disproof, node.repeated);
            let n = &mut tree[at];
            n.proof = proof;
            n.disproof = disproof;
            n.repeated = repeated;
            let settled = proof == 0 || disproof == 0;
            if settled && changed && (proof == 0 || repeated >= node.depth as usize) {
                self.store(&node.state, prover, proof == 0, decisive);
            }
            if !changed || node.parent == ROOT_PARENT {
                break;
            }
            at = node.parent as usize;
        }
    }
}

/// The leaf to expand: from the root, the child of least proof number where the prover moves,
/// of least disproof number where the defender does.
fn most_proving(tree: &[Node], prover: Player) -> usize {
    let mut at = 0;
    loop {
        let node = &tree[at];
        if node.children == 0 {
            return at;
        }
        let first = node.first as usize;
        let kids = &tree[first..first + node.children as usize];
        let pick = if node.state.to_move() == prover {
            (0..kids.len()).min_by_key(|&i| kids[i].proof)
        } else {
            (0..kids.len()).min_by_key(|&i| kids[i].disproof)
        };
        at = first + pick.expect("an expanded node has children");
    }
}

/// The depth of a node on the path to `parent` (itself included) whose position `child` repeats,
/// within the layer of `child`'s seeds (a capture makes every earlier position unreachable).
fn repetition(tree: &[Node], parent: usize, child: &State) -> Option<u32> {
    let holes = 2 * child.holes();
    let seeds = child.board().sum(0, holes);
    let mut at = parent as u32;
    while at != ROOT_PARENT {
        let node = &tree[at as usize];
        if node.state.board().sum(0, holes) != seeds {
            return None;
        }
        if node.state.board() == child.board() && node.state.to_move() == child.to_move() {
            return Some(node.depth);
        }
        at = node.parent;
    }
    None
}
