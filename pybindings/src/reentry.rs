//! A search that calls Python (a network's `evaluate`) holds its trees while the call runs; the
//! same object called again from inside that call would wait for itself for ever, deaf to
//! Ctrl-C. So each thread notes which objects' callbacks it is running, and an object asked to
//! do anything from inside its own callback refuses with a `RuntimeError` at once.
//!
//! The note is per thread: Python code runs on the thread that called it, so a call from inside
//! the callback arrives on the thread that noted it, whatever thread the search runs on; another
//! Python thread sharing the object still waits its turn, as documented.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::cell::RefCell;

thread_local! {
    /// The objects whose Python callback this thread is running, innermost last.
    static INSIDE: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Who is calling back into Python: the address of the object whose callback runs, or
/// [`Owner::NONE`] for a call that holds nothing a nested call could wait for (`self_play`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner(usize);

impl Owner {
    /// A call that holds nothing.
    pub const NONE: Owner = Owner(0);

    /// The owner `object`, named by its address (a Python object's Rust value does not move).
    pub fn of<T>(object: &T) -> Owner {
        Owner(object as *const T as usize)
    }
}

/// While alive, this thread runs `owner`'s callback.
#[derive(Debug)]
pub struct Inside(Owner);

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.with(|inside| {
            let mut inside = inside.borrow_mut();
            if let Some(at) = inside.iter().rposition(|&o| o == self.0.0) {
                inside.remove(at);
            }
        });
    }
}

/// Note that this thread now runs `owner`'s callback, until the guard is dropped.
pub fn enter(owner: Owner) -> Option<Inside> {
    if owner == Owner::NONE {
        return None;
    }
    INSIDE.with(|inside| inside.borrow_mut().push(owner.0));
    Some(Inside(owner))
}

/// Refuse `owner`'s `what` (`"Search"`, `"NetworkAgent 'az:x:64'"`) when it is asked from
/// inside its own callback on this thread.
pub fn refuse(owner: Owner, what: &str) -> PyResult<()> {
    let inside = INSIDE.with(|inside| inside.borrow().contains(&owner.0));
    if inside {
        return Err(PyRuntimeError::new_err(format!(
            "{what} is already running: its evaluate function called it from inside its own \
             search, which would wait for itself for ever; use a second object for a search \
             inside evaluate"
        )));
    }
    Ok(())
}
