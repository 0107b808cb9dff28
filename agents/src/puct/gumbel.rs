//! Gumbel AlphaZero's root for self-play (Danihelka, Guez, Schrittwieser and Silver, "Policy
//! improvement by planning with Gumbel", ICLR 2022): the root samples actions without
//! replacement by Gumbel-top-k, shares its simulations among them by sequential halving, and
//! teaches the network the *improved policy* `softmax(logits + sigma(completed Q))` instead of
//! the visit counts. Below the root the search stays PUCT.
//!
//! Why: at 64 simulations and a low c_puct the visit counts follow the priors closely, so the
//! policy target repeats what the network already says; the completed-Q target moves it towards
//! the moves the search found better, whatever the visits (docs/training-results.md measures
//! both).
//!
//! Everything here is per root and allocation-free: the children's statistics come in as
//! slices in child order.

use serde::{Deserialize, Serialize};
use sowing_env::MAX_HOLES;

/// How the Gumbel root searches and what it teaches.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GumbelConfig {
    /// Most actions sequential halving considers (the Gumbel-top-k of the priors); all legal
    /// moves when there are fewer.
    pub considered: u32,
    /// `c_visit` of `sigma(q) = (c_visit + max visits) * c_scale * q`, with q rescaled to [0, 1].
    pub c_visit: f32,
    /// `c_scale` of the same.
    pub c_scale: f32,
}

impl Default for GumbelConfig {
    /// mctx's defaults: 16 considered actions, c_visit 50, c_scale 0.1.
    fn default() -> GumbelConfig {
        GumbelConfig {
            considered: 16,
            c_visit: 50.0,
            c_scale: 0.1,
        }
    }
}

/// The schedule of sequential halving: for each of `budget` simulations in turn, how many
/// visits the root action it goes to must already have. With `considered` actions, each phase
/// (`ceil(log2 considered)` of them) gives every action still in play the same number of
/// visits, then keeps the better half (at least two); the last phase runs until the budget is
/// spent. Choosing, at simulation `s`, the best-scored action whose visits equal `schedule[s]`
/// carries the halving out without keeping any other state.
pub fn halving_schedule(considered: usize, budget: usize) -> Vec<u32> {
    if considered <= 1 {
        return (0..budget as u32).collect();
    }
    let phases = considered.next_power_of_two().trailing_zeros() as usize;
    let mut schedule = Vec::with_capacity(budget);
    let mut visits = vec![0u32; considered];
    let mut in_play = considered;
    while schedule.len() < budget {
        let extra = (budget / (phases * in_play)).max(1);
        for _ in 0..extra {
            schedule.extend_from_slice(&visits[..in_play]);
            for v in &mut visits[..in_play] {
                *v += 1;
            }
        }
        in_play = (in_play / 2).max(2);
    }
    schedule.truncate(budget);
    schedule
}

/// A root's children, in child order: prior, visits, and mean value for the root's mover
/// (meaningless while unvisited).
#[derive(Clone, Copy, Debug)]
pub struct RootChildren<'a> {
    /// The network's prior of each child's action.
    pub priors: &'a [f32],
    /// Visits of each child.
    pub visits: &'a [u32],
    /// Mean value of each child for the root's mover.
    pub q: &'a [f32],
    /// The network's own value of the root, for its mover.
    pub root_value: f32,
}

/// A prior as a logit: the log, with zero priors (moves a table proves worse) far below the rest
/// but finite.
fn logit(prior: f32) -> f32 {
    prior.max(1e-30).ln()
}

impl RootChildren<'_> {
    fn len(&self) -> usize {
        self.priors.len()
    }

    /// `sigma(completed Q)` of each child: a visited child's own mean value, an unvisited one's
    /// the mixed value (the root's network value averaged with the visited children's values
    /// weighted by their priors), rescaled to [0, 1] over the children and scaled by the visits.
    pub fn sigma(&self, config: &GumbelConfig) -> [f32; MAX_HOLES] {
        let n = self.len();
        let total: u32 = self.visits.iter().sum();
        let max_visits = self.visits.iter().copied().max().unwrap_or(0);
        let (mut weight, mut weighted_q) = (0.0f32, 0.0f32);
        for c in (0..n).filter(|&c| self.visits[c] > 0) {
            let p = self.priors[c].max(f32::MIN_POSITIVE);
            weight += p;
            weighted_q += p * self.q[c];
        }
        let mixed = if total == 0 || weight <= 0.0 {
            self.root_value
        } else {
            (self.root_value + total as f32 * weighted_q / weight) / (total as f32 + 1.0)
        };
        let mut completed = [0.0f32; MAX_HOLES];
        for (slot, (&v, &q)) in completed.iter_mut().zip(self.visits.iter().zip(self.q)) {
            *slot = if v > 0 { q } else { mixed };
        }
        let low = completed[..n].iter().copied().fold(f32::INFINITY, f32::min);
        let high = completed[..n]
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        let span = (high - low).max(1e-8);
        let scale = (config.c_visit + max_visits as f32) * config.c_scale;
        let mut sigma = [0.0f32; MAX_HOLES];
        for (s, &q) in sigma.iter_mut().zip(&completed[..n]) {
            *s = scale * (q - low) / span;
        }
        sigma
    }

    /// The child that simulation `s` visits: among the children whose visits equal
    /// `schedule[s]` (the ones still in play at this point of the halving), the one with the
    /// highest `gumbel + logit + sigma`. `gumbel` is in child order.
    pub fn select(&self, gumbel: &[f32], schedule: &[u32], config: &GumbelConfig) -> usize {
        let s: u32 = self.visits.iter().sum();
        // Past the schedule (it cannot happen in a fresh tree) the most visited are in play.
        let wanted = schedule
            .get(s as usize)
            .copied()
            .unwrap_or_else(|| self.visits.iter().copied().max().unwrap_or(0));
        self.best_with_visits(gumbel, wanted, config)
    }

    /// The action the search plays: the best-scored of the most visited children (the winner
    /// of the halving).
    pub fn winner(&self, gumbel: &[f32], config: &GumbelConfig) -> usize {
        let most = self.visits.iter().copied().max().unwrap_or(0);
        self.best_with_visits(gumbel, most, config)
    }

    fn best_with_visits(&self, gumbel: &[f32], wanted: u32, config: &GumbelConfig) -> usize {
        let sigma = self.sigma(config);
        let score = |c: usize| gumbel[c] + logit(self.priors[c]) + sigma[c];
        let mut best: Option<usize> = None;
        for c in (0..self.len()).filter(|&c| self.visits[c] == wanted) {
            if best.is_none_or(|b| score(c) > score(b)) {
                best = Some(c);
            }
        }
        // No child with those visits (only past the schedule): the best-scored of all.
        best.unwrap_or_else(|| {
            (0..self.len())
                .max_by(|&a, &b| score(a).total_cmp(&score(b)))
                .unwrap_or(0)
        })
    }

    /// The improved policy, in child order: `softmax(logit + sigma(completed Q))`.
    pub fn improved_policy(&self, config: &GumbelConfig) -> [f32; MAX_HOLES] {
        let n = self.len();
        let sigma = self.sigma(config);
        let mut policy = [0.0f32; MAX_HOLES];
        let top = (0..n)
            .map(|c| logit(self.priors[c]) + sigma[c])
            .fold(f32::NEG_INFINITY, f32::max);
        let mut total = 0.0f32;
        for c in 0..n {
            policy[c] = (logit(self.priors[c]) + sigma[c] - top).exp();
            total += policy[c];
        }
        for p in &mut policy[..n] {
            *p /= total;
        }
        policy
    }
}

/// A standard Gumbel draw from a uniform one in [0, 1).
pub fn gumbel_from_uniform(u: f64) -> f32 {
    let u = u.clamp(1e-12, 1.0 - 1e-12);
    (-(-u.ln()).ln()) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_shares_the_budget_in_phases_that_keep_the_better_half() {
        // Four actions, 14 simulations, two phases: each of the 4 gets 14 / (2 * 4) = 1 visit,
        // then the better 2 get 14 / (2 * 2) = 3 rounds, and so on until the budget is spent.
        assert_eq!(
            halving_schedule(4, 14),
            vec![0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        );
        // 16 simulations over 4: 2 rounds of 4, then the better 2 get 4 each, and on.
        let s = halving_schedule(4, 16);
        assert_eq!(&s[..8], &[0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(&s[8..12], &[2, 2, 3, 3]);
        // One action takes every simulation; the length is always the budget.
        assert_eq!(halving_schedule(1, 5), vec![0, 1, 2, 3, 4]);
        for (m, n) in [(2, 1), (3, 7), (6, 63), (8, 200), (16, 31)] {
            assert_eq!(
                halving_schedule(m, n).len(),
                n,
                "{m} actions, {n} simulations"
            );
        }
    }

    /// Children of a root whose own value is 0.
    fn no_root_value<'a>(priors: &'a [f32], visits: &'a [u32], q: &'a [f32]) -> RootChildren<'a> {
        RootChildren {
            priors,
            visits,
            q,
            root_value: 0.0,
        }
    }

    #[test]
    fn the_halving_keeps_the_action_whose_value_is_best() {
        // Three children with equal priors and no noise; child 2 is worth most to the mover.
        let config = GumbelConfig::default();
        let values = [-0.5f32, 0.1, 0.6];
        let priors = [1.0f32 / 3.0; 3];
        let gumbel = [0.0f32; 3];
        let schedule = halving_schedule(3, 31);
        let (mut visits, mut sums) = ([0u32; 3], [0.0f32; 3]);
        let means = |visits: &[u32; 3], sums: &[f32; 3]| -> [f32; 3] {
            std::array::from_fn(|c| sums[c] / visits[c].max(1) as f32)
        };
        for _ in 0..31 {
            let q = means(&visits, &sums);
            let c = no_root_value(&priors, &visits, &q).select(&gumbel, &schedule, &config);
            visits[c] += 1;
            sums[c] += values[c];
        }
        let q = means(&visits, &sums);
        let children = no_root_value(&priors, &visits, &q);
        assert_eq!(children.winner(&gumbel, &config), 2);
        // The worst action drops out after the first phase; the last two share the rest.
        assert_eq!(visits, [5, 13, 13]);
        // The improved policy prefers the better moves, in order, though the priors are equal.
        let policy = children.improved_policy(&config);
        assert!(policy[2] > policy[1] && policy[1] > policy[0], "{policy:?}");
        assert!((policy[..3].iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn unvisited_children_take_the_mixed_value_and_a_zero_prior_stays_out_of_the_policy() {
        let config = GumbelConfig::default();
        // Child 0 visited (value 1.0 for the mover), 1 and 2 unvisited; root value -1.
        let children = RootChildren {
            priors: &[0.5, 0.5, 0.0],
            visits: &[1, 0, 0],
            q: &[1.0, 0.0, 0.0],
            root_value: -1.0,
        };
        let sigma = children.sigma(&config);
        // Mixed value (-1 + 1 * 1.0) / 2 = 0: the unvisited children share it, the lowest.
        assert_eq!(sigma[1], 0.0);
        assert_eq!(sigma[2], 0.0);
        assert!((sigma[0] - (50.0 + 1.0) * 0.1).abs() < 1e-5);
        let policy = children.improved_policy(&config);
        assert!(policy[0] > 0.99 && policy[2] < 1e-20, "{policy:?}");
        // No visits at all: the policy is the priors.
        let fresh = RootChildren {
            priors: &[0.2, 0.8],
            visits: &[0, 0],
            q: &[0.0, 0.0],
            root_value: 0.3,
        };
        let p = fresh.improved_policy(&config);
        assert!((p[0] - 0.2).abs() < 1e-6 && (p[1] - 0.8).abs() < 1e-6);
    }

    #[test]
    fn gumbel_draws_are_finite_with_the_right_mean() {
        assert!(gumbel_from_uniform(0.0).is_finite() && gumbel_from_uniform(1.0).is_finite());
        let n = 10_000;
        let mean: f32 = (0..n)
            .map(|i| gumbel_from_uniform((i as f64 + 0.5) / n as f64))
            .sum::<f32>()
            / n as f32;
        // The Euler-Mascheroni constant.
        assert!((mean - 0.5772).abs() < 0.01, "{mean}");
    }
}
