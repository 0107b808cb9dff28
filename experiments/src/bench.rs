//! `sowing bench`: the engine's throughput per preset (see
//! [`sowing_experiments::throughput`], which `cargo bench` runs too).

use crate::select::VariantArgs;
use sowing_experiments::throughput::{Throughput, measure};

/// Arguments of `sowing bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    variant: VariantArgs,
    /// Seconds to measure each figure for, per variant.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Print one JSON object per variant and line instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        return Err(format!(
            "--seconds must be above 0 and at most 3600, not {}",
            args.seconds
        )
        .into());
    }
    let variants = args.variant.many("all")?;
    if !args.json {
        println!("{}", Throughput::table_header());
    }
    for named in &variants {
        let t = measure(&named.name, &named.rules, args.seconds);
        if args.json {
            println!("{}", serde_json::to_string(&t)?);
        } else {
            println!("{}", t.table_row());
        }
    }
    Ok(())
}
