//! A small pool of worker threads kept for the life of a [`crate::VecEnv`], so that stepping a
//! large batch on several cores spawns nothing and allocates nothing per step.
//!
//! `run(parts, f)` calls `f(0)` on the caller's thread and `f(1)..f(parts-1)` on the workers,
//! and returns once every call has returned. A panic in any part is raised again in the caller.
//!
//! A step runs the pool several times in quick succession, and waking a sleeping thread costs
//! tens of microseconds, as much as stepping a hundred games. So a worker that has finished
//! spins for a while watching for the next task before it sleeps, and the caller spins for the
//! workers' parts before it sleeps; both then fall back to the mutex and condition variables.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a thread spins for the next task, or for the others to finish, before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

/// Spin until `ready()` or [`SPIN`] has passed; whether `ready()` was seen.
#[inline]
fn spin_until(ready: impl Fn() -> bool) -> bool {
    let began = Instant::now();
    loop {
        // The clock is read once every 64 checks.
        for _ in 0..64 {
            if ready() {
                return true;
            }
            std::hint::spin_loop();
        }
        if began.elapsed() >= SPIN {
            return ready();
        }
    }
}

type Task = dyn Fn(usize) + Sync;

/// A task pointer whose lifetime `run` has erased; sound because `run` does not return while any
/// worker can still call it.
#[derive(Clone, Copy)]
struct TaskPtr(*const Task);
// SAFETY: the pointee is `Sync`, and it outlives every use (see `Pool::run`).
unsafe impl Send for TaskPtr {}

struct Control {
    generation: u64,
    parts: usize,
    task: Option<TaskPtr>,
    panic: Option<Box<dyn std::any::Any + Send>>,
    shutdown: bool,
}

struct Shared {
    /// `Control::generation`, readable without the lock by spinning workers.
    generation: AtomicU64,
    /// Workers' parts of the current task not yet returned.
    pending: AtomicUsize,
    control: Mutex<Control>,
    start: Condvar,
    done: Condvar,
}

pub(crate) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({} threads)", self.threads())
    }
}

impl Pool {
    /// A pool that runs up to `threads` parts at once (the caller's thread counts as one).
    pub(crate) fn new(threads: usize) -> Pool {
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            pending: AtomicUsize::new(0),
            control: Mutex::new(Control {
                generation: 0,
                parts: 0,
                task: None,
                panic: None,
                shutdown: false,
            }),
            start: Condvar::new(),
            done: Condvar::new(),
        });
        let workers = (1..threads.max(1))
            .map(|part| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("sowing-vec-{part}"))
                    .spawn(move || worker(&shared, part))
                    .expect("spawn a VecEnv worker thread")
            })
            .collect();
        Pool { shared, workers }
    }

    /// Threads that can run parts at once, the caller's included.
    pub(crate) fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Call `f(i)` for every `i` in `0..parts` (`parts <= threads()`), in parallel.
    pub(crate) fn run<'a>(&self, parts: usize, f: &'a (dyn Fn(usize) + Sync + 'a)) {
        assert!(
            parts >= 1 && parts <= self.threads(),
            "parts must be 1 to {}",
            self.threads()
        );
        if parts == 1 {
            f(0);
            return;
        }
        // SAFETY: only the lifetime is erased. Workers call the task only between the
        // publication below and their `pending` decrement, and this function waits for
        // `pending == 0` (even if `f(0)` panics) before returning and clears the pointer.
        let raw: *const (dyn Fn(usize) + Sync + 'a) = f;
        let task = TaskPtr(unsafe {
            std::mem::transmute::<*const (dyn Fn(usize) + Sync + 'a), *const Task>(raw)
        });
        let shared = &*self.shared;
        {
            let mut c = shared.control.lock().expect("pool lock");
            c.generation += 1;
            c.parts = parts;
            c.task = Some(task);
            shared.pending.store(parts - 1, Ordering::Release);
            shared.generation.store(c.generation, Ordering::Release);
            shared.start.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| f(0)));
        spin_until(|| shared.pending.load(Ordering::Acquire) == 0);
        let theirs = {
            let mut c = shared.control.lock().expect("pool lock");
            while shared.pending.load(Ordering::Acquire) > 0 {
                c = shared.done.wait(c).expect("pool lock");
            }
            c.task = None;
            c.panic.take()
        };
        if let Err(p) = mine {
            resume_unwind(p);
        }
        if let Some(p) = theirs {
            resume_unwind(p);
        }
    }
}

fn worker(shared: &Shared, part: usize) {
    let mut seen = 0u64;
    loop {
        spin_until(|| shared.generation.load(Ordering::Acquire) != seen);
        let task = {
            let mut c = shared.control.lock().expect("pool lock");
            while c.generation == seen && !c.shutdown {
                c = shared.start.wait(c).expect("pool lock");
            }
            if c.shutdown {
                return;
            }
            seen = c.generation;
            if part >= c.parts {
                continue;
            }
            c.task.expect("a task is published with its generation")
        };
        // SAFETY: see `Pool::run`: the task lives until `pending` reaches zero.
        let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*task.0)(part) }));
        if let Err(p) = result {
            shared
                .control
                .lock()
                .expect("pool lock")
                .panic
                .get_or_insert(p);
        }
        if shared.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last part: wake the caller if it has gone to sleep. Taking the lock orders
            // this after its check of `pending`, so the wake-up cannot be lost.
            let _c = shared.control.lock().expect("pool lock");
            shared.done.notify_all();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        if let Ok(mut c) = self.shared.control.lock() {
            c.shutdown = true;
            // Bumped so that a spinning worker stops spinning and sees the shutdown.
            c.generation += 1;
            self.shared
                .generation
                .store(c.generation, Ordering::Release);
        }
        self.shared.start.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_part_runs_once_per_call() {
        let pool = Pool::new(3);
        assert_eq!(pool.threads(), 3);
        let hits: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
        for parts in [1, 2, 3, 3, 1] {
            pool.run(parts, &|p| {
                hits[p].fetch_add(1, Ordering::Relaxed);
            });
        }
        let counts: Vec<usize> = hits.iter().map(|h| h.load(Ordering::Relaxed)).collect();
        assert_eq!(counts, vec![5, 3, 2]);
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller_and_the_pool_goes_on() {
        let pool = Pool::new(2);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(2, &|p| assert_ne!(p, 1, "part 1 fails"));
        }));
        assert!(caught.is_err());
        let ran = AtomicUsize::new(0);
        pool.run(2, &|_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 2);
    }

    #[test]
    #[should_panic(expected = "parts must be 1 to 2")]
    fn more_parts_than_threads_is_a_bug() {
        Pool::new(2).run(3, &|_| {});
    }
}
