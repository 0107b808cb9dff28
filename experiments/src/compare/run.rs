//! The comparison run: plan, play every unit of work on all cores (or take it from the cache),
//! and hand the figures to the report.

use super::accuracy::{Committed, measure_unit};
use super::cache::{Cache, Checked, UnitKey};
use super::config::Config;
use super::figures::{AccuracyData, FamilyData, Figures, VariantData};
use super::games::play_unit;
use super::learn::{self, Learning};
use super::plan::{
    self, ACCURACY_AGENTS, ACCURACY_UNIT, AGENT_UNIT, Allowance, ChainPlan, CostModel,
};
use super::report;
use super::shape::{Shape, random_games};
use super::sketch::{Sketch, hash_bytes};
use super::solved;
use crate::output::{note, outln};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Serialize, de::DeserializeOwned};
use sowing_eval::accuracy::Accuracy;
use sowing_eval::matches::Tally;
use sowing_exact::memory::{self, TooLarge};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// What a unit does.
#[derive(Clone, Debug)]
enum Work {
    /// Random games for the shape figures.
    Shape,
    /// Games of agent `a` against agent `b`.
    Match { a: String, b: String },
    /// The solver on the start, `nodes` positions at most.
    Solve { nodes: u64 },
    /// Agent `spec`'s moves in exact positions; a unit's "games" are positions.
    Accuracy { spec: String },
}

/// One cacheable unit of work.
#[derive(Clone, Debug)]
struct Job {
    variant: usize,
    measurement: String,
    work: Work,
    index: u64,
    games: u64,
    /// Nominal cost, core-microseconds.
    cost_us: f64,
}

impl Job {
    fn key(&self, config: &Config) -> UnitKey {
        let v = &config.variants[self.variant];
        UnitKey::new(
            config.seed,
            &v.name,
            &v.rules,
            &self.measurement,
            self.index,
            self.games,
        )
    }

    /// The seed of this unit's measurement: every game of a measurement is numbered within it.
    fn stream_seed(&self, config: &Config) -> u64 {
        let v = &config.variants[self.variant];
        hash_bytes(format!("{}|{}|{}", config.seed, v.name, self.measurement).as_bytes())
    }
}

/// How many more units this run may compute (`--max-units`); `None` for no limit.
struct Quota {
    left: Option<u64>,
}

/// Run every job (from the cache where it is there) and return their results in job order;
/// `None` when `--max-units` stopped the run first.
fn execute<T>(
    config: &Config,
    cache: &Cache,
    jobs: &[Job],
    stage: &str,
    quota: &mut Quota,
    work: impl Fn(&Job) -> Result<T, String> + Sync,
) -> Result<Option<Vec<T>>, String>
where
    T: Serialize + DeserializeOwned + Checked + Send,
{
    let mut results: Vec<Option<T>> = jobs.iter().map(|j| cache.load(&j.key(config))).collect();
    let mut pending: Vec<usize> = (0..jobs.len()).filter(|&i| results[i].is_none()).collect();
    // Longest first, so the last units to finish are short ones and no core idles long.
    pending.sort_by(|&a, &b| jobs[b].cost_us.total_cmp(&jobs[a].cost_us).then(a.cmp(&b)));
    let mut stopped = false;
    if let Some(left) = quota.left {
        if (pending.len() as u64) > left {
            pending.truncate(left as usize);
            stopped = true;
        }
        quota.left = Some(left - pending.len() as u64);
    }
    let ms = |us: f64| (us / 1000.0).ceil() as u64;
    let total: u64 = jobs.iter().map(|j| ms(j.cost_us)).sum();
    let done: u64 = (0..jobs.len())
        .filter(|&i| results[i].is_some())
        .map(|i| ms(jobs[i].cost_us))
        .sum();
    let bar = ProgressBar::new(total.max(1));
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:28}] {percent:>3}%  {elapsed_precise} spent, ~{eta_precise} left  {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(stage.to_string());
    bar.set_position(done);
    bar.reset_eta();

    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let fresh: Mutex<Vec<(usize, T)>> = Mutex::new(Vec::new());
    let first_error: Mutex<Option<String>> = Mutex::new(None);
    let timings: Mutex<Vec<(usize, f64)>> = Mutex::new(Vec::new());
    let workers = config.threads.min(pending.len()).max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    if failed.load(Ordering::Relaxed) {
                        return;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = pending.get(k) else { return };
                    let job = &jobs[i];
                    let name = &config.variants[job.variant].name;
                    bar.set_message(format!("{name}: {} (unit {})", job.measurement, job.index));
                    let started = Instant::now();
                    let outcome = work(job).and_then(|r| {
                        cache
                            .store(&job.key(config), &r)
                            .map_err(|e| {
                                format!("cannot write the cache in {}: {e}", config.out.display())
                            })
                            .map(|()| r)
                    });
                    match outcome {
                        Ok(r) => {
                            let took = started.elapsed().as_secs_f64() * 1e6;
                            timings
                                .lock()
                                .expect("no worker panics holding it")
                                .push((i, took));
                            fresh
                                .lock()
                                .expect("no worker panics holding it")
                                .push((i, r));
                            bar.inc(ms(job.cost_us));
                        }
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            first_error
                                .lock()
                                .expect("no worker panics holding it")
                                .get_or_insert(e);
                            return;
                        }
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    log_timings(
        config,
        jobs,
        &timings.into_inner().expect("workers have ended"),
    );
    if let Some(e) = first_error.into_inner().expect("workers have ended") {
        return Err(e);
    }
    for (i, r) in fresh.into_inner().expect("workers have ended") {
        results[i] = Some(r);
    }
    if stopped {
        return Ok(None);
    }
    Ok(Some(
        results
            .into_iter()
            .map(|r| r.expect("every job ran or came from the cache"))
            .collect(),
    ))
}

/// Append how long each unit took against its nominal cost to `DIR/timing.csv`: a record of
/// the run kept out of the report (which must not depend on the clock), and the data the cost
/// model is calibrated on.
fn log_timings(config: &Config, jobs: &[Job], timings: &[(usize, f64)]) {
    let path = config.out.join("timing.csv");
    let mut text = String::new();
    if !path.exists() {
        text.push_str("variant,measurement,unit,games,nominal_us,actual_us\n");
    }
    for &(i, took) in timings {
        let j = &jobs[i];
        text.push_str(&format!(
            "{},{},{},{},{:.0},{took:.0}\n",
            config.variants[j.variant].name, j.measurement, j.index, j.games, j.cost_us
        ));
    }
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
    if let Err(e) = written {
        note!("warning: cannot write {}: {e}", path.display());
    }
}

/// Units of `games` games, `unit` at a time.
fn units(
    variant: usize,
    measurement: &str,
    work: Work,
    games: u64,
    unit: u64,
    game_us: f64,
) -> Vec<Job> {
    (0..games / unit)
        .map(|index| Job {
            variant,
            measurement: measurement.to_string(),
            work: work.clone(),
            index,
            games: unit,
            cost_us: game_us * unit as f64,
        })
        .collect()
}

pub fn compare(config: &Config) -> Result<(), Box<dyn std::error::Error>> {
    sowing_exact::output_file::prepare_dir(&config.out).map_err(|e| format!("--out: {e}"))?;
    let cache = Cache::new(&config.out);
    let mut quota = Quota {
        left: config.max_units,
    };
    let committed: Vec<Result<Committed, String>> =
        config.variants.iter().map(Committed::of).collect();
    let split = |learning: bool| {
        Allowance::split(
            config.budget,
            config.threads,
            config.variants.len(),
            learning,
            committed.iter().any(Result::is_ok),
        )
    };
    let mut learning = learn::availability();
    let mut allowance = split(learning.is_ok());
    let learning_seconds = allowance.learning / 1e6 / config.threads as f64;
    if learning.is_ok() && learning_seconds < learn::MIN_SECONDS {
        // Too little for a curve: its share goes to the other measurements instead.
        learning = Err(format!(
            "budget too small: {learning_seconds:.0} s of training per variant, at least {:.0} s \
             needed for a curve (its share went to the other measurements)",
            learn::MIN_SECONDS
        ));
        allowance = split(false);
    }

    // Stage 1: random play, sized by a guess from the board alone.
    let priors: Vec<CostModel> = config
        .variants
        .iter()
        .map(|v| CostModel::prior(v.rules.holes(), v.rules.seeds()))
        .collect();
    let shape_games = plan::shape_games(allowance.shape, &priors);
    let shape_unit = plan::shape_unit(&priors);
    // Each unit's figures are held until the report: a distinct-position sketch and a histogram
    // of lengths (1 KiB covers games of 128 plies) beside the unit itself.
    check_plan(
        "random play",
        config.variants.len() as u64 * (shape_games / shape_unit),
        (size_of::<Job>() + size_of::<Option<Shape>>() + Sketch::BYTES + 1024) as u64,
    )?;
    let shape_jobs: Vec<Job> = config
        .variants
        .iter()
        .enumerate()
        .flat_map(|(i, _)| {
            units(
                i,
                "shape",
                Work::Shape,
                shape_games,
                shape_unit,
                priors[i].random_game_us(),
            )
        })
        .collect();
    let Some(shape_results) = execute(
        config,
        &cache,
        &shape_jobs,
        "random play",
        &mut quota,
        |job| {
            let rules = &config.variants[job.variant].rules;
            Ok(random_games(
                rules,
                job.stream_seed(config),
                job.index * job.games,
                job.games,
            ))
        },
    )?
    else {
        return stopped(config);
    };
    let mut shapes: Vec<Shape> = vec![Shape::default(); config.variants.len()];
    for (job, s) in shape_jobs.iter().zip(&shape_results) {
        shapes[job.variant].merge(s);
    }

    // Stage 2: agents, sized by the shape of each variant's random games.
    // (variant, measurement, work, games, games per unit, cost of a game) of each measurement.
    let mut agent_units: Vec<(usize, String, Work, u64, u64, f64)> = Vec::new();
    let mut balance_plans = Vec::new();
    let mut chain_plans = Vec::new();
    let mut models = Vec::new();
    for (i, shape) in shapes.iter().enumerate() {
        let model = CostModel::from_shape(shape).unwrap_or(priors[i]);
        models.push(model);
        let balance = plan::balance_games(allowance.balance, &model);
        for (spec, games) in &balance {
            let work = Work::Match {
                a: spec.clone(),
                b: spec.clone(),
            };
            agent_units.push((
                i,
                format!("self-play {spec}"),
                work,
                *games,
                plan::unit_games(AGENT_UNIT, model.game_us(spec, spec)),
                model.game_us(spec, spec),
            ));
        }
        let chains = plan::chain_plans(allowance.chains, &model);
        for (_, chain) in &chains {
            let Some(chain) = chain else { continue };
            for &(weak, strong) in &chain.pairs {
                let (a, b) = (&chain.levels[strong], &chain.levels[weak]);
                let work = Work::Match {
                    a: a.clone(),
                    b: b.clone(),
                };
                agent_units.push((
                    i,
                    match_name(a, b),
                    work,
                    chain.games_per_pair,
                    plan::unit_games(AGENT_UNIT, model.game_us(a, b)),
                    model.game_us(a, b),
                ));
            }
        }
        balance_plans.push(balance);
        chain_plans.push(chains);
    }
    check_plan(
        "games between agents",
        agent_units.iter().map(|u| u.3 / u.4).sum(),
        (size_of::<Job>() + size_of::<Option<Tally>>()) as u64,
    )?;
    let agent_jobs: Vec<Job> = agent_units
        .into_iter()
        .flat_map(|(i, measurement, work, games, unit, game_us)| {
            units(i, &measurement, work, games, unit, game_us)
        })
        .collect();
    let Some(tallies) = execute(config, &cache, &agent_jobs, "agents", &mut quota, |job| {
        let Work::Match { a, b } = &job.work else {
            unreachable!("the agents' stage has only matches")
        };
        let rules = &config.variants[job.variant].rules;
        play_unit(
            rules,
            a,
            b,
            job.stream_seed(config),
            job.index * job.games,
            job.games,
        )
    })?
    else {
        return stopped(config);
    };
    let tally_of = |variant: usize, measurement: &str| -> Option<Tally> {
        let mut total: Option<Tally> = None;
        for (job, t) in agent_jobs.iter().zip(&tallies) {
            if job.variant == variant && job.measurement == measurement {
                total.get_or_insert_with(Tally::default).merge(t);
            }
        }
        total
    };

    // Stage 3: the solved column: each start, within a small share of the budget.
    let nodes = solved::nodes_for(
        config.budget.0.as_secs_f64(),
        config.threads,
        config.variants.len(),
    );
    let solve_jobs: Vec<Job> = config
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| Job {
            variant: i,
            measurement: solved::measurement(nodes, config.tablebase_for(&v.rules).map(|t| &**t)),
            work: Work::Solve { nodes },
            index: 0,
            games: 1,
            cost_us: solved::cost_us(nodes),
        })
        .collect();
    let Some(solved) = execute(config, &cache, &solve_jobs, "solving", &mut quota, |job| {
        let Work::Solve { nodes } = job.work else {
            unreachable!("the solving stage has only solver jobs")
        };
        let rules = &config.variants[job.variant].rules;
        solved::solve(rules, nodes, config.tablebase_for(rules).cloned())
    })?
    else {
        return stopped(config);
    };

    // Stage 4: accuracy on the variants' committed sets of exact positions, sized like stage 2.
    let mut accuracy_jobs = Vec::new();
    let accuracy_plans: Vec<Result<u64, String>> = committed
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let c = c.as_ref().map_err(Clone::clone)?;
            let available = c.set.positions.len() as u64;
            let positions = plan::accuracy_positions(allowance.accuracy, &models[i], available);
            if positions == 0 {
                return Err(format!(
                    "budget too small for {ACCURACY_UNIT} positions of {} for each of the \
                     {} agents",
                    c.file.display(),
                    ACCURACY_AGENTS.len()
                ));
            }
            for spec in ACCURACY_AGENTS {
                let work = Work::Accuracy {
                    spec: spec.to_string(),
                };
                accuracy_jobs.extend(units(
                    i,
                    &c.measurement(spec),
                    work,
                    positions,
                    ACCURACY_UNIT,
                    models[i].move_us(spec),
                ));
            }
            Ok(positions)
        })
        .collect();
    let Some(measured) = execute(
        config,
        &cache,
        &accuracy_jobs,
        "accuracy",
        &mut quota,
        |job| {
            let Work::Accuracy { spec } = &job.work else {
                unreachable!("the accuracy stage has only accuracy units")
            };
            let c = committed[job.variant]
                .as_ref()
                .expect("units only of variants with a set");
            measure_unit(
                &c.set,
                spec,
                job.stream_seed(config),
                job.index * job.games,
                job.games,
            )
        },
    )?
    else {
        return stopped(config);
    };
    let accuracy_of = |variant: usize| -> AccuracyData {
        let (c, positions) = match (&committed[variant], &accuracy_plans[variant]) {
            (Ok(c), Ok(positions)) => (c, *positions),
            (Err(reason), _) | (_, Err(reason)) => {
                return AccuracyData::NotMeasured(reason.clone());
            }
        };
        let agents = ACCURACY_AGENTS
            .iter()
            .map(|spec| {
                let mut whole = Accuracy::new(spec);
                for (job, part) in accuracy_jobs.iter().zip(&measured) {
                    if job.variant == variant && job.measurement == c.measurement(spec) {
                        whole.merge(part);
                    }
                }
                whole
            })
            .collect();
        AccuracyData::Measured {
            file: c.file.display().to_string(),
            positions,
            agents,
        }
    };

    // Stage 5: learning, one variant at a time (the trainer uses every core itself).
    let data: Vec<VariantData> = config
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let balance = balance_plans[i]
                .iter()
                .map(|(spec, _)| (spec.clone(), tally_of(i, &format!("self-play {spec}"))))
                .collect();
            let chains = chain_plans[i]
                .iter()
                .map(|(family, plan)| FamilyData {
                    family: family.clone(),
                    pairs: plan.as_ref().map_or_else(Vec::new, |p: &ChainPlan| {
                        p.pairs
                            .iter()
                            .filter_map(|&(w, s)| {
                                Some((w, s, tally_of(i, &match_name(&p.levels[s], &p.levels[w]))?))
                            })
                            .collect()
                    }),
                    plan: plan.clone(),
                })
                .collect();
            let learning = match &learning {
                Err(reason) => Learning::NotMeasured(reason.clone()),
                Ok(()) => learn::measure(v, learning_seconds, config, &cache),
            };
            VariantData {
                variant: v.clone(),
                shape: shapes[i].clone(),
                balance,
                chains,
                accuracy: accuracy_of(i),
                learning,
                solved: solved[i].clone(),
            }
        })
        .collect();
    let written = report::write(&config.out, &Figures::new(config, &allowance, &data))?;
    outln!("{}", written.summary_table)?;
    outln!("report: {}", written.report.display())?;
    Ok(())
}

/// Refuse a plan whose `units` units of `stage`, `each` bytes held until the report, need more
/// memory than there is; a budget and threads that large would also write as many cache files.
fn check_plan(stage: &str, units: u64, each: u64) -> Result<(), String> {
    memory::check(
        &format!("the plan's {units} units of {stage}"),
        units,
        each,
        0,
        "units",
    )
    .map_err(|e| {
        let e = TooLarge {
            largest_fit: None,
            ..e
        };
        format!("{e}: give a smaller --budget or fewer --threads")
    })
}

/// The measurement name of a match between two agents, the stronger first.
fn match_name(stronger: &str, weaker: &str) -> String {
    format!("match {stronger} vs {weaker}")
}

fn stopped(config: &Config) -> Result<(), Box<dyn std::error::Error>> {
    outln!(
        "stopped after {} units of work (--max-units); run the same command without it to finish \
         (the cache in {} keeps what was done)",
        config.max_units.unwrap_or(0),
        config.out.display()
    )?;
    Ok(())
}
