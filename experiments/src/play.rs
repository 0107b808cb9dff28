//! `sowing play`: a game in the terminal against an agent. The board is drawn after every move,
//! the agent's move is shown, input that is not a legal move (or not text at all) is explained and
//! asked again, and the record can be saved at the end, however the session ended. The game loop reads any `BufRead`, so tests drive it with
//! scripted input.

use crate::output::note;
use crate::select::VariantArgs;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, AgentSpec};
use sowing_env::{Error, GameRecord, Outcome, Player, Rules, State};
use sowing_exact::output_file;
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
    /// mcts:SIMULATIONS, mcts:TIMEms, and (built with libtorch) a trained network az:RUN,
    /// az:RUN:SIMS or az:RUN:TIME (`az:runs/x:1s`: a second a move).
    #[arg(long, default_value = "alphabeta:6", value_parser = crate::arena::agent_arg)]
    opponent: AgentSpec,
    /// After each move of a network opponent (az:), print its value for it and its principal
    /// line (the moves its search expects, its own first).
    #[arg(long)]
    explain: bool,
    /// Your side: south moves first.
    #[arg(long, value_enum, default_value_t = Side::South)]
    side: Side,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Save the game record (JSON) here when the game ends, is quit, or input ends, and also
    /// when reading the input or writing the board fails (checked before the game starts).
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
    let mut opponent = args.opponent.build()?;
    opponent.can_play(&rules)?;
    // Where the record goes is checked before the game, which would be lost at its end.
    if let Some(path) = &args.save {
        output_file::check_apart(path, &[("--rules", args.variant.rules.as_deref())])
            .map_err(|e| format!("--save: {e}"))?;
    }
    let human = match args.side {
        Side::South => Player::South,
        Side::North => Player::North,
    };
    // A reader of the output that goes away (`sowing play | head`) is an error to report, after
    // the game so far is saved, not a signal that ends the process with the game unsaved.
    #[cfg(unix)]
    if args.save.is_some() {
        // SAFETY: a signal's disposition for the process; no handler of ours runs.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
    }
    let stdin = io::stdin();
    let mut stdout = Stdout(io::stdout());
    let (record, ended) = play_session(
        stdin.lock(),
        &mut stdout,
        &rules,
        opponent.as_mut(),
        human,
        args.seed,
        args.explain,
    );
    // The game so far is saved however the session ended: an error reading the input or
    // writing the board loses nothing that was played.
    if let Some(path) = &args.save {
        let saved = output_file::write(path, record.to_json().as_bytes());
        match (&ended, saved) {
            (Ok(_), Ok(())) => writeln!(stdout, "record saved to {}", path.display())?,
            (Err(_), Ok(())) => note!("record saved to {}", path.display()),
            (Ok(_), Err(e)) => return Err(e.into()),
            (Err(first), Err(e)) => return Err(format!("{first}; and {e}").into()),
        }
    }
    ended?;
    Ok(())
}

/// What `--explain` prints after a network's move: its value for it and its principal line.
fn explanation(why: &sowing_agents::puct::Explained, name: &str) -> String {
    let line: Vec<String> = why.line.iter().map(|a| a.to_string()).collect();
    let visits: u32 = why.root.visits.iter().sum();
    format!(
        "  {name}'s value {:+.2} (its own view, -1 to +1) after {visits} visits; principal line: {}",
        why.root.value,
        line.join(" ")
    )
}

/// Standard output, whose failures say so.
struct Stdout(io::Stdout);

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(failed_output)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(failed_output)
    }
}

fn failed_output(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot write to standard output: {e}"))
}

/// The longest line kept of what the person types: the rest of a longer one is read and dropped,
/// so that a huge line (a file piped in by mistake) takes no more memory than this.
const MAX_LINE: usize = 4096;

/// A line the person typed.
enum Typed {
    /// A line of text, its line end included.
    Line(String),
    /// A line that is not UTF-8 text.
    NotText,
    /// A line longer than [`MAX_LINE`]: its first bytes, and its length.
    TooLong(String, usize),
    /// Input ended.
    End,
}

/// Read one line of `input`, keeping at most [`MAX_LINE`] bytes of it.
fn read_typed<R: BufRead>(input: &mut R) -> io::Result<Typed> {
    let (mut kept, mut length, mut ended) = (Vec::new(), 0usize, false);
    while !ended {
        let buffer = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            if length == 0 {
                return Ok(Typed::End);
            }
            break;
        }
        let taken = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => {
                ended = true;
                end + 1
            }
            None => buffer.len(),
        };
        let room = MAX_LINE.saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..taken.min(room)]);
        length += taken;
        input.consume(taken);
    }
    if length > MAX_LINE {
        return Ok(Typed::TooLong(
            String::from_utf8_lossy(&kept).into_owned(),
            length,
        ));
    }
    Ok(String::from_utf8(kept).map_or(Typed::NotText, Typed::Line))
}

/// Play one game between the person at `input`/`out`, on side `human`, and `opponent`, whose
/// random choices come from `seed`. Gives the record (unfinished if the game was left, or if
/// reading or writing failed part way) and how the session ended, or why it failed.
pub fn play_session<R: BufRead, W: Write>(
    mut input: R,
    out: &mut W,
    rules: &Rules,
    opponent: &mut dyn Agent,
    human: Player,
    seed: u64,
    explain: bool,
) -> (GameRecord, io::Result<Ending>) {
    let name = opponent.name();
    let mut state = State::initial(rules);
    let mut moves = Vec::new();
    let ended = play_moves(
        &mut input, out, opponent, human, seed, explain, &mut state, &mut moves,
    );
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
    (record, ended)
}

/// The game loop of [`play_session`], from `state`, pushing each move played to `moves`.
#[allow(clippy::too_many_arguments)]
fn play_moves<R: BufRead, W: Write>(
    input: &mut R,
    out: &mut W,
    opponent: &mut dyn Agent,
    human: Player,
    seed: u64,
    explain: bool,
    state: &mut State,
    moves: &mut Vec<usize>,
) -> io::Result<Ending> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rules = *state.rules();
    let n = rules.holes();
    let name = opponent.name();
    opponent.new_game();
    let what_to_type = format!(
        "type an action from 0 to {} (your holes from your left), 'help' or 'quit'",
        n - 1
    );

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
            let typed = read_typed(input).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot read standard input: {e}"))
            })?;
            let line = match typed {
                Typed::End => {
                    writeln!(out, "\nend of input: the game is left unfinished")?;
                    return Ok(Ending::EndOfInput);
                }
                Typed::NotText => {
                    writeln!(
                        out,
                        "that line is not text (it is not valid UTF-8), so not a move: {what_to_type}"
                    )?;
                    continue;
                }
                Typed::TooLong(start, length) => {
                    writeln!(
                        out,
                        "a line of {length} bytes ({}...) is not a move: {what_to_type}",
                        Error::quote(&start)
                    )?;
                    continue;
                }
                Typed::Line(line) => line,
            };
            let word = line.trim();
            match word {
                "" => continue,
                "quit" | "q" | "exit" => {
                    writeln!(out, "you quit; the game is left unfinished")?;
                    return Ok(Ending::Quit);
                }
                "help" | "?" => {
                    writeln!(out, "{}", help(n, human))?;
                    continue;
                }
                _ => {}
            }
            let Ok(action) = word.parse::<usize>() else {
                writeln!(out, "{} is not a move: {what_to_type}", Error::quote(word))?;
                continue;
            };
            if let Err(e) = state.check(action) {
                writeln!(out, "{e}")?;
                continue;
            }
            action
        } else {
            opponent.choose(state, &mut rng)
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
        let hole = state.hole_of(action);
        // The move is the game's before it is shown: a failed write loses none of it.
        *state = next;
        moves.push(action);
        writeln!(
            out,
            "\n{who} {action} (hole {hole}): {} lap{}, {} seed{} sown, {} captured",
            info.laps,
            if info.laps == 1 { "" } else { "s" },
            info.sown,
            if info.sown == 1 { "" } else { "s" },
            info.captured
        )?;
        if explain
            && mover != human
            && let Some(why) = opponent.explained()
        {
            writeln!(out, "{}", explanation(&why, &name))?;
        }
        write!(out, "{}", state.render())?;
    }
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
    Ok(Ending::Finished)
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
        session_of_bytes(script.as_bytes(), human)
    }

    fn session_of_bytes(script: &[u8], human: Player) -> (GameRecord, Ending, String) {
        let rules = Rules::preset("en-dodoi-6").expect("a preset");
        let mut out = Vec::new();
        let (record, ending) =
            play_session(script, &mut out, &rules, &mut RandomAgent, human, 7, false);
        let ending = ending.expect("writing to memory works");
        (record, ending, String::from_utf8(out).expect("utf-8"))
    }

    #[test]
    fn a_line_that_is_not_text_is_refused_and_asked_again() {
        let (record, ending, out) = session_of_bytes(b"2\n\xff\xfe\n\x80\nquit\n", Player::South);
        assert_eq!(
            out.matches("that line is not text (it is not valid UTF-8), so not a move: type an action from 0 to 5").count(),
            2,
            "{out}"
        );
        assert_eq!(ending, Ending::Quit);
        assert_eq!(record.moves.len(), 2);
        assert_eq!(record.moves[0], 2);
    }

    #[test]
    fn a_huge_line_is_refused_with_its_length_not_echoed() {
        let mut script = vec![b'7'; 3 * MAX_LINE];
        script.extend_from_slice(b"\n");
        script.extend(std::iter::repeat_n(b'x', 1000));
        script.extend_from_slice(b"\n2\nquit\n");
        let (record, ending, out) = session_of_bytes(&script, Player::South);
        assert!(
            out.contains(&format!("a line of {} bytes (\"777", 3 * MAX_LINE + 1)),
            "{out}"
        );
        assert!(out.contains("xxx\"... (1000 bytes) is not a move"), "{out}");
        assert!(out.len() < 6000, "{} bytes written", out.len());
        assert_eq!((ending, record.moves[0]), (Ending::Quit, 2));
    }

    /// Input that gives `script` and then fails, as a broken terminal or a directory does.
    struct FailingAfter(&'static [u8]);

    impl io::Read for FailingAfter {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::other("the terminal went away"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_failure_part_way_still_gives_the_game_so_far() {
        let rules = Rules::preset("en-dodoi-6").expect("a preset");
        let mut out = Vec::new();
        let input = io::BufReader::new(FailingAfter(b"2\n"));
        let (record, ended) = play_session(
            input,
            &mut out,
            &rules,
            &mut RandomAgent,
            Player::South,
            7,
            false,
        );
        let e = ended.unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot read standard input: the terminal went away"
        );
        assert_eq!(record.moves.len(), 2, "the person's move and the reply");
        assert_eq!(record.moves[0], 2);
        assert!(record.replay().is_ok());
        // Output that fails (a full disk) part way through the game: the same.
        let mut full = [0u8; 900];
        let script: String = (0..400).map(|_| "0\n1\n2\n3\n4\n5\n").collect();
        let (record, ended) = play_session(
            script.as_bytes(),
            &mut &mut full[..],
            &rules,
            &mut RandomAgent,
            Player::South,
            7,
            false,
        );
        assert!(ended.is_err());
        assert!(
            !record.moves.is_empty(),
            "a move was played before the output filled"
        );
        assert!(record.replay().is_ok());
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
            let (record, ended) = play_session(
                script.as_bytes(),
                &mut out,
                &rules,
                &mut Greedy,
                Player::North,
                3,
                false,
            );
            ended.expect("in memory");
            record
        };
        assert_eq!(run(), run());
    }
}
