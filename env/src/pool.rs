//! A small pool of worker threads kept for the life of a [`crate::VecEnv`], so that stepping a
//! large batch on several cores spawns nothing and allocates nothing per step.
//!
//! `run(chunks, f)` calls `f(0)`, ..., `f(chunks - 1)`, each once, and returns when all have
//! returned. Each thread (the caller is one) has a run of chunks of its own, which it claims one
//! at a time from the front, so that it walks through memory in order; a thread that has
//! finished its own run claims chunks of the others' the same way. So a thread that the system
//! has descheduled (another process is busy on its core) simply claims fewer, and the caller
//! never waits for a share that nobody has started: it waits only for chunks already under way,
//! spinning briefly and then sleeping, which hands its core to the thread it waits for. Idle
//! workers spin only briefly for the next task, then sleep: on a busy machine a spinning thread
//! takes the core from the work. A panic in any chunk is raised again in the caller once every
//! chunk is done.
//!
//! Workers do not survive `fork`: a child process has only the thread that forked. A pool used
//! in a process other than the one that started it leaves the old workers' state alone (they may
//! have held its lock) and starts new workers.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long an idle worker watches for the next task before it sleeps: long enough to bridge
/// the passes of one step, short enough not to hold a core between steps.
const WORKER_SPIN: Duration = Duration::from_micros(20);
/// How long the caller watches for the chunks under way before it sleeps: a few chunks' time.
const CALLER_SPIN: Duration = Duration::from_micros(30);

/// Spin until `ready()` or `limit` has passed; whether `ready()` was seen.
#[inline]
fn spin_until(limit: Duration, ready: impl Fn() -> bool) -> bool {
    let began = Instant::now();
    loop {
        // The clock is read once every 16 checks.
        for _ in 0..16 {
            if ready() {
                return true;
            }
            std::hint::spin_loop();
        }
        if began.elapsed() >= limit {
            return ready();
        }
    }
}

type Task = dyn Fn(usize) + Sync;

/// A task pointer whose lifetime `run` has erased; sound because `run` does not return while any
/// claimed chunk can still call it (see `Pool::run`).
#[derive(Clone, Copy)]
struct TaskPtr(*const Task);
// SAFETY: the pointee is `Sync`, and it outlives every use (see `Pool::run`).
unsafe impl Send for TaskPtr {}

/// The task of one generation, as the workers read it.
struct Job {
    generation: u32,
    task: Option<TaskPtr>,
    chunks: u32,
    /// The thread that called `run`, woken by whoever finishes its last chunk.
    caller: Option<Thread>,
    panic: Option<Box<dyn std::any::Any + Send>>,
    shutdown: bool,
}

/// A claim counter on a cache line of its own, so that a thread claiming from its own run does
/// not disturb the others'.
#[repr(align(64))]
struct Run(AtomicU64);

struct Shared {
    /// The generation of the current task: workers wait for it to change.
    generation: AtomicU32,
    /// Per thread, its run of chunks: the generation (high 32 bits) and the next chunk to claim
    /// (low 32). A claim is a compare-and-swap on both, so a worker that read an older task can
    /// never claim a chunk of a newer one.
    runs: Box<[Run]>,
    /// Chunks of the current task that have returned.
    finished: AtomicUsize,
    job: Mutex<Job>,
}

impl Shared {
    fn job(&self) -> MutexGuard<'_, Job> {
        // A panic never happens while the lock is held (tasks run outside it).
        self.job
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The chunks `start..end` of thread `k`'s run, out of `chunks`.
    fn bounds(&self, k: usize, chunks: u32) -> (u32, u32) {
        let threads = self.runs.len() as u64;
        let at = |k: usize| (k as u64 * chunks as u64 / threads) as u32;
        (at(k), at(k + 1))
    }

    /// The next chunk of run `k` in generation `generation`, if one is left.
    fn claim(&self, k: usize, generation: u32, end: u32) -> Option<u32> {
        let run = &self.runs[k].0;
        let mut word = run.load(Ordering::Acquire);
        loop {
            let (g, next) = ((word >> 32) as u32, word as u32);
            if g != generation || next >= end {
                return None;
            }
            match run.compare_exchange_weak(word, word + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(next),
                Err(now) => word = now,
            }
        }
    }

    /// As thread `me`: claim and run chunks of generation `generation`, its own run first, then
    /// the others', until none is left. A panic is kept for the caller; whoever finishes the last
    /// chunk wakes the caller.
    fn work(&self, me: usize, generation: u32, task: TaskPtr, chunks: u32, caller: &Thread) {
        let threads = self.runs.len();
        for k in (me..threads).chain(0..me) {
            let end = self.bounds(k, chunks).1;
            while let Some(chunk) = self.claim(k, generation, end) {
                // SAFETY: the chunk is claimed in this generation and not yet finished, so
                // `run` is still waiting and the task is alive.
                let result =
                    catch_unwind(AssertUnwindSafe(|| unsafe { (*task.0)(chunk as usize) }));
                if let Err(p) = result {
                    self.job().panic.get_or_insert(p);
                }
                if self.finished.fetch_add(1, Ordering::AcqRel) + 1 == chunks as usize {
                    caller.unpark();
                }
            }
        }
    }
}

/// The workers of a pool, in the process that started them.
struct Crew {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// The process the workers run in.
    pid: u32,
}

impl Crew {
    fn start(workers: usize) -> Crew {
        let shared = Arc::new(Shared {
            generation: AtomicU32::new(0),
            runs: (0..=workers).map(|_| Run(AtomicU64::new(0))).collect(),
            finished: AtomicUsize::new(0),
            job: Mutex::new(Job {
                generation: 0,
                task: None,
                chunks: 0,
                caller: None,
                panic: None,
                shutdown: false,
            }),
        });
        let workers = (1..=workers)
            .map(|k| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("sowing-vec-{k}"))
                    .spawn(move || worker(&shared, k))
                    .expect("spawn a VecEnv worker thread")
            })
            .collect();
        Crew {
            shared,
            workers,
            pid: std::process::id(),
        }
    }

    fn wake(&self) {
        for w in &self.workers {
            w.thread().unpark();
        }
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.shared.job().shutdown = true;
        // Bumped so that a spinning worker stops spinning and sees the shutdown.
        self.shared.generation.fetch_add(1, Ordering::AcqRel);
        self.wake();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

pub(crate) struct Pool {
    threads: usize,
    /// The workers, none for a pool of one thread.
    crew: Option<Crew>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({} threads)", self.threads())
    }
}

impl Pool {
    /// A pool that runs up to `threads` chunks at once (the caller's thread counts as one).
    pub(crate) fn new(threads: usize) -> Pool {
        let threads = threads.max(1);
        Pool {
            threads,
            crew: (threads > 1).then(|| Crew::start(threads - 1)),
        }
    }

    /// Threads that can run chunks at once, the caller's included.
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// Call `f(i)` for every `i` in `0..chunks`, each once, on the caller's thread and the
    /// workers; return when all have returned. A panic in a chunk is raised here after that.
    pub(crate) fn run<'a>(&mut self, chunks: usize, f: &'a (dyn Fn(usize) + Sync + 'a)) {
        let chunks = u32::try_from(chunks).expect("fewer than 2^32 chunks");
        if chunks <= 1 || self.crew.is_none() {
            (0..chunks as usize).for_each(f);
            return;
        }
        let crew = self.crew_here();
        let shared = &*crew.shared;
        // SAFETY: only the lifetime is erased. A chunk calls the task only between its claim and
        // its `finished` increment; every chunk is claimed (by a worker or below) before this
        // function can see `finished == chunks`, which it waits for before returning; a claim
        // checks the generation, so no chunk of this task can be claimed after that.
        let raw: *const (dyn Fn(usize) + Sync + 'a) = f;
        let task = TaskPtr(unsafe {
            std::mem::transmute::<*const (dyn Fn(usize) + Sync + 'a), *const Task>(raw)
        });
        let caller = std::thread::current();
        let generation = {
            let mut job = shared.job();
            job.generation = job.generation.wrapping_add(1);
            job.task = Some(task);
            job.chunks = chunks;
            job.caller = Some(caller.clone());
            shared.finished.store(0, Ordering::Release);
            for (k, run) in shared.runs.iter().enumerate() {
                let start = shared.bounds(k, chunks).0;
                let word = (job.generation as u64) << 32 | start as u64;
                run.0.store(word, Ordering::Release);
            }
            shared.generation.store(job.generation, Ordering::Release);
            job.generation
        };
        crew.wake();
        shared.work(0, generation, task, chunks, &caller);
        let done = || shared.finished.load(Ordering::Acquire) == chunks as usize;
        if !spin_until(CALLER_SPIN, done) {
            // Asleep, the caller's core goes to the thread whose chunk it waits for; that
            // thread's last chunk wakes it (a wake-up from an earlier task only re-checks).
            while !done() {
                std::thread::park();
            }
        }
        let panic = {
            let mut job = shared.job();
            job.task = None;
            job.caller = None;
            job.panic.take()
        };
        if let Some(p) = panic {
            resume_unwind(p);
        }
    }

    /// The crew, started again if this process is a fork of the one that started it.
    fn crew_here(&mut self) -> &Crew {
        let pid = std::process::id();
        let crew = self
            .crew
            .as_mut()
            .expect("a pool of several threads has a crew");
        if crew.pid != pid {
            // The old workers do not exist here, and their lock may have been held at the fork:
            // their state is left as it is, never locked, joined or freed.
            let old = std::mem::replace(crew, Crew::start(self.threads - 1));
            std::mem::forget(old);
        }
        crew
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        if let Some(crew) = self.crew.take() {
            if crew.pid == std::process::id() {
                drop(crew);
            } else {
                std::mem::forget(crew);
            }
        }
    }
}

/// Worker `me` (1 and up; the caller is 0).
fn worker(shared: &Shared, me: usize) {
    let mut seen = 0u32;
    loop {
        let current = || shared.generation.load(Ordering::Acquire);
        if !spin_until(WORKER_SPIN, || current() != seen) {
            // `park` keeps a wake-up that came before it, so none is lost between the check
            // and the sleep.
            while current() == seen {
                std::thread::park();
            }
        }
        let (generation, task, chunks, caller) = {
            let job = shared.job();
            if job.shutdown {
                return;
            }
            match (job.task, &job.caller) {
                (Some(task), Some(caller)) => (job.generation, task, job.chunks, caller.clone()),
                // The task has finished already: wait for the next one.
                _ => {
                    seen = job.generation;
                    continue;
                }
            }
        };
        seen = generation;
        shared.work(me, generation, task, chunks, &caller);
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_chunk_runs_once_per_call() {
        for threads in [1, 2, 3] {
            let mut pool = Pool::new(threads);
            assert_eq!(pool.threads(), threads);
            let hits: Vec<AtomicUsize> = (0..40).map(|_| AtomicUsize::new(0)).collect();
            for chunks in [0, 1, 2, 3, 40, 7, 40, 1] {
                pool.run(chunks, &|c| {
                    hits[c].fetch_add(1, Ordering::Relaxed);
                });
            }
            let counts: Vec<usize> = hits.iter().map(|h| h.load(Ordering::Relaxed)).collect();
            let expected: Vec<usize> = (0..40)
                .map(|c| {
                    [0, 1, 2, 3, 40, 7, 40, 1]
                        .iter()
                        .filter(|&&n| c < n)
                        .count()
                })
                .collect();
            assert_eq!(counts, expected, "{threads} threads");
        }
    }

    #[test]
    fn many_short_calls_in_a_row_run_each_chunk_once() {
        // Workers that wake late, or not at all, within a call must never run a chunk of the
        // next call with the last call's task.
        let mut pool = Pool::new(3);
        for call in 0..20_000usize {
            let chunks = 2 + call % 5;
            let hits: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
            pool.run(chunks, &|c| {
                hits[c].fetch_add(call, Ordering::Relaxed);
            });
            for h in &hits {
                assert_eq!(h.load(Ordering::Relaxed), call, "call {call}");
            }
        }
    }

    #[test]
    fn a_panic_in_a_chunk_reaches_the_caller_and_the_pool_goes_on() {
        let mut pool = Pool::new(2);
        let ran = AtomicUsize::new(0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(8, &|c| {
                ran.fetch_add(1, Ordering::Relaxed);
                assert_ne!(c, 5, "chunk 5 fails");
            });
        }));
        assert!(caught.is_err());
        // The other chunks ran all the same.
        assert_eq!(ran.load(Ordering::Relaxed), 8);
        let ran = AtomicUsize::new(0);
        pool.run(8, &|_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 8);
    }
}
