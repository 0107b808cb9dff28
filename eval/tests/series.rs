//! Match play: a series stops at the first to `N` wins with the start alternating and draws
//! counting for neither, is fixed by the seed whatever the threads, measures its estimate on the
//! arena's games, and gives a game South always wins to whoever starts first.

use sowing_agents::AgentSpec;
use sowing_env::{Outcome, Rules};
use sowing_eval::arena::{self, ArenaConfig};
use sowing_eval::series::{self, SeriesConfig, SeriesGame};

fn spec(text: &str) -> AgentSpec {
    text.parse().expect("a valid spec")
}

fn config(a: &str, b: &str, to: u32) -> SeriesConfig {
    let mut c = SeriesConfig::new(Rules::preset("en-dodoi-6").unwrap(), spec(a), spec(b), to);
    c.seed = 5;
    c.games_per_estimate = 40;
    c
}

#[test]
fn a_series_ends_at_the_first_to_n_wins_with_the_start_alternating() {
    let mut heard = Vec::new();
    let report = series::play(&config("greedy", "random", 4), &mut |g: &SeriesGame| {
        heard.push(g.clone())
    })
    .unwrap();
    assert_eq!(heard, report.games);
    let mut score = [0, 0];
    let mut draws = 0;
    for (i, g) in report.games.iter().enumerate() {
        assert_eq!(g.number, i as u64);
        assert_eq!(
            g.south,
            i % 2,
            "A is South in the first game, then every other"
        );
        // The moves replay to the stored result.
        let record = sowing_env::GameRecord::from_moves(&report.rules, &g.moves).unwrap();
        assert_eq!((record.outcome, record.captured), (g.outcome, g.captured));
        match g.winner() {
            Some(w) => score[w] += 1,
            None => draws += 1,
        }
        assert_eq!(g.score, score);
        // Nobody had won before the last game.
        if i + 1 < report.games.len() {
            assert!(score[0] < 4 && score[1] < 4);
        }
    }
    assert_eq!((report.score, report.draws), (score, draws));
    assert_eq!(report.winner, (0..2).find(|&w| score[w] == 4));
    assert!(report.winner.is_some());
}

#[test]
fn a_series_does_not_depend_on_the_threads() {
    let mut c = config("mcts:20", "greedy", 5);
    c.opening_plies = 2;
    c.threads = 1;
    let one = series::play(&c, &mut |_| {}).unwrap();
    // Each game has an opening of its own, not one shared with the next game.
    let shared = one
        .games
        .chunks_exact(2)
        .filter(|p| p[0].moves[..2] == p[1].moves[..2])
        .count();
    assert!(
        shared < one.games.len() / 4,
        "{shared} of {}",
        one.games.len()
    );
    c.threads = 3;
    let three = series::play(&c, &mut |_| {}).unwrap();
    assert_eq!(one, three);
    c.seed += 1;
    assert_ne!(series::play(&c, &mut |_| {}).unwrap().games, one.games);
}

#[test]
fn the_estimate_is_the_arenas_games_for_the_same_seed() {
    let mut c = config("greedy", "alphabeta:1", 2);
    c.opening_plies = 2;
    let report = series::play(&c, &mut |_| {}).unwrap();
    let e = report.estimate.unwrap();
    let mut arena = ArenaConfig::new(c.rules, c.agents.to_vec(), 40);
    arena.seed = c.seed;
    arena.opening_plies = 2;
    let a = &arena::play(&arena, &|_| {}).unwrap().pairings[0];
    assert_eq!(e.games, 40);
    assert_eq!(e.a_south.wins + e.a_north.wins, a.wins);
    assert_eq!(e.a_south.draws + e.a_north.draws, a.draws);
    assert_eq!(e.a_south.losses + e.a_north.losses, a.losses);
    assert_eq!((e.a_south.games(), e.a_north.games()), (20, 20));
    assert!(e.a_wins_low <= e.odds.a_wins && e.odds.a_wins <= e.a_wins_high);
}

/// One hole a side, two seeds each: South's only move captures everything. Every game is won by
/// whoever starts it, as en-dodoi-6 is by perfect players; so A, who starts the first game,
/// wins every series, N to N - 1 in 2N - 1 games, and the estimate says so with certainty.
#[test]
fn when_south_always_wins_the_first_starter_wins_every_series() {
    let rules = Rules::from_json(r#"{"holes": 1, "seeds": 2}"#).unwrap();
    for to in [1, 2, 5] {
        let mut c = SeriesConfig::new(rules, spec("random"), spec("greedy"), to);
        c.games_per_estimate = 10;
        let report = series::play(&c, &mut |_| {}).unwrap();
        assert_eq!(report.winner, Some(0));
        assert_eq!(report.score, [to, to - 1]);
        assert_eq!(report.games.len() as u32, 2 * to - 1);
        let e = report.estimate.unwrap();
        assert_eq!((e.a_south.wins, e.a_north.losses), (5, 5));
        assert_eq!(e.odds.a_wins, 1.0);
        assert_eq!(e.odds.expected_games, Some(f64::from(2 * to - 1)));
    }
}

/// A series nobody can win (every game truncated at a cap of one ply) is given up at
/// `max_games`, and the estimate says it never ends.
#[test]
fn a_series_of_games_nobody_wins_is_given_up() {
    let rules = Rules::from_json(r#"{"holes": 6, "seeds": 4, "max_plies": 1}"#).unwrap();
    let mut c = SeriesConfig::new(rules, spec("random"), spec("greedy"), 2);
    c.max_games = 7;
    c.games_per_estimate = 4;
    let report = series::play(&c, &mut |_| {}).unwrap();
    assert_eq!(report.winner, None);
    assert_eq!((report.games.len(), report.draws), (7, 7));
    assert!(report.games.iter().all(|g| g.outcome == Outcome::Truncated));
    assert!(report.summary().contains("no winner after 7 games"));
    let e = report.estimate.unwrap();
    assert_eq!((e.odds.never_ends, e.odds.expected_games), (1.0, None));
}

#[test]
fn impossible_series_are_refused_before_a_game() {
    let cases: [(SeriesConfig, &str); 5] = [
        (config("greedy", "greedy", 3), "two different agents"),
        (config("greedy", "random", 0), "1 to 10000 wins"),
        (config("greedy", "random", 10_001), "1 to 10000 wins"),
        (
            SeriesConfig {
                max_games: 4,
                ..config("greedy", "random", 3)
            },
            "may need 5 games",
        ),
        (
            SeriesConfig {
                games_per_estimate: 7,
                ..config("greedy", "random", 3)
            },
            "must be even",
        ),
    ];
    for (c, says) in cases {
        let e = series::play(&c, &mut |_| panic!("no game is played")).unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
    }
    let e = "mcts".parse::<AgentSpec>().unwrap_err();
    assert!(e.to_string().contains("valid forms"), "{e}");
    let e = series::play(&config("greedy", "mcts:10:tb=/no/such.tb", 3), &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("valid forms"), "{e}");
}
