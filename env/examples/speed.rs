//! Random-play speed on one thread, for profiling the hot path: `cargo run --release --example
//! speed -p sowing-env -- [variant] [games]`.
use rand::SeedableRng;
use sowing_env::{Rules, SownMoves, State, random_action};

fn main() {
    let mut args = std::env::args().skip(1);
    let variant = args.next().unwrap_or_else(|| "en-dodoi-8".into());
    let games: u64 = args
        .next()
        .map_or(20_000, |g| g.parse().expect("games is a number"));
    let rules = Rules::preset(&variant).expect("a preset name");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let start = std::time::Instant::now();
    let mut moves = 0u64;
    for _ in 0..games {
        let mut s = State::initial(&rules);
        while let Some(a) = random_action(&s, &mut rng) {
            s = s.play_unchecked(a);
            moves += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{variant}: {moves} moves in {secs:.3}s = {:.2} M moves/s (play_unchecked)",
        moves as f64 / secs / 1e6
    );

    // The same games again, each move played from the sowings kept by the mask.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut sown = SownMoves::new();
    let start = std::time::Instant::now();
    let mut again = 0u64;
    for _ in 0..games {
        let mut s = State::initial(&rules);
        s.sow_legal(&mut sown);
        while let Some(a) = random_action(&s, &mut rng) {
            s = s.play_sown(a, &mut sown);
            again += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(again, moves, "both ways play the same games");
    println!(
        "{variant}: {moves} moves in {secs:.3}s = {:.2} M moves/s (play_sown)",
        moves as f64 / secs / 1e6
    );
}
