//! What the torch benchmarks share: a busy neighbour beside a measurement, and the median of
//! the rounds.

use std::sync::atomic::{AtomicBool, Ordering};

/// `f` run while one more thread spins, if `busy`, as another program on the machine would.
pub fn beside_neighbour<T>(busy: bool, f: impl FnOnce() -> T) -> T {
    if !busy {
        return f();
    }
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut x = 0u64;
            while !stop.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        });
        let out = f();
        stop.store(true, Ordering::Relaxed);
        out
    })
}

/// The median of `xs` (the upper one of an even count).
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}
