//! The legal-move mask: which of the mover's holes can be sown without the sowing going on for
//! ever. Every candidate move has to be sown to find out, so this is where the engine spends
//! most of its time. The boards those sowings leave can be kept ([`SownMoves`]), so that the move
//! then played need not be sown a second time.

use crate::board::Board;
use crate::player::Player;
use crate::rules::{MAX_HOLES, Rules};
use crate::sow::{BySwitches, Ring, Sowing, by_switches, sow_laps};
use crate::switches::Direction;

/// The sowings of one position's legal moves, kept from working out its mask: for each legal
/// action, the board after sowing (before any capture) and the hole where the last seed fell.
///
/// Playing a move costs one sowing for the move and one per candidate of the next position's
/// mask; keeping these saves the first. [`State::play_sown`](crate::State::play_sown) uses and
/// refills them; it checks that they belong to the state it is called on, so a stale or foreign
/// `SownMoves` costs a sowing but never gives a wrong position.
// Laid out so that a row of up to 8 holes touches three cache lines: the first holds the owner
// and the last holes, the next two the first two words of each sown board.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct SownMoves {
    /// The board of the position whose moves these are.
    parent: Board,
    /// The mover and the rules that shape a sowing, as [`sowing_key`]; 0 for none yet.
    key: u32,
    /// Bit `a` set when the sowing of action `a` is kept.
    kept: u16,
    last: [u8; MAX_HOLES],
    /// The sown boards' words, the first two and the last two apart: rows of up to 8 holes use
    /// only the first two.
    low: [[u64; 2]; MAX_HOLES],
    high: [[u64; 2]; MAX_HOLES],
}

/// What a kept sowing depends on besides the board: the mover, the ring and how laps go round.
/// (The lap cap only decides whether a move ends; the sowing of one that ended is the same
/// under any cap that lets it end, and `kept` records which ended.) Never 0.
#[inline(always)]
fn sowing_key(mover: Player, rules: &Rules) -> u32 {
    1 | (mover.index() as u32) << 1
        | ((rules.direction() == Direction::Parity) as u32) << 2
        | (rules.skip_origin() as u32) << 3
        | (rules.holes() as u32) << 8
}

impl Default for SownMoves {
    fn default() -> Self {
        SownMoves {
            parent: Board::default(),
            key: 0,
            kept: 0,
            last: [0; MAX_HOLES],
            low: [[0; 2]; MAX_HOLES],
            high: [[0; 2]; MAX_HOLES],
        }
    }
}

impl SownMoves {
    /// Empty: belongs to no position yet.
    pub fn new() -> SownMoves {
        SownMoves::default()
    }

    /// The kept sowing of `action`, if these are the sowings of `board` with `mover` to move
    /// under `rules` and that action's was kept.
    #[inline(always)]
    pub(crate) fn get(
        &self,
        board: &Board,
        mover: Player,
        rules: &Rules,
        action: usize,
    ) -> Option<(Board, usize)> {
        if self.parent != *board
            || self.key != sowing_key(mover, rules)
            || self.kept >> action & 1 == 0
        {
            return None;
        }
        let [w0, w1] = self.low[action];
        let [w2, w3] = if rules.holes() <= 8 {
            [0, 0]
        } else {
            self.high[action]
        };
        let mut sown = Board::default();
        sown.set_words([w0, w1, w2, w3]);
        Some((sown, self.last[action] as usize))
    }
}

/// Where the candidate sowings go: nowhere, or into a [`SownMoves`].
pub(crate) trait Keep {
    fn start(&mut self, parent: &Board, mover: Player, rules: &Rules);
    /// Keep the sowing of `action`: its board, of which only the first `W` words can hold seeds.
    fn keep<const W: usize>(&mut self, action: usize, board: &Board, last: usize);
}

/// Keep nothing: the mask alone.
impl Keep for () {
    #[inline(always)]
    fn start(&mut self, _: &Board, _: Player, _: &Rules) {}
    #[inline(always)]
    fn keep<const W: usize>(&mut self, _: usize, _: &Board, _: usize) {}
}

impl Keep for SownMoves {
    #[inline(always)]
    fn start(&mut self, parent: &Board, mover: Player, rules: &Rules) {
        self.parent = *parent;
        self.key = sowing_key(mover, rules);
        self.kept = 0;
    }
    #[inline(always)]
    fn keep<const W: usize>(&mut self, action: usize, board: &Board, last: usize) {
        let [w0, w1, w2, w3] = board.words();
        self.low[action] = [w0, w1];
        if W > 2 {
            self.high[action] = [w2, w3];
        }
        self.last[action] = last as u8;
        self.kept |= 1 << action;
    }
}

/// Bits of the legal actions and of the endless ones for `mover`, each legal sowing handed to
/// `keep`.
#[inline]
pub(crate) fn legal_and_endless<K: Keep>(
    board: &Board,
    mover: Player,
    rules: &Rules,
    keep: &mut K,
) -> (u16, u16) {
    // The rule switches are read once here, not once per candidate.
    by_switches(
        rules,
        Candidates {
            board,
            mover,
            rules,
            keep,
        },
    )
}

/// Every candidate move of one position, sown to tell the legal ones from the endless ones.
struct Candidates<'a, K> {
    board: &'a Board,
    mover: Player,
    rules: &'a Rules,
    keep: &'a mut K,
}

impl<K: Keep> BySwitches for Candidates<'_, K> {
    type Output = (u16, u16);
    #[inline(always)]
    fn run<const PARITY: bool, const SKIP: bool, const W: usize>(self, ring: Ring) -> (u16, u16) {
        candidates::<PARITY, SKIP, W, K>(self.board, self.mover, self.rules, ring, self.keep)
    }
}

#[inline(always)]
fn candidates<const PARITY: bool, const SKIP: bool, const W: usize, K: Keep>(
    board: &Board,
    mover: Player,
    rules: &Rules,
    ring: Ring,
    keep: &mut K,
) -> (u16, u16) {
    let max_laps = rules.max_laps();
    let base = mover.index() * rules.holes();
    keep.start(board, mover, rules);
    let (mut legal, mut endless) = (0u16, 0u16);
    // Only holes with seeds are candidates; their bits come from the packed words in one go.
    let mut candidates = board.nonempty(base, base + rules.holes());
    while candidates != 0 {
        let a = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        let mut b = *board;
        match sow_laps::<PARITY, SKIP, W>(&mut b, base + a, &ring, max_laps) {
            Sowing::Ended { last, .. } => {
                legal |= 1 << a;
                keep.keep::<W>(a, &b, last);
            }
            Sowing::Endless { .. } => endless |= 1 << a,
        }
    }
    (legal, endless)
}
