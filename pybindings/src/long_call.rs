//! Calls from Python that may run for seconds: an agent's search, the solver. Each runs with the
//! GIL released, gives up within about [`POLL`] of a Ctrl-C (the call then raises
//! `KeyboardInterrupt`, or whatever the Python signal handler raised), and runs on a stack known
//! to be deep enough for it: a Python thread's stack may be as small as 32 KiB
//! (`threading.stack_size`), and a deep search overflowing it kills the interpreter.
//!
//! Where the calling thread has the stack the work needs, the work runs there, and its
//! [`Stop`] takes the GIL back for a moment every [`POLL`] to run Python's pending signal
//! handlers. Elsewhere the work runs on a thread of its own with that stack while the calling
//! thread waits, running the handlers every [`POLL`], and tells it to stop through a flag.
//! Python runs signal handlers only on its main thread; on other threads the check finds
//! nothing, as Python's own loops do.

use crate::error::panic_error;
use pyo3::exceptions::{PyMemoryError, PyRuntimeError};
use pyo3::prelude::*;
use sowing_exact::Stop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a long call looks for a Ctrl-C.
pub const POLL: Duration = Duration::from_millis(20);

/// Stack kept free beyond what the work is said to need, for the frames between the caller and
/// the work and for estimates that fall short.
const MARGIN: usize = 256 * 1024;

/// Run `work`, which needs about `stack` bytes of stack, with the GIL released; it is given the
/// [`Stop`] to pass to its search. A Ctrl-C stops it and returns the handler's exception (its
/// result is dropped); a panic in it is a `RuntimeError` (see [`crate::error::guard`]).
pub fn run<T: Send>(
    py: Python<'_>,
    stack: usize,
    work: impl FnOnce(Stop) -> T + Send,
) -> PyResult<T> {
    let needed = stack.saturating_add(MARGIN);
    if stacker::remaining_stack().is_some_and(|left| left >= needed) {
        here(py, work)
    } else {
        on_own_thread(py, needed, work)
    }
}

/// Run `work` on a thread of its own with `stack` bytes of stack while the calling thread waits
/// and looks for a Ctrl-C: for work that plays on threads it starts itself (a series of games),
/// whose searches cannot look for one, as Python runs signal handlers only on its main thread.
pub fn run_apart<T: Send>(
    py: Python<'_>,
    stack: usize,
    work: impl FnOnce(Stop) -> T + Send,
) -> PyResult<T> {
    on_own_thread(py, stack.saturating_add(MARGIN), work)
}

/// Python's pending signals, looked at no more than once every [`POLL`] from inside a search.
struct Signals {
    started: Instant,
    /// When, in nanoseconds since `started`, to look next.
    next: AtomicU64,
    /// A handler raised: every later question is answered "stop" at once.
    raised: AtomicBool,
    error: Mutex<Option<PyErr>>,
}

impl Signals {
    fn new() -> Signals {
        Signals {
            started: Instant::now(),
            next: AtomicU64::new(POLL.as_nanos() as u64),
            raised: AtomicBool::new(false),
            error: Mutex::new(None),
        }
    }

    /// Whether a signal handler has raised: the search should stop.
    fn raised(&self) -> bool {
        if self.raised.load(Ordering::Relaxed) {
            return true;
        }
        let now = self.started.elapsed().as_nanos() as u64;
        if now < self.next.load(Ordering::Relaxed) {
            return false;
        }
        self.next
            .store(now + POLL.as_nanos() as u64, Ordering::Relaxed);
        let error = match Python::try_attach(|py| py.check_signals()) {
            Some(Ok(())) => return false,
            Some(Err(e)) => e,
            // The interpreter is shutting down: no caller is left to wait for the answer.
            None => PyRuntimeError::new_err("the Python interpreter is shutting down"),
        };
        *self.error.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
        self.raised.store(true, Ordering::Relaxed);
        true
    }

    fn take_error(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Run `work` on the calling thread.
fn here<T: Send>(py: Python<'_>, work: impl FnOnce(Stop) -> T + Send) -> PyResult<T> {
    let signals = Arc::new(Signals::new());
    let stop = {
        let signals = Arc::clone(&signals);
        Stop::when(move || signals.raised())
    };
    let out = py.detach(|| crate::error::guard(|| work(stop)))?;
    match signals.take_error() {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Run `work` on a thread of its own with `stack` bytes of stack.
fn on_own_thread<T: Send>(
    py: Python<'_>,
    stack: usize,
    work: impl FnOnce(Stop) -> T + Send,
) -> PyResult<T> {
    let stopped = Arc::new(AtomicBool::new(false));
    let stop = {
        let stopped = Arc::clone(&stopped);
        Stop::when(move || stopped.load(Ordering::Relaxed))
    };
    std::thread::scope(|scope| {
        let (done, finished) = sync_channel::<()>(1);
        // In a mutex, so that waiting with the GIL released may borrow it.
        let finished = Mutex::new(finished);
        let thread = std::thread::Builder::new()
            .name("sowing-search".into())
            .stack_size(stack)
            .spawn_scoped(scope, move || {
                let out = work(stop);
                // The receiver may be gone only once the caller has stopped waiting.
                let _ = done.send(());
                out
            })
            .map_err(|e| {
                PyMemoryError::new_err(format!(
                    "cannot start a thread with {} MiB of stack for this search: {e}",
                    stack >> 20
                ))
            })?;
        loop {
            let waited = py.detach(|| {
                let finished = finished.lock().unwrap_or_else(|e| e.into_inner());
                finished.recv_timeout(POLL)
            });
            match waited {
                // Disconnected: the thread panicked; `join` below reports it.
                Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        stopped.store(true, Ordering::Relaxed);
                        let _ = py.detach(|| thread.join());
                        return Err(e);
                    }
                }
            }
        }
        py.detach(|| thread.join()).map_err(panic_error)
    })
}
