//! `sowing play`: a game in the terminal against an agent. The board is drawn after every move,
//! the agent's move is shown, input that is not a legal move is explained and asked again, and
//! the record can be saved at the end. The game loop reads any `BufRead`, so tests drive it with
//! scripted input.

use crate::select::VariantArgs;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, from_spec};
use sowing_env::{GameRecord, Outcome, Player, Rules, State};
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

/// The side the person plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    /// South, who moves first.
    South,
    /// North, who moves second.
    North,
}

/// Arguments of `sowing play`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rules: `--variant` (default en-dodoi-8) or `--rules FILE`.
    #[command(flatten)]
    variant: VariantArgs,
    /// The agent to play against: random, greedy, alphabeta:DEPTH, alphabeta:TIMEms,
    /// mcts:SIMULATIONS, mcts:TIMEms.
    #[arg(long, default_value = "alphabeta:6")]
    opponent: String,
    /// Your side: south moves first.
    #[arg(long, value_enum, default_value_t = Side::South)]
    side: Side,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Save the game record (JSON) here when the game ends, is quit, or input ends.
    #[arg(long)]
    save: Option<PathBuf>,
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The game was played to its end (or truncated).
    Finished,
    /// The person typed `quit`.
    Quit,
    /// Input ended before the game did.
    EndOfInput,
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let rules = args.variant.one("en-dodoi-8")?.playable()?.rules;
    let mut opponent = from_spec(&args.opponent)?;
    opponent.can_play(&rules)?;
    let human = match args.side {
        Side::South => Player::South,
        Side::North => Player::North,
    };
    let stdin = io::stdin();
    let mut stdout = io::stdout();
    let (record, _) = play_session(
        stdin.lock(),
        &mut stdout,
        &rules,
        opponent.as_mut(),
        human,
        args.seed,
    )?;
    if let Some(path) = &args.save {
        std::fs::write(path, record.to_json())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        writeln!(stdout, "record saved to {}", path.display())?;
    }
    Ok(())
}

/// Play one game between the person at `input`/`out`, on side `human`, and `opponent`, whose
/// random choices come from `seed`. Gives the record (unfinished if the game was left) and how
/// the session ended.
pub fn play_session<R: BufRead, W: Write>(
    mut input: R,
    out: &mut W,
    rules: &Rules,
    opponent: &mut dyn Agent,
    human: Player,
    seed: u64,
) -> io::Result<(GameRecord, Ending)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = rules.holes();
    let name = opponent.name();
    opponent.new_game();
    let mut state = State::initial(rules);
    let mut moves = Vec::new();
    let mut line = String::new();
    let mut ending = Ending::Finished;

    writeln!(
        out,
        "You play {human} ({}) against {name}, {}.",
        if human == Player::South {
            "you move first"
        } else {
            "you move second"
        },
        rules.summary()
    )?;
    writeln!(out, "{}", help(n, human))?;
    write!(out, "\n{}", state.render())?;
    while !state.is_over() {
        let action = if state.to_move() == human {
            write!(out, "your move> ")?;
            out.flush()?;
            line.clear();
            if input.read_line(&mut line)? == 0 {
                writeln!(out, "\nend of input: the game is left unfinished")?;
                ending = Ending::EndOfInput;
                break;
            }
            let word = line.trim();
            match word {
                "" => continue,
                "quit" | "q" | "exit" => {
                    writeln!(out, "you quit; the game is left unfinished")?;
                    ending = Ending::Quit;
                    break;
                }
                "help" | "?" => {
                    writeln!(out, "{}", help(n, human))?;
                    continue;
                }
                _ => {}
            }
            let Ok(action) = word.parse::<usize>() else {
                writeln!(
                    out,
                    "{word:?} is not a move: type an action from 0 to {} (your holes from your left), 'help' or 'quit'",
                    n - 1
                )?;
                continue;
            };
            if let Err(e) = state.check(action) {
                writeln!(out, "{e}")?;
                continue;
            }
            action
        } else {
            opponent.choose(&state, &mut rng)
        };
        let mover = state.to_move();
        let (next, info) = match state.play_with_info(action) {
            Ok(played) => played,
            Err(e) => {
                return Err(io::Error::other(format!(
                    "{name} chose a move the rules refuse: {e}"
                )));
            }
        };
        let who = if mover == human {
            "you play".to_string()
        } else {
            format!("{name} plays")
        };
        writeln!(
            out,
            "\n{who} {action} (hole {}): {} lap{}, {} seed{} sown, {} captured",
            state.hole_of(action),
            info.laps,
            if info.laps == 1 { "" } else { "s" },
            info.sown,
            if info.sown == 1 { "" } else { "s" },
            info.captured
        )?;
        state = next;
        moves.push(action);
        write!(out, "{}", state.render())?;
    }
    if ending == Ending::Finished {
        let verdict = match state.outcome() {
            Outcome::Won(p) if p == human => "you win".to_string(),
            Outcome::Won(_) => format!("{name} wins"),
            Outcome::Draw => "a draw".to_string(),
            Outcome::Truncated => "the move limit was reached: no winner".to_string(),
            Outcome::Ongoing => "the game goes on".to_string(),
        };
        writeln!(
            out,
            "game over after {} moves: {verdict}, {} to {} (you {})",
            state.ply(),
            state.captured(Player::South),
            state.captured(Player::North),
            human
        )?;
    }
    let mut tags = std::collections::BTreeMap::new();
    let (south, north) = if human == Player::South {
        ("human".to_string(), name)
    } else {
        (name, "human".to_string())
    };
    tags.insert("south".to_string(), south);
    tags.insert("north".to_string(), north);
    tags.insert("seed".to_string(), seed.to_string());
    let record = GameRecord {
        rules: *rules,
        moves,
        outcome: state.outcome(),
        captured: state.captures(),
        tags,
    };
    Ok((record, ending))
}

fn help(n: usize, human: Player) -> String {
    format!(
        "Type an action 0 to {} to sow that hole of yours, counted from your left \
         (holes {}..{} in the drawing); 'help' shows this, 'quit' leaves the game.",
        n - 1,
        human.index() * n,
        human.index() * n + n - 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sowing_agents::{Greedy, RandomAgent};

    fn session(script: &str, human: Player) -> (GameRecord, Ending, String) {
        let rules = Rules::preset("en-dodoi-6").expect("a preset");
        let mut out = Vec::new();
        let (record, ending) = play_session(
            script.as_bytes(),
            &mut out,
            &rules,
            &mut RandomAgent,
            human,
            7,
        )
        .expect("writing to memory works");
        (record, ending, String::from_utf8(out).expect("utf-8"))
    }

    #[test]
    fn a_scripted_game_plays_to_the_end() {
        // Always type every action 0..5 in turn: the illegal ones are refused and asked again,
        // so each turn ends with the lowest legal action of the person.
        let script: String = (0..400).map(|_| "0\n1\n2\n3\n4\n5\n").collect();
        let (record, ending, out) = session(&script, Player::South);
        assert_eq!(ending, Ending::Finished);
        assert!(record.outcome.is_terminated() || record.outcome == Outcome::Truncated);
        assert_eq!(
            record.replay().expect("a legal game").outcome(),
            record.outcome
        );
        assert!(out.contains("game over after"));
        assert!(out.contains("is illegal: its hole is empty; legal actions"));
        assert!(out.contains("random plays"));
        assert_eq!(record.tags["south"], "human");
        assert_eq!(record.tags["north"], "random");
    }

    #[test]
    fn illegal_and_malformed_input_is_explained_and_asked_again() {
        let (record, ending, out) = session("banana\n-1\n9\n\nhelp\n2\nquit\n", Player::South);
        assert!(out.contains("\"banana\" is not a move"));
        assert!(out.contains("\"-1\" is not a move"));
        assert!(out.contains("action 9 is out of range"));
        assert!(out.contains("Type an action 0 to 5"));
        assert_eq!(ending, Ending::Quit);
        assert_eq!(record.moves[0], 2);
        // The person's move, then the agent's reply, then quit.
        assert_eq!(record.moves.len(), 2);
        assert_eq!(record.outcome, Outcome::Ongoing);
        assert!(out.contains("you quit"));
    }

    #[test]
    fn end_of_input_leaves_the_game_unfinished() {
        let (record, ending, out) = session("1\n", Player::North);
        assert_eq!(ending, Ending::EndOfInput);
        assert!(out.contains("end of input"));
        // The agent opened, the person replied once, the agent replied again.
        assert_eq!(record.moves.len(), 3);
        assert_eq!(record.moves[1], 1);
        assert_eq!(record.tags["north"], "human");
    }

    #[test]
    fn the_agents_moves_are_reproducible_by_seed() {
        let rules = Rules::preset("en-dodoi-8").expect("a preset");
        let run = || {
            let mut out = Vec::new();
            let script: String = (0..300).map(|_| "0\n1\n2\n3\n4\n5\n6\n7\n").collect();
            play_session(
                script.as_bytes(),
                &mut out,
                &rules,
                &mut Greedy,
                Player::North,
                3,
            )
            .expect("in memory")
            .0
        };
        assert_eq!(run(), run());
    }
}
