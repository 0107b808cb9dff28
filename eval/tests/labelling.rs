//! Position labelling split any way gives the set of one piece: the batches a collector deals,
//! played whole or cut into parts (each part with its own threads, as Ray tasks take them),
//! and the outcomes sent through their text form, merge into the same file; outcomes out of
//! order are refused.

use sowing_env::Rules;
use sowing_eval::labelling::{Collector, Drawn, Labelling, PhaseWindow, Setting, decode, encode};
use sowing_exact::Stop;
use sowing_exact::positions::PositionSet;

fn labelling() -> Labelling {
    Labelling {
        rules: Rules::preset("en-dodoi-6").unwrap(),
        variant: "en-dodoi-6".into(),
        seed: 5,
        agents: ["greedy".parse().unwrap(), "alphabeta:2".parse().unwrap()],
        opening: 2,
        nodes: 20_000,
        table_bits: 12,
        tablebase: None,
        mid_game: 0,
        phases: None,
    }
}

/// The set of `count` positions, each batch cut into parts of `part` games, each played on
/// `threads` threads and passed through text.
fn set(count: usize, part: u64, threads: usize) -> (String, u64) {
    let l = labelling();
    let mut c = Collector::new(&l, None, count).unwrap();
    while let Some(games) = c.next_games().unwrap() {
        let mut start = games.start;
        while start < games.end && !c.is_full() {
            let end = start.saturating_add(part).min(games.end);
            let drawn = l
                .label_games(None, start..end, threads, &Stop::never(), &|_| {})
                .unwrap();
            c.add(decode(&l.rules, &encode(&drawn)).unwrap()).unwrap();
            start = end;
        }
    }
    let games = c.games();
    let (set, report) = c.finish();
    assert_eq!(report.count, count);
    assert_eq!(set.header.dropped, report.dropped);
    let mut out = Vec::new();
    set.write_to(&mut out).unwrap();
    (String::from_utf8(out).unwrap(), games)
}

#[test]
fn any_split_gives_the_same_file() {
    let (whole, games) = set(12, u64::MAX, 1);
    let read = PositionSet::read_from(whole.as_bytes(), "whole".as_ref()).unwrap();
    assert_eq!(read.positions.len(), 12);
    assert!(
        read.header.dropped > 0,
        "some unsettled at 20,000 positions"
    );
    assert_eq!(read.header.made_by["games"], games);
    for (part, threads) in [(1, 1), (3, 2), (7, 1)] {
        assert_eq!(
            set(12, part, threads),
            (whole.clone(), games),
            "parts of {part}"
        );
    }
}

#[test]
fn outcomes_out_of_order_or_not_dealt_are_refused() {
    let l = labelling();
    let mut c = Collector::new(&l, None, 50).unwrap();
    let games = c.next_games().unwrap().unwrap();
    let drawn: Vec<Drawn> = l
        .label_games(
            None,
            games.start..games.start + 4,
            1,
            &Stop::never(),
            &|_| {},
        )
        .unwrap();
    let mut back = drawn.clone();
    back.reverse();
    let e = c.add(back).unwrap_err();
    assert!(e.contains("game order"), "{e}");
    let mut c = Collector::new(&l, None, 50).unwrap();
    let e = c.add(drawn).unwrap_err();
    assert!(
        e.contains("not among the games still to come (0..0)"),
        "{e}"
    );
    assert!(
        Collector::new(&l, None, 0)
            .unwrap_err()
            .to_string()
            .contains("count must be at least 1 position, got 0")
    );
    assert!(decode(&l.rules, "[{\"game\": 1}]").is_err());
    // A stop asked for ends the call.
    let stopped = l.label_games(None, 0..50, 2, &Stop::when(|| true), &|_| {});
    assert!(matches!(
        stopped,
        Err(sowing_eval::labelling::LabelError::Stopped)
    ));
}

#[test]
fn bad_settings_are_refused_clearly() {
    let mut l = labelling();
    l.nodes = 0;
    assert_eq!(
        l.check().unwrap_err().to_string(),
        "nodes must be at least 1 (positions the search may make per position), got 0"
    );
    let mut l = labelling();
    l.table_bits = 40;
    assert_eq!(
        l.check().unwrap_err().to_string(),
        "table_bits must be 10 to 30 (2^BITS slots of 16 bytes per search), got 40"
    );
    let mut l = labelling();
    // A spec that parses but names an agent that cannot be made: its table is missing.
    l.agents[1] = "alphabeta:2:tb=/no/such-agent.tb".parse().unwrap();
    assert!(
        l.check()
            .unwrap_err()
            .to_string()
            .contains("/no/such-agent.tb")
    );
    let mut l = labelling();
    l.tablebase = Some("/no/such.tb".into());
    assert!(l.open_table().unwrap_err().contains("/no/such.tb"));
    let mut l = labelling();
    l.mid_game = 101;
    let refused = l.check().unwrap_err();
    assert_eq!(
        refused.to_string(),
        "mid_game must be a share of the games in percent, 0 to 100, got 101"
    );
    // Each caller names the setting in its own words.
    assert!(
        refused
            .words(&|s| if s == Setting::MidGame {
                "--mid-game"
            } else {
                "?"
            })
            .starts_with("--mid-game must be")
    );
}

/// The positions drawn from games `0..n` (labelled or not), with the games they came from.
fn drawn(l: &Labelling, n: u64) -> Vec<Drawn> {
    l.label_games(None, 0..n, 2, &Stop::never(), &|_| {})
        .unwrap()
}

#[test]
fn a_mid_game_share_draws_that_share_just_past_half_the_seeds_and_leaves_the_others() {
    let plain = labelling();
    let seeds = |d: &Drawn| d.state.board().sum(0, 2 * d.state.holes());
    // en-dodoi-6: 48 seeds, so just past half is 25 to 32 on the board.
    let near = |d: &Drawn| (25..=32).contains(&seeds(d));
    let before = drawn(&plain, 80);
    let mut all = labelling();
    all.mid_game = 100;
    let after = drawn(&all, 80);
    assert_eq!(before.len(), after.len());
    // Nearly every game passes through such positions (one capture seldom takes more than 8
    // seeds); those that jump over them draw as without the share.
    let after_near = after.iter().filter(|d| near(d)).count();
    assert!(
        after_near >= 75,
        "{:?}",
        after.iter().map(seeds).collect::<Vec<_>>()
    );
    let plain_near = before.iter().filter(|d| near(d)).count();
    assert!(plain_near < 40, "{plain_near} of 80 already near half");
    // Half the share: about half the games move, and every other game draws as without it.
    let mut half = labelling();
    half.mid_game = 50;
    let mixed = drawn(&half, 80);
    let moved = mixed
        .iter()
        .zip(&before)
        .filter(|(m, b)| m.state != b.state)
        .count();
    for (m, b) in mixed.iter().zip(&before) {
        assert!(
            m.state == b.state || near(m),
            "a game moved off its draw: {:?}",
            m.state
        );
    }
    let near_now = mixed.iter().filter(|d| near(d)).count();
    assert!((20..=60).contains(&moved), "{moved} of 80 moved");
    assert!(near_now > plain_near, "{near_now} against {plain_near}");
    // The header says so; without it, it says nothing new.
    let mut c = sowing_eval::labelling::Collector::new(&half, None, 5).unwrap();
    while let Some(g) = c.next_games().unwrap() {
        let d = half
            .label_games(None, g, 1, &Stop::never(), &|_| {})
            .unwrap();
        c.add(d).unwrap();
    }
    assert_eq!(c.finish().0.header.made_by["mid_game"], 50);
    let (whole, _) = set(3, u64::MAX, 1);
    assert!(!whole.lines().next().unwrap().contains("mid_game"));
}

#[test]
fn a_window_of_phases_draws_only_from_it() {
    let seeds = |d: &Drawn| d.state.board().sum(0, 2 * d.state.holes());
    let before = drawn(&labelling(), 60);
    let mut l = labelling();
    l.phases = Some("10-40".parse().unwrap());
    let after = drawn(&l, 60);
    // en-dodoi-6: 48 seeds, so 10-40% is 5 to 19 seeds on the board (4.8 <= s < 19.2).
    assert!(
        after.iter().all(|d| (5..=19).contains(&seeds(d))),
        "{:?}",
        after.iter().map(seeds).collect::<Vec<_>>()
    );
    // Nearly every game goes through its endgame; the plain draw reaches every phase.
    assert!(
        after.len() >= 55,
        "{} of 60 games gave a position",
        after.len()
    );
    assert!(before.iter().any(|d| seeds(d) > 19));
    // The header says so.
    let mut c = Collector::new(&l, None, 4).unwrap();
    while let Some(g) = c.next_games().unwrap() {
        c.add(l.label_games(None, g, 1, &Stop::never(), &|_| {}).unwrap())
            .unwrap();
    }
    let (set, _) = c.finish();
    assert_eq!(set.header.made_by["phases"], "10-40");
    assert!(set.positions.iter().all(|p| (5..=19).contains(&p.seeds())));
}

#[test]
fn windows_are_read_and_held_exactly() {
    let w: PhaseWindow = " 10-40 ".parse().unwrap();
    assert_eq!((w.low, w.high), (10, 40));
    assert_eq!(w.to_string(), "10-40");
    // 64 seeds at the start: 10% is 6.4, 40% is 25.6.
    assert!(!w.holds(6, 64) && w.holds(7, 64) && w.holds(25, 64) && !w.holds(26, 64));
    let all: PhaseWindow = "0-100".parse().unwrap();
    assert!(
        all.holds(0, 64) && all.holds(64, 64),
        "the start is in a window to 100"
    );
    for bad in [
        "", "10", "40-10", "10-10", "0-101", "a-b", "-5-10", "10-40-50",
    ] {
        let e = bad.parse::<PhaseWindow>().unwrap_err();
        assert!(e.contains("0 <= LOW < HIGH <= 100"), "{bad:?}: {e}");
    }
    // Both ways of choosing the phases at once are refused, naming the setting.
    let mut l = labelling();
    l.phases = Some(w);
    l.mid_game = 10;
    let refused = l.check().unwrap_err();
    assert!(
        refused
            .to_string()
            .starts_with("phases must be left out when a mid-game share is given"),
        "{refused}"
    );
    assert_eq!(refused.words(&|s| s.field()), refused.to_string());
}
