//! `sowing bench`: the engine's throughput per preset (see
//! [`sowing_experiments::throughput`], which `cargo bench` runs too).

use crate::output::outln;
use crate::select::VariantArgs;
use indicatif::{ProgressBar, ProgressStyle};
use sowing_experiments::throughput::{Throughput, measure};

/// The shortest measurement: below it the clock's own cost is what would be measured.
const MIN_SECONDS: f64 = 0.01;
/// The longest measurement, per figure and variant.
const MAX_SECONDS: f64 = 3600.0;

/// Arguments of `sowing bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    variant: VariantArgs,
    /// Seconds to measure each figure for, per variant: 0.01 to 3600.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Print one JSON object per variant and line instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if !(args.seconds >= MIN_SECONDS && args.seconds <= MAX_SECONDS) {
        return Err(format!(
            "--seconds must be at least {MIN_SECONDS} and at most {MAX_SECONDS}, not {}",
            args.seconds
        )
        .into());
    }
    let variants = args.variant.many_playable("all")?;
    if !args.json {
        outln!("{}", Throughput::table_header())?;
    }
    // A bar on standard error (drawn only in a terminal) while each variant is measured.
    let bar = ProgressBar::new(variants.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} variants, measuring {msg}")
            .expect("a valid template"),
    );
    for named in &variants {
        bar.set_message(named.name.clone());
        let t = measure(&named.name, &named.rules, args.seconds);
        let line = if args.json {
            serde_json::to_string(&t)?
        } else {
            t.table_row()
        };
        bar.suspend(|| outln!("{line}"))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(())
}
