//! Running the `sowing` command from the command-line tests, as a user would. Each test file
//! uses only some of these.
#![allow(dead_code)]

use std::process::{Command, Output};

/// `sowing ARGS` in the test's working directory.
pub fn sowing(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sowing"))
        .args(args)
        .output()
        .expect("run sowing")
}

/// What the command printed on standard output.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// What the command printed on standard error (bytes that are not UTF-8 shown as such).
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
