//! The Rust examples of the README and docs/rust-api.md, run. Each lives here once, between
//! `// shown in PAGE` and `// end`, and the page's ```rust block must be that text to the letter:
//! the example a reader copies is the one these tests run.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The ```rust blocks of a page, in order.
fn rust_blocks(page: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(page)).unwrap();
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in text.lines() {
        match (&mut open, line.trim_end()) {
            (None, "```rust") => open = Some(String::new()),
            (Some(_), "```") => blocks.extend(open.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(open.is_none(), "{page}: a ```rust block is never closed");
    blocks
}

/// The text of this file between `// shown in {page}` and the next `// end`, one indent less.
fn shown_here(page: &str) -> String {
    let me = std::fs::read_to_string(root().join("env/tests/guide_examples.rs")).unwrap();
    let start = format!("// shown in {page}\n");
    let from = me
        .find(&start)
        .unwrap_or_else(|| panic!("no example marked for {page}"));
    let body = &me[from + start.len()..];
    let body = &body[..body
        .find("    // end\n")
        .expect("an example without its end")];
    body.lines()
        .map(|l| l.strip_prefix("    ").unwrap_or(l).to_string() + "\n")
        .collect()
}

// As the page shows it, aligned comments and all.
#[rustfmt::skip]
#[test]
fn readme_example() -> Result<(), Box<dyn std::error::Error>> {
    // shown in README.md
    use sowing_env::{Player, Rules, State};

    let rules = Rules::preset("en-dodoi-8")?;
    let start = State::initial(&rules);                   // small and Copy
    let (next, info) = start.play_with_info(7)?;          // checked: Err for an illegal move
    assert_eq!((info.laps, info.sown, info.captured), (5, 25, 7));
    assert_eq!(next.captured(Player::South), 7);
    // end
    Ok(())
}

#[rustfmt::skip]
#[test]
fn rust_api_example() -> Result<(), Box<dyn std::error::Error>> {
    // shown in docs/rust-api.md
    use sowing_env::{Player, Rules, State, VecConfig, VecEnv, random_action};
    use rand::SeedableRng;

    let rules = Rules::preset("en-dodoi-8")?;            // or Rules::from_toml / from_json
    let start = State::initial(&rules);                   // small and Copy
    let (next, info) = start.play_with_info(7)?;          // checked: Err for an illegal move
    assert_eq!((info.laps, info.sown, info.captured), (5, 25, 7));
    assert_eq!(next.captured(Player::South), 7);
    assert_eq!(next.legal_mask(), 0b0111_1011);           // bit a: action a is legal
    println!("{}", next.render());

    // A random game to the end.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut s = start;
    while let Some(a) = random_action(&s, &mut rng) {
        s = s.play_unchecked(a);                          // for loops over legal actions
    }
    println!("{}", s.outcome());                          // e.g. "North wins", or "truncated"

    // 1024 games stepped together on every core into preallocated buffers.
    let mut env = VecEnv::new(&rules, 1024, 42, VecConfig::default())?;
    let mut actions = vec![0usize; 1024];
    env.sample_actions(&mut actions)?;                    // or your policy's choices
    env.step(&actions)?;
    assert_eq!(env.observations().dim(), (1024, 18));    // and masks(), rewards(), terminated(), ...
    // end
    Ok(())
}

#[test]
fn the_pages_show_the_examples_run_here() {
    for page in ["README.md", "docs/rust-api.md"] {
        let blocks = rust_blocks(page);
        assert_eq!(
            blocks.len(),
            1,
            "{page}: one ```rust block expected, found {}",
            blocks.len()
        );
        assert_eq!(
            blocks[0],
            shown_here(page),
            "{page}'s example differs from the one env/tests/guide_examples.rs runs: change both"
        );
    }
}
