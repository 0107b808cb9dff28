//! The command lines the README and docs/ show a user. Each must parse with today's grammar,
//! so a renamed or dropped flag cannot leave a guide that no longer runs. Only parsing: the
//! commands are not run (they train for minutes, or read files a reader makes first).

use super::cli_command;
use std::path::{Path, PathBuf};

/// A documented command: where it stands, and its words after `sowing`.
struct Shown {
    place: String,
    words: Vec<String>,
    /// A command to run as it stands (a code block's line), not a phrase of prose that names a
    /// subcommand and a flag or two (`sowing train --resume`) and may leave the rest out.
    whole: bool,
}

/// The guides: the README and every page of docs/.
fn guides() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    pages.insert(0, root.join("README.md"));
    pages
}

/// What follows `sowing ` (or `./target/release/sowing `) at the start of `text`.
fn after_sowing(text: &str) -> Option<&str> {
    text.strip_prefix("./target/release/sowing ")
        .or_else(|| text.strip_prefix("sowing "))
}

/// Shell words, as `sh` splits them: blanks separate, quotes group, `#` at a word's start
/// opens a comment. `None` while a quote is still open (the command goes on below).
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, '#') if word.is_none() => break,
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    words.extend(word);
    Some(words)
}

/// Every `sowing ...` command of `page`: each line of its code blocks (fenced or indented), its
/// `\` continuations and open quotes joined, and each inline code span of its prose, which may
/// run over a line's end. Synopses (`FILE|N`, `A,B,...`, `build|probe`, a `...` for flags said
/// above) are left out: they show a grammar, not a command; optional parts in brackets are kept,
/// brackets dropped, so `[--seed S]` must still be a real flag.
fn shown_in(page: &Path) -> Vec<Shown> {
    let text = std::fs::read_to_string(page).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let name = page.file_name().unwrap().to_string_lossy().to_string();
    let mut shown = Vec::new();
    let mut keep = |at: usize, mut words: Vec<String>, whole: bool| {
        // The shell's part ends at a pipe, a redirection or the next command.
        let shell = |w: &String| {
            ["|", "&&", ";", "<"].contains(&w.as_str()) || w.starts_with('>') || w.starts_with("2>")
        };
        if let Some(end) = words.iter().position(shell) {
            words.truncate(end);
        }
        let synopsis = words.iter().any(|w| {
            w.contains("...")
                || w.starts_with('<')
                || w.contains('|') && !w.starts_with('{') && !w.contains('"')
        });
        if synopsis {
            return;
        }
        let words = words
            .into_iter()
            .map(|w| w.trim_start_matches('[').trim_end_matches(']').to_string())
            .filter(|w| !w.is_empty())
            .collect();
        shown.push(Shown {
            place: format!("{name}:{at}"),
            words,
            whole,
        });
    };
    let mut fenced = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let at = i + 1;
        i += 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !(fenced || line.starts_with("    ")) {
            // Prose: a span whose closing backtick is on a later line takes those lines in.
            let mut prose = line.to_string();
            while prose.matches('`').count() % 2 == 1 {
                match lines.get(i) {
                    Some(next) if !next.trim().is_empty() && !next.starts_with("```") => {
                        prose.push(' ');
                        prose.push_str(next.trim());
                        i += 1;
                    }
                    _ => break,
                }
            }
            for span in prose.split('`').skip(1).step_by(2) {
                if let Some(words) = after_sowing(span.trim()).and_then(shell_words) {
                    keep(at, words, false);
                }
            }
            continue;
        }
        let Some(rest) = after_sowing(line.trim().trim_start_matches("$ ")) else {
            continue;
        };
        let mut command = rest.to_string();
        let words = loop {
            if let Some(open) = command.strip_suffix('\\') {
                command = open.to_string();
            } else if let Some(words) = shell_words(&command) {
                break words;
            }
            let Some(next) = lines.get(i) else {
                panic!("{name}:{at}: the command never ends");
            };
            command.push(' ');
            command.push_str(next.trim());
            i += 1;
        };
        keep(at, words, true);
    }
    shown
}

/// A value a guide leaves for the user to choose: `N`, `FILE`, `A,B`, `LOW-HIGH`, `<command>`.
fn placeholder(word: &str) -> bool {
    let angled = word.len() > 2 && word.starts_with('<') && word.ends_with('>');
    angled
        || word.split([',', '-']).all(|part| {
            part.starts_with(|c: char| c.is_ascii_uppercase())
                && part
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
}

/// An agent list with placeholders in it (`az:RUN:64,X`, `alphabeta:D`): a placeholder agent
/// becomes `random`, a placeholder field of one (a depth, a count) `4`; a run's path (`az:RUN`)
/// and an option's value (`tb=T`) read as given, since any text is one.
fn agents_with_values(list: &str) -> String {
    let agent = |spec: &str| {
        if placeholder(spec) {
            return "random".to_string();
        }
        let fields: Vec<&str> = spec.split(':').collect();
        let field = |(k, f): (usize, &&str)| match (k, fields[0]) {
            (1, "az") => f.to_string(),
            (k, _) if k > 0 && placeholder(f) => "4".to_string(),
            _ => f.to_string(),
        };
        fields
            .iter()
            .enumerate()
            .map(field)
            .collect::<Vec<_>>()
            .join(":")
    };
    list.split(',').map(agent).collect::<Vec<_>>().join(",")
}

/// `words` with each placeholder after a flag replaced by a value that flag accepts, so a
/// synopsis (`--seed S --agents A,B`) is checked for its flags and everything else in it. In
/// prose, a flag named last without its value (`sowing train --resume`) is given one too. An
/// error names a flag the subcommand does not have, or a placeholder none of the samples fit.
fn with_values_for_placeholders(words: &[String], prose: bool) -> Result<Vec<String>, String> {
    let mut command = cli_command();
    let mut path = vec!["sowing".to_string()];
    for word in words {
        match command.find_subcommand(word) {
            Some(sub) => command = sub.clone(),
            None => break,
        }
        path.push(word.clone());
    }
    let mut words = words.to_vec();
    if let Some(flag) = words.last().and_then(|w| w.strip_prefix("--"))
        && prose
        && command
            .get_arguments()
            .any(|a| a.get_long() == Some(flag) && a.get_action().takes_values())
    {
        words.push("VALUE".to_string());
    }
    let samples = ["1", "random,greedy", "en-dodoi-6", "10-40", "x"];
    for i in 1..words.len() {
        let Some(flag) = words[i - 1].strip_prefix("--") else {
            continue;
        };
        if !command.get_arguments().any(|a| a.get_long() == Some(flag)) {
            return Err(format!("`{}` has no flag --{flag}", command.get_name()));
        }
        if matches!(flag, "agents" | "opponent") && !placeholder(&words[i]) {
            words[i] = agents_with_values(&words[i]);
            continue;
        }
        if !placeholder(&words[i]) {
            continue;
        }
        // The flag alone with the sample: any error but its value's (a required flag
        // missing, say) is the other words' business.
        let fits = |v: &&&str| {
            let argv = path
                .iter()
                .cloned()
                .chain([words[i - 1].clone(), v.to_string()]);
            cli_command()
                .try_get_matches_from(argv)
                .err()
                .is_none_or(|e| {
                    use clap::error::ErrorKind::{InvalidValue, ValueValidation};
                    !matches!(e.kind(), InvalidValue | ValueValidation)
                })
        };
        let value = samples
            .iter()
            .find(fits)
            .ok_or_else(|| format!("no sample value fits --{flag}"))?;
        words[i] = value.to_string();
    }
    Ok(words)
}

/// Commands the guides show that are not this grammar's, on purpose, and why.
const NOT_OURS: [(&str, &str); 1] = [(
    "traps=",
    "an option of the unmerged branch experiment/traps (docs/strength.md tells that history)",
)];

#[test]
fn every_command_the_guides_show_parses() {
    let shown: Vec<Shown> = guides().iter().flat_map(|p| shown_in(p)).collect();
    let has = |s: &Shown, key: &str| s.words.iter().any(|w| w.contains(key));
    // Each exception must still be needed, or it would hide a command for nothing.
    for (key, why) in NOT_OURS {
        assert!(
            shown.iter().any(|s| has(s, key)),
            "no guide shows {key} ({why}) any more"
        );
    }
    let shown: Vec<Shown> = shown
        .into_iter()
        .filter(|s| !NOT_OURS.iter().any(|(key, _)| has(s, key)))
        .collect();
    // About a hundred in code blocks and two hundred in prose; a count this low means the reader
    // went blind.
    let whole = shown.iter().filter(|s| s.whole).count();
    assert!(
        whole > 80 && shown.len() - whole > 150,
        "only {whole} and {} commands found",
        shown.len() - whole
    );
    let broken: Vec<String> = shown
        .iter()
        .filter_map(|s| {
            let failed = |why: String| {
                let first = why.lines().next().unwrap_or("").to_string();
                format!("{}: sowing {}\n    {first}", s.place, s.words.join(" "))
            };
            let words = match with_values_for_placeholders(&s.words, !s.whole) {
                Ok(words) => words,
                Err(why) => return Some(failed(why)),
            };
            let argv = std::iter::once("sowing".to_string()).chain(words);
            let error = cli_command().try_get_matches_from(argv).err()?;
            use clap::error::ErrorKind::*;
            let in_prose_fine = matches!(
                error.kind(),
                MissingRequiredArgument
                    | MissingSubcommand
                    | DisplayHelpOnMissingArgumentOrSubcommand
                    | DisplayHelp
            );
            (s.whole || !in_prose_fine).then(|| failed(error.to_string()))
        })
        .collect();
    assert!(
        broken.is_empty(),
        "commands that no longer parse:\n{}",
        broken.join("\n")
    );
}

#[test]
fn placeholders_take_a_value_their_flag_accepts_and_unknown_flags_are_named() {
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    assert_eq!(
        with_values_for_placeholders(&words("match --agents A,B --to N --variant V"), false)
            .unwrap(),
        words("match --agents random,greedy --to 1 --variant 1")
    );
    assert_eq!(
        with_values_for_placeholders(&words("tablebase build --max-seeds K"), false).unwrap(),
        words("tablebase build --max-seeds 1")
    );
    let err = with_values_for_placeholders(&words("arena --speed N"), false).unwrap_err();
    assert!(err.contains("arena") && err.contains("--speed"), "{err}");
    // Prose names a flag without its value; a code block may not.
    assert_eq!(
        with_values_for_placeholders(&words("train --resume"), true).unwrap(),
        words("train --resume 1")
    );
    assert_eq!(
        with_values_for_placeholders(&words("train --resume"), false).unwrap(),
        words("train --resume")
    );
    assert_eq!(
        agents_with_values("az:RUN:64,X,alphabeta:D,az:RUN:50ms:tb=T"),
        "az:RUN:64,random,alphabeta:4,az:RUN:50ms:tb=T"
    );
    assert!(placeholder("FILE") && placeholder("A,B") && placeholder("TB2"));
    assert!(placeholder("LOW-HIGH") && placeholder("<command>"));
    assert!(!placeholder("en-dodoi-6") && !placeholder("200") && !placeholder("az:RUN"));
}

#[test]
fn shell_words_group_quotes_and_stop_at_comments() {
    assert_eq!(
        shell_words(r#"probe --state '{"a": 1}' # why"#).unwrap(),
        ["probe", "--state", r#"{"a": 1}"#]
    );
    assert_eq!(shell_words("a b#c").unwrap(), ["a", "b#c"]);
    assert_eq!(shell_words("x ''").unwrap(), ["x", ""]);
    assert!(shell_words("probe '{\"a\":").is_none());
}

/// The reader finds commands where a guide puts them, and only there.
#[test]
fn the_reader_takes_code_and_spans_and_leaves_plain_prose_and_synopses() {
    let dir = std::env::temp_dir().join(format!("sowing-guides-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("page.md");
    std::fs::write(
        &page,
        "sowing arena in plain prose is not a command\n\n```sh\nsowing arena --variant en-dodoi-6 \\\n  --games 2 [--json]  # note\nsowing accuracy --positions FILE|N\nsowing variants --json | head -1\nsowing tablebase probe --state '{\"a\":\n  1}'\n```\n\n    sowing bench\n\nA span, `sowing train\n--resume`, may run over a line; `sowing <command> --help` is a synopsis.\n",
    )
    .unwrap();
    let shown = shown_in(&page);
    std::fs::remove_dir_all(&dir).unwrap();
    let found: Vec<(String, bool)> = shown.iter().map(|s| (s.words.join(" "), s.whole)).collect();
    let expected = [
        ("arena --variant en-dodoi-6 --games 2 --json", true),
        ("variants --json", true),
        ("tablebase probe --state {\"a\": 1}", true),
        ("bench", true),
        ("train --resume", false),
    ];
    assert_eq!(found, expected.map(|(w, whole)| (w.to_string(), whole)));
    assert_eq!(shown[0].place, "page.md:4");
    assert_eq!(shown[4].place, "page.md:14");
}
