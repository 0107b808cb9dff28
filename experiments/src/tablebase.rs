//! `sowing tablebase`: build an endgame tablebase (the exact value of every position with at most
//! K seeds on the board), probe a position with it (its value and every move's), and describe a
//! tablebase file. What a value means, endless play, and the file format: `docs/tablebase.md`.

use crate::output::{note, outln};
use crate::select::{self, VariantArgs};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sowing_env::{Rules, State};
use sowing_exact::Wdl;
use sowing_exact::output_file;
use sowing_exact::tablebase::{
    BuildOptions, BuildProgress, Checkpoint, LayerStats, Probe, Tablebase, build_bytes,
};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `sowing tablebase`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Solve every position with at most K seeds on the board by retrograde analysis and write
    /// the table to a file.
    Build(BuildArgs),
    /// The value of a position for the player to move, and of each of their moves.
    Probe(ProbeArgs),
    /// What a tablebase file holds: its rules, its size and how each layer came out.
    Info(InfoArgs),
}

/// Arguments of `sowing tablebase build`.
#[derive(Debug, clap::Args)]
struct BuildArgs {
    /// The rules: `--variant V` or `--rules FILE` (one of them is needed).
    #[command(flatten)]
    variant: VariantArgs,
    /// The most seeds on the board of a position in the table (en-dodoi-6: 20 makes 226 million
    /// positions).
    #[arg(long, value_name = "K")]
    max_seeds: u32,
    /// The file to write (a regular file; its directory must exist): checked before the build,
    /// written to a temporary file beside it, then renamed over it.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Threads sowing the moves (default: one per core), at most 1024.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Minutes of building between checkpoints: the layers solved so far are saved to
    /// FILE.partial, and a build started again with the same --out goes on from there, giving
    /// the same file (0: after every layer). The checkpoint is removed when the table is written.
    #[arg(long, value_name = "MINUTES", default_value_t = 10.0, value_parser = checkpoint_minutes)]
    checkpoint_minutes: f64,
    /// Print the summary as one JSON object instead of tables.
    #[arg(long)]
    json: bool,
}

/// The most minutes between checkpoints: a day.
const MAX_CHECKPOINT_MINUTES: f64 = 1440.0;

fn checkpoint_minutes(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|m| (0.0..=MAX_CHECKPOINT_MINUTES).contains(m))
        .ok_or_else(|| {
            format!(
                "{} is not a number of minutes from 0 to {MAX_CHECKPOINT_MINUTES}",
                sowing_env::Error::quote(text)
            )
        })
}

/// Where a build to `out` keeps its checkpoint: `out` with `.partial` added.
fn checkpoint_path(out: &std::path::Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Arguments of `sowing tablebase probe`.
#[derive(Debug, clap::Args)]
struct ProbeArgs {
    /// The rules of the game played to the position (default: the table's own); they must
    /// match the table's in every field that shapes the game tree.
    #[command(flatten)]
    variant: VariantArgs,
    /// Moves from the start to the position, comma-separated.
    #[arg(long, value_delimiter = ',', conflicts_with = "state")]
    moves: Vec<usize>,
    /// The position as a state's JSON (rules, board, captured, to_move, ply), instead of moves.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["variant", "rules"])]
    state: Option<String>,
    /// The tablebase file.
    #[arg(long, value_name = "FILE")]
    tablebase: PathBuf,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Arguments of `sowing tablebase info`.
#[derive(Debug, clap::Args)]
struct InfoArgs {
    /// The tablebase file.
    file: PathBuf,
    /// Print the description as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    match args.command {
        Command::Build(args) => build(args),
        Command::Probe(args) => probe(args),
        Command::Info(args) => info(args),
    }
}

/// What `build` and `info` report of a table.
#[derive(Serialize)]
struct Summary {
    file: PathBuf,
    rules: Rules,
    max_seeds: u32,
    positions: u64,
    bytes: u64,
    /// Seconds the build took (build only).
    #[serde(skip_serializing_if = "Option::is_none")]
    seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<usize>,
    /// The most memory the process held, from /proc/self/status (build only, Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_memory_bytes: Option<u64>,
    layers: Vec<LayerStats>,
}

impl Summary {
    fn of(table: &Tablebase, file: PathBuf) -> Result<Summary, Box<dyn std::error::Error>> {
        let bytes = std::fs::metadata(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?
            .len();
        Ok(Summary {
            file,
            rules: *table.rules(),
            max_seeds: table.max_seeds(),
            positions: table.len(),
            bytes,
            seconds: None,
            threads: None,
            peak_memory_bytes: None,
            layers: table.layer_stats(),
        })
    }

    fn print(&self) -> std::io::Result<()> {
        outln!(
            "{}: {}, positions with at most {} seeds on the board",
            self.file.display(),
            self.rules.summary(),
            self.max_seeds
        )?;
        outln!("{} positions, {} bytes on disk", self.positions, self.bytes)?;
        if let Some(seconds) = self.seconds {
            let mut line = format!(
                "built in {seconds:.1} s ({:.2} M positions/s",
                self.positions as f64 / seconds / 1e6
            );
            if let Some(t) = self.threads {
                line.push_str(&format!(", {t} threads"));
            }
            if let Some(peak) = self.peak_memory_bytes {
                line.push_str(&format!(", peak memory {}", size(peak as f64)));
            }
            outln!("{line})")?;
        }
        outln!(
            "{:>5} {:>12} {:>12} {:>12} {:>12} {:>10} {:>10}",
            "seeds",
            "positions",
            "won",
            "drawn",
            "lost",
            "endless",
            "cyclic"
        )?;
        for l in &self.layers {
            outln!(
                "{:>5} {:>12} {:>12} {:>12} {:>12} {:>10} {:>10}",
                l.seeds,
                l.positions,
                l.won,
                l.drawn,
                l.lost,
                l.endless,
                l.cyclic
            )?;
        }
        outln!(
            "won/drawn/lost: the mover's margin on the seeds left is above, at or below 0; \
             endless: perfect play never ends (value 0); cyclic: endless play is within reach, \
             so the result also depends on the captures so far (the file keeps the bounds)"
        )
    }
}

/// Bytes as people read them: `3.53 GB`, `12.4 MB`, `96 kB`.
fn size(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.2} GB", bytes / 1e9)
    } else if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else {
        format!("{:.0} kB", (bytes / 1e3).ceil())
    }
}

/// The most memory this process has held, in bytes (`VmHWM`), where the kernel tells.
fn peak_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn build(args: BuildArgs) -> Result<(), Box<dyn std::error::Error>> {
    if args.variant.variant.is_none() && args.variant.rules.is_none() {
        return Err("give the rules to build for: --variant V or --rules FILE".into());
    }
    let named = args.variant.one("en-dodoi-6")?;
    let rules = named.rules;
    let threads = sowing_exact::memory::threads(args.threads)?;
    output_file::check_apart(&args.out, &[("--rules", args.variant.rules.as_deref())])?;
    let partial = checkpoint_path(&args.out);
    output_file::check(&partial).map_err(|e| format!("the checkpoint: {e}"))?;
    if !args.json {
        let memory = build_bytes(rules.holes(), args.max_seeds as usize, threads)
            .map_or("an unknown amount".to_string(), |b| size(b as f64));
        note!(
            "building {} ({}) to {} seeds on {threads} threads: up to {memory} of memory",
            named.name,
            rules.summary(),
            args.max_seeds
        );
    }
    // A bar on standard error, drawn only in a terminal.
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {percent:>3}% {elapsed}/{duration}  {msg}")
            .expect("a valid template"),
    );
    let progress = |p: &BuildProgress| {
        bar.set_length(p.total);
        bar.set_position(p.done);
        bar.set_message(format!("{} seeds: {}", p.seeds, p.stage));
    };
    let started = Instant::now();
    let checkpoint = Checkpoint {
        path: &partial,
        every: Duration::from_secs_f64(args.checkpoint_minutes * 60.0),
    };
    if partial.exists() && !args.json {
        note!(
            "going on from the checkpoint {} (remove it to build afresh)",
            partial.display()
        );
    }
    let (mut table, resumed) = Tablebase::build_resumable(
        &rules,
        args.max_seeds,
        &BuildOptions {
            threads,
            progress: Some(&progress),
        },
        &checkpoint,
    )?;
    if let (Some(k), false) = (resumed, args.json) {
        note!("resumed: the layers to {k} seeds came from the checkpoint");
    }
    let seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    table.write(&args.out)?;
    checkpoint.remove()?;
    let mut summary = Summary::of(&table, args.out)?;
    summary.seconds = Some(seconds);
    summary.threads = Some(threads);
    summary.peak_memory_bytes = peak_memory();
    if args.json {
        outln!("{}", serde_json::to_string(&summary)?)?;
    } else {
        summary.print()?;
    }
    Ok(())
}

fn info(args: InfoArgs) -> Result<(), Box<dyn std::error::Error>> {
    let table = Tablebase::open(&args.file)?;
    let summary = Summary::of(&table, args.file)?;
    if args.json {
        outln!("{}", serde_json::to_string(&summary)?)?;
    } else {
        summary.print()?;
    }
    Ok(())
}

/// One legal move's value, as `probe` reports it.
#[derive(Serialize)]
struct MoveReport {
    action: usize,
    /// For the mover: the move's gain minus the value of the position it leads to.
    value: i32,
    /// The mover's captures minus the opponent's at the end of perfect play after the move.
    final_margin: i32,
    /// Perfect play after the move never ends.
    endless: bool,
    /// The result for the mover after the move, under perfect play (endless play a draw).
    result: Wdl,
    /// The move keeps the position's value.
    best: bool,
}

/// What `probe` reports of a position.
#[derive(Serialize)]
struct ProbeReport {
    state: State,
    seeds_on_board: u32,
    value: i32,
    final_margin: i32,
    endless: bool,
    result: Wdl,
    moves: Vec<MoveReport>,
}

fn probe(args: ProbeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let asked = args.variant.variant.is_some() || args.variant.rules.is_some();
    let (table, state) = if let Some(json) = &args.state {
        let state = State::from_json(json).map_err(|e| format!("--state: {e}"))?;
        (Tablebase::open_for(&args.tablebase, state.rules())?, state)
    } else {
        let table = if asked {
            Tablebase::open_for(&args.tablebase, &args.variant.one("en-dodoi-6")?.rules)?
        } else {
            Tablebase::open(&args.tablebase)?
        };
        let rules = if asked {
            args.variant.one("en-dodoi-6")?.rules
        } else {
            *table.rules()
        };
        let state = select::after_moves(&rules, &args.moves)?;
        (table, state)
    };
    let seeds = state.board().sum(0, 2 * state.holes());
    let Some(probe) = table.probe(&state) else {
        return Err(format!(
            "the position has {seeds} seeds on the board, but tablebase {} holds positions of \
             at most {} (play further with --moves)",
            args.tablebase.display(),
            table.max_seeds()
        )
        .into());
    };
    let moves: Vec<MoveReport> = table
        .move_values(&state)
        .expect("probed above")
        .into_iter()
        .map(|(action, p)| MoveReport {
            action,
            value: p.value,
            final_margin: p.final_margin(&state),
            endless: p.endless,
            result: p.result(&state),
            best: p.value == probe.value,
        })
        .collect();
    let report = ProbeReport {
        state,
        seeds_on_board: seeds,
        value: probe.value,
        final_margin: probe.final_margin(&state),
        endless: probe.endless,
        result: probe.result(&state),
        moves,
    };
    if args.json {
        outln!("{}", serde_json::to_string(&report)?)?;
    } else {
        print_probe(&report, &probe)?;
    }
    Ok(())
}

/// The result for `mover` in words, with the margin the game ends at (or stays at, if endless).
fn result(mover: sowing_env::Player, result: Wdl, margin: i32, endless: bool) -> String {
    let words = match result {
        Wdl::Win => format!("{mover} wins"),
        Wdl::Draw => "a draw".to_string(),
        Wdl::Loss => format!("{mover} loses"),
    };
    if endless {
        format!("{words}: play never ends (truncated) with {mover} {margin:+} in captures")
    } else {
        format!("{words} ({mover} {margin:+} in captures at the end)")
    }
}

fn print_probe(report: &ProbeReport, probe: &Probe) -> std::io::Result<()> {
    let state = &report.state;
    let mover = state.to_move();
    outln!("{}\n{}", state.rules().summary(), state.render())?;
    if state.is_over() {
        return outln!("the game is over: {}", state.outcome());
    }
    outln!(
        "value for {mover} to move: {:+} (seeds {mover} captures from here minus the opponent's, \
         under perfect play{})",
        report.value,
        if probe.endless {
            "; play never ends"
        } else {
            ""
        }
    )?;
    outln!(
        "with the captures so far: {}",
        result(mover, report.result, report.final_margin, report.endless)
    )?;
    outln!(
        "{:>6} {:>6} {:>6} {:>6}",
        "action",
        "value",
        "final",
        "result"
    )?;
    for m in &report.moves {
        outln!(
            "{:>6} {:>+6} {:>+6} {:>6}{}{}",
            m.action,
            m.value,
            m.final_margin,
            m.result.to_string(),
            if m.best { "  best" } else { "" },
            if m.endless { "  (endless)" } else { "" }
        )?;
    }
    Ok(())
}
