//! `sowing solved`: the perfect-play value of the start of small rule sets, each solved whole: a
//! tablebase of every position with all the game's seeds on the board holds the start, so its
//! value there is exact (who wins, by how many seeds, and the first moves that keep it).
//!
//! A rule set is `holes` per row, `seeds` per hole, a trigger and a direction, the other fields
//! at their defaults. The table is built in memory and dropped; rule sets whose table would hold
//! more than `--max-positions` positions, or would not fit the machine's memory, are listed as
//! skipped, with the reason.

use crate::output::outln;
use serde::Serialize;
use sowing_env::{Direction, Error, Player, Rules, RulesSpec, State, Trigger};
use sowing_exact::Wdl;
use sowing_exact::tablebase::{BuildOptions, Probe, Tablebase, TablebaseError};
use std::str::FromStr;
use std::time::Instant;

/// Arguments of `sowing solved`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Holes per row: a number, or an inclusive range `A..B` (`3..5` is 3, 4 and 5).
    #[arg(long, default_value = "3..5")]
    holes: Span,
    /// Seeds per hole at the start: a number, or an inclusive range `A..B`.
    #[arg(long, default_value = "1..4")]
    seeds: Span,
    /// Triggers, comma-separated: take, leave.
    #[arg(long, value_delimiter = ',', default_value = "take,leave")]
    trigger: Vec<String>,
    /// Directions, comma-separated: ccw, parity.
    #[arg(long, value_delimiter = ',', default_value = "ccw,parity")]
    direction: Vec<String>,
    /// Skip rule sets whose table would hold more positions than this (a position is a byte;
    /// building takes about a microsecond of a core per position).
    #[arg(long, default_value_t = 100_000_000)]
    max_positions: u64,
    /// Threads building each table (default: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print the results as one JSON array instead of a table.
    #[arg(long)]
    json: bool,
    /// Print the starts proven so far and shipped with the program (data/proven.json, larger rule
    /// sets solved with tables and the solver) instead of solving small ones.
    #[arg(long)]
    proven: bool,
}

/// An inclusive range of counts, `A..B` or `A`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span(u32, u32);

impl FromStr for Span {
    type Err = String;
    fn from_str(text: &str) -> Result<Span, String> {
        let bad = || {
            format!(
                "{} is not a count or an inclusive range such as 3..5",
                Error::quote(text)
            )
        };
        let (a, b) = match text.split_once("..") {
            Some((a, b)) => (a, b.strip_prefix('=').unwrap_or(b)),
            None => (text, text),
        };
        let (a, b): (u32, u32) = (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        );
        if a == 0 || a > b {
            return Err(format!(
                "{}: the range must run from 1 up, low end first",
                Error::quote(text)
            ));
        }
        Ok(Span(a, b))
    }
}

/// The perfect-play value of a start.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct StartValue {
    /// `South`, `North`, or `draw` (perfect play ends level, or never ends).
    pub result: String,
    /// South's final lead (seeds captured more than North) when the winner forces the end of the
    /// game by as much as they can (the table's bound `low` for a South win, `high` for a North
    /// win); 0 for a draw. Not the table's margin value, which counts endless play as 0 more
    /// seeds and so can credit a lead that only a truncated game keeps.
    pub margin: i32,
    /// A draw by play that never ends (neither player can force an end that leaves them at least
    /// level).
    pub endless: bool,
    /// South's first moves that keep the result and, for a win or a loss, that margin.
    pub best_moves: Vec<usize>,
}

impl StartValue {
    /// The value of the start of `table`'s rules, which the table must hold (every seed on the
    /// board).
    pub fn of(table: &Tablebase, rules: &Rules) -> Option<StartValue> {
        let start = State::initial(rules);
        let probe = table.probe(&start)?;
        let result = probe.result(&start);
        // The bound that the winner's forced end reaches; a move keeps it when its own does.
        let bound = |p: &Probe| match result {
            Wdl::Win => p.low,
            Wdl::Loss => p.high,
            Wdl::Draw => 0,
        };
        let best_moves = table
            .move_values(&start)?
            .iter()
            .filter(|(_, p)| p.result(&start) == result && bound(p) == bound(&probe))
            .map(|&(a, _)| a)
            .collect();
        Some(StartValue {
            result: match result {
                Wdl::Win => Player::South.to_string(),
                Wdl::Loss => Player::North.to_string(),
                Wdl::Draw => "draw".to_string(),
            },
            margin: bound(&probe),
            endless: probe.endless,
            best_moves,
        })
    }

    /// "South wins by 8", "draw (endless)", ...
    pub fn describe(&self) -> String {
        match self.result.as_str() {
            "draw" if self.endless => "draw (endless play)".to_string(),
            "draw" => "draw".to_string(),
            winner => format!("{winner} wins by {}", self.margin.abs()),
        }
    }
}

/// One rule set of the sweep and how it came out.
#[derive(Debug, Serialize)]
struct Row {
    holes: u32,
    seeds: u32,
    trigger: Trigger,
    direction: Direction,
    /// Seeds in the game.
    total: u32,
    /// Positions of the table that holds the start.
    positions: u128,
    /// The value, when solved.
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<StartValue>,
    /// Why not, when skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    seconds: f64,
}

/// Positions of a table of `2 * holes` holes up to `seeds` seeds: C(seeds + 2n, 2n).
pub fn table_positions(holes: u32, seeds: u32) -> u128 {
    let m = u128::from(2 * holes);
    (1..=m).fold(1u128, |c, i| c * (u128::from(seeds) + i) / i)
}

/// The value of the start of `rules` from a table of every seed, built in memory on `threads`.
pub fn solve_whole(rules: &Rules, threads: usize) -> Result<StartValue, TablebaseError> {
    let options = BuildOptions {
        threads,
        ..BuildOptions::default()
    };
    let table = Tablebase::build(rules, rules.total_seeds() as u32, &options)?;
    Ok(StartValue::of(&table, rules).expect("the table holds every seed"))
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if args.proven {
        return print_proven(args.json);
    }
    let parse = |words: &[String], what: &str, allowed: &str| -> Result<Vec<String>, String> {
        let words: Vec<String> = words.iter().map(|w| w.trim().to_lowercase()).collect();
        match words
            .iter()
            .find(|w| !allowed.split(", ").any(|a| a == w.as_str()))
        {
            Some(bad) => Err(format!(
                "--{what} {} is not one of {allowed}",
                Error::quote(bad)
            )),
            None => Ok(words),
        }
    };
    // The builds run on `--threads` threads; refuse a count no machine has before any work.
    sowing_exact::memory::threads(args.threads)?;
    let triggers = parse(&args.trigger, "trigger", "take, leave")?;
    let directions = parse(&args.direction, "direction", "ccw, parity")?;
    let mut rows = Vec::new();
    for holes in args.holes.0..=args.holes.1 {
        for seeds in args.seeds.0..=args.seeds.1 {
            for trigger in &triggers {
                for direction in &directions {
                    let mut spec = RulesSpec::new(holes, seeds);
                    spec.trigger = if trigger == "take" {
                        Trigger::Take
                    } else {
                        Trigger::Leave
                    };
                    spec.direction = if direction == "ccw" {
                        Direction::Ccw
                    } else {
                        Direction::Parity
                    };
                    let rules = Rules::new(spec)?;
                    let row = solve_row(&rules, &args);
                    if !args.json {
                        print_row(&row)?;
                    }
                    rows.push(row);
                }
            }
        }
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?)?;
    }
    Ok(())
}

fn solve_row(rules: &Rules, args: &Args) -> Row {
    let spec = rules.spec();
    let total = rules.total_seeds() as u32;
    let positions = table_positions(spec.holes, total);
    let started = Instant::now();
    let (start, skipped) = if positions > u128::from(args.max_positions) {
        (
            None,
            Some(format!(
                "{positions} positions, more than --max-positions {}",
                args.max_positions
            )),
        )
    } else {
        match solve_whole(rules, args.threads) {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(e.to_string())),
        }
    };
    Row {
        holes: spec.holes,
        seeds: spec.seeds,
        trigger: spec.trigger,
        direction: spec.direction,
        total,
        positions,
        start,
        skipped,
        seconds: started.elapsed().as_secs_f64(),
    }
}

fn print_row(row: &Row) -> std::io::Result<()> {
    let rules = format!(
        "2x{}, {} seeds, {}, {}",
        row.holes, row.seeds, row.trigger, row.direction
    );
    match (&row.start, &row.skipped) {
        (Some(v), _) => outln!(
            "{rules:<28} {:>13} positions  {:<24} best first moves {:?}  ({:.1} s)",
            row.positions,
            v.describe(),
            v.best_moves,
            row.seconds
        )?,
        (None, Some(why)) => outln!("{rules:<28} skipped: {why}")?,
        (None, None) => unreachable!("a row is solved or skipped"),
    }
    Ok(())
}

/// `--proven`: the shipped proven starts, one line each (or their JSON), with the command that
/// proves each again.
fn print_proven(json: bool) -> Result<(), Box<dyn std::error::Error>> {
    let starts = sowing_exact::proven::shipped();
    if json {
        outln!("{}", serde_json::to_string_pretty(starts)?)?;
        return Ok(());
    }
    outln!(
        "{:<18} {:<30} {:<24} {:<6} by",
        "name",
        "rules",
        "value",
        "first"
    )?;
    for start in starts {
        let rules = start.rules()?;
        let first = start.first_move.map_or("-".to_string(), |a| a.to_string());
        outln!(
            "{:<18} {:<30} {:<24} {:<6} {}",
            start.name,
            rules.summary(),
            start.cell(),
            first,
            start.by
        )?;
        outln!("{:<18} proven again by: {}", "", start.command)?;
    }
    Ok(())
}
