//! Stopping a search from outside it. A long search (alpha-beta, MCTS, the solver) given a
//! [`Stop`] asks it every few thousand positions whether to give up, and returns at once when
//! told to: this is how a Ctrl-C pressed in Python ends a search within a fraction of a second.
//!
//! The question is a function, not a flag, so that the asker decides what it costs: the Python
//! binding looks for a pending signal at most every few milliseconds, a thread that wants to
//! cancel another sets an atomic flag that the function reads.

use std::fmt;
use std::sync::Arc;

/// Whether a search should give up now. [`Stop::never`] (the default) never says so.
#[derive(Clone, Default)]
pub struct Stop(Option<Arc<dyn Fn() -> bool + Send + Sync>>);

impl Stop {
    /// A search that runs to its budget.
    pub fn never() -> Stop {
        Stop(None)
    }

    /// A search that gives up once `asked()` returns true. `asked` is called every few thousand
    /// positions, so it should take well under a microsecond most of the time.
    pub fn when(asked: impl Fn() -> bool + Send + Sync + 'static) -> Stop {
        Stop(Some(Arc::new(asked)))
    }

    /// Whether to give up now.
    #[inline]
    pub fn requested(&self) -> bool {
        self.0.as_ref().is_some_and(|asked| asked())
    }
}

impl fmt::Debug for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Stop(when)"
        } else {
            "Stop(never)"
        })
    }
}
