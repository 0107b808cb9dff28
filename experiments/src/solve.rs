//! `sowing solve`: prove with exact search who wins a position (the start, or the one some moves
//! reach): a forced win for the player to move and its first move, or, failing that within the
//! budget, which moves are proven to lose. What this settles is a fact of the game, not of an
//! agent: for instance that en-dodoi-6 is a first-player win, which bounds what any agent can
//! score from the start against an opponent who finds the win.
//!
//! With `--tablebase FILE` every position the table holds is decided at once, which shortens
//! proofs by orders of magnitude; with `--margin` the command brackets the final lead the mover
//! forces, proving "at least" and "at most" bounds in turn. With `--result` the exact result
//! search of the labelling settles win, draw or loss instead (proof numbers, no depth limit,
//! endless play a draw), and `--guide RUN` lets a trained network order it.

use crate::exact_search::GuideArgs;
use crate::output::outln;
use crate::select::{self, VariantArgs};
use sowing_env::State;
use sowing_exact::memory;
use sowing_exact::tablebase::Tablebase;
use sowing_exact::{Proof, ResultSearch, Solver};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `sowing solve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    variant: VariantArgs,
    /// Moves from the start to the position to solve, comma-separated (default: the start).
    #[arg(long, value_delimiter = ',')]
    moves: Vec<usize>,
    /// Positions the search may make before it gives up (default: 2,000,000,000 for the
    /// solver; with --result, whose proof tree holds 96 bytes a position, 2,000,000).
    #[arg(long)]
    nodes: Option<u64>,
    /// The longest win looked for, in plies.
    #[arg(long, default_value_t = 61, value_parser = clap::value_parser!(u32).range(1..=999))]
    depth: u32,
    /// The transposition table holds 2^BITS positions of 16 bytes (26: 1 GiB).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(10..=30))]
    table_bits: u32,
    /// An endgame tablebase of these rules: positions it holds are decided at once (tables
    /// ignore the ply cap, and so do the decisions).
    #[arg(long, value_name = "FILE")]
    tablebase: Option<PathBuf>,
    /// Bracket the final lead (seeds captured more than the opponent) the mover forces: prove
    /// "at least t" for t = 1, 2, ... (by the parity of the seeds in play) until a proof fails,
    /// then "at most" the last proven; each proof gets the whole --nodes budget.
    #[arg(long, conflicts_with = "result")]
    margin: bool,
    /// Settle win, draw or loss with the exact result search (proof numbers, no depth limit;
    /// what `sowing positions` labels with) instead of proving a win within --depth.
    #[arg(long)]
    result: bool,
    /// With --result: the network guiding it (--guide RUN, --guide-depth D).
    #[command(flatten)]
    guide: GuideArgs,
}

/// The solver's budget unless told otherwise.
const SOLVER_NODES: u64 = 2_000_000_000;

impl Args {
    /// `--nodes`, or the default of the search asked for.
    fn nodes(&self) -> u64 {
        self.nodes.unwrap_or(if self.result {
            sowing_exact::searches::DEFAULT_NODES
        } else {
            SOLVER_NODES
        })
    }
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let rules = args.variant.one("en-dodoi-6")?.rules;
    let state = select::after_moves(&rules, &args.moves)?;
    outln!("{}\n{}", rules.summary(), state.render())?;
    if state.is_over() {
        outln!("the game is over: {}", state.outcome())?;
        return Ok(());
    }
    if args.guide.guide.is_some() && !args.result {
        return Err("--guide orders the exact result search: give it with --result".into());
    }
    let mover = state.to_move();
    if args.result {
        return settle_result(&rules, &state, &args);
    }
    memory::check(
        &format!("the solver's table of 2^{} slots", args.table_bits),
        1u64 << args.table_bits,
        16,
        0,
        "slots",
    )
    .map_err(|e| format!("{e}: give a smaller --table-bits"))?;
    let mut solver = Solver::new(args.table_bits);
    if let Some(path) = &args.tablebase {
        let table = Tablebase::open_for(path, &rules)?;
        outln!(
            "tablebase {}: every position of at most {} seeds decided at once",
            path.display(),
            table.max_seeds()
        )?;
        solver = solver.with_tablebase(Arc::new(table));
    }
    if args.margin {
        return bracket_margin(&mut solver, &state, &args);
    }
    let started = Instant::now();
    let win = solver.prove_win(&state, args.nodes(), args.depth);
    let seconds = started.elapsed().as_secs_f64();
    if let Some((action, plies)) = win.winning {
        outln!(
            "{mover} to move forces a win {}, starting with action {action} ({} positions, \
             {seconds:.1} s)",
            within(plies),
            win.nodes
        )?;
        return Ok(());
    }
    outln!(
        "{mover} to move has no forced win within {} plies ({} positions, {seconds:.1} s{})",
        win.depth,
        win.nodes,
        if win.depth < args.depth {
            "; the budget ran out before a deeper search"
        } else {
            ""
        }
    )?;
    let left = args.nodes().saturating_sub(win.nodes);
    if left == 0 {
        outln!("no budget left to look for moves that lose")?;
        return Ok(());
    }
    let moves = solver.prove(&state, left, args.depth);
    outln!("{}", describe_moves(&state, &moves))?;
    Ok(())
}

/// `--margin`: prove "the mover forces a lead of at least t" for growing `t`, then that the
/// opponent holds them below the next one.
fn bracket_margin(
    solver: &mut Solver,
    state: &State,
    args: &Args,
) -> Result<(), Box<dyn std::error::Error>> {
    let mover = state.to_move();
    // A game that ends has captured every seed, so the final lead has the parity of the seeds
    // in play (a truncated game is no lead at all).
    let total = state.rules().total_seeds() as i32;
    let step = 2;
    let mut at_least = if total % 2 == 0 { 2 } else { 1 };
    let mut proven: Option<i32> = None;
    loop {
        let started = Instant::now();
        let proof = solver.prove_margin(state, at_least, args.nodes(), args.depth, false);
        let seconds = started.elapsed().as_secs_f64();
        match proof.winning {
            Some((action, plies)) => {
                outln!(
                    "{mover} forces a final lead of at least {at_least:+}, starting with action \
                     {action}, {} ({} positions, {seconds:.1} s)",
                    within(plies),
                    proof.nodes
                )?;
                proven = Some(at_least);
                if at_least + step > total {
                    break;
                }
                at_least += step;
            }
            None => {
                outln!(
                    "no proof that {mover} forces a lead of {at_least:+} within {} plies ({} \
                     positions, {seconds:.1} s)",
                    proof.depth,
                    proof.nodes
                )?;
                break;
            }
        }
    }
    // The mover forces `proven`; is the next lead out of reach?
    let next = proven.map_or(at_least, |p| p + step);
    let started = Instant::now();
    let refuted = solver.prove_margin(state, next, args.nodes(), args.depth, true);
    let seconds = started.elapsed().as_secs_f64();
    let upper = if refuted.lost(state) {
        format!(
            "at most {:+} (proven: every move lets the opponent hold {mover} below {next:+}",
            next - step
        )
    } else {
        format!("at most: not proven (no proof that {mover} is held below {next:+}")
    };
    outln!(
        "{mover}'s final lead under perfect play: at least {}; {upper}, {} positions, {seconds:.1} s)",
        proven.map_or_else(|| "not proven".to_string(), |p| format!("{p:+}")),
        refuted.nodes
    )?;
    Ok(())
}

/// `--result`: the exact result search's win, draw or loss for the mover, within `--nodes`.
fn settle_result(
    rules: &sowing_env::Rules,
    state: &State,
    args: &Args,
) -> Result<(), Box<dyn std::error::Error>> {
    let nodes = args.nodes();
    if nodes == 0 {
        return Err("--nodes must be at least 1".into());
    }
    sowing_exact::searches::threads(1, args.table_bits, nodes, 1)
        .map_err(|e| format!("{e}: give a smaller --nodes or --table-bits"))?;
    let mut search = ResultSearch::new(args.table_bits);
    if let Some(path) = &args.tablebase {
        let table = Tablebase::open_for(path, rules)?;
        outln!(
            "tablebase {}: every position of at most {} seeds decided at once",
            path.display(),
            table.max_seeds()
        )?;
        search = search.with_tablebase(Arc::new(table));
    }
    if let Some(guide) = args.guide.guides(rules, 1)?.pop() {
        search = search.with_guide(guide, args.guide.guidance());
    }
    let started = Instant::now();
    let result = search.result(state, nodes);
    let seconds = started.elapsed().as_secs_f64();
    let spent = format!(
        "{} positions, {} judged by the guide, {seconds:.1} s",
        search.nodes(),
        search.judged()
    );
    let mover = state.to_move();
    match result {
        Some(r) => outln!("{mover} to move: a {r} under perfect play ({spent})")?,
        None => outln!(
            "{mover} to move: not settled within {} positions ({spent})",
            nodes
        )?,
    }
    Ok(())
}

/// How far a proof reaches: plies, or the tablebase itself (a proof of 0 plies).
fn within(plies: u32) -> String {
    if plies == 0 {
        "(the tablebase holds the position)".to_string()
    } else {
        format!("within {plies} plies")
    }
}

/// Which moves are proven to lose, and whether that is all of them.
fn describe_moves(state: &State, proof: &Proof) -> String {
    let lost: Vec<String> = state
        .legal_actions()
        .filter(|&a| proof.losing >> a & 1 == 1)
        .map(|a| a.to_string())
        .collect();
    if proof.lost(state) {
        format!(
            "every move loses: the opponent forces a win whatever {} plays",
            state.to_move()
        )
    } else if lost.is_empty() {
        format!("no move proven to lose (searched to {} plies)", proof.depth)
    } else {
        format!(
            "moves proven to lose: {} (searched to {} plies)",
            lost.join(", "),
            proof.depth
        )
    }
}
