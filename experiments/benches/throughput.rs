//! `cargo bench`: the throughput figures of `sowing bench`, for every preset (the alias
//! `en-dodoi` aside), from the same code. `SOWING_BENCH_SECONDS` sets the seconds per figure
//! (default 2); a preset name on the command line measures only that one.

use sowing_env::{Preset, Rules};
use sowing_experiments::throughput::{Throughput, measure};

fn main() {
    let seconds = std::env::var("SOWING_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    // cargo passes `--bench`; anything else not starting with `-` filters the presets.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    println!("{}", Throughput::table_header());
    for preset in Preset::ALL {
        let name = preset.name;
        if preset.alias_of.is_some() || (!only.is_empty() && !only.iter().any(|o| o == name)) {
            continue;
        }
        let rules = Rules::preset(name).expect("a preset");
        println!("{}", measure(name, &rules, seconds).table_row());
    }
}
