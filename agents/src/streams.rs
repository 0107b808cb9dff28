//! Random streams: every random choice of a match, a comparison or a training run is drawn from
//! [`stream`]`(seed, salt, lane)`, the ChaCha8 generator of the run's seed mixed with a salt (one
//! per purpose, so that purposes never share a stream) on stream `lane` (a game, an iteration).
//! A result is thus fixed by the seed and its place, whatever the threads or the batch it was
//! played in.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The random stream of `lane` for the purpose `salt` of the run seeded `seed`.
pub fn stream(seed: u64, salt: u64, lane: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ salt);
    rng.set_stream(lane);
    rng
}
