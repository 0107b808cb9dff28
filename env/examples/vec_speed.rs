//! VecEnv stepping speed with uniformly random actions, for profiling: `cargo run --release
//! --example vec_speed -p sowing-env -- [variant] [num_envs] [threads] [steps]`.
use sowing_env::{Rules, VecConfig, VecEnv};

fn main() {
    let mut args = std::env::args().skip(1);
    let variant = args.next().unwrap_or_else(|| "en-dodoi-8".into());
    let num: usize = args
        .next()
        .map_or(4096, |v| v.parse().expect("num_envs is a number"));
    let threads: usize = args
        .next()
        .map_or(0, |v| v.parse().expect("threads is a number"));
    let steps: usize = args
        .next()
        .map_or(200, |v| v.parse().expect("steps is a number"));
    let rules = Rules::preset(&variant).expect("a preset name");
    let config = VecConfig {
        threads,
        ..VecConfig::default()
    };
    let mut env = VecEnv::new(&rules, num, 1, config).expect("a valid batch");
    let mut actions = vec![0usize; num];
    let start = std::time::Instant::now();
    for _ in 0..steps {
        env.sample_actions(&mut actions)
            .expect("one action per game");
        env.step(&actions).expect("sampled actions are legal");
    }
    let secs = start.elapsed().as_secs_f64();
    let total = (num * steps) as f64;
    println!(
        "{variant}: {num} games x {steps} steps, threads {threads}: {:.2} M steps/s",
        total / secs / 1e6
    );
}
