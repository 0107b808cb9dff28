//! `--variant V` (a preset, or `all` where a command takes several) and `--rules FILE`, as the
//! `replay`, `random` and `bench` commands take them.

use sowing_env::{Preset, Rules, State};
use std::path::{Path, PathBuf};

/// Which rules to play.
#[derive(Debug, clap::Args)]
pub struct VariantArgs {
    /// Preset to play (see `sowing variants`), or `all` for every preset where the command
    /// takes several. Default: `en-dodoi-8` (`en-dodoi-6` for `solve`), `all` for `random` and
    /// `bench`.
    #[arg(long)]
    pub variant: Option<String>,
    /// Rules file to play instead of a preset: JSON, or TOML when its name ends in `.toml` (in
    /// any case).
    #[arg(long, value_name = "FILE", conflicts_with = "variant")]
    pub rules: Option<PathBuf>,
}

/// Rules with the name they are shown under.
#[derive(Clone, Debug)]
pub struct Named {
    pub name: String,
    pub rules: Rules,
}

impl VariantArgs {
    /// The one rule set asked for (`default` if none is named); `all` is refused.
    pub fn one(&self, default: &str) -> Result<Named, String> {
        if let Some(path) = &self.rules {
            return read_rules(path);
        }
        match self.variant.as_deref().unwrap_or(default) {
            "all" => Err("this command plays one variant: give a preset name, not `all`".into()),
            name => preset(name),
        }
    }

    /// Every rule set asked for (`default` if none is named): `all` is every preset but the
    /// alias `en-dodoi` (the same rules as `en-dodoi-8`).
    pub fn many(&self, default: &str) -> Result<Vec<Named>, String> {
        if self.rules.is_some() || self.variant.as_deref().unwrap_or(default) != "all" {
            return Ok(vec![self.one(default)?]);
        }
        Preset::ALL
            .iter()
            .filter(|p| p.alias_of.is_none())
            .map(|p| preset(p.name))
            .collect()
    }

    /// [`many`](Self::many), each refused when its start has no legal move
    /// ([`Named::playable`]): for the commands that play games.
    pub fn many_playable(&self, default: &str) -> Result<Vec<Named>, String> {
        self.many(default)?
            .into_iter()
            .map(Named::playable)
            .collect()
    }
}

impl Named {
    /// These rules, refused when their start has no legal move (a rules file with a tiny
    /// `max_laps`, say): every game would be over before it began.
    pub fn playable(self) -> Result<Named, String> {
        sowing_eval::matches::playable(&self.rules).map_err(|e| format!("{}: {e}", self.name))?;
        Ok(self)
    }
}

fn preset(name: &str) -> Result<Named, String> {
    let rules = Rules::preset(name).map_err(|e| e.to_string())?;
    Ok(Named {
        name: name.to_string(),
        rules,
    })
}

/// The rules in `path`, named after the file (see [`sowing_env::read_rules_file`]).
pub fn read_rules(path: &Path) -> Result<Named, String> {
    let (name, rules) = sowing_env::read_rules_file(path)?;
    Ok(Named { name, rules })
}

/// The position `moves` (actions from the start, as `--moves` gives them) reach under `rules`;
/// an illegal one is named by its number, its mover and its action.
pub fn after_moves(rules: &Rules, moves: &[usize]) -> Result<State, String> {
    let mut state = State::initial(rules);
    for (i, &a) in moves.iter().enumerate() {
        let mover = state.to_move();
        state = state
            .play(a)
            .map_err(|e| format!("move {} ({mover}, action {a}): {e}", i + 1))?;
    }
    Ok(state)
}
