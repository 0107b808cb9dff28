//! Standard output of the command, written so that a failed write is an error with a message
//! (`sowing variants > /dev/full`: "cannot write to standard output: No space left on device")
//! rather than the panic of `println!`. A reader that goes away (`| head -1`) still ends the
//! process quietly by SIGPIPE, as `main` arranges.
//!
//! `outln!` and `out!` take `format!` arguments and give an `io::Result` to pass on with `?`.

use std::fmt;
use std::io::{self, Write};

/// Write one line to standard output, checked (see the module's documentation).
macro_rules! outln {
    () => {
        $crate::output::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Write to standard output without a line end, checked.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};

/// Write `text` to standard output; a failure names standard output and the reason.
pub fn write(text: fmt::Arguments<'_>) -> io::Result<()> {
    io::stdout().lock().write_fmt(text).map_err(failed)
}

/// Flush standard output, for what a last line without its end left in the buffer.
pub fn flush() -> io::Result<()> {
    io::stdout().lock().flush().map_err(failed)
}

fn failed(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot write to standard output: {e}"))
}

/// Write a line to standard error, for warnings and progress. Where even that fails there is
/// nobody left to tell, so the failure is dropped rather than ending the work.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

pub(crate) use note;
