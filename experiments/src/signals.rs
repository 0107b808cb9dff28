//! Ending on a signal without leaving hidden files behind. Ctrl-C (SIGINT), SIGTERM or SIGHUP
//! while a file is written (a tablebase of gigabytes takes a while) would leave its temporary,
//! `.NAME.PID.RANDOM.tmp`, beside the target: the signals are taken by one thread that removes
//! the temporaries of [`sowing_exact::output_file`] and then ends the process by the same signal,
//! as it would have ended without this (the same exit status for a shell). SIGKILL cannot be
//! caught; nothing is left to do about it.

/// The signals that end the process after the clean-up.
#[cfg(unix)]
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Take the signals on a thread of their own. Call it first in `main`, before any other thread
/// starts: the threads started after it inherit the blocked signals, so that only this thread
/// hears them.
#[cfg(unix)]
pub fn clean_up_on_signals() {
    drop(listen());
}

/// Block [`SIGNALS`] in this thread and start the thread that takes them; `None` (and the
/// signals left as they were) when it cannot start.
#[cfg(unix)]
fn listen() -> Option<std::thread::JoinHandle<()>> {
    // SAFETY: a signal set built in memory this function owns, and the signal mask of this
    // thread.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in SIGNALS {
            libc::sigaddset(&mut set, signal);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return None;
        }
        set
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let mut signal = 0;
            // SAFETY: waits on the set built above, writing the signal into a local.
            while unsafe { libc::sigwait(&set, &mut signal) } != 0 {}
            sowing_exact::output_file::remove_temporaries();
            // SAFETY: the signal's default action back, the set unblocked in this thread, and the
            // signal sent to it: the process ends as the signal ends it.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                libc::raise(signal);
            }
        });
    match spawned {
        Ok(thread) => Some(thread),
        Err(_) => {
            // No thread to hear them: the signals end the process as before.
            // SAFETY: this thread's signal mask, with the set built above.
            unsafe {
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            }
            None
        }
    }
}

/// Elsewhere a signal ends the process as it always did.
#[cfg(not(unix))]
pub fn clean_up_on_signals() {}

#[cfg(all(test, unix))]
mod tests {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    use std::path::PathBuf;
    use std::process::Command;

    /// The child half of [`a_signal_while_a_file_is_written_leaves_no_temporary`]: write a file
    /// into `SOWING_SIGNAL_DIR` and, while it is being written, send this process SIGTERM.
    #[test]
    fn child_is_signalled_while_writing() {
        let Some(dir) = std::env::var_os("SOWING_SIGNAL_DIR") else {
            return;
        };
        use std::os::unix::thread::JoinHandleExt;
        // The test harness's own threads do not block the signals, so it goes to the thread
        // that takes them (in `sowing`, every thread blocks them).
        let listener = super::listen().expect("the thread starts").as_pthread_t();
        let dir = PathBuf::from(dir);
        let _ = sowing_exact::output_file::write_with(&dir.join("table.tb"), 16, |out| {
            out.write_all(b"half a table")?;
            out.flush()?;
            println!("writing");
            // SAFETY: a signal to the thread of this process that takes them.
            unsafe {
                libc::pthread_kill(listener, libc::SIGTERM);
            }
            // The clean-up thread ends the process; this never returns.
            loop {
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        });
        unreachable!("the signal ends the process while the file is written");
    }

    #[test]
    fn a_signal_while_a_file_is_written_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("sowing-signal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "signals::tests::child_is_signalled_while_writing",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env("SOWING_SIGNAL_DIR", &dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("writing"), "{stdout}");
        assert_eq!(out.status.signal(), Some(libc::SIGTERM), "{stdout}");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
