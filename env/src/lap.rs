//! Laps worked out in advance. For a ring of `2n` holes, a lap of `rest` seeds (fewer than a
//! full round) from hole `h` drops one seed into each of a fixed run of holes and ends in a fixed
//! hole; both are tabulated once per ring size, so sowing a lap is a table look-up and a few
//! word additions, with no branch on where the run wraps round.
//!
//! Most laps lift a hole of fewer seeds than a round and sow them all; for those a second table
//! also folds in the lifting (the hole's `rest` seeds taken out), so the whole lap is one
//! addition per word.

use crate::board::Board;
use std::sync::OnceLock;

/// One lap of fewer seeds than the ring holds: what it adds to the packed board words and the
/// hole its last seed falls into.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lap {
    /// Added to the board words with wrapping arithmetic; may take seeds out of the lap's hole.
    pub(crate) add: [u64; 4],
    pub(crate) last: usize,
}

/// Every lap of a ring of `ring` holes, in both directions, indexed by direction (counter-clockwise
/// first), then `hole`, then `rest`: one flat table, so that picking the direction is arithmetic
/// rather than a branch (under `parity` it changes from lap to lap).
#[derive(Debug)]
pub(crate) struct LapTable {
    /// The run alone: one seed into each of `rest` holes after `hole`.
    run: Box<[Lap]>,
    /// Lifting a hole that holds exactly `rest` seeds, then the run.
    lifting: Box<[Lap]>,
    ring: usize,
}

impl LapTable {
    fn new(ring: usize) -> LapTable {
        let build = |lifting: bool| -> Box<[Lap]> {
            let mut laps = Vec::with_capacity(2 * ring * ring);
            for step in [1, ring - 1] {
                for hole in 0..ring {
                    for rest in 0..ring {
                        let mut b = Board::default();
                        let mut at = hole;
                        for _ in 0..rest {
                            at = (at + step) % ring;
                            b.set(at, b.get(at) + 1);
                        }
                        let mut add = b.words();
                        if lifting {
                            // The hole's seeds are taken out; the run never comes back to it,
                            // so the board after the lap has no hole below zero and the wrapped
                            // subtraction is exact.
                            let mut taken = Board::default();
                            taken.set(hole, rest as u8);
                            for (a, t) in add.iter_mut().zip(taken.words()) {
                                *a = a.wrapping_sub(t);
                            }
                        }
                        laps.push(Lap { add, last: at });
                    }
                }
            }
            laps.into_boxed_slice()
        };
        LapTable {
            run: build(false),
            lifting: build(true),
            ring,
        }
    }

    #[inline(always)]
    fn index(&self, clockwise: bool, hole: usize, rest: usize) -> usize {
        (clockwise as usize * self.ring + hole) * self.ring + rest
    }

    /// The counter-clockwise (or clockwise) run of `rest < ring` seeds after `hole`.
    #[inline(always)]
    pub(crate) fn run(&self, clockwise: bool, hole: usize, rest: usize) -> &Lap {
        &self.run[self.index(clockwise, hole, rest)]
    }

    /// The lap that lifts `hole`, holding exactly `rest < ring` seeds, and sows them
    /// counter-clockwise (or clockwise).
    #[inline(always)]
    pub(crate) fn lifting(&self, clockwise: bool, hole: usize, rest: usize) -> &Lap {
        &self.lifting[self.index(clockwise, hole, rest)]
    }
}

/// The lap table of a ring of `ring` holes (2 to 32), built on first use.
#[inline]
pub(crate) fn lap_table(ring: usize) -> &'static LapTable {
    static TABLES: [OnceLock<LapTable>; 33] = [const { OnceLock::new() }; 33];
    TABLES[ring].get_or_init(|| LapTable::new(ring))
}
