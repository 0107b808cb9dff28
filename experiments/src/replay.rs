//! `sowing replay`: play a list of moves, or a saved game record, printing the position after
//! each move. An illegal move stops the replay with the move's number and the reason, and a
//! non-zero exit code.

use crate::output::outln;
use crate::select::VariantArgs;
use sowing_env::{Error, GameRecord, Rules, State};
use std::path::PathBuf;

/// Arguments of `sowing replay`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("game").required(true).args(["moves", "record"])))]
pub struct Args {
    #[command(flatten)]
    variant: VariantArgs,
    /// The moves, comma-separated, each an action of the player to move (0 is their leftmost
    /// hole), e.g. `3,0,5`.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    moves: Vec<i64>,
    /// A game record (JSON, as the arena and `sowing play` save them); its own rules are used.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["moves", "variant", "rules"])]
    record: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let (rules, moves, record) = match &args.record {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read record {}: {e}", path.display()))?;
            let record = GameRecord::from_json(&text)
                .map_err(|e| format!("record {}: {e}", path.display()))?;
            let moves = record.moves.iter().map(|&a| a as i64).collect();
            (record.rules, moves, Some(record))
        }
        None => (
            args.variant.one("en-dodoi-8")?.rules,
            args.moves.clone(),
            None,
        ),
    };
    let end = replay(&rules, &moves)?;
    if let Some(record) = record {
        // Every move played; the stored result must be what they give.
        record.replay()?;
        outln!("the record's result matches: {}", end.outcome())?;
    }
    Ok(())
}

/// Print the start and the position after each move; stop at the first move that cannot be
/// played, with its number, whose move it was, and why.
fn replay(rules: &Rules, moves: &[i64]) -> Result<State, Box<dyn std::error::Error>> {
    let mut state = State::initial(rules);
    outln!("{}\n{}", rules.summary(), state.render())?;
    for (i, &raw) in moves.iter().enumerate() {
        let mover = state.to_move();
        let played = match usize::try_from(raw) {
            Ok(action) => state.play_with_info(action),
            Err(_) => Err(Error::ActionOutOfRange {
                action: raw.into(),
                holes: rules.holes(),
            }),
        };
        let (next, info) =
            played.map_err(|e| format!("move {} ({mover}, action {raw}): {e}", i + 1))?;
        outln!(
            "move {}: {mover} plays action {raw} (hole {}): {} laps, {} seeds sown, {} captured",
            i + 1,
            state.hole_of(raw as usize),
            info.laps,
            info.sown,
            info.captured
        )?;
        outln!("{}", next.render())?;
        state = next;
    }
    Ok(state)
}
