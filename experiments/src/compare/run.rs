//! How the comparison's units of work run: each a cacheable [`Job`], played on all cores (or
//! taken from the cache), longest first, within `--max-units`. The stages that plan them are in
//! `stages.rs`.

use super::cache::{Cache, Checked, UnitKey};
use super::config::Config;
use super::sketch::hash_bytes;
use crate::output::{note, outln};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Serialize, de::DeserializeOwned};
use sowing_exact::memory::{self, TooLarge};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// What a unit does.
#[derive(Clone, Debug)]
pub(super) enum Work {
    /// Random games for the shape figures.
    Shape,
    /// Games of agent `a` against agent `b`.
    Match { a: String, b: String },
    /// The solver on the start, `nodes` positions at most.
    Solve { nodes: u64 },
    /// Agent `spec`'s moves in exact positions; a unit's "games" are positions: of the
    /// committed set, or of its phase set.
    Accuracy { spec: String, phases: bool },
}

/// One cacheable unit of work.
#[derive(Clone, Debug)]
pub(super) struct Job {
    pub(super) variant: usize,
    pub(super) measurement: String,
    pub(super) work: Work,
    pub(super) index: u64,
    pub(super) games: u64,
    /// Nominal cost, core-microseconds.
    pub(super) cost_us: f64,
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
    pub(super) fn stream_seed(&self, config: &Config) -> u64 {
        let v = &config.variants[self.variant];
        hash_bytes(format!("{}|{}|{}", config.seed, v.name, self.measurement).as_bytes())
    }
}

/// How many more units this run may compute (`--max-units`); `None` for no limit.
pub(super) struct Quota {
    pub(super) left: Option<u64>,
}

/// Run every job (from the cache where it is there) and return their results in job order;
/// `None` when `--max-units` stopped the run first.
pub(super) fn execute<T>(
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
pub(super) fn units(
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

/// Refuse a plan whose `units` units of `stage`, `each` bytes held until the report, need more
/// memory than there is; a budget and threads that large would also write as many cache files.
pub(super) fn check_plan(stage: &str, units: u64, each: u64) -> Result<(), String> {
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
pub(super) fn match_name(stronger: &str, weaker: &str) -> String {
    format!("match {stronger} vs {weaker}")
}

pub(super) fn stopped(config: &Config) -> Result<(), Box<dyn std::error::Error>> {
    outln!(
        "stopped after {} units of work (--max-units); run the same command without it to finish \
         (the cache in {} keeps what was done)",
        config.max_units.unwrap_or(0),
        config.out.display()
    )?;
    Ok(())
}
