//! Relay sowing: one move's laps, from lifting the first hole to the hole where the last seed
//! falls into emptiness, and the check that tells an endless move from one that ends.
//!
//! This is the hot path of everything: the legal-move mask sows every candidate move. It works on
//! a packed [`Board`], so a lap costs the same whatever the seeds in hand, and it allocates nothing.

use crate::board::Board;
use crate::lap::{LapTable, lap_table};
use crate::rules::Rules;
use crate::switches::Direction;

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

/// Laps sown before cycle detection starts watching.
pub(crate) const CYCLE_WATCH_FROM: u32 = 48;

/// A lap start: the board before the hole is lifted, the hole, and the seeds in hand.
/// Two equal lap starts mean the sowing is in a cycle and will never end.
#[derive(Clone, Copy, PartialEq, Eq)]
struct LapStart {
    words: [u64; 4],
    hole: usize,
    hand: u32,
}

/// Sow the seeds of hole `origin` (which must hold at least one) until the move ends or is found
/// endless. On `Ended` the board is the position after sowing, before any capture; on `Endless`
/// its contents are unspecified.
#[inline]
pub fn sow(board: &mut Board, origin: usize, rules: &Rules) -> Sowing {
    struct Move<'a> {
        board: &'a mut Board,
        origin: usize,
        max_laps: u32,
    }
    impl BySwitches for Move<'_> {
        type Output = Sowing;
        #[inline(always)]
        fn run<const PARITY: bool, const SKIP: bool, const W: usize>(self, ring: Ring) -> Sowing {
            sow_laps::<PARITY, SKIP, W>(self.board, self.origin, &ring, self.max_laps)
        }
    }
    let max_laps = rules.max_laps();
    by_switches(
        rules,
        Move {
            board,
            origin,
            max_laps,
        },
    )
}

/// Work on sowings compiled once for each combination of the switches that shape a lap, so that
/// none of them is tested inside one: parity laps, a skipped origin, and a ring of two or four
/// packed words. [`by_switches`] reads the switches and runs the matching copy.
pub(crate) trait BySwitches {
    type Output;
    /// The work for a rule set whose switches are the const parameters, with its [`Ring`].
    fn run<const PARITY: bool, const SKIP: bool, const W: usize>(self, ring: Ring) -> Self::Output;
}

/// Run `work` in its copy for the switches of `rules`: the one place that reads them.
#[inline(always)]
pub(crate) fn by_switches<B: BySwitches>(rules: &Rules, work: B) -> B::Output {
    // Rings of up to 16 holes (8 a row, most presets) fit in two words.
    let two_words = rules.holes() <= 8;
    match (
        rules.direction() == Direction::Parity,
        rules.skip_origin(),
        two_words,
    ) {
        (false, false, true) => run::<B, false, false, 2>(rules, work),
        (false, false, false) => run::<B, false, false, 4>(rules, work),
        (false, true, true) => run::<B, false, true, 2>(rules, work),
        (false, true, false) => run::<B, false, true, 4>(rules, work),
        (true, false, true) => run::<B, true, false, 2>(rules, work),
        (true, false, false) => run::<B, true, false, 4>(rules, work),
        (true, true, true) => run::<B, true, true, 2>(rules, work),
        (true, true, false) => run::<B, true, true, 4>(rules, work),
    }
}

/// One arm of [`by_switches`]: the ring built with the switch known at compile time.
#[inline(always)]
fn run<B: BySwitches, const PARITY: bool, const SKIP: bool, const W: usize>(
    rules: &Rules,
    work: B,
) -> B::Output {
    work.run::<PARITY, SKIP, W>(Ring::new(rules, SKIP))
}

/// `i` reduced into `0..ring`, for `i < 2 * ring`: cheaper than `%` on the hot path.
#[inline(always)]
fn wrap(i: usize, ring: usize) -> usize {
    if i >= ring { i - ring } else { i }
}

/// The seeds in hole `i` of packed words, picking the word without indexing memory, so that the
/// words stay in registers for the whole move.
/// Only the first `W` words are read: the others are empty for rings that fit in `W` words.
#[inline(always)]
pub(crate) fn seeds_at<const W: usize>(w: &[u64; 4], i: usize) -> u32 {
    let odd = i & 8 != 0;
    let low = if odd { w[1] } else { w[0] };
    let word = if W == 2 {
        low
    } else {
        let high = if odd { w[3] } else { w[2] };
        if i & 16 != 0 { high } else { low }
    };
    (word >> ((i & 7) * 8)) as u32 & 0xFF
}

/// Empty hole `i` of packed words (the first `W` of them).
#[inline(always)]
pub(crate) fn lift<const W: usize>(w: &mut [u64; 4], i: usize) {
    let keep = &KEEP[i];
    for k in 0..W {
        w[k] &= keep[k];
    }
}

/// `KEEP[i]`: every bit set but those of hole `i`.
const KEEP: [[u64; 4]; 32] = {
    let mut t = [[u64::MAX; 4]; 32];
    let mut i = 0;
    while i < 32 {
        t[i][i / 8] = !(0xFFu64 << ((i % 8) * 8));
        i += 1;
    }
    t
};

/// What every lap of one rule set needs, looked up once per move.
#[derive(Clone, Copy)]
pub(crate) struct Ring {
    /// Holes on the board, `2n`.
    ring: usize,
    /// Holes one round of a lap sows: `2n`, or `2n - 1` with skip_origin (a lap that goes round
    /// passes over its emptied hole).
    lap_ring: u32,
    table: &'static LapTable,
    /// One seed in every hole, packed.
    full: [u64; 4],
}

impl Ring {
    #[inline(always)]
    pub(crate) fn new(rules: &Rules, skip: bool) -> Ring {
        let ring = 2 * rules.holes();
        Ring {
            ring,
            lap_ring: if skip { ring - 1 } else { ring } as u32,
            table: lap_table(ring),
            full: Board::uniform(ring / 2, 1).words(),
        }
    }

    /// Sow one lap: lift the `hand` seeds of `hole` (still on the board in `w`) and sow them;
    /// returns the hole the last seed fell into.
    #[inline(always)]
    pub(crate) fn lap<const PARITY: bool, const SKIP: bool, const W: usize>(
        &self,
        w: &mut [u64; 4],
        hole: usize,
        hand: u32,
    ) -> usize {
        let clockwise = PARITY && hand & 1 == 1;
        if hand < self.lap_ring {
            // The common lap, short of a round: lifting and sowing are one table entry.
            let lap = self.table.lifting(clockwise, hole, hand as usize);
            for (x, add) in w.iter_mut().zip(&lap.add).take(W) {
                *x = x.wrapping_add(*add);
            }
            return lap.last;
        }
        lift::<W>(w, hole);
        let rounds = (hand / self.lap_ring) as u64;
        for (x, one) in w.iter_mut().zip(&self.full).take(W) {
            *x += one * rounds;
        }
        if SKIP {
            lift::<W>(w, hole);
        }
        let rest = (hand % self.lap_ring) as usize;
        let lap = self.table.run(clockwise, hole, rest);
        for (x, run) in w.iter_mut().zip(&lap.add).take(W) {
            *x += run;
        }
        // A lap of whole rounds ends in its own hole, or with skip_origin in the one before it.
        if SKIP && rest == 0 {
            if clockwise {
                wrap(hole + 1, self.ring)
            } else {
                wrap(hole + self.ring - 1, self.ring)
            }
        } else {
            lap.last
        }
    }
}

/// Sow the move from `origin` in the packed words of `board`, for a rule set whose switches
/// are the const parameters (see [`BySwitches`]).
#[inline(always)]
pub(crate) fn sow_laps<const PARITY: bool, const SKIP: bool, const W: usize>(
    board: &mut Board,
    origin: usize,
    ring: &Ring,
    max_laps: u32,
) -> Sowing {
    let mut w = board.words();
    let mut hole = origin;
    let mut hand = seeds_at::<W>(&w, hole);
    debug_assert!(hand > 0, "sowing an empty hole");
    let mut laps = 0u32;
    let mut sown = 0u32;
    // Moves that end do so within a few dozen laps, so this loop, which has no cycle
    // bookkeeping, runs until the cap or CYCLE_WATCH_FROM laps; longer moves go on in
    // `sow_watching`, off the common path.
    let fast_laps = max_laps.min(CYCLE_WATCH_FROM);
    loop {
        laps += 1;
        sown += hand;
        let last = ring.lap::<PARITY, SKIP, W>(&mut w, hole, hand);
        let seeds = seeds_at::<W>(&w, last);
        if seeds <= 1 {
            board.set_words(w);
            return Sowing::Ended { last, laps, sown };
        }
        // Relay: the hole the last seed fell into is lifted by the next lap.
        hole = last;
        hand = seeds;
        if laps >= fast_laps {
            let first = LapStart {
                words: board.words(),
                hole: origin,
                hand: seeds_at::<W>(&board.words(), origin),
            };
            return sow_watching::<PARITY, SKIP, W>(
                board, first, w, hole, hand, laps, sown, ring, max_laps,
            );
        }
    }
}

/// The laps of a long move, from the start of lap `laps + 1` (`hand` seeds in `hole`), watched
/// for a cycle and for the lap cap. `first` is the start of the move's first lap.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn sow_watching<const PARITY: bool, const SKIP: bool, const W: usize>(
    board: &mut Board,
    first: LapStart,
    mut w: [u64; 4],
    mut hole: usize,
    mut hand: u32,
    mut laps: u32,
    mut sown: u32,
    ring: &Ring,
    max_laps: u32,
) -> Sowing {
    // Two equal lap starts (board with the hole still full, hole, hand) mean an endless move.
    // The endless moves of random play come back to their first lap start, after hundreds or
    // thousands of laps, so each lap start is compared with that one: the cycle is seen after
    // one round of it. For cycles that do not pass through the first lap start, Brent's
    // detection: `saved` is compared with every later lap start and replaced at power-of-two
    // distances, so a cycle is found within a few of its lengths.
    let mut saved = LapStart {
        words: w,
        hole,
        hand,
    };
    let mut power = 1u32;
    let mut since_saved = 0u32;
    loop {
        if laps >= max_laps {
            return Sowing::Endless { laps };
        }
        if laps >= CYCLE_WATCH_FROM {
            let start = LapStart {
                words: w,
                hole,
                hand,
            };
            if start == first {
                return Sowing::Endless { laps };
            }
            if laps == CYCLE_WATCH_FROM {
                saved = start;
            } else if start == saved {
                return Sowing::Endless { laps };
            } else {
                since_saved += 1;
                if since_saved == power {
                    saved = start;
                    power *= 2;
                    since_saved = 0;
                }
            }
        }
        laps += 1;
        sown += hand;
        let last = ring.lap::<PARITY, SKIP, W>(&mut w, hole, hand);
        let seeds = seeds_at::<W>(&w, last);
        if seeds <= 1 {
            board.set_words(w);
            return Sowing::Ended { last, laps, sown };
        }
        hole = last;
        hand = seeds;
    }
}
