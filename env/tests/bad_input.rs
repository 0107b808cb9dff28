//! Bad input is refused with an error that says what was wrong, never a panic: every invalid
//! rules field (named in the message, with what is allowed; also over generated rules files),
//! malformed and unknown JSON/TOML,
//! impossible positions, out-of-range and illegal actions, moves after the end, broken records,
//! and batches of the wrong shape.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_env::{
    AutoReset, ByPlayer, Env, Error, GameRecord, IllegalReason, Outcome, Player, Rules, State,
    VecConfig, VecEnv,
};

fn en_dodoi_6() -> Rules {
    Rules::preset("en-dodoi-6").unwrap()
}

/// The error of a rule set that sets `field` to `value` (on top of 8 holes and 4 seeds), read
/// both from JSON and from TOML: the same kind, and the message names the field.
fn refused(field: &str, json_value: &str, toml_value: &str) -> (Error, Error) {
    let mut json_fields = vec![("holes", "8"), ("seeds", "4")];
    let mut toml_fields = json_fields.clone();
    json_fields.retain(|(f, _)| *f != field);
    toml_fields.retain(|(f, _)| *f != field);
    json_fields.push((field, json_value));
    toml_fields.push((field, toml_value));
    let json = format!(
        "{{{}}}",
        json_fields
            .iter()
            .map(|(f, v)| format!("\"{f}\": {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let toml: String = toml_fields
        .iter()
        .map(|(f, v)| format!("{f} = {v}\n"))
        .collect();
    let from_json = Rules::from_json(&json).expect_err(&json);
    let from_toml = Rules::from_toml(&toml).expect_err(&toml);
    for e in [&from_json, &from_toml] {
        assert!(
            e.to_string().contains(field),
            "the message names {field}: {e}"
        );
    }
    (from_json, from_toml)
}

fn assert_invalid(e: &Error, field: &str, allowed: &str) {
    match e {
        Error::InvalidRules {
            field: f,
            allowed: a,
            ..
        } => {
            assert_eq!(*f, field);
            assert!(a.contains(allowed), "{field}: allowed {a:?}");
        }
        other => panic!("expected invalid {field}, got {other:?}"),
    }
}

#[test]
fn every_out_of_range_field_is_refused_with_its_name_and_range() {
    for (field, value, allowed) in [
        ("holes", "0", "1 to 16"),
        ("holes", "17", "1 to 16"),
        ("seeds", "0", "1 to 15"),
        ("seeds", "16", "1 to 15"),
        ("max_laps", "0", "1 to 100000000"),
        ("max_laps", "100000001", "1 to 100000000"),
        ("max_plies", "0", "1 to 100000000"),
        ("max_plies", "100000001", "1 to 100000000"),
    ] {
        let (json, toml) = refused(field, value, value);
        assert_invalid(&json, field, allowed);
        assert_invalid(&toml, field, allowed);
        assert_eq!(json, toml);
    }
}

#[test]
fn seed_limit_depends_on_the_board() {
    // 255 seeds at most on the board: 16 holes per row hold 7 each, 1 hole per row 127.
    let spec = |holes, seeds| {
        let mut s = en_dodoi_6().spec();
        s.holes = holes;
        s.seeds = seeds;
        Rules::new(s)
    };
    assert!(spec(16, 7).is_ok());
    assert_invalid(&spec(16, 8).unwrap_err(), "seeds", "1 to 7");
    assert!(spec(1, 127).is_ok());
    assert_invalid(&spec(1, 128).unwrap_err(), "seeds", "1 to 127");
    let message = spec(16, 8).unwrap_err().to_string();
    assert!(message.contains("seeds = 8"), "{message}");
    assert!(message.contains("255"), "{message}");
}

#[test]
fn with_validates_again() {
    let e = en_dodoi_6().with(|r| r.max_plies = 0).unwrap_err();
    assert_invalid(&e, "max_plies", "1 to");
}

#[test]
fn values_of_the_wrong_kind_name_their_field() {
    for (field, json, toml, expected) in [
        ("holes", "-1", "-1", "u32"),
        ("holes", r#""8""#, r#""8""#, "u32"),
        ("seeds", "4.5", "4.5", "u32"),
        ("max_laps", "5000000000", "5000000000", "u32"),
        ("max_plies", "-3", "-3", "u32"),
        ("trigger", r#""give""#, r#""give""#, "`take` or `leave`"),
        ("direction", r#""cw""#, r#""cw""#, "`ccw` or `parity`"),
        ("skip_origin", "1", "1", "boolean"),
    ] {
        let (from_json, from_toml) = refused(field, json, toml);
        for e in [from_json, from_toml] {
            assert!(matches!(e, Error::Parse { .. }), "{e:?}");
            assert!(e.to_string().contains(expected), "{field}: {e}");
        }
    }
}

#[test]
fn unknown_fields_are_refused_and_the_known_ones_listed() {
    let e = Rules::from_json(r#"{"holes": 8, "seeds": 4, "colour": "red"}"#).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("unknown field `colour`"), "{message}");
    assert!(message.contains("max_plies"), "{message}");
    let e = Rules::from_toml("holes = 8\nseeds = 4\nmaxlaps = 3\n").unwrap_err();
    assert!(e.to_string().contains("unknown field `maxlaps`"), "{e}");
}

#[test]
fn missing_and_duplicate_fields_are_refused() {
    let e = Rules::from_json(r#"{"holes": 8}"#).unwrap_err();
    assert!(e.to_string().contains("missing field `seeds`"), "{e}");
    let e = Rules::from_toml("seeds = 4").unwrap_err();
    assert!(e.to_string().contains("missing field `holes`"), "{e}");
    let e = Rules::from_json(r#"{"holes": 8, "seeds": 4, "holes": 6}"#).unwrap_err();
    assert!(e.to_string().contains("duplicate field `holes`"), "{e}");
}

#[test]
fn malformed_text_is_a_parse_error_with_its_position() {
    for text in [r#"{"holes": 8, "seeds": 4"#, "", "[8, 4]", "holes: 8"] {
        let e = Rules::from_json(text).unwrap_err();
        assert!(
            matches!(e, Error::Parse { format: "JSON", .. }),
            "{text:?}: {e:?}"
        );
        assert!(e.to_string().starts_with("invalid JSON"), "{e}");
    }
    let e = Rules::from_json(r#"{"holes": 8, "seeds": 4"#).unwrap_err();
    assert!(e.to_string().contains("line 1 column"), "{e}");
    for text in ["holes = 8 seeds = 4", "holes = ", "[rules"] {
        let e = Rules::from_toml(text).unwrap_err();
        assert!(
            matches!(e, Error::Parse { format: "TOML", .. }),
            "{text:?}: {e:?}"
        );
    }
    let e = Rules::from_toml("holes = 8 seeds").unwrap_err();
    assert!(e.to_string().contains("line 1, column"), "{e}");
}

#[test]
fn a_byte_order_mark_before_rules_or_a_record_is_skipped() {
    let bom = "\u{feff}";
    let rules = Rules::from_json(&format!(r#"{bom}{{"holes": 6, "seeds": 4}}"#)).unwrap();
    assert_eq!(rules, en_dodoi_6());
    let rules = Rules::from_toml(&format!("{bom}holes = 6\nseeds = 4\n")).unwrap();
    assert_eq!(rules, en_dodoi_6());
    let record = GameRecord::from_moves(&en_dodoi_6(), &[2, 0]).unwrap();
    let read = GameRecord::from_json(&format!("{bom}{}", record.to_json())).unwrap();
    assert_eq!(read, record);
    // Only at the start: anywhere else it is still a stray character.
    assert!(Rules::from_json(&format!(r#"{{"holes": 6,{bom} "seeds": 4}}"#)).is_err());
}

#[test]
fn huge_input_is_not_echoed_whole() {
    let long = "x".repeat(300_000);
    let cases = [
        Rules::from_json(&format!(r#"{{"holes": "{long}", "seeds": 4}}"#)).unwrap_err(),
        Rules::from_toml(&format!("holes = \"{long}\"\nseeds = 4\n")).unwrap_err(),
        Rules::from_toml(&format!("holes = 6 seeds = 4{long}")).unwrap_err(),
        GameRecord::from_json(&format!(r#"{{"moves": "{long}"}}"#)).unwrap_err(),
        Rules::preset(&long).unwrap_err(),
    ];
    for e in cases {
        let message = e.to_string();
        assert!(
            message.len() < 1200,
            "{} bytes: {}",
            message.len(),
            &message[..1200]
        );
        assert!(message.contains("xxxxx"), "{message}");
    }
    // The length is given, and what the parser expected, at the end of its line, is kept.
    let e = Rules::from_json(&format!(r#"{{"holes": "{long}"}}"#)).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("... ("), "{message}");
    assert!(message.contains("\", expected u32 at line 1"), "{message}");
    let e = Rules::preset(&long).unwrap_err().to_string();
    assert!(
        e.contains(r#"xx"... (300000 bytes); valid variants"#),
        "{e}"
    );
    // Short input is repeated whole, as before.
    assert_eq!(Error::quote("banana"), r#""banana""#);
    assert_eq!(Error::cut("banana"), "banana");
    let cut = Error::cut(&long);
    assert_eq!(
        cut,
        format!("{}... (300000 bytes)", "x".repeat(Error::ECHO_CHARS))
    );
}

#[test]
fn good_rules_round_trip_through_json_and_toml() {
    let r = Rules::from_toml(
        "holes = 5\nseeds = 3\ntrigger = \"leave\"\ndirection = \"parity\"\n\
         skip_origin = true\nmax_laps = 77\nmax_plies = 88\n",
    )
    .unwrap();
    assert_eq!(
        (r.holes(), r.seeds(), r.max_laps(), r.max_plies()),
        (5, 3, 77, 88)
    );
    assert!(r.skip_origin());
    assert_eq!(Rules::from_json(&r.to_json()).unwrap(), r);
    assert_eq!(Rules::from_toml(&r.to_toml()).unwrap(), r);
    // Defaults of RULES.md for the fields left out.
    let d = Rules::from_json(r#"{"holes": 6, "seeds": 4}"#).unwrap();
    assert_eq!(d, en_dodoi_6());
}

#[test]
fn unknown_variant_lists_the_valid_names() {
    let e = Rules::preset("en-dodoi-11").unwrap_err();
    let message = e.to_string();
    assert!(message.contains("en-dodoi-11"), "{message}");
    for name in sowing_env::PRESETS {
        assert!(message.contains(name), "{message}");
    }
    assert!("oware".parse::<Rules>().is_err());
}

#[test]
fn impossible_positions_are_refused() {
    let r = en_dodoi_6();
    let wrong_length = State::new(&r, &[4; 10], ByPlayer::new(4, 4), Player::South, 0);
    assert!(
        matches!(
            &wrong_length,
            Err(Error::InvalidPosition { field: "board", .. })
        ),
        "{wrong_length:?}"
    );
    assert!(
        wrong_length
            .unwrap_err()
            .to_string()
            .starts_with("invalid position: board = 10 holes"),
        "a position's fault is not the rules'"
    );
    let wrong_total = State::new(&r, &[4; 12], ByPlayer::new(1, 0), Player::South, 0);
    assert!(wrong_total.unwrap_err().to_string().contains("48"));
    let past_cap = State::new(&r, &[4; 12], ByPlayer::new(0, 0), Player::South, 1001);
    assert!(matches!(
        past_cap,
        Err(Error::InvalidPosition { field: "ply", .. })
    ));
    let json = State::initial(&r)
        .to_json()
        .replace("\"ply\":0", "\"ply\":0,\"extra\":1");
    assert!(State::from_json(&json).is_err());
    assert!(State::from_json("{").is_err());
}

#[test]
fn out_of_range_actions_are_refused() {
    let s = State::initial(&en_dodoi_6());
    for a in [6, 7, 16, 1000, usize::MAX] {
        let e = s.play(a).unwrap_err();
        assert!(
            matches!(e, Error::ActionOutOfRange { holes: 6, .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("0 to 5"), "{e}");
    }
    assert!(!s.is_legal(16) && !s.is_legal(usize::MAX));
}

#[test]
fn empty_hole_is_illegal_and_says_so() {
    let s = State::new(
        &en_dodoi_6(),
        &[0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4],
        ByPlayer::new(4, 0),
        Player::South,
        0,
    )
    .unwrap();
    match s.play(0) {
        Err(Error::IllegalAction {
            action: 0,
            reason: IllegalReason::EmptyHole,
            legal,
        }) => assert_eq!(legal, vec![1, 2, 3, 4, 5]),
        other => panic!("expected an empty-hole error, got {other:?}"),
    }
    let message = s.play(0).unwrap_err().to_string();
    assert!(message.contains("empty"), "{message}");
    assert!(message.contains("[1, 2, 3, 4, 5]"), "{message}");
}

#[test]
fn moves_after_the_end_are_refused_and_change_nothing() {
    let r = en_dodoi_6().with(|r| r.max_plies = 1).unwrap();
    let end = State::initial(&r).play(2).unwrap();
    assert!(end.is_truncated());
    for a in 0..6 {
        assert_eq!(
            end.play(a),
            Err(Error::GameOver {
                outcome: Outcome::Truncated
            })
        );
    }
    let mut env = Env::new(&r);
    env.reset(Some(1));
    env.step(2).unwrap();
    let before = *env.state();
    let e = env.step(0).unwrap_err();
    assert!(e.to_string().contains("game is over"), "{e}");
    assert_eq!(*env.state(), before);
    assert_eq!(env.sample_action(), None);
}

#[test]
fn env_refuses_illegal_steps_without_changing_the_game() {
    let mut env = Env::new(&en_dodoi_6());
    env.reset(Some(3));
    let before = *env.state();
    assert!(matches!(
        env.step(6),
        Err(Error::ActionOutOfRange { action: 6, .. })
    ));
    assert_eq!(*env.state(), before);
}

#[test]
fn records_that_do_not_replay_are_refused() {
    let r = en_dodoi_6();
    let e = GameRecord::from_moves(&r, &[0, 0, 9]).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("move 3"), "{message}");
    assert!(message.contains("out of range"), "{message}");

    let mut record = GameRecord::from_moves(&r, &[0, 1, 3]).unwrap();
    record.outcome = Outcome::Won(Player::North);
    let e = record.replay().unwrap_err();
    assert!(matches!(e, Error::RecordMismatch { .. }), "{e:?}");
    assert!(e.to_string().contains("North wins"), "{e}");

    let mut record = GameRecord::from_moves(&r, &[0, 1, 3]).unwrap();
    record.captured = ByPlayer::new(40, 8);
    assert!(record.replay().is_err());

    assert!(GameRecord::from_json("{\"rules\": 3}").is_err());
    let json = GameRecord::from_moves(&r, &[0])
        .unwrap()
        .to_json()
        .replace("\"holes\": 6", "\"holes\": 0");
    let e = GameRecord::from_json(&json).unwrap_err();
    assert!(e.to_string().contains("holes"), "{e}");
}

fn vec_env(num_envs: usize, autoreset: AutoReset) -> VecEnv {
    let config = VecConfig {
        autoreset,
        threads: 1,
        random_opening: 0,
    };
    VecEnv::new(&en_dodoi_6(), num_envs, 7, config).unwrap()
}

#[test]
fn batch_of_the_wrong_length_is_refused() {
    let mut v = vec_env(4, AutoReset::SameStep);
    for len in [0, 3, 5] {
        let e = v.step(&vec![0usize; len]).unwrap_err();
        assert!(matches!(e, Error::Batch { .. }));
        assert!(e.to_string().contains("expected 4 actions"), "{e}");
        assert!(v.sample_actions(&mut vec![0; len]).is_err());
    }
    assert!(VecEnv::new(&en_dodoi_6(), 0, 0, VecConfig::default()).is_err());
}

#[test]
fn negative_and_out_of_range_batch_actions_name_the_game() {
    let mut v = vec_env(4, AutoReset::SameStep);
    let observations = v.observations().to_owned();
    let states: Vec<State> = (0..4).map(|i| *v.state(i)).collect();
    for (bad, shown) in [(-1i64, "-1"), (6, "6"), (i64::MAX, "9223372036854775807")] {
        let e = v.step(&[0i64, 1, bad, 3]).unwrap_err();
        let message = e.to_string();
        assert!(message.contains("game 2"), "{message}");
        assert!(message.contains(shown), "{message}");
        assert!(message.contains("out of range"), "{message}");
    }
    let e = v.step(&[0i8, -128, 0, 0]).unwrap_err();
    assert!(e.to_string().contains("game 1: action -128"), "{e}");
    // Nothing moved.
    assert_eq!(v.observations(), observations);
    for (i, s) in states.iter().enumerate() {
        assert_eq!(v.state(i), s);
    }
}

#[test]
fn illegal_batch_action_moves_no_game() {
    let mut v = vec_env(3, AutoReset::SameStep);
    // Every game plays the same moves, so they stay alike, until one has an empty hole.
    while v.state(0).legal_count() == 6 {
        let a = v.state(0).legal_actions().next().unwrap();
        v.step(&[a; 3]).unwrap();
    }
    let illegal = (0..6).find(|&a| !v.state(0).is_legal(a)).unwrap();
    let states: Vec<State> = (0..3).map(|i| *v.state(i)).collect();
    let legal = states[0].legal_actions().next().unwrap();
    let e = v.step(&[legal, legal, illegal]).unwrap_err();
    let message = format!("game 2: action {illegal} is illegal");
    assert!(e.to_string().contains(&message), "{e}");
    for (i, s) in states.iter().enumerate() {
        assert_eq!(v.state(i), s);
    }
}

/// A value of any JSON kind, often near a field's limits: what a generated rules file holds.
fn any_value(rng: &mut ChaCha8Rng) -> serde_json::Value {
    use serde_json::json;
    match rng.random_range(0..10) {
        0..=3 => json!(rng.random_range(-3i64..20)),
        4 => json!(
            [
                0u64,
                1,
                15,
                16,
                17,
                127,
                128,
                100_000_000,
                100_000_001,
                1 << 32,
                u64::MAX
            ][rng.random_range(0..11)]
        ),
        5 => json!(["take", "leave", "ccw", "parity", "", "Take", "cw"][rng.random_range(0..7)]),
        6 => json!(rng.random_bool(0.5)),
        7 => json!(rng.random_range(-2.0..20.0)),
        8 => json!([rng.random_range(0..9)]),
        _ => json!({"holes": 8}),
    }
}

/// Whether `fields` is a rule set the engine holds, worked out from `RULES.md` alone.
fn acceptable(fields: &serde_json::Map<String, serde_json::Value>) -> bool {
    let int = |name: &str| fields.get(name).map(|v| v.as_u64());
    let in_range = |v: Option<Option<u64>>, low: u64, high: u64, default: bool| match v {
        None => default,
        Some(Some(x)) => (low..=high).contains(&x),
        Some(None) => false,
    };
    let choice = |name: &str, words: [&str; 2]| {
        fields
            .get(name)
            .is_none_or(|v| v.as_str().is_some_and(|s| words.contains(&s)))
    };
    let known = [
        "holes",
        "seeds",
        "trigger",
        "direction",
        "skip_origin",
        "max_laps",
        "max_plies",
    ];
    let holes = int("holes");
    in_range(holes, 1, 16, false)
        && in_range(
            int("seeds"),
            1,
            255 / (2 * holes.flatten().unwrap_or(1)),
            false,
        )
        && choice("trigger", ["take", "leave"])
        && choice("direction", ["ccw", "parity"])
        && fields.get("skip_origin").is_none_or(|v| v.is_boolean())
        && in_range(int("max_laps"), 1, 100_000_000, true)
        && in_range(int("max_plies"), 1, 100_000_000, true)
        && fields.keys().all(|k| known.contains(&k.as_str()))
}

#[test]
fn generated_rules_files_are_read_or_refused_as_the_rules_say() {
    let names = [
        "holes",
        "seeds",
        "trigger",
        "direction",
        "skip_origin",
        "max_laps",
        "max_plies",
        "colour",
        "Holes",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    let (mut read, mut refused) = (0, 0);
    for _ in 0..20_000 {
        let mut fields = serde_json::Map::new();
        for name in names {
            // holes and seeds are there most of the time, unknown names seldom, and values are
            // often of a good kind, so that many sets are valid and each refusal has few causes.
            let p = match name {
                "holes" | "seeds" => 0.95,
                "colour" | "Holes" => 0.05,
                _ => 0.3,
            };
            if rng.random_bool(p) {
                let value = match (rng.random_bool(0.7), name) {
                    (true, "holes") => serde_json::json!(rng.random_range(1..=8)),
                    (true, "seeds") => serde_json::json!(rng.random_range(1..=8)),
                    (true, "trigger") => serde_json::json!("leave"),
                    (true, "direction") => serde_json::json!("parity"),
                    (true, "skip_origin") => serde_json::json!(true),
                    (true, "max_laps" | "max_plies") => {
                        serde_json::json!(rng.random_range(1..=500))
                    }
                    _ => any_value(&mut rng),
                };
                fields.insert(name.to_string(), value);
            }
        }
        let json = serde_json::Value::Object(fields.clone()).to_string();
        let got = Rules::from_json(&json);
        assert_eq!(got.is_ok(), acceptable(&fields), "{json}: {got:?}");
        match &got {
            Ok(rules) => {
                read += 1;
                assert_eq!(Rules::from_json(&rules.to_json()).as_ref(), Ok(rules));
            }
            Err(e) => {
                refused += 1;
                // Every refusal says which field, or that one is missing, unknown or repeated.
                let message = e.to_string();
                assert!(
                    names.iter().any(|n| message.contains(n)),
                    "{json}: {message}"
                );
            }
        }
        // The same set written as TOML gets the same verdict.
        let toml = toml::to_string(&fields).expect("a table of plain values");
        assert_eq!(Rules::from_toml(&toml).is_ok(), got.is_ok(), "{toml}");
    }
    assert!(
        read > 1000 && refused > 1000,
        "{read} read, {refused} refused"
    );
}
