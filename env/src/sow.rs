//! Relay sowing: one move's laps, from lifting the first hole to the hole where the last seed
//! falls into emptiness, and the check that tells an endless move from one that ends.
//!
//! This is the hot path of everything: the legal-move mask sows every candidate move. It works on
//! a packed [`Board`], so a lap costs the same whatever the seeds in hand, and it allocates nothing.

use crate::board::Board;
use crate::rules::{Direction, Rules};

/// How a sowing finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sowing {
    /// The last seed of the last lap fell into the empty hole `last`.
    Ended {
        /// The hole where the move ended.
        last: usize,
        /// Laps sown, the first included.
        laps: u32,
        /// Seeds sown over all laps.
        sown: u32,
    },
    /// The sowing would go on for ever: it passed the lap cap, or came back to a lap start it had
    /// already seen (which gives the same verdict sooner).
    Endless {
        /// Laps sown before the verdict.
        laps: u32,
    },
}

/// A lap start: the board with the lifted hole emptied, the hole, and the seeds in hand.
/// Two equal lap starts mean the sowing is in a cycle and will never end.
#[derive(Clone, Copy, PartialEq, Eq)]
struct LapStart {
    board: Board,
    hole: usize,
    hand: u32,
}

/// Sow the seeds of hole `origin` (which must hold at least one) until the move ends or is found
/// endless. On `Ended` the board is the position after sowing, before any capture; on `Endless`
/// its contents are unspecified.
///
/// `ring` is `2 * rules.holes()`, passed in because every caller has it at hand.
#[inline]
pub fn sow(board: &mut Board, origin: usize, rules: &Rules) -> Sowing {
    let ring = 2 * rules.holes();
    let skip = rules.skip_origin();
    // With skip_origin a lap that goes round passes over its emptied hole, so it sows a ring of
    // 2n - 1 holes.
    let lap_ring = if skip { ring - 1 } else { ring } as u32;
    let max_laps = rules.max_laps();
    let parity = rules.direction() == Direction::Parity;

    let mut hole = origin;
    let mut hand = board.get(hole) as u32;
    debug_assert!(hand > 0, "sowing an empty hole");
    board.set(hole, 0);
    let mut laps = 0u32;
    let mut sown = 0u32;

    // Brent's cycle detection over lap starts: `saved` is compared with every later lap start
    // and replaced at power-of-two distances, so a cycle is found within a few of its lengths.
    let mut saved = LapStart {
        board: *board,
        hole,
        hand,
    };
    let mut power = 1u32;
    let mut since_saved = 0u32;

    loop {
        laps += 1;
        sown += hand;
        let (rounds, rest) = if hand < lap_ring {
            (0, hand as usize)
        } else {
            (hand / lap_ring, (hand % lap_ring) as usize)
        };
        if rounds > 0 {
            board.add_all(rounds as u64, ring);
            if skip {
                board.set(hole, 0);
            }
        }
        let clockwise = parity && hand & 1 == 1;
        let last = if !clockwise {
            // Holes hole+1 ..= hole+rest, wrapping past 2n - 1 to 0.
            let start = hole + 1;
            let end = start + rest;
            if end <= ring {
                board.add_run(start, end);
            } else {
                board.add_run(start, ring);
                board.add_run(0, end - ring);
            }
            match (rest, skip) {
                (0, false) => hole,
                (0, true) => (hole + ring - 1) % ring,
                _ => (end - 1) % ring,
            }
        } else {
            // Holes hole-1 down to hole-rest, wrapping below 0 to 2n - 1.
            if rest <= hole {
                board.add_run(hole - rest, hole);
            } else {
                board.add_run(0, hole);
                board.add_run(ring + hole - rest, ring);
            }
            match (rest, skip) {
                (0, false) => hole,
                (0, true) => (hole + 1) % ring,
                _ => (hole + ring - rest) % ring,
            }
        };

        let seeds = board.get(last) as u32;
        if seeds <= 1 {
            return Sowing::Ended { last, laps, sown };
        }
        if laps >= max_laps {
            return Sowing::Endless { laps };
        }
        // Relay: lift the hole the last seed fell into, and sow on.
        hole = last;
        hand = seeds;
        board.set(hole, 0);

        let start = LapStart {
            board: *board,
            hole,
            hand,
        };
        if start == saved {
            return Sowing::Endless { laps };
        }
        since_saved += 1;
        if since_saved == power {
            saved = start;
            power *= 2;
            since_saved = 0;
        }
    }
}
