//! `sowing solve`: prove with exact search who wins a position (the start, or the one some moves
//! reach): a forced win for the player to move and its first move, or, failing that within the
//! budget, which moves are proven to lose. What this settles is a fact of the game, not of an
//! agent: for instance that en-dodoi-6 is a first-player win, which bounds what any agent can
//! score from the start against an opponent who finds the win.

use crate::select::VariantArgs;
use sowing_agents::{Proof, Solver};
use sowing_env::State;
use std::time::Instant;

/// Arguments of `sowing solve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    variant: VariantArgs,
    /// Moves from the start to the position to solve, comma-separated (default: the start).
    #[arg(long, value_delimiter = ',')]
    moves: Vec<usize>,
    /// Positions the search may make before it gives up.
    #[arg(long, default_value_t = 2_000_000_000)]
    nodes: u64,
    /// The longest win looked for, in plies.
    #[arg(long, default_value_t = 61, value_parser = clap::value_parser!(u32).range(1..=999))]
    depth: u32,
    /// The transposition table holds 2^BITS positions of 16 bytes (26: 1 GiB).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(10..=30))]
    table_bits: u32,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let rules = args.variant.one("en-dodoi-6")?.rules;
    let mut state = State::initial(&rules);
    for (i, &a) in args.moves.iter().enumerate() {
        let mover = state.to_move();
        state = state
            .play(a)
            .map_err(|e| format!("move {} ({mover}, action {a}): {e}", i + 1))?;
    }
    println!("{}\n{}", rules.summary(), state.render());
    if state.is_over() {
        println!("the game is over: {}", state.outcome());
        return Ok(());
    }
    let mover = state.to_move();
    let mut solver = Solver::new(args.table_bits);
    let started = Instant::now();
    let win = solver.prove_win(&state, args.nodes, args.depth);
    let seconds = started.elapsed().as_secs_f64();
    if let Some((action, plies)) = win.winning {
        println!(
            "{mover} to move forces a win within {plies} plies, starting with action {action} \
             ({} positions, {seconds:.1} s)",
            win.nodes
        );
        return Ok(());
    }
    println!(
        "{mover} to move has no forced win within {} plies ({} positions, {seconds:.1} s{})",
        win.depth,
        win.nodes,
        if win.depth < args.depth {
            "; the budget ran out before a deeper search"
        } else {
            ""
        }
    );
    let left = args.nodes.saturating_sub(win.nodes);
    if left == 0 {
        println!("no budget left to look for moves that lose");
        return Ok(());
    }
    let moves = solver.prove(&state, left, args.depth);
    println!("{}", describe_moves(&state, &moves));
    Ok(())
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
