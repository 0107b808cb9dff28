//! Where games were decided: every move of a game record labelled with the perfect-play result
//! of the position it was played in and of the position it left, so that the moves that gave a
//! result away (a win let go to a draw or a loss, a draw to a loss) are found, and whose they
//! were. `sowing review` runs it over an arena's records.
//!
//! Why: from random openings most games of a small variant are decided before either agent
//! moves (en-dodoi-6's 2-ply openings are almost all forced wins for the side to move), so a
//! match score says little beside what the openings gave. Counting each agent's errors against
//! perfect play, and the score the openings alone would give, shows how much of a score the
//! agents earned and how far above 50% any agent could get against a given opponent.

use serde::Serialize;
use sowing_env::{Error, GameRecord, Outcome, Player, State};
use sowing_exact::ResultSearch;
use sowing_exact::Wdl;
use sowing_exact::positions::ExactPosition;
use std::collections::BTreeMap;

/// One move of a reviewed game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MoveReview {
    /// Plies played before it.
    pub ply: u32,
    /// Who played it.
    pub player: Player,
    /// The action played.
    pub action: usize,
    /// The mover's perfect-play result before the move, `None` when the search did not settle
    /// every move of the position.
    pub before: Option<Wdl>,
    /// The mover's perfect-play result after the move (of the position it left).
    pub after: Option<Wdl>,
    /// Whether some move of the position would have given its result away (a critical
    /// position, as `sowing accuracy` counts them); false when not settled.
    pub critical: bool,
}

impl MoveReview {
    /// Whether the move gave a result away: `Some(true)` when it left a worse result than the
    /// position had, `None` when the position was not settled.
    pub fn error(&self) -> Option<bool> {
        Some(self.after? < self.before?)
    }
}

/// A reviewed game: its moves after the opening, each labelled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameReview {
    /// The agents, from the record's `south` and `north` tags ("South", "North" without them).
    pub south: String,
    /// North's agent.
    pub north: String,
    /// South's perfect-play result where the agents took over (after the opening), if settled.
    pub opening: Option<Wdl>,
    /// The game's result for South.
    pub result: Wdl,
    /// The moves after the opening.
    pub moves: Vec<MoveReview>,
}

impl GameReview {
    /// The name of the agent that played `player`.
    pub fn agent(&self, player: Player) -> &str {
        match player {
            Player::South => &self.south,
            Player::North => &self.north,
        }
    }
}

/// Label every move of `record` after its first `opening` plies with `search`, which may make
/// `budget` positions for each position (all its moves together). An illegal record is an
/// error.
pub fn review_game(
    record: &GameRecord,
    opening: usize,
    search: &mut ResultSearch,
    budget: u64,
) -> Result<GameReview, Error> {
    review_game_labelled(record, opening, search, budget).map(|(review, _)| review)
}

/// [`review_game`], with the critical positions the game went through (after its opening),
/// each labelled with every move's result (and margin, where the search's tablebase holds it),
/// in the order played: the positions where this game could have been given away, for
/// `sowing accuracy` to measure agents on.
pub fn review_game_labelled(
    record: &GameRecord,
    opening: usize,
    search: &mut ResultSearch,
    budget: u64,
) -> Result<(GameReview, Vec<ExactPosition>), Error> {
    let end = record.replay()?;
    let name = |key: &str, default: &str| {
        record
            .tags
            .get(key)
            .cloned()
            .unwrap_or_else(|| default.to_string())
    };
    let mut state = State::initial(&record.rules);
    let mut moves = Vec::new();
    let mut critical_positions = Vec::new();
    let mut opening_result = None;
    for (i, &action) in record.moves.iter().enumerate() {
        if i >= opening {
            // The tablebase where it holds the position (results and margins), else the search.
            let labelled = ExactPosition::label(&state, search, budget);
            let before = labelled.as_ref().map(|p| p.result);
            let after = labelled
                .as_ref()
                .and_then(|p| p.moves.iter().find(|m| m.action == action))
                .map(|m| m.result);
            let critical = labelled
                .as_ref()
                .is_some_and(|p| p.moves.iter().any(|m| m.result < p.result));
            if i == opening {
                opening_result = before.map(|w| match state.to_move() {
                    Player::South => w,
                    Player::North => w.flip(),
                });
            }
            moves.push(MoveReview {
                ply: state.ply(),
                player: state.to_move(),
                action,
                before,
                after,
                critical,
            });
            if critical {
                critical_positions.extend(labelled);
            }
        }
        state = state.play(action)?;
    }
    let result = match end.outcome() {
        Outcome::Won(Player::South) => Wdl::Win,
        Outcome::Won(Player::North) => Wdl::Loss,
        _ => Wdl::Draw,
    };
    let review = GameReview {
        south: name("south", "South"),
        north: name("north", "North"),
        opening: opening_result,
        result,
        moves,
    };
    Ok((review, critical_positions))
}

/// What the reviews of many games say of one agent.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AgentReview {
    /// Games it played.
    pub games: u32,
    /// Its points (a win 1, a draw 1/2).
    pub score: f64,
    /// The points perfect play from each game's opening would give it (games whose opening was
    /// settled only, like `settled_score`).
    pub opening_score: f64,
    /// Its points in the games whose opening was settled.
    pub settled_score: f64,
    /// Games whose opening was settled.
    pub settled_games: u32,
    /// In those, the points it got above what the opening gave (a game perfect play loses,
    /// won: 1): what the opponent's errors gave it and its own did not give back.
    pub gained: f64,
    /// The points it got below what the opening gave: what its own errors cost.
    pub lost: f64,
    /// Games in which it gave a result away at least once.
    pub games_with_errors: u32,
    /// Its moves reviewed.
    pub moves: u32,
    /// Moves in settled positions.
    pub settled_moves: u32,
    /// Moves that gave a result away.
    pub errors: u32,
    /// Moves in critical positions (where some move would have given the result away).
    pub critical_moves: u32,
}

impl AgentReview {
    /// The share of its critical moves that kept the result.
    pub fn critical_accuracy(&self) -> Option<f64> {
        (self.critical_moves > 0)
            .then(|| 1.0 - f64::from(self.errors) / f64::from(self.critical_moves))
    }
}

/// Points of a result.
fn points(w: Wdl) -> f64 {
    match w {
        Wdl::Win => 1.0,
        Wdl::Draw => 0.5,
        Wdl::Loss => 0.0,
    }
}

/// Sum the reviews per agent, by name.
pub fn summarize(reviews: &[GameReview]) -> BTreeMap<String, AgentReview> {
    let mut out: BTreeMap<String, AgentReview> = BTreeMap::new();
    for game in reviews {
        for player in [Player::South, Player::North] {
            let for_player = |w: Wdl| match player {
                Player::South => w,
                Player::North => w.flip(),
            };
            let agent = out.entry(game.agent(player).to_string()).or_default();
            agent.games += 1;
            let got = points(for_player(game.result));
            agent.score += got;
            if let Some(opening) = game.opening {
                agent.settled_games += 1;
                agent.settled_score += got;
                let due = points(for_player(opening));
                agent.opening_score += due;
                agent.gained += (got - due).max(0.0);
                agent.lost += (due - got).max(0.0);
            }
            let mine = |m: &&MoveReview| m.player == player && m.error() == Some(true);
            agent.games_with_errors += u32::from(game.moves.iter().any(|m| mine(&m)));
            for m in &game.moves {
                if m.player != player {
                    continue;
                }
                agent.moves += 1;
                if m.error().is_some() {
                    agent.settled_moves += 1;
                }
                agent.errors += u32::from(m.error() == Some(true));
                agent.critical_moves += u32::from(m.critical);
            }
        }
    }
    out
}
