//! `sowing variants`: the presets, their rules and where they come from.

use crate::output::outln;
use sowing_env::{PRESETS, Rules, preset_source};

/// Arguments of `sowing variants`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print one JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if !args.json {
        outln!(
            "{:<14} {:<28} {:>6} {:>6}  source",
            "variant",
            "rules",
            "laps",
            "plies"
        )?;
    }
    for name in PRESETS {
        let rules = Rules::preset(name)?;
        let source = preset_source(name).unwrap_or_default();
        if args.json {
            let mut v = serde_json::to_value(rules)?;
            v["variant"] = name.into();
            v["source"] = source.into();
            outln!("{v}")?;
        } else {
            outln!(
                "{name:<14} {:<28} {:>6} {:>6}  {source}",
                rules.summary(),
                rules.max_laps(),
                rules.max_plies()
            )?;
        }
    }
    Ok(())
}
