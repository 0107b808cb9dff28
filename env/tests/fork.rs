//! A process forked after a `VecEnv` has stepped on several threads (Python's default `fork` start
//! method does this) has none of its worker threads: the child must still step the batch, and
//! get what the parent gets. Alone in its own test binary, so that no other test's thread is
//! running when the process forks.

use sowing_env::{Rules, VecConfig, VecEnv};
use std::hash::{DefaultHasher, Hash, Hasher};

/// Step `env` with its own random actions `steps` times; a digest of every game's state after.
fn play(env: &mut VecEnv, steps: usize) -> u64 {
    let mut actions = vec![0usize; env.num_envs()];
    for _ in 0..steps {
        env.sample_actions(&mut actions).expect("one per game");
        env.step(&actions).expect("sampled actions are legal");
    }
    let mut h = DefaultHasher::new();
    for i in 0..env.num_envs() {
        env.state(i).hash(&mut h);
    }
    env.observations()
        .iter()
        .for_each(|x| x.to_bits().hash(&mut h));
    h.finish()
}

#[test]
fn a_forked_child_steps_a_batch_that_stepped_on_threads_before_the_fork() {
    let rules = Rules::preset("en-dodoi-8").unwrap();
    let config = VecConfig {
        threads: 3,
        ..VecConfig::default()
    };
    // 1024 games: the batch is stepped in chunks on all three threads.
    let mut env = VecEnv::new(&rules, 1024, 11, config).unwrap();
    play(&mut env, 5);

    let mut fds = [0; 2];
    // SAFETY: plain system calls; the child only steps the batch, writes to the pipe and exits
    // with `_exit`, which runs no destructor or exit handler of the parent's.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0, "pipe");
        let pid = libc::fork();
        assert!(pid >= 0, "fork");
        if pid == 0 {
            let digest = play(&mut env, 30).to_le_bytes();
            let wrote = libc::write(fds[1], digest.as_ptr().cast(), digest.len());
            libc::_exit(if wrote == 8 { 0 } else { 1 });
        }
        libc::close(fds[1]);
        let expected = play(&mut env, 30);

        // Before the fix the child hung for ever on its first step: wait a minute at most.
        let mut poll = libc::pollfd {
            fd: fds[0],
            events: libc::POLLIN,
            revents: 0,
        };
        let ready = libc::poll(&mut poll, 1, 60_000);
        if ready != 1 {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
            panic!("the forked child did not step its batch within a minute");
        }
        let mut digest = [0u8; 8];
        let read = libc::read(fds[0], digest.as_mut_ptr().cast(), digest.len());
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "the child failed: status {status}"
        );
        assert_eq!(read, 8, "the child's digest");
        assert_eq!(
            u64::from_le_bytes(digest),
            expected,
            "the child stepped the batch as the parent did"
        );
    }
}
