//! The batched PUCT search and self-play without libtorch: leaves valued by a function that may
//! fail, a linear evaluator, and self-play samples reproducible whatever the batch or the workers.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sowing_agents::features::{encode_input, input_len};
use sowing_agents::puct::self_play::{self, Sample, SelfPlayConfig};
use sowing_agents::puct::{
    BatchSearch, GumbelConfig, Linear, PuctConfig, Root, SearchResult, SearchSpec, Trees,
    with_evaluator,
};
use sowing_agents::{Evaluation, Evaluator, Rollout};
use sowing_env::{Outcome, Player, Rules, State};
use std::sync::atomic::AtomicU32;
use std::time::Duration;

fn rules() -> Rules {
    Rules::preset("en-dodoi-6").expect("a preset")
}

fn puct(simulations: u32, noise_fraction: f32) -> PuctConfig {
    PuctConfig {
        simulations,
        c_puct: 1.0,
        dirichlet_alpha: 1.0,
        noise_fraction,
        leaf_batch: 1,
    }
}

fn batched(simulations: u32, leaf_batch: u32) -> PuctConfig {
    PuctConfig {
        leaf_batch,
        ..puct(simulations, 0.0)
    }
}

/// A linear evaluator with weights drawn from `seed`, small enough that priors stay spread.
fn linear(holes: usize, seed: u64) -> Linear {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let len = input_len(holes, true);
    let mut draw = |k: usize| -> Vec<f32> {
        (0..k)
            .map(|_| (rng.next_u32() as f32 / u32::MAX as f32 - 0.5) * 0.4)
            .collect()
    };
    let policy = draw(len * holes);
    let value = draw(len);
    Linear::new(holes, true, policy, value).expect("weights of the right shape")
}

#[test]
fn priors_are_the_softmax_of_the_legal_logits_alone() {
    // Action 1 is illegal: its huge logit must not take any probability.
    let e = Evaluation::from_logits(&[0.0, 1000.0, 0.0, 2f32.ln()], 0b1101, 0.25);
    assert_eq!(&e.priors[..4], &[0.25, 0.0, 0.25, 0.5]);
    assert_eq!(e.value, 0.25);
    assert!(e.priors[4..].iter().all(|&p| p == 0.0));
}

#[test]
fn the_linear_evaluator_computes_its_products_over_the_network_input() {
    let n = 6;
    let len = input_len(n, true);
    // Policy: action a's logit is input a (the mover's hole a, scaled); value: tanh of half of
    // the mover's captures feature.
    let mut policy = vec![0.0; len * n];
    for a in 0..n {
        policy[a * n + a] = 1.0;
    }
    let mut value = vec![0.0; len];
    value[2 * n] = 0.5;
    let mut eval = Linear::new(n, true, policy, value).unwrap();
    let state = State::initial(&rules()).play(5).unwrap().play(2).unwrap();
    let mut x = vec![0.0; len];
    encode_input(&state, true, &mut x);
    let got = eval.evaluate(&state, &mut ChaCha8Rng::seed_from_u64(0));
    let want = Evaluation::from_logits(&x[..n], state.legal_mask(), (0.5 * x[2 * n]).tanh());
    assert_eq!(got, want);
}

#[test]
fn linear_weights_of_the_wrong_shape_are_refused_with_the_shape_wanted() {
    let len = input_len(6, false);
    let e = Linear::new(6, false, vec![0.0; 3], vec![0.0; len]).unwrap_err();
    assert!(e.contains(&format!("{len} x 6")), "{e}");
    let e = Linear::new(6, false, vec![0.0; len * 6], vec![0.0; 1]).unwrap_err();
    assert!(e.contains(&format!("{len} values")), "{e}");
    let e = Linear::new(6, false, vec![f32::NAN; len * 6], vec![0.0; len]).unwrap_err();
    assert!(e.contains("finite"), "{e}");
    assert!(Linear::new(0, false, vec![], vec![]).is_err());
}

#[test]
fn an_evaluation_error_ends_the_search_and_the_trees_start_afresh() {
    let start = State::initial(&rules());
    let roots = [start, start.play(0).unwrap()];
    let mut eval = linear(6, 1);
    let mut search = BatchSearch::new();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut rngs = vec![ChaCha8Rng::seed_from_u64(1); 2];
    let config = puct(40, 0.0);
    let mut calls = 0;
    let spec = SearchSpec::from(config);
    let failed = search.run(&roots, Trees::Kept(&[0, 1]), &spec, &mut rngs, |s, out| {
        calls += 1;
        if calls == 5 {
            return Err("the network is gone");
        }
        eval.evaluate_batch(s, &mut rng, out);
        Ok(())
    });
    assert_eq!(failed, Err("the network is gone"));
    assert_eq!(calls, 5, "no call after the error");
    // Continuing from the failed search keeps nothing: the root's own evaluation and 39 visits.
    let Ok(results) = search.run(
        &roots,
        Trees::Kept(&[0, 1]),
        &spec,
        &mut rngs,
        with_evaluator(&mut eval, &mut rng),
    );
    for r in &results {
        assert_eq!(r.search.visits.iter().sum::<u32>(), 39);
    }
    // And it is the search a fresh searcher makes.
    let Ok(fresh) = BatchSearch::new().run(
        &roots,
        Trees::Fresh,
        &spec,
        &mut rngs,
        with_evaluator(&mut eval, &mut rng),
    );
    assert_eq!(results, fresh);
}

#[test]
fn a_search_with_a_deadline_runs_until_it_and_at_least_once() {
    let rules = rules();
    let root = State::initial(&rules).play(2).unwrap();
    let mut eval = linear(6, 3);
    let root_visits = |r: &SearchResult| r.visits.iter().sum::<u32>();
    let search = |time: Option<Duration>, eval: &mut Linear| {
        let mut search = BatchSearch::new();
        let mut noise = [ChaCha8Rng::seed_from_u64(0)];
        let mut eval_rng = ChaCha8Rng::seed_from_u64(0);
        let spec = SearchSpec {
            time,
            ..SearchSpec::from(puct(200, 0.0))
        };
        let Ok(mut found) = search.run(
            &[root],
            Trees::Kept(&[0]),
            &spec,
            &mut noise,
            with_evaluator(eval, &mut eval_rng),
        );
        found.remove(0).search
    };
    // A time already past: the one simulation that expands the root, no visit below it.
    let past = search(Some(Duration::from_nanos(1)), &mut eval);
    assert_eq!(root_visits(&past), 0);
    assert!(past.priors.iter().sum::<f32>() > 0.99);
    // A time far ahead: the count ends the search, which is the counted search exactly.
    let far = search(Some(Duration::from_secs(3600)), &mut eval);
    let counted = search(None, &mut eval);
    assert_eq!(root_visits(&far), 199);
    assert_eq!(far, counted);
}

fn config(simulations: u32) -> SelfPlayConfig {
    SelfPlayConfig {
        search: SearchSpec::from(puct(simulations, 0.25)),
        temperature_plies: 8,
        opening_plies: 4,
        value_mix: 0.0,
        margin_weight: 0.0,
        lookahead: true,
        playout_cap: None,
    }
}

/// The same self-play with Gumbel AlphaZero's root.
fn gumbel_config(simulations: u32) -> SelfPlayConfig {
    let config = config(simulations);
    SelfPlayConfig {
        search: SearchSpec {
            root: Root::Gumbel(GumbelConfig::default()),
            ..config.search
        },
        ..config
    }
}

/// Self-play of games `games` with the linear evaluator, `slots` at a time.
fn play(games: &[u32], slots: u32, seed: u64) -> self_play::Played {
    play_with(&config(16), games, slots, seed)
}

/// [`play`] with another configuration.
fn play_with(config: &SelfPlayConfig, games: &[u32], slots: u32, seed: u64) -> self_play::Played {
    let mut eval = linear(6, 2);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let finished = AtomicU32::new(0);
    let played = self_play::play_games(
        &rules(),
        config,
        seed,
        1,
        games,
        slots,
        &finished,
        |s: &[State], out: &mut [Evaluation]| {
            eval.evaluate_batch(s, &mut rng, out);
            Ok::<(), ()>(())
        },
    )
    .unwrap();
    assert_eq!(finished.into_inner() as usize, games.len());
    played
}

/// The samples in an order that does not depend on when each game ended.
fn sorted(mut samples: Vec<Sample>) -> Vec<Sample> {
    let key = |s: &Sample| {
        let numbers = s.input.iter().chain(&s.policy).chain([&s.value]);
        let bits: Vec<u32> = numbers.map(|x| x.to_bits()).collect();
        (bits, s.player == Player::South)
    };
    samples.sort_by_key(key);
    samples
}

#[test]
fn a_self_play_game_does_not_depend_on_the_games_beside_it() {
    let games: Vec<u32> = (0..8).collect();
    let together = play(&games, 8, 5);
    let fewer = play(&games, 3, 5);
    assert_eq!(together.south_wins, fewer.south_wins);
    assert_eq!(sorted(together.samples.clone()), sorted(fewer.samples));
    // Game by game, alone, gives the same positions again.
    let alone: Vec<Sample> = games
        .iter()
        .flat_map(|&g| play(&[g], 1, 5).samples)
        .collect();
    assert_eq!(sorted(together.samples.clone()), sorted(alone));
    // Another seed, other games.
    assert_ne!(play(&games, 8, 6).samples, together.samples);
}

/// Playout-cap randomisation: about the full fraction of the moves become samples, each still
/// with its game's result; the games stay independent of the batch and reproducible.
#[test]
fn a_playout_cap_teaches_the_full_searches_alone() {
    let capped = SelfPlayConfig {
        playout_cap: Some(self_play::PlayoutCap {
            full_fraction: 0.25,
            fast_simulations: 2,
        }),
        ..config(16)
    };
    let games: Vec<u32> = (0..24).collect();
    let played = play_with(&capped, &games, 8, 5);
    let share = played.samples.len() as f64 / played.moves as f64;
    assert!(
        (0.18..0.32).contains(&share),
        "{} samples of {} moves",
        played.samples.len(),
        played.moves
    );
    assert!(
        played
            .samples
            .iter()
            .all(|s| [-1.0, 0.0, 1.0].contains(&s.value))
    );
    let fewer = play_with(&capped, &games, 3, 5);
    assert_eq!(sorted(played.samples.clone()), sorted(fewer.samples));
    assert_eq!(
        (played.moves, played.south_wins),
        (fewer.moves, fewer.south_wins)
    );
    // Without the cap every move is a sample.
    let full = play(&games, 8, 5);
    assert_eq!(full.samples.len() as u64, full.moves);
}

#[test]
fn self_play_samples_are_searched_positions_with_their_results() {
    let n = 6;
    let played = play(&(0..6).collect::<Vec<_>>(), 6, 11);
    assert!(played.samples.len() > 6 * 10);
    for s in &played.samples {
        assert_eq!(s.input.len(), input_len(n, true));
        assert_eq!(s.policy.len(), n);
        let legal = &s.input[s.input.len() - n..];
        assert!((s.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        for (&mask, &p) in legal.iter().zip(&s.policy) {
            assert!(mask == 1.0 || p == 0.0, "a visit to an illegal action");
        }
        // value_mix 0: the game's result for the mover.
        assert!([-1.0, 0.0, 1.0].contains(&s.value));
    }
    // The movers' results of one position and the next (same game) are opposite or both 0,
    // except where a game ends and the next begins: most consecutive pairs agree.
    let agree = played
        .samples
        .windows(2)
        .filter(|w| w[0].player != w[1].player && w[0].value == -w[1].value)
        .count();
    assert!(
        agree >= played.samples.len() - 12,
        "{agree} of {}",
        played.samples.len()
    );
    assert!(played.samples.iter().any(|s| s.player == Player::North));
}

#[test]
fn dealt_self_play_joins_the_workers_in_order_and_stops_at_the_first_error() {
    let rules = rules();
    let cfg = config(8);
    let evaluators = |k: usize, fail_at: Option<usize>| {
        (0..k)
            .map(|w| {
                let mut eval = linear(6, 2);
                let mut rng = ChaCha8Rng::seed_from_u64(0);
                let mut calls = 0;
                move |s: &[State], out: &mut [Evaluation]| {
                    calls += 1;
                    if fail_at == Some(w) && calls > 20 {
                        return Err(w);
                    }
                    eval.evaluate_batch(s, &mut rng, out);
                    Ok(())
                }
            })
            .collect::<Vec<_>>()
    };
    let mut heard = Vec::new();
    let two = self_play::play_dealt(&rules, &cfg, 3, 2, 0, 6, 6, evaluators(2, None), &mut |d| {
        heard.push(d)
    })
    .unwrap();
    assert!(heard.windows(2).all(|w| w[0] <= w[1]));
    let one = self_play::play_dealt(
        &rules,
        &cfg,
        3,
        2,
        0,
        6,
        6,
        evaluators(1, None),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(two.south_wins, one.south_wins);
    assert_eq!(sorted(two.samples), sorted(one.samples.clone()));
    // Games 0..3 and 3..6 played apart are the games 0..6.
    let part = |first, k| {
        self_play::play_dealt(
            &rules,
            &cfg,
            3,
            2,
            first,
            3,
            6,
            evaluators(k, None),
            &mut |_| {},
        )
        .unwrap()
        .samples
    };
    let halves = [part(0, 1), part(3, 2)].concat();
    assert_eq!(sorted(halves), sorted(one.samples));
    let failed = self_play::play_dealt(
        &rules,
        &cfg,
        3,
        2,
        0,
        6,
        6,
        evaluators(2, Some(1)),
        &mut |_| {},
    );
    assert_eq!(failed, Err(1));
}

#[test]
fn gumbel_self_play_is_reproducible_and_teaches_the_improved_policy() {
    let cfg = gumbel_config(16);
    let games: Vec<u32> = (0..6).collect();
    let together = play_with(&cfg, &games, 6, 5);
    let fewer = play_with(&cfg, &games, 2, 5);
    assert_eq!(sorted(together.samples.clone()), sorted(fewer.samples));
    assert_ne!(play_with(&cfg, &games, 6, 6).samples, together.samples);
    let n = 6;
    let mut not_visit_shares = 0;
    for s in &together.samples {
        let legal = &s.input[s.input.len() - n..];
        assert!((s.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        for (&mask, &p) in legal.iter().zip(&s.policy) {
            assert!(mask == 1.0 || p == 0.0, "policy on an illegal action");
            assert!(
                mask == 0.0 || p > 0.0,
                "the improved policy keeps every legal move"
            );
        }
        // Visit shares of 15 simulations are multiples of 1/15; the improved policy is not.
        if s.policy
            .iter()
            .any(|&p| ((p * 15.0) - (p * 15.0).round()).abs() > 1e-3)
        {
            not_visit_shares += 1;
        }
    }
    assert!(not_visit_shares > together.samples.len() / 2);
    // The same games with PUCT's visit counts are other games.
    assert_ne!(
        play_with(&config(16), &games, 6, 5).samples,
        together.samples
    );
}

#[test]
fn a_gumbel_root_plays_the_move_that_wins_at_once() {
    // Sequential halving visits every move first, and a won child is worth 1 on every visit, so
    // the halving keeps it to the end and the improved policy puts it first; rollouts value the
    // rest.
    let mut played_win = 0;
    let mut search = BatchSearch::new();
    let mut eval_rng = ChaCha8Rng::seed_from_u64(1);
    let positions = wins_at_once(40, 9);
    for (k, state) in positions.iter().enumerate() {
        let actions: Vec<usize> = state.legal_actions().collect();
        let mut rngs = [ChaCha8Rng::seed_from_u64(k as u64 + 1)];
        let spec = SearchSpec {
            root: Root::Gumbel(GumbelConfig::default()),
            ..SearchSpec::from(puct(32, 0.0))
        };
        let found = search
            .run(
                &[*state],
                Trees::Fresh,
                &spec,
                &mut rngs,
                |s: &[State], out: &mut [Evaluation]| {
                    Rollout.evaluate_batch(s, &mut eval_rng, out);
                    Ok::<(), ()>(())
                },
            )
            .unwrap()[0];
        let result = found.gumbel.unwrap();
        let result = (found.search, result);
        assert_eq!(result.0.visits.iter().sum::<u32>(), 31);
        // Every legal move was tried.
        assert!(actions.iter().all(|&a| result.0.visits[a] > 0));
        // The target's favourite wins at once, or the rollouts found it as sure.
        let won = actions.iter().filter(|&&a| wins(state, a));
        let best_win = won.map(|&a| result.1.policy[a]).fold(0.0, f32::max);
        let top = actions
            .iter()
            .map(|&a| result.1.policy[a])
            .fold(0.0, f32::max);
        assert!(best_win >= top * 0.999, "{state:?}: {result:?}");
        // The move played is the Gumbel draw's among the last ones in play: a winning one,
        // unless the draw outweighs a small difference of value (exploration).
        let as_good = result.1.policy[result.1.action] >= best_win * 0.999;
        played_win += usize::from(wins(state, result.1.action) || as_good);
    }
    assert!(played_win >= 36, "{played_win} of 40");
}

/// Whether `action` ends the game won for the player to move.
fn wins(state: &State, action: usize) -> bool {
    state.play(action).unwrap().outcome() == Outcome::Won(state.to_move())
}

/// `count` positions, the first of each random game (drawn from `seed`) where one move ends the
/// game won, another does not, and the mover has not yet taken half the seeds (so other moves
/// may lose).
fn wins_at_once(count: usize, seed: u64) -> Vec<State> {
    let rules = rules();
    let total = rules.total_seeds();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let mut state = State::initial(&rules);
        while !state.is_over() {
            let actions: Vec<usize> = state.legal_actions().collect();
            let winning = actions.iter().filter(|&&a| wins(&state, a)).count();
            let taken = usize::from(state.captured(state.to_move()));
            if winning > 0 && winning < actions.len() && 2 * taken < total {
                found.push(state);
                break;
            }
            state = state
                .play(actions[rng.random_range(0..actions.len())])
                .unwrap();
        }
    }
    found
}

#[test]
fn a_search_of_one_leaf_at_a_time_is_the_search_it_always_was() {
    // Golden: the visits and root values these searches gave before leaves could be batched
    // (commit 3a5ffee), with noise and a linear network, and with rollouts.
    let start = State::initial(&rules());
    let roots = [
        start,
        start.play(3).unwrap(),
        start.play(0).unwrap().play(4).unwrap(),
    ];
    let mut rngs: Vec<ChaCha8Rng> = (0..3).map(|i| ChaCha8Rng::seed_from_u64(20 + i)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut search = BatchSearch::new();
    let Ok(linear) = search.run(
        &roots,
        Trees::Fresh,
        &SearchSpec::from(puct(300, 0.25)),
        &mut rngs,
        with_evaluator(&mut linear(6, 5), &mut rng),
    );
    let Ok(rollouts) = search.run(
        &roots,
        Trees::Fresh,
        &SearchSpec::from(puct(300, 0.0)),
        &mut rngs,
        with_evaluator(&mut Rollout, &mut rng),
    );
    let got: Vec<([u32; 6], String)> = linear
        .iter()
        .chain(&rollouts)
        .map(|r| &r.search)
        .map(|r| (r.visits[..6].try_into().unwrap(), format!("{:.6}", r.value)))
        .collect();
    let want = [
        ([1, 20, 4, 185, 14, 75], "-0.086761"),
        ([0, 38, 13, 8, 240, 0], "0.062573"),
        ([18, 4, 13, 29, 0, 235], "-0.065314"),
        ([3, 4, 287, 1, 3, 1], "0.603333"),
        ([0, 3, 292, 2, 2, 0], "0.553333"),
        ([1, 290, 2, 5, 0, 1], "0.843333"),
    ];
    let want: Vec<([u32; 6], String)> = want.iter().map(|(v, x)| (*v, x.to_string())).collect();
    assert_eq!(got, want);
}

#[test]
fn a_batch_of_leaves_goes_to_the_evaluator_at_once_and_every_simulation_counts() {
    let start = State::initial(&rules());
    let roots = [start, start.play(2).unwrap()];
    let mut eval = linear(6, 3);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for leaf_batch in [1, 3, 8, 64] {
        let mut sizes = Vec::new();
        let mut rngs = vec![ChaCha8Rng::seed_from_u64(2); 2];
        let results = BatchSearch::new()
            .run(
                &roots,
                Trees::Fresh,
                &SearchSpec::from(batched(201, leaf_batch)),
                &mut rngs,
                |s, out| {
                    sizes.push(s.len());
                    eval.evaluate_batch(s, &mut rng, out);
                    Ok::<(), ()>(())
                },
            )
            .unwrap();
        for r in &results {
            assert_eq!(
                r.search.visits.iter().sum::<u32>(),
                200,
                "leaf_batch {leaf_batch}"
            );
        }
        // The roots first, alone: nothing else is a leaf yet.
        assert_eq!(sizes[0], 2, "leaf_batch {leaf_batch}");
        let most = *sizes.iter().max().unwrap();
        assert!(most <= 2 * leaf_batch as usize, "{sizes:?}");
        if leaf_batch == 1 {
            assert_eq!(sizes.len(), 201);
        } else {
            // Full batches once the roots have children (a round may stop early where a walk
            // meets a leaf already waiting, so not every one is full).
            assert_eq!(most, 2 * leaf_batch.min(200) as usize, "{sizes:?}");
            assert!(sizes.len() <= 201 / leaf_batch as usize * 3, "{sizes:?}");
        }
        // The same search again gives the same result.
        let mut rngs = vec![ChaCha8Rng::seed_from_u64(2); 2];
        let again = BatchSearch::new()
            .run(
                &roots,
                Trees::Fresh,
                &SearchSpec::from(batched(201, leaf_batch)),
                &mut rngs,
                |s, out| {
                    eval.evaluate_batch(s, &mut rng, out);
                    Ok::<(), ()>(())
                },
            )
            .unwrap();
        assert_eq!(results, again, "leaf_batch {leaf_batch}");
    }
}

#[test]
fn a_batch_of_leaves_still_finds_the_move_that_wins_at_once() {
    // With 16 leaves a pass and 200 simulations a winning move is among the most visited, as
    // with one leaf at a time: the virtual losses spread the walks, but a won child is worth 1
    // on every visit. Leaves are valued 0 with even priors, so that only the games' ends tell
    // the moves apart.
    struct Even;
    impl Evaluator for Even {
        fn evaluate(&mut self, state: &State, _: &mut ChaCha8Rng) -> Evaluation {
            Evaluation::from_logits(&[0.0; 16][..state.holes()], state.legal_mask(), 0.0)
        }
    }
    for (k, state) in wins_at_once(30, 4).iter().enumerate() {
        for leaf_batch in [1, 16] {
            let mut rngs = [ChaCha8Rng::seed_from_u64(k as u64 + 1)];
            let mut eval_rng = ChaCha8Rng::seed_from_u64(5);
            let Ok(found) = BatchSearch::new().run(
                &[*state],
                Trees::Fresh,
                &SearchSpec::from(batched(200, leaf_batch)),
                &mut rngs,
                with_evaluator(&mut Even, &mut eval_rng),
            );
            let result = found[0].search;
            let most = *result.visits.iter().max().unwrap();
            let won = state.legal_actions().filter(|&a| wins(state, a));
            assert!(
                won.map(|a| result.visits[a]).any(|v| v == most),
                "{leaf_batch} leaves a pass, {state:?}: {result:?}"
            );
        }
    }
}

/// Reanalysis: the positions of self-play searched again give targets that do not depend on the
/// workers or the batch, sum to one over legal actions, and, by the network that played them
/// with the same search and no noise, the search of the game itself.
#[test]
fn reanalysis_gives_each_position_its_own_targets_whatever_the_workers() {
    use sowing_agents::puct::reanalyse::reanalyse_dealt;
    let games: Vec<u32> = (0..4).collect();
    let quiet = SelfPlayConfig {
        search: SearchSpec::from(puct(16, 0.0)),
        temperature_plies: 0,
        value_mix: 0.5,
        ..config(16)
    };
    let played = play_with(&quiet, &games, 4, 9);
    let states: Vec<State> = played.samples.iter().map(|s| s.state).collect();
    assert!(states.len() > 20 && states.iter().all(|s| !s.is_over()));
    let run = |workers: usize, slots: u32| {
        let evaluators: Vec<_> = (0..workers)
            .map(|_| {
                let mut eval = linear(6, 2);
                let mut rng = ChaCha8Rng::seed_from_u64(0);
                move |s: &[State], out: &mut [Evaluation]| {
                    eval.evaluate_batch(s, &mut rng, out);
                    Ok::<(), ()>(())
                }
            })
            .collect();
        let spec = SearchSpec::from(puct(16, 0.0));
        let (targets, oom) =
            reanalyse_dealt(&states, &spec, 9, 3, slots, evaluators, &mut |_| {}).unwrap();
        assert!(!oom);
        targets
    };
    let one = run(1, 64);
    assert_eq!(one.len(), states.len());
    assert_eq!(one, run(2, 5), "two workers, small batches");
    assert_eq!(one, run(3, 1), "three workers, one position at a time");
    for ((target, state), sample) in one.iter().zip(&states).zip(&played.samples) {
        let total: f32 = target.policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-5, "{total}");
        for (a, &p) in target.policy.iter().enumerate() {
            assert!(
                p == 0.0 || state.is_legal(a),
                "illegal action {a} given {p}"
            );
        }
        assert!((-1.0..=1.0).contains(&target.root_value));
        // The same evaluator and search without noise: the game's own target again.
        assert_eq!(target.policy, sample.policy);
        assert_eq!(
            sample.value,
            self_play::value_target(0.5, sample.result, target.root_value)
        );
    }
    // More simulations change the targets: the point of searching again.
    let deeper = {
        let mut eval = linear(6, 2);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let spec = SearchSpec::from(puct(64, 0.0));
        reanalyse_dealt(
            &states,
            &spec,
            9,
            3,
            64,
            vec![move |s: &[State], out: &mut [Evaluation]| {
                eval.evaluate_batch(s, &mut rng, out);
                Ok::<(), ()>(())
            }],
            &mut |_| {},
        )
        .unwrap()
        .0
    };
    assert_ne!(deeper, one);
}

/// A margin weight teaches the margin beside the result: the same games (the weight changes no
/// move), each position's value `(1 - w) * result + w * margin / seeds` with a whole margin of
/// the result's sign, 0 for a draw; and `game_result` of a finished game is that, opposite for
/// the two players.
#[test]
fn a_margin_weight_teaches_the_margin_beside_the_result() {
    let games: Vec<u32> = (0..6).collect();
    let w = 0.25f32;
    let plain = play_with(&config(16), &games, 3, 21);
    let weighted = play_with(
        &SelfPlayConfig {
            margin_weight: w,
            ..config(16)
        },
        &games,
        3,
        21,
    );
    let seeds = rules().total_seeds() as f32;
    assert_eq!(plain.samples.len(), weighted.samples.len());
    let mut margins = std::collections::BTreeSet::new();
    for (p, m) in plain.samples.iter().zip(&weighted.samples) {
        assert_eq!(
            (p.state, p.result, p.policy.clone()),
            (m.state, m.result, m.policy.clone())
        );
        // value_mix 0: the plain value is the result, the weighted one the result with its margin.
        assert_eq!(p.value, p.result);
        let margin = (m.value - (1.0 - w) * m.result) * seeds / w;
        assert!((margin - margin.round()).abs() < 1e-3, "{margin}");
        let margin = margin.round() as i32;
        assert_eq!(margin.signum() as f32, m.result, "{margin} {}", m.result);
        margins.insert(margin.abs());
    }
    assert!(
        margins.len() > 2,
        "the margins differ between games: {margins:?}"
    );

    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..20 {
        let mut s = State::initial(&rules());
        while !s.is_over() {
            let actions: Vec<usize> = s.legal_actions().collect();
            s = s.play_unchecked(actions[rng.random_range(0..actions.len())]);
        }
        let south = self_play::game_result(&s, Player::South, w);
        let north = self_play::game_result(&s, Player::North, w);
        let margin = f32::from(s.captured(Player::South)) - f32::from(s.captured(Player::North));
        let reward = s.outcome().reward(Player::South);
        if s.outcome().is_terminated() {
            assert_eq!(south, (1.0 - w) * reward + w * margin / seeds);
        } else {
            assert_eq!(south, 0.0);
        }
        assert_eq!(north, -south);
        assert_eq!(self_play::game_result(&s, Player::South, 0.0), reward);
    }
}
