//! `sowing compare`: which variant is deeper, more balanced, harder to learn, and by how much,
//! measured with intervals rather than guessed.
//!
//! The run: resolve the variants; size the random-play measurement from the budget; play it;
//! from the (deterministic) shape of those games, size the agent measurements (balance, skill
//! chains, search sensitivity) and play them; measure a ladder of agents' accuracy on each
//! variant's committed exact positions; train on each variant if the trainer is built in; write
//! the report. Every unit of work is cached in the output directory as it finishes, so an
//! interrupted run resumes and a longer budget extends a finished one. See [`plan`] for how the
//! budget is split.

mod accuracy;
mod cache;
mod chain;
mod config;
mod difficulty;
mod figures;
mod games;
mod learn;
mod plan;
mod report;
mod run;
mod shape;
mod sketch;
mod solved;
mod stages;

use config::{Config, Variant};
use plan::TimeBudget;
use sowing_env::{Error, PRESETS, Rules};
use std::path::PathBuf;

/// Arguments of `sowing compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Variants to compare: `all` (every preset, aliases left out) or a comma-separated list of
    /// preset names. Default: all, unless --rules is given.
    #[arg(long)]
    variants: Option<String>,
    /// A rules file (JSON or TOML, as `sowing variants` shows) to compare as a variant of its own,
    /// named after the file. May be repeated.
    #[arg(long = "rules", value_name = "FILE")]
    rules: Vec<PathBuf>,
    /// Time for the whole comparison, e.g. 90s, 30m, 2h, 1h30m. It is turned into game counts up
    /// front by a fixed cost model, so the same command always does the same work.
    #[arg(long, default_value = "30m")]
    budget: TimeBudget,
    /// Directory for the report, the raw data and the cache of finished work.
    #[arg(long)]
    out: PathBuf,
    /// Seed of every game played.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Threads to play on (default: every core; at most 1024). Part of the plan: the budget buys
    /// this many cores' worth of games.
    #[arg(long)]
    threads: Option<usize>,
    /// Compute at most this many units of work in this run, then stop without a report; run again
    /// to go on (the cache keeps what was done). For splitting a long comparison into sessions.
    #[arg(long, value_name = "N")]
    max_units: Option<u64>,
    /// An endgame tablebase for the `solved` column: the solver decides the positions it holds
    /// in every variant whose rules it serves. May be repeated (one per board size, say).
    #[arg(long = "tablebase", value_name = "FILE")]
    tablebases: Vec<PathBuf>,
}

/// The variants named by `--variants` and `--rules`.
fn resolve(variants: Option<&str>, files: &[PathBuf]) -> Result<Vec<Variant>, String> {
    let mut out: Vec<Variant> = Vec::new();
    let names = match variants {
        Some(v) => v.to_string(),
        None if files.is_empty() => "all".to_string(),
        None => String::new(),
    };
    let push = |out: &mut Vec<Variant>, v: Variant| -> Result<(), String> {
        if out.iter().any(|o| o.name == v.name) {
            return Err(format!("variant {} is named twice", Error::quote(&v.name)));
        }
        out.push(v);
        Ok(())
    };
    for name in names.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if name == "all" {
            for preset in PRESETS {
                let rules = Rules::preset(preset).map_err(|e| e.to_string())?;
                // Aliases (en-dodoi is en-dodoi-8) would only repeat a row.
                if !out.iter().any(|o| o.rules == rules) {
                    push(
                        &mut out,
                        Variant {
                            name: preset.to_string(),
                            rules,
                        },
                    )?;
                }
            }
        } else {
            let rules = Rules::preset(name).map_err(|e| format!("--variants: {e}"))?;
            push(
                &mut out,
                Variant {
                    name: name.to_string(),
                    rules,
                },
            )?;
        }
    }
    for file in files {
        let named = crate::select::read_rules(file)?.playable()?;
        push(
            &mut out,
            Variant {
                name: named.name,
                rules: named.rules,
            },
        )?;
    }
    if out.is_empty() {
        return Err("no variants to compare: give --variants (e.g. all) or --rules FILE".into());
    }
    Ok(out)
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let variants = resolve(args.variants.as_deref(), &args.rules)?;
    let threads = match args.threads {
        Some(0) => return Err("--threads must be at least 1".into()),
        Some(t) => sowing_exact::memory::threads(t)?,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let command: Vec<String> = std::env::args().collect();
    let tablebases = args
        .tablebases
        .iter()
        .map(|path| sowing_exact::shared_tablebase(path).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, String>>()?;
    let config = Config {
        tablebases,
        variants,
        budget: args.budget,
        out: args.out,
        seed: args.seed,
        threads,
        max_units: args.max_units,
        command,
    };
    stages::compare(&config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_leaves_out_aliases_and_names_are_checked() {
        let all = resolve(Some("all"), &[]).unwrap();
        assert_eq!(all.len(), PRESETS.len() - 1);
        assert!(all.iter().all(|v| v.name != "en-dodoi"));
        assert_eq!(resolve(None, &[]).unwrap(), all);
        let two = resolve(Some("en-dodoi-6, sadeqa-iii"), &[]).unwrap();
        assert_eq!(two[1].name, "sadeqa-iii");
        let e = resolve(Some("en-dodoi-6,nope"), &[]).unwrap_err();
        assert!(e.contains("nope") && e.contains("en-dodoi-6"), "{e}");
        assert!(resolve(Some("en-dodoi-6,en-dodoi-6"), &[]).is_err());
        assert!(resolve(Some(""), &[]).is_err());
        let missing = resolve(None, &[PathBuf::from("/no/such/rules.json")]).unwrap_err();
        assert!(missing.contains("/no/such/rules.json"), "{missing}");
    }
}
