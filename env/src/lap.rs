//! Laps worked out in advance. For a ring of `2n` holes, a lap of `rest` seeds (fewer than a
//! full round) from hole `h` drops one seed into each of a fixed run of holes and ends in a fixed
//! hole; both are tabulated once per ring size, so sowing a lap is a table look-up and four word
//! additions, with no branch on where the run wraps round.

use crate::board::Board;
use std::sync::OnceLock;

/// One lap of fewer seeds than the ring holds: the holes it sows (one seed each, as packed board
/// words) and the hole its last seed falls into.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lap {
    pub(crate) run: [u64; 4],
    pub(crate) last: usize,
}

/// Every lap of a ring of `ring` holes, in both directions, indexed by `hole * ring + rest`.
#[derive(Debug)]
pub(crate) struct LapTable {
    ccw: Box<[Lap]>,
    cw: Box<[Lap]>,
    ring: usize,
}

impl LapTable {
    fn new(ring: usize) -> LapTable {
        let build = |step: usize| -> Box<[Lap]> {
            let mut laps = Vec::with_capacity(ring * ring);
            for hole in 0..ring {
                for rest in 0..ring {
                    let mut b = Board::default();
                    let mut at = hole;
                    for _ in 0..rest {
                        at = (at + step) % ring;
                        b.set(at, b.get(at) + 1);
                    }
                    laps.push(Lap {
                        run: b.words(),
                        last: at,
                    });
                }
            }
            laps.into_boxed_slice()
        };
        LapTable {
            ccw: build(1),
            cw: build(ring - 1),
            ring,
        }
    }

    /// The counter-clockwise lap of `rest < ring` seeds lifted from `hole`.
    #[inline(always)]
    pub(crate) fn ccw(&self, hole: usize, rest: usize) -> &Lap {
        &self.ccw[hole * self.ring + rest]
    }

    /// The clockwise lap of `rest < ring` seeds lifted from `hole`.
    #[inline(always)]
    pub(crate) fn cw(&self, hole: usize, rest: usize) -> &Lap {
        &self.cw[hole * self.ring + rest]
    }
}

/// The lap table of a ring of `ring` holes (2 to 32), built on first use.
#[inline]
pub(crate) fn lap_table(ring: usize) -> &'static LapTable {
    static TABLES: [OnceLock<LapTable>; 33] = [const { OnceLock::new() }; 33];
    TABLES[ring].get_or_init(|| LapTable::new(ring))
}
