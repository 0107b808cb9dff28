//! The comparison's stages, in the order they run: random play (the shape of each game), games
//! between agents (balance and skill chains), the solved column, accuracy on the exact
//! positions, learning; then the report. Each stage plans its units from what the stages before
//! measured, runs them through [`Run::execute`] (the cache first) and hands on what it found;
//! any stage may end the run early when `--max-units` is spent.

use super::accuracy::{Committed, measure_unit};
use super::cache::{Cache, Checked};
use super::config::Config;
use super::difficulty::{Difficulty, critical_shares};
use super::figures::{AccuracyData, FamilyData, Figures, VariantData};
use super::games::play_unit;
use super::learn::{self, Learning};
use super::plan::{
    self, ACCURACY_AGENTS, ACCURACY_UNIT, AGENT_UNIT, Allowance, ChainPlan, CostModel,
    LearningPlan, MIN_ITERATIONS,
};
use super::report;
use super::run::{Job, Quota, Work, check_plan, execute, match_name, stopped, units};
use super::shape::{Shape, random_games};
use super::sketch::Sketch;
use super::solved::{self, Solved};
use crate::output::outln;
use serde::{Serialize, de::DeserializeOwned};
use sowing_eval::accuracy::Accuracy;
use sowing_eval::matches::Tally;

type Failure = Box<dyn std::error::Error>;

/// What every stage shares: the settings, the cache of finished units, the units still allowed.
struct Run<'a> {
    config: &'a Config,
    cache: Cache,
    quota: Quota,
}

impl Run<'_> {
    /// Every job's result in job order (see [`execute`]); `None` when `--max-units` stopped it.
    fn execute<T>(
        &mut self,
        jobs: &[Job],
        stage: &str,
        work: impl Fn(&Job) -> Result<T, String> + Sync,
    ) -> Result<Option<Vec<T>>, String>
    where
        T: Serialize + DeserializeOwned + Checked + Send,
    {
        execute(self.config, &self.cache, jobs, stage, &mut self.quota, work)
    }
}

/// Run the comparison of `config` and write its report.
pub fn compare(config: &Config) -> Result<(), Failure> {
    sowing_exact::output_file::prepare_dir(&config.out).map_err(|e| format!("--out: {e}"))?;
    let mut run = Run {
        config,
        cache: Cache::new(&config.out),
        quota: Quota {
            left: config.max_units,
        },
    };
    let committed: Vec<Result<Committed, String>> =
        config.variants.iter().map(Committed::of).collect();
    let (allowance, learning) = shares(config, &committed);
    let Some(shapes) = shape_stage(&mut run, &allowance)? else {
        return stopped(config);
    };
    let Some(agents) = agent_stage(&mut run, &allowance, &shapes)? else {
        return stopped(config);
    };
    let Some(solved) = solve_stage(&mut run)? else {
        return stopped(config);
    };
    let Some(accuracy) = accuracy_stage(&mut run, &allowance, &committed, &agents.models)? else {
        return stopped(config);
    };
    // Learning, one variant at a time (the trainer uses every core itself), as the figures of
    // each variant are gathered.
    let data: Vec<VariantData> = config
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| VariantData {
            variant: v.clone(),
            shape: shapes.shapes[i].clone(),
            balance: agents.balance(i),
            chains: agents.chains(i),
            accuracy: accuracy.of(i, &committed[i]),
            learning: match &learning {
                Err(reason) => Learning::NotMeasured(reason.clone()),
                Ok(plan) => learn::measure(v, &committed[i], plan, config, &run.cache),
            },
            solved: solved[i].clone(),
        })
        .collect();
    let figures = Figures::new(config, &allowance, learning.as_ref().ok(), &data);
    let written = report::write(&config.out, &figures)?;
    outln!("{}", written.summary_table)?;
    outln!("report: {}", written.report.display())?;
    Ok(())
}

/// The budget's shares, and the learning run of every variant or why learning is not measured:
/// a build without the trainer, no variant with a set to measure the network on, or a budget too
/// small for [`MIN_ITERATIONS`] give learning's share to the other measurements.
fn shares(
    config: &Config,
    committed: &[Result<Committed, String>],
) -> (Allowance, Result<LearningPlan, String>) {
    let split = |learning: bool| {
        Allowance::split(
            config.budget,
            config.threads,
            config.variants.len(),
            learning,
            committed.iter().any(Result::is_ok),
        )
    };
    let with = split(true);
    let learning = learn::availability()
        .and_then(|()| {
            if committed.iter().any(Result::is_ok) {
                Ok(())
            } else {
                Err(
                    "no variant has a committed set of exact positions to measure the network \
                     on"
                    .to_string(),
                )
            }
        })
        .and_then(|()| {
            plan::learning_plan(with.learning).ok_or_else(|| {
                format!(
                    "budget too small: {:.1} core-seconds of training per variant pay for fewer \
                     than {MIN_ITERATIONS} iterations (its share went to the other measurements)",
                    with.learning / 1e6
                )
            })
        });
    let allowance = if learning.is_ok() { with } else { split(false) };
    (allowance, learning)
}

/// What random play found: each variant's shape, and the cost guess it was sized by.
struct Shapes {
    priors: Vec<CostModel>,
    shapes: Vec<Shape>,
}

/// Stage 1: random play, sized by a guess from the board alone.
fn shape_stage(run: &mut Run<'_>, allowance: &Allowance) -> Result<Option<Shapes>, Failure> {
    let config = run.config;
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
    let jobs: Vec<Job> = (0..config.variants.len())
        .flat_map(|i| {
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
    let Some(results) = run.execute(&jobs, "random play", |job| {
        let rules = &config.variants[job.variant].rules;
        Ok(random_games(
            rules,
            job.stream_seed(config),
            job.index * job.games,
            job.games,
        ))
    })?
    else {
        return Ok(None);
    };
    let mut shapes: Vec<Shape> = vec![Shape::default(); config.variants.len()];
    for (job, s) in jobs.iter().zip(&results) {
        shapes[job.variant].merge(s);
    }
    Ok(Some(Shapes { priors, shapes }))
}

/// What the games between agents found, with the plans they were played by.
struct Agents {
    /// Each variant's cost model, from its shape.
    models: Vec<CostModel>,
    /// Per variant: each agent of the balance figures and its self-play games.
    balance_plans: Vec<Vec<(String, u64)>>,
    /// Per variant: each family's skill chain, if the budget plans one.
    chain_plans: Vec<Vec<(String, Option<ChainPlan>)>>,
    jobs: Vec<Job>,
    tallies: Vec<Tally>,
}

impl Agents {
    /// The tally of every unit of `measurement` in `variant`, if it has any.
    fn tally(&self, variant: usize, measurement: &str) -> Option<Tally> {
        let mut total: Option<Tally> = None;
        for (job, t) in self.jobs.iter().zip(&self.tallies) {
            if job.variant == variant && job.measurement == measurement {
                total.get_or_insert_with(Tally::default).merge(t);
            }
        }
        total
    }

    /// The balance figures of `variant`: each agent's self-play tally.
    fn balance(&self, variant: usize) -> Vec<(String, Option<Tally>)> {
        self.balance_plans[variant]
            .iter()
            .map(|(spec, _)| {
                let tally = self.tally(variant, &format!("self-play {spec}"));
                (spec.clone(), tally)
            })
            .collect()
    }

    /// The skill chains of `variant`: each family's pairs and their tallies.
    fn chains(&self, variant: usize) -> Vec<FamilyData> {
        self.chain_plans[variant]
            .iter()
            .map(|(family, plan)| FamilyData {
                family: family.clone(),
                pairs: plan.as_ref().map_or_else(Vec::new, |p: &ChainPlan| {
                    p.pairs
                        .iter()
                        .filter_map(|&(w, s)| {
                            let name = match_name(&p.levels[s], &p.levels[w]);
                            Some((w, s, self.tally(variant, &name)?))
                        })
                        .collect()
                }),
                plan: plan.clone(),
            })
            .collect()
    }
}

/// One measurement of games between agents, before it is cut into units.
struct Measurement {
    variant: usize,
    name: String,
    work: Work,
    games: u64,
    /// Games per unit.
    unit: u64,
    /// Nominal cost of a game, core-microseconds.
    game_us: f64,
}

/// Stage 2: agents, sized by the shape of each variant's random games: self-play of each agent
/// (balance), and each family's chain of levels, each level against the next (skill chains).
fn agent_stage(
    run: &mut Run<'_>,
    allowance: &Allowance,
    shapes: &Shapes,
) -> Result<Option<Agents>, Failure> {
    let config = run.config;
    let mut measurements: Vec<Measurement> = Vec::new();
    let mut balance_plans = Vec::new();
    let mut chain_plans = Vec::new();
    let mut models = Vec::new();
    let mut add =
        |variant: usize, name: String, a: &String, b: &String, games: u64, model: &CostModel| {
            let game_us = model.game_us(a, b);
            measurements.push(Measurement {
                variant,
                name,
                work: Work::Match {
                    a: a.clone(),
                    b: b.clone(),
                },
                games,
                unit: plan::unit_games(AGENT_UNIT, game_us),
                game_us,
            });
        };
    for (i, shape) in shapes.shapes.iter().enumerate() {
        let model = CostModel::from_shape(shape).unwrap_or(shapes.priors[i]);
        let balance = plan::balance_games(allowance.balance, &model);
        for (spec, games) in &balance {
            add(i, format!("self-play {spec}"), spec, spec, *games, &model);
        }
        let chains = plan::chain_plans(allowance.chains, &model);
        for chain in chains.iter().filter_map(|(_, c)| c.as_ref()) {
            for &(weak, strong) in &chain.pairs {
                let (a, b) = (&chain.levels[strong], &chain.levels[weak]);
                add(i, match_name(a, b), a, b, chain.games_per_pair, &model);
            }
        }
        models.push(model);
        balance_plans.push(balance);
        chain_plans.push(chains);
    }
    check_plan(
        "games between agents",
        measurements.iter().map(|m| m.games / m.unit).sum(),
        (size_of::<Job>() + size_of::<Option<Tally>>()) as u64,
    )?;
    let jobs: Vec<Job> = measurements
        .into_iter()
        .flat_map(|m| units(m.variant, &m.name, m.work, m.games, m.unit, m.game_us))
        .collect();
    let Some(tallies) = run.execute(&jobs, "agents", |job| {
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
        return Ok(None);
    };
    Ok(Some(Agents {
        models,
        balance_plans,
        chain_plans,
        jobs,
        tallies,
    }))
}

/// Stage 3: the solved column: each start read from the shipped proofs, or solved within a
/// small share of the budget.
fn solve_stage(run: &mut Run<'_>) -> Result<Option<Vec<Solved>>, Failure> {
    let config = run.config;
    let nodes = solved::nodes_for(
        config.budget.0.as_secs_f64(),
        config.threads,
        config.variants.len(),
    );
    let jobs: Vec<Job> = config
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| Job {
            variant: i,
            measurement: solved::measurement(
                &v.rules,
                nodes,
                config.tablebase_for(&v.rules).map(|t| &**t),
            ),
            work: Work::Solve { nodes },
            index: 0,
            games: 1,
            cost_us: solved::cost_us(&v.rules, nodes),
        })
        .collect();
    Ok(run.execute(&jobs, "solving", |job| {
        let Work::Solve { nodes } = job.work else {
            unreachable!("the solving stage has only solver jobs")
        };
        let rules = &config.variants[job.variant].rules;
        solved::solve(rules, nodes, config.tablebase_for(rules).cloned())
    })?)
}

/// The positions of a variant the accuracy stage measures each agent on: the first of the
/// committed set, and the first of its phase set.
#[derive(Clone, Copy, Debug)]
struct Planned {
    committed: u64,
    phases: u64,
}

/// What the accuracy stage measured: the positions planned per variant, and each unit's part.
struct Measured {
    /// Per variant: the positions each agent is measured on, or why it is not measured.
    plans: Vec<Result<Planned, String>>,
    jobs: Vec<Job>,
    parts: Vec<Accuracy>,
}

impl Measured {
    /// Agent `spec`'s figures on variant `variant`'s set measured as `measurement`, its units
    /// merged.
    fn agent(&self, variant: usize, spec: &str, measurement: &str) -> Accuracy {
        let mut whole = Accuracy::new(spec);
        for (job, part) in self.jobs.iter().zip(&self.parts) {
            if job.variant == variant && job.measurement == measurement {
                whole.merge(part);
            }
        }
        whole
    }

    /// The accuracy figures of variant `variant`, whose committed set is `committed`.
    fn of(&self, variant: usize, committed: &Result<Committed, String>) -> AccuracyData {
        let (c, planned) = match (committed, &self.plans[variant]) {
            (Ok(c), Ok(planned)) => (c, *planned),
            (Err(reason), _) | (_, Err(reason)) => {
                return AccuracyData::NotMeasured(reason.clone());
            }
        };
        let agents: Vec<Accuracy> = ACCURACY_AGENTS
            .iter()
            .map(|spec| self.agent(variant, spec, &c.measurement(spec)))
            .collect();
        let critical = critical_shares(&c.set, planned.committed, &agents).unwrap_or_default();
        let difficulty = Difficulty::of_critical(&critical);
        // The phase set's critical positions count in the ranking on the same phases only.
        let mut phase_critical = critical.clone();
        let phase_set = match &c.phases {
            Some(p) if planned.phases > 0 => {
                let agents: Vec<Accuracy> = ACCURACY_AGENTS
                    .iter()
                    .map(|spec| self.agent(variant, spec, &p.measurement(spec)))
                    .collect();
                phase_critical
                    .extend(critical_shares(&p.set, planned.phases, &agents).unwrap_or_default());
                Some((p.file.display().to_string(), planned.phases))
            }
            _ => None,
        };
        AccuracyData::Measured {
            file: c.file.display().to_string(),
            positions: planned.committed,
            difficulty,
            critical: phase_critical,
            phase_set,
            agents,
        }
    }
}

/// Stage 4: accuracy on the variants' committed sets of exact positions, sized like stage 2;
/// what the budget buys beyond a committed set goes to its phase set.
fn accuracy_stage(
    run: &mut Run<'_>,
    allowance: &Allowance,
    committed: &[Result<Committed, String>],
    models: &[CostModel],
) -> Result<Option<Measured>, Failure> {
    let config = run.config;
    let mut jobs = Vec::new();
    let plans: Vec<Result<Planned, String>> = committed
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let c = c.as_ref().map_err(Clone::clone)?;
            let own = c.set.positions.len() as u64 / ACCURACY_UNIT * ACCURACY_UNIT;
            let more = c.phases.as_ref().map_or(0, |p| {
                p.set.positions.len() as u64 / ACCURACY_UNIT * ACCURACY_UNIT
            });
            let positions = plan::accuracy_positions(allowance.accuracy, &models[i], own + more);
            if positions == 0 {
                return Err(format!(
                    "budget too small for {ACCURACY_UNIT} positions of {} for each of the \
                     {} agents",
                    c.file.display(),
                    ACCURACY_AGENTS.len()
                ));
            }
            let planned = Planned {
                committed: positions.min(own),
                phases: positions.saturating_sub(own),
            };
            for spec in ACCURACY_AGENTS {
                let work = |phases| Work::Accuracy {
                    spec: spec.to_string(),
                    phases,
                };
                jobs.extend(units(
                    i,
                    &c.measurement(spec),
                    work(false),
                    planned.committed,
                    ACCURACY_UNIT,
                    models[i].move_us(spec),
                ));
                if let Some(p) = c.phases.as_ref().filter(|_| planned.phases > 0) {
                    jobs.extend(units(
                        i,
                        &p.measurement(spec),
                        work(true),
                        planned.phases,
                        ACCURACY_UNIT,
                        models[i].move_us(spec),
                    ));
                }
            }
            Ok(planned)
        })
        .collect();
    let Some(parts) = run.execute(&jobs, "accuracy", |job| {
        let Work::Accuracy { spec, phases } = &job.work else {
            unreachable!("the accuracy stage has only accuracy units")
        };
        let c = committed[job.variant]
            .as_ref()
            .expect("units only of variants with a set");
        let set = match (phases, &c.phases) {
            (true, Some(p)) => &p.set,
            _ => &c.set,
        };
        measure_unit(
            set,
            spec,
            job.stream_seed(config),
            job.index * job.games,
            job.games,
        )
    })?
    else {
        return Ok(None);
    };
    Ok(Some(Measured { plans, jobs, parts }))
}
