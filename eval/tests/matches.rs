//! The match loop: a game is fixed by the seed and its number, whether the games are dealt whole
//! to threads or advance together around a batch player, and whichever range of a series is
//! played at a time; tallies agree with the games; impossible matches and illegal moves are
//! reported, not played.

use rand_chacha::ChaCha8Rng;
use sowing_agents::{Agent, AgentSpec, from_spec};
use sowing_env::{Outcome, Rules, State};
use sowing_eval::matches::{self, BatchPlayer, Match, MatchError, Pairing, Played, Salts, Seat};
use std::collections::BTreeMap;

fn a_match(games: std::ops::Range<u64>, threads: usize) -> Match {
    Match {
        rules: Rules::preset("en-dodoi-6").expect("a preset"),
        seed: 9,
        salts: Salts::ARENA,
        opening_plies: 2,
        openings: matches::Openings::Random,
        pairings: vec![Pairing { a: 0, b: 1, games }],
        threads,
        keep_records: true,
    }
}

fn agents<'a>(specs: &[&str]) -> Vec<Seat<'a>> {
    specs
        .iter()
        .map(|spec| Seat::Agent {
            spec: spec.parse().expect("a valid spec"),
            factory: &matches::build,
        })
        .collect()
}

fn play(m: &Match, seats: &mut [Seat]) -> Played {
    matches::play(m, seats, &mut |_| {}).expect("plays")
}

/// An agent played as a batch player: one instance per game, each asked in turn.
struct Batched {
    spec: String,
    games: BTreeMap<usize, Box<dyn Agent>>,
    batches: usize,
}

impl BatchPlayer for Batched {
    fn name(&self) -> String {
        self.spec.clone()
    }

    fn choose_batch(
        &mut self,
        slots: &[usize],
        states: &[State],
        rngs: &mut [ChaCha8Rng],
    ) -> Vec<usize> {
        self.batches += 1;
        slots
            .iter()
            .zip(states)
            .zip(rngs)
            .map(|((slot, state), rng)| {
                let agent = self
                    .games
                    .entry(*slot)
                    .or_insert_with(|| from_spec(&self.spec).expect("a valid spec"));
                agent.choose(state, rng)
            })
            .collect()
    }
}

#[test]
fn a_batch_player_plays_the_games_of_the_agent_it_wraps() {
    let m = a_match(0..12, 2);
    let dealt = play(&m, &mut agents(&["mcts:20", "greedy"]));
    let mut batched = Batched {
        spec: "mcts:20".to_string(),
        games: BTreeMap::new(),
        batches: 0,
    };
    let mut seats = agents(&["mcts:20", "greedy"]);
    seats[0] = Seat::Batch(&mut batched);
    let together = play(&m, &mut seats);
    drop(seats);
    assert_eq!(together, dealt);
    // Each batch held the games where the batch player was to move, not one game each.
    let plies: u64 = dealt.tallies[0].plies;
    assert!(batched.batches > 0 && (batched.batches as u64) < plies / 2);
    assert_eq!(batched.games.len(), 12);
}

#[test]
fn results_do_not_depend_on_the_threads_nor_on_how_a_series_is_split() {
    let whole = play(&a_match(0..12, 1), &mut agents(&["alphabeta:2", "random"]));
    assert_eq!(
        play(&a_match(0..12, 3), &mut agents(&["alphabeta:2", "random"])),
        whole
    );
    let first = play(&a_match(0..4, 2), &mut agents(&["alphabeta:2", "random"]));
    let rest = play(&a_match(4..12, 2), &mut agents(&["alphabeta:2", "random"]));
    let mut tally = first.tallies[0];
    tally.merge(&rest.tallies[0]);
    assert_eq!(tally, whole.tallies[0]);
    assert_eq!([first.games, rest.games].concat(), whole.games);
}

#[test]
fn both_sides_of_each_opening_and_tallies_that_agree_with_the_games() {
    let played = play(&a_match(0..10, 2), &mut agents(&["greedy", "random"]));
    let t = played.tallies[0];
    assert_eq!(t.games, 10);
    assert_eq!(t.a_wins + t.b_wins + t.draws + t.truncated, 10);
    assert_eq!(t.south_wins + t.north_wins, t.a_wins + t.b_wins);
    let greedy_wins = played
        .games
        .iter()
        .filter(|g| match g.outcome {
            Outcome::Won(p) => (if p.index() == 0 { g.south } else { g.north }) == 0,
            _ => false,
        })
        .count();
    assert_eq!(greedy_wins as u64, t.a_wins);
    for pair in played.games.chunks(2) {
        let (even, odd) = (&pair[0], &pair[1]);
        assert_eq!((even.south, odd.south), (0, 1));
        let (a, b) = (even.record.as_ref().unwrap(), odd.record.as_ref().unwrap());
        assert_eq!(a.moves[..2], b.moves[..2], "a pair shares its opening");
        assert_eq!(a.replay().expect("a legal game").outcome(), a.outcome);
    }
}

/// A player that always chooses the first hole, legal or not.
struct Stubborn;

impl BatchPlayer for Stubborn {
    fn name(&self) -> String {
        "stubborn".to_string()
    }

    fn choose_batch(&mut self, slots: &[usize], _: &[State], _: &mut [ChaCha8Rng]) -> Vec<usize> {
        vec![0; slots.len()]
    }
}

#[test]
fn impossible_matches_and_illegal_moves_are_errors() {
    let mut m = a_match(0..2, 1);
    m.pairings[0].b = 0;
    let e = matches::play(&m, &mut agents(&["greedy", "random"]), &mut |_| {}).unwrap_err();
    assert!(matches!(&e, MatchError::Config(msg) if msg.contains("two different seats")));
    m.pairings[0].b = 2;
    assert!(matches!(
        matches::play(&m, &mut agents(&["greedy", "random"]), &mut |_| {}),
        Err(MatchError::Config(_))
    ));
    // A spec naming no agent is refused where it is read; one whose agent cannot be made (its
    // table is missing), before any game.
    let e = "mcts".parse::<AgentSpec>().unwrap_err();
    assert!(e.to_string().contains("valid forms"), "{e}");
    let e = matches::play(
        &a_match(0..2, 1),
        &mut agents(&["greedy", "mcts:10:tb=/no/such.tb"]),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(e, MatchError::Spec(_)), "{e:?}");
    assert!(e.to_string().contains("valid forms"), "{e}");

    // Every first move endless: no game to play, rather than games North wins before a move.
    let mut m = a_match(0..2, 1);
    m.rules = Rules::from_json(r#"{"holes":6,"seeds":4,"max_laps":3}"#).unwrap();
    let e = matches::play(&m, &mut agents(&["greedy", "random"]), &mut |_| {}).unwrap_err();
    assert!(
        matches!(&e, MatchError::Config(msg) if msg.contains("has no legal move")),
        "{e}"
    );

    // Sooner or later the first hole is empty, and the move is refused with the player's name.
    let mut stubborn = Stubborn;
    let mut seats = agents(&["greedy", "greedy"]);
    seats[1] = Seat::Batch(&mut stubborn);
    let e = matches::play(&a_match(0..4, 1), &mut seats, &mut |_| {}).unwrap_err();
    assert!(
        matches!(&e, MatchError::IllegalMove { agent, .. } if agent == "stubborn"),
        "{e}"
    );
}

#[test]
fn a_dealt_list_of_openings_is_checked_before_any_game() {
    let mut m = a_match(0..4, 1);
    let good = matches::Openings::distinct(&m.rules, 2, 9).expect("28 openings");
    assert_eq!(good.dealt(), Some(28));
    m.openings = good;
    assert!(matches::check_openings(&m).is_ok());
    // A list whose openings are not two legal plies, or an empty one, is refused.
    for bad in [vec![vec![0]], vec![vec![0, 9]], vec![]] {
        m.openings = matches::Openings::Dealt(bad.into());
        let e = matches::check_openings(&m).unwrap_err();
        assert!(
            e.to_string().contains(
                "must be 2 legal plies each, leaving the game going, and there must be at least one"
            ),
            "{e}"
        );
    }
}
