//! The native module `sowing._sowing`: Python bindings for `sowing-env`, the search agents of
//! `sowing-agents`, and its batched PUCT search with leaves valued in Python, kept thin. The
//! pure-Python package around it (`python/sowing`) adds Gymnasium, PettingZoo and the vector
//! environments; `_sowing.pyi` documents this module's types. Checkpoints and the training
//! settings come from `sowing-agents` and `sowing-train` (built without libtorch), so that
//! Python reads and writes what `sowing train` does.

mod agents;
mod args;
mod checkpoint;
mod error;
mod long_call;
mod memory;
mod positions;
mod reentry;
mod rules;
mod search;
mod series;
mod solver;
mod spec;
mod split;
mod state;
mod tablebase;
mod vec;

use pyo3::prelude::*;

#[pymodule]
fn _sowing(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    checkpoint::register(m)?;
    m.add_class::<rules::PyRules>()?;
    m.add_class::<state::PyState>()?;
    m.add_class::<vec::PySelfPlayVec>()?;
    m.add_class::<agents::PyAgent>()?;
    m.add_class::<solver::PyProof>()?;
    m.add_class::<tablebase::PyTablebase>()?;
    m.add_class::<tablebase::PyProbe>()?;
    m.add_class::<positions::PyLabelling>()?;
    m.add_class::<positions::PyCollector>()?;
    m.add_function(wrap_pyfunction!(positions::positions_defaults, m)?)?;
    m.add_class::<split::PySplit>()?;
    m.add_class::<search::PySearch>()?;
    m.add_class::<search::PyLinear>()?;
    m.add_class::<search::PyNetworkAgent>()?;
    m.add_function(wrap_pyfunction!(search::self_play, m)?)?;
    m.add_function(wrap_pyfunction!(search::search_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(search::self_play_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(search::network_match, m)?)?;
    m.add_function(wrap_pyfunction!(search::rate_round_robin, m)?)?;
    m.add_function(wrap_pyfunction!(search::elo_against, m)?)?;
    m.add_function(wrap_pyfunction!(agents::agent_forms, m)?)?;
    m.add_function(wrap_pyfunction!(spec::parse_agent_spec, m)?)?;
    m.add("MAX_AGENT_TIME", sowing_agents::MAX_TIME.as_secs_f64())?;
    m.add_function(wrap_pyfunction!(solver::solve, m)?)?;
    m.add_function(wrap_pyfunction!(memory::check_memory, m)?)?;
    m.add_function(wrap_pyfunction!(series::play_match, m)?)?;
    m.add_function(wrap_pyfunction!(series::series_odds, m)?)?;
    m.add_function(wrap_pyfunction!(rules::variants, m)?)?;
    m.add_function(wrap_pyfunction!(rules::variant_source, m)?)?;
    m.add(
        "IllegalActionError",
        py.get_type::<error::IllegalActionError>(),
    )?;
    m.add("GameOverError", py.get_type::<error::GameOverError>())?;
    m.add("MAX_HOLES", sowing_env::MAX_HOLES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
