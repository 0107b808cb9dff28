use rand::SeedableRng;
use sowing_env::*;
fn main() {
    let r = Rules::preset("en-dodoi-8").unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let t = std::time::Instant::now();
    let mut moves = 0u64;
    while t.elapsed().as_secs_f64() < 3.0 {
        for _ in 0..1000 {
            let mut s = State::initial(&r);
            while let Some(a) = random_action(&s, &mut rng) {
                s = s.play_unchecked(a);
                moves += 1;
            }
        }
    }
    println!(
        "{:.2} M moves/s",
        moves as f64 / t.elapsed().as_secs_f64() / 1e6
    );
}
