//! Helpers of the trainer's tests: the arguments of a tiny training run, and (from
//! `exact/tests/common`) endgame positions of random games.
#![allow(dead_code)]

#[path = "../../../exact/tests/common/mod.rs"]
mod shared;
#[allow(unused_imports)]
pub use shared::*;

/// The settings of a command line of `sowing train`'s flags (`--name value` pairs, the first
/// word the command's name), as its config file would give them: each value a JSON number or
/// boolean where it reads as one, else a string.
pub fn settings_of(argv: &[String]) -> Result<sowing_train::TrainConfig, String> {
    let mut settings = serde_json::Map::new();
    for pair in argv[1..].chunks(2) {
        let [flag, value] = pair else {
            return Err(format!("{pair:?}: a flag without a value"));
        };
        let name = flag
            .strip_prefix("--")
            .ok_or("not a flag")?
            .replace('-', "_");
        let value = serde_json::from_str::<serde_json::Value>(value)
            .ok()
            .filter(|v| v.is_number() || v.is_boolean())
            .unwrap_or_else(|| serde_json::Value::String(value.clone()));
        settings.insert(name, value);
    }
    sowing_train::TrainConfig::from_settings(serde_json::Value::Object(settings))
        .map_err(|e| e.to_string())
}

/// The arguments of a tiny one-iteration run on en-dodoi-6 into `out`: a network that plays legal
/// moves in seconds, and little else.
pub fn tiny_args(out: &std::path::Path) -> sowing_train::TrainConfig {
    let argv: Vec<String> = [
        "train",
        "--variant",
        "en-dodoi-6",
        "--iterations",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--hidden",
        "8",
        "--blocks",
        "1",
        "--simulations",
        "4",
        "--games-per-iteration",
        "2",
        "--batch-size",
        "16",
        "--replay-capacity",
        "500",
        "--eval-games",
        "0",
        "--threads",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    settings_of(&argv).unwrap()
}
