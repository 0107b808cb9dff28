//! Making the agent a spec names: the searches with their budget and table, and (feature
//! `torch`) the trained network from its checkpoint. Tables are read here, once per process
//! ([`shared_tablebase`]); a checkpoint once per agent.

use super::{AgentSpec, SpecError};
use crate::agent::Agent;
use crate::alphabeta::AlphaBeta;
use crate::greedy::Greedy;
use crate::mcts::Mcts;
use crate::random::RandomAgent;
use sowing_exact::shared_tablebase;
use sowing_exact::tablebase::Tablebase;
use std::path::Path;
use std::sync::Arc;

/// The agent of `spec`; errors name the file that could not be read.
pub(super) fn build(spec: &AgentSpec) -> Result<Box<dyn Agent>, SpecError> {
    let table = table(spec, spec.tablebase().map(|p| p.as_path()))?;
    Ok(match spec {
        AgentSpec::Random => Box::new(RandomAgent),
        AgentSpec::Greedy => Box::new(Greedy),
        AgentSpec::AlphaBeta {
            budget, network, ..
        } => {
            let mut agent = AlphaBeta::new(*budget);
            if let Some(path) = network {
                agent =
                    agent.with_network(network_leaves(spec, path)?, &path.display().to_string());
            }
            match table {
                Some(table) => Box::new(agent.with_tablebase(table)),
                None => Box::new(agent),
            }
        }
        AgentSpec::Mcts { budget, .. } => {
            let agent = Mcts::new(*budget);
            match table {
                Some(table) => Box::new(agent.with_tablebase(table)),
                None => Box::new(agent),
            }
        }
        AgentSpec::Az { .. } => az(spec, table)?,
    })
}

/// The table of `tb=FILE`, if given: read the first time, shared by every agent of this process
/// that names it afterwards.
fn table(spec: &AgentSpec, file: Option<&Path>) -> Result<Option<Arc<Tablebase>>, SpecError> {
    file.map(|file| {
        shared_tablebase(file)
            .map_err(|e| SpecError::new(&spec.to_string(), format!("tb={}: {e}", file.display())))
    })
    .transpose()
}

/// The trained-network agent of an `az` spec, its options' defaults those of its budget.
#[cfg(feature = "torch")]
fn az(spec: &AgentSpec, table: Option<Arc<Tablebase>>) -> Result<Box<dyn Agent>, SpecError> {
    use crate::az::AzAgent;
    let AgentSpec::Az {
        path,
        budget,
        solver,
        leaves,
        ..
    } = spec
    else {
        unreachable!("called for az specs only");
    };
    let agent = AzAgent::load(path, *budget)
        .map_err(|e| SpecError::new(&spec.to_string(), e.to_string()))?
        .with_solver(solver.unwrap_or_else(|| AzAgent::default_solver(*budget)))
        .with_leaves(leaves.unwrap_or_else(|| AzAgent::default_leaves(*budget)));
    Ok(Box::new(match table {
        Some(table) => agent.with_tablebase(table),
        None => agent,
    }))
}

/// The network of a hybrid alpha-beta (`net=PATH`), from its checkpoint.
#[cfg(feature = "torch")]
fn network_leaves(
    spec: &AgentSpec,
    path: &Path,
) -> Result<crate::hybrid::NetworkLeaves, SpecError> {
    let (net, meta) = crate::az::inference::Playing::load(path)
        .map_err(|e| SpecError::new(&spec.to_string(), format!("net={}: {e}", path.display())))?;
    Ok(crate::hybrid::NetworkLeaves::new(
        Box::new(net),
        meta.rules.holes(),
    ))
}

/// Without the network (feature `torch`) a hybrid spec parses but makes no agent.
#[cfg(not(feature = "torch"))]
fn network_leaves(
    spec: &AgentSpec,
    _path: &Path,
) -> Result<crate::hybrid::NetworkLeaves, SpecError> {
    Err(SpecError::new(
        &spec.to_string(),
        "net= needs sowing built with the feature torch",
    ))
}

/// Without the network (feature `torch`) an `az` spec parses but makes no agent.
#[cfg(not(feature = "torch"))]
fn az(spec: &AgentSpec, _table: Option<Arc<Tablebase>>) -> Result<Box<dyn Agent>, SpecError> {
    Err(SpecError::new(
        &spec.to_string(),
        "az agents need sowing built with the feature torch (in Python, sowing.nn plays them)",
    ))
}
