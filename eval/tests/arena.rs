//! The arena: results fixed by the seed whatever the threads, both sides of every pairing,
//! records that replay, clear errors; and the statistics behind its figures.

use sowing_agents::AgentSpec;
use sowing_env::{Outcome, Player, Rules};
use sowing_eval::arena::{self, ArenaConfig, ArenaError};
use sowing_eval::stats::{PairCount, bradley_terry, ratings, wilson};
use std::sync::atomic::{AtomicUsize, Ordering};

fn config(agents: &[&str], games: u32) -> ArenaConfig {
    let mut c = ArenaConfig::new(
        Rules::preset("en-dodoi-6").expect("a preset"),
        agents
            .iter()
            .map(|a| a.parse().expect("a valid spec"))
            .collect(),
        games,
    );
    c.seed = 42;
    c
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let mut c = config(&["random", "greedy", "alphabeta:2", "mcts:20"], 12);
    c.keep_records = true;
    c.opening_plies = 2;
    let reports: Vec<_> = [1, 2, 3]
        .iter()
        .map(|&t| {
            c.threads = t;
            arena::play(&c, &|_| {}).expect("plays")
        })
        .collect();
    assert_eq!(reports[0], reports[1]);
    assert_eq!(reports[0], reports[2]);
    c.seed = 43;
    assert_ne!(
        arena::play(&c, &|_| {}).expect("plays").records,
        reports[0].records
    );
}

#[test]
fn every_pairing_is_played_from_both_sides_and_recorded() {
    let mut c = config(&["random", "greedy", "alphabeta:1"], 6);
    c.keep_records = true;
    c.opening_plies = 3;
    let seen = AtomicUsize::new(0);
    let report = arena::play(&c, &|_| {
        seen.fetch_add(1, Ordering::Relaxed);
    })
    .expect("plays");
    assert_eq!(seen.load(Ordering::Relaxed), 18);
    assert_eq!(report.pairings.len(), 3);
    assert_eq!(report.records.len(), 18);
    for p in &report.pairings {
        assert_eq!(p.games, 6);
        assert_eq!(p.wins + p.draws + p.losses, 6);
        assert!(p.score_low <= p.score && p.score <= p.score_high);
    }
    for (k, pair) in report.records.chunks(2).enumerate() {
        // Side-swapped pairs: the same opening, the agents on the other sides.
        assert_eq!(pair[0].moves[..3], pair[1].moves[..3], "pair {k}");
        assert_eq!(pair[0].tags["south"], pair[1].tags["north"]);
        assert_eq!(pair[0].tags["north"], pair[1].tags["south"]);
    }
    for r in &report.records {
        let end = r.replay().expect("a legal game");
        assert!(end.is_over());
        assert_eq!(r.tags["seed"], "42");
    }
    // The tallies agree with the records.
    let first = &report.pairings[0];
    let wins = report.records[..6]
        .iter()
        .filter(|r| {
            let side = if r.tags["south"] == first.agent {
                Player::South
            } else {
                Player::North
            };
            r.outcome == Outcome::Won(side)
        })
        .count();
    assert_eq!(wins as u32, first.wins);
    let games: u32 = report.ratings.iter().map(|r| r.games).sum();
    assert_eq!(games, 2 * 18);
    assert!(report.table().contains("alphabeta:1"));
    assert_eq!(report.csv().lines().count(), 4);
    // The CSV reads back as the pairings it was written from (scores to the 4 places written).
    let read = arena::read_csv(&report.csv()).unwrap();
    assert_eq!(read.len(), report.pairings.len());
    for (r, p) in read.iter().zip(&report.pairings) {
        assert_eq!(
            (&r.agent, &r.opponent, r.games, r.wins, r.draws, r.losses),
            (&p.agent, &p.opponent, p.games, p.wins, p.draws, p.losses)
        );
        assert!((r.score - p.score).abs() < 1e-4 && (r.score_low - p.score_low).abs() < 1e-4);
    }
}

#[test]
fn an_arena_csv_damaged_at_random_is_refused_with_its_line_never_a_panic() {
    use rand::{RngExt, SeedableRng};
    let good = "agent,opponent,games,wins,draws,losses,truncated,score,score_low,score_high,agent_elo,opponent_elo\n\
                az:run:50ms,alphabeta:200ms,200,120,6,74,0,0.6150,0.5460,0.6800,40.0,-40.0\n";
    assert_eq!(arena::read_csv(good).unwrap()[0].wins, 120);
    let bad = good.replace(",120,6,", ",121,6,");
    assert!(
        arena::read_csv(&bad)
            .unwrap_err()
            .contains("line 2: 121 wins")
    );
    assert!(arena::read_csv("").unwrap_err().contains("line 1 is not"));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let alphabet = b"0123456789,.-ae\n\xff";
    for _ in 0..5_000 {
        let mut bytes = good.as_bytes().to_vec();
        for _ in 0..rng.random_range(1..4) {
            let at = rng.random_range(0..bytes.len());
            match rng.random_range(0..3) {
                0 => bytes[at] = alphabet[rng.random_range(0..alphabet.len())],
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, alphabet[rng.random_range(0..alphabet.len())]),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = arena::read_csv(&text) {
            assert!(e.starts_with("line "), "{e}");
        }
    }
}

#[test]
fn impossible_arenas_are_refused_before_playing() {
    let err =
        |agents: &[&str], games| arena::play(&config(agents, games), &|_| {}).expect_err("refused");
    assert!(matches!(err(&["random"], 2), ArenaError::Config(m) if m.contains("at least two")));
    assert!(matches!(err(&["random", "random"], 2), ArenaError::Config(m) if m.contains("twice")));
    assert!(matches!(err(&["random", "greedy"], 3), ArenaError::Config(m) if m.contains("even")));
    assert!(matches!(
        err(&["random", "greedy"], 0),
        ArenaError::Config(_)
    ));
    let e = "mcts:lots".parse::<AgentSpec>().unwrap_err();
    assert!(e.to_string().contains("valid forms"));
    let e = err(&["random", "mcts:10:tb=/no/such.tb"], 2);
    assert!(matches!(e, ArenaError::Spec(_)));
    assert!(e.to_string().contains("valid forms"));
}

#[test]
fn wilson_intervals_match_known_values() {
    let (lo, hi) = wilson(50.0, 100.0);
    assert!((lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3);
    let (lo, hi) = wilson(0.0, 20.0);
    assert_eq!(lo, 0.0);
    assert!((hi - 0.1611).abs() < 1e-3);
    assert_eq!(wilson(0.0, 0.0), (0.0, 1.0));
}

#[test]
fn bradley_terry_recovers_known_strengths() {
    // A beats B three games in four: strengths 3:1, 400 log10(3) = 190.8 Elo apart (a little
    // less, for the one virtual draw per pairing).
    let counts = [PairCount {
        a: 0,
        b: 1,
        wins: 3000,
        draws: 0,
        losses: 1000,
    }];
    let elo = bradley_terry(2, &counts);
    assert!((elo[0] - elo[1] - 190.8).abs() < 0.5, "{elo:?}");
    assert!((elo[0] + elo[1]).abs() < 1e-9);
    // A consistent three-player set: strengths 4, 2, 1.
    let counts = [
        PairCount {
            a: 0,
            b: 1,
            wins: 2000,
            draws: 0,
            losses: 1000,
        },
        PairCount {
            a: 1,
            b: 2,
            wins: 2000,
            draws: 0,
            losses: 1000,
        },
        PairCount {
            a: 0,
            b: 2,
            wins: 4000,
            draws: 0,
            losses: 1000,
        },
    ];
    let elo = bradley_terry(3, &counts);
    let step = 400.0 * 2f64.log10();
    assert!(
        (elo[0] - elo[1] - step).abs() < 0.5 && (elo[1] - elo[2] - step).abs() < 0.5,
        "{elo:?}"
    );
    // A clean sweep stays finite, and draws count half.
    let sweep = bradley_terry(
        2,
        &[PairCount {
            a: 0,
            b: 1,
            wins: 10,
            draws: 0,
            losses: 0,
        }],
    );
    // 10.5 of 11 with the virtual draw: strengths 21:1, 529 Elo apart.
    assert!(
        sweep[0].is_finite() && (sweep[0] - sweep[1] - 528.9).abs() < 0.5,
        "{sweep:?}"
    );
    let even = bradley_terry(
        2,
        &[PairCount {
            a: 0,
            b: 1,
            wins: 0,
            draws: 10,
            losses: 0,
        }],
    );
    assert!(even[0].abs() < 1e-9);
}

#[test]
fn rating_intervals_cover_the_fit_and_shrink_with_games() {
    let few = [PairCount {
        a: 0,
        b: 1,
        wins: 14,
        draws: 0,
        losses: 6,
    }];
    let many = [PairCount {
        a: 0,
        b: 1,
        wins: 1400,
        draws: 0,
        losses: 600,
    }];
    let r_few = ratings(2, &few, 500, 1);
    let r_many = ratings(2, &many, 500, 1);
    for r in r_few.iter().chain(&r_many) {
        assert!(r.low <= r.elo && r.elo <= r.high, "{r:?}");
    }
    assert!(r_many[0].high - r_many[0].low < (r_few[0].high - r_few[0].low) / 5.0);
    assert_eq!(ratings(2, &few, 500, 1), r_few);
}

#[test]
fn an_opening_random_play_seldom_lasts_is_refused_not_cut_short() {
    // Random games of en-dodoi-6 last 7 to 72 plies: 500 is refused before any game, as is an
    // opening as long as the ply cap; cut short, the agents would play the last move or two of
    // a game random play decided.
    let mut c = config(&["random", "greedy"], 4);
    for (k, says) in [
        (500, "random play seldom lasts"),
        (1000, "max_plies = 1000"),
    ] {
        c.opening_plies = k;
        let played = AtomicUsize::new(0);
        let e = arena::play(&c, &|_| {
            played.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap_err();
        assert!(
            matches!(&e, ArenaError::Config(m) if m.contains(says)),
            "{e}"
        );
        assert_eq!(played.load(Ordering::Relaxed), 0);
    }
    // An opening random play reaches is played whole, every game going on after it.
    c.opening_plies = 20;
    c.keep_records = true;
    c.games = 40;
    let report = arena::play(&c, &|_| {}).expect("plays");
    for r in &report.records {
        let states = r.states().expect("a legal game");
        assert!(r.moves.len() > 20);
        assert!(!states[20].is_over());
    }
}

#[test]
fn arenas_beyond_the_memory_are_refused_with_what_fits() {
    if let Some(free) = sowing_exact::memory::available() {
        let e = arena::play(&config(&["random", "greedy"], 4_294_967_294), &|_| {}).unwrap_err();
        let ArenaError::TooLarge(t) = &e else {
            panic!("{e}")
        };
        let m = e.to_string();
        assert!(
            m.starts_with("4294967294 games per pairing (4294967294 games in all) needs "),
            "{m}"
        );
        let fit = t.largest_fit.unwrap();
        assert!(fit % 2 == 0 && fit > 0 && u128::from(fit) < u128::from(free));
        let mut c = config(&["random", "greedy"], 2);
        c.games = u32::try_from(fit).unwrap_or(u32::MAX) & !1;
        if u64::from(c.games) == fit {
            // As many as fit pass the check (they are not played: too many random plies first).
            c.opening_plies = 1000;
            let e = arena::play(&c, &|_| {}).unwrap_err();
            assert!(e.to_string().contains("max_plies"), "{e}");
        }
    }
    let many: Vec<AgentSpec> = (1..=101)
        .map(|d| format!("mcts:{d}").parse().unwrap())
        .collect();
    let mut c = config(&["random"], 2);
    c.agents = many;
    let e = arena::play(&c, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("at most 100"), "{e}");
}

#[test]
fn distinct_openings_deal_every_opening_once_from_both_sides() {
    use std::collections::{BTreeMap, HashSet};
    // en-dodoi-6 has 28 distinct positions 2 plies in: 56 games play each once from both sides.
    let mut c = config(&["random", "greedy"], 56);
    c.keep_records = true;
    c.opening_plies = 2;
    c.distinct_openings = true;
    let report = arena::play(&c, &|_| {}).expect("plays");
    assert_eq!(report.distinct_openings, Some(28));
    assert!(
        report
            .table()
            .contains("each of 28 distinct 2-ply openings in turn")
    );
    let mut seen: BTreeMap<Vec<usize>, Vec<&str>> = BTreeMap::new();
    for (g, r) in report.records.iter().enumerate() {
        let opening = r.moves[..2].to_vec();
        if g % 2 == 1 {
            // The pair's second game: the same opening, the sides swapped.
            assert_eq!(opening, report.records[g - 1].moves[..2].to_vec());
            assert_eq!(r.tags["south"], report.records[g - 1].tags["north"]);
        }
        seen.entry(opening).or_default().push(&r.tags["south"]);
    }
    assert_eq!(seen.len(), 28, "every opening, none twice");
    assert!(seen.values().all(|s| s.len() == 2 && s[0] != s[1]));
    // Random draws of the same length repeat some and leave others out.
    c.distinct_openings = false;
    let drawn = arena::play(&c, &|_| {}).expect("plays");
    let drawn: HashSet<Vec<usize>> = drawn
        .records
        .iter()
        .map(|r| r.moves[..2].to_vec())
        .collect();
    assert!(drawn.len() < 28, "{} distinct of 28", drawn.len());
    // The seed fixes the order; another seed deals the same openings in another.
    c.distinct_openings = true;
    c.games = 8;
    let order = |c: &ArenaConfig| -> Vec<Vec<usize>> {
        let report = arena::play(c, &|_| {}).expect("plays");
        report
            .records
            .iter()
            .map(|r| r.moves[..2].to_vec())
            .collect()
    };
    assert_eq!(order(&c), order(&c));
    let first = order(&c);
    c.seed = 7;
    assert_ne!(order(&c), first);
}

#[test]
fn distinct_openings_are_refused_without_plies_or_when_too_many() {
    let mut c = config(&["random", "greedy"], 2);
    c.distinct_openings = true;
    let err = arena::play(&c, &|_| {}).unwrap_err().to_string();
    assert!(
        err.contains("need an opening of at least one ply (--opening K)"),
        "{err}"
    );
    // 60,545 distinct positions 7 plies in, more than a list holds 8 plies in.
    c.opening_plies = 8;
    let err = arena::play(&c, &|_| {}).unwrap_err().to_string();
    assert!(
        err.contains("more than 100000 distinct openings of 8 plies"),
        "{err}"
    );
    assert!(err.contains("draw them at random"), "{err}");
}
