//! Throughput of the engine, measured the same way by `sowing bench` and by `cargo bench`:
//! - random play on one thread, with the exact legal-move mask worked out after every move (as
//!   [`State::play_unchecked`] always does), in moves per second;
//! - a [`VecEnv`] of many games stepped on every core, with actions drawn by
//!   [`VecEnv::sample_actions`], in game steps per second.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use sowing_env::{Rules, State, VecConfig, VecEnv, random_action};
use std::time::{Duration, Instant};

/// Games in the `VecEnv` measured: large enough that every thread gets a long slice.
pub const VEC_GAMES: usize = 4096;

/// The figures for one variant.
#[derive(Clone, Debug, Serialize)]
pub struct Throughput {
    /// The preset's name, or the rules file's.
    pub variant: String,
    /// Random-play moves per second on one thread, exact mask after every move.
    pub moves_per_sec_1_thread: f64,
    /// `VecEnv` game steps per second on `threads` threads.
    pub vec_steps_per_sec_all_threads: f64,
    /// Threads the `VecEnv` stepped on (every core).
    pub threads: usize,
    /// Games in the `VecEnv`.
    pub vec_games: usize,
    /// Seconds each figure was measured for (after a short warm-up).
    pub seconds: f64,
}

impl Throughput {
    /// The header of [`Throughput::table_row`].
    pub fn table_header() -> String {
        format!(
            "{:<14} {:>16} {:>20} {:>8}",
            "variant", "moves/s 1 thread", "VecEnv steps/s", "speedup"
        )
    }

    /// One line for people: both figures and how many times the first the second is.
    pub fn table_row(&self) -> String {
        format!(
            "{:<14} {:>16} {:>20} {:>7.2}x",
            self.variant,
            millions(self.moves_per_sec_1_thread),
            format!(
                "{} ({} thr)",
                millions(self.vec_steps_per_sec_all_threads),
                self.threads
            ),
            self.vec_steps_per_sec_all_threads / self.moves_per_sec_1_thread
        )
    }
}

fn millions(x: f64) -> String {
    format!("{:.2} M", x / 1e6)
}

/// Both figures for `rules`, each measured for `seconds` after a warm-up of a tenth of that.
pub fn measure(variant: &str, rules: &Rules, seconds: f64) -> Throughput {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let warm_up = seconds / 10.0;
    random_play_moves_per_sec(rules, warm_up);
    let moves = random_play_moves_per_sec(rules, seconds);
    vec_env_steps_per_sec(rules, threads, warm_up);
    let steps = vec_env_steps_per_sec(rules, threads, seconds);
    Throughput {
        variant: variant.to_string(),
        moves_per_sec_1_thread: moves,
        vec_steps_per_sec_all_threads: steps,
        threads,
        vec_games: VEC_GAMES,
        seconds,
    }
}

/// Uniformly random games from the start, one after another, for about `seconds`: moves per second.
pub fn random_play_moves_per_sec(rules: &Rules, seconds: f64) -> f64 {
    let budget = Duration::from_secs_f64(seconds);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let start = State::initial(rules);
    let began = Instant::now();
    let mut moves = 0u64;
    // The clock is read once a game (about a hundred moves), which costs nothing in comparison;
    // one game is played however short the budget, so that there is something to divide.
    loop {
        let mut s = start;
        while let Some(a) = random_action(&s, &mut rng) {
            s = s.play_unchecked(a);
            moves += 1;
        }
        if began.elapsed() >= budget {
            break;
        }
    }
    moves as f64 / began.elapsed().as_secs_f64()
}

/// [`VEC_GAMES`] games on `threads` threads, stepped with random legal actions for about
/// `seconds`: game steps per second (one step of one game counts one).
pub fn vec_env_steps_per_sec(rules: &Rules, threads: usize, seconds: f64) -> f64 {
    let config = VecConfig {
        threads,
        ..VecConfig::default()
    };
    let mut env = VecEnv::new(rules, VEC_GAMES, 0, config).expect("a non-empty batch");
    let mut actions = vec![0usize; VEC_GAMES];
    let budget = Duration::from_secs_f64(seconds);
    let began = Instant::now();
    let mut steps = 0u64;
    loop {
        env.sample_actions(&mut actions)
            .expect("one action per game");
        env.step(&actions).expect("sampled actions are legal");
        steps += VEC_GAMES as u64;
        if began.elapsed() >= budget {
            break;
        }
    }
    steps as f64 / began.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shortest_budget_still_measures_something() {
        let rules = Rules::preset("en-dodoi-6").unwrap();
        let t = measure("en-dodoi-6", &rules, 1e-300);
        assert!(t.moves_per_sec_1_thread > 0.0 && t.moves_per_sec_1_thread.is_finite());
        assert!(t.vec_steps_per_sec_all_threads > 0.0);
        assert!(!t.table_row().contains("NaN"), "{}", t.table_row());
    }

    #[test]
    fn measures_both_figures() {
        let rules = Rules::preset("en-dodoi-6").unwrap();
        let t = measure("en-dodoi-6", &rules, 0.05);
        assert!(t.moves_per_sec_1_thread > 0.0);
        assert!(t.vec_steps_per_sec_all_threads > 0.0);
        assert!(t.threads >= 1);
        let json = serde_json::to_value(&t).unwrap();
        for field in [
            "variant",
            "moves_per_sec_1_thread",
            "vec_steps_per_sec_all_threads",
        ] {
            assert!(json.get(field).is_some(), "{field}");
        }
        assert!(t.table_row().starts_with("en-dodoi-6"));
    }
}
