//! Many games stepped together into preallocated ndarray buffers: the fast path for self-play.
//!
//! Game `i` of a `VecEnv` seeded with `s` draws its randomness (random openings,
//! [`VecEnv::sample_actions`]) from its own stream, `ChaCha8Rng::seed_from_u64(s)` with stream
//! `i`, so its trajectory is the same whatever the batch size, the number of threads, or which
//! thread steps it. Large batches are cut into chunks that a pool of threads, kept for the life
//! of the `VecEnv`, claims one at a time (the calling thread too), so that a step on a busy
//! machine is never slower than on one thread; a step allocates nothing. A process forked from
//! one that has stepped a `VecEnv` (Python's `fork` start method) starts its own threads.
//!
//! [`VecEnv`] says what happens to a game that ends (autoreset) and what the rewards are.

use crate::env::{random_action, random_opening};
use crate::error::Error;
use crate::legal_mask::SownMoves;
use crate::pool::Pool;
use crate::rules::Rules;
use crate::state::State;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a batched step does with a game that has ended. See [`VecEnv`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AutoReset {
    /// Reset in the step that ends the game; the final observation goes to `final_observations`.
    #[default]
    SameStep,
    /// Reset in the step after the one that ends the game (Gymnasium's default).
    NextStep,
    /// Never reset by itself.
    Off,
}

/// How a [`VecEnv`] is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VecConfig {
    /// What happens to a game that ends.
    pub autoreset: AutoReset,
    /// Threads to step with; 0 means every core.
    pub threads: usize,
    /// Uniformly random moves played at every reset (0: the game's own start).
    pub random_opening: u32,
}

impl Default for VecConfig {
    fn default() -> Self {
        VecConfig {
            autoreset: AutoReset::SameStep,
            threads: 0,
            random_opening: 0,
        }
    }
}

/// Games below this many per thread are stepped on fewer threads: waking a thread costs more
/// than stepping a few dozen games.
const MIN_GAMES_PER_THREAD: usize = 128;

/// Games in one chunk of a batch stepped on several threads: the threads claim chunks one at a
/// time, so a thread the system deschedules holds up at most one chunk (about 10 µs of work).
const CHUNK_GAMES: usize = 64;

/// An integer type that can name an action in a batch: any of Rust's integers, so that buffers
/// from numpy (`int64`) or from a policy (`usize`) need no conversion.
pub trait ActionIndex: Copy + Send + Sync {
    /// The action as a hole index, `None` when negative or too large for `usize`.
    fn to_action(self) -> Option<usize>;
    /// The value as given, for error messages.
    fn raw(self) -> i128;
}

macro_rules! action_index {
    ($($t:ty),*) => {$(
        impl ActionIndex for $t {
            #[inline]
            fn to_action(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[inline]
            fn raw(self) -> i128 {
                // Every Rust integer up to 64 bits fits.
                self as i128
            }
        }
    )*};
}
action_index!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// A game's random stream, starting on a cache line of its own, so that a draw touches as few
/// lines as it can.
#[repr(C, align(64))]
#[derive(Clone, Debug)]
struct Stream(ChaCha8Rng);

/// A game's state, on a cache line of its own (a state is 64 bytes), so that reading it costs
/// one line.
#[repr(C, align(64))]
#[derive(Clone, Debug)]
struct Game {
    state: State,
}

/// N games stepped together.
///
/// # Autoreset
///
/// What happens to a game that ends is chosen once, by [`AutoReset`]:
/// - [`AutoReset::SameStep`] (default): the game is reset within the step that ends it. Its row
///   of `terminated`/`truncated`/`rewards` describes the move that ended it, its row of
///   `final_observations` holds the observation of the final state, and its rows of
///   `observations`, `masks` and `to_move` already belong to the new game.
/// - [`AutoReset::NextStep`]: Gymnasium 1.x's default. The step that ends a game returns its
///   final observation (and an all-false mask); the next step resets it, ignores its action and
///   returns the new game's first observation with reward 0 and both flags false.
/// - [`AutoReset::Off`]: a game that has ended stays ended; stepping it is an error until
///   [`VecEnv::reset`].
///
/// # Rewards
///
/// `rewards[i]` is the reward of the move just made, for the player who made it: +1 when it won
/// the game, -1 when it lost it, 0 otherwise. The game is zero-sum, so the other player's reward
/// is its negation.
#[derive(Debug)]
pub struct VecEnv {
    rules: Rules,
    config: VecConfig,
    games: Vec<Game>,
    /// Per game, under `NextStep`: the game ended in the last step and resets in the next.
    reset_next: Vec<bool>,
    /// Per game, its random stream: apart from `games` (a stream is ~300 bytes, used at resets
    /// and sampling), so that the states every pass walks through stay close together.
    rngs: Vec<Stream>,
    /// Per game, the sowings of its state's legal moves, kept by the last step so that the next
    /// one does not sow its move again (after a reset they belong to the old game and go unused).
    /// Apart from `games`, so that the passes that only read states stay on few cache lines.
    sown: Vec<SownMoves>,
    observations: Array2<f32>,
    final_observations: Array2<f32>,
    masks: Array2<bool>,
    rewards: Array1<f32>,
    terminated: Array1<bool>,
    truncated: Array1<bool>,
    to_move: Array1<u8>,
    pool: Pool,
}

/// The rows of every output buffer that belong to one slice of games.
struct Rows<'a> {
    reset_next: &'a mut [bool],
    rngs: &'a mut [Stream],
    sown: &'a mut [SownMoves],
    obs: &'a mut [f32],
    final_obs: &'a mut [f32],
    masks: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut [bool],
    truncated: &'a mut [bool],
    to_move: &'a mut [u8],
}

/// A caller's buffer shared by the threads, each writing its own games' slots.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
// SAFETY: used only for disjoint slots, as `RawBuffers` is.
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer (a method, so that closures capture the whole `Sync` wrapper).
    fn get(self) -> *mut T {
        self.0
    }
}

/// Raw views of the buffers, split into disjoint [`Rows`] for the threads.
#[derive(Clone, Copy)]
struct RawBuffers {
    games: *mut Game,
    reset_next: *mut bool,
    rngs: *mut Stream,
    sown: *mut SownMoves,
    obs: *mut f32,
    final_obs: *mut f32,
    masks: *mut bool,
    rewards: *mut f32,
    terminated: *mut bool,
    truncated: *mut bool,
    to_move: *mut u8,
    obs_len: usize,
    holes: usize,
}
// SAFETY: each thread touches only the rows of its own range of games (see `RawBuffers::rows`).
unsafe impl Send for RawBuffers {}
unsafe impl Sync for RawBuffers {}

impl RawBuffers {
    /// The games and rows `start..end`.
    ///
    /// # Safety
    /// The buffers must live and be unaliased for `'a`, `start..end` must be in bounds, and no two
    /// live results may overlap.
    unsafe fn rows<'a>(&self, start: usize, end: usize) -> (&'a mut [Game], Rows<'a>) {
        let k = end - start;
        let (l, n) = (self.obs_len, self.holes);
        // SAFETY: per this function's contract.
        unsafe {
            use std::slice::from_raw_parts_mut as part;
            (
                part(self.games.add(start), k),
                Rows {
                    reset_next: part(self.reset_next.add(start), k),
                    rngs: part(self.rngs.add(start), k),
                    sown: part(self.sown.add(start), k),
                    obs: part(self.obs.add(start * l), k * l),
                    final_obs: part(self.final_obs.add(start * l), k * l),
                    masks: part(self.masks.add(start * n), k * n),
                    rewards: part(self.rewards.add(start), k),
                    terminated: part(self.terminated.add(start), k),
                    truncated: part(self.truncated.add(start), k),
                    to_move: part(self.to_move.add(start), k),
                },
            )
        }
    }
}

impl VecEnv {
    /// `num_envs` games by `rules`, reset with `seed`.
    pub fn new(
        rules: &Rules,
        num_envs: usize,
        seed: u64,
        config: VecConfig,
    ) -> Result<VecEnv, Error> {
        if num_envs == 0 {
            return Err(Error::Batch {
                message: "num_envs must be at least 1".into(),
            });
        }
        let threads = match config.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            t => t,
        };
        let (l, n) = (rules.observation_len(), rules.holes());
        let start = State::initial(rules);
        let mut env = VecEnv {
            rules: *rules,
            config,
            games: vec![Game { state: start }; num_envs],
            reset_next: vec![false; num_envs],
            rngs: vec![Stream(ChaCha8Rng::seed_from_u64(seed)); num_envs],
            sown: vec![SownMoves::new(); num_envs],
            observations: Array2::zeros((num_envs, l)),
            final_observations: Array2::zeros((num_envs, l)),
            masks: Array2::from_elem((num_envs, n), false),
            rewards: Array1::zeros(num_envs),
            terminated: Array1::from_elem(num_envs, false),
            truncated: Array1::from_elem(num_envs, false),
            to_move: Array1::zeros(num_envs),
            pool: Pool::new(threads.min(num_envs.div_ceil(MIN_GAMES_PER_THREAD)).max(1)),
        };
        env.reset(Some(seed));
        Ok(env)
    }

    /// The memory one game of a batch by `rules` takes: its state, random stream and kept
    /// sowings, and its rows of every buffer. A batch of `n` games takes `n` times this and a
    /// few kilobytes; a caller that takes `n` from a user checks it against the memory free
    /// before calling [`VecEnv::new`], whose allocations abort the process when they fail.
    pub fn bytes_per_game(rules: &Rules) -> usize {
        let (l, n) = (rules.observation_len(), rules.holes());
        size_of::<Game>()
            + size_of::<Stream>()
            + size_of::<SownMoves>()
            // observations and final observations; masks; reset_next, terminated, truncated and
            // to_move; rewards.
            + 2 * l * size_of::<f32>()
            + n
            + 4
            + size_of::<f32>()
    }

    /// Start every game again. `Some(seed)` restarts every game's stream from `seed` (game `i`
    /// on stream `i`); `None` goes on with the current streams.
    pub fn reset(&mut self, seed: Option<u64>) {
        self.reset_where(None, seed);
    }

    /// Start again the games `i` where `games[i]` is true, as [`VecEnv::reset`] starts every
    /// game (a game started with `Some(seed)` is the game a whole reset with that seed starts);
    /// the others, their rows and their streams stay as they are. `games` has one flag per game.
    pub fn reset_games(&mut self, games: &[bool], seed: Option<u64>) -> Result<(), Error> {
        if games.len() != self.games.len() {
            return Err(Error::Batch {
                message: format!(
                    "expected {} reset flags, one per game, got {}",
                    self.games.len(),
                    games.len()
                ),
            });
        }
        self.reset_where(Some(games), seed);
        Ok(())
    }

    /// Reset the games that `only` flags (every game for `None`).
    fn reset_where(&mut self, only: Option<&[bool]>, seed: Option<u64>) {
        let (rules, opening) = (self.rules, self.config.random_opening);
        self.for_each_chunk(&|games, rows| {
            for (i, game) in games.iter_mut().enumerate() {
                if only.is_some_and(|flags| !flags[rows.base + i]) {
                    continue;
                }
                let rng = &mut rows.rows.rngs[i].0;
                if let Some(seed) = seed {
                    *rng = ChaCha8Rng::seed_from_u64(seed);
                    // Streams are numbered by the game's place in the whole batch.
                    rng.set_stream(rows.base as u64 + i as u64);
                }
                game.state = random_opening(&rules, opening, rng);
                rows.rows.reset_next[i] = false;
                write_fresh(game, &mut rows.rows, i);
            }
        });
    }

    /// Play `actions[i]` in game `i`, for every game, writing the results into the buffers.
    ///
    /// Every action is checked before any game moves: an out-of-range or illegal action, or one
    /// for a game that has ended under [`AutoReset::Off`], is an error naming the game, and no
    /// game or buffer changes. Under `NextStep`, the actions of games being reset are ignored.
    pub fn step<A: ActionIndex>(&mut self, actions: &[A]) -> Result<(), Error> {
        // The legality scan runs on every thread; only a batch that fails it is checked again,
        // one game at a time, to name the first game at fault.
        if actions.len() != self.games.len() || !self.all_legal(actions) {
            self.check(actions)?;
        }
        let (rules, config) = (self.rules, self.config);
        self.for_each_chunk(&|games, rows| {
            let actions = &actions[rows.base..rows.base + games.len()];
            for (i, game) in games.iter_mut().enumerate() {
                prefetch(rows.rows.sown.get(i + AHEAD));
                step_game(&rules, &config, game, actions[i], &mut rows.rows, i);
            }
        });
        Ok(())
    }

    /// Whether every game that steps has a legal action (`actions` has one per game).
    fn all_legal<A: ActionIndex>(&mut self, actions: &[A]) -> bool {
        let illegal = AtomicBool::new(false);
        self.for_each_chunk(&|games, part| {
            let actions = &actions[part.base..part.base + games.len()];
            let resets = &part.rows.reset_next;
            let legal = games
                .iter()
                .zip(actions)
                .zip(resets.iter())
                .all(|((game, &a), &reset)| {
                    reset || a.to_action().is_some_and(|x| game.state.is_legal(x))
                });
            if !legal {
                illegal.store(true, Ordering::Relaxed);
            }
        });
        !illegal.load(Ordering::Relaxed)
    }

    fn check<A: ActionIndex>(&self, actions: &[A]) -> Result<(), Error> {
        if actions.len() != self.games.len() {
            return Err(Error::Batch {
                message: format!(
                    "expected {} actions, one per game, got {}",
                    self.games.len(),
                    actions.len()
                ),
            });
        }
        for (i, (game, &a)) in self.games.iter().zip(actions).enumerate() {
            if self.reset_next[i] {
                continue;
            }
            let at = |e: Error| Error::Batch {
                message: format!("game {i}: {e}"),
            };
            let action = a
                .to_action()
                .filter(|&x| x < self.rules.holes())
                .ok_or_else(|| {
                    at(Error::ActionOutOfRange {
                        action: a.raw(),
                        holes: self.rules.holes(),
                    })
                })?;
            if !game.state.is_legal(action) {
                return Err(at(game
                    .state
                    .check(action)
                    .expect_err("an illegal action fails its check")));
            }
        }
        Ok(())
    }

    /// Draw a uniformly random legal action for every game from its own stream into `out`; a game
    /// with no legal move (ended, under `NextStep` or `Off`) gets 0.
    pub fn sample_actions(&mut self, out: &mut [usize]) -> Result<(), Error> {
        if out.len() != self.games.len() {
            return Err(Error::Batch {
                message: format!(
                    "expected room for {} actions, got {}",
                    self.games.len(),
                    out.len()
                ),
            });
        }
        let out = SendPtr(out.as_mut_ptr());
        self.for_each_chunk(&|games, part| {
            // SAFETY: `out` has one slot per game (checked above) and each chunk alone takes the
            // slots of its games.
            let slots =
                unsafe { std::slice::from_raw_parts_mut(out.get().add(part.base), games.len()) };
            for ((game, rng), slot) in games.iter().zip(part.rows.rngs.iter_mut()).zip(slots) {
                *slot = random_action(&game.state, &mut rng.0).unwrap_or(0);
            }
        });
        Ok(())
    }

    /// Run `f` on disjoint chunks of the games and their buffer rows, on the pool's threads.
    fn for_each_chunk(&mut self, f: &(dyn Fn(&mut [Game], &mut Chunk<'_>) + Sync)) {
        let num = self.games.len();
        let chunk = match self.pool.threads() {
            1 => num,
            _ => CHUNK_GAMES,
        };
        let raw = RawBuffers {
            games: self.games.as_mut_ptr(),
            reset_next: self.reset_next.as_mut_ptr(),
            rngs: self.rngs.as_mut_ptr(),
            sown: self.sown.as_mut_ptr(),
            obs: self.observations.as_mut_ptr(),
            final_obs: self.final_observations.as_mut_ptr(),
            masks: self.masks.as_mut_ptr(),
            rewards: self.rewards.as_mut_ptr(),
            terminated: self.terminated.as_mut_ptr(),
            truncated: self.truncated.as_mut_ptr(),
            to_move: self.to_move.as_mut_ptr(),
            obs_len: self.rules.observation_len(),
            holes: self.rules.holes(),
        };
        self.pool.run(num.div_ceil(chunk), &|p| {
            let start = p * chunk;
            let end = ((p + 1) * chunk).min(num);
            // SAFETY: the buffers were made by `new` in standard layout and are borrowed mutably
            // by `self` for this call; chunk `p` alone takes games `start..end`, and the pool
            // runs each chunk once.
            let (games, rows) = unsafe { raw.rows(start, end) };
            f(games, &mut Chunk { base: start, rows });
        });
    }

    /// Number of games.
    pub fn num_envs(&self) -> usize {
        self.games.len()
    }
    /// The rules every game is played by.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// The configuration.
    pub fn config(&self) -> &VecConfig {
        &self.config
    }
    /// The state of game `i`.
    pub fn state(&self, i: usize) -> &State {
        &self.games[i].state
    }
    /// Observations, `num_envs x (2n + 2)`, relative to each game's player to move.
    pub fn observations(&self) -> ArrayView2<'_, f32> {
        self.observations.view()
    }
    /// Under `SameStep`: the observation of each game's final state, for rows whose game ended
    /// in the last step; other rows are stale.
    pub fn final_observations(&self) -> ArrayView2<'_, f32> {
        self.final_observations.view()
    }
    /// Legal-move masks, `num_envs x n`.
    pub fn masks(&self) -> ArrayView2<'_, bool> {
        self.masks.view()
    }
    /// Reward of the last move for the player who made it.
    pub fn rewards(&self) -> ArrayView1<'_, f32> {
        self.rewards.view()
    }
    /// Whether the last move ended the game by the rules.
    pub fn terminated(&self) -> ArrayView1<'_, bool> {
        self.terminated.view()
    }
    /// Whether the last move reached `max_plies`.
    pub fn truncated(&self) -> ArrayView1<'_, bool> {
        self.truncated.view()
    }
    /// The player to move in each game (0 South, 1 North), matching `observations`.
    pub fn to_move(&self) -> ArrayView1<'_, u8> {
        self.to_move.view()
    }
}

/// Games ahead whose kept sowings are fetched into cache while this one steps.
const AHEAD: usize = 4;

/// Ask for the cache lines that a step of a game reads from its kept sowings.
#[inline(always)]
fn prefetch(sown: Option<&SownMoves>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(sown) = sown {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = (sown as *const SownMoves).cast::<i8>();
        // SAFETY: prefetching reads nothing and cannot fault; the lines are within `sown`.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.add(64));
            _mm_prefetch::<_MM_HINT_T0>(p.add(128));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = sown;
}

/// One chunk of the batch: its games' rows, and where they start in the batch.
struct Chunk<'a> {
    base: usize,
    rows: Rows<'a>,
}

/// Write the rows of game `i` for a state that starts a game.
#[inline]
fn write_fresh(game: &Game, rows: &mut Rows<'_>, i: usize) {
    let s = &game.state;
    let (l, n) = (s.rules().observation_len(), s.holes());
    s.write_observation(&mut rows.obs[i * l..(i + 1) * l]);
    s.write_mask(&mut rows.masks[i * n..(i + 1) * n]);
    rows.rewards[i] = 0.0;
    rows.terminated[i] = false;
    rows.truncated[i] = false;
    rows.to_move[i] = s.to_move().index() as u8;
}

#[inline]
fn step_game<A: ActionIndex>(
    rules: &Rules,
    config: &VecConfig,
    game: &mut Game,
    action: A,
    rows: &mut Rows<'_>,
    i: usize,
) {
    if rows.reset_next[i] {
        game.state = random_opening(rules, config.random_opening, &mut rows.rngs[i].0);
        rows.reset_next[i] = false;
        write_fresh(game, rows, i);
        return;
    }
    let (l, n) = (rules.observation_len(), rules.holes());
    let mover = game.state.to_move();
    let action = action
        .to_action()
        .expect("actions are checked before stepping");
    let next = game.state.play_sown(action, &mut rows.sown[i]);
    game.state = next;
    let over = next.is_over();
    if !over {
        next.write_observation(&mut rows.obs[i * l..(i + 1) * l]);
        next.write_mask(&mut rows.masks[i * n..(i + 1) * n]);
        rows.rewards[i] = 0.0;
        rows.terminated[i] = false;
        rows.truncated[i] = false;
        rows.to_move[i] = next.to_move().index() as u8;
        return;
    }
    let reward = next.outcome().reward(mover);
    let (terminated, truncated) = (next.is_terminal(), next.is_truncated());
    match config.autoreset {
        AutoReset::SameStep => {
            next.write_observation(&mut rows.final_obs[i * l..(i + 1) * l]);
            game.state = random_opening(rules, config.random_opening, &mut rows.rngs[i].0);
            write_fresh(game, rows, i);
        }
        AutoReset::NextStep | AutoReset::Off => {
            next.write_observation(&mut rows.obs[i * l..(i + 1) * l]);
            next.write_mask(&mut rows.masks[i * n..(i + 1) * n]);
            rows.to_move[i] = next.to_move().index() as u8;
            rows.reset_next[i] = config.autoreset == AutoReset::NextStep;
        }
    }
    rows.rewards[i] = reward;
    rows.terminated[i] = terminated;
    rows.truncated[i] = truncated;
}
