//! `sowing random`: statistics of uniformly random play, per variant: how long games last, how
//! far moves sow, how often endless moves turn up, and how the results fall. Games run on every
//! core; game `i` draws from its own ChaCha stream of the seed, and everything is summed as
//! integers, so the figures depend on the seed alone, not on the threads.

use crate::output::outln;
use crate::select::{Named, VariantArgs};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sowing_agents::stream;
use sowing_env::{Outcome, Player, State, random_action};
use std::sync::atomic::{AtomicU64, Ordering};

/// Arguments of `sowing random`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    variant: VariantArgs,
    /// Games per variant, at most 10^12.
    #[arg(long, default_value_t = 10_000)]
    games: u64,
    /// Seed of the games: the same seed gives the same figures on any number of threads.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Threads to play on (0: one per core), at most 1024.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print one JSON object per variant and line instead of a table.
    #[arg(long)]
    json: bool,
}

/// Sums over games, all integers so that adding them up in any order gives the same figures.
#[derive(Clone, Debug, Default)]
struct Tally {
    games: u64,
    plies: u64,
    plies_squared: u64,
    min_plies: Option<u64>,
    max_plies: u64,
    /// Legal moves summed over the positions where a move was chosen.
    branching: u64,
    laps: u64,
    max_laps: u64,
    sown: u64,
    max_sown: u64,
    /// Positions where a move was chosen and at least one move was endless.
    endless_positions: u64,
    /// Endless moves in those positions.
    endless_moves: u64,
    /// Games that met at least one endless move.
    endless_games: u64,
    south_wins: u64,
    north_wins: u64,
    draws: u64,
    truncated: u64,
}

impl Tally {
    fn add_game(&mut self, end: &State, plies: u64, met_endless: bool) {
        self.games += 1;
        self.plies += plies;
        self.plies_squared += plies * plies;
        self.min_plies = Some(self.min_plies.map_or(plies, |m| m.min(plies)));
        self.max_plies = self.max_plies.max(plies);
        self.endless_games += met_endless as u64;
        match end.outcome() {
            Outcome::Won(Player::South) => self.south_wins += 1,
            Outcome::Won(Player::North) => self.north_wins += 1,
            Outcome::Draw => self.draws += 1,
            Outcome::Truncated => self.truncated += 1,
            Outcome::Ongoing => unreachable!("random games are played to the end"),
        }
    }

    fn merge(&mut self, o: &Tally) {
        self.games += o.games;
        self.plies += o.plies;
        self.plies_squared += o.plies_squared;
        self.min_plies = match (self.min_plies, o.min_plies) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.max_plies = self.max_plies.max(o.max_plies);
        self.branching += o.branching;
        self.laps += o.laps;
        self.max_laps = self.max_laps.max(o.max_laps);
        self.sown += o.sown;
        self.max_sown = self.max_sown.max(o.max_sown);
        self.endless_positions += o.endless_positions;
        self.endless_moves += o.endless_moves;
        self.endless_games += o.endless_games;
        self.south_wins += o.south_wins;
        self.north_wins += o.north_wins;
        self.draws += o.draws;
        self.truncated += o.truncated;
    }
}

/// Play game `index` of the run seeded `seed` and add it to `tally`.
fn play_game(named: &Named, seed: u64, index: u64, tally: &mut Tally) {
    let mut rng = stream(seed, 0, index);
    let mut s = State::initial(&named.rules);
    let (mut plies, mut met_endless) = (0u64, false);
    while let Some(a) = random_action(&s, &mut rng) {
        tally.branching += s.legal_count() as u64;
        let endless = s.endless_mask().count_ones() as u64;
        if endless > 0 {
            tally.endless_positions += 1;
            tally.endless_moves += endless;
            met_endless = true;
        }
        let (next, info) = s.play_with_info(a).expect("a legal action plays");
        tally.laps += info.laps as u64;
        tally.max_laps = tally.max_laps.max(info.laps as u64);
        tally.sown += info.sown as u64;
        tally.max_sown = tally.max_sown.max(info.sown as u64);
        plies += 1;
        s = next;
    }
    tally.add_game(&s, plies, met_endless);
}

/// The most games per variant: weeks of work on a large machine, and far from where the sums
/// over games could overflow.
const MAX_GAMES: u64 = 1_000_000_000_000;

/// Games handed to a thread at a time: few enough claims that the counter costs nothing.
const CHUNK: u64 = 64;

fn play_all(named: &Named, games: u64, seed: u64, threads: usize, bar: &ProgressBar) -> Tally {
    let next = AtomicU64::new(0);
    let parts: Vec<Tally> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut tally = Tally::default();
                    loop {
                        let first = next.fetch_add(CHUNK, Ordering::Relaxed);
                        if first >= games {
                            return tally;
                        }
                        let last = (first + CHUNK).min(games);
                        for index in first..last {
                            play_game(named, seed, index, &mut tally);
                        }
                        bar.inc(last - first);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a random-play thread panicked"))
            .collect()
    });
    let mut total = Tally::default();
    for part in &parts {
        total.merge(part);
    }
    total
}

/// The figures printed for one variant.
#[derive(Debug, Serialize)]
struct Report {
    variant: String,
    rules: String,
    games: u64,
    seed: u64,
    plies_mean: f64,
    plies_sd: f64,
    plies_min: u64,
    plies_max: u64,
    branching_mean: f64,
    laps_per_move: f64,
    laps_max: u64,
    seeds_sown_per_move: f64,
    seeds_sown_max: u64,
    /// Share of games that met at least one endless move.
    endless_game_rate: f64,
    endless_positions: u64,
    endless_moves: u64,
    first_player_win_rate: f64,
    second_player_win_rate: f64,
    draw_rate: f64,
    truncated_rate: f64,
    /// Half-width of the 95% interval of each rate above (normal approximation), at its widest.
    rate_ci95: f64,
}

impl Report {
    fn new(named: &Named, seed: u64, t: &Tally) -> Report {
        let games = t.games.max(1) as f64;
        let moves = t.plies.max(1) as f64;
        let mean = t.plies as f64 / games;
        let variance = (t.plies_squared as f64 / games - mean * mean).max(0.0);
        let rate = |k: u64| k as f64 / games;
        Report {
            variant: named.name.clone(),
            rules: named.rules.summary(),
            games: t.games,
            seed,
            plies_mean: mean,
            plies_sd: variance.sqrt(),
            plies_min: t.min_plies.unwrap_or(0),
            plies_max: t.max_plies,
            branching_mean: t.branching as f64 / moves,
            laps_per_move: t.laps as f64 / moves,
            laps_max: t.max_laps,
            seeds_sown_per_move: t.sown as f64 / moves,
            seeds_sown_max: t.max_sown,
            endless_game_rate: rate(t.endless_games),
            endless_positions: t.endless_positions,
            endless_moves: t.endless_moves,
            first_player_win_rate: rate(t.south_wins),
            second_player_win_rate: rate(t.north_wins),
            draw_rate: rate(t.draws),
            truncated_rate: rate(t.truncated),
            // p(1 - p) is largest at p = 1/2.
            rate_ci95: 1.96 * (0.25 / games).sqrt(),
        }
    }

    fn table_header() -> String {
        format!(
            "{:<14} {:>7} {:>15} {:>9} {:>6} {:>11} {:>11} {:>8} {:>7} {:>7} {:>6} {:>6}",
            "variant",
            "games",
            "plies mean±sd",
            "min-max",
            "moves",
            "laps/move",
            "sown/move",
            "endless",
            "P1 win",
            "P2 win",
            "draw",
            "trunc"
        )
    }

    fn table_row(&self) -> String {
        let pct = |x: f64| format!("{:.1}%", 100.0 * x);
        format!(
            "{:<14} {:>7} {:>15} {:>9} {:>6.2} {:>11} {:>11} {:>8} {:>7} {:>7} {:>6} {:>6}",
            self.variant,
            self.games,
            format!("{:.1}±{:.1}", self.plies_mean, self.plies_sd),
            format!("{}-{}", self.plies_min, self.plies_max),
            self.branching_mean,
            format!("{:.2} ({})", self.laps_per_move, self.laps_max),
            format!("{:.1} ({})", self.seeds_sown_per_move, self.seeds_sown_max),
            pct(self.endless_game_rate),
            pct(self.first_player_win_rate),
            pct(self.second_player_win_rate),
            pct(self.draw_rate),
            pct(self.truncated_rate)
        )
    }
}

pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if !(1..=MAX_GAMES).contains(&args.games) {
        return Err(format!(
            "--games must be 1 to {MAX_GAMES} (a million games take about 10 s on one core), not {}",
            args.games
        )
        .into());
    }
    let threads = sowing_exact::memory::threads(args.threads)?;
    let variants = args.variant.many_playable("all")?;
    if !args.json {
        outln!("{}", Report::table_header())?;
    }
    for named in &variants {
        let bar = ProgressBar::new(args.games);
        bar.set_style(
            ProgressStyle::with_template("{prefix:<14} {bar:40} {pos}/{len} games  ~{eta} left")
                .expect("a valid template"),
        );
        bar.set_prefix(named.name.clone());
        let tally = play_all(named, args.games, args.seed, threads, &bar);
        bar.finish_and_clear();
        let report = Report::new(named, args.seed, &tally);
        if args.json {
            outln!("{}", serde_json::to_string(&report)?)?;
        } else {
            outln!("{}", report.table_row())?;
        }
    }
    if !args.json {
        outln!(
            "moves: legal moves per position; laps and sown: mean per move (largest); endless: games \
             that met an endless move; P1 is South, who moves first. Rates are within ±{:.1}% (95%).",
            100.0 * 1.96 * (0.25 / args.games as f64).sqrt()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sowing_env::Rules;

    fn en_dodoi_6() -> Named {
        Named {
            name: "en-dodoi-6".into(),
            rules: Rules::preset("en-dodoi-6").unwrap(),
        }
    }

    #[test]
    fn figures_do_not_depend_on_the_threads() {
        let bar = ProgressBar::hidden();
        let one = play_all(&en_dodoi_6(), 300, 7, 1, &bar);
        let three = play_all(&en_dodoi_6(), 300, 7, 3, &bar);
        assert_eq!(format!("{one:?}"), format!("{three:?}"));
        assert_eq!(one.games, 300);
        assert_eq!(
            one.south_wins + one.north_wins + one.draws + one.truncated,
            300
        );
        let other = play_all(&en_dodoi_6(), 300, 8, 1, &bar);
        assert_ne!(format!("{one:?}"), format!("{other:?}"));
    }

    #[test]
    fn tally_counts_every_move() {
        let mut tally = Tally::default();
        play_game(&en_dodoi_6(), 1, 0, &mut tally);
        assert_eq!(tally.games, 1);
        assert!(tally.plies > 0 && tally.laps >= tally.plies && tally.sown >= tally.plies);
        assert_eq!(tally.min_plies, Some(tally.max_plies));
    }
}
