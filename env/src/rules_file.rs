//! Rules files as the commands and the Python drivers read them: JSON, or TOML when the file's
//! name ends in `.toml` (in any case), named after the file's stem.

use crate::rules::Rules;
use std::path::Path;

/// The rules in `path` and the name they are shown under (the file's stem, `custom` if it has
/// none); the error names the file and what was wrong.
pub fn read_rules_file(path: &Path) -> Result<(String, Rules), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read rules file {}: {e}", path.display()))?;
    let rules = rules_of_file(path, &text)?;
    let name = path.file_stem().map_or_else(
        || "custom".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    Ok((name, rules))
}

/// The rules in `text`, read from the file `path`: TOML when its name ends in `.toml` (in any
/// case), JSON otherwise; the error names the file and what was wrong.
pub fn rules_of_file(path: &Path, text: &str) -> Result<Rules, String> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
    {
        Rules::from_toml(text)
    } else {
        Rules::from_json(text)
    }
    .map_err(|e| format!("rules file {}: {e}", path.display()))
}
