//! Tablebase speed: building en-dodoi-6 to K seeds (default 16; `SOWING_TB_SEEDS=20` for the
//! full target, about ten minutes) on every core (`SOWING_TB_THREADS=N` for N), and probing it with random positions on one
//! thread; `SOWING_TB_FILE=FILE` probes a table read from FILE instead of building one. Run with
//! `cargo bench -p sowing-exact --bench tablebase`; targets: K = 20 in under 30 minutes on two
//! cores, 5,000,000 probes/s on one thread.
//!
//! Each figure is given per second of wall-clock time and, for probing, per second this thread
//! spent on a CPU (from `/proc/thread-self/schedstat`), which other work on a busy machine does
//! not dilute.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_env::{ByPlayer, Player, Rules, State};
use sowing_exact::tablebase::{BuildOptions, PositionIndex, Tablebase};
use std::hint::black_box;
use std::time::Instant;

/// Seconds this thread has spent on a CPU, where the kernel tells.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// `count` positions of the table drawn uniformly, as States with either player to move (the
/// seeds off the board captured by South).
fn random_states(table: &Tablebase, count: usize, seed: u64) -> Vec<State> {
    let rules = table
        .rules()
        .with(|s| s.seeds = 21)
        .expect("2x6 holds 21 a hole");
    let ring = 2 * rules.holes();
    let index = PositionIndex::new(ring, table.max_seeds() as usize).expect("the table's index");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut cells = vec![0u8; ring];
    (0..count)
        .map(|_| {
            index
                .cells(rng.random_range(0..index.len()), &mut cells)
                .expect("in range");
            let on_board: usize = cells.iter().map(|&c| c as usize).sum();
            let captured = ByPlayer::new((rules.total_seeds() - on_board) as u8, 0);
            let mover = if rng.random_bool(0.5) {
                Player::South
            } else {
                Player::North
            };
            State::new(&rules, &cells, captured, mover, 0).expect("a valid position")
        })
        .collect()
}

/// Seconds this process has spent on CPUs, all its threads together.
fn process_cpu_seconds() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given, and says so by returning 0.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: filled by the successful call above.
    let usage = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// Build en-dodoi-6 to `SOWING_TB_SEEDS` seeds (default 16) on `SOWING_TB_THREADS` threads
/// (default one per core) and say how long it took, per second of wall-clock time and per
/// CPU-second (the figure per core, which a busy neighbour does not dilute).
fn build() -> Tablebase {
    let seeds: u32 = std::env::var("SOWING_TB_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let threads: usize = std::env::var("SOWING_TB_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let rules = Rules::preset("en-dodoi-6").expect("a preset");
    let options = BuildOptions {
        threads,
        ..BuildOptions::default()
    };
    let (started, cpu) = (Instant::now(), process_cpu_seconds());
    let table = Tablebase::build(&rules, seeds, &options).expect("fits");
    let seconds = started.elapsed().as_secs_f64();
    let mut line = format!(
        "build en-dodoi-6 to {seeds} seeds, {threads} threads: {} positions in {seconds:.1} s, \
         {:.2} M positions/s",
        table.len(),
        table.len() as f64 / seconds / 1e6
    );
    if let (Some(a), Some(b)) = (cpu, process_cpu_seconds()) {
        line.push_str(&format!(
            " ({:.2} M per CPU-second)",
            table.len() as f64 / (b - a) / 1e6
        ));
    }
    println!("{line}");
    table
}

fn main() {
    let table = match std::env::var("SOWING_TB_FILE") {
        Ok(path) => {
            let started = Instant::now();
            let table = Tablebase::open(&path).expect("a tablebase file");
            println!(
                "open {path}: {} positions in {:.1} s",
                table.len(),
                started.elapsed().as_secs_f64()
            );
            table
        }
        Err(_) => build(),
    };
    let seeds = table.max_seeds();

    let states = random_states(&table, 1 << 20, 1);
    let rounds = 20;
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let mut sum = 0i64;
    for _ in 0..rounds {
        for s in &states {
            sum += i64::from(table.value(black_box(s)).expect("in the table"));
        }
    }
    black_box(sum);
    let probes = (rounds * states.len()) as f64;
    let mut line = format!(
        "probe {} random positions of {} to {seeds} seeds, one thread: {:.2} M probes/s",
        probes,
        table.rules().summary(),
        probes / wall.elapsed().as_secs_f64() / 1e6
    );
    if let (Some(a), Some(b)) = (cpu, cpu_seconds()) {
        line.push_str(&format!(
            " ({:.2} M per CPU-second)",
            probes / (b - a) / 1e6
        ));
    }
    println!("{line} (target 5 M)");
}
