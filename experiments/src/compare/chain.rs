//! Skill chains: the longest sequence of agents of rising budget in which each beats the one
//! before it, a measure of how much depth a game has for search to find (after Lantz et al.,
//! "Depth in strategic games", 2017). More levels: a deeper game.

use sowing_eval::stats::Rate;

/// The longest chain through levels `0..levels` (ordered by budget), where level `j` may follow
/// level `i < j` when `score(i, j)`, the score of `j` against `i`, is measured and at least
/// `threshold`. Returns the levels of the chain, weakest first: a single level when no pair
/// qualifies, empty when there are no levels. Ties go to the chain that starts and steps lowest.
pub fn longest_chain(
    levels: usize,
    threshold: f64,
    score: impl Fn(usize, usize) -> Option<f64>,
) -> Vec<usize> {
    if levels == 0 {
        return Vec::new();
    }
    // best[j]: the longest chain ending at j, and the level before j on it.
    let mut best: Vec<(usize, Option<usize>)> = vec![(1, None); levels];
    for j in 0..levels {
        for i in 0..j {
            if score(i, j).is_some_and(|s| s >= threshold) && best[i].0 + 1 > best[j].0 {
                best[j] = (best[i].0 + 1, Some(i));
            }
        }
    }
    let mut end = 0;
    for j in 1..levels {
        if best[j].0 > best[end].0 {
            end = j;
        }
    }
    let mut chain = vec![end];
    while let Some(prev) = best[*chain.last().expect("never empty")].1 {
        chain.push(prev);
    }
    chain.reverse();
    chain
}

/// The measured score of every played pair of a family, as `(weaker, stronger, score of the
/// stronger)`.
pub type Scores = Vec<(usize, usize, Rate)>;

/// The chain with each step judged on its point estimate, and the chain with each step judged on
/// the lower end of its 95% interval (a chain every step of which is sure).
pub fn chains(levels: usize, threshold: f64, scores: &Scores) -> (Vec<usize>, Vec<usize>) {
    let find = |i: usize, j: usize| scores.iter().find(|(a, b, _)| (*a, *b) == (i, j));
    let point = longest_chain(levels, threshold, |i, j| find(i, j)?.2.value());
    let sure = longest_chain(levels, threshold, |i, j| Some(find(i, j)?.2.wilson()?.0));
    (point, sure)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix<'a>(m: &'a [&'a [f64]]) -> impl Fn(usize, usize) -> Option<f64> + 'a {
        // m[j][i]: score of j against i; negative means not measured.
        move |i, j| {
            let s = m[j][i];
            (s >= 0.0).then_some(s)
        }
    }

    #[test]
    fn every_step_beating_the_last_makes_a_full_chain() {
        let m: &[&[f64]] = &[&[], &[0.7], &[0.9, 0.65], &[0.95, 0.9, 0.61]];
        assert_eq!(longest_chain(4, 0.6, matrix(m)), vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_chain_may_skip_a_level_that_is_no_better() {
        // 1 barely differs from 0 and 2 barely from 1, but 2 beats 0 and 3 beats 2.
        let m: &[&[f64]] = &[&[], &[0.55], &[0.7, 0.52], &[0.8, 0.75, 0.66]];
        assert_eq!(longest_chain(4, 0.6, matrix(m)), vec![0, 2, 3]);
    }

    #[test]
    fn no_step_at_all_is_a_chain_of_one() {
        let m: &[&[f64]] = &[&[], &[0.5], &[0.4, 0.5]];
        assert_eq!(longest_chain(3, 0.6, matrix(m)), vec![0]);
        assert_eq!(longest_chain(0, 0.6, |_, _| None), Vec::<usize>::new());
        assert_eq!(longest_chain(1, 0.6, |_, _| Some(1.0)), vec![0]);
    }

    #[test]
    fn unmeasured_pairs_are_no_steps_and_the_threshold_is_inclusive() {
        let m: &[&[f64]] = &[&[], &[0.6], &[-1.0, -1.0], &[-1.0, -1.0, 0.9]];
        // 0 -> 1 (exactly 0.6), and separately 2 -> 3: two chains of two; the lower one wins.
        assert_eq!(longest_chain(4, 0.6, matrix(m)), vec![0, 1]);
    }

    #[test]
    fn the_longest_chain_may_start_above_the_weakest_level() {
        let m: &[&[f64]] = &[&[], &[0.5], &[0.5, 0.7], &[0.5, 0.5, 0.8]];
        assert_eq!(longest_chain(4, 0.6, matrix(m)), vec![1, 2, 3]);
    }

    #[test]
    fn the_sure_chain_needs_the_whole_interval_above_the_threshold() {
        // 7 of 10 is above 0.6, but its interval reaches down to 0.40; 95 of 100 is sure.
        let scores: Scores = vec![(0, 1, Rate::new(7.0, 10)), (1, 2, Rate::new(95.0, 100))];
        let (point, sure) = chains(3, 0.6, &scores);
        assert_eq!(point, vec![0, 1, 2]);
        assert_eq!(sure, vec![1, 2]);
    }
}
