//! The legal-move mask: which of the mover's holes can be sown without the sowing going on for
//! ever. Every candidate move has to be sown to find out, so this is where the engine spends
//! most of its time.

use crate::board::Board;
use crate::rules::{Direction, Rules};
use crate::sow::{Ring, Sowing, sow_laps};

/// Bits of the legal actions and of the endless ones, for the mover whose row starts at `base`.
#[inline]
pub(crate) fn legal_and_endless(board: &Board, base: usize, rules: &Rules) -> (u16, u16) {
    // The rule switches are read once here, not once per candidate.
    let two_words = rules.holes() <= 8;
    match (
        rules.direction() == Direction::Parity,
        rules.skip_origin(),
        two_words,
    ) {
        (false, false, true) => candidates::<false, false, 2>(board, base, rules),
        (false, false, false) => candidates::<false, false, 4>(board, base, rules),
        (false, true, true) => candidates::<false, true, 2>(board, base, rules),
        (false, true, false) => candidates::<false, true, 4>(board, base, rules),
        (true, false, true) => candidates::<true, false, 2>(board, base, rules),
        (true, false, false) => candidates::<true, false, 4>(board, base, rules),
        (true, true, true) => candidates::<true, true, 2>(board, base, rules),
        (true, true, false) => candidates::<true, true, 4>(board, base, rules),
    }
}

#[inline(always)]
fn candidates<const PARITY: bool, const SKIP: bool, const W: usize>(
    board: &Board,
    base: usize,
    rules: &Rules,
) -> (u16, u16) {
    let ring = Ring::new(rules, SKIP);
    let max_laps = rules.max_laps();
    let (mut legal, mut endless) = (0u16, 0u16);
    for a in 0..rules.holes() {
        if board.get(base + a) == 0 {
            continue;
        }
        let mut b = *board;
        match sow_laps::<PARITY, SKIP, W>(&mut b, base + a, &ring, max_laps) {
            Sowing::Ended { .. } => legal |= 1 << a,
            Sowing::Endless { .. } => endless |= 1 << a,
        }
    }
    (legal, endless)
}
